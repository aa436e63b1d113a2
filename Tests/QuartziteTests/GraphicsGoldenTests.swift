import CQuartzite
import Glibc
import Testing
@testable import QuartziteCore
@testable import QuartziteGeometry
@testable import QuartziteVideo
@testable import QuartziteGraphics
@testable import QuartziteModel
@testable import QuartziteRender
@testable import Quartzite

// Golden scenes of Core Graphics drawing (cairo underneath), one per group
// of the vocabulary, drawn through the C API into a context and compared
// with Tests/golden/cg_<scene>.png within goldenTolerance per channel
// (scripts/regenerate-golden.sh rewrites them).

/// A w x h context over a new buffer filled with a light backdrop.
private func canvas(_ w: Int = 160, _ h: Int = 96, backdrop: Bool = true) -> (QZCGContextRef, QZCVPixelBufferRef) {
    let pb = makeBuffer(w, h)
    let ctx = QZBitmapContextCreateWithPixelBuffer(pb)!
    if backdrop {
        CGContextSetRGBFillColor(ctx, 0.96, 0.96, 0.94, 1)
        CGContextFillRect(ctx, CGRect(x: 0, y: 0, width: Double(w), height: Double(h)))
    }
    return (ctx, pb)
}

private func finish(_ name: String, _ ctx: QZCGContextRef, _ pb: QZCVPixelBufferRef) {
    #expect(lastErrorCode() == QZErrorNone, "\(name): \(lastErrorMessage())")
    checkGolden("cg_" + name, pb)
    CGContextRelease(ctx)
    CVPixelBufferRelease(pb)
}

private func rgbSpace() -> QZCGColorSpaceRef { CGColorSpaceCreateDeviceRGB()! }

/// A 4 x 4 test image (red, green / blue, yellow quadrants, a white dot).
private func smallImage() -> QZCGImageRef {
    var bytes = [UInt8](repeating: 0, count: 64)
    for y in 0..<4 {
        for x in 0..<4 {
            let (r, g, b): (UInt8, UInt8, UInt8) = x == 1 && y == 1 ? (255, 255, 255)
                : (x < 2 ? (y < 2 ? (230, 40, 40) : (40, 70, 230)) : (y < 2 ? (40, 180, 60) : (250, 210, 30)))
            let o = (y * 4 + x) * 4
            bytes[o] = r; bytes[o + 1] = g; bytes[o + 2] = b; bytes[o + 3] = 255
        }
    }
    let provider = bytes.withUnsafeBytes { CGDataProviderCreateWithData(nil, $0.baseAddress, 64, nil)! }
    let image = CGImageCreate(4, 4, 8, 32, 16, nil, UInt32(kCGImageAlphaNoneSkipLast), provider, nil, true,
                              kCGRenderingIntentDefault)!
    CGDataProviderRelease(provider)
    return image
}

@Suite("Core Graphics golden scenes", .serialized)
struct GraphicsGoldenTests {
    init() { clearLastError() }

    @Test func capsJoinsAndMiterLimit() {
        let (ctx, pb) = canvas(160, 110)
        CGContextSetRGBStrokeColor(ctx, 0.15, 0.3, 0.8, 1)
        CGContextSetLineWidth(ctx, 12)
        for (i, cap) in [kCGLineCapButt, kCGLineCapRound, kCGLineCapSquare].enumerated() {
            CGContextSetLineCap(ctx, cap)
            CGContextMoveToPoint(ctx, 20, 16 + Double(i) * 22)
            CGContextAddLineToPoint(ctx, 70, 16 + Double(i) * 22)
            CGContextStrokePath(ctx)
        }
        // A thin guide over the ends shows where the segments stop.
        CGContextSetLineCap(ctx, kCGLineCapButt)
        CGContextSetLineWidth(ctx, 1)
        CGContextSetRGBStrokeColor(ctx, 0.9, 0.2, 0.2, 1)
        CGContextStrokeLineSegments(ctx, [CGPoint(x: 20, y: 4), CGPoint(x: 20, y: 72), CGPoint(x: 70, y: 4),
                                          CGPoint(x: 70, y: 72)], 4)
        CGContextSetRGBStrokeColor(ctx, 0.1, 0.55, 0.3, 1)
        CGContextSetLineWidth(ctx, 10)
        for (i, join) in [kCGLineJoinMiter, kCGLineJoinRound, kCGLineJoinBevel].enumerated() {
            CGContextSetLineJoin(ctx, join)
            let x = 92 + Double(i) * 24
            CGContextMoveToPoint(ctx, x, 40)
            CGContextAddLineToPoint(ctx, x + 8, 12)
            CGContextAddLineToPoint(ctx, x + 16, 40)
            CGContextStrokePath(ctx)
        }
        // The same sharp angle with the default miter limit and with 2.
        CGContextSetLineJoin(ctx, kCGLineJoinMiter)
        CGContextSetLineWidth(ctx, 6)
        for (i, limit) in [10.0, 2.0].enumerated() {
            CGContextSetMiterLimit(ctx, limit)
            let x = 96 + Double(i) * 34
            CGContextMoveToPoint(ctx, x, 100)
            CGContextAddLineToPoint(ctx, x + 10, 62)
            CGContextAddLineToPoint(ctx, x + 20, 100)
            CGContextStrokePath(ctx)
        }
        finish("caps_joins_miter", ctx, pb)
    }

