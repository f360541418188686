"""Cleaning, folding, options and sketches of NSHash 2: pinned values and behaviour that must not drift."""

from __future__ import annotations

import random
import re
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import nshash
import nshash.fold
from nshash import chrome
from nshash.chrome import drop_chrome
from nshash.edges import has_line, line_filter, member_tail, shared_chrome
from nshash.fingerprint import Fingerprinter
from nshash.fold import fold_chars
from nshash.linebreaks import FLAT_EDGE, FLAT_LINE, restore_edges, restore_lines
from nshash.members import Member, from_entries, to_entries
from nshash.options import OPTION_NAMES, Options
from nshash.sketch import SLOTS, containment, sketch
from nshash.text import HIDDEN_TAGS, split_sentences, strip_html


@pytest.mark.parametrize("tag", HIDDEN_TAGS)
def test_invisible_elements_never_become_sentences(tag: str) -> None:
    code = "window._wpemojiSettings = {'baseUrl': 'https://s.w.org/images/core/emoji/'}; var x = 1; " * 5
    page = f"<p>Visible text of the article, long enough.</p><{tag} type='x'>{code}</{tag.upper()} >after"
    assert "emoji" not in strip_html(page)
    assert strip_html("a<!-- a comment that is long enough to be a sentence -->b").replace("\n", "") == "ab"


def test_a_base64_payload_never_becomes_text_and_its_tag_goes() -> None:
    logo = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA" * 40
    page = f"<p>Visible text.</p><img alt='logo' src='data:image/png;base64,{logo}'>Share this story"
    # Without the payload the tag is short enough to be a tag; with it, it stayed as text.
    assert strip_html(page).split("\n") == ["", "Visible text.", "Share this story"]
    assert logo[:64] in strip_html(f"no markup here: base64,{logo}")  # only HTML is cleaned
    assert strip_html("<p>base64,QUJD</p>").strip() == "base64,QUJD"  # too short to be a payload


def test_a_tag_with_long_attributes_is_still_a_tag() -> None:
    teaser = "The first lines of another story, quoted in a share button's handler, " * 15
    share = f"<li class='share' onclick=\"share('weibo', '{teaser}', 'https://example.com/1.html')\">Share</li>"
    assert 1000 < len(share) < 5000
    assert strip_html(f"<p>Text.</p>{share}").split("\n") == ["", "Text.", "", "Share", ""]
    # The bound: a "<" that opens no tag, 5,000 characters before a ">", leaves the text alone.
    prose = "<" + "x" * 5002 + ">"  # a letter, then 5,001 more
    assert strip_html(prose) == prose


def test_raw_html_pages_of_two_articles_sharing_a_logo_stay_apart() -> None:
    logo = "R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7" * 300
    chrome = f"<header><img class='logo' src='data:image/gif;base64,{logo}'></header>"
    first = "The first story is about a river that floods every spring and the town that moved away."
    second = "The second story is about a bakery that opened at night for the workers of the port."
    nsh = nshash.NSHash()
    pages = [f"<html><body>{chrome}<p>{story}</p></body></html>" for story in (first, second)]
    assert nsh.get_similar(pages[0]) != nsh.get_similar(pages[1])
    assert nsh.get_similar(first) == nsh.get_similar(pages[0])


def test_raw_html_and_its_text_are_one_article() -> None:
    text = "First sentence of the story is long enough. Second sentence is long too. Third one, also long."
    html = f"<html><head><style>body {{ font: 12px }}</style><script>var ads = ['{'x' * 300}'];</script></head>"
    html += f"<body><nav>Home | News | About | Contact</nav><p>{text}</p></body></html>"
    nsh = nshash.NSHash()
    assert nsh.get_similar(html) == nsh.get_similar(text)


def test_menus_and_link_lists_of_a_whole_page_are_dropped() -> None:
    rng = random.Random(1)
    menu = [" | ".join(rng.choice(["Home", "News", "Sport", "Tech", "About"]) for _ in range(6)) for _ in range(20)]
    links = [f"Another story title number {i} without an end" for i in range(20)]
    article = [f"This is sentence {i} of the article, which goes on a while, and it ends properly." for i in range(9)]
    cleaned = drop_chrome("\n".join(menu + article + links))
    assert cleaned.split("\n") == article


