/*
 * nshash/_linebreaks.h: nshash.linebreaks in C, on a code point buffer: every
 * line break made '\n' (in place), and lines over FLAT_LINE broken after their
 * sentence ends (into a new buffer).  Included by _speedups.c only.
 */
#ifndef NSHASH_LINEBREAKS_H
#define NSHASH_LINEBREAKS_H
#include "_chrome.h" /* weight */
#include "_tables.h"

/* The breaks str.splitlines knows besides '\n': \v \f \r, 0x1C-0x1E, U+0085, U+2028 and U+2029.  Compares
 * only, no branch and no shift by the character, so that the scan below is vectorised. */
static inline unsigned other_break(Py_UCS4 c) {
    return (c - 0x0B < 3u) | (c - 0x1C < 3u) | (c == 0x85) | ((c | 1) == 0x2029);
}

/* linebreaks.unify_breaks in place: "\r\n", "\r" and the other breaks made '\n'. */
static void unify_breaks(Py_UCS4 *s, Py_ssize_t *len) {
    Py_ssize_t n = *len, r = 0;
    /* Most pages have none: read 256 at a time, never written (one at a time, this was 5% of the features). */
    for (; r + 256 <= n; r += 256) {
        unsigned any = 0;
        for (int k = 0; k < 256; k++) any |= other_break(s[r + k]);
        if (any) break;
    }
    while (r < n && !other_break(s[r])) r++;
    Py_ssize_t w = r;
    for (; r < n; r++) {
        Py_UCS4 c = s[r];
        if (other_break(c)) {
            if (c == '\r' && r + 1 < n && s[r + 1] == '\n') r++;
            c = '\n';
        }
        s[w++] = c;
    }
    *len = w;
}

/* Whether s[start:end] stripped (Py_UNICODE_ISSPACE, as str.strip) weighs over limit. */
static int heavy(const Py_UCS4 *s, Py_ssize_t start, Py_ssize_t end, Py_ssize_t limit) {
    if (2 * (end - start) <= limit) return 0; /* a CJK character weighs 2 */
    while (start < end && Py_UNICODE_ISSPACE(s[start])) start++;
    while (end > start && Py_UNICODE_ISSPACE(s[end - 1])) end--;
    if (end - start > limit) return 1; /* every character weighs 1 or more */
    return 2 * (end - start) > limit && weight(s + start, end - start) > limit;
}

static int blank(const Py_UCS4 *s, Py_ssize_t start, Py_ssize_t end) {
    while (start < end && Py_UNICODE_ISSPACE(s[start])) start++;
    return start == end;
}

/* Where the first and the last lines of s[0:n] that are not blank start (-1, -1: none). */
static void edge_lines(const Py_UCS4 *s, Py_ssize_t n, Py_ssize_t *first, Py_ssize_t *last) {
    *first = *last = -1;
    for (Py_ssize_t start = 0; start < n && *first < 0;) {
        Py_ssize_t end = find_char(s, start, n, '\n');
        if (!blank(s, start, end)) *first = start;
        start = end + 1;
    }
    for (Py_ssize_t end = n; end > 0 && *last < 0;) {
        Py_ssize_t start = end;
        while (start > 0 && s[start - 1] != '\n') start--;
        if (!blank(s, start, end)) *last = start;
        end = start - 1;
    }
}

/* Where linebreaks._FLAT_END_RE's match at s[i] (line ending at end) ends, the whitespace after it included; 0: none. */
static Py_ssize_t flat_end_at(const Py_UCS4 *s, Py_ssize_t i, Py_ssize_t end, Py_ssize_t *kept) {
    Py_ssize_t j = i;
    if (in_list(flat_cjk_ends, N_FLAT_CJK_ENDS, s[i])) {
        while (j < end && in_list(flat_cjk_ends, N_FLAT_CJK_ENDS, s[j])) j++;
        while (j < end && in_list(flat_cjk_closers, N_FLAT_CJK_CLOSERS, s[j])) j++;
    } else if (in_list(flat_latin_ends, N_FLAT_LATIN_ENDS, s[i])) {
        while (j < end && in_list(flat_latin_ends, N_FLAT_LATIN_ENDS, s[j])) j++;
        while (j < end && in_list(flat_latin_closers, N_FLAT_LATIN_CLOSERS, s[j])) j++;
        if (j == end || !Py_UNICODE_ISSPACE(s[j])) return 0; /* no whitespace after it: a "3.14" */
    } else {
        return 0;
    }
    *kept = j;
    while (j < end && Py_UNICODE_ISSPACE(s[j])) j++;
    return j;
}

