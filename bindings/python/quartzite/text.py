"""Text from Python: :class:`Font` (CTFontRef), :class:`AttributedString`
(CFAttributedString, built from ``(text, attributes)`` runs), and Core Text's
:class:`Line`, :class:`Framesetter` and :class:`Frame`, laid out by Pango
(HarfBuzz shaping, FriBiDi, fontconfig, FreeType) inside the library.

Attributes are a dict with any of ``font`` (a Font, a font name, or a
``(name, size)`` pair), ``color`` (a Color or an (r, g, b[, a]) tuple),
``underline`` (True, or Apple's style numbers: 1 single, 2 thick, 9 double),
``kern`` (points added after each character) and ``ligatures`` (False turns
them off); Apple's attribute names (``kCTFontAttributeName`` = "NSFont", ...)
work as keys too. Ranges count UTF-16 code units, as Apple's do::

    title = AttributedString([("Bold ", {"font": ("Helvetica-Bold", 24), "color": (0.8, 0.1, 0.1)}),
                              ("and plain", {"font": "Times", "underline": True})])
    layer = TextLayer(bounds=(0, 0, 300, 40), string=title)

Core Text draws glyphs upright in a y-up space; in a ``draw_in_context``
(whose contexts are y-down) flip first, as iOS code does::

    def draw_in_context(self, ctx):
        ctx.translate_ctm(0, self.bounds.height)
        ctx.scale_ctm(1, -1)
        ctx.set_text_position(4, 10)
        Line(AttributedString("Hello", {"font": ("Helvetica", 18)})).draw(ctx)
"""
import ctypes

from . import _lib, values as _values
from .color import Color
from .errors import call
from .geometry import Point, Rect, Size, _rect
from .handle import Handle

__all__ = ["AttributedString", "Font", "Frame", "Framesetter", "Line", "UnderlineStyle",
           "set_font_configuration_file", "statistics", "reset_statistics"]


def _utf8(text, what="text"):
    if not isinstance(text, str):
        raise TypeError(f"{what} must be a str, not {type(text).__name__}")
    # Lone surrogates cannot be encoded: they become U+FFFD, as invalid
    # UTF-8 does in the library.
    return text.encode("utf-8", "replace")


def _utf16_length(text):
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


class UnderlineStyle:
    """Apple's CTUnderlineStyle values."""
    NONE = 0
    SINGLE = 1
    THICK = 2
    DOUBLE = 9


class Font(Handle):
    """A font at a size (CTFontRef): ``Font("Helvetica-Bold", 24)``.

    Names resolve through fontconfig; Apple's common names map to
    metric-compatible faces (Helvetica and Arial to Liberation Sans, Times to
    Liberation Serif, Courier and Menlo to Liberation Mono); unknown names
    give the default face (Helvetica). A size of 0 is Apple's default, 12."""

    __slots__ = ()
    _type_name = "CTFontRef"

    def __init__(self, name="Helvetica", size=12.0):
        self._ref = None
        self._ref = call(_lib.CTFontCreateWithName, _utf8(name, "name"), float(size), None)

    def with_size(self, size):
        """The same face at another size."""
        return Font.adopt(call(_lib.CTFontCreateCopyWithAttributes, self, float(size), None, None))

    def _string(self, fn):
        ref = call(fn, self)
        try:
            return _values.from_value(ref)
        finally:
            _lib.CARelease(ref)

    size = property(lambda self: call(_lib.CTFontGetSize, self), doc="Points.")
    ascent = property(lambda self: call(_lib.CTFontGetAscent, self), doc="Baseline to the top of the line (points).")
    descent = property(lambda self: call(_lib.CTFontGetDescent, self), doc="Baseline to the bottom (points, positive).")
    leading = property(lambda self: call(_lib.CTFontGetLeading, self), doc="The face's line gap (points).")
    underline_position = property(lambda self: call(_lib.CTFontGetUnderlinePosition, self))
    underline_thickness = property(lambda self: call(_lib.CTFontGetUnderlineThickness, self))
    family_name = property(lambda self: self._string(_lib.CTFontCopyFamilyName),
                           doc='The family of the face that draws it ("Liberation Sans" for Helvetica).')
    postscript_name = property(lambda self: self._string(_lib.CTFontCopyPostScriptName))
    full_name = property(lambda self: self._string(_lib.CTFontCopyFullName))

    @property
    def path(self):
        """The face's font file."""
        ref = call(_lib.CTFontCopyAttribute, self, _lib.kCTFontURLAttribute)
        if not ref:
            return None
        try:
            url = _values.from_value(ref)
        finally:
            _lib.CARelease(ref)
        return url[len("file://"):] if url.startswith("file://") else url

    def __repr__(self):
        if not self._ref:
            return "Font(closed)"
        return f"Font({self.postscript_name!r}, {self.size:g})"


