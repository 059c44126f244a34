#ifndef CEN_INDEX_H
#define CEN_INDEX_H

#include "internal.h"

/// One distinct observed identifier and the run of its observations.
typedef struct {
    uint64_t low, high;
    uint32_t first;
    uint32_t count;  // 0 marks an empty slot
} cen_slot;

struct cen_index {
    uint64_t *filter;
    size_t filter_bits;
    unsigned filter_shift;
    cen_slot *slots;
    // One 32-bit tag per slot, 0 where the slot is empty: the lookups of identifiers the filter let through
    // by mistake end here (a dense array that stays in cache) instead of in the 24-byte slots.
    uint32_t *tags;
    size_t slot_mask;
    unsigned slot_shift;
    uint64_t seed_low, seed_high;
    uint32_t *observation_index;     // original positions, grouped by identifier
    uint32_t *observation_interval;  // their intervals, same order
    uint32_t *intervals;             // distinct observed intervals, sorted
    size_t interval_count;
    // When the observed intervals span at most CEN_OCCUPANCY_SPAN intervals, for k in 0...span (offsets from
    // intervals[0]): next_observed[k] is the first observed offset >= k and prev_observed[k] the last one < k,
    // CEN_NO_INTERVAL where there is none (both NULL for a wider span). One allocation, at next_observed.
    uint32_t *next_observed;
    uint32_t *prev_observed;
    uint32_t occupancy_span;
    size_t distinct;
    size_t memory;
};

/// The filter is a blocked Bloom filter with two bits per identifier, both in one 64-bit word: the top bits
/// of the identifier's first 8 bytes choose the word, its low 12 bits the two bit positions. Identifiers are
/// AES outputs, so their bits are already uniform; chosen identifiers can only raise the false-positive rate
/// (which the exact table absorbs), never corrupt the result.
static inline uint64_t cen_index_filter_word(const cen_index *index, uint64_t low) {
    return low >> index->filter_shift;
}

static inline uint64_t cen_index_filter_mask(uint64_t low) {
    return ((uint64_t)1 << (low & 63)) | ((uint64_t)1 << ((low >> 6) & 63));
}

/// Bit 0 is set when both of the identifier's bits are set in its word (the other bits are garbage): two
/// variable shifts whose counts the CPU already takes modulo 64, no mask to build.
/// The same test on a filter and word-selecting shift the caller keeps in registers (the probe loop).
static inline uint64_t cen_filter_bit(const uint64_t *filter, unsigned shift, uint64_t low) {
    const uint64_t word = filter[low >> shift];
    return (word >> (low & 63)) & (word >> ((low >> 6) & 63));
}

static inline uint64_t cen_index_filter_bit(const cen_index *index, uint64_t low) {
    return cen_filter_bit(index->filter, index->filter_shift, low);
}

static inline size_t cen_index_slot_of(const cen_index *index, uint64_t low, uint64_t high) {
    uint64_t h = ((low ^ index->seed_high) * 0xBF58476D1CE4E5B9ULL) ^ ((high + index->seed_low) * 0x94D049BB133111EBULL);
    return (size_t)(h >> index->slot_shift);
}

/// The slot holding (low, high), or the empty slot where it would go.
static inline cen_slot *cen_index_find_slot(const cen_index *index, uint64_t low, uint64_t high) {
    size_t s = cen_index_slot_of(index, low, high);
    for (;;) {
        cen_slot *slot = &index->slots[s];
        if (slot->count == 0 || (slot->low == low && slot->high == high)) return slot;
        s = (s + 1) & index->slot_mask;
    }
}

/// The tag of an identifier: 32 bits of its first half, never 0.
static inline uint32_t cen_index_tag(uint64_t low) { return (uint32_t)(low >> 32) | 1u; }

/// The slot holding (low, high), or NULL: the tags first, the slot only where the tag is equal.
static inline const cen_slot *cen_index_lookup(const cen_index *index, uint64_t low, uint64_t high) {
    const uint32_t tag = cen_index_tag(low);
    size_t s = cen_index_slot_of(index, low, high);
    for (;;) {
        const uint32_t t = index->tags[s];
        if (t == 0) return NULL;
        if (t == tag) {
            const cen_slot *slot = &index->slots[s];
            if (slot->low == low && slot->high == high) return slot;
        }
        s = (s + 1) & index->slot_mask;
    }
}

/// The widest interval span (about 1.2 years) answered from the nearest-observation tables; wider spans
/// (sightings with far-apart clocks) fall back to binary searches over the sorted intervals.
#define CEN_OCCUPANCY_SPAN ((uint64_t)1 << 16)
#define CEN_NO_INTERVAL UINT32_MAX

/// The number of distinct observed intervals below `x` (binary search).
static inline size_t cen_index_intervals_below(const cen_index *index, uint64_t x) {
    size_t lo = 0, hi = index->interval_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if ((uint64_t)index->intervals[mid] < x) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/// The first and last observed intervals in [first, end); returns 0 (and leaves them alone) when there are
/// none. Two independent loads from the nearest-observation tables for a narrow span.
static inline int cen_index_observed_range(const cen_index *index, uint64_t first, uint64_t end, uint64_t *lowest,
                                           uint64_t *highest) {
    if (index->interval_count == 0 || end <= first) return 0;
    const uint64_t base = index->intervals[0];
    if (index->next_observed) {
        const uint64_t span = index->occupancy_span;
        const uint64_t lo = first <= base ? 0 : (first - base < span ? first - base : span);
        const uint64_t hi = end <= base ? 0 : (end - base < span ? end - base : span);
        const uint32_t next = index->next_observed[lo];
        const uint32_t prev = index->prev_observed[hi];
        if (next == CEN_NO_INTERVAL || next >= hi) return 0;
        *lowest = base + next;
        *highest = base + prev;  // exists: next < hi is observed
        return 1;
    }
    const size_t below_first = cen_index_intervals_below(index, first);
    const size_t below_end = cen_index_intervals_below(index, end);
    if (below_end == below_first) return 0;
    *lowest = index->intervals[below_first];
    *highest = index->intervals[below_end - 1];
    return 1;
}

/// Whether any observation lies in [first, end).
static inline int cen_index_observed_between(const cen_index *index, uint64_t first, uint64_t end) {
    uint64_t lowest, highest;
    return cen_index_observed_range(index, first, end, &lowest, &highest);
}

#endif
