import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import Glibc

// A layer's side of transactions: changes made through the API join the
// calling thread's open transaction (each changed property's committed value
// is logged before its first change), the action for the changed key is looked up before the
// change and run after it (Apple's actionForKey: / runActionForKey:), and
// animations wait in the transaction until it commits. Model lock held.

/// An action found before a change, run after it.
@usableFromInline package struct PendingAction {
    package let action: QZObject
    /// A fresh implicit animation: added as is (no copy).
    package let owned: Bool
}

extension Layer {
    // MARK: - Animations in a transaction

    /// Apple's addAnimation:forKey: through the API: a copy waits in the calling thread's open transaction and starts when it
    /// commits. A duration of 0 or less takes the transaction's
    /// animationDuration (0.25 s by default). The completions of the open
    /// scopes wait for it.
    package func addAnimationInTransaction(_ animation: Animation, forKey key: String?) {
        let t = ThreadTransactions.current
        let a = animation.copy()
        if a.timing.duration <= 0 { a.timing.duration = t.animationDuration }
        let state = Transactions.enlist(self, t, snapshot: false)
        let key = a.animationKind == .transition ? "transition" : key
        appendPending(a, forKey: key, mask: LayerTransactionState.mask(for: key), state: state, thread: t)
    }

    /// Queues `a` in the open transaction under `key`, replacing one queued
    /// under the same key. `mask` is LayerTransactionState.mask(for: key).
    @inline(__always)
    package func appendPending(_ a: Animation, forKey key: String?, mask: UInt64, state: LayerTransactionState, thread t: ThreadTransactions) {
        if let key, state.pendingKeys & mask != 0 {
            if let i = state.pending.firstIndex(where: { $0.key == key }) {
                let old = state.pending.remove(at: i)
                ended(old.animation, finished: false)
            } else if let k = LayerKey.byName[key], let i = state.pendingImplicit.firstIndex(where: { $0.key == k }) {
                state.pendingImplicit.remove(at: i)
            }
        }
        // Implicit records stay the newest: they become objects before this one.
        materializePendingImplicit(state)
        state.pendingKeys |= mask
        if t.hasCompletions {
            for s in t.scopes {
                for g in s.completions {
                    g.liveAnimations += 1
                    if a.completionGroups == nil { a.completionGroups = [g] } else { a.completionGroups!.append(g) }
                }
            }
        }
        if state.pending.isEmpty { state.pending.reserveCapacity(16) }
        state.pending.append(AnimationEntry(key: key, animation: a))
        if a.animationKind == .transition, let record = state.record { record.transitionSlots.append(state.slot) }
    }

    /// The animations of a committed transaction start now.
    /// `transitionSnapshot`: the subtree's state before this commit, for a
    /// pending transition (what it transitions from).
    /// `implicit`: the implicit animations kept as records (newer than `pending`).
    package func startCommitted(_ pending: [AnimationEntry], implicit records: consuming [ImplicitAnimation] = [], now: Double,
                        transitionSnapshot: Layer? = nil) {
        let localNow = quickLocalTime(fromMedia: now)
        if !pending.isEmpty {
            // Running records are older than these objects: objects first.
            materializeImplicitList()
            startCommittedObjects(pending, now: now, localNow: localNow, transitionSnapshot: transitionSnapshot)
        }
        if !records.isEmpty { startCommittedImplicit(consume records, localNow: localNow) }
        AnimationRegistry.register(self)
    }

    private func startCommittedObjects(_ pending: [AnimationEntry], now: Double, localNow: Double, transitionSnapshot: Layer?) {
        // One pass: begin times (what the fast path needs), and whether a
        // transition or a completion needs the other passes.
        var hasTransition = false, hasGroups = false
        for entry in pending {
            let a = entry.animation
            if a.animationKind == .transition { hasTransition = true }
            if a.completionGroups != nil { hasGroups = true }
            a.resolvedBeginTime = a.timing.beginTime == 0 ? localNow : a.timing.beginTime
        }
        if (animationList?.isEmpty ?? true) && !hasTransition {
            // Nothing to replace (keys in a transaction are unique): the
            // pending list becomes the running list.
            animationList = pending.keptForRunning()
        } else {
            for entry in pending {
                insertCommitted(entry.animation, forKey: entry.key, now: now, localNow: localNow, register: false,
                                transitionSnapshot: transitionSnapshot)
            }
        }
        for entry in pending where hasGroups {
            let a = entry.animation
            guard let groups = a.completionGroups else { continue }
            let begin = a.resolvedBeginTime ?? 0
            let total = a.timing.activeDuration(a.timing.simpleDuration(0.25))
            let speed = Double(a.timing.speed)
            let end = speed > 0 && total.isFinite ? mediaTime(fromLocal: begin + total / speed) : Double.infinity
            for g in groups { g.deadline = Swift.max(g.deadline, end) }
        }
    }

