import CQuartzite
import Glibc
import Synchronization
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel

// The GPU renderer: replays a frame's draw list (Render/DrawList.swift) with
// OpenGL ES 3 into the framebuffer bound in the host's context, operation by
// operation as the CPU compositor does (Render/Compositor.swift), so that
// both draw the same frame. It is also the reference for engines that replay
// QZRendererCopyDrawList with their own GPU API; it is written to be read:
//
// - fill, border, image: one rectangle over the operation's pixel bounds;
//   the fragment program maps each pixel back into layer space and computes
//   coverage (edges, corners, border ring), texture samples and clip
//   coverage there (GLShaders.quad).
// - pushClip / popClip: a stack of clip records (inverse and forward
//   homographies, rect, radius, edge mask) in a float texture; every drawing
//   program multiplies by the coverage of each.
// - beginGroup ... [beginMask ...] endGroup: the contents into an offscreen
//   texture (the mask into a second one, without the enclosing clips), then
//   composited with the group's opacity times the mask's alpha.
// - beginShadow ... endShadow: the silhouette into an offscreen texture
//   (without the enclosing clips), its alpha blurred in two passes with the
//   CPU kernels' weights, composited tinted and offset through the clips.
// - path: coverage rasterized on the CPU into an R8 texture, then composited.
// - a group's filters: passes of the filter program from offscreen to
//   offscreen (colour matrix, colour controls, the blur's two axes); a
//   compositingFilter other than source-over: the pixels below copied
//   (glBlitFramebuffer) and combined with the group's in the blend program.
// - backdrop: the pixels under the layer copied, filtered (wide blurs at a
//   reduced size, as the CPU's), put back through the shape's coverage.
//
// Damage: only the frame's update rectangle is redrawn (scissored); the
// framebuffer must keep the previous frame's pixels elsewhere (an FBO does).

/// One framebuffer being drawn into: the host's (the frame) or an offscreen.
private struct GLCanvas {
    /// The target pixels drawing may touch (clipped by damage for the frame).
    package var rect: PixelBox
    /// The target pixels the framebuffer covers.
    package var frame: PixelBox
    package var framebuffer: GLuint
    /// Rows bottom-up (the host's framebuffer).
    package var flip: Bool
    package var offscreen: GLOffscreen?
}

/// A clip record as the shaders read it (six RGBA32F texels).
private struct GLClip {
    package var texels: [Float]

    package init(_ op: DrawOp) {
        let identity = Homography(m: (1, 0, 0, 0, 1, 0, 0, 0, 1))
        var rect = op.rect.standardized
        var fwd = identity, inv = identity
        if op.transform.inverse?.isFinite == true {
            let local = LocalFrame(op.transform, rect, near: op.bounds)
            fwd = local.forward
            inv = local.inverse
            rect = local.rect
        } else {
            // A degenerate clip hides everything inside it (as the CPU's does).
            rect = .zero
        }
        let i = inv.m, f = fwd.m
        texels = [Float(i.0), Float(i.1), Float(i.2), Float(i.3), Float(i.4), Float(i.5), Float(i.6), Float(i.7),
                  Float(i.8), Float(f.0), Float(f.1), Float(f.2), Float(f.3), Float(f.4), Float(f.5), Float(f.6),
                  Float(f.7), Float(f.8), Float(op.cornerRadius), Float(op.edgeMask & 0xF),
                  Float(rect.minX), Float(rect.minY), Float(rect.maxX), Float(rect.maxY)]
    }
}

/// A quad's layer space moved to an origin near the pixels drawn, so that
/// the shaders' 32-bit floats keep the precision the CPU's doubles have when
/// coordinates are large (a layer far from its superlayer's origin): the
/// forward and inverse maps of the moved space, and the quad in it.
private struct LocalFrame {
    package let origin: CGPoint
    package let forward: Homography
    package let inverse: Homography
    package let rect: CGRect

    package init(_ h: Homography, _ r: CGRect, near target: CGRect) {
        var o = CGPoint(x: r.minX, y: r.minY)
        if let inv = h.inverse, !target.isNull, target.midX.isFinite, target.midY.isFinite {
            // The layer point under the middle of the pixels drawn, kept in the quad.
            let (x, y, w) = inv.applyHomogeneous(CGPoint(x: target.midX, y: target.midY))
            if w != 0, (x / w).isFinite, (y / w).isFinite {
                o = CGPoint(x: min(max(x / w, r.minX), r.maxX), y: min(max(y / w, r.minY), r.maxY))
            }
        }
        if !o.x.isFinite || !o.y.isFinite { o = CGPoint(x: 0, y: 0) }
        origin = o
        forward = h.pretranslated(o.x, o.y)
        inverse = forward.inverse.flatMap { $0.isFinite ? $0 : nil } ?? h.inverse ?? h
        rect = r.offsetBy(dx: -o.x, dy: -o.y)
    }
}

/// Uniforms the programs use (a location of -1 where a program has none).
package enum GLUniform: Int, CaseIterable {
    case uBox, uTarget, uFlipY, uClips, uClipCount, uInv, uFwd, uRect, uRadius, uEdges, uKind, uBorderWidth
    case uColor, uOpacity, uTex, uMask, uTexOrigin, uTexScale, uMinFilter, uMagFilter, uBias, uLevels, uFlipV
    case uHasMask, uWeights
    case uSourceBox, uClampSource, uMatrix, uVector, uAxis, uFinal, uFactor, uDst, uDstOrigin, uMode
}

