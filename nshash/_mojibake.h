/*
 * nshash/_mojibake.h: nshash.encoding.repair_mojibake in C: a page whose UTF-8
 * bytes were read as Latin-1 or Windows-1252, decoded again.  A page so read
 * whose bytes are not UTF-8 but may be a Chinese page's, GB18030 or
 * Big5 (encoding.read_as_chinese), and one that may be UTF-8 read as GBK (encoding.read_utf8_as_gbk), are
 * left to Python.  Included by _speedups.c only.
 */
#ifndef NSHASH_MOJIBAKE_H
#define NSHASH_MOJIBAKE_H

/* The byte a misread page's character was read from (encoding.CP1252_HIGH's; below U+0100 itself); -1: none. */
static inline int misread_byte(Py_UCS4 c) {
    if (c < 0x100) return (int)c;
    if (c > 0x2122) return -1; /* past Windows-1252's last character (CJK, most of what a page holds) */
    for (int i = 0; i < N_CP1252_HIGH; i++)
        if (cp1252_high[i] == c) return 0x80 + i;
    return -1;
}

enum { NOT_BYTES, UTF8, OTHER_BYTES };

/* The index of the first character past U+007F in a one- or two-byte text (n when there is none). */
static Py_ssize_t first_past_ascii(int kind, const void *data, Py_ssize_t n) {
    Py_ssize_t i = 0;
    if (kind == PyUnicode_1BYTE_KIND) {
        const Py_UCS1 *s = data;
        for (uint64_t word; i + 8 <= n; i += 8) {
            memcpy(&word, s + i, 8);
            if (word & 0x8080808080808080ULL) break;
        }
        while (i < n && s[i] < 0x80) i++;
    } else {
        const Py_UCS2 *s = data;
        for (uint64_t word; i + 4 <= n; i += 4) {
            memcpy(&word, s + i, 8);
            if (word & 0xFF80FF80FF80FF80ULL) break;
        }
        while (i < n && s[i] < 0x80) i++;
    }
    return i;
}

/*
 * What text[0:n] is: not bytes misread (a character misread_byte has no byte
 * for), UTF-8 bytes misread (well-formed as Python's strict decoder takes it:
 * no overlong form, no surrogate, nothing past U+10FFFF), or other bytes.
 * Stops at the first character or byte that says which: a Chinese or an
 * English page (a curly quote is a lone continuation byte) is read that far
 * only.  out (if not NULL): the bytes.
 */
static int misread(int kind, const void *data, Py_ssize_t n, unsigned char *out) {
    int need = 0, low = 0x80, top = 0xBF;
    /* ASCII says nothing: the check (no out) starts at the first character past it, found a word at a time
     * (an English page's first curly quote may come late; reading each character before it cost 1.5 us a page). */
    for (Py_ssize_t i = out == NULL ? first_past_ascii(kind, data, n) : 0; i < n; i++) {
        int b = misread_byte(PyUnicode_READ(kind, data, i));
        if (b < 0) return NOT_BYTES;
        if (out != NULL) out[i] = (unsigned char)b;
        if (need > 0) {
            if (b < low || b > top) return OTHER_BYTES;
            low = 0x80, top = 0xBF;
            need--;
        } else if (b >= 0x80) {
            if (b >= 0xC2 && b <= 0xDF) need = 1;
            else if (b >= 0xE0 && b <= 0xEF) need = 2, low = b == 0xE0 ? 0xA0 : 0x80, top = b == 0xED ? 0x9F : 0xBF;
            else if (b >= 0xF0 && b <= 0xF4) need = 3, low = b == 0xF0 ? 0x90 : 0x80, top = b == 0xF4 ? 0x8F : 0xBF;
            else return OTHER_BYTES;
        }
    }
    return need == 0 ? UTF8 : OTHER_BYTES;
}

/* The next state of a byte stream shaped as GB18030 (gb) and as Big5 (big5), -1 once it is not: a lead byte
 * 0x81-0xFE then a trail byte (GB18030: 0x40-0x7E or 0x80-0xFE, or a digit, a lead and a digit; Big5: 0x40-0x7E
 * or 0xA1-0xFE).  Python's strict decoders read no stream of another shape. */
static inline int gb_shape(int state, int b) {
    if (state == 0) return b < 0x80 ? 0 : b >= 0x81 && b <= 0xFE ? 1 : -1;
    if (state == 1) return (b >= 0x40 && b <= 0x7E) || (b >= 0x80 && b <= 0xFE) ? 0 : b >= 0x30 && b <= 0x39 ? 2 : -1;
    if (state == 2) return b >= 0x81 && b <= 0xFE ? 3 : -1;
    return state == 3 && b >= 0x30 && b <= 0x39 ? 0 : -1;
}

static inline int big5_shape(int state, int b) {
    if (state == 0) return b < 0x80 ? 0 : b >= 0x81 && b <= 0xFE ? 1 : -1;
    return state == 1 && ((b >= 0x40 && b <= 0x7E) || (b >= 0xA1 && b <= 0xFE)) ? 0 : -1;
}

