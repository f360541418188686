/*
 * nshash/_fold.h: the phrase step of fold.fold_chars in C: Taiwanese phrases
 * (folded) to mainland ones, the longest that starts at each position, left to
 * right, in place (setup.py checks that no replacement is longer than its
 * phrase).  Included by _speedups.c only.
 */
#ifndef NSHASH_FOLD_H
#define NSHASH_FOLD_H
#include "_tables.h"

/* The index of the longest phrase s[0:room] starts with, -1 for none (phrases sorted by first character, then
 * longest first: setup.py). */
static Py_ssize_t phrase_match(const Py_UCS4 *s, Py_ssize_t room) {
    Py_ssize_t lo = 0, hi = N_PHRASES;
    while (lo < hi) {
        Py_ssize_t mid = (lo + hi) / 2;
        if (phrase_chars[phrase_at[mid]] < s[0]) lo = mid + 1;
        else hi = mid;
    }
    for (Py_ssize_t i = lo; i < N_PHRASES && phrase_chars[phrase_at[i]] == s[0]; i++)
        if (phrase_key_len[i] <= room &&
            !memcmp(s, phrase_chars + phrase_at[i], (size_t)phrase_key_len[i] * sizeof(Py_UCS4)))
            return i;
    return -1;
}

/* s[0:n] with its phrases replaced; returns the new length. */
static Py_ssize_t fold_phrases(Py_UCS4 *s, Py_ssize_t n) {
    Py_ssize_t r = 0, w = 0;
    int copying = 0; /* nothing is written before the first phrase: most pages have none */
    while (r < n) {
        /* Up to the next character that may start a phrase, one lookup each: the pair test below on every
         * character was most of a Chinese page's folding. */
        Py_ssize_t from = r;
        while (r < n && s[r] < 0x10000 && !(bmp_class[s[r]] & (C_PHRASE | C_PHRASE1))) r++;
        if (copying)
            for (Py_ssize_t i = from; i < r; i++) s[w + (i - from)] = s[i];
        w += r - from;
        if (r == n) break;
        Py_UCS4 c = s[r];
        /* A tenth of a Chinese page's characters start a phrase: the pair of it and the next is looked up in a
         * bitmap before the phrases are (the search for each was the folding's whole cost, 13,000 cycles a page).
         * Astral characters are looked up, they are rare. */
        unsigned cls = c < 0x10000 ? bmp_class[c] : C_PHRASE1;
        unsigned bit = phrase_pair_bit(c, r + 1 < n ? s[r + 1] : 0); /* no branch until both tests are in */
        unsigned pair = (unsigned)(phrase_pairs[bit >> 6] >> (bit & 63)) & ((cls & C_PHRASE) != 0);
        Py_ssize_t hit = (cls & C_PHRASE1) || pair ? phrase_match(s + r, n - r) : -1;
        if (hit < 0) {
            if (copying) s[w] = s[r];
            w++;
            r++;
            continue;
        }
        copying = 1;
        /* w <= r: the replacement, no longer than the phrase, lands on what has been read */
        memmove(s + w, phrase_chars + phrase_at[hit] + phrase_key_len[hit], (size_t)phrase_rep_len[hit] * sizeof(Py_UCS4));
        w += phrase_rep_len[hit];
        r += phrase_key_len[hit];
    }
    return w;
}
#endif
