/* Animations through the C ABI with a deterministic clock: the animation
 * delegate built from libffi closures receives animationDidStart and
 * animationDidStop exactly once each, with `finished` right for an animation
 * that runs to its end, one that is removed early and one that is replaced
 * under the same key; presentation values, also of a 300-layer animated tree
 * whose animations change between frames; bad input. Valgrind checks that
 * animations, copies, plan blocks and delegates are freed (release called once). */
#include <ffi.h>
#include <stdlib.h>
#include "qz_test.h"

static double now_seconds;
static double fake_clock(void *info) { (void)info; return now_seconds; }

typedef struct { int starts, stops, finished_stops, releases; CAAnimationRef last; } anim_log;

static void start_trampoline(ffi_cif *cif, void *ret, void **args, void *user) {
    (void)cif; (void)ret;
    anim_log *log = user;
    log->starts++;
    log->last = *(CAAnimationRef *)args[0];
}

static void stop_trampoline(ffi_cif *cif, void *ret, void **args, void *user) {
    (void)cif; (void)ret;
    anim_log *log = user;
    log->stops++;
    if (*(bool *)args[1]) log->finished_stops++;
    log->last = *(CAAnimationRef *)args[0];
}

static void release_trampoline(ffi_cif *cif, void *ret, void **args, void *user) {
    (void)cif; (void)ret; (void)args;
    ((anim_log *)user)->releases++;
}

typedef struct {
    ffi_closure *start, *stop, *release;
    ffi_cif start_cif, stop_cif, release_cif;
    ffi_type *start_args[2], *stop_args[3], *release_args[1];
    CAAnimationDelegateCallbacks table;
} ffi_delegate;

static void make_delegate(ffi_delegate *d, anim_log *log) {
    void *code;
    d->start_args[0] = &ffi_type_pointer; d->start_args[1] = &ffi_type_pointer;
    d->stop_args[0] = &ffi_type_pointer; d->stop_args[1] = &ffi_type_uint8; d->stop_args[2] = &ffi_type_pointer;
    d->release_args[0] = &ffi_type_pointer;
    memset(&d->table, 0, sizeof d->table);

    d->start = ffi_closure_alloc(sizeof(ffi_closure), &code);
    ffi_prep_cif(&d->start_cif, FFI_DEFAULT_ABI, 2, &ffi_type_void, d->start_args);
    ffi_prep_closure_loc(d->start, &d->start_cif, start_trampoline, log, code);
    memcpy(&d->table.animationDidStart, &code, sizeof code);

    d->stop = ffi_closure_alloc(sizeof(ffi_closure), &code);
    ffi_prep_cif(&d->stop_cif, FFI_DEFAULT_ABI, 3, &ffi_type_void, d->stop_args);
    ffi_prep_closure_loc(d->stop, &d->stop_cif, stop_trampoline, log, code);
    memcpy(&d->table.animationDidStop, &code, sizeof code);

    d->release = ffi_closure_alloc(sizeof(ffi_closure), &code);
    ffi_prep_cif(&d->release_cif, FFI_DEFAULT_ABI, 1, &ffi_type_void, d->release_args);
    ffi_prep_closure_loc(d->release, &d->release_cif, release_trampoline, log, code);
    memcpy(&d->table.release, &code, sizeof code);
}

static void free_delegate(ffi_delegate *d) {
    ffi_closure_free(d->start); ffi_closure_free(d->stop); ffi_closure_free(d->release);
}

static CAAnimationRef move_x(double from, double to, double duration) {
    CAAnimationRef a = CABasicAnimationCreate("position.x");
    CAValueRef f = CAValueCreateNumber(from), t = CAValueCreateNumber(to);
    CABasicAnimationSetFromValue(a, f);
    CABasicAnimationSetToValue(a, t);
    CAAnimationSetDuration(a, duration);
    CARelease(f); CARelease(t);
    return a;
}

static double presented_x(CALayerRef layer) {
    CALayerRef p = CALayerCopyPresentationLayer(layer);
    double x = CALayerGetPosition(p).x;
    CHECK(CALayerGetModelLayer(p) == layer);
    CARelease(p);
    return x;
}

