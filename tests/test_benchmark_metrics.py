"""Tests for the benchmark harness: metrics, the 2019 baseline and the peers.

The metrics are checked against brute-force O(N^2) pair loops on random
labelings and against small cases worked out by hand.
"""

from __future__ import annotations

import hashlib
import itertools
import random
import sys
from collections.abc import Hashable, Sequence
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from metrics import (
    adjusted_rand_index,
    arrival_errors,
    evaluate,
    pair_counts,
    pair_scores,
)
from original import OriginalNSHash, fingerprints
from peers import (
    PEER_NAMES,
    Unavailable,
    UnionFind,
    build_methods,
    parse_variant,
)

# --- brute-force references -------------------------------------------------


def brute_pairs(true: Sequence[Hashable], pred: Sequence[Hashable]) -> tuple[int, int, int, int]:
    """(both, true only, pred only, neither) over all unordered pairs."""
    a = b = c = d = 0
    for i, j in itertools.combinations(range(len(true)), 2):
        st, sp = true[i] == true[j], pred[i] == pred[j]
        a += st and sp
        b += st and not sp
        c += sp and not st
        d += not st and not sp
    return a, b, c, d


def brute_ari(true: Sequence[Hashable], pred: Sequence[Hashable]) -> float:
    """ARI in its pair-counting form: 2(ad - bc) / ((a+b)(b+d) + (a+c)(c+d))."""
    a, b, c, d = brute_pairs(true, pred)
    den = (a + b) * (b + d) + (a + c) * (c + d)
    return 1.0 if den == 0 else 2 * (a * d - b * c) / den


def brute_arrival(true: Sequence[Hashable], pred: Sequence[Hashable]) -> tuple[int, int]:
    dropped = missed = 0
    for i in range(len(true)):
        t_earlier = any(true[j] == true[i] for j in range(i))
        p_earlier = any(pred[j] == pred[i] for j in range(i))
        dropped += p_earlier and not t_earlier
        missed += t_earlier and not p_earlier
    return dropped, missed


def random_labelings(seed: int) -> tuple[list[int], list[str]]:
    rng = random.Random(seed)
    n = rng.randint(0, 40)
    k_true, k_pred = rng.randint(1, 8), rng.randint(1, 8)
    true = [rng.randrange(k_true) for _ in range(n)]
    # Predicted labels are strings to prove the vocabularies never need to meet.
    pred = [f"c{rng.randrange(k_pred)}" for _ in range(n)]
    return true, pred


# --- metrics -----------------------------------------------------------------


@pytest.mark.parametrize("seed", range(200))
def test_pair_counts_match_brute_force(seed: int) -> None:
    true, pred = random_labelings(seed)
    a, b, c, d = brute_pairs(true, pred)
    counts = pair_counts(true, pred)
    assert counts.same_both == a
    assert counts.same_true == a + b
    assert counts.same_pred == a + c
    assert counts.total == a + b + c + d


@pytest.mark.parametrize("seed", range(200))
def test_ari_matches_pair_counting_form(seed: int) -> None:
    true, pred = random_labelings(seed)
    assert adjusted_rand_index(pair_counts(true, pred)) == pytest.approx(brute_ari(true, pred))


@pytest.mark.parametrize("seed", range(200))
def test_arrival_errors_match_brute_force(seed: int) -> None:
    true, pred = random_labelings(seed)
    assert arrival_errors(true, pred) == brute_arrival(true, pred)


def test_hand_computed_case() -> None:
    # Contingency: (0,0)=2 (0,1)=1 (1,1)=2 (2,2)=1 -> 2 pairs together in both;
    # true clusters 3,2,1 -> 4 pairs; predicted 2,3,1 -> 4 pairs; 15 pairs.
    true = [0, 0, 0, 1, 1, 2]
    pred = [0, 0, 1, 1, 1, 2]
    s = evaluate(true, pred)
    assert (s.precision, s.recall, s.f1) == (0.5, 0.5, 0.5)
    # (2 - 16/15) / (4 - 16/15) = 14/44
    assert s.ari == pytest.approx(7 / 22)
    # doc 3 (true 1 is new, pred 1 was seen at doc 2) is wrongly dropped;
    # doc 2 (true 0 seen, pred 1 new) is missed.
    assert (s.wrongly_dropped, s.missed) == (1, 1)
    assert (s.n_docs, s.n_first) == (6, 3)


