/* Drives the export layer with random calls: valid handles, NULL, pointers
 * that are not Quartzite handles, handles of the wrong type, NaN and infinite
 * numbers, wild indices and counts. Every call must return (no crash), and a
 * call that is given garbage must record an error. A second phase hammers
 * shared values from several threads. QZ_FUZZ_STEPS overrides the step count
 * (valgrind runs use fewer). */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include "qz_test.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;
static uint64_t next_u64(void) {
    /* xorshift64*: deterministic, so a failure reproduces. */
    rng_state ^= rng_state >> 12; rng_state ^= rng_state << 25; rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1DULL;
}
static unsigned pick(unsigned n) { return (unsigned)(next_u64() % n); }

static double random_number(void) {
    switch (pick(8)) {
    case 0: return NAN;
    case 1: return INFINITY;
    case 2: return -INFINITY;
    case 3: return 0.0;
    case 4: return 1e308;
    default: return ((double)(next_u64() >> 11) / 9007199254740992.0 - 0.5) * 2000.0;
    }
}

enum { POOL = 64 };
static void *pool[POOL];          /* owned handles of any type, or NULL */
static uint64_t foreign[8];       /* memory that is not a handle */

static void *random_handle(void) {
    switch (pick(6)) {
    case 0: return NULL;
    case 1: return foreign;
    default: return pool[pick(POOL)];
    }
}

static void put(void *handle) {
    unsigned slot = pick(POOL);
    CARelease(pool[slot]);
    pool[slot] = handle;
}

static int is_value(void *h) {
    if (!h || h == (void *)foreign) return 0;
    QZClearLastError();
    CAValueGetType(h);
    int ok = QZGetLastError() == QZErrorNone;
    QZClearLastError();
    return ok;
}

/* Usually an ordinary coordinate, sometimes `v` (NaN, an infinity, 1e308...),
 * so that path calls often get far enough to change the path. */
static double mostly_finite(double v) {
    return pick(8) ? ((double)(next_u64() >> 11) / 9007199254740992.0 - 0.5) * 200.0 : v;
}

/* Usually a pooled path (mutable or not), so that path calls get past the
 * handle check; otherwise any handle. */
static void *random_path(void) {
    if (pick(4) == 0) return random_handle();
    unsigned start = pick(POOL);
    for (unsigned i = 0; i < POOL; i++) {
        void *h = pool[(start + i) % POOL];
        if (!h) continue;
        QZClearLastError();
        (void)QZPathGetElementCount(h);
        if (QZGetLastError() == QZErrorNone) return h;
    }
    QZClearLastError();
    return random_handle();
}

/* Core Video arguments: sizes (zero, small, odd, too large, negative as
 * size_t), formats (real, described only, unknown), lock flags and modes. */
static size_t random_size(void) {
    static const size_t sizes[] = { 0, 1, 2, 3, 17, 33, (size_t)1 << 21, (size_t)-1 };
    return sizes[pick(8)];
}
static OSType random_format(void) {
    static const OSType formats[] = {
        kCVPixelFormatType_32BGRA, kCVPixelFormatType_32ARGB, kCVPixelFormatType_24RGB, kCVPixelFormatType_64ARGB,
        kCVPixelFormatType_16Gray, kCVPixelFormatType_1IndexedGray_WhiteIsZero, kCVPixelFormatType_422YpCbCr8,
        kCVPixelFormatType_422YpCbCr10, kCVPixelFormatType_420YpCbCr8Planar, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange,
        kCVPixelFormatType_422YpCbCr_4A_8BiPlanar, 0, 0x7A7A7A7A,
    };
    return formats[pick(13)];
}
static uint8_t backing[8192];     /* memory wrapped by CVPixelBufferCreateWithBytes (never freed) */

