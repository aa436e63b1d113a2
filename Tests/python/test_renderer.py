"""quartzite.Renderer: frames as NumPy arrays, damage, draw lists, renderInContext."""
import math

import numpy as np
import pytest

import quartzite
from quartzite import BasicAnimation, Color, Layer, Rect, Renderer


def make_tree():
    root = Layer(frame=(0, 0, 40, 30), background_color=Color(1, 1, 1))
    box = Layer(frame=(4, 4, 10, 10), background_color=Color(1, 0, 0))
    root.add_sublayer(box)
    return root, box


def test_frame_is_a_numpy_array_of_the_tree():
    root, box = make_tree()
    r = Renderer(root, 40, 30)
    f = r.frame(0)
    assert f.shape == (30, 40, 4) and f.dtype == np.uint8
    assert tuple(f[5, 5]) == (0, 0, 255, 255)           # BGRA red
    assert tuple(f[20, 30]) == (255, 255, 255, 255)
    rgba = r.frame(0, rgba=True)
    assert tuple(rgba[5, 5]) == (255, 0, 0, 255)


def test_damage_and_idle_frames():
    root, box = make_tree()
    r = Renderer(root, 40, 30)
    r.frame(0)
    r.begin_frame(1)
    assert r.update_bounds() is None
    r.end_frame()
    with quartzite.transaction(disable_actions=True):     # a jump, not an implicit animation
        box.position = (19, 9)                            # frame (14, 4, 10, 10)
    r.begin_frame(2)
    u = r.update_bounds()
    assert (u.origin.x, u.origin.y, u.size.width, u.size.height) == (4, 4, 20, 10)
    r.render()
    r.end_frame()
    assert math.isinf(r.next_frame_time)


def test_animation_frames_follow_the_media_clock():
    clock = [5.0]
    quartzite.set_media_time_source(lambda: clock[0])
    root, box = make_tree()
    box.add_animation(BasicAnimation("opacity", from_value=0, to_value=1, duration=2), "fade")
    r = Renderer(root, 40, 30)
    f = r.frame(6)                                        # half-way: opacity 0.5 over white
    assert abs(int(f[5, 5, 0]) - 128) <= 1 and f[5, 5, 2] == 255
    assert r.next_frame_time == 5.0                       # outside a frame: now, while animating
    r.begin_frame(6.5)
    assert r.next_frame_time == 6.5
    r.end_frame()
    f = r.frame(8)
    assert tuple(f[5, 5]) == (0, 0, 255, 255)


def test_draw_list_operations():
    root, box = make_tree()
    box.corner_radius = 3
    r = Renderer(root, 40, 30)
    r.frame(0)
    ops = list(r.draw_list())
    assert [op["kind"] for op in ops] == ["fill", "fill"]
    assert ops[1]["corner_radius"] == 3
    assert ops[1]["transform"][12:14] == (4.0, 4.0)       # m41, m42: layer origin at pixel (4, 4)


def test_render_in_context_uses_the_model_and_scale():
    layer = Layer(frame=(100, 100, 8, 4), background_color=Color(0, 1, 0))
    px = quartzite.render_in_context(layer, 16, 8, scale=2)
    assert tuple(px[7, 15]) == (0, 255, 0, 255)


def test_bad_renderer_arguments():
    with pytest.raises(TypeError):
        Renderer(None)
    yuv = quartzite.PixelBuffer(16, 16, "420v")
    with pytest.raises(quartzite.InvalidArgumentError):
        Renderer(None, target=yuv)
    r = Renderer(None, 8, 8)
    with pytest.raises(quartzite.InvalidStateError):
        r.render()
    r.begin_frame(0)
    with pytest.raises(quartzite.InvalidStateError):
        r.render()


def test_implicit_animations_show_in_frames():
    """A property change in a transaction animates implicitly on screen: the
    frame commits the thread's implicit transaction, the animation begins at
    that commit and runs with the transaction's duration and timing."""
    clock = [10.0]
    quartzite.set_media_time_source(lambda: clock[0])
    try:
        root, box = make_tree()
        r = Renderer(root, 40, 30)
        f = r.frame(10)                                   # commits the tree (no animation)
        assert tuple(f[5, 5]) == (0, 0, 255, 255)
        with quartzite.transaction(duration=2, timing_function="linear"):
            box.opacity = 0.0                             # commits at media time 10
        assert box.animation("opacity") is not None
        f = r.frame(11)                                   # half-way: red at 0.5 over white
        assert abs(int(f[5, 5, 0]) - 128) <= 1 and abs(int(f[5, 5, 1]) - 128) <= 1 and f[5, 5, 2] == 255
        assert r.next_frame_time == 10.0                  # outside a frame: now, while animating
        f = r.frame(12.5)                                 # over: the model value (transparent box)
        assert tuple(f[5, 5]) == (255, 255, 255, 255)
    finally:
        quartzite.set_media_time_source(None)


def test_frames_show_committed_state_and_follow_the_commit():
    """Inside an open explicit transaction the frame shows the last committed
    state; the next frame after the commit shows the new one (an idle-frame
    shortcut must not keep the old pixels)."""
    root, box = make_tree()
    r = Renderer(root, 40, 30)
    assert tuple(r.frame(0)[5, 5]) == (0, 0, 255, 255)          # red
    with quartzite.transaction(disable_actions=True):
        box.background_color = Color(0, 0, 1)
        assert tuple(r.frame(1)[5, 5]) == (0, 0, 255, 255)      # not committed yet
    assert tuple(r.frame(2)[5, 5]) == (255, 0, 0, 255)          # blue after the commit
    assert tuple(r.frame(3)[5, 5]) == (255, 0, 0, 255)          # idle frame, same pixels
