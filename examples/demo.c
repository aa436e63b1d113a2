/* Quartzite demo: a short animated scene rendered frame by frame through
 * CARenderer into a pixel buffer under a controlled media clock, written as
 * PNG frames and an animated PNG under the output directory (argv[1], "out"
 * by default), or, when asked, as an H.264 MP4 through FFmpeg's libraries.
 *
 * Usage: demo [OUTDIR] [--mp4 FILE] [--fps N] [--width W] [--threads-bench N]
 *   --mp4 FILE   write FILE (H.264 in MP4) instead of the PNG files; needs a
 *                demo built with FFmpeg (QZ_DEMO_HAVE_FFMPEG, which the
 *                Makefile sets when pkg-config finds libavcodec, libavformat
 *                and libswscale)
 *   --fps N      frames per second (default 24; the scene lasts 3 s)
 *   --width W    frame width (default 320; the height is 3/4 of it, the
 *                scene scaled to fit)
 *   --threads-bench N  no files: renders the frames, then redraws the whole
 *                of the busiest one (most draw operations) on 1 and on N
 *                threads (QZRendererSetThreadCount), checks the bytes are
 *                identical and prints the times (benchmarks/run.sh runs it)
 * Long renders show their progress on stderr.
 *
 * The scene, over a gradient backdrop (CAGradientLayer): a photo card
 * flipping about the y axis under a perspective
 * sublayerTransform (3D flip, rounded corners, shadow, border); a ball
 * following a curved path (keyframe animation along a CGPath); a tile that
 * scales, spins and fades (an animation group); a badge that pops in on a
 * spring (CASpringAnimation); a check mark drawn by an animated strokeEnd
 * (CAShapeLayer); a progress bar and a badge
 * moving to new model values by implicit animations (property changes inside
 * CATransactions with their own durations and timing); and a panel whose
 * colour changes with a push transition half-way through. Content drawn
 * with Core Graphics: the card's photo is a PNG file (examples/assets/
 * landscape.png) decoded into a CGImage, and a progress ring is a layer
 * class that draws itself (drawInContext, cairo underneath) from a custom
 * property, "progress", whose animation redraws it every frame. Text
 * (CATextLayer, laid out by Pango): a title from an attributed string with
 * two fonts and colours, the card's caption, a counter on the badge whose
 * text changes every frame, and a label mixing Latin, Arabic and
 * Devanagari. Only the counter is laid out again as frames go by. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <quartzite/quartzite.h>
#include "apng_writer.h"
#ifdef QZ_DEMO_HAVE_FFMPEG
#include "video_writer.h"
#endif

/* The scene's own size, in points, and length. */
enum { WIDTH = 320, HEIGHT = 240, SECONDS = 3 };
static const double PI = 3.14159265358979323846;

static double media_now = 0;
static CFTimeInterval clock_source(void *info) { return *(const double *)info; }

static CALayerRef make_layer(CALayerRef parent, double x, double y, double w, double h,
                             double r, double g, double b, double a) {
    CALayerRef l = CALayerCreate();
    CALayerSetFrame(l, CGRectMake(x, y, w, h));
    CGColorRef c = CGColorCreateSRGB(r, g, b, a);
    CALayerSetBackgroundColor(l, c);
    CGColorRelease(c);
    if (parent) CALayerAddSublayer(parent, l);
    return l;
}

static void set_shadow(CALayerRef l, double opacity, double radius, double dx, double dy) {
    CALayerSetShadowOpacity(l, (float)opacity);
    CALayerSetShadowRadius(l, radius);
    CALayerSetShadowOffset(l, CGSizeMake(dx, dy));
}

#ifndef QZ_ASSETS_DIR
#define QZ_ASSETS_DIR "examples/assets"
#endif

/* A PNG file decoded into a CGImage (+1), or NULL. */
static CGImageRef load_png(const char *path) {
    CGDataProviderRef provider = CGDataProviderCreateWithFilename(path);
    if (!provider) return NULL;
    CGImageRef image = CGImageCreateWithPNGDataProvider(provider, NULL, true, kCGRenderingIntentDefault);
    CGDataProviderRelease(provider);
    return image;
}

/* The progress ring: a layer class whose "progress" key needs display. */
static bool ring_needs_display(CALayerClassRef cls, const char *key, void *info) {
    (void)cls; (void)info;
    return strcmp(key, "progress") == 0;
}

