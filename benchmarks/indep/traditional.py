"""Traditional-Chinese mirrors of a simulated zh file (``build.py --traditional``).

Half of each story's later pages (every page after the first of its label, in crawl order) are
converted whole, site chrome included, from simplified to traditional characters with OpenCC, as a
Taiwan or Hong Kong mirror would show them: ``s2t`` (characters only) half the time, ``s2tw`` (Taiwan
variants) and ``s2twp`` (Taiwan variants and vocabulary: 软件 -> 軟體, 信息 -> 資訊) a quarter each.
The first page of a story stays simplified, so every converted page has a simplified page to be
found by.  OpenCC is the one dependency outside the standard library, imported only here
(``pip install opencc-python-reimplemented``, in nshash's ``bench`` extra).
"""

from __future__ import annotations

import random
from typing import Any

#: Share of a story's later pages converted, and the OpenCC configurations with their weights.
SHARE = 0.5
CONFIGS = (("s2t", 0.5), ("s2tw", 0.25), ("s2twp", 0.25))


def traditional_mirrors(
    docs: list[dict[str, Any]], metas: list[dict[str, Any]], seed: int
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Copies of ``docs`` and ``metas`` with later pages converted; a converted page's meta names its configuration."""
    try:
        from opencc import OpenCC
    except ImportError as e:
        raise SystemExit("--traditional needs OpenCC: pip install opencc-python-reimplemented") from e
    convert = {name: OpenCC(name).convert for name, _ in CONFIGS}
    rng = random.Random(f"traditional-{seed}")
    names, weights = zip(*CONFIGS)
    seen: set[str] = set()
    out_docs, out_metas = [], []
    for doc, meta in zip(docs, metas):
        doc, meta = dict(doc), dict(meta)
        later = doc["label"] in seen
        seen.add(doc["label"])
        if later and rng.random() < SHARE:
            name = rng.choices(names, weights)[0]
            doc["text"] = convert[name](doc["text"])
            meta["traditional"] = name
        out_docs.append(doc)
        out_metas.append(meta)
    return out_docs, out_metas
