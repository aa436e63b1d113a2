import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
// The seam between transactions (Transactions/) and the run loop (RunLoop/).
// Apple commits a thread's implicit transaction, and delivers transaction
// completions, from a run-loop observer at the end of each turn; the run loop
// here calls these functions for the same purpose. Transactions/ implements
// them; RunLoop/ only calls them.

/// Called by the run loop on its own thread after each turn (after sources,
/// timers and display links ran, before it waits): commits the thread's
/// implicit transaction, delivers animation delegate messages and runs the
/// transaction completions owed to this thread.
package func transactionRunLoopTurnDidFinish() { Transactions.turnDidFinish() }

/// The media time at which this thread's run loop must next turn for
/// transaction work (a completion waiting for its animations to end), or nil.
/// The run loop sleeps no longer than this. -infinity when a completion is
/// already owed (turn now); +infinity when one waits for an animation that
/// never ends by itself (it will be removed: sleep until woken).
package func transactionRunLoopNextDeadline() -> Double? { Transactions.nextDeadline(ThreadTransactions.current) }
