import CQuartzite
import Glibc
import Synchronization
import Testing
@testable import QuartziteCore
@testable import QuartziteGeometry
@testable import QuartziteVideo
@testable import QuartziteGraphics
@testable import QuartziteModel
@testable import QuartziteRender
@testable import Quartzite

// A surfaceless EGL display and OpenGL ES 3 context on Mesa's software
// rasterizer (llvmpipe), for the GL tests: the same libraries the library
// loads (quartzite_gl.h), EGL's own entry points found through
// eglGetProcAddress. QZ_SKIP_GL_TESTS=1 skips what needs it on machines
// without Mesa; otherwise a missing context fails the tests that need it.

typealias EGLGetPlatformDisplayFn = @convention(c) (UInt32, UnsafeMutableRawPointer?, UnsafePointer<Int>?) -> UnsafeMutableRawPointer?
typealias EGLInitializeFn = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?) -> UInt32
typealias EGLBindAPIFn = @convention(c) (UInt32) -> UInt32
typealias EGLCreateContextFn = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?,
                                                UnsafePointer<Int32>?) -> UnsafeMutableRawPointer?
typealias EGLDestroyContextFn = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> UInt32

let EGL_PLATFORM_SURFACELESS_MESA: UInt32 = 0x31DD

final class TestGL: @unchecked Sendable {
    let display: UnsafeMutableRawPointer
    let context: UnsafeMutableRawPointer
    private let createContextFn: EGLCreateContextFn
    private let destroyContextFn: EGLDestroyContextFn
    private let bindAPIFn: EGLBindAPIFn
    private static let lock = Mutex<Void>(())

    /// The process's test context (nil when EGL or a surfaceless display is missing).
    static let shared: TestGL? = TestGL()

    static var skipped: Bool { getenv("QZ_SKIP_GL_TESTS").map { String(cString: $0) == "1" } ?? false }

    private init?() {
        var message: UnsafePointer<CChar>?
        guard qz_internal_gl_load(&message) else { return nil }
        func proc<T>(_ name: String, _ type: T.Type) -> T? {
            guard let p = qz_eglGetProcAddress(name) else { return nil }
            return unsafeBitCast(p, to: type)
        }
        guard let getDisplay = proc("eglGetPlatformDisplay", EGLGetPlatformDisplayFn.self),
              let initialize = proc("eglInitialize", EGLInitializeFn.self),
              let bindAPI = proc("eglBindAPI", EGLBindAPIFn.self),
              let create = proc("eglCreateContext", EGLCreateContextFn.self),
              let destroy = proc("eglDestroyContext", EGLDestroyContextFn.self),
              let d = getDisplay(EGL_PLATFORM_SURFACELESS_MESA, nil, nil) else { return nil }
        var major: Int32 = 0, minor: Int32 = 0
        guard initialize(d, &major, &minor) != 0, bindAPI(UInt32(EGL_OPENGL_ES_API)) != 0 else { return nil }
        let attributes: [Int32] = [0x3098 /* EGL_CONTEXT_MAJOR_VERSION */, 3, EGL_NONE]
        guard let c = create(d, nil, nil, attributes) else { return nil }
        display = d
        context = c
        createContextFn = create
        destroyContextFn = destroy
        bindAPIFn = bindAPI
    }

    /// Another context of the same display (`major`: the ES version asked;
    /// `desktop`: an OpenGL context instead), or nil.
    func makeContext(major: Int32 = 3, desktop: Bool = false) -> UnsafeMutableRawPointer? {
        _ = bindAPIFn(desktop ? 0x30A2 /* EGL_OPENGL_API */ : UInt32(EGL_OPENGL_ES_API))
        defer { _ = bindAPIFn(UInt32(EGL_OPENGL_ES_API)) }
        let attributes: [Int32] = desktop ? [EGL_NONE] : [0x3098, major, EGL_NONE]
        return createContextFn(display, nil, nil, attributes)
    }

    func destroy(_ c: UnsafeMutableRawPointer) { _ = destroyContextFn(display, c) }

