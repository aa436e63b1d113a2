/* apng_writer: assembles an animated PNG (APNG) from same-size PNG files.
 * Plain C99, zlib only (crc32); the frames' compressed image data is copied
 * as it is, never decoded. */
#ifndef APNG_WRITER_H
#define APNG_WRITER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Writes `out_path` as an APNG playing the `count` PNG files `png_paths` in
 * order, forever (num_plays 0), each frame shown for delay_num / delay_den
 * seconds (delay_den 0 means 1/100 s, as the APNG specification says).
 *
 * The output holds the first file's IHDR and the ancillary chunks it has
 * before its image data (PLTE, tRNS, gAMA, sRGB, ...), then acTL, then per
 * frame an fcTL (full frame at (0, 0), dispose none, blend source) and the
 * frame's data: IDAT chunks for frame 0 (so viewers without APNG support
 * show the first frame) and fdAT chunks for the others. fcTL and fdAT chunks
 * share one sequence counter starting at 0; every CRC is zlib's crc32 over
 * the chunk type and data.
 *
 * Every file must be a valid PNG (signature and chunk CRCs checked) with the
 * same IHDR as the first (size, bit depth, colour type, interlacing).
 *
 * Returns 0 on success, -1 on failure (no file is left at out_path then):
 * count 0, a NULL argument, delay_num or delay_den above 65535, an unreadable
 * or invalid PNG, frames that differ in IHDR, or an error writing. */
int apng_write_from_png_files(const char *out_path, const char *const *png_paths, size_t count,
                              unsigned delay_num, unsigned delay_den);

#ifdef __cplusplus
}
#endif

#endif /* APNG_WRITER_H */
