/* The stateful fuzzer's harness, as the generated call table sees it.
 *
 * scripts/generate-fuzz-calls.py turns every function of the public header
 * into a wrapper that draws its arguments from the generators below, makes
 * the call and hands the results back (handles join the pool). Every random
 * decision goes through FZ_W: while generating it is drawn and recorded on the
 * step's tape; while replaying a tape it is read back, so a recorded sequence
 * replays exactly, and any subsequence of it replays legally (a recorded pool
 * slot holds a live handle or nothing; sizes and buffers always agree). */
#ifndef QZ_FUZZ_H
#define QZ_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <quartzite/quartzite.h>

/* One decision: drawn from `expr` and recorded, or read back from the tape. */
extern int fz_replaying;
uint64_t fz_record(uint64_t value);
uint64_t fz_next_word(void);
#define FZ_W(expr) (fz_replaying ? fz_next_word() : fz_record((uint64_t)(expr)))

uint64_t fz_rand(void);            /* the generator's stream (not recorded by itself) */
unsigned fz_pick(unsigned n);      /* fz_rand() % n */

/* A set of handle type names (QZGetTypeName's answers) a parameter accepts. */
typedef struct fz_kinds { const char *const *names; uint64_t mask; } fz_kinds;

/* Handles: a live pool handle of an accepted kind (usually), NULL, a handle of
 * another kind, or memory that is not a handle. Borrowed from the pool. */
void *fz_handle(fz_kinds *accept);
/* For a parameter that is usually NULL (an allocator, attributes, options):
 * NULL more often than not. */
void *fz_optional_handle(fz_kinds *accept);
/* For a release function: the handle and its pool slot (-1: none); after the
 * call, fz_released(slot) forgets it unless the call recorded an error. */
void *fz_handle_for_release(fz_kinds *accept, int *slot);
void fz_released(int slot);
/* A result: +1 handles join the pool as they are; +0 ones are retained first. */
void fz_result(const void *handle, bool owned);
/* An out parameter for a handle (NULL sometimes): adopted after the call. */
void *fz_out_handle(void);
void fz_adopt_out_handles(void);

/* Numbers, by the parameter's name (ranges that make sense for it, plus
 * zero, negative, huge, NaN and infinite values). */
double fz_double(const char *name);
float fz_float(const char *name);
bool fz_bool(void);
uint64_t fz_integer(const char *name, unsigned bits, bool is_signed);
size_t fz_size(const char *name);
uint32_t fz_pixel_format(void);
int64_t fz_enum(const int64_t *values, size_t count);

/* Strings: known keys and constants, key paths, garbage, empty, NULL, huge. */
const char *fz_string(const char *function, const char *name);

/* Opaque user data passed back to callbacks. */
void *fz_info(void);
/* Scratch memory for an out parameter (NULL sometimes). */
void *fz_out(size_t bytes);

/* Arrays: the element count shared by a group of array parameters. -1 means
 * the arrays are NULL and `*count` is any value (often absurd). */
long fz_array_count(size_t *count);
void *fz_scratch(size_t bytes);    /* freed after the step */

/* Results that are read to check they point at live memory. */
void fz_read_string(const char *s);
void fz_read_bytes(const void *p, size_t n);
void fz_sink(const void *p, size_t n);

/* Callbacks: they touch their arguments and return something plausible. */
void fz_cb_enter(const char *name);
void fz_cb_touch(const void *handle);
void fz_cb_touch_string(const char *s);
void fz_cb_context(void *ctx);
void *fz_cb_handle(fz_kinds *accept);      /* a borrowed pool handle or NULL */
void *fz_cb_owned_value(void);             /* a +1 CAValueRef or NULL */
double fz_cb_double(void);
bool fz_cb_bool(void);
uint64_t fz_cb_integer(void);
CFTimeInterval fz_clock(void *info);
void fz_error_handler(QZError code, const char *message, void *info);
void fz_cb_leave(void);
/* A callback pointer is used (non-NULL) with this probability, per 8. */
bool fz_use_callback(void);

/* Around the library call: the step's tape line is written (and printed)
 * before it; errors are cleared before it and read after it. */
void fz_before_call(void);
void fz_after_call(void);

/* Printing (--print): the arguments and result of each call. */
extern int fz_printing;
void fz_note(const char *fmt, ...);

/* Functions a generic rule cannot drive (raw memory, blocking). */
void fz_special_CVPixelBufferCreateWithBytes(void);
void fz_special_CVPixelBufferCreateWithPlanarBytes(void);
void fz_special_CGBitmapContextCreate(void);
void fz_special_CFRunLoopRun(void);
void fz_special_CGDataProviderCreateWithData(void);
void fz_special_CGGradientCreateWithColorComponents(void);

/* The generated table. */
typedef struct fz_function {
    const char *name;
    void (*call)(void);
    unsigned weight;
} fz_function;
extern const fz_function fz_functions[];
extern const size_t fz_function_count;
/* Interns every fz_kinds of the table (called once). */
void fz_init_kinds(void);
void fz_intern_kinds(fz_kinds *k);

#endif
