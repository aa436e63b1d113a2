"""Animations: CAMediaTimingFunction and the CAAnimation class tree.

Classes (Apple's tree; every property is a snake_case Python property)::

    TimingFunction                      CAMediaTimingFunction
    Animation                           CAAnimation (Animation() is Apple's
                                        +[CAAnimation animation]: a timing
                                        object with no effect of its own)
        PropertyAnimation               CAPropertyAnimation (abstract)
            BasicAnimation              CABasicAnimation
                SpringAnimation         CASpringAnimation
            KeyframeAnimation           CAKeyframeAnimation
        AnimationGroup                  CAAnimationGroup
        Transition                      CATransition

Configure an animation, then add it to a layer, which runs a *copy* of it
(CALayerAddAnimation): changing the Python object afterwards changes nothing
on the layer (a group's children excepted: a group holds the very
animations it was given, and its copies share them, as on Apple's QuartzCore)::

    move = BasicAnimation("position.x", from_value=0, to_value=100, duration=1,
                          timing_function=TimingFunction.named("easeInEaseOut"))
    layer.add_animation(move, "move")
    layer.presentation().position.x      # the animated value, now

Animated values are Python values converted with :func:`to_value`: numbers,
and Point, Size, Rect, Transform3D, AffineTransform, Color for structured
properties (a tuple converts to an array, not to a point).

The animations a layer runs (``layer.animation(key)``, the ``anim`` argument
of delegate messages) are read-only, as Apple's are: their setters raise
InvalidStateError. The children of a group are the very animations it was
given (shared with the copy a layer runs), so the objects you made stay
writable, and changing one changes the running group too.

Delegates are plain Python objects with optional methods::

    class Delegate:
        def animation_did_start(self, anim): ...
        def animation_did_stop(self, anim, finished): ...

    move.delegate = Delegate()

The animation and every copy made of it (the one a layer runs) share the
delegate, which stays alive until the library drops the last of them.
Messages are delivered by :func:`process_animation_events` (the run loop
calls it on every turn; hosts with their own frame loop call it once per
frame), on the calling thread; an exception raised by a delegate is
reported through ``sys.unraisablehook``.

Floating-point properties that Apple declares as ``float`` (speed,
repeat_count, start_progress, end_progress and the control points) read back
as the shortest decimal that rounds to the stored float, so ``speed = 0.1``
reads ``0.1``.

Key-value coding: ``anim["duration"]``, ``anim["myKey"] = {...}``
(CAAnimationCopyValueForKey / CAAnimationSetValueForKey).
"""
import ctypes
import math
import numbers
import struct
import weakref

from . import _lib, path as _path, values as _values
from .errors import ErrorCode, InvalidStateError, WrongTypeError, call
from .handle import Handle
from .layer import _decode, _make_value, _number, _run_callback, _take_value, _utf8, _wrong_type

__all__ = [
    "TimingFunction", "Animation", "PropertyAnimation", "BasicAnimation", "KeyframeAnimation",
    "AnimationGroup", "Transition", "SpringAnimation", "process_animation_events",
]


# MARK: - Helpers


def _float32(value):
    """The shortest decimal that rounds to the same float32 as `value` (a
    value read from a C `float`), so that 0.1 stored reads back as 0.1."""
    if not math.isfinite(value):
        return value
    try:
        packed = struct.pack("<f", value)
        for digits in range(1, 10):
            candidate = float(f"{value:.{digits}g}")
            if struct.pack("<f", candidate) == packed:
                return candidate
    except OverflowError:
        pass
    return value


def _flag(value, what):
    if not isinstance(value, numbers.Real):
        raise _wrong_type(what, "a bool", value)
    return bool(value)


def _optional_text(value, what):
    return None if value is None else _utf8(value, what)


def _type_name(ref):
    name = _lib.QZGetTypeName(ref) if ref else None
    return name.decode("ascii", "replace") if name else None


# MARK: - CAMediaTimingFunction


