"""CATransform3D through the raw layer and through Transform3D.

Convention (API.md): row vectors, p' = p * M, translation in m41..m43;
Concat(a, b) = a * b applies a first; Translate/Scale/Rotate(t, ...) =
step * t, so the step happens before t.
"""
import math

import pytest

from quartzite import _lib, AffineTransform, NotFiniteError, Transform3D

NAMES = [f"m{r}{c}" for r in range(1, 5) for c in range(1, 5)]


def entries(t):
    return [getattr(t, n) for n in NAMES]


def near(a, b, tol=1e-12):
    return all(abs(x - y) <= tol for x, y in zip(entries(a), entries(b)))


def perspective():
    """A generic invertible matrix with perspective (m34) and every kind of step."""
    t = Transform3D(m34=-1.0 / 500)
    return t.rotated(0.7, 1, 2, 3).scaled(2, 0.5, 3).translated(10, -20, 5)


def test_rotation_quarter_turn_about_z_raw():
    t = _lib.CATransform3DMakeRotation(math.pi / 2, 0, 0, 1)
    # The header promises exact quarter turns, not just close ones.
    assert (t.m11, t.m12, t.m21, t.m22) == (0.0, 1.0, -1.0, 0.0)
    assert (t.m33, t.m44, t.m41, t.m13) == (1.0, 1.0, 0.0, 0.0)


def test_rotation_quarter_turn_about_z_pythonic():
    t = Transform3D.rotation(math.pi / 2, 0, 0, 1)
    assert (t[0, 0], t[0, 1], t[1, 0], t[1, 1]) == (0.0, 1.0, -1.0, 0.0)
    assert t.m12 == 1.0 and t.m21 == -1.0


def test_rotation_generic_angle_matches_cos_sin():
    t = Transform3D.rotation(0.3, 0, 0, 2)  # the axis need not be unit length
    assert t.m11 == pytest.approx(math.cos(0.3), abs=1e-15)
    assert t.m12 == pytest.approx(math.sin(0.3), abs=1e-15)
    assert t.m21 == pytest.approx(-math.sin(0.3), abs=1e-15)


def test_translate_happens_before_the_existing_transform():
    raw = _lib.CATransform3DTranslate(_lib.CATransform3DMakeScale(2, 2, 1), 10, 0, 0)
    assert raw.m41 == 20.0 and raw.m11 == 2.0
    py = Transform3D.scale(2, 2, 1).translated(10, 0, 0)
    assert py.m41 == 20.0 and py == Transform3D.from_c(raw)


def test_concat_applies_the_left_operand_first():
    raw = _lib.CATransform3DConcat(_lib.CATransform3DMakeTranslation(10, 0, 0),
                                   _lib.CATransform3DMakeRotation(math.pi / 2, 0, 0, 1))
    assert (raw.m41, raw.m42) == (0.0, 10.0)
    py = Transform3D.translation(10, 0, 0) @ Transform3D.rotation(math.pi / 2, 0, 0, 1)
    assert (py.m41, py.m42) == (0.0, 10.0)
    # And the other order keeps the translation on x.
    other = Transform3D.rotation(math.pi / 2, 0, 0, 1) @ Transform3D.translation(10, 0, 0)
    assert (other.m41, other.m42) == (10.0, 0.0)


def test_scale_and_rotate_steps_match_concat():
    t = Transform3D.translation(1, 2, 3)
    assert t.scaled(2, 3, 4) == Transform3D.scale(2, 3, 4) @ t
    assert near(t.rotated(0.5, 0, 1, 0), Transform3D.rotation(0.5, 0, 1, 0) @ t)


def test_invert_perspective_matrix_gives_identity_product():
    m = perspective()
    assert m.m34 != 0  # really has perspective
    inverse = m.inverted()
    assert near(inverse @ m, Transform3D.identity(), 1e-12)
    assert near(m @ inverse, Transform3D.identity(), 1e-12)
    raw_inverse = _lib.CATransform3DInvert(m)
    assert near(_lib.CATransform3DConcat(m, raw_inverse), _lib.CATransform3DIdentity, 1e-12)


