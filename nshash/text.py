"""Sentence splitting and normalisation: pure functions, no state.

Speed matters here more than anywhere: splitting is the floor of ``get_similar``'s cost.  Every step is a
C-level ``str`` method; a character is replaced only after a cheap ``in`` scan finds it, which measured 3x
faster than one ``re.sub`` over a character class and 10x faster than ``str.translate`` on Chinese text
(``unicodedata.normalize('NFKC')`` costs ~50 us per 1,000 Chinese characters, more than all the rest).
"""

from __future__ import annotations

import html
import re
from collections import deque
from collections.abc import Iterator
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
# benchmarks/results (ablation "split").
_DEFAULT_DELIMS: Final = (*_DESIGN_DELIMS, "!", "?", "；", ";", ". ", "｡", "．")
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


# -- page chrome and line wrapping -----------------------------------------------------
#: Pages with fewer non-empty lines than this are left as they are: an article
#: text has few lines, a whole page (menus, footers, link lists) has many.
CHROME_MIN_LINES: Final = 40
#: A line shorter than this (CJK characters count twice) is a menu item, a
#: button or a caption on a whole page.
CHROME_SHORT: Final = 20
#: A line cut into this many segments by separators is a menu or a breadcrumb.
CHROME_SEGMENTS: Final = 4
#: A run of this many lines without a sentence end is a link list.
CHROME_RUN: Final = 3
#: A line at least this long (weighted) that ends without a sentence end
#: continues on the next line (hard wrapping).
WRAP_MIN: Final = 40
#: ... or this long, without CJK, before a lower-case line: English wrapped
#: at 40-50 columns, whose lines a "link list" run dropped (a real article
#: kept 852 of 3,156 characters).  Independent en F1 up on 4 of 4 seeds, zh
#: and real pages unchanged (CHANGELOG 2.0.0).  Lines with CJK stay at
#: ``WRAP_MIN``: a Chinese title ending in a Latin word joined a paragraph.
WRAP_LOWER: Final = 30
#: What is kept must be at least this share of the page (weighted), or the page is kept whole.
CHROME_KEEP: Final = 0.2
#: A line holding this many sentence ends inside (paragraphs joined into one line) is prose,
#: never a link title: it closes a run as a sentence end does.
CHROME_PROSE: Final = 3
#: A page's site signature (:attr:`nshash.fingerprint.Features.site_keys`) is
#: made of the chrome lines dropped above its first kept line and below its
#: last: its menus, its header and footer links.  At most this many lines are
#: read at each edge: a page of a million menu lines keeps a few.
SITE_EDGE_LINES: Final = 64
_INNER_END_RE: Final = re.compile(r"[.!?](?=\s)|[。！？]")

_SEPARATOR_RE: Final = re.compile(r"\s[|·•»›>/\\-]\s|[|｜·•»›]")
# Closing brackets are not sentence ends: link titles end with "(2)".
_SENTENCE_ENDS: Final = frozenset(".!?。！？…\"”’'」』;；:：")
#: ... unless right after one: "(Contributed by A. Writer in bpo-42308.)" ends its
#: sentence, and a page of such paragraphs is not a link list.
_CLOSERS: Final = frozenset(")]）】")


def _ends_sentence(line: str) -> bool:
    """Whether a (non-empty) line ends a sentence: its last character ends one, or closes a bracket right after one."""
    last = line[-1]
    return last in _SENTENCE_ENDS or (last in _CLOSERS and len(line) > 1 and line[-2] in _SENTENCE_ENDS)


def _weight(line: str) -> int:
    """Length with CJK characters counted twice (they carry about twice the information)."""
    if line.isascii():
        return len(line)
    return 2 * len(line) - len(_CJK_RE.sub("", line))  # no list of a long line's characters


def _continues(line: str, weight: int, separators: int, following: str, following_separators: int) -> bool:
    """Whether ``line`` (of that weight and separator count) was wrapped and its sentence goes on in ``following``."""
    if _ends_sentence(line) or weight < WRAP_LOWER or separators >= 2:
        return False  # a sentence's end, a short line, or a menu
    if following_separators >= 2:
        return False  # a menu follows a title
    first = following[0]
    if weight < WRAP_MIN:  # a short line joins only as text without CJK (see WRAP_LOWER)
        return first.islower() and weight == len(line)
    return first.islower() or first.isdigit() or bool(_CJK_RE.match(first) and _CJK_RE.match(line[-1]))


def _separators(line: str, pos: int, count: int) -> tuple[int, int, int]:
    """``len(_SEPARATOR_RE.findall(line))``, scanning on from ``pos`` where ``count`` were found.

    Returns the count and where the scan stood two characters before the end
    (and the count there): text joined to the line can change matches only
    from there on, so a line joined again is scanned on from there, not again
    from its start (linear, however many wrapped lines make one).
    """
    settle = max(len(line) - 2, pos)
    settled = None
    for match in _SEPARATOR_RE.finditer(line, pos):
        if settled is None and match.start() >= settle:
            settled = (max(settle, pos), count)
        count += 1
        pos = match.end()
    if settled is None:
        settled = (max(settle, pos), count)
    return count, *settled


