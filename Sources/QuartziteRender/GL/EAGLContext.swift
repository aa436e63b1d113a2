import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel

// The two EAGLContext methods that work with a CAEAGLLayer, for an EGL
// context (QZEAGLContextRenderbufferStorageFromDrawable and
// QZEAGLContextPresentRenderbuffer): the context stands for the EAGLContext
// and must be current on the calling thread, as the renderbuffer they act
// on is the one bound in it.

package enum EAGLContextCalls {
    package static func checkTarget(_ target: Int, _ function: StaticString) -> Bool {
        guard target == Int(GL_RENDERBUFFER) else {
            recordError(QZErrorInvalidArgument, function, "target must be GL_RENDERBUFFER (0x8D41), got 0x\(String(target, radix: 16))")
            return false
        }
        return true
    }

    /// The renderbuffer bound in the current context, or 0 (an error recorded).
    package static func boundRenderbuffer(_ function: StaticString) -> GLuint {
        let rb = GLuint(bitPattern: GLRuntime.integer(GL_RENDERBUFFER_BINDING))
        if rb == 0 { recordError(QZErrorInvalidState, function, "no renderbuffer is bound to GL_RENDERBUFFER in the current context") }
        return rb
    }

    /// Apple's renderbufferStorage:fromDrawable:.
    package static func renderbufferStorage(_ display: UnsafeMutableRawPointer?, _ context: UnsafeMutableRawPointer?,
                                    _ target: Int, _ layer: Layer, _ function: StaticString) -> Bool {
        guard checkTarget(target, function) else { return false }
        let isEAGL = withModelLock { layer.eagl != nil }
        guard isEAGL else {
            recordError(QZErrorWrongType, function, "the drawable is a \(layer.layerClass.name), not a CAEAGLLayer")
            return false
        }
        guard GLRuntime.requireCurrent(display, context, function), let display, let context else { return false }
        let rb = boundRenderbuffer(function)
        guard rb != 0 else { return false }
        // The size (bounds x contentsScale, in pixels) and the drawable
        // properties, as the model has them now.
        let (w, h, config) = withModelLock { () -> (Double, Double, (retained: Bool, format: EAGLColorFormat)?) in
            let s0 = layer.visuals?.contentsScale ?? 1
            let scale = s0.isFinite && s0 > 0 ? s0 : 1
            let b = layer.bounds.standardized
            return (b.width * scale, b.height * scale, layer.eagl?.configuration(function))
        }
        guard let config else { return false }
        guard w.isFinite, h.isFinite, w.rounded() >= 1, h.rounded() >= 1 else {
            recordError(QZErrorInvalidState, function,
                        "the layer is \(w) x \(h) pixels (bounds x contentsScale): there is nothing to allocate")
            return false
        }
        let limit = Double(GLRuntime.integer(GL_MAX_RENDERBUFFER_SIZE))
        guard w.rounded() <= limit, h.rounded() <= limit else {
            recordError(QZErrorOutOfRange, function, "the layer is \(w) x \(h) pixels; the context's renderbuffers are at most \(Int(limit)) a side")
            return false
        }
        let drawable = EAGLDrawable(display: display, context: context, renderbuffer: rb,
                                    width: Int(w.rounded()), height: Int(h.rounded()),
                                    format: config.format, retained: config.retained)
        guard drawable.allocate(function) else { return false }
        drawable.layer = layer
        EAGLRegistry.register(drawable)
        withModelLock { layer.eagl?.drawable = drawable }
        return true
    }

    /// Apple's presentRenderbuffer:.
    package static func present(_ display: UnsafeMutableRawPointer?, _ context: UnsafeMutableRawPointer?,
                        _ target: Int, _ function: StaticString) -> Bool {
        guard checkTarget(target, function) else { return false }
        guard GLRuntime.requireCurrent(display, context, function), let display, let context else { return false }
        let rb = boundRenderbuffer(function)
        guard rb != 0 else { return false }
        guard let drawable = EAGLRegistry.drawable(display: display, context: context, renderbuffer: rb),
              let layer = drawable.layer else {
            recordError(QZErrorInvalidState, function,
                        "the bound renderbuffer has no storage from a drawable (call QZEAGLContextRenderbufferStorageFromDrawable first)")
            return false
        }
        guard GLRuntime.renderbufferParameter(GL_RENDERBUFFER_WIDTH) == drawable.width,
              GLRuntime.renderbufferParameter(GL_RENDERBUFFER_HEIGHT) == drawable.height else {
            recordError(QZErrorInvalidState, function, "the renderbuffer's storage was replaced since it was made from the drawable")
            return false
        }
        let pixels = drawable.present()
        // The image becomes the layer's contents in the calling thread's
        // transaction (it shows from the next committed frame), without an
        // implicit animation.
        withModelLock {
            guard layer.eagl?.drawable === drawable else { return }
            Transactions.begin()
            ThreadTransactions.current.top.disableActions = true
            layer.transactionChange(.contents) {
                _ = layer.setDeclared(.contents, Value(.object(pixels)), function: function)
            }
            _ = Transactions.commit()
        }
        return true
    }
}
