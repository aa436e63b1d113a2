import CCairo
import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo

// Painting: every operation (fill, stroke, rectangles, images, gradients,
// a transparency layer's end) goes through `paint`, which applies the
// state cairo does not know. Without a shadow, a mask clip or
// kCGBlendModePlusDarker, cairo paints straight into the target with the
// blend mode's operator and the alpha folded into the source. Otherwise the
// operation is drawn into a group (cairo_push_group) and composited: the
// shadow first (the group's alpha blurred by the renderer's Gaussian blur,
// tinted, moved by the offset), then the group, through the mask clip.

extension DrawingContext {
    package var antialias: cairo_antialias_t {
        state.shouldAntialias && allowsAntialiasing ? CAIRO_ANTIALIAS_DEFAULT : CAIRO_ANTIALIAS_NONE
    }

    package var hasVisibleShadow: Bool {
        guard let s = state.shadow else { return false }
        return s.color.w > 0
    }

    /// Paints what `draw` draws (it sets cairo's source and paints, folding
    /// in the alpha it is given) with the state's alpha, blend mode, shadow
    /// and mask clip. `clipShape` limits the unbounded operators (see
    /// BlendMode.isUnboundedInCairo) to the shape; it runs on cairo's
    /// current path, which it must keep. `restoresState`: `draw` leaves
    /// cairo's state as it found it but for the source (the text draw), so
    /// the plain case puts back only the source and operator instead of a
    /// cairo_save and cairo_restore (a graphics state allocated and copied).
    package func paint(clipShape: (() -> Void)? = nil, restoresState: Bool = false, _ draw: (Double) -> Void) {
        guard ctmIsInvertible else { return }
        cairo_set_antialias(cr, antialias)
        let mode = state.blendMode
        let direct = !hasVisibleShadow && state.clipMask == nil && mode != .plusDarker
        // What a direct draw that restores the rest itself changes: the
        // source and operator, put back below without a saved state.
        let kept: (op: cairo_operator_t, source: OpaquePointer?)?
        if restoresState && direct && clipShape == nil {
            kept = (cairo_get_operator(cr), cairo_pattern_reference(cairo_get_source(cr)))
        } else {
            kept = nil
            cairo_save(cr)
            if mode.isUnboundedInCairo, let clipShape { clipShape() }
        }
        if direct {
            cairo_set_operator(cr, mode.cairoOperator)
            draw(state.alpha)
        } else {
            cairo_push_group(cr)
            cairo_set_operator(cr, CAIRO_OPERATOR_OVER)
            draw(1)
            let group = cairo_pop_group(cr)!
            composite(group)
            cairo_pattern_destroy(group)
        }
        if let kept {
            cairo_set_source(cr, kept.source)
            cairo_pattern_destroy(kept.source)
            cairo_set_operator(cr, kept.op)
        } else {
            cairo_restore(cr)
        }
        didDraw()
    }

    /// Composites a group (from cairo_pop_group) with the state's shadow,
    /// alpha, blend mode and mask clip.
    package func composite(_ group: OpaquePointer) {
        var identity = cairo_matrix_t(xx: 1, yx: 0, xy: 0, yy: 1, x0: 0, y0: 0)
        cairo_pattern_set_matrix(group, &identity)
        cairo_save(cr)
        cairo_identity_matrix(cr)
        if hasVisibleShadow, let shadow = state.shadow { drawShadow(of: group, shadow) }
        if state.blendMode == .plusDarker {
            plusDarker(group)
        } else {
            cairo_set_operator(cr, state.blendMode.cairoOperator)
            cairo_set_source(cr, group)
            paintSource(alpha: state.alpha)
        }
        cairo_restore(cr)
    }

    /// Paints cairo's source (device space: identity CTM) with `alpha`,
    /// through the mask clip when there is one.
    package func paintSource(alpha: Double) {
        guard let mask = state.clipMask else {
            cairo_paint_with_alpha(cr, alpha)
            return
        }
        if alpha < 1 {
            cairo_push_group(cr)
            cairo_set_operator(cr, CAIRO_OPERATOR_OVER)
            cairo_paint_with_alpha(cr, alpha)
            cairo_pop_group_to_source(cr)
        }
        cairo_mask_surface(cr, mask.surface, 0, 0)
    }

