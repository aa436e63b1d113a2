import CQuartzite
import QuartziteCore
import QuartziteGeometry
import Synchronization

/// What a pool and the buffers it made share: the buffers' format and
/// layout, and the free memory waiting for reuse. A buffer made by the pool
/// hands its memory back here when its last reference goes; once the pool
/// itself is gone, returned memory is freed instead.
package final class PoolState {
    package let width: Int
    package let height: Int
    package let format: PixelFormatDescription
    package let layout: PixelBufferLayout
    package let bufferAttributes: PixelBufferAttributes
    /// Every buffer's first attachments, made once.
    package let attachments: Attachments
    package let minimumBufferCount: Int
    package let maximumBufferAge: Double

    private struct Inner {
        /// Free memory, oldest first, with the time it came back.
        package var free: [(storage: PixelStorage, since: Double)] = []
        /// Buffers made by the pool and still alive.
        package var outstanding = 0
        package var open = true
    }
    private let inner = Mutex(Inner())

    package init(width: Int, height: Int, format: PixelFormatDescription, layout: PixelBufferLayout,
         bufferAttributes: PixelBufferAttributes, pool: PoolAttributes) {
        self.width = width
        self.height = height
        self.format = format
        self.layout = layout
        self.bufferAttributes = bufferAttributes
        attachments = Attachments(bufferAttributes)
        minimumBufferCount = pool.minimumBufferCount
        maximumBufferAge = pool.maximumBufferAge
    }

    package static func now() -> Double { qz_internal_monotonic_seconds() }

    package func allocate() -> PixelStorage? {
        PixelStorage(allocating: layout.totalBytes, alignment: layout.memoryAlignment)
    }

    /// Fills the pool up to its minimum (at creation).
    package func preallocate() -> Bool {
        var made: [PixelStorage] = []
        for _ in 0..<minimumBufferCount {
            guard let s = allocate() else { return false }
            made.append(s)
        }
        let now = Self.now()
        inner.withLock { i in i.free += made.map { ($0, now) } }
        return true
    }

    /// Memory for a new buffer: the most recently freed (its cache lines may
    /// still be warm), else a new allocation. Nil when allocation fails.
    package func take() -> PixelStorage? {
        let (reused, garbage): (PixelStorage?, [PixelStorage]) = inner.withLock { i in
            let garbage = Self.ageOut(&i, minimum: minimumBufferCount, maximumAge: maximumBufferAge, now: Self.now(), all: false)
            if let last = i.free.popLast() {
                i.outstanding += 1
                return (last.storage, garbage)
            }
            return (nil, garbage)
        }
        _ = garbage  // freed here, outside the lock
        if let reused { return reused }
        guard let s = allocate() else { return nil }
        inner.withLock { $0.outstanding += 1 }
        return s
    }

    /// Called by a pool buffer's deinit, on whichever thread drops the last reference.
    package func recycle(_ storage: PixelStorage) {
        let garbage: [PixelStorage] = inner.withLock { i in
            i.outstanding -= 1
            guard i.open else { return [storage] }
            let now = Self.now()
            i.free.append((storage, now))
            return Self.ageOut(&i, minimum: minimumBufferCount, maximumAge: maximumBufferAge, now: now, all: false)
        }
        _ = garbage
    }

    /// Frees aged-out memory (`all`: every free buffer regardless of age),
    /// keeping the pool at its minimum count (buffers in use included).
    private static func ageOut(_ i: inout Inner, minimum: Int, maximumAge: Double, now: Double, all: Bool) -> [PixelStorage] {
        var garbage: [PixelStorage] = []
        while let oldest = i.free.first, i.free.count + i.outstanding > minimum,
              all || (maximumAge > 0 && now - oldest.since > maximumAge) {
            garbage.append(i.free.removeFirst().storage)
        }
        return garbage
    }

    /// CVPixelBufferPoolFlush.
    package func flush(all: Bool) {
        let garbage = inner.withLock { i in
            Self.ageOut(&i, minimum: minimumBufferCount, maximumAge: maximumBufferAge, now: Self.now(), all: all)
        }
        _ = garbage
    }

    /// The pool handle is gone: free what waits, and free the rest as it comes back.
    package func close() {
        let garbage: [(storage: PixelStorage, since: Double)] = inner.withLock { i in
            i.open = false
            defer { i.free = [] }
            return i.free
        }
        _ = garbage
    }

    package var counts: (free: Int, outstanding: Int) { inner.withLock { ($0.free.count, $0.outstanding) } }
}

