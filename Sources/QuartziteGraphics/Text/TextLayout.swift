import CCairo
import CPango
import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo

// Text laid out by Pango: HarfBuzz shapes each run (Arabic joining,
// Devanagari conjuncts, kerning and ligatures as the font says), FriBiDi
// orders mixed-direction text, Pango breaks lines and finds faces for
// characters the chosen font lacks (fontconfig's fallback list). A layout
// is immutable once made and measured; it is drawn as many times as
// needed, at any scale, and shared through the layout cache.
//
// Coordinates here are Pango's: points, y down, (0, 0) the top-left
// corner of the first line's box. Lines are spaced by their fonts' full
// height (ascent + descent + leading), as Core Text spaces them.

/// Horizontal alignment of lines (CATextLayer's alignmentMode; Core Text's
/// paragraph alignment).
public enum TextAlignment: UInt8, Sendable {
    /// Left for left-to-right paragraphs, right for right-to-left ones.
    case natural, left, right, center, justified
}

/// Where an ellipsis replaces text that does not fit (truncationMode).
public enum TextTruncation: UInt8, Sendable {
    case none, start, end, middle
}

/// What a layout is made of.
package enum TextSource {
    /// One string in one font (CATextLayer's plain string): its colour is
    /// the drawing's default colour.
    case plain(String, Font)
    /// Runs with attributes (a snapshot is not taken: the caller passes an
    /// immutable or private copy).
    case attributed(AttributedText)
}

/// How lines are made.
package struct TextLayoutOptions: Hashable {
    /// Lines wrap at this width (points); nil: only explicit line breaks.
    package var wrapWidth: Double? = nil
    /// Truncation: lines longer than `truncationWidth` lose text to an
    /// ellipsis; with `wrapWidth`, the last line that fits in
    /// `maximumHeight` is truncated instead.
    package var truncation = TextTruncation.none
    package var truncationWidth: Double? = nil
    package var maximumHeight: Double? = nil
    /// Wrapped lines (but each paragraph's last) fill the width.
    package var justified = false
    /// One line: line and paragraph separators are shown, not broken (CTLine).
    package var singleLine = false

    /// The memberwise initializer, for the other targets of the package.
    package init(wrapWidth: Double? = nil, truncation: TextTruncation = TextTruncation.none, truncationWidth: Double? = nil, maximumHeight: Double? = nil, justified: Bool = false, singleLine: Bool = false) {
        self.wrapWidth = wrapWidth
        self.truncation = truncation
        self.truncationWidth = truncationWidth
        self.maximumHeight = maximumHeight
        self.justified = justified
        self.singleLine = singleLine
    }
}

/// One laid-out line.
package struct LineMetrics {
    /// Baseline from the top of the layout.
    package let baseline: Double
    /// The line's box, from the top of the layout: ascent, descent and
    /// leading (the distance to the next line's box).
    package let top: Double
    package var height: Double
    /// Logical (typographic) extent along the line, from its origin.
    package let logicalX: Double
    package let width: Double
    /// Above and below the baseline (typographic).
    package let ascent: Double
    package let descent: Double
    package let rightToLeft: Bool
    /// UTF-8 byte range of the text the line shows.
    package let startByte: Int
    package let byteCount: Int
}

