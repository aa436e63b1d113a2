import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import Glibc

// CATransaction: per-thread stacks of transaction scopes. The outermost scope
// of a thread owns a record of the layers changed (or created) while it is
// open; committing it turns their changes into the committed state that
// presentation readers see, and moves the animations added meanwhile onto
// their layers with their begin times resolved. Everything here runs holding
// the model lock, except reading the calling thread's own stack.

/// One level of CATransactionBegin (or the implicit transaction, at the
/// bottom of a thread's stack). nil properties inherit from outer scopes.
package final class TransactionScope {
    package let implicit: Bool
    /// The thread whose stack holds it (its effective values follow changes here).
    package unowned(unsafe) let owner: ThreadTransactions
    @usableFromInline package var duration: Double? { didSet { owner.refresh() } }
    /// .some(nil): explicitly set to nil (the default timing).
    package var timingFunction: TimingFunction?? { didSet { owner.refresh() } }
    package var disableActions: Bool? { didSet { owner.refresh() } }
    /// The completions set on this scope, oldest first (each waits for the
    /// animations added after it was set). Setting another keeps the earlier
    /// ones, as observed on Apple's QuartzCore.
    package var completions: [CompletionGroup] = [] { didSet { owner.refresh() } }
    /// Every other key of CATransactionSetValueForKey.
    package var values: [String: Value] = [:]

    package init(implicit: Bool, owner: ThreadTransactions) {
        self.implicit = implicit
        self.owner = owner
    }
}

/// A completion callback and the animations it waits for. It is owed to its
/// thread once its transaction committed and every animation added to it
/// after it was set has finished or been removed; the thread runs it at the
/// end of its next run-loop turn (or QZAnimationProcessEvents), exactly once.
package final class CompletionGroup {
    package var fn: CATransactionCompletionCallback?
    package var info: UnsafeMutableRawPointer?
    package let thread: ThreadTransactions
    package var liveAnimations = 0
    package var committed = false
    package var owed = false
    /// The latest media time at which one of its animations ends (set at commit).
    package var deadline = -Double.infinity

    package init(fn: CATransactionCompletionCallback?, info: UnsafeMutableRawPointer?, thread: ThreadTransactions) {
        self.fn = fn
        self.info = info
        self.thread = thread
    }

    /// Model lock held.
    package func animationEnded() {
        liveAnimations -= 1
        owIfDone()
    }

    /// Model lock held.
    package func owIfDone() {
        guard committed, liveAnimations <= 0, !owed else { return }
        owed = true
        if thread.ended { return }
        thread.owed.append(self)
        thread.waiting.removeAll { $0 === self }
        // Its thread may be asleep in its run loop: the deadline is now.
        runLoopWake(thread: thread.threadID)
    }
}

/// The changes made while a thread's outermost transaction is open.
package final class TransactionRecord {
    /// Layers changed, created or given animations; nil once freed (a layer's
    /// deinit clears its slot). Unretained: an open transaction does not keep
    /// a released layer alive.
    package var layers: [Unmanaged<Layer>?] = []
    /// Completions of the scopes closed so far (sealed at commit).
    package var closedGroups: [CompletionGroup] = []
    /// Slots in `layers` of the layers given a transition (snapshotted
    /// before the commit changes what presentation shows).
    package var transitionSlots: [Int] = []
    /// A layer was marked for display in this transaction (the commit's
    /// display pass runs only then).
    package var hasLayersToDisplay = false
    /// A layer with a layout method was marked for layout.
    package var hasLayersToLayout = false
}

/// A layer's transaction state (allocated when an export first creates or
/// changes it).
package final class LayerTransactionState {
    /// Changes are logged (the layer was committed when it first changed in
    /// the open transaction): presentation shows the committed values
    /// (CommittedValues.swift).
    package var logging = false
    /// The committed values of the declared properties changed so far, and
    /// the bits of their keys.
    package var undo: [CommittedValue] = []
    package var loggedKeys: (UInt64, UInt64) = (0, 0)
    /// The layer's explicitly-set bits and custom values before the transaction.
    package var setBitsBefore: (UInt64, UInt64) = (0, 0)
    package var customLogged = false
    package var customBefore: ValueDictionary?
    /// The whole committed layer, built from the log when presentation needs it.
    package var committedSnapshot: Layer?
    /// Animations added in the open transaction, waiting for its commit.
    package var pending: [AnimationEntry] = []
    /// Implicit animations added in the open transaction as records, all
    /// newer than those in `pending` (see ImplicitAnimation.swift).
    package var pendingImplicit: [ImplicitAnimation] = []
    /// Bits of the keys in `pending` (see mask(for:)): most adds need no search.
    package var pendingKeys: UInt64 = 0
    /// The open transaction holding the layer, and its slot there.
    package unowned(unsafe) var record: TransactionRecord?
    package var slot = 0
}

