import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel
import QuartziteRender

// CAAnimation and its subclasses. Functions are named after the class that
// declares the property and accept every subclass (CAAnimationSetDuration
// works on a basic, keyframe, group or transition animation). Animations are
// configured, then copied onto a layer by CALayerAddAnimation; changing the
// caller's object afterwards changes nothing on the layer.
//
// Threads: every call holds the model lock; an animation may be configured
// from any thread. Delegate callbacks run on the thread that delivers them
// (QZAnimationProcessEvents or a run-loop turn).

@inline(__always)
func readAnimation<R>(_ a: CAAnimationRef?, _ fallback: R, _ function: StaticString = #function, _ body: (Animation) -> R) -> R {
    withObject(a, as: Animation.self, fallback: fallback, function) { x in withModelLock { body(x) } }
}

@inline(__always)
func kindAnimation<R>(_ a: CAAnimationRef?, _ kinds: [Animation.Kind], _ fallback: R, _ function: StaticString = #function,
                      _ body: (Animation) -> R) -> R {
    readAnimation(a, fallback, function) { x in
        guard kinds.contains(x.animationKind) else {
            recordError(QZErrorWrongType, function, "a \(x.animationKind.objectKind.typeName) does not declare this property")
            return fallback
        }
        return body(x)
    }
}

let propertyKinds: [Animation.Kind] = [.basic, .keyframe, .spring]
/// CABasicAnimation and its subclass CASpringAnimation.
let basicKinds: [Animation.Kind] = [.basic, .spring]

func optionalValueArgument(_ v: CAValueRef?, _ function: StaticString) -> (ok: Bool, value: Value?) {
    guard let v else { return (true, nil) }
    guard let o = object(v, as: Value.self, function) else { return (false, nil) }
    return (true, o.type == CAValueTypeNull ? nil : o)
}

// MARK: - Creation

/// Creates a CABasicAnimation of `keyPath` (may be NULL). Returns +1.
@c public func CABasicAnimationCreate(_ keyPath: UnsafePointer<CChar>?) -> CAAnimationRef? {
    let a = Animation(kind: .basic)
    a.keyPath = keyPath.map { String(cString: $0) }
    return retainedHandle(a)
}

/// Creates a CAKeyframeAnimation of `keyPath` (may be NULL). Returns +1.
@c public func CAKeyframeAnimationCreate(_ keyPath: UnsafePointer<CChar>?) -> CAAnimationRef? {
    let a = Animation(kind: .keyframe)
    a.keyPath = keyPath.map { String(cString: $0) }
    return retainedHandle(a)
}

/// Creates an empty CAAnimationGroup. Returns +1.
@c public func CAAnimationGroupCreate() -> CAAnimationRef? { retainedHandle(Animation(kind: .group)) }

/// Apple's +[CAAnimation animation]: a plain CAAnimation, a timing object
/// (the CAMediaTiming and CAAnimation properties, a delegate) with no effect
/// of its own, usable in a group or as an action: added to a layer it
/// changes nothing, but its delegate hears animationDidStart and
/// animationDidStop, and a transaction completion waits for it. Returns +1.
@c public func CAAnimationCreate() -> CAAnimationRef? { retainedHandle(Animation(kind: .plain)) }

/// Creates a CATransition (type kCATransitionFade, no subtype). Returns +1.
@c public func CATransitionCreate() -> CAAnimationRef? { retainedHandle(Animation(kind: .transition)) }

// MARK: - CAMediaTiming of an animation

@inline(__always)
func setAnimationTiming(_ a: CAAnimationRef?, _ x: Double, allowInfinity: Bool, _ function: StaticString,
                        _ body: (inout MediaTiming, Double) -> Void) {
    if x.isNaN || (!allowInfinity && !x.isFinite) {
        recordError(QZErrorNotFinite, function, "the value must be \(allowInfinity ? "a number" : "finite"), got \(x)")
        return
    }
    readAnimation(a, (), function) { body(&$0.timing, x) }
}

