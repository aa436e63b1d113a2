/* Reproducers of issue 21's crash families, kept as regression tests (run by
 * ctest natively, under valgrind and in the sanitizer build):
 *   presentation copies used again (copy of a mask's copy, of a sublayer's
 *   copy, of a copy; model layers under copies; transitions on copies; a copy
 *   as a renderer's layer);
 *   infinite and huge doubles reaching integer conversions (update
 *   rectangles, contentsRect, shadows under enormous scales);
 *   resource exhaustion (huge buffers, NULL arrays with huge counts, huge
 *   strings). Each call must return, record the documented error when it
 *   refuses, and leave the library usable. */
#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif
#include "qz_test.h"
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static double now_seconds = 500;
static double fake_clock(void *info) { (void)info; return now_seconds; }

static CALayerRef solid_layer(double x, double y, double w, double h) {
    CALayerRef l = CALayerCreate();
    CALayerSetFrame(l, CGRectMake(x, y, w, h));
    CGColorRef c = CGColorCreateSRGB(0, 0.5, 1, 1);
    CALayerSetBackgroundColor(l, c);
    CGColorRelease(c);
    return l;
}

/* MARK: - Presentation copies used again */

static void copy_of_a_mask_copy(void) {
    CALayerRef layer = CALayerCreate(), mask = CALayerCreate();
    CALayerSetMask(layer, mask);
    CALayerRef pres = CALayerCopyPresentationLayer(mask);
    CHECK(pres != NULL && CALayerGetModelLayer(pres) == mask);
    CALayerRef again = CALayerCopyPresentationLayer(pres);   /* the process died here */
    CHECK_NO_ERROR();
    CHECK(again != NULL && again != pres);
    CHECK(CALayerGetModelLayer(again) == mask);               /* the same model */
    CHECK(CALayerGetSuperlayer(again) != NULL);               /* a copy of the masked layer's copy */
    CARelease(again); CARelease(pres);
    CARelease(mask); CARelease(layer);
}

static void copy_of_copies_keeps_their_values(void) {
    CALayerRef root = CALayerCreate(), sub = solid_layer(10, 20, 30, 40);
    CALayerAddSublayer(root, sub);
    CATransactionFlush();
    CALayerRef p1 = CALayerCopyPresentationLayer(sub);
    CALayerSetOpacity(p1, 0.25f);                             /* changes the copy at once */
    CHECK(CALayerGetOpacity(p1) == 0.25f);
    CHECK(CALayerGetOpacity(sub) == 1.0f);
    CALayerRef p2 = CALayerCopyPresentationLayer(p1);
    CHECK(CALayerGetOpacity(p2) == 0.25f);                    /* a copy of the copy as it is */
    CHECK(CGPointEqualToPoint(CALayerGetPosition(p2), CGPointMake(25, 40)));
    CHECK(CALayerGetModelLayer(p2) == sub);
    CALayerRef p3 = CALayerCopyPresentationLayer(p2);
    CHECK(CALayerGetSuperlayer(p3) != NULL && CALayerGetSuperlayer(CALayerGetSuperlayer(p3)) == NULL);
    CHECK_NO_ERROR();
    CARelease(p3); CARelease(p2); CARelease(p1);
    CARelease(sub); CARelease(root);
}

