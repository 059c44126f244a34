// A matching worker: derives each key's identifiers with the chosen level and probes them.
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include "aes_x86.h"
#include "index.h"
#include "sha_x86.h"

#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

enum { DAY_CACHE_SLOTS = 16 };

struct cen_worker {
    int level;
    int use_bmi2;  // run the loop compiled for AVX2/BMI2
    // The portable level: one fetched cipher, one context re-keyed per key, and cached plaintexts for the
    // last rolling starts seen (keys of one day share them).
    EVP_CIPHER *cipher;
    EVP_CIPHER_CTX *context;
    uint8_t *day_cache;  // DAY_CACHE_SLOTS x 144 x 16 bytes
    uint32_t day_cache_start[DAY_CACHE_SLOTS];
    uint8_t day_cache_valid[DAY_CACHE_SLOTS];
    uint8_t identifiers[CEN_MAX_IDENTIFIERS * 16] __attribute__((aligned(64)));
    // The VAES-512 level: two sets of the identifiers of a group of 4 keys; one set is probed while the next
    // group's RPIKs are hashed and its identifiers derived into the other.
    uint8_t group_identifiers[2][4][CEN_MAX_IDENTIFIERS * 16] __attribute__((aligned(64)));
    cen_hit *hits;
    size_t hit_count, hit_capacity;
    uint64_t keys_derived;
    uint64_t identifiers_derived;
};

cen_worker *cen_worker_create(int level) {
    if (!cen_level_supported(level)) return NULL;
    cen_worker *w = aligned_alloc(64, (sizeof(cen_worker) + 63) / 64 * 64);
    if (!w) return NULL;
    memset(w, 0, sizeof *w);
    w->level = level;
#if CEN_X86
    w->use_bmi2 = cen_cpu_has_bmi2();
#endif
    (void)cen_zero_salt_pads();
    if (level == CEN_LEVEL_PORTABLE) {
        w->cipher = EVP_CIPHER_fetch(NULL, "AES-128-ECB", NULL);
        w->context = EVP_CIPHER_CTX_new();
        w->day_cache = malloc((size_t)DAY_CACHE_SLOTS * CEN_MAX_IDENTIFIERS * 16);
        if (!w->cipher || !w->context || !w->day_cache ||
            EVP_EncryptInit_ex2(w->context, w->cipher, NULL, NULL, NULL) != 1 ||
            EVP_CIPHER_CTX_set_padding(w->context, 0) != 1) {
            cen_worker_destroy(w);
            return NULL;
        }
    }
    return w;
}

void cen_worker_destroy(cen_worker *w) {
    if (!w) return;
    EVP_CIPHER_CTX_free(w->context);
    EVP_CIPHER_free(w->cipher);
    free(w->day_cache);
    free(w->hits);
    memset(w->identifiers, 0, sizeof w->identifiers);
    memset(w->group_identifiers, 0, sizeof w->group_identifiers);
    free(w);
}

void cen_worker_use_generic_loop(cen_worker *w, int generic) {
#if CEN_X86
    w->use_bmi2 = generic ? 0 : cen_cpu_has_bmi2();
#else
    (void)w;
    (void)generic;
#endif
}
const cen_hit *cen_worker_hits(const cen_worker *w) { return w->hits; }
size_t cen_worker_hit_count(const cen_worker *w) { return w->hit_count; }
void cen_worker_clear_hits(cen_worker *w) { w->hit_count = 0; }
uint64_t cen_worker_keys_derived(const cen_worker *w) { return w->keys_derived; }
uint64_t cen_worker_identifiers_derived(const cen_worker *w) { return w->identifiers_derived; }

/// The plaintexts "EN-RPI" || 0^6 || LE32(start + i) for i in 0..<144, cached per rolling start.
static const uint8_t *plaintexts(cen_worker *w, uint32_t start) {
    unsigned slot = (start + start / CEN_MAX_IDENTIFIERS) % DAY_CACHE_SLOTS;  // consecutive days differ
    uint8_t *p = w->day_cache + (size_t)slot * CEN_MAX_IDENTIFIERS * 16;
    if (!w->day_cache_valid[slot] || w->day_cache_start[slot] != start) {
        static const uint8_t prefix[12] = {'E', 'N', '-', 'R', 'P', 'I', 0, 0, 0, 0, 0, 0};
        for (uint32_t i = 0; i < CEN_MAX_IDENTIFIERS; i++) {
            uint32_t j = start + i;
            memcpy(p + 16 * i, prefix, 12);
            p[16 * i + 12] = (uint8_t)j;
            p[16 * i + 13] = (uint8_t)(j >> 8);
            p[16 * i + 14] = (uint8_t)(j >> 16);
            p[16 * i + 15] = (uint8_t)(j >> 24);
        }
        w->day_cache_start[slot] = start;
        w->day_cache_valid[slot] = 1;
    }
    return p;
}

