/* Core Video through the C ABI: Apple's constants, struct layouts and key
 * values; pixel buffer layouts checked against hand-computed numbers;
 * every CVReturn error; locking; attachments; clean aperture and display
 * size; CVPixelBufferCreateWithBytes / WithPlanarBytes with release
 * callbacks that are libffi closures (called exactly once, never while a
 * layer, a value or another buffer still holds the buffer); pools (reuse,
 * minimum count, ageing, threads); pixel format descriptions and a custom
 * format with a libffi fill callback; conversions against a scalar
 * reference written here; PNG files; bad handles. Runs under valgrind too. */
#include <ffi.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "qz_test.h"

#define FOURCC(a, b, c, d) (((OSType)(a) << 24) | ((OSType)(b) << 16) | ((OSType)(c) << 8) | (OSType)(d))

static CAValueRef dict1(const char *key, CAValueRef value) {
    CAValueRef d = CAValueCreateDictionary(&key, &value, 1);
    CARelease(value);
    return d;
}

static CAValueRef number_dict(size_t n, const char *const *keys, const double *values) {
    CAValueRef vals[16];
    for (size_t i = 0; i < n; i++) vals[i] = CAValueCreateNumber(values[i]);
    CAValueRef d = CAValueCreateDictionary(keys, vals, n);
    for (size_t i = 0; i < n; i++) CARelease(vals[i]);
    return d;
}

static CVPixelBufferRef make(size_t w, size_t h, OSType format, CAValueRef attrs) {
    CVPixelBufferRef pb = NULL;
    CVReturn r = CVPixelBufferCreate(NULL, w, h, format, attrs, &pb);
    CHECK(r == kCVReturnSuccess);
    CHECK(pb != NULL);
    return pb;
}

static uint32_t be32(const void *p) {
    const uint8_t *b = p;
    return ((uint32_t)b[0] << 24) | ((uint32_t)b[1] << 16) | ((uint32_t)b[2] << 8) | b[3];
}

/* MARK: - Constants, structs and keys */

static void cvreturn_codes_have_apples_values(void) {
    CHECK(kCVReturnSuccess == 0);
    CHECK(kCVReturnFirst == -6660 && kCVReturnError == -6660);
    CHECK(kCVReturnInvalidArgument == -6661);
    CHECK(kCVReturnAllocationFailed == -6662);
    CHECK(kCVReturnInvalidDisplay == -6670);
    CHECK(kCVReturnDisplayLinkAlreadyRunning == -6671);
    CHECK(kCVReturnDisplayLinkNotRunning == -6672);
    CHECK(kCVReturnDisplayLinkCallbacksNotSet == -6673);
    CHECK(kCVReturnInvalidPixelFormat == -6680);
    CHECK(kCVReturnInvalidSize == -6681);
    CHECK(kCVReturnInvalidPixelBufferAttributes == -6682);
    CHECK(kCVReturnPixelBufferNotOpenGLCompatible == -6683);
    CHECK(kCVReturnPoolAllocationFailed == -6690);
    CHECK(kCVReturnInvalidPoolAttributes == -6691);
    CHECK(kCVReturnLast == -6699);
    CHECK(sizeof(CVReturn) == 4 && (CVReturn)-1 < 0);
    CHECK(sizeof(OSType) == 4 && sizeof(CVOptionFlags) == 8 && sizeof(CVAttachmentMode) == 4);
    CHECK(kCVAttachmentMode_ShouldNotPropagate == 0 && kCVAttachmentMode_ShouldPropagate == 1);
    CHECK(kCVPixelBufferLock_ReadOnly == 1);
}

static void time_structs_have_apples_layouts(void) {
    CHECK(sizeof(CVTime) == 16);
    CHECK(offsetof(CVTime, timeValue) == 0 && offsetof(CVTime, timeScale) == 8 && offsetof(CVTime, flags) == 12);
    CHECK(sizeof(CVSMPTETime) == 24);
    CHECK(offsetof(CVSMPTETime, subframeDivisor) == 2 && offsetof(CVSMPTETime, counter) == 4);
    CHECK(offsetof(CVSMPTETime, type) == 8 && offsetof(CVSMPTETime, flags) == 12);
    CHECK(offsetof(CVSMPTETime, hours) == 16 && offsetof(CVSMPTETime, frames) == 22);
    CHECK(sizeof(CVTimeStamp) == 80);
    CHECK(offsetof(CVTimeStamp, videoTimeScale) == 4 && offsetof(CVTimeStamp, videoTime) == 8);
    CHECK(offsetof(CVTimeStamp, hostTime) == 16 && offsetof(CVTimeStamp, rateScalar) == 24);
    CHECK(offsetof(CVTimeStamp, videoRefreshPeriod) == 32 && offsetof(CVTimeStamp, smpteTime) == 40);
    CHECK(offsetof(CVTimeStamp, flags) == 64 && offsetof(CVTimeStamp, reserved) == 72);
    CHECK(kCVZeroTime.timeValue == 0 && kCVZeroTime.timeScale == 0 && kCVZeroTime.flags == 0);
    CHECK(kCVIndefiniteTime.timeValue == 0 && kCVIndefiniteTime.timeScale == 0);
    CHECK(kCVIndefiniteTime.flags == kCVTimeIsIndefinite && kCVTimeIsIndefinite == 1);
    CHECK(kCVTimeStampVideoTimeValid == 1 && kCVTimeStampHostTimeValid == 2 && kCVTimeStampSMPTETimeValid == 4);
    CHECK(kCVTimeStampVideoRefreshPeriodValid == 8 && kCVTimeStampRateScalarValid == 16);
    CHECK(kCVTimeStampTopField == 0x10000 && kCVTimeStampBottomField == 0x20000);
    CHECK(kCVTimeStampVideoHostTimeValid == 3 && kCVTimeStampIsInterlaced == 0x30000);
    CHECK(kCVSMPTETimeType24 == 0 && kCVSMPTETimeType2997Drop == 5 && kCVSMPTETimeType5994 == 7);
    CHECK(kCVSMPTETimeValid == 1 && kCVSMPTETimeRunning == 2);
    CHECK(sizeof(CVPlanarComponentInfo) == 8 && sizeof(CVPlanarPixelBufferInfo_YCbCrPlanar) == 24);
    CHECK(sizeof(CVPlanarPixelBufferInfo_YCbCrBiPlanar) == 16);
    CHECK(sizeof(CVFillExtendedPixelsCallBackData) == 3 * sizeof(void *));
}

static void pixel_formats_are_big_endian_fourccs(void) {
    CHECK(kCVPixelFormatType_32BGRA == 0x42475241 && kCVPixelFormatType_32BGRA == FOURCC('B', 'G', 'R', 'A'));
    CHECK(kCVPixelFormatType_32ARGB == 0x20 && kCVPixelFormatType_24RGB == 0x18);
    CHECK(kCVPixelFormatType_32ABGR == FOURCC('A', 'B', 'G', 'R'));
    CHECK(kCVPixelFormatType_32RGBA == FOURCC('R', 'G', 'B', 'A'));
    CHECK(kCVPixelFormatType_24BGR == FOURCC('2', '4', 'B', 'G'));
    CHECK(kCVPixelFormatType_64ARGB == FOURCC('b', '6', '4', 'a'));
    CHECK(kCVPixelFormatType_48RGB == FOURCC('b', '4', '8', 'r'));
    CHECK(kCVPixelFormatType_32AlphaGray == FOURCC('b', '3', '2', 'a'));
    CHECK(kCVPixelFormatType_16Gray == FOURCC('b', '1', '6', 'g'));
    CHECK(kCVPixelFormatType_422YpCbCr8 == FOURCC('2', 'v', 'u', 'y'));
    CHECK(kCVPixelFormatType_4444YpCbCrA8 == FOURCC('v', '4', '0', '8'));
    CHECK(kCVPixelFormatType_4444YpCbCrA8R == FOURCC('r', '4', '0', '8'));
    CHECK(kCVPixelFormatType_444YpCbCr8 == FOURCC('v', '3', '0', '8'));
    CHECK(kCVPixelFormatType_422YpCbCr16 == FOURCC('v', '2', '1', '6'));
    CHECK(kCVPixelFormatType_422YpCbCr10 == FOURCC('v', '2', '1', '0'));
    CHECK(kCVPixelFormatType_444YpCbCr10 == FOURCC('v', '4', '1', '0'));
    CHECK(kCVPixelFormatType_420YpCbCr8Planar == FOURCC('y', '4', '2', '0'));
    CHECK(kCVPixelFormatType_420YpCbCr8PlanarFullRange == FOURCC('f', '4', '2', '0'));
    CHECK(kCVPixelFormatType_422YpCbCr_4A_8BiPlanar == FOURCC('a', '2', 'v', 'y'));
    CHECK(kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange == FOURCC('4', '2', '0', 'v'));
    CHECK(kCVPixelFormatType_420YpCbCr8BiPlanarFullRange == FOURCC('4', '2', '0', 'f'));
    CHECK(kCVPixelFormatType_422YpCbCr8_yuvs == FOURCC('y', 'u', 'v', 's'));
    CHECK(kCVPixelFormatType_422YpCbCr8FullRange == FOURCC('y', 'u', 'v', 'f'));
    CHECK(kCVPixelFormatType_16LE555 == FOURCC('L', '5', '5', '5'));
    CHECK(kCVPixelFormatType_16LE5551 == FOURCC('5', '5', '5', '1'));
    CHECK(kCVPixelFormatType_16BE565 == FOURCC('B', '5', '6', '5'));
    CHECK(kCVPixelFormatType_16LE565 == FOURCC('L', '5', '6', '5'));
    CHECK(kCVPixelFormatType_1Monochrome == 1 && kCVPixelFormatType_8Indexed == 8);
    CHECK(kCVPixelFormatType_1IndexedGray_WhiteIsZero == 0x21 && kCVPixelFormatType_8IndexedGray_WhiteIsZero == 0x28);
    CHECK(kCVPixelFormatType_16BE555 == 0x10);
}

static void keys_have_apples_string_values(void) {
    CHECK(!strcmp(kCVPixelBufferWidthKey, "Width") && !strcmp(kCVPixelBufferHeightKey, "Height"));
    CHECK(!strcmp(kCVPixelBufferPixelFormatTypeKey, "PixelFormatType"));
    CHECK(!strcmp(kCVPixelBufferBytesPerRowAlignmentKey, "BytesPerRowAlignment"));
    CHECK(!strcmp(kCVPixelBufferExtendedPixelsLeftKey, "ExtendedPixelsLeft"));
    CHECK(!strcmp(kCVPixelBufferExtendedPixelsTopKey, "ExtendedPixelsTop"));
    CHECK(!strcmp(kCVPixelBufferExtendedPixelsRightKey, "ExtendedPixelsRight"));
    CHECK(!strcmp(kCVPixelBufferExtendedPixelsBottomKey, "ExtendedPixelsBottom"));
    CHECK(!strcmp(kCVPixelBufferPlaneAlignmentKey, "PlaneAlignment"));
    CHECK(!strcmp(kCVPixelBufferPoolMinimumBufferCountKey, "MinimumBufferCount"));
    CHECK(!strcmp(kCVPixelBufferPoolMaximumBufferAgeKey, "MaximumBufferAge"));
    CHECK(!strcmp(kCVBufferPropagatedAttachmentsKey, "PropagatedAttachments"));
    CHECK(!strcmp(kCVBufferNonPropagatedAttachmentsKey, "NonPropagatedAttachments"));
    CHECK(!strcmp(kCVBufferMovieTimeKey, "QTMovieTime"));
    CHECK(!strcmp(kCVImageBufferCleanApertureKey, "CVCleanAperture"));
    CHECK(!strcmp(kCVImageBufferDisplayDimensionsKey, "CVDisplayDimensions"));
    CHECK(!strcmp(kCVImageBufferPixelAspectRatioKey, "CVPixelAspectRatio"));
    CHECK(!strcmp(kCVImageBufferYCbCrMatrixKey, "CVImageBufferYCbCrMatrix"));
    CHECK(!strcmp(kCVImageBufferYCbCrMatrix_ITU_R_709_2, "ITU_R_709_2"));
    CHECK(!strcmp(kCVImageBufferYCbCrMatrix_ITU_R_601_4, "ITU_R_601_4"));
    CHECK(!strcmp(kCVImageBufferYCbCrMatrix_SMPTE_240M_1995, "SMPTE_240M_1995"));
    CHECK(!strcmp(kCVImageBufferChromaLocation_DV420, "DV 4:2:0"));
    CHECK(!strcmp(kCVPixelFormatBitsPerBlock, "BitsPerBlock") && !strcmp(kCVPixelFormatConstant, "PixelFormat"));
    CHECK(!strcmp(kCVPixelFormatPlanes, "Planes") && !strcmp(kCVPixelFormatName, "Name"));
}

/* MARK: - Layouts */

static void bgra_buffer_defaults(void) {
    CVPixelBufferRef pb = make(100, 50, kCVPixelFormatType_32BGRA, NULL);
    CHECK(CVPixelBufferGetWidth(pb) == 100 && CVPixelBufferGetHeight(pb) == 50);
    CHECK(CVPixelBufferGetPixelFormatType(pb) == kCVPixelFormatType_32BGRA);
    CHECK(CVPixelBufferGetBytesPerRow(pb) == 400);          /* a multiple of the default 16 */
    CHECK(CVPixelBufferGetDataSize(pb) == 400 * 50);
    CHECK(CVPixelBufferGetPlaneCount(pb) == 0 && !CVPixelBufferIsPlanar(pb));
    CHECK(CVPixelBufferGetBaseAddressOfPlane(pb, 0) == NULL);
    CHECK(CVPixelBufferGetBytesPerRowOfPlane(pb, 0) == 0);
    CHECK(CVPixelBufferGetWidthOfPlane(pb, 0) == 0 && CVPixelBufferGetHeightOfPlane(pb, 0) == 0);
    CHECK_NO_ERROR();
    size_t l = 9, r = 9, t = 9, b = 9;
    CVPixelBufferGetExtendedPixels(pb, &l, &r, &t, &b);
    CHECK(l == 0 && r == 0 && t == 0 && b == 0);
    CVPixelBufferGetExtendedPixels(pb, NULL, NULL, NULL, NULL);
    uint8_t *base = CVPixelBufferGetBaseAddress(pb);
    CHECK(base != NULL && (uintptr_t)base % 64 == 0);
    int zero = 1;
    for (size_t i = 0; i < 400 * 50; i++) zero &= base[i] == 0;
    CHECK(zero);                                            /* fresh buffers are cleared */
    CHECK(CVPixelBufferGetTypeID() == QZGetTypeID(pb) && CVPixelBufferGetTypeID() != 0);
    CHECK(CVPixelBufferGetTypeID() != CVPixelBufferPoolGetTypeID());
    CHECK(!strcmp(QZGetTypeName(pb), "CVPixelBuffer"));
    CGSize encoded = CVImageBufferGetEncodedSize(pb);
    CHECK(encoded.width == 100 && encoded.height == 50);
    CHECK(CVPixelBufferRetain(pb) == pb);
    CVPixelBufferRelease(pb);
    CHECK(CVBufferRetain(pb) == pb);
    CVBufferRelease(pb);
    CVPixelBufferRelease(pb);
    CHECK_NO_ERROR();
    /* NULL-safe retain and release, as Apple's. */
    CHECK(CVPixelBufferRetain(NULL) == NULL && CVBufferRetain(NULL) == NULL);
    CVPixelBufferRelease(NULL);
    CVBufferRelease(NULL);
    CHECK_NO_ERROR();
}

/* The worked example: 1920x1080 '420v' with 64-byte alignment.
 * Memory: a 16-byte planar header, padded to 64; plane 0 (Y'): 1920 bytes
 * per row (1920 is a multiple of 64) x 1080 rows = 2,073,600 bytes at
 * offset 64; plane 1 (CbCr): 960 pairs = 1920 bytes per row x 540 rows =
 * 1,036,800 bytes at 64 + 2,073,600 = 2,073,664 (a multiple of 64); total
 * 3,110,464 bytes. */
