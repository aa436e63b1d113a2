"""The lifetime of a Quartzite handle seen from Python."""
from __future__ import annotations

import ctypes
from typing import Optional, Type, TypeVar

from . import _lib
from .errors import call


_H = TypeVar("_H", bound="Handle")


class Handle:
    """Owns one reference to a Quartzite object (API.md: Create/Copy give +1,
    Get gives +0) and drops it with CARelease on close(), at the end of a
    ``with`` block, or when garbage collected. Subclasses set ``_type_name``
    (the C handle type, for messages)."""

    __slots__ = ("_ref", "__weakref__")
    _type_name = "Quartzite handle"
    _ref: Optional[int]

    @classmethod
    def adopt(cls: Type[_H], ref: Optional[int]) -> _H:
        """Takes over a +1 reference (from a Create or Copy function)."""
        if not ref:
            raise ValueError(f"a NULL {cls._type_name}")
        obj = cls.__new__(cls)
        obj._ref = ref
        return obj

    @classmethod
    def from_handle(cls: Type[_H], ref: Optional[int]) -> _H:
        """Wraps a borrowed reference, adding one of its own."""
        if not ref:
            raise ValueError(f"a NULL {cls._type_name}")
        return cls.adopt(call(_lib.CARetain, ref))

    @property
    def handle(self) -> Optional[int]:
        """The C handle as an integer (None once closed)."""
        return self._ref

    @property
    def _as_parameter_(self) -> ctypes.c_void_p:
        # Lets ctypes pass the object wherever its handle (c_void_p) is expected.
        return ctypes.c_void_p(self._ref)

    def close(self) -> None:
        """Drops this object's reference; safe to call twice."""
        ref, self._ref = self._ref, None
        if ref and _lib is not None:  # module globals may be gone at interpreter exit
            _lib.CARelease(ref)

    def __del__(self) -> None:
        self.close()

    def __enter__(self: _H) -> _H:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
