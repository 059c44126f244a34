// The AES-128 key expansion and the RPI input block, shared by the AES-NI, VAES and VAES-512 paths.
#ifndef CEN_AES_X86_H
#define CEN_AES_X86_H

#include "internal.h"

#if CEN_X86
#include <immintrin.h>

#define CEN_AESNI_TARGET __attribute__((target("aes,sse4.1,ssse3")))
#define CEN_VAES_TARGET __attribute__((target("vaes,aes,avx2,sse4.1,ssse3")))
#define CEN_VAES512_TARGET                                                                                   \
    __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl,vaes,aes,avx2,bmi,bmi2,popcnt,lzcnt,sse4.1,ssse3")))

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

/// The key schedules of 4 keys, their steps interleaved (4 independent chains instead of one long one).
CEN_AESNI_TARGET static inline void cen_expand_keys_4(const uint8_t key[4][16], __m128i rk[4][11]) {
    for (int l = 0; l < 4; l++) rk[l][0] = _mm_loadu_si128((const __m128i *)key[l]);
#define CEN_EXPAND_ROUND(r, rcon)                                                                                \
    for (int l = 0; l < 4; l++) rk[l][r] = expand_step(rk[l][r - 1], _mm_aeskeygenassist_si128(rk[l][r - 1], rcon));
    CEN_EXPAND_ROUND(1, 0x01)
    CEN_EXPAND_ROUND(2, 0x02)
    CEN_EXPAND_ROUND(3, 0x04)
    CEN_EXPAND_ROUND(4, 0x08)
    CEN_EXPAND_ROUND(5, 0x10)
    CEN_EXPAND_ROUND(6, 0x20)
    CEN_EXPAND_ROUND(7, 0x40)
    CEN_EXPAND_ROUND(8, 0x80)
    CEN_EXPAND_ROUND(9, 0x1b)
    CEN_EXPAND_ROUND(10, 0x36)
#undef CEN_EXPAND_ROUND
}

/// The 11 round keys, each broadcast to the four 128-bit lanes of a 512-bit register.
CEN_VAES512_TARGET static inline void cen_expand_key_x4(const uint8_t key[16], __m512i rk[11]) {
    __m128i k[11];
    expand_key(key, k);
    for (int r = 0; r < 11; r++) rk[r] = _mm512_broadcast_i32x4(k[r]);
}

/// Four consecutive input blocks: lane j holds the block of interval start + j.
CEN_VAES512_TARGET static inline __m512i cen_base_block_x4(uint32_t start) {
    return _mm512_add_epi32(_mm512_broadcast_i32x4(base_block(start)),
                            _mm512_set_epi32(3, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0));
}

/// Encrypts the blocks of intervals base + i ..< base + i + 4n (n registers of 4, all in flight).
CEN_VAES512_TARGET static inline __attribute__((always_inline)) void cen_aes_x4(const __m512i rk[11], __m512i base,
                                                                               uint32_t i, __m512i *x, int n) {
    for (int j = 0; j < n; j++) {
        const __m512i step = _mm512_maskz_set1_epi32(0x8888, (int)(i + 4 * (uint32_t)j));
        x[j] = _mm512_xor_si512(_mm512_add_epi32(base, step), rk[0]);
    }
    for (int r = 1; r < 10; r++) {
        for (int j = 0; j < n; j++) x[j] = _mm512_aesenc_epi128(x[j], rk[r]);
    }
    for (int j = 0; j < n; j++) x[j] = _mm512_aesenclast_epi128(x[j], rk[10]);
}
#endif

#endif
