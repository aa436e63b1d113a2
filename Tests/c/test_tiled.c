/* CATiledLayer through the C ABI: the tiles asked for at three zooms and
 * after a pan (against tiles computed here), their clip boxes and CTMs,
 * drawing on two worker threads at once without blocking the frame, the
 * fade-in, the cache budget while panning across 10,000 tiles,
 * setNeedsDisplayInRect redrawing one tile, and bad input. */
#include "qz_test.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

/* MARK: - A recorder of drawn tiles (the drawing runs on worker threads) */

#define MAX_DRAWN 20000
typedef struct { CGRect clip; double scale; } Drawn;
static pthread_mutex_t rec_lock = PTHREAD_MUTEX_INITIALIZER;
static Drawn drawn[MAX_DRAWN];
static int drawn_count;

static void record_tile(CALayerRef layer, CGContextRef ctx, void *info) {
    (void)layer; (void)info;
    CGRect clip = CGContextGetClipBoundingBox(ctx);
    CGAffineTransform ctm = CGContextGetCTM(ctx);
    /* An opaque colour, and (on purpose) far more than the tile: the clip keeps it in. */
    CGContextSetRGBFillColor(ctx, 1, 0, 0, 1);
    CGContextFillRect(ctx, CGRectMake(-1e7, -1e7, 2e7, 2e7));
    pthread_mutex_lock(&rec_lock);
    if (drawn_count < MAX_DRAWN) drawn[drawn_count++] = (Drawn){ clip, ctm.a };
    pthread_mutex_unlock(&rec_lock);
}

static void reset_recorder(void) {
    pthread_mutex_lock(&rec_lock);
    drawn_count = 0;
    pthread_mutex_unlock(&rec_lock);
}

static CALayerClassRef tiled_class(void (*draw)(CALayerRef, CGContextRef, void *), double fade) {
    CALayerClassCallbacks cb = { 0 };
    cb.drawInContext = draw;
    CALayerClassRef cls = CALayerClassCreate("TestTiles", CALayerClassGetBuiltin("CATiledLayer"), &cb, NULL);
    if (fade >= 0) QZTiledLayerClassSetFadeDuration(cls, fade);
    return cls;
}

typedef struct { CVPixelBufferRef pb; CARendererRef r; CALayerRef root; } Scene;

static Scene scene(CALayerRef tiled, int w, int h, bool wait) {
    Scene s;
    s.root = CALayerCreate();
    CALayerSetFrame(s.root, CGRectMake(0, 0, w, h));
    CALayerAddSublayer(s.root, tiled);
    s.pb = NULL;
    CVPixelBufferCreate(NULL, w, h, kCVPixelFormatType_32BGRA, NULL, &s.pb);
    s.r = CARendererCreate(s.pb, NULL);
    CARendererSetLayer(s.r, s.root);
    QZRendererSetWaitsForTiles(s.r, wait);
    return s;
}

static void frame(Scene *s, double t) {
    CARendererBeginFrameAtTime(s->r, t, NULL);
    CARendererRender(s->r);
    CARendererEndFrame(s->r);
}

static void free_scene(Scene *s) {
    CARelease(s->r);
    CVPixelBufferRelease(s->pb);
    CARelease(s->root);
}

static double alpha_at(CVPixelBufferRef pb, int x, int y) {
    const unsigned char *base = CVPixelBufferGetBaseAddress(pb);
    return base[y * CVPixelBufferGetBytesPerRow(pb) + 4 * x + 3] / 255.0;
}

/* Shows the layer's point (px, py) at the target's origin, magnified `zoom` times. */
static void view(CALayerRef l, double zoom, double px, double py) {
    CATransactionBegin();
    CATransactionSetDisableActions(true);
    CALayerSetTransform(l, CATransform3DMakeScale(zoom, zoom, 1));
    CALayerSetPosition(l, CGPointMake(-px * zoom, -py * zoom));
    CATransactionCommit();
}

/* MARK: - Tests */

#define SIDE 100000.0

/* The level for `zoom` with levels -7...2 and the tile rectangles visible
 * through a W x H target, computed independently of the library. */
