"""benchmarks/run_scripts.py: copies keep their article's sentences, and the run reports every method."""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from run_realpages import DEFAULT_DATA
from run_scripts import _SENTENCE, main, reprint

HINDI = (
    "पहला वाक्य काफ़ी लंबा है और इसमें कई शब्द हैं। दूसरा वाक्य भी उतना ही लंबा है।\nतीसरा वाक्य नए अनुच्छेद में है। चौथा वाक्य अंत में आता है।"
)


def test_a_copy_keeps_a_run_of_the_sentences_inside_a_sites_frame() -> None:
    copy = reprint(HINDI, random.Random(3))
    header, *body, footer = copy.split("\n")
    assert "Home · News" in header and footer.startswith("© 2024")
    sentences = [s.strip() for s in _SENTENCE.findall(HINDI)]
    kept = [s.strip() for s in _SENTENCE.findall("\n".join(body))]
    assert 2 <= len(kept) <= len(sentences)
    # At most three characters were edited: all but three of the kept sentences are the article's own.
    assert sum(s not in sentences for s in kept) <= 3
    assert re.search("[।]", copy)


def test_without_the_real_pages_the_run_is_skipped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--data", str(tmp_path), "--out", str(tmp_path / "out")]) == 0
    assert "skipped" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


@pytest.mark.skipif(not (DEFAULT_DATA / "pages.jsonl.gz").exists(), reason="the real pages are not here")
def test_the_run_writes_a_row_per_method(tmp_path: Path) -> None:
    assert main(["--copies", "2", "--methods", "nshash", "original", "--out", str(tmp_path)]) == 0
    table = (tmp_path / "scripts.md").read_text(encoding="utf-8")
    found = {m: float(v) for m, v in re.findall(r"^\| (nshash|original) \| ([0-9.]+) \|", table, re.MULTILINE)}
    assert set(found) == {"nshash", "original"}
    assert found["nshash"] >= 0.9 > found["original"]  # sentences keyed one by one; the 2019 algorithm's whole lines
