"""benchmarks/families.py: one table of every family's committed quality run, averaged per language."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import families


def _row(method: str, lang: str, split: str, p: float, r: float, f1: float) -> dict[str, object]:
    return {"method": method, "lang": lang, "split": split, "precision": p, "recall": r, "f1": f1}


def _write(folder: Path, results: list[dict[str, object]]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    run = {"environment": {"date": "2026-12-07 07:47 UTC"}, "results": results}
    (folder / "quality.json").write_text(json.dumps(run), encoding="utf-8")


def test_each_family_is_averaged_per_language_against_the_best_tool_and_other_algorithm(tmp_path: Path) -> None:
    _write(
        tmp_path,  # the synthetic family: its tune file is left out, its t2s file is a language of its own
        [
            _row("nshash", "zh", "heldout", 0.9, 0.8, 0.85),
            _row("nshash", "zh", "tune", 0.1, 0.1, 0.1),
            _row("nshash", "zh", "t2s", 0.7, 0.7, 0.7),
            _row("rensa-lsh", "zh", "heldout", 0.5, 0.1, 0.2),
        ],
    )
    _write(
        tmp_path / "indep-manpages",
        [
            _row("nshash", "en", "seed1", 1.0, 0.9, 0.95),
            _row("nshash", "en", "seed2", 0.8, 0.9, 0.85),
            _row("nshash-batch", "en", "seed1", 1.0, 0.9, 0.9),
            _row("nshash-batch", "en", "seed2", 1.0, 0.9, 0.8),
            _row("rensa-lsh", "en", "seed1", 1.0, 0.2, 0.3),
            _row("simhash", "en", "seed1", 1.0, 0.3, 0.5),
            _row("nshash.Shingles", "en", "seed1", 1.0, 0.5, 0.6),
            _row("nshash verify=0.6 only", "en", "seed1", 1.0, 1.0, 0.99),  # a variant: no peer
        ],
    )
    rows, missing = families.table(tmp_path)
    assert rows == [
        ["synthetic", "zh", "1", "0.900 / 0.800 / **0.850**", "-", "rensa-lsh 0.200", "-", "2026-12-07"],
        ["synthetic", "zh (t2s)", "1", "0.700 / 0.700 / **0.700**", "-", "-", "-", "2026-12-07"],
        [
            "independent, man pages",
            "en",
            "2",
            "0.900 / 0.900 / **0.900**",
            "0.850",
            "simhash 0.500",
            "nshash.Shingles 0.600",
            "2026-12-07",
        ],
    ]
    assert missing == [
        "independent",
        "independent, real articles",
        "independent, books",
        "independent, books in traditional",
        "independent, Debian docs",
    ]
    out = tmp_path / "families.md"
    assert families.main(["--results", str(tmp_path), "--out", str(out)]) == 0
    assert "| independent, man pages | en | 2 |" in out.read_text(encoding="utf-8")


def test_no_run_found_is_an_error(tmp_path: Path) -> None:
    assert families.main(["--results", str(tmp_path)]) == 2
