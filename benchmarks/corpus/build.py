"""Run the whole pipeline: packages -> articles -> clean pool -> crawls -> files."""

from __future__ import annotations

import hashlib
import json
import os
import platform
import random
from collections import Counter
from pathlib import Path
from typing import Any

from . import assemble, hard, pool, t2s
from .check import file_stats
from .debs import Package, log
from .sites import Site, make_sites, pick_names, site_names
from .sources import SOURCES, Article, load_articles

FILES = (("zh", "tune"), ("zh", "heldout"), ("en", "tune"), ("en", "heldout"))
SITES_PER_FILE = 18
SAMPLE_SITES = 6
SAMPLE_SOURCES = {"zh": 55, "en": 30}
SAMPLE_MAX_CHARS = {"zh": 1000, "en": 1800}


def _write_atomic(path: Path, data: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8", newline="") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _jsonl(rows: list[dict[str, object]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def _prepare(
    cache: Path, seed: int, v2: bool = False
) -> tuple[dict[tuple[str, str], list[Article]], dict[str, Package], dict[str, dict[str, int]]]:
    """Load, clean, dedupe and split the article pool.

    ``v2`` keeps shared paragraphs and sibling pages (see ``pool.dedupe``);
    v1 (the committed sample) removes them.
    """
    articles, packages = load_articles(cache)
    stats: dict[str, dict[str, int]] = {lang: {} for lang in ("zh", "en")}
    for lang in stats:
        stats[lang]["articles_loaded"] = sum(a.lang == lang for a in articles)
    articles = pool.pair_versions(articles)
    articles = pool.drop_shared_paragraphs(articles, keep=v2)
    for lang in stats:
        stats[lang]["after_shared_paragraphs"] = sum(a.lang == lang for a in articles)
    if v2:
        articles = pool.dedupe(articles, containment=pool.CONTAINMENT_V2, shared_sentences=None)
    else:
        articles = pool.dedupe(articles)
    for lang in stats:
        mine = [a for a in articles if a.lang == lang]
        stats[lang]["after_dedupe"] = len(mine)
        stats[lang]["version_pairs"] = len({a.family for a in mine if a.family})
        log(f"{lang}: {stats[lang]}")
    halves = pool.split(articles, seed)
    splits = {(lang, side): [a for a in halves[side] if a.lang == lang] for lang, side in FILES}
    return splits, packages, stats


def _sites(seed: int) -> dict[tuple[str, str], list[Site]]:
    """Disjoint site sets for every file and the sample, always drawn in one order."""
    out = {}
    for lang in ("zh", "en"):
        names = site_names(lang, random.Random(f"{seed}:names:{lang}"))
        taken: set[str] = set()
        for split, n in (("tune", SITES_PER_FILE), ("heldout", SITES_PER_FILE), ("sample", SAMPLE_SITES)):
            picked = pick_names(lang, names, taken, n)
            out[(lang, split)] = make_sites(lang, picked, random.Random(f"{seed}:sites:{lang}:{split}"))
    return out


