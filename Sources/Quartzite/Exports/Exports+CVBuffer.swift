import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel
import QuartziteRender

// Core Video: CVBuffer attachments, CVImageBuffer geometry and host time,
// with Apple's names and signatures (CVBuffer.h, CVImageBuffer.h,
// CVHostTime.h). A CVPixelBufferRef is the only kind of buffer Quartzite
// has, so every CVBufferRef and CVImageBufferRef here is a pixel buffer.
//
// Shared rules of the Core Video functions:
// - Functions returning CVReturn return kCVReturnSuccess or Apple's error
//   code, and on error also record a QZError with a message naming the
//   problem (QZGetLastError / QZGetLastErrorMessage). A NULL or wrong-typed
//   handle, or a NULL out-pointer, is kCVReturnInvalidArgument.
// - Other functions do nothing and return 0, NULL or a zero size on bad
//   input, recording the error.
// - Dictionaries and arrays are CAValueRef values; keys are the string
//   macros of quartzite_types.h (Apple's own CFString values).
// - Allocator arguments are accepted and ignored (pass NULL).
//
// - Threads: a buffer may be used from several threads; its lock counts,
//   seed and attachments sit behind a lock of its own. Writing the pixels
//   while another thread reads them is the host's to order (lock the base
//   address read-write).

/// Records a Core Video error and returns its CVReturn code.
@inline(never)
func cvFail(_ e: CVError, _ function: StaticString) -> CVReturn {
    recordError(e.error, function, e.message)
    return e.code
}

/// kCVReturnInvalidArgument after a handle check that recorded its error.
let cvInvalidArgument = CVReturn(kCVReturnInvalidArgument)

/// A checked attachment mode.
@inline(__always)
func checkedAttachmentMode(_ mode: CVAttachmentMode, _ function: StaticString) -> UInt32? {
    if mode == CVAttachmentMode(kCVAttachmentMode_ShouldNotPropagate) || mode == CVAttachmentMode(kCVAttachmentMode_ShouldPropagate) {
        return mode
    }
    recordError(QZErrorUnknownConstant, function,
                "attachment mode \(mode) is neither kCVAttachmentMode_ShouldNotPropagate (0) nor kCVAttachmentMode_ShouldPropagate (1)")
    return nil
}

// MARK: - CVBuffer

