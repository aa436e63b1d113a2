"""quartzite.animation: timing functions, the CAAnimation classes, animations
on layers, presentation layers and delegates, on a fake media clock."""
import gc
import math
import weakref

import pytest

import quartzite
from quartzite import (
    _lib, Animation, AnimationGroup, BasicAnimation, InvalidStateError, KeyframeAnimation, Layer,
    NotFiniteError, NullArgumentError, OutOfRangeError, Path, Point, PropertyAnimation, TimingFunction,
    Transform3D, Transition, UnknownConstantError, WrongTypeError,
)

from media_clock import Clock

START = 1000.0


class SteppedClock(Clock):
    """The media clock, stepped by hand, with time given from START."""

    def at(self, offset):
        """Sets the time to START + offset. What this thread changed first
        commits at the old time, as at the end of a run-loop turn (animations
        added with beginTime 0 start when their transaction commits)."""
        quartzite.transaction.flush()
        self.now = START + offset
        return self


@pytest.fixture
def clock():
    fake = SteppedClock(START)
    quartzite.set_media_time_source(fake)
    yield fake
    quartzite.set_media_time_source(None)


@pytest.fixture
def unraisable(monkeypatch):
    """Exceptions reported from inside C callbacks."""
    reported = []
    monkeypatch.setattr("sys.unraisablehook", reported.append)
    return reported


def x_at(layer, clock, offset):
    """The presentation layer's position.x at START + offset."""
    clock.at(offset)
    return layer.presentation().position.x


def model_layer():
    return Layer(position=(100, 50), bounds=(0, 0, 20, 20))


# MARK: - Timing functions


def test_named_timing_functions_solve_like_apple():
    ease = TimingFunction.named("easeInEaseOut")
    assert ease(0.5) == pytest.approx(0.5, abs=1e-7)
    assert ease(0) == 0 and ease(1) == 1
    assert TimingFunction.named("linear")(0.3) == pytest.approx(0.3, abs=1e-7)
    assert TimingFunction.named("easeIn")(0.5) < 0.5 < TimingFunction.named("easeOut")(0.5)
    assert ease.solve(0.25) == ease(0.25)


def test_control_points_of_the_default_curve():
    points = TimingFunction.named("default").control_points
    assert points == [(0.0, 0.0), (0.25, 0.1), (0.25, 1.0), (1.0, 1.0)]
    assert points[1] == pytest.approx((0.25, 0.1))
    assert TimingFunction.named("default").control_point(2) == (0.25, 1.0)


def test_timing_function_from_control_points():
    f = TimingFunction(0.1, 0.2, 0.3, 0.4)
    assert f.control_points == [(0, 0), (0.1, 0.2), (0.3, 0.4), (1, 1)]
    assert f == TimingFunction(0.1, 0.2, 0.3, 0.4)
    assert hash(f) == hash(TimingFunction(0.1, 0.2, 0.3, 0.4))
    assert f != TimingFunction.named("linear")
    assert repr(f) == "TimingFunction(0.1, 0.2, 0.3, 0.4)"


def test_timing_function_constants():
    assert TimingFunction.EASE_IN == TimingFunction.named(_lib.kCAMediaTimingFunctionEaseIn.decode())
    assert TimingFunction.EASE_IN.control_points[1:3] == [(0.42, 0.0), (1.0, 1.0)]
    assert TimingFunction.EASE_OUT.control_points[1:3] == [(0.0, 0.0), (0.58, 1.0)]
    assert TimingFunction.EASE_IN_EASE_OUT.control_points[1:3] == [(0.42, 0.0), (0.58, 1.0)]
    assert TimingFunction.DEFAULT == TimingFunction.named("default")
    assert TimingFunction.LINEAR(0.7) == pytest.approx(0.7, abs=1e-7)


