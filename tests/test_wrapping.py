"""Pages hard-wrapped at a width (mail, newsletters, lynx, html2text): their lines joined back as they were."""

from __future__ import annotations

import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nshash
from nshash.chrome import WRAP_WIDEST, drop_chrome, wrap_width
from nshash.fingerprint import Fingerprinter
from nshash.linebreaks import restore_lines
from nshash.options import Options

_NOTICES = [
    "The content on this page is provided as is, without warranty of any kind. Commands and configuration "
    "examples should be tested in a safe environment before being used on production systems.",
    "Except where otherwise noted, content on this site is licensed under a Creative Commons "
    "Attribution-ShareAlike 4.0 International License. Trademarks and brands mentioned on this site are the "
    "property of their respective owners.",
    "Some of the content on this site is republished from other websites with attribution. If you are the owner "
    "of any material and do not wish it to appear here, please let us know and it will be taken down promptly.",
]


_ARTICLES = {
    "bridge": [
        "The new bridge over the river was the subject of a long meeting of the town council on Tuesday evening, "
        "where members of the public asked many questions about its cost and schedule.",
        "Officials said it would be finished before the end of the year, and that the county had approved the "
        "budget after an outside engineering firm reviewed the plans.",
    ],
    "school": [
        "Teachers at the primary school on Elm Street will get new laptops this autumn, paid for by a grant that "
        "a local charity won after two years of applications and fundraising dinners.",
        "The head teacher thanked the parents who volunteered and said the old machines would be repaired and "
        "given to the adult education centre across the square.",
    ],
    "river": [
        "Volunteers pulled more than three tonnes of rubbish out of the river last weekend, including two "
        "shopping trolleys, a rusted bicycle and hundreds of plastic bottles.",
        "Organisers hope to make the cleanup a monthly event and are asking businesses along the bank to lend "
        "boats, gloves and a van to carry the waste to the recycling plant.",
    ],
    "library": [
        "From next month the central library will open on Sunday afternoons, a change that readers have asked "
        "for since the branch in the north of the city closed.",
        "Staff said the extra hours were possible because students from the university had offered to help "
        "with the shelves and the children's reading corner.",
    ],
    "buses": [
        "Three bus routes will change in March as the operator moves its depot to the industrial estate, and "
        "some early services will start from the railway station instead.",
        "Passengers can find the new timetables at every stop, and drivers will hand out leaflets during the "
        "first two weeks to explain which stops are no longer served.",
    ],
    "festival": [
        "The summer festival in the park drew a record crowd of twelve thousand people, who came for the food "
        "stalls, the open-air cinema and a concert by the town's brass band.",
        "Next year the organisers want to add a second stage for young musicians and a quiet area with shade "
        "for families with small children and older visitors.",
    ],
}


def _page(topic: str) -> list[str]:
    return [f"News about the {topic}", "Home | News | Sports | Weather | About", *_ARTICLES[topic], *_NOTICES]


def _wrapped(lines: list[str], width: int, between: str = "\n", indent: str = "") -> str:
    return between.join(
        "\n".join(textwrap.wrap(line, width, initial_indent=indent, subsequent_indent=indent)) for line in lines
    )