package final class GLProgram {
    package let name: GLuint
    private var locations: [GLint]

    package init(name: GLuint) {
        self.name = name
        locations = GLUniform.allCases.map { u in String(describing: u).withCString { qz_glGetUniformLocation(name, $0) } }
    }

    package subscript(_ u: GLUniform) -> GLint { locations[u.rawValue] }
}

/// The GL renderer's programs, compiled once per context and shared by the
/// renderers that draw with it (compiling is the costly part of a first frame).
package final class GLProgramSet {
    package let quad: GLProgram, group: GLProgram, blur: GLProgram, shadow: GLProgram, path: GLProgram
    package let filter: GLProgram, blend: GLProgram, backdrop: GLProgram
    private var users = 0
    private let key: UInt
    private static let byContext = Mutex<[UInt: GLProgramSet]>([:])

    private init(key: UInt, _ p: [GLProgram]) {
        self.key = key
        (quad, group, blur, shadow, path) = (p[0], p[1], p[2], p[3], p[4])
        (filter, blend, backdrop) = (p[5], p[6], p[7])
    }

    private var all: [GLProgram] { [quad, group, blur, shadow, path, filter, blend, backdrop] }

    /// The programs of `context` (current on this thread), compiled on first
    /// use; nil with the driver's log in `log` when they do not compile.
    package static func acquire(_ context: UnsafeMutableRawPointer, log: inout String) -> GLProgramSet? {
        let key = UInt(bitPattern: context)
        return byContext.withLock { sets -> GLProgramSet? in
            // (Names from a destroyed context whose address came back are not programs here.)
            if let s = sets[key], s.all.allSatisfy({ qz_glIsProgram($0.name) != 0 }) {
                s.users += 1
                return s
            }
            var made: [GLProgram] = []
            for source in [GLShaders.quad, GLShaders.group, GLShaders.blur, GLShaders.shadow, GLShaders.path,
                           GLShaders.filter, GLShaders.blend, GLShaders.backdrop] {
                guard let name = compileGLProgram(vertex: GLShaders.vertex, fragment: source, log: &log) else {
                    for p in made { qz_glDeleteProgram(p.name) }
                    return nil
                }
                made.append(GLProgram(name: name))
            }
            for prog in made {
                qz_glUseProgram(prog.name)
                qz_glUniform1i(prog[.uTex], unitSource)
                qz_glUniform1i(prog[.uClips], unitClips)
                qz_glUniform1i(prog[.uWeights], unitWeights)
                qz_glUniform1i(prog[.uMask], unitMask)
                qz_glUniform1i(prog[.uDst], unitDestination)
            }
            let s = GLProgramSet(key: key, made)
            s.users = 1
            sets[key] = s
            return s
        }
    }

    /// A renderer is done with them; the last one deletes them when
    /// `contextCurrent` (else they go with the context).
    package func release(contextCurrent: Bool) {
        GLProgramSet.byContext.withLock { sets in
            users -= 1
            guard users == 0 else { return }
            if sets[key] === self { sets[key] = nil }
            if contextCurrent { for p in all { qz_glDeleteProgram(p.name) } }
        }
    }
}

/// Texture units: the source, the clips, blur weights, a mask; a copy of
/// the destination (blend modes, backdrops: programs without weights).
private let unitSource: GLint = 0, unitClips: GLint = 1, unitWeights: GLint = 2, unitMask: GLint = 3
private let unitDestination: GLint = 2

