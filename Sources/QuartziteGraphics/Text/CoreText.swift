import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo

// Core Text's line and frame objects (CTLine, CTFramesetter, CTFrame). Each
// takes an immutable copy of its attributed string, so later edits of a
// mutable string do not reach it. Geometry is Core Text's: y up, a line's
// origin on its baseline, a frame's first line at the top of its rectangle.

/// One line of text, never broken (Apple's CTLineRef).
public final class Line: QZObject, Handle {
    package let text: AttributedText
    package let layout: TextLayout

    @inlinable package static var handleKind: ObjectKind { .line }
    @inlinable package static func accepts(_ tag: UInt32) -> Bool { tag == tagMagic | UInt32(ObjectKind.line.rawValue) }

    /// Callers hold the text lock.
    package init(_ text: AttributedText) {
        self.text = text.isMutable ? AttributedText(copyOf: text, mutable: false) : text
        var options = TextLayoutOptions()
        options.singleLine = true
        layout = TextLayout.cached(.attributed(self.text), options: options)
        super.init(kind: .line)
    }

    package var metrics: LineMetrics? { layout.lines.first }

    /// Width, ascent, descent and leading (CTLineGetTypographicBounds).
    public var typographicBounds: (width: Double, ascent: Double, descent: Double, leading: Double) {
        guard let m = metrics else { return (0, 0, 0, 0) }
        return (m.width, m.ascent, m.descent, layout.leading)
    }

    /// The glyphs' ink relative to the line's origin, y up.
    public var imageBounds: CGRect {
        let ink = withTextLock { layout.inkRect(ofLine: 0) }
        guard ink.width > 0, ink.height > 0 else { return .zero }
        return CGRect(x: ink.minX, y: -ink.maxY, width: ink.width, height: ink.height)
    }

    public var glyphRunCount: Int { text.runs.count }
}

/// Lays attributed text out in frames (Apple's CTFramesetterRef).
public final class Framesetter: QZObject, Handle {
    package let text: AttributedText

    @inlinable package static var handleKind: ObjectKind { .framesetter }
    @inlinable package static func accepts(_ tag: UInt32) -> Bool { tag == tagMagic | UInt32(ObjectKind.framesetter.rawValue) }

    package init(_ text: AttributedText) {
        self.text = text.isMutable ? AttributedText(copyOf: text, mutable: false) : text
        super.init(kind: .framesetter)
    }

    /// The part of the text in `range` (length 0: to the end), already
    /// checked to lie inside it.
    package func slice(_ range: CFRange) -> (AttributedText, start: Int) {
        let length = range.length == 0 ? text.length - range.location : range.length
        if range.location == 0 && length == text.length { return (text, 0) }
        let part = AttributedText(copyOf: text, mutable: true)
        if range.location + length < part.length {
            part.replace(CFRange(location: range.location + length, length: part.length - range.location - length), with: "")
        }
        if range.location > 0 { part.replace(CFRange(location: 0, length: range.location), with: "") }
        return (AttributedText(copyOf: part, mutable: false), range.location)
    }

    /// The layout of `range` wrapped at `width` (callers hold the text lock).
    package func layout(_ range: CFRange, width: Double?) -> (TextLayout, AttributedText, Int) {
        let (part, start) = slice(range)
        var options = TextLayoutOptions()
        options.wrapWidth = width
        return (TextLayout.cached(.attributed(part), options: options), part, start)
    }

    /// CTFramesetterSuggestFrameSizeWithConstraints: the size of the lines
    /// of `range` wrapped at the constraint's width that fit in its height,
    /// and the range they show.
    public func suggestFrameSize(range: CFRange, constraints: CGSize) -> (CGSize, CFRange) {
        let (layout, part, start) = layout(range, width: constraints.width)
        let (count, height) = Framesetter.fittingLines(layout, height: constraints.height)
        var width = 0.0
        for i in 0..<count { width = Swift.max(width, layout.lines[i].width) }
        return (CGSize(width: width, height: height), Framesetter.range(of: count, in: layout, part, start))
    }

    /// How many lines fit in `height`, and their height (all with a height
    /// that is not finite).
    package static func fittingLines(_ layout: TextLayout, height: Double) -> (Int, Double) {
        var count = 0, bottom = 0.0
        for line in layout.lines {
            let b = line.top + line.height
            if height.isFinite && b > height + 1e-6 { break }
            count += 1
            bottom = b
        }
        return (count, bottom)
    }

    /// The UTF-16 range of the text the first `count` lines show.
    package static func range(of count: Int, in layout: TextLayout, _ part: AttributedText, _ start: Int) -> CFRange {
        guard count > 0 else { return CFRange(location: start, length: 0) }
        let last = layout.lines[count - 1]
        let endByte = count == layout.lines.count ? part.utf8.bytes.count : last.startByte + last.byteCount
        let offsets = part.utf8.offsets
        // The first UTF-16 position whose byte offset is at or past endByte.
        var lo = 0, hi = offsets.count - 1
        while lo < hi {
            let mid = (lo + hi) / 2
            if Int(offsets[mid]) < endByte { lo = mid + 1 } else { hi = mid }
        }
        return CFRange(location: start, length: lo)
    }
}

/// Lines laid out in a rectangle (Apple's CTFrameRef).
public final class TextFrame: QZObject, Handle {
    package let layout: TextLayout
    /// The frame's rectangle (user space, y up).
    public let rect: CGRect
    /// Lines that fit in the rectangle.
    package let lineCount: Int
    public let visibleRange: CFRange
    public let stringRange: CFRange

    @inlinable package static var handleKind: ObjectKind { .frame }
    @inlinable package static func accepts(_ tag: UInt32) -> Bool { tag == tagMagic | UInt32(ObjectKind.frame.rawValue) }

    /// Callers hold the text lock; `range` lies inside the text.
    package init(_ framesetter: Framesetter, range: CFRange, rect: CGRect) {
        let r = rect.standardized
        self.rect = r
        let (layout, part, start) = framesetter.layout(range, width: r.width)
        self.layout = layout
        let (count, _) = Framesetter.fittingLines(layout, height: r.height)
        lineCount = count
        visibleRange = Framesetter.range(of: count, in: layout, part, start)
        stringRange = CFRange(location: start, length: part.length)
        super.init(kind: .frame)
    }

    /// The origin of line `i` (its baseline's start) in the frame's space, y up.
    public func lineOrigin(_ i: Int) -> CGPoint {
        let line = layout.lines[i]
        return CGPoint(x: rect.minX + layout.lineX(i, alignment: .natural, width: rect.width),
                       y: rect.maxY - line.baseline)
    }

    public var visibleLineCount: Int { lineCount }
}
