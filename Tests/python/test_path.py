"""CGPathRef / CGMutablePathRef through the raw ctypes layer and the Pythonic
Path. Expected values are worked out by hand or integrated independently
here (Simpson's rule), not read back from the library."""
import ctypes
import math

import pytest

import quartzite
from quartzite import (
    _lib, AffineTransform, InvalidArgumentError, InvalidStateError, NotFiniteError,
    NullArgumentError, OutOfRangeError, Path, PathElementType, Point, Rect, Value,
    ValueType, WrongTypeError,
)

KAPPA = 0.5522847498
ARC_KAPPA = 4 / 3 * math.tan(math.pi / 8)   # control distance of a 90° arc of radius 1
T = PathElementType


def approx_point(x, y, abs_tol=1e-9):
    return pytest.approx((x, y), abs=abs_tol)


def simpson_cubic_length(p0, p1, p2, p3, steps=20000):
    def speed(t):
        mt = 1 - t
        dx = 3 * mt * mt * (p1[0] - p0[0]) + 6 * mt * t * (p2[0] - p1[0]) + 3 * t * t * (p3[0] - p2[0])
        dy = 3 * mt * mt * (p1[1] - p0[1]) + 6 * mt * t * (p2[1] - p1[1]) + 3 * t * t * (p3[1] - p2[1])
        return math.hypot(dx, dy)
    h = 1 / steps
    total = speed(0) + speed(1) + sum((4 if i % 2 else 2) * speed(i * h) for i in range(1, steps))
    return total * h / 3


# MARK: - The raw layer

def test_element_type_constants_are_apples():
    assert (_lib.kCGPathElementMoveToPoint, _lib.kCGPathElementAddLineToPoint,
            _lib.kCGPathElementAddQuadCurveToPoint, _lib.kCGPathElementAddCurveToPoint,
            _lib.kCGPathElementCloseSubpath) == (0, 1, 2, 3, 4)
    assert T.ADD_QUAD_CURVE_TO_POINT == 2 and T.CLOSE_SUBPATH == 4
    assert [f[0] for f in _lib.CGPathElement._fields_] == ["type", "points"]
    # Apple's applier signature: info first, then the element.
    assert _lib.CGPathApplierFunction._argtypes_ == (ctypes.c_void_p, ctypes.POINTER(_lib.CGPathElement))


def test_raw_apply_with_info_first():
    path = _lib.CGPathCreateMutable()
    _lib.CGPathMoveToPoint(path, None, 1, 2)
    _lib.CGPathAddCurveToPoint(path, None, 3, 4, 5, 6, 7, 8)
    _lib.CGPathCloseSubpath(path)
    seen = []
    token = ctypes.c_int(42)

    def applier(info, element):
        e = element.contents
        count = (1, 1, 2, 3, 0)[e.type]
        seen.append((ctypes.cast(info, ctypes.POINTER(ctypes.c_int)).contents.value, e.type,
                     [(e.points[i].x, e.points[i].y) for i in range(count)]))

    callback = _lib.CGPathApplierFunction(applier)
    _lib.CGPathApply(path, ctypes.byref(token), callback)
    assert seen == [(42, 0, [(1, 2)]), (42, 3, [(3, 4), (5, 6), (7, 8)]), (42, 4, [])]
    _lib.CGPathRelease(path)


def test_raw_element_access_and_out_of_range():
    rect = _lib.CGPathCreateWithRect(_lib.CGRectMake(0, 0, 100, 50), None)
    points = (_lib.CGPoint * 3)()
    assert _lib.QZPathGetElementCount(rect) == 5
    assert _lib.QZPathGetElementAtIndex(rect, 2, points) == _lib.kCGPathElementAddLineToPoint
    assert (points[0].x, points[0].y) == (100, 50)
    _lib.QZClearLastError()
    assert _lib.QZPathGetElementAtIndex(rect, 5, points) == _lib.kCGPathElementCloseSubpath
    assert _lib.QZGetLastError() == _lib.QZErrorOutOfRange
    assert b"QZPathGetElementAtIndex" in _lib.QZGetLastErrorMessage()
    _lib.CGPathRelease(rect)


