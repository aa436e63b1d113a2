import CQuartzite
import Glibc
import Testing
@testable import QuartziteCore
@testable import QuartziteGeometry
@testable import QuartziteGraphics
@testable import QuartziteModel
@testable import QuartziteRender
@testable import Quartzite

// A presentation copy the host asks for keeps its plain leaves as values
// (PresentationLeaves.swift) and makes their objects when they are read. What
// the host sees must not differ from objects made at once: the values of the
// moment of the copy, one object per sublayer, the links of a copy.

/// A committed root with `count` leaves: leaf i at (i, 2i), 10x20, translated
/// by (i, 0, 0), corner radius i, a shared red background.
private func leafTree(_ count: Int, red: QZCGColorRef) -> (root: CALayerRef, leaves: [CALayerRef]) {
    let root = committedLayer()
    var leaves: [CALayerRef] = []
    for i in 0..<count {
        let l = CALayerCreate()!
        CALayerSetPosition(l, CGPoint(x: Double(i), y: Double(2 * i)))
        CALayerSetBounds(l, CGRect(x: 0, y: 0, width: 10, height: 20))
        CALayerSetTransform(l, CATransform3DMakeTranslation(Double(i), 0, 0))
        CALayerSetCornerRadius(l, Double(i))
        CALayerSetBackgroundColor(l, red)
        CALayerAddSublayer(root, l)
        leaves.append(l)
    }
    CATransactionFlush()
    return (root, leaves)
}

private func release(_ p: OpaquePointer?) { if let p { CARelease(UnsafeRawPointer(p)) } }

/// Runs `body` at media time 0 (`clock` moves it) with a red colour and a
/// `leafTree` of `count` leaves, released afterwards.
private func withLeafTree(_ count: Int,
                          _ body: (_ root: CALayerRef, _ leaves: [CALayerRef], _ red: QZCGColorRef, TestClock) -> Void) {
    withClock(0) { clock in
        let red = CGColorCreateSRGB(1, 0, 0, 1)!
        let (root, leaves) = leafTree(count, red: red)
        body(root, leaves, red, clock)
        leaves.forEach { release($0) }
        release(root)
        CGColorRelease(red)
    }
}

/// Runs `body` in a transaction without actions (changes show at once).
private func noActions(_ body: () -> Void) {
    CATransactionBegin()
    CATransactionSetDisableActions(true)
    body()
    CATransactionCommit()
}

/// Adds a one-second animation of position.x from 0 to 100 under "move".
private func addMove(to layer: CALayerRef) {
    let move = CABasicAnimationCreate("position.x")!
    let from = CAValueCreateNumber(0)!, to = CAValueCreateNumber(100)!
    CABasicAnimationSetFromValue(move, from)
    CABasicAnimationSetToValue(move, to)
    CAAnimationSetDuration(move, 1)
    CALayerAddAnimation(layer, move, "move")
    release(move); release(from); release(to)
}

@Suite struct PresentationLeavesTests {
    @Test func leavesShowTheValuesOfTheMomentOfTheCopy() {
        withLeafTree(3) { root, leaves, red, clock in
            let blue = CGColorCreateSRGB(0, 0, 1, 1)!
            defer { CGColorRelease(blue) }
            let p = CALayerCopyPresentationLayer(root)!
            defer { release(p) }
            #expect(swiftLayer(p).flags.contains(.lazySublayers))
            #expect(CALayerGetSublayerCount(p) == 3)
            // The model changes after the copy (committed at once).
            noActions {
                CALayerSetPosition(leaves[1], CGPoint(x: 50, y: 60))
                CALayerSetTransform(leaves[1], CATransform3DMakeTranslation(0, 9, 0))
                CALayerSetCornerRadius(leaves[1], 7)
                CALayerSetBackgroundColor(leaves[1], blue)
                CALayerSetOpacity(leaves[1], 0.5)
            }
            let s = CALayerGetSublayerAtIndex(p, 1)!
            #expect(CALayerGetPosition(s) == CGPoint(x: 1, y: 2))
            #expect(CALayerGetBounds(s) == CGRect(x: 0, y: 0, width: 10, height: 20))
            #expect(CATransform3DEqualToTransform(CALayerGetTransform(s), CATransform3DMakeTranslation(1, 0, 0)))
            #expect(CALayerGetCornerRadius(s) == 1)
            #expect(CALayerGetOpacity(s) == 1)
            #expect(CGColorEqualToColor(CALayerGetBackgroundColor(s), red))
            // Only that one was made.
            #expect(swiftLayer(p).flags.contains(.lazySublayers))
            // A new copy shows the new values.
            let q = CALayerCopyPresentationLayer(root)!
            defer { release(q) }
            let t = CALayerGetSublayerAtIndex(q, 1)!
            #expect(CALayerGetPosition(t) == CGPoint(x: 50, y: 60))
            #expect(CATransform3DEqualToTransform(CALayerGetTransform(t), CATransform3DMakeTranslation(0, 9, 0)))
            #expect(CALayerGetCornerRadius(t) == 7)
            #expect(CALayerGetOpacity(t) == 0.5)
            #expect(CGColorEqualToColor(CALayerGetBackgroundColor(t), blue))
            #expect(CALayerGetPosition(s) == CGPoint(x: 1, y: 2))   // the first copy's is unchanged
        }
    }

