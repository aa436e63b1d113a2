"""Core Video from Python: pixel buffers, pools and pixel formats.

``PixelBuffer(width, height, "BGRA")`` makes a buffer (pixel formats are
four-character strings such as ``"420v"`` or the integer constants of
``quartzite._lib``, e.g. ``kCVPixelFormatType_32BGRA``). Lock it to touch
its pixels from NumPy without copying::

    with pb.locked():
        a = numpy.asarray(pb)          # (height, width, 4) uint8, a view
        a[..., 3] = 255                # writes the buffer's own memory

``numpy.asarray(pb)`` of a chunky buffer, and ``numpy.asarray(pb.plane(i))``
of any plane, are views through ``__array_interface__`` and the buffer
protocol (``memoryview(pb)``, Pillow's ``Image.frombuffer``; see
quartzite._export): the data pointer is the buffer's base address, the
strides ``(bytes_per_row, bytes per pixel, bytes per sample)``, so padding
and extended pixels are skipped, not copied. Pixel order is the format's
byte order: a ``"BGRA"`` buffer (what the renderer draws) is premultiplied
B, G, R, A bytes, rows top to bottom. The buffer must be locked when the
view is made (a read-only lock gives a read-only view) and should stay
locked while the view is used; the view keeps the buffer alive. A plain
byte request of the buffer protocol (``PyBUF_SIMPLE``) gets
``bytes_per_row * height`` bytes, row padding included. ``PixelBuffer.from_array(a)`` makes a buffer from an array (a copy
by default; ``copy=False`` wraps the array's memory, which stays alive until
the buffer's last reference goes).

Core Video calls that fail raise :class:`CoreVideoError` (a
QuartziteError with the CVReturn code in ``.cv_return``) or, for errors
without a CVReturn, the usual QuartziteError subclasses.
"""
from __future__ import annotations

import contextlib
import ctypes
import enum
import os
import threading
import weakref
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Tuple, Union, cast

from . import _lib
from . import values as _values
from ._export import PixelExport, PixelLayout
from .errors import (
    ErrorCode, InvalidStateError, QuartziteError, WrongTypeError, _decode, call, error_for,
)
from .geometry import Rect, Size
from .handle import Handle
from .values import Value, from_value, to_value

#: A pixel format: a four-character code ("BGRA", "420v") or its int value.
PixelFormat = Union[str, int]

__all__ = ["CVReturn", "CoreVideoError", "PixelBuffer", "PixelBufferPool", "Plane", "fourcc", "fourcc_string",
           "pixel_format_description", "all_pixel_format_descriptions", "register_pixel_format"]

# kCVReturnFirst and kCVReturnLast are placeholders: listed last, so that
# -6660 is named Error (First stays an alias of it).
_cv_codes = [(name[len("kCVReturn"):], value) for name, value in _lib._decls.ENUM_CONSTANTS.items()
             if name.startswith("kCVReturn")]
# (An enum built at run time: to a type checker its members are plain ints.)
CVReturn: Any = cast(Any, enum.IntEnum)("CVReturn", sorted(_cv_codes, key=lambda item: item[0] in ("First", "Last")),
                        module=__name__)
CVReturn.__doc__ = "Core Video result codes, e.g. CVReturn.InvalidSize == kCVReturnInvalidSize == -6681."


class CoreVideoError(QuartziteError):
    """A Core Video call returned an error. ``cv_return`` is the CVReturn
    code (a CVReturn member), ``code`` and ``message`` the QZError the
    library recorded with it."""

    def __init__(self, cv_return: int, code: int, message: str = "") -> None:
        super().__init__(code, message)
        try:
            cv_return = CVReturn(cv_return)
        except ValueError:
            pass
        self.cv_return = cv_return
        self.args = (f"{message} [{getattr(cv_return, 'name', cv_return)}]",)


