"""Pythonic geometry: Point, Size, Rect, AffineTransform and Transform3D.

Each class subclasses the matching ctypes struct of quartzite._lib, so an
instance can be passed straight to any raw C function; results of the raw
layer are converted back with ``from_c``. Every operation is computed by the
library itself (nothing is re-implemented in Python) through
:func:`quartzite.errors.call`, so invalid input raises QuartziteError.

The structs are mutable like their C counterparts, hence unhashable.
"""
from __future__ import annotations

import ctypes
from typing import Any, Iterable, Iterator, List, Optional, Tuple, Type, TypeVar, Union, cast

from . import _lib
from .errors import call

__all__ = ["Point", "Size", "Rect", "AffineTransform", "Transform3D", "PointLike", "SizeLike", "RectLike"]

#: What geometry arguments accept: the classes (or the raw structs) or tuples.
PointLike = Union[_lib.CGPoint, Tuple[float, float]]
SizeLike = Union[_lib.CGSize, Tuple[float, float]]
RectLike = Union[_lib.CGRect, Tuple[float, float, float, float]]
_S = TypeVar("_S", bound=ctypes.Structure)


def _copy(cls: Type[_S], raw: ctypes.Structure) -> _S:
    """A `cls` with the bytes of the ctypes struct `raw` (no __init__)."""
    return cls.from_buffer_copy(raw)


def _point(value: PointLike) -> _lib.CGPoint:
    if isinstance(value, _lib.CGPoint):
        return value
    x, y = value
    return Point(x, y)


def _size(value: SizeLike) -> _lib.CGSize:
    if isinstance(value, _lib.CGSize):
        return value
    width, height = value
    return Size(width, height)


def _rect(value: RectLike) -> _lib.CGRect:
    if isinstance(value, _lib.CGRect):
        return value
    x, y, width, height = value
    return Rect(x, y, width, height)


class Point(_lib.CGPoint):
    """CGPoint. ``Point(x, y)`` goes through CGPointMake, so NaN raises
    NotFiniteError. Unpacks as ``x, y = point``."""

    def __init__(self, x: float = 0.0, y: float = 0.0) -> None:
        made = call(_lib.CGPointMake, x, y)
        super().__init__(made.x, made.y)

    @classmethod
    def from_c(cls, raw: _lib.CGPoint) -> Point:
        """Copies a raw CGPoint."""
        return _copy(cls, raw)

    @classmethod
    def zero(cls) -> Point:
        return cls.from_c(_lib.CGPointZero)

    def apply(self, transform: _lib.CGAffineTransform) -> Point:
        """This point transformed by an affine transform."""
        return Point.from_c(call(_lib.CGPointApplyAffineTransform, self, transform))

    def __iter__(self) -> Iterator[float]:
        yield self.x
        yield self.y

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _lib.CGPoint):
            return NotImplemented
        return call(_lib.CGPointEqualToPoint, self, other)

    __hash__ = None  # type: ignore[assignment]  # mutable, like the C structs

    def __repr__(self) -> str:
        return f"Point(x={self.x!r}, y={self.y!r})"


class Size(_lib.CGSize):
    """CGSize. ``Size(width, height)`` goes through CGSizeMake (NaN raises)."""

    def __init__(self, width: float = 0.0, height: float = 0.0) -> None:
        made = call(_lib.CGSizeMake, width, height)
        super().__init__(made.width, made.height)

    @classmethod
    def from_c(cls, raw: _lib.CGSize) -> Size:
        """Copies a raw CGSize."""
        return _copy(cls, raw)

    @classmethod
    def zero(cls) -> Size:
        return cls.from_c(_lib.CGSizeZero)

    def apply(self, transform: _lib.CGAffineTransform) -> Size:
        """This size transformed by an affine transform (translation ignored)."""
        return Size.from_c(call(_lib.CGSizeApplyAffineTransform, self, transform))

    def __iter__(self) -> Iterator[float]:
        yield self.width
        yield self.height

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _lib.CGSize):
            return NotImplemented
        return call(_lib.CGSizeEqualToSize, self, other)

    __hash__ = None  # type: ignore[assignment]  # mutable, like the C structs

    def __repr__(self) -> str:
        return f"Size(width={self.width!r}, height={self.height!r})"


