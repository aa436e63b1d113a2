import CQuartzite
import QuartziteCore
import Synchronization

// Apple's CGPath: a list of elements (move, line, quadratic and cubic Bézier
// curves, close) with a current point. CGPathRef is immutable and may be
// shared between threads; CGMutablePathRef changes in place. Both are one
// Swift class, told apart by their handle tag.

/// One element of a path (Apple's CGPathElement, as a Swift value).
public enum PathElement {
    case moveTo(CGPoint)
    case lineTo(CGPoint)
    case quadCurveTo(CGPoint, CGPoint)            // control point, end point
    case curveTo(CGPoint, CGPoint, CGPoint)       // control points 1 and 2, end point
    case closeSubpath

    /// The C element type.
    public var type: CGPathElementType {
        switch self {
        case .moveTo: return kCGPathElementMoveToPoint
        case .lineTo: return kCGPathElementAddLineToPoint
        case .quadCurveTo: return kCGPathElementAddQuadCurveToPoint
        case .curveTo: return kCGPathElementAddCurveToPoint
        case .closeSubpath: return kCGPathElementCloseSubpath
        }
    }

    /// The points, in the order CGPathApply hands them out.
    public var points: [CGPoint] {
        switch self {
        case .moveTo(let p), .lineTo(let p): return [p]
        case .quadCurveTo(let c, let p): return [c, p]
        case .curveTo(let c1, let c2, let p): return [c1, c2, p]
        case .closeSubpath: return []
        }
    }

    /// How many points the element holds (without building the array).
    public var pointCount: Int {
        switch self {
        case .moveTo, .lineTo: return 1
        case .quadCurveTo: return 2
        case .curveTo: return 3
        case .closeSubpath: return 0
        }
    }

    /// The same element with every point transformed by `t` (nil: unchanged).
    public func applying(_ t: CGAffineTransform?) -> PathElement {
        guard let t else { return self }
        switch self {
        case .moveTo(let p): return .moveTo(p.applying(t))
        case .lineTo(let p): return .lineTo(p.applying(t))
        case .quadCurveTo(let c, let p): return .quadCurveTo(c.applying(t), p.applying(t))
        case .curveTo(let c1, let c2, let p): return .curveTo(c1.applying(t), c2.applying(t), p.applying(t))
        case .closeSubpath: return self
        }
    }

    package var isFinite: Bool {
        switch self {
        case .moveTo(let p), .lineTo(let p): return p.isFinite
        case .quadCurveTo(let c, let p): return c.isFinite && p.isFinite
        case .curveTo(let c1, let c2, let p): return c1.isFinite && c2.isFinite && p.isFinite
        case .closeSubpath: return true
        }
    }
}

/// Why a path operation did nothing. The export layer turns these into
/// recorded errors.
public enum PathError: Error, Equatable {
    /// A line, curve or tangent arc needs a current point (Apple logs
    /// "no current point" and ignores the call).
    case noCurrentPoint
    /// A point (after the transform) is NaN or infinite.
    case notFinite
    /// An argument outside what the operation accepts.
    case invalidArgument(String)
    /// The path would exceed `PathData.maximumPoints`, or all paths
    /// together `PathMemory.maximumPoints` (QZErrorOutOfMemory).
    case tooLarge
}

/// Number of points stored for each CGPathElementType raw value.
@usableFromInline package let pointsPerKind: [Int] = [1, 1, 2, 3, 0]

/// The contents of a path, stored compactly: one byte per element for its
/// type, one index per element into a flat array of points, and the points.
/// A value type: copies share storage until one of them changes (so an
/// immutable copy of a mutable path shares nothing that can change).
///
/// Invariants: every point is finite, and the first element is a move (a
/// line or curve needs a current point). After a close, the current point is
/// the closed subpath's start; a line or curve that follows begins a new
/// subpath there without a move element, as in Core Graphics.
public struct PathData {
    /// Each element's CGPathElementType raw value.
    public private(set) var kinds: [UInt8] = []
    /// Index into `points` of each element's first point.
    public private(set) var firstPoints: [UInt32] = []
    /// Every element's points, in order.
    public private(set) var points: [CGPoint] = []
    /// The start of the current subpath (nil while the path is empty).
    public private(set) var subpathStart: CGPoint?
    /// The current point (nil while the path is empty).
    public private(set) var currentPoint: CGPoint?
    /// How many points the path may hold (`maximumPoints`, or less while a
    /// Path changes it: see PathMemory).
    package var pointLimit = PathData.maximumPoints

    public init() {}