static void delegates_hear_start_and_stop_once(void) {
    anim_log log;
    memset(&log, 0, sizeof log);
    ffi_delegate d;
    make_delegate(&d, &log);
    QZSetMediaTimeSource(fake_clock, NULL);
    now_seconds = 10;

    CALayerRef layer = CALayerCreate();
    CALayerSetPosition(layer, CGPointMake(100, 0));
    CAAnimationRef a = move_x(0, 10, 1);
    CAAnimationSetDelegate(a, &d.table, &log);
    CALayerAddAnimation(layer, a, "move");
    CARelease(a);                                  /* the layer holds a copy */
    CHECK(CALayerGetAnimation(layer, "move") != NULL);

    QZAnimationProcessEvents();
    CHECK(log.starts == 1 && log.stops == 0);
    CHECK(log.last == CALayerGetAnimation(layer, "move"));   /* the running copy */
    now_seconds = 10.5;
    CHECK_NEAR(presented_x(layer), 5, 1e-12);
    QZAnimationProcessEvents();
    CHECK(log.starts == 1 && log.stops == 0);
    now_seconds = 11.25;                           /* past the end */
    QZAnimationProcessEvents();
    CHECK(log.stops == 1 && log.finished_stops == 1);
    CHECK(CALayerGetAnimation(layer, "move") == NULL);       /* removedOnCompletion */
    CHECK_NEAR(presented_x(layer), 100, 0);
    QZAnimationProcessEvents();
    CHECK(log.starts == 1 && log.stops == 1);
    CHECK(log.releases == 1);                      /* the last copy is gone */

    /* Removed early: stop with finished = false. */
    a = move_x(0, 10, 1);
    CAAnimationSetDelegate(a, &d.table, &log);
    CALayerAddAnimation(layer, a, "move");
    QZAnimationProcessEvents();
    CHECK(log.starts == 2);
    CALayerRemoveAnimation(layer, "move");
    QZAnimationProcessEvents();
    CHECK(log.stops == 2 && log.finished_stops == 1);
    CARelease(a);
    CHECK(log.releases == 2);

    /* Replaced under the same key before it was processed: start then stop(false). */
    a = move_x(0, 10, 1);
    CAAnimationSetDelegate(a, &d.table, &log);
    CALayerAddAnimation(layer, a, "move");
    CAAnimationRef b = move_x(0, 20, 1);
    CALayerAddAnimation(layer, b, "move");
    QZAnimationProcessEvents();
    CHECK(log.starts == 3 && log.stops == 3 && log.finished_stops == 1);
    now_seconds = 11.75;
    CHECK_NEAR(presented_x(layer), 10, 1e-12);     /* b (0 to 20): added at 11.25, halfway */
    CARelease(a); CARelease(b);

    /* removedOnCompletion = false with fill forwards holds the final value. */
    CAAnimationRef hold = move_x(0, 50, 1);
    CAAnimationSetRemovedOnCompletion(hold, false);
    CAAnimationSetFillMode(hold, kCAFillModeForwards);
    CALayerAddAnimation(layer, hold, "hold");
    CATransactionFlush();                          /* it starts when its transaction commits */
    now_seconds = 20;
    QZAnimationProcessEvents();
    CHECK(CALayerGetAnimation(layer, "hold") != NULL);
    CHECK_NEAR(presented_x(layer), 50, 0);
    CAValueRef keys = CALayerCopyAnimationKeys(layer);
    CHECK(CAValueGetCount(keys) == 1 && strcmp(CAValueGetString(CAValueGetArrayItem(keys, 0)), "hold") == 0);
    CARelease(keys);
    CARelease(hold);

    CARelease(layer);
    QZAnimationProcessEvents();
    CHECK_NO_ERROR();
    QZSetMediaTimeSource(NULL, NULL);
    free_delegate(&d);
}

