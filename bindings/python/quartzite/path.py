"""Path: an owned CGPathRef or CGMutablePathRef.

``Path()`` is an empty mutable path; ``Path.rect``, ``Path.ellipse`` and
``Path.rounded_rect`` make immutable ones (Apple's CGPathCreateWith...), and
``copy()`` / ``mutable_copy()`` convert between the two. The building methods
(``move_to``, ``line_to``, ``add_arc``, ``close_subpath``, ...) return the path, so calls chain;
on an immutable path they raise WrongTypeError, and a line or curve with no
current point raises InvalidStateError, as the C calls record those errors.
Every ``transform`` argument is an optional AffineTransform (or 6-tuple)
applied to the added points.

A Path can be passed directly to raw functions that take a CGPathRef.
"""
from __future__ import annotations

import collections
import ctypes
import enum
from typing import Any, Callable, Iterator, List, Optional, Sequence, Tuple, Union, cast

from . import _lib
from .errors import _enum_member_name, call
from .geometry import AffineTransform, Point, PointLike, Rect, RectLike, _point, _rect
from .handle import Handle

__all__ = ["Path", "PathElement", "PathElementType"]

# (An enum built at run time: to a type checker its members are plain ints.)
PathElementType: Any = cast(Any, enum.IntEnum)("PathElementType", [
    (_enum_member_name(name, "kCGPathElement"), value) for name, value in _lib._decls.ENUMS["CGPathElementType"]
], module=__name__)
PathElementType.__doc__ = ("CGPathElementType, e.g. PathElementType.ADD_CURVE_TO_POINT == "
                           "kCGPathElementAddCurveToPoint == 3.")

#: A transform argument: an AffineTransform (or raw struct) or its 6 numbers.
AffineLike = Union[_lib.CGAffineTransform, Tuple[float, float, float, float, float, float]]

# Points per element type: move, line, quadratic curve, cubic curve, close.
_POINT_COUNTS = (1, 1, 2, 3, 0)


class PathElement(collections.namedtuple("PathElement", "type points")):
    """One element: its PathElementType and a tuple of Points (1, 1, 2, 3 or
    0 of them, as CGPathApply gives them)."""

    __slots__ = ()

    @classmethod
    def from_c(cls, kind: int, points: Any) -> PathElement:
        kind = PathElementType(kind)
        return cls(kind, tuple(Point.from_c(points[i]) for i in range(_POINT_COUNTS[kind])))


def _transform(transform: Optional[AffineLike]) -> Any:
    """A pointer argument for `const CGAffineTransform *` (None: NULL)."""
    if transform is None:
        return None
    if not isinstance(transform, _lib.CGAffineTransform):
        transform = AffineTransform(*transform)
    return ctypes.byref(transform)


def _created(ref: Optional[int]) -> int:
    if not ref:
        raise MemoryError("the library returned NULL without recording an error")
    return ref


