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
/** A layer class: CALayer, CAScrollLayer, CATextLayer, CATiledLayer, CAEAGLLayer, or one
 *  made with CALayerClassCreate. */
typedef struct CALayerClass *CALayerClassRef;
/** An emitter cell (Apple's CAEmitterCell): one kind of particle a CAEmitterLayer emits. */
typedef struct CAEmitterCell *CAEmitterCellRef;
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
/* CAGradientLayer type */
#define kCAGradientLayerAxial "axial"
#define kCAGradientLayerRadial "radial"
#define kCAGradientLayerConic "conic"
/* CAShapeLayer fillRule, lineCap and lineJoin */
#define kCAFillRuleNonZero "non-zero"
#define kCAFillRuleEvenOdd "even-odd"
#define kCALineCapButt "butt"
#define kCALineCapRound "round"
#define kCALineCapSquare "square"
#define kCALineJoinMiter "miter"
#define kCALineJoinRound "round"
#define kCALineJoinBevel "bevel"
/* CAEmitterLayer emitterShape, emitterMode and renderMode */
#define kCAEmitterLayerPoint "point"
#define kCAEmitterLayerLine "line"
#define kCAEmitterLayerRectangle "rectangle"
#define kCAEmitterLayerCuboid "cuboid"
#define kCAEmitterLayerCircle "circle"
#define kCAEmitterLayerSphere "sphere"
#define kCAEmitterLayerPoints "points"
#define kCAEmitterLayerOutline "outline"
#define kCAEmitterLayerSurface "surface"
#define kCAEmitterLayerVolume "volume"
#define kCAEmitterLayerUnordered "unordered"
#define kCAEmitterLayerOldestFirst "oldestFirst"
#define kCAEmitterLayerOldestLast "oldestLast"
#define kCAEmitterLayerBackToFront "backToFront"
#define kCAEmitterLayerAdditive "additive"
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
/* MARK: - Transactions and actions */

/** A transaction's completion (CATransactionSetCompletionBlock). Runs once,
 *  on the thread that committed the transaction, at the end of that thread's
 *  run-loop turn (CFRunLoopRunInMode, QZRunLoopRunOnce) or in
 *  QZAnimationProcessEvents, once every animation added to the transaction
 *  after the completion was set has finished or been removed. */
typedef void (*CATransactionCompletionCallback)(void *info);

/** Apple's -runActionForKey:object:arguments: for a custom action. `key` and
 *  `arguments` (NULL when none) are valid only during the call; `layer` is
 *  borrowed. Runs on the thread that triggered the action (the one changing
 *  the property or calling CAActionRunForKey), with the model lock held: it
 *  may call back into the library. */
typedef void (*CAActionCallback)(const char *key, CALayerRef layer, CAValueRef arguments, void *info);

/** Releases a custom action's `info` when the action is freed
 *  (CAActionCreateWithRelease). Runs on the thread of the last release. */
typedef void (*CAActionReleaseCallback)(void *info);

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

/* MARK: - Core Video (Apple's CVBase.h, CVReturn.h, CVBuffer.h, CVImageBuffer.h,
 * CVPixelBuffer.h, CVPixelBufferPool.h, CVPixelFormatDescription.h) */

/** Apple's scalar types, with Apple's widths. */
typedef uint32_t OSType;            /**< a four-character code, big-endian: 'BGRA' = 0x42475241 */
typedef int32_t CVReturn;           /**< a Core Video result code (kCVReturn...) */
typedef uint64_t CVOptionFlags;
typedef uint32_t CVAttachmentMode;  /**< kCVAttachmentMode_... */
typedef unsigned long CFTypeID;     /**< a type's identifier (CVPixelBufferGetTypeID, QZGetTypeID) */
typedef long CFIndex;

/** Core Foundation's allocator. Quartzite has one allocator: pass NULL
 *  (kCFAllocatorDefault); any other value is ignored. */
typedef const struct QZOpaqueCFAllocator *CFAllocatorRef;
#define kCFAllocatorDefault ((CFAllocatorRef)0)

/** A pool of reusable pixel buffers (Apple's CVPixelBufferPoolRef). */
typedef struct QZOpaqueCVPixelBufferPool *CVPixelBufferPoolRef;

/** Core Video result codes (CVReturn), with Apple's values. */
enum {
    kCVReturnSuccess = 0,
    kCVReturnFirst = -6660,
    kCVReturnError = -6660,                        /**< an otherwise undefined error (also: unbalanced unlock) */
    kCVReturnInvalidArgument = -6661,              /**< NULL or wrong-typed argument, bad index or flags */
    kCVReturnAllocationFailed = -6662,             /**< out of memory (or over QZPixelBufferSetMemoryLimit) */
    kCVReturnInvalidDisplay = -6670,
    kCVReturnDisplayLinkAlreadyRunning = -6671,
    kCVReturnDisplayLinkNotRunning = -6672,
    kCVReturnDisplayLinkCallbacksNotSet = -6673,
    kCVReturnInvalidPixelFormat = -6680,           /**< an unknown pixel format, or one the call cannot handle */
    kCVReturnInvalidSize = -6681,                  /**< a zero or too large width or height */
    kCVReturnInvalidPixelBufferAttributes = -6682, /**< an attribute dictionary with a bad or conflicting entry */
    kCVReturnPixelBufferNotOpenGLCompatible = -6683,
    kCVReturnPoolAllocationFailed = -6690,         /**< a pool could not allocate a buffer */
    kCVReturnInvalidPoolAttributes = -6691,        /**< a pool attribute dictionary with a bad entry */
    kCVReturnLast = -6699
};

/** CVTime: a rational time, timeValue / timeScale seconds (Apple's CVBase.h
 *  layout: 16 bytes; the Quartz Core reference prints timeScale as int64_t,
 *  the header Apple ships declares int32_t). */
typedef struct CVTime {
    int64_t timeValue;
    int32_t timeScale;
    int32_t flags;      /**< kCVTimeIsIndefinite */
} CVTime;

enum { kCVTimeIsIndefinite = 1 << 0 };

