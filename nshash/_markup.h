/*
 * nshash/_markup.h: nshash.text.strip_html in C, in place on a code point
 * buffer.  Each function follows one regular expression of nshash/text.py
 * (named above it) the way Python's re module runs it: the same leftmost
 * matches, the same Unicode \s (Py_UNICODE_ISSPACE, what re uses).  Where the
 * C cannot be sure to match re (a character re.IGNORECASE maps to an ASCII
 * letter inside a tag name; an entity that needs html.unescape) it answers
 * FALLBACK and Python computes the document.  Included by _speedups.c only.
 */
#ifndef NSHASH_MARKUP_H
#define NSHASH_MARKUP_H
#include "_tables.h"

enum { NO_MATCH = -1, FALLBACK = -2, UNESCAPE = 1 };
#define TAG_ATTRS 5000 /* [^<>]{0,5000} in _BLOCK_TAG_RE and _TAG_RE */
#define BASE64_PAYLOAD 64 /* {64,} in _BASE64_RE */

static inline int is_ascii_alnum(Py_UCS4 c) { return c < 128 && (Py_ISALNUM((int)c)); }

/* Whether s[i:] starts with the ASCII word w (of length k), before end. */
static int starts_with(const Py_UCS4 *s, Py_ssize_t i, Py_ssize_t end, const char *w, Py_ssize_t k) {
    if (end - i < k) return 0;
    for (Py_ssize_t j = 0; j < k; j++)
        if (s[i + j] != (Py_UCS4)(unsigned char)w[j]) return 0;
    return 1;
}

static inline int is_space_tab(Py_UCS4 c) { return c == ' ' || c == '\t'; }

/* The passes below rewrite s in place, s[r:] read and s[:w] written (w <= r).  move_down moves s[r:upto] to w in
 * one move; copy_to moves s[r:] up to the next c (or the end) and returns where that c is: the characters between
 * matches were copied one at a time, the markup's whole cost on a page with a few tags. */
static inline void move_down(Py_UCS4 *s, Py_ssize_t r, Py_ssize_t *w, Py_ssize_t upto) {
    if (*w != r) memmove(s + *w, s + r, (size_t)(upto - r) * sizeof(Py_UCS4));
    *w += upto - r;
}

static inline Py_ssize_t copy_to(Py_UCS4 *s, Py_ssize_t r, Py_ssize_t *w, Py_ssize_t n, Py_UCS4 c) {
    Py_ssize_t next = find_char(s, r, n, c);
    move_down(s, r, w, next);
    return next;
}

/*
 * The tag name at s[i..]: the run of ASCII letters and digits.  Under
 * re.IGNORECASE a few non-ASCII characters (ſ, K, ı, İ) match ASCII letters,
 * in the name or in its (?![a-zA-Z0-9]): FALLBACK when one follows the run.
 */
static Py_ssize_t name_end(const Py_UCS4 *s, Py_ssize_t n, Py_ssize_t i) {
    while (i < n && is_ascii_alnum(s[i])) i++;
    if (i < n && s[i] >= 128 && (char_class(s[i]) & C_IGNORECASE)) return FALLBACK;
    return i;
}

/* Index of the name s[start:end] (compared ignoring ASCII case) in names, or -1. */
static int find_name(const Py_UCS4 *s, Py_ssize_t start, Py_ssize_t end, const char *const *names, int count) {
    for (int k = 0; k < count; k++) {
        const char *name = names[k];
        Py_ssize_t j = 0;
        while (start + j < end && name[j] != '\0' && ascii_lower(s[start + j]) == (Py_UCS4)name[j]) j++;
        if (start + j == end && name[j] == '\0') return k;
    }
    return -1;
}

