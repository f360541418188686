/*
 * nshash/_tables.h: the character classes of nshash.text as lookup tables,
 * built at import from _speedups_tables.h (which setup.py writes from the
 * Python specification).  Included by _speedups.c only.
 */
#ifndef NSHASH_TABLES_H
#define NSHASH_TABLES_H
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include <wchar.h>

#include "_speedups_tables.h"

/* Classes of a character; two bytes per BMP code point (128 KB, only the pages
 * a text touches are cached), astral characters are looked up in the lists. */
enum {
    C_NOISE = 1,        /* text.NOISE */
    C_SENT_END = 2,     /* text._SENTENCE_ENDS */
    C_SEP_SPACED = 4,   /* _SEPARATOR_RE: a separator between two spaces */
    C_SEP_BARE = 8,     /* _SEPARATOR_RE: a separator on its own */
    C_IGNORECASE = 16,  /* non-ASCII, yet re.IGNORECASE matches it to an ASCII letter */
    /* A one-character delimiter of split 'default', 'design', 'original' (C_DELIM << split). */
    C_DELIM = 32,
    C_CJK = 256, /* text.CJK_RANGES (char_class sets it on astral ones too): is_cjk is a lookup, not a range test */
    C_PHRASE = 512,   /* the first character of a fold.phrase_table phrase of 2+ characters (nshash/_fold.h) */
    C_PHRASE1 = 1024, /* ... of a one-character phrase */
    C_FLAT_END = 2048, /* a sentence end linebreaks.restore_lines breaks after (CJK or Latin) */
    /* The first character of a two-character delimiter of split 'default', 'design', 'original' (C_PAIR << split),
     * BMP only: split_pieces compares the pairs only there, not at every character. */
    C_PAIR = 4096,
    C_SPLIT_LOOK = 32768, /* '\n' and '.', which split_pieces looks at whatever their class */
};
static uint16_t bmp_class[0x10000];

/* A bit for each notice marker's first two characters, hashed: is_notice compares markers only where one may start. */
static uint64_t notice_starts[16];
/* The same for the phrases of fold.phrase_table (2+ characters), in 8,192 bits: nshash/_fold.h. */
static uint64_t phrase_pairs[128];

/* The least, over the phrases, of a phrase's greatest character: a text with none as great has no phrase. */
static Py_UCS4 phrase_floor = 0x10FFFF;

static inline unsigned phrase_pair_bit(Py_UCS4 first, Py_UCS4 second) { return (first * 31u + second) & 8191u; }

static inline unsigned pair_bit(Py_UCS4 first, Py_UCS4 second) { return (first * 31u + second) & 1023u; }

static int in_list(const Py_UCS4 *list, int n, Py_UCS4 c) {
    for (int i = 0; i < n; i++)
        if (list[i] == c) return 1;
    return 0;
}

static int is_cjk_astral(Py_UCS4 c);

static inline unsigned char_class(Py_UCS4 c) {
    if (c < 0x10000) return bmp_class[c];
    return (is_cjk_astral(c) ? C_CJK : 0) | (in_list(noise, N_NOISE, c) ? C_NOISE : 0) |
           (in_list(sentence_ends, N_SENTENCE_ENDS, c) ? C_SENT_END : 0) |
           (in_list(sep_spaced, N_SEP_SPACED, c) ? C_SEP_SPACED : 0) | (in_list(sep_bare, N_SEP_BARE, c) ? C_SEP_BARE : 0) |
           (in_list(ignorecase_ascii, N_IGNORECASE_ASCII, c) ? C_IGNORECASE : 0) |
           (in_list(delims_default_single, N_DELIMS_DEFAULT_SINGLE, c) ? C_DELIM : 0) |
           (in_list(delims_design_single, N_DELIMS_DESIGN_SINGLE, c) ? C_DELIM << 1 : 0) |
           (in_list(delims_original_single, N_DELIMS_ORIGINAL_SINGLE, c) ? C_DELIM << 2 : 0);
}

/* Where the first c in s[from:n] is, n for none.  Where wchar_t is a code point, libc's wmemchr, which reads
 * many at a time: the line scans of a page were a tenth of its features one code point at a time. */