    /// localTimeForBegin(fromMedia:) without building the chain when no layer
    /// up to the root has timing of its own (the usual case: time is media time).
    @inline(__always)
    package func quickLocalTime(fromMedia t: Double) -> Double {
        var l: Layer? = self
        while let c = l {
            if c.timing != nil { return localTimeForBegin(fromMedia: t) }
            l = c.superlayer
        }
        return t
    }

    // MARK: - Changes

    /// Before a change of a declared property through the API: joins the
    /// transaction (logging the key's committed value) and finds the action.
    @inline(__always)
    @usableFromInline package func willChange(_ key: LayerKey) -> PendingAction? {
        // A layer whose creation is not committed yet logs nothing and
        // has no implicit animation: without action sources, nothing to do.
        if creator != nil, !isCommitted, !hasActionSources { return nil }
        let t = ThreadTransactions.current
        // Already in an open transaction: its committed state is kept.
        let state: LayerTransactionState
        if let s = transactionState, s.record != nil {
            state = s
            // Joined without logging (an animation was added first): start
            // now, before the first change of a property.
            if !s.logging && isCommitted { s.startLogging(self) }
        } else {
            state = Transactions.enlist(self, t, snapshot: true)
        }
        state.log(key, of: self)
        if t.disableActions { return nil }
        // Nothing to ask the host: the implicit animation, without the key's name.
        if !hasActionSources {
            guard key.isAnimatable, key != .sublayers, key != .mask, isCommitted else { return nil }
            return PendingAction(action: implicitAnimation(key, thread: t), owned: true)
        }
        return findAction(forKey: key.name, declared: key, thread: t)
    }

    /// After the change: runs the action found before it.
    @inline(__always)
    @usableFromInline package func runPendingAction(_ key: String, _ pending: PendingAction?) {
        guard let pending else { return }
        if pending.owned, let state = transactionState {
            // (owned: always a fresh implicit animation.)
            let a = unsafeDowncast(pending.action, to: Animation.self)
            // A fresh implicit animation: the layer joined the transaction in willChange.
            appendPending(a, forKey: key, mask: LayerTransactionState.mask(for: a.keyPathKey), state: state,
                          thread: ThreadTransactions.current)
        } else {
            Actions.run(pending.action, key: key, layer: self, arguments: nil)
        }
    }

    /// Runs the action for an event key (onOrderIn, onOrderOut, transition,
    /// a custom key) unless the transaction disables actions.
    @usableFromInline package func triggerAction(_ key: String) {
        // Event keys have no implicit animation: only the host can answer.
        guard hasActionSources else { return }
        let t = ThreadTransactions.current
        _ = Transactions.enlist(self, t, snapshot: true)
        if t.disableActions { return }
        if let p = findAction(forKey: key, declared: LayerKey.byName[key].flatMap { declares($0) ? $0 : nil }, thread: t) {
            runPendingAction(key, p)
        }
    }

    // MARK: - The action search

    /// Apple's actionForKey: (the delegate, the actions dictionary, the style's
    /// actions, the class's defaultActionForKey, then the implicit animation
    /// of an animatable property). The strings are only built when a layer
    /// has something to ask.
    /// True once the transaction that created the layer through the API
    /// committed (always for layers the engine made).
    @inline(__always) @usableFromInline package var isCommitted: Bool {
        guard creator != nil else { return true }
        if creator!.committed {
            creator = nil
            return true
        }
        return false
    }

