/*
 * nshash/_table_type.h: nshash._speedups.Table, the Python type over the table
 * of _inttable.h.  Included by _speedups.c only, after _table_methods.h.
 */

static int table_get_one(PyObject *self, uint64_t key, int64_t *value) {
    Py_ssize_t at = table_find((Table *)self, key);
    if (at < 0) return 0;
    *value = value_at((Table *)self, at);
    return 1;
}

static int table_put_one(PyObject *self, uint64_t key, int64_t value) {
    if (table_put((Table *)self, key, value) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static int table_remove_one(PyObject *self, uint64_t key) {
    Py_ssize_t at = table_find((Table *)self, key);
    if (at < 0) return 0;
    table_remove_at((Table *)self, at);
    return 1;
}

/* Sized once, then every key in the first free slot from its home: a file's keys come in slot order. */
static int table_fill(PyObject *self, const void *keys, const void *values, int wide, Py_ssize_t n,
                      uint64_t *twice) {
    Table *t = (Table *)self;
    t->wide = t->wide_keys = 0;
    for (Py_ssize_t i = 0; wide && !t->wide && i < n; i++) {
        int64_t v = buffer_i64(values, i);
        t->wide = v < INT32_MIN || v > INT32_MAX;
    }
    for (Py_ssize_t i = 0; !t->wide_keys && i < n; i++) t->wide_keys = buffer_u64(keys, i) > UINT32_MAX;
    if (n && table_resize(t, capacity_for(n)) < 0) return -1;
    Py_ssize_t mask = t->capacity - 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        uint64_t key = buffer_u64(keys, i);
        /* Every stored key a lookup of the key would meet lies between its home and the first free slot. */
        Py_ssize_t home = home_slot(t, key), at = first_free(t, home);
        for (Py_ssize_t j = home; j != at; j = (j + 1) & mask) {
            if (key_at(t, j) == key) {
                *twice = key;
                return 1;
            }
        }
        set_used(t, at);
        store_key(t, at, key);
        store_value(t, at, wide ? buffer_i64(values, i) : (int64_t)buffer_i32(values, i));
        t->count++;
    }
    return 0;
}

static const table_kind TABLE_KIND = {"Table", table_get_one, table_put_one, table_remove_one, table_fill};

static PyObject *table_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    return kind_new(type, args, kwargs, &TABLE_KIND);
}

static void table_dealloc(Table *t) {
    PyMem_RawFree(t->keys);
    PyMem_RawFree(t->values);
    PyMem_RawFree(t->used);
    Py_TYPE(t)->tp_free((PyObject *)t);
}

static Py_ssize_t table_length(Table *t) { return t->count; }
static PyObject *table_get_many(PyObject *t, PyObject *arg) { return kind_get_many(t, arg, &TABLE_KIND); }
static PyObject *table_put_many(PyObject *t, PyObject *arg) { return kind_put_many(t, arg, &TABLE_KIND); }
static PyObject *table_delete_many(PyObject *t, PyObject *arg) { return kind_delete_many(t, arg, &TABLE_KIND); }
static PyObject *table_get(PyObject *t, PyObject *const *args, Py_ssize_t nargs) {
    return kind_get(t, args, nargs, &TABLE_KIND);
}
static int table_contains(PyObject *t, PyObject *obj) { return kind_contains(t, obj, &TABLE_KIND); }
static PyObject *table_subscript(PyObject *t, PyObject *obj) { return kind_subscript(t, obj, &TABLE_KIND); }
static int table_ass_subscript(PyObject *t, PyObject *obj, PyObject *value) {
    return kind_ass_subscript(t, obj, value, &TABLE_KIND);
}

static PyObject *table_to_arrays(Table *t, PyObject *unused) {
    Py_buffer kv, vv;
    PyObject *keys = new_array("Q", t->count, &kv);
    if (keys == NULL) return NULL;
    PyObject *values = new_array(t->wide ? "q" : "i", t->count, &vv);
    if (values == NULL) {
        PyBuffer_Release(&kv);
        Py_DECREF(keys);
        return NULL;
    }
    uint64_t *k = kv.buf;
    Py_ssize_t n = 0;
    /* In slot order: a table rebuilt from these inserts near where it inserted last (fast reloads). */
    for (Py_ssize_t i = 0; i < t->capacity; i++) {
        if (!slot_used(t, i)) continue;
        k[n] = key_at(t, i);
        if (t->wide) ((int64_t *)vv.buf)[n] = ((int64_t *)t->values)[i];
        else ((int32_t *)vv.buf)[n] = ((int32_t *)t->values)[i];
        n++;
    }
    PyBuffer_Release(&kv);
    PyBuffer_Release(&vv);
    return Py_BuildValue("(NN)", keys, values);
}

static PyObject *table_clear(Table *t, PyObject *unused) {
    PyMem_RawFree(t->keys);
    PyMem_RawFree(t->values);
    PyMem_RawFree(t->used);
    t->keys = NULL;
    t->values = NULL;
    t->used = NULL;
    t->capacity = t->count = 0;
    t->wide = t->wide_keys = 0;
    t->version++;
    t->writes++;
    Py_RETURN_NONE;
}

static size_t table_nbytes(const Table *t) {
    return (size_t)t->capacity * (key_width(t) + (t->wide ? 8 : 4)) + (size_t)t->capacity / 8;
}

