"""quartzite.Layer: properties and their spec defaults, the tree, geometry,
hit testing, scrolling and key-value coding."""
import gc
import math

import pytest

import quartzite
from quartzite import (
    _lib, AffineTransform, Color, Edge, ErrorCode, InvalidArgumentError, Layer,
    NotFiniteError, NullArgumentError, OutOfRangeError, PixelBuffer, Point, QuartziteError, Rect,
    ScrollLayer, Size, TextLayer, TiledLayer, Transform3D, UnknownConstantError,
    Value, WrongTypeError,
)

BLACK = Color(0, 0, 0, 1)
WHITE = Color(1, 1, 1, 1)


# MARK: - Defaults (the spec's, read through the Python properties)

LAYER_DEFAULTS = [
    ("bounds", Rect(0, 0, 0, 0)),
    ("position", Point(0, 0)),
    ("z_position", 0.0),
    ("anchor_point", Point(0.5, 0.5)),
    ("anchor_point_z", 0.0),
    ("transform", Transform3D.identity()),
    ("sublayer_transform", Transform3D.identity()),
    ("affine_transform", AffineTransform.identity()),
    ("frame", Rect(0, 0, 0, 0)),
    ("contents", None),
    ("contents_rect", Rect(0, 0, 1, 1)),
    ("contents_center", Rect(0, 0, 1, 1)),
    ("contents_gravity", "resize"),
    ("contents_scale", 1.0),
    ("minification_filter", "linear"),
    ("minification_filter_bias", 0.0),
    ("magnification_filter", "linear"),
    ("opacity", 1.0),
    ("hidden", False),
    ("masks_to_bounds", False),
    ("mask", None),
    ("double_sided", True),
    ("corner_radius", 0.0),
    ("border_width", 0.0),
    ("border_color", BLACK),
    ("background_color", None),
    ("shadow_color", BLACK),
    ("shadow_opacity", 0.0),
    ("shadow_radius", 3.0),
    ("shadow_offset", Size(0, -3)),
    ("opaque", False),
    ("edge_antialiasing_mask", Edge.LEFT | Edge.RIGHT | Edge.BOTTOM | Edge.TOP),
    ("geometry_flipped", False),
    ("needs_display_on_bounds_change", False),
    ("should_rasterize", False),
    ("rasterization_scale", 1.0),
    ("filters", None),
    ("background_filters", None),
    ("compositing_filter", None),
    ("style", None),
    ("actions", None),
    ("name", None),
    ("begin_time", 0.0),
    ("duration", math.inf),   # infinite, as observed on Apple's QuartzCore (it used to be 0)
    ("speed", 1.0),
    ("time_offset", 0.0),
    ("repeat_count", 0.0),
    ("repeat_duration", 0.0),
    ("autoreverses", False),
    ("fill_mode", "removed"),
    ("superlayer", None),
    ("sublayers", []),
]


@pytest.mark.parametrize("name, expected", LAYER_DEFAULTS, ids=[n for n, _ in LAYER_DEFAULTS])
def test_layer_default(name, expected):
    value = getattr(Layer(), name)
    if expected is None:
        assert value is None
    else:
        assert type(value) is type(expected) or isinstance(expected, (float, bool, str))
        assert value == expected


def test_the_subclasses_have_the_layer_defaults_too():
    for cls in (ScrollLayer, TextLayer, TiledLayer):
        layer = cls()
        assert layer.anchor_point == Point(0.5, 0.5)
        assert layer.shadow_radius == 3.0
        assert layer.border_color == BLACK


@pytest.mark.parametrize("name, expected", [
    ("string", None), ("font", "Helvetica"), ("font_size", 36.0), ("foreground_color", WHITE),
    ("wrapped", False), ("alignment_mode", "natural"), ("truncation_mode", "none"),
])
def test_text_layer_default(name, expected):
    assert getattr(TextLayer(), name) == expected


def test_scroll_and_tiled_layer_defaults():
    assert ScrollLayer().scroll_mode == "both"
    tiled = TiledLayer()
    assert tiled.tile_size == Size(256, 256)
    assert tiled.levels_of_detail == 1
    assert tiled.levels_of_detail_bias == 0
    assert TiledLayer.fade_duration() == 0.25


