import CQuartzite
import Testing
@testable import QuartziteCore
@testable import QuartziteGeometry
@testable import QuartziteVideo
@testable import QuartziteGraphics
@testable import QuartziteModel
@testable import QuartziteRender
@testable import Quartzite

/// Reads a declared or custom key through the C API as a Swift value.
func copyValue(_ layer: CALayerRef, _ key: String) -> Value? {
    guard let v = CALayerCopyValueForKeyPath(layer, key) else { return nil }
    let value = Unmanaged<Value>.fromOpaque(UnsafeRawPointer(v)).takeRetainedValue()
    return value
}

func setValue(_ layer: CALayerRef, _ key: String, _ value: Value?) {
    CALayerSetValueForKeyPath(layer, key, value.map(borrowedHandle))
}

func layer(_ cls: LayerClass = .base) -> CALayerRef {
    CALayerCreateWithClass(borrowedHandle(cls))!
}

@Suite struct LayerDefaultTests {
    /// The spec's default of every declared property, and a value to round-trip.
    static let table: [(String, Value?, Value)] = [
        ("bounds", Value(.rect(.zero)), Value(.rect(CGRect(x: 1, y: 2, width: 30, height: 40)))),
        ("position", Value(.point(CGPoint(x: 0, y: 0))), Value(.point(CGPoint(x: 5, y: 6)))),
        ("zPosition", Value(.number(0)), Value(.number(3))),
        ("anchorPoint", Value(.point(CGPoint(x: 0.5, y: 0.5))), Value(.point(CGPoint(x: 0, y: 1)))),
        ("anchorPointZ", Value(.number(0)), Value(.number(-2))),
        ("transform", Value(.transform3D(.identity)), Value(.transform3D(CATransform3D(scaleX: 2, y: 3, z: 4)))),
        ("sublayerTransform", Value(.transform3D(.identity)), Value(.transform3D(CATransform3D(translationX: 1, y: 0, z: 0)))),
        ("contents", nil, Value(.object(try! PixelBuffer.create(width: 2, height: 2, pixelFormat: 0x4247_5241, attributes: nil)))),
        ("contentsRect", Value(.rect(CGRect(x: 0, y: 0, width: 1, height: 1))), Value(.rect(CGRect(x: 0.5, y: 0, width: 0.5, height: 1)))),
        ("contentsCenter", Value(.rect(CGRect(x: 0, y: 0, width: 1, height: 1))), Value(.rect(CGRect(x: 0.25, y: 0.25, width: 0.5, height: 0.5)))),
        ("contentsGravity", Value(string: "resize"), Value(string: "topLeft")),
        ("contentsScale", Value(.number(1)), Value(.number(2))),
        ("minificationFilter", Value(string: "linear"), Value(string: "trilinear")),
        ("minificationFilterBias", Value(.number(0)), Value(.number(0.5))),
        ("magnificationFilter", Value(string: "linear"), Value(string: "nearest")),
        ("opacity", Value(.number(1)), Value(.number(0.25))),
        ("hidden", Value(.bool(false)), Value(.bool(true))),
        ("masksToBounds", Value(.bool(false)), Value(.bool(true))),
        ("doubleSided", Value(.bool(true)), Value(.bool(false))),
        ("cornerRadius", Value(.number(0)), Value(.number(8))),
        ("borderWidth", Value(.number(0)), Value(.number(2))),
        ("borderColor", Value(.color(.opaqueBlack)), Value(.color(Color(space: .sRGB, components: [1, 0, 0, 1])))),
        ("backgroundColor", nil, Value(.color(Color(space: .sRGB, components: [0, 1, 0, 0.5])))),
        ("shadowOpacity", Value(.number(0)), Value(.number(0.75))),
        ("shadowRadius", Value(.number(3)), Value(.number(10))),
        ("shadowOffset", Value(.size(CGSize(width: 0, height: -3))), Value(.size(CGSize(width: 4, height: 4)))),
        ("shadowColor", Value(.color(.opaqueBlack)), Value(.color(Color(space: .sRGB, components: [0, 0, 1, 1])))),
        ("opaque", Value(.bool(false)), Value(.bool(true))),
        ("edgeAntialiasingMask", Value(.number(15)), Value(.number(5))),
        ("geometryFlipped", Value(.bool(false)), Value(.bool(true))),
        ("needsDisplayOnBoundsChange", Value(.bool(false)), Value(.bool(true))),
        ("shouldRasterize", Value(.bool(false)), Value(.bool(true))),
        ("rasterizationScale", Value(.number(1)), Value(.number(2))),
        ("filters", nil, Value(.array([Value(string: "CIGaussianBlur")]))),
        ("backgroundFilters", nil, Value(.array([Value(string: "CIColorControls")]))),
        ("compositingFilter", nil, Value(string: "multiplyBlendMode")),
        ("name", nil, Value(string: "card")),
        ("actions", nil, Value(.dictionary(ValueDictionary()))),
        ("beginTime", Value(.number(0)), Value(.number(1.5))),
        // Infinite, as observed on Apple's QuartzCore (the reference's 0 is an animation's).
        ("duration", Value(.number(.infinity)), Value(.number(2))),
        ("speed", Value(.number(1)), Value(.number(0.5))),
        ("timeOffset", Value(.number(0)), Value(.number(0.25))),
        ("repeatCount", Value(.number(0)), Value(.number(2.5))),
        ("repeatDuration", Value(.number(0)), Value(.number(4))),
        ("autoreverses", Value(.bool(false)), Value(.bool(true))),
        ("fillMode", Value(string: "removed"), Value(string: "both")),
    ]

