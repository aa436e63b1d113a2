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

// Golden scenes: one per property of the compositing model, plus three
// composite scenes, rendered through CARenderer and compared with
// Tests/golden/<scene>.png within goldenTolerance per channel
// (scripts/regenerate-golden.sh rewrites them).

private let white = (1.0, 1.0, 1.0, 1.0), red = (0.9, 0.1, 0.1, 1.0), blue = (0.1, 0.3, 0.9, 1.0)
private let green = (0.1, 0.7, 0.2, 1.0), gray = (0.85, 0.85, 0.85, 1.0), black = (0.0, 0.0, 0.0, 1.0)

private func scene(_ w: Double = 128, _ h: Double = 96) -> TL { TL(0, 0, w, h, color: gray) }

private func setContents(_ l: TL, _ pb: QZCVPixelBufferRef) { CALayerSetContents(l.ref, UnsafeRawPointer(pb)) }

private func setColor(_ f: (CALayerRef?, QZCGColorRef?) -> Void, _ l: TL, _ c: (Double, Double, Double, Double)) {
    let col = CGColorCreateSRGB(c.0, c.1, c.2, c.3)
    f(l.ref, col)
    CGColorRelease(col)
}

private func render(_ name: String, _ root: TL, _ w: Int = 128, _ h: Int = 96, at t: Double = 1000) {
    let pb = renderScene(root, w, h, at: t)
    checkGolden(name, pb)
    CVPixelBufferRelease(pb)
}

@Suite("Renderer golden scenes", .serialized)
struct RenderGoldenTests {
    @Test func background() {
        let root = scene()
        root.add(TL(8, 8, 50, 40, color: red))
        root.add(TL(40, 30, 60, 50, color: (0.1, 0.3, 0.9, 0.5)))
        root.add(TL(100.5, 10.25, 20, 20.5, color: green))   // fractional edges: anti-aliased
        render("background", root)
    }

    @Test func opacity() {
        let root = scene()
        let a = TL(10, 10, 60, 60, color: red); CALayerSetOpacity(a.ref, 0.5)
        let b = TL(50, 30, 60, 60, color: blue); CALayerSetOpacity(b.ref, 0.25)
        root.add(a); root.add(b)
        render("opacity", root)
    }

    @Test func hidden() {
        let root = scene()
        let a = TL(10, 10, 50, 50, color: red)
        let b = TL(60, 20, 50, 50, color: blue); CALayerSetHidden(b.ref, true)
        b.add(TL(0, 0, 20, 20, color: green))   // hidden with its parent
        root.add(a); root.add(b)
        render("hidden", root)
    }

    @Test func transform3DPerspective() {
        let root = scene(160, 120)
        let card = TL(40, 20, 80, 80)
        let img = makeTestImage(); setContents(card, img); CVPixelBufferRelease(img)
        var t = CATransform3DIdentity
        t.m34 = -1.0 / 200
        t = CATransform3DRotate(t, .pi / 4, 0, 1, 0)
        CALayerSetTransform(card.ref, t)
        root.add(card)
        render("transform_3d", root, 160, 120)
    }

    @Test func sublayerTransformPerspective() {
        let root = scene(160, 120)
        let stage = TL(0, 0, 160, 120)
        var p = CATransform3DIdentity; p.m34 = -1.0 / 300
        CALayerSetSublayerTransform(stage.ref, p)
        for i in 0..<3 {
            let l = TL(10 + Double(i) * 50, 35, 40, 50, color: [red, green, blue][i])
            CALayerSetTransform(l.ref, CATransform3DMakeRotation(Double(i - 1) * 0.8, 0, 1, 0))
            stage.add(l)
        }
        root.add(stage)
        render("sublayer_transform", root, 160, 120)
    }

