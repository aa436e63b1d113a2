/* Layer filters through the C ABI: compositingFilter, filters and
 * backgroundFilters. Defaults (NULL), bad input (unknown names, NaN, wrong
 * types: an error, the old value kept), pixels whose values are computed
 * here (multiply gives the product per channel, a Gaussian blur of a step
 * edge gives ~50% beside the edge, colour controls at saturation 0 give the
 * luminance grey, a backdrop blur stays inside its rounded card) and the
 * draw list's BEGIN_GROUP blend mode, BACKDROP kind and filters; key paths
 * into named filters ("filters.blur.inputRadius") set and animated. Valgrind
 * checks that the values and the offscreen surfaces are freed. */
#include "qz_test.h"

/* A filter dictionary {"name": name, key: x} (+1), releasing x; key NULL for none. */
static CAValueRef filter1(const char *name, const char *key, CAValueRef x) {
    const char *keys[2] = { "name", key };
    CAValueRef values[2] = { CAValueCreateString(name), x };
    CAValueRef d = CAValueCreateDictionary(keys, values, key ? 2 : 1);
    CARelease(values[0]);
    if (x) CARelease(x);
    return d;
}

/* A one-item array (+1), releasing the item. */
static CAValueRef list1(CAValueRef item) {
    CAValueRef a = CAValueCreateArray(&item, 1);
    CARelease(item);
    return a;
}

static CAValueRef number(double x) { return CAValueCreateNumber(x); }

static CALayerRef box(CALayerRef parent, double x, double y, double w, double h, double r, double g, double b) {
    CALayerRef l = CALayerCreate();
    CALayerSetFrame(l, CGRectMake(x, y, w, h));
    CGColorRef c = CGColorCreateSRGB(r, g, b, 1);
    CALayerSetBackgroundColor(l, c);
    CGColorRelease(c);
    if (parent) { CALayerAddSublayer(parent, l); CARelease(l); }
    return l;
}

static CVPixelBufferRef render_at(CALayerRef root, int w, int h, double t) {
    CVPixelBufferRef pb = NULL;
    CVPixelBufferCreate(NULL, w, h, kCVPixelFormatType_32BGRA, NULL, &pb);
    CARendererRef r = CARendererCreate(pb, NULL);
    CARendererSetLayer(r, root);
    CARendererBeginFrameAtTime(r, t, NULL);
    CARendererRender(r);
    CARendererEndFrame(r);
    CARelease(r);
    return pb;
}

static CVPixelBufferRef render(CALayerRef root, int w, int h) {
    CVPixelBufferRef pb = NULL;
    CVPixelBufferCreate(NULL, w, h, kCVPixelFormatType_32BGRA, NULL, &pb);
    CARendererRef r = CARendererCreate(pb, NULL);
    CARendererSetLayer(r, root);
    CARendererBeginFrameAtTime(r, 100, NULL);
    CARendererRender(r);
    CARendererEndFrame(r);
    CARelease(r);
    return pb;
}

/* Channel `c` (0 blue, 1 green, 2 red, 3 alpha) of pixel (x, y), 0...255. */
static int channel(CVPixelBufferRef pb, int x, int y, int c) {
    const unsigned char *base = CVPixelBufferGetBaseAddress(pb);
    return base[y * CVPixelBufferGetBytesPerRow(pb) + 4 * x + c];
}