/// Start time in the parent's time space (default 0: when added to a layer).
@c public func CAAnimationGetBeginTime(_ a: CAAnimationRef?) -> CFTimeInterval { readAnimation(a, 0) { $0.timing.beginTime } }
/// Sets the start time in the parent's time space (0: when added to a layer). NaN or infinity
/// records QZErrorNotFinite.
@c public func CAAnimationSetBeginTime(_ a: CAAnimationRef?, _ t: CFTimeInterval) { setAnimationTiming(a, t, allowInfinity: false, #function) { $0.beginTime = $1 } }

/// Duration of one pass (default 0: 0.25 s once added, or the transaction's duration).
@c public func CAAnimationGetDuration(_ a: CAAnimationRef?) -> CFTimeInterval { readAnimation(a, 0) { $0.timing.duration } }
/// Sets the duration of one pass (0 or less: 0.25 s once added, or the transaction's duration). NaN
/// or infinity records QZErrorNotFinite.
@c public func CAAnimationSetDuration(_ a: CAAnimationRef?, _ t: CFTimeInterval) { setAnimationTiming(a, t, allowInfinity: false, #function) { $0.duration = $1 } }

/// Rate of time (default 1).
@c public func CAAnimationGetSpeed(_ a: CAAnimationRef?) -> Float { readAnimation(a, 1) { $0.timing.speed } }
/// Sets the rate of time relative to the parent's (0 pauses). NaN or infinity records
/// QZErrorNotFinite.
@c public func CAAnimationSetSpeed(_ a: CAAnimationRef?, _ s: Float) { setAnimationTiming(a, Double(s), allowInfinity: false, #function) { $0.speed = Float($1) } }

/// Offset into the active interval, wrapping around its end (default 0).
@c public func CAAnimationGetTimeOffset(_ a: CAAnimationRef?) -> CFTimeInterval { readAnimation(a, 0) { $0.timing.timeOffset } }
/// Sets the offset into the active interval. NaN or infinity records QZErrorNotFinite.
@c public func CAAnimationSetTimeOffset(_ a: CAAnimationRef?, _ t: CFTimeInterval) { setAnimationTiming(a, t, allowInfinity: false, #function) { $0.timeOffset = $1 } }

/// Number of cycles, fractional allowed (default 0: one; HUGE_VALF: forever).
@c public func CAAnimationGetRepeatCount(_ a: CAAnimationRef?) -> Float { readAnimation(a, 0) { $0.timing.repeatCount } }
/// Sets the number of cycles (fractional allowed; HUGE_VALF repeats forever). NaN records
/// QZErrorNotFinite.
@c public func CAAnimationSetRepeatCount(_ a: CAAnimationRef?, _ n: Float) { setAnimationTiming(a, Double(n), allowInfinity: true, #function) { $0.repeatCount = Float($1) } }

/// Length of the active interval, overriding repeatCount (default 0).
@c public func CAAnimationGetRepeatDuration(_ a: CAAnimationRef?) -> CFTimeInterval { readAnimation(a, 0) { $0.timing.repeatDuration } }
/// Sets the length of the active interval, which overrides repeatCount (INFINITY: forever). NaN
/// records QZErrorNotFinite.
@c public func CAAnimationSetRepeatDuration(_ a: CAAnimationRef?, _ t: CFTimeInterval) { setAnimationTiming(a, t, allowInfinity: true, #function) { $0.repeatDuration = $1 } }

/// Whether each cycle plays forwards then backwards (default false).
@c public func CAAnimationGetAutoreverses(_ a: CAAnimationRef?) -> Bool { readAnimation(a, false) { $0.timing.autoreverses } }
/// Sets whether each cycle plays forwards then backwards.
@c public func CAAnimationSetAutoreverses(_ a: CAAnimationRef?, _ on: Bool) { readAnimation(a, ()) { $0.timing.autoreverses = on } }

/// kCAFillModeRemoved (default), Forwards, Backwards or Both.
@c public func CAAnimationGetFillMode(_ a: CAAnimationRef?) -> UnsafePointer<CChar>? {
    readAnimation(a, nil) { ConstantSet.fillMode.cString($0.timing.fillMode.rawValue) }
}
/// Sets the fill mode (a kCAFillMode* string, compared by content). NULL records
/// QZErrorNullArgument, another string QZErrorUnknownConstant; either leaves the mode unchanged.
@c public func CAAnimationSetFillMode(_ a: CAAnimationRef?, _ mode: UnsafePointer<CChar>?) {
    guard let m = requireString(mode, "mode", #function) else { return }
    guard let i = ConstantSet.fillMode.index(of: m), let f = MediaTiming.FillMode(rawValue: i) else {
        recordError(QZErrorUnknownConstant, #function, "\"\(m)\" is not a fill mode")
        return
    }
    readAnimation(a, ()) { $0.timing.fillMode = f }
}

// MARK: - CAAnimation

/// The pacing curve (default NULL: linear). Borrowed.
@c public func CAAnimationGetTimingFunction(_ a: CAAnimationRef?) -> CAMediaTimingFunctionRef? {
    readAnimation(a, nil) { $0.timingFunction.map(borrowedHandle) }
}
/// Sets the pacing curve (retained; NULL: linear).
@c public func CAAnimationSetTimingFunction(_ a: CAAnimationRef?, _ f: CAMediaTimingFunctionRef?) {
    var fn: TimingFunction?
    if let f { guard let o = object(f, as: TimingFunction.self) else { return }; fn = o }
    readAnimation(a, ()) { $0.timingFunction = fn }
}

/// Whether the animation leaves the layer when it completes (default true).
@c public func CAAnimationGetRemovedOnCompletion(_ a: CAAnimationRef?) -> Bool { readAnimation(a, true) { $0.removedOnCompletion } }
/// Sets whether the animation leaves the layer when it completes.
@c public func CAAnimationSetRemovedOnCompletion(_ a: CAAnimationRef?, _ on: Bool) { readAnimation(a, ()) { $0.removedOnCompletion = on } }

/// Installs the delegate (table copied; NULL removes it). The animation and
/// the copies made of it share the delegate; release(info) runs when the last
/// of them is freed or the delegate is replaced.
@c public func CAAnimationSetDelegate(_ a: CAAnimationRef?, _ callbacks: UnsafePointer<CAAnimationDelegateCallbacks>?, _ info: UnsafeMutableRawPointer?) {
    if let callbacks, callbacks.pointee.version != 0 {
        recordError(QZErrorInvalidArgument, #function, "callbacks version \(callbacks.pointee.version) is not supported (use 0)")
        return
    }
    let d = callbacks.map { AnimationDelegate($0.pointee, info) }
    readAnimation(a, ()) { $0.delegate = d }
}

/// Apple's +defaultValueForKey: for animations: the documented defaults of
/// the declared properties (duration 0, speed 1, removedOnCompletion true, ...),
/// else NULL. Returns +1 (or NULL).
@c public func CAAnimationCopyDefaultValueForKey(_ key: UnsafePointer<CChar>?) -> CAValueRef? {
    guard let k = requireString(key, "key", #function) else { return nil }
    return Animation.defaultValue(forKey: k).map(retainedHandle)
}

/// Apple's -shouldArchiveValueForKey: (always true).
@c public func CAAnimationShouldArchiveValueForKey(_ a: CAAnimationRef?, _ key: UnsafePointer<CChar>?) -> Bool {
    guard requireString(key, "key", #function) != nil else { return false }
    return readAnimation(a, false) { _ in true }
}

/// Key-value coding on animations: declared properties by key, arbitrary keys stored as given.
@c public func CAAnimationSetValueForKey(_ a: CAAnimationRef?, _ key: UnsafePointer<CChar>?, _ value: CAValueRef?) {
    guard let k = requireString(key, "key", #function) else { return }
    let v = optionalValueArgument(value, #function)
    guard v.ok else { return }
    readAnimation(a, ()) { _ = $0.setValue(v.value, forKey: k, function: #function) }
}

/// Apple's valueForKey: on an animation. Returns +1, or NULL for nil.
@c public func CAAnimationCopyValueForKey(_ a: CAAnimationRef?, _ key: UnsafePointer<CChar>?) -> CAValueRef? {
    guard let k = requireString(key, "key", #function) else { return nil }
    return readAnimation(a, nil) { $0.value(forKey: k).map(retainedHandle) }
}

// MARK: - CAPropertyAnimation

/// The animated key path (NULL: none). Borrowed copy valid until it changes.
@c public func CAPropertyAnimationGetKeyPath(_ a: CAAnimationRef?) -> UnsafePointer<CChar>? {
    kindAnimation(a, propertyKinds, nil) { x in x.keyPathC.map { UnsafePointer($0.pointer) } }
}
/// Sets the key path the animation changes (copied; NULL: none). A transition or group records
/// QZErrorWrongType.
@c public func CAPropertyAnimationSetKeyPath(_ a: CAAnimationRef?, _ keyPath: UnsafePointer<CChar>?) {
    let k = keyPath.map { String(cString: $0) }
    kindAnimation(a, propertyKinds, ()) { $0.keyPath = k }
}

/// Whether the value is added to the layer's current value (default false).
@c public func CAPropertyAnimationGetAdditive(_ a: CAAnimationRef?) -> Bool { kindAnimation(a, propertyKinds, false) { $0.additive } }
/// Sets whether the animated value is added to the layer's current value.
@c public func CAPropertyAnimationSetAdditive(_ a: CAAnimationRef?, _ on: Bool) { kindAnimation(a, propertyKinds, ()) { $0.additive = on } }

/// Whether each repeat builds on the end of the previous one (default false).
@c public func CAPropertyAnimationGetCumulative(_ a: CAAnimationRef?) -> Bool { kindAnimation(a, propertyKinds, false) { $0.cumulative } }
/// Sets whether each repeat builds on the end of the previous one.
@c public func CAPropertyAnimationSetCumulative(_ a: CAAnimationRef?, _ on: Bool) { kindAnimation(a, propertyKinds, ()) { $0.cumulative = on } }

/// The value function by name (kCAValueFunctionRotateZ, ...; NULL: none): the
/// animated numbers become a transform.
@c public func CAPropertyAnimationGetValueFunction(_ a: CAAnimationRef?) -> UnsafePointer<CChar>? {
    kindAnimation(a, propertyKinds, nil) { x in x.valueFunction.map { ConstantSet.valueFunction.cString($0.rawValue) } }
}
/// Sets the value function (a kCAValueFunction* name; NULL: none). Another string records
/// QZErrorUnknownConstant.
@c public func CAPropertyAnimationSetValueFunction(_ a: CAAnimationRef?, _ name: UnsafePointer<CChar>?) {
    var vf: ValueFunction?
    if let name {
        let n = String(cString: name)
        guard let f = ValueFunction(name: n) else {
            recordError(QZErrorUnknownConstant, #function, "\"\(n)\" is not a value function")
            return
        }
        vf = f
    }
    kindAnimation(a, propertyKinds, ()) { $0.valueFunction = vf }
}

// MARK: - CABasicAnimation

@inline(__always)
func basicValue(_ a: CAAnimationRef?, _ function: StaticString, _ read: (Animation) -> Value?) -> CAValueRef? {
    kindAnimation(a, basicKinds, nil, function) { read($0).map(borrowedHandle) }
}

@inline(__always)
func setBasicValue(_ a: CAAnimationRef?, _ value: CAValueRef?, _ function: StaticString, _ write: (Animation, Value?) -> Void) {
    let v = optionalValueArgument(value, function)
    guard v.ok else { return }
    kindAnimation(a, basicKinds, (), function) { write($0, v.value) }
}

/// The start value (NULL: the layer's current value). Borrowed.
@c public func CABasicAnimationGetFromValue(_ a: CAAnimationRef?) -> CAValueRef? { basicValue(a, #function) { $0.fromValue } }
/// Sets the start value (retained; NULL: the layer's current value).
@c public func CABasicAnimationSetFromValue(_ a: CAAnimationRef?, _ v: CAValueRef?) { setBasicValue(a, v, #function) { $0.fromValue = $1 } }
/// The end value. Borrowed.
@c public func CABasicAnimationGetToValue(_ a: CAAnimationRef?) -> CAValueRef? { basicValue(a, #function) { $0.toValue } }
/// Sets the end value (retained; NULL: none).
@c public func CABasicAnimationSetToValue(_ a: CAAnimationRef?, _ v: CAValueRef?) { setBasicValue(a, v, #function) { $0.toValue = $1 } }
/// The change relative to the start or end. Borrowed.
@c public func CABasicAnimationGetByValue(_ a: CAAnimationRef?) -> CAValueRef? { basicValue(a, #function) { $0.byValue } }
/// Sets the change relative to the start or end value (retained; NULL: none).
@c public func CABasicAnimationSetByValue(_ a: CAAnimationRef?, _ v: CAValueRef?) { setBasicValue(a, v, #function) { $0.byValue = $1 } }

// MARK: - CASpringAnimation

/// Creates a CASpringAnimation of `keyPath` (may be NULL): a CABasicAnimation
/// whose value follows a damped spring from fromValue to toValue (mass 1,
/// stiffness 100, damping 10, initialVelocity 0). The spring is evaluated in
/// closed form at the seconds elapsed in the pass; the timing function is
/// not used. Its duration defaults to 0 like every animation's (the
/// transaction's duration once added), so set it, usually to
/// CASpringAnimationGetSettlingDuration, or the spring stops early. Returns +1.
@c public func CASpringAnimationCreate(_ keyPath: UnsafePointer<CChar>?) -> CAAnimationRef? {
    let a = Animation(kind: .spring)
    a.keyPath = keyPath.map { String(cString: $0) }
    return retainedHandle(a)
}

/// Apple's -initWithPerceptualDuration:bounce:: a spring with mass 1,
/// stiffness (2π / perceptualDuration)² and the damping that gives a damping
/// ratio of 1 - bounce (bounce ≥ 0) or 1 / (1 + bounce) (bounce < 0, with
/// allowsOverdamping set), no key path, and its duration set to its settling duration (the perceptual
/// duration when the spring never settles, bounce 1). perceptualDuration must
/// be finite and greater than 0 and bounce in (-1, 1]: otherwise records
/// QZErrorNotFinite or QZErrorInvalidArgument and returns NULL. Returns +1.
@c public func CASpringAnimationCreateWithPerceptualDuration(_ perceptualDuration: CFTimeInterval, _ bounce: Double) -> CAAnimationRef? {
    guard perceptualDuration.isFinite, bounce.isFinite else {
        recordError(QZErrorNotFinite, #function, "perceptualDuration and bounce must be finite, got \(perceptualDuration) and \(bounce)")
        return nil
    }
    guard perceptualDuration > 0, bounce > -1, bounce <= 1 else {
        recordError(QZErrorInvalidArgument, #function,
                    "perceptualDuration must be greater than 0 and bounce in (-1, 1], got \(perceptualDuration) and \(bounce)")
        return nil
    }
    let a = Animation(kind: .spring)
    let s = Spring(perceptualDuration: perceptualDuration, bounce: bounce)
    a.spring = s
    let settle = s.settlingDuration
    a.timing.duration = settle.isFinite ? settle : perceptualDuration
    return retainedHandle(a)
}

@inline(__always)
func setSpringParameter(_ a: CAAnimationRef?, _ key: String, _ value: Double, _ function: StaticString) {
    kindAnimation(a, [.spring], (), function) { x in
        if let s = Spring.setting(key, value, on: x.spring, function: function) { x.spring = s }
    }
}

/// The mass of the object on the spring (default 1).
@c public func CASpringAnimationGetMass(_ a: CAAnimationRef?) -> Double { kindAnimation(a, [.spring], 1) { $0.spring.mass } }
/// Sets the mass (greater than 0, else QZErrorInvalidArgument; NaN or infinity QZErrorNotFinite).
@c public func CASpringAnimationSetMass(_ a: CAAnimationRef?, _ v: Double) { setSpringParameter(a, "mass", v, #function) }
/// The spring's stiffness coefficient (default 100).
@c public func CASpringAnimationGetStiffness(_ a: CAAnimationRef?) -> Double { kindAnimation(a, [.spring], 100) { $0.spring.stiffness } }
/// Sets the stiffness (greater than 0, else QZErrorInvalidArgument; NaN or infinity QZErrorNotFinite).
@c public func CASpringAnimationSetStiffness(_ a: CAAnimationRef?, _ v: Double) { setSpringParameter(a, "stiffness", v, #function) }
/// The damping coefficient (default 10).
@c public func CASpringAnimationGetDamping(_ a: CAAnimationRef?) -> Double { kindAnimation(a, [.spring], 10) { $0.spring.damping } }
/// Sets the damping (0 or more, else QZErrorInvalidArgument; NaN or infinity QZErrorNotFinite).
/// Below 2√(stiffness·mass) the spring oscillates, at it it is critically damped, above it
/// overdamped when allowsOverdamping is set (critically damped otherwise).
@c public func CASpringAnimationSetDamping(_ a: CAAnimationRef?, _ v: Double) { setSpringParameter(a, "damping", v, #function) }
/// The initial velocity (default 0), in distances (from → to) per second; positive moves towards
/// the target, negative away from it.
@c public func CASpringAnimationGetInitialVelocity(_ a: CAAnimationRef?) -> Double { kindAnimation(a, [.spring], 0) { $0.spring.initialVelocity } }
/// Sets the initial velocity (NaN or infinity records QZErrorNotFinite).
@c public func CASpringAnimationSetInitialVelocity(_ a: CAAnimationRef?, _ v: Double) { setSpringParameter(a, "initialVelocity", v, #function) }
/// Whether a damping above critical (damping > 2√(stiffness·mass)) overdamps the spring (default
/// false: such a spring moves as the critically damped one, as CASpringAnimation did before
/// allowsOverdamping; true for a spring made with a negative bounce).
@c public func CASpringAnimationGetAllowsOverdamping(_ a: CAAnimationRef?) -> Bool {
    kindAnimation(a, [.spring], false) { $0.spring.allowsOverdamping }
}
/// Sets allowsOverdamping; settlingDuration follows.
@c public func CASpringAnimationSetAllowsOverdamping(_ a: CAAnimationRef?, _ allows: Bool) {
    kindAnimation(a, [.spring], (), #function) { $0.spring.allowsOverdamping = allows }
}

/// The time (seconds) after which the spring stays within 0.001 of the
/// distance from its target, computed from the current parameters and
/// initial velocity (INFINITY for damping 0). Read-only; independent of duration.
@c public func CASpringAnimationGetSettlingDuration(_ a: CAAnimationRef?) -> CFTimeInterval {
    kindAnimation(a, [.spring], 0) { $0.spring.settlingDuration }
}
/// The perceptual duration, 2π√(mass / stiffness) (what
/// CASpringAnimationCreateWithPerceptualDuration was given). Read-only.
@c public func CASpringAnimationGetPerceptualDuration(_ a: CAAnimationRef?) -> CFTimeInterval {
    kindAnimation(a, [.spring], 0) { $0.spring.perceptualDuration }
}
/// The bounce of the current parameters: 1 - ζ for a damping ratio ζ ≤ 1,
/// 1/ζ - 1 beyond (what CASpringAnimationCreateWithPerceptualDuration was given). Read-only.
@c public func CASpringAnimationGetBounce(_ a: CAAnimationRef?) -> Double {
    kindAnimation(a, [.spring], 0) { $0.spring.bounce }
}

// MARK: - CAKeyframeAnimation

func numberList(_ value: Value?, _ what: String, _ function: StaticString) -> (ok: Bool, list: [Double]?) {
    guard let value else { return (true, nil) }
    guard case .array(let items) = value.storage else {
        recordError(QZErrorWrongType, function, "\(what) must be an array of numbers")
        return (false, nil)
    }
    var out: [Double] = []
    for item in items {
        guard let n = item.number, n.isFinite else {
            recordError(QZErrorWrongType, function, "\(what) must be an array of finite numbers")
            return (false, nil)
        }
        out.append(n)
    }
    return (true, out)
}

/// The keyframe values (an array value; NULL: none). Returns +1.
@c public func CAKeyframeAnimationCopyValues(_ a: CAAnimationRef?) -> CAValueRef? {
    kindAnimation(a, [.keyframe], nil) { x in x.values.map { retainedHandle(Value(.array($0))) } }
}
/// Sets the keyframe values (an array value, retained; NULL: none). A value that is not an array
/// records QZErrorWrongType.
@c public func CAKeyframeAnimationSetValues(_ a: CAAnimationRef?, _ values: CAValueRef?) {
    let v = optionalValueArgument(values, #function)
    guard v.ok else { return }
    var list: [Value]?
    if let value = v.value {
        guard case .array(let items) = value.storage else {
            recordError(QZErrorWrongType, #function, "values must be an array")
            return
        }
        list = items
    }
    kindAnimation(a, [.keyframe], ()) { $0.values = list }
}

/// Key times in [0, 1] (an array of numbers; invalid ones are ignored when
/// the animation runs, as Apple does). Returns +1.
@c public func CAKeyframeAnimationCopyKeyTimes(_ a: CAAnimationRef?) -> CAValueRef? {
    kindAnimation(a, [.keyframe], nil) { x in x.keyTimes.map { retainedHandle(Value(.array($0.map { Value(.number($0)) }))) } }
}
/// Sets the key times (an array of numbers in [0, 1], retained; NULL: none). Items that are not
/// numbers record QZErrorWrongType.
@c public func CAKeyframeAnimationSetKeyTimes(_ a: CAAnimationRef?, _ keyTimes: CAValueRef?) {
    let v = optionalValueArgument(keyTimes, #function)
    guard v.ok else { return }
    let l = numberList(v.value, "keyTimes", #function)
    guard l.ok else { return }
    kindAnimation(a, [.keyframe], ()) { $0.keyTimes = l.list }
}

/// One timing function per segment (`count` entries; NULL with 0 clears).
/// The animation's own timingFunction is not used by keyframe animations.
@c public func CAKeyframeAnimationSetTimingFunctions(_ a: CAAnimationRef?, _ functions: UnsafePointer<CAMediaTimingFunctionRef?>?, _ count: size_t) {
    var list: [TimingFunction]?
    // (size_t arrives as Int: SIZE_MAX is -1.)
    guard count >= 0, count < 1 << 32 else {
        recordError(QZErrorOutOfRange, #function, "count \(count) is out of range")
        return
    }
    if count > 0 {
        guard let functions else {
            recordError(QZErrorNullArgument, #function, "functions is NULL but count is \(count)")
            return
        }
        list = []
        for i in 0..<count {
            guard let f = object(functions[i], as: TimingFunction.self) else { return }
            list!.append(f)
        }
    }
    kindAnimation(a, [.keyframe], ()) { $0.timingFunctions = list }
}

/// Segment timing function `index`. Borrowed.
@c public func CAKeyframeAnimationGetTimingFunctionAtIndex(_ a: CAAnimationRef?, _ index: size_t) -> CAMediaTimingFunctionRef? {
    kindAnimation(a, [.keyframe], nil) { x in
        let list = x.timingFunctions ?? []
        guard index >= 0, index < list.count else {
            recordError(QZErrorOutOfRange, #function, "index \(index) is outside 0..<\(list.count)")
            return nil
        }
        return borrowedHandle(list[index])
    }
}

/// The Kochanek-Bartels parameters (arrays of numbers, or NULL). Return +1.
@c public func CAKeyframeAnimationCopyTensionValues(_ a: CAAnimationRef?) -> CAValueRef? {
    kindAnimation(a, [.keyframe], nil) { x in x.tensionValues.map { retainedHandle(Animation.numbers($0)) } }
}
/// The continuity values of the cubic modes (an array of numbers, or NULL). Returns +1.
@c public func CAKeyframeAnimationCopyContinuityValues(_ a: CAAnimationRef?) -> CAValueRef? {
    kindAnimation(a, [.keyframe], nil) { x in x.continuityValues.map { retainedHandle(Animation.numbers($0)) } }
}
/// The bias values of the cubic modes (an array of numbers, or NULL). Returns +1.
@c public func CAKeyframeAnimationCopyBiasValues(_ a: CAAnimationRef?) -> CAValueRef? {
    kindAnimation(a, [.keyframe], nil) { x in x.biasValues.map { retainedHandle(Animation.numbers($0)) } }
}

/// The number of segment timing functions.
@c public func CAKeyframeAnimationGetTimingFunctionCount(_ a: CAAnimationRef?) -> size_t {
    kindAnimation(a, [.keyframe], 0) { $0.timingFunctions?.count ?? 0 }
}

/// The path the animated point follows (NULL: none; a mutable path is copied). Borrowed.
@c public func CAKeyframeAnimationGetPath(_ a: CAAnimationRef?) -> QZCGPathRef? {
    kindAnimation(a, [.keyframe], nil) { x in x.path.map { OpaquePointer(Unmanaged.passUnretained($0).toOpaque()) } }
}
/// Sets the path the animated point follows (retained; a mutable path is copied; NULL: none). While
/// set, the values are ignored.
@c public func CAKeyframeAnimationSetPath(_ a: CAAnimationRef?, _ path: QZCGPathRef?) {
    var p: Path?
    if let path {
        guard let o = object(path, as: Path.self) else { return }
        p = o.isMutable ? Path(o.data, mutable: false) : o
    }
    kindAnimation(a, [.keyframe], ()) { $0.path = p }
}

@inline(__always)
func keyframeConstant(_ a: CAAnimationRef?, _ set: ConstantSet, _ function: StaticString, _ read: (Animation) -> UInt8?) -> UnsafePointer<CChar>? {
    kindAnimation(a, [.keyframe], nil, function) { x in read(x).map { set.cString($0) } }
}

/// kCAAnimationLinear (default), Discrete, Paced, Cubic or CubicPaced.
@c public func CAKeyframeAnimationGetCalculationMode(_ a: CAAnimationRef?) -> UnsafePointer<CChar>? {
    keyframeConstant(a, .calculationMode, #function) { $0.calculationMode }
}
/// Sets the calculation mode (a kCAAnimation* mode: linear, discrete, paced, cubic, cubicPaced).
/// Another string records QZErrorUnknownConstant.
@c public func CAKeyframeAnimationSetCalculationMode(_ a: CAAnimationRef?, _ mode: UnsafePointer<CChar>?) {
    guard let m = requireString(mode, "mode", #function) else { return }
    guard let i = ConstantSet.calculationMode.index(of: m) else {
        recordError(QZErrorUnknownConstant, #function, "\"\(m)\" is not a calculation mode")
        return
    }
    kindAnimation(a, [.keyframe], ()) { $0.calculationMode = i }
}

/// NULL (default: no rotation), kCAAnimationRotateAuto or RotateAutoReverse.
@c public func CAKeyframeAnimationGetRotationMode(_ a: CAAnimationRef?) -> UnsafePointer<CChar>? {
    keyframeConstant(a, .rotationMode, #function) { $0.rotationMode }
}
/// Sets the rotation mode along a path (kCAAnimationRotateAuto, kCAAnimationRotateAutoReverse, or
/// NULL: none). Another string records QZErrorUnknownConstant.
@c public func CAKeyframeAnimationSetRotationMode(_ a: CAAnimationRef?, _ mode: UnsafePointer<CChar>?) {
    var i: UInt8?
    if let mode {
        let m = String(cString: mode)
        guard let idx = ConstantSet.rotationMode.index(of: m) else {
            recordError(QZErrorUnknownConstant, #function, "\"\(m)\" is not a rotation mode")
            return
        }
        i = idx
    }
    kindAnimation(a, [.keyframe], ()) { $0.rotationMode = i }
}

/// Kochanek-Bartels parameters per keyframe for the cubic modes (arrays of numbers).
@c public func CAKeyframeAnimationSetTensionValues(_ a: CAAnimationRef?, _ v: CAValueRef?) {
    let o = optionalValueArgument(v, #function); guard o.ok else { return }
    let l = numberList(o.value, "tensionValues", #function); guard l.ok else { return }
    kindAnimation(a, [.keyframe], ()) { $0.tensionValues = l.list }
}
/// Sets the continuity value per keyframe for the cubic modes (an array of numbers, or NULL).
@c public func CAKeyframeAnimationSetContinuityValues(_ a: CAAnimationRef?, _ v: CAValueRef?) {
    let o = optionalValueArgument(v, #function); guard o.ok else { return }
    let l = numberList(o.value, "continuityValues", #function); guard l.ok else { return }
    kindAnimation(a, [.keyframe], ()) { $0.continuityValues = l.list }
}
/// Sets the bias value per keyframe for the cubic modes (an array of numbers, or NULL).
@c public func CAKeyframeAnimationSetBiasValues(_ a: CAAnimationRef?, _ v: CAValueRef?) {
    let o = optionalValueArgument(v, #function); guard o.ok else { return }
    let l = numberList(o.value, "biasValues", #function); guard l.ok else { return }
    kindAnimation(a, [.keyframe], ()) { $0.biasValues = l.list }
}

// MARK: - CAAnimationGroup

/// Sets the group's animations. The group holds the very animations given
/// (retained, not copied), and a copy of the group (CALayerAddAnimation
/// makes one) shares them, as observed on Apple's QuartzCore: changing one
/// of them later changes the group, on a layer too. They run in the group's
/// time and are clipped to its duration; their delegates and
/// removedOnCompletion are ignored. A group that would contain itself
/// (directly or through another group) records QZErrorInvalidArgument and
/// changes nothing.
@c public func CAAnimationGroupSetAnimations(_ g: CAAnimationRef?, _ animations: UnsafePointer<CAAnimationRef?>?, _ count: size_t) {
    var list: [Animation] = []
    // (size_t arrives as Int: SIZE_MAX is -1.)
    guard count >= 0, count < 1 << 32 else {
        recordError(QZErrorOutOfRange, #function, "count \(count) is out of range")
        return
    }
    if count > 0 {
        guard let animations else {
            recordError(QZErrorNullArgument, #function, "animations is NULL but count is \(count)")
            return
        }
        for i in 0..<count {
            guard let x = object(animations[i], as: Animation.self) else { return }
            list.append(x)
        }
    }
    kindAnimation(g, [.group], ()) { x in
        if list.contains(where: { $0.contains(x) }) {
            recordError(QZErrorInvalidArgument, #function, "a group cannot contain itself")
            return
        }
        x.animations = list
    }
}

/// The number of animations in a group.
@c public func CAAnimationGroupGetAnimationCount(_ g: CAAnimationRef?) -> size_t {
    kindAnimation(g, [.group], 0) { $0.animations?.count ?? 0 }
}

/// The group's animation `index`: the very animation given to
/// CAAnimationGroupSetAnimations. Borrowed.
@c public func CAAnimationGroupGetAnimationAtIndex(_ g: CAAnimationRef?, _ index: size_t) -> CAAnimationRef? {
    kindAnimation(g, [.group], nil) { x in
        let list = x.animations ?? []
        guard index >= 0, index < list.count else {
            recordError(QZErrorOutOfRange, #function, "index \(index) is outside 0..<\(list.count)")
            return nil
        }
        return borrowedHandle(list[index])
    }
}

// MARK: - CATransition

/// kCATransitionFade (default), MoveIn, Push or Reveal.
@c public func CATransitionGetType(_ a: CAAnimationRef?) -> UnsafePointer<CChar>? {
    kindAnimation(a, [.transition], nil) { ConstantSet.transitionType.cString($0.transitionType) }
}
/// Sets the transition type (kCATransitionFade, MoveIn, Push or Reveal). Another string records
/// QZErrorUnknownConstant.
@c public func CATransitionSetType(_ a: CAAnimationRef?, _ type: UnsafePointer<CChar>?) {
    guard let t = requireString(type, "type", #function) else { return }
    guard let i = ConstantSet.transitionType.index(of: t) else {
        recordError(QZErrorUnknownConstant, #function, "\"\(t)\" is not a transition type")
        return
    }
    kindAnimation(a, [.transition], ()) { $0.transitionType = i }
}

/// NULL (default) or kCATransitionFromLeft, FromRight, FromTop, FromBottom.
@c public func CATransitionGetSubtype(_ a: CAAnimationRef?) -> UnsafePointer<CChar>? {
    kindAnimation(a, [.transition], nil) { x in x.transitionSubtype.map { ConstantSet.transitionSubtype.cString($0) } }
}
/// Sets the direction of a moving transition (kCATransitionFromRight, FromLeft, FromTop,
/// FromBottom; NULL: none). Another string records QZErrorUnknownConstant.
@c public func CATransitionSetSubtype(_ a: CAAnimationRef?, _ subtype: UnsafePointer<CChar>?) {
    var i: UInt8?
    if let subtype {
        let s = String(cString: subtype)
        guard let idx = ConstantSet.transitionSubtype.index(of: s) else {
            recordError(QZErrorUnknownConstant, #function, "\"\(s)\" is not a transition subtype")
            return
        }
        i = idx
    }
    kindAnimation(a, [.transition], ()) { $0.transitionSubtype = i }
}

/// Where the transition starts and ends (defaults 0 and 1). The values are
/// kept as given, even outside 0...1 or with the start after the end (no
/// clamping, no swapping), as observed on Apple's QuartzCore (where the
/// reference gives 0...1 as the legal values, Apple's behaviour wins); rendering
/// clamps the progress it uses to 0...1. NaN and infinities record
/// QZErrorNotFinite.
@c public func CATransitionGetStartProgress(_ a: CAAnimationRef?) -> Float { kindAnimation(a, [.transition], 0) { $0.startProgress } }
/// Sets where in the transition's progress it starts (kept as given; rendering clamps to 0...1).
/// NaN or infinity records QZErrorNotFinite.
@c public func CATransitionSetStartProgress(_ a: CAAnimationRef?, _ p: Float) {
    guard checkFinite(Double(p), function: #function) else { return }
    kindAnimation(a, [.transition], ()) { $0.startProgress = p }
}
/// Where in the transition's progress it ends (default 1), as given.
@c public func CATransitionGetEndProgress(_ a: CAAnimationRef?) -> Float { kindAnimation(a, [.transition], 1) { $0.endProgress } }
/// Sets where in the transition's progress it ends (kept as given; rendering clamps to 0...1). NaN
/// or infinity records QZErrorNotFinite.
@c public func CATransitionSetEndProgress(_ a: CAAnimationRef?, _ p: Float) {
    guard checkFinite(Double(p), function: #function) else { return }
    kindAnimation(a, [.transition], ()) { $0.endProgress = p }
}

// MARK: - Animations on layers

/// Adds a copy of `anim` under `key` (NULL: unnamed, not listed by
/// CALayerCopyAnimationKeys). The copy joins the calling thread's open
/// transaction (the implicit one when none is open) and starts when it
/// commits: a beginTime of 0 means the layer's local time at the commit; a
/// duration of 0 or less takes the transaction's animationDuration (0.25 s by
/// default). CALayerGetAnimation and CALayerCopyAnimationKeys list it at once;
/// presentation copies show it from the commit on. An animation
/// already under `key` is removed (its delegate hears animationDidStop with
/// finished = false).
@c public func CALayerAddAnimation(_ layer: CALayerRef?, _ anim: CAAnimationRef?, _ key: UnsafePointer<CChar>?) {
    guard let l = object(layer, as: Layer.self), let a = object(anim, as: Animation.self) else { return }
    let k = key.map { String(cString: $0) }
    withModelLock {
        guard l.acceptsAnimations(#function) else { return }
        l.addAnimationInTransaction(a, forKey: k)
    }
}

/// The animation running under `key`, or NULL. Borrowed: the copy the layer
/// holds (read it, do not change it).
@c public func CALayerGetAnimation(_ layer: CALayerRef?, _ key: UnsafePointer<CChar>?) -> CAAnimationRef? {
    guard let k = requireString(key, "key", #function) else { return nil }
    return readLayer(layer, nil) { $0.animation(forKey: k).map(borrowedHandle) }
}

/// The keys of the layer's animations in the order they were added (an array
/// of strings; NULL when there are none). Returns +1.
@c public func CALayerCopyAnimationKeys(_ layer: CALayerRef?) -> CAValueRef? {
    readLayer(layer, nil) { l in
        let keys = l.animationKeys
        return keys.isEmpty ? nil : retainedHandle(Value(.array(keys.map { Value(string: $0) })))
    }
}

/// Removes the animation under `key` (its delegate hears animationDidStop
/// with finished = false). An unknown key does nothing.
@c public func CALayerRemoveAnimation(_ layer: CALayerRef?, _ key: UnsafePointer<CChar>?) {
    guard let k = requireString(key, "key", #function) else { return }
    readLayer(layer, ()) { $0.removeAnimation(forKey: k, finished: false) }
}

/// Removes every animation of the layer.
@c public func CALayerRemoveAllAnimations(_ layer: CALayerRef?) {
    readLayer(layer, ()) { $0.removeAllAnimations() }
}

/// A copy of the layer showing its animated values at the current media time;
/// its sublayers, mask and superlayer are presentation copies too, so hitTest
/// and conversions work on it. It is a snapshot: changing it changes only the
/// copy (as with Apple's presentation layer). Returns +1.
///
/// What a presentation copy (any layer in one, or a transition snapshot)
/// is. Setting its properties changes it at once: no transaction, no action,
/// no implicit animation. It runs no animations: CALayerAddAnimation, or
/// CAActionRunForKey with an animation, on a copy records
/// QZErrorInvalidState. Its tree is fixed: adding, inserting, replacing or
/// removing sublayers and setting a mask, with a copy as the layer, the
/// sublayer, the sibling or the mask, records QZErrorInvalidState (a copy
/// never joins a model tree, and a model layer never joins a copy's). The
/// copy of a copy (this function given a copy) is a copy of it as it is,
/// with copies of its sublayers, mask and superlayers; its model layer is the
/// copy's model layer. The copy made for a sublayer or a mask holds its
/// superlayers' copies, which do not list it among their sublayers (or as
/// their mask), so nothing holds a cycle. A renderer or
/// CALayerRenderInContext given a copy draws it as it is.
@c public func CALayerCopyPresentationLayer(_ layer: CALayerRef?) -> CALayerRef? {
    let now = MediaClock.now(#function)
    return readLayer(layer, nil) { retainedHandle($0.presentationCopy(now: now, lazyLeaves: true)) }
}

/// For a presentation copy, the model layer it shows (the copy holds it, so
/// it is valid while the copy lives); for a model layer, the layer itself;
/// for a transition snapshot (QZLayerCopyTransitionSnapshot), which is
/// detached from the model, the snapshot's layer itself. Borrowed.
@c public func CALayerGetModelLayer(_ layer: CALayerRef?) -> CALayerRef? {
    readLayer(layer, nil) { borrowedHandle($0.modelLayer ?? $0) }
}

/// The progress (between the transition's startProgress and endProgress,
/// clamped to 0...1) of the layer's running CATransition at the current
/// media time, or -1 when none is in effect. The renderer draws the
/// transition from this.
@c public func QZLayerGetTransitionProgress(_ layer: CALayerRef?) -> Double {
    let now = MediaClock.now(#function)
    return readLayer(layer, -1) { $0.transitionState(now: now)?.progress ?? -1 }
}

/// A presentation copy of the layer's subtree as it was when its running
/// transition was added (what the transition starts from), or NULL when no
/// transition is in effect. The snapshot is a detached picture: it holds no
/// model layer (CALayerGetModelLayer of any layer in it returns that layer
/// itself), so it never keeps the layer it shows alive: a layer the host
/// releases is freed at once, and its transition ends with it. Returns +1.
@c public func QZLayerCopyTransitionSnapshot(_ layer: CALayerRef?) -> CALayerRef? {
    let now = MediaClock.now(#function)
    return readLayer(layer, nil) { l in l.transitionState(now: now)?.snapshot.map(retainedHandle) }
}

/// Delivers animation events due by the current media time: animationDidStart
/// for animations that began, animationDidStop(finished) for those that ended
/// or were removed, and removes finished animations with removedOnCompletion.
/// Each delegate message is delivered exactly once, on the calling thread,
/// outside the model lock. The run loop calls this on every turn; hosts with
/// their own frame loop call it once per frame. It does what the end of a
/// run-loop turn does: first commits the calling thread's implicit transaction
/// (unless explicit transactions are open), and last runs the transaction
/// completions owed to the calling thread.
@c public func QZAnimationProcessEvents() {
    transactionRunLoopTurnDidFinish()
}
