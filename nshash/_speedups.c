/*
 * nshash._speedups: the hot path of NSHash's default splitting in C.
 *
 * sentence_keys(text, k, min_len, anchor) does in one pass what
 * nshash.text.ranked_sentences + NSHash._keys_with do for split='default',
 * normalize=True, hashfunc='farmhash': two keys per sentence (the FarmHash
 * Fingerprint64 of the UTF-8 of its head and of '\x01' + its tail; a short
 * sentence is its own head and tail) and each sentence's line index.  The pure-Python path is the specification; tests check that both
 * give identical results on arbitrary text.  HTML is stripped by the caller.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>
#include <string.h>
/*
 * FarmHash Fingerprint64 (farmhashna::Hash64), the function pyfarmhash's
 * fingerprint64 exposes, written out so that keys are hashed without a
 * Python call each.  tests/test_speedups.py checks it against pyfarmhash.
 */
#include <stdint.h>
static const uint64_t k0 = 0xc3a5c85c97cb3127ULL;
static const uint64_t k1 = 0xb492b66fbe98f273ULL;
static const uint64_t k2 = 0x9ae16a3b2f90404fULL;

/* FarmHash reads words little-endian on every platform. */
static inline uint64_t fetch64(const unsigned char *p) {
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}
static inline uint32_t fetch32(const unsigned char *p) {
    uint32_t v;
    memcpy(&v, p, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap32(v);
#endif
    return v;
}
static inline uint64_t rot(uint64_t v, int s) { return s == 0 ? v : (v >> s) | (v << (64 - s)); }
static inline uint64_t shift_mix(uint64_t v) { return v ^ (v >> 47); }
static inline uint64_t hash16(uint64_t u, uint64_t v, uint64_t mul) {
    uint64_t a = (u ^ v) * mul; a ^= (a >> 47);
    uint64_t b = (v ^ a) * mul; b ^= (b >> 47); b *= mul; return b;
}
static uint64_t len0to16(const unsigned char *s, size_t len) {
    if (len >= 8) {
        uint64_t mul = k2 + len * 2, a = fetch64(s) + k2, b = fetch64(s + len - 8);
        uint64_t c = rot(b, 37) * mul + a, d = (rot(a, 25) + b) * mul;
        return hash16(c, d, mul);
    }
    if (len >= 4) {
        uint64_t mul = k2 + len * 2, a = fetch32(s);
        return hash16(len + (a << 3), fetch32(s + len - 4), mul);
    }
    if (len > 0) {
        uint8_t a = s[0], b = s[len >> 1], c = s[len - 1];
        uint32_t y = (uint32_t)a + ((uint32_t)b << 8), z = (uint32_t)len + ((uint32_t)c << 2);
        return shift_mix(y * k2 ^ z * k0) * k2;
    }
    return k2;
}
static uint64_t len17to32(const unsigned char *s, size_t len) {
    uint64_t mul = k2 + len * 2, a = fetch64(s) * k1, b = fetch64(s + 8);
    uint64_t c = fetch64(s + len - 8) * mul, d = fetch64(s + len - 16) * k2;
    return hash16(rot(a + b, 43) + rot(c, 30) + d, a + rot(b + k2, 18) + c, mul);
}
static uint64_t len33to64(const unsigned char *s, size_t len) {
    uint64_t mul = k2 + len * 2, a = fetch64(s) * k2, b = fetch64(s + 8);
    uint64_t c = fetch64(s + len - 8) * mul, d = fetch64(s + len - 16) * k2;
    uint64_t y = rot(a + b, 43) + rot(c, 30) + d;
    uint64_t z = hash16(y, a + rot(b + k2, 18) + c, mul);
    uint64_t e = fetch64(s + 16) * mul, f = fetch64(s + 24);
    uint64_t g = (y + fetch64(s + len - 32)) * mul, h = (z + fetch64(s + len - 24)) * mul;
    return hash16(rot(e + f, 43) + rot(g, 30) + h, e + rot(f + a, 18) + g, mul);
}
static void weak32(const unsigned char *s, uint64_t a, uint64_t b, uint64_t *o1, uint64_t *o2) {
    uint64_t w = fetch64(s), x = fetch64(s + 8), y = fetch64(s + 16), z = fetch64(s + 24);
    a += w; b = rot(b + a + z, 21); uint64_t c = a; a += x; a += y; b += rot(a, 44);
    *o1 = a + z; *o2 = b + c;
}
static uint64_t fingerprint64(const unsigned char *s, size_t len) {
    if (len <= 32) return len <= 16 ? len0to16(s, len) : len17to32(s, len);
    if (len <= 64) return len33to64(s, len);
    uint64_t seed = 81, x = seed, y = seed * k1 + 113, z = shift_mix(y * k2 + 113) * k2;
    uint64_t v1 = 0, v2 = 0, w1 = 0, w2 = 0, t;
    x = x * k2 + fetch64(s);
    const unsigned char *end = s + ((len - 1) / 64) * 64;
    const unsigned char *last64 = end + ((len - 1) & 63) - 63;
    do {
        x = rot(x + y + v1 + fetch64(s + 8), 37) * k1;
        y = rot(y + v2 + fetch64(s + 48), 42) * k1;
        x ^= w2;
        y += v1 + fetch64(s + 40);
        z = rot(z + w1, 33) * k1;
        weak32(s, v2 * k1, x + w1, &v1, &v2);
        weak32(s + 32, z + w2, y + fetch64(s + 16), &w1, &w2);
        t = z; z = x; x = t;
        s += 64;
    } while (s != end);
    uint64_t mul = k1 + ((z & 0xff) << 1);
    s = last64;
    w1 += ((len - 1) & 63);
    v1 += w1;
    w1 += v1;
    x = rot(x + y + v1 + fetch64(s + 8), 37) * mul;
    y = rot(y + v2 + fetch64(s + 48), 42) * mul;
    x ^= w2 * 9;
    y += v1 * 9 + fetch64(s + 40);
    z = rot(z + w1, 33) * mul;
    weak32(s, v2 * mul, x + w1, &v1, &v2);
    weak32(s + 32, z + w2, y + fetch64(s + 16), &w1, &w2);
    t = z; z = x; x = t;
    return hash16(hash16(v1, w1, mul) + shift_mix(y) * k0 + z, hash16(v2, w2, mul) + x, mul);
}

enum { KEEP = 0, NOISE = 1, DELIM = 2, DOT = 3 };

/* What each ASCII character is: sentence boundary, noise (deleted before
 * hashing), '.' (a boundary when a space follows, else noise) or kept. */
static unsigned char ascii_class[128];

static void init_ascii_class(void) {
    const char *delims = "\n\r!?;", *noise = " \t,:\"'()";
    for (; *delims; delims++) ascii_class[(unsigned char)*delims] = DELIM;
    for (; *noise; noise++) ascii_class[(unsigned char)*noise] = NOISE;
    ascii_class['.'] = DOT;
}

static inline int classify(Py_UCS4 c) {
    if (c < 128) return ascii_class[c];
    /* CJK ideographs and most other letters: one comparison. */
    if (c > 0x3002 && c < 0xFEFF) return KEEP;
    switch (c) {
    case 0x3002: /* 。 */ case 0xFF01: /* ！ */ case 0xFF1F: /* ？ */
    case 0xFF1B: /* ； */ case 0xFF61: /* ｡ */ case 0xFF0E: /* ． */
        return DELIM;
    case 0x3000: case 0xA0: case 0x200B: case 0xFEFF:
    case 0xFF0C: /* ， */ case 0x3001: /* 、 */ case 0xFF1A: /* ： */
    case 0x201C: case 0x201D: case 0x2018: case 0x2019:
    case 0xFF08: /* （ */ case 0xFF09: /* ） */
        return NOISE;
    default:
        return KEEP;
    }
}

typedef struct {
    Py_ssize_t start;    /* offset in the code point buffer */
    Py_ssize_t length;   /* code points */
    Py_ssize_t position; /* index of the line among all pieces */
} Piece;

static int by_length_desc(const void *a, const void *b) {
    const Piece *x = (const Piece *)a, *y = (const Piece *)b;
    if (x->length != y->length) return x->length < y->length ? 1 : -1;
    /* Stable: ties keep document order, as Python's sorted() does. */
    return x->position < y->position ? -1 : (x->position > y->position);
}

/* FarmHash of the UTF-8 encoding of code points, lone surrogates included
 * (as Python's 'surrogatepass' encodes them), optionally after a 0x01 mark. */
static int hash_utf8(const Py_UCS4 *cps, Py_ssize_t n, int tail_mark, unsigned char *buf, uint64_t *out) {
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
    *out = fingerprint64(buf, (size_t)(p - buf));
    return 0;
}

static int append_key(PyObject *list, const Py_UCS4 *cps, Py_ssize_t n, int tail_mark, unsigned char *buf) {
    uint64_t h;
    hash_utf8(cps, n, tail_mark, buf, &h);
    PyObject *item = PyLong_FromUnsignedLongLong(h);
    if (item == NULL) return -1;
    int rc = PyList_Append(list, item);
    Py_DECREF(item);
    return rc;
}

static PyObject *sentence_keys(PyObject *self, PyObject *args) {
    PyObject *text;
    Py_ssize_t k, min_len, anchor;
    if (!PyArg_ParseTuple(args, "Unnn:sentence_keys", &text, &k, &min_len, &anchor)) return NULL;
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t len = PyUnicode_GET_LENGTH(text);

    Py_UCS4 *cps = PyMem_Malloc(sizeof(Py_UCS4) * (len + 1));
    /* Room for the UTF-8 of any one sentence: 4 bytes a code point and the mark. */
    unsigned char *buf = PyMem_Malloc((size_t)len * 4 + 2);
    Py_ssize_t pieces_cap = 64, n_pieces = 0;
    Piece *pieces = PyMem_Malloc(sizeof(Piece) * pieces_cap);
    PyObject *keys = NULL, *positions = NULL, *result = NULL;
    Piece *chosen = NULL;
    if (cps == NULL || pieces == NULL || buf == NULL) {
        PyErr_NoMemory();
        goto done;
    }

    /* One pass: drop noise, cut at boundaries, lower-case ASCII letters. */
    Py_ssize_t out = 0, start = 0, position = 0, i;
    for (i = 0; i <= len; i++) {
        int cls;
        Py_UCS4 c = 0;
        if (i == len) {
            cls = DELIM;
        } else {
            c = PyUnicode_READ(kind, data, i);
            cls = classify(c);
            if (cls == DOT) {
                if (i + 1 < len && PyUnicode_READ(kind, data, i + 1) == ' ') {
                    cls = DELIM;
                    i++; /* ". " is one boundary */
                } else {
                    cls = NOISE;
                }
            }
        }
        if (cls == KEEP) {
            if (c >= 'A' && c <= 'Z') c += 32;
            cps[out++] = c;
        } else if (cls == DELIM) {
            if (out - start >= min_len) {
                if (n_pieces == pieces_cap) {
                    pieces_cap *= 2;
                    Piece *grown = PyMem_Realloc(pieces, sizeof(Piece) * pieces_cap);
                    if (grown == NULL) {
                        PyErr_NoMemory();
                        goto done;
                    }
                    pieces = grown;
                }
                pieces[n_pieces].start = start;
                pieces[n_pieces].length = out - start;
                pieces[n_pieces].position = position;
                n_pieces++;
            }
            position++;
            start = out;
        }
    }

    qsort(pieces, (size_t)n_pieces, sizeof(Piece), by_length_desc);

    keys = PyList_New(0);
    positions = PyList_New(0);
    chosen = PyMem_Malloc(sizeof(Piece) * (k > 0 ? k : 1));
    if (keys == NULL || positions == NULL || chosen == NULL) {
        if (chosen == NULL) PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t n_chosen = 0, p, q;
    for (p = 0; p < n_pieces && n_chosen < k; p++) {
        const Piece *piece = &pieces[p];
        int repeated = 0;
        for (q = 0; q < n_chosen && !repeated; q++) {
            repeated = chosen[q].length == piece->length &&
                       memcmp(cps + chosen[q].start, cps + piece->start, sizeof(Py_UCS4) * piece->length) == 0;
        }
        if (repeated) continue;
        chosen[n_chosen++] = *piece;
        const Py_UCS4 *s = cps + piece->start;
        if (anchor > 0 && piece->length >= 2 * anchor) {
            if (append_key(keys, s, anchor, 0, buf) < 0) goto done;
            if (append_key(keys, s + piece->length - anchor, anchor, 1, buf) < 0) goto done;
        } else {
            if (append_key(keys, s, piece->length, 0, buf) < 0) goto done;
            if (append_key(keys, s, piece->length, 1, buf) < 0) goto done;
        }
        PyObject *pos = PyLong_FromSsize_t(piece->position);
        if (pos == NULL) goto done;
        int rc = PyList_Append(positions, pos);
        Py_DECREF(pos);
        if (rc < 0) goto done;
    }
    result = PyTuple_Pack(2, keys, positions);

done:
    PyMem_Free(cps);
    PyMem_Free(buf);
    PyMem_Free(pieces);
    PyMem_Free(chosen);
    Py_XDECREF(keys);
    Py_XDECREF(positions);
    return result;
}

static PyObject *py_fingerprint64(PyObject *self, PyObject *arg) {
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    uint64_t h = fingerprint64((const unsigned char *)view.buf, (size_t)view.len);
    PyBuffer_Release(&view);
    return PyLong_FromUnsignedLongLong(h);
}

static PyMethodDef methods[] = {
    {"sentence_keys", sentence_keys, METH_VARARGS,
     "sentence_keys(text, k, min_len, anchor) -> (FarmHash keys, two a sentence; line indexes)"},
    {"fingerprint64", py_fingerprint64, METH_O, "fingerprint64(bytes) -> FarmHash Fingerprint64"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "nshash._speedups", NULL, -1, methods};

PyMODINIT_FUNC PyInit__speedups(void) {
    init_ascii_class();
    return PyModule_Create(&module);
}
