import CQuartzite
import Dispatch
import Testing
@testable import QuartziteCore
@testable import QuartziteGeometry
@testable import QuartziteVideo
@testable import QuartziteGraphics
@testable import QuartziteModel
@testable import QuartziteRender
@testable import Quartzite

func L(_ h: CALayerRef) -> Layer { Unmanaged<Layer>.fromOpaque(UnsafeRawPointer(h)).takeUnretainedValue() }
func release(_ layers: CALayerRef...) { for l in layers { CARelease(UnsafeRawPointer(l)) } }

@Suite struct LayerGeometryTests {
    @Test func frameFromBoundsPositionAndAnchor() {
        let l = layer()
        defer { release(l) }
        CALayerSetBounds(l, CGRect(x: 0, y: 0, width: 100, height: 50))
        CALayerSetPosition(l, CGPoint(x: 100, y: 100))
        CALayerSetAnchorPoint(l, CGPoint(x: 0, y: 0))
        #expect(CALayerGetFrame(l).isEqual(to: CGRect(x: 100, y: 100, width: 100, height: 50)))
        // A quarter turn about z around the top-left anchor: (x, y) -> (-y, x).
        CALayerSetTransform(l, CATransform3DMakeRotation(.pi / 2, 0, 0, 1))
        #expect(CALayerGetFrame(l).isEqual(to: CGRect(x: 50, y: 100, width: 50, height: 100)))
        // Centred anchor: the frame stays centred on the position.
        CALayerSetAnchorPoint(l, CGPoint(x: 0.5, y: 0.5))
        #expect(CALayerGetFrame(l).isEqual(to: CGRect(x: 75, y: 50, width: 50, height: 100)))
    }

    @Test func settingTheFrame() {
        let l = layer()
        defer { release(l) }
        CALayerSetFrame(l, CGRect(x: 10, y: 20, width: 30, height: 40))
        #expect(CALayerGetBounds(l).isEqual(to: CGRect(x: 0, y: 0, width: 30, height: 40)))
        #expect(CALayerGetPosition(l).x == 25 && CALayerGetPosition(l).y == 40)
        // With a scale of 2 the bounds are half the frame.
        CALayerSetTransform(l, CATransform3DMakeScale(2, 2, 1))
        CALayerSetFrame(l, CGRect(x: 0, y: 0, width: 100, height: 60))
        #expect(CALayerGetBounds(l).size.width == 50 && CALayerGetBounds(l).size.height == 30)
        #expect(CALayerGetFrame(l).isEqual(to: CGRect(x: 0, y: 0, width: 100, height: 60)))
    }