    @Test func dashesWithPhase() {
        let (ctx, pb) = canvas(160, 96)
        CGContextSetRGBStrokeColor(ctx, 0.2, 0.2, 0.25, 1)
        CGContextSetLineWidth(ctx, 4)
        let patterns: [([Double], Double)] = [([10, 5], 0), ([10, 5], 5), ([2, 4], 0), ([12, 3, 3, 3], 0), ([12, 3, 3, 3], 9)]
        for (i, (lengths, phase)) in patterns.enumerated() {
            CGContextSetLineDash(ctx, phase, lengths, lengths.count)
            CGContextMoveToPoint(ctx, 10, 10 + Double(i) * 12)
            CGContextAddLineToPoint(ctx, 150, 10 + Double(i) * 12)
            CGContextStrokePath(ctx)
        }
        // A dashed circle with round caps.
        CGContextSetLineCap(ctx, kCGLineCapRound)
        CGContextSetLineDash(ctx, 0, [1, 7], 2)
        CGContextSetRGBStrokeColor(ctx, 0.85, 0.35, 0.1, 1)
        CGContextStrokeEllipseInRect(ctx, CGRect(x: 60, y: 66, width: 40, height: 24))
        finish("dashes", ctx, pb)
    }

    @Test func fillRules() {
        let (ctx, pb) = canvas(160, 80)
        CGContextSetRGBFillColor(ctx, 0.55, 0.2, 0.7, 1)
        for (i, evenOdd) in [false, true].enumerated() {
            let ox = 10 + Double(i) * 80
            // A five-pointed star (self-intersecting) and nested squares.
            for k in 0..<5 {
                let a = -Double.pi / 2 + Double(k) * 4 * Double.pi / 5
                let p = CGPoint(x: ox + 20 + 18 * cos(a), y: 40 + 18 * sin(a))
                if k == 0 { CGContextMoveToPoint(ctx, p.x, p.y) } else { CGContextAddLineToPoint(ctx, p.x, p.y) }
            }
            CGContextClosePath(ctx)
            CGContextAddRect(ctx, CGRect(x: ox + 44, y: 18, width: 26, height: 44))
            CGContextAddRect(ctx, CGRect(x: ox + 50, y: 28, width: 14, height: 24))
            if evenOdd { CGContextEOFillPath(ctx) } else { CGContextFillPath(ctx) }
        }
        finish("fill_rules", ctx, pb)
    }

