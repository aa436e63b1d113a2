"""Layers: CALayer and its subclasses as Python classes.

A :class:`Layer` owns one reference to a CALayerRef. Every CALayer property is
a Python property with a snake_case name (``layer.anchor_point``,
``layer.background_color``); geometry comes back as :class:`Point`,
:class:`Size`, :class:`Rect`, :class:`Transform3D`, colours as :class:`Color`
(or None), boxed values (filters, style, actions, ...) as Python objects
through :func:`from_value`. Setters accept the same kinds (tuples for
geometry) and raise :class:`QuartziteError` subclasses on bad input: a
Python value of the wrong kind raises WrongTypeError (also a TypeError), a
NaN NotFiniteError, an unknown constant string UnknownConstantError, and
so on, exactly as the library records them.

The tree::

    parent.add(child)               # CALayerAddSublayer
    parent.insert(child, 0)         # CALayerInsertSublayerAtIndex
    parent.sublayers                # a list (snapshot); assignable
    for sublayer in parent: ...     # back to front; len(parent) is the count
    parent.sublayers[0] == child    # the same CALayerRef compares equal

Wrapping the same CALayerRef twice gives back the same Python object while
one is alive (a weak registry from handle to object), and layers always come
back as the right class: ScrollLayer, TextLayer, TiledLayer, EAGLLayer, or the Python
subclass they were created as.

Apple's query methods that take no argument are read-only properties here:
``needs_layout``, ``needs_display``, ``dirty_rect``, ``visible_rect``,
``contents_are_flipped``, ``superlayer``; ``preferred_frame_size()`` stays a
method because subclasses override it.

Animations (see :mod:`quartzite.animation`)::

    layer.add_animation(BasicAnimation("opacity", to_value=0, duration=1), "fade")
    layer.animation_keys            # ["fade"], in the order they were added
    layer.animation("fade")         # the layer's read-only copy
    layer.presentation().opacity    # the animated value now (a presentation copy)
    layer.remove_animation("fade")

Key-value coding: ``layer["position.x"]``, ``layer["transform.rotation.z"] = 0.5``,
``layer["touchPoints.a.scale"] = 2.0`` (CALayerCopyValueForKeyPath and
CALayerSetValueForKeyPath; a missing value reads as None).

Delegates and layout managers are plain Python objects::

    class Delegate:
        def display_layer(self, layer): ...
        def draw_layer_in_context(self, layer, ctx): ...
        def action_for_layer_for_key(self, layer, key): ...   # None: no answer
        def layout_sublayers_of_layer(self, layer): ...

    layer.delegate = Delegate()

Only the methods the object defines are installed (the others stay NULL, so
the library falls back as Apple's does). The layer keeps the object alive
until it is replaced or the layer is freed.

Subclassing maps onto layer classes (CALayerClassCreate)::

    class Badge(quartzite.TextLayer):
        @classmethod
        def needs_display_for_key(cls, key):
            return key == "count" or super().needs_display_for_key(key)

        @classmethod
        def default_value_for_key(cls, key):
            return 0 if key == "count" else super().default_value_for_key(key)

        def draw_in_context(self, ctx): ...

Overridable: the class methods ``needs_display_for_key(key)``,
``default_value_for_key(key)`` (a Python value, or None for "no default"),
``default_action_for_key(key)``, and the methods ``display()``,
``draw_in_context(ctx)``, ``layout_sublayers()``, ``preferred_frame_size()``.

How calls to an overridden method resolve (Objective-C's message sending):

* ``layer.display()`` (and ``layout_sublayers()``, ``preferred_frame_size()``,
  ``Badge.needs_display_for_key(key)``, ``Badge.default_value_for_key(key)``)
  always goes through the library (CALayerDisplay, ...), which calls the
  override back, exactly like ``[layer display]``: the library's own
  bookkeeping (clearing needsDisplay, ...) happens too.
* ``super().display()`` inside an override, like naming a class
  (``Parent.display(layer)``), runs that class's override directly, or, for
  ``Layer`` (and the built-in subclasses), CALayer's own behaviour as far as
  Python can reach it: ``display`` calls the Python delegate's
  ``display_layer``; ``layout_sublayers`` the Python delegate's, else the
  Python layout manager's ``layout_sublayers_of_layer``;
  ``preferred_frame_size`` the Python layout manager's answer, else the bounds
  size mapped through the transform; ``draw_in_context`` the delegate's
  ``draw_layer_in_context``; ``needs_display_for_key`` False;
  ``default_value_for_key`` the built-in class's default. (The C API has no
  way to run the base implementation past an override, so drawing through a
  fresh context from ``super().display()`` is not possible.)
* ``draw_in_context`` has no C entry point: calling it runs the override.

The library calls overrides with the Python object that created the layer
while it is alive; otherwise with a new wrapper of the right class made
without calling ``__init__`` (instance attributes set in ``__init__`` are
then absent). Keep a reference to layers whose Python state matters. The C
class is created once, on first use of the Python class; methods added to the
class after that are not seen by the library.

An exception raised inside any callback cannot propagate into C: it is
reported through ``sys.unraisablehook`` and the library gets a neutral answer
(nothing, False, None, or for a size the bounds size through the transform).
Two callbacks return a CGSize by value (a layout manager's
``preferred_size_of_layer`` and a ``preferred_frame_size`` override), which
ctypes cannot do; they go through a libffi closure (see ``_closures``), and
installing one raises StructCallbackUnavailable where libffi is unusable.
Callbacks nested more than 64 deep on one thread (an override that calls
itself through the library) are not run: a RecursionError is reported instead.
"""
import atexit
import ctypes
import enum
import math
import numbers
import sys
import threading
import traceback
import types
import weakref

from . import _callbacks, _closures, _layer_properties, _lib, path as _path, values as _values
from .color import Color
from .errors import ErrorCode, OutOfRangeError, QuartziteError, WrongTypeError, call, error_for
from .geometry import AffineTransform, Point, Rect, Size, Transform3D
from .graphics import Context
from .handle import Handle
from .values import Value, from_value, to_value

__all__ = ["Layer", "ScrollLayer", "TextLayer", "TiledLayer", "EAGLLayer", "GradientLayer", "ShapeLayer",
           "ReplicatorLayer", "EmitterLayer", "Context", "Edge"]

# MARK: - Helpers

Edge = enum.IntFlag("Edge", [("LEFT", _lib.kCALayerLeftEdge), ("RIGHT", _lib.kCALayerRightEdge),
                             ("BOTTOM", _lib.kCALayerBottomEdge), ("TOP", _lib.kCALayerTopEdge)],
                    module=__name__)
Edge.__doc__ = "CAEdgeAntialiasingMask: Edge.LEFT | Edge.TOP == kCALayerLeftEdge | kCALayerTopEdge."


def _wrong_type(what, wanted, value):
    return WrongTypeError(ErrorCode.WRONG_TYPE, f"{what} takes {wanted}, not {type(value).__name__}")


def _utf8(text, what):
    if not isinstance(text, str):
        raise _wrong_type(what, "a str", text)
    data = text.encode("utf-8")
    if b"\0" in data:
        raise ValueError("strings passed to Quartzite cannot contain NUL characters")
    return data


def _decode(data):
    return None if data is None else data.decode("utf-8")


def _number(value, what):
    if not isinstance(value, numbers.Real):
        raise _wrong_type(what, "a number", value)
    return float(value)


def _integer(value, what, maximum):
    if not isinstance(value, numbers.Integral):
        raise _wrong_type(what, "an int", value)
    if not 0 <= value <= maximum:
        raise OutOfRangeError(ErrorCode.OUT_OF_RANGE, f"{what}: {value} is outside 0...{maximum}")
    return int(value)


def _flag(value, what):
    if not isinstance(value, numbers.Real):
        raise _wrong_type(what, "a bool", value)
    return bool(value)


def _numbers(value, count, what, wanted):
    """A tuple of `count` numbers from a sequence (a ctypes struct iterates too)."""
    try:
        items = tuple(value)
    except TypeError:
        raise _wrong_type(what, wanted, value) from None
    if len(items) != count or not all(isinstance(v, numbers.Real) for v in items):
        raise _wrong_type(what, wanted, value)
    return items


def _as_point(value, what="a point"):
    if isinstance(value, _lib.CGPoint):
        return value
    return Point(*_numbers(value, 2, what, "a Point or (x, y)"))


def _as_size(value, what="a size"):
    if isinstance(value, _lib.CGSize):
        return value
    return Size(*_numbers(value, 2, what, "a Size or (width, height)"))


def _as_rect(value, what="a rect"):
    if isinstance(value, _lib.CGRect):
        return value
    return Rect(*_numbers(value, 4, what, "a Rect or (x, y, width, height)"))


def _as_transform(value, what):
    if isinstance(value, _lib.CATransform3D):
        return value
    if isinstance(value, _lib.CGAffineTransform):
        return call(_lib.CATransform3DMakeAffineTransform, value)
    raise _wrong_type(what, "a Transform3D or an AffineTransform", value)


def _as_affine(value, what):
    if isinstance(value, _lib.CGAffineTransform):
        return value
    raise _wrong_type(what, "an AffineTransform", value)