static void visible_tiles_at_three_zooms_and_pan(void) {
    const int W = 1920, H = 1080;
    CALayerClassRef cls = tiled_class(record_tile, 0);
    CALayerRef l = CALayerCreateWithClass(cls);
    CATiledLayerSetLevelsOfDetail(l, 8);
    CATiledLayerSetLevelsOfDetailBias(l, 2);
    CALayerSetAnchorPoint(l, CGPointMake(0, 0));
    CALayerSetBounds(l, CGRectMake(0, 0, SIDE, SIDE));
    Scene s = scene(l, W, H, true);
    struct { double zoom, px, py; int level; } steps[] = {
        { 1, 50000, 50000, 0 },          /* 1:1: level 0 */
        { 0.3, 20000, 70000, -1 },       /* 0.3x: level -1 (0.5 px per point) */
        { 3, 99500, 99800, 2 },          /* 3x, at the far corner: level 2 (4x) */
        { 3, 99000, 99300, 2 },          /* the same zoom, panned */
    };
    double t = 10;
    for (size_t n = 0; n < sizeof steps / sizeof steps[0]; n++) {
        view(l, steps[n].zoom, steps[n].px, steps[n].py);
        reset_recorder();
        frame(&s, t += 1);
        CHECK_NO_ERROR();
        int z = steps[n].level;
        double k = pow(2, z), span = 256 / k;
        double x0 = steps[n].px, y0 = steps[n].py;
        double x1 = fmin(SIDE, x0 + W / steps[n].zoom), y1 = fmin(SIDE, y0 + H / steps[n].zoom);
        int i0 = (int)floor(x0 / span), i1 = (int)ceil(x1 / span), j0 = (int)floor(y0 / span), j1 = (int)ceil(y1 / span);
        /* Every tile drawn is a visible one of this level, with its clip box and scale. */
        pthread_mutex_lock(&rec_lock);
        int count = drawn_count;
        pthread_mutex_unlock(&rec_lock);
        int bad = 0;
        for (int d = 0; d < count; d++) {
            CGRect c = drawn[d].clip;
            int i = (int)floor(c.origin.x / span + 1e-9), j = (int)floor(c.origin.y / span + 1e-9);
            CGRect want = CGRectIntersection(CGRectMake(i * span, j * span, span, span), CGRectMake(0, 0, SIDE, SIDE));
            if (!(i >= i0 && i < i1 && j >= j0 && j < j1)) bad++;
            else if (fabs(c.origin.x - want.origin.x) > 1e-6 || fabs(c.origin.y - want.origin.y) > 1e-6
                     || fabs(c.size.width - want.size.width) > 1e-6 || fabs(c.size.height - want.size.height) > 1e-6) bad++;
            else if (drawn[d].scale != k) bad++;
        }
        CHECK(bad == 0);
        int total = (i1 - i0) * (j1 - j0);
        if (n < 3) {
            /* A new level: all its visible tiles, exactly. */
            CHECK(count == total);
            if (count != total) fprintf(stderr, "  step %zu: %d drawn, %d expected\n", n, count, total);
        } else {
            /* The pan: only the tiles that were not visible before. */
            double span2 = span, ox = steps[n - 1].px, oy = steps[n - 1].py;
            double ox1 = fmin(SIDE, ox + W / steps[n - 1].zoom), oy1 = fmin(SIDE, oy + H / steps[n - 1].zoom);
            int pi0 = (int)floor(ox / span2), pi1 = (int)ceil(ox1 / span2), pj0 = (int)floor(oy / span2), pj1 = (int)ceil(oy1 / span2);
            int fresh = 0;
            for (int j = j0; j < j1; j++)
                for (int i = i0; i < i1; i++)
                    if (!(i >= pi0 && i < pi1 && j >= pj0 && j < pj1)) fresh++;
            CHECK(count == fresh);
            if (count != fresh) fprintf(stderr, "  pan: %d drawn, %d expected\n", count, fresh);
        }
        /* The frame shows the tiles: opaque red at the target's corners. */
        CHECK(alpha_at(s.pb, 0, 0) == 1 && alpha_at(s.pb, 100, 100) == 1);
    }
    free_scene(&s);
    CARelease(l);
    CARelease(cls);
}

/* Only what masksToBounds ancestors let through is asked for; a perspective
 * view draws the tiles it sees at one level. */