class TimingFunction(Handle):
    """A CAMediaTimingFunction: the cubic Bezier from (0, 0) to (1, 1) with
    control points (c1x, c1y) and (c2x, c2y) that paces an animation.

    ``TimingFunction(0.42, 0, 0.58, 1)`` makes one from control points (x in
    [0, 1], all finite, else InvalidArgumentError / NotFiniteError);
    ``TimingFunction.named("easeIn")`` one of Apple's predefined curves
    ("linear", "easeIn", "easeOut", "easeInEaseOut", "default"; the class
    constants LINEAR, EASE_IN, EASE_OUT, EASE_IN_EASE_OUT, DEFAULT).
    ``f(x)`` is the curve's output for input time x (clamped to [0, 1]).
    Timing functions are immutable; ``==`` compares control points.
    """

    __slots__ = ()
    _type_name = "CAMediaTimingFunctionRef"

    def __init__(self, c1x, c1y, c2x, c2y):
        self._ref = None
        points = [_number(v, "TimingFunction") for v in (c1x, c1y, c2x, c2y)]
        ref = call(_lib.CAMediaTimingFunctionCreateWithControlPoints, *points)
        if not ref:
            raise MemoryError("the library returned NULL without recording an error")
        self._ref = ref

    @classmethod
    def adopt(cls, ref):
        """Takes over a +1 CAMediaTimingFunctionRef (another kind of handle
        is released and raises WrongTypeError)."""
        if ref and _type_name(ref) != "CAMediaTimingFunction":
            name = _type_name(ref)
            _lib.CARelease(ref)
            raise WrongTypeError(ErrorCode.WRONG_TYPE, f"the handle is a {name}, not a CAMediaTimingFunction")
        return super().adopt(ref)

    @classmethod
    def named(cls, name):
        """One of Apple's predefined timing functions by name
        (kCAMediaTimingFunction*); an unknown name raises UnknownConstantError."""
        ref = call(_lib.CAMediaTimingFunctionCreateWithName, _utf8(name, "TimingFunction.named"))
        if not ref:
            raise MemoryError("the library returned NULL without recording an error")
        return cls.adopt(ref)

    def control_point(self, index):
        """Control point `index` as (x, y): 0 is (0, 0), 1 is c1, 2 is c2, 3
        is (1, 1); another index raises OutOfRangeError."""
        if not isinstance(index, numbers.Integral):
            raise _wrong_type("control_point", "an int index", index)
        if index < 0:
            index = 4  # out of range for the library, which raises
        values = (ctypes.c_float * 2)()
        call(_lib.CAMediaTimingFunctionGetControlPointAtIndex, self, int(index), values)
        return (_float32(values[0]), _float32(values[1]))

    @property
    def control_points(self):
        """The four control points as (x, y) tuples, (0, 0) and (1, 1) included."""
        return [self.control_point(i) for i in range(4)]

    def __call__(self, x):
        """QZMediaTimingFunctionSolve: the output for input time x."""
        return call(_lib.QZMediaTimingFunctionSolve, self, _number(x, "a timing function's input"))

    solve = __call__

    def __eq__(self, other):
        if not isinstance(other, TimingFunction):
            return NotImplemented
        return self.control_points == other.control_points

    def __hash__(self):
        return hash(tuple(self.control_points))

    def __repr__(self):
        if self._ref is None:
            return "TimingFunction(<closed>)"
        (_, _), (c1x, c1y), (c2x, c2y), (_, _) = self.control_points
        return f"TimingFunction({c1x!r}, {c1y!r}, {c2x!r}, {c2y!r})"


def _timing_function_from_object(ref):
    if _type_name(ref) == "CAMediaTimingFunction":
        return TimingFunction.from_handle(ref)
    return None


def _as_timing_function(value, what):
    if value is None or isinstance(value, TimingFunction):
        return value
    if isinstance(value, str):
        return TimingFunction.named(value)
    raise _wrong_type(what, "a TimingFunction, a timing function name or None", value)


# MARK: - From handles to Python objects

# handle -> the live Python object wrapping it (same scheme as layers: an
# entry is trusted only while the object still owns that handle).
_live_animations = weakref.WeakValueDictionary()
_CLASSES = {}  # C type name -> Python class, filled in below


def _lookup(ref):
    obj = _live_animations.get(ref)
    if obj is not None and obj._ref == ref:
        return obj
    return None


def _new_wrapper(ref, cls, read_only):
    """A `cls` owning the +1 reference `ref`, registered as its wrapper."""
    obj = cls.__new__(cls)
    obj._ref = ref
    obj._read_only = read_only
    obj._delegate_info = None
    existing = _lookup(ref)  # another thread may have wrapped it meanwhile
    if existing is not None:
        obj.close()
        return existing
    _live_animations[ref] = obj
    return obj


def _class_of(ref):
    name = _type_name(ref)
    cls = _CLASSES.get(name)
    if cls is None:
        raise WrongTypeError(ErrorCode.WRONG_TYPE, f"the handle is a {name or 'non-Quartzite pointer'}, "
                                                   "not an animation")
    return cls


def _wrap(ref, read_only=False):
    """An Animation for a borrowed reference (None for NULL)."""
    if not ref:
        return None
    existing = _lookup(ref)
    if existing is not None:
        return existing
    cls = _class_of(ref)
    return _new_wrapper(call(_lib.CARetain, ref), cls, read_only)


def _animation_from_object(ref):
    """values.from_value's converter for object values: an Animation for an animation."""
    if _type_name(ref) in _CLASSES:
        return _wrap(ref)
    return None


def _as_animation(value, what):
    if not isinstance(value, Animation):
        raise _wrong_type(what, "an Animation", value)
    if value._ref is None:
        raise ValueError(f"{what}: the animation is closed")
    return value


# MARK: - Delegates

