import CQuartzite
import Glibc
import Testing
@testable import QuartziteCore
@testable import QuartziteGeometry
@testable import QuartziteGraphics
@testable import QuartziteModel
@testable import Quartzite

// The typed setters' short paths: `hidden` on a layer without action
// sources takes the implicit fast path, a colour setter that gets the
// object it already holds stores nothing, and a bounds change on a layer
// already marked for layout stays inline. Each must do what the general
// path did.

@Suite struct SetterFastPathTests {
    /// Runs `body` in a transaction with actions disabled, its clock fixed.
    private func withoutActions(_ body: () -> Void) {
        withClock(0) { _ in
            CATransactionBegin()
            CATransactionSetDisableActions(true)
            defer { CATransactionCommit() }
            body()
        }
    }

    /// Swift's own count of strong references (the layer's and ours).
    private func strongCount(_ c: QZCGColorRef) -> UInt {
        _getRetainCount(object(c, as: Color.self)!)
    }

    @Test func hiddenWithoutActionSourcesAnimatesImplicitly() {
        withClock(0) { _ in
            let l = committedLayer()
            defer { CARelease(UnsafeRawPointer(l)) }
            CALayerSetHidden(l, true)
            #expect(CALayerGetHidden(l))
            let a = CALayerGetAnimation(l, "hidden")
            #expect(a != nil)
            #expect(a.flatMap { CAPropertyAnimationGetKeyPath($0) }.map { String(cString: $0) } == "hidden")
            #expect(CABasicAnimationGetFromValue(a).map { CAValueGetBool($0) } == false)
            CATransactionFlush()

            // With actions disabled: the value, and no animation.
            let m = committedLayer()
            defer { CARelease(UnsafeRawPointer(m)) }
            CATransactionBegin()
            CATransactionSetDisableActions(true)
            CALayerSetHidden(m, true)
            CATransactionCommit()
            #expect(CALayerGetHidden(m))
            #expect(CALayerCopyAnimationKeys(m) == nil)

            // A layer created in the open transaction: no animation either.
            let n = CALayerCreate()!
            defer { CARelease(UnsafeRawPointer(n)) }
            CALayerSetHidden(n, true)
            #expect(CALayerGetHidden(n))
            #expect(CALayerCopyAnimationKeys(n) == nil)
            #expect(QZGetLastError() == QZErrorNone)
        }
    }

    /// Every typed setter asks a delegate that answers actions, whether the
    /// layer's creation is committed or not (the setters' inline path is only
    /// for layers without action sources).
    @Test func typedSettersAskTheDelegateForActions() {
        withClock(0) { _ in
            let log = CallLog(), ran = CallLog()
            let action = CAActionCreate(logAction, opaque(ran))!
            defer { CARelease(UnsafeRawPointer(action)) }
            log.answer = action
            var table = CALayerDelegateCallbacks()
            table.actionForLayerForKey = ActionSearchTests.delegateAnswer
            let red = CGColorCreateSRGB(1, 0, 0, 1)!
            defer { CARelease(UnsafeRawPointer(red)) }
            func setAll(_ l: CALayerRef) {
                CALayerSetPosition(l, CGPoint(x: 3, y: 4))
                CALayerSetBounds(l, CGRect(x: 0, y: 0, width: 7, height: 8))
                CALayerSetOpacity(l, 0.5)
                CALayerSetHidden(l, true)
                CALayerSetCornerRadius(l, 2)
                CALayerSetBorderWidth(l, 1)
                CALayerSetBackgroundColor(l, red)
                CALayerSetTransform(l, CATransform3DMakeScale(2, 2, 1))
            }
            let keys = ["position", "bounds", "opacity", "hidden", "cornerRadius", "borderWidth", "backgroundColor",
                        "transform"]
            // A committed layer: the delegate's action runs, no implicit animation.
            let l = committedLayer()
            defer { CARelease(UnsafeRawPointer(l)) }
            CALayerSetDelegate(l, &table, opaque(log))
            setAll(l)
            // (hidden also asks for onOrderOut.)
            #expect(log.keys == ["position", "bounds", "opacity", "hidden", "onOrderOut", "cornerRadius", "borderWidth",
                                 "backgroundColor", "transform"])
            #expect(ran.keys == log.keys)   // each answer ran
            #expect(CALayerCopyAnimationKeys(l) == nil)
            #expect(CALayerGetOpacity(l) == 0.5 && CALayerGetCornerRadius(l) == 2 && CALayerGetBackgroundColor(l) == red)
            CALayerSetDelegate(l, nil, nil)
            CATransactionFlush()

