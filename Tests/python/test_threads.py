"""The error state is per thread."""
import threading

from quartzite import (
    _lib, NullArgumentError, OutOfRangeError, QuartziteError, Value, WrongTypeError, from_value, last_error,
)


def in_thread(function):
    result = []
    thread = threading.Thread(target=lambda: result.append(function()))
    thread.start()
    thread.join()
    return result[0]


def test_an_error_in_another_thread_does_not_leak_here():
    _lib.QZClearLastError()

    def fail():
        _lib.CAValueGetNumber(None)
        return _lib.QZGetLastError(), _lib.QZGetLastErrorMessage()

    code, message = in_thread(fail)
    assert code == 1 and b"CAValueGetNumber" in message
    assert _lib.QZGetLastError() == 0 and _lib.QZGetLastErrorMessage() == b""


def test_an_error_here_is_not_seen_by_a_new_thread_or_cleared_by_it():
    _lib.CGPointMake(float("nan"), 0)
    assert _lib.QZGetLastError() == 4

    def look_and_clear():
        seen = _lib.QZGetLastError()
        _lib.QZClearLastError()
        return seen

    assert in_thread(look_and_clear) == 0
    assert last_error()[0] == 4  # our error survived the other thread's clear


def test_concurrent_failures_each_see_their_own_error():
    """Threads fail in different ways at the same moment, then read back."""
    barrier = threading.Barrier(3, timeout=10)
    array = Value([1, 2])
    outcomes = {}

    def worker(name, action, expected):
        def run():
            barrier.wait()
            try:
                action()
            except QuartziteError as error:
                barrier.wait()  # everyone has failed before anyone reads back
                code, _ = last_error()
                outcomes[name] = (error.code, code, type(error) is expected)
        return threading.Thread(target=run)

    threads = [
        worker("type", lambda: Value(None).as_number(), WrongTypeError),
        worker("range", lambda: array[10], OutOfRangeError),
        worker("null", lambda: from_value(None), NullArgumentError),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert outcomes == {"type": (2, 2, True), "range": (5, 5, True), "null": (1, 1, True)}


def test_many_threads_hammering_the_pythonic_layer():
    workers = 8
    errors = []

    def run(i):
        try:
            for _ in range(200):
                assert Value([i, str(i)]).to_python() == [i, str(i)]
                try:
                    Value(i)[0]
                except WrongTypeError as error:
                    assert error.code == 2
                else:
                    raise AssertionError("no error")
        except BaseException as exc:  # report into the main thread
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