def _cv_call(function: Callable[..., int], *args: Any) -> int:
    """Calls a CVReturn function, raising CoreVideoError on failure."""
    _lib.QZClearLastError()
    result = function(*args)
    if result != 0:
        raise CoreVideoError(result, _lib.QZGetLastError(), _decode(_lib.QZGetLastErrorMessage()))
    code = _lib.QZGetLastError()
    if code:
        raise error_for(code, _decode(_lib.QZGetLastErrorMessage()))
    return result


def fourcc(code: PixelFormat) -> int:
    """A pixel format as an int: a four-character string ("BGRA" -> 0x42475241,
    big-endian as Apple writes them) or an int, returned as is."""
    if isinstance(code, str):
        data = code.encode("ascii")
        if len(data) != 4:
            raise ValueError(f"a four-character code has 4 characters, not {code!r}")
        return int.from_bytes(data, "big")
    if isinstance(code, bool) or not isinstance(code, int):
        raise TypeError(f"a pixel format is a four-character str or an int, not {type(code).__name__}")
    if not 0 <= code <= 0xFFFFFFFF:
        raise ValueError(f"pixel format {code} does not fit in 32 bits")
    return code


def fourcc_string(code: int) -> str:
    """"BGRA" for 0x42475241; the hex value for codes that are not printable."""
    data = code.to_bytes(4, "big")
    if all(0x20 <= b < 0x7F for b in data):
        return data.decode("ascii")
    return f"0x{code:08x}"


def _dict_value(attributes: Optional[Mapping[str, Any]]) -> Optional[int]:
    """A +1 CAValueRef for an attribute dict (None: NULL), to release after the call."""
    return None if attributes is None else to_value(dict(attributes))


# The NumPy layout of each format's plane 0 (chunky) or planes (planar):
# (typestr, channels per item or None for 2-D, bytes per item).
_U8, _BE16, _LE16 = "|u1", ">u2", "<u2"
_CHUNKY_SPECS: Dict[PixelFormat, Tuple[str, Optional[int], int]] = {
    "BGRA": (_U8, 4, 4), "RGBA": (_U8, 4, 4), "ABGR": (_U8, 4, 4), 0x20: (_U8, 4, 4),
    0x18: (_U8, 3, 3), "24BG": (_U8, 3, 3),
    "b64a": (_BE16, 4, 8), "b48r": (_BE16, 3, 6), "b32a": (_BE16, 2, 4), "b16g": (_BE16, None, 2),
    0x08: (_U8, None, 1), 0x28: (_U8, None, 1),
    # 16-bit RGB words (555, 5551, 565) as 2-D arrays of integers in the format's byte order.
    0x10: (_BE16, None, 2), "L555": (_LE16, None, 2), "5551": (_LE16, None, 2),
    "B565": (_BE16, None, 2), "L565": (_LE16, None, 2),
}
_CHUNKY_LAYOUTS = {fourcc(k): v for k, v in _CHUNKY_SPECS.items()}
_PACKED_422 = {fourcc("2vuy"), fourcc("yuvs"), fourcc("yuvf")}
# Planar formats: per plane (typestr, channels or None).
_PLANAR_LAYOUTS = {
    fourcc("420v"): ((_U8, None), (_U8, 2)), fourcc("420f"): ((_U8, None), (_U8, 2)),
    fourcc("y420"): ((_U8, None), (_U8, None), (_U8, None)), fourcc("f420"): ((_U8, None), (_U8, None), (_U8, None)),
}

# Wrappers by handle, so that a buffer read back (layer.contents, an
# attachment) is the same Python object while one is alive.
_wrappers: "weakref.WeakValueDictionary[int, PixelBuffer]" = weakref.WeakValueDictionary()
_wrappers_lock = threading.Lock()

# Arrays wrapped without a copy, kept alive until the library's release
# callback (called exactly once, when the buffer's last reference goes).
_kept_arrays: Dict[int, Any] = {}
_kept_lock = threading.Lock()
_next_token = [1]


