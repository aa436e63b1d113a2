"""quartzite.ReplicatorLayer (CAReplicatorLayer): defaults, bad input, and
pixels: instances moved by the accumulated transform, tinted by the colour
offsets, and delayed into their sublayers' animations."""
import math

import pytest

import quartzite as qz
from quartzite import (
    BasicAnimation, Color, Layer, NotFiniteError, OutOfRangeError, ReplicatorLayer, Transform3D, WrongTypeError,
)


def scene(w, h, sub_frame, **properties):
    root = Layer(bounds=(0, 0, w, h), anchor_point=(0, 0))
    rep = ReplicatorLayer(frame=(0, 0, w, h), **properties)
    sub = Layer(frame=sub_frame, background_color=Color(1, 1, 1, 1))
    rep.add(sub)
    root.add(rep)
    return root, rep, sub


def test_defaults():
    r = ReplicatorLayer()
    assert (r.instance_count, r.instance_delay, r.preserves_depth) == (1, 0, False)
    assert r.instance_transform == Transform3D.identity()
    assert r.instance_color == Color(1, 1, 1, 1)
    assert (r.instance_red_offset, r.instance_green_offset, r.instance_blue_offset, r.instance_alpha_offset) == (0, 0, 0, 0)


def test_bad_input_raises_and_changes_nothing():
    r = ReplicatorLayer(instance_count=3)
    with pytest.raises(OutOfRangeError):
        r.instance_count = -1
    with pytest.raises(NotFiniteError):
        r.instance_delay = math.nan
    with pytest.raises(NotFiniteError):
        r.instance_alpha_offset = math.inf
    assert (r.instance_count, r.instance_delay, r.instance_alpha_offset) == (3, 0, 0)
    with pytest.raises(WrongTypeError):
        r.instance_count = "twelve"


def test_instances_move_and_take_their_colours():
    root, rep, _ = scene(80, 20, (0, 0, 20, 20), instance_count=4,
                         instance_transform=Transform3D.translation(20, 0, 0),
                         instance_green_offset=-0.25, instance_blue_offset=-0.5)
    px = qz.Renderer(root, 80, 20).frame(1.0)   # BGRA
    expected = [(255, 255, 255), (128, 191, 255), (0, 128, 255), (0, 64, 255)]   # (b, g, r)
    for k, (b, g, r) in enumerate(expected):
        p = px[10, 10 + 20 * k]
        assert abs(int(p[0]) - b) <= 1 and abs(int(p[1]) - g) <= 1 and abs(int(p[2]) - r) <= 1 and p[3] == 255, (k, p)
    assert len(rep.sublayers) == 1   # instances are drawn, not added


def test_instance_delay_offsets_the_sublayers_time():
    root, rep, sub = scene(80, 20, (0, 0, 20, 20), instance_count=4,
                           instance_transform=Transform3D.translation(20, 0, 0), instance_delay=0.25)
    fade = BasicAnimation("opacity", from_value=0, to_value=1, duration=1)
    fade.begin_time = 100
    sub.add_animation(fade, "fade")
    px = qz.Renderer(root, 80, 20).frame(100.5)
    # Instance k at 0.5 - 0.25 k s into the fade; instance 3 before it: the model's 1.
    for k, alpha in enumerate([128, 64, 0, 255]):
        assert abs(int(px[10, 10 + 20 * k, 3]) - alpha) <= 1, k
