import CQuartzite
import Glibc
import Testing
@testable import QuartziteCore
@testable import QuartziteGeometry
@testable import QuartziteVideo
@testable import QuartziteGraphics
@testable import QuartziteModel
@testable import QuartziteRender
@testable import Quartzite

/// A layer with position.x = 100, at media time 0.
func animatedLayer() -> Layer {
    let l = Layer()
    l.position = CGPoint(x: 100, y: 0)
    l.bounds = CGRect(x: 0, y: 0, width: 10, height: 10)
    return l
}

func basic(_ keyPath: String, from: Value? = nil, to: Value? = nil, by: Value? = nil, duration: Double = 1) -> Animation {
    let a = Animation(kind: .basic)
    a.keyPath = keyPath
    a.fromValue = from
    a.toValue = to
    a.byValue = by
    a.timing.duration = duration
    return a
}

func n(_ x: Double) -> Value { Value(.number(x)) }

/// The presentation value at a key path, media time `t` (animations added at 0).
func presented(_ l: Layer, _ keyPath: String, at t: Double) -> Double? {
    withModelLock { l.presentationCopy(now: t).value(forKeyPath: keyPath)?.number }
}

@Suite struct BasicAnimationTests {
    /// Apple's seven from/to/by cases, at the halfway point, with the model at 100.
    static let cases: [(String, Value?, Value?, Value?, Double)] = [
        ("from and to", n(10), n(20), nil, 15),
        ("from and by", n(10), nil, n(4), 12),
        ("by and to", nil, n(20), n(4), 18),
        ("from only: to the current value", n(10), nil, nil, 55),
        ("to only: from the current value", nil, n(20), nil, 60),
        ("by only: relative to the current value", nil, nil, n(4), 102),
        ("none: the current value", nil, nil, nil, 100),
    ]

    @Test(arguments: cases)
    func fromToBy(_ name: String, _ from: Value?, _ to: Value?, _ by: Value?, _ expected: Double) {
        let l = animatedLayer()
        withModelLock { l.addAnimation(basic("position.x", from: from, to: to, by: by), forKey: "a", now: 0) }
        #expect(abs(presented(l, "position.x", at: 0.5)! - expected) < 1e-12, "\(name)")
        // After the end (fill removed) the model value shows again.
        #expect(presented(l, "position.x", at: 1.5) == 100)
    }

    @Test func additiveAddsToTheCurrentValue() {
        let l = animatedLayer()
        let a = basic("position.x", from: n(0), to: n(10))
        a.additive = true
        withModelLock { l.addAnimation(a, forKey: "wiggle", now: 0) }
        #expect(presented(l, "position.x", at: 0.5) == 105)
    }

    @Test func cumulativeAcrossThreeRepeats() {
        let l = animatedLayer()
        let a = basic("position.x", from: n(0), to: n(10))
        a.cumulative = true
        a.timing.repeatCount = 3
        a.timing.fillMode = .forwards
        a.removedOnCompletion = false
        withModelLock { l.addAnimation(a, forKey: "a", now: 0) }
        #expect(abs(presented(l, "position.x", at: 0.5)! - 5) < 1e-12)
        #expect(abs(presented(l, "position.x", at: 1.5)! - 15) < 1e-12)
        #expect(abs(presented(l, "position.x", at: 2.5)! - 25) < 1e-12)
        #expect(abs(presented(l, "position.x", at: 4)! - 30) < 1e-12)
    }

    @Test func timingFunctionShapesProgress() {
        let l = animatedLayer()
        let a = basic("position.x", from: n(0), to: n(100))
        a.timingFunction = .easeIn
        withModelLock { l.addAnimation(a, forKey: "a", now: 0) }
        #expect(abs(presented(l, "position.x", at: 0.3)! - 100 * TimingFunction.easeIn.solve(0.3)) < 1e-9)
    }

