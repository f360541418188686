/*
 * nshash/_frame.h: the header and footer a page shares with a member, the
 * site test and the checks on what is left without them, as nshash.frame,
 * nshash.site and the chrome helpers of nshash.sketch specify them.
 * Included by _speedups.c only (after _estimate.h); tests compare every
 * function with the Python one.
 */
#ifndef NSHASH_FRAME_H
#define NSHASH_FRAME_H

/* site.same_site: whether the document is of the site of a member whose line filter is lines. */
static int same_site(const doc_lines *d, const uint64_t *lines) {
    if (d->site_count < SITE_MIN_MATCHES) return 0;
    Py_ssize_t hits = 0;
    for (Py_ssize_t i = 0; i < d->site_count; i++) hits += has_line(lines, d->site[i]);
    return hits >= SITE_MIN_MATCHES && (double)hits >= SITE_MATCH * (double)d->site_count;
}

/* edges._edge_run over shared[] (read from the end when reversed): marks the run in out[] (original indices). */
static Py_ssize_t edge_run(const doc_lines *d, int reversed, Py_ssize_t skip, unsigned char *out, int *beyond_first) {
    Py_ssize_t n = d->count, start = 0, found = 0;
#define AT(i) (reversed ? n - 1 - (i) : (i))
    while (start < skip && start < n && !d->shared[AT(start)]) start++;
    int gap = 0;
    for (Py_ssize_t i = start; i < n; i++) {
        Py_ssize_t at = AT(i);
        if (d->shared[at]) {
            out[at] = 1;
            found++;
            if (i != 0) *beyond_first = 1;
            gap = 0;
        } else if (gap || !found || d->grams[at] >= GAP_GRAMS) {
            break;
        } else {
            gap = 1;
        }
    }
#undef AT
    return found;
}

/* edges.at_the_end: whether the lines marked in[] end the page the member's tail names, as a footer would. */
static int at_the_end(const doc_lines *d, uint32_t tail, const unsigned char *in) {
    int long_line = 0;
    Py_ssize_t run = 0, total = 0;
    for (Py_ssize_t i = 0; i < d->count; i++) {
        total += d->grams[i];
        if (!in[i]) continue;
        run += d->grams[i];
        uint32_t t = tag(d->keys[i]);
        for (int part = 1; part < 3; part++) /* the line before the last, the last line */
            if (t == ((tail >> (TAG_BITS * part)) & TAG_MASK)) return 1;
        long_line |= t == (tail & TAG_MASK); /* the last long line */
    }
    return long_line && (double)run < FOOT_SHARE * (double)total;
}

/* edges._stepped_over: how many of d's last lines of its own chrome_lines steps over (d->shared filled): up to limit
 * short ones, the first whatever its size on a flat page; glued last lines count as one (checked by the caller). */
static Py_ssize_t stepped_over(const doc_lines *d, Py_ssize_t limit, Py_ssize_t glued) {
    Py_ssize_t n = d->count, skip = glued, units = glued ? 1 : 0;
    while (units < limit && skip < n && !d->shared[n - 1 - skip] &&
           (d->grams[n - 1 - skip] < LIST_GRAMS || (d->flat && skip == 0))) {
        skip++;
        units++;
    }
    return skip;
}

/* edges.chrome_lines: the header and footer the document shares with a member, marked in head and foot (known:
 * the lines other clusters have); 0 when there are none.  *header: whether a header is shared (shares_header). */
