import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel
import QuartziteRender

// CATransaction. Every thread has its own stack of transactions. A change to
// a layer (or a setter below) without an explicit transaction opens the
// thread's implicit transaction, which commits at the end of the thread's
// run-loop turn (CFRunLoopRunInMode, QZRunLoopRunOnce, QZAnimationProcessEvents)
// or with CATransactionFlush. Explicit transactions nest; the changes of the
// outermost one become visible to presentation readers (every thread's
// CALayerCopyPresentationLayer, the renderer) all at once when it commits.
// Property getters below search from the innermost transaction outwards.

/// Opens an explicit transaction on the calling thread (nested inside any
/// open one, the implicit one included).
@c public func CATransactionBegin() {
    Transactions.begin()
}

/// Closes the innermost explicit transaction of the calling thread. When it
/// is the outermost, its changes commit: every changed layer's state becomes
/// visible to presentation readers at once, and the animations added in it
/// (implicit ones included) start, a beginTime of 0 meaning now. Without an
/// explicit transaction open it records QZErrorInvalidState and does nothing.
@c public func CATransactionCommit() {
    if !Transactions.commit() {
        recordError(QZErrorInvalidState, #function, "no explicit transaction is open on this thread")
    }
}

/// Commits the calling thread's implicit transaction now. While explicit
/// transactions are open it waits: the implicit transaction commits when the
/// last of them closes. Does nothing when there is no implicit transaction.
/// Completions owed are not run here (see QZAnimationProcessEvents).
@c public func CATransactionFlush() {
    Transactions.flush()
}

/// Acquires the transaction lock (the model lock that every layer call
/// takes): other threads' layer calls wait until the matching
/// CATransactionUnlock. Recursive: each Lock needs its Unlock.
@c public func CATransactionLock() {
    let t = ThreadTransactions.current
    qz_internal_model_lock()
    t.lockDepth += 1
}

/// Releases the transaction lock taken with CATransactionLock. Unlocking a
/// lock this thread does not hold records QZErrorInvalidState.
@c public func CATransactionUnlock() {
    let t = ThreadTransactions.current
    guard t.lockDepth > 0, qz_internal_model_lock_held() else {
        recordError(QZErrorInvalidState, #function, "the calling thread does not hold the transaction lock")
        return
    }
    t.lockDepth -= 1
    qz_internal_model_unlock()
}

/// The duration of implicit animations (and of animations added with a
/// duration of 0 or less) in the current transaction: the innermost value set,
/// else 0.25 s.
@c public func CATransactionGetAnimationDuration() -> CFTimeInterval {
    let t = ThreadTransactions.current
    return withModelLock { t.animationDuration }
}

/// Sets the innermost transaction's animation duration (opening the implicit
/// transaction when none is open). Must be finite and not negative
/// (QZErrorNotFinite / QZErrorOutOfRange).
@c public func CATransactionSetAnimationDuration(_ duration: CFTimeInterval) {
    guard requireFinite(duration, "duration", #function) else { return }
    guard duration >= 0 else {
        recordError(QZErrorOutOfRange, #function, "duration must not be negative, got \(duration)")
        return
    }
    let t = ThreadTransactions.current
    withModelLock { t.top.duration = duration }
}

/// The timing function of implicit animations in the current transaction, or
/// NULL when none was set (they then use kCAMediaTimingFunctionDefault).
/// Borrowed: valid while the transaction that holds it is open.
@c public func CATransactionGetAnimationTimingFunction() -> CAMediaTimingFunctionRef? {
    let t = ThreadTransactions.current
    return withModelLock { t.timingFunction.map(borrowedHandle) }
}

/// Sets the innermost transaction's timing function (retained; NULL restores
/// the default for this scope).
@c public func CATransactionSetAnimationTimingFunction(_ function: CAMediaTimingFunctionRef?) {
    var f: TimingFunction?
    if let function {
        guard let o = object(function, as: TimingFunction.self) else { return }
        f = o
    }
    setTransactionTimingFunction(f)
}

/// The innermost transaction's timing function (nil: the default).
func setTransactionTimingFunction(_ f: TimingFunction?) {
    let t = ThreadTransactions.current
    withModelLock { t.top.timingFunction = .some(f) }
}

/// Whether property changes in the current transaction run no actions (no
/// implicit animations, no custom actions, no onOrderIn/onOrderOut). Default false.
@c public func CATransactionGetDisableActions() -> Bool {
    let t = ThreadTransactions.current
    return withModelLock { t.disableActions }
}

/// Sets disableActions on the innermost transaction (opening the implicit
/// transaction when none is open).
@c public func CATransactionSetDisableActions(_ disable: Bool) {
    let t = ThreadTransactions.current
    withModelLock { t.top.disableActions = disable }
}

/// Sets the innermost transaction's completion: `fn(info)` runs exactly once,
/// on the calling thread (the one that commits the transaction), at the end
/// of one of its run-loop turns (or in QZAnimationProcessEvents) after the
/// transaction committed and every animation added to it from now on
/// (implicit ones included) has finished or been removed; when none was
/// added, at the end of the turn in which it commits. It runs outside the
/// model lock and may call back in. Completions accumulate, as observed on
/// Apple's QuartzCore (where the reference reads as if a second one replaced
/// the first, Apple's behaviour wins): setting a second completion on the
/// same transaction keeps the first, and both run, once each, the first
/// waiting for the animations added after it was set, the second for those
/// added after it; a NULL `fn` sets no completion and does not cancel one
/// already set. The library does not own `info`. A completion still owed
/// when its thread exits is dropped.
@c public func CATransactionSetCompletionBlock(_ fn: CATransactionCompletionCallback?, _ info: UnsafeMutableRawPointer?) {
    guard let fn else { return }
    let t = ThreadTransactions.current
    withModelLock {
        t.top.completions.append(CompletionGroup(fn: fn, info: info, thread: t))
    }
}

/// The completion callback set last on the innermost of the calling thread's
/// open transactions that has one (and its info through `info`, which may be
/// NULL), or NULL.
@c public func CATransactionGetCompletionBlock(_ info: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> CATransactionCompletionCallback? {
    let t = ThreadTransactions.current
    return withModelLock {
        let g = t.completionGroup
        info?.pointee = g?.info
        return g?.fn
    }
}

/// Sets a value in the innermost transaction (opening the implicit one). The
/// keys kCATransactionAnimationDuration (a number), kCATransactionDisableActions
/// (a bool or number) and kCATransactionAnimationTimingFunction (a timing
/// function object, or NULL / the null value) set the typed properties;
/// kCATransactionCompletionBlock takes no value here
/// (CATransactionSetCompletionBlock: QZErrorInvalidArgument). Other keys are
/// stored as given (retained); NULL removes them from this scope.
@c public func CATransactionSetValueForKey(_ key: UnsafePointer<CChar>?, _ value: CAValueRef?) {
    guard let k = requireString(key, "key", #function) else { return }
    var v: Value?
    if let value {
        guard let o = object(value, as: Value.self) else { return }
        v = o.type == CAValueTypeNull ? nil : o
    }
    switch k {
    case "animationDuration":
        guard let n = v?.number else {
            recordError(QZErrorWrongType, #function, "animationDuration takes a number")
            return
        }
        CATransactionSetAnimationDuration(n)
    case "disableActions":
        guard let n = v?.number else {
            recordError(QZErrorWrongType, #function, "disableActions takes a bool")
            return
        }
        CATransactionSetDisableActions(n != 0)
    case "animationTimingFunction":
        var f: TimingFunction?
        if let v {
            guard case .object(let o) = v.storage, let tf = o as? TimingFunction else {
                recordError(QZErrorWrongType, #function, "animationTimingFunction takes a timing function")
                return
            }
            f = tf
        }
        setTransactionTimingFunction(f)
    case "completionBlock":
        recordError(QZErrorInvalidArgument, #function, "set the completion with CATransactionSetCompletionBlock")
    default:
        let t = ThreadTransactions.current
        withModelLock { t.top.values[k] = v }
    }
}

/// The value for `key`, searching from the innermost transaction outwards:
/// the typed keys give their current values (animationDuration a number,
/// disableActions a bool, animationTimingFunction the function object or NULL);
/// other keys the innermost value set, or NULL. Returns +1.
@c public func CATransactionCopyValueForKey(_ key: UnsafePointer<CChar>?) -> CAValueRef? {
    guard let k = requireString(key, "key", #function) else { return nil }
    let t = ThreadTransactions.current
    return withModelLock { () -> CAValueRef? in
        switch k {
        case "animationDuration": return retainedHandle(Value(.number(t.animationDuration)))
        case "disableActions": return retainedHandle(Value(.bool(t.disableActions)))
        case "animationTimingFunction": return t.timingFunction.map { retainedHandle(Value(.object($0))) }
        case "completionBlock": return nil
        default:
            for s in t.scopes.reversed() { if let v = s.values[k] { return retainedHandle(v) } }
            return nil
        }
    }
}
