import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics

// Geometry. A layer's sublayers are flattened into its plane, so the map from
// a layer's coordinates to its superlayer's is a 2D homography: the 4x4 chain
// (anchor offset, transform, position; the superlayer's geometry flip and
// sublayerTransform about its anchor point) with z dropped. Conversions
// compose those homographies through the tree. Callers hold the model lock.

extension Layer {
    /// The anchor point in the layer's own coordinates.
    package var anchorInBounds: CGPoint {
        CGPoint(x: bounds.origin.x + anchorPoint.x * bounds.size.width,
                y: bounds.origin.y + anchorPoint.y * bounds.size.height)
    }

    /// The 4x4 map from this layer's coordinates to its superlayer's, before the
    /// superlayer's own contribution: -anchor, transform, +position.
    package var placement: CATransform3D {
        let a = anchorInBounds
        let toAnchor = CATransform3D(translationX: -a.x, y: -a.y, z: -anchorPointZ)
        let place = CATransform3D(translationX: position.x, y: position.y, z: zPosition)
        if let t = transformBox?.value { return toAnchor.concatenating(t).concatenating(place) }
        return toAnchor.concatenating(place)
    }

    /// True when sublayerSpace is not nil (without building it).
    package var hasSublayerSpace: Bool { flags.contains(.geometryFlipped) || sublayerTransformBox != nil }

    /// What a layer applies to its sublayers: the geometry flip, then the
    /// sublayerTransform about its anchor point.
    package var sublayerSpace: CATransform3D? {
        var result: CATransform3D?
        if flags.contains(.geometryFlipped) {
            var flip = CATransform3D.identity
            flip.m22 = -1
            flip.m42 = bounds.minY + bounds.maxY
            result = flip
        }
        if let s = sublayerTransformBox?.value {
            let a = anchorInBounds
            let about = CATransform3D(translationX: -a.x, y: -a.y, z: 0).concatenating(s)
                .concatenating(CATransform3D(translationX: a.x, y: a.y, z: 0))
            result = result.map { $0.concatenating(about) } ?? about
        }
        return result
    }

    /// From this layer's coordinates to its superlayer's (or, for a root, to
    /// the space its position is expressed in).
    package var toSuperlayer: Homography {
        var m = placement
        if let parent = superlayer, let s = parent.sublayerSpace { m = m.concatenating(s) }
        return Homography(m)
    }

    /// From this layer's coordinates to the space of its root's position.
    package var toRootSpace: Homography {
        var h = toSuperlayer
        var l = superlayer
        var guardSteps = 0
        while let cur = l, guardSteps < 1_000_000 {
            h = h.then(cur.toSuperlayer)
            l = cur.superlayer
            guardSteps += 1
        }
        return h
    }

    // MARK: - frame

    /// The bounding box of the bounds after transform and position, in the
    /// superlayer's coordinates.
    package var frame: CGRect {
        if transformBox == nil {
            return CGRect(x: position.x - anchorPoint.x * bounds.size.width,
                          y: position.y - anchorPoint.y * bounds.size.height,
                          width: bounds.size.width, height: bounds.size.height)
        }
        return boundingBox(of: bounds, through: Homography(placement))
    }

    /// Sets position and bounds.size so that the frame becomes `f`. With a
    /// non-identity affine transform the size is solved from the transformed
    /// bounding box; with a projective one only the position moves.
    @usableFromInline package func setFrame(_ f: CGRect) {
        let f = f.standardized
        guard let t = transformBox?.value else {
            setBounds(CGRect(origin: bounds.origin, size: f.size))
            position = CGPoint(x: f.origin.x + anchorPoint.x * f.size.width, y: f.origin.y + anchorPoint.y * f.size.height)
            return
        }
        if t.isAffine {
            // Bounding-box size of a w x h rect under [a b; c d] is (|a|w + |c|h, |b|w + |d|h).
            let a = abs(t.m11), b = abs(t.m12), c = abs(t.m21), d = abs(t.m22)
            let det = a * d - b * c
            if det != 0, det.isFinite {
                let w = (d * f.size.width - c * f.size.height) / det
                let h = (a * f.size.height - b * f.size.width) / det
                if w >= 0, h >= 0 { setBounds(CGRect(origin: bounds.origin, size: CGSize(width: w, height: h))) }
            }
        }
        // Move the position so the frame's origin lands on f.origin.
        let current = frame
        position = CGPoint(x: position.x + f.origin.x - current.origin.x, y: position.y + f.origin.y - current.origin.y)
    }

