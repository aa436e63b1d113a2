/* CARenderer, draw lists, bitmap contexts and CALayerRenderInContext from C:
 * a frame loop with damage tracking, the QZDrawOperation struct, render into
 * caller memory, and bad input. Valgrind-clean: everything is released. */
#include <stdlib.h>
#include "qz_test.h"

static CALayerRef layer_with(double x, double y, double w, double h, double r, double g, double b, double a) {
    CALayerRef l = CALayerCreate();
    CALayerSetFrame(l, CGRectMake(x, y, w, h));
    CGColorRef c = CGColorCreateSRGB(r, g, b, a);
    CALayerSetBackgroundColor(l, c);
    CGColorRelease(c);
    return l;
}

static uint32_t pixel_at(CVPixelBufferRef pb, int x, int y) {
    const uint8_t *base = CVPixelBufferGetBaseAddress(pb);
    uint32_t p;
    memcpy(&p, base + (size_t)y * CVPixelBufferGetBytesPerRow(pb) + 4 * (size_t)x, 4);
    return p;
}

static void test_frame_loop_and_damage(void) {
    CVPixelBufferRef pb = NULL;
    CHECK(CVPixelBufferCreate(NULL, 64, 48, kCVPixelFormatType_32BGRA, NULL, &pb) == kCVReturnSuccess);
    CALayerRef root = layer_with(0, 0, 64, 48, 1, 1, 1, 1);
    CALayerRef box = layer_with(8, 8, 16, 16, 1, 0, 0, 1);
    CALayerAddSublayer(root, box);
    CARendererRef r = CARendererCreate(pb, NULL);
    CHECK(r != NULL);
    CARendererSetLayer(r, root);
    CHECK(CARendererGetLayer(r) == root);
    CHECK(CGRectEqualToRect(CARendererGetBounds(r), CGRectMake(0, 0, 64, 48)));

    CARendererBeginFrameAtTime(r, 0, NULL);
    CHECK(CGRectEqualToRect(CARendererUpdateBounds(r), CGRectMake(0, 0, 64, 48)));
    CARendererRender(r);
    CARendererEndFrame(r);
    CHECK_NO_ERROR();
    CHECK(pixel_at(pb, 10, 10) == 0xFFFF0000u);   /* BGRA word: opaque red */
    CHECK(pixel_at(pb, 40, 40) == 0xFFFFFFFFu);

    /* Nothing changed: an empty update and no pixel written. */
    CARendererBeginFrameAtTime(r, 1, NULL);
    CHECK(CGRectIsNull(CARendererUpdateBounds(r)));
    CARendererRender(r);
    CARendererEndFrame(r);

    /* Move the box by 4 points (without an implicit animation): the update
     * is the union of old and new frames. */
    CATransactionBegin();
    CATransactionSetDisableActions(true);
    CALayerSetPosition(box, CGPointMake(20, 16));
    CATransactionCommit();
    CARendererBeginFrameAtTime(r, 2, NULL);
    CHECK(CGRectEqualToRect(CARendererUpdateBounds(r), CGRectMake(8, 8, 20, 16)));
    CARendererRender(r);
    CHECK(pixel_at(pb, 9, 9) == 0xFFFFFFFFu);
    CHECK(pixel_at(pb, 26, 20) == 0xFFFF0000u);
    CHECK(CARendererGetNextFrameTime(r) == INFINITY);
    CARendererEndFrame(r);

    CARelease(r);
    CARelease(box);
    CARelease(root);
    CVPixelBufferRelease(pb);
}

static void test_draw_list(void) {
    CVPixelBufferRef pb = NULL, img = NULL;
    CVPixelBufferCreate(NULL, 32, 32, kCVPixelFormatType_32BGRA, NULL, &pb);
    CVPixelBufferCreate(NULL, 4, 4, kCVPixelFormatType_32BGRA, NULL, &img);
    CALayerRef root = layer_with(0, 0, 32, 32, 0, 0, 1, 1);
    CALayerSetMasksToBounds(root, true);
    CALayerSetCornerRadius(root, 4);
    CALayerRef pic = CALayerCreate();
    CALayerSetFrame(pic, CGRectMake(4, 4, 8, 8));
    CALayerSetContents(pic, img);
    CALayerSetOpacity(pic, 0.5f);
    CALayerAddSublayer(root, pic);
    CARendererRef r = CARendererCreate(pb, NULL);
    CARendererSetLayer(r, root);
    CARendererBeginFrameAtTime(r, 0, NULL);
    QZDrawListRef list = QZRendererCopyDrawList(r);
    CARendererRender(r);
    CARendererEndFrame(r);
    /* fill (root), push clip, image (pic, opacity folded in), pop clip */
    CHECK(QZDrawListGetCount(list) == 4);
    QZDrawOperation op;
    CHECK(QZDrawListGetOperation(list, 0, &op) && op.kind == QZDrawOperationFill);
    CHECK_NEAR(op.color[2], 1, 1e-6);
    CHECK_NEAR(op.cornerRadius, 4, 0);
    CHECK(CGRectEqualToRect(op.bounds, CGRectMake(0, 0, 32, 32)));
    CHECK(QZDrawListGetOperation(list, 1, &op) && op.kind == QZDrawOperationPushClip);
    CHECK(QZDrawListGetOperation(list, 2, &op) && op.kind == QZDrawOperationImage);
    CHECK(op.texture == img);
    CHECK_NEAR(op.opacity, 0.5, 1e-6);
    CHECK(op.blendMode == QZBlendModeSourceOver);
    CHECK(CGRectEqualToRect(op.textureRect, CGRectMake(0, 0, 1, 1)));
    CHECK_NEAR(op.transform.m41, 4, 1e-9);     /* layer (0,0) -> pixel (4,4) */
    CHECK_NEAR(op.transform.m42, 4, 1e-9);
    CHECK(op.depth == 1);
    CHECK(QZDrawListGetOperation(list, 3, &op) && op.kind == QZDrawOperationPopClip);
    CHECK(!QZDrawListGetOperation(list, 4, &op));
    CHECK_ERROR(QZErrorOutOfRange);
    CHECK(!QZDrawListGetOperation(list, (size_t)-1, &op));   /* a negative index reaches Swift as -1 */
    CHECK_ERROR(QZErrorOutOfRange);
    CGSize size = QZDrawListGetTargetSize(list);
    CHECK(size.width == 32 && size.height == 32);
    CARelease(list);
    CARelease(r);
    CARelease(pic);
    CARelease(root);
    CVPixelBufferRelease(img);
    CVPixelBufferRelease(pb);
}

