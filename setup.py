"""Builds the optional C accelerator; everything else is in pyproject.toml."""

from setuptools import Extension, setup

# optional=True: without a C compiler nshash installs anyway and uses the
# pure-Python path, which gives identical fingerprints (tested).
HEADERS = ["nshash/_assign.h", "nshash/_farmhash.h", "nshash/_html.h", "nshash/_sentences.h"]
setup(ext_modules=[Extension("nshash._speedups", ["nshash/_speedups.c"], depends=HEADERS, optional=True)])
