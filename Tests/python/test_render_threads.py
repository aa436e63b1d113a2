"""Renderer.thread_count (QZRendererSetThreadCount): a frame drawn in bands
on several threads is the same bytes as on one; the default, 0 (one per
core) and refused counts."""
import os

import numpy as np
import pytest

import quartzite as qz
from quartzite import Layer, OutOfRangeError


def scene():
    root = Layer(bounds=(0, 0, 300, 240), anchor_point=(0, 0), background_color=qz.Color(0.2, 0.25, 0.3, 1))
    for i in range(12):
        card = Layer(frame=(10 + (i % 6) * 48, 12 + (i // 6) * 110 + (i % 3) * 7.5, 40, 96),
                     background_color=qz.Color(0.9, 0.8, 0.6, 1 if i % 2 else 0.7), corner_radius=8 + i)
        card.shadow_opacity = 0.6
        card.shadow_radius = 4 + i
        card.shadow_offset = (1, 3)
        if i % 3 == 0:
            card.add(Layer(frame=(5, 20, 30, 50), background_color=qz.Color(0.1, 0.4, 0.8, 1)))
        root.add(card)
    glass = Layer(frame=(150, 20, 120, 200), background_color=qz.Color(1, 1, 1, 0.2))
    glass.opacity = 0.8
    glass.add(Layer(frame=(10, 10, 100, 60), background_color=qz.Color(0.9, 0.2, 0.2, 0.9)))
    root.add(glass)
    return root


def test_the_same_bytes_on_1_2_3_and_7_threads():
    root = scene()
    one = qz.Renderer(root, 300, 240).frame(1.0)
    assert one[0, 0, 3] == 255
    for n in (2, 3, 7):
        r = qz.Renderer(root, 300, 240)
        r.thread_count = n
        assert r.thread_count == n
        assert np.array_equal(r.frame(1.0), one), f"{n} threads"


def test_default_cores_and_refused_counts():
    r = qz.Renderer(scene(), 64, 64)
    assert r.thread_count == 1
    r.thread_count = 0
    assert r.thread_count == min(max(os.cpu_count() or 1, 1), 64)
    r.thread_count = 64
    with pytest.raises(OutOfRangeError):
        r.thread_count = 65
    with pytest.raises(OutOfRangeError):
        r.thread_count = -1
    assert r.thread_count == 64
