/* Four threads on one layer tree at once: one mutates layers and the tree's
 * structure (properties, sublayers added, moved and removed, masks,
 * animations), one commits (explicit transactions, flushes, animation
 * events), one copies presentation layers and reads them (values, hit tests,
 * conversions, copies of copies), one renders frames (CARenderer and
 * CALayerRenderInContext). The model is shared by design (every call holds
 * the model lock), so nothing may crash, race or corrupt the tree.
 *
 * QZ_STRESS_SECONDS sets how long (default 2; the sanitizer target runs 30 s
 * under ThreadSanitizer and AddressSanitizer). At the end the tree's links
 * are checked from every layer. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include "qz_test.h"

enum { LAYERS = 48, THREADS = 4 };
static CALayerRef root;
static CALayerRef layers[LAYERS];   /* the threads' shared layers (the test holds them) */
static atomic_int stop;
static atomic_long operations[THREADS];

static uint64_t next(uint64_t *s) {
    *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17;
    return *s;
}
static CALayerRef any_layer(uint64_t *s) { return layers[next(s) % LAYERS]; }
static double unit(uint64_t *s) { return (double)(next(s) % 1000) / 1000.0; }

static CAAnimationRef move(uint64_t *s) {
    CAAnimationRef a = next(s) % 4 ? CABasicAnimationCreate(next(s) % 2 ? "position.x" : "opacity") : CATransitionCreate();
    CAValueRef to = CAValueCreateNumber(unit(s));
    if (CAValueGetType(to) == CAValueTypeNumber && next(s) % 4) CABasicAnimationSetToValue(a, to);
    QZClearLastError();                      /* (a transition has no toValue) */
    CAAnimationSetDuration(a, 0.01 + unit(s) * 0.2);
    CARelease(to);
    return a;
}

static void *mutator(void *arg) {
    uint64_t s = 0x9E3779B97F4A7C15ULL ^ (uintptr_t)arg;
    while (!atomic_load(&stop)) {
        CALayerRef l = any_layer(&s), other = any_layer(&s);
        switch (next(&s) % 12) {
        case 0: CALayerSetPosition(l, CGPointMake(unit(&s) * 64, unit(&s) * 64)); break;
        case 1: CALayerSetBounds(l, CGRectMake(0, 0, 4 + unit(&s) * 32, 4 + unit(&s) * 32)); break;
        case 2: CALayerSetOpacity(l, (float)unit(&s)); break;
        case 3: CALayerAddSublayer(next(&s) % 3 ? other : root, l); break;   /* cycles are refused */
        case 4: CALayerRemoveFromSuperlayer(l); break;
        case 5: CALayerInsertSublayerAtIndex(other, l, 0); break;
        case 6: CALayerSetMask(l, next(&s) % 3 ? NULL : other); break;
        case 7: { CAAnimationRef a = move(&s); CALayerAddAnimation(l, a, next(&s) % 2 ? "a" : NULL); CARelease(a); break; }
        case 8: CALayerRemoveAllAnimations(l); break;
        case 9: {
            /* A layer of this thread's own, given to the tree and let go
             * (a few per layer: the tree must not grow all run long). */
            if (CALayerGetSublayerCount(l) >= 6) break;
            CALayerRef mine = CALayerCreate();
            CALayerSetFrame(mine, CGRectMake(unit(&s) * 32, 0, 8, 8));
            CALayerAddSublayer(l, mine);
            CARelease(mine);
            break;
        }
        case 10: {
            CALayerRef sub = CALayerGetSublayerCount(l) ? CALayerGetSublayerAtIndex(l, 0) : NULL;
            if (sub) CALayerRemoveFromSuperlayer(sub);   /* a borrowed handle whose owner lets go */
            break;
        }
        default: {
            CGColorRef c = CGColorCreateSRGB(unit(&s), unit(&s), unit(&s), 1);
            CALayerSetBackgroundColor(l, c);
            CGColorRelease(c);
        }
        }
        QZClearLastError();
        atomic_fetch_add(&operations[0], 1);
    }
    CATransactionFlush();
    return NULL;
}

static void *committer(void *arg) {
    uint64_t s = 0xC0FFEE ^ (uintptr_t)arg;
    while (!atomic_load(&stop)) {
        switch (next(&s) % 4) {
        case 0:
            CATransactionBegin();
            CATransactionSetAnimationDuration(unit(&s) * 0.1);
            CALayerSetZPosition(any_layer(&s), unit(&s));
            CATransactionCommit();
            break;
        case 1: CATransactionFlush(); break;
        case 2: QZAnimationProcessEvents(); break;
        default: QZRunLoopRunOnce(NULL); break;
        }
        QZClearLastError();
        atomic_fetch_add(&operations[1], 1);
    }
    CATransactionFlush();
    return NULL;
}

