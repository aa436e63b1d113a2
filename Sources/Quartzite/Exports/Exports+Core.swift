import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel
import QuartziteRender

// Errors, reference counting and the media clock.
//
// Threads: every function here may be called from any thread. The error state
// (QZGetLastError, QZGetLastErrorMessage, QZClearLastError) is per thread; the
// error handler and the media time source are one per process, and their
// callbacks run on the thread that records the error or asks for the time.
// Reference counts are atomic: CARetain and CARelease may race with each other.

// MARK: - Errors

/// Returns the calling thread's last recorded error code (QZErrorNone if none).
/// Successful calls do not clear it; use QZClearLastError before a call whose
/// outcome you want to check.
/// Thread safety: the error state is per thread.
@c public func QZGetLastError() -> QZError {
    lastErrorCode()
}

/// Returns the calling thread's last error message, naming the function and
/// the problem, or "" when none is recorded. Borrowed: valid until the next
/// error on this thread.
@c public func QZGetLastErrorMessage() -> UnsafePointer<CChar> {
    let state = qz_internal_error_state()!
    return UnsafeRawPointer(state).advanced(by: MemoryLayout<qz_error_state>.offset(of: \.message)!)
        .assumingMemoryBound(to: CChar.self)
}

/// Resets the calling thread's error to QZErrorNone and its message to "".
@c public func QZClearLastError() {
    clearLastError()
}

/// Installs a process-wide handler called on the failing thread each time an
/// error is recorded (errors raised by the handler itself are recorded but
/// not reported again). NULL removes it.
@c public func QZSetErrorHandler(_ handler: QZErrorHandlerCallback?, _ info: UnsafeMutableRawPointer?) {
    qz_internal_set_error_handler(handler, info)
}

// MARK: - Reference counting

/// Adds a reference to any Quartzite handle and returns it. NULL returns NULL
/// without an error; a pointer that is not a Quartzite handle records
/// QZErrorWrongType and returns NULL.
@c public func CARetain(_ handle: UnsafeRawPointer?) -> UnsafeMutableRawPointer? {
    guard let handle else { return nil }
    guard anyObject(handle) != nil else { return nil }
    return Unmanaged<QZObject>.fromOpaque(handle).retain().toOpaque()
}

/// Drops a reference to any Quartzite handle; the object is freed with its
/// last reference. Releasing NULL does nothing.
/// Thread safety: any thread; a release that may free layers (that of a
/// layer, a value, an animation or a renderer) takes the model lock.
@c public func CARelease(_ handle: UnsafeRawPointer?) {
    guard let handle else { return }
    let tag = readTag(OpaquePointer(handle))
    guard isLiveObjectTag(tag) else {
        wrongType(OpaquePointer(handle), expected: nil, #function)
        return
    }
    releaseHandle(handle, tag: tag)
}

/// Drops the reference behind `handle` (a live object with tag `tag`). A
/// layer is freed under the model lock: its deinit unlinks the layers that
/// point up to it (superlayer links are unretained), and another thread
/// holding the lock must never reach a layer while it is being freed. So a
/// release that may free a layer (that of a layer, or of an object that may
/// hold the last reference to one) takes the lock first.
@inline(__always)
func releaseHandle(_ handle: UnsafeRawPointer, tag: UInt32) {
    let object = Unmanaged<QZObject>.fromOpaque(handle)
    switch ObjectKind(rawValue: UInt16(truncatingIfNeeded: tag)) {
    case .layer, .value, .basicAnimation, .springAnimation, .keyframeAnimation, .animationGroup, .transition, .animation, .renderer:
        withModelLock { object.release() }
    default:
        object.release()
    }
}

/// Returns the type of a Quartzite handle without "Ref" ("CALayer",
/// "CAValue", "CGColor", ...), or NULL when the pointer is NULL or not a live
/// Quartzite handle. Records no error: a query for bindings that need to know
/// what they hold. Borrowed static string.
@c public func QZGetTypeName(_ handle: UnsafeRawPointer?) -> UnsafePointer<CChar>? {
    guard let handle else { return nil }
    let tag = readTag(OpaquePointer(handle))
    guard isLiveObjectTag(tag), let kind = ObjectKind(rawValue: UInt16(truncatingIfNeeded: tag)) else { return nil }
    return UnsafeRawPointer(kind.cTypeName.utf8Start).assumingMemoryBound(to: CChar.self)
}

// MARK: - Media time

/// Returns the current media time in seconds: CLOCK_MONOTONIC, or the source
/// installed with QZSetMediaTimeSource. Thread safety: any thread.
@c public func CACurrentMediaTime() -> CFTimeInterval {
    MediaClock.now(#function)
}

/// Replaces the media clock with `source(info)` for every later time query
/// (animations, display links, renderers), e.g. to step time in tests or
/// render offline. NULL restores CLOCK_MONOTONIC. The source is called on
/// whichever thread asks for the time. A source returning NaN or an infinity
/// records QZErrorNotFinite and the monotonic clock is used for that query.
@c public func QZSetMediaTimeSource(_ source: QZMediaTimeSourceCallback?, _ info: UnsafeMutableRawPointer?) {
    qz_internal_set_time_source(source, info)
}

// MARK: - Typed Retain / Release

/// The body of every typed XRetain: NULL returns NULL without an error; a
/// handle of another type records QZErrorWrongType and returns NULL.
@inline(__always)
func retainTyped<T: Handle>(_ handle: OpaquePointer?, as type: T.Type, _ function: StaticString) -> OpaquePointer? {
    guard let handle else { return nil }
    guard let o = object(handle, as: type, function) else { return nil }
    _ = Unmanaged.passUnretained(o).retain()
    return handle
}

/// The body of every typed XRelease: NULL does nothing; a handle of
/// another type records QZErrorWrongType.
@inline(__always)
func releaseTyped<T: Handle>(_ handle: OpaquePointer?, as type: T.Type, _ function: StaticString) {
    guard let handle else { return }
    guard let o = object(handle, as: type, function) else { return }
    Unmanaged.passUnretained(o).release()
}
