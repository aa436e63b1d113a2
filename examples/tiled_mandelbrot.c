/* A zoomable map with CATiledLayer: the Mandelbrot set on a layer of
 * 1,048,576 x 1,048,576 points, drawn tile by tile (each tile computes its
 * own pixels at the resolution of its level of detail) on the library's
 * worker threads, panned and zoomed in 1000x over a few seconds and written
 * as PNG frames.
 *
 *     tiled_mandelbrot OUT_DIR [FRAMES]      (default 72 frames: 3 s at 24 fps)
 *
 * Offline, each frame waits for its tiles (QZRendererSetWaitsForTiles), so
 * the frames are the same on every machine; a live host leaves that off and
 * shows coarser tiles until the finer ones arrive, fading them in. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <quartzite/quartzite.h>

#define SIDE 1048576.0     /* points: the plane [-2.5, 1.5] x [-2, 2] */
#define W 480
#define H 360

/* The colour of the point (cx, cy) of the plane, as premultiplied BGRA. */
static unsigned pixel_colour(double cx, double cy) {
    double x = 0, y = 0;
    int n = 0, limit = 400;
    while (n < limit && x * x + y * y <= 16) {
        double t = x * x - y * y + cx;
        y = 2 * x * y + cy;
        x = t;
        n++;
    }
    if (n == limit) return 0xFF000000u | 0x0A0A14u;
    /* Smooth iteration count, through a palette of three sines. */
    double mu = n + 1 - log(log(sqrt(x * x + y * y))) / log(2);
    double r = 0.5 + 0.5 * sin(0.16 * mu), g = 0.5 + 0.5 * sin(0.16 * mu + 2.1), b = 0.5 + 0.5 * sin(0.16 * mu + 4.2);
    return 0xFF000000u | (unsigned)(r * 255) << 16 | (unsigned)(g * 255) << 8 | (unsigned)(b * 255);
}