    /// Keys whose +defaultValueForKey: is nil on Apple's QuartzCore
    /// although a new layer reads a value for them.
    static let noClassDefault: Set<String> = ["bounds", "position", "minificationFilterBias"]

    @Test(arguments: table)
    func defaultAndRoundTrip(key: String, expected: Value?, sample: Value) {
        let l = layer()
        defer { CARelease(UnsafeRawPointer(l)) }
        QZClearLastError()
        let got = copyValue(l, key)
        if let expected {
            #expect(got.map { $0.isEqual(to: expected) } == true, "default of \(key)")
        } else {
            #expect(got == nil, "default of \(key) is nil")
        }
        setValue(l, key, sample)
        #expect(QZGetLastError() == QZErrorNone, "\(key): \(lastErrorMessage())")
        let back = copyValue(l, key)
        if case .object(let o) = sample.storage, case .object(let p)? = back?.storage {
            #expect(o === p)
        } else {
            #expect(back.map { $0.isEqual(to: sample) } == true, "round trip of \(key)")
        }
        // The class default is the same value (CALayerCopyDefaultValueForKey),
        // except where Apple's +defaultValueForKey: was observed to answer nil.
        let def = CALayerCopyDefaultValueForKey(key).map { Unmanaged<Value>.fromOpaque(UnsafeRawPointer($0)).takeRetainedValue() }
        if LayerDefaultTests.noClassDefault.contains(key) {
            #expect(def == nil, "defaultValueForKey \(key) is nil")
        } else {
            #expect(def.map { d in expected.map { d.isEqual(to: $0) } ?? false } ?? (expected == nil))
        }
    }

    @Test func typedGettersReportDefaults() {
        let l = layer()
        defer { CARelease(UnsafeRawPointer(l)) }
        #expect(CALayerGetOpacity(l) == 1)
        #expect(CALayerGetAnchorPoint(l).x == 0.5 && CALayerGetAnchorPoint(l).y == 0.5)
        #expect(CALayerGetShadowOffset(l).height == -3 && CALayerGetShadowRadius(l) == 3)
        #expect(CALayerGetDoubleSided(l) && !CALayerGetHidden(l))
        #expect(CGColorGetComponents(CALayerGetBorderColor(l))![3] == 1)
        #expect(CALayerGetBackgroundColor(l) == nil)
        #expect(String(cString: CALayerGetContentsGravity(l)!) == kCAGravityResize)
        #expect(String(cString: CALayerGetMinificationFilter(l)!) == kCAFilterLinear)
        #expect(String(cString: CALayerGetFillMode(l)!) == kCAFillModeRemoved)
        #expect(CALayerGetEdgeAntialiasingMask(l) == UInt32(kCALayerLeftEdge.rawValue | kCALayerRightEdge.rawValue | kCALayerBottomEdge.rawValue | kCALayerTopEdge.rawValue))
        #expect(CALayerGetSpeed(l) == 1 && CALayerGetRepeatCount(l) == 0)
        #expect(CALayerGetName(l) == nil && CALayerGetContents(l) == nil && CALayerGetMask(l) == nil)
    }