package final class GLRenderer {
    /// The largest frame side (pixels) a GL renderer draws.
    package static let maxTargetSide = 16384

    package let display: UnsafeMutableRawPointer
    package let context: UnsafeMutableRawPointer
    package private(set) var programs: GLProgramSet?
    private var quad: GLProgram? { programs?.quad }
    private var group: GLProgram? { programs?.group }
    private var blur: GLProgram? { programs?.blur }
    private var shadow: GLProgram? { programs?.shadow }
    private var path: GLProgram? { programs?.path }
    private var filterProgram: GLProgram? { programs?.filter }
    private var blendProgram: GLProgram? { programs?.blend }
    private var backdropProgram: GLProgram? { programs?.backdrop }
    private var vertexArray: GLuint = 0
    private var clipTexture: GLuint = 0
    private var clipCapacity = 0
    private var pathTexture: GLuint = 0
    private let textures: GLTextureCache
    private var offscreens: [GLOffscreen] = []
    private var weights: [UInt64: (texture: GLuint, radius: Int)] = [:]
    private var weightsUsed: Set<UInt64> = []

    // The frame in progress.
    private var canvases: [GLCanvas] = []
    private var clips: [GLClip] = []
    private var savedClips: [[GLClip]] = []
    private var groups: [(op: DrawOp, canvas: GLCanvas, mask: GLCanvas?)] = []
    private var shadows: [(op: DrawOp, canvas: GLCanvas)] = []
    private var bound: (framebuffer: GLuint, rect: PixelBox, frame: PixelBox)?

    /// Statistics for tests: textures kept, offscreens made.
    package var textureCount: Int { textures.count }

    package init(display: UnsafeMutableRawPointer, context: UnsafeMutableRawPointer) {
        self.display = display
        self.context = context
        textures = GLTextureCache(display: display)
    }

    deinit {
        guard programs != nil || textures.count > 0 || !offscreens.isEmpty else { return }
        // GL objects belong to the context: delete them with it current,
        // making it current for the moment when it is not (and putting the
        // thread's own current context back). When that is impossible (the
        // context is gone, or current on another thread) they go with it.
        let prevDisplay = qz_eglGetCurrentDisplay(), prevContext = qz_eglGetCurrentContext()
        let prevDraw = qz_eglGetCurrentSurface(EGL_DRAW), prevRead = qz_eglGetCurrentSurface(EGL_READ)
        var switched = false
        if prevContext != context {
            guard qz_eglMakeCurrent(display, nil, nil, context) != 0 else {
                programs?.release(contextCurrent: false)
                return
            }
            switched = true
        }
        releaseResources()
        if switched {
            if let prevContext, let prevDisplay {
                _ = qz_eglMakeCurrent(prevDisplay, prevDraw, prevRead, prevContext)
            } else {
                _ = qz_eglMakeCurrent(display, nil, nil, nil)
            }
        }
    }

    private func releaseResources() {
        programs?.release(contextCurrent: true)
        programs = nil
        if vertexArray != 0 { qz_glDeleteVertexArrays(1, [vertexArray]) }
        var names = [clipTexture, pathTexture].filter { $0 != 0 }
        names += weights.values.map { $0.texture }
        if !names.isEmpty { qz_glDeleteTextures(GLsizei(names.count), names) }
        for o in offscreens { o.delete() }
        offscreens = []
        weights = [:]
        textures.deleteAll()
        vertexArray = 0; clipTexture = 0; pathTexture = 0
    }

    // MARK: - Frames

    /// Draws `region` of a frame of `size` from `ops` into the framebuffer
    /// bound to GL_DRAW_FRAMEBUFFER, cleared to transparent there first.
    /// The context must be current; the host's state is restored after.
    /// Records an error naming `function` and returns false when it cannot.
    package func draw(_ ops: [DrawOp], region: PixelBox, size: PixelBox, function: StaticString) -> Bool {
        guard GLRuntime.requireCurrent(display, context, function) else { return false }
        guard !region.intersection(size).isEmpty else { return true }
        let host = GLHostState.save()
        defer { host.restore() }
        GLHostState.prepareForDrawing()
        guard prepare(function) else { return false }
        let target = GLuint(bitPattern: GLRuntime.integer(GL_DRAW_FRAMEBUFFER_BINDING))
        qz_glBindVertexArray(vertexArray)
        qz_glEnable(GL_SCISSOR_TEST)
        let root = GLCanvas(rect: region.intersection(size), frame: size, framebuffer: target, flip: true, offscreen: nil)
        canvases = [root]
        clips = []
        savedClips = []
        groups = []
        shadows = []
        bound = nil
        if !root.rect.isEmpty {
            bind(root)
            qz_glClearColor(0, 0, 0, 0)
            qz_glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
            for op in ops { execute(op) }
        }
        // Whatever a malformed list left open is dropped.
        for g in groups { release(g.canvas); if let m = g.mask { release(m) } }
        for s in shadows { release(s.canvas) }
        groups = []
        shadows = []
        canvases = []
        endFrame()
        return true
    }

    /// Compiles the programs and makes the shared objects (once).
    private func prepare(_ function: StaticString) -> Bool {
        if programs != nil { return true }
        var log = ""
        guard let set = GLProgramSet.acquire(context, log: &log) else {
            recordError(QZErrorInvalidState, function, "the GL renderer's shaders did not compile: \(log)")
            return false
        }
        programs = set
        qz_glGenVertexArrays(1, &vertexArray)
        textures.maxSize = Int(GLRuntime.integer(GL_MAX_TEXTURE_SIZE))
        return true
    }

    private func endFrame() {
        textures.sweep()
        offscreens.removeAll { o in
            if o.usedThisFrame { o.usedThisFrame = false; return false }
            o.delete()
            return true
        }
        for (k, w) in weights where !weightsUsed.contains(k) {
            qz_glDeleteTextures(1, [w.texture])
            weights[k] = nil
        }
        weightsUsed = []
    }

    // MARK: - Operations

    private var top: GLCanvas { canvases[canvases.count - 1] }

    private func execute(_ op: DrawOp) {
        switch op.kind {
        case .fill, .border, .image: drawQuad(op)
        case .path: drawPath(op)
        case .pushClip:
            clips.append(GLClip(op))
        case .popClip:
            if !clips.isEmpty { clips.removeLast() }
        case .beginGroup:
            let c = offscreen(PixelBox(covering: op.bounds).intersection(top.rect))
            groups.append((op, c, nil))
            canvases.append(c)
        case .beginMask:
            guard var g = groups.popLast() else { return }
            let m = offscreen(g.canvas.rect)
            g.mask = m
            groups.append(g)
            canvases.append(m)
            savedClips.append(clips)
            clips = []
        case .endGroup:
            guard let g = groups.popLast() else { return }
            if g.mask != nil {
                canvases.removeLast()
                clips = savedClips.popLast() ?? []
            }
            canvases.removeLast()
            var contents = g.canvas
            if !g.op.filters.isEmpty { contents = applyFilters(g.op.filters, to: g.canvas) }
            let mode = CompositingMode(rawValue: g.op.blendMode) ?? .sourceOver
            if mode == .sourceOver {
                compositeGroup(contents, mask: g.mask, opacity: g.op.opacity, tint: g.op.color)
            } else {
                blendGroup(contents, mask: g.mask, opacity: g.op.opacity, tint: g.op.color, mode: mode)
            }
            if contents.offscreen !== g.canvas.offscreen { release(contents) }
            release(g.canvas)
            if let m = g.mask { release(m) }
        case .beginShadow:
            let margin = blurExtent(sigma: op.shadowRadius) + 1
            let dx = roundedOffset(op.shadowOffset.width), dy = roundedOffset(op.shadowOffset.height)
            let whole = PixelBox(covering: op.rect.offsetBy(dx: Double(dx), dy: Double(dy)))
            let region = PixelBox(covering: op.bounds).intersection(top.rect)
            // The silhouette pixels whose blur reaches the region (as the CPU compositor chooses them).
            let c = offscreen(region.isEmpty ? .empty
                : PixelBox(x0: region.x0 - dx - margin, y0: region.y0 - dy - margin,
                           x1: region.x1 - dx + margin, y1: region.y1 - dy + margin).intersection(whole.offset(-dx, -dy)))
            shadows.append((op, c))
            canvases.append(c)
            savedClips.append(clips)
            clips = []
        case .backdrop: drawBackdrop(op)
        case .endShadow:
            guard let s = shadows.popLast() else { return }
            canvases.removeLast()
            clips = savedClips.popLast() ?? []
            compositeShadow(s.op, s.canvas)
            release(s.canvas)
        }
    }

    private func roundedOffset(_ x: Double) -> Int {
        x.isFinite ? Int(min(max(x, -1e7), 1e7).rounded()) : 0
    }

    // MARK: - Canvases

    /// A cleared offscreen canvas for `rect` (an empty one, which draws
    /// nothing, when it is empty or cannot be made).
    private func offscreen(_ rect: PixelBox) -> GLCanvas {
        let empty = GLCanvas(rect: .empty, frame: .empty, framebuffer: 0, flip: false, offscreen: nil)
        guard !rect.isEmpty, rect.width <= textures.maxSize, rect.height <= textures.maxSize else { return empty }
        var o = offscreens.first { !$0.inUse && $0.width == rect.width && $0.height == rect.height }
        if o == nil, let made = GLOffscreen(width: rect.width, height: rect.height) {
            offscreens.append(made)
            o = made
        }
        guard let o else { return empty }
        o.inUse = true
        o.usedThisFrame = true
        let c = GLCanvas(rect: rect, frame: rect, framebuffer: o.framebuffer, flip: false, offscreen: o)
        bind(c)
        qz_glClearColor(0, 0, 0, 0)
        qz_glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
        return c
    }

    private func release(_ c: GLCanvas) { c.offscreen?.inUse = false }

    /// Makes `c` the framebuffer drawn into, its rect the scissor.
    private func bind(_ c: GLCanvas) {
        if let b = bound, b.framebuffer == c.framebuffer, b.rect == c.rect, b.frame == c.frame { return }
        bound = (c.framebuffer, c.rect, c.frame)
        qz_glBindFramebuffer(GL_DRAW_FRAMEBUFFER, c.framebuffer)
        qz_glViewport(0, 0, GLsizei(c.frame.width), GLsizei(c.frame.height))
        let x = c.rect.x0 - c.frame.x0
        let y = c.flip ? c.frame.y1 - c.rect.y1 : c.rect.y0 - c.frame.y0
        qz_glScissor(GLint(x), GLint(y), GLsizei(c.rect.width), GLsizei(c.rect.height))
    }

    /// Selects `p`, binds `c`, and sets the uniforms every program shares.
    private func use(_ p: GLProgram, _ c: GLCanvas, box: PixelBox) {
        bind(c)
        qz_glUseProgram(p.name)
        qz_glUniform4f(p[.uBox], Float(box.x0), Float(box.y0), Float(box.x1), Float(box.y1))
        qz_glUniform4f(p[.uTarget], Float(c.frame.x0), Float(c.frame.y0), Float(c.frame.width), Float(c.frame.height))
        qz_glUniform1f(p[.uFlipY], c.flip ? 1 : 0)
        qz_glUniform1i(p[.uClipCount], GLint(clips.count))
        if !clips.isEmpty { uploadClips() }
    }

    private func drawBox() { qz_glDrawArrays(GL_TRIANGLE_STRIP, 0, 4) }

    private func bindTexture(_ name: GLuint, unit: GLint) {
        qz_glActiveTexture(GL_TEXTURE0 + GLenum(unit))
        qz_glBindTexture(GL_TEXTURE_2D, name)
        qz_glActiveTexture(GL_TEXTURE0)
    }

    /// Keeps the clip texture's rows equal to the clip stack (sent again
    /// only when it changed: stacks are short).
    private func uploadClips() {
        if clipTexture == 0 || clipCapacity < clips.count {
            if clipTexture != 0 { qz_glDeleteTextures(1, [clipTexture]) }
            clipCapacity = max(16, clips.count * 2)
            qz_glGenTextures(1, &clipTexture)
            qz_glActiveTexture(GL_TEXTURE0 + GLenum(unitClips))
            qz_glBindTexture(GL_TEXTURE_2D, clipTexture)
            qz_glTexImage2D(GL_TEXTURE_2D, 0, GLint(GL_RGBA32F), 6, GLsizei(clipCapacity), 0, GL_RGBA, GL_FLOAT, nil)
            qz_glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 0)
            qz_glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GLint(GL_NEAREST))
            qz_glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GLint(GL_NEAREST))
            qz_glActiveTexture(GL_TEXTURE0)
            clipStackSent = []
        }
        bindTexture(clipTexture, unit: unitClips)
        let stack = clips.map { $0.texels }
        if stack == clipStackSent { return }
        let data = Array(stack.joined())
        qz_glActiveTexture(GL_TEXTURE0 + GLenum(unitClips))
        qz_glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, 6, GLsizei(clips.count), GL_RGBA, GL_FLOAT, data)
        qz_glActiveTexture(GL_TEXTURE0)
        clipStackSent = stack
    }
    private var clipStackSent: [[Float]] = []

    // MARK: - Quads

    private func drawQuad(_ op: DrawOp) {
        let canvas = top
        let region = PixelBox(covering: op.bounds).intersection(canvas.rect)
        guard !region.isEmpty, op.opacity > 0, let i0 = op.transform.inverse, i0.isFinite, let p = quad else { return }
        let r = op.rect.standardized
        let local = LocalFrame(op.transform, r, near: region.cgRect)
        var tex: GLTexture?
        var u0 = 0.0, v0 = 0.0, scaleX = 0.0, scaleY = 0.0
        let minFilter = TextureFilter(rawValue: op.minFilter) ?? .linear
        let magFilter = TextureFilter(rawValue: op.magFilter) ?? .linear
        if op.kind == .image {
            guard let pb = op.texture, pb.width > 0, pb.height > 0 else { return }
            let tr = op.textureRect.standardized
            let tw = Double(pb.width), th = Double(pb.height)
            let texels = CGRect(x: tr.minX * tw, y: tr.minY * th, width: tr.width * tw, height: tr.height * th)
            let box = PixelBox(covering: texels).intersection(PixelBox(x0: 0, y0: 0, x1: pb.width, y1: pb.height))
            guard !box.isEmpty else { return }
            u0 = texels.minX - Double(box.x0)
            v0 = texels.minY - Double(box.y0)
            scaleX = texels.width / r.width
            scaleY = texels.height / r.height
            guard scaleX.isFinite, scaleY.isFinite, u0.isFinite, v0.isFinite else { return }
            qz_glActiveTexture(GL_TEXTURE0 + GLenum(unitSource))
            guard let t = textures.texture(pb, seed: op.textureSeed, box: box,
                                           mips: minFilter == .trilinear || magFilter == .trilinear) else { return }
            tex = t
        }
        use(p, canvas, box: region)
        setShape(p, op, local: local)
        qz_glUniform1i(p[.uKind], op.kind == .border ? 1 : (op.kind == .image ? 2 : 0))
        qz_glUniform1f(p[.uBorderWidth], Float(op.borderWidth))
        // (An image's colour is its tint: white leaves the texels as they are.)
        setColor(p, op.kind == .image ? packBGRA(op.tint ?? SIMD4(1, 1, 1, 1)) : packBGRA(op.color))
        qz_glUniform1f(p[.uOpacity], op.opacity)
        if let t = tex {
            bindTexture(t.name, unit: unitSource)
            // The texel at the local origin.
            qz_glUniform2f(p[.uTexOrigin], Float(u0 + (local.origin.x - r.minX) * scaleX),
                           Float(v0 + (local.origin.y - r.minY) * scaleY))
            qz_glUniform2f(p[.uTexScale], Float(scaleX), Float(scaleY))
            qz_glUniform1i(p[.uMinFilter], GLint(minFilter.rawValue))
            qz_glUniform1i(p[.uMagFilter], GLint(magFilter.rawValue))
            qz_glUniform1f(p[.uBias], op.filterBias)
            qz_glUniform1i(p[.uLevels], GLint(t.levels))
            qz_glUniform1i(p[.uFlipV], t.flipV ? 1 : 0)
        }
        if op.additive {
            // kCAEmitterLayerAdditive: added to the pixels below (saturating in the 8-bit target).
            qz_glBlendFuncSeparate(GL_ONE, GL_ONE, GL_ONE, GL_ONE)
            drawBox()
            qz_glBlendFuncSeparate(GL_ONE, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA)
        } else {
            drawBox()
        }
    }

    /// A premultiplied BGRA8 pixel as the shaders' RGBA colour.
    private func setColor(_ p: GLProgram, _ c: UInt32) {
        qz_glUniform4f(p[.uColor], Float((c >> 16) & 0xFF) / 255, Float((c >> 8) & 0xFF) / 255,
                       Float(c & 0xFF) / 255, Float(c >> 24) / 255)
    }

    // MARK: - Paths

    private func drawPath(_ op: DrawOp) {
        let canvas = top
        let region = PixelBox(covering: op.bounds).intersection(canvas.rect)
        guard !region.isEmpty, op.opacity > 0, let p = path,
              region.width <= textures.maxSize, region.height <= textures.maxSize,
              let mask = MaskBitmap(width: region.width, height: region.height) else { return }
        let ox = Double(region.x0), oy = Double(region.y0)
        let polygons = op.polygons.map { $0.map { CGPoint(x: $0.x - ox, y: $0.y - oy) } }
        guard !rasterizePolygonCoverage(into: mask.mask, polygons: polygons, antialias: true).isEmpty else { return }
        if pathTexture == 0 { qz_glGenTextures(1, &pathTexture) }
        qz_glActiveTexture(GL_TEXTURE0 + GLenum(unitSource))
        qz_glBindTexture(GL_TEXTURE_2D, pathTexture)
        qz_glPixelStorei(GL_UNPACK_ALIGNMENT, 1)
        qz_glPixelStorei(GL_UNPACK_ROW_LENGTH, GLint(mask.mask.rowBytes))
        qz_glTexImage2D(GL_TEXTURE_2D, 0, GLint(GL_R8), GLsizei(region.width), GLsizei(region.height), 0, GL_RED,
                        GL_UNSIGNED_BYTE, mask.mask.base)
        qz_glPixelStorei(GL_UNPACK_ROW_LENGTH, 0)
        qz_glPixelStorei(GL_UNPACK_ALIGNMENT, 4)
        qz_glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 0)
        qz_glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GLint(GL_NEAREST))
        qz_glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GLint(GL_NEAREST))
        use(p, canvas, box: region)
        qz_glUniform2f(p[.uTexOrigin], Float(region.x0), Float(region.y0))
        setColor(p, scalePixel(packBGRA(op.color), unit8(Double(op.opacity))))
        drawBox()
    }

    // MARK: - Groups and shadows

    private func compositeGroup(_ g: GLCanvas, mask: GLCanvas?, opacity: Float, tint: SIMD4<Float>) {
        let dst = top
        let r = g.rect.intersection(dst.rect)
        guard !r.isEmpty, let o = g.offscreen, let p = group else { return }
        use(p, dst, box: r)
        // (Groups are composited without the clips: their contents were clipped.)
        qz_glUniform1i(p[.uClipCount], 0)
        bindTexture(o.texture, unit: unitSource)
        if let m = mask?.offscreen {
            bindTexture(m.texture, unit: unitMask)
            qz_glUniform1i(p[.uHasMask], 1)
        } else {
            qz_glUniform1i(p[.uHasMask], 0)
        }
        qz_glUniform2f(p[.uTexOrigin], Float(g.rect.x0), Float(g.rect.y0))
        qz_glUniform1f(p[.uOpacity], Float(unit8(Double(opacity))) / 255)
        // (A replicator instance's colour; white for other groups.)
        setColor(p, packBGRA(tint))
        drawBox()
    }

    private func compositeShadow(_ op: DrawOp, _ c: GLCanvas) {
        guard !c.rect.isEmpty, let silhouette = c.offscreen, let bp = blur, let sp = shadow else { return }
        let (weightsTexture, radius) = blurWeights(sigma: op.shadowRadius)
        // The first axis, into an offscreen of the silhouette's size.
        let h = offscreen(c.rect)
        defer { release(h) }
        guard let horizontal = h.offscreen else { return }
        let saved = clips
        clips = []
        use(bp, h, box: c.rect)
        clips = saved
        bindTexture(silhouette.texture, unit: unitSource)
        bindTexture(weightsTexture, unit: unitWeights)
        qz_glUniform1i(bp[.uRadius], GLint(radius))
        qz_glUniform2f(bp[.uTexOrigin], Float(c.rect.x0), Float(c.rect.y0))
        drawBox()
        // The second axis, tinted and offset, into the canvas below.
        let dx = roundedOffset(op.shadowOffset.width), dy = roundedOffset(op.shadowOffset.height)
        let dst = top
        let r = c.rect.offset(dx, dy).intersection(dst.rect).intersection(PixelBox(covering: op.bounds))
        guard !r.isEmpty else { return }
        use(sp, dst, box: r)
        bindTexture(horizontal.texture, unit: unitSource)
        bindTexture(weightsTexture, unit: unitWeights)
        qz_glUniform1i(sp[.uRadius], GLint(radius))
        qz_glUniform2f(sp[.uTexOrigin], Float(c.rect.x0 + dx), Float(c.rect.y0 + dy))
        setColor(sp, scalePixel(packBGRA(op.color), unit8(Double(op.opacity))))
        drawBox()
    }

    /// The blur's weights for `sigma` (an R32F row of 2 * radius + 1 taps).
    private func blurWeights(sigma: Double) -> (GLuint, Int) {
        let key = sigma.bitPattern
        weightsUsed.insert(key)
        if let w = weights[key] { return (w.texture, w.radius) }
        let k = blurKernel(sigma: sigma)
        var name: GLuint = 0
        qz_glGenTextures(1, &name)
        qz_glActiveTexture(GL_TEXTURE0 + GLenum(unitWeights))
        qz_glBindTexture(GL_TEXTURE_2D, name)
        qz_glTexImage2D(GL_TEXTURE_2D, 0, GLint(GL_R32F), GLsizei(k.count), 1, 0, GL_RED, GL_FLOAT, k)
        qz_glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 0)
        qz_glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GLint(GL_NEAREST))
        qz_glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GLint(GL_NEAREST))
        qz_glActiveTexture(GL_TEXTURE0)
        let radius = k.count / 2
        weights[key] = (name, radius)
        return (name, radius)
    }
}

