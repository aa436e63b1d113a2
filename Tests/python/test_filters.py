"""Layer filters from Python (quartzite.filters): compositing_filter,
filters and background_filters. Defaults, bad input raising (and changing
nothing), and pixels checked against values computed here: multiply is the
product per channel, a Gaussian blur of a step edge is ~50% beside the edge,
colour controls at saturation 0 give the luminance grey, a backdrop blur
stays inside its rounded card; the draw list shows the blend mode and
filters."""
import math

import pytest

import quartzite as qz
from quartzite import Color, Layer, NotFiniteError, UnknownConstantError, WrongTypeError
from quartzite.filters import COMPOSITING_FILTERS, color_controls, color_matrix, gaussian_blur


def box(x, y, w, h, color=None, **properties):
    return Layer(frame=(x, y, w, h), background_color=color, **properties)


def root_layer(w, h, color=None):
    return Layer(bounds=(0, 0, w, h), anchor_point=(0, 0), background_color=color)


def render(root, w, h):
    return qz.Renderer(root, w, h).frame(1.0)   # BGRA


def rgba(pixels, x, y):
    b, g, r, a = (int(v) for v in pixels[y, x])
    return r, g, b, a


def test_defaults_are_none():
    layer = Layer()
    assert (layer.compositing_filter, layer.filters, layer.background_filters) == (None, None, None)


def test_values_round_trip():
    layer = Layer(compositing_filter="screenBlendMode", filters=[gaussian_blur(3)],
                  background_filters=[color_controls(saturation=0), color_matrix(bias=(0.1, 0, 0, 0))])
    assert layer.compositing_filter == "screenBlendMode"
    assert layer.filters == [{"name": "CIGaussianBlur", "inputRadius": 3.0}]
    assert layer.background_filters[1]["inputBiasVector"] == [0.1, 0, 0, 0]


@pytest.mark.parametrize("name, value, error", [
    ("compositing_filter", "multiply", UnknownConstantError),
    ("compositing_filter", 3, WrongTypeError),
    ("filters", [{"name": "CISepiaTone"}], UnknownConstantError),
    ("filters", ["blur"], UnknownConstantError),
    ("filters", [gaussian_blur(math.nan)], NotFiniteError),
    ("filters", [{"name": "CIGaussianBlur", "inputRadius": "big"}], WrongTypeError),
    ("filters", 3, WrongTypeError),
    ("background_filters", [{"name": "CIBloom"}], UnknownConstantError),
    ("background_filters", [color_matrix(r=(1, 0, 0))], WrongTypeError),
])
def test_bad_input_raises_and_changes_nothing(name, value, error):
    layer = Layer(compositing_filter="multiplyBlendMode", filters=[gaussian_blur(2)],
                  background_filters=[gaussian_blur(2)])
    before = getattr(layer, name)
    with pytest.raises(error):
        setattr(layer, name, value)
    assert getattr(layer, name) == before


def test_multiply_is_the_product_per_channel():
    root = root_layer(20, 20, Color(200 / 255, 100 / 255, 50 / 255))
    root.add(box(5, 5, 10, 10, Color(128 / 255, 230 / 255, 64 / 255), compositing_filter="multiplyBlendMode"))
    px = render(root, 20, 20)
    # round(200 * 128 / 255), round(100 * 230 / 255), round(50 * 64 / 255)
    assert rgba(px, 10, 10) == (100, 90, 13, 255)
    assert rgba(px, 2, 2) == (200, 100, 50, 255)


@pytest.mark.parametrize("mode, formula", [
    ("screenBlendMode", lambda b, s: b + s - b * s),
    ("darkenBlendMode", min),
    ("lightenBlendMode", max),
    ("differenceBlendMode", lambda b, s: abs(b - s)),
    ("exclusionBlendMode", lambda b, s: b + s - 2 * b * s),
])
def test_separable_modes(mode, formula):
    back, src = (0.8, 0.4, 0.2), (0.5, 0.9, 0.25)
    root = root_layer(8, 8, Color(*back))
    root.add(box(0, 0, 8, 8, Color(*src), compositing_filter=mode))
    got = rgba(render(root, 8, 8), 4, 4)
    for c in range(3):
        assert abs(got[c] - formula(back[c], src[c]) * 255) <= 1.5


def test_gaussian_blur_of_a_step_edge():
    root = root_layer(100, 60, Color(0, 0, 0))
    g = Layer(frame=(0, 0, 100, 60), filters=[gaussian_blur(4)])
    g.add(box(50, 0, 50, 60, Color(1, 1, 1)))
    root.add(g)
    px = render(root, 100, 60)
    left, right = rgba(px, 49, 30)[0], rgba(px, 50, 30)[0]
    # The integrated Gaussian (sigma 4) beside the edge: 45.0% and 55.0%.
    assert abs(left - 0.4503 * 255) <= 3 and abs(right - 0.5497 * 255) <= 3
    assert abs((left + right) / 2 - 127.5) <= 2
    assert rgba(px, 10, 30) == (0, 0, 0, 255) and rgba(px, 80, 30)[0] >= 254


