/*
 * nshash/_sentences.h: the sentence part of Fingerprinter.features in C:
 * text.split_sentences (keep_empty=False), Fingerprinter._ranked, _keys,
 * _lines and fingerprint._drop_template_keys.  Keys are FarmHash
 * Fingerprint64 of the UTF-8 bytes, lone surrogates encoded as
 * hashing.farmhash64 does ("surrogatepass").  Included by _speedups.c only.
 */
#ifndef NSHASH_SENTENCES_H
#define NSHASH_SENTENCES_H
#include <stdlib.h>

#include "_farmhash.h"
#include "_tables.h"

/* A growable byte buffer for the UTF-8 form of what is hashed. */
typedef struct {
    unsigned char *data;
    size_t capacity;
} scratch;

static unsigned char *reserve(scratch *buf, size_t size) {
    if (size > buf->capacity) {
        unsigned char *grown = PyMem_RawRealloc(buf->data, size);
        if (grown == NULL) {
            PyErr_NoMemory();
            return NULL;
        }
        buf->data = grown;
        buf->capacity = size;
    }
    return buf->data;
}

static inline unsigned char *put_utf8(unsigned char *o, Py_UCS4 c) {
    if (c < 0x80) {
        *o++ = (unsigned char)c;
    } else if (c < 0x800) {
        *o++ = (unsigned char)(0xC0 | (c >> 6));
        *o++ = (unsigned char)(0x80 | (c & 0x3F));
    } else if (c < 0x10000) { /* surrogates too: 'surrogatepass' */
        *o++ = (unsigned char)(0xE0 | (c >> 12));
        *o++ = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
        *o++ = (unsigned char)(0x80 | (c & 0x3F));
    } else {
        *o++ = (unsigned char)(0xF0 | (c >> 18));
        *o++ = (unsigned char)(0x80 | ((c >> 12) & 0x3F));
        *o++ = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
        *o++ = (unsigned char)(0x80 | (c & 0x3F));
    }
    return o;
}

/* Whether the eight code points from s are all ASCII: one test for the eight, where text is mostly ASCII. */
static inline int ascii8(const Py_UCS4 *s) {
    Py_UCS4 any = 0;
    for (int k = 0; k < 8; k++) any |= s[k];
    return any < 0x80;
}

/* farmhash64(prefix + s[0:n]); 0 with MemoryError set when out of memory (*failed = 1). */
static uint64_t hash_text(scratch *buf, const char *prefix, size_t prefix_len, const Py_UCS4 *s, Py_ssize_t n,
                          int *failed) {
    unsigned char *o = reserve(buf, prefix_len + 4 * (size_t)n);
    if (o == NULL) {
        *failed = 1;
        return 0;
    }
    memcpy(o, prefix, prefix_len);
    unsigned char *end = o + prefix_len;
    Py_ssize_t i = 0;
    /* Eight at a time: written without a test each when all are ASCII (an English page nearly is) */
    for (; i + 8 <= n; i += 8) {
        if (ascii8(s + i)) {
            for (int k = 0; k < 8; k++) end[k] = (unsigned char)s[i + k];
            end += 8;
        } else {
            for (int k = 0; k < 8; k++) end = put_utf8(end, s[i + k]);
        }
    }
    for (; i < n; i++) end = put_utf8(end, s[i]);
    return fingerprint64(o, (size_t)(end - o));
}

typedef struct {
    Py_ssize_t start, len, index; /* in the whole text; index among the non-empty pieces */
} piece;

typedef struct {
    piece *items;
    Py_ssize_t count, capacity;
} pieces;

static int add_piece(pieces *list, Py_ssize_t start, Py_ssize_t len, Py_ssize_t index) {
    if (list->count == list->capacity) {
        Py_ssize_t capacity = list->capacity ? 2 * list->capacity : 64;
        piece *grown = PyMem_RawRealloc(list->items, (size_t)capacity * sizeof(piece));
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        list->items = grown;
        list->capacity = capacity;
    }
    list->items[list->count++] = (piece){start, len, index};
    return 0;
}

/* Features.line_ends being filled: an array('I') (or 'q') buffer. */
typedef struct {
    void *buf;
    int wide;
    Py_ssize_t count;
} line_ends;

