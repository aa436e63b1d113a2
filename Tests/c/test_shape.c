/* CAShapeLayer through the C ABI: defaults, bad input, and pixels: the
 * default black fill, the even-odd rule's hole, and strokeEnd 0.5 inking
 * half the ink of the whole stroke (a circle, measured on the pixels).
 * Valgrind checks that paths, dash values and the cached bitmap are freed. */
#include "qz_test.h"

static CVPixelBufferRef render(CALayerRef shape, int w, int h) {
    CALayerRef root = CALayerCreate();
    CALayerSetFrame(root, CGRectMake(0, 0, w, h));
    CALayerSetFrame(shape, CGRectMake(0, 0, w, h));
    CALayerAddSublayer(root, shape);
    CVPixelBufferRef pb = NULL;
    CVPixelBufferCreate(NULL, w, h, kCVPixelFormatType_32BGRA, NULL, &pb);
    CARendererRef r = CARendererCreate(pb, NULL);
    CARendererSetLayer(r, root);
    CARendererBeginFrameAtTime(r, 100, NULL);
    CARendererRender(r);
    CARendererEndFrame(r);
    CARelease(r);
    CALayerRemoveFromSuperlayer(shape);
    CARelease(root);
    return pb;
}

static double alpha(CVPixelBufferRef pb, int x, int y) {
    const unsigned char *base = CVPixelBufferGetBaseAddress(pb);
    return base[y * CVPixelBufferGetBytesPerRow(pb) + 4 * x + 3] / 255.0;
}

static double ink(CVPixelBufferRef pb) {
    double sum = 0;
    for (size_t y = 0; y < CVPixelBufferGetHeight(pb); y++)
        for (size_t x = 0; x < CVPixelBufferGetWidth(pb); x++) sum += alpha(pb, (int)x, (int)y);
    return sum;
}

static void defaults_and_bad_input(void) {
    CALayerRef s = CAShapeLayerCreate();
    CHECK(strcmp(CALayerClassGetName(CALayerGetClass(s)), "CAShapeLayer") == 0);
    CHECK(CAShapeLayerGetPath(s) == NULL && CAShapeLayerGetStrokeColor(s) == NULL);
    const CGFloat *black = CGColorGetComponents(CAShapeLayerGetFillColor(s));
    CHECK(black && black[0] == 0 && black[1] == 0 && black[2] == 0 && black[3] == 1);
    CHECK(strcmp(CAShapeLayerGetFillRule(s), kCAFillRuleNonZero) == 0);
    CHECK(CAShapeLayerGetStrokeStart(s) == 0 && CAShapeLayerGetStrokeEnd(s) == 1);
    CHECK(CAShapeLayerGetLineWidth(s) == 1 && CAShapeLayerGetMiterLimit(s) == 10);
    CHECK(strcmp(CAShapeLayerGetLineCap(s), kCALineCapButt) == 0 && strcmp(CAShapeLayerGetLineJoin(s), kCALineJoinMiter) == 0);
    CHECK(CAShapeLayerGetLineDashPhase(s) == 0 && CAShapeLayerGetLineDashPattern(s) == NULL);

    CAShapeLayerSetStrokeEnd(s, NAN);              CHECK_ERROR(QZErrorNotFinite);
    CAShapeLayerSetLineWidth(s, INFINITY);         CHECK_ERROR(QZErrorNotFinite);
    CAShapeLayerSetFillRule(s, "odd-even");        CHECK_ERROR(QZErrorUnknownConstant);
    CAShapeLayerSetLineCap(s, "flat");             CHECK_ERROR(QZErrorUnknownConstant);
    CAValueRef items[2] = { CAValueCreateNumber(4), CAValueCreateNumber(-2) };
    CAValueRef negative = CAValueCreateArray(items, 2);
    CAShapeLayerSetLineDashPattern(s, negative);   CHECK_ERROR(QZErrorInvalidArgument);
    CAValueRef word = CAValueCreateString("dashed");
    CAShapeLayerSetLineDashPattern(s, word);       CHECK_ERROR(QZErrorWrongType);
    CHECK(CAShapeLayerGetLineDashPattern(s) == NULL && CAShapeLayerGetStrokeEnd(s) == 1);
    CAShapeLayerSetPath(s, (CGPathRef)(const void *)word);   CHECK_ERROR(QZErrorWrongType);
    CALayerRef plain = CALayerCreate();
    CAShapeLayerSetStrokeEnd(plain, 0.5);          CHECK_ERROR(QZErrorWrongType);
    CARelease(plain);
    /* An empty path draws nothing and does not fail. */
    CGMutablePathRef empty = CGPathCreateMutable();
    CAShapeLayerSetPath(s, empty);                 CHECK_NO_ERROR();
    CVPixelBufferRef pb = render(s, 8, 8);
    CHECK(ink(pb) == 0);
    CVPixelBufferRelease(pb);
    CGPathRelease(empty);
    CARelease(items[0]); CARelease(items[1]); CARelease(negative); CARelease(word);
    CARelease(s);
}

static void fills_rules_and_stroke_end(void) {
    /* The default fill: opaque black inside a rectangle, nothing outside. */
    CALayerRef s = CAShapeLayerCreate();
    CGMutablePathRef p = CGPathCreateMutable();
    CGPathAddRect(p, NULL, CGRectMake(10, 10, 40, 40));
    CGPathAddRect(p, NULL, CGRectMake(20, 20, 20, 20));
    CAShapeLayerSetPath(s, p);
    CVPixelBufferRef pb = render(s, 60, 60);
    CHECK(alpha(pb, 15, 15) == 1 && alpha(pb, 30, 30) == 1 && alpha(pb, 5, 5) == 0);
    CVPixelBufferRelease(pb);
    CARelease(s);
    /* Even-odd: the inner rectangle is a hole. */
    s = CAShapeLayerCreate();
    CAShapeLayerSetPath(s, p);
    CAShapeLayerSetFillRule(s, kCAFillRuleEvenOdd);
    pb = render(s, 60, 60);
    CHECK(alpha(pb, 15, 15) == 1 && alpha(pb, 30, 30) == 0);
    CVPixelBufferRelease(pb);
    CARelease(s);
    CGPathRelease(p);

    /* A circle's outline: strokeEnd 0.5 inks half of what the whole stroke inks. */
    CGMutablePathRef circle = CGPathCreateMutable();
    CGPathAddEllipseInRect(circle, NULL, CGRectMake(20, 20, 100, 100));
    CGColorRef red = CGColorCreateSRGB(1, 0, 0, 1);
    double whole = 0, half = 0;
    for (int pass = 0; pass < 2; pass++) {
        s = CAShapeLayerCreate();
        CAShapeLayerSetPath(s, circle);
        CAShapeLayerSetFillColor(s, NULL);
        CAShapeLayerSetStrokeColor(s, red);
        CAShapeLayerSetLineWidth(s, 3);
        if (pass == 1) CAShapeLayerSetStrokeEnd(s, 0.5);
        pb = render(s, 140, 140);
        if (pass == 0) whole = ink(pb); else half = ink(pb);
        CVPixelBufferRelease(pb);
        CARelease(s);
    }
    CHECK_NEAR(whole, 2 * M_PI * 50 * 3, 2 * M_PI * 50 * 3 * 0.01);   /* length x width, within 1% */
    CHECK_NEAR(half / whole, 0.5, 0.01);
    CGColorRelease(red);
    CGPathRelease(circle);
}

int main(void) {
    RUN(defaults_and_bad_input);
    RUN(fills_rules_and_stroke_end);
    return qz_summary();
}
