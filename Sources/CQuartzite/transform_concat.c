/* CATransform3DConcat, the one export written in C.
 *
 * Why C: a 4x4 product is 16 multiply-adds on four-wide rows, which AVX does
 * in 16 instructions where the x86-64 baseline (SSE2, all Swift can target
 * without a run-time choice) needs 32 plus shuffles. Swift cannot pick
 * instructions by CPU at run time; a C function can, through an ELF ifunc,
 * resolved once by the dynamic loader, so the host's calls go straight to the
 * chosen body through the PLT as before. bench_transform measures it against
 * an inlined C product (independent calls: 1.80x with the Swift body, about
 * 1.45x with this one, the bare calling convention being 1.17x).
 *
 * Semantics (API.md, Apple's CATransform3DConcat): r = a * b, a applied
 * first. Every entry is ((a_i1*b_1j + a_i2*b_2j) + a_i3*b_3j) + a_i4*b_4j
 * with no fused multiply-add, the order and rounding of the engine's
 * CATransform3D.concatenating (Sources/QuartziteGeometry), so both bodies
 * and the engine give identical bits. A product with a NaN or infinite
 * entry records QZErrorNotFinite and returns a.
 */
#include <math.h>
#include "quartzite_internal.h"

/* The error slot and handler are the engine's (Swift: recordError). */
void qz_internal_record_error(unsigned code, const char *function, const char *problem);

static const char concat_name[] = "CATransform3DConcat";

/* The rare path, out of line: the cheap test below flags a product whose
 * entries sum to a non-finite value; say whether an entry itself is.
 * (clang's preserve_most: the callers keep their registers without saving
 * them around the call, which spares the hot path a push and a pop.) */
#if defined(__clang__) && defined(__x86_64__)
#define QZ_CONCAT_RARE __attribute__((noinline, cold, preserve_most))
#else
#define QZ_CONCAT_RARE __attribute__((noinline, cold))
#endif
QZ_CONCAT_RARE
static void concat_check_entries(CATransform3D *r, const CATransform3D *a)
{
    const double *e = &r->m11;
    for (int i = 0; i < 16; i++) {
        if (!isfinite(e[i])) {
            qz_internal_record_error(QZErrorNotFinite, concat_name,
                                     "transform has a non-finite entry (or the product overflows)");
            *r = *a;
            return;
        }
    }
}

