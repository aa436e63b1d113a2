import CQuartzite
import QuartziteCore
import Glibc

/// The damped spring of a CASpringAnimation: a mass on a spring with viscous
/// damping, released at the from value with `initialVelocity` towards the to
/// value. Values come from the closed-form solution of
/// m x'' + c x' + k x = 0 (x the remaining displacement, 1 at the start, 0
/// at the target), in each of its three regimes; nothing is integrated step
/// by step, so a frame's value depends only on its time.
public struct Spring: Equatable, Sendable {
    /// Apple's defaults: mass 1, stiffness 100, damping 10, initial velocity 0.
    public var mass: Double = 1
    public var stiffness: Double = 100
    public var damping: Double = 10
    /// In units of the whole distance per second; positive moves towards the
    /// target (Apple's sign).
    public var initialVelocity: Double = 0
    /// Apple's allowsOverdamping (default false): when false, a damping above
    /// critical (ζ > 1) moves as the critically damped spring, as
    /// CASpringAnimation always did (and SwiftUI's Spring does without
    /// allowOverDamping); when true the spring overdamps.
    public var allowsOverdamping = false

    /// Where the response counts as settled: within 0.001 of the distance
    /// (the epsilon Apple documents for SwiftUI's Spring.settlingDuration;
    /// CASpringAnimation documents none).
    public static let settlingEpsilon = 0.001

    public init() {}

    public init(mass: Double, stiffness: Double, damping: Double, initialVelocity: Double) {
        self.mass = mass
        self.stiffness = stiffness
        self.damping = damping
        self.initialVelocity = initialVelocity
    }

    /// Apple's init(perceptualDuration:bounce:) (SwiftUI's Spring(duration:bounce:)
    /// parameters): mass 1, stiffness (2π / duration)², and a damping ratio of
    /// 1 - bounce for bounce ≥ 0 (0: critically damped, towards 1: undamped),
    /// 1 / (1 + bounce) below 0 (overdamped). The caller checks that the
    /// duration is positive and bounce lies in (-1, 1].
    public init(perceptualDuration d: Double, bounce b: Double) {
        mass = 1
        stiffness = (2 * Double.pi / d) * (2 * Double.pi / d)
        damping = b >= 0 ? 4 * Double.pi * (1 - b) / d : 4 * Double.pi / (d * (1 + b))
        initialVelocity = 0
        // A negative bounce asks for an overdamped spring.
        allowsOverdamping = b < 0
    }

    /// The undamped angular frequency √(k/m).
    public var naturalFrequency: Double { (stiffness / mass).squareRoot() }
    /// ζ = c / (2√(km)): below 1 under-damped, 1 critical, above 1 over-damped.
    public var dampingRatio: Double { damping / (2 * (stiffness * mass).squareRoot()) }
    /// The ratio the spring moves with: dampingRatio, at most 1 unless
    /// allowsOverdamping.
    public var effectiveDampingRatio: Double { allowsOverdamping ? dampingRatio : Swift.min(dampingRatio, 1) }

    /// The period of the undamped spring, 2π√(m/k) (what init(perceptualDuration:bounce:) was given).
    public var perceptualDuration: Double { 2 * Double.pi / naturalFrequency }

    /// The bounce that gives this spring's damping ratio (the inverse of the
    /// initialiser's mapping): 1 - ζ up to critical damping, 1/ζ - 1 beyond.
    public var bounce: Double {
        let z = dampingRatio
        return z <= 1 ? 1 - z : 1 / z - 1
    }

    /// The remaining displacement at `t` seconds (1 at t = 0, 0 at rest).
    public func displacement(at t: Double) -> Double {
        let w0 = naturalFrequency, z = effectiveDampingRatio
        let x0 = 1.0, v0 = -initialVelocity   // dx/dt at 0: towards the target lowers x
        if abs(z - 1) < 1e-9 {
            return exp(-w0 * t) * (x0 + (v0 + w0 * x0) * t)
        } else if z < 1 {
            let wd = w0 * (1 - z * z).squareRoot()
            return exp(-z * w0 * t) * (x0 * cos(wd * t) + (v0 + z * w0 * x0) / wd * sin(wd * t))
        } else {
            let s = w0 * (z * z - 1).squareRoot()
            let r1 = -z * w0 + s, r2 = -z * w0 - s
            let c2 = (v0 - r1 * x0) / (r2 - r1)
            let c1 = x0 - c2
            return c1 * exp(r1 * t) + c2 * exp(r2 * t)
        }
    }

