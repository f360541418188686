/*
 * nshash/_keyfilter.h: the probes of nshash.stores.leveldb_filter.KeyFilter in C (the same bits, the same
 * answers; tests/test_leveldb_filter.py compares the two).  Included by _speedups.c only.
 *
 * A LevelDB page asks the filter about ~50 keys and adds ~70: in Python that was a seventh of a page's time.
 * Included before _assign.h, whose cache of a LevelDB store asks the same probes (filter_may_hold).
 */
#ifndef NSHASH_KEYFILTER_H
#define NSHASH_KEYFILTER_H

/* Where a group's two probes fall in a filter of 2**byte_bits bytes: a byte and a bit each. */
typedef struct {
    uint64_t i1, i2;
    unsigned b1, b2;
} keyfilter_spot;

static inline keyfilter_spot keyfilter_spot_of(uint64_t group, uint64_t salt, uint64_t mix, int byte_bits) {
    uint64_t h = (group ^ salt) * mix; /* modulo 2**64, as the Python's & _MASK */
    return (keyfilter_spot){h >> (64 - byte_bits), (h >> (64 - 2 * byte_bits)) & (((uint64_t)1 << byte_bits) - 1),
                            1u << (h & 7), 1u << ((h >> 3) & 7)};
}

/* keyfilter_probe(bits, log2_bits, salt, keys, shift, mix, add): with add false, a list of 0 or 1 for each key
   (KeyFilter.may_contain); with add true, the keys' groups set in bits and the number of groups new
   (KeyFilter.add, a run of keys of one group counted once). */
static PyObject *keyfilter_probe(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "keyfilter_probe(bits, log2_bits, salt, keys, shift, mix, add)");
        return NULL;
    }
    int add = PyObject_IsTrue(args[6]);
    uint64_t mix = PyLong_AsUnsignedLongLong(args[5]);
    long log2_bits = PyLong_AsLong(args[1]);
    uint64_t salt = PyLong_AsUnsignedLongLong(args[2]);
    long shift = PyLong_AsLong(args[4]);
    if (add < 0 || PyErr_Occurred()) return NULL;
    long byte_bits = log2_bits - 3; /* the filter's bytes: 2**byte_bits */
    if (byte_bits < 7 || 2 * byte_bits > 64 || shift < 0 || shift > 63) {
        PyErr_SetString(PyExc_ValueError, "keyfilter_probe(): log2_bits must be 10..35 and shift 0..63");
        return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, add ? PyBUF_WRITABLE : PyBUF_SIMPLE) < 0) return NULL;
    PyObject *fast = NULL, *out = NULL;
    if (view.len != (Py_ssize_t)1 << byte_bits) {
        PyErr_SetString(PyExc_ValueError, "keyfilter_probe(): the bits do not match log2_bits");
        goto done;
    }
    fast = PySequence_Fast(args[3], "keys must be an iterable of ints");
    if (fast == NULL) goto done;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    PyObject **items = PySequence_Fast_ITEMS(fast);
    unsigned char *bits = view.buf;
    if (!add && (out = PyList_New(n)) == NULL) goto done;
    Py_ssize_t new_groups = 0;
    uint64_t last = 0;
    int any = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        uint64_t key = PyLong_AsUnsignedLongLong(items[i]);
        if (key == (uint64_t)-1 && PyErr_Occurred()) {
            Py_CLEAR(out);
            goto done;
        }
        uint64_t group = key >> shift;
        keyfilter_spot p = keyfilter_spot_of(group, salt, mix, (int)byte_bits);
        int there = (bits[p.i1] & p.b1) && (bits[p.i2] & p.b2);
        if (!add) {
            PyList_SET_ITEM(out, i, PyLong_FromLong(there));
            continue;
        }
        if (any && group == last) continue; /* a member's entries come in a row */
        any = 1;
        last = group;
        if (!there) {
            new_groups++;
            bits[p.i1] |= (unsigned char)p.b1;
            bits[p.i2] |= (unsigned char)p.b2;
        }
    }
    if (add) out = PyLong_FromSsize_t(new_groups);
done:
    Py_XDECREF(fast);
    PyBuffer_Release(&view);
    return out;
}
#endif