/* Draws one tile: its rectangle is the clip box, its resolution the CTM's scale. */
static void draw_tile(CALayerRef layer, CGContextRef ctx, void *info) {
    (void)layer; (void)info;
    CGRect tile = CGContextGetClipBoundingBox(ctx);
    double scale = CGContextGetCTM(ctx).a;                      /* pixels per point at this level */
    size_t w = (size_t)ceil(tile.size.width * scale - 1e-6), h = (size_t)ceil(tile.size.height * scale - 1e-6);
    CVPixelBufferRef pb = NULL;
    if (w == 0 || h == 0 || CVPixelBufferCreate(NULL, w, h, kCVPixelFormatType_32BGRA, NULL, &pb) != kCVReturnSuccess) return;
    CVPixelBufferLockBaseAddress(pb, 0);
    unsigned char *base = CVPixelBufferGetBaseAddress(pb);
    size_t stride = CVPixelBufferGetBytesPerRow(pb);
    double unit = 4.0 / SIDE;                                     /* plane units per point */
    for (size_t r = 0; r < h; r++) {
        /* CGContextDrawImage puts the first row at the rectangle's maxY (y-down layer space). */
        double py = tile.origin.y + tile.size.height - (r + 0.5) / scale;
        unsigned *row = (unsigned *)(base + r * stride);
        for (size_t c = 0; c < w; c++) {
            double px = tile.origin.x + (c + 0.5) / scale;
            row[c] = pixel_colour(-2.5 + px * unit, -2 + py * unit);
        }
    }
    CVPixelBufferUnlockBaseAddress(pb, 0);
    CGImageRef image = QZImageCreateWithPixelBuffer(pb);
    CGContextDrawImage(ctx, CGRectMake(tile.origin.x, tile.origin.y, w / scale, h / scale), image);
    CGImageRelease(image);
    CVPixelBufferRelease(pb);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s OUT_DIR [FRAMES]\n", argv[0]);
        return 2;
    }
    int frames = argc > 2 ? atoi(argv[2]) : 72;
    if (frames < 1) frames = 1;

    CALayerClassCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.drawInContext = draw_tile;
    CALayerClassRef Mandelbrot = CALayerClassCreate("Mandelbrot", CALayerClassGetBuiltin("CATiledLayer"), &cb, NULL);
    CALayerRef map = CALayerCreateWithClass(Mandelbrot);
    CATiledLayerSetLevelsOfDetail(map, 14);                        /* 1x down to 1/8192x */
    CATiledLayerSetTileSize(map, CGSizeMake(128, 128));
    CALayerSetAnchorPoint(map, CGPointMake(0, 0));
    CALayerSetBounds(map, CGRectMake(0, 0, SIDE, SIDE));
    CALayerRef root = CALayerCreate();
    CALayerSetFrame(root, CGRectMake(0, 0, W, H));
    CGColorRef dark = CGColorCreateSRGB(0.04, 0.04, 0.08, 1);
    CALayerSetBackgroundColor(root, dark);
    CGColorRelease(dark);
    CALayerAddSublayer(root, map);

    CVPixelBufferRef target = NULL;
    CVPixelBufferCreate(NULL, W, H, kCVPixelFormatType_32BGRA, NULL, &target);
    CARendererRef renderer = CARendererCreate(target, NULL);
    CARendererSetLayer(renderer, root);
    QZRendererSetWaitsForTiles(renderer, true);

    /* From the whole set to 1000x around a point of the seahorse valley, then
     * a pan along it; the last quarter of the frames holds still, so the
     * finest tiles finish fading in. */
    const double cx0 = -0.75, cy0 = 0, cx1 = -0.7436, cy1 = 0.1318, cx2 = -0.7446, cy2 = 0.1308;
    const double from_zoom = H / SIDE, to_zoom = from_zoom * 1000;
    int written = 0;
    for (int i = -1; i < frames; i++) {
        double t = frames > 1 ? fmin(fmax((double)i / (frames - 1) / 0.75, 0), 1) : 0;
        double ease = t * t * (3 - 2 * t);
        double zoom = from_zoom * pow(to_zoom / from_zoom, fmin(ease / 0.7, 1));
        double pan = fmax((ease - 0.7) / 0.3, 0);                  /* the pan: the last 30% of the motion */
        double cx = ease < 0.7 ? cx0 + (cx1 - cx0) * sqrt(ease / 0.7) : cx1 + (cx2 - cx1) * pan;
        double cy = ease < 0.7 ? cy0 + (cy1 - cy0) * sqrt(ease / 0.7) : cy1 + (cy2 - cy1) * pan;
        double px = (cx + 2.5) / 4 * SIDE, py = (cy + 2) / 4 * SIDE;   /* the centre, in points */
        CATransactionBegin();
        CATransactionSetDisableActions(true);
        CALayerSetTransform(map, CATransform3DMakeScale(zoom, zoom, 1));
        CALayerSetPosition(map, CGPointMake(W / 2.0 - px * zoom, H / 2.0 - py * zoom));
        CATransactionCommit();
        /* (Frame -1, not written, draws the first tiles and starts their fade.) */
        double when = i < 0 ? 9 : 10 + i / 24.0;
        CARendererBeginFrameAtTime(renderer, when, NULL);
        CARendererRender(renderer);
        CARendererEndFrame(renderer);
        if (i < 0) continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/mandelbrot_%03d.png", argv[1], i);
        if (QZPixelBufferWritePNG(target, path) != kCVReturnSuccess) {
            fprintf(stderr, "could not write %s: %s\n", path, QZGetLastErrorMessage());
            break;
        }
        written++;
    }
    printf("wrote %d frames of %dx%d to %s (%llu tiles drawn, at most %zu at once)\n", written, W, H, argv[1],
           (unsigned long long)QZTiledLayerGetDrawnTileCount(), QZTiledLayerGetMaxConcurrentDrawing());
    QZTiledLayerCancelPendingTiles(30);
    CARelease(renderer);
    CVPixelBufferRelease(target);
    CARelease(root);
    CARelease(map);
    CARelease(Mandelbrot);
    return written == frames ? 0 : 1;
}
