import CQuartzite
import CPango
import Glibc
import Testing
@testable import QuartziteCore
@testable import QuartziteGeometry
@testable import QuartziteVideo
@testable import QuartziteGraphics
@testable import QuartziteModel
@testable import QuartziteRender
@testable import Quartzite

// Behaviour of text with expected values computed independently: advances
// read from the font file itself, alignment and truncation read from the
// pixels, line counts predicted from measured word widths; bad input;
// caching (counted layouts and draws).

/// The few TrueType tables a test needs to compute advances itself: cmap
/// (format 4), hmtx, and the kern table's format 0 pairs. Test-only: the
/// library never parses fonts (HarfBuzz and FreeType do).
struct TrueTypeFile {
    let data: [UInt8]
    var tables: [String: (Int, Int)] = [:]

    init?(path: String) {
        guard let f = fopen(path, "rb") else { return nil }
        defer { fclose(f) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&buffer, 1, buffer.count, f)
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        data = bytes
        let count = u16(4)
        for i in 0..<count {
            let o = 12 + 16 * i
            let tag = String(decoding: data[o..<o + 4], as: UTF8.self)
            tables[tag] = (u32(o + 8), u32(o + 12))
        }
    }

    func u16(_ o: Int) -> Int { Int(data[o]) << 8 | Int(data[o + 1]) }
    func s16(_ o: Int) -> Int { Int(Int16(bitPattern: UInt16(u16(o)))) }
    func u32(_ o: Int) -> Int { u16(o) << 16 | u16(o + 2) }

    var unitsPerEm: Int { u16(tables["head"]!.0 + 18) }

    /// The glyph of `c` from the Unicode BMP cmap subtable (format 4).
    func glyph(_ c: Character) -> Int {
        let code = Int(c.unicodeScalars.first!.value)
        let cmap = tables["cmap"]!.0
        for i in 0..<u16(cmap + 2) {
            let rec = cmap + 4 + 8 * i
            let sub = cmap + u32(rec + 4)
            guard u16(rec) == 3, u16(rec + 2) == 1, u16(sub) == 4 else { continue }
            let segs = u16(sub + 6) / 2
            let ends = sub + 14, starts = ends + 2 * segs + 2, deltas = starts + 2 * segs, offsets = deltas + 2 * segs
            for s in 0..<segs where code <= u16(ends + 2 * s) {
                guard code >= u16(starts + 2 * s) else { return 0 }
                let ro = u16(offsets + 2 * s)
                if ro == 0 { return (code + s16(deltas + 2 * s)) & 0xFFFF }
                let g = u16(offsets + 2 * s + ro + 2 * (code - u16(starts + 2 * s)))
                return g == 0 ? 0 : (g + s16(deltas + 2 * s)) & 0xFFFF
            }
        }
        return 0
    }

    func advance(_ g: Int) -> Int {
        let metrics = u16(tables["hhea"]!.0 + 34)
        return u16(tables["hmtx"]!.0 + 4 * min(g, metrics - 1))
    }

    /// The kern table's value for a pair (format 0 subtables), 0 if none.
    func kerning(_ left: Int, _ right: Int) -> Int {
        guard let (kern, _) = tables["kern"] else { return 0 }
        var o = kern + 4
        for _ in 0..<u16(kern + 2) {
            let length = u16(o + 2), format = u16(o + 4) >> 8
            if format == 0 {
                let pairs = u16(o + 6)
                for p in 0..<pairs {
                    let e = o + 14 + 6 * p
                    if u16(e) == left && u16(e + 2) == right { return s16(e + 4) }
                }
            }
            o += length
        }
        return 0
    }
}

/// A CTLine of `text` in `font` at `size` (+1 handles released by the caller's scope).
private func lineWidth(_ text: String, _ font: String, _ size: Double) -> Double {
    let s = makeAttributed([(text, font, size, (0, 0, 0, 1), 0)])
    let line = CTLineCreateWithAttributedString(s)!
    let w = CTLineGetTypographicBounds(line, nil, nil, nil)
    CARelease(UnsafeRawPointer(line))
    CARelease(UnsafeRawPointer(s))
    return w
}

private func string(_ v: CAValueRef?) -> String? {
    guard let v, let p = CAValueGetString(v) else { return nil }
    return String(cString: p)
}

@Suite("Text", .serialized)
struct TextTests {
    init() {
        pinTestFonts()
        clearLastError()
    }

    @Test func lineMetricsTakeAnyPangoExtentsWithoutOverflow() {
        // The extents Pango returned in fuzzer seed 1041: y + height overflows Int32.
        let r = PangoRectangle(x: 0, y: -1_800_605_378, width: 153_600, height: -2_143_206_143)
        let m = TextLayout.verticalMetrics(r)
        #expect(m.ascent == 1_800_605_378.0 / 1024)
        #expect(m.descent == -3_943_811_521.0 / 1024)
        let ordinary = TextLayout.verticalMetrics(PangoRectangle(x: 0, y: -12 * 1024, width: 0, height: 15 * 1024))
        #expect(ordinary.ascent == 12 && ordinary.descent == 3)
    }

    // MARK: - Fonts

    @Test func appleNamesResolveToMetricCompatibleFaces() {
        for (name, family) in [("Helvetica", "Liberation Sans"), ("Arial", "Liberation Sans"), ("Helvetica-Bold", "Liberation Sans"),
                               ("Times", "Liberation Serif"), ("Times New Roman", "Liberation Serif"),
                               ("Courier", "Liberation Mono"), ("Menlo", "Liberation Mono"),
                               ("DejaVu Sans", "DejaVu Sans"), ("LiberationSerif-Italic", "Liberation Serif"),
                               ("NoSuchFont", "Liberation Sans"), ("NoSuchFont-Bold", "Liberation Sans")] {
            let f = CTFontCreateWithName(name, 20, nil)!
            let v = CTFontCopyFamilyName(f)
            #expect(string(v) == family, "\(name)")
            CARelease(UnsafeRawPointer(v)); CARelease(UnsafeRawPointer(f))
        }
        // The suffix picks the face.
        let bold = CTFontCreateWithName("Helvetica-Bold", 20, nil)!
        let ps = CTFontCopyPostScriptName(bold)
        #expect(string(ps) == "LiberationSans-Bold")
        CARelease(UnsafeRawPointer(ps)); CARelease(UnsafeRawPointer(bold))
        let unknownBold = CTFontCreateWithName("NoSuchFont-Bold", 20, nil)!
        let ps2 = CTFontCopyPostScriptName(unknownBold)
        #expect(string(ps2) == "LiberationSans-Bold")
        CARelease(UnsafeRawPointer(ps2)); CARelease(UnsafeRawPointer(unknownBold))
    }

