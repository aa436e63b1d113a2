"""Color: an owned CGColorRef."""
from __future__ import annotations

from typing import Optional, Tuple

from . import _lib
from .errors import call
from .handle import Handle

__all__ = ["Color"]


class Color(Handle):
    """An RGBA or gray colour (Apple's CGColorRef), holding one reference.

    ``Color(r, g, b, a=1.0)`` is an sRGB colour; ``Color.generic_rgb`` and
    ``Color.gray`` make the other spaces. The reference is dropped with
    CARelease by ``close()``, by leaving a ``with`` block, or when the
    object is garbage collected. A Color can be passed directly to raw
    functions that take a CGColorRef.
    """

    __slots__ = ()
    _type_name = "CGColorRef"

    def __init__(self, red: float, green: float, blue: float, alpha: float = 1.0) -> None:
        self._ref = None
        self._ref = _created(call(_lib.CGColorCreateSRGB, red, green, blue, alpha))

    @classmethod
    def srgb(cls, red: float, green: float, blue: float, alpha: float = 1.0) -> Color:
        return cls(red, green, blue, alpha)

    @classmethod
    def generic_rgb(cls, red: float, green: float, blue: float, alpha: float = 1.0) -> Color:
        return cls.adopt(_created(call(_lib.CGColorCreateGenericRGB, red, green, blue, alpha)))

    @classmethod
    def gray(cls, gray: float, alpha: float = 1.0) -> Color:
        return cls.adopt(_created(call(_lib.CGColorCreateGenericGray, gray, alpha)))

    @property
    def components(self) -> Tuple[float, ...]:
        """Colour channels then alpha: 4 entries for RGB, 2 for gray."""
        count = call(_lib.CGColorGetNumberOfComponents, self)
        pointer = call(_lib.CGColorGetComponents, self)
        return tuple(pointer[:count]) if pointer else ()

    @property
    def number_of_components(self) -> int:
        return call(_lib.CGColorGetNumberOfComponents, self)

    @property
    def alpha(self) -> float:
        return call(_lib.CGColorGetAlpha, self)

    def with_alpha(self, alpha: float) -> Color:
        """A copy with another alpha (CGColorCreateCopyWithAlpha)."""
        return Color.adopt(_created(call(_lib.CGColorCreateCopyWithAlpha, self, alpha)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Color):
            return NotImplemented
        return call(_lib.CGColorEqualToColor, self, other)

    __hash__ = None  # type: ignore[assignment]  # mutable handle semantics: compared by value

    def __repr__(self) -> str:
        if self._ref is None:
            return "Color(<closed>)"
        return f"Color(components={self.components!r})"


def _created(ref: Optional[int]) -> int:
    if not ref:
        raise MemoryError("the library returned NULL without recording an error")
    return ref
