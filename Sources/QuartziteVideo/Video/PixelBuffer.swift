import CQuartzite
import QuartziteCore
import QuartziteGeometry
import Synchronization

/// A buffer's attachments (CVBufferSetAttachment): string keys in insertion
/// order, each with a value and a propagation mode.
package struct Attachments {
    /// The attachments a buffer starts with: its attributes'
    /// kCVBufferPropagatedAttachmentsKey and NonPropagatedAttachmentsKey.
    package init(_ attributes: PixelBufferAttributes) {
        if let d = attributes.propagatedAttachments {
            for (k, v) in zip(d.keys, d.values) { _ = set(k.string, v, mode: UInt32(kCVAttachmentMode_ShouldPropagate)) }
        }
        if let d = attributes.nonPropagatedAttachments {
            for (k, v) in zip(d.keys, d.values) { _ = set(k.string, v, mode: UInt32(kCVAttachmentMode_ShouldNotPropagate)) }
        }
    }

    package init() {}

    package private(set) var keys: [String] = []
    private var entries: [String: (value: Value, mode: UInt32)] = [:]
    /// CVBufferGetAttachments' dictionaries, made on demand, one per mode
    /// (two fields, not an array: a new buffer allocates nothing here).
    private var notPropagated: Value?
    private var propagated: Value?

    /// Drops the snapshots (returned, to be released outside the caller's lock).
    private mutating func dropSnapshots() -> [AnyObject] {
        defer { (notPropagated, propagated) = (nil, nil) }
        return [notPropagated, propagated].compactMap { $0 }
    }

    package var isEmpty: Bool { keys.isEmpty }

    package subscript(key: String) -> (value: Value, mode: UInt32)? { entries[key] }

    /// Sets `key`; returns what it replaces (for the caller to drop outside its lock).
    package mutating func set(_ key: String, _ value: Value, mode: UInt32) -> [AnyObject] {
        var garbage = dropSnapshots()
        if let old = entries[key] { garbage.append(old.value) } else { keys.append(key) }
        entries[key] = (value, mode)
        return garbage
    }

    package mutating func remove(_ key: String) -> [AnyObject] {
        guard let old = entries.removeValue(forKey: key) else { return [] }
        keys.removeAll { $0 == key }
        var garbage = dropSnapshots()
        garbage.append(old.value)
        return garbage
    }

    package mutating func removeAll() -> [AnyObject] {
        var garbage = dropSnapshots()
        garbage += entries.values.map { $0.value }
        self = Attachments()
        return garbage
    }

    /// Every attachment of `mode`, as a dictionary value kept until the
    /// attachments next change.
    package mutating func dictionary(mode: UInt32) -> Value {
        if let cached = mode == 0 ? notPropagated : propagated { return cached }
        var d = ValueDictionary()
        for key in keys {
            if let e = entries[key], e.mode == mode { d.set(e.value, for: key) }
        }
        let made = Value(.dictionary(d))
        if mode == 0 { notPropagated = made } else { propagated = made }
        return made
    }

    package func all(mode: UInt32) -> [(String, Value)] {
        keys.compactMap { key in entries[key].flatMap { $0.mode == mode ? (key, $0.value) : nil } }
    }
}

/// A Core Video pixel buffer (CVPixelBufferRef, which is also the
/// CVImageBufferRef and CVBufferRef of this library): an image in memory in
/// one of the described pixel formats, with base-address locking and
/// attachments. The geometry never changes; the lock counts, the
/// modification seed and the attachments sit behind a lock, so a buffer can
/// be shared between threads.
public final class PixelBuffer: QZObject, Handle {
    public let width: Int
    public let height: Int
    public let format: PixelFormatDescription
    /// One entry per plane (one for chunky formats); offsets are from `origin`.
    /// A pool's buffers share the pool's array.
    public let planes: [PlaneLayout]
    /// Where plane offsets count from: the start of owned memory, or the
    /// caller's first plane (other planes of wrapped memory may lie before
    /// or after it: offsets are plain address differences).
    package let origin: UnsafeMutableRawPointer
    /// CVPixelBufferGetBaseAddress: pixel (0, 0) of a chunky buffer; the
    /// planar header (or the caller's descriptor block) of a planar one.
    public let baseAddress: UnsafeMutableRawPointer?
    public let dataSize: Int
    public let extendedLeft: Int, extendedRight: Int, extendedTop: Int, extendedBottom: Int
    package let storage: PixelStorage
    package let pool: PoolState?

