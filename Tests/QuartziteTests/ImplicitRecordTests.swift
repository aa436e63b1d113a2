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

// Implicit animations kept as records (Transactions/ImplicitAnimation.swift)
// must behave exactly as the CABasicAnimation objects they stand for: the
// same presentation values at every moment, the same order among the
// layer's animations, the same keys, removal and end.

private func keys(_ l: CALayerRef) -> [String] {
    guard let v = CALayerCopyAnimationKeys(l) else { return [] }
    defer { CARelease(UnsafeRawPointer(v)) }
    return (0..<CAValueGetCount(v)).map { String(cString: CAValueGetString(CAValueGetArrayItem(v, $0))!) }
}

/// What a presentation copy shows of the properties the tests animate.
private struct Shown: Equatable {
    var position: CGPoint, bounds: CGRect, anchor: CGPoint, z: Double, opacity: Float
    var corner: Double, shadowOffset: CGSize, color: [Double], m11: Double, m12: Double, m41: Double

    init(_ model: CALayerRef) {
        let p = CALayerCopyPresentationLayer(model)!
        defer { CARelease(UnsafeRawPointer(p)) }
        position = CALayerGetPosition(p)
        bounds = CALayerGetBounds(p)
        anchor = CALayerGetAnchorPoint(p)
        z = CALayerGetZPosition(p)
        opacity = CALayerGetOpacity(p)
        corner = CALayerGetCornerRadius(p)
        shadowOffset = CALayerGetShadowOffset(p)
        let c = CALayerGetBackgroundColor(p).flatMap(CGColorGetComponents)
        color = c.map { [$0[0], $0[1], $0[2], $0[3]] } ?? []
        let t = CALayerGetTransform(p)
        (m11, m12, m41) = (t.m11, t.m12, t.m41)
    }
}

extension CGPoint: @retroactive Equatable {
    public static func == (a: CGPoint, b: CGPoint) -> Bool { a.x == b.x && a.y == b.y }
}
extension CGSize: @retroactive Equatable {
    public static func == (a: CGSize, b: CGSize) -> Bool { a.width == b.width && a.height == b.height }
}
extension CGRect: @retroactive Equatable {
    public static func == (a: CGRect, b: CGRect) -> Bool { a.origin == b.origin && a.size == b.size }
}

@Suite(.serialized) struct ImplicitRecordTests {
    /// Changes nine properties of a committed layer (one transaction, 0.5 s, easeIn).
    private func changeEverything(_ l: CALayerRef, _ red: QZCGColorRef, _ blue: QZCGColorRef) {
        CATransactionBegin()
        CATransactionSetDisableActions(true)
        CALayerSetBackgroundColor(l, red)
        CALayerSetCornerRadius(l, 2)
        CATransactionCommit()
        CATransactionBegin()
        CATransactionSetAnimationDuration(0.5)
        let easeIn = CAMediaTimingFunctionCreateWithName("easeIn")
        defer { CARelease(UnsafeRawPointer(easeIn)) }
        CATransactionSetAnimationTimingFunction(easeIn)
        CALayerSetPosition(l, CGPoint(x: 110, y: 40))
        CALayerSetBounds(l, CGRect(x: 0, y: 0, width: 50, height: 30))
        CALayerSetAnchorPoint(l, CGPoint(x: 0, y: 1))
        CALayerSetZPosition(l, 4)
        CALayerSetOpacity(l, 0.2)
        CALayerSetCornerRadius(l, 12)
        CALayerSetShadowOffset(l, CGSize(width: 6, height: 8))
        CALayerSetBackgroundColor(l, blue)
        CALayerSetTransform(l, CATransform3DMakeRotation(.pi / 2, 0, 0, 1))
        CATransactionCommit()
    }