/// The one-dimensional kernel the CPU kernels' blur of `sigma` applies per
/// axis (Render/Kernels/Blur.swift): below directBlurSigmaLimit the
/// pixel-integrated Gaussian, above it blurBoxPasses extended boxes, which
/// together are their convolution. [1] for no blur.
package func blurKernel(sigma: Double) -> [Float] {
    guard sigma.isFinite, sigma > 0 else { return [1] }
    let s = min(sigma, 1024)
    if s < directBlurSigmaLimit { return gaussianKernel(sigma: s) }
    let (r, alpha) = extendedBox(sigma: s)
    let norm = 1 / (Double(2 * r + 1) + 2 * alpha)
    let box = [alpha * norm] + Array(repeating: norm, count: 2 * r + 1) + [alpha * norm]
    var k: [Double] = [1]
    for _ in 0..<blurBoxPasses {
        var next = [Double](repeating: 0, count: k.count + box.count - 1)
        for (i, a) in k.enumerated() { for (j, b) in box.enumerated() { next[i + j] += a * b } }
        k = next
    }
    return k.map { Float($0) }
}

// MARK: - Layer filters

// compositingFilter, filters and backgroundFilters on the GPU, pass by pass
// as the CPU kernels compute them (Render/Kernels/Filters.swift): each
// filter reads an image (an offscreen texture and the target pixels it
// covers) and writes a new offscreen of the pixels it filters; a blend mode
// or a backdrop reads a copy of the destination's pixels (a framebuffer
// blit) and writes with blending off.
extension GLRenderer {
    /// `filters` applied in order to the pixels of `c` (a group's contents,
    /// transparent beyond them): the filtered image, `c` itself when nothing
    /// could be drawn. The caller releases both.
    private func applyFilters(_ filters: [LayerFilter], to c: GLCanvas) -> GLCanvas {
        guard !c.rect.isEmpty, c.offscreen != nil else { return c }
        var image = c
        for f in filters {
            guard let next = filtered(image, f, work: c.rect, clampSource: false, reduced: false) else { continue }
            if image.offscreen !== c.offscreen { release(image) }
            image = next
        }
        return image
    }

