"""Labelled near-duplicate corpus generator (run it as ``benchmarks/make_corpus.py``).

Modules, in the order the data flows through them:

* ``debs``     fetch Debian documentation packages into a cache and unpack them
* ``markup``   HTML and roff (man page) source -> headings and paragraphs
* ``sources``  which packages and files are read, cut into article-sized documents
* ``pool``     clean and deduplicate those documents, pair natural versions, split
* ``edits``    the edits a reprint makes (titles, bylines, typos, HTML remnants ...)
* ``sites``    simulated web sites and the boilerplate they wrap every page with
* ``assemble`` clusters, arrival order and the JSONL files
* ``check``    statistics and the original 2019 algorithm's pairwise scores
"""
