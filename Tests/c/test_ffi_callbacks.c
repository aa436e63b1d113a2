/* Callbacks built at run time as libffi closures (as a dynamic-language host
 * builds them) and handed to the library: the media-time source and the error
 * handler. Also: the error state is per thread. */
#include <ffi.h>
#include <pthread.h>
#include <stdlib.h>
#include "qz_test.h"

/* MARK: - Media time source closure: CFTimeInterval (*)(void *info) */

typedef struct { double base; int calls; void *expected_info; int wrong_info; } clock_state;

static void clock_trampoline(ffi_cif *cif, void *ret, void **args, void *user_data) {
    (void)cif;
    clock_state *state = user_data;
    void *info = *(void **)args[0];
    if (info != state->expected_info) state->wrong_info++;
    state->calls++;
    *(double *)ret = state->base + state->calls * 0.5;
}

static void ffi_media_time_source(void) {
    ffi_cif cif;
    ffi_type *argtypes[] = { &ffi_type_pointer };
    void *code = NULL;
    ffi_closure *closure = ffi_closure_alloc(sizeof(ffi_closure), &code);
    CHECK(closure != NULL);
    CHECK(ffi_prep_cif(&cif, FFI_DEFAULT_ABI, 1, &ffi_type_double, argtypes) == FFI_OK);
    int token = 7;
    clock_state state = { 100.0, 0, &token, 0 };
    CHECK(ffi_prep_closure_loc(closure, &cif, clock_trampoline, &state, code) == FFI_OK);

    QZMediaTimeSourceCallback fn;
    memcpy(&fn, &code, sizeof fn);
    QZSetMediaTimeSource(fn, &token);
    CHECK(CACurrentMediaTime() == 100.5);
    CHECK(CACurrentMediaTime() == 101.0);
    CHECK(state.calls == 2 && state.wrong_info == 0);
    QZSetMediaTimeSource(NULL, NULL);
    double real = CACurrentMediaTime();
    CHECK(state.calls == 2 && real > 0 && real != 101.5);
    ffi_closure_free(closure);
    CHECK_NO_ERROR();
}

/* MARK: - Error handler closure: void (*)(QZError, const char *, void *info) */

typedef struct { int calls; int last_code; char last_message[256]; void *info_seen; int reenter; } handler_state;

static void handler_trampoline(ffi_cif *cif, void *ret, void **args, void *user_data) {
    (void)cif; (void)ret;
    handler_state *state = user_data;
    state->calls++;
    state->last_code = *(int *)args[0];
    const char *message = *(const char **)args[1];
    strncpy(state->last_message, message, sizeof state->last_message - 1);
    state->info_seen = *(void **)args[2];
    if (state->reenter) {
        /* A failing call from inside the handler is recorded, not re-reported. */
        (void)CAValueGetNumber(NULL);
    }
}

static void ffi_error_handler(void) {
    ffi_cif cif;
    ffi_type *argtypes[] = { &ffi_type_sint32, &ffi_type_pointer, &ffi_type_pointer };
    void *code = NULL;
    ffi_closure *closure = ffi_closure_alloc(sizeof(ffi_closure), &code);
    CHECK(ffi_prep_cif(&cif, FFI_DEFAULT_ABI, 3, &ffi_type_void, argtypes) == FFI_OK);
    handler_state state;
    memset(&state, 0, sizeof state);
    CHECK(ffi_prep_closure_loc(closure, &cif, handler_trampoline, &state, code) == FFI_OK);

    QZErrorHandlerCallback fn;
    memcpy(&fn, &code, sizeof fn);
    int token = 3;
    QZSetErrorHandler(fn, &token);
    CATransform3DMakeRotation(NAN, 0, 0, 1);
    CHECK(state.calls == 1);
    CHECK(state.last_code == QZErrorNotFinite);
    CHECK(strncmp(state.last_message, "CATransform3DMakeRotation:", 26) == 0);
    CHECK(state.info_seen == &token);
    CHECK(QZGetLastError() == QZErrorNotFinite);

    state.reenter = 1;
    CAValueGetString(NULL);
    CHECK(state.calls == 1 + 1);   /* the inner failure was not reported again */
    CHECK(QZGetLastError() == QZErrorNullArgument);
    state.reenter = 0;

    QZSetErrorHandler(NULL, NULL);
    CATransform3DMakeScale(NAN, 1, 1);
    CHECK(state.calls == 2);
    QZClearLastError();
    ffi_closure_free(closure);
}

/* MARK: - Per-thread error state */

static void *fail_in_thread(void *arg) {
    (void)arg;
    QZClearLastError();
    CGRectMake(NAN, 0, 0, 0);
    long ok = QZGetLastError() == QZErrorNotFinite;
    return (void *)ok;
}

static void errors_are_per_thread(void) {
    QZClearLastError();
    pthread_t threads[4];
    for (int i = 0; i < 4; i++) pthread_create(&threads[i], NULL, fail_in_thread, NULL);
    for (int i = 0; i < 4; i++) {
        void *ok = NULL;
        pthread_join(threads[i], &ok);
        CHECK(ok == (void *)1);
    }
    CHECK(QZGetLastError() == QZErrorNone);
}

int main(void) {
    RUN(ffi_media_time_source);
    RUN(ffi_error_handler);
    RUN(errors_are_per_thread);
    return qz_summary();
}
