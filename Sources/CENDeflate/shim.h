#ifndef CENDEFLATE_SHIM_H
#define CENDEFLATE_SHIM_H

// libdeflate for reading export files: one-shot raw-DEFLATE inflation into a buffer of known size, and the
// zip's CRC-32 (reading and writing). It inflates export files in half zlib's time and computes CRC-32 with
// carry-less multiplication (see Documentation/ExportFormat.md). Writing still deflates with zlib (CENZlib),
// whose sync flush lets pieces be compressed in parallel into one stream.

#include <stddef.h>
#include <stdint.h>
#include <libdeflate.h>

/// What CENDeflate_inflate_raw found.
typedef enum {
    /// The stream ended; `*produced` bytes (at most `capacity`) were written.
    CENDEFLATE_OK = 0,
    /// The stream inflates to more than `capacity` bytes.
    CENDEFLATE_OVERRUN = 1,
    /// The input is not valid DEFLATE data, or ends before its stream does.
    CENDEFLATE_BAD_DATA = 2,
    /// libdeflate could not allocate its state.
    CENDEFLATE_FAILED = 3,
} CENDeflate_status;

/// Inflates the raw DEFLATE stream `input` (no zlib or gzip header) into `output`, writing at most `capacity`
/// bytes; bytes after the end of the stream are ignored.
static inline CENDeflate_status CENDeflate_inflate_raw(const void *input, size_t input_length, void *output,
                                                       size_t capacity, size_t *produced) {
    *produced = 0;
    struct libdeflate_decompressor *decompressor = libdeflate_alloc_decompressor();
    if (decompressor == NULL) return CENDEFLATE_FAILED;
    size_t consumed = 0;
    const enum libdeflate_result result = libdeflate_deflate_decompress_ex(
        decompressor, input, input_length, output, capacity, &consumed, produced);
    libdeflate_free_decompressor(decompressor);
    switch (result) {
    case LIBDEFLATE_SUCCESS: return CENDEFLATE_OK;
    case LIBDEFLATE_INSUFFICIENT_SPACE: return CENDEFLATE_OVERRUN;
    default: return CENDEFLATE_BAD_DATA;
    }
}

/// CRC-32 (the zip one) of `length` bytes, continuing from `crc` (0 to start).
static inline uint32_t CENDeflate_crc32(uint32_t crc, const void *bytes, size_t length) {
    return libdeflate_crc32(crc, bytes, length);
}

#endif