static void model_layers_never_join_a_copy(void) {
    QZSetMediaTimeSource(fake_clock, NULL);
    CALayerRef root = CALayerCreate(), sub = CALayerCreate(), model = CALayerCreate();
    CALayerAddSublayer(root, sub);
    CATransactionFlush();
    CALayerRef pres = CALayerCopyPresentationLayer(sub);
    CALayerAddSublayer(pres, model);                  CHECK_ERROR(QZErrorInvalidState);
    CALayerAddSublayer(root, pres);                   CHECK_ERROR(QZErrorInvalidState);
    CALayerInsertSublayerAtIndex(pres, model, 0);     CHECK_ERROR(QZErrorInvalidState);
    CALayerSetMask(pres, model);                      CHECK_ERROR(QZErrorInvalidState);
    CALayerSetMask(model, pres);                      CHECK_ERROR(QZErrorInvalidState);
    CALayerRemoveFromSuperlayer(pres);                CHECK_ERROR(QZErrorInvalidState);
    CALayerSetSublayers(pres, NULL, 0);               CHECK_ERROR(QZErrorInvalidState);
    CHECK(CALayerGetSuperlayer(model) == NULL && CALayerGetSublayerCount(pres) == 0);
    /* Copying the model, or giving it a transition, still works. */
    CALayerRef copy = CALayerCopyPresentationLayer(model);
    CHECK(copy != NULL);
    CAAnimationRef t = CATransitionCreate();
    CATransactionBegin();
    CALayerAddAnimation(model, t, NULL);
    CATransactionCommit();
    CATransactionFlush();
    CHECK(QZLayerGetTransitionProgress(model) >= 0);
    CHECK_NO_ERROR();
    /* A transition run on a copy inside a transaction, then the commit. */
    CATransactionBegin();
    CAActionRunForKey((CAActionRef)t, kCATransition, pres, NULL);   CHECK_ERROR(QZErrorInvalidState);
    CALayerAddAnimation(pres, t, "x");                              CHECK_ERROR(QZErrorInvalidState);
    CATransactionCommit();
    CHECK(QZLayerGetTransitionProgress(pres) == -1);
    CHECK_NO_ERROR();
    CARelease(t); CARelease(copy);
    CARelease(pres); CARelease(model); CARelease(sub); CARelease(root);
    QZAnimationProcessEvents();
    QZSetMediaTimeSource(NULL, NULL);
}

static void copy_as_a_renderer_layer(void) {
    CVPixelBufferRef pb = NULL;
    CVPixelBufferCreate(NULL, 16, 16, kCVPixelFormatType_32BGRA, NULL, &pb);
    CALayerRef root = solid_layer(0, 0, 16, 16), mask = solid_layer(0, 0, 8, 8);
    CALayerSetMask(root, mask);
    CATransactionFlush();
    CALayerRef pres = CALayerCopyPresentationLayer(mask);
    CARendererRef r = CARendererCreate(pb, NULL);
    CARendererSetLayer(r, pres);
    CARendererBeginFrameAtTime(r, 1, NULL);                    /* the process died here */
    CARendererAddUpdateRect(r, CGRectMake(0, 0, 16, 16));
    CARendererRender(r);
    CARendererEndFrame(r);
    CHECK_NO_ERROR();
    const uint8_t *px = CVPixelBufferGetBaseAddress(pb);
    CHECK(px[4 * 2 + 3] == 255);                                /* the copy drawn as it is (opaque) */
    CARelease(r); CARelease(pres); CARelease(mask); CARelease(root);
    CVPixelBufferRelease(pb);
}

/* MARK: - Huge and infinite doubles */

static void infinite_update_rectangles(void) {
    CVPixelBufferRef pb = NULL;
    CVPixelBufferCreate(NULL, 8, 8, kCVPixelFormatType_32BGRA, NULL, &pb);
    CALayerRef root = solid_layer(0, 0, 8, 8);
    CARendererRef r = CARendererCreate(pb, NULL);
    CARendererSetLayer(r, root);
    CARendererBeginFrameAtTime(r, 0, NULL);
    CARendererAddUpdateRect(r, CGRectMake(0, 0, 10, -INFINITY));
    CARendererAddUpdateRect(r, CGRectMake(0, 0, 10, -DBL_MAX));
    CARendererAddUpdateRect(r, CGRectMake(-INFINITY, -INFINITY, INFINITY, INFINITY));
    CARendererAddUpdateRect(r, CGRectMake(DBL_MAX, -DBL_MAX, DBL_MAX, DBL_MAX));
    CHECK_NO_ERROR();
    CARendererAddUpdateRect(r, CGRectMake(0, NAN, 1, 1));       CHECK_ERROR(QZErrorNotFinite);
    CARendererRender(r);
    CARendererEndFrame(r);
    CHECK_NO_ERROR();
    CARelease(r); CARelease(root);
    CVPixelBufferRelease(pb);
}

