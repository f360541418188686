/*
 * nshash/_chrome.h: nshash.text.drop_chrome in C, in place on a code point
 * buffer: lines stripped (Py_UNICODE_ISSPACE, what str.strip uses), wrapped
 * lines joined, chrome lines dropped.  Included by _speedups.c only.
 */
#ifndef NSHASH_CHROME_H
#define NSHASH_CHROME_H
#include "_tables.h"

typedef struct {
    Py_ssize_t start, len; /* in the (compacted) buffer */
    Py_ssize_t weight;     /* text._weight */
    Py_ssize_t seps;       /* len(_SEPARATOR_RE.findall(line)) */
    /* Where the separator scan stood two characters before the end: a joined
     * line is scanned on from there, not again from its start. */
    Py_ssize_t scan_at, scan_count;
} chrome_line;

/*
 * _SEPARATOR_RE.findall, counted: `\s[SPACED]\s|[BARE]`, leftmost first, the
 * first alternative tried first.  Scans s[i:end] from a count already made.
 */
static Py_ssize_t count_separators(const Py_UCS4 *s, Py_ssize_t i, Py_ssize_t count, Py_ssize_t end, chrome_line *line) {
    int saved = 0;
    while (i < end) {
        if (!saved && i >= end - 2) { /* steps before this one read only characters before the end */
            line->scan_at = i;
            line->scan_count = count;
            saved = 1;
        }
        /* The table lookup first: Py_UNICODE_ISSPACE is a function call outside ASCII. */
        if (i + 2 < end && (char_class(s[i + 1]) & C_SEP_SPACED) && Py_UNICODE_ISSPACE(s[i]) &&
            Py_UNICODE_ISSPACE(s[i + 2])) {
            count++;
            i += 3;
        } else {
            count += (char_class(s[i]) & C_SEP_BARE) != 0;
            i++;
        }
    }
    if (!saved) {
        line->scan_at = i;
        line->scan_count = count;
    }
    return count;
}

static Py_ssize_t weight(const Py_UCS4 *s, Py_ssize_t n) {
    Py_ssize_t w = n;
    for (Py_ssize_t i = 0; i < n; i++) w += is_cjk(s[i]);
    return w;
}

static inline int ends_sentence(const Py_UCS4 *s, const chrome_line *line) {
    return (char_class(s[line->start + line->len - 1]) & C_SENT_END) != 0;
}

/* text._continues(line, following): whether a wrapped sentence goes on in the next line. */
static int continues(const Py_UCS4 *s, const chrome_line *line, const chrome_line *next) {
    if (ends_sentence(s, line) || line->weight < WRAP_MIN || line->seps >= 2 || next->seps >= 2) return 0;
    Py_UCS4 first = s[next->start], last = s[line->start + line->len - 1];
    return Py_UNICODE_ISLOWER(first) || Py_UNICODE_ISDIGIT(first) || (is_cjk(first) && is_cjk(last));
}

/*
 * The joined lines sit in the buffer separated by single '\n's, so a line is
 * known by its length alone (the next starts one past its end): drop_chrome
 * keeps 8 bytes a line, not a chrome_line, and recomputes a finished line's
 * weight and separators when it needs them (each line a constant number of
 * times).  A page of millions of tiny lines stays within a few bytes a character.
 */
static Py_ssize_t separators(const Py_UCS4 *s, Py_ssize_t start, Py_ssize_t len) {
    chrome_line scan;
    return count_separators(s, start, 0, start + len, &scan);
}

static inline int ends_at(const Py_UCS4 *s, Py_ssize_t start, Py_ssize_t len) {
    return (char_class(s[start + len - 1]) & C_SENT_END) != 0;
}

/* drop_chrome on a whole page: short lines, menus and link lists (not wrapped paragraphs) go. */
static void without_chrome(const Py_UCS4 *s, const Py_ssize_t *lens, unsigned char *keep, Py_ssize_t count) {
    for (Py_ssize_t i = 0, at = 0; i < count; at += lens[i++] + 1)
        keep[i] = weight(s + at, lens[i]) >= CHROME_SHORT && separators(s, at, lens[i]) + 1 < CHROME_SEGMENTS;
    Py_ssize_t start = 0, at = 0; /* at: where line start begins */
    while (start < count) {
        Py_ssize_t end = start, end_at = at;
        while (end < count && !ends_at(s, end_at, lens[end])) end_at += lens[end++] + 1;
        if (end - start >= CHROME_RUN) {
            int wrapped = end < count;
            for (Py_ssize_t i = start, i_at = at; wrapped && i < end; i_at += lens[i++] + 1)
                wrapped = weight(s + i_at, lens[i]) >= WRAP_MIN;
            if (!wrapped) memset(keep + start, 0, (size_t)(end - start));
        }
        if (end < count) end_at += lens[end] + 1;
        start = end + 1;
        at = end_at;
    }
}