package final class TextLayout {
    package let layout: OpaquePointer
    package let lines: [LineMetrics]
    /// The widest line's width and the lines' total height.
    package let size: CGSize
    /// Larger of the fonts' leading (CTLineGetTypographicBounds).
    package let leading: Double
    /// For the cache's memory bound.
    package let byteCount: Int
    /// Kept alive while the layout refers to them (font descriptions are copied by Pango).
    private let source: TextSource
    /// What the cache knows this layout by (set by the cache that made it),
    /// and that key's code, compared first (reading the key copies it).
    fileprivate var cacheKey: LayoutCache.Key?
    fileprivate var cacheCode: UInt64 = 0

    /// Lays out `source` (callers hold the text lock).
    package init(_ source: TextSource, options: TextLayoutOptions) {
        self.source = source
        let system = TextSystem.shared
        let layout = pango_layout_new(system.context)!
        self.layout = layout
        var leading = 0.0
        // Long wrapped text gets its items ended (endItems); plain text needs
        // an attribute list only for that (a layout without one itemizes faster).
        let endsItems = TextLayout.pangoLength(options.wrapWidth) != nil
        let attributes: OpaquePointer?
        switch source {
        case .plain(var string, let font):
            byteCount = string.utf8.count
            attributes = endsItems && byteCount > TextLayout.itemBytes ? pango_attr_list_new() : nil
            // A native string's own UTF-8 storage, no copy.
            string.withUTF8 { TextLayout.setText($0, of: layout, endingItemsIn: attributes) }
            pango_layout_set_font_description(layout, font.description)
            leading = font.leading
        case .attributed(let text):
            let list = pango_attr_list_new()!
            attributes = list
            leading = TextLayout.addAttributes(of: text, utf8: text.utf8, to: list)
            byteCount = text.utf8.bytes.count
            text.utf8.bytes.withUnsafeBufferPointer {
                TextLayout.setText($0, of: layout, endingItemsIn: endsItems ? list : nil)
            }
        }
        if let attributes {
            pango_layout_set_attributes(layout, attributes)
            pango_attr_list_unref(attributes)
        }
        pango_layout_set_auto_dir(layout, 1)
        pango_layout_set_line_spacing(layout, 1)
        if options.singleLine { pango_layout_set_single_paragraph_mode(layout, 1) }
        if let w = TextLayout.pangoLength(options.wrapWidth) {
            pango_layout_set_width(layout, w)
            pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR)
            if options.justified { pango_layout_set_justify(layout, 1) }
        }
        if options.truncation != .none, let w = TextLayout.pangoLength(options.truncationWidth ?? options.wrapWidth) {
            pango_layout_set_width(layout, w)
            let mode: PangoEllipsizeMode
            switch options.truncation {
            case .start: mode = PANGO_ELLIPSIZE_START
            case .middle: mode = PANGO_ELLIPSIZE_MIDDLE
            default: mode = PANGO_ELLIPSIZE_END
            }
            pango_layout_set_ellipsize(layout, mode)
            // Wrapped text keeps the lines that fit and truncates the last;
            // unwrapped text truncates each line (Pango's height -1).
            if options.wrapWidth != nil, let h = TextLayout.pangoLength(options.maximumHeight) {
                pango_layout_set_height(layout, Swift.max(h, 1))
            }
        }
        // Measure every line (this is where Pango shapes and breaks).
        var lines: [LineMetrics] = []
        let scale = 1 / Double(PANGO_SCALE)
        var width = 0.0, bottom = 0.0
        if let iter = pango_layout_get_iter(layout) {
            repeat {
                guard let line = pango_layout_iter_get_line_readonly(iter) else { continue }
                // (Logical extents only: ink needs every glyph's outline box,
                // computed on demand by inkRect.)
                var box = PangoRectangle(), lineLogical = PangoRectangle()
                pango_layout_iter_get_line_extents(iter, nil, &box)
                pango_layout_line_get_extents(line, nil, &lineLogical)
                let baseline = Double(pango_layout_iter_get_baseline(iter)) * scale
                let vertical = TextLayout.verticalMetrics(lineLogical)
                let m = LineMetrics(
                    baseline: baseline, top: Double(box.y) * scale, height: Double(box.height) * scale,
                    logicalX: Double(lineLogical.x) * scale, width: Double(lineLogical.width) * scale,
                    ascent: vertical.ascent, descent: vertical.descent,
                    rightToLeft: pango_layout_line_get_resolved_direction(line) == PANGO_DIRECTION_RTL,
                    startByte: Int(line.pointee.start_index), byteCount: Int(line.pointee.length))
                lines.append(m)
                width = Swift.max(width, m.width)
            } while pango_layout_iter_next_line(iter) != 0
            pango_layout_iter_free(iter)
        }
        // Pango's boxes hold ascent and descent; lines are a full height
        // apart. Each line's box takes its leading, the last one's too, as
        // Core Text counts it.
        for i in lines.indices {
            lines[i].height = i + 1 < lines.count ? lines[i + 1].top - lines[i].top : lines[i].height + leading
            bottom = Swift.max(bottom, lines[i].top + lines[i].height)
        }
        self.lines = lines
        size = CGSize(width: width, height: bottom)
        self.leading = leading
        system.statistics.layouts &+= 1
    }

    // (The last reference may go on any thread: Pango's font caches are
    // touched when a layout's fonts go, so under the text lock.)
    deinit { withTextLock { g_object_unref(UnsafeMutableRawPointer(layout)) } }

    /// A line's ascent and descent in points from its logical rectangle
    /// (Pango units). Summed as doubles: Pango was seen returning extents
    /// whose 32-bit sum overflows (fuzzer seed 1041), and an Int32 sum traps.
    package static func verticalMetrics(_ r: PangoRectangle) -> (ascent: Double, descent: Double) {
        let scale = 1 / Double(PANGO_SCALE)
        return (-Double(r.y) * scale, (Double(r.y) + Double(r.height)) * scale)
    }

    /// Points as Pango units, or nil for "no limit" (nil, not finite, or
    /// too large for Pango's 32-bit units).
    package static func pangoLength(_ points: Double?) -> Int32? {
        guard let p = points, p.isFinite, p < 2_000_000 else { return nil }
        return Int32(Swift.max(0, p) * Double(PANGO_SCALE))
    }

    /// Hands UTF-8 text to Pango; with `list`, text longer than `itemBytes`
    /// gets its items ended in it (endItems).
    private static func setText(_ b: UnsafeBufferPointer<UInt8>, of layout: OpaquePointer, endingItemsIn list: OpaquePointer?) {
        b.withMemoryRebound(to: CChar.self) { pango_layout_set_text(layout, $0.baseAddress, Int32(b.count)) }
        if let list, b.count > itemBytes { endItems(in: b, list: list) }
    }

    /// Bytes of text after which wrapped text gets an item boundary.
    package static let itemBytes = 1024

    /// Pango breaks a line inside a shaped item by measuring the rest of
    /// that item again, so wrapping one long item takes time quadratic in
    /// its length: a wrapped megabyte of words took about 20 s, a long word
    /// in a box narrower than a letter (one letter a line) would take days.
    /// Items end where attributes change, so a no-op attribute (font
    /// fallback on, Pango's default) over every other stretch of about
    /// `itemBytes` ends them there, which keeps the work linear. A stretch
    /// ends at a line-break opportunity (a space, most often) within 4 KiB
    /// of its end, where shaping does not reach across; only in a word
    /// longer than that is it cut at a grapheme boundary, where a ligature,
    /// a kerning pair or a conjunct across the cut can differ. Both come
    /// from Pango's own segmentation.
    static func endItems(in b: UnsafeBufferPointer<UInt8>, list: OpaquePointer) {
        let n = b.count
        let window = 192   // bytes of text segmented at a time
        var attrs = [PangoLogAttr](repeating: PangoLogAttr(), count: window + 1)
        var starts: [Int] = []   // the window's characters' byte offsets
        /// The start of the character holding byte `i` or after it.
        func characterStart(_ i: Int) -> Int {
            var i = i
            while i < n && b[i] & 0xC0 == 0x80 { i += 1 }
            return i
        }
        /// The first line break (or, with `cursor`, grapheme boundary)
        /// after the first character of the window from `from`, and the
        /// window's end.
        func boundary(from: Int, cursor: Bool) -> (Int?, Int) {
            let end = characterStart(Swift.min(n, from + window))
            starts.removeAll(keepingCapacity: true)
            var q = from
            while q < end { starts.append(q); q = characterStart(q + 1) }
            guard starts.count > 1 else { return (nil, end) }
            b.withMemoryRebound(to: CChar.self) { text in
                pango_get_log_attrs(text.baseAddress! + from, Int32(end - from), -1, nil, &attrs, Int32(starts.count + 1))
            }
            let found = (1..<starts.count).first { cursor ? attrs[$0].is_cursor_position != 0 : attrs[$0].is_line_break != 0 }
            return (found.map { starts[$0] }, end)
        }
        var start = 0, covered = false
        var p = characterStart(itemBytes)
        while p < n {
            var cut: Int?
            var from = p
            while cut == nil && from < n && from < p + 4096 { (cut, from) = boundary(from: from, cursor: false) }
            guard let at = cut ?? boundary(from: p, cursor: true).0 else { break }
            if !covered, let a = pango_attr_fallback_new(1) {
                a.pointee.start_index = UInt32(start)
                a.pointee.end_index = UInt32(at)
                pango_attr_list_insert(list, a)
            }
            covered.toggle()
            start = at
            p = characterStart(at + itemBytes)
        }
    }

    /// Pango attributes for the runs of `text`; returns the largest leading.
    private static func addAttributes(of text: AttributedText, utf8: UTF8Text, to list: OpaquePointer) -> Double {
        var start = 0
        var leading = 0.0
        let defaultFont = Font.named(Font.defaultName, size: Font.defaultSize)
        for run in text.runs {
            let a = Int(utf8.offsets[start]), b = Int(utf8.offsets[start + run.length])
            start += run.length
            guard b > a else { continue }
            func insert(_ attribute: UnsafeMutablePointer<PangoAttribute>?) {
                guard let attribute else { return }
                attribute.pointee.start_index = UInt32(a)
                attribute.pointee.end_index = UInt32(b)
                pango_attr_list_insert(list, attribute)
            }
            let attrs = run.attributes
            let font = attrs.font ?? defaultFont
            leading = Swift.max(leading, font.leading)
            insert(pango_attr_font_desc_new(font.description))
            if attrs.number(TextAttributeName.foregroundColorFromContext) ?? 0 == 0 {
                // Core Text's default colour is black.
                let c = attrs.color(TextAttributeName.foregroundColor)?.rgba ?? SIMD4(0, 0, 0, 1)
                insert(pango_attr_foreground_new(pangoColor(c.x), pangoColor(c.y), pangoColor(c.z)))
                if c.w < 1 { insert(pango_attr_foreground_alpha_new(pangoColor(c.w))) }
            }
            if let u = attrs.number(TextAttributeName.underlineStyle), u != 0 {
                // (The low byte is the style; a number beyond any integer
                // underlines once rather than trapping in the conversion.)
                let style = u.magnitude < 0x1p62 ? Int(u) & 0xFF : 1
                insert(pango_attr_underline_new(style == 9 ? PANGO_UNDERLINE_DOUBLE : PANGO_UNDERLINE_SINGLE))
                if let c = attrs.color(TextAttributeName.underlineColor)?.rgba {
                    insert(pango_attr_underline_color_new(pangoColor(c.x), pangoColor(c.y), pangoColor(c.z)))
                }
            }
            if let k = attrs.number(TextAttributeName.kern), k != 0, abs(k) < 10_000 {
                insert(pango_attr_letter_spacing_new(Int32(k * Double(PANGO_SCALE))))
            }
            if let l = attrs.number(TextAttributeName.ligature), l == 0 {
                insert(pango_attr_font_features_new("liga 0, clig 0"))
            }
        }
        return leading
    }

    private static func pangoColor(_ v: Double) -> UInt16 {
        UInt16((Swift.min(Swift.max(v, 0), 1) * 65535).rounded())
    }

    // MARK: - Placing lines

    /// The x of line `i`'s origin when lines are aligned in `width` points.
    package func lineX(_ i: Int, alignment: TextAlignment, width: Double) -> Double {
        let line = lines[i]
        let free = width - line.width
        switch alignment {
        case .left: return -line.logicalX
        case .right: return free - line.logicalX
        case .center: return free / 2 - line.logicalX
        case .natural, .justified: return (line.rightToLeft ? free : 0) - line.logicalX
        }
    }

    /// Line `i`'s ink extent relative to its origin on the baseline (y
    /// down); empty for a line without ink. Callers hold the text lock.
    package func inkRect(ofLine i: Int) -> CGRect {
        guard i < lines.count, let line = pango_layout_get_line_readonly(layout, Int32(i)) else { return .zero }
        var ink = PangoRectangle()
        pango_layout_line_get_extents(line, &ink, nil)
        let scale = 1 / Double(PANGO_SCALE)
        return CGRect(x: Double(ink.x) * scale, y: Double(ink.y) * scale, width: Double(ink.width) * scale,
                      height: Double(ink.height) * scale)
    }

    // MARK: - Drawing

    /// Draws the lines with cairo's current transformation mapping layout
    /// coordinates (y down) to the target; lines outside `visible` (layout
    /// coordinates) and after `lineLimit` are skipped. Runs without a colour
    /// use cairo's source.
    package func draw(_ cr: OpaquePointer, alignment: TextAlignment, width: Double, visible: CGRect? = nil, lineLimit: Int = Int.max) {
        guard !lines.isEmpty else { return }
        // (The layout's own list of lines: the positions are in `lines`, so
        // no iterator is needed.)
        var index = 0
        var node = pango_layout_get_lines_readonly(layout)
        while let n = node, index < lines.count, index < lineLimit {
            defer { index += 1; node = n.pointee.next }
            guard let data = n.pointee.data else { continue }
            let m = lines[index]
            if let visible, m.top > visible.maxY || m.top + m.height < visible.minY { continue }
            safeMoveTo(cr, lineX(index, alignment: alignment, width: width), m.baseline)
            pango_cairo_show_layout_line(cr, data.assumingMemoryBound(to: PangoLayoutLine.self))
        }
        TextSystem.shared.statistics.draws &+= 1
    }
}