def generate(out: Path, cache: Path, seed: int, t2s_set: bool = True) -> dict[str, Any]:
    """Write the v2 files (four splits and ``zh-t2s``) and ``manifest.json`` to ``out``; return the manifest.

    ``zh-t2s.jsonl`` is skipped with a message when OpenCC is missing.
    """
    splits, packages, pool_stats = _prepare(cache, seed, v2=True)
    sites = _sites(seed)
    manifest: dict[str, Any] = {
        "generator": "benchmarks/make_corpus.py",
        "corpus_version": 2,
        "seed": seed,
        "python": platform.python_version(),
        "parameters": {
            "no_reprint": assemble.NO_REPRINT_V2,
            "reprint_alpha": assemble.REPRINT_ALPHA_V2,
            "reprint_max": assemble.REPRINT_MAX_V2,
            "revised": assemble.REVISED,
            "early": assemble.EARLY,
            "same_site": assemble.SAME_SITE,
            "chain": assemble.CHAIN,
            "sites_per_file": SITES_PER_FILE,
            "hard_edits": {e.__name__: p for e, p in hard.HARD_EDIT_PROBABILITIES},
            "site_habits": {
                "shared_boilerplate": hard.SHARED_SITES,
                "glued_site": hard.GLUE_SITES,
                "related_titles": hard.RELATED_SITES,
                "site_wrap": hard.WRAP_SITES,
            },
        },
        "pool": pool_stats,
        "sources": [],
        "files": {},
    }
    per_pkg: Counter[tuple[str, str, str]] = Counter()
    for (lang, split), arts in splits.items():
        for a in arts:
            per_pkg[(a.package, lang, split)] += 1
    for src in SOURCES:
        pkg = packages[src.package]
        manifest["sources"].append(
            {
                "package": pkg.name,
                "version": pkg.version,
                "pinned": src.pin,
                "lang": src.lang,
                "license": src.license,
                "copyright_license_fields": pkg.licenses,
                "articles": {s: per_pkg[(pkg.name, src.lang, s)] for s in ("tune", "heldout")},
            }
        )
    for lang, split in FILES:
        name = f"{lang}-{split}"
        hard.add_habits(sites[(lang, split)], random.Random(f"{seed}:habits:{name}"))
        arts = splits[(lang, split)]
        sib = {k for k, n in pool.siblings(arts).items() if n}
        rng = random.Random(f"{seed}:crawl2:{name}")
        records, edits = assemble.simulate_v2(lang, arts, sites[(lang, split)], rng, sib, pool.key)
        _write_file(out, name, assemble.to_rows(records, name, cases=True), edits, sites[(lang, split)], manifest)
    if t2s_set:
        try:
            convert = t2s.converters()
        except t2s.MissingOpenCC as e:
            log(f"skipping zh-t2s.jsonl: {e}")
        else:
            rng = random.Random(f"{seed}:crawl2:zh-t2s")
            arts = splits[("zh", "heldout")]
            records, counts = t2s.simulate_t2s(arts, sites[("zh", "heldout")], rng, pool.key, convert)
            _write_file(out, "zh-t2s", assemble.to_rows(records, "zh-t2s", cases=True), counts, [], manifest)
            manifest["files"]["zh-t2s.jsonl"]["t2s"] = t2s.describe()
    _write_atomic(out / "manifest.json", json.dumps(manifest, ensure_ascii=False, indent=2) + "\n")
    return manifest


def _write_file(
    out: Path,
    name: str,
    rows: list[dict[str, object]],
    edits: Counter[str],
    sites: list[Site],
    manifest: dict[str, Any],
) -> None:
    data = _jsonl(rows)
    _write_atomic(out / f"{name}.jsonl", data)
    stats = file_stats(rows)
    stats["sha256"] = hashlib.sha256(data.encode("utf-8")).hexdigest()
    stats["edits"] = dict(sorted(edits.items()))
    if sites:
        stats["site_profiles"] = dict(Counter(s.profile for s in sites))
    manifest["files"][f"{name}.jsonl"] = stats
    log(f"{name}.jsonl: {stats['docs']} docs, {stats['clusters']} clusters, 2019 P/R/F1 {stats['original_2019']}")


def write_sample(path: Path, cache: Path, seed: int) -> int:
    """Write the small committed example file; return its number of documents.

    It is drawn from the tune split only, from packages whose licences are
    simple to honour in a repository (``Source.sample_ok``), and uses its own
    sites.
    """
    splits, _, _ = _prepare(cache, seed)
    sites = _sites(seed)
    ok = {(s.package, s.lang) for s in SOURCES if s.sample_ok}
    records: list[assemble.Record] = []
    for offset, lang in enumerate(("zh", "en")):
        rng = random.Random(f"{seed}:sample:{lang}")
        cands = [a for a in splits[(lang, "tune")] if (a.package, lang) in ok]
        too_long = {a.family or a.path for a in cands if a.size > SAMPLE_MAX_CHARS[lang]}
        cands = [a for a in cands if (a.family or a.path) not in too_long]
        # Keep version pairs whole, and a few of them in the sample.
        fams = sorted({a.family for a in cands if a.family})
        chosen_fams = set(rng.sample(fams, k=min(3, len(fams))))
        singles = [a for a in cands if not a.family]
        picked = [a for a in cands if a.family in chosen_fams]
        picked += rng.sample(singles, k=min(SAMPLE_SOURCES[lang] - len(chosen_fams), len(singles)))
        used = Counter(a.package for a in picked)
        log(f"sample {lang}: {len(picked)} articles, {len(chosen_fams)} version pairs, {dict(sorted(used.items()))}")
        recs, _ = assemble.simulate(lang, picked, sites[(lang, "sample")], rng)
        for r in recs:
            r.cluster += offset * 1_000_000  # keep the two languages' clusters apart
        records += recs
    records.sort(key=lambda r: (r.time, r.seq))
    rows = []
    for row in assemble.to_rows(records, "sample"):
        text = str(row["text"])
        title, _, content = text.partition("\n")
        rows.append({"id": row["id"], "title": title.rstrip("\r"), "content": content, "label": row["label"]})
    _write_atomic(path, _jsonl(rows))
    return len(rows)