# info -> the Python delegate object, from CAAnimationSetDelegate until the
# library calls release(info) (when the last animation sharing it is freed
# or the delegate is replaced).
_delegates = {}
_next_info = iter(range(1, 2**62)).__next__
_DELEGATE_FIELDS = dict(_lib.CAAnimationDelegateCallbacks._fields_)


def _callback_animation(anim, info):
    """The running copy a delegate message is about; it shares the delegate,
    so its ``delegate`` property answers too."""
    obj = _wrap(anim, read_only=True)
    if obj is not None and getattr(obj, "_delegate_info", None) is None:
        obj._delegate_info = info
    return obj


# The thunks are module-level, alive for the life of the process: the library
# may call them (release in particular) on any thread until it drops the table.
@_DELEGATE_FIELDS["animationDidStart"]
def _delegate_did_start(anim, info):
    delegate = _delegates.get(info)
    if delegate is None:
        return
    _run_callback("Exception ignored in an animation delegate's animation_did_start", delegate,
                  lambda: delegate.animation_did_start(_callback_animation(anim, info)))


@_DELEGATE_FIELDS["animationDidStop"]
def _delegate_did_stop(anim, finished, info):
    delegate = _delegates.get(info)
    if delegate is None:
        return
    _run_callback("Exception ignored in an animation delegate's animation_did_stop", delegate,
                  lambda: delegate.animation_did_stop(_callback_animation(anim, info), bool(finished)))


@_DELEGATE_FIELDS["release"]
def _delegate_release(info):
    try:
        _delegates.pop(info, None)
    except BaseException:  # noqa: BLE001 -- also runs at interpreter exit
        pass


def process_animation_events():
    """QZAnimationProcessEvents: delivers the animation events due by the
    current media time (animation_did_start for animations that began,
    animation_did_stop for those that ended or were removed; each exactly
    once) on the calling thread, and removes finished animations whose
    removed_on_completion is set. Like the end of a run-loop turn, it first
    commits this thread's implicit transaction (animations added with
    begin_time 0 start then) and last runs the transaction completions owed
    to this thread."""
    call(_lib.QZAnimationProcessEvents)


# MARK: - Property factories


def _setter_check(self):
    if self._ref is None:
        raise ValueError(f"the {type(self).__name__} is closed")
    if getattr(self, "_read_only", False):
        raise InvalidStateError(ErrorCode.INVALID_STATE,
                                f"this {type(self).__name__} is the copy a layer runs and is read-only")


def _prop(getter, setter, doc):
    def fset(self, value):
        _setter_check(self)
        setter(self, value)
    return property(getter, fset, doc=doc)


def _double_prop(name, function, doc):
    get, set_ = getattr(_lib, f"CAAnimationGet{function}"), getattr(_lib, f"CAAnimationSet{function}")
    return _prop(lambda self: call(get, self), lambda self, v: call(set_, self, _number(v, name)), doc)


def _float_prop(name, cls, function, doc):
    get, set_ = getattr(_lib, f"{cls}Get{function}"), getattr(_lib, f"{cls}Set{function}")
    return _prop(lambda self: _float32(call(get, self)), lambda self, v: call(set_, self, _number(v, name)), doc)


def _bool_prop(name, cls, function, doc):
    get, set_ = getattr(_lib, f"{cls}Get{function}"), getattr(_lib, f"{cls}Set{function}")
    return _prop(lambda self: call(get, self), lambda self, v: call(set_, self, _flag(v, name)), doc)


def _string_prop(name, cls, function, doc):
    """A constant-string property. None is passed on as NULL: it clears the
    optional ones and raises NullArgumentError for the others."""
    get, set_ = getattr(_lib, f"{cls}Get{function}"), getattr(_lib, f"{cls}Set{function}")
    return _prop(lambda self: _decode(call(get, self)),
                 lambda self, value: call(set_, self, _optional_text(value, name)), doc)


def _kvc_prop(name, key, setter_name, doc):
    """A boxed-value property read through key-value coding (+1, race-free)
    and written with its typed setter; None clears it."""
    key = key.encode("utf-8")
    set_ = getattr(_lib, setter_name)

    def fset(self, value):
        if value is None:
            call(set_, self, None)
            return
        ref = _make_value(value, name)
        try:
            call(set_, self, ref)
        finally:
            _lib.CARelease(ref)
    return _prop(lambda self: _take_value(call(_lib.CAAnimationCopyValueForKey, self, key)), fset, doc)


def _numbers_prop(name, key, setter_name, doc):
    """A list-of-numbers property of CAKeyframeAnimation that the C API can
    set but not read (tension, continuity and bias values). Python keeps a
    mirror under Apple's key-value coding key, which travels with the copies
    the library makes (CALayerAddAnimation, groups)."""
    c_key = key.encode("utf-8")
    set_ = getattr(_lib, setter_name)

    def fget(self):
        found = _take_value(call(_lib.CAAnimationCopyValueForKey, self, c_key))
        return list(found) if isinstance(found, list) else None

    def fset(self, value):
        if value is None:
            call(set_, self, None)
            call(_lib.CAAnimationSetValueForKey, self, c_key, None)
            return
        if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
            raise _wrong_type(name, "a list of numbers or None", value)
        items = [_number(v, name) for v in value]
        ref = _make_value(items, name)
        try:
            call(set_, self, ref)
            call(_lib.CAAnimationSetValueForKey, self, c_key, ref)
        finally:
            _lib.CARelease(ref)
    return _prop(fget, fset, doc)


