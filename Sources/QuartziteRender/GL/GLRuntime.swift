import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel

// EGL and OpenGL ES at run time: the libraries are opened on the first GL
// call (quartzite_gl.h), and every GL entry point of the API first checks
// that the display and context it is given name a live OpenGL ES 3 context
// current on the calling thread. Without the libraries those calls record
// QZErrorInvalidState and the rest of the library is unaffected.

package enum GLRuntime {
    /// True when EGL and GLES are loaded; otherwise records QZErrorInvalidState
    /// naming `function` and the reason.
    package static func available(_ function: StaticString) -> Bool {
        var message: UnsafePointer<CChar>?
        if qz_internal_gl_load(&message) { return true }
        recordError(QZErrorInvalidState, function, message.map { String(cString: $0) } ?? "EGL/GLES could not be loaded")
        return false
    }

    /// Checks that `display`/`context` is a live OpenGL ES context of that
    /// display, current on the calling thread, of version 3.0 or later.
    /// Records an error naming `function` and returns false otherwise.
    package static func requireCurrent(_ display: UnsafeMutableRawPointer?, _ context: UnsafeMutableRawPointer?,
                               _ function: StaticString) -> Bool {
        guard available(function) else { return false }
        guard let display else { recordError(QZErrorNullArgument, function, "display is NULL (EGL_NO_DISPLAY)"); return false }
        guard let context else { recordError(QZErrorNullArgument, function, "context is NULL (EGL_NO_CONTEXT)"); return false }
        // EGL looks both up in its own tables, so a stale or foreign pointer
        // is an error here, not a crash (a destroyed context is gone from
        // them even while it is still current somewhere).
        var clientType: EGLint = 0
        if qz_eglQueryContext(display, context, EGL_CONTEXT_CLIENT_TYPE, &clientType) == 0 {
            let e = qz_eglGetError()
            recordError(QZErrorInvalidArgument, function,
                        "the context is not a live EGL context of that display (EGL error 0x\(String(e, radix: 16)))")
            return false
        }
        guard clientType == EGL_OPENGL_ES_API else {
            recordError(QZErrorInvalidArgument, function, "the context is not an OpenGL ES context (EGL client type 0x\(String(clientType, radix: 16)))")
            return false
        }
        guard qz_eglGetCurrentContext() == context, qz_eglGetCurrentDisplay() == display else {
            recordError(QZErrorInvalidState, function, "the context is not current on the calling thread (call eglMakeCurrent first)")
            return false
        }
        let version = currentVersion()
        guard version.major >= 3 else {
            recordError(QZErrorInvalidState, function,
                        "the context is OpenGL ES \(version.major).\(version.minor); Quartzite's GL work needs OpenGL ES 3.0 or later")
            return false
        }
        return true
    }

    /// The current context's OpenGL ES version, from GL_VERSION ("OpenGL ES
    /// 3.2 ...", "OpenGL ES-CM 1.1 ..."); read from the string rather than
    /// GL_MAJOR_VERSION, which an ES 1 or 2 context would answer with an
    /// error left in the host's error flag.
    package static func currentVersion() -> (major: Int, minor: Int) {
        guard let s = qz_glGetString(GL_VERSION) else { return (0, 0) }
        let text = String(cString: UnsafeRawPointer(s).assumingMemoryBound(to: CChar.self))
        guard let start = text.firstIndex(where: { $0.isNumber }) else { return (0, 0) }
        let parts = text[start...].prefix { $0.isNumber || $0 == "." }.split(separator: ".")
        return (parts.first.flatMap { Int($0) } ?? 0, parts.dropFirst().first.flatMap { Int($0) } ?? 0)
    }

    package static func integer(_ name: GLenum) -> GLint {
        var v: GLint = 0
        qz_glGetIntegerv(name, &v)
        return v
    }

    /// A parameter of the renderbuffer bound to GL_RENDERBUFFER.
    package static func renderbufferParameter(_ name: GLenum) -> GLint {
        var v: GLint = 0
        qz_glGetRenderbufferParameteriv(GL_RENDERBUFFER, name, &v)
        return v
    }
}

/// Compiles and links a program; nil (with the driver's log in `log`) on failure.
package func compileGLProgram(vertex: String, fragment: String, log: inout String) -> GLuint? {
    func shader(_ type: GLenum, _ source: String) -> GLuint? {
        let s = qz_glCreateShader(type)
        guard s != 0 else { log = "glCreateShader failed"; return nil }
        source.withCString { p in
            var ptr: UnsafePointer<GLchar>? = p
            qz_glShaderSource(s, 1, &ptr, nil)
        }
        qz_glCompileShader(s)
        var ok: GLint = 0
        qz_glGetShaderiv(s, GL_COMPILE_STATUS, &ok)
        if ok == 0 {
            log = infoLog { n, len, buf in qz_glGetShaderInfoLog(s, n, len, buf) }
            qz_glDeleteShader(s)
            return nil
        }
        return s
    }
    guard let vs = shader(GL_VERTEX_SHADER, vertex) else { return nil }
    defer { qz_glDeleteShader(vs) }
    guard let fs = shader(GL_FRAGMENT_SHADER, fragment) else { return nil }
    defer { qz_glDeleteShader(fs) }
    let p = qz_glCreateProgram()
    guard p != 0 else { log = "glCreateProgram failed"; return nil }
    qz_glAttachShader(p, vs)
    qz_glAttachShader(p, fs)
    qz_glLinkProgram(p)
    var ok: GLint = 0
    qz_glGetProgramiv(p, GL_LINK_STATUS, &ok)
    if ok == 0 {
        log = infoLog { n, len, buf in qz_glGetProgramInfoLog(p, n, len, buf) }
        qz_glDeleteProgram(p)
        return nil
    }
    return p
}

private func infoLog(_ read: (GLsizei, UnsafeMutablePointer<GLsizei>, UnsafeMutablePointer<GLchar>) -> Void) -> String {
    let capacity = 4096
    let buffer = UnsafeMutablePointer<GLchar>.allocate(capacity: capacity)
    defer { buffer.deallocate() }
    var length: GLsizei = 0
    read(GLsizei(capacity), &length, buffer)
    let n = max(0, min(Int(length), capacity - 1))
    buffer[n] = 0
    return String(cString: buffer)
}
