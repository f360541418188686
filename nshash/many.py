"""Many documents in one call: the online algorithm over an iterable, fingerprints in worker processes.

:meth:`nshash.Index.get_similar_many` is a thin wrapper around
:func:`get_similar_many`.  The result is exactly what a loop of
``get_similar`` followed by ``resolve_many`` gives: a document's fingerprints
(``_features``) depend only on its text and the index's options, so they may be
computed anywhere, in any order; the assignment (``_assign``), which reads and
writes the store, runs in this process, one document at a time, in input order.
In one process a chunk goes to the index's ``_similar_all``: NSHash on the
memory store keys and decides the whole chunk in one C call and one
transaction (the store's lock held for the chunk).

With ``workers > 1``, documents go to a pool of processes in chunks (one round
trip per chunk, not per document), and their fingerprints come back as one
``bytes`` a chunk: :mod:`nshash.packed`'s layout, which NSHash with its C
accelerator decides in one C call (``_assign_packed``), or else flat arrays.
The pool is started with ``forkserver`` (``spawn`` where there is none), never
``fork``.  At most ``2 * workers`` chunks are read ahead of the one being
assigned, so a stream of any length takes bounded memory.

The assignment stays sequential, so the speed-up is bounded by the share of
the time spent in ``_features``; see ``benchmarks/results/batch_workers.md``.
"""

from __future__ import annotations

import json
import multiprocessing
import pickle
import sys
from array import array
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence, Sized
from concurrent.futures import Future, ProcessPoolExecutor
from functools import partial
from itertools import chain
from typing import TYPE_CHECKING, Any, Final, Optional, Union

from nshash._accel import speedups
from nshash.errors import (
    ArgumentError,
    ArgumentTypeError,
    DocumentDecodeError,
    DocumentTypeError,
    NSHashError,
    missing_dependency,
)
from nshash.options import positive_int
from nshash.packed import pack
from nshash.stores.base import HashDB
from nshash.stores.view import StoreView
from nshash.text import coerce_document

if TYPE_CHECKING:  # for annotations only: index.py imports this module, never the other way round
    from nshash.index import Index

#: Documents per unit of work: large enough that a round trip to a worker is
#: cheap next to fingerprinting the chunk, small enough to keep memory low
#: (measured best of 64 to 1024 on 2 cores; see the benchmark).
DEFAULT_CHUNK_SIZE: Final = 512

# Store metadata: documents added through get_similar_many and the highest id it
# has seen, for `nshash stats`.
_COUNTS_KEY: Final = "many_counts"

# Not 'fork': its child would inherit other threads' locks (LevelDB's, the
# caller's), and in a VM it measured slower (copy-on-write pages).
_START_METHOD: Final = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"

# A chunk's fingerprints (or its pages' features packed in one bytes: nshash.packed).
Chunk = Union[list[Any], bytes]
# A chunk of fingerprints, and the error that stopped it (a bad document), if any.
Batch = tuple[list[Any], Optional[NSHashError]]
Fingerprint = Callable[[Sequence[Any], int], tuple[Chunk, Optional[NSHashError]]]


