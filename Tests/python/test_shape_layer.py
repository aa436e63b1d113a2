"""quartzite.ShapeLayer (CAShapeLayer): defaults, bad input, and pixels
(strokeEnd 0.5 inks half of the whole stroke; the even-odd rule's hole)."""
import math

import pytest

import quartzite as qz
from quartzite import (
    Color, InvalidArgumentError, Layer, NotFiniteError, Path, ShapeLayer, UnknownConstantError, WrongTypeError,
)


def render(w, h, **properties):
    root = Layer(bounds=(0, 0, w, h), anchor_point=(0, 0))
    root.add(ShapeLayer(frame=(0, 0, w, h), **properties))
    return qz.Renderer(root, w, h).frame(1.0)   # BGRA


def ink(pixels):
    return float(pixels[:, :, 3].sum()) / 255


def test_defaults():
    s = ShapeLayer()
    assert s.path is None and s.stroke_color is None
    assert s.fill_color == Color(0, 0, 0, 1) and s.fill_rule == "non-zero"
    assert (s.stroke_start, s.stroke_end, s.line_width, s.miter_limit, s.line_dash_phase) == (0, 1, 1, 10, 0)
    assert (s.line_cap, s.line_join, s.line_dash_pattern) == ("butt", "miter", None)


def test_bad_input_raises_and_changes_nothing():
    s = ShapeLayer()
    with pytest.raises(NotFiniteError):
        s.stroke_end = math.nan
    with pytest.raises(UnknownConstantError):
        s.line_join = "mitre"
    with pytest.raises(InvalidArgumentError):
        s.line_dash_pattern = [3, -1]
    with pytest.raises(WrongTypeError):
        s.path = "M 0 0 L 10 10"
    assert s.stroke_end == 1 and s.line_join == "miter" and s.line_dash_pattern is None
    s.line_dash_pattern = [4, 2]
    assert s.line_dash_pattern == [4, 2]


def test_stroke_end_half_inks_half_the_stroke():
    circle = Path.ellipse((10, 10, 100, 100))
    style = dict(path=circle, fill_color=None, stroke_color=Color(0, 0, 1), line_width=4)
    whole = ink(render(120, 120, **style))
    half = ink(render(120, 120, stroke_end=0.5, **style))
    assert whole == pytest.approx(2 * math.pi * 50 * 4, rel=0.01)
    assert half / whole == pytest.approx(0.5, abs=0.01)


def test_even_odd_leaves_a_hole():
    both = Path.rect((10, 10, 40, 40)).mutable_copy()
    both.add_path(Path.rect((20, 20, 20, 20)))
    pixels = render(60, 60, path=both, fill_rule="even-odd")
    assert pixels[15, 15, 3] == 255 and pixels[30, 30, 3] == 0
    pixels = render(60, 60, path=both)
    assert pixels[30, 30, 3] == 255
