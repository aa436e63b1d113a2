"""The run loop (Apple's CFRunLoop) from Python.

Every thread has a run loop, made when first asked for. Running it calls,
on the running thread: functions queued with :func:`perform`, due
:class:`Timer` callbacks, due display-link callbacks
(:class:`quartzite.DisplayLink`), and at the end of each turn commits the
thread's implicit transaction. ::

    from quartzite import run_loop

    run_loop.perform(lambda: print("later, on this thread"))
    t = run_loop.Timer(lambda timer: print("tick"), interval=0.5)
    t.add_to_run_loop()
    run_loop.run(2.0)          # returns run_loop.RunResult.TIMED_OUT
    t.invalidate()

Time is the media clock (:func:`quartzite.current_media_time`). With a source
installed by :func:`quartzite.set_media_time_source` the loop never sleeps in
real time: it asks the source again instead of waiting, so the source must
advance by itself (e.g. a small step per call), and ``run(1.0)`` then runs one
simulated second as fast as the machine allows.

Callbacks run on the thread that runs the loop. An exception raised by one is
reported through ``sys.unraisablehook`` and does not stop the loop. The
binding keeps each Python callable alive until the library is done with it
(a timer until it is invalidated, a perform until it ran).
"""

from __future__ import annotations

import enum
from typing import Callable, Optional

from . import _lib
from ._callbacks import Registry, Targets, next_id
from .errors import call
from .handle import Handle
from .layer import _run_callback
from .timing import current_media_time

__all__ = [
    "COMMON_MODES", "DEFAULT_MODE", "RunLoop", "RunResult", "Timer", "add_common_mode", "current",
    "main", "perform", "run", "run_forever", "run_once", "stop", "wake_up",
]

DEFAULT_MODE = "kCFRunLoopDefaultMode"
COMMON_MODES = "kCFRunLoopCommonModes"


class RunResult(enum.IntEnum):
    """Why CFRunLoopRunInMode returned (Apple's values)."""
    FINISHED = 1        #: the mode had nothing to run
    STOPPED = 2         #: stop() was called
    TIMED_OUT = 3       #: the time given ran out
    HANDLED_SOURCE = 4  #: return_after_source_handled and a perform or display link ran


def _mode(mode: str) -> bytes:
    if not isinstance(mode, str):
        raise TypeError(f"a run-loop mode must be a str, not {type(mode).__name__}")
    return mode.encode("utf-8")


