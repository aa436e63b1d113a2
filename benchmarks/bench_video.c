/*
 * bench_video.c — Core Video through libquartzite.so vs plain C, same run.
 *
 * What is measured (library side: the C ABI, ordinary calls through the PLT):
 *   convert  1920x1080 '420v' (video range, ITU-R 601) → 32BGRA with
 *            QZPixelBufferConvert (Swift SIMD, one thread), against a
 *            libyuv-style plain C converter in this file: libyuv's C row
 *            function NV12ToARGBRow_C (row_common.cc: YuvPixel with 6-bit
 *            fixed-point BT.601 constants, the portable path libyuv uses
 *            when it has no SIMD for a CPU), compiled with the same flags,
 *            writing the same BGRA byte order. Reported as Gpixel/s for both
 *            and the time ratio library / reference (target: >= 1 Gpixel/s,
 *            ratio <= 1.5).
 *   y420 / 2vuy / 709  the same size from 'y420' and '2vuy' sources and with
 *            the ITU-R 709 matrix (library only: Gpixel/s).
 *   pool     one CVPixelBufferPoolCreatePixelBuffer + CVPixelBufferRelease of
 *            a 1920x1080 32BGRA buffer (8 MB) from a pool (the memory is
 *            recycled), against malloc + free of the same 8,294,400 bytes in
 *            C, and against CVPixelBufferCreate + CVPixelBufferRelease
 *            without a pool. Each buffer's first and last bytes are
 *            written, on both sides, so nothing can be optimised away.
 *
 * Before timing, the program checks that the library and the reference
 * agree on the converted frame (within 3 per channel: the reference
 * rounds its 6-bit fixed point differently) and that the library's result
 * matches the exact Double formula within 1 on sampled pixels.
 * Every round runs every kernel once (interleaved), best round kept
 * (CLOCK_MONOTONIC).
 *
 * Usage: bench_video [--reps R]   (default 9)
 * Exit status 1 when the sides disagree or the library records an error.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <quartzite/quartzite.h>

enum { W = 1920, H = 1080 };

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* MARK: - The reference: libyuv's portable C path (row_common.cc) */

/* BT.601 video range, libyuv's kYuvI601Constants in 6-bit fixed point. */
#define YG 18997  /* round(1.164 * 64 * 256 * 256 / 257) */
#define YGB -1160 /* 1.164 * 64 * -16 + 64 / 2 */
#define UB -128   /* max(-128, round(-2.018 * 64)) */
#define UG 25     /* round(0.391 * 64) */
#define VG 52     /* round(0.813 * 64) */
#define VR -102   /* round(-1.596 * 64) */
#define BB (UB * 128 + YGB)
#define BG (UG * 128 + VG * 128 + YGB)
#define BR (VR * 128 + YGB)

static inline int32_t clamp0(int32_t v) { return (-(v >= 0)) & v; }
static inline int32_t clamp255(int32_t v) { return (((255 - v) >> 31) | v) & 255; }
static inline uint8_t clamp8(int32_t v) { return (uint8_t)clamp255(clamp0(v)); }

static inline void yuv_pixel(uint8_t y, uint8_t u, uint8_t v, uint8_t *b, uint8_t *g, uint8_t *r) {
    uint32_t y1 = (uint32_t)(y * 0x0101 * YG) >> 16;
    *b = clamp8((int32_t)(-(u * UB) + y1 + BB) >> 6);
    *g = clamp8((int32_t)(-(u * UG + v * VG) + y1 + BG) >> 6);
    *r = clamp8((int32_t)(-(v * VR) + y1 + BR) >> 6);
}

