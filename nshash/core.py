"""NSHash: near-duplicates by the fingerprints of a document's longest sentences."""

from __future__ import annotations

import os
from typing import Any

import farmhash

from nshash.clusters import find_roots, merge
from nshash.hashing import HashFunc, resolve_hashfunc
from nshash.index import Index
from nshash.stores import HashDB
from nshash.text import ORIGINAL_MIN_LEN, SPLITS, longest_sentences, whole_text_key

FP = "fp"
STAT = "stat"
#: Value of a fingerprint found to be site boilerplate: it no longer counts.
BOILERPLATE = 0
# Separates whole-document keys from sentence keys, so a short document can
# never collide with a sentence of a longer one.
_WHOLE_TEXT_PREFIX = "\x00doc:"


def _positive_int(name: str, value: object, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}, not {value!r}")
    return value


class NSHash(Index):
    """Top-n longest sentences hash: documents sharing their longest sentences are one article.

    A document's sentences are normalised (whitespace, punctuation and HTML
    remnants removed, lower-cased); the ``n`` longest are hashed.  A document
    joins an earlier cluster when at least ``min_match`` of its fingerprints
    point to it (one suffices for documents with too few sentences); clusters
    matched that way merge.  Fingerprints that keep showing up in documents
    that are otherwise different (site headers, footers, disclaimers) are
    marked as boilerplate and stop counting.

    Args:
        name: where the store lives (``<name>.hashdb.pkl`` for ``'memory'``,
            ``<name>.hashdb`` for ``'leveldb'``); ``None`` keeps a memory store
            in memory only.
        hashfunc: ``'farmhash'`` (FarmHash Fingerprint64), ``'md5'`` or a callable
            ``str -> int | bytes``.
        hashdb: ``'memory'``, ``'leveldb'``, ``'redis'`` or a :class:`~nshash.HashDB` object.
        n: how many of the longest sentences are fingerprinted.
        split: ``'default'``; ``'design'`` (。！？ and newlines only); ``'original'``
            (nshash 0.7: also ``：:；】``, only pieces longer than 30 chars).
        normalize: remove whitespace, punctuation and HTML before hashing.
        min_len: shortest sentence (in normalised characters) worth a fingerprint.
        min_match: fingerprints that must agree for a match, when a document has
            more than ``min_match`` of them.
        boilerplate: detect fingerprints shared by unrelated documents and ignore them.
        boilerplate_after: how much evidence marks a fingerprint as boilerplate.
        extra: sentences looked up beyond ``n`` to replace ones known to be boilerplate.
        errors: how ``bytes`` documents are decoded (``'strict'`` raises).
        store_options: keyword arguments for the store opened by name
            (e.g. ``{'save_every': 1000}`` for ``'memory'``, ``{'url': ...}`` for ``'redis'``).

    Every option but ``errors`` and ``store_options`` is saved with the store;
    reopening it with other values raises :class:`~nshash.OptionsMismatchError`.

    Example:
        >>> import nshash
        >>> nsh = nshash.NSHash()  # in memory only
        >>> a = nsh.get_similar("第一句话足够长，可以作为指纹。第二句也一样长，内容不同。第三句话也很长。")
        >>> b = nsh.get_similar("记者 张三\\n第一句话足够长，可以作为指纹。第二句也一样长，内容不同。第三句话也很长。")
        >>> a == b
        True
    """

    algorithm = "nshash"

    def __init__(
        self,
        name: str | os.PathLike[str] | None = None,
        hashfunc: str | HashFunc = "farmhash",
        hashdb: str | HashDB = "memory",
        n: int = 5,
        *,
        split: str = "default",
        normalize: bool = True,
        min_len: int | None = None,
        min_match: int = 2,
        boilerplate: bool = True,
        boilerplate_after: int = 2,
        extra: int = 3,
        errors: str = "strict",
        store_options: dict[str, Any] | None = None,
    ) -> None:
        if split not in SPLITS:
            raise ValueError(f"split must be one of {', '.join(SPLITS)}, not {split!r}")
        if min_len is None:
            min_len = ORIGINAL_MIN_LEN if split == "original" else 8
        hash_name, self._safe_hash = resolve_hashfunc(hashfunc)
        # The raw C function when there is one: the wrapper's call costs ~10% of get_similar.
        self._hash: HashFunc = farmhash.fingerprint64 if hash_name == "farmhash" else self._safe_hash
        self.n = _positive_int("n", n)
        self.min_len = _positive_int("min_len", min_len)
        self.min_match = _positive_int("min_match", min_match)
        self.boilerplate_after = _positive_int("boilerplate_after", boilerplate_after)
        self.extra = _positive_int("extra", extra, minimum=0)
        self.split = split
        self.normalize = bool(normalize)
        self.boilerplate = bool(boilerplate)
        options = {
            "version": 1,
            "hashfunc": hash_name,
            "n": self.n,
            "split": split,
            "normalize": self.normalize,
            "min_len": self.min_len,
            "min_match": self.min_match,
            "boilerplate": self.boilerplate,
            "boilerplate_after": self.boilerplate_after,
            "extra": self.extra,
        }
        super().__init__(name, hashdb, options, errors=errors, store_options=store_options)

    # -- fingerprints ---------------------------------------------------------------
    def sentences(self, doc: str | bytes) -> list[str]:
        """The normalised sentences that may be fingerprinted, longest first (``n + extra`` at most)."""
        from nshash.text import coerce_document

        return self._sentences(coerce_document(doc, self.errors))

    def _sentences(self, text: str) -> list[str]:
        chosen = longest_sentences(text, self.n + self.extra, self.min_len, self.split, self.normalize)
        if chosen:
            return chosen
        whole = whole_text_key(text, self.split, self.normalize)
        # Empty and whitespace-only documents get no key at all, so they can
        # never share a fingerprint with anything.
        return [_WHOLE_TEXT_PREFIX + whole] if whole else []

    def _features(self, text: str) -> list[int]:
        sentences = self._sentences(text)
        try:
            fps = list(map(self._hash, sentences))
        except UnicodeEncodeError:  # lone surrogates: the slower, surrogate-safe path
            fps = [self._safe_hash(sentence) for sentence in sentences]
        # dict.fromkeys: two sentences hashing alike must not vote twice.
        return list(dict.fromkeys(fps)) if len(fps) > 1 else fps

    def get_nshash(self, doc: str | bytes) -> list[int]:
        """The fingerprints of ``doc``'s ``n`` longest sentences (unsigned 64-bit ints).

        This ignores what the store knows; :meth:`get_similar` skips
        fingerprints it has found to be boilerplate and looks further down.

        >>> import nshash
        >>> nshash.NSHash().get_nshash("")
        []
        """
        from nshash.text import coerce_document

        return self._features(coerce_document(doc, self.errors))[: self.n]

    # -- clustering -------------------------------------------------------------------
    def _assign(self, view: Any, candidates: list[int]) -> int:
        if not candidates:
            return int(view.allocate_id())
        values = view.get_many(FP, candidates)
        if BOILERPLATE in values and self.boilerplate:
            fps: list[int] = []
            ids: list[int | None] = []
            for fp, value in zip(candidates, values):
                if value != BOILERPLATE:
                    fps.append(fp)
                    ids.append(value)
                    if len(fps) == self.n:
                        break
        else:
            fps, ids = candidates[: self.n], values[: self.n]
        found = [value for value in ids if value]
        if not found:  # the common case: an article never seen before
            target = int(view.allocate_id())
            view.put_many(FP, [(fp, target) for fp in fps])
            return target
        roots = find_roots(view, found)
        votes: dict[int, int] = {}
        for value in found:
            root = roots[value]
            votes[root] = votes.get(root, 0) + 1
        need = self.min_match if len(fps) > self.min_match else 1
        winners = [root for root, count in votes.items() if count >= need]
        target = merge(view, winners) if winners else int(view.allocate_id())
        new = [(fp, target) for fp, value in zip(fps, ids) if value is None]
        if new:
            view.put_many(FP, new)
        if self.boilerplate:
            self._collect_evidence(view, fps, ids, roots, winners, len(new))
        return target

    def _collect_evidence(
        self,
        view: Any,
        fps: list[int],
        ids: list[int | None],
        roots: dict[int, int],
        winners: list[int],
        new_count: int,
    ) -> None:
        """Count evidence that fingerprints are boilerplate; mark those with enough.

        Evidence against a fingerprint: it matched a cluster this document was
        not put in (it is shared with an unrelated article), or it matched while
        the document brought two or more new sentences (it is shared with a
        different text, as a site footer is).
        """
        joined = set(winners)
        suspicious_join = new_count >= 2
        suspects = [fp for fp, value in zip(fps, ids) if value and (roots[value] not in joined or suspicious_join)]
        if not suspects:
            return
        counts = view.get_many(STAT, suspects)
        updated = [(fp, (count or 0) + 1) for fp, count in zip(suspects, counts)]
        view.put_many(STAT, updated)
        marked = [(fp, BOILERPLATE) for fp, count in updated if count >= self.boilerplate_after]
        if marked:
            view.put_many(FP, marked)

    def explain(self, doc: str | bytes) -> list[dict[str, Any]]:
        """For debugging a surprising id: each candidate sentence, its fingerprint and stored cluster.

        Each entry has ``sentence``, ``fingerprint``, ``cluster`` (canonical id or
        ``None``), ``boilerplate`` (bool) and ``evidence`` (boilerplate evidence count).
        """
        from nshash.text import coerce_document

        text = coerce_document(doc, self.errors)
        sentences = self._sentences(text)
        fps = [self._safe_hash(sentence) for sentence in sentences]
        values = self.store.get_many(FP, fps)
        evidence = self.store.get_many(STAT, fps)
        roots = find_roots(self.store, [v for v in values if v])
        return [
            {
                "sentence": sentence,
                "fingerprint": fp,
                "cluster": roots[value] if value else None,
                "boilerplate": value == BOILERPLATE,
                "evidence": count or 0,
            }
            for sentence, fp, value, count in zip(sentences, fps, values, evidence)
        ]