def _joined_lines(text: str, joins: bytearray) -> Iterator[tuple[str, int, int]]:
    """The non-empty lines, stripped, hard-wrapped ones joined, with their weight and separator count; one at a time.

    Appends to ``joins``, for each non-empty line of ``text``, whether it was
    joined to the line before (:func:`_rejoined_lines` reads the page again from it).
    """
    current = ""
    weight = separators = scan_at = scan_count = 0
    for match in _LINE_RE.finditer(text):
        line = match.group().strip()
        if not line:
            continue
        line_weight = _weight(line)
        line_separators, line_scan_at, line_scan_count = _separators(line, 0, 0)
        joined = bool(current) and _continues(current, weight, separators, line, line_separators)
        joins.append(joined)
        if joined:
            current += " " + line
            weight += 1 + line_weight
            separators, scan_at, scan_count = _separators(current, scan_at, scan_count)
            continue
        if current:
            yield current, weight, separators
        current, weight = line, line_weight
        separators, scan_at, scan_count = line_separators, line_scan_at, line_scan_count
    if current:
        yield current, weight, separators


def _rejoined_lines(text: str, joins: bytearray) -> Iterator[str]:
    """:func:`_joined_lines` again, the joins as that found them."""
    current = ""
    for line, joined in zip(filter(None, (match.group().strip() for match in _LINE_RE.finditer(text))), joins):
        if joined:
            current += " " + line
            continue
        if current:
            yield current
        current = line
    if current:
        yield current


def drop_chrome(text: str, edges: list[str] | None = None) -> str:
    """Remove a whole page's chrome lines and join hard-wrapped lines.

    On pages with at least :data:`CHROME_MIN_LINES` non-empty lines, drops short
    lines, lines cut into :data:`CHROME_SEGMENTS` or more segments by
    separators (menus, breadcrumbs) and runs of :data:`CHROME_RUN` or more lines
    without a sentence end that are not a wrapped paragraph (link and headline
    lists); on shorter pages, only such a run at the very bottom.  Keeps the
    page whole when too little would remain.  On every page,
    a long line that ends mid-sentence is joined with the next one, so hard
    wrapping does not cut sentences.

    Two passes over the lines, keeping two bytes a line in between, never a
    list of the lines: a page of millions of tiny lines costs a few bytes a
    character.

    ``edges``, when given, receives the dropped lines above the first kept
    line and below the last (at most :data:`SITE_EDGE_LINES` at each edge,
    the first ones above and the last ones below, in page order): what the
    page's site signature is made of.

    >>> drop_chrome("A line that was wrapped by the editor at forty\\ncharacters goes on here.")
    'A line that was wrapped by the editor at forty characters goes on here.'
    """
    if "\n" not in text:
        return text
    # Which lines a whole page keeps: long ones that are not menus, outside
    # link lists.  A link list is a run of CHROME_RUN or more lines without a
    # sentence end, unless every line is long and the run closes a paragraph
    # (hard wrapping); it is known when the line that ends it is read.
    keep = bytearray()
    total = kept = 0  # the weight of every line, and of those keep says
    run = run_kept = run_weight = 0  # the lines without a sentence end just read
    run_wrapped = True
    joins = bytearray()
    for line, weight, separators in _joined_lines(text, joins):
        long = weight >= CHROME_SHORT and separators + 1 < CHROME_SEGMENTS
        keep.append(long)
        total += weight
        kept += weight if long else 0
        if _ends_sentence(line) or len(_INNER_END_RE.findall(line)) >= CHROME_PROSE:
            if run >= CHROME_RUN and not run_wrapped:
                keep[-1 - run : -1] = bytes(run)
                kept -= run_kept
            run = run_kept = run_weight = 0
            run_wrapped = True
        else:
            run += 1
            run_kept += weight if long else 0
            run_weight += weight
            run_wrapped = run_wrapped and weight >= WRAP_MIN
    # A run at the very bottom is a link list ("Related articles", "Popular
    # now": other pages' titles, which would hide the site's footer above them);
    # on a page of fewer lines, nothing else goes.
    if len(keep) < CHROME_MIN_LINES:
        keep = bytearray(b"\x01") * len(keep)
        kept = total
        run_kept = run_weight
    if run >= CHROME_RUN:
        keep[len(keep) - run :] = bytes(run)
        kept -= run_kept
    if kept < CHROME_KEEP * total:
        keep = bytearray(b"\x01") * len(keep)  # too little would remain: the page stays whole
    out: list[str] = []
    chunk: list[str] = []
    top: list[str] = []
    bottom: deque[str] = deque(maxlen=SITE_EDGE_LINES)  # the lines since the last kept one
    for line, kept_line in zip(_rejoined_lines(text, joins), keep):
        if kept_line:
            bottom.clear()
            chunk.append(line)
            if len(chunk) == 4096:  # joined in chunks: no list of every line
                out.append("\n".join(chunk))
                chunk.clear()
        elif edges is None:
            continue
        elif out or chunk:
            bottom.append(line)
        elif len(top) < SITE_EDGE_LINES:
            top.append(line)
    if chunk:
        out.append("\n".join(chunk))
    if edges is not None and out:
        edges += top
        edges += bottom
    return "\n".join(out)