/* NV12ToARGBRow_C: libyuv's "ARGB" is B, G, R, A in memory (our BGRA). */
static void nv12_to_bgra_row(const uint8_t *src_y, const uint8_t *src_uv, uint8_t *dst, int width) {
    int x;
    for (x = 0; x < width - 1; x += 2) {
        yuv_pixel(src_y[0], src_uv[0], src_uv[1], dst + 0, dst + 1, dst + 2);
        dst[3] = 255;
        yuv_pixel(src_y[1], src_uv[0], src_uv[1], dst + 4, dst + 5, dst + 6);
        dst[7] = 255;
        src_y += 2;
        src_uv += 2;
        dst += 8;
    }
    if (width & 1) {
        yuv_pixel(src_y[0], src_uv[0], src_uv[1], dst + 0, dst + 1, dst + 2);
        dst[3] = 255;
    }
}

__attribute__((noinline)) static void reference_convert(const uint8_t *y, size_t y_stride, const uint8_t *uv,
                                                        size_t uv_stride, uint8_t *dst, size_t dst_stride) {
    for (int row = 0; row < H; row++)
        nv12_to_bgra_row(y + row * y_stride, uv + (row / 2) * uv_stride, dst + row * dst_stride, W);
}

/* The exact formula, for the correctness check. */
static void exact_601(int y, int cb, int cr, int out[3]) {
    double kr = 0.299, kb = 0.114, kg = 1 - kr - kb;
    double yy = (y - 16) * 255.0 / 219.0, u = (cb - 128) * 255.0 / 224.0, v = (cr - 128) * 255.0 / 224.0;
    double rgb[3] = { yy + 2 * (1 - kr) * v, yy - 2 * (1 - kb) * kb / kg * u - 2 * (1 - kr) * kr / kg * v,
                      yy + 2 * (1 - kb) * u };
    for (int i = 0; i < 3; i++) out[i] = (int)lround(fmin(255, fmax(0, rgb[i])));
}

/* MARK: - Helpers */

static uint32_t rng = 12345;
static uint8_t next_byte(void) {
    rng = rng * 1664525u + 1013904223u;
    return (uint8_t)(rng >> 24);
}

static int check(CVReturn r, const char *what) {
    if (r != kCVReturnSuccess || QZGetLastError() != QZErrorNone) {
        fprintf(stderr, "bench_video: %s failed: %d (%s)\n", what, (int)r, QZGetLastErrorMessage());
        exit(1);
    }
    return 0;
}

static CVPixelBufferRef make(OSType format) {
    CVPixelBufferRef pb = NULL;
    check(CVPixelBufferCreate(NULL, W, H, format, NULL, &pb), "CVPixelBufferCreate");
    return pb;
}

static void fill_random(CVPixelBufferRef pb) {
    size_t planes = CVPixelBufferGetPlaneCount(pb);
    for (size_t p = 0; p < (planes ? planes : 1); p++) {
        uint8_t *base = planes ? CVPixelBufferGetBaseAddressOfPlane(pb, p) : CVPixelBufferGetBaseAddress(pb);
        size_t bpr = planes ? CVPixelBufferGetBytesPerRowOfPlane(pb, p) : CVPixelBufferGetBytesPerRow(pb);
        size_t rows = planes ? CVPixelBufferGetHeightOfPlane(pb, p) : CVPixelBufferGetHeight(pb);
        for (size_t i = 0; i < bpr * rows; i++) base[i] = next_byte();
    }
}