    @Test func convertingAcrossBranchesWithPerspective() {
        // root
        //  |- a (scaled 2, at (50, 50))
        //  |    `- a1 (at (10, 10))
        //  `- b (at (300, 200), perspective sublayerTransform, rotated child)
        //       `- b1 (rotated 30 degrees about y)
        let root = layer(), a = layer(), a1 = layer(), b = layer(), b1 = layer()
        defer { release(root, a, a1, b, b1) }
        CALayerSetBounds(root, CGRect(x: 0, y: 0, width: 800, height: 600))
        for (l, p) in [(a, CGPoint(x: 50, y: 50)), (a1, CGPoint(x: 10, y: 10)), (b, CGPoint(x: 300, y: 200)), (b1, CGPoint(x: 50, y: 50))] {
            CALayerSetBounds(l, CGRect(x: 0, y: 0, width: 100, height: 100))
            CALayerSetPosition(l, p)
        }
        CALayerSetTransform(a, CATransform3DMakeScale(2, 2, 1))
        var perspective = CATransform3D.identity
        perspective.m34 = -1.0 / 500
        CALayerSetSublayerTransform(b, perspective)
        CALayerSetTransform(b1, CATransform3DMakeRotation(.pi / 6, 0, 1, 0))
        CALayerAddSublayer(root, a); CALayerAddSublayer(a, a1)
        CALayerAddSublayer(root, b); CALayerAddSublayer(b, b1)

        // a1's (0, 0): a1's top-left is at a's (10 - 50, 10 - 50) = (-40, -40);
        // a scales by 2 about its centre (50, 50): (-40 - 50) * 2 + 50 = -130 in a's
        // frame, i.e. position 50 + (-180) = -130 in root.
        let p = CALayerConvertPointToLayer(a1, CGPoint(x: 0, y: 0), root)
        #expect(abs(p.x + 130) < 1e-9 && abs(p.y + 130) < 1e-9)

        for q in [CGPoint(x: 0, y: 0), CGPoint(x: 20, y: 80), CGPoint(x: 99, y: 1)] {
            let there = CALayerConvertPointToLayer(a1, q, b1)
            let back = CALayerConvertPointFromLayer(a1, there, b1)
            #expect(abs(back.x - q.x) < 1e-9 && abs(back.y - q.y) < 1e-9)
            let viaRoot = CALayerConvertPointFromLayer(b1, CALayerConvertPointToLayer(a1, q, nil), nil)
            #expect(abs(viaRoot.x - there.x) < 1e-9 && abs(viaRoot.y - there.y) < 1e-9)
        }

        // b1's centre stays on b's centre (the rotation is about b1's anchor);
        // its right edge recedes under the perspective and comes closer to the centre.
        let centre = CALayerConvertPointToLayer(b1, CGPoint(x: 50, y: 50), root)
        #expect(abs(centre.x - 300) < 1e-9 && abs(centre.y - 200) < 1e-9)
        let right = CALayerConvertPointToLayer(b1, CGPoint(x: 100, y: 50), root)
        // Independent projection: x = 50 cos 30, z = -50 sin 30 (row-vector Ry), w = 1 - z/500.
        let x = 50 * (3.0).squareRoot() / 2, z = -50 * 0.5, w = 1 - z / 500
        #expect(abs(right.x - (300 + x / w)) < 1e-9)
        #expect(abs(right.y - 200) < 1e-9)

        // NULL is the space the root's position is in: the root (800 x 600, anchor
        // centred, position (0, 0)) puts its own (0, 0) at (-400, -300) there.
        let r = CALayerConvertRectToLayer(a1, CGRect(x: 0, y: 0, width: 10, height: 10), nil)
        #expect(r.isEqual(to: CGRect(x: -530, y: -430, width: 20, height: 20)))
    }

    @Test func geometryFlippedAndBoundsOrigin() {
        let parent = layer(), child = layer()
        defer { release(parent, child) }
        CALayerSetBounds(parent, CGRect(x: 0, y: 0, width: 100, height: 100))
        CALayerSetAnchorPoint(parent, CGPoint(x: 0, y: 0))
        CALayerSetBounds(child, CGRect(x: 0, y: 0, width: 10, height: 10))
        CALayerSetAnchorPoint(child, CGPoint(x: 0, y: 0))
        CALayerSetPosition(child, CGPoint(x: 0, y: 0))
        CALayerAddSublayer(parent, child)
        #expect(CALayerConvertPointToLayer(child, CGPoint(x: 0, y: 0), parent).y == 0)
        CALayerSetGeometryFlipped(parent, true)
        #expect(CALayerConvertPointToLayer(child, CGPoint(x: 0, y: 0), parent).y == 100)
        #expect(CALayerContentsAreFlipped(child))
        CALayerSetGeometryFlipped(parent, false)
        // Scrolling the parent's bounds origin moves its sublayers the other way.
        CALayerSetBounds(parent, CGRect(x: 20, y: 30, width: 100, height: 100))
        let p = CALayerConvertPointToLayer(child, CGPoint(x: 0, y: 0), nil)
        #expect(p.x == -20 && p.y == -30)
    }