def test_timing_function_adopt_checks_the_handle_type():
    anim = BasicAnimation("opacity")
    with pytest.raises(WrongTypeError):
        TimingFunction.adopt(_lib.CARetain(anim.handle))  # released again
    assert TimingFunction.adopt(_lib.CAMediaTimingFunctionCreateWithName(b"easeOut")) == TimingFunction.EASE_OUT


def test_timing_function_errors():
    with pytest.raises(UnknownConstantError):
        TimingFunction.named("bouncy")
    with pytest.raises(OutOfRangeError):
        TimingFunction.named("linear").control_point(4)
    with pytest.raises(OutOfRangeError):
        TimingFunction.named("linear").control_point(-1)
    with pytest.raises(NotFiniteError):
        TimingFunction(math.nan, 0, 1, 1)
    with pytest.raises(quartzite.QuartziteError):
        TimingFunction(1.5, 0, 1, 1)  # time must run forwards
    with pytest.raises(WrongTypeError):
        TimingFunction("a", 0, 1, 1)


# MARK: - Animation objects


def test_animation_base_classes_are_abstract_except_the_plain_animation():
    # Animation() is Apple's +[CAAnimation animation] (CAAnimationCreate):
    # a plain animation, no longer an abstract class.
    plain = Animation(duration=2)
    assert type(plain) is Animation and plain.class_name == "CAAnimation" and plain.duration == 2
    with pytest.raises(TypeError):
        PropertyAnimation()


def test_media_timing_defaults_and_round_trips():
    a = BasicAnimation("opacity")
    assert (a.begin_time, a.duration, a.speed, a.time_offset, a.repeat_count, a.repeat_duration) == (0, 0, 1, 0, 0, 0)
    assert a.autoreverses is False and a.fill_mode == "removed" and a.timing_function is None
    assert a.removed_on_completion is True and a.delegate is None
    a.begin_time, a.duration, a.speed, a.time_offset = 2.5, 1.5, 0.1, 0.25
    a.repeat_count, a.repeat_duration, a.autoreverses, a.fill_mode = 2.5, 4, True, "both"
    a.removed_on_completion = False
    assert (a.begin_time, a.duration, a.speed, a.time_offset) == (2.5, 1.5, 0.1, 0.25)
    assert (a.repeat_count, a.repeat_duration, a.autoreverses, a.fill_mode) == (2.5, 4, True, "both")
    assert a.removed_on_completion is False
    a.repeat_count = math.inf
    assert a.repeat_count == math.inf
    a.repeat_duration = math.inf
    assert a.repeat_duration == math.inf


def test_constructor_keywords_set_properties():
    a = BasicAnimation("position", from_value=Point(1, 2), to_value=Point(3, 4), duration=2,
                       fill_mode="forwards", timing_function="easeIn", additive=True)
    assert a.key_path == "position"
    assert a.from_value == Point(1, 2) and a.to_value == Point(3, 4) and a.by_value is None
    assert a.duration == 2 and a.fill_mode == "forwards" and a.additive is True
    assert a.timing_function == TimingFunction.EASE_IN
    with pytest.raises(TypeError):
        BasicAnimation("opacity", colour=1)


def test_property_animation_properties():
    a = BasicAnimation()
    assert a.key_path is None and a.additive is False and a.cumulative is False and a.value_function is None
    a.key_path = "transform"
    a.value_function = "rotateZ"
    a.cumulative = True
    assert (a.key_path, a.value_function, a.cumulative) == ("transform", "rotateZ", True)
    a.value_function = None
    assert a.value_function is None
    with pytest.raises(UnknownConstantError):
        a.value_function = "wobble"


def test_basic_animation_values_accept_python_values():
    a = BasicAnimation("transform", from_value=Transform3D.identity(), to_value=Transform3D.scale(2, 2, 1))
    assert a.to_value == Transform3D.scale(2, 2, 1)
    a.by_value = [1, 2, 3]
    assert a.by_value == [1.0, 2.0, 3.0]
    a.from_value = None
    assert a.from_value is None
    with pytest.raises(WrongTypeError):
        a.to_value = object()