    // MARK: - Conversions

    package func convert(_ p: CGPoint, from other: Layer?) -> CGPoint? {
        let toRoot = other?.toRootSpace ?? .identity
        guard let fromRoot = toRootSpace.inverse else { return nil }
        return toRoot.then(fromRoot).apply(p)
    }

    package func convert(_ p: CGPoint, to other: Layer?) -> CGPoint? {
        let fromRoot: Homography
        if let other {
            guard let inv = other.toRootSpace.inverse else { return nil }
            fromRoot = inv
        } else {
            fromRoot = .identity
        }
        return toRootSpace.then(fromRoot).apply(p)
    }

    package func convert(_ r: CGRect, from other: Layer?) -> CGRect? {
        let toRoot = other?.toRootSpace ?? .identity
        guard let fromRoot = toRootSpace.inverse else { return nil }
        return boundingBox(of: r, through: toRoot.then(fromRoot))
    }

    package func convert(_ r: CGRect, to other: Layer?) -> CGRect? {
        let fromRoot: Homography
        if let other {
            guard let inv = other.toRootSpace.inverse else { return nil }
            fromRoot = inv
        } else {
            fromRoot = .identity
        }
        return boundingBox(of: r, through: toRootSpace.then(fromRoot))
    }

    // MARK: - Time

    /// parent time -> local time, through the layer's CAMediaTiming with the
    /// time model of animations: (t - beginTime) * speed + timeOffset for a
    /// layer without a finite duration or repeatDuration (the default);
    /// otherwise the position in its current cycle (repeats, autoreverse,
    /// fill modes: MediaTiming.spaceTime). NaN when the layer has no time
    /// then (outside its active interval without the matching fill): its
    /// animations and its sublayers' have no effect.
    @inline(__always)
    package func localTime(fromParent t: Double) -> Double {
        guard let timing else { return t }
        if timing.isLinear { return (t - timing.beginTime) * Double(timing.speed) + timing.timeOffset }
        return cycledLocalTime(fromParent: t, timing)
    }

    @inline(never)
    private func cycledLocalTime(fromParent t: Double, _ timing: LayerTiming) -> Double {
        if t.isNaN { return .nan }
        return timing.mediaTiming.spaceTime(at: t)?.time ?? .nan
    }

    /// parent time -> local time without the cycle: (t - beginTime) * speed
    /// + timeOffset (what begin times resolve against when the layer has no
    /// time, and what parentTime(fromLocal:) inverts).
    package func linearLocalTime(fromParent t: Double) -> Double {
        guard let timing else { return t }
        return (t - timing.beginTime) * Double(timing.speed) + timing.timeOffset
    }

    /// local time -> parent time, inverting the linear part of the mapping
    /// (beginTime, speed, timeOffset; a cycle has no single inverse); a
    /// paused layer (speed 0) maps every local time to its beginTime.
    package func parentTime(fromLocal t: Double) -> Double {
        guard let timing else { return t }
        if timing.speed == 0 { return timing.beginTime }
        return (t - timing.timeOffset) / Double(timing.speed) + timing.beginTime
    }

    /// Absolute (media) time -> this layer's local time (NaN when a layer
    /// on the way has no time then).
    package func localTime(fromMedia t: Double) -> Double {
        var chain: [Layer] = []
        var l: Layer? = self
        while let cur = l { chain.append(cur); l = cur.superlayer }
        var time = t
        for layer in chain.reversed() { time = layer.localTime(fromParent: time) }
        return time
    }

    /// localTime(fromMedia:), or where a layer on the way has no time, the
    /// linear mapping (a begin time must resolve to a number).
    package func localTimeForBegin(fromMedia t: Double) -> Double {
        let local = localTime(fromMedia: t)
        if !local.isNaN { return local }
        var chain: [Layer] = []
        var l: Layer? = self
        while let cur = l { chain.append(cur); l = cur.superlayer }
        var time = t
        for layer in chain.reversed() { time = layer.linearLocalTime(fromParent: time) }
        return time
    }

