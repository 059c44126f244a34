#ifndef CEN_INTERNAL_H
#define CEN_INTERNAL_H

#include "CENMatchingKernel.h"

#if defined(__x86_64__) || defined(__i386__)
#define CEN_X86 1
#else
#define CEN_X86 0
#endif

/// SHA-256 chaining values after compressing the HMAC pad blocks of the all-zero 32-byte HKDF salt
/// (64 x 0x36 and 64 x 0x5c): the constant first halves of the extract step.
typedef struct {
    uint32_t inner[8];
    uint32_t outer[8];
} cen_salt_pads;

/// The pads, computed once (thread-safe).
const cen_salt_pads *cen_zero_salt_pads(void);

/// The SHA-256 initial hash value.
extern const uint32_t cen_sha256_iv[8];

/// One SHA-256 compression through OpenSSL's SHA256_Transform.
void cen_sha256_compress_portable(uint32_t state[8], const uint8_t block[64]);

/// RPIKs for `n` (1 to 4) keys through cen_sha256_compress_portable, each step's compressions interleaved.
void cen_hkdf_rpik_portable_n(const uint8_t *const key_data[4], uint8_t *const rpik[4], int n);

/// Builds the message blocks of the HKDF steps (shared by every level).
void cen_hkdf_block_extract_inner(uint8_t block[64], const uint8_t key_data[16]);
void cen_hkdf_block_digest(uint8_t block[64], const uint32_t state[8]);
void cen_hkdf_block_pad(uint8_t block[64], const uint32_t prk_state[8], uint8_t pad);
void cen_hkdf_block_info(uint8_t block[64]);
void cen_store_be32(uint8_t *out, const uint32_t *words, int count);

#if CEN_X86
int cen_cpu_has_shani(void);
int cen_cpu_has_aesni(void);
int cen_cpu_has_vaes(void);
/// AVX2, BMI1/2, POPCNT and LZCNT (x86-64-v3's integer and vector parts) with OS support for YMM state.
int cen_cpu_has_bmi2(void);
/// VAES with AVX-512 F, DQ, BW and VL, the BMI2 set above, and OS support for the opmask and ZMM state.
int cen_cpu_has_vaes512(void);

/// Computes the SHA-NI path's constants once (thread-safe; cen_hkdf_rpik_shani_x4 calls it too).
void cen_hkdf_shani_prepare(void);
/// RPIKs for 4 keys at once with SHA-NI (the 4 compressions of each step interleaved).
void cen_hkdf_rpik_shani_x4(const uint8_t *const key_data[4], uint8_t *const rpik[4]);

/// `blocks` RPIs (a multiple of 8, at most 144) with AES-NI; out holds blocks x 16 bytes.
void cen_aes_rpis_aesni(const uint8_t rpik[16], uint32_t start, uint32_t blocks, uint8_t *out);
/// `blocks` RPIs (a multiple of 16, at most 144) with VAES on 256-bit registers.
void cen_aes_rpis_vaes(const uint8_t rpik[16], uint32_t start, uint32_t blocks, uint8_t *out);
/// `blocks` RPIs (a multiple of 16, at most 144) with VAES on 512-bit registers.
void cen_aes_rpis_vaes512(const uint8_t rpik[16], uint32_t start, uint32_t blocks, uint8_t *out);
#endif

#endif
