import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import Glibc

// Applying animations to a presentation copy of a layer at a moment of the
// layer's local time. Animations apply in the order they were added: each
// replaces the value (or adds to it, when additive), and nil from/to/by values
// resolve against the value the earlier animations left.

extension Animation {
    /// Applies the animation to `target`. `parentTime` is in the time space
    /// the animation's beginTime is expressed in: the layer's local time, or a
    /// group's local time for its children.
    /// Returns false when the animation has no effect at that time.
    @discardableResult
    package func apply(to target: Layer, parentTime: Double) -> Bool {
        if fastPlan.kind == .unresolved { resolveFastPlan() }
        let sample: MediaTiming.Sample
        // One plain pass (speed 1, no offset or repeats), inside it: the
        // general computation reduces to t / duration; everything else takes
        // the general path.
        if fastPlan.simpleTiming,
           let progress = FastPlan.plainProgress(at: parentTime, begin: fastPlan.begin, duration: fastPlan.duration) {
            sample = MediaTiming.Sample(phase: .active, progress: progress, iteration: 0)
        } else {
            guard let s = fastPlan.timing.sample(at: parentTime) else { return false }
            sample = s
        }
        switch animationKind {
        case .basic, .spring:
            if fastPlan.kind != .general, !target.flags.contains(.hasStyle) {
                applyPlan(to: target, progress: sample.progress)
                return true
            }
            applyBasic(to: target, sample: sample, duration: fastPlan.timing.simpleDuration(0.25))
        case .keyframe:
            applyKeyframe(to: target, progress: sample.progress, iteration: sample.iteration)
        case .group:
            // Children run in the group's local time, clipped (not scaled) to its duration.
            let d = fastPlan.timing.simpleDuration(0.25)
            let eased = timingFunction?.solve(sample.progress) ?? sample.progress
            let local = eased * d
            for child in animations ?? [] { child.apply(to: target, parentTime: local) }
        case .transition:
            break   // drawn by the renderer from transitionProgress(at:)
        case .plain:
            return false   // a timing object only: nothing to apply
        }
        return true
    }

    /// True when `apply` evaluates this animation by its typed plan (on a
    /// layer without a style), which never calls into the host. Resolves the plan.
    @inline(__always)
    package var evaluatesWithoutHostCode: Bool {
        if fastPlan.kind == .unresolved { resolveFastPlan() }
        return animationKind == .basic && fastPlan.kind != .general
    }

    /// The transition's progress (from startProgress to endProgress, which
    /// are kept as given, clamped here to 0...1: what rendering uses) at a
    /// parent time, or nil when it has no effect then.
    package func transitionProgress(at parentTime: Double) -> Double? {
        var t = timing
        if let begin = resolvedBeginTime { t.beginTime = begin }
        guard let sample = t.sample(at: parentTime) else { return nil }
        let p = timingFunction?.solve(sample.progress) ?? sample.progress
        let progress = Double(startProgress) + (Double(endProgress) - Double(startProgress)) * p
        return Swift.min(Swift.max(progress, 0), 1)
    }

    // MARK: - CABasicAnimation

    /// From and to values per Apple's seven cases; `base` is the value before
    /// this animation (what nil resolves against).
    package func basicEndpoints(base: Value) -> (Value, Value) {
        switch (fromValue, toValue, byValue) {
        case let (from?, to?, _): return (from, to)
        case let (from?, nil, by?): return (from, Value.add(from, by))
        case let (nil, to?, by?): return (Value.subtract(to, by), to)
        case let (from?, nil, nil): return (from, base)
        case let (nil, to?, nil): return (base, to)
        case let (nil, nil, by?): return (base, Value.add(base, by))
        case (nil, nil, nil): return (base, base)
        }
    }

    private func applyBasic(to target: Layer, sample: MediaTiming.Sample, duration: Double) {
        guard let keyPath else { return }
        // nil from/to/by resolve against the current value; a property with no
        // value yet (a nil colour) is the null value, which switches halfway.
        let base = target.value(forKeyPath: keyPath) ?? defaultBase(for: target, keyPath) ?? Value.null
        var (from, to) = basicEndpoints(base: base)
        if additive && fromValue == nil && toValue == nil && byValue == nil { from = base; to = base }
        // A spring's progress is the spring's response at the time elapsed
        // in this pass (seconds, not a fraction of the duration); the
        // duration only says when it stops. Its timing function is not used.
        let p = animationKind == .spring ? spring.progress(at: sample.progress * duration)
            : timingFunction?.solve(sample.progress) ?? sample.progress
        var v = Value.interpolate(from, to, p)
        if cumulative, let end = Value.repeated(to, sample.iteration) { v = Value.add(end, v) }
        store(v, base: base, into: target, keyPath: keyPath)
    }

