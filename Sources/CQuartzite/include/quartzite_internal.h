/* Internal helpers the Swift engine calls. Not installed; not exported from the
 * .so (the version script keeps only the public prefixes). */
#ifndef QUARTZITE_INTERNAL_H
#define QUARTZITE_INTERNAL_H

#include "quartzite/quartzite_types.h"

/* Swift's importer treats typedef names it knows from Apple's Core Foundation
 * family (CGColorRef, CGPathRef, CVPixelBufferRef, ...) as managed classes that
 * cannot cross @c. The engine names the same pointer types through these
 * aliases; scripts/generate-header.py prints them under Apple's names. */
typedef struct QZOpaqueCGColor *QZCGColorRef;
typedef struct QZOpaqueCGContext *QZCGContextRef;
typedef struct QZOpaqueCGColorSpace *QZCGColorSpaceRef;
typedef struct QZOpaqueCVBuffer *QZCVPixelBufferRef;
typedef struct QZOpaqueCGPath *QZCGMutablePathRef;
typedef const struct QZOpaqueCGPath *QZCGPathRef;
typedef struct QZOpaqueCVBuffer *QZCVBufferRef;
typedef struct QZOpaqueCVBuffer *QZCVImageBufferRef;
typedef struct QZOpaqueCVPixelBufferPool *QZCVPixelBufferPoolRef;
typedef const struct QZOpaqueCFAllocator *QZCFAllocatorRef;

#define QZ_ERROR_MESSAGE_CAPACITY 512

/* The calling thread's last error. C owns it because C11 has thread-locals
 * that cost one instruction to reach. */
typedef struct qz_error_state {
    int code;
    int in_handler;   /* 1 while the error handler runs: no recursion */
    char message[QZ_ERROR_MESSAGE_CAPACITY];
} qz_error_state;

qz_error_state *qz_internal_error_state(void);

/* Process-wide callbacks, swapped atomically as (fn, info) pairs. */
void qz_internal_set_error_handler(QZErrorHandlerCallback fn, void *info);
QZErrorHandlerCallback qz_internal_get_error_handler(void **info);
void qz_internal_set_time_source(QZMediaTimeSourceCallback fn, void *info);
QZMediaTimeSourceCallback qz_internal_get_time_source(void **info);

/* glibc's sincos (a GNU extension Swift's Glibc module does not show): one
 * call for both, where Swift would make two. */
void sincos(double x, double *sine, double *cosine);

/* The model lock: one recursive lock around every layer-tree mutation and
 * model read (Apple's CATransaction lock). Recursive so that callbacks may
 * call back into the library. Uncontended lock and unlock cost one atomic
 * operation each. */
void qz_internal_model_lock(void);
void qz_internal_model_unlock(void);
/* true when the calling thread holds the model lock. */
bool qz_internal_model_lock_held(void);

/* CLOCK_MONOTONIC in seconds. */
double qz_internal_monotonic_seconds(void);
/* CLOCK_MONOTONIC in nanoseconds (Core Video's host time). */
uint64_t qz_internal_monotonic_nanoseconds(void);

/* PNG through libpng (png_io.c). libpng reports errors by longjmp, which
 * Swift cannot take part in, so the C side owns every libpng call.
 * Results: 0 success, 1 the file cannot be opened or written, 2 not a PNG
 * or a damaged one, 3 the image needs more than max_bytes, 4 out of memory,
 * 5 a width or height above 2^20.
 * `message` receives a NUL-terminated description on failure. */
int qz_internal_png_read(const char *path, size_t max_bytes, uint32_t *width, uint32_t *height,
                         uint8_t **rgba, char *message, size_t capacity);
/* `rows` holds `height` rows of `width` pixels with `channels` (3: RGB,
 * 4: RGBA, straight alpha) 8-bit samples, `stride` bytes apart. */
int qz_internal_png_write(const char *path, uint32_t width, uint32_t height, const uint8_t *rows,
                          size_t stride, int channels, char *message, size_t capacity);

#endif
