import CQuartzite
import Glibc
import Testing
@testable import QuartziteCore
@testable import QuartziteGeometry
@testable import QuartziteVideo
@testable import QuartziteGraphics
@testable import QuartziteModel
@testable import QuartziteRender
@testable import Quartzite

// Presentation copies the host has released are reused in place by the next
// presentation copy of the same root; copies anybody still holds never are.
// A released copy is kept only when the model lock is free or held by the
// releasing thread (tests run in parallel): these tests release their copies
// inside withModelLock.

/// A root with `count` sublayers, each moving from x = 0 to x = 100 over 1 s
/// (linear), added at time 0.
private func movingTree(_ count: Int) -> Layer {
    let root = Layer()
    withModelLock {
        for i in 0..<count {
            let l = Layer()
            l.position = CGPoint(x: 100, y: Double(i))
            _ = root.addSublayer(l, function: "test")
            l.addAnimation(basic("position.x", from: n(0), to: n(100)), forKey: "move", now: 0)
        }
    }
    return root
}

private func xs(_ copy: Layer) -> [Double] { copy.sublayers.map { $0.position.x } }

@Suite struct PresentationReuseTests {
    @Test func releasedCopiesAreReusedWithTheNewValues() {
        let root = movingTree(3)
        var ids: [ObjectIdentifier] = []
        withModelLock {
            let c1 = root.presentationCopy(now: 0.25)
            #expect(xs(c1) == [25, 25, 25])
            ids = c1.sublayers.map(ObjectIdentifier.init)
        }
        let c2 = withModelLock { root.presentationCopy(now: 0.5) }
        #expect(c2.sublayers.map(ObjectIdentifier.init) == ids)   // the same objects, overwritten
        #expect(xs(c2) == [50, 50, 50])
        for (i, s) in c2.sublayers.enumerated() {
            #expect(s.superlayer === c2)
            #expect(s.modelLayer === root.sublayers[i])
            #expect(s.position.y == Double(i))
        }
        #expect(c2.modelLayer === root)
    }

    @Test func aSublayerCopyTheHostHoldsIsLeftAlone() {
        let root = movingTree(3)
        var held: Layer?
        withModelLock {
            let c1 = root.presentationCopy(now: 0.25)
            held = c1.sublayers[1]
        }
        let c2 = withModelLock { root.presentationCopy(now: 0.75) }
        #expect(c2.sublayers[1] !== held)
        #expect(held!.position.x == 25)          // still the earlier frame's value
        #expect(xs(c2) == [75, 75, 75])
        #expect(c2.sublayers[1].superlayer === c2)
    }

    @Test func aCopyStillHeldIsNeverReused() {
        let root = movingTree(2)
        let c1 = withModelLock { root.presentationCopy(now: 0.25) }
        let c2 = withModelLock { root.presentationCopy(now: 0.5) }
        #expect(c1.sublayers[0] !== c2.sublayers[0])
        #expect(xs(c1) == [25, 25])
        #expect(xs(c2) == [50, 50])
    }

    @Test func treeChangesBetweenCopiesAreFollowed() {
        let root = movingTree(3)
        withModelLock { root.sublayers[0].detach() }
        var ids: [ObjectIdentifier] = []
        withModelLock { ids = root.presentationCopy(now: 0.25).sublayers.map(ObjectIdentifier.init) }
        // Add a text layer with a sublayer of its own: two copies are reused, two are new.
        let text = Layer(class: .text), grandchild = Layer()
        withModelLock {
            grandchild.opacity = 0.5
            _ = text.addSublayer(grandchild, function: "test")
            _ = root.insertSublayer(text, at: 1, function: "test")
        }
        let c2 = withModelLock { root.presentationCopy(now: 0.5) }
        #expect(c2.sublayers.count == 3)
        #expect(ObjectIdentifier(c2.sublayers[0]) == ids[0])      // reused in place
        for (i, s) in c2.sublayers.enumerated() {
            #expect(s.modelLayer === root.sublayers[i])
            #expect(s.layerClass === root.sublayers[i].layerClass)
            #expect(s.superlayer === c2)
        }
        #expect(c2.sublayers[0].position.x == 50 && c2.sublayers[0].position.y == 1)
        #expect(c2.sublayers[1].text != nil)                        // a text layer: not the old plain copy
        #expect(c2.sublayers[1].sublayers.count == 1)
        #expect(c2.sublayers[1].sublayers[0].opacity == 0.5)
        #expect(c2.sublayers[1].sublayers[0].modelLayer === grandchild)
        #expect(c2.sublayers[2].position.x == 50 && c2.sublayers[2].position.y == 2)
    }