@pytest.mark.parametrize("call_it, code", [
    (lambda p, c: _lib.CGPathMoveToPoint(None, None, 0, 0), _lib.QZErrorNullArgument),
    (lambda p, c: _lib.CGPathMoveToPoint(c, None, 0, 0), _lib.QZErrorWrongType),
    (lambda p, c: _lib.CGPathMoveToPoint(p, None, math.nan, 0), _lib.QZErrorNotFinite),
    (lambda p, c: _lib.CGPathAddLineToPoint(p, None, 1, 1), _lib.QZErrorInvalidState),
    (lambda p, c: _lib.CGPathAddArc(p, None, 0, 0, math.inf, 0, 1, False), _lib.QZErrorNotFinite),
    (lambda p, c: _lib.CGPathAddRoundedRect(p, None, _lib.CGRectMake(0, 0, 4, 4), 3, 1), _lib.QZErrorInvalidArgument),
    (lambda p, c: _lib.CGPathAddLines(p, None, None, 2), _lib.QZErrorNullArgument),
    (lambda p, c: _lib.CGPathAddPath(p, None, c), _lib.QZErrorWrongType),
    (lambda p, c: _lib.CGPathCreateWithRect(_lib.CGRectNull, None), _lib.QZErrorNotFinite),
    (lambda p, c: _lib.CGPathCreateCopy(None), _lib.QZErrorNullArgument),
    (lambda p, c: _lib.CGPathIsEmpty(c), _lib.QZErrorWrongType),
    (lambda p, c: _lib.CGPathGetBoundingBox(None), _lib.QZErrorNullArgument),
    (lambda p, c: _lib.CGPathContainsPoint(p, None, _lib.CGPoint(math.nan, 0), False), _lib.QZErrorNotFinite),
    (lambda p, c: _lib.CGPathEqualToPath(p, None), _lib.QZErrorNullArgument),
    (lambda p, c: _lib.CGPathApply(p, None, _lib.CGPathApplierFunction()), _lib.QZErrorNullArgument),
    (lambda p, c: _lib.QZPathGetLength(c), _lib.QZErrorWrongType),
    (lambda p, c: _lib.QZPathGetPointAtDistance(p, math.nan, None), _lib.QZErrorNotFinite),
])
def test_bad_input_records_errors(call_it, code):
    path = _lib.CGPathCreateMutable()
    color = _lib.CGColorCreateSRGB(1, 0, 0, 1)
    try:
        _lib.QZClearLastError()
        result = call_it(path, color)
        assert _lib.QZGetLastError() == code, _lib.QZGetLastErrorMessage()
        assert _lib.CGPathIsEmpty(path)
        if isinstance(result, int) and result > 4096:   # a handle made despite the error would leak
            pytest.fail("a failing create returned a handle")
    finally:
        _lib.CGPathRelease(path)
        _lib.CGColorRelease(color)


def test_null_release_and_retain_are_quiet():
    _lib.QZClearLastError()
    _lib.CGPathRelease(None)
    assert _lib.CGPathRetain(None) is None
    assert _lib.QZGetLastError() == 0


# MARK: - Shapes

def test_rect_path():
    path = Path.rect((10, 20, -10, 30))      # standardized first
    assert [e.type for e in path] == [T.MOVE_TO_POINT] + [T.ADD_LINE_TO_POINT] * 3 + [T.CLOSE_SUBPATH]
    assert [tuple(e.points[0]) for e in path[:4]] == [(0, 20), (10, 20), (10, 50), (0, 50)]
    assert path.as_rect() == Rect(0, 20, 10, 30)
    assert path.length == 80
    assert path.current_point == Point(0, 20)


def test_ellipse_bounding_boxes_control_points_versus_curve():
    plain = Path.ellipse((0, 0, 100, 50))
    first = plain[1]
    assert first.type == T.ADD_CURVE_TO_POINT
    assert tuple(first.points[0]) == approx_point(100, 25 + 25 * KAPPA)
    assert tuple(first.points[2]) == approx_point(50, 50)
    assert plain.bounding_box == Rect(0, 0, 100, 50) == plain.path_bounding_box
    turned = Path.ellipse((-10, -10, 20, 20), AffineTransform.rotation(math.pi / 4))
    half = 10 * (1 + KAPPA) / math.sqrt(2)     # control point (10, 10k) turned by 45°
    assert tuple(turned.bounding_box) == pytest.approx((-half, -half, 2 * half, 2 * half), abs=1e-9)
    assert tuple(turned.path_bounding_box) == pytest.approx((-10, -10, 20, 20), abs=1e-6)


