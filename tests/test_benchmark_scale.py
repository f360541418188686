"""benchmarks/run_scale.py: the two halves are interleaved in order, and false pairs are split right."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from run_scale import false_pairs, interleave, main


def test_interleave_keeps_each_half_in_order_and_in_proportion() -> None:
    joint = interleave(list(range(6)), ["a", "b", "c"])
    assert [item for half, item in joint if half == 0] == list(range(6))
    assert [item for half, item in joint if half == 1] == ["a", "b", "c"]
    # Never two of the smaller half in a row: it is spread over the crawl.
    halves = "".join(str(half) for half, _ in joint)
    assert "11" not in halves and halves.count("1") == 3


def test_false_pairs_within_a_half_and_across() -> None:
    labels = ["x", "x", "y", "z", "z", "w"]
    halves = [0, 0, 0, 1, 1, 1]
    # One cluster holds x, x, y (half 0) and z (half 1): within 2 (x-y twice), across 3 (z with each).
    pred = [1, 1, 1, 1, 2, 3]
    assert false_pairs(labels, halves, pred) == (2, 3)
    assert false_pairs(labels, halves, [1, 1, 2, 3, 3, 4]) == (0, 0)


def _write(path: Path, rows: list[tuple[str, str]]) -> None:
    with path.open("w", encoding="utf-8") as f:
        for i, (label, text) in enumerate(rows):
            f.write(json.dumps({"id": i, "label": label, "text": text}, ensure_ascii=False) + "\n")


def test_a_run_reports_the_joint_crawl(tmp_path: Path) -> None:
    data = tmp_path / "seed"
    data.mkdir()
    story = "A story long enough to be keyed, told in one sentence that goes on and on. " * 3
    other = "Another article about something else entirely, with its own long sentences here. " * 3
    _write(data / "en-tune.jsonl", [("t1", story), ("t1", story + " Copied."), ("t2", "Short page.")])
    _write(data / "en-heldout.jsonl", [("h1", other), ("h1", "Reprint: " + other)])
    out = tmp_path / "out"
    assert main(["--data", str(data), "--langs", "en", "--methods", "nshash", "--out", str(out)]) == 0
    (row,) = json.loads((out / "scale.json").read_text(encoding="utf-8"))["rows"]
    assert row["docs"] == 5 and row["method"] == "nshash" and row["seed"] == "seed"
    assert row["joint"]["P"] == 1.0 and row["joint"]["R"] == 1.0
    assert (row["false_within"], row["false_across"]) == (0, 0)
    assert "| seed | lang | method |" in (out / "scale.md").read_text(encoding="utf-8")