    @Test func recordsPresentWhatTheirObjectsPresent() {
        withClock(10) { clock in
            let red = CGColorCreateSRGB(1, 0, 0, 1)!, blue = CGColorCreateSRGB(0, 0, 1, 0.5)!
            let records = committedLayer(position: CGPoint(x: 10, y: 20))
            let objects = committedLayer(position: CGPoint(x: 10, y: 20))
            defer {
                CARelease(UnsafeRawPointer(records)); CARelease(UnsafeRawPointer(objects))
                CGColorRelease(red); CGColorRelease(blue)
            }
            changeEverything(records, red, blue)
            changeEverything(objects, red, blue)
            // One layer keeps records; the other's are turned into objects
            // by asking for one of them.
            #expect(swiftLayer(records).implicitList?.count == 9)
            #expect(CALayerGetAnimation(objects, "position") != nil)
            #expect(swiftLayer(objects).implicitList == nil)
            #expect(swiftLayer(objects).animationList?.count == 9)
            #expect(keys(records) == keys(objects))
            #expect(keys(records) == ["position", "bounds", "anchorPoint", "zPosition", "opacity", "cornerRadius",
                                      "shadowOffset", "backgroundColor", "transform"])
            for t in [10.0, 10.05, 10.2, 10.37, 10.4999] {
                clock.now = t
                #expect(Shown(records) == Shown(objects), "at \(t)")
            }
            // Against values computed here: position from (10, 20) to (110, 40)
            // under easeIn (0.42, 0, 1, 1) at a quarter of the time.
            clock.now = 10.125
            let f = bezierY(0.42, 0, 1, 1, atX: 0.25)
            let shown = Shown(records)
            #expect(abs(shown.position.x - (10 + 100 * f)) < 1e-6)
            #expect(abs(shown.position.y - (20 + 20 * f)) < 1e-6)
            #expect(abs(Double(shown.opacity) - (1 + (0.2 - 1) * f)) < 1e-6)
            #expect(abs(shown.corner - (2 + 10 * f)) < 1e-6)
            #expect(abs(shown.shadowOffset.height - (-3 + 11 * f)) < 1e-6)
            // Over: the model values, and the records gone once events are processed.
            clock.now = 10.5
            #expect(Shown(records).position == CGPoint(x: 110, y: 40))
            #expect(Shown(records).opacity == 0.2)
            QZAnimationProcessEvents()
            #expect(swiftLayer(records).implicitList == nil)
            #expect(keys(records).isEmpty)
            #expect(CALayerGetAnimation(records, "position") == nil)
        }
    }

    @Test func recordsAreNewerThanTheObjectsBesideThem() {
        withClock(20) { clock in
            let l = committedLayer()
            defer { CARelease(UnsafeRawPointer(l)) }
            // An explicit additive opacity animation (+0.1), then an implicit
            // change: the implicit one, added later, applies after it.
            let pulse = CABasicAnimationCreate("opacity")!
            let tenth = CAValueCreateNumber(0.1)!, zero = CAValueCreateNumber(0)!
            defer { CARelease(UnsafeRawPointer(pulse)); CARelease(UnsafeRawPointer(tenth)); CARelease(UnsafeRawPointer(zero)) }
            CABasicAnimationSetFromValue(pulse, tenth)
            CABasicAnimationSetToValue(pulse, tenth)
            CAPropertyAnimationSetAdditive(pulse, true)
            CAAnimationSetDuration(pulse, 10)
            CALayerAddAnimation(l, pulse, "pulse")
            CATransactionFlush()
            CALayerSetOpacity(l, 0.5)
            CATransactionFlush()
            #expect(swiftLayer(l).implicitList?.count == 1)
            #expect(keys(l) == ["pulse", "opacity"])
            clock.now = 20.125
            let f = bezierY(0.25, 0.1, 0.25, 1, atX: 0.5)
            // From what was on screen (1 + 0.1) to the value before it (the
            // model's 0.5 with the pulse's 0.1): 1.1 + (0.6 - 1.1) f. (The
            // other order would give 1.2 - 0.6 f.)
            let p = CALayerCopyPresentationLayer(l)!
            #expect(abs(Double(CALayerGetOpacity(p)) - (1.1 + (0.6 - 1.1) * f)) < 1e-6)
            CARelease(UnsafeRawPointer(p))
            CABasicAnimationSetFromValue(pulse, zero)
            CABasicAnimationSetToValue(pulse, zero)
            CAPropertyAnimationSetAdditive(pulse, false)

            // An explicit animation added now turns the record into an
            // object first, and comes after it.
            CALayerAddAnimation(l, pulse, "pulse2")
            CATransactionFlush()
            #expect(swiftLayer(l).implicitList == nil)
            #expect(keys(l) == ["pulse", "opacity", "pulse2"])
            let q = CALayerCopyPresentationLayer(l)!
            #expect(CALayerGetOpacity(q) == 0)
            CARelease(UnsafeRawPointer(q))
        }
    }

    @Test func recordsAreReplacedAndRemovedByKey() {
        withClock(30) { clock in
            let l = committedLayer(position: CGPoint(x: 0, y: 0))
            defer { CARelease(UnsafeRawPointer(l)) }
            // Twice in one transaction: one animation, from the committed value.
            CALayerSetPosition(l, CGPoint(x: 10, y: 0))
            CALayerSetPosition(l, CGPoint(x: 20, y: 0))
            #expect(swiftLayer(l).transactionState?.pendingImplicit.count == 1)
            #expect(keys(l) == ["position"])
            CATransactionFlush()
            // A later change replaces the running one, from what is on screen.
            clock.now = 30.125
            let shownBefore = presentedPosition(l).x
            CALayerSetZPosition(l, 1)
            CALayerSetPosition(l, CGPoint(x: 40, y: 0))
            CATransactionFlush()
            #expect(keys(l) == ["zPosition", "position"])
            #expect(presentedPosition(l).x == shownBefore)
            // Removed pending and running, by key.
            CALayerSetOpacity(l, 0.5)
            CALayerRemoveAnimation(l, "opacity")
            CALayerRemoveAnimation(l, "zPosition")
            #expect(keys(l) == ["position"])
            CATransactionFlush()
            #expect(keys(l) == ["position"])
            CALayerRemoveAllAnimations(l)
            #expect(keys(l).isEmpty)
            #expect(presentedPosition(l).x == 40)
        }
    }

    @Test func aRecordAskedForIsTheAnimationItStandsFor() {
        withClock(40) { clock in
            let l = committedLayer(position: CGPoint(x: 5, y: 6))
            defer { CARelease(UnsafeRawPointer(l)) }
            CATransactionBegin()
            CATransactionSetAnimationDuration(2)
            CALayerSetPosition(l, CGPoint(x: 9, y: 6))
            CATransactionCommit()
            clock.now = 41
            let before = presentedPosition(l)
            let a = CALayerGetAnimation(l, "position")
            #expect(CAAnimationGetDuration(a) == 2)
            #expect(CABasicAnimationGetFromValue(a).map(CAValueGetPoint) == CGPoint(x: 5, y: 6))
            #expect(CABasicAnimationGetToValue(a) == nil)
            #expect(object(a!, as: Animation.self)?.resolvedBeginTime == 40)
            // Nothing on screen changes.
            #expect(presentedPosition(l) == before)
        }
    }
}