def test_timing_function_property():
    a = BasicAnimation("opacity", timing_function=TimingFunction(0.1, 0.2, 0.3, 0.4))
    assert isinstance(a.timing_function, TimingFunction)
    assert a.timing_function.control_points[1] == (0.1, 0.2)
    a.timing_function = None
    assert a.timing_function is None
    with pytest.raises(WrongTypeError):
        a.timing_function = 3
    with pytest.raises(UnknownConstantError):
        a.timing_function = "bouncy"


def test_keyframe_animation_properties():
    k = KeyframeAnimation("position.x", values=[0, 10, 30], key_times=[0, 0.5, 1])
    assert k.values == [0, 10, 30] and k.key_times == [0, 0.5, 1]
    assert k.calculation_mode == "linear" and k.rotation_mode is None and k.path is None
    assert k.timing_functions is None and k.tension_values is None
    k.calculation_mode = "cubic"
    k.tension_values, k.continuity_values, k.bias_values = [0, 1, 0], [0.5, 0, 0], [0, 0, -1]
    assert k.calculation_mode == "cubic"
    assert (k.tension_values, k.continuity_values, k.bias_values) == ([0, 1, 0], [0.5, 0, 0], [0, 0, -1])
    k.tension_values = None
    assert k.tension_values is None
    k.timing_functions = [TimingFunction.EASE_IN, "linear"]
    assert k.timing_functions == [TimingFunction.EASE_IN, TimingFunction.LINEAR]
    k.timing_functions = None
    assert k.timing_functions is None
    k.rotation_mode = "auto"
    assert k.rotation_mode == "auto"
    k.rotation_mode = None
    assert k.rotation_mode is None
    k.values = quartzite.Value([Point(1, 2), Point(3, 4)])
    assert k.values == [Point(1, 2), Point(3, 4)]
    k.values = None
    k.key_times = None
    assert k.values is None and k.key_times is None


def test_keyframe_path_is_copied_when_mutable():
    path = Path().move_to(0, 0).line_to(100, 0)
    k = KeyframeAnimation("position", path=path, rotation_mode="autoReverse")
    path.line_to(100, 100)
    assert isinstance(k.path, Path)
    assert len(k.path) == 2 and len(path) == 3
    k.path = None
    assert k.path is None
    with pytest.raises(WrongTypeError):
        k.path = [(0, 0), (1, 1)]


def test_keyframe_errors():
    k = KeyframeAnimation("position.x")
    with pytest.raises(UnknownConstantError):
        k.calculation_mode = "bouncy"
    with pytest.raises(NullArgumentError):
        k.calculation_mode = None
    with pytest.raises(UnknownConstantError):
        k.rotation_mode = "sideways"
    with pytest.raises(WrongTypeError):
        k.key_times = [0, "half", 1]
    with pytest.raises(WrongTypeError):
        k.values = 5
    with pytest.raises(WrongTypeError):
        k.timing_functions = [TimingFunction.LINEAR, 3]
    with pytest.raises(WrongTypeError):
        k.tension_values = "0 1"
    with pytest.raises((AttributeError, WrongTypeError)):
        k.from_value = 1
    with pytest.raises(AttributeError):
        k.to_value  # noqa: B018 -- a keyframe animation has no to_value


def test_group_and_transition_properties():
    child = BasicAnimation("opacity", to_value=0)
    g = AnimationGroup([child, Transition()], duration=2)
    kids = g.animations
    assert [type(a) for a in kids] == [BasicAnimation, Transition]
    assert len(g) == 2 and list(g) == kids
    # Observed on Apple's QuartzCore: the group holds the very animations it
    # was given (it used to hold copies).
    assert kids[0] is child
    assert kids[0].to_value == 0
    g.animations = []
    assert g.animations == [] and len(g) == 0
    with pytest.raises(WrongTypeError):
        g.animations = [child, "opacity"]
    with pytest.raises(AttributeError):
        g.key_path = "opacity"

    t = Transition(type="push", subtype="fromLeft", start_progress=0.1)
    assert (t.type, t.subtype, t.start_progress, t.end_progress) == ("push", "fromLeft", 0.1, 1.0)
    t.end_progress = 2  # kept as given (it used to be clamped), as observed on Apple's QuartzCore
    assert t.end_progress == 2.0
    t.subtype = None
    assert t.subtype is None
    assert Transition().type == "fade"
    with pytest.raises(UnknownConstantError):
        t.type = "dissolve"
    with pytest.raises(NullArgumentError):
        t.type = None
    with pytest.raises(UnknownConstantError):
        t.subtype = "fromInside"
    with pytest.raises(NotFiniteError):
        t.start_progress = math.nan


