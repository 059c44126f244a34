// HKDF-SHA256 for the RPIK through OpenSSL's SHA256_Transform, and the padded blocks every level shares.
//
// RPIK = HKDF(TEK, salt: none, info: "EN-RPIK", L: 16) is two HMACs:
//   PRK = HMAC(32 zero bytes, TEK)            -- the key is constant, so its pad states are precomputed:
//                                                2 compressions (TEK block, inner digest block)
//   T1  = HMAC(PRK, "EN-RPIK" || 0x01)        -- 4 compressions (ipad, message, opad, inner digest)
// RPIK is the first 16 bytes of T1: 6 compressions per key instead of the 8 of a textbook HKDF.
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include "internal.h"

#include <openssl/sha.h>
#include <pthread.h>
#include <string.h>

const uint32_t cen_sha256_iv[8] = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

void cen_store_be32(uint8_t *out, const uint32_t *words, int count) {
    for (int i = 0; i < count; i++) {
        const uint32_t be = __builtin_bswap32(words[i]);
        memcpy(out + 4 * i, &be, 4);
    }
}

/// The constant tails of the padded blocks: 0x80, zeros, and the big-endian bit length of a message that
/// follows one already-compressed 64-byte block (the HMAC pad block).
typedef struct {
    uint8_t extract_inner[64];  // TEK (16 bytes) || padding: 80 bytes hashed
    uint8_t digest[64];         // digest (32 bytes) || padding: 96 bytes hashed
    uint8_t info[64];           // "EN-RPIK" || 0x01 || padding: 72 bytes hashed
} block_templates;

static void pad_tail(uint8_t block[64], size_t length) {
    memset(block + length, 0, 64 - length);
    block[length] = 0x80;
    uint64_t bits = (64 + (uint64_t)length) * 8;
    for (int i = 0; i < 8; i++) block[63 - i] = (uint8_t)(bits >> (8 * i));
}

static block_templates templates;
static pthread_once_t templates_once = PTHREAD_ONCE_INIT;

static void build_templates(void) {
    static const uint8_t info[8] = {'E', 'N', '-', 'R', 'P', 'I', 'K', 0x01};
    memset(&templates, 0, sizeof templates);
    pad_tail(templates.extract_inner, 16);
    pad_tail(templates.digest, 32);
    memcpy(templates.info, info, 8);
    pad_tail(templates.info, 8);
}

static const block_templates *get_templates(void) {
    pthread_once(&templates_once, build_templates);
    return &templates;
}

void cen_hkdf_block_extract_inner(uint8_t block[64], const uint8_t key_data[16]) {
    memcpy(block, get_templates()->extract_inner, 64);
    memcpy(block, key_data, 16);
}

void cen_hkdf_block_digest(uint8_t block[64], const uint32_t state[8]) {
    memcpy(block + 32, get_templates()->digest + 32, 32);
    cen_store_be32(block, state, 8);
}

void cen_hkdf_block_pad(uint8_t block[64], const uint32_t prk_state[8], uint8_t pad) {
    const uint32_t pad_word = 0x01010101u * pad;
    for (int i = 0; i < 8; i++) {
        const uint32_t be = __builtin_bswap32(prk_state[i]) ^ pad_word;
        memcpy(block + 4 * i, &be, 4);
    }
    memset(block + 32, pad, 32);
}

void cen_hkdf_block_info(uint8_t block[64]) { memcpy(block, get_templates()->info, 64); }

void cen_sha256_compress_portable(uint32_t state[8], const uint8_t block[64]) {
    SHA256_CTX ctx;  // SHA256_Transform reads and writes only the chaining value h
    memcpy(ctx.h, state, sizeof ctx.h);
    SHA256_Transform(&ctx, block);
    memcpy(state, ctx.h, sizeof ctx.h);
}

static cen_salt_pads salt_pads;
static pthread_once_t salt_pads_once = PTHREAD_ONCE_INIT;

static void compute_salt_pads(void) {
    uint8_t block[64];
    memcpy(salt_pads.inner, cen_sha256_iv, 32);
    memset(block, 0x36, 64);
    cen_sha256_compress_portable(salt_pads.inner, block);
    memcpy(salt_pads.outer, cen_sha256_iv, 32);
    memset(block, 0x5c, 64);
    cen_sha256_compress_portable(salt_pads.outer, block);
}

const cen_salt_pads *cen_zero_salt_pads(void) {
    (void)get_templates();
    pthread_once(&salt_pads_once, compute_salt_pads);
    return &salt_pads;
}

// Up to 4 keys, each step's compressions for all keys issued back to back. A single SHA-256 compression is
// one long dependency chain (SHA-NI rounds wait on each other), so one key at a time leaves most of the
// core idle; the compressions of different keys are independent, and the out-of-order core overlaps
// consecutive SHA256_Transform calls (measured on this VM: 6 compressions cost 254 ns for one key at a
// time, 180-185 ns per key with 2 to 4 keys interleaved).
void cen_hkdf_rpik_portable_n(const uint8_t *const key_data[4], uint8_t *const rpik[4], int n) {
    // The SHA256_CTX values serve only as chaining values (h) for SHA256_Transform.
    const cen_salt_pads *pads = cen_zero_salt_pads();
    uint8_t block[4][64];
    SHA256_CTX inner[4], prk[4], expand_inner[4], expand_outer[4];
    if (n < 1) return;
    if (n > 4) n = 4;

    // Extract: PRK = HMAC(zero salt, TEK).
    for (int l = 0; l < n; l++) {
        memcpy(inner[l].h, pads->inner, 32);
        cen_hkdf_block_extract_inner(block[l], key_data[l]);
        SHA256_Transform(&inner[l], block[l]);
    }
    for (int l = 0; l < n; l++) {
        memcpy(prk[l].h, pads->outer, 32);
        cen_hkdf_block_digest(block[l], inner[l].h);
        SHA256_Transform(&prk[l], block[l]);
    }

    // Expand: T1 = HMAC(PRK, "EN-RPIK" || 0x01). The ipad and opad blocks of one key are independent too.
    for (int l = 0; l < n; l++) {
        memcpy(expand_inner[l].h, cen_sha256_iv, 32);
        cen_hkdf_block_pad(block[l], prk[l].h, 0x36);
        SHA256_Transform(&expand_inner[l], block[l]);
    }
    for (int l = 0; l < n; l++) {
        memcpy(expand_outer[l].h, cen_sha256_iv, 32);
        cen_hkdf_block_pad(block[l], prk[l].h, 0x5c);
        SHA256_Transform(&expand_outer[l], block[l]);
    }
    for (int l = 0; l < n; l++) {
        cen_hkdf_block_info(block[l]);
        SHA256_Transform(&expand_inner[l], block[l]);
    }
    for (int l = 0; l < n; l++) {
        cen_hkdf_block_digest(block[l], expand_inner[l].h);
        SHA256_Transform(&expand_outer[l], block[l]);
    }

    for (int l = 0; l < n; l++) cen_store_be32(rpik[l], expand_outer[l].h, 4);
    memset(block, 0, sizeof block);
    memset(prk, 0, sizeof prk);
    memset(inner, 0, sizeof inner);
}