    /// The base space's vector `v` in device pixels.
    package func baseToDevice(_ v: CGSize) -> CGSize {
        let t = baseCTM
        return CGSize(width: t.a * v.width + t.c * v.height, height: t.b * v.width + t.d * v.height)
    }

    /// The base space's scale (device pixels per unit), for blur radii.
    package var baseScale: Double {
        let t = baseCTM
        return (abs(t.a * t.d - t.b * t.c)).squareRoot()
    }

    /// Draws the shadow of a group: its alpha, blurred, tinted, moved.
    package func drawShadow(of group: OpaquePointer, _ shadow: ContextShadow) {
        var s: OpaquePointer?
        guard cairo_pattern_get_surface(group, &s) == CAIRO_STATUS_SUCCESS, let src = s else { return }
        cairo_surface_flush(src)
        let w = Int(cairo_image_surface_get_width(src)), h = Int(cairo_image_surface_get_height(src))
        let stride = Int(cairo_image_surface_get_stride(src))
        guard w > 0, h > 0, let data = cairo_image_surface_get_data(src) else { return }
        var dx = 0.0, dy = 0.0
        cairo_surface_get_device_offset(src, &dx, &dy)
        let sigma = shadowSigma(radius: shadow.blur, scale: baseScale)
        let e = blurExtent(sigma: sigma)
        let mw = w + 2 * e, mh = h + 2 * e
        guard mw < 1 << 15, mh < 1 << 15 else { return }
        let mask = cairo_image_surface_create(CAIRO_FORMAT_A8, Int32(mw), Int32(mh))!
        defer { cairo_surface_destroy(mask) }
        guard cairo_surface_status(mask) == CAIRO_STATUS_SUCCESS, let m = cairo_image_surface_get_data(mask) else { return }
        let mstride = Int(cairo_image_surface_get_stride(mask))
        for y in 0..<h {
            let row = UnsafeRawPointer(data + y * stride)
            let out = m + (y + e) * mstride + e
            for x in 0..<w { out[x] = row.load(fromByteOffset: 4 * x + 3, as: UInt8.self) }
        }
        gaussianBlur(mask: AlphaMask(base: m, width: mw, height: mh, rowBytes: mstride), sigma: sigma)
        cairo_surface_mark_dirty(mask)
        let offset = baseToDevice(shadow.offset)
        let c = shadow.color
        cairo_set_operator(cr, state.blendMode == .plusDarker ? CAIRO_OPERATOR_OVER : state.blendMode.cairoOperator)
        cairo_set_source_rgba(cr, c.x, c.y, c.z, c.w * state.alpha)
        let ox = -dx - Double(e) + offset.width, oy = -dy - Double(e) + offset.height
        if let clip = state.clipMask {
            cairo_push_group(cr)
            cairo_mask_surface(cr, mask, ox, oy)
            cairo_pop_group_to_source(cr)
            cairo_mask_surface(cr, clip.surface, 0, 0)
        } else {
            cairo_mask_surface(cr, mask, ox, oy)
        }
    }