def get_similar_many(
    index: Index,
    docs: Iterable[str | bytes],
    workers: int = 1,
    progress: bool = False,
    *,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
) -> list[int]:
    """The final (resolved) cluster id of every document of ``docs``, in order.

    Args:
        index: the index documents are added to.
        docs: ``str``/``bytes`` documents; any iterable, read lazily.
        workers: processes computing fingerprints; ``1`` computes them here, and
            so does an index with :attr:`~nshash.Index.cheap_fingerprints`.
        progress: show a progress bar on stderr (needs ``nshash[progress]``).
        chunk_size: documents per unit of work sent to a worker.

    Raises:
        DocumentTypeError, DocumentDecodeError: a bad document; the message
            gives its position.  The documents before it have been added, as
            with a loop of ``get_similar``.
        ValueError: ``workers > 1`` with an index that has to be sent to a
            worker but cannot be (e.g. a ``hashfunc`` that is a lambda).

    >>> import nshash
    >>> from nshash.many import get_similar_many
    >>> text = "A long enough first sentence here. And another long one too."
    >>> get_similar_many(nshash.NSHash(), [text, "Something else entirely, long enough.", text])
    [1, 2, 1]
    """
    chunks = assigned_chunks(index, docs, workers, chunk_size)
    if progress:
        _tqdm()  # fail now, not after the first chunk, when tqdm is missing
    total = len(docs) if isinstance(docs, Sized) else None
    raw: list[int] = []
    bar = None
    try:
        for ids in chunks:
            raw += ids
            _add_counts(index.store, len(ids), max(ids, default=0))
            if progress:
                bar = bar or _tqdm()(total=total, unit="doc", file=sys.stderr, dynamic_ncols=True)
                bar.update(len(ids))
    finally:
        if bar is not None:
            bar.close()
    return index.resolve_many(raw)


def assigned_chunks(
    index: Index, docs: Iterable[str | bytes], workers: int = 1, chunk_size: int = DEFAULT_CHUNK_SIZE
) -> Iterator[list[int]]:
    """The raw ids :meth:`~nshash.Index.get_similar` gives ``docs``, a chunk at a time, in order.

    What :func:`get_similar_many` and :func:`nshash.batch.similar_ids` run; the
    arguments are checked now, the documents read as the chunks are taken.
    """
    if isinstance(docs, (str, bytes, bytearray)):
        raise ArgumentTypeError("docs must be an iterable of documents, not a single document")
    workers = positive_int("workers", workers)
    chunk_size = positive_int("chunk_size", chunk_size)
    if workers == 1 or index.cheap_fingerprints:
        # Each text keyed and decided at once, as get_similar does (NSHash on the memory store: a chunk
        # in one C call).
        texts = _serial(partial(_fingerprint, _text, index.errors), _chunks(docs, chunk_size))
        return (index._similar_all(chunk) for chunk in texts)
    # As Python objects, a page's features cost the parent more to unpickle than the worker saved
    # it (two workers were 0.70-0.74x one process); packed, the C reads them straight into its decision.
    packed = _decides_packed(index)
    fingerprint = partial(_packed_fingerprint if packed else _fingerprint, index.fingerprinter.features, index.errors)
    decide: Callable[[Any], list[int]] = index._assign_packed if packed else index._assign_all  # type: ignore[attr-defined]
    return (decide(chunk) for chunk in _in_workers(fingerprint, docs, chunk_size, workers))


def document_counts(store: HashDB) -> dict[str, int] | None:
    """``{'documents': N, 'highest_id': M}`` added through :func:`get_similar_many`, or ``None``.

    Single ``get_similar`` calls are not counted.
    """
    raw = store.get_meta(_COUNTS_KEY)
    return None if raw is None else {key: int(value) for key, value in json.loads(raw).items()}


# -- one process ----------------------------------------------------------------------------


def _text(text: str) -> str:
    """What the serial path keeps of a document: its decoded text (keyed and decided together)."""
    return text


def _fingerprint(features_of: Callable[[str], Any], errors: str, docs: Sequence[Any], offset: int) -> Batch:
    """Fingerprints of ``docs`` (at ``offset`` in the input) up to the first bad one, and its error."""
    batch: list[Any] = []
    for position, doc in enumerate(docs, offset):
        try:
            text = coerce_document(doc, errors)
        except (DocumentTypeError, DocumentDecodeError) as exc:
            return batch, type(exc)(f"document {position}: {exc}")
        batch.append(features_of(text))
    return batch, None


def _packed_fingerprint(
    features_of: Callable[[str], Any], errors: str, docs: Sequence[Any], offset: int
) -> tuple[bytes, NSHashError | None]:
    """:func:`_fingerprint`, the features packed in one ``bytes`` (:func:`nshash.packed.pack`)."""
    batch, error = _fingerprint(features_of, errors, docs, offset)
    return pack(batch), error


