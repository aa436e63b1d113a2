/* The display cycle through the C ABI: layers marked for display are drawn
 * when their transaction commits (CATransactionFlush, CARendererBeginFrame),
 * into a backing store of ceil(bounds x contentsScale) pixels that becomes
 * their contents, with the marked area as the clip; and a custom property
 * animated on a layer whose class needs display for it (the article
 * "Animating arbitrary key paths") draws its interpolated values frame by
 * frame. */
#include <stdlib.h>
#include "qz_test.h"

static double now_value = 1000;
static CFTimeInterval fake_now(void *info) { (void)info; return now_value; }

/* What the drawing callbacks saw. */
static int draws;
static CGRect last_clip;
static CGAffineTransform last_ctm;
static double last_progress;
static int copies_made, copy_saw_init;

static uint32_t px(CVPixelBufferRef pb, int x, int y) {
    const uint8_t *base = CVPixelBufferGetBaseAddress(pb);
    const uint8_t *p = base + (size_t)y * CVPixelBufferGetBytesPerRow(pb) + 4 * (size_t)x;
    return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/* Fills the clip with the colour stored under "fill" (0 red, 1 blue). */
static void draw_fill(CALayerRef layer, CGContextRef ctx, void *info) {
    (void)info;
    draws++;
    last_clip = CGContextGetClipBoundingBox(ctx);
    last_ctm = CGContextGetCTM(ctx);
    double which = CALayerGetNumberForKeyPath(layer, "fill");
    if (which == 0) CGContextSetRGBFillColor(ctx, 1, 0, 0, 1); else CGContextSetRGBFillColor(ctx, 0, 0, 1, 1);
    CGContextFillRect(ctx, CALayerGetBounds(layer));
}

static CALayerClassRef fill_class(void) {
    CALayerClassCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.drawInContext = draw_fill;
    return CALayerClassCreate("FillLayer", NULL, &cb, NULL);
}

static void test_commit_displays_once(void) {
    CALayerClassRef cls = fill_class();
    CALayerRef l = CALayerCreateWithClass(cls);
    CALayerSetBounds(l, CGRectMake(0, 0, 10.5, 4));
    CALayerSetContentsScale(l, 2);
    CATransactionFlush();
    draws = 0;
    CALayerSetNeedsDisplay(l);
    CHECK(draws == 0 && CALayerNeedsDisplay(l));
    CATransactionFlush();
    CHECK(draws == 1 && !CALayerNeedsDisplay(l));
    CATransactionFlush();
    CHECK(draws == 1);
    /* The backing store: ceil(10.5 x 2) x 8 pixels, the contents. */
    CVPixelBufferRef store = (CVPixelBufferRef)CALayerGetContents(l);
    CHECK(store != NULL && CVPixelBufferGetWidth(store) == 21 && CVPixelBufferGetHeight(store) == 8);
    CHECK(CVPixelBufferGetPixelFormatType(store) == kCVPixelFormatType_32BGRA);
    CHECK(px(store, 20, 7) == 0xFFFF0000);
    /* The CTM maps layer points to pixels. */
    CHECK(last_ctm.a == 2 && last_ctm.d == 2 && last_ctm.tx == 0 && last_ctm.ty == 0);
    /* Inside an explicit transaction: at its commit. */
    CATransactionBegin();
    CALayerSetNeedsDisplay(l);
    CHECK(draws == 1);
    CATransactionCommit();
    CHECK(draws == 2);
    /* CALayerDisplayIfNeeded still forces it. */
    CALayerSetNeedsDisplay(l);
    CALayerDisplayIfNeeded(l);
    CHECK(draws == 3);
    CATransactionFlush();
    CHECK(draws == 3);
    CARelease(l);
    CARelease(cls);
}

static void test_no_drawing_method_no_store(void) {
    CALayerRef l = CALayerCreate();
    CALayerSetBounds(l, CGRectMake(0, 0, 10, 10));
    CALayerSetNeedsDisplay(l);
    CATransactionFlush();
    CHECK(!CALayerNeedsDisplay(l) && CALayerGetContents(l) == NULL);
    CARelease(l);
}

static void test_dirty_rect_clip_and_partial_redraw(void) {
    CALayerClassRef cls = fill_class();
    CALayerRef l = CALayerCreateWithClass(cls);
    CALayerSetBounds(l, CGRectMake(0, 0, 50, 40));
    CALayerSetContentsScale(l, 2);
    CALayerSetNeedsDisplay(l);
    CATransactionFlush();
    CVPixelBufferRef store = (CVPixelBufferRef)CALayerGetContents(l);
    CHECK(px(store, 50, 50) == 0xFFFF0000);
    /* The clip: the rect scaled by 2 and rounded out to whole pixels
     * (20.5 ... 40.5 -> 20 ... 41), in layer points again. */
    CALayerSetNumberForKeyPath(l, "fill", 1);
    draws = 0;
    CALayerSetNeedsDisplayInRect(l, CGRectMake(10.25, 5.5, 10, 10));
    CATransactionFlush();
    CHECK(draws == 1);
    CHECK_NEAR(last_clip.origin.x, 10, 1e-9);
    CHECK_NEAR(last_clip.origin.y, 5.5, 1e-9);
    CHECK_NEAR(last_clip.size.width, 10.5, 1e-9);
    CHECK_NEAR(last_clip.size.height, 10, 1e-9);
    /* Same store, redrawn inside only: outside keeps its red. */
    CHECK((CVPixelBufferRef)CALayerGetContents(l) == store);
    CHECK(px(store, 25, 15) == 0xFF0000FF && px(store, 40, 30) == 0xFF0000FF);
    CHECK(px(store, 19, 15) == 0xFFFF0000 && px(store, 41, 15) == 0xFFFF0000 && px(store, 25, 10) == 0xFFFF0000);
    CHECK(px(store, 25, 31) == 0xFFFF0000 && px(store, 90, 70) == 0xFFFF0000);
    /* Two rectangles accumulate. */
    CALayerSetNeedsDisplayInRect(l, CGRectMake(0, 0, 5, 5));
    CALayerSetNeedsDisplayInRect(l, CGRectMake(40, 30, 5, 5));
    CATransactionFlush();
    CHECK(last_clip.origin.x == 0 && last_clip.size.width == 45 && last_clip.size.height == 35);
    CARelease(l);
    CARelease(cls);
}

static void test_bounds_change(void) {
    CALayerClassRef cls = fill_class();
    CALayerRef l = CALayerCreateWithClass(cls);
    CALayerSetBounds(l, CGRectMake(0, 0, 10, 10));
    CALayerSetNeedsDisplayOnBoundsChange(l, true);
    CATransactionFlush();
    draws = 0;
    CALayerSetPosition(l, CGPointMake(30, 30));        /* a move: no redraw */
    CATransactionFlush();
    CHECK(draws == 0);
    CALayerSetBounds(l, CGRectMake(0, 0, 20, 10));      /* a size change: redraw */
    CATransactionFlush();
    CHECK(draws == 1);
    CVPixelBufferRef store = (CVPixelBufferRef)CALayerGetContents(l);
    CHECK(store != NULL && CVPixelBufferGetWidth(store) == 20);
    /* Without the flag, a size change does not redraw. */
    CALayerSetNeedsDisplayOnBoundsChange(l, false);
    CALayerSetBounds(l, CGRectMake(0, 0, 30, 10));
    CATransactionFlush();
    CHECK(draws == 1);
    CARelease(l);
    CARelease(cls);
}

static void test_renderer_frame_displays(void) {
    CALayerClassRef cls = fill_class();
    CALayerRef l = CALayerCreateWithClass(cls);
    CALayerSetBounds(l, CGRectMake(0, 0, 8, 8));
    CALayerSetPosition(l, CGPointMake(4, 4));
    CVPixelBufferRef target = NULL;
    CVPixelBufferCreate(NULL, 8, 8, kCVPixelFormatType_32BGRA, NULL, &target);
    CARendererRef r = CARendererCreate(target, NULL);
    CARendererSetLayer(r, l);
    draws = 0;
    CALayerSetNeedsDisplay(l);
    CARendererBeginFrameAtTime(r, 1000, NULL);       /* commits the implicit transaction */
    CARendererRender(r);
    CARendererEndFrame(r);
    CHECK(draws == 1);
    CHECK(px(target, 4, 4) == 0xFFFF0000);
    CARelease(r);
    CVPixelBufferRelease(target);
    CARelease(l);
    CARelease(cls);
}

static void test_opaque_and_flipped(void) {
    CALayerClassCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.drawInContext = draw_fill;
    CALayerClassRef cls = CALayerClassCreate("Half", NULL, &cb, NULL);
    CALayerRef parent = CALayerCreate();
    CALayerRef l = CALayerCreateWithClass(cls);
    CALayerAddSublayer(parent, l);
    CALayerSetBounds(l, CGRectMake(0, 0, 10, 10));
    CALayerSetOpaque(l, true);
    CALayerSetGeometryFlipped(parent, true);
    CALayerSetNeedsDisplayInRect(l, CGRectMake(0, 0, 10, 10));
    CATransactionFlush();
    /* Flipped contents: the CTM turns y up. */
    CHECK(last_ctm.d == -1 && last_ctm.ty == 10);
    CVPixelBufferRef store = (CVPixelBufferRef)CALayerGetContents(l);
    CHECK(store != NULL && px(store, 5, 5) == 0xFFFF0000);
    CARelease(parent);
    CARelease(l);
    CARelease(cls);
}

/* MARK: - Animating a custom property (the article's example) */

static bool progress_needs_display(CALayerClassRef cls, const char *key, void *info) {
    (void)cls; (void)info;
    return strcmp(key, "progress") == 0;
}

/* Fills the left `progress` part of the bounds. */
static void draw_progress(CALayerRef layer, CGContextRef ctx, void *info) {
    (void)info;
    draws++;
    last_progress = CALayerGetNumberForKeyPath(layer, "progress");
    if (CALayerGetModelLayer(layer) != layer) copy_saw_init += CALayerGetNumberForKeyPath(layer, "copiedByInit") == 1;
    CGRect b = CALayerGetBounds(layer);
    CGContextSetRGBFillColor(ctx, 0, 0.6, 0, 1);
    CGContextFillRect(ctx, CGRectMake(0, 0, b.size.width * last_progress, b.size.height));
}

/* initWithLayer: custom state goes to the copy. */
static void progress_init_with_layer(CALayerRef copy, CALayerRef source, void *info) {
    (void)info; (void)source;
    copies_made++;
    CALayerSetNumberForKeyPath(copy, "copiedByInit", 1);
}

/* The filled width of row 5 of a frame. */
static int filled_width(CVPixelBufferRef pb) {
    int n = 0;
    for (int x = 0; x < (int)CVPixelBufferGetWidth(pb); x++) if (((px(pb, x, 5) >> 8) & 0xFF) > 100) n++;
    return n;
}

static void test_custom_property_animation(void) {
    QZSetMediaTimeSource(fake_now, NULL);
    now_value = 1000;
    CALayerClassCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.needsDisplayForKey = progress_needs_display;
    cb.drawInContext = draw_progress;
    cb.initWithLayer = progress_init_with_layer;
    CALayerClassRef cls = CALayerClassCreate("ProgressLayer", NULL, &cb, NULL);
    CALayerRef l = CALayerCreateWithClass(cls);
    CALayerSetBounds(l, CGRectMake(0, 0, 100, 10));
    CALayerSetPosition(l, CGPointMake(50, 5));
    CALayerSetNumberForKeyPath(l, "progress", 0);
    CATransactionFlush();
    /* Changing the key marks the layer (needsDisplayForKey): it redraws at commit. */
    draws = 0;
    CALayerSetNumberForKeyPath(l, "progress", 1);
    CATransactionFlush();
    CHECK(draws == 1 && last_progress == 1);
    /* An animation of the key from 0 to 1 over 1 s. */
    CAAnimationRef a = CABasicAnimationCreate("progress");
    CAValueRef from = CAValueCreateNumber(0), to = CAValueCreateNumber(1);
    CABasicAnimationSetFromValue(a, from);
    CABasicAnimationSetToValue(a, to);
    CAAnimationSetDuration(a, 1);
    CAMediaTimingFunctionRef linear = CAMediaTimingFunctionCreateWithName(kCAMediaTimingFunctionLinear);
    CAAnimationSetTimingFunction(a, linear);
    CALayerAddAnimation(l, a, "progress");
    CATransactionFlush();                        /* begins at 1000 */
    CVPixelBufferRef target = NULL;
    CVPixelBufferCreate(NULL, 100, 10, kCVPixelFormatType_32BGRA, NULL, &target);
    CARendererRef r = CARendererCreate(target, NULL);
    CARendererSetLayer(r, l);
    const double times[] = { 0.25, 0.5, 0.75 };
    for (int i = 0; i < 3; i++) {
        draws = 0;
        copies_made = 0;
        copy_saw_init = 0;
        CARendererBeginFrameAtTime(r, 1000 + times[i], NULL);
        CARendererRender(r);
        CARendererEndFrame(r);
        CHECK(draws == 1 && copies_made >= 1 && copy_saw_init == 1);
        CHECK_NEAR(last_progress, times[i], 1e-9);
        CHECK(abs(filled_width(target) - (int)(100 * times[i])) <= 1);
    }
    /* After the animation: the model value, drawn at commit. */
    CARendererBeginFrameAtTime(r, 1002, NULL);
    CARendererRender(r);
    CARendererEndFrame(r);
    CHECK(filled_width(target) == 100);
    CARelease(r);
    CVPixelBufferRelease(target);
    CARelease(linear); CARelease(from); CARelease(to); CARelease(a);
    CARelease(l);
    CARelease(cls);
    QZSetMediaTimeSource(NULL, NULL);
}

/* The article's own example: touch points held in a dictionary under a
 * custom key, each touch point's scale animated through the key path
 * "touchPointForIdentifier.<id>.scale"; needsDisplayForKey answers for the
 * dictionary's key, which covers every key path beginning with it. */
static bool touch_needs_display(CALayerClassRef cls, const char *key, void *info) {
    (void)cls; (void)info;
    return strcmp(key, "touchPointForIdentifier") == 0;
}

static double seen_a, seen_b;
static void draw_touches(CALayerRef layer, CGContextRef ctx, void *info) {
    (void)info;
    draws++;
    seen_a = CALayerGetNumberForKeyPath(layer, "touchPointForIdentifier.a.scale");
    seen_b = CALayerGetNumberForKeyPath(layer, "touchPointForIdentifier.b.scale");
    CGContextSetRGBFillColor(ctx, 0, 0, 1, 1);
    CGContextFillEllipseInRect(ctx, CGRectMake(25 - 20 * seen_a, 25 - 20 * seen_a, 40 * seen_a, 40 * seen_a));
    CGContextFillEllipseInRect(ctx, CGRectMake(75 - 20 * seen_b, 25 - 20 * seen_b, 40 * seen_b, 40 * seen_b));
}

static CAValueRef touch_point(double x, double y, double scale) {
    const char *keys[] = { "x", "y", "scale" };
    CAValueRef values[] = { CAValueCreateNumber(x), CAValueCreateNumber(y), CAValueCreateNumber(scale) };
    CAValueRef d = CAValueCreateDictionary(keys, values, 3);
    for (int i = 0; i < 3; i++) CARelease(values[i]);
    return d;
}

static void animate_scale(CALayerRef l, const char *keyPath, double to, double duration) {
    CAAnimationRef a = CABasicAnimationCreate(keyPath);
    CAValueRef from = CAValueCreateNumber(0), target = CAValueCreateNumber(to);
    CABasicAnimationSetFromValue(a, from);
    CABasicAnimationSetToValue(a, target);
    CAAnimationSetDuration(a, duration);
    CAMediaTimingFunctionRef linear = CAMediaTimingFunctionCreateWithName(kCAMediaTimingFunctionLinear);
    CAAnimationSetTimingFunction(a, linear);
    CALayerAddAnimation(l, a, keyPath);
    CARelease(linear); CARelease(from); CARelease(target); CARelease(a);
}

static void test_article_touch_points(void) {
    QZSetMediaTimeSource(fake_now, NULL);
    now_value = 2000;
    CALayerClassCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.needsDisplayForKey = touch_needs_display;
    cb.drawInContext = draw_touches;
    CALayerClassRef cls = CALayerClassCreate("PinchTextLayer", NULL, &cb, NULL);
    CALayerRef l = CALayerCreateWithClass(cls);
    CALayerSetBounds(l, CGRectMake(0, 0, 100, 50));
    CALayerSetPosition(l, CGPointMake(50, 25));
    const char *ids[] = { "a", "b" };
    CAValueRef points[] = { touch_point(25, 25, 1), touch_point(75, 25, 0.5) };
    CAValueRef dict = CAValueCreateDictionary(ids, points, 2);
    CALayerSetValueForKey(l, "touchPointForIdentifier", dict);
    CATransactionFlush();
    CHECK(seen_a == 1 && seen_b == 0.5);          /* the change of the key displayed the layer */
    animate_scale(l, "touchPointForIdentifier.a.scale", 1, 1);
    animate_scale(l, "touchPointForIdentifier.b.scale", 0.5, 2);
    CATransactionFlush();
    CHECK_NO_ERROR();
    CVPixelBufferRef target = NULL;
    CVPixelBufferCreate(NULL, 100, 50, kCVPixelFormatType_32BGRA, NULL, &target);
    CARendererRef r = CARendererCreate(target, NULL);
    CARendererSetLayer(r, l);
    const double times[] = { 0.5, 1.0, 1.5 };
    for (int i = 0; i < 3; i++) {
        CARendererBeginFrameAtTime(r, 2000 + times[i], NULL);
        CARendererRender(r);
        CARendererEndFrame(r);
        double a = times[i] < 1 ? times[i] : 1, b = 0.5 * times[i] / 2;
        CHECK_NEAR(seen_a, a, 1e-9);
        CHECK_NEAR(seen_b, b, 1e-9);
        /* The circles' radii show both: 20 x scale. */
        int wa = 0, wb = 0;
        for (int x = 0; x < 50; x++) wa += (px(target, x, 25) & 0xFF) > 128;
        for (int x = 50; x < 100; x++) wb += (px(target, x, 25) & 0xFF) > 128;
        CHECK(abs(wa - (int)(40 * a + 0.5)) <= 1 && abs(wb - (int)(40 * b + 0.5)) <= 1);
    }
    CARelease(r);
    CVPixelBufferRelease(target);
    CARelease(dict); CARelease(points[0]); CARelease(points[1]);
    CARelease(l);
    CARelease(cls);
    QZSetMediaTimeSource(NULL, NULL);
}

/* Layout at commit, before display: a class lays its first sublayer out to
 * fill it; the sublayer redraws on a size change, in the same commit. */
static int layouts;
static void fill_layout(CALayerRef layer, void *info) {
    (void)info;
    layouts++;
    CALayerRef child = CALayerGetSublayerAtIndex(layer, 0);
    CALayerSetBounds(child, CALayerGetBounds(layer));
    CGRect b = CALayerGetBounds(layer);
    CALayerSetPosition(child, CGPointMake(b.size.width / 2, b.size.height / 2));
}

static void test_layout_then_display_at_commit(void) {
    CALayerClassCallbacks pcb;
    memset(&pcb, 0, sizeof pcb);
    pcb.layoutSublayers = fill_layout;
    CALayerClassRef pcls = CALayerClassCreate("Filler", NULL, &pcb, NULL);
    CALayerClassRef ccls = fill_class();
    CALayerRef parent = CALayerCreateWithClass(pcls);
    CALayerRef child = CALayerCreateWithClass(ccls);
    CALayerSetNeedsDisplayOnBoundsChange(child, true);
    CALayerAddSublayer(parent, child);
    CALayerSetBounds(parent, CGRectMake(0, 0, 30, 20));
    layouts = 0;
    draws = 0;
    CATransactionFlush();
    CHECK(layouts == 1 && !CALayerNeedsLayout(parent));
    CHECK(draws == 1);
    CVPixelBufferRef store = (CVPixelBufferRef)CALayerGetContents(child);
    CHECK(store != NULL && CVPixelBufferGetWidth(store) == 30 && CVPixelBufferGetHeight(store) == 20);
    /* A new size: laid out and redrawn in one commit. */
    CALayerSetBounds(parent, CGRectMake(0, 0, 50, 20));
    CATransactionFlush();
    CHECK(layouts == 2 && draws == 2);
    store = (CVPixelBufferRef)CALayerGetContents(child);
    CHECK(store != NULL && CVPixelBufferGetWidth(store) == 50);
    /* A plain layer marked for layout has nothing to lay out: it waits for layoutIfNeeded. */
    CALayerRef plain = CALayerCreate();
    CALayerSetNeedsLayout(plain);
    CATransactionFlush();
    CHECK(CALayerNeedsLayout(plain));
    CARelease(plain);
    CARelease(parent); CARelease(child);
    CARelease(pcls); CARelease(ccls);
}

/* The run loop's turn commits the implicit transaction, and with it the display. */
static void test_run_loop_turn_displays(void) {
    CALayerClassRef cls = fill_class();
    CALayerRef l = CALayerCreateWithClass(cls);
    CALayerSetBounds(l, CGRectMake(0, 0, 6, 6));
    CATransactionFlush();
    draws = 0;
    CALayerSetNeedsDisplay(l);
    CHECK(draws == 0);
    (void)QZRunLoopRunOnce(NULL);
    CHECK(draws == 1 && !CALayerNeedsDisplay(l));
    CHECK(CALayerGetContents(l) != NULL);
    CARelease(l);
    CARelease(cls);
}

int main(void) {
    RUN(test_commit_displays_once);
    RUN(test_no_drawing_method_no_store);
    RUN(test_dirty_rect_clip_and_partial_redraw);
    RUN(test_bounds_change);
    RUN(test_renderer_frame_displays);
    RUN(test_opaque_and_flipped);
    RUN(test_custom_property_animation);
    RUN(test_article_touch_points);
    RUN(test_layout_then_display_at_commit);
    RUN(test_run_loop_turn_displays);
    return qz_summary();
}
