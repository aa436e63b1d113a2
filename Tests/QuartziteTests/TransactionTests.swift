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

// Transactions, actions and implicit animations, through the C API. Each
// test fixes this thread's media time (MediaClock.threadOverride: tests run
// in parallel, the media time source is process-wide) and leaves no open
// transaction behind.

/// Runs `body` with this thread's media time fixed (set `clock.now` to move it).
final class TestClock {
    var now: Double { didSet { MediaClock.threadOverride = now } }
    init(_ t: Double) { now = t; MediaClock.threadOverride = t }
    deinit { MediaClock.threadOverride = nil }
}

func withClock(_ t: Double, _ body: (TestClock) throws -> Void) rethrows {
    // Tests share worker threads, and the error slot is per thread: start clean
    // so a test's final "no error" check sees only what its own body recorded.
    QZClearLastError()
    let clock = TestClock(t)
    defer {
        // Close whatever the test left open, then free the clock.
        while ThreadTransactions.current.scopes.contains(where: { !$0.implicit }) { CATransactionCommit() }
        CATransactionFlush()
        QZAnimationProcessEvents()
        QZClearLastError()
    }
    try withExtendedLifetime(clock) { try body(clock) }
}

/// A layer made through the API whose creation has been committed.
func committedLayer(position: CGPoint = CGPoint(x: 0, y: 0)) -> CALayerRef {
    let l = CALayerCreate()!
    CALayerSetPosition(l, position)
    CALayerSetBounds(l, CGRect(x: 0, y: 0, width: 10, height: 10))
    CATransactionFlush()
    return l
}

func swiftLayer(_ h: CALayerRef) -> Layer { object(h, as: Layer.self)! }

func presentedPosition(_ h: CALayerRef) -> CGPoint {
    let p = CALayerCopyPresentationLayer(h)!
    defer { CARelease(UnsafeRawPointer(p)) }
    return CALayerGetPosition(p)
}

func number(_ v: CAValueRef?) -> Double? {
    guard let v else { return nil }
    defer { CARelease(UnsafeRawPointer(v)) }
    return CAValueGetNumber(v)
}

/// Counts calls of C callbacks (the info pointer of the callbacks below).
final class CallLog {
    var count = 0
    var keys: [String] = []
    var layers: [CALayerRef?] = []
    var arguments: [Double?] = []
    var answer: CAActionRef?
}

let logAction: CAActionCallback = { key, layer, arguments, info in
    let log = Unmanaged<CallLog>.fromOpaque(info!).takeUnretainedValue()
    log.count += 1
    log.keys.append(String(cString: key!))
    log.layers.append(layer)
    log.arguments.append(arguments.map { CAValueGetNumber($0) })
}

let logCompletion: CATransactionCompletionCallback = { info in
    Unmanaged<CallLog>.fromOpaque(info!).takeUnretainedValue().count += 1
}

func opaque(_ log: CallLog) -> UnsafeMutableRawPointer { Unmanaged.passUnretained(log).toOpaque() }

func objectValue(_ p: OpaquePointer) -> CAValueRef { CAValueCreateWithObject(UnsafeRawPointer(p))! }

func dictionary(_ entries: [(String, CAValueRef)]) -> CAValueRef {
    let keys = entries.map { strdup($0.0) }
    defer { keys.forEach { free($0) } }
    let ckeys: [UnsafePointer<CChar>?] = keys.map { UnsafePointer($0) }
    let values: [CAValueRef?] = entries.map { $0.1 }
    return CAValueCreateDictionary(ckeys, values, entries.count)!
}

@Suite struct TransactionScopeTests {
    @Test func nestedValueScopesSearchOutwards() {
        withClock(0) { _ in
            let one = CAValueCreateNumber(1)!, two = CAValueCreateNumber(2)!
            defer { CARelease(UnsafeRawPointer(one)); CARelease(UnsafeRawPointer(two)) }
            CATransactionBegin()
            CATransactionSetValueForKey("custom", one)
            CATransactionSetAnimationDuration(1)
            CATransactionBegin()
            #expect(number(CATransactionCopyValueForKey("custom")) == 1)    // found outside
            CATransactionSetValueForKey("custom", two)
            #expect(number(CATransactionCopyValueForKey("custom")) == 2)    // innermost wins
            #expect(CATransactionGetAnimationDuration() == 1)
            CATransactionSetAnimationDuration(3)
            #expect(number(CATransactionCopyValueForKey(kCATransactionAnimationDuration)) == 3)
            CATransactionCommit()
            #expect(number(CATransactionCopyValueForKey("custom")) == 1)
            #expect(CATransactionGetAnimationDuration() == 1)
            CATransactionCommit()
            #expect(CATransactionCopyValueForKey("custom") == nil)
            #expect(CATransactionGetAnimationDuration() == 0.25)           // the default
            #expect(CATransactionGetDisableActions() == false)
            #expect(CATransactionGetAnimationTimingFunction() == nil)
            #expect(takeError() == QZErrorNone)
        }
    }