static void animation_properties_and_bad_input(void) {
    CAAnimationRef a = CABasicAnimationCreate("opacity");
    CHECK(strcmp(CAPropertyAnimationGetKeyPath(a), "opacity") == 0);
    CHECK(CAAnimationGetDuration(a) == 0 && CAAnimationGetSpeed(a) == 1 && CAAnimationGetRemovedOnCompletion(a));
    CHECK(strcmp(CAAnimationGetFillMode(a), kCAFillModeRemoved) == 0);
    CAAnimationSetRepeatCount(a, INFINITY);
    CHECK(isinf(CAAnimationGetRepeatCount(a)));
    CAMediaTimingFunctionRef f = CAMediaTimingFunctionCreateWithName(kCAMediaTimingFunctionEaseOut);
    CAAnimationSetTimingFunction(a, f);
    CHECK(CAAnimationGetTimingFunction(a) == f);
    CARelease(f);
    CAPropertyAnimationSetValueFunction(a, kCAValueFunctionRotateZ);
    CHECK(strcmp(CAPropertyAnimationGetValueFunction(a), "rotateZ") == 0);
    CAValueRef v = CAValueCreateNumber(7);
    CAAnimationSetValueForKey(a, "custom", v);
    CAValueRef back = CAAnimationCopyValueForKey(a, "custom");
    CHECK(CAValueGetNumber(back) == 7);
    CARelease(back);
    CHECK_NO_ERROR();

    CAAnimationSetDuration(a, NAN);                    CHECK_ERROR(QZErrorNotFinite);
    CAAnimationSetFillMode(a, "sideways");             CHECK_ERROR(QZErrorUnknownConstant);
    CAPropertyAnimationSetValueFunction(a, "spin");    CHECK_ERROR(QZErrorUnknownConstant);
    CATransitionSetType(a, kCATransitionPush);         CHECK_ERROR(QZErrorWrongType);
    CAKeyframeAnimationSetCalculationMode(a, kCAAnimationPaced); CHECK_ERROR(QZErrorWrongType);
    CABasicAnimationSetToValue(a, (CAValueRef)(void *)a); CHECK_ERROR(QZErrorWrongType);
    CALayerAddAnimation(NULL, a, "x");                 CHECK_ERROR(QZErrorNullArgument);
    CALayerAddAnimation((CALayerRef)(void *)v, a, "x"); CHECK_ERROR(QZErrorWrongType);
    CAAnimationSetDuration((CAAnimationRef)(void *)v, 1); CHECK_ERROR(QZErrorWrongType);
    CHECK(CAMediaTimingFunctionCreateWithControlPoints(-0.1f, 0, 1, 1) == NULL); CHECK_ERROR(QZErrorInvalidArgument);

    CAAnimationRef k = CAKeyframeAnimationCreate("position.x");
    CAValueRef notNumbers = CAValueCreateString("x");
    CAValueRef items[] = { notNumbers };
    CAValueRef badTimes = CAValueCreateArray(items, 1);
    CAKeyframeAnimationSetKeyTimes(k, badTimes);       CHECK_ERROR(QZErrorWrongType);
    CAKeyframeAnimationSetCalculationMode(k, "wobbly"); CHECK_ERROR(QZErrorUnknownConstant);
    CAAnimationRef g = CAAnimationGroupCreate();
    CAAnimationRef children[] = { a, k };
    CAAnimationGroupSetAnimations(g, children, 2);
    CHECK(CAAnimationGroupGetAnimationCount(g) == 2);
    CHECK(CAAnimationGroupGetAnimationAtIndex(g, 2) == NULL); CHECK_ERROR(QZErrorOutOfRange);
    CAAnimationRef t = CATransitionCreate();
    CHECK(strcmp(CATransitionGetType(t), kCATransitionFade) == 0 && CATransitionGetSubtype(t) == NULL);
    CATransitionSetSubtype(t, kCATransitionFromLeft);
    CHECK(strcmp(CATransitionGetSubtype(t), "fromLeft") == 0);
    /* Kept as given, as observed on Apple's QuartzCore (it used to be clamped to 1). */
    CATransitionSetEndProgress(t, 2);
    CHECK(CATransitionGetEndProgress(t) == 2);
    CATransitionSetStartProgress(t, 2.5f);
    CHECK(CATransitionGetStartProgress(t) == 2.5f);
    CHECK_NO_ERROR();
    CARelease(t); CARelease(g); CARelease(k); CARelease(badTimes); CARelease(notNumbers);
    CARelease(v); CARelease(a);
}

/* CAAnimationCreate (Apple's +[CAAnimation animation]): a plain animation
 * has no effect on the layer but its delegate hears start and stop; in a
 * group it is held as given (observed on Apple's QuartzCore: a group holds
 * the very animations it was given and its copies share them), so the group
 * the layer runs has the same child object. Valgrind checks that nothing leaks. */
