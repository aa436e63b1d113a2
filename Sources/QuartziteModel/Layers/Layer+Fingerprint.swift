import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics

// Idle frames: a 64-bit fingerprint of everything a renderer's draw list
// depends on (every layer's geometry, flags, appearance, contents identity
// and seed, mask and sublayer order). When it equals the last frame's and
// nothing animates (an emitter with cells counts as animating), the renderer
// reuses the last frame's operations without rebuilding or comparing them.
// The walk runs on every frame before anything else, on one thread, so it
// reads the fields in place (no retains, no getters across modules).

/// Four independent lanes, each word mixed into one of them: the lanes'
/// steps do not wait for each other.
package struct FingerprintHasher {
    private var a: UInt64 = 0x243F_6A88_85A3_08D3
    private var b: UInt64 = 0x1319_8A2E_0370_7344
    private var c: UInt64 = 0xA409_3822_299F_31D0
    private var d: UInt64 = 0x082E_FA98_EC4E_6C89

    package init() {}

    /// One lane's step: xor, multiply by an odd constant, rotate. Each is a
    /// bijection of the lane for a given word, and of the word for a given
    /// lane, so a frame differing from the last in one word always has a
    /// different fingerprint. The rotation brings the product's high bits
    /// (where a multiplication leaves a change in a double's sign and
    /// exponent) down to where the next multiplication spreads them: without
    /// it two sign-bit changes cancel (`x * odd` changes only bit 63 when x's
    /// bit 63 does).
    @inline(__always) static func step(_ s: UInt64, _ x: UInt64) -> UInt64 {
        let m = (s ^ x) &* 0x9E37_79B9_7F4A_7C15
        return (m << 29) | (m >> 35)
    }

    @inline(__always) package mutating func mix(_ w: UInt64, _ x: UInt64, _ y: UInt64, _ z: UInt64) {
        a = Self.step(a, w); b = Self.step(b, x); c = Self.step(c, y); d = Self.step(d, z)
    }
    @inline(__always) package mutating func mix(_ w: Double, _ x: Double, _ y: Double, _ z: Double) {
        mix(w.bitPattern, x.bitPattern, y.bitPattern, z.bitPattern)
    }
    @inline(__always) package mutating func mix(_ r: CGRect) {
        mix(r.origin.x, r.origin.y, r.size.width, r.size.height)
    }
    @inline(__always) package mutating func mix(_ t: CATransform3D) {
        mix(t.m11, t.m12, t.m13, t.m14); mix(t.m21, t.m22, t.m23, t.m24)
        mix(t.m31, t.m32, t.m33, t.m34); mix(t.m41, t.m42, t.m43, t.m44)
    }

    /// The lanes chained (each step a bijection of either input, so a
    /// change in one lane reaches the value) through splitmix64's finaliser.
    package var value: UInt64 {
        var z = Self.step(Self.step(Self.step(a, b), c), d)
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension Layer {
    /// Mixes the tree under this layer into `h`: nil when something in it
    /// animates (then a frame depends on time), and whether the model tree is
    /// what a frame shows (nothing animates and no layer has uncommitted
    /// changes), found in the same walk. The model lock must be held.
    package func treeFingerprint(_ h: inout FingerprintHasher) -> (print: UInt64?, modelIsPresentation: Bool) {
        // (Unretained: the walk changes nothing that could free a layer; the
        // parents, held by the tree, hold every layer on the stack.)
        var stack: [Unmanaged<Layer>] = [Unmanaged.passUnretained(self)]
        var steps = 0
        var uncommitted = false
        let prefetch = PresentationPrefetch.offsets
        while let next = stack.popLast() {
            // (A full frame leaves the caches holding pixels: the layers
            // popped next, four and two turns ahead, and then their
            // visuals, are requested from memory ahead of use.)
            if let o = prefetch {
                let n = stack.count
                if n >= 4 { PresentationPrefetch.span(stack[n &- 4].toOpaque(), o.hot) }
                if n >= 2, let v = UnsafeRawPointer(stack[n &- 2].toOpaque()).load(fromByteOffset: o.visuals, as: UnsafeRawPointer?.self) {
                    PresentationPrefetch.span(v, o.visualsBytes)
                }
            }
            steps += 1
            if steps > 10_000_000 { return (nil, false) }
            let animates = next._withUnsafeGuaranteedRef { l in l.mixFingerprint(&h, &stack, &uncommitted) }
            if animates { return (nil, false) }
        }
        return (h.value, !uncommitted)
    }

    /// One layer's words (true, mixing nothing more, when it animates); its
    /// mask and sublayers go on `stack`. (Side objects are read unretained:
    /// a retain and a release are two atomic operations, the dearest part of
    /// a layer's turn here.)
    @inline(__always)
    private func mixFingerprint(_ h: inout FingerprintHasher, _ stack: inout [Unmanaged<Layer>],
                                _ uncommitted: inout Bool) -> Bool {
        if animationList != nil || _implicitList != nil { return true }
        var shape: UInt64 = 0
        // (A tiled layer's state, read once: few layers have any extras.)
        var tiled: TiledLayerState?
        if let extras = unretained(&_extras) {
            let animates = extras._withUnsafeGuaranteedRef { x -> Bool in
                // An emitter's particles move with time (and its cells change
                // outside transactions): every frame is built.
                if let e = x.emitter, !e.emitterCells.isEmpty { return true }
                tiled = x.tiled
                return false
            }
            if animates { return true }
            if tiled != nil { shape |= 16 }
        }
        // Frames show committed state: a layer's log of it exists while it
        // has uncommitted changes, and goes at the commit, which must not
        // leave the fingerprint (read from the model) unchanged.
        let logging = hasCommittedSnapshot
        if logging { uncommitted = true }
        if flags.contains(.lazySublayers) { makeLazySublayers() }
        let v = unretained(&visuals)
        let rare = v?._withUnsafeGuaranteedRef { unretained(&$0.rare) }
        let transform = unretained(&transformBox), sublayerTransform = unretained(&_sublayerTransformBox)
        if transform != nil { shape |= 1 }
        if sublayerTransform != nil { shape |= 2 }
        if v != nil { shape |= 4 }
        if rare != nil { shape |= 8 }
        var contents: UInt64 = 0, seed: UInt64 = 0
        if let c = v?._withUnsafeGuaranteedRef({ unretained(&$0.contents) }) {
            contents = UInt64(UInt(bitPattern: c.toOpaque()))
            seed = c._withUnsafeGuaranteedRef { c in
                if PixelBuffer.accepts(c.tag) { return UInt64(unsafeDowncast(c, to: PixelBuffer.self).seed) }
                if Image.accepts(c.tag) { return UInt64(unsafeDowncast(c, to: Image.self).pixels.seed) }
                return 0
            }
        }
        let sublayerCount = storedSublayers.count
        h.mix(Self.word(self), logging ? Self.word(&_transactionState) : 0,
              bounds.origin.x.bitPattern, bounds.origin.y.bitPattern)
        h.mix(bounds.size.width, bounds.size.height, position.x, position.y)
        h.mix(anchorPoint.x, anchorPoint.y, anchorPointZ, zPosition)
        h.mix(UInt64(opacity.bitPattern) | UInt64(flags.subtracting([.sideState, .commonVisuals]).rawValue) << 32,
              _cornerRadius.bitPattern, _borderWidth.bitPattern, Self.word(&_backgroundColor))
        h.mix(shape | UInt64(sublayerCount) << 8, contents, seed, 0)
        transform?._withUnsafeGuaranteedRef { h.mix($0.value) }
        sublayerTransform?._withUnsafeGuaranteedRef { h.mix($0.value) }
        if let t = tiled {
            h.mix(t.changeCount, t.tileSize.width.bitPattern, t.tileSize.height.bitPattern,
                  UInt64(truncatingIfNeeded: t.levelsOfDetail) &* 31 &+ UInt64(truncatingIfNeeded: t.levelsOfDetailBias))
        }
        rare?._withUnsafeGuaranteedRef { r in
            h.mix(r.contentsRect)
            h.mix(r.contentsCenter)
            h.mix(r.contentsScale.bitPattern,
                  UInt64(r.contentsGravity) | UInt64(r.minificationFilter) << 8 | UInt64(r.magnificationFilter) << 16
                    | UInt64(r.minificationFilterBias.bitPattern) << 32,
                  Self.word(&r.borderColor),
                  UInt64(r.shadowOpacity.bitPattern) | UInt64(r.edgeAntialiasingMask) << 32)
            h.mix(r.shadowRadius.bitPattern, r.shadowOffset.width.bitPattern, r.shadowOffset.height.bitPattern,
                  Self.word(&r.shadowColor))
            // (Filter values are immutable: their identity is their content.)
            h.mix(Self.word(&r.shadowPath), r.rasterizationScale.bitPattern, Self.word(&r.mask), Self.word(&r.filters))
            h.mix(Self.word(&r.backgroundFilters), Self.word(&r.compositingFilter), 0, 0)
            if let m = unretained(&r.mask) { stack.append(m) }
        }
        // The sublayers' order, four to a step (the count is mixed above).
        guard sublayerCount > 0 else { return false }
        storedSublayers.withUnsafeBufferPointer { subs in
            let n = subs.count
            let ids = UnsafeRawPointer(subs.baseAddress!).assumingMemoryBound(to: UInt.self)
            var i = 0
            while i + 4 <= n {
                h.mix(UInt64(ids[i]), UInt64(ids[i + 1]), UInt64(ids[i + 2]), UInt64(ids[i + 3]))
                i += 4
            }
            if i < n {
                h.mix(UInt64(ids[i]), i + 1 < n ? UInt64(ids[i + 1]) : 0, i + 2 < n ? UInt64(ids[i + 2]) : 0, 0)
            }
            stack.reserveCapacity(stack.count + n)
            for k in 0..<n { stack.append(Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: ids[k])!)) }
        }
        return false
    }

    /// An object's identity as a word (0 for nil), read without a retain.
    @inline(__always) private static func word<T: AnyObject>(_ ref: inout T?) -> UInt64 {
        unretained(&ref).map { UInt64(UInt(bitPattern: $0.toOpaque())) } ?? 0
    }
    @inline(__always) private static func word(_ l: Layer) -> UInt64 {
        UInt64(UInt(bitPattern: Unmanaged.passUnretained(l).toOpaque()))
    }
}
