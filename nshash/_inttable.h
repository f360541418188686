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
 * exact for every value, half the room for tables of ids.  Keys likewise: the
 * `line` table's keys are 32-bit line keys, and a slot of two 32-bit columns
 * takes 8 bytes where it took 12.
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
    void *keys;     /* uint32_t[capacity] until a key needs 64 bits, then uint64_t[capacity] */
    void *values;   /* int32_t[capacity] until a value needs 64 bits, then int64_t[capacity] */
    uint64_t *used; /* one bit a slot */
    Py_ssize_t capacity; /* 0 (nothing allocated) or a power of two >= TABLE_MIN_CAPACITY */
    Py_ssize_t count;
    int shift; /* 64 - log2(capacity): a key's home slot is its mix's top bits */
    int wide;
    int wide_keys;
    uint64_t version; /* changes on every insertion or deletion: iterators check it */
    uint64_t writes;  /* every change, a value replaced too: the memory store's "changed since saved" */
} Table;

static PyTypeObject TableType;

static inline int slot_used(const Table *t, Py_ssize_t i) { return (int)((t->used[i >> 6] >> (i & 63)) & 1); }
static inline void set_used(Table *t, Py_ssize_t i) { t->used[i >> 6] |= 1ULL << (i & 63); }
static inline void clear_used(Table *t, Py_ssize_t i) { t->used[i >> 6] &= ~(1ULL << (i & 63)); }
/* mix64 comes from _speedups.c, which includes this file after defining it. */
static inline Py_ssize_t home_slot(const Table *t, uint64_t key) { return (Py_ssize_t)(mix64(key) >> t->shift); }

static inline uint64_t key_at(const Table *t, Py_ssize_t i) {
    return t->wide_keys ? ((const uint64_t *)t->keys)[i] : (uint64_t)((const uint32_t *)t->keys)[i];
}

static inline void store_key(Table *t, Py_ssize_t i, uint64_t key) {
    if (t->wide_keys) ((uint64_t *)t->keys)[i] = key;
    else ((uint32_t *)t->keys)[i] = (uint32_t)key;
}

static inline size_t key_width(const Table *t) { return t->wide_keys ? sizeof(uint64_t) : sizeof(uint32_t); }

static inline int64_t value_at(const Table *t, Py_ssize_t i) {
    return t->wide ? ((int64_t *)t->values)[i] : (int64_t)((int32_t *)t->values)[i];
}

/* The slot holding key, or -1 - (the empty slot where it would go). */
static Py_ssize_t table_find(const Table *t, uint64_t key) {
    if (t->capacity == 0) return -1;
    Py_ssize_t mask = t->capacity - 1, i = home_slot(t, key);
    if (t->wide_keys) {
        const uint64_t *keys = t->keys;
        while (slot_used(t, i)) {
            if (keys[i] == key) return i;
            i = (i + 1) & mask;
        }
    } else { /* a key past 32 bits is in no narrow column: its probe ends at the free slot where it would go */
        const uint32_t *keys = t->keys;
        int fits = key <= UINT32_MAX;
        while (slot_used(t, i)) {
            if (fits && keys[i] == (uint32_t)key) return i;
            i = (i + 1) & mask;
        }
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
    __builtin_prefetch((const char *)t->keys + (size_t)i * key_width(t));
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
/* A column of capacity 32-bit ints made 64-bit where it is (values sign-extended, keys not): no slot moves,
   so what table_find returned stays right; -1 out of memory, the column unchanged. */
static int widen_column(void **column, Py_ssize_t capacity, int is_signed) {
    if (capacity == 0) return 0;
    void *wide = PyMem_RawRealloc(*column, (size_t)capacity * 8);
    if (wide == NULL) return -1;
    char *bytes = wide;
    for (Py_ssize_t i = capacity - 1; i >= 0; i--) { /* from the top: in place; memcpy, as the two widths alias */
        uint32_t narrow;
        memcpy(&narrow, bytes + 4 * i, 4);
        uint64_t value = is_signed ? (uint64_t)(int64_t)(int32_t)narrow : (uint64_t)narrow;
        memcpy(bytes + 8 * i, &value, 8);
    }
    *column = wide;
    return 0;
}

static int table_widen(Table *t) {
    if (widen_column(&t->values, t->capacity, 1) < 0) return -1;
    t->wide = 1;
    return 0;
}

static int table_widen_keys(Table *t) {
    if (widen_column(&t->keys, t->capacity, 0) < 0) return -1;
    t->wide_keys = 1;
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
    void *keys = PyMem_RawMalloc((size_t)capacity * key_width(t));
    void *values = PyMem_RawMalloc((size_t)capacity * width);
    uint64_t *used = PyMem_RawCalloc(words, sizeof(uint64_t));
    if (keys == NULL || values == NULL || used == NULL) {
        PyMem_RawFree(keys);
        PyMem_RawFree(values);
        PyMem_RawFree(used);
        return -1;
    }
    advise_huge(keys, (size_t)capacity * key_width(t));
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
        uint64_t key = key_at(&old, i);
        Py_ssize_t at = -1 - table_find(t, key);
        set_used(t, at);
        store_key(t, at, key);
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
    if (!t->wide_keys && key > UINT32_MAX && table_widen_keys(t) < 0) return -1;
    if ((t->count + 1) * TABLE_MAX_LOAD_DEN > t->capacity * TABLE_MAX_LOAD_NUM) {
        if (table_resize(t, capacity_for(t->count + 1)) < 0) return -1;
        at = table_find(t, key);
    }
    at = -1 - at;
    set_used(t, at);
    store_key(t, at, key);
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
        Py_ssize_t home = home_slot(t, key_at(t, j));
        /* The entry at j may fill the hole at i unless its home lies cyclically in (i, j]. */
        int stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
        if (stays) continue;
        store_key(t, i, key_at(t, j));
        store_value(t, i, value_at(t, j));
        i = j;
    }
    clear_used(t, i);
    t->count--;
    t->version++;
    t->writes++;
}