/// Shared by the layers one thread creates through the API between two
/// commits (Layer.creator): they have no implicit animations until the
/// commit, which sets `committed` (model lock held).
@usableFromInline package final class CreationMark {
    @usableFromInline package var committed = false
    package init() {}
}

/// A thread's transaction stack and the completions owed to it.
@usableFromInline package final class ThreadTransactions {
    /// The kernel id of the thread (whose run loop delivers its completions).
    package let threadID = qz_internal_thread_id()
    package var scopes: [TransactionScope] = [] { didSet { refresh() } }
    package var record: TransactionRecord?
    /// What the layers created since the last commit hold (Layer.creator),
    /// made by the first of them.
    private var openCreationMark: CreationMark?
    package var creationMark: CreationMark {
        if let m = openCreationMark { return m }
        let m = CreationMark()
        openCreationMark = m
        return m
    }
    /// The commit: the layers created since the last one see it committed.
    package func commitCreationMark() {
        openCreationMark?.committed = true
        openCreationMark = nil
    }
    /// The values in effect (innermost set, else the defaults), kept up to
    /// date as scopes open, close and change: setters read them on every change.
    package private(set) var animationDuration = 0.25
    package private(set) var timingFunction: TimingFunction?
    /// timingFunction, or the default one when none is set: what an
    /// implicit animation gets.
    package private(set) var implicitTimingFunction = TimingFunction.systemDefault
    package private(set) var disableActions = false
    /// True when an open scope has a completion.
    package private(set) var hasCompletions = false
    /// Completions whose transaction committed, waiting for animations (model lock).
    package var waiting: [CompletionGroup] = []
    /// Completions ready to run on this thread (model lock).
    package var owed: [CompletionGroup] = []
    /// CATransactionFlush was called while explicit transactions were open:
    /// the implicit one commits when they close.
    package var flushWhenClosed = false
    /// Keeps the last +0 action CALayerGetActionForKey returned alive.
    package var lastAction: QZObject?
    /// Depth of CATransactionLock on this thread.
    package var lockDepth = 0
    /// The thread has exited (nothing is owed to it any more).
    package var ended = false

    /// The calling thread's state when it has one.
    package static var existing: ThreadTransactions? {
        @inline(__always) get {
            guard let p = qz_internal_current_transactions() else { return nil }
            return Unmanaged<ThreadTransactions>.fromOpaque(p).takeUnretainedValue()
        }
    }

    /// The calling thread's state, created on first use.
    package static var current: ThreadTransactions {
        @inline(__always) get {
            if let p = qz_internal_current_transactions() {
                return Unmanaged<ThreadTransactions>.fromOpaque(p).takeUnretainedValue()
            }
            return makeCurrent()
        }
    }

    /// A thread's first use: its state, owned by the thread's key (which
    /// releases it when the thread ends) and mirrored in a thread-local.
    @inline(never)
    private static func makeCurrent() -> ThreadTransactions {
        let t = ThreadTransactions()
        // (The key-name table is made here, on a thread's first call, so that
        // threads started later find it made: ThreadSanitizer does not see
        // the runtime's once-initialisation as synchronisation.)
        _ = LayerKey.byName
        let p = Unmanaged.passRetained(t).toOpaque()
        pthread_setspecific(transactionKey, p)
        qz_internal_set_current_transactions(p)
        return t
    }

    /// Runs `body` on the calling thread's state, borrowed (the thread's
    /// key holds it): no retain and release around a short use.
    @inline(__always)
    package static func withCurrent<R>(_ body: (ThreadTransactions) -> R) -> R {
        if let p = qz_internal_current_transactions() {
            return Unmanaged<ThreadTransactions>.fromOpaque(p)._withUnsafeGuaranteedRef(body)
        }
        return body(current)
    }

    /// The innermost scope, opening the implicit transaction when none is open.
    @inline(__always) package var top: TransactionScope {
        if let s = scopes.last { return s }
        let s = TransactionScope(implicit: true, owner: self)
        scopes.append(s)
        record = TransactionRecord()
        return s
    }

    /// The open record (opening the implicit transaction when none is open).
    /// Invariant: a record exists exactly while scopes are open.
    @inline(__always) package var openRecord: TransactionRecord {
        if let r = record { return r }
        _ = top
        return record!
    }

    package func refresh() {
        var duration: Double?, timing: TimingFunction??, disable: Bool?, completions = false
        for s in scopes.reversed() {
            if duration == nil { duration = s.duration }
            if timing == nil { timing = s.timingFunction }
            if disable == nil { disable = s.disableActions }
            if !s.completions.isEmpty { completions = true }
        }
        animationDuration = duration ?? 0.25
        timingFunction = timing ?? nil
        implicitTimingFunction = timingFunction ?? .systemDefault
        disableActions = disable ?? false
        hasCompletions = completions
    }

    package var completionGroup: CompletionGroup? {
        for s in scopes.reversed() { if let c = s.completions.last { return c } }
        return nil
    }
}