def test_known_ari_value() -> None:
    # A textbook value: ARI([0,0,1,2], [0,0,1,1]) = 4/7.
    assert adjusted_rand_index(pair_counts([0, 0, 1, 2], [0, 0, 1, 1])) == pytest.approx(4 / 7)


def test_perfect_and_degenerate_labelings() -> None:
    true = ["a", "a", "b", "c", "c", "c"]
    perfect = evaluate(true, [9, 9, 7, 5, 5, 5])
    assert (perfect.precision, perfect.recall, perfect.f1, perfect.ari) == (1, 1, 1, 1)
    assert (perfect.wrongly_dropped, perfect.missed) == (0, 0)
    # Everything merged: all pairs claimed, recall 1, every unique doc dropped.
    lumped = evaluate(true, [0] * 6)
    assert lumped.recall == 1.0
    assert lumped.precision == pytest.approx(4 / 15)
    assert lumped.wrongly_dropped == 2
    # Nothing merged: no claims, so precision is vacuously 1, recall 0.
    split = evaluate(true, list(range(6)))
    assert (split.precision, split.recall, split.f1) == (1.0, 0.0, 0.0)
    assert split.missed == 3
    assert split.ari == pytest.approx(0.0)
    # Both all-singletons: identical labelings, ARI 1.
    assert evaluate([1, 2, 3], ["x", "y", "z"]).ari == 1.0
    assert evaluate([], []).f1 == 1.0


def test_scores_do_not_depend_on_label_names() -> None:
    true, pred = random_labelings(7)
    renamed = [f"other-{p}" for p in pred]
    assert evaluate(true, pred) == evaluate(true, renamed)


def test_arrival_order_matters() -> None:
    # Same partition, different arrival order: the first doc of a cluster is
    # never dropped or missed, whichever it is.
    assert arrival_errors(["a", "b"], [1, 1]) == (1, 0)
    assert arrival_errors(["a", "a", "b"], [1, 2, 2]) == (1, 1)
    # Doc 2 lands in the wrong cluster, yet dropping it is still the right
    # call: these two metrics judge the keep/drop decision only.
    assert arrival_errors(["a", "b", "a"], [1, 2, 2]) == (0, 0)


def test_length_mismatch_is_an_error() -> None:
    with pytest.raises(ValueError, match="same length"):
        evaluate([1, 2], [1])


def test_pair_scores_zero_when_nothing_right() -> None:
    counts = pair_counts([0, 0, 1, 1], [0, 1, 0, 1])
    assert pair_scores(counts) == (0.0, 0.0, 0.0)


# --- the 2019 baseline ---------------------------------------------------------

LONG_A = "甲" * 31
LONG_B = "乙" * 35
LONG_C = "丙" * 40


def md5(s: str) -> str:
    return hashlib.md5(s.encode("utf-8")).hexdigest()


def test_fingerprints_pick_longest_pieces_longest_first() -> None:
    text = f"{LONG_A}。短句！{LONG_C}\n{LONG_B}：x"
    assert fingerprints(text) == [md5(LONG_C), md5(LONG_B), md5(LONG_A)]
    assert fingerprints(text, n=1) == [md5(LONG_C)]


def test_fingerprints_separators_and_threshold() -> None:
    # ASCII '.', '!' and ',' do not split; ':' does. 30 chars is not > 30.
    assert fingerprints("a" * 20 + "." + "b" * 20) == [md5("a" * 20 + "." + "b" * 20)]
    assert fingerprints("x" * 30 + ":" + "y" * 31) == [md5("y" * 31)]


def test_fingerprints_fall_back_to_all_pieces_even_empty() -> None:
    # No piece is long: every piece, the empty one after '。' included, counts.
    assert fingerprints("短。") == [md5("短"), md5("")]


def test_original_ids_min_rule_and_no_merging() -> None:
    nsh = OriginalNSHash()
    assert nsh.get_similar(LONG_A) == 1
    assert nsh.get_similar(LONG_B) == 2
    # Matches both clusters: gets the smaller id, and every hash now says 1.
    assert nsh.get_similar(f"{LONG_B}。{LONG_A}") == 1
    assert nsh.db[md5(LONG_B)] == 1
    assert nsh.get_similar(LONG_B) == 1
    assert nsh.get_similar(LONG_C) == 3