    @Test func valueFunctionMakesATransform() {
        let l = animatedLayer()
        let a = basic("transform", from: n(0), to: n(.pi / 2))
        a.valueFunction = .rotateZ
        withModelLock { l.addAnimation(a, forKey: "spin", now: 0) }
        let t = withModelLock { l.presentationCopy(now: 0.5).transform }
        #expect(abs(t.m11 - cos(.pi / 4)) < 1e-12 && abs(t.m12 - sin(.pi / 4)) < 1e-12)
        let scale = basic("transform", from: Value(.array([n(1), n(1), n(1)])), to: Value(.array([n(3), n(5), n(1)])))
        scale.valueFunction = .scale
        withModelLock { l.addAnimation(scale, forKey: "spin", now: 0) }
        let s = withModelLock { l.presentationCopy(now: 0.5).transform }
        #expect(s.m11 == 2 && s.m22 == 3 && s.m33 == 1)
    }

    @Test func rotationLongWayAsNumbersShortWayAsMatrices() {
        let degrees350 = 350 * Double.pi / 180
        let l = animatedLayer()
        withModelLock { l.addAnimation(basic("transform.rotation.z", from: n(0), to: n(degrees350)), forKey: "r", now: 0) }
        let viaNumbers = withModelLock { l.presentationCopy(now: 0.5).transform }
        // 175 degrees: the long way round.
        #expect(abs(viaNumbers.m11 - cos(175 * .pi / 180)) < 1e-9 && abs(viaNumbers.m12 - sin(175 * .pi / 180)) < 1e-9)
        let m = animatedLayer()
        withModelLock {
            m.addAnimation(basic("transform", from: Value(.transform3D(.identity)),
                                 to: Value(.transform3D(CATransform3D(rotationAngle: degrees350, x: 0, y: 0, z: 1)))), forKey: "r", now: 0)
        }
        let viaMatrices = withModelLock { m.presentationCopy(now: 0.5).transform }
        // -5 degrees: the short way.
        #expect(abs(viaMatrices.m11 - cos(-5 * .pi / 180)) < 1e-9 && abs(viaMatrices.m12 - sin(-5 * .pi / 180)) < 1e-9)
    }

    @Test func colorsInterpolatePremultiplied() {
        let l = animatedLayer()
        let red = Color(space: .sRGB, components: [1, 0, 0, 1]), clearBlue = Color(space: .sRGB, components: [0, 0, 1, 0])
        withModelLock { l.addAnimation(basic("backgroundColor", from: Value(.color(red)), to: Value(.color(clearBlue))), forKey: "c", now: 0) }
        let c = withModelLock { l.presentationCopy(now: 0.5).backgroundColor }
        // Premultiplied: the transparent end contributes no blue.
        #expect(c?.components == [1, 0, 0, 0.5])
    }

    @Test func decompositionRecomposes() {
        var m = CATransform3D(rotationAngle: 0.7, x: 1, y: 2, z: 3).scaledBy(x: 2, y: -3, z: 0.5).translatedBy(x: 4, y: 5, z: 6)
        m.m34 = -1.0 / 500
        m.m21 += 0.3   // skew
        let d = DecomposedTransform(m)!
        #expect(isNear(d.matrix, m, 1e-9))
        #expect(isNear(CATransform3D.interpolate(m, m, 0.37), m, 1e-9))
        let a = CATransform3D(translationX: 0, y: 0, z: 0), b = CATransform3D(translationX: 10, y: 20, z: 30)
        #expect(isNear(CATransform3D.interpolate(a, b, 0.5), CATransform3D(translationX: 5, y: 10, z: 15), 1e-12))
    }
}

@Suite struct KeyframeAnimationTests {
    func keyframe(_ keyPath: String, _ values: [Value], times: [Double]? = nil, mode: UInt8 = 0) -> Animation {
        let a = Animation(kind: .keyframe)
        a.keyPath = keyPath
        a.values = values
        a.keyTimes = times
        a.calculationMode = mode
        a.timing.duration = 1
        return a
    }

    @Test func linearWithKeyTimes() {
        let l = animatedLayer()
        withModelLock { l.addAnimation(keyframe("position.x", [n(0), n(10), n(30)], times: [0, 0.5, 1]), forKey: "k", now: 0) }
        #expect(abs(presented(l, "position.x", at: 0.25)! - 5) < 1e-12)
        #expect(abs(presented(l, "position.x", at: 0.75)! - 20) < 1e-12)
        // Invalid key times (not ending at 1) are ignored: even spacing.
        let m = animatedLayer()
        withModelLock { m.addAnimation(keyframe("position.x", [n(0), n(10), n(30)], times: [0, 0.9, 0.95]), forKey: "k", now: 0) }
        #expect(abs(presented(m, "position.x", at: 0.75)! - 20) < 1e-12)
    }

