// Scans over packed integers that want vector compares the Swift standard
// library does not give (a compare's result as a bit mask); header only.
#pragma once

#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/// Writes to `starts`, from `starts[1]` on, the index of each of the `count`
/// values of `width` bytes (1, 2, 4 or 8) at `bytes` that differs from the
/// value before it, and returns 1 plus how many it wrote (the runs of equal
/// values, counting the one that starts at 0, which the caller writes).
///
/// With SSE2, 64 bytes are compared with the 64 bytes `width` before them
/// at a time, byte by byte; a value differs when one of its bytes does, and
/// only the values that start a run are visited (a link column's run of a
/// person's ten dogs costs one visit, not ten).
static inline intptr_t shoal_run_starts(const uint8_t *bytes, intptr_t count, intptr_t width, int32_t *starts) {
    intptr_t runs = 1;
    intptr_t j = 1;
#if defined(__SSE2__)
    const int shift = width == 1 ? 0 : width == 2 ? 1 : width == 4 ? 2 : 3;
    // The bit of each value's first byte.
    const uint64_t first = width == 1 ? ~UINT64_C(0)
        : width == 2 ? UINT64_C(0x5555555555555555)
        : width == 4 ? UINT64_C(0x1111111111111111)
        : UINT64_C(0x0101010101010101);
    const intptr_t perBlock = 64 >> shift;
    for (; j + perBlock <= count; j += perBlock) {
        const uint8_t *current = bytes + j * width;
        const uint8_t *previous = current - width;
        uint64_t equal = 0;
        for (int b = 0; b < 4; b++) {
            __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(current + 16 * b));
            __m128i y = _mm_loadu_si128((const __m128i *)(const void *)(previous + 16 * b));
            equal |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, y)) << (16 * b);
        }
        uint64_t differs = ~equal;
        // Each value's bytes' bits folded onto its first byte's bit.
        if (width >= 2) differs |= differs >> 1;
        if (width >= 4) differs |= differs >> 2;
        if (width >= 8) differs |= differs >> 4;
        differs &= first;
        while (differs != 0) {
            starts[runs++] = (int32_t)(j + (__builtin_ctzll(differs) >> shift));
            differs &= differs - 1;
        }
    }
#endif
    // The rest (all of it without SSE2), typed by the width, with no branch
    // per value: every index is written, and kept where a run starts.
#define SHOAL_RUN_STARTS_TAIL(T)                                  \
    for (; j < count; j++) {                                      \
        T current, previous;                                      \
        memcpy(&current, bytes + j * sizeof(T), sizeof(T));       \
        memcpy(&previous, bytes + (j - 1) * sizeof(T), sizeof(T)); \
        starts[runs] = (int32_t)j;                                \
        runs += current != previous;                              \
    }
    switch (width) {
    case 1: SHOAL_RUN_STARTS_TAIL(uint8_t) break;
    case 2: SHOAL_RUN_STARTS_TAIL(uint16_t) break;
    case 4: SHOAL_RUN_STARTS_TAIL(uint32_t) break;
    default: SHOAL_RUN_STARTS_TAIL(uint64_t) break;
    }
#undef SHOAL_RUN_STARTS_TAIL
    return runs;
}
