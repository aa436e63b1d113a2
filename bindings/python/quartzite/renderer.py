"""CARenderer from Python: render a layer tree at a media time into a pixel
buffer and get frames as NumPy arrays; draw lists; renderInContext."""
from __future__ import annotations

import ctypes
import math
from typing import TYPE_CHECKING, Any, Dict, Iterator, Optional, Union, overload

from . import _lib
from ._export import PixelExport, PixelLayout
from .errors import ErrorCode, InvalidStateError, call
from .geometry import Rect, RectLike
from .handle import Handle
from .filters import COMPOSITING_FILTERS
from .layer import Layer, _as_rect, _take_value
from .video import PixelBuffer, PixelFormat

if TYPE_CHECKING:
    import numpy

    from typing import Literal

# QZDrawOperationKind values by name.
DRAW_OPERATION_KINDS = {
    1: "fill", 2: "border", 3: "image", 4: "path", 5: "push_clip", 6: "pop_clip",
    7: "begin_group", 8: "begin_mask", 9: "end_group", 10: "begin_shadow", 11: "end_shadow",
    12: "backdrop",
}


class DrawList(Handle):
    """A frame's operations (QZDrawListRef): ``len(list)`` and ``list[i]``,
    a dict of the QZDrawOperation fields (``kind`` as a name, ``blend_mode``
    as a compositing filter name, ``filters`` as a list of filter dicts with
    every input resolved, blur radii in pixels, or None)."""

    __slots__ = ()
    _type_name = "QZDrawListRef"

    def __len__(self) -> int:
        return call(_lib.QZDrawListGetCount, self)

    def __getitem__(self, index: int) -> Dict[str, Any]:
        count = len(self)
        if index < 0:
            index += count
        if not 0 <= index < count:
            raise IndexError(index)
        return self._operation(index)

    def __iter__(self) -> Iterator[Dict[str, Any]]:
        for i in range(len(self)):
            yield self._operation(i)

    def _operation(self, index: int) -> Dict[str, Any]:
        op = _lib.QZDrawOperation()
        call(_lib.QZDrawListGetOperation, self, index, ctypes.byref(op))
        t = op.transform
        return {
            "kind": DRAW_OPERATION_KINDS.get(op.kind, op.kind),
            "blend_mode": COMPOSITING_FILTERS[op.blendMode] if op.blendMode < len(COMPOSITING_FILTERS) else op.blendMode,
            "filters": _take_value(call(_lib.QZDrawListCopyOperationFilters, self, index)),
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
    of ``width`` x ``height`` (``pixel_format="RGBA"`` for RGBA, or any
    chunky RGB format), or into ``target``, a PixelBuffer.

    ``frame(t)`` renders the frame at media time ``t`` (only what changed
    since the last frame is redrawn) and returns it as a (height, width, 4)
    uint8 NumPy array in BGRA order (a copy); ``frame(t, rgba=True)`` gives
    RGBA. ``frame(t, copy=False)`` returns a :class:`Frame` over the target
    itself: ``numpy.asarray(frame)``, ``memoryview(frame)`` and Pillow's
    ``Image.frombuffer`` read it without a copy (an ``"RGBA"`` target maps
    straight to Pillow's RGBA mode) until the next frame draws over it. ``begin_frame``, ``update_bounds``, ``add_update_rect``,
    ``render`` and ``end_frame`` are the steps of a frame;
    ``next_frame_time`` is infinity while nothing animates."""

    __slots__ = ("_target", "_layer")
    _type_name = "CARendererRef"
    _target: Optional[PixelBuffer]     # None for a GL renderer
    _layer: Optional[Layer]

    def __init__(self, layer: Optional[Layer] = None, width: Optional[int] = None, height: Optional[int] = None, target: Optional[PixelBuffer] = None, pixel_format: PixelFormat = "BGRA") -> None:
        self._ref = None
        if target is None:
            if width is None or height is None:
                raise TypeError("give width and height, or a target PixelBuffer")
            target = PixelBuffer(width, height, pixel_format)
        self._target = target
        self._ref = call(_lib.CARendererCreate, target, None)
        self._layer = None
        if layer is not None:
            self.layer = layer

    @classmethod
    def with_egl_context(cls, display: EGLHandle, context: EGLHandle, layer: Optional[Layer] = None,
                         options: Optional[Dict[str, Any]] = None) -> "Renderer":
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
    def target(self) -> Optional[PixelBuffer]:
        """The PixelBuffer frames are drawn into (None for a GL renderer)."""
        return self._target

    @property
    def layer(self) -> Optional[Layer]:
        return self._layer

    @layer.setter
    def layer(self, layer: Optional[Layer]) -> None:
        call(_lib.CARendererSetLayer, self, layer)
        self._layer = layer

    @property
    def bounds(self) -> Rect:
        return Rect.from_c(call(_lib.CARendererGetBounds, self))

    @bounds.setter
    def bounds(self, r: RectLike) -> None:
        call(_lib.CARendererSetBounds, self, _as_rect(r))

    def begin_frame(self, time: float) -> None:
        call(_lib.CARendererBeginFrameAtTime, self, float(time), None)

    def update_bounds(self) -> Optional[Rect]:
        """The pixels the current frame redraws (None when nothing changed)."""
        r = call(_lib.CARendererUpdateBounds, self)
        return None if math.isinf(r.origin.x) else Rect.from_c(r)

    def add_update_rect(self, r: RectLike) -> None:
        call(_lib.CARendererAddUpdateRect, self, _as_rect(r))

    def render(self) -> None:
        call(_lib.CARendererRender, self)

    @property
    def waits_for_tiles(self) -> bool:
        """Whether a frame waits until the tiles of its tiled layers are drawn
        (QZRendererSetWaitsForTiles): deterministic frames for tests and
        offline rendering. The GIL is released while it waits, so tiles drawn
        in Python go on."""
        return bool(call(_lib.QZRendererGetWaitsForTiles, self))

    @waits_for_tiles.setter
    def waits_for_tiles(self, waits: bool) -> None:
        call(_lib.QZRendererSetWaitsForTiles, self, bool(waits))

    @property
    def thread_count(self) -> int:
        """How many threads draw each frame (QZRendererSetThreadCount): the
        update region is cut into bands of rows drawn at once on the calling
        thread and the tiled layers' worker pool; the pixels are the same
        bytes whatever the count. 1 (the default) draws on the calling thread
        alone; setting 0 means one per core; above 64 raises OutOfRangeError."""
        return int(call(_lib.QZRendererGetThreadCount, self))

    @thread_count.setter
    def thread_count(self, count: int) -> None:
        call(_lib.QZRendererSetThreadCount, self, int(count))

    def end_frame(self) -> None:
        call(_lib.CARendererEndFrame, self)

    @property
    def next_frame_time(self) -> float:
        return call(_lib.CARendererGetNextFrameTime, self)

    def draw_list(self) -> DrawList:
        """The current (or last) frame's operations."""
        return DrawList.adopt(call(_lib.QZRendererCopyDrawList, self))

    @overload
    def frame(self, time: float, rgba: bool = ..., copy: Literal[True] = ...) -> numpy.ndarray: ...

    @overload
    def frame(self, time: float, rgba: bool = ..., *, copy: Literal[False]) -> Frame: ...

    def frame(self, time: float, rgba: bool = False, copy: bool = True) -> Union[numpy.ndarray, Frame]:
        """Renders the frame at media time ``time``; returns a NumPy copy,
        or with ``copy=False`` the target PixelBuffer, locked read-only (the
        caller unlocks it: ``with renderer.frame(t, copy=False) as pb:``)."""
        if self._target is None:
            raise TypeError("a GL renderer draws into a GL framebuffer: call begin_frame, render and end_frame")
        self.begin_frame(time)
        self.render()
        self.end_frame()
        if not copy:
            return Frame(self._target)
        import numpy as np
        with self._target.locked(read_only=True):
            pixels = np.array(self._target, copy=True)
        return pixels[..., [2, 1, 0, 3]] if rgba else pixels


class Frame(PixelExport):
    """A rendered frame without a copy: the renderer's target PixelBuffer
    (``.buffer``), locked read-only while the Frame lives (or until
    :meth:`release`, or the end of a ``with`` block).

    ``numpy.asarray(frame)`` and ``memoryview(frame)`` are read-only views
    of the target's memory with explicit strides: shape (height, width, 4),
    strides (bytes_per_row, 4, 1), premultiplied samples in the target's
    byte order (B, G, R, A for the default "BGRA" target; R, G, B, A for
    ``pixel_format="RGBA"``), rows top to bottom. Views keep the frame, and
    so its lock, alive. The next frame the renderer draws overwrites the
    pixels: copy (``numpy.array(frame)``) what must outlive it."""

    __slots__ = ("buffer", "_locked")

    def __init__(self, buffer: PixelBuffer):
        self.buffer = buffer
        self._locked = False
        buffer.lock(read_only=True)
        self._locked = True

    @property
    def width(self) -> int:
        return self.buffer.width

    @property
    def height(self) -> int:
        return self.buffer.height

    @property
    def bytes_per_row(self) -> int:
        return self.buffer.bytes_per_row

    @property
    def pixel_format(self) -> int:
        return self.buffer.pixel_format

    def _pixel_layout(self) -> PixelLayout:
        if not self._locked:
            raise InvalidStateError(ErrorCode.INVALID_STATE, "the frame was released")
        return self.buffer._pixel_layout()

    def release(self) -> None:
        """Ends the frame's read-only lock (views made before stay valid
        memory, but unlocked); safe to call twice."""
        if self._locked:
            self._locked = False
            self.buffer.unlock(read_only=True)

    def __enter__(self) -> "Frame":
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def __del__(self) -> None:
        try:
            self.release()
        except Exception:  # interpreter exit: the library may be gone
            pass


#: An EGL handle (EGLDisplay, EGLContext) from Python: an int, a ctypes pointer or None.
EGLHandle = Union[int, ctypes.c_void_p, "ctypes._Pointer[Any]", None]


def _pointer(p: EGLHandle) -> ctypes.c_void_p:
    """An EGL handle given as an int, a ctypes pointer or None, as c_void_p."""
    if p is None or isinstance(p, int):
        return ctypes.c_void_p(p)
    if isinstance(p, ctypes.c_void_p):
        return p
    return ctypes.cast(p, ctypes.c_void_p)


def _options(options: Optional[Dict[str, Any]]) -> Optional[int]:
    if options is None:
        return None
    from .values import to_value
    return to_value(options)


def render_in_context(layer: Layer, width: int, height: int, scale: float = 1.0) -> numpy.ndarray:
    """CALayerRenderInContext into a new width x height bitmap (the layer's
    model tree, animations ignored, in its own coordinates times ``scale``:
    layer point (0, 0) at the bitmap's origin, whatever the bounds origin);
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
