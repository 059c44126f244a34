// AES-128 RPI derivation with AES-NI (8 blocks in flight), VAES (8 x 256-bit registers, 16 blocks) and
// VAES-512 (12 x 512-bit registers, 48 blocks).
//
// The padded data of interval j is "EN-RPI" || 0^6 || LE32(j): the same block with the interval in
// 32-bit lane 3, so every input is the base block plus a lane-3 increment. (AES-CTR cannot be used: its
// counter is big-endian.) The increment wraps modulo 2^32 like the interval field.
#include "aes_x86.h"

#if CEN_X86

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

CEN_VAES512_TARGET void cen_aes_rpis_vaes512(const uint8_t rpik[16], uint32_t start, uint32_t blocks, uint8_t *out) {
    __m512i rk[11];
    cen_expand_key_x4(rpik, rk);
    const __m512i base = cen_base_block_x4(start);
    uint32_t i = 0;
    for (; i + 48 <= blocks; i += 48) {
        __m512i x[12];
        cen_aes_x4(rk, base, i, x, 12);
        for (int j = 0; j < 12; j++) _mm512_storeu_si512((void *)(out + 16 * (i + 4 * (uint32_t)j)), x[j]);
    }
    for (; i < blocks; i += 16) {
        __m512i x[4];
        cen_aes_x4(rk, base, i, x, 4);
        for (int j = 0; j < 4; j++) _mm512_storeu_si512((void *)(out + 16 * (i + 4 * (uint32_t)j)), x[j]);
    }
}
#endif