    private struct State {
        package var readOnlyLocks = 0
        package var readWriteLocks = 0
        package var seed: UInt32 = 1
        package var attachments = Attachments()
    }
    private let state: Mutex<State>

    public var pixelFormat: UInt32 { format.type }

    /// Plane `i`'s pixel (0, 0).
    @inline(__always)
    public func planeAddress(_ i: Int) -> UnsafeMutableRawPointer { origin + planes[i].offset }
    public var isPlanar: Bool { format.isPlanar }

    package init(width: Int, height: Int, format: PixelFormatDescription, planes: [PlaneLayout],
         origin: UnsafeMutableRawPointer, baseAddress: UnsafeMutableRawPointer?, dataSize: Int,
         extended: (left: Int, right: Int, top: Int, bottom: Int), storage: PixelStorage, pool: PoolState?,
         attachments: Attachments) {
        self.width = width
        self.height = height
        self.format = format
        self.planes = planes
        self.origin = origin
        self.baseAddress = baseAddress
        self.dataSize = dataSize
        (extendedLeft, extendedRight, extendedTop, extendedBottom) = extended
        self.storage = storage
        self.pool = pool
        var s = State()
        s.attachments = attachments
        state = Mutex(s)
        super.init(kind: .pixelBuffer)
    }

    deinit {
        // A pool's buffer hands its memory back for the next one.
        pool?.recycle(storage)
    }

    @inlinable package static var handleKind: ObjectKind { .pixelBuffer }
    @inlinable package static func accepts(_ tag: UInt32) -> Bool { tag == tagMagic | UInt32(ObjectKind.pixelBuffer.rawValue) }

    // MARK: - Creating

    /// A buffer over owned memory laid out by `layout` (CVPixelBufferCreate, pools).
    package convenience init(width: Int, height: Int, format: PixelFormatDescription, layout: PixelBufferLayout,
                     storage: PixelStorage, pool: PoolState?, attachments: Attachments) {
        let memory = storage.memory!
        if format.isPlanar {
            // Apple's planar header: each plane's offset from the base
            // address and its row bytes, big-endian.
            for (i, p) in layout.planes.enumerated() {
                memory.storeBytes(of: Int32(truncatingIfNeeded: p.offset).bigEndian, toByteOffset: 8 * i, as: Int32.self)
                memory.storeBytes(of: UInt32(truncatingIfNeeded: p.bytesPerRow).bigEndian, toByteOffset: 8 * i + 4, as: UInt32.self)
            }
        }
        self.init(width: width, height: height, format: format, planes: layout.planes, origin: memory,
                  baseAddress: format.isPlanar ? memory : memory + layout.planes[0].offset,
                  dataSize: layout.totalBytes,
                  extended: (layout.extendedLeft, layout.extendedRight, layout.extendedTop, layout.extendedBottom),
                  storage: storage, pool: pool, attachments: attachments)
    }

    /// The format's description, or kCVReturnInvalidPixelFormat.
    package static func describe(_ type: UInt32) throws(CVError) -> PixelFormatDescription {
        guard let d = PixelFormatRegistry.description(of: type) else { throw .invalidPixelFormat(type) }
        return d
    }

    /// CVPixelBufferCreate: `width`, `height` and `type` win over the same
    /// keys in the attributes.
    public static func create(width: Int, height: Int, pixelFormat type: UInt32, attributes: Value?) throws(CVError) -> PixelBuffer {
        guard attributes != nil else { return try create(width: width, height: height, pixelFormat: type) }
        let attrs = try PixelBufferAttributes(attributes)
        let format = try describe(type)
        let layout = try PixelBufferLayout(width: width, height: height, format: format,
                                           rowAlignment: attrs.bytesPerRowAlignment, planeAlignment: attrs.planeAlignment,
                                           extended: (attrs.extendedLeft, attrs.extendedTop, attrs.extendedRight, attrs.extendedBottom))
        return try allocate(width: width, height: height, format: format, layout: layout, attachments: Attachments(attrs))
    }

