/* A frame drawn on several threads (QZRendererSetThreadCount): the same
 * scenes rendered with 1, 2, 3 and 7 threads give byte-identical targets.
 * The scenes put everything whose pixels depend on pixels elsewhere across
 * the bands' cuts: translucent, rotated and scaled image layers, rounded
 * layers with shadows (the template path and silhouettes with content),
 * shadow paths, masks, group opacity, blurred and colour-filtered groups,
 * backdrop blurs, borders and text; then a partial (damage-tracked) frame
 * after a change, and a target in another pixel format. Also: the count's
 * default, 0 (one per core), refused counts and bad handles. */
#include "qz_test.h"
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

enum { W = 480, H = 360 };

static uint32_t seed = 7;
static double rnd(void) {
    seed = seed * 1664525u + 1013904223u;
    return (double)(seed >> 8) / (double)(1u << 24);
}

static CAValueRef filter1(const char *name, const char *key, double x) {
    const char *keys[2] = { "name", key };
    CAValueRef values[2] = { CAValueCreateString(name), CAValueCreateNumber(x) };
    CAValueRef d = CAValueCreateDictionary(keys, values, 2);
    CARelease(values[0]);
    CARelease(values[1]);
    CAValueRef a = CAValueCreateArray(&d, 1);
    CARelease(d);
    return a;
}

static CALayerRef box(CALayerRef parent, double x, double y, double w, double h, double r, double g, double b, double a) {
    CALayerRef l = CALayerCreate();
    CALayerSetFrame(l, CGRectMake(x, y, w, h));
    CGColorRef c = CGColorCreateSRGB(r, g, b, a);
    CALayerSetBackgroundColor(l, c);
    CGColorRelease(c);
    if (parent) { CALayerAddSublayer(parent, l); CARelease(l); }
    return l;
}

static void shadow(CALayerRef l, double radius, double dx, double dy, float opacity) {
    CGColorRef black = CGColorCreateSRGB(0, 0, 0.1, 1);
    CALayerSetShadowColor(l, black);
    CGColorRelease(black);
    CALayerSetShadowOpacity(l, opacity);
    CALayerSetShadowRadius(l, radius);
    CALayerSetShadowOffset(l, CGSizeMake(dx, dy));
}

/* A 48x48 image with per-pixel alpha (premultiplied BGRA). */
static CVPixelBufferRef image(int variant) {
    CVPixelBufferRef pb = NULL;
    CVPixelBufferCreate(NULL, 48, 48, kCVPixelFormatType_32BGRA, NULL, &pb);
    CVPixelBufferLockBaseAddress(pb, 0);
    uint8_t *base = CVPixelBufferGetBaseAddress(pb);
    size_t bpr = CVPixelBufferGetBytesPerRow(pb);
    for (int y = 0; y < 48; y++)
        for (int x = 0; x < 48; x++) {
            int a = variant ? 255 : (x * 5 + y * 2) % 256;
            uint8_t *p = base + (size_t)y * bpr + 4 * x;
            p[0] = (uint8_t)((x * 11) % (a + 1)); p[1] = (uint8_t)((y * 13) % (a + 1));
            p[2] = (uint8_t)(((x ^ y) * 7) % (a + 1)); p[3] = (uint8_t)a;
        }
    CVPixelBufferUnlockBaseAddress(pb, 0);
    return pb;
}

