import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteGraphics

/// The sublayers of a presentation copy the host asked for
/// (`CALayerCopyPresentationLayer`), kept as values instead of objects.
///
/// A copy of a layer tree is mostly copies of plain leaves: sublayers with
/// nothing but their inline state (geometry, transform, opacity, flags) and
/// the common visuals. Their copies are taken as values into one flat buffer,
/// as a C program would copy an array of structs, and become layer objects
/// only when something reads them: `sublayer(at:)` makes the one asked for,
/// anything that reads `sublayers` makes them all. What the host sees is the
/// same as with objects made at once: the values are those of the moment of
/// the copy (later changes to the model do not reach them), and a sublayer
/// asked for twice is the same object.
///
/// A sublayer that is not a plain leaf (it has sublayers, animations, a mask,
/// rare visuals, a sublayer transform...) is copied the usual way, at once;
/// its object sits in its slot. The renderer and the other internal users
/// take their copies eagerly: they read every layer anyway.
package final class PresentationLeaves {
    /// The model's sublayers when the copy was made: each leaf copy's model
    /// layer (held here, once for all of them).
    fileprivate(set) var models: [Layer] = []
    fileprivate var slots: UnsafeMutablePointer<LeafSlot>?
    fileprivate var capacity = 0
    /// Slots in use (the model's sublayer count at the copy).
    package fileprivate(set) var count = 0
    /// Indices of the slots whose `object` is set, so that a release or the
    /// next copy visits only those.
    fileprivate var made: [Int32] = []

    deinit {
        if let slots {
            for i in 0..<count { slots[i].releaseReferences() }
            slots.deallocate()
        }
    }

    /// Room for `n` slots; new slots start empty.
    fileprivate func reserve(_ n: Int) {
        guard n > capacity else { return }
        let grown = max(n, capacity * 2)
        let fresh = UnsafeMutablePointer<LeafSlot>.allocate(capacity: grown)
        if let slots {
            fresh.initialize(from: slots, count: count)   // (plain data: the references move)
            slots.deallocate()
        }
        (fresh + count).initialize(repeating: LeafSlot(), count: grown - count)
        slots = fresh
        capacity = grown
    }

    /// Clears the superlayer link of every made copy that still points at
    /// `parent` (the copy that owns these leaves is going away).
    package func unlinkAll(from parent: Layer) {
        guard let slots else { return }
        for j in made {
            if let o = slots[Int(j)].object {
                o._withUnsafeGuaranteedRef { if $0.superlayerIs(parent) { $0.superlayer = nil } }
            }
        }
    }
}

/// One sublayer's slot: a plain leaf's copied values, or (for any sublayer)
/// the copy's object once made. Plain data: the references it holds are
/// counted by hand (retained when stored, released when replaced).
struct LeafSlot {
    var object: Unmanaged<Layer>?
    /// The model's transform box, shared as an object copy shares it: a
    /// model that changes its transform while the slot holds the box writes
    /// a new one (TransformBox.store), so the slot keeps the old value.
    var transformBox: Unmanaged<TransformBox>?
    var backgroundColor: Unmanaged<Color>?
    var contents: Unmanaged<QZObject>?
    var bounds = CGRect.zero
    var position = CGPoint(x: 0, y: 0)
    var anchorPoint = CGPoint(x: 0.5, y: 0.5)
    var zPosition = 0.0
    var anchorPointZ = 0.0
    var cornerRadius = 0.0
    var borderWidth = 0.0
    var opacity: Float = 1
    var flags = LayerFlags.defaults
    var scrollMode: UInt8 = 0
    var isLeaf = false
    var hasVisuals = false

    /// Drops the object and the references the values hold.
    mutating func releaseReferences() {
        object?.release()
        object = nil
        setTransformBox(nil)
        setVisualReferences(color: nil, contents: nil)
    }

    /// Holds `box` (unretained on entry) in place of the slot's; the same
    /// box is left alone (a tree that did not change costs no count).
    @inline(__always)
    mutating func setTransformBox(_ box: Unmanaged<TransformBox>?) { hold(box, in: &transformBox) }

    /// Holds `color` and `contents` (unretained on entry) in place of the
    /// slot's: references already equal are left alone.
    @inline(__always)
    mutating func setVisualReferences(color: Unmanaged<Color>?, contents c: Unmanaged<QZObject>?) {
        hold(color, in: &backgroundColor)
        hold(c, in: &contents)
    }
}