def test_original_short_docs_meet_on_the_empty_piece() -> None:
    # A quirk kept on purpose: two unrelated short texts ending in '。'.
    nsh = OriginalNSHash()
    assert nsh.get_similar("你好。") == nsh.get_similar("再见。")


def test_original_union_find_merges_what_the_original_left_apart() -> None:
    texts = [LONG_B, LONG_A, f"{LONG_A}。{LONG_B}"]
    plain, merged = build_methods(["original", "original+uf"])
    labels = plain.fit_labels(texts)
    # Doc 1 keeps id 2, although doc 2 later showed it is the same as doc 0.
    assert labels[1] != labels[0] == labels[2]
    merged_labels = merged.fit_labels(texts)
    assert len(set(merged_labels)) == 1


# --- peers -------------------------------------------------------------------


def test_union_find_names_sets_by_smallest_key() -> None:
    uf = UnionFind()
    uf.union(5, 3)
    uf.union(9, 8)
    uf.union(8, 5)
    assert {uf.find(x) for x in (3, 5, 8, 9)} == {3}
    assert uf.find(4) == 4


def test_parse_variant() -> None:
    assert parse_variant('n=3={"n": 3, "split": "original"}') == (
        "n=3",
        {"n": 3, "split": "original"},
    )
    with pytest.raises(ValueError):
        parse_variant("no-json")


def test_build_methods_rejects_unknown_names() -> None:
    with pytest.raises(ValueError, match="unknown"):
        build_methods(["nope"])


def test_variants_from_command_line_are_added() -> None:
    (m,) = build_methods(["mine"], variants=[("mine", {"n": 2})])
    assert m.name == "mine"


def synthetic_corpus(reprint: bool, seed: int = 0) -> tuple[list[str], list[int]]:
    """Unrelated random Chinese-like documents, each followed by a copy.

    With ``reprint`` the copy gets a source line and an editor's footer.
    """
    rng = random.Random(seed)
    alphabet = [chr(0x4E00 + i) for i in range(3000)]

    def sentence() -> str:
        return "".join(rng.choices(alphabet, k=rng.randint(35, 60)))

    texts, labels = [], []
    for k in range(20):
        body = "。".join(sentence() for _ in range(8)) + "。"
        texts.append(body)
        labels.append(k)
        texts.append(f"转载自某网站。{body}责任编辑：某某" if reprint else body)
        labels.append(k)
    return texts, labels


def run(name: str, texts: list[str]) -> list[Hashable]:
    (method,) = build_methods([name])
    try:
        return method.fit_labels(texts)
    except Unavailable as e:
        pytest.skip(str(e))


@pytest.mark.parametrize("name", PEER_NAMES)
def test_every_peer_pairs_exact_copies_only(name: str) -> None:
    texts, labels = synthetic_corpus(reprint=False)
    s = evaluate(labels, run(name, texts))
    assert (s.precision, s.recall, s.wrongly_dropped, s.missed) == (1.0, 1.0, 0, 0)


@pytest.mark.parametrize("name", PEER_NAMES)
def test_no_peer_merges_unrelated_documents(name: str) -> None:
    texts, labels = synthetic_corpus(reprint=True)
    assert evaluate(labels, run(name, texts)).precision == 1.0


@pytest.mark.parametrize("name", ["original", "longest-sentence", "datasketch-lsh"])
def test_sentence_and_minhash_peers_find_reprints(name: str) -> None:
    # A 12-character header and footer on ~400 random characters: the
    # longest sentences survive and Jaccard stays ~0.9. (simhash with k=3 may
    # miss these: a few new 4-grams flip more than 3 of its 64 bits.)
    texts, labels = synthetic_corpus(reprint=True)
    assert evaluate(labels, run(name, texts)).recall == 1.0


def test_default_nshash_finds_plain_reprints() -> None:
    texts, labels = synthetic_corpus(reprint=True)
    assert evaluate(labels, run("nshash", texts)).f1 == 1.0
