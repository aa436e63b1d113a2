/* CGPathRef / CGMutablePathRef through the C ABI: Apple's element orders,
 * arcs, bounding boxes, containment, immutability, bad input, measuring,
 * CGPathApply with a libffi closure as the applier (as a dynamic-language
 * host builds it), and paths shared between threads. Expected values are
 * worked out by hand in the comments. */
#include <ffi.h>
#include <pthread.h>
#include <stdlib.h>
#include "qz_test.h"

#define KAPPA 0.5522847498
static const double PI = 3.14159265358979323846;

static CGPathElementType element(CGPathRef path, size_t index, CGPoint pts[3]) {
    return QZPathGetElementAtIndex(path, index, pts);
}

/* MARK: - Shapes */

static void rect_and_ellipse_elements(void) {
    CGPathRef rect = CGPathCreateWithRect(CGRectMake(0, 0, 100, 50), NULL);
    CGPoint p[3];
    CHECK(QZPathGetElementCount(rect) == 5);
    CHECK(element(rect, 0, p) == kCGPathElementMoveToPoint && p[0].x == 0 && p[0].y == 0);
    CHECK(element(rect, 1, p) == kCGPathElementAddLineToPoint && p[0].x == 100 && p[0].y == 0);
    CHECK(element(rect, 2, p) == kCGPathElementAddLineToPoint && p[0].x == 100 && p[0].y == 50);
    CHECK(element(rect, 3, p) == kCGPathElementAddLineToPoint && p[0].x == 0 && p[0].y == 50);
    CHECK(element(rect, 4, p) == kCGPathElementCloseSubpath);
    CGRect r;
    CHECK(CGPathIsRect(rect, &r) && r.size.width == 100 && r.size.height == 50);
    CHECK(QZPathGetLength(rect) == 300);

    /* Ellipse in (0, 0, 100, 50): starts at (maxX, midY) = (100, 25). */
    CGPathRef ellipse = CGPathCreateWithEllipseInRect(CGRectMake(0, 0, 100, 50), NULL);
    CHECK(QZPathGetElementCount(ellipse) == 6);
    CHECK(element(ellipse, 0, p) == kCGPathElementMoveToPoint && p[0].x == 100 && p[0].y == 25);
    CHECK(element(ellipse, 1, p) == kCGPathElementAddCurveToPoint);
    CHECK_NEAR(p[0].x, 100, 1e-12); CHECK_NEAR(p[0].y, 25 + 25 * KAPPA, 1e-12);
    CHECK_NEAR(p[1].x, 50 + 50 * KAPPA, 1e-12); CHECK_NEAR(p[1].y, 50, 1e-12);
    CHECK_NEAR(p[2].x, 50, 1e-12); CHECK_NEAR(p[2].y, 50, 1e-12);
    CHECK(element(ellipse, 5, p) == kCGPathElementCloseSubpath);
    CHECK(!CGPathIsRect(ellipse, NULL));
    CGPathRelease(rect);
    CGPathRelease(ellipse);
    CHECK_NO_ERROR();
}

static void bounding_boxes(void) {
    /* Circle of radius 10 turned by 45°: control point (10, 10k) lands at
     * x = 10 (1 + k) / sqrt(2) = 10.97631...; the curve itself stays within
     * the circle's box (quadrant midpoints lie on the circle). */
    CGAffineTransform rot = CGAffineTransformMakeRotation(PI / 4);
    CGPathRef circle = CGPathCreateWithEllipseInRect(CGRectMake(-10, -10, 20, 20), &rot);
    double half = 10 * (1 + KAPPA) / sqrt(2.0);
    CGRect control = CGPathGetBoundingBox(circle), tight = CGPathGetPathBoundingBox(circle);
    CHECK_NEAR(control.origin.x, -half, 1e-9); CHECK_NEAR(control.size.width, 2 * half, 1e-9);
    CHECK_NEAR(tight.origin.x, -10, 1e-6); CHECK_NEAR(tight.size.height, 20, 1e-6);
    CGPathRelease(circle);

    /* Quadratic (0,0) (50,100) (100,0): control box height 100, the curve peaks at 50. */
    CGMutablePathRef quad = CGPathCreateMutable();
    CGPathMoveToPoint(quad, NULL, 0, 0);
    CGPathAddQuadCurveToPoint(quad, NULL, 50, 100, 100, 0);
    CHECK(CGPathGetBoundingBox(quad).size.height == 100);
    CHECK_NEAR(CGPathGetPathBoundingBox(quad).size.height, 50, 1e-12);
    CGPathRelease(quad);
    CHECK(CGRectIsNull(CGPathGetBoundingBox(NULL)));   /* NULL: the null box, with an error */
    CHECK_ERROR(QZErrorNullArgument);
}

