import CQuartzite

/// Every declared property of CALayer and of the built-in subclasses, by its
/// KVC key. Undeclared keys are custom keys (stored per layer).
public enum LayerKey: Int, CaseIterable, Sendable {
    // Geometry
    case bounds, position, zPosition, anchorPoint, anchorPointZ, transform, sublayerTransform, frame
    // Contents
    case contents, contentsRect, contentsCenter, contentsGravity, contentsScale
    case minificationFilter, minificationFilterBias, magnificationFilter
    // Appearance
    case opacity, hidden, masksToBounds, mask, doubleSided, cornerRadius, borderWidth, borderColor
    case backgroundColor, shadowOpacity, shadowRadius, shadowOffset, shadowColor, shadowPath
    case opaque, edgeAntialiasingMask, geometryFlipped, needsDisplayOnBoundsChange
    case shouldRasterize, rasterizationScale, filters, backgroundFilters, compositingFilter
    case style, name, actions, sublayers
    // CAMediaTiming
    case beginTime, duration, speed, timeOffset, repeatCount, repeatDuration, autoreverses, fillMode
    // CAScrollLayer
    case scrollMode
    // CATextLayer
    case string, font, fontSize, foregroundColor, wrapped, alignmentMode, truncationMode
    // CATiledLayer
    case levelsOfDetail, levelsOfDetailBias, tileSize
    // CAEAGLLayer (EAGLDrawable)
    case drawableProperties

    public var name: String {
        switch self {
        case .bounds: return "bounds"
        case .position: return "position"
        case .zPosition: return "zPosition"
        case .anchorPoint: return "anchorPoint"
        case .anchorPointZ: return "anchorPointZ"
        case .transform: return "transform"
        case .sublayerTransform: return "sublayerTransform"
        case .frame: return "frame"
        case .contents: return "contents"
        case .contentsRect: return "contentsRect"
        case .contentsCenter: return "contentsCenter"
        case .contentsGravity: return "contentsGravity"
        case .contentsScale: return "contentsScale"
        case .minificationFilter: return "minificationFilter"
        case .minificationFilterBias: return "minificationFilterBias"
        case .magnificationFilter: return "magnificationFilter"
        case .opacity: return "opacity"
        case .hidden: return "hidden"
        case .masksToBounds: return "masksToBounds"
        case .mask: return "mask"
        case .doubleSided: return "doubleSided"
        case .cornerRadius: return "cornerRadius"
        case .borderWidth: return "borderWidth"
        case .borderColor: return "borderColor"
        case .backgroundColor: return "backgroundColor"
        case .shadowOpacity: return "shadowOpacity"
        case .shadowRadius: return "shadowRadius"
        case .shadowOffset: return "shadowOffset"
        case .shadowColor: return "shadowColor"
        case .shadowPath: return "shadowPath"
        case .opaque: return "opaque"
        case .edgeAntialiasingMask: return "edgeAntialiasingMask"
        case .geometryFlipped: return "geometryFlipped"
        case .needsDisplayOnBoundsChange: return "needsDisplayOnBoundsChange"
        case .shouldRasterize: return "shouldRasterize"
        case .rasterizationScale: return "rasterizationScale"
        case .filters: return "filters"
        case .backgroundFilters: return "backgroundFilters"
        case .compositingFilter: return "compositingFilter"
        case .style: return "style"
        case .name: return "name"
        case .actions: return "actions"
        case .sublayers: return "sublayers"
        case .beginTime: return "beginTime"
        case .duration: return "duration"
        case .speed: return "speed"
        case .timeOffset: return "timeOffset"
        case .repeatCount: return "repeatCount"
        case .repeatDuration: return "repeatDuration"
        case .autoreverses: return "autoreverses"
        case .fillMode: return "fillMode"
        case .scrollMode: return "scrollMode"
        case .string: return "string"
        case .font: return "font"
        case .fontSize: return "fontSize"
        case .foregroundColor: return "foregroundColor"
        case .wrapped: return "wrapped"
        case .alignmentMode: return "alignmentMode"
        case .truncationMode: return "truncationMode"
        case .levelsOfDetail: return "levelsOfDetail"
        case .levelsOfDetailBias: return "levelsOfDetailBias"
        case .tileSize: return "tileSize"
        case .drawableProperties: return "drawableProperties"
        }
    }

    static let byName: [String: LayerKey] = {
        var table: [String: LayerKey] = [:]
        for key in LayerKey.allCases { table[key.name] = key }
        return table
    }()

    /// The built-in class that declares the key (subclass keys are custom keys
    /// on layers of other classes).
    var declaringKind: BuiltinLayerKind {
        switch self {
        case .scrollMode: return .scroll
        case .string, .font, .fontSize, .foregroundColor, .wrapped, .alignmentMode, .truncationMode: return .text
        case .levelsOfDetail, .levelsOfDetailBias, .tileSize: return .tiled
        case .drawableProperties: return .eagl
        default: return .layer
        }
    }

    /// CATextLayer's properties, whose changes redraw its text.
    var redrawsText: Bool {
        switch self {
        case .string, .font, .fontSize, .foregroundColor, .wrapped, .alignmentMode, .truncationMode: return true
        default: return false
        }
    }

