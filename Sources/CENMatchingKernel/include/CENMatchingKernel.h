#ifndef CENMATCHINGKERNEL_H
#define CENMATCHINGKERNEL_H

// The Exposure Notification matcher's C kernel: HKDF-SHA256 (RPIK) and AES-128 (RPIs) derivation with
// runtime CPU dispatch, and the observation index the derived identifiers are probed against.
//
// CPU features are enabled per function (`__attribute__((target(...)))`) and chosen at run time, so the
// package needs no unsafe compiler flags. Every level is bit-exact with the others and with ENCrypto
// (the tests force each level the CPU supports).

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Derivation implementations, from slowest to fastest.
typedef enum {
    /// OpenSSL's libcrypto: HKDF as 6 `SHA256_Transform` calls over hand-padded blocks with precomputed
    /// zero-salt pads, AES-128-ECB through one fetched EVP cipher with key-only re-initialisation.
    CEN_LEVEL_PORTABLE = 0,
    /// Own SHA-NI SHA-256, 4 keys interleaved, and own AES-NI AES-128, 8 blocks in flight.
    CEN_LEVEL_SHANI_AESNI = 1,
    /// Own SHA-NI SHA-256, 4 keys interleaved, and own VAES AES-128 on 256-bit registers (2 blocks each).
    CEN_LEVEL_SHANI_VAES = 2,
    /// Own SHA-NI SHA-256, 4 keys interleaved, and own VAES AES-128 on 512-bit registers (4 blocks each, 48 in
    /// flight), with each group of 4 keys probed between the next group's SHA and AES rounds. Needs AVX-512
    /// F/DQ/BW/VL, BMI2 and OS support for the opmask and ZMM state.
    CEN_LEVEL_SHANI_VAES512 = 3,
} cen_level;

/// Whether this CPU (and this build) can run `level`.
int cen_level_supported(int level);

/// The fastest level this CPU supports.
int cen_best_level(void);

/// One diagnosis key as the kernel reads it.
typedef struct {
    uint8_t key_data[16];
    uint32_t rolling_start;
    /// 1...144; the caller filters other values out.
    uint32_t rolling_period;
} cen_key;

/// One matched pair: the key (its position in the caller's numbering), the observation (its position in
/// the array the index was built from) and the interval the matching identifier was derived for.
typedef struct {
    uint32_t key_index;
    uint32_t observation_index;
    uint32_t derived_interval;
} cen_hit;

/// The observation index: a bitmap filter sized to the number of distinct identifiers in front of an exact
/// open-addressing table; the observations of one identifier are stored together with their intervals.
typedef struct cen_index cen_index;

/// Builds an index over `count` observations (`rpis`: count x 16 bytes, `intervals`: count interval numbers).
/// `seed` randomises the hash so that chosen identifiers cannot degrade the table. Returns NULL when out of
/// memory or when `count` exceeds 2^31.
cen_index *cen_index_create(const uint8_t *rpis, const uint32_t *intervals, size_t count, uint64_t seed);
void cen_index_destroy(cen_index *index);
/// The number of distinct identifiers in the index.
size_t cen_index_distinct_count(const cen_index *index);
/// Bytes allocated by the index.
size_t cen_index_memory_bytes(const cen_index *index);
/// Whether any observation lies in [first, end) (interval numbers, end exclusive, 64-bit to avoid overflow).
int cen_index_has_observation_in(const cen_index *index, uint64_t first, uint64_t end);
/// The first and last observed intervals in [first, end): returns 1 and sets them, or 0 when there are none.
int cen_index_observed_range_in(const cen_index *index, uint64_t first, uint64_t end, uint64_t *lowest,
                                uint64_t *highest);

/// Per-thread state: scratch buffers, the OpenSSL cipher context of the portable level, and the hits found.
/// Not thread-safe; one per thread.
typedef struct cen_worker cen_worker;

/// Creates a worker for `level` (which must be supported). Returns NULL when out of memory, when OpenSSL
/// fails, or when the level is not supported.
cen_worker *cen_worker_create(int level);
void cen_worker_destroy(cen_worker *worker);
/// The matching loop is compiled twice, for any CPU and for AVX2/BMI2, and the worker picks the second when the
/// CPU has it. Passing 1 forces the first (for tests); 0 restores the automatic choice.
void cen_worker_use_generic_loop(cen_worker *worker, int generic);

/// RPIK = HKDF-SHA256(key_data, salt: none, info: "EN-RPIK", 16 bytes) for `count` keys
/// (`key_data`: count x 16 bytes, `rpiks`: count x 16 bytes). Returns 0, or -1 when OpenSSL fails.
int cen_worker_derive_rpiks(cen_worker *worker, const uint8_t *key_data, size_t count, uint8_t *rpiks);

/// RPI_i = AES-128(rpik, "EN-RPI" || 0^6 || LE32(start + i)) for i in 0..<count, count <= 144
/// (`out`: count x 16 bytes). Returns 0, -1 when OpenSSL fails, -2 when count > 144.
int cen_worker_derive_rpis(cen_worker *worker, const uint8_t rpik[16], uint32_t start, uint32_t count, uint8_t *out);

/// Derives the identifiers of `count` keys and probes them against `index`. Every pair with an equal
/// identifier and |observed - derived interval| <= 12 is appended to the worker's hits with
/// key_index = first_key_index + position. Keys with no observation in [start - 12, start + period + 12)
/// are skipped before any cryptography, and of the others only the intervals from 12 before their first
/// nearby observation to 12 after their last are derived. Returns 0, or -1 when out of memory or OpenSSL fails.
int cen_worker_match(cen_worker *worker, const cen_index *index, const cen_key *keys, size_t count,
                     uint32_t first_key_index);

/// The hits found since the last `cen_worker_clear_hits`.
const cen_hit *cen_worker_hits(const cen_worker *worker);
size_t cen_worker_hit_count(const cen_worker *worker);
void cen_worker_clear_hits(cen_worker *worker);
/// The number of keys whose identifiers were derived (not skipped) by this worker so far.
uint64_t cen_worker_keys_derived(const cen_worker *worker);
/// The number of identifiers derived by this worker so far (only the intervals within 12 of an observation).
uint64_t cen_worker_identifiers_derived(const cen_worker *worker);

/// The matching tolerance: 12 intervals (2 hours) either side of the derived interval.
#define CEN_TOLERANCE_INTERVALS 12
/// The most identifiers a key derives: 144.
#define CEN_MAX_IDENTIFIERS 144

#ifdef __cplusplus
}
#endif

#endif
