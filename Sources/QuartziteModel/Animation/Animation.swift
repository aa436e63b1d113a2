import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics

/// An animation (Apple's CAAnimation class tree in one Swift class: the kind
/// says which properties apply). Users configure one; CALayerAddAnimation
/// stores a copy, so later changes to the caller's object change nothing.
public final class Animation: QZObject, Handle {
    public enum Kind: UInt16, Sendable {
        /// `plain`: Apple's +[CAAnimation animation], a timing object with a
        /// delegate and no effect of its own.
        /// `spring`: a CASpringAnimation, a basic animation whose progress
        /// follows `spring` instead of a timing function.
        case basic = 48, keyframe = 49, group = 50, transition = 51, plain = 52, spring = 53
        package var objectKind: ObjectKind { ObjectKind(rawValue: rawValue)! }
    }

    public let animationKind: Kind
    /// What evaluation reads each frame, resolved once from the properties it
    /// depends on (the timing with its resolved begin time, typed end points,
    /// transforms decomposed, the timing function's coefficients); reset
    /// whenever one of them changes. The first stored property, so that a
    /// frame reads a few consecutive cache lines of the animation.
    package var fastPlan = FastPlan.unresolved

    // CAAnimation
    public var timing = MediaTiming() { didSet { invalidatePlan() } }
    public var timingFunction: TimingFunction? { didSet { invalidatePlan() } }
    public var removedOnCompletion = true
    /// Shared with the copies CALayerAddAnimation makes, so that the host's
    /// release callback runs once, when the last of them is freed.
    @usableFromInline package var delegate: AnimationDelegate?
    /// Arbitrary keys (key-value coding).
    package var custom: ValueDictionary {
        get { extras?.custom ?? ValueDictionary() }
        set { ensureExtras().custom = newValue }
    }

    // CAPropertyAnimation
    /// (Stored once, in keyPathC.)
    public var keyPath: String? {
        get { keyPathC?.string }
        set {
            keyPathC = newValue.map(CString.init)
            // Parsed once: evaluation runs every frame.
            keyPathKey = newValue.flatMap { $0.contains(".") ? nil : LayerKey.byName[$0] }
        }
    }
    /// The declared key when the key path is a single declared property.
    package private(set) var keyPathKey: LayerKey? { didSet { invalidatePlan() } }
    /// keyPath as a C string with a stable pointer (the getter's result).
    package private(set) var keyPathC: CString?
    public var additive = false { didSet { invalidatePlan() } }
    public var cumulative = false { didSet { invalidatePlan() } }
    public var valueFunction: ValueFunction? { didSet { invalidatePlan() } }

    // CABasicAnimation
    public var fromValue: Value? {
        get {
            if case .none = lazyFrom { return fromStore }
            return materializeFrom()
        }
        set {
            lazyFrom = .none
            fromStore = newValue
            invalidatePlan()
        }
    }
    private var fromStore: Value?
    /// An implicit animation's from value, unboxed until someone reads
    /// `fromValue` (then boxed once and kept). Model lock held.
    private var lazyFrom = LazyEndpoint.none
    public var toValue: Value? { didSet { invalidatePlan() } }
    public var byValue: Value? { didSet { invalidatePlan() } }

    // CAKeyframeAnimation, CAAnimationGroup, CATransition: in `extras`.
    public var values: [Value]? {
        get { extras?.values }
        set { ensureExtras().values = newValue }
    }
    public var path: Path? {
        get { extras?.path }
        set { ensureExtras().path = newValue }
    }
    public var keyTimes: [Double]? {
        get { extras?.keyTimes }
        set { ensureExtras().keyTimes = newValue }
    }
    public var timingFunctions: [TimingFunction]? {
        get { extras?.timingFunctions }
        set { ensureExtras().timingFunctions = newValue }
    }
    /// ConstantSet.calculationMode
    package var calculationMode: UInt8 {
        get { extras?.calculationMode ?? 0 }
        set { ensureExtras().calculationMode = newValue }
    }
    /// nil, or ConstantSet.rotationMode
    package var rotationMode: UInt8? {
        get { extras?.rotationMode }
        set { ensureExtras().rotationMode = newValue }
    }
    public var tensionValues: [Double]? {
        get { extras?.tensionValues }
        set { ensureExtras().tensionValues = newValue }
    }
    public var continuityValues: [Double]? {
        get { extras?.continuityValues }
        set { ensureExtras().continuityValues = newValue }
    }
    public var biasValues: [Double]? {
        get { extras?.biasValues }
        set { ensureExtras().biasValues = newValue }
    }
    public var animations: [Animation]? {
        get { extras?.animations }
        set { ensureExtras().animations = newValue }
    }
    /// ConstantSet.transitionType (0: fade)
    package var transitionType: UInt8 {
        get { extras?.transitionType ?? 0 }
        set { ensureExtras().transitionType = newValue }
    }
    /// nil, or ConstantSet.transitionSubtype
    package var transitionSubtype: UInt8? {
        get { extras?.transitionSubtype }
        set { ensureExtras().transitionSubtype = newValue }
    }
    public var startProgress: Float {
        get { extras?.startProgress ?? 0 }
        set { ensureExtras().startProgress = newValue }
    }
    public var endProgress: Float {
        get { extras?.endProgress ?? 1 }
        set { ensureExtras().endProgress = newValue }
    }

