"""Regenerate ``nshash/data/t2s.txt``, the traditional -> simplified Chinese character table.

    pip install opencc-python-reimplemented && python scripts/make_t2s.py

The pairs come from OpenCC's ``TSCharacters.txt`` (Apache License 2.0, see
``nshash/data/NOTICE``).  Only one-to-one pairs are kept (a character with
several simplified forms takes OpenCC's first choice), so folding is a plain
per-character map that the C normaliser can apply too.
"""

from __future__ import annotations

import sys
from importlib import resources
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "nshash" / "data" / "t2s.txt"


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
    return 0


if __name__ == "__main__":
    sys.exit(main())
