"""Without the C accelerator, the sketch is computed with numpy: the specification's bytes, chosen in one place."""

from __future__ import annotations

import os
import random
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nshash import sketch, sketch_numpy

pytest.importorskip("numpy")


def _numpy(text: str) -> sketch.Sketch:
    return sketch.Sketch(*sketch_numpy.sketch_numpy(text, sketch.GRAM, sketch.SLOTS, sketch._PRIME, sketch._SLOT_SHIFT))


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=400))
def test_numpy_sketch_equals_the_specification(text: str) -> None:
    assert _numpy(text) == sketch.sketch_python(text)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab中", min_size=1, max_size=60))
def test_numpy_sketch_on_few_distinct_grams(text: str) -> None:
    # Few distinct grams leave most slots empty: they borrow from the next filled one, round the end.
    assert _numpy(text) == sketch.sketch_python(text)


@pytest.mark.parametrize("text", ["", "a", "abcd", "abcde", "中文" * 300, "\ud800\udfff" * 9, "\x00" * 7, "é" * 10_000])
def test_numpy_sketch_edge_cases(text: str) -> None:
    assert _numpy(text) == sketch.sketch_python(text)


@pytest.mark.parametrize("extra", [-2, -1, 0, 1, 2 * sketch_numpy._CHUNK + 7])
def test_numpy_sketch_across_chunks(extra: int) -> None:
    # Grams are hashed a chunk at a time: a gram across a boundary, and a slot's minimum found
    # in a later chunk, must give the specification's bytes.
    rng = random.Random(extra)
    size = sketch_numpy._CHUNK + sketch.GRAM - 1 + extra
    text = "".join(rng.choice("abcdefg中文字符 ") for _ in range(size))
    assert _numpy(text) == sketch.sketch_python(text)


def test_pure_python_sketches_with_numpy_and_without_it() -> None:
    code = (
        "import sys\n"
        "if sys.argv[1] == 'hide': sys.modules['numpy'] = None\n"
        "from nshash import _accel, sketch, sketch_numpy\n"
        "print(_accel.speedups is None, sketch_numpy.available(), sketch.sketch('x' * 50))"
    )
    env = {**os.environ, "NSHASH_NO_SPEEDUPS": "1"}
    run = [sys.executable, "-c", code]
    runs = {
        how: subprocess.run([*run, how], capture_output=True, text=True, env=env, check=True).stdout
        for how in ("numpy", "hide")
    }
    assert runs["numpy"].startswith("True True ")
    assert runs["hide"].startswith("True False ")
    # The same sketch either way.
    assert runs["numpy"].split(" ", 2)[2] == runs["hide"].split(" ", 2)[2]
