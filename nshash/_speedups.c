/*
 * nshash._speedups: NSHash's hot path in C, optional (setup.py builds it when
 * it can; the pure-Python code gives identical results and is what the tests
 * hold this to).
 *
 *   sentence_keys(text, k, min_len, anchor, html) -> (keys, positions, ranked) | None
 *       NSHash._features for the default options, HTML stripping included
 *       (_sentences.h, _html.h); None where only Python's strip_html is exact.
 *   Assigner(fp, parent, stat, allocate, ...)
 *       NSHash._assign on a store's local dicts (_assign.h); calling it with a
 *       text does both steps without creating a Python object per key.
 *   fingerprint64(bytes) -> int
 *       FarmHash Fingerprint64 (_farmhash.h), exposed for the tests.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "_assign.h"
#include "_farmhash.h"
#include "_sentences.h"

static PyObject *list_u64(const uint64_t *values, Py_ssize_t count) {
    PyObject *list = PyList_New(count);
    for (Py_ssize_t i = 0; list != NULL && i < count; i++) {
        PyObject *item = PyLong_FromUnsignedLongLong(values[i]);
        if (item == NULL) Py_CLEAR(list);
        else PyList_SET_ITEM(list, i, item);
    }
    return list;
}

/* Room for the features of k sentences: on the stack for the usual k. */
typedef struct {
    uint64_t *keys;
    Py_ssize_t *positions;
    uint64_t keys_local[2 * 64];
    Py_ssize_t positions_local[64];
} FeatureBuffer;

static int buffer_init(FeatureBuffer *b, Py_ssize_t k) {
    b->keys = b->keys_local;
    b->positions = b->positions_local;
    if (k <= 64) return 0;
    b->keys = PyMem_Malloc(sizeof(uint64_t) * 2 * (size_t)k);
    b->positions = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)k);
    if (b->keys != NULL && b->positions != NULL) return 0;
    PyErr_NoMemory();
    return -1;
}

static void buffer_free(FeatureBuffer *b) {
    if (b->keys != b->keys_local) PyMem_Free(b->keys);
    if (b->positions != b->positions_local) PyMem_Free(b->positions);
}

/* sentence_keys(text, k, min_len, anchor, html): None when the HTML needs Python's strip_html. */
static PyObject *sentence_keys(PyObject *self, PyObject *args) {
    PyObject *text, *result = NULL;
    Py_ssize_t k, min_len, anchor, ranked, m, i;
    int html;
    FeatureBuffer b;
    if (!PyArg_ParseTuple(args, "Unnnp:sentence_keys", &text, &k, &min_len, &anchor, &html)) return NULL;
    if (k < 1 || min_len < 0 || anchor < 0) {
        PyErr_SetString(PyExc_ValueError, "sentence_keys: k >= 1, min_len >= 0 and anchor >= 0");
        return NULL;
    }
    if (buffer_init(&b, k) < 0) goto done;
    m = doc_features(text, html, k, min_len, anchor, b.keys, b.positions, &ranked);
    if (m == NEEDS_PYTHON_HTML) {
        result = Py_None;
        Py_INCREF(result);
    }
    if (m < 0) goto done;
    PyObject *keys = list_u64(b.keys, 2 * m), *positions = PyList_New(m);
    for (i = 0; keys != NULL && positions != NULL && i < m; i++) {
        PyObject *pos = PyLong_FromSsize_t(b.positions[i]);
        if (pos == NULL) Py_CLEAR(positions);
        else PyList_SET_ITEM(positions, i, pos);
    }
    if (keys != NULL && positions != NULL) result = Py_BuildValue("(OOn)", keys, positions, ranked);
    Py_XDECREF(keys);
    Py_XDECREF(positions);
done:
    buffer_free(&b);
    return result;
}

static PyObject *py_fingerprint64(PyObject *self, PyObject *arg) {
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    uint64_t h = fingerprint64((const unsigned char *)view.buf, (size_t)view.len);
    PyBuffer_Release(&view);
    return PyLong_FromUnsignedLongLong(h);
}

/* -- Assigner ------------------------------------------------------------------ */

typedef struct {
    PyObject_HEAD
    Tables tables;
    Py_ssize_t k, min_len, anchor;
} Assigner;

static int Assigner_init(Assigner *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"fp", "parent", "stat", "allocate", "n", "extra", "min_len", "min_match",
                             "anchor", "boilerplate", "boilerplate_after", NULL};
    PyObject *fp, *parent, *stat, *allocate;
    Py_ssize_t n, extra, min_len, min_match, anchor, after;
    int boilerplate;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!O!O!O$nnnnnpn:Assigner", kwlist, &PyDict_Type, &fp,
                                     &PyDict_Type, &parent, &PyDict_Type, &stat, &allocate, &n, &extra, &min_len,
                                     &min_match, &anchor, &boilerplate, &after))
        return -1;
    if (!PyCallable_Check(allocate) || n < 1 || extra < 0 || min_len < 0 || min_match < 1 || anchor < 0) {
        PyErr_SetString(PyExc_ValueError, "Assigner: allocate must be callable; n, min_match >= 1; others >= 0");
        return -1;
    }
    Tables *t = &self->tables;
    Py_INCREF(fp), Py_INCREF(parent), Py_INCREF(stat), Py_INCREF(allocate);
    Py_XSETREF(t->fp, fp);
    Py_XSETREF(t->parent, parent);
    Py_XSETREF(t->stat, stat);
    Py_XSETREF(t->allocate, allocate);
    t->n = n;
    t->min_match = min_match;
    t->boilerplate = boilerplate;
    t->boilerplate_after = after;
    self->k = n + extra;
    self->min_len = min_len;
    self->anchor = anchor;
    return 0;
}

