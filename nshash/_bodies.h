/*
 * nshash/_bodies.h: nshash/bodies.py in C, whether a page's body agrees with a
 * cluster's members once the frame it shares is left out: body_agrees (a pass
 * on sentence votes), far_body_agrees, line_body_agrees (a cluster the page's
 * paragraphs proposed).  Each is called right after verify_score
 * (_verify.h) against the same members, and reads the frame, the dropped
 * lines and the body sketch it left.  Included by _speedups.c after _verify.h.
 */
#ifndef NSHASH_BODIES_H
#define NSHASH_BODIES_H

/* bodies.line_body_agrees, right after verify_score against the same members: t->drop and t->body as it left them. */
static int line_body_agrees(const doc_lines *d, const doc_text *t, const member *members, int count, double need) {
    int dropped = 0;
    for (Py_ssize_t i = 0; i < d->count && !dropped; i++) dropped = t->drop[i];
    if (!dropped) return 1;
    if (t->body.grams < BODY_MIN_GRAMS) return 0;
    for (int m = 0; m < count; m++)
        if (containment(&t->body, &members[m]) >= need) return 1;
    return 0;
}

/* bodies.far_body_agrees: body_agrees where the body and every member are BODY_SIZE_RATIO apart in size. */
static int far_body_agrees(const doc_lines *d, const doc_text *t, const member *members, int count, double need,
                           int framed) {
    Py_ssize_t chrome = 0, known = 0;
    for (Py_ssize_t i = 0; i < d->count; i++)
        if (d->frame[i]) {
            chrome += d->grams[i];
            if (t->known[i]) known += d->grams[i];
        }
    if (!framed) return 1;
    if ((double)known < KNOWN_FRAME * (double)chrome) { /* unless a header and footer around more paragraphs */
        if (!surrounds(d)) return 1;
        Py_ssize_t theirs = 0, own = 0;
        for (Py_ssize_t i = 0; i < d->count; i++)
            if (d->grams[i] >= FRAME_PARAGRAPH) *(d->frame[i] ? &theirs : &own) += d->grams[i];
        if (theirs >= own) return 1;
    }
    for (int m = 0; m < count; m++) {
        if (containment(&t->body, &members[m]) + FAR_BODY_ERRORS * containment_error(&t->body, &members[m]) >= need)
            return 1;
        Py_ssize_t own = 0;
        for (Py_ssize_t i = 0; i < d->count; i++)
            if (!d->frame[i] && has_line(members[m].lines, d->keys[i])) own += d->grams[i];
        if (own >= FAR_OWN_GRAMS) return 1;
    }
    return 0;
}

/*
 * bodies.body_agrees, called right after verify_score against the same
 * members: d->frame and t->drop hold the frame shared with them (and the
 * known lines), and when either is not empty t->body is the page's sketch
 * without them.  scratch: d->count bytes.
 */
static int body_agrees(const doc_lines *d, doc_text *t, const member *members, int count, double need, int framed,
                       int known_any, unsigned char *scratch) {
    for (int m = 0; m < count; m++)
        if (template_sibling(d, t, t->drop, &members[m], scratch)) return 0;
    if (!framed && !known_any) return 1; /* nothing to leave out: the votes stand */
    const member *body = &t->body;
    if (body->grams < BODY_MIN_GRAMS) return 1; /* too little to sketch */
    double errors = framed ? -BODY_ERRORS : CROSS_SITE_ERRORS;
    int sized = 0;
    for (int m = 0; m < count; m++) {
        Py_ssize_t small = body->grams < members[m].grams ? body->grams : members[m].grams;
        Py_ssize_t large = body->grams < members[m].grams ? members[m].grams : body->grams;
        if ((double)large >= BODY_SIZE_RATIO * (double)small) continue;
        sized = 1;
        if (containment(body, &members[m]) + errors * containment_error(body, &members[m]) >= need) return 1;
    }
    return sized ? 0 : far_body_agrees(d, t, members, count, need, framed);
}

#endif
