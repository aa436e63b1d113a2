/* video_writer: encodes BGRA frames into an H.264 MP4 with FFmpeg's
 * libraries (libavformat, libavcodec, libswscale). The demo compiles it only
 * when pkg-config finds them (QZ_DEMO_HAVE_FFMPEG); without them it writes
 * PNG and APNG output as before. */
#ifndef VIDEO_WRITER_H
#define VIDEO_WRITER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct VideoWriter VideoWriter;

/* Opens `path` (the container follows the extension: .mp4) for frames of
 * width x height (both even: 4:2:0 chroma) at `fps` frames per second,
 * H.264 through libx264 when FFmpeg has it (CRF 20, preset "medium"), else
 * FFmpeg's other H.264 encoder. Returns NULL and writes the reason to
 * `error` (of `error_size` bytes) on failure. */
VideoWriter *video_writer_open(const char *path, int width, int height, int fps, char *error, size_t error_size);

/* Encodes one frame of premultiplied BGRA pixels (row 0 at the top, rows
 * `bytes_per_row` apart), shown for 1/fps s. The frame's colour is
 * converted to Y'CbCr 4:2:0 (BT.601 matrix, video range, tagged so).
 * Returns 0, or -1 on failure. */
int video_writer_add_frame(VideoWriter *writer, const uint8_t *bgra, size_t bytes_per_row);

/* Flushes the encoder, writes the MP4's index and frees everything (also
 * after a failure). Returns 0, or -1 when any step failed. */
int video_writer_close(VideoWriter *writer);

#ifdef __cplusplus
}
#endif

#endif /* VIDEO_WRITER_H */