static void layout_420v_1080p_with_64_byte_alignment(void) {
    const char *keys[] = { kCVPixelBufferBytesPerRowAlignmentKey };
    double values[] = { 64 };
    CAValueRef attrs = number_dict(1, keys, values);
    CVPixelBufferRef pb = make(1920, 1080, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, attrs);
    CARelease(attrs);
    CHECK(CVPixelBufferIsPlanar(pb) && CVPixelBufferGetPlaneCount(pb) == 2);
    CHECK(CVPixelBufferGetWidthOfPlane(pb, 0) == 1920 && CVPixelBufferGetHeightOfPlane(pb, 0) == 1080);
    CHECK(CVPixelBufferGetWidthOfPlane(pb, 1) == 960 && CVPixelBufferGetHeightOfPlane(pb, 1) == 540);
    CHECK(CVPixelBufferGetBytesPerRowOfPlane(pb, 0) == 1920 && CVPixelBufferGetBytesPerRowOfPlane(pb, 1) == 1920);
    uint8_t *base = CVPixelBufferGetBaseAddress(pb);
    uint8_t *y = CVPixelBufferGetBaseAddressOfPlane(pb, 0), *c = CVPixelBufferGetBaseAddressOfPlane(pb, 1);
    CHECK(y - base == 64);
    CHECK(c - base == 2073664);
    CHECK((uintptr_t)y % 64 == 0 && (uintptr_t)c % 64 == 0);
    CHECK(CVPixelBufferGetDataSize(pb) == 3110464);
    /* Apple: bytesPerRow * height covers every plane: ceil(3110464 / 1080). */
    CHECK(CVPixelBufferGetBytesPerRow(pb) == 2881);
    /* The big-endian CVPlanarPixelBufferInfo_YCbCrBiPlanar at the base address. */
    const CVPlanarPixelBufferInfo_YCbCrBiPlanar *info = (const void *)base;
    CHECK(be32(&info->componentInfoY.offset) == 64 && be32(&info->componentInfoY.rowBytes) == 1920);
    CHECK(be32(&info->componentInfoCbCr.offset) == 2073664 && be32(&info->componentInfoCbCr.rowBytes) == 1920);
    CVPixelBufferRelease(pb);

    /* Default alignments (16): plane 0 right after the 16-byte header. */
    pb = make(1920, 1080, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, NULL);
    base = CVPixelBufferGetBaseAddress(pb);
    CHECK((uint8_t *)CVPixelBufferGetBaseAddressOfPlane(pb, 0) - base == 16);
    CHECK((uint8_t *)CVPixelBufferGetBaseAddressOfPlane(pb, 1) - base == 16 + 2073600);
    CHECK(CVPixelBufferGetDataSize(pb) == 16 + 2073600 + 1036800);
    CVPixelBufferRelease(pb);
    CHECK_NO_ERROR();
}

static void layouts_of_odd_sizes_and_block_formats(void) {
    /* 'y420' 101x51: Y' 101 -> 112-byte rows x 51; Cb, Cr 51x26 -> 64-byte rows.
     * Header 24 -> plane 0 at 32; 32 + 112 * 51 = 5744; 5744 + 64 * 26 = 7408; 7408 + 1664 = 9072. */
    CVPixelBufferRef pb = make(101, 51, kCVPixelFormatType_420YpCbCr8Planar, NULL);
    uint8_t *base = CVPixelBufferGetBaseAddress(pb);
    CHECK(CVPixelBufferGetPlaneCount(pb) == 3);
    CHECK(CVPixelBufferGetBytesPerRowOfPlane(pb, 0) == 112 && CVPixelBufferGetHeightOfPlane(pb, 0) == 51);
    CHECK(CVPixelBufferGetWidthOfPlane(pb, 1) == 51 && CVPixelBufferGetHeightOfPlane(pb, 1) == 26);
    CHECK(CVPixelBufferGetBytesPerRowOfPlane(pb, 1) == 64 && CVPixelBufferGetBytesPerRowOfPlane(pb, 2) == 64);
    CHECK((uint8_t *)CVPixelBufferGetBaseAddressOfPlane(pb, 0) - base == 32);
    CHECK((uint8_t *)CVPixelBufferGetBaseAddressOfPlane(pb, 1) - base == 5744);
    CHECK((uint8_t *)CVPixelBufferGetBaseAddressOfPlane(pb, 2) - base == 7408);
    CHECK(CVPixelBufferGetDataSize(pb) == 9072);
    const CVPlanarPixelBufferInfo_YCbCrPlanar *info = (const void *)base;
    CHECK(be32(&info->componentInfoCr.offset) == 7408 && be32(&info->componentInfoCb.rowBytes) == 64);
    /* A bad plane index is an error; plane queries on chunky buffers are not. */
    CHECK(CVPixelBufferGetBaseAddressOfPlane(pb, 3) == NULL);
    CHECK_ERROR(QZErrorOutOfRange);
    CHECK(CVPixelBufferGetBytesPerRowOfPlane(pb, 99) == 0);
    CHECK_ERROR(QZErrorOutOfRange);
    CHECK(CVPixelBufferGetWidthOfPlane(pb, 3) == 0);
    CHECK_ERROR(QZErrorOutOfRange);
    CHECK(CVPixelBufferGetHeightOfPlane(pb, (size_t)-1) == 0);
    CHECK_ERROR(QZErrorOutOfRange);
    CVPixelBufferRelease(pb);

    /* '2vuy' 101 wide: 51 blocks of 4 bytes = 204 -> 208. */
    pb = make(101, 3, kCVPixelFormatType_422YpCbCr8, NULL);
    CHECK(CVPixelBufferGetBytesPerRow(pb) == 208);
    CVPixelBufferRelease(pb);
    /* v210 1920 wide: 320 blocks of 6 pixels in 16 bytes, rows of multiples of 8 blocks: 5120. */
    pb = make(1920, 2, kCVPixelFormatType_422YpCbCr10, NULL);
    CHECK(CVPixelBufferGetBytesPerRow(pb) == 5120);
    CVPixelBufferRelease(pb);
    /* v210 1280 wide: 214 blocks -> 216 (a multiple of 8) * 16 = 3456. */
    pb = make(1280, 2, kCVPixelFormatType_422YpCbCr10, NULL);
    CHECK(CVPixelBufferGetBytesPerRow(pb) == 3456);
    CVPixelBufferRelease(pb);
    /* 24RGB 5 wide: 15 -> 16; 1-bit gray 10 wide: 2 bytes -> 16; 64ARGB 3 wide: 24 -> 32. */
    pb = make(5, 1, kCVPixelFormatType_24RGB, NULL);
    CHECK(CVPixelBufferGetBytesPerRow(pb) == 16);
    CVPixelBufferRelease(pb);
    pb = make(10, 1, kCVPixelFormatType_1IndexedGray_WhiteIsZero, NULL);
    CHECK(CVPixelBufferGetBytesPerRow(pb) == 16);
    CVPixelBufferRelease(pb);
    pb = make(3, 1, kCVPixelFormatType_64ARGB, NULL);
    CHECK(CVPixelBufferGetBytesPerRow(pb) == 32);
    CVPixelBufferRelease(pb);
    /* An alignment that is not a power of two (48) and one of 1 (tight rows). */
    const char *keys[] = { kCVPixelBufferBytesPerRowAlignmentKey };
    double v48[] = { 48 }, v1[] = { 1 };
    CAValueRef a48 = number_dict(1, keys, v48), a1 = number_dict(1, keys, v1);
    pb = make(10, 2, kCVPixelFormatType_32BGRA, a48);
    CHECK(CVPixelBufferGetBytesPerRow(pb) == 48);
    CVPixelBufferRelease(pb);
    pb = make(5, 2, kCVPixelFormatType_24BGR, a1);
    CHECK(CVPixelBufferGetBytesPerRow(pb) == 15 && CVPixelBufferGetDataSize(pb) == 30);
    CVPixelBufferRelease(pb);
    CARelease(a48);
    CARelease(a1);
    /* Width and height arguments win over the same attribute keys. */
    const char *wh[] = { kCVPixelBufferWidthKey, kCVPixelBufferHeightKey, kCVPixelBufferPixelFormatTypeKey };
    double whv[] = { 5, 6, kCVPixelFormatType_24RGB };
    CAValueRef over = number_dict(3, wh, whv);
    pb = make(10, 20, kCVPixelFormatType_32BGRA, over);
    CHECK(CVPixelBufferGetWidth(pb) == 10 && CVPixelBufferGetHeight(pb) == 20);
    CHECK(CVPixelBufferGetPixelFormatType(pb) == kCVPixelFormatType_32BGRA);
    CVPixelBufferRelease(pb);
    CARelease(over);
    CHECK_NO_ERROR();
}

static void extended_pixels_are_allocated_and_filled(void) {
    /* 10x4 BGRA with 3 left, 5 right, 2 top, 1 bottom: 18 pixels = 72 -> 80
     * bytes per row, 7 rows; (0, 0) is 2 rows and 3 pixels in. */
    const char *keys[] = { kCVPixelBufferExtendedPixelsLeftKey, kCVPixelBufferExtendedPixelsRightKey,
                           kCVPixelBufferExtendedPixelsTopKey, kCVPixelBufferExtendedPixelsBottomKey };
    double values[] = { 3, 5, 2, 1 };
    CAValueRef attrs = number_dict(4, keys, values);
    CVPixelBufferRef pb = make(10, 4, kCVPixelFormatType_32BGRA, attrs);
    size_t l, r, t, b;
    CVPixelBufferGetExtendedPixels(pb, &l, &r, &t, &b);
    CHECK(l == 3 && r == 5 && t == 2 && b == 1);
    size_t bpr = CVPixelBufferGetBytesPerRow(pb);
    CHECK(bpr == 80 && CVPixelBufferGetDataSize(pb) == 80 * 7);
    CHECK(CVPixelBufferLockBaseAddress(pb, 0) == kCVReturnSuccess);
    uint32_t *origin = CVPixelBufferGetBaseAddress(pb);
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 10; x++) origin[y * 20 + x] = (uint32_t)(y * 100 + x + 1);
    CHECK(CVPixelBufferFillExtendedPixels(pb) == kCVReturnSuccess);
    CHECK(origin[-2 * 20 - 3] == 1);           /* top-left corner: pixel (0, 0) */
    CHECK(origin[1 * 20 - 1] == 101);          /* left of (0, 1) */
    CHECK(origin[3 * 20 + 14] == 310);         /* right end of row 3: pixel (9, 3) */
    CHECK(origin[4 * 20 + 5] == 306);          /* below (5, 3) */
    CHECK(origin[-1 * 20 + 9] == 10);          /* above (9, 0) */
    CHECK(origin[0] == 1 && origin[3 * 20 + 9] == 310);   /* the image itself untouched */
    CHECK(CVPixelBufferUnlockBaseAddress(pb, 0) == kCVReturnSuccess);
    CVPixelBufferRelease(pb);
    CARelease(attrs);

    /* 4:2:0 rounds extensions up to even numbers; each plane gets its share. */
    double odd[] = { 3, 1, 3, 1 };
    attrs = number_dict(4, keys, odd);
    pb = make(16, 8, kCVPixelFormatType_420YpCbCr8BiPlanarFullRange, attrs);
    CVPixelBufferGetExtendedPixels(pb, &l, &r, &t, &b);
    CHECK(l == 4 && r == 2 && t == 4 && b == 2);
    CHECK(CVPixelBufferGetBytesPerRowOfPlane(pb, 0) == 32);  /* 4 + 16 + 2 = 22 -> 32 */
    uint8_t *base = CVPixelBufferGetBaseAddress(pb);
    uint8_t *y0 = CVPixelBufferGetBaseAddressOfPlane(pb, 0);
    CHECK(y0 - base == 16 + 4 * 32 + 4);
    uint8_t *c0 = CVPixelBufferGetBaseAddressOfPlane(pb, 1);
    y0[0] = 77;
    c0[0] = 11;
    c0[1] = 22;
    CHECK(CVPixelBufferFillExtendedPixels(pb) == kCVReturnSuccess);
    CHECK(y0[-4 * 32 - 4] == 77 && y0[-1] == 77);
    CHECK(c0[-2] == 11 && c0[-1] == 22);            /* the chroma plane's edge pair replicated */
    CVPixelBufferRelease(pb);
    CARelease(attrs);

    /* Without extended pixels the fill does nothing and succeeds. */
    pb = make(2, 2, kCVPixelFormatType_32BGRA, NULL);
    CHECK(CVPixelBufferFillExtendedPixels(pb) == kCVReturnSuccess);
    CVPixelBufferRelease(pb);
    CHECK(CVPixelBufferFillExtendedPixels(NULL) == kCVReturnInvalidArgument);
    CHECK_ERROR(QZErrorNullArgument);
    CHECK_NO_ERROR();
}

/* MARK: - Creation errors */

static void creation_errors_return_apples_codes(void) {
    CVPixelBufferRef pb = (CVPixelBufferRef)(uintptr_t)0x1;  /* must stay untouched on error */
    CHECK(CVPixelBufferCreate(NULL, 0, 10, kCVPixelFormatType_32BGRA, NULL, &pb) == kCVReturnInvalidSize);
    CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(CVPixelBufferCreate(NULL, 10, 0, kCVPixelFormatType_32BGRA, NULL, &pb) == kCVReturnInvalidSize);
    CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(CVPixelBufferCreate(NULL, (size_t)1 << 21, 1, kCVPixelFormatType_32BGRA, NULL, &pb) == kCVReturnInvalidSize);
    CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(CVPixelBufferCreate(NULL, (size_t)-1, 1, kCVPixelFormatType_32BGRA, NULL, &pb) == kCVReturnInvalidSize);
    CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(CVPixelBufferCreate(NULL, 10, 10, FOURCC('a', 'b', 'c', 'd'), NULL, &pb) == kCVReturnInvalidPixelFormat);
    CHECK(strstr(QZGetLastErrorMessage(), "CVPixelBufferCreate: pixel format 'abcd'") != NULL);
    CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(CVPixelBufferCreate(NULL, 10, 10, 0, NULL, &pb) == kCVReturnInvalidPixelFormat);
    CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(CVPixelBufferCreate(NULL, 10, 10, kCVPixelFormatType_32BGRA, NULL, NULL) == kCVReturnInvalidArgument);
    CHECK_ERROR(QZErrorNullArgument);
    CHECK(pb == (CVPixelBufferRef)(uintptr_t)0x1);

    /* Attribute dictionaries: not a dictionary, wrong types, out of range. */
    CAValueRef number = CAValueCreateNumber(3);
    CHECK(CVPixelBufferCreate(NULL, 4, 4, kCVPixelFormatType_32BGRA, number, &pb) == kCVReturnInvalidPixelBufferAttributes);
    CHECK_ERROR(QZErrorInvalidArgument);
    CAValueRef bad[] = {
        dict1(kCVPixelBufferBytesPerRowAlignmentKey, CAValueCreateNumber(-16)),
        dict1(kCVPixelBufferBytesPerRowAlignmentKey, CAValueCreateNumber(1.5)),
        dict1(kCVPixelBufferBytesPerRowAlignmentKey, CAValueCreateNumber(NAN)),
        dict1(kCVPixelBufferBytesPerRowAlignmentKey, CAValueCreateString("64")),
        dict1(kCVPixelBufferBytesPerRowAlignmentKey, CAValueCreateNumber(1 << 20)),
        dict1(kCVPixelBufferPlaneAlignmentKey, CAValueCreateNumber(48)),
        dict1(kCVPixelBufferExtendedPixelsLeftKey, CAValueCreateNumber(-1)),
        dict1(kCVPixelBufferExtendedPixelsBottomKey, CAValueCreateNumber(INFINITY)),
        dict1(kCVBufferPropagatedAttachmentsKey, CAValueCreateNumber(1)),
        dict1(kCVPixelBufferCGImageCompatibilityKey, CAValueCreateString("yes")),
        dict1(kCVPixelBufferIOSurfacePropertiesKey, CAValueCreateNumber(0)),
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(CVPixelBufferCreate(NULL, 4, 4, kCVPixelFormatType_32BGRA, bad[i], &pb) == kCVReturnInvalidPixelBufferAttributes);
        CHECK_ERROR(QZErrorInvalidArgument);
        CARelease(bad[i]);
    }
    /* A handle that is not a CAValueRef. */
    CVPixelBufferRef other = make(1, 1, kCVPixelFormatType_32BGRA, NULL);
    CHECK(CVPixelBufferCreate(NULL, 4, 4, kCVPixelFormatType_32BGRA, (CAValueRef)other, &pb) == kCVReturnInvalidArgument);
    CHECK_ERROR(QZErrorWrongType);
    CVPixelBufferRelease(other);
    /* Unknown keys are ignored; an allocator is accepted and ignored. */
    CAValueRef unknown = dict1("SomethingElse", CAValueCreateNumber(1));
    CHECK(CVPixelBufferCreate(kCFAllocatorDefault, 4, 4, kCVPixelFormatType_32BGRA, unknown, &pb) == kCVReturnSuccess);
    CVPixelBufferRelease(pb);
    CARelease(unknown);
    CARelease(number);
    CHECK_NO_ERROR();
}