    // CASpringAnimation
    /// The spring a `.spring` animation follows (Apple's defaults until set).
    public var spring: Spring {
        get { extras?.spring ?? Spring() }
        set { ensureExtras().spring = newValue; invalidatePlan() }
    }

    /// The properties most animations never set (the other kinds' and
    /// key-value coding's), allocated on the first write: a basic animation
    /// (every implicit one) stays small and is quick to create.
    private var extras: AnimationExtras?

    @inline(__always)
    private func ensureExtras() -> AnimationExtras {
        if let e = extras { return e }
        let e = AnimationExtras()
        extras = e
        return e
    }

    // Set when added to a layer.
    /// The begin time resolved in the layer's time space (beginTime 0 means
    /// "now" at the moment it is added).
    package var resolvedBeginTime: Double? { didSet { invalidatePlan() } }
    package var didStart = false
    /// The transaction completions waiting for this animation to end.
    package var completionGroups: [CompletionGroup]?

    @inlinable package static var handleKind: ObjectKind { .animation }
    @inlinable package static func accepts(_ tag: UInt32) -> Bool {
        tag >= tagMagic | UInt32(Kind.basic.rawValue) && tag <= tagMagic | UInt32(Kind.spring.rawValue)
    }

    public init(kind: Kind) {
        animationKind = kind
        super.init(kind: kind.objectKind)
    }

    /// A CABasicAnimation of a declared property (an implicit animation): the
    /// key path's C string is shared and nothing is parsed; the properties
    /// are stored before super.init (no observers run). `from` is the boxed
    /// from value, used when `lazyFrom` is .none.
    package init(implicitFor key: LayerKey, keyPathC: CString, lazyFrom: LazyEndpoint, from: Value?, duration: Double,
         timingFunction: TimingFunction) {
        animationKind = .basic
        self.keyPathC = keyPathC
        keyPathKey = key
        self.lazyFrom = lazyFrom
        fromStore = from
        timing.duration = duration
        self.timingFunction = timingFunction
        super.init(kind: .basicAnimation)
    }

    /// Forgets the resolved plan (nothing to do while it is unresolved: a
    /// fresh animation's begin time is set without rewriting the plan). The
    /// layers' plan blocks, which may hold a copy of it, are then out of date.
    @inline(__always)
    package func invalidatePlan() {
        if fastPlan.kind != .unresolved {
            fastPlan = .unresolved
            qz_internal_plan_generation &+= 1
        }
    }

    /// Boxes the unboxed from value (once).
    @inline(never)
    private func materializeFrom() -> Value? {
        guard let v = lazyFrom.boxed else { return fromStore }
        lazyFrom = .none
        fromStore = v
        return v
    }

    deinit {
        if completionGroups != nil { withModelLock { endTransactionGroups() } }
    }


    package var isPropertyAnimation: Bool { animationKind == .basic || animationKind == .keyframe || animationKind == .spring }
    /// A CABasicAnimation or its subclass CASpringAnimation.
    package var isBasic: Bool { animationKind == .basic || animationKind == .spring }

    /// True when `other` is this animation or one of the animations of its
    /// groups, at any depth (a group must not contain itself).
    package func contains(_ other: Animation) -> Bool {
        if self === other { return true }
        var stack = animations ?? []
        var seen = Set<ObjectIdentifier>()
        while let a = stack.popLast() {
            if a === other { return true }
            guard seen.insert(ObjectIdentifier(a)).inserted else { continue }
            stack.append(contentsOf: a.animations ?? [])
        }
        return false
    }