class Rect(_lib.CGRect):
    """CGRect with the CGRect functions as properties and methods.

    ``Rect(x, y, width, height)`` goes through CGRectMake (NaN raises).
    ``origin`` and ``size`` are the raw stored fields (the size may be
    negative); ``width``, ``height`` and the min/mid/max properties are
    Apple's standardized CGRectGet... results. Operators: ``a & b`` is the
    intersection, ``a | b`` the union, ``point in rect`` CGRectContainsPoint,
    ``==`` CGRectEqualToRect (all null rectangles are equal).
    """

    def __init__(self, x: float = 0.0, y: float = 0.0, width: float = 0.0, height: float = 0.0) -> None:
        made = call(_lib.CGRectMake, x, y, width, height)
        super().__init__(made.origin, made.size)

    @classmethod
    def from_c(cls, raw: _lib.CGRect) -> Rect:
        """Copies a raw CGRect."""
        return _copy(cls, raw)

    @classmethod
    def from_origin_size(cls, origin: _lib.CGPoint, size: _lib.CGSize) -> Rect:
        origin, size = _point(origin), _size(size)
        return cls(origin.x, origin.y, size.width, size.height)

    @classmethod
    def zero(cls) -> Rect:
        return cls.from_c(_lib.CGRectZero)

    @classmethod
    def null(cls) -> Rect:
        """CGRectNull: the result of intersecting disjoint rectangles."""
        return cls.from_c(_lib.CGRectNull)

    @classmethod
    def infinite(cls) -> Rect:
        """CGRectInfinite: contains every point."""
        return cls.from_c(_lib.CGRectInfinite)

    # Properties computed by the library.
    x = property(lambda self: self.origin.x, doc="The stored origin x.")
    y = property(lambda self: self.origin.y, doc="The stored origin y.")
    width = property(lambda self: call(_lib.CGRectGetWidth, self), doc="CGRectGetWidth (non-negative).")
    height = property(lambda self: call(_lib.CGRectGetHeight, self), doc="CGRectGetHeight (non-negative).")
    min_x = property(lambda self: call(_lib.CGRectGetMinX, self))
    mid_x = property(lambda self: call(_lib.CGRectGetMidX, self))
    max_x = property(lambda self: call(_lib.CGRectGetMaxX, self))
    min_y = property(lambda self: call(_lib.CGRectGetMinY, self))
    mid_y = property(lambda self: call(_lib.CGRectGetMidY, self))
    max_y = property(lambda self: call(_lib.CGRectGetMaxY, self))
    is_null = property(lambda self: call(_lib.CGRectIsNull, self))
    is_empty = property(lambda self: call(_lib.CGRectIsEmpty, self))
    is_infinite = property(lambda self: call(_lib.CGRectIsInfinite, self))

    def standardized(self) -> Rect:
        return Rect.from_c(call(_lib.CGRectStandardize, self))

    def integral(self) -> Rect:
        return Rect.from_c(call(_lib.CGRectIntegral, self))

    def inset(self, dx: float, dy: float) -> Rect:
        """Moved in by dx on the left and right, dy on top and bottom; null if
        that leaves a negative size."""
        return Rect.from_c(call(_lib.CGRectInset, self, dx, dy))

    def offset(self, dx: float, dy: float) -> Rect:
        return Rect.from_c(call(_lib.CGRectOffset, self, dx, dy))

    def intersection(self, other: RectLike) -> Rect:
        """The overlap; Rect.null() when disjoint."""
        return Rect.from_c(call(_lib.CGRectIntersection, self, _rect(other)))

    def union(self, other: RectLike) -> Rect:
        """The smallest rectangle containing both; null rectangles are ignored."""
        return Rect.from_c(call(_lib.CGRectUnion, self, _rect(other)))

    def intersects(self, other: RectLike) -> bool:
        return call(_lib.CGRectIntersectsRect, self, _rect(other))

    def contains(self, other: Union[PointLike, _lib.CGRect]) -> bool:
        """CGRectContainsRect for a rectangle, else CGRectContainsPoint (the max
        edges are outside)."""
        if isinstance(other, _lib.CGRect):
            return call(_lib.CGRectContainsRect, self, other)
        return call(_lib.CGRectContainsPoint, self, _point(other))

    def apply(self, transform: _lib.CGAffineTransform) -> Rect:
        """The bounding box of the transformed corners."""
        return Rect.from_c(call(_lib.CGRectApplyAffineTransform, self, transform))

    __and__ = intersection
    __or__ = union

    def __contains__(self, point: object) -> bool:
        return call(_lib.CGRectContainsPoint, self, _point(cast(PointLike, point)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _lib.CGRect):
            return NotImplemented
        return call(_lib.CGRectEqualToRect, self, other)

    __hash__ = None  # type: ignore[assignment]  # mutable, like the C structs

    def __iter__(self) -> Iterator[float]:
        """The stored (x, y, width, height)."""
        yield self.origin.x
        yield self.origin.y
        yield self.size.width
        yield self.size.height

    def __repr__(self) -> str:
        if call(_lib.CGRectIsNull, self):
            return "Rect.null()"
        return (f"Rect(x={self.origin.x!r}, y={self.origin.y!r}, "
                f"width={self.size.width!r}, height={self.size.height!r})")


class AffineTransform(_lib.CGAffineTransform):
    """CGAffineTransform [a b 0; c d 0; tx ty 1] acting on row vectors.

    ``AffineTransform()`` is the identity. ``a @ b`` is CGAffineTransformConcat
    (a first, then b). ``translated``/``scaled``/``rotated`` prepend the step,
    as Apple's CGAffineTransformTranslate and friends do.
    """

    _FIELDS = ("a", "b", "c", "d", "tx", "ty")

    def __init__(self, a: float = 1.0, b: float = 0.0, c: float = 0.0, d: float = 1.0, tx: float = 0.0, ty: float = 0.0) -> None:
        made = call(_lib.CGAffineTransformMake, a, b, c, d, tx, ty)
        super().__init__(*(getattr(made, f) for f in self._FIELDS))

    @classmethod
    def from_c(cls, raw: _lib.CGAffineTransform) -> AffineTransform:
        """Copies a raw CGAffineTransform."""
        return _copy(cls, raw)

    @classmethod
    def identity(cls) -> AffineTransform:
        return cls.from_c(_lib.CGAffineTransformIdentity)

    @classmethod
    def translation(cls, tx: float, ty: float) -> AffineTransform:
        return cls.from_c(call(_lib.CGAffineTransformMakeTranslation, tx, ty))

    @classmethod
    def scale(cls, sx: float, sy: float) -> AffineTransform:
        return cls.from_c(call(_lib.CGAffineTransformMakeScale, sx, sy))

    @classmethod
    def rotation(cls, angle: float) -> AffineTransform:
        """Rotation by `angle` radians: [cos sin; -sin cos]."""
        return cls.from_c(call(_lib.CGAffineTransformMakeRotation, angle))

    def translated(self, tx: float, ty: float) -> AffineTransform:
        return AffineTransform.from_c(call(_lib.CGAffineTransformTranslate, self, tx, ty))

    def scaled(self, sx: float, sy: float) -> AffineTransform:
        return AffineTransform.from_c(call(_lib.CGAffineTransformScale, self, sx, sy))

    def rotated(self, angle: float) -> AffineTransform:
        return AffineTransform.from_c(call(_lib.CGAffineTransformRotate, self, angle))

    def inverted(self) -> AffineTransform:
        """The inverse, or this transform unchanged when it is singular."""
        return AffineTransform.from_c(call(_lib.CGAffineTransformInvert, self))

    def concat(self, other: _lib.CGAffineTransform) -> AffineTransform:
        """self first, then other."""
        return AffineTransform.from_c(call(_lib.CGAffineTransformConcat, self, other))

    def __matmul__(self, other: object) -> AffineTransform:
        if not isinstance(other, _lib.CGAffineTransform):
            return NotImplemented
        return self.concat(other)

    @property
    def is_identity(self) -> bool:
        return call(_lib.CGAffineTransformIsIdentity, self)

    def apply(self, geometry: Union[PointLike, _lib.CGSize, _lib.CGRect]) -> Union[Point, Size, Rect]:
        """Transforms a Point, Size or Rect (CG...ApplyAffineTransform)."""
        if isinstance(geometry, _lib.CGRect):
            return Rect.from_c(call(_lib.CGRectApplyAffineTransform, geometry, self))
        if isinstance(geometry, _lib.CGSize):
            return Size.from_c(call(_lib.CGSizeApplyAffineTransform, geometry, self))
        return Point.from_c(call(_lib.CGPointApplyAffineTransform, _point(geometry), self))

    def to_transform3d(self) -> Transform3D:
        return Transform3D.affine(self)

    def __iter__(self) -> Iterator[float]:
        return iter([getattr(self, f) for f in self._FIELDS])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _lib.CGAffineTransform):
            return NotImplemented
        return call(_lib.CGAffineTransformEqualToTransform, self, other)

    __hash__ = None  # type: ignore[assignment]  # mutable, like the C structs

    def __repr__(self) -> str:
        return "AffineTransform(" + ", ".join(f"{f}={getattr(self, f)!r}" for f in self._FIELDS) + ")"


