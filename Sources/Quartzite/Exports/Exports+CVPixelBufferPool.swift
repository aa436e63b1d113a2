import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel
import QuartziteRender

// CVPixelBufferPoolRef with Apple's names and signatures
// (CVPixelBufferPool.h). See Exports+CVBuffer.swift for the shared rules.
//
// Threads: a pool may be used from several threads at once.

/// Creates a pool of pixel buffers. `pixelBufferAttributes` must give
/// kCVPixelBufferWidthKey, kCVPixelBufferHeightKey and
/// kCVPixelBufferPixelFormatTypeKey (the first format of an array is used)
/// and may give every other key CVPixelBufferCreate reads. `poolAttributes`
/// (may be NULL): kCVPixelBufferPoolMinimumBufferCountKey (0...1024,
/// default 0: the pool allocates that many buffers now and never frees
/// below it, counting buffers in use) and
/// kCVPixelBufferPoolMaximumBufferAgeKey (seconds, default 1; 0: never age
/// out): a released buffer's memory waits that long for reuse before it is
/// freed, checked whenever the pool makes or takes back a buffer (and by
/// CVPixelBufferPoolFlush). Stores +1 in `*poolOut` (release with
/// CVPixelBufferPoolRelease; buffers still in use stay valid). **Errors:**
/// kCVReturnInvalidPoolAttributes, kCVReturnInvalidPixelBufferAttributes
/// (not a dictionary, a bad value, width, height or format missing),
/// kCVReturnInvalidPixelFormat, kCVReturnPoolAllocationFailed (the
/// minimum count cannot be allocated), kCVReturnInvalidArgument.
/// Thread safety: a pool may be used from several threads.
@c public func CVPixelBufferPoolCreate(_ allocator: QZCFAllocatorRef?, _ poolAttributes: CAValueRef?,
                                       _ pixelBufferAttributes: CAValueRef?,
                                       _ poolOut: UnsafeMutablePointer<QZCVPixelBufferPoolRef?>?) -> CVReturn {
    guard let out = requireOut(poolOut, #function) else { return cvInvalidArgument }
    guard let pool = optionalValue(poolAttributes, #function),
          let buffers = optionalValue(pixelBufferAttributes, #function) else { return cvInvalidArgument }
    do {
        out.pointee = retainedHandle(try PixelBufferPool.create(poolAttributes: pool, pixelBufferAttributes: buffers))
        return CVReturn(kCVReturnSuccess)
    } catch {
        return cvFail(error, #function)
    }
}

/// Makes a buffer from the pool, reusing the memory of a released one when
/// there is one (its pixels are not cleared), with the attachments of the
/// pool's kCVBufferPropagatedAttachmentsKey / NonPropagatedAttachmentsKey.
/// When the buffer's last reference goes its memory returns to the pool.
/// Stores +1 in `*pixelBufferOut`. **Errors:** kCVReturnPoolAllocationFailed
/// (out of memory or over QZPixelBufferSetMemoryLimit),
/// kCVReturnInvalidArgument.
@c public func CVPixelBufferPoolCreatePixelBuffer(_ allocator: QZCFAllocatorRef?, _ pixelBufferPool: QZCVPixelBufferPoolRef?,
                                                  _ pixelBufferOut: UnsafeMutablePointer<QZCVPixelBufferRef?>?) -> CVReturn {
    guard let out = requireOut(pixelBufferOut, #function) else { return cvInvalidArgument }
    guard let pool = object(pixelBufferPool, as: PixelBufferPool.self) else { return cvInvalidArgument }
    return storeNewPixelBuffer(out, #function) { () throws(CVError) in try pool.makeBuffer() }
}

/// The pool's attributes, with both keys resolved to the values in use.
/// Borrowed: valid while the pool lives. NULL on a bad handle.
@c public func CVPixelBufferPoolGetAttributes(_ pool: QZCVPixelBufferPoolRef?) -> CAValueRef? {
    withObject(pool, as: PixelBufferPool.self, fallback: nil) { CAValueRef(Unmanaged.passUnretained($0.poolAttributes).toOpaque()) }
}

/// The attributes of the buffers the pool makes, resolved (width, height,
/// the pixel format as one number, the bytes-per-row alignment and the
/// extended pixels in use, plus every other key given). Borrowed: valid
/// while the pool lives. NULL on a bad handle.
@c public func CVPixelBufferPoolGetPixelBufferAttributes(_ pool: QZCVPixelBufferPoolRef?) -> CAValueRef? {
    withObject(pool, as: PixelBufferPool.self, fallback: nil) {
        CAValueRef(Unmanaged.passUnretained($0.pixelBufferAttributes).toOpaque())
    }
}

/// The type identifier of pools (compare with QZGetTypeID(handle)).
@c public func CVPixelBufferPoolGetTypeID() -> CFTypeID {
    CFTypeID(ObjectKind.pixelBufferPool.rawValue)
}

/// Adds a reference to `pixelBufferPool` and returns it; NULL-safe.
@c public func CVPixelBufferPoolRetain(_ pixelBufferPool: QZCVPixelBufferPoolRef?) -> QZCVPixelBufferPoolRef? {
    retainTyped(pixelBufferPool, as: PixelBufferPool.self, #function)
}

/// Drops a reference to the pool. With the last one the memory waiting for
/// reuse is freed; buffers still in use stay valid and free their memory
/// when they go. NULL-safe.
@c public func CVPixelBufferPoolRelease(_ pixelBufferPool: QZCVPixelBufferPoolRef?) {
    releaseTyped(pixelBufferPool, as: PixelBufferPool.self, #function)
}

/// Frees the pool's free buffers that have aged out (`options` 0) or all
/// of them regardless of age (kCVPixelBufferPoolFlushExcessBuffers),
/// keeping the minimum buffer count (Apple's CVPixelBufferPoolFlush).
/// Unknown flags record QZErrorInvalidArgument and do nothing.
@c public func CVPixelBufferPoolFlush(_ pool: QZCVPixelBufferPoolRef?, _ options: CVOptionFlags) {
    guard let p = object(pool, as: PixelBufferPool.self) else { return }
    guard options & ~CVOptionFlags(kCVPixelBufferPoolFlushExcessBuffers) == 0 else {
        recordError(QZErrorInvalidArgument, #function, "unknown flush options \(options)")
        return
    }
    p.state.flush(all: options != 0)
}

/// How many released buffers wait in the pool for reuse. 0 on a bad handle.
@c public func QZPixelBufferPoolGetFreeBufferCount(_ pool: QZCVPixelBufferPoolRef?) -> size_t {
    withObject(pool, as: PixelBufferPool.self, fallback: 0) { $0.state.counts.free }
}

/// How many buffers made by the pool are alive now. 0 on a bad handle.
@c public func QZPixelBufferPoolGetInUseBufferCount(_ pool: QZCVPixelBufferPoolRef?) -> size_t {
    withObject(pool, as: PixelBufferPool.self, fallback: 0) { $0.state.counts.outstanding }
}