/// Retains `new` (unretained on entry) into `slot`, releasing what it held,
/// unless it already holds that object.
@inline(__always)
private func hold<T: AnyObject>(_ new: Unmanaged<T>?, in slot: inout Unmanaged<T>?) {
    guard slot?.toOpaque() != new?.toOpaque() else { return }
    _ = new?.retain()
    slot?.release()
    slot = new
}

extension Layer {
    /// The copy's leaves, when its sublayers are kept as values.
    @inline(__always)
    package var presentationLeaves: PresentationLeaves? {
        flags.contains(.lazySublayers) ? extras.unsafelyUnwrapped.presentationLeaves : nil
    }

    /// The number of sublayers, without making a lazy copy's objects.
    package var sublayerCount: Int {
        if let leaves = presentationLeaves { return leaves.count }
        return storedSublayers.count
    }

    /// Sublayer `i` (in range), making only that one of a lazy copy's.
    package func sublayer(at i: Int) -> Layer {
        guard let leaves = presentationLeaves else { return storedSublayers[i] }
        return leaves.object(at: i, parent: self)
    }

    /// Makes every sublayer object of a lazy copy: `storedSublayers` takes
    /// them and the copy is an ordinary one from then on.
    @inline(never)
    package func makeLazySublayers() {
        guard let leaves = presentationLeaves else { return }
        var all: [Layer] = []
        all.reserveCapacity(leaves.count)
        for i in 0..<leaves.count { all.append(leaves.object(at: i, parent: self)) }
        // (The objects keep their superlayer link: this copy still owns them.)
        leaves.made.removeAll()
        for i in 0..<leaves.count { leaves.slots![i].releaseReferences() }
        leaves.count = 0
        leaves.models = []
        flags.remove(.lazySublayers)
        extras.unsafelyUnwrapped.presentationLeaves = nil
        storedSublayers = all
    }

    /// Makes the objects of every sublayer kept as values in this copy's
    /// subtree, masks included (before a walk that reads the stored arrays).
    package func makeSubtreeObjects() {
        var pending = [self]
        while let l = pending.popLast() {
            if l.flags.contains(.lazySublayers) { l.makeLazySublayers() }
            pending += l.storedSublayers
            if let m = l.visuals?.mask { pending.append(m) }
        }
    }

    /// Forgets a lazy copy's sublayers (they are being replaced).
    @inline(never)
    package func dropLazySublayers() {
        guard releaseLazySublayers() != nil else { return }
        flags.remove(.lazySublayers)
        extras.unsafelyUnwrapped.presentationLeaves = nil
    }

    /// On a reused copy, after `assign(copyOf:)` (which clears the flag and
    /// keeps the leaves in the side objects): takes the leaves out, or nil.
    @inline(never)
    package func takeKeptLeaves() -> PresentationLeaves? {
        guard let e = extras, let leaves = e.presentationLeaves else { return nil }
        e.presentationLeaves = nil
        return leaves
    }

    /// On a reused copy whose sublayers are objects again: drops the kept
    /// leaves, if any (their objects no longer have it as superlayer).
    @inline(never)
    package func dropKeptLeaves() {
        takeKeptLeaves()?.unlinkAll(from: self)
    }

    /// On a released copy: its made sublayer copies no longer have it as
    /// their superlayer; returns its leaves (for the model root to keep).
    package func releaseLazySublayers() -> PresentationLeaves? {
        guard let leaves = presentationLeaves else { return nil }
        leaves.unlinkAll(from: self)
        return leaves
    }

    /// True when this model layer's copy can be kept as values: a plain leaf
    /// (see `presentsAsPlainLeaf` in Layer+Animations.swift) without a
    /// sublayer transform, rare visuals (where a mask would be) or
    /// transaction state. While the `sideState` flag is clear the side state
    /// is known to be absent, and only the first 128 bytes of the layer and
    /// its visuals are read; else it is looked at, and the flag cleared when
    /// none is there.
    @inline(__always)
    package var presentsAsValueLeaf: Bool {
        if _slowPath(flags.rawValue & (LayerFlags.sideState.rawValue | LayerFlags.hasStyle.rawValue) != 0) {
            guard clearsSideState() else { return false }
        }
        return unretainedVisuals.map { $0._withUnsafeGuaranteedRef { v in referenceBits(&v.rare) == 0 } } ?? true
    }

    /// Clears `sideState` when the layer has no side state that keeps its
    /// copy from being values (and no style, and a class without
    /// initWithLayer:); returns whether it did.
    @inline(never)
    private func clearsSideState() -> Bool {
        // (Reads only: a write would set the flag.)
        guard !flags.contains(.hasStyle), holdsOnlyInlineState, _sublayerTransformBox == nil, _modelLayer == nil,
              _transactionState == nil, !layerClass.hasInitWithLayer
        else { return false }
        flags.remove(.sideState)
        return true
    }

