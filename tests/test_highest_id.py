"""``HashDB.highest_id``: what the Scrapy pipeline compares a returned id with to call a page new."""

from __future__ import annotations

import pytest

import nshash
from tests.conftest import PERSISTENT_KINDS, StoreFactory


def test_highest_id_follows_allocation(make_store: StoreFactory, store_kind: str) -> None:
    store = make_store()
    if store_kind == "readme":  # a user's store need not implement it
        assert store.highest_id() is None
        return
    assert store.highest_id() == 0
    first = store.allocate_id()
    assert store.highest_id() == first
    second = store.allocate_id()
    assert second > first and store.highest_id() == second


def test_highest_id_of_a_reopened_store_covers_every_id_handed_out(make_store: StoreFactory, store_kind: str) -> None:
    if store_kind not in PERSISTENT_KINDS:
        pytest.skip("only persistent stores are reopened")
    store = make_store()
    handed_out = [store.allocate_id() for _ in range(5)]
    store.close()
    again = make_store()
    highest = again.highest_id()
    assert highest is not None and highest >= max(handed_out)
    assert again.allocate_id() > highest


def test_highest_id_after_close_is_refused(make_store: StoreFactory, store_kind: str) -> None:
    store = make_store()
    store.close()
    with pytest.raises(nshash.StoreClosedError):
        store.highest_id()