def _as_color(value, what):
    if value is not None and not isinstance(value, Color):
        raise _wrong_type(what, "a Color or None", value)
    return value


def _as_layer(value, what):
    if value is not None and not isinstance(value, Layer):
        raise _wrong_type(what, "a Layer or None", value)
    return value


def _make_value(obj, what):
    """to_value, with Python objects that have no CAValue counterpart raising
    WrongTypeError (which is a TypeError too)."""
    try:
        return to_value(obj)
    except QuartziteError:
        raise
    except TypeError as exc:
        raise WrongTypeError(ErrorCode.WRONG_TYPE, f"{what}: {exc}") from None


def _take_value(ref):
    """Converts a +1 CAValueRef (or NULL) to Python and releases it."""
    if not ref:
        return None
    try:
        return from_value(ref)
    finally:
        _lib.CARelease(ref)


def _report_unraisable(exc, message, source):
    """Reports an exception that cannot propagate (we are inside a C callback)."""
    try:
        if sys.unraisablehook is sys.__unraisablehook__:
            # The default hook accepts only the interpreter's own argument type.
            print(f"{message}: {source!r}", file=sys.stderr)
            traceback.print_exception(type(exc), exc, exc.__traceback__)
        else:
            sys.unraisablehook(types.SimpleNamespace(
                exc_type=type(exc), exc_value=exc, exc_traceback=exc.__traceback__,
                err_msg=message, object=source))
    except BaseException:  # noqa: BLE001 -- nothing may escape into C
        pass


# Callbacks nest when an override calls back into the library, which calls an
# override again. A runaway nesting (an override calling itself through the
# library) is cut here and reported as a RecursionError, early enough that the
# report itself still has Python stack to run on (each level costs about eight
# Python frames) and long before the interleaved C frames could exhaust the
# thread's C stack.
_MAX_CALLBACK_DEPTH = 64
_callback_state = threading.local()


def _run_callback(message, source, body, default=None):
    """Runs body() for a C callback: exceptions are reported, never raised.

    The thread's error state is the triggering call's: errors recorded by
    library calls made inside the callback (already raised and handled, or
    reported, in Python) must not make that call look failed, so a state
    that was clear on entry is cleared again on exit."""
    error_before = _lib.QZGetLastError()
    depth = getattr(_callback_state, "depth", 0)
    if depth >= _MAX_CALLBACK_DEPTH:
        _report_unraisable(RecursionError(f"Quartzite callbacks nested more than {_MAX_CALLBACK_DEPTH} deep"),
                           message, source)
        return default
    _callback_state.depth = depth + 1
    try:
        return body()
    except BaseException as exc:  # noqa: BLE001 -- nothing may escape into C
        _report_unraisable(exc, message, source)
        return default
    finally:
        _callback_state.depth = depth
        if not error_before:
            _lib.QZClearLastError()


def _pointer_of(obj):
    """The C pointer of an object with ``_as_parameter_`` (an action), else None."""
    param = getattr(obj, "_as_parameter_", None)
    if param is None:
        return None
    if isinstance(param, ctypes.c_void_p):
        return param.value
    if isinstance(param, numbers.Integral):
        return int(param)
    return ctypes.cast(param, ctypes.c_void_p).value


# MARK: - From handles to Python objects

# handle -> the live Python object wrapping it. An entry is trusted only while
# the object still owns that handle: close() clears `_ref` before releasing,
# so an address reused by a new layer is never matched to a dying wrapper.
_live_layers = weakref.WeakValueDictionary()
# CALayerClassRef -> Python class, for the built-ins and every Python subclass.
_python_classes = {}


def _lookup(ref):
    obj = _live_layers.get(ref)
    if obj is not None and obj._ref == ref:
        return obj
    return None


def _class_for(ref):
    """The Python class for a layer: its class, or the nearest ancestor of it
    that Python knows (a class made from C maps to its built-in kind).
    Raises WrongTypeError when `ref` is not a layer."""
    cls_ref = call(_lib.CALayerGetClass, ref)
    while cls_ref:
        found = _python_classes.get(cls_ref)
        if found is not None:
            return found
        cls_ref = _lib.CALayerClassGetSuperclass(cls_ref)
    return Layer


def _new_wrapper(ref, cls):
    """A `cls` owning the +1 reference `ref`, registered as its wrapper."""
    obj = cls.__new__(cls)
    obj._ref = ref
    existing = _lookup(ref)  # another thread may have wrapped it meanwhile
    if existing is not None:
        obj.close()
        return existing
    _live_layers[ref] = obj
    return obj


def _wrap_owned(ref):
    """A Layer for a +1 reference (which it takes over)."""
    existing = _lookup(ref)
    if existing is not None:
        _lib.CARelease(ref)
        return existing
    try:
        cls = _class_for(ref)
    except BaseException:
        _lib.CARelease(ref)
        raise
    return _new_wrapper(ref, cls)


def _wrap(ref):
    """A Layer for a borrowed reference (None for NULL)."""
    if not ref:
        return None
    existing = _lookup(ref)
    if existing is not None:
        return existing
    cls = _class_for(ref)
    return _new_wrapper(call(_lib.CARetain, ref), cls)


def _layer_from_object(ref):
    """values.from_value's converter for object values: a Layer for a layer."""
    existing = _lookup(ref)
    if existing is not None:
        return existing
    # The C API has no error-free type query, so "is this a layer?" is asked
    # by trying: a wrong type records an error, cleared again here (an error
    # handler installed with set_error_handler does see it).
    _lib.QZClearLastError()
    if not _lib.CALayerGetClass(ref):
        _lib.QZClearLastError()
        return None
    return _wrap(ref)


_values._object_converters.append(_layer_from_object)


def _animation_module():
    """quartzite.animation, imported on first use (it imports this module)."""
    from . import animation
    return animation


# MARK: - Delegates and layout managers

# info -> record of an installed delegate or layout manager, until release(info).
_hook_records = {}
# layer handle -> info of its current Python delegate / layout manager.
_delegate_of = {}
_layout_manager_of = {}


class _HookRecord:
    __slots__ = ("obj", "layer", "mapping", "actions")

    def __init__(self, obj, layer, mapping):
        self.obj = obj
        self.layer = layer
        self.mapping = mapping
        self.actions = {}  # key -> the last action returned (kept alive for C)


def _installed(mapping, layer_ref):
    info = mapping.get(layer_ref)
    record = _hook_records.get(info) if info is not None else None
    return record.obj if record is not None else None


def _call_hook_object(info, method, message, default, *args):
    """Calls ``method`` of the delegate or layout manager registered as
    `info`; each arg is a function making the Python argument."""
    def body():
        record = _hook_records.get(info)
        if record is None:
            return default
        return getattr(record.obj, method)(*[arg() for arg in args])
    record = _hook_records.get(info)
    return _run_callback(message, record.obj if record is not None else None, body, default)


def _context(ctx):
    return lambda: Context.from_handle(ctx) if ctx else None


def _layer_arg(ref):
    return lambda: _wrap(ref)


_DELEGATE_FIELDS = dict(_lib.CALayerDelegateCallbacks._fields_)
_MANAGER_FIELDS = dict(_lib.CALayoutManagerCallbacks._fields_)
_CLASS_FIELDS = dict(_lib.CALayerClassCallbacks._fields_)


@_DELEGATE_FIELDS["displayLayer"]
def _delegate_display_layer(layer, info):
    _call_hook_object(info, "display_layer", "Exception ignored in a layer delegate's display_layer",
                      None, _layer_arg(layer))


@_DELEGATE_FIELDS["drawLayerInContext"]
def _delegate_draw_layer(layer, ctx, info):
    _call_hook_object(info, "draw_layer_in_context", "Exception ignored in a layer delegate's draw_layer_in_context",
                      None, _layer_arg(layer), _context(ctx))


@_DELEGATE_FIELDS["actionForLayerForKey"]
def _delegate_action(layer, key, info):
    def body():
        record = _hook_records.get(info)
        if record is None:
            return None
        key_text = key.decode("utf-8", "replace")
        action = record.obj.action_for_layer_for_key(_wrap(layer), key_text)
        if action is None:
            return None
        pointer = _pointer_of(action)
        if pointer is None:
            raise TypeError("action_for_layer_for_key must return None or an action "
                            f"(an object with _as_parameter_), not {type(action).__name__}")
        record.actions[key_text] = action  # the library borrows it
        return pointer
    record = _hook_records.get(info)
    return _run_callback("Exception ignored in a layer delegate's action_for_layer_for_key",
                         record.obj if record is not None else None, body)


@_DELEGATE_FIELDS["layoutSublayersOfLayer"]
def _delegate_layout(layer, info):
    _call_hook_object(info, "layout_sublayers_of_layer", "Exception ignored in a layer delegate's "
                      "layout_sublayers_of_layer", None, _layer_arg(layer))


@_MANAGER_FIELDS["invalidateLayoutOfLayer"]
def _manager_invalidate(layer, info):
    _call_hook_object(info, "invalidate_layout_of_layer", "Exception ignored in a layout manager's "
                      "invalidate_layout_of_layer", None, _layer_arg(layer))