static inline void put_end(line_ends *ends, Py_ssize_t end) {
    if (ends->wide) ((int64_t *)ends->buf)[ends->count++] = (int64_t)end;
    else ((uint32_t *)ends->buf)[ends->count++] = (uint32_t)end;
}

static inline Py_ssize_t pair_delimiter(const Py_UCS4 *s, Py_ssize_t n, Py_ssize_t i, const Py_UCS4 *pairs, int count) {
    for (int k = 0; k + 1 < count; k += 2)
        if (s[i] == pairs[k] && i + 1 < n && s[i + 1] == pairs[k + 1]) return 1;
    return 0;
}

/*
 * split_sentences(clean, split, normalize, markup=False, keep_empty=False),
 * in place: s becomes the pieces joined (the whole text, ASCII lower-cased
 * when normalize), and the pieces of at least min_len characters are listed.
 * The specification's replacements run one after another; one pass equals
 * them because no replacement makes or breaks another's match (setup.py
 * checks the delimiters for that).  ends: where each line that keyed[j]
 * marks (j: the line's index in the text) ends in the whole text (a line
 * break is always a cut).
 */
static int split_pieces(Py_UCS4 *s, Py_ssize_t *len, int split, int normalize, Py_ssize_t min_len, pieces *out,
                        const unsigned char *keyed, line_ends *ends) {
    static const Py_UCS4 *const pairs[] = {delims_default_pair, delims_design_pair, delims_original_pair};
    static const int pair_counts[] = {N_DELIMS_DEFAULT_PAIR, N_DELIMS_DESIGN_PAIR, N_DELIMS_ORIGINAL_PAIR};
    unsigned delim = (unsigned)C_DELIM << split, pair = (unsigned)C_PAIR << split, look = delim | pair | C_SPLIT_LOOK;
    int cjk_dot = split == 0; /* _CJK_DOT_RE: a '.' after CJK text ends a sentence ('default' only) */
    Py_ssize_t n = *len, r = 0, w = 0, start = 0, index = 0, text_line = 0;
    Py_UCS4 previous = 0; /* the character before s[r] as it was, for the look-behind */
    while (r < n) {
        Py_UCS4 c = s[r];
        unsigned cls = char_class(c);
        if (!(cls & look) && c < 0x10000) { /* no cut can be here (astral characters are compared with the pairs) */
            s[w] = normalize ? ascii_lower(c) : c;
            w += !(normalize && (cls & C_NOISE));
            previous = c;
            r++;
            continue;
        }
        Py_ssize_t step = 1;
        int cut = c == '\n' || (cls & delim) || (cjk_dot && c == '.' && r > 0 && is_cjk(previous));
        if (!cut && ((cls & pair) || c >= 0x10000) && pair_delimiter(s, n, r, pairs[split], pair_counts[split])) {
            cut = 1;
            step = 2;
        }
        if (cut) {
            if (c == '\n' && keyed[text_line++]) put_end(ends, w);
            if (w > start) {
                if (w - start >= min_len && add_piece(out, start, w - start, index) < 0) return -1;
                index++;
            }
            start = w;
        } else { /* written whatever it is, kept only if not noise: no branch to mispredict (w <= r) */
            s[w] = normalize ? ascii_lower(c) : c;
            w += !(normalize && (cls & C_NOISE));
        }
        previous = step == 1 ? c : s[r + 1]; /* s[r] may hold its lower-cased form now */
        r += step;
    }
    if (w > start && w - start >= min_len && add_piece(out, start, w - start, index) < 0) return -1;
    if (keyed[text_line]) put_end(ends, w);
    *len = w;
    return 0;
}

static int longest_first(const void *a, const void *b) {
    const piece *x = a, *y = b;
    if (x->len != y->len) return x->len < y->len ? 1 : -1;
    return x->index < y->index ? -1 : x->index > y->index; /* sorted() is stable: document order */
}

/* Pieces brought forward one at a time before the rest is sorted (rank_and_key). */
enum { SELECTED_FIRST = 16 };

/* Moves the longest of items[from:count] (the first in document order among equals: sorted() is stable) to items[from]. */
static void bring_longest(piece *items, Py_ssize_t from, Py_ssize_t count) {
    Py_ssize_t best = from;
    for (Py_ssize_t i = from + 1; i < count; i++)
        if (items[i].len > items[best].len || (items[i].len == items[best].len && items[i].index < items[best].index))
            best = i;
    piece longest = items[best];
    items[best] = items[from];
    items[from] = longest;
}