/// Derives the identifiers of intervals rolling_start + skip ..< rolling_start + skip + count (skip + count <=
/// 144) into `out`, which has room for 144. The portable level's plaintexts are cached per rolling start, so
/// keys of one day share them whatever part of the day they derive.
static int derive_identifiers(cen_worker *w, const uint8_t rpik[16], uint32_t rolling_start, uint32_t skip,
                              uint32_t count, uint8_t *out) {
    w->identifiers_derived += count;
    switch (w->level) {
#if CEN_X86
    case CEN_LEVEL_SHANI_AESNI:
        cen_aes_rpis_aesni(rpik, rolling_start + skip, (count + 7) & ~7u, out);
        return 0;
    case CEN_LEVEL_SHANI_VAES:
        cen_aes_rpis_vaes(rpik, rolling_start + skip, (count + 15) & ~15u, out);
        return 0;
    case CEN_LEVEL_SHANI_VAES512:
        cen_aes_rpis_vaes512(rpik, rolling_start + skip, (count + 15) & ~15u, out);
        return 0;
#endif
    default: {
        int length = 0;
        if (EVP_EncryptInit_ex2(w->context, NULL, rpik, NULL, NULL) != 1) return -1;
        const uint8_t *in = plaintexts(w, rolling_start) + (size_t)skip * 16;
        if (EVP_EncryptUpdate(w->context, out, &length, in, (int)count * 16) != 1) return -1;
        return length == (int)count * 16 ? 0 : -1;
    }
    }
}

/// RPIKs of up to 4 keys.
static void derive_rpiks(cen_worker *w, const uint8_t *const key_data[4], uint8_t *const rpik[4], int n) {
#if CEN_X86
    if (w->level != CEN_LEVEL_PORTABLE) {
        const uint8_t *k[4];
        uint8_t scratch[4][16];
        uint8_t *o[4];
        for (int l = 0; l < 4; l++) {
            k[l] = key_data[l < n ? l : 0];
            o[l] = l < n ? rpik[l] : scratch[l];
        }
        cen_hkdf_rpik_shani_x4(k, o);
        memset(scratch, 0, sizeof scratch);
        return;
    }
#endif
    cen_hkdf_rpik_portable_n(key_data, rpik, n);
}

int cen_worker_derive_rpiks(cen_worker *w, const uint8_t *key_data, size_t count, uint8_t *rpiks) {
    for (size_t i = 0; i < count; i += 4) {
        int n = count - i < 4 ? (int)(count - i) : 4;
        const uint8_t *k[4];
        uint8_t *o[4];
        for (int l = 0; l < n; l++) {
            k[l] = key_data + 16 * (i + (size_t)l);
            o[l] = rpiks + 16 * (i + (size_t)l);
        }
        derive_rpiks(w, k, o, n);
    }
    return 0;
}

int cen_worker_derive_rpis(cen_worker *w, const uint8_t rpik[16], uint32_t start, uint32_t count, uint8_t *out) {
    if (count > CEN_MAX_IDENTIFIERS) return -2;
    if (derive_identifiers(w, rpik, start, 0, count, w->identifiers) != 0) return -1;
    memcpy(out, w->identifiers, (size_t)count * 16);
    return 0;
}

static int append_hit(cen_worker *w, uint32_t key, uint32_t observation, uint32_t interval) {
    if (w->hit_count == w->hit_capacity) {
        size_t capacity = w->hit_capacity ? w->hit_capacity * 2 : 64;
        cen_hit *hits = realloc(w->hits, capacity * sizeof(cen_hit));
        if (!hits) return -1;
        w->hits = hits;
        w->hit_capacity = capacity;
    }
    w->hits[w->hit_count++] = (cen_hit){key, observation, interval};
    return 0;
}