static PyObject *table_get_nbytes(Table *t, void *unused) { return PyLong_FromSize_t(table_nbytes(t)); }
static PyObject *table_get_capacity(Table *t, void *unused) { return PyLong_FromSsize_t(t->capacity); }

static PyObject *table_get_writes(Table *t, void *unused) { return PyLong_FromUnsignedLongLong(t->writes); }

static PyObject *table_sizeof(Table *t, PyObject *unused) {
    return PyLong_FromSize_t(sizeof(Table) + table_nbytes(t));
}

/* -- iteration: keys(), values(), items() ----------------------------------------- */

typedef struct {
    PyObject_HEAD
    Table *table;
    Py_ssize_t slot;
    uint64_t version;
    int what; /* 0 keys, 1 values, 2 items */
} TableIter;

static PyTypeObject TableIterType;

static PyObject *table_iter_of(Table *t, int what) {
    TableIter *it = PyObject_New(TableIter, &TableIterType);
    if (it == NULL) return NULL;
    it->table = (Table *)Py_NewRef(t);
    it->slot = 0;
    it->version = t->version;
    it->what = what;
    return (PyObject *)it;
}

static PyObject *table_iter(Table *t) { return table_iter_of(t, 0); }
static PyObject *table_keys(Table *t, PyObject *unused) { return table_iter_of(t, 0); }
static PyObject *table_values(Table *t, PyObject *unused) { return table_iter_of(t, 1); }
static PyObject *table_items(Table *t, PyObject *unused) { return table_iter_of(t, 2); }

static void table_iter_dealloc(TableIter *it) {
    Py_DECREF(it->table);
    PyObject_Free(it);
}

static PyObject *table_iter_next(TableIter *it) {
    Table *t = it->table;
    if (it->version != t->version) {
        PyErr_SetString(PyExc_RuntimeError, "Table changed size during iteration");
        return NULL;
    }
    while (it->slot < t->capacity && !slot_used(t, it->slot)) it->slot++;
    if (it->slot >= t->capacity) return NULL;
    Py_ssize_t i = it->slot++;
    if (it->what == 0) return PyLong_FromUnsignedLongLong(key_at(t, i));
    if (it->what == 1) return PyLong_FromLongLong(value_at(t, i));
    return Py_BuildValue("(NN)", PyLong_FromUnsignedLongLong(key_at(t, i)), PyLong_FromLongLong(value_at(t, i)));
}

static PyTypeObject TableIterType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "nshash._speedups.TableIterator",
    .tp_basicsize = sizeof(TableIter),
    .tp_dealloc = (destructor)table_iter_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_iter = PyObject_SelfIter,
    .tp_iternext = (iternextfunc)table_iter_next,
};

static PyMethodDef table_methods[] = {
    {"get_many", (PyCFunction)table_get_many, METH_O, "get_many(keys) -> list: each key's value, None where absent."},
    {"put_many", (PyCFunction)table_put_many, METH_O, "put_many(pairs): set key -> value for each (key, value)."},
    {"delete_many", (PyCFunction)table_delete_many, METH_O,
     "delete_many(keys) -> list: remove the keys; returns those that were there, in order."},
    {"get", (PyCFunction)(void (*)(void))table_get, METH_FASTCALL, "get(key, default=None)"},
    {"keys", (PyCFunction)table_keys, METH_NOARGS, "An iterator over the keys."},
    {"values", (PyCFunction)table_values, METH_NOARGS, "An iterator over the values."},
    {"items", (PyCFunction)table_items, METH_NOARGS, "An iterator over (key, value) pairs."},
    {"to_arrays", (PyCFunction)table_to_arrays, METH_NOARGS,
     "to_arrays() -> (array('Q') keys, array('q' or 'i') values), what Table(keys, values) rebuilds."},
    {"clear", (PyCFunction)table_clear, METH_NOARGS, "Remove everything and free the room."},
    {"__sizeof__", (PyCFunction)table_sizeof, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef table_getset[] = {
    {"nbytes", (getter)table_get_nbytes, NULL, "Bytes the table's arrays take.", NULL},
    {"capacity", (getter)table_get_capacity, NULL, "Slots allocated.", NULL},
    {"writes", (getter)table_get_writes, NULL, "Changes made since the table was built (a value replaced counts).",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMappingMethods table_mapping = {(lenfunc)table_length, (binaryfunc)table_subscript,
                                         (objobjargproc)table_ass_subscript};
static PySequenceMethods table_sequence = {.sq_contains = (objobjproc)table_contains};

static PyTypeObject TableType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "nshash._speedups.Table",
    .tp_doc = "Table(keys=None, values=None): unsigned 64-bit keys -> signed 64-bit values, in flat arrays.",
    .tp_basicsize = sizeof(Table),
    .tp_dealloc = (destructor)table_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = table_new,
    .tp_methods = table_methods,
    .tp_getset = table_getset,
    .tp_as_mapping = &table_mapping,
    .tp_as_sequence = &table_sequence,
    .tp_iter = (getiterfunc)table_iter,
};

/* Adds the type to the module; -1 on error. */
static int add_table_type(PyObject *m) {
    if (PyType_Ready(&TableType) < 0 || PyType_Ready(&TableIterType) < 0) return -1;
    Py_INCREF(&TableType);
    if (PyModule_AddObject(m, "Table", (PyObject *)&TableType) < 0) {
        Py_DECREF(&TableType);
        return -1;
    }
    return 0;
}