static inline Py_ssize_t find_char(const Py_UCS4 *s, Py_ssize_t from, Py_ssize_t n, Py_UCS4 c) {
#if defined(__SIZEOF_WCHAR_T__) && __SIZEOF_WCHAR_T__ == 4
    if (from >= n) return n;
    const wchar_t *hit = wmemchr((const wchar_t *)s + from, (wchar_t)c, (size_t)(n - from));
    return hit == NULL ? n : (const Py_UCS4 *)hit - s;
#else
    while (from < n && s[from] != c) from++;
    return from;
#endif
}

static inline int has_char(const Py_UCS4 *s, Py_ssize_t n, Py_UCS4 c) { return find_char(s, 0, n, c) < n; }

static int is_cjk_astral(Py_UCS4 c) {
    for (int i = 0; i < N_CJK_RANGES; i++)
        if (c - cjk_ranges[i][0] <= cjk_ranges[i][1] - cjk_ranges[i][0]) return 1;
    return 0;
}

static inline int is_cjk(Py_UCS4 c) { return c < 0x10000 ? (bmp_class[c] & C_CJK) != 0 : is_cjk_astral(c); }

/* fold.fold_table (traditional -> simplified, full-width digits and letters -> ASCII): 256-character pages, allocated only where the table has pairs. */
static Py_UCS4 *fold_pages[0x110000 >> 8];

static inline Py_UCS4 fold_char(Py_UCS4 c) {
    const Py_UCS4 *page = fold_pages[c >> 8];
    return page == NULL ? c : page[c & 0xFF];
}

/* ASCII-only lower-casing, as nshash.text.ascii_lower. */
static inline Py_UCS4 ascii_lower(Py_UCS4 c) { return (c - 'A') < 26u ? c + 32 : c; }

/* Past the whitespace at s[i:n] (Py_UNICODE_ISSPACE: str.isspace, what a regex's \s matches). */
static Py_ssize_t skip_space(const Py_UCS4 *s, Py_ssize_t n, Py_ssize_t i) {
    while (i < n && Py_UNICODE_ISSPACE(s[i])) i++;
    return i;
}

static void mark(const Py_UCS4 *list, int n, unsigned cls) {
    for (int i = 0; i < n; i++)
        if (list[i] < 0x10000) bmp_class[list[i]] |= (uint16_t)cls;
}