    /// kCGBlendModePlusDarker (R = max(0, 1 - ((1 - D) + (1 - S))), in
    /// premultiplied form), which cairo lacks: computed over the group's
    /// pixels, inside the clip's bounds and the mask clip.
    package func plusDarker(_ group: OpaquePointer) {
        var s: OpaquePointer?
        guard cairo_pattern_get_surface(group, &s) == CAIRO_STATUS_SUCCESS, let src = s else { return }
        let dst = cairo_get_group_target(cr)!
        cairo_surface_flush(src)
        cairo_surface_flush(dst)
        guard let sData = cairo_image_surface_get_data(src), let dData = cairo_image_surface_get_data(dst) else { return }
        var sdx = 0.0, sdy = 0.0, ddx = 0.0, ddy = 0.0
        cairo_surface_get_device_offset(src, &sdx, &sdy)
        cairo_surface_get_device_offset(dst, &ddx, &ddy)
        let sw = Int(cairo_image_surface_get_width(src)), sh = Int(cairo_image_surface_get_height(src))
        let dw = Int(cairo_image_surface_get_width(dst)), dh = Int(cairo_image_surface_get_height(dst))
        let sStride = Int(cairo_image_surface_get_stride(src)), dStride = Int(cairo_image_surface_get_stride(dst))
        // Device space: the source's pixel (0, 0) is at (-sdx, -sdy).
        var cx1 = 0.0, cy1 = 0.0, cx2 = 0.0, cy2 = 0.0
        cairo_clip_extents(cr, &cx1, &cy1, &cx2, &cy2)   // (identity CTM: device space)
        let x0 = Swift.max(Int(-sdx), Int(-ddx), Int(cx1.rounded(.down)))
        let y0 = Swift.max(Int(-sdy), Int(-ddy), Int(cy1.rounded(.down)))
        let x1 = Swift.min(Int(-sdx) + sw, Int(-ddx) + dw, Int(cx2.rounded(.up)))
        let y1 = Swift.min(Int(-sdy) + sh, Int(-ddy) + dh, Int(cy2.rounded(.up)))
        guard x0 < x1, y0 < y1 else { return }
        var maskData: UnsafeMutablePointer<UInt8>? = nil
        var maskStride = 0
        if let m = state.clipMask {
            cairo_surface_flush(m.surface)
            maskData = cairo_image_surface_get_data(m.surface)
            maskStride = Int(cairo_image_surface_get_stride(m.surface))
        }
        let k = Float(state.alpha)
        for y in y0..<y1 {
            let sp = UnsafeMutableRawPointer(sData + (y + Int(sdy)) * sStride)
            let dp = UnsafeMutableRawPointer(dData + (y + Int(ddy)) * dStride)
            for x in x0..<x1 {
                var f = k
                if let md = maskData { f *= Float(md[y * maskStride + x]) / 255 }
                let sv = sp.load(fromByteOffset: 4 * (x + Int(sdx)), as: UInt32.self)
                if sv == 0 || f == 0 { continue }
                let dv = dp.load(fromByteOffset: 4 * (x + Int(ddx)), as: UInt32.self)
                func ch(_ v: UInt32, _ i: UInt32) -> Float { Float((v >> (8 * i)) & 0xFF) / 255 }
                let sa = ch(sv, 3) * f, da = ch(dv, 3)
                let ra = sa + da - sa * da
                var out: UInt32 = UInt32((ra * 255).rounded()) << 24
                for i in UInt32(0)..<3 {
                    let sc = ch(sv, i) * f, dc = ch(dv, i)
                    let r = Swift.max(0, ra - ((da - dc) + (sa - sc)))
                    out |= UInt32((Swift.min(r, ra) * 255).rounded()) << (8 * i)
                }
                dp.storeBytes(of: out, toByteOffset: 4 * (x + Int(ddx)), as: UInt32.self)
            }
        }
        cairo_surface_mark_dirty(dst)
    }

    /// Sets a straight RGBA colour as cairo's source, times `alpha`.
    package func setSource(_ c: SIMD4<Double>, alpha: Double) {
        cairo_set_source_rgba(cr, c.x, c.y, c.z, c.w * alpha)
    }

    // MARK: - Paths

