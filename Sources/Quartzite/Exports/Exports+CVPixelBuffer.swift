import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel
import QuartziteRender

// CVPixelBufferRef with Apple's names and signatures (CVPixelBuffer.h), and
// Quartzite's additions (QZPixelBuffer...): conversions, PNG files, the
// modification seed, lock counts and a memory limit. See
// Exports+CVBuffer.swift for the rules every Core Video function follows.
//
// Threads: as for every Core Video function (Exports+CVBuffer.swift): any
// thread; the pixels themselves are the host's to order between threads.

/// An optional attribute dictionary argument: `.some(nil)` for NULL, nil
/// (error recorded) for a handle that is not a CAValueRef.
@inline(__always)
func optionalValue(_ ref: CAValueRef?, _ function: StaticString) -> Value?? {
    guard let ref else { return .some(nil) }
    guard let v = object(ref, as: Value.self, function) else { return nil }
    return .some(v)
}

/// Stores a new buffer (+1) in `out`, or records why there is none.
@inline(__always)
func storeNewPixelBuffer(_ out: UnsafeMutablePointer<QZCVPixelBufferRef?>, _ function: StaticString,
             _ make: () throws(CVError) -> PixelBuffer) -> CVReturn {
    do {
        out.pointee = retainedHandle(try make())
        return CVReturn(kCVReturnSuccess)
    } catch {
        return cvFail(error, function)
    }
}

@inline(__always)
func requireOut<T>(_ out: UnsafeMutablePointer<T>?, _ function: StaticString) -> UnsafeMutablePointer<T>? {
    if let out { return out }
    recordError(QZErrorNullArgument, function, "the out-pointer is NULL")
    return nil
}

// MARK: - Creating