def test_class_defaults_match_the_properties():
    assert Layer.default_value_for_key("anchorPoint") == Point(0.5, 0.5)
    assert Layer.default_value_for_key("shadowOffset") == Size(0, -3)
    assert TextLayer.default_value_for_key("fontSize") == 36.0
    assert Layer.default_value_for_key("noSuchKey") is None
    assert Layer.needs_display_for_key("opacity") is False


def test_each_layer_kind_has_its_class():
    assert [cls().class_name for cls in (Layer, ScrollLayer, TextLayer, TiledLayer)] == \
        ["CALayer", "CAScrollLayer", "CATextLayer", "CATiledLayer"]


# MARK: - Round trips

ROUND_TRIPS = [
    ("bounds", Rect(1, 2, 30, 40)),
    ("position", Point(5, -6)),
    ("z_position", 2.5),
    ("anchor_point", Point(0, 1)),
    ("anchor_point_z", -4.0),
    ("transform", Transform3D.translation(1, 2, 3)),
    ("sublayer_transform", Transform3D(m34=-1 / 500)),
    ("affine_transform", AffineTransform.scale(2, 3)),
    ("contents_rect", Rect(0.25, 0.25, 0.5, 0.5)),
    ("contents_center", Rect(0.1, 0.2, 0.3, 0.4)),
    ("contents_gravity", "topLeft"),
    ("contents_scale", 2.0),
    ("minification_filter", "trilinear"),
    ("minification_filter_bias", 0.5),
    ("magnification_filter", "nearest"),
    ("opacity", 0.25),
    ("hidden", True),
    ("masks_to_bounds", True),
    ("double_sided", False),
    ("corner_radius", 8.0),
    ("border_width", 1.5),
    ("border_color", Color(1, 0, 0, 1)),
    ("background_color", Color(0, 0.5, 1, 0.5)),
    ("shadow_color", Color(0, 1, 0, 1)),
    ("shadow_opacity", 0.75),
    ("shadow_radius", 6.0),
    ("shadow_offset", Size(2, 4)),
    ("opaque", True),
    ("edge_antialiasing_mask", Edge.LEFT | Edge.TOP),
    ("geometry_flipped", True),
    ("needs_display_on_bounds_change", True),
    ("should_rasterize", True),
    ("rasterization_scale", 3.0),
    ("filters", ["CIGaussianBlur", {"name": "CIGaussianBlur", "inputRadius": 2.0}]),
    ("background_filters", ["CIColorControls"]),
    ("compositing_filter", "multiplyBlendMode"),
    ("style", {"cornerRadius": 4.0}),
    ("name", "héllo"),
    ("begin_time", 1.5),
    ("duration", 2.0),
    ("speed", 0.5),
    ("time_offset", 0.25),
    ("repeat_count", math.inf),
    ("repeat_duration", 10.0),
    ("autoreverses", True),
    ("fill_mode", "both"),
]


@pytest.mark.parametrize("name, value", ROUND_TRIPS, ids=[n for n, _ in ROUND_TRIPS])
def test_layer_property_round_trip(name, value):
    layer = Layer()
    setattr(layer, name, value)
    assert getattr(layer, name) == value