/** A SMPTE time (Apple's layout: 24 bytes). */
typedef struct CVSMPTETime {
    int16_t subframes;
    int16_t subframeDivisor;
    uint32_t counter;
    uint32_t type;      /**< kCVSMPTETimeType... */
    uint32_t flags;     /**< kCVSMPTETimeValid, kCVSMPTETimeRunning */
    int16_t hours;
    int16_t minutes;
    int16_t seconds;
    int16_t frames;
} CVSMPTETime;

/** SMPTE time types. */
enum {
    kCVSMPTETimeType24 = 0,
    kCVSMPTETimeType25 = 1,
    kCVSMPTETimeType30Drop = 2,
    kCVSMPTETimeType30 = 3,
    kCVSMPTETimeType2997 = 4,
    kCVSMPTETimeType2997Drop = 5,
    kCVSMPTETimeType60 = 6,
    kCVSMPTETimeType5994 = 7
};

/** SMPTE state flags. */
enum {
    kCVSMPTETimeValid = 1 << 0,
    kCVSMPTETimeRunning = 1 << 1
};

/** A display timestamp (Apple's layout: 80 bytes). */
typedef struct CVTimeStamp {
    uint32_t version;           /**< 0 */
    int32_t videoTimeScale;
    int64_t videoTime;
    uint64_t hostTime;          /**< CVGetCurrentHostTime's time base */
    double rateScalar;
    int64_t videoRefreshPeriod;
    CVSMPTETime smpteTime;
    uint64_t flags;             /**< kCVTimeStamp... */
    uint64_t reserved;
} CVTimeStamp;

/** CVTimeStamp flags. */
enum {
    kCVTimeStampVideoTimeValid = 1 << 0,
    kCVTimeStampHostTimeValid = 1 << 1,
    kCVTimeStampSMPTETimeValid = 1 << 2,
    kCVTimeStampVideoRefreshPeriodValid = 1 << 3,
    kCVTimeStampRateScalarValid = 1 << 4,
    kCVTimeStampTopField = 1 << 16,
    kCVTimeStampBottomField = 1 << 17,
    kCVTimeStampVideoHostTimeValid = (1 << 0) | (1 << 1),
    kCVTimeStampIsInterlaced = (1 << 16) | (1 << 17)
};

/** Attachment propagation modes (CVBufferSetAttachment). */
enum {
    kCVAttachmentMode_ShouldNotPropagate = 0,
    kCVAttachmentMode_ShouldPropagate = 1
};

/** Lock flags (CVPixelBufferLockBaseAddress / UnlockBaseAddress): pass the
 *  same flags to the unlock as to the lock. */
enum CVPixelBufferLockFlags {
    kCVPixelBufferLock_ReadOnly = 0x00000001
};

/** Flags of CVPixelBufferPoolFlush. */
enum {
    kCVPixelBufferPoolFlushExcessBuffers = 1
};

/** Pixel format types: four-character codes, big-endian, as in Apple's
 *  CVPixelBuffer.h (written in hex here; 'BGRA' is a multi-character
 *  constant that -pedantic warns about). */
enum {
    kCVPixelFormatType_1Monochrome = 0x00000001,
    kCVPixelFormatType_2Indexed = 0x00000002,
    kCVPixelFormatType_4Indexed = 0x00000004,
    kCVPixelFormatType_8Indexed = 0x00000008,
    kCVPixelFormatType_1IndexedGray_WhiteIsZero = 0x00000021,
    kCVPixelFormatType_2IndexedGray_WhiteIsZero = 0x00000022,
    kCVPixelFormatType_4IndexedGray_WhiteIsZero = 0x00000024,
    kCVPixelFormatType_8IndexedGray_WhiteIsZero = 0x00000028,
    kCVPixelFormatType_16BE555 = 0x00000010,
    kCVPixelFormatType_16LE555 = 0x4C353535,                  /* 'L555' */
    kCVPixelFormatType_16LE5551 = 0x35353531,                 /* '5551' */
    kCVPixelFormatType_16BE565 = 0x42353635,                  /* 'B565' */
    kCVPixelFormatType_16LE565 = 0x4C353635,                  /* 'L565' */
    kCVPixelFormatType_24RGB = 0x00000018,
    kCVPixelFormatType_24BGR = 0x32344247,                    /* '24BG' */
    kCVPixelFormatType_32ARGB = 0x00000020,
    kCVPixelFormatType_32BGRA = 0x42475241,                   /* 'BGRA' */
    kCVPixelFormatType_32ABGR = 0x41424752,                   /* 'ABGR' */
    kCVPixelFormatType_32RGBA = 0x52474241,                   /* 'RGBA' */
    kCVPixelFormatType_64ARGB = 0x62363461,                   /* 'b64a' */
    kCVPixelFormatType_48RGB = 0x62343872,                    /* 'b48r' */
    kCVPixelFormatType_32AlphaGray = 0x62333261,              /* 'b32a' */
    kCVPixelFormatType_16Gray = 0x62313667,                   /* 'b16g' */
    kCVPixelFormatType_422YpCbCr8 = 0x32767579,               /* '2vuy' */
    kCVPixelFormatType_4444YpCbCrA8 = 0x76343038,             /* 'v408' */
    kCVPixelFormatType_4444YpCbCrA8R = 0x72343038,            /* 'r408' */
    kCVPixelFormatType_444YpCbCr8 = 0x76333038,               /* 'v308' */
    kCVPixelFormatType_422YpCbCr16 = 0x76323136,              /* 'v216' */
    kCVPixelFormatType_422YpCbCr10 = 0x76323130,              /* 'v210' */
    kCVPixelFormatType_444YpCbCr10 = 0x76343130,              /* 'v410' */
    kCVPixelFormatType_420YpCbCr8Planar = 0x79343230,         /* 'y420' */
    kCVPixelFormatType_420YpCbCr8PlanarFullRange = 0x66343230, /* 'f420' */
    kCVPixelFormatType_422YpCbCr_4A_8BiPlanar = 0x61327679,   /* 'a2vy' */
    kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange = 0x34323076, /* '420v' */
    kCVPixelFormatType_420YpCbCr8BiPlanarFullRange = 0x34323066,  /* '420f' */
    kCVPixelFormatType_422YpCbCr8_yuvs = 0x79757673,          /* 'yuvs' */
    kCVPixelFormatType_422YpCbCr8FullRange = 0x79757666       /* 'yuvf' */
};

