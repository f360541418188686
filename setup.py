"""Builds the optional C accelerator; everything else is in pyproject.toml.

The C code takes its constants and tables from the Python specification: this
script reads them from ``nshash/sketch.py``, ``nshash/edges.py``, ``nshash/members.py``, ``nshash/text.py``,
``nshash/chrome.py``, ``nshash/fold.py``, ``nshash/fingerprint.py``, ``nshash/data/t2s.txt`` and ``tw2cn.txt``
(by parsing, not importing: the build has none of nshash's dependencies) and writes
``nshash/_speedups_constants.h`` and ``nshash/_speedups_tables.h``.
``tests/test_speedups*.py`` compare what the C holds with the Python values.
"""

from __future__ import annotations

import ast
import contextlib
import os
import re
from pathlib import Path
from typing import Any

from setuptools import Extension, setup

HERE = Path(__file__).resolve().parent
PACKAGE = HERE / "nshash"
CONSTANTS = {"GRAM": "GRAM", "SLOTS": "SLOTS", "_SLOT_SHIFT": "SLOT_SHIFT", "_PRIME": "PRIME"}
VERIFY = {
    "sketch": ("_SLOT_BITS", "EDGE_REST", "EDGE_REST_GRAMS"),
    "edges": (
        *("BLOOM_BITS", "_BLOOM_PROBES", "_PROBE_BITS", "_LIST_LINES", "_LIST_GRAMS"),
        *("_GAP_GRAMS", "_TAG_BITS", "_OWN_LINES", "_FOOT_SHARE", "_FOOT_KNOWN"),
    ),
    "site": ("SITE_MIN_CHARS", "SITE_KEYS", "_SITE_MIX", "SITE_MATCH", "SITE_MIN_MATCHES"),
    "members": ("MAX_MEMBERS", "CLUSTER_SHIFT", "MEMBER_SHIFT", "_GRAM_BITS"),
    "estimate": (
        *("SIZE_RATIO", "SIZE_RATIO_CONTAINMENT", "SIZE_RATIO_GRAMS", "FRAME_ERRORS"),
        *("BODY_MIN_GRAMS", "BODY_SIZE_RATIO", "BODY_ERRORS", "CJK_BODY_GRAMS", "CJK_BODY_ERRORS"),
        *("UNFRAMED_KNOWN", "UNFRAMED_OWN", "CORROBORATE"),
    ),
    "bodies": (
        *("KNOWN_FRAME", "CROSS_SITE_ERRORS", "FAR_BODY_ERRORS", "FAR_OWN_GRAMS", "FAR_PAGE_ERRORS", "FRAME_PARAGRAPH"),
        "OWN_SITE_PARAGRAPHS",
    ),
    "decide": (
        *("LINE_PARAGRAPH", "LINE_CANDIDATE"),
        *("MAX_CANDIDATES", "VOTED_SHARE", "MAJORITY_SHARE", "MAJORITY_EASING", "FRAMELESS_EASING"),
        *("CJK_EASING", "MERGE_MARGIN", "CLEAR_MARGIN"),
    ),
    "verify": ("CJK_PAGE",),
    "pieces": ("PIECE_SUFFIX", "PIECE_EDGE", "PIECE_LINES", "FLAT_MARK", "_PIECE_MUL", "_PIECE_ADD"),
    "votes": ("UNRELATED", "OWN_VOTES"),
    "boilerplate": ("UNSEEN", "BOILERPLATE", "CONTENT", "SHARED_LINE", "LINE_LIMIT"),
    "frame": (
        "ABSENT_KEYS",
        "PROSE_SHORT",
        "OWN_KNOWN",
        "ARTICLE_SHARE",
        "ARTICLE_KNOWN",
        *("MIDDLE_SHARE", "MIDDLE_CONTAINMENT"),
        "EDITED_SPAN",
        *("SIBLING_RUNS", "SIBLING_RUN_GRAMS", "SIBLING_GRAMS", "SIBLING_CONTAINMENT"),
    ),
}
CHROME = (
    "CHROME_MIN_LINES",
    "CHROME_SHORT",
    "CHROME_SEGMENTS",
    "CHROME_RUN",
    "WRAP_MIN",
    "WRAP_LOWER",
    *("WRAP_WIDEST", "WRAP_NARROWEST", "WRAP_SLACK", "WRAP_FULL", "WRAP_SHARE", "WRAP_BODY", "WRAP_ENDED", "WRAP_FITS"),
    "CHROME_KEEP",
    "CHROME_PROSE",
    "SITE_EDGE_LINES",
    "BYLINE_MAX",
)


