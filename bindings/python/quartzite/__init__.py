"""Quartzite: Apple's Core Animation model for Linux, from Python.

Two layers:

* ``quartzite._lib`` -- the raw ctypes layer: every C function, struct, enum,
  callback type and constant of the public headers under its C name.
* this package -- Pythonic wrappers that raise :class:`QuartziteError` when
  the library records an error: geometry (:class:`Point`, :class:`Size`,
  :class:`Rect`, :class:`AffineTransform`, :class:`Transform3D`),
  :class:`Color`, paths (:class:`Path`), boxed values (:class:`Value`,
  :func:`to_value`, :func:`from_value`), layers (:class:`Layer`,
  :class:`ScrollLayer`, :class:`TextLayer`, :class:`TiledLayer`,
  :class:`EAGLLayer`; subclass them to make layer classes), OpenGL ES through
  EGL (:class:`EAGLContext`, :meth:`Renderer.with_egl_context`,
  :mod:`quartzite.gl`), animations (:class:`BasicAnimation`,
  :class:`KeyframeAnimation`, :class:`AnimationGroup`, :class:`Transition`,
  :class:`TimingFunction`, :func:`process_animation_events`), Core Video
  (:class:`PixelBuffer` with zero-copy NumPy views, :class:`PixelBufferPool`,
  pixel format descriptions), transactions and actions (:class:`transaction`,
  :class:`Action`), the run loop (:mod:`quartzite.run_loop`) and
  :class:`DisplayLink`, rendering (:class:`Renderer` with frames as NumPy
  arrays, :class:`DrawList`, :func:`render_in_context`), the media clock and
  the error handler, and Core Graphics (:class:`Context` with Apple's
  CGContext vocabulary in snake_case, :class:`Image`, :class:`Gradient`),
  layer filters (:mod:`quartzite.filters`: Core Image filter dicts and
  compositing filter names), and text (:class:`Font`, :class:`AttributedString` from ``(text,
  attributes)`` runs, Core Text's :class:`Line`, :class:`Framesetter` and
  :class:`TextFrame` (``quartzite.text.Frame``; :class:`Frame` is a
  renderer's frame); :mod:`quartzite.text`).

The library is loaded from ``$QUARTZITE_LIBRARY`` (a full path) if set, else
from inside the package (an installed wheel), else from the build tree
(``build/lib/libquartzite.so``), else from the system loader path.
``__version__`` is the package's version (CMakeLists.txt's project version).
"""
from . import _lib, run_loop
from ._export import HAS_BUFFER_PROTOCOL
from .animation import (
    Animation, AnimationGroup, BasicAnimation, KeyframeAnimation, PropertyAnimation, SpringAnimation,
    TimingFunction, Transition, process_animation_events,
)
from .color import Color
from .display_link import DisplayLink
from .errors import (
    ErrorCode, InvalidArgumentError, InvalidStateError, NotFiniteError,
    NullArgumentError, OutOfMemoryError, OutOfRangeError, QuartziteError,
    UnknownConstantError, WrongTypeError, call, clear_last_error, last_error,
    set_error_handler,
)
from . import filters
from .geometry import AffineTransform, Point, Rect, Size, Transform3D
from .graphics import (
    BlendMode, Context, Gradient, GradientDrawingOptions, Image, InterpolationQuality, LineCap, LineJoin,
    PathDrawingMode,
)
from .layer import (
    EAGLLayer, Edge, EmitterLayer, GradientLayer, Layer, ReplicatorLayer, ScrollLayer, ShapeLayer, TextLayer,
    TiledLayer,
)
from .emitter import EmitterCell
from .gl import EAGLContext
from .path import Path, PathElement, PathElementType
from .renderer import DrawList, Frame, Renderer, render_in_context
from .text import AttributedString, Font, Framesetter, Line, UnderlineStyle
from .text import Frame as TextFrame
from .timing import current_media_time, set_media_time_source
from .transaction import Action, null_action, transaction
from .transaction import begin as transaction_begin, commit as transaction_commit, flush as transaction_flush
from .transaction import lock as transaction_lock, unlock as transaction_unlock
from .values import Value, ValueType, from_value, to_value
from .video import (
    CoreVideoError, CVReturn, PixelBuffer, PixelBufferPool, Plane, all_pixel_format_descriptions, fourcc,
    fourcc_string, pixel_format_description, register_pixel_format,
)

__all__ = [
    "AttributedString", "Font", "TextFrame", "Framesetter", "Line", "UnderlineStyle",
    "BlendMode", "Gradient", "GradientDrawingOptions", "Image", "InterpolationQuality", "LineCap", "LineJoin",
    "PathDrawingMode",
    "AffineTransform", "Animation", "DisplayLink", "AnimationGroup", "BasicAnimation", "CVReturn",
    "Color", "Context", "CoreVideoError", "Edge", "ErrorCode", "InvalidArgumentError",
    "InvalidStateError", "KeyframeAnimation", "Layer", "NotFiniteError",
    "NullArgumentError", "OutOfMemoryError", "OutOfRangeError", "Path", "PathElement",
    "PathElementType", "PixelBuffer", "PixelBufferPool", "Plane", "Point",
    "PropertyAnimation", "QuartziteError", "Rect", "ScrollLayer", "Size", "SpringAnimation", "TextLayer",
    "TiledLayer", "EAGLLayer", "GradientLayer", "ShapeLayer", "ReplicatorLayer", "EmitterLayer", "EmitterCell", "EAGLContext", "TimingFunction", "Transform3D", "Transition", "UnknownConstantError",
    "Value", "ValueType", "WrongTypeError", "all_pixel_format_descriptions", "call",
    "clear_last_error", "current_media_time", "fourcc", "fourcc_string", "from_value",
    "last_error", "pixel_format_description", "process_animation_events",
    "register_pixel_format", "run_loop", "set_error_handler", "set_media_time_source",
    "to_value", "filters",
    # Transactions and actions
    "Action", "null_action", "transaction", "transaction_begin", "transaction_commit",
    "transaction_flush", "transaction_lock", "transaction_unlock",
    # Rendering
    "DrawList", "Frame", "Renderer", "render_in_context", "HAS_BUFFER_PROTOCOL",
    "__version__",
]


def _source_version() -> str:
    """The version of a source checkout: CMakeLists.txt's project version."""
    import os
    import re
    cmake = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "CMakeLists.txt")
    try:
        with open(cmake, encoding="utf-8") as f:
            found = re.search(r"project\(Quartzite VERSION ([0-9.]+)", f.read())
    except OSError:
        found = None
    return found.group(1) if found else "0+unknown"


try:  # an installed wheel: written by the build
    from ._version import __version__  # type: ignore[import-not-found, unused-ignore]
except ImportError:
    __version__ = _source_version()
