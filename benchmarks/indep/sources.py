"""Articles: real human-written help texts, cut out of unpacked Debian packages.

An article is a dict ``{"title": str, "paras": [str], "group": str, "src": str}``: ``group`` names the
manual it comes from (siblings and publisher sites are drawn per group), ``src`` is the file it was cut
from, relative to the source tree (``fetch_sources.sh`` unpacks the packages there).

    python benchmarks/indep/sources.py --src DIR   # article counts per source
"""

from __future__ import annotations

import argparse
import glob
import html
import os
import re
from collections import Counter
from collections.abc import Callable
from typing import Any

from debdocs import lo_pages
from manpages import man_articles

Article = dict[str, Any]

#: The default source tree; ``$INDEP_SRC`` or ``--src`` points elsewhere.
DEFAULT_SRC = os.environ.get("INDEP_SRC", os.path.join(os.path.dirname(os.path.abspath(__file__)), ".src"))
CJK = re.compile(r"[\u4e00-\u9fff]")
#: Article lengths kept (characters of body text), per language: longer ones are cut into parts.
LENGTHS = {"zh": (70, 2500), "en": (600, 5000)}
#: Sections of a POD page that are not prose.
POD_SKIP = {
    "NAME",
    "VERSION",
    "AUTHOR",
    "AUTHORS",
    "SEE ALSO",
    "COPYRIGHT",
    "COPYRIGHT AND LICENSE",
    "LICENSE",
    "AUTHOR AND COPYRIGHT",
}
PERL_PAGES = (
    "perlintro.pod",
    "perlstyle.pod",
    "perltrap.pod",
    "perlsec.pod",
    "perlhist.pod",
    "perlpolicy.pod",
    "perlhack.pod",
    "perlsub.pod",
    "perlsyn.pod",
    "perldata.pod",
    "perlre.pod",
    "perlunicode.pod",
    "perlvar.pod",
    "perlmod.pod",
    "perlobj.pod",
    "perlport.pod",
)
#: PostgreSQL pages that are reference tables or lists rather than prose.
PG_SKIP = ("sql-", "app-", "functions-", "catalog-", "view-", "release-", "errcodes", "bookindex")
_POD_CODE = re.compile(r"[A-Z]<<+\s(.*?)\s>>+|[A-Z]<([^<>]*)>")


def zh_ratio(s: str) -> float:
    """Share of the non-space characters of ``s`` that are CJK ideographs."""
    n = len(re.sub(r"\s", "", s))
    return len(CJK.findall(s)) / max(1, n)


def clean_markup(s: str) -> str:
    """Text of an XML/HTML fragment: tags dropped, entities decoded, white space collapsed."""
    s = re.sub(r"<[^>]+>", "", s)
    s = html.unescape(s)
    s = re.sub(r"\s+", " ", s).strip()
    # A line break of the source file between two Chinese characters is not a space.
    return re.sub(r"(?<=[\u4e00-\u9fff\uff0c\u3002])\s+(?=[\u4e00-\u9fff])", "", s)


def _paras_from_xml(t: str, tags: tuple[str, ...] = ("p", "para")) -> list[str]:
    """The non-empty paragraphs (``tags``) of a document, code blocks dropped."""
    t = re.sub(r"<(pre|screen|programlisting|synopsis|example)\b[^>]*>.*?</\1>", " ", t, flags=re.S)
    pattern = rf"<({'|'.join(tags)})\b[^>]*>(.*?)</\1>"
    paras = (clean_markup(m.group(2)) for m in re.finditer(pattern, t, flags=re.S))
    return [p for p in paras if p]


def _read(path: str, errors: str = "strict") -> str | None:
    """A file's text, or None when it cannot be read as UTF-8."""
    try:
        with open(path, encoding="utf-8", errors=errors) as f:
            return f.read()
    except (OSError, UnicodeDecodeError):
        return None