static void defaults_and_bad_input(void) {
    CALayerRef l = CALayerCreate();
    CHECK(CALayerGetCompositingFilter(l) == NULL && CALayerGetFilters(l) == NULL && CALayerGetBackgroundFilters(l) == NULL);

    CAValueRef multiply = CAValueCreateString("multiplyBlendMode");
    CALayerSetCompositingFilter(l, multiply);                          CHECK_NO_ERROR();
    CHECK(CALayerGetCompositingFilter(l) == multiply);
    CAValueRef unknown = CAValueCreateString("multiply");
    CALayerSetCompositingFilter(l, unknown);                           CHECK_ERROR(QZErrorUnknownConstant);
    CHECK(CALayerGetCompositingFilter(l) == multiply);
    CAValueRef n = number(3);
    CALayerSetCompositingFilter(l, n);                                 CHECK_ERROR(QZErrorWrongType);
    CALayerSetFilters(l, n);                                           CHECK_ERROR(QZErrorWrongType);
    CALayerSetCompositingFilter(l, NULL);                              CHECK_NO_ERROR();
    CHECK(CALayerGetCompositingFilter(l) == NULL);

    CAValueRef blur = list1(filter1("CIGaussianBlur", "inputRadius", number(2)));
    CALayerSetFilters(l, blur);                                        CHECK_NO_ERROR();
    CAValueRef sepia = list1(filter1("CISepiaTone", NULL, NULL));
    CALayerSetFilters(l, sepia);
    CHECK(strstr(QZGetLastErrorMessage(), "CISepiaTone") != NULL);    CHECK_ERROR(QZErrorUnknownConstant);
    CAValueRef nan = list1(filter1("CIGaussianBlur", "inputRadius", number(NAN)));
    CALayerSetFilters(l, nan);                                         CHECK_ERROR(QZErrorNotFinite);
    CALayerSetBackgroundFilters(l, nan);                               CHECK_ERROR(QZErrorNotFinite);
    CAValueRef negative = list1(filter1("CIGaussianBlur", "inputRadius", number(-4)));
    CALayerSetFilters(l, negative);                                    CHECK_ERROR(QZErrorInvalidArgument);
    CAValueRef text = list1(filter1("CIColorControls", "inputSaturation", CAValueCreateString("grey")));
    CALayerSetFilters(l, text);                                        CHECK_ERROR(QZErrorWrongType);
    CHECK(CALayerGetFilters(l) == blur);
    CHECK(CALayerGetBackgroundFilters(l) == NULL);
    /* Key-value coding checks the same way. */
    CALayerSetValueForKey(l, "filters", sepia);                        CHECK_ERROR(QZErrorUnknownConstant);
    CHECK(CALayerGetFilters(l) == blur);
    /* NULL layer, wrong handle. */
    CALayerSetFilters(NULL, blur);                                     CHECK_ERROR(QZErrorNullArgument);
    CALayerSetCompositingFilter((CALayerRef)(void *)multiply, multiply); CHECK_ERROR(QZErrorWrongType);

    CARelease(multiply); CARelease(unknown); CARelease(n); CARelease(blur); CARelease(sepia);
    CARelease(nan); CARelease(negative); CARelease(text);
    CARelease(l);
}

