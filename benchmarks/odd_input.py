"""Peak memory and time of one document of odd input (issue 13, item 7); writes benchmarks/results/odd_input.md.

Run: ``python benchmarks/odd_input.py [--chars 10000000] [--cases newlines cjk-lines]``

Each case is one document of about ``--chars`` characters with nothing a
fingerprint can use, or millions of tiny lines: newlines only, ``。`` only,
one sentence without a delimiter, tags, entities, short CJK lines, menus.
Each runs in a fresh process, once with the C accelerator and once in pure
Python (``NSHASH_NO_SPEEDUPS=1``): ``NSHash().get_similar(doc)`` on an
in-memory index.  Memory is the growth of the process's peak RSS during the
call, per character of the document; time is measured at ``--chars`` and at
half of it, so the ratio shows whether time is linear (2.0) or worse.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: name -> (unit, description): the document is ``unit`` repeated to the size asked for.
CASES: dict[str, tuple[str, str]] = {
    "newlines": ("\n", "newlines only"),
    "a。": ("a。", "`a。` repeated"),
    "。": ("。", "`。` only"),
    "one-sentence": ("lorem ipsum dolor sit amet ", "one sentence, no delimiter"),
    "one-word": ("x", "one character, no delimiter"),
    "p-tags": ("<p>", "`<p>` tags"),
    "script-open": ("<script", "`<script` openings no `>` follows"),
    "amp": ("&amp;", "`&amp;` entities"),
    "rare-entity": ("&eacute;", "`&eacute;` entities (html.unescape)"),
    "short-lines": ("ab\n", "lines of 2 characters"),
    "numbered-lines": ("line\n", "lines of 4 characters"),
    "cjk-lines": ("中文短行。\n", "short CJK lines"),
    "menu-line": ("Home | ", "one line of menu segments split by pipes"),
    "menu-lines": ("Home | News | Sport | About\n", "menu lines"),
    "md-links": ('[a](x "', "Markdown links whose title never closes"),
    "quoted-links": ("> quoted [a](x)\n", "quoted lines holding a Markdown link"),
    "misread-utf8": ("中文。".encode().decode("latin-1"), "UTF-8 read as Latin-1 (read again in C)"),
    "misread-gb": ("中文。".encode("gbk").decode("latin-1"), "GBK read as Latin-1 (read again in Python)"),
    "escaped-tags": ("&lt;p&gt;&amp;lt;b&amp;gt;", "escaped tags, escaped again (stripped in 3 rounds)"),
    "json-escapes": ("\\u5317\\u4eac\\u3002\\n", "a JSON string's escaped form (read in Python)"),
    "misread-as-gbk": ("北京的新闻。".encode().decode("gb18030", "replace"), "UTF-8 read as GB18030 (read in Python)"),
    "gbk-lost-bytes": ("这是我的。\n".encode().decode("gbk", "ignore"), "UTF-8 read as GBK, a byte lost in each line"),
    "wrapped": (
        textwrap.fill("The council met on Tuesday about the new bridge over the river, and its cost. " * 4, 72) + "\n",
        "prose wrapped at 72 columns (its lines joined back into one)",
    ),
    "dated-lines": (
        "Released on May 14, 2021: 2021-05-14 | 14 May 2021, fixed.\n",
        "short lines holding dates, each a sentence: every one read for a byline",
    ),
}

#: Peak memory growth allowed, bytes per character of the document: 3x the 4-byte
#: code points the C works on (a page was ~62 before issue 13).
CEILING = 12

#: Run in a fresh interpreter: the document, then one get_similar, then the figures as JSON.
CHILD = """
import json, os, resource, sys, time
import nshash
from nshash import _accel
unit, chars = sys.argv[1], int(sys.argv[2])
doc = unit * (chars // len(unit))
nshash.NSHash().get_similar("A warm-up sentence, long enough to count. 這是繁體中文的句子。&eacute;")
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
nshash.NSHash().get_similar(doc)
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
print(json.dumps({"c": _accel.speedups is not None, "chars": len(doc), "peak": peak * 1024, "seconds": seconds}))
"""


def measure(unit: str, chars: int, c: bool) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("NSHASH_NO_SPEEDUPS", None)
    if not c:
        env["NSHASH_NO_SPEEDUPS"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", CHILD, unit, str(chars)], env=env, capture_output=True, text=True, check=True
    )
    result: dict[str, float] = json.loads(done.stdout)
    assert result["c"] == c, "the C accelerator is not built: python setup.py build_ext --inplace"
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chars", type=int, default=10_000_000, help="characters per document (default 10M)")
    parser.add_argument("--cases", nargs="+", choices=sorted(CASES), default=list(CASES))
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "odd_input.md")
    args = parser.parse_args()
    rows = []
    for name in args.cases:
        unit, description = CASES[name]
        row = [f"`{name}`", description]
        for c in (True, False):
            full = measure(unit, args.chars, c)
            half = measure(unit, args.chars // 2, c)
            per_char = full["peak"] / full["chars"]
            row += [f"{per_char:.1f}", f"{full['seconds']:.2f}", f"{full['seconds'] / max(half['seconds'], 1e-6):.1f}"]
            print(name, "C" if c else "Python", f"{per_char:.1f} B/char", f"{full['seconds']:.2f} s", flush=True)
        rows.append("| " + " | ".join(row) + " |")
    lines = [
        "# Odd input: peak memory and time of one document",
        "",
        f"`python benchmarks/odd_input.py --chars {args.chars}` on {platform.machine()}, Python "
        f"{platform.python_version()}, 2 cores shared. One `NSHash().get_similar(doc)` per fresh process on "
        f"a document of {args.chars:,} characters; peak = growth of the peak RSS during the call, in bytes per "
        "character of the document (the document itself, made before, is not counted). "
        "x2 = time at the full size / time at half of it (2.0 is linear). "
        f"The ceiling (issue 13, item 7) is {CEILING} bytes a character, C and Python; "
        "`tests/test_odd_input.py` holds every case to it on smaller documents.",
        "",
        "| case | document | C peak B/char | C s | C x2 | Python peak B/char | Python s | Python x2 |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
        *rows,
        "",
    ]
    args.out.write_text("\n".join(lines))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