    @Test func aLeafIsOneObjectWithTheLinksOfACopy() {
        withLeafTree(4) { root, leaves, red, clock in
            let p = CALayerCopyPresentationLayer(root)!
            defer { release(p) }
            let a = CALayerGetSublayerAtIndex(p, 2)
            #expect(a == CALayerGetSublayerAtIndex(p, 2))
            #expect(CALayerGetSuperlayer(a) == p)
            #expect(CALayerGetModelLayer(a) == leaves[2])
            #expect(CALayerGetModelLayer(p) == root)
            // Setting a property of a copy changes the copy alone.
            CALayerSetPosition(a, CGPoint(x: 3, y: 3))        // changes the copy at once
            #expect(CALayerGetPosition(a) == CGPoint(x: 3, y: 3))
            #expect(CALayerGetPosition(leaves[2]) == CGPoint(x: 2, y: 4))
            // Out of range is an error, not a trap.
            #expect(CALayerGetSublayerAtIndex(p, 4) == nil)
            #expect(QZGetLastError() == QZErrorOutOfRange)
        }
    }

    @Test func aWalkOverEverySublayerMakesThemAllKeepingTheOnesMade() {
        withLeafTree(5) { root, leaves, red, clock in
            let p = CALayerCopyPresentationLayer(root)!
            defer { release(p) }
            let made = CALayerGetSublayerAtIndex(p, 3)
            // Hit testing walks the sublayers. The point is (4, 5) in the
            // root's bounds, which leaves 2, 3 and 4 cover (10x20 about their
            // positions, translated by i in x): 4 is in front.
            let hit = CALayerHitTest(p, CGPoint(x: -1, y: 0))
            #expect(!swiftLayer(p).flags.contains(.lazySublayers))
            #expect(hit == CALayerGetSublayerAtIndex(p, 4))
            #expect(CALayerGetSublayerAtIndex(p, 3) == made)
            #expect(CALayerGetSublayerCount(p) == 5)
            for i in 0..<5 {
                let s = CALayerGetSublayerAtIndex(p, i)
                #expect(CALayerGetSuperlayer(s) == p)
                #expect(CALayerGetModelLayer(s) == leaves[i])
                #expect(CALayerGetPosition(s) == CGPoint(x: Double(i), y: Double(2 * i)))
            }
        }
    }

    @Test func sublayersThatAreNotPlainLeavesAreCopiedAsBefore() {
        withLeafTree(4) { root, leaves, red, clock in
            // 1: has a sublayer; 2: animates; 3: a shadow (rare visuals).
            let child = committedLayer(position: CGPoint(x: 5, y: 5))
            defer { release(child) }
            CALayerAddSublayer(leaves[1], child)
            addMove(to: leaves[2])
            CALayerSetShadowOpacity(leaves[3], 0.5)
            CATransactionFlush()
            clock.now = 0.25
            let p = CALayerCopyPresentationLayer(root)!
            defer { release(p) }
            #expect(swiftLayer(p).flags.contains(.lazySublayers))
            let withChild = CALayerGetSublayerAtIndex(p, 1)!
            #expect(CALayerGetSublayerCount(withChild) == 1)
            #expect(CALayerGetModelLayer(CALayerGetSublayerAtIndex(withChild, 0)) == child)
            #expect(CALayerGetSuperlayer(withChild) == p)
            #expect(CALayerGetPosition(CALayerGetSublayerAtIndex(p, 2)).x == 25)
            #expect(CALayerGetShadowOpacity(CALayerGetSublayerAtIndex(p, 3)) == 0.5)
            #expect(CALayerGetPosition(CALayerGetSublayerAtIndex(p, 0)) == CGPoint(x: 0, y: 0))
        }
    }

