/*
 * nshash/_html.h: nshash.text.strip_html in C, one markup character at a time.
 *
 * The sentence scan (_sentences.h) calls markup_at() at each '<' and '&' and
 * learns what the stripped text has there, so a page with HTML is scanned
 * once, in place, like any other.  The answer is exactly what the Python
 * function would leave, or DECLINE (the caller then strips in Python): when
 * html.unescape would replace a reference other than the five common ones
 * and "&amp;", when a tag name holds one of the four non-ASCII letters
 * re.IGNORECASE matches to ASCII, or when a tag sits right after an '&'.
 * tests/test_speedups.py compares both on arbitrary HTML-ish text.
 *
 * The Python applies two regular expressions, one after the other, then
 * replaces entities:
 *   block tags  <\s*\/?\s*(?:p|br|...)(?![a-zA-Z0-9])[^<>]{0,500}>  -> "\n"  (IGNORECASE)
 *   other tags  <\s*\/?\s*[a-zA-Z][^<>]{0,500}>                      -> ""
 * Neither can match in more than one way: after '<' the spaces, the
 * optional '/' and the name are forced, and [^<>]{0,500}> ends at the first
 * '<' or '>' or not at all.  So no tag starts inside another, every '<'
 * where a block tag matches is one the first pass replaces, and the second
 * pass sees the original text with each block tag read as one "\n": that is
 * how other_tag_end() reads it.  Included by _sentences.h only.
 */
#ifndef NSHASH_HTML_H
#define NSHASH_HTML_H
#include <Python.h>
#include <string.h>

/* A str's code points. */
typedef struct {
    int kind;
    const void *data;
    Py_ssize_t len;
} Text;

#define AT(t, i) PyUnicode_READ((t).kind, (t).data, (i))
#define MAX_TAG_RUN 500
#define DECLINE (-2)

static const char *const block_tags[] = {"p",   "br",  "div",    "li",      "ul",     "ol",  "tr",
                                         "td",  "th",  "table",  "h1",      "h2",     "h3",  "h4",
                                         "h5",  "h6",  "section", "article", "header", "footer",
                                         "nav", "blockquote", "pre", "hr", "dd", "dt", "dl", "title"};

static inline int is_ascii_alpha(Py_UCS4 c) { return (c | 32u) - 'a' < 26u; }
static inline int is_ascii_alnum(Py_UCS4 c) { return is_ascii_alpha(c) || c - '0' < 10u; }
/* İ ı ſ K: re.IGNORECASE matches them to i, i, s, k. */
static inline int folds_to_ascii(Py_UCS4 c) { return c == 0x130 || c == 0x131 || c == 0x17F || c == 0x212A; }

/* End of the block-level tag at the '<' at i (after its '>'), -1 if none, or DECLINE. */
static Py_ssize_t block_tag_end(Text t, Py_ssize_t i) {
    Py_ssize_t j = i + 1, k, run;
    char name[12];
    while (j < t.len && Py_UNICODE_ISSPACE(AT(t, j))) j++;
    if (j < t.len && AT(t, j) == '/') j++;
    while (j < t.len && Py_UNICODE_ISSPACE(AT(t, j))) j++;
    for (k = j; k < t.len && is_ascii_alnum(AT(t, k)) && k - j < (Py_ssize_t)sizeof name - 1; k++)
        name[k - j] = (char)(AT(t, k) | 32u); /* lower case; digits keep their value */
    if (k < t.len && folds_to_ascii(AT(t, k))) return DECLINE; /* in the name, or its lookahead */
    if (k == j || (k < t.len && is_ascii_alnum(AT(t, k)))) return -1; /* no name, or longer than any block tag */
    name[k - j] = '\0';
    for (size_t b = 0; b < sizeof block_tags / sizeof *block_tags; b++) {
        if (strcmp(name, block_tags[b]) != 0) continue;
        for (run = 0; k < t.len && run <= MAX_TAG_RUN; k++, run++) { /* [^<>]{0,500}> */
            Py_UCS4 c = AT(t, k);
            if (c == '>') return k + 1;
            if (c == '<') return -1;
        }
        return -1;
    }
    return -1;
}

/*
 * Where the second pass's tag at the '<' at i ends, -1 if none, or DECLINE.
 * It reads the text as the first pass left it: a block tag is one "\n" (a
 * space to \s, a character to [^<>]).  A '<' it meets that starts no block
 * tag ends the attempt, as it does in the Python.
 */
