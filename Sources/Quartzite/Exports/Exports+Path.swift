import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel
import QuartziteRender

// CGPathRef / CGMutablePathRef with Apple's C names (CGPath.h), plus
// Quartzite's indexed access and measuring functions (QZPath...).
//
// Rules shared by every function here:
// - A CGMutablePathRef is accepted wherever a CGPathRef is. The functions
//   that change a path take a CGMutablePathRef; given an immutable path (from
//   CGPathCreateCopy or a CGPathCreateWith... function) they record
//   QZErrorWrongType and change nothing.
// - `m` (or `transform`) may be NULL (no transform); a transform with a NaN
//   or infinite entry records QZErrorNotFinite and the call does nothing.
// - NaN or infinite coordinates, radii and angles record QZErrorNotFinite and
//   the call does nothing; so does a point that the transform takes to
//   infinity. Every call changes the path completely or not at all.
// - A line, curve or tangent arc needs a current point: on an empty path it
//   records QZErrorInvalidState and does nothing (Core Graphics logs "no
//   current point" and ignores the call; it does not move implicitly).
// - Angles are in radians from the positive x axis towards the positive y
//   axis. `clockwise` follows Core Graphics: true sweeps towards decreasing
//   angles, which is clockwise when y points up. In Quartzite's layer space
//   (y down, as in iOS) such an arc appears counter-clockwise on screen, as
//   CGPathAddArc's does in a flipped UIKit context.
//
// Threads: a path's contents sit behind a lock, so a path may be read from
// several threads while one changes it; each call sees the path before or
// after another thread's change, never half of it.

// MARK: - Helpers

/// The transform behind an optional `const CGAffineTransform *`: `.some(nil)`
/// for NULL, nil (with QZErrorNotFinite recorded) for a non-finite one.
@inline(__always)
func pathTransform(_ m: UnsafePointer<CGAffineTransform>?, _ function: StaticString) -> CGAffineTransform?? {
    guard let m else { return .some(nil) }
    let t = m.pointee
    guard checkAffine(t, function) else { return nil }
    return .some(t)
}

@inline(never)
func recordPathError(_ error: PathError, _ function: StaticString) {
    switch error {
    case .noCurrentPoint:
        recordError(QZErrorInvalidState, function, "the path has no current point (start it with CGPathMoveToPoint)")
    case .notFinite:
        recordError(QZErrorNotFinite, function, "a point of the path would not be finite")
    case .invalidArgument(let message):
        recordError(QZErrorInvalidArgument, function, message)
    case .tooLarge:
        recordError(QZErrorOutOfMemory, function,
                    "the path would hold more than \(PathData.maximumPoints) points, or all paths more than \(PathMemory.maximumPoints)")
    }
}

/// Runs `body` on a mutable path's contents, or records why it cannot: NULL,
/// not a path, or an immutable path. Errors thrown by `body` are recorded.
@inline(__always)
func changePath(_ p: OpaquePointer?, _ function: StaticString, _ body: (inout PathData) throws(PathError) -> Void) {
    guard let p else {
        recordError(QZErrorNullArgument, function, "CGMutablePathRef argument is NULL")
        return
    }
    let tag = readTag(p)
    guard Path.isMutableTag(tag) else {
        if Path.accepts(tag) {
            recordError(QZErrorWrongType, function,
                        "expected a CGMutablePathRef, got an immutable CGPathRef (made by CGPathCreateCopy or CGPathCreateWith...)")
        } else {
            wrongType(p, expected: "CGMutablePath", function)
        }
        return
    }
    let path = Unmanaged<Path>.fromOpaque(UnsafeRawPointer(p)).takeUnretainedValue()
    do {
        try path.mutate(body)
    } catch {
        recordPathError(error, function)
    }
}

/// A new path handle (+1) made from elements in user space, or NULL with
/// the error recorded.
func makePath(_ elements: [PathElement], transform m: UnsafePointer<CGAffineTransform>?, mutable: Bool,
              _ function: StaticString) -> OpaquePointer? {
    guard let t = pathTransform(m, function) else { return nil }
    do {
        return retainedHandle(Path(try PathData(elements.map { $0.applying(t) }), mutable: mutable))
    } catch {
        recordPathError(error, function)
        return nil
    }
}

