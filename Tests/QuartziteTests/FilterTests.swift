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

// Layer filters (LayerFilters.swift, Kernels/Filters.swift): the checked
// setters, each compositing mode against its formula computed here, the
// Core Image filters' values on known pixels, backdrop blur, damage, the
// draw list, key paths into named filters, and golden scenes; every frame
// rendered on the CPU is also drawn by the GPU renderer and compared
// (GPUParity; Tests/c/test_gl.c compares each filter tighter).

private func filter(_ name: String, _ inputs: [(String, Value)] = []) -> Value {
    var d = ValueDictionary()
    d.set(Value(string: name), for: "name")
    for (k, v) in inputs { d.set(v, for: k) }
    return Value(.dictionary(d))
}

/// Calls a value setter with `v` kept alive for the call (a borrowed handle).
private func set(_ setter: (CALayerRef?, CAValueRef?) -> Void, _ l: TL, _ v: Value) {
    withExtendedLifetime(v) { setter(l.ref, borrowedHandle(v)) }
}

private func list(_ items: Value...) -> Value { Value(.array(items)) }
private func num(_ x: Double) -> Value { Value(.number(x)) }
private func vec(_ a: Double, _ b: Double, _ c: Double, _ d: Double) -> Value { Value(.array([num(a), num(b), num(c), num(d)])) }

/// Renders through a CARenderer on the CPU into a new buffer (+1), and
/// checks the GPU renderer's frame against it (GPUParity).
private func renderCPU(_ root: TL, _ w: Int, _ h: Int) -> QZCVPixelBufferRef {
    let pb = makeBuffer(w, h)
    let r = CARendererCreate(pb, nil)!
    CARendererSetLayer(r, root.ref)
    CARendererBeginFrameAtTime(r, 1000, nil)
    CARendererRender(r)
    CARendererEndFrame(r)
    CARelease(UnsafeRawPointer(r))
    GPUParity.check(root.ref, w, h, at: 1000, cpu: pb)
    return pb
}

/// The straight colour of byte values through a blend mode's formula, in
/// Double (W3C Compositing and Blending, opaque source and backdrop).
private func expectedBlend(_ mode: String, _ cb: Double, _ cs: Double) -> Double {
    func hard(_ cs: Double, _ cb: Double) -> Double { cs <= 0.5 ? cb * 2 * cs : cb + (2 * cs - 1) - cb * (2 * cs - 1) }
    switch mode {
    case "multiply": return cb * cs
    case "screen": return cb + cs - cb * cs
    case "overlay": return hard(cb, cs)
    case "darken": return min(cb, cs)
    case "lighten": return max(cb, cs)
    case "colorDodge": return cb == 0 ? 0 : (cs == 1 ? 1 : min(1, cb / (1 - cs)))
    case "colorBurn": return cb == 1 ? 1 : (cs == 0 ? 0 : 1 - min(1, (1 - cb) / cs))
    case "hardLight": return hard(cs, cb)
    case "softLight":
        if cs <= 0.5 { return cb - (1 - 2 * cs) * cb * (1 - cb) }
        let d = cb <= 0.25 ? ((16 * cb - 12) * cb + 4) * cb : cb.squareRoot()
        return cb + (2 * cs - 1) * (d - cb)
    case "difference": return abs(cb - cs)
    case "exclusion": return cb + cs - 2 * cb * cs
    default: fatalError(mode)
    }
}

@Suite("Layer filters", .serialized)
struct FilterTests {
    // MARK: - Model

    @Test func defaultsAreNilAndValidValuesAreKept() {
        let l = TL(0, 0, 10, 10)
        #expect(CALayerGetCompositingFilter(l.ref) == nil)
        #expect(CALayerGetFilters(l.ref) == nil)
        #expect(CALayerGetBackgroundFilters(l.ref) == nil)
        let f = list(filter("CIGaussianBlur", [("inputRadius", num(3))]), Value(string: "CIColorControls"))
        clearLastError()
        set(CALayerSetFilters, l, f)
        set(CALayerSetBackgroundFilters, l, f)
        set(CALayerSetCompositingFilter, l, Value(string: "CIScreenBlendMode"))
        #expect(lastErrorCode() == QZErrorNone)
        #expect(CALayerGetFilters(l.ref) == borrowedHandle(f))
        #expect(CALayerGetBackgroundFilters(l.ref) == borrowedHandle(f))
        #expect(CompositingMode.of(copyValue(l.ref, "compositingFilter")) == .screen)
        // A dictionary naming the mode, as a CIFilter would.
        set(CALayerSetCompositingFilter, l, filter("hardLightBlendMode"))
        #expect(CompositingMode.of(copyValue(l.ref, "compositingFilter")) == .hardLight)
    }

    @Test func everyAppleNameIsKnown() {
        let names = ["multiply", "screen", "overlay", "darken", "lighten", "colorDodge", "colorBurn", "softLight",
                     "hardLight", "difference", "exclusion", "hue", "saturation", "color", "luminosity"]
        for (i, n) in names.enumerated() {
            #expect(CompositingMode.names[n + "BlendMode"]?.rawValue == UInt8(i + 1))
            #expect(CompositingMode.names["CI" + n.prefix(1).uppercased() + n.dropFirst() + "BlendMode"]?.rawValue == UInt8(i + 1))
        }
        for n in ["sourceOver", "normalBlendMode", "clear", "copy", "sourceIn", "sourceOut", "sourceAtop", "destOver",
                  "destIn", "destOut", "destAtop", "xor", "plusL", "plusD"] {
            #expect(CompositingMode.names[n] != nil, "\(n)")
        }
    }

