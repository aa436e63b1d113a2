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

/// A simulated media clock for one run loop: starts at `start` and advances
/// by `step` on every read, so a run never sleeps in real time.
final class SteppingClock {
    var time: Double
    let step: Double
    var reads = 0
    init(start: Double, step: Double) { time = start; self.step = step }
    func read() -> Double {
        reads += 1
        time += step
        return time
    }
}

/// Whether the loop's port is (or, after a turn or two, becomes) not
/// readable. Other tests running beside this one may call
/// runLoopWakeAllSleeping, which signals every loop; a turn consumes that.
func settlesUnreadable(_ loop: RunLoop) -> Bool {
    for _ in 0..<3 {
        if qz_internal_wait_port_is_readable(&loop.port) == 0 { return true }
        _ = loop.runOnce()
    }
    return false
}

/// A run loop on the calling thread driven by a stepping clock.
func simulatedLoop(start: Double = 100, step: Double = 1e-3) -> (RunLoop, SteppingClock) {
    let loop = RunLoop()!
    let clock = SteppingClock(start: start, step: step)
    loop.clock = clock.read
    return (loop, clock)
}

@Suite struct DisplayLinkTests {
    @Test func oneSimulatedSecondAt60HzGivesExactly60FramesOnTheGrid() {
        let (loop, _) = simulatedLoop(start: 100, step: 1e-3)
        var stamps: [Double] = []
        let link = DisplayLink { stamps.append($0.timestamp) }
        link.add(to: loop, mode: RunLoopMode.defaultMode)
        let result = loop.run(mode: RunLoopMode.defaultMode, seconds: 1, returnAfterSourceHandled: false)
        #expect(result == .timedOut)
        #expect(stamps.count == 60)
        // Added during frame 6000 (t = 100): frames 6001 ... 6060, each k / 60 exactly.
        #expect(stamps == (6001...6060).map { Double($0) / 60 })
        #expect(link.duration == 1.0 / 60)
        #expect(link.targetTimestamp == 6060.0 / 60 + 1.0 / 60)
        link.invalidate()
    }

    @Test func frameInterval2Gives30AndPausedGivesNone() {
        let (loop, _) = simulatedLoop(start: 50, step: 1e-3)
        var stamps: [Double] = []
        let link = DisplayLink { stamps.append($0.timestamp) }
        link.frameInterval = 2
        link.add(to: loop, mode: RunLoopMode.commonModes)
        _ = loop.run(mode: RunLoopMode.defaultMode, seconds: 1, returnAfterSourceHandled: false)
        #expect(stamps.count == 30)
        #expect(stamps == stride(from: 3002, through: 3060, by: 2).map { Double($0) / 60 })

        stamps = []
        link.paused = true
        let result = loop.run(mode: RunLoopMode.defaultMode, seconds: 1, returnAfterSourceHandled: false)
        #expect(result == .timedOut)      // a paused link still keeps the mode alive
        #expect(stamps.isEmpty)
        link.invalidate()
    }

    @Test func tenSimulatedMinutesStayOnTheGrid() {
        // 36,000 frames; every timestamp is exactly k / 60, none missing or repeated.
        let (loop, _) = simulatedLoop(start: 1000, step: 4e-3)
        var count = 0
        var offGrid = 0
        var expected: Int64 = 60_001
        let link = DisplayLink { l in
            if l.timestamp != Double(expected) / 60 { offGrid += 1 }
            expected += 1
            count += 1
        }
        link.add(to: loop, mode: RunLoopMode.defaultMode)
        _ = loop.run(mode: RunLoopMode.defaultMode, seconds: 600, returnAfterSourceHandled: false)
        #expect(count == 36_000)
        #expect(offGrid == 0)
        #expect(link.timestamp == 96_000.0 / 60)
        link.invalidate()
    }

    @Test func framesStayExactAfterAYearOfUptime() {
        // CLOCK_MONOTONIC counts from boot: frame indices near 1.9e9.
        let (loop, _) = simulatedLoop(start: 31_536_000, step: 1e-3)
        var stamps: [Double] = []
        let link = DisplayLink { stamps.append($0.timestamp) }
        link.add(to: loop, mode: RunLoopMode.defaultMode)
        _ = loop.run(mode: RunLoopMode.defaultMode, seconds: 1, returnAfterSourceHandled: false)
        let first: Int64 = 31_536_000 * 60 + 1
        #expect(stamps == (first..<(first + 60)).map { Double($0) / 60 })
        #expect(link.cvTimeStamp.videoTime == first + 59)
        link.invalidate()
    }

