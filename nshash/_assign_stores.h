/*
 * nshash/_assign_stores.h: the tables the C decision (_assign.h) reads and
 * writes: a key's value, a write to a table and to the log of pending writes,
 * clusters.find_roots for one id, a cluster member's stored words; and
 * assign()'s options and tables, checked.  Included by _assign.h only.
 *
 * The tables are the memory store's own, or (with a fetch callable) a cache in
 * front of a store that has no C tables (LevelDB, Redis): keys are fetched in
 * batches before they are read, fetched absences are kept as ABSENT, and the
 * writes collect in the pending tables for Python to hand to the store's view.
 */
#ifndef NSHASH_ASSIGN_STORES_H
#define NSHASH_ASSIGN_STORES_H

enum { T_FP, T_PARENT, T_STAT, T_SKETCH, T_LINE, T_COUNT };

/* A key not in a table (None in Python): no id, count or mark is this value (sketch words, read from blocks, may be). */
#define ABSENT INT64_MIN
#define MAX_SENTENCES 128 /* features: k <= 128 sentences, two keys each */

/* The store's filter of the keys it holds (nshash.stores.leveldb_filter.KeyFilter): a key it rules out is absent
 * from the store, so the cache marks it so without a fetch.  bits NULL: no filter. */
typedef struct {
    const unsigned char *bits;
    int byte_bits, shift;
    uint64_t mix, salt[T_COUNT];
} key_filter;

typedef struct {
    Table *tables[T_COUNT]; /* NULL at T_SKETCH, which is: */
    Blocks *sketches;
    Table *pending[T_COUNT]; /* the store's log of writes since its last commit; NULL: no log */
    PyObject *fetch;         /* fetch(table, keys) -> values: the tables are a cache of a store; NULL: they are the store */
    key_filter filter;       /* with a fetch only */
} assign_stores;

/* Whether the filter may hold `key` of `table`: KeyFilter.may_contain, with keyfilter_probe's probes (_keyfilter.h). */
static inline int filter_may_hold(const key_filter *f, int table, uint64_t key) {
    if (f->bits == NULL) return 1;
    keyfilter_spot p = keyfilter_spot_of(key >> f->shift, f->salt[table], f->mix, f->byte_bits);
    return (f->bits[p.i1] & p.b1) && (f->bits[p.i2] & p.b2);
}

static inline int64_t look(const assign_stores *s, int table, uint64_t key) {
    Py_ssize_t at = table_find(s->tables[table], key);
    return at < 0 ? ABSENT : value_at(s->tables[table], at);
}

static int put_both(assign_stores *s, int table, uint64_t key, int64_t value) {
    if ((table == T_SKETCH ? blocks_put(s->sketches, key, value) : table_put(s->tables[table], key, value)) < 0 ||
        (s->pending[table] != NULL && table_put(s->pending[table], key, value) < 0)) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* fetch(table, wanted) -> its list of len(wanted) values, checked; NULL with an error set. */
static PyObject *call_fetch(const assign_stores *s, int table, PyObject *wanted) {
    PyObject *values = PyObject_CallFunction(s->fetch, "iO", table, wanted);
    if (values != NULL && (!PyList_Check(values) || PyList_GET_SIZE(values) != PyList_GET_SIZE(wanted))) {
        PyErr_SetString(PyExc_TypeError, "assign(): fetch(table, keys) returns a list of as many values");
        Py_CLEAR(values);
    }
    return values;
}

/* Into the cache, the values of those of keys[0:n] it lacks (absent ones as ABSENT); no-op on the store's own tables. */
static int fetch_keys(assign_stores *s, int table, const uint64_t *keys, Py_ssize_t n) {
    if (s->fetch == NULL || n == 0) return 0;
    PyObject *wanted = PyList_New(0);
    if (wanted == NULL) return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (table_find(s->tables[table], keys[i]) >= 0) continue;
        if (!filter_may_hold(&s->filter, table, keys[i])) { /* never stored: absent, no fetch */
            if (table_put(s->tables[table], keys[i], ABSENT) < 0) {
                PyErr_NoMemory();
                Py_DECREF(wanted);
                return -1;
            }
            continue;
        }
        PyObject *key = PyLong_FromUnsignedLongLong(keys[i]);
        if (key == NULL || PyList_Append(wanted, key) < 0) {
            Py_XDECREF(key);
            Py_DECREF(wanted);
            return -1;
        }
        Py_DECREF(key);
    }
    Py_ssize_t count = PyList_GET_SIZE(wanted);
    PyObject *values = count ? call_fetch(s, table, wanted) : NULL;
    int result = count && values == NULL ? -1 : 0;
    for (Py_ssize_t i = 0; result == 0 && values != NULL && i < count; i++) {
        PyObject *item = PyList_GET_ITEM(values, i);
        int64_t value = item == Py_None ? ABSENT : PyLong_AsLongLong(item);
        uint64_t key = PyLong_AsUnsignedLongLong(PyList_GET_ITEM(wanted, i));
        if (PyErr_Occurred()) result = -1;
        else if (table_put(s->tables[table], key, value) < 0) {
            PyErr_NoMemory();
            result = -1;
        }
    }
    Py_XDECREF(values);
    Py_DECREF(wanted);
    return result;
}