    @Test func typedKeysMapToTheProperties() {
        withClock(0) { _ in
            CATransactionBegin()
            let yes = CAValueCreateBool(true)!
            CATransactionSetValueForKey(kCATransactionDisableActions, yes)
            CARelease(UnsafeRawPointer(yes))
            #expect(CATransactionGetDisableActions())
            let linear = CAMediaTimingFunctionCreateWithName(kCAMediaTimingFunctionLinear)!
            let v = objectValue(linear)
            CATransactionSetValueForKey(kCATransactionAnimationTimingFunction, v)
            CARelease(UnsafeRawPointer(v))
            #expect(CATransactionGetAnimationTimingFunction() == linear)
            CARelease(UnsafeRawPointer(linear))
            CATransactionSetValueForKey(kCATransactionCompletionBlock, nil)
            #expect(takeError() == QZErrorInvalidArgument)
            CATransactionCommit()
            #expect(!CATransactionGetDisableActions())
        }
    }

    @Test func commitWithoutBeginIsAnError() {
        withClock(0) { _ in
            CATransactionCommit()
            #expect(takeError() == QZErrorInvalidState)
            CATransactionUnlock()
            #expect(takeError() == QZErrorInvalidState)
            CATransactionLock()
            CATransactionLock()
            CATransactionUnlock()
            CATransactionUnlock()
            #expect(takeError() == QZErrorNone)
            CATransactionUnlock()
            #expect(takeError() == QZErrorInvalidState)
            CATransactionSetAnimationDuration(.nan)
            #expect(takeError() == QZErrorNotFinite)
            CATransactionSetAnimationDuration(-1)
            #expect(takeError() == QZErrorOutOfRange)
        }
    }
}

@Suite struct ImplicitAnimationTests {
    /// Implicit animations keep number, point, rect and colour from values
    /// unboxed until read: each type reads back as the committed value.
    @Test func fromValuesOfEveryKindReadBack() {
        withClock(100) { _ in
            let l = committedLayer(position: CGPoint(x: 10, y: 20))
            let bare = committedLayer()
            let red = CGColorCreateSRGB(1, 0, 0, 1)!
            let blue = CGColorCreateSRGB(0, 0, 1, 1)!
            defer {
                CARelease(UnsafeRawPointer(l))
                CARelease(UnsafeRawPointer(bare))
                CGColorRelease(red)
                CGColorRelease(blue)
            }
            CATransactionBegin()
            CATransactionSetDisableActions(true)
            CALayerSetCornerRadius(l, 3)
            CALayerSetShadowOpacity(l, 0.25)
            CALayerSetBackgroundColor(l, red)
            CATransactionCommit()

            CALayerSetPosition(l, CGPoint(x: 1, y: 2))
            CALayerSetBounds(l, CGRect(x: 0, y: 0, width: 30, height: 40))
            CALayerSetOpacity(l, 0.5)
            CALayerSetZPosition(l, 2)
            CALayerSetCornerRadius(l, 6)
            CALayerSetShadowOpacity(l, 0.75)
            CALayerSetBackgroundColor(l, blue)
            CALayerSetTransform(l, CATransform3DMakeScale(2, 2, 1))
            CALayerSetAnchorPoint(l, CGPoint(x: 0, y: 0))
            CALayerSetBackgroundColor(bare, blue)
            func from(_ layer: CALayerRef, _ key: String) -> CAValueRef? {
                CABasicAnimationGetFromValue(CALayerGetAnimation(layer, key))
            }
            let p = from(l, "position").map(CAValueGetPoint)
            #expect(p?.x == 10 && p?.y == 20)
            let r = from(l, "bounds").map(CAValueGetRect)
            #expect(r?.origin.x == 0 && r?.origin.y == 0 && r?.size.width == 10 && r?.size.height == 10)
            #expect(from(l, "opacity").map(CAValueGetNumber) == 1)
            #expect(from(l, "zPosition").map(CAValueGetNumber) == 0)
            #expect(from(l, "cornerRadius").map(CAValueGetNumber) == 3)
            #expect(from(l, "shadowOpacity").map(CAValueGetNumber) == 0.25)
            #expect(from(l, "backgroundColor").map(CAValueGetType) == CAValueTypeColor)
            let c = from(l, "backgroundColor").flatMap(CAValueGetColor).flatMap(CGColorGetComponents)
            #expect(c?[0] == 1 && c?[1] == 0 && c?[2] == 0 && c?[3] == 1)
            #expect(from(l, "transform").map { CAValueGetTransform3D($0).m11 } == 1)
            // Boxed once: every read returns the same value object.
            #expect(from(l, "opacity") == from(l, "opacity"))
            // No colour before: the animation starts from nil.
            #expect(CALayerGetAnimation(bare, "backgroundColor") != nil)
            #expect(from(bare, "backgroundColor") == nil)
            // A copy (what CALayerAddAnimation stores) keeps an unread from value.
            let a = object(CALayerGetAnimation(l, "anchorPoint")!, as: Animation.self)!
            let copied = a.copy().fromValue
            if case .point(let q)? = copied?.storage {
                #expect(q.x == 0.5 && q.y == 0.5)
            } else {
                Issue.record("the copy's from value is not a point")
            }
            #expect(a.toValue == nil)
            #expect(CAAnimationGetDuration(CALayerGetAnimation(l, "zPosition")) == 0.25)
            // A transform from value shares the committed layer's box; the
            // model's next change does not reach it.
            CATransactionFlush()
            CALayerRemoveAllAnimations(l)
            CATransactionFlush()
            CALayerSetTransform(l, CATransform3DMakeScale(3, 3, 1))
            CALayerSetTransform(l, CATransform3DMakeScale(4, 4, 1))
            #expect(from(l, "transform").map { CAValueGetTransform3D($0).m11 } == 2)
            #expect(CALayerGetTransform(l).m11 == 4)
        }
    }