    /// A copy; the delegate is shared, and so are a group's animations (as
    /// observed on Apple's QuartzCore: a copy of a group holds the same
    /// animation objects).
    public func copy() -> Animation {
        let c = Animation(kind: animationKind)
        c.timing = timing
        c.timingFunction = timingFunction
        c.removedOnCompletion = removedOnCompletion
        c.delegate = delegate
        if let e = extras { c.extras = e.copy() }
        c.keyPathC = keyPathC   // immutable: shared
        c.keyPathKey = keyPathKey
        c.additive = additive
        c.cumulative = cumulative
        c.valueFunction = valueFunction
        c.fromStore = fromStore
        c.lazyFrom = lazyFrom
        c.toValue = toValue
        c.byValue = byValue
        return c
    }
}

/// An animation's rarely set properties (see Animation.extras).
package final class AnimationExtras {
    package var custom = ValueDictionary()
    package var values: [Value]?
    package var path: Path?
    package var keyTimes: [Double]?
    package var timingFunctions: [TimingFunction]?
    package var calculationMode: UInt8 = 0
    package var rotationMode: UInt8?
    package var tensionValues: [Double]?
    package var continuityValues: [Double]?
    package var biasValues: [Double]?
    package var animations: [Animation]?
    package var transitionType: UInt8 = 0
    package var transitionSubtype: UInt8?
    package var startProgress: Float = 0
    package var endProgress: Float = 1
    package var spring = Spring()

    /// A copy sharing the animations (the caller copies them when it must).
    package func copy() -> AnimationExtras {
        let x = AnimationExtras()
        x.custom = custom
        x.values = values
        x.path = path
        x.keyTimes = keyTimes
        x.timingFunctions = timingFunctions
        x.calculationMode = calculationMode
        x.rotationMode = rotationMode
        x.tensionValues = tensionValues
        x.continuityValues = continuityValues
        x.biasValues = biasValues
        x.animations = animations
        x.transitionType = transitionType
        x.transitionSubtype = transitionSubtype
        x.startProgress = startProgress
        x.endProgress = endProgress
        x.spring = spring
        return x
    }
}

/// A from value kept unboxed (see Animation.fromValue): the types of the
/// animatable properties an implicit animation usually starts from.
package enum LazyEndpoint {
    case none
    case number(Double)
    case point(CGPoint)
    case rect(CGRect)
    case color(Color)
    /// The layer's own box, shared (boxes are replaced, never changed, while
    /// shared: TransformBox.store); nil is the identity.
    case transform(TransformBox?)
    /// Any other value, already boxed (compact implicit animations).
    case value(Value)

    /// The value boxed; nil for .none.
    package var boxed: Value? {
        switch self {
        case .none: return nil
        case .number(let n): return Value(.number(n))
        case .point(let p): return Value(.point(p))
        case .rect(let r): return Value(.rect(r))
        case .color(let c): return Value(.color(c))
        case .transform(let box): return Value(.transform3D(box?.value ?? .identity))
        case .value(let v): return v
        }
    }
}

/// An animation delegate: the host's table and info.
@usableFromInline package final class AnimationDelegate {
    package let callbacks: CAAnimationDelegateCallbacks
    package let info: UnsafeMutableRawPointer?

    package init(_ callbacks: CAAnimationDelegateCallbacks, _ info: UnsafeMutableRawPointer?) {
        self.callbacks = callbacks
        self.info = info
    }

    deinit {
        if let release = callbacks.release { hostCall { release(info) } }
    }
}

/// CAValueFunction: turns animated numbers into a transform.
public enum ValueFunction: UInt8, Sendable {
    case rotateX, rotateY, rotateZ, scale, scaleX, scaleY, scaleZ, translate, translateX, translateY, translateZ

    package static let names: [String] = ["rotateX", "rotateY", "rotateZ", "scale", "scaleX", "scaleY", "scaleZ",
                                  "translate", "translateX", "translateY", "translateZ"]

    public var name: String { Self.names[Int(rawValue)] }

    public init?(name: String) {
        guard let i = Self.names.firstIndex(of: name) else { return nil }
        self.init(rawValue: UInt8(i))
    }

