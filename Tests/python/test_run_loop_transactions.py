"""The run loop and transactions together: a thread's implicit transaction is
committed at the end of its run loop's turn, completions run from the run loop
(at once when nothing animates, after the last animation otherwise, exactly
once), and a display link drives implicit animations frame by frame."""
import pytest

import quartzite
from quartzite import run_loop, transaction
from quartzite.run_loop import RunResult

from media_clock import Clock, committed_layer


class SteppingClock:
    """Advances by ``step`` on every read (what a simulated run loop needs)."""

    def __init__(self, now, step=1e-3):
        self.now, self.step = now, step

    def __call__(self):
        self.now += self.step
        return self.now


@pytest.fixture
def clock():
    def install(source):
        quartzite.set_media_time_source(source)
        return source
    yield install
    transaction.flush()
    quartzite.process_animation_events()
    quartzite.set_media_time_source(None)


def test_a_turn_commits_the_implicit_transaction(clock):
    c = clock(Clock(200.0))
    layer = committed_layer(position=(0, 0))
    layer.position = (100, 0)                      # opens the implicit transaction
    assert layer.position.x == 100                 # the model at once
    assert layer.presentation().position.x == 0    # not committed yet
    assert "position" in layer.animation_keys      # the implicit animation waits for the commit
    run_loop.run_once()                            # the turn ends: commit
    # The animation began at the commit (t = 200) and lasts the default 0.25 s.
    c.now = 200.0 + 0.125
    x = layer.presentation().position.x
    assert 0 < x < 100
    c.now = 200.0 + 0.3
    assert layer.presentation().position.x == 100


def test_a_completion_without_animations_runs_at_the_end_of_the_turn_once(clock):
    clock(Clock(300.0))
    calls = []
    with transaction(completion=lambda: calls.append("done")):
        pass
    assert calls == []          # committed; the completion waits for the turn
    run_loop.run_once()
    assert calls == ["done"]
    run_loop.run_once()
    run_loop.run_once()
    assert calls == ["done"]    # exactly once


def test_a_completion_waits_for_its_last_animation_while_the_loop_runs(clock):
    c = clock(SteppingClock(400.0, 1e-3))
    layer = committed_layer(opacity=1.0)
    seen = []
    with transaction(duration=0.2, completion=lambda: seen.append(c.now)):
        begin = c.now
        layer.opacity = 0.0
    with transaction(duration=0.05):
        layer.position = (5, 5)     # another transaction's animation: not waited for
    # The owed completion is the mode's only work: once it ran, the loop has
    # nothing left and finishes (Apple's kCFRunLoopRunFinished), well before 0.5 s.
    assert run_loop.run(0.5) == RunResult.FINISHED
    assert len(seen) == 1
    # Not before the 0.2 s animation ended, and not much after it (the loop
    # sleeps no longer than the transaction deadline).
    assert begin + 0.2 <= seen[0] < begin + 0.2 + 0.05


def test_a_display_link_drives_implicit_animations_frame_by_frame(clock):
    c = clock(SteppingClock(600.0, 1e-3))
    layer = committed_layer(position=(0, 0))
    xs = []

    def frame(link):
        xs.append(layer.presentation().position.x)
        if len(xs) == 1:
            with transaction(duration=0.5, timing_function="linear"):
                layer.position = (60, 0)

    link = quartzite.DisplayLink(frame)
    link.add_to_run_loop()
    run_loop.run(1.0)
    link.invalidate()
    assert len(xs) == 60
    assert xs[0] == 0
    # Linear over 0.5 s from the first frame's commit: strictly increasing for
    # about 30 frames, then held at the model value.
    moving = xs[1:29]
    assert all(b > a for a, b in zip(moving, moving[1:]))
    assert xs[-1] == 60
    assert xs[15] == pytest.approx(60 * (15 / 60) / 0.5, abs=60 * 0.01)
