"""The edits a site makes when it reprints an article.

Each edit is a small function ``(page, rng, ctx) -> None`` that changes a
:class:`Page` in place; :func:`reprint` draws which ones to apply. Their
probabilities are in :data:`EDIT_PROBABILITIES` and documented in
``benchmarks/CORPUS.md``.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from .textutil import HAN


@dataclass
class Page:
    """An article as one site publishes it, before the site's own wrapper."""

    lang: str
    title: str
    paras: list[str]
    lead: list[str] = field(default_factory=list)  # byline / editor's note above the body
    tail: list[str] = field(default_factory=list)  # "read more", editor line below it

    def copy(self) -> Page:
        return replace(self, paras=list(self.paras), lead=list(self.lead), tail=list(self.tail))


@dataclass(frozen=True)
class Context:
    """What an edit may mention: where the article came from, when, and who."""

    source_site: str
    date: str
    other_titles: tuple[str, ...]


# --- names and dates ---------------------------------------------------------

_ZH_SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘"
_ZH_GIVEN = "伟芳娜敏静丽强磊军洋勇艳杰娟涛明超秀霞平刚桂英华玉兰萍红鹏宇晨欣怡浩然子涵思远文博嘉"
_EN_FIRST = (
    "James Mary John Patricia Robert Jennifer Michael Linda David Elizabeth William Susan "
    "Priya Wei Ahmed Sofia Lucas Hannah Mateo Aisha Noah Emma Olivia Liam Chen Yuki Omar"
).split()
_EN_LAST = (
    "Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez Wilson "
    "Anderson Taylor Thomas Moore Jackson Martin Lee Thompson White Patel Nguyen Kim Novak"
).split()


def person(lang: str, rng: random.Random) -> str:
    """A made-up author or editor name."""
    if lang == "zh":
        given = "".join(rng.choice(_ZH_GIVEN) for _ in range(rng.choice((1, 2, 2))))
        return rng.choice(_ZH_SURNAMES) + given
    return f"{rng.choice(_EN_FIRST)} {rng.choice(_EN_LAST)}"


# --- titles and bylines ------------------------------------------------------

_ZH_TITLE = (
    "【转载】{t}", "转：{t}", "干货｜{t}", "{t}（建议收藏）", "{t}，看这一篇就够了",
    "一文读懂：{t}", "{t}——完整指南", "技术分享｜{t}", "{t}（附详细步骤）", "必看！{t}",
    "关于“{t}”，你需要知道的都在这里", "{t}详解", "[原创]{t}", "{t}_技术文档", "收藏：{t}",
)  # fmt: skip
_EN_TITLE = (
    "Guide: {t}", "{t}: what you need to know", "[Repost] {t}", "{t} (updated)",
    "How-to: {t}", "{t}, explained", "Everything you need to know about {t}",
    "{t} | Tutorial", "A practical guide to {t}", "{t} - complete walkthrough",
    "UPDATED: {t}", "Deep dive: {t}", "{t} (step by step)", "Quick tip: {t}",
)  # fmt: skip
_ZH_BYLINE = (
    "来源：{src}　作者：{p}　{d}", "责任编辑：{p}", "本文转载自{src}，原标题：《{t}》",
    "文/{p}　编辑/{p2}", "（记者 {p}）", "来源：{src}", "作者：{p}　发布时间：{d}",
    "原文链接：{src}　转载请注明出处", "{d}　来源：{src}　编辑：{p}",
)  # fmt: skip
_ZH_BYLINE_END = (
    "（责任编辑：{p}）", "（来源：{src}）", "本文转载自{src}，版权归原作者所有。",
    "（编辑：{p}　审核：{p2}）", "（原标题：{t}）", "文章来源：{src}",
)  # fmt: skip
_EN_BYLINE = (
    "By {p} | Updated {d}", "Source: {src}", "By {p}, {src}", "Posted by {p} on {d}",
    "Originally published on {src}. Republished with permission.", "{d} — {p}",
    "Editor's note: this article first appeared on {src}.", "Written by {p} · {d}",
)  # fmt: skip
_EN_BYLINE_END = (
    "This article originally appeared on {src}.", "Edited by {p}.",
    "(Reporting by {p}; editing by {p2})", "Source: {src}", "Original title: {t}",
)  # fmt: skip