    @Test func aHeldGrandchildCopyLosesItsSuperlayerWhenItsParentCopyIsReused() {
        let root = Layer(), child = Layer(), grandchild = Layer()
        withModelLock {
            _ = root.addSublayer(child, function: "test")
            _ = child.addSublayer(grandchild, function: "test")
            grandchild.addAnimation(basic("position.x", from: n(0), to: n(100)), forKey: "move", now: 0)
        }
        var held: Layer?
        var childCopy: ObjectIdentifier?
        withModelLock {
            let c1 = root.presentationCopy(now: 0.25)
            held = c1.sublayers[0].sublayers[0]
            childCopy = ObjectIdentifier(c1.sublayers[0])
            #expect(held!.superlayer === c1.sublayers[0])
        }
        let c2 = withModelLock { root.presentationCopy(now: 0.5) }
        #expect(ObjectIdentifier(c2.sublayers[0]) == childCopy)   // reused
        #expect(c2.sublayers[0].sublayers[0] !== held)            // held: not reused
        #expect(held!.superlayer == nil)                          // and detached from the reused parent
        #expect(held!.position.x == 25)
        #expect(c2.sublayers[0].sublayers[0].position.x == 50)
        #expect(c2.sublayers[0].sublayers[0].superlayer === c2.sublayers[0])
    }

    // Plain leaves (no sublayers, side objects, animations or uncommitted
    // changes) have their released copies refreshed without the general walk.

    @Test func plainLeafCopiesAreRefreshedInPlaceWithEveryInlineProperty() {
        let root = Layer()
        let leaves = (0..<3).map { _ in Layer() }
        let turn = CATransform3D(rotationAngle: 0.5, x: 0, y: 0, z: 1)
        withModelLock {
            for (i, l) in leaves.enumerated() {
                l.position = CGPoint(x: Double(i), y: 1)
                TransformBox.store(turn, in: &l.transformBox)
                _ = root.addSublayer(l, function: "test")
            }
        }
        var ids: [ObjectIdentifier] = []
        withModelLock { ids = root.presentationCopy(now: 0).sublayers.map(ObjectIdentifier.init) }
        let spin = CATransform3D(rotationAngle: 1, x: 0, y: 1, z: 0)
        withModelLock {
            let l = leaves[1]
            l.bounds = CGRect(x: 1, y: 2, width: 30, height: 40)
            l.position = CGPoint(x: 7, y: 8)
            l.anchorPoint = CGPoint(x: 0.25, y: 0.75)
            l.zPosition = 3
            l.anchorPointZ = 4
            l.opacity = 0.5
            l.flags.insert(.hidden)
            TransformBox.store(.identity, in: &l.transformBox)
            TransformBox.store(spin, in: &l.sublayerTransformBox)
        }
        let c2 = withModelLock { root.presentationCopy(now: 0) }
        #expect(c2.sublayers.map(ObjectIdentifier.init) == ids)   // the same objects
        let s = c2.sublayers[1]
        #expect(s.bounds == CGRect(x: 1, y: 2, width: 30, height: 40))
        #expect(s.position == CGPoint(x: 7, y: 8))
        #expect(s.anchorPoint == CGPoint(x: 0.25, y: 0.75))
        #expect(s.zPosition == 3 && s.anchorPointZ == 4)
        #expect(s.opacity == 0.5)
        #expect(s.flags.contains(.hidden))
        #expect(s.transformBox == nil)                             // the identity again
        #expect(s.sublayerTransformBox === leaves[1].sublayerTransformBox)   // shared with the model
        #expect(s.sublayerTransform.isEqual(to: spin))
        for (i, c) in c2.sublayers.enumerated() {
            #expect(c.superlayer === c2)
            #expect(c.modelLayer === leaves[i])
            #expect(c.isPresentationCopy && !c.flags.contains(.presentationRoot))
        }
        #expect(c2.sublayers[0].transform.isEqual(to: turn) && c2.sublayers[2].position == CGPoint(x: 2, y: 1))
    }