/* fingerprint.NOTICE_MARKERS: whether a (normalised) piece is a legal, licence or consent notice. */
static int is_notice(const Py_UCS4 *s, Py_ssize_t n) {
    /* One pass, not one a marker: they were 13% of an English page's features. */
    for (Py_ssize_t i = 0; i + 1 < n; i++) {
        unsigned bit = pair_bit(s[i], s[i + 1]);
        if (!(notice_starts[bit >> 6] >> (bit & 63) & 1)) continue;
        const Py_UCS4 *marker = notice_chars;
        for (int m = 0; m < N_NOTICE_MARKERS; marker += notice_lens[m++]) {
            Py_ssize_t len = notice_lens[m];
            if (i + len <= n && s[i] == marker[0] && !memcmp(s + i, marker, (size_t)len * sizeof(Py_UCS4))) return 1;
        }
    }
    return 0;
}

/*
 * Fingerprinter._ranked then _keys: up to k distinct pieces that are not
 * notices, longest first, two keys each.  Returns how many were chosen
 * (their positions in positions[], keys in keys[2 * i], keys[2 * i + 1]),
 * -1 on MemoryError.
 */
static int rank_and_key(const Py_UCS4 *whole, pieces *list, int k, int anchor, int anchor_latin, scratch *buf,
                        uint64_t *keys, Py_ssize_t *positions) {
    piece chosen[128];
    int count = 0, failed = 0;
    /* The longest pieces brought forward one at a time: a few of a page's dozens are read, and sorting them
     * all was a sixth of the features' time.  Past SELECTED_FIRST (many repeated lines or notices) the rest
     * is sorted, so a page of many repeats stays n log n. */
    for (Py_ssize_t i = 0; i < list->count && count < k; i++) {
        if (i < SELECTED_FIRST) bring_longest(list->items, i, list->count);
        else if (i == SELECTED_FIRST)
            qsort(list->items + i, (size_t)(list->count - i), sizeof(piece), longest_first);
        const piece *p = &list->items[i];
        int repeated = 0; /* a repeated line is one vote, not two */
        for (int j = 0; j < count && !repeated; j++)
            repeated = chosen[j].len == p->len &&
                       !memcmp(whole + chosen[j].start, whole + p->start, (size_t)p->len * sizeof(Py_UCS4));
        if (repeated || is_notice(whole + p->start, p->len)) continue;
        chosen[count] = *p;
        const Py_UCS4 *sentence = whole + p->start;
        int cjk = 0;
        for (Py_ssize_t j = 0; j < p->len && !cjk; j++) cjk = is_cjk(sentence[j]);
        Py_ssize_t size = cjk ? anchor : anchor_latin, head = p->len, tail = 0;
        if (size && p->len >= 2 * size) {
            head = size;
            tail = p->len - size;
        } else if (size && p->len >= HALVES_FROM * size) { /* its halves: an odd length's middle in both */
            head = (p->len + 1) / 2;
            tail = p->len - head;
        }
        keys[2 * count] = hash_text(buf, "", 0, sentence, head, &failed);
        keys[2 * count + 1] = hash_text(buf, tail_mark, TAIL_MARK_LEN, sentence + tail, p->len - tail, &failed);
        if (failed) return -1;
        positions[count++] = p->index;
    }
    return count;
}

static int has_key(const uint64_t *set, int n, uint64_t key) {
    for (int i = 0; i < n; i++)
        if (set[i] == key) return 1;
    return 0;
}

/* fingerprint._drop_template_keys when two keys are equal; returns the sentences left. */
static int drop_template_keys(uint64_t *keys, Py_ssize_t *positions, int count) {
    int duplicated = 0;
    for (int i = 0; i < 2 * count && !duplicated; i++) duplicated = has_key(keys, i, keys[i]);
    if (!duplicated) return count;
    uint64_t seen[256], shared[256];
    int n_seen = 0, n_shared = 0;
    for (int i = 0; i < count; i++) {
        for (int j = 0; j < 2; j++) {
            uint64_t key = keys[2 * i + j];
            if (key == NO_KEY || (j == 1 && key == keys[2 * i])) continue; /* a set: each key once */
            if (has_key(seen, n_seen, key)) {
                if (!has_key(shared, n_shared, key)) shared[n_shared++] = key;
            } else {
                seen[n_seen++] = key;
            }
        }
    }
    int out = 0;
    for (int i = 0; i < count; i++) {
        uint64_t head = keys[2 * i], tail = keys[2 * i + 1];
        if (has_key(shared, n_shared, head)) head = NO_KEY;
        if (has_key(shared, n_shared, tail)) tail = NO_KEY;
        if (head == NO_KEY && tail == NO_KEY) continue;
        keys[2 * out] = head != NO_KEY ? head : tail; /* one good key serves in both places */
        keys[2 * out + 1] = tail != NO_KEY ? tail : head;
        positions[out++] = positions[i];
    }
    return out;
}

