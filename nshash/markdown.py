"""Pages as text renderings write them: Markdown's links, images and marks, quotes, lists of URLs.

Crawlers and readers that save pages as Markdown (html2text, markdownify and
the services built on them) write every link as ``[text](url "title")``,
every image as ``![alt](url)``, emphasis as ``**``, code as `````, headings
as ``#``.  The URLs sit inside the article's sentences and make a menu a
column of them, where the page's text form and its HTML show the link's text
and no image.  :func:`strip_links` runs in :func:`nshash.text.strip_html`,
after the tags and before the entities.

The marks :data:`MARKS` go only from a page that holds a link or an image:
everywhere (as :data:`nshash.text.NOISE`) they moved decisions on pages of
code (``struct sk_buff *skb``, a shell's ``# comment``) without a gain on
Markdown.  ``_`` (emphasis too) stays: it is also in names (``kicad_pcb``).

Quoted lines, Markdown's blockquotes and a mail's quoted text (``> `` and
``>> `` at the start of each line), lose their quote marks when two or more
follow one another (:func:`strip_quotes`): the marks stood between a hard-wrapped
line and the next, which were then never joined (English articles quoted
and wrapped at 72 columns: 193 of 300 found their source, 300 without the
marks).  A lone ``>> Read more`` line keeps its marks.

A text browser's dump (``lynx -dump``) ends in a numbered list of every
link's URL, one a line, and a mail or a newsletter lists its links so: lines
that are a URL and nothing else (:func:`strip_url_lines`) are dropped.  They
were a page's longest "sentences" and the same on every page of a site (the
real pages with raw HTML, dumped by lynx, with their full pages: precision
0.816; without those lines 0.968).

Measured on the real pages with raw HTML, each also as html2text writes it
(``benchmarks/run_markdown.py``; figures in the CHANGELOG).

The C accelerator does the same scans (``strip_links``, ``strip_quotes`` and
``strip_url_lines`` in ``nshash/_markup.h``), tested against these expressions.
"""

from __future__ import annotations

import re
from typing import Final

# A link's target: characters other than spaces and parentheses, and (balanced) groups of them, as a
# Wikipedia URL has; then an optional "title".
_TARGET: Final = r'\((?:[^()\s]|\([^()\s]*\))*(?:\s+"[^"\n]*")?\)'
# A link's text may span lines: html2text wraps it with the paragraph (its default, 78 columns).
IMAGE_RE: Final = re.compile(rf"!\[[^\[\]]*\]{_TARGET}")
LINK_RE: Final = re.compile(rf"\[([^\[\]]*)\]{_TARGET}")
#: Emphasis, code, heading and strike-through marks, deleted from a page that holds a link or an image.
MARKS: Final = "*`#~"


def strip_links(text: str) -> str:
    """``text`` with Markdown's images removed, its links replaced by their text and, if it had one, its marks gone.

    Images go first: a linked logo, ``[![logo](a.png)](/)``, is then an empty link.

    >>> strip_links('See [the **manual**](https://example.com/a_(b) "Manual") and ![a logo](logo.png).')
    'See the manual and .'
    >>> strip_links("[![SlashGear](logo.png)](/) [1] [x] (y)")
    ' [1] [x] (y)'
    >>> strip_links("struct sk_buff *skb; # not Markdown")
    'struct sk_buff *skb; # not Markdown'
    """
    if "](" not in text:
        return text
    text, images = IMAGE_RE.subn("", text)
    text, links = LINK_RE.subn(r"\1", text)
    if images or links:
        for mark in MARKS:
            if mark in text:
                text = text.replace(mark, "")
    return text


#: The quote marks at the start of a line: spaces, then one or more ``>`` each followed by spaces.
QUOTE_RE: Final = re.compile(r"[ \t]*(?:>[ \t]*)+")
_QUOTED_LINE_RE: Final = re.compile(r"^[ \t]*>", re.MULTILINE)


def strip_quotes(text: str) -> str:
    r"""``text`` without the quote marks of lines that follow or precede another quoted line.

    >>> strip_quotes("Intro\n> quoted text\n>> wrapped on\n>\n> more\n>> Read more")
    'Intro\nquoted text\nwrapped on\n\nmore\nRead more'
    >>> strip_quotes(">> Read more\nHome > News")
    '>> Read more\nHome > News'
    """
    if _QUOTED_LINE_RE.search(text) is None:
        return text
    lines = text.split("\n")
    marks = [match.end() if (match := QUOTE_RE.match(line)) else 0 for line in lines]
    last = len(lines) - 1
    for i, mark in enumerate(marks):
        if mark and ((i > 0 and marks[i - 1]) or (i < last and marks[i + 1])):
            lines[i] = lines[i][mark:]
    return "\n".join(lines)


#: A line that is a URL and nothing else (a scheme's ``://``, ``mailto:`` or ``javascript:``), numbered or not.
URL_LINE_RE: Final = re.compile(
    r"[ \t]*(?:[0-9]+\.[ \t]+)?(?:[a-zA-Z][a-zA-Z0-9+.-]*://|mailto:|javascript:)[^\s]*[ \t]*"
)
#: Such lines go when at least this many follow one another: a list of links.  One URL on a line of its own is
#: often the page's own (its source, its address) and its other forms have it too: dropping every such line
#: cost the real pages 0.001 of recall (all forms) and real chrome 0.001.
URL_RUN: Final = 3


def strip_url_lines(text: str) -> str:
    r"""``text`` with its runs of :data:`URL_RUN` or more lines that are a URL and nothing else emptied.

    >>> strip_url_lines("Links\n   1. https://a.b/c\n   2. https://a.b/d\n   3. mailto:x@y.z\nSource:\nhttps://a.b/c")
    'Links\n\n\n\nSource:\nhttps://a.b/c'
    """
    if "://" not in text and "mailto:" not in text and "javascript:" not in text:
        return text
    lines = text.split("\n")
    url = [URL_LINE_RE.fullmatch(line) is not None for line in lines]
    start = 0
    while start < len(lines):
        end = start
        while end < len(lines) and url[end]:
            end += 1
        if end - start >= URL_RUN:
            lines[start:end] = [""] * (end - start)
        start = end + 1
    return "\n".join(lines)