    /// One filter of `image` over `work` (an offscreen of that rect); nil
    /// when it cannot be drawn. Blurs of sigma 8 and more are reduced (as
    /// gaussianBlurReduced) when `reduced`.
    private func filtered(_ image: GLCanvas, _ f: LayerFilter, work: PixelBox, clampSource: Bool,
                          reduced: Bool) -> GLCanvas? {
        switch f {
        case .gaussianBlur(let sigma):
            guard sigma.isFinite, sigma > 0 else { return nil }
            let factor = reduced ? (sigma >= 16 ? 4 : (sigma >= 8 ? 2 : 1)) : 1
            if factor == 1 { return blurred(image, sigma: sigma, work: work, clampSource: clampSource) }
            // The block means, blurred by what the reduction leaves of sigma, expanded.
            let F = Double(factor)
            let small = ((sigma * sigma - (F * F - 1) / 12 - F * F / 6) / (F * F)).squareRoot()
            let sw = (work.width + factor - 1) / factor, sh = (work.height + factor - 1) / factor
            let box = PixelBox(x0: 0, y0: 0, x1: sw, y1: sh)
            guard let means = filterPass(image, into: box, clampSource: clampSource, { p in
                qz_glUniform1i(p[.uKind], 3)
                qz_glUniform1i(p[.uFactor], GLint(factor))
            }) else { return nil }
            var blurredMeans = means
            if small > 0, let b = blurred(means, sigma: small, work: box, clampSource: false) {
                release(means)
                blurredMeans = b
            }
            defer { release(blurredMeans) }
            return filterPass(blurredMeans, into: work, clampSource: false) { p in
                qz_glUniform1i(p[.uKind], 4)
                qz_glUniform1i(p[.uFactor], GLint(factor))
                qz_glUniform2f(p[.uTexOrigin], Float(work.x0), Float(work.y0))
            }
        case let .colorMatrix(r, g, b, a, bias):
            return filterPass(image, into: work, clampSource: clampSource) { p in
                qz_glUniform1i(p[.uKind], 0)
                qz_glUniformMatrix4fv(p[.uMatrix], 1, 0, [r.x, r.y, r.z, r.w, g.x, g.y, g.z, g.w,
                                                          b.x, b.y, b.z, b.w, a.x, a.y, a.z, a.w])
                qz_glUniform4f(p[.uVector], bias.x, bias.y, bias.z, bias.w)
            }
        case let .colorControls(saturation, brightness, contrast):
            return filterPass(image, into: work, clampSource: clampSource) { p in
                qz_glUniform1i(p[.uKind], 1)
                qz_glUniform4f(p[.uVector], saturation, brightness, contrast, 0)
            }
        }
    }