static void memory_limit_fails_allocations(void) {
    size_t before = QZPixelBufferGetMemoryInUse();
    CVPixelBufferRef pb = make(100, 100, kCVPixelFormatType_32BGRA, NULL);
    CHECK(QZPixelBufferGetMemoryInUse() == before + 40000);
    QZPixelBufferSetMemoryLimit(QZPixelBufferGetMemoryInUse() + 1000);
    CHECK(QZPixelBufferGetMemoryLimit() == QZPixelBufferGetMemoryInUse() + 1000);
    CVPixelBufferRef big = NULL;
    CHECK(CVPixelBufferCreate(NULL, 100, 100, kCVPixelFormatType_32BGRA, NULL, &big) == kCVReturnAllocationFailed);
    CHECK_ERROR(QZErrorOutOfMemory);
    CHECK(big == NULL);
    /* Small allocations still fit. */
    CHECK(CVPixelBufferCreate(NULL, 10, 10, kCVPixelFormatType_32BGRA, NULL, &big) == kCVReturnSuccess);
    CVPixelBufferRelease(big);
    /* Pools: the minimum cannot be allocated. */
    const char *keys[] = { kCVPixelBufferWidthKey, kCVPixelBufferHeightKey, kCVPixelBufferPixelFormatTypeKey };
    double values[] = { 100, 100, kCVPixelFormatType_32BGRA };
    CAValueRef battrs = number_dict(3, keys, values);
    CAValueRef pattrs = dict1(kCVPixelBufferPoolMinimumBufferCountKey, CAValueCreateNumber(2));
    CVPixelBufferPoolRef pool = NULL;
    CHECK(CVPixelBufferPoolCreate(NULL, pattrs, battrs, &pool) == kCVReturnPoolAllocationFailed);
    CHECK_ERROR(QZErrorOutOfMemory);
    /* A pool made before the limit fails to make a new buffer after it. */
    QZPixelBufferSetMemoryLimit(0);
    CHECK(CVPixelBufferPoolCreate(NULL, NULL, battrs, &pool) == kCVReturnSuccess);
    QZPixelBufferSetMemoryLimit(QZPixelBufferGetMemoryInUse() + 1000);
    CHECK(CVPixelBufferPoolCreatePixelBuffer(NULL, pool, &big) == kCVReturnPoolAllocationFailed);
    CHECK_ERROR(QZErrorOutOfMemory);
    QZPixelBufferSetMemoryLimit(0);
    CHECK(CVPixelBufferPoolCreatePixelBuffer(NULL, pool, &big) == kCVReturnSuccess);
    CVPixelBufferRelease(big);
    CVPixelBufferPoolRelease(pool);
    CARelease(battrs);
    CARelease(pattrs);
    CVPixelBufferRelease(pb);
    CHECK(QZPixelBufferGetMemoryInUse() == before);
    CHECK_NO_ERROR();
}

/* MARK: - Locking */

static void lock_and_unlock_balance_with_matching_flags(void) {
    CVPixelBufferRef pb = make(4, 4, kCVPixelFormatType_32BGRA, NULL);
    uint32_t seed = QZPixelBufferGetSeed(pb);
    CHECK(seed != 0);
    /* Unlocking what is not locked: unbalanced. */
    CHECK(CVPixelBufferUnlockBaseAddress(pb, 0) == kCVReturnError);
    CHECK_ERROR(QZErrorInvalidState);
    CHECK(CVPixelBufferUnlockBaseAddress(pb, kCVPixelBufferLock_ReadOnly) == kCVReturnError);
    CHECK_ERROR(QZErrorInvalidState);
    /* Read-only locks do not change the seed. */
    CHECK(CVPixelBufferLockBaseAddress(pb, kCVPixelBufferLock_ReadOnly) == kCVReturnSuccess);
    CHECK(QZPixelBufferGetLockCount(pb, kCVPixelBufferLock_ReadOnly) == 1 && QZPixelBufferGetLockCount(pb, 0) == 0);
    /* Mismatched flags: locked read-only, unlocked read-write. Nothing changes. */
    CHECK(CVPixelBufferUnlockBaseAddress(pb, 0) == kCVReturnInvalidArgument);
    CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(QZPixelBufferGetLockCount(pb, kCVPixelBufferLock_ReadOnly) == 1);
    CHECK(CVPixelBufferUnlockBaseAddress(pb, kCVPixelBufferLock_ReadOnly) == kCVReturnSuccess);
    CHECK(QZPixelBufferGetSeed(pb) == seed);
    /* Read-write locks nest; each unlock bumps the seed. */
    CHECK(CVPixelBufferLockBaseAddress(pb, 0) == kCVReturnSuccess);
    CHECK(CVPixelBufferLockBaseAddress(pb, 0) == kCVReturnSuccess);
    CHECK(QZPixelBufferGetLockCount(pb, 0) == 2);
    CHECK(CVPixelBufferUnlockBaseAddress(pb, kCVPixelBufferLock_ReadOnly) == kCVReturnInvalidArgument);
    CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(CVPixelBufferUnlockBaseAddress(pb, 0) == kCVReturnSuccess);
    CHECK(QZPixelBufferGetSeed(pb) == seed + 1);
    CHECK(CVPixelBufferUnlockBaseAddress(pb, 0) == kCVReturnSuccess);
    CHECK(QZPixelBufferGetSeed(pb) == seed + 2);
    CHECK(QZPixelBufferGetLockCount(pb, 0) == 0);
    /* Unknown flags. */
    CHECK(CVPixelBufferLockBaseAddress(pb, 2) == kCVReturnInvalidArgument);
    CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(CVPixelBufferUnlockBaseAddress(pb, 0x100) == kCVReturnInvalidArgument);
    CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(QZPixelBufferGetLockCount(pb, 4) == 0);
    CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(QZPixelBufferGetLockCount(pb, 0) == 0);
    /* Bad handles. */
    CHECK(CVPixelBufferLockBaseAddress(NULL, 0) == kCVReturnInvalidArgument);
    CHECK_ERROR(QZErrorNullArgument);
    CAValueRef v = CAValueCreateNumber(1);
    CHECK(CVPixelBufferUnlockBaseAddress((CVPixelBufferRef)v, 0) == kCVReturnInvalidArgument);
    CHECK_ERROR(QZErrorWrongType);
    CARelease(v);
    CVPixelBufferRelease(pb);
    CHECK_NO_ERROR();
}

typedef struct { CVPixelBufferRef pb; int failures; } lock_job;

static void *lock_worker(void *arg) {
    lock_job *job = arg;
    for (int i = 0; i < 2000; i++) {
        CVOptionFlags f = (i & 1) ? kCVPixelBufferLock_ReadOnly : 0;
        if (CVPixelBufferLockBaseAddress(job->pb, f) != kCVReturnSuccess) job->failures++;
        if (CVPixelBufferUnlockBaseAddress(job->pb, f) != kCVReturnSuccess) job->failures++;
    }
    return NULL;
}

static void locks_from_several_threads(void) {
    CVPixelBufferRef pb = make(4, 4, kCVPixelFormatType_32BGRA, NULL);
    uint32_t seed = QZPixelBufferGetSeed(pb);
    pthread_t threads[4];
    lock_job jobs[4];
    for (int i = 0; i < 4; i++) {
        jobs[i] = (lock_job){ pb, 0 };
        pthread_create(&threads[i], NULL, lock_worker, &jobs[i]);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(threads[i], NULL);
        CHECK(jobs[i].failures == 0);
    }
    CHECK(QZPixelBufferGetLockCount(pb, 0) == 0 && QZPixelBufferGetLockCount(pb, kCVPixelBufferLock_ReadOnly) == 0);
    CHECK(QZPixelBufferGetSeed(pb) == seed + 4 * 1000);
    CVPixelBufferRelease(pb);
}

/* MARK: - Attachments */

static void attachments_with_propagation_modes(void) {
    CVPixelBufferRef a = make(2, 2, kCVPixelFormatType_32BGRA, NULL), b = make(2, 2, kCVPixelFormatType_32BGRA, NULL);
    CAValueRef one = CAValueCreateNumber(1), two = CAValueCreateString("two");
    CVBufferSetAttachment(a, "one", one, kCVAttachmentMode_ShouldPropagate);
    CVBufferSetAttachment(a, "two", two, kCVAttachmentMode_ShouldNotPropagate);
    CHECK_NO_ERROR();
    CVAttachmentMode mode = 99;
    CHECK(CVBufferGetAttachment(a, "one", &mode) == one && mode == kCVAttachmentMode_ShouldPropagate);
    CHECK(CVBufferGetAttachment(a, "two", &mode) == two && mode == kCVAttachmentMode_ShouldNotPropagate);
    CHECK(CVBufferGetAttachment(a, "two", NULL) == two);
    mode = 99;
    CHECK(CVBufferGetAttachment(a, "three", &mode) == NULL && mode == 99);
    CHECK_NO_ERROR();
    CAValueRef props = CVBufferGetAttachments(a, kCVAttachmentMode_ShouldPropagate);
    CHECK(CAValueGetCount(props) == 1 && CAValueGetNumber(CAValueGetDictionaryItem(props, "one")) == 1);
    CHECK(CVBufferGetAttachments(a, kCVAttachmentMode_ShouldPropagate) == props);  /* kept until a change */
    CAValueRef nonprops = CVBufferCopyAttachments(a, kCVAttachmentMode_ShouldNotPropagate);
    CHECK(CAValueGetCount(nonprops) == 1 && !strcmp(CAValueGetString(CAValueGetDictionaryItem(nonprops, "two")), "two"));
    CARelease(nonprops);
    CAValueRef copied = CVBufferCopyAttachment(a, "one", &mode);
    CHECK(copied == one);
    CARelease(copied);
    /* Propagation copies only the propagating ones. */
    CVBufferPropagateAttachments(a, b);
    CHECK(CVBufferGetAttachment(b, "one", &mode) == one && mode == kCVAttachmentMode_ShouldPropagate);
    CHECK(CVBufferGetAttachment(b, "two", NULL) == NULL);
    /* A key is in one mode at a time: setting it in the other moves it. */
    CVBufferSetAttachment(a, "one", two, kCVAttachmentMode_ShouldNotPropagate);
    CHECK(CVBufferGetAttachment(a, "one", &mode) == two && mode == kCVAttachmentMode_ShouldNotPropagate);
    CHECK(CAValueGetCount(CVBufferGetAttachments(a, kCVAttachmentMode_ShouldPropagate)) == 0);
    CHECK(CAValueGetCount(CVBufferGetAttachments(a, kCVAttachmentMode_ShouldNotPropagate)) == 2);
    /* Set several at once. */
    const char *keys[] = { "x", "y" };
    CAValueRef vals[] = { one, two };
    CAValueRef d = CAValueCreateDictionary(keys, vals, 2);
    CVBufferSetAttachments(b, d, kCVAttachmentMode_ShouldNotPropagate);
    CHECK(CVBufferGetAttachment(b, "x", &mode) == one && mode == kCVAttachmentMode_ShouldNotPropagate);
    CHECK(CAValueGetCount(CVBufferGetAttachments(b, kCVAttachmentMode_ShouldNotPropagate)) == 2);
    CARelease(d);
    CVBufferRemoveAttachment(b, "x");
    CHECK(CVBufferGetAttachment(b, "x", NULL) == NULL);
    CVBufferRemoveAttachment(b, "never set");
    CHECK_NO_ERROR();
    CVBufferRemoveAllAttachments(b);
    CHECK(CAValueGetCount(CVBufferGetAttachments(b, kCVAttachmentMode_ShouldPropagate)) == 0);
    CHECK(CAValueGetCount(CVBufferGetAttachments(b, kCVAttachmentMode_ShouldNotPropagate)) == 0);
    /* Errors. */
    CVBufferSetAttachment(a, "k", NULL, kCVAttachmentMode_ShouldPropagate);
    CHECK_ERROR(QZErrorNullArgument);
    CVBufferSetAttachment(a, "k", one, 2);
    CHECK_ERROR(QZErrorUnknownConstant);
    CHECK(CVBufferGetAttachment(a, "k", NULL) == NULL);
    CHECK(CVBufferGetAttachments(a, 7) == NULL);
    CHECK_ERROR(QZErrorUnknownConstant);
    CVBufferSetAttachment(a, NULL, one, 0);
    CHECK_ERROR(QZErrorNullArgument);
    CVBufferSetAttachments(a, one, 0);
    CHECK_ERROR(QZErrorWrongType);
    CVBufferSetAttachment(a, "k", (CAValueRef)b, 0);
    CHECK_ERROR(QZErrorWrongType);
    CHECK(CVBufferGetAttachment(NULL, "one", NULL) == NULL);
    CHECK_ERROR(QZErrorNullArgument);
    CVBufferPropagateAttachments(a, (CVBufferRef)one);
    CHECK_ERROR(QZErrorWrongType);
    CVBufferRemoveAllAttachments(NULL);
    CHECK_ERROR(QZErrorNullArgument);
    CARelease(one);
    CARelease(two);
    CVPixelBufferRelease(a);
    CVPixelBufferRelease(b);
}

static void attachments_from_creation_attributes(void) {
    CAValueRef prop = dict1("Gamma", CAValueCreateNumber(2.2));
    CAValueRef nonprop = dict1("Note", CAValueCreateString("hello"));
    const char *keys[] = { kCVBufferPropagatedAttachmentsKey, kCVBufferNonPropagatedAttachmentsKey };
    CAValueRef vals[] = { prop, nonprop };
    CAValueRef attrs = CAValueCreateDictionary(keys, vals, 2);
    CVPixelBufferRef pb = make(2, 2, kCVPixelFormatType_32BGRA, attrs);
    CVAttachmentMode mode;
    CHECK(CAValueGetNumber(CVBufferGetAttachment(pb, "Gamma", &mode)) == 2.2 && mode == kCVAttachmentMode_ShouldPropagate);
    CHECK(!strcmp(CAValueGetString(CVBufferGetAttachment(pb, "Note", &mode)), "hello"));
    CHECK(mode == kCVAttachmentMode_ShouldNotPropagate);
    CVPixelBufferRelease(pb);
    CARelease(attrs);
    CARelease(prop);
    CARelease(nonprop);
    CHECK_NO_ERROR();
}

typedef struct { CVPixelBufferRef pb; int id; int failures; } attachment_job;

static void *attachment_worker(void *arg) {
    attachment_job *job = arg;
    char key[16];
    snprintf(key, sizeof key, "k%d", job->id);
    for (int i = 0; i < 1000; i++) {
        CAValueRef v = CAValueCreateNumber(i);
        CVBufferSetAttachment(job->pb, key, v, (CVAttachmentMode)(i & 1));
        CARelease(v);
        CVAttachmentMode mode = 9;
        CAValueRef got = CVBufferCopyAttachment(job->pb, key, &mode);
        if (!got || CAValueGetNumber(got) != i || mode != (CVAttachmentMode)(i & 1)) job->failures++;
        CARelease(got);
        CAValueRef all = CVBufferCopyAttachments(job->pb, kCVAttachmentMode_ShouldPropagate);
        if (CAValueGetType(all) != CAValueTypeDictionary) job->failures++;
        CARelease(all);
        if (i % 3 == 1) CVBufferRemoveAttachment(job->pb, key);
    }
    return NULL;
}

