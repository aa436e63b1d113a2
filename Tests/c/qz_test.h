/* A minimal test framework for the C harness: CHECK macros that count and
 * report, and a summary line in the "N passed, N failed" form. */
#ifndef QZ_TEST_H
#define QZ_TEST_H

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <quartzite/quartzite.h>

static int qz_checks_passed, qz_checks_failed, qz_tests_run, qz_tests_failed;
static int qz_current_failed;

#define CHECK(cond) do { \
    if (cond) { qz_checks_passed++; } else { \
        qz_checks_failed++; qz_current_failed = 1; \
        fprintf(stderr, "  FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); } \
} while (0)

#define CHECK_NEAR(a, b, tol) do { \
    double qz_a_ = (a), qz_b_ = (b); \
    if (fabs(qz_a_ - qz_b_) <= (tol)) { qz_checks_passed++; } else { \
        qz_checks_failed++; qz_current_failed = 1; \
        fprintf(stderr, "  FAIL %s:%d: %s = %.17g, expected %.17g\n", __FILE__, __LINE__, #a, qz_a_, qz_b_); } \
} while (0)

/* The call before it must have recorded `code`; clears the error. */
#define CHECK_ERROR(code) do { \
    QZError qz_e_ = QZGetLastError(); \
    if (qz_e_ == (code)) { qz_checks_passed++; } else { \
        qz_checks_failed++; qz_current_failed = 1; \
        fprintf(stderr, "  FAIL %s:%d: error %d (%s), expected %s\n", __FILE__, __LINE__, \
                (int)qz_e_, QZGetLastErrorMessage(), #code); } \
    QZClearLastError(); \
} while (0)

#define CHECK_NO_ERROR() CHECK_ERROR(QZErrorNone)

#define RUN(test) do { \
    qz_current_failed = 0; QZClearLastError(); test(); qz_tests_run++; \
    if (qz_current_failed) { qz_tests_failed++; printf("FAIL %s\n", #test); } \
    else printf("ok   %s\n", #test); \
} while (0)

static inline int qz_summary(void) {
    printf("%d checks passed, %d checks failed\n", qz_checks_passed, qz_checks_failed);
    printf("%d passed, %d failed\n", qz_tests_run - qz_tests_failed, qz_tests_failed);
    return qz_tests_failed == 0 ? 0 : 1;
}

static inline int qz_transform_near(CATransform3D a, CATransform3D b, double tol) {
    const double *x = &a.m11, *y = &b.m11;
    for (int i = 0; i < 16; i++) if (!(fabs(x[i] - y[i]) <= tol)) return 0;
    return 1;
}

#endif
