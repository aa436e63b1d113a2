"""quartzite.Layer callbacks: delegates, layout managers, Python subclasses as
layer classes, and the layer tree used from several threads."""
import ctypes
import gc
import math
import threading
import types
import weakref

import pytest

from quartzite import (
    _lib, Color, Context, Layer, NotFiniteError, Rect, ScrollLayer, Size, TextLayer, Transform3D,
    WrongTypeError,
)


@pytest.fixture
def unraisable(monkeypatch):
    """Exceptions reported from inside C callbacks."""
    reported = []
    monkeypatch.setattr("sys.unraisablehook", reported.append)
    return reported


class Recorder:
    """A delegate that records every call."""

    def __init__(self):
        self.calls = []

    def display_layer(self, layer):
        self.calls.append(("display_layer", layer))

    def draw_layer_in_context(self, layer, ctx):
        self.calls.append(("draw_layer_in_context", layer, ctx.clip_bounding_box))

    def layout_sublayers_of_layer(self, layer):
        self.calls.append(("layout_sublayers_of_layer", layer))


# MARK: - Delegates


def test_delegate_lays_out_through_layout_if_needed():
    parent = Layer()
    delegate = Recorder()
    parent.delegate = delegate
    child = parent.add(Layer())  # adding a sublayer marks the parent for layout
    assert parent.needs_layout
    child.layout_if_needed()  # climbs to the highest marked ancestor
    assert delegate.calls == [("layout_sublayers_of_layer", parent)]
    assert delegate.calls[0][1] is parent
    assert not parent.needs_layout
    parent.layout_if_needed()
    assert len(delegate.calls) == 1  # nothing marked any more


def test_delegate_display_layer_wins_over_drawing():
    layer = Layer(bounds=(0, 0, 10, 10))
    delegate = Recorder()
    layer.delegate = delegate
    layer.set_needs_display()
    layer.display()
    assert delegate.calls == [("display_layer", layer)]
    assert not layer.needs_display


def test_delegate_draws_in_a_context_clipped_to_the_marked_area():
    layer = Layer(bounds=(0, 0, 100, 50))
    drawn = []
    layer.delegate = types.SimpleNamespace(
        draw_layer_in_context=lambda l, ctx: drawn.append((l, type(ctx), ctx.clip_bounding_box)))
    layer.display()  # the first display makes the backing store: drawn whole
    assert drawn == [(layer, Context, Rect(0, 0, 100, 50))]
    layer.set_needs_display_in_rect((10, 10, 20, 5))
    layer.display_if_needed()
    assert drawn[1:] == [(layer, Context, Rect(10, 10, 20, 5))]
    layer.display_if_needed()  # not marked: nothing drawn
    assert len(drawn) == 2


def test_delegate_without_methods_installs_nothing():
    layer = Layer()
    layer.delegate = object()
    layer.set_needs_display()
    layer.display()
    layer.layout_sublayers()
    assert not layer.needs_display


def test_delegate_is_kept_alive_until_replaced_or_the_layer_dies():
    layer = Layer()
    first = Recorder()
    watch = weakref.ref(first)
    layer.delegate = first
    del first
    gc.collect()
    assert watch() is not None and layer.delegate is watch()
    layer.delegate = Recorder()  # the library calls release for the old one
    gc.collect()
    assert watch() is None
    second = layer.delegate
    watch = weakref.ref(second)
    del second
    del layer  # freeing the layer releases its delegate
    gc.collect()
    assert watch() is None


def test_delegate_none_removes_it():
    layer = Layer()
    delegate = Recorder()
    layer.delegate = delegate
    layer.delegate = None
    assert layer.delegate is None
    layer.display()
    assert delegate.calls == []


def test_delegate_exceptions_are_reported_not_raised(unraisable):
    layer = Layer()

    class Broken:
        def display_layer(self, layer):
            raise ValueError("display exploded")

    layer.delegate = Broken()
    layer.display()  # does not raise
    assert len(unraisable) == 1
    assert isinstance(unraisable[0].exc_value, ValueError)
    assert "display_layer" in unraisable[0].err_msg
    layer.opacity = 0.5  # the library is still usable
    assert layer.opacity == 0.5