@_MANAGER_FIELDS["layoutSublayersOfLayer"]
def _manager_layout(layer, info):
    _call_hook_object(info, "layout_sublayers_of_layer", "Exception ignored in a layout manager's "
                      "layout_sublayers_of_layer", None, _layer_arg(layer))


def _release_hook_object(info):
    try:
        record = _hook_records.pop(info, None)
        if record is not None and record.mapping.get(record.layer) == info:
            del record.mapping[record.layer]
    except BaseException:  # noqa: BLE001 -- also runs at interpreter exit
        pass


_release_thunk = _DELEGATE_FIELDS["release"](_release_hook_object)
_manager_release_thunk = _MANAGER_FIELDS["release"](_release_hook_object)


def _size_result(result, what):
    if isinstance(result, _lib.CGSize):
        return result
    try:
        return _as_size(result, what)
    except WrongTypeError:
        raise TypeError(f"{what} must return a Size or (width, height), not {type(result).__name__}") from None


def _default_preferred_size(layer_ref):
    """CALayer's own preferredFrameSize: the bounds size mapped through the
    transform (the bounding box of the transformed corners)."""
    bounds = call(_lib.CALayerGetBounds, layer_ref)
    t = call(_lib.CALayerGetTransform, layer_ref)
    xs, ys = [], []
    for x, y in ((0.0, 0.0), (bounds.size.width, 0.0), (0.0, bounds.size.height),
                 (bounds.size.width, bounds.size.height)):
        w = x * t.m14 + y * t.m24 + t.m44
        w = w if w != 0 else 1.0
        xs.append((x * t.m11 + y * t.m21 + t.m41) / w)
        ys.append((x * t.m12 + y * t.m22 + t.m42) / w)
    return Size(max(xs) - min(xs), max(ys) - min(ys))


def _manager_preferred_size(layer, info):
    def body():
        record = _hook_records.get(info)
        return _size_result(record.obj.preferred_size_of_layer(_wrap(layer)), "preferred_size_of_layer")
    record = _hook_records.get(info)
    result = _run_callback("Exception ignored in a layout manager's preferred_size_of_layer",
                           record.obj if record is not None else None, body)
    if result is None:
        result = _run_callback("Exception ignored computing a default preferred size", None,
                               lambda: _default_preferred_size(layer)) or Size(0, 0)
    return result


# Made on first use: it needs libffi (see _closures).
_struct_closures = {}


def _struct_closure(name, function):
    closure = _struct_closures.get(name)
    if closure is None:
        closure = _closures.struct_callback(_lib.CGSize, [ctypes.c_void_p, ctypes.c_void_p], function)
        closure = _struct_closures.setdefault(name, closure)
    return closure


# MARK: - Python subclasses as layer classes

# The overridable methods: Python name -> (C table field, kind). Instance
# hooks receive the layer; class hooks the class.
_HOOKS = {
    "needs_display_for_key": ("needsDisplayForKey", "class"),
    "default_value_for_key": ("defaultValueForKey", "class"),
    "default_action_for_key": ("defaultActionForKey", "class"),
    "display": ("display", "instance"),
    "draw_in_context": ("drawInContext", "instance"),
    "layout_sublayers": ("layoutSublayers", "instance"),
    "preferred_frame_size": ("preferredFrameSize", "instance"),
}
# Hooks whose public method sends the message through the library.
_SENDERS = {
    "needs_display_for_key": "_send_needs_display_for_key",
    "default_value_for_key": "_send_default_value_for_key",
    "display": "_send_display",
    "layout_sublayers": "_send_layout_sublayers",
    "preferred_frame_size": "_send_preferred_frame_size",
}

_definer_cache = {}


def _first_definer(cls, name):
    """The first class in cls's MRO whose own dictionary has `name` (the
    class whose attribute normal lookup finds)."""
    key = (cls, name)
    found = _definer_cache.get(key)
    if found is None:
        found = next((c for c in cls.__mro__ if name in c.__dict__), None)
        _definer_cache[key] = found
    return found


def _overridden(cls, name):
    """True when a Python subclass overrides hook `name` for cls."""
    definer = _first_definer(cls, name)
    return definer is not None and isinstance(definer.__dict__[name], _Hook)


class _Hook:
    """An override in a Layer subclass (installed by Layer.__init_subclass__).

    Looked up normally (the most derived override), it sends the message
    through the library, which calls the override back; reached through
    super() or an explicit ``Parent.method(self)``, it runs that class's
    override directly, as Objective-C's super does."""

    def __init__(self, owner, name, function, style):
        self.owner = owner
        self.name = name
        self.function = function
        self.style = style  # "instance", "class" or "static"
        self.__doc__ = getattr(function, "__doc__", None)
        self.__wrapped__ = function

    def _sends(self, cls):
        return self.name in _SENDERS and _first_definer(cls, self.name) is self.owner

    def __get__(self, instance, owner=None):
        if self.style == "instance":
            if instance is None:
                hook = self

                def unbound(layer, *args, **kwargs):
                    return hook.__get__(layer, type(layer))(*args, **kwargs)
                unbound.__name__ = self.name
                unbound.__doc__ = self.__doc__
                return unbound
            if self._sends(type(instance)):
                return types.MethodType(getattr(Layer, _SENDERS[self.name]), instance)
            return types.MethodType(self.function, instance)
        cls = type(instance) if instance is not None else owner
        if self._sends(cls):
            return types.MethodType(getattr(Layer, _SENDERS[self.name]).__func__, cls)
        if self.style == "static":
            return self.function
        return types.MethodType(self.function, cls)

    def call_from_c(self, cls, *args):
        if self.style == "static":
            return self.function(*args)
        if self.style == "class":
            return self.function(cls, *args)
        return self.function(*args)


class _ClassRecord:
    __slots__ = ("cls", "hooks", "actions")

    def __init__(self, cls, hooks):
        self.cls = cls
        self.hooks = hooks  # name -> _Hook owned by cls
        self.actions = {}


_class_records = {}
_class_lock = threading.Lock()


def _call_class_hook(info, name, default, *args, result=None):
    """Calls hook `name` of the class registered as `info`; each arg is a
    function making the Python argument (run inside the guard)."""
    record = _class_records.get(info)
    if record is None:
        return default
    hook = record.hooks[name]

    def body():
        answer = hook.call_from_c(record.cls, *[arg() for arg in args])
        return answer if result is None else result(answer)
    return _run_callback(f"Exception ignored in {record.cls.__qualname__}.{name}", record.cls, body, default)


def _key_arg(key):
    return lambda: key.decode("utf-8", "replace")


@_CLASS_FIELDS["needsDisplayForKey"]
def _class_needs_display(_cls, key, info):
    return _call_class_hook(info, "needs_display_for_key", False, _key_arg(key), result=bool)


@_CLASS_FIELDS["defaultValueForKey"]
def _class_default_value(_cls, key, info):
    record = _class_records.get(info)
    if record is None:
        return None
    hook = record.hooks["default_value_for_key"]

    def body():
        answer = hook.call_from_c(record.cls, key.decode("utf-8", "replace"))
        return None if answer is None else _make_value(answer, "default_value_for_key")  # +1 for the library
    return _run_callback(f"Exception ignored in {record.cls.__qualname__}.default_value_for_key", record.cls, body)


@_CLASS_FIELDS["defaultActionForKey"]
def _class_default_action(_cls, key, info):
    record = _class_records.get(info)
    if record is None:
        return None
    hook = record.hooks["default_action_for_key"]

    def body():
        key_text = key.decode("utf-8", "replace")
        action = hook.call_from_c(record.cls, key_text)
        if action is None:
            return None
        pointer = _pointer_of(action)
        if pointer is None:
            raise TypeError("default_action_for_key must return None or an action "
                            f"(an object with _as_parameter_), not {type(action).__name__}")
        record.actions[key_text] = action  # the library borrows it
        return pointer
    return _run_callback(f"Exception ignored in {record.cls.__qualname__}.default_action_for_key", record.cls, body)


@_CLASS_FIELDS["display"]
def _class_display(layer, info):
    _call_class_hook(info, "display", None, _layer_arg(layer))


@_CLASS_FIELDS["drawInContext"]
def _class_draw(layer, ctx, info):
    _call_class_hook(info, "draw_in_context", None, _layer_arg(layer), _context(ctx))


@_CLASS_FIELDS["layoutSublayers"]
def _class_layout(layer, info):
    _call_class_hook(info, "layout_sublayers", None, _layer_arg(layer))


def _class_preferred_size(layer, info):
    record = _class_records.get(info)
    result = None
    if record is not None:
        hook = record.hooks["preferred_frame_size"]

        def body():
            return _size_result(hook.call_from_c(record.cls, _wrap(layer)), "preferred_frame_size")
        result = _run_callback(f"Exception ignored in {record.cls.__qualname__}.preferred_frame_size",
                               record.cls, body)
    if result is None:
        result = _run_callback("Exception ignored computing a default preferred size", None,
                               lambda: _default_preferred_size(layer)) or Size(0, 0)
    return result


@_CLASS_FIELDS["release"]
def _class_release(info):
    try:
        _class_records.pop(info, None)
    except BaseException:  # noqa: BLE001 -- also runs at interpreter exit
        pass


