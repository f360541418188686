"""Builds the optional C accelerator; everything else is in pyproject.toml.

The C code takes its constants from the Python specification: this script
reads them from ``nshash/sketch.py`` and writes ``nshash/_speedups_constants.h``.
"""

from __future__ import annotations

import ast
from pathlib import Path

from setuptools import Extension, setup

HERE = Path(__file__).resolve().parent
CONSTANTS = {"GRAM": "GRAM", "SLOTS": "SLOTS", "_SLOT_SHIFT": "SLOT_SHIFT", "_PRIME": "PRIME"}


def write_constants() -> None:
    tree = ast.parse((HERE / "nshash" / "sketch.py").read_text(encoding="utf-8"))
    values = {}
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id in CONSTANTS:
            values[CONSTANTS[node.target.id]] = ast.literal_eval(node.value)
    lines = ["/* Written by setup.py from nshash/sketch.py: do not edit. */"]
    lines += [
        f"#define {name} {value}ULL" if name == "PRIME" else f"#define {name} {value}" for name, value in values.items()
    ]
    (HERE / "nshash" / "_speedups_constants.h").write_text("\n".join(lines) + "\n", encoding="utf-8")


write_constants()
# optional=True: without a C compiler nshash installs anyway and uses the
# pure-Python path, which gives identical sketches (tested).
setup(
    ext_modules=[
        Extension(
            "nshash._speedups",
            ["nshash/_speedups.c"],
            depends=["nshash/_speedups_constants.h", "nshash/sketch.py"],
            optional=True,
        )
    ]
)