def test_short_pages_keep_their_lines_but_lose_a_bottom_link_list() -> None:
    lines = ["A title", "Some text of the page that ends.", "Related", "Link one", "Link two", "Link three"]
    assert drop_chrome("\n".join(lines)).split("\n") == lines[:2]
    assert drop_chrome("\n".join(lines[:2])).split("\n") == lines[:2]


def test_paragraphs_closing_a_bracket_after_their_sentence_end_are_not_a_link_list() -> None:
    # "(Contributed by A. Writer in bpo-1.)": every paragraph of a changelog page ends so.  Taken
    # for a link list at the bottom, the whole article went, and what was left of such pages (the
    # site's title, menu and cookie notice) made one cluster of a site's articles.
    article = [f"Add feature {i} to the module, with options. (Contributed by A. Writer in bpo-{i}.)" for i in range(5)]
    lines = ["A title", "A notice of the site that ends.", *article]
    assert drop_chrome("\n".join(lines)).split("\n") == lines
    links = ["Related", "Identifying the Disks (2)", "Handling Problems (3)", "Design improvements (4)"]
    assert drop_chrome("\n".join(lines + links)).split("\n") == lines  # a title's "(2)" ends no sentence
    zh = [f"新增第{i}项功能，并附带选项的说明。（由某位作者贡献。）" for i in range(4)]
    assert drop_chrome("\n".join(["标题", "网站的声明到此结束。", *zh])).split("\n")[2:] == zh
    fingerprinter = Fingerprinter(Options())
    page = "\n".join(lines + links)
    features = fingerprinter.features(page)  # the C's, when it is built
    assert features == fingerprinter.features_python(page)
    assert "contributedbyawriterinbpo-4" in features.whole


def test_paragraphs_joined_into_one_line_are_not_a_link_title() -> None:
    # A copy that lost its paragraph breaks is one long line; when its last sentence has no end
    # (a truncated copy, code at the end), it and the footer below it were a bottom "link list",
    # and what was left of the page (its site's title, menu and cookie notice) joined the site's
    # other articles.  Sentence ends inside a line make it prose.
    body = " ".join(f"Sentence {i} of the article says something. It goes on!" for i in range(4)) + " and then"
    footer = ["Previous article: Another title", "Contact us: editor@example.org", "© 2021 Example Media"]
    lines = ["A title", "Home > News > Article", "A cookie notice of the site that ends.", body, *footer]
    assert drop_chrome("\n".join(lines)).split("\n") == lines[:4]
    headlines = "Title one | Title two and three · Title four · Title five " * 3
    assert drop_chrome("\n".join([*lines[:3], headlines, *footer])).split("\n") == lines[:3]
    zh = "第一句话说了一件事。第二句话接着说！第三句话问了一个问题？然后没有结束"
    assert drop_chrome("\n".join(["标题", "网站的声明到此结束。", zh, *footer])).split("\n")[2:] == [zh]
    fingerprinter = Fingerprinter(Options())
    page = "\n".join(lines)
    assert fingerprinter.features(page) == fingerprinter.features_python(page)  # the C's, when it is built