    /// Runs `body` with the test context current on this thread (one thread
    /// at a time), released afterwards.
    func with<R>(_ body: () throws -> R) rethrows -> R {
        try TestGL.lock.withLock { _ in
            _ = qz_eglMakeCurrent(display, nil, nil, context)
            defer { _ = qz_eglMakeCurrent(display, nil, nil, nil) }
            return try body()
        }
    }

    /// The shared context, or a failed expectation (unless QZ_SKIP_GL_TESTS=1).
    static func require(sourceLocation: SourceLocation = #_sourceLocation) -> TestGL? {
        if let gl = shared { return gl }
        if !skipped {
            Issue.record("no surfaceless EGL/GLES 3 context (install Mesa: scripts/install-deps.sh, or set QZ_SKIP_GL_TESTS=1)",
                         sourceLocation: sourceLocation)
        }
        return nil
    }
}

/// An RGBA8 texture with a framebuffer over it (the context current).
struct TestFramebuffer {
    let framebuffer: GLuint
    let texture: GLuint
    let width: Int
    let height: Int

    init(_ width: Int, _ height: Int) {
        var t: GLuint = 0, f: GLuint = 0
        qz_glGenTextures(1, &t)
        qz_glBindTexture(GL_TEXTURE_2D, t)
        qz_glTexImage2D(GL_TEXTURE_2D, 0, GLint(GL_RGBA8), GLsizei(width), GLsizei(height), 0, GL_RGBA, GL_UNSIGNED_BYTE, nil)
        qz_glGenFramebuffers(1, &f)
        qz_glBindFramebuffer(GL_FRAMEBUFFER, f)
        qz_glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, t, 0)
        qz_glViewport(0, 0, GLsizei(width), GLsizei(height))
        framebuffer = f
        texture = t
        self.width = width
        self.height = height
    }

    func bind() {
        qz_glBindFramebuffer(GL_FRAMEBUFFER, framebuffer)
        qz_glViewport(0, 0, GLsizei(width), GLsizei(height))
    }

    /// The pixels as premultiplied BGRA words, top row first (GL's last).
    func read() -> [UInt32] {
        qz_glBindFramebuffer(GL_READ_FRAMEBUFFER, framebuffer)
        var rgba = [UInt8](repeating: 0, count: width * height * 4)
        qz_glReadPixels(0, 0, GLsizei(width), GLsizei(height), GL_RGBA, GL_UNSIGNED_BYTE, &rgba)
        var out = [UInt32](repeating: 0, count: width * height)
        for y in 0..<height {
            let row = (height - 1 - y) * width * 4
            for x in 0..<width {
                let i = row + 4 * x
                out[y * width + x] = UInt32(rgba[i + 2]) | UInt32(rgba[i + 1]) << 8 | UInt32(rgba[i]) << 16 | UInt32(rgba[i + 3]) << 24
            }
        }
        return out
    }

    func delete() {
        qz_glDeleteFramebuffers(1, [framebuffer])
        qz_glDeleteTextures(1, [texture])
    }
}

/// The largest channel difference of two BGRA words.
func channelDifference(_ a: UInt32, _ b: UInt32) -> Int {
    var worst = 0
    for shift in stride(from: 0, through: 24, by: 8) {
        worst = max(worst, abs(Int((a >> UInt32(shift)) & 0xFF) - Int((b >> UInt32(shift)) & 0xFF)))
    }
    return worst
}

/// The GPU renderer against the CPU renderer: every scene drawn through
/// renderScene (the golden scenes, RenderTests' scenes) is drawn again by a
/// CARenderer over the test GL context and compared pixel by pixel.
///
/// Tolerance, measured on Mesa llvmpipe: at least 99.9% of the pixels
/// within 3/255 per channel, none beyond 24/255. The differences come from
/// rounding, not from the model: the CPU kernels round to 8 bits at each
/// step (coverage x opacity, the scaled source, the blend) where the GPU
/// keeps floats until the framebuffer write; the CPU's fast paths (spans of
/// full coverage, the template blur of a lone rounded rectangle's shadow, 
/// 16.16 fixed-point row steppers) differ from its own per-pixel path by a
/// step or two; the GPU evaluates geometry in 32-bit floats where the CPU
/// uses doubles (a pixel centre on an edge can round either way); mip levels
/// come from glGenerateMipmap rather than the CPU's chain.
enum GPUParity {
    static let channelTolerance = 3
    static let fractionWithinTolerance = 0.999
    static let worstAllowed = 24
    private static let dumpCount = Mutex(0)

