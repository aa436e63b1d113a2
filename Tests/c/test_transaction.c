/* Transactions and actions through the C ABI with a deterministic clock.
 * Every callback (transaction completions, custom actions, their release,
 * the layer delegate's actionForLayerForKey) is a libffi closure: the
 * completion runs exactly once after the last animation of its transaction,
 * or at the end of the turn when none was added; implicit animations follow
 * the transaction's duration and disableActions; the action search order;
 * custom actions receive key, layer and arguments; onOrderIn / onOrderOut;
 * threads committing while others read presentation layers never show a
 * half-updated frame. Valgrind checks that actions and their info are freed. */
#include <ffi.h>
#include <pthread.h>
#include <stdlib.h>
#include "qz_test.h"

static double now_seconds;
static double fake_clock(void *info) { (void)info; return now_seconds; }

/* MARK: - libffi closures */

typedef struct {
    int completions, runs, releases, delegate_calls;
    char keys[8][32];
    CALayerRef layers[8];
    double arguments[8];
    CAActionRef answer;   /* what the delegate answers */
} call_log;

static void completion_trampoline(ffi_cif *cif, void *ret, void **args, void *user) {
    (void)cif; (void)ret; (void)args;
    ((call_log *)user)->completions++;
}

static void action_trampoline(ffi_cif *cif, void *ret, void **args, void *user) {
    (void)cif; (void)ret;
    call_log *log = user;
    int i = log->runs++;
    if (i < 8) {
        snprintf(log->keys[i], sizeof log->keys[i], "%s", *(const char **)args[0]);
        log->layers[i] = *(CALayerRef *)args[1];
        CAValueRef a = *(CAValueRef *)args[2];
        log->arguments[i] = a ? CAValueGetNumber(a) : -1;
    }
}

static void release_trampoline(ffi_cif *cif, void *ret, void **args, void *user) {
    (void)cif; (void)ret; (void)args;
    ((call_log *)user)->releases++;
}

static void delegate_trampoline(ffi_cif *cif, void *ret, void **args, void *user) {
    (void)cif; (void)args;
    call_log *log = user;
    log->delegate_calls++;
    *(CAActionRef *)ret = log->answer;
}

typedef struct {
    ffi_closure *closure;
    ffi_cif cif;
    ffi_type *args[4];
    void *code;
} ffi_fn;

static void make_fn(ffi_fn *f, int nargs, ffi_type *result,
                    void (*body)(ffi_cif *, void *, void **, void *), void *user) {
    for (int i = 0; i < nargs; i++) f->args[i] = &ffi_type_pointer;
    f->closure = ffi_closure_alloc(sizeof(ffi_closure), &f->code);
    ffi_prep_cif(&f->cif, FFI_DEFAULT_ABI, (unsigned)nargs, result, f->args);
    ffi_prep_closure_loc(f->closure, &f->cif, body, user, f->code);
}

typedef struct {
    ffi_fn completion, action, release, delegate;
    CATransactionCompletionCallback completion_fn;
    CAActionCallback action_fn;
    CAActionReleaseCallback release_fn;
    CALayerDelegateCallbacks delegate_table;
} closures;

static void make_closures(closures *c, call_log *log) {
    memset(c, 0, sizeof *c);
    make_fn(&c->completion, 1, &ffi_type_void, completion_trampoline, log);
    make_fn(&c->action, 4, &ffi_type_void, action_trampoline, log);
    make_fn(&c->release, 1, &ffi_type_void, release_trampoline, log);
    make_fn(&c->delegate, 3, &ffi_type_pointer, delegate_trampoline, log);
    memcpy(&c->completion_fn, &c->completion.code, sizeof c->completion.code);
    memcpy(&c->action_fn, &c->action.code, sizeof c->action.code);
    memcpy(&c->release_fn, &c->release.code, sizeof c->release.code);
    memcpy(&c->delegate_table.actionForLayerForKey, &c->delegate.code, sizeof c->delegate.code);
}

static void free_closures(closures *c) {
    ffi_closure_free(c->completion.closure);
    ffi_closure_free(c->action.closure);
    ffi_closure_free(c->release.closure);
    ffi_closure_free(c->delegate.closure);
}

