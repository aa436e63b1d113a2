import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel
import QuartziteRender

// CAAction: custom actions made from a C callback, the shared null action,
// the action search of a layer and running an action. Every CAAnimationRef is
// also a CAActionRef (running it adds a copy of it to the layer under the key).
//
// Threads: any thread. An action's callback runs on the thread whose change
// triggers it, holding the model lock, and may call back into the library.

/// Creates a custom action whose `run(key, layer, arguments, info)` is called
/// when the action runs (Apple's runActionForKey:object:arguments:). `info` is
/// passed back verbatim and is not owned by the library (see
/// CAActionCreateWithRelease). `run` runs on the thread that triggers the
/// action, holding the model lock; it may call back into the library.
/// Returns +1 (CARelease), or NULL with QZErrorNullArgument when `run` is NULL.
@c public func CAActionCreate(_ run: CAActionCallback?, _ info: UnsafeMutableRawPointer?) -> CAActionRef? {
    CAActionCreateWithRelease(run, info, nil)
}

/// CAActionCreate with a `release(info)` callback, called once when the
/// action is freed (its last reference released: the caller's, an `actions`
/// dictionary's, a delegate's), on the thread of that release. `release` may
/// be NULL. Returns +1.
@c public func CAActionCreateWithRelease(_ run: CAActionCallback?, _ info: UnsafeMutableRawPointer?,
                                         _ release: CAActionReleaseCallback?) -> CAActionRef? {
    guard let run else {
        recordError(QZErrorNullArgument, #function, "run is NULL")
        return nil
    }
    return retainedHandle(Action(run: run, info: info, release: release))
}

/// The shared action that stops the action search with no action (Apple's
/// NSNull): return it from actionForLayerForKey or defaultActionForKey, or
/// store it (CAValueCreateWithObject) in an `actions` dictionary. Borrowed and
/// immortal: never release it.
@c public func QZActionNull() -> CAActionRef? {
    borrowedHandle(Action.null)
}

/// Apple's -[CALayer actionForKey:]: the layer delegate's
/// actionForLayerForKey (a non-NULL answer ends the search; QZActionNull
/// means no action), the `actions` dictionary, the `style` dictionary's
/// `actions` (then its nested `style`, recursively), the class's
/// defaultActionForKey, then for an animatable property of a layer whose
/// creation has been committed the implicit animation (a CABasicAnimation
/// from the current presentation value, with the current transaction's
/// duration and timing function). NULL when nothing answers. Borrowed:
/// valid until the next CALayerGetActionForKey call on this thread (or as
/// long as its owner holds it). Callbacks run on the calling thread.
@c public func CALayerGetActionForKey(_ layer: CALayerRef?, _ key: UnsafePointer<CChar>?) -> CAActionRef? {
    guard let k = requireString(key, "key", #function) else { return nil }
    let t = ThreadTransactions.current
    return readLayer(layer, nil) { l -> CAActionRef? in
        let declared = l.declaredKey(k)
        guard let p = l.findAction(forKey: k, declared: declared, thread: t) else {
            t.lastAction = nil
            return nil
        }
        t.lastAction = p.action
        return borrowedHandle(p.action)
    }
}

/// Runs `action` for `key` on `layer` (Apple's runActionForKey:object:arguments:):
/// an animation is added to the layer under `key` (a copy, in the calling
/// thread's transaction, as CALayerAddAnimation does); a custom action's
/// callback is called with `key`, `layer` and `arguments` (may be NULL) on the
/// calling thread; QZActionNull does nothing.
@c public func CAActionRunForKey(_ action: CAActionRef?, _ key: UnsafePointer<CChar>?, _ layer: CALayerRef?, _ arguments: CAValueRef?) {
    guard let a = Actions.object(action, #function) else { return }
    guard let k = requireString(key, "key", #function) else { return }
    var args: Value?
    if let arguments {
        guard let v = object(arguments, as: Value.self) else { return }
        args = v
    }
    readLayer(layer, ()) { l in Actions.run(a, key: k, layer: l, arguments: args, function: #function) }
}
