"""Smoke test of an installed nshash: the C accelerator loads and computes what the specification does.

    python scripts/wheel_smoke.py

Run by cibuildwheel on every wheel it builds (``[tool.cibuildwheel]`` in
pyproject.toml), before the accelerator's own tests: it fails when the wheel
has no compiled ``nshash._speedups`` (users would silently get the slow
pure-Python path) or when the compiler of that platform made it compute
something else.  Needs only nshash and its dependencies.
"""

from __future__ import annotations

import os
import sys

os.environ["NSHASH_REQUIRE_SPEEDUPS"] = "1"  # a missing or stale build is an error, not a fallback

import nshash._speedups  # the compiled module itself, by name: an ImportError here is a wheel without it

import nshash
from nshash import _accel
from nshash.fingerprint import Fingerprinter
from nshash.options import Options
from nshash.sketch import Sketch, sketch_python

ARTICLE = "The first long sentence of the article is here. The second long sentence of it follows on."
PAGES = [
    "",
    "short",
    ARTICLE,
    "By Jane.\n" + ARTICLE + "\nShare this page | Home | Contact",
    "<html><body><p>" + ARTICLE + "</p><script>var x = 1;</script>&amp; &eacute; &#8212;</body></html>",
    "第一句话足够长，可以作为指纹。第二句也一样长，内容不同。第三句话也很长。",
    "記者 張三\n第一句話足夠長，可以作為指紋。第二句也一樣長，內容不同。",
    "Ünïcödé ſ K ı İ text with \U0001f600 astral characters and a lone surrogate \ud800 in it.",
    "\n".join(f"line {i} of a long page, with enough words to be a sentence." for i in range(200)),
]


def main() -> int:
    speedups = _accel.speedups
    if speedups is None:
        print("nshash: the C accelerator did not load", file=sys.stderr)
        return 1
    fingerprinter = Fingerprinter(Options())
    for page in PAGES:
        if fingerprinter.features(page) != fingerprinter.features_python(page):
            print(f"nshash: the C features differ from the specification on {page[:60]!r}", file=sys.stderr)
            return 1
        if Sketch(*speedups.sketch(page)) != sketch_python(page):
            print(f"nshash: the C sketch differs from the specification on {page[:60]!r}", file=sys.stderr)
            return 1
    ids = nshash.similar_ids([ARTICLE, "Something else entirely, long enough.", "By Jane. " + ARTICLE])
    if ids != [1, 2, 1]:
        print(f"nshash: similar_ids gave {ids}, not [1, 2, 1]", file=sys.stderr)
        return 1
    print(f"nshash {nshash.__version__}: {speedups.__file__} agrees with the specification on {len(PAGES)} pages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
