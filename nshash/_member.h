/*
 * nshash/_member.h: what verification in C reads, as C structs: a stored
 * member (members.Member: sketch, line filter, tail), a document's lines and
 * text, the line filter (edges.line_filter) and a member's stored words
 * (members.to_entries and from_entries).  Included by _speedups.c only.
 */
#ifndef NSHASH_MEMBER_H
#define NSHASH_MEMBER_H
#include <stdint.h>

#define SLOT_WORDS (SLOTS / 8)
#define BLOOM_WORDS (BLOOM_BITS / 64)
#define ENTRIES (1 + SLOT_WORDS + BLOOM_WORDS)
#define CHANCE (1.0 / (double)(1 << SLOT_BITS))

typedef struct {
    Py_ssize_t grams;
    unsigned char slots[SLOTS];
    uint64_t lines[BLOOM_WORDS]; /* bit b of edges.line_filter in word b / 64 */
    uint32_t tail;               /* edges.member_tail; 0: not known */
} member;

/* A document's lines: 32-bit keys and their gram counts. */
typedef struct {
    Py_ssize_t count;
    uint32_t *keys;
    Py_ssize_t *grams;
    unsigned char *shared, *frame; /* scratch: per line */
    Py_ssize_t site_count;         /* Features.site_keys */
    uint32_t site[2 * SITE_KEYS];
    int flat;                      /* Features.flat */
    uint32_t *pieces;              /* Features.pieces: suffix key, key, first line, last line each (PyMem_Raw) */
    Py_ssize_t piece_words;
    uint32_t *view;                /* scratch: member_view's keys, one a line */
    unsigned char *view_kept;      /* scratch: one a line */
} doc_lines;

static inline uint64_t probe_bit(uint32_t key, int probe) { return (key >> (PROBE_BITS * probe)) & (BLOOM_BITS - 1); }

static inline int has_line(const uint64_t *lines, uint32_t key) {
    for (int probe = 0; probe < BLOOM_PROBES; probe++) {
        uint64_t bit = probe_bit(key, probe);
        if (!((lines[bit >> 6] >> (bit & 63)) & 1)) return 0;
    }
    return 1;
}

static inline void add_line(uint64_t *lines, uint32_t key) {
    for (int probe = 0; probe < BLOOM_PROBES; probe++) {
        uint64_t bit = probe_bit(key, probe);
        lines[bit >> 6] |= 1ULL << (bit & 63);
    }
}

#define TAG_MASK ((1U << TAG_BITS) - 1)
#define GRAM_MASK (((uint64_t)1 << GRAM_BITS) - 1)

static inline uint32_t tag(uint32_t key) { return (key >> (32 - TAG_BITS)) | 1; } /* edges._tag */

/* edges.member_tail */
static uint32_t member_tail(const doc_lines *d) {
    Py_ssize_t n = d->count;
    if (n == 0) return 0;
    uint32_t tail = (tag(d->keys[n - 1]) << TAG_BITS | (n > 1 ? tag(d->keys[n - 2]) : 0)) << TAG_BITS;
    for (Py_ssize_t i = n - 1; i >= 0; i--)
        if (d->grams[i] >= LIST_GRAMS) return tail | tag(d->keys[i]);
    return tail;
}

/*
 * A sequence of ints read in place: the line keys and grams come as
 * array('I') (or 'q'), read through their buffer, so a page of millions of
 * lines is not made a list of ints here; any other sequence through PySequence_Fast.
 */
typedef struct {
    PyObject *fast;
    Py_buffer view;
    int wide; /* -1: fast; 0: 32-bit unsigned; 1: 64-bit signed */
    Py_ssize_t count;
} int_seq;