    @Test func aPropertyChangeAnimatesFromThePresentationValue() {
        withClock(100) { clock in
            let l = committedLayer(position: CGPoint(x: 10, y: 0))
            defer { CARelease(UnsafeRawPointer(l)) }
            CALayerSetPosition(l, CGPoint(x: 50, y: 0))
            #expect(CALayerGetPosition(l).x == 50)                  // the model changes at once
            let a = CALayerGetAnimation(l, "position")
            #expect(a != nil)
            #expect(String(cString: CAPropertyAnimationGetKeyPath(a)!) == "position")
            #expect(CAAnimationGetDuration(a) == 0.25)
            #expect(CABasicAnimationGetFromValue(a).map { CAValueGetPoint($0).x } == 10)
            let tf = CAAnimationGetTimingFunction(a)!
            #expect(object(tf, as: TimingFunction.self)?.name == "default")
            // Not committed: presentation readers still see the old state.
            #expect(presentedPosition(l).x == 10)
            CATransactionFlush()
            clock.now = 100.125
            let f = TimingFunction.systemDefault.solve(0.5)
            #expect(abs(presentedPosition(l).x - (10 + 40 * f)) < 1e-9)
            clock.now = 101
            #expect(presentedPosition(l).x == 50)
        }
    }

    @Test func noImplicitAnimationForANewLayerOrANonAnimatableProperty() {
        withClock(0) { _ in
            let l = CALayerCreate()!
            defer { CARelease(UnsafeRawPointer(l)) }
            CALayerSetPosition(l, CGPoint(x: 5, y: 5))
            #expect(CALayerGetAnimation(l, "position") == nil)     // created in this transaction
            CATransactionFlush()
            CALayerSetName(l, "a name")
            CALayerSetSpeed(l, 2)
            #expect(CALayerCopyAnimationKeys(l) == nil)
            CALayerSetOpacity(l, 0.5)
            #expect(CALayerGetAnimation(l, "opacity") != nil)
        }
    }

    @Test func disableActionsSuppressesImplicitAnimations() {
        withClock(0) { _ in
            let l = committedLayer()
            defer { CARelease(UnsafeRawPointer(l)) }
            CATransactionBegin()
            CATransactionSetDisableActions(true)
            CALayerSetPosition(l, CGPoint(x: 7, y: 7))
            CALayerSetOpacity(l, 0.25)
            CATransactionBegin()   // inherits disableActions
            CALayerSetBounds(l, CGRect(x: 0, y: 0, width: 3, height: 3))
            CATransactionCommit()
            CATransactionCommit()
            #expect(CALayerCopyAnimationKeys(l) == nil)
            #expect(presentedPosition(l).x == 7)
        }
    }

    @Test func durationAndTimingFunctionOverridesReachTheAnimation() {
        withClock(10) { clock in
            let l = committedLayer()
            defer { CARelease(UnsafeRawPointer(l)) }
            let linear = CAMediaTimingFunctionCreateWithName(kCAMediaTimingFunctionLinear)!
            defer { CARelease(UnsafeRawPointer(linear)) }
            CATransactionBegin()
            CATransactionSetAnimationDuration(2)
            CATransactionSetAnimationTimingFunction(linear)
            CALayerSetOpacity(l, 0.5)
            CATransactionCommit()
            let a = CALayerGetAnimation(l, "opacity")
            #expect(CAAnimationGetDuration(a) == 2)
            #expect(CAAnimationGetTimingFunction(a).flatMap { object($0, as: TimingFunction.self)?.name } == "linear")
            clock.now = 11
            let p = CALayerCopyPresentationLayer(l)!
            #expect(abs(CALayerGetOpacity(p) - 0.75) < 1e-6)      // halfway from 1 to 0.5, linearly
            CARelease(UnsafeRawPointer(p))
        }
    }