    /// This layer's local time -> absolute (media) time.
    package func mediaTime(fromLocal t: Double) -> Double {
        var time = t
        var l: Layer? = self
        while let cur = l { time = cur.parentTime(fromLocal: time); l = cur.superlayer }
        return time
    }

    package func convertTime(_ t: Double, from other: Layer?) -> Double {
        localTimeForBegin(fromMedia: other?.mediaTime(fromLocal: t) ?? t)
    }

    package func convertTime(_ t: Double, to other: Layer?) -> Double {
        let media = mediaTime(fromLocal: t)
        return other?.localTimeForBegin(fromMedia: media) ?? media
    }

    // MARK: - Hit testing

    /// Apple's containsPoint: — `p` in the layer's own coordinates.
    /// (CGRect.contains, written out: a hit test asks it of every layer it visits.
    /// A null rectangle's infinite origin and an empty one's equal edges fail
    /// the half-open comparisons by themselves.)
    @inline(__always) package func contains(_ p: CGPoint) -> Bool {
        let o = bounds.origin, s = bounds.size
        let x0 = s.width < 0 ? o.x + s.width : o.x, x1 = s.width < 0 ? o.x : o.x + s.width
        let y0 = s.height < 0 ? o.y + s.height : o.y, y1 = s.height < 0 ? o.y : o.y + s.height
        return p.x >= x0 && p.x < x1 && p.y >= y0 && p.y < y1
    }

    /// Apple's hitTest: — `p` in the superlayer's coordinates. Hidden layers
    /// and, with masksToBounds, points outside the bounds are excluded; among
    /// sublayers the front-most (highest zPosition, then latest) wins.
    package func hitTest(_ p: CGPoint) -> Layer? {
        let parent = superlayer
        return hitTest(p, spaceOf: parent?.hasSublayerSpace == true ? parent : nil)
    }

    /// `spaceOf` is the superlayer when it has a sublayerSpace (flip or
    /// sublayerTransform; rare), else nil.
    private func hitTest(_ p: CGPoint, spaceOf parent: Layer?) -> Layer? {
        if flags.contains(.hidden) { return nil }
        let local: CGPoint
        if parent == nil, let t = transformBox {
            let a = anchorInBounds
            if t.value.m14 == 0, t.value.m24 == 0, t.value.m44 == 1, anchorPointZ == 0 || (t.value.m31 == 0 && t.value.m32 == 0 && t.value.m34 == 0) {
                // A 2D affine transform (the common case): undo position and
                // translation, then the 2x2 part, without building the 4x4 chain.
                let det = t.value.m11 * t.value.m22 - t.value.m12 * t.value.m21
                guard det != 0, det.isFinite else { return nil }
                let dx = p.x - position.x - t.value.m41 + anchorPointZ * t.value.m31
                let dy = p.y - position.y - t.value.m42 + anchorPointZ * t.value.m32
                local = CGPoint(x: (dx * t.value.m22 - dy * t.value.m21) / det + a.x, y: (dy * t.value.m11 - dx * t.value.m12) / det + a.y)
            } else {
                guard let inverse = Homography(placement).inverse else { return nil }
                local = inverse.apply(p)
            }
        } else if parent == nil {
            // Untransformed (most layers): a translation.
            let a = anchorInBounds
            local = CGPoint(x: p.x - position.x + a.x, y: p.y - position.y + a.y)
        } else {
            // The whole 4x4 chain is inverted at once: a perspective sublayerTransform
            // acts on the z that this layer's own transform produces.
            guard let inverse = toSuperlayer.inverse else { return nil }
            local = inverse.apply(p)
        }
        let inside = contains(local)
        if flags.contains(.masksToBounds) && !inside { return nil }
        let n = sublayers.count
        if n > 0 {
            let spaceOwner = hasSublayerSpace ? self : nil
            let order = resolvedZOrder()
            if !order.isEmpty {
                for i in order {
                    if let hit = sublayers[Int(i)].hitTest(local, spaceOf: spaceOwner) { return hit }
                }
            } else {
                var i = n - 1
                while i >= 0 {
                    if let hit = sublayers[i].hitTest(local, spaceOf: spaceOwner) { return hit }
                    i -= 1
                }
            }
        }
        return inside ? self : nil
    }