/* A layer whose creation is committed (so that its changes animate). */
static CALayerRef committed_layer(void) {
    CALayerRef l = CALayerCreate();
    CALayerSetBounds(l, CGRectMake(0, 0, 10, 10));
    CATransactionFlush();
    return l;
}

static double presented_x(CALayerRef layer) {
    CALayerRef p = CALayerCopyPresentationLayer(layer);
    double x = CALayerGetPosition(p).x;
    CARelease(p);
    return x;
}

static CAValueRef dictionary1(const char *key, const void *object) {
    CAValueRef v = CAValueCreateWithObject(object);
    const char *keys[] = { key };
    CAValueRef values[] = { v };
    CAValueRef d = CAValueCreateDictionary(keys, values, 1);
    CARelease(v);
    return d;
}

/* MARK: - Tests */

static void scopes_and_errors(void) {
    CATransactionCommit();                          CHECK_ERROR(QZErrorInvalidState);
    CATransactionUnlock();                          CHECK_ERROR(QZErrorInvalidState);
    CATransactionLock(); CATransactionLock(); CATransactionUnlock(); CATransactionUnlock();
    CHECK_NO_ERROR();
    CHECK(CATransactionGetAnimationDuration() == 0.25);

    CAValueRef one = CAValueCreateNumber(1), two = CAValueCreateNumber(2);
    CATransactionBegin();
    CATransactionSetValueForKey("custom", one);
    CATransactionSetAnimationDuration(2);
    CATransactionBegin();
    CATransactionSetValueForKey("custom", two);
    CAValueRef v = CATransactionCopyValueForKey("custom");
    CHECK(v && CAValueGetNumber(v) == 2); CARelease(v);
    CHECK(CATransactionGetAnimationDuration() == 2);
    CATransactionCommit();
    v = CATransactionCopyValueForKey("custom");
    CHECK(v && CAValueGetNumber(v) == 1); CARelease(v);
    v = CATransactionCopyValueForKey(kCATransactionAnimationDuration);
    CHECK(v && CAValueGetNumber(v) == 2); CARelease(v);
    CATransactionCommit();
    CHECK(CATransactionCopyValueForKey("custom") == NULL);
    CATransactionSetAnimationDuration(NAN);         CHECK_ERROR(QZErrorNotFinite);
    CATransactionSetValueForKey(NULL, one);         CHECK_ERROR(QZErrorNullArgument);
    CAValueRef text = CAValueCreateString("yes");
    CATransactionSetValueForKey(kCATransactionDisableActions, text); CHECK_ERROR(QZErrorWrongType);
    CARelease(text);
    CARelease(one); CARelease(two);
    CATransactionFlush();
}

