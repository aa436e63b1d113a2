import CQuartzite
import QuartziteCore
import QuartziteGeometry

// Layer filters: compositingFilter, filters and backgroundFilters. Apple's
// properties hold Core Image filters (CIFilter objects) or, for
// compositingFilter, a filter name string. Quartzite reads them from values:
//
// - compositingFilter: a string naming a blend mode or a Porter-Duff
//   operator ("multiplyBlendMode", "CIMultiplyBlendMode", "sourceIn", ...)
//   or a dictionary whose "name" entry is such a string.
// - filters, backgroundFilters: an array whose items are dictionaries with a
//   "name" entry naming a Core Image filter and its inputs under Core Image's
//   input keys (inputs left out take Core Image's defaults), or bare name
//   strings (all inputs default):
//     CIGaussianBlur   inputRadius (number, default 10; the Gaussian's
//                      standard deviation in points, as Core Image's)
//     CIColorMatrix    inputRVector, inputGVector, inputBVector,
//                      inputAVector, inputBiasVector (arrays of 4 numbers;
//                      defaults: the identity and zero bias)
//     CIColorControls  inputSaturation (1), inputBrightness (0), inputContrast (1)
//   A dictionary may name its filter's type under "CIAttributeFilterName"
//   instead, its "name" then being the filter's own name for key paths
//   ("filters.blur.inputRadius": see the end of this file).
//
// The setters check the value: an unknown name records
// QZErrorUnknownConstant, a wrong value type QZErrorWrongType, a NaN or
// infinite input QZErrorNotFinite, a negative radius QZErrorInvalidArgument,
// and the property keeps its previous value. The renderer reads the stored
// value again and skips what it cannot understand (a style dictionary's
// values are not checked when set).

/// How a layer (its group) is composited with what lies behind it: W3C
/// Compositing and Blending Level 1's blend modes (source-over composited)
/// and Porter-Duff operators, plus Apple's plus-lighter and plus-darker.
package enum CompositingMode: UInt8, CaseIterable, Sendable {
    case sourceOver = 0
    case multiply, screen, overlay, darken, lighten, colorDodge, colorBurn, softLight, hardLight, difference, exclusion
    case hue, saturation, color, luminosity
    case clear, copy, sourceIn, sourceOut, sourceAtop, destinationOver, destinationIn, destinationOut, destinationAtop, xor
    case plusLighter, plusDarker

    /// Whether the mode is a separable blend mode (per channel).
    package var isSeparableBlend: Bool { rawValue >= 1 && rawValue <= 11 }
    /// Whether the mode is a non-separable blend mode (hue ... luminosity).
    package var isNonSeparableBlend: Bool { rawValue >= 12 && rawValue <= 15 }

    /// Apple's names: Core Animation's filter names (kCAFilter...) and the
    /// equivalent Core Image filter names.
    package static let names: [String: CompositingMode] = {
        var m: [String: CompositingMode] = [
            "sourceOver": .sourceOver, "normalBlendMode": .sourceOver, "CISourceOverCompositing": .sourceOver,
            "clear": .clear, "copy": .copy,
            "sourceIn": .sourceIn, "CISourceInCompositing": .sourceIn,
            "sourceOut": .sourceOut, "CISourceOutCompositing": .sourceOut,
            "sourceAtop": .sourceAtop, "CISourceAtopCompositing": .sourceAtop,
            "destOver": .destinationOver, "destIn": .destinationIn, "destOut": .destinationOut, "destAtop": .destinationAtop,
            "xor": .xor, "plusL": .plusLighter, "plusD": .plusDarker, "CIAdditionCompositing": .plusLighter,
        ]
        let blends: [(String, CompositingMode)] = [
            ("multiply", .multiply), ("screen", .screen), ("overlay", .overlay), ("darken", .darken),
            ("lighten", .lighten), ("colorDodge", .colorDodge), ("colorBurn", .colorBurn), ("softLight", .softLight),
            ("hardLight", .hardLight), ("difference", .difference), ("exclusion", .exclusion), ("hue", .hue),
            ("saturation", .saturation), ("color", .color), ("luminosity", .luminosity),
        ]
        for (n, mode) in blends {
            m[n + "BlendMode"] = mode
            m["CI" + n.prefix(1).uppercased() + n.dropFirst() + "BlendMode"] = mode
        }
        return m
    }()

    /// The mode a compositingFilter value names; nil for nil (source-over)
    /// and for values it cannot read.
    package static func of(_ v: Value?) -> CompositingMode? {
        guard let v else { return nil }
        if let s = v.string { return names[s] }
        if case .dictionary(let d) = v.storage, let s = d["name"]?.string { return names[s] }
        return nil
    }

    /// Checks a compositingFilter value (nil is fine), recording the error.
    package static func validate(_ v: Value?, key: String, function: StaticString) -> Bool {
        guard let v else { return true }
        var name: String?
        if let s = v.string { name = s }
        if case .dictionary(let d) = v.storage { name = d["name"]?.string }
        guard let name else {
            recordError(QZErrorWrongType, function, "\(key) takes a filter name string or a dictionary with a \"name\" string")
            return false
        }
        guard names[name] != nil else {
            recordError(QZErrorUnknownConstant, function, "\(key): unknown compositing filter \"\(name)\"")
            return false
        }
        return true
    }
}

