"""Markup a page carries escaped or in CDATA sections (nshash/escaped.py): a feed's item is its article."""

from __future__ import annotations

import html
import json
import random

import pytest

import nshash
from nshash import escaped
from nshash.escaped import JSON_MIN_ESCAPES, escaped_markup, json_escaped, strip_cdata, unescape_json
from nshash.fingerprint import Fingerprinter
from nshash.options import Options
from nshash.text import strip_html

STORY = [
    "The river floods every spring, and the town has moved twice since the bridge was built.",
    "Its mayor says the third move will be the last, because the new houses stand on the hill.",
    "The farmers who stayed by the water plant rice now, which the floods do not harm.",
]
LINK = '<a href="https://example.com/hill?x=1&amp;y=2">hill</a>'
ARTICLE = "<p>" + "</p><p>".join(STORY).replace("hill", LINK) + "</p>"


def item(description: str) -> str:
    return f"<item><title>The river town</title><link>https://example.com/a</link>{description}</item>"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("&lt;p&gt;A&lt;/p&gt;", True),
        ("&lt;/div&gt;", True),
        ("&lt;!-- a comment --&gt;", True),
        ("a &lt; b and c &gt; d", False),
        ("&lt;3 and &lt;/3", False),
        ("&amp;lt;p&amp;gt; (escaped twice: the page shows an escaped tag)", False),
        ("<p>plain markup</p>", False),
    ],
)
def test_an_escaped_tag_is_a_letter_a_closing_tag_or_a_bang_after_lt(text: str, expected: bool) -> None:
    assert escaped_markup(text) is expected


def test_cdata_markers_go_and_their_contents_stay() -> None:
    assert strip_cdata("<d><![CDATA[<p>A & B</p>]]></d> ]]>") == "<d><p>A & B</p></d> "
    assert strip_cdata("no section ]]> here") == "no section ]]> here"  # a "]]>" alone is text
    assert strip_html("<d><![CDATA[A story.]]></d>") == "A story."


@pytest.mark.parametrize(
    "description",
    [f"<description>{html.escape(ARTICLE)}</description>", f"<description><![CDATA[{ARTICLE}]]></description>"],
    ids=["escaped", "cdata"],
)
def test_a_feeds_item_is_its_article(description: str) -> None:
    nsh = nshash.NSHash()
    first = nsh.get_similar("\n".join(STORY))
    assert nsh.get_similar(ARTICLE) == first
    assert nsh.get_similar(item(description)) == first
    assert "<p>" not in Fingerprinter(Options()).clean(item(description))


def test_a_page_showing_html_is_cleaned_as_its_visible_text() -> None:
    # Its raw HTML escapes the tags it shows; its visible text has them as tags, which cleaning strips too.
    raw = "<p>Write each paragraph between &lt;p&gt; and &lt;/p&gt; tags, and a line break as &lt;br&gt;.</p>"
    visible = "Write each paragraph between <p> and </p> tags, and a line break as <br>."
    fingerprinter = Fingerprinter(Options())
    assert fingerprinter.clean(raw) == fingerprinter.clean(visible)


def test_a_page_is_stripped_again_while_a_round_began_with_an_escaped_tag() -> None:
    # An item's text escapes its own "<" once more: stripped as its plain text strips "<file>".
    assert strip_html("&lt;p&gt;Edit &amp;lt;file&amp;gt; now.&lt;/p&gt;") == strip_html("<p>Edit <file> now.</p>")
    assert strip_html("&lt;p&gt;A &amp;amp; B&lt;/p&gt;") == "\nA & B\n"
    # A text that begins no round with an escaped tag is stripped once: "&amp;lt;p&amp;gt;" shows "&lt;p&gt;".
    assert strip_html("&amp;lt;p&amp;gt;A story.") == "&lt;p&gt;A story."
    # At most STRIP_ROUNDS (3) rounds: each round strips a level and unescapes the next.
    deep = "&lt;i&gt;&amp;lt;b&amp;gt;&amp;amp;lt;u&amp;amp;gt;&amp;amp;amp;lt;s&amp;amp;amp;gt;x"
    assert strip_html(deep) == "<u>&lt;s&gt;x"


ZH = "北京时间昨天晚上，一场大雨让城市的交通陷入停顿。\n气象部门表示，今年的雨季比往年来得更早！"


def test_a_page_stored_as_a_json_string_is_its_page() -> None:
    line = json.dumps({"url": "https://example.com/a", "text": ZH + '\nA line with "quotes" and a \\ too.'})
    assert line.isascii() and json_escaped(line)
    assert json.loads(line)["text"] in unescape_json(line)
    nsh = nshash.NSHash()
    first = nsh.get_similar(ZH)
    assert nsh.get_similar(line) == first


def test_an_english_page_stored_as_a_json_string_is_its_page() -> None:
    # Few escapes past ASCII, but its lines are one line of text, each break an escaped one.
    page = "\n".join(f"Paragraph {i} of the story, long enough to be one of its keys here." for i in range(10))
    line = json.dumps({"text": page})
    assert line.count("\\u") == 0 and json_escaped(line)
    assert page in unescape_json(line)
    assert not json_escaped(line.replace("\\n", "\\n\n", 1))  # a real line break: not one line of JSON


def test_surrogate_pairs_are_their_character_and_a_lone_one_is_a_replacement() -> None:
    escaped = json.dumps("北京" * JSON_MIN_ESCAPES + "😀")[1:-1]  # ends in \\ud83d\\ude00
    assert unescape_json(escaped).endswith("😀")
    assert unescape_json(escaped + "\\ud83d") == "北京" * JSON_MIN_ESCAPES + "😀\ufffd"


@pytest.mark.parametrize(
    "text",
    [
        'print("\\u00e9") and a page of code about Unicode escapes: ' * 3,  # few escapes for its length
        json.dumps("北京" * 3),  # six escapes: too few
        json.dumps("北京" * JSON_MIN_ESCAPES, ensure_ascii=False),  # not ASCII: not escaped
        "\\u12 \\uzzzz" * 20,  # no escape at all
    ],
)
def test_other_texts_with_backslashes_are_left_as_they_are(text: str) -> None:
    assert not json_escaped(text)
    assert unescape_json(text) == text


@pytest.mark.parametrize("size", [1, 2, 5, 7, 64])
def test_escapes_are_decoded_slice_by_slice_as_whole(monkeypatch: pytest.MonkeyPatch, size: int) -> None:
    # Slices are cut where an escape begins (an even run of backslashes before it): "\\\\u" stays whole.
    rng = random.Random(size)
    tokens = ["\\u4e2d", "\\\\", "\\n", "\\", "u12", '\\"', "\\/", "ab", "\\ud83d\\ude00"]
    texts = ["".join(rng.choice(tokens) for _ in range(rng.randrange(60))) for _ in range(300)]
    whole = [escaped._unescaped(text) for text in texts]
    monkeypatch.setattr(escaped, "_SLICE", size)
    for text, expected in zip(texts, whole):
        slices = escaped._escape_slices(text)
        assert "".join(slices) == text
        assert "".join(map(escaped._unescaped, slices)) == expected