// `<\s*/\s*\1\s*>` at s[i] (\1 compared as re does under IGNORECASE): its end, NO_MATCH or FALLBACK.
static Py_ssize_t closing_tag(const Py_UCS4 *s, Py_ssize_t n, Py_ssize_t i, const Py_UCS4 *name, Py_ssize_t len) {
    i = skip_space(s, n, i + 1);
    if (i >= n || s[i] != '/') return NO_MATCH;
    i = skip_space(s, n, i + 1);
    for (Py_ssize_t j = 0; j < len; j++, i++) {
        if (i >= n) return NO_MATCH;
        if (s[i] >= 128 && (char_class(s[i]) & C_IGNORECASE)) return FALLBACK;
        if (ascii_lower(s[i]) != ascii_lower(name[j])) return NO_MATCH;
    }
    i = skip_space(s, n, i);
    return i < n && s[i] == '>' ? i + 1 : NO_MATCH;
}

typedef struct {
    Py_ssize_t n, dollar; /* length; where `$` first matches (before a final newline) */
    Py_ssize_t gt;        /* the next '>' at or after gt_from (-1: none) */
    Py_ssize_t gt_from;
} hidden_scan;

/* The first '>' at or after i; remembered, so that many '<script' without one stay linear. */
static Py_ssize_t next_gt(const Py_UCS4 *s, hidden_scan *h, Py_ssize_t i) {
    if (h->gt_from >= 0 && i >= h->gt_from && (h->gt < 0 || i <= h->gt)) return h->gt;
    h->gt_from = i;
    for (; i < h->n; i++)
        if (s[i] == '>') return h->gt = i;
    return h->gt = -1;
}

// _HIDDEN_RE at s[p] == '<':
//   <!--.*?(?:-->|$) | <\s*(HIDDEN_TAGS)(?![a-zA-Z0-9])[^>]*>.*?(?:<\s*/\s*\1\s*>|$)
// (IGNORECASE, DOTALL; `$` matches at the end and before a final newline).
static Py_ssize_t hidden_match(const Py_UCS4 *s, hidden_scan *h, Py_ssize_t p) {
    Py_ssize_t n = h->n;
    if (p + 3 < n && s[p + 1] == '!' && s[p + 2] == '-' && s[p + 3] == '-') {
        for (Py_ssize_t q = p + 4; q + 2 < n; q++)
            if (s[q] == '-' && s[q + 1] == '-' && s[q + 2] == '>') return q + 3;
        return h->dollar;
    }
    Py_ssize_t start = skip_space(s, n, p + 1), end = name_end(s, n, start);
    if (end == FALLBACK) return FALLBACK;
    if (find_name(s, start, end, hidden_tags, N_HIDDEN_TAGS) < 0) return NO_MATCH;
    Py_ssize_t gt = next_gt(s, h, end);
    if (gt < 0) return NO_MATCH;
    for (Py_ssize_t q = gt + 1; q < n; q++) {
        if (s[q] != '<') continue;
        Py_ssize_t close = closing_tag(s, n, q, s + start, end - start);
        if (close != NO_MATCH) return close;
    }
    return h->dollar; /* an unclosed element runs to the end */
}

/* _HIDDEN_RE.sub("\n", ...) in place. */
static int strip_hidden(Py_UCS4 *s, Py_ssize_t *len) {
    hidden_scan h = {*len, *len, -1, -1};
    if (h.n > 0 && s[h.n - 1] == '\n') h.dollar = h.n - 1;
    Py_ssize_t r = 0, w = 0;
    while ((r = copy_to(s, r, &w, h.n, '<')) < h.n) {
        Py_ssize_t end = hidden_match(s, &h, r);
        if (end == FALLBACK) return FALLBACK;
        if (end >= 0) {
            s[w++] = '\n';
            r = end;
            continue;
        }
        s[w++] = s[r++];
    }
    *len = w;
    return 0;
}

static inline int is_base64(Py_UCS4 c) { return c < 128 && (Py_ISALNUM((int)c) || c == '+' || c == '/' || c == '='); }

/* _BASE64_RE.sub("base64,", ...) in place: base64,[A-Za-z0-9+/=]{64,} keeps its "base64,".  A match is
 * looked for only where its ',' is (the prefix cannot overlap itself: each start has its own comma). */