/* The busiest scene: every kind of operation, spread over the whole target. */
static CALayerRef scene(void) {
    seed = 7;
    CALayerRef root = box(NULL, 0, 0, W, H, 0.2, 0.25, 0.3, 1);
    CVPixelBufferRef img[2] = { image(0), image(1) };
    /* Image layers: translucent, some rotated or scaled (bilinear), some at fractional positions. */
    for (int i = 0; i < 120; i++) {
        CALayerRef l = CALayerCreate();
        double s = i % 5 == 0 ? 1.7 : 1;
        CALayerSetFrame(l, CGRectMake(rnd() * (W - 60), rnd() * (H - 60) + (i % 3 ? 0 : 0.37), 48 * s, 48 * s));
        CALayerSetContents(l, img[i & 1]);
        if (i % 7 == 0) CALayerSetTransform(l, CATransform3DMakeRotation(0.3 + i * 0.01, 0, 0, 1));
        if (i % 4 == 0) CALayerSetOpacity(l, 0.6f);
        CALayerAddSublayer(root, l);
        CARelease(l);
    }
    /* Rounded cards with shadows: lone opaque ones (the template) and ones
     * with content or translucency (a blurred silhouette), tall enough to cross cuts. */
    for (int i = 0; i < 16; i++) {
        double x = 10 + (i % 8) * 58, y = 20 + (i / 8) * 150 + (i % 3) * 13.5;
        CALayerRef c = box(NULL, x, y, 50, 120, 0.9, 0.8, 0.6, i % 2 ? 1 : 0.8);
        CALayerSetCornerRadius(c, 6 + i);
        shadow(c, 3 + i, (i % 3) - 1, 2 + (i % 4), 0.6f);
        if (i % 4 == 1) box(c, 8, 30, 30, 50, 0.1, 0.4, 0.8, 1);
        if (i % 4 == 3) { CALayerSetBorderWidth(c, 3); CGColorRef bc = CGColorCreateSRGB(0.5, 0, 0, 1); CALayerSetBorderColor(c, bc); CGColorRelease(bc); }
        CALayerAddSublayer(root, c);
        CARelease(c);
    }
    /* A shadow path (a rasterized path) under a rotation. */
    CALayerRef sp = box(root, 300, 60, 120, 200, 0, 0, 0, 0);
    CGMutablePathRef ellipse = CGPathCreateMutable();
    CGPathAddEllipseInRect(ellipse, NULL, CGRectMake(0, 0, 120, 200));
    CALayerSetShadowPath(sp, ellipse);
    CGPathRelease(ellipse);
    shadow(sp, 10, 4, 6, 0.9f);
    CALayerSetTransform(sp, CATransform3DMakeRotation(0.4, 0, 0, 1));
    /* A group: translucent with sublayers, masked by a rounded layer. */
    CALayerRef group = box(root, 40, 90, 200, 200, 0.7, 0.2, 0.3, 1);
    CALayerSetOpacity(group, 0.7f);
    box(group, 20, 20, 160, 60, 0.1, 0.9, 0.2, 0.8);
    box(group, 60, 110, 100, 80, 0.9, 0.9, 0.1, 1);
    CALayerRef mask = box(NULL, 10, 10, 180, 180, 0, 0, 0, 1);
    CALayerSetCornerRadius(mask, 60);
    CALayerSetMask(group, mask);
    CARelease(mask);
    /* A blurred group across the middle and a colour-filtered one. */
    CALayerRef blurred = box(root, 180, 100, 220, 170, 0, 0, 0, 0);
    box(blurred, 20, 20, 80, 130, 1, 1, 1, 1);
    box(blurred, 120, 40, 60, 60, 0, 0.5, 1, 1);
    CAValueRef blur = filter1("CIGaussianBlur", "inputRadius", 5);
    CALayerSetFilters(blurred, blur);
    CALayerRef grey = box(root, 250, 200, 120, 140, 0.9, 0.1, 0.1, 1);
    CAValueRef sat = filter1("CIColorControls", "inputSaturation", 0.2);
    CALayerSetFilters(grey, sat);
    /* Backdrop blurs (no cut falls across them or their reach). */
    CALayerRef glass = box(root, 100, 40, 90, 70, 1, 1, 1, 0.15);
    CALayerSetCornerRadius(glass, 20);
    CALayerSetBackgroundFilters(glass, blur);
    CALayerRef chip = box(root, 390, 250, 70, 50, 1, 1, 1, 0.1);
    CAValueRef blur2 = filter1("CIGaussianBlur", "inputRadius", 12);
    CALayerSetBackgroundFilters(chip, blur2);
    CARelease(blur); CARelease(blur2); CARelease(sat);
    /* Text. */
    CALayerRef text = CATextLayerCreate();
    CALayerSetFrame(text, CGRectMake(20, 150, 300, 60));
    CAValueRef s = CAValueCreateString("Quartzite on every core");
    CATextLayerSetString(text, s);
    CARelease(s);
    CATextLayerSetFontSize(text, 30);
    CALayerAddSublayer(root, text);
    CARelease(text);
    CVPixelBufferRelease(img[0]);
    CVPixelBufferRelease(img[1]);
    return root;
}

static CVPixelBufferRef target(OSType format) {
    CVPixelBufferRef pb = NULL;
    CVPixelBufferCreate(NULL, W, H, format, NULL, &pb);
    return pb;
}

