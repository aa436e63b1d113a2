import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo

// A string with attributes over ranges (Apple's CFAttributedString). As on
// Apple platforms, positions and lengths count UTF-16 code units, so ranges
// computed by code written for Apple carry over. The text is kept as UTF-16;
// runs cover it end to end, each with its attributes, and neighbours with
// equal attributes merge.
//
// Core Text reads these attributes (Apple's names and values): kCTFont-
// AttributeName ("NSFont": a CTFont), kCTForegroundColorAttributeName
// ("CTForegroundColor": a CGColor), kCTUnderlineStyleAttributeName
// ("NSUnderline": a number, kCTUnderlineStyleSingle 1, Thick 2, Double 9),
// kCTUnderlineColorAttributeName ("NSUnderlineColor"), kCTKernAttributeName
// ("NSKern": points added after each character) and kCTLigatureAttributeName
// ("NSLigature": 0 turns ligatures off). Other names are kept and read back.

/// Attribute names Core Text reads.
package enum TextAttributeName {
    package static let font = "NSFont"
    package static let foregroundColor = "CTForegroundColor"
    package static let foregroundColorFromContext = "CTForegroundColorFromContext"
    package static let underlineStyle = "NSUnderline"
    package static let underlineColor = "NSUnderlineColor"
    package static let kern = "NSKern"
    package static let ligature = "NSLigature"
}

/// One run's attributes: names and values (fonts, colours, numbers, any object).
package struct TextAttributes {
    package private(set) var entries: [(String, QZObject)] = []

    package subscript(name: String) -> QZObject? {
        get { entries.first(where: { $0.0 == name })?.1 }
        set {
            if let i = entries.firstIndex(where: { $0.0 == name }) {
                if let newValue { entries[i].1 = newValue } else { entries.remove(at: i) }
            } else if let newValue {
                entries.append((name, newValue))
            }
        }
    }

    package var isEmpty: Bool { entries.isEmpty }

    /// Same names with identical objects or equal values.
    package func isEqual(to other: TextAttributes) -> Bool {
        guard entries.count == other.entries.count else { return false }
        for (name, value) in entries {
            guard let o = other[name] else { return false }
            if o === value { continue }
            if let a = value as? Value, let b = o as? Value, a.isEqual(to: b) { continue }
            if let a = value as? Color, let b = o as? Color, a.isEqual(to: b) { continue }
            return false
        }
        return true
    }

    // MARK: Typed reads (what Core Text draws with)

    package var font: Font? {
        switch self[TextAttributeName.font] {
        case let f as Font: return f
        case let v as Value: if case .object(let f as Font) = v.storage { return f }; return nil
        default: return nil
        }
    }

    package func color(_ name: String) -> Color? {
        switch self[name] {
        case let c as Color: return c
        case let v as Value:
            if case .color(let c) = v.storage { return c }
            if case .object(let c as Color) = v.storage { return c }
            return nil
        default: return nil
        }
    }

    package func number(_ name: String) -> Double? {
        guard let v = self[name] as? Value, let n = v.number, n.isFinite else { return nil }
        return n
    }

    /// The memberwise initializer, for the other targets of the package.
    package init(entries: [(String, QZObject)] = []) {
        self.entries = entries
    }
}

public final class AttributedText: QZObject, Handle {
    /// The text as UTF-16 code units.
    package private(set) var units: [UInt16]
    /// Runs covering `units` end to end.
    package private(set) var runs: [(length: Int, attributes: TextAttributes)]
    public let isMutable: Bool
    /// CFAttributedStringCreateMutable's limit (0: none).
    package let maxLength: Int
    /// Bumped by every change (caches made from the text compare it).
    package private(set) var generation: UInt64 = 0
    private var cachedString: CString?
    private var cachedUTF8: UTF8Text?

    @inlinable package static var handleKind: ObjectKind { .attributedString }
    @inlinable package static func accepts(_ tag: UInt32) -> Bool { tag == tagMagic | UInt32(ObjectKind.attributedString.rawValue) }

    package init(_ string: String, attributes: TextAttributes = TextAttributes(), mutable: Bool, maxLength: Int = 0) {
        units = Array(string.utf16)
        runs = units.isEmpty ? [] : [(units.count, attributes)]
        isMutable = mutable
        self.maxLength = maxLength
        super.init(kind: .attributedString)
    }

    /// A copy (CFAttributedStringCreateCopy / CreateMutableCopy).
    public init(copyOf other: AttributedText, mutable: Bool, maxLength: Int = 0) {
        units = other.units
        runs = other.runs
        isMutable = mutable
        self.maxLength = maxLength
        super.init(kind: .attributedString)
    }

    /// The length in UTF-16 code units.
    public var length: Int { units.count }

    /// The text (unpaired surrogates read as U+FFFD).
    public var string: String { cString.string }

    /// The text as a NUL-terminated UTF-8 copy, valid until the next change.
    package var cString: CString {
        if let c = cachedString { return c }
        let c = CString(String(decoding: units, as: UTF16.self))
        cachedString = c
        return c
    }

    /// The text as UTF-8 with the byte offset of every UTF-16 position.
    package var utf8: UTF8Text {
        if let u = cachedUTF8 { return u }
        let u = UTF8Text(utf16: units)
        cachedUTF8 = u
        return u
    }

    private func changed() {
        generation &+= 1
        cachedString = nil
        cachedUTF8 = nil
    }

    // MARK: - Reading attributes