    @Test func aReleasedCopysLeavesAreRefilledAndHeldOnesKeepTheirValues() {
        withLeafTree(3) { root, leaves, red, clock in
            let p = CALayerCopyPresentationLayer(root)!
            let held = CALayerGetSublayerAtIndex(p, 0)!
            CARetain(UnsafeRawPointer(held))
            withModelLock { release(p) }   // (kept for reuse only when the lock is ours: see PresentationReuseTests)
            #expect(swiftLayer(root).presentationSpareLeaves != nil)
            #expect(CALayerGetSuperlayer(held) == nil)
            noActions { CALayerSetPosition(leaves[0], CGPoint(x: 40, y: 41)) }
            let q = CALayerCopyPresentationLayer(root)!
            defer { release(q) }
            #expect(swiftLayer(root).presentationSpareLeaves == nil)   // taken by q
            let s = CALayerGetSublayerAtIndex(q, 0)!
            #expect(s != held)
            #expect(CALayerGetPosition(s) == CGPoint(x: 40, y: 41))
            #expect(CALayerGetSuperlayer(s) == q)
            #expect(CALayerGetPosition(held) == CGPoint(x: 0, y: 0))
            release(held)
            // A sublayer removed from the model leaves the next copy.
            noActions { CALayerRemoveFromSuperlayer(leaves[2]) }
            let r = CALayerCopyPresentationLayer(root)!
            defer { release(r) }
            #expect(CALayerGetSublayerCount(r) == 2)
        }
    }

    @Test func aLeafWithUncommittedChangesShowsItsCommittedValues() {
        withLeafTree(2) { root, leaves, red, clock in
            CATransactionBegin()
            CATransactionSetDisableActions(true)
            CALayerSetPosition(leaves[1], CGPoint(x: 20, y: 20))
            let p = CALayerCopyPresentationLayer(root)!
            #expect(swiftLayer(p).flags.contains(.lazySublayers))
            #expect(CALayerGetPosition(CALayerGetSublayerAtIndex(p, 1)) == CGPoint(x: 1, y: 2))
            release(p)
            CATransactionCommit()
            let q = CALayerCopyPresentationLayer(root)!
            #expect(CALayerGetPosition(CALayerGetSublayerAtIndex(q, 1)) == CGPoint(x: 20, y: 20))
            release(q)
        }
    }

    @Test func leavesDeeperInTheTreeAreValuesTooAndACopyOfTheCopyMakesThem() {
        withClock(0) { _ in
            let red = CGColorCreateSRGB(1, 0, 0, 1)!
            defer { CGColorRelease(red) }
            // root -> container (not a leaf: it has sublayers) -> 3 leaves.
            let (container, leaves) = leafTree(3, red: red)
            let root = committedLayer()
            defer { leaves.forEach { release($0) }; release(container); release(root) }
            noActions { CALayerAddSublayer(root, container) }
            let p = CALayerCopyPresentationLayer(root)!
            defer { release(p) }
            #expect(!swiftLayer(p).flags.contains(.lazySublayers))
            let c = CALayerGetSublayerAtIndex(p, 0)!
            #expect(swiftLayer(c).flags.contains(.lazySublayers))
            // A copy of the copy reads every layer of it: the container's
            // leaves become objects first, with their values.
            let pp = CALayerCopyPresentationLayer(p)!
            defer { release(pp) }
            #expect(!swiftLayer(c).flags.contains(.lazySublayers))
            let cc = CALayerGetSublayerAtIndex(pp, 0)!
            #expect(CALayerGetSublayerCount(cc) == 3)
            #expect(CALayerGetModelLayer(CALayerGetSublayerAtIndex(cc, 2)) == leaves[2])
            #expect(CALayerGetPosition(CALayerGetSublayerAtIndex(cc, 2)) == CGPoint(x: 2, y: 4))
            #expect(CALayerGetSuperlayer(CALayerGetSublayerAtIndex(c, 1)) == c)
        }
    }

    @Test func copiesOfALazyCopyAndOfALeafInside() {
        withLeafTree(3) { root, leaves, red, clock in
            let p = CALayerCopyPresentationLayer(root)!
            defer { release(p) }
            let pp = CALayerCopyPresentationLayer(p)!
            defer { release(pp) }
            #expect(CALayerGetSublayerCount(pp) == 3)
            #expect(CALayerGetModelLayer(CALayerGetSublayerAtIndex(pp, 1)) == leaves[1])
            #expect(CALayerGetPosition(CALayerGetSublayerAtIndex(pp, 2)) == CGPoint(x: 2, y: 4))
            // The copy of one leaf: its superlayer is a copy of the root.
            let leaf = CALayerCopyPresentationLayer(leaves[1])!
            defer { release(leaf) }
            #expect(CALayerGetModelLayer(leaf) == leaves[1])
            #expect(CALayerGetModelLayer(CALayerGetSuperlayer(leaf)) == root)
            #expect(CALayerGetPosition(leaf) == CGPoint(x: 1, y: 2))
        }
    }