    @Test func anExplicitAnimationStartsWhenItsTransactionCommits() {
        withClock(10) { clock in
            let l = committedLayer()
            defer { CARelease(UnsafeRawPointer(l)) }
            CATransactionBegin()
            CATransactionSetAnimationDuration(4)
            let a = CABasicAnimationCreate("position.x")!
            let from = CAValueCreateNumber(-40)!
            CABasicAnimationSetFromValue(a, from)                    // to the model's 0, linearly
            CARelease(UnsafeRawPointer(from))
            CALayerAddAnimation(l, a, "move")
            CARelease(UnsafeRawPointer(a))
            let running = CALayerGetAnimation(l, "move")!
            #expect(CAAnimationGetDuration(running) == 4)            // duration 0 takes the transaction's
            clock.now = 12
            CATransactionCommit()
            #expect(object(running, as: Animation.self)!.resolvedBeginTime == 12)
            #expect(presentedPosition(l).x == -40)                   // starts at the commit
            clock.now = 13                                           // 1 s of 4 after the commit (not 3)
            #expect(abs(presentedPosition(l).x - -30) < 1e-9)
        }
    }

    @Test func animatingLayersStartFromWhatIsOnScreen() {
        withClock(0) { clock in
            let l = committedLayer()
            defer { CARelease(UnsafeRawPointer(l)) }
            let linear = CAMediaTimingFunctionCreateWithName(kCAMediaTimingFunctionLinear)!
            defer { CARelease(UnsafeRawPointer(linear)) }
            CATransactionBegin()
            CATransactionSetAnimationDuration(1)
            CATransactionSetAnimationTimingFunction(linear)
            CALayerSetPosition(l, CGPoint(x: 100, y: 0))
            CATransactionCommit()
            clock.now = 0.5                                          // on screen: x = 50
            CALayerSetPosition(l, CGPoint(x: 0, y: 0))
            let from = CABasicAnimationGetFromValue(CALayerGetAnimation(l, "position"))!
            #expect(abs(CAValueGetPoint(from).x - 50) < 1e-9)
        }
    }
}

@Suite struct CompletionTests {
    @Test func completionRunsOnceAfterTheLastAnimationEnds() {
        withClock(0) { clock in
            let l = committedLayer()
            defer { CARelease(UnsafeRawPointer(l)) }
            let log = CallLog()
            CATransactionBegin()
            CATransactionSetCompletionBlock(logCompletion, opaque(log))
            CATransactionSetAnimationDuration(1)
            CALayerSetPosition(l, CGPoint(x: 1, y: 1))
            CATransactionBegin()
            CATransactionSetAnimationDuration(2)
            CALayerSetOpacity(l, 0)                                  // the last to end: at 2
            CATransactionCommit()
            CATransactionCommit()
            QZAnimationProcessEvents()
            #expect(log.count == 0)
            clock.now = 1.5
            QZAnimationProcessEvents()
            #expect(log.count == 0)
            #expect(transactionRunLoopNextDeadline() == 2)
            clock.now = 2.01
            QZAnimationProcessEvents()
            #expect(log.count == 1)
            QZAnimationProcessEvents()
            #expect(log.count == 1)
        }
    }

    @Test func completionWithoutAnimationsRunsAtTheEndOfTheTurn() {
        withClock(0) { _ in
            let log = CallLog()
            CATransactionBegin()
            CATransactionSetCompletionBlock(logCompletion, opaque(log))
            CATransactionCommit()
            #expect(log.count == 0)
            transactionRunLoopTurnDidFinish()
            #expect(log.count == 1)
            transactionRunLoopTurnDidFinish()
            #expect(log.count == 1)
        }
    }

    @Test func removingTheAnimationsRunsTheCompletion() {
        withClock(0) { _ in
            let l = committedLayer()
            defer { CARelease(UnsafeRawPointer(l)) }
            let log = CallLog()
            CATransactionBegin()
            CATransactionSetCompletionBlock(logCompletion, opaque(log))
            CALayerSetPosition(l, CGPoint(x: 1, y: 1))
            CATransactionCommit()
            QZAnimationProcessEvents()
            #expect(log.count == 0)
            CALayerRemoveAllAnimations(l)
            QZAnimationProcessEvents()
            #expect(log.count == 1)
        }
    }

    @Test func onlyAnimationsAddedAfterTheCompletionCount() {
        withClock(0) { clock in
            let l = committedLayer()
            defer { CARelease(UnsafeRawPointer(l)) }
            let log = CallLog()
            CATransactionBegin()
            CATransactionSetAnimationDuration(5)
            CALayerSetOpacity(l, 0)                 // before the completion: not waited for
            CATransactionSetAnimationDuration(1)
            CATransactionSetCompletionBlock(logCompletion, opaque(log))
            CALayerSetPosition(l, CGPoint(x: 1, y: 1))
            CATransactionCommit()
            clock.now = 1.5
            QZAnimationProcessEvents()
            #expect(log.count == 1)
        }
    }
}

