"""What reprinting sites and later revisions do to an article's text.

Every function takes the run's ``random.Random`` and records what it did in a ``Counter`` log
(the keys become a page's ``edits`` in ``.meta.jsonl`` and the shares in ``stats.json``).

The order of the random draws is the corpus: a draw added, dropped or moved changes every page
after it, so some draws whose value is unused are kept on purpose (marked below).
"""

from __future__ import annotations

import random
import re
from collections import Counter

from sources import Article
from words import EN_ADS, EN_AUTH, EN_FILL, EN_SYN, FULL2HALF, ZH_ADS, ZH_AUTH, ZH_FILL, ZH_SYN

Log = Counter[str]  # edit name -> times applied

ZH_TITLES = [
    "转载｜%s",
    "%s（图文教程）",
    "【教程】%s",
    "%s - 详细步骤",
    "干货：%s",
    "%s，看这篇就够了",
    "新手必看：%s",
]
EN_TITLES = [
    "[Guide] %s",
    "%s - a quick guide",
    "How to: %s",
    "%s (Explained)",
    "Tutorial: %s",
    "%s | Tips and Tricks",
    "Understanding %s",
]
ZH_NOTES = [
    "更新：本文已根据最新版本修订。",
    "【更新】修正了部分描述错误，感谢网友指正。",
    "编者注：本文于近日更新，补充了部分内容。",
]
EN_NOTES = [
    "Update: this article has been revised for the latest version.",
    "UPDATE: Fixed a few errors, thanks to readers who pointed them out.",
    "Editor's note: this post was updated with additional details.",
]
TRUNCATIONS = ("first_para_dropped", "last_para_dropped", "excerpt_only")


# ------------------------------------------------------------------ text primitives
def halfwidth(s: str, only_period: bool = False) -> str:
    """Full-width Chinese punctuation replaced by ASCII (or only the full stop)."""
    if only_period:
        return s.replace("。", ".")
    return "".join(FULL2HALF.get(c, c) for c in s)


def hard_wrap(p: str, width: int, zh: bool) -> str:
    """A paragraph broken into lines of at most ``width`` characters (Chinese: anywhere; English: at spaces)."""
    if zh:
        return "\n".join(p[i : i + width] for i in range(0, len(p), width))
    lines, cur = [], ""
    for word in p.split(" "):
        if cur and len(cur) + 1 + len(word) > width:
            lines.append(cur)
            cur = word
        else:
            cur = (cur + " " + word) if cur else word
    if cur:
        lines.append(cur)
    return "\n".join(lines)


def split_sents(p: str, zh: bool) -> list[str]:
    """The sentences of a paragraph, each with its end punctuation (``join_sents`` undoes it)."""
    parts = re.split(r"(?<=[。！？；])", p) if zh else re.split(r"(?<=[.!?])\s+(?=[A-Z(\"'])", p)
    return [x for x in parts if x.strip()]


def join_sents(ss: list[str], zh: bool) -> str:
    return ("" if zh else " ").join(ss)


def typo(s: str, rng: random.Random, zh: bool, pool: list[str]) -> str:
    """One typo: Chinese swaps, drops or inserts a character from ``pool``; English edits one letter."""
    if len(s) < 4:
        return s
    i = rng.randrange(len(s) - 1)
    op = rng.random()
    if zh:
        if op < 0.5:
            return s[:i] + rng.choice(pool) + s[i + 1 :]
        if op < 0.75:
            return s[:i] + s[i + 1 :]
        return s[:i] + rng.choice(pool) + s[i:]
    if not s[i].isalpha():
        return s
    if op < 0.35:
        return s[:i] + s[i + 1] + s[i] + s[i + 2 :]
    if op < 0.65:
        return s[:i] + s[i + 1 :]
    if op < 0.85:
        return s[:i] + s[i] + s[i:]
    return s[:i] + rng.choice("etaoinshrdlu") + s[i + 1 :]


def _drop_chunk(sent: str, rng: random.Random, zh: bool) -> str:
    """A sentence with a few characters (Chinese) or one or two words (English) cut out."""
    if zh and len(sent) > 12:
        i = rng.randrange(2, len(sent) - 6)
        return sent[:i] + sent[i + rng.randint(2, 5) :]
    w = sent.split(" ")
    if len(w) > 6:
        i = rng.randrange(1, len(w) - 3)
        del w[i : i + rng.randint(1, 2)]
        return " ".join(w)
    return sent


def reword(sent: str, rng: random.Random, zh: bool) -> str:
    """A sentence reworded: a synonym swapped, a filler opening added, two clauses swapped or a chunk dropped."""
    syn = ZH_SYN if zh else EN_SYN
    cands = [(a, b) for a, b in syn if a in sent] + [(b, a) for a, b in syn if b in sent]
    op = rng.random()
    if cands and op < 0.55:
        a, b = rng.choice(cands)
        return sent.replace(a, b, 1) if zh else re.sub(rf"\b{re.escape(a)}\b", b, sent, count=1)
    if op < 0.75:
        return rng.choice(ZH_FILL if zh else EN_FILL) + (sent if zh else sent[:1].lower() + sent[1:])
    sep = "，" if zh else ", "
    clauses = sent.split(sep)
    if len(clauses) >= 3:
        i = rng.randrange(len(clauses) - 2)
        clauses[i], clauses[i + 1] = clauses[i + 1], clauses[i]
        return sep.join(clauses)
    return _drop_chunk(sent, rng, zh)


