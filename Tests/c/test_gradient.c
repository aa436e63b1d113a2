/* CAGradientLayer through the C ABI: defaults, bad input (mismatched
 * colours and locations, NaN, wrong types, unknown types), and pixels: a
 * linear gradient's midpoint is the mean of its two colours, a radial and a
 * conic gradient at points whose colours are computed here. Valgrind checks
 * that the layer, its values and its cached bitmap are freed. */
#include "qz_test.h"

static CAValueRef colors2(double r0, double g0, double b0, double r1, double g1, double b1) {
    CGColorRef c0 = CGColorCreateSRGB(r0, g0, b0, 1), c1 = CGColorCreateSRGB(r1, g1, b1, 1);
    CAValueRef items[2] = { CAValueCreateColor(c0), CAValueCreateColor(c1) };
    CAValueRef array = CAValueCreateArray(items, 2);
    CARelease(items[0]); CARelease(items[1]); CGColorRelease(c0); CGColorRelease(c1);
    return array;
}

static CAValueRef numbers(const double *xs, size_t n) {
    CAValueRef items[8];
    for (size_t i = 0; i < n; i++) items[i] = CAValueCreateNumber(xs[i]);
    CAValueRef array = CAValueCreateArray(items, n);
    for (size_t i = 0; i < n; i++) CARelease(items[i]);
    return array;
}

/* Renders `g` (framed to w x h) under a root into a new buffer (+1). */
static CVPixelBufferRef render(CALayerRef g, int w, int h) {
    CALayerRef root = CALayerCreate();
    CALayerSetFrame(root, CGRectMake(0, 0, w, h));
    CALayerSetFrame(g, CGRectMake(0, 0, w, h));
    CALayerAddSublayer(root, g);
    CVPixelBufferRef pb = NULL;
    CVPixelBufferCreate(NULL, w, h, kCVPixelFormatType_32BGRA, NULL, &pb);
    CARendererRef r = CARendererCreate(pb, NULL);
    CARendererSetLayer(r, root);
    CARendererBeginFrameAtTime(r, 100, NULL);
    CARendererRender(r);
    CARendererEndFrame(r);
    CARelease(r);
    CALayerRemoveFromSuperlayer(g);
    CARelease(root);
    return pb;
}

/* Channel `c` (0 blue, 1 green, 2 red, 3 alpha) of pixel (x, y), 0...1. */
static double channel(CVPixelBufferRef pb, int x, int y, int c) {
    const unsigned char *base = CVPixelBufferGetBaseAddress(pb);
    return base[y * CVPixelBufferGetBytesPerRow(pb) + 4 * x + c] / 255.0;
}

static void defaults_and_bad_input(void) {
    CALayerRef g = CAGradientLayerCreate();
    CHECK(strcmp(CALayerClassGetName(CALayerGetClass(g)), "CAGradientLayer") == 0);
    CHECK(CAGradientLayerGetColors(g) == NULL && CAGradientLayerGetLocations(g) == NULL);
    CHECK(CAGradientLayerGetStartPoint(g).x == 0.5 && CAGradientLayerGetStartPoint(g).y == 0);
    CHECK(CAGradientLayerGetEndPoint(g).x == 0.5 && CAGradientLayerGetEndPoint(g).y == 1);
    CHECK(strcmp(CAGradientLayerGetType(g), kCAGradientLayerAxial) == 0);

    CAValueRef two = colors2(1, 0, 0, 0, 0, 1);
    CAGradientLayerSetColors(g, two);                CHECK_NO_ERROR();
    const double three_at[] = { 0, 0.5, 1 }, nan_at[] = { 0, NAN }, ok_at[] = { 0.1, 0.9 };
    CAValueRef three = numbers(three_at, 3), nan = numbers(nan_at, 2), ok = numbers(ok_at, 2);
    CAGradientLayerSetLocations(g, three);           CHECK_ERROR(QZErrorInvalidArgument);
    CAGradientLayerSetLocations(g, nan);             CHECK_ERROR(QZErrorNotFinite);
    CAGradientLayerSetLocations(g, two);             CHECK_ERROR(QZErrorWrongType);
    CHECK(CAGradientLayerGetLocations(g) == NULL);
    CAGradientLayerSetLocations(g, ok);              CHECK_NO_ERROR();
    CHECK(CAValueGetCount(CAGradientLayerGetLocations(g)) == 2);
    CAGradientLayerSetColors(g, ok);                 CHECK_ERROR(QZErrorWrongType);
    CAGradientLayerSetStartPoint(g, CGPointMake(NAN, 0));  CHECK_ERROR(QZErrorNotFinite);
    CAGradientLayerSetType(g, "spiral");             CHECK_ERROR(QZErrorUnknownConstant);
    CAGradientLayerSetType(g, NULL);                 CHECK_ERROR(QZErrorNullArgument);
    CHECK(strcmp(CAGradientLayerGetType(g), "axial") == 0);
    CAGradientLayerSetColors(NULL, two);             CHECK_ERROR(QZErrorNullArgument);
    CALayerRef plain = CALayerCreate();
    CAGradientLayerSetColors(plain, two);            CHECK_ERROR(QZErrorWrongType);
    CARelease(plain);
    CARelease(two); CARelease(three); CARelease(nan); CARelease(ok);
    CARelease(g);
}