static void strip_payloads(Py_UCS4 *s, Py_ssize_t *len) {
    static const char prefix[] = "base64,";
    const Py_ssize_t n = *len, plen = (Py_ssize_t)sizeof prefix - 1;
    Py_ssize_t r = 0, w = 0;
    for (Py_ssize_t comma = find_char(s, plen - 1, n, ','); comma < n; comma = find_char(s, comma + 1, n, ',')) {
        Py_ssize_t start = comma - (plen - 1), j = 0; /* start >= r: unread, as is what follows the comma */
        while (j < plen - 1 && s[start + j] == (Py_UCS4)prefix[j]) j++;
        if (j < plen - 1) continue;
        Py_ssize_t end = comma + 1;
        while (end < n && is_base64(s[end])) end++;
        if (end - (comma + 1) < BASE64_PAYLOAD) continue;
        move_down(s, r, &w, comma + 1);
        r = end;
        comma = r + plen - 2; /* the next search starts at r + plen - 1 */
    }
    move_down(s, r, &w, n);
    *len = w;
}

/* `[^<>]{0,5000}>` from i: the end after the '>', or NO_MATCH. */
static Py_ssize_t tag_rest(const Py_UCS4 *s, Py_ssize_t n, Py_ssize_t i) {
    for (Py_ssize_t j = 0; j <= TAG_ATTRS && i + j < n; j++) {
        if (s[i + j] == '>') return i + j + 1;
        if (s[i + j] == '<') return NO_MATCH;
    }
    return NO_MATCH;
}

// _BLOCK_TAG_RE (block=1, IGNORECASE): <\s*/?\s*(?:BLOCK_TAGS)(?![a-zA-Z0-9])[^<>]{0,5000}>
// _TAG_RE (block=0): <\s*/?\s*[a-zA-Z][^<>]{0,5000}>
static Py_ssize_t tag_match(const Py_UCS4 *s, Py_ssize_t n, Py_ssize_t p, int block) {
    Py_ssize_t i = skip_space(s, n, p + 1);
    if (i < n && s[i] == '/') i = skip_space(s, n, i + 1);
    if (!block) return i < n && s[i] < 128 && Py_ISALPHA((int)s[i]) ? tag_rest(s, n, i + 1) : NO_MATCH;
    Py_ssize_t end = name_end(s, n, i);
    if (end == FALLBACK) return FALLBACK;
    if (find_name(s, i, end, block_tags, N_BLOCK_TAGS) < 0) return NO_MATCH;
    return tag_rest(s, n, end);
}

/* _BLOCK_TAG_RE.sub("\n", ...) or _TAG_RE.sub("", ...) in place. */
static int strip_tags(Py_UCS4 *s, Py_ssize_t *len, int block) {
    Py_ssize_t n = *len, r = 0, w = 0;
    while ((r = copy_to(s, r, &w, n, '<')) < n) {
        Py_ssize_t end = tag_match(s, n, r, block);
        if (end == FALLBACK) return FALLBACK;
        if (end >= 0) {
            if (block) s[w++] = '\n';
            r = end;
            continue;
        }
        s[w++] = s[r++];
    }
    *len = w;
    return 0;
}

/* Which of text._COMMON_ENTITIES starts at s[i] (-1: none). */
static int common_entity(const Py_UCS4 *s, Py_ssize_t n, Py_ssize_t i) {
    for (int k = 0; k < N_ENTITY_CHARS; k++)
        if (starts_with(s, i, n, entity_names[k], (Py_ssize_t)strlen(entity_names[k]))) return k;
    return -1;
}

/* Whether _ENTITY_RE (&#[0-9]+ | &#[xX][0-9a-fA-F]+ | &[a-zA-Z]...) matches at s[i] == '&'. */
static int needs_unescape(const Py_UCS4 *s, Py_ssize_t n, Py_ssize_t i) {
    if (i + 1 >= n) return 0;
    Py_UCS4 c = s[i + 1];
    if (c < 128 && Py_ISALPHA((int)c)) return 1;
    if (c != '#' || i + 2 >= n) return 0;
    c = s[i + 2];
    if (c >= '0' && c <= '9') return 1;
    return (c == 'x' || c == 'X') && i + 3 < n && s[i + 3] < 128 && Py_ISXDIGIT((int)s[i + 3]);
}

