import CQuartzite
import Testing
@testable import QuartziteCore
@testable import QuartziteGeometry
@testable import QuartziteVideo
@testable import QuartziteGraphics
@testable import QuartziteModel
@testable import QuartziteRender
@testable import Quartzite

// Issue 22: layers as full CAMediaTiming objects, the style dictionary in
// every reader, contents in every pixel format, and CAAnimationCreate.
// (The behaviours observed on Apple's QuartzCore are tested one by one in
// Tests/python/test_apple_fidelity.py and Tests/c/test_layers.c.)

private func style(_ entries: [(String, Value)]) -> Value {
    var d = ValueDictionary()
    for (k, v) in entries { d.set(v, for: k) }
    return Value(.dictionary(d))
}

private func color(_ r: Double, _ g: Double, _ b: Double, _ a: Double = 1) -> Value {
    Value(.color(Color(space: .sRGB, components: [r, g, b, a])))
}

private func presentedOpacity(_ l: CALayerRef) -> Float {
    let p = CALayerCopyPresentationLayer(l)!
    defer { CARelease(UnsafeRawPointer(p)) }
    return CALayerGetOpacity(p)
}

/// An opacity animation from 0 to 1 over 1 s, begun when added, kept after it ends.
private func addFade(_ l: CALayerRef) {
    let a = CABasicAnimationCreate("opacity")!
    let from = CAValueCreateNumber(0)!, to = CAValueCreateNumber(1)!
    CABasicAnimationSetFromValue(a, from)
    CABasicAnimationSetToValue(a, to)
    CAAnimationSetDuration(a, 1)
    CAAnimationSetRemovedOnCompletion(a, false)
    CALayerAddAnimation(l, a, "fade")
    CARelease(UnsafeRawPointer(a)); CARelease(UnsafeRawPointer(from)); CARelease(UnsafeRawPointer(to))
}

@Suite(.serialized) struct LayerTimingTests {
    @Test func defaultLayersKeepTheLinearTimeModel() {
        let l = CALayerCreate()!
        defer { CARelease(UnsafeRawPointer(l)) }
        #expect(CALayerGetDuration(l) == .infinity)
        #expect(CALayerGetBeginTime(l) == 0 && CALayerGetRepeatDuration(l) == 0)
        CALayerSetSpeed(l, 2)
        CALayerSetBeginTime(l, 10)
        #expect(swiftLayer(l).timing!.isLinear)
        #expect(CALayerConvertTimeFromLayer(l, 13, nil) == 6)
        CALayerSetDuration(l, 1)
        #expect(!swiftLayer(l).timing!.isLinear)
        CALayerSetDuration(l, .infinity)
        CALayerSetRepeatDuration(l, 3)
        #expect(!swiftLayer(l).timing!.isLinear)
    }

    /// A layer with a finite duration and autoreverses plays its sublayers'
    /// animations forward, then backward; outside its active interval
    /// (fill mode removed) they have no effect.
    @Test func autoreversingLayerPlaysSublayerAnimationsForwardThenBackward() {
        withClock(100) { clock in
            let parent = CALayerCreate()!, child = CALayerCreate()!
            defer { CARelease(UnsafeRawPointer(parent)); CARelease(UnsafeRawPointer(child)) }
            CALayerAddSublayer(parent, child)
            CALayerSetBeginTime(parent, 100)
            CALayerSetDuration(parent, 1)
            CALayerSetAutoreverses(parent, true)
            addFade(child)
            CATransactionFlush()
            let expected: [(Double, Float)] = [(100.25, 0.25), (100.75, 0.75), (101.25, 0.75), (101.75, 0.25)]
            for (t, opacity) in expected {
                clock.now = t
                #expect(abs(presentedOpacity(child) - opacity) < 1e-6, "at \(t)")
                // Processing events half-way must not end the animation: it plays again.
                QZAnimationProcessEvents()
            }
            clock.now = 102.5
            #expect(presentedOpacity(child) == 1)                  // no time: the model value
            #expect(CALayerGetAnimation(child, "fade") != nil)
        }
    }