_ENTRY_NAMES = tuple(f"m{row}{col}" for row in range(1, 5) for col in range(1, 5))


class Transform3D(_lib.CATransform3D):
    """CATransform3D, row-vector convention, translation in m41..m43.

    ``Transform3D()`` is the identity; ``Transform3D(m34=-1/500)`` the identity
    with entries replaced; ``Transform3D(16 numbers)`` row by row. ``t[r, c]``
    reads an entry with 0-based row and column, ``t[r]`` a row; the ``m11``..
    ``m44`` fields are attributes. ``a @ b`` is CATransform3DConcat(a, b):
    a is applied first. ``==`` is exact (CATransform3DEqualToTransform).
    """

    def __init__(self, *entries: float, **named: float) -> None:
        if entries and len(entries) != 16:
            raise TypeError(f"Transform3D takes 0 or 16 entries, not {len(entries)}")
        values = [float(v) for v in entries] if entries else \
            [float(getattr(_lib.CATransform3DIdentity, n)) for n in _ENTRY_NAMES]
        for name, value in named.items():
            if name not in _ENTRY_NAMES:
                raise TypeError(f"Transform3D has no entry {name!r}")
            values[_ENTRY_NAMES.index(name)] = float(value)
        super().__init__(*values)

    @classmethod
    def from_c(cls, raw: _lib.CATransform3D) -> Transform3D:
        """Copies a raw CATransform3D."""
        return _copy(cls, raw)

    @classmethod
    def identity(cls) -> Transform3D:
        return cls.from_c(_lib.CATransform3DIdentity)

    @classmethod
    def translation(cls, tx: float, ty: float, tz: float) -> Transform3D:
        return cls.from_c(call(_lib.CATransform3DMakeTranslation, tx, ty, tz))

    @classmethod
    def scale(cls, sx: float, sy: float, sz: float) -> Transform3D:
        return cls.from_c(call(_lib.CATransform3DMakeScale, sx, sy, sz))

    @classmethod
    def rotation(cls, angle: float, x: float, y: float, z: float) -> Transform3D:
        """Rotation by `angle` radians about (x, y, z)."""
        return cls.from_c(call(_lib.CATransform3DMakeRotation, angle, x, y, z))

    @classmethod
    def affine(cls, a: Union[_lib.CGAffineTransform, float], b: Optional[float] = None, c: Optional[float] = None, d: Optional[float] = None, tx: Optional[float] = None, ty: Optional[float] = None) -> Transform3D:
        """CATransform3DMakeAffineTransform of an AffineTransform (or of its six
        numbers a, b, c, d, tx, ty)."""
        if not isinstance(a, _lib.CGAffineTransform):
            if b is None or c is None or d is None or tx is None or ty is None:
                raise TypeError("affine() takes an AffineTransform or six numbers")
            a = AffineTransform(a, b, c, d, tx, ty)
        return cls.from_c(call(_lib.CATransform3DMakeAffineTransform, a))

    @classmethod
    def from_rows(cls, rows: Iterable[Iterable[float]]) -> Transform3D:
        """From a 4x4 nested sequence (lists, tuples or a numpy array)."""
        matrix = [list(row) for row in rows]
        if len(matrix) != 4 or any(len(row) != 4 for row in matrix):
            raise ValueError("a Transform3D needs 4 rows of 4 entries")
        return cls(*(value for row in matrix for value in row))

    from_list = from_numpy = from_rows

    def translated(self, tx: float, ty: float, tz: float) -> Transform3D:
        """translate(tx, ty, tz) * self: the translation happens first."""
        return Transform3D.from_c(call(_lib.CATransform3DTranslate, self, tx, ty, tz))

    def scaled(self, sx: float, sy: float, sz: float) -> Transform3D:
        return Transform3D.from_c(call(_lib.CATransform3DScale, self, sx, sy, sz))

    def rotated(self, angle: float, x: float, y: float, z: float) -> Transform3D:
        return Transform3D.from_c(call(_lib.CATransform3DRotate, self, angle, x, y, z))

    def inverted(self) -> Transform3D:
        """The inverse, or this transform unchanged when it has none."""
        return Transform3D.from_c(call(_lib.CATransform3DInvert, self))

    def concat(self, other: _lib.CATransform3D) -> Transform3D:
        """self first, then other."""
        return Transform3D.from_c(call(_lib.CATransform3DConcat, self, other))

    def __matmul__(self, other: object) -> Transform3D:
        if not isinstance(other, _lib.CATransform3D):
            return NotImplemented
        return self.concat(other)

    @property
    def is_identity(self) -> bool:
        return call(_lib.CATransform3DIsIdentity, self)

    @property
    def is_affine(self) -> bool:
        return call(_lib.CATransform3DIsAffine, self)

    def affine_transform(self) -> AffineTransform:
        """CATransform3DGetAffineTransform: (m11, m12, m21, m22, m41, m42)."""
        return AffineTransform.from_c(call(_lib.CATransform3DGetAffineTransform, self))

    def isclose(self, other: Union[_lib.CATransform3D, Iterable[Iterable[float]]], abs_tol: float = 1e-12) -> bool:
        """Entry-wise comparison with an absolute tolerance."""
        other = other if isinstance(other, _lib.CATransform3D) else Transform3D.from_rows(other)
        return all(abs(getattr(self, n) - getattr(other, n)) <= abs_tol for n in _ENTRY_NAMES)

    def to_list(self) -> List[List[float]]:
        """The 4x4 matrix as a nested list, row by row."""
        return [[getattr(self, f"m{row}{col}") for col in range(1, 5)] for row in range(1, 5)]

    def to_numpy(self) -> Any:
        """The 4x4 matrix as a numpy array (needs numpy). Note that
        numpy.asarray(t) does not do this: numpy prefers the ctypes buffer
        and makes a structured scalar of the 16 named fields."""
        import numpy
        return numpy.array(self.to_list(), dtype=float)

    def __getitem__(self, index: Union[int, Tuple[int, int]]) -> Any:
        if isinstance(index, tuple):
            row, col = index
            if not (-4 <= row < 4 and -4 <= col < 4):
                raise IndexError(f"Transform3D index {index} out of range")
            return getattr(self, f"m{row % 4 + 1}{col % 4 + 1}")
        return tuple(self.to_list()[index])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _lib.CATransform3D):
            return NotImplemented
        return call(_lib.CATransform3DEqualToTransform, self, other)

    __hash__ = None  # type: ignore[assignment]  # mutable, like the C structs

    def __repr__(self) -> str:
        rows = ", ".join("[" + ", ".join(repr(v) for v in row) + "]" for row in self.to_list())
        return f"Transform3D.from_rows([{rows}])"