# MARK: - CAAnimation


class Animation(Handle):
    """CAAnimation, the base of the animation classes. ``Animation(duration=1)``
    itself makes a plain CAAnimation (CAAnimationCreate, Apple's
    +[CAAnimation animation]): a timing object with a delegate and no effect
    of its own, usable in a group or as an action; added to a layer it
    changes nothing, but its delegate hears animation_did_start and
    animation_did_stop. For effects make a BasicAnimation,
    KeyframeAnimation, AnimationGroup or Transition.

    CAMediaTiming properties: begin_time, duration, speed, time_offset,
    repeat_count (math.inf repeats forever), repeat_duration, autoreverses,
    fill_mode; CAAnimation's: timing_function, removed_on_completion,
    delegate. Every constructor takes these as keyword arguments.
    ``==`` is identity of the underlying CAAnimationRef.
    """

    __slots__ = ("_read_only", "_delegate_info")
    _type_name = "CAAnimationRef"
    _c_type = "CAAnimation"  # the C class name (QZGetTypeName) of a concrete class

    def __init__(self, **properties):
        if type(self) is Animation:
            self._init(_lib.CAAnimationCreate, (), properties)
            return
        self._ref = None
        raise TypeError(f"{type(self).__name__} is abstract: make a BasicAnimation, KeyframeAnimation, "
                        "AnimationGroup, Transition or a plain Animation")

    def _init(self, create, args, properties):
        """Creates the C object with ``create(*args)`` and sets `properties`."""
        self._ref = None
        self._read_only = False
        self._delegate_info = None
        ref = call(create, *args)
        if not ref:
            raise MemoryError("the library returned NULL without recording an error")
        self._ref = ref
        _live_animations[ref] = self
        self._configure(properties)

    def _configure(self, properties):
        cls = type(self)
        for name, value in properties.items():
            if name.startswith("_") or not isinstance(getattr(cls, name, None), property):
                raise TypeError(f"{cls.__name__}() got an unexpected keyword argument {name!r}")
            setattr(self, name, value)

    # MARK: Handles and identity

    @classmethod
    def adopt(cls, ref):
        """Takes over a +1 CAAnimationRef; returns the existing Python object
        for it if there is one (then the reference is released)."""
        if not ref:
            raise ValueError(f"a NULL {cls._type_name}")
        existing = _lookup(ref)
        if existing is not None:
            _lib.CARelease(ref)
            return cls._checked(existing)
        try:
            kind = _class_of(ref)
        except BaseException:
            _lib.CARelease(ref)
            raise
        return cls._checked(_new_wrapper(ref, kind, False))

    @classmethod
    def from_handle(cls, ref):
        """Wraps a borrowed CAAnimationRef as the right class, adding a
        reference of its own."""
        if not ref:
            raise ValueError(f"a NULL {cls._type_name}")
        return cls._checked(_wrap(ref))

    @classmethod
    def _checked(cls, obj):
        if not isinstance(obj, cls):
            raise WrongTypeError(ErrorCode.WRONG_TYPE, f"the animation is a {type(obj).__name__}, not a {cls.__name__}")
        return obj

    @property
    def class_name(self):
        """The C class: "CAAnimation", "CABasicAnimation", "CAKeyframeAnimation",
        "CAAnimationGroup" or "CATransition"."""
        return _type_name(self._ref)

    @property
    def read_only(self):
        """True for the animations a layer runs (their setters raise InvalidStateError)."""
        return getattr(self, "_read_only", False)

    def __eq__(self, other):
        if not isinstance(other, Animation):
            return NotImplemented
        return self._ref is not None and self._ref == other._ref

    def __hash__(self):
        return hash(self._ref)

    def __repr__(self):
        if self._ref is None:
            return f"{type(self).__name__}(<closed>)"
        return f"<{type(self).__name__} 0x{self._ref:x}{self._repr_detail()}>"

    def _repr_detail(self):
        return ""

    # MARK: CAMediaTiming

    begin_time = _double_prop("begin_time", "BeginTime",
                              "Start time in the parent's time space (default 0: when added to a layer).")
    duration = _double_prop("duration", "Duration",
                            "Duration of one pass (default 0: 0.25 s once added to a layer).")
    speed = _float_prop("speed", "CAAnimation", "Speed", "Rate of time (default 1; a float).")
    time_offset = _double_prop("time_offset", "TimeOffset",
                               "Offset into the active interval, wrapping around its end (default 0).")
    repeat_count = _float_prop("repeat_count", "CAAnimation", "RepeatCount",
                               "Number of cycles, fractions allowed (default 0: once; math.inf: forever; a float).")
    repeat_duration = _double_prop("repeat_duration", "RepeatDuration",
                                   "Length of the active interval, overriding repeat_count (default 0).")
    autoreverses = _bool_prop("autoreverses", "CAAnimation", "Autoreverses",
                              "Whether each cycle plays forwards then backwards (default False).")
    fill_mode = _string_prop("fill_mode", "CAAnimation", "FillMode",
                             'What shows outside the active interval: "removed" (default), "forwards", '
                             '"backwards" or "both" (kCAFillMode*).')

    # MARK: CAAnimation

    @property
    def timing_function(self):
        """The pacing curve as a TimingFunction, or None (default: linear).
        Accepts a TimingFunction, a name ("easeIn", ...) or None."""
        ref = call(_lib.CAAnimationCopyValueForKey, self, b"timingFunction")  # +1: no borrowed pointer
        if not ref:
            return None
        try:
            if call(_lib.CAValueGetType, ref) != _lib.CAValueTypeObject:
                return None
            return TimingFunction.from_handle(call(_lib.CAValueGetObject, ref))
        finally:
            _lib.CARelease(ref)

    @timing_function.setter
    def timing_function(self, function):
        _setter_check(self)
        call(_lib.CAAnimationSetTimingFunction, self, _as_timing_function(function, "timing_function"))

    removed_on_completion = _bool_prop("removed_on_completion", "CAAnimation", "RemovedOnCompletion",
                                       "Whether the animation leaves the layer when it completes (default True).")

    @property
    def delegate(self):
        """The delegate set from Python on this object, or None. Its methods
        (each optional): animation_did_start(anim), animation_did_stop(anim,
        finished). The animation and its copies (the one a layer runs) share
        it and keep it alive; None removes it. (The C API cannot read a
        delegate back, so the copy a layer runs answers only once a delegate
        message has been delivered about it.)"""
        info = getattr(self, "_delegate_info", None)
        return _delegates.get(info) if info is not None else None

    @delegate.setter
    def delegate(self, obj):
        _setter_check(self)
        if obj is None:
            call(_lib.CAAnimationSetDelegate, self, None, None)
            self._delegate_info = None
            return
        table = _lib.CAAnimationDelegateCallbacks()
        table.version = 0
        if callable(getattr(obj, "animation_did_start", None)):
            table.animationDidStart = _delegate_did_start
        if callable(getattr(obj, "animation_did_stop", None)):
            table.animationDidStop = _delegate_did_stop
        table.release = _delegate_release
        info = _next_info()
        _delegates[info] = obj
        try:
            call(_lib.CAAnimationSetDelegate, self, ctypes.byref(table), info)
        except BaseException:
            _delegates.pop(info, None)
            raise
        self._delegate_info = info  # the previous delegate's release already ran, or runs with the last copy

    # MARK: Key-value coding

    def __getitem__(self, key):
        """``anim["duration"]``: CAAnimationCopyValueForKey converted to
        Python; None when nothing is there."""
        return _take_value(call(_lib.CAAnimationCopyValueForKey, self, _utf8(key, "a key")))

    def __setitem__(self, key, value):
        """``anim["myKey"] = value``: CAAnimationSetValueForKey. Declared
        properties are type-checked; None clears."""
        _setter_check(self)
        c_key = _utf8(key, "a key")
        ref = None if value is None else _make_value(value, key)
        try:
            call(_lib.CAAnimationSetValueForKey, self, c_key, ref)
        finally:
            _lib.CARelease(ref)

    def __delitem__(self, key):
        """Clears a key (sets it to nil)."""
        self[key] = None

    def value_for_key(self, key):
        """Same as ``anim[key]``."""
        return self[key]

    def set_value_for_key(self, key, value):
        """Same as ``anim[key] = value``."""
        self[key] = value

    @staticmethod
    def default_value_for_key(key):
        """Apple's +defaultValueForKey: (duration 0, speed 1, ...), or None."""
        return _take_value(call(_lib.CAAnimationCopyDefaultValueForKey, _utf8(key, "a key")))

    def should_archive_value_for_key(self, key):
        """Apple's -shouldArchiveValueForKey: (always True)."""
        return call(_lib.CAAnimationShouldArchiveValueForKey, self, _utf8(key, "a key"))