    /// A layer with repeatCount 2 plays its sublayers' animations twice.
    @Test func repeatingLayerPlaysSublayerAnimationsTwice() {
        withClock(200) { clock in
            let parent = CALayerCreate()!, child = CALayerCreate()!
            defer { CARelease(UnsafeRawPointer(parent)); CARelease(UnsafeRawPointer(child)) }
            CALayerAddSublayer(parent, child)
            CALayerSetBeginTime(parent, 200)
            CALayerSetDuration(parent, 1)
            CALayerSetRepeatCount(parent, 2)
            addFade(child)
            CATransactionFlush()
            for (t, opacity) in [(200.25, Float(0.25)), (200.75, 0.75), (201.25, 0.25), (201.75, 0.75)] {
                clock.now = t
                #expect(abs(presentedOpacity(child) - opacity) < 1e-6, "at \(t)")
                QZAnimationProcessEvents()
            }
            clock.now = 203
            #expect(presentedOpacity(child) == 1)
        }
    }

    /// fillMode forwards keeps the layer's time at the end of its active
    /// interval (an autoreversed cycle ends where it began); the layer's own
    /// animations run in its time too.
    @Test func fillModeForwardsFreezesTheLayersTime() {
        withClock(300) { clock in
            let l = CALayerCreate()!
            defer { CARelease(UnsafeRawPointer(l)) }
            CALayerSetBeginTime(l, 300)
            CALayerSetDuration(l, 1)
            CALayerSetAutoreverses(l, true)
            CALayerSetFillMode(l, "forwards")
            addFade(l)
            CATransactionFlush()
            clock.now = 301.5
            #expect(abs(presentedOpacity(l) - 0.5) < 1e-6)
            clock.now = 305
            #expect(presentedOpacity(l) == 0)
            // Local times: the cycle's position; after the end, frozen there.
            #expect(CALayerConvertTimeFromLayer(l, 300.25, nil) == 0.25)
            #expect(CALayerConvertTimeFromLayer(l, 301.25, nil) == 0.75)
            #expect(CALayerConvertTimeFromLayer(l, 310, nil) == 0)
        }
    }

    @Test func rendererAsksForFramesOnlyWhileTheCycleRuns() {
        withClock(400) { _ in
            let root = CALayerCreate()!, child = CALayerCreate()!
            defer { CARelease(UnsafeRawPointer(root)); CARelease(UnsafeRawPointer(child)) }
            CALayerSetBounds(root, CGRect(x: 0, y: 0, width: 4, height: 4))
            CALayerAddSublayer(root, child)
            CALayerSetBeginTime(child, 401)
            CALayerSetDuration(child, 1)
            addFade(child)
            CATransactionFlush()
            let pb = makeBuffer(4, 4)
            let r = CARendererCreate(pb, nil)!
            defer { CARelease(UnsafeRawPointer(r)); CVPixelBufferRelease(pb) }
            CARendererSetLayer(r, root)
            for (t, next) in [(400.0, 401.0), (401.5, 401.5), (402.5, Double.infinity)] {
                CARendererBeginFrameAtTime(r, t, nil)
                #expect(CARendererGetNextFrameTime(r) == next, "at \(t)")
                CARendererEndFrame(r)
            }
        }
    }
}

