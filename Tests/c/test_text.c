/* Text through the C ABI: CATextLayer drawn at commit, Core Text lines and
 * frames drawn into bitmap contexts, attributed strings with UTF-16 ranges,
 * an advance checked against FreeType reading the font file itself, the
 * text statistics of a frame where labels only move, and bad input (NULL,
 * wrong handles, invalid UTF-8, ranges out of bounds, odd sizes). The fonts
 * are pinned by Tests/fonts/fonts.conf (QZ_TEST_FONTS_CONF). */
#include <stdlib.h>
#include <ft2build.h>
#include FT_FREETYPE_H
#include FT_ADVANCES_H
#include "qz_test.h"

#ifndef QZ_TEST_FONTS_CONF
#error "QZ_TEST_FONTS_CONF must name Tests/fonts/fonts.conf"
#endif

static uint32_t px(CVPixelBufferRef pb, int x, int y) {
    const uint8_t *base = CVPixelBufferGetBaseAddress(pb);
    const uint8_t *p = base + (size_t)y * CVPixelBufferGetBytesPerRow(pb) + 4 * (size_t)x;
    return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/* The right-most and left-most columns with ink (alpha > 40); -1 if none. */
static void ink_columns(CVPixelBufferRef pb, int *left, int *right) {
    int w = (int)CVPixelBufferGetWidth(pb), h = (int)CVPixelBufferGetHeight(pb);
    *left = -1; *right = -1;
    for (int x = 0; x < w; x++)
        for (int y = 0; y < h; y++)
            if ((px(pb, x, y) >> 24) > 40) {
                if (*left < 0) *left = x;
                *right = x;
                break;
            }
}

static CAValueRef str(const char *s) { return CAValueCreateString(s); }

static CALayerRef label(const char *text, double w, double h, double size) {
    CALayerRef l = CATextLayerCreate();
    CALayerSetBounds(l, CGRectMake(0, 0, w, h));
    CAValueRef v = str(text);
    CATextLayerSetString(l, v);
    CARelease(v);
    CAValueRef f = str("Helvetica");
    CATextLayerSetFont(l, f);
    CARelease(f);
    CATextLayerSetFontSize(l, size);
    CGColorRef black = CGColorCreateSRGB(0, 0, 0, 1);
    CATextLayerSetForegroundColor(l, black);
    CGColorRelease(black);
    return l;
}

static void test_text_layer_draws_at_commit(void) {
    CALayerRef l = label("Hello", 200, 40, 24);
    CHECK(CALayerNeedsDisplay(l));
    CATransactionFlush();
    CVPixelBufferRef store = (CVPixelBufferRef)CALayerGetContents(l);
    CHECK(store != NULL && CVPixelBufferGetWidth(store) == 200);
    int left, right;
    ink_columns(store, &left, &right);
    CHECK(left >= 0 && left <= 3 && right > 40);
    /* Right alignment: the ink ends within 2 px of the right edge. */
    CATextLayerSetAlignmentMode(l, kCAAlignmentRight);
    CATransactionFlush();
    store = (CVPixelBufferRef)CALayerGetContents(l);
    ink_columns(store, &left, &right);
    CHECK(right >= 197 && left > 100);
    CHECK(strcmp(CATextLayerGetAlignmentMode(l), "right") == 0);
    CARelease(l);
    CHECK_NO_ERROR();
}

/* "Hello" in Helvetica 36: FreeType's advances and kerning of the face the
 * library resolved (read from its file here) within 1 pt of CTLine's width. */
static void test_advance_matches_freetype(void) {
    CTFontRef font = CTFontCreateWithName("Helvetica", 36, NULL);
    CAValueRef url = CTFontCopyAttribute(font, kCTFontURLAttribute);
    CHECK(url != NULL);
    if (!url) { CARelease(font); return; }
    const char *path = CAValueGetString(url) + strlen("file://");
    FT_Library ft;
    FT_Face face;
    CHECK(FT_Init_FreeType(&ft) == 0);
    CHECK(FT_New_Face(ft, path, 0, &face) == 0);
    double units = 0;
    FT_UInt previous = 0;
    for (const char *c = "Hello"; *c; c++) {
        FT_UInt g = FT_Get_Char_Index(face, (FT_ULong)*c);
        FT_Fixed advance = 0;
        FT_Get_Advance(face, g, FT_LOAD_NO_SCALE, &advance);
        units += (double)advance;
        if (previous) {
            FT_Vector k;
            FT_Get_Kerning(face, previous, g, FT_KERNING_UNSCALED, &k);
            units += (double)k.x;
        }
        previous = g;
    }
    double expected = units / face->units_per_EM * 36;
    FT_Done_Face(face);
    FT_Done_FreeType(ft);
    CAValueRef familyName = CTFontCopyFamilyName(font);
    CHECK(strcmp(CAValueGetString(familyName), "Liberation Sans") == 0);
    CARelease(familyName);

    CFMutableAttributedStringRef s = CFAttributedStringCreateMutable(NULL, 0);
    CFAttributedStringReplaceString(s, CFRangeMake(0, 0), "Hello");
    CFAttributedStringSetAttribute(s, CFRangeMake(0, 5), kCTFontAttributeName, font);
    CTLineRef line = CTLineCreateWithAttributedString(s);
    double ascent = 0, descent = 0, leading = 0;
    double width = CTLineGetTypographicBounds(line, &ascent, &descent, &leading);
    CHECK_NEAR(width, expected, 1.0);
    CHECK_NEAR(ascent, CTFontGetAscent(font), 1e-9);
    CHECK_NEAR(descent, CTFontGetDescent(font), 1e-9);
    CARelease(line);
    CARelease(s);
    CARelease(url);
    CARelease(font);
    CHECK_NO_ERROR();
}

/* CTLineDraw into a y-down context flipped the iOS way: upright text whose
 * ink sits where CTLineGetImageBounds says. */
static void test_line_draw_in_flipped_context(void) {
    CVPixelBufferRef pb = NULL;
    CVPixelBufferCreate(NULL, 120, 60, kCVPixelFormatType_32BGRA, NULL, &pb);
    CGContextRef ctx = QZBitmapContextCreateWithPixelBuffer(pb);
    CGContextTranslateCTM(ctx, 0, 60);
    CGContextScaleCTM(ctx, 1, -1);
    CGContextSetTextPosition(ctx, 10, 20);
    CTFontRef font = CTFontCreateWithName("Times", 24, NULL);
    CGColorRef red = CGColorCreateSRGB(1, 0, 0, 1);
    const char *keys[] = { kCTFontAttributeName, kCTForegroundColorAttributeName };
    CAValueRef values[] = { CAValueCreateWithObject(font), CAValueCreateColor(red) };
    CAValueRef attributes = CAValueCreateDictionary(keys, values, 2);
    CFAttributedStringRef s = CFAttributedStringCreate(NULL, "Type", attributes);
    CTLineRef line = CTLineCreateWithAttributedString(s);
    CGRect ink = CTLineGetImageBounds(line, ctx);
    CTLineDraw(line, ctx);
    CHECK_NO_ERROR();
    int left, right;
    ink_columns(pb, &left, &right);
    CHECK(fabs(left - ink.origin.x) <= 1.5 && fabs(right + 1 - (ink.origin.x + ink.size.width)) <= 1.5);
    /* Red, upright: the "T" bar is in the top rows of ink, at the left. */
    uint32_t best = 0;
    int top = 60 - (int)ceil(ink.origin.y + ink.size.height);
    for (int y = top; y < top + 4; y++)
        for (int x = left; x < left + 8; x++)
            if (y >= 0 && (px(pb, x, y) >> 24) > (best >> 24)) best = px(pb, x, y);
    CHECK((best >> 24) > 200 && ((best >> 16) & 0xFF) > 200 && (best & 0xFF) < 40);
    CHECK(CGContextGetTextPosition(ctx).x > 10 + ink.size.width - 1);
    CARelease(line); CARelease(s); CARelease(attributes);
    CARelease(values[0]); CARelease(values[1]); CGColorRelease(red); CARelease(font);
    CGContextRelease(ctx);
    CVPixelBufferRelease(pb);
}

static void test_framesetter(void) {
    CFMutableAttributedStringRef s = CFAttributedStringCreateMutable(NULL, 0);
    CFAttributedStringReplaceString(s, CFRangeMake(0, 0), "A paragraph wrapped by the framesetter into a narrow frame.");
    CTFontRef font = CTFontCreateWithName("Helvetica", 16, NULL);
    CFAttributedStringSetAttribute(s, CFRangeMake(0, CFAttributedStringGetLength(s)), kCTFontAttributeName, font);
    CTFramesetterRef setter = CTFramesetterCreateWithAttributedString(s);
    CFRange fit = CFRangeMake(-1, -1);
    CGSize size = CTFramesetterSuggestFrameSizeWithConstraints(setter, CFRangeMake(0, 0), NULL, CGSizeMake(100, 1e9), &fit);
    double lineHeight = CTFontGetAscent(font) + CTFontGetDescent(font) + CTFontGetLeading(font);
    CHECK(size.width <= 100 && size.width > 50);
    double lines = size.height / lineHeight;
    CHECK(fabs(lines - floor(lines + 0.5)) < 1e-6 && lines >= 3);
    CHECK(fit.location == 0 && fit.length == CFAttributedStringGetLength(s));
    CGMutablePathRef path = CGPathCreateMutable();
    CGPathAddRect(path, NULL, CGRectMake(0, 0, 100, lineHeight * 2));
    CTFrameRef frame = CTFramesetterCreateFrame(setter, CFRangeMake(0, 0), path, NULL);
    CHECK(QZFrameGetLineCount(frame) == 2);
    CHECK(CTFrameGetVisibleStringRange(frame).length < CFAttributedStringGetLength(s));
    CVPixelBufferRef pb = NULL;
    CVPixelBufferCreate(NULL, 100, 60, kCVPixelFormatType_32BGRA, NULL, &pb);
    CGContextRef ctx = QZBitmapContextCreateWithPixelBuffer(pb);
    CTFrameDraw(frame, ctx);
    int left, right;
    ink_columns(pb, &left, &right);
    CHECK(left >= 0);
    CHECK_NO_ERROR();
    CGContextRelease(ctx); CVPixelBufferRelease(pb);
    CARelease(frame); CGPathRelease(path); CARelease(setter); CARelease(font); CARelease(s);
}

/* Moving, fading and turning labels lays nothing out and draws nothing. */
static void test_moving_labels_cost_no_text_work(void) {
    CALayerRef root = CALayerCreate();
    CALayerSetBounds(root, CGRectMake(0, 0, 300, 200));
    CALayerRef labels[50];
    for (int i = 0; i < 50; i++) {
        char text[32];
        snprintf(text, sizeof text, "Label %d", i);
        labels[i] = label(text, 60, 20, 12);
        CALayerAddSublayer(root, labels[i]);
    }
    CATransactionFlush();
    QZTextResetStatistics();
    for (int i = 0; i < 50; i++) {
        CALayerSetPosition(labels[i], CGPointMake(i * 5, i * 3));
        CALayerSetOpacity(labels[i], 0.5f);
    }
    CATransactionFlush();
    QZTextStatistics s = QZTextGetStatistics();
    CHECK(s.layouts == 0 && s.draws == 0);
    /* A changed label is laid out and drawn once. */
    CAValueRef v = str("Changed");
    CATextLayerSetString(labels[7], v);
    CARelease(v);
    CATransactionFlush();
    s = QZTextGetStatistics();
    CHECK(s.layouts == 1 && s.draws == 1);
    for (int i = 0; i < 50; i++) CARelease(labels[i]);
    CARelease(root);
}

static void test_bad_input(void) {
    CHECK(CTFontCreateWithName("Helvetica", NAN, NULL) == NULL);
    CHECK_ERROR(QZErrorNotFinite);
    CHECK(CTFontCreateWithName("Helvetica", -1, NULL) == NULL);
    CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(CTFontGetSize(NULL) == 0);
    CHECK_ERROR(QZErrorNullArgument);
    CALayerRef layer = CALayerCreate();
    CHECK(CTFontGetAscent((CTFontRef)(void *)layer) == 0);
    CHECK_ERROR(QZErrorWrongType);
    CTLineDraw((CTLineRef)(void *)layer, NULL);
    CHECK_ERROR(QZErrorWrongType);
    CHECK(CTLineCreateWithAttributedString(NULL) == NULL);
    CHECK_ERROR(QZErrorNullArgument);
    CHECK(CFAttributedStringCreate(NULL, NULL, NULL) == NULL);
    CHECK_ERROR(QZErrorNullArgument);
    /* A string value on a plain layer's text property is the wrong class. */
    CAValueRef v = str("x");
    CATextLayerSetString(layer, v);
    CHECK_ERROR(QZErrorWrongType);
    CARelease(v);
    CARelease(layer);

    /* Invalid UTF-8: U+FFFD, one UTF-16 unit each. */
    CFAttributedStringRef bad = CFAttributedStringCreate(NULL, "a\xff\xfe" "b", NULL);
    CHECK(CFAttributedStringGetLength(bad) == 4);
    CHECK(strcmp(CFAttributedStringGetString(bad), "a\xef\xbf\xbd\xef\xbf\xbd" "b") == 0);
    CTLineRef line = CTLineCreateWithAttributedString(bad);
    CHECK(CTLineGetTypographicBounds(line, NULL, NULL, NULL) > 0);
    CARelease(line);
    CARelease(bad);

    /* Ranges outside the string: an error, nothing changes. */
    CFMutableAttributedStringRef s = CFAttributedStringCreateMutable(NULL, 0);
    CFAttributedStringReplaceString(s, CFRangeMake(0, 0), "abc");
    CGColorRef red = CGColorCreateSRGB(1, 0, 0, 1);
    CFAttributedStringSetAttribute(s, CFRangeMake(2, 2), kCTForegroundColorAttributeName, red);
    CHECK_ERROR(QZErrorOutOfRange);
    CFAttributedStringSetAttribute(s, CFRangeMake(-1, 1), kCTForegroundColorAttributeName, red);
    CHECK_ERROR(QZErrorOutOfRange);
    CFAttributedStringReplaceString(s, CFRangeMake(1, 9), "zz");
    CHECK_ERROR(QZErrorOutOfRange);
    CHECK(strcmp(CFAttributedStringGetString(s), "abc") == 0);
    CHECK(CFAttributedStringGetAttribute(s, 2, kCTForegroundColorAttributeName, NULL) == NULL);
    CHECK_NO_ERROR();
    CHECK(CFAttributedStringGetAttribute(s, 3, kCTForegroundColorAttributeName, NULL) == NULL);
    CHECK_ERROR(QZErrorOutOfRange);
    CFAttributedStringSetAttribute(s, CFRangeMake(0, 1), kCTFontAttributeName, red);   /* not a font */
    CHECK_ERROR(QZErrorWrongType);
    CGColorRelease(red);
    CARelease(s);

    /* Odd font sizes on a text layer: no crash; NaN is refused. */
    CALayerRef l = label("Odd sizes", 100, 30, 0);
    CATransactionFlush();
    CATextLayerSetFontSize(l, -5);
    CATransactionFlush();
    CATextLayerSetFontSize(l, NAN);
    CHECK_ERROR(QZErrorNotFinite);
    CHECK(CATextLayerGetFontSize(l) == -5);
    CATextLayerSetFontSize(l, 1e300);
    CATransactionFlush();
    CHECK_NO_ERROR();
    CARelease(l);
    CHECK(!QZTextSetFontConfigurationFile("/nonexistent/fonts.conf"));
    CHECK_ERROR(QZErrorInvalidArgument);
}

int main(void) {
    if (!QZTextSetFontConfigurationFile(QZ_TEST_FONTS_CONF)) {
        fprintf(stderr, "cannot load %s\n", QZ_TEST_FONTS_CONF);
        return 1;
    }
    RUN(test_text_layer_draws_at_commit);
    RUN(test_advance_matches_freetype);
    RUN(test_line_draw_in_flipped_context);
    RUN(test_framesetter);
    RUN(test_moving_labels_cost_no_text_work);
    RUN(test_bad_input);
    return qz_summary();
}
