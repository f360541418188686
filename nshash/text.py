"""Sentence splitting and normalisation: pure functions, no state.

Speed matters here more than anywhere: splitting is the floor of ``get_similar``'s cost.  Every step is a
C-level ``str`` method; a character is replaced only after a cheap ``in`` scan finds it, which measured 3x
faster than one ``re.sub`` over a character class and 10x faster than ``str.translate`` on Chinese text
(``unicodedata.normalize('NFKC')`` costs ~50 us per 1,000 Chinese characters, more than all the rest).
"""

from __future__ import annotations

import html
import re
from functools import lru_cache
from typing import Final

from nshash.errors import DocumentDecodeError, DocumentTypeError
from nshash.escaped import STRIP_ROUNDS, escaped_markup, strip_cdata
from nshash.markdown import strip_links, strip_quotes, strip_url_lines

#: Names of the splitting schemes.  The name is persisted with a store, so a
#: scheme's behaviour never changes once released: add a new name instead.
SPLITS: Final = ("default", "design", "original")

# 'design': the 2019 design text (。！？ and newlines).
_DESIGN_DELIMS: Final = ("\r", "。", "！", "？")
# 'default' adds the ASCII forms and the English sentence end; measured in
# benchmarks/results (ablation "split").  And the full stops of scripts whose
# sentences end in their own mark, not in "." (a Hindi or Urdu paragraph was
# one "sentence", keyed whole): the danda and double danda (Devanagari,
# Bengali), the Arabic question mark and semicolon, the Urdu full stop, the
# Armenian, Ethiopic, Myanmar and Khmer full stops.
_SCRIPT_ENDS: Final = ("।", "॥", "؟", "؛", "۔", "։", "።", "။", "។")
_DEFAULT_DELIMS: Final = (*_DESIGN_DELIMS, "!", "?", "；", ";", ". ", "｡", "．", *_SCRIPT_ENDS)
# 'original': nshash 0.7 split on these and kept pieces longer than 30 chars.
_ORIGINAL_DELIMS: Final = ("：", ":", "；", "？", "。", "！", "】")
ORIGINAL_MIN_LEN: Final = 31

_DELIMS: Final = {"default": _DEFAULT_DELIMS, "design": _DESIGN_DELIMS, "original": _ORIGINAL_DELIMS}

# Characters that reprints add, drop or swap for their other-width twin
# without changing the article: whitespace, the punctuation that has a
# full-width form, and the invisible ones (a site's soft hyphens, joiners,
# direction marks).  Deleting them makes a fingerprint blind to those edits.
# Each character costs a scan of the document, so the list stays short
# (rarer marks such as 《》 or — are kept: reprints seldom touch them).
NOISE: Final = " \t\u3000\xa0\u200b\ufeff\xad\u200c\u200d\u200e\u200f\u2060,，、;；:：\"'“”‘’()（）."

#: CJK scripts (ideographs, kana, hangul, their punctuation and full-width forms).
CJK_RANGES: Final = ((0x2E80, 0x9FFF), (0xAC00, 0xD7AF), (0xF900, 0xFAFF), (0xFF00, 0xFFEF), (0x20000, 0x3FFFF))
_CJK_CLASS: Final = "".join(f"{chr(low)}-{chr(high)}" for low, high in CJK_RANGES)
_CJK_RE: Final = re.compile(f"[{_CJK_CLASS}]")


@lru_cache(maxsize=8)  # verify.cjk_page asks it of a page once for each candidate it verifies
def cjk_share(text: str) -> float:
    """The share of ``text``'s characters that are CJK (:data:`CJK_RANGES`); 0.0 for an empty text."""
    return (len(text) - len(_CJK_RE.sub("", text))) / len(text) if text else 0.0


# A '.' right after CJK text ends a sentence (reprints swap '。' for '.').
def _weight(line: str) -> int:
    """Length with CJK characters counted twice (they carry about twice the information)."""
    if line.isascii():
        return len(line)
    return 2 * len(line) - len(_CJK_RE.sub("", line))  # no list of a long line's characters


_CJK_DOT_RE: Final = re.compile(f"(?<=[{_CJK_CLASS}])\\.")

