"""The run loop and display links from Python callables: exactly 60 frames
with grid timestamps in one simulated second at 60 Hz (30 with
frame_interval 2, none paused), 25-35 in half a real second, timers,
performs and stop from other threads, the pollable descriptor, result codes
and errors; callables are kept alive while needed and dropped after."""
import gc
import math
import select
import sys
import threading
import time
import weakref

import pytest

import quartzite
from quartzite import run_loop
from quartzite.run_loop import RunResult


def stepping_clock(start, step):
    """A media time source that advances by ``step`` on every read."""
    state = {"t": start}

    def source():
        state["t"] += step
        return state["t"]
    return source


@pytest.fixture
def simulated():
    def install(start=100.0, step=1e-3):
        quartzite.set_media_time_source(stepping_clock(start, step))
    yield install
    quartzite.set_media_time_source(None)


def test_one_simulated_second_gives_60_frames_on_the_grid(simulated):
    simulated(100.0, 1e-3)
    stamps = []
    link = quartzite.DisplayLink(lambda l: stamps.append(l.timestamp))
    link.add_to_run_loop()
    assert run_loop.run(1.0) == RunResult.TIMED_OUT
    # Added during frame 6000 (t = 100 s): frames 6001 ... 6060 at k / 60.
    assert stamps == [k / 60 for k in range(6001, 6061)]
    assert link.duration == 1 / 60
    assert link.target_timestamp == pytest.approx(6061 / 60, abs=1e-12)
    ts = link.cv_timestamp
    assert (ts.videoTimeScale, ts.videoTime, ts.videoRefreshPeriod) == (60, 6060, 1)
    link.invalidate()


def test_frame_interval_2_gives_30_and_paused_none(simulated):
    simulated(50.0, 1e-3)
    every_other, paused = [], []
    a = quartzite.DisplayLink(lambda l: every_other.append(l.timestamp))
    b = quartzite.DisplayLink(lambda l: paused.append(l.timestamp))
    a.frame_interval = 2
    assert a.frame_interval == 2
    b.paused = True
    assert b.paused
    a.add_to_run_loop(mode=run_loop.COMMON_MODES)
    b.add_to_run_loop()
    assert run_loop.run(1.0) == RunResult.TIMED_OUT
    assert every_other == [k / 60 for k in range(3002, 3061, 2)]
    assert paused == []
    a.invalidate()
    b.invalidate()


def test_half_a_real_second_gives_25_to_35_frames():
    calls = []
    link = quartzite.DisplayLink(lambda l: calls.append(l.timestamp))
    link.add_to_run_loop()
    before = quartzite._lib.CVGetCurrentHostTime()
    assert run_loop.run(0.5) == RunResult.TIMED_OUT
    after = quartzite._lib.CVGetCurrentHostTime()
    assert 25 <= len(calls) <= 35
    ts = link.cv_timestamp
    assert before <= ts.hostTime <= after
    assert ts.hostTime / 1e9 == pytest.approx(link.timestamp, abs=1e-6)
    link.invalidate()


def test_frame_interval_below_one_is_an_error():
    link = quartzite.DisplayLink(lambda l: None)
    with pytest.raises(quartzite.InvalidArgumentError):
        link.frame_interval = 0
    assert link.frame_interval == 1
    link.invalidate()


def test_invalidate_drops_the_callable():
    class Target:
        def __call__(self, link):
            pass
    target = Target()
    alive = weakref.ref(target)
    link = quartzite.DisplayLink(target)
    link.add_to_run_loop()
    del target
    gc.collect()
    assert alive() is not None          # the binding keeps it while the link lives
    link.invalidate()
    gc.collect()
    assert alive() is None
    with pytest.raises(quartzite.InvalidStateError):
        link.add_to_run_loop()


def test_step_and_exceptions_in_callbacks_are_reported(monkeypatch):
    seen = []
    reported = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: reported.append(u.exc_value))

    def frame(link):
        seen.append(link.timestamp)
        if len(seen) == 2:
            raise ValueError("boom")
    link = quartzite.DisplayLink(frame)
    for k in range(1, 4):
        link.step(k * 0.5)
    assert seen == [0.5, 1.0, 1.5]
    assert len(reported) == 1 and isinstance(reported[0], ValueError)
    link.invalidate()


def test_timers_repeat_and_fire_once(simulated):
    simulated(0.0, 1e-3)
    repeating, once = [], []
    t = run_loop.Timer(lambda timer: repeating.append(timer.next_fire_date), interval=0.25, fire_date=0.25)
    o = run_loop.Timer(lambda timer: once.append(timer), fire_date=0.6)
    assert t.repeats and not o.repeats
    t.add_to_run_loop()
    o.add_to_run_loop(mode=run_loop.COMMON_MODES)
    loop = run_loop.current()
    assert loop.contains_timer(o)
    assert loop.next_timer_fire_date() == 0.25
    assert run_loop.run(1.1) == RunResult.TIMED_OUT
    assert repeating == [0.5, 0.75, 1.0, 1.25]
    assert once == [o]                  # the callback gets the Timer object itself
    assert not o.valid
    t.invalidate()
    assert run_loop.run(1.0) == RunResult.FINISHED


def test_perform_from_another_thread_runs_on_the_loops_thread():
    loop = run_loop.current()
    keep_alive = run_loop.Timer(lambda timer: None, fire_date=quartzite.current_media_time() + 1000)
    keep_alive.add_to_run_loop()
    ran_on = []

    def later():
        time.sleep(0.02)
        loop.perform(lambda: ran_on.append(threading.get_ident()))
    thread = threading.Thread(target=later)
    thread.start()
    assert run_loop.run(10, return_after_source_handled=True) == RunResult.HANDLED_SOURCE
    thread.join()
    assert ran_on == [threading.get_ident()]

    done = threading.Event()

    def stopper():
        while not done.is_set():
            loop.stop()
            time.sleep(0.002)
    thread = threading.Thread(target=stopper)
    thread.start()
    assert run_loop.run(10) == RunResult.STOPPED
    done.set()
    thread.join()
    keep_alive.invalidate()


def test_the_descriptor_is_readable_when_work_is_queued():
    loop = run_loop.current()
    run_loop.run_once()
    fd = loop.fileno()
    assert select.select([fd], [], [], 0)[0] == []
    ran = []
    thread = threading.Thread(target=lambda: loop.perform(lambda: ran.append(1)))
    thread.start()
    thread.join()
    assert select.select([fd], [], [], 0)[0] == [fd]
    assert run_loop.run_once() == RunResult.TIMED_OUT
    assert ran == [1]
    assert select.select([loop], [], [], 0)[0] == []    # fileno() makes the loop selectable


def test_result_codes_and_errors():
    assert run_loop.run(1.0) == RunResult.FINISHED
    with pytest.raises(quartzite.NotFiniteError):
        run_loop.run(math.nan)
    with pytest.raises(quartzite.InvalidArgumentError):
        run_loop.run(1.0, mode=run_loop.COMMON_MODES)
    with pytest.raises(TypeError):
        run_loop.run(1.0, mode=None)
    main = run_loop.current()
    errors = []

    def other():
        try:
            main.run_once()
        except quartzite.InvalidStateError as e:
            errors.append(e)
        errors.append(run_loop.current() != main)
    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    assert len(errors) == 2 and isinstance(errors[0], quartzite.InvalidStateError) and errors[1]
    assert run_loop.main() == main       # pytest runs tests on the process's main thread
    with pytest.raises(quartzite.InvalidArgumentError):
        quartzite.display_link.set_refresh_rate(0)
    assert quartzite.display_link.refresh_rate() == 60
