"""Quartzite's thread-local error state as Python exceptions.

The C library never aborts on bad input: the call does nothing, returns a
neutral value and records a per-thread error code and message. The Pythonic
layer turns that into an exception with :func:`call`, which clears the error,
makes the C call, and raises if the call recorded one.
"""
from __future__ import annotations

import enum
import re
from typing import Any, Callable, Dict, List, Optional, Tuple, Type, cast

from . import _lib

__all__ = [
    "ErrorCode", "QuartziteError", "NullArgumentError", "WrongTypeError",
    "InvalidArgumentError", "NotFiniteError", "OutOfRangeError",
    "UnknownConstantError", "InvalidStateError", "OutOfMemoryError",
    "call", "last_error", "clear_last_error", "set_error_handler",
]


def _enum_member_name(c_name: str, prefix: str) -> str:
    """QZErrorNullArgument -> NULL_ARGUMENT; CAValueTypeTransform3D -> TRANSFORM3D."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])", "_", c_name[len(prefix):]).upper()


# Built from the header's enum so that new codes appear without editing this file.
# (An enum built at run time: to a type checker its members are plain ints.)
ErrorCode: Any = cast(Any, enum.IntEnum)("ErrorCode", [
    (_enum_member_name(name, "QZError"), value) for name, value in _lib._decls.ENUMS["QZError"]
], module=__name__)
ErrorCode.__doc__ = "QZError codes, e.g. ErrorCode.WRONG_TYPE == QZErrorWrongType == 2."


class QuartziteError(Exception):
    """A failed Quartzite call. ``code`` is the QZError code (an ErrorCode when
    known) and ``message`` the library's message naming function and problem."""

    def __init__(self, code: int, message: str = "") -> None:
        try:
            code = ErrorCode(code)
        except ValueError:
            code = int(code)
        self.code = code
        self.message = message
        name = code.name if isinstance(code, ErrorCode) else f"code {code}"
        super().__init__(f"{message} [{name}]" if message else name)


# Subclasses also derive from the matching built-in exception, so that
# `except IndexError` and friends work the way Python code expects.
class NullArgumentError(QuartziteError, ValueError):
    """QZErrorNullArgument: a required handle or pointer was NULL (None)."""


class WrongTypeError(QuartziteError, TypeError):
    """QZErrorWrongType: a handle or value of another type."""


class InvalidArgumentError(QuartziteError, ValueError):
    """QZErrorInvalidArgument: a value outside what the function accepts."""


class NotFiniteError(QuartziteError, ValueError):
    """QZErrorNotFinite: NaN or infinity where a finite number is required."""


class OutOfRangeError(QuartziteError, IndexError):
    """QZErrorOutOfRange: an index or count outside the valid range."""


class UnknownConstantError(QuartziteError, ValueError):
    """QZErrorUnknownConstant: a constant string the function does not know."""


class InvalidStateError(QuartziteError, RuntimeError):
    """QZErrorInvalidState: a call in the wrong state or order."""


class OutOfMemoryError(QuartziteError, MemoryError):
    """QZErrorOutOfMemory: an allocation failed."""


_ERROR_CLASSES: Dict[int, Type[QuartziteError]] = {
    1: NullArgumentError, 2: WrongTypeError, 3: InvalidArgumentError,
    4: NotFiniteError, 5: OutOfRangeError, 6: UnknownConstantError,
    7: InvalidStateError, 8: OutOfMemoryError,
}


def error_for(code: int, message: str) -> QuartziteError:
    """The exception for a QZError code (QuartziteError for codes this module
    does not know yet)."""
    return _ERROR_CLASSES.get(int(code), QuartziteError)(code, message)


def _decode(message: Optional[bytes]) -> str:
    return message.decode("utf-8", "replace") if message else ""


def last_error() -> Tuple[int, str]:
    """The calling thread's (code, message); code is ErrorCode.NONE when clear."""
    code = _lib.QZGetLastError()
    try:
        code = ErrorCode(code)
    except ValueError:
        pass
    return code, _decode(_lib.QZGetLastErrorMessage())


def clear_last_error() -> None:
    """Resets the calling thread's error state."""
    _lib.QZClearLastError()


def call(function: Callable[..., Any], *args: Any) -> Any:
    """Calls a raw C function and raises the error it records, if any.

    Success does not clear the error state in C, so it is cleared first; the
    state is per thread, so other threads cannot interfere. After a failure
    the error is left recorded, as a C caller would see it.
    """
    _lib.QZClearLastError()
    result = function(*args)
    code = _lib.QZGetLastError()
    if code:
        raise error_for(code, _decode(_lib.QZGetLastErrorMessage()))
    return result


# Every callback object ever handed to QZSetErrorHandler stays alive for the
# life of the process: another thread may still be running the old handler
# when it is replaced, and freeing its thunk under it would crash.
_installed_handlers: List[Any] = []
_current_handler: Optional[Callable[[int, str], None]] = None


def set_error_handler(handler: Optional[Callable[[int, str], None]]) -> Optional[Callable[[int, str], None]]:
    """Installs ``handler(code, message)`` to be called, on the failing thread,
    each time the library records an error; None removes it. Returns the
    previous Python handler. Errors raised inside the handler are recorded
    but not reported to it again. An exception escaping the handler is
    reported through sys.unraisablehook and otherwise ignored."""
    global _current_handler
    if handler is not None and not callable(handler):
        raise TypeError("the error handler must be callable or None")
    previous = _current_handler
    if handler is None:
        _lib.QZSetErrorHandler(_lib.QZErrorHandlerCallback(), None)  # NULL function pointer
    else:
        def trampoline(code: int, message: Optional[bytes], _info: Any) -> None:
            try:
                code = ErrorCode(code)
            except ValueError:
                pass
            handler(code, _decode(message))

        callback = _lib.QZErrorHandlerCallback(trampoline)
        _installed_handlers.append(callback)
        _lib.QZSetErrorHandler(callback, None)
    _current_handler = handler
    return previous
