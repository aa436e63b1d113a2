import CPango
import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo

// A font at a size (Apple's CTFontRef). Names resolve through fontconfig;
// Apple's common names map to metric-compatible faces first, so layouts
// written for Apple platforms keep their widths: Helvetica and Arial (and
// the system font) to Liberation Sans, Times to Liberation Serif, Courier
// and Menlo to Liberation Mono (fonts-liberation2). A PostScript-style
// suffix ("Helvetica-Bold", "Times-Italic") picks the weight and slant. A
// name fontconfig does not know falls back, as Apple does, to the default
// face (Helvetica, here Liberation Sans) with the suffix's style.

/// Weight and slant read from a font name's suffix.
package struct FontStyle: Hashable {
    package var weight: PangoWeight = PANGO_WEIGHT_NORMAL
    package var italic = false

    /// "Bold", "BoldOblique", "Italic", "Light", "Roman", ... (case-insensitive).
    package init?(suffix: String) {
        let s = suffix.lowercased().replacingAll(" ", with: "")
        var rest = s
        func take(_ word: String) -> Bool {
            if rest.hasPrefix(word) { rest.removeFirst(word.count); return true }
            return false
        }
        if take("ultralight") || take("extralight") || take("thin") { weight = PANGO_WEIGHT_ULTRALIGHT }
        else if take("light") { weight = PANGO_WEIGHT_LIGHT }
        else if take("medium") { weight = PANGO_WEIGHT_MEDIUM }
        else if take("semibold") || take("demibold") { weight = PANGO_WEIGHT_SEMIBOLD }
        else if take("bold") { weight = PANGO_WEIGHT_BOLD }
        else if take("heavy") || take("black") { weight = PANGO_WEIGHT_HEAVY }
        else { _ = take("regular") || take("roman") || take("book") || take("plain") }
        if take("italic") || take("oblique") { italic = true }
        _ = take("mt")
        if !rest.isEmpty { return nil }
    }

    package init() {}
}

extension String {
    package func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        for c in self { if c == target { out += replacement } else { out.append(c) } }
        return out
    }
}

public final class Font: QZObject, Handle {
    /// The name asked for (CTFontCreateWithName).
    public let requestedName: String
    /// The family of the face that draws it ("Liberation Sans").
    public let familyName: String
    /// The face's PostScript name ("LiberationSans-Bold").
    public let postScriptName: String
    /// The face's full name ("Liberation Sans Bold").
    public let fullName: String
    /// The face's file.
    public let filePath: String
    /// Points.
    public let size: Double
    public let ascent: Double
    public let descent: Double
    public let leading: Double
    public let underlinePosition: Double
    public let underlineThickness: Double
    package let style: FontStyle
    /// The family Pango is asked for (the resolved one, or a fallback list).
    package let pangoFamily: String
    /// Owned PangoFontDescription.
    package let description: OpaquePointer

    @inlinable package static var handleKind: ObjectKind { .font }
    @inlinable package static func accepts(_ tag: UInt32) -> Bool { tag == tagMagic | UInt32(ObjectKind.font.rawValue) }

    /// Apple's default size (CTFontCreateWithName with size 0).
    public static let defaultSize = 12.0
    /// Sizes are clamped to this (Pango measures in 1/1024 points in 32-bit integers).
    public static let maximumSize = 4096.0

    private init(requestedName: String, family: String, style: FontStyle, size: Double) {
        self.requestedName = requestedName
        self.size = size
        self.style = style
        pangoFamily = family
        let d = pango_font_description_new()!
        pango_font_description_set_family(d, family)
        pango_font_description_set_weight(d, style.weight)
        pango_font_description_set_style(d, style.italic ? PANGO_STYLE_ITALIC : PANGO_STYLE_NORMAL)
        pango_font_description_set_absolute_size(d, size * Double(PANGO_SCALE))
        description = d
        let system = TextSystem.shared
        var face = Face()
        var ascent = 0.0, descent = 0.0, leading = 0.0, underlinePosition = 0.0, underlineThickness = 0.0
        if let font = pango_context_load_font(system.context, d) {
            face = Face(font)
            if let m = pango_font_get_metrics(font, nil) {
                let scale = 1 / Double(PANGO_SCALE)
                ascent = Double(pango_font_metrics_get_ascent(m)) * scale
                descent = Double(pango_font_metrics_get_descent(m)) * scale
                let height = Double(pango_font_metrics_get_height(m)) * scale
                leading = Swift.max(0, height - ascent - descent)
                underlinePosition = Double(pango_font_metrics_get_underline_position(m)) * scale
                underlineThickness = Double(pango_font_metrics_get_underline_thickness(m)) * scale
                pango_font_metrics_unref(m)
            }
            g_object_unref(UnsafeMutableRawPointer(font))
        }
        familyName = face.family ?? family
        postScriptName = face.postScriptName ?? family
        fullName = face.fullName ?? family
        filePath = face.file ?? ""
        self.ascent = ascent
        self.descent = descent
        self.leading = leading
        self.underlinePosition = underlinePosition
        self.underlineThickness = underlineThickness
        super.init(kind: .font)
    }

