/* Core Graphics through the C ABI: geometry of strokes, caps, dashes and
 * fill rules checked pixel by pixel against values computed here; the path
 * queries; bad input anywhere in the vocabulary; images (PNG and JPEG from
 * files and memory, CGImageCreate layouts, damaged data, fuzzing); and
 * gradients, clipping, blend modes and transparency layers on small cases
 * whose results are known exactly. */
#include <stdio.h>
#include <jpeglib.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include "qz_test.h"

/* A w x h premultiplied BGRA context, cleared to transparent. */
static CGContextRef make_context(size_t w, size_t h, CVPixelBufferRef *out) {
    CVPixelBufferRef pb = NULL;
    CVPixelBufferCreate(NULL, w, h, kCVPixelFormatType_32BGRA, NULL, &pb);
    CGContextRef c = QZBitmapContextCreateWithPixelBuffer(pb);
    *out = pb;
    return c;
}

/* The pixel at (x, y) as 0xAARRGGBB. */
static uint32_t px(CVPixelBufferRef pb, int x, int y) {
    const uint8_t *base = CVPixelBufferGetBaseAddress(pb);
    const uint8_t *p = base + (size_t)y * CVPixelBufferGetBytesPerRow(pb) + 4 * (size_t)x;
    return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static int alpha(CVPixelBufferRef pb, int x, int y) { return (int)(px(pb, x, y) >> 24); }

/* MARK: - Geometry checked pixel by pixel */

static void test_horizontal_stroke_covers_its_rows(void) {
    CVPixelBufferRef pb;
    CGContextRef c = make_context(60, 40, &pb);
    CGContextSetRGBStrokeColor(c, 0, 0, 0, 1);
    CGContextSetLineWidth(c, 10);
    CGContextMoveToPoint(c, 10, 20);          /* y = 20: the stroke spans rows 15...24 */
    CGContextAddLineToPoint(c, 50, 20);
    CGContextStrokePath(c);
    CHECK_NO_ERROR();
    int covered = 0, partial = 0;
    for (int y = 0; y < 40; y++) {
        int a = alpha(pb, 30, y);
        if (a == 255) covered++;
        else if (a != 0) partial++;
        if (y >= 15 && y < 25) CHECK(a == 255); else CHECK(a == 0);
    }
    CHECK(covered == 10 && partial == 0);
    /* Butt caps (the default): nothing before x = 10 or after x = 50. */
    CHECK(alpha(pb, 9, 20) == 0 && alpha(pb, 10, 20) == 255 && alpha(pb, 49, 20) == 255 && alpha(pb, 50, 20) == 0);
    CGContextRelease(c);
    CVPixelBufferRelease(pb);
}

/* The first and last covered column of row y. */
static void row_extent(CVPixelBufferRef pb, int y, int *first, int *last) {
    *first = -1; *last = -1;
    for (int x = 0; x < (int)CVPixelBufferGetWidth(pb); x++) {
        if (alpha(pb, x, y) >= 128) { if (*first < 0) *first = x; *last = x; }
    }
}

static void test_line_caps(void) {
    const CGLineCap caps[] = { kCGLineCapButt, kCGLineCapSquare, kCGLineCapRound };
    for (int i = 0; i < 3; i++) {
        CVPixelBufferRef pb;
        CGContextRef c = make_context(80, 30, &pb);
        CGContextSetLineWidth(c, 8);
        CGContextSetLineCap(c, caps[i]);
        CGContextMoveToPoint(c, 20, 15);
        CGContextAddLineToPoint(c, 60, 15);
        CGContextStrokePath(c);
        int first, last;
        row_extent(pb, 14, &first, &last);
        if (caps[i] == kCGLineCapButt) {
            CHECK(first == 20 && last == 59);          /* exactly the segment */
        } else {
            CHECK(first == 16 && last == 63);          /* half the width (4) beyond each end */
        }
        if (caps[i] == kCGLineCapRound) {
            /* A round cap: the corner of the square cap stays empty. */
            CHECK(alpha(pb, 16, 11) < 64 && alpha(pb, 63, 18) < 64);
        }
        if (caps[i] == kCGLineCapSquare) CHECK(alpha(pb, 16, 11) == 255);
        CGContextRelease(c);
        CVPixelBufferRelease(pb);
    }
}

static void test_dash_runs(void) {
    CVPixelBufferRef pb;
    CGContextRef c = make_context(100, 10, &pb);
    CGFloat dash[] = { 10, 5 };
    CGContextSetLineDash(c, 0, dash, 2);
    CGContextSetLineWidth(c, 4);
    CGContextMoveToPoint(c, 0, 5);
    CGContextAddLineToPoint(c, 100, 5);
    CGContextStrokePath(c);
    CHECK_NO_ERROR();
    /* Runs along row 5: on 10, off 5, on 10, ... */
    int runs[32], n = 0, value = alpha(pb, 0, 5) >= 128, length = 0;
    for (int x = 0; x < 100; x++) {
        int v = alpha(pb, x, 5) >= 128;
        if (v == value) { length++; continue; }
        if (n < 32) runs[n++] = length * (value ? 1 : -1);
        value = v; length = 1;
    }
    if (n < 32) runs[n++] = length * (value ? 1 : -1);
    CHECK(n >= 12);
    for (int i = 0; i + 1 < n; i++) CHECK(runs[i] == (i % 2 == 0 ? 10 : -5));
    /* A phase of 5 starts half-way into the first dash. */
    CGContextClearRect(c, CGRectMake(0, 0, 100, 10));
    CGContextSetLineDash(c, 5, dash, 2);
    CGContextMoveToPoint(c, 0, 5);
    CGContextAddLineToPoint(c, 100, 5);
    CGContextStrokePath(c);
    CHECK(alpha(pb, 4, 5) == 255 && alpha(pb, 5, 5) == 0 && alpha(pb, 9, 5) == 0 && alpha(pb, 10, 5) == 255);
    CGContextRelease(c);
    CVPixelBufferRelease(pb);
}

static void add_nested_squares(CGContextRef c) {
    /* Both clockwise: nonzero fills the inner square, even-odd leaves it empty. */
    CGContextAddRect(c, CGRectMake(10, 10, 40, 40));
    CGContextAddRect(c, CGRectMake(20, 20, 20, 20));
}

static void test_fill_rules(void) {
    CVPixelBufferRef pb;
    CGContextRef c = make_context(60, 60, &pb);
    add_nested_squares(c);
    CGContextEOFillPath(c);
    CHECK(alpha(pb, 30, 30) == 0 && alpha(pb, 15, 15) == 255 && alpha(pb, 5, 5) == 0);
    CGContextClearRect(c, CGRectMake(0, 0, 60, 60));
    add_nested_squares(c);
    CGContextFillPath(c);
    CHECK(alpha(pb, 30, 30) == 255 && alpha(pb, 15, 15) == 255 && alpha(pb, 5, 5) == 0);
    /* kCGPathEOFillStroke: the inner square's edges are stroked, its inside is empty. */
    CGContextClearRect(c, CGRectMake(0, 0, 60, 60));
    add_nested_squares(c);
    CGContextSetLineWidth(c, 2);
    CGContextDrawPath(c, kCGPathEOFillStroke);
    CHECK(alpha(pb, 30, 30) == 0 && alpha(pb, 20, 30) == 255);
    CGContextRelease(c);
    CVPixelBufferRelease(pb);
}

static void test_miter_limit(void) {
    /* A sharp angle: with the default limit (10) the miter reaches far; a
     * limit of 1 bevels it. */
    for (int limited = 0; limited < 2; limited++) {
        CVPixelBufferRef pb;
        CGContextRef c = make_context(80, 80, &pb);
        CGContextSetLineWidth(c, 6);
        CGContextSetLineJoin(c, kCGLineJoinMiter);
        if (limited) CGContextSetMiterLimit(c, 1);
        CGContextMoveToPoint(c, 10, 70);
        CGContextAddLineToPoint(c, 40, 20);
        CGContextAddLineToPoint(c, 70, 70);
        CGContextStrokePath(c);
        /* The miter tip lies above y = 20 on x = 40: 3 / sin(half angle ~31 deg) ~ 5.8 px above. */
        int top = -1;
        for (int y = 0; y < 80 && top < 0; y++) if (alpha(pb, 40, y) >= 128) top = y;
        if (limited) CHECK(top >= 17); else CHECK(top <= 15 && top >= 13);
        CGContextRelease(c);
        CVPixelBufferRelease(pb);
    }
}

static void test_ctm_and_state(void) {
    CVPixelBufferRef pb;
    CGContextRef c = make_context(40, 40, &pb);
    CGContextSaveGState(c);
    CGContextTranslateCTM(c, 20, 0);
    CGContextScaleCTM(c, 2, 2);
    CGContextSetRGBFillColor(c, 1, 0, 0, 1);
    CGContextFillRect(c, CGRectMake(0, 0, 5, 5));     /* -> pixels 20...29 x 0...9 */
    CGContextRestoreGState(c);
    CHECK(px(pb, 25, 5) == 0xFFFF0000 && px(pb, 19, 5) == 0 && px(pb, 30, 5) == 0 && px(pb, 25, 10) == 0);
    CHECK(CGContextGetCTM(c).a == 1 && CGContextGetCTM(c).tx == 0);
    /* The fill colour was restored to black. */
    CGContextFillRect(c, CGRectMake(0, 0, 2, 2));
    CHECK(px(pb, 1, 1) == 0xFF000000);
    /* Alpha multiplies; gray colours. */
    CGContextSetAlpha(c, 0.5);
    CGContextSetGrayFillColor(c, 1, 1);
    CGContextFillRect(c, CGRectMake(0, 30, 10, 10));
    CHECK(px(pb, 5, 35) == 0x80808080);
    CGContextRelease(c);
    CVPixelBufferRelease(pb);
}

/* MARK: - Path queries */

static void test_path_queries(void) {
    CVPixelBufferRef pb;
    CGContextRef c = make_context(100, 100, &pb);
    CHECK(CGContextIsPathEmpty(c));
    CHECK(CGRectIsNull(CGContextGetPathBoundingBox(c)));
    CGContextTranslateCTM(c, 10, 10);
    CGContextMoveToPoint(c, 0, 0);
    CGContextAddLineToPoint(c, 30, 0);
    CGContextAddQuadCurveToPoint(c, 30, 30, 0, 30);
    CGContextClosePath(c);
    CHECK(!CGContextIsPathEmpty(c));
    CGPoint p = CGContextGetPathCurrentPoint(c);
    CHECK_NEAR(p.x, 0, 1e-9); CHECK_NEAR(p.y, 0, 1e-9);
    CGRect box = CGContextGetPathBoundingBox(c);   /* the curve bulges to x = 22.5 at most */
    CHECK_NEAR(box.origin.x, 0, 1e-9); CHECK_NEAR(box.size.width, 30, 1e-9); CHECK_NEAR(box.size.height, 30, 1e-9);
    CHECK(CGContextPathContainsPoint(c, CGPointMake(5, 5), kCGPathFill));
    CHECK(!CGContextPathContainsPoint(c, CGPointMake(29, 29), kCGPathFill));
    CHECK(!CGContextPathContainsPoint(c, CGPointMake(15, -3), kCGPathFill));
    CHECK(CGContextPathContainsPoint(c, CGPointMake(15, -0.3), kCGPathStroke));   /* within half the line width */
    /* The path stays where it was drawn when the CTM changes. */
    CGContextTranslateCTM(c, 5, 0);
    p = CGContextGetPathCurrentPoint(c);
    CHECK_NEAR(p.x, -5, 1e-9);
    CGPathRef copy = CGContextCopyPath(c);
    CHECK(copy != NULL && !CGPathIsEmpty(copy));
    CGRect cb = CGPathGetPathBoundingBox(copy);
    CHECK_NEAR(cb.origin.x, -5, 1e-9);
    CGPathRelease(copy);
    /* Painting consumes the path. */
    CGContextFillPath(c);
    CHECK(CGContextIsPathEmpty(c) && CGContextCopyPath(c) == NULL);
    CHECK(alpha(pb, 12, 12) == 255);
    /* AddPath, AddLines, AddRects, arcs. */
    CGMutablePathRef path = CGPathCreateMutable();
    CGPathAddRect(path, NULL, CGRectMake(0, 0, 4, 4));
    CGContextAddPath(c, path);
    CGPathRelease(path);
    CGPoint pts[] = { { 50, 50 }, { 60, 50 }, { 60, 60 } };
    CGContextAddLines(c, pts, 3);
    CGRect rects[] = { CGRectMake(70, 70, 5, 5), CGRectMake(80, 80, 5, 5) };
    CGContextAddRects(c, rects, 2);
    CGContextAddArc(c, 20, 70, 10, 0, M_PI, 0);
    CGContextAddArcToPoint(c, 0, 90, 20, 90, 5);
    CGContextAddEllipseInRect(c, CGRectMake(40, 80, 10, 10));
    CHECK_NO_ERROR();
    CGContextBeginPath(c);
    CHECK(CGContextIsPathEmpty(c));
    CGContextRelease(c);
    CVPixelBufferRelease(pb);
}

static void test_stroked_path(void) {
    CVPixelBufferRef pb;
    CGContextRef c = make_context(40, 40, &pb);
    CGContextSetLineWidth(c, 6);
    CGContextMoveToPoint(c, 5, 20);
    CGContextAddLineToPoint(c, 35, 20);
    CGContextReplacePathWithStrokedPath(c);
    CHECK(CGContextPathContainsPoint(c, CGPointMake(20, 22.5), kCGPathFill));
    CHECK(!CGContextPathContainsPoint(c, CGPointMake(20, 24), kCGPathFill));
    CGRect box = CGContextGetPathBoundingBox(c);
    CHECK_NEAR(box.origin.y, 17, 1e-6); CHECK_NEAR(box.size.height, 6, 1e-6);
    CGContextSetRGBFillColor(c, 0, 0, 1, 1);
    CGContextFillPath(c);                     /* paints the stroke */
    CHECK(px(pb, 20, 18) == 0xFF0000FF && alpha(pb, 20, 16) == 0 && alpha(pb, 20, 23) == 0);
    /* Clipping to a stroked path. */
    CGContextClearRect(c, CGRectMake(0, 0, 40, 40));
    CGContextMoveToPoint(c, 20, 0);
    CGContextAddLineToPoint(c, 20, 40);
    CGContextReplacePathWithStrokedPath(c);
    CGContextClip(c);
    CGContextFillRect(c, CGRectMake(0, 0, 40, 40));
    CHECK(alpha(pb, 20, 5) == 255 && alpha(pb, 10, 5) == 0 && alpha(pb, 30, 30) == 0);
    CGContextRelease(c);
    CVPixelBufferRelease(pb);
}

/* MARK: - Clipping, blend modes, transparency layers, gradients */

static void test_clipping(void) {
    CVPixelBufferRef pb;
    CGContextRef c = make_context(40, 40, &pb);
    CGRect full = CGContextGetClipBoundingBox(c);
    CHECK(full.size.width == 40 && full.size.height == 40);
    CGContextSaveGState(c);
    CGContextClipToRect(c, CGRectMake(10, 10, 10, 10));
    CGRect box = CGContextGetClipBoundingBox(c);
    CHECK(box.origin.x == 10 && box.size.width == 10);
    CGContextFillRect(c, CGRectMake(0, 0, 40, 40));
    CHECK(alpha(pb, 15, 15) == 255 && alpha(pb, 5, 5) == 0 && alpha(pb, 25, 15) == 0);
    CGContextRestoreGState(c);
    CGContextFillRect(c, CGRectMake(30, 30, 5, 5));
    CHECK(alpha(pb, 32, 32) == 255);
    /* A path clip, even-odd. */
    CGContextClearRect(c, CGRectMake(0, 0, 40, 40));
    CGContextSaveGState(c);
    CGContextAddRect(c, CGRectMake(0, 0, 40, 40));
    CGContextAddRect(c, CGRectMake(10, 10, 20, 20));
    CGContextEOClip(c);
    CHECK(CGContextIsPathEmpty(c));
    CGContextFillRect(c, CGRectMake(0, 0, 40, 40));
    CHECK(alpha(pb, 20, 20) == 0 && alpha(pb, 5, 5) == 255);
    CGContextRestoreGState(c);
    /* A mask clip from a gray image: white passes, black blocks. */
    uint8_t gray[4] = { 255, 0, 0, 255 };       /* 2 x 2: white, black / black, white */
    CGDataProviderRef provider = CGDataProviderCreateWithData(NULL, gray, 4, NULL);
    CGColorSpaceRef space = CGColorSpaceCreateDeviceGray();
    CGImageRef mask = CGImageCreate(2, 2, 8, 8, 2, space, kCGImageAlphaNone, provider, NULL, false, kCGRenderingIntentDefault);
    CHECK(mask != NULL);
    CGContextClearRect(c, CGRectMake(0, 0, 40, 40));
    CGContextSaveGState(c);
    CGContextClipToMask(c, CGRectMake(0, 0, 40, 40), mask);
    CGContextFillRect(c, CGRectMake(0, 0, 40, 40));
    CGContextRestoreGState(c);
    /* Image row 0 lies along maxY (the bottom here): white at the bottom left. */
    CHECK(alpha(pb, 5, 35) == 255 && alpha(pb, 35, 35) == 0 && alpha(pb, 5, 5) == 0 && alpha(pb, 35, 5) == 255);
    CGImageRelease(mask);
    CGColorSpaceRelease(space);
    CGDataProviderRelease(provider);
    CGContextRelease(c);
    CVPixelBufferRelease(pb);
}

static void test_blend_modes(void) {
    CVPixelBufferRef pb;
    CGContextRef c = make_context(4, 1, &pb);
    /* Backdrop: opaque (0.5, 0.5, 0.5). */
    CGContextSetRGBFillColor(c, 0.5, 0.5, 0.5, 1);
    CGContextFillRect(c, CGRectMake(0, 0, 4, 1));
    CGContextSetRGBFillColor(c, 1, 0, 0, 1);
    CGContextSetBlendMode(c, kCGBlendModeMultiply);
    CGContextFillRect(c, CGRectMake(0, 0, 1, 1));
    CGContextSetBlendMode(c, kCGBlendModeScreen);
    CGContextFillRect(c, CGRectMake(1, 0, 1, 1));
    CGContextSetBlendMode(c, kCGBlendModeClear);
    CGContextFillRect(c, CGRectMake(2, 0, 1, 1));
    CGContextSetBlendMode(c, kCGBlendModePlusDarker);
    CGContextFillRect(c, CGRectMake(3, 0, 1, 1));
    CHECK_NO_ERROR();
    uint32_t m = px(pb, 0, 0), s = px(pb, 1, 0);
    CHECK(((m >> 16) & 0xFF) >= 127 && ((m >> 16) & 0xFF) <= 129 && (m & 0xFF) == 0);   /* 1 x 0.5, 0 x 0.5 */
    CHECK(((s >> 16) & 0xFF) == 255 && (s & 0xFF) >= 127 && (s & 0xFF) <= 129);          /* 1, 0.5 */
    CHECK(px(pb, 2, 0) == 0);
    uint32_t d = px(pb, 3, 0);                  /* max(0, S + D - 1): red 0.5, green and blue 0 */
    CHECK((d >> 24) == 255 && ((d >> 16) & 0xFF) >= 126 && ((d >> 16) & 0xFF) <= 129 && (d & 0xFFFF) == 0);
    CGContextSetBlendMode(c, (CGBlendMode)28);
    CHECK_ERROR(QZErrorInvalidArgument);
    CGContextRelease(c);
    CVPixelBufferRelease(pb);
}

static void test_transparency_layer_and_shadow(void) {
    CVPixelBufferRef pb;
    CGContextRef c = make_context(40, 20, &pb);
    /* Two overlapping opaque squares at alpha 0.5 in a layer: the overlap
     * is not darker than the rest (the layer composites once). */
    CGContextSetAlpha(c, 0.5);
    CGContextBeginTransparencyLayer(c, NULL);
    CGContextSetRGBFillColor(c, 0, 0, 0, 1);
    CGContextFillRect(c, CGRectMake(0, 0, 15, 10));
    CGContextFillRect(c, CGRectMake(5, 0, 15, 10));
    CGContextEndTransparencyLayer(c);
    CHECK_NO_ERROR();
    CHECK(alpha(pb, 2, 5) == alpha(pb, 10, 5) && alpha(pb, 10, 5) >= 127 && alpha(pb, 10, 5) <= 128);
    CGContextEndTransparencyLayer(c);
    CHECK_ERROR(QZErrorInvalidState);
    /* A shadow offset by (0, 5), unblurred: below the shape. */
    CGContextSetAlpha(c, 1);
    CGColorRef red = CGColorCreateSRGB(1, 0, 0, 1);
    CGContextSetShadowWithColor(c, CGSizeMake(0, 5), 0, red);
    CGContextSetRGBFillColor(c, 0, 0, 1, 1);
    CGContextFillRect(c, CGRectMake(25, 2, 10, 10));
    CHECK(px(pb, 30, 7) == 0xFF0000FF);       /* the square over its shadow */
    CHECK(px(pb, 30, 14) == 0xFFFF0000);      /* the shadow sticks out below */
    CHECK(alpha(pb, 30, 17) == 0);
    CGContextSetShadowWithColor(c, CGSizeMake(0, 0), 0, NULL);
    CGColorRelease(red);
    CGContextRelease(c);
    CVPixelBufferRelease(pb);
}

static void test_gradients(void) {
    CVPixelBufferRef pb;
    CGContextRef c = make_context(100, 4, &pb);
    CGColorSpaceRef rgb = CGColorSpaceCreateDeviceRGB();
    CGFloat comps[] = { 0, 0, 0, 1,  1, 1, 1, 1 };
    CGGradientRef g = CGGradientCreateWithColorComponents(rgb, comps, NULL, 2);
    CHECK(g != NULL);
    CGContextDrawLinearGradient(c, g, CGPointMake(25, 0), CGPointMake(75, 0), 0);
    /* Nothing before 25 or after 75 without the options; linear in between. */
    CHECK(alpha(pb, 10, 1) == 0 && alpha(pb, 90, 1) == 0);
    int mid = (int)(px(pb, 50, 1) & 0xFF);
    CHECK(mid >= 125 && mid <= 133);
    CGContextClearRect(c, CGRectMake(0, 0, 100, 4));
    CGContextDrawLinearGradient(c, g, CGPointMake(25, 0), CGPointMake(75, 0),
                                kCGGradientDrawsBeforeStartLocation | kCGGradientDrawsAfterEndLocation);
    CHECK(px(pb, 10, 1) == 0xFF000000 && px(pb, 90, 1) == 0xFFFFFFFF);
    CGContextClearRect(c, CGRectMake(0, 0, 100, 4));
    CGContextDrawLinearGradient(c, g, CGPointMake(25, 0), CGPointMake(75, 0), kCGGradientDrawsAfterEndLocation);
    CHECK(alpha(pb, 10, 1) == 0 && px(pb, 90, 1) == 0xFFFFFFFF);
    /* Radial: from the centre outwards. */
    CGContextClearRect(c, CGRectMake(0, 0, 100, 4));
    CGContextDrawRadialGradient(c, g, CGPointMake(50, 2), 0, CGPointMake(50, 2), 20, 0);
    CHECK(alpha(pb, 10, 1) == 0 && (px(pb, 50, 2) & 0xFF) < 20 && (px(pb, 65, 2) & 0xFF) > 150);
    /* From colours, with locations. */
    CGColorRef red = CGColorCreateSRGB(1, 0, 0, 1), blue = CGColorCreateSRGB(0, 0, 1, 1);
    CAValueRef a = CAValueCreateColor(red), b = CAValueCreateColor(blue);
    CAValueRef items[] = { a, b };
    CAValueRef list = CAValueCreateArray(items, 2);
    CGFloat locs[] = { 0.5, 1 };
    CGGradientRef g2 = CGGradientCreateWithColors(NULL, list, locs);
    CHECK(g2 != NULL);
    CGContextClearRect(c, CGRectMake(0, 0, 100, 4));
    CGContextDrawLinearGradient(c, g2, CGPointMake(0, 0), CGPointMake(100, 0), 0);
    CHECK(px(pb, 20, 1) == 0xFFFF0000);
    CHECK(CGGradientCreateWithColors(NULL, a, NULL) == NULL);
    CHECK_ERROR(QZErrorWrongType);
    CHECK(CGGradientCreateWithColorComponents(rgb, comps, NULL, 0) == NULL);
    CHECK_ERROR(QZErrorOutOfRange);
    CARelease(list); CARelease(a); CARelease(b);
    CGColorRelease(red); CGColorRelease(blue);
    CGGradientRelease(g2);
    CGGradientRelease(g);
    CGColorSpaceRelease(rgb);
    CGContextRelease(c);
    CVPixelBufferRelease(pb);
}

/* MARK: - Bad input */

static void test_bad_input(void) {
    CVPixelBufferRef pb;
    CGContextRef c = make_context(20, 20, &pb);
    CGContextMoveToPoint(c, NAN, 0);
    CHECK_ERROR(QZErrorNotFinite);
    CHECK(CGContextIsPathEmpty(c));
    CGContextAddLineToPoint(c, 5, 5);                  /* no current point */
    CHECK(QZGetLastError() == QZErrorInvalidState && strstr(QZGetLastErrorMessage(), "no current point") != NULL);
    QZClearLastError();
    CGContextAddCurveToPoint(c, 1, 1, 2, 2, 3, 3);
    CHECK_ERROR(QZErrorInvalidState);
    CGContextAddArcToPoint(c, 1, 1, 2, 2, 3);
    CHECK_ERROR(QZErrorInvalidState);
    CHECK(CGContextIsPathEmpty(c));
    CGContextSetLineWidth(c, -1);
    CHECK_ERROR(QZErrorInvalidArgument);
    CGContextStrokeRectWithWidth(c, CGRectMake(0, 0, 5, 5), -2);
    CHECK_ERROR(QZErrorInvalidArgument);
    CGFloat zeros[] = { 0, 0 };
    CGContextSetLineDash(c, 0, zeros, 2);
    CHECK_ERROR(QZErrorInvalidArgument);
    CGContextSetLineDash(c, 0, NULL, 2);
    CHECK_ERROR(QZErrorNullArgument);
    CGFloat negative[] = { 4, -1 };
    CGContextSetLineDash(c, 0, negative, 2);
    CHECK_ERROR(QZErrorInvalidArgument);
    CGContextSetLineDash(c, 0, NULL, 0);               /* solid again: fine */
    CHECK_NO_ERROR();
    CGContextAddArc(c, 10, 10, -5, 0, 1, 0);
    CHECK_ERROR(QZErrorInvalidArgument);
    CGContextFillRect(c, CGRectMake(0, 0, NAN, 4));
    CHECK_ERROR(QZErrorNotFinite);
    CGContextSetRGBFillColor(c, NAN, 0, 0, 1);
    CHECK_ERROR(QZErrorNotFinite);
    CGContextSetLineCap(c, (CGLineCap)9);
    CHECK_ERROR(QZErrorInvalidArgument);
    CGContextSetLineJoin(c, (CGLineJoin)3);
    CHECK_ERROR(QZErrorInvalidArgument);
    CGContextDrawPath(c, (CGPathDrawingMode)5);
    CHECK_ERROR(QZErrorInvalidArgument);
    CGContextSetInterpolationQuality(c, (CGInterpolationQuality)7);
    CHECK_ERROR(QZErrorInvalidArgument);
    CGContextRestoreGState(c);
    CHECK_ERROR(QZErrorInvalidState);
    CGContextAddLines(c, NULL, 3);
    CHECK_ERROR(QZErrorNullArgument);
    CGContextFillRects(c, NULL, 2);
    CHECK_ERROR(QZErrorNullArgument);
    CGContextStrokeLineSegments(c, NULL, 4);
    CHECK_ERROR(QZErrorNullArgument);
    CGContextDrawLinearGradient(c, NULL, CGPointMake(0, 0), CGPointMake(1, 1), 0);
    CHECK_ERROR(QZErrorNullArgument);
    CGContextDrawImage(c, CGRectMake(0, 0, 5, 5), (CGImageRef)(void *)c);   /* a context is not an image */
    CHECK_ERROR(QZErrorWrongType);
    CGContextFillPath(NULL);
    CHECK_ERROR(QZErrorNullArgument);
    CGContextSetShadow(c, CGSizeMake(NAN, 0), 1);
    CHECK_ERROR(QZErrorNotFinite);
    CGContextSetFlatness(c, 0);
    CHECK_ERROR(QZErrorInvalidArgument);
    CGContextConcatCTM(c, (CGAffineTransform){ NAN, 0, 0, 1, 0, 0 });
    CHECK_ERROR(QZErrorNotFinite);
    /* A singular CTM draws nothing, and a restore brings drawing back. */
    CGContextSaveGState(c);
    CGContextScaleCTM(c, 0, 1);
    CGContextFillRect(c, CGRectMake(0, 0, 20, 20));
    CHECK_NO_ERROR();
    CGContextRestoreGState(c);
    CHECK(alpha(pb, 10, 10) == 0);
    CGContextFillRect(c, CGRectMake(0, 0, 20, 20));
    CHECK(alpha(pb, 10, 10) == 255);
    /* An image wider than cairo can show (40000 pixels) is not drawn, and
     * neither it nor its mask stops the context. */
    static uint8_t wide[40000 * 4];
    CGDataProviderRef wp = CGDataProviderCreateWithData(NULL, wide, sizeof wide, NULL);
    CGImageRef huge = CGImageCreate(40000, 1, 8, 32, 40000 * 4, NULL,
                                    kCGImageAlphaPremultipliedFirst | kCGBitmapByteOrder32Little, wp, NULL, true, 0);
    CHECK(huge != NULL);
    CGContextClearRect(c, CGRectMake(0, 0, 20, 20));
    CGContextDrawImage(c, CGRectMake(0, 0, 20, 20), huge);
    CGContextDrawTiledImage(c, CGRectMake(0, 0, 20, 20), huge);
    CGContextSaveGState(c);
    CGContextClipToMask(c, CGRectMake(0, 0, 20, 20), huge);
    CGContextFillRect(c, CGRectMake(0, 0, 20, 20));     /* clipped away entirely */
    CGContextRestoreGState(c);
    CHECK(alpha(pb, 10, 10) == 0);
    CGContextFillRect(c, CGRectMake(0, 0, 20, 20));
    CHECK(alpha(pb, 10, 10) == 255);
    CGImageRelease(huge);
    CGDataProviderRelease(wp);
    QZClearLastError();
    /* Nothing above drew anything wrong: the rest is untouched. */
    CGContextRelease(c);
    CVPixelBufferRelease(pb);
}

/* MARK: - Images */

/* PNG bytes of a 3 x 2 image written through QZPixelBufferWritePNG. */
static uint8_t *png_bytes(size_t *size, const char *path) {
    CVPixelBufferRef pb = NULL;
    CVPixelBufferCreate(NULL, 3, 2, kCVPixelFormatType_32BGRA, NULL, &pb);
    uint8_t *p = CVPixelBufferGetBaseAddress(pb);
    size_t bpr = CVPixelBufferGetBytesPerRow(pb);
    const uint32_t colors[6] = { 0xFFFF0000, 0xFF00FF00, 0xFF0000FF, 0x80800000, 0xFFFFFFFF, 0x00000000 };
    for (int i = 0; i < 6; i++) memcpy(p + (i / 3) * bpr + 4 * (i % 3), &colors[i], 4);
    QZPixelBufferWritePNG(pb, path);
    CVPixelBufferRelease(pb);
    FILE *f = fopen(path, "rb");
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = malloc((size_t)n);
    *size = fread(data, 1, (size_t)n, f);
    fclose(f);
    return data;
}

/* A 16 x 8 JPEG, left half red, right half blue, encoded with libjpeg. */
static uint8_t *jpeg_bytes(size_t *size) {
    struct jpeg_compress_struct cinfo;
    struct jpeg_error_mgr err;
    cinfo.err = jpeg_std_error(&err);
    jpeg_create_compress(&cinfo);
    unsigned char *out = NULL;
    unsigned long outSize = 0;
    jpeg_mem_dest(&cinfo, &out, &outSize);
    cinfo.image_width = 16;
    cinfo.image_height = 8;
    cinfo.input_components = 3;
    cinfo.in_color_space = JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, 95, TRUE);
    jpeg_start_compress(&cinfo, TRUE);
    unsigned char row[16 * 3];
    for (int x = 0; x < 16; x++) {
        row[3 * x] = x < 8 ? 255 : 0; row[3 * x + 1] = 0; row[3 * x + 2] = x < 8 ? 0 : 255;
    }
    while (cinfo.next_scanline < 8) {
        JSAMPROW r = row;
        jpeg_write_scanlines(&cinfo, &r, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    uint8_t *copy = malloc(outSize);
    memcpy(copy, out, outSize);
    free(out);
    *size = outSize;
    return copy;
}

static int releases;
static void release_data(void *info, const void *data, size_t size) {
    (void)data; (void)size;
    releases += info == (void *)&releases;
}

static uint32_t image_px(CGImageRef image, int x, int y) {
    CVPixelBufferRef pb = QZPixelBufferCreateWithImage(image);
    uint32_t v = px(pb, x, y);
    CVPixelBufferRelease(pb);
    return v;
}

static void test_png_and_jpeg(void) {
    char path[] = "/tmp/qz_test_graphics_XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    size_t size;
    uint8_t *png = png_bytes(&size, path);
    /* From a file. */
    CGDataProviderRef fp = CGDataProviderCreateWithFilename(path);
    CHECK(fp != NULL);
    CGImageRef a = CGImageCreateWithPNGDataProvider(fp, NULL, true, kCGRenderingIntentDefault);
    CHECK(a != NULL && CGImageGetWidth(a) == 3 && CGImageGetHeight(a) == 2);
    CHECK(CGImageGetBitsPerComponent(a) == 8 && CGImageGetBitsPerPixel(a) == 32 && CGImageGetBytesPerRow(a) == 12);
    CHECK(CGImageGetAlphaInfo(a) == kCGImageAlphaPremultipliedFirst);
    CHECK(CGImageGetDataProvider(a) == fp && CGImageGetShouldInterpolate(a) && !CGImageIsMask(a));
    CHECK(image_px(a, 0, 0) == 0xFFFF0000 && image_px(a, 2, 0) == 0xFF0000FF);
    CHECK(image_px(a, 0, 1) == 0x80800000 && image_px(a, 2, 1) == 0);
    /* From memory, with the release callback called once when the provider goes. */
    releases = 0;
    CGDataProviderRef mp = CGDataProviderCreateWithData(&releases, png, size, release_data);
    CGImageRef b = CGImageCreateWithPNGDataProvider(mp, NULL, false, kCGRenderingIntentDefault);
    CHECK(b != NULL && image_px(b, 1, 0) == 0xFF00FF00 && !CGImageGetShouldInterpolate(b));
    CGDataProviderRelease(mp);
    CHECK(releases == 0);                      /* the image keeps its provider */
    CGImageRelease(b);
    CHECK(releases == 1);
    /* Sub-images and pixel buffers. */
    CGImageRef sub = CGImageCreateWithImageInRect(a, CGRectMake(1, 0, 5, 1));
    CHECK(sub != NULL && CGImageGetWidth(sub) == 2 && CGImageGetHeight(sub) == 1 && image_px(sub, 0, 0) == 0xFF00FF00);
    CHECK(CGImageCreateWithImageInRect(a, CGRectMake(10, 10, 2, 2)) == NULL);
    CVPixelBufferRef pb = QZPixelBufferCreateWithImage(a);
    CGImageRef back = QZImageCreateWithPixelBuffer(pb);
    CHECK(back != NULL && image_px(back, 0, 1) == 0x80800000);
    CVPixelBufferRelease(pb);
    CGImageRelease(back);
    CGImageRelease(sub);
    /* JPEG from memory and from a file. */
    size_t jsize;
    uint8_t *jpeg = jpeg_bytes(&jsize);
    CGDataProviderRef jp = CGDataProviderCreateWithData(NULL, jpeg, jsize, NULL);
    CGImageRef j = CGImageCreateWithJPEGDataProvider(jp, NULL, true, kCGRenderingIntentDefault);
    CHECK(j != NULL && CGImageGetWidth(j) == 16 && CGImageGetHeight(j) == 8);
    CHECK(CGImageGetAlphaInfo(j) == kCGImageAlphaNoneSkipFirst);
    uint32_t left = image_px(j, 2, 4), right = image_px(j, 13, 4);
    CHECK((left >> 24) == 255 && ((left >> 16) & 0xFF) > 230 && (left & 0xFF) < 30);
    CHECK(((right >> 16) & 0xFF) < 30 && (right & 0xFF) > 230);
    FILE *f = fopen(path, "wb");
    fwrite(jpeg, 1, jsize, f);
    fclose(f);
    CGDataProviderRef jfp = CGDataProviderCreateWithFilename(path);
    CGImageRef j2 = CGImageCreateWithJPEGDataProvider(jfp, NULL, true, kCGRenderingIntentDefault);
    CHECK(j2 != NULL && CGImageGetWidth(j2) == 16);
    /* The wrong decoder for the data: NULL and an error. */
    CHECK(CGImageCreateWithPNGDataProvider(jp, NULL, true, kCGRenderingIntentDefault) == NULL);
    CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(CGImageCreateWithJPEGDataProvider(fp, NULL, true, kCGRenderingIntentDefault) == NULL);
    CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(CGDataProviderCreateWithFilename("/nonexistent/file.png") == NULL);
    CHECK_ERROR(QZErrorInvalidArgument);
    CGImageRelease(j2); CGDataProviderRelease(jfp);
    CGImageRelease(j); CGDataProviderRelease(jp);
    CGImageRelease(a); CGDataProviderRelease(fp);
    free(jpeg);
    free(png);
    unlink(path);
}

/* Damaged images: truncated at every length, every byte flipped, and an
 * oversized header; each gives NULL with an error or a well-formed image,
 * never a crash. */
static void test_damaged_images(void) {
    char path[] = "/tmp/qz_test_graphics_XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    size_t psize, jsize;
    uint8_t *png = png_bytes(&psize, path);
    uint8_t *jpeg = jpeg_bytes(&jsize);
    unlink(path);
    struct { uint8_t *data; size_t size; int jpeg; } kinds[2] = { { png, psize, 0 }, { jpeg, jsize, 1 } };
    for (int k = 0; k < 2; k++) {
        uint8_t *copy = malloc(kinds[k].size);
        /* Truncated: every prefix shorter than the whole is refused. */
        int truncated_refused = 0;
        for (size_t n = 0; n < kinds[k].size; n++) {
            CGDataProviderRef p = CGDataProviderCreateWithData(NULL, kinds[k].data, n, NULL);
            QZClearLastError();
            CGImageRef i = kinds[k].jpeg ? CGImageCreateWithJPEGDataProvider(p, NULL, true, 0)
                                         : CGImageCreateWithPNGDataProvider(p, NULL, true, 0);
            if (i == NULL && QZGetLastError() == QZErrorInvalidArgument) truncated_refused++;
            CGImageRelease(i);
            CGDataProviderRelease(p);
        }
        /* (A JPEG cut inside its end marker still decodes whole.) */
        CHECK(truncated_refused >= (int)kinds[k].size - 2);
        /* Bit flips: every byte, one bit each. */
        int refused = 0, decoded = 0, header_refused = 0;
        for (size_t n = 0; n < kinds[k].size; n++) {
            memcpy(copy, kinds[k].data, kinds[k].size);
            copy[n] ^= (uint8_t)(1u << (n % 8));
            CGDataProviderRef p = CGDataProviderCreateWithData(NULL, copy, kinds[k].size, NULL);
            QZClearLastError();
            CGImageRef i = kinds[k].jpeg ? CGImageCreateWithJPEGDataProvider(p, NULL, true, 0)
                                         : CGImageCreateWithPNGDataProvider(p, NULL, true, 0);
            if (i) {
                decoded++;
                CHECK(CGImageGetWidth(i) > 0 && CGImageGetHeight(i) > 0);
            } else {
                CHECK(QZGetLastError() != QZErrorNone);
                refused++;
                if (n < 33) header_refused++;
            }
            CGImageRelease(i);
            CGDataProviderRelease(p);
        }
        CHECK(refused + decoded == (int)kinds[k].size);
        /* PNG's checksums catch a flip anywhere but in ancillary chunks' payloads. */
        /* PNG: a flip in the signature or the header chunk (33 bytes) is
         * always refused (CRC), as is one in the pixel data; one in an
         * ancillary chunk (sRGB, gAMA, cHRM) is a warning libpng lets pass. */
        if (!kinds[k].jpeg) CHECK(header_refused == 33 && refused >= (int)kinds[k].size / 2);
        /* JPEG: its markers and tables are checked, its entropy-coded data
         * has no checksum: some flips decode to a different picture. */
        if (kinds[k].jpeg) CHECK(refused > 0);
        /* Random damage (a fixed seed), several bytes at a time. */
        srand(13);
        for (int round = 0; round < 400; round++) {
            memcpy(copy, kinds[k].data, kinds[k].size);
            for (int m = 0; m < 1 + round % 6; m++) copy[(size_t)rand() % kinds[k].size] = (uint8_t)rand();
            size_t n = round % 3 == 0 ? (size_t)rand() % kinds[k].size : kinds[k].size;
            CGDataProviderRef p = CGDataProviderCreateWithData(NULL, copy, n, NULL);
            CGImageRef i = kinds[k].jpeg ? CGImageCreateWithJPEGDataProvider(p, NULL, true, 0)
                                         : CGImageCreateWithPNGDataProvider(p, NULL, true, 0);
            CGImageRelease(i);
            CGDataProviderRelease(p);
        }
        free(copy);
    }
    /* Oversized: a PNG header claiming 2^21 x 4 pixels (width above the
     * limit) and one of 60000 x 60000 under a memory limit. */
    uint8_t big[sizeof(uint8_t) * 64];
    memcpy(big, png, 33);                      /* signature + IHDR */
    big[16] = 0x00; big[17] = 0x20; big[18] = 0x00; big[19] = 0x00;   /* width 2^21 */
    CGDataProviderRef p = CGDataProviderCreateWithData(NULL, big, 33, NULL);
    QZClearLastError();
    CHECK(CGImageCreateWithPNGDataProvider(p, NULL, true, 0) == NULL);
    CHECK(QZGetLastError() != QZErrorNone);
    QZClearLastError();
    CGDataProviderRelease(p);
    free(png);
    free(jpeg);
}

static void test_image_create_layouts(void) {
    /* RGBA, not premultiplied, big-endian order (R G B A in memory). */
    uint8_t rgba[8] = { 255, 0, 0, 128,   0, 0, 255, 255 };
    CGDataProviderRef p = CGDataProviderCreateWithData(NULL, rgba, 8, NULL);
    CGColorSpaceRef rgb = CGColorSpaceCreateWithName(kCGColorSpaceSRGB);
    CHECK(CGColorSpaceGetModel(rgb) == kCGColorSpaceModelRGB && CGColorSpaceGetNumberOfComponents(rgb) == 3);
    CGImageRef i = CGImageCreate(2, 1, 8, 32, 8, rgb, kCGImageAlphaLast, p, NULL, true, kCGRenderingIntentDefault);
    CHECK(i != NULL && image_px(i, 0, 0) == 0x80800000 && image_px(i, 1, 0) == 0xFF0000FF);
    CHECK(CGImageGetBitmapInfo(i) == kCGImageAlphaLast && CGImageGetBytesPerRow(i) == 8);
    CHECK(CGImageGetColorSpace(i) == rgb);
    CGImageRelease(i);
    /* BGRA little-endian premultiplied first: the native layout. */
    i = CGImageCreate(2, 1, 8, 32, 8, rgb, kCGImageAlphaPremultipliedFirst | kCGBitmapByteOrder32Little, p, NULL, true, 0);
    CHECK(i != NULL && image_px(i, 1, 0) == 0xFFFF0000);   /* bytes 0 0 255 255 = B G R A: red */
    CGImageRelease(i);
    /* 24-bit RGB. */
    i = CGImageCreate(2, 1, 8, 24, 6, rgb, kCGImageAlphaNone, p, NULL, true, 0);
    CHECK(i != NULL && image_px(i, 0, 0) == 0xFFFF0000 && image_px(i, 1, 0) == 0xFF800000);
    CGImageRelease(i);
    /* Bad layouts, short data, NULL provider, decode arrays. */
    CHECK(CGImageCreate(2, 1, 8, 32, 4, rgb, kCGImageAlphaLast, p, NULL, true, 0) == NULL);
    CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(CGImageCreate(4, 1, 8, 32, 16, rgb, kCGImageAlphaLast, p, NULL, true, 0) == NULL);
    CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(CGImageCreate(2, 1, 16, 64, 16, rgb, kCGImageAlphaLast, p, NULL, true, 0) == NULL);
    CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(CGImageCreate(2, 1, 8, 32, 8, rgb, 0x1F, p, NULL, true, 0) == NULL);
    CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(CGImageCreate(0, 1, 8, 32, 8, rgb, kCGImageAlphaLast, p, NULL, true, 0) == NULL);
    CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(CGImageCreate(2, 1, 8, 32, 8, rgb, kCGImageAlphaLast, NULL, NULL, true, 0) == NULL);
    CHECK_ERROR(QZErrorNullArgument);
    CGFloat decode[8] = { 0 };
    CHECK(CGImageCreate(2, 1, 8, 32, 8, rgb, kCGImageAlphaLast, p, decode, true, 0) == NULL);
    CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(CGColorSpaceCreateWithName("kCGColorSpaceUnknown") == NULL);
    CHECK_ERROR(QZErrorUnknownConstant);
    CHECK(CGDataProviderCreateWithData(NULL, NULL, 4, NULL) == NULL);
    CHECK_ERROR(QZErrorNullArgument);
    CGColorSpaceRelease(rgb);
    CGDataProviderRelease(p);
}

static void test_draw_image(void) {
    /* A 2 x 2 image: red, green / blue, white (row 0 first). */
    uint8_t bgra[16] = { 0, 0, 255, 255,  0, 255, 0, 255,  255, 0, 0, 255,  255, 255, 255, 255 };
    CGDataProviderRef p = CGDataProviderCreateWithData(NULL, bgra, 16, NULL);
    CGImageRef image = CGImageCreate(2, 2, 8, 32, 8, NULL, kCGImageAlphaPremultipliedFirst | kCGBitmapByteOrder32Little,
                                     p, NULL, true, 0);
    CVPixelBufferRef pb;
    CGContextRef c = make_context(20, 20, &pb);
    CGContextSetInterpolationQuality(c, kCGInterpolationNone);
    CHECK(CGContextGetInterpolationQuality(c) == kCGInterpolationNone);
    CGContextDrawImage(c, CGRectMake(0, 0, 20, 20), image);
    /* As in Core Graphics: row 0 along maxY (the bottom in this y-down context). */
    CHECK(px(pb, 5, 15) == 0xFFFF0000 && px(pb, 15, 15) == 0xFF00FF00);
    CHECK(px(pb, 5, 5) == 0xFF0000FF && px(pb, 15, 5) == 0xFFFFFFFF);
    /* Flipped the UIKit way, it is upright. */
    CGContextClearRect(c, CGRectMake(0, 0, 20, 20));
    CGContextSaveGState(c);
    CGContextTranslateCTM(c, 0, 20);
    CGContextScaleCTM(c, 1, -1);
    CGContextDrawImage(c, CGRectMake(0, 0, 20, 20), image);
    CGContextRestoreGState(c);
    CHECK(px(pb, 5, 5) == 0xFFFF0000 && px(pb, 15, 15) == 0xFFFFFFFF);
    /* Tiled: 5 x 5 tiles repeat every 5 pixels. */
    CGContextClearRect(c, CGRectMake(0, 0, 20, 20));
    CGContextDrawTiledImage(c, CGRectMake(0, 0, 5, 5), image);
    CHECK(px(pb, 1, 4) == px(pb, 6, 9) && px(pb, 1, 4) == px(pb, 16, 19) && px(pb, 1, 4) == 0xFFFF0000);
    /* A bitmap context's image is a copy. */
    CGImageRef snap = CGBitmapContextCreateImage(c);
    CGContextClearRect(c, CGRectMake(0, 0, 20, 20));
    CHECK(snap != NULL && image_px(snap, 1, 4) == 0xFFFF0000);
    CGImageRelease(snap);
    CGContextRelease(c);
    CVPixelBufferRelease(pb);
    CGImageRelease(image);
    CGDataProviderRelease(p);
}

static void test_contents_types(void) {
    CALayerRef l = CALayerCreate();
    uint8_t bgra[4] = { 0, 0, 255, 255 };
    CGDataProviderRef p = CGDataProviderCreateWithData(NULL, bgra, 4, NULL);
    CGImageRef image = CGImageCreate(1, 1, 8, 32, 4, NULL, kCGImageAlphaPremultipliedFirst | kCGBitmapByteOrder32Little,
                                     p, NULL, true, 0);
    CALayerSetContents(l, image);
    CHECK_NO_ERROR();
    CHECK(CALayerGetContents(l) == image);
    CGColorRef color = CGColorCreateSRGB(1, 0, 0, 1);
    CALayerSetContents(l, color);                 /* neither an image nor a pixel buffer */
    CHECK_ERROR(QZErrorWrongType);
    CHECK(CALayerGetContents(l) == image);
    CALayerSetContents(l, NULL);
    CHECK(CALayerGetContents(l) == NULL);
    CGColorRelease(color);
    CGImageRelease(image);
    CGDataProviderRelease(p);
    CARelease(l);
}

static void test_render_in_context_honours_state(void) {
    CALayerRef l = CALayerCreate();
    CALayerSetBounds(l, CGRectMake(0, 0, 20, 20));
    CGColorRef red = CGColorCreateSRGB(1, 0, 0, 1);
    CALayerSetBackgroundColor(l, red);
    CVPixelBufferRef pb;
    CGContextRef c = make_context(20, 20, &pb);
    CGContextClipToRect(c, CGRectMake(0, 0, 10, 20));
    CGContextSetAlpha(c, 0.5);
    CALayerRenderInContext(l, c);
    CHECK_NO_ERROR();
    CHECK(alpha(pb, 5, 5) >= 127 && alpha(pb, 5, 5) <= 128 && alpha(pb, 15, 5) == 0);
    CGContextRelease(c);
    CVPixelBufferRelease(pb);
    CGColorRelease(red);
    CARelease(l);
}

static void test_rgba_contexts(void) {
    /* A non-BGRA format is drawn through a BGRA copy written back. */
    uint8_t data[4 * 4 * 4] = { 0 };
    CGContextRef c = CGBitmapContextCreate(data, 4, 4, 8, 16, NULL, kCGImageAlphaPremultipliedLast);
    CHECK(c != NULL);
    CGContextSetRGBFillColor(c, 0, 0, 1, 1);
    CGContextMoveToPoint(c, 0, 0);
    CGContextAddLineToPoint(c, 4, 0);
    CGContextAddLineToPoint(c, 4, 2);
    CGContextAddLineToPoint(c, 0, 2);
    CGContextFillPath(c);
    CHECK(data[0] == 0 && data[2] == 255 && data[3] == 255);     /* R G B A */
    CHECK(data[3 * 16 + 3] == 0);
    CGContextRelease(c);
}

/* MARK: - Fuzzing the vocabulary */

static uint64_t fuzz_state = 0x243F6A8885A308D3ULL;
static uint64_t fuzz_u64(void) {
    fuzz_state ^= fuzz_state >> 12; fuzz_state ^= fuzz_state << 25; fuzz_state ^= fuzz_state >> 27;
    return fuzz_state * 0x2545F4914F6CDD1DULL;
}
static unsigned fuzz_pick(unsigned n) { return (unsigned)(fuzz_u64() % n); }
static double fuzz_number(void) {
    switch (fuzz_pick(12)) {
    case 0: return NAN;
    case 1: return INFINITY;
    case 2: return -1e308;
    case 3: return 1e308;
    case 4: return 0;
    case 5: return -((double)(fuzz_u64() >> 11) / 9007199254740992.0) * 100;
    case 6: return 1e9;
    default: return ((double)(fuzz_u64() >> 11) / 9007199254740992.0) * 80 - 10;
    }
}

/* Random calls of the whole CGContext vocabulary with random numbers (NaN,
 * infinities, 1e308, negatives), NULL, foreign pointers and handles of the
 * wrong type. None may crash; afterwards the context still draws. */
static void test_context_fuzz(void) {
    CVPixelBufferRef pb;
    CGContextRef c = make_context(64, 64, &pb);
    uint64_t foreign[8] = { 0 };
    uint8_t bgra[16] = { 0, 0, 255, 255,  0, 255, 0, 255,  255, 0, 0, 255,  255, 255, 255, 128 };
    CGDataProviderRef provider = CGDataProviderCreateWithData(NULL, bgra, 16, NULL);
    CGImageRef image = CGImageCreate(2, 2, 8, 32, 8, NULL, kCGImageAlphaPremultipliedFirst | kCGBitmapByteOrder32Little,
                                     provider, NULL, true, 0);
    CGColorSpaceRef rgb = CGColorSpaceCreateDeviceRGB();
    CGFloat comps[] = { 1, 0, 0, 1,  0, 0, 1, 0.5 };
    CGGradientRef gradient = CGGradientCreateWithColorComponents(rgb, comps, NULL, 2);
    CGMutablePathRef path = CGPathCreateMutable();
    CGPathAddEllipseInRect(path, NULL, CGRectMake(5, 5, 30, 20));
    CGColorRef color = CGColorCreateSRGB(0.2, 0.4, 0.6, 0.8);
    void *handles[] = { NULL, foreign, c, image, gradient, path, color, rgb, provider };
    long steps = getenv("QZ_FUZZ_STEPS") ? atol(getenv("QZ_FUZZ_STEPS")) / 4 : 60000;
    int depth = 0, layers = 0;
    long accepted = 0;
    for (long i = 0; i < steps; i++) {
        double a = fuzz_number(), b = fuzz_number(), x = fuzz_number(), y = fuzz_number(), w = fuzz_number(), h = fuzz_number();
        void *any = handles[fuzz_pick(9)];
        CGContextRef ctx = fuzz_pick(16) ? c : (CGContextRef)any;
        CGRect r = CGRectMake(x, y, w, h);
        CGFloat dash[3] = { a, b, x };
        CGPoint pts[4] = { { a, b }, { x, y }, { w, h }, { b, a } };
        switch (fuzz_pick(40)) {
        case 0: CGContextMoveToPoint(ctx, a, b); break;
        case 1: CGContextAddLineToPoint(ctx, a, b); break;
        case 2: CGContextAddCurveToPoint(ctx, a, b, x, y, w, h); break;
        case 3: CGContextAddQuadCurveToPoint(ctx, a, b, x, y); break;
        case 4: CGContextAddArc(ctx, a, b, x, y, w, (int)fuzz_pick(3)); break;
        case 5: CGContextAddArcToPoint(ctx, a, b, x, y, w); break;
        case 6: CGContextAddRect(ctx, r); break;
        case 7: CGContextAddEllipseInRect(ctx, r); break;
        case 8: CGContextAddLines(ctx, fuzz_pick(4) ? pts : NULL, fuzz_pick(5)); break;
        case 9: CGContextAddPath(ctx, (CGPathRef)(fuzz_pick(2) ? (void *)path : any)); break;
        case 10: CGContextClosePath(ctx); break;
        case 11: CGContextDrawPath(ctx, (CGPathDrawingMode)fuzz_pick(7)); break;
        case 12: CGContextFillRect(ctx, r); break;
        case 13: CGContextStrokeRectWithWidth(ctx, r, a); break;
        case 14: CGContextClearRect(ctx, r); break;
        case 15: CGContextSetLineWidth(ctx, a); break;
        case 16: CGContextSetLineDash(ctx, a, fuzz_pick(4) ? dash : NULL, fuzz_pick(4)); break;
        case 17: CGContextSetLineCap(ctx, (CGLineCap)fuzz_pick(4)); CGContextSetLineJoin(ctx, (CGLineJoin)fuzz_pick(4)); break;
        case 18: CGContextSetMiterLimit(ctx, a); CGContextSetFlatness(ctx, b); break;
        case 19: CGContextTranslateCTM(ctx, a, b); break;
        case 20: CGContextScaleCTM(ctx, fuzz_pick(3) ? 1 + a / 100 : a, fuzz_pick(3) ? 1 + b / 100 : b); break;
        case 21: CGContextRotateCTM(ctx, a); break;
        case 22: CGContextConcatCTM(ctx, CGAffineTransformMake(a, b, x, y, w, h)); break;
        case 23: if (depth < 40) { CGContextSaveGState(ctx); depth += ctx == c; } break;
        case 24: CGContextRestoreGState(ctx); if (ctx == c && depth > 0) depth--; break;
        case 25: CGContextSetAlpha(ctx, a); CGContextSetBlendMode(ctx, (CGBlendMode)fuzz_pick(30)); break;
        case 26: CGContextSetShadowWithColor(ctx, CGSizeMake(a, b), x, fuzz_pick(2) ? color : any); break;
        case 27: CGContextSetShadow(ctx, CGSizeMake(a, b), fuzz_pick(2) ? x : 2); break;
        case 28: CGContextDrawLinearGradient(ctx, fuzz_pick(2) ? gradient : any, pts[0], pts[1], fuzz_pick(5)); break;
        case 29: CGContextDrawRadialGradient(ctx, fuzz_pick(2) ? gradient : any, pts[0], a, pts[1], b, fuzz_pick(5)); break;
        case 30: CGContextDrawImage(ctx, r, fuzz_pick(2) ? image : any); break;
        case 31: CGContextDrawTiledImage(ctx, r, fuzz_pick(2) ? image : any); break;
        case 32: CGContextClipToRect(ctx, r); break;
        case 33: CGContextClipToMask(ctx, r, fuzz_pick(2) ? image : any); break;
        case 34: if (fuzz_pick(2)) CGContextClip(ctx); else CGContextEOClip(ctx); break;
        case 35:
            if (layers < 8 && fuzz_pick(2)) { CGContextBeginTransparencyLayer(ctx, NULL); layers += ctx == c; }
            else { CGContextEndTransparencyLayer(ctx); if (ctx == c && layers > 0) layers--; }
            break;
        case 36: CGContextReplacePathWithStrokedPath(ctx); (void)CGContextPathContainsPoint(ctx, pts[0], fuzz_pick(6)); break;
        case 37: { CGPathRef copy = CGContextCopyPath(ctx); CGPathRelease(copy); (void)CGContextGetPathBoundingBox(ctx); break; }
        case 38: CGContextStrokeLineSegments(ctx, fuzz_pick(4) ? pts : NULL, fuzz_pick(5)); break;
        default: CGContextSetFillColorWithColor(ctx, fuzz_pick(2) ? color : any); CGContextSetRGBStrokeColor(ctx, a, b, x, y); break;
        }
        if (QZGetLastError() == QZErrorNone) accepted++;
        QZClearLastError();
        if (fuzz_pick(50) == 0) {       /* back to a known state now and then */
            while (layers > 0) { CGContextEndTransparencyLayer(c); layers--; }
            while (depth > 0) { CGContextRestoreGState(c); depth--; }
            CGContextBeginPath(c);
        }
    }
    while (layers > 0) { CGContextEndTransparencyLayer(c); layers--; }
    while (depth > 0) { CGContextRestoreGState(c); depth--; }
    QZClearLastError();
    /* Most calls got past the checks (and drew). */
    CHECK(accepted > steps / 4);
    printf("     %ld of %ld fuzzed calls accepted\n", accepted, steps);
    /* The context still draws: a known state, a known result. */
    CGContextSaveGState(c);
    CGContextSetBlendMode(c, kCGBlendModeCopy);
    CGContextSetAlpha(c, 1);
    CGContextSetShadowWithColor(c, CGSizeMake(0, 0), 0, NULL);
    CGContextSetRGBFillColor(c, 0, 1, 0, 1);
    CGContextFillRect(c, CGRectMake(0, 0, 64, 64));
    CGContextRestoreGState(c);
    CHECK_NO_ERROR();
    uint32_t p = px(pb, 32, 32);
    CHECK(p == 0xFF00FF00 || alpha(pb, 32, 32) == 0);    /* green, or clipped away by a fuzzed clip */
    /* A fresh context over the same pixels draws whatever the old one went through. */
    CGContextRef fresh = QZBitmapContextCreateWithPixelBuffer(pb);
    CGContextSetRGBFillColor(fresh, 0, 0, 1, 1);
    CGContextFillRect(fresh, CGRectMake(0, 0, 64, 64));
    CHECK(px(pb, 10, 10) == 0xFF0000FF);
    CGContextRelease(fresh);
    CGColorRelease(color);
    CGPathRelease(path);
    CGGradientRelease(gradient);
    CGColorSpaceRelease(rgb);
    CGImageRelease(image);
    CGDataProviderRelease(provider);
    CGContextRelease(c);
    CVPixelBufferRelease(pb);
}

int main(void) {
    RUN(test_horizontal_stroke_covers_its_rows);
    RUN(test_line_caps);
    RUN(test_dash_runs);
    RUN(test_fill_rules);
    RUN(test_miter_limit);
    RUN(test_ctm_and_state);
    RUN(test_path_queries);
    RUN(test_stroked_path);
    RUN(test_clipping);
    RUN(test_blend_modes);
    RUN(test_transparency_layer_and_shadow);
    RUN(test_gradients);
    RUN(test_bad_input);
    RUN(test_png_and_jpeg);
    RUN(test_damaged_images);
    RUN(test_image_create_layouts);
    RUN(test_draw_image);
    RUN(test_contents_types);
    RUN(test_render_in_context_honours_state);
    RUN(test_rgba_contexts);
    RUN(test_context_fuzz);
    return qz_summary();
}