/// The flagged group of 8 identifiers starting at `i`: the exact table for each identifier the filter passes,
/// the interval window only on exact hits. Kept out of line so that the hot loop holds nothing for it.
static __attribute__((noinline, cold)) int probe_group(cen_worker *w, const cen_index *index, const cen_key *key,
                                                       uint32_t key_index, uint32_t i, const uint8_t *ids) {
    const uint32_t period = key->rolling_period;
    unsigned flags = 0;
    for (unsigned j = 0; j < 8; j++) {
        uint64_t low;
        memcpy(&low, ids + 16 * (i + j), 8);
        flags |= (unsigned)(cen_index_filter_bit(index, low) & 1) << j;
    }
    if (period - i < 8) flags &= (1u << (period - i)) - 1;
    while (flags) {
        unsigned j = (unsigned)__builtin_ctz(flags);
        flags &= flags - 1;
        uint64_t low, high;
        memcpy(&low, ids + 16 * (i + j), 8);
        memcpy(&high, ids + 16 * (i + j) + 8, 8);
        const cen_slot *slot = cen_index_lookup(index, low, high);
        if (!slot) continue;
        const uint64_t derived = (uint64_t)key->rolling_start + i + j;
        for (uint32_t k = slot->first; k < slot->first + slot->count; k++) {
            const uint64_t observed = index->observation_interval[k];
            if (observed + CEN_TOLERANCE_INTERVALS >= derived && observed <= derived + CEN_TOLERANCE_INTERVALS) {
                if (append_hit(w, key_index, index->observation_index[k], (uint32_t)derived) != 0) return -1;
            }
        }
    }
    return 0;
}

/// Probes the identifiers of one key: the filter's two bits of 8 identifiers at a time, AND-ed per identifier
/// and OR-ed over the group with no branch; only a flagged group (a few per cent of them) is looked at
/// identifier by identifier.
static inline __attribute__((always_inline)) int probe(cen_worker *w, const cen_index *index, const cen_key *key, uint32_t key_index) {
    const uint8_t *ids = w->identifiers;
    const uint64_t *filter = index->filter;
    const unsigned shift = index->filter_shift;
    const uint32_t period = key->rolling_period;
    // A last group may read identifiers past the period (stale, but inside the 144-entry buffer); probe_group
    // masks their flags off.
    for (uint32_t i = 0; i < period; i += 8) {
        uint64_t any = 0;
        for (unsigned j = 0; j < 8; j++) {
            uint64_t low;
            memcpy(&low, ids + 16 * (i + j), 8);
            any |= cen_filter_bit(filter, shift, low);
        }
        if (__builtin_expect(any & 1, 0)) {
            if (probe_group(w, index, key, key_index, i, ids) != 0) return -1;
        }
    }
    return 0;
}

/// The part of a key's validity worth deriving: the intervals within 12 of some observation. It runs from 12
/// before the first observation in [start - 12, end + 12) to 12 after the last one, clipped to the validity,
/// as offsets [*skip, *skip + *count) from the rolling start. Returns 0 when no observation is that near
/// (the key is skipped before any cryptography). Intervals outside the part cannot match: their nearest
/// observation is more than 12 away. (Gaps inside it are derived: one contiguous run per key.)
static inline __attribute__((always_inline)) int derivation_window(const cen_index *index, const cen_key *key,
                                                                   uint32_t *skip, uint32_t *count) {
    const uint64_t start = key->rolling_start;
    // Interval numbers are 32-bit: a validity running past the last one ends there.
    const uint64_t end = start + key->rolling_period <= (uint64_t)UINT32_MAX + 1 ? start + key->rolling_period
                                                                               : (uint64_t)UINT32_MAX + 1;
    const uint64_t first = start >= CEN_TOLERANCE_INTERVALS ? start - CEN_TOLERANCE_INTERVALS : 0;
    uint64_t lowest, highest;
    if (!cen_index_observed_range(index, first, end + CEN_TOLERANCE_INTERVALS, &lowest, &highest)) return 0;
    const uint64_t from = lowest > start + CEN_TOLERANCE_INTERVALS ? lowest - CEN_TOLERANCE_INTERVALS : start;
    const uint64_t to = highest + CEN_TOLERANCE_INTERVALS + 1 < end ? highest + CEN_TOLERANCE_INTERVALS + 1 : end;
    *skip = (uint32_t)(from - start);
    *count = (uint32_t)(to - from);
    return 1;
}

/// The next group of every level: up to 4 keys from keys[next] on that can match at all (a period the kernel
/// derives, and an observation within reach), with the part of each one's validity to derive. Sets *chosen_count
/// to how many it chose (0 when none of the rest can match) and returns the index past the last key it looked at.
/// The HKDF runs on 4 keys at a time on every level (interleaved compressions). (`next` is passed and returned by
/// value: through a pointer, clang allocated the callers' registers differently.)
static inline __attribute__((always_inline)) size_t next_group(const cen_index *index, const cen_key *keys, size_t count,
                                                            size_t next, size_t chosen[4], uint32_t skip[4],
                                                            uint32_t derive[4], int *chosen_count) {
    int n = 0;
    while (n < 4 && next < count) {
        const cen_key *key = &keys[next];
        if (key->rolling_period >= 1 && key->rolling_period <= CEN_MAX_IDENTIFIERS &&
            derivation_window(index, key, &skip[n], &derive[n])) {
            chosen[n++] = next;
        }
        next++;
    }
    *chosen_count = n;
    return next;
}