/* Whether two targets' pixels are the same bytes; prints the first difference. */
static int same_pixels(CVPixelBufferRef a, CVPixelBufferRef b, const char *what, int threads) {
    CVPixelBufferLockBaseAddress(a, kCVPixelBufferLock_ReadOnly);
    CVPixelBufferLockBaseAddress(b, kCVPixelBufferLock_ReadOnly);
    const uint8_t *pa = CVPixelBufferGetBaseAddress(a), *pb = CVPixelBufferGetBaseAddress(b);
    size_t bpr = CVPixelBufferGetBytesPerRow(a), row = CVPixelBufferGetWidth(a) * (CVPixelBufferGetBytesPerRow(a) / CVPixelBufferGetWidth(a));
    int same = 1;
    long differing = 0;
    for (size_t y = 0; y < CVPixelBufferGetHeight(a); y++)
        for (size_t x = 0; x < row; x++)
            if (pa[y * bpr + x] != pb[y * bpr + x]) {
                if (same) fprintf(stderr, "  %s, %d threads: first difference at byte %zu of row %zu (%d vs %d)\n", what, threads, x, y,
                                  pa[y * bpr + x], pb[y * bpr + x]);
                same = 0;
                differing++;
            }
    if (!same) fprintf(stderr, "  %s, %d threads: %ld bytes differ\n", what, threads, differing);
    CVPixelBufferUnlockBaseAddress(a, kCVPixelBufferLock_ReadOnly);
    CVPixelBufferUnlockBaseAddress(b, kCVPixelBufferLock_ReadOnly);
    return same;
}

/* Renders `root` at time 1 into a new target of `format` with `threads`;
 * then, when `change` is set, changes the scene and renders a damage-limited
 * frame (its update rectangle reported in *update); the scene is changed back after. */
static CVPixelBufferRef render(CALayerRef root, OSType format, int threads, CALayerRef change, CGRect *update) {
    CVPixelBufferRef pb = target(format);
    CARendererRef r = CARendererCreate(pb, NULL);
    QZRendererSetThreadCount(r, (size_t)threads);
    CHECK_NO_ERROR();
    CHECK(QZRendererGetThreadCount(r) == (size_t)threads);
    CARendererSetLayer(r, root);
    CARendererBeginFrameAtTime(r, 1, NULL);
    CARendererRender(r);
    CARendererEndFrame(r);
    if (change) {
        CATransactionBegin();
        CATransactionSetDisableActions(true);
        CALayerSetPosition(change, CGPointMake(260, 185));
        CATransactionCommit();
        CARendererBeginFrameAtTime(r, 2, NULL);
        *update = CARendererUpdateBounds(r);
        CARendererRender(r);
        CARendererEndFrame(r);
        CATransactionBegin();
        CATransactionSetDisableActions(true);
        CALayerSetPosition(change, CGPointMake(230, 140));
        CATransactionCommit();
    }
    CHECK_NO_ERROR();
    CARelease(r);
    return pb;
}

static void identical_across_thread_counts(void) {
    CALayerRef root = scene();
    CVPixelBufferRef one = render(root, kCVPixelFormatType_32BGRA, 1, NULL, NULL);
    /* The scene drew something everywhere it should (not a blank frame). */
    CVPixelBufferLockBaseAddress(one, kCVPixelBufferLock_ReadOnly);
    const uint8_t *p = CVPixelBufferGetBaseAddress(one);
    CHECK(p[3] == 255);
    CVPixelBufferUnlockBaseAddress(one, kCVPixelBufferLock_ReadOnly);
    const int counts[] = { 2, 3, 7 };
    for (int i = 0; i < 3; i++) {
        CVPixelBufferRef many = render(root, kCVPixelFormatType_32BGRA, counts[i], NULL, NULL);
        CHECK(same_pixels(one, many, "whole frame", counts[i]));
        CVPixelBufferRelease(many);
    }
    CVPixelBufferRelease(one);
    CARelease(root);
}

static void identical_damage_frames(void) {
    /* A card with a shadow moves: the second frame redraws only what changed. */
    CALayerRef root = scene();
    CALayerRef mover = box(root, 200, 100, 60, 90, 0.3, 0.6, 0.9, 0.9);
    CALayerSetCornerRadius(mover, 14);
    shadow(mover, 8, 3, 5, 0.7f);
    CGRect u1 = CGRectNull, u = CGRectNull;
    CVPixelBufferRef one = render(root, kCVPixelFormatType_32BGRA, 1, mover, &u1);
    /* Damage tracking still limits the work: not the whole target. */
    CHECK(!CGRectIsNull(u1) && u1.size.width * u1.size.height < 0.8 * W * H);
    const int counts[] = { 2, 3, 7 };
    for (int i = 0; i < 3; i++) {
        CVPixelBufferRef many = render(root, kCVPixelFormatType_32BGRA, counts[i], mover, &u);
        CHECK(CGRectEqualToRect(u, u1));
        CHECK(same_pixels(one, many, "damage frame", counts[i]));
        CVPixelBufferRelease(many);
    }
    CVPixelBufferRelease(one);
    CARelease(root);
}

