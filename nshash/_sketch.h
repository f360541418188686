/*
 * nshash/_sketch.h: sketch.sketch_python in C: the one-permutation MinHash of a
 * text's character 5-grams (SLOTS one-byte slots, empty slots densified), the
 * same of runs of a text whose grams are hashed already, and the module's
 * sketch(text).  Included by _speedups.c only, before _frame.h.
 */
#ifndef NSHASH_SKETCH_H
#define NSHASH_SKETCH_H

static uint64_t prime_out; /* PRIME ** (GRAM - 1) mod 2**64, set when the module loads */
/* The most grams whose values a page keeps for its body sketches (512 KB): a longer page's 8 bytes a character
 * cost it more than they save (a 1 MB page 4-15% slower, mostly the memory's first touch), and it is sketched
 * again when a body sketch is wanted, as every page was before. */
#define KEEP_GRAMS 65536

static inline void offer_value(uint64_t *mins, uint64_t value) {
    unsigned slot = (unsigned)(value >> SLOT_SHIFT);
    uint64_t low = value & ((1ULL << SLOT_SHIFT) - 1), held = mins[slot];
    mins[slot] = low < held ? low : held; /* a select, not a branch: a new minimum is too rare to predict */
}

static inline void offer(uint64_t *mins, uint64_t poly) { offer_value(mins, mix64(poly)); }

/* An empty slot borrows from the next filled one, mixed with the distance. */
static inline void densify(const uint64_t *mins, unsigned char *out) {
    for (int slot = 0; slot < SLOTS; slot++) {
        for (int distance = 0; distance < SLOTS; distance++) {
            uint64_t value = mins[(slot + distance) % SLOTS];
            if (value != UINT64_MAX) {
                out[slot] = (unsigned char)(mix64(value + (uint64_t)distance) >> 56);
                break;
            }
        }
    }
}

/* Inlined even where the compiler would rather not: sketch_kind is worth it only with its kind a constant (and
 * SKETCH_NOINLINE the other way round: sketch_keeping). */
#if defined(__GNUC__) || defined(__clang__)
#define SKETCH_INLINE inline __attribute__((always_inline))
#define SKETCH_NOINLINE __attribute__((noinline))
#elif defined(_MSC_VER)
#define SKETCH_INLINE __forceinline
#define SKETCH_NOINLINE __declspec(noinline)
#else
#define SKETCH_INLINE inline
#define SKETCH_NOINLINE
#endif

/* sketch_of for one kind, inlined there once for each: PyUnicode_READ's test of the kind at every character
 * was a third of the sketch.  values: NULL, or where each gram's mixed value goes (sketch_keeping). */
static SKETCH_INLINE Py_ssize_t sketch_kind(int kind, const void *data, Py_ssize_t n, unsigned char *out,
                                            uint64_t *values) {
    memset(out, 0, SLOTS);
    if (n == 0) return 0;
    uint64_t mins[SLOTS];
    for (int i = 0; i < SLOTS; i++) mins[i] = UINT64_MAX;
    uint64_t poly = 0;
    Py_ssize_t head = n < GRAM - 1 ? n : GRAM - 1;
    for (Py_ssize_t i = 0; i < head; i++) poly = poly * PRIME + (uint64_t)PyUnicode_READ(kind, data, i);
    Py_ssize_t grams = n - GRAM + 1;
    if (n < GRAM) {
        grams = 1;
        offer(mins, poly);
    } else {
        for (Py_ssize_t i = 0; i < grams; i++) {
            poly = poly * PRIME + (uint64_t)PyUnicode_READ(kind, data, i + GRAM - 1);
            uint64_t value = mix64(poly);
            offer_value(mins, value);
            if (values != NULL) values[i] = value;
            poly -= (uint64_t)PyUnicode_READ(kind, data, i) * prime_out;
        }
    }
    densify(mins, out);
    return grams;
}

/* sketch_python over n code points of a given kind; returns the gram count. */
static Py_ssize_t sketch_of(int kind, const void *data, Py_ssize_t n, unsigned char *out) {
    if (kind == PyUnicode_1BYTE_KIND) return sketch_kind(PyUnicode_1BYTE_KIND, data, n, out, NULL);
    if (kind == PyUnicode_2BYTE_KIND) return sketch_kind(PyUnicode_2BYTE_KIND, data, n, out, NULL);
    return sketch_kind(PyUnicode_4BYTE_KIND, data, n, out, NULL);
}