/* Called for every character of a page: one lookup inline, the rest only at a sentence end's mark. */
static inline Py_ssize_t flat_end(const Py_UCS4 *s, Py_ssize_t i, Py_ssize_t end, Py_ssize_t *kept) {
    return char_class(s[i]) & C_FLAT_END ? flat_end_at(s, i, end, kept) : 0;
}

/* Whether s[0:n] weighs limit or more: every character weighs 1 or more, so one of limit characters or more is
 * not read (its CJK characters, counted at each sentence end, were a seventh of segment_pieces' instructions). */
static inline int weighs(const Py_UCS4 *s, Py_ssize_t n, Py_ssize_t limit) {
    return n >= limit || weight(s, n) >= limit;
}

/* s[start:end] written to out at *w, broken after its sentence ends that close a piece of FLAT_PIECE or more. */
static void break_line(const Py_UCS4 *s, Py_ssize_t start, Py_ssize_t end, Py_UCS4 *out, Py_ssize_t *w) {
    Py_ssize_t o = *w;
    for (Py_ssize_t i = start, piece = start; i < end;) {
        Py_ssize_t kept, next = flat_end(s, i, end, &kept);
        if (next == 0 || next == end || !weighs(s + piece, kept - piece, FLAT_PIECE)) {
            /* no end here, one at the line's end, or a piece too light to be a line: it goes on */
            Py_ssize_t to = next == 0 ? i + 1 : next;
            while (i < to) out[o++] = s[i++];
            continue;
        }
        while (i < kept) out[o++] = s[i++];
        out[o++] = '\n';
        i = piece = next;
    }
    *w = o;
}

/*
 * linebreaks.restore_lines: each line over limit broken after its sentence ends that end a piece
 * of FLAT_PIECE or more (the whitespace after one becomes the '\n'); edges: only the first and the
 * last lines that are not blank (linebreaks.restore_edges).  A piece is 10 code points or more
 * (FLAT_PIECE is 20 and a code point weighs at most 2), so the text grows by at most a tenth: one
 * buffer of that size, no counting pass.  -1 (MemoryError set) when out of memory.  came: when not NULL
 * and *came is NULL, the buffer replaced is handed back there, not freed (the text as it came: drop_chrome
 * reads the width it was wrapped at from it), for the caller to free.
 */
