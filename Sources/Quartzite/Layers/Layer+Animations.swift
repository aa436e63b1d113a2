import CQuartzite

/// An animation running on a layer under a key (nil for an unnamed one).
struct AnimationEntry {
    let key: String?
    let animation: Animation
    /// For a transition: the layer's subtree as it looked when the transition
    /// was added (what the renderer transitions from).
    var snapshot: Layer? = nil
}

/// One delegate message waiting to be delivered by QZAnimationProcessEvents.
struct AnimationEvent {
    let animation: Animation
    let delegate: AnimationDelegate
    /// nil: animationDidStart; otherwise animationDidStop(finished).
    let finished: Bool?
}

/// Layers with animations, and the delegate messages owed (model lock held).
enum AnimationRegistry {
    nonisolated(unsafe) static var layers: [ObjectIdentifier: Weak] = [:]
    nonisolated(unsafe) static var pending: [AnimationEvent] = []

    final class Weak {
        weak var layer: Layer?
        init(_ layer: Layer) { self.layer = layer }
    }
}

extension Layer {
    // MARK: - Adding and removing

    /// Apple's addAnimation:forKey:: stores a copy. A beginTime of 0 means
    /// "now" in the layer's time; a duration of 0 or less becomes 0.25 s.
    /// An animation under the same key is replaced (its delegate hears
    /// animationDidStop with finished = false).
    func addAnimation(_ animation: Animation, forKey key: String?, now: Double) {
        let copy = animation.copy()
        if copy.timing.duration <= 0 { copy.timing.duration = 0.25 }
        insertCommitted(copy, forKey: key, now: now)
    }

    /// Starts an animation that is now part of the committed state: a
    /// beginTime of 0 resolves to the layer's local time at `now`.
    /// `localNow` (the layer's local time at `now`) spares the walk up the tree;
    /// `register` false leaves registering the layer to the caller.
    func insertCommitted(_ copy: Animation, forKey key: String?, now: Double, localNow: Double? = nil, register: Bool = true) {
        copy.resolvedBeginTime = copy.timing.beginTime == 0 ? (localNow ?? localTime(fromMedia: now)) : copy.timing.beginTime
        // A transition always runs under kCATransition, from a snapshot of now.
        let isTransition = copy.animationKind == .transition
        let key = isTransition ? "transition" : key
        let snapshot = isTransition ? presentationCopy(now: now) : nil
        if let key { removeCommittedAnimation(forKey: key, finished: false) }
        if animationList == nil { animationList = [] }
        animationList!.append(AnimationEntry(key: key, animation: copy, snapshot: snapshot))
        if register { AnimationRegistry.layers[ObjectIdentifier(self)] = AnimationRegistry.Weak(self) }
    }

    /// The animation under `key`: one added in the open transaction, else a running one.
    func animation(forKey key: String) -> Animation? {
        if let p = transactionState?.pending.last(where: { $0.key == key }) { return p.animation }
        return animationList?.last(where: { $0.key == key })?.animation
    }

    var animationKeys: [String] {
        let committed = animationList?.compactMap(\.key) ?? []
        guard let pending = transactionState?.pending, !pending.isEmpty else { return committed }
        let added = pending.compactMap(\.key)
        return committed.filter { !added.contains($0) } + added
    }

    func removeAnimation(forKey key: String, finished: Bool) {
        if let state = transactionState, let i = state.pending.firstIndex(where: { $0.key == key }) {
            let entry = state.pending.remove(at: i)
            ended(entry.animation, finished: finished)
        }
        removeCommittedAnimation(forKey: key, finished: finished)
    }

    func removeCommittedAnimation(forKey key: String, finished: Bool) {
        guard let list = animationList, let i = list.firstIndex(where: { $0.key == key }) else { return }
        let entry = list[i]
        animationList!.remove(at: i)
        ended(entry.animation, finished: finished)
        if animationList!.isEmpty { animationList = nil }
    }

    func removeAllAnimations() {
        var list = animationList ?? []
        animationList = nil
        if let state = transactionState, !state.pending.isEmpty {
            list += state.pending
            state.pending = []
        }
        for entry in list { ended(entry.animation, finished: false) }
    }