    /// Characters Helvetica (Liberation Sans) lacks are drawn by another
    /// installed face: Devanagari by Lohit Devanagari, Arabic by DejaVu Sans
    /// (the pinned fonts), with those faces' advances and shaping.
    @Test func missingGlyphsFallBackToAnotherFace() {
        let devanagari = "नमस्ते", arabic = "مرحبا"
        #expect(abs(lineWidth(devanagari, "Helvetica", 24) - lineWidth(devanagari, "Lohit Devanagari", 24)) < 0.01)
        #expect(abs(lineWidth(arabic, "Helvetica", 24) - lineWidth(arabic, "DejaVu Sans", 24)) < 0.01)
        // Shaped, not one box per character: the conjunct "स्त" is narrower
        // than its three characters drawn apart.
        let apart = lineWidth("स", "Lohit Devanagari", 24) + lineWidth("्", "Lohit Devanagari", 24)
            + lineWidth("त", "Lohit Devanagari", 24)
        #expect(lineWidth("स्त", "Lohit Devanagari", 24) < apart - 1)
    }

    @Test func fontMetricsComeFromTheFace() throws {
        let f = CTFontCreateWithName("Helvetica", 36, nil)!
        defer { CARelease(UnsafeRawPointer(f)) }
        #expect(CTFontGetSize(f) == 36)
        let url = string(CTFontCopyAttribute(f, kCTFontURLAttribute)) ?? ""
        #expect(url.hasSuffix("LiberationSans-Regular.ttf"))
        let file = try #require(TrueTypeFile(path: String(url.dropFirst("file://".count))))
        // hhea ascender and descender, in points.
        let em = Double(file.unitsPerEm)
        let hhea = file.tables["hhea"]!.0
        let ascent = Double(file.s16(hhea + 4)) / em * 36, descent = -Double(file.s16(hhea + 6)) / em * 36
        let lineGap = Double(file.s16(hhea + 8)) / em * 36
        #expect(abs(CTFontGetAscent(f) - ascent) < 0.05, "ascent \(CTFontGetAscent(f)) vs \(ascent)")
        #expect(abs(CTFontGetDescent(f) - descent) < 0.05, "descent \(CTFontGetDescent(f)) vs \(descent)")
        #expect(abs(CTFontGetLeading(f) - lineGap) < 0.05, "leading \(CTFontGetLeading(f)) vs \(lineGap)")
        // Size 0 is Apple's default, 12.
        let d = CTFontCreateWithName("Helvetica", 0, nil)!
        #expect(CTFontGetSize(d) == 12)
        CARelease(UnsafeRawPointer(d))
    }

    /// The advance of "Hello" in Helvetica 36: the sum of the resolved
    /// face's advances plus its kerning, read from the font file here.
    @Test func helloAdvanceMatchesTheFontFile() throws {
        let f = CTFontCreateWithName("Helvetica", 36, nil)!
        let url = string(CTFontCopyAttribute(f, kCTFontURLAttribute)) ?? ""
        CARelease(UnsafeRawPointer(f))
        let file = try #require(TrueTypeFile(path: String(url.dropFirst("file://".count))))
        let glyphs = "Hello".map { file.glyph($0) }
        #expect(!glyphs.contains(0))
        var units = 0
        for (i, g) in glyphs.enumerated() {
            units += file.advance(g)
            if i + 1 < glyphs.count { units += file.kerning(g, glyphs[i + 1]) }
        }
        let expected = Double(units) / Double(file.unitsPerEm) * 36
        let measured = lineWidth("Hello", "Helvetica", 36)
        #expect(abs(measured - expected) <= 1, "CTLine \(measured) vs font file \(expected)")
        // CATextLayer lays it out the same way.
        let label = TextL(0, 0, 300, 60, "Hello", font: "Helvetica", size: 36)
        let preferred = CALayerGetPreferredFrameSize(label.ref)
        #expect(abs(preferred.width - expected) <= 1, "preferredFrameSize \(preferred.width) vs \(expected)")
        // Kerning applies: "AV" is narrower than A and V apart (the font kerns the pair).
        let a = file.glyph("A"), v = file.glyph("V")
        let kernAV = Double(file.kerning(a, v)) / Double(file.unitsPerEm) * 36
        let av = lineWidth("AV", "Helvetica", 36), apart = lineWidth("A", "Helvetica", 36) + lineWidth("V", "Helvetica", 36)
        #expect(kernAV < 0 && abs(av - (apart + kernAV)) <= 1, "AV \(av) vs \(apart) + kern \(kernAV)")
    }

    // MARK: - CATextLayer

    @Test func rightAlignmentPutsTheInkAtTheRightEdge() throws {
        let label = TextL(0, 0, 200, 40, "Hello", font: "Helvetica", size: 24, color: (0, 0, 0, 1))
        label.set(alignment: kCAAlignmentRight)
        CATransactionFlush()
        let store = try #require(label.contents)
        let box = try #require(inkBox(store))
        #expect(200 - 1 - box.2 <= 2, "ink ends at \(box.2)")
        #expect(box.0 > 100)
        // Left: the ink starts at the left edge; centre: balanced.
        label.set(alignment: kCAAlignmentLeft)
        CATransactionFlush()
        let leftStore = try #require(label.contents)
        let left = try #require(inkBox(leftStore))
        #expect(left.0 <= 3)
        label.set(alignment: kCAAlignmentCenter)
        CATransactionFlush()
        let centreStore = try #require(label.contents)
        let centre = try #require(inkBox(centreStore))
        #expect(abs(centre.0 - (199 - centre.2)) <= 2)
    }