    /// The zero of the animated value's type for a key with no value yet.
    private func defaultBase(for target: Layer, _ keyPath: String) -> Value? {
        let sample = fromValue ?? toValue ?? byValue ?? values?.first
        return sample.flatMap(Value.zero(like:))
    }

    /// Applies the value function, adds onto the base when additive, and
    /// writes the value at the key path of the presentation copy.
    private func store(_ value: Value, base: Value, into target: Layer, keyPath: String) {
        var v = value
        if let vf = valueFunction, let t = vf.transform(v) { v = Value(.transform3D(t)) }
        if additive { v = Value.add(v, valueFunction == nil ? base : (target.value(forKeyPath: keyPath) ?? base)) }
        // A value of the wrong type for the property is ignored, not reported:
        // evaluation is not a call the host made.
        hostCall { _ = target.setValue(v, forKeyPath: keyPath, function: "presentation") }
    }

    // MARK: - CAKeyframeAnimation

    private func applyKeyframe(to target: Layer, progress: Double, iteration: Int) {
        guard let keyPath else { return }
        let mode = calculationMode
        if let path {
            applyAlongPath(path, to: target, keyPath: keyPath, progress: progress)
            return
        }
        guard let values, !values.isEmpty else { return }
        let base = target.value(forKeyPath: keyPath) ?? defaultBase(for: target, keyPath) ?? Value.null
        var v: Value
        if values.count == 1 {
            v = values[0]
        } else if mode == 1 {
            v = values[discreteIndex(progress, count: values.count)]
        } else {
            let times = mode == 2 || mode == 4 ? pacedTimes(values) : (validKeyTimes(count: values.count) ?? evenTimes(values.count))
            let (i, local) = segment(progress, times)
            let eased = timingFunctions.map { $0.isEmpty ? local : $0[Swift.min(i, $0.count - 1)].solve(local) } ?? local
            if mode == 3 || mode == 4 {
                v = cubic(values, i, eased)
            } else {
                v = Value.interpolate(values[i], values[i + 1], eased)
            }
        }
        if cumulative, let end = Value.repeated(values[values.count - 1], iteration) { v = Value.add(end, v) }
        store(v, base: base, into: target, keyPath: keyPath)
    }

    package func evenTimes(_ n: Int) -> [Double] { (0..<n).map { Double($0) / Double(n - 1) } }

    /// The keyTimes if they are valid for `count` values in this mode
    /// (non-decreasing in [0, 1], from 0 to 1; Apple ignores invalid ones).
    package func validKeyTimes(count: Int) -> [Double]? {
        guard let k = keyTimes, k.count == count, k.first == 0, k.last == 1 else { return nil }
        for i in 1..<k.count where !(k[i] >= k[i - 1]) { return nil }
        return k
    }

    /// Discrete: value i holds from keyTimes[i] to keyTimes[i + 1] (n + 1 key
    /// times, or n with the last value holding to the end); without valid
    /// keyTimes each value holds for 1/n of the duration.
    package func discreteIndex(_ p: Double, count n: Int) -> Int {
        if let k = keyTimes, k.count == n || k.count == n + 1, k.first == 0, k.allSatisfy({ $0 >= 0 && $0 <= 1 }),
           zip(k, k.dropFirst()).allSatisfy({ $0 <= $1 }) {
            var index = 0
            for i in 0..<n where k[i] <= p { index = i }
            return index
        }
        return Swift.max(0, Swift.min(saturatingInt(p * Double(n)), n - 1))
    }

    /// The segment containing p and the position within it.
    package func segment(_ p: Double, _ times: [Double]) -> (Int, Double) {
        var i = 0
        while i < times.count - 2 && p >= times[i + 1] { i += 1 }
        let span = times[i + 1] - times[i]
        let local = span > 0 ? (p - times[i]) / span : 1
        return (i, Swift.min(Swift.max(local, 0), 1))
    }

    /// Key times proportional to the distance between consecutive values
    /// (constant speed); even times when values have no distance.
    package func pacedTimes(_ values: [Value]) -> [Double] {
        var lengths: [Double] = []
        for (a, b) in zip(values, values.dropFirst()) {
            guard let d = Self.distance(a, b) else { return evenTimes(values.count) }
            lengths.append(d)
        }
        let total = lengths.reduce(0, +)
        guard total > 0 else { return evenTimes(values.count) }
        var times = [0.0]
        var run = 0.0
        for l in lengths { run += l; times.append(run / total) }
        times[times.count - 1] = 1
        return times
    }

