// AES-128 RPI derivation with AES-NI (8 blocks in flight) and VAES (8 x 256-bit registers, 16 blocks).
//
// The padded data of interval j is "EN-RPI" || 0^6 || LE32(j): the same block with the interval in
// 32-bit lane 3, so every input is the base block plus a lane-3 increment. (AES-CTR cannot be used: its
// counter is big-endian.) The increment wraps modulo 2^32 like the interval field.
#include "internal.h"

#if CEN_X86
#include <immintrin.h>

#define CEN_AESNI_TARGET __attribute__((target("aes,sse4.1,ssse3")))
#define CEN_VAES_TARGET __attribute__((target("vaes,aes,avx2,sse4.1,ssse3")))

CEN_AESNI_TARGET static inline __m128i expand_step(__m128i key, __m128i assist) {
    assist = _mm_shuffle_epi32(assist, 0xFF);
    key = _mm_xor_si128(key, _mm_slli_si128(key, 4));
    key = _mm_xor_si128(key, _mm_slli_si128(key, 4));
    key = _mm_xor_si128(key, _mm_slli_si128(key, 4));
    return _mm_xor_si128(key, assist);
}

CEN_AESNI_TARGET static inline void expand_key(const uint8_t key[16], __m128i rk[11]) {
    rk[0] = _mm_loadu_si128((const __m128i *)key);
    rk[1] = expand_step(rk[0], _mm_aeskeygenassist_si128(rk[0], 0x01));
    rk[2] = expand_step(rk[1], _mm_aeskeygenassist_si128(rk[1], 0x02));
    rk[3] = expand_step(rk[2], _mm_aeskeygenassist_si128(rk[2], 0x04));
    rk[4] = expand_step(rk[3], _mm_aeskeygenassist_si128(rk[3], 0x08));
    rk[5] = expand_step(rk[4], _mm_aeskeygenassist_si128(rk[4], 0x10));
    rk[6] = expand_step(rk[5], _mm_aeskeygenassist_si128(rk[5], 0x20));
    rk[7] = expand_step(rk[6], _mm_aeskeygenassist_si128(rk[6], 0x40));
    rk[8] = expand_step(rk[7], _mm_aeskeygenassist_si128(rk[7], 0x80));
    rk[9] = expand_step(rk[8], _mm_aeskeygenassist_si128(rk[8], 0x1b));
    rk[10] = expand_step(rk[9], _mm_aeskeygenassist_si128(rk[9], 0x36));
}

/// "EN-RPI" || 0^6 || LE32(start) as a vector (lane 3 = start).
CEN_AESNI_TARGET static inline __m128i base_block(uint32_t start) {
    // Bytes 0..5 "EN-RPI" little-endian: lane 0 = 'E','N','-','R'; lane 1 = 'P','I',0,0.
    return _mm_set_epi32((int)start, 0, 0x4950, 0x522d4e45);
}

CEN_AESNI_TARGET void cen_aes_rpis_aesni(const uint8_t rpik[16], uint32_t start, uint32_t blocks, uint8_t *out) {
    __m128i rk[11];
    expand_key(rpik, rk);
    const __m128i base = base_block(start);
    for (uint32_t i = 0; i < blocks; i += 8) {
        __m128i x[8];
        for (int j = 0; j < 8; j++) {
            x[j] = _mm_xor_si128(_mm_add_epi32(base, _mm_set_epi32((int)(i + (uint32_t)j), 0, 0, 0)), rk[0]);
        }
        for (int r = 1; r < 10; r++) {
            for (int j = 0; j < 8; j++) x[j] = _mm_aesenc_si128(x[j], rk[r]);
        }
        for (int j = 0; j < 8; j++) {
            _mm_storeu_si128((__m128i *)(out + 16 * (i + (uint32_t)j)), _mm_aesenclast_si128(x[j], rk[10]));
        }
    }
}

CEN_VAES_TARGET void cen_aes_rpis_vaes(const uint8_t rpik[16], uint32_t start, uint32_t blocks, uint8_t *out) {
    __m128i rk[11];
    expand_key(rpik, rk);
    __m256i rk2[11];
    for (int r = 0; r < 11; r++) rk2[r] = _mm256_broadcastsi128_si256(rk[r]);
    // Two consecutive intervals per register: lane 3 = start + i, lane 7 = start + i + 1.
    const __m256i base = _mm256_add_epi32(_mm256_broadcastsi128_si256(base_block(start)),
                                          _mm256_set_epi32(1, 0, 0, 0, 0, 0, 0, 0));
    for (uint32_t i = 0; i < blocks; i += 16) {
        __m256i x[8];
        for (int j = 0; j < 8; j++) {
            const int step = (int)(i + 2 * (uint32_t)j);
            x[j] = _mm256_xor_si256(_mm256_add_epi32(base, _mm256_set_epi32(step, 0, 0, 0, step, 0, 0, 0)), rk2[0]);
        }
        for (int r = 1; r < 10; r++) {
            for (int j = 0; j < 8; j++) x[j] = _mm256_aesenc_epi128(x[j], rk2[r]);
        }
        for (int j = 0; j < 8; j++) {
            _mm256_storeu_si256((__m256i *)(out + 16 * (i + 2 * (uint32_t)j)), _mm256_aesenclast_epi128(x[j], rk2[10]));
        }
    }
}
#endif
