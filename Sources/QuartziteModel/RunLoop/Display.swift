import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics

/// The display the links follow: a refresh rate (60 Hz unless
/// QZDisplaySetRefreshRate says otherwise) and its frame grid. Frame k is
/// shown at media time k / rate exactly, so frame times never drift however
/// long the loop runs.
public enum Display {
    /// Guarded by runLoopLock.
    package nonisolated(unsafe) static var rate = 60.0

    public static var refreshRate: Double {
        get { runLoopLock.with { rate } }
        set {
            runLoopLock.with { rate = newValue }
            runLoopWakeAllSleeping()
        }
    }
}

/// Frame arithmetic on the grid k / rate.
package struct FrameGrid {
    package let rate: Double

    /// The largest valid index; keeps conversions from overflowing.
    package static let limit: Int64 = 1 << 52

    /// The frame being shown at `time`: floor(time * rate), forgiving a
    /// rounding error of 1e-7 frame (so that k / rate maps back to k).
    package func index(at time: Double) -> Int64 {
        let x = (time * rate + 1e-7).rounded(.down)
        guard x.isFinite else { return x < 0 ? -Self.limit : Self.limit }
        if x >= Double(Self.limit) { return Self.limit }
        if x <= -Double(Self.limit) { return -Self.limit }
        return Int64(x)
    }

    package func time(of index: Int64) -> Double { Double(index) / rate }

    /// The last frame at or before `index` on the every-`interval` grid.
    package static func floorMultiple(_ index: Int64, _ interval: Int64) -> Int64 {
        let r = index % interval
        return index - (r < 0 ? r + interval : r)
    }
}
