/*
 * nshash.packed in C: many documents' features as one bytes object (pack_features), and the
 * decision read straight from it (assign_packed).  The layout is nshash/packed.py's, in this
 * machine's byte order; the tests compare the bytes with the Python packer's.
 */

#define PACKED_MAGIC "NSF3"
#define PACKED_ORDER 0x01020304u
#define PACKED_HEADER 16 /* magic, u32 order, u64 pages */
#define PACKED_PAGE 45   /* u8 flags, u32 keys, positions, lines, site keys, piece words, u64 characters, grams, doc key */
enum { PACKED_EMPTY = 1, PACKED_WIDE_GRAMS = 2, PACKED_WIDE_ENDS = 4, PACKED_KIND_SHIFT = 3, PACKED_FLAT = 32 };

typedef struct {
    char *data;
    size_t len, cap;
} growing;

static int grow_put(growing *g, const void *data, size_t size) {
    if (g->len + size > g->cap) {
        size_t cap = g->cap ? g->cap : 4096;
        while (cap < g->len + size) cap *= 2;
        char *more = PyMem_RawRealloc(g->data, cap);
        if (more == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        g->data = more;
        g->cap = cap;
    }
    memcpy(g->data + g->len, data, size);
    g->len += size;
    return 0;
}

static int packed_bad(const char *what) {
    PyErr_Format(PyExc_TypeError, "pack_features(): %s", what);
    return -1;
}

/* A list of ints as u64 (unsigned) or i64 values. */
static int put_int_list(growing *g, PyObject *list, int is_signed) {
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list); i++) {
        PyObject *item = PyList_GET_ITEM(list, i);
        uint64_t value = is_signed ? (uint64_t)PyLong_AsLongLong(item) : PyLong_AsUnsignedLongLong(item);
        if (PyErr_Occurred() || grow_put(g, &value, 8) < 0) return -1;
    }
    return 0;
}

/* An array's items as they are (4 or 8 bytes); *wide says which. */
static int put_array(growing *g, PyObject *values, Py_ssize_t count, int *wide, int only_narrow) {
    Py_buffer view;
    if (PyObject_GetBuffer(values, &view, PyBUF_SIMPLE | PyBUF_FORMAT) < 0) return -1;
    int bad = (view.itemsize != 4 && view.itemsize != 8) || (only_narrow && view.itemsize != 4) ||
              view.len != count * view.itemsize;
    if (bad) {
        PyBuffer_Release(&view);
        return packed_bad("line arrays hold 4- or 8-byte ints, one a line");
    }
    *wide = view.itemsize == 8;
    int failed = grow_put(g, view.buf, (size_t)view.len);
    PyBuffer_Release(&view);
    return failed;
}

static int pack_page(growing *g, PyObject *f) {
    if (!PyTuple_Check(f) || PyTuple_GET_SIZE(f) != 11) return packed_bad("features are Features tuples");
    int flat = PyObject_IsTrue(PyTuple_GET_ITEM(f, 9));
    if (flat < 0) return -1;
    PyObject *keys = PyTuple_GET_ITEM(f, 0), *positions = PyTuple_GET_ITEM(f, 1), *doc_key = PyTuple_GET_ITEM(f, 2);
    PyObject *sketch = PyTuple_GET_ITEM(f, 3), *line_keys = PyTuple_GET_ITEM(f, 4), *whole = PyTuple_GET_ITEM(f, 6);
    if (!PyList_Check(keys) || !PyList_Check(positions) || !PyTuple_Check(sketch) || PyTuple_GET_SIZE(sketch) != 2 ||
        !PyUnicode_Check(whole))
        return packed_bad("features are Features tuples");
    PyObject *slots = PyTuple_GET_ITEM(sketch, 1);
    if (!PyBytes_Check(slots) || PyBytes_GET_SIZE(slots) != SLOTS) return packed_bad("a sketch's slots are bytes");
    Py_ssize_t lines = PyObject_Length(line_keys), site = PyObject_Length(PyTuple_GET_ITEM(f, 8));
    Py_ssize_t pieces = PyObject_Length(PyTuple_GET_ITEM(f, 10));
    if (lines < 0 || site < 0 || pieces < 0) return -1;
    uint64_t grams = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(sketch, 0));
    uint64_t key = doc_key == Py_None ? 0 : PyLong_AsUnsignedLongLong(doc_key);
    if (PyErr_Occurred()) return -1;
    int kind = PyUnicode_KIND(whole);
    size_t head_at = g->len;
    unsigned char head[PACKED_PAGE] = {0};
    uint32_t counts[5] = {(uint32_t)PyList_GET_SIZE(keys), (uint32_t)PyList_GET_SIZE(positions), (uint32_t)lines,
                          (uint32_t)site, (uint32_t)pieces};
    uint64_t sizes[3] = {(uint64_t)PyUnicode_GET_LENGTH(whole), grams, key};
    if (lines > (Py_ssize_t)UINT32_MAX || site > (Py_ssize_t)UINT32_MAX || pieces > (Py_ssize_t)UINT32_MAX)
        return packed_bad("too many lines");
    memcpy(head + 1, counts, sizeof counts);
    memcpy(head + 21, sizes, sizeof sizes);
    int wide_keys, wide_grams, wide_ends, wide_site, wide_pieces;
    if (grow_put(g, head, PACKED_PAGE) < 0 || put_int_list(g, keys, 0) < 0 || put_int_list(g, positions, 1) < 0 ||
        put_array(g, line_keys, lines, &wide_keys, 1) < 0 || put_array(g, PyTuple_GET_ITEM(f, 5), lines, &wide_grams, 0) < 0 ||
        put_array(g, PyTuple_GET_ITEM(f, 7), lines, &wide_ends, 0) < 0 ||
        put_array(g, PyTuple_GET_ITEM(f, 8), site, &wide_site, 1) < 0 ||
        put_array(g, PyTuple_GET_ITEM(f, 10), pieces, &wide_pieces, 1) < 0 || grow_put(g, PyBytes_AS_STRING(slots), SLOTS) < 0 ||
        grow_put(g, PyUnicode_DATA(whole), (size_t)PyUnicode_GET_LENGTH(whole) * (size_t)kind) < 0)
        return -1;
    g->data[head_at] = (char)((doc_key == Py_None ? PACKED_EMPTY : 0) | (wide_grams ? PACKED_WIDE_GRAMS : 0) |
                              (wide_ends ? PACKED_WIDE_ENDS : 0) | (kind == 4 ? 2 : kind - 1) << PACKED_KIND_SHIFT |
                              (flat ? PACKED_FLAT : 0));
    return 0;
}

