import CCairo
import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo

/// A new `width` x `height` premultiplied BGRA pixel buffer, cleared to
/// transparent and drawn by `draw` through a cairo context over its pixels
/// (the layer classes' rasterizers: shapes, gradients). nil when the size is
/// empty or over 8192 pixels a side, when cairo fails, or when `draw`
/// returns false.
package func cairoBitmap(width: Int, height: Int, _ draw: (OpaquePointer) -> Bool) -> PixelBuffer? {
    guard width > 0, height > 0, width <= 8192, height <= 8192,
          let pb = try? PixelBuffer.create(width: width, height: height,
                                           pixelFormat: UInt32(kCVPixelFormatType_32BGRA), attributes: nil)
    else { return nil }
    pb.lock(readOnly: false)
    defer {
        try? pb.unlock(readOnly: false)
        pb.pixelsChanged()
    }
    guard let base = pb.baseAddress, pb.bytesPerRow <= Int(Int32.max) else { return nil }
    let surface = cairo_image_surface_create_for_data(base.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_ARGB32,
                                                      Int32(width), Int32(height), Int32(pb.bytesPerRow))!
    defer { cairo_surface_destroy(surface) }
    guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, let cr = cairo_create(surface) else { return nil }
    defer { cairo_destroy(cr) }
    cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE)
    cairo_set_source_rgba(cr, 0, 0, 0, 0)
    cairo_paint(cr)
    cairo_set_operator(cr, CAIRO_OPERATOR_OVER)
    guard draw(cr) else { return nil }
    cairo_surface_flush(surface)
    return pb
}
