"""CGPoint/CGSize/CGRect and CGAffineTransform through both layers."""
import math

import pytest

from quartzite import _lib, AffineTransform, NotFiniteError, Point, QuartziteError, Rect, Size

NAN = math.nan


def test_make_functions_reject_nan_raw():
    _lib.QZClearLastError()
    p = _lib.CGPointMake(NAN, 1)
    assert (_lib.QZGetLastError(), p.x, p.y) == (4, 0.0, 0.0)  # CGPointZero
    _lib.QZClearLastError()
    s = _lib.CGSizeMake(1, NAN)
    assert (_lib.QZGetLastError(), s.width, s.height) == (4, 0.0, 0.0)
    _lib.QZClearLastError()
    r = _lib.CGRectMake(0, 0, NAN, 1)
    assert _lib.QZGetLastError() == 4 and _lib.CGRectIsNull(r)
    assert b"CGRectMake" in _lib.QZGetLastErrorMessage()


@pytest.mark.parametrize("make", [
    lambda: Point(NAN, 0), lambda: Size(0, NAN), lambda: Rect(0, NAN, 1, 1),
])
def test_make_functions_reject_nan_pythonic(make):
    with pytest.raises(NotFiniteError) as excinfo:
        make()
    assert excinfo.value.code == 4 and isinstance(excinfo.value, QuartziteError)


def test_standardize_negative_size():
    r = Rect(10, 20, -4, -6)
    assert tuple(r) == (10, 20, -4, -6)  # stored as given
    assert tuple(r.standardized()) == (6, 14, 4, 6)
    assert (r.min_x, r.max_x, r.min_y, r.max_y) == (6, 10, 14, 20)
    assert (r.mid_x, r.mid_y, r.width, r.height) == (8, 17, 4, 6)
    assert r == Rect(6, 14, 4, 6)  # equality compares standardized rectangles


def test_intersection_of_overlapping_rects():
    raw = _lib.CGRectIntersection(_lib.CGRectMake(0, 0, 10, 10), _lib.CGRectMake(5, -5, 10, 10))
    assert (raw.origin.x, raw.origin.y, raw.size.width, raw.size.height) == (5, 0, 5, 5)
    assert Rect(0, 0, 10, 10) & Rect(5, -5, 10, 10) == Rect(5, 0, 5, 5)


def test_intersection_of_disjoint_rects_is_null():
    r = Rect(0, 0, 10, 10).intersection(Rect(20, 20, 5, 5))
    assert r.is_null and r.is_empty and r == Rect.null()
    assert not Rect(0, 0, 10, 10).intersects(Rect(20, 20, 5, 5))
    assert _lib.CGRectIsNull(_lib.CGRectIntersection(_lib.CGRectMake(0, 0, 1, 1), _lib.CGRectNull))


def test_intersection_of_edge_sharing_rects_is_zero_sized_not_null():
    r = Rect(0, 0, 10, 10) & Rect(10, 0, 5, 5)
    assert not r.is_null
    assert tuple(r) == (10, 0, 0, 5) and r.is_empty


def test_union():
    assert Rect(0, 0, 1, 1) | Rect(5, 5, 1, 2) == Rect(0, 0, 6, 7)
    assert Rect(1, 2, 3, 4).union(Rect.null()) == Rect(1, 2, 3, 4)
    assert Rect.null().union(Rect(1, 2, 3, 4)) == Rect(1, 2, 3, 4)
    assert (Rect.null() | Rect.null()).is_null
    raw = _lib.CGRectUnion(_lib.CGRectNull, _lib.CGRectMake(-1, -1, 2, 2))
    assert (raw.origin.x, raw.size.width) == (-1, 2)


def test_inset():
    assert Rect(0, 0, 10, 10).inset(2, 3) == Rect(2, 3, 6, 4)
    assert Rect(0, 0, 10, 10).inset(-2, -1) == Rect(-2, -1, 14, 12)  # negative grows
    assert Rect(0, 0, 10, 10).inset(6, 0).is_null  # would be negative
    assert Rect(10, 10, -10, -10).inset(1, 1) == Rect(1, 1, 8, 8)  # standardized first


