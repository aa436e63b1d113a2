/* Counters the worker pool's batches (TileStore.parallel in TiledLayer.swift)
 * share between threads without the pool's mutex, and the short spin-waits
 * on them. Out of line, in C, so that ThreadSanitizer sees the ordering they
 * give (the pieces' pixels are read by the thread that waited). */
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include "quartzite_internal.h"

long qz_internal_counter_take(long *counter) {
    return __atomic_fetch_add(counter, 1, __ATOMIC_ACQ_REL);
}

long qz_internal_counter_load(const long *counter) {
    return __atomic_load_n(counter, __ATOMIC_ACQUIRE);
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Spins while `done(counter, value)` is false, at most `nanoseconds`. */
#define SPIN(condition)                                                              \
    do {                                                                             \
        uint64_t deadline = qz_internal_monotonic_nanoseconds() + nanoseconds;       \
        for (;;) {                                                                   \
            for (int i = 0; i < 64; i++) {                                           \
                if (condition) return true;                                          \
                cpu_relax();                                                         \
            }                                                                        \
            if (qz_internal_monotonic_nanoseconds() >= deadline) return condition;   \
        }                                                                            \
    } while (0)

bool qz_internal_spin_until_reaches(const long *counter, long target, uint64_t nanoseconds) {
    SPIN(__atomic_load_n(counter, __ATOMIC_ACQUIRE) >= target);
}

bool qz_internal_spin_while_equal(const long *counter, long seen, uint64_t nanoseconds) {
    SPIN(__atomic_load_n(counter, __ATOMIC_ACQUIRE) != seen);
}
