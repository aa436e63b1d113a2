import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics

/// An animation running on a layer under a key (nil for an unnamed one).
package struct AnimationEntry {
    package let key: String?
    package let animation: Animation
    /// For a transition: the layer's subtree as it looked when the transition
    /// was added (what the renderer transitions from).
    package var snapshot: Layer? = nil
}

/// One delegate message waiting to be delivered by QZAnimationProcessEvents.
package struct AnimationEvent {
    package let animation: Animation
    @usableFromInline package let delegate: AnimationDelegate
    /// nil: animationDidStart; otherwise animationDidStop(finished).
    package let finished: Bool?
}

/// Layers with animations, and the delegate messages owed (model lock held).
package enum AnimationRegistry {
    /// Unretained, and not weak (a weak reference gives the layer a side
    /// table: every later retain and release of it takes the slow path): a
    /// registered layer has `inAnimationRegistry` set and leaves in its deinit.
    package nonisolated(unsafe) static var layers: [ObjectIdentifier: Unmanaged<Layer>] = [:]
    package nonisolated(unsafe) static var pending: [AnimationEvent] = []

    @inline(__always)
    package static func register(_ layer: Layer) {
        if layer.inAnimationRegistry { return }
        layer.inAnimationRegistry = true
        layers[ObjectIdentifier(layer)] = Unmanaged.passUnretained(layer)
    }

    package static func unregister(_ layer: Layer) {
        guard layer.inAnimationRegistry else { return }
        layer.inAnimationRegistry = false
        layers[ObjectIdentifier(layer)] = nil
    }
}

extension Layer {
    // MARK: - Adding and removing

    /// A presentation copy (or a transition snapshot) runs no animations:
    /// false, with QZErrorInvalidState recorded.
    package func acceptsAnimations(_ function: StaticString) -> Bool {
        guard isPresentationCopy else { return true }
        recordError(QZErrorInvalidState, function, "a presentation copy runs no animations; animate its model layer")
        return false
    }

    /// Apple's addAnimation:forKey:: stores a copy. A beginTime of 0 means
    /// "now" in the layer's time; a duration of 0 or less becomes 0.25 s.
    /// An animation under the same key is replaced (its delegate hears
    /// animationDidStop with finished = false).
    package func addAnimation(_ animation: Animation, forKey key: String?, now: Double) {
        let copy = animation.copy()
        if copy.timing.duration <= 0 { copy.timing.duration = 0.25 }
        insertCommitted(copy, forKey: key, now: now)
    }

    /// Starts an animation that is now part of the committed state: a
    /// beginTime of 0 resolves to the layer's local time at `now`.
    /// `localNow` (the layer's local time at `now`) spares the walk up the tree;
    /// `register` false leaves registering the layer to the caller.
    /// `transitionSnapshot`: for a transition, the subtree as it looked
    /// before the transaction that added it committed (made by the commit);
    /// nil takes a snapshot of the presentation now.
    package func insertCommitted(_ copy: Animation, forKey key: String?, now: Double, localNow: Double? = nil, register: Bool = true,
                         transitionSnapshot: Layer? = nil) {
        copy.resolvedBeginTime = copy.timing.beginTime == 0 ? (localNow ?? localTimeForBegin(fromMedia: now)) : copy.timing.beginTime
        // A transition always runs under kCATransition, from a snapshot of now.
        let isTransition = copy.animationKind == .transition
        let key = isTransition ? "transition" : key
        let snapshot = isTransition ? (transitionSnapshot ?? self.transitionSnapshot(now: now)) : nil
        if let key { removeCommittedAnimation(forKey: key, finished: false) }
        // Running implicit records are older: they become objects first.
        materializeImplicitList()
        if let key { removeImplicit(forKey: key) }
        if animationList == nil { animationList = [] }
        animationList!.append(AnimationEntry(key: key, animation: copy, snapshot: snapshot))
        if register { AnimationRegistry.register(self) }
    }

    /// The animation under `key`: one added in the open transaction, else a running one.
    /// (An implicit animation kept as a record becomes an object here,
    /// with the records beside it: the host holds what this returns.)
    package func animation(forKey key: String) -> Animation? {
        let declared = LayerKey.byName[key]
        if let state = transactionState {
            if let k = declared, state.pendingImplicit.contains(where: { $0.key == k }) { materializePendingImplicit(state) }
            if let p = state.pending.last(where: { $0.key == key }) { return p.animation }
        }
        if let k = declared, let records = implicitList, records.contains(where: { $0.key == k }) { materializeImplicitList() }
        return animationList?.last(where: { $0.key == key })?.animation
    }

    package var animationKeys: [String] {
        var committed = animationList?.compactMap(\.key) ?? []
        if let records = implicitList { committed += records.map(\.key.name) }
        guard let state = transactionState, !state.pending.isEmpty || !state.pendingImplicit.isEmpty else { return committed }
        let added = state.pending.compactMap(\.key) + state.pendingImplicit.map(\.key.name)
        return committed.filter { !added.contains($0) } + added
    }