#if CEN_X86
#define CEN_FUSED_TARGET __attribute__((target("sha,sse4.1,ssse3,avx2,bmi,bmi2,popcnt,lzcnt")))

/// The probes of a group of up to 4 keys whose identifiers are in one set of w->group_identifiers, 8 at a time.
typedef struct {
    cen_key part[4];  // each key's derived part as a key of its own
    uint32_t key_index[4];
    uint32_t groups[4];  // (period + 7) / 8
    uint8_t (*ids)[CEN_MAX_IDENTIFIERS * 16];
    int n;
    int key;         // the key being probed
    uint32_t group;  // its next group of 8
} probe_cursor;

/// Probes the cursor's next 8 identifiers; nothing once the group is done. (The loads pass through an empty
/// asm so that the compiler keeps the test scalar.)
__attribute__((target("avx2,bmi,bmi2,popcnt,lzcnt"))) static inline __attribute__((always_inline)) int probe_step(cen_worker *w, const cen_index *index,
                                                                            probe_cursor *c) {
    if (c->key >= c->n) return 0;
    const uint8_t *ids = c->ids[c->key];
    const uint32_t i = 8 * c->group;
    uint64_t any = 0;
    for (unsigned j = 0; j < 8; j++) {
        uint64_t low;
        memcpy(&low, ids + 16 * (i + j), 8);
        __asm__("" : "+r"(low));
        any |= cen_filter_bit(index->filter, index->filter_shift, low);
    }
    int status = 0;
    if (__builtin_expect(any & 1, 0)) status = probe_group(w, index, &c->part[c->key], c->key_index[c->key], i, ids);
    if (++c->group == c->groups[c->key]) {
        c->group = 0;
        c->key++;
    }
    return status;
}

/// A key's identifiers with VAES-512 (48 blocks in flight) into `out`, with a probe step of the previous group
/// after every third round: scalar work for the integer units beside the AES units.
CEN_VAES512_TARGET static int derive_with_probes(cen_worker *w, const cen_index *index, const __m128i schedule[11],
                                                 uint32_t start, uint32_t count, uint8_t *out, probe_cursor *c) {
    __m512i rk[11];
    for (int r = 0; r < 11; r++) rk[r] = _mm512_broadcast_i32x4(schedule[r]);
    const __m512i base = cen_base_block_x4(start);
    int status = 0;
    for (uint32_t at = 0; at < count; at += 48) {
        __m512i x[12];
        for (int j = 0; j < 12; j++) {
            const __m512i offset = _mm512_maskz_set1_epi32(0x8888, (int)(at + 4 * (uint32_t)j));
            x[j] = _mm512_xor_si512(_mm512_add_epi32(base, offset), rk[0]);
        }
        for (int r = 1; r < 10; r++) {
            for (int j = 0; j < 12; j++) x[j] = _mm512_aesenc_epi128(x[j], rk[r]);
            if (r % 3 == 0) status |= probe_step(w, index, c);
        }
        for (int j = 0; j < 12; j++) {
            _mm512_storeu_si512((void *)(out + 16 * (at + 4 * (uint32_t)j)), _mm512_aesenclast_epi128(x[j], rk[10]));
        }
    }
    memset(rk, 0, sizeof rk);
    return status;
}

