/*
 * nshash/_verify.h: verification in C, as nshash.decide and nshash.sketch
 * specify it: a document's score against each candidate cluster's stored
 * members (decide.verify_score over members.from_entries), the stored form of
 * a document (members.to_entries of its sketch and line filter) and the keys
 * members are stored under (members.entry_keys).  Included by _speedups.c
 * only; tests compare every function with the Python one.
 */
#ifndef NSHASH_VERIFY_H
#define NSHASH_VERIFY_H
#include <math.h>
#include <stdint.h>

#define SLOT_WORDS (SLOTS / 8)
#define BLOOM_WORDS (BLOOM_BITS / 64)
#define ENTRIES (1 + SLOT_WORDS + BLOOM_WORDS)
#define CHANCE (1.0 / (double)(1 << SLOT_BITS))

typedef struct {
    Py_ssize_t grams;
    unsigned char slots[SLOTS];
    uint64_t lines[BLOOM_WORDS]; /* bit b of sketch.line_filter in word b / 64 */
    uint32_t tail;               /* sketch.member_tail; 0: not known */
} member;

/* A document's lines: 32-bit keys and their gram counts. */
typedef struct {
    Py_ssize_t count;
    uint32_t *keys;
    Py_ssize_t *grams;
    unsigned char *shared, *frame; /* scratch: per line */
    Py_ssize_t site_count;         /* Features.site_keys */
    uint32_t site[2 * SITE_KEYS];
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

/* site.same_site: whether the document is of the site of a member whose line filter is lines. */
static int same_site(const doc_lines *d, const uint64_t *lines) {
    if (d->site_count < SITE_MIN_MATCHES) return 0;
    Py_ssize_t hits = 0;
    for (Py_ssize_t i = 0; i < d->site_count; i++) hits += has_line(lines, d->site[i]);
    return hits >= SITE_MIN_MATCHES && (double)hits >= SITE_MATCH * (double)d->site_count;
}

/* sketch._edge_run over shared[] (read from the end when reversed): marks the run in out[] (original indices). */
static Py_ssize_t edge_run(const doc_lines *d, int reversed, Py_ssize_t skip, unsigned char *out, int *beyond_first) {
    Py_ssize_t n = d->count, start = 0, found = 0;
#define AT(i) (reversed ? n - 1 - (i) : (i))
    while (start < skip && start < n && !d->shared[AT(start)]) start++;
    int gap = 0;
    for (Py_ssize_t i = start; i < n; i++) {
        Py_ssize_t at = AT(i);
        if (d->shared[at]) {
            out[at] = 1;
            found++;
            if (i != 0) *beyond_first = 1;
            gap = 0;
        } else if (gap || !found || d->grams[at] >= GAP_GRAMS) {
            break;
        } else {
            gap = 1;
        }
    }
#undef AT
    return found;
}

#define TAG_MASK ((1U << TAG_BITS) - 1)
#define GRAM_MASK (((uint64_t)1 << GRAM_BITS) - 1)

static inline uint32_t tag(uint32_t key) { return (key >> (32 - TAG_BITS)) | 1; } /* sketch._tag */

/* sketch.member_tail */
static uint32_t member_tail(const doc_lines *d) {
    Py_ssize_t n = d->count;
    if (n == 0) return 0;
    uint32_t tail = (tag(d->keys[n - 1]) << TAG_BITS | (n > 1 ? tag(d->keys[n - 2]) : 0)) << TAG_BITS;
    for (Py_ssize_t i = n - 1; i >= 0; i--)
        if (d->grams[i] >= LIST_GRAMS) return tail | tag(d->keys[i]);
    return tail;
}

/* sketch._at_the_end: whether the lines marked in[] end the page the member's tail names, as a footer would. */
static int at_the_end(const doc_lines *d, uint32_t tail, const unsigned char *in) {
    int long_line = 0;
    Py_ssize_t run = 0, total = 0;
    for (Py_ssize_t i = 0; i < d->count; i++) {
        total += d->grams[i];
        if (!in[i]) continue;
        run += d->grams[i];
        uint32_t t = tag(d->keys[i]);
        for (int part = 1; part < 3; part++) /* the line before the last, the last line */
            if (t == ((tail >> (TAG_BITS * part)) & TAG_MASK)) return 1;
        long_line |= t == (tail & TAG_MASK); /* the last long line */
    }
    return long_line && (double)run < FOOT_SHARE * (double)total;
}

/* sketch.chrome_lines: the header and footer the document shares with a member, marked in head and foot (known:
 * the lines other clusters have); 0 when there are none.  *header: whether a header is shared (shares_header). */
static int chrome_lines(doc_lines *d, const uint64_t *lines, uint32_t tail, const unsigned char *known,
                        unsigned char *head, unsigned char *foot, int *header) {
    Py_ssize_t n = d->count;
    for (Py_ssize_t i = 0; i < n; i++) {
        d->shared[i] = (unsigned char)has_line(lines, d->keys[i]);
        head[i] = foot[i] = 0;
    }
    int head_beyond_top = 0, unused = 0;
    edge_run(d, 0, 1, head, &head_beyond_top);
    *header = head_beyond_top;
    Py_ssize_t limit = head_beyond_top ? LIST_LINES : OWN_LINES, skip = 0;
    while (skip < (limit < n ? limit : n) && !d->shared[n - 1 - skip] && d->grams[n - 1 - skip] < LIST_GRAMS) skip++;
    if (!edge_run(d, 1, skip, foot, &unused)) return 0;
    Py_ssize_t beyond = 0; /* the first line of the foot outside the head (n: none, one shared block) */
    while (beyond < n && (!foot[beyond] || head[beyond])) beyond++;
    if (skip && beyond == n) return 0; /* one shared block above lines of the page's own */
    if (tail && beyond == n && !at_the_end(d, tail, head)) return 0; /* one block without the member's end */
    if (tail) { /* no header (or, sketch._own_footer, the page's own known footer stepped over and fewer than
                   FOOT_KNOWN of the run above it known lines), and the member's last lines not in the "footer":
                   the end of its article */
        int stepped = 0;
        Py_ssize_t foot_lines = 0, foot_known = 0;
        for (Py_ssize_t i = 0; i < skip; i++) stepped |= known[n - 1 - i];
        for (Py_ssize_t i = 0; i < n && stepped; i++) {
            foot_lines += foot[i] != 0;
            foot_known += foot[i] && known[i];
        }
        int own_footer = stepped && (double)foot_known < FOOT_KNOWN * (double)foot_lines;
        if ((!head_beyond_top || own_footer) && !at_the_end(d, tail, foot)) return 0;
    }
    { /* sketch._past_a_gap: the header's lines below its first gap, up to a run of known lines that ends it
         (the site's footer), are the article when those above the gap are all known lines and they none */
        Py_ssize_t gap_at = -1;
        int seen_head = 0;
        for (Py_ssize_t i = 0; i < n && gap_at < 0; i++) {
            if (head[i] && seen_head && !head[i - 1]) gap_at = i;
            seen_head |= head[i];
        }
        if (gap_at > 0) {
            Py_ssize_t footer_at = n;
            for (Py_ssize_t i = n - 1; i >= gap_at; i--) {
                if (!head[i]) continue;
                if (!known[i]) break;
                footer_at = i;
            }
            int above = 1, below = 0, middle = 0;
            for (Py_ssize_t i = 0; i < n; i++)
                if (head[i]) {
                    if (i < gap_at) {
                        above &= known[i] != 0;
                    } else if (i < footer_at) {
                        below |= known[i] != 0;
                        middle = 1;
                    }
                }
            if (above && middle && !below)
                for (Py_ssize_t i = gap_at; i < footer_at; i++)
                    if (head[i]) head[i] = foot[i] = 0;
        }
    }
    if (!head_beyond_top) { /* sketch._above_the_footer: the foot's lines (not the head's) above its known lines
                               and a gap are the article when none of them is known */
        Py_ssize_t lowest = n, top = -1; /* the lowest known line read; the first line above them */
        int article = 0;
        for (Py_ssize_t i = n - 1; i >= 0; i--) {
            if (!foot[i] || head[i]) continue;
            if (top < 0) {
                if (known[i]) {
                    lowest = i;
                    continue;
                }
                if (lowest == n || i == lowest - 1) break; /* no known lines below, or no gap */
                top = i;
                article = 1;
            } else if (known[i]) {
                article = 0;
                break;
            }
        }
        if (article)
            for (Py_ssize_t i = 0; i <= top; i++)
                if (!head[i]) foot[i] = 0;
    }
    return 1;
}

static int same_slots(const member *a, const member *b) {
    int same = 0;
    for (int i = 0; i < SLOTS; i++) same += a->slots[i] == b->slots[i];
    return same;
}

/* sketch.shared_grams */
static double shared_grams(const member *a, const member *b) {
    double same = (double)same_slots(a, b) / SLOTS;
    double jaccard = (same - CHANCE) / (1 - CHANCE);
    if (jaccard <= 0) return 0.0;
    return jaccard * (double)(a->grams + b->grams) / (1 + jaccard);
}

/* sketch.containment */
static double containment(const member *a, const member *b) {
    if (!a->grams || !b->grams) return 0.0;
    double smaller = (double)(a->grams < b->grams ? a->grams : b->grams);
    double c = shared_grams(a, b) / smaller;
    return c < 1.0 ? c : 1.0;
}

/* sketch.containment_error */
static double containment_error(const member *a, const member *b) {
    if (!a->grams || !b->grams) return 0.0;
    double same = (double)same_slots(a, b) / SLOTS;
    double jaccard = (same - CHANCE) / (1 - CHANCE);
    jaccard = jaccard > 0.0 ? (jaccard < 1.0 ? jaccard : 1.0) : 0.0;
    double spread = sqrt(jaccard * (1 - jaccard) / SLOTS);
    Py_ssize_t smaller = a->grams < b->grams ? a->grams : b->grams;
    return spread * (double)(a->grams + b->grams) / ((double)smaller * pow(1 + jaccard, 2.0));
}

/* sketch.body_containment */
static double body_containment(const member *a, const member *b, Py_ssize_t chrome) {
    double both = containment(a, b);
    Py_ssize_t smaller = a->grams < b->grams ? a->grams : b->grams, rest = smaller - chrome;
    if (chrome <= 0 || (double)rest < EDGE_REST * (double)smaller) return both;
    double body = both * (double)smaller - (double)chrome;
    return (body > 0.0 ? body : 0.0) / (double)rest;
}

/* estimate.trusted_containment (a: the document, whose lines found the chrome) */
static double trusted_containment(const member *a, const member *b, Py_ssize_t chrome, int surrounded) {
    double score = body_containment(a, b, chrome);
    Py_ssize_t smaller = a->grams < b->grams ? a->grams : b->grams, larger = a->grams < b->grams ? b->grams : a->grams;
    Py_ssize_t rest = smaller - chrome;
    int framed = chrome > 0 && (double)rest >= EDGE_REST * (double)smaller;
    int sized = framed && a->grams >= b->grams; /* the larger text found the frame: sizes without it */
    Py_ssize_t small = sized ? rest : smaller, large = sized ? larger - chrome : larger;
    if (chrome > 0 && !framed && surrounded && a->grams >= b->grams && larger - chrome > chrome) return 0.0;
    if (large >= SIZE_RATIO * (small > 1 ? small : 1) && (score < SIZE_RATIO_CONTAINMENT || small < SIZE_RATIO_GRAMS))
        return 0.0;
    if (framed)
        score -= FRAME_ERRORS * containment_error(a, b) * (double)chrome / (double)rest;
    return score > 0.0 ? score : 0.0;
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
        long long value = s->wide ? ((const int64_t *)s->view.buf)[i] : ((const uint32_t *)s->view.buf)[i];
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

static Py_ssize_t sketch_of(int kind, const void *data, Py_ssize_t n, unsigned char *out); /* _speedups.c */

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
    member article;
    Py_UCS4 *scratch;     /* length + 1 code points */
} doc_text;

/* estimate.body_score */
static double body_score(const member *body, const member *other) {
    Py_ssize_t small = body->grams < other->grams ? body->grams : other->grams;
    Py_ssize_t large = body->grams < other->grams ? other->grams : body->grams;
    if (body->grams < BODY_MIN_GRAMS || (double)large >= BODY_SIZE_RATIO * (double)small) return 0.0;
    double score = containment(body, other) - BODY_ERRORS * containment_error(body, other);
    return score > 0.0 ? score : 0.0;
}

/* estimate.frame_free_score; page: the whole document, whole: its trusted_containment. */
static double frame_free_score(const member *body, const member *page, const member *other, Py_ssize_t chrome,
                               double whole) {
    Py_ssize_t smaller = page->grams < other->grams ? page->grams : other->grams, rest = smaller - chrome;
    if (chrome > 0 && (double)rest < EDGE_REST * (double)smaller) return 0.0;
    if (chrome <= 0 || body->grams == 0) return whole;
    Py_ssize_t left = other->grams - chrome;
    Py_ssize_t small = body->grams < left ? body->grams : left, large = body->grams < left ? left : body->grams;
    Py_ssize_t least = body->grams < other->grams ? body->grams : other->grams;
    double error = containment_error(body, other) * (double)least / (double)small;
    double found = shared_grams(body, other) / (double)small;
    if (found > 1.0) found = 1.0;
    double whole_error = containment_error(page, other) * (double)chrome / (double)rest;
    if (whole_error <= error) { /* the two weighted by their precision, never above the subtraction's */
        if (whole_error <= 0.0) return whole;
        double weight = (error / whole_error) * (error / whole_error), mean = (whole * weight + found) / (weight + 1.0);
        return mean < whole ? mean : whole;
    }
    double score = found - BODY_ERRORS * error;
    if (score < 0.0) score = 0.0;
    return (double)large >= BODY_SIZE_RATIO * (double)small && whole < score ? whole : score;
}

/* estimate.unframed_score: known, the grams of the lines other clusters have that the member has too. */
static double unframed_score(const member *body, const member *page, const member *other, Py_ssize_t known) {
    Py_ssize_t smaller = page->grams < other->grams ? page->grams : other->grams;
    if (known <= 0 || (double)known < UNFRAMED_KNOWN * (double)smaller) return 1.0;
    if ((double)(page->grams - known) < UNFRAMED_OWN * (double)page->grams ||
        (double)(other->grams - known) < UNFRAMED_OWN * (double)other->grams)
        return 1.0;
    return frame_free_score(body, page, other, known, trusted_containment(page, other, known, 0));
}

/* frame.body_sketch: the whole text without the lines drop marks, sketched into *body. */
static void body_sketch(const doc_lines *d, doc_text *t, const unsigned char *drop, member *body) {
    Py_ssize_t w = 0, start = 0;
    for (Py_ssize_t i = 0; i <= d->count; i++) {
        Py_ssize_t end = t->length;
        if (i < d->count) int_at(&t->ends, i, NULL, &end); /* read_text checked every end */
        if (i == d->count || !drop[i])
            for (Py_ssize_t r = start; r < end; r++) t->scratch[w++] = PyUnicode_READ(t->kind, t->data, r);
        start = end;
    }
    body->grams = sketch_of(PyUnicode_4BYTE_KIND, t->scratch, w, body->slots);
}

/* frame.own_article: the page without its known lines when its own lines (outside d->frame) are almost all
 * known; NULL otherwise.  The known lines are the same for every candidate: sketched once. */
static const member *own_article(const doc_lines *d, doc_text *t) {
    Py_ssize_t own = 0, theirs = 0;
    int framed = 0;
    for (Py_ssize_t i = 0; i < d->count; i++) {
        if (d->frame[i]) framed = 1;
        else if (d->grams[i] > 0) {
            own += d->grams[i];
            if (t->known[i]) theirs += d->grams[i];
        }
    }
    if (!framed || own == 0 || (double)theirs < OWN_KNOWN * (double)own) return NULL;
    if (!t->article_sketched) {
        body_sketch(d, t, t->known, &t->article);
        t->article_sketched = 1;
    }
    return &t->article;
}

/* frame.template_sibling against member m; skip marks the lines left out (t->drop), scratch holds d->count bytes. */
static int template_sibling(const doc_lines *d, doc_text *t, const unsigned char *skip, const member *m,
                            unsigned char *scratch) {
    Py_ssize_t n = d->count, first = -1, last = -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        scratch[i] = 1; /* left out of the sketch of the lines between */
        if (!skip[i] && has_line(m->lines, d->keys[i])) {
            if (first < 0) first = i;
            last = i;
        }
    }
    if (first < 0) return 0;
    Py_ssize_t runs = 0, run = 0, between = 0;
    for (Py_ssize_t i = first; i <= last; i++) {
        if (skip[i] || has_line(m->lines, d->keys[i])) {
            runs += run >= SIBLING_RUN_GRAMS;
            run = 0;
        } else {
            scratch[i] = 0;
            run += d->grams[i];
            between += d->grams[i];
        }
    }
    if (runs < SIBLING_RUNS || between < SIBLING_GRAMS) return 0;
    member spliced;
    body_sketch(d, t, scratch, &spliced);
    return containment(&spliced, m) + containment_error(&spliced, m) < SIBLING_CONTAINMENT;
}

