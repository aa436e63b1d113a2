import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel

// The draw list: a frame as a flat sequence of operations in target pixel
// space. The built-in CPU compositor consumes exactly this list, so a GPU host
// that replays it (QZRendererCopyDrawList) draws the same frame.
//
// Structure: drawing operations (fill, border, image, path) are quads or
// paths mapped by a projective 4x4 matrix (row vectors, (x, y, 0, 1) * M,
// divided by w) from layer coordinates into target pixels. Clips nest
// (pushClip ... popClip); groups nest (beginGroup ... [beginMask ...]
// endGroup): their contents are drawn offscreen, then composited with the
// group's opacity, multiplied by the mask's alpha when a beginMask part is
// present. A shadow (beginShadow ... endShadow) draws its contents offscreen,
// keeps the alpha, blurs it and composites it tinted and offset.
// A group may carry filters (applied to its contents, in pixels, before it
// is composited) and a blend mode (compositingFilter) for its composite. A
// backdrop operation (backgroundFilters) filters the pixels already drawn
// under its rounded rect, in place.

package enum DrawOpKind: UInt32 {
    case fill = 1, border = 2, image = 3, path = 4
    case pushClip = 5, popClip = 6
    case beginGroup = 7, beginMask = 8, endGroup = 9
    case beginShadow = 10, endShadow = 11
    case backdrop = 12
}

/// One operation. Plain data; equality compares every field (textures by
/// identity and modification seed), which is what damage tracking uses.
package struct DrawOp {
    /// Whether one of its filters blurs (a blurred group reads the pixels
    /// around each one: a band draws it whole).
    package var blurs: Bool { filters.contains { $0.blurRadius > 0 } }

    package var kind: DrawOpKind
    /// Layer coordinates to target pixels (a flattened homography as 4x4).
    package var transform = Homography.identity
    /// The quad (fill, border, image, clip) in layer coordinates.
    package var rect = CGRect.zero
    package var cornerRadius = 0.0
    package var borderWidth = 0.0
    /// Premultiplied RGBA (fill, border, path, shadow colour).
    package var color = SIMD4<Float>(0, 0, 0, 0)
    package var opacity: Float = 1
    package var texture: PixelBuffer?
    package var textureSeed: UInt32 = 0
    /// The part of the texture shown, in unit coordinates (0...1, y down).
    package var textureRect = CGRect(x: 0, y: 0, width: 1, height: 1)
    package var minFilter: UInt8 = ConstantSet.filterLinear
    package var magFilter: UInt8 = ConstantSet.filterLinear
    package var filterBias: Float = 0
    /// kCALayerLeftEdge | RightEdge | BottomEdge | TopEdge: edges drawn anti-aliased.
    package var edgeMask: UInt32 = 0xF
    /// Where the operation can touch the target, in pixels (already clipped
    /// by the enclosing clips); null when nothing.
    package var bounds = CGRect.null
    package var shadowOffset = CGSize(width: 0, height: 0)
    package var shadowRadius = 0.0
    /// A group's composite (CompositingMode's raw value; 0 source-over).
    package var blendMode: UInt8 = 0
    /// A group's or a backdrop's filters, blur radii in target pixels.
    package var filters: [LayerFilter] = []
    /// A path operation's path and its target-space polygons (one reference,
    /// so that the many operations without a path stay cheap to copy).
    package var geometry: PathGeometry?
    package var path: Path? { geometry?.path }
    /// Target-space polygons of a path operation (filled with the nonzero rule).
    package var polygons: [[CGPoint]] { geometry?.polygons ?? [] }
    /// The model layer the operation comes from (damage tracking key).
    package var layerID: UInt = 0
    /// Nesting depth of groups, shadows and clips around the operation.
    package var depth: UInt32 = 0
    /// An image's premultiplied tint, multiplying its texels (an emitter's
    /// particle colour); nil: the texels as they are.
    package var tint: SIMD4<Float>?
    /// The operation's pixels are added to the target's (saturating) instead
    /// of blended over them (kCAEmitterLayerAdditive).
    package var additive = false

    package init(_ kind: DrawOpKind) { self.kind = kind }

    package func sameContent(as o: DrawOp) -> Bool {
        kind == o.kind && transform == o.transform && rect.isEqual(to: o.rect) && cornerRadius == o.cornerRadius
            && borderWidth == o.borderWidth && color == o.color && opacity == o.opacity && texture === o.texture
            && textureSeed == o.textureSeed && textureRect.isEqual(to: o.textureRect) && minFilter == o.minFilter
            && magFilter == o.magFilter && filterBias == o.filterBias && edgeMask == o.edgeMask
            && bounds.isEqual(to: o.bounds) && shadowOffset.width == o.shadowOffset.width
            && shadowOffset.height == o.shadowOffset.height && shadowRadius == o.shadowRadius && depth == o.depth
            && blendMode == o.blendMode && filters == o.filters
            && tint == o.tint && additive == o.additive
            && (geometry === o.geometry || (geometry != nil && o.geometry != nil && path === o.path
                && polygons.count == o.polygons.count
                && zip(polygons, o.polygons).allSatisfy { a, b in a.count == b.count && zip(a, b).allSatisfy { $0.x == $1.x && $0.y == $1.y } }))
    }
}

extension Homography: Equatable {
    @usableFromInline package static func == (a: Homography, b: Homography) -> Bool {
        a.m.0 == b.m.0 && a.m.1 == b.m.1 && a.m.2 == b.m.2 && a.m.3 == b.m.3 && a.m.4 == b.m.4
            && a.m.5 == b.m.5 && a.m.6 == b.m.6 && a.m.7 == b.m.7 && a.m.8 == b.m.8
    }

