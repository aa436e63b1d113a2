import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel
import QuartziteRender

// Core Text with Apple's names (CTFont.h, CTLine.h, CTFramesetter.h,
// CTFrame.h) and CGContext's text state. Text is shaped, ordered and broken
// by Pango (HarfBuzz, FriBiDi), fonts are matched by fontconfig and drawn
// from FreeType outlines by cairo (the Text domain). Core Text draws as on
// Apple platforms: glyphs upright in a y-up user space, so in Quartzite's
// y-down contexts code flips the CTM first (translate by the height, scale
// y by -1), as iOS code does. Release objects with CFRelease's stand-in CARelease.
//
// Threads: any thread. Fonts, lines, framesetters and frames are immutable
// once made; layout and drawing hold the text lock (Pango and fontconfig are
// not thread-safe), so text work on several threads runs one at a time.

// MARK: - CTFont

/// Creates the font named `name` (a family, "Family-Style" PostScript-style
/// name, or PostScript name) at `size` points (0: 12, Apple's default;
/// negative sizes are QZErrorInvalidArgument; sizes above 4096 are clamped;
/// `matrix` may be NULL and is ignored). Apple's common names map to
/// metric-compatible faces: Helvetica, Arial and the system font to
/// Liberation Sans, Times to Liberation Serif, Courier and Menlo to
/// Liberation Mono. A name fontconfig does not know gives Apple's default
/// face, Helvetica (Liberation Sans). Returns +1.
@c public func CTFontCreateWithName(_ name: UnsafePointer<CChar>?, _ size: Double,
                                    _ matrix: UnsafePointer<CGAffineTransform>?) -> QZCTFontRef? {
    guard checkFinite(size, function: #function) else { return nil }
    guard size >= 0 else {
        recordError(QZErrorInvalidArgument, #function, "the size must not be negative, got \(size)")
        return nil
    }
    // (A NULL name is Apple's default face, as for an unknown name.)
    let n = name.map { String(cString: $0) } ?? Font.defaultName
    return withTextLock { retainedHandle(Font.named(n, size: size)) }
}

/// The same face at `size` (0: the font's size). +1.
@c public func CTFontCreateCopyWithAttributes(_ font: QZCTFontRef?, _ size: Double, _ matrix: UnsafePointer<CGAffineTransform>?,
                                              _ attributes: CAValueRef?) -> QZCTFontRef? {
    guard checkFinite(size, function: #function) else { return nil }
    guard size >= 0 else {
        recordError(QZErrorInvalidArgument, #function, "the size must not be negative, got \(size)")
        return nil
    }
    return withObject(font, as: Font.self, fallback: nil) { f in
        withTextLock { retainedHandle(size == 0 ? f : f.withSize(size)) }
    }
}

@inline(__always)
func fontMetric(_ font: QZCTFontRef?, _ function: StaticString, _ body: (Font) -> Double) -> Double {
    withObject(font, as: Font.self, fallback: 0, function, body)
}

/// The size in points.
@c public func CTFontGetSize(_ font: QZCTFontRef?) -> Double { fontMetric(font, #function) { $0.size } }
/// The distance from the baseline to the top of the face's line (points).
@c public func CTFontGetAscent(_ font: QZCTFontRef?) -> Double { fontMetric(font, #function) { $0.ascent } }
/// The distance from the baseline to the bottom of the face's line (points, positive).
@c public func CTFontGetDescent(_ font: QZCTFontRef?) -> Double { fontMetric(font, #function) { $0.descent } }
/// The face's line gap (points).
@c public func CTFontGetLeading(_ font: QZCTFontRef?) -> Double { fontMetric(font, #function) { $0.leading } }
/// The underline's offset from the baseline (points; negative is below, as Apple's).
@c public func CTFontGetUnderlinePosition(_ font: QZCTFontRef?) -> Double {
    fontMetric(font, #function) { -$0.underlinePosition }
}
/// The thickness of the font's underline, in points at the font's size.
@c public func CTFontGetUnderlineThickness(_ font: QZCTFontRef?) -> Double { fontMetric(font, #function) { $0.underlineThickness } }

/// The family of the face that draws the font ("Liberation Sans" for
/// Helvetica): a string value, +1.
@c public func CTFontCopyFamilyName(_ font: QZCTFontRef?) -> CAValueRef? {
    withObject(font, as: Font.self, fallback: nil) { retainedHandle(Value(string: $0.familyName)) }
}

/// The face's PostScript name ("LiberationSans-Bold"): a string value, +1.
@c public func CTFontCopyPostScriptName(_ font: QZCTFontRef?) -> CAValueRef? {
    withObject(font, as: Font.self, fallback: nil) { retainedHandle(Value(string: $0.postScriptName)) }
}

/// The face's full name ("Liberation Sans Bold"): a string value, +1.
@c public func CTFontCopyFullName(_ font: QZCTFontRef?) -> CAValueRef? {
    withObject(font, as: Font.self, fallback: nil) { retainedHandle(Value(string: $0.fullName)) }
}

/// The font's attribute `attribute` (+1): kCTFontURLAttribute (the face's
/// file as a "file://" URL string), kCTFontNameAttribute,
/// kCTFontFamilyNameAttribute, kCTFontDisplayNameAttribute or
/// kCTFontSizeAttribute (a number); NULL for other names.
@c public func CTFontCopyAttribute(_ font: QZCTFontRef?, _ attribute: UnsafePointer<CChar>?) -> CAValueRef? {
    guard let name = requireString(attribute, "attribute", #function) else { return nil }
    return withObject(font, as: Font.self, fallback: nil) { f in
        switch name {
        case "NSFontURLAttribute": return f.filePath.isEmpty ? nil : retainedHandle(Value(string: "file://" + f.filePath))
        case "NSFontNameAttribute": return retainedHandle(Value(string: f.postScriptName))
        case "NSFontFamilyAttribute": return retainedHandle(Value(string: f.familyName))
        case "NSFontVisibleNameAttribute": return retainedHandle(Value(string: f.fullName))
        case "NSFontSizeAttribute": return retainedHandle(Value(.number(f.size)))
        default: return nil
        }
    }
}

// MARK: - CTLine

/// Lays `attrString` out as one line (line breaks are not broken). The
/// line keeps a copy: later edits of a mutable string do not change it. +1.
@c public func CTLineCreateWithAttributedString(_ attrString: QZCFAttributedStringRef?) -> QZCTLineRef? {
    withAttributedText(attrString, nil) { t in retainedHandle(Line(t)) }
}

/// The line's width (returned; typographic, in points) and, where the
/// pointers are not NULL, its ascent, descent (positive) and leading.
@c public func CTLineGetTypographicBounds(_ line: QZCTLineRef?, _ ascent: UnsafeMutablePointer<Double>?,
                                          _ descent: UnsafeMutablePointer<Double>?, _ leading: UnsafeMutablePointer<Double>?) -> Double {
    withObject(line, as: Line.self, fallback: 0) { l in
        let b = l.typographicBounds
        ascent?.pointee = b.ascent
        descent?.pointee = b.descent
        leading?.pointee = b.leading
        return b.width
    }
}

/// The rectangle enclosing the line's glyph ink, y up, relative to the
/// line's origin and translated by `context`'s text position (`context`
/// may be NULL: no translation). CGRectZero for a line without ink.
@c public func CTLineGetImageBounds(_ line: QZCTLineRef?, _ context: QZCGContextRef?) -> CGRect {
    var position = CGPoint(x: 0, y: 0)
    if let context {
        guard let p = withContext(context, Optional<CGPoint>.none, #function, { Optional($0.textPosition) }) else { return .zero }
        position = p
    }
    return withObject(line, as: Line.self, fallback: CGRect.zero) { l in
        let r = l.imageBounds
        if r.width == 0 && r.height == 0 { return .zero }
        return r.offsetBy(dx: position.x, dy: position.y)
    }
}

/// The number of glyph runs: the line's runs of equal attributes.
@c public func CTLineGetGlyphRunCount(_ line: QZCTLineRef?) -> CFIndex {
    withObject(line, as: Line.self, fallback: 0) { $0.glyphRunCount }
}

/// The range of the string the line shows (all of it).
@c public func CTLineGetStringRange(_ line: QZCTLineRef?) -> CFRange {
    withObject(line, as: Line.self, fallback: CFRange(location: 0, length: 0)) { CFRange(location: 0, length: $0.text.length) }
}

/// Draws the line with its origin at the context's text position, glyphs
/// transformed by the text matrix, y up (flip a y-down context's CTM first
/// for upright text); the text position then moves to the line's end. Runs
/// without a colour are black; kCTForegroundColorFromContextAttributeName
/// runs use the fill colour.
@c public func CTLineDraw(_ line: QZCTLineRef?, _ context: QZCGContextRef?) {
    guard let l = object(line, as: Line.self) else { return }
    withContext(context, ()) { $0.draw(l) }
}

// MARK: - CTFramesetter and CTFrame

/// A framesetter for `attrString` (it keeps a copy). +1.
@c public func CTFramesetterCreateWithAttributedString(_ attrString: QZCFAttributedStringRef?) -> QZCTFramesetterRef? {
    withAttributedText(attrString, nil) { t in retainedHandle(Framesetter(t)) }
}

/// A string range of the framesetter's text, or nil after recording
/// QZErrorOutOfRange (length 0 means "to the end", as Apple's).
func framesetterRange(_ f: Framesetter, _ range: CFRange, _ function: StaticString) -> CFRange? {
    guard let r = range.resolved(count: f.text.length) else {
        recordError(QZErrorOutOfRange, function, "the range {\(range.location), \(range.length)} is outside the string of length \(f.text.length)")
        return nil
    }
    return r
}

/// The size the text of `stringRange` (length 0: to the end) needs when
/// wrapped at `constraints.width` (CGFLOAT_MAX or any huge width: no
/// wrapping), counting only the lines that fit in `constraints.height`:
/// the widest line's width and the lines' height. `fitRange` (may be NULL)
/// receives the range those lines show. `frameAttributes` may be NULL.
@c public func CTFramesetterSuggestFrameSizeWithConstraints(_ framesetter: QZCTFramesetterRef?, _ stringRange: CFRange,
                                                           _ frameAttributes: CAValueRef?, _ constraints: CGSize,
                                                           _ fitRange: UnsafeMutablePointer<CFRange>?) -> CGSize {
    let zero = CGSize(width: 0, height: 0)
    guard !constraints.width.isNaN, !constraints.height.isNaN else {
        recordError(QZErrorNotFinite, #function, "the constraints must not be NaN")
        return zero
    }
    return withObject(framesetter, as: Framesetter.self, fallback: zero) { f in
        withTextLock {
            guard let r = framesetterRange(f, stringRange, #function) else { return zero }
            let (size, fit) = f.suggestFrameSize(range: r, constraints: CGSize(width: Swift.max(constraints.width, 0),
                                                                               height: Swift.max(constraints.height, 0)))
            fitRange?.pointee = fit
            return size
        }
    }
}

/// A frame of the text of `stringRange` (length 0: to the end) laid out in
/// `path`'s bounding box (Quartzite lays out in rectangles: other shapes use
/// their bounds), y up: the first line at the top. `frameAttributes` may be
/// NULL. Returns +1.
@c public func CTFramesetterCreateFrame(_ framesetter: QZCTFramesetterRef?, _ stringRange: CFRange, _ path: QZCGPathRef?,
                                        _ frameAttributes: CAValueRef?) -> QZCTFrameRef? {
    guard let p = object(path, as: Path.self) else { return nil }
    let box = p.data.boundingBox
    guard !box.isNull, box.origin.isFinite, box.width.isFinite, box.height.isFinite else {
        recordError(QZErrorInvalidArgument, #function, "the path is empty")
        return nil
    }
    return withObject(framesetter, as: Framesetter.self, fallback: nil) { f in
        withTextLock {
            guard let r = framesetterRange(f, stringRange, #function) else { return nil }
            return retainedHandle(TextFrame(f, range: r, rect: box))
        }
    }
}

/// The range of the string the frame was made for.
@c public func CTFrameGetStringRange(_ frame: QZCTFrameRef?) -> CFRange {
    withObject(frame, as: TextFrame.self, fallback: CFRange(location: 0, length: 0)) { $0.stringRange }
}

/// The range of the string shown by the lines that fit in the frame.
@c public func CTFrameGetVisibleStringRange(_ frame: QZCTFrameRef?) -> CFRange {
    withObject(frame, as: TextFrame.self, fallback: CFRange(location: 0, length: 0)) { $0.visibleRange }
}

/// Quartzite's stand-in for CFArrayGetCount(CTFrameGetLines(frame)): the
/// number of lines that fit in the frame.
@c public func QZFrameGetLineCount(_ frame: QZCTFrameRef?) -> CFIndex {
    withObject(frame, as: TextFrame.self, fallback: 0) { $0.visibleLineCount }
}

/// The origins (baseline starts, y up, in the frame's space) of `range`'s
/// lines (length 0: to the last) copied into `origins`. QZErrorOutOfRange
/// for a range outside the lines.
@c public func CTFrameGetLineOrigins(_ frame: QZCTFrameRef?, _ range: CFRange, _ origins: UnsafeMutablePointer<CGPoint>?) {
    guard let out = requireNonNull(origins, "origins", #function) else { return }
    withObject(frame, as: TextFrame.self, fallback: ()) { f in
        let n = f.visibleLineCount
        guard let r = range.resolved(count: n) else {
            recordError(QZErrorOutOfRange, #function, "the range {\(range.location), \(range.length)} is outside the \(n) lines")
            return
        }
        for i in 0..<r.length { out[i] = f.lineOrigin(r.location + i) }
    }
}

/// Draws the lines that fit in the frame, the first at the top (maxY) of
/// its rectangle, y up (flip a y-down context's CTM first for upright text).
@c public func CTFrameDraw(_ frame: QZCTFrameRef?, _ context: QZCGContextRef?) {
    guard let f = object(frame, as: TextFrame.self) else { return }
    withContext(context, ()) { $0.draw(f) }
}

// MARK: - CGContext text state

/// Where the next CTLineDraw puts its line's origin (user space; the text
/// matrix's translation). Not part of the graphics state.
@c public func CGContextSetTextPosition(_ c: QZCGContextRef?, _ x: Double, _ y: Double) {
    guard checkFinite(x, y, function: #function) else { return }
    withContext(c, ()) { $0.setTextPosition(CGPoint(x: x, y: y)) }
}

/// The point in user space where the next text drawn by CTLineDraw starts (set with
/// CGContextSetTextPosition; (0, 0) at first).
@c public func CGContextGetTextPosition(_ c: QZCGContextRef?) -> CGPoint {
    withContext(c, CGPoint(x: 0, y: 0)) { $0.textPosition }
}

/// The text matrix: glyph space to user space (identity by default),
/// including the text position as its translation. Not part of the
/// graphics state.
@c public func CGContextSetTextMatrix(_ c: QZCGContextRef?, _ t: CGAffineTransform) {
    guard checkAffine(t, #function) else { return }
    withContext(c, ()) { $0.textMatrix = t }
}

/// The text matrix: the transform from text space to user space applied before the CTM when text is
/// drawn (identity at first).
@c public func CGContextGetTextMatrix(_ c: QZCGContextRef?) -> CGAffineTransform {
    withContext(c, CGAffineTransform.identity) { $0.textMatrix }
}

// MARK: - Quartzite's text additions

/// Counters of text work since the last reset (layouts made, layouts served
/// by the cache, layouts drawn) and the sizes of the bounded font and layout
/// caches. A frame in which text layers only move, fade or transform adds
/// nothing to them.
@c public func QZTextGetStatistics() -> QZTextStatistics {
    withTextLock {
        let s = TextSystem.shared
        return QZTextStatistics(layouts: s.statistics.layouts, layoutCacheHits: s.statistics.layoutCacheHits,
                                draws: s.statistics.draws, cachedFonts: UInt64(s.fonts.count),
                                cachedLayouts: UInt64(s.layouts.count))
    }
}

/// Sets the counters of QZTextGetStatistics to zero.
@c public func QZTextResetStatistics() { TextSystem.resetStatistics() }

/// Uses the fontconfig configuration file at `path` for every later font
/// lookup (its `dir` elements list the only fonts used), in place of the
/// system's; fonts and layouts made before are dropped from the caches.
/// Tests use it to pin the fonts their golden images were made with; hosts,
/// to ship their own fonts. The environment variable
/// QUARTZITE_FONTCONFIG_FILE does the same at start-up. Returns false with
/// QZErrorInvalidArgument when the file cannot be read.
@c public func QZTextSetFontConfigurationFile(_ path: UnsafePointer<CChar>?) -> Bool {
    guard let p = requireString(path, "path", #function) else { return false }
    guard TextSystem.useFontConfiguration(file: p) else {
        recordError(QZErrorInvalidArgument, #function, "fontconfig could not load \(p)")
        return false
    }
    return true
}
