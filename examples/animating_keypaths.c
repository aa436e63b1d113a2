/* "Animating Arbitrary KeyPaths" (Rob Napier), in C on Quartzite.
 *
 * A layer class (PinchTextLayer) keeps its touch points in a dictionary
 * under the custom key "touchPointForIdentifier": each touch point has a
 * position and a scale. The class answers needsDisplayForKey for that key,
 * which covers every key path beginning with it, so an animation of
 * "touchPointForIdentifier.<id>.scale" redraws the layer each frame with
 * the interpolated scale (drawInContext reads it through key-value coding
 * on the presentation copy), and initWithLayer copies the dictionary to the
 * copy, as the article does. Each touch's scale animates on its own.
 *
 * Writes frames and an animated PNG under the output directory (argv[1],
 * "out" by default): touch_points.png. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <quartzite/quartzite.h>
#include "apng_writer.h"

enum { WIDTH = 240, HEIGHT = 120, FPS = 24, FRAMES = 48 };

static double media_now = 0;
static CFTimeInterval clock_source(void *info) { return *(const double *)info; }

static const char *const touch_ids[] = { "t1", "t2", "t3" };

/* + (BOOL)needsDisplayForKey: */
static bool needs_display_for_key(CALayerClassRef cls, const char *key, void *info) {
    (void)cls; (void)info;
    return strcmp(key, "touchPointForIdentifier") == 0;
}

/* - (id)initWithLayer: copies the touch points (the value is immutable: sharing it is a copy). */
static void init_with_layer(CALayerRef copy, CALayerRef source, void *info) {
    (void)info;
    CAValueRef points = CALayerCopyValueForKey(source, "touchPointForIdentifier");
    CALayerSetValueForKey(copy, "touchPointForIdentifier", points);
    CARelease(points);
}

/* - (void)drawInContext: a soft glow under each touch, sized by its scale. */
static void draw_in_context(CALayerRef layer, CGContextRef ctx, void *info) {
    (void)info;
    CGRect b = CALayerGetBounds(layer);
    CGContextSetRGBFillColor(ctx, 0.08, 0.09, 0.14, 1);
    CGContextFillRect(ctx, b);
    CGColorSpaceRef rgb = CGColorSpaceCreateDeviceRGB();
    for (int i = 0; i < 3; i++) {
        char key[96];
        snprintf(key, sizeof key, "touchPointForIdentifier.%s.scale", touch_ids[i]);
        double scale = CALayerGetNumberForKeyPath(layer, key);
        snprintf(key, sizeof key, "touchPointForIdentifier.%s.x", touch_ids[i]);
        double x = CALayerGetNumberForKeyPath(layer, key);
        double y = b.size.height / 2, r = 40 * scale;
        if (r <= 0.5) continue;
        CGFloat comps[] = { 0.4 + 0.3 * i, 0.8 - 0.2 * i, 1.0 - 0.25 * i, 0.9,   0.2, 0.3, 0.9, 0 };
        CGGradientRef glow = CGGradientCreateWithColorComponents(rgb, comps, NULL, 2);
        CGContextDrawRadialGradient(ctx, glow, CGPointMake(x, y), 0, CGPointMake(x, y), r, 0);
        CGGradientRelease(glow);
        CGContextSetRGBStrokeColor(ctx, 1, 1, 1, 0.8);
        CGContextSetLineWidth(ctx, 2);
        CGContextStrokeEllipseInRect(ctx, CGRectMake(x - r / 2, y - r / 2, r, r));
    }
    CGColorSpaceRelease(rgb);
}

static CAValueRef touch_point(double x, double scale) {
    const char *keys[] = { "x", "scale" };
    CAValueRef values[] = { CAValueCreateNumber(x), CAValueCreateNumber(scale) };
    CAValueRef d = CAValueCreateDictionary(keys, values, 2);
    CARelease(values[0]);
    CARelease(values[1]);
    return d;
}