/// Layouts by what they are made of, bounded by count and by the bytes of
/// text they hold (the least recently used go first).
package final class LayoutCache {
    package struct Key: Hashable {
        package enum Source: Hashable {
            case plain(String, fontName: String, fontSize: Double)
            case attributed(ObjectIdentifier, generation: UInt64)
        }
        package let source: Source
        package let options: TextLayoutOptions
        /// Computed once (CacheKeyHash): the dictionary's probes hash only this.
        fileprivate let code: UInt64

        package init(source: Source, options: TextLayoutOptions) {
            self.source = source
            self.options = options
            var h = CacheKeyHash()
            switch source {
            case .plain(let text, let fontName, let fontSize):
                h.add(text); h.add(fontName); h.add(fontSize)
            case .attributed(let id, let generation):
                h.add(UInt64(UInt(bitPattern: id))); h.add(generation)
            }
            h.add(options.wrapWidth); h.add(options.truncationWidth); h.add(options.maximumHeight)
            h.add(UInt64(options.truncation.rawValue) | (options.justified ? 0x100 : 0) | (options.singleLine ? 0x200 : 0))
            code = h.value
        }

        package static func == (a: Key, b: Key) -> Bool {
            a.code == b.code && a.options == b.options && a.source == b.source
        }

        package func hash(into hasher: inout Hasher) { hasher.combine(code) }
        /// The dictionary's bucket hash: the code itself, mixed with the seed
        /// (no SipHash round per probe).
        package func _rawHashValue(seed: Int) -> Int { CacheKeyHash.mix(code, seed: seed) }
    }

    package static let capacity = 2048
    package static let byteCapacity = 16 << 20

    /// The layouts live in slots; the index maps keys to them. Eviction
    /// sorts the slots' stamps, plain numbers, without touching (retaining)
    /// the keys and layouts it keeps: at 2048 entries that walk over cold
    /// objects was most of a first display's cache cost.
    private struct Slot {
        var key: Key?
        var layout: TextLayout?
        /// When last used; 0: a free slot.
        var stamp: UInt64
    }
    private var index: [Key: Int] = [:]
    private var slots: [Slot] = []
    private var freeSlots: [Int] = []
    private var bytes = 0
    private var clock: UInt64 = 0

    /// Probation: the last layouts made, each kept here until it is asked
    /// for a second time, when it joins the cache proper. Texts shown once
    /// (a thousand different labels) pass through without filling the cache,
    /// so it never evicts (and frees, cold) layouts for them; their layers
    /// hold their own (TextLayerState.lastLayout).
    private static let probationCapacity = 64
    /// (Layouts, which hold their keys: an array of optional key-layout
    /// pairs was copied and destroyed through the runtime's generic value
    /// witnesses, some 500 instructions an entry.)
    private var probation = [TextLayout?](repeating: nil, count: LayoutCache.probationCapacity)
    private var probationNext = 0
    /// How many layouts on probation have each value of their code's low
    /// ten bits: a text seen for the first time (most of a first display)
    /// mostly finds its count at zero (64 entries in 1024 buckets) and skips
    /// the scan.
    private var probationBuckets = [UInt8](repeating: 0, count: 1024)

    @inline(__always)
    private static func bucket(_ code: UInt64) -> Int { Int(truncatingIfNeeded: code & 1023) }

    /// Layouts in the cache proper (not counting those on probation).
    package var count: Int { index.count }

    package func layout(_ key: Key, make: () -> TextLayout) -> TextLayout {
        clock &+= 1
        let now = clock
        if let i = index[key], let hit = slots[i].layout {
            slots[i].stamp = now
            TextSystem.shared.statistics.layoutCacheHits &+= 1
            return hit
        }
        if probationBuckets[LayoutCache.bucket(key.code)] != 0 {
            for j in 0..<LayoutCache.probationCapacity {
                guard let entry = probation[j], entry.cacheCode == key.code, entry.cacheKey == key else { continue }
                probation[j] = nil
                probationBuckets[LayoutCache.bucket(key.code)] &-= 1
                TextSystem.shared.statistics.layoutCacheHits &+= 1
                admit(key, entry, now)
                return entry
            }
        }
        let made = make()
        // A text larger than a quarter of the budget is not kept.
        guard made.byteCount <= LayoutCache.byteCapacity / 4 else { return made }
        made.cacheKey = key
        made.cacheCode = key.code
        let j = probationNext
        probationNext = (j + 1) % LayoutCache.probationCapacity
        if let old = probation[j] { probationBuckets[LayoutCache.bucket(old.cacheCode)] &-= 1 }
        probationBuckets[LayoutCache.bucket(key.code)] &+= 1
        probation[j] = made
        return made
    }

    private func admit(_ key: Key, _ made: TextLayout, _ now: UInt64) {
        if index.count >= LayoutCache.capacity || bytes + made.byteCount > LayoutCache.byteCapacity { evict(made.byteCount) }
        let slot: Int
        if let reused = freeSlots.popLast() {
            slot = reused
        } else {
            slot = slots.count
            slots.append(Slot(key: nil, layout: nil, stamp: 0))
        }
        slots[slot] = Slot(key: key, layout: made, stamp: now)
        index[key] = slot
        bytes += made.byteCount
    }

    /// Drops the least recently used entries until a quarter of the count
    /// and room for `incoming` bytes are free.
    private func evict(_ incoming: Int) {
        var used: [(stamp: UInt64, slot: Int)] = []
        used.reserveCapacity(index.count)
        for i in slots.indices where slots[i].stamp != 0 { used.append((slots[i].stamp, i)) }
        used.sort { $0.stamp < $1.stamp }
        var k = 0
        while k < used.count && (index.count > LayoutCache.capacity * 3 / 4 || bytes + incoming > LayoutCache.byteCapacity) {
            let i = used[k].slot
            if let key = slots[i].key { index[key] = nil }
            bytes -= slots[i].layout?.byteCount ?? 0
            slots[i] = Slot(key: nil, layout: nil, stamp: 0)
            freeSlots.append(i)
            k += 1
        }
    }

    package func removeAll() {
        index = [:]
        slots = []
        freeSlots = []
        bytes = 0
        probation = probation.map { _ in nil }
        probationBuckets = probationBuckets.map { _ in 0 }
    }
}

extension TextLayout {
    /// The layout of `source` with `options`, from the cache when it was
    /// made before (callers hold the text lock).
    package static func cached(_ source: TextSource, options: TextLayoutOptions) -> TextLayout {
        let keySource: LayoutCache.Key.Source
        switch source {
        case .plain(let s, let font): keySource = .plain(s, fontName: font.requestedName, fontSize: font.size)
        case .attributed(let t): keySource = .attributed(ObjectIdentifier(t), generation: t.generation)
        }
        return TextSystem.shared.layouts.layout(LayoutCache.Key(source: keySource, options: options)) {
            TextLayout(source, options: options)
        }
    }
}