    /// The two axes of a Gaussian blur of the four channels of `image` over `work`.
    private func blurred(_ image: GLCanvas, sigma: Double, work: PixelBox, clampSource: Bool) -> GLCanvas? {
        let (weightsTexture, radius) = blurWeights(sigma: sigma)
        guard let horizontal = filterPass(image, into: work, clampSource: clampSource, { p in
            qz_glUniform1i(p[.uKind], 2)
            qz_glUniform1i(p[.uAxis], 0)
            qz_glUniform1i(p[.uFinal], 0)
            qz_glUniform1i(p[.uRadius], GLint(radius))
            self.bindTexture(weightsTexture, unit: unitWeights)
        }) else { return nil }
        defer { release(horizontal) }
        return filterPass(horizontal, into: work, clampSource: false) { p in
            qz_glUniform1i(p[.uKind], 2)
            qz_glUniform1i(p[.uAxis], 1)
            qz_glUniform1i(p[.uFinal], 1)
            qz_glUniform1i(p[.uRadius], GLint(radius))
            self.bindTexture(weightsTexture, unit: unitWeights)
        }
    }

    /// One pass of the filter program from `image` into a new offscreen
    /// over `rect`, `configure` setting the pass's own uniforms.
    private func filterPass(_ image: GLCanvas, into rect: PixelBox, clampSource: Bool,
                            _ configure: (GLProgram) -> Void) -> GLCanvas? {
        guard let p = filterProgram, let source = image.offscreen else { return nil }
        let out = offscreen(rect)
        guard out.offscreen != nil else { return nil }
        let saved = clips
        clips = []
        use(p, out, box: rect)
        clips = saved
        bindTexture(source.texture, unit: unitSource)
        qz_glUniform4f(p[.uSourceBox], Float(image.rect.x0), Float(image.rect.y0), Float(image.rect.x1),
                       Float(image.rect.y1))
        qz_glUniform1i(p[.uClampSource], clampSource ? 1 : 0)
        configure(p)
        drawBox()
        return out
    }

