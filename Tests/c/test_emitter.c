/* CAEmitterLayer and CAEmitterCell through the C ABI: Apple's defaults, bad
 * input (NaN and negative birth rates, wrong handle types, NULL arrays, a
 * cell inside itself, huge rates), a particle drawn where origin + v t puts
 * it, and the same pixels at a time whether reached in 1 frame or 100;
 * "emitterCells.<name>.<property>" key paths set and animated.
 * Valgrind checks that cells, their images and nested cells are freed. */
#include "qz_test.h"
#include <stdlib.h>

static void render_into(CARendererRef r, double t) {
    CARendererBeginFrameAtTime(r, t, NULL);
    CARendererRender(r);
    CARendererEndFrame(r);
}

static CVPixelBufferRef buffer(int w, int h) {
    CVPixelBufferRef pb = NULL;
    CVPixelBufferCreate(NULL, w, h, kCVPixelFormatType_32BGRA, NULL, &pb);
    return pb;
}

/* (r, g, b, a) bytes of pixel (x, y). */
static void rgba(CVPixelBufferRef pb, int x, int y, int out[4]) {
    const unsigned char *p = (const unsigned char *)CVPixelBufferGetBaseAddress(pb) + y * CVPixelBufferGetBytesPerRow(pb) + 4 * x;
    out[0] = p[2]; out[1] = p[1]; out[2] = p[0]; out[3] = p[3];
}

/* An opaque white w x h image (+1). */
static CGImageRef white_image(int w, int h) {
    /* (Static: the provider may keep pointing at the bytes.) */
    static unsigned char bytes[16 * 16 * 4];
    memset(bytes, 255, sizeof bytes);
    CGDataProviderRef provider = CGDataProviderCreateWithData(NULL, bytes, (size_t)w * h * 4, NULL);
    CGImageRef image = CGImageCreate(w, h, 8, 32, w * 4, NULL, kCGImageAlphaNoneSkipLast, provider, NULL, true,
                                     kCGRenderingIntentDefault);
    CGDataProviderRelease(provider);
    return image;
}

/* A w x h root holding an emitter layer that fills it with `cell`. */
static CALayerRef scene(int w, int h, CAEmitterCellRef cell, CALayerRef *emitter) {
    CALayerRef root = CALayerCreate();
    CALayerSetFrame(root, CGRectMake(0, 0, w, h));
    *emitter = CAEmitterLayerCreate();
    CALayerSetFrame(*emitter, CGRectMake(0, 0, w, h));
    CAEmitterLayerSetEmitterCells(*emitter, &cell, 1);
    CALayerAddSublayer(root, *emitter);
    CARelease(*emitter);
    return root;
}