static int chrome_lines(doc_lines *d, const uint64_t *lines, uint32_t tail, const unsigned char *known,
                        Py_ssize_t glued, unsigned char *head, unsigned char *foot, int *header) {
    Py_ssize_t n = d->count;
    for (Py_ssize_t i = 0; i < n; i++) {
        d->shared[i] = (unsigned char)has_line(lines, d->keys[i]);
        head[i] = foot[i] = 0;
    }
    int head_beyond_top = 0, unused = 0;
    edge_run(d, 0, 1, head, &head_beyond_top);
    *header = head_beyond_top;
    Py_ssize_t limit = head_beyond_top ? LIST_LINES : OWN_LINES, skip = stepped_over(d, limit, 0);
    int found = edge_run(d, 1, skip, foot, &unused) > 0;
    if (glued > n) glued = n;
    int glued_own = glued > 0;
    for (Py_ssize_t i = 0; i < glued; i++) glued_own &= !d->shared[n - 1 - i];
    if (!found && glued_own) { /* edges.chrome_lines: the glued lines as one, when the run above holds a known line */
        Py_ssize_t over = stepped_over(d, limit, glued);
        int any_known = 0; /* foot is all 0 here: the run is marked in it, and cleared again if it holds none */
        if (edge_run(d, 1, over, foot, &unused))
            for (Py_ssize_t i = 0; i < n; i++) any_known |= foot[i] && known[i];
        if (any_known) {
            skip = over;
            found = 1;
        } else {
            for (Py_ssize_t i = 0; i < n; i++) foot[i] = 0;
        }
    }
    if (!found) return 0;
    Py_ssize_t beyond = 0; /* the first line of the foot outside the head (n: none, one shared block) */
    while (beyond < n && (!foot[beyond] || head[beyond])) beyond++;
    if (skip && beyond == n) return 0; /* one shared block above lines of the page's own */
    if (tail && beyond == n && !at_the_end(d, tail, head)) return 0; /* one block without the member's end */
    if (tail) { /* no header (or, edges._own_footer, the page's own known footer stepped over and fewer than
                   FOOT_KNOWN of the run above it known lines), and the member's last lines not in the "footer":
                   the end of its article */
        int stepped = 0;
        Py_ssize_t foot_lines = 0, foot_known = 0;
        for (Py_ssize_t i = 0; i < skip; i++) stepped |= known[n - 1 - i];
        for (Py_ssize_t i = 0; i < n && stepped; i++) {
            foot_lines += foot[i] != 0;
            foot_known += foot[i] && known[i];
        }
        int own_footer = stepped && (double)foot_known < FOOT_KNOWN * (double)foot_lines;
        if ((!head_beyond_top || own_footer) && !at_the_end(d, tail, foot)) return 0;
    }
    { /* edges._past_a_gap: the header's lines below its first gap, up to a run of known lines that ends it
         (the site's footer), are the article when those above the gap are all known lines and they none */
        Py_ssize_t gap_at = -1;
        int seen_head = 0;
        for (Py_ssize_t i = 0; i < n && gap_at < 0; i++) {
            if (head[i] && seen_head && !head[i - 1]) gap_at = i;
            seen_head |= head[i];
        }
        if (gap_at > 0) {
            Py_ssize_t footer_at = n;
            for (Py_ssize_t i = n - 1; i >= gap_at; i--) {
                if (!head[i]) continue;
                if (!known[i]) break;
                footer_at = i;
            }
            int above = 1, below = 0, middle = 0;
            for (Py_ssize_t i = 0; i < n; i++)
                if (head[i]) {
                    if (i < gap_at) {
                        above &= known[i] != 0;
                    } else if (i < footer_at) {
                        below |= known[i] != 0;
                        middle = 1;
                    }
                }
            if (above && middle && !below)
                for (Py_ssize_t i = gap_at; i < footer_at; i++)
                    if (head[i]) head[i] = foot[i] = 0;
        }
    }
    if (!head_beyond_top) { /* edges._above_the_footer: the foot's lines (not the head's) above its known lines
                               and a gap are the article when none of them is known */
        Py_ssize_t lowest = n, top = -1; /* the lowest known line read; the first line above them */
        int article = 0;
        for (Py_ssize_t i = n - 1; i >= 0; i--) {
            if (!foot[i] || head[i]) continue;
            if (top < 0) {
                if (known[i]) {
                    lowest = i;
                    continue;
                }
                if (lowest == n || i == lowest - 1) break; /* no known lines below, or no gap */
                top = i;
                article = 1;
            } else if (known[i]) {
                article = 0;
                break;
            }
        }
        if (article)
            for (Py_ssize_t i = 0; i <= top; i++)
                if (!head[i]) foot[i] = 0;
    }
    return 1;
}

/* frame.body_sketch: the whole text without the lines drop marks, sketched into *body. */
static void body_sketch(const doc_lines *d, doc_text *t, const unsigned char *drop, member *body) {
    if (t->values != NULL) { /* its grams hashed already: the text's runs between the lines dropped */
        run_sketch r;
        runs_begin(&r);
        Py_ssize_t from = 0, start = 0;
        for (Py_ssize_t i = 0; i < d->count; i++) {
            Py_ssize_t end;
            int_at(&t->ends, i, NULL, &end); /* read_text checked every end */
            if (drop[i]) {
                runs_add(&r, t->kind, t->data, t->values, from, start);
                from = end;
            }
            start = end;
        }
        runs_add(&r, t->kind, t->data, t->values, from, t->length);
        body->grams = runs_end(&r, body->slots);
        return;
    }
    Py_ssize_t w = 0, start = 0;
    for (Py_ssize_t i = 0; i <= d->count; i++) {
        Py_ssize_t end = t->length;
        if (i < d->count) int_at(&t->ends, i, NULL, &end); /* read_text checked every end */
        if (i == d->count || !drop[i])
            for (Py_ssize_t r = start; r < end; r++) t->scratch[w++] = PyUnicode_READ(t->kind, t->data, r);
        start = end;
    }
    body->grams = sketch_of(PyUnicode_4BYTE_KIND, t->scratch, w, body->slots);
}