static void attachments_from_several_threads(void) {
    CVPixelBufferRef pb = make(2, 2, kCVPixelFormatType_32BGRA, NULL);
    pthread_t threads[4];
    attachment_job jobs[4];
    for (int i = 0; i < 4; i++) {
        jobs[i] = (attachment_job){ pb, i, 0 };
        pthread_create(&threads[i], NULL, attachment_worker, &jobs[i]);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(threads[i], NULL);
        CHECK(jobs[i].failures == 0);
    }
    /* Each thread's last step (i = 999) set its key in mode 1 and kept it. */
    CHECK(CAValueGetCount(CVBufferGetAttachments(pb, kCVAttachmentMode_ShouldPropagate)) == 4);
    CHECK(CAValueGetNumber(CVBufferGetAttachment(pb, "k2", NULL)) == 999);
    CVPixelBufferRelease(pb);
    CHECK_NO_ERROR();
}

/* MARK: - Image buffer geometry */

static CAValueRef aperture(double w, double h, double dx, double dy) {
    const char *keys[] = { kCVImageBufferCleanApertureWidthKey, kCVImageBufferCleanApertureHeightKey,
                           kCVImageBufferCleanApertureHorizontalOffsetKey, kCVImageBufferCleanApertureVerticalOffsetKey };
    double values[] = { w, h, dx, dy };
    return number_dict(4, keys, values);
}

static void clean_aperture_and_display_size(void) {
    /* NTSC DV: 720x480 encoded, 704x480 clean at (8, 0), 10:11 pixels: 640x480. */
    CVPixelBufferRef pb = make(720, 480, kCVPixelFormatType_422YpCbCr8, NULL);
    CGRect full = CVImageBufferGetCleanRect(pb);
    CHECK(full.origin.x == 0 && full.origin.y == 0 && full.size.width == 720 && full.size.height == 480);
    CAValueRef clap = aperture(704, 480, 0, 0);
    CVBufferSetAttachment(pb, kCVImageBufferCleanApertureKey, clap, kCVAttachmentMode_ShouldPropagate);
    CARelease(clap);
    CGRect clean = CVImageBufferGetCleanRect(pb);
    CHECK(clean.origin.x == 8 && clean.origin.y == 0 && clean.size.width == 704 && clean.size.height == 480);
    CGSize display = CVImageBufferGetDisplaySize(pb);
    CHECK(display.width == 704 && display.height == 480);
    const char *par_keys[] = { kCVImageBufferPixelAspectRatioHorizontalSpacingKey,
                               kCVImageBufferPixelAspectRatioVerticalSpacingKey };
    double par_values[] = { 10, 11 };
    CAValueRef par = number_dict(2, par_keys, par_values);
    CVBufferSetAttachment(pb, kCVImageBufferPixelAspectRatioKey, par, kCVAttachmentMode_ShouldPropagate);
    CARelease(par);
    display = CVImageBufferGetDisplaySize(pb);
    CHECK_NEAR(display.width, 640, 1e-9);
    CHECK(display.height == 480);
    /* Offsets move the aperture's centre; the vertical one downwards, so up
     * in the lower-left origin Apple's rectangle uses. */
    clap = aperture(600, 400, 10, 20);
    CVBufferSetAttachment(pb, kCVImageBufferCleanApertureKey, clap, kCVAttachmentMode_ShouldPropagate);
    CARelease(clap);
    clean = CVImageBufferGetCleanRect(pb);
    CHECK(clean.origin.x == 70 && clean.origin.y == 20 && clean.size.width == 600 && clean.size.height == 400);
    /* The display dimensions attachment wins. */
    const char *dd_keys[] = { kCVImageBufferDisplayWidthKey, kCVImageBufferDisplayHeightKey };
    double dd_values[] = { 1280, 720 };
    CAValueRef dims = number_dict(2, dd_keys, dd_values);
    CVBufferSetAttachment(pb, kCVImageBufferDisplayDimensionsKey, dims, kCVAttachmentMode_ShouldPropagate);
    CARelease(dims);
    display = CVImageBufferGetDisplaySize(pb);
    CHECK(display.width == 1280 && display.height == 720);
    CGSize encoded = CVImageBufferGetEncodedSize(pb);
    CHECK(encoded.width == 720 && encoded.height == 480);
    /* An unreadable aperture falls back to the whole buffer. */
    CAValueRef junk = CAValueCreateString("junk");
    CVBufferSetAttachment(pb, kCVImageBufferCleanApertureKey, junk, kCVAttachmentMode_ShouldPropagate);
    CARelease(junk);
    clean = CVImageBufferGetCleanRect(pb);
    CHECK(clean.size.width == 720 && clean.size.height == 480);
    CHECK_NO_ERROR();
    /* Bad handles give zero sizes. */
    clean = CVImageBufferGetCleanRect(NULL);
    CHECK(clean.size.width == 0 && clean.origin.x == 0);
    CHECK_ERROR(QZErrorNullArgument);
    CAValueRef v = CAValueCreateNumber(1);
    display = CVImageBufferGetDisplaySize((CVImageBufferRef)v);
    CHECK(display.width == 0 && display.height == 0);
    CHECK_ERROR(QZErrorWrongType);
    encoded = CVImageBufferGetEncodedSize((CVImageBufferRef)v);
    CHECK(encoded.width == 0);
    CHECK_ERROR(QZErrorWrongType);
    CARelease(v);
    CVPixelBufferRelease(pb);
}

/* MARK: - Release callbacks as libffi closures */

typedef struct {
    int calls;
    void *refcon_seen;
    const void *address_seen;
    const void *data_seen;
    size_t data_size_seen, planes_seen;
    const void *plane_seen[4];
} release_log;

/* void (*)(void *releaseRefCon, const void *baseAddress) */
static void release_bytes_trampoline(ffi_cif *cif, void *ret, void **args, void *user) {
    (void)cif; (void)ret;
    release_log *log = user;
    log->calls++;
    log->refcon_seen = *(void **)args[0];
    log->address_seen = *(const void **)args[1];
}

/* void (*)(void *refCon, const void *dataPtr, size_t dataSize, size_t numberOfPlanes, const void *planeAddresses[]) */
static void release_planar_trampoline(ffi_cif *cif, void *ret, void **args, void *user) {
    (void)cif; (void)ret;
    release_log *log = user;
    log->calls++;
    log->refcon_seen = *(void **)args[0];
    log->data_seen = *(const void **)args[1];
    log->data_size_seen = *(size_t *)args[2];
    log->planes_seen = *(size_t *)args[3];
    const void **planes = *(const void ***)args[4];
    for (size_t i = 0; i < log->planes_seen && i < 4; i++) log->plane_seen[i] = planes[i];
}

typedef struct { ffi_closure *closure; void *code; ffi_cif cif; ffi_type *args[5]; } closure_t;

static void *make_closure(closure_t *c, unsigned nargs, ffi_type **types, ffi_type *rtype,
                          void (*fn)(ffi_cif *, void *, void **, void *), void *user) {
    for (unsigned i = 0; i < nargs; i++) c->args[i] = types[i];
    c->closure = ffi_closure_alloc(sizeof(ffi_closure), &c->code);
    if (!c->closure || ffi_prep_cif(&c->cif, FFI_DEFAULT_ABI, nargs, rtype, c->args) != FFI_OK) return NULL;
    if (ffi_prep_closure_loc(c->closure, &c->cif, fn, user, c->code) != FFI_OK) return NULL;
    return c->code;
}

static void create_with_bytes_calls_release_exactly_once(void) {
    release_log log;
    memset(&log, 0, sizeof log);
    closure_t c;
    ffi_type *types[] = { &ffi_type_pointer, &ffi_type_pointer };
    void *code = make_closure(&c, 2, types, &ffi_type_void, release_bytes_trampoline, &log);
    CHECK(code != NULL);
    CVPixelBufferReleaseBytesCallback release;
    memcpy(&release, &code, sizeof release);
    int token = 42;
    uint8_t *pixels = malloc(64 * 4);
    memset(pixels, 7, 64 * 4);

    /* The simplest life: create, use, release. */
    CVPixelBufferRef pb = NULL;
    CHECK(CVPixelBufferCreateWithBytes(NULL, 10, 4, kCVPixelFormatType_32BGRA, pixels, 64, release, &token, NULL, &pb)
          == kCVReturnSuccess);
    CHECK(CVPixelBufferGetBaseAddress(pb) == pixels && CVPixelBufferGetBytesPerRow(pb) == 64);
    CHECK(CVPixelBufferGetDataSize(pb) == 256 && !CVPixelBufferIsPlanar(pb));
    CHECK(CVPixelBufferGetWidth(pb) == 10 && CVPixelBufferGetHeight(pb) == 4);
    CVPixelBufferRetain(pb);
    CVPixelBufferRelease(pb);
    CHECK(log.calls == 0);
    CVPixelBufferRelease(pb);
    CHECK(log.calls == 1 && log.refcon_seen == &token && log.address_seen == pixels);

    /* A layer holds it: released by its creator, the callback waits for the layer. */
    CHECK(CVPixelBufferCreateWithBytes(NULL, 10, 4, kCVPixelFormatType_32BGRA, pixels, 64, release, &token, NULL, &pb)
          == kCVReturnSuccess);
    CALayerRef layer = CALayerCreate();
    CALayerSetContents(layer, pb);
    CHECK(CALayerGetContents(layer) == pb);
    CVPixelBufferRelease(pb);
    CHECK(log.calls == 1);
    CHECK(CVPixelBufferGetWidth((CVPixelBufferRef)CALayerGetContents(layer)) == 10);  /* still alive and usable */
    CALayerSetContents(layer, NULL);
    CHECK(log.calls == 2);

    /* Through key-value coding, and held until the layer is freed. */
    CHECK(CVPixelBufferCreateWithBytes(NULL, 10, 4, kCVPixelFormatType_32BGRA, pixels, 64, release, &token, NULL, &pb)
          == kCVReturnSuccess);
    CAValueRef boxed = CAValueCreateWithObject(pb);
    CALayerSetValueForKey(layer, "contents", boxed);
    CVPixelBufferRelease(pb);
    CHECK(log.calls == 2);
    CARelease(boxed);
    CHECK(log.calls == 2);
    CARelease(layer);
    CHECK(log.calls == 3);

    /* A pool's buffer holds it as an attachment: the callback comes when the
     * pool buffer goes back to its pool (its attachments go with it). */
    const char *keys[] = { kCVPixelBufferWidthKey, kCVPixelBufferHeightKey, kCVPixelBufferPixelFormatTypeKey };
    double values[] = { 8, 8, kCVPixelFormatType_32BGRA };
    CAValueRef battrs = number_dict(3, keys, values);
    CVPixelBufferPoolRef pool = NULL;
    CHECK(CVPixelBufferPoolCreate(NULL, NULL, battrs, &pool) == kCVReturnSuccess);
    CARelease(battrs);
    CVPixelBufferRef pooled = NULL;
    CHECK(CVPixelBufferPoolCreatePixelBuffer(NULL, pool, &pooled) == kCVReturnSuccess);
    CHECK(CVPixelBufferCreateWithBytes(NULL, 10, 4, kCVPixelFormatType_32BGRA, pixels, 64, release, &token, NULL, &pb)
          == kCVReturnSuccess);
    boxed = CAValueCreateWithObject(pb);
    CVBufferSetAttachment(pooled, "source", boxed, kCVAttachmentMode_ShouldPropagate);
    CARelease(boxed);
    CVPixelBufferRelease(pb);
    CVPixelBufferPoolRelease(pool);      /* the buffer keeps working without its pool handle */
    CHECK(log.calls == 3);
    CVPixelBufferRelease(pooled);
    CHECK(log.calls == 4);

    /* Failed creations never call it: the memory is still the caller's. */
    CHECK(CVPixelBufferCreateWithBytes(NULL, 10, 4, kCVPixelFormatType_32BGRA, NULL, 64, release, &token, NULL, &pb)
          == kCVReturnInvalidArgument);
    CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(CVPixelBufferCreateWithBytes(NULL, 10, 4, kCVPixelFormatType_32BGRA, pixels, 39, release, &token, NULL, &pb)
          == kCVReturnInvalidArgument);
    CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(CVPixelBufferCreateWithBytes(NULL, 0, 4, kCVPixelFormatType_32BGRA, pixels, 64, release, &token, NULL, &pb)
          == kCVReturnInvalidSize);
    CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(CVPixelBufferCreateWithBytes(NULL, 10, 4, kCVPixelFormatType_420YpCbCr8Planar, pixels, 64, release, &token,
                                       NULL, &pb) == kCVReturnInvalidPixelFormat);
    CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(CVPixelBufferCreateWithBytes(NULL, 10, 4, FOURCC('n', 'o', 'p', 'e'), pixels, 64, release, &token, NULL, &pb)
          == kCVReturnInvalidPixelFormat);
    CHECK_ERROR(QZErrorInvalidArgument);
    CAValueRef bad = CAValueCreateNumber(1);
    CHECK(CVPixelBufferCreateWithBytes(NULL, 10, 4, kCVPixelFormatType_32BGRA, pixels, 64, release, &token, bad, &pb)
          == kCVReturnInvalidPixelBufferAttributes);
    CHECK_ERROR(QZErrorInvalidArgument);
    CARelease(bad);
    CHECK(CVPixelBufferCreateWithBytes(NULL, 10, 4, kCVPixelFormatType_32BGRA, pixels, 64, release, &token, NULL, NULL)
          == kCVReturnInvalidArgument);
    CHECK_ERROR(QZErrorNullArgument);
    CHECK(log.calls == 4);
    /* No callback at all is fine. */
    CHECK(CVPixelBufferCreateWithBytes(NULL, 10, 4, kCVPixelFormatType_32BGRA, pixels, 64, NULL, NULL, NULL, &pb)
          == kCVReturnSuccess);
    CVPixelBufferRelease(pb);
    CHECK(log.calls == 4);
    free(pixels);
    ffi_closure_free(c.closure);
    CHECK_NO_ERROR();
}