    @Test func leafCopiesWithCommonVisualsAreRefreshedInTheirOwnBoxes() {
        let root = Layer()
        let leaves = (0..<3).map { _ in Layer() }
        let red = Color(space: .sRGB, components: [1, 0, 0, 1]), blue = Color(space: .sRGB, components: [0, 0, 1, 1])
        let image = Image.testWhite
        withModelLock {
            for l in leaves {
                l.backgroundColor = red
                l.cornerRadius = 4
                l.ensureVisuals.contents = image
                _ = root.addSublayer(l, function: "test")
            }
            leaves[2].borderWidth = 1
        }
        var layerIDs: [ObjectIdentifier] = [], boxIDs: [ObjectIdentifier] = []
        withModelLock {
            let c1 = root.presentationCopy(now: 0)
            layerIDs = c1.sublayers.map(ObjectIdentifier.init)
            boxIDs = c1.sublayers.map { ObjectIdentifier($0.visuals!) }
            for (i, s) in c1.sublayers.enumerated() { #expect(s.visuals !== leaves[i].visuals) }
        }
        withModelLock {
            let l = leaves[1]
            l.backgroundColor = blue
            l.cornerRadius = 9
            l.borderWidth = 2
            l.ensureVisuals.contents = nil
            leaves[2].backgroundColor = nil
        }
        let c2 = withModelLock { root.presentationCopy(now: 0) }
        #expect(c2.sublayers.map(ObjectIdentifier.init) == layerIDs)
        #expect(c2.sublayers.map { ObjectIdentifier($0.visuals!) } == boxIDs)   // overwritten, not replaced
        let s = c2.sublayers[1]
        #expect(s.backgroundColor === blue && s.cornerRadius == 9 && s.borderWidth == 2 && s.visuals!.contents == nil)
        #expect(s.visuals!.rare == nil)
        let first = c2.sublayers[0]
        #expect(first.backgroundColor === red && first.cornerRadius == 4 && first.borderWidth == 0
                && first.visuals!.contents === image)
        let last = c2.sublayers[2]
        #expect(last.backgroundColor == nil && last.cornerRadius == 4 && last.borderWidth == 1)
        for (i, c) in c2.sublayers.enumerated() {
            #expect(c.visuals !== leaves[i].visuals)
            #expect(c.superlayer === c2 && c.modelLayer === leaves[i])
        }
    }

    @Test func aVisualsBoxHeldElsewhereIsNeverOverwritten() {
        let root = Layer(), plain = Layer(), shadowed = Layer()
        let image1 = Image.testWhite, image2 = Image.testWhite
        withModelLock {
            plain.ensureVisuals.contents = image1
            shadowed.ensureVisuals.shadowOpacity = 0.5
            _ = root.addSublayer(plain, function: "test")
            _ = root.addSublayer(shadowed, function: "test")
        }
        var held: [LayerVisuals] = []
        withModelLock { held = root.presentationCopy(now: 0).sublayers.map { $0.visuals! } }
        withModelLock {
            plain.ensureVisuals.contents = image2
            shadowed.ensureVisuals.shadowOpacity = 1
        }
        let c2 = withModelLock { root.presentationCopy(now: 0) }
        #expect(held[0].contents === image1 && held[1].shadowOpacity == 0.5)   // as they were
        #expect(c2.sublayers[0].visuals !== held[0] && c2.sublayers[0].visuals!.contents === image2)
        #expect(c2.sublayers[1].visuals !== held[1] && c2.sublayers[1].visuals!.shadowOpacity == 1)
    }