/* MARK: - Arcs */

static void arcs(void) {
    double k = 4.0 / 3.0 * tan(PI / 8) * 10;   /* control distance of a 90° arc, radius 10 */
    CGPoint p[3];
    CGMutablePathRef ccw = CGPathCreateMutable();
    CGPathAddArc(ccw, NULL, 0, 0, 10, 0, PI / 2, false);
    CHECK(QZPathGetElementCount(ccw) == 2);
    CHECK(element(ccw, 1, p) == kCGPathElementAddCurveToPoint);
    CHECK_NEAR(p[0].x, 10, 1e-12); CHECK_NEAR(p[0].y, k, 1e-12);
    CHECK_NEAR(p[2].x, 0, 1e-12); CHECK_NEAR(p[2].y, 10, 1e-12);

    /* clockwise: towards decreasing angles, 0 → -90° → -180° → -270° (= 90°). */
    CGMutablePathRef cw = CGPathCreateMutable();
    CGPathAddArc(cw, NULL, 0, 0, 10, 0, PI / 2, true);
    CHECK(QZPathGetElementCount(cw) == 4);
    element(cw, 1, p);
    CHECK_NEAR(p[2].x, 0, 1e-12); CHECK_NEAR(p[2].y, -10, 1e-12);
    CHECK_NEAR(p[0].y, -k, 1e-12);
    CGPoint end = CGPathGetCurrentPoint(cw);
    CHECK_NEAR(end.x, 0, 1e-12); CHECK_NEAR(end.y, 10, 1e-12);

    /* CGPath.h: 0 → 2π clockwise draws nothing; 2π → 0 clockwise a full circle. */
    CGMutablePathRef none = CGPathCreateMutable(), full = CGPathCreateMutable();
    CGPathAddArc(none, NULL, 0, 0, 10, 0, 2 * PI, true);
    CGPathAddArc(full, NULL, 0, 0, 10, 2 * PI, 0, true);
    CHECK(QZPathGetElementCount(none) == 1 && QZPathGetElementCount(full) == 5);
    CHECK_NEAR(QZPathGetLength(full), 4 * QZPathGetLength(ccw), 1e-9);   /* four equal quarters */

    /* With a current point, a line joins it to the arc's start (-10, 0). */
    CGMutablePathRef joined = CGPathCreateMutable();
    CGPathMoveToPoint(joined, NULL, 20, 20);
    CGPathAddArc(joined, NULL, 0, 0, 10, PI, 3 * PI / 2, false);
    CHECK(QZPathGetElementCount(joined) == 3);
    CHECK(element(joined, 1, p) == kCGPathElementAddLineToPoint);
    CHECK_NEAR(p[0].x, -10, 1e-12); CHECK_NEAR(p[0].y, 0, 1e-12);

    /* Tangent arc in the corner (0,0) → (10,0) → (10,10), radius 5: from (5, 0) to (10, 5). */
    CGMutablePathRef corner = CGPathCreateMutable();
    CGPathMoveToPoint(corner, NULL, 0, 0);
    CGPathAddArcToPoint(corner, NULL, 10, 0, 10, 10, 5);
    CHECK(element(corner, 1, p) == kCGPathElementAddLineToPoint);
    CHECK_NEAR(p[0].x, 5, 1e-12);
    CHECK(element(corner, 2, p) == kCGPathElementAddCurveToPoint);
    CHECK_NEAR(p[2].x, 10, 1e-12); CHECK_NEAR(p[2].y, 5, 1e-12);

    CGPathRelease(ccw); CGPathRelease(cw); CGPathRelease(none); CGPathRelease(full);
    CGPathRelease(joined); CGPathRelease(corner);
    CHECK_NO_ERROR();
}

