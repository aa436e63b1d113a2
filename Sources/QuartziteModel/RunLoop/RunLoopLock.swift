import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import Glibc

/// The one lock of the run-loop domain: run loops' timer, display-link and
/// perform lists, timers' and display links' state, the display's refresh
/// rate and the registry of run loops. Recursive, because freeing a run loop
/// or a link (which may happen while it is held) takes it again. Callbacks
/// into the host are never made while it is held, except the info-release
/// callbacks of objects freed by a run loop's own deinit.
package final class RunLoopLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    package init() {
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    @inline(__always)
    package func with<R>(_ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

package let runLoopLock = RunLoopLock()

/// Apple's mode names (kCFRunLoopDefaultMode, kCFRunLoopCommonModes).
package enum RunLoopMode {
    package static let defaultMode = "kCFRunLoopDefaultMode"
    package static let commonModes = "kCFRunLoopCommonModes"
}