/** Where a plane starts and its row bytes, BIG-ENDIAN, as the header at the
 *  base address of a planar buffer holds them (CVPixelBufferGetBaseAddress).
 *  `offset` is from the base address. Prefer CVPixelBufferGetBaseAddressOfPlane. */
typedef struct CVPlanarComponentInfo {
    int32_t offset;
    uint32_t rowBytes;
} CVPlanarComponentInfo;

typedef struct CVPlanarPixelBufferInfo {
    CVPlanarComponentInfo componentInfo[1];
} CVPlanarPixelBufferInfo;

/** The header of a 'y420' / 'f420' buffer. */
typedef struct CVPlanarPixelBufferInfo_YCbCrPlanar {
    CVPlanarComponentInfo componentInfoY;
    CVPlanarComponentInfo componentInfoCb;
    CVPlanarComponentInfo componentInfoCr;
} CVPlanarPixelBufferInfo_YCbCrPlanar;

/** The header of a '420v' / '420f' buffer. */
typedef struct CVPlanarPixelBufferInfo_YCbCrBiPlanar {
    CVPlanarComponentInfo componentInfoY;
    CVPlanarComponentInfo componentInfoCbCr;
} CVPlanarPixelBufferInfo_YCbCrBiPlanar;

/** Called exactly once, when the last reference to a buffer made by
 *  CVPixelBufferCreateWithBytes goes (a pool or a layer holding the buffer
 *  keeps it alive), on the thread that drops that reference. `baseAddress`
 *  is the pointer that was passed in. */
typedef void (*CVPixelBufferReleaseBytesCallback)(void *releaseRefCon, const void *baseAddress);

/** Called exactly once, when the last reference to a buffer made by
 *  CVPixelBufferCreateWithPlanarBytes goes, with the arguments that were
 *  passed in (`planeAddresses` is valid only during the call). */
typedef void (*CVPixelBufferReleasePlanarBytesCallback)(void *releaseRefCon, const void *dataPtr, size_t dataSize,
                                                        size_t numberOfPlanes, const void *planeAddresses[]);

/** Fills the extended pixels of a buffer of a custom pixel format
 *  (CVPixelBufferFillExtendedPixels); returns true on success. Runs on the
 *  calling thread. `pixelBuffer` is a CVPixelBufferRef (spelled as its
 *  struct so that Swift can call it). */
typedef bool (*CVFillExtendedPixelsCallBack)(struct QZOpaqueCVBuffer *pixelBuffer, void *refCon);

/** A custom extended-pixel fill, stored in a pixel format description under
 *  kCVPixelFormatFillExtendedPixelsCallback (Apple stores it as CFData;
 *  Quartzite as the value QZPixelFormatCreateFillExtendedPixelsCallbackValue
 *  returns). */
typedef struct CVFillExtendedPixelsCallBackData {
    CFIndex version;    /**< 0 */
    CVFillExtendedPixelsCallBack fillCallBack;
    void *refCon;
} CVFillExtendedPixelsCallBackData;

/* Buffer attachment keys (CVBuffer.h). */
#define kCVBufferMovieTimeKey "QTMovieTime"
#define kCVBufferTimeValueKey "TimeValue"
#define kCVBufferTimeScaleKey "TimeScale"
/* Buffer attribute keys: attachments to set when a buffer is created (dictionaries). */
#define kCVBufferPropagatedAttachmentsKey "PropagatedAttachments"
#define kCVBufferNonPropagatedAttachmentsKey "NonPropagatedAttachments"

/* Image buffer attachment keys and values (CVImageBuffer.h). */
#define kCVImageBufferCGColorSpaceKey "CGColorSpace"
#define kCVImageBufferGammaLevelKey "CVImageBufferGammaLevel"
#define kCVImageBufferCleanApertureKey "CVCleanAperture"
#define kCVImageBufferPreferredCleanApertureKey "CVPreferredCleanAperture"
#define kCVImageBufferCleanApertureWidthKey "Width"
#define kCVImageBufferCleanApertureHeightKey "Height"
#define kCVImageBufferCleanApertureHorizontalOffsetKey "HorizontalOffset"
#define kCVImageBufferCleanApertureVerticalOffsetKey "VerticalOffset"
#define kCVImageBufferFieldCountKey "CVFieldCount"
#define kCVImageBufferFieldDetailKey "CVFieldDetail"
#define kCVImageBufferFieldDetailTemporalTopFirst "TemporalTopFirst"
#define kCVImageBufferFieldDetailTemporalBottomFirst "TemporalBottomFirst"
#define kCVImageBufferFieldDetailSpatialFirstLineEarly "SpatialFirstLineEarly"
#define kCVImageBufferFieldDetailSpatialFirstLineLate "SpatialFirstLineLate"
#define kCVImageBufferPixelAspectRatioKey "CVPixelAspectRatio"
#define kCVImageBufferPixelAspectRatioHorizontalSpacingKey "HorizontalSpacing"
#define kCVImageBufferPixelAspectRatioVerticalSpacingKey "VerticalSpacing"
#define kCVImageBufferDisplayDimensionsKey "CVDisplayDimensions"
#define kCVImageBufferDisplayWidthKey "Width"
#define kCVImageBufferDisplayHeightKey "Height"
#define kCVImageBufferYCbCrMatrixKey "CVImageBufferYCbCrMatrix"
#define kCVImageBufferYCbCrMatrix_ITU_R_709_2 "ITU_R_709_2"
#define kCVImageBufferYCbCrMatrix_ITU_R_601_4 "ITU_R_601_4"
#define kCVImageBufferYCbCrMatrix_SMPTE_240M_1995 "SMPTE_240M_1995"
#define kCVImageBufferChromaLocationTopFieldKey "CVImageBufferChromaLocationTopField"
#define kCVImageBufferChromaLocationBottomFieldKey "CVImageBufferChromaLocationBottomField"
#define kCVImageBufferChromaLocation_Left "Left"
#define kCVImageBufferChromaLocation_Center "Center"
#define kCVImageBufferChromaLocation_TopLeft "TopLeft"
#define kCVImageBufferChromaLocation_Top "Top"
#define kCVImageBufferChromaLocation_BottomLeft "BottomLeft"
#define kCVImageBufferChromaLocation_Bottom "Bottom"
#define kCVImageBufferChromaLocation_DV420 "DV 4:2:0"
#define kCVImageBufferChromaSubsamplingKey "CVImageBufferChromaSubsampling"
#define kCVImageBufferChromaSubsampling_420 "4:2:0"
#define kCVImageBufferChromaSubsampling_422 "4:2:2"
#define kCVImageBufferChromaSubsampling_411 "4:1:1"
#define kCVImageBufferColorPrimariesKey "CVImageBufferColorPrimaries"
#define kCVImageBufferColorPrimaries_ITU_R_709_2 "ITU_R_709_2"
#define kCVImageBufferColorPrimaries_EBU_3213 "EBU_3213"
#define kCVImageBufferColorPrimaries_SMPTE_C "SMPTE_C"
#define kCVImageBufferICCProfileKey "CVImageBufferICCProfile"
#define kCVImageBufferTransferFunctionKey "CVImageBufferTransferFunction"
#define kCVImageBufferTransferFunction_ITU_R_709_2 "ITU_R_709_2"
#define kCVImageBufferTransferFunction_SMPTE_240M_1995 "SMPTE_240M_1995"
#define kCVImageBufferTransferFunction_UseGamma "UseGamma"