    /// CVPixelBufferCreate without attributes (the display cycle's backing
    /// stores among others): the default alignments, no attachments, and no
    /// attribute dictionary to parse or copy.
    public static func create(width: Int, height: Int, pixelFormat type: UInt32) throws(CVError) -> PixelBuffer {
        let format = try describe(type)
        let layout = try PixelBufferLayout(width: width, height: height, format: format)
        return try allocate(width: width, height: height, format: format, layout: layout, attachments: Attachments())
    }

    /// A buffer with owned memory for `layout`.
    private static func allocate(width: Int, height: Int, format: PixelFormatDescription, layout: PixelBufferLayout,
                                 attachments: Attachments) throws(CVError) -> PixelBuffer {
        guard let storage = PixelStorage(allocating: layout.totalBytes, alignment: layout.memoryAlignment) else {
            throw .allocationFailed(layout.totalBytes)
        }
        return PixelBuffer(width: width, height: height, format: format, layout: layout, storage: storage, pool: nil,
                           attachments: attachments)
    }

    /// The smallest row in bytes for `width` samples of plane `p`.
    package static func minimumBytesPerRow(_ p: PlaneFormat, width: Int) -> Int {
        let blocks = (width + p.blockWidth - 1) / p.blockWidth
        return (blocks + p.blockHorizontalAlignment - 1) / p.blockHorizontalAlignment * p.blockHorizontalAlignment * p.bytesPerBlock
    }

    package static func checkSize(_ width: Int, _ height: Int) throws(CVError) {
        guard width > 0, height > 0 else { throw .invalidSize("a pixel buffer of \(width)x\(height) pixels has no pixels") }
        guard width <= maximumPixelBufferDimension, height <= maximumPixelBufferDimension else {
            throw .invalidSize("\(width)x\(height) pixels: width and height are limited to \(maximumPixelBufferDimension)")
        }
    }

    /// CVPixelBufferCreateWithBytes: the caller's memory for a chunky format.
    /// Extended-pixel attributes do not apply to it. On failure the release
    /// callback is not called: the memory is still the caller's.
    public static func create(width: Int, height: Int, pixelFormat type: UInt32, baseAddress: UnsafeMutableRawPointer?,
                              bytesPerRow: Int, release: CVPixelBufferReleaseBytesCallback?,
                              refCon: UnsafeMutableRawPointer?, attributes: Value?) throws(CVError) -> PixelBuffer {
        let attrs = try PixelBufferAttributes(attributes)
        let format = try describe(type)
        guard !format.isPlanar else {
            throw .invalidPixelFormat(type, "is planar: use CVPixelBufferCreateWithPlanarBytes")
        }
        try checkSize(width, height)
        guard let baseAddress else { throw .invalidArgument("baseAddress is NULL") }
        let minimum = minimumBytesPerRow(format.planes[0], width: width)
        guard bytesPerRow >= minimum, bytesPerRow <= Int.max / height else {
            throw .invalidArgument("bytesPerRow \(bytesPerRow) is less than the \(minimum) bytes \(width) pixels of \(fourCharCodeString(type)) need")
        }
        let plane = PlaneLayout(width: width, height: height, bytesPerRow: bytesPerRow, offset: 0, start: 0,
                                byteCount: bytesPerRow * height)
        let storage = PixelStorage(wrapping: release.map { .bytes($0, refCon, UnsafeRawPointer(baseAddress)) } ?? .none)
        return PixelBuffer(width: width, height: height, format: format, planes: [plane],
                           origin: baseAddress, baseAddress: baseAddress,
                           dataSize: bytesPerRow * height, extended: (0, 0, 0, 0), storage: storage, pool: nil,
                           attachments: Attachments(attrs))
    }

