import CQuartzite
import Glibc
import Synchronization
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel

// CAEAGLLayer's GL storage, mapped from Apple's EAGL to EGL:
//
// - renderbufferStorage:fromDrawable: makes the images the layer's content
//   lives in (two, or one plus a front copy when the backing is retained),
//   each a GL renderbuffer's storage shared as an EGLImage, and points the
//   renderbuffer bound in the caller's current context at the first.
// - presentRenderbuffer: makes the image the host drew the layer's new
//   contents. Without retained backing the renderbuffer then moves to the
//   other image (what it holds is undefined, as Apple says: the image
//   presented before); with retained backing the image is copied on the GPU
//   into the front image, and the renderbuffer keeps its pixels.
//
// The contents a present sets is a pixel buffer standing for the image: GL
// renderers texture from the EGLImage itself (no copy, GLRenderer), CPU
// renderers read its pixels, which the present reads back from GL while a
// CPU renderer may need them (see EAGLUsage).

/// Who has shown a drawable's images since it was made: presents read the
/// image back for CPU renderers unless only GL renderers have shown them.
package final class EAGLUsage: Sendable {
    private let state = Mutex<(gpu: Bool, cpu: Bool)>((false, false))
    package func noteGPU() { state.withLock { $0.gpu = true } }
    package func noteCPU() { state.withLock { $0.cpu = true } }
    /// A CPU renderer may show the next present.
    package var needsPixels: Bool { state.withLock { $0.cpu || !$0.gpu } }
}

/// One image of a drawable: GPU storage shared as an EGLImage, and the
/// pixel buffer that is the layer's contents while the image is presented.
package final class EAGLImage {
    package let display: UnsafeMutableRawPointer
    package let image: UnsafeMutableRawPointer
    package let width: Int
    package let height: Int
    package let format: EAGLColorFormat
    package let usage: EAGLUsage
    /// The pixels of `pixels` (32BGRA rows, premultiplied).
    package let memory: UnsafeMutableRawPointer
    package let bytesPerRow: Int
    /// Made after this object, and owning it (its release callback drops the
    /// reference): unowned here.
    package private(set) unowned(unsafe) var pixels: PixelBuffer?
    private var pixelsKey: ObjectIdentifier?
    /// The fence after the last present into this image (GL renderers wait for it).
    private let fence = Mutex<UnsafeMutableRawPointer?>(nil)

    private init(display: UnsafeMutableRawPointer, image: UnsafeMutableRawPointer, width: Int, height: Int,
                 format: EAGLColorFormat, usage: EAGLUsage, memory: UnsafeMutableRawPointer, bytesPerRow: Int) {
        self.display = display
        self.image = image
        self.width = width
        self.height = height
        self.format = format
        self.usage = usage
        self.memory = memory
        self.bytesPerRow = bytesPerRow
    }

    /// An image of `width` x `height` over the EGLImage `image`, and the
    /// pixel buffer standing for it (which keeps the image alive). On
    /// failure the EGLImage is destroyed.
    package static func make(display: UnsafeMutableRawPointer, image: UnsafeMutableRawPointer, width: Int, height: Int,
                     format: EAGLColorFormat, usage: EAGLUsage) -> (EAGLImage, PixelBuffer)? {
        let bytesPerRow = width * 4
        let (bytes, overflow) = bytesPerRow.multipliedReportingOverflow(by: height)
        guard !overflow, bytes > 0, bytes <= kernelMaxAllocationBytes else {
            _ = qz_internal_egl_destroy_image(display, image)
            return nil
        }
        let memory = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
        memory.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
        let img = EAGLImage(display: display, image: image, width: width, height: height, format: format,
                            usage: usage, memory: memory, bytesPerRow: bytesPerRow)
        let refCon = Unmanaged.passRetained(img).toOpaque()
        guard let pb = try? PixelBuffer.create(width: width, height: height, pixelFormat: UInt32(kCVPixelFormatType_32BGRA),
                                               baseAddress: memory, bytesPerRow: bytesPerRow,
                                               release: eaglPixelsReleased, refCon: refCon, attributes: nil) else {
            Unmanaged<EAGLImage>.fromOpaque(refCon).release()   // (its deinit destroys the EGLImage)
            return nil
        }
        img.pixels = pb
        img.pixelsKey = ObjectIdentifier(pb)
        EAGLRegistry.register(img, for: pb)
        return (img, pb)
    }

    deinit {
        if let f = fence.withLock({ $0 }) { qz_internal_egl_destroy_sync(display, f) }
        _ = qz_internal_egl_destroy_image(display, image)
        memory.deallocate()
    }

    /// Called from the pixel buffer's release callback.
    fileprivate func pixelsReleased() { if let k = pixelsKey { EAGLRegistry.unregister(k) } }

    /// Replaces the fence after a present.
    package func setFence(_ f: UnsafeMutableRawPointer?) {
        let old = fence.withLock { state -> UnsafeMutableRawPointer? in
            let o = state
            state = f
            return o
        }
        if let old { qz_internal_egl_destroy_sync(display, old) }
    }

    /// Makes the current context's next commands wait for the last present
    /// (on the GPU where EGL can).
    package func waitForPresent() {
        fence.withLock { f in if let f { qz_internal_egl_wait(display, f) } }
    }

    /// Writes GL's RGBA rows (bottom row first, as glReadPixels returns them)
    /// into the pixel buffer as premultiplied 32BGRA, top row first. Channels
    /// above alpha are clamped (the content is taken as premultiplied).
    package func storePixels(fromGL rgba: UnsafeRawPointer) {
        let src = rgba.assumingMemoryBound(to: UInt8.self)
        for y in 0..<height {
            let s = src + (height - 1 - y) * width * 4
            let d = (memory + y * bytesPerRow).assumingMemoryBound(to: UInt32.self)
            for x in 0..<width {
                let r = UInt32(s[4 * x]), g = UInt32(s[4 * x + 1]), b = UInt32(s[4 * x + 2]), a = UInt32(s[4 * x + 3])
                d[x] = min(b, a) | min(g, a) << 8 | min(r, a) << 16 | a << 24
            }
        }
        pixels?.pixelsChanged()
    }
}