/* Pixel buffer attribute keys (CVPixelBuffer.h). */
#define kCVPixelBufferPixelFormatTypeKey "PixelFormatType"
#define kCVPixelBufferMemoryAllocatorKey "MemoryAllocator"
#define kCVPixelBufferWidthKey "Width"
#define kCVPixelBufferHeightKey "Height"
#define kCVPixelBufferExtendedPixelsLeftKey "ExtendedPixelsLeft"
#define kCVPixelBufferExtendedPixelsTopKey "ExtendedPixelsTop"
#define kCVPixelBufferExtendedPixelsRightKey "ExtendedPixelsRight"
#define kCVPixelBufferExtendedPixelsBottomKey "ExtendedPixelsBottom"
#define kCVPixelBufferBytesPerRowAlignmentKey "BytesPerRowAlignment"
#define kCVPixelBufferCGBitmapContextCompatibilityKey "CGBitmapContextCompatibility"
#define kCVPixelBufferCGImageCompatibilityKey "CGImageCompatibility"
#define kCVPixelBufferOpenGLCompatibilityKey "OpenGLCompatibility"
#define kCVPixelBufferIOSurfacePropertiesKey "IOSurfaceProperties"
#define kCVPixelBufferPlaneAlignmentKey "PlaneAlignment"

/* Pixel buffer pool attribute keys (CVPixelBufferPool.h). */
#define kCVPixelBufferPoolMinimumBufferCountKey "MinimumBufferCount"
#define kCVPixelBufferPoolMaximumBufferAgeKey "MaximumBufferAge"

/* Pixel format description keys (CVPixelFormatDescription.h). */
#define kCVPixelFormatName "Name"
#define kCVPixelFormatConstant "PixelFormat"
#define kCVPixelFormatCodecType "CodecType"
#define kCVPixelFormatFourCC "FourCC"
#define kCVPixelFormatPlanes "Planes"
#define kCVPixelFormatBlockWidth "BlockWidth"
#define kCVPixelFormatBlockHeight "BlockHeight"
#define kCVPixelFormatBitsPerBlock "BitsPerBlock"
#define kCVPixelFormatBlockHorizontalAlignment "BlockHorizontalAlignment"
#define kCVPixelFormatBlockVerticalAlignment "BlockVerticalAlignment"
#define kCVPixelFormatBlackBlock "BlackBlock"
#define kCVPixelFormatHorizontalSubsampling "HorizontalSubsampling"
#define kCVPixelFormatVerticalSubsampling "VerticalSubsampling"
#define kCVPixelFormatOpenGLFormat "OpenGLFormat"
#define kCVPixelFormatOpenGLType "OpenGLType"
#define kCVPixelFormatOpenGLInternalFormat "OpenGLInternalFormat"
#define kCVPixelFormatCGBitmapInfo "CGBitmapInfo"
#define kCVPixelFormatQDCompatibility "QDCompatibility"
#define kCVPixelFormatCGBitmapContextCompatibility "CGBitmapContextCompatibility"
#define kCVPixelFormatCGImageCompatibility "CGImageCompatibility"
#define kCVPixelFormatOpenGLCompatibility "OpenGLCompatibility"
#define kCVPixelFormatFillExtendedPixelsCallback "FillExtendedPixelsCallback"
#define kCVPixelFormatDirect3DFormat "D3DFormat"
#define kCVPixelFormatDirect3DType "D3DType"
#define kCVPixelFormatDirect3DInternalFormat "D3DInternalFormat"
#define kCVPixelFormatDirect3DCompatibility "D3DCompatibility"
/** Quartzite's addition to a description: an array with one dictionary per
 *  plane (BitsPerBlock, BlockWidth, BlockHeight, HorizontalSubsampling,
 *  VerticalSubsampling), for planar formats. kCVPixelFormatPlanes is the
 *  plane count, as the Quartz Core reference documents it (a number); a
 *  registered description may also give kCVPixelFormatPlanes as such an
 *  array, as Apple's own descriptions do. */
#define kQZPixelFormatPlaneDescriptions "QZPlaneDescriptions"

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
/** Zero time: {0, 0, 0} (Apple's value). */
extern const CVTime kCVZeroTime;
/** An unknown time: {0, 0, kCVTimeIsIndefinite}. */
extern const CVTime kCVIndefiniteTime;

/* MARK: - Run loop and display link */