def test_geometry_setters_take_tuples():
    layer = Layer(bounds=(0, 0, 10, 20), position=(3, 4), shadow_offset=(1, 1))
    assert layer.bounds == Rect(0, 0, 10, 20)
    assert layer.position == Point(3, 4)
    assert layer.shadow_offset == Size(1, 1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        Layer(colour=None)


def test_transform_accepts_an_affine_transform():
    layer = Layer()
    layer.transform = AffineTransform.translation(5, 6)
    assert layer.transform == Transform3D.translation(5, 6, 0)
    assert layer.affine_transform == AffineTransform.translation(5, 6)


def test_colors_and_optional_values_can_be_cleared():
    layer = Layer(background_color=Color(1, 0, 0), name="x", filters=["CIGaussianBlur"])
    layer.background_color = None
    layer.name = None
    layer.filters = None
    assert (layer.background_color, layer.name, layer.filters) == (None, None, None)


@pytest.mark.parametrize("cls, name, value", [
    (TextLayer, "string", "Hello"),
    (TextLayer, "font", "Helvetica"),
    (TextLayer, "font_size", 12.0),
    (TextLayer, "foreground_color", Color(0.2, 0.4, 0.6, 1)),
    (TextLayer, "wrapped", True),
    (TextLayer, "alignment_mode", "center"),
    (TextLayer, "truncation_mode", "middle"),
    (ScrollLayer, "scroll_mode", "horizontally"),
    (TiledLayer, "levels_of_detail", 4),
    (TiledLayer, "levels_of_detail_bias", 2),
    (TiledLayer, "tile_size", Size(512, 128)),
])
def test_subclass_property_round_trip(cls, name, value):
    layer = cls()
    setattr(layer, name, value)
    assert getattr(layer, name) == value


# MARK: - Bad input raises


def test_nan_raises_not_finite_and_changes_nothing():
    layer = Layer(opacity=0.5)
    with pytest.raises(NotFiniteError) as excinfo:
        layer.opacity = math.nan
    assert excinfo.value.code == ErrorCode.NOT_FINITE == 4
    assert "CALayerSetOpacity" in excinfo.value.message
    assert layer.opacity == 0.5
    with pytest.raises(NotFiniteError):
        layer.position = (math.nan, 0)


def test_unknown_constant_raises():
    layer = Layer()
    with pytest.raises(UnknownConstantError) as excinfo:
        layer.contents_gravity = "sideways"
    assert excinfo.value.code == 6
    assert layer.contents_gravity == "resize"
    with pytest.raises(UnknownConstantError):
        TextLayer().alignment_mode = "diagonal"
    with pytest.raises(NullArgumentError):
        layer.fill_mode = None


@pytest.mark.parametrize("name, value", [
    ("opacity", "opaque"), ("bounds", (1, 2)), ("position", "origin"), ("border_color", 3),
    ("transform", [1, 0, 0, 1]), ("mask", "layer"), ("hidden", "no"), ("name", 5),
    ("filters", object()), ("edge_antialiasing_mask", 1.5),
])
def test_wrong_python_type_raises_wrong_type(name, value):
    with pytest.raises(WrongTypeError) as excinfo:
        setattr(Layer(), name, value)
    assert excinfo.value.code == ErrorCode.WRONG_TYPE
    assert isinstance(excinfo.value, TypeError)


def test_out_of_range_integers_raise():
    with pytest.raises(OutOfRangeError):
        Layer().edge_antialiasing_mask = -1
    with pytest.raises(OutOfRangeError):
        TiledLayer().levels_of_detail = -2


def test_library_rejections_raise_quartzite_errors():
    with pytest.raises(InvalidArgumentError):
        TiledLayer().tile_size = (0, 0)  # tiles must have a positive size
    with pytest.raises(WrongTypeError):
        Layer().set_value_for_key("opacity", "high")
    with pytest.raises(WrongTypeError):
        TextLayer().set_value_for_key("fontSize", [1, 2])


# MARK: - Frame


def test_frame_worked_example():
    layer = Layer(bounds=(0, 0, 100, 50), position=(100, 100), anchor_point=(0, 0))
    assert layer.frame == Rect(100, 100, 100, 50)
    # Rotating 90 degrees about z turns (x, y) into (-y, x) about the anchor,
    # the top-left corner: the box spans x in [50, 100] and y in [100, 200].
    layer.transform = Transform3D.rotation(math.pi / 2, 0, 0, 1)
    frame = layer.frame
    assert [round(v, 9) for v in frame] == [50, 100, 50, 100]


def test_frame_with_the_default_anchor_and_setting_it():
    layer = Layer(bounds=(0, 0, 100, 50), position=(100, 100))
    assert layer.frame == Rect(50, 75, 100, 50)
    layer.frame = (10, 20, 30, 40)
    assert layer.position == Point(25, 40)
    assert layer.bounds.size == Size(30, 40)


def test_preferred_frame_size_is_the_bounds_size_through_the_transform():
    layer = Layer(bounds=(0, 0, 40, 10))
    assert layer.preferred_frame_size() == Size(40, 10)
    layer.transform = Transform3D.scale(2, 3, 1)
    assert layer.preferred_frame_size() == Size(80, 30)


# MARK: - Key-value coding


def test_rotation_key_path_sets_the_transform():
    layer = Layer()
    layer["transform.rotation.z"] = math.pi / 2
    t = layer.transform
    assert abs(t.m11) < 1e-12 and abs(t.m12 - 1) < 1e-12
    assert abs(t.m21 + 1) < 1e-12 and abs(t.m22) < 1e-12
    assert layer["transform.rotation.z"] == pytest.approx(math.pi / 2)


def test_struct_field_key_paths():
    layer = Layer(position=(3, 4), bounds=(0, 0, 10, 20))
    assert layer["position.x"] == 3.0
    assert layer["bounds.size.width"] == 10.0
    layer["position.x"] = 7
    layer["bounds.size.width"] = 50
    assert layer.position == Point(7, 4)
    assert layer.bounds == Rect(0, 0, 50, 20)
    assert layer["position"] == Point(7, 4)


def test_nested_custom_key_paths_create_dictionaries():
    layer = Layer()
    layer["touchPoints.a.scale"] = 2.0
    layer["touchPoints.b.scale"] = 3.0
    assert layer["touchPoints.a.scale"] == 2.0
    assert layer["touchPoints"] == {"a": {"scale": 2.0}, "b": {"scale": 3.0}}
    assert layer.value_for_key("touchPoints") == {"a": {"scale": 2.0}, "b": {"scale": 3.0}}


def test_missing_keys_read_as_none_and_custom_keys_can_be_deleted():
    layer = Layer()
    assert layer["nothing"] is None
    assert layer["nothing.deeper"] is None
    layer["tag"] = "blue"
    assert layer["tag"] == "blue"
    del layer["tag"]
    assert layer["tag"] is None
    layer.set_value_for_key("count", 3)
    layer.set_value_for_key("count", None)
    assert layer.value_for_key("count") is None


def test_bad_key_paths_raise_invalid_argument():
    layer = Layer()
    with pytest.raises(InvalidArgumentError) as excinfo:
        layer["a..b"] = 1
    assert excinfo.value.code == 3
    with pytest.raises(InvalidArgumentError):
        layer["position.z"] = 1.0
    assert layer.position == Point(0, 0)


def test_layers_in_values_come_back_as_the_same_objects():
    layer, buddy = Layer(), TextLayer()
    layer["buddy"] = buddy
    layer["friends"] = [buddy, {"best": buddy}]
    assert layer["buddy"] is buddy
    assert layer["friends"] == [buddy, {"best": buddy}]
    assert layer["friends"][1]["best"] is buddy


def test_key_value_coding_reaches_declared_properties():
    layer = TextLayer()
    layer.set_value_for_key("fontSize", 18)
    layer["opacity"] = 0.5
    layer["backgroundColor"] = Color(1, 0, 0)
    assert layer.font_size == 18.0
    assert layer.opacity == 0.5
    assert layer.background_color == Color(1, 0, 0)
    assert layer.value_for_key("string") is None
    layer.string = "hi"
    assert layer["string"] == "hi"


# MARK: - Style


def test_style_supplies_values_until_set_explicitly():
    layer = Layer()
    layer.style = {"opacity": 0.5, "style": {"cornerRadius": 4, "opacity": 0.25}}
    assert layer.opacity == 0.5  # the shallowest dictionary wins
    assert layer.corner_radius == 4.0  # nested "style" dictionary
    assert layer["cornerRadius"] == 4.0
    layer.opacity = 0.75
    assert layer.opacity == 0.75
    layer.style = None
    assert layer.corner_radius == 0.0


def test_style_does_not_change_the_tree_or_mistyped_properties():
    layer = Layer()
    child, mask = layer.add(Layer()), Layer()
    layer.mask = mask
    layer.style = {"sublayers": "junk", "mask": 5, "borderColor": 7, "name": 3}
    assert layer.sublayers == [child] and list(layer) == [child]
    assert layer.mask is mask
    assert layer.border_color == Color(0, 0, 0, 1)  # a style value of the wrong type is ignored
    assert layer.name is None


def test_style_must_be_a_dictionary():
    with pytest.raises(WrongTypeError):
        Layer().style = ["not", "a", "dictionary"]


# MARK: - The tree


def test_add_and_iterate_sublayers():
    parent = Layer()
    a, b, c = Layer(name="a"), TextLayer(name="b"), Layer(name="c")
    assert parent.add(a) is a
    parent.add(b)
    parent.add(c)
    assert len(parent) == 3
    assert [l.name for l in parent] == ["a", "b", "c"]
    assert parent.sublayers == [a, b, c]
    assert parent.sublayers[0] is a
    assert a.superlayer is parent
    assert b in parent and Layer() not in parent
    assert bool(Layer()) is True  # no sublayers, still true


def test_sublayer_at():
    parent = Layer()
    a, b = parent.add(Layer()), parent.add(TextLayer())
    assert parent.sublayer_at(0) is a
    assert parent.sublayer_at(1) is b and parent.sublayer_at(-1) is b
    with pytest.raises(OutOfRangeError) as excinfo:
        parent.sublayer_at(2)
    assert "CALayerGetSublayerAtIndex" in excinfo.value.message
    with pytest.raises(OutOfRangeError):
        parent.sublayer_at(-3)


def test_insert_positions():
    parent = Layer()
    a, b, c, d, e = (Layer(name=n) for n in "abcde")
    parent.add(a)
    parent.insert(b, 0)
    parent.insert_above(c, b)
    parent.insert_below(d, a)
    parent.insert(e, 4)
    assert [l.name for l in parent] == ["b", "c", "d", "a", "e"]


def test_replace_and_remove():
    parent = Layer()
    a, b, c = Layer(name="a"), Layer(name="b"), Layer(name="c")
    parent.sublayers = [a, b]
    parent.replace(a, c)
    assert [l.name for l in parent] == ["c", "b"]
    assert a.superlayer is None and c.superlayer is parent
    b.remove_from_superlayer()
    assert parent.sublayers == [c]
    b.remove_from_superlayer()  # without a superlayer it does nothing
    assert b.superlayer is None


def test_adding_moves_a_layer_between_parents():
    first, second, child = Layer(), Layer(), Layer()
    first.add(child)
    second.add(child)
    assert len(first) == 0 and second.sublayers == [child]
    assert child.superlayer is second


def test_sublayers_setter_replaces_all():
    parent = Layer()
    old = parent.add(Layer())
    a, b = Layer(), Layer()
    parent.sublayers = [b, a]
    assert parent.sublayers == [b, a]
    assert old.superlayer is None
    parent.sublayers = []
    assert len(parent) == 0 and a.superlayer is None


def test_a_cycle_raises_and_changes_nothing():
    root, child, grandchild = Layer(), Layer(), Layer()
    root.add(child)
    child.add(grandchild)
    with pytest.raises(QuartziteError) as excinfo:
        grandchild.add(root)
    assert excinfo.value.code == ErrorCode.INVALID_ARGUMENT == 3
    assert isinstance(excinfo.value, InvalidArgumentError)
    with pytest.raises(InvalidArgumentError):
        child.add(child)
    with pytest.raises(InvalidArgumentError):
        grandchild.sublayers = [root]
    assert root.superlayer is None
    assert root.sublayers == [child] and child.sublayers == [grandchild] and len(grandchild) == 0


def test_out_of_range_insert_raises_and_changes_nothing():
    parent, a, b = Layer(), Layer(), Layer()
    parent.add(a)
    with pytest.raises(QuartziteError) as excinfo:
        parent.insert(b, 5)
    assert excinfo.value.code == ErrorCode.OUT_OF_RANGE == 5
    with pytest.raises(OutOfRangeError):
        parent.insert(b, -1)
    with pytest.raises(OutOfRangeError):
        parent.insert(b, 2**32)  # would wrap to 0 as a C unsigned int
    assert parent.sublayers == [a] and b.superlayer is None


def test_other_tree_errors_change_nothing():
    parent, a, b, stranger = Layer(), Layer(), Layer(), Layer()
    parent.sublayers = [a]
    with pytest.raises(InvalidArgumentError):
        parent.insert_below(b, stranger)
    with pytest.raises(InvalidArgumentError):
        parent.replace(stranger, b)
    with pytest.raises(InvalidArgumentError):
        parent.sublayers = [b, b]
    with pytest.raises(WrongTypeError):
        parent.add("not a layer")
    assert parent.sublayers == [a] and b.superlayer is None


def test_mask():
    layer, mask = Layer(), Layer()
    layer.mask = mask
    assert layer.mask is mask
    assert mask.superlayer is layer
    assert len(layer) == 0
    # A layer with a superlayer given as a mask moves there (observed on
    # Apple's QuartzCore; this used to raise InvalidArgumentError).
    other = Layer()
    other.mask = mask
    assert other.mask is mask and mask.superlayer is other and layer.mask is None
    with pytest.raises(InvalidArgumentError):
        mask.mask = other  # an ancestor: a cycle
    other.mask = None
    assert other.mask is None and mask.superlayer is None


# MARK: - Identity and wrapping


def test_wrapping_gives_the_same_object_and_the_right_class():
    parent = Layer()
    parent.add(TextLayer(string="t"))
    parent.add(ScrollLayer())
    parent.add(TiledLayer())
    gc.collect()  # only the tree holds the sublayers now
    text, scroll, tiled = parent.sublayers
    assert (type(text), type(scroll), type(tiled)) == (TextLayer, ScrollLayer, TiledLayer)
    assert text.string == "t"
    assert parent.sublayers[0] is text
    assert text.superlayer is parent


def test_equal_handles_compare_and_hash_equal():
    layer = Layer()
    other = Layer.__new__(Layer)
    other._ref = _lib.CARetain(layer.handle)  # a second wrapper, made by hand
    assert other == layer and hash(other) == hash(layer)
    assert len({layer, other}) == 1
    assert layer != Layer()
    other.close()


def test_raw_layers_are_adopted_with_their_class():
    text = Layer.adopt(_lib.CATextLayerCreate())
    assert type(text) is TextLayer and text.font_size == 36.0
    with pytest.raises(WrongTypeError):
        TextLayer.from_handle(Layer().handle)
    with pytest.raises(WrongTypeError):
        Layer.from_handle(Color(1, 1, 1).handle)


def test_a_class_made_from_c_wraps_as_its_builtin_kind():
    cls = _lib.CALayerClassCreate(b"FromC", _lib.CALayerClassGetBuiltin(b"CAScrollLayer"), None, None)
    try:
        layer = Layer.adopt(_lib.CALayerCreateWithClass(cls))
        assert type(layer) is ScrollLayer
        assert layer.class_name == "FromC"
        assert layer.scroll_mode == "both"
        layer.close()
    finally:
        _lib.CARelease(cls)


def test_closed_layers_raise():
    layer = Layer()
    layer.close()
    with pytest.raises(NullArgumentError):
        layer.opacity
    assert repr(layer) == "Layer(<closed>)"


# MARK: - Geometry, hit testing and scrolling


def make_scene():
    root = Layer(bounds=(0, 0, 200, 200), anchor_point=(0, 0))
    a = Layer(name="a", bounds=(0, 0, 100, 100), position=(50, 50))
    b = Layer(name="b", bounds=(0, 0, 100, 100), position=(100, 100))
    root.sublayers = [a, b]
    return root, a, b


def test_hit_testing_follows_order_and_z_position():
    root, a, b = make_scene()
    assert root.hit_test((75, 75)) is b  # later sibling is in front
    assert root.hit_test((10, 10)) is a
    assert root.hit_test((190, 10)) is root
    assert root.hit_test((500, 500)) is None
    a.z_position = 1
    assert root.hit_test((75, 75)) is a
    a.hidden = True
    assert root.hit_test((75, 75)) is b


def test_hit_testing_with_masks_to_bounds():
    root = Layer(bounds=(0, 0, 200, 200), anchor_point=(0, 0))
    a = root.add(Layer(bounds=(0, 0, 100, 100), position=(50, 50)))
    child = a.add(Layer(bounds=(0, 0, 50, 50), position=(150, 150)))  # outside a's bounds
    assert root.hit_test((150, 150)) is child
    a.masks_to_bounds = True
    assert root.hit_test((150, 150)) is root
    assert root.hit_test((50, 50)) is a


def test_converting_points_rects_and_times():
    root, a, b = make_scene()
    assert a.convert_point((0, 0), root) == Point(0, 0)
    assert root.convert_point((10, 10), a) == Point(10, 10)
    assert b.convert_point((0, 0), to_layer=root) == Point(50, 50)
    assert b.convert_point((0, 0), from_layer=a) == Point(-50, -50)
    assert b.convert_point((60, 60)) == Point(10, 10)  # from the root's position space
    assert b.convert_point((0, 0), to_layer=None) == Point(50, 50)
    assert b.convert_rect((0, 0, 10, 10), to_layer=root) == Rect(50, 50, 10, 10)
    with pytest.raises(TypeError):
        b.convert_point((0, 0), from_layer=a, to_layer=root)
    b.speed = 2
    b.begin_time = 1
    assert b.convert_time(5.0, root) == 8.0
    assert b.convert_time(5.0, to_layer=root) == 3.5


def test_contains_point():
    layer = Layer(bounds=(0, 0, 10, 10))
    assert layer.contains_point((5, 5))
    assert not layer.contains_point(Point(10, 5))


def test_scroll_layer_scrolls_and_clips():
    scroll = ScrollLayer(bounds=(0, 0, 100, 100))
    content = Layer(bounds=(0, 0, 400, 400), anchor_point=(0, 0))
    scroll.add(content)
    scroll.scroll_to_point((30, 40))
    assert scroll.bounds.origin == Point(30, 40)
    assert content.visible_rect == Rect(30, 40, 100, 100)
    scroll.scroll_mode = "horizontally"
    scroll.scroll_to_point((0, 0))
    assert scroll.bounds.origin == Point(0, 40)
    scroll.scroll_mode = "both"
    content.scroll_point((200, 250))
    assert scroll.bounds.origin == Point(200, 250)
    scroll.scroll_to_rect((0, 0, 10, 10))
    assert scroll.bounds.origin == Point(0, 0)


def test_contents_are_flipped():
    parent = Layer(geometry_flipped=True)
    child = parent.add(Layer())
    assert child.contents_are_flipped
    child.geometry_flipped = True
    assert not child.contents_are_flipped


def test_layout_and_display_marks():
    layer = Layer()
    layer.bounds = (0, 0, 10, 10)  # a size change asks for layout
    assert layer.needs_layout
    layer.layout_if_needed()
    assert not layer.needs_layout
    assert not layer.needs_display and layer.dirty_rect.is_null
    layer.set_needs_display_in_rect((0, 0, 2, 2))
    layer.set_needs_display_in_rect((5, 5, 1, 1))
    assert layer.needs_display and layer.dirty_rect == Rect(0, 0, 6, 6)
    layer.display_if_needed()
    assert not layer.needs_display and layer.dirty_rect.is_null
    layer.set_needs_display()
    assert layer.dirty_rect == Rect(0, 0, 10, 10)
    layer.needs_display_on_bounds_change = True
    layer.display()
    layer.bounds = (0, 0, 20, 20)
    assert layer.needs_display


def test_contents_holds_a_pixel_buffer():
    layer, pixels = Layer(), PixelBuffer(4, 2, "BGRA")
    layer.contents = pixels
    assert layer.contents is pixels
    layer.contents = None
    assert layer.contents is None
    with pytest.raises(WrongTypeError):
        layer.contents = "pixels"
    # Only pixel buffers: another Quartzite object is refused by the library.
    with pytest.raises(WrongTypeError):
        layer.contents = Layer()
    assert layer.contents is None


def test_repr_names_the_class_and_name():
    assert repr(TextLayer(name="title")).startswith("<TextLayer 0x")
    assert "name='title'" in repr(TextLayer(name="title"))
    assert isinstance(Value(Layer()).to_python(), Layer)
    assert quartzite.Layer is Layer


def test_shadow_path_is_a_snapshot():
    layer = Layer()
    assert layer.shadow_path is None
    path = quartzite.Path()
    path.add_rect(quartzite.Rect(0, 0, 10, 20))
    layer.shadow_path = path
    path.add_rect(quartzite.Rect(0, 0, 100, 100))
    box = layer.shadow_path.bounding_box
    assert (box.origin.x, box.origin.y, box.size.width, box.size.height) == (0, 0, 10, 20)
    layer.shadow_path = None
    assert layer.shadow_path is None
    with pytest.raises(TypeError):
        layer.shadow_path = "not a path"
