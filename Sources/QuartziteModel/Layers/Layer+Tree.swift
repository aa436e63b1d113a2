import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics

// The layer tree. Every operation validates first and mutates after, so an
// error leaves the tree exactly as it was. Callers hold the model lock.

extension Layer {
    /// True when `self` is `other` or one of its ancestors (through superlayer
    /// links, which include the mask-owner link).
    package func isAncestor(of other: Layer) -> Bool {
        // Walked by address (every add checks for a cycle): strong locals
        // would retain and release each ancestor on the way.
        let me = Unmanaged.passUnretained(self).toOpaque()
        var cur: UnsafeMutableRawPointer? = Unmanaged.passUnretained(other).toOpaque()
        while let p = cur {
            if p == me { return true }
            cur = Unmanaged<Layer>.fromOpaque(p)._withUnsafeGuaranteedRef { $0.superlayerAddress }
        }
        return false
    }

    /// Checks that `child` may become a sublayer (or mask) of self.
    package func canAdopt(_ child: Layer, _ function: StaticString) -> Bool {
        guard fixedTreeAllows(function, with: child) else { return false }
        if child.isAncestor(of: self) {
            recordError(QZErrorInvalidArgument, function, child === self
                        ? "a layer cannot be its own sublayer" : "the layer is an ancestor of the new superlayer (a cycle)")
            return false
        }
        return true
    }

    /// Presentation copies have a fixed tree: no tree operation may take a
    /// copy as the parent, the child or the sibling. (A model layer under a
    /// copy, or a copy in a model tree, would mix what presentation shows
    /// with what the host edits.) Records QZErrorInvalidState when refused.
    @inline(__always)
    package func fixedTreeAllows(_ function: StaticString) -> Bool {
        guard isPresentationCopy else { return true }
        Layer.refuseFixedTreeChange(function)
        return false
    }

    /// The same for a change involving `other` too (not an Optional: the
    /// check of every add stays free of retains).
    @inline(__always)
    package func fixedTreeAllows(_ function: StaticString, with other: Layer) -> Bool {
        guard isPresentationCopy || other.isPresentationCopy else { return true }
        Layer.refuseFixedTreeChange(function)
        return false
    }

    @inline(never)
    private static func refuseFixedTreeChange(_ function: StaticString) {
        recordError(QZErrorInvalidState, function,
                    "presentation copies have a fixed tree: their sublayers, mask and superlayer cannot change, and they cannot join a model tree")
    }

    /// Detaches from the superlayer (as a sublayer or as its mask).
    package func detach() {
        guard superlayerAddress != nil, let parent = superlayer else { return }
        parent.dropPresentationSpare()
        if let mask = parent.visuals?.mask, mask === self {
            parent.visuals?.mask = nil
        } else if let i = parent.sublayers.firstIndex(where: { $0 === self }) {
            parent.sublayers.remove(at: i)
            parent.setNeedsLayout()
        }
        superlayer = nil
    }

    /// Inserts `child` at `index` (0...count), moving it from any old superlayer.
    package func insert(_ child: Layer, at index: Int) {
        var index = index
        if child.superlayer === self, let old = sublayers.firstIndex(where: { $0 === child }), old < index {
            index -= 1
        }
        child.detach()
        // (append for the common add at the end: insert goes through the
        // generic replaceSubrange.)
        if index >= sublayers.count { sublayers.append(child) } else { sublayers.insert(child, at: index) }
        child.superlayer = self
        setNeedsLayout()
    }

    package func addSublayer(_ child: Layer, function: StaticString) -> Bool {
        guard canAdopt(child, function) else { return false }
        insert(child, at: sublayers.count)
        return true
    }

    package func insertSublayer(_ child: Layer, at index: Int, function: StaticString) -> Bool {
        guard index >= 0, index <= sublayers.count else {
            recordError(QZErrorOutOfRange, function, "index \(index) is outside 0...\(sublayers.count)")
            return false
        }
        guard canAdopt(child, function) else { return false }
        insert(child, at: index)
        return true
    }