    @Test func discreteRules() {
        let values = [n(1), n(2), n(3)]
        func at(_ times: [Double]?, _ t: Double) -> Double? {
            let l = animatedLayer()
            withModelLock { l.addAnimation(keyframe("position.x", values, times: times, mode: 1), forKey: "d", now: 0) }
            return presented(l, "position.x", at: t)
        }
        // Without key times each value holds for a third.
        #expect(at(nil, 0.2) == 1 && at(nil, 0.5) == 2 && at(nil, 0.9) == 3)
        // n + 1 key times: value i from keyTimes[i] to keyTimes[i + 1].
        #expect(at([0, 0.1, 0.9, 1], 0.05) == 1 && at([0, 0.1, 0.9, 1], 0.5) == 2 && at([0, 0.1, 0.9, 1], 0.95) == 3)
        // n key times: the last value holds to the end.
        #expect(at([0, 0.2, 0.4], 0.3) == 2 && at([0, 0.2, 0.4], 0.5) == 3)
    }

    @Test func pacedMovesAtConstantSpeedOnAnLShape() {
        let l = animatedLayer()
        let points = [CGPoint(x: 0, y: 0), CGPoint(x: 100, y: 0), CGPoint(x: 100, y: 50)].map { Value(.point($0)) }
        withModelLock { l.addAnimation(keyframe("position", points, mode: 2), forKey: "p", now: 0) }
        // 150 points of path: a third of the time is 50 points along.
        #expect(abs(presented(l, "position.x", at: 1.0 / 3)! - 50) < 1e-9)
        #expect(abs(presented(l, "position.x", at: 0.8)! - 100) < 1e-9 && abs(presented(l, "position.y", at: 0.8)! - 20) < 1e-9)
        // Linear mode spends half the time on each leg instead.
        let m = animatedLayer()
        withModelLock { m.addAnimation(keyframe("position", points, mode: 0), forKey: "p", now: 0) }
        #expect(abs(presented(m, "position.x", at: 0.25)! - 50) < 1e-9)
    }

    @Test func cubicPassesThroughEveryKeyframe() {
        let l = animatedLayer()
        withModelLock { l.addAnimation(keyframe("position.x", [n(0), n(10), n(0), n(10)], mode: 3), forKey: "c", now: 0) }
        for (t, v) in [(0.0, 0.0), (1.0 / 3, 10.0), (2.0 / 3, 0.0)] {
            #expect(abs(presented(l, "position.x", at: t)! - v) < 1e-9)
        }
        // Between keyframes the curve is smooth: it overshoots past 10 near the first peak.
        #expect(presented(l, "position.x", at: 0.3)! > 9)
    }

    @Test func rotationModeAutoFollowsACircle() {
        let l = animatedLayer()
        let circle = Path(PathData(), mutable: true)
        try? circle.mutate { d throws(PathError) in
            try d.addArc(center: CGPoint(x: 0, y: 0), radius: 50, startAngle: 0, endAngle: 2 * .pi, clockwise: false, transform: nil)
        }
        let a = Animation(kind: .keyframe)
        a.keyPath = "position"
        a.path = circle
        a.calculationMode = 2
        a.rotationMode = 0
        a.timing.duration = 1
        withModelLock { l.addAnimation(a, forKey: "orbit", now: 0) }
        for t in [0.125, 0.25, 0.6] {
            let copy = withModelLock { l.presentationCopy(now: t) }
            let p = copy.position
            let angle = atan2(p.y, p.x)
            // Four Bezier quarters approximate the circle to 0.03% of the radius.
            #expect(abs((p.x * p.x + p.y * p.y).squareRoot() - 50) < 0.02)
            // Counter-clockwise (angles increasing): the tangent is 90 degrees ahead of the radius.
            let rotation = copy.value(forKeyPath: "transform.rotation.z")!.number!
            let diff = remainder(rotation - (angle + .pi / 2), 2 * .pi)
            #expect(abs(diff) < 2e-3, "at \(t)")
        }
    }
}

