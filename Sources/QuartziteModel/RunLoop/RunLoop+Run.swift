import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics

extension RunLoop {
    /// CFRunLoopRunInMode's results (Apple's values).
    public enum RunResult: Int32 {
        case finished = 1, stopped = 2, timedOut = 3, handledSource = 4
    }

    /// Runs the loop in `mode` on the calling (owning) thread: turns until
    /// `seconds` pass (on this loop's clock), CFRunLoopStop, a source is
    /// handled (with `returnAfterSourceHandled`), or the mode has nothing
    /// left (no timer, display link, queued perform or transaction work).
    /// `seconds` <= 0 runs one turn. Performs and display-link callbacks
    /// count as handled sources; timers do not (as in Apple's run loop).
    public func run(mode: String, seconds: Double, returnAfterSourceHandled: Bool) -> RunResult {
        let activation = RunActivation(mode: mode)
        runLoopLock.with { activations.append(activation) }
        defer { runLoopLock.with { activations.removeAll { $0 === activation } } }

        let start = now()
        let limit = seconds > 0 ? start + seconds : start
        if !schedule(mode: mode, now: start).hasWork {
            // Nothing to run; the wake-ups are consumed all the same, and
            // transactions still get their end-of-turn call.
            qz_internal_wait_port_drain(&port)
            transactionRunLoopTurnDidFinish()
            armPort(schedule(mode: RunLoopMode.defaultMode, now: start).deadline)
            return .finished
        }
        while true {
            let handled = turn(mode: mode)
            // The seam: commits this thread's implicit transaction and runs
            // the completions owed to it, at the end of every turn.
            transactionRunLoopTurnDidFinish()
            let t = now()
            let next = schedule(mode: mode, now: t)
            armPort(next.deadline)
            // Apple's order of reasons, except that a stop wins over a timeout.
            if runLoopLock.with({ activation.stopped }) { return .stopped }
            if handled && returnAfterSourceHandled { return .handledSource }
            if t >= limit { return .timedOut }
            if !next.hasWork { return .finished }
            wait(until: min(limit, next.deadline), now: t)
        }
    }

    /// QZRunLoopRunOnce: one turn in the default mode without waiting, then
    /// the wait port's timer is armed for the next work.
    public func runOnce() -> RunResult {
        run(mode: RunLoopMode.defaultMode, seconds: 0, returnAfterSourceHandled: false)
    }

    /// In one pass under the lock (and one question to the transactions):
    /// whether `mode` has anything that could make a turn do work (a queued
    /// perform, a valid timer or display link, transaction work), and the
    /// media time of the next work (now when a perform is queued; timers,
    /// display-link frames, the transactions' deadline).
    package func schedule(mode: String, now t: Double) -> (hasWork: Bool, deadline: Double) {
        var (work, deadline): (Bool, Double) = runLoopLock.with {
            var w = false, d = Double.infinity
            if performs.contains(where: { matches($0.mode, mode) }) { (w, d) = (true, t) }
            for timer in timers where timer.isValid && matches(timer.modes, mode) {
                w = true
                d = min(d, timer.fireDate)
            }
            for link in links where matches(link.modes(in: self) ?? [], mode) {
                if link.isValid { w = true }
                if let next = link.nextFrameTime(now: t) { d = min(d, next) }
            }
            return (w, d)
        }
        if let transactions = transactionRunLoopNextDeadline() {
            work = true
            if !transactions.isNaN { deadline = min(deadline, transactions) }
        }
        return (work, deadline)
    }

    /// Arms the wait port's timer for `deadline` (a media time). With a
    /// simulated clock the media time has no fixed relation to the kernel's
    /// clock, so the timer stays off and only wake-ups make the port readable.
    package func armPort(_ deadline: Double) {
        qz_internal_wait_port_arm(&port, isSimulated ? .infinity : deadline)
    }

    /// Waits for a wake-up or until `deadline` (media time).
    package func wait(until deadline: Double, now t: Double) {
        guard deadline > t else { return }
        let timeout: Double
        if isSimulated {
            // Never sleep in real time: ask the source again, but let a
            // source that stands still be moved by another thread.
            let stalled: Bool = runLoopLock.with {
                let s = !(t > lastSimulatedTime)
                lastSimulatedTime = t
                return s
            }
            timeout = stalled ? 0.001 : 0
        } else {
            timeout = deadline - t
        }
        runLoopLock.with { isWaiting = true }
        _ = qz_internal_wait_port_wait(&port, timeout)
        runLoopLock.with { isWaiting = false }
    }

    /// One turn in `mode`: queued performs, due timers, due display links.
    /// Returns whether a source (a perform or a display link) was handled.
    package func turn(mode: String) -> Bool {
        qz_internal_wait_port_drain(&port)
        var handled = false

        // Performs queued before the turn began, in order; those queued while
        // they run wait for the next turn (their wake-up keeps the port readable).
        let ready: [PerformItem] = runLoopLock.with {
            var run: [PerformItem] = []
            var keep: [PerformItem] = []
            for item in performs {
                if matches(item.mode, mode) { run.append(item) } else { keep.append(item) }
            }
            if !run.isEmpty { performs = keep }
            return run
        }
        for item in ready { hostCall { item.body() } }
        handled = !ready.isEmpty

        // Timers due by now, earliest first.
        var t = now()
        let due: [RunLoopTimer] = runLoopLock.with {
            timers.filter { $0.isValid && $0.fireDate <= t && matches($0.modes, mode) }
                .sorted { $0.fireDate < $1.fireDate }
        }
        for timer in due {
            let call: ((RunLoopTimer) -> Void)? = runLoopLock.with {
                guard timer.isValid, timer.runLoop === self, timer.fireDate <= t,
                      matches(timer.modes, mode) else { return nil }
                timer.scheduleAfterFiring(now: t)
                return timer.callback
            }
            guard let call else { continue }
            hostCall { call(timer) }
            if !timer.repeats { timer.invalidate() }
        }

        // Display links with a frame due.
        t = now()
        let simulated = isSimulated
        let frames: [(DisplayLink, (DisplayLink) -> Void)] = runLoopLock.with {
            var out: [(DisplayLink, (DisplayLink) -> Void)] = []
            for link in links where matches(link.modes(in: self) ?? [], mode) {
                if let call = link.takeDueFrame(now: t, simulated: simulated) { out.append((link, call)) }
            }
            return out
        }
        for (link, call) in frames {
            // An earlier callback of this turn may have invalidated or paused it.
            guard runLoopLock.with({ link.isValid && !link.isPaused }) else { continue }
            hostCall { call(link) }
            handled = true
        }
        return handled
    }
}