def test_errors_inside_callbacks_do_not_fail_the_triggering_call():
    class Careful:
        def display_layer(self, layer):
            with pytest.raises(NotFiniteError):
                layer.opacity = math.nan
            self.handled = True

    layer = Layer()
    layer.delegate = careful = Careful()
    layer.display()  # the callback's own (handled) error is not this call's
    assert careful.handled
    assert _lib.QZGetLastError() == 0


def test_delegate_action_answer_none_means_no_answer():
    layer = Layer()
    asked = []
    layer.delegate = types.SimpleNamespace(action_for_layer_for_key=lambda l, k: asked.append(k))
    layer.opacity = 0.5  # no action machinery yet: installing it must simply work
    assert layer.opacity == 0.5


# MARK: - Layout managers


class Manager:
    def __init__(self, size=(0, 0)):
        self.calls = []
        self.size = size

    def invalidate_layout_of_layer(self, layer):
        self.calls.append(("invalidate", layer))

    def layout_sublayers_of_layer(self, layer):
        self.calls.append(("layout", layer))
        y = 0.0
        for sublayer in layer:
            sublayer.frame = (0, y, layer.bounds.size.width, 10)
            y += 10

    def preferred_size_of_layer(self, layer):
        self.calls.append(("size", layer))
        return self.size


def test_layout_manager_stacks_sublayers():
    column = Layer(bounds=(0, 0, 50, 100))
    manager = Manager()
    column.layout_manager = manager
    column.layout_if_needed()   # (setting the bounds left a layout pending: the manager was not there to hear it)
    a, b = column.add(Layer()), column.add(Layer())
    assert manager.calls.count(("invalidate", column)) == 1   # once per pending layout
    column.layout_if_needed()
    assert ("layout", column) in manager.calls
    assert a.frame == Rect(0, 0, 50, 10)
    assert b.frame == Rect(0, 10, 50, 10)
    assert column.layout_manager is manager


def test_layout_manager_preferred_size():
    layer = Layer(bounds=(0, 0, 5, 5))
    layer.layout_manager = Manager(size=(120, 30))
    assert layer.preferred_frame_size() == Size(120, 30)
    layer.layout_manager = Manager(size=Size(7, 8))
    assert layer.preferred_frame_size() == Size(7, 8)
    layer.layout_manager = None
    assert layer.preferred_frame_size() == Size(5, 5)


def test_layout_manager_bad_size_is_reported_and_the_default_used(unraisable):
    layer = Layer(bounds=(0, 0, 5, 6))
    layer.layout_manager = Manager(size="big")
    assert layer.preferred_frame_size() == Size(5, 6)
    assert isinstance(unraisable[0].exc_value, TypeError)


def test_delegate_layout_wins_over_the_layout_manager():
    layer = Layer()
    delegate, manager = Recorder(), Manager()
    layer.delegate = delegate
    layer.layout_manager = manager
    layer.layout_sublayers()
    assert delegate.calls == [("layout_sublayers_of_layer", layer)]
    assert ("layout", layer) not in manager.calls


# MARK: - Python subclasses as layer classes


class Badge(TextLayer):
    """count is a custom property that redraws the badge."""

    @classmethod
    def needs_display_for_key(cls, key):
        return key == "count" or super().needs_display_for_key(key)

    @classmethod
    def default_value_for_key(cls, key):
        if key == "count":
            return 0
        if key == "fontSize":
            return 12
        return super().default_value_for_key(key)

    def draw_in_context(self, ctx):
        self.drawn.append((self, ctx.clip_bounding_box))

    def __init__(self, **properties):
        super().__init__(**properties)
        self.drawn = []


def test_subclass_is_a_layer_class_deriving_from_its_parent():
    badge = Badge()
    assert badge.class_name.endswith("Badge")
    superclass = _lib.CALayerClassGetSuperclass(_lib.CALayerGetClass(badge.handle))
    assert _lib.CALayerClassGetName(superclass) == b"CATextLayer"
    assert badge.foreground_color == Color(1, 1, 1)  # a text layer's default


def test_subclass_default_values():
    badge = Badge()
    assert badge["count"] == 0.0
    assert badge.font_size == 12.0  # a declared property's default, overridden
    assert badge.string is None
    assert Badge.default_value_for_key("count") == 0
    assert Badge.default_value_for_key("fontSize") == 12.0
    assert Badge.default_value_for_key("wrapped") is False  # super() reached the built-in default