    @Test func hitTestingHonoursOrderHiddenAndClipping() {
        let root = layer(), back = layer(), front = layer(), hidden = layer(), clipped = layer(), inner = layer()
        defer { release(root, back, front, hidden, clipped, inner) }
        CALayerSetBounds(root, CGRect(x: 0, y: 0, width: 200, height: 200))
        CALayerSetAnchorPoint(root, CGPoint(x: 0, y: 0))
        for l in [back, front, hidden] {
            CALayerSetFrame(l, CGRect(x: 0, y: 0, width: 100, height: 100))
            CALayerAddSublayer(root, l)
        }
        // `front` was added after `back` but `back` has the higher zPosition.
        CALayerSetZPosition(back, 1)
        CALayerSetHidden(hidden, true)
        #expect(CALayerHitTest(root, CGPoint(x: 50, y: 50)) == back)
        CALayerSetZPosition(back, 0)
        #expect(CALayerHitTest(root, CGPoint(x: 50, y: 50)) == front)
        #expect(CALayerHitTest(root, CGPoint(x: 150, y: 150)) == root)
        #expect(CALayerHitTest(root, CGPoint(x: 250, y: 50)) == nil)
        // A sublayer sticking out of a clipping layer is only hit inside it.
        CALayerSetFrame(clipped, CGRect(x: 120, y: 0, width: 50, height: 50))
        CALayerSetFrame(inner, CGRect(x: 0, y: 0, width: 200, height: 200))
        CALayerAddSublayer(clipped, inner)
        CALayerAddSublayer(root, clipped)
        #expect(CALayerHitTest(root, CGPoint(x: 190, y: 190)) == inner)
        CALayerSetMasksToBounds(clipped, true)
        #expect(CALayerHitTest(root, CGPoint(x: 190, y: 190)) == root)
        #expect(CALayerHitTest(root, CGPoint(x: 130, y: 10)) == inner)
        #expect(CALayerContainsPoint(root, CGPoint(x: 0, y: 0)) && !CALayerContainsPoint(root, CGPoint(x: 200, y: 0)))
    }

    @Test func hitTestingFollowsTreeChangesAfterAQuery() {
        // The front-to-back order is cached by the first hit test: adding,
        // removing, reordering and re-zPositioning sublayers must all show.
        let root = layer(), a = layer(), b = layer(), c = layer()
        defer { release(root, a, b, c) }
        CALayerSetBounds(root, CGRect(x: 0, y: 0, width: 100, height: 100))
        CALayerSetAnchorPoint(root, CGPoint(x: 0, y: 0))
        for l in [a, b, c] { CALayerSetFrame(l, CGRect(x: 0, y: 0, width: 50, height: 50)) }
        CALayerAddSublayer(root, a)
        CALayerAddSublayer(root, b)
        CALayerSetZPosition(a, 2)
        let p = CGPoint(x: 10, y: 10)
        #expect(CALayerHitTest(root, p) == a)
        CALayerAddSublayer(root, c)                       // same zPosition as b, later: still behind a
        #expect(CALayerHitTest(root, p) == a)
        CALayerSetZPosition(c, 3)
        #expect(CALayerHitTest(root, p) == c)
        CALayerRemoveFromSuperlayer(c)
        #expect(CALayerHitTest(root, p) == a)
        CALayerSetZPosition(a, 0)                         // all equal: the last added wins
        #expect(CALayerHitTest(root, p) == b)
        CALayerInsertSublayerAtIndex(root, b, 0)               // moved to the back
        #expect(CALayerHitTest(root, p) == a)
        CALayerSetZPosition(b, -1)
        CALayerSetZPosition(a, -2)
        #expect(CALayerHitTest(root, p) == b)
        #expect(takeError() == QZErrorNone)
    }