_CLASS_THUNKS = {
    "needs_display_for_key": _class_needs_display,
    "default_value_for_key": _class_default_value,
    "default_action_for_key": _class_default_action,
    "display": _class_display,
    "draw_in_context": _class_draw,
    "layout_sublayers": _class_layout,
}


def _unwrap_hook(cls, name, entry):
    """(function, style) of a class-body entry for hook `name`."""
    kind = _HOOKS[name][1]
    if kind == "class":
        if isinstance(entry, classmethod):
            return entry.__func__, "class"
        if isinstance(entry, staticmethod):
            return entry.__func__, "static"
        if callable(entry):
            return entry, "class"  # a plain function is taken as a class method
    elif callable(entry) and not isinstance(entry, (classmethod, staticmethod)):
        return entry, "instance"
    wanted = "a class method" if kind == "class" else "a method"
    raise TypeError(f"{cls.__qualname__}.{name} must be {wanted}, not {type(entry).__name__}")


# MARK: - Property factories


def _c(name):
    return getattr(_lib, name)


def _prop(fget, fset, doc):
    return property(fget, fset, doc=doc)


def _number_prop(name, suffix, doc, cls="CALayer"):
    getter, setter = _c(f"{cls}Get{suffix}"), _c(f"{cls}Set{suffix}")
    return _prop(lambda self: call(getter, self),
                 lambda self, value: call(setter, self, _number(value, name)), doc)


def _bool_prop(name, suffix, doc, cls="CALayer"):
    getter, setter = _c(f"{cls}Get{suffix}"), _c(f"{cls}Set{suffix}")
    return _prop(lambda self: call(getter, self),
                 lambda self, value: call(setter, self, _flag(value, name)), doc)


def _string_prop(name, suffix, doc, cls="CALayer"):
    """A constant-string property (contentsGravity, fillMode, ...)."""
    getter, setter = _c(f"{cls}Get{suffix}"), _c(f"{cls}Set{suffix}")
    return _prop(lambda self: _decode(call(getter, self)),
                 lambda self, value: call(setter, self, None if value is None else _utf8(value, name)), doc)


def _struct_prop(name, suffix, pytype, convert, doc, cls="CALayer"):
    getter, setter = _c(f"{cls}Get{suffix}"), _c(f"{cls}Set{suffix}")
    return _prop(lambda self: pytype.from_c(call(getter, self)),
                 lambda self, value: call(setter, self, convert(value, name)), doc)


def _copy_value_getter(key):
    """Reads a boxed-value property as a +1 value (CALayerCopyValueForKey, the
    same answer as the typed getter, style included): no borrowed pointer that
    another thread could free while it is being converted."""
    key = key.encode("utf-8")
    return lambda self: _take_value(call(_lib.CALayerCopyValueForKey, self, key))


def _color_prop(name, suffix, doc, cls="CALayer"):
    getter, setter = _c(f"{cls}Get{suffix}"), _c(f"{cls}Set{suffix}")

    def fget(self):
        color = call(getter, self)  # borrowed: retained at once by Color.from_handle
        return Color.from_handle(color) if color else None
    return _prop(fget, lambda self, value: call(setter, self, _as_color(value, name)), doc)


def _name_prop(name, suffix, doc, cls="CALayer"):
    """A string property that is not a constant (a layer's name)."""
    getter, setter = _c(f"{cls}Get{suffix}"), _c(f"{cls}Set{suffix}")
    return _prop(lambda self: _decode(call(getter, self)),
                 lambda self, value: call(setter, self, None if value is None else _utf8(value, name)), doc)


def _integer_prop(name, suffix, doc, cls="CALayer"):
    getter, setter = _c(f"{cls}Get{suffix}"), _c(f"{cls}Set{suffix}")
    return _prop(lambda self: call(getter, self),
                 lambda self, value: call(setter, self, _integer(value, name, 2**63 - 1)), doc)


def _value_prop(name, key, suffix, doc, cls="CALayer"):
    """A boxed-value property: any Python value to_value converts; None clears."""
    setter = _c(f"{cls}Set{suffix}")

    def fset(self, value):
        if value is None:
            call(setter, self, None)
            return
        ref = _make_value(value, name)
        try:
            call(setter, self, ref)
        finally:
            _lib.CARelease(ref)
    return _prop(_copy_value_getter(key), fset, doc)


# MARK: - Layer


