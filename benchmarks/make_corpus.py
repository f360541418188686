"""Build the labelled near-duplicate benchmark corpus from Debian documentation.

    python benchmarks/make_corpus.py --out benchmarks/data          # generate (a few minutes)
    python benchmarks/make_corpus.py --out benchmarks/data --check  # statistics + 2019 baseline
    python benchmarks/make_corpus.py --sample examples/data/news_sample.jsonl

Writes corpus v2: ``{zh,en}-{tune,heldout}.jsonl``, ``zh-t2s.jsonl`` (needs
OpenCC) and ``manifest.json``. Each line is
``{"id", "label", "text", "site", "kind", "cases"}``; ids are arrival order, labels are
ground-truth clusters. Packages are fetched with ``apt-get download`` into
``--cache`` (default ``benchmarks/.cache``). The same ``--seed`` and package
versions give byte-identical files. See ``benchmarks/CORPUS.md``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from corpus.build import FILES, generate, write_sample
from corpus.check import report
from corpus.debs import FetchError, log

HERE = Path(__file__).resolve().parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=HERE / "data", help="output directory (default: %(default)s)")
    parser.add_argument("--cache", type=Path, default=HERE / ".cache", help="download cache (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=20240601, help="random seed (default: %(default)s)")
    parser.add_argument("--check", action="store_true", help="only print statistics of the files already in --out")
    parser.add_argument("--sample", type=Path, metavar="PATH", help="only write the small example file to PATH")
    args = parser.parse_args(argv)

    if args.check:
        paths = [args.out / f"{lang}-{split}.jsonl" for lang, split in FILES]
        missing = [str(p) for p in paths if not p.exists()]
        if (args.out / "zh-t2s.jsonl").exists():
            paths.append(args.out / "zh-t2s.jsonl")
        if missing:
            command = f"python benchmarks/make_corpus.py --out {args.out}"
            print(f"missing {', '.join(missing)}: run {command}", file=sys.stderr)
            return 2
        print(report(paths))
        return 0
    started = time.monotonic()
    try:
        if args.sample:
            n = write_sample(args.sample, args.cache, args.seed)
            log(f"wrote {n} documents to {args.sample}")
        else:
            generate(args.out, args.cache, args.seed)
            log(f"wrote {args.out}; run with --check for the statistics")
    except FetchError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    log(f"done in {time.monotonic() - started:.0f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