/* drop_chrome on a page of few lines: a link list at the bottom goes. */
static void without_edge_lists(const Py_UCS4 *s, Py_ssize_t w, const Py_ssize_t *lens, unsigned char *keep,
                               Py_ssize_t count) {
    Py_ssize_t end = count, end_at = w; /* end_at: one past the last character of line end - 1 */
    while (end > 0 && !ends_at(s, end_at - lens[end - 1], lens[end - 1])) end_at -= lens[--end] + 1;
    for (Py_ssize_t i = 0; i < count; i++) keep[i] = count - end < CHROME_RUN || i < end;
}

/* drop_chrome in place; -1 (MemoryError set) when out of memory. */
static int drop_chrome(Py_UCS4 *s, Py_ssize_t *len) {
    Py_ssize_t n = *len, r = 0, w = 0, count = 0, capacity = 0;
    Py_ssize_t *lens = NULL;
    unsigned char *keep = NULL;
    chrome_line last = {0, 0, 0, 0, 0, 0}; /* the line being read: the next may be joined to it */
    if (!has_char(s, n, '\n')) return 0;
    while (r < n) {
        Py_ssize_t end = r;
        while (end < n && s[end] != '\n') end++;
        Py_ssize_t a = r, b = end;
        r = end + 1;
        while (a < b && Py_UNICODE_ISSPACE(s[a])) a++;
        while (b > a && Py_UNICODE_ISSPACE(s[b - 1])) b--;
        if (a == b) continue;
        chrome_line next = {a, b - a, weight(s + a, b - a), 0, 0, 0};
        next.seps = count_separators(s, a, 0, b, &next);
        if (count > 0 && continues(s, &last, &next)) {
            s[w++] = ' '; /* w is at most the '\n' before this line: nothing unread is overwritten */
            memmove(s + w, s + a, (size_t)(b - a) * sizeof(Py_UCS4));
            w += b - a;
            last.len += 1 + (b - a);
            last.weight += 1 + next.weight;
            last.seps = count_separators(s, last.scan_at, last.scan_count, last.start + last.len, &last);
            lens[count - 1] = last.len;
            continue;
        }
        if (count == capacity) {
            capacity = capacity ? 2 * capacity : 64;
            Py_ssize_t *grown = PyMem_RawRealloc(lens, (size_t)capacity * sizeof *lens);
            if (grown == NULL) {
                PyMem_RawFree(lens);
                PyErr_NoMemory();
                return -1;
            }
            lens = grown;
        }
        if (count > 0) s[w++] = '\n'; /* the lines joined as the result has them */
        memmove(s + w, s + a, (size_t)(b - a) * sizeof(Py_UCS4));
        /* The scan state was taken at the line's reading position: move it along. */
        next.scan_at += w - a;
        next.start = w;
        w += b - a;
        last = next;
        lens[count++] = next.len;
    }
    keep = PyMem_RawMalloc(count > 0 ? (size_t)count : 1);
    if (keep == NULL) {
        PyMem_RawFree(lens);
        PyErr_NoMemory();
        return -1;
    }
    if (count >= CHROME_MIN_LINES) without_chrome(s, lens, keep, count);
    else without_edge_lists(s, w, lens, keep, count);
    Py_ssize_t kept = 0, total = 0;
    for (Py_ssize_t i = 0, at = 0; i < count; at += lens[i++] + 1) {
        Py_ssize_t line_weight = weight(s + at, lens[i]);
        total += line_weight;
        kept += keep[i] ? line_weight : 0;
    }
    if ((double)kept >= CHROME_KEEP * (double)total) { /* else the page stays whole: s[0:w] as it is */
        Py_ssize_t out = 0;
        for (Py_ssize_t i = 0, at = 0; i < count; at += lens[i++] + 1) {
            if (!keep[i]) continue;
            if (out > 0) s[out++] = '\n';
            memmove(s + out, s + at, (size_t)lens[i] * sizeof(Py_UCS4));
            out += lens[i];
        }
        w = out;
    }
    PyMem_RawFree(lens);
    PyMem_RawFree(keep);
    *len = w;
    return 0;
}
#endif