def test_bad_input_raises_the_right_errors():
    a = BasicAnimation("position.x")
    with pytest.raises(UnknownConstantError):
        a.fill_mode = "sometimes"
    with pytest.raises(NotFiniteError):
        a.duration = math.nan
    with pytest.raises(NotFiniteError):
        a.begin_time = math.inf
    with pytest.raises(NotFiniteError):
        a.speed = math.nan
    with pytest.raises(WrongTypeError):
        a.duration = "long"
    with pytest.raises(NullArgumentError):
        a.fill_mode = None
    assert a.duration == 0 and a.fill_mode == "removed"  # unchanged
    with pytest.raises(WrongTypeError):
        Layer().add_animation("position.x")
    with pytest.raises(WrongTypeError):
        Layer().add_animation(a, 3)


def test_key_value_coding():
    a = BasicAnimation("opacity", duration=2)
    assert a["duration"] == 2 and a["keyPath"] == "opacity"
    a["duration"] = 3
    assert a.duration == 3
    a["custom"] = {"points": [Point(1, 2)]}
    assert a["custom"] == {"points": [Point(1, 2)]}
    assert a.value_for_key("custom") == a["custom"]
    del a["custom"]
    assert a["custom"] is None
    a["timingFunction"]  # noqa: B018 -- nil reads as None
    a.timing_function = "easeOut"
    assert a["timingFunction"] == TimingFunction.EASE_OUT
    with pytest.raises(WrongTypeError):
        a["duration"] = "long"
    with pytest.raises(UnknownConstantError):
        a["fillMode"] = "sometimes"
    assert Animation.default_value_for_key("speed") == 1
    assert Animation.default_value_for_key("removedOnCompletion") is True
    assert Animation.default_value_for_key("nonsense") is None
    assert a.should_archive_value_for_key("duration") is True


def test_animations_in_values_come_back_as_animations():
    a = BasicAnimation("opacity", to_value=0)
    layer = Layer()
    layer.actions = {"opacity": a}
    found = layer.actions["opacity"]
    assert found is a
    assert quartzite.from_value(quartzite.Value(TimingFunction.EASE_IN)) == TimingFunction.EASE_IN


def test_wrappers_are_unique_and_typed():
    a = BasicAnimation("opacity")
    assert Animation.from_handle(a.handle) is a
    assert a.class_name == "CABasicAnimation"
    assert KeyframeAnimation().class_name == "CAKeyframeAnimation"
    assert AnimationGroup().class_name == "CAAnimationGroup"
    assert Transition().class_name == "CATransition"
    with pytest.raises(WrongTypeError):
        KeyframeAnimation.from_handle(a.handle)
    layer = Layer()
    with pytest.raises(WrongTypeError):
        Animation.from_handle(layer.handle)


# MARK: - Basic animations on layers


@pytest.mark.parametrize("from_value, to_value, by_value, expected", [
    (10, 20, None, 15),     # from -> to
    (10, None, 4, 12),      # from -> from + by
    (None, 20, 4, 18),      # to - by -> to
    (10, None, None, 55),   # from -> the model value
    (None, 20, None, 60),   # the model value -> to
    (None, None, 4, 102),   # the model value -> model + by
    (None, None, None, 100),  # nothing to animate: the model value
])
def test_the_seven_from_to_by_cases(clock, from_value, to_value, by_value, expected):
    layer = model_layer()
    layer.add_animation(BasicAnimation("position.x", from_value, to_value, by_value, duration=1), "move")
    assert x_at(layer, clock, 0.5) == pytest.approx(expected)