/** A thread's run loop (Apple's CFRunLoopRef): one per thread, made on
 *  demand by CFRunLoopGetCurrent. Borrowed from the Get functions; it lives
 *  as long as its thread (the main thread's for the life of the process). */
typedef struct QZOpaqueCFRunLoop *CFRunLoopRef;
/** A run-loop timer (Apple's CFRunLoopTimerRef). */
typedef struct QZOpaqueCFRunLoopTimer *CFRunLoopTimerRef;
/** A display link (Apple's CADisplayLink). */
typedef struct CADisplayLink *CADisplayLinkRef;

/** CFRunLoopRunInMode's results (Apple's values). */
typedef int32_t CFRunLoopRunResult;
enum {
    kCFRunLoopRunFinished = 1,      /**< the mode has no timers, display links, performs or transaction work */
    kCFRunLoopRunStopped = 2,       /**< CFRunLoopStop was called */
    kCFRunLoopRunTimedOut = 3,      /**< the time given ran out */
    kCFRunLoopRunHandledSource = 4  /**< returnAfterSourceHandled and a source (a perform or a display link) ran */
};

/** Run-loop modes (Apple's names and values). The common modes are a set
 *  holding the default mode (and those added with CFRunLoopAddCommonMode);
 *  an item added for kCFRunLoopCommonModes runs in each of them. */
#define kCFRunLoopDefaultMode "kCFRunLoopDefaultMode"
#define kCFRunLoopCommonModes "kCFRunLoopCommonModes"

/** A timer's callout (Apple's CFRunLoopTimerCallBack). Runs on the thread of
 *  the run loop the timer is in, during a turn of that loop. `timer` is a
 *  CFRunLoopTimerRef (spelled as its struct so that Swift can call it). */
typedef void (*CFRunLoopTimerCallBack)(struct QZOpaqueCFRunLoopTimer *timer, void *info);
/** A function queued with QZRunLoopPerformFunction; runs once, on the run
 *  loop's thread, during a turn of that loop in a matching mode. */
typedef void (*QZRunLoopPerformCallback)(void *info);
/** Releases the `info` of a timer or display link (QZRunLoopTimerSetInfoRelease,
 *  QZDisplayLinkSetInfoRelease); runs once, on the thread that invalidates or
 *  frees the object. */
typedef void (*QZInfoReleaseCallback)(void *info);
/** A display link's target (Apple's displayLinkWithTarget:selector:). Runs on
 *  the thread of a run loop the link is in, during a turn of that loop, or on
 *  the thread that calls QZDisplayLinkStep. */
typedef void (*CADisplayLinkCallback)(CADisplayLinkRef link, void *info);
/* ---- Renderer, draw lists and bitmap contexts ---------------------------- */

/** A renderer of layer trees into a pixel buffer (Apple's CARenderer). */
typedef struct CARenderer *CARendererRef;
/** A frame as a flat list of draw operations (QZRendererCopyDrawList). */
typedef struct QZDrawList *QZDrawListRef;
/** A colour space (Apple's CGColorSpaceRef). Quartzite renders in sRGB and
 *  accepts NULL wherever a colour space is asked for. */
typedef struct QZOpaqueCGColorSpace *CGColorSpaceRef;

/** Apple's CGImageAlphaInfo and CGBitmapInfo values (CGBitmapContextCreate
 *  accepts 8 bits per component, 4 bytes per pixel, premultiplied:
 *  kCGImageAlphaPremultipliedFirst | kCGBitmapByteOrder32Little (BGRA in
 *  memory), kCGImageAlphaPremultipliedLast (RGBA in memory), and their
 *  kCGImageAlphaNoneSkipFirst / NoneSkipLast opaque variants). */
enum {
    kCGImageAlphaNone = 0,
    kCGImageAlphaPremultipliedLast = 1,
    kCGImageAlphaPremultipliedFirst = 2,
    kCGImageAlphaLast = 3,
    kCGImageAlphaFirst = 4,
    kCGImageAlphaNoneSkipLast = 5,
    kCGImageAlphaNoneSkipFirst = 6,
    kCGImageAlphaOnly = 7,
    kCGBitmapAlphaInfoMask = 0x1F,
    kCGBitmapByteOrderMask = 0x7000,
    kCGBitmapByteOrderDefault = 0 << 12,
    kCGBitmapByteOrder16Little = 1 << 12,
    kCGBitmapByteOrder32Little = 2 << 12,
    kCGBitmapByteOrder16Big = 3 << 12,
    kCGBitmapByteOrder32Big = 4 << 12
};

/* ---- Core Graphics (CGContext.h, CGImage.h, CGGradient.h, ...) ---------- */

/** An immutable bitmap image (Apple's CGImageRef). Its pixels are kept as
 *  premultiplied 32BGRA whatever layout it was made from. */
typedef struct QZOpaqueCGImage *CGImageRef;
/** Bytes for images (Apple's CGDataProviderRef). */
typedef struct QZOpaqueCGDataProvider *CGDataProviderRef;
/** A gradient: colours at locations (Apple's CGGradientRef). */
typedef struct QZOpaqueCGGradient *CGGradientRef;

/** Called when a CGDataProviderCreateWithData provider is freed, on the
 *  thread that drops its last reference. As in Apple's CGDataProvider.h,
 *  `info` comes FIRST here. */
typedef void (*CGDataProviderReleaseDataCallback)(void *info, const void *data, size_t size);

/** Apple's CGColorSpaceModel (the models Quartzite has). */
typedef enum CGColorSpaceModel {
    kCGColorSpaceModelUnknown = -1,
    kCGColorSpaceModelMonochrome = 0,
    kCGColorSpaceModelRGB = 1
} CGColorSpaceModel;

/** Names for CGColorSpaceCreateWithName (Apple's CFString values). RGB
 *  names are drawn as sRGB, gray names as gray. */