    @Test func arcsAndEllipses() {
        let (ctx, pb) = canvas(160, 96)
        CGContextSetLineWidth(ctx, 5)
        CGContextSetRGBStrokeColor(ctx, 0.1, 0.45, 0.75, 1)
        // Counter-clockwise (increasing angles) and clockwise arcs.
        CGContextAddArc(ctx, 30, 30, 20, 0, 1.5 * Double.pi, 0)
        CGContextStrokePath(ctx)
        CGContextAddArc(ctx, 80, 30, 20, 0, 1.5 * Double.pi, 1)
        CGContextStrokePath(ctx)
        // A rounded corner by arc-to-point, from a line.
        CGContextMoveToPoint(ctx, 110, 50)
        CGContextAddArcToPoint(ctx, 150, 50, 150, 10, 16)
        CGContextAddLineToPoint(ctx, 150, 8)
        CGContextStrokePath(ctx)
        CGContextSetRGBFillColor(ctx, 0.95, 0.6, 0.15, 1)
        CGContextFillEllipseInRect(ctx, CGRect(x: 10, y: 60, width: 60, height: 28))
        CGContextSetRGBStrokeColor(ctx, 0.3, 0.3, 0.3, 1)
        CGContextSetLineWidth(ctx, 2)
        CGContextStrokeEllipseInRect(ctx, CGRect(x: 80, y: 58, width: 30, height: 32))
        // A pie wedge: move to the centre, arc, close.
        CGContextMoveToPoint(ctx, 135, 74)
        CGContextAddArc(ctx, 135, 74, 18, -Double.pi / 2, Double.pi / 3, 0)
        CGContextClosePath(ctx)
        CGContextSetRGBFillColor(ctx, 0.2, 0.65, 0.35, 1)
        CGContextDrawPath(ctx, kCGPathFillStroke)
        finish("arcs_ellipses", ctx, pb)
    }

    @Test func clippingToAPathAndAMask() {
        let (ctx, pb) = canvas(160, 80)
        // A path clip: a circle; stripes drawn through it.
        CGContextSaveGState(ctx)
        CGContextAddEllipseInRect(ctx, CGRect(x: 10, y: 10, width: 60, height: 60))
        CGContextClip(ctx)
        for i in 0..<8 {
            CGContextSetRGBFillColor(ctx, i % 2 == 0 ? 0.9 : 0.2, 0.3, i % 2 == 0 ? 0.2 : 0.8, 1)
            CGContextFillRect(ctx, CGRect(x: 10 + Double(i) * 8, y: 0, width: 8, height: 80))
        }
        CGContextRestoreGState(ctx)
        // A mask clip: a gray ramp image (dark to light across) stretched over a square.
        var ramp = [UInt8](repeating: 0, count: 16 * 16)
        for y in 0..<16 { for x in 0..<16 { ramp[y * 16 + x] = UInt8((x * 17 + y * 0) & 0xFF) } }
        let provider = ramp.withUnsafeBytes { CGDataProviderCreateWithData(nil, $0.baseAddress, 256, nil)! }
        let gray = CGColorSpaceCreateDeviceGray()!
        let mask = CGImageCreate(16, 16, 8, 8, 16, gray, UInt32(kCGImageAlphaNone), provider, nil, true,
                                 kCGRenderingIntentDefault)!
        CGContextSaveGState(ctx)
        CGContextClipToMask(ctx, CGRect(x: 90, y: 10, width: 60, height: 60), mask)
        CGContextSetRGBFillColor(ctx, 0.1, 0.5, 0.3, 1)
        CGContextFillRect(ctx, CGRect(x: 0, y: 0, width: 160, height: 80))
        CGContextRestoreGState(ctx)
        CGImageRelease(mask); CGColorSpaceRelease(gray); CGDataProviderRelease(provider)
        finish("clipping", ctx, pb)
    }

    @Test func gradientsWithAndWithoutExtension() {
        let (ctx, pb) = canvas(160, 120)
        let space = rgbSpace()
        let comps: [Double] = [0.95, 0.3, 0.2, 1, 0.2, 0.4, 0.95, 1]
        let g = CGGradientCreateWithColorComponents(space, comps, [0, 1], 2)!
        let options: [UInt32] = [0, 1, 2, 3]
        for (i, o) in options.enumerated() {
            let x = Double(i) * 40
            CGContextSaveGState(ctx)
            CGContextClipToRect(ctx, CGRect(x: x + 2, y: 2, width: 36, height: 56))
            CGContextDrawLinearGradient(ctx, g, CGPoint(x: x + 12, y: 0), CGPoint(x: x + 28, y: 0), o)
            CGContextRestoreGState(ctx)
            CGContextSaveGState(ctx)
            CGContextClipToRect(ctx, CGRect(x: x + 2, y: 62, width: 36, height: 56))
            CGContextDrawRadialGradient(ctx, g, CGPoint(x: x + 20, y: 90), 5, CGPoint(x: x + 20, y: 90), 14, o)
            CGContextRestoreGState(ctx)
        }
        CGGradientRelease(g); CGColorSpaceRelease(space)
        finish("gradients", ctx, pb)
    }

