"""CATransaction and CAAction from Python.

``with quartzite.transaction(duration=0.5, disable_actions=False,
timing_function="easeIn", completion=callable):`` opens an explicit
transaction (CATransactionBegin), sets its properties, and commits it when the
block ends. The class also holds the module functions as static methods
(``quartzite.transaction.flush()``, ``.begin()``, ``.commit()``, ``.lock()``,
``.unlock()``, ``.get_animation_duration()``, ...), and each exists at module
level too (``quartzite.transaction_flush()`` ...).

Every thread has its own transactions. A layer change made without an
explicit transaction opens the thread's implicit transaction, which commits at
the end of the thread's run-loop turn, in :func:`process_animation_events`
(what a host's frame loop calls once per frame), or with :func:`flush`.
Presentation layers show only committed changes; model getters show changes
at once.

Callbacks (completions and custom actions made from Python callables) run on
the thread named in the C header: a completion on the thread that committed
its transaction, during that thread's process_animation_events (or run-loop
turn); an action on the thread that triggered it. Exceptions they raise are
reported through ``sys.unraisablehook``. The binding keeps their Python
callables alive: a completion until it has run or its (Python) thread ends;
an action until the library frees it (its release callback). Completions
set on one transaction accumulate (each runs once).
"""
from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Callable, Literal, Optional, Set, Union, cast

from . import _lib
from ._callbacks import Registry
from .errors import call
from .handle import Handle
from .layer import Layer, _run_callback

if TYPE_CHECKING:
    from .animation import TimingFunction

#: A custom action: called with the key, the layer and the arguments (or None).
ActionFunction = Callable[[str, Layer, Any], None]

__all__ = [
    "Action", "transaction", "begin", "commit", "flush", "lock", "unlock",
    "get_animation_duration", "set_animation_duration", "get_disable_actions",
    "set_disable_actions", "get_animation_timing_function", "set_animation_timing_function",
    "set_completion", "value", "set_value", "null_action", "action_for_key", "run_action",
]

# info -> Python callable, for callbacks the library holds. The integers are
# the `info` pointers passed to C; entries go when C is done with them: a
# completion when it runs or its thread ends (set_completion); an action when
# the library releases it.
_completions = Registry()
_actions = Registry()


class _ThreadCompletions:
    """The completions set from Python on one Python thread and not yet run.
    A completion runs only on the thread that set it,
    and the library drops those still owed when the thread exits; this object
    lives in a threading.local, so it goes with the thread and releases them."""

    __slots__ = ("keys",)

    def __init__(self) -> None:
        self.keys: Set[Optional[int]] = set()

    def __del__(self) -> None:
        try:
            for key in self.keys:
                _completions.pop(key)
        except BaseException:  # noqa: BLE001 -- may run at interpreter exit
            pass


_thread_completions = threading.local()


def _completions_of_this_thread() -> Optional[_ThreadCompletions]:
    """This thread's _ThreadCompletions, or None on a thread Python did not
    start: there a callback's Python thread state (and its threading.local)
    may end when the callback returns, long before the thread does."""
    holder = getattr(_thread_completions, "holder", None)
    if holder is None and not isinstance(threading.current_thread(), threading._DummyThread):
        holder = _thread_completions.holder = _ThreadCompletions()
    return holder


def _forget_completion(key: Optional[int]) -> Optional[Callable[[], None]]:
    """The library will not call completion `key` again: drop its callable."""
    holder = getattr(_thread_completions, "holder", None)
    if holder is not None:
        holder.keys.discard(key)
    return _completions.pop(key)


def _run_completion(info: Optional[int]) -> None:
    fn = _forget_completion(info)   # exactly once
    if fn is not None:
        _run_callback("Exception ignored in a transaction completion", fn, fn)


def _run_action(key: bytes, layer: Optional[int], arguments: Optional[int], info: Optional[int]) -> None:
    fn = _actions.get(info)
    if fn is None:
        return

    def body() -> None:
        from .layer import _wrap
        from .values import from_value
        fn(key.decode("utf-8", "replace"), _wrap(layer), from_value(arguments) if arguments else None)
    _run_callback("Exception ignored in a CAAction", fn, body)


