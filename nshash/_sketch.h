/*
 * nshash/_sketch.h: sketch.sketch_python in C: the one-permutation MinHash of a
 * text's character 5-grams (SLOTS one-byte slots, empty slots densified), and
 * the module's sketch(text).  Included by _speedups.c only.
 */
#ifndef NSHASH_SKETCH_H
#define NSHASH_SKETCH_H

static uint64_t prime_out; /* PRIME ** (GRAM - 1) mod 2**64, set when the module loads */

static inline void offer(uint64_t *mins, uint64_t poly) {
    uint64_t value = mix64(poly);
    unsigned slot = (unsigned)(value >> SLOT_SHIFT);
    uint64_t low = value & ((1ULL << SLOT_SHIFT) - 1), held = mins[slot];
    mins[slot] = low < held ? low : held; /* a select, not a branch: a new minimum is too rare to predict */
}

/* Inlined even where the compiler would rather not: sketch_kind is worth it only with its kind a constant. */
#if defined(__GNUC__) || defined(__clang__)
#define SKETCH_INLINE inline __attribute__((always_inline))
#elif defined(_MSC_VER)
#define SKETCH_INLINE __forceinline
#else
#define SKETCH_INLINE inline
#endif

/* sketch_of for one kind, inlined there once for each: PyUnicode_READ's test of the kind at every character
 * was a third of the sketch. */
static SKETCH_INLINE Py_ssize_t sketch_kind(int kind, const void *data, Py_ssize_t n, unsigned char *out) {
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
            offer(mins, poly);
            poly -= (uint64_t)PyUnicode_READ(kind, data, i) * prime_out;
        }
    }
    /* An empty slot borrows from the next filled one, mixed with the distance. */
    for (int slot = 0; slot < SLOTS; slot++) {
        for (int distance = 0; distance < SLOTS; distance++) {
            uint64_t value = mins[(slot + distance) % SLOTS];
            if (value != UINT64_MAX) {
                out[slot] = (unsigned char)(mix64(value + (uint64_t)distance) >> 56);
                break;
            }
        }
    }
    return grams;
}

/* sketch_python over n code points of a given kind; returns the gram count. */
static Py_ssize_t sketch_of(int kind, const void *data, Py_ssize_t n, unsigned char *out) {
    if (kind == PyUnicode_1BYTE_KIND) return sketch_kind(PyUnicode_1BYTE_KIND, data, n, out);
    if (kind == PyUnicode_2BYTE_KIND) return sketch_kind(PyUnicode_2BYTE_KIND, data, n, out);
    return sketch_kind(PyUnicode_4BYTE_KIND, data, n, out);
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