static PyObject *array_type; /* array.array: line keys are compact, 4 bytes a line, not a list of ints */

/* array.array(typecode, [0]) by typecode (an ASCII letter), each made once and kept: calling array.array
 * for it was most of what a page's five small arrays cost. */
static PyObject *array_zeros[128];

/* array.array(typecode) of count zeros, and its writable buffer in *view. */
static PyObject *new_array(const char *typecode, Py_ssize_t count, Py_buffer *view) {
    PyObject **zero = &array_zeros[(unsigned char)typecode[0] & 127];
    if (*zero == NULL) *zero = PyObject_CallFunction(array_type, "s(i)", typecode, 0);
    PyObject *array = *zero == NULL ? NULL : PySequence_Repeat(*zero, count);
    if (array != NULL && PyObject_GetBuffer(array, view, PyBUF_WRITABLE) < 0) Py_CLEAR(array);
    return array;
}

/* A new array(typecode) of count items (4 or 8 bytes, as size says) from values, each cast; NULL on failure. */
static PyObject *array_of(const char *typecode, int size, const int64_t *values, Py_ssize_t count) {
    Py_buffer view;
    PyObject *array = new_array(typecode, count, &view);
    if (array == NULL) return NULL;
    int fits = view.itemsize == size;
    for (Py_ssize_t i = 0; fits && i < count; i++) {
        if (size == 8) ((int64_t *)view.buf)[i] = values[i];
        else ((uint32_t *)view.buf)[i] = (uint32_t)values[i];
    }
    PyBuffer_Release(&view);
    if (!fits) {
        PyErr_SetString(PyExc_SystemError, "array('I') does not hold 32 bits on this platform");
        Py_CLEAR(array);
    }
    return array;
}

/* A new array('I') of count 32-bit values; NULL on failure. */
static PyObject *u32_array(const uint32_t *values, Py_ssize_t count) {
    Py_buffer view;
    PyObject *array = new_array("I", count, &view);
    if (array == NULL) return NULL;
    int fits = view.itemsize == 4;
    if (fits && count > 0) memcpy(view.buf, values, (size_t)count * sizeof(uint32_t));
    PyBuffer_Release(&view);
    if (!fits) {
        PyErr_SetString(PyExc_SystemError, "array('I') does not hold 32 bits on this platform");
        Py_CLEAR(array);
    }
    return array;
}

/* c ASCII lower-cased written at p; kept (the end returned, *count counted) only if it is not noise.  Written
 * either way: no branch to mispredict. */
static inline unsigned char *put_normalised(unsigned char *p, Py_UCS4 c, Py_ssize_t *count) {
    int kept = !(char_class(c) & C_NOISE);
    unsigned char *next = put_utf8(p, ascii_lower(c));
    *count += kept;
    return kept ? next : p;
}

/* s[0:len] normalised (noise removed, ASCII lower-cased), as UTF-8 after line_mark at buf's start, its length in
 * characters in *chars; where it ends, or NULL (MemoryError set) when out of memory. */
static inline unsigned char *normalise_line(const Py_UCS4 *s, Py_ssize_t len, scratch *buf, Py_ssize_t *chars) {
    unsigned char *o = reserve(buf, LINE_MARK_LEN + 4 * (size_t)len);
    if (o == NULL) return NULL;
    memcpy(o, line_mark, LINE_MARK_LEN);
    unsigned char *p = o + LINE_MARK_LEN;
    Py_ssize_t count = 0, i = 0;
    /* Eight at a time: all ASCII (most of an English page), each is one byte and one lookup, with one test. */
    for (; i + 8 <= len; i += 8) {
        if (!ascii8(s + i)) {
            for (int k = 0; k < 8; k++) p = put_normalised(p, s[i + k], &count);
            continue;
        }
        for (int k = 0; k < 8; k++) {
            int kept = !(bmp_class[s[i + k]] & C_NOISE);
            *p = (unsigned char)ascii_lower(s[i + k]);
            p += kept;
            count += kept;
        }
    }
    for (; i < len; i++) p = put_normalised(p, s[i], &count);
    *chars = count;
    return p;
}