    /// A copy of the pixels of `c` over `rect` (within it) in a new offscreen.
    private func copyPixels(of c: GLCanvas, _ rect: PixelBox) -> GLCanvas? {
        guard !rect.isEmpty else { return nil }
        let out = offscreen(rect)
        guard out.offscreen != nil else { return nil }
        // (offscreen() left `out` bound for drawing, its scissor its whole rect.)
        qz_glBindFramebuffer(GL_READ_FRAMEBUFFER, c.framebuffer)
        let x0 = GLint(rect.x0 - c.frame.x0), x1 = GLint(rect.x1 - c.frame.x0)
        if c.flip {
            // (The host's rows are bottom-up; offscreens' top-down.)
            let y0 = GLint(c.frame.y1 - rect.y1), y1 = GLint(c.frame.y1 - rect.y0)
            qz_glBlitFramebuffer(x0, y0, x1, y1, 0, GLint(rect.height), GLint(rect.width), 0,
                                 GLbitfield(GL_COLOR_BUFFER_BIT), GL_NEAREST)
        } else {
            let y0 = GLint(rect.y0 - c.frame.y0), y1 = GLint(rect.y1 - c.frame.y0)
            qz_glBlitFramebuffer(x0, y0, x1, y1, 0, 0, GLint(rect.width), GLint(rect.height),
                                 GLbitfield(GL_COLOR_BUFFER_BIT), GL_NEAREST)
        }
        return out
    }

