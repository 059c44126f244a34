// The SHA-NI HKDF of 4 keys, as a macro with a hook between its rounds: the plain HKDF leaves it empty, the
// VAES-512 level probes the previous keys' identifiers there (scalar work for the integer units while the
// SHA unit works through the rounds).
#ifndef CEN_SHA_X86_H
#define CEN_SHA_X86_H

#include "internal.h"

#if CEN_X86
#include <immintrin.h>

#define CEN_SHANI_TARGET __attribute__((target("sha,sse4.1,ssse3")))

extern const uint32_t cen_k256[64];

/// Constants computed once by cen_hkdf_shani_prepare: the chaining values after the zero salt's pad blocks
/// and the SHA-256 IV, and W + K of the info block's 64 rounds.
typedef struct {
    uint32_t extract_inner[8], extract_outer[8], iv[8];
    uint32_t info_schedule[64] __attribute__((aligned(16)));
} cen_shani_constants;

extern cen_shani_constants cen_shani_constants_value;

/// A chaining value in the order sha256rnds2 takes it.
typedef struct {
    __m128i abef, cdgh;
} sha_state;

/// From words h0..h3 and h4..h7 (lane 0 first) to ABEF/CDGH.
CEN_SHANI_TARGET static inline sha_state state_from_words(__m128i h0123, __m128i h4567) {
    const __m128i t = _mm_shuffle_epi32(h0123, 0xB1);  // h1 h0 h3 h2
    const __m128i s = _mm_shuffle_epi32(h4567, 0x1B);  // h7 h6 h5 h4
    return (sha_state){_mm_alignr_epi8(t, s, 8), _mm_blend_epi16(s, t, 0xF0)};
}

CEN_SHANI_TARGET static inline sha_state state_load(const uint32_t h[8]) {
    return state_from_words(_mm_loadu_si128((const __m128i *)h), _mm_loadu_si128((const __m128i *)(h + 4)));
}

/// Back to words: the digest as the first 8 message words of the next block.
CEN_SHANI_TARGET static inline void state_words(sha_state s, __m128i *h0123, __m128i *h4567) {
    const __m128i t = _mm_shuffle_epi32(s.abef, 0x1B);
    const __m128i u = _mm_shuffle_epi32(s.cdgh, 0xB1);
    *h0123 = _mm_blend_epi16(t, u, 0xF0);
    *h4567 = _mm_alignr_epi8(u, t, 8);
}

/// 4 rounds of one chain (W + K in wk). A volatile asm, so that the compiler keeps the chains' rounds in the order
/// written (interleaved): clang otherwise runs one chain's rounds after another's to spare registers, leaving the
/// SHA unit waiting on one chain's latency.
CEN_SHANI_TARGET static inline __attribute__((always_inline)) void sha_rnds4(sha_state *s, __m128i wk) {
    __asm__ volatile("movdqa %[wk], %%xmm0\n\t"
                     "sha256rnds2 %%xmm0, %[abef], %[cdgh]\n\t"
                     "pshufd $0x0e, %[wk], %%xmm0\n\t"
                     "sha256rnds2 %%xmm0, %[cdgh], %[abef]"
                     : [abef] "+x"(s->abef), [cdgh] "+x"(s->cdgh)
                     : [wk] "x"(wk)
                     : "xmm0");
}

/// Rounds 4r ..< 4r + 4 (r = 4q + i) of one chain; m holds the block's 4 message vectors and is rewritten with
/// W[4r + 16 ...] as the schedule advances. i is a constant (the vectors stay in registers), q need not be.
CEN_SHANI_TARGET static inline __attribute__((always_inline)) void sha_rounds4(sha_state *s, __m128i m[4], int q,
                                                                              int i) {
    const __m128i wk = _mm_add_epi32(m[i], _mm_load_si128((const __m128i *)&cen_k256[16 * q + 4 * i]));
    sha_rnds4(s, wk);
    if (q < 3) {
        __m128i x = _mm_sha256msg1_epu32(m[i], m[(i + 1) & 3]);
        x = _mm_add_epi32(x, _mm_alignr_epi8(m[(i + 3) & 3], m[(i + 2) & 3], 4));
        m[i] = _mm_sha256msg2_epu32(x, m[(i + 3) & 3]);
    }
}

/// Rounds 4r ..< 4r + 4 of the info block, whose W + K are precomputed.
CEN_SHANI_TARGET static inline __attribute__((always_inline)) void sha_info_rounds4(sha_state *s, int q, int i) {
    const __m128i wk = _mm_load_si128((const __m128i *)&cen_shani_constants_value.info_schedule[16 * q + 4 * i]);
    sha_rnds4(s, wk);
}

CEN_SHANI_TARGET static inline void sha_add(sha_state *s, sha_state start) {
    s->abef = _mm_add_epi32(s->abef, start.abef);
    s->cdgh = _mm_add_epi32(s->cdgh, start.cdgh);
}

#define CEN_SHA_BYTESWAP _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL)
#define CEN_SHA_DIGEST_TAIL _mm_set_epi32(0, 0, 0, (int)0x80000000u) /* 0x80 after 32 bytes */
#define CEN_SHA_DIGEST_LENGTH _mm_set_epi32((64 + 32) * 8, 0, 0, 0)  /* 64 + 32 bytes hashed */
#define CEN_SHA_KEY_LENGTH _mm_set_epi32((64 + 16) * 8, 0, 0, 0)     /* 64 + 16 bytes hashed */