    /// The transform for an animated value: a number, or for scale and
    /// translate an array of three numbers.
    package func transform(_ v: Value) -> CATransform3D? {
        func triple() -> (Double, Double, Double)? {
            if case .array(let items) = v.storage, items.count == 3,
               let a = items[0].number, let b = items[1].number, let c = items[2].number { return (a, b, c) }
            if let n = v.number { return (n, n, n) }
            return nil
        }
        switch self {
        case .rotateX: return v.number.map { CATransform3D(rotationAngle: $0, x: 1, y: 0, z: 0) }
        case .rotateY: return v.number.map { CATransform3D(rotationAngle: $0, x: 0, y: 1, z: 0) }
        case .rotateZ: return v.number.map { CATransform3D(rotationAngle: $0, x: 0, y: 0, z: 1) }
        case .scale: return triple().map { CATransform3D(scaleX: $0.0, y: $0.1, z: $0.2) }
        case .scaleX: return v.number.map { CATransform3D(scaleX: $0, y: 1, z: 1) }
        case .scaleY: return v.number.map { CATransform3D(scaleX: 1, y: $0, z: 1) }
        case .scaleZ: return v.number.map { CATransform3D(scaleX: 1, y: 1, z: $0) }
        case .translate: return triple().map { CATransform3D(translationX: $0.0, y: $0.1, z: $0.2) }
        case .translateX: return v.number.map { CATransform3D(translationX: $0, y: 0, z: 0) }
        case .translateY: return v.number.map { CATransform3D(translationX: 0, y: $0, z: 0) }
        case .translateZ: return v.number.map { CATransform3D(translationX: 0, y: 0, z: $0) }
        }
    }
}

extension ConstantSet {
    package static let valueFunction = ConstantSet(names: ["rotateX", "rotateY", "rotateZ", "scale", "scaleX", "scaleY", "scaleZ",
                                                   "translate", "translateX", "translateY", "translateZ"])
    package static let calculationMode = ConstantSet(names: ["linear", "discrete", "paced", "cubic", "cubicPaced"])
    package static let rotationMode = ConstantSet(names: ["auto", "autoReverse"])
    package static let transitionType = ConstantSet(names: ["fade", "moveIn", "push", "reveal"])
    package static let transitionSubtype = ConstantSet(names: ["fromRight", "fromLeft", "fromTop", "fromBottom"])
}

// MARK: - Key-value coding

extension Animation {
    /// Apple's +[CAAnimation defaultValueForKey:]: the declared properties' defaults.
    package static func defaultValue(forKey key: String) -> Value? {
        switch key {
        case "duration", "beginTime", "timeOffset", "repeatCount", "repeatDuration": return Value(.number(0))
        case "speed": return Value(.number(1))
        case "autoreverses", "additive", "cumulative": return Value(.bool(false))
        case "removedOnCompletion": return Value(.bool(true))
        case "fillMode": return Value(string: "removed")
        case "calculationMode": return Value(string: "linear")
        case "startProgress": return Value(.number(0))
        case "endProgress": return Value(.number(1))
        case "type": return Value(string: "fade")
        default: return nil
        }
    }

    package static func numbers(_ list: [Double]) -> Value { Value(.array(list.map { Value(.number($0)) })) }

