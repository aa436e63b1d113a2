"""CAValueRef: conversions, equality, ownership and errors through both layers."""
import ctypes
import math

import pytest

from quartzite import (
    _lib, AffineTransform, Color, NotFiniteError, NullArgumentError, OutOfRangeError,
    Point, QuartziteError, Rect, Size, Transform3D, Value, ValueType, WrongTypeError,
    from_value, to_value,
)


def round_trip(obj):
    ref = to_value(obj)
    try:
        return from_value(ref)
    finally:
        _lib.CARelease(ref)


@pytest.mark.parametrize("obj, kind", [
    (None, ValueType.NULL), (True, ValueType.BOOL), (False, ValueType.BOOL),
    (2.5, ValueType.NUMBER), (-7, ValueType.NUMBER), (1e308, ValueType.NUMBER),
    ("h\u00e9llo \U0001F600", ValueType.STRING), ("", ValueType.STRING),
])
def test_scalar_round_trip(obj, kind):
    with Value(obj) as v:
        assert v.type == kind
        back = v.to_python()
    assert back == obj and type(back) is (float if kind == ValueType.NUMBER else type(obj))


def test_number_accepts_nan_and_infinity():
    # Numbers accept any double, as NSNumber does; only geometry must be finite.
    assert math.isnan(round_trip(math.nan))
    assert round_trip(-math.inf) == -math.inf


@pytest.mark.parametrize("obj", [
    Point(1.5, -2), Size(3, 4), Rect(1, 2, 3, 4), Rect.null(),
    AffineTransform(1, 2, 3, 4, 5, 6), Transform3D.rotation(0.3, 1, 1, 0),
])
def test_geometry_round_trip(obj):
    back = round_trip(obj)
    assert type(back) is type(obj)
    assert back == obj


def test_affine_value_widens_to_transform3d():
    with Value(AffineTransform.scale(2, 3)) as v:
        assert v.type == ValueType.AFFINE_TRANSFORM
        assert v.as_transform3d() == Transform3D.scale(2, 3, 1)


def test_color_round_trip_keeps_the_colour_alive():
    with Color(1, 0.5, 0, 0.25) as color:
        value = Value(color)
    back = value.to_python()  # the colour was closed; the value holds its own reference
    value.close()             # and `back` holds another one
    assert isinstance(back, Color)
    assert back.components == (1.0, 0.5, 0.0, 0.25) and back.alpha == 0.25
    assert back == Color(1, 0.5, 0, 0.25) and back != Color.gray(0.5)
    assert Color.gray(0.5).components == (0.5, 1.0)
    assert back.with_alpha(1).alpha == 1.0


def test_nested_dict_and_array_round_trip():
    obj = {
        "name": "layer",
        "frame": Rect(0, 0, 100, 50),
        "points": [Point(0, 0), Point(1, 1), [True, None, {"deep": [1.0, "x"]}]],
        "empty": {}, "none": [],
        "transform": Transform3D(m34=-1 / 500),
    }
    back = round_trip(obj)
    assert back == obj
    assert list(back) == list(obj)  # insertion order kept


def test_value_container_protocol():
    v = Value({"b": [10, 20, 30], "a": "x"})
    assert v.type == ValueType.DICTIONARY and len(v) == 2
    assert v.keys() == ["b", "a"] and list(v) == ["b", "a"]
    assert v["b"] == [10, 20, 30] and v.get("missing", 7) == 7
    with pytest.raises(KeyError):
        v["missing"]
    array = Value([10, 20, 30])
    assert array[0] == 10 and array[-1] == 30 and list(array) == [10, 20, 30]


def test_value_equality_raw_and_pythonic():
    a, b = to_value({"k": [1, 2, "s"]}), to_value({"k": [1.0, 2.0, "s"]})
    c = to_value({"k": [1, 2, "t"]})
    try:
        assert _lib.CAValueEqual(a, b) and not _lib.CAValueEqual(a, c)
    finally:
        for ref in (a, b, c):
            _lib.CARelease(ref)
    assert Value([1, True, None]) == [1, True, None]
    assert Value("x") != Value("y") and Value(Point(1, 2)) == Value(Point(1, 2))


def test_raw_dictionary_repeated_key_keeps_last_value():
    one, two = _lib.CAValueCreateNumber(1), _lib.CAValueCreateNumber(2)
    keys = (ctypes.c_char_p * 2)(b"k", b"k")
    values = (ctypes.c_void_p * 2)(one, two)
    d = _lib.CAValueCreateDictionary(keys, values, 2)
    try:
        assert _lib.CAValueGetCount(d) == 1
        assert _lib.CAValueGetDictionaryItem(d, b"k") == two  # borrowed, same object
        assert _lib.CAValueGetDictionaryItem(d, b"absent") is None
    finally:
        for ref in (d, one, two):
            _lib.CARelease(ref)


def test_array_retains_its_items():
    item = _lib.CAValueCreateString(b"kept")
    array = _lib.CAValueCreateArray((ctypes.c_void_p * 1)(item), 1)
    _lib.CARelease(item)  # the array's reference keeps it alive
    try:
        assert _lib.CAValueGetString(_lib.CAValueGetArrayItem(array, 0)) == b"kept"
    finally:
        _lib.CARelease(array)