    package static func distance(_ a: Value, _ b: Value) -> Double? {
        switch (a.storage, b.storage) {
        case let (.number(x), .number(y)): return abs(y - x)
        case let (.point(p), .point(q)): return ((q.x - p.x) * (q.x - p.x) + (q.y - p.y) * (q.y - p.y)).squareRoot()
        case let (.size(p), .size(q)):
            return ((q.width - p.width) * (q.width - p.width) + (q.height - p.height) * (q.height - p.height)).squareRoot()
        default: return nil
        }
    }

    /// Kochanek-Bartels (Catmull-Rom when tension, continuity and bias are 0)
    /// through the values, for numbers and points; other types fall back to linear.
    package func cubic(_ v: [Value], _ i: Int, _ s: Double) -> Value {
        func components(_ x: Value) -> [Double]? {
            switch x.storage {
            case .number(let n): return [n]
            case .point(let p): return [p.x, p.y]
            case .size(let z): return [z.width, z.height]
            default: return nil
            }
        }
        guard let p1 = components(v[i]), let p2 = components(v[i + 1]) else { return Value.interpolate(v[i], v[i + 1], s) }
        let p0 = i > 0 ? components(v[i - 1]) ?? p1 : p1
        let p3 = i + 2 < v.count ? components(v[i + 2]) ?? p2 : p2
        func param(_ list: [Double]?, _ k: Int) -> Double { list.flatMap { k < $0.count ? $0[k] : nil } ?? 0 }
        let (t1, c1, b1) = (param(tensionValues, i), param(continuityValues, i), param(biasValues, i))
        let (t2, c2, b2) = (param(tensionValues, i + 1), param(continuityValues, i + 1), param(biasValues, i + 1))
        var out: [Double] = []
        for k in 0..<p1.count {
            // Outgoing tangent at p1 and incoming tangent at p2.
            let d1 = (1 - t1) * (1 + b1) * (1 + c1) / 2 * (p1[k] - p0[k]) + (1 - t1) * (1 - b1) * (1 - c1) / 2 * (p2[k] - p1[k])
            let d2 = (1 - t2) * (1 + b2) * (1 - c2) / 2 * (p2[k] - p1[k]) + (1 - t2) * (1 - b2) * (1 + c2) / 2 * (p3[k] - p2[k])
            let s2 = s * s, s3 = s2 * s
            let h00 = 2 * s3 - 3 * s2 + 1, h10 = s3 - 2 * s2 + s, h01 = -2 * s3 + 3 * s2, h11 = s3 - s2
            out.append(h00 * p1[k] + h10 * d1 + h01 * p2[k] + h11 * d2)
        }
        switch v[i].storage {
        case .number: return Value(.number(out[0]))
        case .size: return Value(.size(CGSize(width: out[0], height: out[1])))
        default: return Value(.point(CGPoint(x: out[0], y: out[1])))
        }
    }

    /// Along a path: paced modes move at constant speed; otherwise each
    /// element (after the first move) takes an equal share of the time, or the
    /// share its keyTimes give. rotationMode turns the layer along the tangent.
    private func applyAlongPath(_ path: Path, to target: Layer, keyPath: String, progress: Double) {
        let data = path.read { $0 }
        let measure = PathMeasure(data)
        guard measure.length > 0 else { return }
        var distance: Double
        if calculationMode == 2 || calculationMode == 4 {
            distance = progress * measure.length
        } else {
            var starts: [Double] = [], lengths: [Double] = []
            var run = 0.0
            for (index, element) in data.elements.enumerated() {
                let l = measure.elementLengths[index]
                if case .moveTo = element { run += l; continue }
                starts.append(run)
                lengths.append(l)
                run += l
            }
            guard !lengths.isEmpty else { return }
            let times = validKeyTimes(count: lengths.count + 1) ?? evenTimes(lengths.count + 1)
            if calculationMode == 1 {
                let i = discreteIndex(progress, count: lengths.count + 1)
                distance = i < lengths.count ? starts[i] : starts[lengths.count - 1] + lengths[lengths.count - 1]
            } else {
                let (i, local) = segment(progress, times)
                let eased = timingFunctions.map { $0.isEmpty ? local : $0[Swift.min(i, $0.count - 1)].solve(local) } ?? local
                distance = starts[i] + eased * lengths[i]
            }
        }
        guard let (point, tangent) = measure.position(atDistance: distance) else { return }
        hostCall { _ = target.setValue(Value(.point(point)), forKeyPath: keyPath, function: "presentation") }
        if let mode = rotationMode {
            var angle = atan2(tangent.y, tangent.x)
            if mode == 1 { angle += .pi }
            hostCall { _ = target.setValue(Value(.number(angle)), forKeyPath: "transform.rotation.z", function: "presentation") }
        }
    }
}

