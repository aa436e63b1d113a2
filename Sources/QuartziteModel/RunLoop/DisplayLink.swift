import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics

/// A display link (Apple's CADisplayLink): calls its target once per display
/// frame (every `frameInterval` frames) while it is in a run loop that runs in
/// one of its modes and it is not paused. Frames are those of the display's
/// grid (see Display); a link that falls behind skips to the latest due
/// frame rather than catching up. The first callback after a link is added
/// (or unpaused) is for the first frame after that moment.
public final class DisplayLink: QZObject, Handle {
    @inlinable package static var handleKind: ObjectKind { .displayLink }
    @inlinable package static func accepts(_ tag: UInt32) -> Bool { tag == tagMagic | UInt32(ObjectKind.displayLink.rawValue) }

    /// A run loop the link is in. The loop is not retained (it retains the
    /// link); a loop being freed removes its registrations under runLoopLock,
    /// and loops are only used under that lock. (A weak reference would do
    /// too, but gives the main run loop, which is never freed, a side table
    /// that valgrind reports as lost.)
    package struct Registration {
        package unowned(unsafe) let loop: RunLoop
        package var modes: Set<String>
    }

    /// Frame intervals are capped here internally (so arithmetic cannot overflow).
    package static let maximumInterval: Int64 = 1 << 40

    /// The C target's info (set once by CADisplayLinkCreate).
    package var info: UnsafeMutableRawPointer?

    // Guarded by runLoopLock.
    package var callback: ((DisplayLink) -> Void)?
    package var release: (() -> Void)?
    package var registrations: [Registration] = []
    package var isValid = true
    package var isPaused = false
    package var interval = 1
    /// `interval` as a step count, capped (under runLoopLock; the setter keeps it >= 1).
    package var frameStep: Int64 { Int64(min(interval, Int(Self.maximumInterval))) }
    /// The index of the last frame delivered, or of the frame current when
    /// the link was added or unpaused (nil before either), on the grid of
    /// `lastFrameRate`. An index, not a time: k / rate does not map back to
    /// k once k * rate is past 2^53 ulps' worth of tolerance (a monotonic
    /// clock after months of uptime).
    package var lastFrame: Int64?
    package var lastFrameRate = 60.0
    package var stamp = CVTimeStamp()
    package var lastTimestamp = 0.0
    package var lastDuration = 0.0
    package var lastTarget = 0.0
    /// Host-driven frames since the last callback (QZDisplayLinkStep).
    package var steps: Int64 = 0

    public init(callback: @escaping (DisplayLink) -> Void) {
        self.callback = callback
        super.init(kind: .displayLink)
    }

    deinit {
        release?()
    }

    public func setRelease(_ body: (() -> Void)?) {
        runLoopLock.with { release = body }
    }

    public var valid: Bool { runLoopLock.with { isValid } }

    /// Frames per callback (>= 1; the export layer rejects less).
    public var frameInterval: Int {
        get { runLoopLock.with { interval } }
        set { runLoopLock.with { interval = max(1, newValue) }; wakeLoops() }
    }

    public var paused: Bool {
        get { runLoopLock.with { isPaused } }
        set {
            let now = clockNow()
            runLoopLock.with {
                if isPaused && !newValue {
                    // Frames that passed while paused are not owed.
                    let grid = FrameGrid(rate: Display.rate)
                    lastFrame = grid.index(at: now)
                    lastFrameRate = grid.rate
                }
                isPaused = newValue
            }
            wakeLoops()
        }
    }

    /// The time of the last frame delivered (0 before the first).
    public var timestamp: Double { runLoopLock.with { lastTimestamp } }
    /// The time between display frames (0 before the first callback, as
    /// Apple leaves it undefined until then).
    public var duration: Double { runLoopLock.with { lastDuration } }
    /// When the next callback's frame is shown: timestamp + frameInterval * duration.
    public var targetTimestamp: Double { runLoopLock.with { lastTarget } }
    /// The CVTimeStamp of the last frame delivered (all zero before the first).
    public var cvTimeStamp: CVTimeStamp { runLoopLock.with { stamp } }

    /// The media time on the clock of the first loop the link is in (or the media clock).
    package func clockNow() -> Double {
        let clock: (() -> Double)? = runLoopLock.with { registrations.first?.loop.clock }
        return clock?() ?? MediaClock.now()
    }

    package func wakeLoops() {
        runLoopLock.with {
            for registration in registrations { registration.loop.wakeUp() }
        }
    }

    /// CADisplayLinkAddToRunLoop. False (nothing done) once invalidated.
    @discardableResult
    public func add(to loop: RunLoop, mode: String) -> Bool {
        let now = loop.now()
        let ok: Bool = runLoopLock.with {
            guard isValid else { return false }
            if registrations.isEmpty {
                let grid = FrameGrid(rate: Display.rate)
                lastFrame = grid.index(at: now)
                lastFrameRate = grid.rate
            }
            if let i = registrations.firstIndex(where: { $0.loop === loop }) {
                registrations[i].modes.insert(mode)
            } else {
                registrations.append(Registration(loop: loop, modes: [mode]))
                loop.links.append(self)
            }
            return true
        }
        if ok { loop.wakeUp() }
        return ok
    }

    /// CADisplayLinkRemoveFromRunLoop: the loop lets go of the link when it
    /// is in none of the loop's modes any more.
    public func remove(from loop: RunLoop, mode: String) {
        runLoopLock.with {
            guard let i = registrations.firstIndex(where: { $0.loop === loop }) else { return }
            registrations[i].modes.remove(mode)
            if registrations[i].modes.isEmpty {
                registrations.remove(at: i)
                loop.links.removeAll { $0 === self }
            }
        }
    }

