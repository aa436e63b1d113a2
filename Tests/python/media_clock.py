"""Helpers shared by the tests that run on a fake media clock."""
import quartzite
from quartzite import Layer


class Clock:
    """A media clock the test moves by hand (``clock.now = t``); reads never advance it."""

    def __init__(self, now):
        self.now = now

    def __call__(self):
        return self.now


def committed_layer(**properties):
    """A layer whose creation is committed, so that its changes animate."""
    layer = Layer(bounds=(0, 0, 10, 10), **properties)
    quartzite.transaction.flush()
    return layer
