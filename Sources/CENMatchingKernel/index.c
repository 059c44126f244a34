// The observation index: built once per detection, probed 144 times per diagnosis key.
//
// - A blocked Bloom filter with 64 to 128 bits per distinct identifier (a power of two, 4 Ki bits to 256 Mi
//   bits), two bits per identifier in one 64-bit word: a derived identifier that is not observed (nearly all
//   of them) costs one word test. At M = 10k the filter is 128 KiB (in L2) and lets about 0.1 % through; each
//   identifier it lets through costs a likely cache miss in the exact table, which at 32 bits per identifier
//   (0.3 %) cost more than the larger filter.
// - Behind it an exact open-addressing table (load <= 0.5, linear probing) of the distinct identifiers; each
//   entry points at the run of its observations (an identifier can be seen many times), stored together
//   with their intervals, so the +-12 interval check touches only the observations of an exact hit.
// - The distinct observed intervals, sorted, with the nearest observed interval before and after each interval
//   of their span, answer "what is observed near this key, from when to when?" in constant time.
// Both hashes mix a random seed so that identifiers chosen by a broadcaster cannot pile up in one place.
#include "index.h"

#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

/// Zeroed memory for a large table that is written at random: on Linux, 2 MiB-aligned and marked for
/// transparent huge pages, so that a 6 MiB table (M = 100k) takes 3 page faults instead of 1,536 and its
/// random accesses few TLB misses. Elsewhere (or when small) plain calloc. Freed with free().
static void *table_alloc(size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const size_t huge = (size_t)2 << 20;
    if (bytes >= huge) {
        const size_t rounded = (bytes + huge - 1) / huge * huge;
        void *p = aligned_alloc(huge, rounded);
        if (!p) return NULL;
        (void)madvise(p, rounded, MADV_HUGEPAGE);  // advice only: without it the table still works
        memset(p, 0, rounded);
        return p;
    }
#endif
    return calloc(1, bytes);
}

static size_t next_power_of_two(size_t v) {
    size_t p = 1;
    while (p < v) p <<= 1;
    return p;
}

static unsigned log2_exact(size_t v) {
    unsigned l = 0;
    while (((size_t)1 << l) < v) l++;
    return l;
}

/// Sorts `count` values in place: a least-significant-digit radix sort, one pass per byte, skipping the bytes
/// all values share (interval numbers of one detection share their top byte or two). `scratch` holds
/// `count` values. Linear time: qsort took 0.8 ms for 10,000 intervals, most of the index's build time then.
static void radix_sort_u32(uint32_t *values, uint32_t *scratch, size_t count) {
    size_t histogram[4][256];
    memset(histogram, 0, sizeof histogram);
    for (size_t i = 0; i < count; i++) {
        const uint32_t v = values[i];
        for (int b = 0; b < 4; b++) histogram[b][(v >> (8 * b)) & 0xff]++;
    }
    uint32_t *from = values, *to = scratch;
    for (int b = 0; b < 4; b++) {
        if (count == 0 || histogram[b][(from[0] >> (8 * b)) & 0xff] == count) continue;  // one digit: no-op
        size_t offset = 0;
        for (int d = 0; d < 256; d++) {
            const size_t n = histogram[b][d];
            histogram[b][d] = offset;
            offset += n;
        }
        for (size_t i = 0; i < count; i++) {
            const uint32_t v = from[i];
            to[histogram[b][(v >> (8 * b)) & 0xff]++] = v;
        }
        uint32_t *t = from;
        from = to;
        to = t;
    }
    if (from != values) memcpy(values, from, count * sizeof(uint32_t));
}

void cen_index_destroy(cen_index *index) {
    if (!index) return;
    free(index->filter);
    free(index->slots);
    free(index->tags);
    free(index->observation_index);
    free(index->observation_interval);
    free(index->intervals);
    free(index->next_observed);
    free(index);
}

