import CQuartzite
import QuartziteGeometry
import QuartziteGraphics

// Coverage masks (0 = outside, 255 = inside) for the shapes the compositor
// draws: rounded rectangles (backgrounds, borders, masksToBounds), convex
// quads (transformed layers, with per-edge antialiasing) and CGPaths
// (shadowPath). Every rasterizer writes every pixel of the mask (0 outside
// the shape) and returns the pixel rectangle that may hold non-zero coverage.
// Coordinates are in mask pixels: pixel (x, y) covers [x, x + 1) x [y, y + 1).

@inline(__always) private func clamp01(_ x: Double) -> Double { x > 0 ? (x < 1 ? x : 1) : 0 }   // (NaN: 0)
@inline(__always) private func byte(_ c: Double) -> UInt8 { UInt8(clamp01(c) * 255 + 0.5) }

/// The length of [a0, a1) ∩ [b0, b1) (0 when they do not meet).
@inline(__always) private func overlap(_ a0: Double, _ a1: Double, _ b0: Double, _ b1: Double) -> Double {
    Swift.max(0, Swift.min(a1, b1) - Swift.max(a0, b0))
}

// MARK: - Rounded rectangles

/// Fills `mask` with the coverage of `rect` (pixels, fractional) with
/// circular corners of `cornerRadius` (clamped to 0 ... half the shorter
/// side). Antialiased: straight edges get their exact area coverage, corners
/// a signed-distance estimate; otherwise a pixel is covered when its centre is
/// inside. A rect with NaN, infinite or empty extent gives an empty mask.
@discardableResult
package func rasterizeRoundedRectCoverage(into mask: AlphaMask, rect: CGRect, cornerRadius: Double, antialias: Bool = true) -> PixelBox {
    mask.fill(0)
    let r0 = rect.standardized
    guard !r0.hasNaN, r0.origin.isFinite, r0.size.width.isFinite, r0.size.height.isFinite,
          r0.size.width > 0, r0.size.height > 0 else { return .empty }
    let x0 = r0.origin.x, y0 = r0.origin.y, x1 = x0 + r0.size.width, y1 = y0 + r0.size.height
    var rad = cornerRadius.isNaN ? 0 : Swift.max(0, cornerRadius)
    rad = Swift.min(rad, Swift.min(r0.size.width, r0.size.height) / 2)
    let box = PixelBox(x: Texture.clampedIndex(x0), y: Texture.clampedIndex(y0), width: 0, height: 0)
    let bx1 = Texture.clampedIndex(x1.rounded(.up)), by1 = Texture.clampedIndex(y1.rounded(.up))
    let area = PixelBox(x: box.x, y: box.y, width: bx1 - box.x, height: by1 - box.y).intersection(mask.bounds)
    if area.isEmpty { return .empty }
    // Centres of the corner circles; a pixel centre left of cxl (or right of
    // cxr) and above cyt (or below cyb) is in a corner zone.
    let cxl = x0 + rad, cxr = x1 - rad, cyt = y0 + rad, cyb = y1 - rad
    var touched = PixelBox.empty
    for y in area.y..<area.maxY {
        let row = mask.row(y)
        let py = Double(y) + 0.5
        let cy: Double
        if antialias {
            cy = overlap(Double(y), Double(y) + 1, y0, y1)
        } else {
            cy = py >= y0 && py < y1 ? 1 : 0
        }
        if cy <= 0 { continue }
        let inCornerRows = rad > 0 && (py < cyt || py > cyb)
        let ccy = py < cyt ? cyt : cyb
        var any = false
        for x in area.x..<area.maxX {
            let px = Double(x) + 0.5
            var c: Double
            if antialias {
                c = overlap(Double(x), Double(x) + 1, x0, x1) * cy
            } else {
                c = px >= x0 && px < x1 ? 1 : 0
            }
            if c > 0 && inCornerRows && (px < cxl || px > cxr) {
                let ccx = px < cxl ? cxl : cxr
                let dx = px - ccx, dy = py - ccy
                let d = (dx * dx + dy * dy).squareRoot() - rad
                c = antialias ? Swift.min(c, clamp01(0.5 - d)) : (d <= 0 ? c : 0)
            }
            let b = byte(c)
            row[x] = b
            if b != 0 { any = true }
        }
        if any { touched = touched.union(PixelBox(x: area.x, y: y, width: area.width, height: 1)) }
    }
    return touched
}