    /// Apple's valueForKey: on an animation.
    package func value(forKey key: String) -> Value? {
        switch key {
        case "duration": return Value(.number(timing.duration))
        case "beginTime": return Value(.number(timing.beginTime))
        case "speed": return Value(.number(Double(timing.speed)))
        case "timeOffset": return Value(.number(timing.timeOffset))
        case "repeatCount": return Value(.number(Double(timing.repeatCount)))
        case "repeatDuration": return Value(.number(timing.repeatDuration))
        case "autoreverses": return Value(.bool(timing.autoreverses))
        case "fillMode": return Value(string: ConstantSet.fillMode.name(timing.fillMode.rawValue))
        case "removedOnCompletion": return Value(.bool(removedOnCompletion))
        case "timingFunction": return timingFunction.map { Value(.object($0)) }
        case "keyPath" where isPropertyAnimation: return keyPath.map { Value(string: $0) }
        case "additive" where isPropertyAnimation: return Value(.bool(additive))
        case "cumulative" where isPropertyAnimation: return Value(.bool(cumulative))
        case "fromValue" where isBasic: return fromValue
        case "toValue" where isBasic: return toValue
        case "byValue" where isBasic: return byValue
        case "values" where animationKind == .keyframe: return values.map { Value(.array($0)) }
        case "keyTimes" where animationKind == .keyframe: return keyTimes.map { Value(.array($0.map { Value(.number($0)) })) }
        case "calculationMode" where animationKind == .keyframe: return Value(string: ConstantSet.calculationMode.name(calculationMode))
        case "rotationMode" where animationKind == .keyframe: return rotationMode.map { Value(string: ConstantSet.rotationMode.name($0)) }
        case "path" where animationKind == .keyframe: return path.map { Value(.object($0)) }
        case "timingFunctions" where animationKind == .keyframe: return timingFunctions.map { Value(.array($0.map { Value(.object($0)) })) }
        case "tensionValues" where animationKind == .keyframe: return tensionValues.map(Animation.numbers)
        case "continuityValues" where animationKind == .keyframe: return continuityValues.map(Animation.numbers)
        case "biasValues" where animationKind == .keyframe: return biasValues.map(Animation.numbers)
        case "valueFunction" where isPropertyAnimation: return valueFunction.map { Value(string: $0.name) }
        case "animations" where animationKind == .group: return animations.map { Value(.array($0.map { Value(.object($0)) })) }
        case "type" where animationKind == .transition: return Value(string: ConstantSet.transitionType.name(transitionType))
        case "subtype" where animationKind == .transition: return transitionSubtype.map { Value(string: ConstantSet.transitionSubtype.name($0)) }
        case "startProgress" where animationKind == .transition: return Value(.number(Double(startProgress)))
        case "endProgress" where animationKind == .transition: return Value(.number(Double(endProgress)))
        case "mass" where animationKind == .spring: return Value(.number(spring.mass))
        case "stiffness" where animationKind == .spring: return Value(.number(spring.stiffness))
        case "damping" where animationKind == .spring: return Value(.number(spring.damping))
        case "initialVelocity" where animationKind == .spring: return Value(.number(spring.initialVelocity))
        case "settlingDuration" where animationKind == .spring: return Value(.number(spring.settlingDuration))
        case "perceptualDuration" where animationKind == .spring: return Value(.number(spring.perceptualDuration))
        case "bounce" where animationKind == .spring: return Value(.number(spring.bounce))
        case "allowsOverdamping" where animationKind == .spring: return Value(.bool(spring.allowsOverdamping))
        default: return custom[key]
        }
    }