def test_quad_curve_tight_box():
    path = Path().move_to(0, 0).quad_curve_to(50, 100, 100, 0)
    assert path.bounding_box == Rect(0, 0, 100, 100)
    assert tuple(path.path_bounding_box) == pytest.approx((0, 0, 100, 50))


def test_rounded_rect():
    path = Path.rounded_rect((0, 0, 100, 50), 10, 5)
    assert [e.type for e in path] == [T.MOVE_TO_POINT] + [T.ADD_LINE_TO_POINT, T.ADD_CURVE_TO_POINT] * 4 + [T.CLOSE_SUBPATH]
    assert tuple(path[0].points[0]) == (10, 0)
    corner = path[2].points
    assert tuple(corner[0]) == approx_point(90 + 10 * KAPPA, 0)
    assert tuple(corner[2]) == approx_point(100, 5)
    quarter = simpson_cubic_length((0, 0), (10 * KAPPA, 0), (10, 5 - 5 * KAPPA), (10, 5))
    assert path.length == pytest.approx(2 * 80 + 2 * 40 + 4 * quarter, abs=1e-8)
    assert (1, 1) not in path and (50, 25) in path
    with pytest.raises(InvalidArgumentError):
        Path.rounded_rect((0, 0, 100, 50), 10, 30)


# MARK: - Arcs

def test_arc_counter_clockwise_quarter():
    path = Path().add_arc(0, 0, 10, 0, math.pi / 2, False)
    assert [e.type for e in path] == [T.MOVE_TO_POINT, T.ADD_CURVE_TO_POINT]
    c1, c2, end = path[1].points
    assert tuple(c1) == approx_point(10, 10 * ARC_KAPPA)
    assert tuple(c2) == approx_point(10 * ARC_KAPPA, 10)
    assert tuple(end) == approx_point(0, 10)


def test_arc_clockwise_goes_the_long_way_through_decreasing_angles():
    path = Path().add_arc(0, 0, 10, 0, math.pi / 2, True)
    ends = [tuple(e.points[-1]) for e in path]
    assert ends == [approx_point(10, 0), approx_point(0, -10), approx_point(-10, 0), approx_point(0, 10)]


def test_arc_full_circle_rules_of_cgpath_h():
    assert len(Path().add_arc(0, 0, 1, 0, 2 * math.pi, False)) == 5
    assert len(Path().add_arc(0, 0, 1, 0, 2 * math.pi, True)) == 1    # draws nothing
    assert len(Path().add_arc(0, 0, 1, 2 * math.pi, 0, True)) == 5


def test_arc_joins_the_current_point_with_a_line():
    path = Path().move_to(20, 20).add_arc(0, 0, 10, math.pi, 1.5 * math.pi, False)
    assert [e.type for e in path] == [T.MOVE_TO_POINT, T.ADD_LINE_TO_POINT, T.ADD_CURVE_TO_POINT]
    assert tuple(path[1].points[0]) == approx_point(-10, 0)
    assert tuple(path.current_point) == approx_point(0, -10)


def test_relative_arc_and_arc_to_point():
    path = Path().add_relative_arc(0, 0, 10, 0, -math.pi, transform=AffineTransform.translation(100, 0))
    assert [tuple(e.points[-1]) for e in path] == [approx_point(110, 0), approx_point(100, -10), approx_point(90, 0)]
    corner = Path().move_to(0, 0).add_arc_to_point(10, 0, 10, 10, 5)
    assert tuple(corner[1].points[0]) == approx_point(5, 0)
    assert tuple(corner[2].points[2]) == approx_point(10, 5)
    with pytest.raises(InvalidStateError):
        Path().add_arc_to_point(1, 0, 1, 1, 1)


# MARK: - Containment

def test_winding_versus_even_odd_on_a_rect_with_a_hole():
    same = Path().add_rects([(0, 0, 100, 100), (25, 25, 50, 50)])
    reversed_hole = Path().add_rect((0, 0, 100, 100)).add_lines([(25, 25), (25, 75), (75, 75), (75, 25)]).close_subpath()
    assert same.contains((50, 50)) and not same.contains((50, 50), eo_fill=True)
    assert not reversed_hole.contains((50, 50)) and not reversed_hole.contains((50, 50), eo_fill=True)
    for path in (same, reversed_hole):
        assert path.contains((10, 50)) and path.contains((10, 50), eo_fill=True)
        assert (150, 50) not in path
    # Half-open edges and the transform applied to the point.
    assert (0, 0) in same and (100, 50) not in same
    assert same.contains((150, 50), transform=AffineTransform.translation(-100, 0))


