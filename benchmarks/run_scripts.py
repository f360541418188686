"""Articles in scripts whose sentences end in their own full stop, and their copies.

    python benchmarks/run_scripts.py                  # writes results/scripts.{md,json}
    python benchmarks/run_scripts.py --copies 5 --methods nshash original

Hindi and Bengali end a sentence with the danda (।), Urdu with its full stop
(۔), Arabic questions with ؟, Burmese with ။: not with ".".  The real pages
(``../shared/data/realpages``; skipped when absent) hold a few articles in
these scripts; each is fed, then ``--copies`` copies of each as a reprinting
site makes them: the head and tail cut (up to a quarter of the sentences
each), the paragraphs broken at other sentences, three characters edited, the
site's header and footer around it.  A copy is *found* when the method puts
it with its own article; a *false pair* is a pair of different articles put
together.  Every method runs on the same documents in one run.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from peers import Unavailable, build_methods
from run_quality import environment, markdown_table
from run_realpages import DEFAULT_DATA
from run_variants import score

HERE = Path(__file__).resolve().parent
LANGS = ("hi", "bn", "ur", "ar", "my")
DEFAULT_METHODS = ("nshash", "original", "simhash", "datasketch-lsh", "rensa-lsh")
_SENTENCE = re.compile(r"[^।॥؟۔။.!?\n]+[।॥؟۔။.!?]?")
_EDITS = "ابپتکखगঅআကခ"


def articles(data: Path) -> list[tuple[str, str, str]]:
    """``(language, article label, text)``: each article of these scripts once, its annotated text first."""
    out: dict[str, tuple[str, str, str]] = {}
    with gzip.open(data / "pages.jsonl.gz", "rt", encoding="utf-8") as handle:
        for line in handle:
            page = json.loads(line)
            text = page["forms"].get("main") or page["forms"].get("traf")
            if page["lang"] in LANGS and text and page["cluster"] not in out:
                out[page["cluster"]] = (page["lang"], page["cluster"], text)
    return list(out.values())


def reprint(text: str, rng: random.Random) -> str:
    """A copy: head and tail cut, paragraphs broken elsewhere, three characters edited, a site's frame."""
    sentences = [s.strip() for s in _SENTENCE.findall(text) if s.strip()]
    head = rng.randrange(max(1, len(sentences) // 4))
    tail = len(sentences) - rng.randrange(max(1, len(sentences) // 4))
    paragraphs, paragraph = [], []
    for sentence in sentences[head:tail]:
        paragraph.append(sentence)
        if rng.random() < 0.35:
            paragraphs.append(" ".join(paragraph))
            paragraph = []
    body = "\n".join([*paragraphs, " ".join(paragraph)]).strip()
    for _ in range(3):
        at = rng.randrange(len(body))
        body = body[:at] + rng.choice(_EDITS) + body[at + 1 :]
    site = f"site{rng.randrange(1000)}"
    return f"{site}.example — Home · News · Sports\n{body}\n© 2024 {site}.example, all rights reserved"


def _row(result: dict[str, Any]) -> list[Any]:
    if "skipped" in result:
        return [result["method"], "n/a", "n/a"]
    return [result["method"], f"{result['found']:.3f}", result["false_pairs"]]


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="realpages folder (default: %(default)s)")
    ap.add_argument("--copies", type=int, default=20, help="copies of each article (default: %(default)s)")
    ap.add_argument("--methods", nargs="+", default=list(DEFAULT_METHODS), help="methods (default: %(default)s)")
    ap.add_argument("--out", type=Path, default=HERE / "results", help="results directory")
    args = ap.parse_args(argv)
    if not (args.data / "pages.jsonl.gz").exists():
        print(f"skipped: no real pages at {args.data}", file=sys.stderr)
        return 0
    methods = build_methods(args.methods)
    found = articles(args.data)
    rng = random.Random(1)
    copies = [(lang, label, reprint(text, rng)) for _ in range(args.copies) for lang, label, text in found]
    # Each article then its copies, round after round: score() pairs item i with item count + i.
    rows: list[dict[str, Any]] = []
    for method in methods:
        row: dict[str, Any] = {"method": method.name}
        try:
            shares, false_pairs = [], 0
            for start in range(0, len(copies), len(found)):
                batch = copies[start : start + len(found)]
                docs = [text for _, _, text in found] + [text for _, _, text in batch]
                labels = [label for _, label, _ in found]
                share, false = score(method.fit_labels(docs), labels + labels)
                shares.append(share)
                false_pairs += false
            row.update(found=sum(shares) / len(shares), false_pairs=false_pairs)
        except Unavailable as exc:
            row["skipped"] = str(exc)
        rows.append(row)
        print(row, file=sys.stderr, flush=True)
    env = environment()
    langs = ", ".join(f"{lang} {sum(a[0] == lang for a in found)}" for lang in LANGS)
    text = "\n".join(
        [
            "# Scripts with their own full stop",
            "",
            f"Generated by `python benchmarks/run_scripts.py --copies {args.copies}` on {env['date']} "
            f"(Python {env['python']}, {env['machine']}, commit {env['commit']}).",
            "",
            f"The real pages' articles in these scripts ({len(found)}: {langs}), each fed with one of its copies "
            f"(head and tail cut, paragraphs broken at other sentences, 3 characters edited, a site's frame), "
            f"{args.copies} rounds. *found*: the share of copies put with their own article; *false pairs*: "
            "pairs of different articles put together, over all rounds.",
            "",
            markdown_table(["method", "found", "false pairs"], [_row(r) for r in rows]),
            "",
        ]
    )
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "scripts.json").write_text(json.dumps({"environment": env, "rows": rows}, indent=1) + "\n")
    (args.out / "scripts.md").write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