static void defaults_and_bad_input(void) {
    CALayerRef e = CAEmitterLayerCreate();
    CHECK(strcmp(CALayerClassGetName(CALayerGetClass(e)), "CAEmitterLayer") == 0);
    CHECK(CAEmitterLayerGetBirthRate(e) == 1 && CAEmitterLayerGetLifetime(e) == 1);
    CHECK(CAEmitterLayerGetVelocity(e) == 1 && CAEmitterLayerGetScale(e) == 1 && CAEmitterLayerGetSpin(e) == 1);
    CHECK(strcmp(CAEmitterLayerGetEmitterShape(e), kCAEmitterLayerPoint) == 0);
    CHECK(strcmp(CAEmitterLayerGetEmitterMode(e), kCAEmitterLayerVolume) == 0);
    CHECK(strcmp(CAEmitterLayerGetRenderMode(e), kCAEmitterLayerUnordered) == 0);
    CHECK(CAEmitterLayerGetSeed(e) == 0 && !CAEmitterLayerGetPreservesDepth(e));
    CHECK(CAEmitterLayerGetEmitterCellCount(e) == 0);
    CAEmitterCellRef c = CAEmitterCellCreate();
    CHECK(CAEmitterCellGetEnabled(c) && CAEmitterCellGetBirthRate(c) == 0 && CAEmitterCellGetLifetime(c) == 0);
    CHECK(CAEmitterCellGetScale(c) == 1 && CAEmitterCellGetContents(c) == NULL);
    const CGFloat *white = CGColorGetComponents(CAEmitterCellGetColor(c));
    CHECK(white && white[0] == 1 && white[1] == 1 && white[2] == 1 && white[3] == 1);

    CAEmitterCellSetBirthRate(c, 4);
    CAEmitterCellSetBirthRate(c, NAN);             CHECK_ERROR(QZErrorNotFinite);
    CAEmitterCellSetBirthRate(c, -1);              CHECK_ERROR(QZErrorOutOfRange);
    CHECK(CAEmitterCellGetBirthRate(c) == 4);
    CAEmitterLayerSetBirthRate(e, NAN);            CHECK_ERROR(QZErrorNotFinite);
    CAEmitterLayerSetEmitterShape(e, "triangle");  CHECK(QZGetLastError() != QZErrorNone);
    CHECK(strcmp(CAEmitterLayerGetEmitterShape(e), "point") == 0);
    CAEmitterCellSetVelocity((CAEmitterCellRef)e, 1); CHECK_ERROR(QZErrorWrongType);
    CALayerSetOpacity((CALayerRef)c, 1);           CHECK_ERROR(QZErrorWrongType);
    CAEmitterCellSetVelocity(NULL, 1);             CHECK_ERROR(QZErrorNullArgument);
    CAEmitterLayerSetEmitterCells(e, NULL, 2);     CHECK_ERROR(QZErrorNullArgument);
    CHECK(CAEmitterLayerGetEmitterCellAtIndex(e, 0) == NULL); CHECK_ERROR(QZErrorOutOfRange);
    CAEmitterCellSetEmitterCells(c, &c, 1);        CHECK_ERROR(QZErrorInvalidArgument);
    CALayerRef plain = CALayerCreate();
    CAEmitterLayerSetEmitterCells(plain, &c, 1);   CHECK_ERROR(QZErrorWrongType);
    CARelease(plain);
    /* Nested cells are retained and reachable by index. */
    CAEmitterCellRef child = CAEmitterCellCreate();
    CAEmitterCellSetEmitterCells(c, &child, 1);    CHECK_NO_ERROR();
    CHECK(CAEmitterCellGetEmitterCellCount(c) == 1 && CAEmitterCellGetEmitterCellAtIndex(c, 0) == child);
    CARelease(child);
    CARelease(c);
    CARelease(e);
}

