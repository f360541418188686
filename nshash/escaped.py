"""Markup a page carries escaped or in CDATA sections (a feed's items, a page that shows HTML as text), and a
page stored as a JSON string with every character past ASCII escaped (``\\u4e2d``).

An RSS or Atom item holds its article's HTML escaped (``&lt;p&gt;``) or in a
CDATA section (``<![CDATA[<p>...]]>``); a crawler that stores the item as it
came keeps that markup, and its tags, once unescaped, were left in the text:
the item never found its article.  :func:`~nshash.text.strip_html` therefore
drops CDATA markers with the tags, and strips a page again once its entities
are unescaped when it held an escaped tag (:func:`escaped_markup`;
:data:`STRIP_ROUNDS` rounds at most), which is what it does to the same
page's visible text (whose ``<p>`` is a tag to it as well).  A JSON line read
as text is read as the JSON it is (:func:`unescape_json`).  The C accelerator
does the same (``strip_cdata``, ``escaped_markup`` and ``json_escaped`` in
``nshash/_markup.h``; it hands a JSON line to Python), tested against this.
"""

from __future__ import annotations

import json
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


#: A JSON escape: ``\uXXXX``, or one of the two-character escapes.
_JSON_ESCAPE_RE: Final = re.compile(r"\\u([0-9a-fA-F]{4})|\\([\"\\/bfnrt])")
_JSON_CHARS: Final = {"n": "\n", "r": "\r", "t": "\t", "b": "\b", "f": "\f", '"': '"', "\\": "\\", "/": "/"}
#: A text is a JSON string's escaped form when it is ASCII and holds at least this many ``\uXXXX`` escapes
#: (``json.dumps`` writes every character past ASCII so, by default) ...
JSON_MIN_ESCAPES: Final = 8
#: ... making up at least this share of its characters (a page of code that shows a few escapes is not);
#: or this many escaped line breaks (``\n``) and not one line break (an English page: few escapes, but its
#: lines are one line of text then).
JSON_SHARE: Final = 0.3
_SURROGATE_RE: Final = re.compile("[\ud800-\udfff]")
_SLICE: Final = 1 << 10


def json_escaped(text: str) -> bool:
    r"""Whether ``text`` is a JSON string's escaped form (:data:`JSON_MIN_ESCAPES`, :data:`JSON_SHARE`).

    Escapes are read left to right as JSON reads them (``\\u`` is an escaped backslash, then a ``u``).

    >>> json_escaped('{"text": "\\u5317\\u4eac\\u65f6\\u95f4\\u6628\\u5929\\u665a\\u4e0a"}')
    True
    """
    if not text.isascii() or "\\" not in text:
        return False
    escapes = breaks = 0
    for match in _JSON_ESCAPE_RE.finditer(text):
        escapes += match[1] is not None
        breaks += match[2] == "n"
    dense = escapes >= JSON_MIN_ESCAPES and 6 * escapes >= JSON_SHARE * len(text)
    return dense or (breaks >= JSON_MIN_ESCAPES and "\n" not in text)


def unescape_json(text: str) -> str:
    r"""``text`` with its JSON escapes decoded when it is a JSON string's escaped form (:func:`json_escaped`).

    A crawler that writes its pages with ``json.dumps`` and a reader that takes the lines as text give
    ``\u5317\u4eac`` for ``北京``: no CJK, no sentence end, no sentence of the page.  A text that is a JSON
    document becomes its strings, a line each (``{"url": ..., "text": ...}``: the URL, then the page), any
    other has its escapes decoded where they stand.  Surrogate pairs (``\ud83d\ude00``) become their
    character, a lone one U+FFFD.  The C hands such a text to this.

    >>> unescape_json('"\\u5317\\u4eac\\u65f6\\u95f4\\u6628\\u5929\\u665a\\u4e0a\\u3002\\n\\"OK\\""')
    '北京时间昨天晚上。\n"OK"'
    """
    if not json_escaped(text):
        return text
    strings = _json_strings(text)
    text = "\n".join(strings) if strings else "".join(map(_unescaped, _escape_slices(text)))
    if _SURROGATE_RE.search(text):
        text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def _json_strings(text: str) -> list[str]:
    """The strings of ``text`` if it is a JSON document (an object's values, not its keys), in order; else ``[]``."""
    try:
        value = json.loads(text)
    except ValueError:
        return []
    found: list[str] = []
    stack = [value]
    while stack:  # depth first, in order, without recursion (a document may nest deeply)
        item = stack.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, (dict, list)):
            stack.extend(reversed(list(item.values()) if isinstance(item, dict) else item))
    return found


def _unescaped(part: str) -> str:
    return _JSON_ESCAPE_RE.sub(lambda m: chr(int(m[1], 16)) if m[1] else _JSON_CHARS[m[2]], part)


def _escape_slices(text: str) -> list[str]:
    """``text`` in slices of about :data:`_SLICE` characters, each cut where an escape begins.

    ``re.sub`` keeps a piece for each escape it replaces: on a whole page of them, 14 bytes a character
    (``benchmarks/odd_input.py``'s ``json-escapes``).  A backslash begins an escape when an even number
    of backslashes stand before it since the last cut (``\\\\u`` is an escaped backslash, then a ``u``).
    """
    slices, start = [], 0
    while start < len(text):
        cut = text.find("\\", start + _SLICE) if start + _SLICE < len(text) else -1
        while cut != -1:
            run = cut
            while run > start and text[run - 1] == "\\":
                run -= 1
            if (cut - run) % 2 == 0:
                break
            cut = text.find("\\", cut + 1)
        end = len(text) if cut == -1 else cut
        slices.append(text[start:end])
        start = end
    return slices