    @Test func hitTestingThroughTransformsMatchesTheForwardMap() {
        // Each transform, with and without anchorPointZ and a parent
        // sublayerTransform, against the layer's corners mapped forward here
        // (row vectors: -anchor, transform, +position, then the parent's space).
        let transforms: [CATransform3D] = [
            CATransform3DMakeScale(2, 0.5, 1),
            CATransform3DTranslate(CATransform3DMakeRotation(.pi / 6, 0, 0, 1), 5, -3, 0),
            CATransform3DMakeRotation(.pi / 5, 0, 1, 0),                           // m31 != 0
            CATransform3DMakeAffineTransform(CGAffineTransform(a: 1, b: 0.3, c: -0.4, d: 1.2, tx: 7, ty: 2)),
        ]
        for t in transforms {
            for anchorZ in [0.0, 10.0] {
                for withSublayerTransform in [false, true] {
                    let root = layer(), l = layer()
                    defer { release(root, l) }
                    CALayerSetBounds(root, CGRect(x: 0, y: 0, width: 400, height: 300))
                    CALayerSetAnchorPoint(root, CGPoint(x: 0, y: 0))
                    let st = CATransform3DMakeScale(1.5, 1.25, 1)
                    if withSublayerTransform { CALayerSetSublayerTransform(root, st) }
                    CALayerSetBounds(l, CGRect(x: 10, y: 20, width: 100, height: 40))
                    CALayerSetPosition(l, CGPoint(x: 150, y: 120))
                    CALayerSetAnchorPointZ(l, anchorZ)
                    CALayerSetTransform(l, t)
                    CALayerAddSublayer(root, l)
                    // The forward map of a point of l's plane into root's coordinates.
                    func forward(_ x: Double, _ y: Double) -> (Double, Double) {
                        var m = CATransform3DMakeTranslation(-60, -40, -anchorZ)   // anchor (0.5, 0.5) of the bounds
                        m = CATransform3DConcat(m, t)
                        m = CATransform3DConcat(m, CATransform3DMakeTranslation(150, 120, 0))
                        if withSublayerTransform {
                            // about root's anchor point (0, 0)
                            m = CATransform3DConcat(m, st)
                        }
                        let q = project((x, y, 0), m)
                        return (q.0, q.1)
                    }
                    // Grid points just inside and outside the edges of l, mapped forward.
                    for u in stride(from: -0.05, through: 1.05, by: 0.1) {
                        for v in stride(from: -0.05, through: 1.05, by: 0.1) {
                            let (x, y) = forward(10 + 100 * u, 20 + 40 * v)
                            let inside = u > 0 && u < 1 && v > 0 && v < 1
                            let hit = CALayerHitTest(root, CGPoint(x: x, y: y))
                            let inRoot = x >= 0 && x < 400 && y >= 0 && y < 300
                            #expect(hit == (inside ? l : (inRoot ? root : nil)), "t \(t.m11) \(t.m31) aZ \(anchorZ) st \(withSublayerTransform) at \(u), \(v)")
                        }
                    }
                }
            }
        }
        #expect(takeError() == QZErrorNone)
    }