    /// CGContextDrawPath (and FillPath, EOFillPath, StrokePath): paints the
    /// current path and clears it.
    public func drawPath(_ mode: PathDrawingMode) {
        defer {
            path = PathData()
            strokedOutline = nil
            cairo_new_path(cr)
        }
        guard !path.isEmpty else { return }
        loadPath()
        if strokedOutline != nil {
            // The path stands for its stroke's outline: filling it paints the stroke.
            guard mode.fills else { return }
            let color = state.fillColor
            paint { a in
                withStrokeStyle {
                    setSource(color, alpha: a)
                    withSafeStroke(cr) { cairo_stroke_preserve(cr) }
                }
            }
            return
        }
        cairo_set_fill_rule(cr, mode.evenOdd ? CAIRO_FILL_RULE_EVEN_ODD : CAIRO_FILL_RULE_WINDING)
        let fill = state.fillColor, stroke = state.strokeColor
        paint(clipShape: mode.strokes ? nil : { cairo_clip_preserve(self.cr) }) { a in
            if mode.fills {
                setSource(fill, alpha: a)
                cairo_fill_preserve(cr)
            }
            if mode.strokes {
                setSource(stroke, alpha: a)
                withSafeStroke(cr) { cairo_stroke_preserve(cr) }
            }
        }
    }

    /// Fills or strokes a shape given in user space without touching the
    /// current path (FillRect, StrokeRect, FillEllipseInRect, ...).
    package func paintShape(_ shape: PathData, stroke: Bool, lineWidth: Double? = nil) {
        cairo_new_path(cr)
        emit(shape, deviceSpace: false)
        cairo_set_fill_rule(cr, CAIRO_FILL_RULE_WINDING)
        let color = stroke ? state.strokeColor : state.fillColor
        paint(clipShape: stroke ? nil : { cairo_clip_preserve(self.cr) }) { a in
            setSource(color, alpha: a)
            if stroke {
                if let lineWidth { cairo_set_line_width(cr, lineWidth) }
                withSafeStroke(cr) { cairo_stroke_preserve(cr) }
            } else {
                cairo_fill_preserve(cr)
            }
        }
        cairo_new_path(cr)
    }

    public func fill(_ rects: [CGRect]) {
        var shape = PathData()
        for r in rects { try? shape.addRect(r) }
        paintShape(shape, stroke: false)
    }

    public func stroke(_ rect: CGRect, width: Double? = nil) {
        var shape = PathData()
        try? shape.addRect(rect)
        paintShape(shape, stroke: true, lineWidth: width)
    }

    public func fillEllipse(in rect: CGRect) {
        var shape = PathData()
        try? shape.addEllipse(in: rect)
        paintShape(shape, stroke: false)
    }

    public func strokeEllipse(in rect: CGRect) {
        var shape = PathData()
        try? shape.addEllipse(in: rect)
        paintShape(shape, stroke: true)
    }

    /// CGContextStrokeLineSegments: pairs of points, each a line; the
    /// current path is replaced (Apple's equivalent begins a new path).
    public func strokeLineSegments(_ points: [CGPoint]) {
        beginPath()
        var shape = PathData()
        var i = 0
        while i + 1 < points.count {
            try? shape.append([.moveTo(points[i]), .lineTo(points[i + 1])])
            i += 2
        }
        paintShape(shape, stroke: true)
    }

    /// CGContextClearRect: the rectangle becomes transparent black (inside
    /// the clip), whatever the blend mode, alpha or shadow.
    public func clear(_ rect: CGRect) {
        guard ctmIsInvertible else { return }
        cairo_save(cr)
        cairo_set_antialias(cr, antialias)
        cairo_new_path(cr)
        safeRectangle(cr, rect.minX, rect.minY, rect.width, rect.height)
        cairo_set_operator(cr, CAIRO_OPERATOR_CLEAR)
        if let m = state.clipMask {
            cairo_clip(cr)
            cairo_identity_matrix(cr)
            cairo_mask_surface(cr, m.surface, 0, 0)
        } else {
            cairo_fill(cr)
        }
        cairo_restore(cr)
        cairo_new_path(cr)
        didDraw()
    }

