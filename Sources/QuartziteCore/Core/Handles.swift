import CQuartzite

@inlinable @inline(__always)
package func readTag(_ p: OpaquePointer) -> UInt32 {
    UnsafeRawPointer(p).load(fromByteOffset: tagOffset, as: UInt32.self)
}

/// The object behind a C handle, if the handle is non-NULL and of type `T`;
/// otherwise records the error (naming the calling C function) and returns nil.
@inlinable @inline(__always)
package func object<T: Handle>(_ p: OpaquePointer?, as type: T.Type, _ function: StaticString = #function) -> T? {
    withObject(p, as: type, fallback: nil, function) { $0 }
}

/// Any live Quartzite object behind a handle.
@inlinable @inline(__always)
package func anyObject(_ p: UnsafeRawPointer?, _ function: StaticString = #function) -> QZObject? {
    guard let p else {
        recordError(QZErrorNullArgument, function, "handle is NULL")
        return nil
    }
    guard isLiveObjectTag(readTag(OpaquePointer(p))) else {
        wrongType(OpaquePointer(p), expected: nil, function)
        return nil
    }
    return Unmanaged<QZObject>.fromOpaque(p).takeUnretainedValue()
}

@inlinable @inline(__always)
package func isLiveObjectTag(_ tag: UInt32) -> Bool {
    tag & tagMagicMask == tagMagic && ObjectKind(rawValue: UInt16(truncatingIfNeeded: tag)) != nil
}

@usableFromInline @inline(never)
package func wrongType(_ p: OpaquePointer, expected: String?, _ function: StaticString) {
    let tag = readTag(p)
    let found: String
    if tag & tagMagicMask == deadTag {
        found = "a released object"
    } else if isLiveObjectTag(tag), let kind = ObjectKind(rawValue: UInt16(truncatingIfNeeded: tag)) {
        found = "a \(kind.typeName)Ref"
    } else {
        found = "a pointer that is not a Quartzite handle"
    }
    let wanted = expected.map { "a \($0)Ref" } ?? "a Quartzite handle"
    recordError(QZErrorWrongType, function, "expected \(wanted), got \(found)")
}

/// A +1 handle for `object` (Create/Copy functions).
@inlinable @inline(__always)
package func retainedHandle(_ object: QZObject) -> OpaquePointer {
    OpaquePointer(Unmanaged.passRetained(object).toOpaque())
}

/// withObject's error for a NULL handle, out of line: the getters' fast
/// path stays a tag compare and a load, with no string building in it.
@usableFromInline @inline(never)
package func reportNullHandle(_ kind: ObjectKind, _ function: StaticString) {
    recordError(QZErrorNullArgument, function, "\(kind.typeName)Ref argument is NULL")
}

/// withObject's error for a handle of another type, out of line.
@usableFromInline @inline(never)
package func reportWrongHandle(_ p: OpaquePointer, _ kind: ObjectKind, _ function: StaticString) {
    wrongType(p, expected: kind.typeName, function)
}

/// A +0 handle for `object` (Get functions).
@inlinable @inline(__always)
package func borrowedHandle(_ object: QZObject) -> OpaquePointer {
    OpaquePointer(Unmanaged.passUnretained(object).toOpaque())
}

/// Runs `body` on the object behind a C handle without retaining it (the
/// caller's reference keeps it alive for the duration of the C call), or
/// records the error and returns `fallback`. For getters on hot paths, where a
/// retain/release pair would cost more than the work.
@inlinable @inline(__always)
package func withObject<T: Handle, R>(_ p: OpaquePointer?, as type: T.Type, fallback: R,
                              _ function: StaticString = #function, _ body: (T) -> R) -> R {
    guard let p else {
        reportNullHandle(T.handleKind, function)
        return fallback
    }
    guard T.accepts(readTag(p)) else {
        reportWrongHandle(p, T.handleKind, function)
        return fallback
    }
    return Unmanaged<T>.fromOpaque(UnsafeRawPointer(p))._withUnsafeGuaranteedRef(body)
}