def change_title(title: str, rng: random.Random, zh: bool) -> str:
    """A reprinting site's headline for ``title`` ("How to: ...", "【教程】...")."""
    return rng.choice(ZH_TITLES if zh else EN_TITLES) % title


# ------------------------------------------------------------------ reprints
def _intensity(rng: random.Random, log: Log) -> str:
    r = rng.random()
    intensity = "light" if r < 0.62 else ("medium" if r < 0.88 else "heavy")
    log["intensity_" + intensity] += 1
    return intensity


def _edit_title(title: str, rng: random.Random, zh: bool, log: Log) -> str | None:
    r = rng.random()
    if r < 0.2:
        log["title_dropped"] += 1
        return None
    if r < 0.45:
        log["title_changed"] += 1
        return change_title(title, rng, zh)
    return title


def _truncate(paras: list[str], rng: random.Random, log: Log) -> tuple[list[str], bool]:
    """Drop the first / last paragraph(s) or keep an excerpt; returns (paras, is an excerpt)."""
    orig_len = sum(map(len, paras))
    cut, excerpt = paras, False
    if len(cut) > 2 and rng.random() < 0.15:
        cut = cut[1:]
        log["first_para_dropped"] += 1
    if len(cut) > 2 and rng.random() < 0.2:
        cut = cut[: -rng.randint(1, min(2, len(cut) - 2))]
        log["last_para_dropped"] += 1
    if len(cut) > 3 and rng.random() < 0.06:
        cut = cut[: max(2, int(len(cut) * rng.uniform(0.4, 0.6)))]
        excerpt = True
        log["excerpt_only"] += 1
    if sum(map(len, cut)) < 0.4 * orig_len:
        # Less than 40% of the article left is another article: undo the truncation.
        for k in TRUNCATIONS:
            log.pop(k, None)
        return paras, False
    return cut, excerpt


def _reword_sentences(paras: list[str], rng: random.Random, zh: bool, intensity: str, log: Log) -> list[str]:
    """Reword (heavy: sometimes delete) a share of the sentences that grows with the intensity."""
    # Both uniforms are drawn whatever the intensity: the random stream is the corpus.
    fracs = {"light": 0.0, "medium": rng.uniform(0.05, 0.12), "heavy": rng.uniform(0.2, 0.3)}
    n_light = rng.choice([0, 0, 1, 2]) if intensity == "light" else 0
    sents = [split_sents(p, zh) for p in paras]
    positions = [(i, j) for i, ss in enumerate(sents) for j in range(len(ss))]
    k = max(n_light, round(fracs[intensity] * len(positions)))
    if k and positions:
        log["sentences_reworded"] += 1
        for i, j in rng.sample(positions, min(k, len(positions))):
            if intensity == "heavy" and rng.random() < 0.15:
                sents[i][j] = ""
            else:
                sents[i][j] = reword(sents[i][j], rng, zh)
    joined = [join_sents([s for s in ss if s], zh) for ss in sents]
    return [p for p in joined if p.strip()]


def _add_typos(paras: list[str], rng: random.Random, zh: bool, intensity: str, log: Log) -> list[str]:
    # All three counts are drawn whatever the intensity: the random stream is the corpus.
    counts = {
        "light": rng.choice([0, 0, 1, 2, 3]),
        "medium": rng.randint(2, 8),
        "heavy": max(3, int(sum(map(len, paras)) * rng.uniform(0.004, 0.01))),
    }
    n = counts[intensity]
    if not (n and paras):
        return paras
    log["typos"] += 1
    # A Chinese typo is a wrong character of the same text (as an input method would give).
    pool = ([c for c in "".join(paras) if "\u4e00" <= c <= "\u9fff"] if zh else []) or ["的"]
    paras = list(paras)
    for _ in range(n):
        i = rng.randrange(len(paras))
        paras[i] = typo(paras[i], rng, zh, pool)
    return paras


def _change_punctuation(paras: list[str], rng: random.Random, zh: bool, log: Log) -> list[str]:
    if rng.random() >= 0.25:
        return paras
    log["punctuation_changed"] += 1
    if zh:
        only_period = rng.random() < 0.4
        return [halfwidth(p, only_period=only_period) for p in paras]
    if rng.random() < 0.5:  # typographic quotes
        return [re.sub(r'"([^"]*)"', "\u201c\\1\u201d", p).replace("'", "\u2019") for p in paras]
    return [p.replace(". ", ".  ").replace(" - ", " -- ").replace(";", ",") for p in paras]


