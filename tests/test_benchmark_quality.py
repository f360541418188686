"""benchmarks/run_quality.py: how corpus files are read and named in its tables."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from run_quality import file_name, load_records, split_name


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("data/zh-heldout.jsonl", ("zh", "heldout")),
        ("data/zh-t2s.jsonl", ("zh", "t2s")),
        ("indep/seed3/en.jsonl", ("en", "seed3")),  # one directory a seed: the directory names the split
        ("en.jsonl", ("en", "-")),
    ],
)
def test_split_name(path: str, expected: tuple[str, str]) -> None:
    assert split_name(Path(path)) == expected


def test_file_name_keeps_the_directory_that_names_the_split() -> None:
    assert file_name(Path("data/zh-heldout.jsonl")) == "zh-heldout.jsonl"
    assert file_name(Path("indep/seed3/en.jsonl")) == "seed3/en.jsonl"


def test_records_are_sorted_by_id_and_a_repeated_id_is_refused(tmp_path: Path) -> None:
    rows = [{"id": 2, "label": "b", "text": "two"}, {"id": 1, "label": 7, "text": "one"}]
    path = tmp_path / "zh.jsonl"
    path.write_text("\n".join(json.dumps(row) for row in rows) + "\n\n", encoding="utf-8")
    records = load_records(path)
    assert [(r["id"], r["label"]) for r in records] == [(1, "7"), (2, "b")]
    path.write_text("\n".join(json.dumps(row) for row in [*rows, rows[0]]), encoding="utf-8")
    with pytest.raises(ValueError, match="ids are not unique"):
        load_records(path)
