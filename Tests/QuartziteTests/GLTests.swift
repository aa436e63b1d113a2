import CQuartzite
import Glibc
import Testing
@testable import QuartziteCore
@testable import QuartziteGeometry
@testable import QuartziteVideo
@testable import QuartziteGraphics
@testable import QuartziteModel
@testable import QuartziteRender
@testable import Quartzite

// The GL renderer's and CAEAGLLayer's internals on Mesa's llvmpipe: textures
// kept across frames and refreshed on a content change, CAEAGLLayer images
// sampled in place (and read back only while a CPU renderer shows them),
// their sub-rectangles and mip chains, deep clip stacks. Frames are compared
// with the CPU renderer's through renderScene (GLTestSupport.swift).

/// A CARenderer over the test context drawing into `fb` (+1 in `ref`).
private final class GPUFrames {
    let ref: CARendererRef
    let fb: TestFramebuffer
    var renderer: Renderer { Unmanaged<Renderer>.fromOpaque(UnsafeRawPointer(ref)).takeUnretainedValue() }

    init?(_ gl: TestGL, _ root: TL, _ w: Int, _ h: Int) {
        fb = TestFramebuffer(w, h)
        guard let r = CARendererCreateWithEGLContext(gl.display, gl.context, nil) else { fb.delete(); return nil }
        ref = r
        CARendererSetLayer(r, root.ref)
    }

    /// A frame at `t`, its pixels (top row first).
    func frame(_ t: Double, full: Bool = false) -> [UInt32] {
        fb.bind()
        CARendererBeginFrameAtTime(ref, t, nil)
        if full { CARendererAddUpdateRect(ref, CGRect(x: 0, y: 0, width: Double(fb.width), height: Double(fb.height))) }
        CARendererRender(ref)
        CARendererEndFrame(ref)
        return fb.read()
    }

    func close() {
        CARelease(UnsafeRawPointer(ref))
        fb.delete()
    }
}

/// A CAEAGLLayer with storage in the test context, drawn by clearing
/// rectangles of its renderbuffer (GL rows bottom-up), then presented.
private final class GLContent {
    let layer: CALayerRef
    var renderbuffer: GLuint = 0
    var framebuffer: GLuint = 0
    let width: Int, height: Int

    init?(_ gl: TestGL, frame: CGRect, retained: Bool = false) {
        layer = CAEAGLLayerCreate()!
        CALayerSetFrame(layer, frame)
        width = Int(frame.width)
        height = Int(frame.height)
        if retained {
            let key = strdup(kEAGLDrawablePropertyRetainedBacking)!
            defer { free(key) }
            var keys: [UnsafePointer<CChar>?] = [UnsafePointer(key)]
            var values: [CAValueRef?] = [CAValueCreateBool(true)]
            let d = CAValueCreateDictionary(&keys, &values, 1)
            CAEAGLLayerSetDrawableProperties(layer, d)
            CARelease(UnsafeRawPointer(d!))
            CARelease(UnsafeRawPointer(values[0]!))
        }
        qz_glGenRenderbuffers(1, &renderbuffer)
        qz_glBindRenderbuffer(GL_RENDERBUFFER, renderbuffer)
        guard QZEAGLContextRenderbufferStorageFromDrawable(gl.display, gl.context, Int(GL_RENDERBUFFER), layer) else { return nil }
        qz_glGenFramebuffers(1, &framebuffer)
        qz_glBindFramebuffer(GL_FRAMEBUFFER, framebuffer)
        qz_glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, renderbuffer)
    }

    deinit { CARelease(UnsafeRawPointer(layer)) }

    /// Clears (x, y, w, h) in top-down pixels of the renderbuffer to `c`.
    func fill(_ x: Int, _ y: Int, _ w: Int, _ h: Int, _ c: (Float, Float, Float, Float)) {
        qz_glBindFramebuffer(GL_FRAMEBUFFER, framebuffer)
        qz_glEnable(GL_SCISSOR_TEST)
        qz_glScissor(GLint(x), GLint(height - y - h), GLsizei(w), GLsizei(h))
        qz_glClearColor(c.0, c.1, c.2, c.3)
        qz_glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
        qz_glDisable(GL_SCISSOR_TEST)
    }

    /// Four quadrants: red, green / blue, yellow (as makeTestImage).
    func quadrants() {
        let hw = width / 2, hh = height / 2
        fill(0, 0, hw, hh, (1, 0, 0, 1)); fill(hw, 0, width - hw, hh, (0, 0.75, 0, 1))
        fill(0, hh, hw, height - hh, (0, 0, 1, 1)); fill(hw, hh, width - hw, height - hh, (1, 0.875, 0, 1))
    }

    func present(_ gl: TestGL) -> Bool {
        qz_glBindRenderbuffer(GL_RENDERBUFFER, renderbuffer)
        return QZEAGLContextPresentRenderbuffer(gl.display, gl.context, Int(GL_RENDERBUFFER))
    }

    var drawable: EAGLDrawable? {
        withModelLock { Unmanaged<Layer>.fromOpaque(UnsafeRawPointer(layer)).takeUnretainedValue().eagl?.drawable as? EAGLDrawable }
    }

    func delete() {
        qz_glDeleteFramebuffers(1, [framebuffer])
        qz_glDeleteRenderbuffers(1, [renderbuffer])
    }
}