static void create_with_planar_bytes_calls_its_release_once(void) {
    release_log log;
    memset(&log, 0, sizeof log);
    closure_t c;
    ffi_type *types[] = { &ffi_type_pointer, &ffi_type_pointer, &ffi_type_uint64, &ffi_type_uint64, &ffi_type_pointer };
    void *code = make_closure(&c, 5, types, &ffi_type_void, release_planar_trampoline, &log);
    CHECK(code != NULL);
    CVPixelBufferReleasePlanarBytesCallback release;
    memcpy(&release, &code, sizeof release);
    /* A 6x4 '420v' frame: Y' 6x4 in 8-byte rows, CbCr 3x2 pairs in 8-byte rows. */
    uint8_t *luma = calloc(32, 1), *chroma = calloc(16, 1);
    int descriptor = 0;
    void *planes[2] = { luma, chroma };
    size_t widths[2] = { 6, 3 }, heights[2] = { 4, 2 }, rows[2] = { 8, 8 };
    CVPixelBufferRef pb = NULL;
    CHECK(CVPixelBufferCreateWithPlanarBytes(NULL, 6, 4, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, &descriptor,
                                             48, 2, planes, widths, heights, rows, release, &log, NULL, &pb)
          == kCVReturnSuccess);
    CHECK(CVPixelBufferIsPlanar(pb) && CVPixelBufferGetPlaneCount(pb) == 2);
    CHECK(CVPixelBufferGetBaseAddress(pb) == &descriptor && CVPixelBufferGetDataSize(pb) == 48);
    CHECK(CVPixelBufferGetBaseAddressOfPlane(pb, 1) == chroma && CVPixelBufferGetBytesPerRowOfPlane(pb, 0) == 8);
    CHECK(CVPixelBufferGetWidthOfPlane(pb, 1) == 3 && CVPixelBufferGetHeightOfPlane(pb, 1) == 2);
    /* Converting reads the caller's planes: Y' 235, neutral chroma: white. */
    memset(luma, 235, 32);
    memset(chroma, 128, 16);
    CVPixelBufferRef out = make(6, 4, kCVPixelFormatType_32BGRA, NULL);
    CHECK(QZPixelBufferConvert(pb, out) == kCVReturnSuccess);
    CHECK(((uint32_t *)CVPixelBufferGetBaseAddress(out))[5] == 0xFFFFFFFFu);
    CVPixelBufferRelease(out);
    CHECK(log.calls == 0);
    CVPixelBufferRelease(pb);
    CHECK(log.calls == 1 && log.refcon_seen == &log && log.data_seen == &descriptor);
    CHECK(log.data_size_seen == 48 && log.planes_seen == 2);
    CHECK(log.plane_seen[0] == luma && log.plane_seen[1] == chroma);

    /* Planes larger than the image needs: a copy into an allocated buffer of
     * the same format copies only what both hold (valgrind would see more). */
    uint8_t *big_luma = calloc(16 * 8, 1), *big_chroma = calloc(16 * 8, 1);
    void *big_planes[2] = { big_luma, big_chroma };
    size_t big_widths[2] = { 16, 8 }, big_heights[2] = { 8, 8 }, big_rows[2] = { 16, 16 };
    big_chroma[16] = 33;   /* row 1 of the chroma plane */
    CHECK(CVPixelBufferCreateWithPlanarBytes(NULL, 6, 4, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, NULL, 0, 2,
                                             big_planes, big_widths, big_heights, big_rows, NULL, NULL, NULL, &pb)
          == kCVReturnSuccess);
    CHECK(CVPixelBufferGetWidthOfPlane(pb, 1) == 8 && CVPixelBufferGetHeightOfPlane(pb, 1) == 8);
    CVPixelBufferRef same = make(6, 4, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, NULL);
    CHECK(QZPixelBufferConvert(pb, same) == kCVReturnSuccess);
    CHECK(((uint8_t *)CVPixelBufferGetBaseAddressOfPlane(same, 1))[CVPixelBufferGetBytesPerRowOfPlane(same, 1)] == 33);
    CVPixelBufferRelease(same);
    CVPixelBufferRelease(pb);
    free(big_luma);
    free(big_chroma);

    /* Errors: no callback. */
    /* (Arrays of 3: the library reads numberOfPlanes entries of each.) */
    void *planes3[3] = { luma, chroma, chroma };
    size_t widths3[3] = { 6, 3, 3 }, heights3[3] = { 4, 2, 2 }, rows3[3] = { 8, 8, 8 };
    CHECK(CVPixelBufferCreateWithPlanarBytes(NULL, 6, 4, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, NULL, 0, 3,
                                             planes3, widths3, heights3, rows3, release, &log, NULL, &pb)
          == kCVReturnInvalidArgument);   /* 3 planes for a 2-plane format */
    CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(CVPixelBufferCreateWithPlanarBytes(NULL, 6, 4, kCVPixelFormatType_32BGRA, NULL, 0, 2, planes, widths, heights,
                                             rows, release, &log, NULL, &pb) == kCVReturnInvalidPixelFormat);
    CHECK_ERROR(QZErrorInvalidArgument);
    size_t small[2] = { 6, 1 };
    CHECK(CVPixelBufferCreateWithPlanarBytes(NULL, 6, 4, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, NULL, 0, 2,
                                             planes, widths, small, rows, release, &log, NULL, &pb)
          == kCVReturnInvalidArgument);   /* the chroma plane is too short */
    CHECK_ERROR(QZErrorInvalidArgument);
    size_t narrow[2] = { 8, 4 };
    CHECK(CVPixelBufferCreateWithPlanarBytes(NULL, 6, 4, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, NULL, 0, 2,
                                             planes, widths, heights, narrow, release, &log, NULL, &pb)
          == kCVReturnInvalidArgument);   /* 3 pairs need 6 bytes per row */
    CHECK_ERROR(QZErrorInvalidArgument);
    void *null_planes[2] = { luma, NULL };
    CHECK(CVPixelBufferCreateWithPlanarBytes(NULL, 6, 4, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, NULL, 0, 2,
                                             null_planes, widths, heights, rows, release, &log, NULL, &pb)
          == kCVReturnInvalidArgument);
    CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(CVPixelBufferCreateWithPlanarBytes(NULL, 6, 4, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, NULL, 0, 2,
                                             planes, NULL, heights, rows, release, &log, NULL, &pb)
          == kCVReturnInvalidArgument);
    CHECK_ERROR(QZErrorNullArgument);
    CHECK(CVPixelBufferCreateWithPlanarBytes(NULL, 0, 4, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, NULL, 0, 2,
                                             planes, widths, heights, rows, release, &log, NULL, &pb)
          == kCVReturnInvalidSize);
    CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(CVPixelBufferCreateWithPlanarBytes(NULL, 6, 4, FOURCC('n', 'o', 'p', 'e'), NULL, 0, 2,
                                             planes, widths, heights, rows, release, &log, NULL, &pb)
          == kCVReturnInvalidPixelFormat);
    CHECK_ERROR(QZErrorInvalidArgument);
    CAValueRef bad = CAValueCreateString("attrs");
    CHECK(CVPixelBufferCreateWithPlanarBytes(NULL, 6, 4, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, NULL, 0, 2,
                                             planes, widths, heights, rows, release, &log, bad, &pb)
          == kCVReturnInvalidPixelBufferAttributes);
    CHECK_ERROR(QZErrorInvalidArgument);
    CARelease(bad);
    CHECK(CVPixelBufferCreateWithPlanarBytes(NULL, 6, 4, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, NULL, 0, 0,
                                             planes, widths, heights, rows, release, &log, NULL, &pb)
          == kCVReturnInvalidArgument);
    CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(CVPixelBufferCreateWithPlanarBytes(NULL, 6, 4, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, NULL, 0, 2,
                                             planes, widths, heights, rows, release, &log, NULL, NULL)
          == kCVReturnInvalidArgument);
    CHECK_ERROR(QZErrorNullArgument);
    CHECK(log.calls == 1);
    free(luma);
    free(chroma);
    ffi_closure_free(c.closure);
}

/* MARK: - Resolved attributes */

static void resolved_attributes_merge_clients(void) {
    const char *k1[] = { kCVPixelBufferWidthKey, kCVPixelBufferBytesPerRowAlignmentKey, kCVPixelBufferExtendedPixelsLeftKey };
    double v1[] = { 640, 16, 4 };
    const char *k2[] = { kCVPixelBufferWidthKey, kCVPixelBufferBytesPerRowAlignmentKey, kCVPixelBufferExtendedPixelsLeftKey,
                         kCVPixelBufferHeightKey };
    double v2[] = { 640, 24, 8, 480 };
    CAValueRef d[2] = { number_dict(3, k1, v1), number_dict(4, k2, v2) };
    CAValueRef formats_a[2] = { CAValueCreateNumber(kCVPixelFormatType_32BGRA), CAValueCreateNumber(kCVPixelFormatType_32ARGB) };
    CAValueRef list = CAValueCreateArray(d, 2);
    CAValueRef resolved = NULL;
    CHECK(CVPixelBufferCreateResolvedAttributesDictionary(NULL, list, &resolved) == kCVReturnSuccess);
    CHECK(CAValueGetNumber(CAValueGetDictionaryItem(resolved, kCVPixelBufferWidthKey)) == 640);
    CHECK(CAValueGetNumber(CAValueGetDictionaryItem(resolved, kCVPixelBufferHeightKey)) == 480);
    CHECK(CAValueGetNumber(CAValueGetDictionaryItem(resolved, kCVPixelBufferBytesPerRowAlignmentKey)) == 48);  /* lcm */
    CHECK(CAValueGetNumber(CAValueGetDictionaryItem(resolved, kCVPixelBufferExtendedPixelsLeftKey)) == 8);    /* max */
    CARelease(resolved);
    CARelease(list);
    /* Pixel formats intersect. */
    CAValueRef fa = CAValueCreateArray(formats_a, 2);
    CAValueRef with_a = dict1(kCVPixelBufferPixelFormatTypeKey, CARetain(fa));
    CAValueRef with_b = dict1(kCVPixelBufferPixelFormatTypeKey, CAValueCreateNumber(kCVPixelFormatType_32ARGB));
    CAValueRef pair[2] = { with_a, with_b };
    list = CAValueCreateArray(pair, 2);
    CHECK(CVPixelBufferCreateResolvedAttributesDictionary(NULL, list, &resolved) == kCVReturnSuccess);
    CHECK(CAValueGetNumber(CAValueGetDictionaryItem(resolved, kCVPixelBufferPixelFormatTypeKey)) == kCVPixelFormatType_32ARGB);
    CARelease(resolved);
    CARelease(list);
    /* Conflicts. */
    CAValueRef with_c = dict1(kCVPixelBufferPixelFormatTypeKey, CAValueCreateNumber(kCVPixelFormatType_24RGB));
    CAValueRef clash[2] = { with_b, with_c };
    list = CAValueCreateArray(clash, 2);
    resolved = NULL;
    CHECK(CVPixelBufferCreateResolvedAttributesDictionary(NULL, list, &resolved) == kCVReturnInvalidPixelBufferAttributes);
    CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(resolved == NULL);
    CARelease(list);
    CAValueRef w1 = dict1(kCVPixelBufferWidthKey, CAValueCreateNumber(640));
    CAValueRef w2 = dict1(kCVPixelBufferWidthKey, CAValueCreateNumber(320));
    CAValueRef widths[2] = { w1, w2 };
    list = CAValueCreateArray(widths, 2);
    CHECK(CVPixelBufferCreateResolvedAttributesDictionary(NULL, list, &resolved) == kCVReturnInvalidPixelBufferAttributes);
    CHECK_ERROR(QZErrorInvalidArgument);
    CARelease(list);
    CAValueRef not_dict[1] = { fa };
    list = CAValueCreateArray(not_dict, 1);
    CHECK(CVPixelBufferCreateResolvedAttributesDictionary(NULL, list, &resolved) == kCVReturnInvalidPixelBufferAttributes);
    CHECK_ERROR(QZErrorInvalidArgument);
    CARelease(list);
    /* NULL resolves to an empty dictionary; a non-array is an invalid argument. */
    CHECK(CVPixelBufferCreateResolvedAttributesDictionary(NULL, NULL, &resolved) == kCVReturnSuccess);
    CHECK(CAValueGetType(resolved) == CAValueTypeDictionary && CAValueGetCount(resolved) == 0);
    CARelease(resolved);
    CHECK(CVPixelBufferCreateResolvedAttributesDictionary(NULL, w1, &resolved) == kCVReturnInvalidArgument);
    CHECK_ERROR(QZErrorWrongType);
    CHECK(CVPixelBufferCreateResolvedAttributesDictionary(NULL, NULL, NULL) == kCVReturnInvalidArgument);
    CHECK_ERROR(QZErrorNullArgument);
    CARelease(w1);
    CARelease(w2);
    CARelease(with_a);
    CARelease(with_b);
    CARelease(with_c);
    CARelease(fa);
    for (int i = 0; i < 2; i++) {
        CARelease(d[i]);
        CARelease(formats_a[i]);
    }
}

/* MARK: - Pools */

static CAValueRef pool_buffer_attrs(double w, double h, OSType format) {
    const char *keys[] = { kCVPixelBufferWidthKey, kCVPixelBufferHeightKey, kCVPixelBufferPixelFormatTypeKey };
    double values[] = { w, h, format };
    return number_dict(3, keys, values);
}

static void pools_recycle_buffers(void) {
    CAValueRef battrs = pool_buffer_attrs(64, 32, kCVPixelFormatType_32BGRA);
    CVPixelBufferPoolRef pool = NULL;
    CHECK(CVPixelBufferPoolCreate(NULL, NULL, battrs, &pool) == kCVReturnSuccess);
    CARelease(battrs);
    CHECK(QZGetTypeID(pool) == CVPixelBufferPoolGetTypeID() && !strcmp(QZGetTypeName(pool), "CVPixelBufferPool"));
    CAValueRef pa = CVPixelBufferPoolGetAttributes(pool);
    CHECK(CAValueGetNumber(CAValueGetDictionaryItem(pa, kCVPixelBufferPoolMinimumBufferCountKey)) == 0);
    CHECK(CAValueGetNumber(CAValueGetDictionaryItem(pa, kCVPixelBufferPoolMaximumBufferAgeKey)) == 1);
    CAValueRef ba = CVPixelBufferPoolGetPixelBufferAttributes(pool);
    CHECK(CAValueGetNumber(CAValueGetDictionaryItem(ba, kCVPixelBufferWidthKey)) == 64);
    CHECK(CAValueGetNumber(CAValueGetDictionaryItem(ba, kCVPixelBufferPixelFormatTypeKey)) == kCVPixelFormatType_32BGRA);
    CHECK(CAValueGetNumber(CAValueGetDictionaryItem(ba, kCVPixelBufferBytesPerRowAlignmentKey)) == 16);
    CHECK(QZPixelBufferPoolGetFreeBufferCount(pool) == 0);

    CVPixelBufferRef a = NULL, b = NULL;
    CHECK(CVPixelBufferPoolCreatePixelBuffer(NULL, pool, &a) == kCVReturnSuccess);
    CHECK(CVPixelBufferGetWidth(a) == 64 && CVPixelBufferGetHeight(a) == 32 && CVPixelBufferGetBytesPerRow(a) == 256);
    CHECK(QZPixelBufferPoolGetInUseBufferCount(pool) == 1);
    void *memory = CVPixelBufferGetBaseAddress(a);
    ((uint8_t *)memory)[0] = 99;
    CVPixelBufferRelease(a);
    CHECK(QZPixelBufferPoolGetFreeBufferCount(pool) == 1 && QZPixelBufferPoolGetInUseBufferCount(pool) == 0);
    /* The next buffer reuses the memory (not cleared). */
    CHECK(CVPixelBufferPoolCreatePixelBuffer(NULL, pool, &b) == kCVReturnSuccess);
    CHECK(CVPixelBufferGetBaseAddress(b) == memory && ((uint8_t *)memory)[0] == 99);
    CHECK(QZPixelBufferPoolGetFreeBufferCount(pool) == 0);
    /* A second one at the same time gets new memory. */
    CHECK(CVPixelBufferPoolCreatePixelBuffer(NULL, pool, &a) == kCVReturnSuccess);
    CHECK(CVPixelBufferGetBaseAddress(a) != memory);
    CVPixelBufferRelease(a);
    CVPixelBufferRelease(b);
    CHECK(QZPixelBufferPoolGetFreeBufferCount(pool) == 2);
    /* Flushing with kCVPixelBufferPoolFlushExcessBuffers frees them all. */
    CVPixelBufferPoolFlush(pool, 0);
    CHECK(QZPixelBufferPoolGetFreeBufferCount(pool) == 2);   /* not aged yet */
    CVPixelBufferPoolFlush(pool, kCVPixelBufferPoolFlushExcessBuffers);
    CHECK(QZPixelBufferPoolGetFreeBufferCount(pool) == 0);
    CVPixelBufferPoolFlush(pool, 8);
    CHECK_ERROR(QZErrorInvalidArgument);
    /* Retain/release; NULL-safe. */
    CHECK(CVPixelBufferPoolRetain(pool) == pool);
    CVPixelBufferPoolRelease(pool);
    CHECK(CVPixelBufferPoolRetain(NULL) == NULL);
    CVPixelBufferPoolRelease(NULL);
    /* A buffer outlives its pool. */
    CHECK(CVPixelBufferPoolCreatePixelBuffer(NULL, pool, &a) == kCVReturnSuccess);
    CVPixelBufferPoolRelease(pool);
    ((uint8_t *)CVPixelBufferGetBaseAddress(a))[100] = 1;
    CVPixelBufferRelease(a);
    CHECK_NO_ERROR();
}