static void rounded_rect(void) {
    CGPathRef rr = CGPathCreateWithRoundedRect(CGRectMake(0, 0, 100, 50), 10, 5, NULL);
    CGPoint p[3];
    CHECK(QZPathGetElementCount(rr) == 10);
    CHECK(element(rr, 0, p) == kCGPathElementMoveToPoint && p[0].x == 10 && p[0].y == 0);
    CHECK(element(rr, 2, p) == kCGPathElementAddCurveToPoint && p[2].x == 100 && p[2].y == 5);
    CHECK(!CGPathContainsPoint(rr, NULL, CGPointMake(1, 1), false));   /* outside the cut corner */
    CHECK(CGPathContainsPoint(rr, NULL, CGPointMake(50, 25), false));
    CGRect box = CGPathGetPathBoundingBox(rr);
    CHECK(box.origin.x == 0 && box.size.width == 100 && box.size.height == 50);
    CGPathRelease(rr);
    CHECK(CGPathCreateWithRoundedRect(CGRectMake(0, 0, 100, 50), 10, 26, NULL) == NULL);
    CHECK_ERROR(QZErrorInvalidArgument);
}

/* MARK: - Containment */

static void winding_and_even_odd(void) {
    CGMutablePathRef path = CGPathCreateMutable();
    CGRect rects[2] = { CGRectMake(0, 0, 100, 100), CGRectMake(25, 25, 50, 50) };   /* same direction */
    CGPathAddRects(path, NULL, rects, 2);
    CHECK(CGPathContainsPoint(path, NULL, CGPointMake(50, 50), false));    /* winding 2 */
    CHECK(!CGPathContainsPoint(path, NULL, CGPointMake(50, 50), true));    /* two crossings */
    CHECK(CGPathContainsPoint(path, NULL, CGPointMake(10, 10), true));
    CHECK(!CGPathContainsPoint(path, NULL, CGPointMake(-1, 10), false));
    /* m transforms the point: (150, 50) translated by -100 is (50, 50). */
    CGAffineTransform back = CGAffineTransformMakeTranslation(-100, 0);
    CHECK(CGPathContainsPoint(path, &back, CGPointMake(150, 50), false));
    CGPathRelease(path);
    CHECK_NO_ERROR();
}

/* MARK: - Immutability and bad input */

static void immutable_paths_reject_changes(void) {
    CGMutablePathRef m = CGPathCreateMutable();
    CGPathMoveToPoint(m, NULL, 1, 1);
    CGPathRef copy = CGPathCreateCopy(m);
    /* The C types keep callers honest; a cast gets past the compiler but not the library. */
    CGPathAddLineToPoint((CGMutablePathRef)copy, NULL, 2, 2);
    CHECK_ERROR(QZErrorWrongType);
    CGPathAddRect((CGMutablePathRef)copy, NULL, CGRectMake(0, 0, 1, 1));
    CHECK(strstr(QZGetLastErrorMessage(), "CGMutablePathRef") != NULL);
    CHECK_ERROR(QZErrorWrongType);
    CHECK(QZPathGetElementCount(copy) == 1);
    CGPathAddLineToPoint(m, NULL, 3, 3);
    CHECK(QZPathGetElementCount(copy) == 1 && QZPathGetElementCount(m) == 2);
    CGPathRef same = CGPathCreateCopy(copy);
    CHECK(same == copy);
    CGPathRelease(same);
    CGPathRelease(copy);
    CGPathRelease(m);
    CHECK_NO_ERROR();
}

