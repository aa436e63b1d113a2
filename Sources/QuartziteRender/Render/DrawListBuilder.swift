import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel

// Turning a layer tree into draw operations: the compositing model of
// Core Animation, in paint order. Each layer's sublayers are flattened into
// its plane (a 2D homography per layer, as Layer+Geometry does); siblings are
// ordered by zPosition, then by index. Per layer: shadow, then (in a group
// when opacity < 1 applies to more than one operation, or a mask is set)
// background, a gradient layer's gradient, a shape layer's shape, contents (clipped when
// masksToBounds), an emitter's particles, sublayers (a replicator's once per instance), border.
// Callers hold the model lock.

package struct DrawListBuilder {
    package var ops: [DrawOp] = []
    /// Target-space bounds of the enclosing clips (the innermost last).
    private var clipStack: [CGRect]
    private var depth: UInt32 = 0
    /// Media time for transitions (nil: the model tree, no transitions).
    package let now: Double?
    /// Pixels per point of the mapping into the target (shadow offsets and radii).
    package let scale: Double
    /// Limits against hostile trees.
    private var visited = 0
    /// Where rasterized subtrees are kept (nil inside a rasterization, and
    /// where shouldRasterize is not honoured).
    package var rasterCache: RasterCache?
    /// Tiles this build asked the workers for, with their requests (a
    /// renderer that waits for its tiles waits for these).
    package var pendingTiles: [(Tile, UInt64)] = []
    /// A tiled layer is waiting for tiles or fading one in: the next frame differs.
    package var tilesBusy = false
    /// Missing tiles are drawn on the building thread, before the build goes on
    /// (renderInContext), instead of by the workers.
    package var drawsTilesInline = false
    private static let maxLayers = 1_000_000
    /// The layer limit is reached: nothing more is emitted (a replicator
    /// stops making its instances' copies).
    package var exhausted: Bool { visited >= Self.maxLayers }
    private static let maxDepth = 256
    /// Shadows blur by at most this standard deviation (pixels): beyond it a
    /// shadow is a faint wash and its offscreen margin would grow without bound.
    package static let maxShadowSigma = 64.0
    /// Filter blurs likewise (pixels).
    package static let maxFilterSigma = 128.0

    package init(targetBounds: CGRect, now: Double?, scale: Double, capacity: Int = 0) {
        clipStack = [targetBounds]
        ops.reserveCapacity(capacity)
        self.now = now
        self.scale = scale.isFinite && scale > 0 ? scale : 1
    }

    package var clip: CGRect { clipStack.last ?? .null }
    /// The target's area in pixels (what an emitter's pixel budget scales with).
    package var targetArea: Double {
        guard let t = clipStack.first, !t.isNull else { return 0 }
        return t.width * t.height
    }

    // MARK: - Layers

    /// Emits `layer` mapped into the target by `h` (layer coordinates to pixels).
    /// `flip` is -1 inside an odd number of geometry-flipped ancestors (so that
    /// back-face culling sees the layer's own orientation).
    package mutating func emit(_ layer: Layer, _ h: Homography, flip: Double = 1, level: Int = 0, shadow: Bool = true) {
        visited += 1
        guard visited < Self.maxLayers, level < Self.maxDepth else { return }
        guard !layer.flags.contains(.hidden), layer.opacity > 0, !layer.opacity.isNaN else { return }
        guard !layer.bounds.hasNaN, h.isFinite, layer.bounds.width.isFinite, layer.bounds.height.isFinite else { return }
        let b = layer.bounds.standardized
        if !layer.flags.contains(.doubleSided) {
            let (_, _, w) = h.applyHomogeneous(CGPoint(x: b.midX, y: b.midY))
            if h.determinant * flip * (w < 0 ? -1 : 1) < 0 { return }
        }
        if layer.flags.contains(.shouldRasterize), let cache = rasterCache {
            rasterCache = nil
            let done = emitRasterized(layer, h, cache: cache, id: layerID(layer))
            rasterCache = cache
            if done { return }
        }
        let v = layer.visuals
        let opacity = min(layer.opacity, 1)
        // The shadow first, under everything the layer draws.
        if shadow, let v, v.shadowOpacity > 0, let sc = v.shadowColor, sc.alpha > 0 {
            // masksToBounds clips the layer's shadow too (as Core Animation does).
            let clipped = layer.flags.contains(.masksToBounds)
            if clipped { pushClip(layer, h) }
            emitShadow(layer, h, flip: flip, level: level, visuals: v, color: sc)
            if clipped { popClip(layer) }
        }
        // Filters (LayerFilters.swift): what lies behind first, then the
        // layer's own group with its filters and compositing mode.
        var mode = CompositingMode.sourceOver
        var filters: [LayerFilter] = []
        if let v, v.compositingFilter != nil || v.filters != nil || v.backgroundFilters != nil {
            mode = CompositingMode.of(v.compositingFilter) ?? .sourceOver
            filters = pixelFilters(v.filters)
            let backdrop = pixelFilters(v.backgroundFilters)
            if shadow, !backdrop.isEmpty { emitBackdrop(layer, h, filters: backdrop, opacity: opacity) }
        }
        let transition = now.flatMap { (layer.modelLayer ?? layer).transitionState(now: $0) }
        let ownOps = ownOperationCount(layer)
        let needsGroup = v?.mask != nil || transition != nil || mode != .sourceOver || !filters.isEmpty
            || (opacity < 1 && (ownOps > 1 || !layer.sublayers.isEmpty))
        if needsGroup {
            let g = begin(.beginGroup)
            ops[g].opacity = opacity
            ops[g].blendMode = mode.rawValue
            ops[g].filters = filters
            let reach = filterReach(filters)
            if let t = transition {
                emitTransition(layer, h, flip: flip, level: level, animation: t.animation, progress: t.progress, snapshot: t.snapshot)
            } else {
                emitBody(layer, h, flip: flip, level: level, opacity: 1)
            }
            if let mask = v?.mask, mask !== layer {
                let m = begin(.beginMask)
                let before = ops.count
                emit(mask, Homography(mask.placement).then(h), flip: flip, level: level + 1)
                ops[m].bounds = unionBounds(before)
                depth -= 1
                // Only where the mask has content can the group show.
                ops[g].bounds = grown(unionBounds(g + 1, upTo: m), reach).intersection(ops[m].bounds)
            } else {
                ops[g].bounds = grown(unionBounds(g + 1), reach)
            }
            end(.endGroup, from: g)
        } else {
            emitBody(layer, h, flip: flip, level: level, opacity: opacity)
        }
    }

    /// Background, contents, masksToBounds clip, sublayers, border.
    private mutating func emitBody(_ layer: Layer, _ h: Homography, flip: Double, level: Int, opacity: Float) {
        let b = layer.bounds.standardized
        let v = layer.visuals
        let radius = cornerRadius(layer)
        let edges = (v?.edgeAntialiasingMask ?? 0xF) & 0xF
        let id = layerID(layer)
        if layer.paintsBackground, let bg = layer.backgroundColor {
            var op = DrawOp(.fill)
            op.transform = h; op.rect = b; op.cornerRadius = radius
            op.color = bg.premultipliedRGBA; op.opacity = opacity; op.edgeMask = edges; op.layerID = id
            add(op, bounds: h.bounds(of: b))
        }
        if layer.gradient != nil {
            emitGradient(layer, h, bounds: b, cornerRadius: radius, opacity: opacity, edges: edges, id: id)
        }
        if layer.shape != nil { emitShape(layer, h, opacity: opacity, id: id) }
        let clips = layer.flags.contains(.masksToBounds)
        if clips { pushClip(layer, h) }
        if let v, let pb = v.contentsPixels {
            emitContents(pb, layer: layer, visuals: v, h: h, bounds: b, opacity: opacity, edges: edges, id: id)
        }
        if layer.tiled != nil { emitTiles(layer, h, bounds: b, opacity: opacity, id: id) }
        if let e = layer.emitter, !e.emitterCells.isEmpty {
            emitParticles(layer, e, h, opacity: opacity, id: id)
        }
        if !layer.sublayers.isEmpty {
            if let r = layer.replicator {
                emitInstances(layer, r, h, flip: flip, level: level, opacity: opacity)
            } else {
                emitSublayers(layer.sublayers, of: layer, h, space: layer.sublayerSpace, flip: flip, level: level,
                              opacity: opacity)
            }
        }
        if clips { popClip(layer) }
        if layer.paintsBorder, let bc = layer.effectiveBorderColor {
            var op = DrawOp(.border)
            op.transform = h; op.rect = b; op.cornerRadius = radius
            op.borderWidth = min(layer.borderWidth, max(b.width, b.height))
            op.color = bc.premultipliedRGBA; op.opacity = opacity; op.edgeMask = edges; op.layerID = id
            add(op, bounds: h.bounds(of: b))
        }
    }

    /// `subs` (the layer's sublayers, or a replicator instance's copies of
    /// them) mapped through `space` (the sublayer transform, and an instance's
    /// transform) into the layer's plane.
    package mutating func emitSublayers(_ subs: [Layer], of layer: Layer, _ h: Homography, space: CATransform3D?,
                                        flip: Double, level: Int, opacity: Float) {
        guard !subs.isEmpty else { return }
        let childFlip = layer.flags.contains(.geometryFlipped) ? -flip : flip
        // Siblings by zPosition, then index (sorting only when zPositions differ).
        let z0 = subs[0].zPosition
        let flat = subs.allSatisfy { $0.zPosition == z0 }
        let order: [Layer] = flat ? subs : subs.enumerated().sorted { a, c in
            let za = a.element.zPosition.isNaN ? 0 : a.element.zPosition
            let zc = c.element.zPosition.isNaN ? 0 : c.element.zPosition
            return za != zc ? za < zc : a.offset < c.offset
        }.map { $0.element }
        for sub in order {
            let place = space.map { sub.placement.concatenating($0) } ?? sub.placement
            let ch = Homography(place).then(h)
            if opacity < 1 {
                // Only reached for a single leaf-like sublayer list when the
                // group was not needed; keep opacity exact by grouping.
                let g = begin(.beginGroup)
                ops[g].opacity = opacity
                emit(sub, ch, flip: childFlip, level: level + 1)
                ops[g].bounds = unionBounds(g + 1)
                end(.endGroup, from: g)
            } else {
                emit(sub, ch, flip: childFlip, level: level + 1)
            }
        }
    }

    /// Clips what follows to the layer's (rounded) bounds.
    private mutating func pushClip(_ layer: Layer, _ h: Homography) {
        let b = layer.bounds.standardized
        var op = DrawOp(.pushClip)
        op.transform = h; op.rect = b; op.cornerRadius = cornerRadius(layer)
        op.edgeMask = (layer.visuals?.edgeAntialiasingMask ?? 0xF) & 0xF; op.layerID = layerID(layer)
        op.bounds = h.bounds(of: b).intersection(clip)
        op.depth = depth
        ops.append(op)
        clipStack.append(op.bounds.isNull ? CGRect.zero : op.bounds)
        depth += 1
    }

    private mutating func popClip(_ layer: Layer) {
        depth -= 1
        clipStack.removeLast()
        var op = DrawOp(.popClip)
        op.depth = depth; op.layerID = layerID(layer)
        ops.append(op)
    }

    // MARK: - Contents

    private mutating func emitContents(_ pb: PixelBuffer, layer: Layer, visuals v: LayerVisuals, h: Homography,
                                       bounds b: CGRect, opacity: Float, edges: UInt32, id: UInt) {
        guard pb.width > 0, pb.height > 0 else { return }
        var cr = v.contentsRect.standardized
        if cr.hasNaN || !cr.width.isFinite || !cr.height.isFinite || cr.isEmpty { cr = CGRect(x: 0, y: 0, width: 1, height: 1) }
        let scale = v.contentsScale > 0 && v.contentsScale.isFinite ? v.contentsScale : 1
        let natural = CGSize(width: Double(pb.width) * cr.width / scale, height: Double(pb.height) * cr.height / scale)
        let dest = contentsGravityRect(gravity: v.contentsGravity, bounds: b, contentSize: natural,
                                       geometryFlipped: layer.flags.contains(.geometryFlipped))
        guard !dest.hasNaN, dest.width > 0, dest.height > 0 else { return }
        var base = DrawOp(.image)
        base.transform = h; base.texture = pb; base.textureSeed = pb.seed; base.opacity = opacity
        base.color = SIMD4(1, 1, 1, 1)
        base.minFilter = v.minificationFilter; base.magFilter = v.magnificationFilter
        base.filterBias = v.minificationFilterBias.isFinite ? v.minificationFilterBias : 0
        base.layerID = id
        guard v.slicesContents else {
            base.rect = dest; base.textureRect = cr; base.edgeMask = edges
            add(base, bounds: h.bounds(of: dest))
            return
        }
        var cc = v.contentsCenter.standardized.intersection(CGRect(x: 0, y: 0, width: 1, height: 1))
        if cc.isNull { cc = CGRect(x: 0.5, y: 0.5, width: 0, height: 0) }
        // Nine parts: edges keep their natural size (shrunk together when the
        // destination is smaller), the centre stretches.
        func split(_ lo: Double, _ hi: Double, _ naturalLength: Double, _ d0: Double, _ d1: Double) -> ([Double], [Double]) {
            var a = lo * naturalLength, c = (1 - hi) * naturalLength
            let len = d1 - d0
            if a + c > len, a + c > 0 { let k = len / (a + c); a *= k; c *= k }
            return ([d0, d0 + a, d1 - c, d1], [0, lo, hi, 1])
        }
        let (xs, us) = split(cc.minX, cc.maxX, natural.width, dest.minX, dest.maxX)
        let (ys, vs) = split(cc.minY, cc.maxY, natural.height, dest.minY, dest.maxY)
        for j in 0..<3 {
            for i in 0..<3 {
                let r = CGRect(x: xs[i], y: ys[j], width: xs[i + 1] - xs[i], height: ys[j + 1] - ys[j])
                guard r.width > 1e-9, r.height > 1e-9 else { continue }
                var op = base
                op.rect = r
                op.textureRect = CGRect(x: cr.minX + us[i] * cr.width, y: cr.minY + vs[j] * cr.height,
                                        width: (us[i + 1] - us[i]) * cr.width, height: (vs[j + 1] - vs[j]) * cr.height)
                // Inner edges are shared with a neighbour: no anti-aliasing there.
                var mask = edges
                if i > 0 { mask &= ~UInt32(1) }
                if i < 2 { mask &= ~UInt32(2) }
                if j > 0 { mask &= ~UInt32(8) }
                if j < 2 { mask &= ~UInt32(4) }
                op.edgeMask = mask
                add(op, bounds: h.bounds(of: r))
            }
        }
    }

    // MARK: - Shadows

    private mutating func emitShadow(_ layer: Layer, _ h: Homography, flip: Double, level: Int,
                                     visuals v: LayerVisuals, color: Color) {
        // The blur's standard deviation in pixels (the kernels' convention:
        // shadowRadius / 2, capped).
        let radius = min(shadowSigma(radius: v.shadowRadius, scale: scale), Self.maxShadowSigma)
        let off = v.shadowOffset
        let dx = (off.width.isFinite ? off.width : 0) * scale, dy = (off.height.isFinite ? off.height : 0) * scale
        let s = begin(.beginShadow)
        ops[s].color = color.premultipliedRGBA
        ops[s].opacity = min(v.shadowOpacity, 1)
        ops[s].shadowRadius = radius
        ops[s].shadowOffset = CGSize(width: dx, height: dy)
        // The silhouette is drawn unclipped by the enclosing clips' bounds
        // (its blur and offset reach back inside them).
        clipStack.append(.infinite)
        let before = ops.count
        if let path = v.shadowPath as? Path {
            var op = DrawOp(.path)
            op.transform = h; op.color = SIMD4(0, 0, 0, 1); op.layerID = layerID(layer)
            op.geometry = PathGeometry(path: path, polygons: path.data.flattened(tolerance: 0.25)
                .map { $0.points.map { h.apply($0) } }
                .filter { $0.count >= 3 && $0.allSatisfy { $0.isFinite } })
            var bb = CGRect.null
            for poly in op.polygons { for p in poly { bb = bb.union(CGRect(x: p.x, y: p.y, width: 0, height: 0)) } }
            add(op, bounds: bb)
        } else {
            emit(layer, h, flip: flip, level: level + 1, shadow: false)
        }
        clipStack.removeLast()
        let silhouette = unionBounds(before)
        let margin = Double(blurExtent(sigma: radius) + 1)
        // rect: the whole extent (the silhouette plus the blur's reach, not
        // clipped), which the compositor needs to blur the silhouette fully.
        ops[s].rect = silhouette.isNull ? .null : silhouette.insetBy(dx: -margin, dy: -margin)
        ops[s].bounds = silhouette.isNull ? .null
            : silhouette.offsetBy(dx: dx, dy: dy).insetBy(dx: -margin, dy: -margin).intersection(clip)
        end(.endShadow, from: s)
    }

    // MARK: - Filters

    /// A filters value's filters with blur radii in target pixels (capped at
    /// maxFilterSigma); nothing for a value that cannot be read.
    private func pixelFilters(_ v: Value?) -> [LayerFilter] {
        guard v != nil, let f = LayerFilter.parse(v) else { return [] }
        return f.compactMap { f in
            guard case .gaussianBlur(let r) = f else { return f }
            let sigma = min(r * scale, Self.maxFilterSigma)
            return sigma > 0 ? .gaussianBlur(radius: sigma) : nil
        }
    }

    /// How far (pixels) the filters spread what they filter.
    private func filterReach(_ filters: [LayerFilter]) -> Double {
        filters.reduce(0.0) { $0 + ($1.blurRadius > 0 ? Double(blurExtent(sigma: $1.blurRadius) + 1) : 0) }
    }

    /// `r` grown by `reach` on every side, within the enclosing clips.
    private func grown(_ r: CGRect, _ reach: Double) -> CGRect {
        guard reach > 0, !r.isNull else { return r }
        return r.insetBy(dx: -reach, dy: -reach).intersection(clip)
    }

    /// backgroundFilters: the pixels already drawn under the layer's rounded
    /// bounds are filtered in place (blurs read up to their reach around it).
    private mutating func emitBackdrop(_ layer: Layer, _ h: Homography, filters: [LayerFilter], opacity: Float) {
        let b = layer.bounds.standardized
        var op = DrawOp(.backdrop)
        op.transform = h; op.rect = b; op.cornerRadius = cornerRadius(layer)
        op.edgeMask = (layer.visuals?.edgeAntialiasingMask ?? 0xF) & 0xF
        op.opacity = opacity; op.filters = filters; op.layerID = layerID(layer)
        add(op, bounds: h.bounds(of: b))
    }

    // MARK: - Transitions

    private mutating func emitTransition(_ layer: Layer, _ h: Homography, flip: Double, level: Int,
                                         animation a: Animation, progress: Double, snapshot: Layer?) {
        let p = min(max(progress.isFinite ? progress : 1, 0), 1)
        let b = layer.bounds.standardized
        // Direction the new content comes from.
        let (ux, uy): (Double, Double)
        switch a.transitionSubtype {
        case 0: (ux, uy) = (b.width, 0)       // fromRight
        case 2: (ux, uy) = (0, -b.height)     // fromTop (y down)
        case 3: (ux, uy) = (0, b.height)      // fromBottom
        default: (ux, uy) = (-b.width, 0)     // fromLeft (the default)
        }
        var oldOffset = (0.0, 0.0), newOffset = (0.0, 0.0)
        var oldAlpha: Float = 1, newAlpha: Float = 1
        var oldOnTop = false
        switch a.transitionType {
        case 1: newOffset = (ux * (1 - p), uy * (1 - p))                                  // moveIn
        case 2: newOffset = (ux * (1 - p), uy * (1 - p)); oldOffset = (-ux * p, -uy * p)  // push
        case 3: oldOffset = (-ux * p, -uy * p); oldOnTop = true                           // reveal
        default: oldAlpha = Float(1 - p); newAlpha = Float(p)                             // fade
        }
        func part(_ builder: inout DrawListBuilder, old: Bool) {
            let alpha = old ? oldAlpha : newAlpha
            guard alpha > 0 else { return }
            let o = old ? oldOffset : newOffset
            let g = builder.begin(.beginGroup)
            builder.ops[g].opacity = alpha
            let hh = h.pretranslated(o.0, o.1)
            if old {
                if let snap = snapshot { builder.emitBody(snap, hh, flip: flip, level: level + 1, opacity: 1) }
            } else {
                builder.emitBody(layer, hh, flip: flip, level: level + 1, opacity: 1)
            }
            builder.ops[g].bounds = builder.unionBounds(g + 1)
            builder.end(.endGroup, from: g)
        }
        if oldOnTop { part(&self, old: false); part(&self, old: true) } else { part(&self, old: true); part(&self, old: false) }
    }

    // MARK: - Helpers

    /// At most how many operations the layer itself emits (emitBody's and
    /// emitContents's tests, shared through LayerVisuals).
    private func ownOperationCount(_ layer: Layer) -> Int {
        // (An emitter's particles count as many: opacity groups them.)
        let g = (layer.gradient != nil ? 1 : 0) + (layer.shape != nil ? 1 : 0) + (layer.tiled != nil ? 2 : 0)
            + (layer.emitter != nil ? 2 : 0)
        var n = g
        if layer.paintsBackground { n += 1 }
        if layer.paintsBorder { n += 1 }
        guard let v = layer.visuals else { return n }
        if v.contentsPixels != nil { n += v.slicesContents ? 9 : 1 }
        return n
    }

    private func cornerRadius(_ layer: Layer) -> Double {
        let r = layer.cornerRadius
        guard r > 0, r.isFinite else { return 0 }
        let b = layer.bounds
        return min(r, min(b.width, b.height) / 2)
    }

    package mutating func addRaster(_ op: DrawOp) { add(op, bounds: op.transform.bounds(of: op.rect)) }

    package func layerID(_ layer: Layer) -> UInt {
        UInt(bitPattern: Int(bitPattern: Unmanaged.passUnretained(layer.modelLayer ?? layer).toOpaque()))
    }

    private mutating func add(_ op: DrawOp, bounds: CGRect) {
        var op = op
        op.bounds = bounds.intersection(clip)
        op.depth = depth
        guard !op.bounds.isNull, op.bounds.width > 0 || op.bounds.height > 0 else { return }
        ops.append(op)
    }

    package mutating func begin(_ kind: DrawOpKind) -> Int {
        var op = DrawOp(kind)
        op.depth = depth
        // A group's colour multiplies its pixels: white leaves them as drawn.
        if kind == .beginGroup { op.color = SIMD4(1, 1, 1, 1) }
        ops.append(op)
        depth += 1
        return ops.count - 1
    }

    /// Closes the structure opened at `start`; drops it when it has no content.
    package mutating func end(_ kind: DrawOpKind, from start: Int) {
        depth -= 1
        if ops[start].bounds.isNull || ops[start].bounds.isEmpty || ops.count == start + 1 {
            ops.removeSubrange(start...)
            return
        }
        var op = DrawOp(kind)
        op.depth = depth
        op.bounds = ops[start].bounds
        ops.append(op)
    }

    /// The union of the bounds of the drawing operations from `start`.
    package func unionBounds(_ start: Int, upTo limit: Int? = nil) -> CGRect {
        var r = CGRect.null
        let stop = limit ?? ops.count
        guard start < stop else { return r }
        for i in start..<stop {
            switch ops[i].kind {
            case .fill, .border, .image, .path, .beginShadow, .beginGroup, .backdrop: r = r.union(ops[i].bounds)
            default: break
            }
        }
        return r
    }
}

