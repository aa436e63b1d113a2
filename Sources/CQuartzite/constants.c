/* Apple's exported constant structs. They are data symbols, which Swift
 * cannot export under a C name, so they live in the C target. */
#include <math.h>
#include <float.h>
#include "quartzite/quartzite_types.h"

const CATransform3D CATransform3DIdentity = {
    1, 0, 0, 0,
    0, 1, 0, 0,
    0, 0, 1, 0,
    0, 0, 0, 1,
};
const CGAffineTransform CGAffineTransformIdentity = { 1, 0, 0, 1, 0, 0 };
const CGPoint CGPointZero = { 0, 0 };
const CGSize CGSizeZero = { 0, 0 };
const CGRect CGRectZero = { { 0, 0 }, { 0, 0 } };
const CGRect CGRectNull = { { INFINITY, INFINITY }, { 0, 0 } };
/* Apple's value: origin at -DBL_MAX/2, size DBL_MAX. */
const CGRect CGRectInfinite = { { -DBL_MAX / 2, -DBL_MAX / 2 }, { DBL_MAX, DBL_MAX } };
const CVTime kCVZeroTime = { 0, 0, 0 };
const CVTime kCVIndefiniteTime = { 0, 0, kCVTimeIsIndefinite };