def module_values(name: str) -> dict[str, Any]:
    """The module-level literals of ``nshash/<name>.py``, tuples built with ``*other`` included."""
    values: dict[str, Any] = {}
    for node in ast.parse((PACKAGE / f"{name}.py").read_text(encoding="utf-8")).body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            target, value = node.target.id, node.value
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            target, value = node.targets[0].id, node.value
        else:
            continue
        # re.compile("..."), frozenset("..."): the literal argument is the value.
        if isinstance(value, ast.Call) and len(value.args) == 1 and isinstance(value.args[0], ast.Constant):
            value = value.args[0]
        if isinstance(value, ast.Tuple) and any(isinstance(item, ast.Starred) for item in value.elts):
            items: list[Any] = []
            for item in value.elts:
                if isinstance(item, ast.Starred) and isinstance(item.value, ast.Name):
                    items.extend(values[item.value.id])
                else:
                    items.append(ast.literal_eval(item))
            values[target] = tuple(items)
            continue
        with contextlib.suppress(ValueError):  # not a literal: the C does not need it
            values[target] = ast.literal_eval(value)
    return values


def write_header(name: str, text: str) -> None:
    """Write a generated header only when it changed, and in one step: a build running beside another
    (an sdist built while the accelerator is compiled) never reads a half-written one."""
    path = PACKAGE / name
    with contextlib.suppress(OSError):
        if path.read_text(encoding="utf-8") == text:
            return
    partial = path.with_name(f".{name}.{os.getpid()}.tmp")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)


def write_constants() -> None:
    values = module_values("sketch")
    lines = ["/* Written by setup.py from the constants of the nshash modules it names: do not edit. */"]
    for name, macro in CONSTANTS.items():
        lines.append(f"#define {macro} {values[name]}{'ULL' if macro == 'PRIME' else ''}")
    # Verification (nshash/_estimate.h, _frame.h, _verify.h): floats as repr writes them, which C reads back exactly.
    for module, names in VERIFY.items():
        found = module_values(module)
        for name in names:
            lines.append(f"#define {name.lstrip('_')} {found[name]!r}")
    write_header("_speedups_constants.h", "\n".join(lines) + "\n")


def c_codes(name: str, chars: Any) -> str:
    codes = ", ".join(f"0x{ord(char):X}" for char in chars) or "0"
    return f"static const Py_UCS4 {name}[] = {{{codes}}};\nenum {{ N_{name.upper()} = {len(chars)} }};"


def c_bytes(name: str, text: str) -> str:
    data = text.encode("utf-8")
    escaped = "".join(f"\\x{byte:02x}" for byte in data)
    return f'static const char {name}[] = "{escaped}";\nenum {{ {name.upper()}_LEN = {len(data)} }};'


def c_names(name: str, words: Any) -> str:
    assert all(word.isascii() and word.isalnum() and word == word.lower() for word in words), words
    quoted = ", ".join(f'"{word}"' for word in words)
    return f"static const char *const {name}[] = {{{quoted}}};\nenum {{ N_{name.upper()} = {len(words)} }};"


def separator_classes(pattern: str) -> tuple[str, str]:
    """The two classes of ``chrome._SEPARATOR_RE`` (``\\s[A]\\s|[B]``), the one shape the C implements."""
    shape = re.fullmatch(r"\\s\[((?:[^\]\\]|\\.)*)\]\\s\|\[([^\]\\]*)\]", pattern)
    if shape is None:
        raise SystemExit(f"chrome._SEPARATOR_RE changed shape ({pattern!r}): update setup.py and nshash/_chrome.h")
    spaced = re.sub(r"\\(.)", r"\1", shape.group(1))
    if "-" in spaced[:-1]:
        raise SystemExit("a '-' inside _SEPARATOR_RE's first class is a range: update setup.py")
    return spaced, shape.group(2)