static void *presenter(void *arg) {
    uint64_t s = 0xBEEF ^ (uintptr_t)arg;
    while (!atomic_load(&stop)) {
        CALayerRef l = any_layer(&s);
        CALayerRef p = CALayerCopyPresentationLayer(next(&s) % 4 ? l : root);
        if (p) {
            CGPoint pos = CALayerGetPosition(p);
            (void)pos;
            CALayerRef hit = CALayerHitTest(p, CGPointMake(unit(&s) * 64, unit(&s) * 64));
            (void)hit;
            CALayerConvertPointToLayer(p, CGPointMake(1, 1), NULL);
            CALayerRef again = CALayerCopyPresentationLayer(p);
            CARelease(again);
            CARelease(p);
        }
        CALayerRef snapshot = QZLayerCopyTransitionSnapshot(l);
        CARelease(snapshot);
        QZClearLastError();
        atomic_fetch_add(&operations[2], 1);
    }
    return NULL;
}

static void *renderer(void *arg) {
    (void)arg;
    CVPixelBufferRef pb = NULL;
    CVPixelBufferCreate(NULL, 64, 64, kCVPixelFormatType_32BGRA, NULL, &pb);
    CARendererRef r = CARendererCreate(pb, NULL);
    CARendererSetLayer(r, root);
    CGContextRef ctx = QZBitmapContextCreateWithPixelBuffer(pb);
    double t = 0;
    while (!atomic_load(&stop)) {
        t += 1.0 / 60;
        CARendererBeginFrameAtTime(r, CACurrentMediaTime(), NULL);
        CARendererRender(r);
        CARendererEndFrame(r);
        if ((long)(t * 60) % 8 == 0) CALayerRenderInContext(layers[(long)(t * 60) % LAYERS], ctx);
        QZClearLastError();
        atomic_fetch_add(&operations[3], 1);
    }
    CGContextRelease(ctx);
    CARelease(r);
    CVPixelBufferRelease(pb);
    return NULL;
}

/* Every sublayer's superlayer is its parent, from the root down. */
static int tree_is_consistent(CALayerRef l, int depth) {
    if (depth > LAYERS * 64) return 0;
    size_t n = CALayerGetSublayerCount(l);
    for (size_t i = 0; i < n; i++) {
        CALayerRef s = CALayerGetSublayerAtIndex(l, i);
        if (!s || CALayerGetSuperlayer(s) != l || !tree_is_consistent(s, depth + 1)) return 0;
    }
    CALayerRef m = CALayerGetMask(l);
    return !m || CALayerGetSuperlayer(m) == l;
}

static void four_threads_on_one_tree(void) {
    const char *env = getenv("QZ_STRESS_SECONDS");
    double seconds = env ? atof(env) : 2;
    root = CALayerCreate();
    CALayerSetBounds(root, CGRectMake(0, 0, 64, 64));
    for (int i = 0; i < LAYERS; i++) {
        layers[i] = CALayerCreate();
        CALayerSetFrame(layers[i], CGRectMake(i % 8 * 8, i / 8 * 8, 8, 8));
        CALayerAddSublayer(i % 3 ? root : layers[i - 1 >= 0 ? i - 1 : 0], layers[i]);
    }
    QZClearLastError();
    CATransactionFlush();
    pthread_t threads[THREADS];
    void *(*bodies[THREADS])(void *) = { mutator, committer, presenter, renderer };
    for (long t = 0; t < THREADS; t++) pthread_create(&threads[t], NULL, bodies[t], (void *)(t + 1));
    struct timespec pause = { (time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9) };
    nanosleep(&pause, NULL);
    /* Every thread must have had its turns (a slow scheduler, valgrind's for
     * one, may starve one for a while): up to a minute more. */
    for (int wait = 0; wait < 600; wait++) {
        int all = 1;
        for (int t = 0; t < THREADS; t++) if (atomic_load(&operations[t]) < 20) all = 0;
        if (all) break;
        struct timespec tick = { 0, 100000000 };
        nanosleep(&tick, NULL);
    }
    atomic_store(&stop, 1);
    for (int t = 0; t < THREADS; t++) pthread_join(threads[t], NULL);
    for (int t = 0; t < THREADS; t++) CHECK(atomic_load(&operations[t]) >= 20);
    printf("operations: %ld mutations, %ld commits, %ld presentation copies, %ld frames\n",
           atomic_load(&operations[0]), atomic_load(&operations[1]), atomic_load(&operations[2]), atomic_load(&operations[3]));
    CHECK(tree_is_consistent(root, 0));
    for (int i = 0; i < LAYERS; i++) CHECK(tree_is_consistent(layers[i], 0));
    for (int i = 0; i < LAYERS; i++) {
        CALayerRemoveAllAnimations(layers[i]);
        CARelease(layers[i]);
    }
    CARelease(root);
    CATransactionFlush();
    QZAnimationProcessEvents();
    QZClearLastError();
}

int main(void) {
    RUN(four_threads_on_one_tree);
    return qz_summary();
}