static void clipped_by_ancestors_and_perspective(void) {
    CALayerClassRef cls = tiled_class(record_tile, 0);
    CALayerRef l = CALayerCreateWithClass(cls);
    CATiledLayerSetTileSize(l, CGSizeMake(64, 64));
    CATiledLayerSetLevelsOfDetail(l, 4);
    CALayerSetAnchorPoint(l, CGPointMake(0, 0));
    CALayerSetBounds(l, CGRectMake(0, 0, 4096, 4096));
    CALayerRef clip = CALayerCreate();
    CALayerSetFrame(clip, CGRectMake(10, 20, 100, 70));     /* shows layer points 0..100 x 0..70 */
    CALayerSetMasksToBounds(clip, true);
    CALayerAddSublayer(clip, l);
    Scene s = scene(clip, 512, 512, true);
    reset_recorder();
    frame(&s, 1);
    CHECK(drawn_count == 4);                                /* tiles (0..1, 0..1) of level 0 */
    for (int d = 0; d < drawn_count; d++) CHECK(drawn[d].clip.origin.x < 100 && drawn[d].clip.origin.y < 70);

    /* Tilted away about the y axis with perspective: the far side is smaller. */
    CALayerSetMasksToBounds(clip, false);
    CATransform3D t = CATransform3DIdentity;
    t.m34 = -1.0 / 800;
    t = CATransform3DRotate(t, 1.0, 0, 1, 0);
    CATransactionBegin();
    CATransactionSetDisableActions(true);
    CALayerSetTransform(l, CATransform3DConcat(CATransform3DMakeScale(0.1, 0.1, 1), t));
    CATransactionCommit();
    reset_recorder();
    frame(&s, 2);
    CHECK_NO_ERROR();
    CHECK(drawn_count > 0);
    int same_level = 1;
    for (int d = 1; d < drawn_count; d++) if (drawn[d].scale != drawn[0].scale) same_level = 0;
    CHECK(same_level);
    CHECK(drawn_count > 0 && drawn[0].scale < 1);            /* a coarser level for a layer seen small */
    free_scene(&s);
    CARelease(clip);
    CARelease(l);
    CARelease(cls);
}

/* MARK: Concurrency: two tiles drawing at once; the frame does not wait. */

static atomic_int inside, finished;
static atomic_int gate_open;

static void gated_tile(CALayerRef layer, CGContextRef ctx, void *info) {
    (void)layer; (void)info;
    atomic_fetch_add(&inside, 1);
    while (!atomic_load(&gate_open)) {
        struct timespec ts = { 0, 1000000 };
        nanosleep(&ts, NULL);
    }
    CGContextSetRGBFillColor(ctx, 0, 0, 1, 1);
    CGContextFillRect(ctx, CGContextGetClipBoundingBox(ctx));
    atomic_fetch_add(&finished, 1);
}

static void workers_draw_concurrently_and_frames_do_not_wait(void) {
    QZTiledLayerResetStatistics();
    CHECK(QZTiledLayerGetWorkerThreadCount() >= 2);
    CALayerClassRef cls = tiled_class(gated_tile, 0);
    CALayerRef l = CALayerCreateWithClass(cls);
    CALayerSetFrame(l, CGRectMake(0, 0, 256, 256));
    CATiledLayerSetTileSize(l, CGSizeMake(64, 64));
    Scene s = scene(l, 256, 256, false);
    atomic_store(&gate_open, 0);
    frame(&s, 1);
    /* The frame returned while every drawing is held at the gate. */
    CHECK(atomic_load(&finished) == 0);
    CHECK(alpha_at(s.pb, 10, 10) == 0);
    CHECK(!isinf(CARendererGetNextFrameTime(s.r)));   /* tiles pending: another frame is needed */
    for (int i = 0; i < 10000 && atomic_load(&inside) < 2; i++) {
        struct timespec ts = { 0, 1000000 };
        nanosleep(&ts, NULL);
    }
    CHECK(atomic_load(&inside) >= 2);
    atomic_store(&gate_open, 1);
    CHECK(QZTiledLayerWaitForTiles(60));
    CHECK(QZTiledLayerGetMaxConcurrentDrawing() >= 2);
    CHECK(atomic_load(&finished) == 16);
    CHECK(QZTiledLayerGetDrawnTileCount() == 16);
    frame(&s, 2);
    CHECK(alpha_at(s.pb, 10, 10) == 1 && alpha_at(s.pb, 250, 250) == 1);
    free_scene(&s);
    CARelease(l);
    CARelease(cls);
}

/* MARK: A delegate replaced while its tiles draw */

typedef struct { atomic_int magic, drawing, released_while_drawing, draws; } DelegateInfo;

