import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics

/// The built-in layer classes a class derives from.
public enum BuiltinLayerKind: UInt8, Sendable {
    case layer, scroll, text, tiled, eagl, gradient, shape, replicator, emitter
}

/// Named string constants a property accepts (contentsGravity, filters, ...),
/// stored as small integers and handed out as static C strings.
package struct ConstantSet {
    package let names: [StaticString]

    package func index(of name: String) -> UInt8? {
        for (i, n) in names.enumerated() where n.description == name { return UInt8(i) }
        return nil
    }

    package func cString(_ index: UInt8) -> UnsafePointer<CChar> {
        UnsafeRawPointer(names[Int(index)].utf8Start).assumingMemoryBound(to: CChar.self)
    }

    package func name(_ index: UInt8) -> String { names[Int(index)].description }
    // The sets themselves (gravity, filter, fillMode, ...) and forKey(_:) are
    // generated with the property table (LayerKey.swift).
}