# MARK: - CAPropertyAnimation


class PropertyAnimation(Animation):
    """CAPropertyAnimation, the abstract base of BasicAnimation and
    KeyframeAnimation: key_path, additive, cumulative, value_function."""

    __slots__ = ()

    @property
    def key_path(self):
        """The animated key path ("position.x", "transform.rotation.z", ...), or None."""
        return _decode(call(_lib.CAPropertyAnimationGetKeyPath, self))

    @key_path.setter
    def key_path(self, key_path):
        _setter_check(self)
        call(_lib.CAPropertyAnimationSetKeyPath, self, _optional_text(key_path, "key_path"))

    additive = _bool_prop("additive", "CAPropertyAnimation", "Additive",
                          "Whether the value is added to the layer's current value (default False).")
    cumulative = _bool_prop("cumulative", "CAPropertyAnimation", "Cumulative",
                            "Whether each repeat builds on the end of the previous one (default False).")
    value_function = _string_prop("value_function", "CAPropertyAnimation", "ValueFunction",
                                  'A value function name ("rotateZ", "scale", ...; kCAValueFunction*) that '
                                  "turns the animated numbers into a transform, or None (default).")

    def _repr_detail(self):
        key_path = self.key_path
        return f" {key_path!r}" if key_path is not None else ""