def _decides_packed(index: Index) -> bool:
    """Whether ``index`` decides a chunk of packed features (NSHash with its C accelerator: in one C call)."""
    return speedups is not None and callable(getattr(index, "_assign_packed", None))


def _chunks(docs: Iterable[Any], size: int) -> Iterator[tuple[int, list[Any]]]:
    """``(offset, documents)`` in lists of ``size``, bytes left undecoded (a worker decodes them).

    A document that is neither text nor bytes ends the stream (after the
    chunk before it): it may not even survive the trip to a worker.
    """
    chunk: list[Any] = []
    offset = 0
    for position, doc in enumerate(docs):
        if isinstance(doc, (bytearray, memoryview)):
            doc = bytes(doc)  # decoded later, with the index's errors=, like bytes
        elif not isinstance(doc, (str, bytes)):
            try:
                coerce_document(doc)  # raises the error for a value that is no document
            except DocumentTypeError as exc:
                if chunk:
                    yield offset, chunk
                raise DocumentTypeError(f"document {position}: {exc}") from exc
        chunk.append(doc)
        if len(chunk) == size:
            yield offset, chunk
            offset, chunk = position + 1, []
    if chunk:
        yield offset, chunk


def _serial(
    fingerprint: Callable[[Sequence[Any], int], Batch], chunks: Iterator[tuple[int, list[Any]]]
) -> Iterator[list[Any]]:
    for offset, chunk in chunks:
        batch, error = fingerprint(chunk, offset)
        yield batch
        if error is not None:
            raise error


# -- worker processes -----------------------------------------------------------------------
_worker_fingerprint: Fingerprint | None = None  # set in a worker by _init_worker


def _init_worker(fingerprint: Fingerprint) -> None:
    global _worker_fingerprint
    _worker_fingerprint = fingerprint


def _work(offset: int, chunk: list[Any]) -> tuple[_Packed, NSHashError | None]:
    """In a worker: the fingerprints of ``chunk`` (at ``offset`` in the input)."""
    fingerprint = _worker_fingerprint
    if fingerprint is None:  # pragma: no cover - the pool always runs _init_worker first
        raise NSHashError("nshash worker not initialised")
    batch, error = fingerprint(chunk, offset)
    return (batch if isinstance(batch, bytes) else _pack(batch)), error


def _in_workers(fingerprint: Fingerprint, docs: Iterable[Any], size: int, workers: int) -> Iterator[Chunk]:
    """Fingerprints of each chunk, in order, computed by ``workers`` processes.

    The pool has up to ``2 * workers`` chunks to work on while this process
    assigns.  (This process does not fingerprint chunks itself while it waits:
    measured, that made the sequential part longer and the whole slower.)  A
    bad document is raised once the chunks before it have been yielded, with
    the part of its chunk before it, so the caller adds exactly what a loop
    would.
    """
    try:
        pickle.dumps(fingerprint)
    except Exception as exc:  # any pickling failure means the same: it cannot cross processes
        raise ArgumentError(
            "workers > 1 needs an index that can be sent to another process, and this one cannot "
            f"({type(exc).__name__}: {exc}); use a named hashfunc or workers=1"
        ) from exc
    tasks = _chunks(docs, size)
    pool = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=_context(),
        initializer=_init_worker,
        initargs=(fingerprint,),
    )
    inflight: deque[Future[tuple[_Packed, NSHashError | None]]] = deque()
    pending_error: Exception | None = None

    def submit_next() -> None:
        nonlocal pending_error
        if pending_error is not None:
            return
        try:
            offset, chunk = next(tasks)
        except StopIteration:
            return
        except Exception as exc:  # a bad document: raised once the chunks before it are done
            pending_error = exc
            return
        inflight.append(pool.submit(_work, offset, chunk))

    try:
        for _ in range(2 * workers):
            submit_next()
        while inflight:
            packed, error = inflight.popleft().result()
            if error is None:
                submit_next()  # keep the workers busy while the caller assigns
            yield _unpack(packed)
            if error is not None:
                raise error
        if pending_error is not None:
            raise pending_error
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _context() -> multiprocessing.context.BaseContext:
    """The pool's start method; a forkserver that has imported nshash, once started, for every later pool.

    Its workers then start in ~25 ms instead of ~0.3 s (each importing nshash): measured on
    this machine over four calls with 50 documents each, 0.31-0.35 s a call against 0.02-0.03 s.
    The modules the server preloads already (``__main__`` by default) stay.
    """
    context = multiprocessing.get_context(_START_METHOD)
    if _START_METHOD == "forkserver":
        from multiprocessing import forkserver  # not imported where there is none (Windows)

        server = forkserver._forkserver
        preload = list(getattr(server, "_preload_modules", ["__main__"]))
        if "nshash" not in preload:
            context.set_forkserver_preload([*preload, "nshash"])
    return context


