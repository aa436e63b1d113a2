import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics

/// Software prefetching for the presentation walk. A frame reads, per layer,
/// the model layer, its plan block (PlanBlock.swift) and the copy it
/// overwrites: objects reached through pointers, so on a tree larger than the
/// caches each step would wait on memory in turn. While layer i is evaluated,
/// the lines of layer i + 12 (model and copy, into L2) are requested, then (their
/// pointers now at hand) the first lines of the plan block (without one, the
/// animation list or the model's transform box) and the copy's transform box
/// of layer i + 4 (neither box when the copy shares the model's) and, in
/// the plain-leaf loop, the visuals of both, then the rest of the plan block of layer i + 2 (its size
/// now at hand), and the model's transform box of layer i + 1 when no
/// transform animation replaces it (a frame then does not read it). A layer
/// whose block is not made yet or says the animations take the general path
/// gets its animations and their transform end points requested instead.
/// Hints only: nothing is read that is not valid, and without the offsets
/// (checked once at startup) nothing is prefetched.
package struct PresentationPrefetch {
    /// Byte offsets: of `animationList` and `transformBox` inside a Layer; of
    /// the count and the first element inside an array's buffer; of the
    /// animation inside an AnimationEntry.
    package let list: Int, box: Int, count: Int, layerElements: Int, entryElements: Int
    /// Byte offset of `planBlock` inside a Layer; bytes of a Layer a frame
    /// reads (up to `layerClass`, which ends where `creator` begins).
    package let block: Int, hot: Int
    /// Byte offsets of `fastPlan.transforms` and `fastPlan.kind` inside an Animation.
    package let ends: Int, kind: Int
    /// Byte offset of `visuals` inside a Layer; bytes of a LayerVisuals up
    /// to the end of `rare`, its last field.
    package let visuals: Int, visualsBytes: Int
    /// Byte offset of the end of the inline common visuals (background
    /// colour, corner radius, border width) inside a Layer.
    package let commonVisualsEnd: Int

    package static let offsets: PresentationPrefetch? = {
        let l = Layer()
        let entries = [AnimationEntry(key: nil, animation: Animation(kind: .basic)),
                       AnimationEntry(key: nil, animation: Animation(kind: .basic)),
                       AnimationEntry(key: nil, animation: Animation(kind: .basic))]
        l.animationList = entries
        l.transformBox = TransformBox(CATransform3D(scaleX: 2, y: 2, z: 1))
        l.visuals = LayerVisuals()
        let layers = [l, l, l]
        let base = UnsafeRawPointer(Unmanaged.passUnretained(l).toOpaque())
        let list = withUnsafeMutablePointer(to: &l.animationList) { UnsafeRawPointer($0) - base }
        let box = withUnsafeMutablePointer(to: &l.transformBox) { UnsafeRawPointer($0) - base }
        let block = withUnsafeMutablePointer(to: &l.planBlock) { UnsafeRawPointer($0) - base }
        let hot = withUnsafeMutablePointer(to: &l.creator) { UnsafeRawPointer($0) - base }
        let visuals = withUnsafeMutablePointer(to: &l.visuals) { UnsafeRawPointer($0) - base }
        let visualsBase = UnsafeRawPointer(Unmanaged.passUnretained(l.visuals!).toOpaque())
        let visualsBytes = withUnsafeMutablePointer(to: &l.visuals!.rare) { UnsafeRawPointer($0) - visualsBase } + 8
        let common = [withUnsafeMutablePointer(to: &l._backgroundColor) { UnsafeRawPointer($0) - base } + 8,
                      withUnsafeMutablePointer(to: &l._cornerRadius) { UnsafeRawPointer($0) - base } + 8,
                      withUnsafeMutablePointer(to: &l._borderWidth) { UnsafeRawPointer($0) - base } + 8].max()!
        let entryBuffer = unsafeBitCast(entries, to: UnsafeRawPointer.self)
        let layerBuffer = unsafeBitCast(layers, to: UnsafeRawPointer.self)
        let entryElements = entries.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress!) - entryBuffer }
        let layerElements = layers.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress!) - layerBuffer }
        let probe = entries[0].animation
        let ends = TransformEnds(DecomposedTransform(.identity)!, DecomposedTransform(.identity)!)
        probe.fastPlan.transforms = ends
        let animationBase = UnsafeRawPointer(Unmanaged.passUnretained(probe).toOpaque())
        let endsOffset = withUnsafeMutablePointer(to: &probe.fastPlan.transforms) { UnsafeRawPointer($0) - animationBase }
        let kindOffset = withUnsafeMutablePointer(to: &probe.fastPlan.kind) { UnsafeRawPointer($0) - animationBase }
        probe.fastPlan.kind = .bounds
        guard endsOffset >= 0, endsOffset < 512, kindOffset >= 0, kindOffset < 512,
              animationBase.load(fromByteOffset: endsOffset, as: UnsafeRawPointer?.self)
                == UnsafeRawPointer(Unmanaged.passUnretained(ends).toOpaque()),
              animationBase.load(fromByteOffset: kindOffset, as: UInt8.self) == FastPlan.Kind.bounds.rawValue
        else { return nil }
        probe.fastPlan = .unresolved
        let o = PresentationPrefetch(list: list, box: box, count: 16, layerElements: layerElements, entryElements: entryElements,
                                     block: block, hot: hot, ends: endsOffset, kind: kindOffset, visuals: visuals,
                                     visualsBytes: visualsBytes, commonVisualsEnd: common)
        // Check every offset against what Swift itself reads.
        guard list >= 0, box >= 0, list < 512, box < 512, layerElements >= 24, entryElements >= 24,
              block >= 0, block < 512, hot > block, hot <= 512, visuals >= 0, visuals < 512,
              visualsBytes >= 16, visualsBytes <= 256, common >= 24, common <= 512,
              base.load(fromByteOffset: visuals, as: UnsafeRawPointer?.self)
                == UnsafeRawPointer(Unmanaged.passUnretained(l.visuals!).toOpaque()),
              base.load(fromByteOffset: list, as: UnsafeRawPointer?.self) == entryBuffer,
              base.load(fromByteOffset: box, as: UnsafeRawPointer?.self)
                == UnsafeRawPointer(Unmanaged.passUnretained(l.transformBox!).toOpaque()),
              entryBuffer.load(fromByteOffset: o.count, as: Int.self) == 3,
              layerBuffer.load(fromByteOffset: o.count, as: Int.self) == 3,
              layerBuffer.load(fromByteOffset: layerElements, as: UnsafeRawPointer.self) == base
        else { return nil }
        for i in 0..<3 {
            let a = entryBuffer.load(fromByteOffset: entryElements + i * MemoryLayout<AnimationEntry>.stride
                                        + AnimationEntry.animationOffset, as: UnsafeRawPointer.self)
            guard a == UnsafeRawPointer(Unmanaged.passUnretained(entries[i].animation).toOpaque()) else { return nil }
        }
        return withExtendedLifetime((l, entries, layers, ends)) { o }
    }()

    @inline(__always)
    package static func lines(_ p: UnsafeRawPointer, _ count: Int) {
        var k = 0
        while k < count { qz_internal_prefetch(p + k &* 64); k &+= 1 }
    }

    /// Every line holding bytes p..<p + count (one more line than
    /// count / 64 when p is not line-aligned).
    @inline(__always)
    package static func span(_ p: UnsafeRawPointer, _ count: Int) {
        var k = 0
        while k < count { qz_internal_prefetch_l2(p + k); k &+= 64 }
        qz_internal_prefetch_l2(p + (count &- 1))
    }

    /// Prefetches for the sublayer loop at index `i`: `models` are the model's
    /// sublayers, `copies` the earlier copies about to be overwritten.
    /// `visuals`: their visuals too (the plain-leaf loop, whose layers have
    /// little else; the general loop, animated layers, does without: two
    /// more loads a layer, 1-2% of an animated frame).
    @inline(__always)
    package func ahead(_ i: Int, models: UnsafeBufferPointer<Layer>, copies: UnsafeMutableBufferPointer<Layer>,
                       visuals: Bool = false) {
        let n = models.count, m = copies.count
        let modelBase = UnsafeRawPointer(models.baseAddress.unsafelyUnwrapped)
        @inline(__always) func model(_ j: Int) -> UnsafeRawPointer {
            modelBase.load(fromByteOffset: j &* 8, as: UnsafeRawPointer.self)
        }
        @inline(__always) func copy(_ j: Int) -> UnsafeRawPointer {
            UnsafeRawPointer(copies.baseAddress.unsafelyUnwrapped).load(fromByteOffset: j &* 8, as: UnsafeRawPointer.self)
        }
        if i &+ 12 < n {
            // (A layer's fields up to layerClass: four or five lines, into
            // the second-level cache. Twelve layers: a layer without
            // animations takes about 25 ns, memory about a hundred.)
            Self.span(model(i &+ 12), hot)
            if i &+ 12 < m { Self.span(copy(i &+ 12), hot) }
        }
        // A layer's plan block when it is current and has entries.
        @inline(__always) func block(_ layer: UnsafeRawPointer) -> UnsafeRawPointer? {
            guard let b = layer.load(fromByteOffset: self.block, as: UnsafeRawPointer?.self),
                  PlanBlock.isCurrent(b), !PlanBlock.header(b).general
            else { return nil }
            return b
        }
        if i &+ 4 < n {
            // (Without animations, the copy reads the model's transform box.)
            let layer = model(i &+ 4)
            let copyBox = i &+ 4 < m ? copy(i &+ 4).load(fromByteOffset: self.box, as: UnsafeRawPointer?.self) : nil
            if let b = layer.load(fromByteOffset: self.block, as: UnsafeRawPointer?.self) {
                Self.lines(b, 2)
            } else if let list = layer.load(fromByteOffset: self.list, as: UnsafeRawPointer?.self) {
                Self.lines(list, 3)
            } else if let box = layer.load(fromByteOffset: self.box, as: UnsafeRawPointer?.self), box != copyBox {
                Self.lines(box, 3)
            }
            // (A copy sharing the model's box reads neither.)
            if let copyBox, copyBox != layer.load(fromByteOffset: self.box, as: UnsafeRawPointer?.self) { Self.lines(copyBox, 3) }
            // The visuals, the model's and the copy's (overwritten in place).
            if visuals {
                if let v = layer.load(fromByteOffset: self.visuals, as: UnsafeRawPointer?.self) {
                    Self.span(v, visualsBytes)
                }
                if i &+ 4 < m, let v = copy(i &+ 4).load(fromByteOffset: self.visuals, as: UnsafeRawPointer?.self) {
                    Self.span(v, visualsBytes)
                }
            }
        }
        if i &+ 2 < n {
            let layer = model(i &+ 2)
            if let b = block(layer) {
                // The rest of the block (its first two lines were requested at
                // i + 4), up to 1 KB (a layer with many animations).
                let end = Swift.min(Int(PlanBlock.header(b).byteCount), 1024)
                var k = 128
                while k < end { qz_internal_prefetch(b + k); k &+= 64 }
                if end > 64 { qz_internal_prefetch(b + (end &- 1)) }
            } else if let list = layer.load(fromByteOffset: self.list, as: UnsafeRawPointer?.self) {
                // The first two lines of each animation (all a plan but a rect's reads).
                let count = Swift.min(list.load(fromByteOffset: self.count, as: Int.self), 4)
                var k = 0
                while k < count {
                    let a = list.load(fromByteOffset: entryElements &+ k &* MemoryLayout<AnimationEntry>.stride
                                        &+ AnimationEntry.animationOffset, as: UnsafeRawPointer.self)
                    Self.lines(a, 2)
                    k &+= 1
                }
            }
        }
        // Without a block: the transform animations' decomposed end points of
        // layer i + 1; the third line of a rect animation. The model's
        // transform box unless a transform animation replaces it.
        if i &+ 1 < n {
            let layer = model(i &+ 1)
            if let b = block(layer) {
                if !PlanBlock.header(b).setsTransform,
                   let box = layer.load(fromByteOffset: self.box, as: UnsafeRawPointer?.self) { Self.lines(box, 3) }
            } else if let list = layer.load(fromByteOffset: self.list, as: UnsafeRawPointer?.self) {
                var replaced = false
                let count = Swift.min(list.load(fromByteOffset: self.count, as: Int.self), 4)
                var k = 0
                while k < count {
                    let a = list.load(fromByteOffset: entryElements &+ k &* MemoryLayout<AnimationEntry>.stride
                                        &+ AnimationEntry.animationOffset, as: UnsafeRawPointer.self)
                    if let e = a.load(fromByteOffset: ends, as: UnsafeRawPointer?.self) {
                        Self.lines(e, 5)
                        if a.load(fromByteOffset: kind, as: UInt8.self) == FastPlan.Kind.transform.rawValue { replaced = true }
                    } else if a.load(fromByteOffset: kind, as: UInt8.self) == FastPlan.Kind.bounds.rawValue {
                        qz_internal_prefetch(a + 128)
                    }
                    k &+= 1
                }
                if !replaced, let box = layer.load(fromByteOffset: self.box, as: UnsafeRawPointer?.self) { Self.lines(box, 3) }
            }
        }
    }
}
