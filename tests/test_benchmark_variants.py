"""benchmarks/run_variants.py: the variants change what they say they change, and the score counts right."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from run_variants import VARIANTS, full_width, score

ZH = "第一段讲的是ＣＰＵ的事情，“引号”里有话。\n第二段也很长，有 English words 和 2024 年的数字！"
EN = (
    "The first paragraph says \u201cquoted\u201d things, 42 of them, in a line long enough to be wrapped.\n"
    "The second one -- also long -- ends here."
)


def test_every_variant_changes_a_text() -> None:
    for name, make in VARIANTS.items():
        assert make(ZH) != ZH or make(EN) != EN, name


def test_full_width_leaves_the_markup_alone() -> None:
    assert full_width("<p class=x>ab 12</p>") == "<p class=x>ａｂ １２</p>"


def test_score_counts_variants_found_and_pairs_of_different_articles() -> None:
    # Three sources then their variants: the first found, the second not, the third found but
    # also put with the first source (four false pairs: each of source 0 and its variant with
    # each of source 2 and its variant).
    truth = ["s0", "s1", "s2"] * 2
    assert score(["a", "b", "a", "a", "x", "a"], truth) == (2 / 3, 4)
    # Two releases of one page (one label) put together: not a false pair.
    assert score(["a", "a", "a", "a"], ["r", "r", "r", "r"]) == (1.0, 0)
