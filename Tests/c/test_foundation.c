/* Geometry, affine and 3D transform math, media time and the error state,
 * through the C ABI, with worked numeric examples from Apple's documented
 * semantics (row vectors, t' = op * t, translation in m41..m43). */
#include <float.h>
#include <stdint.h>
#include <time.h>
#include "qz_test.h"

static const double PI = 3.14159265358979323846;

static void rect_helpers(void) {
    CGRect r = CGRectMake(10, 0, -4, 2);
    CHECK_NEAR(CGRectGetMinX(r), 6, 0);
    CHECK_NEAR(CGRectGetMaxX(r), 10, 0);
    CHECK_NEAR(CGRectGetMidX(r), 8, 0);
    CHECK_NEAR(CGRectGetWidth(r), 4, 0);
    CHECK_NEAR(CGRectGetHeight(r), 2, 0);
    CHECK_NEAR(CGRectGetMinY(r), 0, 0);
    CHECK_NEAR(CGRectGetMidY(r), 1, 0);
    CHECK_NEAR(CGRectGetMaxY(r), 2, 0);

    CGRect s = CGRectStandardize(CGRectMake(10, 10, -5, -5));
    CHECK(CGRectEqualToRect(s, CGRectMake(5, 5, 5, 5)));
    CHECK(s.origin.x == 5 && s.size.width == 5);

    CGRect i = CGRectIntersection(CGRectMake(0, 0, 10, 10), CGRectMake(5, 5, 10, 10));
    CHECK(i.origin.x == 5 && i.origin.y == 5 && i.size.width == 5 && i.size.height == 5);
    CHECK(CGRectIsNull(CGRectIntersection(CGRectMake(0, 0, 10, 10), CGRectMake(20, 0, 5, 5))));
    CGRect touch = CGRectIntersection(CGRectMake(0, 0, 10, 10), CGRectMake(10, 0, 10, 10));
    CHECK(!CGRectIsNull(touch) && touch.origin.x == 10 && touch.size.width == 0);
    CHECK(CGRectIsEmpty(touch));

    CGRect u = CGRectUnion(CGRectMake(0, 0, 10, 10), CGRectMake(20, 5, 5, 10));
    CHECK(CGRectEqualToRect(u, CGRectMake(0, 0, 25, 15)));
    CHECK(CGRectEqualToRect(CGRectUnion(CGRectNull, CGRectMake(1, 2, 3, 4)), CGRectMake(1, 2, 3, 4)));

    CHECK(CGRectEqualToRect(CGRectInset(CGRectMake(0, 0, 10, 10), 2, 3), CGRectMake(2, 3, 6, 4)));
    CHECK(CGRectEqualToRect(CGRectInset(CGRectMake(0, 0, 10, 10), -1, -1), CGRectMake(-1, -1, 12, 12)));
    CHECK(CGRectIsNull(CGRectInset(CGRectMake(0, 0, 10, 10), 6, 0)));
    CHECK(CGRectEqualToRect(CGRectOffset(CGRectMake(1, 2, 3, 4), 10, 20), CGRectMake(11, 22, 3, 4)));
    CHECK(CGRectEqualToRect(CGRectIntegral(CGRectMake(0.5, 0.5, 1.2, 1.2)), CGRectMake(0, 0, 2, 2)));

    CHECK(CGRectContainsPoint(CGRectMake(0, 0, 10, 10), CGPointMake(0, 0)));
    CHECK(CGRectContainsPoint(CGRectMake(0, 0, 10, 10), CGPointMake(9.999, 9.999)));
    CHECK(!CGRectContainsPoint(CGRectMake(0, 0, 10, 10), CGPointMake(10, 5)));
    CHECK(CGRectContainsRect(CGRectMake(0, 0, 10, 10), CGRectMake(2, 2, 8, 8)));
    CHECK(!CGRectContainsRect(CGRectMake(0, 0, 10, 10), CGRectMake(2, 2, 9, 8)));
    CHECK(CGRectIntersectsRect(CGRectMake(0, 0, 10, 10), CGRectMake(9, 9, 5, 5)));
    CHECK(!CGRectIntersectsRect(CGRectMake(0, 0, 10, 10), CGRectMake(11, 0, 5, 5)));

    CHECK(CGRectEqualToRect(CGRectMake(0, 0, 10, 10), CGRectMake(10, 10, -10, -10)));
    CHECK(CGRectIsNull(CGRectNull) && CGRectIsEmpty(CGRectNull));
    CHECK(CGRectIsInfinite(CGRectInfinite) && !CGRectIsNull(CGRectInfinite));
    CHECK(CGRectContainsPoint(CGRectInfinite, CGPointMake(1e300, -1e300)));
    CHECK(CGRectIsEmpty(CGRectMake(0, 0, 0, 5)) && !CGRectIsEmpty(CGRectMake(0, 0, 1, 5)));
    CHECK(CGRectIsEmpty(CGRectZero));
    CHECK(CGPointEqualToPoint(CGPointMake(1, 2), CGPointMake(1, 2)));
    CHECK(!CGPointEqualToPoint(CGPointMake(1, 2), CGPointMake(2, 1)));
    CHECK(CGSizeEqualToSize(CGSizeMake(3, 4), CGSizeMake(3, 4)));
    CHECK(CGPointZero.x == 0 && CGSizeZero.width == 0);
    CHECK_NO_ERROR();
}