/* encoding.read_as_chinese's first test, on a text misread_byte reads (Latin-1, or Windows-1252: then every
 * character must have its byte, or Python does not read it so): GB_MIN_BYTES and GB_BYTES of its bytes past ASCII,
 * or GB_MANY_BYTES (a character past U+007F is one such byte); and bytes shaped as GB18030 or Big5 (a Western page
 * of many accented letters, each before a space or a letter GB18030 takes no pair of, is neither). */
static int may_be_chinese(int kind, const void *data, Py_ssize_t n) {
    Py_ssize_t high = 0;
    int gb = 0, big5 = 0;
    for (Py_ssize_t i = 0; i < n && (gb >= 0 || big5 >= 0); i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        int b = c < 0x80 ? (int)c : misread_byte(c);
        if (b < 0) return 0; /* a CJK character: no byte read it */
        high += b >= 0x80;
        if (gb >= 0) gb = gb_shape(gb, b);
        if (big5 >= 0) big5 = big5_shape(big5, b);
    }
    if (gb != 0 && big5 != 0) return 0;
    return high >= GB_MANY_BYTES || (high >= GB_MIN_BYTES && (double)high >= GB_BYTES * (double)n);
}

/* A bit for each of encoding.GBK_MARKS (BMP characters): 8 KB, one lookup a character; and the least of them. */
static uint64_t gbk_mark_bits[0x10000 / 64];
static Py_UCS4 gbk_mark_least = 0xFFFF;

static void init_gbk_marks(void) {
    for (int i = 0; i < N_GBK_MARKS; i++) {
        gbk_mark_bits[gbk_marks[i] >> 6] |= 1ULL << (gbk_marks[i] & 63);
        gbk_mark_least = gbk_marks[i] < gbk_mark_least ? gbk_marks[i] : gbk_mark_least;
    }
}

/* encoding.read_utf8_as_gbk's first test: GBK_MIN_MARKS of GBK_MARKS in a two- or four-byte text. */
static int may_be_utf8_as_gbk(int kind, const void *data, Py_ssize_t n) {
    Py_ssize_t found = 0;
    if (kind == PyUnicode_2BYTE_KIND) {
        const Py_UCS2 *s = data;
        /* The characters' bits or-ed (vectorised) bound the greatest: an English page's curly quotes skip the
         * lookups (they cost a page 1.3 us). */
        Py_UCS2 bits = 0;
        for (Py_ssize_t i = 0; i < n; i++) bits |= s[i];
        if (bits < gbk_mark_least) return 0;
        for (Py_ssize_t i = 0; i < n; i++) found += (gbk_mark_bits[s[i] >> 6] >> (s[i] & 63)) & 1;
    } else if (kind == PyUnicode_4BYTE_KIND) {
        const Py_UCS4 *s = data;
        for (Py_ssize_t i = 0; i < n; i++) found += s[i] < 0x10000 && ((gbk_mark_bits[s[i] >> 6] >> (s[i] & 63)) & 1);
    }
    return found >= GBK_MIN_MARKS;
}

/*
 * encoding.repair_mojibake: a new reference to the text decoded again, or to
 * text itself; NULL on error.  *python: the page may be GB18030 or Big5 read
 * as Latin-1 or Windows-1252, or UTF-8 read as GBK, which Python reads (encoding.read_as_chinese, read_utf8_as_gbk).
 */
static PyObject *repaired(PyObject *text, int *python) {
    *python = 0;
    Py_INCREF(text);
    for (int round = 0; round < MOJIBAKE_ROUNDS && !PyUnicode_IS_ASCII(text); round++) {
        int kind = PyUnicode_KIND(text);
        const void *data = PyUnicode_DATA(text);
        Py_ssize_t n = PyUnicode_GET_LENGTH(text);
        /* A character past U+FFFF: no single byte gives it (UTF-8 read as GBK, maybe) */
        int found = kind == PyUnicode_4BYTE_KIND ? NOT_BYTES : misread(kind, data, n, NULL); /* read once, no copy */
        if (found != UTF8) {
            /* Bytes that are no UTF-8 may be Chinese (read as Latin-1, or as Windows-1252: the two-byte kind,
             * where misread may have stopped before a character no byte gives); a text holding the marks has a
             * character no byte gives, wherever misread stopped. */
            *python = (found == OTHER_BYTES && may_be_chinese(kind, data, n)) ||
                      (kind != PyUnicode_1BYTE_KIND && may_be_utf8_as_gbk(kind, data, n));
            break;
        }
        unsigned char *raw = PyMem_RawMalloc((size_t)n);
        if (raw == NULL) {
            Py_DECREF(text);
            return PyErr_NoMemory();
        }
        misread(kind, data, n, raw);
        PyObject *decoded = PyUnicode_DecodeUTF8((const char *)raw, n, "strict");
        PyMem_RawFree(raw);
        Py_SETREF(text, decoded);
        if (text == NULL) return NULL;
    }
    return text;
}
#endif
