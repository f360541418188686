"""The README's pandas recipes, run as written: one call, then ``groupby('similar_id')``."""

from __future__ import annotations

from typing import Any

import pytest

import nshash

pd = pytest.importorskip("pandas", reason="the recipes need pandas: pip install 'nshash[pandas]'")
similar_ids = getattr(nshash, "similar_ids", None)
pytestmark = pytest.mark.skipif(similar_ids is None, reason="nshash.similar_ids (nshash/batch.py) is not there yet")

# Three stories; the ground truth is the story letter.  Reprints add a byline,
# a site footer, HTML or switch punctuation width: changes any near-duplicate
# finder must see through.
STORIES = {
    "A": "第一句话足够长，可以作为指纹。第二句也一样长，内容完全不同。第三句话讲述了另外一件事情。",
    "B": "The second story starts here and runs long. It has another long sentence too. And a third one.",
    "C": "第三个故事和前两个毫无关系。它的句子也都足够长度了。最后一句话结束了这个故事。",
}
REPRINTS = [  # (story, how the page shows it)
    ("A", "{}"),
    ("B", "{}"),
    ("A", "记者 张三\n{}\n本文来自某某网"),
    ("C", "{}"),
    ("B", "<p>{}</p>"),
    ("A", "{}\n责任编辑：李四"),
    ("A", "{}"),
]


def frame() -> Any:
    rows = [
        {"site": f"site{i % 3}.example", "title": f"{story} ({i})", "content": how.format(STORIES[story])}
        for i, (story, how) in enumerate(REPRINTS)
    ]
    # A non-default index: the ids must line up with it, not with positions.
    return pd.DataFrame(rows, index=[100 + 7 * i for i in range(len(rows))]), [story for story, _ in REPRINTS]


def test_similar_ids_of_a_series_is_aligned_series() -> None:
    df, truth = frame()
    ids = nshash.similar_ids(df["content"])
    assert isinstance(ids, pd.Series)
    assert ids.index.equals(df.index)
    assert list(ids) == nshash.similar_ids(df["content"].tolist())  # a list in, a list out
    # Same story <=> same id.
    assert all((ids.iloc[i] == ids.iloc[j]) == (truth[i] == truth[j]) for i in range(len(df)) for j in range(len(df)))


def test_keep_the_first_page_of_each_article() -> None:
    df, truth = frame()
    df["similar_id"] = nshash.similar_ids(df["content"])
    unique = df.drop_duplicates("similar_id")  # the recipe
    firsts = [i for i, story in enumerate(truth) if story not in truth[:i]]
    assert unique.index.tolist() == df.index[firsts].tolist()


def test_count_reprints() -> None:
    df, truth = frame()
    df["similar_id"] = nshash.similar_ids(df["content"])
    df["copies"] = df.groupby("similar_id")["title"].transform("size")  # the recipe
    assert df["copies"].tolist() == [truth.count(story) for story in truth]
    counts = df["similar_id"].value_counts()
    assert sorted(counts.tolist()) == sorted(truth.count(story) for story in set(truth))


def test_top_clusters_hot_news() -> None:
    df, truth = frame()
    df["similar_id"] = nshash.similar_ids(df["content"])
    hot = (  # the recipe
        df.groupby("similar_id")
        .agg(title=("title", "first"), pages=("title", "size"), sites=("site", "nunique"))
        .sort_values("pages", ascending=False)
        .head(2)
    )
    assert hot["pages"].tolist() == [truth.count("A"), truth.count("B")]
    assert hot["title"].tolist() == ["A (0)", "B (1)"]
    assert hot["sites"].tolist() == [len({i % 3 for i, s in enumerate(truth) if s == story}) for story in "AB"]


def test_round_trip_through_a_file(tmp_path: Any) -> None:
    df, _ = frame()
    df["similar_id"] = nshash.similar_ids(df["content"])
    df.to_parquet(tmp_path / "pages.parquet")
    back = pd.read_parquet(tmp_path / "pages.parquet")
    assert back["similar_id"].tolist() == df["similar_id"].tolist()
    assert nshash.similar_ids(back["content"]).tolist() == df["similar_id"].tolist()