_BLOCK_TAGS: Final = (
    "p|br|div|li|ul|ol|tr|td|th|table|h[1-6]|section|article|header|footer|nav|blockquote|pre|hr|dd|dt|dl|title"
)
#: Elements whose content is never visible text (code, styles, embedded
#: documents): their insides would otherwise be a page's longest "sentences".
HIDDEN_TAGS: Final = ("script", "style", "noscript", "template", "svg", "iframe")
_HIDDEN_RE: Final = re.compile(
    rf"<!--.*?(?:-->|$)|<\s*({'|'.join(HIDDEN_TAGS)})(?![a-zA-Z0-9])[^>]*>.*?(?:<\s*/\s*\1\s*>|$)",
    re.IGNORECASE | re.DOTALL,
)
# Where a _HIDDEN_RE match may start: the regex is tried only there (see _strip_hidden).
_HIDDEN_START_RE: Final = re.compile(rf"<!--|<\s*({'|'.join(HIDDEN_TAGS)})(?![a-zA-Z0-9])", re.IGNORECASE)
# Block-level tags end a line in the rendered page; inline ones do not (two plain substitutions: a Python
# callback per tag measured 3x slower).  Up to 5,000 characters of attributes (0.7% of the real pages' tags
# are over 500, 0.01% over 5,000; a bound still, as text may hold a "<" no tag opens): at 500, raw HTML ->
# full page recall on the real pages was 0.91, at 5,000 0.99 (all forms F1 0.960 -> 0.974); the 95 synthetic
# files: recall -0.05 points on one.  Tried: a tag only where a browser sees one ("<" then a letter at
# once): the same on the real pages, but copies whose wrapping broke a tag ("<\n/p>") lost recall on 9 zh files.
_BLOCK_TAG_RE: Final = re.compile(rf"<\s*/?\s*(?:{_BLOCK_TAGS})(?![a-zA-Z0-9])[^<>]{{0,5000}}>", re.IGNORECASE)
_TAG_RE: Final = re.compile(r"<\s*/?\s*[a-zA-Z][^<>]{0,5000}>")
# The payload of a base64 data: URI (an inline image, a placeholder, a font) is never text; left out before
# tags are stripped (a tag holding one was too long to be a tag: sites' logos made raw HTML pages of one site
# "contain" each other; real pages, all forms: precision 0.987 -> 0.992, raw HTML -> full page recall 0.89 -> 0.91).
_BASE64_RE: Final = re.compile(r"base64,[A-Za-z0-9+/=]{64,}")
# The entities scraped text carries most, replaced without html.unescape's
# per-entity Python callback; anything rarer still goes through it.
_COMMON_ENTITIES: Final = (("&nbsp;", " "), ("&lt;", "<"), ("&gt;", ">"), ("&quot;", '"'), ("&#39;", "'"))
_LINE_RE: Final = re.compile(r"[^\n]+")
_ASCII_UPPER: Final = re.compile("[A-Z]")
_ENTITY_RE: Final = re.compile(r"&(?:#[0-9]+|#[xX][0-9a-fA-F]+|[a-zA-Z][a-zA-Z0-9]*);?")


def strip_html(text: str) -> str:
    """Remove HTML tags and decode entities left in scraped text; Markdown's links and quotes too.

    The contents of :data:`HIDDEN_TAGS` elements and comments go, and the payloads of base64 ``data:`` URIs;
    CDATA markers go; a page holding escaped markup is stripped again once unescaped (:mod:`nshash.escaped`).

    >>> strip_html("<p>A&amp;B</p><b>C</b>&nbsp;&#169;<script>var x = 1;</script>")
    '\\nA&B\\nC ©\\n'
    """
    for _ in range(STRIP_ROUNDS):
        again = escaped_markup(text)
        if "<" in text:
            text = strip_cdata(text)
            if "base64," in text:
                text = _BASE64_RE.sub("base64,", text)
            text = _TAG_RE.sub("", _BLOCK_TAG_RE.sub("\n", _strip_hidden(text)))
        text = strip_url_lines(strip_quotes(strip_links(text)))
        if "&" in text:
            for entity, char in _COMMON_ENTITIES:
                if entity in text:
                    text = text.replace(entity, char)
            if "&" in text and _ENTITY_RE.search(text):
                text = html.unescape(text)
        if not again:
            break
    return text


def _strip_hidden(text: str) -> str:
    """``_HIDDEN_RE.sub("\\n", text)``, in linear time.

    The regex alone scans to the end of the page from every ``<script`` that
    no ``>`` follows, and fails: quadratic on a page of them.  Here such an
    opening is passed over at once (nothing after the last ``>`` can open a
    hidden element), and the regex runs only where it matches.
    """
    last_gt = text.rfind(">")
    out: list[str] = []
    copied = at = 0
    while (start := _HIDDEN_START_RE.search(text, at)) is not None:
        match = None
        if start.group(1) is None or start.end() <= last_gt:
            match = _HIDDEN_RE.match(text, start.start())
        if match is None:  # an element's opening that no ">" follows: no match starts here
            at = start.start() + 1
            continue
        out += (text[copied : start.start()], "\n")
        copied = at = match.end()
    if not out:
        return text
    out.append(text[copied:])
    return "".join(out)


def split_sentences(
    text: str, split: str = "default", normalize: bool = True, markup: bool = True, keep_empty: bool = True
) -> list[str]:
    """Split ``text`` into sentences, normalised for hashing when ``normalize``.

    With ``keep_empty=False`` empty pieces are left out.  Normalisation
    removes HTML remnants (unless ``markup=False``: the caller stripped them
    already), whitespace and width-variant
    punctuation (so ``，`` vs ``,`` does not matter).  Empty pieces are kept
    (callers filter by length anyway); letter case is kept (see
    :func:`longest_sentences`).

    >>> split_sentences("Hello, World! 你好，世界。")
    ['HelloWorld', '你好世界', '']
    """
    text = delimit(text, split, normalize, markup)
    if keep_empty:
        return text.split("\n")
    # No list of empty strings for a page of newlines: memory stays a small multiple of the text.
    return _LINE_RE.findall(text)


