import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel
import QuartziteRender

// CADisplayLink: a timer on the media clock's frame grid (or stepped by a
// host that owns vsync with QZDisplayLinkStep), and the display it ticks for.
//
// Threads: configuration calls work from any thread. A link's callback runs on
// the thread of the run loop it is in, or on the thread that steps it, and may
// call back into the library (even invalidate its own link).

// MARK: - CADisplayLink

/// Makes a display link that calls `fn(link, info)` once per display frame
/// (every frameInterval-th) while it is in a running run loop and not
/// paused. The callback runs on the thread of the run loop it is in (or on
/// the thread calling QZDisplayLinkStep). The link holds `info` until it is
/// invalidated or freed; QZDisplayLinkSetInfoRelease sets how it is
/// released. Returns +1 (CARelease); NULL with an error for a NULL `fn`.
@c public func CADisplayLinkCreate(_ fn: CADisplayLinkCallback?, _ info: UnsafeMutableRawPointer?) -> CADisplayLinkRef? {
    guard let fn = requireNonNull(fn, "fn", #function) else { return nil }
    let link = DisplayLink { l in fn(borrowedHandle(l), info) }
    link.info = info
    return retainedHandle(link)
}

/// Sets the function that releases the link's `info`: called once with it,
/// on the thread that invalidates the link (CADisplayLinkInvalidate) or drops
/// its last reference. NULL: none.
@c public func QZDisplayLinkSetInfoRelease(_ link: CADisplayLinkRef?, _ release: QZInfoReleaseCallback?) {
    guard let l = object(link, as: DisplayLink.self) else { return }
    let info = l.info
    // (The host's function runs as a host call: errors it records stay its own.)
    l.setRelease(release.map { fn in { hostCall { fn(info) } } })
}

/// Registers the link with `rl` for `mode` (kCFRunLoopCommonModes: every
/// common mode); the run loop retains it. The first callback is for the
/// first display frame after this call. A link may be in several modes and
/// run loops. An invalidated link is refused (QZErrorInvalidState). Any thread.
@c public func CADisplayLinkAddToRunLoop(_ link: CADisplayLinkRef?, _ rl: QZCFRunLoopRef?, _ mode: UnsafePointer<CChar>?) {
    guard let l = object(link, as: DisplayLink.self), let loop = object(rl, as: RunLoop.self),
          let name = requireMode(mode, #function) else { return }
    if !l.add(to: loop, mode: name) {
        recordError(QZErrorInvalidState, #function, "the display link is invalidated")
    }
}

/// Removes the link from `mode` of `rl`; the loop releases it when it is in
/// none of its modes. Any thread.
@c public func CADisplayLinkRemoveFromRunLoop(_ link: CADisplayLinkRef?, _ rl: QZCFRunLoopRef?, _ mode: UnsafePointer<CChar>?) {
    guard let l = object(link, as: DisplayLink.self), let loop = object(rl, as: RunLoop.self),
          let name = requireMode(mode, #function) else { return }
    l.remove(from: loop, mode: name)
}

/// Removes the link from every run loop and mode, drops its target and
/// releases its info (once, on the calling thread). It never fires again.
/// Invalidating twice does nothing. Any thread, including its own callback.
@c public func CADisplayLinkInvalidate(_ link: CADisplayLinkRef?) {
    object(link, as: DisplayLink.self)?.invalidate()
}

/// Display frames per callback (default 1).
@c public func CADisplayLinkGetFrameInterval(_ link: CADisplayLinkRef?) -> Int {
    withObject(link, as: DisplayLink.self, fallback: 0) { $0.frameInterval }
}

/// Sets the frames per callback: 2 calls every other frame. Less than 1 is
/// an error (QZErrorInvalidArgument; Apple calls it a programmer error) and
/// changes nothing.
@c public func CADisplayLinkSetFrameInterval(_ link: CADisplayLinkRef?, _ frameInterval: Int) {
    guard let l = object(link, as: DisplayLink.self) else { return }
    guard frameInterval >= 1 else {
        recordError(QZErrorInvalidArgument, #function, "frameInterval must be at least 1, got \(frameInterval)")
        return
    }
    l.frameInterval = frameInterval
}

/// True while the link's notifications are suspended (default false).
@c public func CADisplayLinkGetPaused(_ link: CADisplayLinkRef?) -> Bool {
    withObject(link, as: DisplayLink.self, fallback: false) { $0.paused }
}

/// Suspends or resumes the callbacks. Frames that pass while paused are not
/// delivered later; after resuming, the first callback is for the next frame.
@c public func CADisplayLinkSetPaused(_ link: CADisplayLinkRef?, _ paused: Bool) {
    object(link, as: DisplayLink.self)?.paused = paused
}

/// The time between display frames (1 / refresh rate); 0 before the first
/// callback (Apple leaves it undefined until then).
@c public func CADisplayLinkGetDuration(_ link: CADisplayLinkRef?) -> CFTimeInterval {
    withObject(link, as: DisplayLink.self, fallback: 0) { $0.duration }
}

/// The media time of the frame the last callback was for (a point of the
/// display's grid k / rate, or the time given to QZDisplayLinkStep); 0 before
/// the first callback.
@c public func CADisplayLinkGetTimestamp(_ link: CADisplayLinkRef?) -> CFTimeInterval {
    withObject(link, as: DisplayLink.self, fallback: 0) { $0.timestamp }
}

/// When the frame after the last callback's is shown: timestamp +
/// frameInterval * duration (Apple's targetTimestamp); 0 before the first callback.
@c public func CADisplayLinkGetTargetTimestamp(_ link: CADisplayLinkRef?) -> CFTimeInterval {
    withObject(link, as: DisplayLink.self, fallback: 0) { $0.targetTimestamp }
}

/// Writes the CVTimeStamp of the last callback's frame to `out` and returns
/// true (all zero before the first callback). Video time counts display
/// frames (videoTimeScale = the refresh rate, videoRefreshPeriod = 1) when
/// the rate is a whole number, else nanoseconds. hostTime is on
/// CVGetCurrentHostTime's clock: the frame's time when the media clock is
/// the real one, the moment of delivery under a custom time source. Flags:
/// video time, host time, refresh period and rate scalar (1) valid.
@c public func QZDisplayLinkGetCVTimeStamp(_ link: CADisplayLinkRef?, _ out: UnsafeMutablePointer<CVTimeStamp>?) -> Bool {
    guard let l = object(link, as: DisplayLink.self) else { return false }
    guard let out else {
        recordError(QZErrorNullArgument, #function, "out is NULL")
        return false
    }
    out.pointee = l.cvTimeStamp
    return true
}

/// For hosts that own vsync: tells the link its display showed a frame at
/// `timestamp` (media time). Every frameInterval-th step calls the target at
/// once, on the calling thread, with that timestamp (unless paused). Works
/// whether or not the link is in a run loop (a host-driven link usually is
/// not). Errors: NaN or infinite timestamp (QZErrorNotFinite), an
/// invalidated link (QZErrorInvalidState).
@c public func QZDisplayLinkStep(_ link: CADisplayLinkRef?, _ timestamp: CFTimeInterval) {
    guard let l = object(link, as: DisplayLink.self), requireFinite(timestamp, "timestamp", #function) else { return }
    if !l.step(timestamp: timestamp) {
        recordError(QZErrorInvalidState, #function, "the display link is invalidated")
    }
}

// MARK: - The display

/// Sets the refresh rate of the display every link follows (default 60 Hz):
/// frame k is shown at media time k / hz. Must be finite and in (0, 10000];
/// otherwise an error and no change. Any thread (wakes every run loop).
@c public func QZDisplaySetRefreshRate(_ hz: Double) {
    guard requireFinite(hz, "hz", #function) else { return }
    guard hz > 0, hz <= 10_000 else {
        recordError(QZErrorInvalidArgument, #function, "the refresh rate must be in (0, 10000] Hz, got \(hz)")
        return
    }
    Display.refreshRate = hz
}

/// The display's refresh rate in Hz (default 60).
@c public func QZDisplayGetRefreshRate() -> Double {
    Display.refreshRate
}