/// A pool of pixel buffers of one size and format (CVPixelBufferPoolRef).
/// Thread-safe: buffers may be made from, and released on, any thread.
public final class PixelBufferPool: QZObject, Handle {
    package let state: PoolState
    /// CVPixelBufferPoolGetAttributes and GetPixelBufferAttributes (resolved).
    public let poolAttributes: Value
    public let pixelBufferAttributes: Value

    package init(state: PoolState, poolAttributes: Value, pixelBufferAttributes: Value) {
        self.state = state
        self.poolAttributes = poolAttributes
        self.pixelBufferAttributes = pixelBufferAttributes
        super.init(kind: .pixelBufferPool)
    }

    deinit { state.close() }

    @inlinable package static var handleKind: ObjectKind { .pixelBufferPool }
    @inlinable package static func accepts(_ tag: UInt32) -> Bool { tag == tagMagic | UInt32(ObjectKind.pixelBufferPool.rawValue) }

    /// CVPixelBufferPoolCreate. The buffer attributes must give the width,
    /// height and pixel format (the first, when it is an array).
    public static func create(poolAttributes: Value?, pixelBufferAttributes: Value?) throws(CVError) -> PixelBufferPool {
        let pool = try PoolAttributes(poolAttributes)
        let attrs = try PixelBufferAttributes(pixelBufferAttributes)
        guard let width = attrs.width, let height = attrs.height else {
            throw .invalidAttributes("the pixel buffer attributes of a pool need \(kCVPixelBufferWidthKey) and \(kCVPixelBufferHeightKey)")
        }
        guard let type = attrs.pixelFormats.first else {
            throw .invalidAttributes("the pixel buffer attributes of a pool need \(kCVPixelBufferPixelFormatTypeKey)")
        }
        let format = try PixelBuffer.describe(type)
        let layout = try PixelBufferLayout(width: width, height: height, format: format,
                                           rowAlignment: attrs.bytesPerRowAlignment, planeAlignment: attrs.planeAlignment,
                                           extended: (attrs.extendedLeft, attrs.extendedTop, attrs.extendedRight, attrs.extendedBottom))
        let state = PoolState(width: width, height: height, format: format, layout: layout, bufferAttributes: attrs, pool: pool)
        guard state.preallocate() else {
            throw CVError(kCVReturnPoolAllocationFailed, QZErrorOutOfMemory,
                          "cannot allocate the pool's minimum of \(pool.minimumBufferCount) buffers of \(layout.totalBytes) bytes")
        }
        var resolved = attrs.dictionary
        resolved.set(Value(.number(Double(width))), for: kCVPixelBufferWidthKey)
        resolved.set(Value(.number(Double(height))), for: kCVPixelBufferHeightKey)
        resolved.set(Value(.number(Double(type))), for: kCVPixelBufferPixelFormatTypeKey)
        resolved.set(Value(.number(Double(attrs.bytesPerRowAlignment ?? PixelBufferLayout.defaultRowAlignment))),
                     for: kCVPixelBufferBytesPerRowAlignmentKey)
        for (key, n) in [(kCVPixelBufferExtendedPixelsLeftKey, layout.extendedLeft), (kCVPixelBufferExtendedPixelsTopKey, layout.extendedTop),
                         (kCVPixelBufferExtendedPixelsRightKey, layout.extendedRight),
                         (kCVPixelBufferExtendedPixelsBottomKey, layout.extendedBottom)] where n > 0 {
            resolved.set(Value(.number(Double(n))), for: key)
        }
        return PixelBufferPool(state: state, poolAttributes: Value(.dictionary(pool.resolved)),
                               pixelBufferAttributes: Value(.dictionary(resolved)))
    }

    /// CVPixelBufferPoolCreatePixelBuffer: a buffer over recycled or new
    /// memory (recycled pixels are not cleared), with the attachments of
    /// the pool's buffer attributes.
    public func makeBuffer() throws(CVError) -> PixelBuffer {
        guard let storage = state.take() else {
            throw CVError(kCVReturnPoolAllocationFailed, QZErrorOutOfMemory,
                          "the pool cannot allocate a buffer of \(state.layout.totalBytes) bytes")
        }
        return PixelBuffer(width: state.width, height: state.height, format: state.format, layout: state.layout,
                           storage: storage, pool: state, attachments: state.attachments)
    }
}
