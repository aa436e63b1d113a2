"""quartzite.GradientLayer (CAGradientLayer): defaults, bad input, and the
rendered gradient checked against values computed here (a linear
gradient's midpoint is the mean of its colours; radial and conic at known
points)."""
import math

import pytest

import quartzite as qz
from quartzite import (
    Color, GradientLayer, InvalidArgumentError, Layer, NotFiniteError, UnknownConstantError, WrongTypeError,
)


def render(w, h, **properties):
    root = Layer(bounds=(0, 0, w, h), anchor_point=(0, 0))
    root.add(GradientLayer(frame=(0, 0, w, h), **properties))
    pixels = qz.Renderer(root, w, h).frame(1.0)   # BGRA
    return pixels


def rgb(pixels, x, y):
    b, g, r, a = (int(v) for v in pixels[y, x])
    return r / 255, g / 255, b / 255


def test_defaults():
    g = GradientLayer()
    assert g.colors is None and g.locations is None
    assert tuple(g.start_point) == (0.5, 0) and tuple(g.end_point) == (0.5, 1)
    assert g.type == "axial"
    assert isinstance(g, Layer) and g.class_name == "CAGradientLayer"


def test_bad_input_raises_and_changes_nothing():
    g = GradientLayer(colors=[Color(1, 0, 0), Color(0, 0, 1)])
    with pytest.raises(InvalidArgumentError):
        g.locations = [0, 0.5, 1]              # three locations for two colours
    with pytest.raises(NotFiniteError):
        g.locations = [0, math.nan]
    with pytest.raises(WrongTypeError):
        g.colors = [1, 2]
    with pytest.raises(UnknownConstantError):
        g.type = "spiral"
    assert g.locations is None and len(g.colors) == 2 and g.type == "axial"
    g.locations = [0.25, 0.75]
    assert g.locations == [0.25, 0.75]


def test_linear_midpoint_is_the_mean_of_its_colours():
    px = render(16, 101, colors=[Color(0.9, 0.1, 0.3), Color(0.1, 0.7, 0.5)])
    assert rgb(px, 8, 50) == pytest.approx((0.5, 0.4, 0.4), abs=1 / 255)
    assert int(px[50, 8][3]) == 255


def test_radial_and_conic_at_known_points():
    radial = render(101, 101, colors=[Color(1, 1, 1), Color(0, 0, 0)], type="radial",
                    start_point=(0.5, 0.5), end_point=(1, 1))
    for x, y in ((50, 50), (75, 50), (50, 15), (30, 70)):
        t = min(math.hypot(x + 0.5 - 50.5, y + 0.5 - 50.5) / 50.5, 1)
        assert rgb(radial, x, y) == pytest.approx((1 - t,) * 3, abs=2 / 255), (x, y)
    conic = render(101, 101, colors=[Color(0, 0, 0), Color(1, 1, 1)], type="conic",
                   start_point=(0.5, 0.5), end_point=(1, 0.5))
    for x, y in ((85, 70), (50, 95), (5, 45), (60, 5)):
        t = (math.atan2(y + 0.5 - 50.5, x + 0.5 - 50.5) % (2 * math.pi)) / (2 * math.pi)
        assert rgb(conic, x, y) == pytest.approx((t,) * 3, abs=2 / 255), (x, y)
