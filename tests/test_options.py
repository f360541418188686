"""Every algorithm's options object: the one place for names, defaults, bounds and the stored form."""

from __future__ import annotations

import dataclasses
import inspect
import json
import pickle
from typing import Any

import pytest

import nshash
from nshash.algorithms import ALGORITHMS, algorithm_class, check_options
from nshash.errors import OptionError, UnknownOptionError
from nshash.index import RUN_SETTINGS
from nshash.many import get_similar_many
from nshash.options import Options, ShinglesOptions, SimHashOptions, StoredOptions
from tests.test_simhash import chinese_article, english_article, reprint

OPTIONS: dict[str, type[StoredOptions]] = {"nshash": Options, "simhash": SimHashOptions, "shingles": ShinglesOptions}


def pages() -> list[str]:
    return [english_article(1), reprint(english_article(1), 7), chinese_article(2), english_article(3)]


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_an_index_takes_exactly_its_options_objects_fields(name: str) -> None:
    cls, options = algorithm_class(name), OPTIONS[name]
    assert cls.option_names == options.names()
    # Every option the constructor takes is a field of the options object, and
    # every field is a constructor argument: a new option cannot be half added.
    parameters = set(inspect.signature(cls).parameters) - {"name", "hashdb", "store_options", "options"}
    assert parameters - set(RUN_SETTINGS) <= set(options.names())
    defaults = options()
    index = cls()
    assert index.opts == defaults
    assert index.options == defaults.stored()


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_the_stored_form_round_trips_through_json(name: str) -> None:
    options = OPTIONS[name]()
    stored = json.loads(json.dumps(options.stored()))
    assert stored["algorithm"] == name and stored["version"] == options.version
    assert type(options).from_stored(stored) == options


@pytest.mark.parametrize(
    ("options", "changes", "message"),
    [
        (SimHashOptions, {"k": 32}, "k must be < 32"),
        (SimHashOptions, {"k": 3, "blocks": 3}, "blocks must be an int >= 4"),
        (SimHashOptions, {"k": 10, "blocks": 30}, "bucket lookups per document"),
        (SimHashOptions, {"weights": "bm25"}, "weights must be one of"),
        (SimHashOptions, {"features": "lines"}, "features must be one of"),
        (SimHashOptions, {"idf": "sha256:00"}, "only with weights='tfidf'"),
        (SimHashOptions, {"weights": "tfidf", "idf": "texts"}, "idf must be an idf table's digest"),
        (ShinglesOptions, {"threshold": 1.5}, "threshold must be a number in (0, 1]"),
        (ShinglesOptions, {"num_perm": 16, "bands": 17}, "bands must be <= num_perm"),
        (ShinglesOptions, {"seed": "1"}, "seed must be an int"),
        (ShinglesOptions, {"tokenizer": "spaces"}, "tokenizer must be one of"),
        (Options, {"verify": 2}, "verify must be a number in (0, 1]"),
    ],
)
def test_bad_values_are_refused_by_the_options_object(
    options: type[StoredOptions], changes: dict[str, Any], message: str
) -> None:
    with pytest.raises(OptionError, match=message.replace("(", r"\(").replace(")", r"\)")):
        options(**changes)


@pytest.mark.parametrize("options", [Options(), SimHashOptions(), ShinglesOptions()])
def test_options_are_frozen(options: StoredOptions) -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.n = 3  # type: ignore[attr-defined]


def test_defaults_that_depend_on_other_options_are_resolved_and_stored() -> None:
    assert SimHashOptions(k=4).blocks == 5
    assert ShinglesOptions(threshold=0.5).bands == 42
    assert ShinglesOptions(threshold=0.5).stored()["bands"] == 42


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_unknown_names_are_refused_with_the_known_ones(name: str) -> None:
    cls = algorithm_class(name)
    with pytest.raises(UnknownOptionError, match="colour") as raised:
        check_options(cls, {"colour": 1})
    assert all(option in str(raised.value) for option in cls.option_names)
    assert check_options(cls, {"errors": "replace"}) == {"errors": "replace"}


@pytest.mark.parametrize(
    "index", [nshash.NSHash(), nshash.SimHash(), nshash.SimHash(weights="logtf"), nshash.Shingles(num_perm=32)]
)
def test_the_fingerprinter_alone_crosses_processes_and_computes_the_same(index: nshash.Index) -> None:
    copy = pickle.loads(pickle.dumps(index.fingerprinter))
    for page in pages():
        assert repr(copy.features(page)) == repr(index._features(page))


@pytest.mark.parametrize("algorithm", [nshash.SimHash, nshash.Shingles])
def test_worker_processes_give_the_loops_ids_for_every_algorithm(algorithm: type[nshash.Index]) -> None:
    docs = pages() * 3
    loop = algorithm()
    expected = [loop.get_similar(doc) for doc in docs]
    assert get_similar_many(algorithm(), docs, workers=2, chunk_size=2) == expected


def test_a_tfidf_simhash_takes_its_table_to_the_workers() -> None:
    sample = [english_article(seed) for seed in range(5)]
    built = nshash.SimHash(weights="tfidf", idf=sample)
    assert built.opts.idf is not None and built.opts.idf.startswith("sha256:")
    copy = pickle.loads(pickle.dumps(built.fingerprinter))
    page = english_article(9)
    assert copy.features(page) == built.fingerprint(page)
    # Without the table the weights differ: the copy really carries it.
    assert nshash.SimHash(weights="tf").fingerprint(page) != built.fingerprint(page)
