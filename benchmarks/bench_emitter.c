/*
 * bench_emitter.c — a CAEmitterLayer with 10,000 live particles: the frame
 * time, and its growth from 1,000 live particles, measured in the same run.
 *
 * Scene: a 1280x720 root holding one emitter layer at its centre, one cell
 * with an 8x8 soft-disc image, emitting in every direction (emissionRange
 * 2 pi) at 60 +- 40 pt/s, spinning, with colour ranges (so every particle is
 * tinted). Its lifetime is 2 s and its birth rate N / 2, so N particles live
 * from t = 2 s on. A frame is CARendererBeginFrameAtTime + Render + EndFrame
 * at the next 1/60 s: the particles are computed at that time (they are a
 * function of time) and composited.
 * The two sizes (N = 1,000 and N = 10,000) are measured interleaved; each
 * round renders F frames of each; the best round per size is kept. The
 * ratio of their frame times is the growth (10.0x would be linear in the
 * particle count).
 *
 * Usage: bench_emitter [--reps R] [--frames F]
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <quartzite/quartzite.h>

enum { W = 1280, H = 720 };

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static CGImageRef soft_disc(int size) {
    static unsigned char bytes[8 * 8 * 4];
    double c = size / 2.0;
    for (int y = 0; y < size; y++)
        for (int x = 0; x < size; x++) {
            double d = hypot(x + 0.5 - c, y + 0.5 - c);
            double a = 1 - d / c;
            unsigned char v = (unsigned char)((a < 0 ? 0 : a) * 255);
            memset(bytes + (y * size + x) * 4, v, 4);
        }
    CGDataProviderRef provider = CGDataProviderCreateWithData(NULL, bytes, sizeof bytes, NULL);
    CGImageRef image = CGImageCreate(size, size, 8, 32, size * 4, NULL, kCGImageAlphaPremultipliedLast, provider, NULL,
                                     true, kCGRenderingIntentDefault);
    CGDataProviderRelease(provider);
    return image;
}

typedef struct { CALayerRef root; CVPixelBufferRef pb; CARendererRef renderer; } scene;

static scene make_scene(int live) {
    scene s;
    s.root = CALayerCreate();
    CALayerSetFrame(s.root, CGRectMake(0, 0, W, H));
    CALayerRef e = CAEmitterLayerCreate();
    CALayerSetFrame(e, CGRectMake(0, 0, W, H));
    CAEmitterLayerSetEmitterPosition(e, CGPointMake(W / 2.0, H / 2.0));
    CAEmitterLayerSetSeed(e, 11);
    CAEmitterCellRef c = CAEmitterCellCreate();
    CGImageRef image = soft_disc(8);
    CAEmitterCellSetContents(c, image);
    CGImageRelease(image);
    CAEmitterCellSetBirthRate(c, live / 2.0f);
    CAEmitterCellSetLifetime(c, 2);
    CAEmitterCellSetVelocity(c, 60); CAEmitterCellSetVelocityRange(c, 40);
    CAEmitterCellSetEmissionRange(c, 2 * M_PI);
    CAEmitterCellSetSpin(c, 1); CAEmitterCellSetSpinRange(c, 2);
    CAEmitterCellSetRedRange(c, 0.3f); CAEmitterCellSetGreenRange(c, 0.3f); CAEmitterCellSetAlphaSpeed(c, -0.3f);
    CAEmitterLayerSetEmitterCells(e, &c, 1);
    CARelease(c);
    CALayerAddSublayer(s.root, e);
    CARelease(e);
    CVPixelBufferCreate(NULL, W, H, kCVPixelFormatType_32BGRA, NULL, &s.pb);
    s.renderer = CARendererCreate(s.pb, NULL);
    CARendererSetLayer(s.renderer, s.root);
    return s;
}

/* Seconds per frame over `frames` frames from t = 2 s (all particles live). */
static double run(scene *s, int frames, double *t) {
    double start = now_s();
    for (int i = 0; i < frames; i++) {
        *t += 1.0 / 60;
        CARendererBeginFrameAtTime(s->renderer, *t, NULL);
        CARendererRender(s->renderer);
        CARendererEndFrame(s->renderer);
    }
    return (now_s() - start) / frames;
}

int main(int argc, char **argv) {
    int reps = 5, frames = 30;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--frames")) frames = atoi(argv[i + 1]);
    }
    if (reps < 1) reps = 1;
    if (frames < 1) frames = 1;
    const int sizes[2] = { 1000, 10000 };
    scene s[2] = { make_scene(sizes[0]), make_scene(sizes[1]) };
    double best[2] = { INFINITY, INFINITY }, t[2] = { 2, 2 };
    QZClearLastError();
    for (int r = 0; r < reps; r++)
        for (int k = 0; k < 2; k++) {
            double f = run(&s[k], frames, &t[k]);
            if (f < best[k]) best[k] = f;
        }
    if (QZGetLastError() != QZErrorNone) {
        fprintf(stderr, "bench_emitter: the library recorded an error: %s\n", QZGetLastErrorMessage());
        return 1;
    }
    /* The particles drew something: the buffer has ink. */
    const unsigned char *base = CVPixelBufferGetBaseAddress(s[1].pb);
    size_t n = CVPixelBufferGetBytesPerRow(s[1].pb) * H, inked = 0;
    for (size_t i = 3; i < n; i += 4) inked += base[i] > 0;
    if (inked < 1000) {
        fprintf(stderr, "bench_emitter: only %zu inked pixels\n", inked);
        return 1;
    }
    for (int k = 0; k < 2; k++)
        printf("emitter %5d live particles, %dx%d: %.3f ms/frame (%.1f ns/particle)\n", sizes[k], W, H,
               best[k] * 1e3, best[k] * 1e9 / sizes[k]);
    printf("SUMMARY emitter: 10,000 live particles %.2f ms/frame; growth from 1,000: %.2fx (10.00x = linear)\n",
           best[1] * 1e3, best[1] / best[0]);
    for (int k = 0; k < 2; k++) {
        CARelease(s[k].renderer);
        CVPixelBufferRelease(s[k].pb);
        CARelease(s[k].root);
    }
    return 0;
}
