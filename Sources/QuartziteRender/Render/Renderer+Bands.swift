import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel
import Glibc

// A frame on several threads: the update region is cut into horizontal bands
// of whole rows, each replayed by its own compositor over the same draw list
// into its rows of the target (TileStore.parallel runs them on the pool the
// tiled layers use). The bytes are the ones a single thread writes:
//  - quads, clips, group compositing and masks are evaluated per pixel;
//  - paths are rasterized from the origin one thread would use, and shadow
//    templates placed from it (Canvas.frame);
//  - blurred groups and shadow silhouettes are drawn whole by every band that
//    shows part of them (blurs keep running sums, which depend on where a
//    surface starts); the shadow cache usually makes the second one a lookup;
//  - a backdrop reads the pixels around it as drawn before it, which another
//    band may own: no cut falls across a backdrop or its blur's reach.
// Cuts balance an estimate of each row's work (the widths of the operations
// crossing it) rather than the rows themselves.

/// Regions below this many pixels are drawn on the calling thread alone
/// (handing work to another thread costs more than it saves).
package let minimumBandedPixels = 128 * 128
/// No band is thinner than this many rows (unless the region is).
package let minimumBandRows = 16

/// Bands per thread: the threads take them as they finish, which evens out
/// what the estimate below misses.
package let bandsPerThread = 2

/// A rough relative cost per pixel of an operation: spans of the kernels (1),
/// or pixels measured one by one (perspective, clipped, borders), blurs.
private func workPerPixel(_ kind: DrawOpKind, _ transform: Homography, clipped: Bool) -> Double {
    switch kind {
    case .fill, .image, .border:
        let m = transform.m
        return clipped || kind == .border || m.2 != 0 || m.5 != 0 ? 8 : 1
    case .path: return 3
    case .beginShadow, .backdrop: return 4
    default: return 1
    }
}

/// A band's bytes when a frame is cut for the cache, on one thread too: the
/// rows of a band stay in a core's cache (2 MiB of L2 on the development
/// machine) while every operation crossing them is replayed, instead of each
/// operation's rows coming from memory in a frame-sized pass.
package let cacheBandBytes = 1 << 20

/// Operations drawing fewer pixels than this on average (particles, small
/// glyph-like layers) do not gain from cache bands: the rows they touch stay
/// in cache anyway, and each band would repeat the set-up of those it cuts.
package let minimumPixelsPerOperationForCacheBands = 1024

/// The bands (whole rows of `region`, top to bottom, covering it) that
/// `threads` threads draw `ops` in; one band when splitting does not pay.
/// One thread draws a region larger than `cacheBandBytes` in bands too, when
/// its operations are large (minimumPixelsPerOperationForCacheBands) and no
/// blurred group (which every band it touches draws whole) is among them.
package func frameBands(_ ops: [DrawOp], _ region: PixelBox, threads: Int) -> [PixelBox] {
    let h = region.height
    let bytes = region.width * h * 4
    let threadBands = threads > 1 ? threads * bandsPerThread : 1
    let cacheCandidate = cacheBandBytes > 0 && bytes > cacheBandBytes
    guard threadBands > 1 || cacheCandidate, region.width * h >= minimumBandedPixels, h >= 2 * minimumBandRows else {
        return [region]
    }
    // Work per row: the clear, plus each operation's width across it.
    var delta = [Double](repeating: 0, count: h + 1)
    // forbidden[y]: no cut between rows y - 1 and y (relative to region.y0).
    var forbidden = [Int](repeating: 0, count: h + 1)
    var clipDepth = 0
    var drawn = 0, drawnPixels = 0, blurredGroup = false
    // (Fields read one by one: a copy of an operation would retain its
    // texture, filters and geometry.)
    for i in ops.indices {
        let kind = ops[i].kind
        if kind == .pushClip { clipDepth += 1 } else if kind == .popClip { clipDepth = max(clipDepth - 1, 0) }
        let covered = PixelBox(covering: ops[i].bounds)
        let b = covered.intersection(region)
        if kind == .backdrop {
            let reach = ops[i].filters.reduce(0) { $0 + ($1.blurRadius > 0 ? blurExtent(sigma: $1.blurRadius) + 1 : 0) }
            let lo = max(covered.y0 - reach - region.y0 + 1, 1), hi = min(covered.y1 + reach - region.y0, h)
            if lo < hi { forbidden[lo] += 1; forbidden[hi] -= 1 }
        }
        if kind == .beginGroup, ops[i].blurs { blurredGroup = true }
        guard !b.isEmpty, kind != .popClip, kind != .pushClip else { continue }
        switch kind {
        case .fill, .border, .image, .path: drawn += 1; drawnPixels += b.width * b.height
        default: break
        }
        let w = Double(b.width) * workPerPixel(kind, ops[i].transform, clipped: clipDepth > 0)
        delta[b.y0 - region.y0] += w
        delta[b.y1 - region.y0] -= w
    }
    let forCache = cacheCandidate && !blurredGroup && drawn > 0
        && drawnPixels / drawn >= minimumPixelsPerOperationForCacheBands
        ? (bytes + cacheBandBytes - 1) / cacheBandBytes : 1
    let n = max(threadBands, forCache)
    if n <= 1 { return [region] }
    var cost = [Double](repeating: 0, count: h)
    var total = 0.0, level = 0.0
    for y in 0..<h {
        level += delta[y]
        cost[y] = level + Double(region.width) / 8
        total += cost[y]
    }
    var blocked = [Bool](repeating: false, count: h + 1)
    var depth = 0
    for y in 0...h { depth += forbidden[y]; blocked[y] = depth > 0 }
    // Cuts where the running work passes k / n of the total, moved to the
    // nearest row no backdrop spans.
    var cuts: [Int] = []
    var acc = 0.0
    var k = 1
    for y in 0..<h where k < n {
        acc += cost[y]
        if acc >= total * Double(k) / Double(n) {
            k += 1
            var c = y + 1
            if blocked[c] {
                var up = c, down = c
                while up > 0 && blocked[up] { up -= 1 }
                while down < h && blocked[down] { down += 1 }
                c = (c - up <= down - c && up > 0) ? up : down
            }
            if c >= minimumBandRows, c <= h - minimumBandRows, c - (cuts.last ?? 0) >= minimumBandRows { cuts.append(c) }
        }
    }
    var bands: [PixelBox] = []
    var start = 0
    for c in cuts + [h] {
        bands.append(PixelBox(x0: region.x0, y0: region.y0 + start, x1: region.x1, y1: region.y0 + c))
        start = c
    }
    return bands
}
