/*
 * nshash/_sentences.h: a document's keys for NSHash's default options, in C.
 *
 * doc_features() does what nshash.text.ranked_sentences + NSHash._keys_with +
 * core._drop_template_keys do for split='default', normalize=True,
 * hashfunc='farmhash', HTML stripping included (_html.h).  The Python code is
 * the specification; tests/test_speedups.py checks both agree on arbitrary text.
 * Included by _speedups.c only.
 */
#ifndef NSHASH_SENTENCES_H
#define NSHASH_SENTENCES_H
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_farmhash.h"
#include "_html.h"

/* KEEP must be 0: the scan adds (class == KEEP) to the output length.
 * MARKUP ('<', '&') is kept, or read as strip_html leaves it (_html.h). */
enum { KEEP = 0, NOISE = 1, DELIM = 2, DOT = 3, MARKUP = 4 };

/*
 * The class of every BMP code point: one load per character and no branch
 * (mixed CJK/ASCII text defeats branch prediction).  64 KiB, of which a
 * page of text touches a few lines; code points above the BMP are KEEP.
 */
static unsigned char bmp_class[65536];

static void init_classes(void) {
    static const Py_UCS4 delims[] = {'\n', '\r', '!', '?', ';', 0x3002, 0xFF01, 0xFF1F, 0xFF1B, 0xFF61, 0xFF0E};
    static const Py_UCS4 noise[] = {' ', '\t', ',', ':', '"', '\'', '(', ')', 0x3000, 0xA0, 0x200B, 0xFEFF,
                                    0xFF0C, 0x3001, 0xFF1A, 0x201C, 0x201D, 0x2018, 0x2019, 0xFF08, 0xFF09};
    size_t i;
    memset(bmp_class, KEEP, sizeof bmp_class);
    for (i = 0; i < sizeof delims / sizeof *delims; i++) bmp_class[delims[i]] = DELIM;
    for (i = 0; i < sizeof noise / sizeof *noise; i++) bmp_class[noise[i]] = NOISE;
    bmp_class['.'] = DOT;
    bmp_class['<'] = MARKUP;
    bmp_class['&'] = MARKUP;
}

/* ASCII-only lower-casing, as nshash.text.ascii_lower: the same on every platform. */
#define ASCII_LOWER(c) ((c) + ((Py_UCS4)((c) - 'A') < 26u ? 32u : 0u))

typedef struct {
    Py_ssize_t start;    /* offset in the code point buffer */
    Py_ssize_t length;   /* code points */
    Py_ssize_t position; /* index of the line among all pieces */
} Piece;

/* Growable array of the pieces long enough to be fingerprinted. */
typedef struct {
    Piece *items;
    Py_ssize_t count, cap;
    Piece local[128];
} Pieces;

static int push_piece(Pieces *p, Py_ssize_t start, Py_ssize_t length, Py_ssize_t position) {
    if (p->count == p->cap) {
        Py_ssize_t cap = p->cap * 2;
        Piece *grown = p->items == p->local ? PyMem_Malloc(sizeof(Piece) * cap)
                                            : PyMem_Realloc(p->items, sizeof(Piece) * cap);
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        if (p->items == p->local) memcpy(grown, p->local, sizeof p->local);
        p->items = grown;
        p->cap = cap;
    }
    p->items[p->count].start = start;
    p->items[p->count].length = length;
    p->items[p->count].position = position;
    p->count++;
    return 0;
}

/*
 * One pass per string kind: drop noise, cut at boundaries ('.' only when a
 * space follows, which the boundary swallows), lower-case ASCII letters.
 * Every character is written; only kept ones advance the output.  With
 * `html`, '<' and '&' are read as strip_html leaves them (_html.h); returns
 * DECLINE where only Python's strip_html is exact.
 */
#define DEFINE_SCAN(NAME, T, CLASSIFY)                                                                      \
    static int NAME(const void *data, Py_ssize_t len, Py_ssize_t min_len, Py_UCS4 *cps, Pieces *pieces,    \
                    int html) {                                                                            \
        const T *s = (const T *)data;                                                                      \
        const Text t = {(int)sizeof(T), data, len};                                                        \
        Py_ssize_t i, out = 0, start = 0, position = 0, next;                                              \
        for (i = 0; i < len; i++) {                                                                        \
            Py_UCS4 c = s[i];                                                                              \
            int cls = CLASSIFY(c);                                                                         \
            cps[out] = ASCII_LOWER(c);                                                                     \
            out += (cls == KEEP);                                                                          \
            if (cls >= DELIM) {                                                                            \
                if (cls == MARKUP) {                                                                       \
                    int found = html ? markup_at(t, i, &next, &c) : MARKUP_STAYS;                          \
                    if (found == DECLINE) return DECLINE;                                                  \
                    if (found == MARKUP_STAYS) out++;                                                      \
                    if (found == MARKUP_CHAR && CLASS_BMP(c) != NOISE) cps[out++] = c; /* not markup now */  \
                    if (found != MARKUP_STAYS) i = next - 1;                                               \
                    if (found != MARKUP_BREAK) continue;                                                   \
                } else if (cls == DOT) {                                                                   \
                    int space = i + 1 < len && s[i + 1] == ' ';                                            \
                    next = i + 2;                                                                          \
                    if (html && i + 1 < len && (s[i + 1] == '<' || s[i + 1] == '&')) {                     \
                        space = space_after_markup(t, i + 1, &next);                                       \
                        if (space == DECLINE) return DECLINE;                                              \
                    }                                                                                      \
                    if (!space) continue;                                                                  \
                    i = next - 1; /* ". " is one boundary */                                               \
                }                                                                                          \
                if (out - start >= min_len && push_piece(pieces, start, out - start, position) < 0)        \
                    return -1;                                                                             \
                position++;                                                                                \
                start = out;                                                                               \
            }                                                                                              \
        }                                                                                                  \
        if (out - start >= min_len && push_piece(pieces, start, out - start, position) < 0) return -1;     \
        return 0;                                                                                          \
    }

