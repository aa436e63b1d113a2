import CQuartzite

/// Records `code` and a message naming `function` in the calling thread's error
/// slot, then tells the host's error handler (not re-entrantly).
@usableFromInline @inline(never)
package func recordError(_ code: QZError, _ function: StaticString, _ problem: String) {
    // Swift's #function is "Name(_:_:)"; the C name is the part before "(".
    var name = function.description
    if let paren = name.firstIndex(of: "(") { name = String(name[..<paren]) }
    record(code, name + ": " + problem)
}

/// recordError for the exports written in C (Sources/CQuartzite): the same
/// slot, message style and handler. Not exported (exports.map).
@c func qz_internal_record_error(_ code: UInt32, _ function: UnsafePointer<CChar>, _ problem: UnsafePointer<CChar>) {
    record(QZError(rawValue: code), String(cString: function) + ": " + String(cString: problem))
}

private func record(_ code: QZError, _ message: String) {
    let state = qz_internal_error_state()!
    state.pointee.code = Int32(bitPattern: code.rawValue)
    withUnsafeMutableBytes(of: &state.pointee.message) { buffer in
        let capacity = buffer.count - 1
        var written = 0
        for byte in message.utf8 {
            if written == capacity { break }
            buffer[written] = byte
            written += 1
        }
        buffer[written] = 0
    }
    guard state.pointee.in_handler == 0 else { return }
    var info: UnsafeMutableRawPointer? = nil
    guard let handler = qz_internal_get_error_handler(&info) else { return }
    state.pointee.in_handler = 1
    withUnsafeBytes(of: &state.pointee.message) { buffer in
        handler(code, buffer.baseAddress!.assumingMemoryBound(to: CChar.self), info)
    }
    state.pointee.in_handler = 0
}

public func lastErrorCode() -> QZError {
    QZError(rawValue: UInt32(bitPattern: qz_internal_error_state()!.pointee.code))
}

public func lastErrorMessage() -> String {
    withUnsafeBytes(of: &qz_internal_error_state()!.pointee.message) { buffer in
        String(cString: buffer.baseAddress!.assumingMemoryBound(to: CChar.self))
    }
}

public func clearLastError() {
    let state = qz_internal_error_state()!
    state.pointee.code = 0
    state.pointee.message.0 = 0
}

// MARK: - Argument checks shared by the export layer

// The finiteness checks, one family with one message style: each returns
// true for a good value, or records QZErrorNotFinite ("<what> must be
// finite, got <value>" / "<what> must not be NaN") and returns false.
// Geometry that may be infinite (CGRectInfinite, the null rectangle) and
// numbers where infinity means "forever" use the NaN-only checks.

/// Records the error for a value that is not finite; false.
@usableFromInline @inline(never)
package func reportNotFinite(_ v: Double, _ function: StaticString, what: StaticString = "argument") -> Bool {
    recordError(QZErrorNotFinite, function, "\(what) must be finite, got \(v)")
    return false
}

/// Records the error for a NaN; false.
@usableFromInline @inline(never)
package func reportNaN(_ what: StaticString, _ function: StaticString) -> Bool {
    recordError(QZErrorNotFinite, function, "\(what) must not be NaN")
    return false
}

/// True when `x` is finite; otherwise records `QZErrorNotFinite` naming `what`.
@inlinable @inline(__always)
package func requireFinite(_ x: Double, _ what: StaticString, _ function: StaticString) -> Bool {
    x.isFinite || reportNotFinite(x, function, what: what)
}

// Fixed-arity overloads (preferred over the variadic one): a variadic call
// allocates its argument array on the heap, on every property set.
@inlinable @inline(__always)
package func checkFinite(_ a: Double, function: StaticString) -> Bool {
    a.isFinite || reportNotFinite(a, function)
}

@inlinable @inline(__always)
package func checkFinite(_ a: Double, _ b: Double, function: StaticString) -> Bool {
    (a.isFinite || reportNotFinite(a, function)) && (b.isFinite || reportNotFinite(b, function))
}

@inlinable @inline(__always)
package func checkFinite(_ a: Double, _ b: Double, _ c: Double, function: StaticString) -> Bool {
    checkFinite(a, b, function: function) && (c.isFinite || reportNotFinite(c, function))
}

@inlinable @inline(__always)
package func checkFinite(_ a: Double, _ b: Double, _ c: Double, _ d: Double, function: StaticString) -> Bool {
    checkFinite(a, b, function: function) && checkFinite(c, d, function: function)
}

@inlinable @inline(__always)
package func checkFinite(_ values: Double..., function: StaticString) -> Bool {
    for v in values where !v.isFinite { return reportNotFinite(v, function) }
    return true
}

/// True unless `v` is NaN (infinity is a valid value: "forever" for repeat
/// counts and durations).
@inlinable @inline(__always)
package func checkNotNaN(_ v: Double, function: StaticString) -> Bool {
    !v.isNaN || reportNaN("argument", function)
}

@inlinable @inline(__always)
package func checkNumbers(_ values: Double..., function: StaticString) -> Bool {
    for v in values where v.isNaN { return reportNaN("argument", function) }
    return true
}

@inline(__always)
package func requireNonNull<T>(_ p: T?, _ what: StaticString, _ function: StaticString) -> T? {
    if let p { return p }
    recordError(QZErrorNullArgument, function, "\(what) is NULL")
    return nil
}

/// A C string argument as a Swift string, or nil (with an error) for NULL.
@inline(__always)
package func requireString(_ s: UnsafePointer<CChar>?, _ what: StaticString, _ function: StaticString) -> String? {
    guard let s else {
        recordError(QZErrorNullArgument, function, "\(what) is NULL")
        return nil
    }
    return String(cString: s)
}

/// Calls into the host (a delegate, layout manager or class callback) without
/// letting errors the callback's own library calls record leak into the call
/// that triggered it: the thread's error state is saved and restored around it.
@inline(__always)
package func hostCall<R>(_ body: () -> R) -> R {
    let state = qz_internal_error_state()!
    let saved = state.pointee
    let result = body()
    state.pointee = saved
    return result
}
