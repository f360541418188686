/*
 * nshash/_assign.h: NSHash._assign in C, for a store whose tables are dicts
 * of this process (HashDB.local_tables(): the memory store).
 *
 * It leaves the dicts exactly as the Python method does (the same entries,
 * sharing the same id objects), and returns the same ids; the Python is the
 * specification, and tests/test_speedups.py runs both on the same document
 * streams and compares every id and every table.  The caller holds the
 * store's transaction.
 * Included by _speedups.c only.
 */
#ifndef NSHASH_ASSIGN_H
#define NSHASH_ASSIGN_H
#include <Python.h>
#include <stdint.h>

typedef struct {
    PyObject *fp, *parent, *stat; /* the store's dicts: key int -> value int */
    PyObject *allocate;           /* store.allocate_id */
    Py_ssize_t n, min_match, boilerplate_after;
    int boilerplate;
} Tables;

/* 1 and *out = value (*obj: the value object, borrowed) if `key` is in `dict`, 0 if not, -1 on error. */
static int dict_get_obj(PyObject *dict, PyObject *key, uint64_t *out, PyObject **obj) {
    PyObject *value = PyDict_GetItemWithError(dict, key); /* borrowed */
    if (value == NULL) return PyErr_Occurred() ? -1 : 0;
    *out = PyLong_AsUnsignedLongLong(value);
    *obj = value;
    return *out == (uint64_t)-1 && PyErr_Occurred() ? -1 : 1;
}

static int dict_get(PyObject *dict, PyObject *key, uint64_t *out) {
    PyObject *unused;
    return dict_get_obj(dict, key, out, &unused);
}

static int dict_get_u64(PyObject *dict, uint64_t key, uint64_t *out, PyObject **value_obj) {
    PyObject *obj = PyLong_FromUnsignedLongLong(key);
    if (obj == NULL) return -1;
    int rc = dict_get_obj(dict, obj, out, value_obj);
    Py_DECREF(obj);
    return rc;
}

static int dict_set_u64(PyObject *dict, PyObject *key, uint64_t value) {
    PyObject *obj = PyLong_FromUnsignedLongLong(value);
    if (obj == NULL) return -1;
    int rc = PyDict_SetItem(dict, key, obj);
    Py_DECREF(obj);
    return rc;
}

/* A new cluster id from the store, as int(view.allocate_id()). */
static PyObject *allocate_id(const Tables *t, uint64_t *id) {
    PyObject *raw = PyObject_CallNoArgs(t->allocate);
    if (raw == NULL) return NULL;
    PyObject *result = PyNumber_Long(raw);
    Py_DECREF(raw);
    if (result == NULL) return NULL;
    *id = PyLong_AsUnsignedLongLong(result);
    if (*id == (uint64_t)-1 && PyErr_Occurred()) {
        Py_DECREF(result);
        return NULL;
    }
    return result;
}

/*
 * Id objects met in this document's lookups, so that what it writes shares
 * them as the Python does (a cluster id is one int object, not one per
 * document that joined it: at a million documents that is 8 bytes a key).
 */
typedef struct {
    uint64_t id;
    PyObject *obj; /* owned */
} Known;

/* Scratch arrays for one document of m sentences. */
typedef struct {
    PyObject **key_objs; /* 2m: the keys as ints, for the dicts */
    uint64_t *values;    /* 2m: value in fp (valid where found) */
    unsigned char *found;
    Py_ssize_t *kept;    /* m: indexes of the sentences that count */
    uint64_t *clusters;  /* m: canonical cluster of each kept sentence, 0 = none */
    uint64_t *votes_id;  /* m: clusters in order of first vote */
    Py_ssize_t *votes;   /* m */
    uint64_t *winners;   /* m */
    Py_ssize_t *suspects; /* 2m: key indexes */
    uint64_t *counts;    /* 2m */
    Known *known;        /* 4m */
    Py_ssize_t n_known, known_cap;
} Scratch;

static void remember(Scratch *s, uint64_t id, PyObject *obj) {
    for (Py_ssize_t i = 0; i < s->n_known; i++)
        if (s->known[i].id == id) return;
    if (s->n_known == s->known_cap) return; /* a new object then: the same value, only bigger */
    Py_INCREF(obj);
    s->known[s->n_known].id = id;
    s->known[s->n_known++].obj = obj;
}

