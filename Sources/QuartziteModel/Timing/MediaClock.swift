import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import Glibc

/// The one clock everything runs on: CLOCK_MONOTONIC seconds, or the host's
/// source installed with QZSetMediaTimeSource (for deterministic tests and
/// offline rendering).
public enum MediaClock {
    public static func now() -> Double { now("CACurrentMediaTime") }

    /// now(), recording a bad time source's error under the C function `function`.
    package static func now(_ function: StaticString) -> Double {
        if let p = pthread_getspecific(threadOverrideKey) { return p.load(as: Double.self) }
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

    /// For tests: a media time that the calling thread sees instead of the
    /// clock (Swift tests run in parallel; QZSetMediaTimeSource is process-wide).
    /// Kept here, in the clock's own thread slot, so timing reads no other domain's state.
    package static var threadOverride: Double? {
        get { pthread_getspecific(threadOverrideKey).map { $0.load(as: Double.self) } }
        set {
            let old = pthread_getspecific(threadOverrideKey)
            guard let newValue else {
                if let old { old.deallocate(); pthread_setspecific(threadOverrideKey, nil) }
                return
            }
            let slot = old ?? UnsafeMutableRawPointer.allocate(byteCount: 8, alignment: 8)
            slot.storeBytes(of: newValue, as: Double.self)
            if old == nil { pthread_setspecific(threadOverrideKey, slot) }
        }
    }

    /// True when the host installed a time source (QZSetMediaTimeSource).
    package static var hasCustomSource: Bool {
        var info: UnsafeMutableRawPointer? = nil
        return qz_internal_get_time_source(&info) != nil
    }
}

/// The per-thread slot of MediaClock.threadOverride (a heap Double, freed with the thread).
private let threadOverrideKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key) { p in p?.deallocate() }
    return key
}()