/// The 64 rounds of a compression as q = 0..3 (a loop, UNROLL: a _Pragma) times i = 0..3 (unrolled): ROUNDS
/// for 4 rounds of every chain, then TICK.
#define CEN_SHA_LOOP(UNROLL, ROUNDS, TICK)                                                                      \
    UNROLL for (int q = 0; q < 4; q++) {                                                                        \
        { const int i = 0; ROUNDS; TICK; }                                                                      \
        { const int i = 1; ROUNDS; TICK; }                                                                      \
        { const int i = 2; ROUNDS; TICK; }                                                                      \
        { const int i = 3; ROUNDS; TICK; }                                                                      \
    }

/// The RPIKs of 4 keys (key_data, rpik_out: 4 pointers to 16 bytes each), statement TICK after each 4 rounds
/// of all chains. Six stages of 4 chains: extract inner and outer; the expand step's ipad block and opad
/// block (as 8 chains side by side they were slower: the SHA instructions reach only xmm0-15, and 8 chains'
/// states and messages spilled); the info block (precomputed schedule); the outer digest block. Needs
/// cen_hkdf_shani_prepare() first.
#define CEN_HKDF_SHANI_X4(key_data, rpik_out, UNROLL, TICK)                                                     \
    do {                                                                                                        \
        const __m128i hkdf_ipad = _mm_set1_epi32(0x36363636), hkdf_opad = _mm_set1_epi32(0x5c5c5c5c);          \
        sha_state hs[8], hs0[8];                                                                                \
        __m128i hm[8][4];                                                                                       \
        const sha_state extract_inner = state_load(cen_shani_constants_value.extract_inner);                   \
        for (int l = 0; l < 4; l++) {                                                                           \
            hs[l] = hs0[l] = extract_inner;                                                                     \
            hm[l][0] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(key_data)[l]), CEN_SHA_BYTESWAP);    \
            hm[l][1] = CEN_SHA_DIGEST_TAIL;                                                                     \
            hm[l][2] = _mm_setzero_si128();                                                                     \
            hm[l][3] = CEN_SHA_KEY_LENGTH;                                                                      \
        }                                                                                                       \
        CEN_SHA_LOOP(UNROLL, for (int l = 0; l < 4; l++) sha_rounds4(&hs[l], hm[l], q, i), TICK);               \
        const sha_state extract_outer = state_load(cen_shani_constants_value.extract_outer);                   \
        for (int l = 0; l < 4; l++) {                                                                           \
            sha_add(&hs[l], hs0[l]);                                                                            \
            state_words(hs[l], &hm[l][0], &hm[l][1]);                                                           \
            hm[l][2] = CEN_SHA_DIGEST_TAIL;                                                                     \
            hm[l][3] = CEN_SHA_DIGEST_LENGTH;                                                                   \
            hs[l] = hs0[l] = extract_outer;                                                                     \
        }                                                                                                       \
        CEN_SHA_LOOP(UNROLL, for (int l = 0; l < 4; l++) sha_rounds4(&hs[l], hm[l], q, i), TICK);               \
        const sha_state iv = state_load(cen_shani_constants_value.iv);                                         \
        for (int l = 0; l < 4; l++) {                                                                           \
            __m128i p0, p1;                                                                                     \
            sha_add(&hs[l], hs0[l]);                                                                            \
            state_words(hs[l], &p0, &p1);                                                                       \
            hm[l][0] = _mm_xor_si128(p0, hkdf_ipad);                                                            \
            hm[l][1] = _mm_xor_si128(p1, hkdf_ipad);                                                            \
            hm[l][2] = hm[l][3] = hkdf_ipad;                                                                    \
            hm[4 + l][0] = _mm_xor_si128(p0, hkdf_opad);                                                        \
            hm[4 + l][1] = _mm_xor_si128(p1, hkdf_opad);                                                        \
            hm[4 + l][2] = hm[4 + l][3] = hkdf_opad;                                                            \
        }                                                                                                       \
        for (int l = 0; l < 8; l++) hs[l] = iv;                                                                 \
        CEN_SHA_LOOP(UNROLL, for (int l = 0; l < 4; l++) sha_rounds4(&hs[l], hm[l], q, i), TICK);               \
        CEN_SHA_LOOP(UNROLL, for (int l = 4; l < 8; l++) sha_rounds4(&hs[l], hm[l], q, i), TICK);               \
        for (int l = 0; l < 8; l++) sha_add(&hs[l], iv);                                                        \
        for (int l = 0; l < 4; l++) hs0[l] = hs[l];                                                             \
        CEN_SHA_LOOP(UNROLL, for (int l = 0; l < 4; l++) sha_info_rounds4(&hs[l], q, i), TICK);                 \
        for (int l = 0; l < 4; l++) {                                                                           \
            sha_add(&hs[l], hs0[l]);                                                                            \
            hs0[4 + l] = hs[4 + l];                                                                             \
            state_words(hs[l], &hm[4 + l][0], &hm[4 + l][1]);                                                   \
            hm[4 + l][2] = CEN_SHA_DIGEST_TAIL;                                                                 \
            hm[4 + l][3] = CEN_SHA_DIGEST_LENGTH;                                                               \
        }                                                                                                       \
        CEN_SHA_LOOP(UNROLL, for (int l = 4; l < 8; l++) sha_rounds4(&hs[l], hm[l], q, i), TICK);               \
        for (int l = 0; l < 4; l++) {                                                                           \
            __m128i h0123, h4567;                                                                               \
            sha_add(&hs[4 + l], hs0[4 + l]);                                                                    \
            state_words(hs[4 + l], &h0123, &h4567);                                                             \
            _mm_storeu_si128((__m128i *)(rpik_out)[l], _mm_shuffle_epi8(h0123, CEN_SHA_BYTESWAP));             \
        }                                                                                                       \
    } while (0)
#endif

#endif