static void rect_bad_input(void) {
    CGRect r = CGRectMake(NAN, 0, 1, 1);
    CHECK_ERROR(QZErrorNotFinite);
    CHECK(CGRectIsNull(r));
    CGRect bad = { { 0, NAN }, { 1, 1 } };
    CHECK(CGRectGetMinX(bad) == 0); CHECK_ERROR(QZErrorNotFinite);
    CHECK(CGRectIsNull(CGRectUnion(bad, CGRectMake(0, 0, 1, 1)))); CHECK_ERROR(QZErrorNotFinite);
    CHECK(!CGRectContainsPoint(CGRectMake(0, 0, 5, 5), (CGPoint){ NAN, 1 })); CHECK_ERROR(QZErrorNotFinite);
    CHECK(CGRectIsNull(CGRectInset(CGRectMake(0, 0, 5, 5), NAN, 0))); CHECK_ERROR(QZErrorNotFinite);
    CGPoint p = CGPointMake(1, NAN); CHECK_ERROR(QZErrorNotFinite);
    CHECK(p.x == 0 && p.y == 0);
    CGSize s = CGSizeMake(NAN, 1); CHECK_ERROR(QZErrorNotFinite);
    CHECK(s.width == 0);
    CHECK(!CGSizeEqualToSize(CGSizeMake(1, 1), (CGSize){ NAN, 1 })); CHECK_ERROR(QZErrorNotFinite);
    /* Infinities are legitimate geometry (the null rectangle uses them). */
    CGRect inf = CGRectMake(INFINITY, INFINITY, 0, 0);
    CHECK_NO_ERROR();
    CHECK(CGRectIsNull(inf));
}

