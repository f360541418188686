"""The ``nshash`` command line: its arguments, options and help (the commands themselves are in :mod:`nshash.cli`)."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping

from nshash.algorithms import ALGORITHMS
from nshash.io import STDIO

#: A subcommand: parsed arguments in, exit code out.
Command = Callable[[argparse.Namespace], int]

EPILOG = """exit codes: 0 ok, 1 bad input (file, row, column), 2 bad command line,
3 missing optional dependency, 4 index problem (missing, locked, other options), 130 interrupted"""


def _add_encoding_argument(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--encoding",
        default="utf-8",
        help=f"encoding {what}: utf-8 (default), gb18030, big5, latin-1, ..., "
        "or auto to detect it (pip install 'nshash[detect]')",
    )


def _add_store_arguments(parser: argparse.ArgumentParser, name_required: bool) -> None:
    parser.add_argument(
        "--name",
        required=name_required,
        help="the index (memory: NAME.hashdb.pkl, leveldb: NAME.hashdb, redis: key prefix)",
    )
    parser.add_argument("--store", default="memory", help="memory, leveldb, redis, ... (default: memory)")
    parser.add_argument(
        "--store-option",
        action="append",
        metavar="KEY=VALUE",
        help="store setting, e.g. url=redis://localhost:6379/0 (repeatable)",
    )


def build_parser(commands: Mapping[str, Command]) -> argparse.ArgumentParser:
    """The ``nshash`` argument parser; each subcommand runs ``commands[name](args)``."""
    from nshash import __version__, _accel

    parser = argparse.ArgumentParser(
        prog="nshash",
        description="Find near-duplicate documents by the hashes of their longest sentences.",
        epilog=EPILOG,
    )
    parser.add_argument("--version", action="version", version=f"nshash {__version__} ({_accel.describe()})")
    subcommands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    dedup = subcommands.add_parser(
        "dedup",
        help="add a similar_id column to a JSONL, CSV, Parquet or Excel file",
        description="Add a similar_id column (equal ids: near-duplicates) to a table of documents. "
        "Formats by extension: .jsonl/.ndjson, .csv, .parquet, .xlsx; '-' is JSONL on stdin/stdout.",
        epilog=EPILOG,
    )
    dedup.add_argument("input", metavar="INPUT", help="file of documents, or - for JSONL on standard input")
    dedup.add_argument("-o", "--output", default=STDIO, help="output file (default: JSONL on standard output)")
    dedup.add_argument("--field", default="content", help="the column holding the text (default: content)")
    _add_encoding_argument(dedup, "of a JSONL or CSV input")
    dedup.add_argument("--id-column", default="similar_id", help="name of the added column (default: similar_id)")
    dedup.add_argument("--drop-duplicates", action="store_true", help="keep only the first row of each cluster")
    _add_store_arguments(dedup, name_required=False)
    dedup.add_argument(
        "--algorithm",
        choices=sorted(ALGORITHMS),
        help="for a new index (default: nshash; an existing index uses the one it was built with)",
    )
    dedup.add_argument(
        "-O",
        "--option",
        action="append",
        metavar="KEY=VALUE",
        help="algorithm option, e.g. n=5, hashfunc=md5, split=original (repeatable)",
    )
    dedup.add_argument(
        "--online",
        action="store_true",
        help="without --name: the online algorithm in memory instead of the batch one",
    )
    dedup.add_argument("--workers", type=int, default=1, help="processes computing fingerprints (default: 1)")
    bar = dedup.add_mutually_exclusive_group()
    bar.add_argument(
        "--progress",
        dest="progress",
        action="store_true",
        default=None,
        help="show a progress bar on stderr (default: if it is a terminal and there are 10,000+ rows)",
    )
    bar.add_argument("--no-progress", dest="progress", action="store_false", help="never show a bar")
    dedup.add_argument("-q", "--quiet", action="store_true", help="no summary line on stderr")
    dedup.set_defaults(run=commands["dedup"])

    explain = subcommands.add_parser(
        "explain",
        help="show a document's sentences, fingerprints and the stored clusters they match",
        epilog=EPILOG,
    )
    explain.add_argument("document", metavar="FILE", help="a file holding the document, - for standard input")
    explain.add_argument("--text", action="store_true", help="the argument is the document's text, not a file")
    _add_encoding_argument(explain, "of the file")
    _add_store_arguments(explain, name_required=True)
    explain.add_argument("--width", type=int, default=60, help="columns of sentence shown (default: 60)")
    explain.add_argument("--json", action="store_true", help="print JSON instead of a table")
    explain.set_defaults(run=commands["explain"])

    stats = subcommands.add_parser("stats", help="documents, clusters, fingerprints, size and options of an index")
    _add_store_arguments(stats, name_required=True)
    stats.add_argument("--json", action="store_true", help="print JSON instead of a table")
    stats.set_defaults(run=commands["stats"])
    return parser