@Suite struct StyleInTheModelTests {
    /// The renderer (and the draw list) read a layer's opacity and
    /// background colour when they come only from its style.
    @Test func rendererDrawsStyleValues() {
        let root = TL(0, 0, 20, 20, color: (1, 1, 1, 1))
        let l = TL(5, 5, 10, 10)
        setValue(l.ref, "style", style([("opacity", Value(.number(0.5))), ("backgroundColor", color(1, 0, 0))]))
        root.add(l)
        #expect(CALayerGetOpacity(l.ref) == 0.5)
        let pb = renderScene(root, 20, 20)
        defer { CVPixelBufferRelease(pb) }
        let (r, g, b, a) = pixel(pb, 10, 10)
        #expect(r == 255 && abs(g - 128) <= 1 && abs(b - 128) <= 1 && a == 255, "\((r, g, b, a))")
        #expect(pixel(pb, 2, 2) == (255, 255, 255, 255))
        // The draw list: the layer's fill is red at opacity 0.5.
        let target = makeBuffer(20, 20)
        let renderer = CARendererCreate(target, nil)!
        defer { CARelease(UnsafeRawPointer(renderer)); CVPixelBufferRelease(target) }
        CARendererSetLayer(renderer, root.ref)
        CARendererBeginFrameAtTime(renderer, 1000, nil)
        let list = QZRendererCopyDrawList(renderer)!
        defer { CARelease(UnsafeRawPointer(list)) }
        CARendererEndFrame(renderer)
        #expect(QZDrawListGetCount(list) == 2)
        var op = QZDrawOperation()
        #expect(QZDrawListGetOperation(list, 1, &op))
        #expect(op.opacity == 0.5 && op.color.0 == 1 && op.color.1 == 0 && op.color.3 == 1)
    }

    @Test func presentationHitTestingAndRemovalSeeTheStyle() {
        let root = CALayerCreate()!, l = CALayerCreate()!
        defer { CARelease(UnsafeRawPointer(root)); CARelease(UnsafeRawPointer(l)) }
        CALayerSetBounds(root, CGRect(x: 0, y: 0, width: 100, height: 100))
        CALayerSetPosition(root, CGPoint(x: 50, y: 50))
        CALayerSetBounds(l, CGRect(x: 0, y: 0, width: 10, height: 10))
        CALayerAddSublayer(root, l)
        setValue(l, "style", style([("position", Value(.point(CGPoint(x: 50, y: 50)))), ("cornerRadius", Value(.number(3)))]))
        CATransactionFlush()
        // Hit testing uses the styled position (the layer spans 45...55).
        #expect(CALayerHitTest(root, CGPoint(x: 52, y: 52)) == l)
        #expect(CALayerHitTest(root, CGPoint(x: 30, y: 30)) == root)
        let p = CALayerCopyPresentationLayer(l)!
        #expect(CALayerGetPosition(p).x == 50 && CALayerGetCornerRadius(p) == 3)
        CARelease(UnsafeRawPointer(p))
        // A hidden style hides the layer from hit testing.
        setValue(l, "style", style([("hidden", Value(.bool(true)))]))
        #expect(CALayerGetPosition(l).x == 0 && CALayerGetCornerRadius(l) == 0)   // defaults back
        #expect(CALayerHitTest(root, CGPoint(x: 2, y: 2)) == root)
        // An explicit value wins, and stays when the style goes.
        CALayerSetHidden(l, false)
        setValue(l, "style", nil)
        #expect(!CALayerGetHidden(l) && CALayerHitTest(root, CGPoint(x: 2, y: 2)) == l)
        CATransactionFlush()
    }

    /// A style change inside a transaction reaches presentation at the commit.
    @Test func presentationShowsStyleChangesFromTheCommit() {
        withClock(500) { _ in
            let l = committedLayer()
            defer { CARelease(UnsafeRawPointer(l)) }
            CATransactionBegin()
            setValue(l, "style", style([("opacity", Value(.number(0.25)))]))
            #expect(CALayerGetOpacity(l) == 0.25)
            #expect(presentedOpacity(l) == 1)
            CATransactionCommit()
            #expect(presentedOpacity(l) == 0.25)
        }
    }

    /// Animations start from the styled value: an implicit animation of
    /// opacity from the style's 0.2 to an explicit 1.
    @Test func implicitAnimationsStartFromTheStyledValue() {
        withClock(600) { clock in
            let l = committedLayer()
            defer { CARelease(UnsafeRawPointer(l)) }
            CATransactionBegin()
            CATransactionSetDisableActions(true)
            setValue(l, "style", style([("opacity", Value(.number(0.2)))]))
            CATransactionCommit()
            CATransactionBegin()
            CATransactionSetAnimationDuration(1)
            let linear = CAMediaTimingFunctionCreateWithName("linear")!
            CATransactionSetAnimationTimingFunction(linear)
            CARelease(UnsafeRawPointer(linear))
            CALayerSetOpacity(l, 1)
            CATransactionCommit()
            clock.now = 600.5
            #expect(abs(presentedOpacity(l) - 0.6) < 1e-6)
        }
    }