static void affine_transforms(void) {
    CGAffineTransform r = CGAffineTransformMakeRotation(PI / 2);
    CHECK_NEAR(r.a, 0, 1e-15); CHECK_NEAR(r.b, 1, 1e-15);
    CHECK_NEAR(r.c, -1, 1e-15); CHECK_NEAR(r.d, 0, 1e-15);
    CGPoint p = CGPointApplyAffineTransform(CGPointMake(1, 0), r);
    CHECK_NEAR(p.x, 0, 1e-15); CHECK_NEAR(p.y, 1, 1e-15);

    /* Translate(t) = translate * t: the translation is scaled by t. */
    CGAffineTransform ts = CGAffineTransformTranslate(CGAffineTransformMakeScale(2, 2), 10, 0);
    CHECK(ts.tx == 20 && ts.a == 2);
    CGAffineTransform st = CGAffineTransformScale(CGAffineTransformMakeTranslation(10, 0), 2, 3);
    CHECK(st.tx == 10 && st.a == 2 && st.d == 3);
    CGAffineTransform rt = CGAffineTransformRotate(CGAffineTransformMakeTranslation(10, 0), PI / 2);
    p = CGPointApplyAffineTransform(CGPointMake(1, 0), rt);
    CHECK_NEAR(p.x, 10, 1e-12); CHECK_NEAR(p.y, 1, 1e-12);

    /* Concat(t1, t2) applies t1 first. */
    CGAffineTransform c = CGAffineTransformConcat(CGAffineTransformMakeTranslation(10, 0), CGAffineTransformMakeScale(2, 2));
    p = CGPointApplyAffineTransform(CGPointMake(0, 0), c);
    CHECK(p.x == 20 && p.y == 0);

    CGAffineTransform m = CGAffineTransformMake(2, 0, 0, 4, 10, 20);
    CGAffineTransform inv = CGAffineTransformInvert(m);
    CHECK(inv.a == 0.5 && inv.d == 0.25 && inv.tx == -5 && inv.ty == -5);
    p = CGPointApplyAffineTransform(CGPointApplyAffineTransform(CGPointMake(3, 7), m), inv);
    CHECK_NEAR(p.x, 3, 1e-12); CHECK_NEAR(p.y, 7, 1e-12);
    CGAffineTransform singular = CGAffineTransformMake(1, 2, 2, 4, 5, 6);
    CHECK(CGAffineTransformEqualToTransform(CGAffineTransformInvert(singular), singular));

    CGRect box = CGRectApplyAffineTransform(CGRectMake(0, 0, 10, 20), r);
    CHECK_NEAR(box.origin.x, -20, 1e-12); CHECK_NEAR(box.origin.y, 0, 1e-12);
    CHECK_NEAR(box.size.width, 20, 1e-12); CHECK_NEAR(box.size.height, 10, 1e-12);
    CHECK(CGRectIsNull(CGRectApplyAffineTransform(CGRectNull, r)));
    CGSize sz = CGSizeApplyAffineTransform(CGSizeMake(3, 4), CGAffineTransformMake(2, 0, 0, 2, 100, 100));
    CHECK(sz.width == 6 && sz.height == 8);

    CHECK(CGAffineTransformIsIdentity(CGAffineTransformIdentity));
    CHECK(!CGAffineTransformIsIdentity(m));
    CHECK_NO_ERROR();

    CGAffineTransform bad = CGAffineTransformMakeRotation(NAN);
    CHECK_ERROR(QZErrorNotFinite);
    CHECK(CGAffineTransformIsIdentity(bad));
    CGAffineTransform kept = CGAffineTransformTranslate(m, INFINITY, 0);
    CHECK_ERROR(QZErrorNotFinite);
    CHECK(CGAffineTransformEqualToTransform(kept, m));
    CGAffineTransform nanT = m; nanT.c = NAN;
    CHECK(CGAffineTransformEqualToTransform(CGAffineTransformConcat(nanT, m), nanT) == 0);
    CHECK_ERROR(QZErrorNotFinite);
}

static void transform3d_constructors(void) {
    CATransform3D t = CATransform3DMakeTranslation(10, 20, 30);
    CATransform3D e = CATransform3DIdentity;
    e.m41 = 10; e.m42 = 20; e.m43 = 30;
    CHECK(CATransform3DEqualToTransform(t, e));

    CATransform3D s = CATransform3DMakeScale(2, 3, 4);
    CHECK(s.m11 == 2 && s.m22 == 3 && s.m33 == 4 && s.m44 == 1 && s.m41 == 0);

    /* About z: m11 = cos, m12 = sin, m21 = -sin, m22 = cos. */
    CATransform3D rz = CATransform3DMakeRotation(PI / 2, 0, 0, 1);
    CHECK_NEAR(rz.m11, 0, 1e-15); CHECK_NEAR(rz.m12, 1, 1e-15);
    CHECK_NEAR(rz.m21, -1, 1e-15); CHECK_NEAR(rz.m22, 0, 1e-15);
    CHECK(rz.m33 == 1 && rz.m44 == 1);

    /* 30 degrees about z, unnormalised axis. */
    CATransform3D r30 = CATransform3DMakeRotation(PI / 6, 0, 0, 5);
    CHECK_NEAR(r30.m11, sqrt(3) / 2, 1e-15); CHECK_NEAR(r30.m12, 0.5, 1e-15);
    CHECK_NEAR(r30.m21, -0.5, 1e-15);

    /* 120 degrees about (1,1,1) maps x->y, y->z, z->x. */
    CATransform3D r = CATransform3DMakeRotation(2 * PI / 3, 1, 1, 1);
    CATransform3D perm = { 0, 1, 0, 0,  0, 0, 1, 0,  1, 0, 0, 0,  0, 0, 0, 1 };
    CHECK(qz_transform_near(r, perm, 1e-15));

    /* About x by 90 degrees: y -> z. */
    CATransform3D rx = CATransform3DMakeRotation(PI / 2, 1, 0, 0);
    CHECK_NEAR(rx.m22, 0, 1e-15); CHECK_NEAR(rx.m23, 1, 1e-15); CHECK_NEAR(rx.m32, -1, 1e-15);

    /* A zero-length axis gives the identity, with no error. */
    CHECK(CATransform3DIsIdentity(CATransform3DMakeRotation(1.0, 0, 0, 0)));
    CHECK_NO_ERROR();

    CGAffineTransform a = CGAffineTransformMake(1, 2, 3, 4, 5, 6);
    CATransform3D fromA = CATransform3DMakeAffineTransform(a);
    CATransform3D expected = { 1, 2, 0, 0,  3, 4, 0, 0,  0, 0, 1, 0,  5, 6, 0, 1 };
    CHECK(CATransform3DEqualToTransform(fromA, expected));
    CHECK(CATransform3DIsAffine(fromA));
    CGAffineTransform back = CATransform3DGetAffineTransform(fromA);
    CHECK(CGAffineTransformEqualToTransform(back, a));
    CGAffineTransform rzA = CATransform3DGetAffineTransform(rz);
    CHECK_NEAR(rzA.b, 1, 1e-15); CHECK_NEAR(rzA.c, -1, 1e-15);

    CATransform3D persp = CATransform3DIdentity; persp.m34 = -1.0 / 500;
    CHECK(!CATransform3DIsAffine(persp));
    CHECK(!CATransform3DIsAffine(rx));
    CHECK(!CATransform3DIsAffine(CATransform3DMakeTranslation(0, 0, 1)));
    CHECK(CATransform3DIsAffine(rz));

    CATransform3D negZero = CATransform3DIdentity; negZero.m12 = -0.0;
    CHECK(CATransform3DIsIdentity(negZero));
    CATransform3D withNaN = CATransform3DIdentity; withNaN.m12 = NAN;
    CHECK(!CATransform3DEqualToTransform(withNaN, withNaN));
    CHECK_NO_ERROR();
}

