import CQuartzite
import Testing
@testable import QuartziteCore
@testable import QuartziteGeometry
@testable import QuartziteVideo
@testable import QuartziteGraphics
@testable import QuartziteModel
@testable import QuartziteRender
@testable import Quartzite

@Suite struct TimingFunctionTests {
    /// An independent check: bisection on x(t), then y(t), straight from the
    /// Bernstein form.
    static func reference(_ c1: (Double, Double), _ c2: (Double, Double), _ x: Double) -> Double {
        func bez(_ t: Double, _ p1: Double, _ p2: Double) -> Double {
            let u = 1 - t
            return 3 * u * u * t * p1 + 3 * u * t * t * p2 + t * t * t
        }
        var lo = 0.0, hi = 1.0
        for _ in 0..<200 {
            let mid = (lo + hi) / 2
            if bez(mid, c1.0, c2.0) < x { lo = mid } else { hi = mid }
        }
        return bez((lo + hi) / 2, c1.1, c2.1)
    }

    static let named: [(String, (Double, Double), (Double, Double))] = [
        ("linear", (0, 0), (1, 1)),
        ("easeIn", (0.42, 0), (1, 1)),
        ("easeOut", (0, 0), (0.58, 1)),
        ("easeInEaseOut", (0.42, 0), (0.58, 1)),
        ("default", (0.25, 0.1), (0.25, 1)),
    ]

    @Test(arguments: named)
    func predefinedCurves(name: String, c1: (Double, Double), c2: (Double, Double)) {
        let f = CAMediaTimingFunctionCreateWithName(name)!
        defer { CARelease(UnsafeRawPointer(f)) }
        var p: [Float] = [9, 9]
        CAMediaTimingFunctionGetControlPointAtIndex(f, 1, &p)
        #expect(Double(p[0]) == Double(Float(c1.0)) && Double(p[1]) == Double(Float(c1.1)))
        CAMediaTimingFunctionGetControlPointAtIndex(f, 2, &p)
        #expect(Double(p[0]) == Double(Float(c2.0)) && Double(p[1]) == Double(Float(c2.1)))
        CAMediaTimingFunctionGetControlPointAtIndex(f, 0, &p)
        #expect(p == [0, 0])
        CAMediaTimingFunctionGetControlPointAtIndex(f, 3, &p)
        #expect(p == [1, 1])
        let fc1 = (Double(Float(c1.0)), Double(Float(c1.1))), fc2 = (Double(Float(c2.0)), Double(Float(c2.1)))
        for x in stride(from: 0.0, through: 1.0, by: 0.05) {
            #expect(abs(QZMediaTimingFunctionSolve(f, x) - Self.reference(fc1, fc2, x)) < 1e-6, "\(name) at \(x)")
        }
    }

    @Test func knownValues() {
        // easeInEaseOut is symmetric up to its float control points
        // (0.42f + 0.58f is not exactly 1): y(0.5) = 0.5 to 1e-7.
        #expect(abs(TimingFunction.easeInEaseOut.solve(0.5) - 0.5) < 1e-7)
        #expect(TimingFunction.linear.solve(0.3) == 0.3)
        #expect(TimingFunction.easeIn.solve(-1) == 0 && TimingFunction.easeIn.solve(2) == 1)
        // A curve with a flat spot in x(t) (dx/dt = 0 at x = 0.5) still converges.
        let steep = TimingFunction(c1x: 1, c1y: 0, c2x: 0, c2y: 1)
        for x in [0.01, 0.2, 0.4999, 0.5, 0.5001, 0.8, 0.99] {
            #expect(abs(steep.solve(x) - Self.reference((1, 0), (0, 1), x)) < 1e-6)
        }
    }

    @Test func badInput() {
        QZClearLastError()
        #expect(CAMediaTimingFunctionCreateWithName("bouncy") == nil)
        #expect(takeError() == QZErrorUnknownConstant)
        #expect(CAMediaTimingFunctionCreateWithControlPoints(1.5, 0, 0.5, 1) == nil)
        #expect(takeError() == QZErrorInvalidArgument)
        #expect(CAMediaTimingFunctionCreateWithControlPoints(.nan, 0, 0.5, 1) == nil)
        #expect(takeError() == QZErrorNotFinite)
        let f = CAMediaTimingFunctionCreateWithControlPoints(0.1, -0.5, 0.9, 1.5)!
        defer { CARelease(UnsafeRawPointer(f)) }
        var p: [Float] = [7, 7]
        CAMediaTimingFunctionGetControlPointAtIndex(f, 4, &p)
        #expect(takeError() == QZErrorOutOfRange && p == [7, 7])
        CAMediaTimingFunctionGetControlPointAtIndex(f, 1, nil)
        #expect(takeError() == QZErrorNullArgument)
        _ = QZMediaTimingFunctionSolve(f, .nan)
        #expect(takeError() == QZErrorNotFinite)
    }
}

