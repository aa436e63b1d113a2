import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics

// CAEAGLLayer's model state: the drawable properties (Apple's EAGLDrawable
// protocol: a dictionary with kEAGLDrawablePropertyRetainedBacking and
// kEAGLDrawablePropertyColorFormat) and the GL storage made for the layer by
// QZEAGLContextRenderbufferStorageFromDrawable (GL/EAGLDrawable.swift). What
// a present shows is the layer's contents: a pixel buffer standing for the
// presented GL image, so the draw list, presentation copies and transactions
// treat it like any other contents.

/// The colour formats of kEAGLDrawablePropertyColorFormat.
package enum EAGLColorFormat: Equatable {
    case rgba8
    case rgb565

    /// Apple's string values (EAGLDrawable.h).
    package static let rgba8Name = "EAGLColorFormatRGBA8"
    package static let rgb565Name = "EAGLColorFormat565"

    package init?(name: String) {
        switch name {
        case Self.rgba8Name: self = .rgba8
        case Self.rgb565Name: self = .rgb565
        default: return nil
        }
    }
}

package final class EAGLLayerState {
    /// Apple's keys (EAGLDrawable.h).
    package static let retainedBackingKey = "EAGLDrawablePropertyRetainedBacking"
    package static let colorFormatKey = "EAGLDrawablePropertyColorFormat"

    /// What a new layer reports: both keys at the protocol's defaults (not
    /// retained, RGBA8).
    package static let defaultProperties: Value = {
        var d = ValueDictionary()
        d.set(Value(.bool(false)), for: retainedBackingKey)
        d.set(Value(string: EAGLColorFormat.rgba8Name), for: colorFormatKey)
        return Value(.dictionary(d))
    }()

    /// drawableProperties as set (nil when set to nil: the defaults apply).
    package var properties: Value? = EAGLLayerState.defaultProperties
    /// The storage the layer's renderbuffer uses (model layers only).
    package var drawable: AnyObject?

    /// A presentation copy's state: the properties, not the GL storage.
    package func copy() -> EAGLLayerState {
        let c = EAGLLayerState()
        c.properties = properties
        return c
    }

    /// The drawable's configuration from `properties`: missing keys take
    /// their defaults. nil, with an error recorded naming `function`, for a
    /// value of the wrong type or an unknown colour format.
    package func configuration(_ function: StaticString) -> (retained: Bool, format: EAGLColorFormat)? {
        guard let p = properties, case .dictionary(let d) = p.storage else { return (false, .rgba8) }
        var retained = false
        if let r = d[Self.retainedBackingKey] {
            guard let n = r.number else {
                recordError(QZErrorInvalidArgument, function, "\(Self.retainedBackingKey) must be a bool or number value")
                return nil
            }
            retained = n != 0
        }
        var format = EAGLColorFormat.rgba8
        if let f = d[Self.colorFormatKey] {
            guard let name = f.string else {
                recordError(QZErrorInvalidArgument, function, "\(Self.colorFormatKey) must be a string value")
                return nil
            }
            guard let known = EAGLColorFormat(name: name) else {
                recordError(QZErrorUnknownConstant, function,
                            "unknown colour format \"\(name)\" (use kEAGLColorFormatRGBA8 or kEAGLColorFormatRGB565)")
                return nil
            }
            format = known
        }
        return (retained, format)
    }
}