def test_subclass_needs_display_for_key():
    badge = Badge(bounds=(0, 0, 30, 20))
    badge.display()
    assert not badge.needs_display
    badge.opacity = 0.5
    assert not badge.needs_display
    badge["count"] = 3
    assert badge.needs_display
    assert Badge.needs_display_for_key("count") is True
    assert Badge.needs_display_for_key("opacity") is False


def test_subclass_draw_in_context_receives_a_context():
    badge = Badge(bounds=(0, 0, 30, 20))
    badge["count"] = 3
    badge.display_if_needed()
    assert badge.drawn == [(badge, Rect(0, 0, 30, 20))]
    assert badge.drawn[0][0] is badge  # the same Python object, state and all
    assert not badge.needs_display


class Cell(Layer):
    def display(self):
        self.log.append("display")
        super().display()

    def layout_sublayers(self):
        self.log.append("layout")
        for sublayer in self:
            sublayer.bounds = self.bounds

    def preferred_frame_size(self):
        return Size(self.bounds.size.width * 2, 10)

    def __init__(self, **properties):
        super().__init__(**properties)
        self.log = []


def test_overridden_display_goes_through_the_library():
    cell = Cell(bounds=(0, 0, 4, 4))
    delegate = Recorder()
    cell.delegate = delegate
    cell.set_needs_display()
    cell.display()  # CALayerDisplay -> the override -> super(): the delegate
    assert cell.log == ["display"]
    assert delegate.calls == [("display_layer", cell)]
    assert not cell.needs_display  # the library's bookkeeping happened


def test_overridden_layout_and_preferred_size():
    cell = Cell(bounds=(0, 0, 40, 30))
    child = cell.add(Layer())
    cell.layout_if_needed()
    assert cell.log == ["layout"]
    assert child.bounds == Rect(0, 0, 40, 30)
    assert cell.preferred_frame_size() == Size(80, 10)
    assert _lib.CALayerGetPreferredFrameSize(cell.handle).width == 80.0


class WideCell(Cell):
    def preferred_frame_size(self):
        base = super().preferred_frame_size()  # Cell's override, run directly
        return (base.width + 1, base.height + 1)

    def display(self):
        self.log.append("wide")
        super().display()


def test_super_chains_through_python_classes():
    cell = WideCell(bounds=(0, 0, 10, 10))
    assert cell.preferred_frame_size() == Size(21, 11)
    cell.display()
    assert cell.log == ["wide", "display"]
    # Naming a class calls its own override, as super() does; the most derived
    # one sends the message through the library; Layer's is CALayer's own.
    assert Cell.preferred_frame_size(cell) == Size(20, 10)
    assert WideCell.preferred_frame_size(cell) == Size(21, 11)
    assert Layer.preferred_frame_size(cell) == Size(10, 10)


def test_callbacks_get_the_live_python_object_or_a_new_wrapper():
    parent = Layer()
    parent.add(Cell(bounds=(0, 0, 5, 5)))
    gc.collect()  # the Python object is gone; the layer lives in the tree
    cell = parent.sublayers[0]
    assert type(cell) is Cell
    assert not hasattr(cell, "log")  # made without __init__
    cell.log = []
    cell.set_needs_layout()
    cell.layout_if_needed()
    assert cell.log == ["layout"]


def test_subclass_of_a_subclass_inherits_overrides():
    class Tiny(Badge):
        pass

    tiny = Tiny(bounds=(0, 0, 1, 1))
    assert tiny["count"] == 0.0
    tiny["count"] = 1
    assert tiny.needs_display
    tiny.display()
    assert tiny.drawn == [(tiny, Rect(0, 0, 1, 1))]


def test_overrides_from_a_mixin_are_adopted():
    class Draws:
        def draw_in_context(self, ctx):
            self.seen = ctx.clip_bounding_box

    class Mixed(Draws, Layer):
        pass

    layer = Mixed(bounds=(0, 0, 3, 3))
    layer.set_needs_display()
    layer.display()
    assert layer.seen == Rect(0, 0, 3, 3)