    deinit { withTextLock { pango_font_description_free(description) } }

    /// The font named `name` at `size` points (0: 12; clamped to
    /// 0...maximumSize). Callers hold the text lock.
    package static func named(_ name: String, size: Double) -> Font {
        var s = size.isFinite ? size : defaultSize
        if s <= 0 { s = size == 0 ? defaultSize : 0 }
        s = Swift.min(s, maximumSize)
        let system = TextSystem.shared
        if let f = system.fonts.recent(named: name, size: s) { return f }
        let key = FontCache.Key(name: name, size: s)
        if let f = system.fonts[key] { return f }
        let (family, style) = resolve(name)
        let f = Font(requestedName: name, family: family, style: style, size: s)
        system.fonts[key] = f
        return f
    }

    /// The same face at another size.
    package func withSize(_ size: Double) -> Font { size == self.size ? self : Font.named(requestedName, size: size) }

    /// CATextLayer's and Core Text's default face: Helvetica.
    package static let defaultName = "Helvetica"

    // MARK: - Name resolution

    /// Apple's names and the faces that keep their metrics.
    package static let appleFamilies: [String: String] = {
        var t: [String: String] = [:]
        for n in ["helvetica", "helveticaneue", "arial", "arialmt", "system", ".sfui", ".sfuitext", ".sfuidisplay",
                  "sfpro", "sfprotext", "sfprodisplay", ".applesystemuifont", "sanfrancisco", "lucidagrande", "verdana",
                  "geneva", "sans-serif", "sansserif"] {
            t[n] = "Liberation Sans"
        }
        for n in ["times", "timesnewroman", "timesnewromanps", "timesnewromanpsmt", "timesroman", "georgia", "serif",
                  "newyork"] {
            t[n] = "Liberation Serif"
        }
        for n in ["courier", "couriernew", "couriernewps", "couriernewpsmt", "menlo", "monaco", "sfmono", ".sfmono",
                  "sfmono-regular", "monospace", "andalemono"] {
            t[n] = "Liberation Mono"
        }
        return t
    }()

    /// The family and style for `name`.
    package static func resolve(_ name: String) -> (String, FontStyle) {
        let trimmed = name.trimmingSpaces
        // Apple's names, whole or with a style suffix.
        let key = trimmed.lowercased().replacingAll(" ", with: "")
        if let family = appleFamilies[key] { return (family, FontStyle()) }
        if let dash = trimmed.lastIndex(of: "-") {
            let base = String(trimmed[..<dash]), suffix = String(trimmed[trimmed.index(after: dash)...])
            if let family = appleFamilies[base.lowercased().replacingAll(" ", with: "")], let style = FontStyle(suffix: suffix) {
                return (family, style)
            }
        }
        // A family fontconfig knows, or a face's PostScript name.
        if !trimmed.isEmpty {
            if FontCatalog.hasFamily(trimmed) { return (trimmed, FontStyle()) }
            if let (family, style) = FontCatalog.face(postScriptName: trimmed) { return (family, style) }
            if let dash = trimmed.lastIndex(of: "-") {
                let base = String(trimmed[..<dash])
                if let style = FontStyle(suffix: String(trimmed[trimmed.index(after: dash)...])), FontCatalog.hasFamily(base) {
                    return (base, style)
                }
            }
        }
        // Unknown: the default face, in the style the suffix asks for.
        var style = FontStyle()
        if let dash = trimmed.lastIndex(of: "-"), let s = FontStyle(suffix: String(trimmed[trimmed.index(after: dash)...])) {
            style = s
        }
        return ("Liberation Sans", style)
    }
}

extension String {
    package var trimmingSpaces: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}

/// What fontconfig says about a loaded face.
private struct Face {
    package var family: String?
    package var postScriptName: String?
    package var fullName: String?
    package var file: String?

    package init() {}

    package init(_ font: UnsafeMutablePointer<PangoFont>) {
        // Pango's fontconfig fonts (every font of a cairo font map on Linux)
        // keep their fontconfig pattern.
        let fc = UnsafeMutableRawPointer(font).assumingMemoryBound(to: PangoFcFont.self)
        guard let pattern = fc.pointee.font_pattern else { return }
        family = FontCatalog.string(pattern, FC_FAMILY)
        postScriptName = FontCatalog.string(pattern, FC_POSTSCRIPT_NAME)
        fullName = FontCatalog.string(pattern, FC_FULLNAME)
        file = FontCatalog.string(pattern, FC_FILE)
    }
}