/* nshash.markdown._TARGET at s[i] (its '('): \((?:[^()\s]|\([^()\s]*\))*(?:\s+"[^"\n]*")?\); the end or NO_MATCH.
 * The alternatives start with different characters, so the greedy scan is the only match re can find. */
static Py_ssize_t link_target(const Py_UCS4 *s, Py_ssize_t n, Py_ssize_t i) {
    if (i >= n || s[i] != '(') return NO_MATCH;
    for (i++; i < n && s[i] != ')' && !Py_UNICODE_ISSPACE(s[i]);) {
        if (s[i] != '(') {
            i++;
            continue;
        }
        Py_ssize_t j = i + 1;
        while (j < n && s[j] != '(' && s[j] != ')' && !Py_UNICODE_ISSPACE(s[j])) j++;
        if (j >= n || s[j] != ')') return NO_MATCH; /* a '(' no group closes: neither ')' nor a title follows */
        i = j + 1;
    }
    if (i < n && s[i] == ')') return i + 1;
    Py_ssize_t j = skip_space(s, n, i);
    if (j == i || j >= n || s[j] != '"') return NO_MATCH;
    for (j++; j < n && s[j] != '"' && s[j] != '\n'; j++) {}
    return j + 1 < n && s[j] == '"' && s[j + 1] == ')' ? j + 2 : NO_MATCH;
}

/* nshash.markdown.IMAGE_RE.subn("", ...) (image) or LINK_RE.subn(r"\1", ...) in place: the matches made. */
static Py_ssize_t strip_md(Py_UCS4 *s, Py_ssize_t *len, int image) {
    Py_ssize_t n = *len, r = 0, w = 0, made = 0;
    while ((r = copy_to(s, r, &w, n, image ? '!' : '[')) < n) {
        Py_ssize_t open = r + image, close = open + 1, end = NO_MATCH;
        if (open < n && s[open] == '[') {
            while (close < n && s[close] != '[' && s[close] != ']') close++;
            if (close < n && s[close] == ']') end = link_target(s, n, close + 1);
        }
        if (end == NO_MATCH) {
            s[w++] = s[r++];
            continue;
        }
        if (!image) move_down(s, open + 1, &w, close);
        r = end;
        made++;
    }
    *len = w;
    return made;
}

/* nshash.markdown.strip_links: only where a "](" is; the MARKS go from a page that had a link or an image. */
static void strip_links(Py_UCS4 *s, Py_ssize_t *len) {
    Py_ssize_t n = *len, at = find_char(s, 0, n, ']');
    while (at + 1 < n && s[at + 1] != '(') at = find_char(s, at + 1, n, ']');
    if (at + 1 >= n) return;
    Py_ssize_t made = strip_md(s, len, 1);
    made += strip_md(s, len, 0);
    if (made == 0) return;
    Py_ssize_t w = 0;
    n = *len;
    for (Py_ssize_t r = 0; r < n; r++) {
        if (!in_list(md_marks, N_MD_MARKS, s[r])) s[w++] = s[r];
    }
    *len = w;
}

/* nshash.markdown.QUOTE_RE at the line s[i:end]: where its quote marks end (i: none). */
static Py_ssize_t quote_end(const Py_UCS4 *s, Py_ssize_t end, Py_ssize_t i) {
    Py_ssize_t j = i;
    while (j < end && is_space_tab(s[j])) j++;
    if (j >= end || s[j] != '>') return i;
    while (j < end && s[j] == '>')
        for (j++; j < end && is_space_tab(s[j]); j++) {}
    return j;
}

/* nshash.markdown.strip_quotes in place: a line's marks go when the line before or after has marks too.  One
 * pass, the next line's marks read before a line is moved down (it lies past what is written). */