    package func removeAnimation(forKey key: String, finished: Bool) {
        if let state = transactionState {
            if let i = state.pending.firstIndex(where: { $0.key == key }) {
                let entry = state.pending.remove(at: i)
                ended(entry.animation, finished: finished)
            } else if let k = LayerKey.byName[key], let i = state.pendingImplicit.firstIndex(where: { $0.key == k }) {
                state.pendingImplicit.remove(at: i)
            }
        }
        removeCommittedAnimation(forKey: key, finished: finished)
        removeImplicit(forKey: key)
    }

    package func removeCommittedAnimation(forKey key: String, finished: Bool) {
        guard let list = animationList, let i = list.firstIndex(where: { $0.key == key }) else { return }
        let entry = list[i]
        animationList!.remove(at: i)
        ended(entry.animation, finished: finished)
        if animationList!.isEmpty { animationList = nil }
    }

    package func removeAllAnimations() {
        var list = animationList ?? []
        animationList = nil
        implicitList = nil
        if let state = transactionState {
            state.pendingImplicit = []
            list += state.pending
            state.pending = []
        }
        for entry in list { ended(entry.animation, finished: false) }
    }

    /// Queues the delegate's messages for an animation leaving the layer: a
    /// start it never got, then the stop.
    package func ended(_ animation: Animation, finished: Bool) {
        animation.endTransactionGroups()
        guard let d = animation.delegate else { return }
        if !animation.didStart {
            animation.didStart = true
            AnimationRegistry.pending.append(AnimationEvent(animation: animation, delegate: d, finished: nil))
        }
        AnimationRegistry.pending.append(AnimationEvent(animation: animation, delegate: d, finished: finished))
    }

    /// The running transition at media time `now`: its progress and the
    /// snapshot it transitions from.
    package func transitionState(now: Double) -> (animation: Animation, progress: Double, snapshot: Layer?)? {
        guard let entry = animationList?.last(where: { $0.animation.animationKind == .transition }) else { return nil }
        let t = localTime(fromMedia: now)
        guard !t.isNaN, let p = entry.animation.transitionProgress(at: t) else { return nil }
        return (entry.animation, p, entry.snapshot)
    }

    // MARK: - Events

    /// Starts animations whose begin time has come and finishes those whose
    /// active interval is over (removing them when removedOnCompletion),
    /// queuing their delegates' messages. `now` is media time.
    ///
    /// Under a layer with a finite duration (a cycle: its sublayers'
    /// animations play again on each repeat and backwards when it
    /// autoreverses), animations start as usual but finish only once that
    /// layer's active interval is over.
    package func updateAnimationLifecycle(now: Double) {
        guard animationList != nil || implicitList != nil else { return }
        let (t, cycled, cycleEnded) = lifecycleTime(fromMedia: now)
        if cycled && !cycleEnded {
            if let list = animationList {
                for entry in list where !entry.animation.didStart {
                    let a = entry.animation
                    if t.isNaN || (t - (a.resolvedBeginTime ?? a.timing.beginTime)) * Double(a.timing.speed) < 0 { continue }
                    a.didStart = true
                    if let d = a.delegate { AnimationRegistry.pending.append(AnimationEvent(animation: a, delegate: d, finished: nil)) }
                }
            }
            return
        }
        if t.isNaN {
            // The cycle is over and left no time: every animation is done.
            let list = animationList ?? []
            animationList = nil
            implicitList = nil
            for entry in list { ended(entry.animation, finished: true) }
            return
        }
        // Records finish at the end of their duration (removed on completion,
        // no delegate). Nothing is copied while none has finished.
        if let records = implicitList, records.contains(where: { t - $0.begin >= $0.duration }) {
            let keep = records.filter { t - $0.begin < $0.duration }
            implicitList = keep.isEmpty ? nil : keep
        }
        guard let list = animationList else { return }
        var keep: [AnimationEntry] = []
        for entry in list {
            let a = entry.animation
            let begin = a.resolvedBeginTime ?? a.timing.beginTime
            let elapsed = (t - begin) * Double(a.timing.speed)
            if !a.didStart && elapsed >= 0 {
                a.didStart = true
                if let d = a.delegate { AnimationRegistry.pending.append(AnimationEvent(animation: a, delegate: d, finished: nil)) }
            }
            let total = a.timing.activeDuration(a.timing.simpleDuration(0.25))
            if a.didStart && elapsed >= total && a.timing.speed != 0 {
                a.endTransactionGroups()
                if a.removedOnCompletion {
                    if let d = a.delegate { AnimationRegistry.pending.append(AnimationEvent(animation: a, delegate: d, finished: true)) }
                    continue
                }
            }
            keep.append(entry)
        }
        // (Unchanged, the list keeps its plan block.)
        if keep.count != list.count { animationList = keep.isEmpty ? nil : keep }
    }

