/*
 * nshash._speedups: nshash's hot paths in C, optional.
 *
 *   sketch(text) -> (grams, slots)
 *       nshash.sketch.sketch_python's result as a tuple: the number of
 *       character 5-grams and one byte per slot.
 *   features(text, split, normalize, chrome, fold, k, min_len, anchor, anchor_latin)
 *       -> (keys, positions, doc_key, grams, slots, line_keys, line_grams, whole, line_ends, site_keys, flat,
 *           pieces) | None
 *       (line_keys, line_grams, line_ends: array('I'), see Fingerprinter._lines; site_keys, pieces: array('I'))
 *       nshash.fingerprint.Fingerprinter.features_python's result for
 *       hashfunc 'farmhash' (split: 0 'default', 1 'design', 2 'original';
 *       k = n + extra; normalize 2: normalize a text whose JSON escapes and misread bytes Python has read
 *       again, encoding.repair_mojibake(escaped.unescape_json(text))), in one call.  None when the document needs what the
 *       C does not reproduce (a few re.IGNORECASE cases): Python computes it
 *       then.  Rare entities go through html.unescape, called from the C.
 *   tables() -> dict: the tables the C holds, for the test against nshash.text.
 *   verify(line_keys, line_grams, grams, slots, entries, clusters, members, whole, line_ends, known, site_keys,
 *          flat, pieces) -> [(score, members found)]: nshash.verify.verify_score of a document
 *       against each cluster's stored members (_verify.h, over _member.h,
 *       _estimate.h and _frame.h).
 *   member_entries(line_keys, line_grams, grams, slots, site_keys, pieces, flat) -> list: members.stored_form
 *       of a document.
 *   entry_keys(clusters, members) -> list | None: members.entry_keys of each.
 *   assign(tables, pending, features, options, allocate_id) -> (similar_id, is_new, score, matched) | None
 *       nshash.decide.assign on the memory store's C tables, or on a cache
 *       read through a store's view (tables ending with a fetch callable), in
 *       one call (_assign.h); None for the rare turns Python takes.
 *   similar(text, features_args, tables, pending, options, allocate_id) -> (match, features)
 *       features then assign, one call a page (nshash.native.similar_native).
 *   Blocks: a Table keeping each cluster member's sketch words together, the
 *       memory store's `sketch` table (_blocks.h).
 *   Table: unsigned 64-bit keys -> signed 64-bit values in flat arrays, the
 *       memory store's tables (_inttable.h; its methods _table_methods.h,
 *       _table_type.h).
 *
 * The Python functions are the specification; tests compare the two.  The
 * constants and tables come from the Python modules through
 * _speedups_constants.h and _speedups_tables.h, which setup.py writes.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* The i-th number of a buffer Python handed in, which need not be aligned: a store file's arrays are
   views of the mapped file at whatever offset the pickle before them ends (memcpy compiles to one load). */
static inline uint64_t buffer_u64(const void *buf, Py_ssize_t i) {
    uint64_t v;
    memcpy(&v, (const char *)buf + 8 * i, 8);
    return v;
}
static inline int64_t buffer_i64(const void *buf, Py_ssize_t i) { return (int64_t)buffer_u64(buf, i); }
static inline uint32_t buffer_u32(const void *buf, Py_ssize_t i) {
    uint32_t v;
    memcpy(&v, (const char *)buf + 4 * i, 4);
    return v;
}
static inline int32_t buffer_i32(const void *buf, Py_ssize_t i) { return (int32_t)buffer_u32(buf, i); }

#include "_speedups_constants.h"

/* nshash.features.mix64: the 64-bit finaliser of MurmurHash3 (also the tables' slot hash). */
static inline uint64_t mix64(uint64_t v) {
    v ^= v >> 33;
    v *= 0xFF51AFD7ED558CCDULL;
    v ^= v >> 33;
    v *= 0xC4CEB9FE1A85EC53ULL;
    return v ^ (v >> 33);
}

#include "_sketch.h"
#include "_chrome.h"
#include "_fold.h"
#include "_linebreaks.h"
#include "_markup.h"
#include "_mojibake.h"
#include "_sentences.h"
#include "_member.h"
#include "_estimate.h"
#include "_frame.h"
#include "_verify.h"
#include "_bodies.h"