    @Test func everyBlendModeOverAFixedBackdrop() {
        // 28 cells (7 x 4): the backdrop is a vertical ramp with a stripe;
        // the source a translucent orange disc over a blue square.
        let (ctx, pb) = canvas(7 * 32, 4 * 32, backdrop: false)
        let space = rgbSpace()
        let back = CGGradientCreateWithColorComponents(space, [0.1, 0.6, 0.3, 1, 0.95, 0.9, 0.8, 1], nil, 2)!
        for mode in 0..<28 {
            let x = Double(mode % 7) * 32, y = Double(mode / 7) * 32
            CGContextSaveGState(ctx)
            CGContextClipToRect(ctx, CGRect(x: x, y: y, width: 32, height: 32))
            CGContextDrawLinearGradient(ctx, back, CGPoint(x: x, y: y), CGPoint(x: x, y: y + 32), 0)
            CGContextSetRGBFillColor(ctx, 0.2, 0.2, 0.6, 0.5)
            CGContextFillRect(ctx, CGRect(x: x, y: y + 12, width: 32, height: 6))
            CGContextSetBlendMode(ctx, CGBlendMode(rawValue: UInt32(mode)))
            CGContextSetRGBFillColor(ctx, 0.2, 0.3, 0.9, 1)
            CGContextFillRect(ctx, CGRect(x: x + 4, y: y + 4, width: 14, height: 14))
            CGContextSetRGBFillColor(ctx, 1, 0.55, 0.1, 0.8)
            CGContextFillEllipseInRect(ctx, CGRect(x: x + 10, y: y + 10, width: 18, height: 18))
            CGContextRestoreGState(ctx)
        }
        CGGradientRelease(back); CGColorSpaceRelease(space)
        finish("blend_modes", ctx, pb)
    }

    @Test func imageScaledAtEachInterpolationQuality() {
        let (ctx, pb) = canvas(5 * 44, 44)
        let image = smallImage()
        let qualities = [kCGInterpolationNone, kCGInterpolationLow, kCGInterpolationMedium, kCGInterpolationHigh,
                         kCGInterpolationDefault]
        for (i, q) in qualities.enumerated() {
            CGContextSetInterpolationQuality(ctx, q)
            // Upright, the UIKit way (Core Graphics draws row 0 at the rect's maxY).
            CGContextSaveGState(ctx)
            CGContextTranslateCTM(ctx, 0, 42)
            CGContextScaleCTM(ctx, 1, -1)
            CGContextDrawImage(ctx, CGRect(x: 2 + Double(i) * 44, y: 2, width: 40, height: 40), image)
            CGContextRestoreGState(ctx)
        }
        CGImageRelease(image)
        finish("image_interpolation", ctx, pb)
    }

    @Test func contextShadow() {
        let (ctx, pb) = canvas(160, 80)
        CGContextSetShadow(ctx, CGSize(width: 4, height: 5), 6)
        CGContextSetRGBFillColor(ctx, 0.3, 0.6, 0.9, 1)
        CGContextFillRect(ctx, CGRect(x: 14, y: 14, width: 50, height: 40))
        let orange = CGColorCreateSRGB(0.9, 0.4, 0.1, 0.8)!
        CGContextSetShadowWithColor(ctx, CGSize(width: -3, height: 3), 2, orange)
        CGContextSetRGBStrokeColor(ctx, 0.2, 0.2, 0.2, 1)
        CGContextSetLineWidth(ctx, 4)
        CGContextStrokeEllipseInRect(ctx, CGRect(x: 94, y: 14, width: 44, height: 44))
        CGColorRelease(orange)
        finish("shadow", ctx, pb)
    }