static void pixels(void) {
    /* Multiply: (200, 100, 50) x (128, 230, 64) / 255 = (100.4, 90.2, 12.5). */
    CALayerRef root = box(NULL, 0, 0, 20, 20, 200 / 255.0, 100 / 255.0, 50 / 255.0);
    CALayerRef top = box(root, 5, 5, 10, 10, 128 / 255.0, 230 / 255.0, 64 / 255.0);
    CAValueRef mode = CAValueCreateString("multiplyBlendMode");
    CALayerSetCompositingFilter(top, mode);
    CARelease(mode);
    CVPixelBufferRef pb = render(root, 20, 20);
    CHECK(channel(pb, 10, 10, 2) == 100 && channel(pb, 10, 10, 1) == 90 && channel(pb, 10, 10, 0) == 13);
    CHECK(channel(pb, 2, 2, 2) == 200);
    CVPixelBufferRelease(pb);
    CARelease(root);

    /* A step from black to white at x = 50, blurred by sigma 4: 45% and 55%
     * of white in the two pixels beside it (the integrated Gaussian). */
    root = box(NULL, 0, 0, 100, 60, 0, 0, 0);
    CALayerRef g = CALayerCreate();
    CALayerSetFrame(g, CGRectMake(0, 0, 100, 60));
    box(g, 50, 0, 50, 60, 1, 1, 1);
    CAValueRef f = list1(filter1("CIGaussianBlur", "inputRadius", number(4)));
    CALayerSetFilters(g, f);
    CALayerAddSublayer(root, g);
    pb = render(root, 100, 60);
    CHECK_NEAR(channel(pb, 49, 30, 2), 0.4503 * 255, 3);
    CHECK_NEAR(channel(pb, 50, 30, 2), 0.5497 * 255, 3);
    CHECK(channel(pb, 10, 30, 2) == 0 && channel(pb, 80, 30, 2) >= 254);
    CVPixelBufferRelease(pb);

    /* Colour controls at saturation 0: red becomes 0.2126 grey. */
    CAValueRef grey = list1(filter1("CIColorControls", "inputSaturation", number(0)));
    CALayerRef red = box(root, 0, 0, 10, 10, 1, 0, 0);
    CALayerSetFilters(red, grey);
    pb = render(root, 100, 60);
    CHECK(channel(pb, 5, 5, 0) == 54 && channel(pb, 5, 5, 1) == 54 && channel(pb, 5, 5, 2) == 54);
    CVPixelBufferRelease(pb);

    /* Backdrop blur behind a rounded card across the step. */
    CALayerRef card = CALayerCreate();
    CALayerSetFrame(card, CGRectMake(20, 10, 60, 40));
    CALayerSetCornerRadius(card, 12);
    CALayerSetBackgroundFilters(card, f);
    CALayerAddSublayer(root, card);
    CALayerSetFilters(g, NULL);
    pb = render(root, 100, 60);
    CHECK_NEAR((channel(pb, 49, 30, 2) + channel(pb, 50, 30, 2)) / 2.0, 127.5, 3);
    CHECK(channel(pb, 49, 5, 2) == 0 && channel(pb, 50, 5, 2) == 255);   /* above the card: sharp */
    CHECK(channel(pb, 78, 11, 2) == 255);                                /* its cut corner: untouched */
    CVPixelBufferRelease(pb);

    /* The draw list: the group's blend mode, the backdrop and its filters. */
    mode = CAValueCreateString("screenBlendMode");
    CALayerSetCompositingFilter(red, mode);
    CARelease(mode);
    CVPixelBufferCreate(NULL, 100, 60, kCVPixelFormatType_32BGRA, NULL, &pb);
    CARendererRef r = CARendererCreate(pb, NULL);
    CARendererSetLayer(r, root);
    CARendererBeginFrameAtTime(r, 100, NULL);
    QZDrawListRef list = QZRendererCopyDrawList(r);
    CARendererEndFrame(r);
    int groups = 0, backdrops = 0;
    for (size_t i = 0; i < QZDrawListGetCount(list); i++) {
        QZDrawOperation op;
        CHECK(QZDrawListGetOperation(list, i, &op));
        if (op.kind == QZDrawOperationBeginGroup && op.blendMode == QZBlendModeScreen) {
            groups++;
            CAValueRef fs = QZDrawListCopyOperationFilters(list, i);
            CHECK(fs != NULL && CAValueGetCount(fs) == 1);
            CAValueRef d = CAValueGetArrayItem(fs, 0);
            CHECK(strcmp(CAValueGetString(CAValueGetDictionaryItem(d, "name")), "CIColorControls") == 0);
            CHECK(CAValueGetNumber(CAValueGetDictionaryItem(d, "inputSaturation")) == 0);
            CHECK(CAValueGetNumber(CAValueGetDictionaryItem(d, "inputContrast")) == 1);
            CARelease(fs);
        }
        if (op.kind == QZDrawOperationBackdrop) {
            backdrops++;
            CHECK(op.cornerRadius == 12);
            CAValueRef fs = QZDrawListCopyOperationFilters(list, i);
            CHECK(fs != NULL && CAValueGetNumber(CAValueGetDictionaryItem(CAValueGetArrayItem(fs, 0), "inputRadius")) == 4);
            CARelease(fs);
        }
    }
    CHECK(groups == 1 && backdrops == 1);
    CHECK(QZDrawListCopyOperationFilters(list, 1000) == NULL);        CHECK_ERROR(QZErrorOutOfRange);
    CHECK(QZDrawListCopyOperationFilters(NULL, 0) == NULL);           CHECK_ERROR(QZErrorNullArgument);
    CARelease(list);
    CARelease(r);
    CVPixelBufferRelease(pb);
    CARelease(f); CARelease(grey); CARelease(g); CARelease(card);
    CARelease(root);
}

/* MARK: - Key paths into named filters */

static double now_seconds = 10;
static double fake_clock(void *info) { (void)info; return now_seconds; }

/* {"name": name, "CIAttributeFilterName": "CIGaussianBlur", "inputRadius": r} in an array (+1). */
static CAValueRef named_blur(const char *name, double r) {
    const char *keys[3] = { "name", "CIAttributeFilterName", "inputRadius" };
    CAValueRef values[3] = { CAValueCreateString(name), CAValueCreateString("CIGaussianBlur"), number(r) };
    CAValueRef d = CAValueCreateDictionary(keys, values, 3);
    for (int i = 0; i < 3; i++) CARelease(values[i]);
    return list1(d);
}