    public init(_ elements: [PathElement]) throws(PathError) {
        try append(elements)
    }

    public var count: Int { kinds.count }
    public var isEmpty: Bool { kinds.isEmpty }

    public var elements: [PathElement] { (0..<count).map { element(at: $0) } }

    /// Element `index`; the index must be in 0..<count.
    public func element(at index: Int) -> PathElement {
        let o = Int(firstPoints[index])
        switch kinds[index] {
        case 0: return .moveTo(points[o])
        case 1: return .lineTo(points[o])
        case 2: return .quadCurveTo(points[o], points[o + 1])
        case 3: return .curveTo(points[o], points[o + 1], points[o + 2])
        default: return .closeSubpath
        }
    }

    /// Appends `elements`, each transformed by `transform` first, all or
    /// nothing: a non-finite point, or a line or curve with no current point,
    /// leaves the path unchanged. A close with no current point, or right
    /// after another close, is ignored.
    public mutating func append(_ elements: [PathElement], transform: CGAffineTransform? = nil) throws(PathError) {
        if elements.isEmpty { return }
        let transformed = transform == nil ? elements : elements.map { $0.applying(transform) }
        var current = currentPoint
        var added = 0
        for e in transformed {
            guard e.isFinite else { throw .notFinite }
            switch e {
            case .moveTo(let p): current = p
            case .lineTo(let p), .quadCurveTo(_, let p), .curveTo(_, _, let p):
                guard current != nil else { throw .noCurrentPoint }
                current = p
            case .closeSubpath: break
            }
            added += e.pointCount
        }
        guard points.count + added <= pointLimit else { throw .tooLarge }
        for e in transformed { appendChecked(e) }
    }

    /// A path holds at most 2^24 points (about 350 MB with their elements);
    /// more records QZErrorOutOfMemory and leaves the path unchanged.
    public static let maximumPoints = 1 << 24
    /// Flattening for rendering gives at most about this many points (see
    /// `flattened(tolerance:)`).
    static let maximumFlattenedPoints = 1 << 22

    /// Appends `other` with each point transformed by `transform`, copying
    /// its storage directly (no element values: AddPath of a path of
    /// millions of elements costs only what the new points take). All or
    /// nothing: a point the transform makes non-finite leaves the path
    /// unchanged. `other` starts with a move and never repeats a close, so
    /// its elements join as they are.
    public mutating func append(contentsOf other: PathData, transform: CGAffineTransform? = nil) throws(PathError) {
        if other.isEmpty { return }
        guard points.count <= pointLimit - other.points.count else { throw .tooLarge }
        var moved = other.points
        if let t = transform {
            for i in moved.indices {
                let p = moved[i].applying(t)
                guard p.isFinite else { throw .notFinite }
                moved[i] = p
            }
        }
        let base = UInt32(truncatingIfNeeded: points.count)
        kinds.append(contentsOf: other.kinds)
        firstPoints.reserveCapacity(firstPoints.count + other.firstPoints.count)
        for f in other.firstPoints { firstPoints.append(base &+ f) }
        points.append(contentsOf: moved)
        subpathStart = other.subpathStart.map { transform.map($0.applying) ?? $0 }
        currentPoint = other.currentPoint.map { transform.map($0.applying) ?? $0 }
    }

    /// Appends a move to `points[0]` and lines through the others, each
    /// transformed (CGPathAddLines), without building element values.
    public mutating func append(lines input: UnsafeBufferPointer<CGPoint>, transform: CGAffineTransform? = nil) throws(PathError) {
        if input.isEmpty { return }
        guard points.count <= pointLimit - input.count else { throw .tooLarge }
        var moved = Array(input)
        if let t = transform {
            for i in moved.indices { moved[i] = moved[i].applying(t) }
        }
        for p in moved where !p.isFinite { throw .notFinite }
        let base = points.count
        kinds.reserveCapacity(kinds.count + moved.count)
        firstPoints.reserveCapacity(firstPoints.count + moved.count)
        kinds.append(0)
        kinds.append(contentsOf: repeatElement(1, count: moved.count - 1))
        for i in 0..<moved.count { firstPoints.append(UInt32(truncatingIfNeeded: base + i)) }
        points.append(contentsOf: moved)
        subpathStart = moved[0]
        currentPoint = moved[moved.count - 1]
    }