    @Test func doubleSided() {
        let root = scene()
        let a = TL(10, 20, 50, 50, color: red)     // flipped over, drawn (mirrored)
        let b = TL(70, 20, 50, 50, color: blue)    // flipped over, culled
        let flip = CATransform3DMakeRotation(.pi * 0.9, 0, 1, 0)
        CALayerSetTransform(a.ref, flip); CALayerSetTransform(b.ref, flip)
        CALayerSetDoubleSided(b.ref, false)
        a.add(TL(0, 0, 20, 20, color: white))
        root.add(a); root.add(b)
        render("double_sided", root)
    }

    @Test func zPosition() {
        let root = scene()
        let a = TL(10, 10, 60, 60, color: red); CALayerSetZPosition(a.ref, 10)   // first, but in front
        let b = TL(40, 30, 60, 60, color: blue)
        let c = TL(70, 20, 40, 40, color: green); CALayerSetZPosition(c.ref, -1) // last, but behind
        root.add(a); root.add(b); root.add(c)
        render("z_position", root)
    }

    @Test func geometryFlipped() {
        let root = scene()
        let left = TL(8, 8, 52, 80, color: white)
        let right = TL(68, 8, 52, 80, color: white); CALayerSetGeometryFlipped(right.ref, true)
        left.add(TL(6, 6, 40, 20, color: red)); right.add(TL(6, 6, 40, 20, color: red))
        root.add(left); root.add(right)
        render("geometry_flipped", root)
    }

    @Test func cornerRadius() {
        let root = scene()
        let a = TL(8, 8, 50, 50, color: red); CALayerSetCornerRadius(a.ref, 12)
        let b = TL(66, 8, 54, 30, color: blue); CALayerSetCornerRadius(b.ref, 100)  // clamped to half the height
        let c = TL(66, 46, 54, 40, color: green); CALayerSetCornerRadius(c.ref, 6)
        CALayerSetTransform(c.ref, CATransform3DMakeRotation(0.3, 0, 0, 1))
        root.add(a); root.add(b); root.add(c)
        render("corner_radius", root)
    }

    @Test func border() {
        let root = scene()
        let a = TL(8, 8, 56, 56, color: white)
        CALayerSetBorderWidth(a.ref, 4); CALayerSetCornerRadius(a.ref, 10)
        setColor(CALayerSetBorderColor, a, blue)
        let img = makeTestImage(); setContents(a, img)
        a.add(TL(-10, 20, 40, 20, color: green))   // the border is drawn above sublayers
        let b = TL(76, 20, 40, 40, color: (0, 0, 0, 0))
        CALayerSetBorderWidth(b.ref, 1.5); setColor(CALayerSetBorderColor, b, red)
        root.add(a); root.add(b)
        CVPixelBufferRelease(img)
        render("border", root)
    }

    @Test func contents() {
        let root = scene()
        let img = makeTestImage()
        let a = TL(8, 8, 32, 32); setContents(a, img)
        let b = TL(48, 8, 72, 48); setContents(b, img)    // stretched (resize)
        let c = TL(8, 48, 24, 40); setContents(c, img)
        root.add(a); root.add(b); root.add(c)
        CVPixelBufferRelease(img)
        render("contents", root)
    }