    @Test func subclassDefaults() {
        let text = CATextLayerCreate()!, tiled = CATiledLayerCreate()!, scroll = CAScrollLayerCreate()!
        defer { for l in [text, tiled, scroll] { CARelease(UnsafeRawPointer(l)) } }
        #expect(CATextLayerGetFontSize(text) == 36)
        let white = CGColorGetComponents(CATextLayerGetForegroundColor(text))!
        #expect(white[0] == 1 && white[1] == 1 && white[2] == 1 && white[3] == 1)
        #expect(!CATextLayerGetWrapped(text))
        #expect(String(cString: CATextLayerGetAlignmentMode(text)!) == kCAAlignmentNatural)
        #expect(String(cString: CATextLayerGetTruncationMode(text)!) == kCATruncationNone)
        #expect(CATextLayerGetString(text) == nil)
        #expect(CATiledLayerGetLevelsOfDetail(tiled) == 1 && CATiledLayerGetLevelsOfDetailBias(tiled) == 0)
        #expect(CATiledLayerGetTileSize(tiled).width == 256 && CATiledLayerGetTileSize(tiled).height == 256)
        #expect(CATiledLayerGetFadeDuration() == 0.25)
        #expect(String(cString: CAScrollLayerGetScrollMode(scroll)!) == kCAScrollBoth)
        // Subclass keys are custom keys on a plain layer, and the typed accessors refuse it.
        let plain = layer()
        defer { CARelease(UnsafeRawPointer(plain)) }
        QZClearLastError()
        _ = CATextLayerGetFontSize(plain)
        #expect(takeError() == QZErrorWrongType)
        setValue(plain, "fontSize", Value(.number(12)))
        #expect(copyValue(plain, "fontSize")?.number == 12)
    }

    @Test func subclassRoundTrips() {
        let text = CATextLayerCreate()!, tiled = CATiledLayerCreate()!, scroll = CAScrollLayerCreate()!
        defer { for l in [text, tiled, scroll] { CARelease(UnsafeRawPointer(l)) } }
        QZClearLastError()
        let hello = CAValueCreateString("hello")!
        CATextLayerSetString(text, hello)
        CARelease(UnsafeRawPointer(hello))
        #expect(String(cString: CAValueGetString(CATextLayerGetString(text))!) == "hello")
        let font = CAValueCreateString("DejaVu Sans")!
        CATextLayerSetFont(text, font)
        CARelease(UnsafeRawPointer(font))
        #expect(String(cString: CAValueGetString(CATextLayerGetFont(text))!) == "DejaVu Sans")
        CATextLayerSetFontSize(text, 12)
        #expect(CATextLayerGetFontSize(text) == 12)
        let red = CGColorCreateSRGB(1, 0, 0, 1)!
        CATextLayerSetForegroundColor(text, red)
        #expect(CGColorEqualToColor(CATextLayerGetForegroundColor(text), red))
        CGColorRelease(red)
        CATextLayerSetWrapped(text, true)
        #expect(CATextLayerGetWrapped(text))
        CATextLayerSetAlignmentMode(text, kCAAlignmentJustified)
        #expect(String(cString: CATextLayerGetAlignmentMode(text)!) == "justified")
        CATextLayerSetTruncationMode(text, kCATruncationMiddle)
        #expect(String(cString: CATextLayerGetTruncationMode(text)!) == "middle")
        CATiledLayerSetLevelsOfDetail(tiled, 4)
        CATiledLayerSetLevelsOfDetailBias(tiled, 2)
        CATiledLayerSetTileSize(tiled, CGSize(width: 512, height: 128))
        #expect(CATiledLayerGetLevelsOfDetail(tiled) == 4 && CATiledLayerGetLevelsOfDetailBias(tiled) == 2)
        #expect(CATiledLayerGetTileSize(tiled).width == 512 && CATiledLayerGetTileSize(tiled).height == 128)
        CAScrollLayerSetScrollMode(scroll, kCAScrollHorizontally)
        #expect(String(cString: CAScrollLayerGetScrollMode(scroll)!) == "horizontally")
        #expect(QZGetLastError() == QZErrorNone)
        // The same keys through key-value coding.
        #expect(copyValue(text, "fontSize")?.number == 12)
        #expect(copyValue(tiled, "tileSize.width")?.number == 512)
        CATextLayerSetAlignmentMode(text, "diagonal")
        #expect(takeError() == QZErrorUnknownConstant)
        CATiledLayerSetTileSize(tiled, CGSize(width: 0, height: 10))
        #expect(takeError() == QZErrorInvalidArgument)
        #expect(CATiledLayerGetTileSize(tiled).width == 512)
    }