    /// Whether the action search has anything to ask before the implicit animation.
    @inlinable @inline(__always) package var hasActionSources: Bool {
        // (.hasActions: visuals?.actions != nil, without reaching LayerVisuals' rare storage;
        // .classActions: layerClass.hasDefaultActionForKey, without reaching the class.)
        flags.rawValue & (LayerFlags.hasStyle.rawValue | LayerFlags.hasActions.rawValue | LayerFlags.classActions.rawValue) != 0
            || (hooks != nil && hooks!.delegate?.actionForLayerForKey != nil)
    }

    package func findAction(forKey key: String, declared: LayerKey?, thread t: ThreadTransactions) -> PendingAction? {
        let delegateFn = hooks?.delegate?.actionForLayerForKey
        let actions = visuals?.actions
        let hasStyle = flags.contains(.hasStyle)
        let classFn = layerClass.hasDefaultActionForKey
        if delegateFn != nil || actions != nil || hasStyle || classFn {
            switch searchHost(key, delegateFn: delegateFn, actions: actions, hasStyle: hasStyle, classFn: classFn) {
            case .found(let o): return PendingAction(action: o, owned: false)
            case .stop: return nil
            case .none: break
            }
        }
        guard let declared, declared.isAnimatable, declared != .sublayers, declared != .mask,
              isCommitted else { return nil }
        return PendingAction(action: implicitAnimation(declared, thread: t), owned: true)
    }

    package enum SearchResult { case found(QZObject), stop, none }

    private func searchHost(_ key: String, delegateFn: (@convention(c) (CALayerRef?, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> CAActionRef?)?,
                            actions: Value?, hasStyle: Bool, classFn: Bool) -> SearchResult {
        func answer(_ r: CAActionRef?) -> SearchResult {
            guard let r else { return .none }
            guard let o = Actions.object(r, "actionForKey") else { return .none }
            return o === Action.null ? .stop : .found(o)
        }
        func entry(_ dictionary: Value?) -> SearchResult {
            guard let d = dictionary, case .dictionary(let entries) = d.storage, let v = entries[key] else { return .none }
            let (a, isNull) = Actions.fromValue(v)
            if isNull { return .stop }
            return a.map { .found($0) } ?? .none
        }
        if let fn = delegateFn {
            let info = hooks?.delegateInfo
            let h = handle
            let r = key.withCString { k in hostCall { fn(h, k, info) } }
            let a = answer(r)
            if case .none = a {} else { return a }
        }
        let fromActions = entry(actions)
        if case .none = fromActions {} else { return fromActions }
        if hasStyle {
            var style = visuals?.style
            while let s = style, case .dictionary(let entries) = s.storage {
                let a = entry(entries["actions"])
                if case .none = a {} else { return a }
                style = entries["style"]
            }
        }
        if classFn {
            let a = answer(layerClass.defaultAction(forKey: key))
            if case .none = a {} else { return a }
        }
        return .none
    }

    /// The implicit animation of a property: a CABasicAnimation from the
    /// current presentation value (to the model value), with the
    /// transaction's duration and timing function (default: kCAMediaTimingFunctionDefault).
    package func implicitAnimation(_ key: LayerKey, thread t: ThreadTransactions) -> Animation {
        let lazy = presentationEndpoint(key)
        let boxed: Value?
        if case .none = lazy { boxed = presentationValue(key) } else { boxed = nil }
        return Animation(implicitFor: key, keyPathC: LayerKey.sharedCNames[key.rawValue], lazyFrom: lazy, from: boxed,
                         duration: t.animationDuration, timingFunction: t.implicitTimingFunction)
    }

    /// presentationValue(key) unboxed, for the common case (no running
    /// animations, no style, a number, point, rect, colour or transform property);
    /// .none when the boxed path must answer. Reads what declaredValue reads.
    @inline(__always)
    package func presentationEndpoint(_ key: LayerKey) -> LazyEndpoint {
        guard animationList == nil, implicitList == nil, !flags.contains(.hasStyle) else { return .none }
        // Changed in the open transaction: the committed value is in the log
        // (a style set meanwhile sends it to the boxed path).
        if let state = transactionState, state.logging {
            if state.isLogged(.style) { return .none }
            if let old = state.committedEndpoint(key) {
                if case .value = old { return .none }
                return old
            }
        }
        switch key {
        case .position, .anchorPoint, .bounds, .zPosition, .anchorPointZ, .opacity, .cornerRadius, .borderWidth,
             .shadowOpacity, .shadowRadius, .transform, .sublayerTransform, .backgroundColor:
            return storedEndpoint(key)   // (a nil colour is .none: the boxed path)
        default: return .none
        }
    }

    /// The value of `key` the presentation shows now: the committed state,
    /// with the running animations applied when there are any.
    package func presentationValue(_ key: LayerKey) -> Value? {
        if animationList == nil && implicitList == nil {
            // Nothing animates: the key's committed value is the model's
            // unless it (or the style) changed in the open transaction.
            if let state = transactionState, state.logging, state.isLogged(key) || state.isLogged(.style) {
                return committedSnapshot()?.declaredValue(key)
            }
            return declaredValue(key)
        }
        let source = committedSnapshot() ?? self
        let copy = Layer(copyOf: source)
        let local = quickLocalTime(fromMedia: MediaClock.now())
        for entry in animationList ?? [] { entry.animation.apply(to: copy, parentTime: local) }
        for record in implicitList ?? [] { record.apply(to: copy, at: local) }
        return copy.declaredValue(key)
    }
}

extension Transactions {
    /// A layer with transaction state is being freed: its slot in an open
    /// transaction empties and its waiting animations stop counting.
    package static func layerFreed(_ s: LayerTransactionState) {
        withModelLock {
            if let r = s.record, s.slot < r.layers.count { r.layers[s.slot] = nil }
            s.record = nil
            for e in s.pending { e.animation.endTransactionGroups() }
            s.pending = []
            s.pendingImplicit = []
        }
    }
}

extension LayerTransactionState {
    /// In an open transaction (`record` tested without retaining it).
    @inline(__always) package var isEnlisted: Bool {
        withUnsafeMutablePointer(to: &record) { UnsafeRawPointer($0).load(as: UnsafeRawPointer?.self) } != nil
    }