/// Creates a pixel buffer of `width` x `height` pixels of `pixelFormatType`,
/// allocating its memory (zeroed) as the format and the attributes
/// describe: kCVPixelBufferBytesPerRowAlignmentKey (default 16; rows are
/// padded to a multiple of it), kCVPixelBufferPlaneAlignmentKey (a power of
/// two; planes start at multiples of it and of the row alignment),
/// kCVPixelBufferExtendedPixelsLeftKey/Top/Right/Bottom (rounded up to
/// whole blocks of every plane, e.g. to even numbers for 4:2:0), and
/// kCVBufferPropagatedAttachmentsKey / NonPropagatedAttachmentsKey. The
/// width, height and format arguments win over the same keys in the
/// dictionary; unknown keys are ignored. A planar buffer's memory starts
/// with Apple's big-endian CVPlanarComponentInfo header, planes follow.
/// Stores +1 in `*pixelBufferOut` (release with CVPixelBufferRelease).
/// **Errors:** kCVReturnInvalidSize (a zero width or height, or more than
/// 2^20), kCVReturnInvalidPixelFormat (an unknown format),
/// kCVReturnInvalidPixelBufferAttributes (not a dictionary, or a known key
/// with a value of the wrong type or out of range),
/// kCVReturnAllocationFailed (out of memory or over
/// QZPixelBufferSetMemoryLimit), kCVReturnInvalidArgument (NULL
/// pixelBufferOut). On error `*pixelBufferOut` is left unchanged.
@c public func CVPixelBufferCreate(_ allocator: QZCFAllocatorRef?, _ width: size_t, _ height: size_t,
                                   _ pixelFormatType: OSType, _ pixelBufferAttributes: CAValueRef?,
                                   _ pixelBufferOut: UnsafeMutablePointer<QZCVPixelBufferRef?>?) -> CVReturn {
    guard let out = requireOut(pixelBufferOut, #function) else { return cvInvalidArgument }
    guard let attrs = optionalValue(pixelBufferAttributes, #function) else { return cvInvalidArgument }
    return storeNewPixelBuffer(out, #function) { () throws(CVError) in
        try PixelBuffer.create(width: width, height: height, pixelFormat: pixelFormatType, attributes: attrs)
    }
}

/// Creates a pixel buffer over the caller's memory of a chunky (non-planar)
/// format: `height` rows of `bytesPerRow` bytes from `baseAddress`, which
/// must stay valid until `releaseCallback` (may be NULL) is called, exactly
/// once, with `releaseRefCon` and `baseAddress`, when the buffer's last
/// reference goes (a pool or a layer holding the buffer keeps it alive), on
/// the thread that drops it. Extended-pixel attributes do not apply. Stores
/// +1 in `*pixelBufferOut`. **Errors:** kCVReturnInvalidPixelFormat
/// (unknown, or planar: use CVPixelBufferCreateWithPlanarBytes),
/// kCVReturnInvalidSize, kCVReturnInvalidArgument (NULL baseAddress, or
/// bytesPerRow smaller than a row of `width` pixels), and the attribute
/// errors of CVPixelBufferCreate. On error the callback is not called: the
/// memory is still the caller's.
@c public func CVPixelBufferCreateWithBytes(_ allocator: QZCFAllocatorRef?, _ width: size_t, _ height: size_t,
                                            _ pixelFormatType: OSType, _ baseAddress: UnsafeMutableRawPointer?,
                                            _ bytesPerRow: size_t, _ releaseCallback: CVPixelBufferReleaseBytesCallback?,
                                            _ releaseRefCon: UnsafeMutableRawPointer?, _ pixelBufferAttributes: CAValueRef?,
                                            _ pixelBufferOut: UnsafeMutablePointer<QZCVPixelBufferRef?>?) -> CVReturn {
    guard let out = requireOut(pixelBufferOut, #function) else { return cvInvalidArgument }
    guard let attrs = optionalValue(pixelBufferAttributes, #function) else { return cvInvalidArgument }
    return storeNewPixelBuffer(out, #function) { () throws(CVError) in
        try PixelBuffer.create(width: width, height: height, pixelFormat: pixelFormatType, baseAddress: baseAddress,
                               bytesPerRow: bytesPerRow, release: releaseCallback, refCon: releaseRefCon, attributes: attrs)
    }
}

/// Creates a pixel buffer of a planar format over the caller's planes:
/// `numberOfPlanes` entries in each of `planeBaseAddress`, `planeWidth`,
/// `planeHeight` and `planeBytesPerRow` (the arrays are read during the
/// call only). Each plane must be at least as large as the format needs for
/// `width` x `height` (a 4:2:0 chroma plane: (width + 1) / 2 by (height + 1)
/// / 2) and its rows long enough for its width. `dataPtr` (may be NULL) is
/// what CVPixelBufferGetBaseAddress returns and `dataSize` what
/// CVPixelBufferGetDataSize returns. `releaseCallback` (may be NULL) is
/// called exactly once, with the arguments given here, when the last
/// reference goes. Stores +1 in `*pixelBufferOut`. **Errors:**
/// kCVReturnInvalidPixelFormat (unknown, or not planar),
/// kCVReturnInvalidSize, kCVReturnInvalidArgument (a plane count other than
/// the format's, a NULL array or plane address, a plane too small), and the
/// attribute errors. On error the callback is not called.
@c public func CVPixelBufferCreateWithPlanarBytes(_ allocator: QZCFAllocatorRef?, _ width: size_t, _ height: size_t,
                                                  _ pixelFormatType: OSType, _ dataPtr: UnsafeMutableRawPointer?,
                                                  _ dataSize: size_t, _ numberOfPlanes: size_t,
                                                  _ planeBaseAddress: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
                                                  _ planeWidth: UnsafeMutablePointer<size_t>?,
                                                  _ planeHeight: UnsafeMutablePointer<size_t>?,
                                                  _ planeBytesPerRow: UnsafeMutablePointer<size_t>?,
                                                  _ releaseCallback: CVPixelBufferReleasePlanarBytesCallback?,
                                                  _ releaseRefCon: UnsafeMutableRawPointer?,
                                                  _ pixelBufferAttributes: CAValueRef?,
                                                  _ pixelBufferOut: UnsafeMutablePointer<QZCVPixelBufferRef?>?) -> CVReturn {
    guard let out = requireOut(pixelBufferOut, #function) else { return cvInvalidArgument }
    guard let attrs = optionalValue(pixelBufferAttributes, #function) else { return cvInvalidArgument }
    guard numberOfPlanes >= 1, numberOfPlanes <= 16 else {
        return cvFail(.invalidArgument("numberOfPlanes \(numberOfPlanes) is out of range"), #function)
    }
    guard let planeBaseAddress, let planeWidth, let planeHeight, let planeBytesPerRow else {
        recordError(QZErrorNullArgument, #function, "a plane array (base addresses, widths, heights or bytes per row) is NULL")
        return cvInvalidArgument
    }
    let n = numberOfPlanes
    let addresses = (0..<n).map { planeBaseAddress[$0] }
    let widths = (0..<n).map { planeWidth[$0] }, heights = (0..<n).map { planeHeight[$0] }
    let rows = (0..<n).map { planeBytesPerRow[$0] }
    return storeNewPixelBuffer(out, #function) { () throws(CVError) in
        try PixelBuffer.create(width: width, height: height, pixelFormat: pixelFormatType, dataPointer: dataPtr,
                               dataSize: dataSize, planeAddresses: addresses, planeWidths: widths, planeHeights: heights,
                               planeBytesPerRow: rows, release: releaseCallback, refCon: releaseRefCon, attributes: attrs)
    }
}

/// Resolves several clients' pixel buffer attribute dictionaries (an array
/// value of dictionaries; NULL or an empty array gives an empty
/// dictionary) into one, stored +1 in `*resolvedDictionaryOut`: widths and
/// heights must agree, pixel formats are intersected, bytes-per-row and
/// plane alignments take their least common multiple, extended pixels the
/// largest request, compatibility flags are true if any client asks,
/// attachment dictionaries are merged and other keys keep their first
/// value. **Errors:** kCVReturnInvalidPixelBufferAttributes (a
/// non-dictionary item, a bad value, a width, height or format conflict),
/// kCVReturnInvalidArgument (not an array, NULL out-pointer).
@c public func CVPixelBufferCreateResolvedAttributesDictionary(_ allocator: QZCFAllocatorRef?, _ attributes: CAValueRef?,
                                                               _ resolvedDictionaryOut: UnsafeMutablePointer<CAValueRef?>?) -> CVReturn {
    guard let out = requireOut(resolvedDictionaryOut, #function) else { return cvInvalidArgument }
    guard let list = optionalValue(attributes, #function) else { return cvInvalidArgument }
    var items: [Value] = []
    if let list {
        guard case .array(let a) = list.storage else {
            wrongValueType(list, "array", #function)
            return cvInvalidArgument
        }
        items = a
    }
    do {
        out.pointee = retainedHandle(Value(.dictionary(try PixelBufferAttributes.resolve(items))))
        return CVReturn(kCVReturnSuccess)
    } catch {
        return cvFail(error, #function)
    }
}

/// Adds a reference to `pixelBuffer` and returns it; NULL-safe.
@c public func CVPixelBufferRetain(_ pixelBuffer: QZCVPixelBufferRef?) -> QZCVPixelBufferRef? {
    retainTyped(pixelBuffer, as: PixelBuffer.self, #function)
}

/// Drops a reference; with the last one the memory is freed, handed back
/// to its pool, or handed to the creator's release callback. NULL-safe.
@c public func CVPixelBufferRelease(_ pixelBuffer: QZCVPixelBufferRef?) {
    releaseTyped(pixelBuffer, as: PixelBuffer.self, #function)
}

/// The type identifier of pixel buffers (compare with QZGetTypeID(handle)).
@c public func CVPixelBufferGetTypeID() -> CFTypeID {
    CFTypeID(ObjectKind.pixelBuffer.rawValue)
}

// MARK: - Locking

/// Locks the base address for CPU access. `lockFlags`: 0 (read-write) or
/// kCVPixelBufferLock_ReadOnly (you will not write: caches of the contents,
/// such as a layer's, stay valid). Locks nest and may come from several
/// threads; each must be matched by an unlock with the same flags.
/// Quartzite's memory never moves, so the base address is valid locked or
/// not, but only a read-write lock/unlock pair tells caches the pixels
/// changed (see QZPixelBufferGetSeed). **Errors:**
/// kCVReturnInvalidArgument (a bad handle, or flags other than 0 and
/// kCVPixelBufferLock_ReadOnly).
@c public func CVPixelBufferLockBaseAddress(_ pixelBuffer: QZCVPixelBufferRef?, _ lockFlags: CVOptionFlags) -> CVReturn {
    guard let b = object(pixelBuffer, as: PixelBuffer.self) else { return cvInvalidArgument }
    guard lockFlags & ~CVOptionFlags(kCVPixelBufferLock_ReadOnly.rawValue) == 0 else {
        return cvFail(.invalidArgument("unknown lock flags \(lockFlags)"), #function)
    }
    b.lock(readOnly: lockFlags != 0)
    return CVReturn(kCVReturnSuccess)
}

/// Unlocks a lock taken with the same flags. **Errors:** kCVReturnError with
/// QZErrorInvalidState when the buffer is not locked (an unbalanced
/// unlock); kCVReturnInvalidArgument with QZErrorInvalidArgument when the
/// flags do not match any lock held (unlocking read-only a buffer locked
/// only read-write, or the reverse), or for unknown flags or a bad handle.
/// A failed unlock changes nothing.
@c public func CVPixelBufferUnlockBaseAddress(_ pixelBuffer: QZCVPixelBufferRef?, _ unlockFlags: CVOptionFlags) -> CVReturn {
    guard let b = object(pixelBuffer, as: PixelBuffer.self) else { return cvInvalidArgument }
    guard unlockFlags & ~CVOptionFlags(kCVPixelBufferLock_ReadOnly.rawValue) == 0 else {
        return cvFail(.invalidArgument("unknown unlock flags \(unlockFlags)"), #function)
    }
    do {
        try b.unlock(readOnly: unlockFlags != 0)
        return CVReturn(kCVReturnSuccess)
    } catch {
        return cvFail(error, #function)
    }
}

// MARK: - Geometry

/// The base address: pixel (0, 0) of a chunky buffer; for a planar buffer
/// made by CVPixelBufferCreate (or a pool), its big-endian
/// CVPlanarPixelBufferInfo header (CVPlanarPixelBufferInfo_YCbCrPlanar for
/// 'y420', ..._YCbCrBiPlanar for '420v'), whose offsets are relative to this
/// address; for CVPixelBufferCreateWithPlanarBytes, its `dataPtr`. Lock the
/// buffer around CPU access (see CVPixelBufferLockBaseAddress).
@c public func CVPixelBufferGetBaseAddress(_ pixelBuffer: QZCVPixelBufferRef?) -> UnsafeMutableRawPointer? {
    withObject(pixelBuffer, as: PixelBuffer.self, fallback: nil) { $0.baseAddress }
}

/// Pixel (0, 0) of plane `planeIndex`; NULL for a chunky buffer (as Apple
/// documents; no error). An index past the last plane records
/// QZErrorOutOfRange and returns NULL.
@c public func CVPixelBufferGetBaseAddressOfPlane(_ pixelBuffer: QZCVPixelBufferRef?, _ planeIndex: size_t) -> UnsafeMutableRawPointer? {
    withObject(pixelBuffer, as: PixelBuffer.self, fallback: nil) { b in
        planeIndexChecked(b, planeIndex, #function) ? b.planeAddress(planeIndex) : nil
    }
}

/// True when `index` names a plane of a planar buffer; records
/// QZErrorOutOfRange for a planar buffer's bad index (a chunky buffer has
/// no planes: false, no error).
@inline(__always)
func planeIndexChecked(_ b: PixelBuffer, _ index: Int, _ function: StaticString) -> Bool {
    guard b.isPlanar else { return false }
    guard index >= 0, index < b.planes.count else {
        recordError(QZErrorOutOfRange, function, "plane index \(index) is out of range (the buffer has \(b.planes.count) planes)")
        return false
    }
    return true
}

/// Bytes from one row to the next of a chunky buffer. For a planar buffer,
/// as Apple documents, a value such that bytesPerRow * height covers every
/// plane (the data size divided by the height, rounded up); use
/// CVPixelBufferGetBytesPerRowOfPlane for a plane's rows.
@c public func CVPixelBufferGetBytesPerRow(_ pixelBuffer: QZCVPixelBufferRef?) -> size_t {
    withObject(pixelBuffer, as: PixelBuffer.self, fallback: 0) { $0.bytesPerRow }
}

/// Bytes from one row of plane `planeIndex` to the next; 0 for a chunky
/// buffer; 0 and QZErrorOutOfRange for a bad index.
@c public func CVPixelBufferGetBytesPerRowOfPlane(_ pixelBuffer: QZCVPixelBufferRef?, _ planeIndex: size_t) -> size_t {
    withObject(pixelBuffer, as: PixelBuffer.self, fallback: 0) { b in
        planeIndexChecked(b, planeIndex, #function) ? b.planes[planeIndex].bytesPerRow : 0
    }
}

/// The bytes of the buffer's memory: everything CVPixelBufferCreate
/// allocated (planar header, planes, padding, extended pixels); for
/// CVPixelBufferCreateWithBytes, bytesPerRow * height; for
/// CVPixelBufferCreateWithPlanarBytes, the `dataSize` given.
@c public func CVPixelBufferGetDataSize(_ pixelBuffer: QZCVPixelBufferRef?) -> size_t {
    withObject(pixelBuffer, as: PixelBuffer.self, fallback: 0) { $0.dataSize }
}

/// The extended pixels around the image (as allocated: requests are rounded
/// up to whole blocks). Any pointer may be NULL; on a bad handle the
/// non-NULL ones receive 0.
@c public func CVPixelBufferGetExtendedPixels(_ pixelBuffer: QZCVPixelBufferRef?, _ extraColumnsOnLeft: UnsafeMutablePointer<size_t>?,
                                              _ extraColumnsOnRight: UnsafeMutablePointer<size_t>?,
                                              _ extraRowsOnTop: UnsafeMutablePointer<size_t>?,
                                              _ extraRowsOnBottom: UnsafeMutablePointer<size_t>?) {
    let e = withObject(pixelBuffer, as: PixelBuffer.self, fallback: (0, 0, 0, 0)) {
        ($0.extendedLeft, $0.extendedRight, $0.extendedTop, $0.extendedBottom)
    }
    extraColumnsOnLeft?.pointee = e.0
    extraColumnsOnRight?.pointee = e.1
    extraRowsOnTop?.pointee = e.2
    extraRowsOnBottom?.pointee = e.3
}

/// The width in pixels.
@c public func CVPixelBufferGetWidth(_ pixelBuffer: QZCVPixelBufferRef?) -> size_t {
    withObject(pixelBuffer, as: PixelBuffer.self, fallback: 0) { $0.width }
}

/// The height in pixels.
@c public func CVPixelBufferGetHeight(_ pixelBuffer: QZCVPixelBufferRef?) -> size_t {
    withObject(pixelBuffer, as: PixelBuffer.self, fallback: 0) { $0.height }
}

/// The width of plane `planeIndex` in its own samples (960 for the chroma
/// plane of a 1920-pixel '420v' buffer); 0 for a chunky buffer; 0 and
/// QZErrorOutOfRange for a bad index.
@c public func CVPixelBufferGetWidthOfPlane(_ pixelBuffer: QZCVPixelBufferRef?, _ planeIndex: size_t) -> size_t {
    withObject(pixelBuffer, as: PixelBuffer.self, fallback: 0) { b in
        planeIndexChecked(b, planeIndex, #function) ? b.planes[planeIndex].width : 0
    }
}

/// The height of plane `planeIndex` in rows; 0 for a chunky buffer; 0 and
/// QZErrorOutOfRange for a bad index.
@c public func CVPixelBufferGetHeightOfPlane(_ pixelBuffer: QZCVPixelBufferRef?, _ planeIndex: size_t) -> size_t {
    withObject(pixelBuffer, as: PixelBuffer.self, fallback: 0) { b in
        planeIndexChecked(b, planeIndex, #function) ? b.planes[planeIndex].height : 0
    }
}

/// The pixel format's four-character code.
@c public func CVPixelBufferGetPixelFormatType(_ pixelBuffer: QZCVPixelBufferRef?) -> OSType {
    withObject(pixelBuffer, as: PixelBuffer.self, fallback: 0) { $0.pixelFormat }
}

/// The number of planes; 0 for a chunky buffer.
@c public func CVPixelBufferGetPlaneCount(_ pixelBuffer: QZCVPixelBufferRef?) -> size_t {
    withObject(pixelBuffer, as: PixelBuffer.self, fallback: 0) { $0.isPlanar ? $0.planes.count : 0 }
}

/// True for a buffer of a planar format (every buffer made by
/// CVPixelBufferCreateWithPlanarBytes, and planar buffers from
/// CVPixelBufferCreate or a pool).
@c public func CVPixelBufferIsPlanar(_ pixelBuffer: QZCVPixelBufferRef?) -> Bool {
    withObject(pixelBuffer, as: PixelBuffer.self, fallback: false) { $0.isPlanar }
}

/// Fills the extended pixels by replicating the edge pixels outwards (the
/// edge blocks, for formats whose blocks hold several pixels), plane by
/// plane; for a registered format with a kCVPixelFormatFillExtendedPixelsCallback,
/// calls that instead. A buffer without extended pixels is left as it is.
/// **Errors:** kCVReturnInvalidArgument (bad handle), kCVReturnError (the
/// format's callback returned false).
@c public func CVPixelBufferFillExtendedPixels(_ pixelBuffer: QZCVPixelBufferRef?) -> CVReturn {
    guard let b = object(pixelBuffer, as: PixelBuffer.self) else { return cvInvalidArgument }
    guard b.fillExtendedPixels() else {
        return cvFail(CVError(kCVReturnError, QZErrorInvalidState, "the format's fill callback returned false"), #function)
    }
    return CVReturn(kCVReturnSuccess)
}

// MARK: - Quartzite additions

/// Converts `source`'s pixels into `destination` (same width and height),
/// through premultiplied 32BGRA: any readable format (32BGRA, 32ARGB,
/// 32RGBA, 32ABGR, 24RGB, 24BGR, 64ARGB, 48RGB, 32AlphaGray, 16Gray, 1/2/4/8
/// bit IndexedGray_WhiteIsZero, '2vuy', 'yuvs', 'yuvf', 'y420', 'f420',
/// '420v', '420f') into 32BGRA, the other 32-bit RGB orders, 24RGB, 24BGR,
/// 64ARGB, 48RGB, 32AlphaGray, 16Gray or 8IndexedGray_WhiteIsZero, or a
/// copy between two buffers of the same format. Y'CbCr uses the source's
/// kCVImageBufferYCbCrMatrixKey attachment (ITU-R 601 when absent), video
/// or full range as its format says; RGB alpha is taken as premultiplied,
/// formats without alpha read as opaque. Extended pixels are not touched.
/// Lock neither buffer: the call reads and writes without the CPU locks
/// (it bumps the destination's seed). **Errors:** kCVReturnInvalidSize
/// (different sizes), kCVReturnInvalidPixelFormat (a format that can only
/// be described, or one no conversion writes), kCVReturnInvalidArgument
/// (bad handles).
@c public func QZPixelBufferConvert(_ source: QZCVPixelBufferRef?, _ destination: QZCVPixelBufferRef?) -> CVReturn {
    guard let s = object(source, as: PixelBuffer.self), let d = object(destination, as: PixelBuffer.self) else {
        return cvInvalidArgument
    }
    do {
        try s.convert(to: d)
        return CVReturn(kCVReturnSuccess)
    } catch {
        return cvFail(error, #function)
    }
}

/// Creates a buffer of `pixelFormatType` (default attributes) holding
/// `source`'s image converted as QZPixelBufferConvert does; the source's
/// propagatable attachments are propagated. Stores +1 in `*pixelBufferOut`.
/// Errors as QZPixelBufferConvert and CVPixelBufferCreate.
@c public func QZPixelBufferCreateConverted(_ source: QZCVPixelBufferRef?, _ pixelFormatType: OSType,
                                            _ pixelBufferOut: UnsafeMutablePointer<QZCVPixelBufferRef?>?) -> CVReturn {
    guard let out = requireOut(pixelBufferOut, #function) else { return cvInvalidArgument }
    guard let s = object(source, as: PixelBuffer.self) else { return cvInvalidArgument }
    return storeNewPixelBuffer(out, #function) { () throws(CVError) in
        let d = try PixelBuffer.create(width: s.width, height: s.height, pixelFormat: pixelFormatType, attributes: nil)
        try s.convert(to: d)
        s.propagateAttachments(to: d)
        return d
    }
}

/// Reads a PNG file (any colour type and depth: palettes, gray, 16-bit
/// samples and transparency are expanded or reduced to 8-bit RGBA with
/// libpng) into a new premultiplied 32BGRA buffer, stored +1 in
/// `*pixelBufferOut`. **Errors:** kCVReturnError with
/// QZErrorInvalidArgument (the file cannot be opened, is not a PNG, or is
/// damaged: the message says which), kCVReturnInvalidSize (a width or
/// height above 2^20, refused before anything is allocated),
/// kCVReturnAllocationFailed (too large for memory or for
/// QZPixelBufferSetMemoryLimit), kCVReturnInvalidArgument (NULL path or
/// out-pointer).
@c public func QZPixelBufferCreateWithPNGFile(_ path: UnsafePointer<CChar>?,
                                              _ pixelBufferOut: UnsafeMutablePointer<QZCVPixelBufferRef?>?) -> CVReturn {
    guard let out = requireOut(pixelBufferOut, #function) else { return cvInvalidArgument }
    guard let path = requireString(path, "path", #function) else { return cvInvalidArgument }
    return storeNewPixelBuffer(out, #function) { () throws(CVError) in try PixelBuffer.createWithPNG(path: path) }
}

/// Writes the buffer's image as an 8-bit sRGB PNG file (libpng): RGB when
/// every pixel is opaque, RGBA with straight (unpremultiplied) alpha
/// otherwise. Buffers of other readable formats are converted to BGRA
/// first. **Errors:** kCVReturnError with QZErrorInvalidArgument (the file
/// cannot be written), kCVReturnInvalidPixelFormat (a format that cannot
/// be converted), kCVReturnInvalidArgument (bad handle or NULL path).
@c public func QZPixelBufferWritePNG(_ pixelBuffer: QZCVPixelBufferRef?, _ path: UnsafePointer<CChar>?) -> CVReturn {
    guard let b = object(pixelBuffer, as: PixelBuffer.self) else { return cvInvalidArgument }
    guard let path = requireString(path, "path", #function) else { return cvInvalidArgument }
    do {
        try b.writePNG(path: path)
        return CVReturn(kCVReturnSuccess)
    } catch {
        return cvFail(error, #function)
    }
}

/// A number that changes whenever the pixels may have changed: at every
/// read-write unlock (CVPixelBufferUnlockBaseAddress with flags 0), and
/// when the library writes the buffer (QZPixelBufferConvert's destination,
/// CVPixelBufferFillExtendedPixels). Read-only locks leave it alone. A
/// cache of the contents (a texture, a converted copy) is fresh while the
/// seed it was made at is current. 0 on a bad handle.
@c public func QZPixelBufferGetSeed(_ pixelBuffer: QZCVPixelBufferRef?) -> UInt32 {
    withObject(pixelBuffer, as: PixelBuffer.self, fallback: 0) { $0.seed }
}

/// How many locks of the kind `lockFlags` names (0: read-write,
/// kCVPixelBufferLock_ReadOnly: read-only) the buffer holds now. 0 and an
/// error for a bad handle or unknown flags.
@c public func QZPixelBufferGetLockCount(_ pixelBuffer: QZCVPixelBufferRef?, _ lockFlags: CVOptionFlags) -> size_t {
    guard lockFlags & ~CVOptionFlags(kCVPixelBufferLock_ReadOnly.rawValue) == 0 else {
        recordError(QZErrorInvalidArgument, #function, "unknown lock flags \(lockFlags)")
        return 0
    }
    return withObject(pixelBuffer, as: PixelBuffer.self, fallback: 0) { b in
        let c = b.lockCounts
        return lockFlags != 0 ? c.readOnly : c.readWrite
    }
}

/// Limits the pixel memory Quartzite allocates (buffers, and pool buffers
/// waiting for reuse) to `bytes` in total; 0 (the default) means no limit.
/// Allocations over the limit fail with kCVReturnAllocationFailed (in a
/// pool, kCVReturnPoolAllocationFailed); memory already allocated stays.
/// Memory wrapped by CVPixelBufferCreateWithBytes is the caller's and does
/// not count. Thread safety: any thread.
@c public func QZPixelBufferSetMemoryLimit(_ bytes: size_t) {
    PixelMemory.limit = bytes
}

/// The limit set with QZPixelBufferSetMemoryLimit (0: none).
@c public func QZPixelBufferGetMemoryLimit() -> size_t {
    PixelMemory.limit
}

/// The pixel memory Quartzite has allocated now, in bytes.
@c public func QZPixelBufferGetMemoryInUse() -> size_t {
    PixelMemory.inUse
}