    /// Fills `copy`'s sublayers from this model layer's as values where they
    /// are plain leaves (`leaves`, an earlier copy's, refilled when given)
    /// and as copies made the usual way (`general`) elsewhere.
    package func fillLazySublayers(of copy: Layer, reusing spare: PresentationLeaves?, target: Layer,
                                   general: (Layer, inout Layer?) -> Layer) {
        let leaves = spare ?? PresentationLeaves()
        let n = storedSublayers.count
        let previousCount = leaves.count
        leaves.reserve(n)
        let slots = leaves.slots.unsafelyUnwrapped
        // Leaves' objects made on demand belong to the earlier copy: dropped
        // (unlinked if someone still holds one). The other objects stay in
        // their slots for the general copy to overwrite in place.
        let earlier = leaves.made
        leaves.made.removeAll(keepingCapacity: true)
        for j in earlier {
            let i = Int(j)
            if let o = slots[i].object {
                o._withUnsafeGuaranteedRef { if $0.superlayerIs(copy) { $0.superlayer = nil } }
                if slots[i].isLeaf || i >= n {
                    o.release()
                    slots[i].object = nil
                }
            }
        }
        for i in n..<max(n, previousCount) {
            slots[i].releaseReferences()
            slots[i].isLeaf = false
        }
        leaves.models = storedSublayers
        leaves.count = n
        let targetAddress = Unmanaged.passUnretained(target).toOpaque()
        leaves.models.withUnsafeBufferPointer { subs in
            @inline(__always) func fill(_ i: Int) {
                let model = subs.unretained(i)
                let slot = slots + i
                if model.toOpaque() != targetAddress, model._withUnsafeGuaranteedRef({ $0.presentsAsValueLeaf }) {
                    if let o = slot.pointee.object {
                        // (A sublayer that was not a leaf at the earlier copy.)
                        o.release()
                        slot.pointee.object = nil
                    }
                    model._withUnsafeGuaranteedRef { slot.pointee.take(from: $0) }
                } else {
                    // (The slot's reference moves to `earlier`, so that the
                    // general copy can tell whether anyone else holds it.)
                    var earlier = slot.pointee.object?.takeRetainedValue()
                    slot.pointee.object = nil
                    slot.pointee.isLeaf = false
                    slot.pointee.setTransformBox(nil)
                    slot.pointee.setVisualReferences(color: nil, contents: nil)
                    let c = model._withUnsafeGuaranteedRef { general($0, &earlier) }
                    if let e = earlier, e !== c, e.superlayerIs(copy) { e.superlayer = nil }
                    earlier = nil
                    c.superlayer = copy
                    slot.pointee.object = Unmanaged.passRetained(c)
                    leaves.made.append(Int32(truncatingIfNeeded: i))
                }
            }
            // Model layers are objects spread over the heap: the lines a
            // leaf's values come from are requested ahead (into the first
            // level cache). Past about 2,000 layers the tree leaves the
            // second-level cache: they are then requested into it from
            // further ahead as well. (Two loops, so that neither tests which
            // it is on every leaf.)
            @inline(__always) func request(_ j: Int, secondLevel: Bool, through end: Int = 128) {
                // (The first 128 bytes, two or three lines; with `end`, the
                // common visuals' line too.)
                let p = UnsafeRawPointer(subs.unretained(j).toOpaque())
                if secondLevel {
                    qz_internal_prefetch_l2(p); qz_internal_prefetch_l2(p + 64); qz_internal_prefetch_l2(p + 127)
                    if end > 128 { qz_internal_prefetch_l2(p + (end &- 1)) }
                } else {
                    qz_internal_prefetch(p); qz_internal_prefetch(p + 64); qz_internal_prefetch(p + 127)
                    if end > 128 { qz_internal_prefetch(p + (end &- 1)) }
                }
            }
            // A leaf's visuals are one more object, found through the
            // layer: requested once the layer's lines are near (12 leaves
            // ahead, 8 after its layer was asked for), when the tree's
            // first leaf has visuals.
            @inline(__always) func requestVisuals(_ j: Int, at offset: Int) {
                let p = UnsafeRawPointer(subs.unretained(j).toOpaque())
                if let v = p.load(fromByteOffset: offset, as: UnsafeRawPointer?.self) {
                    qz_internal_prefetch(v); qz_internal_prefetch(v + 55)
                }
            }
            // (Whether the first leaf has visuals, or common visuals, stands
            // for the tree's leaves.)
            var i = 0
            if n > 2048, let visuals = PresentationPrefetch.offsets?.visuals,
               let common = PresentationPrefetch.offsets?.commonVisualsEnd,
               subs.unretained(0)._withUnsafeGuaranteedRef({ $0.visuals != nil || $0.flags.contains(.commonVisuals) }) {
                while i &+ 20 < n {
                    request(i &+ 4, secondLevel: false, through: common)
                    request(i &+ 20, secondLevel: true, through: common)
                    requestVisuals(i &+ 12, at: visuals)
                    fill(i)
                    i &+= 1
                }
            } else if n > 2048 {
                while i &+ 20 < n {
                    request(i &+ 4, secondLevel: false)
                    request(i &+ 20, secondLevel: true)
                    fill(i)
                    i &+= 1
                }
            } else {
                while i &+ 8 < n {
                    request(i &+ 8, secondLevel: false)
                    fill(i)
                    i &+= 1
                }
            }
            while i < n {
                fill(i)
                i &+= 1
            }
        }
        if !copy.storedSublayers.isEmpty { copy.storedSublayers = [] }
        copy.ensureExtras.presentationLeaves = leaves
        copy.flags.insert(.lazySublayers)
    }
}