/// The release callback of an image's pixel buffer: the buffer is gone, so
/// is its reference to the image.
private let eaglPixelsReleased: CVPixelBufferReleaseBytesCallback = { refCon, _ in
    guard let refCon else { return }
    let img = Unmanaged<EAGLImage>.fromOpaque(refCon)
    img.takeUnretainedValue().pixelsReleased()
    img.release()
}

/// The storage of one renderbuffer made from a CAEAGLLayer.
package final class EAGLDrawable {
    package let display: UnsafeMutableRawPointer
    package let context: UnsafeMutableRawPointer
    package let renderbuffer: GLuint
    package let width: Int
    package let height: Int
    package let format: EAGLColorFormat
    package let retained: Bool
    package let usage = EAGLUsage()
    /// Not retained: the two images the renderbuffer alternates between.
    /// Retained: the renderbuffer's image, then the front copy presents show.
    package private(set) var images: [EAGLImage] = []
    /// The images' pixel buffers (the drawable keeps them, and so the images, alive).
    package private(set) var buffers: [PixelBuffer] = []
    /// The image the renderbuffer holds now.
    private var back = 0
    private let lock = Mutex<Void>(())
    package weak var layer: Layer?

    fileprivate var key: EAGLRegistry.DrawableKey {
        EAGLRegistry.DrawableKey(display: UInt(bitPattern: display), context: UInt(bitPattern: context), renderbuffer: renderbuffer)
    }

    package init(display: UnsafeMutableRawPointer, context: UnsafeMutableRawPointer, renderbuffer: GLuint,
         width: Int, height: Int, format: EAGLColorFormat, retained: Bool) {
        self.display = display
        self.context = context
        self.renderbuffer = renderbuffer
        self.width = width
        self.height = height
        self.format = format
        self.retained = retained
    }

    deinit { EAGLRegistry.unregister(self) }

    package var internalFormat: GLenum { format == .rgb565 ? GL_RGB565 : GL_RGBA8 }

    // MARK: - renderbufferStorage:fromDrawable:

    /// Makes the drawable's images and points the bound renderbuffer at the
    /// first. The context is current and `renderbuffer` bound. Records an
    /// error naming `function` and returns false when GL refuses.
    package func allocate(_ function: StaticString) -> Bool {
        for _ in 0..<2 {
            var tmp: GLuint = 0
            qz_glGenRenderbuffers(1, &tmp)
            qz_glBindRenderbuffer(GL_RENDERBUFFER, tmp)
            qz_glRenderbufferStorage(GL_RENDERBUFFER, internalFormat, GLsizei(width), GLsizei(height))
            let made = GLRuntime.renderbufferParameter(GL_RENDERBUFFER_WIDTH) == width
            let image = made ? qz_internal_egl_create_renderbuffer_image(display, context, tmp) : nil
            qz_glBindRenderbuffer(GL_RENDERBUFFER, renderbuffer)
            // The EGLImage keeps the storage; the name is not needed.
            qz_glDeleteRenderbuffers(1, &tmp)
            guard let image else {
                recordError(QZErrorInvalidState, function, made
                            ? "EGL could not share the renderbuffer as an EGLImage (EGL error 0x\(String(qz_eglGetError(), radix: 16)))"
                            : "GL could not allocate a \(width) x \(height) renderbuffer")
                return false
            }
            guard let (img, pb) = EAGLImage.make(display: display, image: image, width: width, height: height,
                                                 format: format, usage: usage) else {
                recordError(QZErrorOutOfMemory, function, "no memory for a \(width) x \(height) drawable")
                return false
            }
            images.append(img)
            buffers.append(pb)
        }
        qz_glEGLImageTargetRenderbufferStorageOES(GL_RENDERBUFFER, images[0].image)
        guard GLRuntime.renderbufferParameter(GL_RENDERBUFFER_WIDTH) == width, GLRuntime.renderbufferParameter(GL_RENDERBUFFER_HEIGHT) == height else {
            recordError(QZErrorInvalidState, function, "GL could not attach the drawable's storage to the renderbuffer")
            return false
        }
        return true
    }

    // MARK: - presentRenderbuffer:

    /// Presents what the host drew: returns the pixel buffer that stands for
    /// it. The context is current and the drawable's renderbuffer bound.
    package func present() -> PixelBuffer {
        lock.withLock { _ in
            let host = GLHostState.save()
            GLHostState.prepareForDrawing()
            qz_glDisable(GL_SCISSOR_TEST)
            var readFBO: GLuint = 0
            qz_glGenFramebuffers(1, &readFBO)
            qz_glBindFramebuffer(GL_READ_FRAMEBUFFER, readFBO)
            qz_glFramebufferRenderbuffer(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, renderbuffer)
            let frontIndex = retained ? 1 : back
            let front = images[frontIndex]
            if retained {
                // The front copy: the renderbuffer keeps its pixels.
                var copy: GLuint = 0, drawFBO: GLuint = 0
                qz_glGenRenderbuffers(1, &copy)
                qz_glBindRenderbuffer(GL_RENDERBUFFER, copy)
                qz_glEGLImageTargetRenderbufferStorageOES(GL_RENDERBUFFER, front.image)
                qz_glGenFramebuffers(1, &drawFBO)
                qz_glBindFramebuffer(GL_DRAW_FRAMEBUFFER, drawFBO)
                qz_glFramebufferRenderbuffer(GL_DRAW_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, copy)
                let w = GLint(width), h = GLint(height)
                qz_glBlitFramebuffer(0, 0, w, h, 0, 0, w, h, GLbitfield(GL_COLOR_BUFFER_BIT), GL_NEAREST)
                qz_glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0)
                qz_glDeleteFramebuffers(1, &drawFBO)
                qz_glBindRenderbuffer(GL_RENDERBUFFER, renderbuffer)
                qz_glDeleteRenderbuffers(1, &copy)
            }
            var rgba: UnsafeMutableRawPointer?
            if usage.needsPixels {
                let p = UnsafeMutableRawPointer.allocate(byteCount: width * height * 4, alignment: 16)
                qz_glReadPixels(0, 0, GLsizei(width), GLsizei(height), GL_RGBA, GL_UNSIGNED_BYTE, p)
                rgba = p
            }
            qz_glBindFramebuffer(GL_READ_FRAMEBUFFER, 0)
            qz_glDeleteFramebuffers(1, &readFBO)
            // GL renderers in other contexts wait for this point before sampling.
            if let f = qz_internal_egl_fence(display) {
                front.setFence(f)
                qz_glFlush()
            } else {
                qz_glFinish()
            }
            if !retained {
                back = 1 - back
                qz_glBindRenderbuffer(GL_RENDERBUFFER, renderbuffer)
                qz_glEGLImageTargetRenderbufferStorageOES(GL_RENDERBUFFER, images[back].image)
            }
            host.restore()
            if let rgba {
                // CPU renderers read the buffer under the model lock.
                withModelLock { front.storePixels(fromGL: rgba) }
                rgba.deallocate()
            } else {
                withModelLock { front.pixels?.pixelsChanged() }
            }
            return buffers[frontIndex]
        }
    }
}

