/*
 * nshash/_farmhash.h: FarmHash Fingerprint64 (farmhashna::Hash64), the
 * function pyfarmhash's fingerprint64 exposes, written out so that keys are
 * hashed without a Python call each.  tests/test_speedups.py checks it
 * against pyfarmhash on every length class.  Included by _speedups.c only.
 */
#ifndef NSHASH_FARMHASH_H
#define NSHASH_FARMHASH_H
#include <stdint.h>
#include <stddef.h>
#include <string.h>
static const uint64_t k0 = 0xc3a5c85c97cb3127ULL;
static const uint64_t k1 = 0xb492b66fbe98f273ULL;
static const uint64_t k2 = 0x9ae16a3b2f90404fULL;

/* FarmHash reads words little-endian on every platform. */
static inline uint64_t fetch64(const unsigned char *p) {
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}
static inline uint32_t fetch32(const unsigned char *p) {
    uint32_t v;
    memcpy(&v, p, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap32(v);
#endif
    return v;
}
static inline uint64_t rot(uint64_t v, int s) { return s == 0 ? v : (v >> s) | (v << (64 - s)); }
static inline uint64_t shift_mix(uint64_t v) { return v ^ (v >> 47); }
static inline uint64_t hash16(uint64_t u, uint64_t v, uint64_t mul) {
    uint64_t a = (u ^ v) * mul; a ^= (a >> 47);
    uint64_t b = (v ^ a) * mul; b ^= (b >> 47); b *= mul; return b;
}
static uint64_t len0to16(const unsigned char *s, size_t len) {
    if (len >= 8) {
        uint64_t mul = k2 + len * 2, a = fetch64(s) + k2, b = fetch64(s + len - 8);
        uint64_t c = rot(b, 37) * mul + a, d = (rot(a, 25) + b) * mul;
        return hash16(c, d, mul);
    }
    if (len >= 4) {
        uint64_t mul = k2 + len * 2, a = fetch32(s);
        return hash16(len + (a << 3), fetch32(s + len - 4), mul);
    }
    if (len > 0) {
        uint8_t a = s[0], b = s[len >> 1], c = s[len - 1];
        uint32_t y = (uint32_t)a + ((uint32_t)b << 8), z = (uint32_t)len + ((uint32_t)c << 2);
        return shift_mix(y * k2 ^ z * k0) * k2;
    }
    return k2;
}
static uint64_t len17to32(const unsigned char *s, size_t len) {
    uint64_t mul = k2 + len * 2, a = fetch64(s) * k1, b = fetch64(s + 8);
    uint64_t c = fetch64(s + len - 8) * mul, d = fetch64(s + len - 16) * k2;
    return hash16(rot(a + b, 43) + rot(c, 30) + d, a + rot(b + k2, 18) + c, mul);
}
static uint64_t len33to64(const unsigned char *s, size_t len) {
    uint64_t mul = k2 + len * 2, a = fetch64(s) * k2, b = fetch64(s + 8);
    uint64_t c = fetch64(s + len - 8) * mul, d = fetch64(s + len - 16) * k2;
    uint64_t y = rot(a + b, 43) + rot(c, 30) + d;
    uint64_t z = hash16(y, a + rot(b + k2, 18) + c, mul);
    uint64_t e = fetch64(s + 16) * mul, f = fetch64(s + 24);
    uint64_t g = (y + fetch64(s + len - 32)) * mul, h = (z + fetch64(s + len - 24)) * mul;
    return hash16(rot(e + f, 43) + rot(g, 30) + h, e + rot(f + a, 18) + g, mul);
}
static void weak32(const unsigned char *s, uint64_t a, uint64_t b, uint64_t *o1, uint64_t *o2) {
    uint64_t w = fetch64(s), x = fetch64(s + 8), y = fetch64(s + 16), z = fetch64(s + 24);
    a += w; b = rot(b + a + z, 21); uint64_t c = a; a += x; a += y; b += rot(a, 44);
    *o1 = a + z; *o2 = b + c;
}
static uint64_t fingerprint64(const unsigned char *s, size_t len) {
    if (len <= 32) return len <= 16 ? len0to16(s, len) : len17to32(s, len);
    if (len <= 64) return len33to64(s, len);
    uint64_t seed = 81, x = seed, y = seed * k1 + 113, z = shift_mix(y * k2 + 113) * k2;
    uint64_t v1 = 0, v2 = 0, w1 = 0, w2 = 0, t;
    x = x * k2 + fetch64(s);
    const unsigned char *end = s + ((len - 1) / 64) * 64;
    const unsigned char *last64 = end + ((len - 1) & 63) - 63;
    do {
        x = rot(x + y + v1 + fetch64(s + 8), 37) * k1;
        y = rot(y + v2 + fetch64(s + 48), 42) * k1;
        x ^= w2;
        y += v1 + fetch64(s + 40);
        z = rot(z + w1, 33) * k1;
        weak32(s, v2 * k1, x + w1, &v1, &v2);
        weak32(s + 32, z + w2, y + fetch64(s + 16), &w1, &w2);
        t = z; z = x; x = t;
        s += 64;
    } while (s != end);
    uint64_t mul = k1 + ((z & 0xff) << 1);
    s = last64;
    w1 += ((len - 1) & 63);
    v1 += w1;
    w1 += v1;
    x = rot(x + y + v1 + fetch64(s + 8), 37) * mul;
    y = rot(y + v2 + fetch64(s + 48), 42) * mul;
    x ^= w2 * 9;
    y += v1 * 9 + fetch64(s + 40);
    z = rot(z + w1, 33) * mul;
    weak32(s, v2 * mul, x + w1, &v1, &v2);
    weak32(s + 32, z + w2, y + fetch64(s + 16), &w1, &w2);
    t = z; z = x; x = t;
    return hash16(hash16(v1, w1, mul) + shift_mix(y) * k0 + z, hash16(v2, w2, mul) + x, mul);
}

#endif
