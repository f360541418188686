/*
 * nshash/_verify.h: verification in C, as nshash.verify specifies it: a
 * document's score against each candidate cluster's stored members
 * (verify.verify_score over members.from_entries), reading a document and its
 * members from Python, the stored form of a document (members.to_entries of
 * its sketch and line filter) and the keys members are stored under
 * (members.entry_keys), and verify.members_score.  Built on _member.h, _estimate.h and _frame.h.
 * Included by _speedups.c only; tests compare every function with the Python one.
 */
#ifndef NSHASH_VERIFY_H
#define NSHASH_VERIFY_H

/* verify.cjk_page: whether at least CJK_PAGE of the whole normalised text is CJK characters (asked once). */
static int doc_cjk(doc_text *t) {
    if (t->cjk >= 0) return t->cjk;
    Py_ssize_t cjk = 0;
    if (t->kind != PyUnicode_1BYTE_KIND) /* nothing CJK below U+0100 */
        for (Py_ssize_t i = 0; i < t->length; i++) cjk += is_cjk(PyUnicode_READ(t->kind, t->data, i));
    t->cjk = t->length > 0 && (double)cjk / (double)t->length >= CJK_PAGE;
    return t->cjk;
}

/* bodies.far_page_score: the most a page may score against a member far from it in size when no frame is shared;
 * d->keys: the page's lines as the member sees them; body: the page's sketch without its known lines. */
static double far_page_score(const doc_lines *d, const doc_text *t, const member *doc, const member *m,
                             const member *body) {
    Py_ssize_t small = doc->grams < m->grams ? doc->grams : m->grams;
    Py_ssize_t large = doc->grams < m->grams ? m->grams : doc->grams;
    if ((double)large < BODY_SIZE_RATIO * (double)small) return 1.0;
    Py_ssize_t own = 0;
    for (Py_ssize_t i = 0; i < d->count; i++)
        if (!t->known[i] && has_line(m->lines, d->keys[i])) own += d->grams[i];
    if (own >= FAR_OWN_GRAMS) return 1.0;
    return containment(body, m) + FAR_PAGE_ERRORS * containment_error(body, m);
}