static void ring_draw(CALayerRef layer, CGContextRef ctx, void *info) {
    (void)info;
    double progress = CALayerGetNumberForKeyPath(layer, "progress");
    CGRect b = CALayerGetBounds(layer);
    double cx = b.size.width / 2, cy = b.size.height / 2, r = b.size.width / 2 - 8;
    /* The track, then the arc from the top, clockwise on screen. */
    CGContextSetLineWidth(ctx, 9);
    CGContextSetRGBStrokeColor(ctx, 1, 1, 1, 0.15);
    CGContextStrokeEllipseInRect(ctx, CGRectMake(cx - r, cy - r, 2 * r, 2 * r));
    CGContextSetLineCap(ctx, kCGLineCapRound);
    CGContextSetRGBStrokeColor(ctx, 0.95 - 0.6 * progress, 0.45 + 0.4 * progress, 0.3, 1);
    CGContextAddArc(ctx, cx, cy, r, -PI / 2, -PI / 2 + 2 * PI * progress, 0);
    CGContextStrokePath(ctx);
    /* A disc whose glow grows with the progress. */
    CGColorSpaceRef rgb = CGColorSpaceCreateDeviceRGB();
    CGFloat comps[] = { 1, 1, 1, 0.9,  0.4, 0.8, 1, 0 };
    CGGradientRef glow = CGGradientCreateWithColorComponents(rgb, comps, NULL, 2);
    CGContextDrawRadialGradient(ctx, glow, CGPointMake(cx, cy), 0, CGPointMake(cx, cy), 6 + (r - 14) * progress, 0);
    CGGradientRelease(glow);
    CGColorSpaceRelease(rgb);
}

/* A CATextLayer with a plain string. */
static CALayerRef make_label(CALayerRef parent, double x, double y, double w, double h, const char *text,
                             const char *font, double size, double r, double g, double b, const char *alignment) {
    CALayerRef l = CATextLayerCreate();
    CALayerSetFrame(l, CGRectMake(x, y, w, h));
    CAValueRef s = CAValueCreateString(text), f = CAValueCreateString(font);
    CATextLayerSetString(l, s);
    CATextLayerSetFont(l, f);
    CARelease(s); CARelease(f);
    CATextLayerSetFontSize(l, size);
    CGColorRef c = CGColorCreateSRGB(r, g, b, 1);
    CATextLayerSetForegroundColor(l, c);
    CGColorRelease(c);
    CATextLayerSetAlignmentMode(l, alignment);
    CALayerSetContentsScale(l, 2);
    CALayerAddSublayer(parent, l);
    return l;
}

/* Sets an attribute over [start, start + length) of `s`. */
static void set_attribute(CFMutableAttributedStringRef s, CFIndex start, CFIndex length, const char *name, const void *value) {
    CFAttributedStringSetAttribute(s, CFRangeMake(start, length), name, value);
}

static void add_basic(CALayerRef l, const char *keyPath, CAValueRef from, CAValueRef to, double duration,
                      bool autoreverses, float repeat, const char *timing) {
    CAAnimationRef a = CABasicAnimationCreate(keyPath);
    if (from) CABasicAnimationSetFromValue(a, from);
    if (to) CABasicAnimationSetToValue(a, to);
    CAAnimationSetDuration(a, duration);
    CAAnimationSetAutoreverses(a, autoreverses);
    CAAnimationSetRepeatCount(a, repeat);
    if (timing) {
        CAMediaTimingFunctionRef f = CAMediaTimingFunctionCreateWithName(timing);
        CAAnimationSetTimingFunction(a, f);
        CARelease(f);
    }
    CALayerAddAnimation(l, a, keyPath);
    CARelease(a);
    CARelease(from);
    CARelease(to);
}

/* A progress line on stderr: rewritten in place on a terminal, a line per
 * quarter otherwise (logs). */
static void show_progress(const char *what, int done, int total) {
    static int last_quarter = -1;
    if (isatty(STDERR_FILENO)) {
        fprintf(stderr, "\r  %s: frame %d/%d (%d%%)%s", what, done, total, 100 * done / total, done == total ? "\n" : "");
    } else if (4 * done / total != last_quarter) {
        last_quarter = 4 * done / total;
        fprintf(stderr, "  %s: frame %d/%d (%d%%)\n", what, done, total, 100 * done / total);
    }
}

