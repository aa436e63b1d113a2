"""Core Graphics from Python: Context (snake_case CGContext), Image (files,
bytes, NumPy), Gradient, and draw_in_context on layer subclasses and
delegates through the display cycle."""
import math
import types

import numpy as np
import pytest

import quartzite as qz
from quartzite import (
    BlendMode, Color, Context, Gradient, GradientDrawingOptions, Image, InterpolationQuality, Layer, LineCap,
    PathDrawingMode, PixelBuffer, Rect, Renderer,
)


def pixels(pb):
    with pb.locked(read_only=True):
        return np.array(pb, copy=True)


def alpha(ctx, x, y):
    return int(ctx.to_array()[y, x, 3])


def test_stroke_covers_exactly_its_rows():
    ctx = Context.bitmap(40, 30)
    ctx.set_line_width(10)
    ctx.move_to(5, 15)
    ctx.add_line_to(35, 15)
    ctx.stroke_path()
    column = ctx.to_array()[:, 20, 3]
    assert list(np.nonzero(column)[0]) == list(range(10, 20))
    assert set(column[10:20]) == {255}


def test_square_caps_and_dashes():
    ctx = Context.bitmap(60, 10)
    ctx.set_line_width(4)
    ctx.set_line_cap(LineCap.SQUARE)
    ctx.move_to(10, 5)
    ctx.add_line_to(50, 5)
    ctx.stroke_path()
    row = ctx.to_array()[4, :, 3]
    assert row[7] == 0 and row[8] == 255 and row[51] == 255 and row[52] == 0   # 2 px (half the width) beyond
    ctx.clear_rect((0, 0, 60, 10))
    ctx.set_line_cap(LineCap.BUTT)
    ctx.set_line_dash(0, [10, 5])
    ctx.move_to(0, 5)
    ctx.add_line_to(60, 5)
    ctx.stroke_path()
    row = ctx.to_array()[4, :, 3] > 128
    assert list(row[:30]) == [True] * 10 + [False] * 5 + [True] * 10 + [False] * 5


def test_even_odd_and_nonzero():
    ctx = Context.bitmap(50, 50)
    for fill, inner in ((ctx.eo_fill_path, 0), (ctx.fill_path, 255)):
        ctx.clear_rect((0, 0, 50, 50))
        ctx.add_rect((5, 5, 40, 40))
        ctx.add_rect((15, 15, 20, 20))
        fill()
        assert alpha(ctx, 25, 25) == inner and alpha(ctx, 8, 8) == 255


def test_saved_state_and_colours():
    ctx = Context.bitmap(20, 20)
    with ctx.saved():
        ctx.translate_ctm(10, 0)
        ctx.set_fill_color(Color(1, 0, 0))
        ctx.fill_rect((0, 0, 5, 5))
        assert ctx.ctm.tx == 10
    assert ctx.ctm.tx == 0
    ctx.fill_rect((0, 10, 5, 5))                 # black again
    a = ctx.to_array()
    assert tuple(a[2, 12]) == (0, 0, 255, 255)   # BGRA red
    assert tuple(a[12, 2]) == (0, 0, 0, 255)
    ctx.set_fill_color(0, 1, 0, 0.5)
    ctx.fill_rect((10, 10, 5, 5))
    assert tuple(ctx.to_array()[12, 12]) == (0, 128, 0, 128)