/* verify.verify_score: the document (its sketch in *doc) against count members; t->known: frame.known_lines. */
static double verify_score(doc_lines *d, const member *doc, const member *members, int count, unsigned char *head,
                           unsigned char *foot, doc_text *t) {
    memset(d->frame, 0, (size_t)d->count);
    uint32_t *own_keys = d->keys;
    for (int m = 0; m < count; m++) {
        Py_ssize_t smaller = doc->grams < members[m].grams ? doc->grams : members[m].grams;
        int header = 0;
        d->keys = member_view(d, members[m].lines); /* pieces.member_view, as frame.shared_frame */
        Py_ssize_t glued = glued_tail(d, members[m].lines);
        int found = chrome_lines(d, members[m].lines, members[m].tail, t->known, glued, head, foot, &header) &&
                    is_frame(d, t, &members[m], smaller, header, head, foot);
        d->keys = own_keys;
        if (!found) continue;
        for (Py_ssize_t i = 0; i < d->count; i++) d->frame[i] |= head[i] | foot[i];
    }
    const int surrounded = surrounds(d);
    /* The known lines and the frame are left out of a second sketch. */
    int dropped = 0, framed = 0;
    for (Py_ssize_t i = 0; i < d->count; i++) {
        t->drop[i] = (unsigned char)(d->frame[i] || t->known[i]);
        dropped |= t->drop[i];
        framed |= d->frame[i];
    }
    const member *body =
        dropped && count > 0 ? sketch_without(d, t, t->drop, t->drop_sketched, &t->sketched, &t->body) : NULL;
    const member *article = count > 0 ? own_article(d, t) : NULL;
    const member *prose = count > 0 && doc_cjk(t) ? prose_body(d, t) : NULL;
    double scores[MAX_MEMBERS], best = 0.0, next = 0.0;
    int best_at = 0;
    for (int m = 0; m < count; m++) {
        d->keys = member_view(d, members[m].lines); /* put back below, before the next member's */
        Py_ssize_t chrome = 0, known = 0;
        for (Py_ssize_t i = 0; i < d->count; i++)
            if (d->frame[i] && has_line(members[m].lines, d->keys[i])) {
                chrome += d->grams[i];
                if (t->known[i]) known += d->grams[i];
            }
        const int site = same_site(d, members[m].lines);
        double score = trusted_containment(doc, &members[m], chrome, surrounded, site);
        if (body != NULL && (double)known >= KNOWN_FRAME * (double)chrome)
            score = frame_free_score(body, doc, &members[m], chrome, score, site);
        if (body != NULL && !framed) { /* no frame found: the lines other clusters have may be one */
            Py_ssize_t shared = 0;
            for (Py_ssize_t i = 0; i < d->count; i++) {
                d->shared[i] = t->known[i] && has_line(members[m].lines, d->keys[i]); /* free after the frame */
                if (d->shared[i]) shared += d->grams[i];
            }
            /* decide.split_article: unbounded but against a member whose last lines are among them */
            if (!t->unbounded || at_the_end(d, members[m].tail, d->shared)) {
                double bound = unframed_score(body, doc, &members[m], shared, site);
                if (bound < score) score = bound;
            }
        }
        double bodied = body != NULL ? body_score(body, &members[m], doc_cjk(t)) : 0.0;
        if (article != NULL && (t->article_shared || !site)) { /* bodies.OWN_SITE_PARAGRAPHS */
            double own = body_score(article, &members[m], doc_cjk(t));
            if (own > bodied) bodied = own;
        }
        if (prose != NULL) {
            double own = body_score(prose, &members[m], 1);
            if (own > bodied) bodied = own;
        }
        if (bodied > score) score = bodied;
        if (body != NULL && !framed) { /* far apart in size: no more than the page's body agrees */
            double far = far_page_score(d, t, doc, &members[m], body);
            if (far < bodied) far = bodied;
            if (far < score) score = far;
        }
        d->keys = own_keys;
        scores[m] = score;
        if (score > best) {
            next = best;
            best = score;
            best_at = m;
        } else if (score > next) {
            next = score;
        }
    }
    /* estimate.corroborated: the best score stands when it is the first member's or two members overlap
     * (asked only then, as the Python does: most pages are closest to a cluster's first member) */
    if (best_at == 0) return best;
    int overlapping = 0;
    for (int m = 0; m < count; m++)
        overlapping += scores[m] >= CORROBORATE || containment(doc, &members[m]) >= CORROBORATE;
    return overlapping >= 2 ? best : next;
}

/*
 * verify.members_score: how much two clusters' members agree, the header and footer the document shares with
 * both left out (edges.shared_chrome).  nothing: d->count zero bytes (no known lines); head, foot: scratch.
 */
static double members_score(doc_lines *d, const member *these, int count, const member *those, int other_count,
                            const unsigned char *nothing, unsigned char *head, unsigned char *foot) {
    double best = 0.0;
    for (int a = 0; a < count; a++)
        for (int b = 0; b < other_count; b++) {
            uint64_t both[BLOOM_WORDS];
            for (int w = 0; w < BLOOM_WORDS; w++) both[w] = these[a].lines[w] & those[b].lines[w];
            int header = 0;
            Py_ssize_t chrome = 0;
            if (chrome_lines(d, both, 0, nothing, 0, head, foot, &header))
                for (Py_ssize_t i = 0; i < d->count; i++) chrome += head[i] || foot[i] ? d->grams[i] : 0;
            double score = trusted_containment(&these[a], &those[b], chrome, 0, 0);
            if (score > best) best = score;
        }
    return best;
}

/* members.from_entries: 1 and *out filled, 0 when the member is not stored (an entry is None), -1 on error. */
static int read_member(PyObject *const *entries, member *out) {
    int64_t words[ENTRIES];
    for (int i = 0; i < ENTRIES; i++) {
        if (entries[i] == Py_None) return 0;
        words[i] = PyLong_AsLongLong(entries[i]);
        if (words[i] == -1 && PyErr_Occurred()) return -1;
    }
    member_from_words(words, out);
    return 1;
}

