/* CASpringAnimation through the C ABI: presentation values against the
 * closed-form damped spring computed here (under-, critically and
 * over-damped), settlingDuration against the time the response stays within
 * 0.001 of the distance, the perceptualDuration/bounce initialiser, and bad
 * input (wrong kinds, non-positive mass or stiffness, negative damping, NaN). */
#include <complex.h>
#include "qz_test.h"

static double now_seconds;
static double fake_clock(void *info) { (void)info; return now_seconds; }

/* x(t) of m x'' + c x' + k x = 0 with x(0) = 1, x'(0) = -v, from the roots of
 * m r^2 + c r + k = 0 in complex arithmetic (a double root: (1 + (x'0 - r) t) e^{rt}). */
static double reference(double m, double k, double c, double v, double t) {
    double disc = c * c - 4 * m * k;
    if (disc == 0) {
        double r = -c / (2 * m);
        return (1 + (-v - r) * t) * exp(r * t);
    }
    double complex root = csqrt((double complex)disc);
    double complex r1 = (-c + root) / (2 * m), r2 = (-c - root) / (2 * m);
    double complex a = (-v - r2) / (r1 - r2), b = (r1 + v) / (r1 - r2);
    return creal(a * cexp(r1 * t) + b * cexp(r2 * t));
}

static double presented_x(CALayerRef layer) {
    CALayerRef p = CALayerCopyPresentationLayer(layer);
    double x = CALayerGetPosition(p).x;
    CARelease(p);
    return x;
}

static void springs_follow_the_closed_form(void) {
    static const double springs[][4] = {           /* mass, stiffness, damping, velocity */
        { 1, 100, 10, 0 },  { 2, 50, 4, 3 },       /* under-damped */
        { 1, 100, 20, 0 },  { 4, 25, 20, -2 },     /* critically damped: c^2 = 4mk */
        { 1, 100, 50, 0 },  { 0.5, 200, 60, 5 },   /* over-damped */
    };
    static const double times[] = { 0, 0.03, 0.1, 0.25, 0.6, 1.1, 2.5 };
    QZSetMediaTimeSource(fake_clock, NULL);
    for (size_t s = 0; s < sizeof springs / sizeof springs[0]; s++) {
        double m = springs[s][0], k = springs[s][1], c = springs[s][2], v = springs[s][3];
        now_seconds = 100;
        CALayerRef layer = CALayerCreate();
        CATransactionFlush();
        CAAnimationRef a = CASpringAnimationCreate("position.x");
        CHECK(strcmp(QZGetTypeName(a), "CASpringAnimation") == 0);
        CASpringAnimationSetMass(a, m);
        CASpringAnimationSetStiffness(a, k);
        CASpringAnimationSetDamping(a, c);
        CASpringAnimationSetInitialVelocity(a, v);
        CHECK(!CASpringAnimationGetAllowsOverdamping(a));   /* Apple's default */
        CASpringAnimationSetAllowsOverdamping(a, true);      /* (the over-damped rows overdamp) */
        CHECK_NO_ERROR();
        CAValueRef from = CAValueCreateNumber(0), to = CAValueCreateNumber(1);
        CABasicAnimationSetFromValue(a, from);   /* the CABasicAnimation setters accept the subclass */
        CABasicAnimationSetToValue(a, to);
        CHECK_NO_ERROR();
        CARelease(from); CARelease(to);
        CAAnimationSetDuration(a, 3);
        CALayerAddAnimation(layer, a, "spring");
        CATransactionFlush();
        for (size_t i = 0; i < sizeof times / sizeof times[0]; i++) {
            now_seconds = 100 + times[i];
            CHECK_NEAR(presented_x(layer), 1 - reference(m, k, c, v, times[i]), 1e-6);
        }
        /* settlingDuration: at the threshold there, within it from then on. */
        double settle = CASpringAnimationGetSettlingDuration(a);
        CHECK(settle > 0 && isfinite(settle));
        CHECK_NEAR(fabs(reference(m, k, c, v, settle)), 0.001, 1e-9);
        int stays = 1;
        for (int i = 1; i <= 10000; i++) stays &= fabs(reference(m, k, c, v, settle + i * 0.001)) <= 0.001;
        CHECK(stays);
        CARelease(a);
        CARelease(layer);
    }
    QZSetMediaTimeSource(NULL, NULL);
}

