/*
 * nshash/_chrome.h: nshash.chrome.drop_chrome in C, in place on a code point
 * buffer: lines stripped (Py_UNICODE_ISSPACE, what str.strip uses), wrapped
 * lines joined, chrome lines dropped.  Included by _speedups.c only.
 */
#ifndef NSHASH_CHROME_H
#define NSHASH_CHROME_H
#include "_bylines.h"
#include "_sentences.h" /* line_key_of */
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
 * *cjk: the CJK characters of s[i:end] (text._weight), from the classes the
 * scan looks up anyway: a pass of its own over every line was a quarter of
 * drop_chrome.
 */
static Py_ssize_t count_separators(const Py_UCS4 *s, Py_ssize_t i, Py_ssize_t count, Py_ssize_t end, chrome_line *line,
                                   Py_ssize_t *cjk) {
    /* Steps from i < stop may read s[i + 2]; each character's class is looked up once (as the next one,
     * then as the current one), and the spaces around a spaced separator only where one stands. */
    Py_ssize_t stop = end - 2, wide = 0;
    unsigned current = i < end ? char_class(s[i]) : 0;
    while (i < stop) {
        unsigned next = char_class(s[i + 1]);
        if ((next & C_SEP_SPACED) && Py_UNICODE_ISSPACE(s[i]) && Py_UNICODE_ISSPACE(s[i + 2])) {
            count++;
            wide += ((current & C_CJK) != 0) + ((next & C_CJK) != 0) + is_cjk(s[i + 2]);
            i += 3;
            current = i < end ? char_class(s[i]) : 0;
        } else {
            count += (current & C_SEP_BARE) != 0;
            wide += (current & C_CJK) != 0;
            i++;
            current = next;
        }
    }
    /* The scan stands at most two characters before the end: a joined line goes on from here. */
    line->scan_at = i;
    line->scan_count = count;
    for (; i < end; i++) {
        unsigned cls = char_class(s[i]);
        count += (cls & C_SEP_BARE) != 0;
        wide += (cls & C_CJK) != 0;
    }
    *cjk = wide;
    return count;
}

static Py_ssize_t weight(const Py_UCS4 *s, Py_ssize_t n) {
    Py_ssize_t w = n;
    for (Py_ssize_t i = 0; i < n; i++) w += is_cjk(s[i]);
    return w;
}

/* text._ends_sentence on s[start:start + len] (len >= 1): a sentence end, or a closing bracket right after one. */
static inline int ends_at(const Py_UCS4 *s, Py_ssize_t start, Py_ssize_t len) {
    Py_UCS4 last = s[start + len - 1];
    if (char_class(last) & C_SENT_END) return 1;
    return len > 1 && in_list(closers, N_CLOSERS, last) && (char_class(s[start + len - 2]) & C_SENT_END);
}

/* chrome._INNER_END_RE's matches in s[start:start + len]: [.!?] before whitespace, and its marks (inner_end_marks,
 * generated from the pattern by setup.py: 。！？ and the full stops of other scripts). */
static Py_ssize_t inner_ends(const Py_UCS4 *s, Py_ssize_t start, Py_ssize_t len) {
    Py_ssize_t count = 0, end = start + len;
    for (Py_ssize_t i = start; i < end; i++) {
        Py_UCS4 c = s[i];
        if (in_list(inner_end_marks, N_INNER_END_MARKS, c)) count++;
        else if ((c == '.' || c == '!' || c == '?') && i + 1 < end && Py_UNICODE_ISSPACE(s[i + 1])) count++;
    }
    return count;
}

/* Whether a line closes a run of lines without a sentence end (drop_chrome): it ends a sentence, or is prose. */
static inline int closes_run(const Py_UCS4 *s, Py_ssize_t start, Py_ssize_t len) {
    return ends_at(s, start, len) || inner_ends(s, start, len) >= CHROME_PROSE;
}

static inline int ends_sentence(const Py_UCS4 *s, const chrome_line *line) {
    return ends_at(s, line->start, line->len);
}