cen_index *cen_index_create(const uint8_t *rpis, const uint32_t *intervals, size_t count, uint64_t seed) {
    if (count > ((size_t)1 << 31)) return NULL;
    cen_index *index = calloc(1, sizeof *index);
    if (!index) return NULL;
    index->seed_low = seed | 1;
    index->seed_high = (seed * 0x9E3779B97F4A7C15ULL) ^ 0xD1B54A32D192ED03ULL;

    size_t capacity = next_power_of_two(count * 2 < 16 ? 16 : count * 2);
    index->slot_shift = 64 - log2_exact(capacity);
    index->slot_mask = capacity - 1;
    index->slots = table_alloc(capacity * sizeof(cen_slot));
    index->tags = table_alloc(capacity * sizeof(uint32_t));
    index->observation_index = malloc((count ? count : 1) * sizeof(uint32_t));
    index->observation_interval = malloc((count ? count : 1) * sizeof(uint32_t));
    index->intervals = malloc((count ? count : 1) * sizeof(uint32_t));
    if (!index->slots || !index->tags || !index->observation_index || !index->observation_interval || !index->intervals) {
        cen_index_destroy(index);
        return NULL;
    }

    // Pass 1: distinct identifiers and how often each was observed; each observation's slot is remembered so
    // that pass 2 does not hash again.
    uint32_t *slot_of = malloc((count ? count : 1) * sizeof(uint32_t));
    if (!slot_of) {
        cen_index_destroy(index);
        return NULL;
    }
    size_t distinct = 0;
    for (size_t i = 0; i < count; i++) {
        uint64_t lo, hi;
        memcpy(&lo, rpis + 16 * i, 8);
        memcpy(&hi, rpis + 16 * i + 8, 8);
        cen_slot *slot = cen_index_find_slot(index, lo, hi);
        if (slot->count == 0) {
            slot->low = lo;
            slot->high = hi;
            index->tags[slot - index->slots] = cen_index_tag(lo);
            distinct++;
        }
        slot->count++;
        slot_of[i] = (uint32_t)(slot - index->slots);
    }
    index->distinct = distinct;

    // The filter: 64 to 128 bits per distinct identifier (about 0.1 % false positives with two bits each).
    size_t bits = next_power_of_two(distinct * 64);
    if (bits < ((size_t)1 << 12)) bits = (size_t)1 << 12;
    if (bits > ((size_t)1 << 28)) bits = (size_t)1 << 28;
    index->filter_bits = bits;
    index->filter_shift = 64 - log2_exact(bits / 64);  // selects a word
    index->filter = table_alloc(bits / 8);
    if (!index->filter) {
        free(slot_of);
        cen_index_destroy(index);
        return NULL;
    }

    // Pass 2: one scan of the table gives each identifier its run and sets its filter bits; then the
    // observations are placed, in their original order, through the remembered slots.
    uint32_t next = 0;
    for (size_t s = 0; s < capacity; s++) {
        cen_slot *slot = &index->slots[s];
        if (slot->count) {
            next += slot->count;
            slot->first = next;  // the run's end; counted down while placing
            index->filter[cen_index_filter_word(index, slot->low)] |= cen_index_filter_mask(slot->low);
        }
    }
    for (size_t i = count; i-- > 0;) {
        cen_slot *slot = &index->slots[slot_of[i]];
        const uint32_t at = --slot->first;
        index->observation_index[at] = (uint32_t)i;
        index->observation_interval[at] = intervals[i];
    }
    free(slot_of);

    // Distinct observed intervals, sorted.
    memcpy(index->intervals, intervals, count * sizeof(uint32_t));
    uint32_t *scratch = malloc((count ? count : 1) * sizeof(uint32_t));
    if (!scratch) {
        cen_index_destroy(index);
        return NULL;
    }
    radix_sort_u32(index->intervals, scratch, count);
    free(scratch);
    size_t unique = 0;
    for (size_t i = 0; i < count; i++) {
        if (unique == 0 || index->intervals[unique - 1] != index->intervals[i]) {
            index->intervals[unique++] = index->intervals[i];
        }
    }
    index->interval_count = unique;

    // Nearest observed intervals over their span, when it is narrow (a device's 14 days are 2,016 intervals):
    // next_observed[k] and prev_observed[k] for k in 0...span, in one allocation.
    if (unique > 0 && (uint64_t)index->intervals[unique - 1] - index->intervals[0] < CEN_OCCUPANCY_SPAN) {
        const uint32_t span = (uint32_t)(index->intervals[unique - 1] - index->intervals[0] + 1);
        uint32_t *both = malloc(2 * ((size_t)span + 1) * sizeof(uint32_t));
        if (!both) {
            cen_index_destroy(index);
            return NULL;
        }
        index->next_observed = both;
        index->prev_observed = both + span + 1;
        index->occupancy_span = span;
        const uint32_t base = index->intervals[0];
        // prev_observed[k]: the last observed offset below k.
        size_t d = 0;
        uint32_t last = CEN_NO_INTERVAL;
        for (uint32_t k = 0; k <= span; k++) {
            index->prev_observed[k] = last;
            if (d < unique && index->intervals[d] - base == k) {
                last = k;
                d++;
            }
        }
        // next_observed[k]: the first observed offset at or above k.
        d = unique;
        uint32_t first = CEN_NO_INTERVAL;
        for (uint32_t k = span + 1; k-- > 0;) {
            if (d > 0 && index->intervals[d - 1] - base == k) {
                first = k;
                d--;
            }
            index->next_observed[k] = first;
        }
    }
    index->memory = sizeof *index + capacity * (sizeof(cen_slot) + sizeof(uint32_t)) + 3 * count * sizeof(uint32_t) + bits / 8 +
                    (index->next_observed ? 2 * ((size_t)index->occupancy_span + 1) * sizeof(uint32_t) : 0);
    return index;
}

size_t cen_index_distinct_count(const cen_index *index) { return index->distinct; }
size_t cen_index_memory_bytes(const cen_index *index) { return index->memory; }

int cen_index_has_observation_in(const cen_index *index, uint64_t first, uint64_t end) {
    return cen_index_observed_between(index, first, end);
}

int cen_index_observed_range_in(const cen_index *index, uint64_t first, uint64_t end, uint64_t *lowest,
                                uint64_t *highest) {
    return cen_index_observed_range(index, first, end, lowest, highest);
}