def _release_array(refcon: Any, _base_address: Any) -> None:
    with _kept_lock:
        _kept_arrays.pop(refcon, None)


_release_callback = cast(Any, _lib.CVPixelBufferReleaseBytesCallback)(_release_array)


class Plane(PixelExport):
    """One plane of a locked pixel buffer: ``numpy.asarray(plane)`` and
    ``memoryview(plane)`` are views of it. Keeps its buffer alive."""

    __slots__ = ("buffer", "index")

    def __init__(self, buffer: PixelBuffer, index: int) -> None:
        self.buffer = buffer
        self.index = index

    @property
    def width(self) -> int:
        return call(_lib.CVPixelBufferGetWidthOfPlane, self.buffer, self.index)

    @property
    def height(self) -> int:
        return call(_lib.CVPixelBufferGetHeightOfPlane, self.buffer, self.index)

    @property
    def bytes_per_row(self) -> int:
        return call(_lib.CVPixelBufferGetBytesPerRowOfPlane, self.buffer, self.index)

    @property
    def address(self) -> int:
        """The plane's base address as an int."""
        return call(_lib.CVPixelBufferGetBaseAddressOfPlane, self.buffer, self.index)

    def _pixel_layout(self) -> PixelLayout:
        pb = self.buffer
        typestr, channels = _PLANAR_LAYOUTS.get(pb.pixel_format, ((_U8, None),) * 8)[self.index]
        width, height, bpr = self.width, self.height, self.bytes_per_row
        if pb.pixel_format not in _PLANAR_LAYOUTS:
            width, channels = bpr, None  # raw bytes of a plane of an unknown layout
        return pb._interface(self.address, typestr, height, width, channels, 1, bpr)