static void defaults_perceptual_initialiser_and_bad_input(void) {
    CAAnimationRef a = CASpringAnimationCreate(NULL);
    CHECK(CASpringAnimationGetMass(a) == 1 && CASpringAnimationGetStiffness(a) == 100);
    CHECK(CASpringAnimationGetDamping(a) == 10 && CASpringAnimationGetInitialVelocity(a) == 0);
    CHECK(CAAnimationGetDuration(a) == 0);                 /* like every animation's */
    CHECK(CAPropertyAnimationGetKeyPath(a) == NULL);
    CHECK_NEAR(CASpringAnimationGetPerceptualDuration(a), 2 * M_PI / 10, 1e-12);
    CHECK_NEAR(CASpringAnimationGetBounce(a), 0.5, 1e-12);  /* damping ratio 0.5 */

    /* Rejected values leave the parameter unchanged. */
    CASpringAnimationSetMass(a, 0);                 CHECK_ERROR(QZErrorInvalidArgument);
    CASpringAnimationSetStiffness(a, -5);           CHECK_ERROR(QZErrorInvalidArgument);
    CASpringAnimationSetDamping(a, -0.1);           CHECK_ERROR(QZErrorInvalidArgument);
    CASpringAnimationSetInitialVelocity(a, NAN);    CHECK_ERROR(QZErrorNotFinite);
    CASpringAnimationSetMass(a, INFINITY);          CHECK_ERROR(QZErrorNotFinite);
    CHECK(CASpringAnimationGetMass(a) == 1 && CASpringAnimationGetStiffness(a) == 100);
    CHECK(CASpringAnimationGetDamping(a) == 10 && CASpringAnimationGetInitialVelocity(a) == 0);
    CASpringAnimationSetDamping(a, 0);              CHECK_NO_ERROR();
    CHECK(isinf(CASpringAnimationGetSettlingDuration(a)));   /* undamped: never settles */

    /* Key-value coding reaches the same parameters. */
    CAValueRef three = CAValueCreateNumber(3);
    CAAnimationSetValueForKey(a, "mass", three);    CHECK_NO_ERROR();
    CHECK(CASpringAnimationGetMass(a) == 3);
    CAAnimationSetValueForKey(a, "settlingDuration", three);  CHECK_ERROR(QZErrorInvalidArgument);
    CARelease(three);

    /* Spring functions on other kinds, and NULL. */
    CAAnimationRef basic = CABasicAnimationCreate("opacity");
    CASpringAnimationSetMass(basic, 2);             CHECK_ERROR(QZErrorWrongType);
    CHECK(CASpringAnimationGetSettlingDuration(basic) == 0);  CHECK_ERROR(QZErrorWrongType);
    CASpringAnimationSetDamping(NULL, 2);           CHECK_ERROR(QZErrorNullArgument);
    CARelease(basic);
    CARelease(a);

    /* perceptualDuration/bounce: mass 1, stiffness (2 pi / d)^2, damping ratio 1 - bounce. */
    CAAnimationRef p = CASpringAnimationCreateWithPerceptualDuration(0.5, 0.3);
    CHECK_NO_ERROR();
    CHECK(CASpringAnimationGetMass(p) == 1);
    CHECK_NEAR(CASpringAnimationGetStiffness(p), pow(2 * M_PI / 0.5, 2), 1e-9);
    CHECK_NEAR(CASpringAnimationGetDamping(p), 2 * 0.7 * sqrt(CASpringAnimationGetStiffness(p)), 1e-9);
    CHECK_NEAR(CASpringAnimationGetPerceptualDuration(p), 0.5, 1e-12);
    CHECK_NEAR(CASpringAnimationGetBounce(p), 0.3, 1e-12);
    CHECK(CAAnimationGetDuration(p) == CASpringAnimationGetSettlingDuration(p));
    CARelease(p);
    p = CASpringAnimationCreateWithPerceptualDuration(1, -0.5);   /* overdamped: ratio 1 / (1 + b) = 2 */
    CHECK_NEAR(CASpringAnimationGetDamping(p), 2 * 2 * sqrt(CASpringAnimationGetStiffness(p)), 1e-9);
    CHECK_NEAR(CASpringAnimationGetBounce(p), -0.5, 1e-12);
    CHECK(CASpringAnimationGetAllowsOverdamping(p));   /* a negative bounce overdamps */
    CARelease(p);
    /* Without allowsOverdamping a damping above critical settles as the critical spring. */
    CAAnimationRef over = CASpringAnimationCreate("opacity"), critical = CASpringAnimationCreate("opacity");
    CASpringAnimationSetDamping(over, 50);
    CASpringAnimationSetDamping(critical, 20);
    CHECK_NEAR(CASpringAnimationGetSettlingDuration(over), CASpringAnimationGetSettlingDuration(critical), 1e-12);
    CASpringAnimationSetAllowsOverdamping(over, true);
    CHECK(CASpringAnimationGetSettlingDuration(over) > CASpringAnimationGetSettlingDuration(critical) + 0.1);
    CARelease(over);
    CARelease(critical);
    CHECK(CASpringAnimationCreateWithPerceptualDuration(0, 0) == NULL);     CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(CASpringAnimationCreateWithPerceptualDuration(1, -1) == NULL);    CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(CASpringAnimationCreateWithPerceptualDuration(1, 1.5) == NULL);   CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(CASpringAnimationCreateWithPerceptualDuration(NAN, 0) == NULL);   CHECK_ERROR(QZErrorNotFinite);
}

int main(void) {
    RUN(springs_follow_the_closed_form);
    RUN(defaults_perceptual_initialiser_and_bad_input);
    return qz_summary();
}