    /// The local time at media time `t` for the animation lifecycle, whether
    /// a layer on the way (self included) has a cycle (a finite duration or
    /// repeatDuration), and whether the active interval of one is over.
    private func lifecycleTime(fromMedia t: Double) -> (time: Double, cycled: Bool, ended: Bool) {
        var chain: [Layer] = []
        var l: Layer? = self
        while let cur = l { chain.append(cur); l = cur.superlayer }
        var time = t, cycled = false, ended = false
        for layer in chain.reversed() {
            guard let timing = layer.timing, !timing.isLinear else {
                time = layer.localTime(fromParent: time)
                continue
            }
            cycled = true
            if time.isNaN { continue }
            let m = timing.mediaTiming
            if let (local, phase) = m.spaceTime(at: time) {
                if phase == .after { ended = true }
                time = local
            } else {
                if (time - m.beginTime) * Double(m.speed) >= 0 { ended = true }
                time = .nan
            }
        }
        return (time, cycled, ended)
    }

    // MARK: - Presentation

    /// A copy of this layer's subtree (and of its ancestors, so that
    /// superlayer links and conversions work) showing animated values at
    /// media time `now`, and the copy that corresponds to this layer.
    ///
    /// `lazyLeaves`: plain leaves' copies may be kept as values and made
    /// only when read (PresentationLeaves.swift): for the host's copies,
    /// which it may read only a few layers of. Internal users, which read
    /// every layer, leave it off.
    package func presentationCopy(now: Double, lazyLeaves: Bool = false) -> Layer {
        if isPresentationCopy { return copyOfPresentationCopy(now: now) }
        var root = self
        while let p = root.superlayer { root = p }
        var found: Layer?
        // (Leaves as values only for a copy of the root: the copy of a
        // sublayer keeps nothing of its ancestors' other descendants.)
        let rootCopy = root.presentationSubtree(parentTime: now, target: self, found: &found,
                                                lazy: lazyLeaves && root === self)
        rootCopy.flags.insert(.presentationRoot)
        // (The walk from the root reaches every model layer; should it not,
        // the layer is copied from itself rather than trapping.)
        guard let copy = found else { return copyOfPresentationCopy(now: now) }
        if copy !== rootCopy {
            // The caller holds only this copy: make it hold its ancestors
            // (superlayer is a weak link), and let the ancestors drop their
            // other descendants so that no cycle forms.
            var node = copy
            while let parent = node.superlayer {
                node.presentationParent = parent
                if let mask = parent.visuals?.mask, mask === node { parent.visuals?.mask = nil } else { parent.sublayers = [] }
                node = parent
            }
        }
        return withExtendedLifetime(rootCopy) { copy }
    }

    /// The presentation copy of a presentation copy (or of a transition
    /// snapshot, or of a layer inside one): a copy of it as it is (a copy
    /// runs no animations) with copies of its sublayers and mask, and copies
    /// of its superlayers that hold only the link up to it, as a copy of a
    /// model sublayer has. Its model layer is the copy's model layer (for a
    /// snapshot, the snapshot's layer). Made from the layer itself, not from
    /// its root: the copies above a copied sublayer or mask no longer list it.
    private func copyOfPresentationCopy(now: Double) -> Layer {
        makeSubtreeObjects()
        var found: Layer?
        let parentTime = superlayer.map { $0.localTime(fromMedia: now) } ?? now
        let copy = presentationSubtree(parentTime: parentTime, target: self, found: &found)
        var node = copy, original = self
        while let parent = original.superlayer {
            let parentCopy = parent.shallowCopy()
            parentCopy.modelLayer = parent.modelLayer ?? parent
            node.superlayer = parentCopy
            node.presentationParent = parentCopy
            node = parentCopy
            original = parent
        }
        node.flags.insert(.presentationRoot)
        return copy
    }

    /// What a transition added to this layer starts from: a presentation copy
    /// of the layer now, detached from the model (no layer in it has a model
    /// layer), so that the layer's own animation list never holds the layer,
    /// its tree or its root (a copy holds its model): a layer the host
    /// releases is freed at once, and its transition with it.
    package func transitionSnapshot(now: Double) -> Layer {
        let snapshot = presentationCopy(now: now)
        // Its subtree, and the copies of its ancestors (which hold only the
        // link down to it).
        var pending = [snapshot]
        while let l = pending.popLast() {
            l.modelLayer = nil
            pending += l.sublayers
            if let m = l.visuals?.mask { pending.append(m) }
        }
        var ancestor = snapshot.presentationParent
        while let a = ancestor {
            a.modelLayer = nil
            ancestor = a.presentationParent
        }
        return snapshot
    }