def mallard_pages(src: str, lang_dir: str, group_prefix: str = "") -> list[Article]:
    """One article per GNOME help page (Mallard ``.page`` or DocBook ``.xml``) of ``usr/share/help/<lang_dir>``."""
    pattern = os.path.join(src, "usr/share/help", lang_dir, "*", "*.")
    arts = []
    for f in sorted(glob.glob(pattern + "page") + glob.glob(pattern + "xml")):
        t = _read(f)
        if t is None or "legal.xml" in f or os.path.basename(f).startswith("legal"):
            continue
        for info in ("info", "articleinfo", "bookinfo"):
            t = re.sub(rf"<{info}>.*?</{info}>", "", t, flags=re.S)
        m = re.search(r"<title[^>]*>(.*?)</title>", t, flags=re.S)
        title = clean_markup(m.group(1)) if m else os.path.basename(f)
        app = f.split("/")[-2]
        arts.append({"title": title, "paras": _paras_from_xml(t), "group": group_prefix + app, "src": _rel(f, src)})
    return arts


def html_sections(path: str, group: str, src: str, levels: str = "1234") -> list[Article]:
    """One article per section of an HTML page, cut at the headings ``<h{levels}>``."""
    t = _read(path, errors="replace")
    return [] if t is None else html_text_sections(t, path, group, src, levels)


def html_text_sections(t: str, path: str, group: str, src: str, levels: str = "1234") -> list[Article]:
    """One article per section of the HTML text ``t`` (of the file ``path``), cut at ``<h{levels}>``."""
    # Publican's DocBook HTML (the Debian Administrator's Handbook) writes paragraphs as <div class="para">.
    t = re.sub(r'<div class="para"[^>]*>(.*?)</div>', r"<p>\1</p>", t, flags=re.S)
    t = re.sub(r"<head>.*?</head>", "", t, flags=re.S)
    t = re.sub(r"<(script|style)\b.*?</\1>", "", t, flags=re.S)
    t = re.sub(r'<div class="(navheader|navfooter|toc)".*?</div>', "", t, flags=re.S)
    # parts: text before the first heading, then (level, title, body) for each heading
    parts = re.split(rf"<h([{levels}])\b[^>]*>(.*?)</h\1>", t, flags=re.S)
    secs = []
    for i in range(1, len(parts) - 2, 3):
        title = clean_markup(parts[i + 1])
        title = re.sub(r"^(第\s*\d+\s*[章节]\.?\s*|[\d.]+\s*|Chapter \d+\.\s*)", "", title).strip()
        paras = _paras_from_xml(parts[i + 2], tags=("p", "dd"))
        secs.append({"title": title, "paras": paras, "group": group, "src": _rel(path, src)})
    return secs


def pod_text(s: str) -> str:
    """Plain text of a POD paragraph: formatting codes (``B<...>``, ``L<text|link>``) resolved."""
    for _ in range(4):  # codes nest; four levels is more than perl's pages use
        s2 = _POD_CODE.sub(lambda m: (m.group(1) or m.group(2) or "").split("|")[0], s)
        if s2 == s:
            break
        s = s2
    return re.sub(r"\s+", " ", s).strip()


def pod_sections(path: str, group: str, src: str) -> list[Article]:
    """One article per ``=head1``/``=head2`` section of a POD page; verbatim (code) paragraphs dropped."""
    with open(path, encoding="utf-8", errors="replace") as f:
        blocks = re.split(r"\n\s*\n", f.read())
    secs: list[Article] = []
    cur: Article | None = None
    skip = False
    for b in blocks:
        if b.startswith(("=head1", "=head2")):
            words = b.split(None, 1)
            title = pod_text(words[1] if len(words) > 1 else "")
            skip = title.upper() in POD_SKIP
            cur = {"title": title, "paras": [], "group": group, "src": _rel(path, src)}
            secs.append(cur)
            continue
        if b.startswith(("=", " ", "\t")) or cur is None or skip:
            continue
        p = pod_text(b)
        if p:
            cur["paras"].append(p)
    return [s for s in secs if s["paras"]]