/* A new reference to an int object of value id, shared where one was met. */
static PyObject *id_object(const Scratch *s, uint64_t id) {
    for (Py_ssize_t i = 0; i < s->n_known; i++) {
        if (s->known[i].id == id) {
            Py_INCREF(s->known[i].obj);
            return s->known[i].obj;
        }
    }
    return PyLong_FromUnsignedLongLong(id);
}

static int set_parent(PyObject *parent, Scratch *s, uint64_t key, uint64_t value) {
    PyObject *key_obj = id_object(s, key), *value_obj = id_object(s, value);
    int rc = key_obj == NULL || value_obj == NULL ? -1 : PyDict_SetItem(parent, key_obj, value_obj);
    Py_XDECREF(key_obj);
    Py_XDECREF(value_obj);
    return rc;
}

/* clusters.find_roots for one id: its canonical id, compressing a chain longer than one step. */
static int find_root(PyObject *parent, Scratch *s, uint64_t id, uint64_t *root) {
    uint64_t node, above, next;
    PyObject *obj;
    int rc = dict_get_u64(parent, id, &node, &obj);
    if (rc <= 0) {
        *root = id;
        return rc;
    }
    remember(s, node, obj);
    int long_chain = 0;
    while ((rc = dict_get_u64(parent, node, &above, &obj)) == 1) {
        remember(s, above, obj);
        node = above;
        long_chain = 1;
    }
    if (rc < 0) return -1;
    *root = node;
    for (uint64_t member = id; long_chain && member != node; member = next) {
        if (dict_get_u64(parent, member, &next, &obj) < 0 || set_parent(parent, s, member, node) < 0) return -1;
    }
    return 0;
}

static int contains(const uint64_t *ids, Py_ssize_t count, uint64_t id) {
    for (Py_ssize_t i = 0; i < count; i++)
        if (ids[i] == id) return 1;
    return 0;
}

/* _collect_evidence: count evidence that sentences are boilerplate; mark those with enough. */
static int collect_evidence(const Tables *t, Scratch *s, Py_ssize_t n_kept, const Py_ssize_t *positions,
                            Py_ssize_t n_winners, int has_span, Py_ssize_t span0, Py_ssize_t span1) {
    Py_ssize_t i, n_new = 0, last_new = 0, n_suspects = 0;
    int all_joined = 1;
    for (i = 0; i < n_kept; i++) {
        Py_ssize_t pos = positions[s->kept[i]];
        if (s->clusters[i] == 0) {
            if (n_new == 0 || pos > last_new) last_new = pos;
            n_new++;
        } else if (!contains(s->winners, n_winners, s->clusters[i])) {
            all_joined = 0;
        }
    }
    int has_last_new = n_new >= 2;
    if (!has_last_new && all_joined) return 0; /* nothing suspicious: the common case for a reprint */
    for (i = 0; i < n_kept; i++) {
        Py_ssize_t sentence = s->kept[i], pos = positions[sentence];
        if (s->clusters[i] == 0) continue;
        if (contains(s->winners, n_winners, s->clusters[i])) {
            if (!has_last_new || pos <= last_new) continue;
        } else if (has_span && span0 <= pos && pos <= span1) {
            continue;
        }
        s->suspects[n_suspects++] = 2 * sentence;
        s->suspects[n_suspects++] = 2 * sentence + 1;
    }
    /* Every count is read before any is written, as the Python does (a key may be a suspect twice). */
    for (i = 0; i < n_suspects; i++) {
        int rc = dict_get(t->stat, s->key_objs[s->suspects[i]], &s->counts[i]);
        if (rc < 0) return -1;
        if (rc == 0) s->counts[i] = 0;
    }
    for (i = 0; i < n_suspects; i++)
        if (dict_set_u64(t->stat, s->key_objs[s->suspects[i]], s->counts[i] + 1) < 0) return -1;
    for (i = 0; i < n_suspects; i++) {
        if ((Py_ssize_t)(s->counts[i] + 1) >= t->boilerplate_after &&
            dict_set_u64(t->fp, s->key_objs[s->suspects[i]], 0) < 0)
            return -1;
    }
    return 0;
}

