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
/** A layer (Apple's CALayer and its subclasses). */
typedef struct CALayer *CALayerRef;
/** A layer class: CALayer, CAScrollLayer, CATextLayer, CATiledLayer, or one
 *  made with CALayerClassCreate. */
typedef struct CALayerClass *CALayerClassRef;
/** A timing function: a cubic Bezier from (0, 0) to (1, 1) (Apple's
 *  CAMediaTimingFunction). */
typedef struct CAMediaTimingFunction *CAMediaTimingFunctionRef;
/** An animation (Apple's CAAnimation and its subclasses CABasicAnimation,
 *  CAKeyframeAnimation, CAAnimationGroup and CATransition). An animation handle
 *  is also a CAActionRef. */
typedef struct CAAnimation *CAAnimationRef;
/** An action (Apple's CAAction protocol); every CAAnimation is one. */
typedef struct CAAction *CAActionRef;
/** A drawing context (Apple's CGContextRef). */
typedef struct QZOpaqueCGContext *CGContextRef;
/** A pixel buffer (Core Video). */
typedef struct QZOpaqueCVBuffer *CVBufferRef;
typedef CVBufferRef CVImageBufferRef;
typedef CVImageBufferRef CVPixelBufferRef;
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

/* MARK: - Layers */

/** Edges of a layer (edgeAntialiasingMask). */
enum CAEdgeAntialiasingMask {
    kCALayerLeftEdge = 1U << 0,
    kCALayerRightEdge = 1U << 1,
    kCALayerBottomEdge = 1U << 2,
    kCALayerTopEdge = 1U << 3
};

/** The layer delegate (Apple's CALayerDelegate). A NULL entry means the
 *  delegate does not implement that method. Callbacks run on the thread that
 *  made the call that triggers them (display, layout, a property change) and
 *  may call back into the library. `release`, if set, is called with `info`
 *  when the delegate is replaced or its layer is freed. */
typedef struct CALayerDelegateCallbacks {
    uint32_t version; /**< 0 */
    void (*displayLayer)(CALayerRef layer, void *info);
    /* ctx is a CGContextRef (spelled as its struct so that Swift can implement it). */
    void (*drawLayerInContext)(CALayerRef layer, struct QZOpaqueCGContext *ctx, void *info);
    /** NULL result: no answer, the search continues; QZActionNull(): stop, no action. */
    CAActionRef (*actionForLayerForKey)(CALayerRef layer, const char *key, void *info);
    void (*layoutSublayersOfLayer)(CALayerRef layer, void *info);
    void (*release)(void *info);
} CALayerDelegateCallbacks;

/** A layout manager (Apple's CALayoutManager), with the same conventions. */
typedef struct CALayoutManagerCallbacks {
    uint32_t version; /**< 0 */
    void (*invalidateLayoutOfLayer)(CALayerRef layer, void *info);
    void (*layoutSublayersOfLayer)(CALayerRef layer, void *info);
    CGSize (*preferredSizeOfLayer)(CALayerRef layer, void *info);
    void (*release)(void *info);
} CALayoutManagerCallbacks;

/** The overridable methods of a layer class (CALayerClassCreate). A NULL
 *  entry inherits the superclass's behaviour. Class methods receive the class;
 *  instance methods the layer. `defaultValueForKey` returns a +1 value or NULL
 *  (no default: the superclass is asked); `defaultActionForKey` returns a
 *  borrowed action or NULL. `initWithLayer` is called when the library makes
 *  a shadow copy of a layer (presentation layers): copy custom state from
 *  `source` to `copy`. Callbacks run on the calling thread and may call back
 *  into the library. `release` is called with `info` when the class is freed. */
typedef struct CALayerClassCallbacks {
    uint32_t version; /**< 0 */
    bool (*needsDisplayForKey)(CALayerClassRef cls, const char *key, void *info);
    CAValueRef (*defaultValueForKey)(CALayerClassRef cls, const char *key, void *info);
    CAActionRef (*defaultActionForKey)(CALayerClassRef cls, const char *key, void *info);
    void (*display)(CALayerRef layer, void *info);
    /* ctx is a CGContextRef. */
    void (*drawInContext)(CALayerRef layer, struct QZOpaqueCGContext *ctx, void *info);
    void (*layoutSublayers)(CALayerRef layer, void *info);
    CGSize (*preferredFrameSize)(CALayerRef layer, void *info);
    void (*initWithLayer)(CALayerRef copy, CALayerRef source, void *info);
    void (*release)(void *info);
} CALayerClassCallbacks;

