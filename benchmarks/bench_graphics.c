/*
 * bench_graphics.c — Core Graphics drawing and the display cycle, with their
 * references measured in the same run.
 *
 *   a  1000 random paths (lines and cubic curves, 3 to 8 segments, closed)
 *      into a 1920x1080 context: each filled with a translucent colour, then
 *      stroked with a width of 1 to 8 and round joins. Quartzite's CGContext
 *      against the same calls made to cairo directly in C (the same random
 *      sequence, drawing into a buffer of its own). Target: at most 1.1x.
 *   b  the commit of a 1000-layer tree (a root and 999 layers of 64x64 whose
 *      class draws a gradient, a ring and a line) with 1, 10 and 100 layers
 *      marked for display. Reference: the same drawing into a 64x64 context
 *      that many times (what the commit cannot avoid). The ratio shows the
 *      commit costs about the drawing, whatever the tree's size (the
 *      reference draws into as many buffers as there are dirty layers).
 *   c  a 256x256 layer whose custom key ("progress") animates: frames per
 *      second through the display cycle (CARenderer frames, each redrawing
 *      the presentation copy) against drawing the same picture directly
 *      into a 256x256 context.
 * Every round runs both sides once (interleaved); the best round is kept.
 *
 * Usage: bench_graphics [--reps R] [--paths N] [--frames F]
 * Exit status 1 when the library records an error or the two sides of (a)
 * draw different pictures.
 */
#define _GNU_SOURCE
#include <cairo.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <quartzite/quartzite.h>

enum { W = 1920, H = 1080 };
static const double PI = 3.14159265358979323846;

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