static void extreme_contents_rect(void) {
    CVPixelBufferRef pb = NULL, img = NULL;
    CVPixelBufferCreate(NULL, 16, 16, kCVPixelFormatType_32BGRA, NULL, &pb);
    CVPixelBufferCreate(NULL, 4, 4, kCVPixelFormatType_32BGRA, NULL, &img);
    CALayerRef root = solid_layer(0, 0, 16, 16);
    CALayerSetContents(root, img);
    const CGRect rects[] = { { { 0, 0 }, { -DBL_MAX, -DBL_MAX } }, { { -DBL_MAX, DBL_MAX }, { DBL_MAX, DBL_MAX } },
                             { { 0, 0 }, { INFINITY, 1 } }, { { 1e300, 1e300 }, { 1e-300, 1e-300 } } };
    CARendererRef r = CARendererCreate(pb, NULL);
    CARendererSetLayer(r, root);
    for (size_t i = 0; i < sizeof rects / sizeof rects[0]; i++) {
        CALayerSetContentsRect(root, rects[i]);
        QZClearLastError();
        CARendererBeginFrameAtTime(r, (double)i, NULL);
        CARendererAddUpdateRect(r, CGRectMake(0, 0, 16, 16));
        CARendererRender(r);
        CARendererEndFrame(r);
        CHECK_NO_ERROR();
    }
    CARelease(r); CARelease(root);
    CVPixelBufferRelease(img); CVPixelBufferRelease(pb);
}

/* The fuzzer's hang (seed 21, step 163,286): a dashed stroke under a CTM
 * sheared by 2^53. Clamping puts the path's device points on cairo's
 * coordinate limit, and cairo steps through dashes by each device segment's
 * length in user space, which that shear makes astronomical: the stroke never
 * returned. It is drawn undashed instead (more than 100,000 dash periods);
 * an ordinary dashed stroke keeps its gaps. */
static void dashes_under_an_extreme_shear_finish(void) {
    CVPixelBufferRef pb = NULL;
    CVPixelBufferCreate(NULL, 4, 48, kCVPixelFormatType_32BGRA, NULL, &pb);
    CGContextRef c = QZBitmapContextCreateWithPixelBuffer(pb);
    CHECK(c != NULL);
    const CGFloat dashes[] = { 0.65874657909675383, 11.5, 42.75, 92.5 };
    CGContextSetLineDash(c, 0, dashes, 4);
    CGContextSetBlendMode(c, kCGBlendModeDestinationAtop);
    CGContextSetLineWidth(c, 16);
    CGContextSetMiterLimit(c, 93.75);
    CGContextSetAlpha(c, 0.30671388454312787);
    CGContextSaveGState(c);
    CGContextConcatCTM(c, (CGAffineTransform){ 1, 0, 9007199254740992.0, 86.75, 0.73372571864967706, -91.5 });
    CGContextRotateCTM(c, 0.63861332267945237);
    CGContextStrokeRectWithWidth(c, CGRectMake(0.4475597394881754, 58.75, 100, 65), 3.25);
    CGContextAddEllipseInRect(c, CGRectMake(0, 0, 50, 30));
    (void)CGContextPathContainsPoint(c, CGPointMake(8, 8), kCGPathStroke);
    CGContextStrokePath(c);
    CHECK_NO_ERROR();
    CGContextRestoreGState(c);
    CGContextRelease(c);
    CVPixelBufferRelease(pb);
    CVPixelBufferCreate(NULL, 64, 64, kCVPixelFormatType_32BGRA, NULL, &pb);
    c = QZBitmapContextCreateWithPixelBuffer(pb);
    /* Still dashed where it can be: a 4-on, 4-off red line across the middle
     * rows leaves its gaps (x 0..4 red, x 4..8 not). */
    const CGFloat four[] = { 4, 4 };
    CGContextSetLineDash(c, 0, four, 2);
    CGContextSetRGBStrokeColor(c, 1, 0, 0, 1);
    CGContextSetLineWidth(c, 2);
    CGContextSetLineCap(c, kCGLineCapButt);
    CGContextMoveToPoint(c, 0, 32);
    CGContextAddLineToPoint(c, 64, 32);
    CGContextStrokePath(c);
    CVPixelBufferLockBaseAddress(pb, 0);
    const uint8_t *px = CVPixelBufferGetBaseAddress(pb);
    size_t bpr = CVPixelBufferGetBytesPerRow(pb);
    for (int y = 31; y <= 32; y++) {
        CHECK(px[y * bpr + 2 * 4 + 2] == 255);   /* x 2: red */
        CHECK(px[y * bpr + 6 * 4 + 2] != 255);   /* x 6: a gap */
    }
    CVPixelBufferUnlockBaseAddress(pb, 0);
    CGContextRelease(c);
    CVPixelBufferRelease(pb);
}