/// One filter of `filters` or `backgroundFilters`, its inputs resolved.
package enum LayerFilter: Equatable, Sendable {
    /// Core Image's CIGaussianBlur; `radius` is the standard deviation in points.
    case gaussianBlur(radius: Double)
    /// CIColorMatrix: out = (R·in, G·in, B·in, A·in) + bias on unpremultiplied RGBA.
    case colorMatrix(r: SIMD4<Float>, g: SIMD4<Float>, b: SIMD4<Float>, a: SIMD4<Float>, bias: SIMD4<Float>)
    /// CIColorControls: saturation, then brightness (added), then contrast
    /// (about 0.5), on unpremultiplied RGB.
    case colorControls(saturation: Float, brightness: Float, contrast: Float)

    package static let knownNames = ["CIGaussianBlur", "CIColorMatrix", "CIColorControls"]

    /// The entry naming a filter's Core Image type when its "name" is its
    /// own (Core Image's attribute key: a CIFilter renamed with `name`
    /// keeps its type under kCIAttributeFilterName).
    package static let typeKey = "CIAttributeFilterName"

    /// Each known filter's inputs and their defaults (Core Image's).
    package static let inputDefaults: [String: [String: Value]] = {
        func vector(_ a: Double, _ b: Double, _ c: Double, _ d: Double) -> Value {
            Value(.array([a, b, c, d].map { Value(.number($0)) }))
        }
        return [
            "CIGaussianBlur": ["inputRadius": Value(.number(10))],
            "CIColorMatrix": ["inputRVector": vector(1, 0, 0, 0), "inputGVector": vector(0, 1, 0, 0),
                              "inputBVector": vector(0, 0, 1, 0), "inputAVector": vector(0, 0, 0, 1),
                              "inputBiasVector": vector(0, 0, 0, 0)],
            "CIColorControls": ["inputSaturation": Value(.number(1)), "inputBrightness": Value(.number(0)),
                                "inputContrast": Value(.number(1))],
        ]
    }()

    /// Reads an array of filters; nil (with an error recorded naming
    /// `function` when `report`) when anything in it cannot be read.
    package static func parse(_ v: Value?, key: String = "filters", function: StaticString = #function,
                              report: Bool = false) -> [LayerFilter]? {
        guard let v else { return [] }
        func fail(_ code: QZError, _ message: String) -> [LayerFilter]? {
            if report { recordError(code, function, "\(key): \(message)") }
            return nil
        }
        guard case .array(let items) = v.storage else {
            return fail(QZErrorWrongType, "takes an array of filters (dictionaries with a \"name\" string, or name strings)")
        }
        var out: [LayerFilter] = []
        for (i, item) in items.enumerated() {
            var inputs = ValueDictionary()
            let name: String
            if let s = item.string {
                name = s
            } else if case .dictionary(let d) = item.storage, let s = (d[typeKey] ?? d["name"])?.string {
                name = s
                inputs = d
            } else {
                return fail(QZErrorWrongType, "item \(i) is not a filter (a dictionary with a \"name\" string, or a name string)")
            }
            func number(_ k: String, _ fallback: Double) -> Result<Double, FilterInputError> {
                guard let x = inputs[k] else { return .success(fallback) }
                guard let n = x.number, x.type == CAValueTypeNumber else { return .failure(.type("\(k) takes a number")) }
                guard n.isFinite else { return .failure(.notFinite("\(k) must be finite, got \(n)")) }
                return .success(n)
            }
            func vector(_ k: String, _ fallback: SIMD4<Float>) -> Result<SIMD4<Float>, FilterInputError> {
                guard let x = inputs[k] else { return .success(fallback) }
                guard case .array(let a) = x.storage, a.count == 4, a.allSatisfy({ $0.type == CAValueTypeNumber }) else {
                    return .failure(.type("\(k) takes an array of 4 numbers"))
                }
                let n = a.map { $0.number ?? .nan }
                guard n.allSatisfy({ $0.isFinite }) else { return .failure(.notFinite("\(k) must be finite")) }
                return .success(SIMD4(Float(n[0]), Float(n[1]), Float(n[2]), Float(n[3])))
            }
            do {
                switch name {
                case "CIGaussianBlur":
                    let r = try number("inputRadius", 10).get()
                    guard r >= 0 else { return fail(QZErrorInvalidArgument, "inputRadius must not be negative, got \(r)") }
                    out.append(.gaussianBlur(radius: r))
                case "CIColorMatrix":
                    out.append(.colorMatrix(r: try vector("inputRVector", SIMD4(1, 0, 0, 0)).get(),
                                            g: try vector("inputGVector", SIMD4(0, 1, 0, 0)).get(),
                                            b: try vector("inputBVector", SIMD4(0, 0, 1, 0)).get(),
                                            a: try vector("inputAVector", SIMD4(0, 0, 0, 1)).get(),
                                            bias: try vector("inputBiasVector", SIMD4(0, 0, 0, 0)).get()))
                case "CIColorControls":
                    out.append(.colorControls(saturation: Float(try number("inputSaturation", 1).get()),
                                              brightness: Float(try number("inputBrightness", 0).get()),
                                              contrast: Float(try number("inputContrast", 1).get())))
                default:
                    return fail(QZErrorUnknownConstant, "unknown filter \"\(name)\" (known: \(knownNames.joined(separator: ", ")))")
                }
            } catch let e {
                switch e {
                case .type(let m): return fail(QZErrorWrongType, "\(name): \(m)")
                case .notFinite(let m): return fail(QZErrorNotFinite, "\(name): \(m)")
                }
            }
        }
        return out
    }

    /// The blur's standard deviation in points (0 for the other filters).
    package var blurRadius: Double {
        if case .gaussianBlur(let r) = self { return r }
        return 0
    }
}