@discardableResult
package func rasterizeRoundedRectCoverage(into mask: MaskBitmap, rect: CGRect, cornerRadius: Double, antialias: Bool = true) -> PixelBox {
    rasterizeRoundedRectCoverage(into: mask.mask, rect: rect, cornerRadius: cornerRadius, antialias: antialias)
}

// MARK: - Quads

/// The edgeAntialiasingMask bit of each quad edge corners[i] -> corners[i + 1]
/// when the corners are the layer's (minX, minY), (maxX, minY), (maxX, maxY),
/// (minX, maxY) transformed: the minY edge is kCALayerBottomEdge, maxX
/// kCALayerRightEdge, maxY kCALayerTopEdge, minX kCALayerLeftEdge (CALayer.h's
/// definitions).
package let quadEdgeBits: [UInt32] = [UInt32(kCALayerBottomEdge.rawValue), UInt32(kCALayerRightEdge.rawValue),
                              UInt32(kCALayerTopEdge.rawValue), UInt32(kCALayerLeftEdge.rawValue)]

/// The edges of a convex quad as signed-distance functions, ready to give
/// the coverage of one pixel row at a time (see `rasterizeQuadCoverage`).
package struct QuadEdges {
    private var nx: [Double] = [], ny: [Double] = [], nc: [Double] = []
    private var aa: [Bool] = []
    /// The pixels that may be covered (the corners' bounding box, one pixel larger).
    package let bounds: PixelBox

    /// nil for fewer or more than 4 corners, a non-finite corner, or a quad without area.
    package init?(corners: [CGPoint], edgeMask: UInt32) {
        guard corners.count == 4, corners.allSatisfy({ $0.isFinite }) else { return nil }
        // Twice the signed area, computed on corners scaled to at most 1 (huge coordinates do not overflow).
        let big = corners.reduce(1.0) { Swift.max($0, abs($1.x), abs($1.y)) }
        var area2 = 0.0
        for i in 0..<4 {
            let a = corners[i], b = corners[(i + 1) & 3]
            area2 += (a.x / big) * (b.y / big) - (b.x / big) * (a.y / big)
        }
        guard abs(area2) * big * big > 1e-9 else { return nil }
        let sign: Double = area2 > 0 ? 1 : -1
        // Edge functions d(p) = nx px + ny py + c, the signed distance (positive inside).
        for i in 0..<4 {
            let a = corners[i], b = corners[(i + 1) & 3]
            let ex = b.x - a.x, ey = b.y - a.y
            let m = Swift.max(abs(ex), abs(ey))
            if !(m > 1e-12) || !m.isFinite { continue }
            let len = m * ((ex / m) * (ex / m) + (ey / m) * (ey / m)).squareRoot()
            // With positive (y-down, clockwise-on-screen) area the inside is to the right of a->b.
            let x = -ey / len * sign, y = ex / len * sign
            nx.append(x); ny.append(y); nc.append(-(x * a.x + y * a.y))
            aa.append(edgeMask & quadEdgeBits[i] != 0)
        }
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for p in corners {
            minX = Swift.min(minX, p.x); maxX = Swift.max(maxX, p.x)
            minY = Swift.min(minY, p.y); maxY = Swift.max(maxY, p.y)
        }
        let x0 = Texture.clampedIndex(minX) - 1, y0 = Texture.clampedIndex(minY) - 1
        bounds = PixelBox(x: x0, y: y0, width: Texture.clampedIndex(maxX) + 2 - x0, height: Texture.clampedIndex(maxY) + 2 - y0)
    }

    /// Writes the coverage of pixels [xs, xe) of row y into `row[xs ..< xe]`
    /// for the part of [x0, x1) that the quad may touch, and returns the
    /// span of non-zero coverage inside it (empty when the row misses the
    /// quad; pixels of [xs, xe) outside the returned span may also have been
    /// written, with 0). Interior pixels get 255 without evaluating the edges.
    package func coverRow(_ y: Int, _ row: UnsafeMutablePointer<UInt8>, _ x0: Int, _ x1: Int) -> (xs: Int, xe: Int) {
        let n = nx.count
        let py = Double(y) + 0.5
        // Per edge, d(x) = nx (x + 0.5) + rowC. The pixels where every edge
        // gives full coverage form one interval [fullLo, fullHi); find it
        // conservatively, then evaluate the rest pixel by pixel.
        var fullLo = Double(x0), fullHi = Double(x1)
        var lo = Double(x0), hi = Double(x1)
        var rowC = (0.0, 0.0, 0.0, 0.0)
        withUnsafeMutableBytes(of: &rowC) { raw in
            let rc = raw.bindMemory(to: Double.self)
            for e in 0..<n {
                rc[e] = ny[e] * py + nc[e]
                let need = aa[e] ? 0.5 : 1e-9, some = aa[e] ? -0.5 : -1e-9
                if abs(nx[e]) < 1e-12 {
                    if rc[e] < need { fullHi = fullLo }
                    if rc[e] <= some { hi = lo }
                } else {
                    // px where d(px) = k: px = (k - rowC) / nx; pixel x has px = x + 0.5.
                    let tFull = (need - rc[e]) / nx[e] - 0.5, tSome = (some - rc[e]) / nx[e] - 0.5
                    if nx[e] > 0 {
                        fullLo = Swift.max(fullLo, tFull.rounded(.up) + 1)
                        lo = Swift.max(lo, tSome.rounded(.down) - 1)
                    } else {
                        fullHi = Swift.min(fullHi, tFull.rounded(.down))
                        hi = Swift.min(hi, tSome.rounded(.up) + 2)
                    }
                }
            }
        }
        // Clamped into [lower, upper] with NaN at `lower` (degenerate edges
        // give NaN bounds; Int(NaN) would trap).
        @inline(__always) func clamp(_ v: Double, _ lower: Int, _ upper: Int) -> Int {
            v > Double(lower) ? (v < Double(upper) ? Int(v) : upper) : lower
        }
        let xs = clamp(lo, x0, x1), xe = clamp(hi, x0, x1)
        if xe <= xs { return (xs, xs) }
        let fs = clamp(fullLo, xs, xe)
        let fe = clamp(fullHi, fs, xe)
        withUnsafeBytes(of: rowC) { raw in
            let rc = raw.bindMemory(to: Double.self)
            @inline(__always) func evaluate(_ x: Int) {
                let px = Double(x) + 0.5
                var c = 1.0
                for e in 0..<n {
                    let d = nx[e] * px + rc[e]
                    if aa[e] {
                        c *= clamp01(d + 0.5)
                    } else if d < 0 {
                        c = 0
                    }
                    if c == 0 { break }
                }
                row[x] = byte(c)
            }
            for x in xs..<fs { evaluate(x) }
            if fe > fs { (row + fs).update(repeating: 255, count: fe - fs) }
            for x in fe..<xe { evaluate(x) }
        }
        // Trim the pixels the conservative bounds let in but the quad misses.
        var a = xs, b = xe
        while a < b && row[a] == 0 { a += 1 }
        while b > a && row[b - 1] == 0 { b -= 1 }
        return a < b ? (a, b) : (xs, xs)
    }
}