def test_override_exceptions_are_reported(unraisable):
    class Faulty(Layer):
        @classmethod
        def default_value_for_key(cls, key):
            if key == "answer":
                raise KeyError(key)
            return super().default_value_for_key(key)

        def display(self):
            raise RuntimeError("no")

    layer = Faulty()
    assert layer["answer"] is None
    layer.display()
    kinds = [type(u.exc_value) for u in unraisable]
    assert KeyError in kinds and RuntimeError in kinds


def test_runaway_recursion_through_the_library_is_cut(unraisable):
    class Loop(Layer):
        def display(self):
            self.display()  # each call goes through CALayerDisplay and back

    Loop().display()  # returns instead of overflowing the C stack
    assert len(unraisable) == 1
    assert isinstance(unraisable[0].exc_value, RecursionError)
    assert "64" in str(unraisable[0].exc_value)


def test_default_value_answers_must_be_convertible(unraisable):
    class Odd(Layer):
        @classmethod
        def default_value_for_key(cls, key):
            return object() if key == "odd" else None

    assert Odd()["odd"] is None
    assert any(isinstance(u.exc_value, TypeError) for u in unraisable)


def test_a_default_of_the_wrong_type_fails_construction():
    class Loud(TextLayer):
        @classmethod
        def default_value_for_key(cls, key):
            return "huge" if key == "fontSize" else None

    with pytest.raises(WrongTypeError) as excinfo:
        Loud()
    assert "fontSize" in excinfo.value.message


def test_struct_returning_closures_return_by_value():
    from quartzite import _closures
    closure = _closures.struct_callback(_lib.CGSize, [ctypes.c_void_p, ctypes.c_void_p],
                                        lambda layer, info: (float(layer) / 2, float(info) * 3))
    function = ctypes.CFUNCTYPE(_lib.CGSize, ctypes.c_void_p, ctypes.c_void_p)(closure.address)
    size = function(10, 7)
    assert (size.width, size.height) == (5.0, 21.0)


def test_bad_hook_definitions_are_refused():
    with pytest.raises(TypeError, match="must be a method"):
        class Wrong(Layer):
            @classmethod
            def display(cls):
                pass
    with pytest.raises(TypeError, match="one chain of layer superclasses"):
        class Both(TextLayer, ScrollLayer):
            pass


def test_static_class_hooks_and_plain_function_hooks():
    class Static(Layer):
        @staticmethod
        def needs_display_for_key(key):
            return key == "redraw"

        def default_value_for_key(cls, key):  # taken as a class method
            return "x" if key == "letter" else None

    layer = Static()
    layer["redraw"] = 1
    assert layer.needs_display
    assert layer["letter"] == "x"


def test_transform_default_from_a_subclass():
    class Tilted(Layer):
        @classmethod
        def default_value_for_key(cls, key):
            return Transform3D.rotation(0.5, 0, 0, 1) if key == "transform" else None

    assert Tilted().transform == Transform3D.rotation(0.5, 0, 0, 1)
    assert Layer().transform == Transform3D.identity()


# MARK: - Threads


def test_threads_share_a_parent():
    parent = Layer()
    per_thread = 50
    kept = [[Layer(name=f"{t}-{i}") for i in range(per_thread)] for t in range(4)]
    errors = []
    barrier = threading.Barrier(4)

    def work(index):
        try:
            mine = kept[index]
            barrier.wait()
            for round_ in range(3):
                for layer in mine:
                    parent.add(layer)
                for layer in mine[::2]:
                    layer.remove_from_superlayer()
                if round_ < 2:
                    for layer in mine[1::2]:
                        layer.remove_from_superlayer()
                list(parent)  # snapshots while others mutate
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(parent) == 4 * per_thread // 2
    names = sorted(layer.name for layer in parent)
    assert names == sorted(f"{t}-{i}" for t in range(4) for i in range(1, per_thread, 2))
    for layer in parent:
        assert layer.superlayer is parent
    for t in range(4):
        for layer in kept[t][::2]:
            assert layer.superlayer is None


def test_threads_run_callbacks_of_their_own_layers():
    results = {}

    class Counter(Layer):
        def layout_sublayers(self):
            self.count = getattr(self, "count", 0) + 1

    def work(index):
        layers = [Counter() for _ in range(100)]
        for layer in layers:
            layer.set_needs_layout()
            layer.layout_if_needed()
        results[index] = sum(layer.count for layer in layers)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == {0: 100, 1: 100, 2: 100, 3: 100}
