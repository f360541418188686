"""A page whose UTF-8 bytes were decoded as GBK (nshash.encoding.read_utf8_as_gbk) is read again: what a
Chinese crawler that takes every page for GBK stores (``raw.decode("gbk", "ignore")``)."""

from __future__ import annotations

from difflib import SequenceMatcher

import pytest

import nshash
from nshash.encoding import GBK_MARKS, GBK_MIN_MARKS, read_utf8_as_gbk, repair_mojibake

# Its UTF-8 bytes are GB18030 to the end: read so, nothing is lost.
WHOLE = "我应该如何保存关于安装了哪些软件包的日志？我想知道什么时候进行了安装和卸载，以及安装和卸载了哪些软件包！"
STORY = (
    "北京时间昨天晚上，一场大雨让城市的交通陷入停顿。气象部门表示，今年的雨季比往年来得更早！\n"
    "市民们说，这是他们第一次在六月看到这样的大雨。专家提醒大家出行时注意安全，不要在低洼的地方停留。\n"
    "记者从交通部门了解到，地铁和公交已经恢复正常运行，部分道路仍在排水。"
)


def as_gbk(text: str, codec: str = "gbk", errors: str = "ignore") -> str:
    return text.encode("utf-8").decode(codec, errors)


def is_subsequence(part: str, whole: str) -> bool:
    rest = iter(whole)
    return all(char in rest for char in part)


def test_utf8_read_as_gb18030_is_read_back_whole() -> None:
    wrong = WHOLE.encode("utf-8").decode("gb18030")  # strict: every byte read
    assert sum(wrong.count(mark) for mark in GBK_MARKS) >= GBK_MIN_MARKS
    assert repair_mojibake(wrong) == WHOLE


def alike(a: str, b: str) -> float:
    return SequenceMatcher(None, a, b, autojunk=False).ratio()


@pytest.mark.parametrize(("codec", "least"), [("gbk", 0.85), ("gb18030", 0.95)])
@pytest.mark.parametrize("errors", ["ignore", "replace"])
def test_a_character_whose_bytes_were_lost_is_the_commonest_they_allow(codec: str, least: float, errors: str) -> None:
    wrong = as_gbk(STORY, codec, errors)
    assert wrong != STORY
    read = repair_mojibake(wrong)
    assert "\ufffd" not in read
    assert alike(read, STORY) >= least
    # GBK never reads 0x80, the middle byte of 。: each is the commonest character its other bytes allow.
    assert read.count("。") == STORY.count("。")
    assert read_utf8_as_gbk(wrong) == read


def test_an_english_page_read_as_gbk_gets_its_quotes_back() -> None:
    page = "The mayor’s “third move” — she says — is the city’s last; it’s done."
    for errors in ("ignore", "replace"):
        wrong = as_gbk(page, "gbk", errors)
        assert "鈥" in wrong
        read = repair_mojibake(wrong)
        assert is_subsequence(read, page)  # a quote whose bytes were lost is deleted: nothing guessed
        assert read.count("’") == page.count("’")  # each before a letter: whole


@pytest.mark.parametrize(
    "text",
    [
        STORY,  # Chinese read right: no marks
        STORY + "涓涓细流，汇成江河。" * 2,  # 涓 is a word too: marks, but its GB18030 bytes are no UTF-8 text
        "鐨殑",  # the marks alone: nothing read from them
        as_gbk(STORY) + "\udf24",  # a lone surrogate: no decoder gave it
        as_gbk("一个中文标题"),  # too short: too few of Chinese text's commonest characters
        STORY.encode("gbk").decode("latin-1"),  # another misreading (read_as_chinese's)
        "plain ASCII",
    ],
)
def test_other_texts_are_not_read_as_utf8(text: str) -> None:
    assert read_utf8_as_gbk(text) is None or text.isascii()


def test_a_chinese_page_read_right_is_left_as_it_is() -> None:
    page = STORY + "涓涓细流，汇成江河。" * 2
    assert repair_mojibake(page) == page


def test_a_page_read_as_gbk_is_the_same_article_as_the_page() -> None:
    nsh = nshash.NSHash()
    first = nsh.get_similar(STORY)
    assert nsh.get_similar(as_gbk(STORY, "gb18030", "replace")) == first
    assert nsh.get_similar(as_gbk(STORY)) == first


def test_two_articles_of_one_site_read_as_gbk_stay_two() -> None:
    # Read as GBK, a page loses its sentence ends: its site's footer was its longest sentences, and a site's
    # pages merged through it.
    footer = (
        "\n本站所有文章均来自网络，如有侵权请联系我们删除，我们将在收到通知后的二十四小时内处理。\n"
        "版权声明：本站原创内容遵循知识共享协议，转载时请保留作者署名和原文链接，商业转载请联系作者获得授权。\n"
        "关于我们 | 联系我们 | 广告服务 | 网站地图"
    )
    other = (
        "上海今天发布了新的城市规划方案，方案提出在未来十年内建设更多的公园和绿地。\n"
        "规划部门的负责人说，新的方案听取了很多市民的意见，也参考了其他城市的经验。\n"
        "按照方案，中心城区的每一个街道都将有一个步行十五分钟就能到达的公园。"
    )
    nsh = nshash.NSHash()
    ids = [nsh.get_similar(as_gbk(article + footer)) for article in (STORY, other, STORY)]
    assert ids[0] != ids[1]
    assert ids[2] == ids[0]