#define kCGColorSpaceSRGB "kCGColorSpaceSRGB"
#define kCGColorSpaceGenericRGB "kCGColorSpaceGenericRGB"
#define kCGColorSpaceExtendedSRGB "kCGColorSpaceExtendedSRGB"
#define kCGColorSpaceLinearSRGB "kCGColorSpaceLinearSRGB"
#define kCGColorSpaceGenericGray "kCGColorSpaceGenericGray"
#define kCGColorSpaceGenericGrayGamma2_2 "kCGColorSpaceGenericGrayGamma2_2"
#define kCGColorSpaceLinearGray "kCGColorSpaceLinearGray"
#define kCGColorSpaceExtendedGray "kCGColorSpaceExtendedGray"

/** Apple's CGBlendMode: the PDF separable and non-separable blend modes,
 *  then the Porter-Duff modes (R result, S source, D destination,
 *  premultiplied). Anything else is rejected with QZErrorInvalidArgument. */
typedef enum CGBlendMode {
    kCGBlendModeNormal = 0,
    kCGBlendModeMultiply = 1,
    kCGBlendModeScreen = 2,
    kCGBlendModeOverlay = 3,
    kCGBlendModeDarken = 4,
    kCGBlendModeLighten = 5,
    kCGBlendModeColorDodge = 6,
    kCGBlendModeColorBurn = 7,
    kCGBlendModeSoftLight = 8,
    kCGBlendModeHardLight = 9,
    kCGBlendModeDifference = 10,
    kCGBlendModeExclusion = 11,
    kCGBlendModeHue = 12,
    kCGBlendModeSaturation = 13,
    kCGBlendModeColor = 14,
    kCGBlendModeLuminosity = 15,
    kCGBlendModeClear = 16,           /**< R = 0 */
    kCGBlendModeCopy = 17,            /**< R = S */
    kCGBlendModeSourceIn = 18,        /**< R = S*Da */
    kCGBlendModeSourceOut = 19,       /**< R = S*(1 - Da) */
    kCGBlendModeSourceAtop = 20,      /**< R = S*Da + D*(1 - Sa) */
    kCGBlendModeDestinationOver = 21, /**< R = S*(1 - Da) + D */
    kCGBlendModeDestinationIn = 22,   /**< R = D*Sa */
    kCGBlendModeDestinationOut = 23,  /**< R = D*(1 - Sa) */
    kCGBlendModeDestinationAtop = 24, /**< R = S*(1 - Da) + D*Sa */
    kCGBlendModeXOR = 25,             /**< R = S*(1 - Da) + D*(1 - Sa) */
    kCGBlendModePlusDarker = 26,      /**< R = MAX(0, 1 - ((1 - D) + (1 - S))) */
    kCGBlendModePlusLighter = 27      /**< R = MIN(1, S + D) */
} CGBlendMode;

/** Apple's CGLineCap. */
typedef enum CGLineCap {
    kCGLineCapButt = 0,
    kCGLineCapRound = 1,
    kCGLineCapSquare = 2
} CGLineCap;

/** Apple's CGLineJoin. */
typedef enum CGLineJoin {
    kCGLineJoinMiter = 0,
    kCGLineJoinRound = 1,
    kCGLineJoinBevel = 2
} CGLineJoin;

/** Apple's CGPathDrawingMode (CGContextDrawPath, CGContextPathContainsPoint). */
typedef enum CGPathDrawingMode {
    kCGPathFill = 0,
    kCGPathEOFill = 1,
    kCGPathStroke = 2,
    kCGPathFillStroke = 3,
    kCGPathEOFillStroke = 4
} CGPathDrawingMode;

/** Apple's CGInterpolationQuality (note Apple's order: High is 3, Medium 4).
 *  None samples the nearest pixel, Low bilinearly, Default and Medium with
 *  cairo's "good" filter (box-filtered when scaling down), High with its
 *  "best" one. */
typedef enum CGInterpolationQuality {
    kCGInterpolationDefault = 0,
    kCGInterpolationNone = 1,
    kCGInterpolationLow = 2,
    kCGInterpolationMedium = 4,
    kCGInterpolationHigh = 3
} CGInterpolationQuality;

/** Apple's CGGradientDrawingOptions. */
typedef uint32_t CGGradientDrawingOptions;
enum {
    kCGGradientDrawsBeforeStartLocation = 1U << 0,
    kCGGradientDrawsAfterEndLocation = 1U << 1
};

/** Apple's CGColorRenderingIntent (accepted by CGImageCreate and ignored:
 *  Quartzite draws in sRGB). */
typedef enum CGColorRenderingIntent {
    kCGRenderingIntentDefault = 0,
    kCGRenderingIntentAbsoluteColorimetric = 1,
    kCGRenderingIntentRelativeColorimetric = 2,
    kCGRenderingIntentPerceptual = 3,
    kCGRenderingIntentSaturation = 4
} CGColorRenderingIntent;

/** The kinds of draw operation (QZDrawOperation.kind). Drawing operations
 *  are FILL, BORDER, IMAGE and PATH; the others structure the list:
 *  PUSH_CLIP ... POP_CLIP nest; BEGIN_GROUP ... [BEGIN_MASK ...] END_GROUP
 *  draws its contents offscreen, multiplies each premultiplied channel by
 *  the group's color (opaque white (1, 1, 1, 1) for every group but a
 *  CAReplicatorLayer instance's, whose color is its premultiplied instance
 *  colour) and composites them with the group's opacity
 *  (times the mask part's alpha when a BEGIN_MASK part is present);
 *  BEGIN_SHADOW ... END_SHADOW draws its contents offscreen (unclipped),
 *  keeps their alpha, blurs it (Gaussian, standard deviation shadowRadius
 *  pixels), tints it with color x opacity and composites it moved by
 *  shadowOffset pixels (under the enclosing clips).
 *  Layer filters: a BEGIN_GROUP may carry filters (QZDrawListCopyOperationFilters:
 *  applied in order to the group's pixels once drawn, blur radii in pixels)
 *  and a blendMode (QZBlendMode..., the layer's compositingFilter) with which
 *  it is composited instead of source-over. BACKDROP (backgroundFilters)
 *  takes the pixels already drawn (in the innermost group, or the target)
 *  under its rounded rect, filters them (blurs reading their reach around
 *  it, edge pixels repeated beyond the surface) and writes them back within
 *  the rounded rect, through the clips, times opacity. */