    @Test func preferredSizeVisibleRectAndScrolling() {
        let l = layer()
        defer { release(l) }
        CALayerSetBounds(l, CGRect(x: 0, y: 0, width: 100, height: 50))
        CALayerSetTransform(l, CATransform3DMakeRotation(.pi / 2, 0, 0, 1))
        let s = CALayerGetPreferredFrameSize(l)
        #expect(abs(s.width - 50) < 1e-12 && abs(s.height - 100) < 1e-12)

        let scroller = CAScrollLayerCreate()!, content = layer()
        defer { release(scroller, content) }
        CALayerSetBounds(scroller, CGRect(x: 0, y: 0, width: 100, height: 100))
        CALayerSetFrame(content, CGRect(x: 0, y: 0, width: 1000, height: 1000))
        CALayerAddSublayer(scroller, content)
        #expect(CALayerGetVisibleRect(content).isEqual(to: CGRect(x: 0, y: 0, width: 100, height: 100)))
        CAScrollLayerScrollToPoint(scroller, CGPoint(x: 200, y: 300))
        #expect(CALayerGetBounds(scroller).origin.x == 200 && CALayerGetBounds(scroller).origin.y == 300)
        #expect(CALayerGetVisibleRect(content).isEqual(to: CGRect(x: 200, y: 300, width: 100, height: 100)))
        // scrollRectToVisible moves as little as possible.
        CALayerScrollRectToVisible(content, CGRect(x: 350, y: 320, width: 20, height: 20))
        #expect(CALayerGetBounds(scroller).origin.x == 270 && CALayerGetBounds(scroller).origin.y == 300)
        CALayerScrollPoint(content, CGPoint(x: 5, y: 6))
        #expect(CALayerGetBounds(scroller).origin.x == 5 && CALayerGetBounds(scroller).origin.y == 6)
        CAScrollLayerSetScrollMode(scroller, kCAScrollVertically)
        CAScrollLayerScrollToPoint(scroller, CGPoint(x: 50, y: 60))
        #expect(CALayerGetBounds(scroller).origin.x == 5 && CALayerGetBounds(scroller).origin.y == 60)
        CAScrollLayerSetScrollMode(scroller, kCAScrollNone)
        CAScrollLayerScrollToPoint(scroller, CGPoint(x: 0, y: 0))
        #expect(CALayerGetBounds(scroller).origin.y == 60)
    }

    @Test func timeSpacesNest() {
        let parent = layer(), child = layer()
        defer { release(parent, child) }
        CALayerAddSublayer(parent, child)
        CALayerSetBeginTime(parent, 10)
        CALayerSetSpeed(parent, 2)
        CALayerSetTimeOffset(child, 1)
        CALayerSetSpeed(child, 0.5)
        // media 15 -> parent (15 - 10) * 2 = 10 -> child 10 * 0.5 + 1 = 6.
        #expect(CALayerConvertTimeFromLayer(child, 15, nil) == 6)
        #expect(CALayerConvertTimeToLayer(child, 6, nil) == 15)
        #expect(CALayerConvertTimeToLayer(child, 6, parent) == 10)
    }
}

@Suite struct LayerTreeTests {
    func names(_ l: CALayerRef) -> [CALayerRef] {
        (0..<CALayerGetSublayerCount(l)).map { CALayerGetSublayerAtIndex(l, $0)! }
    }

    @Test func insertionOrderAndMoves() {
        let p = layer(), q = layer(), a = layer(), b = layer(), c = layer()
        defer { release(p, q, a, b, c) }
        CALayerAddSublayer(p, a)
        CALayerInsertSublayerAtIndex(p, b, 0)
        CALayerInsertSublayerAbove(p, c, b)
        #expect(names(p) == [b, c, a])
        CALayerInsertSublayerBelow(p, a, b)
        #expect(names(p) == [a, b, c])
        // Adding a layer that has a superlayer moves it.
        CALayerAddSublayer(q, b)
        #expect(names(p) == [a, c] && names(q) == [b] && CALayerGetSuperlayer(b) == q)
        CALayerReplaceSublayer(p, c, b)
        #expect(names(p) == [a, b] && CALayerGetSublayerCount(q) == 0 && CALayerGetSuperlayer(c) == nil)
        CALayerRemoveFromSuperlayer(a)
        #expect(names(p) == [b] && CALayerGetSuperlayer(a) == nil)
        var list: [CALayerRef?] = [c, a]
        CALayerSetSublayers(p, &list, 2)
        #expect(names(p) == [c, a] && CALayerGetSuperlayer(b) == nil)
    }