    /// A class default comes back when the style no longer supplies a key.
    @Test func classDefaultsComeBackWhenTheStyleGoes() {
        var table = CALayerClassCallbacks()
        table.defaultValueForKey = { _, key, _ in
            String(cString: key!) == "cornerRadius" ? CAValueCreateNumber(7) : nil
        }
        let cls = CALayerClassCreate("Rounded", nil, &table, nil)!
        let l = CALayerCreateWithClass(cls)!
        defer { CARelease(UnsafeRawPointer(l)); CARelease(UnsafeRawPointer(cls)) }
        #expect(CALayerGetCornerRadius(l) == 7)
        setValue(l, "style", style([("cornerRadius", Value(.number(2)))]))
        #expect(CALayerGetCornerRadius(l) == 2)
        setValue(l, "style", nil)
        #expect(CALayerGetCornerRadius(l) == 7)
        CATransactionFlush()
    }
}

@Suite struct ContentsFormatTests {
    /// Every built-in pixel format either renders as contents (an opaque
    /// pixel from an all-ones buffer) or is refused when set.
    @Test func everyFormatRendersOrIsRefused() {
        var rendered: [String] = [], refused: [String] = []
        for format in PixelFormatRegistry.builtinFormats {
            var pb: QZCVPixelBufferRef?
            guard CVPixelBufferCreate(nil, 8, 8, OSType(format.type), nil, &pb) == 0, let pb else {
                Issue.record("\(format.name) could not be allocated")
                continue
            }
            CVPixelBufferLockBaseAddress(pb, 0)
            for plane in 0..<max(1, CVPixelBufferGetPlaneCount(pb)) {
                let planar = CVPixelBufferIsPlanar(pb)
                let base = planar ? CVPixelBufferGetBaseAddressOfPlane(pb, plane)! : CVPixelBufferGetBaseAddress(pb)!
                let rows = planar ? CVPixelBufferGetHeightOfPlane(pb, plane) : 8
                let bpr = planar ? CVPixelBufferGetBytesPerRowOfPlane(pb, plane) : CVPixelBufferGetBytesPerRow(pb)
                base.initializeMemory(as: UInt8.self, repeating: 0xFF, count: rows * bpr)
            }
            CVPixelBufferUnlockBaseAddress(pb, 0)
            let root = TL(0, 0, 8, 8)
            QZClearLastError()
            CALayerSetContents(root.ref, UnsafeRawPointer(pb))
            if CALayerGetContents(root.ref) == UnsafeRawPointer(pb) {
                #expect(QZGetLastError() == QZErrorNone)
                let out = renderScene(root, 8, 8)
                #expect(pixel(out, 4, 4).3 == 255, "\(format.name) rendered transparent")
                CVPixelBufferRelease(out)
                rendered.append(format.name)
            } else {
                #expect(takeError() == QZErrorInvalidArgument, "\(format.name)")
                refused.append(format.name)
            }
            CVPixelBufferRelease(pb)
        }
        #expect(rendered.contains("16 bit LE RGB 565") && rendered.contains("16 bit BE RGB 555"))
        #expect(refused.contains("8 bit indexed") && refused.contains("Component Y'CbCr 10-bit 4:2:2"))
        #expect(rendered.count == 26 && refused.count == 11, "rendered \(rendered), refused \(refused)")
    }