    @Test func aLargeTreeOfLeavesWithVisualsIsCopiedRightWithPrefetching() {
        // Above 2,048 sublayers the plain-leaf loop prefetches (visuals and
        // common visuals included).
        let root = Layer()
        let colours = (0..<4).map { Color(space: .sRGB, components: [Double($0) / 4, 0, 0, 1]) }
        let image = Image.testWhite
        withModelLock {
            for i in 0..<3000 {
                let l = Layer()
                l.position = CGPoint(x: Double(i), y: 0)
                if i % 3 != 0 { l.backgroundColor = colours[i % 4]; l.cornerRadius = Double(i) }
                if i % 7 == 0 { l.ensureVisuals.shadowOpacity = 0.5 }
                if i % 11 == 0 { l.ensureVisuals.contents = image }
                _ = root.addSublayer(l, function: "test")
            }
        }
        withModelLock { _ = root.presentationCopy(now: 0) }
        withModelLock { for (i, l) in root.sublayers.enumerated() where i % 5 == 0 { l.cornerRadius = -1 } }
        let c = withModelLock { root.presentationCopy(now: 0) }
        #expect(c.sublayers.count == 3000)
        for (i, s) in c.sublayers.enumerated() {
            let model = root.sublayers[i]
            #expect(s.modelLayer === model && s.superlayer === c && s.position.x == Double(i))
            #expect((s.visuals == nil) == (model.visuals == nil))
            #expect(s.cornerRadius == model.cornerRadius && s.backgroundColor === model.backgroundColor)
            if let v = s.visuals, let m = model.visuals {
                #expect(v !== m && v.contents === m.contents && v.shadowOpacity == m.shadowOpacity)
            }
        }
    }

