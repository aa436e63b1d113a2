import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics

// Implicit animations kept as plain records. A property change outside
// disableActions adds a CABasicAnimation from the presentation value to the
// new model value (Apple's implicit animation). Most are never looked at as
// objects: they run, finish and go. So a change on a layer with nothing to
// ask the host (no delegate, actions, style or class actions) and no
// completion waiting stores a 72-byte record in the layer's transaction
// state, and after the commit in the layer's `implicitList`, instead of
// allocating an animation object. Presentation evaluates the records as
// the object would be evaluated; anyone who asks for one as a CAAnimation
// (CALayerGetAnimation, an explicit animation added after them) turns the
// records into objects first ("materialising"), in order.
//
// Order: animations apply in the order they were added. Records are always
// newer than every object in the list they sit beside: an object added to a
// layer (or to its pending list) materialises that layer's records first.
// Model lock held throughout.

/// One implicit animation: a basic animation of `key` from `from` to the
/// model value, with its transaction's duration and timing function, started
/// at `begin` (the layer's local time at the commit; NaN while pending).
package struct ImplicitAnimation {
    // (The key in the from value's padding: 64 bytes a record.)
    package var from: LazyEndpoint
    package let key: LayerKey
    package let timingFunction: TimingFunction
    @usableFromInline package let duration: Double
    package var begin: Double

    /// The object it stands for (a CABasicAnimation with the same values,
    /// its begin time resolved when committed).
    package func materialized() -> Animation {
        let boxed: Value?
        let lazy: LazyEndpoint
        if case .value(let v) = from { (lazy, boxed) = (.none, v) } else { (lazy, boxed) = (from, nil) }
        let a = Animation(implicitFor: key, keyPathC: LayerKey.sharedCNames[key.rawValue], lazyFrom: lazy, from: boxed,
                          duration: duration, timingFunction: timingFunction)
        if !begin.isNaN { a.resolvedBeginTime = begin }
        return a
    }

    /// Applies it to a presentation copy at the layer's local time `t`, as
    /// the object's general path would (the same arithmetic, in the same
    /// order): the value before it (`base`) is the end point. Returns false
    /// when it has no effect at `t`.
    @discardableResult
    package func apply(to target: Layer, at t: Double) -> Bool {
        guard let progress = FastPlan.plainProgress(at: t, begin: begin, duration: duration) else { return false }
        let p = timingFunction.solve(progress)
        if !target.flags.contains(.hasStyle) {
            // The typed properties: FastPlan.write's arithmetic, from the
            // record's value to the current one.
            let ends: (FastPlan.Kind, PlanQuad, PlanQuad)?
            switch (key, from) {
            case (.position, .point(let a)):
                let b = target.position
                ends = (.position, PlanQuad(a.x, a.y, 0, 0), PlanQuad(b.x, b.y, 0, 0))
            case (.anchorPoint, .point(let a)):
                let b = target.anchorPoint
                ends = (.anchorPoint, PlanQuad(a.x, a.y, 0, 0), PlanQuad(b.x, b.y, 0, 0))
            case (.bounds, .rect(let a)):
                let b = target.bounds
                ends = (.bounds, PlanQuad(a.origin.x, a.origin.y, a.size.width, a.size.height),
                        PlanQuad(b.origin.x, b.origin.y, b.size.width, b.size.height))
            case (.zPosition, .number(let a)):
                ends = (.zPosition, PlanQuad(a, 0, 0, 0), PlanQuad(target.zPosition, 0, 0, 0))
            case (.opacity, .number(let a)):
                ends = (.opacity, PlanQuad(a, 0, 0, 0), PlanQuad(Double(target.opacity), 0, 0, 0))
            case (.transform, .transform(let box)):
                let b = target.transform
                FastPlan.write(.transform, p, to: target, end: { _ in 0 },
                               matrix: { CATransform3D.interpolate(box?.value ?? .identity, b, $0) })
                return true
            case (.sublayerTransform, .transform(let box)):
                let b = target.sublayerTransform
                FastPlan.write(.sublayerTransform, p, to: target, end: { _ in 0 },
                               matrix: { CATransform3D.interpolate(box?.value ?? .identity, b, $0) })
                return true
            case (.anchorPointZ, .number(let a)):   // (no plan kind)
                target.anchorPointZ = a + (target.anchorPointZ - a) * p
                return true
            default:
                ends = nil
            }
            if let (kind, a, b) = ends {
                FastPlan.write(kind, p, to: target, end: { k in k & 1 == 0 ? a[k >> 1] : b[k >> 1] }, matrix: { _ in .identity })
                return true
            }
        }
        // Every other property: boxed values, as Animation.applyBasic does
        // (a nil from value resolves to the value before, like the end point).
        let name = key.name
        let boxed = from.boxed
        let base = target.value(forKeyPath: name) ?? boxed.flatMap(Value.zero(like:)) ?? Value.null
        let v = Value.interpolate(boxed ?? base, base, p)
        hostCall { _ = target.setValue(v, forKeyPath: name, function: "presentation") }
        return true
    }
}

