import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel
import QuartziteRender

// CFRunLoop with Apple's C names: modes, timers, stop and wake-up, performs
// on a run loop, and QZRunLoopRunOnce / a pollable descriptor for hosts with
// their own event loop. Each turn of a thread's run loop commits that thread's
// implicit transaction and runs the completions owed to it.
//
// Threads: every thread has at most one run loop (CFRunLoopGetCurrent makes it);
// only its own thread runs it. Adding and removing timers, stopping, waking and
// queueing performs work from any thread. Callbacks (timers, performs) run on
// the run loop's thread and may call back into the library.

// MARK: - Argument checks

/// A mode argument: non-NULL and not empty.
func requireMode(_ mode: UnsafePointer<CChar>?, _ function: StaticString) -> String? {
    guard let name = requireString(mode, "mode", function) else { return nil }
    guard !name.isEmpty else {
        recordError(QZErrorInvalidArgument, function, "mode is an empty string")
        return nil
    }
    return name
}

/// The calling thread's run loop, or nil (with an error) when none can be made.
func currentRunLoop(_ function: StaticString) -> RunLoop? {
    guard let loop = RunLoopRegistry.current() else {
        recordError(QZErrorOutOfMemory, function, "the kernel refused the run loop's descriptors (eventfd, timerfd, epoll)")
        return nil
    }
    return loop
}

// MARK: - Run loops