#include "_inttable.h"
#include "_table_methods.h"
#include "_table_type.h"
#include "_blocks.h"
#include "_keyfilter.h"
#include "_assign.h"
#include "_packed.h"

static PyObject *html_unescape; /* html.unescape, what text.strip_html calls on rare entities */

typedef struct {
    int split, normalize, chrome, fold, k, anchor, anchor_latin;
    Py_ssize_t min_len;
} options;

/* The options as Fingerprinter passes them, checked: buffers are sized from k. */
static int parse_options(PyObject *const *args, Py_ssize_t nargs, options *o) {
    long v[8];
    static const long low[8] = {0, 0, 0, 0, 1, 1, 0, 0}, high[8] = {2, 2, 1, 1, 128, 1000000, 100000, 100000};
    if (nargs != 9 || !PyUnicode_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError,
                        "features(text, split, normalize, chrome, fold, k, min_len, anchor, anchor_latin) takes a str "
                        "and 8 ints");
        return -1;
    }
    for (int i = 0; i < 8; i++) {
        v[i] = PyLong_AsLong(args[i + 1]);
        if (v[i] == -1 && PyErr_Occurred()) return -1;
        if (v[i] < low[i] || v[i] > high[i]) {
            PyErr_Format(PyExc_ValueError, "features(): argument %d must be from %ld to %ld", i + 2, low[i], high[i]);
            return -1;
        }
    }
    *o = (options){(int)v[0], (int)v[1], (int)v[2], (int)v[3], (int)v[4], (int)v[6], (int)v[7], v[5]};
    return 0;
}

static PyObject *list_of_keys(const uint64_t *keys, Py_ssize_t n) {
    PyObject *list = PyList_New(n);
    for (Py_ssize_t i = 0; list != NULL && i < n; i++) {
        PyObject *key = PyLong_FromUnsignedLongLong(keys[i]);
        if (key == NULL) Py_CLEAR(list);
        else PyList_SET_ITEM(list, i, key);
    }
    return list;
}

static PyObject *list_of_sizes(const Py_ssize_t *values, Py_ssize_t n) {
    PyObject *list = PyList_New(n);
    for (Py_ssize_t i = 0; list != NULL && i < n; i++) {
        PyObject *value = PyLong_FromSsize_t(values[i]);
        if (value == NULL) Py_CLEAR(list);
        else PyList_SET_ITEM(list, i, value);
    }
    return list;
}

/* s[0:*len] = html.unescape(s[0:*len]), growing the buffer of *capacity code points if need be. */
static int unescape(Py_UCS4 **s, Py_ssize_t *len, Py_ssize_t *capacity) {
    PyObject *text = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, *s, *len);
    PyObject *out = text == NULL ? NULL : PyObject_CallOneArg(html_unescape, text);
    Py_XDECREF(text);
    if (out == NULL) return -1;
    if (!PyUnicode_Check(out)) {
        Py_DECREF(out);
        PyErr_SetString(PyExc_TypeError, "html.unescape did not return a str");
        return -1;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(out);
    if (n + 1 > *capacity) {
        Py_UCS4 *grown = PyMem_RawRealloc(*s, (size_t)(n + 1) * sizeof(Py_UCS4));
        if (grown == NULL) {
            Py_DECREF(out);
            PyErr_NoMemory();
            return -1;
        }
        *s = grown;
        *capacity = n + 1;
    }
    Py_UCS4 *done = PyUnicode_AsUCS4(out, *s, *capacity, 0);
    Py_DECREF(out);
    *len = n;
    return done == NULL ? -1 : 0;
}

/* Fingerprinter.features: clean, line keys, split, rank and key, whole-text key and sketch.  shaped: the
 * tuple in Features' shape (the sketch's grams and slots one item, a Sketch), as similar() hands it on;
 * known (not NULL, its values NULL): filled for assign_known when the tuple is. */
