"""CADisplayLink from Python: a callable called once per display frame.

::

    import quartzite
    from quartzite import run_loop

    def frame(link):
        print(link.timestamp, link.duration)

    link = quartzite.DisplayLink(frame)
    link.add_to_run_loop()          # the calling thread's loop, default mode
    run_loop.run(1.0)               # about 60 calls at 60 Hz
    link.invalidate()

Frames are those of the display's grid: frame k is shown at media time
k / rate (60 Hz unless :func:`set_refresh_rate` says otherwise). The callable
runs on the thread running the run loop the link is in (or the thread calling
:meth:`DisplayLink.step`); exceptions it raises are reported through
``sys.unraisablehook``. The binding keeps the callable alive until
:meth:`DisplayLink.invalidate` or until the link is freed.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from . import _lib
from ._callbacks import Targets, next_id
from .errors import call
from .handle import Handle
from .run_loop import DEFAULT_MODE, RunLoop, _mode, current

__all__ = ["DisplayLink", "refresh_rate", "set_refresh_rate"]

_targets = Targets("Exception ignored in a display link callback")


@_lib.CADisplayLinkCallback  # type: ignore[misc]  # a ctypes callback type made at import time
def _link_thunk(link_ref: Optional[int], info: Optional[int]) -> None:
    _targets.call(DisplayLink, link_ref, info)


@_lib.QZInfoReleaseCallback  # type: ignore[misc]  # a ctypes callback type made at import time
def _link_release(info: Optional[int]) -> None:
    _targets.release(info)


class DisplayLink(Handle):
    """CADisplayLinkCreate with ``callback(link)`` as the target."""

    __slots__ = ()
    _type_name = "CADisplayLinkRef"

    def __init__(self, callback: Callable[[DisplayLink], None]) -> None:
        if not callable(callback):
            raise TypeError("DisplayLink needs a callable")
        info = next_id()
        self._ref = call(_lib.CADisplayLinkCreate, _link_thunk, info)
        _targets.add(info, callback, self)
        call(_lib.QZDisplayLinkSetInfoRelease, self, _link_release)

    def add_to_run_loop(self, loop: Optional[RunLoop] = None, mode: str = DEFAULT_MODE) -> None:
        """CADisplayLinkAddToRunLoop on ``loop`` (default: the calling
        thread's); the loop keeps the link alive."""
        call(_lib.CADisplayLinkAddToRunLoop, self, loop if loop is not None else current(), _mode(mode))

    def remove_from_run_loop(self, loop: Optional[RunLoop] = None, mode: str = DEFAULT_MODE) -> None:
        """CADisplayLinkRemoveFromRunLoop."""
        call(_lib.CADisplayLinkRemoveFromRunLoop, self, loop if loop is not None else current(), _mode(mode))

    def invalidate(self) -> None:
        """CADisplayLinkInvalidate: leaves every run loop and drops the callable."""
        call(_lib.CADisplayLinkInvalidate, self)

    def step(self, timestamp: float) -> None:
        """QZDisplayLinkStep: the host's display showed a frame at
        ``timestamp``; calls the callable now, every frame_interval-th step."""
        call(_lib.QZDisplayLinkStep, self, float(timestamp))

    @property
    def frame_interval(self) -> int:
        """Display frames per callback (default 1; less than 1 raises InvalidArgumentError)."""
        return call(_lib.CADisplayLinkGetFrameInterval, self)

    @frame_interval.setter
    def frame_interval(self, value: int) -> None:
        call(_lib.CADisplayLinkSetFrameInterval, self, int(value))

    @property
    def paused(self) -> bool:
        return bool(call(_lib.CADisplayLinkGetPaused, self))

    @paused.setter
    def paused(self, value: bool) -> None:
        call(_lib.CADisplayLinkSetPaused, self, bool(value))

    @property
    def timestamp(self) -> float:
        """The media time of the frame of the last callback (0 before the first)."""
        return call(_lib.CADisplayLinkGetTimestamp, self)

    @property
    def duration(self) -> float:
        """Seconds between display frames (0 before the first callback)."""
        return call(_lib.CADisplayLinkGetDuration, self)

    @property
    def target_timestamp(self) -> float:
        """timestamp + frame_interval * duration."""
        return call(_lib.CADisplayLinkGetTargetTimestamp, self)

    @property
    def cv_timestamp(self) -> Any:
        """The last frame's CVTimeStamp (a ``quartzite._lib.CVTimeStamp``)."""
        out = _lib.CVTimeStamp()
        call(_lib.QZDisplayLinkGetCVTimeStamp, self, out)
        return out


def set_refresh_rate(hz: float) -> None:
    """QZDisplaySetRefreshRate: the display's refresh rate in Hz (0 < hz <= 10000)."""
    call(_lib.QZDisplaySetRefreshRate, float(hz))


def refresh_rate() -> float:
    """QZDisplayGetRefreshRate."""
    return call(_lib.QZDisplayGetRefreshRate)
