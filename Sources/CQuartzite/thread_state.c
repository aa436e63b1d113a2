/* Thread-local error slot and the process-wide callback registrations. */
#include <pthread.h>
#include <time.h>
#include "quartzite_internal.h"

static _Thread_local qz_error_state error_state;

qz_error_state *qz_internal_error_state(void) { return &error_state; }

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