/* fingerprint.line_key of a normalised line of chars characters, line_mark and its UTF-8 at o[0:end - o]. */
static inline uint32_t marked_key(const unsigned char *o, const unsigned char *end, Py_ssize_t chars) {
    return chars ? (uint32_t)(fingerprint64(o, (size_t)(end - o)) & 0xFFFFFFFFULL) : 0;
}

/* fingerprint.line_key of s[0:len] normalised, and in *chars the normalised line's length; -1 (MemoryError set)
 * when out of memory. */
static inline int line_key_of(const Py_UCS4 *s, Py_ssize_t len, scratch *buf, uint32_t *key, Py_ssize_t *chars) {
    unsigned char *end = normalise_line(s, len, buf, chars);
    if (end == NULL) return -1;
    *key = marked_key(buf->data, end, *chars);
    return 0;
}

/*
 * Fingerprinter._lines: 32-bit keys and gram counts of the clean text's lines
 * (normalize_line), as array('I') and array('I') (array('q') when a line has
 * more grams than 32 bits hold).  One pass into scratch arrays sized by the
 * text's lines, then copied: counting the kept lines first was a second pass.
 * *keyed: 1 for each of the text's lines that is keyed, else 0 (PyMem_Raw; the caller frees it).
 */
static int line_keys(const Py_UCS4 *s, Py_ssize_t n, scratch *buf, PyObject **keys, PyObject **grams,
                     unsigned char **keyed) {
    Py_ssize_t text_lines = 2; /* one more than the lines read: a last empty one */
    for (Py_ssize_t i = find_char(s, 0, n, '\n'); i < n; i = find_char(s, i + 1, n, '\n')) text_lines++;
    /* 4 bytes a line each (8 for the grams of a text past 32 bits): on a page of 2-character lines,
     * 8-byte scratch made this its peak (12.3 bytes a character) */
    uint32_t *line_key = PyMem_RawMalloc((size_t)text_lines * sizeof(uint32_t));
    int long_text = n > (Py_ssize_t)UINT32_MAX;
    uint32_t *gram32 = long_text ? NULL : PyMem_RawMalloc((size_t)text_lines * sizeof(uint32_t));
    int64_t *gram64 = long_text ? PyMem_RawMalloc((size_t)text_lines * sizeof(int64_t)) : NULL;
    *keyed = PyMem_RawCalloc((size_t)text_lines, 1);
    int failed = line_key == NULL || (gram32 == NULL && gram64 == NULL) || *keyed == NULL;
    if (failed) PyErr_NoMemory();
    Py_ssize_t line = 0, text_line = -1, most = 0;
    for (Py_ssize_t r = 0, end = 0; r < n && !failed; r = end + 1) {
        text_line++;
        end = find_char(s, r, n, '\n');
        Py_ssize_t chars;
        if (line_key_of(s + r, end - r, buf, &line_key[line], &chars) < 0) {
            failed = 1;
            break;
        }
        if (chars == 0) continue;
        Py_ssize_t gram_count = chars - GRAM + 1 > 0 ? chars - GRAM + 1 : 0;
        most = gram_count > most ? gram_count : most;
        if (gram64 != NULL) gram64[line] = (int64_t)gram_count;
        else gram32[line] = (uint32_t)gram_count;
        (*keyed)[text_line] = 1;
        line++;
    }
    if (!failed) {
        int wide = most > (Py_ssize_t)UINT32_MAX;
        *keys = u32_array(line_key, line);
        if (*keys == NULL) *grams = NULL;
        else if (gram64 != NULL) *grams = array_of(wide ? "q" : "I", wide ? 8 : 4, gram64, line);
        else *grams = u32_array(gram32, line);
        failed = *grams == NULL;
        if (failed) Py_CLEAR(*keys);
    }
    PyMem_RawFree(line_key);
    PyMem_RawFree(gram32);
    PyMem_RawFree(gram64);
    return failed ? -1 : 0;
}
#endif
