/*
 * nshash._speedups.Table: unsigned 64-bit keys -> signed 64-bit values, for the memory store.
 *
 * A dict of ints costs ~100 bytes an entry (the entry, two int objects, the
 * spare room); this table keeps three flat arrays: keys, values, and one
 * occupancy bit a slot, so every key (0 and 2**64 - 1 too) is storable.
 * Open addressing with linear probing on the top bits of a 64-bit mix of the
 * key; deletion shifts the entries that follow back (no tombstones, so a
 * table that sees many deletions never slows down).  Values are kept as
 * 32-bit ints until one does not fit, then the whole column becomes 64-bit:
 * exact for every value, half the room for tables of ids.
 *
 * Every method converts all of its arguments before it changes anything, and
 * calls no Python code while it does: a failed call leaves the table as it
 * was (except MemoryError while growing), and a call is atomic under the GIL.
 */

#if defined(__linux__)
#include <sys/mman.h>
#endif

#define TABLE_MAX_LOAD_NUM 4 /* grows past 4/5 full */
#define TABLE_MAX_LOAD_DEN 5
#define TABLE_MIN_CAPACITY 64

typedef struct {
    PyObject_HEAD
    uint64_t *keys;
    void *values;   /* int32_t[capacity] until a value needs 64 bits, then int64_t[capacity] */
    uint64_t *used; /* one bit a slot */
    Py_ssize_t capacity; /* 0 (nothing allocated) or a power of two >= TABLE_MIN_CAPACITY */
    Py_ssize_t count;
    int shift; /* 64 - log2(capacity): a key's home slot is its mix's top bits */
    int wide;
    uint64_t version; /* changes on every insertion or deletion: iterators check it */
    uint64_t writes;  /* every change, a value replaced too: the memory store's "changed since saved" */
} Table;

static PyTypeObject TableType;

static inline int slot_used(const Table *t, Py_ssize_t i) { return (int)((t->used[i >> 6] >> (i & 63)) & 1); }
static inline void set_used(Table *t, Py_ssize_t i) { t->used[i >> 6] |= 1ULL << (i & 63); }
static inline void clear_used(Table *t, Py_ssize_t i) { t->used[i >> 6] &= ~(1ULL << (i & 63)); }
/* mix64 comes from _speedups.c, which includes this file after defining it. */
static inline Py_ssize_t home_slot(const Table *t, uint64_t key) { return (Py_ssize_t)(mix64(key) >> t->shift); }

static inline int64_t value_at(const Table *t, Py_ssize_t i) {
    return t->wide ? ((int64_t *)t->values)[i] : (int64_t)((int32_t *)t->values)[i];
}

/* The slot holding key, or -1 - (the empty slot where it would go). */
static Py_ssize_t table_find(const Table *t, uint64_t key) {
    if (t->capacity == 0) return -1;
    Py_ssize_t mask = t->capacity - 1, i = home_slot(t, key);
    while (slot_used(t, i)) {
        if (t->keys[i] == key) return i;
        i = (i + 1) & mask;
    }
    return -1 - i;
}

/* The lowest set bit of a nonzero word. */
static inline int lowest_bit(uint64_t word) {
#if defined(_MSC_VER)
    unsigned long at;
    _BitScanForward64(&at, word);
    return (int)at;
#else
    return __builtin_ctzll(word);
#endif
}

/* Ask for the cache lines where a lookup of key starts (a hint: no effect on the result). */
static inline void prefetch_home(const Table *t, uint64_t key) {
#if defined(__GNUC__) || defined(__clang__)
    if (t->capacity == 0) return;
    Py_ssize_t i = home_slot(t, key);
    __builtin_prefetch(&t->used[i >> 6]);
    __builtin_prefetch(&t->keys[i]);
#else
    (void)t;
    (void)key;
#endif
}

/* The first free slot at or after i, cyclically (a table is never full): whole words of the bitmap at a time. */
static Py_ssize_t first_free(const Table *t, Py_ssize_t i) {
    Py_ssize_t words = t->capacity >> 6, w = i >> 6;
    uint64_t free_bits = ~t->used[w] & (~(uint64_t)0 << (i & 63));
    while (free_bits == 0) {
        w = (w + 1) & (words - 1);
        free_bits = ~t->used[w];
    }
    return (w << 6) + lowest_bit(free_bits);
}