/// The VAES-512 level's loop. A group's RPIKs take 768 sha256rnds2, bound by the SHA unit; its identifiers
/// 4 x 36 512-bit AES rounds x 10, bound by the AES units; the previous group's probes (up to 72 groups of 8
/// identifiers) are scalar loads and shifts. The probes run between the HKDF's rounds (a group of 8 after every
/// other 4 rounds of all chains) and between the AES rounds (after every third), on the integer units beside
/// the SHA and AES units, instead of after them; the rest after. Two sets of 4 buffers: a group is encrypted
/// into one while the previous group is probed from the other. (Interleaving the AES with the HKDF as well
/// ran 2.4x slower on AMD Zen 4, likely because the SHA instructions, which have only a legacy SSE encoding,
/// were mixed with 512-bit registers in one loop.)
CEN_FUSED_TARGET static int match_vaes512(cen_worker *w, const cen_index *index, const cen_key *keys,
                                          size_t count, uint32_t first_key_index) {
    cen_hkdf_shani_prepare();
    size_t next = 0;
    uint8_t rpik[4][16] __attribute__((aligned(16)));
    uint8_t *const out[4] = {rpik[0], rpik[1], rpik[2], rpik[3]};
    probe_cursor cursor = {.n = 0};
    int status = 0, buffer = 0;
    unsigned tick = 0;
    while (next < count && status == 0) {
        size_t chosen[4];
        uint32_t skip[4], derive[4];
        int n;
        next = next_group(index, keys, count, next, chosen, skip, derive, &n);
        if (n == 0) break;
        const uint8_t *data[4];
        for (int l = 0; l < 4; l++) data[l] = keys[chosen[l < n ? l : 0]].key_data;
        CEN_HKDF_SHANI_X4(data, out, _Pragma("clang loop unroll(disable)"),
                          if (++tick & 1) status |= probe_step(w, index, &cursor));
        probe_cursor previous = cursor;
        cursor = (probe_cursor){.n = n, .ids = w->group_identifiers[buffer]};
        // The 4 key schedules at once: their aeskeygenassist chains overlap.
        __m128i schedules[4][11];
        cen_expand_keys_4((const uint8_t(*)[16])rpik, schedules);
        for (int l = 0; l < n; l++) {
            const cen_key *key = &keys[chosen[l]];
            status |= derive_with_probes(w, index, schedules[l], key->rolling_start + skip[l], derive[l],
                                         w->group_identifiers[buffer][l], &previous);
            w->identifiers_derived += derive[l];
            cursor.part[l] = (cen_key){.rolling_start = key->rolling_start + skip[l], .rolling_period = derive[l]};
            cursor.key_index[l] = first_key_index + (uint32_t)chosen[l];
            cursor.groups[l] = (derive[l] + 7) / 8;
        }
        memset(schedules, 0, sizeof schedules);
        while (previous.key < previous.n) status |= probe_step(w, index, &previous);
        buffer ^= 1;
        w->keys_derived += (uint64_t)n;
    }
    while (cursor.key < cursor.n && status == 0) status |= probe_step(w, index, &cursor);
    memset(rpik, 0, sizeof rpik);
    return status;
}

/// The AES of a group of up to 4 keys whose identifiers go to one set of w->group_identifiers, 8 blocks at a time
/// (the AES-NI level's fused loop).
typedef struct {
    __m128i schedule[4][11];
    uint32_t start[4];    // the first derived interval of each key
    uint32_t batches[4];  // (derived count + 7) / 8
    uint8_t (*ids)[CEN_MAX_IDENTIFIERS * 16];
    int n;
    int key;         // the key being encrypted
    uint32_t batch;  // its next batch of 8
} aes_cursor;

#define CEN_AESNI_FUSED_TARGET __attribute__((target("sha,aes,sse4.1,ssse3,avx2,bmi,bmi2,popcnt,lzcnt")))

/// W + K of the 64 rounds of two chains' blocks (m0, m1: their 4 message vectors), as 16 vectors each: computed
/// before the rounds, with the message vectors in registers, so that the rounds, run beside the AES whose blocks
/// take the registers, wait on no schedule. (Kept in memory and advanced beside the rounds, the schedule made the
/// loop 1.2-1.3x slower: each step waited on the store of the previous one.)
CEN_AESNI_FUSED_TARGET static inline __attribute__((always_inline)) void schedule_2(const __m128i m0[4],
                                                                                   const __m128i m1[4],
                                                                                   __m128i wk[2][16]) {
    __m128i a[4] = {m0[0], m0[1], m0[2], m0[3]}, b[4] = {m1[0], m1[1], m1[2], m1[3]};
    for (int q = 0; q < 4; q++) {
        for (int i = 0; i < 4; i++) {
            const __m128i k = _mm_load_si128((const __m128i *)&cen_k256[16 * q + 4 * i]);
            wk[0][4 * q + i] = _mm_add_epi32(a[i], k);
            wk[1][4 * q + i] = _mm_add_epi32(b[i], k);
            if (q < 3) {
                __m128i x = _mm_sha256msg1_epu32(a[i], a[(i + 1) & 3]);
                __m128i y = _mm_sha256msg1_epu32(b[i], b[(i + 1) & 3]);
                x = _mm_add_epi32(x, _mm_alignr_epi8(a[(i + 3) & 3], a[(i + 2) & 3], 4));
                y = _mm_add_epi32(y, _mm_alignr_epi8(b[(i + 3) & 3], b[(i + 2) & 3], 4));
                a[i] = _mm_sha256msg2_epu32(x, a[(i + 3) & 3]);
                b[i] = _mm_sha256msg2_epu32(y, b[(i + 3) & 3]);
            }
        }
    }
}

/// The HKDF of a group of 4 keys as 12 half-stages of 2 chains (6 compressions x 2 pairs of chains), run a step
/// of 4 rounds at a time between the AES rounds of the previous group. 2 chains keep the SHA unit busy on this
/// path's CPUs (sha256rnds2: latency 4 cycles, one every 2 on AMD Zen 1) and leave the registers to the AES.
typedef struct {
    sha_state hs[8], hs0[8];
    __m128i hm[8][4];
    __m128i wks[2][16];
    const __m128i *wk0, *wk1;  // the running pair's W + K
    int half;                  // 0...11
    int pair;                  // the first chain of the running pair
} hkdf_run;

