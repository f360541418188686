"""Articles from manual pages (``--sources manpages``): a third family no nshash rule was checked on.

Man pages are templated siblings at their purest: the pages of one section share whole sentences
("On success, zero is returned. On error, -1 is returned, and errno is set to indicate the error.",
"显示此帮助信息并退出"), and many pages are a few options apart. Chinese: the manpages-zh
translations; English: the Linux man-pages project (manpages, manpages-dev). A page is one article
(split when long, as every source's); its synopsis, unfilled blocks (code) and tables are left out.
"""

from __future__ import annotations

import glob
import gzip
import os
import re
from typing import Any

Article = dict[str, Any]

# Requests that end a paragraph; every other request (and a comment) is dropped with its line.
_BREAKS = {"SH", "SS", "PP", "P", "LP", "TP", "IP", "HP", "sp", "br", "RS", "RE", "in", "TQ", "SY", "YS"}
# Font requests whose arguments are text (alternating fonts: the arguments are joined without a space).
_FONTS = {"B", "I", "SM", "SB"}
_ALTERNATING = {"BR", "RB", "BI", "IB", "IR", "RI"}
_SPECIAL = {"em": "—", "en": "–", "aq": "'", "dq": '"', "lq": "“", "rq": "”", "oq": "‘", "cq": "’", "bu": "·"}
_SPECIAL_RE = re.compile(r"\\\((\w\w)|\\\[(\w+)\]")
_ESCAPE_RE = re.compile(r"\\f(\[[^]]*\]|\(..|.)|\\\*(\[[^]]*\]|\(..|.)|\\[,/&:%|^]|\\s[-+]?\d")
# The sections whose text is no article's: the NAME line (the title) and the synopsis.
_NAME = ("NAME", "名称", "名字")
_SYNOPSIS = ("SYNOPSIS", "概述", "总览", "大纲")
_CJK_SPACE_RE = re.compile(r"(?<=[\u3000-\u9fff\uff00-\uffef]) (?=[\u3000-\u9fff\uff00-\uffef])")


def _args(line: str) -> list[str]:
    """A request's arguments, quotes honoured."""
    return [a[1:-1] if a.startswith('"') else a for a in re.findall(r'"[^"]*"?|\S+', line)]


def _inline(s: str) -> str:
    s = _SPECIAL_RE.sub(lambda m: _SPECIAL.get(m.group(1) or m.group(2), ""), s)
    s = _ESCAPE_RE.sub("", s)
    return s.replace("\\-", "-").replace("\\e", "\\").replace("\\ ", " ").replace("\\~", " ")


def man_paras(text: str, lang: str) -> tuple[str, list[str]]:
    """``(title, paragraphs)`` of a man page's roff source: the NAME line, and the filled text blocks."""
    paras: list[str] = []
    cur: list[str] = []
    title = ""
    section = ""
    nofill = False
    in_macro = False

    def flush() -> None:
        nonlocal title
        if cur:
            para = re.sub(r"\s+", " ", " ".join(cur)).strip()
            if lang == "zh":
                para = _CJK_SPACE_RE.sub("", para)
            if para and section not in _NAME + _SYNOPSIS:
                paras.append(para)
            elif para and section in _NAME and not title:
                title = para
            cur.clear()

    for raw in text.splitlines():
        if in_macro or raw.startswith((".de ", ".de1 ", ".am ", ".ig")):  # a macro's definition is no text
            in_macro = raw.strip() != ".." if in_macro else True
            continue
        if raw.startswith(('.\\"', "'\\\"")) or raw.strip() in (".", ""):  # comments, empty requests
            if raw.strip() == "":
                flush()
            continue
        if raw.startswith((".", "'")):
            name, _, rest = raw[1:].strip().partition(" ")
            if name in ("nf", "EX", "TS"):  # code and tables (tbl): no prose
                flush()
                nofill = True
            elif name in ("fi", "EE", "TE"):
                nofill = False
            elif name in ("SH", "SS"):
                flush()
                section = _inline(" ".join(_args(rest))).strip().upper() if name == "SH" else section
            elif name in _BREAKS:
                flush()
            elif not nofill and name in _FONTS:
                cur.append(_inline(" ".join(_args(rest))))
            elif not nofill and name in _ALTERNATING:
                cur.append(_inline("".join(_args(rest))))
            continue
        if not nofill:
            cur.append(_inline(raw.rstrip("\\")))
    flush()
    return title, paras


def man_articles(src: str, pattern: str, lang: str, group_prefix: str) -> list[Article]:
    """One article per man page under ``src`` matching ``pattern``; a page that only points at another is none."""
    arts = []
    for path in sorted(glob.glob(os.path.join(src, pattern))):
        with gzip.open(path, "rt", encoding="utf-8", errors="replace") as f:
            text = f.read()
        if text.lstrip().startswith(".so "):
            continue
        title, paras = man_paras(text, lang)
        section = os.path.basename(os.path.dirname(path))  # man1, man3, ...: one manual each
        name = os.path.basename(path).removesuffix(".gz")
        arts.append(
            {"title": title or name, "paras": paras, "group": group_prefix + section, "src": os.path.relpath(path, src)}
        )
    return arts