static int by_id(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The body of NSHash._assign once keys are looked up (see there for the why of each step). */
static PyObject *decide(const Tables *t, Scratch *s, Py_ssize_t m, const Py_ssize_t *positions) {
    Py_ssize_t i, j, n_kept = 0, n_votes = 0, n_winners = 0, span0 = 0, span1 = 0;
    uint64_t target = 0;
    PyObject *target_obj = NULL;
    int any_boilerplate = 0, any_match = 0, has_span = 0;

    if (t->boilerplate)
        for (j = 0; j < 2 * m; j++) any_boilerplate |= s->found[j] && s->values[j] == 0;
    for (i = 0; i < m && n_kept < t->n; i++) {
        if (any_boilerplate && ((s->found[2 * i] && s->values[2 * i] == 0) ||
                                (s->found[2 * i + 1] && s->values[2 * i + 1] == 0)))
            continue;
        s->kept[n_kept++] = i;
    }
    /* A sentence matches through its head or, when an edit spoiled that, its tail. */
    for (i = 0; i < n_kept; i++) {
        Py_ssize_t h = 2 * s->kept[i], tl = h + 1;
        s->clusters[i] = s->found[h] && s->values[h] ? s->values[h] : s->found[tl] ? s->values[tl] : 0;
        any_match |= s->clusters[i] != 0;
    }
    if (!any_match) { /* an article never seen before */
        target_obj = allocate_id(t, &target);
        if (target_obj == NULL) return NULL;
        for (i = 0; i < n_kept; i++)
            for (j = 2 * s->kept[i]; j < 2 * s->kept[i] + 2; j++)
                if (PyDict_SetItem(t->fp, s->key_objs[j], target_obj) < 0) goto error;
        return target_obj;
    }
    for (i = 0; i < n_kept; i++) {
        if (s->clusters[i] == 0) continue;
        /* An id met before in this document has its root already. */
        for (j = 0; j < i && s->clusters[j] != s->clusters[i]; j++) {
        }
        if (j == i) {
            uint64_t root, id = s->clusters[i];
            if (find_root(t->parent, s, id, &root) < 0) return NULL;
            for (j = i; j < n_kept; j++)
                if (s->clusters[j] == id) s->clusters[j] = root;
        }
    }
    for (i = 0; i < n_kept; i++) {
        if (s->clusters[i] == 0) continue;
        for (j = 0; j < n_votes && s->votes_id[j] != s->clusters[i]; j++) {
        }
        if (j == n_votes) {
            s->votes_id[n_votes] = s->clusters[i];
            s->votes[n_votes++] = 0;
        }
        s->votes[j]++;
    }
    Py_ssize_t need = n_kept > t->min_match ? t->min_match : 1, top = 0;
    for (j = 0; j < n_votes; j++)
        if (s->votes[j] > top) top = s->votes[j];
    if (top >= need) {
        uint64_t best = 0;
        for (j = 0; j < n_votes; j++)
            if (s->votes[j] == top && (best == 0 || s->votes_id[j] < best)) best = s->votes_id[j];
        for (i = 0; i < n_kept; i++) {
            Py_ssize_t pos = positions[s->kept[i]];
            if (s->clusters[i] != best) continue;
            if (!has_span || pos < span0) span0 = pos;
            if (!has_span || pos > span1) span1 = pos;
            has_span = 1;
        }
        s->winners[n_winners++] = best;
        /* A cluster matched inside the same stretch of text is the same
         * article (an earlier miss): merge.  One matched only around it
         * shares a header or footer: it gets boilerplate evidence instead. */
        for (j = 0; j < n_votes; j++) {
            if (s->votes_id[j] == best || s->votes[j] < need) continue;
            for (i = 0; i < n_kept; i++) {
                Py_ssize_t pos = positions[s->kept[i]];
                if (s->clusters[i] == s->votes_id[j] && span0 < pos && pos < span1) {
                    s->winners[n_winners++] = s->votes_id[j];
                    break;
                }
            }
        }
        /* clusters.merge: everything points to the smallest id. */
        uint64_t *ordered = s->counts; /* free until collect_evidence */
        memcpy(ordered, s->winners, sizeof(uint64_t) * (size_t)n_winners);
        qsort(ordered, (size_t)n_winners, sizeof(uint64_t), by_id);
        target = ordered[0];
        for (j = 1; j < n_winners; j++)
            if (set_parent(t->parent, s, ordered[j], target) < 0) return NULL;
        target_obj = id_object(s, target);
    } else {
        target_obj = allocate_id(t, &target);
    }
    if (target_obj == NULL) return NULL;
    /* Keys not stored yet, including the new tail of a sentence matched by its head. */
    for (i = 0; i < n_kept; i++)
        for (j = 2 * s->kept[i]; j < 2 * s->kept[i] + 2; j++)
            if (!s->found[j] && PyDict_SetItem(t->fp, s->key_objs[j], target_obj) < 0) goto error;
    if (t->boilerplate && collect_evidence(t, s, n_kept, positions, n_winners, has_span, span0, span1) < 0)
        goto error;
    return target_obj;
error:
    Py_DECREF(target_obj);
    return NULL;
}

/* NSHash._assign(store, Features(keys, positions)): the id of a document of m keyed sentences. */
static PyObject *assign_keys(const Tables *t, const uint64_t *keys, const Py_ssize_t *positions, Py_ssize_t m) {
    uint64_t unused;
    if (m == 0) return allocate_id(t, &unused);
    enum { LOCAL = 32 };
    PyObject *key_objs_l[2 * LOCAL];
    uint64_t values_l[2 * LOCAL], clusters_l[LOCAL], votes_id_l[LOCAL], winners_l[LOCAL], counts_l[2 * LOCAL];
    unsigned char found_l[2 * LOCAL];
    Py_ssize_t kept_l[LOCAL], votes_l[LOCAL], suspects_l[2 * LOCAL];
    Known known_l[4 * LOCAL];
    Scratch s = {key_objs_l, values_l,  found_l, kept_l, clusters_l, votes_id_l, votes_l, winners_l, suspects_l,
                 counts_l,   known_l,   0,       4 * (m > LOCAL ? m : LOCAL)};
    void *heap = NULL;
    PyObject *result = NULL;
    Py_ssize_t j, made = 0;
    if (m > LOCAL) {
        size_t per = 2 * (sizeof(PyObject *) + 2 * sizeof(uint64_t) + 1 + sizeof(Py_ssize_t)) +
                     3 * sizeof(uint64_t) + 2 * sizeof(Py_ssize_t) + 4 * sizeof(Known);
        char *p = heap = PyMem_Malloc(per * (size_t)m);
        if (heap == NULL) return PyErr_NoMemory();
        s.known = (Known *)p, p += sizeof(Known) * 4 * m;
        s.key_objs = (PyObject **)p, p += sizeof(PyObject *) * 2 * m;
        s.values = (uint64_t *)p, p += sizeof(uint64_t) * 2 * m;
        s.counts = (uint64_t *)p, p += sizeof(uint64_t) * 2 * m;
        s.clusters = (uint64_t *)p, p += sizeof(uint64_t) * m;
        s.votes_id = (uint64_t *)p, p += sizeof(uint64_t) * m;
        s.winners = (uint64_t *)p, p += sizeof(uint64_t) * m;
        s.suspects = (Py_ssize_t *)p, p += sizeof(Py_ssize_t) * 2 * m;
        s.kept = (Py_ssize_t *)p, p += sizeof(Py_ssize_t) * m;
        s.votes = (Py_ssize_t *)p, p += sizeof(Py_ssize_t) * m;
        s.found = (unsigned char *)p;
    }
    for (made = 0; made < 2 * m; made++) {
        s.key_objs[made] = PyLong_FromUnsignedLongLong(keys[made]);
        if (s.key_objs[made] == NULL) goto done;
        PyObject *value_obj;
        int rc = dict_get_obj(t->fp, s.key_objs[made], &s.values[made], &value_obj);
        if (rc < 0) {
            made++;
            goto done;
        }
        s.found[made] = (unsigned char)rc;
        if (rc) remember(&s, s.values[made], value_obj);
    }
    result = decide(t, &s, m, positions);
done:
    for (j = 0; j < made; j++) Py_XDECREF(s.key_objs[j]);
    for (j = 0; j < s.n_known; j++) Py_DECREF(s.known[j].obj);
    PyMem_Free(heap);
    return result;
}

#endif
