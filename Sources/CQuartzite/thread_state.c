/* Thread-local error slot and the process-wide callback registrations. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
#include "quartzite_internal.h"

static _Thread_local qz_error_state error_state;

qz_error_state *qz_internal_error_state(void) { return &error_state; }

uint64_t qz_internal_plan_generation = 1;

static pthread_mutex_t callbacks_lock = PTHREAD_MUTEX_INITIALIZER;
static QZErrorHandlerCallback error_handler;
static void *error_handler_info;
static QZMediaTimeSourceCallback time_source;
static void *time_source_info;

void qz_internal_set_error_handler(QZErrorHandlerCallback fn, void *info) {
    pthread_mutex_lock(&callbacks_lock);
    error_handler = fn;
    error_handler_info = fn ? info : NULL;
    pthread_mutex_unlock(&callbacks_lock);
}

QZErrorHandlerCallback qz_internal_get_error_handler(void **info) {
    pthread_mutex_lock(&callbacks_lock);
    QZErrorHandlerCallback fn = error_handler;
    *info = error_handler_info;
    pthread_mutex_unlock(&callbacks_lock);
    return fn;
}

void qz_internal_set_time_source(QZMediaTimeSourceCallback fn, void *info) {
    pthread_mutex_lock(&callbacks_lock);
    time_source = fn;
    time_source_info = fn ? info : NULL;
    pthread_mutex_unlock(&callbacks_lock);
}

QZMediaTimeSourceCallback qz_internal_get_time_source(void **info) {
    pthread_mutex_lock(&callbacks_lock);
    QZMediaTimeSourceCallback fn = time_source;
    *info = time_source_info;
    pthread_mutex_unlock(&callbacks_lock);
    return fn;
}

double qz_internal_monotonic_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

uint64_t qz_internal_monotonic_nanoseconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* MARK: - The model lock */

/* (The uncontended lock and unlock are inline in quartzite_internal.h.) */
_Atomic(uintptr_t) qz_internal_model_owner;   /* address of the owner's thread token, 0 when free */
unsigned qz_internal_model_depth;             /* only touched by the owner */
/* Its address identifies the thread. initial-exec: one byte of static TLS
 * spares every lock a call to __tls_get_addr. */
_Thread_local char qz_internal_thread_token __attribute__((tls_model("initial-exec")));
_Thread_local void *qz_internal_thread_transactions __attribute__((tls_model("initial-exec")));

void qz_internal_model_lock_contended(void) {
    uintptr_t self = (uintptr_t)&qz_internal_thread_token;
    for (unsigned spins = 0;; spins++) {
        uintptr_t expected = 0;
        if (atomic_compare_exchange_weak_explicit(&qz_internal_model_owner, &expected, self,
                                                  memory_order_acquire, memory_order_relaxed)) break;
        /* Contention is rare (commits and tree edits are short): spin briefly,
         * then yield, then sleep. sched_yield alone can starve the holder
         * where the scheduler is unfair: under valgrind's default scheduler
         * lock (one thread runs at a time, and a yielding thread may take the
         * lock straight back) and on oversubscribed machines. A sleeping
         * waiter cannot. */
        if (spins > 256) {
            struct timespec pause = { 0, 50000 };   /* 50 us */
            nanosleep(&pause, NULL);
        } else if (spins > 64) {
            sched_yield();
        }
    }
    qz_internal_model_depth = 1;
}

bool qz_internal_model_trylock(void) {
    uintptr_t self = (uintptr_t)&qz_internal_thread_token;
    if (atomic_load_explicit(&qz_internal_model_owner, memory_order_relaxed) == self) {
        qz_internal_model_depth++;
        return true;
    }
    uintptr_t expected = 0;
    if (!atomic_compare_exchange_strong_explicit(&qz_internal_model_owner, &expected, self,
                                                 memory_order_acquire, memory_order_relaxed)) return false;
    qz_internal_model_depth = 1;
    return true;
}

unsigned qz_internal_model_suspend(void) {
    if (atomic_load_explicit(&qz_internal_model_owner, memory_order_relaxed) != (uintptr_t)&qz_internal_thread_token) return 0;
    unsigned depth = qz_internal_model_depth;
    qz_internal_model_depth = 0;
    atomic_store_explicit(&qz_internal_model_owner, 0, memory_order_release);
    return depth;
}

void qz_internal_model_resume(unsigned depth) {
    if (depth == 0) return;
    qz_internal_model_lock();
    qz_internal_model_depth = depth;
}

bool qz_internal_model_lock_held(void) {
    return atomic_load_explicit(&qz_internal_model_owner, memory_order_relaxed) == (uintptr_t)&qz_internal_thread_token;
}
