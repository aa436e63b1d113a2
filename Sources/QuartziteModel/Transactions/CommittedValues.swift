import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics

// What a layer with uncommitted changes looked like at the last commit.
// Presentation shows committed state, so a change in an open transaction
// must not reach presentation readers before the commit. Rather than copying
// the whole layer at its first change (a layer object, its appearance
// object, a reference per field, and all of it freed at the commit), the
// transaction keeps each changed property's committed value, once, before
// its first change: an undo log. A full committed layer is built from the
// model and the log only when presentation needs one while the transaction
// is open, and kept until the commit. Model lock held throughout.

/// A property's value at the last commit, unboxed for the common
/// properties. Stored flat (numbers, one reference, a tag) rather than as a
/// LazyEndpoint: a log of numbers is freed at the commit without a
/// per-entry switch.
package struct CommittedValue {
    private var numbers: PlanQuad
    private var object: AnyObject?
    package let key: LayerKey
    private let kind: Kind

    private enum Kind: UInt8 { case none, number, point, rect, color, transform, value }

    package init(_ key: LayerKey, _ value: LazyEndpoint) {
        self.key = key
        numbers = PlanQuad()
        object = nil
        switch value {
        case .none: kind = .none
        case .number(let n): kind = .number; numbers.x = n
        case .point(let p): kind = .point; numbers = PlanQuad(p.x, p.y, 0, 0)
        case .rect(let r): kind = .rect; numbers = PlanQuad(r.origin.x, r.origin.y, r.size.width, r.size.height)
        case .color(let c): kind = .color; object = c
        case .transform(let box): kind = .transform; object = box
        case .value(let v): kind = .value; object = v
        }
    }

    /// The value (.none: nil).
    package var old: LazyEndpoint {
        switch kind {
        case .none: return .none
        case .number: return .number(numbers.x)
        case .point: return .point(CGPoint(x: numbers.x, y: numbers.y))
        case .rect: return .rect(CGRect(x: numbers.x, y: numbers.y, width: numbers.z, height: numbers.w))
        case .color: return .color(unsafeDowncast(object.unsafelyUnwrapped, to: Color.self))
        case .transform: return .transform(object.map { unsafeDowncast($0, to: TransformBox.self) })
        case .value: return .value(unsafeDowncast(object.unsafelyUnwrapped, to: Value.self))
        }
    }
}

extension LayerTransactionState {
    /// Starts logging `layer`'s changes (its first change in this transaction).
    @inline(__always)
    package func startLogging(_ layer: Layer) {
        logging = true
        setBitsBefore = layer.setBits
    }

    @inline(__always)
    package func isLogged(_ key: LayerKey) -> Bool {
        key.word == 0 ? loggedKeys.0 & key.bit != 0 : loggedKeys.1 & key.bit != 0
    }

    /// Keeps `key`'s committed value before its first change (while logging).
    @inline(__always)
    package func log(_ key: LayerKey, of layer: Layer) {
        guard logging, !isLogged(key) else { return }
        logSlow(key, of: layer)
    }

    @inline(never)
    private func logSlow(_ key: LayerKey, of layer: Layer) {
        switch key {
        case .frame:
            // Derived from position and bounds: those two are what change.
            log(.position, of: layer)
            log(.bounds, of: layer)
            return
        case .sublayers, .mask:
            return   // tree edits are seen before the commit (a known limit)
        default:
            break
        }
        if key.word == 0 { loggedKeys.0 |= key.bit } else { loggedKeys.1 |= key.bit }
        if undo.isEmpty { undo.reserveCapacity(12) }
        undo.append(CommittedValue(key, layer.storedEndpoint(key)))
    }

    /// Keeps the custom (undeclared) keys' values before the first change of one.
    package func logCustom(of layer: Layer) {
        guard logging, !customLogged else { return }
        customLogged = true
        customBefore = layer.custom?.values
    }