    @Test func contentsFormats() {
        // The same picture as 32BGRA, 32RGBA, 24RGB and 64ARGB contents (all
        // decode to the same colours), and a video-range Y'CbCr 4:2:0 ('420v')
        // buffer, red on the left and blue on the right (ITU-R 601 values).
        let root = scene(208, 56)
        let img = makeTestImage(32, 32)
        let formats: [UInt32] = [UInt32(kCVPixelFormatType_32BGRA), UInt32(kCVPixelFormatType_32RGBA),
                                 UInt32(kCVPixelFormatType_24RGB), UInt32(kCVPixelFormatType_64ARGB)]
        for (i, f) in formats.enumerated() {
            var conv: QZCVPixelBufferRef?
            #expect(QZPixelBufferCreateConverted(img, OSType(f), &conv) == 0)
            let l = TL(8 + Double(i) * 40, 12, 32, 32)
            if let conv { setContents(l, conv); CVPixelBufferRelease(conv) }
            root.add(l)
        }
        CVPixelBufferRelease(img)
        var yuv: QZCVPixelBufferRef?
        #expect(CVPixelBufferCreate(nil, 32, 32, OSType(kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange), nil, &yuv) == 0)
        if let yuv {
            let y = CVPixelBufferGetBaseAddressOfPlane(yuv, 0)!, yb = CVPixelBufferGetBytesPerRowOfPlane(yuv, 0)
            let c = CVPixelBufferGetBaseAddressOfPlane(yuv, 1)!, cb = CVPixelBufferGetBytesPerRowOfPlane(yuv, 1)
            for row in 0..<32 { for col in 0..<32 { y.storeBytes(of: col < 16 ? 81 : 41, toByteOffset: row * yb + col, as: UInt8.self) } }
            for row in 0..<16 {
                for col in 0..<16 {
                    c.storeBytes(of: col < 8 ? 90 : 240, toByteOffset: row * cb + 2 * col, as: UInt8.self)
                    c.storeBytes(of: col < 8 ? 240 : 110, toByteOffset: row * cb + 2 * col + 1, as: UInt8.self)
                }
            }
            let l = TL(168, 12, 32, 32)
            setContents(l, yuv)
            root.add(l)
            CVPixelBufferRelease(yuv)
        }
        let pb = renderScene(root, 208, 56)
        checkGolden("contents_formats", pb)
        // Independently: the Y'CbCr layer's left half is red, its right half blue.
        let left = pixel(pb, 172, 28), right = pixel(pb, 196, 28)
        #expect(left.0 > 240 && left.1 < 16 && left.2 < 16, "\(left)")
        #expect(right.0 < 16 && right.1 < 16 && right.2 > 240, "\(right)")
        CVPixelBufferRelease(pb)
    }

    @Test func contentsRect() {
        let root = scene()
        let img = makeTestImage()
        let a = TL(8, 8, 48, 48); setContents(a, img)
        CALayerSetContentsRect(a.ref, CGRect(x: 0, y: 0, width: 0.5, height: 0.5))   // red quadrant
        let b = TL(64, 8, 48, 48); setContents(b, img)
        CALayerSetContentsRect(b.ref, CGRect(x: 0.25, y: 0.25, width: 0.75, height: 0.75))
        root.add(a); root.add(b)
        CVPixelBufferRelease(img)
        render("contents_rect", root)
    }

    @Test func contentsGravity() {
        let root = scene(208, 160)
        let img = makeTestImage(16, 12)
        let names = ["center", "top", "bottom", "left", "right", "topLeft", "topRight", "bottomLeft",
                     "bottomRight", "resize", "resizeAspect", "resizeAspectFill"]
        for (i, n) in names.enumerated() {
            let l = TL(Double(i % 4) * 52 + 4, Double(i / 4) * 52 + 4, 44, 32, color: white)
            setContents(l, img)
            CALayerSetContentsGravity(l.ref, n)
            root.add(l)
        }
        CVPixelBufferRelease(img)
        render("contents_gravity", root, 208, 160)
    }

    @Test func contentsScale() {
        let root = scene()
        let img = makeTestImage()
        let a = TL(8, 8, 56, 56, color: white); setContents(a, img)
        CALayerSetContentsGravity(a.ref, "center")    // 32 px at scale 1: 32 points
        let b = TL(68, 8, 56, 56, color: white); setContents(b, img)
        CALayerSetContentsGravity(b.ref, "center"); CALayerSetContentsScale(b.ref, 2)   // 16 points
        root.add(a); root.add(b)
        CVPixelBufferRelease(img)
        render("contents_scale", root)
    }

