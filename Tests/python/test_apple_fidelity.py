"""Behaviours observed on Apple's QuartzCore (issue 22), each test naming the
observed behaviour in its docstring; where the printed reference says
otherwise, Apple's behaviour wins. Also: layers as full CAMediaTiming
objects, the style dictionary in every reader, contents in every pixel
format, and the plain CAAnimation."""
import math

import numpy as np
import pytest

import quartzite
from quartzite import (AffineTransform, Animation, AnimationGroup, BasicAnimation, Color, InvalidArgumentError,
                       Layer, Point, Rect, Renderer, ScrollLayer, TextLayer, Transform3D, Transition, transaction)
from quartzite.video import PixelBuffer

from media_clock import Clock, committed_layer

START = 900.0


@pytest.fixture
def clock():
    fake = Clock(START)
    quartzite.set_media_time_source(fake)
    yield fake
    transaction.flush()
    quartzite.process_animation_events()
    quartzite.set_media_time_source(None)


class _Calls:
    def __init__(self):
        self.calls = []

    def completion(self, tag):
        return lambda: self.calls.append(tag)


# MARK: - 1. Observed behaviours


def test_completions_accumulate(clock):
    """Observed: setting a second completion block in one transaction keeps
    the first; both run, once each. Setting an empty completion (NULL
    function) after one was set does not cancel the one already set."""
    log = _Calls()
    layer = committed_layer()
    with transaction(duration=1):
        transaction.set_completion(log.completion("first"))
        layer.opacity = 0.5                       # the first waits for this animation
        transaction.set_completion(log.completion("second"))
        transaction.set_completion(None)          # cancels nothing
    quartzite.process_animation_events()
    assert log.calls == ["second"]                # nothing added after it: due at the commit
    clock.now = START + 2
    quartzite.process_animation_events()
    quartzite.process_animation_events()
    assert log.calls == ["second", "first"]       # each once


def test_layer_timing_defaults():
    """Observed: a layer's duration (CAMediaTiming) is infinite by default;
    its beginTime is 0 and its repeatDuration 0 (the reference's duration 0
    is an animation's)."""
    layer = Layer()
    assert math.isinf(layer.duration) and layer.duration > 0
    assert layer.begin_time == 0 and layer.repeat_duration == 0
    assert layer["duration"] == math.inf


def test_transition_progress_is_kept_as_given(clock):
    """Observed: CATransition's startProgress and endProgress keep the values
    given, even outside 0...1 or with the start after the end (no clamping,
    no swapping); rendering clamps what it uses."""
    t = Transition(start_progress=1.5, end_progress=-0.5)
    assert (t.start_progress, t.end_progress) == (1.5, -0.5)
    t["endProgress"] = 0.25
    assert t.end_progress == 0.25 and t["startProgress"] == 1.5
    layer = committed_layer()
    layer.add_animation(Transition(start_progress=0.8, end_progress=0.2, duration=1), None)
    transaction.flush()
    clock.now = START + 0.5
    assert _lib().QZLayerGetTransitionProgress(layer.handle) == pytest.approx(0.5)   # start after end: backwards
    clock.now = START
    layer.add_animation(Transition(start_progress=1.5, end_progress=3, duration=1), None)
    transaction.flush()
    clock.now = START + 0.5
    assert _lib().QZLayerGetTransitionProgress(layer.handle) == 1.0                  # clamped for rendering


def _lib():
    from quartzite import _lib
    return _lib


def test_layout_manager_is_told_once_per_pending_layout():
    """Observed: a layout manager is told invalidateLayoutOfLayer once when a
    laid-out layer first needs layout; a second setNeedsLayout while the
    layout is still pending does not tell it again."""
    told = []

    class Manager:
        def invalidate_layout_of_layer(self, layer):
            told.append(layer)

    layer = Layer(bounds=(0, 0, 10, 10))
    layer.layout_manager = Manager()
    layer.layout_if_needed()
    layer.set_needs_layout()
    layer.set_needs_layout()
    assert told == [layer]
    layer.layout_if_needed()
    layer.set_needs_layout()
    assert told == [layer, layer]


