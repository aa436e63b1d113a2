import CQuartzite
import Glibc
import Testing
@testable import QuartziteCore
@testable import QuartziteGeometry
@testable import QuartziteModel
@testable import Quartzite

/// The damped spring m x'' + c x' + k x = 0, x(0) = 1, x'(0) = -v0, solved
/// here independently of the engine: from the roots of m r² + c r + k = 0
/// (complex for an under-damped spring), x = A e^{r1 t} + B e^{r2 t}; the
/// critical case (a double root) as (1 + (r v...) t) e^{r t}.
func referenceDisplacement(mass m: Double, stiffness k: Double, damping c: Double, velocity v: Double, at t: Double) -> Double {
    let disc = c * c - 4 * m * k
    let x0 = 1.0, dx0 = -v
    if disc == 0 {
        let r = -c / (2 * m)
        return (x0 + (dx0 - r * x0) * t) * exp(r * t)
    }
    if disc > 0 {
        let r1 = (-c + disc.squareRoot()) / (2 * m), r2 = (-c - disc.squareRoot()) / (2 * m)
        let a = (dx0 - r2 * x0) / (r1 - r2), b = (r1 * x0 - dx0) / (r1 - r2)
        return a * exp(r1 * t) + b * exp(r2 * t)
    }
    // r = α ± iβ; A and B are conjugates: x = 2 Re(A e^{(α + iβ) t}).
    let alpha = -c / (2 * m), beta = (-disc).squareRoot() / (2 * m)
    // A = (dx0 - r2 x0) / (r1 - r2) with r1 - r2 = 2iβ, r2 = α - iβ.
    let numRe = dx0 - alpha * x0, numIm = beta * x0
    let aRe = numIm / (2 * beta), aIm = -numRe / (2 * beta)   // (numRe + i numIm) / (2iβ)
    let e = exp(alpha * t)
    return 2 * e * (aRe * cos(beta * t) - aIm * sin(beta * t))
}

/// Adds `a` (from 0 to 1 on position.x, added at time 0) to a fresh layer.
func springLayer(_ a: Animation) -> Layer {
    let l = animatedLayer()
    a.keyPath = "position.x"
    a.fromValue = n(0)
    a.toValue = n(1)
    withModelLock { l.addAnimation(a, forKey: "spring", now: 0) }
    return l
}

@Suite struct SpringAnimationTests {
    /// (mass, stiffness, damping, initial velocity): two under-damped, two
    /// critically damped (c² = 4mk), two over-damped springs.
    static let springs: [(String, Double, Double, Double, Double)] = [
        ("under-damped (Apple's defaults)", 1, 100, 10, 0),
        ("under-damped, heavy, moving", 2, 50, 4, 3),
        ("critically damped", 1, 100, 20, 0),
        ("critically damped, moving away", 4, 25, 20, -2),
        ("over-damped", 1, 100, 50, 0),
        ("over-damped, moving", 0.5, 200, 60, 5),
    ]

    @Test(arguments: springs)
    func presentationFollowsTheClosedForm(_ name: String, _ m: Double, _ k: Double, _ c: Double, _ v: Double) {
        let a = Animation(kind: .spring)
        a.spring = Spring(mass: m, stiffness: k, damping: c, initialVelocity: v)
        a.spring.allowsOverdamping = true
        a.timing.duration = 5
        let l = springLayer(a)
        for t in [0.0, 0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 0.8, 1.3, 2.1, 4.9] {
            let expected = 1 - referenceDisplacement(mass: m, stiffness: k, damping: c, velocity: v, at: t)
            let got = presented(l, "position.x", at: t)!
            #expect(abs(got - expected) < 1e-6, "\(name) at \(t): \(got) vs \(expected)")
        }
        // Past the duration (fill removed) the model value shows again.
        #expect(presented(l, "position.x", at: 5.5) == 100)
    }

    @Test func underDampedOvershootsAndOverDampedDoesNot() {
        let under = Spring(mass: 1, stiffness: 100, damping: 4, initialVelocity: 0)
        let over = Spring(mass: 1, stiffness: 100, damping: 40, initialVelocity: 0)
        let times = stride(from: 0.0, through: 3, by: 0.01)
        #expect(times.map(under.progress(at:)).max()! > 1.5)
        #expect(times.map(over.progress(at:)).allSatisfy { $0 >= 0 && $0 < 1 })
    }

    @Test(arguments: springs)
    func settlingDurationIsWhenTheResponseStaysWithinTheThreshold(_ name: String, _ m: Double, _ k: Double, _ c: Double, _ v: Double) {
        var spring = Spring(mass: m, stiffness: k, damping: c, initialVelocity: v)
        spring.allowsOverdamping = true
        let s = spring.settlingDuration
        let eps = 0.001
        #expect(s > 0 && s.isFinite, "\(name)")
        // At the settling time the response is at the threshold...
        let x = referenceDisplacement(mass: m, stiffness: k, damping: c, velocity: v, at: s)
        #expect(abs(abs(x) - eps) < 1e-9, "\(name): |x(\(s))| = \(abs(x))")
        // ... and stays within it afterwards (sampled densely for 20 s).
        for i in 1...20_000 {
            let t = s + Double(i) * 0.001
            #expect(abs(referenceDisplacement(mass: m, stiffness: k, damping: c, velocity: v, at: t)) <= eps, "\(name) at \(t)")
        }
    }

