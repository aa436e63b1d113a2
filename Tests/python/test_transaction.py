"""quartzite.transaction and actions: explicit and implicit transactions,
implicit animations, completions and custom actions from Python callables, on
a fake media clock."""
import gc
import threading
import weakref

import pytest

import quartzite
from quartzite import Action, InvalidStateError, Layer, TimingFunction, null_action, transaction

from media_clock import Clock, committed_layer

START = 500.0


@pytest.fixture
def clock():
    fake = Clock(START)
    quartzite.set_media_time_source(fake)
    yield fake
    transaction.flush()
    quartzite.process_animation_events()
    quartzite.set_media_time_source(None)


def test_the_context_manager_sets_duration_and_timing_function(clock):
    layer = committed_layer(position=(0, 0))
    with transaction(duration=2, timing_function="linear"):
        assert transaction.get_animation_duration() == 2
        layer.position = (100, 0)
        assert layer.position.x == 100              # the model at once
        assert layer.presentation().position.x == 0  # the committed state
    anim = layer.animation("position")
    assert anim.duration == 2
    assert anim.timing_function == TimingFunction.named("linear")
    assert anim.from_value == quartzite.Point(0, 0)
    clock.now = START + 1
    assert layer.presentation().position.x == pytest.approx(50)
    assert transaction.get_animation_duration() == 0.25


def test_the_default_timing_function_is_default(clock):
    layer = committed_layer()
    layer.opacity = 0.5
    assert layer.animation("opacity").timing_function == TimingFunction.named("default")
    assert layer.animation("opacity").duration == 0.25


def test_disable_actions_suppresses_implicit_animations(clock):
    layer = committed_layer()
    with transaction(disable_actions=True):
        layer.opacity = 0.25
        layer.position = (3, 4)
    assert layer.animation_keys == []
    assert layer.presentation().opacity == pytest.approx(0.25)


def test_no_implicit_animation_for_a_new_layer(clock):
    layer = Layer()
    layer.position = (5, 5)
    assert layer.animation("position") is None


def test_nested_value_scopes(clock):
    with transaction():
        transaction.set_value("custom", 1)
        with transaction(duration=3):
            assert transaction.value("custom") == 1
            transaction.set_value("custom", 2)
            assert transaction.value("custom") == 2
            assert transaction.value("animationDuration") == 3
        assert transaction.value("custom") == 1
    assert transaction.value("custom") is None


def test_completion_runs_once_after_the_last_animation(clock):
    layer = committed_layer()
    calls = []
    with transaction(duration=1, completion=lambda: calls.append(clock.now)):
        layer.opacity = 0
    quartzite.process_animation_events()
    assert calls == []
    clock.now = START + 1.5
    quartzite.process_animation_events()
    quartzite.process_animation_events()
    assert calls == [START + 1.5]


def test_completion_without_animations_runs_at_the_end_of_the_turn(clock):
    calls = []
    with transaction(completion=lambda: calls.append(1)):
        pass
    assert calls == []
    quartzite.process_animation_events()
    assert calls == [1]


def test_flush_commits_the_implicit_transaction(clock):
    layer = committed_layer()
    transaction.set_disable_actions(True)
    layer.position = (9, 9)
    assert layer.presentation().position.x == 0
    transaction.flush()
    assert layer.presentation().position.x == 9


def test_commit_without_begin_raises():
    with pytest.raises(InvalidStateError):
        transaction.commit()
    with pytest.raises(InvalidStateError):
        transaction.unlock()
    transaction.lock()
    transaction.unlock()


def test_custom_actions_receive_key_layer_and_arguments(clock):
    layer = committed_layer()
    calls = []
    action = Action(lambda key, target, arguments: calls.append((key, target, arguments)))
    layer.actions = {"opacity": action, "myKey": action}
    assert layer.action_for_key("opacity").handle == action.handle
    layer.opacity = 0.5
    layer["myKey"] = 3
    action.run("custom", layer, 42)
    assert calls == [("opacity", layer, None), ("myKey", layer, None), ("custom", layer, 42)]
    assert layer.animation("opacity") is None