static void pixels_match_the_gradients(void) {
    /* Axial, 101 rows: row 50's centre is half-way; its colour is the mean. */
    CALayerRef g = CAGradientLayerCreate();
    CAValueRef c = colors2(1, 0.2, 0, 0, 0.6, 1);
    CAGradientLayerSetColors(g, c);
    CARelease(c);
    CVPixelBufferRef pb = render(g, 12, 101);
    CHECK_NEAR(channel(pb, 6, 50, 2), 0.5, 1 / 255.0);
    CHECK_NEAR(channel(pb, 6, 50, 1), 0.4, 1 / 255.0);
    CHECK_NEAR(channel(pb, 6, 50, 0), 0.5, 1 / 255.0);
    CHECK(channel(pb, 6, 50, 3) == 1);
    CVPixelBufferRelease(pb);

    CARelease(g);

    /* Radial: centre (0.5, 0.5), radii half the size; white to black. (A
     * fresh layer each time: changes to a committed one would animate.) */
    g = CAGradientLayerCreate();
    c = colors2(1, 1, 1, 0, 0, 0);
    CAGradientLayerSetColors(g, c);
    CARelease(c);
    CAGradientLayerSetType(g, kCAGradientLayerRadial);
    CAGradientLayerSetStartPoint(g, CGPointMake(0.5, 0.5));
    CAGradientLayerSetEndPoint(g, CGPointMake(1, 1));
    pb = render(g, 101, 101);
    static const int pts[][2] = { { 50, 50 }, { 80, 50 }, { 50, 10 }, { 25, 75 }, { 0, 0 } };
    for (int i = 0; i < 5; i++) {
        double d = hypot(pts[i][0] + 0.5 - 50.5, pts[i][1] + 0.5 - 50.5) / 50.5;
        CHECK_NEAR(channel(pb, pts[i][0], pts[i][1], 1), 1 - fmin(d, 1), 2 / 255.0);
    }
    CVPixelBufferRelease(pb);

    CARelease(g);

    /* Conic: around the centre from east, clockwise on screen; black to white. */
    g = CAGradientLayerCreate();
    c = colors2(0, 0, 0, 1, 1, 1);
    CAGradientLayerSetColors(g, c);
    CARelease(c);
    CAGradientLayerSetType(g, kCAGradientLayerConic);
    CAGradientLayerSetStartPoint(g, CGPointMake(0.5, 0.5));
    CAGradientLayerSetEndPoint(g, CGPointMake(1, 0.5));
    pb = render(g, 101, 101);
    static const int cpts[][2] = { { 90, 70 }, { 50, 95 }, { 5, 45 }, { 60, 5 } };
    for (int i = 0; i < 4; i++) {
        double a = atan2(cpts[i][1] + 0.5 - 50.5, cpts[i][0] + 0.5 - 50.5);
        if (a < 0) a += 2 * M_PI;
        CHECK_NEAR(channel(pb, cpts[i][0], cpts[i][1], 1), a / (2 * M_PI), 2 / 255.0);
    }
    CVPixelBufferRelease(pb);
    CARelease(g);
}

int main(void) {
    RUN(defaults_and_bad_input);
    RUN(pixels_match_the_gradients);
    return qz_summary();
}