static void pools_keep_a_minimum_and_age_out(void) {
    CAValueRef battrs = pool_buffer_attrs(16, 16, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange);
    const char *keys[] = { kCVPixelBufferPoolMinimumBufferCountKey, kCVPixelBufferPoolMaximumBufferAgeKey };
    double values[] = { 2, 0.3 };
    CAValueRef pattrs = number_dict(2, keys, values);
    CVPixelBufferPoolRef pool = NULL;
    CHECK(CVPixelBufferPoolCreate(NULL, pattrs, battrs, &pool) == kCVReturnSuccess);
    CHECK(QZPixelBufferPoolGetFreeBufferCount(pool) == 2);   /* allocated up front */
    CHECK(CAValueGetNumber(CAValueGetDictionaryItem(CVPixelBufferPoolGetAttributes(pool),
                                                     kCVPixelBufferPoolMaximumBufferAgeKey)) == 0.3);
    CVPixelBufferRef bufs[4];
    for (int i = 0; i < 4; i++) CHECK(CVPixelBufferPoolCreatePixelBuffer(NULL, pool, &bufs[i]) == kCVReturnSuccess);
    CHECK(CVPixelBufferIsPlanar(bufs[0]) && CVPixelBufferGetPlaneCount(bufs[0]) == 2);
    CHECK(QZPixelBufferPoolGetFreeBufferCount(pool) == 0 && QZPixelBufferPoolGetInUseBufferCount(pool) == 4);
    for (int i = 0; i < 4; i++) CVPixelBufferRelease(bufs[i]);
    CHECK(QZPixelBufferPoolGetFreeBufferCount(pool) == 4);
    usleep(500 * 1000);
    /* Aged out, but the pool keeps its minimum of 2. */
    CVPixelBufferPoolFlush(pool, 0);
    CHECK(QZPixelBufferPoolGetFreeBufferCount(pool) == 2);
    CVPixelBufferPoolFlush(pool, kCVPixelBufferPoolFlushExcessBuffers);
    CHECK(QZPixelBufferPoolGetFreeBufferCount(pool) == 2);
    /* Ageing also happens when a buffer is taken. */
    for (int i = 0; i < 3; i++) CHECK(CVPixelBufferPoolCreatePixelBuffer(NULL, pool, &bufs[i]) == kCVReturnSuccess);
    for (int i = 0; i < 3; i++) CVPixelBufferRelease(bufs[i]);
    CHECK(QZPixelBufferPoolGetFreeBufferCount(pool) == 3);
    usleep(500 * 1000);
    CHECK(CVPixelBufferPoolCreatePixelBuffer(NULL, pool, &bufs[0]) == kCVReturnSuccess);
    CHECK(QZPixelBufferPoolGetFreeBufferCount(pool) == 1 && QZPixelBufferPoolGetInUseBufferCount(pool) == 1);
    CVPixelBufferRelease(bufs[0]);
    CVPixelBufferPoolRelease(pool);
    CARelease(pattrs);
    CARelease(battrs);
    CHECK_NO_ERROR();
}

static void pool_errors_return_apples_codes(void) {
    CVPixelBufferPoolRef pool = (CVPixelBufferPoolRef)(uintptr_t)0x1;
    CAValueRef good = pool_buffer_attrs(8, 8, kCVPixelFormatType_32BGRA);
    CAValueRef bad_pool[] = {
        dict1(kCVPixelBufferPoolMinimumBufferCountKey, CAValueCreateNumber(-1)),
        dict1(kCVPixelBufferPoolMinimumBufferCountKey, CAValueCreateNumber(2.5)),
        dict1(kCVPixelBufferPoolMinimumBufferCountKey, CAValueCreateString("2")),
        dict1(kCVPixelBufferPoolMinimumBufferCountKey, CAValueCreateNumber(100000)),
        dict1(kCVPixelBufferPoolMaximumBufferAgeKey, CAValueCreateNumber(-1)),
        dict1(kCVPixelBufferPoolMaximumBufferAgeKey, CAValueCreateNumber(NAN)),
        CAValueCreateNumber(1),
    };
    for (size_t i = 0; i < sizeof bad_pool / sizeof bad_pool[0]; i++) {
        CHECK(CVPixelBufferPoolCreate(NULL, bad_pool[i], good, &pool) == kCVReturnInvalidPoolAttributes);
        CHECK_ERROR(QZErrorInvalidArgument);
        CARelease(bad_pool[i]);
    }
    CAValueRef missing_width = dict1(kCVPixelBufferHeightKey, CAValueCreateNumber(8));
    CHECK(CVPixelBufferPoolCreate(NULL, NULL, missing_width, &pool) == kCVReturnInvalidPixelBufferAttributes);
    CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(CVPixelBufferPoolCreate(NULL, NULL, NULL, &pool) == kCVReturnInvalidPixelBufferAttributes);
    CHECK_ERROR(QZErrorInvalidArgument);
    const char *wh[] = { kCVPixelBufferWidthKey, kCVPixelBufferHeightKey };
    double whv[] = { 8, 8 };
    CAValueRef no_format = number_dict(2, wh, whv);
    CHECK(CVPixelBufferPoolCreate(NULL, NULL, no_format, &pool) == kCVReturnInvalidPixelBufferAttributes);
    CHECK_ERROR(QZErrorInvalidArgument);
    CAValueRef zero_width = pool_buffer_attrs(0, 8, kCVPixelFormatType_32BGRA);
    CHECK(CVPixelBufferPoolCreate(NULL, NULL, zero_width, &pool) == kCVReturnInvalidPixelBufferAttributes);
    CHECK_ERROR(QZErrorInvalidArgument);
    CAValueRef unknown_format = pool_buffer_attrs(8, 8, FOURCC('n', 'o', 'p', 'e'));
    CHECK(CVPixelBufferPoolCreate(NULL, NULL, unknown_format, &pool) == kCVReturnInvalidPixelFormat);
    CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(CVPixelBufferPoolCreate(NULL, NULL, good, NULL) == kCVReturnInvalidArgument);
    CHECK_ERROR(QZErrorNullArgument);
    CHECK(pool == (CVPixelBufferPoolRef)(uintptr_t)0x1);
    CVPixelBufferRef pb = NULL;
    CHECK(CVPixelBufferPoolCreatePixelBuffer(NULL, NULL, &pb) == kCVReturnInvalidArgument);
    CHECK_ERROR(QZErrorNullArgument);
    CHECK(CVPixelBufferPoolCreatePixelBuffer(NULL, (CVPixelBufferPoolRef)good, &pb) == kCVReturnInvalidArgument);
    CHECK_ERROR(QZErrorWrongType);
    CHECK(CVPixelBufferPoolGetAttributes(NULL) == NULL);
    CHECK_ERROR(QZErrorNullArgument);
    CHECK(CVPixelBufferPoolGetPixelBufferAttributes((CVPixelBufferPoolRef)good) == NULL);
    CHECK_ERROR(QZErrorWrongType);
    CHECK(CVPixelBufferPoolRetain((CVPixelBufferPoolRef)good) == NULL);
    CHECK_ERROR(QZErrorWrongType);
    CVPixelBufferPoolRelease((CVPixelBufferPoolRef)good);
    CHECK_ERROR(QZErrorWrongType);
    CHECK(QZPixelBufferPoolGetFreeBufferCount(NULL) == 0);
    CHECK_ERROR(QZErrorNullArgument);
    CARelease(good);
    CARelease(missing_width);
    CARelease(no_format);
    CARelease(zero_width);
    CARelease(unknown_format);
    /* Pool buffers carry the pool's attachments. */
    CAValueRef note = dict1("Note", CAValueCreateString("from the pool"));
    const char *keys[] = { kCVPixelBufferWidthKey, kCVPixelBufferHeightKey, kCVPixelBufferPixelFormatTypeKey,
                           kCVBufferNonPropagatedAttachmentsKey };
    CAValueRef vals[] = { CAValueCreateNumber(4), CAValueCreateNumber(4), CAValueCreateNumber(kCVPixelFormatType_32BGRA), note };
    CAValueRef attrs = CAValueCreateDictionary(keys, vals, 4);
    CHECK(CVPixelBufferPoolCreate(NULL, NULL, attrs, &pool) == kCVReturnSuccess);
    CHECK(CVPixelBufferPoolCreatePixelBuffer(NULL, pool, &pb) == kCVReturnSuccess);
    CHECK(!strcmp(CAValueGetString(CVBufferGetAttachment(pb, "Note", NULL)), "from the pool"));
    CVPixelBufferRelease(pb);
    CVPixelBufferPoolRelease(pool);
    for (int i = 0; i < 4; i++) CARelease(vals[i]);
    CARelease(attrs);
    CHECK_NO_ERROR();
}

typedef struct { CVPixelBufferPoolRef pool; int failures; } pool_job;

static void *pool_worker(void *arg) {
    pool_job *job = arg;
    for (int i = 0; i < 500; i++) {
        CVPixelBufferRef pb = NULL;
        if (CVPixelBufferPoolCreatePixelBuffer(NULL, job->pool, &pb) != kCVReturnSuccess) {
            job->failures++;
            continue;
        }
        uint8_t *p = CVPixelBufferGetBaseAddress(pb);
        p[0] = (uint8_t)i;
        CAValueRef v = CAValueCreateNumber(i);
        CVBufferSetAttachment(pb, "i", v, kCVAttachmentMode_ShouldPropagate);
        CARelease(v);
        if (CAValueGetNumber(CVBufferGetAttachment(pb, "i", NULL)) != i) job->failures++;
        CVPixelBufferRelease(pb);
    }
    return NULL;
}

static void pools_from_several_threads(void) {
    CAValueRef battrs = pool_buffer_attrs(32, 32, kCVPixelFormatType_32BGRA);
    CVPixelBufferPoolRef pool = NULL;
    CHECK(CVPixelBufferPoolCreate(NULL, NULL, battrs, &pool) == kCVReturnSuccess);
    CARelease(battrs);
    pthread_t threads[4];
    pool_job jobs[4];
    for (int i = 0; i < 4; i++) {
        jobs[i] = (pool_job){ pool, 0 };
        pthread_create(&threads[i], NULL, pool_worker, &jobs[i]);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(threads[i], NULL);
        CHECK(jobs[i].failures == 0);
    }
    CHECK(QZPixelBufferPoolGetInUseBufferCount(pool) == 0);
    CHECK(QZPixelBufferPoolGetFreeBufferCount(pool) >= 1 && QZPixelBufferPoolGetFreeBufferCount(pool) <= 4);
    CVPixelBufferPoolRelease(pool);
}

/* MARK: - Pixel format descriptions */

static double number_item(CAValueRef d, const char *key) {
    return CAValueGetNumber(CAValueGetDictionaryItem(d, key));
}

static void pixel_format_descriptions(void) {
    CAValueRef bgra = CVPixelFormatDescriptionCreateWithPixelFormatType(NULL, kCVPixelFormatType_32BGRA);
    CHECK(number_item(bgra, kCVPixelFormatConstant) == kCVPixelFormatType_32BGRA);
    CHECK(number_item(bgra, kCVPixelFormatBitsPerBlock) == 32 && number_item(bgra, kCVPixelFormatPlanes) == 1);
    CHECK(!strcmp(CAValueGetString(CAValueGetDictionaryItem(bgra, kCVPixelFormatName)), "32 bit BGRA"));
    CHECK(CAValueGetBool(CAValueGetDictionaryItem(bgra, kCVPixelFormatCGBitmapContextCompatibility)));
    CARelease(bgra);
    CAValueRef nv12 = CVPixelFormatDescriptionCreateWithPixelFormatType(NULL, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange);
    CHECK(number_item(nv12, kCVPixelFormatPlanes) == 2);
    CHECK(number_item(nv12, kCVPixelFormatHorizontalSubsampling) == 2 && number_item(nv12, kCVPixelFormatVerticalSubsampling) == 2);
    CHECK(!strcmp(CAValueGetString(CAValueGetDictionaryItem(nv12, kCVPixelFormatFourCC)), "NV12"));
    CAValueRef planes = CAValueGetDictionaryItem(nv12, kQZPixelFormatPlaneDescriptions);
    CHECK(CAValueGetCount(planes) == 2);
    CHECK(number_item(CAValueGetArrayItem(planes, 0), kCVPixelFormatBitsPerBlock) == 8);
    CHECK(number_item(CAValueGetArrayItem(planes, 1), kCVPixelFormatBitsPerBlock) == 16);
    CHECK(number_item(CAValueGetArrayItem(planes, 1), kCVPixelFormatHorizontalSubsampling) == 2);
    CARelease(nv12);
    CAValueRef v210 = CVPixelFormatDescriptionCreateWithPixelFormatType(NULL, kCVPixelFormatType_422YpCbCr10);
    CHECK(number_item(v210, kCVPixelFormatBlockWidth) == 6 && number_item(v210, kCVPixelFormatBitsPerBlock) == 128);
    CHECK(number_item(v210, kCVPixelFormatBlockHorizontalAlignment) == 8);
    CARelease(v210);
    CAValueRef uyvy = CVPixelFormatDescriptionCreateWithPixelFormatType(NULL, kCVPixelFormatType_422YpCbCr8);
    CHECK(number_item(uyvy, kCVPixelFormatBlockWidth) == 2 && number_item(uyvy, kCVPixelFormatBitsPerBlock) == 32);
    CARelease(uyvy);
    CHECK_NO_ERROR();
    CHECK(CVPixelFormatDescriptionCreateWithPixelFormatType(NULL, FOURCC('n', 'o', 'p', 'e')) == NULL);
    CHECK_ERROR(QZErrorUnknownConstant);
    /* Every listed constant is described. */
    CAValueRef all = CVPixelFormatDescriptionArrayCreateWithAllPixelFormatTypes(NULL);
    CHECK(CAValueGetType(all) == CAValueTypeArray && CAValueGetCount(all) >= 37);
    OSType listed[] = {
        kCVPixelFormatType_1Monochrome, kCVPixelFormatType_2Indexed, kCVPixelFormatType_4Indexed,
        kCVPixelFormatType_8Indexed, kCVPixelFormatType_1IndexedGray_WhiteIsZero, kCVPixelFormatType_2IndexedGray_WhiteIsZero,
        kCVPixelFormatType_4IndexedGray_WhiteIsZero, kCVPixelFormatType_8IndexedGray_WhiteIsZero, kCVPixelFormatType_16BE555,
        kCVPixelFormatType_16LE555, kCVPixelFormatType_16LE5551, kCVPixelFormatType_16BE565, kCVPixelFormatType_16LE565,
        kCVPixelFormatType_24RGB, kCVPixelFormatType_24BGR, kCVPixelFormatType_32ARGB, kCVPixelFormatType_32BGRA,
        kCVPixelFormatType_32ABGR, kCVPixelFormatType_32RGBA, kCVPixelFormatType_64ARGB, kCVPixelFormatType_48RGB,
        kCVPixelFormatType_32AlphaGray, kCVPixelFormatType_16Gray, kCVPixelFormatType_422YpCbCr8,
        kCVPixelFormatType_4444YpCbCrA8, kCVPixelFormatType_4444YpCbCrA8R, kCVPixelFormatType_444YpCbCr8,
        kCVPixelFormatType_422YpCbCr16, kCVPixelFormatType_422YpCbCr10, kCVPixelFormatType_444YpCbCr10,
        kCVPixelFormatType_420YpCbCr8Planar, kCVPixelFormatType_420YpCbCr8PlanarFullRange,
        kCVPixelFormatType_422YpCbCr_4A_8BiPlanar, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange,
        kCVPixelFormatType_420YpCbCr8BiPlanarFullRange, kCVPixelFormatType_422YpCbCr8_yuvs,
        kCVPixelFormatType_422YpCbCr8FullRange,
    };
    for (size_t i = 0; i < sizeof listed / sizeof listed[0]; i++) {
        int found = 0;
        for (size_t j = 0; j < CAValueGetCount(all); j++) {
            CAValueRef d = CAValueGetArrayItem(all, j);
            if (number_item(d, kCVPixelFormatConstant) == listed[i]) {
                found = number_item(d, kCVPixelFormatBitsPerBlock) > 0
                        && CAValueGetType(CAValueGetDictionaryItem(d, kCVPixelFormatName)) == CAValueTypeString;
            }
        }
        CHECK(found);
        /* ... and can be allocated. */
        CVPixelBufferRef pb = NULL;
        CHECK(CVPixelBufferCreate(NULL, 12, 6, listed[i], NULL, &pb) == kCVReturnSuccess);
        CVPixelBufferRelease(pb);
    }
    CARelease(all);
    CHECK_NO_ERROR();
}