    @Test func contentsCenter() {
        let root = scene()
        let img = makeTestImage(24, 24)
        let a = TL(8, 8, 112, 40); setContents(a, img)
        CALayerSetContentsCenter(a.ref, CGRect(x: 1.0 / 3, y: 1.0 / 3, width: 1.0 / 3, height: 1.0 / 3))
        let b = TL(8, 56, 30, 32); setContents(b, img)   // smaller than the edges: edges shrink
        CALayerSetContentsCenter(b.ref, CGRect(x: 0.4, y: 0.4, width: 0.2, height: 0.2))
        root.add(a); root.add(b)
        CVPixelBufferRelease(img)
        render("contents_center", root)
    }

    @Test func filters() {
        let root = scene(192, 96)
        let img = makeTestImage(64, 64)
        let names = ["nearest", "linear", "trilinear"]
        for (i, n) in names.enumerated() {
            // Magnified 8x8 pixels to 40x40 points (top row), minified 64 -> 20 (bottom).
            let big = TL(Double(i) * 64 + 8, 4, 48, 48); setContents(big, img)
            CALayerSetContentsRect(big.ref, CGRect(x: 0.4375, y: 0.4375, width: 0.125, height: 0.125))
            CALayerSetMagnificationFilter(big.ref, n == "trilinear" ? "linear" : n)
            let small = TL(Double(i) * 64 + 22, 60, 20, 20); setContents(small, img)
            CALayerSetMinificationFilter(small.ref, n)
            if n == "trilinear" { CALayerSetMinificationFilterBias(small.ref, 0.5) }
            root.add(big); root.add(small)
        }
        CVPixelBufferRelease(img)
        render("filters", root, 192, 96)
    }

    @Test func masksToBounds() {
        let root = scene()
        let a = TL(8, 8, 50, 50, color: white); CALayerSetMasksToBounds(a.ref, true)
        a.add(TL(25, 25, 50, 50, color: red))
        let b = TL(68, 8, 50, 50, color: white); CALayerSetMasksToBounds(b.ref, true); CALayerSetCornerRadius(b.ref, 16)
        b.add(TL(-10, -10, 45, 45, color: blue)); b.add(TL(25, 25, 50, 50, color: green))
        root.add(a); root.add(b)
        render("masks_to_bounds", root)
    }

    @Test func groupOpacity() {
        let root = scene()
        // The group is composited as one: the overlap of its sublayers does not show through.
        let g = TL(8, 8, 70, 70); CALayerSetOpacity(g.ref, 0.5)
        g.add(TL(0, 0, 45, 45, color: red)); g.add(TL(22, 22, 45, 45, color: blue))
        root.add(g)
        root.add(TL(84, 30, 36, 36, color: green).background(green))
        render("group_opacity", root)
    }

    @Test func maskLayer() {
        let root = scene()
        let a = TL(8, 8, 80, 80); let img = makeTestImage(); setContents(a, img); CVPixelBufferRelease(img)
        let mask = TL(10, 10, 60, 60, color: (0, 0, 0, 1)); CALayerSetCornerRadius(mask.ref, 30)
        mask.add(TL(-10, 40, 30, 30, color: (0, 0, 0, 0.5)))
        CALayerSetMask(a.ref, mask.ref)
        root.add(a)
        let b = TL(92, 8, 30, 80, color: blue)
        let m2 = TL(0, 0, 30, 40, color: (0, 0, 0, 1))
        CALayerSetMask(b.ref, m2.ref)
        root.add(b)
        render("mask_layer", root)
    }

    @Test func shadow() {
        let root = scene(160, 120)
        let a = TL(20, 20, 50, 50, color: white)
        CALayerSetShadowOpacity(a.ref, 0.8); CALayerSetShadowRadius(a.ref, 4)
        CALayerSetShadowOffset(a.ref, CGSize(width: 5, height: 5)); CALayerSetCornerRadius(a.ref, 8)
        let b = TL(95, 20, 45, 45, color: (0, 0, 0, 0))    // shadow of its sublayer's alpha
        CALayerSetShadowOpacity(b.ref, 1); CALayerSetShadowRadius(b.ref, 2); setColor(CALayerSetShadowColor, b, red)
        CALayerSetShadowOffset(b.ref, CGSize(width: 0, height: 6))
        b.add(TL(10, 10, 25, 25, color: blue))
        let c = TL(30, 85, 100, 24, color: green)
        CALayerSetShadowOpacity(c.ref, 0.5); CALayerSetShadowRadius(c.ref, 0)
        root.add(a); root.add(b); root.add(c)
        render("shadow", root, 160, 120)
    }