@Suite struct ImplicitTransactionTests {
    @Test func theTurnHookAndFlushCommitTheImplicitTransaction() {
        withClock(0) { _ in
            let l = committedLayer()
            defer { CARelease(UnsafeRawPointer(l)) }
            CATransactionSetDisableActions(true)                     // in the implicit transaction
            CALayerSetPosition(l, CGPoint(x: 5, y: 0))
            #expect(presentedPosition(l).x == 0)
            transactionRunLoopTurnDidFinish()
            #expect(presentedPosition(l).x == 5)
            #expect(!CATransactionGetDisableActions())               // a new implicit transaction
            CATransactionSetDisableActions(true)
            CALayerSetPosition(l, CGPoint(x: 6, y: 0))
            CATransactionFlush()
            #expect(presentedPosition(l).x == 6)
        }
    }

    @Test func flushWaitsForExplicitTransactions() {
        withClock(0) { _ in
            let l = committedLayer()
            defer { CARelease(UnsafeRawPointer(l)) }
            CATransactionSetDisableActions(true)
            CALayerSetPosition(l, CGPoint(x: 5, y: 0))               // implicit transaction
            CATransactionBegin()
            CALayerSetPosition(l, CGPoint(x: 6, y: 0))
            CATransactionFlush()
            #expect(presentedPosition(l).x == 0)                     // still open
            CATransactionCommit()                                    // nested in the implicit one
            #expect(presentedPosition(l).x == 6)                     // the flush happened on close
        }
    }
}