/* The fuzzer's hang (seed 8, step 202,626): CGContextStrokePath with a line
 * width of 2^53 never returned (cairo's pen grows with the device width).
 * Strokes of enormous width, or of width 1 under an enormous scale, finish
 * and leave the context usable; a normal stroke still draws. Each case
 * would take minutes or forever without the cap. */
static void enormous_stroke_widths_finish(void) {
    CVPixelBufferRef pb = NULL;
    CVPixelBufferCreate(NULL, 16, 16, kCVPixelFormatType_32BGRA, NULL, &pb);
    CGContextRef c = QZBitmapContextCreateWithPixelBuffer(pb);
    CHECK(c != NULL);
    /* The minimised reproducer first: a flatness of 72.75, then an ellipse
     * stroked 2^53 wide. */
    CGContextSetLineWidth(c, 9007199254740992.0);
    CGContextSetFlatness(c, 72.75);
    CGContextAddEllipseInRect(c, CGRectMake(0.81779576898203599, 0.75, -1, -16));
    CGContextStrokePath(c);
    CGContextSetFlatness(c, 0.5);
    const double widths[] = { 9007199254740992.0, 1e300, DBL_MAX };
    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
        CGContextSetLineWidth(c, widths[i]);
        CGContextSetLineJoin(c, kCGLineJoinRound);
        CGContextAddRect(c, CGRectMake(-34, 72, 0.7, -49.75));
        CGContextAddEllipseInRect(c, CGRectMake(0.8, 0.75, -1, -16));
        CGContextStrokePath(c);
        CGContextStrokeRectWithWidth(c, CGRectMake(-6.5, -12.75, 0.7, 93.25), widths[i]);
        CGContextAddEllipseInRect(c, CGRectMake(2, 2, 10, 10));
        (void)CGContextPathContainsPoint(c, CGPointMake(8, 8), kCGPathStroke);
        CGContextReplacePathWithStrokedPath(c);
        CGContextFillPath(c);
    }
    CGContextSetLineWidth(c, 1);
    CGContextScaleCTM(c, 1e12, 1e12);
    CGContextAddEllipseInRect(c, CGRectMake(0, 0, 1, 1));
    CGContextStrokePath(c);
    CGContextScaleCTM(c, 1e-12, 1e-12);
    /* Still usable: a 2-px line across row 8 inks it. */
    CGContextSetRGBStrokeColor(c, 1, 0, 0, 1);
    CGContextSetLineWidth(c, 2);
    CGContextMoveToPoint(c, 0, 8);
    CGContextAddLineToPoint(c, 16, 8);
    CGContextStrokePath(c);
    CVPixelBufferLockBaseAddress(pb, 0);
    const uint8_t *px = CVPixelBufferGetBaseAddress(pb);
    size_t row = CVPixelBufferGetBytesPerRow(pb);
    CHECK(px[7 * row + 4 * 8 + 2] == 255 || px[8 * row + 4 * 8 + 2] == 255);
    CVPixelBufferUnlockBaseAddress(pb, 0);
    CGContextRelease(c);
    CVPixelBufferRelease(pb);
}

