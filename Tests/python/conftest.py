"""Shared setup for the Python binding tests.

Puts bindings/python on sys.path so the package under test is the one in
this checkout, and gives every test a clean thread-local error state and
the real media clock and no error handler afterwards, so one test's
callbacks cannot leak into the next.
"""
import os
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "bindings", "python"))

import quartzite  # noqa: E402  (needs the path above)
from quartzite import _lib  # noqa: E402


@pytest.fixture(autouse=True)
def clean_library_state():
    _lib.QZClearLastError()
    yield
    quartzite.set_media_time_source(None)
    quartzite.set_error_handler(None)
    _lib.QZClearLastError()


@pytest.fixture
def repo():
    return REPO

