/*
 * nshash._speedups: the hot loop of nshash.sketch in C, optional.
 *
 *   sketch(text) -> (grams, slots)
 *       nshash.sketch.sketch_python's result as a tuple: the number of
 *       character 5-grams and one byte per slot.  The Python function is the
 *       specification; tests compare the two on every kind of string.
 *
 * The constants come from nshash/sketch.py through _speedups_constants.h,
 * which setup.py writes from the Python module (a test fails when they differ).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "_speedups_constants.h"

static uint64_t prime_out; /* PRIME ** (GRAM - 1) mod 2**64 */

static inline uint64_t mix64(uint64_t v) {
    v ^= v >> 33;
    v *= 0xFF51AFD7ED558CCDULL;
    v ^= v >> 33;
    v *= 0xC4CEB9FE1A85EC53ULL;
    return v ^ (v >> 33);
}

static inline void offer(uint64_t *mins, uint64_t poly) {
    uint64_t value = mix64(poly);
    unsigned slot = (unsigned)(value >> SLOT_SHIFT);
    uint64_t low = value & ((1ULL << SLOT_SHIFT) - 1);
    if (low < mins[slot]) mins[slot] = low;
}

static PyObject *sketch(PyObject *self, PyObject *arg) {
    if (!PyUnicode_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "sketch() takes a str");
        return NULL;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(arg);
    int kind = PyUnicode_KIND(arg);
    const void *data = PyUnicode_DATA(arg);
    unsigned char out[SLOTS];
    memset(out, 0, sizeof out);
    if (n == 0) return Py_BuildValue("(ny#)", (Py_ssize_t)0, (const char *)out, (Py_ssize_t)SLOTS);

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
    return Py_BuildValue("(ny#)", grams, (const char *)out, (Py_ssize_t)SLOTS);
}

static PyMethodDef methods[] = {
    {"sketch", sketch, METH_O, "sketch(text) -> (grams, slots): nshash.sketch.sketch_python in C."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "nshash._speedups", NULL, -1, methods};

PyMODINIT_FUNC PyInit__speedups(void) {
    prime_out = 1;
    for (int i = 0; i < GRAM - 1; i++) prime_out *= PRIME;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    if (PyModule_AddIntConstant(m, "SLOTS", SLOTS) < 0 || PyModule_AddIntConstant(m, "GRAM", GRAM) < 0 ||
        PyModule_AddIntConstant(m, "SLOT_SHIFT", SLOT_SHIFT) < 0 ||
        PyModule_AddObject(m, "PRIME", PyLong_FromUnsignedLongLong(PRIME)) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