package enum FilterInputError: Error { case type(String), notFinite(String) }

// MARK: - Key paths into filters

// Apple's filters are addressed by name in key paths: a filter whose name
// is "blur" in a layer's filters has its inputs at "filters.blur.inputRadius"
// (likewise backgroundFilters), for setValue:forKeyPath:, valueForKeyPath:
// and animations. Here a filter's name is its dictionary's "name" entry (or
// the string of a bare name item): a filter given as {"name": "blur",
// "CIAttributeFilterName": "CIGaussianBlur"} is "blur"; one given as
// {"name": "CIGaussianBlur"} answers to its type's name, as an unnamed
// CIFilter does.
extension LayerFilter {
    /// The index of the first item of `items` named `name`.
    private static func index(named name: Substring, in items: [Value]) -> Int? {
        items.firstIndex { item in
            if let s = item.string { return s == name }
            if case .dictionary(let d) = item.storage { return d["name"]?.string.map { $0 == name } ?? false }
            return false
        }
    }

    /// An item as a dictionary (a bare name string: {"name": it}) and its type.
    private static func dictionary(_ item: Value) -> (ValueDictionary, String?)? {
        if let s = item.string {
            var d = ValueDictionary()
            d.set(item, for: "name")
            return (d, s)
        }
        guard case .dictionary(let d) = item.storage else { return nil }
        return (d, (d[typeKey] ?? d["name"])?.string)
    }

    /// The value at `path` (filter name, input, [fields]) in a filters
    /// array: the input as set, else the filter type's default; nil when
    /// there is no such filter or input.
    package static func value(in filters: Value, at path: [Substring]) -> Value? {
        guard path.count >= 2, case .array(let items) = filters.storage,
              let i = index(named: path[0], in: items), let (d, type) = dictionary(items[i]) else { return nil }
        let key = String(path[1])
        let input = d[key] ?? type.flatMap { inputDefaults[$0]?[key] }
        return input?.field(Array(path.dropFirst(2)))
    }

    /// A copy of `filters` with the value at `path` replaced; nil (with an
    /// error recorded naming `function`) when the filter or the input is not
    /// there. (The setter then checks the value as for the whole array.)
    package static func setting(_ filters: Value?, at path: [Substring], to newValue: Value, key: String,
                                function: StaticString) -> Value? {
        let whole = "\(key).\(path.joined(separator: "."))"
        guard path.count >= 2, let filters, case .array(var items) = filters.storage,
              let i = index(named: path[0], in: items), let (found, type) = dictionary(items[i]) else {
            recordError(QZErrorInvalidArgument, function,
                        "\"\(whole)\": \(key) has no filter named \"\(path.first ?? "")\"")
            return nil
        }
        var d = found
        let input = String(path[1])
        let known = type.flatMap { inputDefaults[$0] }
        guard let current = d[input] ?? known?[input] else {
            recordError(QZErrorInvalidArgument, function,
                        "\"\(whole)\": \(type ?? "the filter") has no input \"\(input)\"")
            return nil
        }
        guard let updated = current.setting(Array(path.dropFirst(2)), to: newValue) else {
            recordError(QZErrorInvalidArgument, function, "\"\(whole)\" does not name a field that takes this value")
            return nil
        }
        d.set(updated, for: input)
        items[i] = Value(.dictionary(d))
        return Value(.array(items))
    }
}