    /// The bit of `pendingKeys` for a key: its LayerKey's bit, or bit 63 for
    /// any other key (0 for no key: nothing to replace).
    @inline(__always) package static func mask(for key: LayerKey?) -> UInt64 {
        key.map { 1 << UInt64($0.rawValue) } ?? 1 << 63
    }

    package static func mask(for key: String?) -> UInt64 {
        guard let key else { return 0 }
        return mask(for: LayerKey.byName[key])
    }
}

extension LayerKey {
    /// Every key's name as a C string, shared by the implicit animations.
    package static let sharedCNames: [CString] = LayerKey.allCases.map { CString($0.name) }
}


extension Layer {
    // MARK: - The export layer's entry points

    /// Wraps a change of a declared property made through the API: the
    /// action is found before `body` changes the model and run after it.
    /// `frame` runs the position and bounds actions; `hidden` also runs
    /// onOrderOut / onOrderIn when it flips.
    @inlinable @inline(__always)
    package func transactionChange(_ key: LayerKey, _ body: () -> Void) {
        if key == .frame {
            if isPresentationCopy {
                body()
                return
            }
            let p = willChange(.position)
            let b = willChange(.bounds)
            body()
            if let p { runPendingAction("position", p) }
            if let b { runPendingAction("bounds", b) }
            return
        }
        // (Hidden too: its onOrderIn / onOrderOut events below ask only
        // the host, so a layer without action sources has none to run.)
        if !hasActionSources {
            // A layer whose creation is not committed yet: no log, no
            // animation (checked here, before anything else is looked at).
            if creator != nil, !isCommitted {
                body()
                return
            }
            implicitChange(key, body)
            return
        }
        // A presentation copy changes at once: no transaction, no action.
        // (implicitChange tests it after its fast path, which a copy never
        // takes: it is in no transaction.)
        if isPresentationCopy {
            body()
            return
        }
        let wasHidden = flags.contains(.hidden)
        let p = willChange(key)
        body()
        if let p { runPendingAction(key.name, p) }
        if key == .hidden, flags.contains(.hidden) != wasHidden { triggerAction(wasHidden ? "onOrderIn" : "onOrderOut") }
    }

