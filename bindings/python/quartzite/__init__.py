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
  the error handler.

The library is loaded from ``$QUARTZITE_LIBRARY`` (a full path) if set, else
from the build tree (``build/lib/libquartzite.so``), else from the system
loader path.
"""
from . import _lib, run_loop
from .animation import (
    Animation, AnimationGroup, BasicAnimation, KeyframeAnimation, PropertyAnimation, TimingFunction,
    Transition, process_animation_events,
)
from .color import Color
from .display_link import DisplayLink
from .errors import (
    ErrorCode, InvalidArgumentError, InvalidStateError, NotFiniteError,
    NullArgumentError, OutOfMemoryError, OutOfRangeError, QuartziteError,
    UnknownConstantError, WrongTypeError, call, clear_last_error, last_error,
    set_error_handler,
)
from .geometry import AffineTransform, Point, Rect, Size, Transform3D
from .layer import Context, EAGLLayer, Edge, Layer, ScrollLayer, TextLayer, TiledLayer
from .gl import EAGLContext
from .path import Path, PathElement, PathElementType
from .renderer import DrawList, Renderer, render_in_context
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
    "AffineTransform", "Animation", "DisplayLink", "AnimationGroup", "BasicAnimation", "CVReturn",
    "Color", "Context", "CoreVideoError", "Edge", "ErrorCode", "InvalidArgumentError",
    "InvalidStateError", "KeyframeAnimation", "Layer", "NotFiniteError",
    "NullArgumentError", "OutOfMemoryError", "OutOfRangeError", "Path", "PathElement",
    "PathElementType", "PixelBuffer", "PixelBufferPool", "Plane", "Point",
    "PropertyAnimation", "QuartziteError", "Rect", "ScrollLayer", "Size", "TextLayer",
    "TiledLayer", "EAGLLayer", "EAGLContext", "TimingFunction", "Transform3D", "Transition", "UnknownConstantError",
    "Value", "ValueType", "WrongTypeError", "all_pixel_format_descriptions", "call",
    "clear_last_error", "current_media_time", "fourcc", "fourcc_string", "from_value",
    "last_error", "pixel_format_description", "process_animation_events",
    "register_pixel_format", "run_loop", "set_error_handler", "set_media_time_source",
    "to_value",
    # Transactions and actions
    "Action", "null_action", "transaction", "transaction_begin", "transaction_commit",
    "transaction_flush", "transaction_lock", "transaction_unlock",
    # Rendering
    "DrawList", "Renderer", "render_in_context",
]