    /// Queues the delegate's messages for an animation leaving the layer: a
    /// start it never got, then the stop.
    func ended(_ animation: Animation, finished: Bool) {
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
    func transitionState(now: Double) -> (animation: Animation, progress: Double, snapshot: Layer?)? {
        guard let entry = animationList?.last(where: { $0.animation.animationKind == .transition }) else { return nil }
        guard let p = entry.animation.transitionProgress(at: localTime(fromMedia: now)) else { return nil }
        return (entry.animation, p, entry.snapshot)
    }

    // MARK: - Events

    /// Starts animations whose begin time has come and finishes those whose
    /// active interval is over (removing them when removedOnCompletion),
    /// queuing their delegates' messages. `now` is media time.
    func updateAnimationLifecycle(now: Double) {
        guard let list = animationList else { return }
        let t = localTime(fromMedia: now)
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
        animationList = keep.isEmpty ? nil : keep
    }

    // MARK: - Presentation

    /// A copy of this layer's subtree (and of its ancestors, so that
    /// superlayer links and conversions work) showing animated values at
    /// media time `now`, and the copy that corresponds to this layer.
    func presentationCopy(now: Double) -> Layer {
        var root = self
        while let p = root.superlayer { root = p }
        var found: Layer?
        let rootCopy = root.presentationSubtree(parentTime: now, target: self, found: &found)
        let copy = found!
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

    /// Copies the subtree; `parentTime` is the superlayer's local time (media
    /// time for the root), so each layer's time is one step from its parent's.
    private func presentationSubtree(parentTime: Double, target: Layer, found: inout Layer?) -> Layer {
        let copy = shallowCopy()
        // A presentation of a presentation still shows the same model layer.
        copy.modelLayer = modelLayer ?? self
        if self === target { found = copy }
        let t = localTime(fromParent: parentTime)
        if !sublayers.isEmpty {
            copy.sublayers.reserveCapacity(sublayers.count)
            for sub in sublayers {
                let s = sub.presentationSubtree(parentTime: t, target: target, found: &found)
                copy.sublayers.append(s)
                s.superlayer = copy
            }
        }
        if let mask = visuals?.mask {
            let m = mask.presentationSubtree(parentTime: t, target: target, found: &found)
            copy.visuals?.mask = m
            m.superlayer = copy
        }
        if let list = animationList {
            for entry in list {
                entry.animation.apply(to: copy, parentTime: t)
                // needsDisplayForKey keys mark the copy for display while they animate.
                if layerClass.hasNeedsDisplayForKey, let keyPath = entry.animation.keyPath,
                   let first = keyPath.split(separator: ".").first, layerClass.needsDisplay(forKey: String(first)) {
                    copy.flags.insert(.needsDisplay)
                }
            }
        }
        return copy
    }

    /// A copy of the layer's own state (no tree links), as initWithLayer: makes.
    func shallowCopy() -> Layer {
        let c = Layer(copyOf: transactionState?.committed ?? self)
        if let (fn, info, _) = layerClass.nearest({ $0.initWithLayer }) {
            hostCall { fn(c.handle, handle, info) }
        }
        return c
    }
}

extension LayerVisuals {
    func copy() -> LayerVisuals {
        let c = LayerVisuals()
        c.contents = contents; c.contentsRect = contentsRect; c.contentsCenter = contentsCenter
        c.contentsGravity = contentsGravity; c.contentsScale = contentsScale
        c.minificationFilter = minificationFilter; c.minificationFilterBias = minificationFilterBias
        c.magnificationFilter = magnificationFilter; c.cornerRadius = cornerRadius; c.borderWidth = borderWidth
        c.borderColor = borderColor; c.backgroundColor = backgroundColor; c.shadowOpacity = shadowOpacity
        c.shadowRadius = shadowRadius; c.shadowOffset = shadowOffset; c.shadowColor = shadowColor
        c.shadowPath = shadowPath; c.edgeAntialiasingMask = edgeAntialiasingMask
        c.rasterizationScale = rasterizationScale; c.filters = filters; c.backgroundFilters = backgroundFilters
        c.compositingFilter = compositingFilter; c.name = name; c.style = style; c.actions = actions
        c.dirtyRect = dirtyRect
        return c
    }
}

extension LayerTiming {
    func copy() -> LayerTiming {
        let c = LayerTiming()
        c.beginTime = beginTime; c.duration = duration; c.speed = speed; c.timeOffset = timeOffset
        c.repeatCount = repeatCount; c.repeatDuration = repeatDuration; c.autoreverses = autoreverses; c.fillMode = fillMode
        return c
    }
}

extension TextLayerState {
    func copy() -> TextLayerState {
        let c = TextLayerState()
        c.string = string; c.font = font; c.fontSize = fontSize; c.foregroundColor = foregroundColor
        c.wrapped = wrapped; c.alignmentMode = alignmentMode; c.truncationMode = truncationMode
        return c
    }
}

extension TiledLayerState {
    func copy() -> TiledLayerState {
        let c = TiledLayerState()
        c.levelsOfDetail = levelsOfDetail; c.levelsOfDetailBias = levelsOfDetailBias; c.tileSize = tileSize
        return c
    }
}