def inner_end_marks(pattern: str) -> str:
    """The marks ``chrome._INNER_END_RE`` (``[.!?](?=\\s)|[MARKS]``) counts wherever they are, for the C."""
    shape = re.fullmatch(r"\[\.!\?\]\(\?=\\s\)\|\[([^\]\\-]*)\]", pattern)
    if shape is None:
        raise SystemExit(f"chrome._INNER_END_RE changed shape ({pattern!r}): update setup.py and nshash/_chrome.h")
    return shape.group(1)


def block_tags(alternatives: str) -> list[str]:
    """``p|br|h[1-6]|...`` written out as names."""
    names: list[str] = []
    for item in alternatives.split("|"):
        ranged = re.fullmatch(r"([a-z0-9]+)\[(.)-(.)\]", item)
        if ranged:
            names += [ranged.group(1) + chr(c) for c in range(ord(ranged.group(2)), ord(ranged.group(3)) + 1)]
        else:
            names.append(item)
    return names


def delimiter_tables(name: str, delims: Any) -> list[str]:
    """One-character delimiters as a set; two-character ones (``'. '``) matched in the same pass.

    A single pass equals the specification's replacements in turn only when
    no replacement can make or break another's match: checked here.
    """
    single = [d for d in delims if len(d) == 1]
    double = [d for d in delims if len(d) == 2]
    if len(single) + len(double) != len(delims) or "\n" in "".join(delims):
        raise SystemExit(f"{name}: delimiters of 1 or 2 characters without newlines are what the C implements")
    if any(char in single for pair in double for char in pair):
        raise SystemExit(f"{name}: a two-character delimiter contains a one-character one")
    return [c_codes(f"{name}_single", single), c_codes(f"{name}_pair", "".join(double))]


def ignorecase_ascii() -> str:
    """Non-ASCII characters that ``re.IGNORECASE`` matches to ASCII letters (the C falls back on them)."""
    chars = "".join(chr(c) for c in range(0x80, 0x110000) if not 0xD800 <= c <= 0xDFFF)
    found = set(re.findall("(?i)[a-z0-9]", chars))
    for letter in "abcdefghijklmnopqrstuvwxyz":
        found |= set(re.findall(f"(?i){letter}", chars))
    return "".join(sorted(found))


def phrase_tables() -> list[str]:
    """fold.phrase_table for nshash/_fold.h: sorted by first character, then longest first."""
    rows = (PACKAGE / "data" / "tw2cn.txt").read_text(encoding="utf-8").splitlines()
    phrases = sorted((line.split("\t") for line in rows if line), key=lambda p: (ord(p[0][0]), -len(p[0]), p[0]))
    chars: list[int] = []
    starts, key_lens, rep_lens = [], [], []
    for key, replacement in phrases:
        if not key or len(replacement) > len(key) or len(key) > 255:
            raise SystemExit(f"data/tw2cn.txt: {key!r} -> {replacement!r} is not what nshash/_fold.h folds in place")
        if max(map(ord, key)) < 0x100:  # _speedups.c skips the folding on a Latin-1 page
            raise SystemExit(f"data/tw2cn.txt: {key!r} holds no character past U+00FF")
        starts.append(len(chars))
        key_lens.append(len(key))
        rep_lens.append(len(replacement))
        chars += [ord(c) for c in key + replacement]
    codes = ", ".join(f"0x{c:X}" for c in chars)
    return [
        f"static const Py_UCS4 phrase_chars[] = {{{codes}}};",
        f"static const uint32_t phrase_at[] = {{{', '.join(map(str, starts))}}};",
        f"static const unsigned char phrase_key_len[] = {{{', '.join(map(str, key_lens))}}};",
        f"static const unsigned char phrase_rep_len[] = {{{', '.join(map(str, rep_lens))}}};",
        f"enum {{ N_PHRASES = {len(phrases)} }};",
    ]


