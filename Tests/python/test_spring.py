"""quartzite.SpringAnimation (CASpringAnimation): presentation values
against the closed-form damped spring computed here with cmath, for the
under-, critically and over-damped regimes; settling_duration; the
perceptual initialiser; bad input."""
import cmath
import math

import pytest

import quartzite
from quartzite import (
    BasicAnimation, InvalidArgumentError, Layer, NotFiniteError, SpringAnimation, WrongTypeError,
)

from media_clock import Clock

START = 500.0


@pytest.fixture
def clock():
    fake = Clock(START)
    quartzite.set_media_time_source(fake)
    yield fake
    quartzite.set_media_time_source(None)


def displacement(m, k, c, v, t):
    """x(t) of m x'' + c x' + k x = 0, x(0) = 1, x'(0) = -v: from the roots of
    m r^2 + c r + k (complex when under-damped; a double root when critical)."""
    disc = c * c - 4 * m * k
    if disc == 0:
        r = -c / (2 * m)
        return (1 + (-v - r) * t) * math.exp(r * t)
    root = cmath.sqrt(disc)
    r1, r2 = (-c + root) / (2 * m), (-c - root) / (2 * m)
    a, b = (-v - r2) / (r1 - r2), (r1 + v) / (r1 - r2)
    return (a * cmath.exp(r1 * t) + b * cmath.exp(r2 * t)).real


SPRINGS = [
    pytest.param(1, 100, 10, 0, id="under-damped"),
    pytest.param(2, 50, 4, 3, id="under-damped-moving"),
    pytest.param(1, 100, 20, 0, id="critical"),
    pytest.param(4, 25, 20, -2, id="critical-moving-away"),
    pytest.param(1, 100, 50, 0, id="over-damped"),
    pytest.param(0.5, 200, 60, 5, id="over-damped-moving"),
]


@pytest.mark.parametrize("m, k, c, v", SPRINGS)
def test_presentation_follows_the_closed_form(clock, m, k, c, v):
    layer = Layer(position=(100, 0), bounds=(0, 0, 10, 10))
    spring = SpringAnimation("position.x", from_value=0, to_value=1, mass=m, stiffness=k, damping=c,
                             initial_velocity=v, duration=4, allows_overdamping=True)
    assert spring.class_name == "CASpringAnimation" and isinstance(spring, BasicAnimation)
    layer.add_animation(spring, "spring")
    quartzite.transaction.flush()
    for t in (0, 0.04, 0.15, 0.4, 0.9, 1.7, 3.5):
        clock.now = START + t
        assert layer.presentation().position.x == pytest.approx(1 - displacement(m, k, c, v, t), abs=1e-6)
    running = layer.animation("spring")
    assert isinstance(running, SpringAnimation) and running.damping == c


@pytest.mark.parametrize("m, k, c, v", SPRINGS)
def test_settling_duration_is_when_the_response_stays_within_the_threshold(m, k, c, v):
    s = SpringAnimation(mass=m, stiffness=k, damping=c, initial_velocity=v, allows_overdamping=True).settling_duration
    assert abs(displacement(m, k, c, v, s)) == pytest.approx(0.001, abs=1e-9)
    assert all(abs(displacement(m, k, c, v, s + i * 0.002)) <= 0.001 for i in range(1, 5000))


def test_defaults_and_the_perceptual_initialiser():
    s = SpringAnimation()
    assert (s.mass, s.stiffness, s.damping, s.initial_velocity, s.duration) == (1, 100, 10, 0, 0)
    assert s.bounce == pytest.approx(0.5)
    p = SpringAnimation.perceptual(0.4, bounce=0.25, key_path="opacity")
    assert p.key_path == "opacity" and p.mass == 1
    assert p.stiffness == pytest.approx((2 * math.pi / 0.4) ** 2)
    assert p.perceptual_duration == pytest.approx(0.4) and p.bounce == pytest.approx(0.25)
    assert p.duration == p.settling_duration


def test_overdamping_needs_allows_overdamping():
    over = SpringAnimation(damping=50, initial_velocity=1)
    assert over.allows_overdamping is False
    critical = SpringAnimation(damping=20, initial_velocity=1)
    assert over.settling_duration == pytest.approx(critical.settling_duration, abs=1e-12)
    over.allows_overdamping = True
    s = over.settling_duration
    assert s > critical.settling_duration
    assert abs(displacement(1, 100, 50, 1, s)) == pytest.approx(0.001, abs=1e-9)
    assert SpringAnimation.perceptual(1, bounce=-0.5).allows_overdamping is True


def test_bad_input_raises_and_changes_nothing():
    s = SpringAnimation()
    with pytest.raises(InvalidArgumentError):
        s.mass = 0
    with pytest.raises(InvalidArgumentError):
        s.damping = -1
    with pytest.raises(NotFiniteError):
        s.stiffness = math.nan
    assert (s.mass, s.stiffness, s.damping) == (1, 100, 10)
    with pytest.raises(AttributeError):
        s.settling_duration = 1
    with pytest.raises(InvalidArgumentError):
        SpringAnimation.perceptual(0)
    with pytest.raises(InvalidArgumentError):
        SpringAnimation.perceptual(1, bounce=-1)
    s.damping = 0
    assert s.settling_duration == math.inf
    # The spring functions refuse a plain CABasicAnimation.
    with pytest.raises(WrongTypeError):
        quartzite.call(quartzite._lib.CASpringAnimationSetMass, BasicAnimation("opacity"), 2.0)
