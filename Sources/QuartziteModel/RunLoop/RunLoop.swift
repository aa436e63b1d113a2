import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import Glibc

/// A function queued with QZRunLoopPerformFunction (Apple's CFRunLoopPerformBlock).
package struct PerformItem {
    package let mode: String
    package let body: () -> Void
}

/// One activation of a run loop (CFRunLoopRunInMode), innermost last.
package final class RunActivation {
    package let mode: String
    package var stopped = false
    package init(mode: String) { self.mode = mode }
}

/// A thread's run loop (Apple's CFRunLoop): timers, display links and
/// performed functions, run in modes, on the thread that owns it. Waiting is
/// done on a wait port (an epoll set of an eventfd and a timerfd) whose
/// descriptor a host may poll instead (QZRunLoopGetFileDescriptor).
///
/// **Time**: everything is on the media clock. With the real clock (no
/// QZSetMediaTimeSource), the loop sleeps until the next deadline. With a
/// custom time source (or `clock` set by a Swift test) it never sleeps in
/// real time: it polls its wake port without blocking and asks the source
/// again, so the source must advance by itself (e.g. a little on every call);
/// while the source stands still, each wait yields for at most 1 ms of real
/// time so another thread can move it.
public final class RunLoop: QZObject, Handle {
    @inlinable package static var handleKind: ObjectKind { .runLoop }
    @inlinable package static func accepts(_ tag: UInt32) -> Bool { tag == tagMagic | UInt32(ObjectKind.runLoop.rawValue) }

    /// The kernel id of the thread that owns (runs) this loop.
    package let ownerThread: Int32
    package var port = qz_wait_port(epoll_fd: -1, event_fd: -1, timer_fd: -1)
    /// A replacement for the media clock (Swift tests); set before use.
    public var clock: (() -> Double)?

    // Guarded by runLoopLock.
    package var timers: [RunLoopTimer] = []
    package var links: [DisplayLink] = []
    package var performs: [PerformItem] = []
    package var commonModes: Set<String> = [RunLoopMode.defaultMode]
    package var activations: [RunActivation] = []
    package var isWaiting = false
    /// The media time at the previous simulated wait (to notice a source that stands still).
    package var lastSimulatedTime = -Double.infinity

    /// A run loop owned by the thread `owner` (the calling thread by
    /// default); nil when the kernel refuses the descriptors of its wait port.
    public init?(owner: Int32 = qz_internal_thread_id()) {
        ownerThread = owner
        super.init(kind: .runLoop)
        guard qz_internal_wait_port_open(&port) == 0 else { return nil }
        RunLoopRegistry.register(self)
    }

    deinit {
        RunLoopRegistry.unregister(self)
        // Apple invalidates a freed run loop's timers; links just leave it.
        let (dropped, freedLinks): ([RunLoopTimer], [DisplayLink]) = runLoopLock.with {
            let t = timers, l = links
            timers = []
            links = []
            for timer in t { timer.runLoop = nil }
            for link in l { link.registrations.removeAll { $0.loop === self } }
            return (t, l)
        }
        for timer in dropped { timer.invalidate() }
        _ = freedLinks
        qz_internal_wait_port_close(&port)
    }

    /// True when the calling thread owns this loop.
    public var isCurrent: Bool { qz_internal_thread_id() == ownerThread }

    /// Now on this loop's clock.
    package func now() -> Double { clock?() ?? MediaClock.now() }

    /// True when time is simulated (a custom source or a test clock): the
    /// loop then never sleeps in real time.
    package var isSimulated: Bool {
        clock != nil || MediaClock.hasCustomSource
    }

    /// Makes the wait port readable: a waiting turn wakes, a polling host sees work.
    public func wakeUp() { qz_internal_wait_port_signal(port.event_fd) }

    /// The descriptor a host may poll: readable while the loop has work.
    public var fileDescriptor: Int32 { port.epoll_fd }

    /// CFRunLoopStop: the innermost activation returns kCFRunLoopRunStopped
    /// after its current turn. Does nothing when the loop is not running.
    public func stop() {
        runLoopLock.with { activations.last?.stopped = true }
        wakeUp()
    }

    public var waiting: Bool { runLoopLock.with { isWaiting } }

    public func addCommonMode(_ mode: String) {
        runLoopLock.with { _ = commonModes.insert(mode) }
        wakeUp()
    }

    /// Queues `body` to run once on this loop's thread in a turn of `mode`
    /// (or of any common mode, for kCFRunLoopCommonModes), and wakes the loop.
    public func perform(mode: String, _ body: @escaping () -> Void) {
        runLoopLock.with { performs.append(PerformItem(mode: mode, body: body)) }
        wakeUp()
    }

    /// Under runLoopLock: whether an item registered for `itemModes` runs in `mode`.
    package func matches(_ itemModes: Set<String>, _ mode: String) -> Bool {
        itemModes.contains(mode) || (itemModes.contains(RunLoopMode.commonModes) && commonModes.contains(mode))
    }

    package func matches(_ itemMode: String, _ mode: String) -> Bool {
        itemMode == mode || (itemMode == RunLoopMode.commonModes && commonModes.contains(mode))
    }
}

/// Which run loop each thread has, the main one, and every live loop's owner
/// and wake descriptor (for runLoopWake and wakeAll).
///
/// **The main run loop** is the run loop of the process's main thread (the
/// thread whose kernel id is the process id), whichever thread asks first;
/// it lives for the life of the process. Other threads' loops are made on
/// demand by CFRunLoopGetCurrent and freed when their thread exits.
package enum RunLoopRegistry {
    nonisolated(unsafe) private static var wakeDescriptors: [ObjectIdentifier: (owner: Int32, fd: Int32)] = [:]
    nonisolated(unsafe) private static var mainLoop: RunLoop?

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            // The thread is exiting: drop its run loop's reference.
            if let pointer { Unmanaged<RunLoop>.fromOpaque(pointer).release() }
        }
        return key
    }()

    package static func register(_ loop: RunLoop) {
        runLoopLock.with { wakeDescriptors[ObjectIdentifier(loop)] = (loop.ownerThread, loop.port.event_fd) }
    }

    package static func unregister(_ loop: RunLoop) {
        runLoopLock.with { _ = wakeDescriptors.removeValue(forKey: ObjectIdentifier(loop)) }
    }

    package static func wakeAll() {
        runLoopLock.with {
            for d in wakeDescriptors.values { qz_internal_wait_port_signal(d.fd) }
        }
    }

    /// Signals the wait port of every live loop owned by thread `owner`.
    package static func wake(owner: Int32) {
        runLoopLock.with {
            for d in wakeDescriptors.values where d.owner == owner { qz_internal_wait_port_signal(d.fd) }
        }
    }

    /// The process main thread's run loop (made on first use).
    package static func main() -> RunLoop? {
        runLoopLock.with {
            if mainLoop == nil { mainLoop = RunLoop(owner: qz_internal_process_id()) }
            return mainLoop
        }
    }

    /// The calling thread's run loop (made on first use).
    package static func current() -> RunLoop? {
        if qz_internal_thread_id() == qz_internal_process_id() { return main() }
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<RunLoop>.fromOpaque(pointer).takeUnretainedValue()
        }
        guard let loop = RunLoop() else { return nil }
        pthread_setspecific(key, Unmanaged.passRetained(loop).toOpaque())
        return loop
    }
}