    /// Paints a BGRA buffer the size of the device at the device origin
    /// through the state (CALayerRenderInContext's composite).
    public func paintDeviceImage(_ pb: PixelBuffer) {
        guard pb.pixelFormat == UInt32(kCVPixelFormatType_32BGRA), let base = pb.baseAddress else { return }
        let s = cairo_image_surface_create_for_data(base.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_ARGB32,
                                                    Int32(pb.width), Int32(pb.height), Int32(pb.bytesPerRow))!
        defer { cairo_surface_destroy(s) }
        guard cairo_surface_status(s) == CAIRO_STATUS_SUCCESS else { return }
        let pattern = cairo_pattern_create_for_surface(s)!
        defer { cairo_pattern_destroy(pattern) }
        var m = cairoMatrix(state.ctm)
        cairo_pattern_set_matrix(pattern, &m)   // user space -> device pixels = the image's pixels
        paint { a in
            cairo_set_source(cr, pattern)
            cairo_paint_with_alpha(cr, a)
        }
    }

    // MARK: - Line parameters

    public func setLineWidth(_ w: Double) { cairo_set_line_width(cr, w) }
    public func setLineCap(_ cap: Int32) { cairo_set_line_cap(cr, cairo_line_cap_t(rawValue: UInt32(cap))) }
    public func setLineJoin(_ join: Int32) { cairo_set_line_join(cr, cairo_line_join_t(rawValue: UInt32(join))) }
    public func setMiterLimit(_ limit: Double) { cairo_set_miter_limit(cr, limit) }
    public func setFlatness(_ f: Double) { cairo_set_tolerance(cr, Swift.max(f, 0.01)) }
    public var lineWidth: Double { cairo_get_line_width(cr) }

    /// CGContextSetLineDash (lengths already checked: finite, >= 0, not all 0).
    public func setLineDash(phase: Double, lengths: [Double]) {
        lengths.withUnsafeBufferPointer { cairo_set_dash(cr, $0.baseAddress, Int32($0.count), phase) }
    }

    // MARK: - Clipping

    /// CGContextClip / CGContextEOClip: intersects the clip with the current
    /// path's interior (or, after ReplacePathWithStrokedPath, its stroke),
    /// and clears the path.
    public func clipToPath(evenOdd: Bool) {
        defer {
            path = PathData()
            strokedOutline = nil
            cairo_new_path(cr)
        }
        guard ctmIsInvertible else { return }
        if path.isEmpty {
            // An empty path clips everything away.
            cairo_new_path(cr)
            safeRectangle(cr, 0, 0, 0, 0)
            cairo_clip(cr)
            return
        }
        loadPath()
        if strokedOutline != nil {
            let outline = path
            intersectClipMask { mcr in
                cairo_new_path(mcr)
                cairo_identity_matrix(mcr)
                emitInto(mcr, outline)
                if let s = strokedOutline {
                    var m = cairoMatrix(s.ctm)
                    cairo_set_matrix(mcr, &m)
                    cairo_set_line_width(mcr, s.width)
                    cairo_set_line_cap(mcr, s.cap)
                    cairo_set_line_join(mcr, s.join)
                    cairo_set_miter_limit(mcr, s.miterLimit)
                    s.dashes.withUnsafeBufferPointer { cairo_set_dash(mcr, $0.baseAddress, Int32($0.count), s.phase) }
                }
                withSafeStroke(mcr) { cairo_stroke(mcr) }
            }
            // The stroke's bounds also bound the ordinary clip.
            var x1 = 0.0, y1 = 0.0, x2 = 0.0, y2 = 0.0
            withStrokeStyle { withSafeStroke(cr) { cairo_stroke_extents(cr, &x1, &y1, &x2, &y2) } }
            cairo_new_path(cr)
            safeRectangle(cr, x1, y1, x2 - x1, y2 - y1)
            cairo_clip(cr)
            return
        }
        cairo_set_fill_rule(cr, evenOdd ? CAIRO_FILL_RULE_EVEN_ODD : CAIRO_FILL_RULE_WINDING)
        cairo_clip(cr)
    }

    /// CGContextClipToRect(s): intersects the clip with the rectangles'
    /// union; the current path is kept.
    public func clip(to rects: [CGRect]) {
        guard ctmIsInvertible else { return }
        cairo_new_path(cr)
        cairo_set_fill_rule(cr, CAIRO_FILL_RULE_WINDING)
        for r in rects { safeRectangle(cr, r.minX, r.minY, r.width, r.height) }
        cairo_clip(cr)
    }