def test_invert_singular_matrix_returns_input_unchanged_without_error():
    singular = _lib.CATransform3DMakeScale(0, 1, 1)
    _lib.QZClearLastError()
    result = _lib.CATransform3DInvert(singular)
    assert _lib.CATransform3DEqualToTransform(result, singular)
    assert _lib.QZGetLastError() == 0  # Apple's documented behaviour, not an error
    flat = Transform3D(*range(16))  # rank 2
    assert flat.inverted() == flat


def test_zero_length_axis():
    assert Transform3D.rotation(1.0, 0, 0, 0).is_identity
    t = Transform3D.translation(4, 5, 6)
    assert t.rotated(1.0, 0, 0, 0) == t


def test_is_identity_and_exact_equality():
    assert Transform3D().is_identity and Transform3D.identity() == Transform3D()
    nudged = Transform3D(m42=1e-300)
    assert not nudged.is_identity
    assert nudged != Transform3D.identity()
    assert Transform3D.rotation(2 * math.pi, 0, 0, 1).isclose(Transform3D.identity(), 1e-15)


def test_affine_round_trip_and_is_affine():
    a = AffineTransform(1, 2, 3, 4, 5, 6)
    t = Transform3D.affine(a)
    assert (t.m11, t.m12, t.m21, t.m22, t.m41, t.m42) == (1, 2, 3, 4, 5, 6)
    assert (t.m33, t.m44, t.m43) == (1, 1, 0)
    assert t.is_affine and t.affine_transform() == a
    assert Transform3D.affine(1, 2, 3, 4, 5, 6) == t == a.to_transform3d()
    assert not Transform3D.translation(0, 0, 1).is_affine
    assert not Transform3D(m34=-0.002).is_affine
    assert not Transform3D.rotation(0.1, 1, 0, 0).is_affine


def test_non_finite_concat_raises_and_raw_returns_left_operand():
    bad = Transform3D(m11=math.nan)
    with pytest.raises(NotFiniteError) as excinfo:
        Transform3D.translation(1, 0, 0) @ bad
    assert excinfo.value.code == _lib.QZErrorNotFinite == 4
    assert "CATransform3DConcat" in excinfo.value.message
    _lib.QZClearLastError()
    a = _lib.CATransform3DMakeTranslation(1, 0, 0)
    result = _lib.CATransform3DConcat(a, bad)
    assert _lib.QZGetLastError() == 4
    assert _lib.CATransform3DEqualToTransform(result, a)


def test_matrix_conversions():
    t = Transform3D.translation(1, 2, 3) @ Transform3D.scale(4, 5, 6)  # translate, then scale
    rows = t.to_list()
    assert rows[3] == [4.0, 10.0, 18.0, 1.0] and rows[0] == [4.0, 0.0, 0.0, 0.0]
    assert t[3] == (4.0, 10.0, 18.0, 1.0) and t[-1, 0] == 4.0
    assert Transform3D.from_rows(rows) == t
    with pytest.raises(ValueError):
        Transform3D.from_rows([[1, 2, 3]])
    with pytest.raises(TypeError):
        Transform3D(1, 2, 3)
    with pytest.raises(IndexError):
        t[4, 0]


def test_numpy_conversion_agrees_with_row_vector_convention():
    np = pytest.importorskip("numpy")
    t = perspective()
    m = t.to_numpy()
    assert m.shape == (4, 4)
    p = np.array([1.0, 2.0, 3.0, 1.0])
    # Row vectors: p' = p @ M, and Concat(a, b) is the matrix product a @ b.
    other = Transform3D.rotation(0.4, 0, 0, 1)
    assert np.allclose((t @ other).to_numpy(), m @ other.to_numpy(), atol=1e-12)
    assert np.allclose(p @ Transform3D.translation(5, 6, 7).to_numpy(), [6, 8, 10, 1])
    assert Transform3D.from_numpy(m) == t