def test_additive_animation_adds_to_the_model(clock):
    layer = model_layer()
    layer.add_animation(BasicAnimation("position.x", from_value=0, to_value=10, additive=True, duration=1))
    assert x_at(layer, clock, 0.5) == pytest.approx(105)


def test_cumulative_repeats_build_on_each_other(clock):
    layer = model_layer()
    layer.add_animation(BasicAnimation("position.x", from_value=0, to_value=10, duration=1, cumulative=True,
                                       repeat_count=3, fill_mode="forwards", removed_on_completion=False), "count")
    assert x_at(layer, clock, 0.5) == pytest.approx(5)
    assert x_at(layer, clock, 1.5) == pytest.approx(15)
    assert x_at(layer, clock, 2.5) == pytest.approx(25)
    clock.at(3.5)
    quartzite.process_animation_events()
    assert layer.animation_keys == ["count"]  # not removed on completion
    assert layer.presentation().position.x == pytest.approx(30)
    assert layer.position.x == 100  # the model never changes


def test_timing_function_paces_the_animation(clock):
    layer = model_layer()
    layer.add_animation(BasicAnimation("position.x", from_value=0, to_value=100, duration=1,
                                       timing_function="easeIn"))
    assert x_at(layer, clock, 0.5) == pytest.approx(100 * TimingFunction.EASE_IN(0.5), abs=1e-6)


def test_value_function_rotates(clock):
    layer = model_layer()
    layer.add_animation(BasicAnimation("transform", from_value=0, to_value=math.pi, duration=1,
                                       value_function="rotateZ"))
    clock.at(0.5)
    assert layer.presentation().transform.isclose(Transform3D.rotation(math.pi / 2, 0, 0, 1), abs_tol=1e-9)


def test_after_the_end_the_model_shows_again(clock):
    layer = model_layer()
    layer.add_animation(BasicAnimation("position.x", from_value=0, to_value=10, duration=1), "move")
    assert x_at(layer, clock, 2) == 100
    assert layer.animation_keys == ["move"]  # still listed until events are processed
    quartzite.process_animation_events()
    assert layer.animation_keys == []
    assert layer.animation("move") is None


def test_begin_time_zero_starts_at_the_current_media_time(clock):
    layer = model_layer()
    clock.at(10)
    layer.add_animation(BasicAnimation("position.x", from_value=0, to_value=10, duration=1))
    assert x_at(layer, clock, 10.5) == pytest.approx(5)


def test_an_explicit_begin_time_waits(clock):
    layer = model_layer()
    layer.add_animation(BasicAnimation("position.x", from_value=0, to_value=10, duration=1, begin_time=START + 2))
    assert x_at(layer, clock, 1) == 100
    assert x_at(layer, clock, 2.5) == pytest.approx(5)


# MARK: - Keyframe animations on layers


def test_keyframe_linear_with_key_times(clock):
    layer = model_layer()
    layer.add_animation(KeyframeAnimation("position.x", values=[0, 10, 30], key_times=[0, 0.5, 1], duration=1))
    assert x_at(layer, clock, 0.25) == pytest.approx(5)
    assert x_at(layer, clock, 0.75) == pytest.approx(20)


@pytest.mark.parametrize("key_times, samples", [
    (None, [(0.1, 1), (0.3, 1), (0.4, 2), (0.6, 2), (0.7, 3), (0.95, 3)]),        # thirds
    ([0, 0.1, 0.9, 1], [(0.05, 1), (0.15, 2), (0.85, 2), (0.95, 3)]),             # n + 1 key times
    ([0, 0.2, 0.4], [(0.1, 1), (0.3, 2), (0.45, 3), (0.9, 3)]),                  # n: the last holds from 0.4
])
def test_keyframe_discrete_rules(clock, key_times, samples):
    layer = model_layer()
    layer.add_animation(KeyframeAnimation("position.x", values=[1, 2, 3], key_times=key_times,
                                          calculation_mode="discrete", duration=1))
    for offset, expected in samples:
        assert x_at(layer, clock, offset) == expected, offset