def test_path_queries_and_errors():
    ctx = Context.bitmap(50, 50)
    assert ctx.is_path_empty
    with pytest.raises(qz.InvalidStateError, match="no current point"):
        ctx.add_line_to(1, 1)
    with pytest.raises(qz.NotFiniteError):
        ctx.move_to(math.nan, 0)
    with pytest.raises(qz.InvalidArgumentError):
        ctx.set_line_dash(0, [0, 0])
    with pytest.raises(qz.InvalidArgumentError):
        ctx.set_line_width(-2)
    with pytest.raises(qz.InvalidStateError):
        ctx.restore_gstate()
    ctx.move_to(10, 10)
    ctx.add_arc(25, 25, 10, 0, math.pi)
    ctx.add_quad_curve_to(0, 0, 10, 10)
    ctx.close_path()
    box = ctx.path_bounding_box
    # x from the quadratic's extreme (t = 0.6: 6) to the arc's start (35).
    assert box.origin.x == pytest.approx(6) and box.size.width == pytest.approx(29)
    assert ctx.path_contains_point((25, 30), PathDrawingMode.FILL)
    path = ctx.copy_path()
    assert path is not None and not path.is_empty
    ctx.begin_path()
    assert ctx.is_path_empty and ctx.copy_path() is None


def test_blend_modes_gradients_layers_and_shadow():
    ctx = Context.bitmap(100, 20)
    ctx.set_fill_color(0.5, 0.5, 0.5)
    ctx.fill_rect((0, 0, 100, 20))
    ctx.set_blend_mode(BlendMode.MULTIPLY)
    ctx.set_fill_color(1, 0, 0)
    ctx.fill_rect((0, 0, 10, 10))
    assert tuple(ctx.to_array()[5, 5])[1:3] == (0, 128)
    ctx.set_blend_mode(BlendMode.NORMAL)
    g = Gradient([(0, 0, 0, 1), Color(1, 1, 1)])
    ctx.draw_linear_gradient(g, (20, 0), (80, 0),
                             GradientDrawingOptions.DRAWS_BEFORE_START_LOCATION
                             | GradientDrawingOptions.DRAWS_AFTER_END_LOCATION)
    a = ctx.to_array()
    assert a[15, 10, 0] == 0 and a[15, 90, 0] == 255 and 120 < a[15, 50, 0] < 136
    ctx.clear_rect((0, 0, 100, 20))
    ctx.set_alpha(0.5)
    with ctx.transparency_layer():
        ctx.set_fill_color(0, 0, 0)
        ctx.fill_rect((0, 0, 30, 10))
        ctx.fill_rect((10, 0, 30, 10))
    assert alpha(ctx, 5, 5) == alpha(ctx, 20, 5) == 128
    ctx.set_alpha(1)
    ctx.set_shadow((0, 4), 0, Color(1, 0, 0))
    ctx.fill_rect((60, 2, 10, 10))
    assert tuple(ctx.to_array()[14, 65]) == (0, 0, 255, 255)
    ctx.clear_shadow()


def png_bytes(tmp_path):
    pb = PixelBuffer.from_array(np.array([[[0, 0, 255, 255], [0, 255, 0, 255]],
                                          [[255, 0, 0, 255], [0, 0, 0, 0]]], dtype=np.uint8))
    path = tmp_path / "tiny.png"
    pb.write_png(path)
    return path, path.read_bytes()


def test_images_from_files_bytes_and_arrays(tmp_path):
    path, data = png_bytes(tmp_path)
    a = Image.from_file(path)
    b = Image.from_bytes(data)
    assert (a.width, a.height) == (2, 2) == (b.width, b.height)
    assert np.array_equal(a.to_array(), b.to_array())
    assert tuple(a.to_array()[0, 0]) == (0, 0, 255, 255)
    assert a.bits_per_pixel == 32
    with pytest.raises(qz.InvalidArgumentError):
        Image.from_bytes(data[:40])                  # truncated
    with pytest.raises(qz.InvalidArgumentError):
        Image.from_bytes(b"not an image")
    rgb = Image.from_array(np.array([[[255, 0, 0], [0, 0, 255]]], dtype=np.uint8))
    assert tuple(rgb.to_array()[0, 1]) == (255, 0, 0, 255)    # BGRA blue
    bgra = np.zeros((3, 4, 4), dtype=np.uint8)
    bgra[..., 1] = 200
    bgra[..., 3] = 255
    img = Image.from_array(bgra)
    assert np.array_equal(img.to_array(), bgra)
    assert img.crop((1, 1, 2, 5)).height == 2
    pb = img.to_pixel_buffer()
    assert np.array_equal(Image.from_pixel_buffer(pb).to_array(), bgra)