/* frame.edited_middle: the page's own lines between the first and last of the header and footer it shares with m
 * are m's text.  t->drop serves as scratch. */
static int edited_middle(const doc_lines *d, doc_text *t, const member *m, const unsigned char *head,
                         const unsigned char *foot) {
    Py_ssize_t n = d->count, first = -1, last = -1;
    for (Py_ssize_t i = 0; i < n; i++)
        if (head[i] | foot[i]) {
            if (first < 0) first = i;
            last = i;
        }
    int own = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        t->drop[i] = 1; /* left out of the sketch of the lines between */
        if (i > first && i < last && !(head[i] | foot[i]) && !t->known[i] && d->grams[i] > 0) {
            t->drop[i] = 0;
            own = 1;
        }
    }
    if (!own) return 0;
    member between;
    body_sketch(d, t, t->drop, &between);
    return containment(&between, m) - containment_error(&between, m) >= MIDDLE_CONTAINMENT;
}

/* frame.edited_copy: the lines the page has verbatim from a member (not known) span EDITED_SPAN of its grams
 * outside the known lines, and its own lines between them are the member's text.  scratch: d->count bytes. */
static int edited_copy(const doc_lines *d, doc_text *t, const member *members, int count, unsigned char *scratch) {
    Py_ssize_t total = 0;
    for (Py_ssize_t i = 0; i < d->count; i++)
        if (!t->known[i]) total += d->grams[i];
    for (int m = 0; m < count; m++) {
        Py_ssize_t first = -1, last = -1, span = 0;
        for (Py_ssize_t i = 0; i < d->count; i++) {
            scratch[i] = (unsigned char)(d->grams[i] > 0 && !t->known[i] && has_line(members[m].lines, d->keys[i]));
            if (scratch[i]) {
                if (first < 0) first = i;
                last = i;
            }
        }
        if (first == last) continue; /* none or one: no lines between */
        for (Py_ssize_t i = first; i <= last; i++)
            if (!t->known[i]) span += d->grams[i];
        if ((double)span >= EDITED_SPAN * (double)total && edited_middle(d, t, &members[m], scratch, scratch)) return 1;
    }
    return 0;
}