/* body_sketch into out unless out already holds the sketch without these lines: the lines drop marks are
 * copied to sketched_drop, and *sketched set, when it is sketched (candidates often leave out the same lines). */
static const member *sketch_without(const doc_lines *d, doc_text *t, const unsigned char *drop,
                                    unsigned char *sketched_drop, int *sketched, member *out) {
    if (!*sketched || memcmp(drop, sketched_drop, (size_t)d->count) != 0) {
        body_sketch(d, t, drop, out);
        memcpy(sketched_drop, drop, (size_t)d->count);
        *sketched = 1;
    }
    return out;
}

/* frame.own_article: the page without its known lines when its own lines (outside d->frame) are almost all
 * known; NULL otherwise.  The known lines are the same for every candidate: sketched once. */
static const member *own_article(const doc_lines *d, doc_text *t) {
    Py_ssize_t own = 0, theirs = 0, own_paragraphs = 0, frame_paragraphs = 0;
    int framed = 0;
    for (Py_ssize_t i = 0; i < d->count; i++) {
        if (d->frame[i]) {
            framed = 1;
            if (!t->known[i] && d->grams[i] >= FRAME_PARAGRAPH) frame_paragraphs += d->grams[i];
        } else if (d->grams[i] > 0) {
            own += d->grams[i];
            if (t->known[i]) theirs += d->grams[i];
            if (d->grams[i] >= FRAME_PARAGRAPH) own_paragraphs += d->grams[i];
        }
    }
    t->article_shared = OWN_SITE_PARAGRAPHS * own_paragraphs <= frame_paragraphs; /* bodies.article_is_shared */
    if (!framed || own == 0 || (double)theirs < OWN_KNOWN * (double)own) return NULL;
    if (!t->article_sketched) {
        body_sketch(d, t, t->known, &t->article);
        t->article_sketched = 1;
    }
    return &t->article;
}

/* frame.prose_body: the page without the lines t->drop marks and its lines under PROSE_SHORT grams; NULL when
 * it has no such short line besides. */
static const member *prose_body(const doc_lines *d, doc_text *t) {
    int short_line = 0;
    for (Py_ssize_t i = 0; i < d->count; i++) {
        t->prose_drop[i] = (unsigned char)(t->drop[i] || d->grams[i] < PROSE_SHORT);
        short_line |= !t->drop[i] && t->prose_drop[i];
    }
    return short_line ? sketch_without(d, t, t->prose_drop, t->prose_drop_sketched, &t->prose_sketched, &t->prose)
                      : NULL;
}

/* frame.template_sibling against member m; skip marks the lines left out (t->drop), scratch holds d->count bytes. */
static int template_sibling(const doc_lines *d, doc_text *t, const unsigned char *skip, const member *m,
                            unsigned char *scratch) {
    Py_ssize_t n = d->count, first = -1, last = -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        scratch[i] = 1; /* left out of the sketch of the lines between */
        if (!skip[i] && has_line(m->lines, d->keys[i])) {
            if (first < 0) first = i;
            last = i;
        }
    }
    if (first < 0) return 0;
    Py_ssize_t runs = 0, run = 0, between = 0;
    for (Py_ssize_t i = first; i <= last; i++) {
        if (skip[i] || has_line(m->lines, d->keys[i])) {
            runs += run >= SIBLING_RUN_GRAMS;
            run = 0;
        } else {
            scratch[i] = 0;
            run += d->grams[i];
            between += d->grams[i];
        }
    }
    if (runs < SIBLING_RUNS || between < SIBLING_GRAMS) return 0;
    member spliced;
    body_sketch(d, t, scratch, &spliced);
    return containment(&spliced, m) + containment_error(&spliced, m) < SIBLING_CONTAINMENT;
}

/* frame.edited_middle: the page's own lines between the first and last of the header and footer it shares with m
 * are m's text.  t->drop serves as scratch. */