/// The `count` items at `items`, or nil with the error recorded.
func pathInputs<T>(_ items: UnsafePointer<T>?, _ count: Int, _ what: String, _ function: StaticString) -> UnsafeBufferPointer<T>? {
    guard count >= 0, count <= 1 << 40 else {
        recordError(QZErrorOutOfRange, function, "count \(count) is out of range")
        return nil
    }
    if count == 0 { return UnsafeBufferPointer(start: nil, count: 0) }
    guard let items else {
        recordError(QZErrorNullArgument, function, "\(what) is NULL but count is \(count)")
        return nil
    }
    return UnsafeBufferPointer(start: items, count: count)
}

// MARK: - Creating and managing paths

/// Creates an empty mutable path. Returns +1: release with CGPathRelease (or
/// CARelease). Thread safety: a path may be used from any thread; changes are
/// serialised, and readers see a path before or after each change.
@c public func CGPathCreateMutable() -> QZCGMutablePathRef? {
    retainedHandle(Path(mutable: true))
}

/// Creates a mutable copy of `path` (mutable or not) that shares nothing
/// with it. Returns +1. NULL or a handle that is not a path records an error
/// and returns NULL.
@c public func CGPathCreateMutableCopy(_ path: QZCGPathRef?) -> QZCGMutablePathRef? {
    guard let p = object(path, as: Path.self) else { return nil }
    return retainedHandle(Path(p.data, mutable: true))
}

/// Creates an immutable copy of `path`. Returns +1. For an immutable path
/// this is the same handle with one more reference (as Core Graphics does);
/// a mutable path's later changes do not reach the copy. NULL or a handle
/// that is not a path records an error and returns NULL.
@c public func CGPathCreateCopy(_ path: QZCGPathRef?) -> QZCGPathRef? {
    guard let p = object(path, as: Path.self) else { return nil }
    if !p.isMutable { return retainedHandle(p) }
    return retainedHandle(Path(p.data, mutable: false))
}

