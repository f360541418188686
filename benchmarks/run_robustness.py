"""How each method holds up when a whole corpus arrives in another shape.

    python benchmarks/run_robustness.py                      # writes results/robustness.{md,json}
    python benchmarks/run_robustness.py --data benchmarks/data /tmp/corpus4711 --methods nshash original

Every page of every corpus file is transformed the same way (line ends,
markup, every line of a page joined by spaces, only the pages of some
sites joined, half of all pages joined whatever their site, half of them
quoted and wrapped as a mail carries them, half of them read in the wrong
encoding, as a crawler without the page's charset reads them, half of them
as a feed's items, or as JSON lines read as text), then each
method runs on the file as ``run_quality.py`` does.
``run_variants.py`` asks whether one text typed another way finds its source;
here the question is what a corpus of such pages does to precision: a site's
pages that lost their line breaks had nothing left to tell their shared notices
from their articles by.  Means over the files of each language, and the lowest
precision of a file.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import statistics
import sys
import textwrap
import zlib
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from metrics import evaluate
from peers import Method, Unavailable, build_methods
from run_quality import environment, find_files, load_records, markdown_table, split_name, write_report

HERE = Path(__file__).resolve().parent
DEFAULT_METHODS = ("nshash", "original", "rensa-lsh")
_BREAKS = re.compile(r"\s*\n\s*")
#: The share of sites (by a hash of the site's name) whose pages are joined in "some sites joined".
SITE_SHARE = 0.3


def _joined(text: str) -> str:
    return _BREAKS.sub(" ", text)


def _html_one_line(text: str) -> str:
    return "<html><body>" + "".join(f"<p>{line}</p>" for line in text.split("\n")) + "</body></html>"


def _site_joined(text: str, site: str) -> str:
    return _joined(text) if zlib.crc32(site.encode("utf-8")) % 100 < 100 * SITE_SHARE else text


def _half(text: str) -> bool:
    """Whether a "half of the pages" transform changes the page (by a hash of its text, whatever its site)."""
    return zlib.crc32(text.encode("utf-8")) % 2 == 0


def _half_of(transform: Callable[[str], str]) -> Callable[[str, str], str]:
    """``transform`` applied to half of the pages (:func:`_half`), whatever their site."""
    return lambda text, site: transform(text) if _half(text) else text


def _quoted(text: str) -> str:
    """Quoted and wrapped at 72 columns as a mail or a newsletter carries a page (``> `` before every line)."""
    return "\n".join("> " + line for line in _wrapped(text).split("\n"))


def _wrapped(text: str) -> str:
    """Every line wrapped at 72 columns (``textwrap``), no blank line added between them: a plain-text mail."""
    return "\n".join(part for line in text.split("\n") for part in textwrap.wrap(line, 72) or [""])


#: Windows-1252 as browsers read it (the WHATWG decoder): its five unused bytes as the C1 control of that number.
_CP1252 = {byte: bytes([byte]).decode("cp1252", errors="ignore") or chr(byte) for byte in range(0x80, 0xA0)}


def _read_as_latin1(encoding: str) -> Callable[[str], str]:
    """A page served in ``encoding`` without a charset, read as ``requests`` reads it (``Response.text``:
    ISO-8859-1); left as it is when ``encoding`` lacks one of its characters (Big5: simplified Chinese)."""

    def misread(text: str) -> str:
        try:
            return text.encode(encoding).decode("latin-1")
        except UnicodeEncodeError:
            return text

    return misread


def _read_as_gbk(codec: str, errors: str) -> Callable[[str], str]:
    """A UTF-8 page decoded as ``codec`` with ``errors``, as a Chinese crawler that takes every page for GBK does
    (``raw.decode("gbk", "ignore")``): the bytes ``codec`` cannot read are lost."""
    return lambda text: text.encode("utf-8").decode(codec, errors)


def _feed_item(text: str, cdata: bool) -> str:
    """A page as an RSS item: its first line the title, the others its description's paragraphs, escaped or in
    a CDATA section."""
    title, _, body = text.partition("\n")
    paragraphs = "".join(f"<p>{html.escape(line, quote=False)}</p>" for line in body.split("\n"))  # its HTML
    description = f"<![CDATA[{paragraphs}]]>" if cdata else html.escape(paragraphs)
    return f"<item><title>{html.escape(title)}</title><description>{description}</description></item>"


#: Name -> how a page (and its site's name) is transformed.
TRANSFORMS: dict[str, Callable[[str, str], str]] = {
    "as generated": lambda text, site: text,
    "CRLF line ends": lambda text, site: text.replace("\n", "\r\n"),
    "CR line ends": lambda text, site: text.replace("\n", "\r"),
    "U+2028 line ends": lambda text, site: text.replace("\n", "\u2028"),
    "blank line between lines": lambda text, site: text.replace("\n", "\n\n"),
    "HTML paragraphs on one line": lambda text, site: _html_one_line(text),
    "no-break space after periods": lambda text, site: text.replace(". ", ".\xa0"),
    "every page's lines joined": lambda text, site: _joined(text),
    f"{SITE_SHARE:.0%} of the sites' lines joined": _site_joined,
    # Two datasets of one crawl merged, one that kept line breaks and one that removed them.
    "half of the pages joined, any site": _half_of(_joined),
    "half of the pages wrapped at 72": _half_of(_wrapped),
    "half of the pages quoted and wrapped at 72": _half_of(_quoted),
    "half of the pages UTF-8 read as Latin-1": _half_of(_read_as_latin1("utf-8")),
    # A crawler that took the pages for Windows-1252.
    "half of the pages UTF-8 read as Windows-1252": _half_of(
        lambda text: text.encode().decode("latin-1").translate(_CP1252)
    ),
    # GB18030 (GBK, GB2312) and Big5: Chinese sites that name their charset in a <meta> tag only.
    "half of the pages GB18030 read as Latin-1": _half_of(_read_as_latin1("gb18030")),
    # A browser's reading of a page without a charset (headless crawlers).
    "half of the pages GB18030 read as Windows-1252": _half_of(
        lambda text: text.encode("gb18030").decode("latin-1").translate(_CP1252)
    ),
    "half of the pages Big5 can hold, Big5 read as Latin-1": _half_of(_read_as_latin1("big5")),
    # Chinese crawlers that take every page for GBK (requests with encoding = "gbk" replaces what GBK cannot
    # read, raw.decode("gbk", "ignore") drops it): what a page's UTF-8 bytes lose read so.
    "half of the pages UTF-8 read as GBK, errors replaced": _half_of(_read_as_gbk("gbk", "replace")),
    "half of the pages UTF-8 read as GBK, ignoring errors": _half_of(_read_as_gbk("gbk", "ignore")),
    "half of the pages UTF-8 read as GB18030, errors replaced": _half_of(_read_as_gbk("gb18030", "replace")),
    "half of the pages as RSS items, HTML escaped": _half_of(lambda text: _feed_item(text, False)),
    "half of the pages as RSS items, in CDATA": _half_of(lambda text: _feed_item(text, True)),
    # A crawl written with json.dumps (every character past ASCII escaped) and read back as lines of text.
    "half of the pages as JSON lines": _half_of(lambda text: json.dumps({"text": text})),
}


def load_pages(path: Path) -> tuple[list[str], list[str], list[str]]:
    """``(texts, labels, sites)`` of a corpus file in ``id`` (arrival) order."""
    records = load_records(path)
    sites = [str(rec.get("site", "")) for rec in records]
    return [rec["text"] for rec in records], [rec["label"] for rec in records], sites


def language(path: Path) -> str:
    """``zh``, ``en`` or ``zh-t2s`` (the traditional-Chinese file has its own column)."""
    lang, split = split_name(path)
    return f"{lang}-{split}" if split == "t2s" else lang


def summary(scores: list[dict[str, float]]) -> str:
    """``P (lowest) / R / F1``: means over files, and the lowest file's precision."""
    p = statistics.mean(s["precision"] for s in scores)
    low = min(s["precision"] for s in scores)
    r = statistics.mean(s["recall"] for s in scores)
    f1 = statistics.mean(s["f1"] for s in scores)
    return f"{p:.3f} ({low:.3f}) / {r:.3f} / {f1:.3f}"


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, nargs="+", default=[HERE / "data"], help="corpus directories")
    ap.add_argument("--methods", nargs="+", default=list(DEFAULT_METHODS), help="method names")
    ap.add_argument("--transforms", nargs="+", choices=list(TRANSFORMS), default=list(TRANSFORMS))
    ap.add_argument("--out", type=Path, default=HERE / "results", help="results directory")
    return ap.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        methods: list[Method] = build_methods(args.methods)
        files = [path for data in args.data for path in find_files(data, None)]
    except (ValueError, FileNotFoundError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    corpora = [(path, language(path), *load_pages(path)) for path in files]
    langs = sorted({lang for _, lang, *_ in corpora}, key=lambda lang: (lang != "en", lang))
    results: list[dict[str, Any]] = []
    skipped: dict[str, str] = {}
    rows = []
    for name in args.transforms:
        transform = TRANSFORMS[name]
        for method in methods:
            if method.name in skipped:
                continue
            by_lang: dict[str, list[dict[str, float]]] = defaultdict(list)
            try:
                for path, lang, texts, labels, sites in corpora:
                    pred = method.fit_labels([transform(text, site) for text, site in zip(texts, sites)])
                    scores = evaluate(labels, pred).as_dict()
                    by_lang[lang].append(scores)
                    results.append({"transform": name, "method": method.name, "file": str(path), **scores})
            except Unavailable as e:
                skipped[method.name] = str(e)
                continue
            rows.append([name, method.name, *(summary(by_lang[lang]) for lang in langs)])
            print(" | ".join(rows[-1]), file=sys.stderr)
    env = environment()
    command = "python benchmarks/run_robustness.py " + " ".join(sys.argv[1:])
    md = [
        "# How the text arrives",
        "",
        f"Generated by `{command.strip()}` on {env['date']} (Python {env['python']}, {env['machine']}, "
        f"commit {env['commit']}), {len(files)} corpus files. Each cell: mean precision over the "
        "language's files (the lowest file's) / mean recall / mean F1.",
        "",
        markdown_table(["transform", "method", *(f"{lang} P (lowest) / R / F1" for lang in langs)], rows),
    ]
    print("\n".join(md))
    write_report(args.out, "robustness", md, skipped, {"environment": env, "results": results})
    return 0


if __name__ == "__main__":
    sys.exit(main())
