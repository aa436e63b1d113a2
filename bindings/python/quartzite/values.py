"""CAValueRef <-> Python objects.

Conversions (both directions, recursively):

    None <-> null            bool <-> bool           int/float -> number -> float
    str <-> string           list/tuple -> array -> list
    dict (str keys) <-> dictionary (insertion order kept)
    Point, Size, Rect, AffineTransform, Transform3D, Color <-> the same kinds
    Value <-> itself
    Layer, Path (any Quartzite handle) -> object value -> Layer (layers) or Value (others)

Ownership follows the C API: ``to_value`` returns a +1 CAValueRef that the
caller must CARelease; ``from_value`` only reads (borrows) the reference it is
given. The :class:`Value` class owns one reference and releases it for you.
"""
from __future__ import annotations

import ctypes
import enum
import numbers
from typing import Any, Callable, Iterator, List, Optional, Union, cast

from . import _lib
from .color import Color
from .errors import _enum_member_name, call
from .handle import Handle
from .geometry import AffineTransform, Point, Rect, Size, Transform3D

__all__ = ["ValueType", "Value", "to_value", "from_value"]

# (An enum built at run time: to a type checker its members are plain ints.)
ValueType: Any = cast(Any, enum.IntEnum)("ValueType", [
    (_enum_member_name(name, "CAValueType"), value) for name, value in _lib._decls.ENUMS["CAValueType"]
], module=__name__)
ValueType.__doc__ = "CAValueType, e.g. ValueType.DICTIONARY == CAValueTypeDictionary == 11."


def _created(ref: Optional[int]) -> int:
    if not ref:
        raise MemoryError("the library returned NULL without recording an error")
    return ref


def _utf8(text: str) -> bytes:
    data = text.encode("utf-8")
    if b"\0" in data:
        # C strings end at the first NUL; refuse rather than silently truncate.
        raise ValueError("strings passed to Quartzite cannot contain NUL characters")
    return data


def _handle(ref: Any) -> Optional[int]:
    """An integer handle (or None) from a Value, int, c_void_p or None."""
    if isinstance(ref, Value):
        return ref.handle
    if isinstance(ref, ctypes.c_void_p):
        return ref.value
    return ref


def to_value(obj: Any) -> int:
    """Converts a Python object to a new CAValueRef (+1: CARelease it).

    Raises TypeError for objects with no CAValue counterpart and
    QuartziteError when the library rejects the data (NotFiniteError for a
    NaN in a point, size, rect or transform).
    """
    if obj is None:
        # The shared null is borrowed; retain it so every result is +1.
        return call(_lib.CARetain, _lib.CAValueGetNull())
    if isinstance(obj, Value):
        if obj.handle is None:
            raise ValueError("cannot convert a closed Value")
        return call(_lib.CARetain, obj)
    if isinstance(obj, bool):  # before numbers: bool is an int in Python
        return _created(call(_lib.CAValueCreateBool, obj))
    if isinstance(obj, numbers.Real):
        return _created(call(_lib.CAValueCreateNumber, float(obj)))
    if isinstance(obj, str):
        return _created(call(_lib.CAValueCreateString, _utf8(obj)))
    if isinstance(obj, _lib.CGPoint):
        return _created(call(_lib.CAValueCreatePoint, obj))
    if isinstance(obj, _lib.CGSize):
        return _created(call(_lib.CAValueCreateSize, obj))
    if isinstance(obj, _lib.CGRect):
        return _created(call(_lib.CAValueCreateRect, obj))
    if isinstance(obj, _lib.CGAffineTransform):
        return _created(call(_lib.CAValueCreateAffineTransform, obj))
    if isinstance(obj, _lib.CATransform3D):
        return _created(call(_lib.CAValueCreateTransform3D, obj))
    if isinstance(obj, Color):
        return _created(call(_lib.CAValueCreateColor, obj))
    if isinstance(obj, Handle):
        # Any other Quartzite object (a Layer, ...) is boxed as an object value.
        if obj.handle is None:
            raise ValueError(f"cannot convert a closed {type(obj).__name__}")
        return _created(call(_lib.CAValueCreateWithObject, obj))
    if isinstance(obj, (list, tuple)):
        items = []
        try:
            for item in obj:
                items.append(to_value(item))
            array = (ctypes.c_void_p * len(items))(*items)
            return _created(call(_lib.CAValueCreateArray, array, len(items)))
        finally:
            for item in items:  # the array retained them
                _lib.CARelease(item)
    if isinstance(obj, dict):
        keys, values = [], []
        try:
            for key, item in obj.items():
                if not isinstance(key, str):
                    raise TypeError(f"dictionary keys must be str, not {type(key).__name__}")
                keys.append(_utf8(key))
                values.append(to_value(item))
            c_keys = (ctypes.c_char_p * len(keys))(*keys)
            c_values = (ctypes.c_void_p * len(values))(*values)
            return _created(call(_lib.CAValueCreateDictionary, c_keys, c_values, len(keys)))
        finally:
            for item in values:
                _lib.CARelease(item)
    raise TypeError(f"cannot convert {type(obj).__name__} to a CAValue")