    package func insertSublayer(_ child: Layer, relativeTo sibling: Layer, above: Bool, function: StaticString) -> Bool {
        guard fixedTreeAllows(function, with: child) else { return false }
        guard let i = sublayers.firstIndex(where: { $0 === sibling }) else {
            recordError(QZErrorInvalidArgument, function, "the sibling is not a sublayer of this layer")
            return false
        }
        if child === sibling { return true }
        guard canAdopt(child, function) else { return false }
        insert(child, at: above ? i + 1 : i)
        return true
    }

    package func replaceSublayer(_ old: Layer, with new: Layer, function: StaticString) -> Bool {
        guard fixedTreeAllows(function, with: new) else { return false }
        guard let i = sublayers.firstIndex(where: { $0 === old }) else {
            recordError(QZErrorInvalidArgument, function, "the layer to replace is not a sublayer of this layer")
            return false
        }
        if old === new { return true }
        guard canAdopt(new, function) else { return false }
        new.detach()
        // Detaching `new` may have shifted `old` if both were siblings.
        let at = sublayers.firstIndex(where: { $0 === old }) ?? i
        dropPresentationSpare()
        sublayers[at] = new
        old.superlayer = nil
        new.superlayer = self
        setNeedsLayout()
        return true
    }

    package func setSublayers(_ layers: [Layer], function: StaticString) -> Bool {
        guard fixedTreeAllows(function) else { return false }
        for (i, l) in layers.enumerated() {
            guard canAdopt(l, function) else { return false }
            for j in 0..<i where layers[j] === l {
                recordError(QZErrorInvalidArgument, function, "the layer at index \(i) appears twice")
                return false
            }
            if let mask = visuals?.mask, mask === l {
                recordError(QZErrorInvalidArgument, function, "the layer at index \(i) is this layer's mask")
                return false
            }
        }
        dropPresentationSpare()
        for old in sublayers where old.superlayer === self { old.superlayer = nil }
        sublayers = []
        for l in layers {
            l.detach()
            sublayers.append(l)
            l.superlayer = self
        }
        setNeedsLayout()
        return true
    }

    /// Sets the mask. A layer that is a sublayer (or another layer's mask)
    /// leaves its old place and becomes the mask, its superlayer the masked
    /// layer, as observed on Apple's QuartzCore. An ancestor (a cycle) is
    /// refused.
    package func setMask(_ mask: Layer?, function: StaticString) -> Bool {
        guard mask.map({ fixedTreeAllows(function, with: $0) }) ?? fixedTreeAllows(function) else { return false }
        if let mask {
            if let current = visuals?.mask, current === mask { return true }
            guard canAdopt(mask, function) else { return false }
            mask.detach()
        }
        dropPresentationSpare()
        if let old = visuals?.mask, old.superlayer === self { old.superlayer = nil }
        if mask != nil || visuals != nil { ensureVisuals.mask = mask }
        mask?.superlayer = self
        return true
    }

    /// The tree invariants (used by tests): every sublayer points back to its
    /// superlayer, appears once, and no layer is its own ancestor.
    public func checkInvariants() -> Bool {
        var seen = Set<ObjectIdentifier>()
        func walk(_ l: Layer, depth: Int) -> Bool {
            if depth > 100_000 || !seen.insert(ObjectIdentifier(l)).inserted { return false }
            for s in l.sublayers {
                if s.superlayer !== l || !walk(s, depth: depth + 1) { return false }
            }
            if let m = l.visuals?.mask {
                if m.superlayer !== l || !walk(m, depth: depth + 1) { return false }
            }
            return true
        }
        var root = self
        var steps = 0
        while let p = root.superlayer {
            root = p
            steps += 1
            if steps > 100_000 { return false }
        }
        return walk(root, depth: 0)
    }
}