class Layer(Handle):
    """A CALayer (``Layer()``); subclass it to make a layer class.

    ``Layer(bounds=(0, 0, 100, 50), position=(10, 10))`` sets properties by
    keyword after creation. See the module documentation for the tree,
    key-value coding, delegates and subclassing. ``len(layer)`` is the
    number of sublayers and iterating yields them back to front; a layer is
    always true in a boolean context, whatever its sublayer count.
    """

    __slots__ = ()
    _type_name = "CALayerRef"
    _qz_builtin = "CALayer"
    _qz_create = "CALayerCreate"

    def __init__(self, **properties):
        self._ref = None
        cls = type(self)
        create = _c(cls._qz_create) if cls.__dict__.get("_qz_builtin") else _lib.CALayerCreateWithClass
        args = () if cls.__dict__.get("_qz_builtin") else (cls.class_ref(),)
        _lib.QZClearLastError()
        ref = create(*args)
        if ref:
            self._ref = ref  # owned before anything can raise: released if __init__ fails
            _live_layers[ref] = self
        code = _lib.QZGetLastError()
        if code:
            # E.g. a default_value_for_key answer of the wrong type for a
            # declared property: the library skipped it and recorded why.
            raise error_for(code, _decode(_lib.QZGetLastErrorMessage()))
        if not ref:
            raise MemoryError("the library returned NULL without recording an error")
        for name, value in properties.items():
            if not isinstance(getattr(cls, name, None), property) or name.startswith("_"):
                raise TypeError(f"{cls.__name__}() got an unexpected keyword argument {name!r}")
            setattr(self, name, value)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("_qz_builtin"):
            return
        parent = _layer_parent(cls)
        for base in cls.__bases__:
            if issubclass(base, Layer) and not issubclass(parent, base):
                raise TypeError(f"{cls.__qualname__}: a layer class has one chain of layer superclasses "
                                f"({parent.__qualname__} and {base.__qualname__} are unrelated)")
        for name in _HOOKS:
            entry = cls.__dict__.get(name)
            if entry is None:
                # An override from a mixin that is not a Layer is adopted here.
                definer = next((c for c in cls.__mro__ if name in c.__dict__), None)
                if definer is None or issubclass(definer, Layer):
                    continue
                entry = definer.__dict__[name]
            if isinstance(entry, _Hook):
                continue
            function, style = _unwrap_hook(cls, name, entry)
            setattr(cls, name, _Hook(cls, name, function, style))

    # MARK: Handles and identity

    @classmethod
    def adopt(cls, ref):
        """Takes over a +1 CALayerRef (from a Create or Copy function); returns
        the existing Python object for it if there is one."""
        if not ref:
            raise ValueError(f"a NULL {cls._type_name}")
        return cls._checked(_wrap_owned(ref))

    @classmethod
    def from_handle(cls, ref):
        """Wraps a borrowed CALayerRef, adding a reference of its own."""
        if not ref:
            raise ValueError(f"a NULL {cls._type_name}")
        return cls._checked(_wrap(ref))

    @classmethod
    def _checked(cls, layer):
        if not isinstance(layer, cls):
            raise WrongTypeError(ErrorCode.WRONG_TYPE,
                                 f"the layer is a {layer.class_name}, not a {cls.__name__}")
        return layer

    @classmethod
    def class_ref(cls):
        """The CALayerClassRef of this class (made with CALayerClassCreate on
        first use for a Python subclass; borrowed, lives as long as the process)."""
        ref = cls.__dict__.get("_qz_class_ref")
        if ref:
            return ref
        if cls.__dict__.get("_qz_builtin"):
            ref = call(_lib.CALayerClassGetBuiltin, cls._qz_builtin.encode())
            type.__setattr__(cls, "_qz_class_ref", ref)
            return ref
        return _create_layer_class(cls)

    @property
    def class_name(self):
        """The name of the layer's class ("CALayer", "CATextLayer", or a
        subclass's name)."""
        return _decode(call(_lib.CALayerClassGetName, call(_lib.CALayerGetClass, self)))

    def __eq__(self, other):
        if not isinstance(other, Layer):
            return NotImplemented
        return self._ref is not None and self._ref == other._ref

    def __hash__(self):
        return hash(self._ref)

    def __bool__(self):
        return True

    def __repr__(self):
        if self._ref is None:
            return f"{type(self).__name__}(<closed>)"
        try:
            name = self.name
        except QuartziteError:
            name = None
        named = f" name={name!r}" if name is not None else ""
        return f"<{type(self).__name__} 0x{self._ref:x}{named}>"

    # MARK: The tree

    @property
    def superlayer(self):
        """The superlayer (for a mask, the layer it masks), or None."""
        return _wrap(call(_lib.CALayerGetSuperlayer, self))

    @property
    def sublayers(self):
        """The sublayers back to front, as a new list (a snapshot taken
        atomically). Assigning a list replaces them all (CALayerSetSublayers);
        duplicates and cycles raise and change nothing."""
        if not call(_lib.CALayerGetStyle, self):
            # One +1 array of the sublayers, taken under the library's lock.
            found = _take_value(call(_lib.CALayerCopyValueForKey, self, b"sublayers"))
            return found if found is not None else []
        # With a style dictionary, valueForKey:@"sublayers" answers from the
        # style when it has that key, so read the tree by index instead.
        layers = []
        for index in range(len(self)):
            try:
                layers.append(_wrap(call(_lib.CALayerGetSublayerAtIndex, self, index)))
            except OutOfRangeError:  # another thread removed sublayers meanwhile
                break
        return layers

    @sublayers.setter
    def sublayers(self, layers):
        layers = list(layers) if layers is not None else []
        for item in layers:
            if not isinstance(item, Layer):
                raise _wrong_type("sublayers", "Layers", item)
        array = (ctypes.c_void_p * len(layers))(*[item.handle for item in layers])
        call(_lib.CALayerSetSublayers, self, array if layers else None, len(layers))

    def sublayer_at(self, index):
        """Sublayer `index` (back to front; CALayerGetSublayerAtIndex).
        Negative indices count from the end; out of range: OutOfRangeError."""
        if not isinstance(index, numbers.Integral):
            raise _wrong_type("sublayer_at", "an int index", index)
        if index < 0:
            index += len(self)
            if index < 0:
                raise OutOfRangeError(ErrorCode.OUT_OF_RANGE, f"sublayer_at: index {index - len(self)} is out of range")
        return _wrap(call(_lib.CALayerGetSublayerAtIndex, self, index))

    def __len__(self):
        return call(_lib.CALayerGetSublayerCount, self)

    def __iter__(self):
        return iter(self.sublayers)

    def __contains__(self, layer):
        return isinstance(layer, Layer) and layer in self.sublayers

    def add(self, sublayer):
        """Appends `sublayer`, moving it from any superlayer (CALayerAddSublayer).
        A cycle raises InvalidArgumentError and changes nothing. Returns the sublayer."""
        call(_lib.CALayerAddSublayer, self, _require_layer(sublayer, "add"))
        return sublayer

    add_sublayer = add

    def insert(self, sublayer, index):
        """Inserts `sublayer` at `index` (0...len(self)); outside that range
        OutOfRangeError. Returns the sublayer."""
        _require_layer(sublayer, "insert")
        if not isinstance(index, numbers.Integral):
            raise _wrong_type("insert", "an int index", index)
        if not 0 <= index <= 0xFFFFFFFF:
            raise OutOfRangeError(ErrorCode.OUT_OF_RANGE, f"insert: index {index} is outside 0...{len(self)}")
        call(_lib.CALayerInsertSublayerAtIndex, self, sublayer, int(index))
        return sublayer

    def insert_below(self, sublayer, sibling):
        """Inserts `sublayer` just below `sibling`, which must be a sublayer
        (otherwise InvalidArgumentError)."""
        call(_lib.CALayerInsertSublayerBelow, self, _require_layer(sublayer, "insert_below"),
             _require_layer(sibling, "insert_below"))
        return sublayer

    def insert_above(self, sublayer, sibling):
        """Inserts `sublayer` just above `sibling`, which must be a sublayer."""
        call(_lib.CALayerInsertSublayerAbove, self, _require_layer(sublayer, "insert_above"),
             _require_layer(sibling, "insert_above"))
        return sublayer

    def replace(self, old, new):
        """Puts `new` where the sublayer `old` was (CALayerReplaceSublayer)."""
        call(_lib.CALayerReplaceSublayer, self, _require_layer(old, "replace"), _require_layer(new, "replace"))
        return new

    def remove_from_superlayer(self):
        """Detaches the layer from its superlayer (or from the layer it masks)."""
        call(_lib.CALayerRemoveFromSuperlayer, self)

    # MARK: Geometry, hit testing and scrolling

    # convert_point, convert_rect and convert_time are added after the class.

    def hit_test(self, point):
        """The front-most layer of this subtree containing `point` (in the
        superlayer's coordinates), or None."""
        return _wrap(call(_lib.CALayerHitTest, self, _as_point(point, "hit_test")))

    def contains_point(self, point):
        """True when `point` (layer coordinates) is inside the bounds."""
        return call(_lib.CALayerContainsPoint, self, _as_point(point, "contains_point"))

    @property
    def visible_rect(self):
        """The part of the bounds not clipped by enclosing scroll layers."""
        return Rect.from_c(call(_lib.CALayerGetVisibleRect, self))

    @property
    def contents_are_flipped(self):
        """True when an odd number of geometry-flipped layers lie between this
        layer and its root (itself included)."""
        return call(_lib.CALayerContentsAreFlipped, self)

    def scroll_point(self, point):
        """Scrolls the closest enclosing ScrollLayer so that `point` (layer
        coordinates) is at its top left (its bounds origin); on a
        ScrollLayer itself it scrolls that layer (as observed on Apple's
        QuartzCore). The layer's visible_rect follows."""
        call(_lib.CALayerScrollPoint, self, _as_point(point, "scroll_point"))

    def scroll_rect_to_visible(self, rect):
        """Scrolls the closest enclosing ScrollLayer (or this layer, when it
        is a ScrollLayer) so that `rect` is visible."""
        call(_lib.CALayerScrollRectToVisible, self, _as_rect(rect, "scroll_rect_to_visible"))

    # MARK: Overridable methods (see the module documentation)

    def display(self):
        """Redraws the layer (Apple's -display): the class's override, else the
        delegate's display_layer, else draw_in_context / draw_layer_in_context
        with a context clipped to the marked area. Clears needs_display."""
        if _overridden(type(self), "display"):
            # super().display() from an override: CALayer's own display.
            delegate = self.delegate
            if delegate is not None and callable(getattr(delegate, "display_layer", None)):
                delegate.display_layer(self)
            return
        self._send_display()

    def _send_display(self):
        call(_lib.CALayerDisplay, self)

    def draw_in_context(self, ctx):
        """Draws the layer's content (Apple's -drawInContext:): CALayer's
        version asks the delegate's draw_layer_in_context. The library calls
        it from display() with a Context."""
        delegate = self.delegate
        if delegate is not None and callable(getattr(delegate, "draw_layer_in_context", None)):
            delegate.draw_layer_in_context(self, ctx)

    def layout_sublayers(self):
        """Lays out the sublayers now (Apple's -layoutSublayers): the class's
        override, else the delegate's layout_sublayers_of_layer, else the
        layout manager's."""
        if _overridden(type(self), "layout_sublayers"):
            delegate = self.delegate
            if delegate is not None and callable(getattr(delegate, "layout_sublayers_of_layer", None)):
                delegate.layout_sublayers_of_layer(self)
                return
            manager = self.layout_manager
            if manager is not None and callable(getattr(manager, "layout_sublayers_of_layer", None)):
                manager.layout_sublayers_of_layer(self)
            return
        self._send_layout_sublayers()

    def _send_layout_sublayers(self):
        call(_lib.CALayerLayoutSublayers, self)

    def preferred_frame_size(self):
        """The preferred size in the superlayer's space (Apple's
        -preferredFrameSize): the class's override, else the layout manager's
        answer, else the bounds size mapped through the transform."""
        if _overridden(type(self), "preferred_frame_size"):
            manager = self.layout_manager
            if manager is not None and callable(getattr(manager, "preferred_size_of_layer", None)):
                return Size.from_c(_size_result(manager.preferred_size_of_layer(self), "preferred_size_of_layer"))
            return _default_preferred_size(self._ref)
        return self._send_preferred_frame_size()

    def _send_preferred_frame_size(self):
        return Size.from_c(call(_lib.CALayerGetPreferredFrameSize, self))

    @classmethod
    def needs_display_for_key(cls, key):
        """Whether changing `key` marks a layer of this class for display
        (Apple's +needsDisplayForKey:; False for CALayer's own keys)."""
        if _overridden(cls, "needs_display_for_key"):
            return False
        return cls._send_needs_display_for_key(key)

    @classmethod
    def _send_needs_display_for_key(cls, key):
        return call(_lib.CALayerClassNeedsDisplayForKey, cls.class_ref(), _utf8(key, "needs_display_for_key"))

    @classmethod
    def default_value_for_key(cls, key):
        """The class's default for `key` (Apple's +defaultValueForKey:): the
        spec's default for a declared property, else None."""
        if _overridden(cls, "default_value_for_key"):
            cls = _builtin_ancestor(cls)
        return cls._send_default_value_for_key(key)

    @classmethod
    def _send_default_value_for_key(cls, key):
        return _take_value(call(_lib.CALayerClassCopyDefaultValueForKey, cls.class_ref(),
                                _utf8(key, "default_value_for_key")))

    @classmethod
    def default_action_for_key(cls, key):
        """The class's default action for `key` (Apple's
        +defaultActionForKey:); CALayer has none."""
        return None

    # MARK: Layout and display

    def set_needs_layout(self):
        """Marks the layer for layout and tells its layout manager."""
        call(_lib.CALayerSetNeedsLayout, self)

    @property
    def needs_layout(self):
        """True while the layer is marked for layout."""
        return call(_lib.CALayerNeedsLayout, self)

    def layout_if_needed(self):
        """Lays out, top down, every marked layer from the highest marked
        ancestor of this one."""
        call(_lib.CALayerLayoutIfNeeded, self)

    def set_needs_display(self):
        """Marks the whole layer for redisplay."""
        call(_lib.CALayerSetNeedsDisplay, self)

    def set_needs_display_in_rect(self, rect):
        """Marks `rect` (layer coordinates) for redisplay; rectangles accumulate."""
        call(_lib.CALayerSetNeedsDisplayInRect, self, _as_rect(rect, "set_needs_display_in_rect"))

    @property
    def needs_display(self):
        """True while the layer is marked for display."""
        return call(_lib.CALayerNeedsDisplay, self)

    def display_if_needed(self):
        """Displays the layer if it is marked."""
        call(_lib.CALayerDisplayIfNeeded, self)

    @property
    def dirty_rect(self):
        """The area marked for redisplay since the last display (Rect.null() when none)."""
        return Rect.from_c(call(_lib.QZLayerGetDirtyRect, self))

    # MARK: Delegate and layout manager

    @property
    def delegate(self):
        """The Python delegate installed from Python, or None. Setting an object
        installs the methods it defines (display_layer, draw_layer_in_context,
        action_for_layer_for_key, layout_sublayers_of_layer); None removes it.
        The layer keeps the object alive until it is replaced or the layer is freed."""
        return _installed(_delegate_of, self._ref)

    @delegate.setter
    def delegate(self, obj):
        if obj is None:
            call(_lib.CALayerSetDelegate, self, None, None)
            return
        table = _lib.CALayerDelegateCallbacks()
        table.version = 0
        for field, method, thunk in (("displayLayer", "display_layer", _delegate_display_layer),
                                     ("drawLayerInContext", "draw_layer_in_context", _delegate_draw_layer),
                                     ("actionForLayerForKey", "action_for_layer_for_key", _delegate_action),
                                     ("layoutSublayersOfLayer", "layout_sublayers_of_layer", _delegate_layout)):
            if callable(getattr(obj, method, None)):
                setattr(table, field, thunk)
        table.release = _release_thunk
        self._install(_lib.CALayerSetDelegate, table, obj, _delegate_of)

    @property
    def layout_manager(self):
        """The Python layout manager installed from Python, or None. Its
        methods (each optional): invalidate_layout_of_layer(layer),
        layout_sublayers_of_layer(layer), preferred_size_of_layer(layer)
        returning a Size or (width, height)."""
        return _installed(_layout_manager_of, self._ref)

    @layout_manager.setter
    def layout_manager(self, obj):
        if obj is None:
            call(_lib.CALayerSetLayoutManager, self, None, None)
            return
        table = _lib.CALayoutManagerCallbacks()
        table.version = 0
        if callable(getattr(obj, "invalidate_layout_of_layer", None)):
            table.invalidateLayoutOfLayer = _manager_invalidate
        if callable(getattr(obj, "layout_sublayers_of_layer", None)):
            table.layoutSublayersOfLayer = _manager_layout
        if callable(getattr(obj, "preferred_size_of_layer", None)):
            closure = _struct_closure("manager", _manager_preferred_size)
            table.preferredSizeOfLayer = closure.as_function_pointer(_MANAGER_FIELDS["preferredSizeOfLayer"])
        table.release = _manager_release_thunk
        self._install(_lib.CALayerSetLayoutManager, table, obj, _layout_manager_of)

    def _install(self, setter, table, obj, mapping):
        info = _callbacks.next_id()
        _hook_records[info] = _HookRecord(obj, self._ref, mapping)
        try:
            call(setter, self, ctypes.byref(table), info)
        except BaseException:
            _hook_records.pop(info, None)
            raise
        mapping[self._ref] = info  # the previous one's release already ran

    # MARK: Animations and presentation

    def add_animation(self, animation, key=None):
        """Adds a copy of `animation` (an Animation) under `key` (None: unnamed,
        not listed in animation_keys); CALayerAddAnimation. Changing the
        Python object afterwards changes nothing on the layer. A begin_time of
        0 starts it now; an animation already under `key` is removed (its
        delegate hears animation_did_stop with finished False)."""
        anim = _animation_module()
        anim._as_animation(animation, "add_animation")
        call(_lib.CALayerAddAnimation, self, animation, None if key is None else _utf8(key, "add_animation"))

    def animation(self, key):
        """The animation running under `key` (the layer's read-only copy, as
        its class: BasicAnimation, ...), or None."""
        anim = _animation_module()
        return anim._wrap(call(_lib.CALayerGetAnimation, self, _utf8(key, "animation")), read_only=True)

    animation_for_key = animation

    def action_for_key(self, key):
        """CALayerGetActionForKey: the action the search finds for `key`
        (delegate, actions, style, class, implicit animation), or None."""
        from .transaction import action_for_key
        return action_for_key(self, key)

    @property
    def animation_keys(self):
        """The keys of the layer's animations in the order they were added (a
        new list; unnamed animations are not listed)."""
        keys = _take_value(call(_lib.CALayerCopyAnimationKeys, self))
        return keys if keys is not None else []

    def remove_animation(self, key):
        """Removes the animation under `key` (its delegate hears
        animation_did_stop with finished False); an unknown key does nothing."""
        call(_lib.CALayerRemoveAnimation, self, _utf8(key, "remove_animation"))

    def remove_all_animations(self):
        """Removes every animation of the layer."""
        call(_lib.CALayerRemoveAllAnimations, self)

    def presentation(self):
        """A new read-only copy of the layer showing its animated values at
        the current media time (CALayerCopyPresentationLayer); its sublayers,
        mask and superlayer are presentation copies too."""
        ref = call(_lib.CALayerCopyPresentationLayer, self)
        if not ref:
            raise MemoryError("the library returned NULL without recording an error")
        return _wrap_owned(ref)

    presentation_layer = presentation

    @property
    def model_layer(self):
        """For a presentation copy, the model layer it shows; for a model
        layer, the layer itself."""
        return _wrap(call(_lib.CALayerGetModelLayer, self))

    # MARK: Key-value coding

    def __getitem__(self, key_path):
        """``layer["position.x"]``: CALayerCopyValueForKeyPath, converted to
        Python; None when nothing is there."""
        return _take_value(call(_lib.CALayerCopyValueForKeyPath, self, _utf8(key_path, "a key path")))

    def __setitem__(self, key_path, value):
        """``layer["transform.rotation.z"] = 0.5``: CALayerSetValueForKeyPath;
        missing dictionaries along a custom key path are created."""
        path = _utf8(key_path, "a key path")
        ref = _make_value(value, key_path)
        try:
            call(_lib.CALayerSetValueForKeyPath, self, path, ref)
        finally:
            _lib.CARelease(ref)

    def __delitem__(self, key):
        """Clears a custom key (sets it to nil)."""
        call(_lib.CALayerSetValueForKey, self, _utf8(key, "a key"), None)

    def value_for_key(self, key):
        """Apple's valueForKey:: the property, a custom value, the style
        dictionary's value or the class default; None when nothing."""
        return _take_value(call(_lib.CALayerCopyValueForKey, self, _utf8(key, "a key")))

    def set_value_for_key(self, key, value):
        """Apple's setValue:forKey:. Declared properties are type-checked
        (WrongTypeError); None clears a custom key."""
        ref = None if value is None else _make_value(value, key)
        try:
            call(_lib.CALayerSetValueForKey, self, _utf8(key, "a key"), ref)
        finally:
            _lib.CARelease(ref)

    def value_for_key_path(self, key_path):
        """Same as ``layer[key_path]``."""
        return self[key_path]

    def set_value_for_key_path(self, key_path, value):
        """Same as ``layer[key_path] = value``."""
        self[key_path] = value

    def should_archive_value_for_key(self, key):
        """Apple's -shouldArchiveValueForKey: as observed on Apple's
        QuartzCore: False for a property until it has been set (setting the
        frame sets position and bounds), True after; always False for
        "frame" and "superlayer"."""
        return call(_lib.CALayerShouldArchiveValueForKey, self, _utf8(key, "a key"))

    # MARK: Properties: geometry

    affine_transform = _struct_prop("affine_transform", "AffineTransform", AffineTransform, _as_affine,
                                    "The transform as an AffineTransform (its x-y part), or the identity when "
                                    "the transform is not affine (z scale, rotation about x or y, z "
                                    "translation, perspective), as observed on Apple's QuartzCore.")

    # MARK: Properties: contents

    @property
    def contents(self):
        """The contents: a PixelBuffer, or None. A buffer in a format the
        renderer cannot read (indexed colour, the 10-bit and 4:4:4 Y'CbCr
        formats, registered formats) raises InvalidArgumentError when set;
        every other format renders, converted to BGRA."""
        contents = call(_lib.CALayerGetContents, self)
        return _take_value(call(_lib.CAValueCreateWithObject, contents)) if contents else None

    @contents.setter
    def contents(self, obj):
        if obj is None:
            call(_lib.CALayerSetContents, self, None)
        elif isinstance(obj, Value):
            call(_lib.CALayerSetContents, self, call(_lib.CAValueGetObject, obj))
        elif isinstance(obj, Handle):
            call(_lib.CALayerSetContents, self, obj)
        else:
            raise _wrong_type("contents", "a PixelBuffer or None", obj)

    # MARK: Properties: appearance

    @property
    def mask(self):
        """The mask layer, or None (default). A layer that is a sublayer
        somewhere (or another layer's mask) leaves its old tree and becomes
        the mask, its superlayer this layer (as observed on Apple's
        QuartzCore); an ancestor raises InvalidArgumentError."""
        return _wrap(call(_lib.CALayerGetMask, self))

    @mask.setter
    def mask(self, layer):
        call(_lib.CALayerSetMask, self, _as_layer(layer, "mask"))

    @property
    def shadow_path(self):
        """The shadow's shape as an immutable Path, or None (default: the layer's alpha)."""
        ref = call(_lib.CALayerGetShadowPath, self)
        return _path.Path.from_handle(ref) if ref else None

    @shadow_path.setter
    def shadow_path(self, path):
        if path is not None and not isinstance(path, _path.Path):
            raise _wrong_type("shadow_path", "a Path or None", path)
        # The library keeps its own snapshot of a mutable path.
        call(_lib.CALayerSetShadowPath, self, path)

    @property
    def edge_antialiasing_mask(self):
        """Which edges are antialiased, as an Edge flag (default all four)."""
        return Edge(call(_lib.CALayerGetEdgeAntialiasingMask, self))

    @edge_antialiasing_mask.setter
    def edge_antialiasing_mask(self, mask):
        call(_lib.CALayerSetEdgeAntialiasingMask, self, _integer(mask, "edge_antialiasing_mask", 0xFFFFFFFF))

    # MARK: Properties: CAMediaTiming


