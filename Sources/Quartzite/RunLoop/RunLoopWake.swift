// The run loop's side of the seam with transactions (see
// Transactions/RunLoopSeam.swift). RunLoop/ implements it; Transactions/
// only calls it.

/// Wakes every run loop that is waiting, so that each asks
/// transactionRunLoopNextDeadline() again (called when a new completion
/// deadline appears, e.g. animations were committed on another thread).
/// Every live run loop's wait port is signalled: a host polling
/// QZRunLoopGetFileDescriptor needs the same nudge to run a turn and re-arm
/// the port's timer for the new deadline.
func runLoopWakeAllSleeping() {
    RunLoopRegistry.wakeAll()
}
