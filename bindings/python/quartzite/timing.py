"""Media time: CACurrentMediaTime and a replaceable clock."""
from __future__ import annotations

import math
import sys
from typing import Any, Callable, List, Optional
import traceback
import types

from . import _lib
from .errors import call

__all__ = ["current_media_time", "set_media_time_source"]

# Every callback object handed to QZSetMediaTimeSource stays alive for the
# life of the process: another thread may be inside the old source while it
# is replaced, and freeing its thunk under it would crash.
_installed_sources: List[Any] = []
_current_source: Optional[Callable[[], float]] = None


def current_media_time() -> float:
    """CACurrentMediaTime(): seconds on the media clock (CLOCK_MONOTONIC unless
    a source is installed). Raises NotFiniteError when the installed source
    returned NaN (the library then answered with the monotonic clock)."""
    return call(_lib.CACurrentMediaTime)


def set_media_time_source(source: Optional[Callable[[], float]]) -> Optional[Callable[[], float]]:
    """Installs ``source()`` (returning seconds as a float) as the media clock
    for every later time query, e.g. to step time in tests; None restores the
    real clock. Returns the previous Python source.

    The source may be called from any thread that asks for the time. If it
    raises or returns something that is not a number, the exception is
    reported through sys.unraisablehook and the library receives NaN, which it
    records as QZErrorNotFinite and answers with the monotonic clock.
    """
    global _current_source
    if source is not None and not callable(source):
        raise TypeError("the media time source must be callable or None")
    previous = _current_source
    if source is None:
        _lib.QZSetMediaTimeSource(_lib.QZMediaTimeSourceCallback(), None)  # NULL function pointer
    else:
        def trampoline(_info: Any) -> float:
            try:
                return float(source())
            except Exception as exc:  # never let an exception cross into C
                _report_unraisable(exc, source)
                return math.nan

        callback = _lib.QZMediaTimeSourceCallback(trampoline)
        _installed_sources.append(callback)
        _lib.QZSetMediaTimeSource(callback, None)
    _current_source = source
    return previous


def _report_unraisable(exc: BaseException, source: Callable[[], float]) -> None:
    """Reports an exception that cannot propagate (we are inside a C callback)."""
    message = "Exception ignored in the Quartzite media time source"
    if sys.unraisablehook is sys.__unraisablehook__:
        # The default hook accepts only the interpreter's own argument type,
        # which Python code cannot construct; print in the same format instead.
        print(f"{message}: {source!r}", file=sys.stderr)
        traceback.print_exception(type(exc), exc, exc.__traceback__)
    else:
        # Custom hooks (pytest's, a host application's) read these attributes.
        sys.unraisablehook(types.SimpleNamespace(
            exc_type=type(exc), exc_value=exc, exc_traceback=exc.__traceback__,
            err_msg=message, object=source))
