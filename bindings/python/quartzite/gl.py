"""OpenGL ES through EGL: the EAGLContext methods that work with a
:class:`~quartzite.EAGLLayer`, and the constants of its drawable properties.

Quartzite loads libEGL.so.1 and libGLESv2.so.2 itself the first time one of
these calls needs them; the host brings its own EGL display and context
(integers or ctypes pointers, from its engine, PyOpenGL, or ctypes calls to
libEGL). Without EGL the calls raise :class:`InvalidStateError`.

::

    ctx = EAGLContext(display, context)        # context current on this thread
    glBindRenderbuffer(GL_RENDERBUFFER, rb)
    ctx.renderbuffer_storage(layer)            # sized to bounds x contents_scale
    ... draw into a framebuffer with rb attached ...
    ctx.present_renderbuffer()                 # the layer shows it from the next frame

A GL renderer is :meth:`quartzite.Renderer.with_egl_context`.
"""
from typing import Any

from . import _lib
from .errors import call
from .layer import _require_layer
from .renderer import EGLHandle, _pointer

__all__ = ["EAGLContext", "GL_RENDERBUFFER", "RETAINED_BACKING", "COLOR_FORMAT", "COLOR_FORMAT_RGBA8",
           "COLOR_FORMAT_RGB565"]

#: GL_RENDERBUFFER, the only target the EAGLContext methods take.
GL_RENDERBUFFER = 0x8D41
# Apple's string values, as the header's macros (_lib.kEAGL...) spell them.
#: kEAGLDrawablePropertyRetainedBacking: keep the renderbuffer's pixels after a present.
RETAINED_BACKING: str = "EAGLDrawablePropertyRetainedBacking"
#: kEAGLDrawablePropertyColorFormat: the renderbuffer's colour format.
COLOR_FORMAT: str = "EAGLDrawablePropertyColorFormat"
#: kEAGLColorFormatRGBA8 (the default) and kEAGLColorFormatRGB565.
COLOR_FORMAT_RGBA8: str = "EAGLColorFormatRGBA8"
COLOR_FORMAT_RGB565: str = "EAGLColorFormat565"


class EAGLContext:
    """An EGL display and OpenGL ES context standing for Apple's EAGLContext.
    The context must be current on the calling thread for its methods."""

    __slots__ = ("display", "context")

    def __init__(self, display: EGLHandle, context: EGLHandle) -> None:
        self.display = display
        self.context = context

    def renderbuffer_storage(self, layer: Any, target: int = GL_RENDERBUFFER) -> bool:
        """Apple's renderbufferStorage:fromDrawable:: storage for the
        renderbuffer bound to ``target`` in the current context, sized to the
        layer's bounds x contents_scale in its drawable properties' colour
        format. Raises a QuartziteError when it cannot."""
        _require_layer(layer, "renderbuffer_storage")
        return bool(call(_lib.QZEAGLContextRenderbufferStorageFromDrawable, _pointer(self.display),
                         _pointer(self.context), target, layer))

    def present_renderbuffer(self, target: int = GL_RENDERBUFFER) -> bool:
        """Apple's presentRenderbuffer:: the bound renderbuffer's image
        becomes its layer's contents (from the next committed frame)."""
        return bool(call(_lib.QZEAGLContextPresentRenderbuffer, _pointer(self.display), _pointer(self.context), target))