static double seconds_of(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Whole redraws of the frame at `t` on 1 and on `threads` threads: the bytes
 * compared, then the best of 7 interleaved rounds of 3 frames each (wall
 * time, and the busiest thread's CPU time: see bench_render.c). */
static int thread_bench(CARendererRef renderer, CVPixelBufferRef target, double t, int threads, size_t ops) {
    size_t w = CVPixelBufferGetWidth(target), h = CVPixelBufferGetHeight(target);
    size_t bpr = CVPixelBufferGetBytesPerRow(target);
    unsigned char *one = malloc(bpr * h);
    CGRect all = CGRectMake(0, 0, (double)w, (double)h);
    double best[2] = { INFINITY, INFINITY }, cpu[2] = { INFINITY, INFINITY };
    long differ = 0;
    for (int round = -1; round < 7; round++)
        for (int k = 0; k < 2; k++) {
            QZRendererSetThreadCount(renderer, k ? (size_t)threads : 1);
            double c0 = seconds_of(CLOCK_PROCESS_CPUTIME_ID), m0 = seconds_of(CLOCK_THREAD_CPUTIME_ID);
            double w0 = seconds_of(CLOCK_MONOTONIC);
            for (int f = 0; f < (round < 0 ? 1 : 3); f++) {
                CARendererBeginFrameAtTime(renderer, t, NULL);
                CARendererAddUpdateRect(renderer, all);
                CARendererRender(renderer);
                CARendererEndFrame(renderer);
            }
            double wall = (seconds_of(CLOCK_MONOTONIC) - w0) / 3;
            double mine = (seconds_of(CLOCK_THREAD_CPUTIME_ID) - m0) / 3;
            /* (A pool worker spinning for more bands on another core has
             * its latest time added to the process's once it sleeps.) */
            nanosleep(&(struct timespec){ 0, 2000000 }, NULL);
            double total = (seconds_of(CLOCK_PROCESS_CPUTIME_ID) - c0) / 3;
            double busiest = mine > total - mine ? mine : total - mine;
            CVPixelBufferLockBaseAddress(target, kCVPixelBufferLock_ReadOnly);
            const unsigned char *p = CVPixelBufferGetBaseAddress(target);
            if (round < 0 && k == 0) memcpy(one, p, bpr * h);
            if (round < 0 && k == 1)
                for (size_t i = 0; i < bpr * h; i++) differ += one[i] != p[i];
            CVPixelBufferUnlockBaseAddress(target, kCVPixelBufferLock_ReadOnly);
            if (round < 0) continue;
            if (wall < best[k]) best[k] = wall;
            if ((k ? busiest : total) < cpu[k]) cpu[k] = k ? busiest : total;
        }
    free(one);
    QZRendererSetThreadCount(renderer, 1);
    printf("  busiest frame: t = %.3f s, %zu draw operations, %zux%zu; %d threads vs 1: %ld bytes differ%s\n", t, ops, w, h,
           threads, differ, differ ? " (MUST be 0)" : " (identical)");
    printf("SUMMARY demo busiest frame on %d threads: %.2fx faster than one thread (%.3f ms vs %.3f ms; target >= 1.7x: %s), "
           "%.2fx on free cores (busiest thread's CPU time %.3f ms vs %.3f ms)%s\n", threads, best[0] / best[1],
           best[1] * 1e3, best[0] * 1e3, best[0] / best[1] >= 1.7 ? "met" : "NOT met", cpu[0] / cpu[1], cpu[1] * 1e3,
           cpu[0] * 1e3, differ ? ", pixels DIFFER" : ", pixels identical");
    return differ ? 1 : 0;
}

int main(int argc, char **argv) {
    const char *outdir = "out", *mp4 = NULL;
    int fps = 24, pixel_width = WIDTH, bench_threads = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--mp4") == 0 && i + 1 < argc) mp4 = argv[++i];
        else if (strcmp(argv[i], "--fps") == 0 && i + 1 < argc) fps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--width") == 0 && i + 1 < argc) pixel_width = atoi(argv[++i]);
        else if (strcmp(argv[i], "--threads-bench") == 0 && i + 1 < argc) bench_threads = atoi(argv[++i]);
        else if (argv[i][0] != '-') outdir = argv[i];
        else {
            fprintf(stderr, "usage: demo [OUTDIR] [--mp4 FILE] [--fps N] [--width W] [--threads-bench N]\n");
            return 2;
        }
    }
    if (fps < 1 || fps > 240 || pixel_width < 16 || pixel_width > 7680 || bench_threads < 0 || bench_threads > 64) {
        fprintf(stderr, "demo: --fps takes 1...240, --width 16...7680, --threads-bench 0...64\n");
        return 2;
    }
    const int frames = SECONDS * fps;
    const int pixel_height = (pixel_width * 3 / 4) & ~1;      /* even, for 4:2:0 video */
    pixel_width &= ~1;
    const double scale = (double)pixel_width / WIDTH;
#ifndef QZ_DEMO_HAVE_FFMPEG
    if (mp4) {
        fprintf(stderr, "demo: built without FFmpeg (libavcodec-dev, libavformat-dev, libswscale-dev): "
                        "no MP4; PNG and APNG output work without it\n");
        return 2;
    }
#endif
    QZSetMediaTimeSource(clock_source, &media_now);

    CALayerRef root = make_layer(NULL, 0, 0, WIDTH, HEIGHT, 0.10, 0.12, 0.18, 1);

    /* The backdrop: a CAGradientLayer from deep blue at the top to the
     * root's slate at the bottom. */
    CALayerRef backdrop = CAGradientLayerCreate();
    CALayerSetFrame(backdrop, CGRectMake(0, 0, WIDTH, HEIGHT));
    CGColorRef sky_top = CGColorCreateSRGB(0.13, 0.18, 0.32, 1), sky_bottom = CGColorCreateSRGB(0.10, 0.12, 0.18, 1);
    CAValueRef sky_items[2] = { CAValueCreateColor(sky_top), CAValueCreateColor(sky_bottom) };
    CAValueRef sky = CAValueCreateArray(sky_items, 2);
    CAGradientLayerSetColors(backdrop, sky);
    CALayerAddSublayer(root, backdrop);
    CARelease(sky); CARelease(sky_items[0]); CARelease(sky_items[1]);
    CGColorRelease(sky_top); CGColorRelease(sky_bottom); CARelease(backdrop);

    /* 3D flip: a card under a perspective sublayer transform. */
    CALayerRef stage = make_layer(root, 0, 0, WIDTH, HEIGHT, 0, 0, 0, 0);
    CATransform3D perspective = CATransform3DIdentity;
    perspective.m34 = -1.0 / 500;
    CALayerSetSublayerTransform(stage, perspective);
    CALayerRef card = make_layer(stage, 24, 40, 110, 140, 1, 1, 1, 1);
    CALayerSetCornerRadius(card, 14);
    CALayerSetBorderWidth(card, 3);
    CGColorRef gold = CGColorCreateSRGB(0.95, 0.75, 0.2, 1);
    CALayerSetBorderColor(card, gold);
    set_shadow(card, 0.6, 10, 0, 6);
    CGImageRef picture = load_png(QZ_ASSETS_DIR "/landscape.png");
    if (!picture) {
        fprintf(stderr, "demo: cannot load %s: %s\n", QZ_ASSETS_DIR "/landscape.png", QZGetLastErrorMessage());
        return 1;
    }
    CALayerRef photo = make_layer(card, 10, 10, 90, 90, 0, 0, 0, 0);
    CALayerSetContents(photo, picture);
    CALayerSetCornerRadius(photo, 8);
    CALayerSetMasksToBounds(photo, true);
    CALayerRef caption = make_label(card, 10, 106, 90, 20, "Landscape", "Helvetica-Bold", 13, 0.25, 0.25, 0.3,
                                    kCAAlignmentCenter);
    add_basic(card, "transform.rotation.y", CAValueCreateNumber(0), CAValueCreateNumber(PI), 1.5, true, 1,
              kCAMediaTimingFunctionEaseInEaseOut);

    /* Keyframe animation along a path: a ball on a curve. */
    CALayerRef ball = make_layer(root, 150, 20, 28, 28, 0.95, 0.3, 0.3, 1);
    CALayerSetCornerRadius(ball, 14);
    set_shadow(ball, 0.5, 6, 0, 5);
    CGMutablePathRef path = CGPathCreateMutable();
    CGPathMoveToPoint(path, NULL, 165, 40);
    CGPathAddCurveToPoint(path, NULL, 330, 0, 310, 200, 220, 130);
    CGPathAddCurveToPoint(path, NULL, 150, 80, 170, 220, 290, 200);
    CAAnimationRef follow = CAKeyframeAnimationCreate("position");
    CAKeyframeAnimationSetPath(follow, path);
    CAKeyframeAnimationSetCalculationMode(follow, kCAAnimationPaced);
    CAAnimationSetDuration(follow, 3);
    CAAnimationSetFillMode(follow, kCAFillModeForwards);
    CAAnimationSetRemovedOnCompletion(follow, false);
    CALayerAddAnimation(ball, follow, "follow");
    CARelease(follow);
    CGPathRelease(path);

    /* An animation group: scale, spin and fade together. */
    CALayerRef tile = make_layer(root, 190, 150, 44, 44, 0.3, 0.75, 0.95, 1);
    CALayerSetCornerRadius(tile, 10);
    set_shadow(tile, 0.4, 4, 0, 3);
    CAAnimationRef parts[3];
    parts[0] = CABasicAnimationCreate("transform.scale");
    CAValueRef s0 = CAValueCreateNumber(0.6), s1 = CAValueCreateNumber(1.2);
    CABasicAnimationSetFromValue(parts[0], s0); CABasicAnimationSetToValue(parts[0], s1);
    parts[1] = CABasicAnimationCreate("transform.rotation.z");
    CAValueRef r0 = CAValueCreateNumber(0), r1 = CAValueCreateNumber(PI);
    CABasicAnimationSetFromValue(parts[1], r0); CABasicAnimationSetToValue(parts[1], r1);
    parts[2] = CABasicAnimationCreate("opacity");
    CAValueRef o0 = CAValueCreateNumber(1), o1 = CAValueCreateNumber(0.4);
    CABasicAnimationSetFromValue(parts[2], o0); CABasicAnimationSetToValue(parts[2], o1);
    CAAnimationRef group = CAAnimationGroupCreate();
    CAAnimationGroupSetAnimations(group, parts, 3);
    CAAnimationSetDuration(group, 1.5);
    CAAnimationSetAutoreverses(group, true);
    CALayerAddAnimation(tile, group, "pulse");
    for (int i = 0; i < 3; i++) CARelease(parts[i]);
    CARelease(group); CARelease(s0); CARelease(s1); CARelease(r0); CARelease(r1); CARelease(o0); CARelease(o1);

    /* Implicit animations need layers that are already committed (none
     * for a layer created in the same transaction), so the progress bar and
     * the badge are built here and committed with the scene below; their
     * changes happen afterwards, in explicit transactions. */
    CALayerRef track = make_layer(root, 24, 206, 130, 10, 0.25, 0.27, 0.33, 1);
    CALayerSetCornerRadius(track, 5);
    CALayerRef bar = make_layer(track, 0, 0, 20, 10, 0.35, 0.85, 0.45, 1);
    CALayerSetAnchorPoint(bar, CGPointMake(0, 0.5));
    CALayerSetPosition(bar, CGPointMake(0, 5));
    CALayerSetCornerRadius(bar, 5);
    CALayerRef badge = make_layer(root, 250, 16, 52, 24, 0.95, 0.45, 0.2, 1);
    CALayerSetCornerRadius(badge, 12);
    /* A check mark drawn stroke by stroke (CAShapeLayer, animated strokeEnd). */
    CALayerRef check = CAShapeLayerCreate();
    CALayerSetFrame(check, CGRectMake(160, 194, 28, 28));
    CGMutablePathRef tick = CGPathCreateMutable();
    CGPathMoveToPoint(tick, NULL, 4, 15);
    CGPathAddLineToPoint(tick, NULL, 11, 22);
    CGPathAddLineToPoint(tick, NULL, 24, 6);
    CAShapeLayerSetPath(check, tick);
    CGPathRelease(tick);
    CAShapeLayerSetFillColor(check, NULL);
    CGColorRef mint = CGColorCreateSRGB(0.4, 0.95, 0.6, 1);
    CAShapeLayerSetStrokeColor(check, mint);
    CGColorRelease(mint);
    CAShapeLayerSetLineWidth(check, 4);
    CAShapeLayerSetLineCap(check, kCALineCapRound);
    CAShapeLayerSetLineJoin(check, kCALineJoinRound);
    CALayerAddSublayer(root, check);
    add_basic(check, "strokeEnd", CAValueCreateNumber(0), CAValueCreateNumber(1), 1.5, true, 1,
              kCAMediaTimingFunctionEaseInEaseOut);
    CARelease(check);

    /* The badge pops in on a spring (CASpringAnimation): its scale
     * overshoots 1 and settles, computed in closed form each frame. */
    CAAnimationRef pop = CASpringAnimationCreate("transform.scale");
    CAValueRef p0 = CAValueCreateNumber(0.3), p1 = CAValueCreateNumber(1);
    CABasicAnimationSetFromValue(pop, p0); CABasicAnimationSetToValue(pop, p1);
    CASpringAnimationSetDamping(pop, 7);
    CAAnimationSetDuration(pop, CASpringAnimationGetSettlingDuration(pop));
    CALayerAddAnimation(badge, pop, "pop");
    CARelease(pop); CARelease(p0); CARelease(p1);
    /* The badge's counter: its text changes every frame. */
    CALayerRef counter = make_label(badge, 0, 3, 52, 20, "0", "Helvetica-Bold", 14, 1, 1, 1, kCAAlignmentCenter);

    /* A title from an attributed string: two fonts, two colours. */
    CFMutableAttributedStringRef title_text = CFAttributedStringCreateMutable(NULL, 0);
    CFAttributedStringReplaceString(title_text, CFRangeMake(0, 0), "Quartzite text");
    CTFontRef bold = CTFontCreateWithName("Helvetica-Bold", 18, NULL), light = CTFontCreateWithName("Times-Italic", 17, NULL);
    CGColorRef white = CGColorCreateSRGB(1, 1, 1, 1), amber = CGColorCreateSRGB(0.98, 0.78, 0.3, 1);
    set_attribute(title_text, 0, 9, kCTFontAttributeName, bold);
    set_attribute(title_text, 0, 9, kCTForegroundColorAttributeName, white);
    set_attribute(title_text, 9, 5, kCTFontAttributeName, light);
    set_attribute(title_text, 9, 5, kCTForegroundColorAttributeName, amber);
    CALayerRef title = CATextLayerCreate();
    CALayerSetFrame(title, CGRectMake(12, 8, 150, 26));
    CALayerSetContentsScale(title, 2);
    CATextLayerSetString(title, (CAValueRef)(void *)title_text);
    CALayerAddSublayer(root, title);
    CARelease(title_text); CARelease(bold); CARelease(light); CGColorRelease(white); CGColorRelease(amber);

    /* A label mixing scripts: Latin, Arabic (right to left, joined) and
     * Devanagari (conjuncts), shaped by HarfBuzz, ordered by FriBiDi. */
    CALayerRef scripts = make_label(root, 12, 220, 220, 18, "Hello \xc2\xb7 \xd9\x85\xd8\xb1\xd8\xad\xd8\xa8\xd8\xa7 \xc2\xb7 "
                                    "\xe0\xa4\xa8\xe0\xa4\xae\xe0\xa4\xb8\xe0\xa5\x8d\xe0\xa4\xa4\xe0\xa5\x87",
                                    "Helvetica", 13, 0.85, 0.88, 0.95, kCAAlignmentLeft);

    /* A panel that changes colour half-way through with a push transition. */
    CALayerRef window = make_layer(root, 236, 150, 70, 70, 0, 0, 0, 0);   /* clips the transition */
    CALayerSetCornerRadius(window, 12);
    CALayerSetMasksToBounds(window, true);
    CALayerRef panel = make_layer(window, 0, 0, 70, 70, 0.55, 0.3, 0.8, 1);
    CALayerRef mark = make_layer(panel, 20, 20, 30, 30, 1, 1, 1, 0.9);
    CALayerSetCornerRadius(mark, 15);

    /* A progress ring drawn by its class from "progress" (0 ... 0.85). */
    CALayerClassCallbacks ring_cb;
    memset(&ring_cb, 0, sizeof ring_cb);
    ring_cb.needsDisplayForKey = ring_needs_display;
    ring_cb.drawInContext = ring_draw;
    CALayerClassRef ring_class = CALayerClassCreate("ProgressRing", NULL, &ring_cb, NULL);
    CALayerRef ring = CALayerCreateWithClass(ring_class);
    CALayerSetFrame(ring, CGRectMake(148, 56, 76, 76));
    CALayerSetContentsScale(ring, 2);
    CALayerSetNumberForKeyPath(ring, "progress", 0.85);
    CALayerAddSublayer(root, ring);
    add_basic(ring, "progress", CAValueCreateNumber(0), CAValueCreateNumber(0.85), 2.5, false, 0,
              kCAMediaTimingFunctionEaseInEaseOut);

    /* Commit the scene (the thread's implicit transaction), then change the
     * model inside explicit transactions: each change to an animatable
     * property runs its action, an implicit CABasicAnimation from the
     * presentation value with the transaction's duration and timing. */
    CATransactionFlush();
    CATransactionBegin();
    CATransactionSetAnimationDuration(2.5);
    CAMediaTimingFunctionRef easeOut = CAMediaTimingFunctionCreateWithName(kCAMediaTimingFunctionEaseOut);
    CATransactionSetAnimationTimingFunction(easeOut);
    CARelease(easeOut);
    CALayerSetBounds(bar, CGRectMake(0, 0, 130, 10));
    CATransactionBegin();                 /* nested: its own duration */
    CATransactionSetAnimationDuration(1.0);
    CALayerSetPosition(badge, CGPointMake(276, 100));
    CGColorRef green = CGColorCreateSRGB(0.3, 0.8, 0.4, 1);
    CALayerSetBackgroundColor(badge, green);
    CGColorRelease(green);
    CATransactionCommit();
    CATransactionCommit();

    /* Other output sizes: the whole scene scaled about the top-left corner. */
    if (scale != 1) {
        CALayerSetAnchorPoint(root, CGPointMake(0, 0));
        CALayerSetPosition(root, CGPointMake(0, 0));
        CALayerSetTransform(root, CATransform3DMakeScale(scale, scale, 1));
    }

    CVPixelBufferRef target = NULL;
    if (CVPixelBufferCreate(NULL, pixel_width, pixel_height, kCVPixelFormatType_32BGRA, NULL, &target) != kCVReturnSuccess) {
        fprintf(stderr, "demo: cannot create the target: %s\n", QZGetLastErrorMessage());
        return 1;
    }
    CARendererRef renderer = CARendererCreate(target, NULL);
    CARendererSetLayer(renderer, root);

#ifdef QZ_DEMO_HAVE_FFMPEG
    VideoWriter *video = NULL;
    if (mp4) {
        char error[256];
        video = video_writer_open(mp4, pixel_width, pixel_height, fps, error, sizeof error);
        if (!video) {
            fprintf(stderr, "demo: cannot write %s: %s\n", mp4, error);
            return 1;
        }
    }
#endif
    char **paths = calloc((size_t)frames, sizeof *paths);
    double redrawn = 0, total_ms = 0;
    int transitioned = 0;
    double busiest_t = 0;
    size_t busiest_ops = 0;
    QZTextResetStatistics();
    for (int i = 0; i < frames; i++) {
        double t = (double)i / fps;
        media_now = t;
        /* The counter's new text (the only text laid out again). */
        char count[16];
        snprintf(count, sizeof count, "%d", i * 7);
        CATransactionBegin();
        CATransactionSetDisableActions(true);
        CAValueRef count_value = CAValueCreateString(count);
        CATextLayerSetString(counter, count_value);
        CARelease(count_value);
        CATransactionCommit();
        if (!transitioned && t >= 1.5) {
            CAAnimationRef push = CATransitionCreate();
            CAValueRef type = CAValueCreateString(kCATransitionPush), sub = CAValueCreateString(kCATransitionFromRight);
            CAAnimationSetValueForKey(push, "type", type);
            CAAnimationSetValueForKey(push, "subtype", sub);
            CAAnimationSetDuration(push, 0.8);
            CALayerAddAnimation(panel, push, NULL);
            CARelease(push); CARelease(type); CARelease(sub);
            /* The new state appears through the transition only. */
            CATransactionBegin();
            CATransactionSetDisableActions(true);
            CGColorRef teal = CGColorCreateSRGB(0.1, 0.7, 0.6, 1);
            CALayerSetBackgroundColor(panel, teal);
            CGColorRelease(teal);
            CALayerSetPosition(mark, CGPointMake(45, 45));
            CATransactionCommit();
            CATransactionFlush();         /* commits the transition's implicit transaction */
            transitioned = 1;
        }
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        CARendererBeginFrameAtTime(renderer, t, NULL);
        CGRect update = CARendererUpdateBounds(renderer);
        CARendererRender(renderer);
        CARendererEndFrame(renderer);
        clock_gettime(CLOCK_MONOTONIC, &b);
        total_ms += (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6;
        if (!CGRectIsNull(update)) redrawn += update.size.width * update.size.height;
        if (bench_threads) {
            QZDrawListRef list = QZRendererCopyDrawList(renderer);
            size_t n = QZDrawListGetCount(list);
            CARelease(list);
            if (n > busiest_ops) { busiest_ops = n; busiest_t = t; }
            continue;
        }
#ifdef QZ_DEMO_HAVE_FFMPEG
        if (video) {
            CVPixelBufferLockBaseAddress(target, kCVPixelBufferLock_ReadOnly);
            int written = video_writer_add_frame(video, CVPixelBufferGetBaseAddress(target),
                                                 CVPixelBufferGetBytesPerRow(target));
            CVPixelBufferUnlockBaseAddress(target, kCVPixelBufferLock_ReadOnly);
            if (written != 0) {
                fprintf(stderr, "demo: encoding frame %d of %s failed\n", i, mp4);
                video_writer_close(video);
                return 1;
            }
            show_progress("encoding", i + 1, frames);
            continue;
        }
#endif
        paths[i] = malloc(strlen(outdir) + 32);
        sprintf(paths[i], "%s/frame_%03d.png", outdir, i);
        if (QZPixelBufferWritePNG(target, paths[i]) != kCVReturnSuccess) {
            fprintf(stderr, "demo: cannot write %s: %s\n", paths[i], QZGetLastErrorMessage());
            return 1;
        }
        show_progress("rendering", i + 1, frames);
    }
    int ok = 0;
    if (bench_threads) {
        ok = thread_bench(renderer, target, busiest_t, bench_threads, busiest_ops);
        free(paths);
        return ok;
    }
    printf("Quartzite demo: %d frames of %dx%d at %d fps rendered through CARenderer\n", frames, pixel_width,
           pixel_height, fps);
#ifdef QZ_DEMO_HAVE_FFMPEG
    if (video) {
        ok = video_writer_close(video);
        printf("  video:         %s (H.264, %.1f s)%s\n", mp4, (double)frames / fps, ok == 0 ? "" : " (FAILED)");
    }
#endif
    if (!mp4) {
        char apng[4096];
        snprintf(apng, sizeof apng, "%s/demo.png", outdir);
        ok = apng_write_from_png_files(apng, (const char *const *)paths, (size_t)frames, 1, (unsigned)fps);
        printf("  frames:        %s/frame_000.png ... %s/frame_%03d.png\n", outdir, outdir, frames - 1);
        printf("  animated PNG:  %s%s\n", apng, ok == 0 ? "" : " (FAILED)");
    }
    printf("  rendering:     %.2f ms per frame on average; damage tracking redrew %.0f%% of the pixels\n",
           total_ms / frames, 100.0 * redrawn / ((double)frames * pixel_width * pixel_height));
    QZTextStatistics text = QZTextGetStatistics();
    printf("  text:          %llu layouts and %llu draws over %d frames (the counter; the title, caption and\n"
           "                 mixed-script label were laid out once, before the first frame)\n",
           (unsigned long long)text.layouts, (unsigned long long)text.draws, frames);

    for (int i = 0; i < frames; i++) free(paths[i]);
    free(paths);
    CARelease(renderer);
    CVPixelBufferRelease(target);
    CGImageRelease(picture);
    CGColorRelease(gold);
    CALayerRef layers[] = { root, stage, card, photo, caption, ball, tile, track, bar, badge, window, panel, mark, ring,
                            counter, title, scripts };
    for (size_t i = 0; i < sizeof layers / sizeof layers[0]; i++) CARelease(layers[i]);
    CARelease(ring_class);
    QZSetMediaTimeSource(NULL, NULL);
    return ok == 0 ? 0 : 1;
}