def test_keyframe_segment_timing_functions(clock):
    layer = model_layer()
    layer.add_animation(KeyframeAnimation("position.x", values=[0, 10, 20], duration=1,
                                          timing_functions=["easeIn", "linear"]))
    assert x_at(layer, clock, 0.25) == pytest.approx(10 * TimingFunction.EASE_IN(0.5), abs=1e-6)
    assert x_at(layer, clock, 0.75) == pytest.approx(15)


def test_keyframe_along_a_path(clock):
    layer = model_layer()
    path = Path().move_to(0, 0).line_to(100, 0)
    layer.add_animation(KeyframeAnimation("position", path=path, duration=1))
    clock.at(0.5)
    assert tuple(layer.presentation().position) == pytest.approx((50, 0))


# MARK: - Groups


def test_group_clips_a_longer_child(clock):
    layer = model_layer()
    child = BasicAnimation("position.x", from_value=0, to_value=100, duration=2)
    layer.add_animation(AnimationGroup([child], duration=1), "group")
    assert x_at(layer, clock, 0.5) == pytest.approx(25)
    assert x_at(layer, clock, 1.5) == 100


def test_group_runs_its_children_together(clock):
    layer = model_layer()
    layer.add_animation(AnimationGroup([BasicAnimation("position.x", from_value=0, to_value=10, duration=1),
                                        BasicAnimation("opacity", from_value=1, to_value=0, duration=1)],
                                       duration=1))
    clock.at(0.5)
    presented = layer.presentation()
    assert presented.position.x == pytest.approx(5)
    assert presented.opacity == pytest.approx(0.5)


def test_group_children_from_a_layer_are_typed_and_read_only(clock):
    layer = model_layer()
    layer.add_animation(AnimationGroup([KeyframeAnimation("position.x", values=[0, 1]), Transition()]), "g")
    running = layer.animation("g")
    assert isinstance(running, AnimationGroup) and running.read_only
    kids = running.animations
    assert [type(a) for a in kids] == [KeyframeAnimation, Transition]
    assert all(a.read_only for a in kids)
    with pytest.raises(InvalidStateError):
        kids[0].values = [5, 6]


# MARK: - Animations on layers


def test_animations_are_copied_when_added(clock):
    layer = model_layer()
    anim = BasicAnimation("position.x", from_value=0, to_value=10, duration=1)
    layer.add_animation(anim, "move")
    anim.to_value = 1000
    anim.duration = 100
    running = layer.animation("move")
    assert running is not anim and running != anim
    assert running.to_value == 10 and running.duration == 1
    assert x_at(layer, clock, 0.5) == pytest.approx(5)


def test_running_animation_is_read_only_and_typed(clock):
    layer = model_layer()
    layer.add_animation(KeyframeAnimation("position.x", values=[0, 10], timing_functions=["easeIn"],
                                          tension_values=[1, 2]), "kf")
    running = layer.animation("kf")
    assert type(running) is KeyframeAnimation
    assert running is layer.animation_for_key("kf")  # one wrapper per handle
    assert running.read_only
    assert running.duration == 0.25  # a duration of 0 becomes 0.25 s when added
    assert running.values == [0, 10]
    assert running.timing_functions == [TimingFunction.EASE_IN]
    assert running.tension_values == [1, 2]
    for name, value in (("duration", 2), ("values", [1]), ("delegate", object()), ("timing_function", None)):
        with pytest.raises(InvalidStateError):
            setattr(running, name, value)
    with pytest.raises(InvalidStateError):
        running["custom"] = 1
    assert layer.animation("nothing") is None