def test_circle_containment_close_to_the_curve():
    circle = Path.ellipse((-100, -100, 200, 200))
    d = 100 / math.sqrt(2)     # quadrant midpoints lie on the circle
    assert (d - 1e-3, d - 1e-3) in circle
    assert (d + 1e-3, d + 1e-3) not in circle


# MARK: - Transforms, immutability, measuring

def test_transform_argument_applies_to_added_points():
    path = Path().move_to(1, 1, transform=(2, 0, 0, 3, 10, 20)).line_to(2, 2, AffineTransform.scale(2, 2))
    assert tuple(path[0].points[0]) == (12, 23) and tuple(path[1].points[0]) == (4, 4)
    with pytest.raises(NotFiniteError):
        path.line_to(1, 1, transform=(math.inf, 0, 0, 1, 0, 0))


def test_immutable_paths_reject_changes():
    mutable = Path().move_to(0, 0)
    frozen = mutable.copy()
    for path in (frozen, Path.rect((0, 0, 1, 1)), Path.ellipse((0, 0, 1, 1))):
        before = len(path)
        with pytest.raises(WrongTypeError) as excinfo:
            path.line_to(1, 1)
        assert "immutable" in excinfo.value.message
        with pytest.raises(WrongTypeError):
            path.close_subpath()
        assert len(path) == before
    mutable.line_to(5, 5)
    assert len(frozen) == 1 and len(mutable) == 2
    thawed = frozen.mutable_copy().line_to(1, 1)
    assert len(thawed) == 2 and thawed != frozen
    assert frozen.copy() == frozen and mutable.mutable_copy() == mutable


def test_lengths_and_points_at_distance():
    rect = Path.rect((0, 0, 100, 50))
    assert rect.length == 300
    assert rect.point_at_distance(120) == (Point(100, 20), Point(0, 1))
    assert rect.point_at_distance(150) == (Point(100, 50), Point(-1, 0))   # a corner belongs to the next edge
    assert rect.point_at_distance(-1) == (Point(0, 0), Point(1, 0))        # clamped
    circle = Path.ellipse((-10, -10, 20, 20))
    quarter = simpson_cubic_length((10, 0), (10, 10 * KAPPA), (10 * KAPPA, 10), (0, 10))
    assert circle.length == pytest.approx(4 * quarter, abs=1e-9)
    # The Bézier circle is 1.4e-4 longer than the true one (2π · 10 = 62.83185).
    assert circle.length == pytest.approx(62.84067, abs=1e-5)
    assert abs(circle.length - 20 * math.pi) < 0.01
    point, tangent = circle.point_at_distance(circle.length / 4)
    assert tuple(point) == approx_point(0, 10) and tuple(tangent) == approx_point(-1, 0)
    assert Path().length == 0 and Path().point_at_distance(3) == (Point(0, 0), Point(0, 0))


def test_apply_reraises_and_sees_a_snapshot():
    path = Path().move_to(0, 0).line_to(1, 0).line_to(1, 1)
    seen = []

    def grow(element):
        seen.append(element.type)
        path.line_to(9, 9)     # changes during the walk are not visited

    path.apply(grow)
    assert seen == [T.MOVE_TO_POINT, T.ADD_LINE_TO_POINT, T.ADD_LINE_TO_POINT]
    assert len(path) == 6

    def boom(element):
        raise KeyError("from the applier")

    with pytest.raises(KeyError):
        path.apply(boom)


def test_indexing_iteration_and_errors():
    path = Path.rect((0, 0, 1, 1))
    assert len(path) == 5 and path[-1].type == T.CLOSE_SUBPATH and path[-1].points == ()
    assert len(path[1:3]) == 2 and len(path.elements) == 5
    with pytest.raises(IndexError):
        path[5]
    with pytest.raises(OutOfRangeError):
        path[7]
    with pytest.raises(IndexError):
        path[-6]


def test_paths_box_as_object_values_and_release():
    path = Path.rect((0, 0, 1, 1))
    value = Value(path)
    assert value.type == ValueType.OBJECT
    assert call_object(value) == path.handle
    with Path() as temporary:
        temporary.move_to(1, 1)
    assert temporary.handle is None
    with pytest.raises(NullArgumentError):
        quartzite.call(_lib.CGPathIsEmpty, None)


def call_object(value):
    return quartzite.call(_lib.CAValueGetObject, value)
