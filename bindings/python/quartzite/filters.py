"""Layer filters from Python: Core Image filter dictionaries for
``Layer.filters`` and ``Layer.background_filters``, and the compositing
filter names for ``Layer.compositing_filter``.

>>> layer.filters = [gaussian_blur(4)]
>>> card.background_filters = [gaussian_blur(10), color_controls(saturation=1.4)]
>>> badge.compositing_filter = "multiplyBlendMode"

The library checks each value when it is set: an unknown filter or mode name
raises :class:`UnknownConstantError`, a NaN input :class:`NotFiniteError`, a
wrong type :class:`WrongTypeError`, and the layer keeps its previous value.
"""
from __future__ import annotations

from typing import Any, Dict, Sequence

# QZBlendMode values (a draw list's BEGIN_GROUP ``blend_mode``) by index:
# Apple's Core Animation filter names.
COMPOSITING_FILTERS = (
    "sourceOver", "multiplyBlendMode", "screenBlendMode", "overlayBlendMode", "darkenBlendMode",
    "lightenBlendMode", "colorDodgeBlendMode", "colorBurnBlendMode", "softLightBlendMode", "hardLightBlendMode",
    "differenceBlendMode", "exclusionBlendMode", "hueBlendMode", "saturationBlendMode", "colorBlendMode",
    "luminosityBlendMode", "clear", "copy", "sourceIn", "sourceOut", "sourceAtop", "destOver", "destIn",
    "destOut", "destAtop", "xor", "plusL", "plusD",
)


def gaussian_blur(radius: float = 10.0) -> Dict[str, Any]:
    """CIGaussianBlur: a Gaussian of standard deviation ``radius`` points."""
    return {"name": "CIGaussianBlur", "inputRadius": float(radius)}


def color_controls(saturation: float = 1.0, brightness: float = 0.0, contrast: float = 1.0) -> Dict[str, Any]:
    """CIColorControls: saturation about the luminance, then brightness added,
    then contrast about 0.5."""
    return {"name": "CIColorControls", "inputSaturation": float(saturation),
            "inputBrightness": float(brightness), "inputContrast": float(contrast)}


def color_matrix(r: Sequence[float] = (1, 0, 0, 0), g: Sequence[float] = (0, 1, 0, 0),
                 b: Sequence[float] = (0, 0, 1, 0), a: Sequence[float] = (0, 0, 0, 1),
                 bias: Sequence[float] = (0, 0, 0, 0)) -> Dict[str, Any]:
    """CIColorMatrix: each output channel is its row dotted with the
    unpremultiplied (R, G, B, A), plus the bias."""
    def vec(v: Sequence[float]) -> list:
        return [float(x) for x in v]
    return {"name": "CIColorMatrix", "inputRVector": vec(r), "inputGVector": vec(g), "inputBVector": vec(b),
            "inputAVector": vec(a), "inputBiasVector": vec(bias)}


__all__ = ["COMPOSITING_FILTERS", "color_controls", "color_matrix", "gaussian_blur"]