static PyObject *features_of(PyObject *const *args, Py_ssize_t nargs, int shaped, page_known *known) {
    options o;
    if (parse_options(args, nargs, &o) < 0) return NULL;
    /* Fingerprinter.clean: first, a JSON string's escaped form (escaped.unescape_json: Python reads it), then
     * a page whose bytes were misread is read again (encoding.repair_mojibake); normalize 2: Python did both. */
    if (o.normalize == 1 && PyUnicode_IS_ASCII(args[0]) &&
        json_escaped((const char *)PyUnicode_DATA(args[0]), PyUnicode_GET_LENGTH(args[0])))
        Py_RETURN_NONE;
    int chinese = 0;
    PyObject *text = o.normalize == 1 ? repaired(args[0], &chinese) : Py_NewRef(args[0]);
    if (text == NULL) return NULL;
    if (chinese) { /* Python reads it (encoding.read_as_chinese) */
        Py_DECREF(text);
        Py_RETURN_NONE;
    }
    PyObject *result = NULL, *lkeys = NULL, *lgrams = NULL, *whole = NULL, *lends = NULL;
    PyObject *lsite = NULL, *lpieces = NULL;
    Py_UCS4 *came = NULL; /* the text before restore_lines broke its long lines, while its width is read */
    Py_ssize_t n = PyUnicode_GET_LENGTH(text), capacity = n + 1;
    Py_UCS4 *s = PyMem_RawMalloc((size_t)capacity * sizeof(Py_UCS4));
    unsigned char *keyed = NULL;
    scratch buf = {NULL, 0};
    pieces list = {NULL, 0, 0};
    if (s == NULL) {
        Py_DECREF(text);
        return PyErr_NoMemory();
    }
    if (PyUnicode_AsUCS4(text, s, n + 1, 0) == NULL) goto done;
    /* Fingerprinter.clean */
    unify_breaks(s, &n);
    int joined = !has_char(s, n, '\n'); /* before markup: a joined page's block tags give it lines, not its breaks */
    /* Below U+0100 nothing folds and no phrase starts a match (each holds a CJK character): a Latin-1 page
     * skips both passes, unless an entity unescaped brought in a wider character. */
    int wide = PyUnicode_KIND(text) != PyUnicode_1BYTE_KIND;
    if (o.normalize) /* text.strip_html: again while a round began with escaped markup (escaped.escaped_markup) */
        for (int round = 0, again = 1; again && round < STRIP_ROUNDS; round++) {
            again = escaped_markup(s, n);
            int found = strip_html(s, &n);
            if (found == FALLBACK) {
                Py_INCREF(Py_None);
                result = Py_None;
                goto done;
            }
            if (found == UNESCAPE && unescape(&s, &n, &capacity) < 0) goto done;
            wide |= found == UNESCAPE;
        }
    /* Folded before the chrome is judged: a line typed in full-width letters is the same line. */
    if (o.fold && wide) {
        Py_UCS4 top = 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            s[i] = fold_char(s[i]);
            top = s[i] > top ? s[i] : top;
        }
        /* A page without CJK (most wide English pages: a curly quote) has no phrase: not read for one. */
        if (top >= phrase_floor) n = fold_phrases(s, n);
    }
    /* Before the chrome is judged (a joined page's menus and link lists are lines again) and after
     * wrapped lines are joined (a paragraph is broken the same way, wrapped or not). */
    /* Features.flat: a joined page whose first or last line restore_lines or restore_edges broke */
    Py_ssize_t head = 0, tail = 0;
    if (joined) edge_lengths(s, n, &head, &tail);
    /* chrome.wrap_width reads the page as it came: the pieces of the long lines broken here are no wraps (read
     * here when they are broken, as drop_chrome goes when not) */
    Py_ssize_t came_len = n, width = -1;
    if (restore_lines_keeping(&s, &n, &capacity, FLAT_LINE, 0, o.chrome ? &came : NULL) < 0) goto done;
    if (came != NULL) width = width_as_it_came(&came, came_len); /* freed before restore_edges copies the page */
    if (joined && restore_lines_keeping(&s, &n, &capacity, FLAT_EDGE, 1, o.chrome && width < 0 ? &came : NULL) < 0)
        goto done;
    if (came != NULL) width = width_as_it_came(&came, came_len);
    int flat = 0;
    if (joined) {
        Py_ssize_t head_after, tail_after;
        edge_lengths(s, n, &head_after, &tail_after);
        flat = head_after < head || tail_after < tail;
    }
    int rejoined = 0; /* only a joined line can be a new long one: restore_lines again only then */
    site_signature site = {.buf = &buf, .count = 0};
    if (o.chrome && (drop_chrome(s, &n, &rejoined, &site, width) < 0 ||
                     (rejoined && restore_lines(&s, &n, &capacity, FLAT_LINE, 0) < 0) ||
                     (joined && restore_edges(&s, &n, &capacity) < 0)))
        goto done;
    if (line_keys(s, n, &buf, &lkeys, &lgrams, &keyed) < 0) goto done;
    if ((lpieces = flat_pieces(s, n, keyed, &buf)) == NULL) goto done;
    /* Features.line_ends: where each keyed line ends in the whole text, filled by split_pieces. */
    Py_ssize_t keyed_count = PyObject_Length(lkeys);
    if (keyed_count < 0) goto done;
    Py_buffer ends_view;
    line_ends ends = {NULL, n > (Py_ssize_t)UINT32_MAX, 0};
    lends = new_array(ends.wide ? "q" : "I", keyed_count, &ends_view);
    if (lends == NULL) goto done;
    ends.buf = ends_view.buf;
    /* The clean text becomes the whole normalised text; the lines were keyed first. */
    int split_failed = split_pieces(s, &n, o.split, o.normalize, o.min_len, &list, keyed, &ends) < 0;
    PyBuffer_Release(&ends_view);
    if (split_failed) goto done;
    unsigned char slots[SLOTS];
    if (n == 0) { /* as features_python: no lines either */
        Py_buffer none;
        Py_SETREF(lkeys, new_array("I", 0, &none));
        if (lkeys != NULL) PyBuffer_Release(&none);
        Py_SETREF(lgrams, lkeys == NULL ? NULL : new_array("I", 0, &none));
        if (lgrams == NULL) goto done;
        PyBuffer_Release(&none);
        Py_SETREF(lends, new_array("I", 0, &none));
        if (lends == NULL) goto done;
        PyBuffer_Release(&none);
        lsite = u32_array(site.keys, 0); /* as features_python: no site keys either */
        if (lsite == NULL) goto done;
        memset(slots, 0, SLOTS);
        Py_SETREF(lpieces, new_array("I", 0, &none));
        if (lpieces == NULL) goto done;
        PyBuffer_Release(&none);
        result = Py_BuildValue(shaped ? "([][]O(iy#)OOsOOOO)" : "([][]Oiy#OOsOOOO)", Py_None, 0, (const char *)slots,
                               (Py_ssize_t)SLOTS, lkeys, lgrams, "", lends, lsite, Py_False, lpieces);
        goto done;
    }
    PyMem_RawFree(keyed);
    keyed = NULL;
    whole = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, s, n);
    if (whole == NULL) goto done;
    uint64_t keys[256];
    Py_ssize_t positions[128];
    int count = rank_and_key(s, &list, o.k, o.anchor, o.anchor_latin, &buf, keys, positions);
    if (count < 0) goto done;
    count = drop_template_keys(keys, positions, count);
    int failed = 0;
    uint64_t doc_key = hash_text(&buf, doc_prefix, DOC_PREFIX_LEN, s, n, &failed);
    if (failed) goto done;
    if (known != NULL) {
        known->doc_key = doc_key;
        memcpy(known->keys, keys, (size_t)(2 * count) * sizeof(uint64_t));
        if (n >= GRAM && n - GRAM < KEEP_GRAMS &&
            (known->values = PyMem_RawMalloc((size_t)(n - GRAM + 1) * sizeof(uint64_t))) == NULL) {
            PyErr_NoMemory();
            goto done;
        }
    }
    Py_ssize_t grams = sketch_keeping(s, n, slots, known != NULL ? known->values : NULL);
    lsite = u32_array(site.keys, site.count);
    if (lsite == NULL) goto done;
    result = Py_BuildValue(shaped ? "(NNK(ny#)OOOOOOO)" : "(NNKny#OOOOOOO)", list_of_keys(keys, 2 * count),
                           list_of_sizes(positions, count), (unsigned long long)doc_key, grams, (const char *)slots,
                           (Py_ssize_t)SLOTS, lkeys, lgrams, whole, lends, lsite, flat ? Py_True : Py_False, lpieces);