def _release_action(info: Optional[int]) -> None:
    _actions.pop(info)


# One thunk of each kind for the life of the process (the info says which callable).
_COMPLETION_THUNK = cast(Any, _lib.CATransactionCompletionCallback)(_run_completion)
_ACTION_THUNK = cast(Any, _lib.CAActionCallback)(_run_action)
_RELEASE_THUNK = cast(Any, _lib.CAActionReleaseCallback)(_release_action)


class Action(Handle):
    """A custom action (CAActionCreateWithRelease) that calls
    ``run(key, layer, arguments)`` when it runs: when the property or event it
    is installed for (``layer.actions = {"opacity": action}``, a delegate's
    ``action_for_layer_for_key``) changes, or through :meth:`run`. ``layer`` is
    the :class:`Layer`, ``arguments`` a Python value or None. The callable is
    kept until the library frees the action."""

    _type_name = "CAActionRef"

    def __init__(self, run: ActionFunction) -> None:
        if not callable(run):
            raise TypeError(f"Action needs a callable, not {type(run).__name__}")
        key = _actions.register(run)
        try:
            self._ref = call(_lib.CAActionCreateWithRelease, _ACTION_THUNK, key, _RELEASE_THUNK)
        except BaseException:
            _actions.pop(key)
            raise

    def run(self, key: str, layer: Layer, arguments: Any = None) -> None:
        """CAActionRunForKey: runs the action for `key` on `layer`."""
        run_action(self, key, layer, arguments)


class _NullAction(Action):
    """QZActionNull: the immortal action that stops the action search."""

    def __init__(self) -> None:  # noqa: D107 -- wraps the shared object, owns no reference
        self._ref = _lib.QZActionNull()

    def close(self) -> None:
        self._ref = None


_null = None


def null_action() -> Action:
    """The shared QZActionNull (return it from ``action_for_layer_for_key`` or
    put it in ``layer.actions`` to stop the search without an action)."""
    global _null
    if _null is None:
        _null = _NullAction()
    return _null


def run_action(action: Any, key: str, layer: Layer, arguments: Any = None) -> None:
    """CAActionRunForKey: an animation is added to `layer` under `key`; a
    custom action's callable is called."""
    from .values import to_value   # a +1 CAValueRef
    args = to_value(arguments) if arguments is not None else None
    try:
        call(_lib.CAActionRunForKey, action, key.encode(), layer, args)
    finally:
        if args is not None:
            _lib.CARelease(args)


def action_for_key(layer: Layer, key: str) -> Any:
    """CALayerGetActionForKey: the action the search finds for `key` (an
    animation object for the implicit animation or an animation action, an
    :class:`Action` for a custom one), or None."""
    ref = call(_lib.CALayerGetActionForKey, layer, key.encode())
    if not ref:
        return None
    if ref == _lib.QZActionNull():
        return null_action()
    type_name = _lib.QZGetTypeName(ref)
    if type_name and type_name.decode() == "CAAction":
        return Action.from_handle(ref)
    from .animation import _wrap
    return _wrap(ref)


# MARK: - Transactions

def begin() -> None:
    """CATransactionBegin: opens an explicit transaction on this thread."""
    call(_lib.CATransactionBegin)


def commit() -> None:
    """CATransactionCommit (InvalidStateError when none is open)."""
    call(_lib.CATransactionCommit)


def flush() -> None:
    """CATransactionFlush: commits this thread's implicit transaction (when
    explicit ones are open, once they close)."""
    call(_lib.CATransactionFlush)


def lock() -> None:
    """CATransactionLock (recursive)."""
    call(_lib.CATransactionLock)


def unlock() -> None:
    """CATransactionUnlock (InvalidStateError when this thread holds no lock)."""
    call(_lib.CATransactionUnlock)


def get_animation_duration() -> float:
    return call(_lib.CATransactionGetAnimationDuration)


def set_animation_duration(seconds: float) -> None:
    call(_lib.CATransactionSetAnimationDuration, float(seconds))