extension LeafSlot {
    /// Takes a plain leaf's values (what `assignInlineState` and
    /// `assignVisuals` would copy into an object).
    @inline(__always)
    mutating func take(from m: Layer) {
        isLeaf = true
        bounds = m.bounds
        position = m.position
        anchorPoint = m.anchorPoint
        zPosition = m.zPosition
        anchorPointZ = m.anchorPointZ
        opacity = m.opacity
        flags = m.flags.subtracting([.presentationRoot, .lazySublayers]).union([.copy, .sideState])
        scrollMode = m.scrollMode
        setTransformBox(unretained(&m.transformBox))
        // (The common visuals, past the first 128 bytes, only when a write
        // may have changed them; `cornerRadius` and `borderWidth` are read
        // back only then, see `object(at:)`.)
        let common = m.flags.contains(.commonVisuals)
        if common {
            cornerRadius = m._cornerRadius
            borderWidth = m._borderWidth
        }
        if let v = m.unretainedVisuals {
            hasVisuals = true
            let color = common ? unretained(&m._backgroundColor) : nil
            v._withUnsafeGuaranteedRef { v in setVisualReferences(color: color, contents: unretained(&v.contents)) }
        } else {
            hasVisuals = false
            if common {
                setVisualReferences(color: unretained(&m._backgroundColor), contents: nil)
            } else if backgroundColor != nil || contents != nil {
                setVisualReferences(color: nil, contents: nil)
            }
        }
    }
}

extension PresentationLeaves {
    /// The copy of sublayer `i` (made now from its values if it is a leaf
    /// not asked for before).
    fileprivate func object(at i: Int, parent: Layer) -> Layer {
        let slot = slots.unsafelyUnwrapped + i
        if let o = slot.pointee.object { return o.takeUnretainedValue() }
        let s = slot.pointee
        let model = models[i]
        let c = Layer(copyClass: model.layerClass)
        c.bounds = s.bounds
        c.position = s.position
        c.anchorPoint = s.anchorPoint
        c.zPosition = s.zPosition
        c.anchorPointZ = s.anchorPointZ
        c.opacity = s.opacity
        c.flags = s.flags
        c.scrollMode = s.scrollMode
        c.transformBox = s.transformBox?.takeUnretainedValue()
        // (Into the storage: the flags, copied above, already tell.)
        if s.flags.contains(.commonVisuals) {
            c._cornerRadius = s.cornerRadius
            c._borderWidth = s.borderWidth
            c._backgroundColor = s.backgroundColor?.takeUnretainedValue()
        }
        if s.hasVisuals {
            let v = LayerVisuals()
            v.contents = s.contents?.takeUnretainedValue()
            c.visuals = v
        }
        c.modelLayer = model
        c.superlayer = parent
        slot.pointee.object = Unmanaged.passRetained(c)
        made.append(Int32(truncatingIfNeeded: i))
        return c
    }
}

/// The bits of a stored optional reference (0 for nil), read without
/// reference counting.
@inline(__always)
private func referenceBits<T>(_ ref: inout T?) -> UInt {
    withUnsafeMutablePointer(to: &ref) { UnsafeRawPointer($0).load(as: UInt.self) }
}