static int Assigner_traverse(Assigner *self, visitproc visit, void *arg) {
    Py_VISIT(self->tables.fp);
    Py_VISIT(self->tables.parent);
    Py_VISIT(self->tables.stat);
    Py_VISIT(self->tables.allocate);
    return 0;
}

static int Assigner_clear(Assigner *self) {
    Py_CLEAR(self->tables.fp);
    Py_CLEAR(self->tables.parent);
    Py_CLEAR(self->tables.stat);
    Py_CLEAR(self->tables.allocate);
    return 0;
}

static void Assigner_dealloc(Assigner *self) {
    PyObject_GC_UnTrack(self);
    Assigner_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int check_ready(Assigner *self) {
    if (self->tables.fp != NULL) return 0;
    PyErr_SetString(PyExc_RuntimeError, "Assigner.__init__ was not called");
    return -1;
}

/* assigner(text): the document's id, or None when Python must do it (rare HTML, no sentence long enough). */
static PyObject *Assigner_call(Assigner *self, PyObject *args, PyObject *kwds) {
    PyObject *text, *result = NULL;
    Py_ssize_t ranked, m;
    FeatureBuffer b;
    if (!PyArg_ParseTuple(args, "U:Assigner", &text) || check_ready(self) < 0) return NULL;
    if (buffer_init(&b, self->k) < 0) goto done;
    m = doc_features(text, 1, self->k, self->min_len, self->anchor, b.keys, b.positions, &ranked);
    if (m < 0 && m != NEEDS_PYTHON_HTML) goto done;
    if (m == NEEDS_PYTHON_HTML || ranked == 0) { /* rare HTML or the whole-text key: Python's business */
        result = Py_None;
        Py_INCREF(result);
        goto done;
    }
    result = assign_keys(&self->tables, b.keys, b.positions, m);
done:
    buffer_free(&b);
    return result;
}

/* assigner.assign(keys, positions): the id of a document whose features are known. */
static PyObject *Assigner_assign(Assigner *self, PyObject *args) {
    PyObject *keys, *positions, *result = NULL;
    Py_ssize_t m, i;
    FeatureBuffer b;
    if (!PyArg_ParseTuple(args, "O!O!:assign", &PyList_Type, &keys, &PyList_Type, &positions) ||
        check_ready(self) < 0)
        return NULL;
    m = PyList_GET_SIZE(positions);
    if (PyList_GET_SIZE(keys) != 2 * m) {
        PyErr_SetString(PyExc_ValueError, "assign: two keys per position");
        return NULL;
    }
    if (buffer_init(&b, m) < 0) goto done;
    for (i = 0; i < 2 * m; i++) {
        b.keys[i] = PyLong_AsUnsignedLongLong(PyList_GET_ITEM(keys, i));
        if (b.keys[i] == (uint64_t)-1 && PyErr_Occurred()) goto done;
    }
    for (i = 0; i < m; i++) {
        b.positions[i] = PyLong_AsSsize_t(PyList_GET_ITEM(positions, i));
        if (b.positions[i] == -1 && PyErr_Occurred()) goto done;
    }
    result = assign_keys(&self->tables, b.keys, b.positions, m);
done:
    buffer_free(&b);
    return result;
}

static PyMethodDef Assigner_methods[] = {
    {"assign", (PyCFunction)Assigner_assign, METH_VARARGS, "assign(keys, positions) -> id"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject AssignerType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "nshash._speedups.Assigner",
    .tp_doc = "NSHash's assignment on a store's local dicts; call with a text for its id.",
    .tp_basicsize = sizeof(Assigner),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Assigner_init,
    .tp_dealloc = (destructor)Assigner_dealloc,
    .tp_traverse = (traverseproc)Assigner_traverse,
    .tp_clear = (inquiry)Assigner_clear,
    .tp_call = (ternaryfunc)Assigner_call,
    .tp_methods = Assigner_methods,
};

static PyMethodDef methods[] = {
    {"sentence_keys", sentence_keys, METH_VARARGS,
     "sentence_keys(text, k, min_len, anchor, html) -> (keys, positions, ranked), or None"},
    {"fingerprint64", py_fingerprint64, METH_O, "fingerprint64(bytes) -> FarmHash Fingerprint64"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "nshash._speedups", NULL, -1, methods};

PyMODINIT_FUNC PyInit__speedups(void) {
    init_classes();
    if (PyType_Ready(&AssignerType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    Py_INCREF(&AssignerType);
    if (PyModule_AddObject(m, "Assigner", (PyObject *)&AssignerType) < 0) {
        Py_DECREF(&AssignerType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
