/* bench_shadow_path — rendering a layer whose shadowPath has n line
 * elements (a ragged star around the layer: every pixel row of the 256x256
 * target crosses thousands of edges), for n = 16k ... 1M. The reference is
 * the same work at 16k elements, measured in the same run: the ratio of the
 * cost per element at n to that at 16k stays near 1 when rendering is
 * linear in the path's size (it grew as n before issue 21: 64k elements took
 * 2.9 s, 16x the 16k time). Best of --reps runs (default 3). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <quartzite/quartzite.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double render_seconds(long n, int reps) {
    CGMutablePathRef path = CGPathCreateMutable();
    CGPoint *points = malloc(sizeof(CGPoint) * (size_t)n);
    for (long i = 0; i < n; i++) {
        double a = 2 * M_PI * (double)i / (double)n, r = 80 + 40 * (double)((i * 7919) % 13) / 13.0;
        points[i] = CGPointMake(128 + r * cos(a), 128 + r * sin(a));
    }
    CGPathAddLines(path, NULL, points, (size_t)n);
    CGPathCloseSubpath(path);
    free(points);
    CVPixelBufferRef pb = NULL;
    CVPixelBufferCreate(NULL, 256, 256, kCVPixelFormatType_32BGRA, NULL, &pb);
    CGContextRef ctx = QZBitmapContextCreateWithPixelBuffer(pb);
    CALayerRef layer = CALayerCreate();
    CALayerSetFrame(layer, CGRectMake(0, 0, 256, 256));
    CALayerSetShadowPath(layer, path);
    CALayerSetShadowOpacity(layer, 1);
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        double t0 = now_s();
        CALayerRenderInContext(layer, ctx);
        double t = now_s() - t0;
        if (t < best) best = t;
    }
    if (QZGetLastError() != QZErrorNone) {
        fprintf(stderr, "bench_shadow_path: the library recorded an error: %s\n", QZGetLastErrorMessage());
        exit(1);
    }
    CARelease(layer);
    CGContextRelease(ctx);
    CVPixelBufferRelease(pb);
    CGPathRelease(path);
    return best;
}

int main(int argc, char **argv) {
    int reps = 3;
    for (int i = 1; i + 1 < argc; i++) if (strcmp(argv[i], "--reps") == 0) reps = atoi(argv[i + 1]);
    const long sizes[] = { 16000, 64000, 256000, 1000000 };
    double base = 0;
    printf("%-10s %12s %16s %10s\n", "elements", "render ms", "ns per element", "vs 16k");
    for (int k = 0; k < 4; k++) {
        double t = render_seconds(sizes[k], reps);
        double per = t / (double)sizes[k] * 1e9;
        if (k == 0) base = per;
        printf("%-10ld %12.1f %16.1f %9.2fx\n", sizes[k], t * 1e3, per, per / base);
    }
    return 0;
}
