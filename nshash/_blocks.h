/*
 * nshash._speedups.Blocks: the memory store's `sketch` table, a Table that keeps
 * the ENTRIES words of one cluster member (members.entry_keys: the same key but
 * for its low MEMBER_SHIFT bits) together in one block.
 *
 * A member's 33 words took 33 slots of a Table: 16 bytes each and the room the
 * load factor leaves, ~890 bytes a member, most of a distinct page's cost.  A
 * block is its key, a presence bit a word and the words, 280 bytes in one
 * dense array, found through a Table of block keys (~20 bytes a member).
 * Keys whose low bits are ENTRIES or more (no member has them) go to a plain
 * overflow Table, so any key is storable as in every table.  Same methods and
 * behaviour as Table (tests run both through one model); included by
 * _speedups.c after _table_type.h.
 */
#ifndef NSHASH_BLOCKS_H
#define NSHASH_BLOCKS_H

#define BLOCK_PARTS ((uint64_t)1 << MEMBER_SHIFT)
_Static_assert(ENTRIES <= (1 << MEMBER_SHIFT) && (1 << MEMBER_SHIFT) <= 64, "a block's words fit its presence bits");

typedef struct {
    uint64_t key;     /* the entry key with its low MEMBER_SHIFT bits cleared */
    uint64_t present; /* bit p: word p is stored */
    int64_t words[ENTRIES];
} block;

typedef struct {
    PyObject_HEAD
    Table index;    /* block key -> its place in blocks (a Table used as a struct, never seen by Python) */
    Table overflow; /* keys whose low bits are ENTRIES or more */
    block *blocks;
    Py_ssize_t used, room; /* blocks in use, blocks allocated */
    Py_ssize_t count;      /* words stored in blocks */
    uint64_t writes;
} Blocks;

static PyTypeObject BlocksType;

static inline uint64_t block_key(uint64_t key) { return key & ~(BLOCK_PARTS - 1); }
static inline unsigned block_part(uint64_t key) { return (unsigned)(key & (BLOCK_PARTS - 1)); }

/* The block holding key's block, or NULL. */
static inline block *blocks_find(const Blocks *b, uint64_t key) {
    Py_ssize_t at = table_find(&b->index, block_key(key));
    return at < 0 ? NULL : &b->blocks[value_at(&b->index, at)];
}

/* key's value in *value; 1 if stored, 0 if not. */
static inline int blocks_get(const Blocks *b, uint64_t key, int64_t *value) {
    unsigned part = block_part(key);
    if (part >= ENTRIES) {
        Py_ssize_t at = table_find(&b->overflow, key);
        if (at < 0) return 0;
        *value = value_at(&b->overflow, at);
        return 1;
    }
    const block *found = blocks_find(b, key);
    if (found == NULL || !((found->present >> part) & 1)) return 0;
    *value = found->words[part];
    return 1;
}

/* The block of block key bk, made (empty) if there is none: one probe of the index; NULL out of memory. */
static block *blocks_find_or_add(Blocks *b, uint64_t bk) {
    Py_ssize_t at = table_find(&b->index, bk);
    if (at >= 0) return &b->blocks[value_at(&b->index, at)];
    if (b->used == b->room) {
        Py_ssize_t room = b->room < 16 ? 16 : b->room + b->room / 2;
        block *grown = PyMem_RawRealloc(b->blocks, (size_t)room * sizeof(block));
        if (grown == NULL) return NULL;
        advise_huge(grown, (size_t)room * sizeof(block));
        b->blocks = grown;
        b->room = room;
    }
    /* Widening keeps every slot: the free one found above is still where the key goes. */
    if (!b->index.wide && b->used > INT32_MAX && table_widen(&b->index) < 0) return NULL;
    if (table_insert(&b->index, at, bk, b->used) < 0) return NULL;
    block *found = &b->blocks[b->used++];
    found->key = bk;
    found->present = 0;
    return found;
}

/* key -> value; -1 out of memory (nothing changed). */
static int blocks_put(Blocks *b, uint64_t key, int64_t value) {
    unsigned part = block_part(key);
    if (part >= ENTRIES) {
        if (table_put(&b->overflow, key, value) < 0) return -1;
        b->writes++;
        return 0;
    }
    block *found = blocks_find_or_add(b, block_key(key));
    if (found == NULL) return -1;
    if (!((found->present >> part) & 1)) b->count++;
    found->present |= (uint64_t)1 << part;
    found->words[part] = value;
    b->writes++;
    return 0;
}

