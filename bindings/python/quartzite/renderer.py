"""CARenderer from Python: render a layer tree at a media time into a pixel
buffer and get frames as NumPy arrays; draw lists; renderInContext."""
import ctypes
import math

from . import _lib
from .errors import call
from .geometry import Rect
from .handle import Handle
from .layer import _as_rect
from .video import PixelBuffer

# QZDrawOperationKind values by name.
DRAW_OPERATION_KINDS = {
    1: "fill", 2: "border", 3: "image", 4: "path", 5: "push_clip", 6: "pop_clip",
    7: "begin_group", 8: "begin_mask", 9: "end_group", 10: "begin_shadow", 11: "end_shadow",
}


class DrawList(Handle):
    """A frame's operations (QZDrawListRef): ``len(list)`` and ``list[i]``,
    a dict of the QZDrawOperation fields (``kind`` as a name)."""

    __slots__ = ()
    _type_name = "QZDrawListRef"

    def __len__(self):
        return call(_lib.QZDrawListGetCount, self)

    def __getitem__(self, index):
        count = len(self)
        if index < 0:
            index += count
        if not 0 <= index < count:
            raise IndexError(index)
        return self._operation(index)

    def __iter__(self):
        for i in range(len(self)):
            yield self._operation(i)

    def _operation(self, index):
        op = _lib.QZDrawOperation()
        call(_lib.QZDrawListGetOperation, self, index, ctypes.byref(op))
        t = op.transform
        return {
            "kind": DRAW_OPERATION_KINDS.get(op.kind, op.kind),
            "transform": tuple(getattr(t, f"m{r}{c}") for r in range(1, 5) for c in range(1, 5)),
            "rect": Rect.from_c(op.rect),
            "corner_radius": op.cornerRadius,
            "border_width": op.borderWidth,
            "color": tuple(op.color),
            "opacity": op.opacity,
            "texture": op.texture,
            "texture_rect": Rect.from_c(op.textureRect),
            "bounds": Rect.from_c(op.bounds),
            "shadow_offset": (op.shadowOffset.width, op.shadowOffset.height),
            "shadow_radius": op.shadowRadius,
            "layer_id": op.layerID,
            "depth": op.depth,
        }


class Renderer(Handle):
    """A CARenderer drawing ``layer`` into a premultiplied BGRA pixel buffer
    of ``width`` x ``height`` (or into ``target``, a PixelBuffer).

    ``frame(t)`` renders the frame at media time ``t`` (only what changed
    since the last frame is redrawn) and returns it as a (height, width, 4)
    uint8 NumPy array in BGRA order (a copy); ``frame(t, rgba=True)`` gives
    RGBA. ``begin_frame``, ``update_bounds``, ``add_update_rect``,
    ``render`` and ``end_frame`` are the steps of a frame;
    ``next_frame_time`` is infinity while nothing animates."""

    __slots__ = ("_target", "_layer")
    _type_name = "CARendererRef"

    def __init__(self, layer=None, width=None, height=None, target=None):
        self._ref = None
        if target is None:
            if width is None or height is None:
                raise TypeError("give width and height, or a target PixelBuffer")
            target = PixelBuffer(width, height, "BGRA")
        self._target = target
        self._ref = call(_lib.CARendererCreate, target, None)
        self._layer = None
        if layer is not None:
            self.layer = layer

    @classmethod
    def with_egl_context(cls, display, context, layer=None, options=None):
        """A renderer drawing with OpenGL ES 3 into the framebuffer bound in
        the EGL ``context`` of ``display`` (CARendererCreateWithEGLContext):
        both as integers or ctypes pointers; the context must be current on
        the calling thread now and at each render. Its bounds start as the
        current viewport; ``target`` is None and ``frame()`` is not
        available (read the framebuffer with GL)."""
        obj = cls.__new__(cls)
        obj._ref = None
        obj._target = None
        obj._layer = None
        opts = _options(options)
        try:
            obj._ref = call(_lib.CARendererCreateWithEGLContext, _pointer(display), _pointer(context), opts)
        finally:
            if opts:
                _lib.CARelease(opts)
        if layer is not None:
            obj.layer = layer
        return obj

    @property
    def target(self):
        """The PixelBuffer frames are drawn into (None for a GL renderer)."""
        return self._target

    @property
    def layer(self):
        return self._layer

    @layer.setter
    def layer(self, layer):
        call(_lib.CARendererSetLayer, self, layer)
        self._layer = layer

    @property
    def bounds(self):
        return Rect.from_c(call(_lib.CARendererGetBounds, self))

    @bounds.setter
    def bounds(self, r):
        call(_lib.CARendererSetBounds, self, _as_rect(r))

    def begin_frame(self, time):
        call(_lib.CARendererBeginFrameAtTime, self, float(time), None)

    def update_bounds(self):
        """The pixels the current frame redraws (None when nothing changed)."""
        r = call(_lib.CARendererUpdateBounds, self)
        return None if math.isinf(r.origin.x) else Rect.from_c(r)

    def add_update_rect(self, r):
        call(_lib.CARendererAddUpdateRect, self, _as_rect(r))

    def render(self):
        call(_lib.CARendererRender, self)

    def end_frame(self):
        call(_lib.CARendererEndFrame, self)

    @property
    def next_frame_time(self):
        return call(_lib.CARendererGetNextFrameTime, self)

    def draw_list(self):
        """The current (or last) frame's operations."""
        return DrawList.adopt(call(_lib.QZRendererCopyDrawList, self))

    def frame(self, time, rgba=False):
        """Renders the frame at media time ``time``; returns a NumPy copy."""
        import numpy as np
        if self._target is None:
            raise TypeError("a GL renderer draws into a GL framebuffer: call begin_frame, render and end_frame")
        self.begin_frame(time)
        self.render()
        self.end_frame()
        with self._target.locked(read_only=True):
            pixels = np.array(self._target, copy=True)
        return pixels[..., [2, 1, 0, 3]] if rgba else pixels


def _pointer(p):
    """An EGL handle given as an int, a ctypes pointer or None, as c_void_p."""
    if p is None or isinstance(p, int):
        return ctypes.c_void_p(p)
    if isinstance(p, ctypes.c_void_p):
        return p
    return ctypes.cast(p, ctypes.c_void_p)


def _options(options):
    if options is None:
        return None
    from .values import to_value
    return to_value(options)


def render_in_context(layer, width, height, scale=1.0):
    """CALayerRenderInContext into a new width x height bitmap (the layer's
    model tree, animations ignored, in its own coordinates times ``scale``);
    returns the BGRA pixels as a NumPy array."""
    import numpy as np
    pb = PixelBuffer(width, height, "BGRA")
    ctx = call(_lib.QZBitmapContextCreateWithPixelBuffer, pb)
    try:
        if scale != 1.0:
            call(_lib.CGContextScaleCTM, ctx, float(scale), float(scale))
        call(_lib.CALayerRenderInContext, layer, ctx)
    finally:
        _lib.CGContextRelease(ctx)
    with pb.locked(read_only=True):
        return np.array(pb, copy=True)