def test_draw_image_upright_and_as_contents(tmp_path):
    path, _ = png_bytes(tmp_path)
    image = Image.from_file(path)
    ctx = Context.bitmap(20, 20)
    ctx.set_interpolation_quality(InterpolationQuality.NONE)
    ctx.draw_image((0, 0, 20, 20), image, upright=True)
    a = ctx.to_array()
    assert tuple(a[5, 5]) == (0, 0, 255, 255) and tuple(a[15, 5]) == (255, 0, 0, 255)
    ctx.draw_image((0, 0, 20, 20), image)            # Core Graphics' placement: upside down here
    assert tuple(ctx.to_array()[15, 5]) == (0, 0, 255, 255)
    layer = Layer(bounds=(0, 0, 2, 2))
    layer.contents = image
    assert isinstance(layer.contents, Image)
    with pytest.raises(qz.WrongTypeError):
        layer.contents = Color(1, 0, 0)


def test_draw_in_context_on_a_subclass_through_the_display_cycle():
    class Ring(Layer):
        @classmethod
        def needs_display_for_key(cls, key):
            return key == "progress" or super().needs_display_for_key(key)

        def draw_in_context(self, ctx):
            progress = self.value_for_key("progress") or 0
            ctx.set_fill_color(0, 0.5, 1)
            ctx.fill_rect((0, 0, self.bounds.size.width * progress, self.bounds.size.height))

    layer = Ring(bounds=(0, 0, 40, 10), position=(20, 5))
    layer.set_value_for_key("progress", 0.5)
    qz.transaction_flush()                            # the commit displays it
    store = layer.contents
    assert isinstance(store, PixelBuffer) and (store.width, store.height) == (40, 10)
    a = pixels(store)
    assert a[5, 10, 3] == 255 and a[5, 30, 3] == 0


def test_draw_layer_in_context_on_a_delegate():
    layer = Layer(bounds=(0, 0, 10, 10))
    seen = []

    def draw(l, ctx):
        seen.append(ctx.clip_bounding_box)
        ctx.set_fill_color(1, 0, 0)
        ctx.fill_ellipse_in_rect((0, 0, 10, 10))

    layer.delegate = types.SimpleNamespace(draw_layer_in_context=draw)
    layer.set_needs_display()
    qz.transaction_flush()
    assert seen == [Rect(0, 0, 10, 10)]
    assert pixels(layer.contents)[5, 5, 2] == 255


def test_animated_custom_property_redraws_every_frame():
    """The article's pattern from Python: a subclass whose "progress" key
    needs display, animated; each rendered frame draws the interpolated value."""
    seen = []

    class Bar(Layer):
        @classmethod
        def needs_display_for_key(cls, key):
            return key == "progress" or super().needs_display_for_key(key)

        def draw_in_context(self, ctx):
            progress = self.value_for_key("progress") or 0
            seen.append(progress)
            ctx.set_fill_color(1, 1, 1)
            ctx.fill_rect((0, 0, 100 * progress, 10))

    clock = [500.0]
    qz.set_media_time_source(lambda: clock[0])
    try:
        layer = Bar(bounds=(0, 0, 100, 10), position=(50, 5))
        layer.set_value_for_key("progress", 1.0)
        qz.transaction_flush()
        layer.add_animation(qz.BasicAnimation("progress", from_value=0.0, to_value=1.0, duration=1.0,
                                              timing_function=qz.TimingFunction.named("linear")), "progress")
        qz.transaction_flush()
        renderer = Renderer(layer, 100, 10)
        for t in (0.2, 0.6):
            seen.clear()
            frame = renderer.frame(500 + t)
            assert seen == [pytest.approx(t)]
            assert int((frame[5, :, 0] > 128).sum()) == pytest.approx(100 * t, abs=1)
    finally:
        qz.set_media_time_source(None)