/* The document's line keys and gram counts, read from two sequences of ints; -1 on error. */
static int read_lines(PyObject *keys, PyObject *grams, doc_lines *d) {
    int_seq k, g;
    if (open_ints(keys, &k, "line keys must be a sequence") < 0) return -1;
    if (open_ints(grams, &g, "line grams must be a sequence") < 0) {
        close_ints(&k);
        return -1;
    }
    int status = -1;
    d->count = k.count;
    if (g.count != d->count) {
        PyErr_SetString(PyExc_ValueError, "line keys and line grams differ in length");
        goto done;
    }
    size_t n = (size_t)(d->count ? d->count : 1);
    d->keys = PyMem_RawMalloc(n * sizeof(uint32_t));
    d->grams = PyMem_RawMalloc(n * sizeof(Py_ssize_t));
    d->shared = PyMem_RawMalloc(4 * n); /* shared, frame, head, foot */
    if (d->keys == NULL || d->grams == NULL || d->shared == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    d->frame = d->shared + n;
    for (Py_ssize_t i = 0; i < d->count; i++) {
        unsigned long long key;
        Py_ssize_t count;
        if (int_at(&k, i, &key, NULL) < 0 || int_at(&g, i, NULL, &count) < 0) goto done;
        d->keys[i] = (uint32_t)key;
        d->grams[i] = count;
    }
    status = 0;
done:
    close_ints(&k);
    close_ints(&g);
    return status;
}

/* The document's site keys (Features.site_keys) into d; -1 on error. */
static int read_site(PyObject *keys, doc_lines *d) {
    int_seq k;
    if (open_ints(keys, &k, "site keys must be a sequence") < 0) return -1;
    int status = -1;
    if (k.count > 2 * SITE_KEYS) {
        PyErr_Format(PyExc_ValueError, "a page has at most %d site keys", 2 * SITE_KEYS);
        goto done;
    }
    for (Py_ssize_t i = 0; i < k.count; i++) {
        unsigned long long key;
        if (int_at(&k, i, &key, NULL) < 0) goto done;
        d->site[i] = (uint32_t)key;
    }
    d->site_count = k.count;
    status = 0;
done:
    close_ints(&k);
    return status;
}

/* The document's pieces (Features.pieces) into d, after its lines; -1 on error. */
static int read_pieces(PyObject *pieces, doc_lines *d) {
    int_seq k;
    if (open_ints(pieces, &k, "pieces must be a sequence") < 0) return -1;
    int status = -1;
    size_t n = (size_t)(d->count ? d->count : 1);
    d->pieces = PyMem_RawMalloc((size_t)(k.count ? k.count : 1) * sizeof(uint32_t));
    d->view = PyMem_RawMalloc(n * sizeof(uint32_t));
    d->view_kept = PyMem_RawMalloc(n);
    if (d->pieces == NULL || d->view == NULL || d->view_kept == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (k.count % 4) {
        PyErr_SetString(PyExc_ValueError, "pieces are suffix key, key, first line, last line each");
        goto done;
    }
    for (Py_ssize_t i = 0; i < k.count; i++) {
        unsigned long long value;
        if (int_at(&k, i, &value, NULL) < 0) goto done;
        d->pieces[i] = (uint32_t)value;
    }
    for (Py_ssize_t i = 0; i < k.count; i += 4)
        if (d->pieces[i + 2] > d->pieces[i + 3] || (Py_ssize_t)d->pieces[i + 3] >= d->count) {
            PyErr_SetString(PyExc_ValueError, "a piece lies in lines the document does not have");
            goto done;
        }
    d->piece_words = k.count;
    status = 0;
done:
    close_ints(&k);
    return status;
}

static void free_lines(doc_lines *d) {
    PyMem_RawFree(d->keys);
    PyMem_RawFree(d->grams);
    PyMem_RawFree(d->shared);
    PyMem_RawFree(d->pieces);
    PyMem_RawFree(d->view);
    PyMem_RawFree(d->view_kept);
}

/* The document's own sketch as a member (its lines are not needed to verify it). */
static int read_sketch(PyObject *grams, PyObject *slots, member *out) {
    out->grams = PyLong_AsSsize_t(grams);
    if (out->grams == -1 && PyErr_Occurred()) return -1;
    if (!PyBytes_Check(slots) || PyBytes_GET_SIZE(slots) != SLOTS) {
        PyErr_Format(PyExc_ValueError, "a sketch has %d slot bytes", SLOTS);
        return -1;
    }
    memcpy(out->slots, PyBytes_AS_STRING(slots), SLOTS);
    memset(out->lines, 0, sizeof out->lines);
    out->tail = 0;
    return 0;
}

/* Features.whole and Features.line_ends for d's lines, and frame.known_lines, read into *t; -1 on error. */
static int read_text(PyObject *whole, PyObject *ends, PyObject *known, const doc_lines *d, doc_text *t) {
    t->known = NULL;
    t->scratch = NULL;
    t->values = NULL;
    t->ends.fast = NULL;
    t->ends.wide = -1;
    if (!PyUnicode_Check(whole)) {
        PyErr_SetString(PyExc_TypeError, "verify(): whole must be a str");
        return -1;
    }
    t->kind = PyUnicode_KIND(whole);
    t->data = PyUnicode_DATA(whole);
    t->length = PyUnicode_GET_LENGTH(whole);
    if (open_ints(ends, &t->ends, "line ends must be a sequence") < 0) return -1;
    if (t->ends.count != d->count) {
        PyErr_SetString(PyExc_ValueError, "verify(): one line end a line");
        return -1;
    }
    size_t n = (size_t)(d->count ? d->count : 1);
    t->known = PyMem_RawCalloc(5 * n, 1);
    t->scratch = PyMem_RawMalloc((size_t)(t->length + 1) * sizeof(Py_UCS4));
    if (t->known == NULL || t->scratch == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    t->drop = t->known + n;
    t->drop_sketched = t->drop + n;
    t->sketched = 0;
    t->article_sketched = 0;
    t->prose_drop = t->drop_sketched + n;
    t->prose_drop_sketched = t->prose_drop + n;
    t->prose_sketched = 0;
    t->cjk = -1;
    Py_ssize_t previous = 0;
    for (Py_ssize_t i = 0; i < d->count; i++) {
        Py_ssize_t end;
        if (int_at(&t->ends, i, NULL, &end) < 0) return -1;
        if (end < previous || end > t->length) {
            PyErr_SetString(PyExc_ValueError, "verify(): line ends must rise within the whole text");
            return -1;
        }
        previous = end;
    }
    int_seq k;
    if (open_ints(known, &k, "known lines must be a sequence") < 0) return -1;
    int status = 0;
    for (Py_ssize_t i = 0; i < k.count && status == 0; i++) {
        Py_ssize_t index;
        if (int_at(&k, i, NULL, &index) < 0) status = -1;
        else if (index < 0 || index >= d->count) {
            PyErr_SetString(PyExc_ValueError, "verify(): a known line that the document does not have");
            status = -1;
        } else t->known[index] = 1;
    }
    close_ints(&k);
    return status;
}

static void free_text(doc_text *t) {
    close_ints(&t->ends);
    PyMem_RawFree(t->known);
    PyMem_RawFree(t->scratch);
}

/*
 * verify(line_keys, line_grams, grams, slots, entries, clusters, members, whole, line_ends, known, site_keys,
 *        flat, pieces) -> [(score, members found), ...] for each of the clusters, whose
 * members' entries (ENTRIES per member, members per cluster) are in entries;
 * known: the document's lines (indices) frame.known_lines gives.
 */
static PyObject *verify(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 13) {
        PyErr_SetString(PyExc_TypeError, "verify(line_keys, line_grams, grams, slots, entries, clusters, members, "
                                         "whole, line_ends, known, site_keys, flat, pieces)");
        return NULL;
    }
    Py_ssize_t clusters = PyLong_AsSsize_t(args[5]), per = PyLong_AsSsize_t(args[6]);
    if (PyErr_Occurred()) return NULL;
    if (clusters < 0 || per < 1 || per > MAX_MEMBERS) {
        PyErr_Format(PyExc_ValueError, "verify(): 0 or more clusters of 1 to %d members", MAX_MEMBERS);
        return NULL;
    }
    member doc, found[MAX_MEMBERS];
    if (read_sketch(args[2], args[3], &doc) < 0) return NULL;
    PyObject *entries = PySequence_Fast(args[4], "entries must be a sequence");
    if (entries == NULL) return NULL;
    if (PySequence_Fast_GET_SIZE(entries) != clusters * per * ENTRIES) {
        Py_DECREF(entries);
        PyErr_SetString(PyExc_ValueError, "verify(): entries do not match clusters * members * ENTRIES");
        return NULL;
    }
    doc_lines d = {0, NULL, NULL, NULL, NULL};
    doc_text t = {.ends = {.fast = NULL, .wide = -1}};
    PyObject *out = NULL;
    if ((d.flat = PyObject_IsTrue(args[11])) < 0 || read_lines(args[0], args[1], &d) < 0 ||
        read_site(args[10], &d) < 0 || read_pieces(args[12], &d) < 0 ||
        read_text(args[7], args[8], args[9], &d, &t) < 0)
        goto done;
    out = PyList_New(clusters);
    PyObject *const *items = PySequence_Fast_ITEMS(entries);
    unsigned char *head = d.frame + (d.count ? d.count : 1), *foot = head + (d.count ? d.count : 1);
    for (Py_ssize_t c = 0; out != NULL && c < clusters; c++) {
        int count = 0;
        for (; count < per; count++) {
            int stored = read_member(items + (c * per + count) * ENTRIES, &found[count]);
            if (stored < 0) Py_CLEAR(out);
            if (stored <= 0) break;
        }
        if (out == NULL) break;
        PyObject *pair = Py_BuildValue("(di)", verify_score(&d, &doc, found, count, head, foot, &t), count);
        if (pair == NULL) Py_CLEAR(out);
        else PyList_SET_ITEM(out, c, pair);
    }
done:
    free_lines(&d);
    free_text(&t);
    Py_DECREF(entries);
    return out;
}

/* members.stored_form: to_entries(Member(Sketch(grams, slots), the filter of line_keys, site_keys and pieces
 * (and FLAT_MARK when flat), member_tail(line_keys, line_grams))) */
static PyObject *member_entries(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "member_entries(line_keys, line_grams, grams, slots, site_keys, pieces, flat)");
        return NULL;
    }
    member m;
    if (read_sketch(args[2], args[3], &m) < 0) return NULL;
    doc_lines d = {0, NULL, NULL, NULL, NULL};
    if ((d.flat = PyObject_IsTrue(args[6])) < 0 || read_lines(args[0], args[1], &d) < 0 || read_site(args[4], &d) < 0 ||
        read_pieces(args[5], &d) < 0) {
        free_lines(&d);
        return NULL;
    }
    member_lines(&d, &m);
    free_lines(&d);
    PyObject *out = PyList_New(ENTRIES);
    for (int i = 0; out != NULL && i < ENTRIES; i++) {
        PyObject *value = PyLong_FromLongLong(member_word(&m, i));
        if (value == NULL) Py_CLEAR(out);
        else PyList_SET_ITEM(out, i, value);
    }
    return out;
}