typedef enum QZDrawOperationKind {
    QZDrawOperationFill = 1,        /**< a rounded rect (rect, cornerRadius) filled with color */
    QZDrawOperationBorder = 2,      /**< the band borderWidth wide inside the rounded rect */
    QZDrawOperationImage = 3,       /**< texture's textureRect mapped onto rect */
    QZDrawOperationPath = 4,        /**< a path (layer coordinates) filled with color, nonzero rule */
    QZDrawOperationPushClip = 5,    /**< clip what follows to the rounded rect */
    QZDrawOperationPopClip = 6,
    QZDrawOperationBeginGroup = 7,
    QZDrawOperationBeginMask = 8,
    QZDrawOperationEndGroup = 9,
    QZDrawOperationBeginShadow = 10,
    QZDrawOperationEndShadow = 11,
    QZDrawOperationBackdrop = 12    /**< filters the pixels under the rounded rect in place */
} QZDrawOperationKind;

/** Blend modes (QZDrawOperation.blendMode; a BEGIN_GROUP's composite). The
 *  source s is first scaled by k = coverage x opacity. Blend modes (1...15)
 *  follow W3C Compositing and Blending Level 1 on premultiplied colours:
 *  co = cs (1 - ad) + cd (1 - as) + as ad B(Cd, Cs), ao = as + ad - as ad;
 *  Porter-Duff operators (16...25): co = cs Fa + cd Fb, ao = as Fa + ad Fb;
 *  plus-lighter adds (clamped), plus-darker gives max(0, ao - ((as - cs) +
 *  (ad - cd))) with ao = min(1, as + ad). Names accepted by
 *  compositingFilter: "<mode>BlendMode" and "CI<Mode>BlendMode" for 1...15,
 *  "sourceOver" / "normalBlendMode", "clear", "copy", "sourceIn",
 *  "sourceOut", "sourceAtop", "destOver", "destIn", "destOut", "destAtop",
 *  "xor", "plusL", "plusD" and Core Image's "CISourceOverCompositing",
 *  "CISourceInCompositing", "CISourceOutCompositing",
 *  "CISourceAtopCompositing", "CIAdditionCompositing" (plus-lighter). */
enum {
    /** Premultiplied source-over: dst = src * k + dst * (1 - src.a * k), where
     *  k = coverage x opacity. */
    QZBlendModeSourceOver = 0,
    QZBlendModeMultiply = 1, QZBlendModeScreen = 2, QZBlendModeOverlay = 3,
    QZBlendModeDarken = 4, QZBlendModeLighten = 5, QZBlendModeColorDodge = 6,
    QZBlendModeColorBurn = 7, QZBlendModeSoftLight = 8, QZBlendModeHardLight = 9,
    QZBlendModeDifference = 10, QZBlendModeExclusion = 11,
    /** Non-separable (Lum = 0.3 R + 0.59 G + 0.11 B). */
    QZBlendModeHue = 12, QZBlendModeSaturation = 13, QZBlendModeColor = 14, QZBlendModeLuminosity = 15,
    /** Porter-Duff: (Fa, Fb) = clear (0, 0), copy (1, 0), sourceIn (ad, 0),
     *  sourceOut (1 - ad, 0), sourceAtop (ad, 1 - as), destinationOver
     *  (1 - ad, 1), destinationIn (0, as), destinationOut (0, 1 - as),
     *  destinationAtop (1 - ad, as), xor (1 - ad, 1 - as). */
    QZBlendModeClear = 16, QZBlendModeCopy = 17, QZBlendModeSourceIn = 18, QZBlendModeSourceOut = 19,
    QZBlendModeSourceAtop = 20, QZBlendModeDestinationOver = 21, QZBlendModeDestinationIn = 22,
    QZBlendModeDestinationOut = 23, QZBlendModeDestinationAtop = 24, QZBlendModeXor = 25,
    QZBlendModePlusLighter = 26, QZBlendModePlusDarker = 27,
    /** Added: dst = min(src * k + dst, 1) per channel: plus-lighter, the
     *  mode of a CAEmitterLayer's kCAEmitterLayerAdditive particles. */
    QZBlendModeAdditive = 26
};

/** One draw operation. Geometry: a point (x, y) of layer coordinates maps to
 *  target pixels as (X, Y, Z, W) = (x, y, 0, 1) * transform (row vectors,
 *  Apple's CATransform3D layout) then (X / W, Y / W); only points with W > 0
 *  are drawn (a GPU host clips at W = 0 and interpolates texture coordinates
 *  perspective-correctly). Pixel (i, j) has its centre at (i + 0.5, j + 0.5);
 *  row 0 is the top. Edges listed in edgeAntialiasingMask are anti-aliased;
 *  the others are hard (inner edges of nine-part images). */
typedef struct QZDrawOperation {
    uint32_t kind;                  /**< QZDrawOperationKind */
    uint32_t blendMode;             /**< QZBlendMode... (BEGIN_GROUP: the layer's compositingFilter; IMAGE: QZBlendModeAdditive for additive particles; 0 source-over) */
    CATransform3D transform;        /**< layer coordinates -> target pixels */
    CGRect rect;                    /**< the quad, in layer coordinates (BEGIN_SHADOW: the silhouette's
                                         unclipped extent plus the blur's reach, in pixels, before the offset) */
    CGFloat cornerRadius;           /**< rounded corners of rect (fill, border, clip) */
    CGFloat borderWidth;            /**< border: the band's width, inwards */
    float color[4];                 /**< premultiplied RGBA, 0...1 (fill, border, path, shadow; group: multiplies its pixels;
                                         image: multiplies its texels, opaque white but for emitter particles) */
    float opacity;                  /**< multiplies the operation (groups: the whole group) */
    /** image: the contents (borrowed, valid while the list lives); its pixels
     *  are premultiplied after conversion to BGRA. */
    CVPixelBufferRef texture;
    CGRect textureRect;             /**< image: the part shown, unit coordinates (0...1, y down) */
    uint32_t minificationFilter;    /**< 0 nearest, 1 linear, 2 trilinear (mipmaps) */
    uint32_t magnificationFilter;   /**< 0 nearest, 1 linear */
    float minificationFilterBias;   /**< added to the mip level */
    uint32_t edgeAntialiasingMask;  /**< kCALayerLeftEdge | ...: anti-aliased edges */
    CGRect bounds;                  /**< target pixels the operation can touch (groups: their extent) */
    CGSize shadowOffset;            /**< shadow: offset in pixels */
    CGFloat shadowRadius;           /**< shadow: blur standard deviation in pixels */
    CGPathRef path;                 /**< path: borrowed, layer coordinates */
    uint64_t layerID;               /**< identifies the model layer (stable across frames) */
    uint32_t depth;                 /**< nesting depth inside clips, groups and shadows */
    uint32_t reserved;
} QZDrawOperation;