    @Test func shadowClippedByMasksToBounds() {
        // masksToBounds clips the layer's own shadow: with a translucent
        // background it shows inside the bounds only (left: unclipped).
        let root = scene()
        for (i, clip) in [false, true].enumerated() {
            let l = TL(16 + Double(i) * 60, 20, 40, 40, color: (1, 1, 1, 0.3))
            CALayerSetMasksToBounds(l.ref, clip); CALayerSetCornerRadius(l.ref, 6)
            CALayerSetShadowOpacity(l.ref, 1); CALayerSetShadowRadius(l.ref, 4)
            CALayerSetShadowOffset(l.ref, CGSize(width: 8, height: 8))
            l.add(TL(20, 20, 30, 30, color: (0.1, 0.3, 0.9, 1)))
            root.add(l)
        }
        render("shadow_masks_to_bounds", root)
    }

    @Test func shadowPath() {
        let root = scene()
        let a = TL(24, 16, 80, 60, color: white)
        let path = CGPathCreateWithEllipseInRect(CGRect(x: -10, y: 30, width: 100, height: 40), nil)
        CALayerSetShadowPath(a.ref, path); CGPathRelease(path)
        CALayerSetShadowOpacity(a.ref, 0.7); CALayerSetShadowRadius(a.ref, 3)
        CALayerSetShadowOffset(a.ref, CGSize(width: 0, height: 4))
        root.add(a)
        render("shadow_path", root)
    }

    @Test func edgeAntialiasing() {
        let root = scene()
        let a = TL(14, 24, 40, 40, color: blue)
        let b = TL(74, 24, 40, 40, color: blue); CALayerSetEdgeAntialiasingMask(b.ref, 0)
        let rot = CATransform3DMakeRotation(0.35, 0, 0, 1)
        CALayerSetTransform(a.ref, rot); CALayerSetTransform(b.ref, rot)
        root.add(a); root.add(b)
        render("edge_antialiasing", root)
    }

    @Test func shouldRasterize() {
        let root = scene()
        let a = TL(16, 16, 64, 64, color: white)
        CALayerSetShouldRasterize(a.ref, true); CALayerSetRasterizationScale(a.ref, 0.25)
        a.add(TL(8, 8, 24, 24, color: red)); a.add(TL(30, 30, 24, 24, color: blue))
        CALayerSetTransform(a.ref, CATransform3DMakeRotation(0.2, 0, 0, 1))
        root.add(a)
        render("should_rasterize", root)
    }

    @Test(arguments: [("fade", "fromRight"), ("moveIn", "fromRight"), ("push", "fromRight"), ("reveal", "fromRight"),
                      ("push", "fromLeft"), ("push", "fromTop"), ("push", "fromBottom"), ("moveIn", "fromTop")])
    func transition(_ type: String, _ subtype: String) {
        // Media time 0 when the transition is added; rendered half-way.
        let clock = RenderClock(10)
        defer { withExtendedLifetime(clock) {} }
        let root = scene()
        let box = TL(16, 16, 96, 64, color: red)
        box.add(TL(8, 8, 30, 30, color: white))
        root.add(box)
        CATransactionFlush()   // the old state is committed; the transition runs from it
        let tr = CATransitionCreate()!
        CAAnimationSetDuration(tr, 1)
        let v = CAValueCreateString(type); CAAnimationSetValueForKey(tr, "type", v); CARelease(UnsafeRawPointer(v))
        let s = CAValueCreateString(subtype); CAAnimationSetValueForKey(tr, "subtype", s); CARelease(UnsafeRawPointer(s))
        CALayerAddAnimation(box.ref, tr, nil)
        CARelease(UnsafeRawPointer(tr))
        // The new state: blue, with the white square moved.
        box.background(blue)
        CALayerSetPosition(CALayerGetSublayerAtIndex(box.ref, 0), CGPoint(x: 70, y: 40))
        render(subtype == "fromRight" ? "transition_\(type)" : "transition_\(type)_\(subtype)", root, at: 10.5)
    }