static Py_ssize_t other_tag_end(Text t, Py_ssize_t i) {
    Py_ssize_t j = i + 1, run, end;
    int slash = 0;
    for (;;) { /* \s*\/?\s* */
        if (j >= t.len) return -1;
        Py_UCS4 c = AT(t, j);
        if (Py_UNICODE_ISSPACE(c)) {
            j++;
        } else if (c == '/' && !slash) {
            slash = 1;
            j++;
        } else if (c == '<' && (end = block_tag_end(t, j)) != -1) {
            if (end == DECLINE) return DECLINE;
            j = end;
        } else {
            break;
        }
    }
    if (!is_ascii_alpha(AT(t, j))) return -1;
    for (j++, run = 0; j < t.len && run <= MAX_TAG_RUN; run++) { /* [^<>]{0,500}> */
        Py_UCS4 c = AT(t, j);
        if (c == '>') return j + 1;
        if (c != '<') {
            j++;
            continue;
        }
        end = block_tag_end(t, j);
        if (end < 0) return end; /* a '<' that stays, or DECLINE */
        j = end;
    }
    return -1;
}

static const struct {
    const char *name;
    Py_UCS4 value;
} common_entities[] = {{"&nbsp;", ' '}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&#39;", '\''}, {"&amp;", '&'}};

/* Longest entity above: the chars after an '&' that decide what it is. */
#define ENTITY_WINDOW 5

/*
 * Would nshash.text._ENTITY_RE match at the '&' at i?  Then the Python runs
 * html.unescape, which replaces references only where this says so.
 */
static int needs_unescape(Text t, Py_ssize_t i) {
    if (i + 1 < t.len && is_ascii_alpha(AT(t, i + 1))) return 1;
    if (i + 2 < t.len && AT(t, i + 1) == '#') {
        Py_UCS4 c = AT(t, i + 2);
        if (c - '0' < 10u) return 1;
        if ((c == 'x' || c == 'X') && i + 3 < t.len) {
            Py_UCS4 h = AT(t, i + 3);
            return h - '0' < 10u || (h | 32u) - 'a' < 6u;
        }
    }
    return 0;
}

/* What markup_at() found. */
enum { MARKUP_STAYS, MARKUP_GONE, MARKUP_BREAK, MARKUP_CHAR };

/*
 * What the stripped text holds for the '<' or '&' at i: the character
 * itself (MARKUP_STAYS), nothing (a tag: MARKUP_GONE), a line break (a block
 * tag: MARKUP_BREAK) or one character *value (an entity: MARKUP_CHAR), the
 * text going on at *next; or DECLINE.
 */
static int markup_at(Text t, Py_ssize_t i, Py_ssize_t *next, Py_UCS4 *value) {
    Py_ssize_t end, w;
    if (AT(t, i) == '<') {
        end = block_tag_end(t, i);
        if (end >= 0) {
            *next = end;
            return MARKUP_BREAK;
        }
        if (end == -1) end = other_tag_end(t, i);
        if (end == DECLINE) return DECLINE;
        if (end < 0) return MARKUP_STAYS;
        *next = end;
        return MARKUP_GONE;
    }
    /* Entities are replaced after tags are gone: a tag (or a '<' the text
     * keeps) close after the '&' could change what follows it there. */
    for (w = i + 1; w < t.len && w <= i + ENTITY_WINDOW; w++)
        if (AT(t, w) == '<') return DECLINE;
    for (size_t e = 0; e < sizeof common_entities / sizeof *common_entities; e++) {
        const char *name = common_entities[e].name;
        Py_ssize_t n = (Py_ssize_t)strlen(name), j;
        for (j = 1; j < n && i + j < t.len && AT(t, i + j) == (Py_UCS4)(unsigned char)name[j]; j++) {
        }
        if (j == n) {
            *value = common_entities[e].value;
            *next = i + n;
            return MARKUP_CHAR;
        }
    }
    return needs_unescape(t, i) ? DECLINE : MARKUP_STAYS;
}

/*
 * Is the stripped text's next character, from the markup at i on, a space
 * (a '.' before it ends a sentence)?  1 and *next after that space, 0, or DECLINE.
 */
static int space_after_markup(Text t, Py_ssize_t i, Py_ssize_t *next) {
    Py_UCS4 value;
    while (i < t.len) {
        Py_UCS4 c = AT(t, i);
        if (c != '<' && c != '&') break;
        int found = markup_at(t, i, next, &value);
        if (found == DECLINE) return DECLINE;
        if (found == MARKUP_CHAR && value == ' ') return 1;
        if (found != MARKUP_GONE) return 0;
        i = *next;
    }
    if (i < t.len && AT(t, i) == ' ') {
        *next = i + 1;
        return 1;
    }
    return 0;
}

#endif