static void one_step(void) {
    void *h = random_handle();
    double x = random_number(), y = random_number(), z = random_number(), a = random_number();
    size_t index = pick(4) == 0 ? (size_t)-1 : pick(6);
    QZClearLastError();
    CGAffineTransform t = CGAffineTransformMake(1, 0, 0, 1, 0, 0);
    t.a = pick(3) ? 1 : x; t.tx = pick(3) ? 0 : y;
    const CGAffineTransform *m = pick(2) ? NULL : &t;
    switch (pick(28)) {
    case 0: put(CAValueCreateNumber(x)); break;
    case 1: put(CAValueCreatePoint((CGPoint){ x, y })); break;
    case 2: put(CAValueCreateRect((CGRect){ { x, y }, { z, a } })); break;
    case 3: put(CAValueCreateTransform3D(CATransform3DMakeRotation(x, y, z, a))); break;
    case 4: put(CAValueCreateString(pick(5) ? "key" : NULL)); break;
    case 5: put(CGColorCreateSRGB(x, y, z, a)); break;
    case 6: put(CAValueCreateColor(h)); break;
    case 7: put(CAValueCreateWithObject(h)); break;
    case 8: {
        CAValueRef items[4] = { random_handle(), random_handle(), random_handle(), random_handle() };
        put(CAValueCreateArray(pick(4) ? items : NULL, pick(8) == 0 ? (size_t)-3 : pick(5)));
        break;
    }
    case 9: {
        const char *keys[3] = { "a", pick(6) ? "b" : NULL, "a" };
        CAValueRef values[3] = { random_handle(), random_handle(), random_handle() };
        put(CAValueCreateDictionary(keys, values, pick(4)));
        break;
    }
    case 10: (void)CAValueGetNumber(h); (void)CAValueGetBool(h); (void)CAValueGetType(h); break;
    case 11: (void)CAValueGetArrayItem(h, index); (void)CAValueGetCount(h); break;
    case 12: (void)CAValueGetDictionaryItem(h, pick(4) ? "a" : NULL); (void)CAValueGetDictionaryKeyAtIndex(h, index); break;
    case 13: (void)CAValueGetString(h); (void)CAValueGetColor(h); (void)CAValueGetObject(h); break;
    case 14: (void)CAValueEqual(h, random_handle()); break;
    case 15: (void)CGColorGetAlpha(h); (void)CGColorGetComponents(h); (void)CGColorEqualToColor(h, random_handle()); break;
    case 16: {
        CATransform3D t = CATransform3DMakeRotation(x, y, z, a);
        t = CATransform3DConcat(t, CATransform3DMakeScale(y, z, a));
        t = CATransform3DInvert(CATransform3DTranslate(t, x, y, z));
        (void)CATransform3DIsAffine(t);
        break;
    }
    case 17: {
        CGRect r = CGRectUnion(CGRectMake(x, y, z, a), CGRectInset(CGRectMake(a, z, y, x), x, y));
        (void)CGRectContainsPoint(r, (CGPoint){ x, y });
        (void)CGRectApplyAffineTransform(r, CGAffineTransformMake(x, y, z, a, x, y));
        break;
    }
    case 18: {
        /* Balanced retain/release on whatever the handle is. */
        void *r = CARetain(h);
        if (r) CARelease(r);
        break;
    }
    case 19:
        x = mostly_finite(x); y = mostly_finite(y); z = mostly_finite(z); a = mostly_finite(a);
        switch (pick(6)) {
        case 0: put(CGPathCreateMutable()); break;
        case 4: case 5: {
            CGMutablePathRef p = CGPathCreateMutable();
            CGPathMoveToPoint(p, NULL, x, y);
            put(p);
            break;
        }
        case 1: put((void *)CGPathCreateWithRect(CGRectMake(x, y, z, a), m)); break;
        case 2: put((void *)CGPathCreateWithEllipseInRect(CGRectMake(x, y, z, a), m)); break;
        default: put((void *)CGPathCreateWithRoundedRect(CGRectMake(x, y, z, a), y, z, m)); break;
        }
        break;
    case 20: {
        /* Changes, kept small so that measuring and hit-testing stay cheap. */
        h = random_path();
        if (QZPathGetElementCount(h) > 40) break;
        x = mostly_finite(x); y = mostly_finite(y); z = mostly_finite(z); a = mostly_finite(a);
        QZClearLastError();
        switch (pick(10)) {
        case 0: CGPathMoveToPoint(h, m, x, y); break;
        case 1: CGPathAddLineToPoint(h, m, x, y); break;
        case 2: CGPathAddQuadCurveToPoint(h, m, x, y, z, a); break;
        case 3: CGPathAddCurveToPoint(h, m, x, y, z, a, y, x); break;
        case 4: CGPathCloseSubpath(h); break;
        case 5: CGPathAddArc(h, m, x, y, z, a, x, pick(2)); break;
        case 6: CGPathAddArcToPoint(h, m, x, y, z, a, y); break;
        case 7: CGPathAddRelativeArc(h, m, x, y, z, a, y); break;
        case 8: CGPathAddRoundedRect(h, m, CGRectMake(x, y, z, a), y, z); break;
        default: {
            void *other = random_handle();
            if (QZPathGetElementCount(other) <= 40) CGPathAddPath(h, m, other);
            break;
        }
        }
        break;
    }
    case 21: {
        CGRect r;
        CGPoint pts[3], tangent;
        h = random_path();
        (void)CGPathIsEmpty(h); (void)CGPathIsRect(h, pick(2) ? &r : NULL);
        (void)CGPathGetBoundingBox(h); (void)CGPathGetPathBoundingBox(h); (void)CGPathGetCurrentPoint(h);
        (void)CGPathContainsPoint(h, m, (CGPoint){ x, y }, pick(2));
        (void)QZPathGetElementAtIndex(h, index, pick(2) ? pts : NULL);
        (void)QZPathGetPointAtDistance(h, z, pick(2) ? &tangent : NULL);
        (void)QZPathGetLength(h);
        (void)CGPathEqualToPath(h, random_handle());
        break;
    }
    case 22:
        switch (pick(3)) {
        case 0: put((void *)CGPathCreateCopy(h)); break;
        case 1: put(CGPathCreateMutableCopy(h)); break;
        default: put((void *)CGPathCreateCopyByTransformingPath(h, m)); break;
        }
        break;
    case 23: {
        CVPixelBufferRef out = NULL;
        CVReturn r;
        switch (pick(3)) {
        case 0: r = CVPixelBufferCreate(NULL, random_size(), random_size(), random_format(), random_handle(), &out); break;
        case 1:
            r = CVPixelBufferCreateWithBytes(NULL, random_size(), random_size(), random_format(), pick(4) ? backing : NULL,
                                             pick(3) ? 128 : random_size(), NULL, NULL, random_handle(), &out);
            break;
        default: r = QZPixelBufferCreateConverted(h, random_format(), &out); break;
        }
        CHECK((r == kCVReturnSuccess) == (out != NULL));
        CHECK((r == kCVReturnSuccess) == (QZGetLastError() == QZErrorNone));
        if (out) put(out);
        break;
    }
    case 24: {
        size_t e[4];
        (void)CVPixelBufferGetWidth(h); (void)CVPixelBufferGetHeight(h); (void)CVPixelBufferGetBytesPerRow(h);
        (void)CVPixelBufferGetDataSize(h); (void)CVPixelBufferGetPlaneCount(h); (void)CVPixelBufferIsPlanar(h);
        (void)CVPixelBufferGetBaseAddress(h); (void)CVPixelBufferGetBaseAddressOfPlane(h, index);
        (void)CVPixelBufferGetWidthOfPlane(h, index); (void)CVPixelBufferGetHeightOfPlane(h, index);
        (void)CVPixelBufferGetBytesPerRowOfPlane(h, index); (void)CVPixelBufferGetPixelFormatType(h);
        CVPixelBufferGetExtendedPixels(h, &e[0], pick(2) ? &e[1] : NULL, &e[2], &e[3]);
        (void)CVImageBufferGetCleanRect(h); (void)CVImageBufferGetDisplaySize(h); (void)CVImageBufferGetEncodedSize(h);
        (void)QZPixelBufferGetSeed(h); (void)QZGetTypeID(h);
        break;
    }
    case 25: {
        static const char *keys[] = { "k", kCVImageBufferCleanApertureKey, kCVImageBufferYCbCrMatrixKey, NULL };
        CVAttachmentMode mode = pick(5) ? pick(2) : 7;
        switch (pick(7)) {
        case 0: CVBufferSetAttachment(h, keys[pick(4)], random_handle(), mode); break;
        case 1: (void)CVBufferGetAttachment(h, keys[pick(4)], pick(2) ? &mode : NULL); break;
        case 2: (void)CVBufferGetAttachments(h, mode); CVBufferSetAttachments(h, random_handle(), mode); break;
        case 3: CVBufferRemoveAttachment(h, keys[pick(4)]); CVBufferPropagateAttachments(h, random_handle()); break;
        case 4: {
            CVOptionFlags f = pick(4) ? pick(2) : 6;
            if (CVPixelBufferLockBaseAddress(h, f) == kCVReturnSuccess) (void)CVPixelBufferUnlockBaseAddress(h, pick(4) ? f : !f);
            else (void)CVPixelBufferUnlockBaseAddress(h, f);
            break;
        }
        case 5: (void)QZPixelBufferConvert(h, random_handle()); (void)CVPixelBufferFillExtendedPixels(h); break;
        default: CVBufferRemoveAllAttachments(h); break;
        }
        break;
    }
    case 26: {
        CVPixelBufferPoolRef p = NULL;
        if (CVPixelBufferPoolCreate(NULL, random_handle(), random_handle(), &p) == kCVReturnSuccess) put(p);
        CVPixelBufferRef out = NULL;
        if (CVPixelBufferPoolCreatePixelBuffer(NULL, h, &out) == kCVReturnSuccess) put(out);
        (void)CVPixelBufferPoolGetAttributes(h); (void)CVPixelBufferPoolGetPixelBufferAttributes(h);
        CVPixelBufferPoolFlush(h, pick(3));
        (void)QZPixelBufferPoolGetFreeBufferCount(h);
        CAValueRef resolved = NULL;
        if (CVPixelBufferCreateResolvedAttributesDictionary(NULL, random_handle(), &resolved) == kCVReturnSuccess) put(resolved);
        break;
    }
    default: {
        /* A value whose type we know: reading it as the wrong type must record an error. */
        void *v = pool[pick(POOL)];
        if (is_value(v) && CAValueGetType(v) == CAValueTypeString) {
            (void)CAValueGetNumber(v);
            CHECK(QZGetLastError() == QZErrorWrongType);
        }
        (void)CAValueGetNumber((CAValueRef)(void *)foreign);
        CHECK(QZGetLastError() == QZErrorWrongType);
        (void)CAValueGetNumber(NULL);
        CHECK(QZGetLastError() == QZErrorNullArgument);
        break;
    }
    }
}

