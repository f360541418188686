/*
 * nshash/_assign.h: decide.assign in C, on the memory store's own tables:
 * one C call a page on the default path, as decide.assign specifies it
 * (with clusters.find_roots and merge, verify.members_score (in _verify.h),
 * boilerplate.line_roots, record_lines, record_evidence, members.add_member
 * and boilerplate.unstored_keys).
 *
 * The rare turns return None before anything but path compression is
 * written, and decide.assign then takes the page in Python: an empty page,
 * ids past the 64-bit entry keys.  (Merges were handed back too: 1% of the
 * speed benchmark's pages, 8% of its time.)  Included by _speedups.c after
 * the tables (_inttable.h, _blocks.h) and verification (_verify.h); what it reads and
 * writes them with, and its arguments, are in _assign_stores.h, how sentences vote in
 * _votes.h.  Tests compare the two paths' ids, scores and tables.
 */
#ifndef NSHASH_ASSIGN_H
#define NSHASH_ASSIGN_H
#include "_assign_stores.h"
#include "_votes.h"

/* boilerplate.considered_lines: the lines with grams, at most LINE_LIMIT / 2 from each end. */
static Py_ssize_t considered_lines(const doc_lines *d, Py_ssize_t *out) {
    Py_ssize_t count = 0, half = LINE_LIMIT / 2;
    if (d->count <= LINE_LIMIT) {
        for (Py_ssize_t i = 0; i < d->count; i++)
            if (d->grams[i] > 0) out[count++] = i;
        return count;
    }
    Py_ssize_t stop = -1;
    for (Py_ssize_t i = 0; i < d->count && count < half; i++)
        if (d->grams[i] > 0) out[count++] = stop = i;
    Py_ssize_t top = count;
    for (Py_ssize_t i = d->count - 1; i > stop && count - top < half; i--)
        if (d->grams[i] > 0) out[count++] = i;
    for (Py_ssize_t a = top, b = count - 1; a < b; a++, b--) { /* the bottom ones back in page order */
        Py_ssize_t swap = out[a];
        out[a] = out[b];
        out[b] = swap;
    }
    return count;
}

/* boilerplate.record_evidence over the top sentences' keys. */
static int record_evidence(assign_stores *s, const uint64_t *keys, const int64_t *values, int count,
                           const tally *votes, int voted, const int *passed, long after) {
    uint64_t content[2 * MAX_SENTENCES], suspects[2 * MAX_SENTENCES];
    int contents = 0, suspected = 0;
    for (int i = 0; i < count; i++) {
        int64_t value = values[i];
        if (value == ABSENT || value == 0) continue;
        int at = 0;
        while (at < voted && votes[at].id != value) at++;
        if (at == voted) continue; /* not a cluster the document looked at */
        if (passed[at]) content[contents++] = keys[i];
        else suspects[suspected++] = keys[i];
    }
    if (s->fetch != NULL) { /* every count read below, in one fetch */
        uint64_t all[4 * MAX_SENTENCES];
        memcpy(all, content, (size_t)contents * sizeof(uint64_t));
        memcpy(all + contents, suspects, (size_t)suspected * sizeof(uint64_t));
        if (fetch_keys(s, T_STAT, all, contents + suspected) < 0) return -1;
    }
    uint64_t updated[4 * MAX_SENTENCES];
    int updates = 0;
    for (int i = 0; i < contents; i++) {
        int seen = 0;
        for (int j = 0; j < updates && !seen; j++) seen = updated[j] == content[i];
        if (seen || look(s, T_STAT, content[i]) == CONTENT) continue;
        if (put_both(s, T_STAT, content[i], CONTENT) < 0) return -1;
        updated[updates++] = content[i];
    }
    for (int i = 0; i < suspected; i++) {
        int seen = 0;
        for (int j = 0; j < updates && !seen; j++) seen = updated[j] == suspects[i];
        if (seen) continue; /* content, or counted once already */
        int64_t before = look(s, T_STAT, suspects[i]);
        updated[updates++] = suspects[i];
        if (before == CONTENT) continue;
        int64_t evidence = (before == ABSENT ? 0 : before) + 1;
        if (put_both(s, T_STAT, suspects[i], evidence) < 0) return -1;
        if (evidence >= after && put_both(s, T_FP, suspects[i], BOILERPLATE) < 0) return -1;
    }
    return 0;
}