/* clusters.find_roots for one id: its canonical id, the chain above it compressed. */
static int find_root(assign_stores *s, int64_t id, int64_t *root) {
    uint64_t key = (uint64_t)id;
    if (fetch_keys(s, T_PARENT, &key, 1) < 0) return -1;
    int64_t node = id, above = look(s, T_PARENT, key);
    Py_ssize_t steps = 0;
    while (above != ABSENT) {
        node = above;
        key = (uint64_t)node;
        if (fetch_keys(s, T_PARENT, &key, 1) < 0) return -1;
        above = look(s, T_PARENT, key);
        steps++;
    }
    *root = node;
    if (steps > 1) /* as clusters.find_roots: every id of the chain below the root points to it */
        for (int64_t at = id; at != node;) {
            int64_t next = look(s, T_PARENT, (uint64_t)at);
            if (put_both(s, T_PARENT, (uint64_t)at, node) < 0) return -1;
            at = next;
        }
    return 0;
}

static inline int whole_block(const block *found) {
    return found != NULL && !(~found->present & (((uint64_t)1 << ENTRIES) - 1));
}

/*
 * A cluster's first `most` members into the cache, in one fetch (they share a block of keys:
 * one scan in LevelDB): each whole one, and the first missing one as a mark (its first word
 * only, ABSENT), so that it is not fetched again.  Members are added in order and written whole.
 */
static int fetch_members(assign_stores *s, int64_t cluster, int most) {
    if (s->fetch == NULL) return 0;
    uint64_t base = (uint64_t)cluster << CLUSTER_SHIFT;
    int first = 0;
    for (; first < most; first++) {
        const block *found = blocks_find(s->sketches, base | ((uint64_t)first << MEMBER_SHIFT));
        if (found == NULL) break;
        if (!whole_block(found)) return 0; /* marked missing: so are the ones after it */
    }
    if (first == most) return 0;
    uint64_t first_base = base | ((uint64_t)first << MEMBER_SHIFT);
    if (!filter_may_hold(&s->filter, T_SKETCH, first_base)) /* never stored: nor are the ones after it */
        return blocks_put(s->sketches, first_base, ABSENT) < 0 ? (PyErr_NoMemory(), -1) : 0;
    Py_ssize_t count = (Py_ssize_t)(most - first) * ENTRIES;
    PyObject *wanted = PyList_New(count);
    if (wanted == NULL) return -1;
    for (Py_ssize_t i = 0; i < count; i++) {
        uint64_t at = base | ((uint64_t)(first + i / ENTRIES) << MEMBER_SHIFT) | (uint64_t)(i % ENTRIES);
        PyObject *key = PyLong_FromUnsignedLongLong(at);
        if (key == NULL) {
            Py_DECREF(wanted);
            return -1;
        }
        PyList_SET_ITEM(wanted, i, key);
    }
    PyObject *values = call_fetch(s, T_SKETCH, wanted);
    Py_DECREF(wanted);
    if (values == NULL) return -1;
    int result = 0;
    for (int index = first; result == 0 && index < most; index++) {
        uint64_t member_base = base | ((uint64_t)index << MEMBER_SHIFT);
        int64_t words[ENTRIES];
        int part = 0;
        for (; part < ENTRIES; part++) {
            PyObject *item = PyList_GET_ITEM(values, (Py_ssize_t)(index - first) * ENTRIES + part);
            if (item == Py_None) break;
            words[part] = PyLong_AsLongLong(item);
            if (PyErr_Occurred()) {
                result = -1;
                break;
            }
        }
        if (result < 0) break;
        if (part < ENTRIES) { /* missing */
            if (blocks_put(s->sketches, member_base, ABSENT) < 0) result = -1;
            break;
        }
        for (part = 0; part < ENTRIES && result == 0; part++)
            if (blocks_put(s->sketches, member_base | (uint64_t)part, words[part]) < 0) result = -1;
    }
    if (result < 0 && !PyErr_Occurred()) PyErr_NoMemory();
    Py_DECREF(values);
    return result;
}

