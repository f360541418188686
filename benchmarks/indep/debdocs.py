"""LibreOffice help pages for ``--sources debdocs``: a fourth family no nshash rule was checked on.

LibreOffice's help (libreoffice-help-zh-cn, libreoffice-help-en-us) is templated throughout: many
pages of one module share sentences ("Choose Format - Character", the same note on a dialog in
Writer and in Calc). This module turns a help page into plain HTML that :func:`sources.html_text_sections`
cuts at its headings: only the prose paragraphs (``<p class="paragraph">``) stay; lists (steps),
tables, code, the "how to get" menu box, related topics, the page chrome and the debug footer go.
An inline switch shows its default text: the spans for one system or application (``class="MAC"``,
``"WRITER"``), hidden until the help's script picks one, are dropped.
"""

from __future__ import annotations

import glob
import os
import re

#: Blocks that are not prose: lists, tables, code, the menu box, related topics, chrome.
_BLOCKS = re.compile(r"<(ul|ol|table|pre|header|aside|footer)\b.*?</\1>", flags=re.S)
_DIV_BLOCKS = ("howtoget", "relatedtopics", "bascode", "pycode", "sqlcode", "icontable")


def _drop_elements(t: str, tag: str, drop_attrs: re.Pattern[str]) -> str:
    """``t`` without the ``tag`` elements whose opening tag matches ``drop_attrs``, nesting respected."""
    out: list[str] = []
    pos = 0
    depth = 0  # > 0 while inside a dropped element: the depth of nested ``tag`` elements in it
    for m in re.finditer(rf"<(/?){tag}\b([^>]*)>", t):
        closing = m.group(1) == "/"
        if depth:
            depth += -1 if closing else 1
            if depth == 0:
                pos = m.end()
            continue
        if not closing and drop_attrs.search(m.group(2)):
            out.append(t[pos : m.start()])
            depth = 1
    if depth:  # unbalanced: drop to the end
        return "".join(out)
    out.append(t[pos:])
    return "".join(out)


def lo_clean(t: str) -> str:
    """The prose of a LibreOffice help page as simple HTML: headings and ``<p>`` paragraphs."""
    t = re.sub(r"<head>.*?</head>", "", t, flags=re.S)
    t = re.sub(r"<(script|style|noscript)\b.*?</\1>", "", t, flags=re.S)
    t = _BLOCKS.sub(" ", t)
    div_class = re.compile(rf'class="({"|".join(_DIV_BLOCKS)})"')
    t = _drop_elements(t, "div", div_class)
    # A switch's system- or application-specific text (hidden, with a class); its default has none.
    t = _drop_elements(t, "span", re.compile(r'hidden="true"[^>]*class="[A-Z]+"'))
    # Prose paragraphs only: a <p> of another class (table cells, list items, code, links) goes.
    t = re.sub(r'<p\b(?![^>]*class="paragraph")[^>]*>.*?</p>', " ", t, flags=re.S)
    return t


def lo_pages(src: str, lang_dir: str) -> list[tuple[str, str, str]]:
    """``(path, group, prose HTML)`` of every help page of ``usr/share/libreoffice/help/<lang_dir>``.

    The group is the help module (``lo:swriter``, ``lo:scalc``, ``lo:shared``, ...): the pages of a
    module are one manual, whose siblings share sentences.
    """
    root = os.path.join(src, "usr/share/libreoffice/help", lang_dir, "text")
    pages = []
    for f in sorted(glob.glob(os.path.join(root, "**", "*.html"), recursive=True)):
        module = os.path.relpath(f, root).split(os.sep)[0]
        with open(f, encoding="utf-8", errors="replace") as fh:
            pages.append((f, "lo:" + module, lo_clean(fh.read())))
    return pages
