"""The raw ctypes layer: libquartzite.so with every C declaration applied.

Everything here mirrors the C API one to one: functions keep their C names
and signatures, handles are plain integers (c_void_p), strings are bytes,
and nothing checks QZGetLastError for you (the Pythonic layer does). The
declarations come from ``_decls.py``, which scripts/generate-python-bindings.py
generates from the public headers, so they cannot drift from them.

Function-pointer parameters do not accept None from ctypes; pass the
callback type called with no arguments, e.g. ``QZErrorHandlerCallback()``,
for a NULL function pointer.

The library is found, in order, at ``$QUARTZITE_LIBRARY`` (a full path),
inside this package (``quartzite/libquartzite.so``, where the wheel that
``pip install`` builds puts it), in the build tree this package sits in
(``<repo>/build/lib/libquartzite.so``), or by the system loader
(``libquartzite.so``).
"""
import ctypes
import os
import re
from ctypes import CFUNCTYPE, POINTER, c_double, c_int
from typing import Any

from . import _decls



def __getattr__(name: str) -> Any:
    # The functions, constants, enums and callback types below are made from
    # _decls.py at import time, so a type checker sees them through this
    # (as Any); at run time it is reached only for names that do not exist.
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _library_path() -> str:
    env = os.environ.get("QUARTZITE_LIBRARY")
    if env:
        if not os.path.isfile(env):
            raise ImportError(f"QUARTZITE_LIBRARY={env!r} is not a file")
        return env
    # An installed wheel carries the library beside this file.
    bundled = os.path.join(os.path.dirname(os.path.abspath(__file__)), "libquartzite.so")
    if os.path.isfile(bundled):
        return bundled
    # bindings/python/quartzite/_lib.py -> the repository root is three levels up.
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    candidate = os.path.join(repo, "build", "lib", "libquartzite.so")
    if os.path.isfile(candidate):
        return candidate
    return "libquartzite.so"


LIBRARY_PATH = _library_path()
lib = ctypes.CDLL(LIBRARY_PATH)

# MARK: - Scalars

CGFloat = c_double
CFTimeInterval = c_double


# MARK: - Structs (Apple's layouts; checked against _decls.STRUCTS below)

class CGPoint(ctypes.Structure):
    """Apple's CGPoint."""
    _fields_ = [("x", CGFloat), ("y", CGFloat)]


class CGSize(ctypes.Structure):
    """Apple's CGSize."""
    _fields_ = [("width", CGFloat), ("height", CGFloat)]


class CGRect(ctypes.Structure):
    """Apple's CGRect: an origin and a (possibly negative) size."""
    _fields_ = [("origin", CGPoint), ("size", CGSize)]


class CGAffineTransform(ctypes.Structure):
    """[a b 0; c d 0; tx ty 1], row vectors: x' = a*x + c*y + tx."""
    _fields_ = [("a", CGFloat), ("b", CGFloat), ("c", CGFloat), ("d", CGFloat),
                ("tx", CGFloat), ("ty", CGFloat)]


class CATransform3D(ctypes.Structure):
    """4x4 matrix, row-vector convention (p' = p * M); translation in m41..m43."""
    _fields_ = [(f"m{row}{col}", CGFloat) for row in range(1, 5) for col in range(1, 5)]


# MARK: - Applying the generated declarations

_TOKEN = re.compile(r"\s*(?:(\w+)|([(),]))")


def _resolve(spec: str) -> Any:
    """Turns a spec string of _decls.py into a ctypes type (None for void)."""
    tokens = [m.group(1) or m.group(2) for m in _TOKEN.finditer(spec)]
    position = 0

    def parse() -> Any:
        nonlocal position
        word = tokens[position]
        position += 1
        args = []
        if position < len(tokens) and tokens[position] == "(":
            position += 1
            while tokens[position] != ")":
                args.append(parse())
                if tokens[position] == ",":
                    position += 1
            position += 1
        if word == "None":
            return None
        if word.isdigit():
            return int(word)
        if word == "POINTER":
            return POINTER(args[0])
        if word == "ARRAY":
            return args[0] * args[1]
        if word == "CFUNCTYPE":
            return CFUNCTYPE(*args)
        found = globals().get(word)
        if found is None and word in _decls.CALLBACKS:
            # A struct field of a callback type (CVFillExtendedPixelsCallBackData)
            # needs the callback type before the callbacks loop below runs.
            restype, argtypes = _decls.CALLBACKS[word]
            found = globals()[word] = CFUNCTYPE(_resolve(restype), *[_resolve(a) for a in argtypes])
        if found is None:
            found = getattr(ctypes, word, None)
        if found is None:
            raise ImportError(f"quartzite._lib: _decls.py names `{word}`, which _lib does not define")
        return found

    result = parse()
    if position != len(tokens):
        raise ImportError(f"quartzite._lib: cannot parse type spec {spec!r}")
    return result


def _check_struct(cls: Any, fields: Any) -> None:
    """A hand-written struct must match the header exactly: a wrong layout
    would silently corrupt every call that passes it by value."""
    expected = [(name, _resolve(spec)) for name, spec in fields]
    actual = [(f[0], f[1]) for f in cls._fields_]
    if expected != actual:
        raise ImportError(f"quartzite._lib: {cls.__name__} fields {actual} do not match "
                          f"the header {expected}; update _lib.py")


for _name, _fields in _decls.STRUCTS.items():
    if _name in globals():
        _check_struct(globals()[_name], _fields)
    else:
        # A struct added to the header after this file was written still gets
        # a correct class; only the hand-written docstring is missing.
        globals()[_name] = type(_name, (ctypes.Structure,),
                                {"_fields_": [(f, _resolve(s)) for f, s in _fields]})

# Enums: each type is a C int; each member becomes a module-level int constant.
for _name, _members in _decls.ENUMS.items():
    globals()[_name] = c_int
    globals().update(_members)
globals().update(_decls.ENUM_CONSTANTS)

# String macros are bytes because the C functions take `const char *`.
globals().update({k: v.encode("utf-8") if isinstance(v, str) else v
                  for k, v in _decls.MACROS.items()})

# Callback types (QZErrorHandlerCallback, QZMediaTimeSourceCallback, ...).
for _name, (_restype, _argtypes) in _decls.CALLBACKS.items():
    if _name not in globals():
        globals()[_name] = CFUNCTYPE(_resolve(_restype), *[_resolve(a) for a in _argtypes])

# Exported data constants, copied: in_dll alone would hand out a writable view
# of the library's read-only data, and writing to it would crash the process.
for _name, _spec in _decls.CONSTANTS.items():
    _type = _resolve(_spec)
    _value = _type.in_dll(lib, _name)
    globals()[_name] = _value.value if _type is ctypes.c_char_p else _type.from_buffer_copy(_value)

# Functions. A declared function the loaded library lacks (a stale build) is
# listed in missing_functions instead of making the whole package unusable.
missing_functions = []
for _name, (_restype, _argtypes) in _decls.FUNCTIONS.items():
    try:
        _function = getattr(lib, _name)
    except AttributeError:
        missing_functions.append(_name)
        continue
    _function.restype = _resolve(_restype)
    _function.argtypes = [_resolve(a) for a in _argtypes]
    globals()[_name] = _function

# Loop variables are not part of the module's API.
for _loop_name in ("_name", "_fields", "_members", "_restype", "_argtypes", "_spec",
                   "_type", "_value", "_function"):
    globals().pop(_loop_name, None)
del _loop_name
