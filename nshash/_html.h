/*
 * nshash/_html.h: nshash.text.strip_html in C, for the common cases.
 *
 * strip_cps() gives exactly what the Python function gives, or says it
 * cannot (the caller then uses Python): when html.unescape would replace a
 * reference other than the five common ones and "&amp;", or a tag name
 * holds one of the four non-ASCII letters re.IGNORECASE matches to ASCII.
 * tests/test_speedups.py compares both on arbitrary HTML-ish text.
 *
 * The two regular expressions it follows (see nshash/text.py), applied one
 * after the other, left to right, as re.sub does:
 *   block tags  <\s*\/?\s*(?:p|br|...)(?![a-zA-Z0-9])[^<>]{0,500}>  -> "\n"  (IGNORECASE)
 *   other tags  <\s*\/?\s*[a-zA-Z][^<>]{0,500}>                      -> ""
 * Neither can match in more than one way: after '<' the spaces, the
 * optional '/' and the name are forced, and [^<>]{0,500}> ends at the first
 * '<' or '>' or not at all.  Included by _speedups.c only.
 */
#ifndef NSHASH_HTML_H
#define NSHASH_HTML_H
#include <Python.h>
#include <string.h>

#define MAX_TAG_RUN 500

static const char *const block_tags[] = {"p",   "br",  "div",    "li",      "ul",     "ol",  "tr",
                                         "td",  "th",  "table",  "h1",      "h2",     "h3",  "h4",
                                         "h5",  "h6",  "section", "article", "header", "footer",
                                         "nav", "blockquote", "pre", "hr", "dd", "dt", "dl", "title"};

static inline int is_ascii_alpha(Py_UCS4 c) { return (c | 32u) - 'a' < 26u; }
static inline int is_ascii_alnum(Py_UCS4 c) { return is_ascii_alpha(c) || c - '0' < 10u; }

/* Index after "<\s*\/?\s*" for the '<' at i. */
static Py_ssize_t after_tag_open(const Py_UCS4 *s, Py_ssize_t len, Py_ssize_t i) {
    Py_ssize_t j = i + 1;
    while (j < len && Py_UNICODE_ISSPACE(s[j])) j++;
    if (j < len && s[j] == '/') j++;
    while (j < len && Py_UNICODE_ISSPACE(s[j])) j++;
    return j;
}

/* "[^<>]{0,500}>" from k: the index after the '>', or -1. */
static Py_ssize_t tag_close(const Py_UCS4 *s, Py_ssize_t len, Py_ssize_t k) {
    for (Py_ssize_t j = k; j < len && j <= k + MAX_TAG_RUN; j++) {
        if (s[j] == '>') return j + 1;
        if (s[j] == '<') return -1;
    }
    return -1;
}

#define DECLINE (-2)

/* İ ı ſ K: re.IGNORECASE matches them to i, i, s, k, so a tag name holding one is Python's call. */
static inline int folds_to_ascii(Py_UCS4 c) { return c == 0x130 || c == 0x131 || c == 0x17F || c == 0x212A; }

/* End of a block-level tag starting at the '<' at i, -1 if none, DECLINE. */
static Py_ssize_t block_tag_end(const Py_UCS4 *s, Py_ssize_t len, Py_ssize_t i) {
    Py_ssize_t j = after_tag_open(s, len, i), k = j;
    char name[12];
    while (k < len && is_ascii_alnum(s[k]) && k - j < (Py_ssize_t)sizeof name - 1) {
        name[k - j] = (char)(s[k] | 32u); /* lower case; digits keep their value */
        k++;
    }
    if (k < len && folds_to_ascii(s[k])) return DECLINE; /* in the name, or its lookahead */
    if (k == j || (k < len && is_ascii_alnum(s[k]))) return -1; /* no name, or longer than any block tag */
    name[k - j] = '\0';
    for (size_t t = 0; t < sizeof block_tags / sizeof *block_tags; t++)
        if (strcmp(name, block_tags[t]) == 0) return tag_close(s, len, k);
    return -1;
}

/* End of any tag starting at the '<' at i, or -1. */
static Py_ssize_t any_tag_end(const Py_UCS4 *s, Py_ssize_t len, Py_ssize_t i) {
    Py_ssize_t j = after_tag_open(s, len, i);
    return j < len && is_ascii_alpha(s[j]) ? tag_close(s, len, j + 1) : -1;
}