    /// A leaf whose `sideState` flag a copy cleared, then given side state
    /// by each kind of write, is copied with that state (as an object made
    /// the general way), not from the values of a plain leaf.
    @Test func sideStateWrittenAfterACopyClearedTheFlagIsCopied() {
        withLeafTree(7) { root, leaves, red, clock in
            let first = CALayerCopyPresentationLayer(root)!
            release(first)
            for l in leaves { #expect(!swiftLayer(l).flags.contains(.sideState)) }
            // 1 a sublayer transform, 2 a speed (timing), 3 a sublayer,
            // 4 a custom key (extras), 5 an animation, 6 an uncommitted change.
            let child = committedLayer(position: CGPoint(x: 9, y: 9))
            defer { release(child) }
            let value = CAValueCreateNumber(42)!
            defer { release(value) }
            noActions {
                CALayerSetSublayerTransform(leaves[1], CATransform3DMakeScale(2, 2, 1))
                CALayerSetSpeed(leaves[2], 2)
                CALayerAddSublayer(leaves[3], child)
                CALayerSetValueForKey(leaves[4], "quartziteTestKey", value)
            }
            addMove(to: leaves[5])
            CATransactionFlush()
            for i in 1...5 { #expect(swiftLayer(leaves[i]).flags.contains(.sideState)) }
            #expect(!swiftLayer(leaves[0]).flags.contains(.sideState))
            clock.now = 0.5
            CATransactionBegin()
            CATransactionSetDisableActions(true)
            CALayerSetPosition(leaves[6], CGPoint(x: 70, y: 70))
            #expect(swiftLayer(leaves[6]).flags.contains(.sideState))
            let p = CALayerCopyPresentationLayer(root)!
            #expect(CATransform3DEqualToTransform(CALayerGetSublayerTransform(CALayerGetSublayerAtIndex(p, 1)),
                                                  CATransform3DMakeScale(2, 2, 1)))
            #expect(CALayerGetSpeed(CALayerGetSublayerAtIndex(p, 2)) == 2)
            #expect(CALayerGetSublayerCount(CALayerGetSublayerAtIndex(p, 3)) == 1)
            let got = CALayerCopyValueForKey(CALayerGetSublayerAtIndex(p, 4), "quartziteTestKey")
            #expect(got.map { CAValueGetNumber($0) } == 42)
            release(got)
            #expect(CALayerGetPosition(CALayerGetSublayerAtIndex(p, 5)).x == 50)
            #expect(CALayerGetPosition(CALayerGetSublayerAtIndex(p, 6)) == CGPoint(x: 6, y: 12))
            #expect(CALayerGetPosition(CALayerGetSublayerAtIndex(p, 0)) == CGPoint(x: 0, y: 0))
            release(p)
            CATransactionCommit()
            // Committed: the transaction state is gone, and the next copy
            // finds leaf 6 plain again; the others keep their side state.
            let q = CALayerCopyPresentationLayer(root)!
            defer { release(q) }
            #expect(CALayerGetPosition(CALayerGetSublayerAtIndex(q, 6)) == CGPoint(x: 70, y: 70))
            #expect(!swiftLayer(leaves[6]).flags.contains(.sideState))
            for i in 1...4 { #expect(swiftLayer(leaves[i]).flags.contains(.sideState)) }
        }
    }

    /// Clearing the flag on the model (a copy's bookkeeping) is not a change
    /// of what the layers show: the next frame redraws nothing.
    @Test func clearingTheFlagLeavesTheNextFrameIdle() {
        withLeafTree(4) { root, leaves, red, clock in
            let pb = makeBuffer(64, 64)
            defer { CVPixelBufferRelease(pb) }
            let r = CARendererCreate(pb, nil)!
            defer { CARelease(UnsafeRawPointer(r)) }
            CARendererSetLayer(r, root)
            CARendererBeginFrameAtTime(r, 0, nil)
            CARendererRender(r)
            CARendererEndFrame(r)
            for l in leaves { swiftLayer(l).flags.insert(.sideState) }
            let renderer = object(r, as: Renderer.self)!
            let before = renderer.fingerprint(swiftLayer(root)).print
            let p = CALayerCopyPresentationLayer(root)!
            release(p)
            #expect(!swiftLayer(leaves[2]).flags.contains(.sideState))
            #expect(before != nil)
            #expect(renderer.fingerprint(swiftLayer(root)).print == before)
            CARendererBeginFrameAtTime(r, 1, nil)
            #expect(CARendererUpdateBounds(r).isNull)
            CARendererEndFrame(r)
        }
    }

    /// What a plain leaf's copy reads lies in the layer's first 128 bytes
    /// (what the fill requests ahead): the transform box and the visuals
    /// end there.
    @Test func aLeafsValuesLieInTheLayersFirst128Bytes() {
        let o = PresentationPrefetch.offsets!
        #expect(o.box + 8 <= 128)
        #expect(o.visuals + 8 <= 128)
    }

    /// Past 2,048 sublayers the fill takes its other loops (requests into
    /// the second-level cache, and the visuals' when leaves have them):
    /// every leaf still gets its own values.
    @Test func largeTreesAreCopiedLeafByLeaf() {
        withLeafTree(3000) { root, leaves, red, clock in
            // Leaves with visuals (corner radius i, red).
            let p = CALayerCopyPresentationLayer(root)!
            #expect(CALayerGetSublayerCount(p) == 3000)
            var wrong = 0
            for i in 0..<3000 {
                let s = CALayerGetSublayerAtIndex(p, i)!
                if CALayerGetPosition(s) != CGPoint(x: Double(i), y: Double(2 * i)) || CALayerGetCornerRadius(s) != Double(i)
                    || !CGColorEqualToColor(CALayerGetBackgroundColor(s), red) || CALayerGetModelLayer(s) != leaves[i] {
                    wrong += 1
                }
            }
            #expect(wrong == 0)
            release(p)
            // Leaves without visuals (no LayerVisuals at all).
            let plainRoot = committedLayer()
            var plain: [CALayerRef] = []
            noActions {
                for i in 0..<3000 {
                    let l = CALayerCreate()!
                    CALayerSetPosition(l, CGPoint(x: Double(i), y: 1))
                    CALayerAddSublayer(plainRoot, l)
                    plain.append(l)
                }
            }
            #expect(swiftLayer(plain[0]).visuals == nil)
            let q = CALayerCopyPresentationLayer(plainRoot)!
            wrong = 0
            for i in 0..<3000 {
                let s = CALayerGetSublayerAtIndex(q, i)!
                if CALayerGetPosition(s) != CGPoint(x: Double(i), y: 1) || CALayerGetModelLayer(s) != plain[i] { wrong += 1 }
            }
            #expect(wrong == 0)
            release(q)
            plain.forEach { release($0) }
            release(plainRoot)
        }
    }

    /// The renderer's copies (made eagerly, refreshed in place) take the
    /// same shortcut for a leaf whose flag is clear, but still see a mask
    /// (rare visuals, which do not set the flag) and a leaf given side
    /// state after the flag was cleared.
    @Test func rendererCopiesOfLeavesWhoseFlagIsClear() {
        withLeafTree(4) { root, leaves, red, clock in
            let mask = committedLayer()
            defer { release(mask) }
            noActions { CALayerSetMask(leaves[1], mask) }
            release(CALayerCopyPresentationLayer(root))   // clears the leaves' flags
            let model = swiftLayer(root)
            for l in leaves { #expect(!swiftLayer(l).flags.contains(.sideState)) }   // a mask is not side state
            // Released inside the lock: its sublayer copies are kept for reuse.
            let first = withModelLock { ObjectIdentifier(model.presentationCopy(now: 0).sublayers[0]) }
            noActions {
                CALayerSetSpeed(leaves[2], 2)   // timing: the leaf is no longer plain
                CALayerSetPosition(leaves[3], CGPoint(x: 30, y: 31))
            }
            let c = withModelLock { model.presentationCopy(now: 0) }
            #expect(ObjectIdentifier(c.sublayers[0]) == first)   // refreshed in place
            #expect(c.sublayers[0].position == CGPoint(x: 0, y: 0))
            #expect(c.sublayers[0].modelLayer === swiftLayer(leaves[0]))
            #expect(c.sublayers[1].visuals?.mask?.modelLayer === swiftLayer(mask))
            #expect(c.sublayers[2].timing?.speed == 2)
            #expect(c.sublayers[3].position == CGPoint(x: 30, y: 31))
        }
    }
}