    @Test func badValuesAreRejectedAndChangeNothing() {
        let l = layer()
        defer { CARelease(UnsafeRawPointer(l)) }
        QZClearLastError()
        CALayerSetPosition(l, CGPoint(x: .nan, y: 0))
        #expect(takeError() == QZErrorNotFinite)
        CALayerSetOpacity(l, .infinity)
        #expect(takeError() == QZErrorNotFinite)
        CALayerSetContentsGravity(l, "sideways")
        #expect(takeError() == QZErrorUnknownConstant)
        setValue(l, "position", Value(string: "x"))
        #expect(takeError() == QZErrorWrongType)
        setValue(l, "bounds", Value(.number(3)))
        #expect(takeError() == QZErrorWrongType)
        CALayerSetFillMode(l, nil)
        #expect(takeError() == QZErrorNullArgument)
        #expect(CALayerGetPosition(l).x == 0 && CALayerGetOpacity(l) == 1)
        #expect(String(cString: CALayerGetContentsGravity(l)!) == "resize")
        // HUGE_VALF repeats forever: infinity is a valid repeatCount.
        CALayerSetRepeatCount(l, .infinity)
        #expect(takeError() == QZErrorNone && CALayerGetRepeatCount(l) == .infinity)
        CALayerSetRepeatCount(l, .nan)
        #expect(takeError() == QZErrorNotFinite)
        _ = CALayerGetOpacity(nil)
        #expect(takeError() == QZErrorNullArgument)
        let color = CGColorCreateSRGB(1, 1, 1, 1)!
        defer { CGColorRelease(color) }
        _ = CALayerGetOpacity(color)
        #expect(takeError() == QZErrorWrongType)
    }
}

@Suite struct KeyPathTests {
    /// (key path to set, value, key path to read, expected number)
    static let numeric: [(String, Double, String, Double)] = [
        ("position.x", 12, "position", .nan),
        ("position.y", 7, "position.y", 7),
        ("bounds.size.width", 40, "bounds.size.width", 40),
        ("bounds.origin.x", -3, "bounds.origin.x", -3),
        ("anchorPoint.x", 0.25, "anchorPoint.x", 0.25),
        ("shadowOffset.height", 9, "shadowOffset.height", 9),
        ("transform.translation.x", 10, "transform.translation.x", 10),
        ("transform.translation.z", -4, "transform.m43", .nan),
        ("transform.scale.y", 3, "transform.scale.y", 3),
        ("transform.scale", 2, "transform.scale.x", 2),
        ("transform.rotation.x", 0.5, "transform.rotation.x", 0.5),
        ("transform.rotation.y", -0.3, "transform.rotation.y", -0.3),
        ("transform.rotation", 1.25, "transform.rotation.z", 1.25),
        ("sublayerTransform.rotation.z", 0.75, "sublayerTransform.rotation", 0.75),
        ("sublayerTransform.scale.z", 5, "sublayerTransform.scale.z", 5),
        ("touchPoints.a.scale", 2, "touchPoints.a.scale", 2),
        ("touchPoints.b.scale", 3, "touchPoints.b.scale", 3),
        ("someKey", 50, "someKey", 50),
    ]

    @Test(arguments: numeric)
    func setAndRead(path: String, value: Double, readPath: String, expected: Double) {
        let l = layer()
        defer { CARelease(UnsafeRawPointer(l)) }
        QZClearLastError()
        CALayerSetNumberForKeyPath(l, path, value)
        #expect(QZGetLastError() == QZErrorNone, "\(path): \(lastErrorMessage())")
        if !expected.isNaN {
            #expect(abs(CALayerGetNumberForKeyPath(l, readPath) - expected) < 1e-12, "\(readPath)")
        }
    }

    @Test func rotationZWritesTheMatrix() {
        let l = layer()
        defer { CARelease(UnsafeRawPointer(l)) }
        CALayerSetNumberForKeyPath(l, "transform.rotation.z", .pi / 2)
        let t = CALayerGetTransform(l)
        #expect(abs(t.m11) < 1e-12 && abs(t.m12 - 1) < 1e-12 && abs(t.m21 + 1) < 1e-12 && abs(t.m22) < 1e-12)
    }