int main(int argc, char **argv) {
    int reps = 9;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    }
    if (reps < 1) reps = 1;

    CVPixelBufferRef nv12 = make(kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange);
    CVPixelBufferRef y420 = make(kCVPixelFormatType_420YpCbCr8Planar);
    CVPixelBufferRef uyvy = make(kCVPixelFormatType_422YpCbCr8);
    CVPixelBufferRef nv12_709 = make(kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange);
    CVPixelBufferRef bgra = make(kCVPixelFormatType_32BGRA);
    fill_random(nv12);
    fill_random(y420);
    fill_random(uyvy);
    fill_random(nv12_709);
    CAValueRef m709 = CAValueCreateString(kCVImageBufferYCbCrMatrix_ITU_R_709_2);
    CVBufferSetAttachment(nv12_709, kCVImageBufferYCbCrMatrixKey, m709, kCVAttachmentMode_ShouldPropagate);
    CARelease(m709);

    const uint8_t *ysrc = CVPixelBufferGetBaseAddressOfPlane(nv12, 0);
    const uint8_t *uvsrc = CVPixelBufferGetBaseAddressOfPlane(nv12, 1);
    size_t ystride = CVPixelBufferGetBytesPerRowOfPlane(nv12, 0), uvstride = CVPixelBufferGetBytesPerRowOfPlane(nv12, 1);
    size_t ref_stride = (size_t)W * 4;
    uint8_t *ref_out = aligned_alloc(64, ref_stride * H);

    /* Agreement before timing. */
    QZClearLastError();
    check(QZPixelBufferConvert(nv12, bgra), "QZPixelBufferConvert");
    reference_convert(ysrc, ystride, uvsrc, uvstride, ref_out, ref_stride);
    const uint8_t *lib_out = CVPixelBufferGetBaseAddress(bgra);
    size_t lib_stride = CVPixelBufferGetBytesPerRow(bgra);
    int max_ref = 0, max_exact = 0;
    for (int row = 0; row < H; row++) {
        for (int x = 0; x < W; x++) {
            const uint8_t *l = lib_out + row * lib_stride + 4 * x, *r = ref_out + row * ref_stride + 4 * x;
            for (int c = 0; c < 4; c++) {
                int d = abs(l[c] - r[c]);
                if (d > max_ref) max_ref = d;
            }
            if ((row * W + x) % 7 == 0) {
                int e[3];
                exact_601(ysrc[row * ystride + x], uvsrc[(row / 2) * uvstride + (x / 2) * 2],
                          uvsrc[(row / 2) * uvstride + (x / 2) * 2 + 1], e);
                int got[3] = { l[2], l[1], l[0] };
                for (int c = 0; c < 3; c++) {
                    int d = abs(got[c] - e[c]);
                    if (d > max_exact) max_exact = d;
                }
            }
        }
    }
    printf("check: library vs libyuv-style C max difference %d per channel (allowed 3); "
           "library vs exact formula %d (allowed 1)\n", max_ref, max_exact);
    if (max_ref > 3 || max_exact > 1) {
        fprintf(stderr, "bench_video: the library and the reference disagree\n");
        return 1;
    }

    /* Pools. */
    CAValueRef keys_values[3];
    const char *keys[3] = { kCVPixelBufferWidthKey, kCVPixelBufferHeightKey, kCVPixelBufferPixelFormatTypeKey };
    keys_values[0] = CAValueCreateNumber(W);
    keys_values[1] = CAValueCreateNumber(H);
    keys_values[2] = CAValueCreateNumber(kCVPixelFormatType_32BGRA);
    CAValueRef attrs = CAValueCreateDictionary(keys, keys_values, 3);
    for (int i = 0; i < 3; i++) CARelease(keys_values[i]);
    CVPixelBufferPoolRef pool = NULL;
    check(CVPixelBufferPoolCreate(NULL, NULL, attrs, &pool), "CVPixelBufferPoolCreate");
    CARelease(attrs);
    size_t frame_bytes = (size_t)W * H * 4;

    enum { POOL_OPS = 20000, CREATE_OPS = 400 };
    double best[8];
    for (int i = 0; i < 8; i++) best[i] = INFINITY;
    volatile uint64_t sink = 0;
    for (int round = 0; round < reps; round++) {
        double t0 = now_ns();
        QZPixelBufferConvert(nv12, bgra);
        double t1 = now_ns();
        reference_convert(ysrc, ystride, uvsrc, uvstride, ref_out, ref_stride);
        double t2 = now_ns();
        QZPixelBufferConvert(y420, bgra);
        double t3 = now_ns();
        QZPixelBufferConvert(uyvy, bgra);
        double t4 = now_ns();
        QZPixelBufferConvert(nv12_709, bgra);
        double t5 = now_ns();
        for (int i = 0; i < POOL_OPS; i++) {
            CVPixelBufferRef pb = NULL;
            CVPixelBufferPoolCreatePixelBuffer(NULL, pool, &pb);
            uint8_t *p = CVPixelBufferGetBaseAddress(pb);
            p[0] = (uint8_t)i;
            p[frame_bytes - 1] = (uint8_t)i;
            sink += p[0];
            CVPixelBufferRelease(pb);
        }
        double t6 = now_ns();
        for (int i = 0; i < POOL_OPS; i++) {
            uint8_t *p = malloc(frame_bytes);
            p[0] = (uint8_t)i;
            p[frame_bytes - 1] = (uint8_t)i;
            sink += p[0];
            free(p);
        }
        double t7 = now_ns();
        for (int i = 0; i < CREATE_OPS; i++) {
            CVPixelBufferRef pb = NULL;
            CVPixelBufferCreate(NULL, W, H, kCVPixelFormatType_32BGRA, NULL, &pb);
            uint8_t *p = CVPixelBufferGetBaseAddress(pb);
            p[0] = (uint8_t)i;
            p[frame_bytes - 1] = (uint8_t)i;
            sink += p[0];
            CVPixelBufferRelease(pb);
        }
        double t8 = now_ns();
        double d[8] = { t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, (t6 - t5) / POOL_OPS, (t7 - t6) / POOL_OPS,
                        (t8 - t7) / CREATE_OPS };
        for (int i = 0; i < 8; i++) if (d[i] < best[i]) best[i] = d[i];
    }
    if (QZGetLastError() != QZErrorNone) {
        fprintf(stderr, "bench_video: the library recorded an error: %s\n", QZGetLastErrorMessage());
        return 1;
    }
    double px = (double)W * H;
    double lib_gps = px / best[0], ref_gps = px / best[1];
    double ratio = best[0] / best[1];
    printf("%-52s %10s %12s\n", "kernel (1920x1080, best of rounds)", "ms/frame", "Gpixel/s");
    printf("%-52s %10.3f %12.3f\n", "library '420v' -> BGRA (QZPixelBufferConvert)", best[0] / 1e6, lib_gps);
    printf("%-52s %10.3f %12.3f\n", "reference libyuv-style C NV12ToARGBRow_C", best[1] / 1e6, ref_gps);
    printf("%-52s %10.3f %12.3f\n", "library 'y420' -> BGRA", best[2] / 1e6, px / best[2]);
    printf("%-52s %10.3f %12.3f\n", "library '2vuy' -> BGRA", best[3] / 1e6, px / best[3]);
    printf("%-52s %10.3f %12.3f\n", "library '420v' (ITU-R 709) -> BGRA", best[4] / 1e6, px / best[4]);
    printf("%-52s %10s\n", "kernel (1920x1080 32BGRA, 8,294,400 bytes)", "ns/op");
    printf("%-52s %10.1f\n", "pool create + release (recycled)", best[5]);
    printf("%-52s %10.1f\n", "C malloc + free", best[6]);
    printf("%-52s %10.1f\n", "CVPixelBufferCreate + release (no pool)", best[7]);
    printf("SUMMARY video: 1920x1080 '420v' -> BGRA: %.2f Gpixel/s on one thread, %.2fx the time of libyuv-style C "
           "(%.2f Gpixel/s)%s\n", lib_gps, ratio, ref_gps,
           (lib_gps >= 1.0 && ratio <= 1.5) ? " (target >= 1 Gpixel/s and <= 1.5x: met)"
                                             : " (target >= 1 Gpixel/s and <= 1.5x: NOT met)");
    printf("SUMMARY video: pool create + release of a 1080p BGRA buffer: %.1f ns, %.2fx malloc + free (%.1f ns); "
           "without a pool %.1f ns\n", best[5], best[5] / best[6], best[6], best[7]);
    (void)sink;
    free(ref_out);
    CVPixelBufferPoolRelease(pool);
    CVPixelBufferRelease(nv12);
    CVPixelBufferRelease(y420);
    CVPixelBufferRelease(uyvy);
    CVPixelBufferRelease(nv12_709);
    CVPixelBufferRelease(bgra);
    return 0;
}