static void delegate_tile(CALayerRef layer, CGContextRef ctx, void *info) {
    (void)layer;
    DelegateInfo *d = info;
    atomic_store(&d->drawing, 1);
    atomic_fetch_add(&d->draws, 1);
    struct timespec ts = { 0, 20000000 };
    nanosleep(&ts, NULL);
    if (atomic_load(&d->magic) == 0x7117) CGContextFillRect(ctx, CGContextGetClipBoundingBox(ctx));
    atomic_store(&d->drawing, 0);
}

static void delegate_release(void *info) {
    DelegateInfo *d = info;
    if (atomic_load(&d->drawing)) atomic_store(&d->released_while_drawing, 1);
    atomic_store(&d->magic, 0);
}

static void delegate_replaced_while_tiles_draw(void) {
    static DelegateInfo d;
    atomic_store(&d.magic, 0x7117);
    CALayerDelegateCallbacks cb = { 0 };
    cb.drawLayerInContext = delegate_tile;
    cb.release = delegate_release;
    CALayerRef l = CATiledLayerCreate();
    CALayerSetFrame(l, CGRectMake(0, 0, 256, 256));
    CATiledLayerSetTileSize(l, CGSizeMake(32, 32));           /* 64 tiles of 20 ms: drawing when replaced */
    CALayerSetDelegate(l, &cb, &d);
    Scene s = scene(l, 256, 256, false);
    frame(&s, 1);
    for (int i = 0; i < 5000 && atomic_load(&d.draws) == 0; i++) {
        struct timespec ts = { 0, 1000000 };
        nanosleep(&ts, NULL);
    }
    CALayerSetDelegate(l, NULL, NULL);     /* waits for the drawings in progress, then releases */
    CHECK(atomic_load(&d.magic) == 0);
    CHECK(atomic_load(&d.released_while_drawing) == 0);
    int draws = atomic_load(&d.draws);
    CHECK(draws >= 1 && draws < 64);       /* the queued tiles were not drawn with the old delegate */
    CHECK(QZTiledLayerWaitForTiles(30));
    CHECK(atomic_load(&d.draws) == draws);
    free_scene(&s);
    CARelease(l);
}

/* MARK: Fading */

static void tiles_fade_in(void) {
    CALayerClassRef cls = tiled_class(record_tile, -1);   /* Apple's 0.25 s */
    CHECK(QZTiledLayerClassGetFadeDuration(cls) == 0.25);
    CHECK(CATiledLayerGetFadeDuration() == 0.25);
    CALayerRef l = CALayerCreateWithClass(cls);
    CALayerSetFrame(l, CGRectMake(0, 0, 64, 64));
    Scene s = scene(l, 64, 64, true);
    frame(&s, 5);                 /* drawn for this frame: it starts fading in at t0 = 5 */
    CHECK(alpha_at(s.pb, 32, 32) == 0);
    CHECK(!isinf(CARendererGetNextFrameTime(s.r)));   /* fading: frames are needed */
    frame(&s, 5.125);             /* half the fade */
    CHECK_NEAR(alpha_at(s.pb, 32, 32), 0.5, 1.0 / 255 + 1e-9);
    frame(&s, 5.25);
    CHECK(alpha_at(s.pb, 32, 32) == 1);
    frame(&s, 6);
    CHECK(alpha_at(s.pb, 32, 32) == 1);
    CHECK(isinf(CARendererGetNextFrameTime(s.r)));   /* nothing pending or fading: idle */
    free_scene(&s);
    CARelease(l);
    CARelease(cls);
}

/* MARK: Cache */

