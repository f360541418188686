"""The bundled sample: quality, idempotency and a "popular story" stress check.

    python benchmarks/run_sample.py                     # writes results/sample.{md,json}
    python benchmarks/run_sample.py --copies 2000 --out /tmp/s

On ``examples/data/news_sample.jsonl`` (page text = ``title + "\\n" +
content``, ground truth in ``label``):

1. **Quality**: pairwise P/R/F1 of nshash online (``NSHash()``,
   ``get_similar`` per page in file order, ``resolve_many`` at the end) and
   batch (``nshash.similar_ids``).
2. **Idempotency**: the sample fed twice into one index. A page *keeps its
   id* when its second ``get_similar`` resolves to the id its first one
   resolved to; compared two ways: both resolved after the second pass, and
   the first pass resolved right after it (what a crawler stored) against
   the second resolved after it.
3. **Popular story**: about ``--copies`` pages made by repeating the sample,
   each copy with 3 random character edits and a unique last line, fed round
   after round; number of predicted clusters against true articles, P/R/F1,
   online and batch.

Only nshash's public API is used.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Hashable, Sequence
from pathlib import Path
from typing import Any

from metrics import evaluate
from peers import import_nshash
from run_quality import environment, markdown_table

HERE = Path(__file__).resolve().parent
SAMPLE = HERE.parent / "examples" / "data" / "news_sample.jsonl"
EDITS_PER_COPY = 3


def load_sample(path: Path) -> tuple[list[str], list[str]]:
    """``(texts, labels)`` of the sample in ``id`` order; a page is ``title + "\\n" + content``."""
    with path.open(encoding="utf-8") as f:
        rows = sorted((json.loads(line) for line in f if line.strip()), key=lambda r: int(r["id"]))
    return [f"{r['title']}\n{r['content']}" for r in rows], [str(r["label"]) for r in rows]


def online(texts: Sequence[str]) -> list[Hashable]:
    """Default ``NSHash()`` fed in order, ids resolved at the end."""
    nshash = import_nshash()
    with nshash.NSHash() as nsh:
        ids = [nsh.get_similar(t) for t in texts]
        return list(nsh.resolve_many(ids))


def batch(texts: Sequence[str]) -> list[Hashable]:
    """``nshash.similar_ids`` with its defaults."""
    return list(import_nshash().similar_ids(list(texts)))


def refeed(texts: Sequence[str]) -> dict[str, Any]:
    """Feed ``texts`` twice into one index; count pages whose resolved id changed.

    >>> r = refeed(["one sentence that is long enough to be kept by the splitter.", "x"])
    >>> r["changed_final"], r["changed_stored"]
    (0, 0)
    """
    nshash = import_nshash()
    with nshash.NSHash() as nsh:
        first = [nsh.get_similar(t) for t in texts]
        stored = list(nsh.resolve_many(first))
        second = [nsh.get_similar(t) for t in texts]
        final = list(nsh.resolve_many(first + second))
    n = len(texts)
    changed_final = sum(a != b for a, b in zip(final[:n], final[n:]))
    changed_stored = sum(a != b for a, b in zip(stored, final[n:]))
    return {
        "docs": n,
        "changed_final": changed_final,
        "changed_stored": changed_stored,
        "kept_final": 1 - changed_final / n if n else 1.0,
        "kept_stored": 1 - changed_stored / n if n else 1.0,
    }


def char_edits(text: str, k: int, rng: random.Random) -> str:
    """``k`` random one-character edits (replace, delete or insert a character taken from the text).

    >>> len(char_edits("abcdef", 0, random.Random(1)))
    6
    """
    chars = list(text)
    for _ in range(k):
        if not chars:
            break
        i = rng.randrange(len(chars))
        op = rng.choice(("replace", "delete", "insert"))
        c = rng.choice(chars)
        if op == "replace":
            chars[i] = c
        elif op == "delete":
            del chars[i]
        else:
            chars.insert(i, c)
    return "".join(chars)


def popular(texts: Sequence[str], labels: Sequence[str], copies: int, seed: int) -> tuple[list[str], list[str]]:
    """About ``copies`` pages: rounds of the sample, each page edited and given a unique last line.

    >>> t, lab = popular(["a b c", "d e f"], ["x", "y"], 4, 1)
    >>> len(t), lab, len(set(t))
    (4, ['x', 'y', 'x', 'y'], 4)
    """
    rng = random.Random(seed)
    out_t: list[str] = []
    out_l: list[str] = []
    rounds = -(-copies // max(len(texts), 1))
    for r in range(rounds):
        for i, (t, lab) in enumerate(zip(texts, labels)):
            out_t.append(f"{char_edits(t, EDITS_PER_COPY, rng)}\nshare-id {r:05d}-{i:04d}-{rng.getrandbits(32):08x}")
            out_l.append(lab)
    return out_t, out_l


def _scores(name: str, labels: Sequence[str], pred: Sequence[Hashable], seconds: float) -> dict[str, Any]:
    s = evaluate(labels, pred)
    return {
        "method": name,
        "precision": s.precision,
        "recall": s.recall,
        "f1": s.f1,
        "clusters": len(set(pred)),
        "articles": len(set(labels)),
        "seconds": seconds,
    }


def _timed(fn: Any, texts: Sequence[str]) -> tuple[list[Hashable], float]:
    start = time.perf_counter()
    pred = fn(texts)
    return pred, time.perf_counter() - start


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sample", type=Path, default=SAMPLE, help="sample file (default: %(default)s)")
    ap.add_argument(
        "--copies", type=int, default=20_000, help="pages in the popular-story check (default: %(default)s)"
    )
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3], help="seeds of the edits (default: %(default)s)")
    ap.add_argument("--out", type=Path, default=HERE / "results", help="results directory")
    return ap.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    texts, labels = load_sample(args.sample)
    quality = [_scores(n, labels, *_timed(fn, texts)) for n, fn in (("nshash", online), ("nshash-batch", batch))]
    again = refeed(texts)
    pop = []
    for seed in args.seeds:  # where the edits land decides which frames they hide: one seed says little
        pop_t, pop_l = popular(texts, labels, args.copies, seed)
        for name, fn in (("nshash", online), ("nshash-batch", batch)):
            pop.append({"seed": seed, **_scores(name, pop_l, *_timed(fn, pop_t))})

    cols = ["method", "P", "R", "F1", "clusters", "true articles", "s"]

    def rows(rs: list[dict[str, Any]]) -> list[list[str]]:
        return [
            [*([str(r["seed"])] if "seed" in r else []), r["method"], f"{r['precision']:.3f}", f"{r['recall']:.3f}",
             f"{r['f1']:.3f}", str(r["clusters"]), str(r["articles"]), f"{r['seconds']:.2f}"]
            for r in rs
        ]  # fmt: skip

    env = environment()
    md = [
        "# Bundled sample",
        "",
        f"Generated by `python benchmarks/run_sample.py` on {env['date']} (Python {env['python']}, {env['machine']}, "
        f"commit {env['commit']}) on `{args.sample.name}` ({len(texts)} pages, {len(set(labels))} articles).",
        "",
        "## Quality (file order)",
        "",
        markdown_table(cols, rows(quality)),
        "",
        "## Idempotency (the sample fed twice into one index)",
        "",
        f"- pages whose second id, resolved after the second pass, differs from their first id resolved then: "
        f"{again['changed_final']} of {again['docs']} (kept {100 * again['kept_final']:.1f}%)",
        "- pages whose second id differs from the id their first pass resolved to right after that pass "
        f"(what a crawler stored): {again['changed_stored']} of {again['docs']} "
        f"(kept {100 * again['kept_stored']:.1f}%)",
        "",
        f"## Popular story ({len(pop_t)} pages: the sample repeated, {EDITS_PER_COPY} random character edits and a "
        "unique last line per copy, fed round after round; one run per seed of the edits)",
        "",
        markdown_table(["seed", *cols], rows(pop)),
        "",
    ]
    print("\n".join(md))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "sample.md").write_text("\n".join(md).rstrip() + "\n", encoding="utf-8")
    payload = {"environment": env, "quality": quality, "refeed": again, "popular": pop, "copies": len(pop_t)}
    (args.out / "sample.json").write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out / 'sample.md'} and sample.json", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