/* The member's ENTRIES words at members.entry_keys(cluster, index), one block; 0 when one is missing. */
static int load_member(const assign_stores *s, int64_t cluster, int index, member *out) {
    uint64_t base = ((uint64_t)cluster << CLUSTER_SHIFT) | ((uint64_t)index << MEMBER_SHIFT);
    const block *found = blocks_find(s->sketches, base);
    if (!whole_block(found)) return 0;
    member_from_words(found->words, out);
    return 1;
}

/* members.load_members for one cluster: its first members (at most `most`) into out; how many there are, -1 on error. */
static int load_members(assign_stores *s, int64_t cluster, int most, member *out) {
    if (fetch_members(s, cluster, most) < 0) return -1;
    int count = 0;
    while (count < most && load_member(s, cluster, count, &out[count])) count++;
    return count;
}

static inline int fits_entry_keys(int64_t cluster) { return cluster >= 0 && !((uint64_t)cluster >> (64 - CLUSTER_SHIFT)); }

/* What similar() knows of a page besides its Features tuple, having computed them: what assign would read back
 * from Python or compute again.  NULL: the features came from Python. */
typedef struct {
    uint64_t *values; /* the whole text's grams' mixed values (sketch_keeping, PyMem_Raw); NULL: not kept */
    uint64_t doc_key, keys[2 * MAX_SENTENCES]; /* Features.doc_key and keys, as many as its list holds: as
                                                  ints, reading them back was 1.5% of similar */
} page_known;

typedef struct {
    Py_ssize_t n, min_match, members;
    double verify, verify_voted;
    int boilerplate;
    long boilerplate_after;
} assign_options;

static int parse_assign_options(PyObject *tuple, assign_options *o) {
    if (!PyTuple_Check(tuple) || PyTuple_GET_SIZE(tuple) != 7) {
        PyErr_SetString(PyExc_TypeError, "assign(): options are (n, min_match, members, verify, verify_voted, "
                                         "boilerplate, boilerplate_after)");
        return -1;
    }
    o->n = PyLong_AsSsize_t(PyTuple_GET_ITEM(tuple, 0));
    o->min_match = PyLong_AsSsize_t(PyTuple_GET_ITEM(tuple, 1));
    o->members = PyLong_AsSsize_t(PyTuple_GET_ITEM(tuple, 2));
    o->verify = PyFloat_AsDouble(PyTuple_GET_ITEM(tuple, 3));
    o->verify_voted = PyFloat_AsDouble(PyTuple_GET_ITEM(tuple, 4));
    o->boilerplate = PyObject_IsTrue(PyTuple_GET_ITEM(tuple, 5));
    o->boilerplate_after = PyLong_AsLong(PyTuple_GET_ITEM(tuple, 6));
    if (PyErr_Occurred()) return -1;
    if (o->n < 1 || o->members < 1 || o->members > MAX_MEMBERS) {
        PyErr_SetString(PyExc_ValueError, "assign(): n >= 1 and 1 to MAX_MEMBERS members");
        return -1;
    }
    return 0;
}