    /// Apple's setValue:forKey: on an animation: declared keys type-checked,
    /// others stored as given (nil removes).
    package func setValue(_ v: Value?, forKey key: String, function: StaticString) -> Bool {
        func number(allowInfinity: Bool = false) -> Double? {
            guard let n = v?.number, !n.isNaN, allowInfinity || n.isFinite else {
                recordError(QZErrorWrongType, function, "\(key) takes a finite number")
                return nil
            }
            return n
        }
        func wrong(_ what: String) -> Bool {
            recordError(QZErrorWrongType, function, "\(key) takes \(what)")
            return false
        }
        func unknown() -> Bool {
            recordError(QZErrorUnknownConstant, function, "\(v?.string.map { "\"\($0)\"" } ?? "that value") is not a valid \(key)")
            return false
        }
        func bool() -> Bool? {
            guard let n = v?.number else { recordError(QZErrorWrongType, function, "\(key) takes a bool"); return nil }
            return n != 0
        }
        switch key {
        case "duration": guard let n = number() else { return false }; timing.duration = n
        case "beginTime": guard let n = number() else { return false }; timing.beginTime = n
        case "speed": guard let n = number() else { return false }; timing.speed = Float(n)
        case "timeOffset": guard let n = number() else { return false }; timing.timeOffset = n
        case "repeatCount": guard let n = number(allowInfinity: true) else { return false }; timing.repeatCount = Float(n)
        case "repeatDuration": guard let n = number(allowInfinity: true) else { return false }; timing.repeatDuration = n
        case "autoreverses": guard let b = bool() else { return false }; timing.autoreverses = b
        case "removedOnCompletion": guard let b = bool() else { return false }; removedOnCompletion = b
        case "fillMode":
            guard let s = v?.string, let i = ConstantSet.fillMode.index(of: s), let f = MediaTiming.FillMode(rawValue: i) else {
                recordError(QZErrorUnknownConstant, function, "fillMode takes a fill mode constant")
                return false
            }
            timing.fillMode = f
        case "keyPath" where isPropertyAnimation: keyPath = v?.string
        case "additive" where isPropertyAnimation: guard let b = bool() else { return false }; additive = b
        case "cumulative" where isPropertyAnimation: guard let b = bool() else { return false }; cumulative = b
        case "fromValue" where isBasic: fromValue = v
        case "toValue" where isBasic: toValue = v
        case "byValue" where isBasic: byValue = v
        case "values" where animationKind == .keyframe:
            if let v, case .array(let items) = v.storage { values = items } else if v == nil { values = nil } else { return wrong("an array") }
        case "keyTimes" where animationKind == .keyframe,
             "tensionValues" where animationKind == .keyframe,
             "continuityValues" where animationKind == .keyframe,
             "biasValues" where animationKind == .keyframe:
            var list: [Double]?
            if let v {
                guard case .array(let items) = v.storage, items.allSatisfy({ $0.number?.isFinite == true }) else { return wrong("an array of numbers") }
                list = items.map { $0.number! }
            }
            switch key {
            case "keyTimes": keyTimes = list
            case "tensionValues": tensionValues = list
            case "continuityValues": continuityValues = list
            default: biasValues = list
            }
        case "calculationMode" where animationKind == .keyframe:
            guard let s = v?.string, let i = ConstantSet.calculationMode.index(of: s) else { return unknown() }
            calculationMode = i
        case "rotationMode" where animationKind == .keyframe:
            if v == nil { rotationMode = nil } else {
                guard let s = v?.string, let i = ConstantSet.rotationMode.index(of: s) else { return unknown() }
                rotationMode = i
            }
        case "path" where animationKind == .keyframe:
            if let v {
                guard case .object(let o) = v.storage, let p = o as? Path else { return wrong("a path") }
                path = p.isMutable ? Path(p.data, mutable: false) : p
            } else { path = nil }
        case "timingFunctions" where animationKind == .keyframe:
            if let v {
                guard case .array(let items) = v.storage else { return wrong("an array of timing functions") }
                var list: [TimingFunction] = []
                for item in items {
                    guard case .object(let o) = item.storage, let f = o as? TimingFunction else { return wrong("an array of timing functions") }
                    list.append(f)
                }
                timingFunctions = list
            } else { timingFunctions = nil }
        case "timingFunction":
            if let v {
                guard case .object(let o) = v.storage, let f = o as? TimingFunction else { return wrong("a timing function") }
                timingFunction = f
            } else { timingFunction = nil }
        case "valueFunction" where isPropertyAnimation:
            if v == nil { valueFunction = nil } else {
                guard let s = v?.string, let f = ValueFunction(name: s) else { return unknown() }
                valueFunction = f
            }
        case "type" where animationKind == .transition:
            guard let s = v?.string, let i = ConstantSet.transitionType.index(of: s) else { return unknown() }
            transitionType = i
        case "subtype" where animationKind == .transition:
            if v == nil { transitionSubtype = nil } else {
                guard let s = v?.string, let i = ConstantSet.transitionSubtype.index(of: s) else { return unknown() }
                transitionSubtype = i
            }
        // Kept as given (no clamping, no swapping): see CATransitionSetStartProgress.
        case "startProgress" where animationKind == .transition:
            guard let n = number() else { return false }; startProgress = Float(n)
        case "endProgress" where animationKind == .transition:
            guard let n = number() else { return false }; endProgress = Float(n)
        case "mass" where animationKind == .spring, "stiffness" where animationKind == .spring,
             "damping" where animationKind == .spring, "initialVelocity" where animationKind == .spring:
            guard let n = number() else { return false }
            guard let s = Spring.setting(key, n, on: spring, function: function) else { return false }
            spring = s
        case "allowsOverdamping" where animationKind == .spring:
            guard let b = bool() else { return false }; spring.allowsOverdamping = b
        case "settlingDuration" where animationKind == .spring, "perceptualDuration" where animationKind == .spring,
             "bounce" where animationKind == .spring:
            recordError(QZErrorInvalidArgument, function, "\(key) is read-only")
            return false
        default:
            if let v { custom.set(v, for: key) } else if custom[key] != nil {
                var d = ValueDictionary()
                for (k, x) in zip(custom.keys, custom.values) where k.string != key { d.set(x, for: k.string) }
                custom = d
            }
        }
        return true
    }
}
