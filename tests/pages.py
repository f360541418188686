"""Pages and decision checks the decision tests share: made-up sites, articles and copies."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

import nshash
import nshash.decide
import nshash.edges
import nshash.fingerprint
import nshash.frame
import nshash.members
import nshash.verify
from nshash.edges import line_filter
from nshash.members import Member

SAMPLE = Path(__file__).resolve().parent.parent / "examples" / "data" / "news_sample.jsonl"


def sample_pages() -> list[str]:
    """The bundled sample's page texts (its ``content`` field), in file order."""
    return [json.loads(line)["content"] for line in SAMPLE.read_text(encoding="utf-8").splitlines() if line.strip()]


WORDS = ["".join(random.Random(i).choices("abcdefghijklmnopqrstuvwxyz", k=3 + i % 7)) for i in range(3000)]


def paragraph(rng: random.Random, sentences: int = 4) -> str:
    return " ".join(
        " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 14))).capitalize() + "." for _ in range(sentences)
    )


def page(site: tuple[list[str], list[str]], body: list[str], title: str) -> str:
    header, footer = site
    return "\n".join([title, *header, *body, *footer])


def make_site(rng: random.Random) -> tuple[list[str], list[str]]:
    header = ["Home | News | Tech | About | Contact"]
    footer = [paragraph(rng, 2), paragraph(rng, 3), "Back to top", paragraph(rng, 2)]
    return header, footer


def pair_precision_recall(truth: list[str], predicted: list[int]) -> tuple[float, float]:
    """Pairwise precision and recall by brute force (the sample is small)."""
    same_pred = same_true = both = 0
    for i in range(len(truth)):
        for j in range(i):
            p, t = predicted[i] == predicted[j], truth[i] == truth[j]
            same_pred += p
            same_true += t
            both += p and t
    return both / max(same_pred, 1), both / max(same_true, 1)


def sentence(rng: random.Random, words: int | None = None) -> str:
    """A made-up sentence of ``words`` words (8 to 14 when not given)."""
    count = rng.randint(8, 14) if words is None else words
    return " ".join(rng.choice(WORDS) for _ in range(count)).capitalize() + "."


#: The ideographs random Chinese test pages are made of.
HAN = "".join(chr(0x4E00 + 7 * i) for i in range(600))


def ideographs(rng: random.Random, size: int) -> str:
    """``size`` random ideographs of :data:`HAN`."""
    return "".join(rng.choice(HAN) for _ in range(size))


def assert_rule_joins(
    original: str,
    others: list[str],
    copy: str,
    native: bool,
    monkeypatch: pytest.MonkeyPatch,
    rule: str,
    off: Any,
    module: Any = nshash.edges,
    joining: Sequence[str] = (),
) -> None:
    """``copy`` joins ``original`` after ``others`` (clusters of their own) and ``joining`` (pages that join
    ``original``), through the C or the Python decision; with ``<module>.<rule>`` replaced by ``off`` (in the
    Python verification) it stays apart."""
    from nshash.stores.memory import HashDBMemory

    def copy_joins() -> bool:
        nsh = nshash.NSHash()
        first = nsh.get_similar(original)
        assert len({nsh.get_similar(other) for other in others} | {first}) == len(others) + 1
        assert all(nsh.get_similar(page) == first for page in joining)
        return nsh.add(copy).similar_id == first

    if not native:
        monkeypatch.setattr(HashDBMemory, "native_tables", lambda self, names: None)
    assert copy_joins()
    if not native:
        monkeypatch.setattr(nshash.verify, "speedups", None)
        assert copy_joins()
        monkeypatch.setattr(module, rule, off)
        assert not copy_joins()


def python_decision(native: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Unless ``native``, decide in Python: no C tables for the memory store, no C verification."""
    from nshash.stores.memory import HashDBMemory

    if not native:
        monkeypatch.setattr(HashDBMemory, "native_tables", lambda self, names: None)
        monkeypatch.setattr(nshash.verify, "speedups", None)


def page_features(text: str) -> nshash.fingerprint.Features:
    return nshash.NSHash().fingerprinter.features(text)


def stored_member(text: str) -> Member:
    features = page_features(text)
    return Member(features.sketch, line_filter(features.line_keys))


def heavy_site(rng: random.Random, name: str) -> tuple[list[str], list[str]]:
    """A site whose frame is as long as an article: menu, notices and a long footer."""
    header = [f"{name} | Home | News | Tech | About | Contact", paragraph(rng, 2)]
    footer = [paragraph(rng, 3), paragraph(rng, 3), "Back to top", paragraph(rng, 3), paragraph(rng, 2)]
    return header, footer
