"""OpenGL ES through EGL from Python: EAGLLayer's drawable properties, the
EAGLContext methods and the GL renderer, on Mesa's llvmpipe with a
surfaceless EGL context made through ctypes (the test's own libEGL;
Quartzite loads its own at run time)."""
import ctypes

import numpy as np
import pytest

import quartzite
from quartzite import Color, EAGLContext, EAGLLayer, Layer, Renderer, gl
from quartzite.errors import InvalidStateError, NullArgumentError, UnknownConstantError, WrongTypeError

GL_RENDERBUFFER = 0x8D41
GL_FRAMEBUFFER = 0x8D40
GL_COLOR_ATTACHMENT0 = 0x8CE0
GL_TEXTURE_2D = 0x0DE1
GL_RGBA8 = 0x8058
GL_RGBA = 0x1908
GL_UNSIGNED_BYTE = 0x1401
GL_COLOR_BUFFER_BIT = 0x4000
GL_RENDERBUFFER_WIDTH = 0x8D42
GL_RENDERBUFFER_HEIGHT = 0x8D43


class SurfacelessGL:
    """A surfaceless EGL display with an OpenGL ES 3 context, through ctypes."""

    def __init__(self):
        self.egl = ctypes.CDLL("libEGL.so.1")
        self.gles = ctypes.CDLL("libGLESv2.so.2")
        e = self.egl
        e.eglGetProcAddress.restype = ctypes.c_void_p
        e.eglGetProcAddress.argtypes = [ctypes.c_char_p]
        get_display = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_uint, ctypes.c_void_p, ctypes.c_void_p)(
            e.eglGetProcAddress(b"eglGetPlatformDisplayEXT"))
        self.display = get_display(0x31DD, None, None)   # EGL_PLATFORM_SURFACELESS_MESA
        e.eglInitialize.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
        if not self.display or not e.eglInitialize(self.display, None, None):
            raise OSError("no surfaceless EGL display")
        e.eglBindAPI(0x30A0)                               # EGL_OPENGL_ES_API
        e.eglCreateContext.restype = ctypes.c_void_p
        e.eglCreateContext.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
        attributes = (ctypes.c_int32 * 3)(0x3098, 3, 0x3038)  # EGL_CONTEXT_MAJOR_VERSION 3
        self.context = e.eglCreateContext(self.display, None, None, attributes)
        if not self.context:
            raise OSError("no OpenGL ES 3 context")
        e.eglMakeCurrent.argtypes = [ctypes.c_void_p] * 4
        e.eglDestroyContext.argtypes = [ctypes.c_void_p] * 2
        for name, args in {"glGenRenderbuffers": [ctypes.c_int, ctypes.c_void_p],
                           "glBindRenderbuffer": [ctypes.c_uint, ctypes.c_uint],
                           "glDeleteRenderbuffers": [ctypes.c_int, ctypes.c_void_p],
                           "glGetRenderbufferParameteriv": [ctypes.c_uint, ctypes.c_uint, ctypes.c_void_p],
                           "glGenFramebuffers": [ctypes.c_int, ctypes.c_void_p],
                           "glBindFramebuffer": [ctypes.c_uint, ctypes.c_uint],
                           "glDeleteFramebuffers": [ctypes.c_int, ctypes.c_void_p],
                           "glFramebufferRenderbuffer": [ctypes.c_uint] * 4,
                           "glFramebufferTexture2D": [ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint,
                                                      ctypes.c_int],
                           "glGenTextures": [ctypes.c_int, ctypes.c_void_p],
                           "glBindTexture": [ctypes.c_uint, ctypes.c_uint],
                           "glDeleteTextures": [ctypes.c_int, ctypes.c_void_p],
                           "glTexImage2D": [ctypes.c_uint, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                            ctypes.c_int, ctypes.c_uint, ctypes.c_uint, ctypes.c_void_p],
                           "glViewport": [ctypes.c_int] * 4,
                           "glClearColor": [ctypes.c_float] * 4,
                           "glClear": [ctypes.c_uint],
                           "glReadPixels": [ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_uint,
                                            ctypes.c_uint, ctypes.c_void_p]}.items():
            getattr(self.gles, name).argtypes = args

    def make_current(self):
        self.egl.eglMakeCurrent(self.display, None, None, self.context)

    def release_current(self):
        self.egl.eglMakeCurrent(self.display, None, None, None)

    def new(self, kind):
        name = ctypes.c_uint(0)
        getattr(self.gles, f"glGen{kind}")(1, ctypes.byref(name))
        return name.value

    def target(self, w, h):
        """A framebuffer over an RGBA8 texture, bound, viewport set."""
        g = self.gles
        tex = self.new("Textures")
        g.glBindTexture(GL_TEXTURE_2D, tex)
        g.glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, None)
        fbo = self.new("Framebuffers")
        g.glBindFramebuffer(GL_FRAMEBUFFER, fbo)
        g.glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex, 0)
        g.glViewport(0, 0, w, h)
        return fbo, tex

    def read_rgba(self, w, h):
        """The bound framebuffer as a (h, w, 4) RGBA array, top row first."""
        buf = (ctypes.c_uint8 * (w * h * 4))()
        self.gles.glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, buf)
        return np.frombuffer(buf, dtype=np.uint8).reshape(h, w, 4)[::-1].copy()


@pytest.fixture(scope="module")
def egl():
    try:
        g = SurfacelessGL()
    except OSError as e:
        pytest.fail(f"Mesa's surfaceless EGL is needed (scripts/install-deps.sh): {e}")
    g.make_current()
    yield g
    g.release_current()
    g.egl.eglDestroyContext(g.display, g.context)