    /// Appends a device-space path to another cairo context's path.
    package func emitInto(_ other: OpaquePointer, _ data: PathData) {
        var current = CGPoint(x: 0, y: 0), start = current
        let kinds = data.kinds, first = data.firstPoints, pts = data.points
        for i in 0..<kinds.count {
            let o = Int(first[i])
            switch kinds[i] {
            case 0: let p = pts[o]; safeMoveTo(other, p.x, p.y); current = p; start = p
            case 1: let p = pts[o]; safeLineTo(other, p.x, p.y); current = p
            case 2:
                let c = pts[o], p = pts[o + 1]
                safeCurveTo(other, current.x + 2 / 3 * (c.x - current.x), current.y + 2 / 3 * (c.y - current.y),
                               p.x + 2 / 3 * (c.x - p.x), p.y + 2 / 3 * (c.y - p.y), p.x, p.y)
                current = p
            case 3:
                let c1 = pts[o], c2 = pts[o + 1], p = pts[o + 2]
                safeCurveTo(other, c1.x, c1.y, c2.x, c2.y, p.x, p.y)
                current = p
            default: cairo_close_path(other); current = start
            }
        }
    }

    /// Intersects the mask clip with what `draw` paints (opaque where it
    /// paints) on a device-sized A8 surface; the first mask clip starts
    /// from "everything".
    package func intersectClipMask(_ draw: (OpaquePointer) -> Void) {
        let s = cairo_image_surface_create(CAIRO_FORMAT_A8, Int32(width), Int32(height))!
        guard cairo_surface_status(s) == CAIRO_STATUS_SUCCESS else {
            // No memory for the mask: clip everything away rather than draw unclipped.
            cairo_surface_destroy(s)
            clip(to: [CGRect(x: 0, y: 0, width: 0, height: 0)])
            return
        }
        let mcr = cairo_create(s)!
        cairo_set_antialias(mcr, antialias)
        cairo_set_source_rgba(mcr, 0, 0, 0, 1)
        draw(mcr)
        if let old = state.clipMask {
            cairo_identity_matrix(mcr)
            cairo_set_operator(mcr, CAIRO_OPERATOR_DEST_IN)
            cairo_set_source_surface(mcr, old.surface, 0, 0)
            cairo_paint(mcr)
        }
        cairo_destroy(mcr)
        cairo_surface_flush(s)
        state.clipMask = ClipMask(surface: s)
    }

    // MARK: - Transparency layers

    /// CGContextBeginTransparencyLayer(WithRect): what follows draws into a
    /// transparent layer, composited at its end with the alpha, blend mode,
    /// shadow and mask clip in effect now; inside, those are reset.
    public func beginTransparencyLayer(rect: CGRect?) throws(GraphicsError) {
        guard layers.count < 64 else { throw .invalidState("too many nested transparency layers") }
        let saved = state
        cairo_save(cr)
        if let rect, ctmIsInvertible {
            cairo_new_path(cr)
            safeRectangle(cr, rect.minX, rect.minY, rect.width, rect.height)
            cairo_clip(cr)
        }
        cairo_push_group(cr)
        layers.append(TransparencyLayer(state: saved, savedDepth: savedStates.count, clippedToRect: rect != nil))
        state.alpha = 1
        state.blendMode = .normal
        state.shadow = nil
        state.clipMask = nil
    }

    public func endTransparencyLayer() throws(GraphicsError) {
        guard let layer = layers.popLast() else { throw .invalidState("no transparency layer is open") }
        // States saved inside the layer and not restored end with it.
        while savedStates.count > layer.savedDepth {
            savedStates.removeLast()
            cairo_restore(cr)
        }
        let group = cairo_pop_group(cr)!
        state = layer.state
        if ctmIsInvertible {
            cairo_set_antialias(cr, antialias)
            composite(group)
        }
        cairo_pattern_destroy(group)
        cairo_restore(cr)
        syncMatrix()
        didDraw()
    }
}
