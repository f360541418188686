"""Moving from nshash 0.7: its stores are recognised and refused with what to do, its attributes still read,
and its example script's flow (hot news from an Excel sheet of 标题/内容) runs on 2.0."""

from __future__ import annotations

import hashlib
import logging
import pickle
from pathlib import Path

import farmhash
import pytest

import nshash
from nshash.hashing import farmhash64, md5_64

LONG = "A long enough first sentence here. And another long one too. A third sentence, long as well."


# -- 0.7's files, written as 0.7 wrote them ----------------------------------------------------------
def sentences_07(doc: str) -> list[str]:
    """0.7's get_nshash before hashing (its regex, its > 30 filter, its sort)."""
    import re

    pieces = re.split(r":|：|；|？|。|！|】|\n", doc)
    chosen = [s for s in pieces if len(s) > 30] or pieces
    return sorted(chosen, key=len, reverse=True)[:5]


def hash_07(hashfunc: str, sentence: str) -> str | int:
    if hashfunc == "md5":
        return hashlib.md5(sentence.encode("utf8")).hexdigest()
    return int(farmhash.hash64(sentence))


def memory_07(path: Path, hashfunc: str, docs: list[str]) -> None:
    """``<name>.hashdb.pkl`` as 0.7's HashDBMemory.__del__ left it: ``pickle.dump(dict)``."""
    db: dict[str | int, int] = {}
    for similar_id, doc in enumerate(docs, 1):
        for sentence in sentences_07(doc):
            db[hash_07(hashfunc, sentence)] = similar_id
    with path.open("wb") as handle:
        pickle.dump(db, handle)


def leveldb_07(path: Path, hashfunc: str, docs: list[str]) -> None:
    """``<name>.hashdb`` as 0.7's HashDBLeveldb.put left it: text keys, text values."""
    import plyvel

    db = plyvel.DB(str(path), create_if_missing=True)
    for similar_id, doc in enumerate(docs, 1):
        for sentence in sentences_07(doc):
            db.put(str(hash_07(hashfunc, sentence)).encode("utf8"), str(similar_id).encode("utf8"))
    db.close()


NEWS_07 = [
    "今天市政府召开新闻发布会，宣布将在全市范围内推进老旧小区改造工程。该工程预计覆盖三百个小区。",
    "Breaking: the city council approved the new transit plan today: it adds twelve bus lines and a tram.",
]


@pytest.mark.parametrize("hashfunc", ["md5", "farmhash"])
def test_a_07_memory_store_is_refused_with_why_and_how(tmp_path: Path, hashfunc: str) -> None:
    old = tmp_path / "news.hashdb.pkl"
    memory_07(old, hashfunc, NEWS_07)
    before = old.read_bytes()
    with pytest.raises(nshash.LegacyStoreError) as caught:
        nshash.NSHash(str(tmp_path / "news"), hashfunc=hashfunc)
    message = str(caught.value)
    assert "nshash 0.7 store" in message
    assert "cannot be converted" in message and "head and tail" in message and "sketch" in message
    assert "feeding the documents again" in message
    assert old.read_bytes() == before  # never overwritten
    # What such a file raised before it was recognised: code catching that still works.
    assert isinstance(caught.value, nshash.StoreCorruptError)


def test_an_empty_07_memory_store_is_refused_too(tmp_path: Path) -> None:
    # 0.7 saved its (empty) dict at exit even when nothing was fed.
    memory_07(tmp_path / "news.hashdb.pkl", "md5", [])
    with pytest.raises(nshash.LegacyStoreError, match="0 fingerprints"):
        nshash.NSHash(str(tmp_path / "news"))


@pytest.mark.parametrize(
    "foreign",
    [
        ["a", "list"],
        {"format": "something.else", "version": 1},
        {"not-a-digest": 1},
        {"5d41402abc4b2a76b9719d911017c592": "1"},  # ids were ints in 0.7's memory store
    ],
)
def test_other_pickles_are_not_called_07(tmp_path: Path, foreign: object) -> None:
    (tmp_path / "x.hashdb.pkl").write_bytes(pickle.dumps(foreign))
    with pytest.raises(nshash.StoreCorruptError) as caught:
        nshash.NSHash(str(tmp_path / "x"))
    assert not isinstance(caught.value, nshash.LegacyStoreError)
    assert "0.7" not in str(caught.value)


@pytest.mark.parametrize("hashfunc", ["md5", "farmhash"])
def test_a_07_leveldb_store_is_refused(tmp_path: Path, hashfunc: str) -> None:
    leveldb_07(tmp_path / "news.hashdb", hashfunc, NEWS_07)
    with pytest.raises(nshash.LegacyStoreError, match=r"HashDBLeveldb\(.*news\.hashdb\) is an nshash 0\.7 store"):
        nshash.NSHash(str(tmp_path / "news"), hashdb="leveldb")