static void identical_in_other_formats(void) {
    CALayerRef root = scene();
    CVPixelBufferRef one = render(root, kCVPixelFormatType_32RGBA, 1, NULL, NULL);
    CVPixelBufferRef two = render(root, kCVPixelFormatType_32RGBA, 2, NULL, NULL);
    CVPixelBufferRef seven = render(root, kCVPixelFormatType_32RGBA, 7, NULL, NULL);
    CHECK(same_pixels(one, two, "32RGBA", 2));
    CHECK(same_pixels(one, seven, "32RGBA", 7));
    CVPixelBufferRelease(one); CVPixelBufferRelease(two); CVPixelBufferRelease(seven);
    CARelease(root);
}

/* A layer showing the renderer's own target (the last frame, read while the
 * new one is drawn): the same bytes on 1 and 2 threads. */
static CVPixelBufferRef render_feedback(int threads) {
    CVPixelBufferRef pb = target(kCVPixelFormatType_32BGRA);
    CALayerRef root = scene();
    CALayerRef mirror = box(root, 40, 30, 400, 300, 0, 0, 0, 0);
    CALayerSetContents(mirror, pb);
    CALayerSetTransform(mirror, CATransform3DMakeRotation(0.2, 0, 0, 1));
    CARendererRef r = CARendererCreate(pb, NULL);
    QZRendererSetThreadCount(r, (size_t)threads);
    CARendererSetLayer(r, root);
    for (int i = 0; i < 3; i++) {
        CARendererBeginFrameAtTime(r, 1 + i, NULL);
        CARendererAddUpdateRect(r, CGRectMake(0, 0, W, H));
        CARendererRender(r);
        CARendererEndFrame(r);
    }
    CHECK_NO_ERROR();
    CARelease(r);
    CALayerSetContents(mirror, NULL);
    CARelease(root);
    return pb;
}

static void identical_when_showing_its_own_target(void) {
    CVPixelBufferRef one = render_feedback(1), two = render_feedback(2);
    CHECK(same_pixels(one, two, "own target", 2));
    CVPixelBufferRelease(one);
    CVPixelBufferRelease(two);
}

static void counts_and_bad_input(void) {
    CVPixelBufferRef pb = target(kCVPixelFormatType_32BGRA);
    CARendererRef r = CARendererCreate(pb, NULL);
    CHECK(QZRendererGetThreadCount(r) == 1);                      /* the default: the calling thread alone */
    QZRendererSetThreadCount(r, 0);                               /* one per core */
    CHECK_NO_ERROR();
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    CHECK(QZRendererGetThreadCount(r) == (size_t)(cores < 1 ? 1 : cores > 64 ? 64 : cores));
    QZRendererSetThreadCount(r, 64);
    CHECK_NO_ERROR();
    CHECK(QZRendererGetThreadCount(r) == 64);
    QZRendererSetThreadCount(r, 65);                              CHECK_ERROR(QZErrorOutOfRange);
    QZRendererSetThreadCount(r, (size_t)-1);                      CHECK_ERROR(QZErrorOutOfRange);
    CHECK(QZRendererGetThreadCount(r) == 64);                     /* unchanged */
    QZRendererSetThreadCount(NULL, 2);                            CHECK_ERROR(QZErrorNullArgument);
    CHECK(QZRendererGetThreadCount(NULL) == 0);                   CHECK_ERROR(QZErrorNullArgument);
    CALayerRef l = CALayerCreate();
    QZRendererSetThreadCount((CARendererRef)l, 2);                CHECK_ERROR(QZErrorWrongType);
    CHECK(QZRendererGetThreadCount((CARendererRef)l) == 0);       CHECK_ERROR(QZErrorWrongType);
    /* 64 threads on a small frame draw it as one thread does. */
    CALayerRef root = scene();
    CARendererSetLayer(r, root);
    CARendererBeginFrameAtTime(r, 1, NULL);
    CARendererRender(r);
    CARendererEndFrame(r);
    CHECK_NO_ERROR();
    CVPixelBufferRef one = render(root, kCVPixelFormatType_32BGRA, 1, NULL, NULL);
    CHECK(same_pixels(one, pb, "64 threads", 64));
    CVPixelBufferRelease(one);
    CARelease(root);
    CARelease(l);
    CARelease(r);
    CVPixelBufferRelease(pb);
}

int main(void) {
    RUN(identical_across_thread_counts);
    RUN(identical_damage_frames);
    RUN(identical_in_other_formats);
    RUN(identical_when_showing_its_own_target);
    RUN(counts_and_bad_input);
    return qz_summary();
}