done:
    Py_DECREF(text);
    Py_XDECREF(lsite);
    Py_XDECREF(lpieces);
    Py_XDECREF(lkeys);
    Py_XDECREF(lgrams);
    Py_XDECREF(whole);
    Py_XDECREF(lends);
    PyMem_RawFree(keyed);
    PyMem_RawFree(s);
    PyMem_RawFree(came);
    PyMem_RawFree(buf.data);
    PyMem_RawFree(list.items);
    return result;
}

static PyObject *features(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    return features_of(args, nargs, 0, NULL);
}

/*
 * similar(text, features_args, tables, pending, options, allocate_id) -> (match, features):
 * features(text, *features_args), then assign(tables, pending, the features,
 * options, allocate_id).  match: assign's tuple (features None); when assign
 * hands the page back, (None, the Features-shaped tuple) for the Python
 * decision; (None, None) when the C features hand it back.
 */
static PyObject *similar(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 6 || !PyTuple_Check(args[1]) || PyTuple_GET_SIZE(args[1]) != 8) {
        PyErr_SetString(PyExc_TypeError,
                        "similar(text, features_args, tables, pending, options, allocate_id): features_args is "
                        "features()'s 8 ints");
        return NULL;
    }
    PyObject *feature_args[9] = {args[0]};
    for (int i = 0; i < 8; i++) feature_args[i + 1] = PyTuple_GET_ITEM(args[1], i);
    page_known known = {.values = NULL};
    PyObject *shaped = features_of(feature_args, 9, 1, &known);
    if (shaped == NULL || shaped == Py_None) {
        PyMem_RawFree(known.values);
        if (shaped == NULL) return NULL;
        Py_DECREF(shaped);
        return PyTuple_Pack(2, Py_None, Py_None);
    }
    PyObject *assign_args[5] = {args[2], args[3], shaped, args[4], args[5]};
    PyObject *match = assign_known(assign_args, 5, &known);
    PyMem_RawFree(known.values);
    PyObject *result = NULL;
    if (match != NULL)
        result = match == Py_None ? PyTuple_Pack(2, Py_None, shaped) : PyTuple_Pack(2, match, Py_None);
    Py_XDECREF(match);
    Py_DECREF(shaped);
    return result;
}