/*
 * The functions that change a table never touch Python objects (the fills run
 * without the GIL): out of memory they return -1 with the table unchanged,
 * and their callers raise MemoryError.
 */
static int table_widen(Table *t) {
    if (t->capacity) {
        int64_t *wide = PyMem_RawRealloc(t->values, (size_t)t->capacity * sizeof(int64_t));
        if (wide == NULL) return -1;
        const int32_t *narrow = (const int32_t *)wide;
        for (Py_ssize_t i = t->capacity - 1; i >= 0; i--) wide[i] = narrow[i]; /* from the top: in place */
        t->values = wide;
    }
    t->wide = 1;
    return 0;
}

static inline void store_value(Table *t, Py_ssize_t i, int64_t value) {
    if (t->wide) ((int64_t *)t->values)[i] = value;
    else ((int32_t *)t->values)[i] = (int32_t)value;
}

/*
 * Large columns in huge pages where the kernel offers them on request
 * (transparent huge pages in "madvise" mode): a table of millions of slots is
 * read at random, and with 4 KB pages nearly every lookup missed the TLB.
 */
static void advise_huge(void *start, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes < ((size_t)4 << 20)) return;
    uintptr_t page = 4096, from = ((uintptr_t)start + page - 1) & ~(page - 1);
    uintptr_t to = ((uintptr_t)start + bytes) & ~(page - 1);
    (void)madvise((void *)from, (size_t)(to - from), MADV_HUGEPAGE); /* advice: a refusal changes nothing */
#else
    (void)start;
    (void)bytes;
#endif
}

/* Room for capacity slots (a power of two); the entries are moved over in slot order. */
static int table_resize(Table *t, Py_ssize_t capacity) {
    size_t words = (size_t)capacity / 64, width = t->wide ? sizeof(int64_t) : sizeof(int32_t);
    uint64_t *keys = PyMem_RawMalloc((size_t)capacity * sizeof(uint64_t));
    void *values = PyMem_RawMalloc((size_t)capacity * width);
    uint64_t *used = PyMem_RawCalloc(words, sizeof(uint64_t));
    if (keys == NULL || values == NULL || used == NULL) {
        PyMem_RawFree(keys);
        PyMem_RawFree(values);
        PyMem_RawFree(used);
        return -1;
    }
    advise_huge(keys, (size_t)capacity * sizeof(uint64_t));
    advise_huge(values, (size_t)capacity * width);
    advise_huge(used, words * sizeof(uint64_t));
    Table old = *t;
    t->keys = keys;
    t->values = values;
    t->used = used;
    t->capacity = capacity;
    int bits = 0;
    while (((Py_ssize_t)1 << bits) < capacity) bits++;
    t->shift = 64 - bits;
    for (Py_ssize_t i = 0; i < old.capacity; i++) {
        if (!slot_used(&old, i)) continue;
        Py_ssize_t at = -1 - table_find(t, old.keys[i]);
        set_used(t, at);
        t->keys[at] = old.keys[i];
        store_value(t, at, value_at(&old, i));
    }
    PyMem_RawFree(old.keys);
    PyMem_RawFree(old.values);
    PyMem_RawFree(old.used);
    return 0;
}

static Py_ssize_t capacity_for(Py_ssize_t count) {
    Py_ssize_t capacity = TABLE_MIN_CAPACITY;
    while (count * TABLE_MAX_LOAD_DEN > capacity * TABLE_MAX_LOAD_NUM) capacity *= 2;
    return capacity;
}

/* An absent key -> value (``at``: what table_find returned for it; the table holds the value's width),
   the table grown first if one more key would pass its load factor; 1, or -1 out of memory (unchanged). */