// MARK: - The fast path

/// A from/to CABasicAnimation of a whole declared geometry, opacity or
/// transform property (the common case), resolved once: the end points
/// unboxed (transforms decomposed), the timing function as a polynomial.
/// Every frame still samples the timing and interpolates; only what does not
/// depend on time is kept. Stored inline in the animation (no allocation).
package struct FastPlan {
    package enum Kind: UInt8 {
        /// Not resolved since the animation last changed.
        case unresolved
        /// Evaluated by the general path (boxed values, key paths).
        case general
        case position, anchorPoint, opacity, zPosition, bounds, transform, sublayerTransform
    }

    // Hot fields first: a frame of a transform or number animation reads
    // the first one or two cache lines of the animation, a point animation
    // with a timing function two or three (the plan is the animation's first
    // stored property).
    package var kind = Kind.unresolved
    /// False when the animation has no timing function (progress used as is).
    package var eased = false
    /// Speed 1, no time offset, no repeats or autoreverse, a finite positive
    /// duration: inside the active interval, progress is (t - begin) / duration.
    package var simpleTiming = false
    /// The resolved begin time and the duration (copies of `timing`'s).
    package var begin = 0.0
    @usableFromInline package var duration = 0.0
    /// Decomposed end points (kinds transform, sublayerTransform), out of
    /// line so that the other kinds stay small (a frame reads fewer lines).
    package var transforms: TransformEnds?
    /// The end points, from and to side by side: numbers (x), points (x, y)
    /// and rects (x, y, then width and height after the timing function),
    /// so that a number or point animation reads the fewest lines. Plain
    /// doubles, not SIMD4: a SIMD4<Double> member makes the animation 32-byte
    /// aligned, and every animation is then allocated through posix_memalign.
    package var fromX = 0.0, toX = 0.0, fromY = 0.0, toY = 0.0
    /// The animation's timing function, whose `curve` the plan solves (read
    /// only when `eased`). Unowned: the animation holds it, and a new one
    /// resets the plan. Usually shared by many animations, so its lines are
    /// in the cache.
    package unowned(unsafe) var function: TimingFunction? = nil
    package var fromZ = 0.0, toZ = 0.0, fromW = 0.0, toW = 0.0
    /// The animation's timing, with the begin time it was given when added
    /// (every kind; `general` included).
    package var timing = MediaTiming()

    package static var unresolved: FastPlan { FastPlan() }

    @inline(__always)
    package mutating func setEnds(_ from: PlanQuad, _ to: PlanQuad) {
        (fromX, toX, fromY, toY) = (from.x, to.x, from.y, to.y)
        (fromZ, toZ, fromW, toW) = (from.z, to.z, from.w, to.w)
    }
}

/// Four doubles with 8-byte alignment (see FastPlan.fromX).
package struct PlanQuad {
    package var x = 0.0, y = 0.0, z = 0.0, w = 0.0
    package init() {}
    @inline(__always) package init(_ x: Double, _ y: Double, _ z: Double, _ w: Double) {
        (self.x, self.y, self.z, self.w) = (x, y, z, w)
    }

    /// Component i: x, y, z, w.
    @inline(__always) package subscript(_ i: Int) -> Double {
        switch i {
        case 0: x
        case 1: y
        case 2: z
        default: w
        }
    }
}