static void bad_input_never_crashes(void) {
    CGColorRef color = CGColorCreateSRGB(1, 0, 0, 1);
    CGMutablePathRef path = CGPathCreateMutable();
    static uint64_t foreign[8];
    CGPathMoveToPoint(NULL, NULL, 0, 0);                       CHECK_ERROR(QZErrorNullArgument);
    CGPathMoveToPoint((CGMutablePathRef)(void *)color, NULL, 0, 0);   CHECK_ERROR(QZErrorWrongType);
    CGPathMoveToPoint((CGMutablePathRef)(void *)foreign, NULL, 0, 0); CHECK_ERROR(QZErrorWrongType);
    CGPathMoveToPoint(path, NULL, NAN, 0);                     CHECK_ERROR(QZErrorNotFinite);
    CGPathAddLineToPoint(path, NULL, 1, 1);                    CHECK_ERROR(QZErrorInvalidState);
    CGAffineTransform bad = CGAffineTransformMake(1, 0, 0, 1, 0, 0);
    bad.tx = NAN;
    CGPathAddEllipseInRect(path, &bad, CGRectMake(0, 0, 1, 1)); CHECK_ERROR(QZErrorNotFinite);
    CGPathAddArc(path, NULL, 0, 0, -5, 0, 1, false);            CHECK_ERROR(QZErrorInvalidArgument);
    CGPathAddRelativeArc(path, NULL, 0, 0, 5, INFINITY, 1);     CHECK_ERROR(QZErrorNotFinite);
    CGPathAddLines(path, NULL, NULL, 3);                        CHECK_ERROR(QZErrorNullArgument);
    CGPathAddRects(path, NULL, NULL, (size_t)-1);               CHECK_ERROR(QZErrorOutOfRange);
    CGPathAddPath(path, NULL, NULL);                            CHECK_ERROR(QZErrorNullArgument);
    CGPathAddRoundedRect(path, NULL, CGRectMake(0, 0, 10, 10), -1, 1); CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(CGPathIsEmpty(path));
    CHECK(CGPathIsEmpty(NULL));                                 CHECK_ERROR(QZErrorNullArgument);
    CHECK(!CGPathContainsPoint((CGPathRef)(void *)color, NULL, CGPointMake(0, 0), false)); CHECK_ERROR(QZErrorWrongType);
    CHECK(!CGPathContainsPoint(path, NULL, CGPointMake(0, NAN), false)); CHECK_ERROR(QZErrorNotFinite);
    CHECK(CGPathCreateWithRect(CGRectNull, NULL) == NULL);      CHECK_ERROR(QZErrorNotFinite);
    CHECK(CGPathCreateMutableCopy(NULL) == NULL);               CHECK_ERROR(QZErrorNullArgument);
    CGPoint pts[3];
    CHECK(QZPathGetElementAtIndex(path, 0, pts) == kCGPathElementCloseSubpath); CHECK_ERROR(QZErrorOutOfRange);
    CHECK(QZPathGetElementAtIndex(path, (size_t)-1, NULL) == kCGPathElementCloseSubpath); CHECK_ERROR(QZErrorOutOfRange);
    CHECK(QZPathGetLength((CGPathRef)(void *)foreign) == 0);    CHECK_ERROR(QZErrorWrongType);
    CGPathApply(path, NULL, NULL);                              CHECK_ERROR(QZErrorNullArgument);
    CHECK(CGPathRetain(NULL) == NULL);
    CGPathRelease(NULL);
    CHECK_NO_ERROR();
    CGPathRelease(path);
    CGColorRelease(color);
}

/* MARK: - Measuring */

static void length_and_point_at_distance(void) {
    CGPathRef rect = CGPathCreateWithRect(CGRectMake(0, 0, 100, 50), NULL);
    CGPoint tangent;
    CGPoint p = QZPathGetPointAtDistance(rect, 120, &tangent);   /* 100 along the bottom, 20 up the right */
    CHECK(p.x == 100 && p.y == 20 && tangent.x == 0 && tangent.y == 1);
    p = QZPathGetPointAtDistance(rect, 200, &tangent);           /* halfway along the top, going left */
    CHECK(p.x == 50 && p.y == 50 && tangent.x == -1 && tangent.y == 0);
    CGPathRelease(rect);

    /* Circle of radius 10: the four-Bézier circle measures 62.84067 (1.4e-4
     * longer than 2π·10); a quarter of it ends at (0, 10). */
    CGPathRef circle = CGPathCreateWithEllipseInRect(CGRectMake(-10, -10, 20, 20), NULL);
    double length = QZPathGetLength(circle);
    CHECK_NEAR(length, 62.84067, 1e-5);
    CHECK(fabs(length - 2 * PI * 10) < 0.01);
    p = QZPathGetPointAtDistance(circle, length / 4, &tangent);
    CHECK_NEAR(p.x, 0, 1e-9); CHECK_NEAR(p.y, 10, 1e-9);
    CHECK_NEAR(tangent.x, -1, 1e-9);
    CGPathRelease(circle);
    CHECK_NO_ERROR();
}

/* MARK: - CGPathApply with a libffi closure: void (*)(void *info, const CGPathElement *) */

typedef struct { int calls; int types[16]; double sum; void *info_seen; CGMutablePathRef target; } apply_state;

static void applier_trampoline(ffi_cif *cif, void *ret, void **args, void *user_data) {
    (void)cif; (void)ret;
    apply_state *state = user_data;
    void *info = *(void **)args[0];                  /* info comes FIRST, as in Apple's CGPath.h */
    const CGPathElement *element = *(const CGPathElement **)args[1];
    state->info_seen = info;
    if (state->calls < 16) state->types[state->calls] = element->type;
    static const int counts[] = { 1, 1, 2, 3, 0 };
    for (int i = 0; i < counts[element->type]; i++) state->sum += element->points[i].x + element->points[i].y;
    state->calls++;
    /* Re-entrancy: change the path being walked (the walk sees the old contents). */
    if (state->target) CGPathAddLineToPoint(state->target, NULL, 0, 0);
}

