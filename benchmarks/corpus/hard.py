"""The hard cases of corpus v2: what made v1 too easy, as edits and site habits.

Reprint edits (``(page, rng, ctx) -> None`` like :mod:`edits`, drawn with
:data:`HARD_EDIT_PROBABILITIES` after the v1 edits):

* ``heavy_edits``: 10-30 character edits, 15-30% of the sentences dropped and
  a few neighbouring sentences swapped (an abridged, sloppily retyped copy);
* ``foreign_paragraph``: one paragraph of another article pasted in (a
  scraper that took a neighbouring block; the page is still the host's);
* ``join_paragraphs``: paragraph breaks lost, the body is one or two blocks;
* ``wrap``: hard line breaks at 60-80 columns (30-40 CJK characters), as in
  mail archives and plain-text mirrors.

Light revisions (:func:`revise`): the same page updated in place, one to
three sentence-level changes (a reworded sentence, a bumped version number, an
added update note, a removed sentence). They keep the article's label.

Site habits (:func:`add_habits`) on top of v1's sites: notices copied
verbatim across sites (licence, cookie consent, "share this"), the site name
glued to the first paragraph, "related articles" lists of other titles, and
whole-site hard wrapping.
"""

from __future__ import annotations

import random
import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

from .edits import _EN_SYNONYMS, _ZH_SYNONYMS, Context, Page, _de_di, _pick_para, _swap_word, _typo
from .sites import Site, render

# Sentence pieces that keep their end mark: "a. ", "b。" ...
_SENT = re.compile(r".+?(?:[。！？；]+|[.!?]+(?=\s|$)|$)", flags=re.S)


@dataclass(frozen=True)
class HardContext(Context):
    """v1's context plus paragraphs of other articles that may be pasted in."""

    foreign: tuple[str, ...] = ()


def split_sentences(para: str) -> list[str]:
    """Sentences of one paragraph with their end marks and following spaces.

    >>> split_sentences("One. Two! Three")
    ['One. ', 'Two! ', 'Three']
    >>> "".join(split_sentences("甲。乙！丙")) == "甲。乙！丙"
    True
    """
    out = [m.group(0) for m in _SENT.finditer(para) if m.group(0)]
    # Spaces after an end mark belong to the sentence before them.
    merged: list[str] = []
    for s in out:
        if merged and not s.strip():
            merged[-1] += s
        elif merged and s[:1].isspace():
            stripped = s.lstrip()
            merged[-1] += s[: len(s) - len(stripped)]
            merged.append(stripped)
        else:
            merged.append(s)
    return merged


def _one_char_edit(text: str, lang: str, rng: random.Random) -> str:
    roll = rng.random()
    new: str | None = None
    if lang == "zh" and roll < 0.3:
        new = _de_di(text, rng)
    elif roll < 0.6:
        new = _swap_word(text, _ZH_SYNONYMS if lang == "zh" else _EN_SYNONYMS, rng)
    return new if new is not None else _typo(text, lang, rng)


def heavy_edits(page: Page, rng: random.Random, ctx: Context) -> None:
    """Many character edits, 15-30% of the sentences dropped, a few swapped."""
    if not page.paras:
        return
    for _ in range(rng.randint(10, 30)):
        i = _pick_para(page, rng)
        page.paras[i] = _one_char_edit(page.paras[i], page.lang, rng)
    sents = [split_sentences(p) for p in page.paras]
    spots = [(i, j) for i, ss in enumerate(sents) for j in range(len(ss)) if (i, j) != (0, 0)]
    drop = set(rng.sample(spots, k=int(len(spots) * rng.uniform(0.15, 0.3))))
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(sents))
        if len(sents[i]) >= 2:
            j = rng.randrange(len(sents[i]) - 1)
            sents[i][j], sents[i][j + 1] = sents[i][j + 1], sents[i][j]
    paras = ["".join(s for j, s in enumerate(ss) if (i, j) not in drop).strip() for i, ss in enumerate(sents)]
    page.paras = [p for p in paras if p] or page.paras[:1]