/* members.entry_keys for every cluster and member: None when an id is too large for 64-bit keys (Python does it). */
static PyObject *entry_keys(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "entry_keys(clusters, members)");
        return NULL;
    }
    Py_ssize_t per = PyLong_AsSsize_t(args[1]);
    if (per == -1 && PyErr_Occurred()) return NULL;
    if (per < 1 || per > MAX_MEMBERS) {
        PyErr_Format(PyExc_ValueError, "entry_keys(): 1 to %d members", MAX_MEMBERS);
        return NULL;
    }
    PyObject *clusters = PySequence_Fast(args[0], "clusters must be a sequence");
    if (clusters == NULL) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(clusters);
    PyObject *out = PyList_New(n * per * ENTRIES);
    for (Py_ssize_t c = 0; out != NULL && c < n; c++) {
        unsigned long long id = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(clusters, c));
        if (id == (unsigned long long)-1 && PyErr_Occurred()) {
            PyErr_Clear(); /* negative or past 64 bits: the specification decides */
            id = ~0ULL;
        }
        if (id >> (64 - CLUSTER_SHIFT)) {
            Py_DECREF(out);
            Py_DECREF(clusters);
            Py_RETURN_NONE;
        }
        for (Py_ssize_t m = 0; out != NULL && m < per; m++) {
            uint64_t base = ((uint64_t)id << CLUSTER_SHIFT) | ((uint64_t)m << MEMBER_SHIFT);
            for (int part = 0; part < ENTRIES; part++) {
                PyObject *key = PyLong_FromUnsignedLongLong(base | (uint64_t)part);
                if (key == NULL) {
                    Py_CLEAR(out);
                    break;
                }
                PyList_SET_ITEM(out, (c * per + m) * ENTRIES + part, key);
            }
        }
    }
    Py_DECREF(clusters);
    return out;
}
#endif
