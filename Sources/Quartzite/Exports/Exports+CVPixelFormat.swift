import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel
import QuartziteRender

// Pixel format descriptions with Apple's names and signatures
// (CVPixelFormatDescription.h), and Quartzite's fill-callback value.
//
// Threads: any thread; the registry of formats is behind a lock, and
// descriptions are immutable values.

/// Creates the description of `pixelFormat` as a dictionary value (+1):
/// kCVPixelFormatName, kCVPixelFormatConstant, kCVPixelFormatCodecType,
/// kCVPixelFormatFourCC (when the format has a Microsoft FourCC),
/// kCVPixelFormatPlanes (the plane count), kCVPixelFormatBitsPerBlock and
/// the block keys of plane 0, kCVPixelFormatHorizontalSubsampling /
/// VerticalSubsampling (the chroma subsampling of a planar format),
/// kQZPixelFormatPlaneDescriptions (planar formats: one dictionary per
/// plane) and the compatibility flags. A registered format gives back its
/// registered dictionary. An unknown format records QZErrorUnknownConstant
/// and returns NULL.
@c public func CVPixelFormatDescriptionCreateWithPixelFormatType(_ allocator: QZCFAllocatorRef?, _ pixelFormat: OSType) -> CAValueRef? {
    guard let d = PixelFormatRegistry.description(of: pixelFormat) else {
        recordError(QZErrorUnknownConstant, #function, "pixel format \(fourCharCodeString(pixelFormat)) is not known")
        return nil
    }
    return retainedHandle(d.dictionary)
}

/// Creates an array value (+1) of the descriptions (dictionaries, as
/// CVPixelFormatDescriptionCreateWithPixelFormatType makes them) of every
/// known format: the built-in ones in the order of Apple's
/// kCVPixelFormatType list, then the registered ones.
@c public func CVPixelFormatDescriptionArrayCreateWithAllPixelFormatTypes(_ allocator: QZCFAllocatorRef?) -> CAValueRef? {
    retainedHandle(Value(.array(PixelFormatRegistry.all.map(\.dictionary))))
}

/// Registers a custom pixel format under `pixelFormat`, after which
/// CVPixelBufferCreate, CVPixelBufferCreateWithBytes / WithPlanarBytes and
/// pools accept it (buffers of it can be made, described, filled and copied
/// to one another; QZPixelBufferConvert cannot decode it). The description
/// needs kCVPixelFormatBitsPerBlock (a multiple of 8) and may give the
/// block, subsampling and alignment keys; a planar format gives its planes
/// as an array of such dictionaries under kCVPixelFormatPlanes (Apple's
/// form) or kQZPixelFormatPlaneDescriptions. A later registration of the
/// same code replaces the earlier one (buffers already made keep theirs).
/// **Errors** (recorded, nothing registered): a description that is not a
/// dictionary or lacks or misstates a key (QZErrorInvalidArgument), a code
/// of a built-in format (QZErrorInvalidArgument: they cannot be replaced).
/// Thread safety: any thread.
@c public func CVPixelFormatDescriptionRegisterDescriptionWithPixelFormatType(_ description: CAValueRef?, _ pixelFormat: OSType) {
    guard let v = object(description, as: Value.self) else { return }
    if PixelFormatRegistry.builtinFormats.contains(where: { $0.type == pixelFormat }) {
        recordError(QZErrorInvalidArgument, #function,
                    "\(fourCharCodeString(pixelFormat)) is a built-in pixel format and cannot be registered again")
        return
    }
    do {
        PixelFormatRegistry.register(try PixelFormatDescription(registering: v, as: pixelFormat))
    } catch {
        recordError(error.error, #function, error.message)
    }
}

/// Makes the value to store under kCVPixelFormatFillExtendedPixelsCallback
/// in a description to register (Apple stores the struct in a CFData):
/// CVPixelBufferFillExtendedPixels then calls `callbackData->fillCallBack`
/// with the buffer and `refCon`, on the calling thread. The struct is
/// copied. Returns +1, or NULL with an error for a NULL pointer, a version
/// other than 0 or a NULL fillCallBack.
@c public func QZPixelFormatCreateFillExtendedPixelsCallbackValue(_ callbackData: UnsafePointer<CVFillExtendedPixelsCallBackData>?) -> CAValueRef? {
    guard let data = requireNonNull(callbackData, "callbackData", #function)?.pointee else { return nil }
    guard data.version == 0, data.fillCallBack != nil else {
        recordError(QZErrorInvalidArgument, #function, "the callback data needs version 0 and a fillCallBack")
        return nil
    }
    return newValue(.object(FillExtendedPixelsCallback(data)))
}

/// The type identifier of any Quartzite handle (equal to
/// CVPixelBufferGetTypeID() for a pixel buffer, CVPixelBufferPoolGetTypeID()
/// for a pool), or 0 for NULL or a pointer that is not a live handle (no
/// error is recorded: a query for code that must find out what it holds).
@c public func QZGetTypeID(_ handle: UnsafeRawPointer?) -> CFTypeID {
    guard let handle else { return 0 }
    let tag = readTag(OpaquePointer(handle))
    guard isLiveObjectTag(tag) else { return 0 }
    return CFTypeID(UInt16(truncatingIfNeeded: tag))
}