    /// The committed value of `key` if it changed in this transaction:
    /// .some(the value), or nil when it did not change.
    @inline(__always)
    package func committedEndpoint(_ key: LayerKey) -> LazyEndpoint? {
        guard isLogged(key) else { return nil }
        return undo.withUnsafeBufferPointer { b in
            for i in b.indices where b[i].key == key { return b[i].old }
            return nil
        }
    }

    /// Forgets the log (at the commit).
    package func dropLog() {
        logging = false
        if !undo.isEmpty { undo = [] }
        loggedKeys = (0, 0)
        customLogged = false
        customBefore = nil
        committedSnapshot = nil
    }
}

extension Layer {
    /// The stored value of a declared property, unboxed for the common
    /// properties, boxed for the others.
    @inline(__always)
    package func storedEndpoint(_ key: LayerKey) -> LazyEndpoint {
        switch key {
        case .position: return .point(position)
        case .anchorPoint: return .point(anchorPoint)
        case .bounds: return .rect(bounds)
        case .zPosition: return .number(zPosition)
        case .anchorPointZ: return .number(anchorPointZ)
        case .opacity: return .number(Double(opacity))
        case .cornerRadius: return .number(cornerRadius)
        case .borderWidth: return .number(borderWidth)
        case .shadowOpacity: return .number(Double(visuals?.shadowOpacity ?? 0))
        case .shadowRadius: return .number(visuals?.shadowRadius ?? 3)
        case .backgroundColor: return backgroundColor.map { .color($0) } ?? .none
        case .transform: return .transform(transformBox)
        case .sublayerTransform: return .transform(sublayerTransformBox)
        default: return storedValue(key).map { .value($0) } ?? .none
        }
    }

    /// Writes a logged committed value back (into a copy of the model).
    package func restore(_ entry: CommittedValue) {
        switch (entry.key, entry.old) {
        case (.position, .point(let p)): position = p
        case (.anchorPoint, .point(let p)): anchorPoint = p
        case (.bounds, .rect(let r)): bounds = r
        case (.zPosition, .number(let n)): setZPosition(n)
        case (.anchorPointZ, .number(let n)): anchorPointZ = n
        case (.opacity, .number(let n)): opacity = Float(n)
        case (.cornerRadius, .number(let n)): cornerRadius = n
        case (.borderWidth, .number(let n)): borderWidth = n
        case (.shadowOpacity, .number(let n)): ensureVisuals.shadowOpacity = Float(n)
        case (.shadowRadius, .number(let n)): ensureVisuals.shadowRadius = n
        case (.backgroundColor, .color(let c)): backgroundColor = c
        case (.backgroundColor, .none): if backgroundColor != nil { backgroundColor = nil }
        case (.transform, .transform(let box)): transformBox = box
        case (.sublayerTransform, .transform(let box)): sublayerTransformBox = box
        // (A style's values were logged one by one: restoring the style does not apply it again.)
        case (let key, .value(let v)): hostCall { _ = setDeclared(key, v, explicit: false, applyingStyle: false, function: "presentation") }
        case (let key, _): hostCall { _ = setDeclared(key, nil, explicit: false, applyingStyle: false, function: "presentation") }
        }
    }

    /// The layer as last committed, while it has uncommitted changes (built
    /// once from the model and the log, kept until the commit); nil when
    /// presentation reads the model itself.
    package func committedSnapshot() -> Layer? {
        guard let state = transactionState, state.logging else { return nil }
        if let s = state.committedSnapshot { return s }
        let s = Layer(copyOf: self)
        for entry in state.undo { s.restore(entry) }
        if state.customLogged {
            if let values = state.customBefore {
                if s.custom == nil { s.custom = CustomValues() }
                s.custom!.values = values
            } else {
                s.custom = nil
            }
        }
        s.setBits = state.setBitsBefore
        state.committedSnapshot = s
        return s
    }
}