/* Move s[from:to] down to s[out:], returning the new out. */
static inline Py_ssize_t keep_run(Py_UCS4 *s, Py_ssize_t out, Py_ssize_t from, Py_ssize_t to) {
    if (out != from) memmove(s + out, s + from, sizeof(Py_UCS4) * (size_t)(to - from));
    return out + (to - from);
}

/*
 * One re.sub pass in place: each tag match at a '<' becomes `replacement`
 * (0: nothing).  Returns the new length, or DECLINE.
 */
static Py_ssize_t replace_tags(Py_UCS4 *s, Py_ssize_t len, Py_ssize_t (*tag_end)(const Py_UCS4 *, Py_ssize_t, Py_ssize_t),
                               Py_UCS4 replacement) {
    Py_ssize_t i = 0, out = 0, j, end;
    for (;;) {
        for (j = i; j < len && s[j] != '<'; j++) {
        }
        out = keep_run(s, out, i, j);
        if (j == len) return out;
        end = tag_end(s, len, j);
        if (end == DECLINE) return DECLINE;
        if (end < 0) {
            s[out++] = '<';
            i = j + 1;
        } else {
            if (replacement) s[out++] = replacement;
            i = end;
        }
    }
}

static const struct {
    const char *name;
    Py_UCS4 value;
} common_entities[] = {{"&nbsp;", ' '}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&#39;", '\''}};

static int entity_at(const Py_UCS4 *s, Py_ssize_t len, Py_ssize_t i, Py_UCS4 *value, Py_ssize_t *size) {
    for (size_t e = 0; e < sizeof common_entities / sizeof *common_entities; e++) {
        const char *name = common_entities[e].name;
        Py_ssize_t n = (Py_ssize_t)strlen(name), j;
        for (j = 0; j < n && i + j < len && s[i + j] == (Py_UCS4)(unsigned char)name[j]; j++) {
        }
        if (j == n) {
            *value = common_entities[e].value;
            *size = n;
            return 1;
        }
    }
    return 0;
}

/*
 * Would nshash.text._ENTITY_RE match at the '&' at i (then html.unescape
 * runs)?  Asked before the common entities after it are replaced, which
 * gives the same answer: they start with '&' and become ' < > " \'', none of
 * which the pattern accepts after '&', '&#' or '&#x'.
 */
static int needs_unescape(const Py_UCS4 *s, Py_ssize_t len, Py_ssize_t i) {
    if (i + 1 < len && is_ascii_alpha(s[i + 1])) return 1;
    if (i + 2 < len && s[i + 1] == '#') {
        Py_UCS4 c = s[i + 2];
        if (c - '0' < 10u) return 1;
        if ((c == 'x' || c == 'X') && i + 3 < len) {
            Py_UCS4 h = s[i + 3];
            return h - '0' < 10u || (h | 32u) - 'a' < 6u;
        }
    }
    return 0;
}

/* The five common entities replaced in place (one pass is the same as the
 * Python's five str.replace: their replacements never form an entity). */
static Py_ssize_t replace_entities(Py_UCS4 *s, Py_ssize_t len) {
    Py_ssize_t i = 0, out = 0, j, size;
    Py_UCS4 value;
    for (;;) {
        for (j = i; j < len && s[j] != '&'; j++) {
        }
        out = keep_run(s, out, i, j);
        if (j == len) return out;
        if (entity_at(s, len, j, &value, &size)) {
            s[out++] = value;
            i = j + size;
        } else if (needs_unescape(s, len, j)) {
            /* Python then runs html.unescape, which changes the text only
             * where needs_unescape() says so; "&amp;" is the one such
             * reference common enough to be worth doing here. */
            if (!(j + 4 < len && s[j + 1] == 'a' && s[j + 2] == 'm' && s[j + 3] == 'p' && s[j + 4] == ';'))
                return DECLINE;
            s[out++] = '&';
            i = j + 5;
        } else {
            s[out++] = '&';
            i = j + 1;
        }
    }
}

/*
 * strip_html on the code points s[0:len], in place: 1 and *out_len when
 * done, 0 when Python must do it (see the top of this file).
 */
static int strip_cps(Py_UCS4 *s, Py_ssize_t len, Py_ssize_t *out_len) {
    len = replace_tags(s, len, block_tag_end, '\n');
    if (len >= 0) len = replace_tags(s, len, any_tag_end, 0);
    if (len >= 0) len = replace_entities(s, len);
    if (len < 0) return 0;
    *out_len = len;
    return 1;
}

#endif