int main(int argc, char **argv) {
    const char *outdir = argc > 1 ? argv[1] : "out";
    QZSetMediaTimeSource(clock_source, &media_now);

    CALayerClassCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.needsDisplayForKey = needs_display_for_key;
    cb.initWithLayer = init_with_layer;
    cb.drawInContext = draw_in_context;
    CALayerClassRef cls = CALayerClassCreate("PinchTextLayer", NULL, &cb, NULL);
    CALayerRef layer = CALayerCreateWithClass(cls);
    CALayerSetBounds(layer, CGRectMake(0, 0, WIDTH, HEIGHT));
    CALayerSetPosition(layer, CGPointMake(WIDTH / 2.0, HEIGHT / 2.0));

    /* The touch points, at their final scales. */
    CAValueRef points[3] = { touch_point(50, 1.0), touch_point(120, 0.6), touch_point(190, 0.8) };
    CAValueRef dict = CAValueCreateDictionary((const char *const *)touch_ids, points, 3);
    CALayerSetValueForKey(layer, "touchPointForIdentifier", dict);
    CATransactionFlush();

    /* Each touch's scale grows from 0, one after another (addTouches:). */
    for (int i = 0; i < 3; i++) {
        char keyPath[96];
        snprintf(keyPath, sizeof keyPath, "touchPointForIdentifier.%s.scale", touch_ids[i]);
        CAAnimationRef anim = CABasicAnimationCreate(keyPath);
        CAValueRef from = CAValueCreateNumber(0);
        CAValueRef to = CALayerCopyValueForKeyPath(layer, keyPath);
        CABasicAnimationSetFromValue(anim, from);
        CABasicAnimationSetToValue(anim, to);
        CAAnimationSetDuration(anim, 1.0);
        CAAnimationSetBeginTime(anim, 0.4 * i);
        CAAnimationSetFillMode(anim, kCAFillModeBackwards);
        CALayerAddAnimation(layer, anim, keyPath);
        CARelease(anim); CARelease(from); CARelease(to);
    }
    CATransactionFlush();

    CVPixelBufferRef target = NULL;
    CVPixelBufferCreate(NULL, WIDTH, HEIGHT, kCVPixelFormatType_32BGRA, NULL, &target);
    CARendererRef renderer = CARendererCreate(target, NULL);
    CARendererSetLayer(renderer, layer);
    char *paths[FRAMES];
    for (int i = 0; i < FRAMES; i++) {
        media_now = (double)i / FPS;
        CARendererBeginFrameAtTime(renderer, media_now, NULL);
        CARendererRender(renderer);
        CARendererEndFrame(renderer);
        paths[i] = malloc(strlen(outdir) + 40);
        sprintf(paths[i], "%s/touch_points_%03d.png", outdir, i);
        if (QZPixelBufferWritePNG(target, paths[i]) != kCVReturnSuccess) {
            fprintf(stderr, "animating_keypaths: cannot write %s: %s\n", paths[i], QZGetLastErrorMessage());
            return 1;
        }
    }
    char apng[4096];
    snprintf(apng, sizeof apng, "%s/touch_points.png", outdir);
    int ok = apng_write_from_png_files(apng, (const char *const *)paths, FRAMES, 1, FPS);
    printf("Animating arbitrary key paths: %d frames, three touch points' scales animated through\n"
           "  \"touchPointForIdentifier.<id>.scale\" and drawn by drawInContext: %s%s\n",
           FRAMES, apng, ok == 0 ? "" : " (FAILED)");
    for (int i = 0; i < FRAMES; i++) free(paths[i]);
    CARelease(renderer);
    CVPixelBufferRelease(target);
    for (int i = 0; i < 3; i++) CARelease(points[i]);
    CARelease(dict);
    CARelease(layer);
    CARelease(cls);
    QZSetMediaTimeSource(NULL, NULL);
    return ok == 0 ? 0 : 1;
}