typedef struct {
    int64_t id;
    Py_ssize_t grams;
} held_line;

static int held_order(const void *a, const void *b) {
    int64_t x = ((const held_line *)a)->id, y = ((const held_line *)b)->id;
    return (x > y) - (x < y);
}

/*
 * decide.line_candidate: the cluster most of the page's paragraphs (lines of LINE_PARAGRAPH grams or more) were
 * seen in, not one of the failed candidates (exclude), holding LINE_CANDIDATE grams or more; ties to the lower id.
 * *out: its id, or -1.  -1 on error (memory).
 */
static int line_candidate(const doc_lines *d, const Py_ssize_t *lines, const int64_t *line_roots, Py_ssize_t considered,
                          const int64_t *exclude, int excluded, int64_t *out) {
    *out = -1;
    held_line *held = PyMem_RawMalloc((size_t)(considered ? considered : 1) * sizeof(held_line));
    if (held == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t count = 0;
    for (Py_ssize_t i = 0; i < considered; i++) {
        int64_t seen = line_roots[i];
        if (seen <= SHARED_LINE || d->grams[lines[i]] < LINE_PARAGRAPH) continue;
        int failed = 0;
        for (int c = 0; c < excluded && !failed; c++) failed = exclude[c] == seen;
        if (!failed) held[count++] = (held_line){seen, d->grams[lines[i]]};
    }
    qsort(held, (size_t)count, sizeof(held_line), held_order);
    Py_ssize_t best = 0;
    for (Py_ssize_t i = 0; i < count;) {
        Py_ssize_t sum = 0, j = i;
        for (; j < count && held[j].id == held[i].id; j++) sum += held[j].grams;
        if (sum > best) { /* ascending ids: a tie keeps the lower */
            best = sum;
            *out = held[i].id;
        }
        i = j;
    }
    if (best < LINE_CANDIDATE) *out = -1;
    PyMem_RawFree(held);
    return 0;
}

/* decide.eased_need: the containment a candidate that share of the top sentences lead to asks; less on a mostly
 * CJK page (cjk). */
static double eased_need(const assign_options *o, double share, int cjk) {
    double need = cjk ? o->verify_voted - CJK_EASING : o->verify_voted;
    return share >= MAJORITY_SHARE ? need - MAJORITY_EASING : need;
}

static int id_order(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/*
 * assign(tables, pending, features, options, allocate_id)
 *     -> (similar_id, is_new, score, matched) | None
 * known: NULL, or what similar() knows of the page (page_known).
 */
static PyObject *assign_known(PyObject *const *args, Py_ssize_t nargs, const page_known *known) {
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "assign(tables, pending, features, options, allocate_id)");
        return NULL;
    }
    assign_stores s;
    assign_options o;
    if (parse_tables(args[0], s.tables, &s.sketches, &s.fetch, &s.filter) < 0 ||
        parse_tables(args[1], s.pending, NULL, NULL, NULL) < 0 ||
        parse_assign_options(args[3], &o) < 0)
        return NULL;
    if (s.fetch != NULL && s.pending[T_FP] == NULL) {
        PyErr_SetString(PyExc_TypeError, "assign(): tables with a fetch need pending tables for the writes");
        return NULL;
    }
    PyObject *features = args[2];
    if (!PyTuple_Check(features) || PyTuple_GET_SIZE(features) != 11) {
        PyErr_SetString(PyExc_TypeError, "assign(): features are a Features tuple");
        return NULL;
    }
    PyObject *keys_obj = PyTuple_GET_ITEM(features, 0), *doc_key_obj = PyTuple_GET_ITEM(features, 2);
    PyObject *sketch_obj = PyTuple_GET_ITEM(features, 3);
    if (doc_key_obj == Py_None) Py_RETURN_NONE; /* an empty page: Python gives it an id */
    if (!PyList_Check(keys_obj) || !PyTuple_Check(sketch_obj) || PyTuple_GET_SIZE(sketch_obj) != 2) {
        PyErr_SetString(PyExc_TypeError, "assign(): features are a Features tuple");
        return NULL;
    }
    Py_ssize_t key_count = PyList_GET_SIZE(keys_obj);
    if (key_count % 2 || key_count > 2 * MAX_SENTENCES) {
        PyErr_SetString(PyExc_ValueError, "assign(): two keys a sentence, at most 128 sentences");
        return NULL;
    }
    uint64_t keys[2 * MAX_SENTENCES], doc_key = known != NULL ? known->doc_key : PyLong_AsUnsignedLongLong(doc_key_obj);
    int64_t values[2 * MAX_SENTENCES];
    if (PyErr_Occurred()) return NULL;
    uint64_t read[2 * MAX_SENTENCES + 1]; /* the whole text's key, then every sentence's */
    read[0] = doc_key;
    if (known != NULL) memcpy(read + 1, known->keys, (size_t)key_count * sizeof(uint64_t));
    for (Py_ssize_t i = 0; known == NULL && i < key_count; i++) {
        read[i + 1] = PyLong_AsUnsignedLongLong(PyList_GET_ITEM(keys_obj, i));
        if (PyErr_Occurred()) return NULL;
    }
    if (fetch_keys(&s, T_FP, read, key_count + 1) < 0) return NULL;
    int sentences = 0;
    int64_t doc_value = look(&s, T_FP, doc_key);
    for (Py_ssize_t i = 0; i < key_count; i += 2) {
        for (int side = 0; side < 2; side++) {
            keys[2 * sentences + side] = read[i + side + 1];
            values[2 * sentences + side] = look(&s, T_FP, keys[2 * sentences + side]);
        }
        /* boilerplate.without_boilerplate */
        if (!(o.boilerplate && (values[2 * sentences] == BOILERPLATE || values[2 * sentences + 1] == BOILERPLATE)))
            sentences++;
    }
    int top = sentences < o.n ? sentences : (int)o.n;
    if (doc_value != ABSENT && doc_value != 0) { /* the same text again */
        int64_t root;
        if (find_root(&s, doc_value, &root) < 0) return NULL;
        for (int i = 0; i < 2 * top; i++)
            if (values[i] == ABSENT && put_both(&s, T_FP, keys[i], root) < 0) return NULL;
        return Py_BuildValue("(LOd(L))", (long long)root, Py_False, 1.0, (long long)root);
    }
    tally votes[2 * MAX_SENTENCES]; /* a sentence may propose its head's cluster and its tail's */
    int voted = sentence_votes(values, sentences, top, votes);
    qsort(votes, (size_t)voted, sizeof(tally), tally_order);
    Py_ssize_t need = o.min_match < top ? o.min_match : top;
    int candidates = 0;
    while (candidates < voted && candidates < MAX_CANDIDATES && votes[candidates].votes >= need) candidates++;
    for (int c = 0; c < candidates; c++)
        if (!fits_entry_keys(votes[c].id)) Py_RETURN_NONE;

    PyObject *result = NULL;
    doc_lines d = {0, NULL, NULL, NULL, NULL};
    doc_text t = {.ends = {.fast = NULL, .wide = -1}};
    Py_ssize_t *lines = NULL;
    int64_t *line_roots = NULL;
    PyObject *none = PyTuple_New(0);
    if (none == NULL) return NULL;
    if ((d.flat = PyObject_IsTrue(PyTuple_GET_ITEM(features, 9))) < 0 ||
        read_lines(PyTuple_GET_ITEM(features, 4), PyTuple_GET_ITEM(features, 5), &d) < 0 ||
        read_site(PyTuple_GET_ITEM(features, 8), &d) < 0 ||
        read_pieces(PyTuple_GET_ITEM(features, 10), &d) < 0 ||
        read_text(PyTuple_GET_ITEM(features, 6), PyTuple_GET_ITEM(features, 7), none, &d, &t) < 0)
        goto done;
    t.values = known != NULL ? known->values : NULL;
    size_t room = (size_t)(d.count ? d.count : 1);
    lines = PyMem_RawMalloc(room * (sizeof(Py_ssize_t) + sizeof(uint32_t))); /* + the keys as_seen_by saves */
    line_roots = PyMem_RawMalloc((room + MAX_CANDIDATES) * sizeof(int64_t)); /* + scratch for the fetch below */
    if (lines == NULL || line_roots == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    int64_t roots[MAX_CANDIDATES]; /* boilerplate.line_roots: where each considered line was seen, as a current id */
    Py_ssize_t considered = considered_lines(&d, lines);
    if (s.fetch != NULL) { /* the lines read below, then the parents of the candidates and of the lines' clusters */
        for (Py_ssize_t i = 0; i < considered; i++) line_roots[i] = d.keys[lines[i]]; /* the keys, as scratch */
        if (fetch_keys(&s, T_LINE, (const uint64_t *)line_roots, considered) < 0) goto done;
        Py_ssize_t ids = 0;
        for (int c = 0; c < candidates; c++) line_roots[ids++] = votes[c].id;
        for (Py_ssize_t i = 0; i < considered; i++) {
            int64_t seen = look(&s, T_LINE, (uint64_t)d.keys[lines[i]]);
            int twice = seen == ABSENT || seen == SHARED_LINE;
            for (Py_ssize_t j = 0; j < ids && !twice; j++) twice = line_roots[j] == seen;
            if (!twice) line_roots[ids++] = seen;
        }
        if (fetch_keys(&s, T_PARENT, (const uint64_t *)line_roots, ids) < 0) goto done;
    }
    for (int c = 0; c < candidates; c++)
        if (find_root(&s, votes[c].id, &roots[c]) < 0) goto done;
    int known_any = 0;
    for (Py_ssize_t i = 0; i < considered; i++) {
        int64_t seen = look(&s, T_LINE, (uint64_t)d.keys[lines[i]]);
        if (seen == ABSENT) seen = UNSEEN;
        else if (seen != SHARED_LINE && find_root(&s, seen, &seen) < 0) goto done;
        line_roots[i] = seen;
        /* frame.known_lines: seen in a cluster that is not a candidate */
        int candidate = 0;
        for (int c = 0; c < candidates && !candidate; c++) candidate = roots[c] == seen;
        t.known[lines[i]] = (unsigned char)(seen != UNSEEN && !candidate);
        known_any |= t.known[lines[i]];
    }
    /* verify.verify_clusters */
    member doc, found[MAX_MEMBERS];
    if (read_sketch(PyTuple_GET_ITEM(sketch_obj, 0), PyTuple_GET_ITEM(sketch_obj, 1), &doc) < 0) goto done;
    double scores[MAX_CANDIDATES];
    /* passed: read for every cluster voted for (record_evidence), two a sentence at the most */
    int stored[MAX_CANDIDATES], passed[2 * MAX_SENTENCES] = {0}, outright[MAX_CANDIDATES] = {0}, any = 0, best = -1;
    unsigned char *head = d.frame + room, *foot = head + room;
    for (int c = 0; c < candidates; c++) {
        int count = load_members(&s, votes[c].id, (int)o.members, found);
        if (count < 0) goto done;
        stored[c] = count;
        as_seen_by(&d, lines, line_roots, considered, roots[c], found, count, (uint32_t *)(lines + room));
        scores[c] = verify_score(&d, &doc, found, count, head, foot, &t);
        seen_back(&d, lines, considered, (uint32_t *)(lines + room));
    }
    /* votes.vote_shares: the top sentences that led to an unrelated candidate leave a well-voted one's vote */
    int unrelated = 0;
    for (int c = 0; c < candidates; c++)
        if (scores[c] <= UNRELATED) unrelated += votes[c].top;
    for (int c = 0; c < candidates; c++) {
        int count = stored[c];
        int voters = top - (unrelated - (scores[c] <= UNRELATED ? votes[c].top : 0)); /* its own votes stay */
        double share = (double)votes[c].top / (double)(votes[c].top >= OWN_VOTES && voters > 0 ? voters : top);
        /* decide.split_article: most top sentences lead to it, and the unframed bound left it below their need */
        int split = 0;
        if (known_any && 2 * (Py_ssize_t)votes[c].top > o.n) split = scores[c] < eased_need(&o, share, doc_cjk(&t));
        if (candidates > 1 && load_members(&s, votes[c].id, (int)o.members, found) < 0) goto done;
        as_seen_by(&d, lines, line_roots, considered, roots[c], found, count, (uint32_t *)(lines + room));
        if (candidates > 1 || split) { /* again: what follows reads this candidate's members and frame */
            t.unbounded = split;
            double again = verify_score(&d, &doc, found, count, head, foot, &t);
            t.unbounded = 0;
            if (again > scores[c]) scores[c] = again;
        }
        /* decide.agrees */
        int framed = 0; /* verify_score left the frame shared with these members in d.frame */
        for (Py_ssize_t i = 0; i < d.count && !framed; i++) framed = d.frame[i];
        double need = framed ? o.verify : o.verify - FRAMELESS_EASING;
        if (!framed && scores[c] < need && scores[c] >= need - CJK_EASING && doc_cjk(&t))
            need -= CJK_EASING; /* decide.whole_text_need */
        /* less on a page that is mostly CJK, but not for the body check */
        double body_need = eased_need(&o, share, 0), eased = body_need;
        if (share >= VOTED_SHARE && scores[c] < need && doc_cjk(&t)) eased = eased_need(&o, share, 1);
        passed[c] = scores[c] >= need || (share >= VOTED_SHARE && scores[c] >= eased);
        outright[c] = scores[c] >= need; /* on its containment alone: decide.clearly_closer */
        /* Passed on votes alone (not on the frameless easing): the body must agree, see body_agrees. */
        if (passed[c] && scores[c] < need && !body_agrees(&d, &t, found, count, body_need, framed, known_any, head))
            passed[c] = 0;
        if (!passed[c]) passed[c] = edited_copy(&d, &t, found, count, head); /* decide: an edited copy */
        seen_back(&d, lines, considered, (uint32_t *)(lines + room));
        if (!passed[c]) continue;
        if (best < 0 || votes[c].votes > votes[best].votes ||
            (votes[c].votes == votes[best].votes &&
             (scores[c] > scores[best] || (scores[c] == scores[best] && votes[c].id < votes[best].id))))
            best = c;
        any = 1;
    }
    if (best >= 0 && !outright[best]) { /* decide.clearly_closer: the first of the highest, in candidate order */
        int closer = -1;
        for (int c = 0; c < candidates; c++)
            if (outright[c] && scores[c] >= scores[best] + CLEAR_MARGIN && (closer < 0 || scores[c] > scores[closer]))
                closer = c;
        if (closer >= 0) best = closer;
    }
    /* decide.join_by_lines: none passed on its sentences; the cluster most of its paragraphs were seen in */
    int64_t by_lines = -1;
    double by_lines_score = 0.0;
    int by_lines_stored = 0;
    if (!any) {
        int64_t cluster;
        if (line_candidate(&d, lines, line_roots, considered, roots, candidates, &cluster) < 0) goto done;
        if (cluster > 0 && !fits_entry_keys(cluster)) { /* ids past the entry keys: Python decides */
            Py_INCREF(Py_None);
            result = Py_None;
            goto done;
        }
        if (cluster > 0) {
            for (Py_ssize_t i = 0; i < considered; i++) /* frame.known_lines: its own lines are the article's */
                t.known[lines[i]] = (unsigned char)(line_roots[i] != UNSEEN && line_roots[i] != cluster);
            int count = load_members(&s, cluster, (int)o.members, found);
            if (count < 0) goto done;
            double score = verify_score(&d, &doc, found, count, head, foot, &t);
            if (count > 0 && score >= o.verify && line_body_agrees(&d, &t, found, count, o.verify)) {
                by_lines = cluster;
                by_lines_score = score;
                by_lines_stored = count;
            }
        }
    }
    /* decide.assign: another cluster that passed joins the best one's when their members agree (clusters.merge) */
    int64_t joined[MAX_CANDIDATES];
    int joins = 0;
    if (any) {
        joined[joins++] = roots[best];
        member these[MAX_MEMBERS];
        int these_count = -1;
        for (int c = 0; c < candidates; c++) {
            int in = !passed[c];
            for (int j = 0; j < joins && !in; j++) in = joined[j] == roots[c];
            if (in) continue;
            if (these_count < 0) {
                these_count = load_members(&s, votes[best].id, (int)o.members, these);
                if (these_count < 0) goto done;
                memset(t.drop, 0, room); /* no more verification: the scratch holds "no known lines" */
            }
            int count = load_members(&s, votes[c].id, (int)o.members, found);
            if (count < 0) goto done;
            if (members_score(&d, these, these_count, found, count, t.drop, head, foot) >= o.verify + MERGE_MARGIN)
                joined[joins++] = roots[c];
        }
    }
    int64_t target;
    int known_members = -1;
    if (any) {
        target = joined[0];
        for (int j = 1; j < joins; j++) target = joined[j] < target ? joined[j] : target;
        for (int j = 0; j < joins; j++)
            if (joined[j] != target && put_both(&s, T_PARENT, (uint64_t)joined[j], target) < 0) goto done;
        for (int c = 0; c < candidates && known_members < 0; c++)
            if (votes[c].id == target) known_members = stored[c];
    } else if (by_lines > 0) {
        target = joined[joins++] = by_lines;
        known_members = by_lines_stored;
    } else {
        PyObject *id = PyObject_CallNoArgs(args[4]);
        if (id == NULL) goto done;
        target = PyLong_AsLongLong(id);
        Py_DECREF(id);
        if (PyErr_Occurred()) goto done;
        if (!fits_entry_keys(target)) {
            PyErr_SetString(PyExc_OverflowError, "assign(): cluster ids past 2**56 do not fit the sketch keys");
            goto done;
        }
        known_members = 0;
    }
    /* boilerplate.unstored_keys over every looked-up sentence, then the whole text's key */
    int chosen = 0;
    for (int i = 0; i < sentences && chosen < o.n; i++) {
        int failed = 0;
        for (int side = 0; side < 2; side++) {
            int64_t value = values[2 * i + side];
            for (int c = 0; c < voted && !failed; c++) failed = votes[c].id == value && !(c < candidates && passed[c]);
        }
        chosen += !failed; /* a failed sentence takes no place, but its half that led nowhere is written */
        for (int side = 0; side < 2; side++)
            if (values[2 * i + side] == ABSENT && put_both(&s, T_FP, keys[2 * i + side], target) < 0) goto done;
    }
    if (put_both(&s, T_FP, doc_key, target) < 0) goto done;
    /* members.add_member */
    if (known_members < 0) {
        member ignored[MAX_MEMBERS];
        known_members = load_members(&s, target, (int)o.members, ignored);
        if (known_members < 0) goto done;
    }
    if (known_members < o.members) {
        member_lines(&d, &doc);
        uint64_t base = ((uint64_t)target << CLUSTER_SHIFT) | ((uint64_t)known_members << MEMBER_SHIFT);
        for (int part = 0; part < ENTRIES; part++)
            if (put_both(&s, T_SKETCH, base | (uint64_t)part, member_word(&doc, part)) < 0) goto done;
    }
    /* boilerplate.record_lines: a line seen in one of the merged clusters is the cluster's own */
    for (Py_ssize_t i = 0; i < considered; i++) {
        uint64_t key = (uint64_t)d.keys[lines[i]];
        int own = 0;
        for (int j = 0; j < joins && !own; j++) own = line_roots[i] == joined[j];
        if (line_roots[i] == UNSEEN) {
            if (put_both(&s, T_LINE, key, target) < 0) goto done;
        } else if (line_roots[i] != SHARED_LINE && line_roots[i] != target && !own) {
            if (put_both(&s, T_LINE, key, SHARED_LINE) < 0) goto done;
        }
    }
    if (o.boilerplate && voted &&
        record_evidence(&s, keys, values, 2 * top, votes, voted, passed, o.boilerplate_after) < 0)
        goto done;
    if (any) {
        qsort(joined, (size_t)joins, sizeof(int64_t), id_order); /* Match.matched: the merged clusters, sorted */
        PyObject *matched = PyTuple_New(joins);
        for (int j = 0; matched != NULL && j < joins; j++) {
            PyObject *id = PyLong_FromLongLong(joined[j]);
            if (id == NULL) Py_CLEAR(matched);
            else PyTuple_SET_ITEM(matched, j, id);
        }
        if (matched != NULL) result = Py_BuildValue("(LOdN)", (long long)target, Py_False, scores[best], matched);
    } else if (by_lines > 0) {
        result = Py_BuildValue("(LOd(L))", (long long)target, Py_False, by_lines_score, (long long)target);
    } else {
        result = Py_BuildValue("(LOd())", (long long)target, Py_True, 0.0);
    }
done:
    Py_DECREF(none);
    free_lines(&d);
    free_text(&t);
    PyMem_RawFree(lines);
    PyMem_RawFree(line_roots);
    return result;
}

static PyObject *assign(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    return assign_known(args, nargs, NULL);
}
#endif