class RunLoop(Handle):
    """A thread's run loop. Get one with :func:`current` or :func:`main`;
    this object keeps the loop alive even after its thread ended."""

    __slots__ = ()
    _type_name = "CFRunLoopRef"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RunLoop) and other._ref == self._ref

    def __hash__(self) -> int:
        return hash(self._ref)

    def __repr__(self) -> str:
        return f"<quartzite.run_loop.RunLoop 0x{self._ref or 0:x}>"

    def stop(self) -> None:
        """CFRunLoopStop: the innermost run of this loop returns
        RunResult.STOPPED after its current turn (nothing if not running). Any thread."""
        call(_lib.CFRunLoopStop, self)

    def wake_up(self) -> None:
        """CFRunLoopWakeUp: a waiting loop runs a turn. Any thread."""
        call(_lib.CFRunLoopWakeUp, self)

    @property
    def is_waiting(self) -> bool:
        """True while the loop is blocked waiting for work."""
        return bool(call(_lib.CFRunLoopIsWaiting, self))

    def fileno(self) -> int:
        """QZRunLoopGetFileDescriptor: a descriptor that is readable when the
        loop has work (for ``select``/``selectors``/asyncio's add_reader);
        then call :meth:`run_once` on the loop's thread. Owned by the loop."""
        return call(_lib.QZRunLoopGetFileDescriptor, self)

    def run_once(self) -> RunResult:
        """QZRunLoopRunOnce: one turn without waiting; only on the loop's own
        thread (InvalidStateError otherwise)."""
        return RunResult(call(_lib.QZRunLoopRunOnce, self))

    def perform(self, fn: Callable[[], None], mode: str = DEFAULT_MODE) -> None:
        """Queues ``fn()`` to run once on this loop's thread in a turn of
        ``mode`` and wakes the loop. Any thread."""
        perform(fn, mode=mode, loop=self)

    def add_common_mode(self, mode: str) -> None:
        """CFRunLoopAddCommonMode."""
        call(_lib.CFRunLoopAddCommonMode, self, _mode(mode))

    def add_timer(self, timer: Timer, mode: str = DEFAULT_MODE) -> None:
        """CFRunLoopAddTimer (the loop retains the timer)."""
        call(_lib.CFRunLoopAddTimer, self, _as_timer(timer), _mode(mode))

    def remove_timer(self, timer: Timer, mode: str = DEFAULT_MODE) -> None:
        """CFRunLoopRemoveTimer."""
        call(_lib.CFRunLoopRemoveTimer, self, _as_timer(timer), _mode(mode))

    def contains_timer(self, timer: Timer, mode: str = DEFAULT_MODE) -> bool:
        """CFRunLoopContainsTimer."""
        return bool(call(_lib.CFRunLoopContainsTimer, self, _as_timer(timer), _mode(mode)))

    def next_timer_fire_date(self, mode: str = DEFAULT_MODE) -> Optional[float]:
        """The earliest fire date of the loop's timers in ``mode``, or None."""
        date = call(_lib.CFRunLoopGetNextTimerFireDate, self, _mode(mode))
        return None if date == 0 else date


def current() -> RunLoop:
    """The calling thread's run loop (CFRunLoopGetCurrent)."""
    return RunLoop.from_handle(call(_lib.CFRunLoopGetCurrent))


def main() -> RunLoop:
    """The process main thread's run loop (CFRunLoopGetMain)."""
    return RunLoop.from_handle(call(_lib.CFRunLoopGetMain))


def run(seconds: float, mode: str = DEFAULT_MODE, return_after_source_handled: bool = False) -> RunResult:
    """CFRunLoopRunInMode: runs the calling thread's loop in ``mode`` for up to
    ``seconds`` of media time (<= 0: one turn; ``math.inf``: until another
    reason) and returns a :class:`RunResult`."""
    return RunResult(call(_lib.CFRunLoopRunInMode, _mode(mode), float(seconds),
                          bool(return_after_source_handled)))


def run_forever() -> None:
    """CFRunLoopRun: runs the calling thread's loop in the default mode until
    it is stopped or has nothing left to run."""
    call(_lib.CFRunLoopRun)


def run_once(loop: Optional[RunLoop] = None) -> RunResult:
    """QZRunLoopRunOnce: one turn of the calling thread's loop (or ``loop``,
    which must be this thread's) without waiting."""
    return RunResult(call(_lib.QZRunLoopRunOnce, loop))


def stop(loop: Optional[RunLoop] = None) -> None:
    """CFRunLoopStop on ``loop`` (default: the calling thread's)."""
    (loop or current()).stop()


def wake_up(loop: Optional[RunLoop] = None) -> None:
    """CFRunLoopWakeUp on ``loop`` (default: the calling thread's)."""
    (loop or current()).wake_up()


def add_common_mode(mode: str, loop: Optional[RunLoop] = None) -> None:
    """CFRunLoopAddCommonMode on ``loop`` (default: the calling thread's)."""
    (loop or current()).add_common_mode(mode)


# MARK: - Performs

# info -> callable, from QZRunLoopPerformFunction until it runs.
_performs = Registry()


@_lib.QZRunLoopPerformCallback  # type: ignore[misc]  # a ctypes callback type made at import time
def _perform_thunk(info: Optional[int]) -> None:
    fn = _performs.pop(info)
    if fn is not None:
        _run_callback("Exception ignored in a run-loop perform", fn, fn)


