import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics

// CAGradientLayer's model state. The properties themselves are rows of the
// property table (scripts/generate-layer-properties.py); the renderer draws
// the gradient from a layer's presentation values
// (QuartziteRender/Render/GradientLayerRendering.swift).

package final class GradientLayerState {
    /// An array value of colours (nil: no gradient is drawn).
    package var colors: Value?
    /// An array value of numbers, one per colour (nil: spread evenly).
    package var locations: Value?
    package var startPoint = CGPoint(x: 0.5, y: 0)
    package var endPoint = CGPoint(x: 0.5, y: 1)
    /// ConstantSet.gradientType: axial, radial, conic.
    package var type: UInt8 = 0
    /// The renderer's last bitmap of this (model) layer's gradient, reused
    /// while nothing it depends on changes. Not copied to presentation copies.
    package var renderCache: AnyObject?

    package init() {}

    package func copy() -> GradientLayerState {
        let c = GradientLayerState()
        c.colors = colors
        c.locations = locations
        c.startPoint = startPoint
        c.endPoint = endPoint
        c.type = type
        return c
    }

    /// The colours of an array value, or nil (with the reason) when it is
    /// not an array of colours.
    package static func colorList(_ v: Value) -> [Color]? {
        guard case .array(let items) = v.storage else { return nil }
        var out: [Color] = []
        out.reserveCapacity(items.count)
        for item in items {
            switch item.storage {
            case .color(let c): out.append(c)
            case .object(let o as Color): out.append(o)
            default: return nil
            }
        }
        return out
    }

    /// The numbers of an array value, or nil when it is not an array of
    /// numbers; `finite` is false when one of them is NaN or infinite.
    package static func numberList(_ v: Value) -> (list: [Double], finite: Bool)? {
        guard case .array(let items) = v.storage else { return nil }
        var out: [Double] = []
        for item in items {
            guard let n = item.number else { return nil }
            out.append(n)
        }
        return (out, out.allSatisfy(\.isFinite))
    }

    /// What the renderer draws: the colours (at least one), each with its
    /// location. Locations are used when there are as many as colours
    /// (clamped to 0...1 and made non-decreasing, as gradient stops must
    /// be); otherwise the colours are spread evenly.
    package func stops() -> [(location: Double, color: Color)]? {
        guard let colors, let list = Self.colorList(colors), !list.isEmpty else { return nil }
        var locs: [Double]
        if let locations, let l = Self.numberList(locations), l.finite, l.list.count == list.count {
            locs = l.list.map { Swift.min(Swift.max($0, 0), 1) }
            for i in 1..<Swift.max(locs.count, 1) where locs[i] < locs[i - 1] { locs[i] = locs[i - 1] }
        } else {
            locs = list.count == 1 ? [0] : (0..<list.count).map { Double($0) / Double(list.count - 1) }
        }
        return zip(locs, list).map { ($0, $1) }
    }
}
