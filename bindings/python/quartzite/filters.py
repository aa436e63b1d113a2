"""Layer filters from Python: Core Image filter dictionaries for
``Layer.filters`` and ``Layer.background_filters``, and the compositing
filter names for ``Layer.compositing_filter``.

>>> layer.filters = [gaussian_blur(4)]
>>> card.background_filters = [gaussian_blur(10), color_controls(saturation=1.4)]
>>> badge.compositing_filter = "multiplyBlendMode"

A filter given a ``name`` is addressed by it in key paths, as on Apple
platforms: its inputs can be set, read and animated there.

>>> layer.filters = [gaussian_blur(4, name="blur")]
>>> layer.set_value_for_key_path("filters.blur.inputRadius", 8)

The library checks each value when it is set: an unknown filter or mode name
raises :class:`UnknownConstantError`, a NaN input :class:`NotFiniteError`, a
wrong type :class:`WrongTypeError`, and the layer keeps its previous value.
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Sequence

# QZBlendMode values (a draw list's BEGIN_GROUP ``blend_mode``) by index:
# Apple's Core Animation filter names.
COMPOSITING_FILTERS = (
    "sourceOver", "multiplyBlendMode", "screenBlendMode", "overlayBlendMode", "darkenBlendMode",
    "lightenBlendMode", "colorDodgeBlendMode", "colorBurnBlendMode", "softLightBlendMode", "hardLightBlendMode",
    "differenceBlendMode", "exclusionBlendMode", "hueBlendMode", "saturationBlendMode", "colorBlendMode",
    "luminosityBlendMode", "clear", "copy", "sourceIn", "sourceOut", "sourceAtop", "destOver", "destIn",
    "destOut", "destAtop", "xor", "plusL", "plusD",
)


def _named(filter_type: str, name: Optional[str], inputs: Dict[str, Any]) -> Dict[str, Any]:
    # (A named filter keeps its type under Core Image's attribute key.)
    if name is None:
        return {"name": filter_type, **inputs}
    return {"name": name, "CIAttributeFilterName": filter_type, **inputs}


def gaussian_blur(radius: float = 10.0, name: Optional[str] = None) -> Dict[str, Any]:
    """CIGaussianBlur: a Gaussian of standard deviation ``radius`` points.
    ``name`` names the filter for key paths ("filters.<name>.inputRadius")."""
    return _named("CIGaussianBlur", name, {"inputRadius": float(radius)})


def color_controls(saturation: float = 1.0, brightness: float = 0.0, contrast: float = 1.0,
                   name: Optional[str] = None) -> Dict[str, Any]:
    """CIColorControls: saturation about the luminance, then brightness added,
    then contrast about 0.5."""
    return _named("CIColorControls", name, {"inputSaturation": float(saturation),
                                            "inputBrightness": float(brightness), "inputContrast": float(contrast)})


def color_matrix(r: Sequence[float] = (1, 0, 0, 0), g: Sequence[float] = (0, 1, 0, 0),
                 b: Sequence[float] = (0, 0, 1, 0), a: Sequence[float] = (0, 0, 0, 1),
                 bias: Sequence[float] = (0, 0, 0, 0), name: Optional[str] = None) -> Dict[str, Any]:
    """CIColorMatrix: each output channel is its row dotted with the
    unpremultiplied (R, G, B, A), plus the bias."""
    def vec(v: Sequence[float]) -> list:
        return [float(x) for x in v]
    return _named("CIColorMatrix", name, {"inputRVector": vec(r), "inputGVector": vec(g), "inputBVector": vec(b),
                                          "inputAVector": vec(a), "inputBiasVector": vec(bias)})


__all__ = ["COMPOSITING_FILTERS", "color_controls", "color_matrix", "gaussian_blur"]