/// Questions to fontconfig about the installed faces (the font map's configuration).
package enum FontCatalog {
    package static func string(_ pattern: OpaquePointer, _ object: UnsafePointer<CChar>) -> String? {
        var value: UnsafeMutablePointer<FcChar8>?
        guard FcPatternGetString(pattern, object, 0, &value) == FcResultMatch, let value else { return nil }
        return String(cString: UnsafeRawPointer(value).assumingMemoryBound(to: CChar.self))
    }

    /// The faces matching one property exactly (family or PostScript name).
    private static func list(_ object: UnsafePointer<CChar>, _ value: String) -> [OpaquePointer] {
        guard let pattern = FcPatternCreate() else { return [] }
        defer { FcPatternDestroy(pattern) }
        _ = value.withCString { v in FcPatternAddString(pattern, object, UnsafeRawPointer(v).assumingMemoryBound(to: FcChar8.self)) }
        guard let objects = FcObjectSetCreate() else { return [] }
        defer { FcObjectSetDestroy(objects) }
        _ = FcObjectSetAdd(objects, FC_FAMILY)
        _ = FcObjectSetAdd(objects, FC_WEIGHT)
        _ = FcObjectSetAdd(objects, FC_SLANT)
        guard let set = FcFontList(TextSystem.shared.fcConfig, pattern, objects) else { return [] }
        var out: [OpaquePointer] = []
        for i in 0..<Int(set.pointee.nfont) {
            if let p = set.pointee.fonts[i] {
                FcPatternReference(p)
                out.append(p)
            }
        }
        FcFontSetDestroy(set)
        return out
    }

    package static func hasFamily(_ family: String) -> Bool {
        let found = list(FC_FAMILY, family)
        for p in found { FcPatternDestroy(p) }
        return !found.isEmpty
    }

    /// The family and style of the face with this PostScript name.
    package static func face(postScriptName name: String) -> (String, FontStyle)? {
        let found = list(FC_POSTSCRIPT_NAME, name)
        defer { for p in found { FcPatternDestroy(p) } }
        guard let p = found.first, let family = string(p, FC_FAMILY) else { return nil }
        var style = FontStyle()
        var weight: Int32 = 0, slant: Int32 = 0
        if FcPatternGetInteger(p, FC_WEIGHT, 0, &weight) == FcResultMatch {
            style.weight = pango_weight(fcWeight: weight)
        }
        if FcPatternGetInteger(p, FC_SLANT, 0, &slant) == FcResultMatch { style.italic = slant != 0 }
        return (family, style)
    }

    /// fontconfig's weight scale to Pango's (the nearest of Pango's steps).
    package static func pango_weight(fcWeight w: Int32) -> PangoWeight {
        switch w {
        case ..<45: return PANGO_WEIGHT_ULTRALIGHT
        case ..<65: return PANGO_WEIGHT_LIGHT
        case ..<90: return PANGO_WEIGHT_NORMAL
        case ..<140: return PANGO_WEIGHT_MEDIUM
        case ..<190: return PANGO_WEIGHT_SEMIBOLD
        case ..<205: return PANGO_WEIGHT_BOLD
        default: return PANGO_WEIGHT_HEAVY
        }
    }
}

/// Fonts by name and size, bounded (the oldest half is dropped when full).
package final class FontCache {
    package struct Key: Hashable {
        package let name: String
        package let size: Double
        /// Computed once (CacheKeyHash): the dictionary's probes hash only this.
        private let code: UInt64

        package init(name: String, size: Double) {
            self.name = name
            self.size = size
            var h = CacheKeyHash()
            h.add(name); h.add(size)
            code = h.value
        }

        package static func == (a: Key, b: Key) -> Bool { a.code == b.code && a.size == b.size && a.name == b.name }
        package func hash(into hasher: inout Hasher) { hasher.combine(code) }
        /// The dictionary's bucket hash: the code itself, mixed with the seed
        /// (no SipHash round per probe).
        package func _rawHashValue(seed: Int) -> Int { CacheKeyHash.mix(code, seed: seed) }
    }

    package static let capacity = 256
    private var entries: [Key: (Font, UInt64)] = [:]
    private var clock: UInt64 = 0

    package var count: Int { entries.count }

    /// The font the last lookup found or stored: labels mostly ask for the
    /// face the label before them used, which this answers without hashing
    /// the name. (It may outlive its entry's eviction: a font stays valid.)
    private var mostRecent: Font?

    package subscript(key: Key) -> Font? {
        get {
            guard let e = entries[key] else { return nil }
            clock &+= 1
            entries[key]?.1 = clock
            mostRecent = e.0
            return e.0
        }
        set {
            guard let newValue else {
                entries[key] = nil
                if let r = mostRecent, r.size == key.size, r.requestedName == key.name { mostRecent = nil }
                return
            }
            if entries.count >= FontCache.capacity { evictOldestHalf() }
            clock &+= 1
            entries[key] = (newValue, clock)
            mostRecent = newValue
        }
    }

    private func evictOldestHalf() {
        let stamps = entries.values.map { $0.1 }.sorted()
        let cut = stamps[stamps.count / 2]
        entries = entries.filter { $0.value.1 > cut }
    }

    /// The last font found or stored, when it is `name` at `size`.
    @inline(__always)
    package func recent(named name: String, size: Double) -> Font? {
        guard let f = mostRecent, f.size == size, f.requestedName == name else { return nil }
        return f
    }

    package func removeAll() {
        entries = [:]
        mostRecent = nil
    }
}