/* bool (*)(CVPixelBufferRef, void *refCon) */
typedef struct { int calls; CVPixelBufferRef buffer_seen; void *refcon_seen; int answer; } fill_log;

static void fill_trampoline(ffi_cif *cif, void *ret, void **args, void *user) {
    (void)cif;
    fill_log *log = user;
    log->calls++;
    log->buffer_seen = *(CVPixelBufferRef *)args[0];
    log->refcon_seen = *(void **)args[1];
    /* Re-entrancy: the callback may query its buffer. */
    if (CVPixelBufferGetWidth(log->buffer_seen) != 8) log->answer = 0;
    *(ffi_arg *)ret = (ffi_arg)log->answer;
}

static void custom_pixel_formats(void) {
    OSType custom = FOURCC('Q', 'Z', 'c', '1');
    CVPixelBufferRef pb = NULL;
    CHECK(CVPixelBufferCreate(NULL, 8, 8, custom, NULL, &pb) == kCVReturnInvalidPixelFormat);
    CHECK_ERROR(QZErrorInvalidArgument);
    /* Register a 16-bit chunky format with a fill callback (a libffi closure). */
    fill_log log = { 0, NULL, NULL, 1 };
    closure_t c;
    ffi_type *types[] = { &ffi_type_pointer, &ffi_type_pointer };
    void *code = make_closure(&c, 2, types, &ffi_type_uint8, fill_trampoline, &log);
    CVFillExtendedPixelsCallBackData data = { 0, NULL, &log };
    memcpy(&data.fillCallBack, &code, sizeof data.fillCallBack);
    CAValueRef fill = QZPixelFormatCreateFillExtendedPixelsCallbackValue(&data);
    CHECK(fill != NULL);
    const char *keys[] = { kCVPixelFormatBitsPerBlock, kCVPixelFormatName, kCVPixelFormatFillExtendedPixelsCallback };
    CAValueRef vals[] = { CAValueCreateNumber(16), CAValueCreateString("custom 16"), fill };
    CAValueRef desc = CAValueCreateDictionary(keys, vals, 3);
    CVPixelFormatDescriptionRegisterDescriptionWithPixelFormatType(desc, custom);
    CHECK_NO_ERROR();
    const char *ext[] = { kCVPixelBufferExtendedPixelsLeftKey };
    double ext_values[] = { 2 };
    CAValueRef attrs = number_dict(1, ext, ext_values);
    CHECK(CVPixelBufferCreate(NULL, 8, 8, custom, attrs, &pb) == kCVReturnSuccess);
    CHECK(CVPixelBufferGetBytesPerRow(pb) == 32);   /* 10 pixels * 2 bytes = 20 -> 32 */
    CHECK(CVPixelBufferGetPixelFormatType(pb) == custom);
    CHECK(CVPixelBufferFillExtendedPixels(pb) == kCVReturnSuccess);
    CHECK(log.calls == 1 && log.buffer_seen == pb && log.refcon_seen == &log);
    log.answer = 0;
    CHECK(CVPixelBufferFillExtendedPixels(pb) == kCVReturnError);
    CHECK_ERROR(QZErrorInvalidState);
    CHECK(log.calls == 2);
    /* The description reads back as registered, with its constant. */
    CAValueRef back = CVPixelFormatDescriptionCreateWithPixelFormatType(NULL, custom);
    CHECK(number_item(back, kCVPixelFormatConstant) == custom && number_item(back, kCVPixelFormatBitsPerBlock) == 16);
    CHECK(!strcmp(CAValueGetString(CAValueGetDictionaryItem(back, kCVPixelFormatName)), "custom 16"));
    CARelease(back);
    /* Copies between buffers of the custom format work; decoding does not. */
    CVPixelBufferRef copy = NULL, bgra = make(8, 8, kCVPixelFormatType_32BGRA, NULL);
    CHECK(CVPixelBufferCreate(NULL, 8, 8, custom, NULL, &copy) == kCVReturnSuccess);
    ((uint8_t *)CVPixelBufferGetBaseAddress(pb))[3] = 9;
    CHECK(QZPixelBufferConvert(pb, copy) == kCVReturnSuccess);
    CHECK(((uint8_t *)CVPixelBufferGetBaseAddress(copy))[3] == 9);
    CHECK(QZPixelBufferConvert(pb, bgra) == kCVReturnInvalidPixelFormat);
    CHECK_ERROR(QZErrorInvalidArgument);
    CVPixelBufferRelease(copy);
    CVPixelBufferRelease(bgra);
    CVPixelBufferRelease(pb);
    CARelease(attrs);
    CARelease(desc);
    for (int i = 0; i < 3; i++) CARelease(vals[i]);

    /* A planar custom format, planes given as Apple's array. */
    OSType planar = FOURCC('Q', 'Z', 'p', '2');
    CAValueRef p0 = dict1(kCVPixelFormatBitsPerBlock, CAValueCreateNumber(8));
    const char *pk[] = { kCVPixelFormatBitsPerBlock, kCVPixelFormatHorizontalSubsampling, kCVPixelFormatVerticalSubsampling };
    double pv[] = { 16, 2, 1 };
    CAValueRef p1 = number_dict(3, pk, pv);
    CAValueRef plist[] = { p0, p1 };
    CAValueRef parr = CAValueCreateArray(plist, 2);
    CAValueRef pdesc = dict1(kCVPixelFormatPlanes, CARetain(parr));
    CVPixelFormatDescriptionRegisterDescriptionWithPixelFormatType(pdesc, planar);
    CHECK_NO_ERROR();
    CHECK(CVPixelBufferCreate(NULL, 10, 4, planar, NULL, &pb) == kCVReturnSuccess);
    CHECK(CVPixelBufferGetPlaneCount(pb) == 2 && CVPixelBufferGetWidthOfPlane(pb, 1) == 5);
    CHECK(CVPixelBufferGetHeightOfPlane(pb, 1) == 4 && CVPixelBufferGetBytesPerRowOfPlane(pb, 1) == 16);
    CVPixelBufferRelease(pb);
    CARelease(pdesc);
    CARelease(p0);
    CARelease(p1);
    /* Registration errors register nothing. */
    OSType rejected = FOURCC('Q', 'Z', 'x', 'x');
    CAValueRef no_bits = dict1(kCVPixelFormatName, CAValueCreateString("no bits"));
    CVPixelFormatDescriptionRegisterDescriptionWithPixelFormatType(no_bits, rejected);
    CHECK_ERROR(QZErrorInvalidArgument);
    CAValueRef twelve = dict1(kCVPixelFormatBitsPerBlock, CAValueCreateNumber(12));
    CVPixelFormatDescriptionRegisterDescriptionWithPixelFormatType(twelve, rejected);
    CHECK_ERROR(QZErrorInvalidArgument);
    const char *bf_keys[] = { kCVPixelFormatBitsPerBlock, kCVPixelFormatFillExtendedPixelsCallback };
    double bf_values[] = { 8, 1 };
    CAValueRef bad_fill = number_dict(2, bf_keys, bf_values);   /* a number, not the callback value */
    CVPixelFormatDescriptionRegisterDescriptionWithPixelFormatType(bad_fill, rejected);
    CHECK_ERROR(QZErrorInvalidArgument);
    CVPixelFormatDescriptionRegisterDescriptionWithPixelFormatType(parr, rejected);   /* not a dictionary */
    CHECK_ERROR(QZErrorInvalidArgument);
    CVPixelFormatDescriptionRegisterDescriptionWithPixelFormatType(NULL, rejected);
    CHECK_ERROR(QZErrorNullArgument);
    CVPixelFormatDescriptionRegisterDescriptionWithPixelFormatType(twelve, kCVPixelFormatType_32BGRA);  /* built in */
    CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(CVPixelFormatDescriptionCreateWithPixelFormatType(NULL, rejected) == NULL);
    CHECK_ERROR(QZErrorUnknownConstant);
    CHECK(QZPixelFormatCreateFillExtendedPixelsCallbackValue(NULL) == NULL);
    CHECK_ERROR(QZErrorNullArgument);
    CVFillExtendedPixelsCallBackData versioned = data;
    versioned.version = 1;
    CHECK(QZPixelFormatCreateFillExtendedPixelsCallbackValue(&versioned) == NULL);
    CHECK_ERROR(QZErrorInvalidArgument);
    CARelease(parr);
    CARelease(no_bits);
    CARelease(twelve);
    CARelease(bad_fill);
    ffi_closure_free(c.closure);
}

/* MARK: - Conversions against a scalar reference */

static void reference_rgb(double kr, double kb, int full, int y, int cb, int cr, int out[3]) {
    double kg = 1 - kr - kb;
    double yy = full ? y : (y - 16) * 255.0 / 219.0;
    double s = full ? 1.0 : 255.0 / 224.0;
    double u = (cb - 128) * s, v = (cr - 128) * s;
    double rgb[3] = { yy + 2 * (1 - kr) * v, yy - 2 * (1 - kb) * kb / kg * u - 2 * (1 - kr) * kr / kg * v,
                      yy + 2 * (1 - kb) * u };
    for (int i = 0; i < 3; i++) {
        double c = rgb[i] < 0 ? 0 : rgb[i] > 255 ? 255 : rgb[i];
        out[i] = (int)floor(c + 0.5);
    }
}

static uint32_t rng_state = 2024;
static uint8_t rnd(void) {
    rng_state = rng_state * 1103515245u + 12345u;
    return (uint8_t)(rng_state >> 16);
}

/* Every pixel of random '420v'/'420f' frames, for the three matrices, odd
 * sizes included (the last pixels go through the tail path). */
static void ycbcr_420_matches_the_scalar_reference(void) {
    const char *matrices[] = { NULL, kCVImageBufferYCbCrMatrix_ITU_R_601_4, kCVImageBufferYCbCrMatrix_ITU_R_709_2,
                               kCVImageBufferYCbCrMatrix_SMPTE_240M_1995 };
    const double kr[] = { 0.299, 0.299, 0.2126, 0.212 }, kb[] = { 0.114, 0.114, 0.0722, 0.087 };
    const size_t sizes[][2] = { { 64, 8 }, { 37, 5 }, { 1, 1 }, { 15, 3 } };
    int worst = 0;
    for (int full = 0; full < 2; full++) {
        for (int m = 0; m < 4; m++) {
            for (size_t s = 0; s < 4; s++) {
                size_t w = sizes[s][0], h = sizes[s][1];
                CVPixelBufferRef src = make(w, h, full ? kCVPixelFormatType_420YpCbCr8BiPlanarFullRange
                                                       : kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, NULL);
                CVPixelBufferRef dst = make(w, h, kCVPixelFormatType_32BGRA, NULL);
                if (matrices[m]) {
                    CAValueRef mv = CAValueCreateString(matrices[m]);
                    CVBufferSetAttachment(src, kCVImageBufferYCbCrMatrixKey, mv, kCVAttachmentMode_ShouldPropagate);
                    CARelease(mv);
                }
                uint8_t *yp = CVPixelBufferGetBaseAddressOfPlane(src, 0), *cp = CVPixelBufferGetBaseAddressOfPlane(src, 1);
                size_t ys = CVPixelBufferGetBytesPerRowOfPlane(src, 0), cs = CVPixelBufferGetBytesPerRowOfPlane(src, 1);
                for (size_t y = 0; y < h; y++) for (size_t x = 0; x < w; x++) yp[y * ys + x] = rnd();
                for (size_t y = 0; y < (h + 1) / 2; y++) for (size_t x = 0; x < 2 * ((w + 1) / 2); x++) cp[y * cs + x] = rnd();
                /* Extremes in the first pixels: black, white, saturated chroma. */
                yp[0] = 0; cp[0] = 0; cp[1] = 255;
                if (w > 2) { yp[2] = 255; cp[2] = 255; cp[3] = 0; }
                CHECK(QZPixelBufferConvert(src, dst) == kCVReturnSuccess);
                uint8_t *d = CVPixelBufferGetBaseAddress(dst);
                size_t ds = CVPixelBufferGetBytesPerRow(dst);
                for (size_t y = 0; y < h; y++) {
                    for (size_t x = 0; x < w; x++) {
                        int ref[3];
                        const uint8_t *c = cp + (y / 2) * cs + (x / 2) * 2;
                        reference_rgb(kr[m], kb[m], full, yp[y * ys + x], c[0], c[1], ref);
                        const uint8_t *p = d + y * ds + 4 * x;
                        int dr = abs(p[2] - ref[0]), dg = abs(p[1] - ref[1]), db = abs(p[0] - ref[2]);
                        int worst_here = dr > dg ? (dr > db ? dr : db) : (dg > db ? dg : db);
                        if (worst_here > worst) worst = worst_here;
                        if (p[3] != 255) worst = 99;
                    }
                }
                CVPixelBufferRelease(src);
                CVPixelBufferRelease(dst);
            }
        }
    }
    CHECK(worst <= 1);
    /* Hand-computed points: video-range white, black and mid grey. */
    CVPixelBufferRef src = make(2, 2, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, NULL);
    CVPixelBufferRef dst = make(2, 2, kCVPixelFormatType_32BGRA, NULL);
    uint8_t *yp = CVPixelBufferGetBaseAddressOfPlane(src, 0), *cp = CVPixelBufferGetBaseAddressOfPlane(src, 1);
    size_t ys = CVPixelBufferGetBytesPerRowOfPlane(src, 0);
    yp[0] = 235; yp[1] = 16; yp[ys] = 126; yp[ys + 1] = 255;
    cp[0] = 128; cp[1] = 128;
    CHECK(QZPixelBufferConvert(src, dst) == kCVReturnSuccess);
    uint32_t *px = CVPixelBufferGetBaseAddress(dst);
    size_t stride = CVPixelBufferGetBytesPerRow(dst) / 4;
    CHECK(px[0] == 0xFFFFFFFFu);               /* (235 - 16) * 255 / 219 = 255 */
    CHECK(px[1] == 0xFF000000u);               /* 16: black */
    CHECK(px[stride] == 0xFF808080u);          /* (126 - 16) * 255 / 219 = 128.08 -> 128 */
    CHECK(px[stride + 1] == 0xFFFFFFFFu);      /* above white clamps */
    CVPixelBufferRelease(src);
    CVPixelBufferRelease(dst);
}