    private mutating func appendChecked(_ e: PathElement) {
        switch e {
        case .moveTo(let p):
            push(0, p)
            subpathStart = p
            currentPoint = p
        case .lineTo(let p):
            push(1, p)
            currentPoint = p
        case .quadCurveTo(let c, let p):
            push(2, c, p)
            currentPoint = p
        case .curveTo(let c1, let c2, let p):
            push(3, c1, c2, p)
            currentPoint = p
        case .closeSubpath:
            guard currentPoint != nil, kinds.last != 4 else { return }
            push(4)
            currentPoint = subpathStart
        }
    }

    private mutating func push(_ kind: UInt8, _ p: CGPoint...) {
        kinds.append(kind)
        firstPoints.append(UInt32(truncatingIfNeeded: points.count))
        points.append(contentsOf: p)
    }

    /// Same elements with exactly equal points (CGPathEqualToPath).
    public func isEqual(to other: PathData) -> Bool {
        guard kinds == other.kinds, points.count == other.points.count else { return false }
        for i in 0..<points.count where points[i].x != other.points[i].x || points[i].y != other.points[i].y {
            return false
        }
        return true
    }
}

/// A CGPathRef or CGMutablePathRef. The contents sit behind a lock, so an
/// immutable path can be read from any thread and a mutable one changed
/// while another thread reads it without corrupting memory (readers see the
/// contents before or after each change).
public final class Path: QZObject, Handle {
    public let isMutable: Bool

    private struct State {
        package var data: PathData
        /// Bumped by every change; guards the measure cache.
        package var version: UInt64 = 0
        package var measure: PathMeasure?
        /// The points this path counts in PathMemory.
        package var counted: Int
    }

    private let state: Mutex<State>

    public init(_ data: PathData = PathData(), mutable: Bool) {
        isMutable = mutable
        PathMemory.add(data.points.count)
        state = Mutex(State(data: data, counted: data.points.count))
        super.init(kind: mutable ? .mutablePath : .path)
    }

    deinit {
        PathMemory.remove(state.withLock { $0.counted })
    }

    @inlinable package static var handleKind: ObjectKind { .path }
    @inlinable package static func accepts(_ tag: UInt32) -> Bool {
        tag == tagMagic | UInt32(ObjectKind.path.rawValue) || tag == tagMagic | UInt32(ObjectKind.mutablePath.rawValue)
    }
    package static func isMutableTag(_ tag: UInt32) -> Bool {
        tag == tagMagic | UInt32(ObjectKind.mutablePath.rawValue)
    }

    /// A snapshot of the contents (cheap: the arrays are shared until changed).
    public var data: PathData {
        state.withLock { $0.data }
    }

    /// Reads the contents in place, under the lock (for small reads on hot
    /// paths; `body` must not call back into this path).
    public func read<R>(_ body: (PathData) -> R) -> R {
        state.withLock { body($0.data) }
    }

    /// Changes the contents in place (all or nothing when `body` throws).
    public func mutate(_ body: (inout PathData) throws(PathError) -> Void) throws(PathError) {
        let result: PathError? = state.withLock { s in
            var copy = s.data
            s.data = PathData()           // keep `copy` uniquely referenced while it changes
            // The path may grow by what all paths together have left.
            copy.pointLimit = Swift.min(PathData.maximumPoints,
                                        s.counted + Swift.max(0, PathMemory.maximumPoints - PathMemory.inUse))
            var failure: PathError?
            do throws(PathError) {
                try body(&copy)
            } catch {
                failure = error
            }
            copy.pointLimit = PathData.maximumPoints
            if failure == nil {
                PathMemory.add(copy.points.count - s.counted)
                s.counted = copy.points.count
                s.version &+= 1
                s.measure = nil
            }
            s.data = copy
            return failure
        }
        if let result { throw result }
    }

    /// Lengths and positions along the path, computed once per version of
    /// the contents.
    public var measure: PathMeasure {
        let (snapshot, version, cached) = state.withLock { ($0.data, $0.version, $0.measure) }
        if let cached { return cached }
        let made = PathMeasure(snapshot)
        state.withLock { s in
            if s.version == version { s.measure = made }
        }
        return made
    }
}

/// The points held by all live paths together (each path counts its own,
/// copies sharing storage included): growing paths beyond
/// `maximumPoints` (2^26, about 1.1 GB with their elements) fails with
/// QZErrorOutOfMemory, so that no sequence of calls can exhaust memory
/// through paths.
package enum PathMemory {
    package static let maximumPoints = 1 << 26
    private static let used = Atomic<Int>(0)

    package static var inUse: Int { used.load(ordering: .relaxed) }

    /// Counts points added (or, negative, dropped).
    package static func add(_ n: Int) { used.add(n, ordering: .relaxed) }
    package static func remove(_ n: Int) { used.subtract(n, ordering: .relaxed) }
}