def _rel(path: str, src: str) -> str:
    return os.path.relpath(path, src)


def _good_zh_para(p: str) -> bool:
    # zh_CN help is often only partly translated: English leftovers are not Chinese prose.
    return zh_ratio(p) >= 0.25 and len(CJK.findall(p)) >= 8


def _good_en_para(p: str) -> bool:
    if zh_ratio(p) > 0 or len(p.split()) < 8:
        return False
    letters = sum(c.isalpha() for c in p)
    return letters / max(1, len(p)) > 0.6  # not a table row, path list or command line


def _unique(paras: list[str]) -> list[str]:
    return list(dict.fromkeys(paras))


def _merge_small(arts: list[Article], good: Callable[[str], bool], min_chars: int) -> list[Article]:
    """Keep the good paragraphs; append a too-small article to the next one cut from the same file."""
    out = []
    pend: Article | None = None
    for a in arts:
        paras = _unique([p for p in a["paras"] if good(p)])
        if not paras:
            continue
        a = dict(a, paras=paras)
        if pend is not None and pend["src"] == a["src"] and sum(map(len, pend["paras"])) < min_chars:
            pend["paras"] += a["paras"]
            continue
        if pend is not None:
            out.append(pend)
        pend = a
    if pend is not None:
        out.append(pend)
    return out


def _part_title(title: str, k: int, lang: str) -> str:
    return title + (f"（{k}）" if lang == "zh" else f" (part {k})")


def _split_long(a: Article, lang: str, min_chars: int, max_chars: int) -> list[Article]:
    """Cut an article longer than ``max_chars`` into numbered parts of about 0.6 * ``max_chars``."""
    parts: list[Article] = []
    part: list[str] = []
    plen, k = 0, 1
    for p in a["paras"]:
        if plen + len(p) > max_chars * 0.6 and plen >= min_chars:
            parts.append(dict(a, paras=part, title=_part_title(a["title"], k, lang)))
            part, plen, k = [], 0, k + 1
        part.append(p[:max_chars])
        plen += len(p)
    if plen >= min_chars:
        parts.append(dict(a, paras=part, title=_part_title(a["title"], k, lang)))
    return parts


def normalize(arts: list[Article], lang: str, min_chars: int, max_chars: int) -> list[Article]:
    """Filter paragraphs, merge tiny consecutive sections of one file, split huge ones, drop the too short."""
    good = _good_zh_para if lang == "zh" else _good_en_para
    final = []
    for a in _merge_small(arts, good, min_chars):
        n = sum(map(len, a["paras"]))
        if n < min_chars:
            continue
        final += [a] if n <= max_chars else _split_long(a, lang, min_chars, max_chars)
    return final


def _stellarium(f: str, src: str) -> list[Article]:
    secs = html_sections(f, "stellarium", src, levels="23")
    if secs:
        return secs
    # A sky culture without headings is one article named after its directory.
    t = _read(f, errors="replace") or ""
    return [{"title": f.split("/")[-2], "paras": _paras_from_xml(t), "group": "stellarium", "src": _rel(f, src)}]


def _files(src: str, *patterns: str) -> list[str]:
    return sorted(f for p in patterns for f in glob.glob(os.path.join(src, p)))


def zh_articles(src: str = DEFAULT_SRC) -> list[Article]:
    """The Chinese articles: GNOME zh_CN help, KiCad, GIMP and LilyPond manuals, Stellarium sky cultures."""
    arts = mallard_pages(src, "zh_CN", "gnome:")
    for f in _files(src, "usr/share/doc/kicad/help/zh/*.html"):
        arts += html_sections(f, "kicad:" + os.path.basename(f)[:-5], src, levels="234")
    for f in _files(src, "usr/share/gimp/2.0/help/zh_CN/*.html"):
        arts += html_sections(f, "gimp", src, levels="1234")
    for f in _files(src, "usr/share/doc/lilypond/html/Documentation/*/*.zh.html"):
        arts += html_sections(f, "lilypond", src, levels="1234")
    for f in _files(src, "usr/share/stellarium/*/*/description.zh_CN.utf8"):
        arts += _stellarium(f, src)
    return normalize(arts, "zh", *LENGTHS["zh"])