class BasicAnimation(PropertyAnimation):
    """CABasicAnimation: ``BasicAnimation("opacity", from_value=1, to_value=0,
    duration=0.5)``. from_value, to_value and by_value combine as Apple's
    seven cases do; None (nil) means "not given" (the layer's value)."""

    __slots__ = ()
    _c_type = "CABasicAnimation"

    def __init__(self, key_path=None, from_value=None, to_value=None, by_value=None, **properties):
        properties = {name: value for name, value in (("from_value", from_value), ("to_value", to_value),
                                                      ("by_value", by_value)) if value is not None} | properties
        self._init(_lib.CABasicAnimationCreate, (_optional_text(key_path, "key_path"),), properties)

    from_value = _kvc_prop("from_value", "fromValue", "CABasicAnimationSetFromValue",
                           "The start value (None: the layer's current value).")
    to_value = _kvc_prop("to_value", "toValue", "CABasicAnimationSetToValue", "The end value, or None.")
    by_value = _kvc_prop("by_value", "byValue", "CABasicAnimationSetByValue",
                         "The change relative to the start or end, or None.")


def _spring_prop(name, function, doc):
    get, set_ = getattr(_lib, f"CASpringAnimationGet{function}"), getattr(_lib, f"CASpringAnimationSet{function}")
    return _prop(lambda self: call(get, self), lambda self, v: call(set_, self, _number(v, name)), doc)


class SpringAnimation(BasicAnimation):
    """CASpringAnimation: a BasicAnimation whose value follows a damped
    spring from from_value to to_value, evaluated in closed form at the
    seconds elapsed (its timing_function is not used)::

        drop = SpringAnimation("position.y", from_value=0, to_value=200, damping=8)
        drop.duration = drop.settling_duration
        bouncy = SpringAnimation.perceptual(0.5, bounce=0.3, key_path="transform.scale")

    mass (default 1) and stiffness (100) must be greater than 0 and damping
    (10) at least 0 (InvalidArgumentError otherwise); initial_velocity (0)
    is in distances per second, positive towards the target. duration
    defaults to 0 like every animation's (0.25 s once added), so set it;
    :meth:`perceptual` sets it to the settling duration."""

    __slots__ = ()
    _c_type = "CASpringAnimation"

    def __init__(self, key_path=None, from_value=None, to_value=None, by_value=None, **properties):
        properties = {name: value for name, value in (("from_value", from_value), ("to_value", to_value),
                                                      ("by_value", by_value)) if value is not None} | properties
        self._init(_lib.CASpringAnimationCreate, (_optional_text(key_path, "key_path"),), properties)

    @classmethod
    def perceptual(cls, perceptual_duration, bounce=0.0, key_path=None, **properties):
        """Apple's init(perceptualDuration:bounce:): mass 1, stiffness
        (2π / perceptual_duration)², damping ratio 1 - bounce (bounce ≥ 0) or
        1 / (1 + bounce) (bounce < 0); duration = settling_duration.
        perceptual_duration > 0 and -1 < bounce ≤ 1, else InvalidArgumentError."""
        self = cls.__new__(cls)
        self._init(_lib.CASpringAnimationCreateWithPerceptualDuration,
                   (_number(perceptual_duration, "perceptual_duration"), _number(bounce, "bounce")), {})
        if key_path is not None:
            self.key_path = key_path
        self._configure(properties)
        return self

    mass = _spring_prop("mass", "Mass", "The mass on the spring (default 1; > 0).")
    stiffness = _spring_prop("stiffness", "Stiffness", "The stiffness coefficient (default 100; > 0).")
    damping = _spring_prop("damping", "Damping", "The damping coefficient (default 10; >= 0).")
    initial_velocity = _spring_prop("initial_velocity", "InitialVelocity",
                                    "The initial velocity in distances per second, positive towards the "
                                    "target (default 0).")

    @property
    def allows_overdamping(self):
        """Whether a damping above critical overdamps the spring (default
        False: it moves as the critically damped spring, as Apple's does;
        True for a spring made with a negative bounce)."""
        return call(_lib.CASpringAnimationGetAllowsOverdamping, self)

    @allows_overdamping.setter
    def allows_overdamping(self, value):
        call(_lib.CASpringAnimationSetAllowsOverdamping, self, _flag(value, "allows_overdamping"))

    @property
    def settling_duration(self):
        """Seconds until the spring stays within 0.001 of the distance from
        its target (math.inf when damping is 0). Read-only."""
        return call(_lib.CASpringAnimationGetSettlingDuration, self)

    @property
    def perceptual_duration(self):
        """2π√(mass / stiffness). Read-only."""
        return call(_lib.CASpringAnimationGetPerceptualDuration, self)

    @property
    def bounce(self):
        """1 - damping ratio up to critical damping, 1/ratio - 1 beyond. Read-only."""
        return call(_lib.CASpringAnimationGetBounce, self)