/* frame.shared_frame for one member: whether the header and footer chrome_lines found (header: one is shared) are
 * frame, not the member's article (ARTICLE_SHARE) nor an edited copy's unchanged lines (MIDDLE_SHARE); smaller: the
 * grams of the smaller of the document and the member. */
static int is_frame(const doc_lines *d, doc_text *t, const member *m, Py_ssize_t smaller, int header,
                    const unsigned char *head, const unsigned char *foot) {
    Py_ssize_t grams = 0, seen = 0;
    for (Py_ssize_t i = 0; i < d->count; i++)
        if (head[i] | foot[i]) {
            grams += d->grams[i];
            seen += t->known[i] ? d->grams[i] : 0;
        }
    if ((double)seen > ARTICLE_KNOWN * (double)grams) return 1;
    if (!header) return (double)grams < ARTICLE_SHARE * (double)smaller || same_site(d, m->lines);
    return (double)grams < MIDDLE_SHARE * (double)smaller || !edited_middle(d, t, m, head, foot);
}

/* decide.verify_score: the document (its sketch in *doc) against count members; t->known: frame.known_lines. */
static double verify_score(doc_lines *d, const member *doc, const member *members, int count, unsigned char *head,
                           unsigned char *foot, doc_text *t) {
    memset(d->frame, 0, (size_t)d->count);
    for (int m = 0; m < count; m++) {
        Py_ssize_t smaller = doc->grams < members[m].grams ? doc->grams : members[m].grams;
        int header = 0;
        if (!chrome_lines(d, members[m].lines, members[m].tail, t->known, head, foot, &header)) continue;
        if (!is_frame(d, t, &members[m], smaller, header, head, foot)) continue;
        for (Py_ssize_t i = 0; i < d->count; i++) d->frame[i] |= head[i] | foot[i];
    }
    /* frame.surrounds: a line with grams outside the frame, between its first and last lines */
    Py_ssize_t first = 0, last = d->count - 1;
    while (first < d->count && !d->frame[first]) first++;
    while (last >= 0 && !d->frame[last]) last--;
    const int framed = first < d->count;
    int surrounded = 0;
    for (Py_ssize_t i = first; i < last && !surrounded; i++) surrounded = !d->frame[i] && d->grams[i] > 0;
    /* The known lines and the frame are left out of a second sketch. */
    int dropped = 0;
    for (Py_ssize_t i = 0; i < d->count; i++) {
        t->drop[i] = (unsigned char)(d->frame[i] || t->known[i]);
        dropped |= t->drop[i];
    }
    const member *body = NULL;
    if (dropped && count > 0) {
        /* Candidates often leave out the same lines: one sketch serves them all. */
        if (!t->sketched || memcmp(t->drop, t->drop_sketched, (size_t)d->count) != 0) {
            body_sketch(d, t, t->drop, &t->body);
            memcpy(t->drop_sketched, t->drop, (size_t)d->count);
            t->sketched = 1;
        }
        body = &t->body;
    }
    const member *article = count > 0 ? own_article(d, t) : NULL;
    double best = 0.0;
    for (int m = 0; m < count; m++) {
        Py_ssize_t chrome = 0, known = 0;
        for (Py_ssize_t i = 0; i < d->count; i++)
            if (d->frame[i] && has_line(members[m].lines, d->keys[i])) {
                chrome += d->grams[i];
                if (t->known[i]) known += d->grams[i];
            }
        double score = trusted_containment(doc, &members[m], chrome, surrounded);
        if (body != NULL && (double)known >= KNOWN_FRAME * (double)chrome)
            score = frame_free_score(body, doc, &members[m], chrome, score);
        if (body != NULL && !framed) { /* no frame found: the lines other clusters have may be one */
            Py_ssize_t shared = 0;
            for (Py_ssize_t i = 0; i < d->count; i++)
                if (t->known[i] && has_line(members[m].lines, d->keys[i])) shared += d->grams[i];
            double bound = unframed_score(body, doc, &members[m], shared);
            if (bound < score) score = bound;
        }
        if (body != NULL) {
            double rest = body_score(body, &members[m]);
            if (rest > score) score = rest;
        }
        if (article != NULL) {
            double own = body_score(article, &members[m]);
            if (own > score) score = own;
        }
        if (score > best) best = score;
    }
    return best;
}

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
    out->tail = member_tail(d);
}

