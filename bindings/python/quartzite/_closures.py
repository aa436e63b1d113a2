"""C callbacks that return a struct by value, which ctypes cannot make.

ctypes refuses a Structure as the result type of a CFUNCTYPE callback
("invalid result type for callback function"), but two callbacks of the
layer API return a CGSize by value: CALayoutManagerCallbacks.preferredSizeOfLayer
and CALayerClassCallbacks.preferredFrameSize. libffi (which ctypes itself is
built on, so it is always in the process) can: a closure made with
ffi_prep_closure_loc gets a `void *ret` buffer to fill, and its handler has an
ordinary ctypes-compatible signature (it returns void).

:func:`struct_callback` builds such a closure around a Python function. The
closure and everything it points to live as long as the returned object; the
layer module keeps its few closures for the life of the process.
"""
import ctypes
import ctypes.util
import platform
from ctypes import POINTER, c_int, c_size_t, c_uint, c_ushort, c_void_p

__all__ = ["StructCallbackUnavailable", "struct_callback", "available"]


class StructCallbackUnavailable(RuntimeError):
    """libffi could not be loaded or this architecture's ABI is not known here."""


class _FFIType(ctypes.Structure):
    pass


# struct _ffi_type { size_t size; unsigned short alignment; unsigned short type; struct _ffi_type **elements; }
_FFIType._fields_ = [("size", c_size_t), ("alignment", c_ushort), ("type", c_ushort),
                     ("elements", POINTER(POINTER(_FFIType)))]

_FFI_TYPE_STRUCT = 13
_FFI_OK = 0
# FFI_DEFAULT_ABI of libffi's ffitarget.h (the same value in libffi 3.2 to 3.4).
_DEFAULT_ABI = {"x86_64": 2, "amd64": 2, "aarch64": 1, "arm64": 1}.get(platform.machine().lower())
# Generous upper bounds of sizeof(ffi_cif) and sizeof(ffi_closure) on every
# architecture libffi supports (they are 32 and 56 bytes on x86-64).
_CIF_SIZE = 256
_CLOSURE_SIZE = 512

_HANDLER = ctypes.CFUNCTYPE(None, c_void_p, c_void_p, POINTER(c_void_p), c_void_p)


def _load_libffi():
    names = [ctypes.util.find_library("ffi"), "libffi.so.8", "libffi.so.7", "libffi.so.6", "libffi.so"]
    for name in names:
        if not name:
            continue
        try:
            lib = ctypes.CDLL(name)
        except OSError:
            continue
        lib.ffi_prep_cif.argtypes = [c_void_p, c_int, c_uint, POINTER(_FFIType), POINTER(POINTER(_FFIType))]
        lib.ffi_prep_cif.restype = c_int
        lib.ffi_closure_alloc.argtypes = [c_size_t, POINTER(c_void_p)]
        lib.ffi_closure_alloc.restype = c_void_p
        lib.ffi_prep_closure_loc.argtypes = [c_void_p, c_void_p, _HANDLER, c_void_p, c_void_p]
        lib.ffi_prep_closure_loc.restype = c_int
        return lib
    return None


_libffi = _load_libffi() if _DEFAULT_ABI is not None else None


def available():
    """True when struct-returning callbacks can be made on this system."""
    return _libffi is not None


def _scalar_ffi_type(ctype):
    if ctype is ctypes.c_double:
        return _FFIType.in_dll(_libffi, "ffi_type_double")
    if ctype is ctypes.c_float:
        return _FFIType.in_dll(_libffi, "ffi_type_float")
    if ctype in (c_void_p, ctypes.c_char_p) or issubclass(ctype, ctypes._Pointer) \
            or (isinstance(ctype, type) and issubclass(ctype, ctypes._CFuncPtr)):
        return _FFIType.in_dll(_libffi, "ffi_type_pointer")
    raise TypeError(f"no libffi type for {ctype.__name__} here")


def _ffi_type(ctype, keep):
    """An _FFIType for a ctypes type; `keep` collects what must stay alive."""
    if isinstance(ctype, type) and issubclass(ctype, ctypes.Structure):
        fields = [_ffi_type(field[1], keep) for field in ctype._fields_]
        elements = (POINTER(_FFIType) * (len(fields) + 1))(*[ctypes.pointer(f) for f in fields], None)
        made = _FFIType(0, 0, _FFI_TYPE_STRUCT, ctypes.cast(elements, POINTER(POINTER(_FFIType))))
        keep.extend([fields, elements, made])
        return made
    return _scalar_ffi_type(ctype)


class StructCallback:
    """A C function pointer (``address``) that calls ``function(*args)`` and
    returns its result, converted to ``restype``, by value. ``function`` must
    not raise: the caller wraps it."""

    def __init__(self, restype, argtypes, function):
        if _libffi is None:
            raise StructCallbackUnavailable(
                f"libffi was not found or the {platform.machine()} ABI is not known to quartzite")
        self._keep = []
        self.restype = restype
        self.argtypes = list(argtypes)
        rtype = _ffi_type(restype, self._keep)
        atypes = [_ffi_type(a, self._keep) for a in self.argtypes]
        self._atypes = (POINTER(_FFIType) * max(1, len(atypes)))(*[ctypes.pointer(a) for a in atypes])
        self._cif = ctypes.create_string_buffer(_CIF_SIZE)
        status = _libffi.ffi_prep_cif(self._cif, _DEFAULT_ABI, len(atypes), ctypes.pointer(rtype), self._atypes)
        if status != _FFI_OK:
            raise StructCallbackUnavailable(f"ffi_prep_cif failed with status {status}")
        code = c_void_p()
        self._closure = _libffi.ffi_closure_alloc(_CLOSURE_SIZE, ctypes.byref(code))
        if not self._closure:
            raise MemoryError("ffi_closure_alloc failed")
        size = ctypes.sizeof(restype)

        def handler(_cif, ret, args, _user_data):
            values = []
            for i, argtype in enumerate(self.argtypes):
                values.append(ctypes.cast(args[i], POINTER(argtype))[0])
            result = function(*values)
            if not isinstance(result, restype):
                result = restype(*result)
            ctypes.memmove(ret, ctypes.addressof(result), size)

        self._handler = _HANDLER(handler)
        status = _libffi.ffi_prep_closure_loc(self._closure, self._cif, self._handler, None, code)
        if status != _FFI_OK:
            raise StructCallbackUnavailable(f"ffi_prep_closure_loc failed with status {status}")
        self.address = code.value

    def as_function_pointer(self, cfunctype):
        """The closure as a value of a ctypes function-pointer type (for a struct field)."""
        return ctypes.cast(c_void_p(self.address), cfunctype)

    # The closure is never freed: C may still hold its address. Closures are
    # made once per callback kind, so this costs a few hundred bytes in all.


def struct_callback(restype, argtypes, function):
    """Makes a :class:`StructCallback`; raises StructCallbackUnavailable when
    libffi cannot be used."""
    return StructCallback(restype, argtypes, function)