    /// CADisplayLinkInvalidate: leaves every run loop, drops the target and
    /// releases its info (once).
    public func invalidate() {
        let (r, dropped): ((() -> Void)?, ((DisplayLink) -> Void)?) = runLoopLock.with {
            guard isValid else { return (nil, nil) }
            isValid = false
            for registration in registrations {
                registration.loop.links.removeAll { $0 === self }
            }
            registrations = []
            let r = release, c = callback
            release = nil
            callback = nil
            return (r, c)
        }
        _ = dropped
        r?()
    }

    /// Under runLoopLock: the modes the link has in `loop`.
    package func modes(in loop: RunLoop) -> Set<String>? {
        registrations.first(where: { $0.loop === loop })?.modes
    }

    /// Under runLoopLock: if a frame is due at `now`, records it as delivered
    /// and returns the callback to call.
    package func takeDueFrame(now: Double, simulated: Bool) -> ((DisplayLink) -> Void)? {
        guard isValid, !isPaused, let callback else { return nil }
        let grid = FrameGrid(rate: Display.rate)
        let current = grid.index(at: now)
        let n = frameStep
        let frame = FrameGrid.floorMultiple(current, n)
        if let last = lastIndex(on: grid), frame <= last { return nil }
        record(frame: frame, interval: n, grid: grid, hostTime: simulated ? qz_internal_monotonic_nanoseconds() : nil)
        return callback
    }

    /// Under runLoopLock: the media time of the next frame this link owes
    /// (`now` if one is due), or nil when it owes none (paused, invalid).
    package func nextFrameTime(now: Double) -> Double? {
        guard isValid, !isPaused, callback != nil else { return nil }
        let grid = FrameGrid(rate: Display.rate)
        let current = grid.index(at: now)
        let n = frameStep
        let last = lastIndex(on: grid) ?? current
        if FrameGrid.floorMultiple(current, n) > last { return now }
        let next = FrameGrid.floorMultiple(max(last, current), n) + n
        return grid.time(of: next)
    }

    /// Under runLoopLock: the last frame's index on `grid` (converted
    /// through its time when the refresh rate changed since).
    package func lastIndex(on grid: FrameGrid) -> Int64? {
        guard let lastFrame else { return nil }
        if lastFrameRate == grid.rate { return lastFrame }
        return grid.index(at: FrameGrid(rate: lastFrameRate).time(of: lastFrame))
    }

    /// Under runLoopLock: makes `frame` the delivered one.
    package func record(frame: Int64, interval n: Int64, grid: FrameGrid, hostTime: UInt64?) {
        let t = grid.time(of: frame)
        lastFrame = frame
        lastFrameRate = grid.rate
        fill(timestamp: t, interval: n, rate: grid.rate, videoFrame: frame, hostTime: hostTime)
    }

    /// Under runLoopLock: the properties and CVTimeStamp of a delivered frame.
    /// Video time counts display frames when the rate is a whole number
    /// (videoTimeScale = rate, videoRefreshPeriod = 1), else nanoseconds.
    /// Host time is the frame time on CVGetCurrentHostTime's clock when the
    /// media clock is the real one, and the moment of delivery otherwise.
    package func fill(timestamp t: Double, interval n: Int64, rate: Double, videoFrame: Int64?, hostTime: UInt64?) {
        lastTimestamp = t
        lastDuration = 1 / rate
        lastTarget = t + Double(n) / rate
        var s = CVTimeStamp()
        s.version = 0
        if rate == rate.rounded(), rate <= Double(Int32.max), let frame = videoFrame {
            s.videoTimeScale = Int32(rate)
            s.videoTime = frame
            s.videoRefreshPeriod = 1
        } else {
            s.videoTimeScale = 1_000_000_000
            s.videoTime = Self.clampedInt64(t * 1e9)
            s.videoRefreshPeriod = Self.clampedInt64(1e9 / rate)
        }
        if let hostTime {
            s.hostTime = hostTime
        } else {
            let ns = (t * 1e9).rounded()
            s.hostTime = ns > 0 && ns < 1.8e19 ? UInt64(ns) : 0
        }
        s.rateScalar = 1
        s.flags = UInt64(kCVTimeStampVideoTimeValid | kCVTimeStampHostTimeValid
            | kCVTimeStampVideoRefreshPeriodValid | kCVTimeStampRateScalarValid)
        stamp = s
    }

    package static func clampedInt64(_ x: Double) -> Int64 {
        guard x.isFinite else { return 0 }
        let r = x.rounded()
        if r >= 9.2e18 { return Int64.max }
        if r <= -9.2e18 { return Int64.min }
        return Int64(r)
    }

    /// QZDisplayLinkStep: the host's display showed a frame at `timestamp`;
    /// calls the target (on the calling thread) every `frameInterval`-th
    /// step, unless paused. False when the link is invalidated.
    @discardableResult
    public func step(timestamp: Double) -> Bool {
        let simulated = MediaClock.hasCustomSource
        let result: (ok: Bool, call: ((DisplayLink) -> Void)?) = runLoopLock.with {
            guard isValid else { return (false, nil) }
            guard !isPaused, let callback else { return (true, nil) }
            let n = frameStep
            steps += 1
            guard steps >= n else { return (true, nil) }
            steps = 0
            let grid = FrameGrid(rate: Display.rate)
            fill(timestamp: timestamp, interval: n, rate: grid.rate, videoFrame: grid.index(at: timestamp),
                 hostTime: simulated ? qz_internal_monotonic_nanoseconds() : nil)
            return (true, callback)
        }
        if let call = result.call { hostCall { call(self) } }
        return result.ok
    }
}