/// The key of the per-thread ThreadTransactions (released when the thread ends).
package let transactionKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key) { p in
        guard let p else { return }
        qz_internal_set_current_transactions(nil)
        let t = Unmanaged<ThreadTransactions>.fromOpaque(p)
        Transactions.threadEnded(t.takeUnretainedValue())
        t.release()
    }
    return key
}()

/// The transaction engine (model lock held unless said otherwise).
package enum Transactions {
    // MARK: - Scopes

    package static func begin() {
        let t = ThreadTransactions.current
        withModelLock {
            if t.scopes.isEmpty { t.record = TransactionRecord() }
            t.scopes.append(TransactionScope(implicit: false, owner: t))
        }
    }

    /// Closes the innermost explicit scope; false when none is open.
    package static func commit() -> Bool {
        let t = ThreadTransactions.current
        return withModelLock {
            guard let s = t.scopes.last, !s.implicit else { return false }
            t.scopes.removeLast()
            // A nested scope's completion waits for the outermost commit.
            close(s, t)
            if t.scopes.isEmpty {
                commitRecord(t)
            } else if t.flushWhenClosed {
                // (Commits only when the implicit scope is all that is left;
                // committing clears the flag.)
                commitImplicit(t)
            }
            return true
        }
    }

    /// Commits the implicit transaction now, or when the explicit ones close.
    package static func flush() {
        let t = ThreadTransactions.current
        withModelLock {
            guard let first = t.scopes.first else { return }
            if t.scopes.count == 1 && first.implicit {
                commitImplicit(t)
            } else if first.implicit {
                t.flushWhenClosed = true
            }
        }
    }

    /// A thread ends: whatever it left open commits (so that no layer stays
    /// in a transaction nobody will close). Completions still owed to it, or
    /// waiting for animations, are dropped: it has no run loop left to run them.
    package static func threadEnded(_ t: ThreadTransactions) {
        withModelLock {
            if !t.scopes.isEmpty {
                for s in t.scopes { close(s, t) }
                t.scopes.removeAll()
                commitRecord(t)
            }
            t.ended = true
            t.owed = []
            t.waiting = []
            t.lastAction = nil
        }
    }

    /// The thread's implicit transaction, if it is the only scope left, commits.
    package static func commitImplicit(_ t: ThreadTransactions) {
        guard t.scopes.count == 1, let s = t.scopes.first, s.implicit else { return }
        t.scopes.removeAll()
        close(s, t)
        commitRecord(t)
    }

    /// A closed scope's completion joins the record (it waits for the commit).
    private static func close(_ s: TransactionScope, _ t: ThreadTransactions) {
        t.record?.closedGroups.append(contentsOf: s.completions)
    }

    /// A completion whose transaction committed (its animations are on their layers).
    private static func seal(_ g: CompletionGroup) {
        g.committed = true
        if g.liveAnimations > 0 { g.thread.waiting.append(g) }
        g.owIfDone()
        if g.liveAnimations > 0 { runLoopWake(thread: g.thread.threadID) }
    }

    // MARK: - Commit

    /// Commits the thread's record: every changed layer's state becomes the
    /// committed state, and its pending animations start (beginTime 0 means
    /// the layer's local time now).
    package static func commitRecord(_ t: ThreadTransactions) {
        guard let record = t.record else { return }
        displayMarkedLayers(record)
        t.commitCreationMark()
        t.record = nil
        t.flushWhenClosed = false
        let now = MediaClock.now()
        // A transition runs from the state before this commit: snapshot the
        // subtrees of layers with pending transitions first, while every
        // changed layer still shows its committed state to presentation.
        var transitionSnapshots: [ObjectIdentifier: Layer] = [:]
        for slot in record.transitionSlots {
            guard let layer = record.layers[slot]?.takeUnretainedValue() else { continue }
            transitionSnapshots[ObjectIdentifier(layer)] = layer.transitionSnapshot(now: now)
        }
        // (The layers are read through a copy of the list, prefetching a few
        // ahead: at scale the commit waits on memory, one layer after another.)
        let slots = record.layers
        slots.withUnsafeBufferPointer { slots in
            let n = slots.count
            for i in 0..<n {
                if i &+ 8 < n, let ahead = slots[i &+ 8] { prefetchLines(UnsafeRawPointer(ahead.toOpaque()), 4) }
                if i &+ 4 < n, let ahead = slots[i &+ 4],
                   let state = ahead._withUnsafeGuaranteedRef({ $0.rawTransactionState }) {
                    prefetchLines(UnsafeRawPointer(state), 3)
                }
                guard let layer = slots[i]?.takeUnretainedValue(), let state = layer.transactionState else { continue }
                state.record = nil
                state.dropLog()
                if !state.pending.isEmpty || !state.pendingImplicit.isEmpty {
                    let pending = state.pending
                    let records = state.pendingImplicit
                    state.pending = []
                    state.pendingImplicit = []
                    state.pendingKeys = 0
                    let transitionSnapshot = transitionSnapshots.isEmpty ? nil : transitionSnapshots[ObjectIdentifier(layer)]
                    layer.startCommitted(pending, implicit: consume records, now: now, transitionSnapshot: transitionSnapshot)
                }
                // A committed layer with nothing pending drops its state: the
                // presentation walk then never touches it (one less cache line
                // per layer); the next change enlists the layer afresh.
                if state.record == nil && !state.logging && state.pending.isEmpty && state.pendingImplicit.isEmpty
                    && layer.transactionState === state {
                    layer.transactionState = nil
                }
            }
        }
        for g in record.closedGroups { seal(g) }
    }

    // MARK: - Layers

    /// Puts `layer` in the thread's open transaction (opening the implicit
    /// one); with `snapshot`, its changes are logged from now on (presentation
    /// keeps showing their committed values until the commit).
    @inline(__always)
    package static func enlist(_ layer: Layer, _ t: ThreadTransactions, snapshot: Bool) -> LayerTransactionState {
        let record = t.openRecord
        let state: LayerTransactionState
        if let s = layer.transactionState {
            state = s
            if s.record != nil {
                // Already in an open transaction (this thread's, or another's
                // that holds it): only the logging may still have to start.
                if snapshot && !s.logging && layer.isCommitted { s.startLogging(layer) }
                return s
            }
        } else {
            state = LayerTransactionState()
            layer.transactionState = state
        }
        if snapshot && !state.logging && layer.isCommitted { state.startLogging(layer) }
        state.record = record
        state.slot = record.layers.count
        record.layers.append(Unmanaged.passUnretained(layer))
        return state
    }

    /// A layer marked for display joins the calling thread's open
    /// transaction (opening the implicit one), whose commit displays it.
    package static func enlistForLayout(_ layer: Layer) {
        enlist(layer, ThreadTransactions.current, snapshot: false).record?.hasLayersToLayout = true
    }

    package static func enlistForDisplay(_ layer: Layer) {
        // (The record holding the layer: this thread's, or another's that has it.)
        enlist(layer, ThreadTransactions.current, snapshot: false).record?.hasLayersToDisplay = true
    }

    /// The display cycle, at commit before anything else, on the committing
    /// thread: layers of the record that need layout are laid out (Apple's
    /// layoutIfNeeded, from the highest ancestor that needs it), then every
    /// layer still marked for display is displayed. Layout and drawing may
    /// change or mark more layers: they join this commit.
    package static func displayMarkedLayers(_ record: TransactionRecord) {
        if record.hasLayersToLayout {
            var i = 0
            while i < record.layers.count {
                if let layer = record.layers[i]?.takeUnretainedValue(), layer.needsLayout {
                    layer.layoutIfNeeded()
                }
                i += 1
            }
        }
        guard record.hasLayersToDisplay else { return }
        // Text layouts first, in one pass from the first marked text layer
        // (Layer.prepareTextLayout); no text lock when there is none.
        func laysOutText(_ slot: Unmanaged<Layer>?) -> Bool {
            guard let layer = slot?.takeUnretainedValue() else { return false }
            return layer.needsDisplay && layer.displaysOwnText
        }
        if let first = record.layers.firstIndex(where: laysOutText) {
            withTextLock {
                for j in first..<record.layers.count where laysOutText(record.layers[j]) {
                    record.layers[j].unsafelyUnwrapped.takeUnretainedValue().prepareTextLayout()
                }
            }
        }
        var i = 0
        while i < record.layers.count {
            if let layer = record.layers[i]?.takeUnretainedValue(), layer.needsDisplay {
                layer.display()
            }
            i += 1
        }
    }

    /// A new layer belongs to the calling thread's transaction (opening the
    /// implicit one): it has no implicit animations until that commits.
    package static func layerCreated(_ layer: Layer) {
        ThreadTransactions.withCurrent { t in
            if t.record == nil { _ = t.top }   // opens the implicit transaction (as openRecord, without returning it)
            layer.creator = t.creationMark
        }
    }

    // MARK: - Completions and deadlines

    /// Runs the completions owed to the calling thread (without the model lock).
    package static func runOwedCompletions(_ t: ThreadTransactions) {
        let owed: [CompletionGroup] = withModelLock {
            let o = t.owed
            t.owed = []
            return o
        }
        for g in owed {
            if let fn = g.fn { hostCall { fn(g.info) } }
        }
    }

    /// The earliest media time at which a completion of the calling thread
    /// may become due.
    package static func nextDeadline(_ t: ThreadTransactions) -> Double? {
        withModelLock {
            if !t.owed.isEmpty { return -Double.infinity }
            var best: Double?
            for g in t.waiting { best = Swift.min(best ?? g.deadline, g.deadline) }
            return best
        }
    }

    /// The end of the calling thread's run-loop turn (see RunLoopSeam.swift).
    package static func turnDidFinish() {
        let t = ThreadTransactions.current
        withModelLock { commitImplicit(t) }
        processAnimationEvents()
        runOwedCompletions(t)
    }

    /// Starts and finishes animations due at the current media time and
    /// delivers their delegates' messages (the body of QZAnimationProcessEvents).
    package static func processAnimationEvents() {
        let now = MediaClock.now()
        let events: [AnimationEvent] = withModelLock {
            // A registered layer is alive: its deinit unregisters it under the
            // lock. (Looked up afresh: freeing one layer may free others.)
            for id in Array(AnimationRegistry.layers.keys) {
                guard let entry = AnimationRegistry.layers[id] else { continue }
                // Held for its update: the entries it drops may hold the last
                // references to it (an animation whose values or delegate
                // object hold the layer), and a layer must not be freed while
                // its own method runs. It may be freed when `l` goes.
                let l = entry.takeUnretainedValue()
                withExtendedLifetime(l) {
                    if l.animationList == nil && l.implicitList == nil {
                        AnimationRegistry.unregister(l)
                    } else {
                        l.updateAnimationLifecycle(now: now)
                    }
                }
            }
            let e = AnimationRegistry.pending
            AnimationRegistry.pending = []
            return e
        }
        for event in events {
            let handle = borrowedHandle(event.animation)
            if let finished = event.finished {
                if let fn = event.delegate.callbacks.animationDidStop { hostCall { fn(handle, finished, event.delegate.info) } }
            } else if let fn = event.delegate.callbacks.animationDidStart {
                hostCall { fn(handle, event.delegate.info) }
            }
        }
        // The events may hold the last references to animations, whose
        // values may hold layers: freed under the lock (see releaseHandle).
        withModelLock { withExtendedLifetime(consume events) {} }
    }
}

extension Animation {
    /// Tells the completion groups this animation counts in that it ended
    /// (finished, removed or freed); only the first call counts. Model lock held.
    package func endTransactionGroups() {
        guard let groups = completionGroups else { return }
        completionGroups = nil
        for g in groups { g.animationEnded() }
    }
}

/// Asks the processor for `count` cache lines from `p` on (a hint: no fault).
@inline(__always)
package func prefetchLines(_ p: UnsafeRawPointer, _ count: Int) {
    var k = 0
    while k < count { qz_internal_prefetch(p + k &* 64); k &+= 1 }
}
