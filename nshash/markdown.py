"""Markdown as a page's text shows it: a link's text stays, an image goes, and so do the marks.

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

Measured on the real pages with raw HTML, each also as html2text writes it
(``benchmarks/run_markdown.py``; figures in the CHANGELOG).

The C accelerator does the same scan (``strip_links`` in ``nshash/_markup.h``),
tested against these expressions.
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