static void plain_animations_and_shared_group_children(void) {
    anim_log log;
    memset(&log, 0, sizeof log);
    ffi_delegate d;
    make_delegate(&d, &log);
    QZSetMediaTimeSource(fake_clock, NULL);
    now_seconds = 30;

    CALayerRef layer = CALayerCreate();
    CALayerSetOpacity(layer, 0.5f);
    CATransactionFlush();
    CAAnimationRef plain = CAAnimationCreate();
    CHECK(plain != NULL && strcmp(QZGetTypeName(plain), "CAAnimation") == 0);
    CHECK(CAAnimationGetDuration(plain) == 0 && CAAnimationGetSpeed(plain) == 1);
    CAPropertyAnimationSetKeyPath(plain, "opacity");   CHECK_ERROR(QZErrorWrongType);
    CAAnimationSetDuration(plain, 1);
    CAAnimationSetDelegate(plain, &d.table, &log);
    CALayerAddAnimation(layer, plain, "timer");
    CATransactionFlush();
    now_seconds = 30.5;
    QZAnimationProcessEvents();
    CHECK(log.starts == 1 && log.stops == 0);
    CALayerRef p = CALayerCopyPresentationLayer(layer);
    CHECK(CALayerGetOpacity(p) == 0.5f);                /* no effect */
    CARelease(p);
    now_seconds = 31.5;
    QZAnimationProcessEvents();
    CHECK(log.stops == 1 && log.finished_stops == 1 && CALayerGetAnimation(layer, "timer") == NULL);

    /* A group holds the very animations given; the layer's copy shares them. */
    CAAnimationRef fade = CABasicAnimationCreate("opacity");
    CAAnimationRef group = CAAnimationGroupCreate();
    CAAnimationRef children[] = { fade, plain };
    CAAnimationGroupSetAnimations(group, children, 2);
    CHECK(CAAnimationGroupGetAnimationAtIndex(group, 0) == fade);
    CHECK(CAAnimationGroupGetAnimationAtIndex(group, 1) == plain);
    CALayerAddAnimation(layer, group, "group");
    CAAnimationRef running = CALayerGetAnimation(layer, "group");
    CHECK(running != NULL && running != group);
    CHECK(CAAnimationGroupGetAnimationAtIndex(running, 0) == fade);
    /* A group that would contain itself is refused. */
    CAAnimationRef outer = CAAnimationGroupCreate();
    CAAnimationRef inner[] = { group };
    CAAnimationGroupSetAnimations(outer, inner, 1);
    CHECK_NO_ERROR();
    CAAnimationRef loop[] = { fade, outer };
    CAAnimationGroupSetAnimations(group, loop, 2);     CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(CAAnimationGroupGetAnimationCount(group) == 2 && CAAnimationGroupGetAnimationAtIndex(group, 1) == plain);
    CAAnimationGroupSetAnimations(group, inner, 1);    CHECK_ERROR(QZErrorInvalidArgument);

    CARelease(outer); CARelease(group); CARelease(fade); CARelease(plain);
    CARelease(layer);
    QZAnimationProcessEvents();
    CHECK(log.releases == 1);
    CHECK_NO_ERROR();
    QZSetMediaTimeSource(NULL, NULL);
    free_delegate(&d);
}

/* Adds a 1-second CABasicAnimation of `key_path` from `from` to `to` under `key`. */
static void add_basic(CALayerRef layer, const char *key_path, CAValueRef from, CAValueRef to, const char *key) {
    CAAnimationRef a = CABasicAnimationCreate(key_path);
    CAAnimationSetDuration(a, 1);
    CABasicAnimationSetFromValue(a, from);
    CABasicAnimationSetToValue(a, to);
    CALayerAddAnimation(layer, a, key);
    CARelease(a);
}

/* A tree of 300 animated layers (enough for the presentation walk's
 * prefetching and the released root's pass): every frame shows the same
 * values as the hand-computed ones; an animation changed through the layer's
 * own copy, a removed one and a keyframe animation beside basic ones are
 * followed; a sublayer copy held past its root's release loses its
 * superlayer. Valgrind checks that the layers' plan blocks are freed. */
