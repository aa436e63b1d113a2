"""Core Graphics from Python: :class:`Context` (CGContextRef) with Apple's
vocabulary in snake_case, :class:`Image` (CGImageRef: from files, bytes and
NumPy arrays) and :class:`Gradient` (CGGradientRef).

A context draws into pixels with cairo underneath. Contexts made here, and
the ones handed to ``draw_in_context`` / ``draw_layer_in_context``, have a
y-down user space (UIKit's convention)::

    ctx = Context.bitmap(200, 100)
    ctx.set_fill_color(Color(0.2, 0.5, 0.9))
    with ctx.saved():
        ctx.translate_ctm(10, 10)
        ctx.move_to(0, 0)
        ctx.add_line_to(100, 50)
        ctx.set_line_width(4)
        ctx.stroke_path()
    pixels = ctx.to_array()        # (100, 200, 4) premultiplied BGRA

As in Core Graphics, ``draw_image`` puts the image's first row along the
rectangle's maxY edge, so in these y-down contexts an image drawn without
flipping the CTM is upside down; ``draw_image(rect, image, upright=True)``
flips it for you.
"""
import contextlib
import ctypes
import enum
import threading

from . import _lib, values as _values
from .color import Color
from .errors import ErrorCode, call, error_for
from .geometry import AffineTransform, Point, Rect, _point, _rect, _size
from .handle import Handle

__all__ = ["BlendMode", "Context", "Gradient", "GradientDrawingOptions", "Image", "InterpolationQuality",
           "LineCap", "LineJoin", "PathDrawingMode"]


class BlendMode(enum.IntEnum):
    """Apple's CGBlendMode (same values)."""
    NORMAL = 0
    MULTIPLY = 1
    SCREEN = 2
    OVERLAY = 3
    DARKEN = 4
    LIGHTEN = 5
    COLOR_DODGE = 6
    COLOR_BURN = 7
    SOFT_LIGHT = 8
    HARD_LIGHT = 9
    DIFFERENCE = 10
    EXCLUSION = 11
    HUE = 12
    SATURATION = 13
    COLOR = 14
    LUMINOSITY = 15
    CLEAR = 16
    COPY = 17
    SOURCE_IN = 18
    SOURCE_OUT = 19
    SOURCE_ATOP = 20
    DESTINATION_OVER = 21
    DESTINATION_IN = 22
    DESTINATION_OUT = 23
    DESTINATION_ATOP = 24
    XOR = 25
    PLUS_DARKER = 26
    PLUS_LIGHTER = 27


class LineCap(enum.IntEnum):
    BUTT = 0
    ROUND = 1
    SQUARE = 2


class LineJoin(enum.IntEnum):
    MITER = 0
    ROUND = 1
    BEVEL = 2


class PathDrawingMode(enum.IntEnum):
    FILL = 0
    EO_FILL = 1
    STROKE = 2
    FILL_STROKE = 3
    EO_FILL_STROKE = 4


class InterpolationQuality(enum.IntEnum):
    """Apple's values: HIGH is 3, MEDIUM 4."""
    DEFAULT = 0
    NONE = 1
    LOW = 2
    HIGH = 3
    MEDIUM = 4


class GradientDrawingOptions(enum.IntFlag):
    NONE = 0
    DRAWS_BEFORE_START_LOCATION = 1
    DRAWS_AFTER_END_LOCATION = 2


def _doubles(values):
    values = [float(v) for v in values]
    return (ctypes.c_double * max(len(values), 1))(*values), len(values)


def _rgba(args, what):
    """(r, g, b[, a]) numbers, one tuple, or a Color -> a Color."""
    if len(args) == 1 and isinstance(args[0], Color):
        return args[0]
    if len(args) == 1:
        args = tuple(args[0])
    if len(args) not in (3, 4):
        raise error_for(ErrorCode.WRONG_TYPE, f"{what}: a Color, or red, green, blue[, alpha]")
    return Color(*args)


