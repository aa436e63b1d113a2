import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
// The run loop's side of the seam with transactions (see
// Transactions/RunLoopSeam.swift). RunLoop/ implements it; Transactions/
// only calls it.

/// Wakes the run loop of the thread with kernel id `thread` (if it has one),
/// so that it asks transactionRunLoopNextDeadline() again: called when one of
/// that thread's completions gets a new deadline (e.g. its animations were
/// committed, or ended, on another thread). The loop's wait port is
/// signalled, so a host polling QZRunLoopGetFileDescriptor gets the same
/// nudge to run a turn and re-arm the port's timer for the new deadline.
package func runLoopWake(thread: Int32) {
    RunLoopRegistry.wake(owner: thread)
}

/// Wakes every run loop (each signalled as runLoopWake does one): for a
/// change every loop must see, such as a new display refresh rate.
package func runLoopWakeAllSleeping() {
    RunLoopRegistry.wakeAll()
}
