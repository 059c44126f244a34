// HKDF-SHA256 for 4 keys at once with the SHA extensions: each step's 4 compressions are independent, so
// running them side by side hides the latency of sha256rnds2 (one key alone leaves the unit idle).
//
// Everything stays in registers between the compressions: the chaining values in the ABEF/CDGH order the
// instructions use, the message blocks as four vectors of host-order words built from the previous digest
// (no padded byte blocks, no byte swaps but the key's and the output's). The expand step's info block
// ("EN-RPIK" || 0x01 and its padding) is the same for every key, so its whole message schedule (W + K for the
// 64 rounds) is computed once; its compression is 32 sha256rnds2 with nothing else. The expand step's ipad
// and opad compressions of the 4 keys (8 independent chains) run side by side.
#include "internal.h"

#if CEN_X86
#include <immintrin.h>
#include <pthread.h>
#include <string.h>

#define CEN_SHANI_TARGET __attribute__((target("sha,sse4.1,ssse3")))

static const uint32_t K256[64] __attribute__((aligned(16))) = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

/// Constants computed once: the chaining values after the zero salt's pad blocks and the SHA-256 IV in the
/// instructions' order, and W + K of the info block's 64 rounds.
typedef struct {
    uint32_t extract_inner[8], extract_outer[8], iv[8];
    uint32_t info_schedule[64] __attribute__((aligned(16)));
} shani_constants;

static shani_constants constants;
static pthread_once_t constants_once = PTHREAD_ONCE_INIT;

static uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

