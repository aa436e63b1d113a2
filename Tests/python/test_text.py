"""Text from Python: TextLayer draws through the display cycle, quartzite.Font,
attributed strings from (text, attributes) runs with UTF-16 ranges, and Core
Text (Line, Framesetter, Frame) drawn from a Python draw_in_context. The
fonts are pinned by Tests/fonts/fonts.conf."""
import os

import numpy as np
import pytest

import quartzite as qz
from quartzite import AttributedString, Color, Context, Font, Framesetter, Layer, Line, TextLayer
from quartzite import text as qz_text


@pytest.fixture(autouse=True)
def pinned_fonts(repo):
    assert qz_text.set_font_configuration_file(os.path.join(repo, "Tests", "fonts", "fonts.conf"))


def pixels(pb):
    with pb.locked(read_only=True):
        return np.array(pb, copy=True)


def ink_columns(a):
    cols = np.nonzero((a[:, :, 3] > 40).any(axis=0))[0]
    return (int(cols[0]), int(cols[-1])) if len(cols) else None


def test_font_resolves_apple_names():
    f = Font("Helvetica", 36)
    assert f.family_name == "Liberation Sans" and f.size == 36
    assert f.path.endswith("LiberationSans-Regular.ttf")
    assert Font("Menlo", 12).family_name == "Liberation Mono"
    assert Font("Times-Bold", 12).postscript_name == "LiberationSerif-Bold"
    assert Font("No such font", 12).family_name == "Liberation Sans"
    assert Font("Helvetica", 0).size == 12
    assert f.ascent > 30 and 5 < f.descent < 10 and f.with_size(18).size == 18
    with pytest.raises(qz.InvalidArgumentError):
        Font("Helvetica", -1)
    with pytest.raises(qz.NotFiniteError):
        Font("Helvetica", float("nan"))


def test_text_layer_draws_its_string():
    layer = TextLayer(bounds=(0, 0, 160, 40), string="Hello", font="Helvetica", font_size=24,
                      foreground_color=Color(0, 0, 0), alignment_mode="right")
    qz.transaction_flush()
    a = pixels(layer.contents)
    left, right = ink_columns(a)
    assert right >= 157 and left > 60
    assert layer.string == "Hello"
    assert layer.preferred_frame_size().width == pytest.approx(Line(AttributedString("Hello", {"font": ("Helvetica", 24)})).width)


def test_attributed_runs_with_utf16_ranges():
    s = AttributedString([("Bold ", {"font": ("Helvetica-Bold", 20), "color": (0.8, 0.1, 0.1)}),
                          ("😀 plain", {"font": "Times", "underline": True})])
    assert str(s) == "Bold 😀 plain"
    assert len(s) == 13                      # the emoji is two UTF-16 units
    font, span = s.attribute(0, "font")
    assert isinstance(font, Font) and font.postscript_name == "LiberationSans-Bold" and span == (0, 5)
    underline, span = s.attribute(6, "underline")
    assert underline == 1 and span == (5, 8)
    color, _ = s.attribute(1, "color")
    assert isinstance(color, Color) and color.components[0] == pytest.approx(0.8)
    with pytest.raises(qz.OutOfRangeError):
        s.set_attribute(10, 5, "kern", 2)
    assert s.attribute(12, "kern")[0] is None


def test_text_layer_takes_runs_and_keeps_a_copy():
    layer = TextLayer(bounds=(0, 0, 200, 40))
    layer.string = [("Red ", {"font": ("Helvetica", 20), "color": (1, 0, 0)}),
                    ("blue", {"font": ("Helvetica", 20), "color": (0, 0, 1)})]
    qz.transaction_flush()
    kept = layer.string
    assert isinstance(kept, AttributedString) and str(kept) == "Red blue"
    a = pixels(layer.contents)
    ink = a[:, :, 3] > 200
    red = ink & (a[:, :, 2] > 200) & (a[:, :, 0] < 60)      # BGRA
    blue = ink & (a[:, :, 0] > 200) & (a[:, :, 2] < 60)
    assert red.any() and blue.any()
    assert np.nonzero(red.any(axis=0))[0].max() < np.nonzero(blue.any(axis=0))[0].min()


def test_core_text_from_a_python_draw_in_context():
    class Caption(Layer):
        def draw_in_context(self, ctx):
            ctx.translate_ctm(0, self.bounds.height)
            ctx.scale_ctm(1, -1)
            ctx.set_text_position(4, 8)
            Line(AttributedString("Caption", {"font": ("Helvetica", 18), "color": (0, 0, 0)})).draw(ctx)

    layer = Caption(bounds=(0, 0, 120, 30))
    layer.set_needs_display()
    qz.transaction_flush()
    a = pixels(layer.contents)
    left, right = ink_columns(a)
    assert 3 <= left <= 6 and right > 60
    rows = np.nonzero((a[:, :, 3] > 40).any(axis=1))[0]
    # Baseline 8 points above the bottom (row 22): the capital's top about
    # 13 rows above it, the "p" descending about 4 rows below it.
    assert 8 <= rows.min() <= 10 and 24 <= rows.max() <= 26
    assert (a[20:22, left:left + 3, 3] > 100).any()       # the "C" reaches the baseline


def test_framesetter_and_frame():
    text = AttributedString("Core Text wraps this paragraph inside the frame's rectangle.", {"font": ("Times", 16)})
    setter = Framesetter(text)
    size, fit = setter.suggest_frame_size((120, float("inf")))
    assert size.width <= 120 and fit == (0, len(text))
    frame = setter.create_frame((0, 0, 120, size.height))
    assert frame.line_count >= 3 and frame.visible_range == (0, len(text))
    origins = frame.line_origins
    assert origins[0].y > origins[1].y                   # y up: the first line on top
    ctx = Context.bitmap(130, int(size.height) + 4)
    frame.draw(ctx)
    assert (ctx.to_array()[:, :, 3] > 0).any()


def test_statistics_count_no_work_for_moving_labels():
    labels = [TextLayer(bounds=(0, 0, 60, 20), string=f"Label {i}", font_size=12) for i in range(20)]
    qz.transaction_flush()
    qz_text.reset_statistics()
    for i, label in enumerate(labels):
        label.position = (i * 3, i * 2)
        label.opacity = 0.5
    qz.transaction_flush()
    s = qz_text.statistics()
    assert s["layouts"] == 0 and s["draws"] == 0
    labels[3].string = "Changed"
    qz.transaction_flush()
    s = qz_text.statistics()
    assert s["layouts"] == 1 and s["draws"] == 1 and s["cached_fonts"] >= 1


def test_bad_text_input_raises_without_crashing():
    layer = TextLayer(bounds=(0, 0, 50, 20), string="x")
    with pytest.raises(qz.NotFiniteError):
        layer.font_size = float("nan")
    layer.font_size = 0
    layer.font_size = 1e9
    # Invalid UTF-8 from C: drawn with U+FFFD.
    bad = qz._lib.CAValueCreateString(b"A\xff\xfeB")
    qz._lib.CATextLayerSetString(layer, bad)
    qz._lib.CARelease(bad)
    qz.transaction_flush()
    assert layer.string == "A\ufffd\ufffdB"
    # (A Python str with a lone surrogate cannot be encoded: Python says so.)
    with pytest.raises(UnicodeEncodeError):
        layer.string = "\ud800"
    with pytest.raises(TypeError):
        AttributedString([("x", {"font": 12})])