    @Test func componentsAreKeptWhenOneChanges() {
        let l = layer()
        defer { CARelease(UnsafeRawPointer(l)) }
        CALayerSetTransform(l, CATransform3DMakeScale(2, 2, 1))
        CALayerSetNumberForKeyPath(l, "transform.rotation.z", .pi / 2)
        CALayerSetNumberForKeyPath(l, "transform.translation.x", 10)
        let t = CALayerGetTransform(l)
        // scale 2 then a quarter turn: m12 = 2, m21 = -2; translation in m41.
        #expect(abs(t.m12 - 2) < 1e-12 && abs(t.m21 + 2) < 1e-12 && abs(t.m11) < 1e-12 && t.m41 == 10)
        #expect(abs(CALayerGetNumberForKeyPath(l, "transform.scale.x") - 2) < 1e-12)
        // A size sets the x and y translation.
        setValue(l, "transform.translation", Value(.size(CGSize(width: 3, height: 4))))
        #expect(CALayerGetTransform(l).m41 == 3 && CALayerGetTransform(l).m42 == 4)
        let tr = copyValue(l, "transform.translation")
        if case .size(let s)? = tr?.storage { #expect(s.width == 3 && s.height == 4) } else { Issue.record("translation is not a size") }
    }

    @Test func structFieldsUpdateTheProperty() {
        let l = layer()
        defer { CARelease(UnsafeRawPointer(l)) }
        CALayerSetNumberForKeyPath(l, "position.x", 12)
        CALayerSetNumberForKeyPath(l, "bounds.size.height", 30)
        setValue(l, "bounds.origin", Value(.point(CGPoint(x: 4, y: 5))))
        #expect(CALayerGetPosition(l).x == 12)
        #expect(CALayerGetBounds(l).isEqual(to: CGRect(x: 4, y: 5, width: 0, height: 30)))
        let origin = copyValue(l, "bounds.origin")
        if case .point(let p)? = origin?.storage { #expect(p.x == 4 && p.y == 5) } else { Issue.record("bounds.origin is not a point") }
    }

    @Test func nestedDictionariesAreCreated() {
        let l = layer()
        defer { CARelease(UnsafeRawPointer(l)) }
        CALayerSetNumberForKeyPath(l, "touchPoints.a.scale", 2)
        CALayerSetNumberForKeyPath(l, "touchPoints.a.point.x", 7)
        let tp = copyValue(l, "touchPoints")
        #expect(tp?.type == CAValueTypeDictionary)
        #expect(copyValue(l, "touchPoints.a")?.count == 2)
        #expect(CALayerGetNumberForKeyPath(l, "touchPoints.a.point.x") == 7)
        #expect(copyValue(l, "touchPoints.missing.scale") == nil)
    }

    @Test func badKeyPathsRecordErrors() {
        let l = layer()
        defer { CARelease(UnsafeRawPointer(l)) }
        QZClearLastError()
        CALayerSetNumberForKeyPath(l, "position.z", 1)
        #expect(takeError() == QZErrorInvalidArgument)
        CALayerSetNumberForKeyPath(l, "transform.rotation.w", 1)
        #expect(takeError() == QZErrorInvalidArgument)
        CALayerSetNumberForKeyPath(l, "position..x", 1)
        #expect(takeError() == QZErrorInvalidArgument)
        CALayerSetNumberForKeyPath(l, "", 1)
        #expect(takeError() == QZErrorInvalidArgument)
        CALayerSetNumberForKeyPath(l, "position.x", .nan)
        #expect(takeError() == QZErrorInvalidArgument)
        _ = CALayerGetNumberForKeyPath(l, "contentsGravity")
        #expect(takeError() == QZErrorWrongType)
        #expect(CALayerGetPosition(l).x == 0)
    }

    @Test func styleSuppliesUnsetProperties() {
        let l = layer()
        defer { CARelease(UnsafeRawPointer(l)) }
        var inner = ValueDictionary()
        inner.set(Value(.number(4)), for: "cornerRadius")
        inner.set(Value(.number(0.1)), for: "opacity")
        inner.set(Value(.rect(CGRect(x: 0, y: 0, width: 9, height: 9))), for: "bounds")
        var outer = ValueDictionary()
        outer.set(Value(.number(0.5)), for: "opacity")
        outer.set(Value(.number(3)), for: "custom")
        outer.set(Value(.dictionary(inner)), for: "style")
        setValue(l, "style", Value(.dictionary(outer)))
        #expect(CALayerGetOpacity(l) == 0.5)                 // shallowest wins
        #expect(CALayerGetCornerRadius(l) == 4)              // from style.style
        #expect(CALayerGetNumberForKeyPath(l, "custom") == 3)
        #expect(CALayerGetBounds(l).size.width == 0)         // never for bounds
        CALayerSetOpacity(l, 0.8)
        #expect(CALayerGetOpacity(l) == Float(0.8))          // explicit values win
    }
}

@Suite struct LayerFixTests {
    @Test func styleIsTypeCheckedAndNeverSuppliesStructure() {
        let l = layer(), child = layer()
        defer { CARelease(UnsafeRawPointer(l)); CARelease(UnsafeRawPointer(child)) }
        CALayerAddSublayer(l, child)
        var d = ValueDictionary()
        d.set(Value(string: "junk"), for: "sublayers")
        d.set(Value(string: "high"), for: "opacity")
        d.set(Value(string: "sideways"), for: "contentsGravity")
        d.set(Value(.number(5)), for: "cornerRadius")
        setValue(l, "style", Value(.dictionary(d)))
        #expect(copyValue(l, "sublayers")?.count == 1)
        #expect(copyValue(l, "opacity")?.number == 1 && CALayerGetOpacity(l) == 1)
        #expect(copyValue(l, "contentsGravity")?.string == "resize")
        #expect(copyValue(l, "cornerRadius")?.number == 5)
    }

    @Test func typeNamesWithoutErrors() {
        let l = layer()
        defer { CARelease(UnsafeRawPointer(l)) }
        QZClearLastError()
        #expect(String(cString: QZGetTypeName(UnsafeRawPointer(l))!) == "CALayer")
        #expect(String(cString: QZGetTypeName(UnsafeRawPointer(CALayerClassGetBuiltin("CATextLayer")!))!) == "CALayerClass")
        var junk = [UInt64](repeating: 0, count: 4)
        #expect(junk.withUnsafeBytes { QZGetTypeName($0.baseAddress) } == nil)
        #expect(QZGetTypeName(nil) == nil)
        #expect(QZGetLastError() == QZErrorNone)
    }

    @Test func tiledLayerErrorCodes() {
        let t = CATiledLayerCreate()!
        defer { CARelease(UnsafeRawPointer(t)) }
        QZClearLastError()
        CATiledLayerSetLevelsOfDetail(t, 1_000_000_000_000)
        #expect(takeError() == QZErrorOutOfRange)
        CATiledLayerSetTileSize(t, CGSize(width: 0, height: 0))
        #expect(takeError() == QZErrorInvalidArgument)
        #expect(CATiledLayerGetLevelsOfDetail(t) == 1)
    }
}

@Suite struct ShadowPathTests {
    @Test func shadowPathIsSnapshotted() {
        let l = layer()
        defer { CARelease(UnsafeRawPointer(l)) }
        #expect(CALayerGetShadowPath(l) == nil)
        let p = CGPathCreateMutable()!
        var none = CGAffineTransform.identity
        withUnsafePointer(to: &none) { m in CGPathAddRect(p, m, CGRect(x: 0, y: 0, width: 10, height: 20)) }
        QZClearLastError()
        CALayerSetShadowPath(l, p)
        #expect(QZGetLastError() == QZErrorNone)
        // Growing the caller's mutable path afterwards does not reach the layer.
        CGPathAddRect(p, nil, CGRect(x: 0, y: 0, width: 100, height: 100))
        let box = CGPathGetBoundingBox(CALayerGetShadowPath(l))
        #expect(box.isEqual(to: CGRect(x: 0, y: 0, width: 10, height: 20)))
        CGPathRelease(p)
        // Through key-value coding only a path is accepted.
        setValue(l, "shadowPath", Value(.object(Value(.number(1)))))
        #expect(takeError() == QZErrorWrongType)
        CALayerSetShadowPath(l, nil)
        #expect(CALayerGetShadowPath(l) == nil)
    }
}

/// Background colour, corner radius and border width live in the layer,
/// LayerVisuals keeps the contents; the other appearance properties live in
/// LayerRareVisuals, made only when one of them takes a value other than
/// its default.
@Suite struct LayerVisualsStorageTests {
    @Test func commonPropertiesAllocateNoRareStorage() {
        let h = layer()
        defer { CARelease(UnsafeRawPointer(h)) }
        let green = CGColorCreateSRGB(0, 1, 0, 1)!
        defer { CGColorRelease(green) }
        CALayerSetBackgroundColor(h, green)
        CALayerSetCornerRadius(h, 4)
        CALayerSetBorderWidth(h, 2)
        // (No side object at all: the three live in the layer.)
        #expect(withModelLock { L(h).visuals == nil && L(h).flags.contains(.commonVisuals) })
        // Defaults written back: nothing to store.
        CALayerSetShadowRadius(h, 3)
        CALayerSetShadowOpacity(h, 0)
        CALayerSetEdgeAntialiasingMask(h, 15)
        CALayerSetContentsGravity(h, "resize")
        CALayerSetName(h, nil)
        setValue(h, "borderColor", Value(.color(.opaqueBlack)))
        let l = L(h)
        #expect(withModelLock { l.visuals?.rare == nil })
        #expect(CALayerGetCornerRadius(h) == 4 && CALayerGetBorderWidth(h) == 2)
        #expect(CALayerGetBackgroundColor(h) == green)
        #expect(CALayerGetShadowRadius(h) == 3 && CALayerGetEdgeAntialiasingMask(h) == 15)
        #expect(CALayerGetBorderColor(h).flatMap { object($0, as: Color.self) } === Color.opaqueBlack)
        // Contents make the visuals box, still without rare storage.
        let image = Image.testWhite
        CALayerSetContents(h, UnsafeRawPointer(Unmanaged.passUnretained(image).toOpaque()))
        #expect(withModelLock { l.visuals != nil && l.visuals!.rare == nil && l.visuals!.contents === image })
        #expect(copyValue(h, "contentsGravity")?.string == "resize")
    }

    @Test func rarePropertiesRoundTripAndCopy() {
        let h = layer()
        defer { CARelease(UnsafeRawPointer(h)) }
        CALayerSetShadowRadius(h, 10)
        let l = L(h)
        #expect(withModelLock { l.visuals?.rare != nil })
        #expect(CALayerGetShadowRadius(h) == 10)
        // The others still read as their defaults.
        #expect(CALayerGetShadowOpacity(h) == 0 && CALayerGetEdgeAntialiasingMask(h) == 15)
        let offset = CALayerGetShadowOffset(h)
        #expect(offset.width == 0 && offset.height == -3)
        #expect(withModelLock { l.visuals?.borderColor === Color.opaqueBlack })
        CALayerSetBorderColor(h, nil)
        #expect(CALayerGetBorderColor(h) == nil)
        // A presentation copy has the same values in its own storage.
        let p = CALayerCopyPresentationLayer(h)!
        defer { CARelease(UnsafeRawPointer(p)) }
        #expect(CALayerGetShadowRadius(p) == 10 && CALayerGetBorderColor(p) == nil)
        #expect(withModelLock { L(p).visuals?.rare !== l.visuals?.rare && L(p).visuals?.rare != nil })
    }

    /// The actions dictionary lives in the rare storage; a layer flag says
    /// it is there, so the setters' action-source check need not look.
    @Test func actionsFlagFollowsTheDictionary() {
        let h = layer()
        defer { CARelease(UnsafeRawPointer(h)) }
        var d = ValueDictionary()
        d.set(Value(.null), for: "position")
        setValue(h, "actions", Value(.dictionary(d)))
        #expect(withModelLock { L(h).flags.contains(.hasActions) && L(h).hasActionSources })
        let p = CALayerCopyPresentationLayer(h)!
        defer { CARelease(UnsafeRawPointer(p)) }
        #expect(withModelLock { L(p).flags.contains(.hasActions) && L(p).visuals?.actions != nil })
        setValue(h, "actions", nil)
        #expect(withModelLock { !L(h).flags.contains(.hasActions) && !L(h).hasActionSources })
    }

    /// Only the default itself is left unstored: NULL is not opaque black,
    /// -0 is not 0.
    @Test func valuesNearTheDefaultsAreStored() {
        let h = layer(), k = layer()
        defer { CARelease(UnsafeRawPointer(h)); CARelease(UnsafeRawPointer(k)) }
        CALayerSetBorderColor(h, nil)
        #expect(CALayerGetBorderColor(h) == nil)
        #expect(copyValue(h, "borderColor") == nil)
        CALayerSetShadowOpacity(k, -0.0)
        #expect(CALayerGetShadowOpacity(k).sign == .minus)
        #expect(withModelLock { L(k).visuals?.rare != nil })
    }
}