static void a_large_tree_presents_and_follows_changes(void) {
    enum { N = 300 };
    QZSetMediaTimeSource(fake_clock, NULL);
    now_seconds = 100;
    CALayerRef root = CALayerCreate();
    CAValueRef zero = CAValueCreateNumber(0), one = CAValueCreateNumber(1);
    CAValueRef identity = CAValueCreateTransform3D(CATransform3DIdentity);
    CAValueRef turn = CAValueCreateTransform3D(CATransform3DMakeRotation(M_PI / 2, 0, 0, 1));
    for (int i = 0; i < N; i++) {
        CALayerRef l = CALayerCreate();
        CALayerAddSublayer(root, l);
        CAValueRef from = CAValueCreatePoint((CGPoint){i, 0}), to = CAValueCreatePoint((CGPoint){i + 100, 40});
        add_basic(l, "position", from, to, "p");
        add_basic(l, "opacity", zero, one, "o");
        add_basic(l, "transform", identity, turn, "t");
        CARelease(from); CARelease(to);
        CARelease(l);
    }
    CATransactionFlush();   /* the animations begin at 100 */
    for (int f = 1; f <= 3; f++) {
        now_seconds = 100 + 0.25 * f;
        double u = 0.25 * f;
        CALayerRef p = CALayerCopyPresentationLayer(root);
        int wrong = 0;
        for (int i = 0; i < N; i++) {
            CALayerRef s = CALayerGetSublayerAtIndex(p, (size_t)i);
            CGPoint pos = CALayerGetPosition(s);
            CATransform3D t = CALayerGetTransform(s);
            /* A quarter turn slerped: the angle u * 90 degrees about z. */
            double c = cos(u * M_PI / 2), sn = sin(u * M_PI / 2);
            if (fabs(pos.x - (i + 100 * u)) > 1e-9 || fabs(pos.y - 40 * u) > 1e-9 ||
                fabs(CALayerGetOpacity(s) - u) > 1e-6 || fabs(t.m11 - c) > 1e-9 || fabs(t.m12 - sn) > 1e-9 ||
                fabs(t.m21 + sn) > 1e-9 || CALayerGetSuperlayer(s) != p)
                wrong++;
        }
        CHECK(wrong == 0);
        CARelease(p);
    }
    /* Layer 7's opacity animation changed through the layer's own copy
     * (documented as read-only; followed all the same), layer 8's removed,
     * layer 9 given a keyframe animation of position.x after the others. */
    CALayerRef l7 = CALayerGetSublayerAtIndex(root, 7), l8 = CALayerGetSublayerAtIndex(root, 8);
    CALayerRef l9 = CALayerGetSublayerAtIndex(root, 9);
    CAValueRef half = CAValueCreateNumber(0.5);
    CABasicAnimationSetToValue(CALayerGetAnimation(l7, "o"), half);
    CALayerRemoveAnimation(l8, "o");
    CAAnimationRef k = CAKeyframeAnimationCreate("position.x");
    CAValueRef kv[] = { zero, half, one };
    CAValueRef values = CAValueCreateArray(kv, 3);
    CAKeyframeAnimationSetValues(k, values);
    CAAnimationSetDuration(k, 1);
    CAAnimationSetBeginTime(k, 100);
    CALayerAddAnimation(l9, k, "k");
    CATransactionFlush();
    now_seconds = 100.5;
    CALayerRef p = CALayerCopyPresentationLayer(root);
    CHECK_NEAR(CALayerGetOpacity(CALayerGetSublayerAtIndex(p, 7)), 0.25, 1e-6);
    CHECK_NEAR(CALayerGetOpacity(CALayerGetSublayerAtIndex(p, 8)), 1, 0);      /* the model's */
    CHECK_NEAR(CALayerGetOpacity(CALayerGetSublayerAtIndex(p, 6)), 0.5, 1e-6);
    CHECK_NEAR(CALayerGetPosition(CALayerGetSublayerAtIndex(p, 9)).x, 0.5, 1e-9);   /* keyframe, newest */
    CHECK_NEAR(CALayerGetPosition(CALayerGetSublayerAtIndex(p, 9)).y, 20, 1e-9);
    CALayerRef held = CALayerGetSublayerAtIndex(p, 5);
    CARetain(held);
    CARelease(p);
    CHECK(CALayerGetSuperlayer(held) == NULL);
    CHECK_NEAR(CALayerGetPosition(held).x, 55, 1e-9);
    CARelease(held);
    now_seconds = 100.75;
    p = CALayerCopyPresentationLayer(root);
    CHECK_NEAR(CALayerGetPosition(CALayerGetSublayerAtIndex(p, 5)).x, 80, 1e-9);
    CARelease(p);
    CHECK_NO_ERROR();
    CARelease(values); CARelease(k); CARelease(half);
    CARelease(turn); CARelease(identity); CARelease(one); CARelease(zero);
    CARelease(root);
    QZSetMediaTimeSource(NULL, NULL);
}

int main(void) {
    RUN(delegates_hear_start_and_stop_once);
    RUN(animation_properties_and_bad_input);
    RUN(plain_animations_and_shared_group_children);
    RUN(a_large_tree_presents_and_follows_changes);
    return qz_summary();
}
