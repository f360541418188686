/*
 * nshash/_mojibake.h: nshash.encoding.repair_mojibake in C: a page whose UTF-8
 * bytes were read as Latin-1 or Windows-1252, decoded again.  Included by
 * _speedups.c only.
 */
#ifndef NSHASH_MOJIBAKE_H
#define NSHASH_MOJIBAKE_H

/* The byte a misread page's character was read from (encoding._CP1252_BYTES; below U+0100 itself); -1: none. */
static inline int misread_byte(Py_UCS4 c) {
    if (c < 0x100) return (int)c;
    for (int i = 0; i < N_CP1252_HIGH; i++)
        if (cp1252_high[i] == c) return 0x80 + i;
    return -1;
}

/*
 * Whether text[0:n] is bytes misread (every character one of misread_byte's)
 * that are well-formed UTF-8, as Python's strict decoder takes it: no overlong
 * form, no surrogate, nothing past U+10FFFF.  out (if not NULL): the bytes.
 * Stops at the first character or byte that says no: a Chinese or an English
 * page (a curly quote is a lone continuation byte) is read only that far.
 */
static int misread_utf8(int kind, const void *data, Py_ssize_t n, unsigned char *out) {
    int need = 0, low = 0x80, high = 0xBF;
    for (Py_ssize_t i = 0; i < n; i++) {
        int b = misread_byte(PyUnicode_READ(kind, data, i));
        if (b < 0) return 0;
        if (out != NULL) out[i] = (unsigned char)b;
        if (need > 0) {
            if (b < low || b > high) return 0;
            low = 0x80, high = 0xBF;
            need--;
        } else if (b >= 0x80) {
            if (b >= 0xC2 && b <= 0xDF) need = 1;
            else if (b >= 0xE0 && b <= 0xEF) need = 2, low = b == 0xE0 ? 0xA0 : 0x80, high = b == 0xED ? 0x9F : 0xBF;
            else if (b >= 0xF0 && b <= 0xF4) need = 3, low = b == 0xF0 ? 0x90 : 0x80, high = b == 0xF4 ? 0x8F : 0xBF;
            else return 0;
        }
    }
    return need == 0;
}

/* encoding.repair_mojibake: a new reference to the text decoded again, or to text itself; NULL on error. */
static PyObject *repaired(PyObject *text) {
    Py_INCREF(text);
    for (int round = 0; round < MOJIBAKE_ROUNDS && !PyUnicode_IS_ASCII(text); round++) {
        int kind = PyUnicode_KIND(text);
        const void *data = PyUnicode_DATA(text);
        Py_ssize_t n = PyUnicode_GET_LENGTH(text);
        /* A character past U+FFFF has no byte; a page that is not misread is read once, without a copy. */
        if (kind == PyUnicode_4BYTE_KIND || !misread_utf8(kind, data, n, NULL)) break;
        unsigned char *raw = PyMem_RawMalloc((size_t)n);
        if (raw == NULL) {
            Py_DECREF(text);
            return PyErr_NoMemory();
        }
        misread_utf8(kind, data, n, raw);
        PyObject *decoded = PyUnicode_DecodeUTF8((const char *)raw, n, "strict");
        PyMem_RawFree(raw);
        Py_SETREF(text, decoded);
        if (text == NULL) return NULL;
    }
    return text;
}
#endif