def test_the_width_of_a_wrapped_page_is_its_longest_line_of_prose() -> None:
    page = _page("bridge")
    assert wrap_width("\n".join(page)) == 0  # its paragraphs are single lines, longer than any width
    text = _wrapped(page, 72)
    assert wrap_width(text) == max(len(line) for line in text.split("\n")) <= 72
    assert wrap_width(_wrapped(page, 72, indent="   ")) > 0  # lynx's indented paragraphs
    assert wrap_width(_wrapped(page[:3], 72)) == 0  # too few full lines to tell a width
    url = "https://example.com/" + "a" * WRAP_WIDEST  # a line without a space does not count
    assert wrap_width(text + "\n" + url) == wrap_width(text)
    long_line = "word " * (WRAP_WIDEST // 5 + 1)  # prose longer than any width: not a wrapped page
    assert wrap_width(text + "\n" + long_line) == 0
    chinese = "这是一个关于经济发展的报道，记者在现场进行了采访，" * 8
    assert wrap_width(text + "\n" + chinese) == wrap_width(text)  # Chinese lines neither count nor stop it


@pytest.mark.parametrize("width", [60, 72, 78, 79])
@pytest.mark.parametrize("indent", ["", "   "])
def test_a_page_wrapped_with_blank_lines_between_paragraphs_gets_its_lines_back(width: int, indent: str) -> None:
    page = _page("bridge")
    assert drop_chrome(_wrapped(page, width, "\n\n", indent)) == drop_chrome("\n".join(page))


def test_a_notice_wrapped_before_a_capital_letter_is_one_line_again() -> None:
    # "... licensed under a" / "Creative Commons ...": no lower-case start, so only the width tells the wrap.
    wrapped = _wrapped(_page("bridge"), 72)
    assert "under a\nCreative" in wrapped
    assert _NOTICES[1] in drop_chrome(wrapped).split("\n")


def test_a_blank_line_a_menu_or_a_broken_url_is_no_wrap() -> None:
    page = _wrapped(_page("bridge"), 72)
    width = wrap_width(page)
    # Lines as full as the page's, after which "The" would not have fitted: wraps, unless
    title = ("A heading of the page that runs on as far as the lines of the page do " * 2)[: width - 2].rstrip()
    menu = ("Home | News | Sports | Weather | About | Contact | Archive | Search " * 2)[: width - 1].rstrip(" |")
    url = ("https://example.com/a/very/long/address/that/was/broken/by/the/wrapping" * 2)[: width - 1]
    assert all(len(line) + 1 + len("The") > width for line in (title, menu, url))
    assert f"{title} The" in drop_chrome(f"{page}\n{title}\nThe next paragraph starts here.")
    # a blank line is between (a paragraph ended), the line is a menu, or it holds no space (not prose):
    assert f"{title}\nThe" in drop_chrome(f"{page}\n{title}\n\nThe next paragraph starts here.")
    assert f"{menu}\nThe" in drop_chrome(f"{page}\n{menu}\nThe next paragraph starts here.")
    assert f"{url}\nThe" in drop_chrome(f"{page}\n{url}\nThe next paragraph starts here.")


def test_a_site_sending_some_pages_wrapped_does_not_join_its_articles_through_its_footer() -> None:
    nsh = nshash.NSHash()
    ids = {}
    for number, topic in enumerate(_ARTICLES):
        page = _page(topic)
        ids[topic] = nsh.get_similar(_wrapped(page, 72) if number % 2 else "\n".join(page))
    assert len(set(ids.values())) == len(_ARTICLES)
    # and a page sent the other way finds its own article
    for number, topic in enumerate(_ARTICLES):
        page = _page(topic)
        assert nsh.get_similar("\n".join(page) if number % 2 else _wrapped(page, 72)) == ids[topic]


_WORD = st.sampled_from(
    ["a", "the", "river", "Bridge", "council", "2024,", "end.", "New", "(see", "it)", "中文", "x" * 14]
)
_PARAGRAPH = st.lists(_WORD, min_size=1, max_size=60).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(_PARAGRAPH, min_size=1, max_size=12),
    st.integers(min_value=20, max_value=170),
    st.sampled_from(["\n", "\n\n", "\n \n"]),
    st.sampled_from(["", "   ", "> "]),
    st.integers(min_value=-1, max_value=12),
)
def test_joining_wrapped_lines_in_c_is_the_python(
    paragraphs: list[str], width: int, between: str, indent: str, long_at: int
) -> None:
    fingerprinter = Fingerprinter(Options())
    page = _wrapped(paragraphs, width, between, indent)
    if long_at >= 0:  # a paragraph on one line, long enough to be broken after its sentences (FLAT_LINE)
        lines = page.split("\n")
        lines.insert(min(long_at, len(lines)), " ".join(paragraphs * 8) + " The end.")
        page = "\n".join(lines)
    assert fingerprinter.features(page) == fingerprinter.features_python(page)  # the C's, when it is built


def test_the_pieces_of_a_long_line_broken_after_its_sentences_are_no_wraps() -> None:
    # A paragraph of 500 characters on one line is broken after its sentences (linebreaks.FLAT_LINE); with
    # other long lines below that do not end a sentence (related articles' titles), the pieces look like a
    # wrapped page's lines, but the page came with that line: its width is read before it is broken.
    long = "Sentence {} of the long paragraph goes on and on, and on again, to about ninety letters."
    sentences = [long.format(1), long.format(2), "A shorter sentence of forty letters.", *map(long.format, (4, 5, 6))]
    related = [
        f"Another article of this site {i}: the town council, the river and the new bridge over it" for i in range(6)
    ]
    page = "\n".join([" ".join(sentences), *related])
    assert wrap_width(page) == 0 and wrap_width(restore_lines(page)) > 0
    cleaned = Fingerprinter(Options()).clean(page).split("\n")  # the C's, when it is built
    pieces = restore_lines(" ".join(sentences)).split("\n")
    assert len(pieces) > 5 and all(piece in cleaned for piece in pieces)  # not joined again
    assert Fingerprinter(Options()).features_python(page).whole == Fingerprinter(Options()).features(page).whole


@pytest.mark.parametrize(
    "sentence",
    [
        "भारतीय रिज़र्व बैंक ने आज ब्याज दरों में कोई बदलाव नहीं करने का फैसला किया।",
        "پاکستان نے آج آئرلینڈ کو ایک سنسنی خیز مقابلے کے بعد سات وکٹوں سے شکست دے دی۔",
        "မြန်မာနိုင်ငံသည် အရှေ့တောင်အာရှတွင် ရှိပြီး ရန်ကုန်မြို့သည် အကြီးဆုံးမြို့ ဖြစ်သည်။",
    ],
    ids=["Hindi", "Urdu", "Burmese"],
)
def test_a_long_line_is_broken_after_the_full_stops_of_its_script(sentence: str) -> None:
    page = " ".join(f"{i} {sentence}" for i in range(12))  # a paragraph on one line, over FLAT_LINE
    pieces = restore_lines(page).split("\n")
    assert len(pieces) == 12 and all(piece.rstrip().endswith(sentence[-1]) for piece in pieces)
    fingerprinter = Fingerprinter(Options())
    assert fingerprinter.features(page) == fingerprinter.features_python(page)  # the C's, when it is built
