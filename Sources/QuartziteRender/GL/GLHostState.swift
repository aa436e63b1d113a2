import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel

/// The GL state Quartzite's GL work changes, saved from the host's context
/// before it and put back after, so that the host finds its context as it
/// left it. The list (README, "Embedding in an engine", repeats it):
///
/// - bindings: the program, the vertex array, GL_ARRAY_BUFFER, the draw and
///   read framebuffers, the renderbuffer, the active texture unit, and on
///   units 0 to 3 the 2D texture and the sampler object;
/// - fixed-function state: the viewport, the scissor box, the enables of
///   GL_BLEND, GL_SCISSOR_TEST, GL_DEPTH_TEST, GL_STENCIL_TEST,
///   GL_CULL_FACE, GL_DITHER, GL_POLYGON_OFFSET_FILL,
///   GL_SAMPLE_ALPHA_TO_COVERAGE, GL_SAMPLE_COVERAGE and
///   GL_RASTERIZER_DISCARD, the blend functions and equations, the colour
///   write mask and the clear colour;
/// - pixel storage: GL_UNPACK_* and GL_PACK_* (alignment, row length, skips,
///   image height) and the pixel pack and unpack buffer bindings.
///
/// Not touched, so not saved: uniform buffers, transform feedback (do not
/// call Quartzite while it is active), the depth and stencil buffers (their
/// tests are off while Quartzite draws), the GL error flag (Quartzite checks
/// its work with queries, not glGetError).
package struct GLHostState {
    package static let textureUnits = 4
    private static let capabilities: [GLenum] = [
        GL_BLEND, GL_SCISSOR_TEST, GL_DEPTH_TEST, GL_STENCIL_TEST, GL_CULL_FACE, GL_DITHER, GL_POLYGON_OFFSET_FILL,
        GL_SAMPLE_ALPHA_TO_COVERAGE, GL_SAMPLE_COVERAGE, GL_RASTERIZER_DISCARD,
    ]
    private static let integers: [GLenum] = [
        GL_CURRENT_PROGRAM, GL_VERTEX_ARRAY_BINDING, GL_ARRAY_BUFFER_BINDING, GL_DRAW_FRAMEBUFFER_BINDING,
        GL_READ_FRAMEBUFFER_BINDING, GL_RENDERBUFFER_BINDING, GL_ACTIVE_TEXTURE,
        GL_BLEND_SRC_RGB, GL_BLEND_DST_RGB, GL_BLEND_SRC_ALPHA, GL_BLEND_DST_ALPHA, GL_BLEND_EQUATION_RGB,
        GL_BLEND_EQUATION_ALPHA, GL_UNPACK_ALIGNMENT, GL_UNPACK_ROW_LENGTH, GL_UNPACK_SKIP_ROWS,
        GL_UNPACK_SKIP_PIXELS, GL_UNPACK_IMAGE_HEIGHT, GL_UNPACK_SKIP_IMAGES, GL_PACK_ALIGNMENT, GL_PACK_ROW_LENGTH,
        GL_PACK_SKIP_ROWS, GL_PACK_SKIP_PIXELS, GL_PIXEL_PACK_BUFFER_BINDING, GL_PIXEL_UNPACK_BUFFER_BINDING,
    ]

    private var enabled: [GLboolean] = []
    private var values: [GLenum: GLint] = [:]
    private var textures: [GLint] = []
    private var samplers: [GLint] = []
    private var viewport: [GLint] = [0, 0, 0, 0]
    private var scissor: [GLint] = [0, 0, 0, 0]
    private var colorMask: [GLboolean] = [1, 1, 1, 1]
    private var clearColor: [GLfloat] = [0, 0, 0, 0]

    /// Saves the state listed above from the current context.
    package static func save() -> GLHostState {
        var s = GLHostState()
        s.enabled = capabilities.map { qz_glIsEnabled($0) }
        for name in integers { s.values[name] = GLRuntime.integer(name) }
        let active = GLRuntime.integer(GL_ACTIVE_TEXTURE)
        for unit in 0..<textureUnits {
            qz_glActiveTexture(GL_TEXTURE0 + GLenum(unit))
            s.textures.append(GLRuntime.integer(GL_TEXTURE_BINDING_2D))
            s.samplers.append(GLRuntime.integer(GL_SAMPLER_BINDING))
        }
        qz_glActiveTexture(GLenum(bitPattern: active))
        qz_glGetIntegerv(GL_VIEWPORT, &s.viewport)
        qz_glGetIntegerv(GL_SCISSOR_BOX, &s.scissor)
        qz_glGetBooleanv(GL_COLOR_WRITEMASK, &s.colorMask)
        qz_glGetFloatv(GL_COLOR_CLEAR_VALUE, &s.clearColor)
        return s
    }

    /// Sets what Quartzite's drawing expects: no depth, stencil, culling or
    /// other per-fragment operations, premultiplied source-over blending,
    /// all colour channels written, no pixel buffer objects, tight rows.
    package static func prepareForDrawing() {
        for cap in [GL_DEPTH_TEST, GL_STENCIL_TEST, GL_CULL_FACE, GL_DITHER, GL_POLYGON_OFFSET_FILL,
                    GL_SAMPLE_ALPHA_TO_COVERAGE, GL_SAMPLE_COVERAGE, GL_RASTERIZER_DISCARD] {
            qz_glDisable(cap)
        }
        qz_glEnable(GL_BLEND)
        qz_glBlendFuncSeparate(GL_ONE, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA)
        qz_glBlendEquationSeparate(GL_FUNC_ADD, GL_FUNC_ADD)
        qz_glColorMask(1, 1, 1, 1)
        prepareForTransfers()
        for unit in 0..<textureUnits { qz_glBindSampler(GLuint(unit), 0) }
    }

    /// Pixel storage for uploads and reads: no buffer objects, defaults.
    package static func prepareForTransfers() {
        qz_glBindBuffer(GL_PIXEL_PACK_BUFFER, 0)
        qz_glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0)
        for name in [GL_UNPACK_ROW_LENGTH, GL_UNPACK_SKIP_ROWS, GL_UNPACK_SKIP_PIXELS, GL_UNPACK_IMAGE_HEIGHT,
                     GL_UNPACK_SKIP_IMAGES, GL_PACK_ROW_LENGTH, GL_PACK_SKIP_ROWS, GL_PACK_SKIP_PIXELS] {
            qz_glPixelStorei(name, 0)
        }
        qz_glPixelStorei(GL_UNPACK_ALIGNMENT, 4)
        qz_glPixelStorei(GL_PACK_ALIGNMENT, 4)
    }

    /// Puts everything saved back.
    package func restore() {
        for (cap, on) in zip(Self.capabilities, enabled) { if on != 0 { qz_glEnable(cap) } else { qz_glDisable(cap) } }
        func v(_ name: GLenum) -> GLint { values[name] ?? 0 }
        func u(_ name: GLenum) -> GLuint { GLuint(bitPattern: v(name)) }
        func e(_ name: GLenum) -> GLenum { GLenum(bitPattern: v(name)) }
        qz_glUseProgram(u(GL_CURRENT_PROGRAM))
        qz_glBindVertexArray(u(GL_VERTEX_ARRAY_BINDING))
        qz_glBindBuffer(GL_ARRAY_BUFFER, u(GL_ARRAY_BUFFER_BINDING))
        qz_glBindFramebuffer(GL_DRAW_FRAMEBUFFER, u(GL_DRAW_FRAMEBUFFER_BINDING))
        qz_glBindFramebuffer(GL_READ_FRAMEBUFFER, u(GL_READ_FRAMEBUFFER_BINDING))
        qz_glBindRenderbuffer(GL_RENDERBUFFER, u(GL_RENDERBUFFER_BINDING))
        qz_glBlendFuncSeparate(e(GL_BLEND_SRC_RGB), e(GL_BLEND_DST_RGB), e(GL_BLEND_SRC_ALPHA), e(GL_BLEND_DST_ALPHA))
        qz_glBlendEquationSeparate(e(GL_BLEND_EQUATION_RGB), e(GL_BLEND_EQUATION_ALPHA))
        for name in [GL_UNPACK_ALIGNMENT, GL_UNPACK_ROW_LENGTH, GL_UNPACK_SKIP_ROWS, GL_UNPACK_SKIP_PIXELS,
                     GL_UNPACK_IMAGE_HEIGHT, GL_UNPACK_SKIP_IMAGES, GL_PACK_ALIGNMENT, GL_PACK_ROW_LENGTH,
                     GL_PACK_SKIP_ROWS, GL_PACK_SKIP_PIXELS] {
            qz_glPixelStorei(name, v(name))
        }
        qz_glBindBuffer(GL_PIXEL_PACK_BUFFER, u(GL_PIXEL_PACK_BUFFER_BINDING))
        qz_glBindBuffer(GL_PIXEL_UNPACK_BUFFER, u(GL_PIXEL_UNPACK_BUFFER_BINDING))
        for unit in 0..<Self.textureUnits {
            qz_glActiveTexture(GL_TEXTURE0 + GLenum(unit))
            qz_glBindTexture(GL_TEXTURE_2D, GLuint(bitPattern: textures[unit]))
            qz_glBindSampler(GLuint(unit), GLuint(bitPattern: samplers[unit]))
        }
        qz_glActiveTexture(e(GL_ACTIVE_TEXTURE))
        qz_glViewport(viewport[0], viewport[1], viewport[2], viewport[3])
        qz_glScissor(scissor[0], scissor[1], scissor[2], scissor[3])
        qz_glColorMask(colorMask[0], colorMask[1], colorMask[2], colorMask[3])
        qz_glClearColor(clearColor[0], clearColor[1], clearColor[2], clearColor[3])
    }
}