class Context(Handle):
    """A drawing context (CGContextRef). ``Context(pixel_buffer)`` draws into
    a PixelBuffer (QZBitmapContextCreateWithPixelBuffer); ``Context.bitmap(w, h)``
    into a new transparent one. Every method raises QuartziteError where the
    C call records an error (e.g. ``add_line_to`` without a current point:
    InvalidStateError "no current point")."""

    __slots__ = ()
    _type_name = "CGContextRef"

    def __init__(self, pixel_buffer):
        self._ref = None
        self._ref = call(_lib.QZBitmapContextCreateWithPixelBuffer, pixel_buffer)

    @classmethod
    def bitmap(cls, width, height):
        """A context over a new width x height premultiplied BGRA PixelBuffer."""
        from .video import PixelBuffer
        with PixelBuffer(width, height, "BGRA") as pb:
            return cls(pb)

    @property
    def pixel_buffer(self):
        """The PixelBuffer drawn into."""
        from .video import PixelBuffer
        return PixelBuffer.from_handle(call(_lib.QZBitmapContextGetPixelBuffer, self))

    @property
    def width(self):
        return call(_lib.CGBitmapContextGetWidth, self)

    @property
    def height(self):
        return call(_lib.CGBitmapContextGetHeight, self)

    def to_array(self):
        """A copy of the pixels as a (height, width, 4) uint8 array (premultiplied BGRA)."""
        import numpy as np
        pb = self.pixel_buffer
        with pb.locked(read_only=True):
            return np.array(pb, copy=True)

    def create_image(self):
        """CGBitmapContextCreateImage: an Image of the pixels now."""
        return Image.adopt(call(_lib.CGBitmapContextCreateImage, self))

    # MARK: Graphics state

    def save_gstate(self):
        call(_lib.CGContextSaveGState, self)

    def restore_gstate(self):
        call(_lib.CGContextRestoreGState, self)

    @contextlib.contextmanager
    def saved(self):
        """``with ctx.saved():`` saves the graphics state and restores it after."""
        self.save_gstate()
        try:
            yield self
        finally:
            self.restore_gstate()

    @property
    def ctm(self):
        return AffineTransform.from_c(call(_lib.CGContextGetCTM, self))

    def translate_ctm(self, tx, ty):
        call(_lib.CGContextTranslateCTM, self, tx, ty)

    def scale_ctm(self, sx, sy):
        call(_lib.CGContextScaleCTM, self, sx, sy)

    def rotate_ctm(self, angle):
        call(_lib.CGContextRotateCTM, self, angle)

    def concat_ctm(self, transform):
        call(_lib.CGContextConcatCTM, self, transform)

    # Text state (not part of the graphics state): where Line.draw puts the
    # next line's origin, and the glyphs' transform.
    def set_text_position(self, x, y):
        call(_lib.CGContextSetTextPosition, self, x, y)

    @property
    def text_position(self):
        p = call(_lib.CGContextGetTextPosition, self)
        return Point(p.x, p.y)

    def set_text_matrix(self, transform):
        call(_lib.CGContextSetTextMatrix, self, transform)

    @property
    def text_matrix(self):
        return AffineTransform.from_c(call(_lib.CGContextGetTextMatrix, self))

    def set_alpha(self, alpha):
        call(_lib.CGContextSetAlpha, self, alpha)

    def set_blend_mode(self, mode):
        call(_lib.CGContextSetBlendMode, self, int(mode))

    def set_should_antialias(self, on):
        call(_lib.CGContextSetShouldAntialias, self, bool(on))

    def set_allows_antialiasing(self, on):
        call(_lib.CGContextSetAllowsAntialiasing, self, bool(on))

    @property
    def interpolation_quality(self):
        return InterpolationQuality(call(_lib.CGContextGetInterpolationQuality, self))

    def set_interpolation_quality(self, quality):
        call(_lib.CGContextSetInterpolationQuality, self, int(quality))

    def set_flatness(self, flatness):
        call(_lib.CGContextSetFlatness, self, flatness)

    # MARK: Colour

    def set_fill_color(self, *color):
        """A Color, or red, green, blue[, alpha] (sRGB)."""
        call(_lib.CGContextSetFillColorWithColor, self, _rgba(color, "set_fill_color"))

    def set_stroke_color(self, *color):
        call(_lib.CGContextSetStrokeColorWithColor, self, _rgba(color, "set_stroke_color"))

    def set_rgb_fill_color(self, red, green, blue, alpha=1.0):
        call(_lib.CGContextSetRGBFillColor, self, red, green, blue, alpha)

    def set_rgb_stroke_color(self, red, green, blue, alpha=1.0):
        call(_lib.CGContextSetRGBStrokeColor, self, red, green, blue, alpha)

    def set_gray_fill_color(self, gray, alpha=1.0):
        call(_lib.CGContextSetGrayFillColor, self, gray, alpha)

    def set_gray_stroke_color(self, gray, alpha=1.0):
        call(_lib.CGContextSetGrayStrokeColor, self, gray, alpha)

    # MARK: Lines

    def set_line_width(self, width):
        call(_lib.CGContextSetLineWidth, self, width)

    def set_line_cap(self, cap):
        call(_lib.CGContextSetLineCap, self, int(cap))

    def set_line_join(self, join):
        call(_lib.CGContextSetLineJoin, self, int(join))

    def set_miter_limit(self, limit):
        call(_lib.CGContextSetMiterLimit, self, limit)

    def set_line_dash(self, phase, lengths):
        """Dash lengths (on, off, ...) from ``phase``; an empty list makes lines solid."""
        array, n = _doubles(lengths or ())
        call(_lib.CGContextSetLineDash, self, phase, array if n else None, n)

    # MARK: The current path

    def begin_path(self):
        call(_lib.CGContextBeginPath, self)

    def move_to(self, x, y):
        call(_lib.CGContextMoveToPoint, self, x, y)

    def add_line_to(self, x, y):
        call(_lib.CGContextAddLineToPoint, self, x, y)

    def add_curve_to(self, cp1x, cp1y, cp2x, cp2y, x, y):
        call(_lib.CGContextAddCurveToPoint, self, cp1x, cp1y, cp2x, cp2y, x, y)

    def add_quad_curve_to(self, cpx, cpy, x, y):
        call(_lib.CGContextAddQuadCurveToPoint, self, cpx, cpy, x, y)

    def add_arc(self, x, y, radius, start_angle, end_angle, clockwise=False):
        call(_lib.CGContextAddArc, self, x, y, radius, start_angle, end_angle, 1 if clockwise else 0)

    def add_arc_to_point(self, x1, y1, x2, y2, radius):
        call(_lib.CGContextAddArcToPoint, self, x1, y1, x2, y2, radius)

    def add_rect(self, rect):
        call(_lib.CGContextAddRect, self, _rect(rect))

    def add_rects(self, rects):
        rects = [_rect(r) for r in rects]
        call(_lib.CGContextAddRects, self, (_lib.CGRect * max(len(rects), 1))(*rects), len(rects))

    def add_lines(self, points):
        points = [_point(p) for p in points]
        call(_lib.CGContextAddLines, self, (_lib.CGPoint * max(len(points), 1))(*points), len(points))

    def add_ellipse_in_rect(self, rect):
        call(_lib.CGContextAddEllipseInRect, self, _rect(rect))

    def add_path(self, path):
        call(_lib.CGContextAddPath, self, path)

    def close_path(self):
        call(_lib.CGContextClosePath, self)

    @property
    def is_path_empty(self):
        return call(_lib.CGContextIsPathEmpty, self)

    @property
    def path_current_point(self):
        return Point.from_c(call(_lib.CGContextGetPathCurrentPoint, self))

    @property
    def path_bounding_box(self):
        return Rect.from_c(call(_lib.CGContextGetPathBoundingBox, self))

    def path_contains_point(self, point, mode=PathDrawingMode.FILL):
        return call(_lib.CGContextPathContainsPoint, self, _point(point), int(mode))

    def copy_path(self):
        """The path in user space (a Path), or None when it is empty."""
        from .path import Path
        ref = call(_lib.CGContextCopyPath, self)
        return Path.adopt(ref) if ref else None

    def replace_path_with_stroked_path(self):
        call(_lib.CGContextReplacePathWithStrokedPath, self)

    # MARK: Painting

    def fill_path(self):
        call(_lib.CGContextFillPath, self)

    def eo_fill_path(self):
        call(_lib.CGContextEOFillPath, self)

    def stroke_path(self):
        call(_lib.CGContextStrokePath, self)

    def draw_path(self, mode):
        call(_lib.CGContextDrawPath, self, int(mode))

    def fill_rect(self, rect):
        call(_lib.CGContextFillRect, self, _rect(rect))

    def fill_rects(self, rects):
        rects = [_rect(r) for r in rects]
        call(_lib.CGContextFillRects, self, (_lib.CGRect * max(len(rects), 1))(*rects), len(rects))

    def stroke_rect(self, rect, width=None):
        if width is None:
            call(_lib.CGContextStrokeRect, self, _rect(rect))
        else:
            call(_lib.CGContextStrokeRectWithWidth, self, _rect(rect), width)

    def fill_ellipse_in_rect(self, rect):
        call(_lib.CGContextFillEllipseInRect, self, _rect(rect))

    def stroke_ellipse_in_rect(self, rect):
        call(_lib.CGContextStrokeEllipseInRect, self, _rect(rect))

    def stroke_line_segments(self, points):
        points = [_point(p) for p in points]
        call(_lib.CGContextStrokeLineSegments, self, (_lib.CGPoint * max(len(points), 1))(*points), len(points))

    def clear_rect(self, rect):
        call(_lib.CGContextClearRect, self, _rect(rect))

    # MARK: Clipping

    def clip(self):
        call(_lib.CGContextClip, self)

    def eo_clip(self):
        call(_lib.CGContextEOClip, self)

    def clip_to_rect(self, rect):
        call(_lib.CGContextClipToRect, self, _rect(rect))

    def clip_to_rects(self, rects):
        rects = [_rect(r) for r in rects]
        call(_lib.CGContextClipToRects, self, (_lib.CGRect * max(len(rects), 1))(*rects), len(rects))

    def clip_to_mask(self, rect, image):
        call(_lib.CGContextClipToMask, self, _rect(rect), image)

    @property
    def clip_bounding_box(self):
        """The clip's bounds in user space (in ``draw_in_context``: the area being redrawn)."""
        return Rect.from_c(call(_lib.CGContextGetClipBoundingBox, self))

    # MARK: Shadows, gradients, transparency layers, images

    def set_shadow(self, offset, blur, color=None):
        """A shadow under what follows (``color`` None: black at 1/3 alpha, as
        CGContextSetShadow). Offsets are in the base space, y down."""
        if color is None:
            call(_lib.CGContextSetShadow, self, _size(offset), blur)
        else:
            call(_lib.CGContextSetShadowWithColor, self, _size(offset), blur, _rgba((color,), "set_shadow"))

    def clear_shadow(self):
        call(_lib.CGContextSetShadowWithColor, self, _size((0, 0)), 0, None)

    def draw_linear_gradient(self, gradient, start, end, options=0):
        call(_lib.CGContextDrawLinearGradient, self, gradient, _point(start), _point(end), int(options))

    def draw_radial_gradient(self, gradient, start_center, start_radius, end_center, end_radius, options=0):
        call(_lib.CGContextDrawRadialGradient, self, gradient, _point(start_center), start_radius,
             _point(end_center), end_radius, int(options))

    def begin_transparency_layer(self, rect=None):
        if rect is None:
            call(_lib.CGContextBeginTransparencyLayer, self, None)
        else:
            call(_lib.CGContextBeginTransparencyLayerWithRect, self, _rect(rect), None)

    def end_transparency_layer(self):
        call(_lib.CGContextEndTransparencyLayer, self)

    @contextlib.contextmanager
    def transparency_layer(self, rect=None):
        """``with ctx.transparency_layer():`` draws into a layer composited at the end."""
        self.begin_transparency_layer(rect)
        try:
            yield self
        finally:
            self.end_transparency_layer()

    def draw_image(self, rect, image, upright=False):
        """CGContextDrawImage; ``upright=True`` flips the CTM around the
        rectangle first, so the image's first row is at the top in this
        y-down space."""
        rect = _rect(rect)
        if not upright:
            call(_lib.CGContextDrawImage, self, rect, image)
            return
        with self.saved():
            self.translate_ctm(0, 2 * rect.origin.y + rect.size.height)
            self.scale_ctm(1, -1)
            call(_lib.CGContextDrawImage, self, rect, image)

    def draw_tiled_image(self, rect, image):
        call(_lib.CGContextDrawTiledImage, self, _rect(rect), image)

    def __repr__(self):
        return f"Context(0x{self._ref or 0:x})"