static int init_tables(void) {
    mark(noise, N_NOISE, C_NOISE);
    mark(sentence_ends, N_SENTENCE_ENDS, C_SENT_END);
    mark(sep_spaced, N_SEP_SPACED, C_SEP_SPACED);
    mark(sep_bare, N_SEP_BARE, C_SEP_BARE);
    mark(ignorecase_ascii, N_IGNORECASE_ASCII, C_IGNORECASE);
    mark(delims_default_single, N_DELIMS_DEFAULT_SINGLE, C_DELIM);
    mark(delims_design_single, N_DELIMS_DESIGN_SINGLE, C_DELIM << 1);
    mark(delims_original_single, N_DELIMS_ORIGINAL_SINGLE, C_DELIM << 2);
    mark(flat_cjk_ends, N_FLAT_CJK_ENDS, C_FLAT_END);
    mark(flat_latin_ends, N_FLAT_LATIN_ENDS, C_FLAT_END);
    bmp_class['\n'] |= C_SPLIT_LOOK;
    bmp_class['.'] |= C_SPLIT_LOOK;
    static const Py_UCS4 *const pairs[] = {delims_default_pair, delims_design_pair, delims_original_pair};
    static const int pair_counts[] = {N_DELIMS_DEFAULT_PAIR, N_DELIMS_DESIGN_PAIR, N_DELIMS_ORIGINAL_PAIR};
    for (int split = 0; split < 3; split++)
        for (int k = 0; k + 1 < pair_counts[split]; k += 2)
            if (pairs[split][k] < 0x10000) bmp_class[pairs[split][k]] |= (uint16_t)(C_PAIR << split);
    for (int i = 0; i < N_CJK_RANGES; i++)
        for (Py_UCS4 c = cjk_ranges[i][0]; c <= cjk_ranges[i][1] && c < 0x10000; c++) bmp_class[c] |= C_CJK;
    for (int i = 0; i < N_PHRASES; i++) {
        const Py_UCS4 *key = phrase_chars + phrase_at[i];
        Py_UCS4 first = key[0], top = 0;
        for (int j = 0; j < phrase_key_len[i]; j++) top = key[j] > top ? key[j] : top;
        phrase_floor = top < phrase_floor ? top : phrase_floor;
        if (phrase_key_len[i] == 1) {
            if (first < 0x10000) bmp_class[first] |= C_PHRASE1;
            continue;
        }
        if (first < 0x10000) bmp_class[first] |= C_PHRASE;
        unsigned bit = phrase_pair_bit(first, phrase_chars[phrase_at[i] + 1]);
        phrase_pairs[bit >> 6] |= 1ULL << (bit & 63);
    }
    const Py_UCS4 *marker = notice_chars; /* every marker has 2+ characters: setup.py checks */
    for (int m = 0; m < N_NOTICE_MARKERS; marker += notice_lens[m++]) {
        unsigned bit = pair_bit(marker[0], marker[1]);
        notice_starts[bit >> 6] |= 1ULL << (bit & 63);
    }
    for (int i = 0; i < N_FOLD_PAIRS; i++) {
        Py_UCS4 from = fold_pairs[i][0];
        Py_UCS4 **page = &fold_pages[from >> 8];
        if (*page == NULL) {
            *page = PyMem_RawMalloc(256 * sizeof(Py_UCS4));
            if (*page == NULL) return -1;
            for (Py_UCS4 j = 0; j < 256; j++) (*page)[j] = (from & ~(Py_UCS4)0xFF) | j;
        }
        (*page)[from & 0xFF] = fold_pairs[i][1];
    }
    return 0;
}

/* Python lists of what the tables hold, for the test that compares them with nshash.text. */
static PyObject *codes_str(const Py_UCS4 *list, int n) {
    return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, list, n);
}

static PyObject *names_tuple(const char *const *names, int n) {
    PyObject *out = PyTuple_New(n);
    for (int i = 0; out != NULL && i < n; i++) {
        PyObject *name = PyUnicode_FromString(names[i]);
        if (name == NULL) Py_CLEAR(out);
        else PyTuple_SET_ITEM(out, i, name);
    }
    return out;
}

/* fingerprint.NOTICE_MARKERS as the C holds them. */
static PyObject *notice_tuple(void) {
    PyObject *out = PyTuple_New(N_NOTICE_MARKERS);
    const Py_UCS4 *marker = notice_chars;
    for (int i = 0; out != NULL && i < N_NOTICE_MARKERS; marker += notice_lens[i++]) {
        PyObject *text = codes_str(marker, notice_lens[i]);
        if (text == NULL) Py_CLEAR(out);
        else PyTuple_SET_ITEM(out, i, text);
    }
    return out;
}