    /// A presentation copy of this model layer's subtree (no ancestors) at the
    /// time its superlayer's local time is `parentTime`: a replicator's
    /// delayed instances show their sublayers at the replicator's time minus
    /// the instance's delay.
    package func presentationSubtreeCopy(parentTime: Double) -> Layer {
        var found: Layer?
        return presentationSubtree(parentTime: parentTime, target: self, found: &found)
    }

    /// Copies the subtree; `parentTime` is the superlayer's local time (media
    /// time for the root), so each layer's time is one step from its parent's.
    private func presentationSubtree(parentTime: Double, target: Layer, found: inout Layer?,
                                     lazy: Bool = false) -> Layer {
        let copy = shallowCopy()
        presentationSubtree(filling: copy, reused: false, deferTransform: false, parentTime: parentTime,
                            target: target, found: &found, lazy: lazy)
        return copy
    }

    /// The same into `old`, an earlier copy of the same class that nobody
    /// holds any more: it is overwritten instead of allocating a new layer,
    /// and its sublayers' copies are reused the same way. (`old` is borrowed:
    /// no reference counting.)
    private func presentationSubtree(into old: Layer, parentTime: Double, target: Layer, found: inout Layer?,
                                     lazy: Bool = false) {
        // A reused copy skips taking the model's transform when every animation
        // is a typed one and one of them replaces the whole transform; it
        // takes it after all if none of those is in effect now (below).
        let deferTransform = transformBox != nil && replacesWholeTransform()
        // (Its sublayers' values, if it kept them so, stay in its side
        // objects through copyState, for the walk to refill or drop.)
        copyState(into: old, deferTransform: deferTransform)
        presentationSubtree(filling: old, reused: true, deferTransform: deferTransform, parentTime: parentTime,
                            target: target, found: &found, lazy: lazy)
    }