/// Drawables by (display, context, renderbuffer), and images by their pixel
/// buffers (how a GL renderer finds the EGLImage behind layer contents).
package enum EAGLRegistry {
    package struct DrawableKey: Hashable { let display: UInt; let context: UInt; let renderbuffer: GLuint }
    private struct WeakDrawable { weak var drawable: EAGLDrawable? }
    private struct State {
        package var drawables: [DrawableKey: WeakDrawable] = [:]
        package var images: [ObjectIdentifier: Unmanaged<EAGLImage>] = [:]
    }
    private static let state = Mutex<State>(State())

    package static func register(_ d: EAGLDrawable) {
        let old = state.withLock { s -> EAGLDrawable? in
            let o = s.drawables[d.key]?.drawable
            s.drawables[d.key] = WeakDrawable(drawable: d)
            return o
        }
        _ = old   // released outside the lock
    }

    package static func unregister(_ d: EAGLDrawable) {
        let key = d.key
        state.withLock { s in
            if let entry = s.drawables[key], entry.drawable == nil || entry.drawable === d { s.drawables[key] = nil }
        }
    }

    package static func drawable(display: UnsafeMutableRawPointer, context: UnsafeMutableRawPointer, renderbuffer: GLuint) -> EAGLDrawable? {
        let key = DrawableKey(display: UInt(bitPattern: display), context: UInt(bitPattern: context), renderbuffer: renderbuffer)
        return state.withLock { $0.drawables[key]?.drawable }
    }

    fileprivate static func register(_ img: EAGLImage, for pb: PixelBuffer) {
        state.withLock { $0.images[ObjectIdentifier(pb)] = Unmanaged.passUnretained(img) }
    }

    fileprivate static func unregister(_ key: ObjectIdentifier) {
        _ = state.withLock { $0.images.removeValue(forKey: key) }
    }

    /// The image behind `pb`, when it stands for one (the caller holds `pb`,
    /// which keeps the image alive).
    package static func image(for pb: PixelBuffer) -> EAGLImage? {
        state.withLock { $0.images[ObjectIdentifier(pb)]?.takeUnretainedValue() }
    }

    /// A CPU renderer decoded `pb`: when it stands for a GL image, later
    /// presents read their images back.
    package static func noteCPURead(_ pb: PixelBuffer) {
        image(for: pb)?.usage.noteCPU()
    }
}