static PyObject *tables(PyObject *self, PyObject *unused) {
    PyObject *fold = PyDict_New(), *ranges = PyList_New(0);
    if (fold == NULL || ranges == NULL) goto fail;
    for (int i = 0; i < N_FOLD_PAIRS; i++) {
        PyObject *k = PyLong_FromUnsignedLong(fold_pairs[i][0]), *v = PyLong_FromUnsignedLong(fold_char(fold_pairs[i][0]));
        int bad = k == NULL || v == NULL || PyDict_SetItem(fold, k, v) < 0;
        Py_XDECREF(k);
        Py_XDECREF(v);
        if (bad) goto fail;
    }
    for (int i = 0; i < N_CJK_RANGES; i++) {
        PyObject *pair = Py_BuildValue("(kk)", (unsigned long)cjk_ranges[i][0], (unsigned long)cjk_ranges[i][1]);
        if (pair == NULL || PyList_Append(ranges, pair) < 0) {
            Py_XDECREF(pair);
            goto fail;
        }
        Py_DECREF(pair);
    }
    PyObject *entities = names_tuple(entity_names, N_ENTITY_CHARS);
    return Py_BuildValue(
        "{sNsNsNsNsNsNsNsNsNsNsNsNsNsNsNsNsNsNsisisisisisisisisisisdsisdsdsdsisisisisisy#sy#sy#sKsNsNsisisisdsisisdsNsi}", "NOISE",
        codes_str(noise, N_NOISE), "default_single",
        codes_str(delims_default_single, N_DELIMS_DEFAULT_SINGLE), "default_pair",
        codes_str(delims_default_pair, N_DELIMS_DEFAULT_PAIR), "design_single",
        codes_str(delims_design_single, N_DELIMS_DESIGN_SINGLE), "design_pair",
        codes_str(delims_design_pair, N_DELIMS_DESIGN_PAIR), "original_single",
        codes_str(delims_original_single, N_DELIMS_ORIGINAL_SINGLE), "original_pair",
        codes_str(delims_original_pair, N_DELIMS_ORIGINAL_PAIR), "CJK_RANGES", ranges, "HIDDEN_TAGS",
        names_tuple(hidden_tags, N_HIDDEN_TAGS), "block_tags", names_tuple(block_tags, N_BLOCK_TAGS), "sep_spaced",
        codes_str(sep_spaced, N_SEP_SPACED), "sep_bare", codes_str(sep_bare, N_SEP_BARE), "SENTENCE_ENDS",
        codes_str(sentence_ends, N_SENTENCE_ENDS), "CLOSERS", codes_str(closers, N_CLOSERS), "entity_names",
        entities, "entity_chars", codes_str(entity_chars, N_ENTITY_CHARS), "ignorecase_ascii",
        codes_str(ignorecase_ascii, N_IGNORECASE_ASCII), "fold", fold, "CHROME_MIN_LINES", CHROME_MIN_LINES,
        "CHROME_SHORT", CHROME_SHORT, "CHROME_SEGMENTS", CHROME_SEGMENTS, "CHROME_RUN", CHROME_RUN, "WRAP_MIN",
        WRAP_MIN, "WRAP_LOWER", WRAP_LOWER, "WRAP_WIDEST", WRAP_WIDEST, "WRAP_NARROWEST", WRAP_NARROWEST, "WRAP_SLACK",
        WRAP_SLACK, "WRAP_FULL", WRAP_FULL, "WRAP_SHARE", WRAP_SHARE, "WRAP_BODY", WRAP_BODY, "WRAP_ENDED", WRAP_ENDED, "WRAP_FITS", WRAP_FITS, "CHROME_KEEP", CHROME_KEEP, "CHROME_PROSE", CHROME_PROSE, "BYLINE_MAX", BYLINE_MAX, "FLAT_LINE",
        FLAT_LINE, "FLAT_EDGE", FLAT_EDGE, "FLAT_PIECE", FLAT_PIECE, "TAIL_MARK",
        tail_mark, (Py_ssize_t)TAIL_MARK_LEN, "LINE_MARK", line_mark, (Py_ssize_t)LINE_MARK_LEN, "WHOLE_TEXT_PREFIX",
        doc_prefix, (Py_ssize_t)DOC_PREFIX_LEN, "NO_KEY", (unsigned long long)NO_KEY, "NOTICE_MARKERS", notice_tuple(),
        /* encoding.py and escaped.py */
        "CP1252_HIGH", codes_str(cp1252_high, N_CP1252_HIGH), "MOJIBAKE_ROUNDS", MOJIBAKE_ROUNDS, "GB_MIN_BYTES",
        GB_MIN_BYTES, "GB_MANY_BYTES", GB_MANY_BYTES, "GB_BYTES", GB_BYTES, "STRIP_ROUNDS", STRIP_ROUNDS,
        "JSON_MIN_ESCAPES", JSON_MIN_ESCAPES, "JSON_SHARE", JSON_SHARE, "GBK_MARKS", codes_str(gbk_marks, N_GBK_MARKS),
        "GBK_MIN_MARKS", GBK_MIN_MARKS);
fail:
    Py_XDECREF(fold);
    Py_XDECREF(ranges);
    return NULL;
}
#endif