    struct Result { let worst: Int; let beyond: Int; let total: Int }

    /// Renders `root` at `t` with the GPU renderer into a w x h framebuffer.
    static func render(_ gl: TestGL, _ root: CALayerRef, _ w: Int, _ h: Int, at t: Double) -> [UInt32]? {
        gl.with {
            let fb = TestFramebuffer(w, h)
            defer { fb.delete() }
            guard let r = CARendererCreateWithEGLContext(gl.display, gl.context, nil) else { return nil }
            defer { CARelease(UnsafeRawPointer(r)) }
            CARendererSetLayer(r, root)
            CARendererBeginFrameAtTime(r, t, nil)
            clearLastError()
            CARendererRender(r)
            if lastErrorCode() != QZErrorNone { Issue.record("CARendererRender: \(lastErrorMessage())") }
            CARendererEndFrame(r)
            return fb.read()
        }
    }

    static func compare(_ gpu: [UInt32], _ cpu: QZCVPixelBufferRef) -> Result {
        let w = CVPixelBufferGetWidth(cpu), h = CVPixelBufferGetHeight(cpu)
        let base = CVPixelBufferGetBaseAddress(cpu)!, bpr = CVPixelBufferGetBytesPerRow(cpu)
        var worst = 0, beyond = 0
        for y in 0..<h {
            for x in 0..<w {
                let c = base.load(fromByteOffset: y * bpr + 4 * x, as: UInt32.self)
                let d = channelDifference(c, gpu[y * w + x])
                worst = max(worst, d)
                if d > channelTolerance { beyond += 1 }
            }
        }
        return Result(worst: worst, beyond: beyond, total: w * h)
    }

    /// Draws `root` on the GPU and checks it against `cpu` (the CPU frame).
    static func check(_ root: CALayerRef, _ w: Int, _ h: Int, at t: Double, cpu: QZCVPixelBufferRef,
                      sourceLocation: SourceLocation = #_sourceLocation) {
        guard let gl = TestGL.require(sourceLocation: sourceLocation) else { return }
        guard let gpu = render(gl, root, w, h, at: t) else {
            Issue.record("the GPU renderer could not be made: \(lastErrorMessage())", sourceLocation: sourceLocation)
            return
        }
        let r = compare(gpu, cpu)
        let name = Test.current?.name ?? "scene"
        if let dir = getenv("QZ_GPU_PARITY_DUMP").map({ String(cString: $0) }) {
            // For looking at the frames: <dir>/<test>-<w>x<h>-{cpu,gpu}.png.
            dumpCount.withLock { $0 += 1 }
            let stem = dir + "/" + name.filter { $0.isLetter || $0.isNumber } + "-\(w)x\(h)-\(dumpCount.withLock { $0 })"
            _ = QZPixelBufferWritePNG(cpu, stem + "-cpu.png")
            let pb = makeBuffer(w, h)
            let base = CVPixelBufferGetBaseAddress(pb)!, bpr = CVPixelBufferGetBytesPerRow(pb)
            for y in 0..<h { for x in 0..<w { base.storeBytes(of: gpu[y * w + x], toByteOffset: y * bpr + 4 * x, as: UInt32.self) } }
            _ = QZPixelBufferWritePNG(pb, stem + "-gpu.png")
            CVPixelBufferRelease(pb)
        }
        print("gpu-parity \(name) \(w)x\(h): worst \(r.worst)/255, \(r.beyond) of \(r.total) pixels beyond \(channelTolerance)/255")
        #expect(Double(r.total - r.beyond) >= fractionWithinTolerance * Double(r.total),
                "\(name): \(r.beyond) of \(r.total) pixels differ from the CPU frame by more than \(channelTolerance)/255",
                sourceLocation: sourceLocation)
        #expect(r.worst <= worstAllowed, "\(name): a pixel differs from the CPU frame by \(r.worst)/255",
                sourceLocation: sourceLocation)
    }
}