def test_color_controls_saturation_zero_gives_luminance():
    root = root_layer(30, 10)
    g = Layer(frame=(0, 0, 30, 10), filters=[color_controls(saturation=0)])
    for i, c in enumerate([Color(1, 0, 0), Color(0, 1, 0), Color(0, 0, 1)]):
        g.add(box(i * 10, 0, 10, 10, c))
    root.add(g)
    px = render(root, 30, 10)
    # Rec. 709 luminance: 0.2126, 0.7152, 0.0722 of 255.
    assert [rgba(px, x, 5) for x in (5, 15, 25)] == [(54, 54, 54, 255), (182, 182, 182, 255), (18, 18, 18, 255)]


def test_backdrop_blur_stays_in_the_rounded_card():
    root = root_layer(100, 60, Color(0, 0, 0))
    root.add(box(50, 0, 50, 60, Color(1, 1, 1)))
    root.add(Layer(frame=(20, 10, 60, 40), corner_radius=12, background_filters=[gaussian_blur(4)]))
    px = render(root, 100, 60)
    assert abs((rgba(px, 49, 30)[0] + rgba(px, 50, 30)[0]) / 2 - 127.5) <= 3
    assert rgba(px, 49, 5)[0] == 0 and rgba(px, 50, 5)[0] == 255     # above the card
    assert rgba(px, 78, 11)[0] == 255                                # its cut corner


def test_draw_list_shows_blend_mode_and_filters():
    root = root_layer(40, 40, Color(1, 1, 1))
    root.add(box(0, 0, 20, 20, Color(1, 0, 0), compositing_filter="CIOverlayBlendMode", filters=[gaussian_blur(2)]))
    root.add(Layer(frame=(20, 20, 20, 20), background_filters=[color_controls(contrast=2)]))
    r = qz.Renderer(root, 40, 40)
    r.begin_frame(1.0)
    ops = list(r.draw_list())
    r.end_frame()
    assert [op["kind"] for op in ops] == ["fill", "begin_group", "fill", "end_group", "backdrop"]
    assert ops[1]["blend_mode"] == "overlayBlendMode" and ops[0]["blend_mode"] == "sourceOver"
    assert ops[1]["filters"] == [{"name": "CIGaussianBlur", "inputRadius": 2.0}]
    assert ops[4]["filters"] == [{"name": "CIColorControls", "inputSaturation": 1.0, "inputBrightness": 0.0,
                                  "inputContrast": 2.0}]
    assert ops[0]["filters"] is None
    assert len(COMPOSITING_FILTERS) == 28


# Key paths into named filters ("filters.blur.inputRadius").

@pytest.fixture
def clock():
    from media_clock import Clock
    fake = Clock(10.0)
    qz.set_media_time_source(fake)
    yield fake
    qz.set_media_time_source(None)


def test_named_filter_inputs_by_key_path():
    layer = Layer(filters=[gaussian_blur(4, name="blur"), color_controls(saturation=0.5)])
    assert layer.filters[0] == {"name": "blur", "CIAttributeFilterName": "CIGaussianBlur", "inputRadius": 4.0}
    assert layer["filters.blur.inputRadius"] == 4.0
    assert layer["filters.CIColorControls.inputSaturation"] == 0.5
    assert layer["filters.CIColorControls.inputBrightness"] == 0.0   # Core Image's default
    layer["filters.blur.inputRadius"] = 6.5
    assert layer["filters.blur.inputRadius"] == 6.5
    assert layer.filters[0]["inputRadius"] == 6.5 and layer.filters[0]["name"] == "blur"
    layer.background_filters = [gaussian_blur(2, name="frost")]
    layer.set_value_for_key_path("backgroundFilters.frost.inputRadius", 9)
    assert layer.value_for_key_path("backgroundFilters.frost.inputRadius") == 9.0


@pytest.mark.parametrize("path,value,error", [
    ("filters.nothing.inputRadius", 1.0, qz.InvalidArgumentError),
    ("filters.blur.inputAngle", 1.0, qz.InvalidArgumentError),
    ("filters.blur.inputRadius", -1.0, qz.InvalidArgumentError),
    ("filters.blur.inputRadius", math.nan, NotFiniteError),
])
def test_bad_filter_key_paths_raise_and_change_nothing(path, value, error):
    layer = Layer(filters=[gaussian_blur(4, name="blur")])
    with pytest.raises(error):
        layer[path] = value
    assert layer["filters.blur.inputRadius"] == 4.0


def test_filter_key_path_animates_and_is_drawn(clock):
    def scene(radius):
        root = root_layer(40, 40, Color(1, 1, 1))
        a = box(10, 10, 20, 20, Color(1, 0, 0), filters=[gaussian_blur(radius, name="blur")])
        root.add(a)
        return root, a
    root, a = scene(1)
    qz.transaction.flush()
    a.add_animation(qz.BasicAnimation("filters.blur.inputRadius", from_value=2.0, to_value=10.0, duration=4.0),
                    "blur")
    qz.transaction.flush()
    clock.now = 11.0                                   # a quarter of the way: 4
    assert a.presentation()["filters.blur.inputRadius"] == pytest.approx(4.0, abs=1e-9)
    assert a["filters.blur.inputRadius"] == 1.0        # the model keeps its value
    animated = qz.Renderer(root, 40, 40).frame(11.0)
    still, _ = scene(4)
    expected = qz.Renderer(still, 40, 40).frame(11.0)
    assert (animated == expected).all()
    # Beside the square's left edge a radius-4 blur is about half red over white.
    assert 100 < rgba(animated, 10, 20)[1] < 160