def perform(fn: Callable[[], None], mode: str = DEFAULT_MODE, loop: Optional[RunLoop] = None) -> None:
    """Queues ``fn()`` to run once on ``loop``'s thread (default: the calling
    thread's loop) in a turn of ``mode``, and wakes that loop. Any thread."""
    if not callable(fn):
        raise TypeError("perform() needs a callable")
    target = loop if loop is not None else current()
    info = _performs.register(fn)
    try:
        call(_lib.QZRunLoopPerformFunction, target, _mode(mode), _perform_thunk, info)
    except BaseException:
        _performs.pop(info)
        raise


# MARK: - Timers

_timers = Targets("Exception ignored in a run-loop timer callback")


@_lib.CFRunLoopTimerCallBack  # type: ignore[misc]  # a ctypes callback type made at import time
def _timer_thunk(timer_ref: Optional[int], info: Optional[int]) -> None:
    _timers.call(Timer, timer_ref, info)


@_lib.QZInfoReleaseCallback  # type: ignore[misc]  # a ctypes callback type made at import time
def _timer_release(info: Optional[int]) -> None:
    _timers.release(info)


def _as_timer(timer: Timer) -> Timer:
    if not isinstance(timer, Timer):
        raise TypeError(f"expected a run_loop.Timer, got {type(timer).__name__}")
    return timer


class Timer(Handle):
    """A run-loop timer (CFRunLoopTimerCreate) calling ``callback(timer)``.

    It fires first at ``fire_date`` (media time), by default ``interval``
    seconds from now (or at once for a one-shot timer), then every
    ``interval`` seconds if ``interval`` > 0; missed firings are skipped. A
    one-shot timer is invalidated after it fires. It does nothing until added
    to a run loop (:meth:`add_to_run_loop`). The callable is kept alive until
    :meth:`invalidate`.
    """

    __slots__ = ()
    _type_name = "CFRunLoopTimerRef"

    def __init__(self, callback: Callable[[Timer], None], interval: float = 0.0, fire_date: Optional[float] = None) -> None:
        if not callable(callback):
            raise TypeError("Timer needs a callable")
        interval = float(interval)
        if fire_date is None:
            fire_date = current_media_time() + max(interval, 0.0)
        info = next_id()
        self._ref = call(_lib.CFRunLoopTimerCreate, float(fire_date), interval, _timer_thunk, info)
        _timers.add(info, callback, self)
        call(_lib.QZRunLoopTimerSetInfoRelease, self, _timer_release)

    def add_to_run_loop(self, loop: Optional[RunLoop] = None, mode: str = DEFAULT_MODE) -> None:
        """CFRunLoopAddTimer on ``loop`` (default: the calling thread's)."""
        (loop or current()).add_timer(self, mode)

    def remove_from_run_loop(self, loop: Optional[RunLoop] = None, mode: str = DEFAULT_MODE) -> None:
        """CFRunLoopRemoveTimer on ``loop`` (default: the calling thread's)."""
        (loop or current()).remove_timer(self, mode)

    def invalidate(self) -> None:
        """CFRunLoopTimerInvalidate: stops the timer for good and drops the callable."""
        call(_lib.CFRunLoopTimerInvalidate, self)

    @property
    def valid(self) -> bool:
        return bool(call(_lib.CFRunLoopTimerIsValid, self))

    @property
    def interval(self) -> float:
        return call(_lib.CFRunLoopTimerGetInterval, self)

    @property
    def repeats(self) -> bool:
        return bool(call(_lib.CFRunLoopTimerDoesRepeat, self))

    @property
    def next_fire_date(self) -> float:
        """The media time of the next firing (settable)."""
        return call(_lib.CFRunLoopTimerGetNextFireDate, self)

    @next_fire_date.setter
    def next_fire_date(self, value: float) -> None:
        call(_lib.CFRunLoopTimerSetNextFireDate, self, float(value))
