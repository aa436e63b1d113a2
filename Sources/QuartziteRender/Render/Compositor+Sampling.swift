import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel

// Layer contents as the kernels' textures: a pixel buffer decoded once to
// premultiplied BGRA8 (kept while its seed is unchanged), and, for contents
// that show part of the image (contentsRect, nine-part slices), a texture
// of that part, so that filtering clamps at its edges.

package final class TextureCache {
    private struct Key: Hashable { let buffer: ObjectIdentifier; let x0: Int, y0: Int, x1: Int, y1: Int }
    private struct Entry { let buffer: PixelBuffer; let seed: UInt32; let texture: Texture; var used: Bool }
    private var entries: [Key: Entry] = [:]
    /// Blurred shadow masks (the renderer's other cache that lives across frames).
    package let shadows = ShadowMaskCache()

    /// The texture of `box` (texels) of `pb`.
    /// The last texture handed out (consecutive operations often share one).
    private var last: (buffer: PixelBuffer, seed: UInt32, box: PixelBox, texture: Texture)?

    /// (The bands of a frame drawn on several threads share the cache.)
    private let lock = RecursiveLock()

    package func texture(_ pb: PixelBuffer, seed: UInt32, box: PixelBox) -> Texture? {
        lock.withLock {
            if let l = last, l.buffer === pb, l.seed == seed, l.box == box { return l.texture }
            let t = lookup(pb, seed: seed, box: box)
            if let t { last = (pb, seed, box, t) }
            return t
        }
    }

    private func lookup(_ pb: PixelBuffer, seed: UInt32, box: PixelBox) -> Texture? {
        let key = Key(buffer: ObjectIdentifier(pb), x0: box.x0, y0: box.y0, x1: box.x1, y1: box.y1)
        if var e = entries[key], e.seed == seed {
            if !e.used { e.used = true; entries[key] = e }
            return e.texture
        }
        let full = PixelBox(x0: 0, y0: 0, x1: pb.width, y1: pb.height)
        let t: Texture
        if box == full {
            guard let decoded = Self.decode(pb) else { return nil }
            t = decoded
        } else {
            guard let whole = lookup(pb, seed: seed, box: full),
                  let part = Texture(copying: whole.base.surface.subSurface(
                    PixelBox(x: box.x0, y: box.y0, width: box.width, height: box.height))) else { return nil }
            t = part
        }
        entries[key] = Entry(buffer: pb, seed: seed, texture: t, used: true)
        return t
    }

    private static func decode(_ pb: PixelBuffer) -> Texture? {
        // (A CAEAGLLayer's image: presents keep its pixels for CPU renderers.)
        EAGLRegistry.noteCPURead(pb)
        guard pb.width > 0, pb.height > 0, let decode = pb.decoder(),
              let bitmap = Bitmap(width: pb.width, height: pb.height) else { return nil }
        pb.lock(readOnly: true)
        defer { try? pb.unlock(readOnly: true) }
        let s = bitmap.surface
        for y in 0..<pb.height { decode(y, UnsafeMutableRawPointer(s.row(y))) }
        return Texture(bitmap: bitmap)
    }

    /// Drops entries not used since the last sweep.
    package func sweep() {
        shadows.sweep()
        lock.withLock {
            last = nil
            entries = entries.filter { $0.value.used }
            for k in entries.keys { entries[k]!.used = false }
        }
    }

    package var count: Int { lock.withLock { entries.count } }
}