    // MARK: - Composite scenes

    @Test func compositeCards() {
        let root = scene(200, 150)
        let img = makeTestImage()
        for i in 0..<4 {
            let card = TL(12 + Double(i) * 44, 20 + Double(i % 2) * 30, 70, 90, color: white)
            CALayerSetCornerRadius(card.ref, 10); CALayerSetMasksToBounds(card.ref, false)
            CALayerSetShadowOpacity(card.ref, 0.5); CALayerSetShadowRadius(card.ref, 5)
            CALayerSetShadowOffset(card.ref, CGSize(width: 0, height: 4))
            CALayerSetBorderWidth(card.ref, 1); setColor(CALayerSetBorderColor, card, (0.5, 0.5, 0.5, 1))
            let pic = TL(8, 8, 54, 54); setContents(pic, img); CALayerSetCornerRadius(pic.ref, 6); CALayerSetMasksToBounds(pic.ref, true)
            card.add(pic)
            card.add(TL(8, 70, 40, 6, color: [red, green, blue, black][i]))
            CALayerSetTransform(card.ref, CATransform3DMakeRotation(Double(i) * 0.08 - 0.12, 0, 0, 1))
            root.add(card)
        }
        CVPixelBufferRelease(img)
        render("composite_cards", root, 200, 150)
    }

    @Test func compositeDashboard() {
        let root = scene(200, 150)
        let panel = TL(10, 10, 180, 130, color: (0.15, 0.17, 0.2, 1)); CALayerSetCornerRadius(panel.ref, 14)
        CALayerSetMasksToBounds(panel.ref, true)
        for i in 0..<6 {
            let h = Double([40, 70, 55, 90, 30, 65][i])
            let bar = TL(16 + Double(i) * 26, 110 - h, 18, h, color: (0.2, 0.6 + Double(i) * 0.05, 0.9, 1))
            CALayerSetCornerRadius(bar.ref, 4)
            panel.add(bar)
        }
        let badge = TL(130, 12, 40, 24, color: red); CALayerSetCornerRadius(badge.ref, 12); CALayerSetOpacity(badge.ref, 0.8)
        badge.add(TL(8, 8, 24, 8, color: white))
        panel.add(badge)
        let glass = TL(0, 0, 180, 40, color: (1, 1, 1, 0.1))
        panel.add(glass)
        root.add(panel)
        render("composite_dashboard", root, 200, 150)
    }

    @Test func compositeGallery3D() {
        let root = scene(240, 150)
        root.background(black)
        let stage = TL(0, 0, 240, 150)
        var p = CATransform3DIdentity; p.m34 = -1.0 / 400
        CALayerSetSublayerTransform(stage.ref, p)
        let img = makeTestImage(64, 64)
        for i in 0..<5 {
            let l = TL(20 + Double(i) * 42, 40, 56, 70); setContents(l, img)
            CALayerSetMinificationFilter(l.ref, "trilinear")
            CALayerSetTransform(l.ref, CATransform3DMakeRotation(Double(i - 2) * 0.5, 0, 1, 0))
            CALayerSetZPosition(l.ref, -abs(Double(i - 2)) * 10)
            CALayerSetBorderWidth(l.ref, 2); setColor(CALayerSetBorderColor, l, white)
            stage.add(l)
        }
        CVPixelBufferRelease(img)
        root.add(stage)
        render("composite_gallery_3d", root, 240, 150)
    }
}
