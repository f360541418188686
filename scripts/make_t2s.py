"""Regenerate ``nshash/data/t2s.txt`` and ``nshash/data/tw2cn.txt``, the tables of ``fold=True``.

    pip install opencc-python-reimplemented jieba && python scripts/make_t2s.py

The character pairs come from OpenCC's ``TSCharacters.txt``, the phrases from
its ``TWPhrasesRev.txt`` (Apache License 2.0, see ``nshash/data/NOTICE``).
Only one-to-one character pairs are kept (a character with several
simplified forms takes OpenCC's first choice), so folding is a plain
per-character map that the C normaliser can apply too.  A Taiwanese phrase
and its mainland form are stored folded by those pairs (the phrase step runs
after them), the mainland form OpenCC lists first; pairs that fold to one
form, and replacements longer than their phrase, are left out (the C
replaces in place), and so are phrases mainland writers use too: a Taiwanese
form that jieba's dictionary counts :data:`COMMON` times or more (互动,
执行, 资讯, 复制) is a word of the mainland page as well, and folding it there
moved the decisions on zh pages at random (F1 -0.0055 to +0.006 a file, the
popular-story check's seed 3 from precision 0.998 to 0.957) for nothing.
"""

from __future__ import annotations

import sys
from importlib import resources
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "nshash" / "data" / "t2s.txt"
PHRASES = OUT.with_name("tw2cn.txt")
#: jieba dictionary count from which a Taiwanese phrase is a common mainland word too (kept unfolded).
COMMON = 300


def main() -> int:
    source = resources.files("opencc") / "dictionary" / "TSCharacters.txt"
    pairs: dict[str, str] = {}
    for line in source.read_text(encoding="utf-8").splitlines():
        trad, _, simp = line.partition("\t")
        first = simp.split(" ")[0] if simp else ""
        if len(trad) == 1 and len(first) == 1 and trad != first:
            pairs[trad] = first
    lines = [f"{trad}{simp}" for trad, simp in sorted(pairs.items())]
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(lines)} pairs -> {OUT}", file=sys.stderr)
    import jieba  # only to regenerate the table

    jieba.initialize()
    table = str.maketrans(pairs)
    phrases: dict[str, str] = {}
    source = resources.files("opencc") / "dictionary" / "TWPhrasesRev.txt"
    for line in source.read_text(encoding="utf-8").splitlines():
        taiwan, _, mainland = line.partition("\t")
        taiwan, mainland = taiwan.translate(table), mainland.split(" ")[0].translate(table)
        common = (jieba.get_FREQ(taiwan) or 0) >= COMMON
        if taiwan and mainland and taiwan != mainland and len(mainland) <= len(taiwan) and not common:
            phrases[taiwan] = mainland
    rows = [f"{taiwan}\t{mainland}" for taiwan, mainland in sorted(phrases.items())]
    PHRASES.write_text("\n".join(rows) + "\n", encoding="utf-8")
    print(f"{len(rows)} phrases -> {PHRASES}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