static int open_ints(PyObject *obj, int_seq *s, const char *what) {
    s->fast = NULL;
    s->wide = -1;
    if (PyObject_CheckBuffer(obj) && PyObject_GetBuffer(obj, &s->view, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) == 0) {
        const char *f = s->view.format;
        if (f != NULL && f[1] == '\0' && ((f[0] == 'I' && s->view.itemsize == 4) || (f[0] == 'q' && s->view.itemsize == 8))) {
            s->wide = f[0] == 'q';
            s->count = s->view.len / s->view.itemsize;
            return 0;
        }
        PyBuffer_Release(&s->view);
    }
    PyErr_Clear();
    s->fast = PySequence_Fast(obj, what);
    if (s->fast == NULL) return -1;
    s->count = PySequence_Fast_GET_SIZE(s->fast);
    return 0;
}

/* The i-th int, as unsigned (masked) in *u and as Py_ssize_t in *v when not NULL; -1 with an error set. */
static int int_at(const int_seq *s, Py_ssize_t i, unsigned long long *u, Py_ssize_t *v) {
    if (s->wide >= 0) {
        long long value = s->wide ? buffer_i64(s->view.buf, i) : (long long)buffer_u32(s->view.buf, i);
        if (u != NULL) *u = (unsigned long long)value;
        if (v != NULL) *v = (Py_ssize_t)value;
        return 0;
    }
    PyObject *item = PySequence_Fast_GET_ITEM(s->fast, i);
    if (u != NULL) *u = PyLong_AsUnsignedLongLongMask(item);
    if (v != NULL) *v = PyLong_AsSsize_t(item);
    return PyErr_Occurred() ? -1 : 0;
}

static void close_ints(int_seq *s) {
    if (s->wide >= 0) PyBuffer_Release(&s->view);
    Py_XDECREF(s->fast);
}

/* The document's whole text, where its lines end in it (Features.whole, line_ends) and its known lines. */
typedef struct {
    int kind;
    const void *data;
    Py_ssize_t length;
    int_seq ends;         /* per line, read in place */
    unsigned char *known; /* per line: frame.known_lines */
    unsigned char *drop;  /* per line */
    unsigned char *drop_sketched; /* per line: the drop that body was sketched without */
    int sketched;         /* body holds a sketch */
    member body;
    int article_sketched; /* article holds the sketch without the known lines (frame.own_article) */
    int article_shared;   /* bodies.article_is_shared, which own_article finds on its pass over the lines */
    member article;
    unsigned char *prose_drop;          /* per line: drop and the short lines (frame.prose_body) */
    unsigned char *prose_drop_sketched; /* per line: the prose_drop that prose was sketched without */
    int prose_sketched;                 /* prose holds a sketch */
    member prose;
    Py_UCS4 *scratch;     /* length + 1 code points */
    const uint64_t *values; /* its grams' mixed values (sketch_keeping), when the features were computed here */
    int cjk;              /* verify.cjk_page, -1 until asked (doc_cjk) */
    int unbounded;        /* verify.member_scores without its unframed bound (decide.split_article) */
} doc_text;

/* members.from_entries over a member's ENTRIES words, all stored. */
static void member_from_words(const int64_t *words, member *out) {
    uint64_t first = (uint64_t)words[0];
    out->grams = (Py_ssize_t)(first & GRAM_MASK);
    out->tail = (uint32_t)(first >> GRAM_BITS);
    for (int w = 0; w < SLOT_WORDS; w++)
        for (int b = 0; b < 8; b++) out->slots[8 * w + b] = (unsigned char)((uint64_t)words[1 + w] >> (8 * b));
    for (int w = 0; w < BLOOM_WORDS; w++) out->lines[w] = (uint64_t)words[1 + SLOT_WORDS + w];
}

/* members.to_entries: the part-th word of a member (its lines and tail filled in). */
static int64_t member_word(const member *m, int part) {
    if (part == 0) { /* the gram count capped below the tail's bits */
        uint64_t grams = (uint64_t)m->grams;
        return (int64_t)((grams < GRAM_MASK ? grams : GRAM_MASK) | (uint64_t)m->tail << GRAM_BITS);
    }
    if (part <= SLOT_WORDS) {
        uint64_t u = 0;
        for (int b = 0; b < 8; b++) u |= (uint64_t)m->slots[8 * (part - 1) + b] << (8 * b);
        return (int64_t)u;
    }
    return (int64_t)m->lines[part - 1 - SLOT_WORDS];
}