static void implicit_animations_and_completion(void) {
    call_log log; memset(&log, 0, sizeof log);
    closures c; make_closures(&c, &log);
    QZSetMediaTimeSource(fake_clock, NULL);
    now_seconds = 50;

    CALayerRef fresh = CALayerCreate();
    CALayerSetPosition(fresh, CGPointMake(3, 3));
    CHECK(CALayerGetAnimation(fresh, "position") == NULL);     /* created in this transaction */
    CATransactionFlush();

    CALayerRef l = committed_layer();
    CAMediaTimingFunctionRef linear = CAMediaTimingFunctionCreateWithName(kCAMediaTimingFunctionLinear);
    CATransactionBegin();
    CATransactionSetAnimationDuration(2);
    CATransactionSetAnimationTimingFunction(linear);
    CATransactionSetCompletionBlock(c.completion_fn, &log);
    CALayerSetPosition(l, CGPointMake(100, 0));
    CHECK(CALayerGetPosition(l).x == 100);                     /* the model at once */
    CHECK_NEAR(presented_x(l), 0, 0);                          /* readers: the committed state */
    CAAnimationRef a = CALayerGetAnimation(l, "position");
    CHECK(a != NULL && CAAnimationGetDuration(a) == 2);
    CHECK(CAAnimationGetTimingFunction(a) == linear);
    CATransactionCommit();
    now_seconds = 51;
    CHECK_NEAR(presented_x(l), 50, 1e-9);                      /* halfway, linear */
    QZAnimationProcessEvents();
    CHECK(log.completions == 0);
    now_seconds = 52.5;
    QZAnimationProcessEvents();
    CHECK(log.completions == 1);
    QZAnimationProcessEvents();
    CHECK(log.completions == 1);                               /* exactly once */

    /* disableActions: no animation; a completion with none added runs at the end of the turn. */
    CATransactionBegin();
    CATransactionSetDisableActions(true);
    CATransactionSetCompletionBlock(c.completion_fn, &log);
    CALayerSetPosition(l, CGPointMake(7, 0));
    CALayerSetOpacity(l, 0.5f);
    CATransactionCommit();
    CHECK(CALayerCopyAnimationKeys(l) == NULL);
    CHECK_NEAR(presented_x(l), 7, 0);
    CHECK(log.completions == 1);
    QZAnimationProcessEvents();
    CHECK(log.completions == 2);

    /* The implicit transaction: committed by the turn (QZAnimationProcessEvents) and by flush. */
    CATransactionSetDisableActions(true);
    CALayerSetPosition(l, CGPointMake(8, 0));
    CHECK_NEAR(presented_x(l), 7, 0);
    QZAnimationProcessEvents();
    CHECK_NEAR(presented_x(l), 8, 0);
    CATransactionSetDisableActions(true);
    CALayerSetPosition(l, CGPointMake(9, 0));
    CATransactionFlush();
    CHECK_NEAR(presented_x(l), 9, 0);

    CHECK_NO_ERROR();
    CARelease(linear);
    CARelease(l);
    CARelease(fresh);
    QZSetMediaTimeSource(NULL, NULL);
    free_closures(&c);
}

static void action_search_and_custom_actions(void) {
    call_log log; memset(&log, 0, sizeof log);
    closures c; make_closures(&c, &log);
    CALayerRef l = committed_layer();

    CAActionRef custom = CAActionCreateWithRelease(c.action_fn, &log, c.release_fn);
    CHECK(strcmp(QZGetTypeName(custom), "CAAction") == 0);

    /* Implicit animation for an animatable property, nothing for others. */
    CAActionRef implicit = CALayerGetActionForKey(l, "opacity");
    CHECK(implicit && strcmp(QZGetTypeName(implicit), "CABasicAnimation") == 0);
    CHECK(CALayerGetActionForKey(l, "name") == NULL);

    /* The actions dictionary. */
    CAValueRef actions = dictionary1("opacity", custom);
    CALayerSetActions(l, actions);
    CARelease(actions);
    CHECK(CALayerGetActionForKey(l, "opacity") == custom);

    /* The delegate first: NULL continues, QZActionNull stops, an action wins. */
    CALayerSetDelegate(l, &c.delegate_table, &log);
    log.answer = NULL;
    CHECK(CALayerGetActionForKey(l, "opacity") == custom);
    log.answer = QZActionNull();
    CHECK(CALayerGetActionForKey(l, "opacity") == NULL);
    CAAnimationRef fade = CABasicAnimationCreate("opacity");
    log.answer = (CAActionRef)fade;
    CHECK(CALayerGetActionForKey(l, "opacity") == (CAActionRef)fade);
    CHECK(log.delegate_calls == 3);

    /* An animation answered by the delegate is added under the key when the property changes. */
    CALayerSetOpacity(l, 0.25f);
    CHECK(CALayerGetAnimation(l, "opacity") != NULL && CALayerGetAnimation(l, "opacity") != fade);
    log.answer = NULL;

    /* The custom action runs for the property change: key, layer, no arguments. */
    CALayerSetOpacity(l, 0.5f);
    CHECK(log.runs == 1 && strcmp(log.keys[0], "opacity") == 0 && log.layers[0] == l && log.arguments[0] == -1);

    /* CAActionRunForKey with arguments. */
    CAValueRef args = CAValueCreateNumber(42);
    CAActionRunForKey(custom, "custom", l, args);
    CARelease(args);
    CHECK(log.runs == 2 && strcmp(log.keys[1], "custom") == 0 && log.layers[1] == l && log.arguments[1] == 42);
    CAActionRunForKey(NULL, "custom", l, NULL);          CHECK_ERROR(QZErrorNullArgument);
    CAActionRunForKey((CAActionRef)(void *)l, "x", l, NULL); CHECK_ERROR(QZErrorWrongType);
    CHECK(CAActionCreate(NULL, NULL) == NULL);           CHECK_ERROR(QZErrorNullArgument);

    /* onOrderIn / onOrderOut. */
    CALayerSetDelegate(l, NULL, NULL);
    const char *keys[] = { kCAOnOrderIn, kCAOnOrderOut };
    CAValueRef v = CAValueCreateWithObject(custom);
    CAValueRef values[] = { v, v };
    CAValueRef order = CAValueCreateDictionary(keys, values, 2);
    CARelease(v);
    CALayerRef parent = committed_layer();
    CALayerSetActions(l, order);
    CARelease(order);
    CALayerAddSublayer(parent, l);
    CALayerSetHidden(l, true);
    CALayerSetHidden(l, false);
    CALayerRemoveFromSuperlayer(l);
    CHECK(log.runs == 6);
    CHECK(strcmp(log.keys[2], "onOrderIn") == 0 && strcmp(log.keys[3], "onOrderOut") == 0);
    CHECK(strcmp(log.keys[4], "onOrderIn") == 0 && strcmp(log.keys[5], "onOrderOut") == 0);

    CHECK_NO_ERROR();
    CARelease(fade);
    CARelease(custom);                                   /* the layer's actions still hold it */
    CHECK(log.releases == 0);
    CARelease(l);
    CHECK(log.releases == 1);                            /* freed with the dictionary */
    CARelease(parent);
    CATransactionFlush();
    free_closures(&c);
}

