import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel
import Glibc

// Blurred shadow masks, kept between frames. A shadow's silhouette alpha
// (and the blur's sigma) decides its blurred mask entirely, so the cache is
// keyed by that content: a layer that moves by whole pixels, a redraw of an
// unchanged frame, or a hundred identical cards blur once, and the pixels are
// the same bytes a fresh blur would give. (Core Animation caches shadows too.)
// Used by one renderer's compositor at a time (the renderer's frame lock),
// whose bands may run on several threads: a lock guards the tables, and
// blurs run outside it.

/// A mask kept between frames: dropped at a sweep unless a frame used it.
private protocol KeptMask: AnyObject {
    var used: Bool { get set }
    var bytes: Int { get }
}

package final class ShadowMaskCache {
    private struct Key: Hashable {
        let width: Int, height: Int
        let sigmaBits: UInt64
        let hash: UInt64
    }

    private final class Entry: KeptMask {
        /// The silhouette's alpha, rows packed (compared on a hit: a hash is not proof).
        let alpha: UnsafeMutablePointer<UInt8>
        let blurred: MaskBitmap
        var used = true
        init(alpha: UnsafeMutablePointer<UInt8>, blurred: MaskBitmap) { self.alpha = alpha; self.blurred = blurred }
        deinit { alpha.deallocate() }
        var bytes: Int { blurred.width * blurred.height * 2 }
    }

    private var entries: [Key: Entry] = [:]

    /// The rounded-rectangle shadow kernel's blurred templates, by the numbers that make them.
    private struct TemplateKey: Hashable {
        let width: Int, height: Int
        let x: UInt64, y: UInt64, w: UInt64, h: UInt64, radius: UInt64, sigma: UInt64
    }
    private final class Template: KeptMask {
        let mask: MaskBitmap
        var used = true
        init(_ mask: MaskBitmap) { self.mask = mask }
        var bytes: Int { mask.width * mask.height }
    }
    private var templates: [TemplateKey: Template] = [:]

    /// A shadow prepared for a frame's bands (Compositor.prepareShadows) by
    /// the layer casting it (its `layerID` and, should one layer cast more
    /// than one, which of its shadows): the operations its silhouette was
    /// drawn from (the BEGIN_SHADOW through the END_SHADOW), the frame's
    /// region, which decides the silhouette's rectangle, and the result.
    package struct SilhouetteKey: Hashable {
        package let layer: UInt
        package let ordinal: Int
        package init(layer: UInt, ordinal: Int) { self.layer = layer; self.ordinal = ordinal }
    }
    private final class PreparedSilhouette: KeptMask {
        let ops: [DrawOp]
        let root: (rect: PixelBox, frame: PixelBox)
        let rect: PixelBox
        let mask: MaskBitmap?
        var used = true
        init(ops: [DrawOp], root: Canvas, rect: PixelBox, mask: MaskBitmap?) {
            self.ops = ops; self.root = (root.rect, root.frame); self.rect = rect; self.mask = mask
        }
        /// (Counted against the budget even when `entries` holds the same mask.)
        var bytes: Int { mask.map { $0.width * $0.height } ?? 0 }
    }
    private var silhouettes: [SilhouetteKey: PreparedSilhouette] = [:]
    /// Shadows prepared from the last frame's silhouette without drawing it.
    package private(set) var silhouetteReuses = 0
    private var bytes = 0
    /// Memory for masks kept between frames; past it, new blurs are not kept.
    package var budgetBytes = 64 << 20
    package private(set) var hits = 0
    package private(set) var misses = 0
    private let lock = RecursiveLock()

    package init() {}

    /// The blurred version of `silhouette` (alpha of the shadow's canvas) at
    /// `sigma`: from the cache, or blurred now (in `silhouette`'s own storage,
    /// which is then returned) and kept.
    package func blurred(_ silhouette: MaskBitmap, sigma: Double) -> MaskBitmap {
        let m = silhouette.mask
        let key = Key(width: m.width, height: m.height, sigmaBits: sigma.bitPattern, hash: Self.hash(m))
        let found: MaskBitmap? = lock.withLock {
            if let e = entries[key], Self.equal(e.alpha, m) {
                e.used = true
                hits += 1
                return e.blurred
            }
            misses += 1
            return nil
        }
        if let found { return found }
        let count = m.width * m.height
        let keep = count > 0 && lock.withLock { bytes + 2 * count <= budgetBytes }
        var copy: UnsafeMutablePointer<UInt8>?
        if keep {
            let p = UnsafeMutablePointer<UInt8>.allocate(capacity: count)
            for y in 0..<m.height { (p + y * m.width).update(from: m.base + y * m.rowBytes, count: m.width) }
            copy = p
        }
        gaussianBlur(mask: m, sigma: sigma)
        if let copy {
            let e = Entry(alpha: copy, blurred: silhouette)
            lock.withLock {
                if let old = entries.updateValue(e, forKey: key) { bytes -= old.bytes }
                bytes += e.bytes
            }
        }
        return silhouette
    }

    /// The template `make` draws for these parameters (fillRoundedRectShadow),
    /// kept while frames use it; nil when `make` fails.
    package func template(width: Int, height: Int, shape: CGRect, cornerRadius: Double, sigma: Double,
                          make: () -> MaskBitmap?) -> MaskBitmap? {
        let key = TemplateKey(width: width, height: height, x: shape.origin.x.bitPattern, y: shape.origin.y.bitPattern,
                              w: shape.size.width.bitPattern, h: shape.size.height.bitPattern,
                              radius: cornerRadius.bitPattern, sigma: sigma.bitPattern)
        let found: MaskBitmap? = lock.withLock {
            if let t = templates[key] {
                t.used = true
                hits += 1
                return t.mask
            }
            misses += 1
            return nil
        }
        if let found { return found }
        guard let mask = make() else { return nil }
        let size = width * height
        lock.withLock {
            // (Another band may have made the same template meanwhile: one is kept.)
            if templates[key] == nil, bytes + size <= budgetBytes {
                templates[key] = Template(mask)
                bytes += size
            }
        }
        return mask
    }

    /// The rectangle and blurred mask of the shadow `key` prepared from the
    /// same operations (`sameContent`: textures by identity and seed) over a
    /// root canvas of the same rectangle and frame (which decide the
    /// silhouette's rectangle): they draw the same silhouette. nil otherwise.
    package func preparedSilhouette(_ key: SilhouetteKey, ops: ArraySlice<DrawOp>,
                                    root: Canvas) -> (rect: PixelBox, mask: MaskBitmap?)? {
        guard let e = lock.withLock({ silhouettes[key] }), e.root.rect == root.rect, e.root.frame == root.frame,
              e.ops.count == ops.count, zip(e.ops, ops).allSatisfy({ $0.sameContent(as: $1) }) else { return nil }
        lock.withLock {
            e.used = true
            silhouetteReuses += 1
        }
        return (e.rect, e.mask)
    }

    /// Keeps what `preparedSilhouette` answers for the next frames.
    package func keepPreparedSilhouette(_ key: SilhouetteKey, ops: ArraySlice<DrawOp>, root: Canvas,
                                        rect: PixelBox, mask: MaskBitmap?) {
        let e = PreparedSilhouette(ops: Array(ops), root: root, rect: rect, mask: mask)
        lock.withLock {
            let old = silhouettes.removeValue(forKey: key)
            if let old { bytes -= old.bytes }
            guard bytes + e.bytes <= budgetBytes else { return }
            silhouettes[key] = e
            bytes += e.bytes
        }
    }

    /// Drops the masks no frame used since the last sweep (end of each frame).
    package func sweep() {
        lock.withLock { sweepLocked() }
    }

    private func sweepLocked() {
        sweepUnused(&templates)
        sweepUnused(&entries)
        sweepUnused(&silhouettes)
    }

    /// Drops the masks of `kept` that no frame used, and marks the rest unused.
    private func sweepUnused<K, V: KeptMask>(_ kept: inout [K: V]) {
        for (k, e) in kept where !e.used {
            bytes -= e.bytes
            kept[k] = nil
        }
        for e in kept.values { e.used = false }
    }

    package var count: Int { lock.withLock { entries.count + templates.count } }
    package var preparedSilhouetteCount: Int { lock.withLock { silhouettes.count } }

    /// 64-bit FNV-1a over 8-byte words of each row, then the row's tail.
    private static func hash(_ m: AlphaMask) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        let words = m.width / 8
        for y in 0..<m.height {
            let row = UnsafeRawPointer(m.base + y * m.rowBytes)
            for i in 0..<words {
                h = (h ^ row.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self)) &* 0x0000_0100_0000_01b3
            }
            for i in (words * 8)..<m.width {
                h = (h ^ UInt64(row.load(fromByteOffset: i, as: UInt8.self))) &* 0x0000_0100_0000_01b3
            }
        }
        return h
    }

    private static func equal(_ packed: UnsafeMutablePointer<UInt8>, _ m: AlphaMask) -> Bool {
        for y in 0..<m.height where memcmp(packed + y * m.width, m.base + y * m.rowBytes, m.width) != 0 {
            return false
        }
        return true
    }
}
