/*
 * nshash/_votes.h: the clusters a page's looked-up sentences vote for, as
 * votes.sentence_votes specifies them, in the order decide.assign reads its
 * candidates in.  Included by _assign.h only (after _assign_stores.h: ABSENT).
 */
#ifndef NSHASH_VOTES_H
#define NSHASH_VOTES_H

static inline int64_t head_or_tail(int64_t head, int64_t tail) {
    if (head != ABSENT && head != 0) return head;
    return tail != ABSENT && tail != 0 ? tail : 0;
}

typedef struct {
    int64_t id;
    int votes, top;
} tally;

/* votes.sentence_votes: the clusters the sentences point to, with how many of all and of the top n. */
static int sentence_votes(const int64_t *values, int looked, int top, tally *out) {
    int found = 0;
    for (int i = 0; i < looked; i++) {
        int64_t match = head_or_tail(values[2 * i], values[2 * i + 1]);
        if (match == 0) continue;
        int at = 0;
        while (at < found && out[at].id != match) at++;
        if (at == found) out[found++] = (tally){match, 0, 0};
        out[at].votes++;
        if (i < top) out[at].top++;
    }
    for (int i = 0; i < looked; i++) { /* votes.sentence_votes: a tail that leads elsewhere, one vote */
        int64_t head = head_or_tail(values[2 * i], 0), tail = head_or_tail(values[2 * i + 1], 0);
        if (head == 0 || tail == 0 || tail == head) continue;
        int at = 0;
        while (at < found && out[at].id != tail) at++;
        if (at == found) out[found++] = (tally){tail, 1, 0};
    }
    return found;
}

static int tally_order(const void *a, const void *b) { /* (-votes, -id): decide.MAX_CANDIDATES */
    const tally *x = a, *y = b;
    if (x->votes != y->votes) return y->votes - x->votes;
    return x->id > y->id ? -1 : x->id < y->id;
}

#endif