static void compute_constants(void) {
    const cen_salt_pads *pads = cen_zero_salt_pads();
    memcpy(constants.extract_inner, pads->inner, 32);
    memcpy(constants.extract_outer, pads->outer, 32);
    memcpy(constants.iv, cen_sha256_iv, 32);
    // The info block: "EN-RPIK" || 0x01, then 0x80, zeros and the bit length of 64 + 8 bytes.
    uint32_t w[64] = {0x454e2d52u, 0x50494b01u, 0x80000000u};
    w[15] = (64 + 8) * 8;
    for (int t = 16; t < 64; t++) {
        const uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
        const uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    for (int t = 0; t < 64; t++) constants.info_schedule[t] = w[t] + K256[t];
}

void cen_hkdf_shani_prepare(void) { pthread_once(&constants_once, compute_constants); }

/// A chaining value in the order sha256rnds2 takes it.
typedef struct {
    __m128i abef, cdgh;
} sha_state;

/// From words h0..h3 and h4..h7 (lane 0 first) to ABEF/CDGH.
CEN_SHANI_TARGET static inline sha_state state_from_words(__m128i h0123, __m128i h4567) {
    const __m128i t = _mm_shuffle_epi32(h0123, 0xB1);   // h1 h0 h3 h2
    const __m128i s = _mm_shuffle_epi32(h4567, 0x1B);   // h7 h6 h5 h4
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

/// One compression of a 16-word block (m: 4 vectors of host-order words) into each of L independent states,
/// the L chains' instructions interleaved round by round.
#define CEN_DEFINE_COMPRESS(L)                                                                                       \
    CEN_SHANI_TARGET static inline __attribute__((always_inline)) void compress_##L(sha_state s[L],                  \
                                                                                     __m128i m[L][4]) {              \
        sha_state start[L];                                                                                          \
        for (int l = 0; l < L; l++) start[l] = s[l];                                                                 \
        _Pragma("GCC unroll 16") for (int r = 0; r < 16; r++) {                                                      \
            const __m128i k = _mm_load_si128((const __m128i *)&K256[4 * r]);                                        \
            _Pragma("GCC unroll 8") for (int l = 0; l < L; l++) {                                                    \
                __m128i wk = _mm_add_epi32(m[l][r & 3], k);                                                          \
                s[l].cdgh = _mm_sha256rnds2_epu32(s[l].cdgh, s[l].abef, wk);                                         \
                s[l].abef = _mm_sha256rnds2_epu32(s[l].abef, s[l].cdgh, _mm_shuffle_epi32(wk, 0x0E));                \
                if (r < 12) {                                                                                        \
                    /* W[r+4] from W[r..r+3], four words at a time */                                                \
                    __m128i x = _mm_sha256msg1_epu32(m[l][r & 3], m[l][(r + 1) & 3]);                                \
                    x = _mm_add_epi32(x, _mm_alignr_epi8(m[l][(r + 3) & 3], m[l][(r + 2) & 3], 4));                  \
                    m[l][r & 3] = _mm_sha256msg2_epu32(x, m[l][(r + 3) & 3]);                                        \
                }                                                                                                    \
            }                                                                                                        \
        }                                                                                                            \
        for (int l = 0; l < L; l++) {                                                                                \
            s[l].abef = _mm_add_epi32(s[l].abef, start[l].abef);                                                     \
            s[l].cdgh = _mm_add_epi32(s[l].cdgh, start[l].cdgh);                                                     \
        }                                                                                                            \
    }

CEN_DEFINE_COMPRESS(4)
CEN_DEFINE_COMPRESS(8)

/// The info block's compression: the schedule is constant, only the rounds remain.
CEN_SHANI_TARGET static inline __attribute__((always_inline)) void compress_info_4(sha_state s[4]) {
    sha_state start[4];
    for (int l = 0; l < 4; l++) start[l] = s[l];
#pragma GCC unroll 16
    for (int r = 0; r < 16; r++) {
        const __m128i wk = _mm_load_si128((const __m128i *)&constants.info_schedule[4 * r]);
        const __m128i wk_high = _mm_shuffle_epi32(wk, 0x0E);
        for (int l = 0; l < 4; l++) {
            s[l].cdgh = _mm_sha256rnds2_epu32(s[l].cdgh, s[l].abef, wk);
            s[l].abef = _mm_sha256rnds2_epu32(s[l].abef, s[l].cdgh, wk_high);
        }
    }
    for (int l = 0; l < 4; l++) {
        s[l].abef = _mm_add_epi32(s[l].abef, start[l].abef);
        s[l].cdgh = _mm_add_epi32(s[l].cdgh, start[l].cdgh);
    }
}

CEN_SHANI_TARGET void cen_hkdf_rpik_shani_x4(const uint8_t *const key_data[4], uint8_t *const rpik[4]) {
    cen_hkdf_shani_prepare();
    const __m128i byteswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    const __m128i digest_tail = _mm_set_epi32(0, 0, 0, (int)0x80000000u);  // 0x80 after 32 bytes
    const __m128i digest_length = _mm_set_epi32((64 + 32) * 8, 0, 0, 0);   // 64 + 32 bytes hashed
    const __m128i ipad = _mm_set1_epi32(0x36363636), opad = _mm_set1_epi32(0x5c5c5c5c);
    sha_state s[8];
    __m128i m[8][4];

    // Extract, inner: the zero salt's ipad state, then TEK || 0x80 || ... || bit length of 64 + 16 bytes.
    const sha_state extract_inner = state_load(constants.extract_inner);
    for (int l = 0; l < 4; l++) {
        s[l] = extract_inner;
        m[l][0] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)key_data[l]), byteswap);
        m[l][1] = digest_tail;
        m[l][2] = _mm_setzero_si128();
        m[l][3] = _mm_set_epi32((64 + 16) * 8, 0, 0, 0);
    }
    compress_4(s, m);

    // Extract, outer: PRK = the opad state over the inner digest.
    const sha_state extract_outer = state_load(constants.extract_outer);
    for (int l = 0; l < 4; l++) {
        state_words(s[l], &m[l][0], &m[l][1]);
        m[l][2] = digest_tail;
        m[l][3] = digest_length;
        s[l] = extract_outer;
    }
    compress_4(s, m);

    // Expand: HMAC(PRK, info) starts with the PRK's ipad block (chains 0-3) and opad block (chains 4-7).
    const sha_state iv = state_load(constants.iv);
    for (int l = 0; l < 4; l++) {
        __m128i p0, p1;
        state_words(s[l], &p0, &p1);
        m[l][0] = _mm_xor_si128(p0, ipad);
        m[l][1] = _mm_xor_si128(p1, ipad);
        m[l][2] = m[l][3] = ipad;
        m[4 + l][0] = _mm_xor_si128(p0, opad);
        m[4 + l][1] = _mm_xor_si128(p1, opad);
        m[4 + l][2] = m[4 + l][3] = opad;
        s[l] = s[4 + l] = iv;
    }
    compress_8(s, m);

    // The info block into the inner chains, then the inner digest into the outer chains.
    compress_info_4(s);
    for (int l = 0; l < 4; l++) {
        state_words(s[l], &m[4 + l][0], &m[4 + l][1]);
        m[4 + l][2] = digest_tail;
        m[4 + l][3] = digest_length;
    }
    compress_4(s + 4, m + 4);

    // RPIK: the first 16 bytes of the outer digest, big-endian.
    for (int l = 0; l < 4; l++) {
        __m128i h0123, h4567;
        state_words(s[4 + l], &h0123, &h4567);
        _mm_storeu_si128((__m128i *)rpik[l], _mm_shuffle_epi8(h0123, byteswap));
    }
}
#endif
