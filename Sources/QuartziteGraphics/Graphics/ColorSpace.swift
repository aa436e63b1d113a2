import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo

/// A colour space (Apple's CGColorSpaceRef). Quartzite draws in sRGB: the
/// device RGB and sRGB spaces are the same, device gray maps gray g to the
/// sRGB colour (g, g, g). The model tells how many components colours have.
public final class ColorSpace: QZObject, Handle {
    /// Apple's CGColorSpaceModel values.
    public enum Model: Int32, Sendable {
        case monochrome = 0, rgb = 1

        public var componentCount: Int { self == .rgb ? 3 : 1 }
    }

    public let model: Model
    /// Apple's name (kCGColorSpaceSRGB, kCGColorSpaceGenericGrayGamma2_2, ...), or nil for device spaces.
    public let name: String?
    package let cName: CString?

    package init(model: Model, name: String?) {
        self.model = model
        self.name = name
        cName = name.map { CString($0) }
        super.init(kind: .colorSpace)
    }

    @inlinable package static var handleKind: ObjectKind { .colorSpace }
    @inlinable package static func accepts(_ tag: UInt32) -> Bool { tag == tagMagic | UInt32(ObjectKind.colorSpace.rawValue) }

    public static let deviceRGB = ColorSpace(model: .rgb, name: nil)
    public static let deviceGray = ColorSpace(model: .monochrome, name: nil)
    public static let sRGB = ColorSpace(model: .rgb, name: "kCGColorSpaceSRGB")

    /// The spaces CGColorSpaceCreateWithName knows (Apple's names and values).
    public static func named(_ name: String) -> ColorSpace? {
        switch name {
        case "kCGColorSpaceSRGB", "kCGColorSpaceGenericRGB", "kCGColorSpaceExtendedSRGB", "kCGColorSpaceLinearSRGB":
            return ColorSpace(model: .rgb, name: name)
        case "kCGColorSpaceGenericGray", "kCGColorSpaceGenericGrayGamma2_2", "kCGColorSpaceLinearGray",
             "kCGColorSpaceExtendedGray":
            return ColorSpace(model: .monochrome, name: name)
        default:
            return nil
        }
    }

    /// Straight RGBA of `components` (the space's components then alpha),
    /// clamped to 0...1.
    public func rgba(_ components: [Double]) -> SIMD4<Double> {
        func c(_ v: Double) -> Double { Swift.min(Swift.max(v, 0), 1) }
        switch model {
        case .rgb: return SIMD4(c(components[0]), c(components[1]), c(components[2]), c(components[3]))
        case .monochrome: return SIMD4(c(components[0]), c(components[0]), c(components[0]), c(components[1]))
        }
    }
}