    @Test func badValuesAreReportedAndChangeNothing() {
        let l = TL(0, 0, 10, 10)
        let good = list(filter("CIGaussianBlur", [("inputRadius", num(2))]))
        set(CALayerSetFilters, l, good)
        set(CALayerSetCompositingFilter, l, Value(string: "multiplyBlendMode"))
        let cases: [(String, Value, QZError)] = [
            ("filters", list(filter("CISepiaTone")), QZErrorUnknownConstant),
            ("filters", list(Value(string: "blur")), QZErrorUnknownConstant),
            ("filters", list(filter("CIGaussianBlur", [("inputRadius", num(.nan))])), QZErrorNotFinite),
            ("filters", list(filter("CIGaussianBlur", [("inputRadius", num(-1))])), QZErrorInvalidArgument),
            ("filters", list(filter("CIGaussianBlur", [("inputRadius", Value(string: "big"))])), QZErrorWrongType),
            ("filters", list(filter("CIColorMatrix", [("inputRVector", vec(1, 0, 0, .infinity))])), QZErrorNotFinite),
            ("filters", list(filter("CIColorMatrix", [("inputRVector", num(1))])), QZErrorWrongType),
            ("filters", list(num(3)), QZErrorWrongType),
            ("filters", num(3), QZErrorWrongType),
            ("backgroundFilters", list(filter("CIBloom")), QZErrorUnknownConstant),
            ("compositingFilter", Value(string: "multiply"), QZErrorUnknownConstant),
            ("compositingFilter", filter("CIBogusBlendMode"), QZErrorUnknownConstant),
            ("compositingFilter", num(1), QZErrorWrongType),
        ]
        for (key, v, code) in cases {
            clearLastError()
            switch key {
            case "filters": set(CALayerSetFilters, l, v)
            case "backgroundFilters": set(CALayerSetBackgroundFilters, l, v)
            default: set(CALayerSetCompositingFilter, l, v)
            }
            #expect(lastErrorCode() == code, "\(key) \(v)")
            // Key-value coding goes through the same check.
            clearLastError()
            setValue(l.ref, key, v)
            #expect(lastErrorCode() == code, "KVC \(key) \(v)")
        }
        #expect(CALayerGetFilters(l.ref) == borrowedHandle(good))
        #expect(CALayerGetBackgroundFilters(l.ref) == nil)
        #expect(copyValue(l.ref, "compositingFilter")?.string == "multiplyBlendMode")
        // The message names the unknown filter.
        set(CALayerSetFilters, l, list(filter("CISepiaTone")))
        #expect(lastErrorMessage().contains("CISepiaTone"))
    }

    // MARK: - Compositing modes

