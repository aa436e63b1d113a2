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

// Helpers for text tests: the pinned fonts, text layers made through the C
// API, attributed strings, and reading pixels of drawn text.

/// Tests/fonts/fonts.conf: the only fonts text tests and golden images use
/// (Liberation, DejaVu Sans, Lohit Devanagari), whatever else is installed.
let testFontsConfiguration: String = {
    var p = #filePath
    while let slash = p.lastIndex(of: "/"), !p.hasSuffix("/Tests") { p = String(p[..<slash]) }
    return p + "/fonts/fonts.conf"
}()

private let fontsPinned: Bool = QZTextSetFontConfigurationFile(testFontsConfiguration)

/// Loads the test font configuration (once per process).
func pinTestFonts() {
    #expect(fontsPinned, "could not load \(testFontsConfiguration)")
}

/// A string value (+0 for the caller: released by `body`'s end).
func withStringValue<R>(_ s: String, _ body: (CAValueRef) -> R) -> R {
    let v = CAValueCreateString(s)!
    defer { CARelease(UnsafeRawPointer(v)) }
    return body(v)
}

/// A CATextLayer made with CATextLayerCreate.
final class TextL {
    let ref: CALayerRef
    init(_ x: Double, _ y: Double, _ w: Double, _ h: Double, _ string: String? = nil, font: String? = nil, size: Double? = nil,
         color: (Double, Double, Double, Double)? = nil, background: (Double, Double, Double, Double)? = nil) {
        ref = CATextLayerCreate()!
        CALayerSetFrame(ref, CGRect(x: x, y: y, width: w, height: h))
        if let string { withStringValue(string) { CATextLayerSetString(ref, $0) } }
        if let font { withStringValue(font) { CATextLayerSetFont(ref, $0) } }
        if let size { CATextLayerSetFontSize(ref, size) }
        if let c = color {
            let col = CGColorCreateSRGB(c.0, c.1, c.2, c.3)
            CATextLayerSetForegroundColor(ref, col)
            CGColorRelease(col)
        }
        if let b = background {
            let col = CGColorCreateSRGB(b.0, b.1, b.2, b.3)
            CALayerSetBackgroundColor(ref, col)
            CGColorRelease(col)
        }
    }
    deinit { CARelease(UnsafeRawPointer(ref)) }

    func set(alignment: String) { CATextLayerSetAlignmentMode(ref, alignment) }
    func set(truncation: String) { CATextLayerSetTruncationMode(ref, truncation) }
    func set(wrapped: Bool) { CATextLayerSetWrapped(ref, wrapped) }
    func set(scale: Double) { CALayerSetContentsScale(ref, scale) }

    /// The backing store after a commit (nil when nothing was drawn).
    var contents: QZCVPixelBufferRef? {
        CALayerGetContents(ref).map { OpaquePointer($0) }
    }
}

extension TL {
    func add(_ sub: TextL) { CALayerAddSublayer(ref, sub.ref) }
}

/// An attributed string of `runs` (text, font name, size, RGBA colour,
/// underline style), +1.
func makeAttributed(_ runs: [(String, String, Double, (Double, Double, Double, Double), Int32)]) -> QZCFMutableAttributedStringRef {
    let s = CFAttributedStringCreateMutable(nil, 0)!
    for (text, font, size, c, underline) in runs {
        let start = CFAttributedStringGetLength(s)
        CFAttributedStringReplaceString(s, CFRange(location: start, length: 0), text)
        let range = CFRange(location: start, length: CFAttributedStringGetLength(s) - start)
        let f = CTFontCreateWithName(font, size, nil)!
        CFAttributedStringSetAttribute(s, range, kCTFontAttributeName, UnsafeRawPointer(f))
        CARelease(UnsafeRawPointer(f))
        let col = CGColorCreateSRGB(c.0, c.1, c.2, c.3)!
        CFAttributedStringSetAttribute(s, range, kCTForegroundColorAttributeName, UnsafeRawPointer(col))
        CGColorRelease(col)
        if underline != 0 {
            let u = CAValueCreateNumber(Double(underline))!
            CFAttributedStringSetAttribute(s, range, kCTUnderlineStyleAttributeName, UnsafeRawPointer(u))
            CARelease(UnsafeRawPointer(u))
        }
    }
    return s
}

/// The box of pixels whose alpha (or, with `against`, distance from that
/// colour) exceeds `threshold`: (minX, minY, maxX, maxY), or nil.
func inkBox(_ pb: QZCVPixelBufferRef, threshold: Int = 40,
            against: (Int, Int, Int)? = nil) -> (Int, Int, Int, Int)? {
    let w = CVPixelBufferGetWidth(pb), h = CVPixelBufferGetHeight(pb)
    var box: (Int, Int, Int, Int)? = nil
    for y in 0..<h {
        for x in 0..<w {
            let p = pixel(pb, x, y)
            let ink: Int
            if let b = against { ink = max(abs(p.0 - b.0), abs(p.1 - b.1), abs(p.2 - b.2)) } else { ink = p.3 }
            guard ink > threshold else { continue }
            if let b = box { box = (min(b.0, x), min(b.1, y), max(b.2, x), max(b.3, y)) } else { box = (x, y, x, y) }
        }
    }
    return box
}