/* text._continues(line, following): whether a wrapped sentence goes on in the next line. */
static int continues(const Py_UCS4 *s, const chrome_line *line, const chrome_line *next) {
    if (ends_sentence(s, line) || line->weight < WRAP_LOWER || line->seps >= 2 || next->seps >= 2) return 0;
    Py_UCS4 first = s[next->start], last = s[line->start + line->len - 1];
    if (line->weight < WRAP_MIN) return Py_UNICODE_ISLOWER(first) && line->weight == line->len; /* no CJK */
    return Py_UNICODE_ISLOWER(first) || Py_UNICODE_ISDIGIT(first) || (is_cjk(first) && is_cjk(last));
}

/*
 * chrome.wrap_width, read as drop_chrome goes: the lengths of the lines read so far that hold a space and no CJK
 * character, and, asked for the width, those of the lines not yet read.  Asked only when two lines of prose follow
 * one another (wraps): a Chinese page is seldom read twice (its wrap_width read first cost 3% of its features).
 */
typedef struct {
    Py_ssize_t lengths[WRAP_WIDEST + 1]; /* how many such lines of each length */
    Py_ssize_t ended[WRAP_WIDEST + 1];   /* ... and of those, how many end a sentence */
    Py_ssize_t fits[WRAP_WIDEST + 1];    /* lines that the next line's first word would have made this long */
    int too_long;                        /* one was longer than WRAP_WIDEST: a paragraph on one line, no width */
    Py_ssize_t width;                    /* -1 until asked */
} wrap_state;

/* A line of prose s[a:b] (a space, no CJK character; its first space at a + word) read; above: the length of the
 * line of prose right above it (0: none, or a blank line between). */
static inline void count_line(wrap_state *wrap, const Py_UCS4 *s, Py_ssize_t a, Py_ssize_t b, Py_ssize_t word,
                              Py_ssize_t above) {
    if (b - a > WRAP_WIDEST) {
        wrap->too_long = 1;
    } else {
        wrap->lengths[b - a]++;
        wrap->ended[b - a] += ends_at(s, a, b - a);
        if (above && above + 1 + word <= WRAP_WIDEST) wrap->fits[above + 1 + word]++;
    }
}

/* The width, once the lines of s[r:n] (not read yet) are counted too; above: the length of the line of prose
 * right above them (0: none). */
static Py_ssize_t width_of(wrap_state *wrap, const Py_UCS4 *s, Py_ssize_t r, Py_ssize_t n, Py_ssize_t above) {
    if (wrap->width >= 0) return wrap->width;
    while (r < n && !wrap->too_long) {
        Py_ssize_t end = find_char(s, r, n, '\n'), a = r, b = end;
        r = end + 1;
        while (a < b && Py_UNICODE_ISSPACE(s[a])) a++;
        while (b > a && Py_UNICODE_ISSPACE(s[b - 1])) b--;
        Py_ssize_t word = -1; /* where the first space is, from a */
        int cjk = 0;
        for (Py_ssize_t i = a; i < b && !cjk; i++) {
            if (word < 0 && s[i] == ' ') word = i - a;
            cjk = is_cjk(s[i]);
        }
        int prose = word >= 0 && !cjk;
        if (prose) count_line(wrap, s, a, b, word, above);
        above = prose ? b - a : 0;
    }
    Py_ssize_t width = WRAP_WIDEST, full = 0, ended = 0, fits = 0, body = 0;
    while (width > 0 && wrap->lengths[width] == 0) width--;
    for (Py_ssize_t size = width - WRAP_SLACK + 1; size <= width; size++) {
        full += size > 0 ? wrap->lengths[size] : 0;
        ended += size > 0 ? wrap->ended[size] : 0;
        fits += size > 0 ? wrap->fits[size] : 0;
    }
    for (Py_ssize_t size = WRAP_BODY; size <= WRAP_WIDEST; size++) body += wrap->lengths[size];
    int wrapped = !wrap->too_long && width >= WRAP_NARROWEST && full >= WRAP_FULL &&
                  (double)full >= WRAP_SHARE * (double)body && (double)ended <= WRAP_ENDED * (double)full &&
                  (double)fits <= WRAP_FITS * (double)full;
    return wrap->width = wrapped ? width : 0;
}