    /// A group composited by a blend mode or Porter-Duff operator
    /// (compositingFilter): its pixels and a copy of those below combined
    /// in the shader, written in place of the latter.
    private func blendGroup(_ g: GLCanvas, mask: GLCanvas?, opacity: Float, tint: SIMD4<Float>, mode: CompositingMode) {
        let dst = top
        let r = g.rect.intersection(dst.rect)
        guard !r.isEmpty, let o = g.offscreen, let p = blendProgram,
              let below = copyPixels(of: dst, r), let copy = below.offscreen else { return }
        defer { release(below) }
        use(p, dst, box: r)
        qz_glUniform1i(p[.uClipCount], 0)
        bindTexture(o.texture, unit: unitSource)
        bindTexture(copy.texture, unit: unitDestination)
        if let m = mask?.offscreen {
            bindTexture(m.texture, unit: unitMask)
            qz_glUniform1i(p[.uHasMask], 1)
        } else {
            qz_glUniform1i(p[.uHasMask], 0)
        }
        qz_glUniform2f(p[.uTexOrigin], Float(g.rect.x0), Float(g.rect.y0))
        qz_glUniform2f(p[.uDstOrigin], Float(r.x0), Float(r.y0))
        qz_glUniform1f(p[.uOpacity], Float(unit8(Double(opacity))) / 255)
        setColor(p, packBGRA(tint))
        qz_glUniform1i(p[.uMode], GLint(mode.rawValue))
        qz_glDisable(GL_BLEND)
        drawBox()
        qz_glEnable(GL_BLEND)
    }

    /// backgroundFilters (as the CPU compositor's drawBackdrop): the pixels
    /// under the operation's rounded rect and the blurs' reach around it
    /// (edge pixels of the canvas repeated beyond it), filtered (wide blurs
    /// reduced), put back through the shape's coverage.
    private func drawBackdrop(_ op: DrawOp) {
        let canvas = top
        let region = PixelBox(covering: op.bounds).intersection(canvas.rect)
        guard !region.isEmpty, op.opacity > 0, let p = backdropProgram,
              let i0 = op.transform.inverse, i0.isFinite else { return }
        let reach = op.filters.reduce(0) { $0 + ($1.blurRadius > 0 ? blurExtent(sigma: $1.blurRadius) + 1 : 0) }
        let work = PixelBox(x0: region.x0 - reach, y0: region.y0 - reach, x1: region.x1 + reach, y1: region.y1 + reach)
        guard let below = copyPixels(of: canvas, work.intersection(canvas.rect)), let copy = below.offscreen else { return }
        defer { release(below) }
        // The work area, edges clamped; then each filter.
        guard var image = filterPass(below, into: work, clampSource: true, { p in qz_glUniform1i(p[.uKind], 5) })
        else { return }
        for f in op.filters {
            guard let next = filtered(image, f, work: work, clampSource: false, reduced: true) else { continue }
            release(image)
            image = next
        }
        defer { release(image) }
        guard let result = image.offscreen else { return }
        use(p, canvas, box: region)
        setShape(p, op, region: region)
        qz_glUniform1f(p[.uOpacity], op.opacity)
        bindTexture(result.texture, unit: unitSource)
        bindTexture(copy.texture, unit: unitDestination)
        qz_glUniform2f(p[.uTexOrigin], Float(work.x0), Float(work.y0))
        qz_glUniform2f(p[.uDstOrigin], Float(below.rect.x0), Float(below.rect.y0))
        qz_glDisable(GL_BLEND)
        drawBox()
        qz_glEnable(GL_BLEND)
    }

    /// The quad uniforms of `op`'s rounded rect (its layer space moved near `region`).
    private func setShape(_ p: GLProgram, _ op: DrawOp, region: PixelBox) {
        setShape(p, op, local: LocalFrame(op.transform, op.rect.standardized, near: region.cgRect))
    }

    /// The quad uniforms of `op`'s rounded rect in the layer space `local`.
    private func setShape(_ p: GLProgram, _ op: DrawOp, local: LocalFrame) {
        let i = local.inverse.m, f = local.forward.m
        qz_glUniformMatrix3fv(p[.uInv], 1, 0, [Float(i.0), Float(i.1), Float(i.2), Float(i.3), Float(i.4), Float(i.5),
                                                Float(i.6), Float(i.7), Float(i.8)])
        qz_glUniformMatrix3fv(p[.uFwd], 1, 0, [Float(f.0), Float(f.1), Float(f.2), Float(f.3), Float(f.4), Float(f.5),
                                                Float(f.6), Float(f.7), Float(f.8)])
        let lr = local.rect
        qz_glUniform4f(p[.uRect], Float(lr.minX), Float(lr.minY), Float(lr.maxX), Float(lr.maxY))
        qz_glUniform1f(p[.uRadius], Float(op.cornerRadius))
        qz_glUniform1i(p[.uEdges], GLint(op.edgeMask & 0xF))
    }
}