static void strip_quotes(Py_UCS4 *s, Py_ssize_t *len) {
    Py_ssize_t n = *len;
    if (!has_char(s, n, '>')) return;
    Py_ssize_t w = 0, start = 0, end = find_char(s, 0, n, '\n'), mark = quote_end(s, end, 0);
    int before = 0;
    for (;;) {
        int last = end >= n;
        Py_ssize_t next = end + 1, next_end = last ? n : find_char(s, next, n, '\n');
        Py_ssize_t next_mark = last ? next : quote_end(s, next_end, next);
        int marked = mark > start, after = !last && next_mark > next;
        move_down(s, marked && (before || after) ? mark : start, &w, end);
        if (last) break;
        s[w++] = '\n';
        before = marked;
        start = next;
        end = next_end;
        mark = next_mark;
    }
    *len = w;
}

/* nshash.markdown.URL_LINE_RE on the line s[i:end]: ^[ \t]*(?:[0-9]+\.[ \t]+)?(?:SCHEME://|mailto:|javascript:)[^\s]*[ \t]*$
 * (SCHEME: [a-zA-Z][a-zA-Z0-9+.-]*).  Each part's greedy match is the only one re can find. */
static int url_line(const Py_UCS4 *s, Py_ssize_t i, Py_ssize_t end) {
    while (i < end && is_space_tab(s[i])) i++;
    Py_ssize_t j = i;
    while (j < end && s[j] >= '0' && s[j] <= '9') j++;
    if (j > i && j < end && s[j] == '.' && j + 1 < end && is_space_tab(s[j + 1]))
        for (i = j + 1; i < end && is_space_tab(s[i]); i++) {}
    Py_ssize_t k = i;
    if (k < end && s[k] < 128 && Py_ISALPHA((int)s[k]))
        for (k++; k < end && (is_ascii_alnum(s[k]) || s[k] == '+' || s[k] == '.' || s[k] == '-'); k++) {}
    if (k > i && starts_with(s, k, end, "://", 3)) k += 3;
    else if (starts_with(s, i, end, "mailto:", 7)) k = i + 7;
    else if (starts_with(s, i, end, "javascript:", 11)) k = i + 11;
    else return 0;
    while (k < end && !Py_UNICODE_ISSPACE(s[k])) k++;
    while (k < end && is_space_tab(s[k])) k++;
    return k == end;
}

/* Whether s[0:n] holds a "://", "mailto:" or "javascript:" (strip_url_lines' test, as the Python's): the page's few
 * ':' looked at, where a line walk cost a page ~1 µs. */
static int has_url(const Py_UCS4 *s, Py_ssize_t n) {
    for (Py_ssize_t i = find_char(s, 0, n, ':'); i < n; i = find_char(s, i + 1, n, ':'))
        if (starts_with(s, i, n, "://", 3) || (i >= 6 && starts_with(s, i - 6, n, "mailto:", 7)) ||
            (i >= 10 && starts_with(s, i - 10, n, "javascript:", 11)))
            return 1;
    return 0;
}

/* nshash.markdown.strip_url_lines in place: runs of URL_RUN or more lines that are a URL and nothing else are
 * emptied.  A run is read to its end once, then dropped or copied whole. */
static void strip_url_lines(Py_UCS4 *s, Py_ssize_t *len) {
    Py_ssize_t n = *len, w = 0;
    if (!has_url(s, n)) return;
    for (Py_ssize_t start = 0;;) {
        Py_ssize_t end = find_char(s, start, n, '\n'), run = 0, last = end;
        for (Py_ssize_t at = start, at_end = end; url_line(s, at, at_end);) {
            run++;
            last = at_end;
            if (at_end >= n) break;
            at = at_end + 1;
            at_end = find_char(s, at, n, '\n');
        }
        if (run >= URL_RUN) {
            for (Py_ssize_t k = 1; k < run; k++) s[w++] = '\n';
            end = last;
        } else {
            end = run > 0 ? last : end; /* a shorter run is copied as it is, the line after it read again */
            move_down(s, start, &w, end);
        }
        if (end >= n) break;
        s[w++] = '\n';
        start = end + 1;
    }
    *len = w;
}

/* escaped.strip_cdata in place: every "<![CDATA[" deleted, then every "]]>" if there was one (one pass each,
 * left to right, as str.replace). */