_MARKUP = re.compile(r"<[^>]*>|&\w+;")


def retitle(page: Page, rng: random.Random, ctx: Context) -> None:
    """A new headline: a prefix or suffix, or one cut from the lead sentence."""
    if page.paras and rng.random() < 0.2:
        # An editor writes it, so no markup or odd spacing from the body.
        lead = _MARKUP.sub("", page.paras[0]).replace("\xa0", " ").strip(" \t\u3000")
        cut = re.split(r"[。！？.!?]", lead)[0][: (28 if page.lang == "zh" else 90)]
        if len(cut) > 8:
            page.title = cut
            return
    pool = _ZH_TITLE if page.lang == "zh" else _EN_TITLE
    page.title = rng.choice(pool).format(t=page.title)


def byline(page: Page, rng: random.Random, ctx: Context) -> None:
    """A source/author/editor line at the top or the bottom."""
    zh = page.lang == "zh"
    top = rng.random() < 0.6
    pool = (_ZH_BYLINE if top else _ZH_BYLINE_END) if zh else (_EN_BYLINE if top else _EN_BYLINE_END)
    line = rng.choice(pool).format(
        src=ctx.source_site,
        p=person(page.lang, rng),
        p2=person(page.lang, rng),
        d=ctx.date,
        t=page.title,
    )
    (page.lead if top else page.tail).append(line)


# --- character edits ---------------------------------------------------------

_ZH_SYNONYMS = (
    ("使用", "采用"), ("可以", "能够"), ("如果", "假如"), ("因为", "由于"), ("但是", "但"),
    ("默认", "缺省"), ("用户", "使用者"), ("目录", "文件夹"), ("设置", "设定"), ("所有", "全部"),
    ("通常", "一般"), ("然后", "接着"), ("已经", "已"), ("非常", "十分"), ("例如", "比如"),
    ("包括", "包含"), ("显示", "展示"), ("需要", "须要"), ("程序", "程式"), ("软件", "软体"),
    ("重要", "关键"), ("现在", "目前"), ("这个", "该"), ("一些", "部分"), ("之后", "以后"),
)  # fmt: skip
_ZH_HOMOPHONES = {
    "在": "再", "再": "在", "做": "作", "作": "做", "那": "哪", "以": "已", "即": "既",
    "像": "象", "账": "帐", "录": "陆", "须": "需", "型": "形", "部": "步", "式": "试",
}  # fmt: skip
_EN_SYNONYMS = (
    ("use", "utilize"), ("however", "but"), ("allows", "lets"), ("shows", "displays"),
    ("large", "big"), ("many", "numerous"), ("start", "begin"), ("need", "require"),
    ("important", "crucial"), ("color", "colour"), ("behavior", "behaviour"),
    ("license", "licence"), ("organize", "organise"), ("also", "additionally"),
    ("usually", "typically"), ("quickly", "rapidly"), ("problem", "issue"),
    ("example", "instance"), ("change", "modify"), ("get", "obtain"),
)  # fmt: skip
_EN_MISSPELL = (
    ("receive", "recieve"), ("separate", "seperate"), ("the", "teh"), ("occurred", "occured"),
    ("which", "wich"), ("definitely", "definately"), ("until", "untill"), ("its", "it's"),
    ("their", "there"), ("necessary", "neccessary"), ("environment", "enviroment"),
    ("argument", "arguement"), ("existence", "existance"), ("independent", "independant"),
)  # fmt: skip


def _pick_para(page: Page, rng: random.Random) -> int:
    weights = [len(p) for p in page.paras]
    return rng.choices(range(len(page.paras)), weights=weights)[0] if sum(weights) else 0


