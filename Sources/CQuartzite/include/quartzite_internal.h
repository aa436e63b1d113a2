/* Internal helpers the Swift engine calls. Not installed; not exported from the
 * .so (the version script keeps only the public prefixes). */
#ifndef QUARTZITE_INTERNAL_H
#define QUARTZITE_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
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
typedef struct QZOpaqueCFRunLoop *QZCFRunLoopRef;
typedef struct QZOpaqueCFRunLoopTimer *QZCFRunLoopTimerRef;
typedef struct QZOpaqueCGImage *QZCGImageRef;
typedef struct QZOpaqueCGDataProvider *QZCGDataProviderRef;
typedef struct QZOpaqueCGGradient *QZCGGradientRef;
typedef const struct QZOpaqueCFAttributedString *QZCFAttributedStringRef;
typedef struct QZOpaqueCFAttributedString *QZCFMutableAttributedStringRef;
typedef const struct QZOpaqueCTFont *QZCTFontRef;
typedef const struct QZOpaqueCTLine *QZCTLineRef;
typedef const struct QZOpaqueCTFramesetter *QZCTFramesetterRef;
typedef const struct QZOpaqueCTFrame *QZCTFrameRef;

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

/* CATransform3DConcat (transform_concat.c): the export itself, named for
 * Swift (the Quartzite module's CATransform3DConcat calls it), the portable
 * body whatever the CPU, and whether the export runs the AVX body. */
CATransform3D qz_internal_concat(CATransform3D a, CATransform3D b) __asm__("CATransform3DConcat");
CATransform3D qz_internal_concat_portable(CATransform3D a, CATransform3D b);
bool qz_internal_concat_has_avx(void);

/* glibc's sincos (a GNU extension Swift's Glibc module does not show): one
 * call for both, where Swift would make two. */
void sincos(double x, double *sine, double *cosine);

/* The model lock: one recursive lock around every layer-tree mutation and
 * model read (Apple's CATransaction lock). Recursive so that callbacks may
 * call back into the library. Uncontended lock and unlock cost one atomic
 * operation each. */
/* The uncontended paths are inline (every setter and getter takes the
 * lock: a call with its frame cost as much as the atomic operation). */
extern _Atomic(uintptr_t) qz_internal_model_owner;
extern unsigned qz_internal_model_depth;
extern _Thread_local char qz_internal_thread_token __attribute__((tls_model("initial-exec")));
void qz_internal_model_lock_contended(void);

/* The calling thread's transaction state (the model's ThreadTransactions),
 * unretained: the owning reference is the value of the model's pthread key,
 * released when the thread ends. Every property change reads it, so it is a
 * thread-local load rather than a call to pthread_getspecific. */
extern _Thread_local void *qz_internal_thread_transactions __attribute__((tls_model("initial-exec")));
static inline __attribute__((always_inline)) void *qz_internal_current_transactions(void) {
    return qz_internal_thread_transactions;
}
static inline __attribute__((always_inline)) void qz_internal_set_current_transactions(void *t) {
    qz_internal_thread_transactions = t;
}

static inline __attribute__((always_inline)) void qz_internal_model_lock(void) {
    uintptr_t self = (uintptr_t)&qz_internal_thread_token;
    if (atomic_load_explicit(&qz_internal_model_owner, memory_order_relaxed) == self) {
        qz_internal_model_depth++;
        return;
    }
    uintptr_t expected = 0;
    if (__builtin_expect(atomic_compare_exchange_strong_explicit(&qz_internal_model_owner, &expected, self,
                                                                 memory_order_acquire, memory_order_relaxed), 1)) {
        qz_internal_model_depth = 1;
        return;
    }
    qz_internal_model_lock_contended();
}

static inline __attribute__((always_inline)) void qz_internal_model_unlock(void) {
    if (--qz_internal_model_depth == 0) atomic_store_explicit(&qz_internal_model_owner, 0, memory_order_release);
}
/* true when the calling thread holds the model lock. */
bool qz_internal_model_lock_held(void);
/* Takes the model lock if it is free or already held by this thread (then
 * true: unlock as usual); false, without waiting, when another thread has it. */
bool qz_internal_model_trylock(void);
/* Releases the model lock entirely when the calling thread holds it and
 * returns the depth it held (0 when it did not hold it), so that a thread
 * may wait for others that need the lock (tile drawing); resume takes it
 * back at that depth (nothing for 0). */
unsigned qz_internal_model_suspend(void);
void qz_internal_model_resume(unsigned depth);

/* A hint to bring the cache line holding `p` in (the presentation walk
 * fetches the next layers' model, animations and copies ahead of use). */
static inline void qz_internal_prefetch(const void *p) { __builtin_prefetch(p, 0, 3); }
static inline void qz_internal_prefetch_l2(const void *p) { __builtin_prefetch(p, 0, 2); }

/* Counts forgotten animation plans: a layer's plan block (PlanBlock.swift)
 * records the count it was made at and is made again once the count moved.
 * Read and written under the model lock. */
extern uint64_t qz_internal_plan_generation;

/* The worker pool's counters (pool_sync.c): take returns the value before
 * adding one (acquire and release), load reads with acquire. The spins wait
 * (pausing the core, not sleeping) at most `nanoseconds` until the counter
 * reaches `target` / differs from `seen`, and return whether it did. */
long qz_internal_counter_take(long *counter);
long qz_internal_counter_load(const long *counter);
bool qz_internal_spin_until_reaches(const long *counter, long target, uint64_t nanoseconds);
bool qz_internal_spin_while_equal(const long *counter, long seen, uint64_t nanoseconds);

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

/* PNG and JPEG images in memory (image_codecs.c), for CGImageCreateWith...
 * DataProvider. Results as above (no 1: nothing is opened); PNG gives 8-bit
 * straight-alpha RGBA rows, JPEG opaque BGRA (B, G, R, 255) rows. */
int qz_internal_png_decode(const uint8_t *data, size_t size, size_t max_bytes, uint32_t *width, uint32_t *height,
                           uint8_t **rgba, char *message, size_t capacity);
int qz_internal_jpeg_decode(const uint8_t *data, size_t size, size_t max_bytes, uint32_t *width, uint32_t *height,
                            uint8_t **bgra, char *message, size_t capacity);

/* The run loop's wait port (run_loop_port.c): an epoll set holding an eventfd
 * (wake-ups) and a timerfd (the next deadline on CLOCK_MONOTONIC). */
typedef struct qz_wait_port { int epoll_fd, event_fd, timer_fd; } qz_wait_port;
/* 0 on success; -1 (all descriptors closed) when the kernel refuses one. */
int qz_internal_wait_port_open(qz_wait_port *port);
void qz_internal_wait_port_close(qz_wait_port *port);
/* Makes the port readable (any thread). */
void qz_internal_wait_port_signal(int event_fd);
/* Consumes pending wake-ups and timer expirations. */
void qz_internal_wait_port_drain(const qz_wait_port *port);
/* Arms the timerfd for an absolute CLOCK_MONOTONIC time; infinity or NaN disarms. */
void qz_internal_wait_port_arm(const qz_wait_port *port, double monotonic_deadline);
/* Waits up to timeout_seconds (infinity: forever) for the port to become
 * readable: 1 readable, 0 timed out or interrupted, -1 error. */
int qz_internal_wait_port_wait(const qz_wait_port *port, double timeout_seconds);
int qz_internal_wait_port_is_readable(const qz_wait_port *port);
/* The kernel's id of the calling thread, and the process id (the id of the
 * process's main thread). */
int32_t qz_internal_thread_id(void);
int32_t qz_internal_process_id(void);

#endif