static void random_calls(void) {
    long steps = getenv("QZ_FUZZ_STEPS") ? atol(getenv("QZ_FUZZ_STEPS")) : 200000;
    for (long i = 0; i < steps; i++) one_step();
    /* Every pooled handle is still a live, typed object. */
    for (int i = 0; i < POOL; i++) {
        if (!pool[i]) continue;
        QZClearLastError();
        void *r = CARetain(pool[i]);
        CHECK(r == pool[i]);
        CARelease(r);
        CHECK(QZGetLastError() == QZErrorNone);
        CARelease(pool[i]);
        pool[i] = NULL;
    }
    QZClearLastError();
}

/* MARK: - Shared values under several threads */

enum { THREADS = 4, SHARED = 16 };
static CAValueRef shared[SHARED];

static void *hammer(void *arg) {
    uint64_t seed = (uintptr_t)arg * 7919 + 1;
    long bad = 0;
    for (int i = 0; i < 50000; i++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        CAValueRef v = shared[(seed >> 33) % SHARED];
        CAValueRef mine = CARetain(v);
        if (CAValueGetCount(mine) != 3) bad++;
        if (CAValueGetNumber(CAValueGetArrayItem(mine, 1)) != 2) bad++;
        CAValueRef items[] = { mine, mine };
        CAValueRef pair = CAValueCreateArray(items, 2);
        CARelease(mine);
        if (CAValueGetArrayItem(pair, 0) != v) bad++;
        CARelease(pair);
        if (QZGetLastError() != QZErrorNone) bad++;
    }
    return (void *)bad;
}

static void shared_values_across_threads(void) {
    for (int i = 0; i < SHARED; i++) {
        CAValueRef n[3] = { CAValueCreateNumber(1), CAValueCreateNumber(2), CAValueCreateNumber(3) };
        shared[i] = CAValueCreateArray(n, 3);
        for (int k = 0; k < 3; k++) CARelease(n[k]);
    }
    pthread_t threads[THREADS];
    for (long t = 0; t < THREADS; t++) pthread_create(&threads[t], NULL, hammer, (void *)t);
    for (int t = 0; t < THREADS; t++) {
        void *bad = NULL;
        pthread_join(threads[t], &bad);
        CHECK(bad == NULL);
    }
    for (int i = 0; i < SHARED; i++) CARelease(shared[i]);
}

int main(void) {
    RUN(random_calls);
    RUN(shared_values_across_threads);
    return qz_summary();
}
