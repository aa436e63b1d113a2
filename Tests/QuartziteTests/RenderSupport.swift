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

// Helpers for renderer tests: layers built through the C API, pixel buffers,
// pixel reads, and golden-image comparison.

/// A layer made with CALayerCreate, released with the wrapper.
final class TL {
    let ref: CALayerRef
    init(_ x: Double, _ y: Double, _ w: Double, _ h: Double, color: (Double, Double, Double, Double)? = nil) {
        ref = CALayerCreate()!
        CALayerSetFrame(ref, CGRect(x: x, y: y, width: w, height: h))
        if let c = color { background(c) }
    }
    deinit { CARelease(UnsafeRawPointer(ref)) }

    @discardableResult func background(_ c: (Double, Double, Double, Double)) -> TL {
        let col = CGColorCreateSRGB(c.0, c.1, c.2, c.3)
        CALayerSetBackgroundColor(ref, col)
        CGColorRelease(col)
        return self
    }
    func add(_ sub: TL) { CALayerAddSublayer(ref, sub.ref) }
}

/// A premultiplied 32BGRA buffer (+1).
func makeBuffer(_ w: Int, _ h: Int) -> QZCVPixelBufferRef {
    var pb: QZCVPixelBufferRef?
    let r = CVPixelBufferCreate(nil, w, h, OSType(kCVPixelFormatType_32BGRA), nil, &pb)
    precondition(r == 0 && pb != nil)
    return pb!
}

/// A w x h test image: four coloured quadrants (red top-left, green top-right,
/// blue bottom-left, yellow bottom-right) with a 1-pixel white grid every 8
/// pixels, so orientation, scaling and filtering are all visible.
func makeTestImage(_ w: Int = 32, _ h: Int = 32) -> QZCVPixelBufferRef {
    let pb = makeBuffer(w, h)
    let base = CVPixelBufferGetBaseAddress(pb)!
    let bpr = CVPixelBufferGetBytesPerRow(pb)
    for y in 0..<h {
        for x in 0..<w {
            var c: UInt32
            switch (x < w / 2, y < h / 2) {
            case (true, true): c = 0xFFFF_0000
            case (false, true): c = 0xFF00_C000
            case (true, false): c = 0xFF00_00FF
            case (false, false): c = 0xFFFF_E000
            }
            if x % 8 == 0 || y % 8 == 0 { c = 0xFFFF_FFFF }
            base.storeBytes(of: c, toByteOffset: y * bpr + 4 * x, as: UInt32.self)
        }
    }
    return pb
}

/// The BGRA pixel at (x, y) as (r, g, b, a) bytes.
func pixel(_ pb: QZCVPixelBufferRef, _ x: Int, _ y: Int) -> (Int, Int, Int, Int) {
    let base = CVPixelBufferGetBaseAddress(pb)!
    let p = base.load(fromByteOffset: y * CVPixelBufferGetBytesPerRow(pb) + 4 * x, as: UInt32.self)
    return (Int((p >> 16) & 0xFF), Int((p >> 8) & 0xFF), Int(p & 0xFF), Int(p >> 24))
}

/// Renders `root` at media time `t` through a CARenderer into a new w x h buffer (+1).
func renderScene(_ root: TL, _ w: Int, _ h: Int, at t: Double = 1000) -> QZCVPixelBufferRef {
    let pb = makeBuffer(w, h)
    let r = CARendererCreate(pb, nil)!
    CARendererSetLayer(r, root.ref)
    CARendererBeginFrameAtTime(r, t, nil)
    CARendererRender(r)
    CARendererEndFrame(r)
    CARelease(UnsafeRawPointer(r))
    // Every scene drawn here is also drawn by the GPU renderer and compared
    // (GLTestSupport.swift states the tolerance and the reasons for it).
    GPUParity.check(root.ref, w, h, at: t, cpu: pb)
    return pb
}

let goldenDirectory: String = {
    var p = #filePath
    while let slash = p.lastIndex(of: "/"), !p.hasSuffix("/Tests") { p = String(p[..<slash]) }
    return p + "/golden"
}()

/// Per-channel tolerance of golden comparisons (0...255): small differences
/// in floating-point rounding between compilers and machines are accepted.
let goldenTolerance = 3

/// Compares `pb` with Tests/golden/<name>.png (per channel within
/// goldenTolerance); with QZ_REGENERATE_GOLDEN=1 in the environment, writes it
/// instead. Returns the largest difference found.
@discardableResult
func checkGolden(_ name: String, _ pb: QZCVPixelBufferRef, sourceLocation: SourceLocation = #_sourceLocation) -> Int {
    let path = goldenDirectory + "/" + name + ".png"
    if let v = getenv("QZ_REGENERATE_GOLDEN"), String(cString: v) == "1" {
        #expect(QZPixelBufferWritePNG(pb, path) == 0, sourceLocation: sourceLocation)
        return 0
    }
    var ref: QZCVPixelBufferRef?
    let r = QZPixelBufferCreateWithPNGFile(path, &ref)
    #expect(r == 0 && ref != nil, "missing golden image \(path) (run scripts/regenerate-golden.sh)", sourceLocation: sourceLocation)
    guard let ref else { return 255 }
    defer { CVPixelBufferRelease(ref) }
    let w = CVPixelBufferGetWidth(pb), h = CVPixelBufferGetHeight(pb)
    #expect(CVPixelBufferGetWidth(ref) == w && CVPixelBufferGetHeight(ref) == h, sourceLocation: sourceLocation)
    guard CVPixelBufferGetWidth(ref) == w, CVPixelBufferGetHeight(ref) == h else { return 255 }
    var worst = 0, bad = 0
    for y in 0..<h {
        for x in 0..<w {
            let a = pixel(pb, x, y), b = pixel(ref, x, y)
            let d = max(abs(a.0 - b.0), abs(a.1 - b.1), abs(a.2 - b.2), abs(a.3 - b.3))
            worst = max(worst, d)
            if d > goldenTolerance { bad += 1 }
        }
    }
    #expect(bad == 0, "\(name): \(bad) pixels differ by more than \(goldenTolerance) (worst \(worst))", sourceLocation: sourceLocation)
    return worst
}

/// A renderer showing `root` in a new w x h target; `frame(t)` draws one
/// frame and returns its update bounds (null for an idle frame).
final class FrameDriver {
    let target: QZCVPixelBufferRef
    let renderer: CARendererRef
    init(_ root: TL, _ w: Int, _ h: Int) {
        target = makeBuffer(w, h)
        renderer = CARendererCreate(target, nil)!
        CARendererSetLayer(renderer, root.ref)
    }
    deinit {
        CARelease(UnsafeRawPointer(renderer))
        CVPixelBufferRelease(target)
    }
    func frame(_ t: Double) -> CGRect {
        CARendererBeginFrameAtTime(renderer, t, nil)
        let u = CARendererUpdateBounds(renderer)
        CARendererRender(renderer)
        CARendererEndFrame(renderer)
        return u
    }
}