@Suite struct GroupAndTimingTests {
    @Test func groupsClipTheirChildren() {
        let l = animatedLayer()
        let child = basic("position.x", from: n(0), to: n(100), duration: 2)
        let group = Animation(kind: .group)
        group.animations = [child]
        group.timing.duration = 1
        withModelLock { l.addAnimation(group, forKey: "g", now: 0) }
        #expect(abs(presented(l, "position.x", at: 0.5)! - 25) < 1e-12)
        #expect(abs(presented(l, "position.x", at: 0.99)! - 49.5) < 1e-9)
        #expect(presented(l, "position.x", at: 1.5) == 100)
    }

    @Test func timeNestsThroughThreeLayers() {
        // root speed 2 from begin 1; middle timeOffset 0.5; leaf speed 0.5;
        // the animation is added to the leaf at media time 1.
        let root = Layer(), middle = Layer(), leaf = animatedLayer()
        withModelLock {
            _ = root.addSublayer(middle, function: "test")
            _ = middle.addSublayer(leaf, function: "test")
            root.ensureTiming.beginTime = 1
            root.ensureTiming.speed = 2
            middle.ensureTiming.timeOffset = 0.5
            leaf.ensureTiming.speed = 0.5
        }
        // media 1 -> root 0 -> middle 0.5 -> leaf 0.25: the animation begins at leaf time 0.25.
        withModelLock { leaf.addAnimation(basic("position.x", from: n(0), to: n(10), duration: 1), forKey: "a", now: 1) }
        #expect(withModelLock { leaf.animation(forKey: "a")!.resolvedBeginTime } == 0.25)
        // media 1.5 -> root 1 -> middle 1.5 -> leaf 0.75: 0.5 s into the animation.
        #expect(abs(presented(leaf, "position.x", at: 1.5)! - 5) < 1e-12)
        // Pausing the root (speed 0, timeOffset at its current time) freezes everything.
        withModelLock {
            root.ensureTiming.timeOffset = root.localTime(fromMedia: 1.5)
            root.ensureTiming.beginTime = 0
            root.ensureTiming.speed = 0
        }
        #expect(abs(presented(leaf, "position.x", at: 100)! - 5) < 1e-12)
        // Resuming: speed 1, begin where it was paused.
        withModelLock {
            let paused = root.ensureTiming.timeOffset
            root.ensureTiming.speed = 1
            root.ensureTiming.timeOffset = 0
            root.ensureTiming.beginTime = 100 - paused
        }
        // media 100.5 -> root 1.5 -> middle 2 -> leaf 1: 0.75 s into the animation.
        #expect(abs(presented(leaf, "position.x", at: 100.5)! - 7.5) < 1e-12)
    }

    @Test func fillModesBeforeDuringAndAfter() {
        func at(_ fill: MediaTiming.FillMode, _ t: Double) -> Double? {
            let l = animatedLayer()
            let a = basic("position.x", from: n(0), to: n(10))
            a.timing.beginTime = 2
            a.timing.fillMode = fill
            a.removedOnCompletion = false
            withModelLock { l.addAnimation(a, forKey: "a", now: 0) }
            return presented(l, "position.x", at: t)
        }
        #expect(at(.removed, 1) == 100 && at(.removed, 2.5) == 5 && at(.removed, 4) == 100)
        #expect(at(.backwards, 1) == 0 && at(.backwards, 4) == 100)
        #expect(at(.forwards, 1) == 100 && at(.forwards, 4) == 10)
        #expect(at(.both, 1) == 0 && at(.both, 2.5) == 5 && at(.both, 4) == 10)
    }