def foreign_paragraph(page: Page, rng: random.Random, ctx: Context) -> None:
    """Paste one paragraph of another article, never longer than half of this body."""
    foreign = getattr(ctx, "foreign", ())
    size = sum(len(p) for p in page.paras)
    fits = [p for p in foreign if 0 < len(p) <= size // 2]
    if fits:
        page.paras.insert(rng.randrange(len(page.paras) + 1), rng.choice(fits))


def join_paragraphs(page: Page, rng: random.Random, ctx: Context) -> None:
    """Lose paragraph breaks: the body becomes one block, or two."""
    paras = [p for p in page.paras if p.strip()]
    if len(paras) < 2:
        return
    glue = "" if page.lang == "zh" else " "
    cut = rng.randrange(1, len(paras)) if rng.random() < 0.5 else len(paras)
    page.paras = [glue.join(paras[:cut]), glue.join(paras[cut:])] if cut < len(paras) else [glue.join(paras)]


def wrap_lines(paras: list[str], lang: str, width: int, blank: bool) -> list[str]:
    """Hard-wrap every paragraph at ``width`` columns (a CJK character is two).

    >>> wrap_lines(["aaa bbb ccc"], "en", 7, False)
    ['aaa bbb', 'ccc']
    """
    out: list[str] = []
    for p in paras:
        if not p.strip():
            continue
        if lang == "zh":
            step = max(width // 2, 1)
            lines = [p[i : i + step] for i in range(0, len(p), step)]
        else:
            lines = textwrap.wrap(p, width=width, break_long_words=False, break_on_hyphens=False) or [p]
        if blank and out:
            out.append("")
        out += lines
    return out


def wrap(page: Page, rng: random.Random, ctx: Context) -> None:
    """Hard line breaks at 60-80 columns; blank lines between paragraphs half the time."""
    page.paras = wrap_lines(page.paras, page.lang, rng.randint(60, 80), rng.random() < 0.5)


# (edit, probability): drawn independently after the v1 edits, in this order.
HARD_EDIT_PROBABILITIES = (
    (heavy_edits, 0.12),
    (foreign_paragraph, 0.08),
    (join_paragraphs, 0.08),
    (wrap, 0.10),
)


def hard_edits(page: Page, rng: random.Random, ctx: Context) -> list[str]:
    """Apply the v2 edits drawn for one reprint; return their names."""
    applied = [edit for edit, p in HARD_EDIT_PROBABILITIES if rng.random() < p]
    for edit in applied:
        edit(page, rng, ctx)
    return [e.__name__ for e in applied]


# --- light revisions -----------------------------------------------------------

_ZH_UPDATE = (
    "（更新：本节内容已根据最新版本重新核对。）",
    "注意：新版本中此行为可能略有不同，请以实际环境为准。",
    "（本文于发布后做过一次修订，修正了部分措辞。）",
)
_EN_UPDATE = (
    "Update: this section has been checked against the current release.",
    "Note that newer releases may behave slightly differently here.",
    "(This page was revised after publication to correct some wording.)",
)
_NUM = re.compile(r"(?<![\d.])\d{1,4}(?![\d])")


def _bump_number(text: str, rng: random.Random) -> str | None:
    found = list(_NUM.finditer(text))
    if not found:
        return None
    m = rng.choice(found)
    return text[: m.start()] + str(int(m.group(0)) + rng.randint(1, 3)) + text[m.end() :]


def revise(page: Page, rng: random.Random) -> list[str]:
    """Update the page in place the way a maintainer does: 1-3 sentence-level changes.

    Returns the changes made. The result is the same article (same label).
    """
    out = []
    for _ in range(rng.randint(1, 3)):
        op = rng.choice(("reword", "number", "add", "drop"))
        i = _pick_para(page, rng)
        para = page.paras[i]
        if op == "number" and (new := _bump_number(para, rng)) is not None:
            page.paras[i] = new
        elif op == "add":
            note = rng.choice(_ZH_UPDATE if page.lang == "zh" else _EN_UPDATE)
            page.paras[i] = para + ("" if page.lang == "zh" else " ") + note
        elif op == "drop" and len(sents := split_sentences(para)) >= 3:
            del sents[rng.randrange(1, len(sents))]
            page.paras[i] = "".join(sents).strip()
        else:
            # A maintainer rewords with synonyms (or 的/地/得), never adds typos.
            sents = split_sentences(para)
            j = rng.randrange(len(sents)) if sents else 0
            pairs = _ZH_SYNONYMS if page.lang == "zh" else _EN_SYNONYMS
            new = _swap_word(sents[j], pairs, rng) if sents else None
            if new is None and sents and page.lang == "zh":
                new = _de_di(sents[j], rng)
            if new is None:
                note = rng.choice(_ZH_UPDATE if page.lang == "zh" else _EN_UPDATE)
                page.paras[i] = para + ("" if page.lang == "zh" else " ") + note
                op = "add"
            else:
                sents[j] = new
                page.paras[i] = "".join(sents)
                op = "reword"
        out.append(op)
    return out


# --- site habits -----------------------------------------------------------------

# Identical, word for word, on every site that carries them: real CMS plugins
# and templates ship these texts unchanged.
SHARED_BOILERPLATE = {
    "zh": (
        "本作品采用知识共享署名-相同方式共享 4.0 国际许可协议进行许可。您可以自由地共享和演绎本作品，"
        "惟须署名并以相同方式共享，不得附加任何法律或技术措施限制他人行使许可协议允许的权利。",
        "我们使用Cookie和类似技术来改善您的浏览体验、分析网站流量并提供个性化内容，"
        "继续浏览本网站即表示您同意我们按照隐私政策使用Cookie，您可以随时在浏览器设置中更改偏好。",
        "声明：本文内容由互联网用户自发贡献，该文观点仅代表作者本人。本站仅提供信息存储空间服务，不拥有所有权，"
        "不承担相关法律责任。如发现本站有涉嫌抄袭侵权或违法违规的内容，请发送邮件至举报邮箱，一经查实，本站将立刻删除。",
        "免责声明：本文仅代表作者个人观点，与本站无关。其原创性以及文中陈述文字和内容未经本站证实，"
        "对本文以及其中全部或者部分内容、文字的真实性、完整性、及时性本站不作任何保证或承诺，请读者仅作参考，并请自行核实相关内容。",
        "长按识别二维码，关注我们获取更多精彩内容。点击右上角分享给更多朋友，您的转发是对我们最大的支持！",
        "分享到：微信 微博 QQ空间 豆瓣 复制链接",
        "觉得文章有用就打赏一下文章作者　支付宝扫一扫打赏　微信扫一扫打赏",
    ),
    "en": (
        "This work is licensed under a Creative Commons Attribution-ShareAlike 4.0 International License. "
        "You are free to share and adapt this material for any purpose, even commercially, as long as you give "
        "appropriate credit and distribute your contributions under the same license as the original.",
        "We use cookies and similar technologies to personalise content and ads, to provide social media features "
        "and to analyse our traffic. We also share information about your use of our site with our social media, "
        "advertising and analytics partners who may combine it with other information that you have provided to them.",
        "The opinions expressed in this article are the author's own and do not reflect the views of this website. "
        "Information is provided for general informational purposes only and may not be accurate, complete or up "
        "to date, so please verify it independently before relying on it.",
        "Your privacy is important to us. We process personal data in accordance with the General Data Protection "
        "Regulation, and you can withdraw your consent or change your preferences at any time through the Cookie "
        "Settings link at the bottom of every page.",
        "Share this: Twitter Facebook LinkedIn Reddit Email Print",
        "Like this: Like Loading...",
        "Found this article helpful? Consider buying the author a coffee to support more free tutorials like this one.",
    ),
}
_ZH_GLUE = ("{site}讯　", "【{site}】", "{site}消息，", "本文来自{site}：")
_EN_GLUE = ("{upper} — ", "({site}) ", "{site}: ")
RELATED_HEAD = {
    "zh": ("相关文章：", "猜你喜欢", "热门推荐："),
    "en": ("Related articles", "You may also like:", "Popular now"),
}

SHARED_SITES = 0.65  # sites that carry 1-3 verbatim shared notices
GLUE_SITES = 0.3
RELATED_SITES = 0.45
WRAP_SITES = 0.1


def _chosen(n: int, share: float, rng: random.Random) -> list[bool]:
    """Exactly ``round(share * n)`` True values in a shuffled order, so every file gets the same mix."""
    flags = [True] * round(share * n) + [False] * (n - round(share * n))
    rng.shuffle(flags)
    return flags


def add_habits(sites: list[Site], rng: random.Random) -> None:
    """Draw the v2 habits of every site (in place); v1 fields are left alone.

    The number of sites with each habit is fixed (a share of the file's
    sites); which sites get them is drawn.
    """
    chrome = [s for s in sites if s.profile != "none"]
    shared = {id(s) for s, f in zip(chrome, _chosen(len(chrome), SHARED_SITES, rng)) if f}
    glue, related, wrapped = (_chosen(len(sites), share, rng) for share in (GLUE_SITES, RELATED_SITES, WRAP_SITES))
    for k, site in enumerate(sites):
        zh = site.lang == "zh"
        if id(site) in shared:
            picked = rng.sample(SHARED_BOILERPLATE[site.lang], rng.randint(1, 3))
            for text in picked:
                # Consent banners sit above the article, the rest below it.
                top = ("Cookie" in text or "cookies" in text) and rng.random() < 0.5
                (site.shared_top if top else site.shared_bottom).append(text)
        if glue[k]:
            site.glue = rng.choice(_ZH_GLUE if zh else _EN_GLUE).format(site=site.name, upper=site.name.upper())
        if related[k]:
            site.related = rng.randint(3, 6)
            site.related_head = rng.choice(RELATED_HEAD[site.lang])
        if wrapped[k]:
            site.wrap = rng.randint(60, 80)


def site_cases(site: Site) -> list[str]:
    """The hard-case tags every page of ``site`` carries."""
    out = []
    if site.shared_top or site.shared_bottom:
        out.append("shared_boilerplate")
    if site.glue:
        out.append("glued_site")
    if site.related:
        out.append("related_titles")
    if site.wrap:
        out.append("site_wrap")
    return out


def render_page(site: Site, page: Page, date: str, rng: random.Random, other_title: str, titles: Sequence[str]) -> str:
    """:func:`sites.render` with the site's v2 habits applied.

    ``titles`` are other articles' titles for the "related" list.
    """
    page = page.copy()
    if site.glue:
        first = next((i for i, p in enumerate(page.paras) if p.strip()), None)
        if first is not None:
            page.paras[first] = site.glue + page.paras[first]
    if site.wrap:
        page.paras = wrap_lines(page.paras, site.lang, site.wrap, blank=site.blank_lines)
    bottom = list(site.shared_bottom)
    if site.related and titles:
        picks = rng.sample(list(titles), k=min(site.related, len(titles)))
        bottom += [site.related_head, *picks]
    return render(site, page, date, rng, other_title, top=site.shared_top, bottom=bottom)
