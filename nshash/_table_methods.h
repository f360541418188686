/*
 * nshash/_table_methods.h: argument conversions and the Python methods every
 * kind of memory-store table shares (Table in _table_type.h, Blocks in
 * _blocks.h), written once over a table_kind.  Included by _speedups.c
 * only, after _inttable.h.
 */

/* -- conversions -------------------------------------------------------------- */

/* A key as the store takes it; 0 with *ok = 0 (and no error set) for an int outside 0..2**64-1. */
static int key_of(PyObject *obj, uint64_t *key, int *ok) {
    if (!PyLong_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "table keys are ints, not %.100s", Py_TYPE(obj)->tp_name);
        return -1;
    }
    *key = PyLong_AsUnsignedLongLong(obj);
    if (*key == (uint64_t)-1 && PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return -1;
        PyErr_Clear();
        *ok = 0;
        return 0;
    }
    *ok = 1;
    return 0;
}

/* A key that must be storable: an OverflowError otherwise. */
static int storable_key(PyObject *obj, uint64_t *key) {
    int ok;
    if (key_of(obj, key, &ok) < 0) return -1;
    if (!ok) {
        PyErr_SetString(PyExc_OverflowError, "table keys are unsigned 64-bit ints (0 to 2**64 - 1)");
        return -1;
    }
    return 0;
}

static int storable_value(PyObject *obj, int64_t *value) {
    if (!PyLong_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "table values are ints, not %.100s", Py_TYPE(obj)->tp_name);
        return -1;
    }
    int overflow;
    *value = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (overflow) {
        PyErr_SetString(PyExc_OverflowError, "table values are signed 64-bit ints (-2**63 to 2**63 - 1)");
        return -1;
    }
    return *value == -1 && PyErr_Occurred() ? -1 : 0;
}

/* The keys of a sequence, all checked, in a new buffer (*n of them); NULL on error. */
static uint64_t *keys_of(PyObject *seq, Py_ssize_t *n) {
    PyObject *fast = PySequence_Fast(seq, "keys must be a sequence of ints");
    if (fast == NULL) return NULL;
    *n = PySequence_Fast_GET_SIZE(fast);
    uint64_t *keys = PyMem_RawMalloc((size_t)(*n ? *n : 1) * sizeof(uint64_t));
    if (keys == NULL) PyErr_NoMemory();
    for (Py_ssize_t i = 0; keys != NULL && i < *n; i++) {
        if (storable_key(PySequence_Fast_GET_ITEM(fast, i), &keys[i]) < 0) {
            PyMem_RawFree(keys);
            keys = NULL;
        }
    }
    Py_DECREF(fast);
    return keys;
}

/* -- the methods, for every kind of table ------------------------------------------- */

/* What the Python methods need of a kind of table: Table (_table_type.h), Blocks (_blocks.h). */
typedef struct {
    const char *name;
    int (*get)(PyObject *self, uint64_t key, int64_t *value); /* 1 and *value if stored, 0 if not */
    int (*put)(PyObject *self, uint64_t key, int64_t value);  /* -1 on MemoryError (nothing changed) */
    int (*remove)(PyObject *self, uint64_t key);              /* 1 if it was stored, 0 if not */
    /* n pairs (values 64-bit if wide, else 32-bit) into the empty table, without the GIL (no Python
       object touched): 0, -1 out of memory, 1 for a key given twice (in *twice) */
    int (*fill)(PyObject *self, const void *keys, const void *values, int wide, Py_ssize_t n, uint64_t *twice);
} table_kind;

/* Is a buffer's format one native (or '='/'<'/'>' of this machine's order) code of this size and signedness? */
static int format_is(const Py_buffer *view, int is_signed, Py_ssize_t size) {
    const char *f = view->format == NULL ? "B" : view->format;
    if (*f == '@' || *f == '=') f++;
#if PY_LITTLE_ENDIAN
    else if (*f == '<') f++;
#else
    else if (*f == '>') f++;
#endif
    if (f[0] == '\0' || f[1] != '\0' || view->itemsize != size) return 0;
    return is_signed ? strchr("bhilq", f[0]) != NULL : strchr("BHILQ", f[0]) != NULL;
}