def test_the_delegate_can_stop_the_search(clock):
    layer = committed_layer()
    calls = []
    action = Action(lambda *a: calls.append(a))
    layer.actions = {"opacity": action}

    class Delegate:
        answer = None

        def action_for_layer_for_key(self, target, key):
            return self.answer

    delegate = Delegate()
    layer.delegate = delegate
    assert layer.action_for_key("opacity").handle == action.handle   # None: the search goes on
    delegate.answer = null_action()
    assert layer.action_for_key("opacity") is None                   # stop
    layer.opacity = 0.1
    assert calls == [] and layer.animation_keys == []
    layer.delegate = None


def test_order_in_and_order_out(clock):
    parent = committed_layer()
    child = committed_layer()
    keys = []
    action = Action(lambda key, target, arguments: keys.append(key))
    child.actions = {"onOrderIn": action, "onOrderOut": action}
    parent.add(child)
    child.hidden = True
    child.hidden = False
    child.remove_from_superlayer()
    assert keys == ["onOrderIn", "onOrderOut", "onOrderIn", "onOrderOut"]


def test_actions_outlive_their_python_object(clock):
    layer = committed_layer()
    calls = []
    layer.actions = {"opacity": Action(lambda *a: calls.append(a[0]))}   # only the layer holds it
    import gc
    gc.collect()
    layer.opacity = 0.3
    assert calls == ["opacity"]


def test_each_thread_has_its_own_transactions():
    seen = []

    def other():
        seen.append(transaction.get_animation_duration())

    with transaction(duration=4):
        t = threading.Thread(target=other)
        t.start()
        t.join()
        assert transaction.get_animation_duration() == 4
    assert seen == [0.25]


class _Recorder:
    """A completion callable that can be watched with a weak reference."""

    def __init__(self, calls, tag):
        self.calls = calls
        self.tag = tag

    def __call__(self):
        self.calls.append(self.tag)


def _gone(ref):
    gc.collect()
    return ref() is None


def test_a_second_completion_keeps_the_first_and_both_run_once(clock):
    """Observed on Apple's QuartzCore: completions accumulate (a second one
    used to replace the first)."""
    calls = []
    first = _Recorder(calls, "first")
    first_ref = weakref.ref(first)
    transaction.begin()
    transaction.set_completion(first)
    del first
    transaction.set_completion(_Recorder(calls, "second"))
    assert not _gone(first_ref)
    transaction.commit()
    quartzite.process_animation_events()
    quartzite.process_animation_events()
    assert calls == ["first", "second"]
    assert _gone(first_ref)


def test_an_empty_completion_does_not_cancel_one_already_set(clock):
    """Observed on Apple's QuartzCore: setting a NULL completion after one was
    set leaves it in place (it used to clear it)."""
    calls = []
    first = _Recorder(calls, "first")
    first_ref = weakref.ref(first)
    transaction.begin()
    transaction.set_completion(first)
    del first
    transaction.set_completion(None)
    assert not _gone(first_ref)
    transaction.commit()
    quartzite.process_animation_events()
    assert calls == ["first"]
    assert _gone(first_ref)


def test_an_inner_completion_leaves_the_outer_one_in_place(clock):
    calls = []
    outer = _Recorder(calls, "outer")
    outer_ref = weakref.ref(outer)
    transaction.begin()
    transaction.set_completion(outer)
    del outer
    with transaction():
        transaction.set_completion(None)   # this scope has none: nothing to clear
    assert not _gone(outer_ref)
    with transaction():
        transaction.set_completion(_Recorder(calls, "inner"))
        transaction.set_completion(_Recorder(calls, "inner again"))
    assert not _gone(outer_ref)
    transaction.commit()
    quartzite.process_animation_events()
    assert sorted(calls) == ["inner", "inner again", "outer"]   # completions accumulate
    assert _gone(outer_ref)


def test_a_completion_left_owed_by_an_ended_thread_is_released():
    refs = []

    def other():
        fn = _Recorder([], "other")
        refs.append(weakref.ref(fn))
        transaction.begin()
        transaction.set_completion(fn)
        transaction.commit()
        # The thread ends without a run-loop turn: the library drops the completion.

    t = threading.Thread(target=other)
    t.start()
    t.join()
    assert _gone(refs[0])