    /// How far from the from value (0) to the to value (1) the spring is at
    /// `t` seconds; it may overshoot 1 (and, with a negative velocity, go below 0).
    public func progress(at t: Double) -> Double { 1 - displacement(at: t) }

    /// The parameters are those the model accepts (finite, mass and
    /// stiffness positive, damping not negative).
    public var isValid: Bool {
        mass.isFinite && stiffness.isFinite && damping.isFinite && initialVelocity.isFinite
            && mass > 0 && stiffness > 0 && damping >= 0
    }

    /// The time after which the displacement stays within `settlingEpsilon`
    /// of the target: the last time it is at the threshold, found on the
    /// closed form (infinity for an undamped spring, 0 when it starts and
    /// stays within the threshold).
    public var settlingDuration: Double {
        guard isValid else { return 0 }
        let eps = Spring.settlingEpsilon
        let w0 = naturalFrequency, z = effectiveDampingRatio
        if damping == 0 { return .infinity }
        // A time after which |x| is surely below eps, from a bound on the
        // solution's envelope: every regime decays at least as fast as
        // exp(-rate t), with an amplitude at most `amp`.
        let v0 = -initialVelocity
        let rate: Double, amp: Double
        if abs(z - 1) < 1e-9 {
            // e^{-w t}(1 + b t) ≤ e^{-w t / 2} · max(1, 2|b|/(e w)).
            rate = w0 / 2
            amp = 1 + 2 * abs(v0 + w0) / (M_E * w0)
        } else if z < 1 {
            let wd = w0 * (1 - z * z).squareRoot()
            rate = z * w0
            amp = (1 + pow((v0 + z * w0) / wd, 2)).squareRoot()
        } else {
            let s = w0 * (z * z - 1).squareRoot()
            let r1 = -z * w0 + s, r2 = -z * w0 - s
            let c2 = (v0 - r1) / (r2 - r1)
            rate = -r1
            amp = abs(1 - c2) + abs(c2)
        }
        let bound = max(0, log(amp / eps) / rate)
        guard bound.isFinite else { return .infinity }
        // Walk back from the bound in steps shorter than any oscillation's
        // half period, to the last sample above the threshold, then bisect
        // the crossing. (At most 65,536 steps: a stiff, barely damped spring
        // oscillates millions of times before its bound, and its envelope
        // decays so slowly that a step covering several periods finds the
        // crossing within that step.)
        let step = max(min(bound / 4096, Double.pi / (8 * w0)), bound / 65_536)
        guard step > 0 else { return 0 }
        var hi = bound
        var lo = hi - step
        while lo > 0 && abs(displacement(at: lo)) < eps {
            hi = lo
            lo -= step
        }
        if lo <= 0 {
            if abs(displacement(at: 0)) < eps { return 0 }
            lo = 0
        }
        for _ in 0..<60 {
            let mid = (lo + hi) / 2
            if abs(displacement(at: mid)) >= eps { lo = mid } else { hi = mid }
        }
        return hi
    }
}

extension Spring {
    /// `spring` with the parameter named `key` ("mass", "stiffness",
    /// "damping", "initialVelocity") set to `value`, or nil after recording
    /// the error when the value is one Apple's header rules out (mass and
    /// stiffness must be greater than 0, damping at least 0) or not finite.
    package static func setting(_ key: String, _ value: Double, on spring: Spring, function: StaticString) -> Spring? {
        guard value.isFinite else {
            recordError(QZErrorNotFinite, function, "\(key) must be finite, got \(value)")
            return nil
        }
        var s = spring
        switch key {
        case "mass", "stiffness":
            guard value > 0 else {
                recordError(QZErrorInvalidArgument, function, "\(key) must be greater than 0, got \(value)")
                return nil
            }
            if key == "mass" { s.mass = value } else { s.stiffness = value }
        case "damping":
            guard value >= 0 else {
                recordError(QZErrorInvalidArgument, function, "damping must be 0 or more, got \(value)")
                return nil
            }
            s.damping = value
        default:
            s.initialVelocity = value
        }
        return s
    }
}