static int table_insert(Table *t, Py_ssize_t at, uint64_t key, int64_t value) {
    if ((t->count + 1) * TABLE_MAX_LOAD_DEN > t->capacity * TABLE_MAX_LOAD_NUM) {
        if (table_resize(t, capacity_for(t->count + 1)) < 0) return -1;
        at = table_find(t, key);
    }
    at = -1 - at;
    set_used(t, at);
    t->keys[at] = key;
    store_value(t, at, value);
    t->count++;
    t->version++;
    return 1;
}

/* key -> value; 1 if the key is new, 0 if it was replaced, -1 out of memory (the table unchanged). */
static int table_put(Table *t, uint64_t key, int64_t value) {
    if (!t->wide && (value < INT32_MIN || value > INT32_MAX) && table_widen(t) < 0) return -1;
    Py_ssize_t at = table_find(t, key);
    t->writes++;
    if (at >= 0) {
        store_value(t, at, value);
        return 0;
    }
    return table_insert(t, at, key, value);
}

/* Remove the entry at slot i, shifting back the entries of its run that may move (no tombstones). */
static void table_remove_at(Table *t, Py_ssize_t i) {
    Py_ssize_t mask = t->capacity - 1, j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (!slot_used(t, j)) break;
        Py_ssize_t home = home_slot(t, t->keys[j]);
        /* The entry at j may fill the hole at i unless its home lies cyclically in (i, j]. */
        int stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
        if (stays) continue;
        t->keys[i] = t->keys[j];
        store_value(t, i, value_at(t, j));
        i = j;
    }
    clear_used(t, i);
    t->count--;
    t->version++;
    t->writes++;
}

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

/* What the Python methods need of a kind of table: Table here, Blocks in _blocks.h. */
typedef struct {
    const char *name;
    int (*get)(PyObject *self, uint64_t key, int64_t *value); /* 1 and *value if stored, 0 if not */
    int (*put)(PyObject *self, uint64_t key, int64_t value);  /* -1 on MemoryError (nothing changed) */
    int (*remove)(PyObject *self, uint64_t key);              /* 1 if it was stored, 0 if not */
    /* n pairs (values 64-bit if wide, else 32-bit) into the empty table, without the GIL (no Python
       object touched): 0, -1 out of memory, 1 for a key given twice (in *twice) */
    int (*fill)(PyObject *self, const uint64_t *keys, const void *values, int wide, Py_ssize_t n, uint64_t *twice);
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

/* -- the type ------------------------------------------------------------------ */

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
static int table_fill(PyObject *self, const uint64_t *keys, const void *values, int wide, Py_ssize_t n,
                      uint64_t *twice) {
    Table *t = (Table *)self;
    t->wide = 0;
    for (Py_ssize_t i = 0; wide && !t->wide && i < n; i++) {
        int64_t v = ((const int64_t *)values)[i];
        t->wide = v < INT32_MIN || v > INT32_MAX;
    }
    if (n && table_resize(t, capacity_for(n)) < 0) return -1;
    Py_ssize_t mask = t->capacity - 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        /* Every stored key a lookup of keys[i] would meet lies between its home and the first free slot. */
        Py_ssize_t home = home_slot(t, keys[i]), at = first_free(t, home);
        for (Py_ssize_t j = home; j != at; j = (j + 1) & mask) {
            if (t->keys[j] == keys[i]) {
                *twice = keys[i];
                return 1;
            }
        }
        set_used(t, at);
        t->keys[at] = keys[i];
        store_value(t, at, wide ? ((const int64_t *)values)[i] : (int64_t)((const int32_t *)values)[i]);
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
        k[n] = t->keys[i];
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
    t->wide = 0;
    t->version++;
    t->writes++;
    Py_RETURN_NONE;
}

static size_t table_nbytes(const Table *t) {
    return (size_t)t->capacity * (sizeof(uint64_t) + (t->wide ? 8 : 4)) + (size_t)t->capacity / 8;
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
    if (it->what == 0) return PyLong_FromUnsignedLongLong(t->keys[i]);
    if (it->what == 1) return PyLong_FromLongLong(value_at(t, i));
    return Py_BuildValue("(NN)", PyLong_FromUnsignedLongLong(t->keys[i]), PyLong_FromLongLong(value_at(t, i)));
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