    @Test func masksHaveTheMaskedLayerAsSuperlayer() {
        let l = layer(), m = layer(), other = layer()
        defer { release(l, m, other) }
        CALayerSetMask(l, m)
        #expect(CALayerGetMask(l) == m && CALayerGetSuperlayer(m) == l)
        QZClearLastError()
        // Observed on Apple's QuartzCore: a layer already in a tree (here
        // another layer's mask) given as a mask leaves its old place and
        // becomes the new mask (this used to be refused).
        CALayerSetMask(other, m)
        #expect(takeError() == QZErrorNone)
        #expect(CALayerGetMask(other) == m && CALayerGetMask(l) == nil && CALayerGetSuperlayer(m) == other)
        CALayerRemoveFromSuperlayer(m)
        #expect(CALayerGetMask(other) == nil && CALayerGetSuperlayer(m) == nil)
    }

    @Test func errorsLeaveTheTreeUnchanged() {
        let root = layer(), a = layer(), b = layer(), stranger = layer()
        defer { release(root, a, b, stranger) }
        CALayerAddSublayer(root, a)
        CALayerAddSublayer(a, b)
        func snapshot() -> [[CALayerRef]] { [names(root), names(a), names(b)] }
        let before = snapshot()
        QZClearLastError()
        CALayerAddSublayer(b, root)                      // cycle
        #expect(takeError() == QZErrorInvalidArgument)
        CALayerAddSublayer(a, a)                         // itself
        #expect(takeError() == QZErrorInvalidArgument)
        CALayerInsertSublayerAtIndex(root, stranger, 5)  // out of range
        #expect(takeError() == QZErrorOutOfRange)
        CALayerInsertSublayerBelow(root, stranger, b)    // b is not root's sublayer
        #expect(takeError() == QZErrorInvalidArgument)
        CALayerInsertSublayerAbove(root, stranger, nil)
        #expect(takeError() == QZErrorNullArgument)
        CALayerReplaceSublayer(root, b, stranger)        // b is not root's sublayer
        #expect(takeError() == QZErrorInvalidArgument)
        CALayerReplaceSublayer(a, b, root)               // cycle
        #expect(takeError() == QZErrorInvalidArgument)
        var dup: [CALayerRef?] = [stranger, stranger]
        CALayerSetSublayers(root, &dup, 2)
        #expect(takeError() == QZErrorInvalidArgument)
        var withNull: [CALayerRef?] = [stranger, nil]
        CALayerSetSublayers(root, &withNull, 2)
        #expect(takeError() == QZErrorNullArgument)
        var cyclic: [CALayerRef?] = [root]
        CALayerSetSublayers(b, &cyclic, 1)
        #expect(takeError() == QZErrorInvalidArgument)
        CALayerSetMask(b, root)                          // the mask has no superlayer but is an ancestor
        #expect(takeError() == QZErrorInvalidArgument)
        CALayerSetMask(b, a)                             // a is b's superlayer (a cycle)
        #expect(takeError() == QZErrorInvalidArgument)
        _ = CALayerGetSublayerAtIndex(root, 3)
        #expect(takeError() == QZErrorOutOfRange)
        #expect(snapshot() == before && CALayerGetSuperlayer(stranger) == nil)
        #expect(L(root).checkInvariants())
    }

    @Test func layersKeepTheirSublayersAlive() {
        let parent = layer()
        var child: CALayerRef? = layer()
        weak let weakChild = L(child!)
        CALayerAddSublayer(parent, child)
        CARelease(UnsafeRawPointer(child))
        child = nil
        #expect(weakChild != nil && CALayerGetSublayerCount(parent) == 1)
        CALayerRemoveFromSuperlayer(CALayerGetSublayerAtIndex(parent, 0))
        #expect(weakChild == nil)
        // A freed superlayer clears its sublayers' back-references.
        let p2 = layer(), c2 = layer()
        CALayerAddSublayer(p2, c2)
        release(p2)
        #expect(CALayerGetSuperlayer(c2) == nil)
        release(c2, parent)
    }