static void shadow_path_under_an_enormous_scale(void) {
    CVPixelBufferRef pb = NULL;
    CVPixelBufferCreate(NULL, 16, 16, kCVPixelFormatType_32BGRA, NULL, &pb);
    CGContextRef ctx = QZBitmapContextCreateWithPixelBuffer(pb);
    CALayerRef layer = solid_layer(2, 2, 8, 8);
    CGPathRef path = CGPathCreateWithEllipseInRect(CGRectMake(0, 0, 8, 8), NULL);
    CALayerSetShadowPath(layer, path);
    CALayerSetShadowOpacity(layer, 1);
    const double scales[] = { 1e20, 1e38, 1e100, 1e300, 1e-300 };
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {                            /* and an enormous shadow */
            CALayerSetShadowRadius(layer, 1e300);
            CALayerSetShadowOffset(layer, CGSizeMake(1e300, -DBL_MAX));
        }
        for (int i = 0; i < 5; i++) {
            CGContextSaveGState(ctx);
            CGContextScaleCTM(ctx, scales[i], scales[i]);
            CALayerRenderInContext(layer, ctx);     /* the process died here */
            CGContextRestoreGState(ctx);
            CHECK_NO_ERROR();
        }
    }
    CGPathRelease(path);
    CARelease(layer);
    CGContextRelease(ctx);
    CVPixelBufferRelease(pb);
}

/* MARK: - Exhaustion */

static void huge_counts_and_sizes(void) {
    CAAnimationRef g = CAAnimationGroupCreate();
    /* A count no array can have is out of range; a plausible one with a NULL
     * array is a NULL argument. */
    CAAnimationGroupSetAnimations(g, NULL, SIZE_MAX);          CHECK_ERROR(QZErrorOutOfRange);
    CAAnimationGroupSetAnimations(g, NULL, 3);                 CHECK_ERROR(QZErrorNullArgument);
    CAAnimationGroupSetAnimations(g, NULL, 0);                 CHECK_NO_ERROR();
    CAAnimationRef k = CAKeyframeAnimationCreate("opacity");
    CAKeyframeAnimationSetTimingFunctions(k, NULL, SIZE_MAX);  CHECK_ERROR(QZErrorOutOfRange);
    CARelease(k);
    CHECK(CAValueCreateArray(NULL, SIZE_MAX) == NULL);         CHECK_ERROR(QZErrorOutOfRange);
    CHECK(CAValueCreateDictionary(NULL, NULL, (size_t)1 << 40) == NULL); CHECK_ERROR(QZErrorNullArgument);
    CALayerRef l = CALayerCreate();
    CALayerSetSublayers(l, NULL, SIZE_MAX);                    CHECK_ERROR(QZErrorOutOfRange);
    CARelease(l);
    CGMutablePathRef p = CGPathCreateMutable();
    CGPathAddLines(p, NULL, NULL, SIZE_MAX);                   CHECK_ERROR(QZErrorOutOfRange);
    CGPathAddRects(p, NULL, NULL, (size_t)1 << 62);            CHECK_ERROR(QZErrorOutOfRange);
    CGPathAddLines(p, NULL, NULL, 1000);                       CHECK_ERROR(QZErrorNullArgument);
    CGPathRelease(p);
    CVPixelBufferRef pb = NULL;
    size_t limit = QZPixelBufferGetMemoryLimit();
    QZPixelBufferSetMemoryLimit(0);                            /* none: only the system can refuse */
    CHECK(CVPixelBufferCreate(NULL, (size_t)1 << 31, (size_t)1 << 31, kCVPixelFormatType_32BGRA, NULL, &pb) != kCVReturnSuccess);
    CHECK(pb == NULL);
    CHECK(CVPixelBufferCreate(NULL, SIZE_MAX, 2, kCVPixelFormatType_32BGRA, NULL, &pb) != kCVReturnSuccess);
    QZPixelBufferSetMemoryLimit(limit);
    QZClearLastError();
    /* The library is still usable. */
    CHECK(CVPixelBufferCreate(NULL, 4, 4, kCVPixelFormatType_32BGRA, NULL, &pb) == kCVReturnSuccess);
    CVPixelBufferRelease(pb);
    CARelease(g);
}