#define CLASS_BMP(c) (bmp_class[(c)])
#define CLASS_ANY(c) ((c) < 0x10000 ? bmp_class[(c)] : KEEP)
DEFINE_SCAN(scan_ucs1, Py_UCS1, CLASS_BMP)
DEFINE_SCAN(scan_ucs2, Py_UCS2, CLASS_BMP)
DEFINE_SCAN(scan_ucs4, Py_UCS4, CLASS_ANY)

static int by_length_desc(const void *a, const void *b) {
    const Piece *x = (const Piece *)a, *y = (const Piece *)b;
    if (x->length != y->length) return x->length < y->length ? 1 : -1;
    /* Stable: ties keep document order, as Python's sorted() does. */
    return x->position < y->position ? -1 : (x->position > y->position);
}

static int same_text(const Py_UCS4 *cps, const Piece *a, const Piece *b) {
    return a->length == b->length && memcmp(cps + a->start, cps + b->start, sizeof(Py_UCS4) * a->length) == 0;
}

/*
 * The k longest distinct pieces, longest first, ties in document order.
 * Returns how many were chosen, -1 if a repeated piece hid a candidate
 * (the caller then sorts every piece).
 */
static Py_ssize_t choose_top(const Py_UCS4 *cps, const Piece *pieces, Py_ssize_t count, Py_ssize_t k,
                             Piece *chosen, int complete) {
    Py_ssize_t n_chosen = 0, p, q;
    for (p = 0; p < count && n_chosen < k; p++) {
        int repeated = 0;
        for (q = 0; q < n_chosen && !repeated; q++) repeated = same_text(cps, &chosen[q], &pieces[p]);
        if (repeated) {
            if (!complete) return -1;
            continue;
        }
        chosen[n_chosen++] = pieces[p];
    }
    return n_chosen;
}

/* UTF-8 of code points (lone surrogates as 'surrogatepass' encodes them), after an optional 0x01 mark. */
static size_t utf8(const Py_UCS4 *cps, Py_ssize_t n, int tail_mark, unsigned char *buf) {
    unsigned char *p = buf;
    Py_ssize_t i;
    if (tail_mark) *p++ = 0x01;
    for (i = 0; i < n; i++) {
        Py_UCS4 c = cps[i];
        if (c < 0x80) {
            *p++ = (unsigned char)c;
        } else if (c < 0x800) {
            *p++ = (unsigned char)(0xC0 | (c >> 6));
            *p++ = (unsigned char)(0x80 | (c & 0x3F));
        } else if (c < 0x10000) {
            *p++ = (unsigned char)(0xE0 | (c >> 12));
            *p++ = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
            *p++ = (unsigned char)(0x80 | (c & 0x3F));
        } else {
            *p++ = (unsigned char)(0xF0 | (c >> 18));
            *p++ = (unsigned char)(0x80 | ((c >> 12) & 0x3F));
            *p++ = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
            *p++ = (unsigned char)(0x80 | (c & 0x3F));
        }
    }
    return (size_t)(p - buf);
}

static uint64_t hash_cps(const Py_UCS4 *cps, Py_ssize_t n, int tail_mark, unsigned char *buf) {
    return fingerprint64(buf, utf8(cps, n, tail_mark, buf));
}

/*
 * core._drop_template_keys: a key found in two sentences of the page is a
 * template and is blanked (0); a sentence left with one key uses it twice,
 * one left with none is dropped.  Called only when some key repeats.
 */