    /// The 16-bit RGB formats convert channel by channel.
    @Test(arguments: [
        (UInt32(0x0000_0010), UInt16(0x7C00), true, (255, 0, 0, 255)),    // 555 BE red
        (UInt32(0x4C35_3535), UInt16(0x03E0), false, (0, 255, 0, 255)),   // 555 LE green
        (UInt32(0x3535_3531), UInt16(0x003F), false, (0, 0, 255, 255)),   // 5551 LE blue, alpha set
        (UInt32(0x3535_3531), UInt16(0xFFFE), false, (0, 0, 0, 0)),       // 5551 LE alpha clear: transparent
        (UInt32(0x4235_3635), UInt16(0x07E0), true, (0, 255, 0, 255)),    // 565 BE green
        (UInt32(0x4C35_3635), UInt16(0x8410), false, (132, 130, 132, 255)),  // 565 LE mid gray
    ])
    func sixteenBitRGB(format: UInt32, word: UInt16, bigEndian: Bool, expected: (Int, Int, Int, Int)) throws {
        let src = try PixelBuffer.create(width: 9, height: 1, pixelFormat: format, attributes: nil)
        for x in 0..<9 {
            src.row(0, 0).storeBytes(of: bigEndian ? word.bigEndian : word.littleEndian, toByteOffset: 2 * x, as: UInt16.self)
        }
        let dst = try PixelBuffer.create(width: 9, height: 1, pixelFormat: 0x4247_5241, attributes: nil)
        try src.convert(to: dst)
        for x in [0, 7, 8] {   // a SIMD lane and the scalar tail
            let p = dst.row(0, 0).load(fromByteOffset: 4 * x, as: UInt32.self)
            let got = (Int((p >> 16) & 0xFF), Int((p >> 8) & 0xFF), Int(p & 0xFF), Int(p >> 24))
            #expect(got == expected, "pixel \(x) of \(fourCharCodeString(format))")
        }
    }
}

private final class DelegateLog {
    var events: [String] = []
}

@Suite struct PlainAnimationTests {
    /// CAAnimationCreate: a timing object with a delegate and no effect.
    @Test func plainAnimationHasNoEffectButTellsItsDelegate() {
        withClock(700) { clock in
            let l = committedLayer()
            defer { CARelease(UnsafeRawPointer(l)) }
            let a = CAAnimationCreate()!
            defer { CARelease(UnsafeRawPointer(a)) }
            #expect(String(cString: QZGetTypeName(UnsafeRawPointer(a))!) == "CAAnimation")
            #expect(CAAnimationGetDuration(a) == 0 && CAAnimationGetRemovedOnCompletion(a))
            CAPropertyAnimationSetKeyPath(a, "opacity")                     // not a property animation
            #expect(takeError() == QZErrorWrongType)
            let log = DelegateLog()
            var table = CAAnimationDelegateCallbacks()
            table.animationDidStart = { _, info in
                Unmanaged<DelegateLog>.fromOpaque(info!).takeUnretainedValue().events.append("start")
            }
            table.animationDidStop = { _, finished, info in
                Unmanaged<DelegateLog>.fromOpaque(info!).takeUnretainedValue().events.append(finished ? "stop" : "cut")
            }
            CAAnimationSetDelegate(a, &table, Unmanaged.passUnretained(log).toOpaque())
            CAAnimationSetDuration(a, 1)
            CALayerSetOpacity(l, 0.5)
            CATransactionFlush()
            CALayerAddAnimation(l, a, "timer")
            CATransactionFlush()
            clock.now = 700.5
            QZAnimationProcessEvents()
            #expect(presentedOpacity(l) == 0.5)
            #expect(log.events == ["start"])
            clock.now = 701.5
            QZAnimationProcessEvents()
            #expect(log.events == ["start", "stop"] && CALayerGetAnimation(l, "timer") == nil)
        }
    }

    @Test func plainAnimationInAGroup() {
        let g = CAAnimationGroupCreate()!, a = CAAnimationCreate()!
        defer { CARelease(UnsafeRawPointer(g)); CARelease(UnsafeRawPointer(a)) }
        var list: [CAAnimationRef?] = [a]
        CAAnimationGroupSetAnimations(g, &list, 1)
        #expect(CAAnimationGroupGetAnimationAtIndex(g, 0) == a)
        let l = CALayerCreate()!
        defer { CARelease(UnsafeRawPointer(l)) }
        CALayerAddAnimation(l, g, "group")
        CATransactionFlush()
        let p = CALayerCopyPresentationLayer(l)!
        #expect(CALayerGetOpacity(p) == 1)
        CARelease(UnsafeRawPointer(p))
    }
}