/* Kind(keys=None, values=None): from two buffers (keys 'Q', values 'q' or 'i'), as to_arrays gives them. */
static PyObject *kind_new(PyTypeObject *type, PyObject *args, PyObject *kwargs, const table_kind *kind) {
    static char *names[] = {"keys", "values", NULL};
    PyObject *keys_obj = NULL, *values_obj = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|OO", names, &keys_obj, &values_obj)) return NULL;
    if ((keys_obj == NULL) != (values_obj == NULL)) {
        PyErr_Format(PyExc_TypeError, "%s() takes both keys and values, or neither", kind->name);
        return NULL;
    }
    PyObject *self = type->tp_alloc(type, 0);
    if (self == NULL || keys_obj == NULL) return self;
    Py_buffer kv, vv;
    if (PyObject_GetBuffer(keys_obj, &kv, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) {
        Py_DECREF(self);
        return NULL;
    }
    if (PyObject_GetBuffer(values_obj, &vv, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(&kv);
        Py_DECREF(self);
        return NULL;
    }
    int failed = 1, wide = format_is(&vv, 1, 8);
    Py_ssize_t n = kv.len / 8;
    if (!format_is(&kv, 0, 8))
        PyErr_Format(PyExc_TypeError, "%s(): keys must be a buffer of unsigned 64-bit ints (array('Q'))", kind->name);
    else if (!wide && !format_is(&vv, 1, 4))
        PyErr_Format(PyExc_TypeError, "%s(): values must be a buffer of signed 64- or 32-bit ints (array('q'))",
                     kind->name);
    else if (vv.len / vv.itemsize != n)
        PyErr_Format(PyExc_ValueError, "%s(): %zd keys but %zd values", kind->name, n, vv.len / vv.itemsize);
    else {
        uint64_t twice = 0;
        int done;
        /* The new table is no one else's yet and the buffers are held: other threads may run
           (a store's file checksum is computed while its tables are built). */
        Py_BEGIN_ALLOW_THREADS
        done = kind->fill(self, kv.buf, vv.buf, wide, n, &twice);
        Py_END_ALLOW_THREADS
        if (done < 0)
            PyErr_NoMemory();
        else if (done > 0)
            PyErr_Format(PyExc_ValueError, "%s(): key %llu is given twice", kind->name, (unsigned long long)twice);
        failed = done != 0;
    }
    PyBuffer_Release(&kv);
    PyBuffer_Release(&vv);
    if (failed) Py_CLEAR(self);
    return self;
}

static PyObject *kind_get_many(PyObject *self, PyObject *arg, const table_kind *kind) {
    PyObject *fast = PySequence_Fast(arg, "get_many() takes a sequence of ints");
    if (fast == NULL) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    PyObject *out = PyList_New(n);
    for (Py_ssize_t i = 0; out != NULL && i < n; i++) {
        uint64_t key;
        int64_t value;
        int ok;
        PyObject *item;
        if (key_of(PySequence_Fast_GET_ITEM(fast, i), &key, &ok) < 0) {
            Py_CLEAR(out);
            break;
        }
        if (!ok || !kind->get(self, key, &value)) item = Py_NewRef(Py_None);
        else if ((item = PyLong_FromLongLong(value)) == NULL) {
            Py_CLEAR(out);
            break;
        }
        PyList_SET_ITEM(out, i, item);
    }
    Py_DECREF(fast);
    return out;
}

/* The (key, value) pairs of an iterable, all converted, in two new buffers; their count, or -1 on error. */
static Py_ssize_t pairs_of(PyObject *arg, uint64_t **keys_out, int64_t **values_out) {
    PyObject *iter = PyObject_GetIter(arg);
    if (iter == NULL) return -1;
    Py_ssize_t n = 0, room = 16;
    uint64_t *keys = PyMem_RawMalloc((size_t)room * sizeof(uint64_t));
    int64_t *values = PyMem_RawMalloc((size_t)room * sizeof(int64_t));
    PyObject *item = NULL;
    int failed = keys == NULL || values == NULL;
    if (failed) PyErr_NoMemory();
    /* All pairs are converted first: a bad one leaves the table unchanged. */
    while (!failed && (item = PyIter_Next(iter)) != NULL) {
        if (n == room) {
            room *= 2;
            uint64_t *k = PyMem_RawRealloc(keys, (size_t)room * sizeof(uint64_t));
            if (k != NULL) keys = k;
            int64_t *v = k == NULL ? NULL : PyMem_RawRealloc(values, (size_t)room * sizeof(int64_t));
            if (v != NULL) values = v;
            if (v == NULL) {
                PyErr_NoMemory();
                failed = 1;
            }
        }
        /* Any pair of two, as dict.update takes (tuples, the common case, are not copied). */
        PyObject *pair = failed ? NULL : PySequence_Fast(item, "put_many() takes (key, value) pairs");
        if (pair != NULL && PySequence_Fast_GET_SIZE(pair) != 2) {
            PyErr_SetString(PyExc_TypeError, "put_many() takes (key, value) pairs");
            Py_CLEAR(pair);
        }
        failed = pair == NULL || storable_key(PySequence_Fast_GET_ITEM(pair, 0), &keys[n]) < 0 ||
                 storable_value(PySequence_Fast_GET_ITEM(pair, 1), &values[n]) < 0;
        Py_XDECREF(pair);
        n++;
        Py_DECREF(item);
    }
    Py_DECREF(iter);
    if (failed || PyErr_Occurred() != NULL) {
        PyMem_RawFree(keys);
        PyMem_RawFree(values);
        return -1;
    }
    *keys_out = keys;
    *values_out = values;
    return n;
}

static PyObject *kind_put_many(PyObject *self, PyObject *arg, const table_kind *kind) {
    uint64_t *keys;
    int64_t *values;
    Py_ssize_t n = pairs_of(arg, &keys, &values);
    if (n < 0) return NULL;
    int failed = 0;
    for (Py_ssize_t i = 0; !failed && i < n; i++) failed = kind->put(self, keys[i], values[i]) < 0;
    PyMem_RawFree(keys);
    PyMem_RawFree(values);
    if (failed) return NULL;
    Py_RETURN_NONE;
}

static PyObject *kind_delete_many(PyObject *self, PyObject *arg, const table_kind *kind) {
    Py_ssize_t n;
    uint64_t *keys = keys_of(arg, &n);
    if (keys == NULL) return NULL;
    PyObject *gone = PyList_New(0);
    for (Py_ssize_t i = 0; gone != NULL && i < n; i++) {
        int64_t value;
        if (!kind->get(self, keys[i], &value)) continue;
        PyObject *key = PyLong_FromUnsignedLongLong(keys[i]);
        if (key == NULL || PyList_Append(gone, key) < 0) Py_CLEAR(gone);
        Py_XDECREF(key);
        if (gone != NULL) kind->remove(self, keys[i]);
    }
    PyMem_RawFree(keys);
    return gone;
}

static PyObject *kind_get(PyObject *self, PyObject *const *args, Py_ssize_t nargs, const table_kind *kind) {
    if (nargs < 1 || nargs > 2) {
        PyErr_SetString(PyExc_TypeError, "get(key, default=None)");
        return NULL;
    }
    uint64_t key;
    int64_t value;
    int ok;
    if (key_of(args[0], &key, &ok) < 0) return NULL;
    if (ok && kind->get(self, key, &value)) return PyLong_FromLongLong(value);
    return Py_NewRef(nargs == 2 ? args[1] : Py_None);
}

static int kind_contains(PyObject *self, PyObject *obj, const table_kind *kind) {
    uint64_t key;
    int64_t value;
    int ok;
    if (key_of(obj, &key, &ok) < 0) return -1;
    return ok && kind->get(self, key, &value);
}

static PyObject *kind_subscript(PyObject *self, PyObject *obj, const table_kind *kind) {
    uint64_t key;
    int64_t value;
    int ok;
    if (key_of(obj, &key, &ok) < 0) return NULL;
    if (!ok || !kind->get(self, key, &value)) {
        PyErr_SetObject(PyExc_KeyError, obj);
        return NULL;
    }
    return PyLong_FromLongLong(value);
}

static int kind_ass_subscript(PyObject *self, PyObject *obj, PyObject *value, const table_kind *kind) {
    uint64_t key;
    if (value == NULL) {
        int ok;
        if (key_of(obj, &key, &ok) < 0) return -1;
        if (!ok || !kind->remove(self, key)) {
            PyErr_SetObject(PyExc_KeyError, obj);
            return -1;
        }
        return 0;
    }
    int64_t v;
    if (storable_key(obj, &key) < 0 || storable_value(value, &v) < 0) return -1;
    return kind->put(self, key, v) < 0 ? -1 : 0;
}
