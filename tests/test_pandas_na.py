"""``nshash.similar_ids`` passes missing values through (``na="keep"``) or refuses them (``na="raise"``)."""

from __future__ import annotations

import math

import pytest

import nshash

pd = pytest.importorskip("pandas")

A = "The first long sentence of the article. The second long sentence of it is here."
A_COPY = "By Jane Doe. " + A
B = "Something else entirely, long enough to count. And another sentence about it."

MISSING = {"None": None, "nan": float("nan"), "pd.NA": pd.NA, "NaT": pd.NaT}


@pytest.mark.parametrize("hole", sorted(MISSING))
def test_a_list_with_holes_gets_none_there_and_the_ids_of_the_rest(hole: str) -> None:
    value = MISSING[hole]
    assert nshash.similar_ids([A, value, B, value, A_COPY]) == [1, None, 2, None, 1]
    assert nshash.similar_ids([value]) == [None]


def test_the_ids_of_present_values_do_not_depend_on_the_holes() -> None:
    docs = [B, A, A_COPY, B]
    with_holes = nshash.similar_ids([None, B, None, A, A_COPY, float("nan"), B])
    assert [sid for sid in with_holes if sid is not None] == nshash.similar_ids(docs)


@pytest.mark.parametrize("hole", sorted(MISSING))
def test_a_series_with_holes_becomes_nullable_int64_with_the_same_index(hole: str) -> None:
    texts = pd.Series([A, MISSING[hole], A_COPY], index=["x", "y", "z"], dtype=object)
    ids = nshash.similar_ids(texts)
    assert str(ids.dtype) == "Int64" and ids.name == "similar_id"
    assert list(ids.index) == ["x", "y", "z"]
    assert ids["x"] == ids["z"] == 1 and ids.isna().tolist() == [False, True, False]


def test_a_series_without_holes_keeps_int64() -> None:
    ids = nshash.similar_ids(pd.Series([A, B, A_COPY], index=[5, 6, 7]))
    assert str(ids.dtype) == "int64" and ids.tolist() == [1, 2, 1]


def test_string_dtype_series_with_na() -> None:
    texts = pd.Series([A, None, A_COPY], dtype="string")
    assert nshash.similar_ids(texts).tolist() == [1, pd.NA, 1]


def test_na_raise_is_the_old_behaviour() -> None:
    with pytest.raises(nshash.DocumentTypeError, match="document 1"):
        nshash.similar_ids([A, None], na="raise")
    with pytest.raises(nshash.DocumentTypeError):
        nshash.similar_ids(pd.Series([A, math.nan]), na="raise")


def test_a_bad_value_is_named_by_its_place_in_the_input() -> None:
    # The holes are left out before clustering; the message still counts them.
    with pytest.raises(nshash.DocumentTypeError, match=r"^document 3\b"):
        nshash.similar_ids([None, A, None, 42])
    with pytest.raises(nshash.DocumentTypeError, match=r"index 'd'"):
        nshash.similar_ids(pd.Series([None, A, None, 42], index=list("abcd")))


def test_a_generator_is_read_once() -> None:
    assert nshash.similar_ids(doc for doc in [A, None, A_COPY]) == [1, None, 1]
    assert nshash.similar_ids(doc for doc in [A, A_COPY]) == [1, 1]


def test_unknown_na_policy() -> None:
    with pytest.raises(ValueError, match="na must be one of 'keep', 'raise', not 'drop'"):
        nshash.similar_ids([A], na="drop")  # type: ignore[call-overload]