static void cache_budget_while_panning_and_redraw_in_rect(void) {
    size_t old = QZTiledLayerGetCacheMemoryLimit();
    CALayerClassRef cls = tiled_class(record_tile, 0);
    CALayerRef l = CALayerCreateWithClass(cls);
    CATiledLayerSetTileSize(l, CGSizeMake(32, 32));          /* 4 KiB a tile */
    CALayerSetAnchorPoint(l, CGPointMake(0, 0));
    CALayerSetBounds(l, CGRectMake(0, 0, 3200, 3200));       /* 100 x 100 tiles */
    const size_t limit = 300 * 32 * 32 * 4;                   /* room for 300 tiles */
    QZTiledLayerSetCacheMemoryLimit(limit);
    CHECK(QZTiledLayerGetCacheMemoryLimit() == limit);
    Scene s = scene(l, 320, 320, true);
    reset_recorder();
    double t = 1;
    int over = 0;
    for (int y = 0; y < 10; y++)
        for (int x = 0; x < 10; x++) {
            view(l, 1, x * 320, y * 320);
            frame(&s, t += 1);
            if (QZTiledLayerGetCacheMemoryUsage() > limit) over++;
        }
    CHECK(over == 0);
    CHECK(drawn_count == 10000);   /* every tile of the layer, once */
    CHECK(QZTiledLayerGetCacheMemoryUsage() > 0);

    /* One tile's rectangle marked: that tile alone is drawn again. */
    view(l, 1, 0, 0);
    frame(&s, t += 1);
    reset_recorder();
    frame(&s, t += 1);
    CHECK(drawn_count == 0);       /* all cached */
    CALayerSetNeedsDisplayInRect(l, CGRectMake(64, 96, 32, 32));
    frame(&s, t += 1);
    CHECK(drawn_count == 1);
    if (drawn_count == 1) {
        CHECK(drawn[0].clip.origin.x == 64 && drawn[0].clip.origin.y == 96);
        CHECK(drawn[0].clip.size.width == 32 && drawn[0].clip.size.height == 32);
    }
    /* setNeedsDisplay: every visible tile. */
    reset_recorder();
    CALayerSetNeedsDisplay(l);
    frame(&s, t += 1);
    CHECK(drawn_count == 100);
    /* A new tile size drops the cache: the visible tiles of the new grid. */
    reset_recorder();
    CATiledLayerSetTileSize(l, CGSizeMake(64, 64));
    frame(&s, t += 1);
    CHECK(drawn_count == 25);
    free_scene(&s);
    CARelease(l);
    CARelease(cls);
    QZTiledLayerSetCacheMemoryLimit(old);
}

/* MARK: Stress: the tree changes while tiles draw */

static void reentrant_tile(CALayerRef layer, CGContextRef ctx, void *info) {
    (void)info;
    CGRect b = CALayerGetBounds(layer);                      /* calls back into the library */
    CGContextSetRGBFillColor(ctx, fmod(b.size.width, 3) / 3, 0.5, 0.5, 1);
    CGContextFillRect(ctx, CGContextGetClipBoundingBox(ctx));
}

typedef struct { CALayerRef layer; atomic_int stop; } Churn;

static void *churn_layer(void *arg) {
    Churn *c = arg;
    for (int i = 0; !atomic_load(&c->stop); i++) {
        CALayerSetBounds(c->layer, CGRectMake(0, 0, 200 + (i % 7) * 20, 180 + (i % 5) * 25));
        CALayerSetNeedsDisplayInRect(c->layer, CGRectMake((i % 4) * 40, 0, 40, 40));
        if (i % 11 == 0) CATiledLayerSetTileSize(c->layer, CGSizeMake(16 + (i % 3) * 24, 32));
        if (i % 13 == 0) CATiledLayerSetLevelsOfDetail(c->layer, 1 + i % 4);
        CALayerSetTransform(c->layer, CATransform3DMakeScale(0.3 + (i % 9) * 0.2, 0.3 + (i % 9) * 0.2, 1));
        CATransactionFlush();
    }
    return NULL;
}

static void stress_tree_changes_while_tiles_draw(void) {
    CALayerClassRef cls = tiled_class(reentrant_tile, 0.05);
    CALayerRef l = CALayerCreateWithClass(cls);
    CALayerSetAnchorPoint(l, CGPointMake(0, 0));
    CALayerSetBounds(l, CGRectMake(0, 0, 300, 300));
    Scene s = scene(l, 256, 256, false);
    QZTiledLayerSetCacheMemoryLimit(64 * 1024);              /* evictions all the time */
    Churn c = { l, 0 };
    pthread_t thread;
    pthread_create(&thread, NULL, churn_layer, &c);
    const char *env = getenv("QZ_STRESS_SECONDS");
    double seconds = env ? atof(env) : 1.0, start = CACurrentMediaTime();
    double t = 1;
    int frames = 0;
    while (CACurrentMediaTime() - start < seconds) {
        QZRendererSetWaitsForTiles(s.r, frames % 5 == 0);
        frame(&s, t += 0.02);
        frames++;
    }
    atomic_store(&c.stop, 1);
    pthread_join(thread, NULL);
    CHECK(QZTiledLayerWaitForTiles(60));
    CHECK(QZTiledLayerGetCacheMemoryUsage() <= 64 * 1024);
    CHECK(frames > 0);
    CHECK_NO_ERROR();
    QZTiledLayerSetCacheMemoryLimit((size_t)128 << 20);
    free_scene(&s);
    CARelease(l);
    CARelease(cls);
}