/* ---- Core Text and attributed strings (CTFont.h, CTLine.h, CTFramesetter.h,
 *      CTFrame.h, CFAttributedString.h) ----------------------------------- */

/** Core Foundation's range (CFIndex is above). Ranges into strings count
 *  UTF-16 code units, as Apple's do. */
typedef struct CFRange { CFIndex location; CFIndex length; } CFRange;

/** A string with attributes over ranges (Apple's CFAttributedStringRef);
 *  the mutable kind is the same type. */
typedef const struct QZOpaqueCFAttributedString *CFAttributedStringRef;
typedef struct QZOpaqueCFAttributedString *CFMutableAttributedStringRef;
/** A font at a size (Apple's CTFontRef), resolved through fontconfig. */
typedef const struct QZOpaqueCTFont *CTFontRef;
/** One line of laid-out text (Apple's CTLineRef). */
typedef const struct QZOpaqueCTLine *CTLineRef;
/** Lays attributed text out in frames (Apple's CTFramesetterRef). */
typedef const struct QZOpaqueCTFramesetter *CTFramesetterRef;
/** Lines laid out in a rectangle (Apple's CTFrameRef). */
typedef const struct QZOpaqueCTFrame *CTFrameRef;

/** Attribute names Core Text reads (Apple's CFString values): a CTFontRef;
 *  a CGColorRef (runs without one are black); a number value
 *  (kCTUnderlineStyle...); a CGColorRef for the underline; a number value of
 *  points added after each character; a number value, 0 turning ligatures
 *  off; a bool value, true taking the context's fill colour. */
#define kCTFontAttributeName "NSFont"
#define kCTForegroundColorAttributeName "CTForegroundColor"
#define kCTUnderlineStyleAttributeName "NSUnderline"
#define kCTUnderlineColorAttributeName "NSUnderlineColor"
#define kCTKernAttributeName "NSKern"
#define kCTLigatureAttributeName "NSLigature"
#define kCTForegroundColorFromContextAttributeName "CTForegroundColorFromContext"

/** Apple's CTUnderlineStyle (Thick is drawn as Single). */
typedef int32_t CTUnderlineStyle;
enum {
    kCTUnderlineStyleNone = 0x00,
    kCTUnderlineStyleSingle = 0x01,
    kCTUnderlineStyleThick = 0x02,
    kCTUnderlineStyleDouble = 0x09
};

/** Font attribute names for CTFontCopyAttribute (Apple's CFString values):
 *  the face's file as a "file://" URL string, its PostScript name, family
 *  name, full (display) name, and its size (a number). */
#define kCTFontURLAttribute "NSFontURLAttribute"
#define kCTFontNameAttribute "NSFontNameAttribute"
#define kCTFontFamilyNameAttribute "NSFontFamilyAttribute"
#define kCTFontDisplayNameAttribute "NSFontVisibleNameAttribute"
#define kCTFontSizeAttribute "NSFontSizeAttribute"

/** Counters of text work since the last QZTextResetStatistics
 *  (QZTextGetStatistics): layouts made (shaping, bidi and line breaking of
 *  a text), layouts served from the layout cache, layouts drawn, and how
 *  many fonts and layouts the bounded caches hold now (a layout joins the
 *  layout cache when its text is asked for a second time; until then it is
 *  among the last 64 made, which cachedLayouts does not count). */
typedef struct QZTextStatistics {
    uint64_t layouts;
    uint64_t layoutCacheHits;
    uint64_t draws;
    uint64_t cachedFonts;
    uint64_t cachedLayouts;
} QZTextStatistics;

/** Keys of CARendererCreate's options dictionary (all optional). */
#define kCARendererColorSpace "kCARendererColorSpace"
#define kCARendererMetalCommandQueue "kCARendererMetalCommandQueue"

/* MARK: - OpenGL ES through EGL (CAEAGLLayer, CARendererCreateWithEGLContext) */

/* EGL's opaque handles, as <EGL/egl.h> declares them: quartzite.h needs no
 * EGL header, and a host that includes <EGL/egl.h> first keeps its own
 * definitions (C99 code including both should include <EGL/egl.h> first;
 * C11 and C++ accept either order). Quartzite loads libEGL.so.1 and
 * libGLESv2.so.2 when a GL function is first called; without them those
 * functions record QZErrorInvalidState and the rest of the library works. */
#ifndef EGL_VERSION_1_0
typedef void *EGLDisplay;
typedef void *EGLContext;
#endif

/** The keys of a CAEAGLLayer's drawableProperties (Apple's EAGLDrawable
 *  protocol, with Apple's string values). */
#define kEAGLDrawablePropertyRetainedBacking "EAGLDrawablePropertyRetainedBacking"
#define kEAGLDrawablePropertyColorFormat "EAGLDrawablePropertyColorFormat"
/** Values of kEAGLDrawablePropertyColorFormat: 32-bit RGBA (the default) and
 *  16-bit RGB 5-6-5. */
#define kEAGLColorFormatRGBA8 "EAGLColorFormatRGBA8"
#define kEAGLColorFormatRGB565 "EAGLColorFormat565"

#ifdef __cplusplus
}
#endif

#endif /* QUARTZITE_TYPES_H */