static void transform3d_operations(void) {
    /* Translate(t) = translate * t: translating a scale moves by the scaled amount. */
    CATransform3D ts = CATransform3DTranslate(CATransform3DMakeScale(2, 2, 1), 10, 0, 0);
    CHECK(ts.m41 == 20 && ts.m11 == 2);
    /* Scale(t) = scale * t: scaling a translation leaves the translation. */
    CATransform3D st = CATransform3DScale(CATransform3DMakeTranslation(10, 0, 0), 2, 2, 1);
    CHECK(st.m41 == 10 && st.m11 == 2 && st.m22 == 2);
    /* Rotate(t) = rotation * t: (1,0) rotates to (0,1), then moves by (10,0). */
    CATransform3D rt = CATransform3DRotate(CATransform3DMakeTranslation(10, 0, 0), PI / 2, 0, 0, 1);
    CHECK_NEAR(rt.m41, 10, 1e-15); CHECK_NEAR(rt.m12, 1, 1e-15); CHECK_NEAR(rt.m21, -1, 1e-15);
    /* Concat(a, b) = a * b: a first. Translate (10,0) then rotate a quarter turn: origin -> (0,10). */
    CATransform3D c = CATransform3DConcat(CATransform3DMakeTranslation(10, 0, 0), CATransform3DMakeRotation(PI / 2, 0, 0, 1));
    CHECK_NEAR(c.m41, 0, 1e-15); CHECK_NEAR(c.m42, 10, 1e-15);
    /* The general product, entry by entry. */
    CATransform3D a = { 1, 2, 3, 4,  5, 6, 7, 8,  9, 10, 11, 12,  13, 14, 15, 16 };
    CATransform3D b = { 2, 0, 0, 1,  0, 3, 0, 0,  1, 0, 1, 0,  0, 0, 0, 1 };
    CATransform3D ab = CATransform3DConcat(a, b);
    CATransform3D abExpected = { 5, 6, 3, 5,  17, 18, 7, 13,  29, 30, 11, 21,  41, 42, 15, 29 };
    CHECK(CATransform3DEqualToTransform(ab, abExpected));

    CATransform3D inv = CATransform3DInvert(CATransform3DMakeTranslation(10, 20, 30));
    CHECK(CATransform3DEqualToTransform(inv, CATransform3DMakeTranslation(-10, -20, -30)));
    CHECK(CATransform3DEqualToTransform(CATransform3DInvert(CATransform3DMakeScale(2, 4, 8)), CATransform3DMakeScale(0.5, 0.25, 0.125)));
    CATransform3D persp = CATransform3DRotate(CATransform3DIdentity, 0.7, 1, 2, 3);
    persp.m34 = -1.0 / 500; persp.m41 = 12; persp.m43 = -7;
    CHECK(qz_transform_near(CATransform3DConcat(persp, CATransform3DInvert(persp)), CATransform3DIdentity, 1e-12));
    CHECK(qz_transform_near(CATransform3DConcat(CATransform3DInvert(persp), persp), CATransform3DIdentity, 1e-12));
    /* A singular matrix comes back unchanged, with no error. */
    CATransform3D singular = CATransform3DMakeScale(0, 1, 1);
    CHECK(CATransform3DEqualToTransform(CATransform3DInvert(singular), singular));
    CHECK(CATransform3DEqualToTransform(CATransform3DInvert(a), a));
    CHECK_NO_ERROR();
}

