/*
 * nshash/_assign_stores.h: the memory store's tables as the C decision (_assign.h)
 * reads and writes them: a key's value, a write to a table and to the store's
 * log of pending writes, clusters.find_roots for one id, a cluster member's
 * stored words; and assign()'s options and tables, checked.  Included by
 * _assign.h only.
 */
#ifndef NSHASH_ASSIGN_STORES_H
#define NSHASH_ASSIGN_STORES_H

enum { T_FP, T_PARENT, T_STAT, T_SKETCH, T_LINE, T_COUNT };

/* A key not in a table (None in Python): no id, count or mark is this value (sketch words, read from blocks, may be). */
#define ABSENT INT64_MIN
#define MAX_SENTENCES 128 /* features: k <= 128 sentences, two keys each */

typedef struct {
    Table *tables[T_COUNT]; /* NULL at T_SKETCH, which is: */
    Blocks *sketches;
    Table *pending[T_COUNT]; /* the store's log of writes since its last commit; NULL: no log */
} assign_stores;

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

/* clusters.find_roots for one id: its canonical id, the chain above it compressed. */
static int find_root(assign_stores *s, int64_t id, int64_t *root) {
    int64_t node = id, above = look(s, T_PARENT, (uint64_t)id);
    Py_ssize_t steps = 0;
    while (above != ABSENT) {
        node = above;
        above = look(s, T_PARENT, (uint64_t)node);
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

/* The member's ENTRIES words at members.entry_keys(cluster, index), one block; 0 when one is missing. */
static int load_member(const assign_stores *s, int64_t cluster, int index, member *out) {
    uint64_t base = ((uint64_t)cluster << CLUSTER_SHIFT) | ((uint64_t)index << MEMBER_SHIFT);
    const block *found = blocks_find(s->sketches, base);
    if (found == NULL || (~found->present & (((uint64_t)1 << ENTRIES) - 1))) return 0;
    member_from_words(found->words, out);
    return 1;
}

/* members.load_members for one cluster: its first members (at most `most`) into out; how many there are. */
static int load_members(const assign_stores *s, int64_t cluster, int most, member *out) {
    int count = 0;
    while (count < most && load_member(s, cluster, count, &out[count])) count++;
    return count;
}

static inline int fits_entry_keys(int64_t cluster) { return cluster >= 0 && !((uint64_t)cluster >> (64 - CLUSTER_SHIFT)); }

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

/* The store's tables (sketch: its Blocks), or its pending writes (all Tables; None: no log). */
static int parse_tables(PyObject *tuple, Table **out, Blocks **sketches) {
    if (sketches == NULL && tuple == Py_None) {
        for (int i = 0; i < T_COUNT; i++) out[i] = NULL;
        return 0;
    }
    if (!PyTuple_Check(tuple) || PyTuple_GET_SIZE(tuple) != T_COUNT) {
        PyErr_SetString(PyExc_TypeError, "assign(): tables are (fp, parent, stat, sketch, line)");
        return -1;
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
