import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel
import QuartziteRender

// OpenGL ES through EGL: CAEAGLLayer, the EAGLContext methods that work with
// it (for an EGL display and context), and CARenderer drawing into a GL
// framebuffer. EGL and GLES are loaded when one of these first needs them;
// without them the GL calls record QZErrorInvalidState. Threads: the layer
// functions may be called from any thread (the model lock); the EAGLContext
// and GL renderer calls run on the thread where their EGL context is
// current, as GL requires.

// MARK: - CAEAGLLayer

/// Creates a CAEAGLLayer: a layer whose contents an OpenGL ES context draws
/// (Apple's CAEAGLLayer). Its drawableProperties start as
/// { kEAGLDrawablePropertyRetainedBacking: false, kEAGLDrawablePropertyColorFormat:
/// kEAGLColorFormatRGBA8 }. Returns +1: release with CARelease.
@c public func CAEAGLLayerCreate() -> CALayerRef? {
    retainedHandle(withModelLock { enlistedNewLayer(Layer(class: .eagl)) })
}

// MARK: - EAGLContext methods

/// Apple's -[EAGLContext renderbufferStorage:fromDrawable:] for the EGL
/// context `context` of `display`, which must be current on the calling
/// thread and do OpenGL ES 3.0 or later: allocates storage for the
/// renderbuffer bound to GL_RENDERBUFFER (`target`, 0x8D41) sized to the
/// layer's bounds x contentsScale in pixels, in the colour format its
/// drawableProperties ask for (GL_RGBA8 or GL_RGB565). Until the first
/// present the layer's contents are unchanged. The storage is the layer's:
/// calling again (after the layer is resized, say) replaces it. GL state:
/// the renderbuffer binding is kept; nothing else is changed.
/// Returns false and records an error when it cannot: QZErrorNullArgument
/// (NULL display, context or layer), QZErrorInvalidArgument (another
/// target; a context that is not a live OpenGL ES context of that display,
/// e.g. destroyed or of another display), QZErrorInvalidState (EGL/GLES not
/// available; the context not current or older than ES 3.0; no renderbuffer
/// bound; an empty layer), QZErrorWrongType (not a CAEAGLLayer),
/// QZErrorOutOfRange (larger than GL_MAX_RENDERBUFFER_SIZE),
/// QZErrorUnknownConstant (an unknown colour format).
@c public func QZEAGLContextRenderbufferStorageFromDrawable(_ display: EGLDisplay?, _ context: EGLContext?, _ target: size_t,
                                                            _ drawable: CALayerRef?) -> Bool {
    guard let l = object(drawable, as: Layer.self) else { return false }
    return EAGLContextCalls.renderbufferStorage(display, context, target, l, #function)
}

/// Apple's -[EAGLContext presentRenderbuffer:] for the EGL context `context`
/// of `display` (current on the calling thread): the image the host drew into
/// the renderbuffer bound to GL_RENDERBUFFER (`target`) becomes its layer's
/// contents, shown from the next committed frame (the calling thread's
/// transaction, without an implicit animation). GL renderers texture from it
/// without a copy; CPU renderers read it back at present. Afterwards the
/// renderbuffer's contents are undefined unless the layer's
/// kEAGLDrawablePropertyRetainedBacking is true (then they are kept, at the
/// cost of a GPU copy per present). The host's GL state is restored
/// (GLHostState's list in the README); commands before the present are
/// flushed. Returns false and records an error when it cannot: the errors
/// of QZEAGLContextRenderbufferStorageFromDrawable, and QZErrorInvalidState
/// when the bound renderbuffer has no storage from a drawable.
@c public func QZEAGLContextPresentRenderbuffer(_ display: EGLDisplay?, _ context: EGLContext?, _ target: size_t) -> Bool {
    EAGLContextCalls.present(display, context, target, #function)
}

// MARK: - CARenderer into a GL framebuffer

/// Creates a renderer that draws frames with OpenGL ES 3 into the
/// framebuffer bound to GL_DRAW_FRAMEBUFFER of `context` at each
/// CARendererRender (Apple's +rendererWithCGLContext:options: for EGL).
/// `context` must be a live OpenGL ES 3.0 (or later) context of `display`,
/// current on the calling thread now and whenever the renderer draws. The
/// renderer's bounds start as {0, 0, w, h} with w x h the current viewport's
/// size; the frame is bounds.size pixels drawn into the framebuffer's
/// rectangle (0, 0, w, h), upright in GL's convention (the layer tree's top
/// edge at the framebuffer's highest row), premultiplied RGBA, over what
/// the update rectangle held (cleared to transparent first). Frames use the
/// same calls as CARendererCreate's (BeginFrameAtTime, UpdateBounds,
/// AddUpdateRect, Render, EndFrame, GetNextFrameTime) and redraw only the
/// update rectangle, so the framebuffer must keep its pixels between frames
/// (a framebuffer object does). The host's GL state is saved and restored
/// around each Render. Releasing the renderer deletes its GL objects (making
/// the context current for that moment when it is not). `options` may be
/// NULL or a dictionary (kCARendererColorSpace is accepted and ignored).
/// Returns +1 (release with CARelease), or NULL with the errors of
/// QZEAGLContextRenderbufferStorageFromDrawable for the context (an ES 1 or
/// ES 2 context: QZErrorInvalidState), or QZErrorInvalidArgument for options
/// that are not a dictionary.
@c public func CARendererCreateWithEGLContext(_ display: EGLDisplay?, _ context: EGLContext?, _ options: CAValueRef?) -> CARendererRef? {
    if let options {
        guard let v = object(options, as: Value.self) else { return nil }
        guard case .dictionary = v.storage else {
            recordError(QZErrorInvalidArgument, #function, "options must be a dictionary value or NULL")
            return nil
        }
    }
    guard GLRuntime.requireCurrent(display, context, #function), let display, let context else { return nil }
    var viewport: [GLint] = [0, 0, 0, 0]
    qz_glGetIntegerv(GL_VIEWPORT, &viewport)
    let bounds = CGRect(x: 0, y: 0, width: Double(max(viewport[2], 0)), height: Double(max(viewport[3], 0)))
    return retainedHandle(Renderer(gpu: GLRenderer(display: display, context: context), bounds: bounds))
}
