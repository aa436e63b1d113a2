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

// A layer's plan block (PlanBlock.swift) packs its animations' typed plans
// for presentation. It must present exactly what evaluating each animation
// in turn presents, and follow every change of the list or of an animation.

/// The model layer's state with each of its animations applied in turn by
/// the animation itself (the path the block replaces) at local time `t`.
private func referenceCopy(_ l: Layer, at t: Double) -> Layer {
    withModelLock {
        let c = l.shallowCopy()
        for entry in l.animationList ?? [] { entry.animation.apply(to: c, parentTime: t) }
        return c
    }
}

private func expectSameValues(_ a: Layer, _ b: Layer, _ note: String) {
    #expect(a.position == b.position, "\(note): position")
    #expect(a.anchorPoint == b.anchorPoint, "\(note): anchorPoint")
    #expect(a.bounds == b.bounds, "\(note): bounds")
    #expect(a.opacity == b.opacity, "\(note): opacity")
    #expect(a.zPosition == b.zPosition, "\(note): zPosition")
    #expect(a.transform.isEqual(to: b.transform), "\(note): transform")
    #expect(a.sublayerTransform.isEqual(to: b.sublayerTransform), "\(note): sublayerTransform")
}

/// Adds a copy of `a` at time 0, outside the animation registry (whose
/// lifecycle, run by other tests' run loops at the real media time, would
/// end these animations).
private func add(_ l: Layer, _ a: Animation, _ key: String) {
    l.insertCommitted(a.copy(), forKey: key, now: 0, register: false)
}

private func point(_ x: Double, _ y: Double) -> Value { Value(.point(CGPoint(x: x, y: y))) }

private let tilted = CATransform3D(rotationAngle: 1.3, x: 0.3, y: 0.4, z: 1).concatenating(CATransform3D(scaleX: 1.5, y: 0.75, z: 1))

/// A layer with one animation of every typed kind, added at time 0.
private func everyKindLayer(configure: (Animation) -> Void = { _ in }) -> Layer {
    let l = Layer()
    withModelLock {
        l.position = CGPoint(x: 7, y: 9)
        l.bounds = CGRect(x: 0, y: 0, width: 40, height: 30)
        let animations = [
            ("p", basic("position", from: point(0, 0), to: point(200, 100))),
            ("a", basic("anchorPoint", from: point(0, 0), to: point(1, 0.5))),
            ("o", basic("opacity", from: n(0.25), to: n(1))),
            ("z", basic("zPosition", from: n(-5), to: n(15))),
            ("b", basic("bounds", from: Value(.rect(CGRect(x: 0, y: 0, width: 10, height: 20))),
                        to: Value(.rect(CGRect(x: 5, y: 5, width: 100, height: 60))))),
            ("t", basic("transform", from: Value(.transform3D(.identity)), to: Value(.transform3D(tilted)))),
            ("s", basic("sublayerTransform", from: Value(.transform3D(CATransform3D(translationX: 3, y: 4, z: 0))),
                        to: Value(.transform3D(tilted)))),
        ]
        for (key, a) in animations {
            if key == "p" || key == "t" { a.timingFunction = .easeInEaseOut }
            configure(a)
            add(l, a, key)
        }
    }
    return l
}

@Suite struct PlanBlockTests {
    @Test func theBlockPresentsWhatEachAnimationPresents() {
        let l = everyKindLayer()
        for t in [0.0, 0.1, 0.25, 0.5, 0.8, 0.999] {
            let shown = withModelLock { l.presentationCopy(now: t) }
            expectSameValues(shown, referenceCopy(l, at: t), "t = \(t)")
        }
        // Spot checks by hand: opacity 0.25 -> 1 linear; zPosition -5 -> 15.
        let c = withModelLock { l.presentationCopy(now: 0.5) }
        #expect(c.opacity == 0.625)
        #expect(c.zPosition == 5)
        #expect(c.bounds == CGRect(x: 2.5, y: 2.5, width: 55, height: 40))
        withModelLock {
            let b = l.planBlock!
            #expect(!PlanBlock.header(b).general)
            #expect(PlanBlock.header(b).entryCount == 7)
            #expect(PlanBlock.header(b).setsTransform)
        }
    }

    @Test func outsideOnePlainPassTheAnimationSamplesItsOwnTiming() {
        // Speed 2, 1.5 repeats, autoreverse, fill both, kept after the end.
        let l = everyKindLayer { a in
            a.timing.speed = 2
            a.timing.repeatCount = 1.5
            a.timing.autoreverses = true
            a.timing.beginTime = 0.5
            a.timing.fillMode = .both
            a.removedOnCompletion = false
        }
        for t in [0.0, 0.25, 0.6, 0.9, 1.3, 1.9, 2.5] {
            let shown = withModelLock { l.presentationCopy(now: t) }
            expectSameValues(shown, referenceCopy(l, at: t), "t = \(t)")
        }
        // By hand at t = 0.75: active time (0.75 - 0.5) * 2 = 0.5, forward half.
        #expect(withModelLock { l.presentationCopy(now: 0.75).opacity } == 0.625)
        // At t = 1.25: active 1.5, the backward half of the first cycle: 1 - 0.5.
        #expect(withModelLock { l.presentationCopy(now: 1.25).opacity } == 0.625)
        // Before the beginning (fill backwards): the from value.
        #expect(withModelLock { l.presentationCopy(now: 0.1).opacity } == 0.25)
    }