static void transform3d_bad_input(void) {
    CHECK(CATransform3DIsIdentity(CATransform3DMakeRotation(NAN, 0, 0, 1))); CHECK_ERROR(QZErrorNotFinite);
    CHECK(CATransform3DIsIdentity(CATransform3DMakeTranslation(INFINITY, 0, 0))); CHECK_ERROR(QZErrorNotFinite);
    CHECK(CATransform3DIsIdentity(CATransform3DMakeScale(1, NAN, 1))); CHECK_ERROR(QZErrorNotFinite);
    CATransform3D t = CATransform3DMakeTranslation(1, 2, 3);
    CHECK(CATransform3DEqualToTransform(CATransform3DTranslate(t, NAN, 0, 0), t)); CHECK_ERROR(QZErrorNotFinite);
    CHECK(CATransform3DEqualToTransform(CATransform3DScale(t, 1, 1, -INFINITY), t)); CHECK_ERROR(QZErrorNotFinite);
    CHECK(CATransform3DEqualToTransform(CATransform3DRotate(t, 1, NAN, 0, 1), t)); CHECK_ERROR(QZErrorNotFinite);
    CATransform3D bad = CATransform3DIdentity; bad.m23 = NAN;
    CHECK(CATransform3DEqualToTransform(CATransform3DConcat(t, bad), t)); CHECK_ERROR(QZErrorNotFinite);
    CATransform3D badInv = CATransform3DInvert(bad); CHECK_ERROR(QZErrorNotFinite);
    CHECK(isnan(badInv.m23));
    CGAffineTransform badA = { 1, 0, 0, 1, NAN, 0 };
    CHECK(CATransform3DIsIdentity(CATransform3DMakeAffineTransform(badA))); CHECK_ERROR(QZErrorNotFinite);
    CATransform3DMakeScale(NAN, 1, 1);
    CHECK(strncmp(QZGetLastErrorMessage(), "CATransform3DMakeScale:", 23) == 0);
    QZClearLastError();
    CHECK(QZGetLastError() == QZErrorNone && QZGetLastErrorMessage()[0] == '\0');
}

static double fixed_time(void *info) { return *(double *)info; }

static void media_time(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double before = ts.tv_sec + ts.tv_nsec * 1e-9;
    double t1 = CACurrentMediaTime();
    double t2 = CACurrentMediaTime();
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double after = ts.tv_sec + ts.tv_nsec * 1e-9;
    CHECK(t1 >= before && t2 >= t1 && t2 <= after);

    double now = 42.5;
    QZSetMediaTimeSource(fixed_time, &now);
    CHECK(CACurrentMediaTime() == 42.5);
    now = 43.0;
    CHECK(CACurrentMediaTime() == 43.0);
    now = NAN;
    double fallback = CACurrentMediaTime();
    CHECK_ERROR(QZErrorNotFinite);
    CHECK(fallback >= before && isfinite(fallback));
    now = INFINITY;
    fallback = CACurrentMediaTime();
    CHECK_ERROR(QZErrorNotFinite);
    CHECK(fallback >= before && isfinite(fallback));
    QZSetMediaTimeSource(NULL, NULL);
    CHECK(CACurrentMediaTime() >= after);
    CHECK_NO_ERROR();
}

int main(void) {
    RUN(rect_helpers);
    RUN(rect_bad_input);
    RUN(affine_transforms);
    RUN(transform3d_constructors);
    RUN(transform3d_operations);
    RUN(transform3d_bad_input);
    RUN(media_time);
    return qz_summary();
}
