"""NSHash behaviour: fingerprints, clusters, merges, boilerplate, input checks."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nshash
from nshash.core import NSHash
from nshash.hashing import farmhash64
from tests.conftest import StoreFactory

ARTICLE = (
    "国务院新闻办公室今天上午举行新闻发布会，介绍今年前三季度国民经济运行情况。\n"
    "国家统计局新闻发言人表示，前三季度国内生产总值同比增长百分之五点二，总体保持恢复向好态势。\n"
    "从生产端看，农业生产形势稳定，工业生产持续恢复，服务业增长较快，现代服务业支撑作用增强。\n"
    "从需求端看，市场销售继续扩大，固定资产投资规模增加，货物进出口总体平稳，贸易结构持续优化。\n"
    "发言人同时指出，外部环境依然复杂严峻，国内需求仍显不足，经济回升向好的基础还需要进一步巩固。\n"
)
ENGLISH = (
    "The city council voted on Tuesday to expand the network of protected bicycle lanes across downtown.\n"
    "Supporters said the plan would reduce traffic injuries and encourage residents to leave their cars at home.\n"
    "Opponents argued that removing parking spaces would hurt small businesses along the busiest commercial streets.\n"
    "The first phase of construction is expected to begin next spring and to be finished before the end of the year.\n"
)


def random_article(rng: random.Random, sentences: int = 6) -> str:
    """Unrelated text: random CJK characters, so two calls never share a sentence."""
    return "".join(
        "".join(chr(rng.randint(0x4E00, 0x9FA5)) for _ in range(rng.randint(25, 60))) + "。" for _ in range(sentences)
    )


@pytest.fixture(params=["farmhash", "md5"])
def nsh(request: pytest.FixtureRequest, make_store: StoreFactory) -> NSHash:
    return NSHash(hashfunc=request.param, hashdb=make_store())


def test_pinned_fingerprints() -> None:
    # An accidental change of splitting, normalisation or hashing must fail here:
    # stored indexes would silently stop matching.
    doc = "Hello, World! 你好，世界。这是一个足够长的句子。"
    # 你好世界 is shorter than min_len; the tie between the others keeps document order.
    assert NSHash().sentences(doc) == ["helloworld", "这是一个足够长的句子"]
    # Short sentences are their own head and tail: hash(s) and hash("\x01" + s).
    assert NSHash(hashfunc="farmhash").get_nshash(doc) == [
        8841954637881776907,
        6089003745645431849,
        15188436030377661315,
        1717843509346294936,
    ]
    assert NSHash(hashfunc="md5").get_nshash(doc) == [
        18184976250444279858,
        12644294304126599299,
        16482318217168100100,
        14360713506118140745,
    ]


def test_pinned_head_and_tail_keys() -> None:
    doc = "The quick brown fox jumps over the lazy dog near the river bank."
    assert NSHash().sentences(doc) == ["thequickbrownfoxjumpsoverthelazydogneartheriverbank"]
    # Latin script: head = the first 20 characters; tail = "\x01" and the last 20.
    whole = "thequickbrownfoxjumpsoverthelazydogneartheriverbank"
    assert NSHash().get_nshash(doc) == [145721584615143232, 16170492553571593744]
    assert NSHash().get_nshash(doc) == [farmhash64(whole[:20]), farmhash64("\x01" + whole[-20:])]
    assert NSHash(hashfunc="md5").get_nshash(doc) == [7788576237134972490, 5378250931134565604]
    assert NSHash(anchor_latin=0).get_nshash(doc) == [farmhash64(whole), farmhash64("\x01" + whole)]


def test_one_edited_character_spoils_one_key_only() -> None:
    nsh = NSHash()
    a = nsh.get_nshash("A sentence long enough to have separate head and tail keys here.")
    b = nsh.get_nshash("A sentence long enough to have separate head and tall keys here.")
    c = nsh.get_nshash("A sentense long enough to have separate head and tail keys here.")
    assert a[0] == b[0] and a[1] != b[1]
    assert a[0] != c[0] and a[1] == c[1]


def test_template_keys_shared_by_two_sentences_are_dropped() -> None:
    nsh = NSHash()
    doc = (
        "The first sentence says one thing, see section twelve for details.\n"
        "The second sentence says another thing, see section twelve for details.\n"
    )
    keys = nsh.get_nshash(doc)
    assert len(keys) == 2  # two heads; the shared tail is gone
    assert NSHash().get_nshash("The first sentence says one thing, see section twelve for details.")[0] in keys


COOKIES = (
    "We use cookies and similar technologies to improve your browsing experience, analyse our traffic "
    "and personalise content; by continuing to browse this site you agree to our use of cookies."
)
NOTICES = [
    COOKIES,
    "本站所有文章均为原创或经授权转载，版权所有，未经书面许可不得以任何形式转载、摘编或者镜像本站的全部或部分内容。",
    "Copyright 2024 Example Media Group, a subsidiary of Example Holdings: All Rights Reserved for every story, "
    "photograph and video published on this site",
    "我们非常重视您的个人信息和隐私保护，在您使用本网站服务之前请务必仔细阅读并充分理解隐私政策的全部内容。",
    "Please read our Privacy Policy to learn what we collect about you, and why, when you read, comment on, "
    "print or share the stories of this site",
    "This program is free software: you can redistribute it under the terms of the GNU General Public License "
    "as published by the Free Software Foundation",
    "本站原创内容采用知识共享署名与相同方式共享许可协议进行许可，欢迎在保留作者署名和原文链接的前提下自由转载和演绎。",
]


@pytest.mark.parametrize("notice", NOTICES)
@pytest.mark.parametrize("c", [True, False], ids=["C features", "Python features"])
def test_a_legal_or_consent_notice_is_never_keyed(notice: str, c: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if not c:
        monkeypatch.setattr(nshash.fingerprint, "speedups", None)
    nsh = NSHash(n=1, extra=0)
    body = ENGLISH if notice.isascii() else ARTICLE
    page = f"{notice}\n{body}"
    longest = max(map(len, nsh.fingerprinter.pieces(notice)))
    assert longest > len(nsh.sentences(body)[0])  # the page's longest sentence
    assert nsh.sentences(page) == nsh.sentences(body)
    assert nsh.get_nshash(page) == nsh.get_nshash(body)
    features = nsh.fingerprinter.features(page)
    assert features.keys == nsh.get_nshash(body)
    # ... but it is part of the text that verification compares.
    assert features.doc_key != nsh.fingerprinter.features(body).doc_key


def test_a_copy_finds_an_article_whose_longest_sentence_was_a_cookie_notice(monkeypatch: pytest.MonkeyPatch) -> None:
    # The notice would take the original's only key slot: a copy elsewhere, without it, finds nothing.
    original = f"Example Daily\n{COOKIES}\n{ENGLISH}"
    copy = f"Another Site\n{ENGLISH}Share this story with your friends."
    nsh = NSHash(n=1, extra=0)
    first = nsh.add(original).similar_id
    assert any(row["cluster"] == first for row in nsh.explain(copy))  # its sentence leads to the original
    assert nsh.add(copy).similar_id == first
    monkeypatch.setattr(nshash.fingerprint, "speedups", None)  # the Python features, without the markers
    monkeypatch.setattr(nshash.fingerprint, "NOTICE_MARKERS", ())
    nsh = NSHash(n=1, extra=0)
    nsh.add(original)
    # No sentence of the copy leads to the original (its paragraphs still do: decide.join_by_lines).
    assert all(row["cluster"] is None for row in nsh.explain(copy))


def test_ids_are_ints_starting_at_one(nsh: NSHash) -> None:
    rng = random.Random(1)
    ids = [nsh.get_similar(random_article(rng)) for _ in range(5)]
    assert ids == [1, 2, 3, 4, 5]
    assert all(type(i) is int for i in ids)


def test_reprint_with_new_title_and_byline_matches(nsh: NSHash) -> None:
    first = nsh.get_similar(ARTICLE)
    reprint = "经济观察｜前三季度数据出炉\n来源：某某日报 责任编辑：李四\n" + ARTICLE
    assert nsh.get_similar(reprint) == first


@pytest.mark.parametrize(
    "edit",
    [
        lambda t: t.replace("，", ",").replace("。", ". "),  # punctuation width
        lambda t: t.replace("\n", "\r\n  ").replace("发布会", "发布会 "),  # whitespace
        lambda t: "<div><p>" + t.replace("\n", "</p><p>") + "&nbsp;</p></div>",  # HTML remnants
        lambda t: t.replace("百分之五点二", "百分之五点三"),  # one sentence edited
        lambda t: t.rsplit("\n", 2)[0] + "……阅读全文",  # truncated tail
    ],
)
def test_reprint_edits_match(nsh: NSHash, edit) -> None:  # type: ignore[no-untyped-def]
    first = nsh.get_similar(ARTICLE)
    assert nsh.get_similar(edit(ARTICLE)) == first


def test_english_case_and_spacing(nsh: NSHash) -> None:
    first = nsh.get_similar(ENGLISH)
    assert nsh.get_similar(ENGLISH.upper().replace(" ", "  ")) == first


def test_unrelated_documents_get_new_ids(nsh: NSHash) -> None:
    a = nsh.get_similar(ARTICLE)
    b = nsh.get_similar(ENGLISH)
    assert a != b


def test_clusters_merge_transitively(nsh: NSHash) -> None:
    rng = random.Random(7)
    sentences = [random_article(rng, 1) for _ in range(6)]
    a = nsh.get_similar("".join(sentences))
    # The same article with the first and last characters of every sentence
    # edited: no key matches, so it starts a cluster of its own (a miss).
    edited = ["甲乙丙" + s[3:-4] + "丁戊。" for s in sentences]
    b = nsh.get_similar("".join(edited))
    assert a != b
    # A copy made of both: it verifies against both clusters, and they against
    # each other, so they were one article all along.
    bridge = nsh.get_similar("".join(sentences[:3] + edited[3:]))
    assert bridge == min(a, b)
    assert nsh.resolve(a) == nsh.resolve(b) == min(a, b)
    assert nsh.resolve_many([a, b, bridge]) == [min(a, b)] * 3


def test_a_page_quoting_two_articles_does_not_merge_them(nsh: NSHash) -> None:
    rng = random.Random(7)
    s = [random_article(rng, 1) for _ in range(8)]
    a = nsh.get_similar("".join(s[0:4]))
    b = nsh.get_similar("".join(s[4:8]))
    # Half of each: it may join one of them, but the two clusters do not verify
    # against each other, so they stay apart.
    bridge = nsh.get_similar(s[0] + s[4] + s[5] + s[1])
    assert bridge in (a, b) or bridge > max(a, b)
    assert nsh.resolve(a) == a and nsh.resolve(b) == b


def test_a_shared_footer_does_not_merge_clusters(nsh: NSHash) -> None:
    rng = random.Random(8)
    s = [random_article(rng, 1) for _ in range(10)]
    a = nsh.get_similar("".join(s[0:4]))
    b = nsh.get_similar("".join(s[4:8]) + s[8] + s[9])
    # Matches a in its body, and b only in b's last lines (its footer).
    c = nsh.get_similar("".join(s[0:3]) + s[8] + s[9])
    assert c == a
    assert nsh.resolve(b) == b != a


def test_site_boilerplate_does_not_merge_unrelated_articles(nsh: NSHash) -> None:
    footer = (
        "\n本网站所刊载的所有信息仅代表作者本人观点，不代表本站立场，转载请注明出处并保留原文链接。"
        "\n凡本网注明来源为其他媒体的稿件均为转载，目的在于传递更多信息，并不代表本网赞同其观点。"
        "\n如因作品内容、版权和其它问题需要同本网联系的，请在相关作品刊发之日起三十日内进行联系。"
    )
    rng = random.Random(3)
    ids = [nsh.get_similar(random_article(rng, 4) + footer) for _ in range(30)]
    # The first few pages of a new site may be merged before its footer is
    # recognised; after that every article stands alone.
    assert len(set(ids)) >= 27
    assert len(set(ids[5:])) == 25


def test_reprint_found_after_boilerplate_was_learned(nsh: NSHash) -> None:
    footer = "\n版权所有，未经本网书面授权不得转载、摘编或利用其它方式使用上述作品，违者必究法律责任。"
    rng = random.Random(4)
    for _ in range(10):
        nsh.get_similar(random_article(rng) + footer)
    first = nsh.get_similar(ARTICLE + footer)
    assert nsh.get_similar("转载自某网\n" + ARTICLE) == first


def test_empty_and_sentenceless_documents_never_match(nsh: NSHash) -> None:
    ids = [nsh.get_similar(doc) for doc in ["", "   ", "\n\n", "", "。。。", " \t "]]
    assert len(set(ids)) == len(ids)
    assert nsh.get_nshash("") == [] and nsh.get_nshash("  \n ") == []


def test_identical_short_documents_match(nsh: NSHash) -> None:
    assert nsh.get_similar("OK") == nsh.get_similar("ok")
    assert nsh.get_similar("OK") != nsh.get_similar("no")


def test_bytes_equal_str(nsh: NSHash) -> None:
    assert nsh.get_nshash(ARTICLE.encode()) == nsh.get_nshash(ARTICLE)
    assert nsh.get_similar(ARTICLE.encode()) == nsh.get_similar(ARTICLE)


def test_invalid_utf8_is_a_clear_error() -> None:
    with pytest.raises(nshash.DocumentDecodeError, match="not valid UTF-8 at byte 3"):
        NSHash().get_similar(b"abc\xff\xfe")
    assert NSHash(errors="replace").get_similar(b"abc\xff\xfe") == 1


@pytest.mark.parametrize("bad", [None, 42, 3.5, ["a"], {"a": 1}])
def test_wrong_types_raise_type_error(bad: object) -> None:
    with pytest.raises(TypeError, match="must be str or bytes"):
        NSHash().get_similar(bad)  # type: ignore[arg-type]


def test_lone_surrogates_do_not_crash() -> None:
    nsh = NSHash()
    doc = "一句包含孤立代理字符的足够长的句子\udc80在这里。另一句同样足够长的句子在这里出现。"
    assert nsh.get_similar(doc) == nsh.get_similar(doc)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n": 0}, "n must be an int from 1 to 64"),
        ({"n": 2**62}, "n must be an int from 1 to 64"),
        ({"anchor": 2**62}, "anchor must be an int from 0 to 1000"),
        ({"verify": 1.5}, "verify must be a number"),
        ({"bogus": 1}, "unknown option"),
        ({"min_match": "2"}, "min_match must be an int"),
        ({"split": "regex"}, "split must be one of"),
        ({"hashfunc": "sha1"}, "unknown hashfunc"),
        ({"hashdb": "mongodb"}, "unknown hashdb"),
        ({"errors": "loud"}, "errors must be one of"),
    ],
)
def test_bad_options_are_rejected(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        NSHash(**kwargs)  # type: ignore[arg-type]


def test_callable_hashfunc() -> None:
    nsh = NSHash(hashfunc=nshash.hashing.named_hashfunc("len-x7919", lambda s: len(s) * 7919))
    assert nsh.get_nshash("abcdefghij。") == [10 * 7919, 11 * 7919]  # the tail carries a 1-char mark


def test_reopen_with_other_options_is_refused(tmp_path: Path) -> None:
    name = str(tmp_path / "news")
    with NSHash(name, hashfunc="farmhash", hashdb="leveldb") as nsh:
        nsh.get_similar(ARTICLE)
    with pytest.raises(nshash.OptionsMismatchError, match="hashfunc: stored 'farmhash', given 'md5'"):
        NSHash(name, hashfunc="md5", hashdb="leveldb")
    with pytest.raises(nshash.OptionsMismatchError, match="n: stored 5, given 6"):
        NSHash(name, hashdb="leveldb", n=6)
    with NSHash(name, hashdb="leveldb") as nsh:  # the failed attempts released the store
        assert nsh.get_similar(ARTICLE) == 1


def test_original_splitting_is_available() -> None:
    nsh = NSHash(split="original", normalize=False)
    assert nsh.min_len == 31
    piece = "这一段文字超过三十个字符并且没有任何标点符号因此整体成为一个句子片段用于测试"
    assert nsh.sentences(f"短：{piece}】尾") == [piece]


def test_explain_shows_clusters_and_boilerplate(nsh: NSHash) -> None:
    first = nsh.get_similar(ARTICLE)
    rows = nsh.explain(ARTICLE)
    assert rows and all(row["cluster"] in (first, None) for row in rows)
    assert sum(row["cluster"] == first for row in rows) == nsh.n


unicode_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=300)


@settings(max_examples=60, deadline=None)
@given(unicode_text)
def test_same_text_same_fingerprints(text: str) -> None:
    assert NSHash().get_nshash(text) == NSHash().get_nshash(text)
    assert NSHash().get_nshash(text.encode()) == NSHash().get_nshash(text)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 15))
def test_unrelated_inserts_do_not_change_a_cluster(seed: int, noise: int) -> None:
    rng = random.Random(seed)
    nsh = NSHash()
    before = [nsh.get_similar(random_article(rng)) for _ in range(noise)]
    first = nsh.get_similar(ARTICLE)
    for _ in range(noise):
        nsh.get_similar(random_article(rng))
    assert nsh.resolve(nsh.get_similar("转载\n" + ARTICLE)) == nsh.resolve(first)
    assert first not in before


#: Sentences of a Hindi article (danda-ended) and of an Urdu one (ending in the Urdu full stop).
_HINDI = [
    "भारतीय रिज़र्व बैंक ने आज ब्याज दरों में कोई बदलाव नहीं करने का फैसला किया।",
    "गवर्नर ने कहा कि महंगाई अभी भी लक्ष्य से ऊपर बनी हुई है और इस पर नज़र रखी जा रही है।",
    "बैंक ने चालू वित्त वर्ष के लिए विकास दर का अनुमान सात प्रतिशत पर बरकरार रखा।",
    "विशेषज्ञों का मानना है कि अगली बैठक में दरों में कटौती की संभावना कम है।",
    "शेयर बाज़ार ने इस फैसले पर मिली-जुली प्रतिक्रिया दी और सेंसेक्स थोड़ा नीचे बंद हुआ।",
    "सरकार ने कहा कि वह मौद्रिक नीति समिति के फैसले का सम्मान करती है।",
]
_URDU = [
    "پاکستان نے آج آئرلینڈ کو ایک سنسنی خیز مقابلے کے بعد سات وکٹوں سے شکست دے دی۔",
    "کپتان نے کہا کہ ٹیم کی بولنگ شروع سے آخر تک بہت نظم و ضبط کے ساتھ رہی۔",
    "آئرلینڈ کے بلے بازوں نے اچھا آغاز کیا مگر درمیانی اوورز میں وکٹیں گرتی رہیں۔",
    "اگلا میچ جمعہ کے روز اسی میدان پر کھیلا جائے گا جہاں موسم صاف رہنے کی توقع ہے۔",
    "شائقین کی بڑی تعداد نے میدان میں پہنچ کر اپنی ٹیم کی حوصلہ افزائی کی۔",
    "بورڈ نے کھلاڑیوں کے لیے خصوصی انعام کا اعلان بھی کیا۔",
]


@pytest.mark.parametrize("sentences", [_HINDI, _URDU], ids=["Hindi", "Urdu"])
def test_sentences_that_end_in_their_scripts_full_stop_are_keyed_one_by_one(sentences: list[str]) -> None:
    # An excerpt whose paragraphs break elsewhere: whole paragraphs as "sentences" (and their first and last
    # characters) had nothing in common with the original's, and the copy was a new article.
    original = " ".join(sentences[:3]) + "\n" + " ".join(sentences[3:])
    copy = " ".join(sentences[1:4]) + "\n" + sentences[4]
    nsh = NSHash()
    first = nsh.get_similar(original)
    assert nsh.get_similar(copy) == first
    assert len(nsh.sentences(original)) == len(sentences)