    @Test func prefetchOffsetsAreFoundAndMatchTheLayout() throws {
        let o = try #require(PresentationPrefetch.offsets)   // nil would turn prefetching off
        let l = Layer()
        l.visuals = LayerVisuals()
        let base = UnsafeRawPointer(Unmanaged.passUnretained(l).toOpaque())
        #expect(base.load(fromByteOffset: o.visuals, as: UnsafeRawPointer.self)
                == UnsafeRawPointer(Unmanaged.passUnretained(l.visuals!).toOpaque()))
        #expect(o.visualsBytes >= 32 && o.visualsBytes <= 40)   // header, contents and `rare`
        // The common visuals end where the offsets say.
        l.borderWidth = 2.5
        l.cornerRadius = 1.5
        #expect(o.commonVisualsEnd > o.visuals + 8 && o.commonVisualsEnd <= 192)
        #expect(base.load(fromByteOffset: o.commonVisualsEnd - 8, as: Double.self) == 2.5
                || base.load(fromByteOffset: o.commonVisualsEnd - 8, as: Double.self) == 1.5)
    }

    /// A layer object fits a 272-byte heap block (264 bytes of fields):
    /// copies of 100,000 plain leaves were up to 20% slower with 304-byte
    /// blocks (benchmarks/README.md), and memory per layer counts it.
    @Test func aLayerFitsA272ByteHeapBlock() {
        let l = Layer()
        let size = mallocUsableSize(UnsafeRawPointer(Unmanaged.passUnretained(l).toOpaque()))
        #expect(size >= 256 && size <= 264)
    }

    @Test func aCopyWhoseHostAddedVisualsLosesThemWhenItsLeafHasNone() {
        let root = Layer(), leaf = Layer()
        withModelLock { _ = root.addSublayer(leaf, function: "test") }
        withModelLock {
            let c1 = root.presentationCopy(now: 0)
            c1.sublayers[0].ensureVisuals.shadowOpacity = 0.5   // the host sets a copy's properties
            c1.sublayers[0].cornerRadius = 6
        }
        let c2 = withModelLock { root.presentationCopy(now: 0) }
        #expect(c2.sublayers[0].visuals == nil)
        #expect(c2.sublayers[0].cornerRadius == 0)
    }

    @Test func copiesWithRareVisualsAreOverwrittenInPlaceAndKeepNoMask() {
        let root = Layer(), leaf = Layer(), masked = Layer(), mask = Layer()
        let grey = Color(space: .sRGB, components: [0.5, 0.5, 0.5, 1])
        withModelLock {
            leaf.ensureVisuals.shadowOpacity = 0.5
            _ = root.addSublayer(leaf, function: "test")
            _ = root.addSublayer(masked, function: "test")
            _ = masked.setMask(mask, function: "test")
        }
        var box: ObjectIdentifier?, rare: ObjectIdentifier?
        withModelLock {
            let c1 = root.presentationCopy(now: 0)
            box = ObjectIdentifier(c1.sublayers[0].visuals!)
            rare = ObjectIdentifier(c1.sublayers[0].visuals!.rare!)
            let m = c1.sublayers[1].visuals!.mask!
            #expect(m.modelLayer === mask && m.superlayer === c1.sublayers[1])
        }
        withModelLock {
            leaf.ensureVisuals.shadowOpacity = 0.25
            leaf.ensureVisuals.shadowColor = grey
            leaf.ensureVisuals.shadowRadius = 7
        }
        let c2 = withModelLock { root.presentationCopy(now: 0) }
        let v = c2.sublayers[0].visuals!
        #expect(ObjectIdentifier(v) == box && ObjectIdentifier(v.rare!) == rare)
        #expect(v.shadowOpacity == 0.25 && v.shadowColor === grey && v.shadowRadius == 7)
        #expect(v.rare !== leaf.visuals!.rare && v.mask == nil)
        // The masked layer's copy has a copy of the mask each time.
        let m = c2.sublayers[1].visuals!.mask!
        #expect(m.modelLayer === mask && m.superlayer === c2.sublayers[1] && m !== mask)
    }

    @Test func aReleasedCopyTheHostChangedIsCopiedTheGeneralWay() {
        let root = Layer(), leaf = Layer()
        withModelLock { _ = root.addSublayer(leaf, function: "test") }
        var id: ObjectIdentifier?
        withModelLock {
            let c1 = root.presentationCopy(now: 0)
            let s = c1.sublayers[0]
            id = ObjectIdentifier(s)
            // A presentation copy's properties change at once (the host may set them).
            s.cornerRadius = 6
            s.timing = LayerTiming()
        }
        let c2 = withModelLock { root.presentationCopy(now: 0) }
        #expect(ObjectIdentifier(c2.sublayers[0]) == id)          // reused, but not as a bare copy:
        #expect(c2.sublayers[0].visuals == nil)                   // what the host set is gone
        #expect(c2.sublayers[0].timing == nil)
    }

    @Test func aPlainLeafWithUncommittedChangesShowsItsCommittedValues() {
        withClock(10) { _ in
            let root = committedLayer(), a = committedLayer(position: CGPoint(x: 1, y: 1))
            let b = committedLayer(position: CGPoint(x: 2, y: 2))
            defer { for l in [root, a, b] { CARelease(UnsafeRawPointer(l)) } }
            CALayerAddSublayer(root, a)
            CALayerAddSublayer(root, b)
            CATransactionFlush()
            // A first copy, released (under the lock, so that it is kept for
            // reuse). Made as the renderer makes its copies: objects at once
            // (the host's copies keep leaves as values: PresentationLeavesTests).
            var ids: [ObjectIdentifier] = []
            withModelLock {
                let p = swiftLayer(root).presentationCopy(now: 10)
                ids = p.sublayers.map(ObjectIdentifier.init)
            }
            CATransactionBegin()
            CATransactionSetDisableActions(true)
            CALayerSetPosition(b, CGPoint(x: 20, y: 20))
            CALayerSetOpacity(b, 0.5)
            withModelLock {
                let p = swiftLayer(root).presentationCopy(now: 10)
                let subs = p.sublayers
                #expect(subs.map(ObjectIdentifier.init) == ids)
                #expect(subs[0].position == CGPoint(x: 1, y: 1))
                #expect(subs[1].position == CGPoint(x: 2, y: 2))     // committed, not the model's 20
                #expect(subs[1].opacity == 1)
            }
            // The copy of a leaf itself (the target of the walk) comes back, under its root's copy.
            withModelLock {
                let p = CALayerCopyPresentationLayer(a)!
                #expect(ObjectIdentifier(swiftLayer(p)) == ids[0])
                #expect(swiftLayer(p).modelLayer === swiftLayer(a))
                #expect(swiftLayer(p).superlayer?.modelLayer === swiftLayer(root))
                CARelease(UnsafeRawPointer(p))
            }
            CATransactionCommit()
            #expect(presentedPosition(b) == CGPoint(x: 20, y: 20))
        }
    }

    @Test func removedModelLayersAreNotKeptAliveByKeptCopies() {
        let root = movingTree(3)
        weak var removed: Layer?
        weak var replaced: Layer?
        do {
            withModelLock { _ = root.presentationCopy(now: 0.5) }   // copies kept for reuse
            withModelLock {
                let a = root.sublayers[0]
                removed = a
                a.detach()
                let b = root.sublayers[0]
                replaced = b
                _ = root.replaceSublayer(b, with: Layer(), function: "test")
            }
        }
        #expect(removed == nil)
        #expect(replaced == nil)
        let c = withModelLock { root.presentationCopy(now: 0.5) }
        #expect(c.sublayers.count == 2)
        #expect(c.sublayers[1].position.x == 50)
    }

    @Test func theModelTreeIsFreedWithItsRoot() {
        weak var weakRoot: Layer?
        weak var weakChild: Layer?
        weak var weakCopy: Layer?
        do {
            let root = movingTree(2)
            weakRoot = root
            weakChild = root.sublayers[0]
            withModelLock {
                let c = root.presentationCopy(now: 0.5)
                weakCopy = c.sublayers[0]
            }
            #expect(weakCopy != nil)   // kept for reuse while the model lives
        }
        #expect(weakRoot == nil)
        #expect(weakChild == nil)
        #expect(weakCopy == nil)
    }

    @Test func transformsAnimateWithoutTouchingTheModel() {
        let root = Layer(), child = Layer()
        let end = CATransform3D(scaleX: 2, y: 3, z: 1)
        withModelLock {
            _ = root.addSublayer(child, function: "test")
            TransformBox.store(end, in: &child.transformBox)
            child.addAnimation(basic("transform", from: Value(.transform3D(.identity)), to: Value(.transform3D(end))),
                               forKey: "t", now: 0)
        }
        for t in [0.5, 0.25] {
            let c = withModelLock { root.presentationCopy(now: t) }
            #expect(abs(c.sublayers[0].transform.m11 - (1 + t)) < 1e-12)
            #expect(abs(c.sublayers[0].transform.m22 - (1 + 2 * t)) < 1e-12)
            #expect(child.transform.m11 == 2 && child.transform.m22 == 3)
        }
        // An unanimated copy shares the model's transform until either changes.
        withModelLock { child.removeAllAnimations() }
        let held = withModelLock { root.presentationCopy(now: 2) }
        withModelLock { TransformBox.store(CATransform3D(scaleX: 5, y: 5, z: 1), in: &child.transformBox) }
        #expect(held.sublayers[0].transform.m11 == 2)
        #expect(child.transform.m11 == 5)
    }

    @Test func aReusedCopyShowsTheModelTransformOnceItsAnimationEnds() {
        // The animation stays on the layer after its end (no event processing):
        // with fill mode removed the model's transform shows, also in a copy
        // reused from a frame where the animation had written its own.
        let root = Layer(), child = Layer()
        let model = CATransform3D(scaleX: 4, y: 4, z: 1)
        withModelLock {
            _ = root.addSublayer(child, function: "test")
            TransformBox.store(model, in: &child.transformBox)
            child.addAnimation(basic("transform", from: Value(.transform3D(.identity)),
                                     to: Value(.transform3D(CATransform3D(scaleX: 2, y: 2, z: 1)))), forKey: "t", now: 0)
            child.addAnimation(basic("opacity", from: n(0), to: n(1), duration: 5), forKey: "o", now: 0)
        }
        var ids: [ObjectIdentifier] = []
        withModelLock {
            let c = root.presentationCopy(now: 0.5)
            #expect(abs(c.sublayers[0].transform.m11 - 1.5) < 1e-12)
            ids = c.sublayers.map(ObjectIdentifier.init)
        }
        withModelLock {
            let c = root.presentationCopy(now: 2)
            #expect(c.sublayers.map(ObjectIdentifier.init) == ids)   // reused
            #expect(c.sublayers[0].transform.m11 == 4 && c.sublayers[0].transform.m22 == 4)
            #expect(abs(c.sublayers[0].opacity - 0.4) < 1e-6)
        }
        let c = withModelLock { root.presentationCopy(now: 0.25) }
        #expect(abs(c.sublayers[0].transform.m11 - 1.25) < 1e-12)
        #expect(child.transform.m11 == 4)
    }

    @Test func changingAnAddedAnimationTakesEffect() {
        // An opacity from/to animation: the resolved fast plan must follow changes.
        let l = Layer()
        withModelLock { l.addAnimation(basic("opacity", from: n(0), to: n(1)), forKey: "fade", now: 0) }
        func opacity() -> Float { withModelLock { l.presentationCopy(now: 0.5).opacity } }
        #expect(opacity() == 0.5)
        let a = withModelLock { l.animation(forKey: "fade")! }
        a.toValue = n(0.5)
        #expect(opacity() == 0.25)
        a.timingFunction = .easeIn
        #expect(opacity() == Float(0.5 * TimingFunction.easeIn.solve(0.5)))
        a.additive = true   // now the general path: onto the model's 1
        #expect(opacity() == Float(1 + 0.5 * TimingFunction.easeIn.solve(0.5)))
    }
    // A layer's rarely used state (text, custom keys, hooks) lives in a side object:
    // copies take the text and custom state, never the hooks, also when reused.
    @Test func copiesShowTextAndCustomStateButNoHooks() {
        let root = Layer()
        let text = Layer(class: .text)
        let plain = Layer()
        withModelLock {
            _ = root.addSublayer(text, function: "test")
            _ = root.addSublayer(plain, function: "test")
            text.text?.fontSize = 20
            _ = text.setValue(n(7), forKey: "weight", function: "test")
            _ = plain.setValue(n(3), forKey: "depth", function: "test")
            _ = text.ensureHooks
            plain.addAnimation(basic("opacity", from: n(0), to: n(1)), forKey: "fade", now: 0)
        }
        for t in [0.25, 0.5] {   // the second copy reuses the first one's sublayers
            let c = withModelLock { root.presentationCopy(now: t) }
            let (ct, cp) = (c.sublayers[0], c.sublayers[1])
            #expect(ct.text?.fontSize == 20)
            #expect(ct.value(forKey: "weight")?.number == 7)
            #expect(ct.hooks == nil)
            #expect(cp.value(forKey: "depth")?.number == 3)
            #expect(cp.opacity == Float(t))
            #expect(cp.text == nil)
        }
        // A custom key removed from the model is gone from the next (reused) copy.
        withModelLock { _ = plain.setValue(nil, forKey: "depth", function: "test") }
        let c = withModelLock { root.presentationCopy(now: 0.75) }
        #expect(c.sublayers[1].value(forKey: "depth") == nil)
        #expect(text.hooks != nil)
    }

    /// The presentation transform at `t` of a layer animating its transform
    /// from a rotation about z by `start` to one by `end` over 1 s.
    private func zRotation(from start: Double, to end: Double, at t: Double) -> CATransform3D {
        let root = Layer(), child = Layer()
        withModelLock {
            _ = root.addSublayer(child, function: "test")
            let a = CATransform3D(rotationAngle: start, x: 0, y: 0, z: 1)
            let b = CATransform3D(rotationAngle: end, x: 0, y: 0, z: 1)
            TransformBox.store(b, in: &child.transformBox)
            child.addAnimation(basic("transform", from: Value(.transform3D(a)), to: Value(.transform3D(b))), forKey: "r", now: 0)
        }
        return withModelLock { root.presentationCopy(now: t).sublayers[0].transform }
    }

    // Matrices interpolate their rotation the short way: the slerp's angle
    // and direction are resolved once, when the animation's plan is made.
    @Test func transformRotationsTakeTheShortWay() {
        // 0 to 3 rad: the direct way is the short one; halfway is 1.5 rad.
        var m = zRotation(from: 0, to: 3, at: 0.5)
        #expect(abs(m.m11 - cos(1.5)) < 1e-12 && abs(m.m12 - sin(1.5)) < 1e-12)
        // 0 to 4 rad is 2*pi - 4 the other way: halfway is -(pi - 2) rad.
        m = zRotation(from: 0, to: 4, at: 0.5)
        #expect(abs(m.m11 - cos(2 - Double.pi)) < 1e-12 && abs(m.m12 - sin(2 - Double.pi)) < 1e-12)
        // A quarter of the way from 1 rad to -1 rad.
        m = zRotation(from: 1, to: -1, at: 0.25)
        #expect(abs(m.m11 - cos(0.5)) < 1e-12 && abs(m.m12 - sin(0.5)) < 1e-12)
        // Nearly parallel ends (normalised linear interpolation): 0 to 0.01 rad.
        m = zRotation(from: 0, to: 0.01, at: 0.5)
        #expect(abs(m.m11 - cos(0.005)) < 1e-9 && abs(m.m12 - sin(0.005)) < 1e-9)
    }
}

/// glibc's malloc_usable_size (in malloc.h, which the Glibc module leaves out).
@_silgen_name("malloc_usable_size") private func mallocUsableSize(_ p: UnsafeRawPointer) -> Int