/* "filters.blur.inputRadius" set, read and animated: the presentation
 * value and the frame follow the animation (the frame equals that of a
 * still layer with the interpolated radius). */
static void key_paths(void) {
    CALayerRef l = CALayerCreate();
    CAValueRef fs = named_blur("blur", 4);
    CALayerSetFilters(l, fs);                                          CHECK_NO_ERROR();
    CARelease(fs);
    CHECK(CALayerGetNumberForKeyPath(l, "filters.blur.inputRadius") == 4);
    CALayerSetNumberForKeyPath(l, "filters.blur.inputRadius", 9);      CHECK_NO_ERROR();
    CHECK(CALayerGetNumberForKeyPath(l, "filters.blur.inputRadius") == 9);
    CAValueRef v = CALayerCopyValueForKeyPath(l, "filters.blur.inputRadius");
    CHECK(v && CAValueGetType(v) == CAValueTypeNumber && CAValueGetNumber(v) == 9);
    CARelease(v);
    CALayerSetNumberForKeyPath(l, "filters.blur.inputRadius", -2);     CHECK_ERROR(QZErrorInvalidArgument);
    CALayerSetNumberForKeyPath(l, "filters.other.inputRadius", 2);     CHECK_ERROR(QZErrorInvalidArgument);
    CALayerSetNumberForKeyPath(l, "filters.blur.inputScale", 2);       CHECK_ERROR(QZErrorInvalidArgument);
    CALayerSetNumberForKeyPath(l, "filters.blur.inputRadius", NAN);    CHECK_ERROR(QZErrorNotFinite);
    CHECK(CALayerGetNumberForKeyPath(l, "filters.blur.inputRadius") == 9);
    CARelease(l);

    QZSetMediaTimeSource(fake_clock, NULL);
    now_seconds = 10;
    CALayerRef root = box(NULL, 0, 0, 40, 40, 1, 1, 1);
    CALayerRef a = box(root, 10, 10, 20, 20, 1, 0, 0);
    fs = named_blur("blur", 1);
    CALayerSetFilters(a, fs);
    CARelease(fs);
    CAAnimationRef anim = CABasicAnimationCreate("filters.blur.inputRadius");
    CAValueRef from = number(2), to = number(10);
    CABasicAnimationSetFromValue(anim, from);
    CABasicAnimationSetToValue(anim, to);
    CARelease(from); CARelease(to);
    CAAnimationSetDuration(anim, 4);
    CALayerAddAnimation(a, anim, "blur");                              CHECK_NO_ERROR();
    CARelease(anim);
    CATransactionFlush();
    now_seconds = 11;                                                  /* a quarter: 4 */
    CALayerRef p = CALayerCopyPresentationLayer(a);
    CHECK(p && fabs(CALayerGetNumberForKeyPath(p, "filters.blur.inputRadius") - 4) < 1e-9);
    if (p) CARelease(p);
    CHECK(CALayerGetNumberForKeyPath(a, "filters.blur.inputRadius") == 1);
    CVPixelBufferRef animated = render_at(root, 40, 40, 11);
    CALayerRef still_root = box(NULL, 0, 0, 40, 40, 1, 1, 1);
    CALayerRef still = box(still_root, 10, 10, 20, 20, 1, 0, 0);
    fs = named_blur("blur", 4);
    CALayerSetFilters(still, fs);
    CARelease(fs);
    CVPixelBufferRef expected = render(still_root, 40, 40);
    int differ = 0;
    for (int y = 0; y < 40; y++)
        for (int x = 0; x < 40; x++)
            for (int c = 0; c < 4; c++) differ += channel(animated, x, y, c) != channel(expected, x, y, c);
    CHECK(differ == 0);
    /* Beside the red square's left edge (x 10) a radius-4 blur gives about
     * half red over white: green ~128. */
    CHECK(channel(animated, 10, 20, 1) > 100 && channel(animated, 10, 20, 1) < 160);
    CVPixelBufferRelease(animated);
    CVPixelBufferRelease(expected);
    CARelease(still_root);
    CARelease(root);
    QZAnimationProcessEvents();
    QZSetMediaTimeSource(NULL, NULL);
    CHECK_NO_ERROR();
}

int main(void) {
    RUN(defaults_and_bad_input);
    RUN(pixels);
    RUN(key_paths);
    return qz_summary();
}