def from_value(ref: Any) -> Any:
    """Converts a CAValueRef (an int handle, a Value, or None) to Python,
    recursively. Borrows `ref`. A NULL ref raises NullArgumentError."""
    handle = _handle(ref)
    kind = ValueType(call(_lib.CAValueGetType, handle))
    if kind == ValueType.NULL:
        return None
    if kind == ValueType.NUMBER:
        return call(_lib.CAValueGetNumber, handle)
    if kind == ValueType.BOOL:
        return call(_lib.CAValueGetBool, handle)
    if kind == ValueType.POINT:
        return Point.from_c(call(_lib.CAValueGetPoint, handle))
    if kind == ValueType.SIZE:
        return Size.from_c(call(_lib.CAValueGetSize, handle))
    if kind == ValueType.RECT:
        return Rect.from_c(call(_lib.CAValueGetRect, handle))
    if kind == ValueType.AFFINE_TRANSFORM:
        return AffineTransform.from_c(call(_lib.CAValueGetAffineTransform, handle))
    if kind == ValueType.TRANSFORM3D:
        return Transform3D.from_c(call(_lib.CAValueGetTransform3D, handle))
    if kind == ValueType.COLOR:
        return Color.from_handle(call(_lib.CAValueGetColor, handle))
    if kind == ValueType.STRING:
        return call(_lib.CAValueGetString, handle).decode("utf-8")
    if kind == ValueType.ARRAY:
        return [from_value(call(_lib.CAValueGetArrayItem, handle, i))
                for i in range(call(_lib.CAValueGetCount, handle))]
    if kind == ValueType.DICTIONARY:
        result = {}
        for i in range(call(_lib.CAValueGetCount, handle)):
            key = call(_lib.CAValueGetDictionaryKeyAtIndex, handle, i)
            result[key.decode("utf-8")] = from_value(call(_lib.CAValueGetDictionaryItem, handle, key))
        return result
    # Objects: a registered converter (quartzite.layer turns layers into
    # Layer objects) or, for kinds with no Python class yet, the Value itself.
    obj = call(_lib.CAValueGetObject, handle)
    for convert in _object_converters:
        converted = convert(obj)
        if converted is not None:
            return converted
    return Value.from_handle(handle)


# Functions from an object handle (borrowed) to a Python object, or None when
# the object is not of their kind. Modules for object kinds register here.
_object_converters: List[Callable[[int], Any]] = []


class Value(Handle):
    """An owned CAValueRef.

    ``Value(obj)`` converts a Python object (see to_value); ``to_python()``
    converts back. Arrays and dictionaries support ``len``, indexing (items
    come back converted) and iteration (items of an array, keys of a
    dictionary). ``==`` is CAValueEqual, against a Value or a Python object.
    Typed reads (``as_number()``...) raise WrongTypeError for another kind,
    as the C readers record QZErrorWrongType. A Value can be passed directly
    to raw functions that take a CAValueRef.
    """

    __slots__ = ()
    _type_name = "CAValueRef"

    def __init__(self, obj: Any = None) -> None:
        self._ref = None
        self._ref = to_value(obj)

    @property
    def type(self) -> Any:
        return ValueType(call(_lib.CAValueGetType, self))

    def to_python(self) -> Any:
        return from_value(self._ref)

    # Typed reads: each raises WrongTypeError when the value holds another kind.
    def as_number(self) -> float:
        return call(_lib.CAValueGetNumber, self)

    def as_bool(self) -> bool:
        return call(_lib.CAValueGetBool, self)

    def as_string(self) -> str:
        return call(_lib.CAValueGetString, self).decode("utf-8")

    def as_point(self) -> Point:
        return Point.from_c(call(_lib.CAValueGetPoint, self))

    def as_size(self) -> Size:
        return Size.from_c(call(_lib.CAValueGetSize, self))

    def as_rect(self) -> Rect:
        return Rect.from_c(call(_lib.CAValueGetRect, self))

    def as_affine_transform(self) -> AffineTransform:
        return AffineTransform.from_c(call(_lib.CAValueGetAffineTransform, self))

    def as_transform3d(self) -> Transform3D:
        return Transform3D.from_c(call(_lib.CAValueGetTransform3D, self))

    def as_color(self) -> Color:
        return Color.from_handle(call(_lib.CAValueGetColor, self))

    def __len__(self) -> int:
        return call(_lib.CAValueGetCount, self)

    def __getitem__(self, key: Union[int, str]) -> Any:
        if isinstance(key, str):
            item = call(_lib.CAValueGetDictionaryItem, self, _utf8(key))
            if item is None:
                raise KeyError(key)
            return from_value(item)
        if not isinstance(key, numbers.Integral):
            raise TypeError(f"Value indices must be int or str, not {type(key).__name__}")
        if key < 0:
            key += len(self)
        # Out-of-range indices are left to the library (OutOfRangeError).
        return from_value(call(_lib.CAValueGetArrayItem, self, ctypes.c_size_t(key)))

    def get(self, key: Union[int, str], default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default

    def keys(self) -> List[str]:
        """A dictionary's keys in insertion order."""
        return [call(_lib.CAValueGetDictionaryKeyAtIndex, self, i).decode("utf-8")
                for i in range(len(self))]

    def __iter__(self) -> Iterator[Any]:
        if self.type == ValueType.DICTIONARY:
            return iter(self.keys())
        return (self[i] for i in range(len(self)))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Value):
            return call(_lib.CAValueEqual, self, other)
        try:
            other = Value(other)
        except TypeError:
            return NotImplemented
        with other:
            return call(_lib.CAValueEqual, self, other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        if self._ref is None:
            return "Value(<closed>)"
        kind = self.type
        if kind == ValueType.OBJECT:
            return f"Value(<object 0x{call(_lib.CAValueGetObject, self) or 0:x}>)"
        return f"Value({self.to_python()!r})"