    /// Fills `copy` (this layer's state already copied into it): model link,
    /// sublayers' copies, mask, animated values. `reused`: `copy` is an
    /// earlier copy, whose sublayers' copies are reused.
    private func presentationSubtree(filling copy: Layer, reused: Bool, deferTransform: Bool, parentTime: Double,
                                     target: Layer, found: inout Layer?, lazy: Bool) {
        // A presentation of a presentation still shows the same model layer.
        if modelLayer == nil {
            if !copy.holdsModel(self) { copy.modelLayer = self }
        } else if !copy.holdsModel(modelLayer.unsafelyUnwrapped) {
            copy.modelLayer = modelLayer
        }
        if self === target { found = copy }
        let t = localTime(fromParent: parentTime)
        // The host's copy: plain leaves as values (out of line, so that the
        // walk's usual path stays as it was). This walk reads the stored
        // arrays: the source is a model layer, or a copy whose subtree
        // `copyOfPresentationCopy` made objects of; a reused copy's flag was
        // cleared by copyState, which kept its values aside.
        let asValues = lazy && !storedSublayers.isEmpty
            && fillSublayerValues(of: copy, reused: reused, time: t, target: target, found: &found)
        if !asValues && reused && copy.extras != nil { copy.dropKeptLeaves() }
        // The earlier copies of the sublayers: the reused copy's own, or for a
        // root, those its last released presentation copy left.
        // (A leaf with no earlier copies skips this without touching an array.)
        let spare = !reused && superlayer == nil && extras?.presentationSpare != nil
        if asValues {
            // (Filled above.)
        } else if !storedSublayers.isEmpty || spare || (reused && !copy.storedSublayers.isEmpty) {
            var copies: [Layer] = []
            if reused {
                swap(&copies, &copy.storedSublayers)
            } else if spare {
                copies = presentationSpare!
                presentationSpare = nil
            }
            let n = storedSublayers.count
            if copies.count > n {
                for extra in copies[n...] where extra.superlayer === copy { extra.superlayer = nil }
                copies.removeLast(copies.count - n)
            }
            let reusable = copies.count
            copies.reserveCapacity(n)
            // The model's array is held once (host callbacks run during the
            // walk could replace it) and read through its buffer, with no
            // per-element retain; earlier copies are overwritten in place when
            // this array is their only owner.
            let models = storedSublayers
            let prefetch = n > 8 ? PresentationPrefetch.offsets : nil
            // (Plain leaves' copies are a few lines each: below about 2,000
            // layers, model and copies stay in the second-level cache, and
            // requesting them ahead costs more than it saves.)
            let leafPrefetch = n > 2048 ? prefetch : nil
            models.withUnsafeBufferPointer { subs in
                copies.withUnsafeMutableBufferPointer { previous in
                    // Runs of plain leaves first, then one sublayer the general way.
                    // The runs are looked for only when the first or the last
                    // sublayer is a plain leaf (an animated tree's loop is then the
                    // general one alone) and, where they keep coming up empty, only
                    // every 32 sublayers.
                    var i = 0, misses = 0
                    let tryLeaves = reusable > 0
                        && (subs.unretained(0)._withUnsafeGuaranteedRef { $0.presentsAsPlainLeaf }
                            || subs.unretained(reusable &- 1)._withUnsafeGuaranteedRef { $0.presentsAsPlainLeaf })
                    while i < reusable {
                        if tryLeaves && (misses < 4 || i & 31 == 0) {
                            let next = Layer.refreshPlainLeafCopies(subs, previous, from: i, to: reusable, parent: copy,
                                                                    target: target, prefetch: leafPrefetch)
                            misses = next == i ? misses &+ 1 : 0
                            i = next
                            guard i < reusable else { break }
                        }
                        prefetch?.ahead(i, models: subs, copies: previous)
                        if isKnownUniquelyReferenced(&previous[i]) && previous[i].layerClass === subs[i].layerClass {
                            subs.unretained(i)._withUnsafeGuaranteedRef { sub in
                                UnsafeBufferPointer(previous).unretained(i)._withUnsafeGuaranteedRef { old in
                                    sub.presentationSubtree(into: old, parentTime: t, target: target, found: &found,
                                                            lazy: lazy)
                                    old.superlayer = copy
                                }
                            }
                        } else {
                            let s = subs.unretained(i)._withUnsafeGuaranteedRef { sub in
                                sub.presentationSubtree(parentTime: t, target: target, found: &found, lazy: lazy)
                            }
                            s.superlayer = copy
                            // Someone holds the earlier copy: it keeps its values but
                            // no longer has this superlayer.
                            if previous[i].superlayer === copy { previous[i].superlayer = nil }
                            previous[i] = s
                        }
                        i &+= 1
                    }
                }
                for i in reusable..<n {
                    prefetch?.ahead(i, models: subs, copies: UnsafeMutableBufferPointer(start: nil, count: 0))
                    let s = subs.unretained(i)._withUnsafeGuaranteedRef { sub in
                        sub.presentationSubtree(parentTime: t, target: target, found: &found, lazy: lazy)
                    }
                    s.superlayer = copy
                    copies.append(s)
                }
            }
            copy.storedSublayers = copies
        }
        if let mask = visuals?.mask {
            let m = mask.presentationSubtree(parentTime: t, target: target, found: &found, lazy: lazy)
            // (The copy's visuals come from the committed state, which may
            // have none while the model's mask is new: the mask copy, which
            // may hold the target's copy, must not be dropped.)
            copy.ensureVisuals.mask = m
            m.superlayer = copy
        }
        var transformWritten = false
        // The list is read through its buffer, without retaining it or its
        // entries. Host code (the general evaluation path, a needsDisplayForKey
        // callback) could replace the list during the loop: before anything
        // that may run some, the list is held (retained) for the rest of it.
        // (NaN: a layer here or above, with a finite duration, has no time
        // now: no animation in it has an effect.)
        if animationList != nil && !t.isNaN {
            let hostCode = layerClass.hasNeedsDisplayForKey || copy.flags.contains(.hasStyle)
            // Typed plans only (no host code): the packed block, one read
            // stream instead of the list, the animations and their end points.
            if !hostCode, let block = currentPlanBlock() {
                if PlanBlock.apply(block, to: copy, localTime: t) { transformWritten = true }
            } else {
                let list = animationList.unsafelyUnwrapped.withUnsafeBufferPointer { $0 }
                var held: [AnimationEntry]? = hostCode ? animationList : nil
                for i in list.indices {
                    list.unretainedAnimation(i)._withUnsafeGuaranteedRef { animation in
                        if held == nil && !animation.evaluatesWithoutHostCode { held = animationList }
                        if animation.apply(to: copy, parentTime: t), animation.fastPlan.kind == .transform { transformWritten = true }
                        // needsDisplayForKey keys mark the copy for display while they animate.
                        if hostCode, layerClass.hasNeedsDisplayForKey, let keyPath = animation.keyPath,
                           let first = keyPath.split(separator: ".").first, layerClass.needsDisplay(forKey: String(first)) {
                            copy.flags.insert([.needsDisplay, .presentationRedraw])
                        }
                    }
                }
                withExtendedLifetime(held) {}
                // An animated key that needs display: the copy draws itself
                // with the animated values (after the implicit records, if any).
                if implicitList == nil { copy.displayPresentationIfMarked() }
            }
        }
        // Implicit animations kept as records: newer than every object.
        if let records = implicitList, !t.isNaN {
            for record in records {
                record.apply(to: copy, at: t)
                if layerClass.hasNeedsDisplayForKey, layerClass.needsDisplay(forKey: record.key.name) {
                    copy.flags.insert([.needsDisplay, .presentationRedraw])
                }
            }
            if layerClass.hasNeedsDisplayForKey { copy.displayPresentationIfMarked() }
        }
        if deferTransform && !transformWritten {
            withPresentationSource { TransformBox.assign(from: &$0.transformBox, to: &copy.transformBox) }
        }
    }