class _NotGiven:
    def __repr__(self):
        return "<not given>"


_NOT_GIVEN = _NotGiven()


def _convert(function_from, function_to, what, convert_arg, result):
    def convert(self, value, from_layer=_NOT_GIVEN, *, to_layer=_NOT_GIVEN):
        if from_layer is not _NOT_GIVEN and to_layer is not _NOT_GIVEN:
            raise TypeError(f"{what}() takes from_layer or to_layer, not both")
        arg = convert_arg(value, what)
        if to_layer is not _NOT_GIVEN:
            return result(call(function_to, self, arg, _as_layer(to_layer, what)))
        other = None if from_layer is _NOT_GIVEN else from_layer
        return result(call(function_from, self, arg, _as_layer(other, what)))
    convert.__name__ = what
    convert.__qualname__ = f"Layer.{what}"
    return convert


Layer.convert_point = _convert(_lib.CALayerConvertPointFromLayer, _lib.CALayerConvertPointToLayer,
                               "convert_point", _as_point, Point.from_c)
Layer.convert_point.__doc__ = """convert_point(point, from_layer=None) / convert_point(point, to_layer=other)

Converts a point from `from_layer`'s coordinates to this layer's, or from
this layer's to `to_layer`'s. None means the space the root layer's position
is expressed in (the screen)."""
Layer.convert_rect = _convert(_lib.CALayerConvertRectFromLayer, _lib.CALayerConvertRectToLayer,
                              "convert_rect", _as_rect, Rect.from_c)