def _foreign_paragraph(other: Article, paras: list[str], rng: random.Random) -> str:
    """A paragraph of another article, cut (at a sentence end if it can) to below 40% of this one."""
    fp: str = rng.choice(other["paras"])
    cap = max(40, int(0.4 * sum(map(len, paras))))
    if len(fp) > cap:
        fp = fp[:cap]
        cut = max(fp.rfind(c) for c in ("。", ". ", "！", "？"))
        fp = fp[: cut + 1] if cut > cap // 3 else fp
    return fp


def _insert_noise(
    paras: list[str], rng: random.Random, zh: bool, arts: list[Article], me: Article, log: Log
) -> list[str]:
    """Maybe insert an ad line, maybe a paragraph of another article."""
    paras = list(paras)
    if len(paras) >= 2 and rng.random() < 0.12:
        paras.insert(rng.randrange(1, len(paras)), rng.choice(ZH_ADS if zh else EN_ADS))
        log["ad_inserted"] += 1
    if len(paras) >= 2 and rng.random() < 0.08:
        other = arts[rng.randrange(len(arts))]
        if other is not me:
            fp = _foreign_paragraph(other, paras, rng)
            paras.insert(rng.randrange(1, len(paras)), fp)
            log["foreign_para_inserted"] += 1
    return paras


def _change_layout(paras: list[str], rng: random.Random, zh: bool, log: Log) -> list[str]:
    """Hard wrapping, all paragraphs joined into one, or changed white space (or nothing)."""
    r = rng.random()
    if r < 0.12:
        width = rng.randint(40, 80)
        log["hard_wrapped"] += 1
        return [hard_wrap(p, width, zh) for p in paras]
    if r < 0.22:
        log["paras_joined"] += 1
        return [("" if zh else " ").join(paras)]
    if r < 0.34:
        if zh:
            paras = [re.sub(r"([，。])", r"\1 ", p) for p in paras]
        else:
            paras = [re.sub(r" ", lambda m: "  " if rng.random() < 0.15 else " ", p) for p in paras]
        log["whitespace_changed"] += 1
        return [p + "  " for p in paras]
    return paras


def reprint_edit(
    title: str, paras: list[str], rng: random.Random, zh: bool, arts: list[Article], me: Article, log: Log
) -> tuple[str | None, list[str], list[str], list[str], bool]:
    """What a reprinting site does to article ``me`` (one of ``arts``).

    Returns (title or None, paragraphs, lines above the body, lines below it, is an excerpt).
    """
    intensity = _intensity(rng, log)
    new_title = _edit_title(title, rng, zh, log)
    paras, excerpt = _truncate(list(paras), rng, log)
    paras = _reword_sentences(paras, rng, zh, intensity, log)
    paras = _add_typos(paras, rng, zh, intensity, log)
    paras = _change_punctuation(paras, rng, zh, log)
    paras = _insert_noise(paras, rng, zh, arts, me, log)
    paras = _change_layout(paras, rng, zh, log)
    extra_top = []
    if rng.random() < 0.3:
        extra_top.append(("作者：%s" if zh else "By %s") % rng.choice(ZH_AUTH if zh else EN_AUTH))
        log["byline_added"] += 1
    return new_title, paras, extra_top, [], excerpt


# ------------------------------------------------------------------ revisions
def _change_number(paras: list[str], rng: random.Random) -> bool:
    """Raise the first number of a paragraph that has one; False if there is none."""
    with_digits = [i for i, p in enumerate(paras) if re.search(r"\d", p)]
    if not with_digits:
        return False
    i = rng.choice(with_digits)
    paras[i] = re.sub(r"\d+", lambda m: str(int(m.group(0)) + rng.randint(1, 9)), paras[i], count=1)
    return True


def _reword_one(paras: list[str], rng: random.Random, zh: bool) -> None:
    i = rng.randrange(len(paras))
    ss = split_sents(paras[i], zh)
    j = rng.randrange(len(ss))
    ss[j] = reword(ss[j], rng, zh)
    paras[i] = join_sents(ss, zh)


def revise(paras: list[str], rng: random.Random, zh: bool, log: Log) -> tuple[list[str], list[str], list[str]]:
    """The same site's later version: one or two of a reworded sentence, a changed number, an update note.

    Returns (paragraphs, lines above the body, lines below it).
    """
    paras = list(paras)
    top: list[str] = []
    bottom: list[str] = []
    for op in rng.sample(["sentence", "number", "note"], rng.randint(1, 2)):
        if op == "number":
            if _change_number(paras, rng):
                log["rev_number_changed"] += 1
                continue
            op = "sentence"  # no number to change
        if op == "sentence":
            _reword_one(paras, rng, zh)
            log["rev_sentence_changed"] += 1
        else:
            note = rng.choice(ZH_NOTES if zh else EN_NOTES)
            (top if rng.random() < 0.5 else bottom).append(note)
            log["rev_note_added"] += 1
    return paras, top, bottom