@Suite struct MediaTimingTests {
    func timing(_ configure: (inout MediaTiming) -> Void) -> MediaTiming {
        var t = MediaTiming()
        configure(&t)
        return t
    }

    /// (description, timing, parent time, expected progress or nil, iteration)
    static let table: [(String, MediaTiming, Double, Double?, Int)] = {
        func t(_ f: (inout MediaTiming) -> Void) -> MediaTiming { var m = MediaTiming(); f(&m); return m }
        let two = t { $0.duration = 2 }
        return [
            ("halfway", two, 1, 0.5, 0),
            ("before, no fill", t { $0.duration = 2; $0.beginTime = 5 }, 4, nil, 0),
            ("before, fill backwards", t { $0.duration = 2; $0.beginTime = 5; $0.fillMode = .backwards }, 4, 0, 0),
            ("before, fill forwards only", t { $0.duration = 2; $0.beginTime = 5; $0.fillMode = .forwards }, 4, nil, 0),
            ("after, no fill", two, 2, nil, 0),
            ("after, fill forwards", t { $0.duration = 2; $0.fillMode = .forwards }, 9, 1, 0),
            ("after, fill both", t { $0.duration = 2; $0.fillMode = .both }, 9, 1, 0),
            ("after, fill backwards only", t { $0.duration = 2; $0.fillMode = .backwards }, 9, nil, 0),
            ("speed 2", t { $0.duration = 2; $0.speed = 2 }, 0.5, 0.5, 0),
            ("begin + speed", t { $0.duration = 2; $0.speed = 0.5; $0.beginTime = 10 }, 11, 0.25, 0),
            ("repeat 2.5, third pass", t { $0.duration = 2; $0.repeatCount = 2.5 }, 4.5, 0.25, 2),
            ("repeat 2.5, end state", t { $0.duration = 2; $0.repeatCount = 2.5; $0.fillMode = .forwards }, 10, 0.5, 2),
            ("repeat 2, end state is the end", t { $0.duration = 2; $0.repeatCount = 2; $0.fillMode = .forwards }, 10, 1, 1),
            ("repeatDuration 3", t { $0.duration = 2; $0.repeatDuration = 3 }, 2.5, 0.25, 1),
            ("repeatDuration end", t { $0.duration = 2; $0.repeatDuration = 3; $0.fillMode = .forwards }, 3, 0.5, 1),
            ("forever", t { $0.duration = 2; $0.repeatCount = .infinity }, 1001, 0.5, 500),
            ("autoreverse forwards", t { $0.duration = 2; $0.autoreverses = true }, 1, 0.5, 0),
            ("autoreverse back", t { $0.duration = 2; $0.autoreverses = true }, 3, 0.5, 0),
            ("autoreverse back near end", t { $0.duration = 2; $0.autoreverses = true }, 3.5, 0.25, 0),
            ("autoreverse end state", t { $0.duration = 2; $0.autoreverses = true; $0.fillMode = .forwards }, 5, 0, 0),
            ("autoreverse x2, second cycle", t { $0.duration = 1; $0.autoreverses = true; $0.repeatCount = 2 }, 2.25, 0.25, 1),
            ("timeOffset shifts", t { $0.duration = 4; $0.timeOffset = 1 }, 1, 0.5, 0),
            ("timeOffset wraps", t { $0.duration = 4; $0.timeOffset = 3 }, 2, 0.25, 0),
            ("timeOffset end state", t { $0.duration = 4; $0.timeOffset = 1; $0.fillMode = .forwards }, 9, 0.25, 0),
            ("paused with speed 0 at timeOffset", t { $0.duration = 4; $0.speed = 0; $0.timeOffset = 3 }, 100, 0.75, 0),
            ("duration 0 takes the fallback 0.25", MediaTiming(), 0.125, 0.5, 0),
        ]
    }()

    @Test(arguments: table)
    func sample(_ name: String, _ timing: MediaTiming, _ time: Double, _ progress: Double?, _ iteration: Int) {
        let s = timing.sample(at: time)
        if let progress {
            #expect(s != nil, "\(name)")
            #expect(abs((s?.progress ?? -1) - progress) < 1e-12, "\(name): \(String(describing: s))")
            #expect(s?.iteration == iteration, "\(name)")
        } else {
            #expect(s == nil, "\(name): \(String(describing: s))")
        }
    }

    @Test func phases() {
        var t = MediaTiming()
        t.duration = 1
        t.beginTime = 2
        t.fillMode = .both
        #expect(t.sample(at: 1)?.phase == .before)
        #expect(t.sample(at: 2.5)?.phase == .active)
        #expect(t.sample(at: 3)?.phase == .after)
    }
}