/* A path grown past its limit (CGPathAddPath of itself, over and over)
 * records QZErrorOutOfMemory and stays as it was; the library goes on. */
static void path_growth_fails_cleanly(void) {
    CGMutablePathRef p = CGPathCreateMutable();
    CGPathMoveToPoint(p, NULL, 0, 0);
    for (int i = 1; i < 8; i++) CGPathAddLineToPoint(p, NULL, i, i * i);
    CHECK_NO_ERROR();
    if (RUNNING_ON_VALGRIND) {        /* (hundreds of megabytes: not under valgrind) */
        CGPathRelease(p);
        return;
    }
    int doublings = 0;
    QZError e = QZErrorNone;
    size_t count = QZPathGetElementCount(p);
    for (; doublings < 40; doublings++) {
        CGPathAddPath(p, NULL, p);
        e = QZGetLastError();
        if (e != QZErrorNone) break;
        count = QZPathGetElementCount(p);
    }
    CHECK(e == QZErrorOutOfMemory);
    QZClearLastError();
    CHECK(doublings == 21);                       /* 8 points x 2^21 = 2^24, the limit */
    CHECK(QZPathGetElementCount(p) == count);     /* unchanged by the refused call */
    CGPathAddLineToPoint(p, NULL, 1, 1);          /* one point more is over the limit too */
    CHECK_ERROR(QZErrorOutOfMemory);
    CGPathRelease(p);
    CGMutablePathRef q = CGPathCreateMutable();   /* freed paths give their points back */
    CGPathMoveToPoint(q, NULL, 1, 1);
    for (int i = 0; i < 20; i++) CGPathAddPath(q, NULL, q);
    CHECK_NO_ERROR();
    CHECK(QZPathGetElementCount(q) == (size_t)1 << 20);
    CGPathRelease(q);
}

/* The shadow of a polygon of 20,000 vertices (a circle): every row crosses
 * hundreds of edges, so the rasterizer takes its sorted path. */
static void many_edged_shadow_path(void) {
    CVPixelBufferRef pb = NULL;
    CVPixelBufferCreate(NULL, 128, 128, kCVPixelFormatType_32BGRA, NULL, &pb);
    CGContextRef ctx = QZBitmapContextCreateWithPixelBuffer(pb);
    enum { N = 20000 };
    CGPoint *points = malloc(sizeof(CGPoint) * N);
    for (int i = 0; i < N; i++) {
        double a = 2 * M_PI * i / N, r = i % 2 ? 40 : 40.001;   /* a ragged circle */
        points[i] = CGPointMake(64 + r * cos(a), 64 + r * sin(a));
    }
    CGMutablePathRef path = CGPathCreateMutable();
    CGPathAddLines(path, NULL, points, N);
    CGPathCloseSubpath(path);
    free(points);
    CALayerRef layer = CALayerCreate();
    CALayerSetFrame(layer, CGRectMake(0, 0, 128, 128));
    CALayerSetShadowPath(layer, path);
    CALayerSetShadowOpacity(layer, 1);
    CALayerSetShadowRadius(layer, 0);
    CALayerSetShadowOffset(layer, CGSizeMake(0, 0));
    CALayerRenderInContext(layer, ctx);
    CHECK_NO_ERROR();
    const uint8_t *px = CVPixelBufferGetBaseAddress(pb);
    size_t bpr = CVPixelBufferGetBytesPerRow(pb);
    CHECK(px[64 * bpr + 64 * 4 + 3] == 255);          /* the centre: inside */
    CHECK(px[64 * bpr + 30 * 4 + 3] == 255);          /* 34 px left of it: inside */
    CHECK(px[64 * bpr + 110 * 4 + 3] == 0);           /* 46 px right: outside */
    CHECK(px[10 * bpr + 10 * 4 + 3] == 0);            /* a corner: outside */
    unsigned covered = 0;                             /* the area: pi r^2 = 5026.5 px */
    for (int y = 0; y < 128; y++) for (int x = 0; x < 128; x++) covered += px[y * bpr + x * 4 + 3];
    CHECK_NEAR(covered / 255.0, 5026.5, 5);
    CARelease(layer);
    CGPathRelease(path);
    CGContextRelease(ctx);
    CVPixelBufferRelease(pb);
}