# Fingerprints as they come back from a worker: the batch as is, or (type, columns)
# when each document's features are int lists (or a NamedTuple of them), each
# column being (lengths, values) as two flat arrays.
# (or, already packed by the worker, one bytes: nshash.packed).
_Packed = Union[list[Any], bytes, tuple[Optional[type], list[tuple[bytes, bytes]]]]


def _pack(batch: list[Any]) -> _Packed:
    """Features made of unsigned 64-bit int lists as flat arrays; anything else as is.

    Unpickling features one int at a time cost the parent ~7 us per document
    (16 keys in a NamedTuple), a tenth of the whole per-document work; two
    ``bytes`` per field cost a copy (see the benchmark).
    """
    if not batch:
        return batch
    kind = type(batch[0])
    if kind is list:
        shape: type | None = None
        rows: list[Any] = [(features,) for features in batch]
    elif issubclass(kind, tuple) and hasattr(kind, "_fields"):
        shape, rows = kind, batch
    else:
        return batch
    if any(type(features) is not kind for features in batch):
        return batch
    columns: list[tuple[bytes, bytes]] = []
    for column in zip(*rows):
        if any(type(values) is not list for values in column):
            return batch
        try:
            flat = array("Q", chain.from_iterable(column))
        except (TypeError, OverflowError):  # not all ints in 0 .. 2**64-1
            return batch
        columns.append((array("I", map(len, column)).tobytes(), flat.tobytes()))
    return shape, columns


def _unpack(packed: _Packed) -> Chunk:
    if isinstance(packed, (list, bytes)):
        return packed
    shape, columns = packed
    fields: list[list[list[int]]] = []
    for lengths, raw in columns:
        flat = array("Q")
        flat.frombytes(raw)
        values = flat.tolist()
        lists: list[list[int]] = []
        start = 0
        for length in array("I", lengths):
            lists.append(values[start : start + length])
            start += length
        fields.append(lists)
    if shape is None:
        return fields[0]
    return [shape(*row) for row in zip(*fields)]


# -- progress and counts --------------------------------------------------------------------
def _tqdm() -> Any:
    try:
        from tqdm import tqdm
    except ImportError as exc:
        raise missing_dependency("tqdm", "progress") from exc
    return tqdm


def _add_counts(store: HashDB, documents: int, highest_id: int) -> None:
    def update(view: StoreView) -> None:
        raw = view.get_meta(_COUNTS_KEY)
        counts = {"documents": 0, "highest_id": 0} if raw is None else json.loads(raw)
        counts["documents"] += documents
        counts["highest_id"] = max(counts["highest_id"], highest_id)
        view.set_meta(_COUNTS_KEY, json.dumps(counts, sort_keys=True))

    store.transaction(update)