/* members.from_entries: 1 and *out filled, 0 when the member is not stored (an entry is None), -1 on error. */
static int read_member(PyObject *const *entries, member *out) {
    int64_t words[ENTRIES];
    for (int i = 0; i < ENTRIES; i++) {
        if (entries[i] == Py_None) return 0;
        words[i] = PyLong_AsLongLong(entries[i]);
        if (words[i] == -1 && PyErr_Occurred()) return -1;
    }
    member_from_words(words, out);
    return 1;
}

/* The document's line keys and gram counts, read from two sequences of ints; -1 on error. */
static int read_lines(PyObject *keys, PyObject *grams, doc_lines *d) {
    int_seq k, g;
    if (open_ints(keys, &k, "line keys must be a sequence") < 0) return -1;
    if (open_ints(grams, &g, "line grams must be a sequence") < 0) {
        close_ints(&k);
        return -1;
    }
    int status = -1;
    d->count = k.count;
    if (g.count != d->count) {
        PyErr_SetString(PyExc_ValueError, "line keys and line grams differ in length");
        goto done;
    }
    size_t n = (size_t)(d->count ? d->count : 1);
    d->keys = PyMem_RawMalloc(n * sizeof(uint32_t));
    d->grams = PyMem_RawMalloc(n * sizeof(Py_ssize_t));
    d->shared = PyMem_RawMalloc(4 * n); /* shared, frame, head, foot */
    if (d->keys == NULL || d->grams == NULL || d->shared == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    d->frame = d->shared + n;
    for (Py_ssize_t i = 0; i < d->count; i++) {
        unsigned long long key;
        Py_ssize_t count;
        if (int_at(&k, i, &key, NULL) < 0 || int_at(&g, i, NULL, &count) < 0) goto done;
        d->keys[i] = (uint32_t)key;
        d->grams[i] = count;
    }
    status = 0;
done:
    close_ints(&k);
    close_ints(&g);
    return status;
}

/* The document's site keys (Features.site_keys) into d; -1 on error. */
static int read_site(PyObject *keys, doc_lines *d) {
    int_seq k;
    if (open_ints(keys, &k, "site keys must be a sequence") < 0) return -1;
    int status = -1;
    if (k.count > 2 * SITE_KEYS) {
        PyErr_Format(PyExc_ValueError, "a page has at most %d site keys", 2 * SITE_KEYS);
        goto done;
    }
    for (Py_ssize_t i = 0; i < k.count; i++) {
        unsigned long long key;
        if (int_at(&k, i, &key, NULL) < 0) goto done;
        d->site[i] = (uint32_t)key;
    }
    d->site_count = k.count;
    status = 0;
done:
    close_ints(&k);
    return status;
}

static void free_lines(doc_lines *d) {
    PyMem_RawFree(d->keys);
    PyMem_RawFree(d->grams);
    PyMem_RawFree(d->shared);
}

/* The document's own sketch as a member (its lines are not needed to verify it). */
static int read_sketch(PyObject *grams, PyObject *slots, member *out) {
    out->grams = PyLong_AsSsize_t(grams);
    if (out->grams == -1 && PyErr_Occurred()) return -1;
    if (!PyBytes_Check(slots) || PyBytes_GET_SIZE(slots) != SLOTS) {
        PyErr_Format(PyExc_ValueError, "a sketch has %d slot bytes", SLOTS);
        return -1;
    }
    memcpy(out->slots, PyBytes_AS_STRING(slots), SLOTS);
    memset(out->lines, 0, sizeof out->lines);
    out->tail = 0;
    return 0;
}

/* Features.whole and Features.line_ends for d's lines, and frame.known_lines, read into *t; -1 on error. */
static int read_text(PyObject *whole, PyObject *ends, PyObject *known, const doc_lines *d, doc_text *t) {
    t->known = NULL;
    t->scratch = NULL;
    t->ends.fast = NULL;
    t->ends.wide = -1;
    if (!PyUnicode_Check(whole)) {
        PyErr_SetString(PyExc_TypeError, "verify(): whole must be a str");
        return -1;
    }
    t->kind = PyUnicode_KIND(whole);
    t->data = PyUnicode_DATA(whole);
    t->length = PyUnicode_GET_LENGTH(whole);
    if (open_ints(ends, &t->ends, "line ends must be a sequence") < 0) return -1;
    if (t->ends.count != d->count) {
        PyErr_SetString(PyExc_ValueError, "verify(): one line end a line");
        return -1;
    }
    size_t n = (size_t)(d->count ? d->count : 1);
    t->known = PyMem_RawCalloc(3 * n, 1);
    t->scratch = PyMem_RawMalloc((size_t)(t->length + 1) * sizeof(Py_UCS4));
    if (t->known == NULL || t->scratch == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    t->drop = t->known + n;
    t->drop_sketched = t->drop + n;
    t->sketched = 0;
    t->article_sketched = 0;
    Py_ssize_t previous = 0;
    for (Py_ssize_t i = 0; i < d->count; i++) {
        Py_ssize_t end;
        if (int_at(&t->ends, i, NULL, &end) < 0) return -1;
        if (end < previous || end > t->length) {
            PyErr_SetString(PyExc_ValueError, "verify(): line ends must rise within the whole text");
            return -1;
        }
        previous = end;
    }
    int_seq k;
    if (open_ints(known, &k, "known lines must be a sequence") < 0) return -1;
    int status = 0;
    for (Py_ssize_t i = 0; i < k.count && status == 0; i++) {
        Py_ssize_t index;
        if (int_at(&k, i, NULL, &index) < 0) status = -1;
        else if (index < 0 || index >= d->count) {
            PyErr_SetString(PyExc_ValueError, "verify(): a known line that the document does not have");
            status = -1;
        } else t->known[index] = 1;
    }
    close_ints(&k);
    return status;
}

static void free_text(doc_text *t) {
    close_ints(&t->ends);
    PyMem_RawFree(t->known);
    PyMem_RawFree(t->scratch);
}

/*
 * verify(line_keys, line_grams, grams, slots, entries, clusters, members, whole, line_ends, known, site_keys)
 *     -> [(score, members found), ...] for each of the clusters, whose
 * members' entries (ENTRIES per member, members per cluster) are in entries;
 * known: the document's lines (indices) frame.known_lines gives.
 */
static PyObject *verify(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 11) {
        PyErr_SetString(PyExc_TypeError, "verify(line_keys, line_grams, grams, slots, entries, clusters, members, "
                                         "whole, line_ends, known, site_keys)");
        return NULL;
    }
    Py_ssize_t clusters = PyLong_AsSsize_t(args[5]), per = PyLong_AsSsize_t(args[6]);
    if (PyErr_Occurred()) return NULL;
    if (clusters < 0 || per < 1 || per > MAX_MEMBERS) {
        PyErr_Format(PyExc_ValueError, "verify(): 0 or more clusters of 1 to %d members", MAX_MEMBERS);
        return NULL;
    }
    member doc, found[MAX_MEMBERS];
    if (read_sketch(args[2], args[3], &doc) < 0) return NULL;
    PyObject *entries = PySequence_Fast(args[4], "entries must be a sequence");
    if (entries == NULL) return NULL;
    if (PySequence_Fast_GET_SIZE(entries) != clusters * per * ENTRIES) {
        Py_DECREF(entries);
        PyErr_SetString(PyExc_ValueError, "verify(): entries do not match clusters * members * ENTRIES");
        return NULL;
    }
    doc_lines d = {0, NULL, NULL, NULL, NULL};
    doc_text t = {.ends = {.fast = NULL, .wide = -1}};
    PyObject *out = NULL;
    if (read_lines(args[0], args[1], &d) < 0 || read_site(args[10], &d) < 0 ||
        read_text(args[7], args[8], args[9], &d, &t) < 0)
        goto done;
    out = PyList_New(clusters);
    PyObject *const *items = PySequence_Fast_ITEMS(entries);
    unsigned char *head = d.frame + (d.count ? d.count : 1), *foot = head + (d.count ? d.count : 1);
    for (Py_ssize_t c = 0; out != NULL && c < clusters; c++) {
        int count = 0;
        for (; count < per; count++) {
            int stored = read_member(items + (c * per + count) * ENTRIES, &found[count]);
            if (stored < 0) Py_CLEAR(out);
            if (stored <= 0) break;
        }
        if (out == NULL) break;
        PyObject *pair = Py_BuildValue("(di)", verify_score(&d, &doc, found, count, head, foot, &t), count);
        if (pair == NULL) Py_CLEAR(out);
        else PyList_SET_ITEM(out, c, pair);
    }
done:
    free_lines(&d);
    free_text(&t);
    Py_DECREF(entries);
    return out;
}

/* members.stored_form: to_entries(Member(Sketch(grams, slots), line_filter(line_keys) | line_filter(site_keys),
 * member_tail(line_keys, line_grams))) */
static PyObject *member_entries(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "member_entries(line_keys, line_grams, grams, slots, site_keys)");
        return NULL;
    }
    member m;
    if (read_sketch(args[2], args[3], &m) < 0) return NULL;
    doc_lines d = {0, NULL, NULL, NULL, NULL};
    if (read_lines(args[0], args[1], &d) < 0 || read_site(args[4], &d) < 0) {
        free_lines(&d);
        return NULL;
    }
    member_lines(&d, &m);
    free_lines(&d);
    PyObject *out = PyList_New(ENTRIES);
    for (int i = 0; out != NULL && i < ENTRIES; i++) {
        PyObject *value = PyLong_FromLongLong(member_word(&m, i));
        if (value == NULL) Py_CLEAR(out);
        else PyList_SET_ITEM(out, i, value);
    }
    return out;
}