static void test_render_in_context(void) {
    size_t w = 20, h = 10;
    uint8_t *data = calloc(w * h, 4);
    CGContextRef ctx = CGBitmapContextCreate(data, w, h, 8, w * 4, NULL,
                                             kCGImageAlphaPremultipliedFirst | kCGBitmapByteOrder32Little);
    CHECK(ctx != NULL);
    CHECK(CGBitmapContextGetData(ctx) == data);
    CHECK(CGBitmapContextGetWidth(ctx) == w && CGBitmapContextGetHeight(ctx) == h);
    CHECK(CGBitmapContextGetBytesPerRow(ctx) == w * 4);
    CALayerRef layer = layer_with(100, 100, 10, 10, 0, 1, 0, 1);   /* position ignored */
    CALayerSetCornerRadius(layer, 0);
    CALayerRenderInContext(layer, ctx);
    CHECK_NO_ERROR();
    CHECK(data[0] == 0 && data[1] == 255 && data[2] == 0 && data[3] == 255);   /* B G R A */
    CHECK(data[(5 * w + 15) * 4 + 3] == 0);
    CGContextTranslateCTM(ctx, 10, 0);
    CALayerRenderInContext(layer, ctx);
    CHECK(data[(5 * w + 15) * 4 + 1] == 255);
    CGContextRelease(ctx);
    CARelease(layer);
    free(data);

    CVPixelBufferRef pb = NULL;
    CVPixelBufferCreate(NULL, 4, 4, kCVPixelFormatType_32RGBA, NULL, &pb);
    CGContextRef c2 = QZBitmapContextCreateWithPixelBuffer(pb);
    CHECK(c2 != NULL && QZBitmapContextGetPixelBuffer(c2) == pb);
    CGContextSetRGBFillColor(c2, 1, 0, 0, 0.5);
    CGContextFillRect(c2, CGRectMake(0, 0, 2, 4));
    const uint8_t *p = CVPixelBufferGetBaseAddress(pb);
    CHECK(p[0] == 128 && p[1] == 0 && p[3] == 128);   /* premultiplied RGBA */
    CHECK(p[3 * 4 + 3] == 0);
    CARelease(c2);
    CVPixelBufferRelease(pb);
}

static void test_bad_input(void) {
    CHECK(CARendererCreate(NULL, NULL) == NULL);
    CHECK_ERROR(QZErrorNullArgument);
    CVPixelBufferRef yuv = NULL;
    CVPixelBufferCreate(NULL, 8, 8, kCVPixelFormatType_420YpCbCr8BiPlanarFullRange, NULL, &yuv);
    CHECK(CARendererCreate(yuv, NULL) == NULL);
    CHECK_ERROR(QZErrorInvalidArgument);
    CVPixelBufferRelease(yuv);
    CHECK(CGBitmapContextCreate(NULL, 0, 0, 8, 0, NULL, kCGImageAlphaPremultipliedLast) == NULL);
    CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(CGBitmapContextCreate(NULL, 4, 4, 8, 0, NULL, kCGImageAlphaNone) == NULL);
    CHECK_ERROR(QZErrorInvalidArgument);
    CVPixelBufferRef pb = NULL;
    CVPixelBufferCreate(NULL, 8, 8, kCVPixelFormatType_32BGRA, NULL, &pb);
    CARendererRef r = CARendererCreate(pb, NULL);
    CARendererRender(r);
    CHECK_ERROR(QZErrorInvalidState);
    CARendererBeginFrameAtTime(r, 0, NULL);
    CARendererRender(r);                        /* no layer */
    CHECK_ERROR(QZErrorInvalidState);
    CARendererBeginFrameAtTime(r, 0, NULL);     /* already open */
    CHECK_ERROR(QZErrorInvalidState);
    CARendererEndFrame(r);
    CARendererBeginFrameAtTime(r, NAN, NULL);
    CHECK_ERROR(QZErrorNotFinite);
    CARendererSetLayer(r, (CALayerRef)pb);
    CHECK_ERROR(QZErrorWrongType);
    CHECK(CARendererGetLayer(NULL) == NULL);
    CHECK_ERROR(QZErrorNullArgument);
    CHECK(QZDrawListGetCount(NULL) == 0);
    CHECK_ERROR(QZErrorNullArgument);
    CALayerRenderInContext(NULL, NULL);
    CHECK_ERROR(QZErrorNullArgument);
    CGContextRestoreGState(NULL);
    CHECK_ERROR(QZErrorNullArgument);
    CARelease(r);
    CVPixelBufferRelease(pb);
}

int main(void) {
    RUN(test_frame_loop_and_damage);
    RUN(test_draw_list);
    RUN(test_render_in_context);
    RUN(test_bad_input);
    return qz_summary();
}
