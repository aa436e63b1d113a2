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

// While a transaction is open, presentation shows what was last committed
// (Transactions/CommittedValues.swift keeps each changed property's
// committed value and builds the committed layer only when asked).

private func presented<R>(_ l: CALayerRef, _ read: (CALayerRef) -> R) -> R {
    let p = CALayerCopyPresentationLayer(l)!
    defer { CARelease(UnsafeRawPointer(p)) }
    return read(p)
}

private func string(_ s: UnsafePointer<CChar>?) -> String? { s.map { String(cString: $0) } }

@Suite(.serialized) struct CommittedValuesTests {
    @Test func presentationShowsCommittedValuesOfEveryKindUntilTheCommit() {
        withClock(50) { _ in
            let l = committedLayer(position: CGPoint(x: 3, y: 4))
            let green = CGColorCreateSRGB(0, 1, 0, 1)!
            let seven = CAValueCreateNumber(7)!
            defer { CARelease(UnsafeRawPointer(l)); CGColorRelease(green); CARelease(UnsafeRawPointer(seven)) }
            CATransactionBegin()
            CATransactionSetDisableActions(true)
            CALayerSetPosition(l, CGPoint(x: 30, y: 40))
            CALayerSetOpacity(l, 0.25)
            CALayerSetCornerRadius(l, 9)
            CALayerSetBackgroundColor(l, green)                     // nil before
            CALayerSetFrame(l, CGRect(x: 0, y: 0, width: 20, height: 20))   // position and bounds again
            CALayerSetTransform(l, CATransform3DMakeTranslation(5, 0, 0))
            CALayerSetContentsGravity(l, "top")                     // a constant, boxed
            CALayerSetName(l, "renamed")
            CALayerSetShadowOffset(l, CGSize(width: 1, height: 2))
            CALayerSetHidden(l, true)
            CALayerSetValueForKey(l, "custom", seven)               // an undeclared key
            // The model has every change at once; presentation none of them.
            #expect(CALayerGetPosition(l) == CGPoint(x: 10, y: 10))
            presented(l) { p in
                #expect(CALayerGetPosition(p) == CGPoint(x: 3, y: 4))
                #expect(CALayerGetBounds(p) == CGRect(x: 0, y: 0, width: 10, height: 10))
                #expect(CALayerGetOpacity(p) == 1)
                #expect(CALayerGetCornerRadius(p) == 0)
                #expect(CALayerGetBackgroundColor(p) == nil)
                #expect(CALayerGetTransform(p).m41 == 0)
                #expect(string(CALayerGetContentsGravity(p)) == "resize")
                #expect(CALayerGetName(p) == nil)
                #expect(CALayerGetShadowOffset(p) == CGSize(width: 0, height: -3))
                #expect(!CALayerGetHidden(p))
                #expect(CALayerCopyValueForKey(p, "custom") == nil)
            }
            // The committed layer is built once for the transaction.
            let state = swiftLayer(l).transactionState!
            let built = state.committedSnapshot
            #expect(built != nil)
            _ = presented(l) { _ in 0 }
            #expect(state.committedSnapshot === built)
            CATransactionCommit()
            #expect(swiftLayer(l).transactionState == nil)          // log dropped, state freed
            presented(l) { p in
                #expect(CALayerGetPosition(p) == CGPoint(x: 10, y: 10))
                #expect(CALayerGetOpacity(p) == 0.25)
                #expect(CALayerGetCornerRadius(p) == 9)
                #expect(CALayerGetBackgroundColor(p) != nil)
                #expect(CALayerGetTransform(p).m41 == 5)
                #expect(string(CALayerGetContentsGravity(p)) == "top")
                #expect(string(CALayerGetName(p)) == "renamed")
                #expect(CALayerGetHidden(p))
                #expect(number(CALayerCopyValueForKey(p, "custom")) == 7)
            }
        }
    }

    @Test func aKeyChangedTwiceAnimatesFromItsCommittedValue() {
        withClock(60) { clock in
            let l = committedLayer(position: CGPoint(x: 0, y: 0))
            defer { CARelease(UnsafeRawPointer(l)) }
            CALayerSetOpacity(l, 0.5)
            CALayerSetOpacity(l, 0.25)
            #expect(CABasicAnimationGetFromValue(CALayerGetAnimation(l, "opacity")).map(CAValueGetNumber) == 1)
            #expect(presented(l) { CALayerGetOpacity($0) } == 1)
            CATransactionFlush()
            clock.now = 61
            #expect(presented(l) { CALayerGetOpacity($0) } == 0.25)
        }
    }

    @Test func aStyledPropertySetInTheTransactionStillShowsTheStyle() {
        withClock(70) { _ in
            let l = committedLayer()
            defer { CARelease(UnsafeRawPointer(l)) }
            var d = ValueDictionary()
            d.set(Value(.number(6)), for: "cornerRadius")
            CATransactionBegin()
            CATransactionSetDisableActions(true)
            _ = withModelLock { swiftLayer(l).setValue(Value(.dictionary(d)), forKey: "style", function: "test") }
            CATransactionCommit()
            #expect(CALayerGetCornerRadius(l) == 6)
            CATransactionBegin()
            CATransactionSetDisableActions(true)
            CALayerSetCornerRadius(l, 2)                            // explicitly set now
            #expect(CALayerGetCornerRadius(l) == 2)
            #expect(presented(l) { CALayerGetCornerRadius($0) } == 6)   // committed: unset, the style's
            CATransactionCommit()
            #expect(presented(l) { CALayerGetCornerRadius($0) } == 2)
        }
    }
}