class KeyframeAnimation(PropertyAnimation):
    """CAKeyframeAnimation: ``KeyframeAnimation("position.x", values=[0, 10, 30],
    key_times=[0, 0.5, 1], duration=1)``, or along a ``path``."""

    __slots__ = ()
    _c_type = "CAKeyframeAnimation"

    def __init__(self, key_path=None, values=None, key_times=None, **properties):
        properties = {name: value for name, value in (("values", values), ("key_times", key_times))
                      if value is not None} | properties
        self._init(_lib.CAKeyframeAnimationCreate, (_optional_text(key_path, "key_path"),), properties)

    @property
    def values(self):
        """The keyframe values (a list of Python values), or None (default)."""
        return _take_value(call(_lib.CAKeyframeAnimationCopyValues, self))

    @values.setter
    def values(self, values):
        _setter_check(self)
        if values is None:
            call(_lib.CAKeyframeAnimationSetValues, self, None)
            return
        if not isinstance(values, (list, tuple, _values.Value)):
            raise _wrong_type("values", "a list or None", values)
        ref = _make_value(values if isinstance(values, _values.Value) else list(values), "values")
        try:
            call(_lib.CAKeyframeAnimationSetValues, self, ref)
        finally:
            _lib.CARelease(ref)

    @property
    def key_times(self):
        """The key times in [0, 1] (a list of floats), or None (default)."""
        return _take_value(call(_lib.CAKeyframeAnimationCopyKeyTimes, self))

    @key_times.setter
    def key_times(self, key_times):
        _setter_check(self)
        if key_times is None:
            call(_lib.CAKeyframeAnimationSetKeyTimes, self, None)
            return
        if isinstance(key_times, (str, bytes)) or not hasattr(key_times, "__iter__"):
            raise _wrong_type("key_times", "a list of numbers or None", key_times)
        ref = _make_value([_number(t, "key_times") for t in key_times], "key_times")
        try:
            call(_lib.CAKeyframeAnimationSetKeyTimes, self, ref)
        finally:
            _lib.CARelease(ref)

    @property
    def timing_functions(self):
        """One TimingFunction per segment (a list), or None (default). The
        animation's own timing_function is not used by keyframe animations.

        The C API can count these but not read them back, so Python keeps a
        copy under the key-value coding key "timingFunctions", which travels
        with the animation's copies; functions set through the raw C API
        alone raise InvalidStateError here."""
        count = call(_lib.CAKeyframeAnimationGetTimingFunctionCount, self)
        if count == 0:
            return None
        found = _take_value(call(_lib.CAAnimationCopyValueForKey, self, b"timingFunctions"))
        if isinstance(found, list) and len(found) == count and all(isinstance(f, TimingFunction) for f in found):
            return found
        raise InvalidStateError(ErrorCode.INVALID_STATE, f"timing_functions: {count} were set through the C API, "
                                "which has no getter for them")

    @timing_functions.setter
    def timing_functions(self, functions):
        _setter_check(self)
        if functions is None:
            functions = []
        if isinstance(functions, (str, bytes)) or not hasattr(functions, "__iter__"):
            raise _wrong_type("timing_functions", "a list of TimingFunctions or None", functions)
        functions = [_as_timing_function(f, "timing_functions") for f in functions]
        if any(f is None for f in functions):
            raise _wrong_type("timing_functions", "TimingFunctions", None)
        array = (ctypes.c_void_p * len(functions))(*[f.handle for f in functions])
        call(_lib.CAKeyframeAnimationSetTimingFunctions, self, array if functions else None, len(functions))
        mirror = _make_value(functions, "timing_functions") if functions else None
        try:
            call(_lib.CAAnimationSetValueForKey, self, b"timingFunctions", mirror)
        finally:
            _lib.CARelease(mirror)

    @property
    def path(self):
        """The path the animated point follows (an immutable Path), or None
        (default). A mutable path is copied when set."""
        ref = call(_lib.CAKeyframeAnimationGetPath, self)
        return _path.Path.from_handle(ref) if ref else None

    @path.setter
    def path(self, path):
        _setter_check(self)
        if path is not None and not isinstance(path, _path.Path):
            raise _wrong_type("path", "a Path or None", path)
        call(_lib.CAKeyframeAnimationSetPath, self, path)

    calculation_mode = _string_prop("calculation_mode", "CAKeyframeAnimation", "CalculationMode",
                                    'How values between keyframes are computed: "linear" (default), "discrete", '
                                    '"paced", "cubic" or "cubicPaced" (kCAAnimation*).')
    rotation_mode = _string_prop("rotation_mode", "CAKeyframeAnimation", "RotationMode",
                                 'Whether an object following a path turns with it: None (default), "auto" or '
                                 '"autoReverse".')
    tension_values = _numbers_prop("tension_values", "tensionValues", "CAKeyframeAnimationSetTensionValues",
                                   "Kochanek-Bartels tension per keyframe for the cubic modes, or None.")
    continuity_values = _numbers_prop("continuity_values", "continuityValues",
                                      "CAKeyframeAnimationSetContinuityValues",
                                      "Kochanek-Bartels continuity per keyframe for the cubic modes, or None.")
    bias_values = _numbers_prop("bias_values", "biasValues", "CAKeyframeAnimationSetBiasValues",
                                "Kochanek-Bartels bias per keyframe for the cubic modes, or None.")