/* Remove key; 1 if it was stored, 0 if not. */
static int blocks_remove(Blocks *b, uint64_t key) {
    unsigned part = block_part(key);
    if (part >= ENTRIES) {
        Py_ssize_t at = table_find(&b->overflow, key);
        if (at < 0) return 0;
        table_remove_at(&b->overflow, at);
        b->writes++;
        return 1;
    }
    Py_ssize_t at = table_find(&b->index, block_key(key));
    if (at < 0) return 0;
    Py_ssize_t place = (Py_ssize_t)value_at(&b->index, at);
    block *found = &b->blocks[place];
    if (!((found->present >> part) & 1)) return 0;
    found->present &= ~((uint64_t)1 << part);
    b->count--;
    b->writes++;
    if (found->present == 0) { /* the last block moves into the hole: the array stays dense */
        table_remove_at(&b->index, at);
        Py_ssize_t last = --b->used;
        if (place != last) {
            *found = b->blocks[last];
            store_value(&b->index, table_find(&b->index, found->key), place);
        }
    }
    return 1;
}

static void blocks_free(Blocks *b) {
    PyMem_RawFree(b->index.keys);
    PyMem_RawFree(b->index.values);
    PyMem_RawFree(b->index.used);
    PyMem_RawFree(b->overflow.keys);
    PyMem_RawFree(b->overflow.values);
    PyMem_RawFree(b->overflow.used);
    PyMem_RawFree(b->blocks);
    memset(&b->index, 0, sizeof b->index);
    memset(&b->overflow, 0, sizeof b->overflow);
    b->blocks = NULL;
    b->used = b->room = b->count = 0;
}

static Py_ssize_t blocks_length(Blocks *b) { return b->count + b->overflow.count; }

/* Every (key, value), blocks in order then the overflow in slot order: what to_arrays writes and a rebuild keeps. */
static void blocks_each(const Blocks *b, uint64_t *keys, int64_t *values) {
    Py_ssize_t n = 0;
    for (Py_ssize_t i = 0; i < b->used; i++)
        for (unsigned part = 0; part < ENTRIES; part++)
            if ((b->blocks[i].present >> part) & 1) {
                keys[n] = b->blocks[i].key | part;
                values[n++] = b->blocks[i].words[part];
            }
    for (Py_ssize_t i = 0; i < b->overflow.capacity; i++)
        if (slot_used(&b->overflow, i)) {
            keys[n] = key_at(&b->overflow, i);
            values[n++] = value_at(&b->overflow, i);
        }
}

static int blocks_get_one(PyObject *self, uint64_t key, int64_t *value) { return blocks_get((Blocks *)self, key, value); }
static int blocks_put_one(PyObject *self, uint64_t key, int64_t value) {
    if (blocks_put((Blocks *)self, key, value) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}
static int blocks_remove_one(PyObject *self, uint64_t key) { return blocks_remove((Blocks *)self, key); }

/*
 * In the given order: a file's blocks come back in the order they were saved.
 * A file has a block's words in a row, so they go straight into the block the
 * first one made: one index probe a member, not one a word (a million pages
 * reloaded in 3.0 s that way, in 1.15 s this way: benchmarks/memory_scale.py),
 * and the probe a block ahead asked for early.
 */
static int blocks_fill(PyObject *self, const void *keys, const void *values, int wide, Py_ssize_t n,
                       uint64_t *twice) {
    Blocks *b = (Blocks *)self;
    Py_ssize_t expect = n / ENTRIES + 1; /* room for the blocks a file of members needs, made once */
    block *room = PyMem_RawMalloc((size_t)expect * sizeof(block));
    if (room == NULL || table_resize(&b->index, capacity_for(expect)) < 0) {
        PyMem_RawFree(room);
        return -1;
    }
    advise_huge(room, (size_t)expect * sizeof(block));
    b->blocks = room;
    b->room = expect;
    block *current = NULL;
    Py_ssize_t i;
    for (i = 0; i < n; i++) {
        uint64_t key = buffer_u64(keys, i);
        int64_t value = wide ? buffer_i64(values, i) : (int64_t)buffer_i32(values, i);
        unsigned part = block_part(key);
        if (part >= ENTRIES) {
            if (table_find(&b->overflow, key) >= 0) break;
            if (blocks_put(b, key, value) < 0) return -1;
            continue;
        }
        if (current == NULL || current->key != block_key(key)) {
            /* The index is read at random (blocks come in the order they were made): ask early for a
               block two members on, so that its slot is in the cache when its turn comes. */
            if (i + 2 * ENTRIES < n) prefetch_home(&b->index, block_key(buffer_u64(keys, i + 2 * ENTRIES)));
            current = blocks_find_or_add(b, block_key(key));
            if (current == NULL) return -1;
        }
        if ((current->present >> part) & 1) break;
        current->present |= (uint64_t)1 << part;
        current->words[part] = value;
        b->count++;
    }
    if (i < n) { /* a key given twice */
        *twice = buffer_u64(keys, i);
        return 1;
    }
    b->writes = 0; /* built, not changed */
    return 0;
}

static const table_kind BLOCKS_KIND = {"Blocks", blocks_get_one, blocks_put_one, blocks_remove_one, blocks_fill};

/* -- the type ------------------------------------------------------------------ */

static PyObject *blocks_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    return kind_new(type, args, kwargs, &BLOCKS_KIND);
}

