import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel

// CATiledLayer in a frame: the level follows the scale at which the layer
// appears in the target (through every transform, perspective included, at
// the centre of what is visible); the tiles of that level that intersect the
// visible part of the layer (the enclosing clips - the target and the
// masksToBounds ancestors - mapped back into the layer, within its bounds)
// are shown when drawn and requested from the workers otherwise. Where a
// tile is missing or fading in, the best coarser tile already drawn shows
// beneath it. Tiles are image operations, where the layer's contents go.

/// What a tiled layer shows in one frame (for tests: QZ... statistics and the Swift tests).
package struct TilePlan {
    package var level: Int
    package var scale: Double
    /// Tile indices visible, half-open: x in x0..<x1, y in y0..<y1.
    package var x0: Int, x1: Int, y0: Int, y1: Int
    package var count: Int {
        let (n, overflow) = max(x1 - x0, 0).multipliedReportingOverflow(by: max(y1 - y0, 0))
        return overflow ? Int.max : n
    }
}

extension DrawListBuilder {
    /// At most this many tiles are shown per layer per frame (a tiny tile
    /// size or too few levels for the zoom would otherwise ask for millions).
    package static let maxTilesPerFrame = 4096

    /// The part of `b` (layer coordinates) that `h` maps into `visibleTarget`.
    static func visibleLayerRect(_ b: CGRect, _ h: Homography, visibleTarget clip: CGRect) -> CGRect {
        guard !clip.isNull, clip.width.isFinite, clip.height.isFinite, clip.origin.x.isFinite, clip.origin.y.isFinite else { return b }
        let eps = 1e-9
        // Every corner of the layer in front of the eye: the clip's corners map back.
        for p in [CGPoint(x: b.minX, y: b.minY), CGPoint(x: b.maxX, y: b.minY), CGPoint(x: b.maxX, y: b.maxY), CGPoint(x: b.minX, y: b.maxY)] {
            if h.applyHomogeneous(p).2 <= eps { return b }
        }
        guard let inv = h.inverse else { return .null }
        var x0 = Double.infinity, y0 = Double.infinity, x1 = -Double.infinity, y1 = -Double.infinity
        var sign = 0.0
        for p in [CGPoint(x: clip.minX, y: clip.minY), CGPoint(x: clip.maxX, y: clip.minY),
                  CGPoint(x: clip.maxX, y: clip.maxY), CGPoint(x: clip.minX, y: clip.maxY)] {
            let (x, y, w) = inv.applyHomogeneous(p)
            guard abs(w) > eps, sign == 0 || (w > 0) == (sign > 0) else { return b }
            sign = w
            x0 = min(x0, x / w); x1 = max(x1, x / w); y0 = min(y0, y / w); y1 = max(y1, y / w)
        }
        guard x0.isFinite, x1.isFinite, y0.isFinite, y1.isFinite else { return b }
        return CGRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0).intersection(b)
    }

    /// Pixels per layer point where `h` maps `p`: the larger stretch of the
    /// two axes (the Jacobian's column lengths).
    static func screenScale(_ h: Homography, at p: CGPoint) -> Double {
        let m = h.m
        let (X, Y, W) = h.applyHomogeneous(p)
        guard abs(W) > 1e-12 else { return .infinity }
        let w2 = W * W
        let dxx = (m.0 * W - X * m.2) / w2, dyx = (m.1 * W - Y * m.2) / w2
        let dxy = (m.3 * W - X * m.5) / w2, dyy = (m.4 * W - Y * m.5) / w2
        return max((dxx * dxx + dyx * dyx).squareRoot(), (dxy * dxy + dyy * dyy).squareRoot())
    }

    /// The level and tiles of `state` visible when the layer's bounds `b` are mapped by `h`.
    package func tilePlan(_ state: TiledLayerState, contentsScale c: Double, bounds b: CGRect, _ h: Homography) -> TilePlan? {
        let visible = Self.visibleLayerRect(b, h, visibleTarget: clip)
        guard !visible.isNull, !visible.hasNaN, visible.width > 0, visible.height > 0 else { return nil }
        let s = Self.screenScale(h, at: CGPoint(x: visible.midX, y: visible.midY))
        let level = state.level(forScreenScale: s, contentsScale: c)
        let k = c * Double(sign: .plus, exponent: level, significand: 1)
        let (tw, th) = state.effectiveTileSize
        let sx = Double(tw) / k, sy = Double(th) / k
        func index(_ v: Double) -> Int { v.isNaN ? 0 : Int(max(min(v, 4e18), -4e18)) }
        let plan = TilePlan(level: level, scale: k,
                            x0: index((visible.minX / sx).rounded(.down)), x1: index((visible.maxX / sx).rounded(.up)),
                            y0: index((visible.minY / sy).rounded(.down)), y1: index((visible.maxY / sy).rounded(.up)))
        return plan
    }

    static func sameRect(_ a: CGRect, _ b: CGRect) -> Bool {
        a.origin.x == b.origin.x && a.origin.y == b.origin.y && a.size.width == b.size.width && a.size.height == b.size.height
    }

    mutating func emitTiles(_ layer: Layer, _ h: Homography, bounds b: CGRect, opacity: Float, id: UInt) {
        let model = layer.modelLayer ?? layer
        guard let state = model.tiled, let drawer = TileDrawer(model) else { return }
        guard b.width > 0, b.height > 0, b.origin.isFinite, b.width.isFinite, b.height.isFinite else { return }
        let v = layer.visuals
        let cs = v?.contentsScale ?? 1
        let c = cs.isFinite && cs > 0 ? cs : 1
        guard let plan = tilePlan(state, contentsScale: c, bounds: b, h), plan.count > 0,
              plan.count <= Self.maxTilesPerFrame else { return }
        let (tw, th) = state.effectiveTileSize
        let k = plan.scale
        let sx = Double(tw) / k, sy = Double(th) / k
        let lowest = state.levelRange.lowerBound
        let fade = model.layerClass.tiledFadeDuration
        let flipped = model.contentsAreFlipped
        let cache = state.tileCache
        let now = self.now
        var shown: [(Tile, Float)] = []
        var under: [TileKey: Tile] = [:]
        var inline: [TileJob] = []
        var busy = false
        var requested: [(Tile, UInt64)] = []
        TileStore.shared.withLock { store in
            store.clock &+= 1
            cache.visits &+= 1
            for j in plan.y0..<plan.y1 {
                for i in plan.x0..<plan.x1 {
                    let key = TileKey(level: plan.level, x: i, y: j)
                    let full = CGRect(x: Double(i) * sx, y: Double(j) * sy, width: sx, height: sy)
                    let rect = full.intersection(b)
                    guard !rect.isNull, rect.width > 0, rect.height > 0 else { continue }
                    let tile: Tile
                    if let t = cache.tiles[key] { tile = t } else { tile = Tile(key: key, rect: rect); cache.tiles[key] = tile }
                    tile.lastUsed = store.clock
                    tile.lastWanted = cache.visits
                    let needsDrawing = (tile.pixels == nil || tile.stale || !Self.sameRect(tile.rect, rect)) && !tile.failed
                    if needsDrawing && !tile.inFlight {
                        tile.rect = rect
                        tile.ticket &+= 1
                        let pw = max(1, min(tw, Int((rect.width * k - 1e-6).rounded(.up))))
                        let ph = max(1, min(th, Int((rect.height * k - 1e-6).rounded(.up))))
                        // The drawn rectangle: whole pixels of the level (the clip is `rect`).
                        let drawn = CGRect(x: rect.minX, y: rect.minY, width: Double(pw) / k, height: Double(ph) / k)
                        let job = TileJob(cache: cache, tile: tile, layer: model, drawer: drawer, rect: drawn, scale: k,
                                          width: pw, height: ph, flipped: flipped, clip: rect)
                        if drawsTilesInline {
                            tile.inFlight = true
                            inline.append(job)
                        } else {
                            store.enqueue(job)
                            requested.append((tile, tile.ticket))
                        }
                    }
                    if tile.inFlight { busy = true }
                    var alpha: Float = 1
                    if tile.pixels != nil, let now {
                        let start = tile.shownAt ?? now
                        if tile.shownAt == nil { tile.shownAt = now }
                        if fade > 0 { alpha = Float(min(max((now - start) / fade, 0), 1)) }
                        if alpha < 1 { busy = true }
                    }
                    if tile.pixels != nil, !drawsTilesInline { shown.append((tile, alpha)) }
                    if drawsTilesInline && needsDrawing { continue }
                    if tile.pixels == nil || alpha < 1 {
                        // The best coarser tile already drawn shows beneath.
                        var level = plan.level - 1
                        while level >= lowest {
                            let d = plan.level - level
                            let ck = TileKey(level: level, x: i >> d, y: j >> d)
                            if let ct = cache.tiles[ck], ct.pixels != nil {
                                ct.lastUsed = store.clock
                                under[ck] = ct
                                break
                            }
                            level -= 1
                        }
                    }
                }
            }
        }
        if drawsTilesInline {
            for job in inline { TileStore.shared.drawInline(job) }
            // Everything asked for is drawn now: shown at once, in full.
            TileStore.shared.withLock { _ in
                for j in plan.y0..<plan.y1 {
                    for i in plan.x0..<plan.x1 {
                        if let t = cache.tiles[TileKey(level: plan.level, x: i, y: j)], t.pixels != nil { shown.append((t, 1)) }
                    }
                }
            }
            under.removeAll()
        }
        if busy { tilesBusy = true }
        pendingTiles += requested
        let filterBias = v.map { $0.minificationFilterBias.isFinite ? $0.minificationFilterBias : 0 } ?? 0
        func emitTile(_ t: Tile, alpha: Float, pixels pb: PixelBuffer, scale k: Double) {
            var op = DrawOp(.image)
            op.transform = h
            op.rect = t.rect
            op.texture = pb
            op.textureSeed = pb.seed
            op.textureRect = CGRect(x: 0, y: 0, width: min(t.rect.width * k / Double(pb.width), 1),
                                    height: min(t.rect.height * k / Double(pb.height), 1))
            op.color = SIMD4(1, 1, 1, 1)
            op.opacity = opacity * alpha
            if let v { op.minFilter = v.minificationFilter; op.magFilter = v.magnificationFilter }
            op.filterBias = filterBias
            op.edgeMask = 0
            op.layerID = id
            addRaster(op)
        }
        // Coarsest first, then the level's own tiles over them. (Pixels are
        // read under the store's mutex: a worker may evict them meanwhile.)
        let snapshot: [(Tile, Float, PixelBuffer, Double)] = TileStore.shared.withLock { _ in
            var out: [(Tile, Float, PixelBuffer, Double)] = []
            for key in under.keys.sorted() {
                if let t = under[key], let pb = t.pixels { out.append((t, 1, pb, c * Double(sign: .plus, exponent: key.level, significand: 1))) }
            }
            for (t, a) in shown { if let pb = t.pixels, a > 0 { out.append((t, a, pb, k)) } }
            return out
        }
        for (t, a, pb, scale) in snapshot { emitTile(t, alpha: a, pixels: pb, scale: scale) }
    }
}