/* chrome.wrap_width of s[0:n], all of it read. */
static Py_ssize_t wrap_width(const Py_UCS4 *s, Py_ssize_t n) {
    wrap_state state = {{0}, {0}, {0}, 0, -1};
    return width_of(&state, s, 0, n, 0);
}

/* wrap_width of the page as it came, which restore_lines handed back (*came, len characters): read, then freed. */
static Py_ssize_t width_as_it_came(Py_UCS4 **came, Py_ssize_t len) {
    Py_ssize_t width = wrap_width(*came, len);
    PyMem_RawFree(*came);
    *came = NULL;
    return width;
}

/* The line read before the next one (not the line it may have been joined to), for chrome._wraps. */
typedef struct {
    Py_ssize_t len, seps;
    int prose; /* it holds a space and no CJK character */
} wrap_line;

/* chrome._wraps on the line s[a:b] below above (its first word word long: b - a without a space), the lines after
 * it s[r:n]. */
static int wraps(wrap_state *wrap, const Py_UCS4 *s, const wrap_line *above, Py_ssize_t a, Py_ssize_t b,
                 Py_ssize_t word, Py_ssize_t seps, Py_ssize_t cjk, Py_ssize_t r, Py_ssize_t n) {
    if (seps >= 2 || above->seps >= 2 || !above->prose || cjk) return 0;
    Py_ssize_t width = width_of(wrap, s, r, n, word < b - a ? b - a : 0);
    return width && above->len > width - WRAP_SLACK && above->len + 1 + word > width;
}

/*
 * The joined lines sit in the buffer separated by single '\n's, so a line is
 * known by its length alone (the next starts one past its end): drop_chrome
 * keeps 17 bytes a line (length, weight, separators up to 255: it only asks
 * whether there are fewer than CHROME_SEGMENTS), not a chrome_line.  Reading
 * a line's weight and separators once, not three and two times, took a third
 * off drop_chrome on the corpus's pages.
 */
typedef struct {
    Py_ssize_t *lens, *weights;
    unsigned char *seps;
} line_sizes;

static inline unsigned char capped(Py_ssize_t seps) { return (unsigned char)(seps < 255 ? seps : 255); }

