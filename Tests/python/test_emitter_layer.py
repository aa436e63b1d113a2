"""quartzite.EmitterLayer and EmitterCell (CAEmitterLayer, CAEmitterCell):
Apple's defaults, bad input, a particle where the formula puts it, and the
same pixels at a time however many frames were rendered before it."""
import math

import numpy as np
import pytest

import quartzite as qz
from quartzite import (
    Color, EmitterCell, EmitterLayer, Image, InvalidArgumentError, Layer, NotFiniteError, OutOfRangeError,
    WrongTypeError,
)


def white(w=4, h=4):
    return Image.from_array(np.full((h, w, 3), 255, dtype=np.uint8))


def scene(w, h, cell, **properties):
    root = Layer(bounds=(0, 0, w, h), anchor_point=(0, 0))
    emitter = EmitterLayer(frame=(0, 0, w, h), **properties)
    emitter.emitter_cells = [cell]
    root.add(emitter)
    return root, emitter


def test_defaults():
    e = EmitterLayer()
    assert (e.birth_rate, e.lifetime, e.velocity, e.scale, e.spin, e.seed) == (1, 1, 1, 1, 1, 0)
    assert (e.emitter_shape, e.emitter_mode, e.render_mode) == ("point", "volume", "unordered")
    assert (e.emitter_z_position, e.emitter_depth, e.preserves_depth, e.emitter_cells) == (0, 0, False, [])
    c = EmitterCell()
    assert (c.enabled, c.birth_rate, c.lifetime, c.scale, c.velocity, c.spin, c.duration) == (True, 0, 0, 1, 0, 0, 0)
    assert c.color == Color(1, 1, 1, 1) and c.contents is None and c.name is None
    c.name = "spark"
    assert c.name == "spark"


def test_bad_input():
    c = EmitterCell(birth_rate=3)
    with pytest.raises(NotFiniteError):
        c.birth_rate = math.nan
    with pytest.raises(OutOfRangeError):
        c.birth_rate = -2
    assert c.birth_rate == 3
    with pytest.raises(InvalidArgumentError):
        c.emitter_cells = [c]          # a cycle
    with pytest.raises(TypeError):
        EmitterLayer().emitter_cells = [Layer()]
    e = EmitterLayer()
    with pytest.raises(qz.UnknownConstantError):
        e.emitter_shape = "triangle"
    with pytest.raises(NotFiniteError):
        e.birth_rate = math.inf
    # Huge rates: a bounded number of particles, and the frame finishes.
    huge = EmitterCell(birth_rate=1e30, lifetime=1e30, contents=white(1, 1))
    root, _ = scene(20, 20, huge)
    qz.Renderer(root, 20, 20).frame(5.0)


def test_a_particle_is_where_the_formula_puts_it():
    # One particle a second living 0.5 s, 40 pt/s along x, red.
    cell = EmitterCell(birth_rate=1, lifetime=0.5, velocity=40, contents=white(), color=Color(1, 0, 0, 1))
    root, _ = scene(100, 60, cell, emitter_position=(20, 30))
    t = 3.25
    age = t - math.floor(t)
    x = 20 + 40 * age
    px = qz.Renderer(root, 100, 60).frame(t)   # BGRA
    assert tuple(px[30, int(x)]) == (0, 0, 255, 255)
    assert px[30, 20, 3] == 0 and px[30, int(x) + 6, 3] == 0


def test_same_time_same_pixels_however_reached():
    def make(seed):
        cell = EmitterCell(birth_rate=60, lifetime=1.5, lifetime_range=0.5, velocity=30, velocity_range=20,
                           emission_range=2 * math.pi, spin=2, spin_range=1, red_range=0.5, alpha_speed=-0.3,
                           contents=white())
        return scene(120, 120, cell, emitter_position=(60, 60), emitter_shape="circle",
                     emitter_size=(30, 30), seed=seed)[0]
    root = make(9)
    once = qz.Renderer(root, 120, 120).frame(2.5)
    r = qz.Renderer(root, 120, 120)
    for k in range(1, 101):
        many = r.frame(2.5 * k / 100)
    assert np.array_equal(once, many)
    assert (once[:, :, 3] > 0).sum() > 200
    assert not np.array_equal(once, qz.Renderer(make(10), 120, 120).frame(2.5))


# "emitterCells.<name>.<property>" key paths on the emitter layer.

@pytest.fixture
def clock():
    from media_clock import Clock
    fake = Clock(1000.0)
    qz.set_media_time_source(fake)
    yield fake
    qz.set_media_time_source(None)


def test_cell_properties_by_key_path():
    spark = EmitterCell(name="spark")
    cell = EmitterCell(name="dot", velocity=40, contents=white())
    cell.emitter_cells = [spark]
    _, e = scene(100, 60, cell)
    assert e["emitterCells.dot.velocity"] == 40
    e["emitterCells.dot.velocity"] = 25
    assert cell.velocity == 25                       # the cell itself changed
    e["emitterCells.dot.emitterCells.spark.scale"] = 3
    assert spark.scale == 3 and e["emitterCells.dot.emitterCells.spark.scale"] == 3
    e["emitterCells.dot.enabled"] = False
    assert cell.enabled is False
    with pytest.raises(InvalidArgumentError):
        e["emitterCells.nothing.velocity"] = 1.0
    with pytest.raises(InvalidArgumentError):
        e["emitterCells.dot.contents"] = 1.0
    with pytest.raises(OutOfRangeError):
        e["emitterCells.dot.birthRate"] = -1.0
    with pytest.raises(NotFiniteError):
        e["emitterCells.dot.velocity"] = math.nan
    assert cell.velocity == 25 and cell.birth_rate == 0


def test_cell_property_animates_and_is_drawn(clock):
    def make(velocity):
        cell = EmitterCell(name="dot", birth_rate=1, lifetime=0.5, velocity=velocity, contents=white(),
                           color=Color(1, 0, 0, 1))
        return scene(100, 60, cell, emitter_position=(20, 30))
    root, e = make(40)
    qz.transaction.flush()
    e.add_animation(qz.BasicAnimation("emitterCells.dot.velocity", from_value=40.0, to_value=80.0, duration=4.0))
    qz.transaction.flush()
    clock.now = 1001.0                                 # a quarter of the way: 50
    assert e.presentation()["emitterCells.dot.velocity"] == pytest.approx(50.0, abs=1e-9)
    assert e["emitterCells.dot.velocity"] == 40        # the model's cell
    # At 1001.25 (velocity 52.5) particle 1001 is 0.25 s old: x = 33.125.
    animated = qz.Renderer(root, 100, 60).frame(1001.25)
    still, _ = make(52.5)
    assert (animated == qz.Renderer(still, 100, 60).frame(1001.25)).all()
    assert animated[30, 34, 3] == 255
    unanimated, _ = make(40)
    assert qz.Renderer(unanimated, 100, 60).frame(1001.25)[30, 34, 3] == 0