def get_disable_actions() -> bool:
    return bool(call(_lib.CATransactionGetDisableActions))


def set_disable_actions(disable: bool) -> None:
    call(_lib.CATransactionSetDisableActions, bool(disable))


def get_animation_timing_function() -> Optional[TimingFunction]:
    """The TimingFunction set on the current transactions, or None."""
    ref = call(_lib.CATransactionGetAnimationTimingFunction)
    if not ref:
        return None
    from .animation import TimingFunction
    return TimingFunction.from_handle(ref)


def set_animation_timing_function(function: Union[TimingFunction, str, None]) -> None:
    """A TimingFunction, a name ("easeIn", ...) or None (the default)."""
    from .animation import _as_timing_function
    f = _as_timing_function(function, "timing_function") if function is not None else None
    call(_lib.CATransactionSetAnimationTimingFunction, f)


def set_completion(fn: Optional[Callable[[], None]]) -> None:
    """CATransactionSetCompletionBlock with a Python callable (no arguments),
    called once on this thread after the animations added from now on in the
    transaction end (at the end of a run-loop turn or in
    process_animation_events). Completions accumulate, as observed on
    Apple's QuartzCore: setting another keeps the earlier one, and each runs
    once; None sets nothing and cancels nothing. The binding drops the
    callable once it ran or its thread ended (a Python thread; on a thread
    started outside Python a completion left unrun when the thread exits
    stays held)."""
    if fn is not None and not callable(fn):
        raise TypeError(f"completion must be callable, not {type(fn).__name__}")
    if fn is None:
        return
    key = _completions.register(fn)
    try:
        call(_lib.CATransactionSetCompletionBlock, _COMPLETION_THUNK, key)
    except BaseException:
        _completions.pop(key)
        raise
    holder = _completions_of_this_thread()
    if holder is not None:
        holder.keys.add(key)


def value(key: str) -> Any:
    """CATransactionCopyValueForKey, searched outwards (None when unset)."""
    from .layer import _take_value
    return _take_value(call(_lib.CATransactionCopyValueForKey, key.encode()))


def set_value(key: str, v: Any) -> None:
    """CATransactionSetValueForKey on the innermost transaction."""
    from .values import to_value
    boxed = to_value(v) if v is not None else None
    try:
        call(_lib.CATransactionSetValueForKey, key.encode(), boxed)
    finally:
        if boxed is not None:
            _lib.CARelease(boxed)


class transaction:  # noqa: N801 -- reads like Apple's CATransaction in a with statement
    """``with transaction(duration=..., disable_actions=..., timing_function=...,
    completion=...):`` -- an explicit transaction around the block (committed
    even when the block raises)."""

    begin = staticmethod(begin)
    commit = staticmethod(commit)
    flush = staticmethod(flush)
    lock = staticmethod(lock)
    unlock = staticmethod(unlock)
    get_animation_duration = staticmethod(get_animation_duration)
    set_animation_duration = staticmethod(set_animation_duration)
    get_disable_actions = staticmethod(get_disable_actions)
    set_disable_actions = staticmethod(set_disable_actions)
    get_animation_timing_function = staticmethod(get_animation_timing_function)
    set_animation_timing_function = staticmethod(set_animation_timing_function)
    set_completion = staticmethod(set_completion)
    value = staticmethod(value)
    set_value = staticmethod(set_value)

    def __init__(self, duration: Optional[float] = None, disable_actions: Optional[bool] = None, timing_function: Union[TimingFunction, str, None] = None, completion: Optional[Callable[[], None]] = None) -> None:
        self._duration = duration
        self._disable_actions = disable_actions
        self._timing_function = timing_function
        self._completion = completion

    def __enter__(self) -> transaction:
        begin()
        try:
            if self._duration is not None:
                set_animation_duration(self._duration)
            if self._disable_actions is not None:
                set_disable_actions(self._disable_actions)
            if self._timing_function is not None:
                set_animation_timing_function(self._timing_function)
            if self._completion is not None:
                set_completion(self._completion)
        except BaseException:
            commit()
            raise
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        commit()
        return False