    /// Opaque source over an opaque backdrop: each separable mode gives its
    /// formula's value per channel (within one step of rounding); multiply
    /// gives exactly round(cs * cb / 255).
    @Test func separableModesMatchTheirFormulas() {
        let back = (200.0, 100.0, 50.0), src = (128.0, 230.0, 64.0)
        for mode in ["multiply", "screen", "overlay", "darken", "lighten", "colorDodge", "colorBurn", "softLight",
                     "hardLight", "difference", "exclusion"] {
            let root = TL(0, 0, 20, 20, color: (back.0 / 255, back.1 / 255, back.2 / 255, 1))
            let top = TL(5, 5, 10, 10, color: (src.0 / 255, src.1 / 255, src.2 / 255, 1))
            set(CALayerSetCompositingFilter, top, Value(string: mode + "BlendMode"))
            root.add(top)
            let pb = renderCPU(root, 20, 20)
            let p = pixel(pb, 10, 10), outside = pixel(pb, 2, 2)
            CVPixelBufferRelease(pb)
            let e = [(back.0, src.0), (back.1, src.1), (back.2, src.2)].map { expectedBlend(mode, $0.0 / 255, $0.1 / 255) * 255 }
            #expect(abs(Double(p.0) - e[0]) <= 1 && abs(Double(p.1) - e[1]) <= 1 && abs(Double(p.2) - e[2]) <= 1 && p.3 == 255,
                    "\(mode): \(p) vs \(e)")
            #expect(outside == (200, 100, 50, 255))
        }
        let root = TL(0, 0, 4, 4, color: (200.0 / 255, 100.0 / 255, 50.0 / 255, 1))
        let top = TL(0, 0, 4, 4, color: (128.0 / 255, 230.0 / 255, 64.0 / 255, 1))
        set(CALayerSetCompositingFilter, top, Value(string: "multiplyBlendMode"))
        root.add(top)
        let pb = renderCPU(root, 4, 4)
        // 200*128/255 = 100.39, 100*230/255 = 90.20, 50*64/255 = 12.55.
        #expect(pixel(pb, 1, 1) == (100, 90, 13, 255))
        CVPixelBufferRelease(pb)
    }

    /// Non-separable modes: luminosity keeps the backdrop's hue and
    /// saturation with the source's luminance (Lum = 0.3 R + 0.59 G + 0.11 B).
    @Test func nonSeparableModesKeepLuminance() {
        for (mode, wantLum) in [("luminosity", 0.3 * 0.2 + 0.59 * 0.8 + 0.11 * 0.4), ("color", 0.3 * 0.6 + 0.59 * 0.2 + 0.11 * 0.2)] {
            let root = TL(0, 0, 4, 4, color: (0.6, 0.2, 0.2, 1))
            let top = TL(0, 0, 4, 4, color: (0.2, 0.8, 0.4, 1))
            set(CALayerSetCompositingFilter, top, Value(string: mode + "BlendMode"))
            root.add(top)
            let pb = renderCPU(root, 4, 4)
            let p = pixel(pb, 1, 1)
            CVPixelBufferRelease(pb)
            let l = (0.3 * Double(p.0) + 0.59 * Double(p.1) + 0.11 * Double(p.2)) / 255
            #expect(abs(l - wantLum) < 0.01, "\(mode): \(p)")
        }
    }

    /// Porter-Duff operators on a half-transparent backdrop: sourceIn keeps
    /// the source where the backdrop is (times its alpha), destOut cuts the
    /// backdrop out, xor, plusL adds.
    @Test func porterDuffOperators() {
        // Backdrop: opaque blue on the left half; the source: opaque red over all of it.
        func run(_ name: String) -> [Int] {
            let root = TL(0, 0, 20, 10)
            root.add(TL(0, 0, 10, 10, color: (0, 0, 1, 1)))
            let top = TL(0, 0, 20, 10, color: (1, 0, 0, 1))
            set(CALayerSetCompositingFilter, top, Value(string: name))
            root.add(top)
            let pb = renderCPU(root, 20, 10)
            defer { CVPixelBufferRelease(pb) }
            let a = pixel(pb, 5, 5), b = pixel(pb, 15, 5)
            return [a.0, a.1, a.2, a.3, b.0, b.1, b.2, b.3]
        }
        #expect(run("sourceIn") == [255, 0, 0, 255, 0, 0, 0, 0])
        #expect(run("sourceAtop") == [255, 0, 0, 255, 0, 0, 0, 0])
        #expect(run("destOut") == [0, 0, 0, 0, 0, 0, 0, 0])
        #expect(run("destOver") == [0, 0, 255, 255, 255, 0, 0, 255])
        #expect(run("xor") == [0, 0, 0, 0, 255, 0, 0, 255])
        #expect(run("plusL") == [255, 0, 255, 255, 255, 0, 0, 255])
        #expect(run("copy") == [255, 0, 0, 255, 255, 0, 0, 255])
        #expect(run("clear") == [0, 0, 0, 0, 0, 0, 0, 0])
    }

    // MARK: - Core Image filters

    /// CIGaussianBlur of a black-to-white step: the two pixels beside the
    /// edge average 50% (the integrated Gaussian's 45% and 55% at sigma 4),
    /// far from it the step is unchanged.
    @Test func gaussianBlurOfAStepEdge() {
        let root = TL(0, 0, 100, 60, color: (0, 0, 0, 1))
        let g = TL(0, 0, 100, 60)
        g.add(TL(0, 0, 50, 60, color: (0, 0, 0, 1)))
        g.add(TL(50, 0, 50, 60, color: (1, 1, 1, 1)))
        set(CALayerSetFilters, g, list(filter("CIGaussianBlur", [("inputRadius", num(4))])))
        root.add(g)
        let pb = renderCPU(root, 100, 60)
        defer { CVPixelBufferRelease(pb) }
        let a = pixel(pb, 49, 30), b = pixel(pb, 50, 30)
        // Φ(0.5 / 4) = 0.5497: pixel 49 gets 45.0% of white, pixel 50 55.0%.
        #expect(abs(Double(a.0) - 0.4503 * 255) <= 3 && abs(Double(b.0) - 0.5497 * 255) <= 3, "\(a) \(b)")
        #expect(abs(Double(a.0 + b.0) / 2 - 127.5) <= 2)
        #expect(a.0 == a.1 && a.1 == a.2 && a.3 == 255)
        #expect(pixel(pb, 20, 30) == (0, 0, 0, 255))
        #expect(pixel(pb, 80, 30).0 >= 254)
        // Monotonic across the edge.
        var last = -1
        for x in 30..<70 { let v = pixel(pb, x, 30).0; #expect(v >= last); last = v }
    }

    /// CIColorControls with saturation 0 gives the luminance grey (Rec. 709
    /// weights): red 0.2126, green 0.7152, blue 0.0722 of full scale.
    @Test func colorControlsSaturationZeroGivesLuminance() {
        let root = TL(0, 0, 30, 10)
        let g = TL(0, 0, 30, 10)
        g.add(TL(0, 0, 10, 10, color: (1, 0, 0, 1)))
        g.add(TL(10, 0, 10, 10, color: (0, 1, 0, 1)))
        g.add(TL(20, 0, 10, 10, color: (0, 0, 1, 1)))
        set(CALayerSetFilters, g, list(filter("CIColorControls", [("inputSaturation", num(0))])))
        root.add(g)
        let pb = renderCPU(root, 30, 10)
        defer { CVPixelBufferRelease(pb) }
        #expect(pixel(pb, 5, 5) == (54, 54, 54, 255))      // 0.2126 * 255 = 54.2
        #expect(pixel(pb, 15, 5) == (182, 182, 182, 255))  // 0.7152 * 255 = 182.4
        #expect(pixel(pb, 25, 5) == (18, 18, 18, 255))     // 0.0722 * 255 = 18.4
    }

    /// Brightness adds, contrast scales about 0.5.
    @Test func colorControlsBrightnessAndContrast() {
        let root = TL(0, 0, 10, 10)
        let g = TL(0, 0, 10, 10, color: (0.2, 0.4, 0.6, 1))
        set(CALayerSetFilters, g, list(filter("CIColorControls", [("inputBrightness", num(0.1)),
                                                                               ("inputContrast", num(2))])))
        root.add(g)
        let pb = renderCPU(root, 10, 10)
        defer { CVPixelBufferRelease(pb) }
        // ((c + 0.1) - 0.5) * 2 + 0.5: 0.2 -> 0.1, 0.4 -> 0.5, 0.6 -> 0.9.
        let p = pixel(pb, 5, 5)
        #expect(abs(p.0 - 26) <= 1 && abs(p.1 - 128) <= 1 && abs(p.2 - 230) <= 1 && p.3 == 255, "\(p)")
    }

    /// CIColorMatrix: rows dot (R, G, B, A) plus bias, here swapping red and
    /// blue and adding 0.2 green; alpha halved through the A vector.
    @Test func colorMatrix() {
        let root = TL(0, 0, 10, 10)
        let g = TL(0, 0, 10, 10, color: (1, 0, 0.4, 1))
        set(CALayerSetFilters, g, list(filter("CIColorMatrix", [
            ("inputRVector", vec(0, 0, 1, 0)), ("inputGVector", vec(0, 1, 0, 0)), ("inputBVector", vec(1, 0, 0, 0)),
            ("inputAVector", vec(0, 0, 0, 0.5)), ("inputBiasVector", vec(0, 0.2, 0, 0))])))
        root.add(g)
        let pb = renderCPU(root, 10, 10)
        defer { CVPixelBufferRelease(pb) }
        // Straight (0.4, 0.2, 1) at alpha 0.5, premultiplied: (51, 26, 128, 128).
        let p = pixel(pb, 5, 5)
        #expect(abs(p.0 - 51) <= 1 && abs(p.1 - 26) <= 1 && abs(p.2 - 128) <= 1 && abs(p.3 - 128) <= 1, "\(p)")
    }

    /// The backdrops' reduced-resolution blur (sigma >= 8) stays within 2%
    /// of full scale of the full-resolution blur, on squares and edges of
    /// every colour, for sigmas either side of the reductions' thresholds.
    @Test func reducedBlurMatchesTheFullBlur() {
        for sigma in [8.0, 12.0, 16.0, 30.0] {
            let w = 240, h = 200
            guard let a = Bitmap(width: w, height: h), let b = Bitmap(width: w, height: h) else { Issue.record("alloc"); return }
            for y in 0..<h {
                for x in 0..<w {
                    // Checks of 37 px in three colours, half-transparent in one band.
                    let c = ((x / 37) + (y / 37)) % 3
                    var p: UInt32 = c == 0 ? 0xFFFF_0000 : (c == 1 ? 0xFF00_C000 : 0xFF20_40FF)
                    if y >= 150 { p = scalePixel(p, 128) }
                    a.surface.row(y)[x] = p
                    b.surface.row(y)[x] = p
                }
            }
            gaussianBlur(surface: a.surface, sigma: sigma)
            gaussianBlurReduced(surface: b.surface, sigma: sigma)
            var worst: UInt32 = 0
            // (Away from the borders, where the two treat the outside differently.)
            let m = Int(3 * sigma)
            for y in m..<(h - m) {
                for x in m..<(w - m) {
                    let p = a.surface.row(y)[x], q = b.surface.row(y)[x]
                    for shift in stride(from: UInt32(0), through: 24, by: 8) {
                        let u = (p >> shift) & 0xFF, v = (q >> shift) & 0xFF
                        worst = max(worst, u > v ? u - v : v - u)
                    }
                }
            }
            #expect(worst <= 5, "sigma \(sigma): worst \(worst)/255")
        }
    }

    // MARK: - Backdrop

    /// A rounded card with a backdrop blur over a black/white step: inside
    /// the card the step is blurred (about 50% beside the edge), outside the
    /// card and in its cut corners the step stays sharp.
    @Test func backdropBlurIsClippedToTheRoundedCard() {
        let root = TL(0, 0, 100, 100, color: (0, 0, 0, 1))
        root.add(TL(50, 0, 50, 100, color: (1, 1, 1, 1)))
        let card = TL(20, 20, 60, 60)
        CALayerSetCornerRadius(card.ref, 20)
        set(CALayerSetBackgroundFilters, card, list(filter("CIGaussianBlur", [("inputRadius", num(4))])))
        root.add(card)
        let pb = renderCPU(root, 100, 100)
        defer { CVPixelBufferRelease(pb) }
        let a = pixel(pb, 49, 50), b = pixel(pb, 50, 50)
        #expect(abs(Double(a.0 + b.0) / 2 - 127.5) <= 3 && a.0 > 90 && b.0 < 165, "\(a) \(b)")
        // Outside the card: sharp.
        #expect(pixel(pb, 49, 10) == (0, 0, 0, 255) && pixel(pb, 50, 10) == (255, 255, 255, 255))
        // In the card's top-right cut corner (outside the rounding): untouched white.
        #expect(pixel(pb, 78, 21) == (255, 255, 255, 255))
        // Inside, near the blur's reach limit the step is unchanged.
        #expect(pixel(pb, 25, 50) == (0, 0, 0, 255))
    }

    /// Damage: a change beside the card, within the blur's reach but outside
    /// the card, redraws the card too; the incremental frame equals a fresh one.
    @Test func backdropRedrawsWhenWhatItReadsChanges() {
        let root = TL(0, 0, 120, 80, color: (0, 0, 0, 1))
        let side = TL(84, 10, 20, 60, color: (1, 0, 0, 1))
        root.add(side)
        let card = TL(20, 10, 60, 60)
        set(CALayerSetBackgroundFilters, card, list(filter("CIGaussianBlur", [("inputRadius", num(6))])))
        root.add(card)
        let _ = RenderClock(1000)
        let pb = makeBuffer(120, 80)
        defer { CVPixelBufferRelease(pb) }
        let r = CARendererCreate(pb, nil)!
        defer { CARelease(UnsafeRawPointer(r)) }
        CARendererSetLayer(r, root.ref)
        func frame(_ t: Double) { CARendererBeginFrameAtTime(r, t, nil); CARendererRender(r); CARendererEndFrame(r) }
        frame(1000)
        let before = pixel(pb, 78, 40)
        CATransactionBegin(); CATransactionSetDisableActions(true)
        let col = CGColorCreateSRGB(0, 0, 1, 1); CALayerSetBackgroundColor(side.ref, col); CGColorRelease(col)
        CATransactionCommit()
        frame(1001)
        let fresh = renderCPU(root, 120, 80)
        defer { CVPixelBufferRelease(fresh) }
        #expect(before.0 > 0)                       // red reached into the card
        #expect(pixel(pb, 78, 40) == pixel(fresh, 78, 40))
        var differ = 0
        for y in 0..<80 { for x in 0..<120 where pixel(pb, x, y) != pixel(fresh, x, y) { differ += 1 } }
        #expect(differ == 0)
    }

    /// Setting a filter on a still tree redraws it (the tree's fingerprint
    /// covers the filter values).
    @Test func settingAFilterRedrawsAStillTree() {
        let root = TL(0, 0, 20, 20, color: (1, 1, 1, 1))
        let a = TL(0, 0, 20, 20, color: (0.5, 0.5, 0.5, 1))
        root.add(a)
        let _ = RenderClock(1000)
        let pb = makeBuffer(20, 20)
        defer { CVPixelBufferRelease(pb) }
        let r = CARendererCreate(pb, nil)!
        defer { CARelease(UnsafeRawPointer(r)) }
        CARendererSetLayer(r, root.ref)
        func frame(_ t: Double) { CARendererBeginFrameAtTime(r, t, nil); CARendererRender(r); CARendererEndFrame(r) }
        frame(1000)
        #expect(pixel(pb, 5, 5) == (128, 128, 128, 255))
        CATransactionBegin(); CATransactionSetDisableActions(true)
        set(CALayerSetCompositingFilter, a, Value(string: "differenceBlendMode"))
        CATransactionCommit()
        frame(1001)
        #expect(pixel(pb, 5, 5) == (127, 127, 127, 255))   // |255 - 128|
        CATransactionBegin(); CATransactionSetDisableActions(true)
        set(CALayerSetFilters, a, list(filter("CIColorControls", [("inputBrightness", num(-1))])))
        CATransactionCommit()
        frame(1002)
        #expect(pixel(pb, 5, 5) == (255, 255, 255, 255))   // black, then |255 - 0|
    }

    /// A filter's inputs animate (filters is animatable): a basic animation
    /// between two blurs with the same keys gives the radius in between,
    /// and the filter arrays' other entries ride along.
    @Test func filterInputsAnimate() {
        let clock = RenderClock(10)
        defer { withExtendedLifetime(clock) {} }
        let root = TL(0, 0, 40, 40, color: (1, 1, 1, 1))
        let a = TL(5, 5, 20, 20, color: (1, 0, 0, 1))
        root.add(a)
        let from = list(filter("CIGaussianBlur", [("inputRadius", num(2))]), filter("CIColorControls", [("inputSaturation", num(1))]))
        let to = list(filter("CIGaussianBlur", [("inputRadius", num(6))]), filter("CIColorControls", [("inputSaturation", num(0))]))
        let anim = CABasicAnimationCreate("filters")!
        withExtendedLifetime((from, to)) {
            CABasicAnimationSetFromValue(anim, borrowedHandle(from)); CABasicAnimationSetToValue(anim, borrowedHandle(to))
        }
        CAAnimationSetDuration(anim, 2)
        CALayerAddAnimation(a.ref, anim, "blur")
        CARelease(UnsafeRawPointer(anim))
        let pb = makeBuffer(40, 40)
        defer { CVPixelBufferRelease(pb) }
        let r = CARendererCreate(pb, nil)!
        defer { CARelease(UnsafeRawPointer(r)) }
        CARendererSetLayer(r, root.ref)
        CARendererBeginFrameAtTime(r, 10.5, nil)   // a quarter of the way
        let dl = QZRendererCopyDrawList(r)!
        defer { CARelease(UnsafeRawPointer(dl)) }
        CARendererEndFrame(r)
        var found = false
        for i in 0..<QZDrawListGetCount(dl) {
            guard let f = QZDrawListCopyOperationFilters(dl, i) else { continue }
            let v = Unmanaged<Value>.fromOpaque(UnsafeRawPointer(f)).takeRetainedValue()
            guard case .array(let items) = v.storage, items.count == 2,
                  case .dictionary(let blur) = items[0].storage, case .dictionary(let cc) = items[1].storage else { continue }
            #expect(abs((blur["inputRadius"]?.number ?? 0) - 3) < 1e-6)      // 2 + (6 - 2) / 4
            #expect(abs((cc["inputSaturation"]?.number ?? 0) - 0.75) < 1e-6)
            found = true
        }
        #expect(found)
    }

    /// A filter named for key paths: {"name": "blur", "CIAttributeFilterName":
    /// "CIGaussianBlur", ...} is "blur" in "filters.blur.inputRadius"; an
    /// unnamed one answers to its type's name; an input not given reads as
    /// Core Image's default; setting one replaces it in the array (checked
    /// as the whole array is); unknown filters and inputs are errors.
    @Test func filterKeyPathsSetAndGet() {
        QZClearLastError()
        let l = TL(0, 0, 10, 10)
        var blur = ValueDictionary()
        blur.set(Value(string: "blur"), for: "name")
        blur.set(Value(string: "CIGaussianBlur"), for: "CIAttributeFilterName")
        blur.set(num(4), for: "inputRadius")
        set(CALayerSetFilters, l, list(Value(.dictionary(blur)), Value(string: "CIColorControls")))
        #expect(QZGetLastError() == QZErrorNone)
        #expect(CALayerGetNumberForKeyPath(l.ref, "filters.blur.inputRadius") == 4)
        #expect(CALayerGetNumberForKeyPath(l.ref, "filters.CIColorControls.inputSaturation") == 1)   // default
        #expect(CALayerGetNumberForKeyPath(l.ref, "filters.CIColorControls.inputContrast") == 1)
        CALayerSetNumberForKeyPath(l.ref, "filters.blur.inputRadius", 7)
        #expect(QZGetLastError() == QZErrorNone)
        CALayerSetNumberForKeyPath(l.ref, "filters.CIColorControls.inputSaturation", 0.25)
        #expect(QZGetLastError() == QZErrorNone)
        #expect(CALayerGetNumberForKeyPath(l.ref, "filters.blur.inputRadius") == 7)
        #expect(CALayerGetNumberForKeyPath(l.ref, "filters.CIColorControls.inputSaturation") == 0.25)
        // The array holds the new inputs, the names and types as they were.
        let v = Unmanaged<Value>.fromOpaque(UnsafeRawPointer(CALayerGetFilters(l.ref)!)).takeUnretainedValue()
        guard case .array(let items) = v.storage, items.count == 2, case .dictionary(let a) = items[0].storage,
              case .dictionary(let b) = items[1].storage else { Issue.record("filters: \(v)"); return }
        #expect(a["name"]?.string == "blur" && a["CIAttributeFilterName"]?.string == "CIGaussianBlur")
        #expect(a["inputRadius"]?.number == 7)
        #expect(b["name"]?.string == "CIColorControls" && b["inputSaturation"]?.number == 0.25)
        // Bad key paths and values: an error, nothing changed.
        CALayerSetNumberForKeyPath(l.ref, "filters.nothing.inputRadius", 3)
        #expect(QZGetLastError() == QZErrorInvalidArgument)
        CALayerSetNumberForKeyPath(l.ref, "filters.blur.inputAngle", 3)
        #expect(QZGetLastError() == QZErrorInvalidArgument)
        CALayerSetNumberForKeyPath(l.ref, "filters.blur.inputRadius", -1)
        #expect(QZGetLastError() == QZErrorInvalidArgument)
        CALayerSetNumberForKeyPath(l.ref, "filters.blur.inputRadius", .nan)
        #expect(QZGetLastError() == QZErrorNotFinite)
        #expect(CALayerGetNumberForKeyPath(l.ref, "filters.blur.inputRadius") == 7)
        #expect(CALayerGetNumberForKeyPath(l.ref, "filters.nothing.inputRadius") == 0)
        // backgroundFilters likewise; a layer without filters has none to name.
        QZClearLastError()
        set(CALayerSetBackgroundFilters, l, list(filter("CIGaussianBlur", [("inputRadius", num(2))])))
        CALayerSetNumberForKeyPath(l.ref, "backgroundFilters.CIGaussianBlur.inputRadius", 12)
        #expect(QZGetLastError() == QZErrorNone)
        #expect(CALayerGetNumberForKeyPath(l.ref, "backgroundFilters.CIGaussianBlur.inputRadius") == 12)
        let bare = TL(0, 0, 10, 10)
        CALayerSetNumberForKeyPath(bare.ref, "filters.blur.inputRadius", 3)
        #expect(QZGetLastError() == QZErrorInvalidArgument)
        #expect(CALayerGetFilters(bare.ref) == nil)
    }

    /// A basic animation of "filters.blur.inputRadius" (and of
    /// "backgroundFilters.frost.inputRadius"): the presentation layer has
    /// the interpolated radius, the draw list carries it, and the frame is
    /// the frame of a still layer with that radius.
    @Test func filterKeyPathsAnimate() {
        let clock = RenderClock(10)
        defer { withExtendedLifetime(clock) {} }
        func named(_ name: String, _ radius: Double) -> Value {
            var d = ValueDictionary()
            d.set(Value(string: name), for: "name")
            d.set(Value(string: "CIGaussianBlur"), for: "CIAttributeFilterName")
            d.set(num(radius), for: "inputRadius")
            return list(Value(.dictionary(d)))
        }
        func scene(blur: Double, frost: Double) -> (TL, TL, TL) {
            let root = TL(0, 0, 48, 48, color: (1, 1, 1, 1))
            for i in 0..<6 { root.add(TL(Double(8 * i), 0, 4, 48, color: (0, 0, 1, 1))) }
            let a = TL(4, 4, 16, 16, color: (1, 0, 0, 1))
            set(CALayerSetFilters, a, named("blur", blur))
            let card = TL(22, 22, 22, 22, color: (1, 1, 1, 0.2))
            CALayerSetCornerRadius(card.ref, 6)
            set(CALayerSetBackgroundFilters, card, named("frost", frost))
            root.add(a)
            root.add(card)
            return (root, a, card)
        }
        let (root, a, card) = scene(blur: 1, frost: 1)
        QZClearLastError()
        for (layer, path, from, to) in [(a, "filters.blur.inputRadius", 2.0, 6.0),
                                        (card, "backgroundFilters.frost.inputRadius", 0.0, 8.0)] {
            let anim = CABasicAnimationCreate(path)!
            let f = num(from), t = num(to)
            withExtendedLifetime((f, t)) {
                CABasicAnimationSetFromValue(anim, borrowedHandle(f)); CABasicAnimationSetToValue(anim, borrowedHandle(t))
            }
            CAAnimationSetDuration(anim, 2)
            CALayerAddAnimation(layer.ref, anim, "radius")
            #expect(QZGetLastError() == QZErrorNone)
            CARelease(UnsafeRawPointer(anim))
        }
        CATransactionFlush()
        clock.set(10.5)   // a quarter of the way: 3 and 2
        let pa = CALayerCopyPresentationLayer(a.ref)!
        #expect(abs(CALayerGetNumberForKeyPath(pa, "filters.blur.inputRadius") - 3) < 1e-9)
        CARelease(UnsafeRawPointer(pa))
        let pc = CALayerCopyPresentationLayer(card.ref)!
        #expect(abs(CALayerGetNumberForKeyPath(pc, "backgroundFilters.frost.inputRadius") - 2) < 1e-9)
        CARelease(UnsafeRawPointer(pc))
        #expect(CALayerGetNumberForKeyPath(a.ref, "filters.blur.inputRadius") == 1)   // the model keeps its value
        let pb = makeBuffer(48, 48)
        defer { CVPixelBufferRelease(pb) }
        let r = CARendererCreate(pb, nil)!
        defer { CARelease(UnsafeRawPointer(r)) }
        CARendererSetLayer(r, root.ref)
        CARendererBeginFrameAtTime(r, 10.5, nil)
        let dl = QZRendererCopyDrawList(r)!
        var radii: [Double] = []
        for i in 0..<QZDrawListGetCount(dl) {
            guard let fv = QZDrawListCopyOperationFilters(dl, i) else { continue }
            let v = Unmanaged<Value>.fromOpaque(UnsafeRawPointer(fv)).takeRetainedValue()
            if case .array(let items) = v.storage, case .dictionary(let d) = items.first?.storage {
                radii.append(d["inputRadius"]?.number ?? -1)
            }
        }
        CARelease(UnsafeRawPointer(dl))
        CARendererRender(r)
        CARendererEndFrame(r)
        #expect(radii.sorted() == [2, 3])
        let (still, _, _) = scene(blur: 3, frost: 2)
        let expected = renderCPU(still, 48, 48)
        defer { CVPixelBufferRelease(expected) }
        var same = true
        for y in 0..<48 { for x in 0..<48 where pixel(pb, x, y) != pixel(expected, x, y) { same = false } }
        #expect(same)
        // Different from the model's radius 1 (the animation is drawn).
        let (model, _, _) = scene(blur: 1, frost: 1)
        let unanimated = renderCPU(model, 48, 48)
        defer { CVPixelBufferRelease(unanimated) }
        #expect(pixel(pb, 4, 12) != pixel(unanimated, 4, 12))
    }

    /// Extreme but finite inputs are accepted and drawn without a crash:
    /// a radius of 1e300 (capped at 128 pixels), a matrix of 1e300s (clamped
    /// colours), saturation -1e30, a rotated, perspective backdrop, a filtered
    /// layer far outside the target.
    @Test func extremeInputsDrawWithoutCrashing() {
        let root = TL(0, 0, 64, 64, color: (0.2, 0.4, 0.6, 1))
        let a = TL(4, 4, 20, 20, color: (1, 0, 0, 1))
        set(CALayerSetFilters, a, list(filter("CIGaussianBlur", [("inputRadius", num(1e300))])))
        let b = TL(30, 4, 20, 20, color: (0, 1, 0, 1))
        set(CALayerSetFilters, b, list(filter("CIColorMatrix", [("inputRVector", vec(1e300, -1e300, 1e300, 1e300)),
                                                                ("inputBiasVector", vec(-1e300, 0, 0, 0))]),
                                       filter("CIColorControls", [("inputSaturation", num(-1e30)), ("inputContrast", num(1e30))])))
        let c = TL(10, 30, 30, 30)
        var t = CATransform3DIdentity
        t.m34 = -1.0 / 100
        CALayerSetTransform(c.ref, CATransform3DRotate(t, 1.2, 1, 1, 0))
        CALayerSetCornerRadius(c.ref, 1e9)
        set(CALayerSetBackgroundFilters, c, list(filter("CIGaussianBlur", [("inputRadius", num(3))])))
        let far = TL(1e7, 1e7, 1e6, 1e6, color: (1, 1, 1, 1))
        set(CALayerSetFilters, far, list(filter("CIGaussianBlur", [("inputRadius", num(50))])))
        set(CALayerSetCompositingFilter, far, Value(string: "copy"))
        root.add(a); root.add(b); root.add(c); root.add(far)
        clearLastError()
        let pb = renderCPU(root, 64, 64)
        defer { CVPixelBufferRelease(pb) }
        #expect(lastErrorCode() == QZErrorNone)
        // Premultiplied pixels stay valid: no colour above its alpha.
        for y in 0..<64 { for x in 0..<64 { let p = pixel(pb, x, y); #expect(max(p.0, p.1, p.2) <= p.3) } }
        // The background far from everything (the 128-pixel blur of the red
        // square leaves a faint wash of about 1/255 here).
        let bg = pixel(pb, 60, 60)
        #expect(abs(bg.0 - 51) <= 2 && abs(bg.1 - 102) <= 2 && abs(bg.2 - 153) <= 2 && bg.3 == 255, "\(bg)")
    }

    // MARK: - Draw list

    @Test func drawListCarriesBlendModeAndFilters() {
        let root = TL(0, 0, 50, 50, color: (1, 1, 1, 1))
        let a = TL(5, 5, 20, 20, color: (1, 0, 0, 1))
        set(CALayerSetCompositingFilter, a, Value(string: "differenceBlendMode"))
        set(CALayerSetFilters, a, list(filter("CIGaussianBlur", [("inputRadius", num(2))])))
        let b = TL(25, 25, 20, 20)
        set(CALayerSetBackgroundFilters, b, list(Value(string: "CIColorControls")))
        root.add(a); root.add(b)
        let pb = makeBuffer(50, 50)
        defer { CVPixelBufferRelease(pb) }
        let r = CARendererCreate(pb, nil)!
        defer { CARelease(UnsafeRawPointer(r)) }
        CARendererSetLayer(r, root.ref)
        CARendererBeginFrameAtTime(r, 0, nil)
        let dl = QZRendererCopyDrawList(r)!
        defer { CARelease(UnsafeRawPointer(dl)) }
        CARendererEndFrame(r)
        var kinds: [UInt32] = [], group = QZDrawOperation(), groupIndex = -1, backdropIndex = -1
        for i in 0..<QZDrawListGetCount(dl) {
            var op = QZDrawOperation()
            #expect(QZDrawListGetOperation(dl, i, &op))
            kinds.append(op.kind)
            if op.kind == QZDrawOperationBeginGroup.rawValue { group = op; groupIndex = i }
            if op.kind == QZDrawOperationBackdrop.rawValue { backdropIndex = i }
        }
        #expect(kinds == [1, 7, 1, 9, 12])
        #expect(group.blendMode == UInt32(QZBlendModeDifference))
        // The group's extent grows by the blur's reach.
        #expect(group.bounds.minX < 5 && group.bounds.maxX > 25)
        let f = QZDrawListCopyOperationFilters(dl, groupIndex).map { Unmanaged<Value>.fromOpaque(UnsafeRawPointer($0)).takeRetainedValue() }
        guard case .array(let items)? = f?.storage, case .dictionary(let d) = items.first?.storage else {
            Issue.record("no filters"); return
        }
        #expect(d["name"]?.string == "CIGaussianBlur" && d["inputRadius"]?.number == 2)
        let bf = QZDrawListCopyOperationFilters(dl, backdropIndex).map { Unmanaged<Value>.fromOpaque(UnsafeRawPointer($0)).takeRetainedValue() }
        guard case .array(let bitems)? = bf?.storage, case .dictionary(let bd) = bitems.first?.storage else {
            Issue.record("no backdrop filters"); return
        }
        #expect(bd["name"]?.string == "CIColorControls" && bd["inputSaturation"]?.number == 1 && bd["inputContrast"]?.number == 1)
        clearLastError()
        #expect(QZDrawListCopyOperationFilters(dl, 0) == nil && lastErrorCode() == QZErrorNone)
        #expect(QZDrawListCopyOperationFilters(dl, 99) == nil && lastErrorCode() == QZErrorOutOfRange)
    }

    /// A style dictionary's filters are not checked when set: an unknown
    /// name there is skipped when drawing, never a crash.
    @Test func unreadableStyleFiltersAreSkipped() {
        let root = TL(0, 0, 10, 10, color: (0, 0, 1, 1))
        let a = TL(0, 0, 10, 10, color: (1, 0, 0, 1))
        var style = ValueDictionary()
        style.set(list(filter("CINope")), for: "filters")
        style.set(Value(string: "nopeBlendMode"), for: "compositingFilter")
        set(CALayerSetStyle, a, Value(.dictionary(style)))
        root.add(a)
        let pb = renderCPU(root, 10, 10)
        #expect(pixel(pb, 5, 5) == (255, 0, 0, 255))
        CVPixelBufferRelease(pb)
    }

    // MARK: - Golden scenes

    /// Each compositing filter: a row of colour bars under a translucent
    /// gradient-like pair of squares composited with the mode.
    @Test func goldenCompositingFilters() {
        let modes = CompositingMode.names.filter { $0.key.hasSuffix("BlendMode") && !$0.key.hasPrefix("CI") }
            .sorted { $0.value.rawValue < $1.value.rawValue }.map { $0.key }
            + ["sourceIn", "sourceOut", "sourceAtop", "destOver", "destIn", "destOut", "destAtop", "xor", "plusL", "plusD", "copy", "clear"]
        let cols = 7, cell = 40
        let rows = (modes.count + cols - 1) / cols
        let root = TL(0, 0, Double(cols * cell), Double(rows * cell), color: (0.5, 0.5, 0.5, 1))
        for (i, m) in modes.enumerated() {
            let x = Double((i % cols) * cell), y = Double((i / cols) * cell)
            let tile = TL(x + 2, y + 2, Double(cell - 4), Double(cell - 4))
            tile.add(TL(0, 0, 12, 36, color: (0.9, 0.2, 0.1, 1)))
            tile.add(TL(12, 0, 12, 36, color: (0.1, 0.7, 0.3, 0.6)))
            tile.add(TL(24, 0, 12, 36, color: (0.2, 0.3, 0.9, 1)))
            let top = TL(4, 6, 28, 24, color: (0.95, 0.85, 0.2, 0.8))
            CALayerSetCornerRadius(top.ref, 8)
            set(CALayerSetCompositingFilter, top, Value(string: m))
            tile.add(top)
            root.add(tile)
        }
        let pb = renderCPU(root, cols * cell, rows * cell)
        checkGolden("compositing_filters", pb)
        CVPixelBufferRelease(pb)
    }

    /// A frosted card: a backdrop blur behind a rounded, translucent white
    /// card over stripes, plus a colour-controlled and a blurred layer.
    @Test func goldenBackdropBlur() {
        let root = TL(0, 0, 160, 120, color: (0.1, 0.1, 0.2, 1))
        for i in 0..<8 {
            let c: (Double, Double, Double, Double) = i % 2 == 0 ? (0.9, 0.5, 0.1, 1) : (0.1, 0.6, 0.9, 1)
            root.add(TL(Double(i * 20), 0, 10, 120, color: c))
        }
        let card = TL(20, 20, 90, 70, color: (1, 1, 1, 0.25))
        CALayerSetCornerRadius(card.ref, 16)
        set(CALayerSetBackgroundFilters, card, list(filter("CIGaussianBlur", [("inputRadius", num(5))]),
                                                                  filter("CIColorControls", [("inputSaturation", num(1.5))])))
        root.add(card)
        let grey = TL(118, 10, 36, 36, color: (0.9, 0.3, 0.2, 1))
        set(CALayerSetFilters, grey, list(filter("CIColorControls", [("inputSaturation", num(0))])))
        root.add(grey)
        let soft = TL(118, 70, 36, 36, color: (0.2, 0.9, 0.3, 1))
        CALayerSetCornerRadius(soft.ref, 6)
        set(CALayerSetFilters, soft, list(filter("CIGaussianBlur", [("inputRadius", num(3))])))
        root.add(soft)
        let pb = renderCPU(root, 160, 120)
        checkGolden("backdrop_blur", pb)
        CVPixelBufferRelease(pb)
    }
}