@Suite("GL renderer and CAEAGLLayer", .serialized)
struct GLTests {
    @Test func texturesAreKeptAcrossFramesAndRefreshedOnChange() throws {
        guard let gl = TestGL.require() else { return }
        let root = TL(0, 0, 64, 48, color: (1, 1, 1, 1))
        let img = makeTestImage(16, 16)
        defer { CVPixelBufferRelease(img) }
        let a = TL(8, 8, 32, 32); CALayerSetContents(a.ref, UnsafeRawPointer(img))
        root.add(a)
        let mover = TL(48, 4, 8, 8, color: (0, 0, 1, 1))
        root.add(mover)
        gl.with {
            guard let g = GPUFrames(gl, root, 64, 48) else { Issue.record("no renderer"); return }
            defer { g.close() }
            var px = g.frame(0)
            #expect(px[20 * 64 + 20] == 0xFFFF_0000, "red quadrant")   // BGRA word of opaque red
            #expect(g.renderer.gpu?.textureCount == 1)
            // Another frame that redraws the image: the texture is reused.
            CATransactionBegin(); CATransactionSetDisableActions(true)
            CALayerSetPosition(mover.ref, CGPoint(x: 52, y: 40))
            CATransactionCommit()
            px = g.frame(1, full: true)
            #expect(g.renderer.gpu?.textureCount == 1)
            // New pixels in the same buffer: the texture is refilled.
            CVPixelBufferLockBaseAddress(img, 0)
            let base = CVPixelBufferGetBaseAddress(img)!, bpr = CVPixelBufferGetBytesPerRow(img)
            for y in 0..<16 { for x in 0..<16 { base.storeBytes(of: UInt32(0xFF00_FF00), toByteOffset: y * bpr + 4 * x, as: UInt32.self) } }
            CVPixelBufferUnlockBaseAddress(img, 0)
            px = g.frame(2)
            #expect(px[20 * 64 + 20] == 0xFF00_FF00, "the new green pixels")
            #expect(g.renderer.gpu?.textureCount == 1)
            // Contents removed: the texture goes at the end of the next frame.
            CATransactionBegin(); CATransactionSetDisableActions(true)
            CALayerSetContents(a.ref, nil)
            CATransactionCommit()
            _ = g.frame(3)
            #expect(g.renderer.gpu?.textureCount == 0)
        }
    }