/// Fills `mask` with the coverage of the convex quad `corners` (4 points in
/// pixels, either winding; see `quadEdgeBits` for their order). Edges whose
/// bit is in `edgeMask` are antialiased (coverage from the distance of the
/// pixel centre to the edge); the others are sharp (a pixel centre on the
/// inner side, or on the edge, is covered). Fewer or more than 4 corners, a
/// non-finite corner or a quad without area give an empty mask.
@discardableResult
package func rasterizeQuadCoverage(into mask: AlphaMask, corners: [CGPoint], edgeMask: UInt32 = 0xF) -> PixelBox {
    mask.fill(0)
    guard let quad = QuadEdges(corners: corners, edgeMask: edgeMask) else { return .empty }
    let area = quad.bounds.intersection(mask.bounds)
    if area.isEmpty { return .empty }
    var touched = PixelBox.empty
    for y in area.y..<area.maxY {
        let row = mask.row(y)
        let (xs, xe) = quad.coverRow(y, row, area.x, area.maxX)
        if xe > xs { touched = touched.union(PixelBox(x: xs, y: y, width: xe - xs, height: 1)) }
    }
    return touched
}

@discardableResult
package func rasterizeQuadCoverage(into mask: MaskBitmap, corners: [CGPoint], edgeMask: UInt32 = 0xF) -> PixelBox {
    rasterizeQuadCoverage(into: mask.mask, corners: corners, edgeMask: edgeMask)
}

