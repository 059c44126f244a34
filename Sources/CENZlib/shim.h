#ifndef CENZLIB_SHIM_H
#define CENZLIB_SHIM_H

// zlib for export files: one-shot raw-DEFLATE inflation into a buffer of known size, one-shot raw-DEFLATE
// compression, and CRC-32. (inflateInit2 and deflateInit2 are macros, which Swift cannot call; this wraps them.)

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <zlib.h>

/// What CENZlib_inflate_raw found.
typedef enum {
    /// The stream ended; `*produced` bytes were written.
    CENZLIB_OK = 0,
    /// The output buffer filled before the stream ended: the data inflates to more than `capacity` bytes.
    CENZLIB_OVERRUN = 1,
    /// The input is not valid DEFLATE data.
    CENZLIB_DATA_ERROR = 2,
    /// The input ended before the DEFLATE stream did.
    CENZLIB_TRUNCATED = 3,
    /// zlib could not allocate its state, or another zlib error.
    CENZLIB_FAILED = 4,
} CENZlib_status;

/// Inflates the raw DEFLATE stream `input` (no zlib or gzip header) into `output`, writing at most
/// `capacity` bytes. Lengths above 4 GiB are refused as CENZLIB_FAILED (zip files without ZIP64 cannot have them).
static inline CENZlib_status CENZlib_inflate_raw(const void *input, size_t input_length, void *output,
                                                 size_t capacity, size_t *produced) {
    *produced = 0;
    if (input_length > 0xFFFFFFFFu || capacity > 0xFFFFFFFFu) return CENZLIB_FAILED;
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    if (inflateInit2(&stream, -MAX_WBITS) != Z_OK) return CENZLIB_FAILED;
    stream.next_in = (Bytef *)(uintptr_t)input;
    stream.avail_in = (uInt)input_length;
    stream.next_out = (Bytef *)output;
    stream.avail_out = (uInt)capacity;
    const int result = inflate(&stream, Z_FINISH);
    *produced = (size_t)stream.total_out;
    inflateEnd(&stream);
    switch (result) {
    case Z_STREAM_END: return CENZLIB_OK;
    case Z_DATA_ERROR: return CENZLIB_DATA_ERROR;
    case Z_BUF_ERROR:
    case Z_OK:
        // No progress possible: either the output is full (more data would follow) or the input ran out.
        return stream.avail_out == 0 ? CENZLIB_OVERRUN : CENZLIB_TRUNCATED;
    case Z_MEM_ERROR: return CENZLIB_FAILED;
    default: return CENZLIB_DATA_ERROR;
    }
}

/// The most bytes CENZlib_deflate_raw can produce from `input_length` bytes with Z_FINISH: zlib's deflateBound
/// without a stream, which is its conservative bound for every level and setting (a sync flush adds at most a
/// few bytes: allow 16 more).
static inline size_t CENZlib_deflate_bound(size_t input_length) {
    return (size_t)deflateBound(Z_NULL, (uLong)input_length);
}

/// Compresses `input` as raw DEFLATE (no zlib or gzip header) at `level` (1...9) into `output`, which holds at
/// least CENZlib_deflate_bound(input_length) + 16 bytes. Returns CENZLIB_OK with `*produced` set, or
/// CENZLIB_FAILED (no memory, a bad level, a length above 4 GiB, or an output too small).
///
/// `input` may be one piece of a stream cut into pieces compressed independently (in parallel), as pigz does:
/// `dictionary` (up to the 32 KiB before the piece; none for the first) primes the window, so that matches
/// reach back into the previous piece; a piece that is not `last` ends with a sync flush (byte-aligned, not
/// final). The pieces' outputs, concatenated in order, are one valid stream that inflates to the pieces'
/// inputs concatenated.
static inline CENZlib_status CENZlib_deflate_raw(const void *input, size_t input_length, const void *dictionary,
                                                 size_t dictionary_length, int last, void *output,
                                                 size_t capacity, int level, size_t *produced) {
    *produced = 0;
    if (input_length > 0xFFFFFFFFu || capacity > 0xFFFFFFFFu || dictionary_length > 32768) return CENZLIB_FAILED;
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    if (deflateInit2(&stream, level, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) return CENZLIB_FAILED;
    if (dictionary_length > 0 &&
        deflateSetDictionary(&stream, (const Bytef *)dictionary, (uInt)dictionary_length) != Z_OK) {
        deflateEnd(&stream);
        return CENZLIB_FAILED;
    }
    stream.next_in = (Bytef *)(uintptr_t)input;
    stream.avail_in = (uInt)input_length;
    stream.next_out = (Bytef *)output;
    stream.avail_out = (uInt)capacity;
    const int result = deflate(&stream, last ? Z_FINISH : Z_SYNC_FLUSH);
    *produced = (size_t)stream.total_out;
    // A sync flush is complete when all input is consumed and output space is left (zlib then has nothing
    // pending); Z_FINISH when the stream ended.
    const int complete = last ? result == Z_STREAM_END
                              : result == Z_OK && stream.avail_in == 0 && stream.avail_out > 0;
    deflateEnd(&stream);
    return complete ? CENZLIB_OK : CENZLIB_FAILED;
}

/// CRC-32 (the zip one) of `length` bytes, continuing from `crc` (0 to start).
static inline unsigned long CENZlib_crc32(unsigned long crc, const void *bytes, size_t length) {
    const Bytef *p = (const Bytef *)bytes;
    while (length > 0) {
        const uInt chunk = length > 0x40000000u ? 0x40000000u : (uInt)length;
        crc = crc32(crc, p, chunk);
        p += chunk;
        length -= chunk;
    }
    return crc;
}

#endif
