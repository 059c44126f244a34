// HKDF-SHA256 for 4 keys at once with the SHA extensions: each step's 4 compressions are independent, so
// running them side by side hides the latency of sha256rnds2 (one key alone leaves the unit idle).
//
// Everything stays in registers between the compressions: the chaining values in the ABEF/CDGH order the
// instructions use, the message blocks as four vectors of host-order words built from the previous digest
// (no padded byte blocks, no byte swaps but the key's and the output's). The expand step's info block
// ("EN-RPIK" || 0x01 and its padding) is the same for every key, so its whole message schedule (W + K for the
// 64 rounds) is computed once; its compression is 32 sha256rnds2 with nothing else. The steps are in
// sha_x86.h.
#include "sha_x86.h"

#if CEN_X86
#include <pthread.h>
#include <string.h>

const uint32_t cen_k256[64] __attribute__((aligned(16))) = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

cen_shani_constants cen_shani_constants_value;
static pthread_once_t constants_once = PTHREAD_ONCE_INIT;

static uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

static void compute_constants(void) {
    cen_shani_constants *c = &cen_shani_constants_value;
    const cen_salt_pads *pads = cen_zero_salt_pads();
    memcpy(c->extract_inner, pads->inner, 32);
    memcpy(c->extract_outer, pads->outer, 32);
    memcpy(c->iv, cen_sha256_iv, 32);
    // The info block: "EN-RPIK" || 0x01, then 0x80, zeros and the bit length of 64 + 8 bytes.
    uint32_t w[64] = {0x454e2d52u, 0x50494b01u, 0x80000000u};
    w[15] = (64 + 8) * 8;
    for (int t = 16; t < 64; t++) {
        const uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
        const uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    for (int t = 0; t < 64; t++) c->info_schedule[t] = w[t] + cen_k256[t];
}

void cen_hkdf_shani_prepare(void) { pthread_once(&constants_once, compute_constants); }

CEN_SHANI_TARGET void cen_hkdf_rpik_shani_x4(const uint8_t *const key_data[4], uint8_t *const rpik[4]) {
    cen_hkdf_shani_prepare();
    CEN_HKDF_SHANI_X4(key_data, rpik, _Pragma("GCC unroll 4"), (void)0);
}
#endif