// MARK: - Paths

/// Fills `mask` with the coverage of `path` (after `transform`, into mask
/// pixels) under the non-zero winding rule (even-odd when `evenOdd`); open
/// subpaths count as closed. Curves are flattened to within 0.02 px.
/// Antialiased: 16 sample rows per pixel row, each with exact horizontal
/// coverage; otherwise pixel centres.
@discardableResult
package func rasterizePathCoverage(into mask: AlphaMask, path: PathData, transform: CGAffineTransform? = nil,
                           evenOdd: Bool = false, antialias: Bool = true) -> PixelBox {
    mask.fill(0)
    if mask.width == 0 || mask.height == 0 || path.isEmpty { return .empty }
    var data = path
    if let transform {
        var t = PathData()
        do { try t.append(contentsOf: path, transform: transform) } catch { return .empty }
        data = t
    }
    var edges = CoverageEdges(height: mask.height)
    for poly in data.flattened(tolerance: 0.02) {
        if !edges.add(polygon: poly.points) { return .empty }
    }
    return edges.rasterize(into: mask, evenOdd: evenOdd, antialias: antialias)
}

/// Fills `mask` with the coverage of `polygons` (mask pixels, each closed,
/// non-zero winding rule), as `rasterizePathCoverage` does for a path's
/// flattened subpaths. A non-finite point gives an empty mask.
@discardableResult
package func rasterizePolygonCoverage(into mask: AlphaMask, polygons: [[CGPoint]], antialias: Bool = true) -> PixelBox {
    mask.fill(0)
    if mask.width == 0 || mask.height == 0 { return .empty }
    var edges = CoverageEdges(height: mask.height)
    for poly in polygons {
        if !edges.add(polygon: poly) { return .empty }
    }
    return edges.rasterize(into: mask, evenOdd: false, antialias: antialias)
}

