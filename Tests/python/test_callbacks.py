"""Python callables as the media clock and as the error handler."""
import ctypes
import threading
import time

import pytest

from quartzite import (
    _lib, ErrorCode, NotFiniteError, Value, WrongTypeError, current_media_time,
    set_error_handler, set_media_time_source,
)


def test_media_time_source_drives_current_media_time():
    set_media_time_source(lambda: 1234.5)
    assert current_media_time() == 1234.5
    assert _lib.CACurrentMediaTime() == 1234.5


def test_media_time_source_can_step_time():
    clock = [0.0]
    set_media_time_source(lambda: clock[0])
    readings = []
    for _ in range(3):
        readings.append(current_media_time())
        clock[0] += 1 / 60
    assert readings == [0.0, 1 / 60, 2 / 60]


def test_none_restores_the_real_clock():
    set_media_time_source(lambda: -5.0)
    assert current_media_time() == -5.0
    set_media_time_source(None)
    # CLOCK_MONOTONIC, which is also what time.monotonic() reads on Linux.
    before = time.monotonic()
    now = current_media_time()
    after = time.monotonic()
    assert before - 0.01 <= now <= after + 0.01
    assert current_media_time() >= now


def test_set_media_time_source_returns_the_previous_source():
    first = lambda: 1.0  # noqa: E731
    assert set_media_time_source(first) is None
    assert set_media_time_source(None) is first


def test_media_time_source_is_used_from_other_threads():
    set_media_time_source(lambda: 99.0)
    seen = []
    thread = threading.Thread(target=lambda: seen.append(_lib.CACurrentMediaTime()))
    thread.start()
    thread.join()
    assert seen == [99.0]


def test_failing_media_time_source_falls_back_to_the_monotonic_clock(monkeypatch):
    reported = []
    monkeypatch.setattr("sys.unraisablehook", reported.append)

    def broken():
        raise RuntimeError("clock exploded")

    set_media_time_source(broken)
    with pytest.raises(NotFiniteError) as excinfo:
        current_media_time()
    assert excinfo.value.code == 4
    assert isinstance(reported[0].exc_value, RuntimeError)
    _lib.QZClearLastError()
    now = _lib.CACurrentMediaTime()
    assert _lib.QZGetLastError() == 4
    assert abs(now - time.monotonic()) < 1.0  # the real clock answered, not garbage


def test_raw_media_time_source_receives_its_info_pointer():
    infos = []

    @_lib.QZMediaTimeSourceCallback
    def source(info):
        infos.append(info)
        return 7.0

    _lib.QZSetMediaTimeSource(source, ctypes.c_void_p(0xC0FFEE))
    try:
        assert _lib.CACurrentMediaTime() == 7.0
    finally:
        _lib.QZSetMediaTimeSource(_lib.QZMediaTimeSourceCallback(), None)
    assert infos == [0xC0FFEE]
    assert _lib.CACurrentMediaTime() != 7.0


def test_error_handler_receives_code_and_message():
    received = []
    set_error_handler(lambda code, message: received.append((code, message)))
    with pytest.raises(WrongTypeError):
        Value("text").as_number()
    assert len(received) == 1
    code, message = received[0]
    assert code == ErrorCode.WRONG_TYPE == 2 and isinstance(message, str)
    assert "CAValueGetNumber" in message


def test_error_handler_is_not_reentered():
    calls = []

    def handler(code, message):
        calls.append(code)
        _lib.CAValueGetNumber(None)  # an error inside the handler: recorded, not reported

    set_error_handler(handler)
    _lib.CAValueGetCount(None)
    assert calls == [ErrorCode.NULL_ARGUMENT]
    _lib.CAValueGetCount(None)
    assert calls == [ErrorCode.NULL_ARGUMENT] * 2  # and it still works afterwards


def test_error_handler_removed_with_none_and_replaced():
    first_calls, second_calls = [], []

    def first(code, message):
        first_calls.append(code)

    set_error_handler(first)
    assert set_error_handler(lambda code, message: second_calls.append(code)) is first
    _lib.CGPointMake(float("nan"), 0)
    assert first_calls == [] and second_calls == [4]
    set_error_handler(None)
    _lib.CGPointMake(float("nan"), 0)
    assert second_calls == [4]


def test_error_handler_runs_on_the_failing_thread():
    threads = []
    set_error_handler(lambda code, message: threads.append(threading.get_ident()))
    worker = threading.Thread(target=lambda: _lib.CAValueGetNumber(None))
    worker.start()
    worker.join()
    assert threads == [worker.ident]


def test_exception_in_error_handler_does_not_break_the_library(monkeypatch):
    reported = []
    monkeypatch.setattr("sys.unraisablehook", reported.append)

    def handler(code, message):
        raise ValueError("handler bug")

    set_error_handler(handler)
    _lib.QZClearLastError()
    assert _lib.CAValueGetNumber(None) == 0.0
    assert _lib.QZGetLastError() == 1
    assert reported and isinstance(reported[0].exc_value, ValueError)


def test_callback_argument_type_checks():
    with pytest.raises(TypeError):
        set_media_time_source(3.0)
    with pytest.raises(TypeError):
        set_error_handler("not callable")