static void strip_cdata(Py_UCS4 *s, Py_ssize_t *len) {
    static const char *const markers[2] = {"<![CDATA[", "]]>"};
    for (int m = 0; m < 2; m++) {
        Py_ssize_t n = *len, k = (Py_ssize_t)strlen(markers[m]), r = 0, w = 0, found = 0;
        while ((r = copy_to(s, r, &w, n, (Py_UCS4)markers[m][0])) < n) {
            if (starts_with(s, r, n, markers[m], k)) {
                r += k;
                found++;
            } else {
                s[w++] = s[r++];
            }
        }
        *len = w;
        if (!found) return;
    }
}

/* escaped.escaped_markup: whether s[0:n] holds "&lt;" before a letter, '/' and a letter, or '!'. */
static int escaped_markup(const Py_UCS4 *s, Py_ssize_t n) {
    for (Py_ssize_t i = find_char(s, 0, n, '&'); i < n; i = find_char(s, i + 1, n, '&')) {
        if (!starts_with(s, i, n, "&lt;", 4) || i + 4 >= n) continue;
        Py_UCS4 c = s[i + 4];
        if (c == '!' || (c < 128 && Py_ISALPHA((int)c))) return 1;
        if (c == '/' && i + 5 < n && s[i + 5] < 128 && Py_ISALPHA((int)s[i + 5])) return 1;
    }
    return 0;
}

/* escaped.json_escaped on an ASCII text: JSON_MIN_ESCAPES "\\uXXXX" escapes or more making up JSON_SHARE of its
 * characters, or as many escaped line breaks and no line break; escapes read left to right (re.finditer). */
static int json_escaped(const char *s, Py_ssize_t n) {
    Py_ssize_t escapes = 0, breaks = 0;
    for (const char *at = memchr(s, '\\', (size_t)n); at != NULL;) {
        Py_ssize_t i = at - s, next = i + 1;
        char c = i + 1 < n ? s[i + 1] : 0;
        if (c == 'u' && i + 6 <= n && Py_ISXDIGIT(s[i + 2]) && Py_ISXDIGIT(s[i + 3]) && Py_ISXDIGIT(s[i + 4]) &&
            Py_ISXDIGIT(s[i + 5])) {
            escapes++;
            next = i + 6;
        } else if (c != 0 && strchr("\"\\/bfnrt", c) != NULL) {
            breaks += c == 'n';
            next = i + 2;
        }
        at = next < n ? memchr(s + next, '\\', (size_t)(n - next)) : NULL;
    }
    if (escapes >= JSON_MIN_ESCAPES && 6.0 * (double)escapes >= JSON_SHARE * (double)n) return 1;
    return breaks >= JSON_MIN_ESCAPES && memchr(s, '\n', (size_t)n) == NULL;
}

/*
 * strip_html: 0; UNESCAPE when html.unescape must still run on the result
 * (the caller calls it: the standard's 2,000 entities and its rules for
 * malformed ones are not worth a second implementation on the rare pages
 * that need them); FALLBACK for what re.IGNORECASE would do that the C does not.
 */
static int strip_html(Py_UCS4 *s, Py_ssize_t *len) {
    if (has_char(s, *len, '<')) {
        strip_cdata(s, len);
        strip_payloads(s, len);
        if (strip_hidden(s, len) || strip_tags(s, len, 1) || strip_tags(s, len, 0)) return FALLBACK;
    }
    strip_links(s, len);
    strip_quotes(s, len);
    strip_url_lines(s, len);
    Py_ssize_t n = *len, r = 0, w = 0;
    if (!has_char(s, n, '&')) return 0;
    while ((r = copy_to(s, r, &w, n, '&')) < n) {
        int k = common_entity(s, n, r);
        if (k >= 0) {
            s[w++] = entity_chars[k];
            r += (Py_ssize_t)strlen(entity_names[k]);
        } else {
            s[w++] = s[r++];
        }
    }
    *len = n = w;
    for (r = find_char(s, 0, n, '&'); r < n; r = find_char(s, r + 1, n, '&'))
        if (needs_unescape(s, n, r)) return UNESCAPE;
    return 0;
}
#endif