/* sketch_of over n code points, each gram's mixed value kept in values[0:n - GRAM + 1] (n >= GRAM; NULL: none
 * kept), for the sketches of the text without some of its lines (runs_add).  Out of line: inlined in
 * features_of, its loop ran short of registers (~4 instructions a gram more). */
static SKETCH_NOINLINE Py_ssize_t sketch_keeping(const Py_UCS4 *s, Py_ssize_t n, unsigned char *out, uint64_t *values) {
    /* Two calls, so that each inlined loop has its test of values a constant (none in the common one). */
    if (values == NULL) return sketch_kind(PyUnicode_4BYTE_KIND, s, n, out, NULL);
    return sketch_kind(PyUnicode_4BYTE_KIND, s, n, out, values);
}

/* sketch_of over runs of a text put end to end, the text's grams' mixed values known (sketch_keeping): a gram
 * inside a run is read, only those across a join are hashed (hashing every gram again was most of the
 * decision's body sketches).  The order grams are offered in does not change a minimum. */
typedef struct {
    uint64_t mins[SLOTS];
    Py_UCS4 tail[GRAM - 1]; /* the last characters so far: where the grams across the next join start */
    int held;
    Py_ssize_t length;
} run_sketch;

static void runs_begin(run_sketch *r) {
    for (int i = 0; i < SLOTS; i++) r->mins[i] = UINT64_MAX;
    r->held = 0;
    r->length = 0;
}

/* The text (kind, data)[from:to] put after the runs so far; values: its grams' mixed values. */
static void runs_add(run_sketch *r, int kind, const void *data, const uint64_t *values, Py_ssize_t from,
                     Py_ssize_t to) {
    Py_ssize_t len = to - from;
    if (len <= 0) return;
    Py_UCS4 joined[2 * (GRAM - 1)];
    int head = len < GRAM - 1 ? (int)len : GRAM - 1, all = r->held + head;
    memcpy(joined, r->tail, (size_t)r->held * sizeof(Py_UCS4));
    for (int i = 0; i < head; i++) joined[r->held + i] = PyUnicode_READ(kind, data, from + i);
    /* a gram across the join ends in this run's first GRAM - 1 characters, or in a later run's (offered then) */
    for (int j = 0; j < r->held && j + GRAM <= all; j++) {
        uint64_t poly = 0;
        for (int i = 0; i < GRAM; i++) poly = poly * PRIME + (uint64_t)joined[j + i];
        offer(r->mins, poly);
    }
    for (Py_ssize_t p = from; p + GRAM <= to; p++) offer_value(r->mins, values[p]);
    if (len >= GRAM - 1) {
        for (int i = 0; i < GRAM - 1; i++) r->tail[i] = PyUnicode_READ(kind, data, to - (GRAM - 1) + i);
        r->held = GRAM - 1;
    } else {
        int keep = all < GRAM - 1 ? all : GRAM - 1;
        memcpy(r->tail, joined + all - keep, (size_t)keep * sizeof(Py_UCS4));
        r->held = keep;
    }
    r->length += len;
}

/* The sketch of the runs put end to end into out; its gram count, as sketch_of counts them. */
static Py_ssize_t runs_end(run_sketch *r, unsigned char *out) {
    memset(out, 0, SLOTS);
    if (r->length == 0) return 0;
    if (r->length < GRAM) { /* one short gram, all of it in tail */
        uint64_t poly = 0;
        for (int i = 0; i < r->held; i++) poly = poly * PRIME + (uint64_t)r->tail[i];
        offer(r->mins, poly);
    }
    densify(r->mins, out);
    return r->length < GRAM ? 1 : r->length - GRAM + 1;
}

static PyObject *sketch(PyObject *self, PyObject *arg) {
    if (!PyUnicode_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "sketch() takes a str");
        return NULL;
    }
    unsigned char out[SLOTS];
    Py_ssize_t grams = sketch_of(PyUnicode_KIND(arg), PyUnicode_DATA(arg), PyUnicode_GET_LENGTH(arg), out);
    return Py_BuildValue("(ny#)", grams, (const char *)out, (Py_ssize_t)SLOTS);
}

#endif
