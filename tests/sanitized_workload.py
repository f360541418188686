"""What tests/test_sanitizers.py runs on the accelerator built with AddressSanitizer and UBSan.

Arguments: a scratch folder holding the sanitised copy of the package, and the bundled sample.
"""

import json
import sys
from array import array
from pathlib import Path


def main(scratch: Path, sample: Path) -> None:
    # Imported here: pytest imports this file to collect doctests, in pure-Python runs too.
    import nshash._speedups as speedups

    import nshash

    assert str(Path(speedups.__file__).parent).startswith(str(scratch)), speedups.__file__
    docs = [json.loads(line)["content"] for line in sample.read_text(encoding="utf-8").splitlines()]
    odd = [
        "",
        "\x00" * 50,
        "\ud800\udfff。" * 40,
        "<script>" + "x" * 5000 + "</script>" + "正文。" * 30,
        "a&amp;b&#0;&#xd800;&#1114112;" * 100,
        "短。" * 2000,
        "word " * 20000,
        "正文，字节。".encode() * 300,
        "\u3000\ufeff\u200b\u2028\u2029" * 100,
        ("line one is here\n" * 3 + "Home | News | About\n") * 50,
    ]
    pages = docs + odd

    index = nshash.NSHash(name=str(scratch / "news"))
    first = [index.get_similar(page) for page in pages]
    index.close()
    # Reopened: the tables are built from the file's arrays, which lie at unaligned offsets.
    index = nshash.NSHash(name=str(scratch / "news"))
    again = [index.get_similar(page) for page in pages]
    assert again[: len(docs)] == first[: len(docs)]  # an empty page gets a new id each time (README)
    index.close()
    assert nshash.NSHash(name=None).get_similar_many(pages) == nshash.similar_ids(pages)
    level = nshash.NSHash(name=str(scratch / "level"), hashdb="leveldb")
    level.get_similar_many(pages[:60])
    level.close()

    keys, values = array("Q", range(1, 2001)), array("q", range(2000))
    # One byte in, as a store file's arrays are: a view, not a copy (a new bytes object would be aligned again).
    unaligned = [memoryview(b"\x00" + numbers.tobytes())[1:] for numbers in (keys, values)]
    for kind in (speedups.Table, speedups.Blocks):
        table = kind(unaligned[0].cast("Q"), unaligned[1].cast("q"))
        assert len(table) == 2000 and table[1500] == 1499
    print("ok", len(set(first)))


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