/*
 * similar_many(texts, start, features_args, tables, pending, options, allocate_id) -> (ids, stop, features):
 * similar() on texts[start:], in order, until one is handed back.  ids: the
 * decided pages' similar ids; stop: the index of the page handed back (len(texts)
 * when none was), features: what similar() gave for it (None when its features
 * too are left to Python, or when none was handed back).
 */
/* The list and the start of a *_many call (its first two arguments), checked; -1 with an error set. */
static int many_start(PyObject *const *args, Py_ssize_t nargs, Py_ssize_t want, const char *usage, Py_ssize_t *start) {
    if (nargs != want || !PyList_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, usage);
        return -1;
    }
    *start = PyLong_AsSsize_t(args[1]);
    if (*start == -1 && PyErr_Occurred()) return -1;
    if (*start < 0) {
        PyErr_Format(PyExc_ValueError, "%.40s: start must be >= 0", usage);
        return -1;
    }
    return 0;
}

static PyObject *similar_many(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    Py_ssize_t i;
    if (many_start(args, nargs, 7,
                   "similar_many(texts, start, features_args, tables, pending, options, allocate_id): texts is a list "
                   "of str",
                   &i) < 0)
        return NULL;
    PyObject *texts = args[0];
    PyObject *ids = PyList_New(0);
    if (ids == NULL) return NULL;
    PyObject *call[6] = {NULL, args[2], args[3], args[4], args[5], args[6]};
    /* The list's length is read each turn: allocate_id is Python, which could change it. */
    for (; i < PyList_GET_SIZE(texts); i++) {
        PyObject *text = PyList_GET_ITEM(texts, i);
        Py_INCREF(text);
        call[0] = text;
        PyObject *pair = similar(self, call, 6);
        Py_DECREF(text);
        if (pair == NULL) goto fail;
        PyObject *match = PyTuple_GET_ITEM(pair, 0);
        if (match == Py_None) {
            PyObject *result = Py_BuildValue("(NnO)", ids, i, PyTuple_GET_ITEM(pair, 1));
            Py_DECREF(pair);
            return result;
        }
        int appended = PyList_Append(ids, PyTuple_GET_ITEM(match, 0));
        Py_DECREF(pair);
        if (appended < 0) goto fail;
    }
    return Py_BuildValue("(NnO)", ids, i, Py_None);
fail:
    Py_DECREF(ids);
    return NULL;
}

/*
 * assign_many(features, start, tables, pending, options, allocate_id) -> (ids, stop):
 * assign() on features[start:] (a list of Features tuples), in order, until one
 * is handed back.  ids: the decided pages' similar ids; stop: the index of the
 * page handed back (len(features) when none was), nothing written for it.
 */