/* Caller memory with a row size of 0: the library used to assume rows of
 * width * 4 bytes it was never given and read past the caller's memory
 * (found by the stateful fuzzer under ASan). */
static void bitmap_context_over_caller_memory_needs_its_row_size(void) {
    uint32_t pixels[4 * 4];
    CHECK(CGBitmapContextCreate(pixels, 4, 4, 8, 0, NULL, 0x2002) == NULL);
    CHECK_ERROR(QZErrorInvalidArgument);
    CGContextRef c = CGBitmapContextCreate(pixels, 4, 4, 8, 16, NULL, 0x2002);   /* BGRA premultiplied first */
    CHECK(c != NULL);
    CHECK_NO_ERROR();
    CGContextRelease(c);
    c = CGBitmapContextCreate(NULL, 4, 4, 8, 0, NULL, 0x2002);   /* its own memory: 0 picks the row size */
    CHECK(c != NULL && CGBitmapContextGetBytesPerRow(c) >= 16);
    CGContextRelease(c);
    CHECK_NO_ERROR();
}

static void multi_megabyte_strings(void) {
    size_t n = (size_t)8 << 20;
    char *s = malloc(n + 1);
    memset(s, 'k', n);
    s[n] = 0;
    CALayerRef l = CALayerCreate();
    CALayerSetName(l, s);
    CHECK(strlen(CALayerGetName(l)) == n);
    CAValueRef v = CAValueCreateString(s);
    CALayerSetValueForKey(l, s, v);                            /* a custom key of 8 MB */
    CAValueRef back = CALayerCopyValueForKey(l, s);
    CHECK(back != NULL && CAValueGetType(back) == CAValueTypeString);
    CARelease(back);
    CAAnimationRef a = CABasicAnimationCreate(s);
    CALayerAddAnimation(l, a, s);
    QZClearLastError();
    CARelease(a); CARelease(v); CARelease(l);
    free(s);
    CHECK_NO_ERROR();
}

/* The fuzzer's crash (seed 717, step 51,870): under a y scale of 2^53 a
 * rectangle replaced by its stroked outline asked cairo for the stroke's
 * extents with a clamped corner plus half the capped width at exactly 2^23
 * device pixels, which cairo's fixed point wraps: cairo_stroke_extents
 * crashed. The bounding box is now answered, and so is one of a stroke
 * exactly twice the clamp limit wide (the cap itself) with no scale. */
static void stroked_outline_bounds_at_the_width_cap(void) {
    CVPixelBufferRef pb = NULL;
    CVPixelBufferCreate(NULL, 64, 17, kCVPixelFormatType_32BGRA, NULL, &pb);
    CGContextRef c = QZBitmapContextCreateWithPixelBuffer(pb);
    CHECK(c != NULL);
    CGContextSaveGState(c);
    CGContextScaleCTM(c, 1, 9007199254740992.0);
    CGContextAddRect(c, CGRectMake(0.8044565188351871, 0.25, 88.75, -42.5));
    CGContextReplacePathWithStrokedPath(c);
    CGRect box = CGContextGetPathBoundingBox(c);
    CHECK(!CGRectIsNull(box));
    CGContextRestoreGState(c);
    CGContextBeginPath(c);
    CGContextSetLineWidth(c, 8388608);
    CGContextAddRect(c, CGRectMake(0, 0, 8388608, 8388608));
    CGContextReplacePathWithStrokedPath(c);
    box = CGContextGetPathBoundingBox(c);
    CHECK(!CGRectIsNull(box));
    CHECK_NO_ERROR();
    /* Still usable: an ordinary outline's box is exact (a 2-wide stroke of
     * a 10 x 10 square reaches 1 beyond it on every side). */
    CGContextBeginPath(c);
    CGContextSetLineWidth(c, 2);
    CGContextAddRect(c, CGRectMake(3, 3, 10, 10));
    CGContextReplacePathWithStrokedPath(c);
    box = CGContextGetPathBoundingBox(c);
    CHECK(box.origin.x == 2 && box.origin.y == 2 && box.size.width == 12 && box.size.height == 12);
    CGContextRelease(c);
    CVPixelBufferRelease(pb);
}

