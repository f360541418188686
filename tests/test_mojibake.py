"""A page whose UTF-8 bytes were read as Latin-1 or Windows-1252 (nshash.encoding.repair_mojibake) is the same
article as the page read right: what ``requests`` gives for a page served without a charset."""

from __future__ import annotations

import pytest

import nshash
from nshash.encoding import CP1252_HIGH, GB_MIN_BYTES, MOJIBAKE_ROUNDS, repair_mojibake
from nshash.fingerprint import Fingerprinter
from nshash.options import Options

ZH = "北京时间昨天晚上，一场大雨让城市的交通陷入停顿。气象部门表示，今年的雨季比往年来得更早！"
EN = "The mayor’s “third move” — she says — will be the last; the houses cost €200,000 each."


def latin1(text: str) -> str:
    return text.encode("utf-8").decode("latin-1")


def cp1252(text: str) -> str:
    """As browsers read Windows-1252 (the WHATWG decoder: its five unused bytes as C1 controls)."""
    return "".join(bytes([b]).decode("cp1252", errors="ignore") or chr(b) for b in text.encode("utf-8"))


def test_a_misread_page_goes_back_to_the_bytes_it_was_read_from() -> None:
    # Every character below U+0100 is its byte and CP1252_HIGH's are theirs: Latin-1 and Windows-1252 read
    # (as browsers do) give back the bytes read.
    data = bytes(range(256)) * 2
    for wrong in (data.decode("latin-1"), data.decode("latin-1").translate(dict(enumerate(CP1252_HIGH, 0x80)))):
        assert wrong.encode("cp1252", errors="nshash.misread") == data
    with pytest.raises(UnicodeEncodeError):
        "中".encode("cp1252", errors="nshash.misread")


def test_the_table_is_windows_1252_as_browsers_read_it() -> None:
    assert "".join(bytes([b]).decode("cp1252", errors="ignore") or chr(b) for b in range(0x80, 0xA0)) == CP1252_HIGH


@pytest.mark.parametrize("misread", [latin1, cp1252])
@pytest.mark.parametrize("text", [ZH, EN, ZH + "\n" + EN, "日本語のテキスト 한국어 텍스트 😀"])
def test_utf8_read_as_a_one_byte_encoding_is_read_again(misread: object, text: str) -> None:
    wrong = misread(text)  # type: ignore[operator]
    assert wrong != text
    assert repair_mojibake(wrong) == text


def test_a_page_misread_twice_is_read_again_up_to_the_rounds() -> None:
    wrong = ZH
    for _ in range(MOJIBAKE_ROUNDS):
        wrong = latin1(wrong)
    assert repair_mojibake(wrong) == ZH
    assert repair_mojibake(latin1(wrong)) == latin1(ZH)  # one round too many: stops there


@pytest.mark.parametrize(
    "text",
    [
        "café au lait, naïve, Ångström",  # Latin-1 text: é then a space is no UTF-8
        "Ã",  # a lead byte without its continuation
        "a lone continuation \x80 byte",
        "don’t",  # a curly quote (0x92 in Windows-1252) is a lone continuation byte
        latin1("中") + "中",  # a character no byte stands for
        "\xc0\xaf overlong",  # C0 AF: '/' written in two bytes
        "\xed\xa0\x80 surrogate",  # ED A0 80: U+D800
        "\xf4\x90\x80\x80 past U+10FFFF",
        "\xe0\x80\x80 overlong in three bytes",
        "plain ASCII",
        "",
    ],
)
def test_anything_else_is_left_as_it_is(text: str) -> None:
    assert repair_mojibake(text) == text


def test_a_misread_page_is_the_same_article_as_the_page() -> None:
    nsh = nshash.NSHash()
    first = nsh.get_similar(ZH + "\n" + EN)
    assert nsh.get_similar(latin1(ZH + "\n" + EN)) == first
    assert nsh.get_similar(cp1252(ZH + "\n" + EN)) == first
    assert nsh.get_similar(latin1(ZH + "\n" + EN).encode("utf-8")) == first  # the misread text sent as bytes