    /// CVPixelBufferCreateWithPlanarBytes: the caller's planes. Each plane
    /// must be at least as large as the format needs for width x height, and
    /// its rows at least as long as its width needs.
    public static func create(width: Int, height: Int, pixelFormat type: UInt32, dataPointer: UnsafeMutableRawPointer?,
                              dataSize: Int, planeAddresses: [UnsafeMutableRawPointer?], planeWidths: [Int],
                              planeHeights: [Int], planeBytesPerRow: [Int],
                              release: CVPixelBufferReleasePlanarBytesCallback?, refCon: UnsafeMutableRawPointer?,
                              attributes: Value?) throws(CVError) -> PixelBuffer {
        let attrs = try PixelBufferAttributes(attributes)
        let format = try describe(type)
        guard format.isPlanar else {
            throw .invalidPixelFormat(type, "is not planar: use CVPixelBufferCreateWithBytes")
        }
        try checkSize(width, height)
        guard planeAddresses.count == format.planes.count else {
            throw .invalidArgument("\(fourCharCodeString(type)) has \(format.planes.count) planes, not \(planeAddresses.count)")
        }
        var planes: [PlaneLayout] = []
        var addresses: [UnsafeMutableRawPointer] = []
        for (i, p) in format.planes.enumerated() {
            guard let address = planeAddresses[i] else { throw .invalidArgument("the base address of plane \(i) is NULL") }
            let needW = (width + p.horizontalSubsampling - 1) / p.horizontalSubsampling
            let needH = (height + p.verticalSubsampling - 1) / p.verticalSubsampling
            let w = planeWidths[i], h = planeHeights[i], bpr = planeBytesPerRow[i]
            guard w >= needW, h >= needH, w <= maximumPixelBufferDimension, h <= maximumPixelBufferDimension else {
                throw .invalidArgument("plane \(i) is \(w)x\(h); \(width)x\(height) pixels of \(fourCharCodeString(type)) need \(needW)x\(needH)")
            }
            let minimum = minimumBytesPerRow(p, width: w)
            guard bpr >= minimum, bpr <= Int.max / h else {
                throw .invalidArgument("plane \(i): bytesPerRow \(bpr) is less than the \(minimum) bytes its \(w) samples need")
            }
            let offset = address - planeAddresses[0]!
            planes.append(PlaneLayout(width: w, height: h, bytesPerRow: bpr, offset: offset, start: offset, byteCount: bpr * h))
            addresses.append(address)
        }
        let storage = PixelStorage(wrapping: release.map {
            .planarBytes($0, refCon, UnsafeRawPointer(dataPointer), dataSize, addresses.map { UnsafeRawPointer($0) })
        } ?? .none)
        return PixelBuffer(width: width, height: height, format: format, planes: planes, origin: addresses[0],
                           baseAddress: dataPointer, dataSize: dataSize,
                           extended: (0, 0, 0, 0), storage: storage, pool: nil, attachments: Attachments(attrs))
    }

    // MARK: - Reading the geometry

    /// CVPixelBufferGetBytesPerRow: the row bytes of a chunky buffer; for a
    /// planar one, as Apple documents, a value such that bytesPerRow *
    /// height covers every plane (the data size divided by the height,
    /// rounded up).
    public var bytesPerRow: Int {
        isPlanar ? (dataSize + height - 1) / height : planes[0].bytesPerRow
    }

    // MARK: - Locking

    /// CVPixelBufferLockBaseAddress. Locks nest; read-only and read-write
    /// locks may be held together (by one thread or several).
    public func lock(readOnly: Bool) {
        state.withLock { s in
            if readOnly { s.readOnlyLocks += 1 } else { s.readWriteLocks += 1 }
        }
    }