@pytest.mark.parametrize("transform", [
    Transform3D.scale(1, 1, 2),                       # a z scale
    Transform3D.rotation(0.5, 1, 0, 0),               # about x
    Transform3D.rotation(0.5, 0, 1, 0),               # about y
    Transform3D.translation(0, 0, 5),                 # a z translation
    Transform3D(m34=-1 / 500),                        # perspective
])
def test_affine_transform_is_the_identity_for_non_affine_transforms(transform):
    """Observed: a layer's affineTransform is the identity when its transform
    is not affine (a z scale, a rotation about x or y, a z translation,
    perspective); CATransform3DGetAffineTransform is unchanged."""
    layer = Layer()
    layer.transform = transform @ Transform3D.translation(3, 4, 0)
    assert layer.affine_transform == AffineTransform()
    whole = layer.transform
    assert whole.affine_transform() == AffineTransform(whole.m11, whole.m12, whole.m21, whole.m22, whole.m41, whole.m42)
    assert whole.affine_transform().tx == 3
    layer.transform = Transform3D.scale(2, 3, 1) @ Transform3D.translation(3, 4, 0)   # affine: its part
    assert layer.affine_transform == AffineTransform(2, 0, 0, 3, 3, 4)


def test_scroll_point_scrolls_the_enclosing_scroll_layer_or_itself():
    """Observed: scrollPoint: on a layer inside a CAScrollLayer scrolls that
    enclosing scroll layer (its bounds origin moves so the point is at the
    top left, and the layer's visibleRect follows); on a scroll layer
    itself it scrolls that layer. scrollRectToVisible: likewise."""
    scroller = ScrollLayer(bounds=(0, 0, 50, 50), anchor_point=(0, 0))
    content = Layer(frame=(0, 0, 200, 200))
    scroller.add_sublayer(content)
    content.scroll_point((30, 40))
    assert scroller.bounds.origin == Point(30, 40)
    assert content.visible_rect == Rect(30, 40, 50, 50)
    scroller.scroll_point((5, 6))
    assert scroller.bounds.origin == Point(5, 6)
    assert content.visible_rect == Rect(5, 6, 50, 50)
    content.scroll_rect_to_visible((100, 100, 10, 10))
    assert scroller.bounds.origin == Point(60, 60)
    scroller.scroll_rect_to_visible((0, 0, 10, 10))
    assert scroller.bounds.origin == Point(0, 0)


def test_render_in_context_draws_in_the_layers_own_coordinates():
    """Observed: renderInContext: draws in the layer's own coordinate space:
    layer point (0, 0) is the context's origin, so a layer with bounds
    (10, 10, 20, 20) paints its background over 10...30, not 0...20."""
    layer = Layer(bounds=(10, 10, 20, 20), background_color=Color(1, 0, 0))
    px = quartzite.render_in_context(layer, 40, 40)
    assert tuple(px[5, 5]) == (0, 0, 0, 0)
    assert tuple(px[10, 10]) == (0, 0, 255, 255) and tuple(px[29, 29]) == (0, 0, 255, 255)
    assert tuple(px[30, 30]) == (0, 0, 0, 0)


def test_a_layer_in_a_tree_given_as_a_mask_moves_there():
    """Observed: a layer that is a sublayer somewhere, given as another
    layer's mask, leaves its old tree and becomes the mask (its superlayer
    is the masked layer); this used to be refused as an error."""
    old_parent, masked, mask = Layer(), Layer(), Layer()
    old_parent.add_sublayer(mask)
    masked.mask = mask
    assert masked.mask is mask and mask.superlayer is masked
    assert len(old_parent) == 0
    with pytest.raises(InvalidArgumentError):
        mask.mask = masked      # an ancestor would make a cycle