    @Test func transparencyLayer() {
        let (ctx, pb) = canvas(160, 80)
        // Left: three overlapping discs at alpha 0.5, each composited alone
        // (overlaps darker). Right: the same inside a transparency layer
        // (composited once: even), with a shadow for the group.
        for (i, layered) in [false, true].enumerated() {
            let ox = Double(i) * 80
            CGContextSaveGState(ctx)
            CGContextSetAlpha(ctx, 0.5)
            if layered {
                CGContextSetShadow(ctx, CGSize(width: 3, height: 3), 3)
                CGContextBeginTransparencyLayer(ctx, nil)
            }
            for (k, c) in [(0.9, 0.2, 0.2), (0.2, 0.7, 0.3), (0.2, 0.3, 0.9)].enumerated() {
                CGContextSetRGBFillColor(ctx, c.0, c.1, c.2, 1)
                CGContextFillEllipseInRect(ctx, CGRect(x: ox + 8 + Double(k) * 16, y: 10 + Double(k % 2) * 14,
                                                       width: 40, height: 40))
            }
            if layered { CGContextEndTransparencyLayer(ctx) }
            CGContextRestoreGState(ctx)
        }
        finish("transparency_layer", ctx, pb)
    }
}

// MARK: - Scenes of the display cycle

private let drawScene: @convention(c) (CALayerRef?, QZCGContextRef?, UnsafeMutableRawPointer?) -> Void = { layer, ctx, _ in
    let b = CALayerGetBounds(layer)
    let variant = CALayerGetNumberForKeyPath(layer, "variant")
    CGContextSetRGBFillColor(ctx, variant == 0 ? 0.9 : 0.2, 0.85, variant == 0 ? 0.8 : 0.95, 1)
    CGContextFillRect(ctx, b)
    CGContextSetRGBStrokeColor(ctx, 0.15, 0.2, 0.4, 1)
    CGContextSetLineWidth(ctx, 1.5)
    CGContextStrokeEllipseInRect(ctx, b.insetBy(dx: 4, dy: 4))
    CGContextMoveToPoint(ctx, 4, b.height - 4)
    CGContextAddCurveToPoint(ctx, b.width / 3, 0, 2 * b.width / 3, b.height, b.width - 4, 4)
    CGContextStrokePath(ctx)
}

private func drawnLayer(scale: Double) -> DrawnLayer {
    var cb = CALayerClassCallbacks()
    cb.drawInContext = drawScene
    let cls = CALayerClassCreate("GoldenDrawn", nil, &cb, nil)!
    let l = CALayerCreateWithClass(cls)!
    CALayerSetBounds(l, CGRect(x: 0, y: 0, width: 48, height: 32))
    CALayerSetContentsScale(l, scale)
    return DrawnLayer(layer: l, cls: cls)
}

private struct DrawnLayer {
    let layer: CALayerRef
    let cls: OpaquePointer
    func release() { CARelease(UnsafeRawPointer(layer)); CARelease(UnsafeRawPointer(cls)) }
}

@Suite("Display cycle golden scenes", .serialized)
struct DisplayGoldenTests {
    @Test func layerDrawnAtContentsScale2() {
        let p = drawnLayer(scale: 2)
        CALayerSetNeedsDisplay(p.layer)
        CATransactionFlush()
        let store = OpaquePointer(CALayerGetContents(p.layer))!
        #expect(CVPixelBufferGetWidth(store) == 96 && CVPixelBufferGetHeight(store) == 64)
        checkGolden("cg_contents_scale_2", store)
        p.release()
    }

    @Test func partialRedrawKeepsThePixelsOutside() {
        let p = drawnLayer(scale: 2)
        CALayerSetNeedsDisplay(p.layer)
        CATransactionFlush()
        CALayerSetNumberForKeyPath(p.layer, "variant", 1)   // (a custom key: no redraw by itself)
        CALayerSetNeedsDisplayInRect(p.layer, CGRect(x: 10.5, y: 6, width: 20, height: 12))
        CATransactionFlush()
        let store = OpaquePointer(CALayerGetContents(p.layer))!
        checkGolden("cg_partial_redraw", store)
        // Outside the rect (21...61 x 12...36 in pixels) the first drawing remains.
        #expect(pixel(store, 5, 5).0 > 200 && pixel(store, 40, 20).0 < 80)
        p.release()
    }
}
