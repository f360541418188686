"""How each method takes the ways one text may be typed, wrapped or marked up.

    python benchmarks/run_variants.py                  # writes results/variants.{md,json}
    python benchmarks/run_variants.py --docs 100 --methods nshash original

For each language, the first ``--docs`` source articles of a corpus file
(``kind == "source"``) are fed in order, then each one's variant (the same
text typed another way: full-width digits and letters, other quotes, line
wraps, markup...), again in order.  A variant is *found* when the method puts
it with its own source; a *false pair* is any other pair the method makes
(sources are different articles).  Every method runs on the same documents
in one run; variants that are a human edit (a changed word) are not here:
the synthetic corpus (``run_quality.py``) has those.  "bulleted lines" puts a
bullet before every non-empty line, the lines of a hard-wrapped paragraph
too: nshash does not join a wrapped line that starts with a bullet.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from itertools import count
from pathlib import Path
from typing import Any

from peers import Method, Unavailable, build_methods
from run_quality import environment, markdown_table

HERE = Path(__file__).resolve().parent
DEFAULT_METHODS = ("nshash", "original", "simhash", "datasketch-lsh", "rensa-lsh")
_CJK_PAIR = re.compile(r"(?<=[\u4e00-\u9fff])(?=[\u4e00-\u9fff])")


_TAG = re.compile(r"(<[^>]*>)")


def full_width(text: str) -> str:
    """ASCII digits and letters typed full-width, outside the markup."""
    parts = _TAG.split(text)
    for i in range(0, len(parts), 2):
        parts[i] = "".join(chr(ord(c) + 0xFEE0) if c.isascii() and c.isalnum() else c for c in parts[i])
    return "".join(parts)


def half_width_punctuation(text: str) -> str:
    return text.translate(str.maketrans("，。！？；：（）“”", ',.!?;:()""'))


def full_width_punctuation(text: str) -> str:
    return text.translate(str.maketrans(",.!?;:()", "，。！？；：（）"))


def corner_quotes(text: str) -> str:
    return text.translate(str.maketrans("“”‘’", "「」『』"))


def spaced_cjk(text: str) -> str:
    return _CJK_PAIR.sub(" ", text)


def wrapped(text: str, width: int = 40) -> str:
    return "\n".join(line[i : i + width] for line in text.split("\n") for i in range(0, max(len(line), 1), width))


def hyphenated(text: str, width: int = 70) -> str:
    out = []
    for line in text.split("\n"):
        while len(line) > width:
            cut = line[:width]
            out.append(cut + "-" if cut[-1].isalpha() and line[width].isalpha() else cut)
            line = line[width:]
        out.append(line)
    return "\n".join(out)


def one_paragraph(text: str) -> str:
    return text.replace("\n", " ")


def crlf(text: str) -> str:
    return text.replace("\n", "\r\n")


def html_paragraphs(text: str) -> str:
    body = "".join(f"<p>{line}</p>\n" for line in text.split("\n"))
    return f"<html><head><style>p {{ margin: 0 }}</style></head><body>\n{body}</body></html>"


def html_breaks(text: str) -> str:
    return "<div>" + "<br>".join(text.split("\n")) + "</div>"


def entities(text: str) -> str:
    return text.replace("&", "&amp;").replace("“", "&ldquo;").replace("”", "&rdquo;").replace("，", "&#65292;")


def indented(text: str) -> str:
    return "\n".join("\u3000\u3000" + line for line in text.split("\n"))


def bulleted(text: str) -> str:
    return "\n".join("• " + line if line.strip() else line for line in text.split("\n"))


def upper_case(text: str) -> str:
    return text.upper()


def no_break_spaces(text: str) -> str:
    return text.replace(" ", "\u00a0")


def soft_hyphens(text: str) -> str:
    """A soft hyphen at every 5th place inside a word where one may go (4 letters before, 3 after)."""
    places = count()
    return re.sub(r"(?<=[a-z]{4})(?=[a-z]{3})", lambda _: "" if next(places) % 5 else "\u00ad", text)


#: name -> the variant of a text.
VARIANTS: dict[str, Callable[[str], str]] = {
    "full-width digits and letters": full_width,
    "half-width punctuation": half_width_punctuation,
    "full-width punctuation": full_width_punctuation,
    "corner quotes 「」": corner_quotes,
    "spaces between CJK characters": spaced_cjk,
    "hard-wrapped at 40 characters": wrapped,
    "hyphenated wrap at 70": hyphenated,
    "paragraphs joined": one_paragraph,
    "CRLF line ends": crlf,
    "HTML paragraphs": html_paragraphs,
    "HTML line breaks": html_breaks,
    "HTML entities": entities,
    "ideographic-space indent": indented,
    "bulleted lines": bulleted,
    "upper case": upper_case,
    "no-break spaces": no_break_spaces,
    "soft hyphens": soft_hyphens,
}


def sources(path: Path, count: int) -> tuple[list[str], list[str]]:
    """The first ``count`` source articles of a corpus file, in arrival order, and their labels.

    Sources may share a label (two releases of one page): those pairs are not false.
    """
    with path.open(encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    rows.sort(key=lambda row: int(row["id"]))
    chosen = [row for row in rows if row.get("kind") == "source"][:count]
    return [row["text"] for row in chosen], [str(row["label"]) for row in chosen]


def score(predicted: Sequence[Hashable], truth: Sequence[Hashable]) -> tuple[float, int]:
    """(share of variants put with their source, pairs of different articles put together).

    ``predicted`` and ``truth``: the sources' labels, then their variants' in the same order.
    """
    count = len(truth) // 2
    found = sum(predicted[i] == predicted[count + i] for i in range(count))
    groups: dict[Hashable, Counter[Hashable]] = {}
    for label, true in zip(predicted, truth):
        groups.setdefault(label, Counter())[true] += 1
    false_pairs = sum(
        sum(members.values()) * (sum(members.values()) - 1) // 2 - sum(n * (n - 1) // 2 for n in members.values())
        for members in groups.values()
    )
    return found / count, false_pairs


def run(methods: Sequence[Method], texts: dict[str, tuple[list[str], list[str]]]) -> list[dict[str, Any]]:
    rows = []
    for lang, (originals, labels) in texts.items():
        for variant, make in VARIANTS.items():
            docs = [*originals, *map(make, originals)]
            row: dict[str, Any] = {
                "lang": lang,
                "variant": variant,
                "changed": sum(map(str.__ne__, originals, docs[len(originals) :])),
            }
            for method in methods:
                try:
                    found, false_pairs = score(method.fit_labels(docs), labels + labels)
                except Unavailable as exc:
                    row[method.name] = {"skipped": str(exc)}
                    continue
                row[method.name] = {"found": found, "false_pairs": false_pairs}
            rows.append(row)
            print(lang, variant, {m.name: row[m.name] for m in methods}, file=sys.stderr, flush=True)
    return rows


def cell(result: dict[str, Any]) -> str:
    if "skipped" in result:
        return "n/a"
    false = f" ({result['false_pairs']} false)" if result["false_pairs"] else ""
    return f"{result['found']:.2f}{false}"


def report(rows: list[dict[str, Any]], names: Sequence[str], docs: int, data: Path) -> str:
    env = environment()
    lines = [
        "# Variants of one text",
        "",
        f"Generated by `python benchmarks/run_variants.py` on {env['date']} (Python {env['python']}, "
        f"{env['machine']}, commit {env['commit']}).",
        "",
        f"The first {docs} source articles of `{data.name}/zh-heldout.jsonl` and `en-heldout.jsonl`, then each one's "
        "variant; a cell is the share of variants put with their own source (and the false pairs made, "
        "when any). `changed`: how many of the texts the variant changed.",
        "",
    ]
    for lang in ("zh", "en"):
        mine = [r for r in rows if r["lang"] == lang]
        lines += [
            f"## {lang}",
            "",
            markdown_table(
                ["variant", "changed", *names],
                [[r["variant"], r["changed"], *(cell(r[n]) for n in names)] for r in mine],
            ),
            "",
        ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=HERE / "data", help="corpus directory")
    ap.add_argument("--docs", type=int, default=300, help="source articles per language")
    ap.add_argument("--methods", nargs="+", default=list(DEFAULT_METHODS), help="methods (default: %(default)s)")
    ap.add_argument("--out", type=Path, default=HERE / "results", help="results directory")
    args = ap.parse_args(argv)
    try:
        methods = build_methods(args.methods)
        texts = {lang: sources(args.data / f"{lang}-heldout.jsonl", args.docs) for lang in ("zh", "en")}
    except (ValueError, FileNotFoundError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    rows = run(methods, texts)
    names = [m.name for m in methods]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "variants.json").write_text(json.dumps({"environment": environment(), "rows": rows}, indent=1) + "\n")
    text = report(rows, names, args.docs, args.data)
    (args.out / "variants.md").write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