def _perl_pages(src: str) -> list[str]:
    pod = os.path.join(src, "usr/share/perl/5.36.0/pod")
    named = [os.path.join(pod, n) for n in PERL_PAGES]
    return sorted(glob.glob(os.path.join(pod, "perlfaq*.pod")) + glob.glob(os.path.join(pod, "perl*tut*.pod")) + named)


def _git_pages(src: str) -> list[str]:
    gd = os.path.join(src, "usr/share/doc/git-doc")
    pages = sorted(glob.glob(os.path.join(gd, "*.html")) + glob.glob(os.path.join(gd, "howto", "*.html")))
    # git-<command>.html are the command reference pages, not prose
    return [f for f in pages if not os.path.basename(f).startswith("git-") or f.endswith("/git-bisect-lk2009.html")]


def en_articles(src: str = DEFAULT_SRC) -> list[Article]:
    """The English articles: GNOME C-locale help, perl's POD guides, git's and PostgreSQL's HTML manuals."""
    arts = mallard_pages(src, "C", "gnome:")
    for f in _perl_pages(src):
        if os.path.exists(f):
            arts += pod_sections(f, "perl:" + os.path.basename(f)[:-4], src)
    for f in _git_pages(src):
        arts += html_sections(f, "git", src, levels="234")
    for f in _files(src, "usr/share/doc/postgresql-doc-15/html/*.html"):
        if not os.path.basename(f).startswith(PG_SKIP):
            arts += html_sections(f, "postgresql", src, levels="23")
    return normalize(arts, "en", *LENGTHS["en"])


def _heldout(src: str, lang: str, handbook: str, reference: str) -> list[Article]:
    arts = []
    for group, pattern in (("handbook", handbook), ("reference", reference)):
        for f in _files(src, pattern):
            arts += html_sections(f, group, src)  # one book, one manual (as PostgreSQL's and Git's)
    return normalize(arts, lang, *LENGTHS[lang])


def zh_articles_heldout(src: str = DEFAULT_SRC) -> list[Article]:
    """Chinese articles of sources no nshash rule was checked on: the Debian Administrator's Handbook and
    Debian Reference in zh_CN (``--sources heldout``)."""
    return _heldout(
        src,
        "zh",
        "usr/share/doc/debian-handbook/html/zh-CN/*.html",
        "usr/share/doc/debian-reference-zh-cn/docs/*.zh-cn.html",
    )


def en_articles_heldout(src: str = DEFAULT_SRC) -> list[Article]:
    """English articles of the held-out sources: the same two books in English."""
    return _heldout(
        src,
        "en",
        "usr/share/doc/debian-handbook/html/en-US/*.html",
        "usr/share/doc/debian-reference-en/docs/*.en.html",
    )


def zh_articles_manpages(src: str = DEFAULT_SRC) -> list[Article]:
    """Chinese man pages (manpages-zh): templated siblings no nshash rule was checked on (``--sources manpages``)."""
    return normalize(man_articles(src, "usr/share/man/zh_CN/man*/*.gz", "zh", "zh-"), "zh", *LENGTHS["zh"])


def en_articles_manpages(src: str = DEFAULT_SRC) -> list[Article]:
    """English man pages of the Linux man-pages project: system calls, file formats, overviews."""
    return normalize(man_articles(src, "usr/share/man/man[257]/*.gz", "en", "en-"), "en", *LENGTHS["en"])


def _debdocs(src: str, lang: str, lo_dir: str, books: tuple[tuple[str, str], ...]) -> list[Article]:
    arts = []
    for f, group, t in lo_pages(src, lo_dir):
        arts += html_text_sections(t, f, group, src, levels="1")  # one article a page, as GNOME help
    for group, pattern in books:
        for f in _files(src, pattern):
            arts += html_sections(f, group, src)  # one book, one manual
    return normalize(arts, lang, *LENGTHS[lang])