    @Test func naturalAlignmentFollowsTheParagraphDirection() throws {
        let label = TextL(0, 0, 200, 40, "مرحبا", font: "Helvetica", size: 24, color: (0, 0, 0, 1))
        CATransactionFlush()
        let store = try #require(label.contents)
        let box = try #require(inkBox(store))
        #expect(199 - box.2 <= 3 && box.0 > 100, "right-to-left text starts at the right: \(box)")
    }

    @Test func truncationEndLeavesAnEllipsisLast() throws {
        let text = "Truncation keeps the beginning of this line"
        let width = 150.0
        let label = TextL(0, 0, width, 30, text, font: "Helvetica", size: 16, color: (0, 0, 0, 1))
        label.set(truncation: kCATruncationEnd)
        CATransactionFlush()
        let store = try #require(label.contents)
        // What should be drawn: the longest beginning that fits with "…",
        // measured here with Core Text.
        let characters = Array(text)
        var prefix = ""
        for n in stride(from: characters.count, through: 0, by: -1) {
            let candidate = String(characters[0..<n])
            if lineWidth(candidate + "…", "Helvetica", 16) <= width { prefix = candidate; break }
        }
        #expect(!prefix.isEmpty && prefix.count < characters.count)
        let expected = TextL(0, 0, width, 30, prefix + "…", font: "Helvetica", size: 16, color: (0, 0, 0, 1))
        CATransactionFlush()
        let reference = try #require(expected.contents)
        var differing = 0
        for y in 0..<30 { for x in 0..<Int(width) where pixel(store, x, y) != pixel(reference, x, y) { differing += 1 } }
        #expect(differing == 0, "the truncated line is not \"\(prefix)…\" (\(differing) pixels differ)")
        // The last glyph is the ellipsis: the rightmost ink is three dots on
        // the baseline (nothing above the x-height there).
        let box = try #require(inkBox(store))
        let dots = try #require(inkBox(reference))
        #expect(box.2 < Int(width) && dots.2 == box.2)
        var columnTop = Int.max
        for x in (box.2 - 8)...box.2 { for y in 0..<30 where pixel(store, x, y).3 > 40 { columnTop = min(columnTop, y) } }
        let f = CTFontCreateWithName("Helvetica", 16, nil)!
        let baseline = CTFontGetAscent(f) + (CTFontGetLeading(f) / 2)
        CARelease(UnsafeRawPointer(f))
        #expect(Double(columnTop) > baseline - 4, "ink at row \(columnTop) above the dots (baseline \(baseline))")
        // In a scene, nothing is drawn past the layer's bounds.
        let root = TL(0, 0, 200, 30)
        root.add(label)
        let frame = renderScene(root, 200, 30)
        let sceneBox = try #require(inkBox(frame))
        #expect(sceneBox.2 < Int(width))
        CVPixelBufferRelease(frame)
    }

    @Test func wrappedLineCountMatchesMeasuredWordWidths() throws {
        let words = ["Pango", "breaks", "these", "words", "into", "lines", "that", "fit", "the", "width", "of", "a",
                     "narrow", "layer", "exactly", "as", "measured"]
        let size = 18.0
        let space = lineWidth("a a", "Helvetica", size) - 2 * lineWidth("a", "Helvetica", size)
        let widths = words.map { lineWidth($0, "Helvetica", size) }
        for width in [120.0, 170.0, 233.0] {
            // Greedy packing with the measured widths.
            var lines = 1, current = 0.0, slack = Double.infinity
            for w in widths {
                if current == 0 { current = w; continue }
                let next = current + space + w
                slack = min(slack, abs(next - width))
                if next <= width { current = next } else { lines += 1; current = w }
            }
            guard slack > 0.5 else { continue }   // (too close to call with additive widths)
            let label = TextL(0, 0, width, 400, words.joined(separator: " "), font: "Helvetica", size: size)
            label.set(wrapped: true)
            let f = CTFontCreateWithName("Helvetica", size, nil)!
            let lineHeight = CTFontGetAscent(f) + CTFontGetDescent(f) + CTFontGetLeading(f)
            CARelease(UnsafeRawPointer(f))
            let height = CALayerGetPreferredFrameSize(label.ref).height
            #expect(abs(height / lineHeight - Double(lines)) < 0.05, "width \(width): \(height / lineHeight) lines, predicted \(lines)")
            // The frame of the same text in the same width has as many lines.
            let s = makeAttributed([(words.joined(separator: " "), "Helvetica", size, (0, 0, 0, 1), 0)])
            let setter = CTFramesetterCreateWithAttributedString(s)!
            let path = CGPathCreateMutable()!
            CGPathAddRect(path, nil, CGRect(x: 0, y: 0, width: width, height: 1000))
            let frame = CTFramesetterCreateFrame(setter, CFRange(location: 0, length: 0), path, nil)!
            #expect(QZFrameGetLineCount(frame) == lines)
            CARelease(UnsafeRawPointer(frame)); CGPathRelease(path); CARelease(UnsafeRawPointer(setter)); CARelease(UnsafeRawPointer(s))
        }
    }