static PyObject *assign_many(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    Py_ssize_t i;
    if (many_start(args, nargs, 6,
                   "assign_many(features, start, tables, pending, options, allocate_id): features is a list of "
                   "Features tuples",
                   &i) < 0)
        return NULL;
    PyObject *all = args[0];
    PyObject *ids = PyList_New(0);
    if (ids == NULL) return NULL;
    PyObject *call[5] = {args[2], args[3], NULL, args[4], args[5]};
    /* The list's length is read each turn: allocate_id is Python, which could change it. */
    for (; i < PyList_GET_SIZE(all); i++) {
        PyObject *features = PyList_GET_ITEM(all, i);
        Py_INCREF(features);
        call[2] = features;
        PyObject *match = assign(self, call, 5);
        Py_DECREF(features);
        if (match == NULL) goto fail;
        if (match == Py_None) {
            Py_DECREF(match);
            return Py_BuildValue("(Nn)", ids, i);
        }
        int appended = PyList_Append(ids, PyTuple_GET_ITEM(match, 0));
        Py_DECREF(match);
        if (appended < 0) goto fail;
    }
    return Py_BuildValue("(Nn)", ids, i);
fail:
    Py_DECREF(ids);
    return NULL;
}

static PyMethodDef methods[] = {
    {"sketch", sketch, METH_O, "sketch(text) -> (grams, slots): nshash.sketch.sketch_python in C."},
    {"keyfilter_probe", (PyCFunction)(void (*)(void))keyfilter_probe, METH_FASTCALL,
     "keyfilter_probe(bits, log2_bits, salt, keys, shift, mix, add): KeyFilter.may_contain or .add in C."},
    {"features", (PyCFunction)(void (*)(void))features, METH_FASTCALL,
     "features(text, split, normalize, chrome, fold, k, min_len, anchor, anchor_latin) -> tuple | None: "
     "Fingerprinter.features_python in C for hashfunc 'farmhash' (None: Python computes this document)."},
    {"verify", (PyCFunction)(void (*)(void))verify, METH_FASTCALL,
     "verify(line_keys, line_grams, grams, slots, entries, clusters, members, whole, line_ends, known, site_keys, "
     "flat, pieces) -> [(score, found)]: "
     "nshash.verify.verify_score against each cluster's stored members."},
    {"member_entries", (PyCFunction)(void (*)(void))member_entries, METH_FASTCALL,
     "member_entries(line_keys, line_grams, grams, slots, site_keys, pieces, flat) -> list: "
     "nshash.members.stored_form of a document."},
    {"entry_keys", (PyCFunction)(void (*)(void))entry_keys, METH_FASTCALL,
     "entry_keys(clusters, members) -> list | None: nshash.members.entry_keys of every member of each cluster."},
    {"assign", (PyCFunction)(void (*)(void))assign, METH_FASTCALL,
     "assign(tables, pending, features, options, allocate_id) -> (similar_id, is_new, score, matched) | None: "
     "nshash.decide.assign on the memory store's tables (None: Python decides this document)."},
    {"similar", (PyCFunction)(void (*)(void))similar, METH_FASTCALL,
     "similar(text, features_args, tables, pending, options, allocate_id) -> (match, features): features and "
     "assign in one call (match None: Python decides, with features unless they are None too)."},
    {"assign_many", (PyCFunction)(void (*)(void))assign_many, METH_FASTCALL,
     "assign_many(features, start, tables, pending, options, allocate_id) -> (ids, stop): assign() on "
     "features[start:] until a page is handed back (at stop, nothing written for it)."},
    {"pack_features", pack_features, METH_O, "pack_features(features) -> bytes: nshash.packed.pack in C."},
    {"assign_packed", (PyCFunction)(void (*)(void))assign_packed, METH_FASTCALL,
     "assign_packed(blob, offset, tables, pending, options, allocate_id) -> (ids, offset, features): assign() on "
     "the pages packed in blob from offset until one is handed back (its features; nothing written for it)."},
    {"similar_many", (PyCFunction)(void (*)(void))similar_many, METH_FASTCALL,
     "similar_many(texts, start, features_args, tables, pending, options, allocate_id) -> (ids, stop, features): "
     "similar() on texts[start:] until a page is handed back (at stop; features as similar() gave them)."},
    {"tables", tables, METH_NOARGS, "tables() -> dict: the tables the C took from nshash.text and nshash.fingerprint."},
    {NULL, NULL, 0, NULL},
};

