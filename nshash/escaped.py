"""Markup a page carries escaped or in CDATA sections: a feed's items, a page that shows HTML as text.

An RSS or Atom item holds its article's HTML escaped (``&lt;p&gt;``) or in a
CDATA section (``<![CDATA[<p>...]]>``); a crawler that stores the item as it
came keeps that markup, and its tags, once unescaped, were left in the text:
the item never found its article.  :func:`~nshash.text.strip_html` therefore
drops CDATA markers with the tags, and strips a page again once its entities
are unescaped when it held an escaped tag (:func:`escaped_markup`;
:data:`STRIP_ROUNDS` rounds at most), which is what it does to the same
page's visible text (whose ``<p>`` is a tag to it as well).  The C accelerator does the same (``strip_cdata`` and
``escaped_markup`` in ``nshash/_markup.h``), tested against this.
"""

from __future__ import annotations

import re
from typing import Final

#: The markers of a CDATA section; its contents stay (markup, if any, is stripped as markup).
CDATA_OPEN: Final = "<![CDATA["
CDATA_CLOSE: Final = "]]>"
#: An escaped tag: ``&lt;`` before a letter, ``/`` and a letter (a closing tag), or ``!`` (a comment, a CDATA).
_ESCAPED_TAG_RE: Final = re.compile(r"&lt;(?:/?[A-Za-z]|!)")
#: A page is stripped again while the text a round began with held an escaped tag, this many rounds at most:
#: an item's text escapes its own ``<`` once more (``&amp;lt;file&amp;gt;``), which its plain text, stripped
#: once, had as a tag.
STRIP_ROUNDS: Final = 3


def strip_cdata(text: str) -> str:
    """``text`` without CDATA markers: every ``<![CDATA[``, and then every ``]]>`` if there was one.

    >>> strip_cdata("<description><![CDATA[<p>A story.</p>]]></description>")
    '<description><p>A story.</p></description>'
    """
    if CDATA_OPEN not in text:
        return text
    return text.replace(CDATA_OPEN, "").replace(CDATA_CLOSE, "")


def escaped_markup(text: str) -> bool:
    """Whether ``text`` holds an escaped tag (``&lt;p&gt;``, ``&lt;/a&gt;``, ``&lt;!--``): it is stripped again.

    >>> escaped_markup("<description>&lt;p&gt;A story.&lt;/p&gt;</description>"), escaped_markup("a &lt; b")
    (True, False)
    """
    return "&lt;" in text and _ESCAPED_TAG_RE.search(text) is not None