/// Returns the calling thread's run loop, made on first use. Borrowed (+0):
/// it lives as long as its thread; CARetain it to keep it longer. NULL (with
/// QZErrorOutOfMemory) only when the kernel refuses its descriptors.
/// Thread safety: any thread.
@c public func CFRunLoopGetCurrent() -> QZCFRunLoopRef? {
    currentRunLoop(#function).map { borrowedHandle($0) }
}

/// Returns the main run loop: the run loop of the process's main thread (the
/// thread whose id is the process id), whichever thread asks. Borrowed (+0);
/// it lives for the life of the process. Only the main thread can run it.
@c public func CFRunLoopGetMain() -> QZCFRunLoopRef? {
    guard let loop = RunLoopRegistry.main() else {
        recordError(QZErrorOutOfMemory, #function, "the kernel refused the run loop's descriptors (eventfd, timerfd, epoll)")
        return nil
    }
    return borrowedHandle(loop)
}

/// Runs the calling thread's run loop in kCFRunLoopDefaultMode until it is
/// stopped (CFRunLoopStop) or has nothing left to run (no timer, display
/// link, queued perform or transaction work). Callbacks run on this thread.
@c public func CFRunLoopRun() {
    guard let loop = currentRunLoop(#function) else { return }
    while true {
        let r = loop.run(mode: RunLoopMode.defaultMode, seconds: 1.0e10, returnAfterSourceHandled: false)
        if r == .stopped || r == .finished { return }
    }
}

/// Runs the calling thread's run loop in `mode` (any name except
/// kCFRunLoopCommonModes, which is a set of modes and cannot be run) for up
/// to `seconds` seconds of media time (<= 0: one turn without waiting;
/// infinity: until another reason) and returns why it stopped:
/// kCFRunLoopRunFinished (nothing in the mode to run), kCFRunLoopRunStopped
/// (CFRunLoopStop), kCFRunLoopRunTimedOut, or kCFRunLoopRunHandledSource
/// (`returnAfterSourceHandled` and a perform or display-link callback ran;
/// timers do not count, as in Apple's run loop).
///
/// Each turn runs the performs queued for the mode, then the due timers,
/// then the due display links, then finishes the turn for transactions
/// (commits this thread's implicit transaction, runs completions). Every
/// callback runs on the calling thread and may call back into the library,
/// including a nested CFRunLoopRunInMode.
///
/// **Time**: with the real media clock the loop sleeps until its next
/// deadline or a wake-up. With a source installed by QZSetMediaTimeSource it
/// never sleeps in real time: instead of waiting it asks the source again,
/// so the source must advance by itself (e.g. by a small step per call, as
/// deterministic tests do: running for 1 simulated second at 60 Hz then
/// takes no real time); while the source returns the same time, each wait
/// yields for at most 1 ms of real time so another thread can advance it.
///
/// **Errors** (recorded; the result is kCFRunLoopRunFinished): NULL or empty
/// mode, kCFRunLoopCommonModes, NaN seconds.
@c public func CFRunLoopRunInMode(_ mode: UnsafePointer<CChar>?, _ seconds: CFTimeInterval,
                                   _ returnAfterSourceHandled: Bool) -> CFRunLoopRunResult {
    let finished = CFRunLoopRunResult(kCFRunLoopRunFinished)
    guard let name = requireMode(mode, #function) else { return finished }
    guard name != RunLoopMode.commonModes else {
        recordError(QZErrorInvalidArgument, #function, "kCFRunLoopCommonModes is a set of modes and cannot be run; run one of them")
        return finished
    }
    guard !seconds.isNaN else {
        recordError(QZErrorNotFinite, #function, "seconds is NaN")
        return finished
    }
    guard let loop = currentRunLoop(#function) else { return finished }
    return loop.run(mode: name, seconds: seconds, returnAfterSourceHandled: returnAfterSourceHandled).rawValue
}

/// Makes the innermost CFRunLoopRunInMode of `rl` return
/// kCFRunLoopRunStopped after its current turn. Does nothing when `rl` is not
/// running. Thread safety: any thread (wakes the loop).
@c public func CFRunLoopStop(_ rl: QZCFRunLoopRef?) {
    object(rl, as: RunLoop.self)?.stop()
}

/// Wakes `rl` if it is waiting, so that it runs a turn and looks at its
/// deadlines again; makes its file descriptor readable. Any thread.
@c public func CFRunLoopWakeUp(_ rl: QZCFRunLoopRef?) {
    object(rl, as: RunLoop.self)?.wakeUp()
}

/// True while `rl` is blocked waiting for work. Any thread.
@c public func CFRunLoopIsWaiting(_ rl: QZCFRunLoopRef?) -> Bool {
    withObject(rl, as: RunLoop.self, fallback: false) { $0.waiting }
}

/// Adds `mode` to the common modes of `rl` (items added for
/// kCFRunLoopCommonModes then run in it too). Any thread.
@c public func CFRunLoopAddCommonMode(_ rl: QZCFRunLoopRef?, _ mode: UnsafePointer<CChar>?) {
    guard let loop = object(rl, as: RunLoop.self), let name = requireMode(mode, #function) else { return }
    guard name != RunLoopMode.commonModes else {
        recordError(QZErrorInvalidArgument, #function, "kCFRunLoopCommonModes cannot be one of the common modes")
        return
    }
    loop.addCommonMode(name)
}

/// Queues `fn(info)` to run once on the thread of `rl`, during a turn of
/// `mode` (kCFRunLoopCommonModes: any common mode), after the performs
/// queued before it (Apple's CFRunLoopPerformBlock, with a C function), and
/// wakes the loop. A perform counts as a handled source. A perform still
/// queued when its thread exits is dropped without being called.
/// Thread safety: any thread.
@c public func QZRunLoopPerformFunction(_ rl: QZCFRunLoopRef?, _ mode: UnsafePointer<CChar>?,
                                        _ fn: QZRunLoopPerformCallback?, _ info: UnsafeMutableRawPointer?) {
    guard let loop = object(rl, as: RunLoop.self), let name = requireMode(mode, #function) else { return }
    guard let fn else {
        recordError(QZErrorNullArgument, #function, "fn is NULL")
        return
    }
    loop.perform(mode: name) { fn(info) }
}

/// A file descriptor a host event loop can poll (POLLIN / EPOLLIN) instead of
/// running `rl` itself: it becomes readable when the loop has work (a
/// perform, a wake-up, CFRunLoopStop, a timer or display link added, and,
/// with the real media clock, the next timer or frame time found at the end
/// of the last turn). When it is readable, call QZRunLoopRunOnce on the
/// loop's thread; it consumes the readiness and re-arms the descriptor. With
/// a custom media time source, time-based readiness is not signalled (media
/// time has no relation to the kernel's clock): call QZRunLoopRunOnce after
/// advancing the source. Owned by the run loop: do not close or read it.
/// -1 with an error for a bad handle.
@c public func QZRunLoopGetFileDescriptor(_ rl: QZCFRunLoopRef?) -> Int32 {
    withObject(rl, as: RunLoop.self, fallback: -1) { $0.fileDescriptor }
}

/// One turn of a run loop in kCFRunLoopDefaultMode without waiting (for hosts
/// with their own event loop): performs, due timers and display links, the
/// transactions' end of turn; then arms the file descriptor for the next
/// work. `rl` NULL means the calling thread's loop; another thread's loop is
/// refused (QZErrorInvalidState). Returns what
/// CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0, false) returns
/// (kCFRunLoopRunTimedOut after a turn, kCFRunLoopRunFinished when there was
/// nothing to run, kCFRunLoopRunStopped). Callbacks run on the calling thread.
@c public func QZRunLoopRunOnce(_ rl: QZCFRunLoopRef?) -> CFRunLoopRunResult {
    let finished = CFRunLoopRunResult(kCFRunLoopRunFinished)
    let loop: RunLoop
    if let rl {
        guard let l = object(rl, as: RunLoop.self) else { return finished }
        guard l.isCurrent else {
            recordError(QZErrorInvalidState, #function, "the run loop belongs to another thread; run it on its own thread")
            return finished
        }
        loop = l
    } else {
        guard let l = currentRunLoop(#function) else { return finished }
        loop = l
    }
    return loop.runOnce().rawValue
}

// MARK: - Timers

/// Makes a timer that calls `callout(timer, info)` at `fireDate` (a media
/// time: CACurrentMediaTime's clock, not Apple's CFAbsoluteTime) and then
/// every `interval` seconds if `interval` > 0 (0 or less: one shot). Apple's
/// allocator, flags, order and context parameters are left out: `info` is
/// passed as is, and QZRunLoopTimerSetInfoRelease sets its release function.
/// A repeating timer keeps to its schedule, skipping firings it missed; a
/// one-shot timer is invalidated after it fires. The callout runs on the
/// thread of the run loop the timer is in. Returns +1 (CARelease); NULL with
/// an error for a NULL callout or a fireDate or interval that is not finite.
@c public func CFRunLoopTimerCreate(_ fireDate: CFTimeInterval, _ interval: CFTimeInterval,
                                     _ callout: CFRunLoopTimerCallBack?, _ info: UnsafeMutableRawPointer?) -> QZCFRunLoopTimerRef? {
    guard requireFinite(fireDate, "fireDate", #function), requireFinite(interval, "interval", #function) else { return nil }
    guard let callout = requireNonNull(callout, "callout", #function) else { return nil }
    let timer = RunLoopTimer(fireDate: fireDate, interval: interval) { t in callout(borrowedHandle(t), info) }
    timer.info = info
    return retainedHandle(timer)
}

/// Sets the function that releases the `info` the timer was made with
/// (Apple's context release): called once with it, on the thread that
/// invalidates the timer or drops its last reference. NULL: none.
@c public func QZRunLoopTimerSetInfoRelease(_ timer: QZCFRunLoopTimerRef?, _ release: QZInfoReleaseCallback?) {
    guard let t = object(timer, as: RunLoopTimer.self) else { return }
    let info = t.info
    // (The host's function runs as a host call: errors it records stay its own.)
    t.setRelease(release.map { fn in { hostCall { fn(info) } } })
}

/// Adds `timer` to `rl` in `mode` (kCFRunLoopCommonModes: every common mode);
/// the run loop retains it. An invalidated timer is ignored; a timer already
/// in another run loop is refused (QZErrorInvalidState). Any thread.
@c public func CFRunLoopAddTimer(_ rl: QZCFRunLoopRef?, _ timer: QZCFRunLoopTimerRef?, _ mode: UnsafePointer<CChar>?) {
    guard let loop = object(rl, as: RunLoop.self), let t = object(timer, as: RunLoopTimer.self),
          let name = requireMode(mode, #function) else { return }
    if !loop.add(t, mode: name) {
        recordError(QZErrorInvalidState, #function, "the timer is already in another run loop")
    }
}

/// Removes `timer` from `mode` of `rl`; the loop releases it when it is in
/// none of its modes. Any thread.
@c public func CFRunLoopRemoveTimer(_ rl: QZCFRunLoopRef?, _ timer: QZCFRunLoopTimerRef?, _ mode: UnsafePointer<CChar>?) {
    guard let loop = object(rl, as: RunLoop.self), let t = object(timer, as: RunLoopTimer.self),
          let name = requireMode(mode, #function) else { return }
    loop.remove(t, mode: name)
}

/// True when `timer` is valid and in `rl` for `mode`.
@c public func CFRunLoopContainsTimer(_ rl: QZCFRunLoopRef?, _ timer: QZCFRunLoopTimerRef?, _ mode: UnsafePointer<CChar>?) -> Bool {
    guard let loop = object(rl, as: RunLoop.self), let t = object(timer, as: RunLoopTimer.self),
          let name = requireMode(mode, #function) else { return false }
    return loop.contains(t, mode: name)
}

/// The earliest fire date (media time) of the valid timers of `mode` in
/// `rl`, or 0 when it has none.
@c public func CFRunLoopGetNextTimerFireDate(_ rl: QZCFRunLoopRef?, _ mode: UnsafePointer<CChar>?) -> CFTimeInterval {
    guard let loop = object(rl, as: RunLoop.self), let name = requireMode(mode, #function) else { return 0 }
    return loop.nextTimerFireDate(mode: name) ?? 0
}

/// Stops `timer` for good: removes it from its run loop and releases its
/// info (once). Invalidating twice does nothing. Any thread.
@c public func CFRunLoopTimerInvalidate(_ timer: QZCFRunLoopTimerRef?) {
    object(timer, as: RunLoopTimer.self)?.invalidate()
}

/// False once the timer is invalidated (a one-shot timer after it fired).
@c public func CFRunLoopTimerIsValid(_ timer: QZCFRunLoopTimerRef?) -> Bool {
    withObject(timer, as: RunLoopTimer.self, fallback: false) { $0.valid }
}

/// The media time the timer fires next.
@c public func CFRunLoopTimerGetNextFireDate(_ timer: QZCFRunLoopTimerRef?) -> CFTimeInterval {
    withObject(timer, as: RunLoopTimer.self, fallback: 0) { $0.nextFireDate }
}

/// Moves the timer's next firing to `fireDate` (a finite media time) and
/// wakes its run loop.
@c public func CFRunLoopTimerSetNextFireDate(_ timer: QZCFRunLoopTimerRef?, _ fireDate: CFTimeInterval) {
    guard let t = object(timer, as: RunLoopTimer.self), requireFinite(fireDate, "fireDate", #function) else { return }
    t.nextFireDate = fireDate
}

/// The repeat interval (0 for a one-shot timer).
@c public func CFRunLoopTimerGetInterval(_ timer: QZCFRunLoopTimerRef?) -> CFTimeInterval {
    withObject(timer, as: RunLoopTimer.self, fallback: 0) { $0.interval }
}

/// True for a repeating timer.
@c public func CFRunLoopTimerDoesRepeat(_ timer: QZCFRunLoopTimerRef?) -> Bool {
    withObject(timer, as: RunLoopTimer.self, fallback: false) { $0.repeats }
}