/* pack_features(features) -> bytes: nshash.packed.pack. */
static PyObject *pack_features(PyObject *self, PyObject *arg) {
    if (!PyList_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "pack_features() takes a list of Features tuples");
        return NULL;
    }
    growing g = {NULL, 0, 0};
    unsigned char header[PACKED_HEADER];
    uint32_t order = PACKED_ORDER;
    uint64_t count = (uint64_t)PyList_GET_SIZE(arg);
    memcpy(header, PACKED_MAGIC, 4);
    memcpy(header + 4, &order, 4);
    memcpy(header + 8, &count, 8);
    PyObject *out = NULL;
    if (grow_put(&g, header, PACKED_HEADER) < 0) goto done;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(arg); i++)
        if (pack_page(&g, PyList_GET_ITEM(arg, i)) < 0) goto done;
    out = PyBytes_FromStringAndSize(g.data, (Py_ssize_t)g.len);
done:
    PyMem_RawFree(g.data);
    return out;
}

static PyObject *packed_damaged(void) {
    PyErr_SetString(PyExc_ValueError, "packed nshash features are truncated or damaged");
    return NULL;
}

/* n ints of `size` bytes at p as a list (u64 or i64). */
static PyObject *list_from(const unsigned char *p, uint32_t n, int is_signed) {
    PyObject *list = PyList_New(n);
    for (uint32_t i = 0; list != NULL && i < n; i++) {
        uint64_t value;
        memcpy(&value, p + 8 * (size_t)i, 8);
        PyObject *item = is_signed ? PyLong_FromLongLong((long long)value) : PyLong_FromUnsignedLongLong(value);
        if (item == NULL) Py_CLEAR(list);
        else PyList_SET_ITEM(list, i, item);
    }
    return list;
}

static PyObject *array_from(const unsigned char *p, uint32_t n, int wide) {
    Py_buffer view;
    PyObject *array = new_array(wide ? "q" : "I", n, &view);
    if (array == NULL) return NULL;
    int fits = view.itemsize == (wide ? 8 : 4);
    if (fits) memcpy(view.buf, p, (size_t)n * (size_t)view.itemsize);
    PyBuffer_Release(&view);
    if (!fits) {
        PyErr_SetString(PyExc_SystemError, "array('I') does not hold 32 bits on this platform");
        Py_CLEAR(array);
    }
    return array;
}