def test_another_programs_leveldb_is_not_called_07(tmp_path: Path) -> None:
    import plyvel

    db = plyvel.DB(str(tmp_path / "app.hashdb"), create_if_missing=True)
    db.put(b"user:1", b"alice")
    db.close()
    with pytest.raises(nshash.StoreCorruptError, match="not written by nshash") as caught:
        nshash.NSHash(str(tmp_path / "app"), hashdb="leveldb")
    assert not isinstance(caught.value, nshash.LegacyStoreError)


def test_hashdbmemory_named_as_in_07_finds_the_old_file(tmp_path: Path) -> None:
    # 0.7: HashDBMemory('news') used 'news.hashdb.pkl'; 2.0 takes the path, so say so instead of starting empty.
    memory_07(tmp_path / "news.hashdb.pkl", "md5", NEWS_07)
    with pytest.raises(nshash.LegacyStoreError, match="HashDBMemory takes the file's path"):
        nshash.HashDBMemory(tmp_path / "news")
    assert not (tmp_path / "news").exists()


def test_hashdbmemory_beside_a_2_0_store_warns(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with nshash.NSHash(str(tmp_path / "news")) as nsh:
        nsh.get_similar(LONG)
    with caplog.at_level(logging.WARNING, logger="nshash"), nshash.HashDBMemory(tmp_path / "news") as store:
        assert store.count("fp") == 0
    assert "news.hashdb.pkl" in caplog.text and "HashDBMemory takes the file's path" in caplog.text


def test_a_new_store_logs_nothing(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="nshash"), nshash.HashDBMemory(tmp_path / "news.hashdb.pkl"):
        pass
    assert "0.7" not in caplog.text and "takes the file's path" not in caplog.text


# -- shims -------------------------------------------------------------------------------------------
def test_get_nshash_takes_n_as_in_07() -> None:
    nsh = nshash.NSHash()
    assert nsh.get_nshash(LONG, n=1) == nshash.NSHash(n=1).get_nshash(LONG) == nsh.get_nshash(LONG)[:2]
    assert nsh.get_nshash(LONG, n=5) == nsh.get_nshash(LONG)
    assert len(nsh.get_nshash(LONG, n=2)) == 4
    with pytest.raises(nshash.OptionError, match="n must be an int from 1 to 64"):
        nsh.get_nshash(LONG, n=0)
    assert nsh.max_similar_id == 0  # keys are computed, nothing stored


def test_max_similar_id_db_and_hashfunc_read_as_in_07(tmp_path: Path) -> None:
    with nshash.NSHash(str(tmp_path / "news"), hashfunc="md5") as nsh:
        assert nsh.max_similar_id == 0
        ids = [nsh.get_similar(doc) for doc in (LONG, "Something else entirely, long enough to key.", LONG)]
        assert ids == [1, 2, 1]
        assert nsh.max_similar_id == 2
        assert nsh.db is nsh.store
        assert nsh.hashfunc.name == "md5" and nsh.hashfunc("abc") == md5_64("abc")
        for name in ("max_similar_id", "db", "hashfunc"):
            with pytest.raises(AttributeError):
                setattr(nsh, name, 1)
    with nshash.NSHash(str(tmp_path / "news"), hashfunc="md5") as nsh:
        assert nsh.max_similar_id == 2  # persisted (0.7 never saved its counter)
    assert nshash.NSHash().hashfunc("abc") == farmhash64("abc")


# -- 0.7's example script: hot news from a workbook ---------------------------------------------------
#: One paragraph a line, as a page's text has them.
STORIES = {
    "地铁": (
        "本市地铁十号线二期工程今天正式开通运营，全长二十一公里，共设车站十五座。\n"
        "新线路连接了城市北部的三个大型居住区和中心商务区，预计日均客流将超过二十万人次。\n"
        "运营单位表示，开通初期列车最小行车间隔为四分钟，高峰时段将根据客流情况加密班次。\n"
        "沿线多个站点配套建设了公交接驳站和非机动车停车场，方便市民换乘出行。\n"
    ),
    "暴雨": (
        "气象台今天上午发布暴雨橙色预警，预计未来二十四小时内全市将出现大到暴雨，局部地区有大暴雨。\n"
        "防汛指挥部已启动三级应急响应，要求各区加强对地下空间、低洼路段和在建工地的巡查。\n"
        "教育部门通知，全市中小学和幼儿园明天停课一天，学生居家开展线上学习活动。\n"
        "市民如非必要请减少外出，驾车出行时注意避开积水路段，遇到险情及时拨打求助电话。\n"
    ),
    "图书馆": (
        "新建的市图书馆今天向公众开放，馆内藏书超过三百万册，设有少儿阅读区和古籍修复展示区。\n"
        "图书馆每天开放十二个小时，读者凭身份证即可免费办理借阅证，并可在线预约座位。\n"
        "馆方介绍，新馆采用了智能书架和自助借还系统，读者可以通过手机快速查找图书位置。\n"
        "开馆首日共接待读者一万余人次，不少家长带着孩子前来参观和阅读。\n"
    ),
    "果农": (
        "今年南部山区的柑橘迎来丰收，种植面积达到八万亩，预计总产量比去年增长三成。\n"
        "当地政府联合电商平台开设了线上销售专区，帮助果农把新鲜柑橘直接卖到全国各地。\n"
        "合作社负责人说，通过冷链物流，柑橘从采摘到送达消费者手中最快只需要两天时间。\n"
        "农技人员还深入果园，指导果农科学施肥和病虫害防治，提高果品的品质和收益。\n"
    ),
}


def reprint(text: str, site: str, edit: bool) -> str:
    """A copy as a news site publishes it: its byline on top, its footer below, maybe one character edited."""
    if edit:
        text = text.replace("今天", "今日", 1)
    return f"来源：{site}\n{text}\n责任编辑：王{site[0]}  本文版权归{site}所有，转载请注明出处。"


def workbook_rows() -> dict[str, list[tuple[str, str, str]]]:
    """Two sheets of (标题, 内容, story) rows; the story column is what the dedup must find."""
    sites = ["新华网", "人民网", "光明网", "央视网", "中新网"]
    rows: dict[str, list[tuple[str, str, str]]] = {"第一周": [], "第二周": []}
    copies = {"地铁": 4, "暴雨": 3, "图书馆": 1, "果农": 2}
    for story, count in copies.items():
        for i in range(count):
            sheet = "第一周" if story in ("地铁", "暴雨") else "第二周"
            title = f"{story}：{sites[i]}报道"
            rows[sheet].append((title, reprint(STORIES[story], sites[i], edit=i % 2 == 1), story))
    # Interleave the stories, as a crawl delivers them.
    for sheet in rows:
        rows[sheet] = rows[sheet][::2] + rows[sheet][1::2]
    return rows


def write_workbook(path: Path) -> None:
    from openpyxl import Workbook

    wb = Workbook()
    assert wb.active is not None
    wb.remove(wb.active)
    for name, rows in workbook_rows().items():
        sheet = wb.create_sheet(name)
        sheet.append(["标题", "内容", "story"])
        for row in rows:
            sheet.append(list(row))
    wb.save(path)


def read_xls(fn: Path) -> dict[str, list[dict[str, object]]]:
    """0.7's read_xls (xlrd then), with openpyxl: every sheet as rows keyed by the header cells."""
    from openpyxl import load_workbook

    wb = load_workbook(fn, read_only=True)
    data: dict[str, list[dict[str, object]]] = {}
    for sheet in wb.worksheets:
        rows = list(sheet.iter_rows(values_only=True))
        keys = [str(cell).strip().strip(",") for cell in rows[0]]
        data[sheet.title] = [dict(zip(keys, row)) for row in rows[1:]]
    wb.close()
    return data


def get_hot_news(data_news: list[dict[str, object]], topn: int = 30) -> list[tuple[int, set[int]]]:
    """0.7's get_hot_news; the one change: ``with``, because 2.0 holds the index open until it is closed."""
    with nshash.NSHash("test", hashfunc="farmhash", hashdb="memory") as nsh:
        similarids: dict[int, set[int]] = {}
        for doc_id, d in enumerate(data_news):
            simid = nsh.get_similar(str(d["内容"]))
            similarids.setdefault(simid, set()).add(doc_id)
    zz = sorted(similarids.items(), key=lambda a: len(a[1]), reverse=True)
    return zz[:topn]


def test_the_07_excel_example_flow(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("openpyxl")
    monkeypatch.chdir(tmp_path)
    write_workbook(tmp_path / "news.xlsx")
    data = read_xls(tmp_path / "news.xlsx")
    assert list(data) == ["第一周", "第二周"]
    hottest = []
    for sheet_name, rows in data.items():
        hots = get_hot_news(rows, 30)
        # Each cluster is exactly one story's reprints, and every story is one cluster.
        clusters = {frozenset(rows[i]["story"] for i in docids) for _, docids in hots}
        assert all(len(stories) == 1 for stories in clusters), (sheet_name, clusters)
        assert sorted(len(docids) for _, docids in hots) == sorted(
            [sum(1 for r in rows if r["story"] == s) for s in {r["story"] for r in rows}]
        )
        hottest.append(str(rows[next(iter(hots[0][1]))]["标题"]))
    assert hottest[0].startswith("地铁") and hottest[1].startswith("果农")
    # Both sheets went into one index 'test.hashdb.pkl', as in 0.7: the second sheet continued the ids.
    with nshash.NSHash("test") as nsh:
        assert nsh.max_similar_id == 4


def test_a_one_line_article_between_other_bylines_joins() -> None:
    # The article line is the run shared from the top (over the byline) and from the bottom (over
    # the footer): one block, not a frame (edges.chrome_lines).  It was left out as the shared
    # header, and two unedited reprints failed verification (an xfail until the one-block rule).
    article = STORIES["地铁"].replace("\n", "")
    nsh = nshash.NSHash()
    first = nsh.get_similar(reprint(article, "新华网", edit=False))
    assert nsh.get_similar(reprint(article, "光明网", edit=False)) == first