/* An underline style beyond any integer (a finite 1e300) trapped in the
 * conversion of the style number; found while investigating fuzzer seed
 * 1041. It underlines once. */
static void enormous_underline_style_lays_out(void) {
    CFMutableAttributedStringRef s = CFAttributedStringCreateMutable(NULL, 0);
    CFAttributedStringReplaceString(s, (CFRange){0, 0}, "underlined");
    const double styles[] = { 1e300, -1e300, 9.2233720368547758e18, 1 };
    for (size_t i = 0; i < sizeof styles / sizeof styles[0]; i++) {
        CAValueRef v = CAValueCreateNumber(styles[i]);
        CFAttributedStringSetAttribute(s, (CFRange){0, 10}, kCTUnderlineStyleAttributeName, v);
        CARelease(v);
        CTLineRef line = CTLineCreateWithAttributedString(s);
        CHECK(line != NULL);
        double ascent = 0, descent = 0, leading = 0;
        CHECK(CTLineGetTypographicBounds(line, &ascent, &descent, &leading) > 0 && ascent > 0);
        CARelease(line);
    }
    CHECK_NO_ERROR();
    CARelease(s);
}

/* CATransform3DConcat (written in C, an AVX or a portable body) tests its
 * product's finiteness on the sum of the entries first: entries near the
 * largest double whose sum overflows are no error, an entry that overflows
 * is (a comes back), and the result is the row-vector product either way. */
static void concat_at_the_edge_of_the_doubles(void) {
    CATransform3D big = CATransform3DMakeScale(1e308, 1e308, 1e308);
    CATransform3D r = CATransform3DConcat(big, CATransform3DIdentity);
    CHECK_NO_ERROR();
    CHECK(CATransform3DEqualToTransform(r, big));
    r = CATransform3DConcat(CATransform3DMakeTranslation(1e308, 1e308, 1e308), CATransform3DMakeScale(1, 1, 1.5));
    CHECK_NO_ERROR();
    CHECK(r.m41 == 1e308 && r.m42 == 1e308 && r.m43 == 1.5e308 && r.m44 == 1);
    r = CATransform3DConcat(big, CATransform3DMakeScale(10, 1, 1));
    CHECK_ERROR(QZErrorNotFinite);
    CHECK(CATransform3DEqualToTransform(r, big));
    /* Products of ordinary matrices: exact where the entries are integers. */
    CATransform3D a = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    CATransform3D b = {2, 0, 0, 1, 0, 3, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1};
    CATransform3D expected = {5, 6, 3, 5, 17, 18, 7, 13, 29, 30, 11, 21, 41, 42, 15, 29};
    CHECK(CATransform3DEqualToTransform(CATransform3DConcat(a, b), expected));
    CHECK_NO_ERROR();
}

int main(void) {
    RUN(copy_of_a_mask_copy);
    RUN(copy_of_copies_keeps_their_values);
    RUN(model_layers_never_join_a_copy);
    RUN(copy_as_a_renderer_layer);
    RUN(infinite_update_rectangles);
    RUN(extreme_contents_rect);
    RUN(shadow_path_under_an_enormous_scale);
    RUN(huge_counts_and_sizes);
    RUN(path_growth_fails_cleanly);
    RUN(many_edged_shadow_path);
    RUN(bitmap_context_over_caller_memory_needs_its_row_size);
    RUN(multi_megabyte_strings);
    RUN(enormous_stroke_widths_finish);
    RUN(dashes_under_an_extreme_shear_finish);
    RUN(stroked_outline_bounds_at_the_width_cap);
    RUN(enormous_underline_style_lays_out);
    RUN(concat_at_the_edge_of_the_doubles);
    return qz_summary();
}
