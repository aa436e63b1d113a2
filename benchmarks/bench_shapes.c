/*
 * bench_shapes.c — 1000 animated CAShapeLayers per frame against drawing the
 * same paths with cairo directly, measured in the same run.
 *
 * Library: 1000 CAShapeLayers in a 1920x1080 tree, each a random closed path
 * (3 to 8 line or cubic segments) filled with a translucent colour and
 * stroked 1 to 8 wide, its strokeEnd animating from 0 to 1 (a
 * CABasicAnimation per layer, linear, 2 s). A frame is
 * CARendererBeginFrameAtTime + Render + EndFrame at the next time: the
 * renderer rebuilds the presentation tree, redraws every shape (each
 * strokeEnd changed) and composites the frame.
 * Reference: the same paths drawn with cairo into a 1920x1080 ARGB32 surface
 * cleared each frame: the fill, then the stroke with the dash pattern
 * (length x strokeEnd on, the length off) that draws the first strokeEnd of
 * the path (cairo has no trim), path lengths measured once beforehand.
 * Both sides draw the same frames (the same times); the frames' total ink
 * (the alpha sum) must agree within 2% on every frame, else exit 1.
 * Every round runs both sides over all frames (interleaved); the best round
 * is kept.
 *
 * Usage: bench_shapes [--reps R] [--layers N] [--frames F]
 */
#define _GNU_SOURCE
#include <cairo.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <quartzite/quartzite.h>

enum { W = 1920, H = 1080 };

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static uint64_t rng_state;
static double rnd(void) {
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

typedef struct {
    int segments;
    double pts[8][6];
    int curve[8];
    double x0, y0, width, fill[4], stroke[4], length;
} shape;

static shape *make_shapes(int n) {
    shape *p = calloc((size_t)n, sizeof *p);
    rng_state = 29;
    for (int i = 0; i < n; i++) {
        double cx = rnd() * W, cy = rnd() * H, r = 15 + rnd() * 60;
        p[i].x0 = cx + (rnd() - 0.5) * r;
        p[i].y0 = cy + (rnd() - 0.5) * r;
        p[i].segments = 3 + (int)(rnd() * 6);
        for (int s = 0; s < p[i].segments; s++) {
            p[i].curve[s] = rnd() < 0.5;
            for (int k = 0; k < 6; k += 2) {
                p[i].pts[s][k] = cx + (rnd() - 0.5) * 2 * r;
                p[i].pts[s][k + 1] = cy + (rnd() - 0.5) * 2 * r;
            }
        }
        p[i].width = 1 + rnd() * 7;
        for (int k = 0; k < 3; k++) { p[i].fill[k] = rnd(); p[i].stroke[k] = rnd(); }
        p[i].fill[3] = 0.3 + 0.5 * rnd();
        p[i].stroke[3] = 1;
    }
    return p;
}

static void trace_cairo(cairo_t *cr, const shape *p) {
    cairo_move_to(cr, p->x0, p->y0);
    for (int s = 0; s < p->segments; s++) {
        const double *q = p->pts[s];
        if (p->curve[s]) cairo_curve_to(cr, q[0], q[1], q[2], q[3], q[4], q[5]);
        else cairo_line_to(cr, q[4], q[5]);
    }
    cairo_close_path(cr);
}

/* The path's length, from cairo's flattened copy (tolerance 0.01). */
static double path_length(cairo_t *cr, const shape *p) {
    cairo_new_path(cr);
    cairo_save(cr);
    cairo_set_tolerance(cr, 0.01);
    trace_cairo(cr, p);
    cairo_path_t *flat = cairo_copy_path_flat(cr);
    cairo_restore(cr);
    cairo_new_path(cr);
    double len = 0, x = 0, y = 0, sx = 0, sy = 0;
    for (int i = 0; i < flat->num_data; i += flat->data[i].header.length) {
        cairo_path_data_t *d = &flat->data[i];
        switch (d->header.type) {
        case CAIRO_PATH_MOVE_TO: x = sx = d[1].point.x; y = sy = d[1].point.y; break;
        case CAIRO_PATH_LINE_TO: len += hypot(d[1].point.x - x, d[1].point.y - y); x = d[1].point.x; y = d[1].point.y; break;
        case CAIRO_PATH_CLOSE_PATH: len += hypot(sx - x, sy - y); x = sx; y = sy; break;
        default: break;
        }
    }
    cairo_path_destroy(flat);
    return len;
}

static void draw_cairo(cairo_t *cr, const shape *p, int n, double end) {
    for (int i = 0; i < n; i++) {
        trace_cairo(cr, &p[i]);
        cairo_set_source_rgba(cr, p[i].fill[0], p[i].fill[1], p[i].fill[2], p[i].fill[3]);
        if (end <= 0) { cairo_fill(cr); continue; }
        cairo_fill_preserve(cr);
        cairo_set_source_rgba(cr, p[i].stroke[0], p[i].stroke[1], p[i].stroke[2], p[i].stroke[3]);
        cairo_set_line_width(cr, p[i].width);
        if (end < 1) {
            double dash[2] = { p[i].length * end, p[i].length * 2 };
            cairo_set_dash(cr, dash, 2, 0);
        } else {
            cairo_set_dash(cr, NULL, 0, 0);
        }
        cairo_stroke(cr);
    }
}

static double ink(const uint8_t *base, size_t bpr) {
    double sum = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) sum += base[(size_t)y * bpr + 4 * (size_t)x + 3];
    return sum / 255;
}