    @Test func aListWithAGeneralAnimationIsEvaluatedAnimationByAnimation() {
        let l = everyKindLayer()
        withModelLock {
            let k = Animation(kind: .keyframe)
            k.keyPath = "position.x"
            k.values = [n(0), n(50), n(10)]
            k.timing.duration = 1
            add(l, k, "k")
        }
        for t in [0.2, 0.5, 0.7] {
            let shown = withModelLock { l.presentationCopy(now: t) }
            expectSameValues(shown, referenceCopy(l, at: t), "t = \(t)")
        }
        #expect(withModelLock { l.presentationCopy(now: 0.25).position.x } == 25)
        withModelLock { #expect(PlanBlock.header(l.planBlock!).general) }
    }

    @Test func changingTheListDropsTheBlock() {
        let l = everyKindLayer()
        _ = withModelLock { l.presentationCopy(now: 0.5) }
        withModelLock { #expect(l.planBlock != nil) }
        withModelLock { l.removeAnimation(forKey: "o", finished: false) }
        withModelLock { #expect(l.planBlock == nil) }
        #expect(withModelLock { l.presentationCopy(now: 0.5).opacity } == 1)   // the model's
        withModelLock { add(l, basic("opacity", from: n(0), to: n(0.5)), "o2") }
        withModelLock { #expect(l.planBlock == nil) }
        #expect(withModelLock { l.presentationCopy(now: 0.5).opacity } == 0.25)
        withModelLock {
            #expect(l.animationList?.count == 7)
            #expect(PlanBlock.header(l.planBlock!).entryCount == 7)
        }
    }

    @Test func changingAnAnimationInTheListMakesTheBlockAgain() {
        let l = everyKindLayer()
        #expect(withModelLock { l.presentationCopy(now: 0.5).zPosition } == 5)
        let before = withModelLock { l.planBlock }
        let a = withModelLock { l.animation(forKey: "z")! }
        withModelLock { a.toValue = n(25) }   // through the layer's own copy
        #expect(withModelLock { l.presentationCopy(now: 0.5).zPosition } == 10)
        withModelLock { a.timing.duration = 2 }
        #expect(withModelLock { l.presentationCopy(now: 0.5).zPosition } == 2.5)
        withModelLock { a.timingFunction = .easeIn }
        let eased = -5 + 30 * TimingFunction.easeIn.solve(0.25)
        #expect(withModelLock { l.presentationCopy(now: 0.5).zPosition } == eased)
        // An animation that no longer has a typed plan: the general path.
        withModelLock { a.additive = true }
        #expect(withModelLock { l.presentationCopy(now: 0.5).zPosition } == eased)   // onto the model's 0
        withModelLock {
            #expect(l.planBlock != before || PlanBlock.header(l.planBlock!).general)
            #expect(PlanBlock.header(l.planBlock!).general)
        }
    }

    @Test func theLifecycleKeepsTheBlockUntilAnAnimationEnds() {
        let l = everyKindLayer()
        _ = withModelLock { l.presentationCopy(now: 0.5) }
        let block = withModelLock { l.planBlock }
        withModelLock { l.updateAnimationLifecycle(now: 0.6) }
        withModelLock { #expect(l.planBlock == block) }
        withModelLock { l.updateAnimationLifecycle(now: 1.5) }   // all ended, removed on completion
        withModelLock {
            #expect(l.animationList == nil)
            #expect(l.planBlock == nil)
        }
        #expect(withModelLock { l.presentationCopy(now: 1.5).opacity } == 1)
    }

    @Test func aTreeOfLayersUsesOneBlockEachAndReusedCopiesStayExact() {
        let root = Layer()
        var children: [Layer] = []
        withModelLock {
            for i in 0..<40 {
                let c = Layer()
                _ = root.addSublayer(c, function: "test")
                add(c, basic("position", from: point(Double(i), 0), to: point(Double(i) + 100, 50)), "p")
                add(c, basic("transform", from: Value(.transform3D(.identity)), to: Value(.transform3D(tilted))), "t")
                children.append(c)
            }
        }
        for t in [0.125, 0.375, 0.625] {   // later frames overwrite the released copies
            let shown = withModelLock { root.presentationCopy(now: t) }
            for (i, c) in children.enumerated() {
                expectSameValues(shown.sublayers[i], referenceCopy(c, at: t), "layer \(i), t = \(t)")
            }
        }
        withModelLock { #expect(children.allSatisfy { $0.planBlock != nil }) }
    }

    @Test func aReusedCopyShowsTheModelTransformBeforeItsAnimationBegins() {
        // The walk skips taking the model's transform when a transform plan
        // replaces it; before the animation begins (fill removed) it must take it.
        let root = Layer(), child = Layer()
        let model = CATransform3D(scaleX: 3, y: 2, z: 1)
        withModelLock {
            _ = root.addSublayer(child, function: "test")
            TransformBox.store(model, in: &child.transformBox)
            let a = basic("transform", from: Value(.transform3D(.identity)), to: Value(.transform3D(tilted)))
            a.timing.beginTime = 1
            add(child, a, "t")
        }
        for t in [0.5, 1.5, 0.25, 2.5] {   // reused copies in between
            // (Released inside the lock: the next frame overwrites the copies.)
            let shown = withModelLock { root.presentationCopy(now: t).sublayers[0].transform }
            let expected = t >= 1 && t < 2 ? referenceCopy(child, at: t).transform : model
            #expect(shown.isEqual(to: expected), "t = \(t)")
        }
    }
}