/// Adds a reference to `buffer` and returns it. NULL returns NULL without an
/// error (as Apple's, it is NULL-safe); a handle that is not a buffer records
/// QZErrorWrongType and returns NULL.
@c public func CVBufferRetain(_ buffer: QZCVBufferRef?) -> QZCVBufferRef? {
    retainTyped(buffer, as: PixelBuffer.self, #function)
}

/// Drops a reference to `buffer`; it is freed with its last reference (a
/// pool's buffer goes back to its pool). NULL does nothing.
@c public func CVBufferRelease(_ buffer: QZCVBufferRef?) {
    releaseTyped(buffer, as: PixelBuffer.self, #function)
}

/// Returns the attachment stored under `key` (borrowed: valid until that
/// attachment is replaced or removed, or the buffer is freed), or NULL when
/// there is none (no error). When found and `attachmentMode` is not NULL,
/// stores the attachment's mode there.
@c public func CVBufferGetAttachment(_ buffer: QZCVBufferRef?, _ key: UnsafePointer<CChar>?,
                                     _ attachmentMode: UnsafeMutablePointer<CVAttachmentMode>?) -> CAValueRef? {
    guard let b = object(buffer, as: PixelBuffer.self), let key = requireString(key, "key", #function) else { return nil }
    guard let (value, mode) = b.attachment(key) else { return nil }
    attachmentMode?.pointee = mode
    return CAValueRef(Unmanaged.passUnretained(value).toOpaque())
}

/// Returns the attachments of `attachmentMode` as a dictionary value (empty
/// when there are none). Borrowed: the buffer keeps it until its
/// attachments next change; CVBufferCopyAttachments gives a +1 copy. An
/// unknown mode records QZErrorUnknownConstant and returns NULL.
@c public func CVBufferGetAttachments(_ buffer: QZCVBufferRef?, _ attachmentMode: CVAttachmentMode) -> CAValueRef? {
    guard let b = object(buffer, as: PixelBuffer.self), let mode = checkedAttachmentMode(attachmentMode, #function) else {
        return nil
    }
    return CAValueRef(Unmanaged.passUnretained(b.attachments(mode: mode)).toOpaque())
}

/// Returns the attachments of `attachmentMode` as a new dictionary value
/// (+1; Apple's later replacement of CVBufferGetAttachments). An unknown
/// mode records QZErrorUnknownConstant and returns NULL.
@c public func CVBufferCopyAttachments(_ buffer: QZCVBufferRef?, _ attachmentMode: CVAttachmentMode) -> CAValueRef? {
    guard let b = object(buffer, as: PixelBuffer.self), let mode = checkedAttachmentMode(attachmentMode, #function) else {
        return nil
    }
    return retainedHandle(b.attachments(mode: mode))
}

/// Returns the attachment stored under `key` with a reference of its own
/// (+1), or NULL when there is none; stores its mode in `attachmentMode` if
/// that is not NULL.
@c public func CVBufferCopyAttachment(_ buffer: QZCVBufferRef?, _ key: UnsafePointer<CChar>?,
                                      _ attachmentMode: UnsafeMutablePointer<CVAttachmentMode>?) -> CAValueRef? {
    guard let b = object(buffer, as: PixelBuffer.self), let key = requireString(key, "key", #function) else { return nil }
    guard let (value, mode) = b.attachment(key) else { return nil }
    attachmentMode?.pointee = mode
    return retainedHandle(value)
}

/// Sets (adding or replacing) the attachment `key` to `value` (retained)
/// with `attachmentMode`; a key exists in one mode at a time, so setting it
/// in the other mode moves it. **Edge cases:** a NULL value records
/// QZErrorNullArgument (Apple: "returns an error") and changes nothing; an
/// unknown mode records QZErrorUnknownConstant. Thread safety: attachments
/// may be set and read from several threads.
@c public func CVBufferSetAttachment(_ buffer: QZCVBufferRef?, _ key: UnsafePointer<CChar>?, _ value: CAValueRef?,
                                     _ attachmentMode: CVAttachmentMode) {
    guard let b = object(buffer, as: PixelBuffer.self), let key = requireString(key, "key", #function),
          let mode = checkedAttachmentMode(attachmentMode, #function) else { return }
    guard let value else {
        recordError(QZErrorNullArgument, #function, "value is NULL (remove an attachment with CVBufferRemoveAttachment)")
        return
    }
    guard let v = object(value, as: Value.self) else { return }
    b.setAttachment(key, v, mode: mode)
}

/// Sets every key of the dictionary value `theAttachments` as an attachment
/// with `attachmentMode` (CVBufferSetAttachment for each pair). A value
/// that is not a dictionary records QZErrorWrongType and changes nothing.
@c public func CVBufferSetAttachments(_ buffer: QZCVBufferRef?, _ theAttachments: CAValueRef?, _ attachmentMode: CVAttachmentMode) {
    guard let b = object(buffer, as: PixelBuffer.self), let mode = checkedAttachmentMode(attachmentMode, #function),
          let d = object(theAttachments, as: Value.self) else { return }
    guard case .dictionary(let dict) = d.storage else {
        wrongValueType(d, "dictionary", #function)
        return
    }
    for (k, v) in zip(dict.keys, dict.values) { b.setAttachment(k.string, v, mode: mode) }
}

/// Removes the attachment `key`, releasing its value; nothing happens when
/// there is none.
@c public func CVBufferRemoveAttachment(_ buffer: QZCVBufferRef?, _ key: UnsafePointer<CChar>?) {
    guard let b = object(buffer, as: PixelBuffer.self), let key = requireString(key, "key", #function) else { return }
    b.removeAttachment(key)
}

/// Removes every attachment of `buffer`.
@c public func CVBufferRemoveAllAttachments(_ buffer: QZCVBufferRef?) {
    guard let b = object(buffer, as: PixelBuffer.self) else { return }
    b.removeAllAttachments()
}

/// Copies every kCVAttachmentMode_ShouldPropagate attachment of
/// `sourceBuffer` to `destinationBuffer` (same keys, same mode, the values
/// shared), replacing attachments of the same keys there. Attachments that
/// should not propagate stay behind.
@c public func CVBufferPropagateAttachments(_ sourceBuffer: QZCVBufferRef?, _ destinationBuffer: QZCVBufferRef?) {
    guard let s = object(sourceBuffer, as: PixelBuffer.self), let d = object(destinationBuffer, as: PixelBuffer.self) else { return }
    s.propagateAttachments(to: d)
}

// MARK: - CVImageBuffer

/// The clean aperture in encoded pixels, origin at the lower left (Apple's
/// convention): from the kCVImageBufferCleanApertureKey attachment, a
/// dictionary of kCVImageBufferCleanApertureWidthKey, HeightKey,
/// HorizontalOffsetKey and VerticalOffsetKey (numbers, or [numerator,
/// denominator] arrays; offsets move the aperture's centre from the image's
/// centre, the vertical one downwards). Without it, the whole buffer. A
/// 720x480 frame with a 704x480 aperture gives (8, 0, 704, 480). NULL or a
/// handle of another type records the error and returns CGRectZero.
@c public func CVImageBufferGetCleanRect(_ imageBuffer: QZCVImageBufferRef?) -> CGRect {
    withObject(imageBuffer, as: PixelBuffer.self, fallback: CGRect()) { $0.cleanRect }
}

/// The nominal display size in square pixels: the
/// kCVImageBufferDisplayDimensionsKey attachment ({Width, Height}) when set,
/// else the clean aperture's size with its width scaled by the
/// kCVImageBufferPixelAspectRatioKey attachment (HorizontalSpacing /
/// VerticalSpacing): 704x480 at 10:11 displays as 640x480. Bad handles give
/// a zero size.
@c public func CVImageBufferGetDisplaySize(_ imageBuffer: QZCVImageBufferRef?) -> CGSize {
    withObject(imageBuffer, as: PixelBuffer.self, fallback: CGSize()) { $0.displaySize }
}

/// The full encoded size: the buffer's width and height in pixels. Bad
/// handles give a zero size.
@c public func CVImageBufferGetEncodedSize(_ imageBuffer: QZCVImageBufferRef?) -> CGSize {
    withObject(imageBuffer, as: PixelBuffer.self, fallback: CGSize()) { $0.encodedSize }
}

// MARK: - Host time

/// The host time base: CLOCK_MONOTONIC in nanoseconds (not the replaceable
/// media clock). Thread safety: any thread.
@c public func CVGetCurrentHostTime() -> UInt64 {
    qz_internal_monotonic_nanoseconds()
}

/// Ticks of CVGetCurrentHostTime per second: 1e9.
@c public func CVGetHostClockFrequency() -> Double {
    1e9
}

/// The smallest step of CVGetCurrentHostTime: 1 tick (one nanosecond).
@c public func CVGetHostClockMinimumTimeDelta() -> UInt32 {
    1
}