    @Test func animationsAreCopiedAndReplaced() {
        let l = animatedLayer()
        let a = basic("position.x", from: n(0), to: n(10))
        withModelLock { l.addAnimation(a, forKey: "a", now: 0) }
        a.toValue = n(1000)      // changing the caller's object changes nothing
        #expect(abs(presented(l, "position.x", at: 0.5)! - 5) < 1e-12)
        withModelLock {
            l.addAnimation(basic("opacity", to: n(0)), forKey: "b", now: 0)
            l.addAnimation(basic("position.x", from: n(0), to: n(20)), forKey: "a", now: 0)
        }
        #expect(withModelLock { l.animationKeys } == ["b", "a"])
        #expect(abs(presented(l, "position.x", at: 0.5)! - 10) < 1e-12)
        withModelLock { l.removeAnimation(forKey: "a", finished: false) }
        #expect(withModelLock { l.animationKeys } == ["b"])
        withModelLock { l.removeAllAnimations() }
        #expect(withModelLock { l.animationList == nil })
    }

    @Test func presentationTreeSupportsHitTestingAndConversion() {
        let root = Layer(), child = Layer()
        withModelLock {
            root.bounds = CGRect(x: 0, y: 0, width: 200, height: 200)
            root.anchorPoint = CGPoint(x: 0, y: 0)
            child.bounds = CGRect(x: 0, y: 0, width: 10, height: 10)
            child.position = CGPoint(x: 20, y: 20)
            _ = root.addSublayer(child, function: "test")
            child.addAnimation(basic("position", from: Value(.point(CGPoint(x: 20, y: 20))), to: Value(.point(CGPoint(x: 120, y: 20)))), forKey: "m", now: 0)
        }
        let presentation = withModelLock { root.presentationCopy(now: 0.5) }
        let hit = withModelLock { presentation.hitTest(CGPoint(x: 70, y: 20)) }
        #expect(hit != nil && hit?.modelLayer === child)
        #expect(withModelLock { root.hitTest(CGPoint(x: 70, y: 20)) } === root)
        #expect(presentation.modelLayer === root)
    }
}

@Suite struct TransitionAndKeyPathAnimationTests {
    @Test func transitionsRunUnderTheirKeyFromASnapshot() {
        let l = animatedLayer()
        let t = Animation(kind: .transition)
        t.timing.duration = 2
        t.startProgress = 0.2
        t.endProgress = 0.6
        withModelLock { l.addAnimation(t, forKey: "whatever", now: 0) }
        #expect(withModelLock { l.animationKeys } == ["transition"])
        withModelLock { l.position = CGPoint(x: 300, y: 0) }
        let state = withModelLock { l.transitionState(now: 1) }
        #expect(abs((state?.progress ?? -1) - 0.4) < 1e-6)   // start/endProgress are floats
        // The snapshot shows the layer as it was when the transition began.
        #expect(state?.snapshot?.position.x == 100)
        #expect(withModelLock { l.transitionState(now: 3) == nil })
    }

    @Test func dictionaryKeyPathsAnimate() {
        let l = animatedLayer()
        withModelLock {
            _ = l.setValue(Value(.number(1)), forKeyPath: "touchPoints.a.scale", function: "test")
            l.addAnimation(basic("touchPoints.a.scale", from: n(0), to: n(2)), forKey: "touchPoints.a.scale", now: 0)
        }
        #expect(abs(presented(l, "touchPoints.a.scale", at: 0.25)! - 0.5) < 1e-12)
        #expect(presented(l, "touchPoints.a.scale", at: 2) == 1)
    }

    @Test func pathsWithTheSameShapeMorph() {
        let a = Path(try! PathData([.moveTo(CGPoint(x: 0, y: 0)), .lineTo(CGPoint(x: 10, y: 0))]), mutable: false)
        let b = Path(try! PathData([.moveTo(CGPoint(x: 0, y: 10)), .lineTo(CGPoint(x: 30, y: 10))]), mutable: false)
        let mid = Value.interpolate(Value(.object(a)), Value(.object(b)), 0.5)
        guard case .object(let o) = mid.storage, let p = o as? Path else { Issue.record("not a path"); return }
        #expect(p.read { $0.points }.map { [$0.x, $0.y] } == [[0, 5], [20, 5]])
        let c = Path(try! PathData([.moveTo(CGPoint(x: 0, y: 0))]), mutable: false)
        #expect(Value.interpolate(Value(.object(a)), Value(.object(c)), 0.4).isEqual(to: Value(.object(a))))
    }
}