def test_animation_keys_in_the_order_added(clock):
    layer = model_layer()
    assert layer.animation_keys == []
    for key in ("b", "a", "c"):
        layer.add_animation(BasicAnimation("opacity", to_value=0), key)
    layer.add_animation(BasicAnimation("opacity", to_value=0))  # unnamed: not listed
    assert layer.animation_keys == ["b", "a", "c"]
    layer.remove_animation("a")
    layer.remove_animation("not there")  # nothing happens
    assert layer.animation_keys == ["b", "c"]
    layer.remove_all_animations()
    assert layer.animation_keys == []


def test_adding_under_the_same_key_replaces(clock):
    layer = model_layer()
    layer.add_animation(BasicAnimation("position.x", from_value=0, to_value=10, duration=1), "move")
    layer.add_animation(BasicAnimation("opacity", to_value=0), "fade")
    layer.add_animation(BasicAnimation("position.x", from_value=50, to_value=60, duration=1), "move")
    assert layer.animation_keys == ["fade", "move"]
    assert layer.animation("move").from_value == 50
    assert x_at(layer, clock, 0.5) == pytest.approx(55)


def test_presentation_and_model_layers(clock):
    layer = model_layer()
    child = layer.add(Layer(position=(5, 5)))
    presented = layer.presentation()
    assert presented is not layer and presented != layer
    assert presented.model_layer is layer
    assert layer.model_layer is layer
    assert presented.sublayers[0].model_layer is child
    assert presented.position == layer.position


def test_presentation_keeps_the_python_subclass(clock):
    class Badge(Layer):
        pass

    badge = Badge(position=(1, 2))
    assert isinstance(badge.presentation(), Badge)


def test_removing_an_animation_shows_the_model(clock):
    layer = model_layer()
    layer.add_animation(BasicAnimation("position.x", from_value=0, to_value=10, duration=1), "move")
    clock.at(0.5)
    layer.remove_animation("move")
    assert layer.presentation().position.x == 100


# MARK: - Delegates


class Recorder:
    def __init__(self):
        self.events = []

    def animation_did_start(self, anim):
        self.events.append(("start", anim))

    def animation_did_stop(self, anim, finished):
        self.events.append(("stop", anim, finished))


def names(recorder):
    return [event[0] if event[0] == "start" else (event[0], event[2]) for event in recorder.events]


def test_delegate_hears_start_and_finished_stop_once(clock):
    layer = model_layer()
    recorder = Recorder()
    anim = BasicAnimation("position.x", from_value=0, to_value=10, duration=1, delegate=recorder)
    assert anim.delegate is recorder
    layer.add_animation(anim, "move")
    running = layer.animation("move")
    clock.at(0.1)
    quartzite.process_animation_events()
    assert names(recorder) == ["start"]
    assert recorder.events[0][1] is running  # the copy the layer runs
    assert running.delegate is recorder  # the copy shares the delegate
    clock.at(0.5)
    quartzite.process_animation_events()
    assert names(recorder) == ["start"]
    clock.at(1.5)
    quartzite.process_animation_events()
    quartzite.process_animation_events()
    assert names(recorder) == ["start", ("stop", True)]
    assert recorder.events[1][1].read_only
    assert layer.animation_keys == []
    clock.at(5)
    quartzite.process_animation_events()
    assert len(recorder.events) == 2


def test_delegate_hears_unfinished_stop_when_removed(clock):
    layer = model_layer()
    recorder = Recorder()
    layer.add_animation(BasicAnimation("position.x", to_value=10, duration=1, delegate=recorder), "move")
    clock.at(0.2)
    quartzite.process_animation_events()
    layer.remove_animation("move")
    quartzite.process_animation_events()
    clock.at(3)
    quartzite.process_animation_events()
    assert names(recorder) == ["start", ("stop", False)]