int main(int argc, char **argv) {
    int reps = 3, nlayers = 1000, frames = 30;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--layers")) nlayers = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--frames")) frames = atoi(argv[i + 1]);
    }
    if (reps < 1 || nlayers < 1 || frames < 2) { fprintf(stderr, "bench_shapes: bad arguments\n"); return 2; }
    shape *shapes = make_shapes(nlayers);

    uint8_t *cmem = calloc((size_t)W * H, 4);
    cairo_surface_t *cs = cairo_image_surface_create_for_data(cmem, CAIRO_FORMAT_ARGB32, W, H, W * 4);
    cairo_t *cr = cairo_create(cs);
    for (int i = 0; i < nlayers; i++) shapes[i].length = path_length(cr, &shapes[i]);

    /* The tree: a root and one shape layer per path, its strokeEnd animating over [1, 3]. */
    QZClearLastError();
    CATransactionBegin();
    CATransactionSetDisableActions(true);
    CALayerRef root = CALayerCreate();
    CALayerSetFrame(root, CGRectMake(0, 0, W, H));
    CAValueRef zero = CAValueCreateNumber(0), one = CAValueCreateNumber(1);
    for (int i = 0; i < nlayers; i++) {
        const shape *p = &shapes[i];
        CALayerRef s = CAShapeLayerCreate();
        CALayerSetFrame(s, CGRectMake(0, 0, W, H));
        CGMutablePathRef path = CGPathCreateMutable();
        CGPathMoveToPoint(path, NULL, p->x0, p->y0);
        for (int k = 0; k < p->segments; k++) {
            const double *q = p->pts[k];
            if (p->curve[k]) CGPathAddCurveToPoint(path, NULL, q[0], q[1], q[2], q[3], q[4], q[5]);
            else CGPathAddLineToPoint(path, NULL, q[4], q[5]);
        }
        CGPathCloseSubpath(path);
        CAShapeLayerSetPath(s, path);
        CGPathRelease(path);
        CGColorRef fill = CGColorCreateSRGB(p->fill[0], p->fill[1], p->fill[2], p->fill[3]);
        CGColorRef stroke = CGColorCreateSRGB(p->stroke[0], p->stroke[1], p->stroke[2], p->stroke[3]);
        CAShapeLayerSetFillColor(s, fill);
        CAShapeLayerSetStrokeColor(s, stroke);
        CGColorRelease(fill);
        CGColorRelease(stroke);
        CAShapeLayerSetLineWidth(s, p->width);
        CAAnimationRef a = CABasicAnimationCreate("strokeEnd");
        CABasicAnimationSetFromValue(a, zero);
        CABasicAnimationSetToValue(a, one);
        CAAnimationSetDuration(a, 2);
        CAAnimationSetBeginTime(a, 1);
        CALayerAddAnimation(s, a, "draw");
        CARelease(a);
        CALayerAddSublayer(root, s);
        CARelease(s);
    }
    CARelease(zero);
    CARelease(one);
    CATransactionCommit();
    CVPixelBufferRef pb = NULL;
    CVPixelBufferCreate(NULL, W, H, kCVPixelFormatType_32BGRA, NULL, &pb);
    CARendererRef r = CARendererCreate(pb, NULL);
    CARendererSetLayer(r, root);

    int status = 0;
    double best_q = 1e30, best_c = 1e30, worst_ink = 0;
    for (int round = 0; round < reps; round++) {
        double tq = 0, tc = 0;
        for (int f = 0; f < frames; f++) {
            /* Times inside the animation (strokeEnd from 0.05 to 0.95), and
             * never the same twice in a row (a fresh frame every time). */
            double end = 0.05 + 0.9 * f / (frames - 1);
            double t = 1 + 2 * end;
            double t0 = now_s();
            CARendererBeginFrameAtTime(r, t, NULL);
            CARendererAddUpdateRect(r, CGRectMake(0, 0, W, H));
            CARendererRender(r);
            CARendererEndFrame(r);
            double t1 = now_s();
            memset(cmem, 0, (size_t)W * H * 4);
            cairo_surface_mark_dirty(cs);
            double t2 = now_s();
            draw_cairo(cr, shapes, nlayers, end);
            cairo_surface_flush(cs);
            double t3 = now_s();
            tq += t1 - t0;
            tc += t3 - t2;
            if (round == 0 && (f == 0 || f == frames / 2 || f == frames - 1)) {
                CVPixelBufferLockBaseAddress(pb, kCVPixelBufferLock_ReadOnly);
                double iq = ink(CVPixelBufferGetBaseAddress(pb), CVPixelBufferGetBytesPerRow(pb));
                CVPixelBufferUnlockBaseAddress(pb, kCVPixelBufferLock_ReadOnly);
                double ic = ink(cmem, W * 4);
                double rel = fabs(iq - ic) / (ic > 0 ? ic : 1);
                if (rel > worst_ink) worst_ink = rel;
                if (rel > 0.02) {
                    fprintf(stderr, "bench_shapes: frame %d (strokeEnd %.3f): ink %.0f vs cairo's %.0f\n", f, end, iq, ic);
                    status = 1;
                }
            }
        }
        if (tq < best_q) best_q = tq;
        if (tc < best_c) best_c = tc;
    }
    if (QZGetLastError() != QZErrorNone) {
        fprintf(stderr, "bench_shapes: the library recorded an error: %s\n", QZGetLastErrorMessage());
        status = 1;
    }
    printf("shapes  %d shape layers with animated strokeEnd, 1920x1080, %d frames: Quartzite %.2f ms/frame, "
           "cairo %.2f ms/frame (largest ink difference %.2f%%)\n",
           nlayers, frames, best_q * 1e3 / frames, best_c * 1e3 / frames, worst_ink * 100);
    printf("SUMMARY shapes: %d animated shape layers per frame / the same paths with cairo in C: %.2fx\n", nlayers,
           best_q / best_c);
    CARelease(r);
    CVPixelBufferRelease(pb);
    CARelease(root);
    cairo_destroy(cr);
    cairo_surface_destroy(cs);
    free(cmem);
    free(shapes);
    return status;
}