/// Creates an immutable copy of `path` with every point transformed by
/// `transform` (NULL: an untransformed copy). Returns +1, or NULL with the
/// error recorded (also when a point would become infinite).
@c public func CGPathCreateCopyByTransformingPath(_ path: QZCGPathRef?, _ transform: UnsafePointer<CGAffineTransform>?) -> QZCGPathRef? {
    guard let p = object(path, as: Path.self) else { return nil }
    return transformedCopy(p, transform, mutable: false, #function)
}

/// Creates a mutable copy of `path` with every point transformed by
/// `transform` (NULL: a plain mutable copy). Returns +1, or NULL with the
/// error recorded.
@c public func CGPathCreateMutableCopyByTransformingPath(_ path: QZCGPathRef?, _ transform: UnsafePointer<CGAffineTransform>?) -> QZCGMutablePathRef? {
    guard let p = object(path, as: Path.self) else { return nil }
    return transformedCopy(p, transform, mutable: true, #function)
}

/// A new path (+1) holding `p`'s elements transformed, copied from its
/// storage (no element values), within PathMemory; or NULL with the error.
func transformedCopy(_ p: Path, _ m: UnsafePointer<CGAffineTransform>?, mutable: Bool, _ function: StaticString) -> OpaquePointer? {
    guard let t = pathTransform(m, function) else { return nil }
    let source = p.data
    var d = PathData()
    d.pointLimit = Swift.min(PathData.maximumPoints, Swift.max(0, PathMemory.maximumPoints - PathMemory.inUse))
    do {
        try d.append(contentsOf: source, transform: t)
    } catch {
        recordPathError(error, function)
        return nil
    }
    d.pointLimit = PathData.maximumPoints
    return retainedHandle(Path(d, mutable: mutable))
}

/// Creates an immutable path holding `rect` as one closed subpath: a move to
/// (minX, minY), lines to (maxX, minY), (maxX, maxY), (minX, maxY), and a
/// close (the rectangle is standardized first), each point transformed by
/// `transform` if not NULL. Returns +1, or NULL with the error recorded
/// (QZErrorNotFinite for a NaN or infinite rectangle, CGRectNull included).
@c public func CGPathCreateWithRect(_ rect: CGRect, _ transform: UnsafePointer<CGAffineTransform>?) -> QZCGPathRef? {
    guard checkRect(rect, #function) else { return nil }
    return makePath(PathData.rectElements(rect), transform: transform, mutable: false, #function)
}

/// Creates an immutable path holding the ellipse inscribed in `rect`: a move
/// to (maxX, midY), four cubic Bézier quadrants through (midX, maxY),
/// (minX, midY), (midX, minY) and back (control points at kappa =
/// 0.5522847498 of the radii), and a close; each point transformed by
/// `transform` if not NULL. Returns +1, or NULL with the error recorded.
@c public func CGPathCreateWithEllipseInRect(_ rect: CGRect, _ transform: UnsafePointer<CGAffineTransform>?) -> QZCGPathRef? {
    guard checkRect(rect, #function) else { return nil }
    return makePath(PathData.ellipseElements(in: rect), transform: transform, mutable: false, #function)
}

/// Creates an immutable path holding a rounded rectangle (see
/// CGPathAddRoundedRect for its shape). Returns +1, or NULL with the error
/// recorded. **Edge cases:** a negative corner size, or one larger than half
/// the rectangle's width or height (which Core Graphics asserts against),
/// records QZErrorInvalidArgument and returns NULL; a zero corner size gives
/// a plain rectangle.
@c public func CGPathCreateWithRoundedRect(_ rect: CGRect, _ cornerWidth: Double, _ cornerHeight: Double,
                                          _ transform: UnsafePointer<CGAffineTransform>?) -> QZCGPathRef? {
    guard checkRect(rect, #function), checkFinite(cornerWidth, cornerHeight, function: #function) else { return nil }
    if let e = PathData.checkRoundedRect(rect, cornerWidth: cornerWidth, cornerHeight: cornerHeight) {
        recordPathError(e, #function)
        return nil
    }
    return makePath(PathData.roundedRectElements(rect, cornerWidth: cornerWidth, cornerHeight: cornerHeight),
                    transform: transform, mutable: false, #function)
}

/// Adds a reference to `path` (mutable or not) and returns it. NULL returns
/// NULL without an error; a handle that is not a path records
/// QZErrorWrongType and returns NULL.
@c public func CGPathRetain(_ path: QZCGPathRef?) -> QZCGPathRef? {
    retainTyped(path, as: Path.self, #function)
}

/// Drops a reference to `path`; the path is freed with its last reference.
/// NULL does nothing; a handle that is not a path records QZErrorWrongType.
@c public func CGPathRelease(_ path: QZCGPathRef?) {
    releaseTyped(path, as: Path.self, #function)
}

// MARK: - Building paths

/// Starts a new subpath at (x, y), transformed by `m` if not NULL; it
/// becomes the current point. Consecutive moves are all kept.
@c public func CGPathMoveToPoint(_ path: QZCGMutablePathRef?, _ m: UnsafePointer<CGAffineTransform>?, _ x: Double, _ y: Double) {
    guard checkFinite(x, y, function: #function), let t = pathTransform(m, #function) else { return }
    changePath(path, #function) { (d: inout PathData) throws(PathError) in try d.append([.moveTo(CGPoint(x: x, y: y))], transform: t) }
}

/// Appends a line from the current point to (x, y) (transformed by `m`),
/// which becomes the current point. **Edge cases:** with no current point
/// (an empty path) records QZErrorInvalidState and does nothing. After
/// CGPathCloseSubpath the line starts a new subpath at the closed one's start.
@c public func CGPathAddLineToPoint(_ path: QZCGMutablePathRef?, _ m: UnsafePointer<CGAffineTransform>?, _ x: Double, _ y: Double) {
    guard checkFinite(x, y, function: #function), let t = pathTransform(m, #function) else { return }
    changePath(path, #function) { (d: inout PathData) throws(PathError) in try d.append([.lineTo(CGPoint(x: x, y: y))], transform: t) }
}

/// Appends a quadratic Bézier curve from the current point to (x, y) with
/// control point (cpx, cpy), all transformed by `m`. Needs a current point
/// (else QZErrorInvalidState, nothing added).
@c public func CGPathAddQuadCurveToPoint(_ path: QZCGMutablePathRef?, _ m: UnsafePointer<CGAffineTransform>?,
                                         _ cpx: Double, _ cpy: Double, _ x: Double, _ y: Double) {
    guard checkFinite(cpx, cpy, x, y, function: #function), let t = pathTransform(m, #function) else { return }
    changePath(path, #function) { (d: inout PathData) throws(PathError) in
        try d.append([.quadCurveTo(CGPoint(x: cpx, y: cpy), CGPoint(x: x, y: y))], transform: t)
    }
}

/// Appends a cubic Bézier curve from the current point to (x, y) with
/// control points (cp1x, cp1y) and (cp2x, cp2y), all transformed by `m`.
/// Needs a current point (else QZErrorInvalidState, nothing added).
@c public func CGPathAddCurveToPoint(_ path: QZCGMutablePathRef?, _ m: UnsafePointer<CGAffineTransform>?,
                                     _ cp1x: Double, _ cp1y: Double, _ cp2x: Double, _ cp2y: Double,
                                     _ x: Double, _ y: Double) {
    guard checkFinite(cp1x, cp1y, cp2x, cp2y, x, y, function: #function), let t = pathTransform(m, #function) else { return }
    changePath(path, #function) { (d: inout PathData) throws(PathError) in
        try d.append([.curveTo(CGPoint(x: cp1x, y: cp1y), CGPoint(x: cp2x, y: cp2y), CGPoint(x: x, y: y))], transform: t)
    }
}

/// Closes the current subpath with a line back to its start, which becomes
/// the current point. **Edge cases:** on an empty path, or right after
/// another close, it does nothing (no error).
@c public func CGPathCloseSubpath(_ path: QZCGMutablePathRef?) {
    changePath(path, #function) { (d: inout PathData) throws(PathError) in try d.append([.closeSubpath]) }
}

/// Appends `rect` as a closed subpath (move to (minX, minY), three lines,
/// close; standardized first), transformed by `m`. A NaN or infinite
/// rectangle (CGRectNull too) records QZErrorNotFinite.
@c public func CGPathAddRect(_ path: QZCGMutablePathRef?, _ m: UnsafePointer<CGAffineTransform>?, _ rect: CGRect) {
    guard checkRect(rect, #function), let t = pathTransform(m, #function) else { return }
    changePath(path, #function) { (d: inout PathData) throws(PathError) in try d.addRect(rect, transform: t) }
}

/// Appends each of the `count` rectangles at `rects` as in CGPathAddRect.
/// All or nothing: one bad rectangle adds none. **Edge cases:** count 0
/// does nothing; NULL `rects` with a non-zero count records
/// QZErrorNullArgument.
@c public func CGPathAddRects(_ path: QZCGMutablePathRef?, _ m: UnsafePointer<CGAffineTransform>?,
                              _ rects: UnsafePointer<CGRect>?, _ count: size_t) {
    guard let t = pathTransform(m, #function), let items = pathInputs(rects, count, "rects", #function) else { return }
    guard items.count <= PathData.maximumPoints / 4 else { return recordPathError(.tooLarge, #function) }
    for r in items where !checkRect(r, #function) { return }
    changePath(path, #function) { (d: inout PathData) throws(PathError) in
        try d.append(items.flatMap { PathData.rectElements($0) }, transform: t)
    }
}

/// Moves to the first of the `count` points at `points` and appends lines
/// through the others, all transformed by `m`. **Edge cases:** count 0 does
/// nothing; count 1 only moves; NULL `points` with a non-zero count records
/// QZErrorNullArgument.
@c public func CGPathAddLines(_ path: QZCGMutablePathRef?, _ m: UnsafePointer<CGAffineTransform>?,
                              _ points: UnsafePointer<CGPoint>?, _ count: size_t) {
    guard let t = pathTransform(m, #function), let items = pathInputs(points, count, "points", #function) else { return }
    if items.isEmpty { return }
    changePath(path, #function) { (d: inout PathData) throws(PathError) in try d.append(lines: items, transform: t) }
}

/// Appends the ellipse inscribed in `rect` as a closed subpath: four cubic
/// Bézier quadrants (kappa 0.5522847498) from (maxX, midY) through
/// (midX, maxY), (minX, midY) and (midX, minY), transformed by `m`.
@c public func CGPathAddEllipseInRect(_ path: QZCGMutablePathRef?, _ m: UnsafePointer<CGAffineTransform>?, _ rect: CGRect) {
    guard checkRect(rect, #function), let t = pathTransform(m, #function) else { return }
    changePath(path, #function) { (d: inout PathData) throws(PathError) in try d.addEllipse(in: rect, transform: t) }
}

/// Appends an arc of the circle centred on (x, y) from `startAngle` to
/// `endAngle`, as cubic Béziers of at most 90° each, transformed by `m`. If
/// the path has a current point, a line joins it to the arc's start (left
/// out when the current point is exactly there); with no current point the
/// arc starts a new subpath. The arc's end becomes the current point.
/// `clockwise` true sweeps towards decreasing angles (clockwise with y up;
/// counter-clockwise on screen in Quartzite's y-down layer space).
/// **Edge cases:** the sweep is the angle difference reduced modulo 2π in the
/// arc's direction, but a difference of 2π or more in that direction is a
/// full circle: 0 → 2π counter-clockwise is a full circle, 0 → 2π clockwise
/// draws no arc (only the line or move to its start), 2π → 0 clockwise is a
/// full circle. A negative radius records QZErrorInvalidArgument; radius 0
/// adds only the line or move to the centre.
@c public func CGPathAddArc(_ path: QZCGMutablePathRef?, _ m: UnsafePointer<CGAffineTransform>?,
                            _ x: Double, _ y: Double, _ radius: Double, _ startAngle: Double, _ endAngle: Double,
                            _ clockwise: Bool) {
    guard checkFinite(x, y, radius, startAngle, endAngle, function: #function),
          let t = pathTransform(m, #function) else { return }
    changePath(path, #function) { (d: inout PathData) throws(PathError) in
        try d.addArc(center: CGPoint(x: x, y: y), radius: radius, startAngle: startAngle, endAngle: endAngle,
                     clockwise: clockwise, transform: t)
    }
}

/// Appends an arc of the circle centred on (x, y) from `startAngle` through
/// `delta` radians (positive: towards increasing angles, counter-clockwise
/// with y up), joined to the current point by a line as in CGPathAddArc.
/// **Edge cases:** |delta| beyond 2π is clamped to a full circle; a negative
/// radius records QZErrorInvalidArgument.
@c public func CGPathAddRelativeArc(_ path: QZCGMutablePathRef?, _ matrix: UnsafePointer<CGAffineTransform>?,
                                    _ x: Double, _ y: Double, _ radius: Double, _ startAngle: Double, _ delta: Double) {
    guard checkFinite(x, y, radius, startAngle, delta, function: #function),
          let t = pathTransform(matrix, #function) else { return }
    changePath(path, #function) { (d: inout PathData) throws(PathError) in
        try d.addRelativeArc(center: CGPoint(x: x, y: y), radius: radius, startAngle: startAngle, delta: delta, transform: t)
    }
}

/// Appends an arc of `radius` tangent to the line from the current point to
/// (x1, y1) and to the line from (x1, y1) to (x2, y2), preceded by a line
/// from the current point to the first tangent point (left out when they
/// coincide exactly); the second tangent
/// point becomes the current point. Points are transformed by `m`.
/// **Edge cases:** needs a current point (else QZErrorInvalidState); when
/// the points are collinear or coincide, or the radius is 0, it adds a line
/// to (x1, y1); a negative radius records QZErrorInvalidArgument.
@c public func CGPathAddArcToPoint(_ path: QZCGMutablePathRef?, _ m: UnsafePointer<CGAffineTransform>?,
                                   _ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, _ radius: Double) {
    guard checkFinite(x1, y1, x2, y2, radius, function: #function), let t = pathTransform(m, #function) else { return }
    changePath(path, #function) { (d: inout PathData) throws(PathError) in
        try d.addArc(tangent1End: CGPoint(x: x1, y: y1), tangent2End: CGPoint(x: x2, y: y2), radius: radius, transform: t)
    }
}

/// Appends a rounded rectangle as a closed subpath, transformed by
/// `transform`: move to (minX + cornerWidth, minY), then alternately a
/// straight edge and a corner (a quarter ellipse of radii cornerWidth x
/// cornerHeight, one cubic Bézier) around the rectangle in the direction
/// of CGPathAddRect, then a close. **Edge cases:** a zero corner size adds a
/// plain rectangle; a negative one, or one larger than half the width or
/// height, records QZErrorInvalidArgument and adds nothing.
@c public func CGPathAddRoundedRect(_ path: QZCGMutablePathRef?, _ transform: UnsafePointer<CGAffineTransform>?,
                                    _ rect: CGRect, _ cornerWidth: Double, _ cornerHeight: Double) {
    guard checkRect(rect, #function), checkFinite(cornerWidth, cornerHeight, function: #function),
          let t = pathTransform(transform, #function) else { return }
    changePath(path, #function) { (d: inout PathData) throws(PathError) in
        try d.addRoundedRect(rect, cornerWidth: cornerWidth, cornerHeight: cornerHeight, transform: t)
    }
}

/// Appends every element of `path2` to `path1`, each point transformed by
/// `m`. `path2` may be `path1` itself (its elements are then appended once)
/// and may be immutable; `path1` must be mutable.
@c public func CGPathAddPath(_ path1: QZCGMutablePathRef?, _ m: UnsafePointer<CGAffineTransform>?, _ path2: QZCGPathRef?) {
    guard let t = pathTransform(m, #function), let source = object(path2, as: Path.self) else { return }
    // A snapshot taken before path1's lock is held: path2 may be path1.
    // (It shares path2's storage: nothing is copied until path1 grows.)
    let other = source.data
    changePath(path1, #function) { (d: inout PathData) throws(PathError) in try d.append(contentsOf: other, transform: t) }
}

// MARK: - Examining paths

/// True when `path` has no elements (a lone move is an element). NULL or a
/// handle that is not a path records an error and returns true.
@c public func CGPathIsEmpty(_ path: QZCGPathRef?) -> Bool {
    withObject(path, as: Path.self, fallback: true) { p in p.read { $0.isEmpty } }
}

/// True when `path` is one closed axis-aligned rectangle (a move and three
/// lines with a close, or four lines back to the start, as CGPathAddRect and
/// CGPathCreateWithRect make, also after a rotation by a multiple of 90°);
/// then `*rect` (if `rect` is not NULL) receives it, standardized.
@c public func CGPathIsRect(_ path: QZCGPathRef?, _ rect: UnsafeMutablePointer<CGRect>?) -> Bool {
    let found: CGRect? = withObject(path, as: Path.self, fallback: nil) { p in p.read { $0.rect } }
    guard let found else { return false }
    rect?.pointee = found
    return true
}

/// Returns the current point: the end of the last element, or the start of
/// the subpath after a close. CGPointZero for an empty path (no error).
@c public func CGPathGetCurrentPoint(_ path: QZCGPathRef?) -> CGPoint {
    withObject(path, as: Path.self, fallback: CGPoint(x: 0, y: 0)) { p in
        p.read { $0.currentPoint } ?? CGPoint(x: 0, y: 0)
    }
}

/// Returns the smallest rectangle holding every point of the path, Bézier
/// control points included. CGRectNull for an empty path (and, with an
/// error, for NULL).
@c public func CGPathGetBoundingBox(_ path: QZCGPathRef?) -> CGRect {
    withObject(path, as: Path.self, fallback: .null) { p in p.read { $0.boundingBox } }
}

/// Returns the smallest rectangle holding the path's lines and curves
/// themselves (curve extrema, not control points) and its move points.
/// CGRectNull for an empty path (and, with an error, for NULL).
@c public func CGPathGetPathBoundingBox(_ path: QZCGPathRef?) -> CGRect {
    withObject(path, as: Path.self, fallback: .null) { p in p.data.pathBoundingBox }
}

/// True when filling `path` would paint `point`, with the even-odd rule if
/// `eoFill` and the non-zero winding rule otherwise. If `m` is not NULL the
/// point is transformed by it first (Apple's documented behaviour). Open
/// subpaths count as closed. Points on the edges towards smaller x or y are
/// inside, on the other edges outside (as CGRectContainsPoint). NaN records
/// QZErrorNotFinite and returns false.
@c public func CGPathContainsPoint(_ path: QZCGPathRef?, _ m: UnsafePointer<CGAffineTransform>?, _ point: CGPoint, _ eoFill: Bool) -> Bool {
    guard checkPoint(point, #function), let t = pathTransform(m, #function),
          let p = object(path, as: Path.self) else { return false }
    let q = t.map { point.applying($0) } ?? point
    return p.data.contains(q, evenOdd: eoFill)
}

/// True when both paths have the same elements with exactly equal points
/// (mutability does not matter). **Edge cases:** two NULLs are equal; one
/// NULL records QZErrorNullArgument and returns false.
@c public func CGPathEqualToPath(_ path1: QZCGPathRef?, _ path2: QZCGPathRef?) -> Bool {
    if path1 == nil && path2 == nil { return true }
    guard let a = object(path1, as: Path.self), let b = object(path2, as: Path.self) else { return false }
    if a === b { return true }
    return a.data.isEqual(to: b.data)
}

/// Calls `function(info, element)` for each element of `path` in order, on
/// the calling thread, before returning. `element->points` holds the
/// element's points (1 for a move or line, 2 for a quadratic curve, 3 for a
/// cubic, none for a close) in a buffer valid only during that call. The
/// function sees the path as it was when CGPathApply began: it may change
/// or release the path, or call back into the library. NULL `function`
/// records QZErrorNullArgument.
@c public func CGPathApply(_ path: QZCGPathRef?, _ info: UnsafeMutableRawPointer?, _ function: CGPathApplierFunction?) {
    guard let p = object(path, as: Path.self) else { return }
    guard let function else {
        recordError(QZErrorNullArgument, #function, "function is NULL")
        return
    }
    let data = p.data
    var buffer = (CGPoint(x: 0, y: 0), CGPoint(x: 0, y: 0), CGPoint(x: 0, y: 0))
    for i in 0..<data.count {
        withUnsafeMutableBytes(of: &buffer) { raw in
            let points = raw.baseAddress!.assumingMemoryBound(to: CGPoint.self)
            let first = Int(data.firstPoints[i])
            let kind = Int(data.kinds[i])
            for j in 0..<pointsPerKind[kind] { points[j] = data.points[first + j] }
            var element = CGPathElement(type: CGPathElementType(rawValue: UInt32(kind)), points: points)
            function(info, &element)
        }
    }
}

// MARK: - Quartzite additions: indexed access and measuring

/// Returns the number of elements of `path` (Apple has no indexed access;
/// this and QZPathGetElementAtIndex are Quartzite's). 0 with an error for
/// NULL or a handle that is not a path.
@c public func QZPathGetElementCount(_ path: QZCGPathRef?) -> size_t {
    withObject(path, as: Path.self, fallback: 0) { p in p.read { $0.count } }
}

/// Returns the type of element `index` of `path` and copies its points
/// (1, 2, 3 or 0, as CGPathApply gives them) into `points`, which must have
/// room for 3 (NULL: only the type). **Edge cases:** an index outside
/// 0..<count records QZErrorOutOfRange, leaves `points` untouched and
/// returns kCGPathElementCloseSubpath (the type without points), as does
/// NULL or a handle that is not a path.
@c public func QZPathGetElementAtIndex(_ path: QZCGPathRef?, _ index: size_t, _ points: UnsafeMutablePointer<CGPoint>?) -> CGPathElementType {
    withObject(path, as: Path.self, fallback: kCGPathElementCloseSubpath) { p in
        p.read { d in
            guard index >= 0, index < d.count else {
                recordError(QZErrorOutOfRange, #function, "index \(index) is outside 0..<\(d.count)")
                return kCGPathElementCloseSubpath
            }
            let kind = Int(d.kinds[index])
            if let points {
                let first = Int(d.firstPoints[index])
                for j in 0..<pointsPerKind[kind] { points[j] = d.points[first + j] }
            }
            return CGPathElementType(rawValue: UInt32(kind))
        }
    }
}

/// Returns the length of `path`: the sum of its lines and curves (closing
/// lines included, the jumps between subpaths not), with curves measured
/// exactly (to about 1e-12 relative), not by chords. 0 for an empty path;
/// 0 with an error for NULL. The measure is cached until the path changes.
@c public func QZPathGetLength(_ path: QZCGPathRef?) -> Double {
    guard let p = object(path, as: Path.self) else { return 0 }
    return p.measure.length
}

/// Returns the point at `distance` along `path` (clamped to 0...length, the
/// measure of QZPathGetLength) and, if `tangent` is not NULL, stores the
/// unit direction of travel there ((0, 0) where the path has no length).
/// At the meeting point of two pieces the later piece counts. **Edge
/// cases:** an empty path returns CGPointZero with a (0, 0) tangent, no
/// error; NaN records QZErrorNotFinite and returns CGPointZero.
@c public func QZPathGetPointAtDistance(_ path: QZCGPathRef?, _ distance: Double, _ tangent: UnsafeMutablePointer<CGPoint>?) -> CGPoint {
    let zero = CGPoint(x: 0, y: 0)
    guard checkNumbers(distance, function: #function), let p = object(path, as: Path.self) else {
        tangent?.pointee = zero
        return zero
    }
    guard let found = p.measure.position(atDistance: distance) else {
        tangent?.pointee = zero
        return zero
    }
    tangent?.pointee = found.tangent
    return found.point
}