@Suite struct ActionSearchTests {
    static let delegateAnswer: @convention(c) (CALayerRef?, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> CAActionRef? = { _, key, info in
        let log = Unmanaged<CallLog>.fromOpaque(info!).takeUnretainedValue()
        log.keys.append(String(cString: key!))
        return log.answer
    }

    @Test func eachStepOfTheSearchOrder() {
        withClock(0) { _ in
            let l = committedLayer()
            defer { CARelease(UnsafeRawPointer(l)) }
            let byDelegate = CAActionCreate(logAction, nil)!
            let byActions = CAActionCreate(logAction, nil)!
            let byStyle = CAActionCreate(logAction, nil)!
            let byNestedStyle = CAActionCreate(logAction, nil)!
            defer { for a in [byDelegate, byActions, byStyle, byNestedStyle] { CARelease(UnsafeRawPointer(a)) } }

            // 5. Nothing set: the implicit animation of an animatable property; none otherwise.
            let implicit = CALayerGetActionForKey(l, "position")
            #expect(implicit != nil && String(cString: QZGetTypeName(UnsafeRawPointer(implicit))!) == "CABasicAnimation")
            #expect(CALayerGetActionForKey(l, "name") == nil)
            #expect(CALayerGetActionForKey(l, "custom") == nil)

            // 3. The style's actions, searched through nested styles.
            let nested = dictionary([("actions", dictionary([("position", objectValue(byNestedStyle))]))])
            let style = dictionary([("actions", dictionary([("opacity", objectValue(byStyle))])), ("style", nested)])
            CALayerSetStyle(l, style)
            #expect(CALayerGetActionForKey(l, "opacity") == byStyle)
            #expect(CALayerGetActionForKey(l, "position") == byNestedStyle)

            // 2. The actions dictionary comes before the style; its null stops the search.
            let null = CAValueGetNull()!
            let actions = dictionary([("opacity", objectValue(byActions)), ("position", null)])
            CALayerSetActions(l, actions)
            #expect(CALayerGetActionForKey(l, "opacity") == byActions)
            #expect(CALayerGetActionForKey(l, "position") == nil)

            // 1. The delegate first: an action, NULL (continue) or QZActionNull (stop).
            let log = CallLog()
            var table = CALayerDelegateCallbacks()
            table.actionForLayerForKey = ActionSearchTests.delegateAnswer
            CALayerSetDelegate(l, &table, opaque(log))
            log.answer = byDelegate
            #expect(CALayerGetActionForKey(l, "opacity") == byDelegate)
            log.answer = nil
            #expect(CALayerGetActionForKey(l, "opacity") == byActions)
            log.answer = QZActionNull()
            #expect(CALayerGetActionForKey(l, "opacity") == nil)
            #expect(log.keys == ["opacity", "opacity", "opacity"])
            CALayerSetDelegate(l, nil, nil)
            for v in [nested, style, actions] { CARelease(UnsafeRawPointer(v)) }
            #expect(takeError() == QZErrorNone)
        }
    }

    static let classAnswer: @convention(c) (CALayerClassRef?, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> CAActionRef? = { _, key, info in
        let log = Unmanaged<CallLog>.fromOpaque(info!).takeUnretainedValue()
        return String(cString: key!) == "opacity" ? log.answer : (String(cString: key!) == "position" ? QZActionNull() : nil)
    }

    @Test func theClassDefaultActionComesBeforeTheImplicitAnimation() {
        withClock(0) { _ in
            let log = CallLog()
            log.answer = CAActionCreate(logAction, opaque(log))
            var table = CALayerClassCallbacks()
            table.defaultActionForKey = ActionSearchTests.classAnswer
            let cls = CALayerClassCreate("Custom", nil, &table, opaque(log))!
            let l = CALayerCreateWithClass(cls)!
            CATransactionFlush()
            #expect(CALayerGetActionForKey(l, "opacity") == log.answer)
            #expect(CALayerGetActionForKey(l, "position") == nil)          // stopped by the class
            #expect(CALayerGetActionForKey(l, "bounds") != nil)            // the implicit animation
            CALayerSetOpacity(l, 0.5)                                      // runs the class's action
            #expect(log.count == 1 && log.keys == ["opacity"] && log.layers == [l])
            #expect(CALayerGetAnimation(l, "opacity") == nil)
            CARelease(UnsafeRawPointer(l))
            CARelease(UnsafeRawPointer(cls))
            CARelease(UnsafeRawPointer(log.answer))
        }
    }
}

@Suite struct CustomActionTests {
    @Test func customActionsReceiveKeyLayerAndArguments() {
        withClock(0) { _ in
            let l = committedLayer()
            defer { CARelease(UnsafeRawPointer(l)) }
            let log = CallLog()
            let action = CAActionCreate(logAction, opaque(log))!
            defer { CARelease(UnsafeRawPointer(action)) }
            let args = CAValueCreateNumber(42)!
            CAActionRunForKey(action, "anything", l, args)
            CARelease(UnsafeRawPointer(args))
            #expect(log.count == 1 && log.keys == ["anything"] && log.layers == [l] && log.arguments == [42])

            // A property change and a custom key run the actions named after them.
            let actions = dictionary([("opacity", objectValue(action)), ("myKey", objectValue(action))])
            CALayerSetActions(l, actions)
            CARelease(UnsafeRawPointer(actions))
            CALayerSetOpacity(l, 0.5)
            let v = CAValueCreateNumber(3)!
            CALayerSetValueForKey(l, "myKey", v)
            CARelease(UnsafeRawPointer(v))
            #expect(log.keys == ["anything", "opacity", "myKey"])
            #expect(log.arguments == [42, nil, nil])
            #expect(CALayerGetAnimation(l, "opacity") == nil)           // the custom action replaced it
            // disableActions: no action at all.
            CATransactionBegin()
            CATransactionSetDisableActions(true)
            CALayerSetOpacity(l, 0.25)
            CATransactionCommit()
            #expect(log.count == 3)
        }
    }

    static let releaseInfo: CAActionReleaseCallback = { info in
        Unmanaged<CallLog>.fromOpaque(info!).takeUnretainedValue().count += 100
    }

    @Test func theReleaseCallbackRunsOnceWhenTheActionIsFreed() {
        let log = CallLog()
        let action = CAActionCreateWithRelease(logAction, opaque(log), CustomActionTests.releaseInfo)!
        let held = objectValue(action)                 // a value holds it
        CARelease(UnsafeRawPointer(action))
        #expect(log.count == 0)
        CARelease(UnsafeRawPointer(held))
        #expect(log.count == 100)
        #expect(CAActionCreate(nil, nil) == nil && takeError() == QZErrorNullArgument)
    }

    @Test func replacingASublayerRunsTransitionOnTheSuperlayer() {
        withClock(0) { _ in
            let parent = committedLayer(), old = committedLayer(), new = committedLayer()
            defer { for l in [parent, old, new] { CARelease(UnsafeRawPointer(l)) } }
            CALayerAddSublayer(parent, old)
            let log = CallLog()
            let action = CAActionCreate(logAction, opaque(log))!
            let actions = dictionary([("transition", objectValue(action)), ("onOrderIn", objectValue(action)),
                                      ("onOrderOut", objectValue(action))])
            CARelease(UnsafeRawPointer(action))
            for l in [parent, old, new] { CALayerSetActions(l, actions) }
            CARelease(UnsafeRawPointer(actions))
            CALayerReplaceSublayer(parent, old, new)
            #expect(log.keys == ["transition", "onOrderOut", "onOrderIn"])
            #expect(log.layers == [parent, old, new])
        }
    }

    @Test func theCompletionCanBeReadBack() {
        withClock(0) { _ in
            let log = CallLog()
            var info: UnsafeMutableRawPointer?
            #expect(CATransactionGetCompletionBlock(&info) == nil)
            CATransactionBegin()
            CATransactionSetCompletionBlock(logCompletion, opaque(log))
            CATransactionBegin()
            #expect(CATransactionGetCompletionBlock(&info) != nil && info == opaque(log))   // searched outwards
            CATransactionCommit()
            CATransactionCommit()
            QZAnimationProcessEvents()
            #expect(log.count == 1)
        }
    }

    @Test func anAnimationIsAnAction() {
        withClock(0) { _ in
            let l = committedLayer()
            defer { CARelease(UnsafeRawPointer(l)) }
            let a = CABasicAnimationCreate("opacity")!
            CAActionRunForKey(a, "fade", l, nil)
            CARelease(UnsafeRawPointer(a))
            #expect(CALayerGetAnimation(l, "fade") != nil)
        }
    }

    @Test func orderInAndOrderOut() {
        withClock(0) { _ in
            let parent = committedLayer()
            let child = committedLayer()
            defer { CARelease(UnsafeRawPointer(parent)); CARelease(UnsafeRawPointer(child)) }
            let log = CallLog()
            let action = CAActionCreate(logAction, opaque(log))!
            let actions = dictionary([("onOrderIn", objectValue(action)), ("onOrderOut", objectValue(action))])
            CARelease(UnsafeRawPointer(action))
            CALayerSetActions(child, actions)
            CARelease(UnsafeRawPointer(actions))
            CALayerAddSublayer(parent, child)
            CALayerSetHidden(child, true)
            CALayerSetHidden(child, true)                 // no change: no order action
            CALayerSetHidden(child, false)
            CALayerRemoveFromSuperlayer(child)
            #expect(log.keys == ["onOrderIn", "onOrderOut", "onOrderIn", "onOrderOut"])
            #expect(log.layers.allSatisfy { $0 == child })
        }
    }
}

@Suite struct TransactionThreadTests {
    static let writer: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { p in
        let box = Unmanaged<Box>.fromOpaque(p!).takeUnretainedValue()
        let l = box.layer
        for i in 1...2000 {
            let w = Double(i % 97 + 1)
            CATransactionBegin()
            CATransactionSetDisableActions(true)
            CALayerSetBounds(l, CGRect(x: 0, y: 0, width: w, height: w))
            CALayerSetPosition(l, CGPoint(x: w, y: w))
            CATransactionCommit()
        }
        return nil
    }

    static let reader: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { p in
        let box = Unmanaged<Box>.fromOpaque(p!).takeUnretainedValue()
        for _ in 0..<3000 {
            let pres = CALayerCopyPresentationLayer(box.layer)!
            let b = CALayerGetBounds(pres), pos = CALayerGetPosition(pres)
            if b.size.width != pos.x || b.size.height != pos.y { box.torn += 1 }
            CARelease(UnsafeRawPointer(pres))
        }
        return nil
    }

    final class Box {
        let layer: CALayerRef
        var torn = 0
        init(_ l: CALayerRef) { layer = l }
    }

    static let leaveOpen: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { p in
        let box = Unmanaged<Box>.fromOpaque(p!).takeUnretainedValue()
        CATransactionSetDisableActions(true)
        CALayerSetPosition(box.layer, CGPoint(x: 77, y: 0))   // the implicit transaction, never flushed
        return nil
    }

    @Test func aThreadThatEndsCommitsWhatItLeftOpen() {
        let l = CALayerCreate()!
        CATransactionFlush()
        let box = Box(l)
        var t = pthread_t()
        pthread_create(&t, nil, TransactionThreadTests.leaveOpen, Unmanaged.passUnretained(box).toOpaque())
        pthread_join(t, nil)
        #expect(presentedPosition(l).x == 77)
        CATransactionBegin()
        CATransactionSetDisableActions(true)
        CALayerSetPosition(l, CGPoint(x: 1, y: 0))   // the layer is not stuck in a dead transaction
        CATransactionCommit()
        #expect(presentedPosition(l).x == 1)
        CATransactionFlush()
        QZAnimationProcessEvents()
        CARelease(UnsafeRawPointer(l))
    }

    /// Moves the layer in the thread's implicit transaction and commits it.
    static let moveWithThreadDefaults: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { p in
        let box = Unmanaged<Box>.fromOpaque(p!).takeUnretainedValue()
        CALayerSetPosition(box.layer, CGPoint(x: Double(box.torn), y: 0))
        CATransactionFlush()
        return nil
    }

    /// Ends with a slow easeIn scope open (the thread's end commits it).
    static let endInsideSlowScope: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { _ in
        CATransactionBegin()
        CATransactionSetAnimationDuration(7)
        let easeIn = CAMediaTimingFunctionCreateWithName("easeIn")
        CATransactionSetAnimationTimingFunction(easeIn)
        CARelease(UnsafeRawPointer(easeIn))
        return nil
    }

    /// The running position animation's duration and first control point.
    func positionTiming(_ l: CALayerRef) -> (Double, Float) {
        guard let a = CALayerGetAnimation(l, "position") else { return (-1, -1) }
        var point: [Float] = [0, 0]
        CAMediaTimingFunctionGetControlPointAtIndex(CAAnimationGetTimingFunction(a), 1, &point)
        return (CAAnimationGetDuration(a), point[0])
    }

    // Each thread has its own transaction values (kept per thread, read on
    // every change): another thread's open scope is not seen, and a thread
    // that ended inside a scope leaves nothing to the threads after it.
    @Test func eachThreadChangesWithItsOwnTransactionValues() {
        let l = CALayerCreate()!
        CATransactionFlush()
        let box = Box(l)
        func onAnotherThread(_ fn: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?, x: Int) {
            box.torn = x
            var t = pthread_t()
            pthread_create(&t, nil, fn, Unmanaged.passUnretained(box).toOpaque())
            pthread_join(t, nil)
        }
        // (The default function's first control point is 0.25; easeIn's 0.42.)
        CATransactionBegin()
        CATransactionSetAnimationDuration(3)
        let easeIn = CAMediaTimingFunctionCreateWithName("easeIn")
        CATransactionSetAnimationTimingFunction(easeIn)
        CARelease(UnsafeRawPointer(easeIn))
        onAnotherThread(TransactionThreadTests.moveWithThreadDefaults, x: 5)
        #expect(positionTiming(l) == (0.25, 0.25))
        CALayerSetPosition(l, CGPoint(x: 9, y: 0))
        CATransactionCommit()
        #expect(positionTiming(l) == (3, 0.42))

        onAnotherThread(TransactionThreadTests.endInsideSlowScope, x: 0)
        onAnotherThread(TransactionThreadTests.moveWithThreadDefaults, x: 11)
        #expect(positionTiming(l) == (0.25, 0.25))
        CALayerSetPosition(l, CGPoint(x: 13, y: 0))
        CATransactionFlush()
        #expect(positionTiming(l) == (0.25, 0.25))
        #expect(CALayerGetPosition(l).x == 13)
        QZAnimationProcessEvents()
        CARelease(UnsafeRawPointer(l))
    }

    @Test func commitsAreAtomicForPresentationReaders() {
        let root = CALayerCreate()!
        var boxes: [Box] = []
        for _ in 0..<3 {
            let l = CALayerCreate()!
            CALayerSetBounds(l, CGRect(x: 0, y: 0, width: 1, height: 1))
            CALayerSetPosition(l, CGPoint(x: 1, y: 1))
            CALayerAddSublayer(root, l)
            boxes.append(Box(l))
        }
        CATransactionFlush()
        var threads: [pthread_t] = []
        for box in boxes {
            for fn in [TransactionThreadTests.writer, TransactionThreadTests.reader] {
                var t = pthread_t()
                pthread_create(&t, nil, fn, Unmanaged.passUnretained(box).toOpaque())
                threads.append(t)
            }
        }
        for t in threads { pthread_join(t, nil) }
        #expect(boxes.map(\.torn) == [0, 0, 0])
        for box in boxes {
            // The last write is committed: width 2000 % 97 + 1.
            #expect(presentedPosition(box.layer).x == Double(2000 % 97 + 1))
            CARelease(UnsafeRawPointer(box.layer))
        }
        CARelease(UnsafeRawPointer(root))
    }
}

// A transition added in a transaction runs from the state before that
// transaction committed, even when the same transaction changes the layer
// after adding it (the layer joined the transaction through the animation
// first, so its committed state is snapshotted at the first change).
@Suite struct TransitionCommitTests {
    func presentedOpacity(_ l: CALayerRef) -> Float {
        let p = CALayerCopyPresentationLayer(l)!
        defer { CARelease(UnsafeRawPointer(p)) }
        return CALayerGetOpacity(p)
    }

    @Test func aTransitionRunsFromThePreCommitState() {
        withClock(50) { clock in
            let l = committedLayer()
            defer { CARelease(UnsafeRawPointer(l)) }
            let child = CALayerCreate()!
            CATransactionBegin()
            CATransactionSetDisableActions(true)   // the old state, without animations
            CALayerAddSublayer(l, child)
            CARelease(UnsafeRawPointer(child))
            CALayerSetOpacity(l, 0.8)
            CATransactionCommit()
            CATransactionFlush()

            CATransactionBegin()
            CATransactionSetDisableActions(true)
            let fade = CATransitionCreate()!
            CAAnimationSetDuration(fade, 1)
            CALayerAddAnimation(l, fade, nil)
            CARelease(UnsafeRawPointer(fade))
            CALayerSetOpacity(l, 0.3)                    // after the transition was added
            CALayerSetPosition(child, CGPoint(x: 7, y: 9))
            // Not committed yet: presentation still shows 0.8.
            #expect(presentedOpacity(l) == 0.8)
            CATransactionCommit()

            clock.now = 50.5
            #expect(presentedOpacity(l) == 0.3)
            let snapshot = QZLayerCopyTransitionSnapshot(l)
            #expect(snapshot != nil)
            if let snapshot {
                #expect(CALayerGetOpacity(snapshot) == 0.8)
                #expect(CALayerGetSublayerCount(snapshot) == 1)
                if let s = CALayerGetSublayerAtIndex(snapshot, 0) {
                    #expect(CALayerGetPosition(s).x == 0 && CALayerGetPosition(s).y == 0)
                }
                CARelease(UnsafeRawPointer(snapshot))
            }
            #expect(abs(QZLayerGetTransitionProgress(l) - 0.5) < 1e-9)
        }
    }
}