    /// CVPixelBufferUnlockBaseAddress: must match an earlier lock with the
    /// same flag. A read-write unlock bumps the seed (the pixels may have
    /// changed; caches of them are stale).
    public func unlock(readOnly: Bool) throws(CVError) {
        let problem: CVError? = state.withLock { s in
            if s.readOnlyLocks + s.readWriteLocks == 0 {
                return CVError(kCVReturnError, QZErrorInvalidState, "the base address is not locked")
            }
            if readOnly {
                guard s.readOnlyLocks > 0 else {
                    return .invalidArgument("unlocked with kCVPixelBufferLock_ReadOnly, but the buffer is locked read-write")
                }
                s.readOnlyLocks -= 1
            } else {
                guard s.readWriteLocks > 0 else {
                    return .invalidArgument("unlocked without kCVPixelBufferLock_ReadOnly, but the buffer is locked read-only")
                }
                s.readWriteLocks -= 1
                s.seed &+= 1
            }
            return nil
        }
        if let problem { throw problem }
    }

    public var lockCounts: (readOnly: Int, readWrite: Int) {
        state.withLock { ($0.readOnlyLocks, $0.readWriteLocks) }
    }

    /// Changes with every read-write unlock and every write by the library.
    public var seed: UInt32 { state.withLock { $0.seed } }

    package func pixelsChanged() { state.withLock { $0.seed &+= 1 } }

    // MARK: - Attachments

    public func setAttachment(_ key: String, _ value: Value, mode: UInt32) {
        let garbage = state.withLock { $0.attachments.set(key, value, mode: mode) }
        _ = garbage
    }

    public func attachment(_ key: String) -> (value: Value, mode: UInt32)? {
        state.withLock { $0.attachments[key] }
    }

    public func removeAttachment(_ key: String) {
        let garbage = state.withLock { $0.attachments.remove(key) }
        _ = garbage
    }

    public func removeAllAttachments() {
        let garbage = state.withLock { $0.attachments.removeAll() }
        _ = garbage
    }

    /// All attachments of `mode` as a dictionary, kept by the buffer until
    /// its attachments next change (CVBufferGetAttachments' borrowed result).
    public func attachments(mode: UInt32) -> Value {
        state.withLock { $0.attachments.dictionary(mode: mode) }
    }

    public func attachmentList(mode: UInt32) -> [(String, Value)] {
        state.withLock { $0.attachments.all(mode: mode) }
    }

    /// CVBufferPropagateAttachments: every kCVAttachmentMode_ShouldPropagate
    /// attachment of `self` is set on `destination` with the same mode.
    public func propagateAttachments(to destination: PixelBuffer) {
        if destination === self { return }
        let mode = UInt32(kCVAttachmentMode_ShouldPropagate)
        for (k, v) in attachmentList(mode: mode) { destination.setAttachment(k, v, mode: mode) }
    }

    // MARK: - Image buffer geometry (CVImageBuffer)

    /// A number attachment value, or a rational given as [numerator, denominator].
    package static func number(_ v: Value?) -> Double? {
        guard let v else { return nil }
        if let n = v.number, n.isFinite { return n }
        if case .array(let items) = v.storage, items.count == 2, let a = items[0].number, let b = items[1].number,
           b != 0, (a / b).isFinite {
            return a / b
        }
        return nil
    }

    package static func dictionary(_ v: Value?) -> ValueDictionary? {
        guard let v, case .dictionary(let d) = v.storage else { return nil }
        return d
    }

    /// CVImageBufferGetCleanRect: the kCVImageBufferCleanApertureKey
    /// attachment (width, height and offsets of its centre from the image's
    /// centre, vertical offset positive downwards, as in QuickTime's 'clap')
    /// as a rectangle with its origin at the lower left; the whole buffer
    /// without that attachment (or with an unreadable one).
    public var cleanRect: CGRect {
        let full = CGRect(origin: CGPoint(x: 0, y: 0), size: CGSize(width: Double(width), height: Double(height)))
        guard let d = Self.dictionary(attachment(kCVImageBufferCleanApertureKey)?.value),
              let w = Self.number(d[kCVImageBufferCleanApertureWidthKey]),
              let h = Self.number(d[kCVImageBufferCleanApertureHeightKey]), w >= 0, h >= 0 else { return full }
        let dx = Self.number(d[kCVImageBufferCleanApertureHorizontalOffsetKey]) ?? 0
        let dy = Self.number(d[kCVImageBufferCleanApertureVerticalOffsetKey]) ?? 0
        return CGRect(origin: CGPoint(x: (Double(width) - w) / 2 + dx, y: (Double(height) - h) / 2 - dy),
                      size: CGSize(width: w, height: h))
    }

