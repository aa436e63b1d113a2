/* Object lifetimes through the C ABI: layers whose last reference the host
 * drops while animations, transitions and their snapshots refer to them.
 *
 * The first test is the reduced form of the heap corruption the stateful
 * fuzzer found (issue 21): a layer given a CATransition kept itself alive
 * through its transition's snapshot (a presentation copy holds its model
 * layer); when the transition ended, QZAnimationProcessEvents dropped the
 * snapshot inside the layer's own lifecycle update, which freed the layer
 * while that method still ran ("double free detected in tcache 2"). Run under
 * valgrind and AddressSanitizer by ctest. */
#include <stdlib.h>
#include "qz_test.h"

static double now_seconds;
static double fake_clock(void *info) { (void)info; return now_seconds; }

/* A layer delegate that only reports when its layer frees it. */
static int freed_layers;
static void count_release(void *info) { (void)info; freed_layers++; }
static const CALayerDelegateCallbacks watcher = { 0, NULL, NULL, NULL, NULL, count_release };

static CALayerRef watched(CALayerRef layer) {
    CALayerSetDelegate(layer, &watcher, NULL);
    return layer;
}

static CAAnimationRef transition(double duration) {
    CAAnimationRef t = CATransitionCreate();
    CAAnimationSetDuration(t, duration);
    return t;
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

/* The fuzzer's reproducer, reduced: a class-made layer, a transition run as
 * an action (so it starts when the implicit transaction commits, at the end
 * of a run-loop turn), the host's release, then the transition's end. */
static void released_layer_with_a_running_transition(void) {
    QZSetMediaTimeSource(fake_clock, NULL);
    CALayerClassRef cls = CALayerClassCreate("Mine", NULL, NULL, NULL);
    for (int variant = 0; variant < 4; variant++) {
        now_seconds = 100;
        freed_layers = 0;
        CALayerRef layer = watched(variant & 1 ? CALayerCreate() : CALayerCreateWithClass(cls));
        CAAnimationRef t = transition(0.1);
        if (variant & 2) {
            CATransactionBegin();
            CALayerAddAnimation(layer, t, NULL);
            CATransactionCommit();
            CATransactionFlush();         /* the implicit transaction that made the layer */
        } else {
            CAActionRunForKey((CAActionRef)t, kCATransition, layer, NULL);
            QZRunLoopRunOnce(CFRunLoopGetCurrent());
        }
        CHECK(QZLayerGetTransitionProgress(layer) >= 0);
        CALayerRef snapshot = QZLayerCopyTransitionSnapshot(layer);
        CHECK(snapshot != NULL);
        /* A snapshot is a detached picture: it is its own model layer and
         * does not keep the layer it shows alive. */
        CHECK(CALayerGetModelLayer(snapshot) == snapshot);
        CARelease(snapshot);
        CARelease(t);
        CARelease(layer);                 /* the host's only reference */
        CHECK(freed_layers == 1);         /* freed at once: its transition ends with it */
        now_seconds += 0.15;
        QZAnimationProcessEvents();
        QZAnimationProcessEvents();
        CHECK_NO_ERROR();
    }
    CARelease(cls);
    QZSetMediaTimeSource(NULL, NULL);
}

/* The form: a transition on a layer with an animated sublayer, inside
 * a tree the host lets go of while both run. */
static void released_tree_with_transition_and_animated_sublayer(void) {
    QZSetMediaTimeSource(fake_clock, NULL);
    now_seconds = 50;
    freed_layers = 0;
    CALayerRef root = watched(CALayerCreate());
    CALayerRef layer = watched(CALayerCreate());
    CALayerRef sub = watched(CALayerCreate());
    CALayerAddSublayer(root, layer);
    CALayerAddSublayer(layer, sub);
    CATransactionFlush();
    CAAnimationRef move = move_x(0, 10, 0.5), t = transition(0.2);
    CATransactionBegin();
    CALayerAddAnimation(sub, move, "x");
    CALayerAddAnimation(layer, t, NULL);
    CATransactionCommit();
    QZAnimationProcessEvents();
    CHECK(QZLayerGetTransitionProgress(layer) >= 0);
    CARelease(move); CARelease(t);
    CARelease(sub);
    CARelease(layer);
    CHECK(freed_layers == 0);             /* the tree holds them */
    CARelease(root);
    CHECK(freed_layers == 3);             /* nothing else does: no snapshot cycle */
    for (int i = 0; i < 8; i++) {
        now_seconds += 0.1;
        QZAnimationProcessEvents();
    }
    CHECK_NO_ERROR();
    QZSetMediaTimeSource(NULL, NULL);
}

/* A cycle the host makes: an animation whose value holds the layer it runs
 * on keeps that layer alive after the host's release (as in Objective-C).
 * When the animation ends, QZAnimationProcessEvents drops it and so frees the
 * layer: that must happen after the layer's update, not inside it. */
static void animation_holding_its_own_layer(void) {
    QZSetMediaTimeSource(fake_clock, NULL);
    now_seconds = 10;
    freed_layers = 0;
    CALayerRef layer = watched(CALayerCreate());
    CAAnimationRef a = CABasicAnimationCreate("customObject");
    CAValueRef self_value = CAValueCreateWithObject(layer);
    CABasicAnimationSetToValue(a, self_value);
    CAAnimationSetDuration(a, 0.25);
    CARelease(self_value);
    CATransactionBegin();
    CALayerAddAnimation(layer, a, "cycle");
    CAAnimationRef move = move_x(0, 1, 0.25);
    CALayerAddAnimation(layer, move, "move");
    CATransactionCommit();
    CARelease(a); CARelease(move);
    QZAnimationProcessEvents();
    CARelease(layer);
    CHECK(freed_layers == 0);             /* its animation holds it */
    now_seconds = 11;
    QZAnimationProcessEvents();           /* both end: the layer goes with them */
    CHECK(freed_layers == 1);
    QZAnimationProcessEvents();
    CHECK_NO_ERROR();
    QZSetMediaTimeSource(NULL, NULL);
}

/* A mask set in an open transaction, on a layer whose committed state has
 * no appearance of its own: presentation copies take the tree from the
 * model, the copy's appearance from the committed state, and the mask's
 * copy was dropped (with the copy of any layer inside it): a copy of a layer
 * in the mask lost its superlayers, and under threads (another thread's
 * transaction) the walk read freed copies. */
static void mask_set_in_an_open_transaction(void) {
    CALayerRef layer = CALayerCreate(), mask = CALayerCreate(), sub = CALayerCreate();
    CALayerAddSublayer(mask, sub);
    CATransactionFlush();
    CALayerSetPosition(layer, CGPointMake(5, 5));              /* logs the committed state */
    CALayerRef first = CALayerCopyPresentationLayer(layer);    /* builds it: no appearance */
    CARelease(first);
    CALayerSetMask(layer, mask);
    CALayerRef p = CALayerCopyPresentationLayer(sub);
    CHECK(CALayerGetModelLayer(p) == sub);
    CALayerRef maskCopy = CALayerGetSuperlayer(p);
    CHECK(maskCopy != NULL && CALayerGetModelLayer(maskCopy) == mask);
    CALayerRef layerCopy = maskCopy ? CALayerGetSuperlayer(maskCopy) : NULL;
    CHECK(layerCopy != NULL && CALayerGetModelLayer(layerCopy) == layer);
    CHECK(layerCopy && CGPointEqualToPoint(CALayerGetPosition(layerCopy), CGPointMake(0, 0)));   /* committed */
    CARelease(p);
    CALayerRef q = CALayerCopyPresentationLayer(mask);
    CHECK(q && CALayerGetSuperlayer(q) && CALayerGetModelLayer(CALayerGetSuperlayer(q)) == layer);
    CARelease(q);
    CATransactionFlush();
    CHECK_NO_ERROR();
    CARelease(sub); CARelease(mask); CARelease(layer);
}

int main(void) {
    RUN(mask_set_in_an_open_transaction);
    RUN(released_layer_with_a_running_transition);
    RUN(released_tree_with_transition_and_animated_sublayer);
    RUN(animation_holding_its_own_layer);
    return qz_summary();
}