/* A small deterministic generator (the same sequence for both sides). */
static uint64_t rng_state;
static double rnd(void) {
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

/* MARK: - a: random paths */

typedef struct {
    int segments;
    double pts[8][6];   /* per segment: kind (0 line, 1 curve) in [0], then up to 3 points */
    int curve[8];
    double x0, y0, width, fill[4], stroke[4];
} random_path;

static random_path *make_paths(int n) {
    random_path *p = calloc((size_t)n, sizeof *p);
    rng_state = 13;
    for (int i = 0; i < n; i++) {
        double cx = rnd() * W, cy = rnd() * H, r = 20 + rnd() * 120;
        p[i].x0 = cx + (rnd() - 0.5) * r;
        p[i].y0 = cy + (rnd() - 0.5) * r;
        p[i].segments = 3 + (int)(rnd() * 6);
        for (int s = 0; s < p[i].segments; s++) {
            p[i].curve[s] = rnd() < 0.5;
            for (int k = 0; k < 6; k += 2) {
                p[i].pts[s][k] = cx + (rnd() - 0.5) * 2 * r;
                p[i].pts[s][k + 1] = cy + (rnd() - 0.5) * 2 * r;
            }
        }
        p[i].width = 1 + rnd() * 7;
        for (int k = 0; k < 3; k++) { p[i].fill[k] = rnd(); p[i].stroke[k] = rnd(); }
        p[i].fill[3] = 0.3 + 0.5 * rnd();
        p[i].stroke[3] = 1;
    }
    return p;
}

static void draw_paths_quartzite(CGContextRef c, const random_path *p, int n) {
    CGContextSetLineJoin(c, kCGLineJoinRound);
    for (int i = 0; i < n; i++) {
        CGContextMoveToPoint(c, p[i].x0, p[i].y0);
        for (int s = 0; s < p[i].segments; s++) {
            const double *q = p[i].pts[s];
            if (p[i].curve[s]) CGContextAddCurveToPoint(c, q[0], q[1], q[2], q[3], q[4], q[5]);
            else CGContextAddLineToPoint(c, q[4], q[5]);
        }
        CGContextClosePath(c);
        CGContextSetRGBFillColor(c, p[i].fill[0], p[i].fill[1], p[i].fill[2], p[i].fill[3]);
        CGContextSetRGBStrokeColor(c, p[i].stroke[0], p[i].stroke[1], p[i].stroke[2], p[i].stroke[3]);
        CGContextSetLineWidth(c, p[i].width);
        CGContextDrawPath(c, kCGPathFillStroke);
    }
}

static void draw_paths_cairo(cairo_t *cr, const random_path *p, int n) {
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    for (int i = 0; i < n; i++) {
        cairo_move_to(cr, p[i].x0, p[i].y0);
        for (int s = 0; s < p[i].segments; s++) {
            const double *q = p[i].pts[s];
            if (p[i].curve[s]) cairo_curve_to(cr, q[0], q[1], q[2], q[3], q[4], q[5]);
            else cairo_line_to(cr, q[4], q[5]);
        }
        cairo_close_path(cr);
        cairo_set_source_rgba(cr, p[i].fill[0], p[i].fill[1], p[i].fill[2], p[i].fill[3]);
        cairo_fill_preserve(cr);
        cairo_set_source_rgba(cr, p[i].stroke[0], p[i].stroke[1], p[i].stroke[2], p[i].stroke[3]);
        cairo_set_line_width(cr, p[i].width);
        cairo_stroke(cr);
    }
}

/* MARK: - b and c: the drawing of a layer */

static void draw_badge(CGContextRef ctx, double w, double h, double progress) {
    static CGGradientRef gradient;
    if (!gradient) {
        CGColorSpaceRef rgb = CGColorSpaceCreateDeviceRGB();
        CGFloat comps[] = { 0.2, 0.4, 0.9, 1,  0.9, 0.5, 0.2, 1 };
        gradient = CGGradientCreateWithColorComponents(rgb, comps, NULL, 2);
        CGColorSpaceRelease(rgb);
    }
    CGContextDrawLinearGradient(ctx, gradient, CGPointMake(0, 0), CGPointMake(w, h), 0);
    CGContextSetLineWidth(ctx, w / 16);
    CGContextSetLineCap(ctx, kCGLineCapRound);
    CGContextSetRGBStrokeColor(ctx, 1, 1, 1, 0.9);
    CGContextAddArc(ctx, w / 2, h / 2, w * 0.35, -PI / 2, -PI / 2 + 2 * PI * progress, 0);
    CGContextStrokePath(ctx);
    CGContextSetRGBStrokeColor(ctx, 0, 0, 0, 0.5);
    CGContextSetLineWidth(ctx, 1.5);
    CGContextMoveToPoint(ctx, 4, h - 4);
    CGContextAddLineToPoint(ctx, w - 4, 4);
    CGContextStrokePath(ctx);
}

static void layer_draw(CALayerRef layer, CGContextRef ctx, void *info) {
    (void)info;
    CGRect b = CALayerGetBounds(layer);
    double p = CALayerGetNumberForKeyPath(layer, "progress");
    draw_badge(ctx, b.size.width, b.size.height, p);
}

static bool progress_needs_display(CALayerClassRef cls, const char *key, void *info) {
    (void)cls; (void)info;
    return strcmp(key, "progress") == 0;
}

static double media_now;
static CFTimeInterval media_source(void *info) { (void)info; return media_now; }

static int check_errors(const char *where) {
    if (QZGetLastError() != QZErrorNone) {
        fprintf(stderr, "bench_graphics: %s recorded an error: %s\n", where, QZGetLastErrorMessage());
        return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    int reps = 5, npaths = 1000, frames = 60;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--paths")) npaths = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--frames")) frames = atoi(argv[i + 1]);
    }
    int status = 0;

    /* a */
    random_path *paths = make_paths(npaths);
    CVPixelBufferRef pb = NULL;
    CVPixelBufferCreate(NULL, W, H, kCVPixelFormatType_32BGRA, NULL, &pb);
    CGContextRef qctx = QZBitmapContextCreateWithPixelBuffer(pb);
    uint8_t *cmem = calloc((size_t)W * H, 4);
    cairo_surface_t *cs = cairo_image_surface_create_for_data(cmem, CAIRO_FORMAT_ARGB32, W, H, W * 4);
    cairo_t *cr = cairo_create(cs);
    double best_q = 1e9, best_c = 1e9;
    QZClearLastError();
    for (int r = 0; r < reps; r++) {
        CGContextClearRect(qctx, CGRectMake(0, 0, W, H));
        double t0 = now_s();
        draw_paths_quartzite(qctx, paths, npaths);
        double t1 = now_s();
        memset(cmem, 0, (size_t)W * H * 4);
        cairo_surface_mark_dirty(cs);
        double t2 = now_s();
        draw_paths_cairo(cr, paths, npaths);
        cairo_surface_flush(cs);
        double t3 = now_s();
        if (t1 - t0 < best_q) best_q = t1 - t0;
        if (t3 - t2 < best_c) best_c = t3 - t2;
    }
    status |= check_errors("scene a");
    /* Same picture? */
    const uint8_t *qmem = CVPixelBufferGetBaseAddress(pb);
    size_t qbpr = CVPixelBufferGetBytesPerRow(pb);
    long differ = 0;
    int worst = 0;
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W * 4; x++) {
            int d = abs((int)qmem[y * qbpr + x] - (int)cmem[(size_t)y * W * 4 + x]);
            if (d > worst) worst = d;
            if (d > 2) differ++;
        }
    }
    printf("a  %d random filled and stroked paths, 1920x1080: Quartzite %.2f ms, cairo %.2f ms "
           "(channels differing by more than 2: %ld, largest difference %d)\n",
           npaths, best_q * 1e3, best_c * 1e3, differ, worst);
    if (differ > 0) status = 1;
    double ratio_a = best_q / best_c;
    printf("SUMMARY graphics a: %d paths via CGContext / cairo in C: %.3fx (target <= 1.1x: %s)\n", npaths, ratio_a,
           ratio_a <= 1.1 ? "met" : "NOT met");
    cairo_destroy(cr);
    cairo_surface_destroy(cs);
    free(cmem);
    CGContextRelease(qctx);
    CVPixelBufferRelease(pb);
    free(paths);

    /* b */
    CALayerClassCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.drawInContext = layer_draw;
    cb.needsDisplayForKey = progress_needs_display;
    CALayerClassRef cls = CALayerClassCreate("Badge", NULL, &cb, NULL);
    CALayerRef root = CALayerCreate();
    CALayerSetBounds(root, CGRectMake(0, 0, W, H));
    enum { N = 999 };
    CALayerRef *layers = malloc(sizeof *layers * N);
    for (int i = 0; i < N; i++) {
        layers[i] = CALayerCreateWithClass(cls);
        CALayerSetFrame(layers[i], CGRectMake((i % 37) * 50, (i / 37) * 40, 64, 64));
        CALayerSetNumberForKeyPath(layers[i], "progress", 0.7);
        CALayerAddSublayer(root, layers[i]);
    }
    for (int i = 0; i < N; i++) CALayerSetNeedsDisplay(layers[i]);
    CATransactionFlush();                    /* every backing store made once */
    /* The reference draws into as many 64x64 buffers as there are dirty
     * layers (the same memory the commit draws into). */
    enum { MAX_DIRTY = 100 };
    CVPixelBufferRef small[MAX_DIRTY];
    CGContextRef sctx[MAX_DIRTY];
    for (int i = 0; i < MAX_DIRTY; i++) {
        small[i] = NULL;
        CVPixelBufferCreate(NULL, 64, 64, kCVPixelFormatType_32BGRA, NULL, &small[i]);
        sctx[i] = QZBitmapContextCreateWithPixelBuffer(small[i]);
    }
    const int dirty_counts[] = { 1, 10, 100 };
    double empty_commit = 1e9;
    for (int r = 0; r < reps * 4; r++) {
        CALayerSetPosition(layers[0], CGPointMake(32, 32));   /* a change, nothing to draw */
        double t0 = now_s();
        CATransactionFlush();
        double t1 = now_s();
        if (t1 - t0 < empty_commit) empty_commit = t1 - t0;
    }
    printf("b  a 1000-layer tree: a commit with nothing to draw %.1f us\n", empty_commit * 1e6);
    for (int k = 0; k < 3; k++) {
        int n = dirty_counts[k];
        double best_commit = 1e9, best_draw = 1e9;
        for (int r = 0; r < reps * 2; r++) {
            for (int i = 0; i < n; i++) CALayerSetNeedsDisplay(layers[(i * 97) % N]);
            double t0 = now_s();
            CATransactionFlush();
            double t1 = now_s();
            for (int i = 0; i < n; i++) {
                CGContextClearRect(sctx[i], CGRectMake(0, 0, 64, 64));
                draw_badge(sctx[i], 64, 64, 0.7);
            }
            double t2 = now_s();
            if (t1 - t0 < best_commit) best_commit = t1 - t0;
            if (t2 - t1 < best_draw) best_draw = t2 - t1;
        }
        printf("b  %3d dirty of 1000: commit %.1f us, %d direct draws of a 64x64 layer %.1f us (%.1f us per layer)\n",
               n, best_commit * 1e6, n, best_draw * 1e6, best_commit * 1e6 / n);
        printf("SUMMARY graphics b: commit of 1000 layers with %d dirty / %d draws of that layer: %.2fx\n", n, n,
               best_commit / best_draw);
    }
    status |= check_errors("scene b");
    for (int i = 0; i < N; i++) CARelease(layers[i]);
    free(layers);
    CARelease(root);

    /* c */
    QZSetMediaTimeSource(media_source, NULL);
    media_now = 100;
    CALayerRef animated = CALayerCreateWithClass(cls);
    CALayerSetBounds(animated, CGRectMake(0, 0, 256, 256));
    CALayerSetPosition(animated, CGPointMake(128, 128));
    CALayerSetNumberForKeyPath(animated, "progress", 1);
    CATransactionFlush();
    CAAnimationRef anim = CABasicAnimationCreate("progress");
    CAValueRef from = CAValueCreateNumber(0), to = CAValueCreateNumber(1);
    CABasicAnimationSetFromValue(anim, from);
    CABasicAnimationSetToValue(anim, to);
    CAAnimationSetDuration(anim, 1);          /* 0 -> 1 each second, as the direct side */
    CAAnimationSetRepeatCount(anim, 1e9f);
    CALayerAddAnimation(animated, anim, "progress");
    CATransactionFlush();
    CVPixelBufferRef target = NULL, direct = NULL;
    CVPixelBufferCreate(NULL, 256, 256, kCVPixelFormatType_32BGRA, NULL, &target);
    CVPixelBufferCreate(NULL, 256, 256, kCVPixelFormatType_32BGRA, NULL, &direct);
    CARendererRef renderer = CARendererCreate(target, NULL);
    CARendererSetLayer(renderer, animated);
    CGContextRef dctx = QZBitmapContextCreateWithPixelBuffer(direct);
    double best_cycle = 1e9, best_direct = 1e9;
    for (int r = 0; r < reps; r++) {
        double t0 = now_s();
        for (int f = 0; f < frames; f++) {
            media_now += 1.0 / 60;
            CARendererBeginFrameAtTime(renderer, media_now, NULL);
            CARendererRender(renderer);
            CARendererEndFrame(renderer);
        }
        double t1 = now_s();
        for (int f = 0; f < frames; f++) {
            CGContextClearRect(dctx, CGRectMake(0, 0, 256, 256));
            draw_badge(dctx, 256, 256, fmod(f / 60.0, 1));
        }
        double t2 = now_s();
        if (t1 - t0 < best_cycle) best_cycle = t1 - t0;
        if (t2 - t1 < best_direct) best_direct = t2 - t1;
    }
    status |= check_errors("scene c");
    double fps_cycle = frames / best_cycle, fps_direct = frames / best_direct;
    printf("c  256x256 layer, animated custom key: %.0f frames/s through the display cycle (CARenderer), "
           "%.0f drawings/s directly\n", fps_cycle, fps_direct);
    printf("SUMMARY graphics c: animated custom key, display cycle frame / direct drawing: %.2fx (%.0f vs %.0f fps)\n",
           fps_direct / fps_cycle, fps_cycle, fps_direct);
    CGContextRelease(dctx);
    CARelease(renderer);
    CVPixelBufferRelease(target);
    CVPixelBufferRelease(direct);
    CARelease(anim); CARelease(from); CARelease(to);
    CARelease(animated);
    CARelease(cls);
    for (int i = 0; i < MAX_DIRTY; i++) {
        CGContextRelease(sctx[i]);
        CVPixelBufferRelease(small[i]);
    }
    QZSetMediaTimeSource(NULL, NULL);
    return status;
}
