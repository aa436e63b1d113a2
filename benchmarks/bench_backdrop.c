/*
 * bench_backdrop.c — a full-screen backdrop blur (backgroundFilters with
 * CIGaussianBlur) against the render benchmark's shadow scene, same run.
 *
 * Reference: bench_render's scene c at 1920x1080: 100 layers of 150x80 with
 * a background colour, cornerRadius 12 and a shadow (black, opacity 0.5,
 * radius 6, offset (0, 3)) over an opaque background, the whole target
 * redrawn every frame (CARendererAddUpdateRect).
 * Measured: the same scene with one more layer on top covering the whole
 * target, whose backgroundFilters blur everything below it (inputRadius 10,
 * Core Image's default, and 30, a heavy frosted glass), with a translucent
 * white background (a frosted sheet).
 * The ratio measured / reference says what a full-screen backdrop blur adds
 * to a frame of the shadow scene; the difference is the blur's own cost.
 * Every round runs every side once (interleaved); the best round is kept
 * (CLOCK_MONOTONIC), one thread.
 *
 * Usage: bench_backdrop [--reps R] [--frames F]   (defaults 5 rounds of 3 frames)
 * Exit status 1 when the library records an error.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <quartzite/quartzite.h>

enum { W = 1920, H = 1080, NC = 100, CW = 150, CH = 80 };

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static uint32_t lcg = 12345;
static uint32_t rnd(void) {
    lcg = lcg * 1103515245u + 12345u;
    return (lcg >> 16) & 0x7fff;
}

static void set_color(CALayerRef l, void (*setter)(CALayerRef, CGColorRef), double r, double g, double b, double a) {
    CGColorRef c = CGColorCreateSRGB(r, g, b, a);
    setter(l, c);
    CGColorRelease(c);
}

/* The shadow scene; with `blur` > 0 a full-screen backdrop blur on top. */
static CALayerRef scene(double blur) {
    lcg = 12345;
    CALayerRef root = CALayerCreate();
    CALayerSetFrame(root, CGRectMake(0, 0, W, H));
    set_color(root, CALayerSetBackgroundColor, 0.95, 0.95, 0.97, 1);
    for (int i = 0; i < NC; i++) {
        CALayerRef l = CALayerCreate();
        CALayerSetFrame(l, CGRectMake(rnd() % (W - CW), rnd() % (H - CH), CW, CH));
        set_color(l, CALayerSetBackgroundColor, (rnd() % 200) / 255.0, (rnd() % 200) / 255.0, (rnd() % 200) / 255.0, 1);
        CALayerSetCornerRadius(l, 12);
        CALayerSetShadowOpacity(l, 0.5);
        CALayerSetShadowRadius(l, 6);
        CALayerSetShadowOffset(l, CGSizeMake(0, 3));
        CALayerAddSublayer(root, l);
        CARelease(l);
    }
    if (blur > 0) {
        CALayerRef glass = CALayerCreate();
        CALayerSetFrame(glass, CGRectMake(0, 0, W, H));
        set_color(glass, CALayerSetBackgroundColor, 1, 1, 1, 0.2);
        const char *keys[2] = { "name", "inputRadius" };
        CAValueRef values[2] = { CAValueCreateString("CIGaussianBlur"), CAValueCreateNumber(blur) };
        CAValueRef f = CAValueCreateDictionary(keys, values, 2);
        CAValueRef list = CAValueCreateArray(&f, 1);
        CALayerSetBackgroundFilters(glass, list);
        CARelease(values[0]); CARelease(values[1]); CARelease(f); CARelease(list);
        CALayerAddSublayer(root, glass);
        CARelease(glass);
    }
    return root;
}

typedef struct { CALayerRef root; CVPixelBufferRef pb; CARendererRef r; double t; } Side;

static void side_init(Side *s, double blur) {
    s->root = scene(blur);
    s->pb = NULL;
    CVPixelBufferCreate(NULL, W, H, kCVPixelFormatType_32BGRA, NULL, &s->pb);
    s->r = CARendererCreate(s->pb, NULL);
    CARendererSetLayer(s->r, s->root);
    s->t = 0;
}

static double side_frames(Side *s, int frames) {
    double t0 = now_ms();
    for (int f = 0; f < frames; f++) {
        CARendererBeginFrameAtTime(s->r, s->t += 1.0 / 60, NULL);
        CARendererAddUpdateRect(s->r, CGRectMake(0, 0, W, H));   /* a full redraw */
        CARendererRender(s->r);
        CARendererEndFrame(s->r);
    }
    return (now_ms() - t0) / frames;
}

static void side_free(Side *s) {
    CARelease(s->r);
    CVPixelBufferRelease(s->pb);
    CARelease(s->root);
}

int main(int argc, char **argv) {
    int reps = 5, frames = 3;
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--reps") == 0) reps = atoi(argv[i + 1]);
        if (strcmp(argv[i], "--frames") == 0) frames = atoi(argv[i + 1]);
    }
    if (reps < 1) reps = 1;
    if (frames < 1) frames = 1;
    Side shadow, blur10, blur30;
    side_init(&shadow, 0);
    side_init(&blur10, 10);
    side_init(&blur30, 30);
    double best_s = 1e30, best_10 = 1e30, best_30 = 1e30;
    for (int r = 0; r < reps; r++) {
        double a = side_frames(&shadow, frames), b = side_frames(&blur10, frames), c = side_frames(&blur30, frames);
        if (a < best_s) best_s = a;
        if (b < best_10) best_10 = b;
        if (c < best_30) best_30 = c;
    }
    if (QZGetLastError() != QZErrorNone) {
        fprintf(stderr, "bench_backdrop: the library recorded an error: %s\n", QZGetLastErrorMessage());
        return 1;
    }
    printf("%-58s %10s\n", "frame (1920x1080, full redraw)", "ms");
    printf("%-58s %10.2f\n", "shadow scene (bench_render c: 100 shadowed cards)", best_s);
    printf("%-58s %10.2f\n", "  + full-screen backdrop blur, inputRadius 10", best_10);
    printf("%-58s %10.2f\n", "  + full-screen backdrop blur, inputRadius 30", best_30);
    printf("SUMMARY backdrop: a full-screen backdrop blur (radius 10) makes the shadow scene's frame %.2fx as long "
           "(%.2f ms vs %.2f ms; the blur alone %.2f ms = %.2fx the shadow scene)\n",
           best_10 / best_s, best_10, best_s, best_10 - best_s, (best_10 - best_s) / best_s);
    printf("SUMMARY backdrop: radius 30: %.2fx the shadow scene's frame (%.2f ms)\n", best_30 / best_s, best_30);
    side_free(&shadow);
    side_free(&blur10);
    side_free(&blur30);
    return 0;
}
