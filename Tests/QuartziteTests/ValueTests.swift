import CQuartzite
import Testing
@testable import QuartziteCore
@testable import QuartziteGeometry
@testable import QuartziteVideo
@testable import QuartziteGraphics
@testable import QuartziteModel
@testable import QuartziteRender
@testable import Quartzite

@Suite struct ValueTests {
    @Test func numbersAndBooleansCompareByValue() {
        #expect(Value(.number(1)).isEqual(to: Value(.bool(true))))
        #expect(!Value(.number(2)).isEqual(to: Value(.bool(true))))
        #expect(Value(.number(0)).number == 0)
        #expect(Value(.bool(false)).number == 0)
    }

    @Test func dictionariesKeepFirstPositionAndLastValue() {
        var d = ValueDictionary()
        d.set(Value(.number(1)), for: "a")
        d.set(Value(.number(2)), for: "b")
        d.set(Value(.number(3)), for: "a")
        #expect(d.count == 2)
        #expect(d.keys.map(\.string) == ["a", "b"])
        #expect(d["a"]?.number == 3)
        #expect(d["missing"] == nil)
    }

    @Test func deepEqualityOfNestedCollections() {
        func make() -> Value {
            var inner = ValueDictionary()
            inner.set(Value(string: "x"), for: "name")
            inner.set(Value(.array([Value(.number(1)), Value(.point(CGPoint(x: 1, y: 2)))])), for: "items")
            return Value(.array([Value(.dictionary(inner)), Value.null]))
        }
        #expect(make().isEqual(to: make()))
        #expect(!make().isEqual(to: Value(.array([]))))
    }

    @Test func stringsKeepAStableCPointer() {
        let v = Value(string: "héllo")
        let p = CAValueGetString(borrowedHandle(v))
        #expect(p != nil && String(cString: p!) == "héllo")
        #expect(CAValueGetString(borrowedHandle(v)) == p)
    }

    @Test func handlesCarryTheirTypeTag() {
        let v = Value(.number(1))
        let handle = borrowedHandle(v)
        #expect(readTag(handle) == tagMagic | UInt32(ObjectKind.value.rawValue))
        #expect(Value.accepts(readTag(handle)))
        #expect(!Color.accepts(readTag(handle)))
        #expect(object(handle, as: Value.self) === v)
    }

    @Test func retainAndReleaseBalance() {
        let handle = CAValueCreateNumber(5)!
        weak let weakValue = Unmanaged<Value>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue()
        #expect(CARetain(UnsafeRawPointer(handle)) != nil)
        CARelease(UnsafeRawPointer(handle))
        #expect(weakValue != nil)
        CARelease(UnsafeRawPointer(handle))
        #expect(weakValue == nil)
    }

    @Test func wrongTypeNamesBothTypes() {
        QZClearLastError()
        let color = CGColorCreateSRGB(1, 0, 0, 1)!
        _ = CAValueGetNumber(color)
        #expect(QZGetLastError() == QZErrorWrongType)
        #expect(lastErrorMessage() == "CAValueGetNumber: expected a CAValueRef, got a CGColorRef")
        QZClearLastError()
        CGColorRelease(color)
    }

    @Test func colorsClampAndCompare() {
        let c = Color(space: .sRGB, components: [1.5, -0.5, 0.25, 1])
        #expect(c.components == [1, 0, 0.25, 1])
        #expect(c.isEqual(to: Color(space: .sRGB, components: [1, 0, 0.25, 1])))
        #expect(!c.isEqual(to: Color(space: .genericRGB, components: [1, 0, 0.25, 1])))
        #expect(Color(space: .genericGray, components: [0.5, 0.75]).rgba == SIMD4(0.5, 0.5, 0.5, 0.75))
    }
}

@Suite struct ErrorTests {
    @Test func messagesNameTheFunction() {
        QZClearLastError()
        _ = CAValueGetNumber(nil)
        #expect(QZGetLastError() == QZErrorNullArgument)
        #expect(lastErrorMessage() == "CAValueGetNumber: CAValueRef argument is NULL")
        QZClearLastError()
        #expect(String(cString: QZGetLastErrorMessage()) == "")
    }

    @Test func longMessagesAreTruncatedSafely() {
        QZClearLastError()
        recordError(QZErrorInvalidArgument, "Test", String(repeating: "x", count: 2000))
        #expect(lastErrorMessage().utf8.count == Int(QZ_ERROR_MESSAGE_CAPACITY) - 1)
        QZClearLastError()
    }

    @Test func mediaTimeSourceCanBeReplacedAndRestored() {
        var fake = 12.25
        withUnsafeMutablePointer(to: &fake) { pointer in
            QZSetMediaTimeSource({ info in info!.load(as: Double.self) }, pointer)
            #expect(CACurrentMediaTime() == 12.25)
            QZSetMediaTimeSource(nil, nil)
        }
        #expect(CACurrentMediaTime() != 12.25)
    }
}