    /// zOrderIndices, computed now if not known (callers hold the model lock):
    /// empty when the sublayers share one zPosition, else the indices sorted
    /// by zPosition descending, then index descending (NaN counts as 0, as in
    /// the renderer).
    /// (Kept in `extras`, made for a layer with sublayers only.)
    package func resolvedZOrder() -> [Int32] {
        if let x = extras, x.zOrderEpoch == Layer.zPositionEpoch { return x.zOrderIndices }
        let n = sublayers.count
        guard n > 0 else { return [] }
        let z0 = sublayers[0].zPosition
        let order: [Int32]
        if sublayers.allSatisfy({ $0.zPosition == z0 }) {
            order = []
        } else {
            let zs = sublayers.map { $0.zPosition.isNaN ? 0 : $0.zPosition }
            order = (0..<Int32(n)).sorted { zs[Int($0)] != zs[Int($1)] ? zs[Int($0)] > zs[Int($1)] : $0 > $1 }
        }
        let x = ensureExtras
        x.zOrderIndices = order
        x.zOrderEpoch = Layer.zPositionEpoch
        return order
    }

    // MARK: - Sizes and scrolling

    /// The bounds size mapped into the superlayer's space (when no layout
    /// manager or class answers).
    package var defaultPreferredFrameSize: CGSize {
        let box = boundingBox(of: CGRect(origin: CGPoint(x: 0, y: 0), size: bounds.size), through: Homography(transform))
        return box.size
    }

    /// The part of the bounds not clipped by enclosing scroll layers.
    package var visibleRect: CGRect {
        var visible = bounds
        var l = superlayer
        while let cur = l {
            if cur.layerClass.builtin == .scroll, let r = convert(cur.bounds, from: cur) {
                visible = visible.intersection(r)
            }
            l = cur.superlayer
        }
        return visible
    }

    /// CAScrollLayer's scrollToPoint:, honouring scrollMode.
    package func scroll(to p: CGPoint) {
        var origin = bounds.origin
        switch scrollMode {
        case 0: origin = p                 // both
        case 2: origin.y = p.y             // vertically
        case 3: origin.x = p.x             // horizontally
        default: return                    // none
        }
        setBounds(CGRect(origin: origin, size: bounds.size))
    }

    /// CAScrollLayer's scrollToRect:: the smallest scroll that makes `r` visible.
    package func scroll(toVisible r: CGRect) {
        let r = r.standardized, b = bounds
        func axis(_ lo: Double, _ hi: Double, _ vlo: Double, _ vhi: Double) -> Double {
            if hi - lo > vhi - vlo || lo < vlo { return lo }
            if hi > vhi { return hi - (vhi - vlo) }
            return vlo
        }
        scroll(to: CGPoint(x: axis(r.minX, r.maxX, b.minX, b.maxX), y: axis(r.minY, r.maxY, b.minY, b.maxY)))
    }

    /// What scrollPoint: and scrollRectToVisible: scroll: the layer itself
    /// when it is a scroll layer, else its closest enclosing one.
    package var scrollingLayer: Layer? {
        layerClass.builtin == .scroll ? self : enclosingScrollLayer
    }

    /// The closest ancestor (not self) that is a scroll layer.
    package var enclosingScrollLayer: Layer? {
        var l = superlayer
        while let cur = l {
            if cur.layerClass.builtin == .scroll { return cur }
            l = cur.superlayer
        }
        return nil
    }
}

/// The bounding box of a rectangle's corners after a homography.
package func boundingBox(of r: CGRect, through h: Homography) -> CGRect {
    if r.isNull { return .null }
    let s = r.standardized
    let corners = [CGPoint(x: s.minX, y: s.minY), CGPoint(x: s.maxX, y: s.minY),
                   CGPoint(x: s.minX, y: s.maxY), CGPoint(x: s.maxX, y: s.maxY)].map(h.apply)
    var x0 = corners[0].x, x1 = x0, y0 = corners[0].y, y1 = y0
    for c in corners.dropFirst() {
        x0 = Swift.min(x0, c.x); x1 = Swift.max(x1, c.x)
        y0 = Swift.min(y0, c.y); y1 = Swift.max(y1, c.y)
    }
    return CGRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
}