def delimit(text: str, split: str = "default", normalize: bool = True, markup: bool = True) -> str:
    """``text`` with every sentence end made a newline (and normalised): its lines are :func:`split_sentences`.

    Callers that only walk the pieces read them off this one string, not a
    list of millions of tiny strings.

    >>> delimit("Hello, World! 你好，世界。")
    'HelloWorld\\n你好世界\\n'
    """
    if normalize and markup:
        text = strip_html(text)
    if split == "default" and "." in text and not text.isascii():
        text = _CJK_DOT_RE.sub("\n", text)
    for delim in _DELIMS[split]:
        if delim in text:
            text = text.replace(delim, "\n")
    if normalize:
        text = remove_noise(text)
    return text


def normalize_line(line: str) -> str:
    """A line as sentences are normalised: noise characters removed, ASCII lower-cased.

    >>> normalize_line("Hello, World!")
    'helloworld!'
    """
    return ascii_lower(remove_noise(line))


def remove_noise(text: str) -> str:
    """Delete the :data:`NOISE` characters (a cheap ``in`` scan before each replace)."""
    for char in NOISE:
        if char in text:
            text = text.replace(char, "")
    return text


def longest_sentences(text: str, k: int, min_len: int, split: str = "default", normalize: bool = True) -> list[str]:
    """The ``k`` longest distinct sentences of at least ``min_len`` characters, longest first.

    Ties keep document order, so the choice is deterministic.  With
    ``normalize`` the chosen sentences have their ASCII letters lower-cased
    (cheaper on a few sentences than on the whole document).

    >>> longest_sentences("aa。bbbb。ccc。bbbb。D", k=2, min_len=2)
    ['bbbb', 'ccc']
    """
    return ranked_sentences(text, k, min_len, split, normalize)[0]


def ranked_sentences(
    text: str, k: int, min_len: int, split: str = "default", normalize: bool = True
) -> tuple[list[str], list[int]]:
    """:func:`longest_sentences` and, for each, its index among the document's pieces.

    The positions tell where a sentence sits in the page: site headers and
    footers sit at its edges.

    >>> ranked_sentences("aa。bbbb。ccc。bbbb。D", k=2, min_len=2)
    (['bbbb', 'ccc'], [1, 2])
    """
    pieces = split_sentences(text, split, normalize)
    lengths = list(map(len, pieces))
    chosen: list[str] = []
    positions: list[int] = []
    # sorted() is stable: equal lengths keep document order.
    for index in sorted(range(len(pieces)), key=lengths.__getitem__, reverse=True):
        if lengths[index] < min_len:
            break
        piece = ascii_lower(pieces[index]) if normalize else pieces[index]
        # A repeated line is one vote, not two.
        if piece not in chosen:
            chosen.append(piece)
            positions.append(index)
            if len(chosen) == k:
                break
    return chosen, positions


def whole_text_key(text: str, split: str = "default", normalize: bool = True) -> str:
    """The normalised text of a document with no qualifying sentence ('' if nothing is left)."""
    whole = "".join(split_sentences(text, split, normalize))
    return ascii_lower(whole) if normalize else whole


def ascii_lower(text: str) -> str:
    """Lower-case ASCII letters only: the same on every platform and in the C accelerator.

    >>> ascii_lower("ÄBC straße")
    'Äbc straße'
    """
    if text.isascii():
        return text.lower()
    if not _ASCII_UPPER.search(text):
        return text  # nothing to lower (most CJK text): no copies of a large page
    return text.encode("utf-8", "surrogatepass").lower().decode("utf-8", "surrogatepass")


def coerce_document(doc: object, errors: str = "strict") -> str:
    """Return ``doc`` as ``str``: ``str`` as is, ``bytes`` decoded as UTF-8.

    Raises:
        DocumentTypeError: ``doc`` is neither ``str`` nor ``bytes`` (also a ``TypeError``).
        DocumentDecodeError: undecodable bytes with ``errors='strict'`` (also a ``ValueError``).
    """
    if isinstance(doc, str):
        return doc
    if isinstance(doc, (bytes, bytearray, memoryview)):
        try:
            return bytes(doc).decode("utf-8", errors)
        except UnicodeDecodeError as exc:
            raise DocumentDecodeError(
                f"document is not valid UTF-8 at byte {exc.start} ({exc.reason}); "
                "decode it yourself or pass errors='replace'"
            ) from exc
    raise DocumentTypeError(f"a document must be str or bytes, not {type(doc).__name__}")