def _swap_word(text: str, pairs: tuple[tuple[str, str], ...], rng: random.Random) -> str | None:
    """Replace one occurrence of a word from ``pairs`` (either direction)."""
    found = []
    for a, b in pairs:
        for old, new in ((a, b), (b, a)):
            pat = re.escape(old) if HAN.match(old[0]) else rf"\b{re.escape(old)}\b"
            found += [(m.start(), m.end(), new) for m in re.finditer(pat, text)]
    if not found:
        return None
    s, e, new = rng.choice(found)
    return text[:s] + new + text[e:]


def _typo(text: str, lang: str, rng: random.Random) -> str:
    if lang == "zh":
        spots = [m.start() for m in HAN.finditer(text)]
    else:
        spots = [m.start() for m in re.finditer(r"[A-Za-z](?=[A-Za-z]{2})", text)]
    if not spots:
        return text
    i = rng.choice(spots)
    kind = rng.choice(("delete", "double", "swap", "homophone"))
    if kind == "homophone" and lang == "zh" and text[i] in _ZH_HOMOPHONES:
        return text[:i] + _ZH_HOMOPHONES[text[i]] + text[i + 1 :]
    if kind == "delete":
        return text[:i] + text[i + 1 :]
    if kind == "double" or i + 1 >= len(text):
        return text[: i + 1] + text[i:]
    return text[:i] + text[i + 1] + text[i] + text[i + 2 :]


def _de_di(text: str, rng: random.Random) -> str | None:
    spots = [m.start() for m in re.finditer("[的地得]", text)]
    if not spots:
        return None
    i = rng.choice(spots)
    new = rng.choice([c for c in "的地得" if c != text[i]])
    return text[:i] + new + text[i + 1 :]


def char_edits(page: Page, rng: random.Random, ctx: Context) -> None:
    """A few edited characters: typos, 的/地/得, synonyms, misspellings."""
    if not page.paras:
        return
    for _ in range(min(1 + int(rng.expovariate(0.6)), 8)):
        i = _pick_para(page, rng)
        text = page.paras[i]
        roll = rng.random()
        new: str | None
        if page.lang == "zh":
            if roll < 0.3:
                new = _de_di(text, rng)
            elif roll < 0.6:
                new = _swap_word(text, _ZH_SYNONYMS, rng)
            else:
                new = None
        else:
            if roll < 0.3:
                new = _swap_word(text, _EN_SYNONYMS, rng)
            elif roll < 0.5:
                new = _swap_word(text, _EN_MISSPELL, rng)
            else:
                new = None
        page.paras[i] = new if new is not None else _typo(text, page.lang, rng)


# --- punctuation, whitespace, HTML --------------------------------------------

_FULL_TO_HALF = {
    "，": ", ", "。": ". ", "；": "; ", "：": ": ", "？": "? ", "！": "! ", "（": " (",
    "）": ") ", "“": '"', "”": '"', "、": ", ",
}  # fmt: skip
_HALF_TO_FULL = {",": "，", ";": "；", ":": "：", "?": "？", "!": "！", "(": "（", ")": "）"}


def _convert(text: str, table: dict[str, str], share: float, rng: random.Random) -> str:
    return "".join(table[c] if c in table and rng.random() < share else c for c in text)


def punctuation(page: Page, rng: random.Random, ctx: Context) -> None:
    """Full-width vs ASCII punctuation (zh); quotes, dashes and ellipses (en)."""
    share = rng.choice((1.0, 1.0, 0.5, 0.2))
    if page.lang == "zh":
        table = _FULL_TO_HALF if rng.random() < 0.75 else _HALF_TO_FULL
        page.paras = [_convert(p, table, share, rng) for p in page.paras]
        if rng.random() < 0.5:
            page.title = _convert(page.title, table, share, rng)
        return
    roll = rng.random()
    if roll < 0.15:  # an English page through a Chinese CMS
        page.paras = [_convert(p, _HALF_TO_FULL, share, rng) for p in page.paras]
        return
    curly = roll < 0.6
    table = (
        {'"': "“", "'": "’", "--": "—", "...": "…"}
        if curly
        else {"“": '"', "”": '"', "’": "'", "‘": "'", "—": "--", "…": "..."}
    )
    out = []
    for p in page.paras:
        for old, new in table.items():
            if rng.random() < max(share, 0.5):
                p = p.replace(old, new)
        out.append(p)
    page.paras = out