/* The Features-shaped tuple of the page at *at (which moves past it), or NULL. */
static PyObject *unpack_page(const unsigned char *data, size_t len, size_t *at) {
    if (len - *at < PACKED_PAGE) return packed_damaged();
    const unsigned char *p = data + *at;
    uint32_t counts[5];
    uint64_t sizes[3];
    memcpy(counts, p + 1, sizeof counts);
    memcpy(sizes, p + 21, sizeof sizes);
    int flags = p[0], kind_code = flags >> PACKED_KIND_SHIFT & 3;
    int wide_grams = flags & PACKED_WIDE_GRAMS, wide_ends = flags & PACKED_WIDE_ENDS;
    if (kind_code > 2) return packed_damaged();
    size_t kind = (size_t)1 << kind_code;
    /* sizes checked one by one so that no sum can wrap */
    size_t rest = len - *at - PACKED_PAGE, need[8] = {8 * (size_t)counts[0], 8 * (size_t)counts[1], 4 * (size_t)counts[2],
                                                       (wide_grams ? 8 : 4) * (size_t)counts[2],
                                                       (wide_ends ? 8 : 4) * (size_t)counts[2], 4 * (size_t)counts[3],
                                                       4 * (size_t)counts[4], SLOTS};
    for (int i = 0; i < 8; i++) {
        if (need[i] > rest) return packed_damaged();
        rest -= need[i];
    }
    if (sizes[0] > rest / kind) return packed_damaged();
    const unsigned char *q = p + PACKED_PAGE;
    PyObject *keys = list_from(q, counts[0], 0);
    q += need[0];
    PyObject *positions = list_from(q, counts[1], 1);
    q += need[1];
    PyObject *line_keys = array_from(q, counts[2], 0);
    q += need[2];
    PyObject *line_grams = array_from(q, counts[2], wide_grams);
    q += need[3];
    PyObject *line_ends = array_from(q, counts[2], wide_ends);
    q += need[4];
    PyObject *site = array_from(q, counts[3], 0);
    q += need[5];
    PyObject *pieces = array_from(q, counts[4], 0);
    q += need[6];
    PyObject *slots = PyBytes_FromStringAndSize((const char *)q, SLOTS);
    q += SLOTS;
    PyObject *whole = NULL;
    if ((uintptr_t)q % kind == 0) {
        whole = PyUnicode_FromKindAndData((int)kind, q, (Py_ssize_t)sizes[0]);
    } else { /* PyUnicode_FromKindAndData reads 2- and 4-byte characters: aligned */
        void *aligned = PyMem_RawMalloc(sizes[0] * kind + 1);
        if (aligned == NULL) PyErr_NoMemory();
        else {
            memcpy(aligned, q, sizes[0] * kind);
            whole = PyUnicode_FromKindAndData((int)kind, aligned, (Py_ssize_t)sizes[0]);
            PyMem_RawFree(aligned);
        }
    }
    PyObject *doc_key = flags & PACKED_EMPTY ? Py_NewRef(Py_None) : PyLong_FromUnsignedLongLong(sizes[2]);
    PyObject *result = NULL;
    if (keys && positions && line_keys && line_grams && line_ends && site && pieces && slots && whole && doc_key) {
        result = Py_BuildValue("(OOO(KO)OOOOOOO)", keys, positions, doc_key, (unsigned long long)sizes[1], slots,
                               line_keys, line_grams, whole, line_ends, site, flags & PACKED_FLAT ? Py_True : Py_False,
                               pieces);
        *at = (size_t)(q - data) + sizes[0] * kind;
    }
    Py_XDECREF(keys);
    Py_XDECREF(positions);
    Py_XDECREF(line_keys);
    Py_XDECREF(line_grams);
    Py_XDECREF(line_ends);
    Py_XDECREF(site);
    Py_XDECREF(pieces);
    Py_XDECREF(slots);
    Py_XDECREF(whole);
    Py_XDECREF(doc_key);
    return result;
}

/*
 * assign_packed(blob, offset, tables, pending, options, allocate_id) -> (ids, offset, features):
 * assign() on each page packed in blob from byte offset on, in order, until one is handed back.
 * ids: the decided pages' similar ids; offset: where the next page starts (len(blob) at the end);
 * features: the Features-shaped tuple of the page handed back (nothing written for it), or None.
 */
static PyObject *assign_packed(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 6 || !PyBytes_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError,
                        "assign_packed(blob, offset, tables, pending, options, allocate_id): blob is bytes");
        return NULL;
    }
    const unsigned char *data = (const unsigned char *)PyBytes_AS_STRING(args[0]);
    size_t len = (size_t)PyBytes_GET_SIZE(args[0]);
    uint32_t order = 0;
    if (len >= PACKED_HEADER) memcpy(&order, data + 4, 4);
    if (len < PACKED_HEADER || memcmp(data, PACKED_MAGIC, 4) != 0 || order != PACKED_ORDER) {
        PyErr_SetString(PyExc_ValueError, "not packed nshash features of this machine's byte order");
        return NULL;
    }
    Py_ssize_t start = PyLong_AsSsize_t(args[1]);
    if (start == -1 && PyErr_Occurred()) return NULL;
    if (start < PACKED_HEADER || (size_t)start > len) {
        PyErr_SetString(PyExc_ValueError, "assign_packed(): offset is not within the pages");
        return NULL;
    }
    size_t at = (size_t)start;
    PyObject *ids = PyList_New(0);
    if (ids == NULL) return NULL;
    PyObject *call[5] = {args[2], args[3], NULL, args[4], args[5]};
    while (at < len) {
        PyObject *features = unpack_page(data, len, &at);
        if (features == NULL) goto fail;
        call[2] = features;
        PyObject *match = assign(self, call, 5);
        if (match == NULL) {
            Py_DECREF(features);
            goto fail;
        }
        if (match == Py_None) {
            Py_DECREF(match);
            return Py_BuildValue("(NnN)", ids, (Py_ssize_t)at, features);
        }
        Py_DECREF(features);
        int appended = PyList_Append(ids, PyTuple_GET_ITEM(match, 0));
        Py_DECREF(match);
        if (appended < 0) goto fail;
    }
    return Py_BuildValue("(NnO)", ids, (Py_ssize_t)at, Py_None);
fail:
    Py_DECREF(ids);
    return NULL;
}