static int restore_lines_keeping(Py_UCS4 **buf, Py_ssize_t *len, Py_ssize_t *capacity, Py_ssize_t limit, int edges,
                                 Py_UCS4 **came) {
    Py_UCS4 *s = *buf;
    Py_ssize_t n = *len, first = -1, top = -1, bottom = -1;
    if (2 * n <= limit) return 0; /* no line can weigh more */
    if (edges) edge_lines(s, n, &top, &bottom);
#define BREAKS(start, end) ((!edges || (start) == top || (start) == bottom) && heavy(s, start, end, limit))
    for (Py_ssize_t start = 0; start < n && first < 0;) {
        Py_ssize_t end = find_char(s, start, n, '\n');
        if (BREAKS(start, end)) first = start;
        start = end + 1;
    }
    if (first < 0) return 0;
    Py_ssize_t size = n + n / (FLAT_PIECE / 2) + 2;
    Py_UCS4 *out = PyMem_RawMalloc((size_t)size * sizeof(Py_UCS4));
    if (out == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    memcpy(out, s, (size_t)first * sizeof(Py_UCS4));
    Py_ssize_t w = first;
    for (Py_ssize_t start = first; start <= n;) {
        Py_ssize_t end = find_char(s, start, n, '\n');
        if (BREAKS(start, end)) {
            break_line(s, start, end, out, &w);
        } else {
            memcpy(out + w, s + start, (size_t)(end - start) * sizeof(Py_UCS4));
            w += end - start;
        }
        if (end < n) out[w++] = '\n';
        start = end + 1;
    }
#undef BREAKS
    if (came != NULL && *came == NULL) *came = s; /* the text as it came, for the caller to free */
    else PyMem_RawFree(s);
    *buf = out;
    *len = w;
    *capacity = size;
    return 0;
}

/* pieces.piece_key */
static inline uint32_t piece_key(uint32_t line_key) {
    return (uint32_t)((uint64_t)line_key * PIECE_MUL + PIECE_ADD); /* mod 2**64, then 2**32: as & 0xFFFFFFFF */
}

/* fingerprint.line_key of the last PIECE_SUFFIX characters of a normalised line of more (line_mark and its UTF-8 at
 * o[0:end - o], hashed already): they are its last bytes, from the PIECE_SUFFIX-th byte from its end that does not
 * continue a character, and line_mark is written over the byte before them.  Normalising the suffix again, and
 * finding where it starts in the piece, were over a third of put_flat_piece's instructions. */
static uint32_t suffix_key(unsigned char *o, unsigned char *end, Py_ssize_t chars) {
    unsigned char *from = end;
    if (end - o - LINE_MARK_LEN == chars) from -= PIECE_SUFFIX; /* a byte a character */
    else
        for (int left = PIECE_SUFFIX; left > 0;) left -= (*--from & 0xC0) != 0x80;
    memcpy(from - LINE_MARK_LEN, line_mark, LINE_MARK_LEN);
    return marked_key(from - LINE_MARK_LEN, end, PIECE_SUFFIX);
}

/* One piece of pieces.flat_pieces: j[a:b], keyed by its last PIECE_SUFFIX normalised characters and whole, appended
 * to out with the keyed lines it lies in (starts: where each begins in j).  0, or -1 (MemoryError set). */
static int put_flat_piece(const Py_UCS4 *j, Py_ssize_t a, Py_ssize_t b, const Py_ssize_t *starts, Py_ssize_t lines,
                          Py_ssize_t *line, scratch *buf, uint32_t *out, Py_ssize_t *count) {
    Py_ssize_t chars;
    unsigned char *end = normalise_line(j + a, b - a, buf, &chars);
    if (end == NULL) return -1;
    if (chars == 0) return 0; /* nothing but noise: no key */
    uint32_t whole = marked_key(buf->data, end, chars);
    uint32_t key = chars <= PIECE_SUFFIX ? whole : suffix_key(buf->data, end, chars);
    while (*line + 1 < lines && starts[*line + 1] <= a) (*line)++;
    Py_ssize_t last = *line;
    while (last + 1 < lines && starts[last + 1] <= b - 1) last++;
    out[(*count)++] = piece_key(key);
    out[(*count)++] = whole;
    out[(*count)++] = (uint32_t)*line;
    out[(*count)++] = (uint32_t)last;
    return 0;
}

/* The pieces of the keyed lines of s[0:n] whose index among them is in [from, to), appended to *out (room words,
 * *count used).  0, or -1 (MemoryError set). */
static int segment_pieces(const Py_UCS4 *s, Py_ssize_t n, const unsigned char *keyed, Py_ssize_t from, Py_ssize_t to,
                          scratch *buf, uint32_t **out, Py_ssize_t *room, Py_ssize_t *count) {
    Py_ssize_t size = 0, t = 0, k = 0;
    for (Py_ssize_t r = 0, end = 0; r < n; r = end + 1) { /* the segment's size: one buffer of it */
        end = find_char(s, r, n, '\n');
        if (keyed[t++] && k++ >= from && k <= to) size += end - r + 1;
    }
    Py_ssize_t lines = to - from;
    Py_UCS4 *j = PyMem_RawMalloc((size_t)(size + 1) * sizeof(Py_UCS4));
    Py_ssize_t *starts = PyMem_RawMalloc((size_t)(lines + 1) * sizeof(Py_ssize_t));
    /* a piece is 10 code points or more but the last (FLAT_PIECE is 20, a code point weighs at most 2) */
    Py_ssize_t need = *count + 4 * (size / (FLAT_PIECE / 2) + 2);
    if (need > *room) {
        uint32_t *more = PyMem_RawRealloc(*out, (size_t)need * sizeof(uint32_t));
        if (more != NULL) {
            *out = more;
            *room = need;
        }
    }
    int status = -1;
    if (j == NULL || starts == NULL || *room < need) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t len = 0, at = 0;
    t = k = 0;
    for (Py_ssize_t r = 0, end = 0; r < n; r = end + 1) {
        end = find_char(s, r, n, '\n');
        if (!keyed[t++] || k++ < from || k > to) continue;
        Py_ssize_t a = r, b = end;
        while (a < b && Py_UNICODE_ISSPACE(s[a])) a++;
        while (b > a && Py_UNICODE_ISSPACE(s[b - 1])) b--;
        if (at) j[len++] = ' ';
        starts[at++] = len;
        memcpy(j + len, s + a, (size_t)(b - a) * sizeof(Py_UCS4));
        len += b - a;
    }
    Py_ssize_t start = 0, line = 0, first = *count;
    for (Py_ssize_t i = 0; i < len;) {
        Py_ssize_t kept, next = flat_end(j, i, len, &kept);
        if (next == 0) {
            i++;
            continue;
        }
        if (next < len && weighs(j + start, kept - start, FLAT_PIECE)) {
            if (put_flat_piece(j, start, kept, starts, lines, &line, buf, *out, count) < 0) goto done;
            start = next;
        }
        i = next;
    }
    if (put_flat_piece(j, start, len, starts, lines, &line, buf, *out, count) < 0) goto done;
    for (Py_ssize_t w = first; w < *count; w += 4) { /* the segment's line indices, the page's */
        (*out)[w + 2] += (uint32_t)from;
        (*out)[w + 3] += (uint32_t)from;
    }
    status = 0;
done:
    PyMem_RawFree(j);
    PyMem_RawFree(starts);
    return status;
}

/*
 * pieces.flat_pieces of the page's keyed lines (keyed[t]: whether the t-th line of s[0:n] is): of the first and
 * the last PIECE_LINES of them, or of all when they are no more than twice that; suffix key, key, first line,
 * last line of each piece, as array('I').  NULL (error set) on failure.
 */
static PyObject *flat_pieces(const Py_UCS4 *s, Py_ssize_t n, const unsigned char *keyed, scratch *buf) {
    Py_ssize_t total = 0, t = 0;
    for (Py_ssize_t r = 0, end = 0; r < n; r = end + 1) {
        end = find_char(s, r, n, '\n');
        total += keyed[t++];
    }
    uint32_t *out = NULL;
    Py_ssize_t room = 0, count = 0;
    int failed = total <= 2 * PIECE_LINES
                     ? segment_pieces(s, n, keyed, 0, total, buf, &out, &room, &count) < 0
                     : segment_pieces(s, n, keyed, 0, PIECE_LINES, buf, &out, &room, &count) < 0 ||
                           segment_pieces(s, n, keyed, total - PIECE_LINES, total, buf, &out, &room, &count) < 0;
    PyObject *result = failed ? NULL : u32_array(out, count);
    PyMem_RawFree(out);
    return result;
}

/* linebreaks.edge_lengths, each length from the start of its line (edge_lines): a break restore_lines or
 * restore_edges puts in either shortens it as it shortens the Python's, which is all Features.flat compares. */
static void edge_lengths(const Py_UCS4 *s, Py_ssize_t n, Py_ssize_t *head, Py_ssize_t *tail) {
    Py_ssize_t first, last;
    edge_lines(s, n, &first, &last);
    *head = first < 0 ? 0 : find_char(s, first, n, '\n') - first;
    *tail = last < 0 ? 0 : find_char(s, last, n, '\n') - last;
}

/* linebreaks.restore_edges */
static int restore_lines(Py_UCS4 **buf, Py_ssize_t *len, Py_ssize_t *capacity, Py_ssize_t limit, int edges) {
    return restore_lines_keeping(buf, len, capacity, limit, edges, NULL);
}

static int restore_edges(Py_UCS4 **buf, Py_ssize_t *len, Py_ssize_t *capacity) {
    return restore_lines(buf, len, capacity, FLAT_EDGE, 1);
}
#endif