# MARK: - Images

# Bytes handed to CGDataProviderCreateWithData stay alive until its release
# callback (any thread): keyed by address.
_provider_buffers: dict[int, object] = {}
_provider_lock = threading.Lock()


def _forget_provider_bytes(_info, data, _size):
    with _provider_lock:
        _provider_buffers.pop(data, None)


_release_provider_bytes = _lib.CGDataProviderReleaseDataCallback(_forget_provider_bytes)  # type: ignore[misc]


def _provider_for(data):
    """A +1 CGDataProviderRef over a private copy of ``data``."""
    data = bytes(data)
    buffer = ctypes.create_string_buffer(data, len(data)) if data else ctypes.create_string_buffer(1)
    address = ctypes.addressof(buffer)
    with _provider_lock:
        _provider_buffers[address] = buffer
    try:
        return call(_lib.CGDataProviderCreateWithData, None, address, len(data), _release_provider_bytes)
    except BaseException:
        with _provider_lock:
            _provider_buffers.pop(address, None)
        raise


class Image(Handle):
    """An immutable bitmap image (CGImageRef). Make one with
    ``Image.from_file(path)`` or ``Image.from_bytes(data)`` (PNG or JPEG,
    told apart by their signatures), ``Image.from_array(array)``, or
    ``Image.from_pixel_buffer(pb)``. Set it as a layer's ``contents``, or
    draw it with ``Context.draw_image``."""

    __slots__ = ()
    _type_name = "CGImageRef"

    @classmethod
    def _decode(cls, provider, head, interpolate):
        if head.startswith(b"\x89PNG\r\n\x1a\n"):
            function = _lib.CGImageCreateWithPNGDataProvider
        elif head.startswith(b"\xff\xd8\xff"):
            function = _lib.CGImageCreateWithJPEGDataProvider
        else:
            raise error_for(ErrorCode.INVALID_ARGUMENT, "the data is neither a PNG nor a JPEG image")
        return cls.adopt(call(function, provider, None, bool(interpolate), 0))

    @classmethod
    def from_bytes(cls, data, interpolate=True):
        """Decodes PNG or JPEG bytes (libpng, libjpeg)."""
        data = bytes(data)
        provider = _provider_for(data)
        try:
            return cls._decode(provider, data[:8], interpolate)
        finally:
            _lib.CGDataProviderRelease(provider)

    @classmethod
    def from_file(cls, path, interpolate=True):
        """Decodes a PNG or JPEG file (CGDataProviderCreateWithFilename)."""
        path = str(path)
        provider = call(_lib.CGDataProviderCreateWithFilename, path.encode("utf-8"))
        try:
            with open(path, "rb") as f:
                head = f.read(8)
            return cls._decode(provider, head, interpolate)
        finally:
            _lib.CGDataProviderRelease(provider)

    @classmethod
    def from_array(cls, array):
        """An image of a NumPy array's pixels (copied): (h, w, 4) uint8 is
        premultiplied BGRA (the layout of PixelBuffer arrays and to_array),
        (h, w, 3) uint8 RGB, (h, w) uint8 gray."""
        import numpy as np
        a = np.ascontiguousarray(np.asarray(array), dtype=np.uint8)
        if a.ndim == 3 and a.shape[2] == 4:
            bpp, info, space = 32, _lib.kCGImageAlphaPremultipliedFirst | _lib.kCGBitmapByteOrder32Little, None
        elif a.ndim == 3 and a.shape[2] == 3:
            bpp, info, space = 24, _lib.kCGImageAlphaNone, None
        elif a.ndim == 2:
            bpp, info, space = 8, _lib.kCGImageAlphaNone, "gray"
        else:
            raise error_for(ErrorCode.WRONG_TYPE, f"an array of shape {a.shape}: use (h, w, 4), (h, w, 3) or (h, w)")
        h, w = a.shape[0], a.shape[1]
        provider = _provider_for(a.tobytes())
        gray = call(_lib.CGColorSpaceCreateDeviceGray) if space else None
        try:
            return cls.adopt(call(_lib.CGImageCreate, w, h, 8, bpp, w * bpp // 8, gray, info, provider, None, True, 0))
        finally:
            _lib.CGDataProviderRelease(provider)
            if gray:
                _lib.CGColorSpaceRelease(gray)

    @classmethod
    def from_pixel_buffer(cls, pixel_buffer):
        """QZImageCreateWithPixelBuffer: an image of the buffer's pixels now."""
        return cls.adopt(call(_lib.QZImageCreateWithPixelBuffer, pixel_buffer))

    def to_pixel_buffer(self):
        """QZPixelBufferCreateWithImage: a new premultiplied BGRA PixelBuffer."""
        from .video import PixelBuffer
        obj = PixelBuffer.adopt(call(_lib.QZPixelBufferCreateWithImage, self))
        return obj

    def to_array(self):
        """The pixels as a (height, width, 4) uint8 array (premultiplied BGRA)."""
        import numpy as np
        with self.to_pixel_buffer() as pb, pb.locked(read_only=True):
            return np.array(pb, copy=True)

    def crop(self, rect):
        """CGImageCreateWithImageInRect (pixels, row 0 at the top); None when it misses."""
        ref = call(_lib.CGImageCreateWithImageInRect, self, _rect(rect))
        return Image.adopt(ref) if ref else None

    width = property(lambda self: call(_lib.CGImageGetWidth, self))
    height = property(lambda self: call(_lib.CGImageGetHeight, self))
    bits_per_component = property(lambda self: call(_lib.CGImageGetBitsPerComponent, self))
    bits_per_pixel = property(lambda self: call(_lib.CGImageGetBitsPerPixel, self))
    bytes_per_row = property(lambda self: call(_lib.CGImageGetBytesPerRow, self))
    bitmap_info = property(lambda self: call(_lib.CGImageGetBitmapInfo, self))
    alpha_info = property(lambda self: call(_lib.CGImageGetAlphaInfo, self))
    should_interpolate = property(lambda self: call(_lib.CGImageGetShouldInterpolate, self))

    def __repr__(self):
        if not self._ref:
            return "Image(closed)"
        return f"Image({self.width}x{self.height})"


def _image_from_object(ref):
    """values.from_value's converter for object values: an Image for a CGImage."""
    name = _lib.QZGetTypeName(ref)
    if name != b"CGImage":
        return None
    return Image.from_handle(ref)


_values._object_converters.append(_image_from_object)


# MARK: - Gradients

class Gradient(Handle):
    """A gradient (CGGradientRef): ``Gradient(colors, locations=None)`` with
    Colors or (r, g, b[, a]) tuples, at locations in 0...1 (None: evenly
    spaced)."""

    __slots__ = ()
    _type_name = "CGGradientRef"

    def __init__(self, colors, locations=None):
        self._ref = None
        components = []
        for c in colors:
            color = c if isinstance(c, Color) else _rgba((c,), "Gradient")
            r, g, b, a = _color_rgba(color)
            components += [r, g, b, a]
        if locations is not None and len(locations) != len(components) // 4:
            raise error_for(ErrorCode.OUT_OF_RANGE, "one location per colour")
        comps, _ = _doubles(components)
        locs = _doubles(locations)[0] if locations is not None else None
        space = call(_lib.CGColorSpaceCreateDeviceRGB)
        try:
            self._ref = call(_lib.CGGradientCreateWithColorComponents, space, comps, locs, len(components) // 4)
        finally:
            _lib.CGColorSpaceRelease(space)


def _color_rgba(color):
    c = color.components
    return (c[0], c[0], c[0], c[1]) if len(c) == 2 else tuple(c)