def test_contains_point_excludes_max_edges():
    r = Rect(0, 0, 10, 10)
    assert (0, 0) in r and (9.999, 9.999) in r
    assert (10, 5) not in r and (5, 10) not in r and (-1e-9, 5) not in r
    assert _lib.CGRectContainsPoint(_lib.CGRectMake(0, 0, 10, 10), _lib.CGPointMake(0, 0))
    assert not _lib.CGRectContainsPoint(_lib.CGRectMake(0, 0, 10, 10), _lib.CGPointMake(10, 10))
    assert Rect.infinite().contains(Point(-1e300, 1e300))
    assert Point(1, 2) not in Rect.null()


def test_contains_rect():
    outer = Rect(0, 0, 10, 10)
    assert outer.contains(Rect(0, 0, 10, 10)) and outer.contains(Rect(2, 2, 3, 3))
    assert not outer.contains(Rect(5, 5, 10, 1))


def test_offset_integral_and_predicates():
    assert Rect(10, 20, -10, -20).offset(1, 1) == Rect(1, 1, 10, 20)
    assert tuple(Rect(1.2, 2.7, 3.1, 0.2).integral()) == (1, 2, 4, 1)
    assert Rect(0, 0, 0, 5).is_empty and not Rect(0, 0, 1, 5).is_empty
    assert Rect.infinite().is_infinite and not Rect.null().is_infinite
    assert Rect.null() == Rect.from_c(_lib.CGRectNull)  # all null rects are equal
    assert Rect.from_origin_size((1, 2), (3, 4)) == Rect(1, 2, 3, 4)


def test_point_and_size_helpers():
    assert Point(1, 2) == Point(1.0, 2.0) and Point(1, 2) != Point(2, 1)
    assert tuple(Point(3, 4)) == (3, 4) and tuple(Size(5, 6)) == (5, 6)
    assert Size(5, 6) != Size(6, 5)
    assert Point.zero() == Point() and Size.zero() == Size()


def test_affine_rotation_and_apply():
    r = AffineTransform.rotation(math.pi / 2)
    assert (r.a, r.b, r.c, r.d) == pytest.approx((0, 1, -1, 0), abs=1e-15)
    p = r.apply(Point(1, 0))  # x' = a*x + c*y + tx
    assert (p.x, p.y) == pytest.approx((0, 1), abs=1e-15)
    raw = _lib.CGPointApplyAffineTransform(_lib.CGPointMake(1, 0), _lib.CGAffineTransformMakeRotation(math.pi / 2))
    assert raw.y == pytest.approx(1, abs=1e-15)


def test_affine_translate_happens_before_existing_transform():
    t = AffineTransform.scale(2, 2).translated(10, 0)
    assert (t.tx, t.a) == (20, 2)
    raw = _lib.CGAffineTransformTranslate(_lib.CGAffineTransformMakeScale(2, 2), 10, 0)
    assert raw.tx == 20
    assert AffineTransform.translation(1, 2).scaled(3, 4) == AffineTransform.scale(3, 4) @ AffineTransform.translation(1, 2)


def test_affine_concat_and_invert():
    t = AffineTransform.translation(10, 0) @ AffineTransform.rotation(math.pi / 2)
    assert (t.tx, t.ty) == pytest.approx((0, 10), abs=1e-12)
    m = AffineTransform(2, 1, -1, 3, 5, -7)
    product = m @ m.inverted()
    assert all(abs(x - y) <= 1e-12 for x, y in zip(product, AffineTransform.identity()))
    singular = AffineTransform(1, 2, 2, 4, 3, 3)
    assert singular.inverted() == singular  # returned unchanged


def test_affine_apply_to_size_and_rect():
    t = AffineTransform(2, 0, 0, 3, 100, 100)
    assert t.apply(Size(1, 1)) == Size(2, 3)  # sizes ignore the translation
    bounds = AffineTransform.rotation(math.pi / 4).apply(Rect(0, 0, 1, 1))
    h = math.sqrt(0.5)
    assert (bounds.min_x, bounds.min_y) == pytest.approx((-h, 0), abs=1e-12)
    assert (bounds.width, bounds.height) == pytest.approx((2 * h, 2 * h), abs=1e-12)
    assert AffineTransform.scale(2, 2).apply(Rect.null()).is_null
    assert Rect(1, 1, 1, 1).apply(AffineTransform.translation(1, 0)) == Rect(2, 1, 1, 1)


def test_affine_identity_and_equality():
    assert AffineTransform().is_identity and AffineTransform() == AffineTransform.identity()
    assert not AffineTransform(tx=1e-300).is_identity
    assert AffineTransform(1, 2, 3, 4, 5, 6) != AffineTransform(1, 2, 3, 4, 5, 7)