Layer.convert_rect.__doc__ = """convert_rect(rect, from_layer=None) / convert_rect(rect, to_layer=other)

Like convert_point; the result is the bounding box of the converted corners."""
Layer.convert_time = _convert(_lib.CALayerConvertTimeFromLayer, _lib.CALayerConvertTimeToLayer,
                              "convert_time", _number, float)
Layer.convert_time.__doc__ = """convert_time(t, from_layer=None) / convert_time(t, to_layer=other)

Converts a time between layers' local times; None means absolute media time."""


def _require_layer(value, what):
    if not isinstance(value, Layer):
        raise _wrong_type(what, "a Layer", value)
    return value


def _layer_parent(cls):
    """The Python class whose layer class is cls's superclass."""
    return next(c for c in cls.__mro__[1:] if isinstance(c, type) and issubclass(c, Layer))


def _builtin_ancestor(cls):
    return next(c for c in cls.__mro__ if c.__dict__.get("_qz_builtin"))


def _create_layer_class(cls):
    """Makes the CALayerClassRef of a Python subclass (once; see Layer.class_ref)."""
    superclass = _layer_parent(cls).class_ref()
    hooks = {name: entry for name, entry in cls.__dict__.items()
             if name in _HOOKS and isinstance(entry, _Hook) and entry.owner is cls}
    table = _lib.CALayerClassCallbacks()
    table.version = 0
    for name in hooks:
        field = _HOOKS[name][0]
        if name == "preferred_frame_size":
            closure = _struct_closure("class", _class_preferred_size)
            setattr(table, field, closure.as_function_pointer(_CLASS_FIELDS[field]))
        else:
            setattr(table, field, _CLASS_THUNKS[name])
    table.release = _class_release
    info = _callbacks.next_id()
    _class_records[info] = _ClassRecord(cls, hooks)
    name = f"{cls.__module__}.{cls.__qualname__}".encode("utf-8", "replace").replace(b"\0", b"?")
    try:
        ref = call(_lib.CALayerClassCreate, name, superclass, ctypes.byref(table), info)
    except BaseException:
        _class_records.pop(info, None)
        raise
    with _class_lock:
        existing = cls.__dict__.get("_qz_class_ref")
        if existing is None:
            # Held for the life of the process: layers of the class may outlive
            # every Python reference to it.
            type.__setattr__(cls, "_qz_class_ref", ref)
            _python_classes[ref] = cls
    if existing is not None:  # another thread made it first
        _lib.CARelease(ref)
        return existing
    return ref


# MARK: - Built-in subclasses


class ScrollLayer(Layer):
    """A CAScrollLayer: shows part of its sublayers, scrolled by its bounds origin."""

    __slots__ = ()
    _qz_builtin = "CAScrollLayer"
    _qz_create = "CAScrollLayerCreate"

    def scroll_to_point(self, point):
        """Makes `point` the bounds origin, as far as scroll_mode allows."""
        call(_lib.CAScrollLayerScrollToPoint, self, _as_point(point, "scroll_to_point"))

    def scroll_to_rect(self, rect):
        """Scrolls by the least amount that makes `rect` visible."""
        call(_lib.CAScrollLayerScrollToRect, self, _as_rect(rect, "scroll_to_rect"))


def _text_string_prop():
    """CATextLayer.string: a str, an AttributedString, or a list of
    (text, attributes) runs (made into an AttributedString)."""
    base = _value_prop("string", "string", "String", "", cls="CATextLayer")

    def fset(self, value):
        if isinstance(value, (list, tuple)):
            from .text import AttributedString
            value = AttributedString(value)
        base.fset(self, value)
    return property(base.fget, fset, doc="The text (default None): a str, drawn in font, font_size and "
                    "foreground_color; or an AttributedString (or a list of (text, attributes) runs) with its own "
                    "fonts and colours. Reads back as a str or an AttributedString (the layer's copy).")


class TextLayer(Layer):
    """A CATextLayer (font size 36, white text, not wrapped by default). It
    draws its string itself at each commit that changed it (laid out by
    Pango: complex scripts, bidirectional text, font fallback), from the top
    of its bounds, at its contents_scale."""

    __slots__ = ()
    _qz_builtin = "CATextLayer"
    _qz_create = "CATextLayerCreate"

    # (string takes attributed strings too; the other text properties come
    # from the property table, _install_properties.)
    string = _text_string_prop()


class TiledLayer(Layer):
    """A CATiledLayer (one level of detail, 256 x 256 tiles by default)."""

    __slots__ = ()
    _qz_builtin = "CATiledLayer"
    _qz_create = "CATiledLayerCreate"

    @classmethod
    def fade_duration(cls):
        """Apple's +fadeDuration: seconds a new tile takes to fade in (0.25
        unless this class or a superclass set another with set_fade_duration)."""
        if cls is TiledLayer:
            return call(_lib.CATiledLayerGetFadeDuration)
        return call(_lib.QZTiledLayerClassGetFadeDuration, cls.class_ref())

    @classmethod
    def set_fade_duration(cls, seconds):
        """Overrides the fade-in of this class's new tiles (0: shown at once);
        QZTiledLayerClassSetFadeDuration. Subclasses inherit it."""
        if cls is TiledLayer:
            raise TypeError("set the fade duration of a subclass of TiledLayer, not of TiledLayer itself")
        call(_lib.QZTiledLayerClassSetFadeDuration, cls.class_ref(), float(seconds))

    # The tiles of every tiled layer are drawn by one pool of worker threads:
    # draw_in_context (or the delegate's draw_layer_in_context) runs there,
    # taking the GIL like any ctypes callback. The library never holds a lock
    # a Python thread could wait for while it waits for the GIL.

    @staticmethod
    def worker_thread_count():
        """The number of threads drawing tiles (QZTiledLayerGetWorkerThreadCount)."""
        return call(_lib.QZTiledLayerGetWorkerThreadCount)

    @staticmethod
    def set_worker_thread_count(count):
        """Sets the number of threads drawing tiles (0: the machine's cores)."""
        call(_lib.QZTiledLayerSetWorkerThreadCount, int(count))

    @staticmethod
    def cache_memory_limit():
        """The memory budget of all tiles, in bytes (default 128 MiB)."""
        return call(_lib.QZTiledLayerGetCacheMemoryLimit)

    @staticmethod
    def set_cache_memory_limit(nbytes):
        """Sets the memory budget of all tiles; the least recently visible go first."""
        call(_lib.QZTiledLayerSetCacheMemoryLimit, int(nbytes))

    @staticmethod
    def cache_memory_usage():
        """Bytes the drawn tiles hold now."""
        return call(_lib.QZTiledLayerGetCacheMemoryUsage)

    @staticmethod
    def wait_for_tiles(timeout=math.inf):
        """Waits until no tile is queued or drawing; False on time-out. The
        GIL is released while waiting (drawing in Python goes on)."""
        return bool(call(_lib.QZTiledLayerWaitForTiles, float(timeout)))

    @staticmethod
    def cancel_pending_tiles(timeout=math.inf):
        """Drops the queued tiles and waits for those drawing; False on time-out."""
        return bool(call(_lib.QZTiledLayerCancelPendingTiles, float(timeout)))

    @staticmethod
    def drawn_tile_count():
        """Tiles drawn since the library loaded or reset_statistics()."""
        return call(_lib.QZTiledLayerGetDrawnTileCount)

    @staticmethod
    def max_concurrent_drawing():
        """The most tiles drawn at the same moment since reset_statistics()."""
        return call(_lib.QZTiledLayerGetMaxConcurrentDrawing)

    @staticmethod
    def reset_statistics():
        call(_lib.QZTiledLayerResetStatistics)