def _font(value):
    if isinstance(value, Font):
        return value
    if isinstance(value, str):
        return Font(value, 12)
    if isinstance(value, (tuple, list)) and len(value) == 2:
        return Font(value[0], value[1])
    raise TypeError("font must be a Font, a name, or a (name, size) pair")


def _color(value):
    if isinstance(value, Color):
        return value
    return Color(*value)


# Friendly keys -> Apple's attribute names.
_NAMES = {
    "font": _lib.kCTFontAttributeName,
    "color": _lib.kCTForegroundColorAttributeName,
    "foreground_color": _lib.kCTForegroundColorAttributeName,
    "underline": _lib.kCTUnderlineStyleAttributeName,
    "underline_color": _lib.kCTUnderlineColorAttributeName,
    "kern": _lib.kCTKernAttributeName,
    "ligatures": _lib.kCTLigatureAttributeName,
    "color_from_context": _lib.kCTForegroundColorFromContextAttributeName,
}


def _attribute(key, value):
    """(Apple's name as bytes, a Python object owning a handle for the value)."""
    name = _NAMES.get(key, key.encode("utf-8") if isinstance(key, str) else key)
    if name == _lib.kCTFontAttributeName:
        return name, _font(value)
    if name in (_lib.kCTForegroundColorAttributeName, _lib.kCTUnderlineColorAttributeName):
        return name, _color(value)
    if name == _lib.kCTUnderlineStyleAttributeName:
        if value is True:
            value = UnderlineStyle.SINGLE
        elif value is False or value is None:
            value = UnderlineStyle.NONE
        return name, _values.Value(float(value))
    if name in (_lib.kCTKernAttributeName, _lib.kCTLigatureAttributeName, _lib.kCTForegroundColorFromContextAttributeName):
        return name, _values.Value(float(value))
    return name, value if isinstance(value, Handle) else _values.Value(value)


class AttributedString(Handle):
    """A mutable attributed string (CFMutableAttributedStringRef).

    ``AttributedString("text", {"font": ("Times", 18)})`` or
    ``AttributedString([(text, attributes), ...])`` (runs); ``len()`` counts
    UTF-16 code units, ``str()`` is the text."""

    __slots__ = ()
    _type_name = "CFAttributedStringRef"

    def __init__(self, text_or_runs="", attributes=None):
        self._ref = None
        self._ref = call(_lib.CFAttributedStringCreateMutable, None, 0)
        runs = [(text_or_runs, attributes)] if isinstance(text_or_runs, str) else text_or_runs
        for run in runs:
            text, attrs = (run, None) if isinstance(run, str) else run
            start = len(self)
            self.replace(start, 0, text)
            if attrs:
                for key, value in attrs.items():
                    self.set_attribute(start, len(self) - start, key, value)

    def __len__(self):
        return call(_lib.CFAttributedStringGetLength, self)

    def __str__(self):
        return call(_lib.CFAttributedStringGetString, self).decode("utf-8")

    def replace(self, location, length, text):
        """Replaces `length` UTF-16 units at `location` with `text`."""
        call(_lib.CFAttributedStringReplaceString, self, _lib.CFRange(location, length), _utf8(text))

    def set_attribute(self, location, length, key, value):
        """Sets one attribute (a friendly key or Apple's name) over a range;
        OutOfRangeError for a range outside the string (nothing changes)."""
        name, obj = _attribute(key, value)
        call(_lib.CFAttributedStringSetAttribute, self, _lib.CFRange(location, length), name, obj)

    def remove_attribute(self, location, length, key):
        name = _NAMES.get(key, key.encode("utf-8") if isinstance(key, str) else key)
        call(_lib.CFAttributedStringRemoveAttribute, self, _lib.CFRange(location, length), name)

    def attribute(self, location, key):
        """(value, (location, length) of its run); the value is a Font, a
        Color, a number, or None."""
        name = _NAMES.get(key, key.encode("utf-8") if isinstance(key, str) else key)
        effective = _lib.CFRange()
        ref = call(_lib.CFAttributedStringGetAttribute, self, location, name, ctypes.byref(effective))
        span = (effective.location, effective.length)
        if not ref:
            return None, span
        kind = _lib.QZGetTypeName(ref)
        if kind == b"CTFont":
            return Font.from_handle(ref), span
        if kind == b"CGColor":
            return Color.from_handle(ref), span
        if kind == b"CAValue":
            return _values.from_value(ref), span
        return ref, span

    def __repr__(self):
        if not self._ref:
            return "AttributedString(closed)"
        return f"AttributedString({str(self)!r})"