static void ffi_applier(void) {
    ffi_cif cif;
    ffi_type *argtypes[] = { &ffi_type_pointer, &ffi_type_pointer };
    void *code = NULL;
    ffi_closure *closure = ffi_closure_alloc(sizeof(ffi_closure), &code);
    CHECK(closure != NULL);
    CHECK(ffi_prep_cif(&cif, FFI_DEFAULT_ABI, 2, &ffi_type_void, argtypes) == FFI_OK);
    apply_state state;
    memset(&state, 0, sizeof state);
    CHECK(ffi_prep_closure_loc(closure, &cif, applier_trampoline, &state, code) == FFI_OK);
    CGPathApplierFunction fn;
    memcpy(&fn, &code, sizeof fn);

    CGMutablePathRef path = CGPathCreateMutable();
    CGPathMoveToPoint(path, NULL, 1, 2);                          /* sum 3 */
    CGPathAddQuadCurveToPoint(path, NULL, 3, 4, 5, 6);           /* sum 18 */
    CGPathAddCurveToPoint(path, NULL, 7, 8, 9, 10, 11, 12);      /* sum 57 */
    CGPathCloseSubpath(path);
    int token = 11;
    state.target = path;
    CGPathApply(path, &token, fn);
    CHECK(state.calls == 4);
    CHECK(state.types[0] == kCGPathElementMoveToPoint && state.types[1] == kCGPathElementAddQuadCurveToPoint);
    CHECK(state.types[2] == kCGPathElementAddCurveToPoint && state.types[3] == kCGPathElementCloseSubpath);
    CHECK(state.sum == 3 + 18 + 57);
    CHECK(state.info_seen == &token);
    CHECK(QZPathGetElementCount(path) == 8);                     /* four lines added during the walk */

    /* An immutable path can be walked too. */
    memset(&state, 0, sizeof state);
    CGPathRef rect = CGPathCreateWithRect(CGRectMake(1, 1, 2, 2), NULL);
    CGPathApply(rect, NULL, fn);
    CHECK(state.calls == 5 && state.types[4] == kCGPathElementCloseSubpath && state.info_seen == NULL);
    CGPathRelease(rect);
    CGPathRelease(path);
    ffi_closure_free(closure);
    CHECK_NO_ERROR();
}

/* MARK: - Threads: readers of a shared path while another thread changes it */

static CGMutablePathRef shared_path;
static CGPathRef shared_frozen;

static void *reader(void *arg) {
    (void)arg;
    long bad = 0;
    for (int i = 0; i < 20000; i++) {
        size_t n = QZPathGetElementCount(shared_path);
        if (n < 1) bad++;
        CGRect box = CGPathGetBoundingBox(shared_path);
        if (box.size.width < 10) bad++;
        if (!CGPathContainsPoint(shared_frozen, NULL, CGPointMake(5, 5), false)) bad++;
        CGPathRef copy = CGPathCreateCopy(shared_path);
        if (QZPathGetElementCount(copy) < n) bad++;
        CGPathRelease(copy);
        if (QZGetLastError() != QZErrorNone) bad++;
    }
    return (void *)bad;
}

static void *writer(void *arg) {
    (void)arg;
    for (int i = 0; i < 20000; i++) CGPathAddLineToPoint(shared_path, NULL, i % 10, i % 7);
    return NULL;
}

static void paths_across_threads(void) {
    shared_path = CGPathCreateMutable();
    CGPathAddRect(shared_path, NULL, CGRectMake(0, 0, 10, 10));
    shared_frozen = CGPathCreateCopy(shared_path);
    pthread_t threads[4];
    pthread_create(&threads[0], NULL, writer, NULL);
    for (int t = 1; t < 4; t++) pthread_create(&threads[t], NULL, reader, NULL);
    for (int t = 0; t < 4; t++) {
        void *bad = NULL;
        pthread_join(threads[t], &bad);
        CHECK(bad == NULL);
    }
    CHECK(QZPathGetElementCount(shared_path) == 5 + 20000);
    CGPathRelease(shared_frozen);
    CGPathRelease(shared_path);
}

int main(void) {
    RUN(rect_and_ellipse_elements);
    RUN(bounding_boxes);
    RUN(arcs);
    RUN(rounded_rect);
    RUN(winding_and_even_odd);
    RUN(immutable_paths_reject_changes);
    RUN(bad_input_never_crashes);
    RUN(length_and_point_at_distance);
    RUN(ffi_applier);
    RUN(paths_across_threads);
    return qz_summary();
}
