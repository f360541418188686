"""A page's byline or dateline: dropped from every page, never joined to the lines around it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nshash
import nshash.chrome
import nshash.fingerprint
from nshash.chrome import drop_chrome, is_byline
from nshash.fingerprint import Fingerprinter
from nshash.options import Options
from nshash.text import _weight

BYLINES = [
    "Posted on 2021-05-14 by Chris P. | 24151 views",
    "Published April 07, 2021 - Written by Daniel Weber | 43687 views",
    "Jan 22, 2022 11:53 PM",
    "09/26/2021 | By Sarah Nguyen",
    "By Jane Doe · 14 Sept 2021",
    "Last updated: 26.09.2021",
    "时间：2021/06/02 编辑：老王  阅读：29770 次",
    "2021-01-22  来源：本站原创  作者：路人甲",
    "时间：2021年05月21日 02:11 编辑：孙悟空的猴",
    "2021 年 5 月 3 日　来源：新华社",
    "24-5-13 17:07   来自 微博发布平台专业版 已编辑",
]

NOT_BYLINES = [
    "The release of 2021-05-14 fixed this.",  # a sentence
    "It shipped on May 5, 2021. Nobody noticed",  # a sentence, then the next
    "在 2021年5月13日，我们发布了新版本",  # a Chinese comma: prose
    "See https://example.com/2015/03/30/a-story for more",  # a URL's date
    "Version 2.10.34 of the program",  # no date
    "The Market 5, 2021 report",  # not a month
    "Updated " + "at length about the bridge and the river " * 3 + "on 2021-05-14",  # too long
    "Posted on 2021-05-141 by nobody",  # no date: one digit too many
]


@pytest.mark.parametrize("line", BYLINES)
def test_a_byline_is_one(line: str) -> None:
    assert is_byline(line, _weight(line))


@pytest.mark.parametrize("line", NOT_BYLINES)
def test_a_line_of_prose_a_url_or_a_version_is_no_byline(line: str) -> None:
    assert not is_byline(line, _weight(line))


def test_the_first_byline_goes_and_is_not_joined_to_the_paragraph_below() -> None:
    # A Chinese byline ends in a CJK character: it was joined to the paragraph below as a wrapped line.
    page = "\n".join(
        [
            "什么是工作区",
            "时间：2021/06/02 编辑：老王  阅读：29770 次",
            "您可以使用工作区来组织您的工作，例如把所有的通信窗口放在一个",
            "工作区里。",
        ]
    )
    wrapped = "您可以使用工作区来组织您的工作，例如把所有的通信窗口放在一个 工作区里。"
    assert drop_chrome(page).split("\n") == ["什么是工作区", wrapped]
    # ... and an English one that a line in lower case follows
    page = "A title\nPosted on 2021-05-14 by Chris P. | 24151 views\nand then the article, which goes on.\nThe end."
    assert drop_chrome(page).split("\n") == ["A title", "and then the article, which goes on.", "The end."]
    # only the first: a second dated line is the page's own (a list of releases, a table)
    page = "A title\nMay 5, 2021\nthe article.\n2021-05-06 a release"
    assert drop_chrome(page).split("\n") == ["A title", "the article.", "2021-05-06 a release"]


def test_a_byline_goes_from_a_page_kept_whole_and_is_never_its_site_signature() -> None:
    menu = ["Home", "News", "Sport", "Weather", "About us"]
    text = [f"Line {number} of the article, long enough to be kept on a whole page." for number in range(8)]
    page = "\n".join([*menu * 8, "June 3, 2024 | By Staff", *text, *menu * 2])
    edges: list[str] = []
    assert drop_chrome(page, edges).split("\n") == text
    assert "June 3, 2024 | By Staff" not in edges and "Home" in edges
    # too little would remain: the page stays whole, but its byline
    page = "\n".join(["Home", "News", "June 3, 2024 | By Staff", "Short text.", "About"])
    assert drop_chrome(page).split("\n") == ["Home", "News", "Short text.", "About"]


_ARTICLE = [
    "您可以使用工作区来组织您的工作，例如把所有的通信窗口放在一个工作区里。",
    "正在进行的工作可以位于另一个工作区，音乐管理器可以位于第三个工作区。",
    "系统会保留至少一个工作区，您也可以随时添加新的工作区。",
]
_EDITS = [(0, "通信", "通讯"), (0, "组织", "组识"), (1, "音乐", "音响"), (1, "另一", "另外一")]


def _pages() -> tuple[str, str]:
    source = "\n".join(
        [
            "云端社区 — 专注开源技术分享",
            "什么是工作区",
            "时间：2021/06/02 编辑：老王  阅读：29770 次",
            *_ARTICLE,
            "扫描二维码关注我们的微信公众号，获取更多技术干货和最新资讯。",
        ]
    )
    copy = list(_ARTICLE)
    for index, old, new in _EDITS:
        copy[index] = copy[index].replace(old, new)
    reprint = "\n".join(
        [
            "红枫驿站",
            "【什么是工作区】",
            "发布时间：2022-11-23 14:49  作者：李娜  来源：星河在线  阅读：49050 次",
            *copy,
            "本站部分文章来自网络转载，如有侵权请联系本站处理",
        ]
    )
    return source, reprint


@pytest.mark.parametrize("native", [True, False], ids=["C", "Python"])
def test_a_short_article_reprinted_under_another_byline_joins_its_source(
    native: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A short article with a few edits: the two pages' bylines were a fifth of what was compared.
    source, reprint = _pages()
    if not native:
        monkeypatch.setattr(nshash.fingerprint, "speedups", None)
    nsh = nshash.NSHash()
    first = nsh.get_similar(source)
    assert nsh.get_similar(reprint) == first
    if not native:  # the bylines kept: apart
        monkeypatch.setattr(nshash.chrome, "is_byline", lambda line, weight: False)
        nsh = nshash.NSHash()
        first = nsh.get_similar(source)
        assert nsh.get_similar(reprint) != first


_DATES = st.sampled_from(
    [
        "2021-05-14",
        "2021/6/2",
        "2021.05.21",
        "2021年5月21日",
        "2021 年 5 月",
        "09/26/2021",
        "24-5-13",
        "26.09.2021",
        "May 14, 2021",
        "Sept. 3rd, 2020",
        "14 MAY 2021",
        "12 Mayo 2021",
        "2021-05-143",
        "1.2.10",
    ]
)
_PARTS = st.sampled_from(
    [
        *("by", "Jane", "|", "·", "views", "阅读：", "次", "作者：李娜", "  ", "\u3000"),
        *(".", "。", "，", "://", "Next", "a", "x" * 40),
    ]
)
_LINE = st.lists(st.one_of(_DATES, _PARTS), min_size=1, max_size=8).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_LINE, st.sampled_from(_ARTICLE), st.just("")), min_size=1, max_size=50))
def test_dropping_bylines_in_c_is_the_python(lines: list[str]) -> None:
    fingerprinter = Fingerprinter(Options())
    page = "\n".join(lines)
    assert fingerprinter.features(page) == fingerprinter.features_python(page)  # the C's, when it is built