extension Layer {
    /// A visible background colour is painted.
    package var paintsBackground: Bool { (backgroundColor?.alpha ?? 0) > 0 }
    /// A visible border is stroked (the colour defaults to opaque black).
    package var paintsBorder: Bool {
        borderWidth > 0 && borderWidth.isFinite && (effectiveBorderColor?.alpha ?? 0) > 0
    }
    /// The border colour (it lives in the visuals; opaque black without them).
    package var effectiveBorderColor: Color? { visuals.map { $0.borderColor } ?? Color.opaqueBlack }
}

extension LayerVisuals {
    /// The contents are drawn in nine parts: contentsCenter is not the unit
    /// rectangle (nor NaN) and the gravity scales.
    package var slicesContents: Bool {
        let cc = contentsCenter.standardized
        let isUnit = cc.minX <= 0 && cc.minY <= 0 && cc.maxX >= 1 && cc.maxY >= 1
        return !isUnit && !cc.hasNaN && contentsGravity >= ConstantSet.gravityResize
    }
}

extension LayerVisuals {
    /// The pixels of the contents: a pixel buffer, or a CGImage's pixels.
    @inline(__always)
    package var contentsPixels: PixelBuffer? {
        guard let c = contents else { return nil }
        if let pb = c as? PixelBuffer { return pb }
        return (c as? Image)?.pixels
    }
}