def test_delegate_hears_unfinished_stop_when_replaced(clock):
    layer = model_layer()
    first, second = Recorder(), Recorder()
    layer.add_animation(BasicAnimation("position.x", to_value=10, duration=1, delegate=first), "move")
    clock.at(0.2)
    quartzite.process_animation_events()
    layer.add_animation(BasicAnimation("position.x", to_value=20, duration=1, delegate=second), "move")
    clock.at(0.3)
    quartzite.process_animation_events()
    assert names(first) == ["start", ("stop", False)]
    assert names(second) == ["start"]
    clock.at(2)
    quartzite.process_animation_events()
    assert names(first) == ["start", ("stop", False)]
    assert names(second) == ["start", ("stop", True)]


def test_delegate_hears_unfinished_stop_on_remove_all(clock):
    layer = model_layer()
    recorder = Recorder()
    layer.add_animation(BasicAnimation("opacity", to_value=0, duration=1, delegate=recorder), "fade")
    clock.at(0.5)
    quartzite.process_animation_events()
    layer.remove_all_animations()
    quartzite.process_animation_events()
    assert names(recorder) == ["start", ("stop", False)]


def test_delegate_methods_are_optional(clock):
    class OnlyStop:
        def __init__(self):
            self.stops = []

        def animation_did_stop(self, anim, finished):
            self.stops.append(finished)

    layer = model_layer()
    delegate = OnlyStop()
    layer.add_animation(BasicAnimation("opacity", to_value=0, duration=1, delegate=delegate))
    clock.at(2)
    quartzite.process_animation_events()
    assert delegate.stops == [True]


def test_delegate_exceptions_go_to_unraisablehook(clock, unraisable):
    class Broken:
        def animation_did_start(self, anim):
            raise RuntimeError("start went wrong")

        def animation_did_stop(self, anim, finished):
            raise ValueError("stop went wrong")

    layer = model_layer()
    layer.add_animation(BasicAnimation("opacity", to_value=0, duration=1, delegate=Broken()))
    clock.at(2)
    quartzite.process_animation_events()
    assert sorted(type(r.exc_value).__name__ for r in unraisable) == ["RuntimeError", "ValueError"]
    assert quartzite.last_error()[0] == quartzite.ErrorCode.NONE


def test_delegate_is_kept_alive_until_released(clock):
    layer = model_layer()
    recorder = Recorder()
    gone = weakref.ref(recorder)
    anim = BasicAnimation("opacity", to_value=0, duration=1, delegate=recorder)
    layer.add_animation(anim, "fade")
    del recorder, anim
    gc.collect()
    assert gone() is not None  # the layer's copy shares the delegate
    clock.at(2)
    quartzite.process_animation_events()
    assert gone() is not None and names(gone()) == ["start", ("stop", True)]
    # The recorded events hold the running copy, which holds the delegate (a
    # cycle through C, as with Apple's retained delegate): drop them.
    gone().events.clear()
    gc.collect()
    assert gone() is None  # the copy was removed on completion: release(info) ran


def test_replacing_the_delegate_releases_the_old_one():
    anim = BasicAnimation("opacity")
    first = Recorder()
    gone = weakref.ref(first)
    anim.delegate = first
    del first
    anim.delegate = Recorder()
    gc.collect()
    assert gone() is None
    anim.delegate = None
    assert anim.delegate is None


def test_delegate_messages_arrive_on_the_thread_that_processes_events(clock):
    import threading

    class ThreadRecorder:
        def __init__(self):
            self.threads = []

        def animation_did_start(self, anim):
            self.threads.append(threading.get_ident())

        def animation_did_stop(self, anim, finished):
            self.threads.append(threading.get_ident())

    layer = model_layer()
    recorder = ThreadRecorder()
    layer.add_animation(BasicAnimation("opacity", to_value=0, duration=1, delegate=recorder))
    clock.at(2)
    worker = threading.Thread(target=quartzite.process_animation_events)
    worker.start()
    worker.join()
    assert recorder.threads == [worker.ident, worker.ident]


def test_process_animation_events_with_nothing_to_do():
    quartzite.process_animation_events()