    @Test func lateFramesAreSkippedNotQueued() {
        // Each read advances 0.1 s (6 frames): each turn delivers only the latest frame.
        let (loop, _) = simulatedLoop(start: 10, step: 0.1)
        var stamps: [Double] = []
        let link = DisplayLink { stamps.append($0.timestamp) }
        link.add(to: loop, mode: RunLoopMode.defaultMode)
        _ = loop.run(mode: RunLoopMode.defaultMode, seconds: 1, returnAfterSourceHandled: false)
        #expect(!stamps.isEmpty && stamps.count <= 10)
        for (a, b) in zip(stamps, stamps.dropFirst()) { #expect(b > a) }
        for s in stamps { #expect((s * 60).rounded() == s * 60 || abs((s * 60).rounded() - s * 60) < 1e-6) }
        link.invalidate()
    }

    @Test func invalidateReleasesInfoOnceAndStopsCallbacks() {
        let (loop, _) = simulatedLoop()
        var calls = 0, releases = 0
        let link = DisplayLink { l in
            calls += 1
            if calls == 3 { l.invalidate() }
        }
        link.setRelease { releases += 1 }
        link.add(to: loop, mode: RunLoopMode.defaultMode)
        let result = loop.run(mode: RunLoopMode.defaultMode, seconds: 1, returnAfterSourceHandled: false)
        #expect(calls == 3)
        #expect(releases == 1)
        #expect(result == .finished)      // nothing left in the mode before the second is up
        link.invalidate()
        #expect(releases == 1)
        #expect(!link.add(to: loop, mode: RunLoopMode.defaultMode))
    }

    @Test func stepDrivesTheLinkWithTheHostsTimestamps() {
        var stamps: [Double] = []
        let link = DisplayLink { stamps.append($0.timestamp) }
        link.frameInterval = 3
        for k in 1...9 { link.step(timestamp: Double(k) * 0.01) }
        #expect(stamps == [0.03, 0.06, 0.09])
        link.paused = true
        for k in 10...20 { link.step(timestamp: Double(k) * 0.01) }
        #expect(stamps.count == 3)
        link.invalidate()
        #expect(!link.step(timestamp: 1))
    }

    @Test func frameGridMapsFrameTimesBackToTheirIndex() {
        for rate in [60.0, 59.94, 120, 144, 24] {
            let grid = FrameGrid(rate: rate)
            for k: Int64 in [0, 1, 59, 60, 61, 3_600_000, 216_000_001] {
                #expect(grid.index(at: grid.time(of: k)) == k)
            }
        }
        #expect(FrameGrid.floorMultiple(7, 2) == 6)
        #expect(FrameGrid.floorMultiple(-1, 2) == -2)
        #expect(FrameGrid(rate: 60).index(at: 1e300) == FrameGrid.limit)
    }
}

@Suite struct RunLoopTests {
    @Test func anEmptyModeFinishesAtOnce() {
        let (loop, _) = simulatedLoop()
        #expect(loop.run(mode: RunLoopMode.defaultMode, seconds: 10, returnAfterSourceHandled: false) == .finished)
    }

    @Test func repeatingTimerKeepsItsScheduleAndOneShotFiresOnce() {
        let (loop, clock) = simulatedLoop(start: 0, step: 1e-3)
        var repeating: [Double] = []
        let timer = RunLoopTimer(fireDate: 0.25, interval: 0.25) { t in repeating.append(t.nextFireDate) }
        var oneShot = 0
        let once = RunLoopTimer(fireDate: 0.5, interval: 0) { _ in oneShot += 1 }
        loop.add(timer, mode: RunLoopMode.defaultMode)
        loop.add(once, mode: RunLoopMode.commonModes)
        #expect(loop.contains(once, mode: RunLoopMode.defaultMode))
        #expect(loop.nextTimerFireDate(mode: RunLoopMode.defaultMode) == 0.25)
        let result = loop.run(mode: RunLoopMode.defaultMode, seconds: 1.1, returnAfterSourceHandled: false)
        #expect(result == .timedOut)
        // Fired at 0.25, 0.5, 0.75, 1.0; the next date was already moved on in each callout.
        #expect(repeating == [0.5, 0.75, 1.0, 1.25])
        #expect(oneShot == 1)
        #expect(!once.valid)
        #expect(clock.time >= 1.1)
        var released = 0
        timer.setRelease { released += 1 }
        timer.invalidate()
        timer.invalidate()
        #expect(released == 1)
        #expect(loop.run(mode: RunLoopMode.defaultMode, seconds: 1, returnAfterSourceHandled: false) == .finished)
    }

    @Test func missedTimerFiringsAreSkipped() {
        let (loop, _) = simulatedLoop(start: 0, step: 0.35)
        var fired = 0
        let timer = RunLoopTimer(fireDate: 0.1, interval: 0.1) { _ in fired += 1 }
        loop.add(timer, mode: RunLoopMode.defaultMode)
        _ = loop.run(mode: RunLoopMode.defaultMode, seconds: 0, returnAfterSourceHandled: false)
        #expect(fired == 1)
        #expect(timer.nextFireDate > 0.7 - 1e-9 && timer.nextFireDate <= 0.8 + 1e-9)
        timer.invalidate()
    }

    @Test func performsRunInOrderAndCountAsSources() {
        let (loop, _) = simulatedLoop()
        var order: [Int] = []
        loop.perform(mode: RunLoopMode.defaultMode) { order.append(1) }
        loop.perform(mode: RunLoopMode.commonModes) { order.append(2) }
        loop.perform(mode: "other") { order.append(3) }
        let r = loop.run(mode: RunLoopMode.defaultMode, seconds: 5, returnAfterSourceHandled: true)
        #expect(r == .handledSource)
        #expect(order == [1, 2])
        #expect(loop.run(mode: "other", seconds: 0, returnAfterSourceHandled: false) == .timedOut)
        #expect(order == [1, 2, 3])
    }

    @Test func stopFromACallbackStopsTheInnermostRun() {
        let (loop, _) = simulatedLoop()
        let timer = RunLoopTimer(fireDate: 100.2, interval: 0.1) { _ in loop.stop() }
        loop.add(timer, mode: RunLoopMode.defaultMode)
        #expect(loop.run(mode: RunLoopMode.defaultMode, seconds: 10, returnAfterSourceHandled: false) == .stopped)
        timer.invalidate()
    }

    @Test func thePortIsReadableWhenWorkIsQueuedAndDrainedByATurn() {
        let loop = RunLoop()!
        #expect(settlesUnreadable(loop))
        let done = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        done.pointee = 0
        defer { done.deallocate() }
        var thread = pthread_t()
        let context = Unmanaged.passRetained(loop).toOpaque()
        pthread_create(&thread, nil, { p in
            let l = Unmanaged<RunLoop>.fromOpaque(p!).takeRetainedValue()
            l.perform(mode: RunLoopMode.defaultMode) {}
            return nil
        }, context)
        pthread_join(thread, nil)
        #expect(qz_internal_wait_port_is_readable(&loop.port) == 1)
        #expect(loop.runOnce() == .timedOut)
        #expect(settlesUnreadable(loop))
        loop.wakeUp()
        #expect(qz_internal_wait_port_is_readable(&loop.port) == 1)
        #expect(loop.runOnce() == .finished)
        #expect(settlesUnreadable(loop))
    }

    @Test func wakeAllSignalsEveryLoop() {
        let a = RunLoop()!, b = RunLoop()!
        _ = a.runOnce()
        _ = b.runOnce()
        #expect(settlesUnreadable(a))
        runLoopWakeAllSleeping()
        #expect(qz_internal_wait_port_is_readable(&a.port) == 1)
        #expect(qz_internal_wait_port_is_readable(&b.port) == 1)
    }

    @Test func realTimeTimerArmsThePort() {
        let loop = RunLoop()!
        let timer = RunLoopTimer(fireDate: MediaClock.now() + 0.02, interval: 0) { _ in }
        loop.add(timer, mode: RunLoopMode.defaultMode)
        _ = loop.runOnce()                                   // drains the wake-up, arms for +20 ms
        #expect(settlesUnreadable(loop))
        // The timer makes it readable (a wake-up from a test running beside
        // this one may come first: then wait again).
        let give_up = MediaClock.now() + 2
        while timer.valid && MediaClock.now() < give_up {
            #expect(qz_internal_wait_port_wait(&loop.port, 1.0) == 1)
            _ = loop.runOnce()
        }
        #expect(!timer.valid)
    }
}