/* A document's line filter (its lines and site keys) and tail, as a member of its cluster keeps them. */
static void member_lines(const doc_lines *d, member *out) {
    memset(out->lines, 0, sizeof out->lines);
    for (Py_ssize_t i = 0; i < d->count; i++) add_line(out->lines, d->keys[i]);
    for (Py_ssize_t i = 0; i < d->site_count; i++) add_line(out->lines, d->site[i]);
    /* pieces.piece_keys: the first and last PIECE_EDGE pieces but those that are a line by themselves; for a page
     * that came flat, those whose suffix key is not their whole key's piece_key */
    Py_ssize_t pieces = d->piece_words / 4;
    if (pieces) {
        unsigned char *covering = d->view_kept; /* scratch: pieces a line lies in, up to 2 */
        memset(covering, 0, (size_t)d->count);
        for (Py_ssize_t i = 0; i < pieces; i++)
            for (uint32_t line = d->pieces[4 * i + 2]; line <= d->pieces[4 * i + 3]; line++)
                covering[line] += covering[line] < 2;
        for (Py_ssize_t i = 0; i < pieces; i++) {
            uint32_t first = d->pieces[4 * i + 2], last = d->pieces[4 * i + 3];
            int edge = i < PIECE_EDGE || i >= pieces - PIECE_EDGE;
            if (edge && (d->flat ? d->pieces[4 * i] != piece_key(d->pieces[4 * i + 1])
                                 : !(first == last && covering[first] == 1)))
                add_line(out->lines, d->pieces[4 * i]);
        }
    }
    if (d->flat) add_line(out->lines, FLAT_MARK);
    out->tail = member_tail(d);
}

/* pieces.other_form: whether one of the document and a member whose line filter is lines came flat, one not. */
static inline int other_form(const doc_lines *d, const uint64_t *lines) { return d->flat != has_line(lines, FLAT_MARK); }

/* pieces.member_view: d's line keys as a member whose line filter is lines sees them: d->keys, or d->view. */
static uint32_t *member_view(doc_lines *d, const uint64_t *lines) {
    if (d->piece_words == 0 || !other_form(d, lines)) return d->keys;
    uint32_t *last = d->view;
    unsigned char *kept = d->view_kept;
    memset(last, 0, (size_t)d->count * sizeof(uint32_t));
    memset(kept, 1, (size_t)d->count);
    const int which = d->flat ? 0 : 1; /* the suffix key from a flat page, the whole one from a page with lines */
    for (Py_ssize_t i = 0; i < d->piece_words; i += 4) {
        uint32_t key = d->pieces[i + which];
        int has = has_line(lines, key);
        /* a long piece the member's page glued after a link or a title: its suffix key */
        if (!has && which == 1 && d->pieces[i] != piece_key(d->pieces[i + 1]) && has_line(lines, d->pieces[i])) {
            has = 1;
            key = d->pieces[i];
        }
        for (uint32_t line = d->pieces[i + 2]; line <= d->pieces[i + 3]; line++) {
            kept[line] &= (unsigned char)has;
            last[line] = key; /* pieces come in order: the line's last */
        }
    }
    int any = 0;
    for (Py_ssize_t i = 0; i < d->count; i++) {
        if (kept[i] && last[i] && !has_line(lines, d->keys[i])) any = 1;
        else last[i] = d->keys[i];
    }
    return any ? last : d->keys;
}

/* pieces.glued_tail: how many of d's last lines its last piece holds, against a member (line filter lines) that came
 * as one line while d did not; else 0. */
static Py_ssize_t glued_tail(const doc_lines *d, const uint64_t *lines) {
    if (d->flat || d->piece_words == 0 || !other_form(d, lines)) return 0;
    uint32_t first = d->pieces[d->piece_words - 2], last = d->pieces[d->piece_words - 1];
    return (Py_ssize_t)last == d->count - 1 ? (Py_ssize_t)(last - first) + 1 : 0;
}

#endif