static void blocks_dealloc(Blocks *b) {
    blocks_free(b);
    Py_TYPE(b)->tp_free((PyObject *)b);
}

static PyObject *blocks_get_many(PyObject *b, PyObject *arg) { return kind_get_many(b, arg, &BLOCKS_KIND); }
static PyObject *blocks_put_many(PyObject *b, PyObject *arg) { return kind_put_many(b, arg, &BLOCKS_KIND); }
static PyObject *blocks_delete_many(PyObject *b, PyObject *arg) { return kind_delete_many(b, arg, &BLOCKS_KIND); }
static PyObject *blocks_get_py(PyObject *b, PyObject *const *args, Py_ssize_t nargs) {
    return kind_get(b, args, nargs, &BLOCKS_KIND);
}
static int blocks_contains(PyObject *b, PyObject *obj) { return kind_contains(b, obj, &BLOCKS_KIND); }
static PyObject *blocks_subscript(PyObject *b, PyObject *obj) { return kind_subscript(b, obj, &BLOCKS_KIND); }
static int blocks_ass_subscript(PyObject *b, PyObject *obj, PyObject *value) {
    return kind_ass_subscript(b, obj, value, &BLOCKS_KIND);
}

/* (keys, values) as two new C arrays of blocks_length entries; -1 on MemoryError. */
static int blocks_pairs(const Blocks *b, uint64_t **keys, int64_t **values) {
    size_t n = (size_t)blocks_length((Blocks *)b);
    *keys = PyMem_RawMalloc((n ? n : 1) * sizeof(uint64_t));
    *values = PyMem_RawMalloc((n ? n : 1) * sizeof(int64_t));
    if (*keys == NULL || *values == NULL) {
        PyMem_RawFree(*keys);
        PyMem_RawFree(*values);
        PyErr_NoMemory();
        return -1;
    }
    blocks_each(b, *keys, *values);
    return 0;
}

static PyObject *blocks_to_arrays(Blocks *b, PyObject *unused) {
    Py_ssize_t n = blocks_length(b);
    Py_buffer kv, vv;
    PyObject *keys = new_array("Q", n, &kv);
    if (keys == NULL) return NULL;
    PyObject *values = new_array("q", n, &vv);
    if (values == NULL) {
        PyBuffer_Release(&kv);
        Py_DECREF(keys);
        return NULL;
    }
    blocks_each(b, kv.buf, vv.buf);
    PyBuffer_Release(&kv);
    PyBuffer_Release(&vv);
    return Py_BuildValue("(NN)", keys, values);
}

/* keys(), values(), items() and iteration: over a snapshot (the table is small where this is used). */
static PyObject *blocks_listed(Blocks *b, int what) {
    uint64_t *keys;
    int64_t *values;
    if (blocks_pairs(b, &keys, &values) < 0) return NULL;
    Py_ssize_t n = blocks_length(b);
    PyObject *list = PyList_New(n);
    for (Py_ssize_t i = 0; list != NULL && i < n; i++) {
        PyObject *item = what == 0   ? PyLong_FromUnsignedLongLong(keys[i])
                         : what == 1 ? PyLong_FromLongLong(values[i])
                                     : Py_BuildValue("(NN)", PyLong_FromUnsignedLongLong(keys[i]),
                                                     PyLong_FromLongLong(values[i]));
        if (item == NULL) Py_CLEAR(list);
        else PyList_SET_ITEM(list, i, item);
    }
    PyMem_RawFree(keys);
    PyMem_RawFree(values);
    if (list == NULL) return NULL;
    PyObject *iter = PyObject_GetIter(list);
    Py_DECREF(list);
    return iter;
}