    /// Fills `copy`'s sublayers keeping plain leaves as values
    /// (PresentationLeaves.swift) when the first or the last sublayer is one
    /// (most of the others are then too); false, doing nothing, otherwise.
    /// `time`: this layer's local time.
    @inline(never)
    private func fillSublayerValues(of copy: Layer, reused: Bool, time t: Double, target: Layer,
                                    found: inout Layer?) -> Bool {
        guard storedSublayers.withUnsafeBufferPointer({ subs in
                  subs.unretained(0)._withUnsafeGuaranteedRef { $0.presentsAsValueLeaf }
                      || subs.unretained(subs.count &- 1)._withUnsafeGuaranteedRef { $0.presentsAsValueLeaf }
              }) else { return false }
        var leaves = reused && copy.extras != nil ? copy.takeKeptLeaves() : nil
        if leaves == nil && !reused && superlayer == nil, let spare = presentationSpareLeaves {
            leaves = spare
            presentationSpareLeaves = nil
        }
        if reused && !copy.storedSublayers.isEmpty {
            for s in copy.storedSublayers where s.superlayerIs(copy) { s.superlayer = nil }
        }
        fillLazySublayers(of: copy, reusing: leaves, target: target) { sub, earlier in
            if earlier != nil && isKnownUniquelyReferenced(&earlier!) && earlier.unsafelyUnwrapped.layerClass === sub.layerClass {
                let old = earlier.unsafelyUnwrapped
                sub.presentationSubtree(into: old, parentTime: t, target: target, found: &found, lazy: true)
                return old
            }
            return sub.presentationSubtree(parentTime: t, target: target, found: &found, lazy: true)
        }
        return true
    }

    /// Makes `copies[start...]`, earlier copies of `models[start...]`, their
    /// copies again under `parent`, for as long as the model is a plain leaf
    /// other than `target` and its copy a bare one of the same class that only
    /// `copies` holds: all there is to copy is then the inline state and the
    /// visuals (written into the copy's own boxes), and the general walk
    /// would find nothing else to do. Returns the index of the
    /// first sublayer left to the general walk (`end` when none).
    @inline(never)
    fileprivate static func refreshPlainLeafCopies(_ models: UnsafeBufferPointer<Layer>,
                                                   _ copies: UnsafeMutableBufferPointer<Layer>,
                                                   from start: Int, to end: Int, parent: Layer, target: Layer,
                                                   prefetch: PresentationPrefetch?) -> Int {
        let targetAddress = Unmanaged.passUnretained(target).toOpaque()
        var i = start
        while i < end {
            let model = models.unretained(i)
            // (The model first: an animated layer leaves at its first test.)
            guard model.toOpaque() != targetAddress, model._withUnsafeGuaranteedRef({ $0.presentsAsPlainLeaf }),
                  isKnownUniquelyReferenced(&copies[i]) else { break }
            let refreshed = model._withUnsafeGuaranteedRef { m in
                UnsafeBufferPointer(copies).unretained(i)._withUnsafeGuaranteedRef { old in
                    guard m.layerClass === old.layerClass, old.isBareCopy else { return false }
                    old.assignVisuals(copyOf: m)
                    old.assignInlineState(copyOf: m)
                    if !old.holdsModel(m) { old.modelLayer = m }
                    old.superlayer = parent
                    return true
                }
            }
            guard refreshed else { break }
            prefetch?.ahead(i, models: models, copies: copies, visuals: true)
            i &+= 1
        }
        return i
    }

    /// True when this model layer's presentation copy is its inline state
    /// and its visuals alone: no sublayers, side objects other than the
    /// visuals, mask, animations, uncommitted changes, style or
    /// initWithLayer callback, and not itself a copy. (A clear `sideState`
    /// flag already says all but the mask: see PresentationLeaves.swift.)
    @inline(__always)
    fileprivate var presentsAsPlainLeaf: Bool {
        if flags.rawValue & (LayerFlags.sideState.rawValue | LayerFlags.hasStyle.rawValue) == 0 { return hasNoMask }
        return holdsOnlyInlineState && hasNoMask && modelLayer == nil && !flags.contains(.hasStyle)
            && !hasCommittedSnapshot && !layerClass.hasInitWithLayer
    }

    /// True when this earlier copy holds nothing beyond its inline state and
    /// visuals without a mask (nothing else that `assign(copyOf:)` would have
    /// to clear).
    @inline(__always)
    fileprivate var isBareCopy: Bool { holdsOnlyInlineState && hasNoMask && transactionState == nil }

    /// No sublayers, side objects other than the visuals, or animations:
    /// what a plain leaf and a bare copy have in common.
    @inline(__always)
    package var holdsOnlyInlineState: Bool {
        // (The stored array: a copy that keeps its sublayers as values has
        // side objects, `extras`, which fail the test anyway.)
        storedSublayers.isEmpty && timing == nil && extras == nil && animationList == nil && implicitList == nil
    }