@Suite struct AnimationKeyValueCodingTests {
    @Test func declaredKeysOfEverySubclass() {
        let k = CAKeyframeAnimationCreate("position.x")!, t = CATransitionCreate()!, g = CAAnimationGroupCreate()!
        defer { for a in [k, t, g] { CARelease(UnsafeRawPointer(a)) } }
        QZClearLastError()
        func set(_ a: CAAnimationRef, _ key: String, _ v: Value) { CAAnimationSetValueForKey(a, key, borrowedHandle(v)) }
        func get(_ a: CAAnimationRef, _ key: String) -> Value? {
            CAAnimationCopyValueForKey(a, key).map { Unmanaged<Value>.fromOpaque(UnsafeRawPointer($0)).takeRetainedValue() }
        }
        set(k, "calculationMode", Value(string: "discrete"))
        #expect(String(cString: CAKeyframeAnimationGetCalculationMode(k)!) == "discrete")
        #expect(get(k, "calculationMode")?.string == "discrete")
        set(k, "keyTimes", Value(.array([n(0), n(0.5), n(1)])))
        #expect(get(k, "keyTimes")?.count == 3)
        set(k, "tensionValues", Value(.array([n(0.5)])))
        #expect(CAKeyframeAnimationCopyTensionValues(k).map { Unmanaged<Value>.fromOpaque(UnsafeRawPointer($0)).takeRetainedValue().count } == 1)
        set(k, "timingFunctions", Value(.array([Value(.object(TimingFunction.easeIn))])))
        #expect(CAKeyframeAnimationGetTimingFunctionAtIndex(k, 0) == borrowedHandle(TimingFunction.easeIn))
        #expect(QZGetLastError() == QZErrorNone)
        _ = CAKeyframeAnimationGetTimingFunctionAtIndex(k, 1)
        #expect(takeError() == QZErrorOutOfRange)
        set(k, "calculationMode", Value(string: "wobbly"))
        #expect(takeError() == QZErrorUnknownConstant)
        set(t, "type", Value(string: "push"))
        set(t, "subtype", Value(string: "fromTop"))
        set(t, "endProgress", n(0.5))
        #expect(get(t, "type")?.string == "push" && get(t, "subtype")?.string == "fromTop" && get(t, "endProgress")?.number == 0.5)
        #expect(get(g, "animations") == nil)
        #expect(QZGetLastError() == QZErrorNone)
    }

    @Test func presentationOfAPresentationShowsTheSameModel() {
        let l = CALayerCreate()!
        let p = CALayerCopyPresentationLayer(l)!, pp = CALayerCopyPresentationLayer(p)!
        defer { for x in [l, p, pp] { CARelease(UnsafeRawPointer(x)) } }
        #expect(CALayerGetModelLayer(pp) == l && CALayerGetModelLayer(p) == l && CALayerGetModelLayer(l) == l)
    }
}

@Suite struct PresentationOwnershipTests {
    @Test func aSublayersPresentationKeepsItsAncestors() {
        let root = Layer(), child = Layer()
        withModelLock {
            root.bounds = CGRect(x: 0, y: 0, width: 100, height: 100)
            root.position = CGPoint(x: 50, y: 50)
            child.bounds = CGRect(x: 0, y: 0, width: 10, height: 10)
            child.position = CGPoint(x: 20, y: 30)
            _ = root.addSublayer(child, function: "test")
        }
        weak var weakParent: Layer?
        var p: Layer? = withModelLock { child.presentationCopy(now: 0) }
        weakParent = p!.superlayer
        #expect(weakParent != nil && weakParent!.modelLayer === root)
        // Conversions through the copied ancestors match the model's.
        let viaCopy = withModelLock { p!.convert(CGPoint(x: 0, y: 0), to: nil) }
        let viaModel = withModelLock { child.convert(CGPoint(x: 0, y: 0), to: nil) }
        #expect(viaCopy?.x == viaModel?.x && viaCopy?.y == viaModel?.y)
        p = nil
        #expect(weakParent == nil)   // freed with the copy: no cycle
    }
}