    @Test func fuzzedTreeOperationsKeepTheInvariants() {
        var seed: UInt64 = 0x2545F4914F6CDD1D
        func next(_ n: Int) -> Int {
            seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17
            return Int(seed % UInt64(n))
        }
        let pool = (0..<24).map { _ in layer() }
        defer { for l in pool { release(l) } }
        func any() -> CALayerRef? { next(10) == 0 ? nil : pool[next(pool.count)] }
        for step in 0..<20_000 {
            QZClearLastError()
            switch next(8) {
            case 0: CALayerAddSublayer(any(), any())
            case 1: CALayerInsertSublayerAtIndex(any(), any(), CUnsignedInt(next(6)))
            case 2: CALayerInsertSublayerBelow(any(), any(), any())
            case 3: CALayerInsertSublayerAbove(any(), any(), any())
            case 4: CALayerReplaceSublayer(any(), any(), any())
            case 5: CALayerRemoveFromSuperlayer(any())
            case 6: CALayerSetMask(any(), next(3) == 0 ? nil : any())
            default:
                var list: [CALayerRef?] = (0..<next(4)).map { _ in any() }
                CALayerSetSublayers(any(), &list, list.count)
            }
            do {
                let ok = withModelLock { pool.allSatisfy { L($0).checkInvariants() } }
                #expect(ok, "invariants broken at step \(step)")
                if !ok { return }
            }
        }
    }

    @Test func fourThreadsMutateOneTree() {
        let root = layer()
        let pool = (0..<64).map { _ in layer() }
        defer { release(root); for l in pool { release(l) } }
        DispatchQueue.concurrentPerform(iterations: 4) { t in
            var seed = UInt64(t + 1) &* 0x9E3779B97F4A7C15
            for _ in 0..<5_000 {
                seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17
                let a = pool[Int(seed % 64)], b = pool[Int((seed >> 8) % 64)]
                switch seed % 5 {
                case 0: CALayerAddSublayer(root, a)
                case 1: CALayerAddSublayer(a, b)
                case 2: CALayerRemoveFromSuperlayer(a)
                case 3: CALayerSetPosition(a, CGPoint(x: Double(seed % 100), y: 1))
                default: _ = CALayerGetFrame(a); _ = CALayerHitTest(root, CGPoint(x: 1, y: 1))
                }
                QZClearLastError()
            }
        }
        #expect(withModelLock { L(root).checkInvariants() && pool.allSatisfy { L($0).checkInvariants() } })
    }
}

@Suite struct DisplayMarkTests {
    @Test func aWholeLayerMarkStoresNoRectangle() {
        let l = Layer()
        l.bounds = CGRect(x: 0, y: 0, width: 40, height: 30)
        l.setNeedsDisplay()
        #expect(l.needsDisplay)
        #expect(l.dirtyRect == CGRect(x: 0, y: 0, width: 40, height: 30))
        // The mark is a flag: no rare visuals (where a rectangle would go).
        #expect(l.visuals?.rare == nil)
        // A rectangle marked as well: the union with the bounds.
        l.setNeedsDisplay(in: CGRect(x: 30, y: 20, width: 20, height: 20))
        #expect(l.dirtyRect == CGRect(x: 0, y: 0, width: 50, height: 40))
        l.display()
        #expect(!l.needsDisplay && l.dirtyRect.isNull)
        // A rectangle alone is kept as it is.
        l.setNeedsDisplay(in: CGRect(x: 1, y: 2, width: 3, height: 4))
        #expect(l.dirtyRect == CGRect(x: 1, y: 2, width: 3, height: 4))
        l.display()
        #expect(l.dirtyRect.isNull)
        // The whole-layer mark reads as the bounds of the moment.
        l.setNeedsDisplay()
        l.bounds = CGRect(x: 0, y: 0, width: 10, height: 10)
        #expect(l.dirtyRect == CGRect(x: 0, y: 0, width: 10, height: 10))
        l.display()
        #expect(l.dirtyRect.isNull)
    }
}