    /// No visuals, or visuals without a mask (read without reference counting).
    @inline(__always)
    private var hasNoMask: Bool {
        guard let v = unretainedVisuals else { return true }
        return v._withUnsafeGuaranteedRef { v in
            unretained(&v.rare).map { $0._withUnsafeGuaranteedRef { $0.mask == nil } } ?? true
        }
    }

    /// The visuals without a retain.
    @inline(__always)
    var unretainedVisuals: Unmanaged<LayerVisuals>? { unretained(&visuals) }

    /// This copy's visuals made `other`'s (but the mask): its own box
    /// overwritten in place when nothing else holds it (no allocation),
    /// otherwise a fresh copy; none when `other` has none. Read without
    /// reference counting.
    @inline(__always)
    package func assignVisuals(copyOf other: Layer) {
        if let v = other.unretainedVisuals {
            if let own = unretainedVisuals, isKnownUniquelyReferenced(&visuals!) {
                own._withUnsafeGuaranteedRef { o in v._withUnsafeGuaranteedRef { o.assign(copyOf: $0) } }
            } else {
                visuals = v._withUnsafeGuaranteedRef { $0.copy() }
            }
        } else if visuals != nil {
            visuals = nil
        }
    }

    /// Frees the copies kept for reuse by this layer's root: a layer leaving
    /// the tree must not be kept alive by the copies of it (called before
    /// sublayers or a mask are removed).
    package func dropPresentationSpare() {
        var root = self
        while let p = root.superlayer { root = p }
        if root.presentationSpare != nil { root.presentationSpare = nil }
        if root.presentationSpareLeaves != nil { root.presentationSpareLeaves = nil }
    }

    /// True when every animation is evaluated by a typed plan (none reads the
    /// current transform) and one of them sets the whole transform: what the
    /// layer's plan block records (made here if need be).
    @inline(__always)
    package func replacesWholeTransform() -> Bool {
        guard !flags.contains(.hasStyle), implicitList == nil, animationList != nil, let b = currentPlanBlock()
        else { return false }
        return PlanBlock.header(b).setsTransform
    }

    /// True when `modelLayer` is `model` (compared without retaining either).
    @inline(__always)
    package func holdsModel(_ model: Layer) -> Bool {
        withUnsafeMutablePointer(to: &_modelLayer) {
            UnsafeRawPointer($0).load(as: UnsafeRawPointer?.self)
        } == UnsafeRawPointer(Unmanaged.passUnretained(model).toOpaque())
    }

    /// True when the layer has uncommitted changes, logged so that
    /// presentation shows its committed values (read without reference counting).
    @inline(__always)
    package var hasCommittedSnapshot: Bool {
        guard let state = withUnsafeMutablePointer(to: &_transactionState, { UnsafeRawPointer($0).load(as: UnsafeRawPointer?.self) })
        else { return false }
        return Unmanaged<LayerTransactionState>.fromOpaque(state)._withUnsafeGuaranteedRef { s in
            s.logging
        }
    }

    /// What presentation copies: the committed state, which a layer with
    /// uncommitted changes builds from the model and its log of committed
    /// values; else the layer itself. (Tested without retaining self or its state.)
    /// (A body, not a returned reference: the layer itself is passed
    /// without a retain.)
    @inline(__always)
    package func withPresentationSource<R>(_ body: (Layer) -> R) -> R {
        hasCommittedSnapshot ? body(committedSnapshot().unsafelyUnwrapped) : body(self)
    }

    /// A copy of the layer's own state (no tree links), as initWithLayer: makes.
    package func shallowCopy() -> Layer {
        let c = withPresentationSource { Layer(copyOf: $0) }
        initWithLayer(c)
        return c
    }

    /// Overwrites `old` (an unreferenced earlier copy of the same class) with
    /// a copy of the layer's own state, as `shallowCopy` makes.
    @inline(__always)
    private func copyState(into old: Layer, deferTransform: Bool) {
        withPresentationSource { old.assign(copyOf: $0, deferTransform: deferTransform) }
        initWithLayer(old)
    }

    /// Runs the nearest initWithLayer callback of the class chain on copy `c`.
    @inline(__always)
    private func initWithLayer(_ c: Layer) {
        if layerClass.hasInitWithLayer, let (fn, info, _) = layerClass.nearest({ $0.initWithLayer }) {
            hostCall { fn(c.handle, handle, info) }
        }
    }
}

/// What the stored reference `ref` holds, without a retain: its owner keeps
/// it alive for as long as the caller neither changes `ref` nor lets the
/// owner go.
@inline(__always)
func unretained<T: AnyObject>(_ ref: inout T?) -> Unmanaged<T>? {
    withUnsafeMutablePointer(to: &ref) { UnsafeRawPointer($0).load(as: UnsafeRawPointer?.self) }
        .map { Unmanaged<T>.fromOpaque($0) }
}