def write_tables() -> None:
    text = module_values("text")
    chrome = module_values("chrome")
    marks = module_values("fingerprint")
    sources = (
        "nshash/text.py, chrome.py, markdown.py, linebreaks.py, fold.py, fingerprint.py, encoding.py, escaped.py, data"
    )
    out = [f"/* Written by setup.py from {sources}: do not edit. */"]
    out.append(c_codes("noise", text["NOISE"]))
    markdown = module_values("markdown")
    out.append(c_codes("md_marks", markdown["MARKS"]))
    out.append(f"enum {{ URL_RUN = {markdown['URL_RUN']} }};")
    # text._DELIMS maps split names to these tuples; the test checks the C holds the same ones.
    for split in ("default", "design", "original"):
        out += delimiter_tables(f"delims_{split}", text[f"_{split.upper()}_DELIMS"])
    ranges = text["CJK_RANGES"]
    pairs = ", ".join(f"{{0x{low:X}, 0x{high:X}}}" for low, high in ranges)
    out.append(f"static const Py_UCS4 cjk_ranges[][2] = {{{pairs}}};\nenum {{ N_CJK_RANGES = {len(ranges)} }};")
    out.append(c_names("hidden_tags", text["HIDDEN_TAGS"]))
    out.append(c_names("block_tags", block_tags(text["_BLOCK_TAGS"])))
    months = chrome["MONTH_WORDS"]
    out.append(c_names("month_words", months))
    initials = "".join(sorted({word[0] for word in months}))
    out.append(f'#define MONTH_INITIALS "{initials}"\nenum {{ MONTH_WORD_MAX = {max(map(len, months))} }};')
    spaced, bare = separator_classes(chrome["_SEPARATOR_RE"])
    out += [c_codes("sep_spaced", spaced), c_codes("sep_bare", bare)]
    out.append(c_codes("sentence_ends", sorted(chrome["_SENTENCE_ENDS"])))
    out.append(c_codes("inner_end_marks", inner_end_marks(chrome["_INNER_END_RE"])))
    out.append(c_codes("closers", sorted(chrome["_CLOSERS"])))
    linebreaks = module_values("linebreaks")
    for name in ("_FLAT_CJK_ENDS", "_FLAT_CJK_CLOSERS", "_FLAT_LATIN_ENDS", "_FLAT_LATIN_CLOSERS"):
        out.append(c_codes(name.lstrip("_").lower(), linebreaks[name]))
    out += [f"#define {name} {linebreaks[name]!r}" for name in ("FLAT_LINE", "FLAT_EDGE", "FLAT_PIECE")]
    entities = text["_COMMON_ENTITIES"]
    for entity, char in entities:
        # One pass equals the replacements in turn when no replacement makes or breaks another entity.
        if not entity.startswith("&") or "&" in entity[1:] or len(char) != 1 or any(char in e for e, _ in entities):
            raise SystemExit(f"_COMMON_ENTITIES: {entity!r} -> {char!r} is not what nshash/_markup.h implements")
    names = ", ".join(f'"{entity}"' for entity, _ in entities)
    out.append(f"static const char *const entity_names[] = {{{names}}};")
    out.append(c_codes("entity_chars", "".join(char for _, char in entities)))
    for name in CHROME:
        out.append(f"#define {name} {chrome[name]!r}")
    for name, value in (("tail_mark", "_TAIL_MARK"), ("line_mark", "_LINE_MARK"), ("doc_prefix", "_WHOLE_TEXT_PREFIX")):
        out.append(c_bytes(name, marks[value]))
    out.append(f"#define NO_KEY {marks['NO_KEY']}ULL")
    out.append(f"#define HALVES_FROM {marks['HALVES_FROM']!r}")
    markers = marks["NOTICE_MARKERS"]
    if not markers or any(len(marker) < 2 or marker != marker.lower() for marker in markers):
        raise SystemExit("fingerprint.NOTICE_MARKERS: the C (_sentences.h) takes lower-case markers of 2+ characters")
    out.append(c_codes("notice_chars", "".join(markers)))
    lengths = ", ".join(str(len(marker)) for marker in markers)
    out.append(f"static const int notice_lens[] = {{{lengths}}};\nenum {{ N_NOTICE_MARKERS = {len(markers)} }};")
    out.append(c_codes("ignorecase_ascii", ignorecase_ascii()))
    # fold.fold_table: the t2s pairs, then the full-width digits and letters to ASCII.
    fold = module_values("fold")
    t2s = (PACKAGE / "data" / "t2s.txt").read_text(encoding="utf-8").split()
    folds = [(ord(pair[0]), ord(pair[1])) for pair in t2s]
    offset = fold["FULLWIDTH_OFFSET"]
    folds += [(code, code - offset) for low, high in fold["FULLWIDTH_ALNUM"] for code in range(low, high + 1)]
    rows = ",\n".join(f"{{0x{source:X}, 0x{target:X}}}" for source, target in folds)
    out.append(f"static const Py_UCS4 fold_pairs[][2] = {{\n{rows}}};\nenum {{ N_FOLD_PAIRS = {len(folds)} }};")
    out += phrase_tables()
    encoding = module_values("encoding")
    if len(encoding["CP1252_HIGH"]) != 32:
        raise SystemExit("encoding.CP1252_HIGH: the 32 characters of the bytes 0x80-0x9F")
    out.append(c_codes("cp1252_high", encoding["CP1252_HIGH"]))
    rounds, least, many = encoding["MOJIBAKE_ROUNDS"], encoding["GB_MIN_BYTES"], encoding["GB_MANY_BYTES"]
    out.append(f"enum {{ MOJIBAKE_ROUNDS = {rounds}, GB_MIN_BYTES = {least}, GB_MANY_BYTES = {many} }};")
    out.append(f"#define GB_BYTES {encoding['GB_BYTES']!r}")
    out.append(c_codes("gbk_marks", encoding["GBK_MARKS"]))
    out.append(f"enum {{ GBK_MIN_MARKS = {encoding['GBK_MIN_MARKS']} }};")
    escaped = module_values("escaped")
    out.append(
        f"enum {{ STRIP_ROUNDS = {escaped['STRIP_ROUNDS']}, JSON_MIN_ESCAPES = {escaped['JSON_MIN_ESCAPES']} }};"
    )
    out.append(f"#define JSON_SHARE {escaped['JSON_SHARE']!r}")
    write_header("_speedups_tables.h", "\n".join(out) + "\n")


