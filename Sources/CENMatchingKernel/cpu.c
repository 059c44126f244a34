// Runtime CPU-feature detection and level names.
#include "internal.h"

#if CEN_X86
#include <cpuid.h>

typedef struct {
    int ready;
    int shani, aesni, vaes, bmi2, vaes512;
} cen_features;

static cen_features detect(void) {
    cen_features f = {1, 0, 0, 0, 0, 0};
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return f;
    int ssse3 = (c >> 9) & 1, sse41 = (c >> 19) & 1, aes = (c >> 25) & 1;
    int osxsave = (c >> 27) & 1, avx = (c >> 28) & 1;
    int ymm_enabled = 0, zmm_enabled = 0;
    if (osxsave) {
        unsigned lo, hi;
        __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
        ymm_enabled = (lo & 0x6) == 0x6;    // XMM and YMM state saved by the OS
        zmm_enabled = (lo & 0xE6) == 0xE6;  // and the opmask, ZMM0-15 upper halves and ZMM16-31
    }
    unsigned b7 = 0, c7 = 0;
    if (__get_cpuid_max(0, NULL) >= 7) {
        __cpuid_count(7, 0, a, b7, c7, d);
    }
    int sha = (b7 >> 29) & 1, avx2 = (b7 >> 5) & 1, vaes = (c7 >> 9) & 1;
    int bmi1 = (b7 >> 3) & 1, bmi2 = (b7 >> 8) & 1, popcnt = (c >> 23) & 1;
    int avx512f = (b7 >> 16) & 1, avx512dq = (b7 >> 17) & 1, avx512bw = (b7 >> 30) & 1, avx512vl = (b7 >> 31) & 1;
    unsigned a81 = 0, b81 = 0, c81 = 0, d81 = 0;
    int lzcnt = __get_cpuid(0x80000001, &a81, &b81, &c81, &d81) ? (int)((c81 >> 5) & 1) : 0;
    f.aesni = aes && ssse3 && sse41;
    f.shani = sha && ssse3 && sse41;
    f.vaes = f.aesni && avx && avx2 && vaes && ymm_enabled;
    f.bmi2 = avx && avx2 && bmi1 && bmi2 && popcnt && lzcnt && ymm_enabled;
    f.vaes512 = f.vaes && f.bmi2 && avx512f && avx512dq && avx512bw && avx512vl && zmm_enabled;
    return f;
}

static cen_features features(void) {
    // One atomic word: bit 0 says it is filled, bits 1-5 hold the features. Threads that race to fill it all
    // store the same value, and every access is atomic, so there is no data race (ThreadSanitizer agrees).
    static int cached;
    int bits = __atomic_load_n(&cached, __ATOMIC_ACQUIRE);
    if (!(bits & 1)) {
        cen_features detected = detect();
        bits = 1 | (detected.shani ? 2 : 0) | (detected.aesni ? 4 : 0) | (detected.vaes ? 8 : 0)
            | (detected.bmi2 ? 16 : 0) | (detected.vaes512 ? 32 : 0);
        __atomic_store_n(&cached, bits, __ATOMIC_RELEASE);
    }
    cen_features f = {0};
    f.ready = 1;
    f.shani = (bits >> 1) & 1;
    f.aesni = (bits >> 2) & 1;
    f.vaes = (bits >> 3) & 1;
    f.bmi2 = (bits >> 4) & 1;
    f.vaes512 = (bits >> 5) & 1;
    return f;
}

int cen_cpu_has_shani(void) { return features().shani; }
int cen_cpu_has_aesni(void) { return features().aesni; }
int cen_cpu_has_vaes(void) { return features().vaes; }
int cen_cpu_has_bmi2(void) { return features().bmi2; }
int cen_cpu_has_vaes512(void) { return features().vaes512; }
#endif

int cen_level_supported(int level) {
    switch (level) {
    case CEN_LEVEL_PORTABLE: return 1;
#if CEN_X86
    case CEN_LEVEL_SHANI_AESNI: return cen_cpu_has_shani() && cen_cpu_has_aesni();
    case CEN_LEVEL_SHANI_VAES: return cen_cpu_has_shani() && cen_cpu_has_vaes();
    case CEN_LEVEL_SHANI_VAES512: return cen_cpu_has_shani() && cen_cpu_has_vaes512();
#endif
    default: return 0;
    }
}

int cen_best_level(void) {
    for (int level = CEN_LEVEL_SHANI_VAES512; level > CEN_LEVEL_PORTABLE; level--) {
        if (cen_level_supported(level)) return level;
    }
    return CEN_LEVEL_PORTABLE;
}