    /// transactionChange for a layer whose action search has nothing to ask
    /// (no delegate, actions, style or class actions): willChange and
    /// runPendingAction in one, the thread and the layer's state looked up once.
    @inline(__always)
    @usableFromInline package func implicitChange(_ key: LayerKey, _ body: () -> Void) {
        // A layer whose creation is not committed yet: no log, no animation.
        if creator != nil, !isCommitted {
            body()
            return
        }
        if implicitChangeInOpenTransaction(key, body) { return }
        implicitChangeEnlisting(key, body)
    }

    /// The rest of implicitChange: the first change of the layer in the
    /// transaction (enlisting it, logging) or a change that is not a plain
    /// record. Out of line, so that the setters' common path above stays
    /// small enough to be inlined into every typed setter.
    @inline(never)
    private func implicitChangeEnlisting(_ key: LayerKey, _ body: () -> Void) {
        if isPresentationCopy {
            body()
            return
        }
        let t = ThreadTransactions.current
        let state: LayerTransactionState
        if let s = transactionState, s.record != nil {
            state = s
            // Joined without logging (an animation was added first): start
            // now, before the first change of a property.
            if !s.logging { s.startLogging(self) }
        } else {
            state = Transactions.enlist(self, t, snapshot: true)
        }
        state.log(key, of: self)
        guard !t.disableActions, key.isAnimatable, key != .sublayers, key != .mask else {
            body()
            return
        }
        // Usually a record, not an object (ImplicitAnimation.swift): no
        // completion counts it, and its duration needs no default.
        if !t.hasCompletions, t.animationDuration > 0, t.animationDuration.isFinite {
            let record = implicitRecord(key, thread: t)
            body()
            if transactionState === state {
                appendPendingImplicit(record, state: state)
            } else {
                Actions.run(record.materialized(), key: key.name, layer: self, arguments: nil)
            }
            return
        }
        let a = implicitAnimation(key, thread: t)
        body()
        if transactionState === state {
            appendPending(a, forKey: key.name, mask: LayerTransactionState.mask(for: key), state: state, thread: t)
        } else {
            Actions.run(a, key: key.name, layer: self, arguments: nil)
        }
    }

    /// The common case of implicitChange, without reference counting: the
    /// layer already in the open transaction with its changes logged, an
    /// animatable key, actions enabled, no completion waiting and a positive
    /// duration (the record path). False, having done nothing, otherwise.
    @inline(__always)
    private func implicitChangeInOpenTransaction(_ key: LayerKey, _ body: () -> Void) -> Bool {
        guard let raw = rawTransactionState, key.isAnimatable, key != .sublayers, key != .mask,
              let tRaw = qz_internal_current_transactions() else { return false }
        return Unmanaged<ThreadTransactions>.fromOpaque(tRaw)._withUnsafeGuaranteedRef { t in
            guard !t.disableActions, !t.hasCompletions, t.animationDuration > 0, t.animationDuration.isFinite else { return false }
            return Unmanaged<LayerTransactionState>.fromOpaque(raw)._withUnsafeGuaranteedRef { state in
                guard state.isEnlisted, state.logging else { return false }
                // (The from value first: before its first change a key is
                // not looked up in the log.)
                let record = implicitRecord(key, thread: t)
                state.log(key, of: self)
                body()
                if rawTransactionState == raw {
                    appendPendingImplicit(record, state: state)
                } else {
                    Actions.run(record.materialized(), key: key.name, layer: self, arguments: nil)
                }
                return true
            }
        }
    }

    /// transactionState's address, read without retaining it.
    @inline(__always)
    package var rawTransactionState: UnsafeMutableRawPointer? {
        withUnsafeMutablePointer(to: &_transactionState) { UnsafeRawPointer($0).load(as: UnsafeMutableRawPointer?.self) }
    }

    /// The same for key-value coding: `keyPath`'s first component names a
    /// declared property or a custom key (whose action is searched too).
    package func transactionChange(keyPath: String, _ body: () -> Void) {
        if isPresentationCopy {
            body()
            return
        }
        let name = keyPath.split(separator: ".", maxSplits: 1).first.map(String.init) ?? keyPath
        if let key = declaredKey(name) {
            transactionChange(key, body)
            return
        }
        let t = ThreadTransactions.current
        let state = Transactions.enlist(self, t, snapshot: true)
        state.logCustom(of: self)
        let p = t.disableActions ? nil : findAction(forKey: name, declared: nil, thread: t)
        body()
        runPendingAction(name, p)
    }
}