def test_without_normalize_the_text_is_keyed_as_it_came() -> None:
    raw = Fingerprinter(Options(normalize=False))
    assert raw.features(latin1(ZH)).keys != raw.features(ZH).keys
    assert Fingerprinter(Options()).features(latin1(ZH)).keys == Fingerprinter(Options()).features(ZH).keys


@pytest.mark.parametrize("encoding", ["gb18030", "gbk", "gb2312"])
def test_a_chinese_page_in_gb18030_read_as_latin1_is_read_again(encoding: str) -> None:
    page = ZH + "\nLinux 6.1, 2024-05-01"
    wrong = page.encode(encoding).decode("latin-1")
    assert repair_mojibake(wrong) == page
    assert repair_mojibake(cp1252(page.encode(encoding).decode("latin-1"))) == page


@pytest.mark.parametrize(
    "text",
    [
        "Éléphant",  # GB18030 reads É+l and é+p as two CJK characters: too few bytes past ASCII
        "don’t won’t it’s they’re we’re you’re I’m can’t isn’t aren’t wasn’t—it’s—won’t",  # too few a share
        ZH.encode("gb18030")[: 2 * (GB_MIN_BYTES // 2 - 1)].decode("latin-1"),  # seven characters: too short
        ZH.encode("big5", errors="ignore").decode("latin-1") + "\x80",  # 0x80 alone is no GB18030
        ("Ärger über Öl: " * 4).strip(),  # a German line GB18030 cannot read (a space after ":")
        "Très bien, l'élève a été évalué. " * 40,  # 320 accented letters, some before a space or a comma
        "A word\xa0before another, then\xa0more, and\xa0so on.\n" * 100,  # 300 no-break spaces, each before a letter
        # Windows-1252 text: curly quotes and € are bytes 0x80-0x9F, each before a space or a letter
        "“Quoted,” she said — “it costs €5.” ‘Fine’, he said… " * 20,
    ],
)
def test_bytes_that_are_neither_utf8_nor_a_chinese_page_are_left_as_they_are(text: str) -> None:
    assert repair_mojibake(text) == text


TW = "臺北時間昨天晚上，一場大雨讓城市的交通陷入停頓。氣象部門表示，今年的雨季比往年來得更早！"


@pytest.mark.parametrize("codec", ["gb18030", "gbk"])
def test_a_chinese_page_read_as_windows_1252_is_read_again(codec: str) -> None:
    # As a browser reads a page without a charset (the WHATWG decoder: its five unused bytes as C1 controls).
    # (Big5 has no byte 0x80-0x9F: read as Windows-1252 it is read as Latin-1.)
    page = ZH + "他們會說"
    wrong = page.encode(codec).decode("latin-1").translate(dict(enumerate(CP1252_HIGH, 0x80)))
    assert wrong != page.encode(codec).decode("latin-1")  # some of its bytes are Windows-1252's own characters
    assert repair_mojibake(wrong) == page


@pytest.mark.parametrize("encoding", ["big5", "big5hkscs"])
def test_a_traditional_chinese_page_in_big5_read_as_latin1_is_read_again(encoding: str) -> None:
    page = TW + "\nLinux 6.1, 2024-05-01"
    raw = page.encode(encoding)
    raw.decode("gb18030")  # GB18030 reads these bytes too, as other (rarer) characters: the commoner reading wins
    assert repair_mojibake(raw.decode("latin-1")) == page


def test_a_raw_html_page_in_gb18030_read_as_latin1_is_read_again() -> None:
    # Markup and scripts leave few of the bytes past ASCII: read again when there are GB_MANY_BYTES of them.
    script = "<script>var config = {'ads': [1, 2, 3], 'theme': 'dark'};</script>\n" * 60
    page = f"<html><head>{script}</head><body><p>{ZH * 4}</p></body></html>"
    wrong = page.encode("gbk").decode("latin-1")
    assert len(wrong.encode("latin-1").translate(None, bytes(range(128)))) < 0.1 * len(wrong)
    assert repair_mojibake(wrong) == page


def test_a_misread_gb18030_page_is_the_same_article_as_the_page() -> None:
    nsh = nshash.NSHash()
    first = nsh.get_similar(ZH + "\n" + EN)
    assert nsh.get_similar((ZH + "\n" + EN).encode("gb18030").decode("latin-1")) == first
