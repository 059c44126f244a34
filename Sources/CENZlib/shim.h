#ifndef CENZLIB_SHIM_H
#define CENZLIB_SHIM_H

// zlib for writing export files: raw-DEFLATE compression of a whole buffer or of one piece of a stream cut
// into pieces compressed in parallel. (deflateInit2 is a macro, which Swift cannot call; this wraps it.)
// Reading inflates with libdeflate (CENDeflate), which is twice as fast but cannot end a piece with a sync flush.

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <zlib.h>

/// What CENZlib_deflate_raw did.
typedef enum {
    /// The piece was compressed; `*produced` bytes were written.
    CENZLIB_OK = 0,
    /// zlib could not allocate its state, the level or a length is out of range, or the output is too small.
    CENZLIB_FAILED = 1,
} CENZlib_status;

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

#endif