#define QZ_CONCAT_ENTRY(i, j) \
    (((a.m##i##1 * b.m1##j + a.m##i##2 * b.m2##j) + a.m##i##3 * b.m3##j) + a.m##i##4 * b.m4##j)

/* Any CPU. The sum of the entries is finite when every entry is (or it
 * overflowed, which concat_check_entries tells apart). */
static CATransform3D concat_portable(CATransform3D a, CATransform3D b)
{
    CATransform3D r = {
        QZ_CONCAT_ENTRY(1, 1), QZ_CONCAT_ENTRY(1, 2), QZ_CONCAT_ENTRY(1, 3), QZ_CONCAT_ENTRY(1, 4),
        QZ_CONCAT_ENTRY(2, 1), QZ_CONCAT_ENTRY(2, 2), QZ_CONCAT_ENTRY(2, 3), QZ_CONCAT_ENTRY(2, 4),
        QZ_CONCAT_ENTRY(3, 1), QZ_CONCAT_ENTRY(3, 2), QZ_CONCAT_ENTRY(3, 3), QZ_CONCAT_ENTRY(3, 4),
        QZ_CONCAT_ENTRY(4, 1), QZ_CONCAT_ENTRY(4, 2), QZ_CONCAT_ENTRY(4, 3), QZ_CONCAT_ENTRY(4, 4),
    };
    const double *e = &r.m11;
    double sum = 0;
    for (int i = 0; i < 16; i++)
        sum += e[i];
    if (__builtin_expect(sum - sum != 0, 0))   /* NaN unless finite */
        concat_check_entries(&r, &a);
    return r;
}

/* For the tests: the portable body, whatever this CPU gets. */
CATransform3D qz_internal_concat_portable(CATransform3D a, CATransform3D b) { return concat_portable(a, b); }

#if defined(__x86_64__) && defined(__ELF__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>

#define QZ_AVX __attribute__((target("avx")))

/* A row of b in a ymm register from two 16-byte loads: the caller wrote the
 * argument with 16-byte stores, and one 32-byte load across two of them is
 * not forwarded from the store buffer (it waits for the stores to retire;
 * measured: 2.6x the inlined product instead of 1.45x). The empty asm keeps
 * the compiler from merging the two loads. */
QZ_AVX static inline __m256d concat_row_of(const double *p)
{
    __m128d lo = _mm_loadu_pd(p), hi = _mm_loadu_pd(p + 2);
    __asm__("" : "+x"(lo), "+x"(hi));
    return _mm256_insertf128_pd(_mm256_castpd128_pd256(lo), hi, 1);
}

/* Row i of a * b: a_i1*b1 + a_i2*b2 + a_i3*b3 + a_i4*b4, left to right. */
QZ_AVX static inline __m256d concat_row(const double *ai, __m256d b1, __m256d b2, __m256d b3, __m256d b4)
{
    __m256d x = _mm256_mul_pd(_mm256_broadcast_sd(ai), b1);
    x = _mm256_add_pd(x, _mm256_mul_pd(_mm256_broadcast_sd(ai + 1), b2));
    x = _mm256_add_pd(x, _mm256_mul_pd(_mm256_broadcast_sd(ai + 2), b3));
    return _mm256_add_pd(x, _mm256_mul_pd(_mm256_broadcast_sd(ai + 3), b4));
}

QZ_AVX static CATransform3D concat_avx(CATransform3D a, CATransform3D b)
{
    __m256d b1 = concat_row_of(&b.m11), b2 = concat_row_of(&b.m21);
    __m256d b3 = concat_row_of(&b.m31), b4 = concat_row_of(&b.m41);
    CATransform3D r;   /* the caller's return slot (returned in memory) */
    __m256d r1 = concat_row(&a.m11, b1, b2, b3, b4);
    _mm256_storeu_pd(&r.m11, r1);
    __m256d r2 = concat_row(&a.m21, b1, b2, b3, b4);
    _mm256_storeu_pd(&r.m21, r2);
    __m256d r3 = concat_row(&a.m31, b1, b2, b3, b4);
    _mm256_storeu_pd(&r.m31, r3);
    __m256d r4 = concat_row(&a.m41, b1, b2, b3, b4);
    _mm256_storeu_pd(&r.m41, r4);
    __m256d sum = _mm256_add_pd(_mm256_add_pd(r1, r2), _mm256_add_pd(r3, r4));
    __m256d bad = _mm256_cmp_pd(_mm256_sub_pd(sum, sum), _mm256_setzero_pd(), _CMP_NEQ_UQ);
    if (__builtin_expect(!_mm256_testz_pd(bad, bad), 0))
        concat_check_entries(&r, &a);
    return r;
}

/* AVX needs the CPU's flag and the kernel saving the ymm state (OSXSAVE,
 * XCR0 bits 1 and 2). The loader calls this before any constructor, so it
 * touches nothing a sanitizer's runtime would have to set up first. */
#if defined(__clang__)
__attribute__((disable_sanitizer_instrumentation))
#endif
static CATransform3D (*concat_resolve(void))(CATransform3D, CATransform3D)
{
    unsigned eax, ebx, ecx, edx;
    if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_OSXSAVE) && (ecx & bit_AVX)) {
        unsigned xcr0_lo, xcr0_hi;
        __asm__("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
        if ((xcr0_lo & 6) == 6)
            return concat_avx;
    }
    return concat_portable;
}

CATransform3D CATransform3DConcat(CATransform3D a, CATransform3D b) __attribute__((ifunc("concat_resolve")));

bool qz_internal_concat_has_avx(void) { return concat_resolve() == concat_avx; }

#else

CATransform3D CATransform3DConcat(CATransform3D a, CATransform3D b) { return concat_portable(a, b); }
bool qz_internal_concat_has_avx(void) { return false; }

#endif