def test_object_value_wraps_values_and_colours():
    v = Value(3)
    ref = _lib.CAValueCreateWithObject(v)  # a CAValueRef comes back with a reference
    assert ref == v.handle
    _lib.CARelease(ref)
    with Color(0, 1, 0) as color:
        colour_value = Value.adopt(_lib.CAValueCreateWithObject(color))
        assert colour_value.type == ValueType.COLOR
        assert _lib.CAValueGetObject(colour_value) == color.handle


@pytest.mark.parametrize("read", [
    Value.as_number, Value.as_point, Value.as_size, Value.as_rect, Value.as_affine_transform,
    Value.as_transform3d, Value.as_color, Value.as_bool, len, lambda v: v[0],
])
def test_wrong_type_reads_raise_in_the_pythonic_layer(read):
    v = Value("not a number")
    with pytest.raises(WrongTypeError) as excinfo:
        read(v)
    assert excinfo.value.code == _lib.QZErrorWrongType == 2
    assert isinstance(excinfo.value, QuartziteError) and isinstance(excinfo.value, TypeError)


def test_wrong_type_read_of_string_from_number_raises():
    with pytest.raises(WrongTypeError):
        Value(1).as_string()


def test_wrong_type_reads_return_zero_and_record_the_error_in_the_raw_layer():
    s = _lib.CAValueCreateString(b"x")
    try:
        _lib.QZClearLastError()
        assert _lib.CAValueGetNumber(s) == 0.0
        assert _lib.QZGetLastError() == 2
        message = _lib.QZGetLastErrorMessage()
        assert b"CAValueGetNumber" in message
        _lib.QZClearLastError()
        assert _lib.CAValueGetCount(s) == 0 and _lib.QZGetLastError() == 2
        _lib.QZClearLastError()
        assert _lib.CATransform3DIsIdentity(_lib.CAValueGetTransform3D(s)) and _lib.QZGetLastError() == 2
    finally:
        _lib.CARelease(s)


def test_null_handles():
    _lib.QZClearLastError()
    assert _lib.CAValueGetNumber(None) == 0.0 and _lib.QZGetLastError() == _lib.QZErrorNullArgument == 1
    _lib.QZClearLastError()
    one = _lib.CAValueCreateNumber(1)
    assert not _lib.CAValueEqual(one, None) and _lib.QZGetLastError() == 1
    _lib.CARelease(one)
    with pytest.raises(NullArgumentError) as excinfo:
        from_value(None)
    assert excinfo.value.code == 1 and "NULL" in excinfo.value.message
    closed = Value(1)
    closed.close()
    with pytest.raises(NullArgumentError):
        closed.as_number()
    with pytest.raises(ValueError):
        Value([closed])


def test_nan_geometry_values_are_rejected():
    _lib.QZClearLastError()
    assert _lib.CAValueCreatePoint(_lib.CGPoint(math.nan, 0)) is None
    assert _lib.QZGetLastError() == _lib.QZErrorNotFinite == 4
    _lib.QZClearLastError()
    assert _lib.CAValueCreateTransform3D(Transform3D(m43=math.inf)) is None
    assert _lib.QZGetLastError() == 4
    with pytest.raises(NotFiniteError) as excinfo:
        to_value(Transform3D(m11=math.nan))
    assert excinfo.value.code == 4
    with pytest.raises(NotFiniteError):
        # Inside a container: the partially built items are released, the error propagates.
        Value([1, 2, {"bad": _lib.CGSize(math.nan, 1)}])


def test_out_of_range_index():
    items = (ctypes.c_void_p * 2)(_lib.CAValueGetNull(), _lib.CAValueGetNull())
    array = _lib.CAValueCreateArray(items, 2)
    try:
        _lib.QZClearLastError()
        assert _lib.CAValueGetArrayItem(array, 2) is None
        assert _lib.QZGetLastError() == _lib.QZErrorOutOfRange == 5
        _lib.QZClearLastError()
        assert _lib.CAValueGetArrayItem(array, ctypes.c_size_t(-1).value) is None
        assert _lib.QZGetLastError() == 5
    finally:
        _lib.CARelease(array)
    with pytest.raises(OutOfRangeError) as excinfo:
        Value([1, 2])[5]
    assert excinfo.value.code == 5 and isinstance(excinfo.value, IndexError)
    with pytest.raises(OutOfRangeError):
        Value([1, 2])[-3]


@pytest.mark.parametrize("obj, error", [
    (object(), TypeError), ({1: "x"}, TypeError), (b"bytes", TypeError),
    ("nul\0inside", ValueError), ([1, object()], TypeError),
])
def test_unconvertible_objects(obj, error):
    with pytest.raises(error):
        to_value(obj)


def test_null_value_is_shared_and_survives_release():
    ref = to_value(None)  # +1 on the shared null
    assert ref == _lib.CAValueGetNull()
    _lib.CARelease(ref)
    assert _lib.CAValueGetType(_lib.CAValueGetNull()) == _lib.CAValueTypeNull