    @Test func eaglImagesAreSampledInPlaceAndReadBackOnlyForCPURenderers() throws {
        guard let gl = TestGL.require() else { return }
        let root = TL(0, 0, 40, 40, color: (0.5, 0.5, 0.5, 1))
        gl.with {
            guard let content = GLContent(gl, frame: CGRect(x: 4, y: 4, width: 32, height: 32)) else {
                Issue.record("no storage: \(lastErrorMessage())"); return
            }
            defer { content.delete() }
            CALayerAddSublayer(root.ref, content.layer)
            content.fill(0, 0, 32, 32, (1, 0, 0, 1))
            #expect(content.present(gl))
            guard let drawable = content.drawable, let g = GPUFrames(gl, root, 40, 40) else { Issue.record("no drawable"); return }
            defer { g.close() }
            // Nothing has shown it yet: the present read it back for a CPU renderer.
            var px = g.frame(0)
            #expect(px[20 * 40 + 20] == 0xFFFF_0000)
            // Shown by a GL renderer only: the next presents skip the readback.
            #expect(!drawable.usage.needsPixels)
            content.fill(0, 0, 32, 32, (0, 0, 1, 1))
            #expect(content.present(gl))
            let contents = CALayerGetContents(content.layer)!
            let cpuCopy = CVPixelBufferGetBaseAddress(OpaquePointer(contents))!.load(fromByteOffset: 16 * 128 + 64, as: UInt32.self)
            #expect(cpuCopy != 0xFF00_00FF, "not read back (the image's pixels are still the first present's or empty)")
            px = g.frame(1)
            #expect(px[20 * 40 + 20] == 0xFF00_00FF, "the GL renderer shows the new image without a readback")
            // A CPU renderer shows it: presents read back again.
            let pb = makeBuffer(40, 40)
            defer { CVPixelBufferRelease(pb) }
            let cpu = CARendererCreate(pb, nil)!
            CARendererSetLayer(cpu, root.ref)
            CARendererBeginFrameAtTime(cpu, 2, nil); CARendererRender(cpu); CARendererEndFrame(cpu)
            #expect(drawable.usage.needsPixels)
            content.fill(0, 0, 32, 32, (0, 1, 0, 1))
            #expect(content.present(gl))
            CARendererBeginFrameAtTime(cpu, 3, nil); CARendererRender(cpu); CARendererEndFrame(cpu)
            #expect(pixel(pb, 20, 20) == (0, 255, 0, 255))
            CARelease(UnsafeRawPointer(cpu))
        }
    }

    @Test func eaglSubRectanglesAndMipmapsMatchTheCPU() throws {
        guard let gl = TestGL.require() else { return }
        let root = TL(0, 0, 96, 64, color: (1, 1, 1, 1))
        var cpuFrame: QZCVPixelBufferRef?
        gl.with {
            guard let content = GLContent(gl, frame: CGRect(x: 0, y: 0, width: 64, height: 64)) else {
                Issue.record("no storage: \(lastErrorMessage())"); return
            }
            defer { content.delete() }
            content.quadrants()
            #expect(content.present(gl))
            // Shown as a part (copied on the GPU) and minified with mipmaps.
            CALayerSetFrame(content.layer, CGRect(x: 4, y: 4, width: 40, height: 40))
            CALayerSetContentsRect(content.layer, CGRect(x: 0.25, y: 0.25, width: 0.75, height: 0.75))
            CALayerAddSublayer(root.ref, content.layer)
            let small = TL(56, 8, 24, 24)
            CALayerSetMinificationFilter(small.ref, "trilinear")
            CALayerSetContents(small.ref, CALayerGetContents(content.layer))
            root.add(small)
        }
        // renderScene draws it on the CPU and on the GPU and compares them.
        cpuFrame = renderScene(root, 96, 64)
        if let cpuFrame {
            #expect(pixel(cpuFrame, 10, 10).0 > 240, "red quarter at the top left of the part shown")
            CVPixelBufferRelease(cpuFrame)
        }
    }

    @Test func deepClipStacksAndNestedGroupsMatchTheCPU() {
        let root = TL(0, 0, 96, 96, color: (0.9, 0.9, 0.9, 1))
        var parent = root
        for i in 0..<24 {
            // 24 nested clips (the clip texture grows past its first 16 rows),
            // every fourth a translucent group with a rounded mask.
            let l = TL(1.5, 1.25, 93 - Double(i) * 3.5, 93 - Double(i) * 3.5,
                       color: (Double(i % 3) / 2, Double(i % 5) / 4, Double(i % 7) / 6, 1))
            CALayerSetMasksToBounds(l.ref, true)
            CALayerSetCornerRadius(l.ref, Double(i % 4) * 3)
            if i % 4 == 3 {
                CALayerSetOpacity(l.ref, 0.8)
                let m = TL(4, 4, 60, 60, color: (0, 0, 0, 0.9)); CALayerSetCornerRadius(m.ref, 20)
                CALayerSetMask(l.ref, m.ref)
            }
            CALayerSetTransform(l.ref, CATransform3DMakeRotation(0.02 * Double(i % 3), 0, 0, 1))
            parent.add(l)
            parent = l
        }
        CVPixelBufferRelease(renderScene(root, 96, 96))
    }