/// Starts half-stage r->half: the stage's message blocks when it is the first pair of its stage, then the pair's
/// W + K (precomputed for the info block). Out of line: the AES loop that calls it keeps its registers for the
/// blocks (inlined, it made the compiler spill them).
CEN_AESNI_FUSED_TARGET __attribute__((noinline)) static void hkdf_begin_half(hkdf_run *r,
                                                                            const uint8_t *const data[4]) {
    const cen_shani_constants *constants = &cen_shani_constants_value;
    const __m128i ipad = _mm_set1_epi32(0x36363636), opad = _mm_set1_epi32(0x5c5c5c5c);
    const int stage = r->half >> 1;
    if ((r->half & 1) == 0) {
        switch (stage) {
        case 0: {
            const sha_state start = state_load(constants->extract_inner);
            for (int l = 0; l < 4; l++) {
                r->hs[l] = r->hs0[l] = start;
                r->hm[l][0] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)data[l]), CEN_SHA_BYTESWAP);
                r->hm[l][1] = CEN_SHA_DIGEST_TAIL;
                r->hm[l][2] = _mm_setzero_si128();
                r->hm[l][3] = CEN_SHA_KEY_LENGTH;
            }
            break;
        }
        case 1: {
            const sha_state start = state_load(constants->extract_outer);
            for (int l = 0; l < 4; l++) {
                sha_add(&r->hs[l], r->hs0[l]);
                state_words(r->hs[l], &r->hm[l][0], &r->hm[l][1]);
                r->hm[l][2] = CEN_SHA_DIGEST_TAIL;
                r->hm[l][3] = CEN_SHA_DIGEST_LENGTH;
                r->hs[l] = r->hs0[l] = start;
            }
            break;
        }
        case 2: {
            const sha_state iv = state_load(constants->iv);
            for (int l = 0; l < 4; l++) {
                __m128i p0, p1;
                sha_add(&r->hs[l], r->hs0[l]);
                state_words(r->hs[l], &p0, &p1);
                r->hm[l][0] = _mm_xor_si128(p0, ipad);
                r->hm[l][1] = _mm_xor_si128(p1, ipad);
                r->hm[l][2] = r->hm[l][3] = ipad;
                r->hm[4 + l][0] = _mm_xor_si128(p0, opad);
                r->hm[4 + l][1] = _mm_xor_si128(p1, opad);
                r->hm[4 + l][2] = r->hm[4 + l][3] = opad;
            }
            for (int l = 0; l < 8; l++) r->hs[l] = iv;
            break;
        }
        case 4: {
            const sha_state iv = state_load(constants->iv);
            for (int l = 0; l < 8; l++) sha_add(&r->hs[l], iv);
            for (int l = 0; l < 4; l++) r->hs0[l] = r->hs[l];
            break;
        }
        case 5:
            for (int l = 0; l < 4; l++) {
                sha_add(&r->hs[l], r->hs0[l]);
                r->hs0[4 + l] = r->hs[4 + l];
                state_words(r->hs[l], &r->hm[4 + l][0], &r->hm[4 + l][1]);
                r->hm[4 + l][2] = CEN_SHA_DIGEST_TAIL;
                r->hm[4 + l][3] = CEN_SHA_DIGEST_LENGTH;
            }
            break;
        default: break;
        }
    }
    r->pair = (stage == 3 || stage == 5 ? 4 : 0) + 2 * (r->half & 1);
    if (stage == 4) {
        r->wk0 = r->wk1 = (const __m128i *)constants->info_schedule;
    } else {
        schedule_2(r->hm[r->pair], r->hm[r->pair + 1], r->wks);
        r->wk0 = r->wks[0];
        r->wk1 = r->wks[1];
    }
}