static void particle_position_and_determinism(void) {
    /* One particle a second living 0.5 s at 40 pt/s along x, tinted red:
     * at t = 3.25 particle 3 is 0.25 s old, at x = 20 + 40 x 0.25 = 30. */
    CAEmitterCellRef c = CAEmitterCellCreate();
    CGImageRef image = white_image(4, 4);
    CAEmitterCellSetContents(c, image);
    CGImageRelease(image);
    CAEmitterCellSetBirthRate(c, 1); CAEmitterCellSetLifetime(c, 0.5); CAEmitterCellSetVelocity(c, 40);
    CGColorRef red = CGColorCreateSRGB(1, 0, 0, 1);
    CAEmitterCellSetColor(c, red);
    CGColorRelease(red);
    CALayerRef e;
    CALayerRef root = scene(100, 60, c, &e);
    CAEmitterLayerSetEmitterPosition(e, CGPointMake(20, 30));
    CVPixelBufferRef pb = buffer(100, 60);
    CARendererRef r = CARendererCreate(pb, NULL);
    CARendererSetLayer(r, root);
    render_into(r, 3.25);
    int p[4];
    double x = 20 + 40 * (3.25 - 3);
    rgba(pb, (int)x, 30, p);
    CHECK(p[0] == 255 && p[1] == 0 && p[2] == 0 && p[3] == 255);
    rgba(pb, 20, 30, p);   CHECK(p[3] == 0);
    /* The draw list: one image operation, its colour the particle's, added in additive mode. */
    CAEmitterLayerSetRenderMode(e, kCAEmitterLayerAdditive);
    CARendererBeginFrameAtTime(r, 3.25, NULL);
    QZDrawListRef list = QZRendererCopyDrawList(r);
    CARendererRender(r);
    CARendererEndFrame(r);
    CHECK(QZDrawListGetCount(list) == 1);
    QZDrawOperation op;
    CHECK(QZDrawListGetOperation(list, 0, &op) && op.kind == QZDrawOperationImage);
    CHECK(op.blendMode == QZBlendModeAdditive);
    CHECK(op.color[0] == 1 && op.color[1] == 0 && op.color[2] == 0 && op.color[3] == 1);
    CHECK_NEAR(op.rect.size.width, 4, 0);
    CHECK_NEAR(op.transform.m41, x, 1e-9);     /* the particle's centre -> pixel (30, 30) */
    CHECK_NEAR(op.transform.m42, 30, 1e-9);
    CARelease(list);
    CAEmitterLayerSetRenderMode(e, kCAEmitterLayerUnordered);
    CARelease(r);
    CVPixelBufferRelease(pb);

    /* Many random particles: the frame at 2.5 s drawn at once and after 99 earlier frames. */
    CAEmitterCellSetBirthRate(c, 60); CAEmitterCellSetLifetime(c, 1.5); CAEmitterCellSetLifetimeRange(c, 0.5);
    CAEmitterCellSetVelocity(c, 30); CAEmitterCellSetVelocityRange(c, 20); CAEmitterCellSetEmissionRange(c, 6.283);
    CAEmitterCellSetSpin(c, 2); CAEmitterCellSetSpinRange(c, 1); CAEmitterCellSetRedRange(c, 0.5);
    CAEmitterLayerSetSeed(e, 5);
    CAEmitterLayerSetEmitterShape(e, kCAEmitterLayerCircle);
    CAEmitterLayerSetEmitterSize(e, CGSizeMake(30, 30));
    CVPixelBufferRef once = buffer(100, 60), many = buffer(100, 60);
    CARendererRef r1 = CARendererCreate(once, NULL), r100 = CARendererCreate(many, NULL);
    CARendererSetLayer(r1, root); CARendererSetLayer(r100, root);
    render_into(r1, 2.5);
    for (int k = 1; k <= 100; k++) render_into(r100, 2.5 * k / 100);
    size_t n = CVPixelBufferGetBytesPerRow(once) * 60;
    CHECK(memcmp(CVPixelBufferGetBaseAddress(once), CVPixelBufferGetBaseAddress(many), n) == 0);
    int inked = 0;
    const unsigned char *bytes = CVPixelBufferGetBaseAddress(once);
    for (size_t i = 3; i < n; i += 4) inked += bytes[i] > 0;
    CHECK(inked > 100);
    CARelease(r1); CARelease(r100);
    CVPixelBufferRelease(once); CVPixelBufferRelease(many);

    /* Huge rates: bounded particles; the frame finishes. */
    CAEmitterCellSetBirthRate(c, 1e30f); CAEmitterCellSetLifetime(c, 1e30f);
    CVPixelBufferRef big = buffer(20, 20);
    CARendererRef rb = CARendererCreate(big, NULL);
    CARendererSetLayer(rb, root);
    render_into(rb, 1e6);
    CHECK_NO_ERROR();
    CARelease(rb);
    CVPixelBufferRelease(big);
    CARelease(root);
    CARelease(c);
}

/* MARK: - Key paths into named cells */

static double now_seconds = 1000;
static double fake_clock(void *info) { (void)info; return now_seconds; }

/* A red 1-a-second, 0.5 s cell named "dot" at `velocity`, in a scene
 * emitting from (20, 30); the emitter in *emitter. */
static CALayerRef dot_scene(double velocity, CALayerRef *emitter) {
    CAEmitterCellRef c = CAEmitterCellCreate();
    CAEmitterCellSetName(c, "dot");
    CAEmitterCellSetBirthRate(c, 1);
    CAEmitterCellSetLifetime(c, 0.5);
    CAEmitterCellSetVelocity(c, velocity);
    CGColorRef red = CGColorCreateSRGB(1, 0, 0, 1);
    CAEmitterCellSetColor(c, red);
    CGColorRelease(red);
    CGImageRef image = white_image(4, 4);
    CAEmitterCellSetContents(c, image);
    CGImageRelease(image);
    CALayerRef root = scene(100, 60, c, emitter);
    CAEmitterLayerSetEmitterPosition(*emitter, CGPointMake(20, 30));
    CARelease(c);
    return root;
}

