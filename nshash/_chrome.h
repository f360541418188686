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
    int keep;
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
        if (i + 2 < end && Py_UNICODE_ISSPACE(s[i]) && (char_class(s[i + 1]) & C_SEP_SPACED) &&
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

/* text._without_chrome: short lines, menus and link lists (not wrapped paragraphs) go. */
static void without_chrome(const Py_UCS4 *s, chrome_line *lines, Py_ssize_t count) {
    for (Py_ssize_t i = 0; i < count; i++)
        lines[i].keep = lines[i].weight >= CHROME_SHORT && lines[i].seps + 1 < CHROME_SEGMENTS;
    Py_ssize_t start = 0;
    while (start < count) {
        Py_ssize_t end = start;
        while (end < count && !ends_sentence(s, &lines[end])) end++;
        if (end - start >= CHROME_RUN) {
            int wrapped = end < count;
            for (Py_ssize_t i = start; wrapped && i < end; i++) wrapped = lines[i].weight >= WRAP_MIN;
            if (!wrapped)
                for (Py_ssize_t i = start; i < end; i++) lines[i].keep = 0;
        }
        start = end + 1;
    }
}

/* text._without_edge_lists: a link list at the bottom goes. */
static void without_edge_lists(const Py_UCS4 *s, chrome_line *lines, Py_ssize_t count) {
    Py_ssize_t end = count;
    while (end > 0 && !ends_sentence(s, &lines[end - 1])) end--;
    for (Py_ssize_t i = 0; i < count; i++) lines[i].keep = count - end < CHROME_RUN || i < end;
}

/* drop_chrome in place; -1 (MemoryError set) when out of memory. */
static int drop_chrome(Py_UCS4 *s, Py_ssize_t *len) {
    Py_ssize_t n = *len, r = 0, w = 0, count = 0, capacity = 0;
    chrome_line *lines = NULL;
    if (!has_char(s, n, '\n')) return 0;
    while (r < n) {
        Py_ssize_t end = r;
        while (end < n && s[end] != '\n') end++;
        Py_ssize_t a = r, b = end;
        r = end + 1;
        while (a < b && Py_UNICODE_ISSPACE(s[a])) a++;
        while (b > a && Py_UNICODE_ISSPACE(s[b - 1])) b--;
        if (a == b) continue;
        chrome_line next = {a, b - a, weight(s + a, b - a), 0, 0, 0, 1};
        next.seps = count_separators(s, a, 0, b, &next);
        if (count > 0 && continues(s, &lines[count - 1], &next)) {
            chrome_line *line = &lines[count - 1];
            s[w++] = ' '; /* w is at most the '\n' before this line: nothing unread is overwritten */
            memmove(s + w, s + a, (size_t)(b - a) * sizeof(Py_UCS4));
            w += b - a;
            line->len += 1 + (b - a);
            line->weight += 1 + next.weight;
            line->seps = count_separators(s, line->scan_at, line->scan_count, line->start + line->len, line);
            continue;
        }
        if (count == capacity) {
            capacity = capacity ? 2 * capacity : 64;
            chrome_line *grown = PyMem_RawRealloc(lines, (size_t)capacity * sizeof *lines);
            if (grown == NULL) {
                PyMem_RawFree(lines);
                PyErr_NoMemory();
                return -1;
            }
            lines = grown;
        }
        if (count > 0) w++; /* room for the '\n' that joins the lines in the end */
        memmove(s + w, s + a, (size_t)(b - a) * sizeof(Py_UCS4));
        /* The scan state was taken at the line's reading position: move it along. */
        next.scan_at += w - a;
        next.start = w;
        w += b - a;
        lines[count++] = next;
    }
    if (count >= CHROME_MIN_LINES) without_chrome(s, lines, count);
    else without_edge_lists(s, lines, count);
    Py_ssize_t kept = 0, total = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        total += lines[i].weight;
        kept += lines[i].keep ? lines[i].weight : 0;
    }
    int drop = (double)kept >= CHROME_KEEP * (double)total;
    w = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        if (drop && !lines[i].keep) continue;
        if (w > 0) s[w++] = '\n';
        memmove(s + w, s + lines[i].start, (size_t)lines[i].len * sizeof(Py_UCS4));
        w += lines[i].len;
    }
    PyMem_RawFree(lines);
    *len = w;
    return 0;
}
#endif