static PyObject *blocks_iter(Blocks *b) { return blocks_listed(b, 0); }
static PyObject *blocks_keys(Blocks *b, PyObject *unused) { return blocks_listed(b, 0); }
static PyObject *blocks_values(Blocks *b, PyObject *unused) { return blocks_listed(b, 1); }
static PyObject *blocks_items(Blocks *b, PyObject *unused) { return blocks_listed(b, 2); }

static PyObject *blocks_clear(Blocks *b, PyObject *unused) {
    blocks_free(b);
    b->writes++;
    Py_RETURN_NONE;
}

static size_t blocks_nbytes(const Blocks *b) {
    return table_nbytes(&b->index) + table_nbytes(&b->overflow) + (size_t)b->room * sizeof(block);
}

static PyObject *blocks_get_nbytes(Blocks *b, void *unused) { return PyLong_FromSize_t(blocks_nbytes(b)); }
static PyObject *blocks_get_capacity(Blocks *b, void *unused) {
    return PyLong_FromSsize_t(b->room * ENTRIES + b->overflow.capacity);
}
static PyObject *blocks_get_writes(Blocks *b, void *unused) { return PyLong_FromUnsignedLongLong(b->writes); }
static PyObject *blocks_sizeof(Blocks *b, PyObject *unused) {
    return PyLong_FromSize_t(sizeof(Blocks) + blocks_nbytes(b));
}

static PyMethodDef blocks_methods[] = {
    {"get_many", (PyCFunction)blocks_get_many, METH_O, "get_many(keys) -> list: each key's value, None where absent."},
    {"put_many", (PyCFunction)blocks_put_many, METH_O, "put_many(pairs): set key -> value for each (key, value)."},
    {"delete_many", (PyCFunction)blocks_delete_many, METH_O,
     "delete_many(keys) -> list: remove the keys; returns those that were there, in order."},
    {"get", (PyCFunction)(void (*)(void))blocks_get_py, METH_FASTCALL, "get(key, default=None)"},
    {"keys", (PyCFunction)blocks_keys, METH_NOARGS, "An iterator over the keys."},
    {"values", (PyCFunction)blocks_values, METH_NOARGS, "An iterator over the values."},
    {"items", (PyCFunction)blocks_items, METH_NOARGS, "An iterator over (key, value) pairs."},
    {"to_arrays", (PyCFunction)blocks_to_arrays, METH_NOARGS,
     "to_arrays() -> (array('Q') keys, array('q') values), what Blocks(keys, values) rebuilds."},
    {"clear", (PyCFunction)blocks_clear, METH_NOARGS, "Remove everything and free the room."},
    {"__sizeof__", (PyCFunction)blocks_sizeof, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef blocks_getset[] = {
    {"nbytes", (getter)blocks_get_nbytes, NULL, "Bytes the arrays take.", NULL},
    {"capacity", (getter)blocks_get_capacity, NULL, "Words there is room for without growing.", NULL},
    {"writes", (getter)blocks_get_writes, NULL, "Changes made since it was built (a value replaced counts).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMappingMethods blocks_mapping = {(lenfunc)blocks_length, (binaryfunc)blocks_subscript,
                                          (objobjargproc)blocks_ass_subscript};
static PySequenceMethods blocks_sequence = {.sq_contains = (objobjproc)blocks_contains};

static PyTypeObject BlocksType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "nshash._speedups.Blocks",
    .tp_doc = "Blocks(keys=None, values=None): a Table keeping each cluster member's sketch words in one block.",
    .tp_basicsize = sizeof(Blocks),
    .tp_dealloc = (destructor)blocks_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = blocks_new,
    .tp_methods = blocks_methods,
    .tp_getset = blocks_getset,
    .tp_as_mapping = &blocks_mapping,
    .tp_as_sequence = &blocks_sequence,
    .tp_iter = (getiterfunc)blocks_iter,
};
#endif
