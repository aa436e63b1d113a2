/* CAReplicatorLayer through the C ABI: Apple's defaults, bad input (a
 * negative count, NaN, a layer of another class), and pixels: five
 * instances moved by the accumulated transform, the colour offsets, and an
 * instance delay that puts each instance later into its sublayer's fade.
 * Valgrind checks that the delayed instances' copies are freed. */
#include "qz_test.h"
#include <stdlib.h>

static CVPixelBufferRef render(CALayerRef root, int w, int h, double t) {
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

/* (r, g, b, a) bytes of pixel (x, y). */
static void rgba(CVPixelBufferRef pb, int x, int y, int out[4]) {
    const unsigned char *p = (const unsigned char *)CVPixelBufferGetBaseAddress(pb) + y * CVPixelBufferGetBytesPerRow(pb) + 4 * x;
    out[0] = p[2]; out[1] = p[1]; out[2] = p[0]; out[3] = p[3];
}

/* A root of w x h holding a replicator that fills it and one white w0 x 20 sublayer at the origin. */
static CALayerRef scene(int w, int h, int w0, CALayerRef *replicator, CALayerRef *sub) {
    CALayerRef root = CALayerCreate();
    CALayerSetFrame(root, CGRectMake(0, 0, w, h));
    *replicator = CAReplicatorLayerCreate();
    CALayerSetFrame(*replicator, CGRectMake(0, 0, w, h));
    *sub = CALayerCreate();
    CALayerSetFrame(*sub, CGRectMake(0, 0, w0, 20));
    CGColorRef white = CGColorCreateSRGB(1, 1, 1, 1);
    CALayerSetBackgroundColor(*sub, white);
    CGColorRelease(white);
    CALayerAddSublayer(*replicator, *sub);
    CALayerAddSublayer(root, *replicator);
    return root;
}

static void defaults_and_bad_input(void) {
    CALayerRef r = CAReplicatorLayerCreate();
    CHECK(strcmp(CALayerClassGetName(CALayerGetClass(r)), "CAReplicatorLayer") == 0);
    CHECK(CAReplicatorLayerGetInstanceCount(r) == 1 && CAReplicatorLayerGetInstanceDelay(r) == 0);
    CHECK(qz_transform_near(CAReplicatorLayerGetInstanceTransform(r), CATransform3DIdentity, 0));
    const CGFloat *white = CGColorGetComponents(CAReplicatorLayerGetInstanceColor(r));
    CHECK(white && white[0] == 1 && white[1] == 1 && white[2] == 1 && white[3] == 1);
    CHECK(CAReplicatorLayerGetInstanceRedOffset(r) == 0 && CAReplicatorLayerGetInstanceGreenOffset(r) == 0);
    CHECK(CAReplicatorLayerGetInstanceBlueOffset(r) == 0 && CAReplicatorLayerGetInstanceAlphaOffset(r) == 0);
    CHECK(!CAReplicatorLayerGetPreservesDepth(r));

    CAReplicatorLayerSetInstanceCount(r, 6);       CHECK_NO_ERROR();
    CAReplicatorLayerSetInstanceCount(r, -1);      CHECK_ERROR(QZErrorOutOfRange);
    CAReplicatorLayerSetInstanceCount(r, 2000000000L); CHECK_ERROR(QZErrorOutOfRange);
    CHECK(CAReplicatorLayerGetInstanceCount(r) == 6);
    CAReplicatorLayerSetInstanceDelay(r, NAN);     CHECK_ERROR(QZErrorNotFinite);
    CAReplicatorLayerSetInstanceAlphaOffset(r, NAN); CHECK_ERROR(QZErrorNotFinite);
    CATransform3D bad = CATransform3DIdentity;
    bad.m41 = INFINITY;
    CAReplicatorLayerSetInstanceTransform(r, bad); CHECK_ERROR(QZErrorNotFinite);
    CHECK(CAReplicatorLayerGetInstanceDelay(r) == 0 && CAReplicatorLayerGetInstanceAlphaOffset(r) == 0);
    CAReplicatorLayerSetInstanceCount(NULL, 2);    CHECK(QZGetLastError() != QZErrorNone);
    CALayerRef plain = CALayerCreate();
    CAReplicatorLayerSetInstanceDelay(plain, 1);   CHECK_ERROR(QZErrorWrongType);
    CHECK(CAReplicatorLayerGetInstanceCount(plain) == 1);
    CARelease(plain);
    CARelease(r);
}

static void instances_colours_and_delay(void) {
    CALayerRef rep, sub;
    CALayerRef root = scene(100, 20, 10, &rep, &sub);
    CAReplicatorLayerSetInstanceCount(rep, 5);
    CAReplicatorLayerSetInstanceTransform(rep, CATransform3DMakeTranslation(20, 0, 0));
    CAReplicatorLayerSetInstanceRedOffset(rep, -0.25);
    CVPixelBufferRef pb = render(root, 100, 20, 10);
    int p[4];
    for (int k = 0; k < 5; k++) {
        rgba(pb, 5 + 20 * k, 10, p);
        int red = (int)(255 * (1 - 0.25 * k) + 0.5);
        CHECK(abs(p[0] - red) <= 1 && p[1] == 255 && p[2] == 255 && p[3] == 255);
        rgba(pb, 15 + 20 * k, 10, p);
        CHECK(p[3] == 0);   /* the gaps between instances */
    }
    CHECK(CALayerGetSublayerCount(rep) == 1);
    CVPixelBufferRelease(pb);

    /* A fade from 0 to 1 over 1 s from t = 50, instances 0.25 s apart: at
     * t = 50.75 instance k is at 0.75 - 0.25 k s. */
    CAReplicatorLayerSetInstanceRedOffset(rep, 0);
    CAReplicatorLayerSetInstanceCount(rep, 4);
    CAReplicatorLayerSetInstanceDelay(rep, 0.25);
    CAAnimationRef fade = CABasicAnimationCreate("opacity");
    CAValueRef from = CAValueCreateNumber(0), to = CAValueCreateNumber(1);
    CABasicAnimationSetFromValue(fade, from);
    CABasicAnimationSetToValue(fade, to);
    CAAnimationSetDuration(fade, 1);
    CAAnimationSetBeginTime(fade, 50);
    CALayerAddAnimation(sub, fade, "fade");
    pb = render(root, 100, 20, 50.75);
    int expected[4] = { 191, 128, 64, 0 };
    for (int k = 0; k < 4; k++) {
        rgba(pb, 5 + 20 * k, 10, p);
        CHECK(abs(p[3] - expected[k]) <= 1);
    }
    CVPixelBufferRelease(pb);
    CARelease(fade); CARelease(from); CARelease(to);
    CARelease(sub); CARelease(rep); CARelease(root);
}

int main(void) {
    RUN(defaults_and_bad_input);
    RUN(instances_colours_and_delay);
    return qz_summary();
}