    package var determinant: Double {
        let (a, b, c, d, e, f, g, h, i) = m
        return a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
    }

    /// The homography as a 4x4 transform acting on (x, y, 0, 1).
    package var transform3D: CATransform3D {
        var t = CATransform3D.identity
        t.m11 = m.0; t.m12 = m.1; t.m13 = 0; t.m14 = m.2
        t.m21 = m.3; t.m22 = m.4; t.m23 = 0; t.m24 = m.5
        t.m31 = 0; t.m32 = 0; t.m33 = 1; t.m34 = 0
        t.m41 = m.6; t.m42 = m.7; t.m43 = 0; t.m44 = m.8
        return t
    }

    package var isFinite: Bool {
        m.0.isFinite && m.1.isFinite && m.2.isFinite && m.3.isFinite && m.4.isFinite && m.5.isFinite
            && m.6.isFinite && m.7.isFinite && m.8.isFinite
    }

    /// Homogeneous image of a point: (x', y', w) before the division.
    @inline(__always) package func applyHomogeneous(_ p: CGPoint) -> (Double, Double, Double) {
        (p.x * m.0 + p.y * m.3 + m.6, p.x * m.1 + p.y * m.4 + m.7, p.x * m.2 + p.y * m.5 + m.8)
    }

    /// The target-space bounding box of `r`'s image, clipping the quad to the
    /// part in front of the eye (w > epsilon). Null when nothing is in front.
    package func bounds(of r: CGRect) -> CGRect {
        guard !r.isNull, r.width.isFinite, r.height.isFinite, isFinite else { return .null }
        let a = applyHomogeneous(CGPoint(x: r.minX, y: r.minY)), b = applyHomogeneous(CGPoint(x: r.maxX, y: r.minY))
        let c = applyHomogeneous(CGPoint(x: r.maxX, y: r.maxY)), d = applyHomogeneous(CGPoint(x: r.minX, y: r.maxY))
        let eps = 1e-6
        if a.2 > eps && b.2 > eps && c.2 > eps && d.2 > eps {
            // Every corner in front of the eye (the common case): no clipping.
            let ax = a.0 / a.2, ay = a.1 / a.2, bx = b.0 / b.2, by = b.1 / b.2
            let cx = c.0 / c.2, cy = c.1 / c.2, dx = d.0 / d.2, dy = d.1 / d.2
            let lim = 1e7
            let x0 = Swift.max(Swift.min(Swift.min(ax, bx), Swift.min(cx, dx)), -lim)
            let x1 = Swift.min(Swift.max(Swift.max(ax, bx), Swift.max(cx, dx)), lim)
            let y0 = Swift.max(Swift.min(Swift.min(ay, by), Swift.min(cy, dy)), -lim)
            let y1 = Swift.min(Swift.max(Swift.max(ay, by), Swift.max(cy, dy)), lim)
            guard x0 <= x1, y0 <= y1 else { return .null }
            return CGRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        }
        let corners = [CGPoint(x: r.minX, y: r.minY), CGPoint(x: r.maxX, y: r.minY),
                       CGPoint(x: r.maxX, y: r.maxY), CGPoint(x: r.minX, y: r.maxY)]
        return bounds(ofPolygon: corners)
    }

    package func bounds(ofPolygon points: [CGPoint]) -> CGRect {
        let eps = 1e-6
        let hs = points.map { applyHomogeneous($0) }
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        func add(_ x: Double, _ y: Double, _ w: Double) {
            let px = x / w, py = y / w
            minX = Swift.min(minX, px); maxX = Swift.max(maxX, px)
            minY = Swift.min(minY, py); maxY = Swift.max(maxY, py)
        }
        let n = hs.count
        for i in 0..<n {
            let a = hs[i], b = hs[(i + 1) % n]
            if a.2 > eps { add(a.0, a.1, a.2) }
            if (a.2 > eps) != (b.2 > eps) {
                let t = (eps - a.2) / (b.2 - a.2)
                add(a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t, eps)
            }
        }
        guard minX <= maxX, minY <= maxY, minX.isFinite || maxX.isFinite else { return .null }
        // Bound huge extents so later integer conversions stay safe.
        let lim = 1e7
        let x0 = Swift.max(minX, -lim), x1 = Swift.min(maxX, lim), y0 = Swift.max(minY, -lim), y1 = Swift.min(maxY, lim)
        guard x0 <= x1, y0 <= y1 else { return .null }
        return CGRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// Translation applied first (in the source space).
    package func pretranslated(_ dx: Double, _ dy: Double) -> Homography {
        Homography(m: (1, 0, 0, 0, 1, 0, dx, dy, 1)).then(self)
    }
}

package final class PathGeometry {
    package let path: Path
    package let polygons: [[CGPoint]]
    package init(path: Path, polygons: [[CGPoint]]) { self.path = path; self.polygons = polygons }
}

/// A frame's operations (QZDrawListRef): immutable once made.
public final class DrawList: QZObject, Handle {
    package let ops: [DrawOp]
    /// Target size in pixels.
    package let width: Int
    package let height: Int

    package init(ops: [DrawOp], width: Int, height: Int) {
        self.ops = ops
        self.width = width
        self.height = height
        super.init(kind: .drawList)
    }

    @inlinable package static var handleKind: ObjectKind { .drawList }
    @inlinable package static func accepts(_ tag: UInt32) -> Bool { tag == tagMagic | UInt32(ObjectKind.drawList.rawValue) }
}