    /// The attributes at `location` and the range of the run holding them.
    package func attributes(at location: Int) -> (TextAttributes, CFRange)? {
        guard location >= 0, location < units.count else { return nil }
        var start = 0
        for run in runs {
            if location < start + run.length { return (run.attributes, CFRange(location: start, length: run.length)) }
            start += run.length
        }
        return nil
    }

    // MARK: - Changes (ranges already checked by the caller)

    /// True when `range` lies inside the text.
    package func contains(_ range: CFRange) -> Bool {
        range.location >= 0 && range.length >= 0 && range.location <= units.count && range.length <= units.count - range.location
    }

    /// Replaces the units in `range` with `replacement`; the new text takes
    /// the attributes of the first replaced unit (or of the one before an
    /// insertion, as CFAttributedString does).
    package func replace(_ range: CFRange, with replacement: String) {
        let new = Array(replacement.utf16)
        let lower = range.location, upper = range.location + range.length
        var inherited = TextAttributes()
        if let (a, _) = attributes(at: range.length > 0 ? lower : Swift.max(lower - 1, 0)) { inherited = a }
        units.replaceSubrange(lower..<upper, with: new)
        // Rebuild the runs: those before, the replacement, those after.
        var out: [(length: Int, attributes: TextAttributes)] = []
        var start = 0
        for run in runs {
            let end = start + run.length
            let before = Swift.min(end, lower) - start
            if before > 0 { out.append((before, run.attributes)) }
            start = end
        }
        if !new.isEmpty { out.append((new.count, inherited)) }
        start = 0
        for run in runs {
            let end = start + run.length
            let after = end - Swift.max(start, upper)
            if after > 0 { out.append((after, run.attributes)) }
            start = end
        }
        runs = out
        coalesce()
        changed()
    }

    /// Applies `change` to the attributes of every unit in `range`.
    package func modifyAttributes(in range: CFRange, _ change: (inout TextAttributes) -> Void) {
        guard range.length > 0 else { return }
        let lower = range.location, upper = range.location + range.length
        var out: [(length: Int, attributes: TextAttributes)] = []
        var start = 0
        for run in runs {
            let end = start + run.length
            let a = Swift.max(start, lower), b = Swift.min(end, upper)
            if b <= a {
                out.append(run)
            } else {
                if a > start { out.append((a - start, run.attributes)) }
                var changedAttributes = run.attributes
                change(&changedAttributes)
                out.append((b - a, changedAttributes))
                if end > b { out.append((end - b, run.attributes)) }
            }
            start = end
        }
        runs = out
        coalesce()
        changed()
    }

    private func coalesce() {
        var out: [(length: Int, attributes: TextAttributes)] = []
        for run in runs where run.length > 0 {
            if let last = out.last, last.attributes.isEqual(to: run.attributes) {
                out[out.count - 1].length += run.length
            } else {
                out.append(run)
            }
        }
        runs = out
    }
}

/// UTF-8 bytes of UTF-16 text, with the byte offset of each UTF-16
/// position (Pango indexes by bytes, Apple's ranges by UTF-16 units).
package struct UTF8Text {
    package let bytes: [UInt8]
    /// offsets[i]: the byte where UTF-16 unit i's character starts (the
    /// second unit of a pair maps to the same character's end);
    /// offsets[count]: bytes.count.
    package let offsets: [Int32]

    package init(utf16 units: [UInt16]) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(units.count)
        var offsets = [Int32](repeating: 0, count: units.count + 1)
        var i = 0
        while i < units.count {
            offsets[i] = Int32(bytes.count)
            let u = units[i]
            var scalar: UInt32 = 0xFFFD
            var width = 1
            if u < 0xD800 || u > 0xDFFF {
                scalar = UInt32(u)
            } else if u <= 0xDBFF, i + 1 < units.count, units[i + 1] >= 0xDC00, units[i + 1] <= 0xDFFF {
                scalar = 0x10000 + ((UInt32(u) - 0xD800) << 10) + (UInt32(units[i + 1]) - 0xDC00)
                width = 2
            }
            UTF8Text.append(scalar, to: &bytes)
            if width == 2 { offsets[i + 1] = Int32(bytes.count) }
            i += width
        }
        offsets[units.count] = Int32(bytes.count)
        self.bytes = bytes
        self.offsets = offsets
    }

    package static func append(_ s: UInt32, to bytes: inout [UInt8]) {
        switch s {
        case ..<0x80: bytes.append(UInt8(s))
        case ..<0x800:
            bytes.append(UInt8(0xC0 | (s >> 6)))
            bytes.append(UInt8(0x80 | (s & 0x3F)))
        case ..<0x10000:
            bytes.append(UInt8(0xE0 | (s >> 12)))
            bytes.append(UInt8(0x80 | ((s >> 6) & 0x3F)))
            bytes.append(UInt8(0x80 | (s & 0x3F)))
        default:
            bytes.append(UInt8(0xF0 | (s >> 18)))
            bytes.append(UInt8(0x80 | ((s >> 12) & 0x3F)))
            bytes.append(UInt8(0x80 | ((s >> 6) & 0x3F)))
            bytes.append(UInt8(0x80 | (s & 0x3F)))
        }
    }
}

extension CFRange {
    /// Core Text's range of `count` items: a length of 0 means "to the end".
    /// Nil when it does not lie inside 0..<count (checked without arithmetic
    /// that could overflow: outside ranges come from the host).
    package func resolved(count: Int) -> CFRange? {
        guard location >= 0, length >= 0, location <= count, length <= count - location else { return nil }
        return CFRange(location: location, length: length == 0 ? count - location : length)
    }
}