/// The AES-NI level's loop on CPUs with AVX2/BMI2. On AMD Zen 1 the SHA and AES units run side by side (4
/// sha256rnds2 of 2 chains and 8 aesenc together take the time of the 4 sha256rnds2 alone), so the HKDF runs
/// inside the AES loop instead of before it. Three groups of up to 4 keys are in flight: the HKDF of one, the AES
/// of the previous one and the probes of the one before. The AES runs 8 blocks at a time; after its 4th and 8th
/// rounds comes a step (4 rounds) of 2 HKDF chains, whose states stay in registers beside the blocks, and after
/// the 5th a group of 8 probes; what is left of the HKDF runs after the group's AES. (A step after every third
/// round was 3 % slower, a whole batch of 8 blocks between the HKDF's steps 10 % slower than no fusion: the
/// out-of-order window did not reach past it. With the chains' states in memory as well it was 1.3x slower.)
/// Two sets of identifier buffers: one written by the AES while the other is probed.
CEN_AESNI_FUSED_TARGET static int match_aesni_fused(cen_worker *w, const cen_index *index, const cen_key *keys,
                                                    size_t count, uint32_t first_key_index) {
    cen_hkdf_shani_prepare();
    size_t next = 0;
    uint8_t rpik[4][16] __attribute__((aligned(16)));
    probe_cursor probes = {.n = 0}, pending = {.n = 0};
    aes_cursor aes = {.n = 0};
    hkdf_run run;
    int status = 0, buffer = 0;
    sha_state c0, c1;
    // The running pair's step (0...16; 16: the group's HKDF is done) and W + K, in registers.
    int sha_step = 16;
    const __m128i *wk0 = NULL, *wk1 = NULL;
#define SHA_STEP(data)                                                                                           \
    do {                                                                                                         \
        if (sha_step < 16) {                                                                                     \
            sha_rnds4(&c0, _mm_load_si128(&wk0[sha_step]));                                                      \
            sha_rnds4(&c1, _mm_load_si128(&wk1[sha_step]));                                                      \
            if (++sha_step == 16) {                                                                              \
                run.hs[run.pair] = c0;                                                                           \
                run.hs[run.pair + 1] = c1;                                                                       \
                if (++run.half < 12) {                                                                           \
                    hkdf_begin_half(&run, data);                                                                 \
                    c0 = run.hs[run.pair];                                                                       \
                    c1 = run.hs[run.pair + 1];                                                                   \
                    wk0 = run.wk0;                                                                               \
                    wk1 = run.wk1;                                                                               \
                    sha_step = 0;                                                                                \
                }                                                                                                \
            }                                                                                                    \
        }                                                                                                        \
    } while (0)
    while (next < count && status == 0) {
        size_t chosen[4];
        uint32_t skip[4], derive[4];
        int n;
        next = next_group(index, keys, count, next, chosen, skip, derive, &n);
        if (n == 0) break;
        const uint8_t *data[4];
        for (int l = 0; l < 4; l++) data[l] = keys[chosen[l < n ? l : 0]].key_data;
        run.half = 0;
        hkdf_begin_half(&run, data);
        c0 = run.hs[run.pair];
        c1 = run.hs[run.pair + 1];
        wk0 = run.wk0;
        wk1 = run.wk1;
        sha_step = 0;
        while (aes.key < aes.n) {
            const __m128i *rk = aes.schedule[aes.key];
            const uint32_t at = 8 * aes.batch;
            const __m128i base = base_block(aes.start[aes.key] + at);
            __m128i x[8];
            for (int j = 0; j < 8; j++) x[j] = _mm_xor_si128(_mm_add_epi32(base, _mm_set_epi32(j, 0, 0, 0)), rk[0]);
            _Pragma("clang loop unroll(full)") for (int r = 1; r < 10; r++) {
                for (int j = 0; j < 8; j++) x[j] = _mm_aesenc_si128(x[j], rk[r]);
                if (r % 4 == 0) SHA_STEP(data);
                if (r == 5) status |= probe_step(w, index, &probes);
            }
            uint8_t *o = aes.ids[aes.key] + 16 * at;
            for (int j = 0; j < 8; j++) _mm_storeu_si128((__m128i *)(o + 16 * j), _mm_aesenclast_si128(x[j], rk[10]));
            if (++aes.batch == aes.batches[aes.key]) {
                aes.batch = 0;
                aes.key++;
            }
        }
        while (sha_step < 16) SHA_STEP(data);
        for (int l = 0; l < 4; l++) {
            __m128i h0123, h4567;
            sha_add(&run.hs[4 + l], run.hs0[4 + l]);
            state_words(run.hs[4 + l], &h0123, &h4567);
            _mm_store_si128((__m128i *)rpik[l], _mm_shuffle_epi8(h0123, CEN_SHA_BYTESWAP));
        }
        while (probes.key < probes.n) status |= probe_step(w, index, &probes);
        // The previous group's identifiers are complete: probe them next; this group's go to the other set.
        probes = pending;
        pending = (probe_cursor){.n = n, .ids = w->group_identifiers[buffer ^ 1]};
        aes = (aes_cursor){.n = n, .ids = w->group_identifiers[buffer ^ 1]};
        cen_expand_keys_4((const uint8_t(*)[16])rpik, aes.schedule);
        for (int l = 0; l < n; l++) {
            const cen_key *key = &keys[chosen[l]];
            aes.start[l] = key->rolling_start + skip[l];
            aes.batches[l] = (derive[l] + 7) / 8;
            w->identifiers_derived += derive[l];
            pending.part[l] = (cen_key){.rolling_start = key->rolling_start + skip[l], .rolling_period = derive[l]};
            pending.key_index[l] = first_key_index + (uint32_t)chosen[l];
            pending.groups[l] = (derive[l] + 7) / 8;
        }
        buffer ^= 1;
        w->keys_derived += (uint64_t)n;
    }
#undef SHA_STEP
    // The last two groups: the newer one's AES beside the older one's probes, then the newer one's probes.
    while (aes.key < aes.n) {
        const __m128i *rk = aes.schedule[aes.key];
        const uint32_t at = 8 * aes.batch;
        const __m128i base = base_block(aes.start[aes.key] + at);
        __m128i x[8];
        for (int j = 0; j < 8; j++) x[j] = _mm_xor_si128(_mm_add_epi32(base, _mm_set_epi32(j, 0, 0, 0)), rk[0]);
        for (int r = 1; r < 10; r++) {
            for (int j = 0; j < 8; j++) x[j] = _mm_aesenc_si128(x[j], rk[r]);
        }
        uint8_t *o = aes.ids[aes.key] + 16 * at;
        for (int j = 0; j < 8; j++) _mm_storeu_si128((__m128i *)(o + 16 * j), _mm_aesenclast_si128(x[j], rk[10]));
        if (++aes.batch == aes.batches[aes.key]) {
            aes.batch = 0;
            aes.key++;
        }
    }
    while (probes.key < probes.n && status == 0) status |= probe_step(w, index, &probes);
    while (pending.key < pending.n && status == 0) status |= probe_step(w, index, &pending);
    memset(&aes, 0, sizeof aes);
    memset(&run, 0, sizeof run);
    memset(rpik, 0, sizeof rpik);
    return status;
}
#endif

