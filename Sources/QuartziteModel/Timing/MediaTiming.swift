import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
/// The CAMediaTiming model of one timed object (an animation, or a layer's
/// time space): how a parent time maps to a position in the object's cycle.
///
/// - Local time runs from the begin time at `speed`: (t - beginTime) * speed.
/// - The active interval lasts `repeatDuration` if set, else `repeatCount`
///   cycles (fractional counts allowed; at least one), where a cycle is
///   `duration`, doubled when `autoreverses` (a forward-and-back cycle).
/// - `timeOffset` shifts the position within the active interval, wrapping
///   around its end.
/// - Outside the active interval the object shows its first (before, with
///   fill backwards) or last (after, with fill forwards) state, or nothing.
public struct MediaTiming: Sendable {
    public enum FillMode: UInt8, Sendable {
        case removed, forwards, backwards, both, frozen
    }

    public var beginTime = 0.0
    public var duration = 0.0
    public var speed: Float = 1
    public var timeOffset = 0.0
    public var repeatCount: Float = 0
    public var repeatDuration = 0.0
    public var autoreverses = false
    public var fillMode = FillMode.removed

    public init() {}

    public enum Phase: Sendable { case before, active, after }

    /// Where the object is at a moment.
    public struct Sample: Equatable, Sendable {
        public var phase: Phase
        /// Progress through the current cycle's forward or backward half, 0...1
        /// (already reversed on the way back).
        public var progress: Double
        /// Completed repeats before this one (for cumulative animations).
        public var iteration: Int
    }

    /// The length of one pass through the duration (the forward half of a cycle).
    @inline(__always)
    package func simpleDuration(_ fallback: Double) -> Double { duration > 0 ? duration : fallback }

    /// The length of the active interval for a simple duration `d`.
    public func activeDuration(_ d: Double) -> Double {
        let cycle = autoreverses ? 2 * d : d
        if repeatDuration > 0 { return repeatDuration }
        if repeatCount > 0 { return cycle * Double(repeatCount) }
        return cycle
    }

    /// The sample at `parentTime`, or nil when the object has no effect then
    /// (outside its active interval without the matching fill). `fallback` is
    /// the duration used when `duration` is 0 or less.
    @inline(__always)
    public func sample(at parentTime: Double, fallbackDuration fallback: Double = 0.25) -> Sample? {
        let d = simpleDuration(fallback)
        guard d > 0, d.isFinite else { return nil }
        let active = (parentTime - beginTime) * Double(speed)
        let total = activeDuration(d)
        let fillsBackwards = fillMode == .backwards || fillMode == .both || fillMode == .frozen
        let fillsForwards = fillMode == .forwards || fillMode == .both || fillMode == .frozen

        let phase: Phase
        var t: Double
        if active < 0 {
            guard fillsBackwards else { return nil }
            phase = .before
            t = wrap(timeOffset, total)
        } else if active >= total {
            guard fillsForwards else { return nil }
            phase = .after
            // The state at the end of the active interval: where the offset
            // wrapped round to, or the very end when there is no offset.
            t = wrap(timeOffset, total)
            if t == 0 { t = total }
        } else {
            phase = .active
            t = wrap(active + timeOffset, total)
        }
        return position(t, d: d, total: total, phase: phase)
    }

    /// The object's time as a time space (a layer's, in which its animations
    /// and sublayers run) at `parentTime`: the position in its current pass
    /// through `duration`, 0...duration, running backwards on the way back
    /// when it autoreverses, with its phase; nil when it has no time then
    /// (outside its active interval without the matching fill). The same
    /// model as `sample`: a cycle, repeats, autoreverse, fill modes. With
    /// an infinite (or non-positive) duration there is no cycle: the time is
    /// (t - beginTime) * speed + timeOffset inside the active interval
    /// (endless unless repeatDuration limits it).
    public func spaceTime(at parentTime: Double) -> (time: Double, phase: Phase)? {
        let d = duration
        if d > 0 && d.isFinite {
            guard let s = sample(at: parentTime, fallbackDuration: d) else { return nil }
            return (s.progress * d, s.phase)
        }
        let active = (parentTime - beginTime) * Double(speed)
        let total = repeatDuration > 0 ? repeatDuration : Double.infinity
        if active < 0 {
            guard fillMode == .backwards || fillMode == .both || fillMode == .frozen else { return nil }
            return (timeOffset, .before)
        }
        if active >= total {
            guard fillMode == .forwards || fillMode == .both || fillMode == .frozen else { return nil }
            return (total + timeOffset, .after)
        }
        return (active + timeOffset, .active)
    }

    /// x modulo `total` into [0, total) (no wrapping for an endless interval).
    @inline(__always)
    private func wrap(_ x: Double, _ total: Double) -> Double {
        guard total.isFinite, total > 0 else { return Swift.max(x, 0) }
        // fmod is exact: inside [0, total) it returns x itself.
        if x >= 0 && x < total { return x }
        let r = x.truncatingRemainder(dividingBy: total)
        return r < 0 ? r + total : r
    }

    private func position(_ t: Double, d: Double, total: Double, phase: Phase) -> Sample {
        let cycle = autoreverses ? 2 * d : d
        var iteration: Double
        if t >= total, total.isFinite {
            // At the very end: the last cycle, at its end (not the next one's start).
            iteration = (total / cycle).rounded(.up) - 1
        } else {
            iteration = (t / cycle).rounded(.down)
        }
        iteration = Swift.max(iteration, 0)
        var within = t - iteration * cycle
        if within > cycle { within = cycle }
        var progress: Double
        if autoreverses && within > d {
            progress = (cycle - within) / d
        } else {
            progress = Swift.min(within / d, 1)
        }
        if progress < 0 { progress = 0 }
        let count = saturatingInt(iteration)
        return Sample(phase: phase, progress: progress, iteration: count)
    }
}