def _attributed(value):
    if isinstance(value, AttributedString):
        return value
    if isinstance(value, str):
        return AttributedString(value)
    return AttributedString(value)


class Line(Handle):
    """One line of text (CTLineRef), never broken: ``Line(attributed)``
    (an AttributedString, runs, or a str in Helvetica 12, black)."""

    __slots__ = ()
    _type_name = "CTLineRef"

    def __init__(self, text):
        self._ref = None
        self._ref = call(_lib.CTLineCreateWithAttributedString, _attributed(text))

    @property
    def typographic_bounds(self):
        """(width, ascent, descent, leading) in points."""
        a, d, l = ctypes.c_double(), ctypes.c_double(), ctypes.c_double()
        w = call(_lib.CTLineGetTypographicBounds, self, ctypes.byref(a), ctypes.byref(d), ctypes.byref(l))
        return w, a.value, d.value, l.value

    @property
    def width(self):
        return self.typographic_bounds[0]

    def image_bounds(self, context=None):
        """The glyphs' ink (y up), translated by the context's text position."""
        return Rect.from_c(call(_lib.CTLineGetImageBounds, self, context))

    def draw(self, context):
        """CTLineDraw: at the context's text position, y up; the position moves to the line's end."""
        call(_lib.CTLineDraw, self, context)


class Frame(Handle):
    """Lines laid out in a rectangle (CTFrameRef); made by Framesetter.create_frame."""

    __slots__ = ()
    _type_name = "CTFrameRef"

    @property
    def line_count(self):
        return call(_lib.QZFrameGetLineCount, self)

    @property
    def visible_range(self):
        r = call(_lib.CTFrameGetVisibleStringRange, self)
        return r.location, r.length

    @property
    def line_origins(self):
        n = self.line_count
        points = (_lib.CGPoint * max(n, 1))()
        if n:
            call(_lib.CTFrameGetLineOrigins, self, _lib.CFRange(0, 0), points)
        return [Point(p.x, p.y) for p in points[:n]]

    def draw(self, context):
        """CTFrameDraw: the lines that fit, the first at the top (maxY), y up."""
        call(_lib.CTFrameDraw, self, context)


class Framesetter(Handle):
    """Lays attributed text out in frames (CTFramesetterRef)."""

    __slots__ = ()
    _type_name = "CTFramesetterRef"

    def __init__(self, text):
        self._ref = None
        self._ref = call(_lib.CTFramesetterCreateWithAttributedString, _attributed(text))

    def suggest_frame_size(self, constraints=(float("inf"), float("inf")), location=0, length=0):
        """(Size, (location, length) that fits) for text wrapped at the
        constraints' width (inf: no wrapping), in at most their height."""
        if isinstance(constraints, _lib.CGSize):
            w, h = constraints.width, constraints.height
        else:
            w, h = (float(v) for v in constraints)
        fit = _lib.CFRange()
        big = 1.7976931348623157e308
        size = call(_lib.CTFramesetterSuggestFrameSizeWithConstraints, self, _lib.CFRange(location, length), None,
                    _lib.CGSize(min(w, big), min(h, big)), ctypes.byref(fit))
        return Size.from_c(size), (fit.location, fit.length)

    def create_frame(self, rect, location=0, length=0):
        """A Frame of the text laid out in `rect` (y up: the first line at its top)."""
        from .path import Path
        path = Path()
        path.add_rect(_rect(rect))
        try:
            return Frame.adopt(call(_lib.CTFramesetterCreateFrame, self, _lib.CFRange(location, length), path, None))
        finally:
            path.close()


def statistics():
    """Counters of text work since the last reset: a dict with ``layouts``,
    ``layout_cache_hits``, ``draws``, ``cached_fonts``, ``cached_layouts``."""
    s = call(_lib.QZTextGetStatistics)
    return {"layouts": s.layouts, "layout_cache_hits": s.layoutCacheHits, "draws": s.draws,
            "cached_fonts": s.cachedFonts, "cached_layouts": s.cachedLayouts}


def reset_statistics():
    call(_lib.QZTextResetStatistics)


def set_font_configuration_file(path):
    """Uses only the fonts a fontconfig file lists (QZTextSetFontConfigurationFile)."""
    return call(_lib.QZTextSetFontConfigurationFile, _utf8(str(path), "path"))


def _text_from_object(ref):
    """values.from_value's converter: Font and AttributedString objects."""
    name = _lib.QZGetTypeName(ref)
    if name == b"CTFont":
        return Font.from_handle(ref)
    if name == b"CFAttributedString":
        return AttributedString.from_handle(ref)
    return None


_values._object_converters.append(_text_from_object)