    /// CVImageBufferGetDisplaySize: the kCVImageBufferDisplayDimensionsKey
    /// attachment if set; otherwise the clean aperture's size with its width
    /// scaled by the kCVImageBufferPixelAspectRatioKey attachment (an NTSC
    /// DV frame: 720x480 encoded, 704x480 clean, 10:11 pixels, 640x480 shown).
    public var displaySize: CGSize {
        if let d = Self.dictionary(attachment(kCVImageBufferDisplayDimensionsKey)?.value),
           let w = Self.number(d[kCVImageBufferDisplayWidthKey]), let h = Self.number(d[kCVImageBufferDisplayHeightKey]),
           w >= 0, h >= 0 {
            return CGSize(width: w, height: h)
        }
        var size = cleanRect.size
        if let d = Self.dictionary(attachment(kCVImageBufferPixelAspectRatioKey)?.value),
           let hs = Self.number(d[kCVImageBufferPixelAspectRatioHorizontalSpacingKey]),
           let vs = Self.number(d[kCVImageBufferPixelAspectRatioVerticalSpacingKey]), hs > 0, vs > 0 {
            size.width = size.width * hs / vs
        }
        return size
    }

    public var encodedSize: CGSize { CGSize(width: Double(width), height: Double(height)) }

    // MARK: - Extended pixels

    /// CVPixelBufferFillExtendedPixels: a registered format's fill callback,
    /// or the edge blocks copied outwards (for formats whose block is one
    /// pixel, the edge pixels). Returns false when a callback fails.
    public func fillExtendedPixels() -> Bool {
        if let callback = format.fillCallback, let fill = callback.data.fillCallBack {
            let ok = hostCall { fill(OpaquePointer(Unmanaged.passUnretained(self).toOpaque()), callback.data.refCon) }
            pixelsChanged()
            return ok
        }
        var changed = false
        for (i, p) in planes.enumerated() where p.extendedLeft + p.extendedRight + p.extendedTop + p.extendedBottom > 0 {
            let f = format.planes[i]
            let bpb = f.bytesPerBlock
            let row0 = planeAddress(i) - (p.extendedLeft / f.blockWidth) * bpb  // row start of pixel row 0
            let leftBlocks = p.extendedLeft / f.blockWidth
            let lastBlock = leftBlocks + (p.width + f.blockWidth - 1) / f.blockWidth - 1
            let blocksPerRow = p.bytesPerRow / bpb
            let rows = (p.height + f.blockHeight - 1) / f.blockHeight
            for r in 0..<rows {
                let row = row0 + r * p.bytesPerRow
                for b in 0..<leftBlocks { (row + b * bpb).copyMemory(from: row + leftBlocks * bpb, byteCount: bpb) }
                let rightEnd = min(blocksPerRow, lastBlock + 1 + (p.extendedRight + f.blockWidth - 1) / f.blockWidth)
                if lastBlock + 1 < rightEnd {
                    for b in (lastBlock + 1)..<rightEnd { (row + b * bpb).copyMemory(from: row + lastBlock * bpb, byteCount: bpb) }
                }
            }
            let top = p.extendedTop / f.blockHeight, bottom = p.extendedBottom / f.blockHeight
            for r in 0..<top { (row0 - (r + 1) * p.bytesPerRow).copyMemory(from: row0, byteCount: p.bytesPerRow) }
            let last = row0 + (rows - 1) * p.bytesPerRow
            for r in 0..<bottom { (last + (r + 1) * p.bytesPerRow).copyMemory(from: last, byteCount: p.bytesPerRow) }
            changed = true
        }
        if changed { pixelsChanged() }
        return true
    }
}
