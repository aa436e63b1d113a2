/*
 * quartzite_types.h — the hand-written half of Quartzite's public C API:
 * Apple's structs with Apple's layouts, opaque handle types, enums, callback
 * signatures and string constants. The function declarations live in the
 * generated quartzite.h, which includes this file; include that one.
 *
 * Conventions (see API.md):
 *   - `Create`/`Copy` functions return a reference the caller owns (+1);
 *     release it with CARelease (or Apple's typed variant). `Get` functions
 *     return a borrowed reference (+0). Releasing NULL does nothing.
 *   - Bad input never crashes: the call does nothing, returns a neutral value
 *     and records a thread-local error (QZGetLastError). Success does not
 *     clear the error; call QZClearLastError first when you need to know.
 *   - Every callback receives the `info` pointer it was registered with as
 *     its last argument.
 */
#ifndef QUARTZITE_TYPES_H
#define QUARTZITE_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* MARK: - Scalars */

/** Apple's CGFloat: always double in Quartzite. */
typedef double CGFloat;
/** Seconds, as in Core Foundation. */
typedef double CFTimeInterval;

/* MARK: - Geometry (Apple's layouts) */

typedef struct CGPoint { CGFloat x; CGFloat y; } CGPoint;
typedef struct CGSize { CGFloat width; CGFloat height; } CGSize;
typedef struct CGRect { CGPoint origin; CGSize size; } CGRect;

/** Affine transform [a b 0; c d 0; tx ty 1]; points are row vectors:
 *  x' = a*x + c*y + tx, y' = b*x + d*y + ty. */
typedef struct CGAffineTransform {
    CGFloat a, b, c, d;
    CGFloat tx, ty;
} CGAffineTransform;

/** 4x4 homogeneous transform, row-vector convention (p' = p * M);
 *  the translation lives in m41, m42, m43. */
typedef struct CATransform3D {
    CGFloat m11, m12, m13, m14;
    CGFloat m21, m22, m23, m24;
    CGFloat m31, m32, m33, m34;
    CGFloat m41, m42, m43, m44;
} CATransform3D;

/* MARK: - Handles (opaque, reference counted) */

/** A boxed immutable value: Objective-C's `id` for Quartzite. */
typedef struct CAValue *CAValueRef;
/** An RGBA colour (Apple's CGColorRef). */
typedef struct QZOpaqueCGColor *CGColorRef;
/** A graphics path that can be changed (Apple's CGMutablePathRef). */
typedef struct QZOpaqueCGPath *CGMutablePathRef;
/** A graphics path (Apple's CGPathRef). A CGMutablePathRef is accepted
 *  wherever a CGPathRef is; an immutable path (from CGPathCreateCopy or a
 *  CGPathCreateWith... function) is rejected by the functions that change a
 *  path, with QZErrorWrongType. */
typedef const struct QZOpaqueCGPath *CGPathRef;

/* MARK: - Errors */

/** Codes recorded by a failing call and read back with QZGetLastError(). */
typedef enum QZError {
    QZErrorNone = 0,            /**< no error recorded */
    QZErrorNullArgument = 1,    /**< a required pointer or handle was NULL */
    QZErrorWrongType = 2,       /**< a handle of another type, or not a Quartzite handle */
    QZErrorInvalidArgument = 3, /**< a value outside what the function accepts */
    QZErrorNotFinite = 4,       /**< NaN or infinity where a finite number is required */
    QZErrorOutOfRange = 5,      /**< an index or count outside the valid range */
    QZErrorUnknownConstant = 6, /**< a constant string the function does not know */
    QZErrorInvalidState = 7,    /**< a call in the wrong state or order */
    QZErrorOutOfMemory = 8      /**< an allocation failed */
} QZError;

/** Called on the thread that made the failing call, after the error is
 *  recorded. `message` is valid only during the call. */
typedef void (*QZErrorHandlerCallback)(QZError code, const char *message, void *info);

/* MARK: - Time */

/** Replaces the media clock (see QZSetMediaTimeSource). May be called from any
 *  thread that asks for the time, so it must be thread-safe. */
typedef CFTimeInterval (*QZMediaTimeSourceCallback)(void *info);

/* MARK: - Values */

/** What a CAValueRef holds (CAValueGetType). */
typedef enum CAValueType {
    CAValueTypeNull = 0,
    CAValueTypeNumber = 1,
    CAValueTypeBool = 2,
    CAValueTypePoint = 3,
    CAValueTypeSize = 4,
    CAValueTypeRect = 5,
    CAValueTypeAffineTransform = 6,
    CAValueTypeTransform3D = 7,
    CAValueTypeColor = 8,
    CAValueTypeString = 9,
    CAValueTypeArray = 10,
    CAValueTypeDictionary = 11,
    CAValueTypeObject = 12
} CAValueType;

/* MARK: - Paths (Apple's CGPath.h) */

/** The kind of a path element (CGPathApply, QZPathGetElementAtIndex). */
typedef enum CGPathElementType {
    kCGPathElementMoveToPoint = 0,          /**< starts a subpath: 1 point */
    kCGPathElementAddLineToPoint = 1,       /**< a line to points[0] */
    kCGPathElementAddQuadCurveToPoint = 2,  /**< control point, end point */
    kCGPathElementAddCurveToPoint = 3,      /**< two control points, end point */
    kCGPathElementCloseSubpath = 4          /**< a line back to the subpath's start: no points */
} CGPathElementType;

/** One element of a path, as CGPathApply passes it: `points` holds 1, 2, 3
 *  or 0 points depending on `type`. Valid only during the applier call. */
typedef struct CGPathElement {
    CGPathElementType type;
    CGPoint *points;
} CGPathElement;

/** Called by CGPathApply for each element in order, on the calling thread.
 *  As in Apple's CGPath.h, `info` comes FIRST here (the exception to
 *  Quartzite's info-last rule: Apple's own C signature wins). */
typedef void (*CGPathApplierFunction)(void *info, const CGPathElement *element);

/* MARK: - Exported constants (defined in the library) */

extern const CATransform3D CATransform3DIdentity;
extern const CGAffineTransform CGAffineTransformIdentity;
extern const CGPoint CGPointZero;
extern const CGSize CGSizeZero;
extern const CGRect CGRectZero;
/** The null rectangle: origin (+inf, +inf), size 0. */
extern const CGRect CGRectNull;
/** The infinite rectangle: contains every point. */
extern const CGRect CGRectInfinite;

#ifdef __cplusplus
}
#endif

#endif /* QUARTZITE_TYPES_H */
