/*
 * nshash/_estimate.h: containment estimates between two sketches and how far
 * they are trusted, as nshash.sketch and nshash.estimate specify them.
 * Included by _speedups.c only (after _member.h); tests compare every
 * function with the Python one.
 */
#ifndef NSHASH_ESTIMATE_H
#define NSHASH_ESTIMATE_H
#include <math.h>

static int same_slots(const member *a, const member *b) {
    int same = 0;
    for (int i = 0; i < SLOTS; i++) same += a->slots[i] == b->slots[i];
    return same;
}

/* sketch.shared_grams */
static double shared_grams(const member *a, const member *b) {
    double same = (double)same_slots(a, b) / SLOTS;
    double jaccard = (same - CHANCE) / (1 - CHANCE);
    if (jaccard <= 0) return 0.0;
    return jaccard * (double)(a->grams + b->grams) / (1 + jaccard);
}

/* sketch.containment */
static double containment(const member *a, const member *b) {
    if (!a->grams || !b->grams) return 0.0;
    double smaller = (double)(a->grams < b->grams ? a->grams : b->grams);
    double c = shared_grams(a, b) / smaller;
    return c < 1.0 ? c : 1.0;
}

/* sketch.containment_error */
static double containment_error(const member *a, const member *b) {
    if (!a->grams || !b->grams) return 0.0;
    double same = (double)same_slots(a, b) / SLOTS;
    double jaccard = (same - CHANCE) / (1 - CHANCE);
    jaccard = jaccard > 0.0 ? (jaccard < 1.0 ? jaccard : 1.0) : 0.0;
    double spread = sqrt(jaccard * (1 - jaccard) / SLOTS);
    Py_ssize_t smaller = a->grams < b->grams ? a->grams : b->grams;
    return spread * (double)(a->grams + b->grams) / ((double)smaller * pow(1 + jaccard, 2.0));
}

/* sketch.has_rest: whether what a shared frame leaves of the smaller text is its own (site: pages of one site) */
static inline int has_rest(Py_ssize_t rest, Py_ssize_t smaller, int site) {
    return (double)rest >= EDGE_REST * (double)smaller || (site && rest >= EDGE_REST_GRAMS);
}

/* sketch.body_containment */
static double body_containment(const member *a, const member *b, Py_ssize_t chrome, int site) {
    double both = containment(a, b);
    Py_ssize_t smaller = a->grams < b->grams ? a->grams : b->grams, rest = smaller - chrome;
    if (chrome <= 0 || !has_rest(rest, smaller, site)) return both;
    double body = both * (double)smaller - (double)chrome;
    return (body > 0.0 ? body : 0.0) / (double)rest;
}

/* estimate.trusted_containment (a: the document, whose lines found the chrome) */
static double trusted_containment(const member *a, const member *b, Py_ssize_t chrome, int surrounded, int site) {
    double score = body_containment(a, b, chrome, site);
    Py_ssize_t smaller = a->grams < b->grams ? a->grams : b->grams, larger = a->grams < b->grams ? b->grams : a->grams;
    Py_ssize_t rest = smaller - chrome;
    int framed = chrome > 0 && has_rest(rest, smaller, site);
    int sized = framed && a->grams >= b->grams; /* the larger text found the frame: sizes without it */
    Py_ssize_t small = sized ? rest : smaller, large = sized ? larger - chrome : larger;
    if (chrome > 0 && !framed && surrounded && a->grams >= b->grams && larger - chrome > chrome) return 0.0;
    if (large >= SIZE_RATIO * (small > 1 ? small : 1) && (score < SIZE_RATIO_CONTAINMENT || small < SIZE_RATIO_GRAMS))
        return 0.0;
    if (framed)
        score -= FRAME_ERRORS * containment_error(a, b) * (double)chrome / (double)rest;
    return score > 0.0 ? score : 0.0;
}

/* estimate.body_score; cjk: verify.cjk_page of the document */
static double body_score(const member *body, const member *other, int cjk) {
    Py_ssize_t small = body->grams < other->grams ? body->grams : other->grams;
    Py_ssize_t large = body->grams < other->grams ? other->grams : body->grams;
    if (cjk && (double)large < SIZE_RATIO * (double)small) {
        if (body->grams < CJK_BODY_GRAMS) return 0.0;
        double estimate = containment(body, other) - CJK_BODY_ERRORS * containment_error(body, other);
        return estimate > 0.0 ? estimate : 0.0;
    }
    if (body->grams < BODY_MIN_GRAMS) return 0.0;
    if ((double)large >= BODY_SIZE_RATIO * (double)small) { /* as whole texts too far apart in size */
        if (body->grams > other->grams || body->grams < SIZE_RATIO_GRAMS) return 0.0;
        double whole = containment(body, other);
        return whole >= SIZE_RATIO_CONTAINMENT ? whole : 0.0;
    }
    double score = containment(body, other) - BODY_ERRORS * containment_error(body, other);
    return score > 0.0 ? score : 0.0;
}

/* estimate.frame_free_score; page: the whole document, whole: its trusted_containment. */
static double frame_free_score(const member *body, const member *page, const member *other, Py_ssize_t chrome,
                               double whole, int site) {
    Py_ssize_t smaller = page->grams < other->grams ? page->grams : other->grams, rest = smaller - chrome;
    if (chrome > 0 && !has_rest(rest, smaller, site)) return 0.0;
    if (chrome <= 0 || body->grams == 0) return whole;
    Py_ssize_t left = other->grams - chrome;
    Py_ssize_t small = body->grams < left ? body->grams : left, large = body->grams < left ? left : body->grams;
    Py_ssize_t least = body->grams < other->grams ? body->grams : other->grams;
    double error = containment_error(body, other) * (double)least / (double)small;
    double found = shared_grams(body, other) / (double)small;
    if (found > 1.0) found = 1.0;
    double whole_error = containment_error(page, other) * (double)chrome / (double)rest;
    if (whole_error <= error) { /* the two weighted by their precision, never above the subtraction's */
        if (whole_error <= 0.0) return whole;
        double weight = (error / whole_error) * (error / whole_error), mean = (whole * weight + found) / (weight + 1.0);
        return mean < whole ? mean : whole;
    }
    double score = found - BODY_ERRORS * error;
    if (score < 0.0) score = 0.0;
    return (double)large >= BODY_SIZE_RATIO * (double)small && whole < score ? whole : score;
}

/* estimate.unframed_score: known, the grams of the lines other clusters have that the member has too. */
static double unframed_score(const member *body, const member *page, const member *other, Py_ssize_t known,
                             int site) {
    Py_ssize_t smaller = page->grams < other->grams ? page->grams : other->grams;
    if (known <= 0 || (double)known < UNFRAMED_KNOWN * (double)smaller) return 1.0;
    if ((double)(page->grams - known) < UNFRAMED_OWN * (double)page->grams ||
        (double)(other->grams - known) < UNFRAMED_OWN * (double)other->grams)
        return 1.0;
    return frame_free_score(body, page, other, known, trusted_containment(page, other, known, 0, site), site);
}

#endif