    @Test func presentShowsInTheNextCommittedFrame() throws {
        guard let gl = TestGL.require() else { return }
        let root = TL(0, 0, 16, 16, color: (0, 0, 0, 1))
        gl.with {
            guard let content = GLContent(gl, frame: CGRect(x: 0, y: 0, width: 16, height: 16)) else {
                Issue.record("no storage: \(lastErrorMessage())"); return
            }
            defer { content.delete() }
            CALayerAddSublayer(root.ref, content.layer)
            let pb = makeBuffer(16, 16)
            defer { CVPixelBufferRelease(pb) }
            let r = CARendererCreate(pb, nil)!
            defer { CARelease(UnsafeRawPointer(r)) }
            CARendererSetLayer(r, root.ref)
            CARendererBeginFrameAtTime(r, 0, nil); CARendererRender(r); CARendererEndFrame(r)
            #expect(pixel(pb, 8, 8) == (0, 0, 0, 255))
            CATransactionBegin()
            content.fill(0, 0, 16, 16, (1, 1, 1, 1))
            #expect(content.present(gl))
            // Not committed yet: the frame shows the layer as it was.
            CARendererBeginFrameAtTime(r, 1, nil); CARendererRender(r); CARendererEndFrame(r)
            #expect(pixel(pb, 8, 8) == (0, 0, 0, 255))
            CATransactionCommit()
            CARendererBeginFrameAtTime(r, 2, nil); CARendererRender(r); CARendererEndFrame(r)
            #expect(pixel(pb, 8, 8) == (255, 255, 255, 255))
            // No implicit animation was added for the contents change.
            #expect(CALayerCopyAnimationKeys(content.layer).map { k in defer { CARelease(UnsafeRawPointer(k)) }; return CAValueGetCount(k) } ?? 0 == 0)
        }
    }

    @Test func renderersOnOneContextShareTheirPrograms() throws {
        guard let gl = TestGL.require() else { return }
        let root = TL(0, 0, 16, 16, color: (0, 0, 1, 1))
        gl.with {
            guard let a = GPUFrames(gl, root, 16, 16), let b = GPUFrames(gl, root, 16, 16) else { Issue.record("no renderer"); return }
            defer { b.close() }
            #expect(a.frame(0)[8 * 16 + 8] == 0xFF00_00FF)
            #expect(b.frame(0)[8 * 16 + 8] == 0xFF00_00FF)
            #expect(a.renderer.gpu?.programs != nil && a.renderer.gpu?.programs === b.renderer.gpu?.programs)
            let quad = b.renderer.gpu?.programs?.quad.name ?? 0
            a.close()
            // The other renderer's programs outlive the first renderer.
            #expect(qz_glIsProgram(quad) != 0)
            CATransactionBegin(); CATransactionSetDisableActions(true)
            root.background((1, 0, 0, 1))
            CATransactionCommit()
            #expect(b.frame(1)[8 * 16 + 8] == 0xFFFF_0000)
        }
    }

    @Test func blurKernelsMatchTheCPUBlur() {
        // The per-axis kernel the GPU convolves with is the one the CPU blur
        // applies: a unit impulse blurred by the CPU is the kernel's outer product.
        for sigma in [0.7, 1.5, 3.0, 6.5] {
            let k = blurKernel(sigma: sigma)
            let r = k.count / 2
            #expect(abs(k.reduce(0, +) - 1) < 1e-5)
            let n = 2 * r + 9
            guard let m = MaskBitmap(width: n, height: n) else { continue }
            m.mask.row(n / 2)[n / 2] = 255
            gaussianBlur(mask: m, sigma: sigma)
            var worst = 0.0
            for y in 0..<n {
                for x in 0..<n {
                    let dx = x - n / 2 + r, dy = y - n / 2 + r
                    let expected = (dx >= 0 && dx < k.count && dy >= 0 && dy < k.count) ? Double(k[dx] * k[dy]) * 255 : 0
                    worst = max(worst, abs(Double(m.mask.row(y)[x]) - expected))
                }
            }
            #expect(worst <= 0.51, "sigma \(sigma): the CPU blur differs from the kernel by \(worst)")
        }
    }
}