@pytest.mark.parametrize("key", ["bounds", "position", "frame", "minificationFilterBias", "filters",
                                 "compositingFilter", "backgroundFilters", "mask"])
def test_default_value_for_key_is_nil_for(key):
    """Observed: +defaultValueForKey: answers nil for bounds, position, frame,
    minificationFilterBias, filters, compositingFilter, backgroundFilters and
    mask."""
    assert Layer.default_value_for_key(key) is None
    assert Layer.default_value_for_key("anchorPoint") == Point(0.5, 0.5)   # others keep theirs


def test_should_archive_value_for_key_until_set():
    """Observed: shouldArchiveValueForKey: is false for a property until it has
    been set, and always false for frame and superlayer."""
    layer = Layer()
    assert not layer.should_archive_value_for_key("opacity")
    layer.opacity = 0.5
    assert layer.should_archive_value_for_key("opacity")
    assert not layer.should_archive_value_for_key("cornerRadius")
    layer["cornerRadius"] = 2
    assert layer.should_archive_value_for_key("cornerRadius")
    layer.frame = (0, 0, 5, 5)
    assert not layer.should_archive_value_for_key("frame")
    assert layer.should_archive_value_for_key("position") and layer.should_archive_value_for_key("bounds")
    assert not layer.should_archive_value_for_key("superlayer")
    assert not layer.should_archive_value_for_key("custom")
    layer["custom"] = 1
    assert layer.should_archive_value_for_key("custom")


class _Gauge(Layer):
    @classmethod
    def needs_display_for_key(cls, key):
        return key in ("opacity", "level")


def test_same_value_does_not_mark_for_display_and_kvc_marks_like_the_setter():
    """Observed: setting a property to the value it already has does not mark
    a layer whose class redisplays for that key; setting it by key-value
    coding marks it exactly as the setter does."""
    layer = _Gauge()
    layer.display_if_needed()
    layer.opacity = 1                 # the value it has
    assert not layer.needs_display
    layer["opacity"] = 1
    assert not layer.needs_display
    layer.opacity = 0.5
    assert layer.needs_display
    layer.display_if_needed()
    layer["opacity"] = 0.25           # key-value coding marks like the setter
    assert layer.needs_display
    layer.display_if_needed()
    layer["opacity"] = 0.25
    assert not layer.needs_display
    layer["level"] = 3                # a custom key: the same rule
    assert layer.needs_display
    layer.display_if_needed()
    layer["level"] = 3
    assert not layer.needs_display


def test_a_group_holds_the_animations_it_was_given():
    """Observed: an animation group holds the very animations it was given
    (not copies), and a copy of a group shares them."""
    fade, move = BasicAnimation("opacity", to_value=0), BasicAnimation("position.x", to_value=10)
    group = AnimationGroup([fade, move], duration=1)
    assert group.animations[0] is fade and group.animations[1] is move
    layer = Layer()
    layer.add_animation(group, "g")
    running = layer.animation("g")
    assert running != group                              # the layer runs a copy of the group ...
    assert running.animations[0] is fade                 # ... sharing its animations
    transaction.flush()


def test_a_new_text_layer_has_a_font():
    """Observed: a new CATextLayer has a font (Apple's default face,
    Helvetica), not NULL."""
    assert TextLayer().font == "Helvetica"
    text = TextLayer()
    text.font = "DejaVu Sans"
    assert text.font == "DejaVu Sans"


# MARK: - 2. Layers as CAMediaTiming objects


def _fade(removed_on_completion=False):
    return BasicAnimation("opacity", from_value=0, to_value=1, duration=1,
                          removed_on_completion=removed_on_completion)