write_constants()
write_tables()
# optional=True: without a C compiler nshash installs anyway and uses the
# pure-Python path, which gives identical features (tested).
setup(
    ext_modules=[
        Extension(
            "nshash._speedups",
            ["nshash/_speedups.c"],
            depends=[
                "nshash/_speedups_constants.h",
                "nshash/_speedups_tables.h",
                "nshash/_farmhash.h",
                "nshash/_tables.h",
                "nshash/_markup.h",
                "nshash/_mojibake.h",
                "nshash/_chrome.h",
                "nshash/_bylines.h",
                "nshash/_linebreaks.h",
                "nshash/_sentences.h",
                "nshash/_member.h",
                "nshash/_estimate.h",
                "nshash/_frame.h",
                "nshash/_verify.h",
                "nshash/_bodies.h",
                "nshash/_inttable.h",
                "nshash/_keyfilter.h",
                "nshash/_table_methods.h",
                "nshash/_table_type.h",
                "nshash/_assign.h",
                "nshash/_assign_stores.h",
                "nshash/_votes.h",
                "nshash/_sketch.h",
                "nshash/_blocks.h",
                "nshash/_packed.h",
                *(f"nshash/{module}.py" for module in VERIFY),  # the constants verification takes from them
                "nshash/text.py",
                "nshash/fingerprint.py",
                "nshash/linebreaks.py",
                "nshash/data/t2s.txt",
                "nshash/data/tw2cn.txt",
                "nshash/fold.py",
                "nshash/_fold.h",
                "nshash/encoding.py",
                "nshash/escaped.py",
                "nshash/markdown.py",
                "nshash/members.py",
            ],
            optional=True,
        )
    ]
)