/* drop_chrome on a whole page: short lines, menus and link lists (not wrapped paragraphs) go. */
static void without_chrome(const Py_UCS4 *s, const line_sizes *lines, unsigned char *keep, Py_ssize_t count) {
    const Py_ssize_t *lens = lines->lens;
    for (Py_ssize_t i = 0; i < count; i++)
        keep[i] = lines->weights[i] >= CHROME_SHORT && lines->seps[i] + 1 < CHROME_SEGMENTS;
    Py_ssize_t start = 0, at = 0; /* at: where line start begins */
    while (start < count) {
        Py_ssize_t end = start, end_at = at;
        while (end < count && !closes_run(s, end_at, lens[end])) end_at += lens[end++] + 1;
        if (end - start >= CHROME_RUN) {
            int wrapped = end < count;
            for (Py_ssize_t i = start; wrapped && i < end; i++) wrapped = lines->weights[i] >= WRAP_MIN;
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
    while (end > 0 && !closes_run(s, end_at - lens[end - 1], lens[end - 1])) end_at -= lens[--end] + 1;
    for (Py_ssize_t i = 0; i < count; i++) keep[i] = count - end < CHROME_RUN || i < end;
}

static void free_sizes(line_sizes *lines) {
    PyMem_RawFree(lines->lens);
    PyMem_RawFree(lines->weights);
    PyMem_RawFree(lines->seps);
}

/* Room for capacity lines; -1 (MemoryError set, nothing freed) when out of memory. */
static int grow_sizes(line_sizes *lines, Py_ssize_t capacity) {
    Py_ssize_t *lens = PyMem_RawRealloc(lines->lens, (size_t)capacity * sizeof(Py_ssize_t));
    if (lens != NULL) lines->lens = lens;
    Py_ssize_t *weights = lens == NULL ? NULL : PyMem_RawRealloc(lines->weights, (size_t)capacity * sizeof(Py_ssize_t));
    if (weights != NULL) lines->weights = weights;
    unsigned char *seps = weights == NULL ? NULL : PyMem_RawRealloc(lines->seps, (size_t)capacity);
    if (seps != NULL) lines->seps = seps;
    if (seps == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* site.site_key: a dropped line's key as it sets a member's line filter. */
static inline uint32_t site_key(uint32_t line_key) { return (uint32_t)((uint64_t)line_key * SITE_MIX); }

/* fingerprint.site_keys of what chrome.drop_chrome gives as edges: the lines keep drops above the first kept line and
 * below the last, SITE_EDGE_LINES at most at each edge; lines[i] starts past lens[0:i] and their '\n'. */
typedef struct {
    scratch *buf;
    uint32_t keys[2 * SITE_KEYS];
    Py_ssize_t count;
} site_signature;

/* byline: the byline's index (-1: none), never an edge line. */
static int edge_site_keys(const Py_UCS4 *s, const Py_ssize_t *lens, const unsigned char *keep, Py_ssize_t count,
                          Py_ssize_t byline, site_signature *site) {
    Py_ssize_t first = 0, last = count - 1, found = 0;
    while (first < count && !keep[first]) first++;
    if (first == count) return 0; /* nothing kept: no edges (the page stays whole) */
    while (!keep[last]) last--;
    /* SITE_EDGE_LINES lines at each edge, the byline not one of them */
    Py_ssize_t top = SITE_EDGE_LINES + (byline >= 0 && byline < first && byline < SITE_EDGE_LINES);
    Py_ssize_t bottom = count - SITE_EDGE_LINES - (byline > last && byline >= count - SITE_EDGE_LINES);
    uint32_t keys[2 * SITE_EDGE_LINES];
    for (Py_ssize_t i = 0, at = 0; i < count; at += lens[i++] + 1) {
        if (i == byline || !((i < first && i < top) || (i > last && i >= bottom))) continue;
        uint32_t key;
        Py_ssize_t chars;
        if (line_key_of(s + at, lens[i], site->buf, &key, &chars) < 0) return -1;
        if (chars < SITE_MIN_CHARS) continue;
        key = site_key(key);
        int seen = 0;
        for (Py_ssize_t j = 0; j < found && !seen; j++) seen = keys[j] == key;
        if (!seen) keys[found++] = key;
    }
    /* the first SITE_KEYS and the last SITE_KEYS */
    Py_ssize_t head = found > 2 * SITE_KEYS ? SITE_KEYS : found;
    memcpy(site->keys, keys, (size_t)head * sizeof(uint32_t));
    if (head < found) memcpy(site->keys + head, keys + found - SITE_KEYS, SITE_KEYS * sizeof(uint32_t));
    site->count = head < found ? 2 * SITE_KEYS : found;
    return 0;
}

/* drop_chrome in place; -1 (MemoryError set) when out of memory.  *joined: whether a wrapped line was joined.
 * site->keys: the page's site keys (site->count of them).  width: chrome.wrap_width of the page before
 * restore_lines broke its long lines, when it did; -1 when it did not (s is that page: read as it goes). */
static int drop_chrome(Py_UCS4 *s, Py_ssize_t *len, int *joined, site_signature *site, Py_ssize_t width) {
    Py_ssize_t n = *len, r = 0, w = 0, count = 0, capacity = 0;
    line_sizes lines = {NULL, NULL, NULL};
    unsigned char *keep = NULL;
    chrome_line last = {0, 0, 0, 0, 0, 0}; /* the line being read: the next may be joined to it */
    if (!has_char(s, n, '\n')) return 0;
    wrap_state state = {{0}, {0}, {0}, 0, width}, *wrap = &state;
    wrap_line above = {0, 0, 0};
    int blank = 0;          /* a blank line since the last line read */
    Py_ssize_t byline = -1; /* chrome.is_byline: the first one's index among the lines, never joined */
    while (r < n) {
        Py_ssize_t end = find_char(s, r, n, '\n');
        Py_ssize_t a = r, b = end;
        r = end + 1;
        while (a < b && Py_UNICODE_ISSPACE(s[a])) a++;
        while (b > a && Py_UNICODE_ISSPACE(s[b - 1])) b--;
        if (a == b) {
            blank = 1;
            continue;
        }
        chrome_line next = {a, b - a, 0, 0, 0, 0};
        Py_ssize_t cjk, unused;
        next.seps = count_separators(s, a, 0, b, &next, &cjk);
        next.weight = next.len + cjk;
        /* read before the line moves */
        Py_ssize_t word = cjk == 0 ? find_char(s, a, b, ' ') - a : b - a; /* its first word, when no CJK */
        int prose = cjk == 0 && word < b - a;
        if (prose && wrap->width < 0) count_line(wrap, s, a, b, word, !blank && above.prose ? above.len : 0);
        int is_by = byline < 0 && is_byline(s, a, b, next.weight);
        int joins = count > 0 && !is_by && byline != count - 1 &&
                    (continues(s, &last, &next) || (!blank && wraps(wrap, s, &above, a, b, word, next.seps, cjk, r, n)));
        above = (wrap_line){b - a, next.seps, prose};
        blank = 0;
        if (joins) {
            *joined = 1;
            s[w++] = ' '; /* w is at most the '\n' before this line: nothing unread is overwritten */
            memmove(s + w, s + a, (size_t)(b - a) * sizeof(Py_UCS4));
            w += b - a;
            last.len += 1 + (b - a);
            last.weight += 1 + next.weight;
            /* from where the scan stood: its CJK count is of a part of the line (the weight is added above) */
            last.seps = count_separators(s, last.scan_at, last.scan_count, last.start + last.len, &last, &unused);
            lines.lens[count - 1] = last.len;
            lines.weights[count - 1] = last.weight;
            lines.seps[count - 1] = capped(last.seps);
            continue;
        }
        if (count == capacity) {
            capacity = capacity ? 2 * capacity : 64;
            if (grow_sizes(&lines, capacity) < 0) {
                free_sizes(&lines);
                return -1;
            }
        }
        if (is_by) byline = count;
        if (count > 0) s[w++] = '\n'; /* the lines joined as the result has them */
        memmove(s + w, s + a, (size_t)(b - a) * sizeof(Py_UCS4));
        /* The scan state was taken at the line's reading position: move it along. */
        next.scan_at += w - a;
        next.start = w;
        w += b - a;
        last = next;
        lines.lens[count] = next.len;
        lines.weights[count] = next.weight;
        lines.seps[count++] = capped(next.seps);
    }
    keep = PyMem_RawMalloc(count > 0 ? (size_t)count : 1);
    if (keep == NULL) {
        free_sizes(&lines);
        PyErr_NoMemory();
        return -1;
    }
    if (count >= CHROME_MIN_LINES) without_chrome(s, &lines, keep, count);
    else without_edge_lists(s, w, lines.lens, keep, count);
    if (byline >= 0) keep[byline] = 0;
    Py_ssize_t kept = 0, total = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        total += lines.weights[i];
        kept += keep[i] ? lines.weights[i] : 0;
    }
    int whole = (double)kept < CHROME_KEEP * (double)total; /* the page stays whole, but its byline */
    if (whole && byline >= 0) {
        memset(keep, 1, (size_t)count);
        keep[byline] = 0;
    }
    if (!whole || byline >= 0) { /* else s[0:w] as it is */
        if (!whole && edge_site_keys(s, lines.lens, keep, count, byline, site) < 0) {
            free_sizes(&lines);
            PyMem_RawFree(keep);
            return -1;
        }
        Py_ssize_t out = 0;
        for (Py_ssize_t i = 0, at = 0; i < count; at += lines.lens[i++] + 1) {
            if (!keep[i]) continue;
            if (out > 0) s[out++] = '\n';
            memmove(s + out, s + at, (size_t)lines.lens[i] * sizeof(Py_UCS4));
            out += lines.lens[i];
        }
        w = out;
    }
    free_sizes(&lines);
    PyMem_RawFree(keep);
    *len = w;
    return 0;
}
#endif