/** An animation's delegate (Apple's CAAnimationDelegate). A NULL entry means
 *  the delegate does not implement that method. The callbacks receive the
 *  animation running on the layer (the copy CALayerAddAnimation made) and run
 *  on the thread that processes animation events (QZAnimationProcessEvents).
 *  `release(info)` runs when the delegate is replaced or the animation freed. */
typedef struct CAAnimationDelegateCallbacks {
    uint32_t version; /**< 0 */
    void (*animationDidStart)(CAAnimationRef anim, void *info);
    void (*animationDidStop)(CAAnimationRef anim, bool finished, void *info);
    void (*release)(void *info);
} CAAnimationDelegateCallbacks;

/* MARK: - String constants (Apple's names and values; compared by content) */

/* contentsGravity */
#define kCAGravityCenter "center"
#define kCAGravityTop "top"
#define kCAGravityBottom "bottom"
#define kCAGravityLeft "left"
#define kCAGravityRight "right"
#define kCAGravityTopLeft "topLeft"
#define kCAGravityTopRight "topRight"
#define kCAGravityBottomLeft "bottomLeft"
#define kCAGravityBottomRight "bottomRight"
#define kCAGravityResize "resize"
#define kCAGravityResizeAspect "resizeAspect"
#define kCAGravityResizeAspectFill "resizeAspectFill"
/* minificationFilter, magnificationFilter */
#define kCAFilterNearest "nearest"
#define kCAFilterLinear "linear"
#define kCAFilterTrilinear "trilinear"
/* CAScrollLayer scrollMode */
#define kCAScrollNone "none"
#define kCAScrollVertically "vertically"
#define kCAScrollHorizontally "horizontally"
#define kCAScrollBoth "both"
/* CATextLayer alignmentMode and truncationMode */
#define kCAAlignmentNatural "natural"
#define kCAAlignmentLeft "left"
#define kCAAlignmentRight "right"
#define kCAAlignmentCenter "center"
#define kCAAlignmentJustified "justified"
#define kCATruncationNone "none"
#define kCATruncationStart "start"
#define kCATruncationEnd "end"
#define kCATruncationMiddle "middle"
/* CAMediaTiming fillMode */
#define kCAFillModeForwards "forwards"
#define kCAFillModeBackwards "backwards"
#define kCAFillModeBoth "both"
#define kCAFillModeRemoved "removed"
#define kCAFillModeFrozen "frozen"
/* Action identifiers */
#define kCAOnOrderIn "onOrderIn"
#define kCAOnOrderOut "onOrderOut"
#define kCATransition "transition"
/* CAKeyframeAnimation calculationMode and rotationMode */
#define kCAAnimationLinear "linear"
#define kCAAnimationDiscrete "discrete"
#define kCAAnimationPaced "paced"
#define kCAAnimationCubic "cubic"
#define kCAAnimationCubicPaced "cubicPaced"
#define kCAAnimationRotateAuto "auto"
#define kCAAnimationRotateAutoReverse "autoReverse"
/* CAMediaTimingFunction names */
#define kCAMediaTimingFunctionLinear "linear"
#define kCAMediaTimingFunctionEaseIn "easeIn"
#define kCAMediaTimingFunctionEaseOut "easeOut"
#define kCAMediaTimingFunctionEaseInEaseOut "easeInEaseOut"
#define kCAMediaTimingFunctionDefault "default"
/* CATransition type and subtype */
#define kCATransitionFade "fade"
#define kCATransitionMoveIn "moveIn"
#define kCATransitionPush "push"
#define kCATransitionReveal "reveal"
#define kCATransitionFromRight "fromRight"
#define kCATransitionFromLeft "fromLeft"
#define kCATransitionFromTop "fromTop"
#define kCATransitionFromBottom "fromBottom"
/* CAValueFunction names (CAPropertyAnimationSetValueFunction) */
#define kCAValueFunctionRotateX "rotateX"
#define kCAValueFunctionRotateY "rotateY"
#define kCAValueFunctionRotateZ "rotateZ"
#define kCAValueFunctionScale "scale"
#define kCAValueFunctionScaleX "scaleX"
#define kCAValueFunctionScaleY "scaleY"
#define kCAValueFunctionScaleZ "scaleZ"
#define kCAValueFunctionTranslate "translate"
#define kCAValueFunctionTranslateX "translateX"
#define kCAValueFunctionTranslateY "translateY"
#define kCAValueFunctionTranslateZ "translateZ"
/* CATransaction keys */
#define kCATransactionAnimationDuration "animationDuration"
#define kCATransactionDisableActions "disableActions"
#define kCATransactionAnimationTimingFunction "animationTimingFunction"
#define kCATransactionCompletionBlock "completionBlock"
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
