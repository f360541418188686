"""The C accelerator computes exactly what the Python specification does, and is chosen in one place."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nshash import _accel, sketch

speedups = pytest.importorskip("nshash._speedups", reason="the C accelerator is not built")


def test_the_c_constants_come_from_the_python_specification() -> None:
    # setup.py writes them from nshash/sketch.py: an edit there without a rebuild fails here.
    assert (speedups.GRAM, speedups.SLOTS, speedups.SLOT_SHIFT, speedups.PRIME) == (
        sketch.GRAM,
        sketch.SLOTS,
        sketch._SLOT_SHIFT,
        sketch._PRIME,
    )


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=400))
def test_c_sketch_equals_the_specification(text: str) -> None:
    assert sketch.Sketch(*speedups.sketch(text)) == sketch.sketch_python(text)


@pytest.mark.parametrize("text", ["", "a", "abcd", "abcde", "中文" * 300, "\ud800\udfff" * 9, "\x00" * 7, "é" * 10_000])
def test_c_sketch_edge_cases(text: str) -> None:
    assert sketch.Sketch(*speedups.sketch(text)) == sketch.sketch_python(text)


def test_c_sketch_refuses_what_is_not_text() -> None:
    with pytest.raises(TypeError, match="str"):
        speedups.sketch(b"bytes")


def test_the_switch_runs_pure_python() -> None:
    code = "from nshash import _accel, sketch; print(_accel.speedups is None, sketch.sketch('abcdef').grams)"
    env = {**os.environ, "NSHASH_NO_SPEEDUPS": "1"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
    assert out.split() == ["True", "2"]
    assert _accel.speedups is speedups or os.environ.get("NSHASH_NO_SPEEDUPS") == "1"