static void rgb_conversions_reorder_bytes(void) {
    CVPixelBufferRef bgra = make(9, 2, kCVPixelFormatType_32BGRA, NULL);
    uint8_t *p = CVPixelBufferGetBaseAddress(bgra);
    for (int x = 0; x < 9; x++) { p[4 * x] = 10; p[4 * x + 1] = 20; p[4 * x + 2] = 30; p[4 * x + 3] = 40; }
    struct { OSType format; uint8_t bytes[8]; size_t size; } cases[] = {
        { kCVPixelFormatType_32ARGB, { 40, 30, 20, 10 }, 4 },
        { kCVPixelFormatType_32RGBA, { 30, 20, 10, 40 }, 4 },
        { kCVPixelFormatType_32ABGR, { 40, 10, 20, 30 }, 4 },
        { kCVPixelFormatType_24RGB, { 30, 20, 10 }, 3 },
        { kCVPixelFormatType_24BGR, { 10, 20, 30 }, 3 },
        { kCVPixelFormatType_64ARGB, { 40, 40, 30, 30, 20, 20, 10, 10 }, 8 },  /* v * 257, big-endian */
        { kCVPixelFormatType_48RGB, { 30, 30, 20, 20, 10, 10 }, 6 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CVPixelBufferRef out = NULL;
        CHECK(QZPixelBufferCreateConverted(bgra, cases[i].format, &out) == kCVReturnSuccess);
        CHECK(CVPixelBufferGetPixelFormatType(out) == cases[i].format);
        uint8_t *o = CVPixelBufferGetBaseAddress(out);
        CHECK(memcmp(o, cases[i].bytes, cases[i].size) == 0);
        CHECK(memcmp(o + 8 * cases[i].size, cases[i].bytes, cases[i].size) == 0);   /* the tail pixel too */
        /* ... and back: formats with alpha round-trip exactly; 24-bit ones come back opaque. */
        CVPixelBufferRef back = make(9, 2, kCVPixelFormatType_32BGRA, NULL);
        CHECK(QZPixelBufferConvert(out, back) == kCVReturnSuccess);
        uint8_t *b = CVPixelBufferGetBaseAddress(back);
        int alpha = cases[i].format == kCVPixelFormatType_24RGB || cases[i].format == kCVPixelFormatType_24BGR
                    || cases[i].format == kCVPixelFormatType_48RGB ? 255 : 40;
        CHECK(b[0] == 10 && b[1] == 20 && b[2] == 30 && b[3] == alpha);
        CHECK(b[32] == 10 && b[35] == alpha);
        CVPixelBufferRelease(back);
        CVPixelBufferRelease(out);
    }
    /* Gray: Rec. 601 luma of (R 30, G 20, B 10) = 8.97 + 11.74 + 1.14 = 21.85 -> 22
     * (x 257, big-endian, in 16Gray). */
    CVPixelBufferRef gray = NULL;
    CHECK(QZPixelBufferCreateConverted(bgra, kCVPixelFormatType_16Gray, &gray) == kCVReturnSuccess);
    uint8_t *g = CVPixelBufferGetBaseAddress(gray);
    CHECK(g[0] == 22 && g[1] == 22);
    CVPixelBufferRelease(gray);
    CHECK(QZPixelBufferCreateConverted(bgra, kCVPixelFormatType_8IndexedGray_WhiteIsZero, &gray) == kCVReturnSuccess);
    CHECK(((uint8_t *)CVPixelBufferGetBaseAddress(gray))[0] == 255 - 22);
    CVPixelBufferRelease(gray);
    /* 1-bit gray, white is zero: 0b10110000 reads black, white, black, black, then white. */
    CVPixelBufferRef bits = make(8, 1, kCVPixelFormatType_1IndexedGray_WhiteIsZero, NULL);
    ((uint8_t *)CVPixelBufferGetBaseAddress(bits))[0] = 0xB0;
    CVPixelBufferRef wide = NULL;
    CHECK(QZPixelBufferCreateConverted(bits, kCVPixelFormatType_32BGRA, &wide) == kCVReturnSuccess);
    uint32_t *w = CVPixelBufferGetBaseAddress(wide);
    CHECK(w[0] == 0xFF000000u && w[1] == 0xFFFFFFFFu && w[2] == 0xFF000000u && w[3] == 0xFF000000u && w[4] == 0xFFFFFFFFu);
    CVPixelBufferRelease(wide);
    CVPixelBufferRelease(bits);
    /* Errors. */
    CVPixelBufferRef small = make(3, 3, kCVPixelFormatType_32BGRA, NULL);
    CHECK(QZPixelBufferConvert(bgra, small) == kCVReturnInvalidSize);
    CHECK_ERROR(QZErrorInvalidArgument);
    CVPixelBufferRef v210 = make(9, 2, kCVPixelFormatType_422YpCbCr10, NULL);
    CHECK(QZPixelBufferConvert(v210, bgra) == kCVReturnInvalidPixelFormat);   /* described, not decoded */
    CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(QZPixelBufferConvert(bgra, v210) == kCVReturnInvalidPixelFormat);   /* no encoder */
    CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(QZPixelBufferConvert(NULL, bgra) == kCVReturnInvalidArgument);
    CHECK_ERROR(QZErrorNullArgument);
    CHECK(QZPixelBufferCreateConverted(bgra, FOURCC('n', 'o', 'p', 'e'), &gray) == kCVReturnInvalidPixelFormat);
    CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(QZPixelBufferCreateConverted(bgra, kCVPixelFormatType_32ARGB, NULL) == kCVReturnInvalidArgument);
    CHECK_ERROR(QZErrorNullArgument);
    /* Conversion bumps the destination's seed. */
    uint32_t seed = QZPixelBufferGetSeed(small);
    CVPixelBufferRef small2 = make(3, 3, kCVPixelFormatType_32ARGB, NULL);
    CHECK(QZPixelBufferConvert(small2, small) == kCVReturnSuccess);
    CHECK(QZPixelBufferGetSeed(small) != seed);
    CVPixelBufferRelease(small2);
    CVPixelBufferRelease(v210);
    CVPixelBufferRelease(small);
    CVPixelBufferRelease(bgra);
    CHECK_NO_ERROR();
}

/* MARK: - PNG */

static void png_round_trip(void) {
    char path[] = "/tmp/qz_test_video_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    CVPixelBufferRef pb = make(3, 2, kCVPixelFormatType_32BGRA, NULL);
    uint8_t *p = CVPixelBufferGetBaseAddress(pb);
    size_t bpr = CVPixelBufferGetBytesPerRow(pb);
    /* Premultiplied: (B 10, G 20, R 30, A 128), opaque red, transparent. */
    const uint8_t px[6][4] = { { 10, 20, 30, 128 }, { 0, 0, 255, 255 }, { 0, 0, 0, 0 },
                               { 255, 255, 255, 255 }, { 1, 2, 3, 4 }, { 50, 60, 70, 200 } };
    for (int i = 0; i < 6; i++) memcpy(p + (i / 3) * bpr + (i % 3) * 4, px[i], 4);
    CHECK(QZPixelBufferWritePNG(pb, path) == kCVReturnSuccess);
    CVPixelBufferRef back = NULL;
    CHECK(QZPixelBufferCreateWithPNGFile(path, &back) == kCVReturnSuccess);
    CHECK(CVPixelBufferGetWidth(back) == 3 && CVPixelBufferGetHeight(back) == 2);
    CHECK(CVPixelBufferGetPixelFormatType(back) == kCVPixelFormatType_32BGRA);
    uint8_t *q = CVPixelBufferGetBaseAddress(back);
    size_t qbpr = CVPixelBufferGetBytesPerRow(back);
    int worst = 0;
    for (int i = 0; i < 6; i++) {
        const uint8_t *got = q + (i / 3) * qbpr + (i % 3) * 4;
        CHECK(got[3] == px[i][3]);
        for (int c = 0; c < 3; c++) {
            int d = abs(got[c] - px[i][c]);
            if (d > worst) worst = d;
        }
    }
    CHECK(worst <= 1);   /* premultiplied -> straight -> premultiplied */
    CVPixelBufferRelease(back);
    /* An opaque Y'CbCr buffer is written (converted first) and read back as BGRA. */
    CVPixelBufferRef yuv = make(4, 2, kCVPixelFormatType_420YpCbCr8BiPlanarFullRange, NULL);
    memset(CVPixelBufferGetBaseAddressOfPlane(yuv, 0), 200, 4);
    memset(CVPixelBufferGetBaseAddressOfPlane(yuv, 1), 128, 4);
    CHECK(QZPixelBufferWritePNG(yuv, path) == kCVReturnSuccess);
    CHECK(QZPixelBufferCreateWithPNGFile(path, &back) == kCVReturnSuccess);
    CHECK(((uint32_t *)CVPixelBufferGetBaseAddress(back))[0] == 0xFFC8C8C8u);
    CVPixelBufferRelease(back);
    CVPixelBufferRelease(yuv);
    /* Errors. */
    CHECK(QZPixelBufferCreateWithPNGFile("/nonexistent/dir/file.png", &back) == kCVReturnError);
    CHECK_ERROR(QZErrorInvalidArgument);
    FILE *f = fopen(path, "wb");
    fputs("not a png at all", f);
    fclose(f);
    CHECK(QZPixelBufferCreateWithPNGFile(path, &back) == kCVReturnError);
    CHECK(strstr(QZGetLastErrorMessage(), "is not a PNG file") != NULL);
    CHECK_ERROR(QZErrorInvalidArgument);
    /* A truncated PNG: the signature and part of a header. */
    f = fopen(path, "wb");
    fwrite("\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0", 1, 18, f);
    fclose(f);
    CHECK(QZPixelBufferCreateWithPNGFile(path, &back) == kCVReturnError);
    CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(QZPixelBufferWritePNG(pb, "/nonexistent/dir/out.png") == kCVReturnError);
    CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(QZPixelBufferCreateWithPNGFile(NULL, &back) == kCVReturnInvalidArgument);
    CHECK_ERROR(QZErrorNullArgument);
    CHECK(QZPixelBufferCreateWithPNGFile(path, NULL) == kCVReturnInvalidArgument);
    CHECK_ERROR(QZErrorNullArgument);
    CHECK(QZPixelBufferWritePNG(NULL, path) == kCVReturnInvalidArgument);
    CHECK_ERROR(QZErrorNullArgument);
    CHECK(QZPixelBufferWritePNG(pb, NULL) == kCVReturnInvalidArgument);
    CHECK_ERROR(QZErrorNullArgument);
    CVPixelBufferRef v210 = make(6, 1, kCVPixelFormatType_422YpCbCr10, NULL);
    CHECK(QZPixelBufferWritePNG(v210, path) == kCVReturnInvalidPixelFormat);
    CHECK_ERROR(QZErrorInvalidArgument);
    CVPixelBufferRelease(v210);
    CVPixelBufferRelease(pb);
    unlink(path);
}

/* MARK: - Host time and bad handles */

static void host_time(void) {
    uint64_t a = CVGetCurrentHostTime();
    struct timespec ts = { 0, 2000000 };
    nanosleep(&ts, NULL);
    uint64_t b = CVGetCurrentHostTime();
    CHECK(b > a && b - a >= 2000000);
    CHECK(CVGetHostClockFrequency() == 1e9 && CVGetHostClockMinimumTimeDelta() == 1);
}

static void bad_handles_never_crash(void) {
    CAValueRef v = CAValueCreateNumber(1);
    void *handles[] = { NULL, (void *)v };
    QZError codes[] = { QZErrorNullArgument, QZErrorWrongType };
    for (int i = 0; i < 2; i++) {
        CVPixelBufferRef pb = handles[i];
        CHECK(CVPixelBufferGetBaseAddress(pb) == NULL); CHECK_ERROR(codes[i]);
        CHECK(CVPixelBufferGetBaseAddressOfPlane(pb, 0) == NULL); CHECK_ERROR(codes[i]);
        CHECK(CVPixelBufferGetBytesPerRow(pb) == 0); CHECK_ERROR(codes[i]);
        CHECK(CVPixelBufferGetBytesPerRowOfPlane(pb, 0) == 0); CHECK_ERROR(codes[i]);
        CHECK(CVPixelBufferGetDataSize(pb) == 0); CHECK_ERROR(codes[i]);
        size_t l = 5, r = 5, t = 5, b = 5;
        CVPixelBufferGetExtendedPixels(pb, &l, &r, &t, &b); CHECK_ERROR(codes[i]);
        CHECK(l == 0 && r == 0 && t == 0 && b == 0);
        CHECK(CVPixelBufferGetWidth(pb) == 0); CHECK_ERROR(codes[i]);
        CHECK(CVPixelBufferGetHeight(pb) == 0); CHECK_ERROR(codes[i]);
        CHECK(CVPixelBufferGetWidthOfPlane(pb, 0) == 0); CHECK_ERROR(codes[i]);
        CHECK(CVPixelBufferGetHeightOfPlane(pb, 0) == 0); CHECK_ERROR(codes[i]);
        CHECK(CVPixelBufferGetPixelFormatType(pb) == 0); CHECK_ERROR(codes[i]);
        CHECK(CVPixelBufferGetPlaneCount(pb) == 0); CHECK_ERROR(codes[i]);
        CHECK(!CVPixelBufferIsPlanar(pb)); CHECK_ERROR(codes[i]);
        CHECK(CVPixelBufferFillExtendedPixels(pb) == kCVReturnInvalidArgument); CHECK_ERROR(codes[i]);
        CHECK(QZPixelBufferGetSeed(pb) == 0); CHECK_ERROR(codes[i]);
        CHECK(QZPixelBufferGetLockCount(pb, 0) == 0); CHECK_ERROR(codes[i]);
        CHECK(QZPixelBufferWritePNG(pb, "/tmp/x.png") == kCVReturnInvalidArgument); CHECK_ERROR(codes[i]);
        CHECK(CVBufferGetAttachments(pb, 0) == NULL); CHECK_ERROR(codes[i]);
        CHECK(CVBufferCopyAttachments(pb, 0) == NULL); CHECK_ERROR(codes[i]);
        CHECK(CVBufferCopyAttachment(pb, "k", NULL) == NULL); CHECK_ERROR(codes[i]);
        CVBufferSetAttachment(pb, "k", v, 0); CHECK_ERROR(codes[i]);
        CVBufferSetAttachments(pb, v, 0); CHECK_ERROR(codes[i]);
        CVBufferRemoveAttachment(pb, "k"); CHECK_ERROR(codes[i]);
        CVBufferPropagateAttachments(pb, pb); CHECK_ERROR(codes[i]);
        CHECK(CVPixelBufferPoolGetAttributes(handles[i]) == NULL); CHECK_ERROR(codes[i]);
        CVPixelBufferPoolFlush(handles[i], 0); CHECK_ERROR(codes[i]);
        CHECK(QZPixelBufferPoolGetInUseBufferCount(handles[i]) == 0); CHECK_ERROR(codes[i]);
    }
    /* Wrong-typed handles with retain and release. */
    CHECK(CVPixelBufferRetain((CVPixelBufferRef)v) == NULL); CHECK_ERROR(QZErrorWrongType);
    CVPixelBufferRelease((CVPixelBufferRef)v); CHECK_ERROR(QZErrorWrongType);
    CHECK(CVBufferRetain((CVBufferRef)v) == NULL); CHECK_ERROR(QZErrorWrongType);
    CVBufferRelease((CVBufferRef)v); CHECK_ERROR(QZErrorWrongType);
    CHECK(CAValueGetNumber(v) == 1);   /* still alive: nothing was released */
    /* A layer refuses other objects as contents. */
    CALayerRef layer = CALayerCreate();
    CALayerSetContents(layer, (CVPixelBufferRef)v);
    CHECK_ERROR(QZErrorWrongType);
    CHECK(CALayerGetContents(layer) == NULL);
    CALayerSetValueForKey(layer, "contents", v);
    CHECK(QZGetLastError() != QZErrorNone);
    QZClearLastError();
    CHECK(CALayerGetContents(layer) == NULL);
    CARelease(layer);
    CHECK(QZGetTypeID(NULL) == 0 && QZGetTypeID(v) != CVPixelBufferGetTypeID());
    CHECK_NO_ERROR();
    CARelease(v);
}

int main(void) {
    RUN(cvreturn_codes_have_apples_values);
    RUN(time_structs_have_apples_layouts);
    RUN(pixel_formats_are_big_endian_fourccs);
    RUN(keys_have_apples_string_values);
    RUN(bgra_buffer_defaults);
    RUN(layout_420v_1080p_with_64_byte_alignment);
    RUN(layouts_of_odd_sizes_and_block_formats);
    RUN(extended_pixels_are_allocated_and_filled);
    RUN(creation_errors_return_apples_codes);
    RUN(memory_limit_fails_allocations);
    RUN(lock_and_unlock_balance_with_matching_flags);
    RUN(locks_from_several_threads);
    RUN(attachments_with_propagation_modes);
    RUN(attachments_from_creation_attributes);
    RUN(attachments_from_several_threads);
    RUN(clean_aperture_and_display_size);
    RUN(create_with_bytes_calls_release_exactly_once);
    RUN(create_with_planar_bytes_calls_its_release_once);
    RUN(resolved_attributes_merge_clients);
    RUN(pools_recycle_buffers);
    RUN(pools_keep_a_minimum_and_age_out);
    RUN(pool_errors_return_apples_codes);
    RUN(pools_from_several_threads);
    RUN(pixel_format_descriptions);
    RUN(custom_pixel_formats);
    RUN(ycbcr_420_matches_the_scalar_reference);
    RUN(rgb_conversions_reorder_bytes);
    RUN(png_round_trip);
    RUN(host_time);
    RUN(bad_handles_never_crash);
    return qz_summary();
}