def zh_articles_debdocs(src: str = DEFAULT_SRC) -> list[Article]:
    """Chinese articles of Debian 12 documentation packages no nshash rule was checked on (``--sources
    debdocs``): LibreOffice's zh-CN help (templated sibling pages), the Debian FAQ, the New Maintainers'
    Guide and the Debian Edu bookworm manual in zh-CN."""
    return _debdocs(
        src,
        "zh",
        "zh-CN",
        (
            ("debian-faq", "usr/share/doc/debian/FAQ/zh-cn/*.zh-cn.html"),
            ("maint-guide", "usr/share/doc/maint-guide-zh-cn/html/*.zh-cn.html"),
            ("debian-edu", "usr/share/doc/debian-edu-doc-zh-cn/debian-edu-bookworm-manual.html"),
        ),
    )


def en_articles_debdocs(src: str = DEFAULT_SRC) -> list[Article]:
    """English articles of the same packages: LibreOffice's en-US help and the three books in English."""
    return _debdocs(
        src,
        "en",
        "en-US",
        (
            ("debian-faq", "usr/share/doc/debian/FAQ/*.en.html"),
            ("maint-guide", "usr/share/doc/maint-guide/html/*.en.html"),
            ("debian-edu", "usr/share/doc/debian-edu-doc-en/debian-edu-bookworm-manual.html"),
        ),
    )


SOURCE_SETS: dict[str, tuple[Callable[[str], list[Article]], Callable[[str], list[Article]]]] = {
    "default": (zh_articles, en_articles),
    "heldout": (zh_articles_heldout, en_articles_heldout),
    "manpages": (zh_articles_manpages, en_articles_manpages),
    "debdocs": (zh_articles_debdocs, en_articles_debdocs),
}


def shingles(a: Article) -> set[str]:
    """The character 5-grams of an article's body, white space left out."""
    t = re.sub(r"\s+", "", "".join(a["paras"]))
    return {t[i : i + 5] for i in range(max(1, len(t) - 4))}


def drop_near_copies(pool: list[Article], threshold: float = 0.9) -> list[Article]:
    """Drop articles whose body is almost identical (char 5-gram Jaccard >= ``threshold``) to an earlier one.

    Nobody could tell such two apart, so their labels would be noise. Templated siblings, which share
    some sentences, stay. Candidates come from about 40 sampled shingles of each article.
    """
    out: list[Article] = []
    sigs: list[set[str]] = []
    index: dict[str, list[int]] = {}
    for a in pool:
        sh = shingles(a)
        cands: Counter[int] = Counter()
        for g in sorted(sh)[:: max(1, len(sh) // 40)]:
            cands.update(index.get(g, ()))
        if any(len(sh & sigs[j]) / max(1, len(sh | sigs[j])) >= threshold for j, _ in cands.most_common(5)):
            continue
        for g in sh:
            index.setdefault(g, []).append(len(sigs))
        sigs.append(sh)
        out.append(a)
    return out


def main() -> None:
    """Print the article counts per source, the way the README's table gives them."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", default=DEFAULT_SRC, help="unpacked packages (default: $INDEP_SRC or .src)")
    ap.add_argument(
        "--sources", choices=sorted(SOURCE_SETS), default="default", help="which texts (default: %(default)s)"
    )
    args = ap.parse_args()
    for lang, articles in zip(("zh", "en"), SOURCE_SETS[args.sources]):
        pool = articles(args.src)
        kept = drop_near_copies(pool)
        by_source = Counter(a["group"].split(":")[0] for a in kept)
        lengths = sorted(sum(map(len, a["paras"])) for a in kept)
        print(lang, len(pool), "articles,", len(kept), "after dropping near copies:", by_source.most_common())
        print("  median chars", lengths[len(lengths) // 2], "files", len({a["src"] for a in kept}))


if __name__ == "__main__":
    main()