/* MARK: Bad input */

static void failing_tile(CALayerRef layer, CGContextRef ctx, void *info) {
    (void)layer; (void)ctx; (void)info;
    CGContextFillRect(NULL, CGRectMake(0, 0, 1, 1));       /* fails: records an error on this thread */
    CGContextSetRGBFillColor(ctx, NAN, 0, 0, 1);
    CGContextFillRect(ctx, CGRectMake(NAN, 0, INFINITY, 1e308));
}

static void bad_input(void) {
    CALayerRef l = CATiledLayerCreate();
    CATiledLayerSetTileSize(l, CGSizeMake(0, 256));         CHECK_ERROR(QZErrorInvalidArgument);
    CATiledLayerSetTileSize(l, CGSizeMake(-5, 256));        CHECK_ERROR(QZErrorInvalidArgument);
    CATiledLayerSetTileSize(l, (CGSize){ NAN, 256 });       CHECK_ERROR(QZErrorNotFinite);
    CHECK(CATiledLayerGetTileSize(l).width == 256);
    CATiledLayerSetLevelsOfDetail(l, (size_t)1e9);         CHECK_ERROR(QZErrorOutOfRange);
    CATiledLayerSetLevelsOfDetail(l, (size_t)-1);          CHECK_ERROR(QZErrorOutOfRange);
    CARelease(l);
    QZTiledLayerSetWorkerThreadCount(1000);                 CHECK_ERROR(QZErrorOutOfRange);
    CHECK(!QZTiledLayerWaitForTiles(NAN));                  CHECK_ERROR(QZErrorNotFinite);
    QZTiledLayerClassSetFadeDuration(NULL, 1);              CHECK_ERROR(QZErrorNullArgument);
    QZRendererSetWaitsForTiles(NULL, true);                 CHECK_ERROR(QZErrorNullArgument);
    CHECK(!QZRendererGetWaitsForTiles(NULL));               CHECK_ERROR(QZErrorNullArgument);
    CALayerClassRef cls = tiled_class(failing_tile, 0);
    QZTiledLayerClassSetFadeDuration(cls, -1);              CHECK_ERROR(QZErrorOutOfRange);
    QZTiledLayerClassSetFadeDuration(cls, NAN);             CHECK_ERROR(QZErrorNotFinite);
    CHECK(QZTiledLayerClassGetFadeDuration(cls) == 0);

    /* A drawing that fails, huge and zero levels, a tiny tile on a huge
     * layer (more tiles than a frame shows): no crash, no hang. */
    l = CALayerCreateWithClass(cls);
    CALayerSetAnchorPoint(l, CGPointMake(0, 0));
    CALayerSetBounds(l, CGRectMake(0, 0, 1e9, 1e9));
    CATiledLayerSetLevelsOfDetail(l, 0);
    CATiledLayerSetTileSize(l, CGSizeMake(1, 1));
    CHECK_NO_ERROR();
    Scene s = scene(l, 64, 64, true);
    frame(&s, 1);
    CHECK_NO_ERROR();
    view(l, 1e-6, 0, 0);                                       /* the whole layer in 1000 pixels */
    frame(&s, 2);
    CATiledLayerSetLevelsOfDetail(l, 100000000);
    CATiledLayerSetLevelsOfDetailBias(l, 100000000);
    CHECK_NO_ERROR();
    frame(&s, 3);
    view(l, 1e12, 5e8, 5e8);
    frame(&s, 4);
    CHECK_NO_ERROR();
    free_scene(&s);
    CARelease(l);
    CARelease(cls);
}

int main(void) {
    RUN(visible_tiles_at_three_zooms_and_pan);
    RUN(clipped_by_ancestors_and_perspective);
    RUN(workers_draw_concurrently_and_frames_do_not_wait);
    RUN(delegate_replaced_while_tiles_draw);
    RUN(tiles_fade_in);
    RUN(cache_budget_while_panning_and_redraw_in_rect);
    RUN(stress_tree_changes_while_tiles_draw);
    RUN(bad_input);
    QZTiledLayerCancelPendingTiles(60);
    return qz_summary();
}