            // A layer created in the open transaction: the delegate is asked too.
            log.keys = []
            ran.keys = []
            let n = CALayerCreate()!
            defer { CARelease(UnsafeRawPointer(n)) }
            CALayerSetDelegate(n, &table, opaque(log))
            setAll(n)
            #expect(Array(log.keys.filter { $0 != "onOrderOut" }) == keys)
            #expect(ran.keys == log.keys)
            #expect(CALayerGetCornerRadius(n) == 2 && CALayerGetTransform(n).m11 == 2)
            CALayerSetDelegate(n, nil, nil)
            #expect(QZGetLastError() == QZErrorNone)
        }
    }

    @Test func hiddenOnAPresentationCopyChangesAtOnce() {
        withClock(0) { _ in
            let l = committedLayer()
            defer { CARelease(UnsafeRawPointer(l)) }
            let p = CALayerCopyPresentationLayer(l)!
            defer { CARelease(UnsafeRawPointer(p)) }
            CALayerSetHidden(p, true)
            #expect(CALayerGetHidden(p))
            #expect(!CALayerGetHidden(l))
            #expect(CALayerCopyAnimationKeys(p) == nil)
        }
    }

    @Test func settingTheSameColourKeepsOneReference() {
        withClock(0) { _ in
            let l = committedLayer()
            defer { CARelease(UnsafeRawPointer(l)) }
            let red = CGColorCreateSRGB(1, 0, 0, 1)!
            let base = strongCount(red)
            CATransactionBegin()
            CATransactionSetDisableActions(true)
            CALayerSetBackgroundColor(l, red)
            #expect(strongCount(red) == base + 1)
            CALayerSetBackgroundColor(l, red)          // the same object: nothing stored
            CALayerSetBackgroundColor(l, red)
            #expect(strongCount(red) == base + 1)
            #expect(CALayerGetBackgroundColor(l) == red)
            // An equal colour that is another object replaces it.
            let red2 = CGColorCreateSRGB(1, 0, 0, 1)!
            CALayerSetBackgroundColor(l, red2)
            #expect(CALayerGetBackgroundColor(l) == red2)
            #expect(strongCount(red) == base)
            CALayerSetBackgroundColor(l, nil)
            #expect(CALayerGetBackgroundColor(l) == nil)
            #expect(strongCount(red2) == base)
            CATransactionCommit()
            CARelease(UnsafeRawPointer(red))
            CARelease(UnsafeRawPointer(red2))
            #expect(QZGetLastError() == QZErrorNone)
        }
    }

    @Test func colourDefaultsAreStoredOnlyWhenTheyChange() {
        withoutActions {
            // The default border colour on a layer without visuals: nothing to allocate.
            let l = committedLayer()
            defer { CARelease(UnsafeRawPointer(l)) }
            let black = CALayerGetBorderColor(l)!
            CALayerSetBorderColor(l, black)
            CALayerSetShadowColor(l, CALayerGetShadowColor(l))
            CALayerSetBackgroundColor(l, nil)
            #expect(swiftLayer(l).visuals == nil)
            #expect(CALayerGetBorderColor(l) == black)
            // NULL is not the default border colour: it is stored.
            CALayerSetBorderColor(l, nil)
            #expect(CALayerGetBorderColor(l) == nil)
            CALayerSetBorderColor(l, black)
            #expect(CALayerGetBorderColor(l) == black)
            // An equal colour that is another object is stored as given.
            let otherBlack = CGColorCreateSRGB(0, 0, 0, 1)!
            defer { CARelease(UnsafeRawPointer(otherBlack)) }
            CALayerSetShadowColor(l, otherBlack)
            #expect(CALayerGetShadowColor(l) == otherBlack)
            #expect(swiftLayer(l).isSet(.shadowColor) && swiftLayer(l).isSet(.borderColor))
            // Setting the value a property has still marks it set (and the same
            // through key-value coding).
            let m = committedLayer()
            defer { CARelease(UnsafeRawPointer(m)) }
            let v = CAValueCreateWithObject(UnsafeRawPointer(black))!
            CALayerSetValueForKey(m, "borderColor", v)
            CARelease(UnsafeRawPointer(v))
            #expect(swiftLayer(m).isSet(.borderColor))
            #expect(swiftLayer(m).visuals == nil)
            #expect(CALayerGetBorderColor(m) == black)
            #expect(QZGetLastError() == QZErrorNone)
        }
    }

    @Test func aSizeChangeAfterLayoutWasAskedStillRedisplays() {
        withoutActions {
            // needsDisplayOnBoundsChange, with layout already asked for.
            let l = committedLayer()
            defer { CARelease(UnsafeRawPointer(l)) }
            CALayerDisplayIfNeeded(l)
            CALayerSetNeedsLayout(l)
            CALayerSetNeedsDisplayOnBoundsChange(l, true)
            #expect(CALayerNeedsLayout(l) && !CALayerNeedsDisplay(l))
            CALayerSetBounds(l, CGRect(x: 0, y: 0, width: 20, height: 10))
            #expect(CALayerNeedsDisplay(l))

            // Without it: a size change marks for layout only.
            let m = committedLayer()
            defer { CARelease(UnsafeRawPointer(m)) }
            CALayerDisplayIfNeeded(m)
            CALayerSetNeedsLayout(m)
            CALayerSetBounds(m, CGRect(x: 0, y: 0, width: 30, height: 10))
            #expect(CALayerNeedsLayout(m) && !CALayerNeedsDisplay(m))
            CALayerLayoutIfNeeded(m)
            #expect(!CALayerNeedsLayout(m))
            CALayerSetBounds(m, CGRect(x: 0, y: 0, width: 40, height: 10))
            #expect(CALayerNeedsLayout(m))
            // Moving the origin only: no layout.
            CALayerLayoutIfNeeded(m)
            CALayerSetBounds(m, CGRect(x: 5, y: 5, width: 40, height: 10))
            #expect(!CALayerNeedsLayout(m))

            // A text layer lays its text out for its bounds: a size change redisplays it.
            let t = CATextLayerCreate()!
            defer { CARelease(UnsafeRawPointer(t)) }
            CALayerSetBounds(t, CGRect(x: 0, y: 0, width: 10, height: 10))
            CALayerDisplayIfNeeded(t)
            CALayerSetNeedsLayout(t)
            #expect(!CALayerNeedsDisplay(t))
            CALayerSetBounds(t, CGRect(x: 0, y: 0, width: 50, height: 10))
            #expect(CALayerNeedsDisplay(t))
            #expect(QZGetLastError() == QZErrorNone)
        }
    }
}
