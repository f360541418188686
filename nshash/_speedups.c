/*
 * nshash._speedups: the hot path of NSHash's default splitting in C.
 *
 * keys_material(text, k, min_len, anchor) does in one pass what
 * nshash.text.ranked_sentences + NSHash._keys_with do for split='default',
 * normalize=True, and returns the UTF-8 bytes to hash: two per sentence (head
 * and '\x01' + tail; for a short sentence the whole of it, both ways) and each sentence's line
 * index.  The pure-Python path is the specification; tests check that both
 * give identical results on arbitrary text.  HTML is stripped by the caller.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>
#include <string.h>

/* Sentence boundaries besides '\n' (". " is handled where '.' is read). */
static int is_delim(Py_UCS4 c) {
    switch (c) {
    case '\n': case '\r': case '!': case '?': case ';':
    case 0x3002: /* 。 */ case 0xFF01: /* ！ */ case 0xFF1F: /* ？ */
    case 0xFF1B: /* ； */ case 0xFF61: /* ｡ */ case 0xFF0E: /* ． */
        return 1;
    default:
        return 0;
    }
}

/* Whitespace and width-variant punctuation, deleted before hashing. */
static int is_noise(Py_UCS4 c) {
    switch (c) {
    case ' ': case '\t': case ',': case ':': case '"': case '\'': case '(': case ')': case '.':
    case 0x3000: case 0xA0: case 0x200B: case 0xFEFF:
    case 0xFF0C: /* ， */ case 0x3001: /* 、 */ case 0xFF1A: /* ： */
    case 0x201C: case 0x201D: case 0x2018: case 0x2019:
    case 0xFF08: /* （ */ case 0xFF09: /* ） */
        return 1;
    default:
        return 0;
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

/* UTF-8 encoding of code points, lone surrogates included (like 'surrogatepass'). */
static PyObject *encode_utf8(const Py_UCS4 *cps, Py_ssize_t n, int tail_mark) {
    Py_ssize_t size = tail_mark ? 1 : 0, i;
    for (i = 0; i < n; i++) {
        Py_UCS4 c = cps[i];
        size += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    }
    PyObject *out = PyBytes_FromStringAndSize(NULL, size);
    if (out == NULL) return NULL;
    unsigned char *p = (unsigned char *)PyBytes_AS_STRING(out);
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
    return out;
}

static int append_material(PyObject *list, const Py_UCS4 *cps, Py_ssize_t n, int tail_mark) {
    PyObject *item = encode_utf8(cps, n, tail_mark);
    if (item == NULL) return -1;
    int rc = PyList_Append(list, item);
    Py_DECREF(item);
    return rc;
}

static PyObject *keys_material(PyObject *self, PyObject *args) {
    PyObject *text;
    Py_ssize_t k, min_len, anchor;
    if (!PyArg_ParseTuple(args, "Unnn:keys_material", &text, &k, &min_len, &anchor)) return NULL;
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t len = PyUnicode_GET_LENGTH(text);

    Py_UCS4 *cps = PyMem_Malloc(sizeof(Py_UCS4) * (len + 1));
    Py_ssize_t pieces_cap = 64, n_pieces = 0;
    Piece *pieces = PyMem_Malloc(sizeof(Piece) * pieces_cap);
    PyObject *material = NULL, *positions = NULL, *result = NULL;
    Piece *chosen = NULL;
    if (cps == NULL || pieces == NULL) {
        PyErr_NoMemory();
        goto done;
    }

    /* One pass: drop noise, cut at boundaries, lower-case ASCII letters. */
    Py_ssize_t out = 0, start = 0, position = 0, i;
    for (i = 0; i <= len; i++) {
        int boundary;
        Py_UCS4 c = 0;
        if (i == len) {
            boundary = 1;
        } else {
            c = PyUnicode_READ(kind, data, i);
            if (c == '.' && i + 1 < len && PyUnicode_READ(kind, data, i + 1) == ' ') {
                boundary = 1;
                i++; /* ". " is one boundary */
            } else {
                boundary = is_delim(c);
            }
        }
        if (boundary) {
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
            continue;
        }
        if (is_noise(c)) continue;
        if (c >= 'A' && c <= 'Z') c += 32;
        cps[out++] = c;
    }

    qsort(pieces, (size_t)n_pieces, sizeof(Piece), by_length_desc);

    material = PyList_New(0);
    positions = PyList_New(0);
    chosen = PyMem_Malloc(sizeof(Piece) * (k > 0 ? k : 1));
    if (material == NULL || positions == NULL || chosen == NULL) {
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
            if (append_material(material, s, anchor, 0) < 0) goto done;
            if (append_material(material, s + piece->length - anchor, anchor, 1) < 0) goto done;
        } else {
            if (append_material(material, s, piece->length, 0) < 0) goto done;
            if (append_material(material, s, piece->length, 1) < 0) goto done;
        }
        PyObject *pos = PyLong_FromSsize_t(piece->position);
        if (pos == NULL) goto done;
        int rc = PyList_Append(positions, pos);
        Py_DECREF(pos);
        if (rc < 0) goto done;
    }
    result = PyTuple_Pack(2, material, positions);

done:
    PyMem_Free(cps);
    PyMem_Free(pieces);
    PyMem_Free(chosen);
    Py_XDECREF(material);
    Py_XDECREF(positions);
    return result;
}

static PyMethodDef methods[] = {
    {"keys_material", keys_material, METH_VARARGS,
     "keys_material(text, k, min_len, anchor) -> (list of bytes, list of line indexes)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "nshash._speedups", NULL, -1, methods};

PyMODINIT_FUNC PyInit__speedups(void) { return PyModule_Create(&module); }