# Where "pangu spacing" puts a space: between a Chinese character and a Latin one.
_PANGU = re.compile(r"(?<=[\u4e00-\u9fff])(?=[A-Za-z0-9])|(?<=[A-Za-z0-9])(?=[\u4e00-\u9fff])")


def whitespace(page: Page, rng: random.Random, ctx: Context) -> None:
    """Extra spaces, full-width spaces, spaces between CJK and Latin, trailing blanks."""
    kinds = rng.sample(("inner", "indent", "trailing", "pangu", "nbsp"), k=rng.choice((1, 1, 2)))
    paras = page.paras
    if "inner" in kinds:

        def spaced(p: str) -> str:
            chars = list(p)
            for _ in range(max(1, len(p) // 200)):
                j = rng.randrange(len(chars) + 1)
                chars.insert(j, rng.choice((" ", "  ", "\u3000" if page.lang == "zh" else " ")))
            return "".join(chars)

        paras = [spaced(p) if p and rng.random() < 0.5 else p for p in paras]
    if "indent" in kinds:
        lead = "\u3000\u3000" if page.lang == "zh" else rng.choice(("  ", "\t", "    "))
        paras = [lead + p for p in paras]
    if "trailing" in kinds:
        paras = [p + rng.choice((" ", "  ", "\t", "")) for p in paras]
    if "pangu" in kinds:
        paras = [_PANGU.sub(" ", p) for p in paras]
    if "nbsp" in kinds:
        paras = [p.replace(" ", "\xa0", rng.randint(1, 3)) for p in paras]
    # Blank lines between paragraphs become empty paragraphs.
    if rng.random() < 0.4:
        paras = [x for p in paras for x in (p, "")][:-1]
    page.paras = paras


_STRAY_TAGS = ("</div>", '<div class="article-content">', "</span>", '<img src="/upload/image.png" alt="">')


def html_remnants(page: Page, rng: random.Random, ctx: Context) -> None:
    """Tags and entities a careless scraper leaves behind."""
    kinds = rng.sample(("p", "nbsp", "amp", "br", "stray", "strong"), k=rng.choice((1, 2, 3)))
    paras = page.paras
    if "p" in kinds:
        paras = [f"<p>{p}</p>" if p and rng.random() < 0.8 else p for p in paras]
    if "nbsp" in kinds:
        paras = [("&nbsp;" * rng.choice((1, 2, 4)) + p) if p and rng.random() < 0.5 else p for p in paras]
    if "amp" in kinds:
        paras = [p.replace("&", "&amp;").replace('"', "&quot;") for p in paras]
    if "br" in kinds:
        paras = [p + "<br/>" if rng.random() < 0.5 else p for p in paras]
    if "strong" in kinds and paras:
        i = _pick_para(page, rng)  # same length as paras: no paragraph added yet
        p = paras[i]
        if len(p) > 12:
            a = rng.randrange(len(p) // 2)
            paras[i] = p[:a] + "<strong>" + p[a : a + 8] + "</strong>" + p[a + 8 :]
    if "stray" in kinds:
        pos = rng.randrange(len(paras) + 1)
        paras = [*paras[:pos], rng.choice(_STRAY_TAGS), *paras[pos:]]
    page.paras = paras


# --- paragraph edits ---------------------------------------------------------

_ZH_ADDED = (
    "编者按：本文介绍的内容适用于大多数常见环境，读者可根据自己的实际情况进行调整。",
    "小编提示：文中涉及的操作建议先在测试环境中验证，再应用到生产系统。",
    "点击上方蓝字关注我们，获取更多技术干货。",
    "（图片来源：网络）",
    "更多精彩内容，请关注{src}。",
)  # fmt: skip
_EN_ADDED = (
    "Editor's note: the steps below were tested on a default installation; adjust them to your setup.",
    "Want more articles like this? Follow us for weekly tips.",
    "(Image: {src})",
    "Related: see our other guides on {src}.",
    "Update: a reader pointed out a typo in an earlier version of this article, now fixed.",
)  # fmt: skip


def drop_paragraph(page: Page, rng: random.Random, ctx: Context) -> None:
    """Leave out one paragraph (two in a long article)."""
    for _ in range(2 if len(page.paras) > 8 else 1):
        if len(page.paras) > 2:
            del page.paras[rng.randrange(1, len(page.paras))]


def add_paragraph(page: Page, rng: random.Random, ctx: Context) -> None:
    """An editor's note, a promotion line or a "related reading" block."""
    zh = page.lang == "zh"
    if ctx.other_titles and rng.random() < 0.4:
        picks = rng.sample(ctx.other_titles, k=min(3, len(ctx.other_titles)))
        block = ["相关阅读：" if zh else "Related reading:", *[f"· {t}" for t in picks]]
        page.tail.extend(block)
        return
    line = rng.choice(_ZH_ADDED if zh else _EN_ADDED).format(src=ctx.source_site)
    page.paras.insert(rng.randrange(len(page.paras) + 1), line)


def reorder(page: Page, rng: random.Random, ctx: Context) -> None:
    """Swap two neighbouring paragraphs."""
    if len(page.paras) >= 3:
        i = rng.randrange(len(page.paras) - 1)
        page.paras[i], page.paras[i + 1] = page.paras[i + 1], page.paras[i]


def merge_split(page: Page, rng: random.Random, ctx: Context) -> None:
    """Join two paragraphs into one, or break one at a sentence end."""
    paras = page.paras
    if len(paras) >= 2 and rng.random() < 0.5:
        i = rng.randrange(len(paras) - 1)
        glue = "" if page.lang == "zh" else " "
        paras[i : i + 2] = [paras[i] + glue + paras[i + 1]]
        return
    i = _pick_para(page, rng)
    cuts = [m.end() for m in re.finditer(r"[。！？]|[.!?] ", paras[i])][:-1]
    if cuts:
        c = rng.choice(cuts)
        paras[i : i + 1] = [paras[i][:c].rstrip(), paras[i][c:].lstrip()]


_ZH_MORE = ("…阅读全文", "（未完，点击查看全文）", "……", "点击阅读原文", "查看更多>>")
_EN_MORE = ("Read more", "Read more »", "Continue reading...", "[...]", "Click here to read the full article.")


def truncate(page: Page, rng: random.Random, ctx: Context) -> None:
    """Keep the first 40-80% of the paragraphs and add a "read more" link."""
    keep = max(1, round(len(page.paras) * rng.uniform(0.4, 0.8)))
    page.paras = page.paras[:keep]
    page.tail.append(rng.choice(_ZH_MORE if page.lang == "zh" else _EN_MORE))


Edit = Callable[[Page, random.Random, Context], None]

# (edit, probability): independent draws per reprint; order is application order.
EDIT_PROBABILITIES: tuple[tuple[Edit, float], ...] = (
    (retitle, 0.6),
    (byline, 0.6),
    (drop_paragraph, 0.2),
    (add_paragraph, 0.15),
    (reorder, 0.1),
    (merge_split, 0.15),
    (truncate, 0.12),
    (char_edits, 0.5),
    (punctuation, 0.3),
    (whitespace, 0.35),
    (html_remnants, 0.2),
)
EXACT_COPY = 0.03  # a reprint that no edit touched stays a verbatim copy this often


def reprint(page: Page, rng: random.Random, ctx: Context) -> tuple[Page, list[str]]:
    """A reprint of ``page`` and the names of the edits it got."""
    out = page.copy()
    out.lead, out.tail = [], []  # the parent's own byline is not carried over
    applied = [edit for edit, p in EDIT_PROBABILITIES if rng.random() < p]
    if not applied and rng.random() > EXACT_COPY:
        applied = [rng.choice((char_edits, whitespace, retitle))]
    for edit in applied:
        edit(out, rng, ctx)
    return out, [e.__name__ for e in applied]