/// The non-horizontal edges of closed polygons for the scanline rasterizer
/// behind `rasterizePathCoverage` and `rasterizePolygonCoverage`: y-sorted,
/// walked with an active-edge list, 16 sample rows per pixel row (one
/// without antialiasing), each with exact horizontal coverage.
package struct CoverageEdges {
    /// An edge from its top (x0, y0) to its bottom (x1, y1); dir +1 when the
    /// polygon runs downwards along it, -1 upwards.
    private struct Edge { var x0, y0, x1, y1: Double; var dir: Int; var dxdy: Double }
    /// Where an edge crosses a sample row.
    private struct Crossing { var x: Double; var dir: Int; var edge: Int }
    /// Up to this many active edges, crossings are kept sorted by insertion.
    private static let insertionLimit = 32
    private var edges: [Edge] = []
    /// The height of the target: edges entirely above row 0 or below it are dropped.
    private let limitY: Double

    package init(height: Int) { limitY = Double(height) }

    package var isEmpty: Bool { edges.isEmpty }

    /// Adds the edges of the polygon `points`, closed (its last point joins
    /// its first); false (nothing added) when a point is not finite.
    package mutating func add(polygon points: [CGPoint]) -> Bool {
        let n = points.count
        if n < 2 { return true }
        for p in points where !p.isFinite { return false }
        for i in 0..<n {
            let a = points[i], b = points[i + 1 == n ? 0 : i + 1]
            if a.y == b.y { continue }
            let (t, u, dir) = a.y < b.y ? (a, b, 1) : (b, a, -1)
            if u.y <= 0 || t.y >= limitY { continue }
            edges.append(Edge(x0: t.x, y0: t.y, x1: u.x, y1: u.y, dir: dir, dxdy: (u.x - t.x) / (u.y - t.y)))
        }
        return true
    }

    /// Writes the coverage of the edges into the rows of `mask` (whose
    /// height must be the one given to `init`) that they reach, and returns
    /// the pixel rectangle that may hold non-zero coverage. Only each
    /// touched row's span is written (the rest of the mask is left as it
    /// was: clear it first for a whole mask); `span(y, xs, xe)` is called
    /// right after row y is written, with the pixels [xs, xe) that hold its
    /// non-zero coverage, rows in increasing order. `rows` limits the work to
    /// those rows (each row's coverage is the same as in a whole run).
    @discardableResult
    package mutating func rasterize(into mask: AlphaMask, evenOdd: Bool, antialias: Bool, rows: Range<Int>? = nil,
                            span: (Int, Int, Int) -> Void = { _, _, _ in }) -> PixelBox {
        if edges.isEmpty || mask.width == 0 || mask.height == 0 { return .empty }
        let firstRow = Swift.max(rows?.lowerBound ?? 0, 0)
        let height = Swift.min(rows?.upperBound ?? mask.height, mask.height)
        if firstRow >= height { return .empty }
        edges.sort { $0.y0 < $1.y0 }
        let w = mask.width
        let samples = antialias ? 16 : 1
        let weight = 1 / Double(samples)
        let count = edges.count
        // Scratch: coverage of partly covered pixels (acc), the start and end
        // steps of fully covered runs (run), the active edges, and one sample
        // row's crossings (x, winding), kept sorted as they are found.
        let acc = UnsafeMutablePointer<Double>.allocate(capacity: w + 2)
        let run = UnsafeMutablePointer<Double>.allocate(capacity: w + 2)
        let active = UnsafeMutablePointer<Int>.allocate(capacity: count)
        let crossX = UnsafeMutablePointer<Double>.allocate(capacity: count)
        let crossDir = UnsafeMutablePointer<Int>.allocate(capacity: count)
        // Many crossings on one sample row (a polygon of thousands of edges)
        // are sorted, not inserted one by one: the cost stays n log n.
        let crossings = UnsafeMutablePointer<Crossing>.allocate(capacity: count)
        acc.initialize(repeating: 0, count: w + 2)
        run.initialize(repeating: 0, count: w + 2)
        defer {
            acc.deallocate(); run.deallocate(); active.deallocate(); crossX.deallocate(); crossDir.deallocate()
            crossings.deallocate()
        }
        return edges.withUnsafeBufferPointer { e -> PixelBox in
            var activeCount = 0
            var next = 0
            var touched = PixelBox.empty
            var y = Swift.max(firstRow, Texture.clampedIndex(e[0].y0))
            while y < height {
                if activeCount == 0 {
                    if next >= count { break }
                    y = Swift.max(y, Texture.clampedIndex(e[next].y0))
                    if y >= height { break }
                }
                let rowTop = Double(y), rowBottom = rowTop + 1
                // Drop the edges that ended above this row, add those that start in it.
                var kept = 0
                for i in 0..<activeCount where e[active[i]].y1 > rowTop {
                    active[kept] = active[i]; kept += 1
                }
                activeCount = kept
                while next < count && e[next].y0 < rowBottom {
                    if e[next].y1 > rowTop { active[activeCount] = next; activeCount += 1 }
                    next += 1
                }
                var rowAny = false
                var minXi = w, maxXi = 0
                for s in 0..<samples {
                    let sy = rowTop + (Double(s) + 0.5) * weight
                    var n = 0
                    if activeCount <= Self.insertionLimit {
                        for i in 0..<activeCount {
                            let ed = e[active[i]]
                            if sy >= ed.y0 && sy < ed.y1 {
                                let x = ed.x0 + (sy - ed.y0) * ed.dxdy
                                var j = n
                                while j > 0 && crossX[j - 1] > x { crossX[j] = crossX[j - 1]; crossDir[j] = crossDir[j - 1]; j -= 1 }
                                crossX[j] = x; crossDir[j] = ed.dir
                                n += 1
                            }
                        }
                    } else {
                        // Many edges: the crossings in the active list's order,
                        // which is the last sample row's sorted order (edges move
                        // little in 1/16 pixel), so nearly sorted: an insertion
                        // sort with a budget of moves, else a full sort. Then the
                        // list takes the new order. Linear for most rows.
                        var rest = 0
                        for i in 0..<activeCount {
                            let index = active[i]
                            let ed = e[index]
                            if sy >= ed.y0 && sy < ed.y1 {
                                let x = ed.x0 + (sy - ed.y0) * ed.dxdy
                                crossings[n] = Crossing(x: x.isNaN ? -.infinity : x, dir: ed.dir, edge: index)   // (a total order)
                                n += 1
                            } else {
                                // (Not on this sample row: kept after the crossings, in order.)
                                active[rest] = index
                                rest += 1
                            }
                        }
                        var budget = 4 * n + 64
                        var k = 1
                        while k < n && budget > 0 {
                            let c = crossings[k]
                            var j = k
                            while j > 0 && crossings[j - 1].x > c.x { crossings[j] = crossings[j - 1]; j -= 1 }
                            budget -= k - j
                            crossings[j] = c
                            k += 1
                        }
                        if k < n {
                            var all = UnsafeMutableBufferPointer(start: crossings, count: n)
                            all.sort { $0.x < $1.x }
                        }
                        // active = sorted crossings' edges, then the others.
                        var r = rest
                        while r > 0 { r -= 1; active[n + r] = active[r] }   // (backwards: the ranges may overlap)
                        for k in 0..<n {
                            crossX[k] = crossings[k].x; crossDir[k] = crossings[k].dir
                            active[k] = crossings[k].edge
                        }
                    }
                    if n < 2 { continue }
                    var wind = 0
                    for k in 0..<(n - 1) {
                        wind += crossDir[k]
                        let inside = evenOdd ? (wind & 1) != 0 : wind != 0
                        if !inside { continue }
                        var xa = crossX[k], xb = crossX[k + 1]
                        if !antialias {
                            // Pixel centres in [xa, xb).
                            xa = (xa - 0.5).rounded(.up) ; xb = (xb - 0.5).rounded(.up)
                        }
                        xa = Swift.max(xa, 0); xb = Swift.min(xb, Double(w))
                        if !(xb > xa) { continue }   // (also NaN crossings)
                        let ia = Int(xa), ib = Int(xb)
                        rowAny = true
                        minXi = Swift.min(minXi, ia); maxXi = Swift.max(maxXi, Swift.min(ib + 1, w))
                        if ia == ib {
                            acc[ia] += (xb - xa) * weight
                        } else {
                            acc[ia] += (Double(ia + 1) - xa) * weight
                            run[ia + 1] += weight
                            run[ib] -= weight
                            acc[ib] += (xb - Double(ib)) * weight
                        }
                    }
                }
                if rowAny {
                    let row = mask.row(y)
                    var level = 0.0
                    var any: UInt8 = 0
                    var x = minXi
                    let end = Swift.min(maxXi + 1, w)
                    while x < end {
                        level += run[x]
                        let a = acc[x]
                        let b = byte(level + a)
                        row[x] = b
                        any |= b
                        x += 1
                        if a == 0 {
                            // The pixels up to the next span end or partial
                            // pixel have the same coverage.
                            let from = x
                            while x < end && run[x] == 0 && acc[x] == 0 { x += 1 }
                            if x > from { (row + from).update(repeating: b, count: x - from) }
                        }
                    }
                    let clearEnd = Swift.min(maxXi + 1, w + 1)
                    (acc + minXi).update(repeating: 0, count: clearEnd + 1 - minXi)
                    (run + minXi).update(repeating: 0, count: clearEnd + 1 - minXi)
                    if any != 0 {
                        touched = touched.union(PixelBox(x: minXi, y: y, width: maxXi - minXi, height: 1))
                        span(y, minXi, maxXi)
                    }
                }
                y += 1
            }
            return touched
        }
    }
}

@discardableResult
package func rasterizePathCoverage(into mask: MaskBitmap, path: PathData, transform: CGAffineTransform? = nil,
                           evenOdd: Bool = false, antialias: Bool = true) -> PixelBox {
    rasterizePathCoverage(into: mask.mask, path: path, transform: transform, evenOdd: evenOdd, antialias: antialias)
}
