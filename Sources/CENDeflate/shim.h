#ifndef CENDEFLATE_SHIM_H
#define CENDEFLATE_SHIM_H

// libdeflate for reading export files: one-shot raw-DEFLATE inflation into a buffer of known size, in half
// zlib's time on export files. Its CRC-32 (`libdeflate_crc32`, called directly; carry-less multiplication) checks
// and writes the zip's checksums (see Documentation/ExportFormat.md). Writing still deflates with zlib (CENZlib),
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
    const enum libdeflate_result result =
        libdeflate_deflate_decompress(decompressor, input, input_length, output, capacity, produced);
    libdeflate_free_decompressor(decompressor);
    switch (result) {
    case LIBDEFLATE_SUCCESS: return CENDEFLATE_OK;
    case LIBDEFLATE_INSUFFICIENT_SPACE: return CENDEFLATE_OVERRUN;
    default: return CENDEFLATE_BAD_DATA;
    }
}

#endif