static Py_ssize_t drop_template_keys(uint64_t *keys, Py_ssize_t *positions, Py_ssize_t m) {
    Py_ssize_t i, j, out = 0;
    int side;
    /* shared[2i + side]: that key also occurs (non-zero) in another sentence. */
    unsigned char local[128], *shared = 2 * m <= 128 ? local : PyMem_Malloc((size_t)(2 * m));
    if (shared == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (i = 0; i < 2 * m; i++) {
        shared[i] = 0;
        if (keys[i] == 0) continue;
        for (j = 0; j < 2 * m && !shared[i]; j++) shared[i] = j / 2 != i / 2 && keys[j] == keys[i];
    }
    for (i = 0; i < m; i++) {
        uint64_t kept[2];
        for (side = 0; side < 2; side++) kept[side] = shared[2 * i + side] ? 0 : keys[2 * i + side];
        if (kept[0] == 0 && kept[1] == 0) continue;
        keys[2 * out] = kept[0] ? kept[0] : kept[1];
        keys[2 * out + 1] = kept[1] ? kept[1] : kept[0];
        positions[out++] = positions[i];
    }
    if (shared != local) PyMem_Free(shared);
    return out;
}

/* Returned by doc_features when the text needs Python's strip_html. */
#define NEEDS_PYTHON_HTML (-2)

/*
 * The features of `text` into keys[2k] and positions[k]: returns the number
 * of sentences keyed, -1 with an exception set, or NEEDS_PYTHON_HTML.
 * *ranked is how many sentences were long enough before template keys were
 * dropped (0: the caller falls back to the whole-text key, in Python).  With
 * `html`, HTML is stripped first (nshash.text.strip_html).
 */
static Py_ssize_t doc_features(PyObject *text, int html, Py_ssize_t k, Py_ssize_t min_len, Py_ssize_t anchor,
                               uint64_t *keys, Py_ssize_t *positions, Py_ssize_t *ranked) {
    Py_ssize_t len = PyUnicode_GET_LENGTH(text), m = -1, n_chosen, i, j, longest = 0;
    int kind = PyUnicode_KIND(text);
    Py_UCS4 cps_local[2048], *cps = len <= 2048 ? cps_local : PyMem_Malloc(sizeof(Py_UCS4) * (size_t)len);
    Piece top_local[64], *top = k <= 64 ? top_local : PyMem_Malloc(sizeof(Piece) * (size_t)k);
    unsigned char buf_local[520], *buf = buf_local;
    Pieces pieces;
    *ranked = 0;
    pieces.items = pieces.local;
    pieces.count = 0;
    pieces.cap = sizeof pieces.local / sizeof *pieces.local;
    if (cps == NULL || top == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    const void *data = PyUnicode_DATA(text);
    int rc = kind == PyUnicode_1BYTE_KIND   ? scan_ucs1(data, len, min_len, cps, &pieces, html)
             : kind == PyUnicode_2BYTE_KIND ? scan_ucs2(data, len, min_len, cps, &pieces, html)
                                            : scan_ucs4(data, len, min_len, cps, &pieces, html);
    if (rc == DECLINE) {
        m = NEEDS_PYTHON_HTML;
        goto done;
    }
    if (rc < 0) goto done;

    /* Keep the k longest in a sorted buffer: pieces arrive in document order,
     * so a new piece goes after every piece at least as long (a stable order). */
    Py_ssize_t n_top = 0;
    for (i = 0; i < pieces.count; i++) {
        const Piece *piece = &pieces.items[i];
        if (n_top == k && piece->length <= top[k - 1].length) continue;
        j = n_top < k ? n_top++ : k - 1;
        while (j > 0 && top[j - 1].length < piece->length) {
            top[j] = top[j - 1];
            j--;
        }
        top[j] = *piece;
    }
    n_chosen = choose_top(cps, top, n_top, k, top, pieces.count <= k);
    if (n_chosen < 0) { /* a repeated line among the longest: rank every piece */
        qsort(pieces.items, (size_t)pieces.count, sizeof(Piece), by_length_desc);
        n_chosen = choose_top(cps, pieces.items, pieces.count, k, top, 1);
    }

    for (i = 0; i < n_chosen; i++) {
        Py_ssize_t hashed = anchor > 0 && top[i].length >= 2 * anchor ? anchor : top[i].length;
        if (hashed > longest) longest = hashed;
    }
    if ((size_t)longest * 4 + 2 > sizeof buf_local) {
        buf = PyMem_Malloc((size_t)longest * 4 + 2);
        if (buf == NULL) {
            PyErr_NoMemory();
            goto done;
        }
    }
    for (i = 0; i < n_chosen; i++) {
        const Py_UCS4 *s = cps + top[i].start;
        Py_ssize_t length = top[i].length;
        if (anchor > 0 && length >= 2 * anchor) {
            keys[2 * i] = hash_cps(s, anchor, 0, buf);
            keys[2 * i + 1] = hash_cps(s + length - anchor, anchor, 1, buf);
        } else {
            keys[2 * i] = hash_cps(s, length, 0, buf);
            keys[2 * i + 1] = hash_cps(s, length, 1, buf);
        }
        positions[i] = top[i].position;
    }
    m = *ranked = n_chosen;
    for (i = 0; i < 2 * m && m > 0; i++) {
        for (j = i + 1; j < 2 * m; j++) {
            if (keys[i] == keys[j]) {
                m = drop_template_keys(keys, positions, m);
                goto done;
            }
        }
    }

done:
    if (cps != cps_local) PyMem_Free(cps);
    if (top != top_local) PyMem_Free(top);
    if (buf != buf_local) PyMem_Free(buf);
    if (pieces.items != pieces.local) PyMem_Free(pieces.items);
    return m;
}

#endif
