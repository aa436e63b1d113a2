import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics

/// The one clock everything runs on: CLOCK_MONOTONIC seconds, or the host's
/// source installed with QZSetMediaTimeSource (for deterministic tests and
/// offline rendering).
public enum MediaClock {
    public static func now() -> Double { now("CACurrentMediaTime") }

    /// now(), recording a bad time source's error under the C function `function`.
    package static func now(_ function: StaticString) -> Double {
        if let t = ThreadTransactions.existing?.fixedTime { return t }
        var info: UnsafeMutableRawPointer? = nil
        guard let source = qz_internal_get_time_source(&info) else {
            return qz_internal_monotonic_seconds()
        }
        let t = source(info)
        if !t.isFinite {
            recordError(QZErrorNotFinite, function, "the media time source returned \(t); using the monotonic clock")
            return qz_internal_monotonic_seconds()
        }
        return t
    }

    /// True when the host installed a time source (QZSetMediaTimeSource).
    package static var hasCustomSource: Bool {
        var info: UnsafeMutableRawPointer? = nil
        return qz_internal_get_time_source(&info) != nil
    }
}