static int edited_middle(const doc_lines *d, doc_text *t, const member *m, const unsigned char *head,
                         const unsigned char *foot) {
    Py_ssize_t n = d->count, first = -1, last = -1;
    for (Py_ssize_t i = 0; i < n; i++)
        if (head[i] | foot[i]) {
            if (first < 0) first = i;
            last = i;
        }
    int own = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        t->drop[i] = 1; /* left out of the sketch of the lines between */
        if (i > first && i < last && !(head[i] | foot[i]) && !t->known[i] && d->grams[i] > 0) {
            t->drop[i] = 0;
            own = 1;
        }
    }
    if (!own) return 0;
    member between;
    body_sketch(d, t, t->drop, &between);
    return containment(&between, m) - containment_error(&between, m) >= MIDDLE_CONTAINMENT;
}

/* frame.edited_copy: the lines the page has verbatim from a member (not known) span EDITED_SPAN of its grams
 * outside the known lines, and its own lines between them are the member's text.  scratch: d->count bytes. */
static int edited_copy(const doc_lines *d, doc_text *t, const member *members, int count, unsigned char *scratch) {
    Py_ssize_t total = 0;
    for (Py_ssize_t i = 0; i < d->count; i++)
        if (!t->known[i]) total += d->grams[i];
    for (int m = 0; m < count; m++) {
        Py_ssize_t first = -1, last = -1, span = 0;
        for (Py_ssize_t i = 0; i < d->count; i++) {
            scratch[i] = (unsigned char)(d->grams[i] > 0 && !t->known[i] && has_line(members[m].lines, d->keys[i]));
            if (scratch[i]) {
                if (first < 0) first = i;
                last = i;
            }
        }
        if (first == last) continue; /* none or one: no lines between */
        for (Py_ssize_t i = first; i <= last; i++)
            if (!t->known[i]) span += d->grams[i];
        if ((double)span >= EDITED_SPAN * (double)total && edited_middle(d, t, &members[m], scratch, scratch)) return 1;
    }
    return 0;
}

/* frame.shared_frame for one member: whether the header and footer chrome_lines found (header: one is shared) are
 * frame, not the member's article (ARTICLE_SHARE) nor an edited copy's unchanged lines (MIDDLE_SHARE); smaller: the
 * grams of the smaller of the document and the member. */
static int is_frame(const doc_lines *d, doc_text *t, const member *m, Py_ssize_t smaller, int header,
                    const unsigned char *head, const unsigned char *foot) {
    Py_ssize_t grams = 0, seen = 0;
    for (Py_ssize_t i = 0; i < d->count; i++)
        if (head[i] | foot[i]) {
            grams += d->grams[i];
            seen += t->known[i] ? d->grams[i] : 0;
        }
    if ((double)seen > ARTICLE_KNOWN * (double)grams) return 1;
    if (!header) return (double)grams < ARTICLE_SHARE * (double)smaller || same_site(d, m->lines);
    return (double)grams < MIDDLE_SHARE * (double)smaller || !edited_middle(d, t, m, head, foot);
}

/* frame.surrounds: a line with grams outside d->frame, between its first and last lines (a header and a footer). */
static int surrounds(const doc_lines *d) {
    Py_ssize_t first = 0, last = d->count - 1;
    while (first < d->count && !d->frame[first]) first++;
    while (last >= 0 && !d->frame[last]) last--;
    for (Py_ssize_t i = first; i < last; i++)
        if (!d->frame[i] && d->grams[i] > 0) return 1;
    return 0;
}

/*
 * frame.as_seen_by: the considered lines (lines[i], noted at line_roots[i]) noted neither in cluster root nor
 * as seen in two clusters get the smallest key from 1 that none of the members' filters has (up to
 * ABSENT_KEYS; none found: no change).  Every considered line's key goes to saved first: seen_back puts
 * them back.
 */
static void as_seen_by(doc_lines *d, const Py_ssize_t *lines, const int64_t *line_roots, Py_ssize_t considered,
                       int64_t root, const member *members, int count, uint32_t *saved) {
    uint32_t key = 0;
    int tried = 0;
    for (Py_ssize_t i = 0; i < considered; i++) {
        saved[i] = d->keys[lines[i]];
        if (count == 0 || line_roots[i] == SHARED_LINE || line_roots[i] == root) continue;
        for (uint32_t k = 1; !tried && k <= ABSENT_KEYS && !key; k++) {
            int any = 0;
            for (int m = 0; m < count && !any; m++) any = has_line(members[m].lines, k);
            if (!any) key = k;
        }
        tried = 1;
        if (key) d->keys[lines[i]] = key;
    }
}

static void seen_back(doc_lines *d, const Py_ssize_t *lines, Py_ssize_t considered, const uint32_t *saved) {
    for (Py_ssize_t i = 0; i < considered; i++) d->keys[lines[i]] = saved[i];
}

#endif