/// y of the cubic Bezier (0,0) (x1,y1) (x2,y2) (1,1) where x = `x`, by bisection.
func bezierY(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, atX x: Double) -> Double {
    func b(_ t: Double, _ p1: Double, _ p2: Double) -> Double {
        3 * (1 - t) * (1 - t) * t * p1 + 3 * (1 - t) * t * t * p2 + t * t * t
    }
    var lo = 0.0, hi = 1.0
    for _ in 0..<200 {
        let mid = (lo + hi) / 2
        if b(mid, x1, x2) < x { lo = mid } else { hi = mid }
    }
    return b((lo + hi) / 2, y1, y2)
}

/// Several threads change, read, ask for and remove implicit animations of
/// the same layers at once: no crash, no duplicate keys, and in the end the
/// model's values on screen.
@Suite(.serialized) struct ImplicitRecordThreadTests {
    final class Shared {
        let layers: [CALayerRef]
        var duplicates = 0
        init(_ layers: [CALayerRef]) { self.layers = layers }
    }

    static let writer: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { p in
        let s = Unmanaged<Shared>.fromOpaque(p!).takeUnretainedValue()
        for i in 1...400 {
            CATransactionBegin()
            CATransactionSetAnimationDuration(Double(i % 5 + 1) * 0.01)
            for l in s.layers {
                CALayerSetPosition(l, CGPoint(x: Double(i), y: 0))
                CALayerSetOpacity(l, Float(i % 10) / 10)
                CALayerSetCornerRadius(l, Double(i % 7))
            }
            CATransactionCommit()
        }
        return nil
    }

    static let reader: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { p in
        let s = Unmanaged<Shared>.fromOpaque(p!).takeUnretainedValue()
        for i in 0..<600 {
            let l = s.layers[i % s.layers.count]
            let pres = CALayerCopyPresentationLayer(l)!
            _ = CALayerGetPosition(pres)
            CARelease(UnsafeRawPointer(pres))
            if let keys = CALayerCopyAnimationKeys(l) {
                let names = (0..<CAValueGetCount(keys)).map { String(cString: CAValueGetString(CAValueGetArrayItem(keys, $0))!) }
                if Set(names).count != names.count { s.duplicates += 1 }
                CARelease(UnsafeRawPointer(keys))
            }
            if i % 3 == 0 { _ = CALayerGetAnimation(l, "opacity") }     // turns records into objects
            if i % 11 == 0 { CALayerRemoveAnimation(l, "cornerRadius") }
            if i % 5 == 0 { QZAnimationProcessEvents() }
        }
        return nil
    }

    @Test func threadsChangeReadAndMaterialiseAtOnce() {
        let root = CALayerCreate()!
        let layers = (0..<4).map { _ -> CALayerRef in
            let l = CALayerCreate()!
            CALayerAddSublayer(root, l)
            return l
        }
        CATransactionFlush()
        let shared = Shared(layers)
        var threads: [pthread_t] = []
        for fn in [Self.writer, Self.writer, Self.reader, Self.reader] {
            var t = pthread_t()
            pthread_create(&t, nil, fn, Unmanaged.passUnretained(shared).toOpaque())
            threads.append(t)
        }
        for t in threads { pthread_join(t, nil) }
        #expect(shared.duplicates == 0)
        withClock(MediaClock.now() + 10) { _ in
            QZAnimationProcessEvents()
            for l in layers {
                #expect(swiftLayer(l).implicitList == nil && swiftLayer(l).animationList == nil)
                #expect(presentedPosition(l) == CALayerGetPosition(l))
                CARelease(UnsafeRawPointer(l))
            }
        }
        CARelease(UnsafeRawPointer(root))
    }
}