class PixelBuffer(Handle, PixelExport):
    """An owned CVPixelBufferRef. ``PixelBuffer(width, height, pixel_format,
    attributes=None)`` calls CVPixelBufferCreate; ``attributes`` is a dict
    keyed by the kCVPixelBuffer... strings (e.g.
    ``{"BytesPerRowAlignment": 64}``). A PixelBuffer can be passed directly
    to raw functions that take a CVPixelBufferRef, and set as a layer's
    contents."""

    __slots__ = ()
    _type_name = "CVPixelBufferRef"

    def __init__(self, width: int, height: int, pixel_format: PixelFormat = "BGRA", attributes: Optional[Mapping[str, Any]] = None) -> None:
        self._ref = None
        out = ctypes.c_void_p()
        attrs = _dict_value(attributes)
        try:
            _cv_call(_lib.CVPixelBufferCreate, None, width, height, fourcc(pixel_format), attrs, ctypes.byref(out))
        finally:
            if attrs:
                _lib.CARelease(attrs)
        self._ref = out.value
        _register(self)

    @classmethod
    def _adopt_created(cls, function: Callable[..., int], *args: Any) -> PixelBuffer:
        out = ctypes.c_void_p()
        _cv_call(function, *args, ctypes.byref(out))
        obj = cls.adopt(out.value)
        _register(obj)
        return obj

    @classmethod
    def from_handle(cls, ref: Optional[int]) -> PixelBuffer:
        """The wrapper of a borrowed CVPixelBufferRef (the existing one if alive)."""
        with _wrappers_lock:
            existing = _wrappers.get(ref) if ref else None
        if existing is not None and existing._ref == ref:
            return existing
        obj = super().from_handle(ref)
        _register(obj)
        return obj

    @classmethod
    def from_png(cls, path: Union[str, os.PathLike]) -> PixelBuffer:
        """QZPixelBufferCreateWithPNGFile: a premultiplied BGRA buffer."""
        return cls._adopt_created(_lib.QZPixelBufferCreateWithPNGFile, str(path).encode("utf-8"))

    @classmethod
    def from_array(cls, array: Any, pixel_format: Optional[PixelFormat] = None, copy: bool = True, attributes: Optional[Mapping[str, Any]] = None) -> PixelBuffer:
        """A buffer holding a NumPy array's pixels: (h, w, 4) uint8 is BGRA,
        (h, w, 3) uint8 24RGB, (h, w, 4) uint16 64ARGB, unless
        ``pixel_format`` says otherwise ((h, w) uint8 needs it: e.g. "8IndexedGray" is 0x28).
        ``copy=True`` copies into a new buffer (16-bit samples are stored
        big-endian, as the formats say). ``copy=False`` wraps the array's
        own memory (CVPixelBufferCreateWithBytes): rows may be strided but
        each row must be contiguous and of the format's exact dtype; the
        array stays alive until the buffer's last reference goes."""
        import numpy as np
        array = np.asarray(array)
        if pixel_format is None:
            pixel_format = _infer_format(array)
        code = fourcc(pixel_format)
        if array.ndim < 2:
            raise ValueError("a pixel array has at least 2 dimensions (height, width, ...)")
        height, width = array.shape[0], array.shape[1]
        if code in _PACKED_422:
            width *= 2  # one item of 4 bytes per pair of pixels
        if copy:
            pb = cls(width, height, code, attributes)
            with pb.locked():
                view = np.asarray(pb)
                if view.shape != array.shape:
                    raise ValueError(f"an array of shape {array.shape} does not fit {fourcc_string(code)} "
                                     f"({view.shape} for {width}x{height})")
                view[...] = array
            return pb
        typestr, channels, item = _CHUNKY_LAYOUTS.get(code, (None, None, None))
        if code in _PACKED_422:
            typestr, channels, item = _U8, 4, 4
        if typestr is None:
            raise ValueError(f"copy=False needs a chunky format with a NumPy layout, not {fourcc_string(code)}")
        expected = np.dtype(typestr)
        if array.dtype != expected or array.strides[-1] != expected.itemsize or (
                channels is not None and array.strides[1] != item):
            raise ValueError(f"copy=False needs rows of contiguous {expected} items; convert the array first")
        with _kept_lock:
            token = _next_token[0]
            _next_token[0] += 1
            _kept_arrays[token] = array
        attrs = _dict_value(attributes)
        try:
            return cls._adopt_created(_lib.CVPixelBufferCreateWithBytes, None, width, height, code,
                                      ctypes.c_void_p(array.ctypes.data), array.strides[0], _release_callback,
                                      ctypes.c_void_p(token), attrs)
        except BaseException:
            with _kept_lock:  # not created: the callback will never come
                _kept_arrays.pop(token, None)
            raise
        finally:
            if attrs:
                _lib.CARelease(attrs)

    # MARK: Geometry

    @property
    def width(self) -> int:
        return call(_lib.CVPixelBufferGetWidth, self)

    @property
    def height(self) -> int:
        return call(_lib.CVPixelBufferGetHeight, self)

    @property
    def pixel_format(self) -> int:
        """The four-character code as an int (see fourcc_string)."""
        return call(_lib.CVPixelBufferGetPixelFormatType, self)

    @property
    def bytes_per_row(self) -> int:
        return call(_lib.CVPixelBufferGetBytesPerRow, self)

    @property
    def data_size(self) -> int:
        return call(_lib.CVPixelBufferGetDataSize, self)

    @property
    def plane_count(self) -> int:
        """0 for a chunky buffer."""
        return call(_lib.CVPixelBufferGetPlaneCount, self)

    @property
    def is_planar(self) -> bool:
        return call(_lib.CVPixelBufferIsPlanar, self)

    @property
    def base_address(self) -> int:
        """CVPixelBufferGetBaseAddress as an int."""
        return call(_lib.CVPixelBufferGetBaseAddress, self)

    @property
    def extended_pixels(self) -> Tuple[int, int, int, int]:
        """(left, right, top, bottom)."""
        values = [ctypes.c_size_t() for _ in range(4)]
        call(_lib.CVPixelBufferGetExtendedPixels, self, *[ctypes.byref(v) for v in values])
        left, right, top, bottom = (v.value for v in values)
        return left, right, top, bottom

    @property
    def seed(self) -> int:
        """Changes whenever the pixels may have changed (QZPixelBufferGetSeed)."""
        return call(_lib.QZPixelBufferGetSeed, self)

    @property
    def clean_rect(self) -> Rect:
        return Rect.from_c(call(_lib.CVImageBufferGetCleanRect, self))

    @property
    def display_size(self) -> Size:
        return Size.from_c(call(_lib.CVImageBufferGetDisplaySize, self))

    @property
    def encoded_size(self) -> Size:
        return Size.from_c(call(_lib.CVImageBufferGetEncodedSize, self))

    def plane(self, index: int) -> Plane:
        """Plane ``index`` of a planar buffer (IndexError past the last)."""
        if not 0 <= index < self.plane_count:
            raise IndexError(f"plane index {index} out of range ({self.plane_count} planes)")
        return Plane(self, index)

    def fill_extended_pixels(self) -> None:
        _cv_call(_lib.CVPixelBufferFillExtendedPixels, self)

    # MARK: Locking

    def lock(self, read_only: bool = False) -> None:
        _cv_call(_lib.CVPixelBufferLockBaseAddress, self, _lib.kCVPixelBufferLock_ReadOnly if read_only else 0)

    def unlock(self, read_only: bool = False) -> None:
        _cv_call(_lib.CVPixelBufferUnlockBaseAddress, self, _lib.kCVPixelBufferLock_ReadOnly if read_only else 0)

    @contextlib.contextmanager
    def locked(self, read_only: bool = False) -> Iterator[PixelBuffer]:
        """``with pb.locked():`` locks the base address for the block."""
        self.lock(read_only)
        try:
            yield self
        finally:
            self.unlock(read_only)

    def lock_count(self, read_only: bool = False) -> int:
        return call(_lib.QZPixelBufferGetLockCount, self, _lib.kCVPixelBufferLock_ReadOnly if read_only else 0)

    # MARK: NumPy

    def _interface(self, address: int, typestr: str, height: int, width: int, channels: Optional[int], item: int, bytes_per_row: int) -> PixelLayout:
        """The PixelLayout of a locked plane or chunky image."""
        read_write = self.lock_count(False)
        if not read_write and not self.lock_count(True):
            raise InvalidStateError(ErrorCode.INVALID_STATE,
                                    "lock the pixel buffer before making an array of it (with pb.locked(): ...)")
        item_size = 2 if typestr in (_BE16, _LE16) else 1
        shape: Tuple[int, ...]
        strides: Tuple[int, ...]
        if channels is None:
            shape, strides = (height, width), (bytes_per_row, item * item_size)
        else:
            shape, strides = (height, width, channels), (bytes_per_row, channels * item_size, item_size)
        return PixelLayout(address, not read_write, typestr, shape, strides)

    def _pixel_layout(self) -> PixelLayout:
        """The locked image of a chunky buffer, as ``numpy.asarray(pb)`` and
        ``memoryview(pb)`` see it:
        (height, width, 4) uint8 for the 32-bit RGB orders, (height, width,
        3) for 24RGB / 24BGR, big-endian uint16 for 64ARGB, 48RGB, 32AlphaGray
        and 16Gray, (height, (width + 1) // 2, 4) for the 4:2:2 formats,
        (height, width) for 8-bit gray and indexed, (height, width) uint16
        words in the format's byte order for the 16-bit RGB formats (555,
        5551, 565), raw row bytes otherwise.
        Planar buffers raise TypeError: use ``pb.plane(i)``."""
        if self.is_planar:
            raise TypeError("a planar pixel buffer has no single array: use numpy.asarray(pb.plane(i))")
        code = self.pixel_format
        width, height, bpr = self.width, self.height, self.bytes_per_row
        if code in _PACKED_422:
            return self._interface(self.base_address, _U8, height, (width + 1) // 2, 4, 1, bpr)
        typestr, channels, _ = _CHUNKY_LAYOUTS.get(code, (_U8, None, 1))
        if code not in _CHUNKY_LAYOUTS:
            width = bpr
        return self._interface(self.base_address, typestr, height, width, channels, 1, bpr)

    # MARK: Attachments

    def set_attachment(self, key: str, value: Any, propagate: bool = True) -> None:
        """CVBufferSetAttachment with a Python value (see quartzite.to_value)."""
        v = to_value(value)
        try:
            call(_lib.CVBufferSetAttachment, self, key.encode("utf-8"), v,
                 _lib.kCVAttachmentMode_ShouldPropagate if propagate else _lib.kCVAttachmentMode_ShouldNotPropagate)
        finally:
            _lib.CARelease(v)

    def attachment(self, key: str) -> Optional[Tuple[Any, bool]]:
        """(value, propagates) for ``key``, or None when there is none."""
        mode = ctypes.c_uint32()
        ref = call(_lib.CVBufferCopyAttachment, self, key.encode("utf-8"), ctypes.byref(mode))
        if not ref:
            return None
        try:
            return from_value(ref), mode.value == _lib.kCVAttachmentMode_ShouldPropagate
        finally:
            _lib.CARelease(ref)

    def attachments(self, propagate: bool = True) -> Dict[str, Any]:
        """The attachments of one mode as a dict."""
        mode = _lib.kCVAttachmentMode_ShouldPropagate if propagate else _lib.kCVAttachmentMode_ShouldNotPropagate
        ref = call(_lib.CVBufferCopyAttachments, self, mode)
        try:
            return from_value(ref)
        finally:
            _lib.CARelease(ref)

    def remove_attachment(self, key: str) -> None:
        call(_lib.CVBufferRemoveAttachment, self, key.encode("utf-8"))

    def remove_all_attachments(self) -> None:
        call(_lib.CVBufferRemoveAllAttachments, self)

    def propagate_attachments(self, destination: PixelBuffer) -> None:
        call(_lib.CVBufferPropagateAttachments, self, destination)

    # MARK: Conversion and files

    def convert_to(self, destination: PixelBuffer) -> PixelBuffer:
        """QZPixelBufferConvert into another buffer of the same size."""
        _cv_call(_lib.QZPixelBufferConvert, self, destination)
        return destination

    def converted(self, pixel_format: PixelFormat = "BGRA") -> PixelBuffer:
        """A new buffer of ``pixel_format`` holding this image (QZPixelBufferCreateConverted)."""
        return PixelBuffer._adopt_created(_lib.QZPixelBufferCreateConverted, self, fourcc(pixel_format))

    def write_png(self, path: Union[str, os.PathLike]) -> None:
        _cv_call(_lib.QZPixelBufferWritePNG, self, str(path).encode("utf-8"))

    def __repr__(self) -> str:
        if self._ref is None:
            return "<PixelBuffer (closed)>"
        return f"<PixelBuffer {self.width}x{self.height} {fourcc_string(self.pixel_format)!r} at 0x{self._ref:x}>"


def _register(pb: PixelBuffer) -> None:
    with _wrappers_lock:
        if pb._ref:
            _wrappers[pb._ref] = pb


def _infer_format(array: Any) -> PixelFormat:
    kind, shape = array.dtype, array.shape
    if kind == "uint8" and len(shape) == 3 and shape[2] == 4:
        return "BGRA"
    if kind == "uint8" and len(shape) == 3 and shape[2] == 3:
        return 0x18
    if kind.kind == "u" and kind.itemsize == 2 and len(shape) == 3 and shape[2] == 4:
        return "b64a"
    raise ValueError(f"cannot tell the pixel format of a {kind} array of shape {shape}: pass pixel_format")


class PixelBufferPool(Handle):
    """An owned CVPixelBufferPoolRef making ``width`` x ``height`` buffers of
    ``pixel_format``. ``minimum_buffer_count`` and ``maximum_buffer_age``
    (seconds) are the pool attributes; ``attributes`` adds pixel buffer
    attribute keys."""

    __slots__ = ()
    _type_name = "CVPixelBufferPoolRef"

    def __init__(self, width: int, height: int, pixel_format: PixelFormat = "BGRA",
                 minimum_buffer_count: Optional[int] = None, maximum_buffer_age: Optional[float] = None,
                 attributes: Optional[Mapping[str, Any]] = None) -> None:
        self._ref = None
        buffer_attrs = dict(attributes or {})
        buffer_attrs.update({"Width": width, "Height": height, "PixelFormatType": fourcc(pixel_format)})
        pool_attrs: Dict[str, float] = {}
        if minimum_buffer_count is not None:
            pool_attrs["MinimumBufferCount"] = minimum_buffer_count
        if maximum_buffer_age is not None:
            pool_attrs["MaximumBufferAge"] = maximum_buffer_age
        p, b = to_value(pool_attrs), to_value(buffer_attrs)
        out = ctypes.c_void_p()
        try:
            _cv_call(_lib.CVPixelBufferPoolCreate, None, p, b, ctypes.byref(out))
        finally:
            _lib.CARelease(p)
            _lib.CARelease(b)
        self._ref = out.value

    def create_buffer(self) -> PixelBuffer:
        """CVPixelBufferPoolCreatePixelBuffer: a PixelBuffer whose memory
        returns to the pool when it is closed or collected."""
        return PixelBuffer._adopt_created(_lib.CVPixelBufferPoolCreatePixelBuffer, None, self)

    @property
    def attributes(self) -> Dict[str, Any]:
        return from_value(call(_lib.CVPixelBufferPoolGetAttributes, self))

    @property
    def pixel_buffer_attributes(self) -> Dict[str, Any]:
        return from_value(call(_lib.CVPixelBufferPoolGetPixelBufferAttributes, self))

    @property
    def free_buffer_count(self) -> int:
        return call(_lib.QZPixelBufferPoolGetFreeBufferCount, self)

    @property
    def in_use_buffer_count(self) -> int:
        return call(_lib.QZPixelBufferPoolGetInUseBufferCount, self)

    def flush(self, all_buffers: bool = False) -> None:
        call(_lib.CVPixelBufferPoolFlush, self, _lib.kCVPixelBufferPoolFlushExcessBuffers if all_buffers else 0)


def pixel_format_description(pixel_format: PixelFormat) -> Dict[str, Any]:
    """The description dict of a format (kCVPixelFormat... keys)."""
    ref = call(_lib.CVPixelFormatDescriptionCreateWithPixelFormatType, None, fourcc(pixel_format))
    try:
        return from_value(ref)
    finally:
        _lib.CARelease(ref)


def all_pixel_format_descriptions() -> List[Dict[str, Any]]:
    """Every known format's description dict."""
    ref = call(_lib.CVPixelFormatDescriptionArrayCreateWithAllPixelFormatTypes, None)
    try:
        return from_value(ref)
    finally:
        _lib.CARelease(ref)


def register_pixel_format(pixel_format: PixelFormat, description: Mapping[str, Any]) -> None:
    """Registers a custom format from a description dict (kCVPixelFormat... keys)."""
    v = to_value(description)
    try:
        call(_lib.CVPixelFormatDescriptionRegisterDescriptionWithPixelFormatType, v, fourcc(pixel_format))
    finally:
        _lib.CARelease(v)


def _pixel_buffer_from_object(ref: int) -> Optional[PixelBuffer]:
    """values.from_value's converter for object values: a PixelBuffer for a pixel buffer."""
    if _lib.QZGetTypeID(ref) != _lib.CVPixelBufferGetTypeID():
        return None
    return PixelBuffer.from_handle(ref)


_values._object_converters.append(_pixel_buffer_from_object)
