"""Zero-copy pixel access: one layout, two protocols.

A pixel object (a pixel buffer, one of its planes, a rendered frame; an
image class can join by subclassing :class:`PixelExport`) describes its
memory once, in :meth:`PixelExport._pixel_layout`, and gets from it:

* ``__array_interface__`` (NumPy's array interface, version 3), which NumPy
  and libraries built on it read (``numpy.asarray(obj)``);
* the buffer protocol (PEP 3118): ``memoryview(obj)``, Pillow's
  ``Image.frombuffer``, pygame's ``image.frombuffer``, ``bytes(obj)``.

Both hand out the object's own memory with explicit strides: rows top to
bottom, ``strides[0]`` the bytes per row (padding skipped, never copied).
The exporter of every view is the object itself, so a view keeps it (and
its memory) alive.

The buffer protocol needs the small extension ``quartzite._buffer`` (a
pure-Python class can export buffers only from Python 3.12 on): the wheel
carries it beside ``libquartzite.so``, and a build tree has it in
``build/lib/``. Without it (``HAS_BUFFER_PROTOCOL`` is False) the array
interface still works.
"""
from __future__ import annotations

import importlib.util
import os
import sys
from typing import NamedTuple, Tuple

from . import _lib

__all__ = ["HAS_BUFFER_PROTOCOL", "PixelExport", "PixelLayout"]


def _load_exporter_base() -> type:
    if sys.version_info < (3, 11):
        return object
    try:  # an installed wheel: the module sits in the package
        from . import _buffer  # type: ignore[attr-defined]
        return _buffer.Exporter
    except ImportError:
        pass
    # A build tree: beside the libquartzite.so that _lib loaded.
    directory = os.path.dirname(_lib.LIBRARY_PATH)
    path = os.path.join(directory, "_buffer.abi3.so")
    if not directory or not os.path.isfile(path):
        return object
    spec = importlib.util.spec_from_file_location(__package__ + "._buffer", path)
    if spec is None or spec.loader is None:
        return object
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except ImportError:
        return object
    sys.modules[spec.name] = module
    return module.Exporter


_Exporter = _load_exporter_base()
HAS_BUFFER_PROTOCOL = _Exporter is not object
"""True when ``memoryview(pixel_object)`` works (the ``_buffer`` extension was found)."""

# NumPy type strings -> struct-module formats and item sizes.
_FORMATS = {"|u1": ("B", 1), ">u2": (">H", 2), "<u2": ("<H", 2)}


class PixelLayout(NamedTuple):
    """Where a pixel object's items are: ``address`` of the first item,
    ``typestr`` (NumPy's: ``"|u1"`` bytes, ``">u2"``/``"<u2"`` 16-bit words),
    ``shape`` in items and ``strides`` in bytes (same length), and whether
    the memory may only be read."""

    address: int
    readonly: bool
    typestr: str
    shape: Tuple[int, ...]
    strides: Tuple[int, ...]


class PixelExport(_Exporter):  # type: ignore[misc, valid-type]
    """Base of the pixel objects: subclasses implement :meth:`_pixel_layout`
    and keep their memory alive while they live."""

    __slots__ = ()

    def _pixel_layout(self) -> PixelLayout:
        raise NotImplementedError

    @property
    def __array_interface__(self) -> dict:
        layout = self._pixel_layout()
        return {"version": 3, "typestr": layout.typestr, "shape": layout.shape, "strides": layout.strides,
                "data": (layout.address, layout.readonly)}

    def _buffer_layout(self) -> tuple:
        # Called by quartzite._buffer's getbuffer slot.
        layout = self._pixel_layout()
        fmt, itemsize = _FORMATS[layout.typestr]
        return (layout.address, layout.readonly, fmt, itemsize, tuple(layout.shape), tuple(layout.strides))
