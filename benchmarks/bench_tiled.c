/* bench_tiled — CATiledLayer, two ratios measured in the same run:
 *
 * a) Panning a cached layer of 10,000 tiles (100 x 100 tiles of 64 x 64
 *    points) through a 640 x 480 renderer: the time per frame, against the
 *    same frames with the tiles as 10,000 plain image layers (each showing
 *    the same 64 x 64 pixel buffer) in a container panned the same way.
 *    and against the same frames with only the tiles each frame shows as
 *    image layers (a prepared tree per frame, swapped in with
 *    CARendererSetLayer). All are full redraws of the target; close to 1x
 *    against the second is the goal (the first mostly measures the walk of
 *    10,000 layers that a tiled layer avoids).
 * b) Cold tiles: tiles drawn per second with 2 worker threads against 1
 *    (a frame that waits for 192 new tiles, each drawn with 40 cairo
 *    ellipses): close to 2x on 2 free cores.
 *
 * Rounds interleave the sides (best of --reps, default 3). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <quartzite/quartzite.h>

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void flat_tile(CALayerRef layer, CGContextRef ctx, void *info) {
    (void)layer; (void)info;
    CGRect r = CGContextGetClipBoundingBox(ctx);
    CGContextSetRGBFillColor(ctx, fmod(r.origin.x / 6400, 1), fmod(r.origin.y / 6400, 1), 0.5, 1);
    CGContextFillRect(ctx, r);
}

static void busy_tile(CALayerRef layer, CGContextRef ctx, void *info) {
    (void)layer; (void)info;
    CGRect r = CGContextGetClipBoundingBox(ctx);
    for (int i = 0; i < 40; i++) {
        CGContextSetRGBFillColor(ctx, (i % 7) / 7.0, (i % 5) / 5.0, (i % 3) / 3.0, 0.5);
        CGContextFillEllipseInRect(ctx, CGRectMake(r.origin.x + (i * 13) % 48, r.origin.y + (i * 29) % 48, 16 + i % 9, 12 + i % 11));
    }
}

static CALayerClassRef make_class(const char *name, void (*draw)(CALayerRef, CGContextRef, void *)) {
    CALayerClassCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.drawInContext = draw;
    CALayerClassRef cls = CALayerClassCreate(name, CALayerClassGetBuiltin("CATiledLayer"), &cb, NULL);
    QZTiledLayerClassSetFadeDuration(cls, 0);
    return cls;
}

static void place(CALayerRef l, double x, double y) {
    CATransactionBegin();
    CATransactionSetDisableActions(true);
    CALayerSetPosition(l, CGPointMake(-x, -y));
    CATransactionCommit();
}

static void frame(CARendererRef r, double t) {
    CARendererBeginFrameAtTime(r, t, NULL);
    CARendererRender(r);
    CARendererEndFrame(r);
}

int main(int argc, char **argv) {
    int reps = 3, quick = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--quick")) quick = 1;
    }
    if (reps < 1) reps = 1;
    const int W = 640, H = 480, N = 100;
    const int pans = quick ? 40 : 120;
    int failures = 0;

    /* a) The tiled layer, every tile drawn once beforehand (budget raised to hold all). */
    QZTiledLayerSetCacheMemoryLimit((size_t)512 << 20);
    CALayerClassRef flat = make_class("BenchFlatTiles", flat_tile);
    CALayerRef tiled = CALayerCreateWithClass(flat);
    CATiledLayerSetTileSize(tiled, CGSizeMake(64, 64));
    CALayerSetAnchorPoint(tiled, CGPointMake(0, 0));
    CALayerSetBounds(tiled, CGRectMake(0, 0, N * 64, N * 64));
    CALayerRef root_a = CALayerCreate();
    CALayerSetFrame(root_a, CGRectMake(0, 0, W, H));
    CALayerAddSublayer(root_a, tiled);
    CVPixelBufferRef pb_a = NULL, pb_b = NULL;
    CVPixelBufferCreate(NULL, W, H, kCVPixelFormatType_32BGRA, NULL, &pb_a);
    CVPixelBufferCreate(NULL, W, H, kCVPixelFormatType_32BGRA, NULL, &pb_b);
    CARendererRef ra = CARendererCreate(pb_a, NULL);
    CARendererSetLayer(ra, root_a);
    QZRendererSetWaitsForTiles(ra, true);
    double t = 1;
    for (int y = 0; y < N * 64; y += H)
        for (int x = 0; x < N * 64; x += W) { place(tiled, x, y); frame(ra, t += 1); }
    unsigned long long cached = QZTiledLayerGetDrawnTileCount();

    /* The reference: 10,000 image layers with one 64 x 64 buffer each. */
    CALayerRef root_b = CALayerCreate();
    CALayerSetFrame(root_b, CGRectMake(0, 0, W, H));
    CALayerRef plane = CALayerCreate();
    CALayerSetAnchorPoint(plane, CGPointMake(0, 0));
    CALayerSetBounds(plane, CGRectMake(0, 0, N * 64, N * 64));
    CALayerAddSublayer(root_b, plane);
    CVPixelBufferRef *images = calloc((size_t)N * N, sizeof *images);
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) {
            CVPixelBufferRef img = NULL;
            CVPixelBufferCreate(NULL, 64, 64, kCVPixelFormatType_32BGRA, NULL, &img);
            CVPixelBufferLockBaseAddress(img, 0);
            unsigned char *p = CVPixelBufferGetBaseAddress(img);
            for (size_t k = 0; k < CVPixelBufferGetBytesPerRow(img) * 64; k += 4) {
                p[k] = 128; p[k + 1] = (unsigned char)(j * 2); p[k + 2] = (unsigned char)(i * 2); p[k + 3] = 255;
            }
            CVPixelBufferUnlockBaseAddress(img, 0);
            CALayerRef l = CALayerCreate();
            CALayerSetFrame(l, CGRectMake(i * 64, j * 64, 64, 64));
            CALayerSetContents(l, img);
            CALayerAddSublayer(plane, l);
            CARelease(l);
            images[j * N + i] = img;
        }
    CARendererRef rb = CARendererCreate(pb_b, NULL);
    CARendererSetLayer(rb, root_b);
    frame(rb, 1);

    /* The second reference: per pan position, a tree of only the visible tiles. */
    CALayerRef *visible_roots = calloc((size_t)pans, sizeof *visible_roots);
    for (int k = 0; k < pans; k++) {
        double x = fmod(k * 37.0, N * 64 - W), y = fmod(k * 23.0, N * 64 - H);
        CALayerRef vr = CALayerCreate();
        CALayerSetFrame(vr, CGRectMake(0, 0, W, H));
        for (int j = (int)floor(y / 64); j < (int)ceil((y + H) / 64) && j < N; j++)
            for (int i = (int)floor(x / 64); i < (int)ceil((x + W) / 64) && i < N; i++) {
                CALayerRef l = CALayerCreate();
                CALayerSetFrame(l, CGRectMake(i * 64 - x, j * 64 - y, 64, 64));
                CALayerSetContents(l, images[j * N + i]);
                CALayerAddSublayer(vr, l);
                CARelease(l);
            }
        visible_roots[k] = vr;
    }
    CVPixelBufferRef pb_c = NULL;
    CVPixelBufferCreate(NULL, W, H, kCVPixelFormatType_32BGRA, NULL, &pb_c);
    CARendererRef rc = CARendererCreate(pb_c, NULL);

    double best_a = INFINITY, best_b = INFINITY, best_c = INFINITY;
    for (int rep = 0; rep < reps; rep++) {
        double t0c = now_s();
        for (int k = 0; k < pans; k++) {
            CARendererSetLayer(rc, visible_roots[k]);
            frame(rc, t += 1);
        }
        best_c = fmin(best_c, (now_s() - t0c) / pans);
        for (int side = 0; side < 2; side++) {
            CALayerRef moved = side == 0 ? tiled : plane;
            CARendererRef r = side == 0 ? ra : rb;
            double t0 = now_s();
            for (int k = 0; k < pans; k++) {
                /* A diagonal pan over the whole layer, 37 points a frame. */
                double x = fmod(k * 37.0, N * 64 - W), y = fmod(k * 23.0, N * 64 - H);
                place(moved, x, y);
                frame(r, t += 1);
            }
            double per = (now_s() - t0) / pans;
            if (side == 0) best_a = fmin(best_a, per); else best_b = fmin(best_b, per);
        }
    }
    if (QZTiledLayerGetDrawnTileCount() != cached) {
        fprintf(stderr, "bench_tiled: tiles were drawn again while panning the cached layer\n");
        failures++;
    }
    printf("a) panning a cached 10,000-tile layer, %dx%d: tiled %.3f ms/frame, the visible tiles as image layers "
           "%.3f ms/frame, all 10,000 tiles as image layers %.3f ms/frame\n", W, H, best_a * 1e3, best_c * 1e3, best_b * 1e3);
    printf("SUMMARY tiled a: panning a cached 10,000-tile layer vs its visible tiles as image layers: %.2fx "
           "(time ratio; target close to 1x); vs all 10,000 tiles as image layers: %.2fx\n", best_a / best_c, best_a / best_b);

    /* b) Cold tiles on 1 and 2 workers: a new layer each time (nothing cached). */
    CALayerClassRef busy = make_class("BenchBusyTiles", busy_tile);
    double rate[3] = { 0, 0, 0 };
    const int cols = quick ? 8 : 16, rows = 12;
    for (int rep = 0; rep < reps; rep++) {
        for (int workers = 1; workers <= 2; workers++) {
            QZTiledLayerSetWorkerThreadCount((size_t)workers);
            CALayerRef l = CALayerCreateWithClass(busy);
            CATiledLayerSetTileSize(l, CGSizeMake(64, 64));
            CALayerSetFrame(l, CGRectMake(0, 0, cols * 64, rows * 64));
            CALayerRef root = CALayerCreate();
            CALayerSetFrame(root, CGRectMake(0, 0, cols * 64, rows * 64));
            CALayerAddSublayer(root, l);
            CVPixelBufferRef pb = NULL;
            CVPixelBufferCreate(NULL, cols * 64, rows * 64, kCVPixelFormatType_32BGRA, NULL, &pb);
            CARendererRef r = CARendererCreate(pb, NULL);
            CARendererSetLayer(r, root);
            QZRendererSetWaitsForTiles(r, true);
            unsigned long long before = QZTiledLayerGetDrawnTileCount();
            double t0 = now_s();
            frame(r, 1);
            double dt = now_s() - t0;
            unsigned long long n = QZTiledLayerGetDrawnTileCount() - before;
            if (n != (unsigned long long)(cols * rows)) {
                fprintf(stderr, "bench_tiled: %llu tiles drawn, %d expected\n", n, cols * rows);
                failures++;
            }
            rate[workers] = fmax(rate[workers], (double)n / dt);
            CARelease(r);
            CVPixelBufferRelease(pb);
            CARelease(root);
            CARelease(l);
        }
    }
    QZTiledLayerSetWorkerThreadCount(0);
    printf("b) cold tiles (%d a frame, 40 ellipses each): 1 worker %.0f tiles/s, 2 workers %.0f tiles/s\n",
           cols * rows, rate[1], rate[2]);
    printf("SUMMARY tiled b: cold tiles drawn per second, 2 workers vs 1: %.2fx (target close to 2x on 2 free cores)\n",
           rate[2] / rate[1]);

    if (QZGetLastError() != QZErrorNone) {
        fprintf(stderr, "bench_tiled: the library recorded an error: %s\n", QZGetLastErrorMessage());
        failures++;
    }
    QZTiledLayerCancelPendingTiles(30);
    CARelease(ra); CARelease(rb); CARelease(rc);
    CVPixelBufferRelease(pb_c);
    for (int k = 0; k < pans; k++) CARelease(visible_roots[k]);
    free(visible_roots);
    CVPixelBufferRelease(pb_a); CVPixelBufferRelease(pb_b);
    CARelease(root_a); CARelease(root_b); CARelease(plane); CARelease(tiled);
    for (int k = 0; k < N * N; k++) CVPixelBufferRelease(images[k]);
    free(images);
    CARelease(flat); CARelease(busy);
    return failures ? 1 : 0;
}