    @Test func preferredFrameSizeMatchesTheFramesetter() {
        let text = "Preferred frame size is the laid-out text's size, wrapped or not."
        for wrapped in [false, true] {
            let label = TextL(0, 0, 160, 50, text, font: "Times", size: 17)
            label.set(wrapped: wrapped)
            let preferred = CALayerGetPreferredFrameSize(label.ref)
            let s = makeAttributed([(text, "Times", 17, (1, 1, 1, 1), 0)])
            let setter = CTFramesetterCreateWithAttributedString(s)!
            var fit = CFRange(location: -1, length: -1)
            let suggested = CTFramesetterSuggestFrameSizeWithConstraints(
                setter, CFRange(location: 0, length: 0), nil,
                CGSize(width: wrapped ? 160 : Double.greatestFiniteMagnitude, height: Double.greatestFiniteMagnitude), &fit)
            #expect(abs(preferred.width - suggested.width) < 0.01 && abs(preferred.height - suggested.height) < 0.01,
                    "wrapped \(wrapped): \(preferred) vs \(suggested)")
            #expect(fit.location == 0 && fit.length == CFAttributedStringGetLength(s))
            #expect(wrapped ? suggested.width <= 160 : suggested.width > 160)
            CARelease(UnsafeRawPointer(setter)); CARelease(UnsafeRawPointer(s))
        }
    }

    @Test func changesRedrawAndTheStoreFollowsBoundsAndScale() throws {
        let label = TextL(0, 0, 100, 30, "One", font: "Helvetica", size: 20, color: (0, 0, 0, 1))
        CATransactionFlush()
        let firstStore = try #require(label.contents)
        let first = try #require(inkBox(firstStore))
        withStringValue("One two three") { CATextLayerSetString(label.ref, $0) }
        #expect(CALayerNeedsDisplay(label.ref))
        CATransactionFlush()
        let secondStore = try #require(label.contents)
        let second = try #require(inkBox(secondStore))
        #expect(second.2 > first.2 + 20)
        CALayerSetBounds(label.ref, CGRect(x: 0, y: 0, width: 140, height: 30))
        #expect(CALayerNeedsDisplay(label.ref))
        CATransactionFlush()
        #expect(CVPixelBufferGetWidth(try #require(label.contents)) == 140)
        label.set(scale: 2)
        #expect(CALayerNeedsDisplay(label.ref))
        CATransactionFlush()
        #expect(CVPixelBufferGetWidth(try #require(label.contents)) == 280)
        #expect(CALayerClassNeedsDisplayForKey(CALayerClassGetBuiltin("CATextLayer"), "fontSize"))
        #expect(!CALayerClassNeedsDisplayForKey(CALayerClassGetBuiltin("CALayer"), "fontSize"))
    }

    @Test func attributedStringsAreCopiedIntoTheLayer() throws {
        let s = makeAttributed([("Copy", "Helvetica", 20, (1, 0, 0, 1), 0)])
        let label = TextL(0, 0, 100, 30)
        CATextLayerSetString(label.ref, s)
        CFAttributedStringReplaceString(s, CFRange(location: 0, length: 4), "Changed later")
        let kept = try #require(CATextLayerGetString(label.ref))
        #expect(CAValueGetType(kept) == CAValueTypeObject)
        let copy = OpaquePointer(CAValueGetObject(kept))
        #expect(CFAttributedStringGetLength(copy) == 4)
        CATransactionFlush()
        let store = try #require(label.contents)
        let box = try #require(inkBox(store))
        let p = pixel(store, (box.0 + box.2) / 2, (box.1 + box.3) / 2)
        _ = p
        // Drawn in the string's own colour (red), not foregroundColor (white).
        var reddest = 0
        for y in box.1...box.3 { for x in box.0...box.2 { let q = pixel(store, x, y); if q.3 > 200 { reddest = max(reddest, q.0 - q.2) } } }
        #expect(reddest > 200)
        CARelease(UnsafeRawPointer(s))
    }

    // MARK: - Attributed strings

    @Test func rangesCountUTF16Units() {
        // "é" is one unit, "😀" two (a surrogate pair), as on Apple platforms.
        let s = CFAttributedStringCreateMutable(nil, 0)!
        defer { CARelease(UnsafeRawPointer(s)) }
        CFAttributedStringReplaceString(s, CFRange(location: 0, length: 0), "aé😀b")
        #expect(CFAttributedStringGetLength(s) == 5)
        let red = CGColorCreateSRGB(1, 0, 0, 1)!
        CFAttributedStringSetAttribute(s, CFRange(location: 2, length: 2), kCTForegroundColorAttributeName, UnsafeRawPointer(red))
        var range = CFRange(location: 0, length: 0)
        let at3 = CFAttributedStringGetAttribute(s, 3, kCTForegroundColorAttributeName, &range)
        #expect(at3 == UnsafeRawPointer(red) && range.location == 2 && range.length == 2)
        #expect(CFAttributedStringGetAttribute(s, 4, kCTForegroundColorAttributeName, &range) == nil)
        #expect(range.location == 4 && range.length == 1)
        // Replacing inside keeps the runs around it.
        CFAttributedStringReplaceString(s, CFRange(location: 0, length: 1), "AA")
        #expect(String(cString: CFAttributedStringGetString(s)!) == "AAé😀b")
        #expect(CFAttributedStringGetAttribute(s, 3, kCTForegroundColorAttributeName, &range) == UnsafeRawPointer(red))
        #expect(range.location == 3 && range.length == 2)
        CGColorRelease(red)
    }

    @Test func outOfRangeAttributesAreErrorsAndChangeNothing() {
        let s = makeAttributed([("Hello", "Helvetica", 12, (0, 0, 0, 1), 0)])
        defer { CARelease(UnsafeRawPointer(s)) }
        let font = CTFontCreateWithName("Times", 30, nil)!
        defer { CARelease(UnsafeRawPointer(font)) }
        for range in [CFRange(location: 3, length: 5), CFRange(location: -1, length: 2), CFRange(location: 6, length: 0),
                      CFRange(location: Int.max, length: Int.max), CFRange(location: 2, length: -1)] {
            clearLastError()
            CFAttributedStringSetAttribute(s, range, kCTFontAttributeName, UnsafeRawPointer(font))
            #expect(lastErrorCode() == QZErrorOutOfRange, "\(range)")
            clearLastError()
            CFAttributedStringReplaceString(s, range, "x")
            #expect(lastErrorCode() == QZErrorOutOfRange, "\(range)")
        }
        #expect(String(cString: CFAttributedStringGetString(s)!) == "Hello")
        var r = CFRange(location: 0, length: 0)
        let f = CFAttributedStringGetAttribute(s, 0, kCTFontAttributeName, &r)
        #expect(f != nil && f != UnsafeRawPointer(font) && r.length == 5)
        clearLastError()
        _ = CFAttributedStringGetAttribute(s, 5, kCTFontAttributeName, nil)
        #expect(lastErrorCode() == QZErrorOutOfRange)
        // A colour where a font belongs, an immutable string, NULLs.
        let red = CGColorCreateSRGB(1, 0, 0, 1)!
        clearLastError()
        CFAttributedStringSetAttribute(s, CFRange(location: 0, length: 1), kCTFontAttributeName, UnsafeRawPointer(red))
        #expect(lastErrorCode() == QZErrorWrongType)
        let immutable = CFAttributedStringCreate(nil, "fixed", nil)!
        clearLastError()
        CFAttributedStringSetAttribute(immutable, CFRange(location: 0, length: 1), kCTForegroundColorAttributeName, UnsafeRawPointer(red))
        #expect(lastErrorCode() == QZErrorInvalidArgument)
        clearLastError()
        CFAttributedStringSetAttribute(nil, CFRange(location: 0, length: 1), kCTForegroundColorAttributeName, UnsafeRawPointer(red))
        #expect(lastErrorCode() == QZErrorNullArgument)
        CGColorRelease(red)
        CARelease(UnsafeRawPointer(immutable))
        // maxLength holds.
        let limited = CFAttributedStringCreateMutable(nil, 3)!
        clearLastError()
        CFAttributedStringReplaceString(limited, CFRange(location: 0, length: 0), "four")
        #expect(lastErrorCode() == QZErrorOutOfRange && CFAttributedStringGetLength(limited) == 0)
        CARelease(UnsafeRawPointer(limited))
    }

    // MARK: - Core Text geometry

    @Test func lineBoundsAndDrawingAdvanceTheTextPosition() {
        let s = makeAttributed([("Hxg", "Helvetica", 40, (0, 0, 0, 1), 0)])
        let line = CTLineCreateWithAttributedString(s)!
        var ascent = 0.0, descent = 0.0, leading = 0.0
        let width = CTLineGetTypographicBounds(line, &ascent, &descent, &leading)
        let f = CTFontCreateWithName("Helvetica", 40, nil)!
        #expect(abs(ascent - CTFontGetAscent(f)) < 0.01 && abs(descent - CTFontGetDescent(f)) < 0.01)
        #expect(abs(leading - CTFontGetLeading(f)) < 0.01)
        // Ink: "H" stands on the baseline, "g" descends below it (y up).
        let ink = CTLineGetImageBounds(line, nil)
        #expect(ink.origin.y < -5 && ink.origin.y > -descent - 1)
        #expect(ink.origin.y + ink.size.height > 25 && ink.origin.y + ink.size.height < ascent)
        #expect(ink.origin.x >= 0 && ink.origin.x + ink.size.width <= width + 1)
        // Drawn into a flipped context at (10, 20): the ink lands there, and
        // the text position moves by the width.
        let pb = makeBuffer(160, 80)
        let ctx = QZBitmapContextCreateWithPixelBuffer(pb)!
        CGContextTranslateCTM(ctx, 0, 80)
        CGContextScaleCTM(ctx, 1, -1)
        CGContextSetTextPosition(ctx, 10, 20)
        let placed = CTLineGetImageBounds(line, ctx)
        #expect(abs(placed.origin.x - (ink.origin.x + 10)) < 1e-9 && abs(placed.origin.y - (ink.origin.y + 20)) < 1e-9)
        CTLineDraw(line, ctx)
        #expect(abs(CGContextGetTextPosition(ctx).x - (10 + width)) < 1e-6)
        if let box = inkBox(pb) {
            // Pixel rows: y down from the top, 80 - user y.
            #expect(abs(Double(box.0) - placed.origin.x) <= 1.5, "left \(box.0) vs \(placed.origin.x)")
            #expect(abs(Double(box.3 + 1) - (80 - placed.origin.y)) <= 1.5, "bottom \(box.3) vs \(80 - placed.origin.y)")
            #expect(abs(Double(box.1) - (80 - placed.maxY)) <= 1.5, "top \(box.1) vs \(80 - placed.maxY)")
        } else {
            Issue.record("CTLineDraw drew nothing")
        }
        CGContextRelease(ctx); CVPixelBufferRelease(pb)
        CARelease(UnsafeRawPointer(f)); CARelease(UnsafeRawPointer(line)); CARelease(UnsafeRawPointer(s))
    }

    /// Drawing text puts the context back as it found it (the draw restores
    /// cairo's matrix, source and operator itself, without a cairo_save): the
    /// CTM is unchanged, and a fill that follows lands where the CTM puts it,
    /// in its own blend mode and colour.
    @Test func drawingALineLeavesTheContextAsItWas() {
        let s = makeAttributed([("Hi", "Helvetica", 20, (0, 0, 1, 1), 0)])
        let line = CTLineCreateWithAttributedString(s)!
        let pb = makeBuffer(64, 32)
        let ctx = QZBitmapContextCreateWithPixelBuffer(pb)!
        CGContextTranslateCTM(ctx, 3, 4)
        let before = CGContextGetCTM(ctx)
        CGContextSetBlendMode(ctx, CGBlendMode(rawValue: 1))   // multiply
        CGContextSetTextPosition(ctx, 2, 10)
        CTLineDraw(line, ctx)
        let after = CGContextGetCTM(ctx)
        #expect(after.a == before.a && after.b == before.b && after.c == before.c && after.d == before.d)
        #expect(after.tx == before.tx && after.ty == before.ty)
        #expect(inkBox(pb) != nil, "the text drew nothing")
        CGContextSetBlendMode(ctx, CGBlendMode(rawValue: 0))   // normal
        CGContextSetRGBFillColor(ctx, 1, 0, 0, 1)
        CGContextFillRect(ctx, CGRect(x: 50, y: 20, width: 4, height: 4))   // pixels 53-56, 24-27
        #expect(pixel(pb, 54, 25) == (255, 0, 0, 255))
        #expect(pixel(pb, 51, 25).3 == 0 && pixel(pb, 54, 22).3 == 0)
        CGContextRelease(ctx); CVPixelBufferRelease(pb)
        CARelease(UnsafeRawPointer(line)); CARelease(UnsafeRawPointer(s))
    }

    @Test func framesKeepTheLinesThatFit() {
        let text = "One two three four five six seven eight nine ten eleven twelve"
        let s = makeAttributed([(text, "Helvetica", 20, (0, 0, 0, 1), 0)])
        let setter = CTFramesetterCreateWithAttributedString(s)!
        let f = CTFontCreateWithName("Helvetica", 20, nil)!
        let lineHeight = CTFontGetAscent(f) + CTFontGetDescent(f) + CTFontGetLeading(f)
        var fit = CFRange(location: 0, length: 0)
        let size = CTFramesetterSuggestFrameSizeWithConstraints(setter, CFRange(location: 0, length: 0), nil,
                                                               CGSize(width: 120, height: lineHeight * 2.5), &fit)
        #expect(abs(size.height - 2 * lineHeight) < 0.01)
        #expect(fit.location == 0 && fit.length > 0 && fit.length < text.utf16.count)
        let path = CGPathCreateMutable()!
        CGPathAddRect(path, nil, CGRect(x: 5, y: 7, width: 120, height: lineHeight * 2.5))
        let frame = CTFramesetterCreateFrame(setter, CFRange(location: 0, length: 0), path, nil)!
        #expect(QZFrameGetLineCount(frame) == 2)
        let visible = CTFrameGetVisibleStringRange(frame)
        #expect(visible.location == fit.location && visible.length == fit.length)
        var origins = [CGPoint](repeating: CGPoint(x: 0, y: 0), count: 2)
        CTFrameGetLineOrigins(frame, CFRange(location: 0, length: 0), &origins)
        #expect(abs(origins[0].x - 5) < 0.01 && abs(origins[0].y - (7 + lineHeight * 2.5 - (origins[0].y - origins[1].y) + 0)) < lineHeight)
        #expect(abs((origins[0].y - origins[1].y) - lineHeight) < 0.01)
        clearLastError()
        CTFrameGetLineOrigins(frame, CFRange(location: 1, length: 5), &origins)
        #expect(lastErrorCode() == QZErrorOutOfRange)
        // A sub-range.
        let sub = CTFramesetterCreateFrame(setter, CFRange(location: 4, length: 3), path, nil)!
        #expect(CTFrameGetStringRange(sub).location == 4 && CTFrameGetStringRange(sub).length == 3)
        clearLastError()
        #expect(CTFramesetterCreateFrame(setter, CFRange(location: 60, length: 10), path, nil) == nil)
        #expect(lastErrorCode() == QZErrorOutOfRange)
        CARelease(UnsafeRawPointer(sub)); CARelease(UnsafeRawPointer(frame)); CGPathRelease(path)
        CARelease(UnsafeRawPointer(f)); CARelease(UnsafeRawPointer(setter)); CARelease(UnsafeRawPointer(s))
    }

    // MARK: - Bad input

    @Test func invalidUTF8IsDrawnWithReplacementCharacters() throws {
        let bytes: [CChar] = [0x41, CChar(bitPattern: 0xFF), CChar(bitPattern: 0xC3), 0x28, 0x42, 0]
        let v = bytes.withUnsafeBufferPointer { CAValueCreateString($0.baseAddress) }!
        #expect(String(cString: CAValueGetString(v)!) == "A\u{FFFD}\u{FFFD}(B")
        let label = TextL(0, 0, 200, 40, font: "Helvetica", size: 20, color: (0, 0, 0, 1))
        CATextLayerSetString(label.ref, v)
        CARelease(UnsafeRawPointer(v))
        CATransactionFlush()
        let store = try #require(label.contents)
        #expect(inkBox(store) != nil)
        let s = bytes.withUnsafeBufferPointer { CFAttributedStringCreate(nil, $0.baseAddress, nil) }!
        #expect(CFAttributedStringGetLength(s) == 5)
        CARelease(UnsafeRawPointer(s))
    }

    @Test func emptyAndMissingStringsDrawNothing() {
        let label = TextL(0, 0, 100, 30, "", font: "Helvetica", size: 20)
        CATransactionFlush()
        if let store = label.contents { #expect(inkBox(store) == nil) }
        let size = CALayerGetPreferredFrameSize(label.ref)
        #expect(size.width == 0 && size.height == 0)
        let none = TextL(0, 0, 100, 30)
        CALayerSetNeedsDisplay(none.ref)
        CATransactionFlush()
        if let store = none.contents { #expect(inkBox(store) == nil) }
        let empty = CFAttributedStringCreate(nil, "", nil)!
        let line = CTLineCreateWithAttributedString(empty)!
        #expect(CTLineGetTypographicBounds(line, nil, nil, nil) == 0)
        let r = CTLineGetImageBounds(line, nil)
        #expect(r.size.width == 0 && r.size.height == 0)
        CARelease(UnsafeRawPointer(line)); CARelease(UnsafeRawPointer(empty))
    }

    @Test func unknownFontsDrawInTheDefaultFace() throws {
        let a = TextL(0, 0, 160, 40, "Fallback", font: "No Such Font", size: 20, color: (0, 0, 0, 1))
        let b = TextL(0, 0, 160, 40, "Fallback", font: "Helvetica", size: 20, color: (0, 0, 0, 1))
        CATransactionFlush()
        let sa = try #require(a.contents), sb = try #require(b.contents)
        var same = true
        for y in 0..<40 { for x in 0..<160 where pixel(sa, x, y) != pixel(sb, x, y) { same = false } }
        #expect(same)
        // A NULL name is the default face too; a negative or NaN size is refused.
        let f = CTFontCreateWithName(nil, 10, nil)!
        #expect(string(CTFontCopyFamilyName(f)) == "Liberation Sans")
        CARelease(UnsafeRawPointer(f))
        clearLastError()
        #expect(CTFontCreateWithName("Helvetica", -3, nil) == nil && lastErrorCode() == QZErrorInvalidArgument)
        clearLastError()
        #expect(CTFontCreateWithName("Helvetica", .nan, nil) == nil && lastErrorCode() == QZErrorNotFinite)
    }

    @Test func oddFontSizesNeverCrash() throws {
        let label = TextL(0, 0, 120, 40, "Size", font: "Helvetica", size: 20, color: (0, 0, 0, 1))
        for size in [0.0, -12.0] {
            CATextLayerSetFontSize(label.ref, size)
            CATransactionFlush()
            let store = try #require(label.contents)
            #expect(inkBox(store) == nil, "size \(size) draws nothing")
        }
        clearLastError()
        CATextLayerSetFontSize(label.ref, .nan)
        #expect(lastErrorCode() == QZErrorNotFinite && CATextLayerGetFontSize(label.ref) == -12)
        CATextLayerSetFontSize(label.ref, .infinity)
        #expect(CATextLayerGetFontSize(label.ref) == -12)
        CATextLayerSetFontSize(label.ref, 1e9)
        CATransactionFlush()
        // Laid out at 4096 points (the clamp): as wide as "Size" at 4096.
        #expect(label.contents != nil)
        let preferred = CALayerGetPreferredFrameSize(label.ref)
        #expect(abs(preferred.width - lineWidth("Size", "Helvetica", 4096)) < 0.5, "\(preferred)")
        let huge = CTFontCreateWithName("Helvetica", 1e12, nil)!
        #expect(CTFontGetSize(huge) == 4096)
        CARelease(UnsafeRawPointer(huge))
    }

    @Test func aMegabyteStringTakesBoundedTime() throws {
        var text = ""
        let word = "megabyte "
        text.reserveCapacity(1 << 20)
        while text.utf8.count < 1 << 20 { text += word }
        var start = timespec(), end = timespec()
        clock_gettime(CLOCK_MONOTONIC, &start)
        let label = TextL(0, 0, 300, 200, text, font: "Helvetica", size: 12, color: (0, 0, 0, 1))
        label.set(wrapped: true)
        CATransactionFlush()
        let unwrapped = TextL(0, 0, 300, 40, text, font: "Helvetica", size: 12, color: (0, 0, 0, 1))
        CATransactionFlush()
        clock_gettime(CLOCK_MONOTONIC, &end)
        let seconds = Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9
        #expect(seconds < 30, "\(seconds) s")
        let wrappedStore = try #require(label.contents), unwrappedStore = try #require(unwrapped.contents)
        #expect(inkBox(wrappedStore) != nil)
        #expect(inkBox(unwrappedStore) != nil)
    }

    // MARK: - Caching

    @Test func movingLabelsCostNoTextWork() {
        let root = TL(0, 0, 400, 300)
        var labels: [TextL] = []
        for i in 0..<100 {
            let l = TextL(Double(i % 10) * 40, Double(i / 10) * 30, 40, 20, "L\(i)", font: "Helvetica", size: 12)
            root.add(l)
            labels.append(l)
        }
        CATransactionFlush()
        let frame = renderScene(root, 400, 300)
        CVPixelBufferRelease(frame)
        QZTextResetStatistics()
        for (i, l) in labels.enumerated() {
            CALayerSetPosition(l.ref, CGPoint(x: Double(i % 10) * 40 + 25, y: Double(i / 10) * 30 + 14))
            CALayerSetOpacity(l.ref, 0.5)
            CALayerSetTransform(l.ref, CATransform3DMakeRotation(0.1, 0, 0, 1))
        }
        CATransactionFlush()
        let moved = renderScene(root, 400, 300, at: 1001)
        CVPixelBufferRelease(moved)
        let s = QZTextGetStatistics()
        #expect(s.layouts == 0 && s.draws == 0 && s.layoutCacheHits == 0)
    }

    @Test func colourChangesRedrawWithoutLayingOut() {
        let label = TextL(0, 0, 100, 30, "Recolour me", font: "Helvetica", size: 14, color: (0, 0, 0, 1))
        CATransactionFlush()
        QZTextResetStatistics()
        let red = CGColorCreateSRGB(1, 0, 0, 1)!
        CATextLayerSetForegroundColor(label.ref, red)
        CGColorRelease(red)
        CATransactionFlush()
        var s = QZTextGetStatistics()
        #expect(s.layouts == 0 && s.draws == 1)
        // The same text elsewhere comes from the layout cache.
        let twin = TextL(0, 0, 100, 30, "Recolour me", font: "Helvetica", size: 14)
        CATransactionFlush()
        s = QZTextGetStatistics()
        #expect(s.layouts == 0 && s.layoutCacheHits == 1 && s.draws == 2)
        _ = twin
    }

    @Test func textsShownOnceDoNotFillTheLayoutCache() {
        // 100 labels with different texts: laid out once each (and drawn),
        // kept by their layers, none admitted to the shared cache.
        QZTextResetStatistics()
        let before = QZTextGetStatistics().cachedLayouts
        let root = TL(0, 0, 400, 300)
        var labels: [TextL] = []
        for i in 0..<100 {
            let l = TextL(0, Double(i % 10) * 20, 200, 20, "once \(i) \(UInt32.random(in: 0...UInt32.max))",
                          font: "Helvetica", size: 12)
            root.add(l)
            labels.append(l)
        }
        CATransactionFlush()
        var s = QZTextGetStatistics()
        #expect(s.layouts == 100 && s.draws == 100 && s.layoutCacheHits == 0)
        #expect(s.cachedLayouts == before)
        // A text asked for a second time (a label showing the latest one
        // again) comes from the cache and joins it.
        let again = TextL(0, 0, 200, 20, nil, font: "Helvetica", size: 12)
        CATextLayerSetString(again.ref, CATextLayerGetString(labels[99].ref))
        CATransactionFlush()
        s = QZTextGetStatistics()
        #expect(s.layouts == 100 && s.layoutCacheHits == 1 && s.draws == 101)
        #expect(s.cachedLayouts == before + 1)
        withExtendedLifetime((root, labels, again)) {}
    }

    @Test func probationKeepsTheLastSixtyFourLayoutsMade() {
        // 70 texts made once each: the last 64 are on probation (a second
        // request is a cache hit), the first 6 have left it (a new layout).
        QZTextResetStatistics()
        let seed = UInt32.random(in: 0...UInt32.max)
        var labels: [TextL] = []
        for i in 0..<70 {
            labels.append(TextL(0, 0, 200, 20, "probation \(i) \(seed)", font: "Helvetica", size: 12))
        }
        CATransactionFlush()
        var s = QZTextGetStatistics()
        #expect(s.layouts == 70 && s.layoutCacheHits == 0)
        let recent = TextL(0, 0, 200, 20, nil, font: "Helvetica", size: 12)
        CATextLayerSetString(recent.ref, CATextLayerGetString(labels[6].ref))
        let old = TextL(0, 0, 200, 20, nil, font: "Helvetica", size: 12)
        CATextLayerSetString(old.ref, CATextLayerGetString(labels[5].ref))
        CATransactionFlush()
        s = QZTextGetStatistics()
        #expect(s.layouts == 71 && s.layoutCacheHits == 1)
        withExtendedLifetime((labels, recent, old)) {}
    }

    @Test func aLongWordWrappedOneLetterALineIsLaidOutInLinearTime() {
        // 60,000 letters with no break opportunity, in a box narrower than a
        // letter: one letter a line. Pango alone re-measures the rest of the
        // word for every line (about three minutes here); item boundaries
        // every kilobyte keep it to a fraction of a second.
        let word = String(repeating: "k", count: 60_000)
        let start = MediaClock.now()
        let lines = withTextLock {
            TextLayout(.plain(word, Font.named("Helvetica", size: 12)), options: TextLayoutOptions(wrapWidth: 0.5)).lines
        }
        #expect(lines.count == 60_000)
        #expect(lines.allSatisfy { $0.byteCount == 1 })
        #expect(MediaClock.now() - start < 20)
    }

    @Test func itemBoundariesLeaveLineBreaksWherePangoPutsThem() {
        // A paragraph of 20,000 bytes of words (one of 3,000 letters) and
        // 7,000 of Arabic and Devanagari ones, wrapped: the same lines as
        // Pango's own layout of the text without the item boundaries.
        var text = ""
        var r: UInt64 = 7
        while text.utf8.count < 20_000 {
            r = r &* 6364136223846793005 &+ 1442695040888963407
            let length = Int(r >> 60) + 1
            text += String(repeating: "abcdefghij".randomElement()!, count: length) + (r & 1 == 0 ? " " : ", ")
            if text.utf8.count > 5_000 && text.utf8.count < 5_020 { text += String(repeating: "w", count: 3_000) + " " }
        }
        for _ in 0..<150 { text += "العربية क्षत्रिय " }
        withTextLock {
            let font = Font.named("Helvetica", size: 14)
            let ours = TextLayout(.plain(text, font), options: TextLayoutOptions(wrapWidth: 180))
            let plain = pango_layout_new(TextSystem.shared.context)!
            defer { g_object_unref(UnsafeMutableRawPointer(plain)) }
            pango_layout_set_font_description(plain, font.description)
            text.withCString { pango_layout_set_text(plain, $0, Int32(text.utf8.count)) }
            pango_layout_set_auto_dir(plain, 1)
            pango_layout_set_line_spacing(plain, 1)
            pango_layout_set_width(plain, 180 * PANGO_SCALE)
            pango_layout_set_wrap(plain, PANGO_WRAP_WORD_CHAR)
            var starts: [Int] = []
            var list = pango_layout_get_lines_readonly(plain)
            while let node = list {
                starts.append(Int(node.pointee.data.assumingMemoryBound(to: PangoLayoutLine.self).pointee.start_index))
                list = node.pointee.next
            }
            #expect(ours.lines.count > 100)
            #expect(ours.lines.map(\.startByte) == starts)
        }
    }

    @Test func fontLookupsAnswerTheLastFontUntilTheCacheIsEmptied() {
        withTextLock {
            let a = Font.named("Helvetica", size: 17)
            #expect(Font.named("Helvetica", size: 17) === a)
            let b = Font.named("Courier", size: 17)
            #expect(b !== a && b.requestedName == "Courier")
            #expect(Font.named("Helvetica", size: 17) === a)
            #expect(Font.named("Helvetica", size: 18) !== a)
            // Emptied (a new font configuration): a new font object.
            TextSystem.shared.fonts.removeAll()
            let c = Font.named("Helvetica", size: 17)
            #expect(c !== a && c.size == 17 && c.requestedName == "Helvetica")
        }
    }

    @Test func textLayersDisplayedByTheirDelegateAreNotLaidOut() {
        // The commit lays out marked text layers before drawing them, but
        // not those whose delegate displays them instead.
        var table = CALayerDelegateCallbacks()
        table.displayLayer = { _, _ in }
        let shown = TextL(0, 0, 200, 20, "laid out", font: "Helvetica", size: 12)
        let delegated = TextL(0, 20, 200, 20, "displayed by the delegate", font: "Helvetica", size: 12)
        CALayerSetDelegate(delegated.ref, &table, nil)
        QZTextResetStatistics()
        CATransactionFlush()
        let s = QZTextGetStatistics()
        #expect(s.layouts == 1 && s.draws == 1)
        #expect(CALayerGetContents(delegated.ref) == nil && CALayerGetContents(shown.ref) != nil)
        CALayerSetDelegate(delegated.ref, nil, nil)
    }

    @Test func cachesAreBounded() {
        for i in 0..<300 {
            let f = CTFontCreateWithName("Helvetica", 10 + Double(i) * 0.5, nil)!
            CARelease(UnsafeRawPointer(f))
        }
        #expect(QZTextGetStatistics().cachedFonts <= 256)
        for i in 0..<2200 {
            let s = CFAttributedStringCreate(nil, "line \(i)", nil)!
            let line = CTLineCreateWithAttributedString(s)!
            CARelease(UnsafeRawPointer(line)); CARelease(UnsafeRawPointer(s))
        }
        #expect(QZTextGetStatistics().cachedLayouts <= 2048)
    }
}