/// The decomposed end points of a transform animation, packed, with the
/// rotation's slerp prepared (see DecomposedTransform.Slerp). What a frame
/// reads comes first; the perspectives, read only when one of them is not
/// the identity's, last. A plain value, so that a layer's plan block
/// (PlanBlock.swift) can hold it inline.
package struct TransformEndsData {
    package let rotation: DecomposedTransform.Slerp
    /// Both perspectives are (0, 0, 0, 1): interpolating them gives that back.
    /// (After the Slerp's last field: no padding between them.)
    package let plainPerspective: Bool
    package let from: PackedDecomposition
    /// The quaternion is the one on the short way from `from`'s.
    package let to: PackedDecomposition
    package let fromPerspective: PlanQuad
    package let toPerspective: PlanQuad

    package init(_ from: DecomposedTransform, _ to: DecomposedTransform) {
        var q2 = to.quaternion
        rotation = DecomposedTransform.Slerp(from: from.quaternion, to: &q2)
        var shortWay = to
        shortWay.quaternion = q2
        self.from = PackedDecomposition(from)
        self.to = PackedDecomposition(shortWay)
        let identity = SIMD4<Double>(0, 0, 0, 1)
        plainPerspective = from.perspective == identity && to.perspective == identity
        fromPerspective = PlanQuad(from.perspective.x, from.perspective.y, from.perspective.z, from.perspective.w)
        toPerspective = PlanQuad(to.perspective.x, to.perspective.y, to.perspective.z, to.perspective.w)
    }

    /// The interpolated matrix at `t` (DecomposedTransform.interpolate's
    /// result, recomposed).
    @inline(__always)
    package func matrix(at t: Double) -> CATransform3D {
        let a: DecomposedTransform, b: DecomposedTransform
        if plainPerspective {
            let p = SIMD4<Double>(0, 0, 0, 1)
            a = from.unpacked(perspective: p)
            b = to.unpacked(perspective: p)
        } else {
            a = from.unpacked(perspective: SIMD4(fromPerspective.x, fromPerspective.y, fromPerspective.z, fromPerspective.w))
            b = to.unpacked(perspective: SIMD4(toPerspective.x, toPerspective.y, toPerspective.z, toPerspective.w))
        }
        return DecomposedTransform.interpolate(a, b, shortWay: b.quaternion, t, rotation).matrix
    }
}

/// TransformEndsData out of line, so that a plan of another kind stays small
/// (248 bytes with the header).
package final class TransformEnds {
    package let data: TransformEndsData
    package init(_ from: DecomposedTransform, _ to: DecomposedTransform) { data = TransformEndsData(from, to) }
}

/// A DecomposedTransform's translation, scale and skew (3 each) and
/// quaternion (4), without SIMD3's padding; the perspective is kept apart.
package struct PackedDecomposition {
    package let t0, t1, t2, s0, s1, s2, k0, k1, k2, q0, q1, q2, q3: Double

    package init(_ d: DecomposedTransform) {
        (t0, t1, t2) = (d.translation.x, d.translation.y, d.translation.z)
        (s0, s1, s2) = (d.scale.x, d.scale.y, d.scale.z)
        (k0, k1, k2) = (d.skew.x, d.skew.y, d.skew.z)
        (q0, q1, q2, q3) = (d.quaternion.x, d.quaternion.y, d.quaternion.z, d.quaternion.w)
    }

    @inline(__always)
    package func unpacked(perspective: SIMD4<Double>) -> DecomposedTransform {
        DecomposedTransform(perspective: perspective, translation: SIMD3(t0, t1, t2), scale: SIMD3(s0, s1, s2),
                            skew: SIMD3(k0, k1, k2), quaternion: SIMD4(q0, q1, q2, q3))
    }
}

extension DecomposedTransform {
    package init(perspective: SIMD4<Double>, translation: SIMD3<Double>, scale: SIMD3<Double>, skew: SIMD3<Double>,
         quaternion: SIMD4<Double>) {
        self.perspective = perspective
        self.translation = translation
        self.scale = scale
        self.skew = skew
        self.quaternion = quaternion
    }
}