def test_long_lines_are_broken_after_their_sentence_ends() -> None:
    sentences = [f"Sentence {i} of a page that lost its line breaks goes on a while." for i in range(12)]
    quoted = 'He said "it ends here." Then it went on, for pi is 3.14 and e.g.this stays.'
    line = " ".join([*sentences, quoted])
    assert len(line) > FLAT_LINE
    lines = restore_lines(line).split("\n")
    assert lines[:12] == sentences
    assert lines[12:] == ['He said "it ends here."', "Then it went on, for pi is 3.14 and e.g.this stays."]
    zh = "".join(f"第{i}句话说了一件很长很长的事情，而且还在继续说下去。" for i in range(10))
    zh += "「引用的话结束了。」然后呢？！没有了"
    # "然后呢？！" weighs less than FLAT_PIECE: it stays with what follows.
    assert restore_lines(zh).split("\n")[-2:] == ["「引用的话结束了。」", "然后呢？！没有了"]
    related = restore_lines(zh + "。分享到：微信 微博 相关文章：第一篇文章的标题 第二篇文章的标题").split("\n")
    assert related[-2:] == ["微信 微博 相关文章：", "第一篇文章的标题 第二篇文章的标题"]
    assert restore_lines(line + " You may also like: titles").endswith("stays.\nYou may also like: titles")
    # Lines at most FLAT_LINE (CJK characters count twice) are left as they are, whatever the page.
    short = " ".join(sentences[:4])
    assert restore_lines(short) == short and restore_lines(f"{short}\n{line}").startswith(short + "\n")
    assert restore_lines(zh[: FLAT_LINE // 2]) == zh[: FLAT_LINE // 2]


def test_a_page_without_any_line_break_has_its_first_and_last_lines_broken_over_300() -> None:
    # A title, a menu and a notice glued into one first line of 300-450 (and a notice and related titles
    # into a last one): kept whole on a page that came with line breaks, broken on one that came with
    # none, even when its block tags gave its article lines.  Its middle lines are left as they are.
    notice = " ".join(f"Notice sentence {i} of the site goes on." for i in range(9))
    header, footer = f"A title Home | News | About {notice}", f"{notice} Popular now: Other titles"
    assert FLAT_EDGE < len(header) < FLAT_LINE and FLAT_EDGE < len(footer) < FLAT_LINE
    assert restore_lines(header) == header
    assert restore_edges(header).count("\n") == 8
    middle = "\n".join([header, header])
    assert restore_edges(f"\n \n{middle}\n{middle}\n \n").count("\n") == 7 + 2 * 8  # blank edge lines skipped
    fingerprinter = Fingerprinter(Options())
    article = f"<p>An article sentence that goes on.</p><p>{notice}</p><p>Another one of them.</p>"
    pages = {  # how many lines: the article's paragraph of notices stays whole
        f"{header} {article} {footer}": 9 + 3 + 10,
        f"{header}\n{article}\n{footer}": 1 + 3 + 1,
        f"<html><body><p>{header}</p>{article}<p>{footer}</p></body></html>": 9 + 3 + 10,
        header: 9,
    }
    for page, lines in pages.items():
        assert len([line for line in fingerprinter.clean(page).split("\n") if line.strip()]) == lines, page
        assert fingerprinter.features(page) == fingerprinter.features_python(page)  # the C's, when it is built


@pytest.mark.parametrize("newline", ["\r", "\r\n", "\u2028", "\x85"], ids=["cr", "crlf", "u2028", "nel"])
def test_every_line_break_is_a_line_break(newline: str) -> None:
    # Pages whose lines end in "\r" alone or U+2028 were one line to the chrome and frame rules.
    lines = ["A title", "Home | News | Tech | About", "An article sentence that goes on a while. " * 3, "© Site"]
    fingerprinter = Fingerprinter(Options())
    page = "\n".join(lines)
    assert fingerprinter.features(page.replace("\n", newline)) == fingerprinter.features(page)
    assert fingerprinter.features_python(page.replace("\n", newline)) == fingerprinter.features_python(page)


_FLAT_CHARS = "ab 中文。！？：.!?:\"'”’」』）)\u3000\r\n\t\u2028\x85"
_FLAT_PIECE = st.text(alphabet=st.sampled_from(_FLAT_CHARS), min_size=4, max_size=24)


@pytest.mark.parametrize(
    "options", [{}, {"chrome": False}, {"normalize": False}, {"split": "design", "fold": False}], ids=str
)
@given(st.lists(st.lists(_FLAT_PIECE, max_size=6), max_size=4))
def test_restore_lines_in_c_is_the_python(options: dict[str, Any], lines: list[list[str]]) -> None:
    fingerprinter = Fingerprinter(Options(**options))
    page = "\n".join(" ".join(piece * 12 for piece in line) for line in lines)  # lines over FLAT_LINE too
    assert fingerprinter.features(page) == fingerprinter.features_python(page)  # the C's, when it is built


def test_hard_wrapped_lines_are_joined_but_menus_are_not() -> None:
    wrapped = "The sentence goes on past the edge of the column and\nends on the next line."
    assert drop_chrome(wrapped) == "The sentence goes on past the edge of the column and ends on the next line."
    menu = "A long title of the page that has no sentence end at all\nhome | news | tech | about"
    assert drop_chrome(menu).count("\n") == 1


#: A story wrapped at 38 columns: lines of 30-38 characters, some starting in
#: lower case, sentence ends inside lines but none at a line's end.
_NARROW_STORY = textwrap.fill(
    "The old mill by the river was sold to a group of local farmers in the spring of last year, "
    "and they plan to turn it into a market hall for the whole valley. Mary Hope, who leads the group, "
    "said the work on the roof would start as soon as the rain stops, and that the hall could open "
    "before the harvest. the town council gave its consent in March. a grant from the county will pay "
    "for half of the cost of the new floor and the stairs",
    width=38,
)


def test_a_story_wrapped_at_38_columns_is_joined_and_kept_on_a_whole_page() -> None:
    assert all(30 <= len(line) < chrome.WRAP_MIN for line in _NARROW_STORY.split("\n"))
    menus = [f"Section {i} of the site" for i in range(24)]
    page = "\n".join([*menus, _NARROW_STORY, *(f"Footer link {i}" for i in range(16))])
    joined = " ".join(_NARROW_STORY.split("\n"))
    assert joined in drop_chrome(page).split("\n")  # one line: not cut into a "link list" and dropped
    fingerprinter = Fingerprinter(Options())
    normalised = re.sub(r"[\s,.]", "", joined.lower())
    assert normalised in fingerprinter.features(page).whole  # the C's, when it is built
    assert normalised in fingerprinter.features_python(page).whole


def test_a_short_line_joins_a_lower_case_line_only_as_latin_text() -> None:
    title = "A title of thirty-odd characters"  # no sentence end, and the next line starts in upper case
    assert drop_chrome(f"{title}\nThe story begins here.") == f"{title}\nThe story begins here."
    cjk = "第一章：安装以后需要检查的几个设置"  # 17 CJK characters: weighs 34, below WRAP_MIN
    assert drop_chrome(f"{cjk}\nsystemd 会在启动时读取它们。").count("\n") == 1
    cjk_title = "控制 xinetd CONTROLLING XINETD"  # weighs 30, ends in a Latin word, but holds CJK
    assert drop_chrome(f"{cjk_title}\nxinetd 收到一定的信号时会执行一定的动作。").count("\n") == 1
    dateline = "发布时间：2019-02-09 06:17 来源：火山在线 作者：张霞"  # WRAP_MIN or more: as before
    assert drop_chrome(f"{dateline}\nprocfs 和 sysfs 两个伪文件系统。").count("\n") == 0
    assert drop_chrome(f"{title}\nand goes on here.") == f"{title} and goes on here."


def test_traditional_chinese_folds_to_simplified() -> None:
    simplified = "这是一个关于经济发展的报道，记者在现场进行了采访。"
    traditional = "這是一個關於經濟發展的報道，記者在現場進行了採訪。"
    assert fold_chars(traditional) == simplified
    nsh = nshash.NSHash()
    assert nsh.get_similar(simplified * 3) == nsh.get_similar(traditional * 3)
    assert nshash.NSHash(fold=False).get_nshash(traditional) != nsh.get_nshash(traditional)


def test_a_taiwanese_copy_folds_to_its_mainland_source(monkeypatch: pytest.MonkeyPatch) -> None:
    # OpenCC's s2twp writes Taiwanese words (軟體, 程式碼, 記憶體, 伺服器): the character table alone
    # leaves them other words, the phrase table folds them back.
    mainland = (
        "这个软件的代码需要更多的内存，服务器的硬盘也快满了。管理员打算明天用鼠标和屏幕检查网络，然后重新启动程序。"
    )
    taiwan = (
        "這個軟體的程式碼需要更多的記憶體，伺服器的硬碟也快滿了。管理員打算明天用滑鼠和螢幕檢查網路，然後重新啟動程式。"
    )
    assert fold_chars(taiwan) == fold_chars(mainland)
    nsh = nshash.NSHash()
    assert nsh.get_nshash(taiwan) == nsh.get_nshash(mainland)  # the C features too, when built
    assert nsh.get_similar(mainland * 2) == nsh.get_similar(taiwan * 2)
    monkeypatch.setattr(nshash.fold, "phrase_table", lambda: {})
    monkeypatch.setattr(nshash.fold, "_phrases", lambda: (re.compile("(?!)"), frozenset()))
    assert fold_chars(taiwan) != fold_chars(mainland)  # characters alone do not make them one text


def test_full_width_digits_and_letters_fold_to_ascii_but_not_punctuation() -> None:
    page = (
        "服务器的ＣＰＵ使用率在２０２４年达到了峰值，运维团队随后增加了Ｗｅｂ节点的数量！"
        "第二句话也很长，讲的是另一件事。"
    )
    typed = "服务器的CPU使用率在2024年达到了峰值，运维团队随后增加了Web节点的数量！第二句话也很长，讲的是另一件事。"
    assert fold_chars(page) == typed
    assert fold_chars("！？，（）") == "！？，（）"  # they end or split Chinese sentences
    nsh = nshash.NSHash()
    assert nsh.get_nshash(page) == nsh.get_nshash(typed)
    assert nsh.get_similar(page) == nsh.get_similar(typed)
    assert nshash.NSHash(fold=False).get_nshash(page) != nsh.get_nshash(page)


def test_a_dot_after_cjk_ends_a_sentence() -> None:
    assert split_sentences("第一句话很长.第二句话也很长.") == ["第一句话很长", "第二句话也很长", ""]
    assert split_sentences("version 1.2 is out") == ["version12isout"]


def test_anchors_are_sized_by_script() -> None:
    f = Fingerprinter(Options())
    latin, cjk = "a" * 19 + "b" * 30, "中" * 11 + "文" * 30
    assert len(f.nshash(latin)) == 2 and len(f.nshash(cjk)) == 2
    # The 21st Latin character lies past the 20-character head; the 12th CJK character does not.
    assert f.nshash(latin)[0] == f.nshash("a" * 19 + "b" + "c" + "b" * 28)[0]
    assert f.nshash(cjk)[0] != f.nshash("中" * 11 + "字" + "文" * 29)[0]


def test_a_sentence_between_one_and_two_anchors_is_keyed_by_its_halves() -> None:
    f = Fingerprinter(Options())
    cjk = "甲乙丙丁戊己庚辛壬癸子丑寅卯辰巳午"  # 17 CJK characters: one to two anchors
    head, tail = f.nshash(cjk)
    first, second = cjk.replace("乙", "一"), cjk.replace("巳", "二")  # one edit in each half
    assert f.nshash(first)[0] != head and f.nshash(first)[1] == tail
    assert f.nshash(second)[0] == head and f.nshash(second)[1] != tail
    middle = cjk.replace("壬", "三")  # an odd length's middle character is in both halves
    assert f.nshash(middle)[0] != head and f.nshash(middle)[1] != tail
    latin = "the quick brown fox jumps"  # 21 letters normalised: one to two Latin anchors
    keys = f.nshash(latin)
    assert f.nshash(latin.replace("quick", "quack"))[1] == keys[1]
    assert f.nshash(latin.replace("jumps", "jumped"))[0] == keys[0]
    short = "甲乙丙丁戊己庚辛壬癸子"  # 11: below one anchor, its own head and tail
    assert set(f.nshash(short.replace("乙", "一"))).isdisjoint(f.nshash(short))


@pytest.mark.parametrize(
    ("name", "value"),
    [("n", 0), ("n", 65), ("n", 2**62), ("extra", -1), ("anchor", 2**62), ("members", 5), ("verify", 0), ("verify", 2)],
)
def test_options_out_of_range_are_refused(name: str, value: object) -> None:
    with pytest.raises(nshash.OptionError, match=name):
        nshash.NSHash(**{name: value})


def test_options_round_trip_through_their_stored_form() -> None:
    options = Options(n=7, verify=0.8)
    assert Options.from_stored(options.stored()) == options
    assert set(options.stored()) == {*OPTION_NAMES, "algorithm", "version"}


def test_pinned_sketch() -> None:
    value = sketch("the quick brown fox jumps over the lazy dog")
    assert value.grams == 39
    assert value.slots[:8].hex() == sketch("the quick brown fox jumps over the lazy dog").slots[:8].hex()
    assert value.slots[:8].hex() == "2c652db67131f6f0"
    assert len(value.slots) == SLOTS


@given(st.text(min_size=0, max_size=300))
def test_a_text_contains_itself_and_members_round_trip(text: str) -> None:
    value = sketch(text)
    assert containment(value, value) == (1.0 if text else 0.0)
    keys = [hash(line) & 0xFFFFFFFF for line in text.split("\n")]
    member = Member(value, line_filter(keys), member_tail(keys, [len(line) for line in text.split("\n")]))
    assert member.tail > 0
    assert from_entries(to_entries(member)) == member
    assert all(has_line(member.lines, key) for key in keys)
    # A member stored before tails were kept reads as tail 0 ("not known").
    assert from_entries([value.grams, *to_entries(member)[1:]]) == member._replace(tail=0)


def test_shared_chrome_needs_a_shared_footer() -> None:
    grams = [10, 5, 100, 100, 20, 30]
    header_footer = line_filter([1, 2, 5, 6])
    assert shared_chrome([1, 2, 3, 4, 5, 6], grams, header_footer) == 10 + 5 + 20 + 30
    # Only the top shared (a truncated copy keeps an article's top): nothing is left out.
    assert shared_chrome([1, 2, 3, 4, 5, 6], grams, line_filter([1, 2, 3])) == 0
    # The top shared and, over short lines of the page's own, the same run from the bottom: one block
    # (a truncated copy above a list of titles), nothing left out.
    assert shared_chrome([1, 2, 3, 4, 5, 6], grams, line_filter([2, 3, 4])) == 0
    # The same run reaching the page's bottom is left out: a page of nothing but its site's frame.
    assert shared_chrome([1, 2, 3, 4], [10, 5, 100, 100], line_filter([2, 3, 4])) == 205


@pytest.mark.parametrize("unit", ["\n", "。", "a。", "\n\n\t "])
def test_a_page_without_usable_sentences_takes_memory_in_proportion(unit: str) -> None:
    import tracemalloc

    # Half a million characters: large enough that only what grows with the page counts (the pure
    # Python pass took 50 s on 2 million characters of "a。" under tracemalloc).
    doc = unit * (500_000 // len(unit))
    nsh = nshash.NSHash()
    tracemalloc.start()
    nsh.get_similar(doc)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    # 1.0 peaked at ~62 bytes a character on such pages.  "a。" is one line over text.FLAT_LINE,
    # broken into 250,000 lines, each with its key, size and end (26 bytes a character).
    assert peak < 32 * len(doc)


def test_full_width_lines_are_judged_as_chrome_as_their_ascii_forms() -> None:
    # Folded before the chrome is judged: "Ｓｈａｒｅ ｔｈｉｓ ｓｔｏｒｙ" weighs as CJK (two a
    # character) unfolded, and would be kept as a line of text where "Share this story" goes.
    paragraph = "这是一个很长的段落，讲的是服务器的运维，记者在现场进行了采访并记录了细节。"
    lines = [paragraph.replace("服务器", f"第{i}台服务器") for i in range(40)]
    page = "\n".join([*lines[:20], "Share this story", *lines[20:]])
    typed = "".join(chr(ord(c) + 0xFEE0) if c.isascii() and c.isalnum() else c for c in page)
    fingerprinter = nshash.NSHash().fingerprinter
    assert "story" not in fingerprinter.clean(page)
    assert fingerprinter.clean(typed) == fingerprinter.clean(page)
    assert fingerprinter.features(typed) == fingerprinter.features(page)


def test_the_fold_tables_are_what_their_script_writes(tmp_path: Path) -> None:
    # nshash/data/t2s.txt and tw2cn.txt come from OpenCC's dictionaries through scripts/make_t2s.py
    # (the phrases less those jieba counts as common mainland words): the script gives them again.
    pytest.importorskip("opencc")
    pytest.importorskip("jieba")
    import importlib.util

    root = Path(__file__).resolve().parent.parent
    spec = importlib.util.spec_from_file_location("make_t2s", root / "scripts" / "make_t2s.py")
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    script.OUT = tmp_path / "t2s.txt"
    script.PHRASES = tmp_path / "tw2cn.txt"
    assert script.main() == 0
    for name in ("t2s.txt", "tw2cn.txt"):
        assert (tmp_path / name).read_bytes() == (root / "nshash" / "data" / name).read_bytes(), name


@pytest.mark.parametrize("char", ["\u00ad", "\u200c", "\u200d", "\u200e", "\u200f", "\u2060"])
def test_invisible_format_characters_are_noise(char: str) -> None:
    # A site's hyphenation (&shy;, 40 of the real pages' full texts, which their trafilatura text lacks), joiners,
    # direction marks and word joiners: the page reads the same without them.
    article = "\n".join(
        f"Paragraph {i} says that the committee approved the extraordinary proposal unanimously." for i in range(6)
    )
    marked = re.sub(r"([a-z]{3})([a-z]{3,})", lambda m: m.group(1) + char + m.group(2), article)
    assert marked != article
    fingerprinter = Fingerprinter(Options())
    assert fingerprinter.features(marked) == fingerprinter.features(article)
    assert fingerprinter.features_python(strip_html(marked.replace(char, "&shy;"))) == fingerprinter.features(article)