# MARK: - CAAnimationGroup


class AnimationGroup(Animation):
    """CAAnimationGroup: ``AnimationGroup(animations=[a, b], duration=1)``.
    The group holds the very animations it was given, not copies, and a copy
    of the group (the one a layer runs) shares them, as observed on Apple's
    QuartzCore: changing a child later changes the running group too. They
    run in the group's time and are clipped to its duration (their
    delegates and removed_on_completion are ignored). A group that would
    contain itself raises InvalidArgumentError."""

    __slots__ = ()
    _c_type = "CAAnimationGroup"

    def __init__(self, animations=None, **properties):
        if animations is not None:
            properties = {"animations": animations} | properties
        self._init(_lib.CAAnimationGroupCreate, (), properties)

    @property
    def animations(self):
        """The group's animations (the very objects it was given, each of
        its class), as a list."""
        result = []
        for index in range(call(_lib.CAAnimationGroupGetAnimationCount, self)):
            result.append(_wrap(call(_lib.CAAnimationGroupGetAnimationAtIndex, self, index),
                                read_only=self.read_only))
        return result

    @animations.setter
    def animations(self, animations):
        _setter_check(self)
        animations = [] if animations is None else list(animations)
        for item in animations:
            _as_animation(item, "animations")
        array = (ctypes.c_void_p * len(animations))(*[a.handle for a in animations])
        call(_lib.CAAnimationGroupSetAnimations, self, array if animations else None, len(animations))

    def __len__(self):
        return call(_lib.CAAnimationGroupGetAnimationCount, self)

    def __iter__(self):
        return iter(self.animations)

    def __bool__(self):
        return True


# MARK: - CATransition


class Transition(Animation):
    """CATransition: ``Transition(type="push", subtype="fromLeft", duration=0.3)``."""

    __slots__ = ()
    _c_type = "CATransition"

    def __init__(self, type=None, subtype=None, **properties):  # noqa: A002 -- Apple's property name
        properties = {name: value for name, value in (("type", type), ("subtype", subtype))
                      if value is not None} | properties
        self._init(_lib.CATransitionCreate, (), properties)

    type = _string_prop("type", "CATransition", "Type",
                        'The transition: "fade" (default), "moveIn", "push" or "reveal" (kCATransition*).')
    subtype = _string_prop("subtype", "CATransition", "Subtype",
                           'The direction: None (default), "fromRight", "fromLeft", "fromTop" or "fromBottom".')
    start_progress = _float_prop("start_progress", "CATransition", "StartProgress",
                                 "Where the transition starts (default 0; a float). Kept as given, even outside "
                                 "[0, 1] or after end_progress, as observed on Apple's QuartzCore; rendering "
                                 "clamps the progress it uses to [0, 1].")
    end_progress = _float_prop("end_progress", "CATransition", "EndProgress",
                               "Where the transition ends (default 1; a float). Kept as given, like "
                               "start_progress.")

    def _repr_detail(self):
        subtype = self.subtype
        return f" {self.type!r}" + (f" {subtype!r}" if subtype else "")


_CLASSES.update({cls._c_type: cls for cls in (Animation, BasicAnimation, SpringAnimation, KeyframeAnimation, AnimationGroup,
                                              Transition)})

# Object values holding animations and timing functions convert to these
# classes in from_value (checked first: QZGetTypeName records no error).
_values._object_converters.insert(0, _timing_function_from_object)
_values._object_converters.insert(0, _animation_from_object)

# The predefined timing functions as shared, immutable instances.
for _attr, _name in (("LINEAR", "linear"), ("EASE_IN", "easeIn"), ("EASE_OUT", "easeOut"),
                     ("EASE_IN_EASE_OUT", "easeInEaseOut"), ("DEFAULT", "default")):
    setattr(TimingFunction, _attr, TimingFunction.named(_name))
del _attr, _name
