import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics

/// A run-loop timer (Apple's CFRunLoopTimer): fires at `fireDate` on the
/// media clock, then every `interval` seconds if that is positive. A
/// repeating timer stays on its schedule (fireDate + k * interval); firings
/// missed while the loop was busy or asleep are skipped, not queued. A
/// one-shot timer is invalidated after it fires. A timer is in at most one
/// run loop (in any number of its modes), which retains it.
public final class RunLoopTimer: QZObject, Handle {
    @inlinable package static var handleKind: ObjectKind { .runLoopTimer }
    @inlinable package static func accepts(_ tag: UInt32) -> Bool { tag == tagMagic | UInt32(ObjectKind.runLoopTimer.rawValue) }

    public let interval: Double
    /// The C callout's info (set once by CFRunLoopTimerCreate).
    package var info: UnsafeMutableRawPointer?

    // Guarded by runLoopLock.
    package var fireDate: Double
    package var isValid = true
    /// Not retained (the loop retains the timer); cleared by the loop's
    /// deinit; only used under runLoopLock (see DisplayLink.Registration).
    package unowned(unsafe) var runLoop: RunLoop?
    package var modes: Set<String> = []
    package var callback: ((RunLoopTimer) -> Void)?
    package var release: (() -> Void)?

    /// `interval` <= 0 makes a one-shot timer.
    public init(fireDate: Double, interval: Double, callback: @escaping (RunLoopTimer) -> Void) {
        self.fireDate = fireDate
        self.interval = interval > 0 ? interval : 0
        self.callback = callback
        super.init(kind: .runLoopTimer)
    }

    deinit {
        release?()
    }

    public var repeats: Bool { interval > 0 }
    public var valid: Bool { runLoopLock.with { isValid } }

    public var nextFireDate: Double {
        get { runLoopLock.with { fireDate } }
        set {
            runLoopLock.with {
                fireDate = newValue
                runLoop?.wakeUp()
            }
        }
    }

    /// Sets the function that releases the callback's info (run once, when
    /// the timer is invalidated or freed).
    public func setRelease(_ body: (() -> Void)?) {
        runLoopLock.with { release = body }
    }

    /// Removes the timer from its run loop for good and releases its info.
    public func invalidate() {
        let r: (() -> Void)? = runLoopLock.with {
            guard isValid else { return nil }
            isValid = false
            if let loop = runLoop { loop.timers.removeAll { $0 === self } }
            runLoop = nil
            modes = []
            callback = nil
            let r = release
            release = nil
            return r
        }
        r?()
    }

    /// Under runLoopLock: the next scheduled time after `now` for a
    /// repeating timer that fired at `fireDate` (missed firings skipped).
    package func scheduleAfterFiring(now: Double) {
        guard interval > 0 else { return }
        let missed = ((now - fireDate) / interval).rounded(.down)
        var next = fireDate + (missed + 1) * interval
        if !(next > now) { next = now + interval }   // rounding, or a huge gap
        fireDate = next
    }
}

extension RunLoop {
    /// CFRunLoopAddTimer. An invalid timer is ignored (as in Apple's); a
    /// timer already in another run loop is refused (false).
    @discardableResult
    public func add(_ timer: RunLoopTimer, mode: String) -> Bool {
        let ok: Bool = runLoopLock.with {
            guard timer.isValid else { return true }
            if let other = timer.runLoop, other !== self { return false }
            timer.runLoop = self
            timer.modes.insert(mode)
            if !timers.contains(where: { $0 === timer }) { timers.append(timer) }
            return true
        }
        if ok { wakeUp() }
        return ok
    }

    /// CFRunLoopRemoveTimer: leaves `mode`; the loop lets go of the timer
    /// when it is in no mode any more.
    public func remove(_ timer: RunLoopTimer, mode: String) {
        runLoopLock.with {
            guard timer.runLoop === self else { return }
            timer.modes.remove(mode)
            if timer.modes.isEmpty {
                timers.removeAll { $0 === timer }
                timer.runLoop = nil
            }
        }
    }

    /// CFRunLoopContainsTimer.
    public func contains(_ timer: RunLoopTimer, mode: String) -> Bool {
        runLoopLock.with { timer.runLoop === self && timer.isValid && matches(timer.modes, mode) }
    }

    /// CFRunLoopGetNextTimerFireDate: the earliest fire date of the valid
    /// timers of `mode`, or nil.
    public func nextTimerFireDate(mode: String) -> Double? {
        runLoopLock.with {
            timers.filter { $0.isValid && matches($0.modes, mode) }.map(\.fireDate).min()
        }
    }
}