def _cancel_tiles_at_exit():
    # Worker threads must not call into Python while the interpreter goes
    # away: drop the queue and let the drawings in progress finish first.
    try:
        _lib.QZTiledLayerCancelPendingTiles(10.0)
    except BaseException:  # noqa: BLE001 -- interpreter exit
        pass


atexit.register(_cancel_tiles_at_exit)


class EAGLLayer(Layer):
    """A CAEAGLLayer: a layer whose contents an OpenGL ES context draws.

    ``drawable_properties`` is a dict with the keys
    ``kEAGLDrawablePropertyRetainedBacking`` (a bool) and
    ``kEAGLDrawablePropertyColorFormat`` (``kEAGLColorFormatRGBA8`` or
    ``kEAGLColorFormatRGB565``), Apple's strings (see
    :data:`quartzite.gl.RETAINED_BACKING` and friends). The GL side (storage
    for a renderbuffer, presenting it) is :class:`quartzite.gl.EAGLContext`."""

    __slots__ = ()
    _qz_builtin = "CAEAGLLayer"
    _qz_create = "CAEAGLLayerCreate"

    # (drawable_properties comes from the property table, _install_properties.)


class GradientLayer(Layer):
    """A CAGradientLayer: a gradient over its background, inside its
    (rounded) bounds. ``colors`` is a list of Color (None: nothing drawn),
    ``locations`` a list of numbers in [0, 1], one per colour (None: even),
    ``start_point`` (default (0.5, 0)) and ``end_point`` ((0.5, 1)) are in
    the unit square of the bounds, ``type`` is "axial" (default), "radial"
    or "conic". Colours, locations and the points animate::

        sky = GradientLayer(frame=(0, 0, 320, 240),
                            colors=[Color(0.2, 0.4, 0.9), Color(0.9, 0.6, 0.3)])
    """

    __slots__ = ()
    _qz_builtin = "CAGradientLayer"
    _qz_create = "CAGradientLayerCreate"

    # (The properties come from the property table, _install_properties.)


class ShapeLayer(Layer):
    """A CAShapeLayer: a path filled and stroked, drawn every frame from the
    presentation values. ``path`` is a Path (None: nothing drawn);
    ``fill_color`` (default opaque black; None: no fill), ``fill_rule``
    ("non-zero" or "even-odd"), ``stroke_color`` (default None: no stroke),
    ``stroke_start``/``stroke_end`` (0 and 1: the part of the path stroked),
    ``line_width`` (1), ``miter_limit`` (10), ``line_cap`` ("butt", "round",
    "square"), ``line_join`` ("miter", "round", "bevel"), ``line_dash_phase``
    and ``line_dash_pattern`` (a list of lengths, or None)::

        ring = ShapeLayer(path=Path.ellipse((10, 10, 80, 80)), fill_color=None,
                          stroke_color=Color(0.2, 0.8, 0.4), line_width=6, stroke_end=0.3)
    """

    __slots__ = ()
    _qz_builtin = "CAShapeLayer"
    _qz_create = "CAShapeLayerCreate"

    @property
    def path(self):
        """The path as an immutable Path, or None (default)."""
        ref = call(_lib.CAShapeLayerGetPath, self)
        return _path.Path.from_handle(ref) if ref else None

    @path.setter
    def path(self, path):
        if path is not None and not isinstance(path, _path.Path):
            raise _wrong_type("path", "a Path or None", path)
        # The library keeps its own snapshot of a mutable path.
        call(_lib.CAShapeLayerSetPath, self, path)

    # (The other properties come from the property table, _install_properties.)


class ReplicatorLayer(Layer):
    """A CAReplicatorLayer: its sublayers drawn ``instance_count`` times
    (default 1) by the renderer, without adding layers to the tree. Instance
    k is moved by ``instance_transform`` k times (about the centre of the
    bounds), multiplied by ``instance_color`` (default opaque white) plus k
    times ``instance_red_offset``/``green``/``blue``/``alpha`` (clamped to
    0...1), and shows its sublayers' animations ``instance_delay`` x k
    seconds later. ``preserves_depth`` draws the instances back to front::

        spinner = ReplicatorLayer(bounds=(0, 0, 100, 100), instance_count=12,
                                  instance_transform=Transform3D.rotation(math.pi / 6, 0, 0, 1),
                                  instance_delay=1 / 12, instance_alpha_offset=-1 / 12)
    """

    __slots__ = ()
    _qz_builtin = "CAReplicatorLayer"
    _qz_create = "CAReplicatorLayerCreate"

    # (The properties come from the property table, _install_properties.)


class EmitterLayer(Layer):
    """A CAEmitterLayer: particles of its ``emitter_cells`` (EmitterCell
    objects) drawn by the renderer as a function of the layer's time and
    ``seed``, from ``emitter_position`` over ``emitter_shape`` ("point",
    "line", "rectangle", "cuboid", "circle", "sphere") in ``emitter_mode``;
    ``render_mode`` "additive" adds their colours. ``birth_rate``,
    ``lifetime``, ``velocity``, ``scale`` and ``spin`` multiply the cells'::

        emitter = EmitterLayer(bounds=(0, 0, 200, 200), emitter_position=(100, 100), seed=7)
        emitter.emitter_cells = [EmitterCell(birth_rate=30, lifetime=1, velocity=50, contents=image)]
    """

    __slots__ = ()
    _qz_builtin = "CAEmitterLayer"
    _qz_create = "CAEmitterLayerCreate"

    @property
    def emitter_cells(self):
        """The cells (a list of EmitterCell); set with a list (not animated)."""
        from .emitter import _cells
        return _cells(_lib.CAEmitterLayerGetEmitterCellCount, _lib.CAEmitterLayerGetEmitterCellAtIndex, self)

    @emitter_cells.setter
    def emitter_cells(self, cells):
        from .emitter import _set_cells
        _set_cells(_lib.CAEmitterLayerSetEmitterCells, self, cells)

    @property
    def preserves_depth(self):
        """Whether particles keep their depth (default False; not animated)."""
        return call(_lib.CAEmitterLayerGetPreservesDepth, self)

    @preserves_depth.setter
    def preserves_depth(self, value):
        call(_lib.CAEmitterLayerSetPreservesDepth, self, _flag(value, "preserves_depth"))

    # (The other properties come from the property table, _install_properties.)


for _builtin in (Layer, ScrollLayer, TextLayer, TiledLayer, EAGLLayer, GradientLayer, ShapeLayer, ReplicatorLayer,
                 EmitterLayer):
    _python_classes[_builtin.class_ref()] = _builtin
del _builtin


# MARK: - The property table's properties


def _install_properties():
    """Adds the properties of the property table (_layer_properties, generated
    with the C functions from scripts/generate-layer-properties.py) to the
    classes that declare them."""
    classes = {"CALayer": Layer, "CAScrollLayer": ScrollLayer, "CATextLayer": TextLayer, "CATiledLayer": TiledLayer,
               "CAEAGLLayer": EAGLLayer, "CAGradientLayer": GradientLayer,
               "CAShapeLayer": ShapeLayer, "CAReplicatorLayer": ReplicatorLayer, "CAEmitterLayer": EmitterLayer}
    for cls_name, attr, kind, suffix, key, doc, extra in _layer_properties.PROPERTIES:
        if kind == "struct":
            prop = _struct_prop(attr, suffix, globals()[extra[0]], globals()[extra[1]], doc, cls=cls_name)
        elif kind == "value":
            prop = _value_prop(attr, key, suffix, doc, cls=cls_name)
        else:
            factory = {"number": _number_prop, "integer": _integer_prop, "bool": _bool_prop,
                       "string": _string_prop, "name": _name_prop, "color": _color_prop}[kind]
            prop = factory(attr, suffix, doc, cls=cls_name)
        setattr(classes[cls_name], attr, prop)


_install_properties()