    @Test func aStiffBarelyDampedSpringSettlesInBoundedTime() {
        // Found by the stateful fuzzer (seed 445): stiffness 1e38 made the
        // walk back from the envelope's bound take ~10^20 steps of an
        // eighth of a period. The answer stays between the last time the
        // response is at the threshold (sampled) and the envelope's bound.
        let spring = Spring(mass: 1, stiffness: 1e38, damping: 0.5, initialVelocity: 0)
        let s = spring.settlingDuration
        #expect(s.isFinite && s > 0)
        // The envelope e^{-z w0 t} (amplitude ~1) is at 0.001 near ln(1000) / (c / 2m).
        let envelope = log(1000.0) / (0.5 / 2)
        #expect(abs(s - envelope) / envelope < 0.01)
    }

    @Test func settlingDurationMatchesAppleDocumentedExamples() {
        // Apple: damping 5 settles in "approximately 2.85 seconds", damping 15
        // in "just over 1 second" (mass 1, stiffness 100). Apple does not
        // document its threshold; with 0.001 of the distance ours are 2.69 s
        // and 0.80 s (docs/differences-from-apple.md).
        let soft = Spring(mass: 1, stiffness: 100, damping: 5, initialVelocity: 0).settlingDuration
        let firm = Spring(mass: 1, stiffness: 100, damping: 15, initialVelocity: 0).settlingDuration
        #expect(abs(soft - 2.688) < 0.001, "\(soft)")
        #expect(abs(firm - 0.800) < 0.001, "\(firm)")
        #expect(soft > 2.85 - 0.2 && firm > 1.0 - 0.25)
        #expect(Spring(mass: 1, stiffness: 100, damping: 0, initialVelocity: 0).settlingDuration == .infinity)
    }

    /// allowsOverdamping is false by default (Apple's): a damping above
    /// critical moves as the critically damped spring of the same mass and
    /// stiffness; set, it overdamps. A negative bounce sets it.
    @Test func overdampingNeedsAllowsOverdamping() {
        var over = Spring(mass: 1, stiffness: 100, damping: 50, initialVelocity: 2)
        #expect(!over.allowsOverdamping)
        for t in [0.05, 0.2, 0.6, 1.5] {
            let critical = 1 - referenceDisplacement(mass: 1, stiffness: 100, damping: 20, velocity: 2, at: t)
            #expect(abs(over.progress(at: t) - critical) < 1e-9, "at \(t)")
        }
        let criticalSettling = Spring(mass: 1, stiffness: 100, damping: 20, initialVelocity: 2).settlingDuration
        #expect(abs(over.settlingDuration - criticalSettling) < 1e-9)
        over.allowsOverdamping = true
        for t in [0.05, 0.2, 0.6, 1.5] {
            let overdamped = 1 - referenceDisplacement(mass: 1, stiffness: 100, damping: 50, velocity: 2, at: t)
            #expect(abs(over.progress(at: t) - overdamped) < 1e-9, "at \(t)")
        }
        #expect(over.settlingDuration > criticalSettling)
        #expect(Spring(perceptualDuration: 1, bounce: -0.5).allowsOverdamping)
        #expect(!Spring(perceptualDuration: 1, bounce: 0.2).allowsOverdamping)
        // Through the C API and key-value coding.
        let a = CASpringAnimationCreate("opacity")!
        #expect(CASpringAnimationGetAllowsOverdamping(a) == false)
        CASpringAnimationSetAllowsOverdamping(a, true)
        #expect(CASpringAnimationGetAllowsOverdamping(a))
        CARelease(UnsafeRawPointer(a))
    }

    @Test func perceptualDurationAndBounce() {
        // Bounce 0 is critically damped; the parameters read back.
        let critical = Spring(perceptualDuration: 0.5, bounce: 0)
        #expect(abs(critical.stiffness - pow(2 * Double.pi / 0.5, 2)) < 1e-9)
        #expect(abs(critical.dampingRatio - 1) < 1e-12)
        for b in [-0.5, -0.2, 0, 0.3, 0.8] {
            let s = Spring(perceptualDuration: 0.75, bounce: b)
            #expect(abs(s.perceptualDuration - 0.75) < 1e-12)
            #expect(abs(s.bounce - b) < 1e-12, "bounce \(b)")
            #expect(s.mass == 1)
        }
        #expect(abs(Spring(perceptualDuration: 1, bounce: 0.3).dampingRatio - 0.7) < 1e-12)
        #expect(abs(Spring(perceptualDuration: 1, bounce: -0.5).dampingRatio - 2) < 1e-12)
    }

    @Test func copiesKeepTheSpringAndTheKind() {
        let a = Animation(kind: .spring)
        a.spring = Spring(mass: 3, stiffness: 7, damping: 2, initialVelocity: -1)
        let c = a.copy()
        #expect(c.animationKind == .spring)
        #expect(c.spring == a.spring)
        #expect(c.value(forKey: "mass")?.number == 3)
        #expect(c.value(forKey: "settlingDuration")?.number == a.spring.settlingDuration)
    }

    @Test func keyValueCodingValidatesParameters() {
        let a = Animation(kind: .spring)
        withModelLock {
            #expect(a.setValue(n(2), forKey: "stiffness", function: "test"))
            #expect(a.spring.stiffness == 2)
            #expect(!a.setValue(n(0), forKey: "mass", function: "test"))
            #expect(!a.setValue(n(-1), forKey: "damping", function: "test"))
            #expect(!a.setValue(n(.nan), forKey: "initialVelocity", function: "test"))
            #expect(!a.setValue(n(1), forKey: "settlingDuration", function: "test"))
        }
        #expect(a.spring.mass == 1 && a.spring.damping == 10 && a.spring.initialVelocity == 0)
        // A plain basic animation has no spring keys: they are custom keys there.
        let b = Animation(kind: .basic)
        #expect(b.value(forKey: "mass") == nil)
    }
}