static CVPixelBufferRef frame_at(CALayerRef root, double t) {
    CVPixelBufferRef pb = buffer(100, 60);
    CARendererRef r = CARendererCreate(pb, NULL);
    CARendererSetLayer(r, root);
    render_into(r, t);
    CARelease(r);
    return pb;
}

/* "emitterCells.dot.velocity" read, set (the cell changes), refused when
 * bad, and animated: the presentation value and the frame follow. */
static void cell_key_paths(void) {
    QZSetMediaTimeSource(fake_clock, NULL);
    now_seconds = 1000;
    CALayerRef e;
    CALayerRef root = dot_scene(40, &e);
    CAEmitterCellRef dot = CAEmitterLayerGetEmitterCellAtIndex(e, 0);
    CHECK(CALayerGetNumberForKeyPath(e, "emitterCells.dot.velocity") == 40);
    CALayerSetNumberForKeyPath(e, "emitterCells.dot.lifetime", 0.75);     CHECK_NO_ERROR();
    CHECK(CAEmitterCellGetLifetime(dot) == 0.75f);
    CALayerSetNumberForKeyPath(e, "emitterCells.dot.lifetime", -1);       CHECK_ERROR(QZErrorOutOfRange);
    CALayerSetNumberForKeyPath(e, "emitterCells.dot.lifetime", NAN);      CHECK_ERROR(QZErrorNotFinite);
    CALayerSetNumberForKeyPath(e, "emitterCells.other.lifetime", 1);      CHECK_ERROR(QZErrorInvalidArgument);
    CALayerSetNumberForKeyPath(e, "emitterCells.dot.contents", 1);        CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(CAEmitterCellGetLifetime(dot) == 0.75f);
    CALayerSetNumberForKeyPath(e, "emitterCells.dot.lifetime", 0.5);      CHECK_NO_ERROR();
    CATransactionFlush();

    CAAnimationRef anim = CABasicAnimationCreate("emitterCells.dot.velocity");
    CAValueRef from = CAValueCreateNumber(40), to = CAValueCreateNumber(80);
    CABasicAnimationSetFromValue(anim, from);
    CABasicAnimationSetToValue(anim, to);
    CARelease(from); CARelease(to);
    CAAnimationSetDuration(anim, 4);
    CALayerAddAnimation(e, anim, "velocity");                             CHECK_NO_ERROR();
    CARelease(anim);
    CATransactionFlush();
    now_seconds = 1001;                                                   /* a quarter: 50 */
    CALayerRef p = CALayerCopyPresentationLayer(e);
    CHECK(p && fabs(CALayerGetNumberForKeyPath(p, "emitterCells.dot.velocity") - 50) < 1e-9);
    if (p) CARelease(p);
    CHECK(CAEmitterCellGetVelocity(dot) == 40);
    /* At 1001.25 (velocity 52.5) particle 1001 is 0.25 s old: x = 33.125. */
    CVPixelBufferRef animated = frame_at(root, 1001.25);
    CALayerRef still_e;
    CALayerRef still = dot_scene(52.5, &still_e);
    CVPixelBufferRef expected = frame_at(still, 1001.25);
    int differ = 0, px[4], qx[4];
    for (int y = 0; y < 60; y++)
        for (int x = 0; x < 100; x++) {
            rgba(animated, x, y, px);
            rgba(expected, x, y, qx);
            differ += memcmp(px, qx, sizeof px) != 0;
        }
    CHECK(differ == 0);
    rgba(animated, 34, 30, px);
    CHECK(px[3] == 255 && px[0] == 255);
    CVPixelBufferRelease(animated);
    CVPixelBufferRelease(expected);
    CARelease(still);
    CARelease(root);
    QZAnimationProcessEvents();
    QZSetMediaTimeSource(NULL, NULL);
    CHECK_NO_ERROR();
}

int main(void) {
    RUN(defaults_and_bad_input);
    RUN(particle_position_and_determinism);
    RUN(cell_key_paths);
    return qz_summary();
}