/* members.entry_keys for every cluster and member: None when an id is too large for 64-bit keys (Python does it). */
static PyObject *entry_keys(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "entry_keys(clusters, members)");
        return NULL;
    }
    Py_ssize_t per = PyLong_AsSsize_t(args[1]);
    if (per == -1 && PyErr_Occurred()) return NULL;
    if (per < 1 || per > MAX_MEMBERS) {
        PyErr_Format(PyExc_ValueError, "entry_keys(): 1 to %d members", MAX_MEMBERS);
        return NULL;
    }
    PyObject *clusters = PySequence_Fast(args[0], "clusters must be a sequence");
    if (clusters == NULL) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(clusters);
    PyObject *out = PyList_New(n * per * ENTRIES);
    for (Py_ssize_t c = 0; out != NULL && c < n; c++) {
        unsigned long long id = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(clusters, c));
        if (id == (unsigned long long)-1 && PyErr_Occurred()) {
            PyErr_Clear(); /* negative or past 64 bits: the specification decides */
            id = ~0ULL;
        }
        if (id >> (64 - CLUSTER_SHIFT)) {
            Py_DECREF(out);
            Py_DECREF(clusters);
            Py_RETURN_NONE;
        }
        for (Py_ssize_t m = 0; out != NULL && m < per; m++) {
            uint64_t base = ((uint64_t)id << CLUSTER_SHIFT) | ((uint64_t)m << MEMBER_SHIFT);
            for (int part = 0; part < ENTRIES; part++) {
                PyObject *key = PyLong_FromUnsignedLongLong(base | (uint64_t)part);
                if (key == NULL) {
                    Py_CLEAR(out);
                    break;
                }
                PyList_SET_ITEM(out, (c * per + m) * ENTRIES + part, key);
            }
        }
    }
    Py_DECREF(clusters);
    return out;
}
#endif