extension UnsafeBufferPointer where Element: AnyObject {
    /// Element `i` without a retain: the buffer's owner keeps it alive for
    /// as long as the caller uses it (evaluation loops over the model).
    @inline(__always)
    package func unretained(_ i: Int) -> Unmanaged<Element> {
        Unmanaged.fromOpaque(UnsafeRawPointer(baseAddress.unsafelyUnwrapped)
            .load(fromByteOffset: i &* MemoryLayout<Element>.stride, as: UnsafeRawPointer.self))
    }
}

extension UnsafeBufferPointer where Element == AnimationEntry {
    /// The animation of entry `i` without a retain (the layer's list keeps it).
    @inline(__always)
    package func unretainedAnimation(_ i: Int) -> Unmanaged<Animation> {
        Unmanaged.fromOpaque(UnsafeRawPointer(baseAddress.unsafelyUnwrapped)
            .load(fromByteOffset: i &* MemoryLayout<AnimationEntry>.stride + AnimationEntry.animationOffset,
                  as: UnsafeRawPointer.self))
    }
}

extension AnimationEntry {
    @inline(__always)
    package static var animationOffset: Int { MemoryLayout<AnimationEntry>.offset(of: \.animation).unsafelyUnwrapped }
}

extension LayerVisuals {
    /// A presentation copy's visuals: every property but the mask (the
    /// presentation code copies the mask layer itself).
    package func copy() -> LayerVisuals {
        let c = LayerVisuals()
        c.assign(copyOf: self)
        return c
    }

    /// Makes this box (a presentation copy's own, which nothing else holds)
    /// what `copy()` of `other` would be, without allocating: the rare box
    /// too is overwritten in place when this one has its own. References
    /// already equal are left alone (no retain and release).
    package func assign(copyOf other: LayerVisuals) {
        if contents !== other.contents { contents = other.contents }
        if let r = unretained(&other.rare) {
            if let own = unretained(&rare), isKnownUniquelyReferenced(&rare!) {
                own._withUnsafeGuaranteedRef { o in r._withUnsafeGuaranteedRef { o.assign(copyOf: $0) } }
            } else {
                rare = r._withUnsafeGuaranteedRef { $0.copy() }
            }
        } else if rare != nil {
            rare = nil
        }
    }
}

extension LayerRareVisuals {
    /// A copy of every property but the mask.
    package func copy() -> LayerRareVisuals {
        let c = LayerRareVisuals()
        c.assign(copyOf: self)
        return c
    }

    /// Every property of `other` but the mask, which is cleared (see
    /// LayerVisuals.assign(copyOf:)).
    package func assign(copyOf other: LayerRareVisuals) {
        contentsRect = other.contentsRect; contentsCenter = other.contentsCenter
        contentsGravity = other.contentsGravity; contentsScale = other.contentsScale
        minificationFilter = other.minificationFilter; minificationFilterBias = other.minificationFilterBias
        magnificationFilter = other.magnificationFilter
        if borderColor !== other.borderColor { borderColor = other.borderColor }
        shadowOpacity = other.shadowOpacity
        shadowRadius = other.shadowRadius; shadowOffset = other.shadowOffset
        if shadowColor !== other.shadowColor { shadowColor = other.shadowColor }
        if shadowPath !== other.shadowPath { shadowPath = other.shadowPath }
        edgeAntialiasingMask = other.edgeAntialiasingMask
        rasterizationScale = other.rasterizationScale
        if filters !== other.filters { filters = other.filters }
        if backgroundFilters !== other.backgroundFilters { backgroundFilters = other.backgroundFilters }
        if compositingFilter !== other.compositingFilter { compositingFilter = other.compositingFilter }
        if mask != nil { mask = nil }
        if name !== other.name { name = other.name }
        if style !== other.style { style = other.style }
        if actions !== other.actions { actions = other.actions }
        dirtyRect = other.dirtyRect
    }
}

extension LayerTiming {
    package func copy() -> LayerTiming {
        let c = LayerTiming()
        c.beginTime = beginTime; c.duration = duration; c.speed = speed; c.timeOffset = timeOffset
        c.repeatCount = repeatCount; c.repeatDuration = repeatDuration; c.autoreverses = autoreverses; c.fillMode = fillMode
        return c
    }
}

extension TextLayerState {
    package func copy() -> TextLayerState {
        let c = TextLayerState()
        c.string = string; c.font = font; c.fontSize = fontSize; c.foregroundColor = foregroundColor
        c.wrapped = wrapped; c.alignmentMode = alignmentMode; c.truncationMode = truncationMode
        c.lastLayout = lastLayout; c.lastSignature = lastSignature
        return c
    }
}

extension TiledLayerState {
    package func copy() -> TiledLayerState {
        let c = TiledLayerState()
        c.levelsOfDetail = levelsOfDetail; c.levelsOfDetailBias = levelsOfDetailBias; c.tileSize = tileSize
        return c
    }
}