class Path(Handle):
    """A graphics path (Apple's CGPathRef / CGMutablePathRef), holding one
    reference.

    ``len(path)``, ``path[i]`` and iteration give its elements; ``point in
    path`` is CGPathContainsPoint with the winding rule; ``==`` is
    CGPathEqualToPath. ``length`` and ``point_at_distance`` measure along the
    path (QZPathGetLength, QZPathGetPointAtDistance).
    """

    __slots__ = ()
    _type_name = "CGPathRef"

    def __init__(self) -> None:
        self._ref = None
        self._ref = _created(call(_lib.CGPathCreateMutable))

    # MARK: - Immutable shapes and copies

    @classmethod
    def rect(cls, rect: RectLike, transform: Optional[AffineLike] = None) -> Path:
        """An immutable rectangle (CGPathCreateWithRect)."""
        return cls.adopt(_created(call(_lib.CGPathCreateWithRect, _rect(rect), _transform(transform))))

    @classmethod
    def ellipse(cls, rect: RectLike, transform: Optional[AffineLike] = None) -> Path:
        """An immutable ellipse inscribed in `rect` (CGPathCreateWithEllipseInRect)."""
        return cls.adopt(_created(call(_lib.CGPathCreateWithEllipseInRect, _rect(rect), _transform(transform))))

    @classmethod
    def rounded_rect(cls, rect: RectLike, corner_width: float, corner_height: float, transform: Optional[AffineLike] = None) -> Path:
        """An immutable rounded rectangle (CGPathCreateWithRoundedRect);
        corners larger than half the rectangle raise InvalidArgumentError."""
        return cls.adopt(_created(call(_lib.CGPathCreateWithRoundedRect, _rect(rect), corner_width,
                                       corner_height, _transform(transform))))

    def copy(self) -> Path:
        """An immutable copy (CGPathCreateCopy)."""
        return Path.adopt(_created(call(_lib.CGPathCreateCopy, self)))

    def mutable_copy(self) -> Path:
        """A mutable copy (CGPathCreateMutableCopy)."""
        return Path.adopt(_created(call(_lib.CGPathCreateMutableCopy, self)))

    def transformed(self, transform: AffineLike, mutable: bool = False) -> Path:
        """A copy with every point transformed (CGPathCreate[Mutable]CopyByTransformingPath)."""
        function = _lib.CGPathCreateMutableCopyByTransformingPath if mutable else _lib.CGPathCreateCopyByTransformingPath
        return Path.adopt(_created(call(function, self, _transform(transform))))

    # MARK: - Building (mutable paths only)

    def move_to(self, x: float, y: float, transform: Optional[AffineLike] = None) -> Path:
        call(_lib.CGPathMoveToPoint, self, _transform(transform), x, y)
        return self

    def line_to(self, x: float, y: float, transform: Optional[AffineLike] = None) -> Path:
        call(_lib.CGPathAddLineToPoint, self, _transform(transform), x, y)
        return self

    def quad_curve_to(self, cpx: float, cpy: float, x: float, y: float, transform: Optional[AffineLike] = None) -> Path:
        call(_lib.CGPathAddQuadCurveToPoint, self, _transform(transform), cpx, cpy, x, y)
        return self

    def curve_to(self, cp1x: float, cp1y: float, cp2x: float, cp2y: float, x: float, y: float, transform: Optional[AffineLike] = None) -> Path:
        call(_lib.CGPathAddCurveToPoint, self, _transform(transform), cp1x, cp1y, cp2x, cp2y, x, y)
        return self

    def close_subpath(self) -> Path:
        """CGPathCloseSubpath. (``close()`` is Handle's: it drops this
        object's reference.)"""
        call(_lib.CGPathCloseSubpath, self)
        return self

    def add_rect(self, rect: RectLike, transform: Optional[AffineLike] = None) -> Path:
        call(_lib.CGPathAddRect, self, _transform(transform), _rect(rect))
        return self

    def add_rects(self, rects: Sequence[RectLike], transform: Optional[AffineLike] = None) -> Path:
        items = [_rect(r) for r in rects]
        call(_lib.CGPathAddRects, self, _transform(transform), (_lib.CGRect * len(items))(*items), len(items))
        return self

    def add_lines(self, points: Sequence[PointLike], transform: Optional[AffineLike] = None) -> Path:
        items = [_point(p) for p in points]
        call(_lib.CGPathAddLines, self, _transform(transform), (_lib.CGPoint * len(items))(*items), len(items))
        return self

    def add_ellipse(self, rect: RectLike, transform: Optional[AffineLike] = None) -> Path:
        call(_lib.CGPathAddEllipseInRect, self, _transform(transform), _rect(rect))
        return self

    def add_arc(self, x: float, y: float, radius: float, start_angle: float, end_angle: float, clockwise: bool, transform: Optional[AffineLike] = None) -> Path:
        """CGPathAddArc: `clockwise` sweeps towards decreasing angles
        (clockwise with y up, counter-clockwise on a y-down screen)."""
        call(_lib.CGPathAddArc, self, _transform(transform), x, y, radius, start_angle, end_angle, clockwise)
        return self

    def add_relative_arc(self, x: float, y: float, radius: float, start_angle: float, delta: float, transform: Optional[AffineLike] = None) -> Path:
        call(_lib.CGPathAddRelativeArc, self, _transform(transform), x, y, radius, start_angle, delta)
        return self

    def add_arc_to_point(self, x1: float, y1: float, x2: float, y2: float, radius: float, transform: Optional[AffineLike] = None) -> Path:
        call(_lib.CGPathAddArcToPoint, self, _transform(transform), x1, y1, x2, y2, radius)
        return self

    def add_rounded_rect(self, rect: RectLike, corner_width: float, corner_height: float, transform: Optional[AffineLike] = None) -> Path:
        call(_lib.CGPathAddRoundedRect, self, _transform(transform), _rect(rect), corner_width, corner_height)
        return self

    def add_path(self, other: Path, transform: Optional[AffineLike] = None) -> Path:
        call(_lib.CGPathAddPath, self, _transform(transform), other)
        return self

    # MARK: - Reading

    @property
    def is_empty(self) -> bool:
        return call(_lib.CGPathIsEmpty, self)

    @property
    def current_point(self) -> Point:
        return Point.from_c(call(_lib.CGPathGetCurrentPoint, self))

    @property
    def bounding_box(self) -> Rect:
        """Every point, Bézier control points included (CGPathGetBoundingBox)."""
        return Rect.from_c(call(_lib.CGPathGetBoundingBox, self))

    @property
    def path_bounding_box(self) -> Rect:
        """The curves themselves (CGPathGetPathBoundingBox)."""
        return Rect.from_c(call(_lib.CGPathGetPathBoundingBox, self))

    def as_rect(self) -> Optional[Rect]:
        """The rectangle this path traces, or None (CGPathIsRect)."""
        rect = _lib.CGRect()
        return Rect.from_c(rect) if call(_lib.CGPathIsRect, self, ctypes.byref(rect)) else None

    def contains(self, point: PointLike, eo_fill: bool = False, transform: Optional[AffineLike] = None) -> bool:
        """CGPathContainsPoint: the point (transformed first, if a transform
        is given) is painted by a fill with the winding or even-odd rule."""
        return call(_lib.CGPathContainsPoint, self, _transform(transform), _point(point), eo_fill)

    def __contains__(self, point: object) -> bool:
        return self.contains(cast(PointLike, point))

    @property
    def length(self) -> float:
        return call(_lib.QZPathGetLength, self)

    def point_at_distance(self, distance: float) -> Tuple[Point, Point]:
        """(point, unit tangent) at `distance` along the path (clamped)."""
        tangent = _lib.CGPoint()
        point = call(_lib.QZPathGetPointAtDistance, self, distance, ctypes.byref(tangent))
        return Point.from_c(point), Point.from_c(tangent)

    def __len__(self) -> int:
        return call(_lib.QZPathGetElementCount, self)

    def __getitem__(self, index: Union[int, slice]) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if index < 0:
            raise IndexError("path element index out of range")
        points = (_lib.CGPoint * 3)()
        kind = call(_lib.QZPathGetElementAtIndex, self, index, points)
        return PathElement.from_c(kind, points)

    def __iter__(self) -> Iterator[PathElement]:
        for i in range(len(self)):
            yield self[i]

    @property
    def elements(self) -> List[PathElement]:
        return list(self)

    def apply(self, function: Callable[[PathElement], None]) -> None:
        """Calls ``function(element)`` for each PathElement through
        CGPathApply. An exception raised by `function` stops nothing in C but
        is re-raised here once CGPathApply returns."""
        errors: List[BaseException] = []

        def trampoline(_info: Any, element: Any) -> None:
            if errors:
                return
            try:
                e = element.contents
                function(PathElement.from_c(e.type, e.points))
            except BaseException as exc:  # noqa: BLE001 -- re-raised below
                errors.append(exc)

        callback = _lib.CGPathApplierFunction(trampoline)
        call(_lib.CGPathApply, self, None, callback)
        if errors:
            raise errors[0]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Path):
            return NotImplemented
        return call(_lib.CGPathEqualToPath, self, other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        if self._ref is None:
            return "Path(<closed>)"
        return f"Path({len(self)} elements, bounding_box={tuple(self.bounding_box)!r})"
