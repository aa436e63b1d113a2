/* What the fuzzer's harness and driver share beyond fuzz.h. */
#ifndef QZ_FUZZ_INTERNAL_H
#define QZ_FUZZ_INTERNAL_H

#include "fuzz.h"

#define FZ_SLOTS 192       /* live handles the fuzzer owns (+1 each) */
#define FZ_MAX_RESULTS 2   /* handles one call may return (result, out parameter) */

/* The step being made or replayed: its function and its recorded words. */
typedef struct fz_step {
    const char *name;
    uint64_t *words;
    size_t count, capacity, read;
    uint64_t callback_seed;
    int in_call;
    const char *callback;   /* the callback running, if any */
    unsigned long callbacks;
} fz_step;
extern fz_step fz_current;

extern void *fz_pool[FZ_SLOTS];
extern int fz_pool_kind[FZ_SLOTS];
extern double fz_now;
extern char fz_temp_dir[];
extern long fz_errors_reported;

void fz_seed(uint64_t seed);
const char *fz_notes(void);   /* the arguments noted for printing (then cleared) */
void fz_step_prepare(void);
void fz_step_cleanup(void);
int fz_kind_of(const void *handle);
const char *fz_kind_name(int kind);
void fz_pool_put(unsigned slot, void *handle, int kind);
void fz_advance_clock(double dt);
__attribute__((noreturn, format(printf, 1, 2))) void fz_fail(const char *fmt, ...);

#endif
