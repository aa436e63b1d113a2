"""The binding's bookkeeping for C callbacks that carry an ``info`` pointer.

The binding passes small integers as ``info`` and keeps the Python callable
behind each in a table until the library is done with it. One counter gives
every such integer in the process (:func:`next_id`); :class:`Registry` holds
callables until they are popped (a callback that runs once, or a release
callback); :class:`Targets` holds the callable and a weak reference to the
wrapper object of a handle whose callback receives that handle.
"""
import itertools
import threading
import weakref

# Every info integer the binding hands to C (never 0, never reused).
next_id = itertools.count(1).__next__


class Registry:
    """info -> Python object, from :meth:`register` until :meth:`pop`."""

    __slots__ = ("_entries", "_lock")

    def __init__(self):
        self._entries = {}
        self._lock = threading.Lock()

    def register(self, obj):
        """Stores `obj` under a new info integer and returns it."""
        key = next_id()
        with self._lock:
            self._entries[key] = obj
        return key

    def get(self, key):
        with self._lock:
            return self._entries.get(key)

    def pop(self, key):
        """Removes and returns the object for `key` (None when gone): a
        callback that runs once gets its callable exactly once."""
        try:
            with self._lock:
                return self._entries.pop(key, None)
        except BaseException:  # noqa: BLE001 -- may run at interpreter exit
            return None

    def __contains__(self, key):
        with self._lock:
            return key in self._entries

    def __len__(self):
        with self._lock:
            return len(self._entries)


class Targets:
    """The Python callables behind one kind of C callback with an info
    pointer whose first argument is a handle (run-loop timers, display
    links): info -> (callable, weakref to the wrapper), from creation until
    the library releases the info."""

    def __init__(self, message):
        self._entries = {}
        self._message = message

    def add(self, info, callback, wrapper):
        self._entries[info] = (callback, weakref.ref(wrapper))

    def call(self, cls, ref, info):
        """Calls the callable for `info` with the wrapper of handle `ref`
        (a new wrapper when the original is gone or was closed)."""
        from .layer import _run_callback   # layer imports this module
        entry = self._entries.get(info)
        if entry is None:
            return
        fn, wrapper_ref = entry
        obj = wrapper_ref()
        if obj is None or obj._ref != ref:
            obj = cls.from_handle(ref)
        _run_callback(self._message, fn, lambda: fn(obj))

    def release(self, info):
        try:
            self._entries.pop(info, None)
        except BaseException:  # noqa: BLE001 -- may run at interpreter exit
            pass
