"""CAEmitterCell: one kind of particle an EmitterLayer emits.

Particles are a function of the emitter layer's time and ``seed``: the same
seed gives the same particles at the same time, however many frames were
rendered before it."""
from __future__ import annotations

import ctypes

from . import _lib
from .errors import call
from .handle import Handle
from .graphics import Image


class EmitterCell(Handle):
    """A CAEmitterCell with Apple's defaults (enabled, ``birth_rate`` 0,
    ``lifetime`` 0, ``scale`` 1, opaque white ``color``, no ``contents``).
    Keyword arguments set properties::

        spark = EmitterCell(birth_rate=50, lifetime=2, velocity=80, emission_range=math.pi * 2,
                            contents=Image.from_file("spark.png"))
        emitter.emitter_cells = [spark]

    A cell with a ``name`` is reached through its emitter layer's key paths,
    where its scalar properties are set and animated as on Apple platforms::

        spark.name = "spark"
        emitter["emitterCells.spark.birthRate"] = 80
        emitter.add_animation(BasicAnimation("emitterCells.spark.velocity", from_value=80.0, to_value=0.0,
                                             duration=1.0))
    """

    __slots__ = ()
    _type_name = "CAEmitterCellRef"

    def __init__(self, **properties):
        self._ref = call(_lib.CAEmitterCellCreate)
        for name, value in properties.items():
            if not isinstance(getattr(type(self), name, None), property):
                raise AttributeError(f"EmitterCell has no property {name!r}")
            setattr(self, name, value)

    @property
    def contents(self):
        """The particles' image (an Image), or None (nothing is drawn)."""
        ref = call(_lib.CAEmitterCellGetContents, self)
        return Image.from_handle(ref) if ref else None

    @contents.setter
    def contents(self, image):
        if image is not None and not isinstance(image, Image):
            raise TypeError("contents must be an Image or None")
        call(_lib.CAEmitterCellSetContents, self, image)

    @property
    def emitter_cells(self):
        """The nested cells (each particle of this cell emits them), a list."""
        return _cells(_lib.CAEmitterCellGetEmitterCellCount, _lib.CAEmitterCellGetEmitterCellAtIndex, self)

    @emitter_cells.setter
    def emitter_cells(self, cells):
        _set_cells(_lib.CAEmitterCellSetEmitterCells, self, cells)


def _cells(count_fn, at_fn, owner):
    return [EmitterCell.from_handle(call(at_fn, owner, i)) for i in range(call(count_fn, owner))]


def _set_cells(set_fn, owner, cells):
    cells = list(cells or [])
    for c in cells:
        if not isinstance(c, EmitterCell):
            raise TypeError("emitter cells must be EmitterCell objects")
    array = (ctypes.c_void_p * max(len(cells), 1))(*[c.handle for c in cells])
    call(set_fn, owner, array, len(cells))


def _install():
    from .layer import _bool_prop, _color_prop, _name_prop, _number_prop
    numbers = ["birthRate", "lifetime", "lifetimeRange", "emissionLatitude", "emissionLongitude", "emissionRange",
               "velocity", "velocityRange", "xAcceleration", "yAcceleration", "zAcceleration", "scale",
               "scaleRange", "scaleSpeed", "spin", "spinRange", "redRange", "greenRange", "blueRange",
               "alphaRange", "redSpeed", "greenSpeed", "blueSpeed", "alphaSpeed", "beginTime", "duration"]
    import re
    for key in numbers:
        attr = re.sub(r"(?<!^)(?=[A-Z])", "_", key).lower()
        suffix = key[0].upper() + key[1:]
        setattr(EmitterCell, attr, _number_prop(attr, suffix, f"CAEmitterCell's {key}.", cls="CAEmitterCell"))
    EmitterCell.enabled = _bool_prop("enabled", "Enabled", "Whether the cell emits (default True).",
                                     cls="CAEmitterCell")
    EmitterCell.name = _name_prop("name", "Name", "The cell's name, or None.", cls="CAEmitterCell")
    EmitterCell.color = _color_prop("color", "Color", "The colour particles start from (default opaque white).",
                                    cls="CAEmitterCell")


_install()
