import CQuartzite

/// Runs `body` holding the model lock: the one recursive lock that serialises
/// every layer-tree mutation and model read (Apple's CATransaction lock).
/// Callbacks may call back into the library while it is held.
@inlinable @inline(__always)
package func withModelLock<R>(_ body: () throws -> R) rethrows -> R {
    qz_internal_model_lock()
    defer { qz_internal_model_unlock() }
    return try body()
}