/* MARK: - Threads */

typedef struct { CALayerRef layer; int torn; } thread_box;

static void *writer(void *p) {
    thread_box *b = p;
    for (int i = 1; i <= 2000; i++) {
        double w = i % 89 + 1;
        CATransactionBegin();
        CATransactionSetDisableActions(true);
        CALayerSetFrame(b->layer, CGRectMake(0, 0, w, w));
        CATransactionCommit();
        CATransactionBegin();
        CATransactionSetDisableActions(true);
        CALayerSetBounds(b->layer, CGRectMake(0, 0, 2 * w, 2 * w));
        CALayerSetPosition(b->layer, CGPointMake(w, w));
        CATransactionCommit();
    }
    return NULL;
}

static void *reader(void *p) {
    thread_box *b = p;
    for (int i = 0; i < 3000; i++) {
        CALayerRef pres = CALayerCopyPresentationLayer(b->layer);
        CGRect f = CALayerGetFrame(pres);
        if (f.origin.x != 0 || f.origin.y != 0) b->torn++;
        CARelease(pres);
    }
    return NULL;
}

static void commits_are_atomic_across_threads(void) {
    enum { N = 3 };
    thread_box boxes[N];
    pthread_t threads[2 * N];
    CALayerRef root = CALayerCreate();
    for (int i = 0; i < N; i++) {
        boxes[i].layer = CALayerCreate();
        boxes[i].torn = 0;
        CALayerSetFrame(boxes[i].layer, CGRectMake(0, 0, 1, 1));
        CALayerAddSublayer(root, boxes[i].layer);
    }
    CATransactionFlush();
    for (int i = 0; i < N; i++) {
        pthread_create(&threads[2 * i], NULL, writer, &boxes[i]);
        pthread_create(&threads[2 * i + 1], NULL, reader, &boxes[i]);
    }
    for (int i = 0; i < 2 * N; i++) pthread_join(threads[i], NULL);
    for (int i = 0; i < N; i++) {
        CHECK(boxes[i].torn == 0);
        CHECK_NEAR(presented_x(boxes[i].layer), 2000 % 89 + 1, 0);
        CARelease(boxes[i].layer);
    }
    CARelease(root);
    CHECK_NO_ERROR();
}

int main(void) {
    RUN(scopes_and_errors);
    RUN(implicit_animations_and_completion);
    RUN(action_search_and_custom_actions);
    RUN(commits_are_atomic_across_threads);
    return qz_summary();
}