static PyObject *fingerprint64_py(PyObject *self, PyObject *arg) {
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    uint64_t value = fingerprint64(view.buf, (size_t)view.len);
    PyBuffer_Release(&view);
    return PyLong_FromUnsignedLongLong(value);
}

static PyMethodDef hash_method = {"fingerprint64", fingerprint64_py, METH_O,
                                  "fingerprint64(bytes) -> int: FarmHash Fingerprint64, as the keys use it."};

/* The constants _verify.h was built with, for the test against nshash.sketch and nshash.decide. */
static PyObject *verify_constants(void) {
    return Py_BuildValue("{sisdsisisisisisisisisisisdsisdsdsisisisdsdsdsdsdsdsd}", "_SLOT_BITS", SLOT_BITS, "EDGE_REST", EDGE_REST,
                         "BLOOM_BITS", BLOOM_BITS, "_BLOOM_PROBES", BLOOM_PROBES, "_PROBE_BITS", PROBE_BITS,
                         "_LIST_LINES", LIST_LINES, "_LIST_GRAMS", LIST_GRAMS, "_GAP_GRAMS", GAP_GRAMS, "MAX_MEMBERS",
                         MAX_MEMBERS, "CLUSTER_SHIFT", CLUSTER_SHIFT, "MEMBER_SHIFT", MEMBER_SHIFT, "SIZE_RATIO",
                         SIZE_RATIO, "SIZE_RATIO_CONTAINMENT", (double)SIZE_RATIO_CONTAINMENT, "SIZE_RATIO_GRAMS",
                         SIZE_RATIO_GRAMS, "FRAME_ERRORS", (double)FRAME_ERRORS, "OWN_KNOWN", (double)OWN_KNOWN,
                         "SIBLING_RUNS", SIBLING_RUNS, "SIBLING_RUN_GRAMS", SIBLING_RUN_GRAMS, "SIBLING_GRAMS",
                         SIBLING_GRAMS, "SIBLING_CONTAINMENT", (double)SIBLING_CONTAINMENT, "ARTICLE_SHARE",
                         (double)ARTICLE_SHARE, "ARTICLE_KNOWN", (double)ARTICLE_KNOWN, "_FOOT_KNOWN",
                         (double)FOOT_KNOWN, "CJK_PAGE", (double)CJK_PAGE, "CJK_EASING", (double)CJK_EASING,
                         "MERGE_MARGIN", (double)MERGE_MARGIN);
}

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "nshash._speedups", NULL, -1, methods};

PyMODINIT_FUNC PyInit__speedups(void) {
    prime_out = 1;
    for (int i = 0; i < GRAM - 1; i++) prime_out *= PRIME;
    if (init_tables() < 0) return PyErr_NoMemory();
    init_gbk_marks();
    PyObject *html = PyImport_ImportModule("html");
    if (html == NULL) return NULL;
    html_unescape = PyObject_GetAttrString(html, "unescape");
    Py_DECREF(html);
    if (html_unescape == NULL) return NULL;
    PyObject *array = PyImport_ImportModule("array");
    if (array == NULL) return NULL;
    array_type = PyObject_GetAttrString(array, "array");
    Py_DECREF(array);
    if (array_type == NULL) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    PyObject *hash = PyCFunction_NewEx(&hash_method, NULL, PyModule_GetNameObject(m));
    if (hash == NULL || PyModule_AddObject(m, "fingerprint64", hash) < 0 ||
        PyModule_AddIntConstant(m, "SLOTS", SLOTS) < 0 || PyModule_AddIntConstant(m, "GRAM", GRAM) < 0 ||
        PyModule_AddIntConstant(m, "SLOT_SHIFT", SLOT_SHIFT) < 0 ||
        PyModule_AddObject(m, "PRIME", PyLong_FromUnsignedLongLong(PRIME)) < 0 ||
        PyModule_AddObject(m, "VERIFY", verify_constants()) < 0 || add_table_type(m) < 0 ||
        PyType_Ready(&BlocksType) < 0 || PyModule_AddObject(m, "Blocks", Py_NewRef((PyObject *)&BlocksType)) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
