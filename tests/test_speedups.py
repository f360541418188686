"""The C accelerator must give exactly the keys of the pure-Python specification."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nshash import core
from nshash.core import NSHash

pytestmark = pytest.mark.skipif(core._speedups is None, reason="C accelerator not built")

# Text rich in what the splitter treats specially: boundaries, noise, case, ". ".
special = st.sampled_from(list("。！？!?；;｡．\n\r.,，、:：\"'“”‘’()（） \t\u3000\xa0\u200b\ufeffAZaz"))
unicode_text = st.lists(st.one_of(special, st.characters(), st.text(min_size=1, max_size=30)), max_size=80).map("".join)


def python_features(nsh: NSHash, text: str) -> core.Features:
    nsh._accelerated = False
    try:
        return nsh._features(text)
    finally:
        nsh._accelerated = True


@settings(max_examples=400, deadline=None)
@given(unicode_text, st.integers(1, 12), st.integers(1, 30), st.integers(0, 16))
def test_c_equals_python(text: str, n: int, min_len: int, anchor: int) -> None:
    nsh = NSHash(n=n, min_len=min_len, anchor=anchor, extra=3)
    assert nsh._accelerated
    assert nsh._features(text) == python_features(nsh, text)


def test_c_equals_python_on_pages() -> None:
    from tests.test_nshash import ARTICLE, ENGLISH

    nsh = NSHash()
    for text in [ARTICLE, ENGLISH, ARTICLE.upper() + ENGLISH, "<p>" + ENGLISH + "&amp;</p>", "a\udc80b" * 40]:
        assert nsh._features(text) == python_features(nsh, text)


def test_only_default_farmhash_options_are_accelerated() -> None:
    assert NSHash()._accelerated
    assert not NSHash(hashfunc="md5")._accelerated
    assert not NSHash(split="design")._accelerated
    assert not NSHash(normalize=False)._accelerated


@settings(max_examples=600, deadline=None)
@given(st.binary(max_size=300))
def test_fingerprint64_equals_pyfarmhash(data: bytes) -> None:
    import farmhash

    assert core._speedups.fingerprint64(data) == farmhash.fingerprint64(data)


def test_fingerprint64_every_length() -> None:
    import random

    import farmhash

    rng = random.Random(5)
    for length in range(200):  # each of FarmHash's length classes and loop tails
        data = bytes(rng.randrange(256) for _ in range(length))
        assert core._speedups.fingerprint64(data) == farmhash.fingerprint64(data)