extension Animation {
    /// Resolves `fastPlan` from the animation's current properties (every
    /// animation kind: the timing is used by all).
    package func resolveFastPlan() {
        var plan = FastPlan()
        plan.kind = .general
        plan.timing = timing
        if let begin = resolvedBeginTime { plan.timing.beginTime = begin }
        let m = plan.timing
        plan.begin = m.beginTime
        plan.duration = m.duration
        plan.simpleTiming = m.speed == 1 && m.timeOffset == 0 && m.repeatCount == 0 && m.repeatDuration == 0
            && !m.autoreverses && m.duration > 0 && m.duration.isFinite
        defer { fastPlan = plan }
        guard animationKind == .basic, let key = keyPathKey, let from = fromValue, let to = toValue,
              !additive, !cumulative, valueFunction == nil else { return }
        if let f = timingFunction {
            plan.eased = true
            plan.function = f
        }
        switch (key, from.storage, to.storage) {
        case let (.position, .point(a), .point(b)), let (.anchorPoint, .point(a), .point(b)):
            plan.kind = key == .position ? .position : .anchorPoint
            plan.setEnds(PlanQuad(a.x, a.y, 0, 0), PlanQuad(b.x, b.y, 0, 0))
        case let (.opacity, .number(a), .number(b)), let (.zPosition, .number(a), .number(b)):
            plan.kind = key == .opacity ? .opacity : .zPosition
            plan.setEnds(PlanQuad(a, 0, 0, 0), PlanQuad(b, 0, 0, 0))
        case let (.bounds, .rect(a), .rect(b)):
            plan.kind = .bounds
            plan.setEnds(PlanQuad(a.origin.x, a.origin.y, a.size.width, a.size.height),
                         PlanQuad(b.origin.x, b.origin.y, b.size.width, b.size.height))
        case let (.transform, .transform3D(a), .transform3D(b)), let (.sublayerTransform, .transform3D(a), .transform3D(b)):
            // Matrices that cannot be decomposed interpolate entry by entry: the general path.
            guard let da = DecomposedTransform(a), let db = DecomposedTransform(b) else { return }
            plan.kind = key == .transform ? .transform : .sublayerTransform
            plan.transforms = TransformEnds(da, db)
        default:
            return
        }
    }

    /// Writes the value at `progress` (the timing's, before the timing
    /// function) into the presentation copy. The arithmetic is the general
    /// path's, in the same order, so both give identical results.
    @inline(__always)
    package func applyPlan(to target: Layer, progress: Double) {
        let p = fastPlan.eased ? fastPlan.function.unsafelyUnwrapped.curve.solve(progress) : progress
        FastPlan.write(fastPlan.kind, p, to: target, end: { fastPlan.end($0) }, matrix: { p in
            // The plan owns the ends (the animation holds the plan for the whole call).
            Unmanaged.passUnretained(fastPlan.transforms.unsafelyUnwrapped)._withUnsafeGuaranteedRef { $0.data.matrix(at: p) }
        })
    }
}

extension FastPlan {
    /// The progress at time `t` through one plain pass (speed 1, no time
    /// offset or repeats) that starts at `begin`, or nil outside it. The
    /// general timing computation's operations, in its order (the + 0 is its
    /// time offset, for identical zeros): animations, plan blocks and
    /// implicit records all sample through this.
    @inline(__always)
    package static func plainProgress(at t: Double, begin: Double, duration: Double) -> Double? {
        let elapsed = (t - begin) + 0
        guard elapsed >= 0, elapsed / duration < 1 else { return nil }
        return elapsed / duration
    }

    /// End point value `k` in the order fromX, toX, fromY, toY, fromZ, toZ,
    /// fromW, toW (what FastPlan.write and a plan block read).
    @inline(__always)
    package func end(_ k: Int) -> Double {
        switch k {
        case 0: fromX
        case 1: toX
        case 2: fromY
        case 3: toY
        case 4: fromZ
        case 5: toZ
        case 6: fromW
        default: toW
        }
    }

    /// Writes a typed plan's value at (eased) progress `p` into `target`:
    /// the one definition of the arithmetic, shared by animations and plan
    /// blocks so that both give identical values. `end(k)` reads the end
    /// points in the order fromX, toX, fromY, toY, fromZ, toZ, fromW, toW;
    /// `matrix(p)` interpolates a transform plan's decomposed end points.
    @inline(__always)
    package static func write(_ kind: Kind, _ p: Double, to target: Layer, end: (Int) -> Double, matrix: (Double) -> CATransform3D) {
        switch kind {
        case .position:
            target.position = CGPoint(x: end(0) + (end(1) - end(0)) * p, y: end(2) + (end(3) - end(2)) * p)
        case .anchorPoint:
            target.anchorPoint = CGPoint(x: end(0) + (end(1) - end(0)) * p, y: end(2) + (end(3) - end(2)) * p)
        case .opacity:
            target.opacity = Float(end(0) + (end(1) - end(0)) * p)
        case .zPosition:
            target.zPosition = end(0) + (end(1) - end(0)) * p
        case .bounds:
            target.bounds = CGRect(x: end(0) + (end(1) - end(0)) * p, y: end(2) + (end(3) - end(2)) * p,
                                   width: end(4) + (end(5) - end(4)) * p, height: end(6) + (end(7) - end(6)) * p)
        case .transform:
            TransformBox.store(matrix(p), in: &target.transformBox)
        case .sublayerTransform:
            TransformBox.store(matrix(p), in: &target.sublayerTransformBox)
        case .unresolved, .general:
            break
        }
    }
}