def test_drawable_properties():
    layer = EAGLLayer(bounds=(0, 0, 10, 10))
    assert layer.drawable_properties == {gl.RETAINED_BACKING: False, gl.COLOR_FORMAT: gl.COLOR_FORMAT_RGBA8}
    assert (gl.RETAINED_BACKING, gl.COLOR_FORMAT) == ("EAGLDrawablePropertyRetainedBacking",
                                                      "EAGLDrawablePropertyColorFormat")
    assert (gl.COLOR_FORMAT_RGBA8, gl.COLOR_FORMAT_RGB565) == ("EAGLColorFormatRGBA8", "EAGLColorFormat565")
    from quartzite import _lib
    assert [_lib.kEAGLDrawablePropertyRetainedBacking, _lib.kEAGLDrawablePropertyColorFormat,
            _lib.kEAGLColorFormatRGBA8, _lib.kEAGLColorFormatRGB565] == [
        s.encode() for s in (gl.RETAINED_BACKING, gl.COLOR_FORMAT, gl.COLOR_FORMAT_RGBA8, gl.COLOR_FORMAT_RGB565)]
    layer.drawable_properties = {gl.RETAINED_BACKING: True, gl.COLOR_FORMAT: gl.COLOR_FORMAT_RGB565}
    assert layer.drawable_properties[gl.RETAINED_BACKING] is True
    assert layer["drawableProperties"][gl.COLOR_FORMAT] == "EAGLColorFormat565"
    layer.drawable_properties = None
    assert layer.drawable_properties is None
    with pytest.raises(WrongTypeError):
        layer.drawable_properties = 3
    # A layer of another class does not have it; wrapped handles come back as EAGLLayers.
    with pytest.raises(AttributeError):
        Layer().drawable_properties
    root = Layer()
    root.add_sublayer(layer)
    assert type(root.sublayers[0]) is EAGLLayer


def test_bad_input_without_a_context():
    layer = EAGLLayer(bounds=(0, 0, 10, 10))
    with pytest.raises(NullArgumentError):
        EAGLContext(None, None).renderbuffer_storage(layer)
    with pytest.raises(WrongTypeError):
        EAGLContext(1, 1).renderbuffer_storage("not a layer")
    with pytest.raises(NullArgumentError):
        Renderer.with_egl_context(None, None)


def test_content_in_cpu_and_gpu_frames(egl):
    g = egl.gles
    root = Layer(frame=(0, 0, 48, 32), background_color=Color(0.5, 0.5, 0.5))
    layer = EAGLLayer(frame=(8, 8, 32, 16), contents_scale=2,
                      drawable_properties={gl.COLOR_FORMAT: gl.COLOR_FORMAT_RGB565})
    root.add_sublayer(layer)
    ctx = EAGLContext(egl.display, egl.context)
    rb = egl.new("Renderbuffers")
    g.glBindRenderbuffer(GL_RENDERBUFFER, rb)
    ctx.renderbuffer_storage(layer)
    w, h = ctypes.c_int(), ctypes.c_int()
    g.glGetRenderbufferParameteriv(GL_RENDERBUFFER, GL_RENDERBUFFER_WIDTH, ctypes.byref(w))
    g.glGetRenderbufferParameteriv(GL_RENDERBUFFER, GL_RENDERBUFFER_HEIGHT, ctypes.byref(h))
    assert (w.value, h.value) == (64, 32)
    fbo = egl.new("Framebuffers")
    g.glBindFramebuffer(GL_FRAMEBUFFER, fbo)
    g.glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb)
    g.glClearColor(0, 0, 1, 1)
    g.glClear(GL_COLOR_BUFFER_BIT)
    ctx.present_renderbuffer()

    cpu = Renderer(root, 48, 32).frame(0, rgba=True)
    assert tuple(cpu[16, 24]) == (0, 0, 255, 255)          # the layer: blue
    assert tuple(cpu[4, 4]) == (128, 128, 128, 255)         # around it: grey

    target, tex = egl.target(48, 32)
    r = Renderer.with_egl_context(egl.display, egl.context, layer=root)
    assert r.target is None
    assert (r.bounds.size.width, r.bounds.size.height) == (48, 32)
    r.begin_frame(0)
    r.render()
    r.end_frame()
    gpu = egl.read_rgba(48, 32)
    assert tuple(gpu[16, 24]) == (0, 0, 255, 255)
    assert tuple(gpu[4, 4]) == (128, 128, 128, 255)
    assert np.abs(gpu.astype(int) - cpu.astype(int)).max() <= 2
    with pytest.raises(TypeError):
        r.frame(1)
    r.close()

    # Unknown colour format: reported when storage is made.
    layer.drawable_properties = {gl.COLOR_FORMAT: "EAGLColorFormatSRGBA8"}
    with pytest.raises(UnknownConstantError):
        ctx.renderbuffer_storage(layer)
    # No current context.
    egl.release_current()
    try:
        with pytest.raises(InvalidStateError):
            ctx.present_renderbuffer()
        with pytest.raises(InvalidStateError):
            Renderer.with_egl_context(egl.display, egl.context)
    finally:
        egl.make_current()
    for kind, name in (("Framebuffers", target), ("Framebuffers", fbo), ("Renderbuffers", rb), ("Textures", tex)):
        getattr(g, f"glDelete{kind}")(1, ctypes.byref(ctypes.c_uint(name)))