extension Layer {
    /// The implicit animation of `key` as a record (`from` .none: the
    /// property had no value, a nil fromValue).
    @inline(__always)
    package func implicitRecord(_ key: LayerKey, thread t: ThreadTransactions) -> ImplicitAnimation {
        var from = presentationEndpoint(key)
        if case .none = from, let v = presentationValue(key) { from = .value(v) }
        return ImplicitAnimation(from: from, key: key, timingFunction: t.implicitTimingFunction,
                                 duration: t.animationDuration, begin: .nan)
    }

    /// Queues a record in the open transaction, replacing what waits under
    /// the same key (an object's delegate hears it stop unfinished).
    package func appendPendingImplicit(_ record: consuming ImplicitAnimation, state: LayerTransactionState) {
        let mask = LayerTransactionState.mask(for: record.key)
        if state.pendingKeys & mask != 0 {
            if let i = state.pendingImplicit.firstIndex(where: { $0.key == record.key }) {
                state.pendingImplicit.remove(at: i)
            } else if case let name = record.key.name, let i = state.pending.firstIndex(where: { $0.key == name }) {
                let old = state.pending.remove(at: i)
                ended(old.animation, finished: false)
            }
        }
        state.pendingKeys |= mask
        // (15 records of 64 bytes and the header make a 992-byte block, which
        // glibc serves from a small bin; 16 made a large-bin block.)
        if state.pendingImplicit.isEmpty { state.pendingImplicit.reserveCapacity(15) }
        state.pendingImplicit.append(consume record)
    }

    /// The waiting records become objects at the end of the pending list.
    package func materializePendingImplicit(_ state: LayerTransactionState) {
        guard !state.pendingImplicit.isEmpty else { return }
        for r in state.pendingImplicit {
            state.pending.append(AnimationEntry(key: r.key.name, animation: r.materialized()))
        }
        state.pendingImplicit = []
    }

    /// The running records become objects at the end of the animation list.
    package func materializeImplicitList() {
        guard let records = implicitList else { return }
        implicitList = nil
        if animationList == nil { animationList = [] }
        for r in records {
            animationList!.append(AnimationEntry(key: r.key.name, animation: r.materialized()))
        }
    }

    /// Starts committed records at local time `localNow`: each replaces a
    /// running animation under its key.
    package func startCommittedImplicit(_ consumed: consuming [ImplicitAnimation], localNow: Double) {
        var records = consume consumed
        records.withUnsafeMutableBufferPointer { b in
            for i in b.indices { b[i].begin = localNow }
        }
        if animationList != nil {
            for r in records { removeCommittedAnimation(forKey: r.key.name, finished: false) }
        }
        guard var list = implicitList else {
            implicitList = records.keptForRunning()
            return
        }
        implicitList = nil
        for r in records {
            if let i = list.firstIndex(where: { $0.key == r.key }) { list.remove(at: i) }
            list.append(r)
        }
        implicitList = list
    }

    /// Removes the running record of `key` (a property name); true if there was one.
    @discardableResult
    package func removeImplicit(forKey key: String) -> Bool {
        guard implicitList != nil, let k = LayerKey.byName[key], let i = implicitList!.firstIndex(where: { $0.key == k })
        else { return false }
        implicitList!.remove(at: i)
        if implicitList!.isEmpty { implicitList = nil }
        return true
    }
}

extension Array {
    /// A pending list about to become a running one: kept as is when at
    /// least half full, else copied to an exact-size list (running lists stay
    /// for as long as their animations run).
    package func keptForRunning() -> [Element] {
        if capacity <= 2 * count { return self }
        var exact: [Element] = []
        exact.reserveCapacity(count)
        exact.append(contentsOf: self)
        return exact
    }
}
