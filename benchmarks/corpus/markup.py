"""Turn documentation markup into blocks: ``(level, text)`` pairs.

``level`` is 0 for a paragraph and 1-6 for a heading. Code, navigation,
tables of contents and data tables are dropped here, because a scraped news
page has none of them and they would only add noise to the corpus.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

Block = tuple[int, str]

_VOID = {"br", "hr", "img", "meta", "link", "input", "wbr", "col", "area", "base", "source"}
_BLOCK = {
    "p", "div", "li", "dd", "dt", "section", "article", "blockquote", "ul", "ol", "dl",
    "table", "tr", "td", "th", "caption", "figcaption", "title", "body", "main",
    "h1", "h2", "h3", "h4", "h5", "h6", "br", "hr",
}  # fmt: skip
_SKIP_TAGS = {
    "script", "style", "pre", "head", "nav", "header", "footer", "aside", "noscript",
    "svg", "button", "form", "select", "textarea",
}  # fmt: skip
# DocBook, Sphinx and LibreOffice help classes that hold code, navigation,
# data tables or credits rather than running text.
_SKIP_CLASSES = {
    "toc", "navheader", "navfooter", "sphinxsidebar", "related", "footer", "header",
    "highlight", "programlisting", "screen", "synopsis", "cmdsynopsis", "funcsynopsis",
    "literallayout", "table", "informaltable", "legalnotice", "copyright",
    "revhistory", "authorgroup", "author", "editor", "othercredit", "relatedtopics",
    "debug", "mediaobject", "figure", "index", "toctree-wrapper", "list-of-tables",
    "list-of-examples", "list-of-figures", "bridgehead", "breadcrumb",
}  # fmt: skip
_HEADING = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_SPACE = re.compile(r"\s+")
_CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")


def join_lines(parts: list[str]) -> str:
    """Join wrapped text lines, with no space between two CJK characters."""
    out = ""
    for part in parts:
        part = part.strip()
        if not part:
            continue
        if out and not (_CJK.match(out[-1]) and _CJK.match(part[0])):
            out += " "
        out += part
    return out


class _BlockParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[Block] = []
        self._stack: list[tuple[str, bool]] = []  # (tag, skipping)
        self._buf: list[str] = []
        self._heading = 0

    def _skipping(self) -> bool:
        return bool(self._stack) and self._stack[-1][1]

    def _flush(self) -> None:
        text = _SPACE.sub(" ", "".join(self._buf)).strip()
        self._buf = []
        if text:
            self.blocks.append((self._heading, text))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _BLOCK:
            self._flush()
        if tag in _VOID:
            return
        a = dict(attrs)
        classes = set((a.get("class") or "").split())
        # LibreOffice help keeps every platform's variant in hidden spans; the
        # one whose id starts with "default" is what the reader sees.
        hidden = "hidden" in a and not (a.get("id") or "").startswith("default")
        skip = (
            self._skipping()
            or tag in _SKIP_TAGS
            or bool(classes & _SKIP_CLASSES)
            or (tag == "table" and "docutils" in classes)  # Sphinx data tables
            or hidden
            or a.get("role") == "navigation"
        )
        self._stack.append((tag, skip))
        if tag in _HEADING and not skip:
            self._heading = _HEADING[tag]

    def handle_endtag(self, tag: str) -> None:
        if tag in _BLOCK:
            self._flush()
        if tag in _HEADING:
            self._heading = 0
        for i in range(len(self._stack) - 1, -1, -1):
            if self._stack[i][0] == tag:
                del self._stack[i:]
                break

    def handle_data(self, data: str) -> None:
        if not self._skipping():
            self._buf.append(data)


def html_blocks(html: str) -> list[Block]:
    """Headings and paragraphs of an HTML page, in reading order.

    >>> html_blocks("<h2>1.2. Title</h2><p>Some <b>bold</b>\\ntext.</p><pre>code</pre>")
    [(2, '1.2. Title'), (0, 'Some bold text.')]
    """
    parser = _BlockParser()
    parser.feed(html)
    parser.close()
    parser._flush()
    return [(lvl, text) for lvl, text in parser.blocks if text]


# --- roff (man and mdoc) ----------------------------------------------------

_ESCAPES = {
    "\\-": "-", "\\(em": "—", "\\(en": "–", "\\(lq": "“", "\\(rq": "”", "\\(aq": "'",
    "\\(oq": "‘", "\\(cq": "’", "\\(bu": "•", "\\(co": "©", "\\(dq": '"', "\\(mi": "-",
    "\\(hy": "-", "\\(ti": "~", "\\(ha": "^", "\\(sl": "/", "\\(rs": "\\", "\\e": "\\",
    "\\ ": " ", "\\~": " ", "\\0": " ", "\\&": "", "\\|": "", "\\^": "", "\\,": "",
    "\\/": "", "\\:": "", "\\c": "", "\\%": "", "\\*(lq": "“", "\\*(rq": "”",
    "\\*(Tm": "™", "\\*R": "®",
}  # fmt: skip
_ESCAPE_RE = re.compile("|".join(re.escape(k) for k in sorted(_ESCAPES, key=len, reverse=True)))
_FONT_RE = re.compile(r"\\f(?:\[[^\]]*\]|\(..|.)|\\s[+-]?\d+|\\[*n](?:\[[^\]]*\]|\(..|.)")
_LEFTOVER_RE = re.compile(r"\\(?:\(..|\[[^\]]*\]|.)")
# Request lines that produce no text (or only layout) in a man page.
_SILENT = {
    "TH", "Dd", "Dt", "Os", "ds", "nr", "so", "tr", "ft", "ne", "ad", "na", "hy", "nh",
    "ta", "ti", "cs", "ss", "ll", "if", "ie", "el", "ig", "de", "am", "rm", "rn", "ps",
    "vs", "mso", "UC", "hw", "ev", "cu", "ul", "lf", "fam", "Bl", "El", "Bd", "Ed", "Bf",
    "Ef", "Ek", "Bk", "An", "Rs", "Re", "%A", "%T", "%D", "%J", "%N", "%V", "%P",
}  # fmt: skip
_BREAKS = {
    "PP", "LP", "P", "Pp", "sp", "br", "IP", "TP", "HP", "RS", "RE", "in", "PD", "TQ",
    "Lp", "It", "Dl", "bp", "fi", "nf", "EX", "EE", "ce", "TE",
}  # fmt: skip
_FONT_MACROS = {"B", "I", "SM", "SB", "BR", "RB", "IR", "RI", "BI", "IB", "UR", "MT"}
# mdoc "callable" macro names inside a line; they are markup, not words.
_MDOC_WORDS = re.compile(
    r"(?<!\S)(?:Fl|Ar|Cm|Op|Oo|Oc|Nm|Nd|Pa|Xr|Ic|Ev|Va|Dq|Qq|Sq|Pq|Ql|Em|Sy|Li|Ns|Ta|"
    r"No|Fn|Fa|Ft|Fo|Fc|Er|Dv|Ad|Cd|Ms|Ux|Bx|At|Tn|Aq|Bq|Brq|Xo|Xc|Sx|Lk|Mt|Ot|Dx|Nx|Fx|Ox)"
    r"(?!\S)"
)


def _roff_text(line: str) -> str:
    line = _ESCAPE_RE.sub(lambda m: _ESCAPES[m.group()], line)
    line = _FONT_RE.sub("", line)
    return _LEFTOVER_RE.sub("", line)


def _macro_args(rest: str) -> list[str]:
    return [a.strip('"') for a in re.findall(r'"[^"]*"|\S+', rest)]


def roff_blocks(source: str) -> list[Block]:
    """Section headings (level 1-2) and paragraphs of a man page.

    No-fill regions (``.nf``/``.EX``) hold synopses and examples, so they are
    dropped like ``<pre>`` in HTML.

    >>> roff_blocks('.TH LS 1\\n.SH "NAME"\\nls \\\\- list\\n.PP\\nShow \\\\fBall\\\\fR\\nfiles.')
    [(1, 'NAME'), (0, 'ls - list'), (0, 'Show all files.')]
    """
    blocks: list[Block] = []
    para: list[str] = []
    nofill = False
    in_macro_def = False

    def flush() -> None:
        text = _SPACE.sub(" ", join_lines(para)).strip()
        para.clear()
        if text:
            blocks.append((0, text))

    for raw in source.splitlines():
        if in_macro_def:
            in_macro_def = raw.strip() != ".."
            continue
        if raw.startswith(('.\\"', "'\\\"", '\\"')) or raw.strip() in {".", "'"}:
            continue
        if raw[:1] in ".'":
            name, _, rest = raw[1:].strip().partition(" ")
            rest = rest.strip()
            if name in {"de", "de1", "am"}:
                in_macro_def = True
                continue
            if name in {"SH", "SS", "Sh", "Ss"}:
                flush()
                nofill = False
                title = _roff_text(" ".join(_macro_args(rest)))
                blocks.append((1 if name in {"SH", "Sh"} else 2, title.strip()))
                continue
            if name in {"nf", "EX", "Bd", "TS"}:
                flush()
                nofill = True
                continue
            if name in {"fi", "EE", "Ed", "TE"}:
                nofill = False
            if name in _BREAKS:
                flush()
                if name in {"IP", "It", "Dl"} and rest and not nofill:
                    para.append(_roff_text(_MDOC_WORDS.sub("", " ".join(_macro_args(rest)))))
                    flush()
                continue
            if name in _SILENT or nofill:
                continue
            if name in _FONT_MACROS:
                args = _macro_args(rest)
                glue = " " if name in {"B", "I", "SM", "SB"} else ""
                para.append(_roff_text(glue.join(args)))
                continue
            if name == "Nd":
                para.append("- " + _roff_text(rest))
                continue
            # Any other mdoc macro: keep its words, drop the macro names.
            para.append(_roff_text(_MDOC_WORDS.sub("", rest)))
            continue
        if nofill:
            continue
        if not raw.strip():
            flush()
            continue
        para.append(_roff_text(raw))
    flush()
    return blocks
