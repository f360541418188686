/*
 * nshash/_bylines.h: nshash.chrome.is_byline in C, on a stripped line s[a:b] of
 * a code point buffer: a date (chrome._DATE_RE), no sentence, no URL.
 * Included by _chrome.h only.
 */
#ifndef NSHASH_BYLINES_H
#define NSHASH_BYLINES_H
#include "_tables.h"

/* ASCII digits and letters: chrome._DATE_RE's [0-9], [A-Za-z] (not str.isdigit's other scripts). */
static inline int ascii_digit(Py_UCS4 c) { return c >= '0' && c <= '9'; }
static inline int ascii_letter(Py_UCS4 c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/* The length of the run of ASCII digits at s[i:b]. */
static inline Py_ssize_t digits_at(const Py_UCS4 *s, Py_ssize_t i, Py_ssize_t b) {
    Py_ssize_t j = i;
    while (j < b && ascii_digit(s[j])) j++;
    return j - i;
}

/* chrome._MONTH at s[i:b] (a letter at i, none before it): where it ends (past its '.'), or -1. */
static Py_ssize_t month_at(const Py_UCS4 *s, Py_ssize_t a, Py_ssize_t i, Py_ssize_t b) {
    if (i > a && ascii_letter(s[i - 1])) return -1;
    if (strchr(MONTH_INITIALS, (int)(s[i] | 0x20)) == NULL) return -1; /* lower case (i is a letter): most words go here */
    Py_ssize_t j = i;
    char word[MONTH_WORD_MAX + 1];
    while (j < b && ascii_letter(s[j])) {
        if (j - i == MONTH_WORD_MAX) return -1; /* longer than the longest month word */
        word[j - i] = (char)(s[j] | 0x20);
        j++;
    }
    word[j - i] = 0;
    int found = 0;
    for (size_t k = 0; k < N_MONTH_WORDS && !found; k++)
        found = strcmp(word, month_words[k]) == 0;
    if (!found) return -1;
    return j < b && s[j] == '.' ? j + 1 : j;
}

/* Past one whitespace character at s[k:b], if there is one: a regex's \s?. */
static inline Py_ssize_t optional_space(const Py_UCS4 *s, Py_ssize_t k, Py_ssize_t b) {
    return k < b && Py_UNICODE_ISSPACE(s[k]) ? k + 1 : k;
}

/* \s+[0-9]{4}(?![0-9]) at s[i:b]. */
static inline int spaced_year(const Py_UCS4 *s, Py_ssize_t i, Py_ssize_t b) {
    Py_ssize_t j = skip_space(s, b, i);
    return j > i && digits_at(s, j, b) == 4;
}

/* chrome._DATE_RE matches at s[i:b] (in the line s[a:b]). */
static int date_at(const Py_UCS4 *s, Py_ssize_t a, Py_ssize_t i, Py_ssize_t b) {
    if (ascii_letter(s[i])) { /* May 14, 2021 */
        Py_ssize_t j = month_at(s, a, i, b), k;
        if (j < 0 || (k = skip_space(s, b, j)) == j) return 0;
        Py_ssize_t day = digits_at(s, k, b);
        if (day < 1 || day > 2) return 0;
        k += day;
        if (k + 1 < b && ((s[k] == 's' && s[k + 1] == 't') || (s[k] == 'n' && s[k + 1] == 'd') ||
                          (s[k] == 'r' && s[k + 1] == 'd') || (s[k] == 't' && s[k + 1] == 'h')))
            k += 2;
        if (k < b && s[k] == ',') k++;
        return spaced_year(s, k, b);
    }
    if (!ascii_digit(s[i]) || (i > a && ascii_digit(s[i - 1]))) return 0;
    Py_ssize_t first = digits_at(s, i, b), j = i + first;
    if (first == 4 && j < b) { /* 2021-05-14, 2021/06/02, 2021.05.21; 2021年5月21日 */
        Py_UCS4 sep = s[j];
        if (sep == '-' || sep == '/' || sep == '.') {
            Py_ssize_t month = digits_at(s, j + 1, b), k = j + 1 + month;
            if (month >= 1 && month <= 2 && k < b && s[k] == sep) {
                Py_ssize_t day = digits_at(s, k + 1, b);
                if (day >= 1 && day <= 2) return 1;
            }
        }
        Py_ssize_t k = optional_space(s, j, b);
        if (k < b && s[k] == 0x5E74) { /* 年 */
            k = optional_space(s, k + 1, b);
            Py_ssize_t month = digits_at(s, k, b);
            k += month;
            if (month >= 1 && month <= 2) {
                k = optional_space(s, k, b);
                if (k < b && s[k] == 0x6708) { /* 月 */
                    k = optional_space(s, k + 1, b);
                    if (k < b && ascii_digit(s[k])) return 1;
                }
            }
        }
        return 0;
    }
    if (first < 1 || first > 2 || j >= b) return 0;
    Py_UCS4 sep = s[j];
    if (sep == '-' || sep == '/' || sep == '.') { /* 09/26/2021, 24-5-13; 26.09.2021 */
        Py_ssize_t second = digits_at(s, j + 1, b), k = j + 1 + second;
        if (second >= 1 && second <= 2 && k < b && s[k] == sep) {
            Py_ssize_t year = digits_at(s, k + 1, b);
            if (sep == '.' ? year == 4 : year >= 2 && year <= 4) return 1;
        }
        return 0;
    }
    /* 14 May 2021 */
    Py_ssize_t k = skip_space(s, b, j);
    if (k == j || k >= b || !ascii_letter(s[k])) return 0;
    k = month_at(s, a, k, b);
    if (k < 0) return 0;
    if (k < b && s[k] == ',') k++;
    return spaced_year(s, k, b);
}

/* chrome.is_byline on the line s[a:b] of that weight. */
static int is_byline(const Py_UCS4 *s, Py_ssize_t a, Py_ssize_t b, Py_ssize_t weight) {
    if (weight > BYLINE_MAX || a == b) return 0;
    Py_UCS4 last = s[b - 1];
    if (last == '.' || last == '!' || last == '?') return 0; /* _BYLINE_PROSE_RE: a sentence end at its end */
    Py_ssize_t digit = a; /* every date holds one: most lines have none and go here */
    while (digit < b && !ascii_digit(s[digit])) digit++;
    if (digit == b) return 0;
    for (Py_ssize_t i = a; i < b; i++) {
        Py_UCS4 c = s[i];
        if (c == 0x3002 || c == 0xFF01 || c == 0xFF1F || c == 0xFF0C || c == 0xFF1B) return 0; /* 。！？，； */
        if (c == ':' && i + 2 < b && s[i + 1] == '/' && s[i + 2] == '/') return 0;               /* a URL */
        if (c == '.' || c == '!' || c == '?') { /* before the next sentence */
            Py_ssize_t k = skip_space(s, b, i + 1);
            if (k > i + 1 && k + 1 < b && s[k] >= 'A' && s[k] <= 'Z' && s[k + 1] >= 'a' && s[k + 1] <= 'z') return 0;
        }
    }
    for (Py_ssize_t i = a; i < b; i++)
        if (date_at(s, a, i, b)) return 1;
    return 0;
}
#endif
