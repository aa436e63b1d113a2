import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics

// CATextLayer's drawing: its drawInContext, run by the display cycle into
// the backing store like any drawing. The string (plain, in `font` at
// `fontSize` and `foregroundColor`, or attributed, with its own fonts and
// colours) is laid out by the text domain for the bounds' width: wrapped
// when `wrapped`, truncated with "…" as `truncationMode` says, each line
// aligned by `alignmentMode`, the first line at the top of the bounds.
//
// The layer keeps its last layout and what it was made from; a display
// with the same inputs (a colour change, a presentation copy of a
// fontSize-free animation) draws it again without laying out, and the
// text domain's layout cache serves equal texts across layers. A layer
// whose text properties do not change is never displayed again: moving,
// fading or transforming it is compositing only.

/// What a text layer's layout is made from (compared by identity: values
/// are immutable and held by the state).
package struct TextLayoutSignature: Equatable {
    package let string: ObjectIdentifier
    package let font: ObjectIdentifier?
    package let fontSize: Double
    package let options: TextLayoutOptions
    /// TextSystem.configurationGeneration when it was made.
    package let fonts: UInt64

    package static func == (a: TextLayoutSignature, b: TextLayoutSignature) -> Bool {
        a.string == b.string && a.font == b.font && a.fontSize == b.fontSize && a.options == b.options && a.fonts == b.fonts
    }
}

extension TextLayerState {
    /// The font to draw a plain string in: `font` (a name, or a font whose
    /// size is ignored, as the reference says) at `fontSize`. Nil when
    /// nothing can be drawn (size 0, negative or not finite).
    package func resolvedFont() -> Font? {
        guard fontSize.isFinite, fontSize > 0 else { return nil }
        var name = Font.defaultName
        switch font?.storage {
        case .string(let s)?: name = s.string
        case .object(let f as Font)?: name = f.requestedName
        default: break
        }
        return Font.named(name, size: fontSize)
    }

    /// The text source, or nil when there is nothing to draw.
    package func source() -> TextSource? {
        switch string?.storage {
        case .string(let s)?:
            guard !s.string.isEmpty, let font = resolvedFont() else { return nil }
            return .plain(s.string, font)
        case .object(let t as AttributedText)?:
            return t.length > 0 ? .attributed(t) : nil
        default:
            return nil
        }
    }

    /// Layout options for bounds of `size`.
    package func options(for size: CGSize) -> TextLayoutOptions {
        var o = TextLayoutOptions()
        if wrapped { o.wrapWidth = size.width }
        o.truncation = TextTruncation(rawValue: truncationMode) ?? .none
        if o.truncation != .none {
            o.truncationWidth = size.width
            o.maximumHeight = size.height
        }
        o.justified = alignmentMode == TextAlignment.justified.rawValue
        return o
    }

    /// The layout for bounds of `size`: the last one when its inputs are
    /// the same, else from the text domain's cache (callers hold the text lock).
    package func layout(for size: CGSize) -> TextLayout? {
        guard let string else { return nil }
        let o = options(for: size)
        let signature = TextLayoutSignature(string: ObjectIdentifier(string), font: font.map(ObjectIdentifier.init),
                                            fontSize: fontSize, options: o,
                                            fonts: TextSystem.shared.configurationGeneration)
        // (Same inputs, same layout: the source is not even resolved.)
        if let last = lastLayout, lastSignature == signature { return last }
        guard let source = source() else { return nil }
        let made = TextLayout.cached(source, options: o)
        lastLayout = made
        lastSignature = signature
        return made
    }
}

extension Layer {
    /// Whether display() will draw this layer's text with CATextLayer's own
    /// drawInContext (no display or drawing method of a subclass or the
    /// delegate replaces it, and the bounds make a backing store).
    package var displaysOwnText: Bool {
        guard layerClass.builtin == .text, modelLayer == nil, let e = extras, e.text != nil, e.tiled == nil,
              e.hooks?.delegate?.displayLayer == nil,
              layerClass.nearest({ $0.display }) == nil, layerClass.nearest({ $0.drawInContext }) == nil else { return false }
        let b = bounds.standardized
        return b.origin.isFinite && b.width > 0 && b.height > 0
    }

    /// Lays out the text that display() is about to draw (callers hold the
    /// text lock): the commit lays out all its marked text layers in a row
    /// before drawing them (Transactions.displayMarkedLayers), so that the
    /// shaping code and its tables stay in cache from one label to the next.
    package func prepareTextLayout() {
        _ = text?.layout(for: bounds.standardized.size)
    }

    /// CATextLayer's drawInContext: the text from the top of the bounds
    /// (upright whether or not the contents are flipped: `flipped` is the
    /// layer's contentsAreFlipped, which the caller has at hand).
    package func drawText(in context: DrawingContext, flipped: Bool) {
        guard let state = text else { return }
        let b = bounds.standardized
        withTextLock {
            guard let layout = state.layout(for: b.size) else { return }
            let color = state.foregroundColor?.rgba ?? SIMD4(0, 0, 0, 0)
            let placement = flipped
                ? CGAffineTransform(a: 1, b: 0, c: 0, d: -1, tx: b.minX, ty: b.maxY)
                : CGAffineTransform(a: 1, b: 0, c: 0, d: 1, tx: b.minX, ty: b.minY)
            context.draw(layout, placement: placement, alignment: TextAlignment(rawValue: state.alignmentMode) ?? .natural,
                         width: b.width, color: color)
        }
    }

    /// CATextLayer's preferredFrameSize: the laid-out text's size (wrapped
    /// to the bounds' width when `wrapped`; never truncated), as
    /// CTFramesetterSuggestFrameSizeWithConstraints measures it.
    package var textPreferredFrameSize: CGSize {
        guard let state = text else { return CGSize(width: 0, height: 0) }
        return withTextLock {
            guard let source = state.source() else { return CGSize(width: 0, height: 0) }
            var o = TextLayoutOptions()
            if state.wrapped { o.wrapWidth = bounds.standardized.width }
            return TextLayout.cached(source, options: o).size
        }
    }
}
