"""The ``nshash`` command: ``dedup`` files of documents, ``explain`` a document, ``stats`` of an index.

    nshash dedup pages.jsonl -o pages.ids.jsonl --field content
    nshash dedup pages.csv -o unique.parquet --drop-duplicates
    cat pages.jsonl | nshash dedup - --name news --store leveldb > out.jsonl
    nshash explain article.txt --name news --store leveldb
    nshash stats --name news --store leveldb

Without ``--name``, ``dedup`` uses the batch algorithm (:func:`nshash.similar_ids`),
which sees every document before it decides which sentences are boilerplate.
That holds for standard input too: the ids are final only once the last
document has been read (clusters merge), so nothing could be written earlier
anyway, and ``cat f | nshash dedup -`` must give the same ids as
``nshash dedup f``.  With ``--name`` the documents are added online to that
(new or existing) index, exactly as a crawler calling ``get_similar`` would.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import json
import os
import sys
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Final

from nshash import _accel
from nshash.algorithms import DEFAULT as DEFAULT_ALGORITHM
from nshash.algorithms import algorithm_class, check_options
from nshash.algorithms import open as open_index
from nshash.cli_parser import build_parser
from nshash.encoding import check_encoding, decode_bytes
from nshash.errors import (
    MissingDependencyError,
    NSHashError,
    OptionError,
    StoreError,
    StoreLockedError,
)
from nshash.index import Index
from nshash.io import STDIO, InputError, read_table
from nshash.log import get_logger
from nshash.output import write_table

log = get_logger(__name__)

#: Exit codes (also listed in ``nshash --help``).
EXIT_OK: Final = 0
EXIT_INPUT: Final = 1  # the input file or document: missing, malformed, no such column
EXIT_USAGE: Final = 2  # the command line (argparse uses 2 as well)
EXIT_DEPENDENCY: Final = 3  # an optional extra is not installed
EXIT_STORE: Final = 4  # the index: missing, locked, corrupt, built with other options
EXIT_INTERRUPTED: Final = 130

# Fields of NSHash.explain rows that hold fingerprints.
_HEX_FIELDS: Final = ("fingerprint", "fingerprints", "keys")
# Below this many documents a progress bar would only flicker.
_PROGRESS_MIN_DOCS: Final = 10_000


class UsageError(NSHashError, ValueError):
    """A command-line argument that cannot be used as given."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``nshash`` command; return its exit code."""
    parser = build_parser({"dedup": _dedup, "explain": _explain, "stats": _stats})
    args = parser.parse_args(argv)
    try:
        if getattr(args, "encoding", None) is not None:
            check_encoding(args.encoding)
        return int(args.run(args))
    except (UsageError, OptionError) as exc:
        return _fail(exc, EXIT_USAGE)
    except LookupError as exc:  # --encoding
        return _fail(exc, EXIT_USAGE)
    except StoreLockedError as exc:
        hint = "another process has the index open (a crawl?): stop it first, or share the index through --store redis"
        return _fail(f"{exc} ({hint})", EXIT_STORE)
    except MissingDependencyError as exc:
        return _fail(exc, EXIT_DEPENDENCY)
    except StoreError as exc:
        return _fail(exc, EXIT_STORE)
    except (NSHashError, ValueError) as exc:
        # ValueError: an option value the library rejects (n=0, unknown split, ...).
        return _fail(exc, EXIT_INPUT if isinstance(exc, NSHashError) else EXIT_USAGE)
    except KeyboardInterrupt:
        print("nshash: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader of our output went away (`nshash dedup - | head`): not an error of ours.
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK


def _fail(exc: BaseException | str, code: int) -> int:
    message = " ".join(str(exc).split())  # one line, whatever the message held
    print(f"nshash: error: {message}", file=sys.stderr)
    return code


# -- dedup ---------------------------------------------------------------------------------
def _dedup(args: argparse.Namespace) -> int:
    options = _key_values(args.option, "--option")
    store_options = _key_values(args.store_option, "--store-option")
    if args.workers < 1:
        raise UsageError(f"--workers must be >= 1, not {args.workers}")
    if args.name is None and args.store != "memory":
        raise UsageError(f"--store {args.store} needs --name (the index to create or continue)")
    table = read_table(args.input, encoding=args.encoding)
    texts = table.texts(args.field)
    progress = _want_progress(args.progress, len(texts))
    if args.name is not None or args.online or args.algorithm not in (None, "nshash"):
        with _open_index(args.store, args.name, store_options, args.algorithm, options, create=True) as index:
            ids = index.get_similar_many(texts, workers=args.workers, progress=progress)
    else:
        if store_options:
            raise UsageError("--store-option needs --name (batch mode keeps no index)")
        ids = _batch_ids(texts, options, workers=args.workers, progress=progress)
    table.add_column(args.id_column, ids)
    clusters = len(set(ids))
    if args.drop_duplicates:
        seen: set[int] = set()
        table.keep([not (sid in seen or seen.add(sid)) for sid in ids])  # type: ignore[func-returns-value]
    write_table(table, args.output)
    if not args.quiet:
        where = "standard output" if args.output == STDIO else args.output
        kept = f", {_counted(len(table), 'row')} written" if args.drop_duplicates else ""
        found = ", ".join(
            _counted(n, word)
            for n, word in ((len(ids), "document"), (clusters, "cluster"), (len(ids) - clusters, "duplicate"))
        )
        print(f"nshash: {found}{kept} -> {where}", file=sys.stderr)
    return EXIT_OK


def _counted(count: int, word: str) -> str:
    """``"1 document"``, ``"2,000 documents"``."""
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def _batch_ids(texts: list[str], options: dict[str, Any], workers: int, progress: bool) -> list[int]:
    from nshash.batch import similar_ids

    # The batch keys and assigns each document as it reads it (with workers, a few chunks ahead): the bar counts them.
    docs: Iterable[str] = _progress_bar(texts, "doc") if progress else texts
    return [int(sid) for sid in similar_ids(docs, workers=workers, **options)]


def _progress_bar(items: Sequence[str], unit: str) -> Iterable[str]:
    try:
        from tqdm import tqdm
    except ImportError as exc:
        raise MissingDependencyError(
            "--progress needs tqdm; install it with: pip install 'nshash[progress]' (or use --no-progress)"
        ) from exc
    bar: Iterable[str] = tqdm(items, total=len(items), unit=f" {unit}", file=sys.stderr, dynamic_ncols=True)
    return bar


def _want_progress(flag: bool | None, count: int) -> bool:
    if flag is not None:
        return flag
    if not sys.stderr.isatty() or count < _PROGRESS_MIN_DOCS:
        return False
    # Automatic bars are a nicety: without tqdm, run without one.
    return importlib.util.find_spec("tqdm") is not None


# -- explain -------------------------------------------------------------------------------
def _explain(args: argparse.Namespace) -> int:
    store_options = _key_values(args.store_option, "--store-option")
    doc = args.document if args.text else _read_document(args.document, args.encoding)
    with _open_index(args.store, args.name, store_options, None, {}, create=False) as index:
        explain = getattr(index, "explain", None)
        if explain is None:
            raise UsageError(f"the {index.algorithm!r} algorithm has no explain")
        rows: list[dict[str, Any]] = explain(doc)
        explain_decision = getattr(index, "explain_decision", None)
        why: dict[str, Any] | None = explain_decision(doc) if explain_decision is not None else None
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return EXIT_OK
    if not rows:
        print("no sentence to fingerprint: this document matches nothing and gets a new id")
        return EXIT_OK
    # Every field the algorithm reports, in its order, the sentence last (it may be clipped).
    fields = [key for key in rows[0] if key != "sentence"] + ["sentence"]
    table = [["#", *fields]]
    for number, row in enumerate(rows, 1):
        cells = [_cell(field, row.get(field)) for field in fields[:-1]]
        table.append([str(number), *cells, _clip(str(row.get("sentence", "")), args.width)])
    print(_format_table(table))
    matched: dict[int, int] = {}
    for row in rows:
        if row.get("cluster") is not None and not row.get("boilerplate"):
            matched[row["cluster"]] = matched.get(row["cluster"], 0) + 1
    if matched:
        listed = ", ".join(f"{cluster} ({count} sentences)" for cluster, count in sorted(matched.items()))
        print(f"\nstored clusters matched: {listed}")
    else:
        print("\nno stored cluster matched: this document would start a new cluster")
    if why is not None and why["candidates"]:
        _print_decision(why)
    return EXIT_OK


def _print_decision(why: dict[str, Any]) -> None:
    """NSHash.explain_decision: each candidate cluster, what it scored and needed, and what was decided."""
    fields = ["cluster", "sentences", "frame lines", "same site", "containment", "needs", "passed", "rule"]
    rows = [
        {**c, "frame lines": len(c.get("shared_frame", [])), "same site": c.get("same_site")} for c in why["candidates"]
    ]
    table = [fields] + [
        [f"{c[field]:.3f}" if isinstance(c.get(field), float) else _cell(field, c.get(field)) for field in fields]
        for c in rows
    ]
    print("\nverified against each candidate cluster:\n" + _format_table(table))
    if why["is_new"]:
        print("decision: a new cluster")
    else:
        print(f"decision: cluster {why['similar_id']} (containment {why['score']:.3f})")


def _cell(field: str, value: Any) -> str:
    if field in _HEX_FIELDS:  # 64-bit hashes read better (and align) in hex
        values = value if isinstance(value, list) else [value]
        return ",".join(f"{item:016x}" for item in values)
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _read_document(arg: str, encoding: str) -> str:
    """``-``: standard input; else a file, which must exist (``--text`` gives literal text)."""
    if arg == STDIO:
        return decode_bytes(sys.stdin.buffer.read(), "<stdin>", encoding)
    if os.path.isdir(arg):
        raise InputError(f"{arg}: is a directory; explain takes one document (a file, - or --text TEXT)")
    if not os.path.exists(arg):
        raise InputError(f"{arg}: no such file (to explain the text itself: nshash explain --text {_quote(arg)} ...)")
    try:
        with open(arg, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise InputError(f"{arg}: cannot read ({exc.strerror})") from exc
    return decode_bytes(data, arg, encoding)


def _quote(text: str) -> str:
    import shlex  # only for this message

    return shlex.quote(_clip(" ".join(text.split()), 40))


# -- stats ---------------------------------------------------------------------------------
def _stats(args: argparse.Namespace) -> int:
    from nshash.many import document_counts

    store_options = _key_values(args.store_option, "--store-option")
    with _open_index(args.store, args.name, store_options, None, {}, create=False) as index:
        stats = index.stats()
        counts = document_counts(index.store)
    options = dict(stats.get("options", {}))
    merged = int(stats.get("merged_clusters", 0))
    report = {
        "name": args.name,
        "store": stats.get("store"),
        "algorithm": options.pop("algorithm", None),
        "documents": counts["documents"] if counts else None,
        "clusters": counts["highest_id"] - merged if counts else None,
        "fingerprints": stats.get("fingerprints"),
        "merged_clusters": merged,
        "store_bytes": stats.get("store_bytes"),
        "options": options,
        "implementation": _accel.describe(),  # why an index runs slow: pure Python, and why
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return EXIT_OK
    unknown = "unknown (counted only for documents added with get_similar_many or nshash dedup)"
    lines = [
        ["index", f"{args.name} in {report['store']}"],
        ["algorithm", str(report["algorithm"])],
        ["documents", unknown if report["documents"] is None else f"{report['documents']:,}"],
        ["clusters", unknown if report["clusters"] is None else f"{report['clusters']:,}"],
        ["fingerprints", f"{report['fingerprints']:,}"],
        ["merged clusters", f"{merged:,}"],
        ["store size", _size(report["store_bytes"])],
        ["options", " ".join(f"{key}={value}" for key, value in sorted(options.items()))],
        ["implementation", report["implementation"]],
    ]
    print(_format_table(lines))
    return EXIT_OK


# -- opening an index ------------------------------------------------------------------------
@contextlib.contextmanager
def _open_index(
    kind: str,
    name: str | None,
    store_options: dict[str, Any],
    algorithm: str | None,
    options: dict[str, Any],
    *,
    create: bool,
) -> Iterator[Index]:
    """The index ``name`` opened with the options it was built with (plus ``options``, which must agree).

    A new index uses ``algorithm`` and ``options``; an existing one its
    recorded algorithm (:func:`nshash.open`), so ``nshash stats`` needs no options repeated.
    """
    if name is None:
        cls = algorithm_class(algorithm or DEFAULT_ALGORITHM)
        index = cls(None, hashdb=kind, **check_options(cls, options), store_options=store_options or None)
    else:
        index = open_index(
            name, kind, store_options=store_options or None, algorithm=algorithm, create=create, **options
        )
    try:
        yield index
    finally:
        was_open = not index.store.closed
        index.close()
        if name is not None and was_open:
            log.info("saved and closed %s", index.store.describe())


# -- formatting and parsing ------------------------------------------------------------------
def _key_values(pairs: list[str] | None, flag: str) -> dict[str, Any]:
    """``KEY=VALUE`` arguments; a value is read as JSON when it is JSON (``3``, ``false``), else as text."""
    result: dict[str, Any] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"{flag} takes KEY=VALUE, not {pair!r}")
        try:
            result[key] = json.loads(value)
        except ValueError:
            result[key] = value
    return result


def _width(text: str) -> int:
    # CJK characters take two terminal columns.
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


def _clip(text: str, width: int) -> str:
    if _width(text) <= width:
        return text
    out, used = [], 0
    for char in text:
        used += _width(char)
        if used > width - 1:
            break
        out.append(char)
    return "".join(out) + "…"


def _format_table(rows: list[list[str]]) -> str:
    """Left-aligned columns; the last column is not padded."""
    widths = [max(_width(row[col]) for row in rows) for col in range(len(rows[0]) - 1)]
    lines = []
    for row in rows:
        cells = [cell + " " * (widths[col] - _width(cell)) for col, cell in enumerate(row[:-1])]
        lines.append("  ".join([*cells, row[-1]]).rstrip())
    return "\n".join(lines)


def _size(count: int | None) -> str:
    if count is None:
        return "unknown (not on disk)"
    size = float(count)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:,.0f} {unit}" if unit == "B" else f"{size:,.1f} {unit}"
        size /= 1024
    return f"{count} B"  # pragma: no cover - the loop always returns