    /// Whether the spec marks the property animatable (used by implicit actions).
    public var isAnimatable: Bool {
        switch self {
        case .bounds, .position, .zPosition, .anchorPoint, .anchorPointZ, .transform, .sublayerTransform,
             .frame, .contents, .contentsRect, .contentsCenter, .contentsScale, .minificationFilterBias,
             .opacity, .hidden, .masksToBounds, .doubleSided, .cornerRadius, .borderWidth, .borderColor,
             .backgroundColor, .shadowOpacity, .shadowRadius, .shadowOffset, .shadowColor, .shadowPath,
             .filters, .backgroundFilters, .compositingFilter, .sublayers, .mask, .rasterizationScale,
             .string, .fontSize, .foregroundColor:
            return true
        default:
            return false
        }
    }

    /// The style dictionary never supplies bounds or frame (the spec), nor the
    /// tree's structure (sublayers, mask) or itself.
    var usesStyle: Bool {
        switch self {
        case .bounds, .frame, .style, .sublayers, .mask: return false
        default: return true
        }
    }

    /// Whether `value` has the kind of value this key holds (for the style
    /// fallback, which is not checked when the dictionary is set).
    func accepts(_ value: Value) -> Bool {
        switch value.storage {
        case .number, .bool:
            switch self {
            case .zPosition, .anchorPointZ, .opacity, .hidden, .masksToBounds, .doubleSided, .cornerRadius,
                 .borderWidth, .shadowOpacity, .shadowRadius, .opaque, .edgeAntialiasingMask, .geometryFlipped,
                 .needsDisplayOnBoundsChange, .shouldRasterize, .rasterizationScale, .contentsScale,
                 .minificationFilterBias, .beginTime, .duration, .speed, .timeOffset, .repeatCount,
                 .repeatDuration, .autoreverses, .fontSize, .wrapped, .levelsOfDetail, .levelsOfDetailBias:
                return value.number!.isNaN == false
            default: return false
            }
        case .point: return self == .position || self == .anchorPoint
        case .size: return self == .shadowOffset || self == .tileSize
        case .rect: return self == .contentsRect || self == .contentsCenter
        case .transform3D, .affineTransform: return self == .transform || self == .sublayerTransform
        case .color: return self == .borderColor || self == .backgroundColor || self == .shadowColor || self == .foregroundColor
        case .string(let s):
            if let set = ConstantSet.forKey(self) { return set.index(of: s.string) != nil }
            return self == .name || self == .string || self == .font || self == .compositingFilter
        case .null: return false
        case .array: return self == .filters || self == .backgroundFilters || self == .string
        case .dictionary: return self == .actions || self == .drawableProperties
        case .object(let o):
            return self == .contents || (self == .shadowPath && o is Path) || self == .compositingFilter
                || (self == .string && o is AttributedText) || (self == .font && o is Font)
        }
    }

    /// The bit recording that the property was set explicitly.
    @inline(__always) var bit: UInt64 { 1 << UInt64(rawValue & 63) }
    @inline(__always) var word: Int { rawValue >> 6 }
}

/// The built-in layer classes a class derives from.
public enum BuiltinLayerKind: UInt8, Sendable {
    case layer, scroll, text, tiled, eagl
}

/// Named string constants a property accepts (contentsGravity, filters, ...),
/// stored as small integers and handed out as static C strings.
struct ConstantSet {
    let names: [StaticString]

    func index(of name: String) -> UInt8? {
        for (i, n) in names.enumerated() where n.description == name { return UInt8(i) }
        return nil
    }

    func cString(_ index: UInt8) -> UnsafePointer<CChar> {
        UnsafeRawPointer(names[Int(index)].utf8Start).assumingMemoryBound(to: CChar.self)
    }

    func name(_ index: UInt8) -> String { names[Int(index)].description }

    static let gravity = ConstantSet(names: ["center", "top", "bottom", "left", "right", "topLeft", "topRight",
                                             "bottomLeft", "bottomRight", "resize", "resizeAspect", "resizeAspectFill"])
    static let gravityResize: UInt8 = 9
    static let filter = ConstantSet(names: ["nearest", "linear", "trilinear"])
    static let filterLinear: UInt8 = 1
    static let fillMode = ConstantSet(names: ["removed", "forwards", "backwards", "both", "frozen"])
    static let scrollMode = ConstantSet(names: ["both", "none", "vertically", "horizontally"])
    static let alignment = ConstantSet(names: ["natural", "left", "right", "center", "justified"])
    static let truncation = ConstantSet(names: ["none", "start", "end", "middle"])

    /// The constant set of a string-valued key.
    static func forKey(_ key: LayerKey) -> ConstantSet? {
        switch key {
        case .contentsGravity: return .gravity
        case .minificationFilter, .magnificationFilter: return .filter
        case .fillMode: return .fillMode
        case .scrollMode: return .scrollMode
        case .alignmentMode: return .alignment
        case .truncationMode: return .truncation
        default: return nil
        }
    }
}