static inline __attribute__((always_inline)) int match_keys(cen_worker *w, const cen_index *index, const cen_key *keys,
                                                            size_t count, uint32_t first_key_index) {
    size_t next = 0;
    uint8_t rpik[4][16] __attribute__((aligned(16)));
    uint8_t *const out[4] = {rpik[0], rpik[1], rpik[2], rpik[3]};
    int status = 0;
    while (next < count && status == 0) {
        size_t chosen[4];
        uint32_t skip[4], derive[4];
        int n;
        next = next_group(index, keys, count, next, chosen, skip, derive, &n);
        if (n == 0) break;
        const uint8_t *data[4];
        for (int l = 0; l < n; l++) data[l] = keys[chosen[l]].key_data;
        derive_rpiks(w, data, out, n);
        for (int l = 0; l < n && status == 0; l++) {
            const cen_key *key = &keys[chosen[l]];
            // The probe sees the derived part as a key of its own: start + skip, period = derived count.
            const cen_key part = {.rolling_start = key->rolling_start + skip[l], .rolling_period = derive[l]};
            status = derive_identifiers(w, rpik[l], key->rolling_start, skip[l], derive[l], w->identifiers);
            if (status == 0) status = probe(w, index, &part, first_key_index + (uint32_t)chosen[l]);
        }
        w->keys_derived += (uint64_t)n;
    }
    memset(rpik, 0, sizeof rpik);
    return status;
}

/// The loop compiled twice: for any x86-64 (or other) CPU, and with BMI2/AVX2 for the filter's shifts and
/// bit tests on CPUs that have them (the dispatch is per call, not per key).
static int match_generic(cen_worker *w, const cen_index *index, const cen_key *keys, size_t count, uint32_t first) {
    return match_keys(w, index, keys, count, first);
}

#if CEN_X86
__attribute__((target("avx2,bmi,bmi2,popcnt,lzcnt")))
static int match_bmi2(cen_worker *w, const cen_index *index, const cen_key *keys, size_t count, uint32_t first) {
    return match_keys(w, index, keys, count, first);
}
#endif

int cen_worker_match(cen_worker *w, const cen_index *index, const cen_key *keys, size_t count,
                     uint32_t first_key_index) {
#if CEN_X86
    if (w->level == CEN_LEVEL_SHANI_VAES512) return match_vaes512(w, index, keys, count, first_key_index);
    if (w->level == CEN_LEVEL_SHANI_AESNI && w->use_bmi2) {
        return match_aesni_fused(w, index, keys, count, first_key_index);
    }
    if (w->use_bmi2) return match_bmi2(w, index, keys, count, first_key_index);
#endif
    return match_generic(w, index, keys, count, first_key_index);
}