def test_an_autoreversing_layer_plays_its_sublayers_animations_forward_then_backward(clock):
    parent, child = Layer(), Layer()
    parent.add_sublayer(child)
    parent.begin_time, parent.duration, parent.autoreverses = START, 1, True
    child.add_animation(_fade(), "fade")
    transaction.flush()
    seen = []
    for t in (0.25, 0.75, 1.25, 1.75):
        clock.now = START + t
        seen.append(child.presentation().opacity)
        quartzite.process_animation_events()
    assert seen == pytest.approx([0.25, 0.75, 0.75, 0.25])
    clock.now = START + 3
    assert child.presentation().opacity == 1     # outside its active interval: no time, the model value


def test_a_layer_with_repeat_count_2_plays_them_twice(clock):
    parent, child = Layer(), Layer()
    parent.add_sublayer(child)
    parent.begin_time, parent.duration, parent.repeat_count = START, 1, 2
    child.add_animation(_fade(removed_on_completion=True), "fade")
    transaction.flush()
    seen = []
    for t in (0.25, 0.75, 1.25, 1.75):
        clock.now = START + t
        seen.append(child.presentation().opacity)
        quartzite.process_animation_events()     # not removed between the passes
    assert seen == pytest.approx([0.25, 0.75, 0.25, 0.75])
    clock.now = START + 2.5
    quartzite.process_animation_events()
    assert child.animation("fade") is None       # removed once the layer's cycle is over


# MARK: - 3. The style dictionary in every reader


def test_a_layer_renders_opacity_and_background_colour_from_its_style():
    root = Layer(frame=(0, 0, 20, 20), background_color=Color(1, 1, 1))
    card = Layer(frame=(5, 5, 10, 10))
    card.style = {"opacity": 0.5, "backgroundColor": Color(0, 0, 1)}
    root.add_sublayer(card)
    frame = Renderer(root, 20, 20).frame(0)
    b, g, r, a = (int(c) for c in frame[10, 10])
    assert b == 255 and abs(g - 128) <= 1 and abs(r - 128) <= 1 and a == 255
    assert tuple(frame[2, 2]) == (255, 255, 255, 255)
    assert card.presentation().opacity == 0.5
    assert root.hit_test((10, 10)) is card


# MARK: - 4. Contents in every pixel format


def test_16_bit_contents_render_and_indexed_contents_are_refused():
    words = np.full((4, 4), 0xF800, np.uint16)             # 565: pure red
    pb = PixelBuffer.from_array(words, pixel_format="L565")
    layer = Layer(frame=(0, 0, 4, 4))
    layer.contents = pb
    assert tuple(quartzite.render_in_context(layer, 4, 4)[1, 1]) == (0, 0, 255, 255)
    indexed = PixelBuffer(4, 4, 0x08)
    with pytest.raises(InvalidArgumentError):
        layer.contents = indexed
    assert layer.contents is pb
    with pytest.raises(InvalidArgumentError):
        layer.contents = PixelBuffer(6, 4, "v210")


# MARK: - 5. The plain CAAnimation


def test_a_plain_animation_has_no_effect_and_tells_its_delegate(clock):
    events = []

    class Delegate:
        def animation_did_start(self, anim):
            events.append("start")

        def animation_did_stop(self, anim, finished):
            events.append(("stop", finished))

    layer = committed_layer(opacity=0.5)
    timer = Animation(duration=1)
    timer.delegate = Delegate()
    assert timer.class_name == "CAAnimation"
    layer.add_animation(timer, "timer")
    transaction.flush()
    clock.now = START + 0.5
    quartzite.process_animation_events()
    assert layer.presentation().opacity == 0.5 and events == ["start"]
    clock.now = START + 1.5
    quartzite.process_animation_events()
    assert events == ["start", ("stop", True)]
    group = AnimationGroup([Animation(), BasicAnimation("opacity", to_value=0)], duration=1)
    assert type(group.animations[0]) is Animation
    # As an action: the change is not animated, the plain animation runs under the key.
    layer.actions = {"opacity": Animation(duration=1)}
    layer.opacity = 0.25
    transaction.flush()
    assert layer.animation("opacity").class_name == "CAAnimation"
    assert layer.presentation().opacity == 0.25