/* filter: None, or (bits: bytearray, log2_bits, salts: one per table, shift, mix), as KeyFilter probes them. */
static int parse_filter(PyObject *obj, key_filter *f) {
    f->bits = NULL;
    if (obj == Py_None) return 0;
    if (!PyTuple_Check(obj) || PyTuple_GET_SIZE(obj) != 5 || !PyByteArray_Check(PyTuple_GET_ITEM(obj, 0)) ||
        !PyTuple_Check(PyTuple_GET_ITEM(obj, 2)) || PyTuple_GET_SIZE(PyTuple_GET_ITEM(obj, 2)) != T_COUNT) {
        PyErr_SetString(PyExc_TypeError, "assign(): the filter is (bits: bytearray, log2_bits, salts: one a table, shift, mix)");
        return -1;
    }
    PyObject *bits = PyTuple_GET_ITEM(obj, 0), *salts = PyTuple_GET_ITEM(obj, 2);
    long byte_bits = PyLong_AsLong(PyTuple_GET_ITEM(obj, 1)) - 3;
    long shift = PyLong_AsLong(PyTuple_GET_ITEM(obj, 3));
    f->mix = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(obj, 4));
    for (int i = 0; i < T_COUNT; i++) f->salt[i] = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(salts, i));
    if (PyErr_Occurred()) return -1;
    if (byte_bits < 7 || 2 * byte_bits > 64 || shift < 0 || shift > 63 || PyByteArray_GET_SIZE(bits) != (Py_ssize_t)1 << byte_bits) {
        PyErr_SetString(PyExc_ValueError, "assign(): the filter's bits do not match log2_bits (10..35), or shift is not 0..63");
        return -1;
    }
    f->byte_bits = (int)byte_bits;
    f->shift = (int)shift;
    f->bits = (const unsigned char *)PyByteArray_AS_STRING(bits);
    return 0;
}

/*
 * The store's tables (sketch: its Blocks), or its pending writes (all Tables; None: no log).
 * The tables may end with a fetch callable: they are then a cache of a store (see the top); and after it
 * the store's filter of the keys it holds (parse_filter), or None.
 */
static int parse_tables(PyObject *tuple, Table **out, Blocks **sketches, PyObject **fetch, key_filter *filter) {
    if (sketches == NULL && tuple == Py_None) {
        for (int i = 0; i < T_COUNT; i++) out[i] = NULL;
        return 0;
    }
    Py_ssize_t size = PyTuple_Check(tuple) ? PyTuple_GET_SIZE(tuple) : -1;
    if (size != T_COUNT && !(fetch != NULL && (size == T_COUNT + 1 || size == T_COUNT + 2))) {
        PyErr_SetString(PyExc_TypeError, "assign(): tables are (fp, parent, stat, sketch, line[, fetch[, filter]])");
        return -1;
    }
    if (fetch != NULL) {
        *fetch = size > T_COUNT ? PyTuple_GET_ITEM(tuple, T_COUNT) : NULL;
        if (*fetch == Py_None) *fetch = NULL;
        if (*fetch != NULL && !PyCallable_Check(*fetch)) {
            PyErr_SetString(PyExc_TypeError, "assign(): the tables' fetch is callable");
            return -1;
        }
        if (parse_filter(size == T_COUNT + 2 ? PyTuple_GET_ITEM(tuple, T_COUNT + 1) : Py_None, filter) < 0) return -1;
        if (filter->bits != NULL && *fetch == NULL) {
            PyErr_SetString(PyExc_TypeError, "assign(): a filter comes with a fetch");
            return -1;
        }
    }
    for (int i = 0; i < T_COUNT; i++) {
        PyObject *table = PyTuple_GET_ITEM(tuple, i);
        if (i == T_SKETCH && sketches != NULL) {
            if (!PyObject_TypeCheck(table, &BlocksType)) {
                PyErr_SetString(PyExc_TypeError, "assign(): the sketch table is a Blocks");
                return -1;
            }
            *sketches = (Blocks *)table;
            out[i] = NULL;
        } else if (!PyObject_TypeCheck(table, &TableType)) {
            PyErr_SetString(PyExc_TypeError, "assign(): tables are (fp, parent, stat, sketch, line) Tables");
            return -1;
        } else {
            out[i] = (Table *)table;
        }
    }
    return 0;
}

#endif
