// HKDF-SHA256 for 4 keys at once with the SHA extensions: each step's 4 compressions are independent, so
// running them side by side hides the latency of sha256rnds2 (one key alone leaves the unit idle).
#include "internal.h"

#if CEN_X86
#include <immintrin.h>
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

/// Compresses one block into each of 4 independent states (plain word order, a..h).
CEN_SHANI_TARGET static inline void compress_x4(uint32_t state[4][8], const uint8_t *const block[4]) {
    const __m128i byteswap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i abef[4], cdgh[4], abef0[4], cdgh0[4], w[4][4];
    for (int l = 0; l < 4; l++) {
        __m128i t = _mm_loadu_si128((const __m128i *)&state[l][0]);
        __m128i s1 = _mm_loadu_si128((const __m128i *)&state[l][4]);
        t = _mm_shuffle_epi32(t, 0xB1);                 // c d a b
        s1 = _mm_shuffle_epi32(s1, 0x1B);               // e f g h
        abef[l] = abef0[l] = _mm_alignr_epi8(t, s1, 8);  // a b e f
        cdgh[l] = cdgh0[l] = _mm_blend_epi16(s1, t, 0xF0);
        for (int q = 0; q < 4; q++) {
            w[l][q] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(block[l] + 16 * q)), byteswap);
        }
    }
#pragma GCC unroll 16
    for (int r = 0; r < 16; r++) {
        const __m128i k = _mm_load_si128((const __m128i *)&K256[4 * r]);
        for (int l = 0; l < 4; l++) {
            __m128i m;
            if (r < 4) {
                m = w[l][r];
            } else {
                // W[r] = msg2(msg1(W[r-4], W[r-3]) + alignr(W[r-1], W[r-2]), W[r-1]), four words at a time.
                __m128i x = _mm_sha256msg1_epu32(w[l][r & 3], w[l][(r + 1) & 3]);
                x = _mm_add_epi32(x, _mm_alignr_epi8(w[l][(r + 3) & 3], w[l][(r + 2) & 3], 4));
                m = _mm_sha256msg2_epu32(x, w[l][(r + 3) & 3]);
                w[l][r & 3] = m;
            }
            __m128i t = _mm_add_epi32(m, k);
            cdgh[l] = _mm_sha256rnds2_epu32(cdgh[l], abef[l], t);
            t = _mm_shuffle_epi32(t, 0x0E);
            abef[l] = _mm_sha256rnds2_epu32(abef[l], cdgh[l], t);
        }
    }
    for (int l = 0; l < 4; l++) {
        __m128i s0 = _mm_add_epi32(abef[l], abef0[l]);
        __m128i s1 = _mm_add_epi32(cdgh[l], cdgh0[l]);
        __m128i t = _mm_shuffle_epi32(s0, 0x1B);  // f e b a
        s1 = _mm_shuffle_epi32(s1, 0xB1);          // d c h g
        s0 = _mm_blend_epi16(t, s1, 0xF0);         // d c b a
        s1 = _mm_alignr_epi8(s1, t, 8);            // h g f e
        _mm_storeu_si128((__m128i *)&state[l][0], s0);
        _mm_storeu_si128((__m128i *)&state[l][4], s1);
    }
}

CEN_SHANI_TARGET void cen_hkdf_rpik_shani_x4(const uint8_t *const key_data[4], uint8_t *const rpik[4]) {
    const cen_salt_pads *pads = cen_zero_salt_pads();
    uint8_t blocks[4][64] __attribute__((aligned(16)));
    const uint8_t *const bp[4] = {blocks[0], blocks[1], blocks[2], blocks[3]};
    uint32_t inner[4][8], prk[4][8], t[4][8];

    for (int l = 0; l < 4; l++) {
        memcpy(inner[l], pads->inner, 32);
        cen_hkdf_block_extract_inner(blocks[l], key_data[l]);
    }
    compress_x4(inner, bp);
    for (int l = 0; l < 4; l++) {
        memcpy(prk[l], pads->outer, 32);
        cen_hkdf_block_digest(blocks[l], inner[l]);
    }
    compress_x4(prk, bp);
    for (int l = 0; l < 4; l++) {
        memcpy(inner[l], cen_sha256_iv, 32);
        cen_hkdf_block_pad(blocks[l], prk[l], 0x36);
    }
    compress_x4(inner, bp);
    for (int l = 0; l < 4; l++) cen_hkdf_block_info(blocks[l]);
    compress_x4(inner, bp);
    for (int l = 0; l < 4; l++) {
        memcpy(t[l], cen_sha256_iv, 32);
        cen_hkdf_block_pad(blocks[l], prk[l], 0x5c);
    }
    compress_x4(t, bp);
    for (int l = 0; l < 4; l++) cen_hkdf_block_digest(blocks[l], inner[l]);
    compress_x4(t, bp);
    for (int l = 0; l < 4; l++) cen_store_be32(rpik[l], t[l], 4);
    memset(blocks, 0, sizeof blocks);
    memset(prk, 0, sizeof prk);
}
#endif
