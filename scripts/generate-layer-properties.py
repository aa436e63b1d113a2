#!/usr/bin/env python3
"""The layer property table, and the code it drives.

Every declared property of CALayer and of its built-in subclasses is one row
of PROPERTIES below: its key, the class that declares it, its type, its
default, whether it animates, where the model stores it, and its documentation.
From the table this script writes

  Sources/QuartziteModel/Layers/LayerKey.swift       the LayerKey enum and its facts
  Sources/QuartziteModel/Layers/Layer+PropertyStorage.swift  defaults, the model's
                                                     storage switch (read and write),
                                                     the typed setters' model side
  Sources/Quartzite/Exports/Exports+LayerProperties.swift  the typed C getters and setters
  bindings/python/quartzite/_layer_properties.py     the Python properties
  docs/layer-properties.md                           the reference table

so that adding a property touches its row and its behaviour only (the code
that reacts to it: rendering, layout, ...). The public header and the Python
declarations follow from the exports (scripts/generate-header.py,
scripts/generate-python-bindings.py).

    scripts/generate-layer-properties.py            # rewrite the files
    scripts/generate-layer-properties.py --check    # exit 1 if a committed file differs
"""
import argparse
import difflib
import os
import re
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# MARK: - Constant sets: string-valued properties store an index into one.

CONSTANT_SETS = {
    # name: (Apple's values in index order, Swift constants to declare {name: index})
    "gravity": (["center", "top", "bottom", "left", "right", "topLeft", "topRight", "bottomLeft",
                 "bottomRight", "resize", "resizeAspect", "resizeAspectFill"], {"gravityResize": 9}),
    "filter": (["nearest", "linear", "trilinear"], {"filterLinear": 1}),
    "fillMode": (["removed", "forwards", "backwards", "both", "frozen"], {}),
    "scrollMode": (["both", "none", "vertically", "horizontally"], {}),
    "alignment": (["natural", "left", "right", "center", "justified"], {}),
    "truncation": (["none", "start", "end", "middle"], {}),
    "gradientType": (["axial", "radial", "conic"], {}),
    "fillRule": (["non-zero", "even-odd"], {}),
    "lineCap": (["butt", "round", "square"], {}),
    "lineJoin": (["miter", "round", "bevel"], {}),
    "emitterShape": (["point", "line", "rectangle", "cuboid", "circle", "sphere"], {}),
    "emitterMode": (["points", "outline", "surface", "volume"], {}),
    "renderMode": (["unordered", "oldestFirst", "oldestLast", "backToFront", "additive"], {}),
}

# MARK: - Types: how a value of each type crosses C, boxes into a Value and is checked.


class Type:
    """A property type. `swift` is the model's stored type, `c` the C
    parameter/result type in Swift spelling, `c_fallback` what a getter returns
    on a bad handle."""

    def __init__(self, name, swift, c, c_fallback, box, accepts, py):
        self.name, self.swift, self.c, self.c_fallback = name, swift, c, c_fallback
        self.box = box            # Swift expression boxing `$X` (the stored value) into Value?
        self.accepts = accepts    # Value storage cases a style value may have
        self.py = py              # Python property kind


T = {
    "Double": Type("Double", "Double", "Double", "0", "Value(.number($X))", ["number", "bool"], "number"),
    "CFTimeInterval": Type("CFTimeInterval", "Double", "CFTimeInterval", "0", "Value(.number($X))", ["number", "bool"],
                           "number"),
    "Float": Type("Float", "Float", "Float", "0", "Value(.number(Double($X)))", ["number", "bool"], "number"),
    "UInt32": Type("UInt32", "UInt32", "CUnsignedInt", "0", "Value(.number(Double($X)))", ["number", "bool"], "integer"),
    "Int": Type("Int", "Int", "size_t", "0", "Value(.number(Double($X)))", ["number", "bool"], "integer"),
    # Apple's NSInteger (API.md: long).
    "Long": Type("Long", "Int", "CLong", "0", "Value(.number(Double($X)))", ["number", "bool"], "integer"),
    "Bool": Type("Bool", "Bool", "Bool", "false", "Value(.bool($X))", ["number", "bool"], "bool"),
    "CGPoint": Type("CGPoint", "CGPoint", "CGPoint", "CGPoint(x: 0, y: 0)", "Value(.point($X))", ["point"], "struct"),
    "CGSize": Type("CGSize", "CGSize", "CGSize", "CGSize(width: 0, height: 0)", "Value(.size($X))", ["size"], "struct"),
    "CGRect": Type("CGRect", "CGRect", "CGRect", ".zero", "Value(.rect($X))", ["rect"], "struct"),
    "CATransform3D": Type("CATransform3D", "CATransform3D", "CATransform3D", ".identity", "Value(.transform3D($X))",
                          ["transform3D", "affineTransform"], "struct"),
    "CGColor": Type("CGColor", "Color?", "QZCGColorRef?", "nil", "$X.map { Value(.color($0)) }", ["color"], "color"),
    "constant": Type("constant", "UInt8", "UnsafePointer<CChar>?", "nil", "Value(string: ConstantSet.$SET.name($X))",
                     ["string"], "string"),
    "value": Type("value", "Value?", "CAValueRef?", "nil", "$X", [], "value"),
    "name": Type("name", "CString?", "UnsafePointer<CChar>?", "nil", "$X.map { Value(.string($0)) }", ["string"], "name"),
    "object": Type("object", "QZObject?", "OpaquePointer?", "nil", "$X.map { Value(.object($0)) }", [], "custom"),
    "layer": Type("layer", "Layer?", "CALayerRef?", "nil", "$X.map { Value(.object($0)) }", [], "custom"),
    "sublayers": Type("sublayers", "[Layer]", "", "", "", [], "none"),
}


# MARK: - Storage: where the model keeps a property.

def inline(field):
    return {"read": f"l.{field}", "write": f"l.{field} = $V"}


def inline_object(field):
    """A reference-counted field of the layer (a colour): storing the object
    already there (by identity) changes nothing, so it skips the retain and
    release."""
    return {"read": f"l.{field}", "write": f"if l.{field} !== $V {{ l.{field} = $V }}"}


def flag(name):
    return {"read": f"l.flags.contains(.{name})",
            "write": f"if $V {{ l.flags.insert(.{name}) }} else {{ l.flags.remove(.{name}) }}"}


def box(field, computed):
    return {"read": f"l.{computed}", "write": f"TransformBox.store($V, in: &l.{field})"}


def side(obj, field, default, ensure):
    """A field of a side object (visuals, timing, text, tiled), nil until used."""
    return {"read": f"(l.{obj}.map {{ $0.{field} }} ?? {default})", "write": f"l.{ensure}.{field} = $V",
            "optional_read": f"l.{obj}?.{field}", "default": default}


def visuals(field, default):
    return side("visuals", field, default, "ensureVisuals")


def visuals_object(field, default):
    """A reference-counted visual (a colour): storing the object already
    there (by identity) changes nothing, so it skips the retain and release
    (two atomic operations, the dearest part of such a setter)."""
    s = visuals(field, default)
    # (No `if let`: binding the visuals would retain and release them.)
    s["write"] = (f"if l.visuals == nil ? $V !== {default} : l.visuals.unsafelyUnwrapped.{field} !== $V "
                  f"{{ l.ensureVisuals.{field} = $V }}")
    return s


def timing(field, default):
    return side("timing", field, default, "ensureTiming")


def text(field, default):
    s = side("text", field, default, "text")
    s["write"] = f"l.text?.{field} = $V"
    return s


def tiled(field, default):
    s = side("tiled", field, default, "tiled")
    s["write"] = f"l.tiled?.{field} = $V"
    return s


def eagl(field, default):
    s = side("eagl", field, default, "eagl")
    s["write"] = f"l.eagl?.{field} = $V"
    return s


def gradient(field, default):
    s = side("gradient", field, default, "gradient")
    s["write"] = f"l.gradient?.{field} = $V"
    return s


def shape(field, default):
    s = side("shape", field, default, "shape")
    s["write"] = f"l.shape?.{field} = $V"
    return s


def replicator(field, default):
    s = side("replicator", field, default, "replicator")
    s["write"] = f"l.replicator?.{field} = $V"
    return s


def emitter(field, default):
    s = side("emitter", field, default, "emitter")
    s["write"] = f"l.emitter?.{field} = $V"
    return s


def custom(read, write):
    return {"read": read, "write": write}


# MARK: - The table


class P:
    """One property. Arguments:
    key: the KVC key (Apple's property name); cls: the declaring class;
    type: a key of T; store: where the model keeps it (inline, flag, ...);
    default: the Swift default of the stored type (None: no default value,
    +defaultValueForKey: answers nil); initial: what a new layer holds when
    that differs from `default` (Swift, boxed Value? expression);
    animatable: the spec's "Animatable"; style: whether the style dictionary
    may supply it; check: how values are checked ("finite" for numbers and
    geometry, "number" for numbers where infinity means forever, or a Swift
    guard for the KVC path); setter: "typed" (a C setter that writes the
    storage directly) or "kvc" (through the model's checked store, for
    properties whose store has side effects or class checks);
    doc: the getter's documentation (the setter's is derived); c_get/c_set:
    Swift bodies overriding the generated C functions; kvc_store: a Swift
    statement block overriding the generated store (must `return` a Bool on
    failure); py: the Python attribute, pydoc: its docstring."""

    def __init__(self, key, cls, type, store=None, default=None, initial=None, animatable=False,
                 style=True, check="finite", setter="typed", doc="", setdoc=None, c_get=None, c_set=None,
                 kvc_store=None, cset=None, accepts=None, py=None, pydoc=None, pykind=None, pyextra=None,
                 c_suffix=None, param=None, ctype=None, redraws_text=False):
        self.key, self.cls, self.type = key, cls, T[type]
        self.store, self.default, self.initial = store, default, initial
        self.animatable, self.style, self.check, self.setter = animatable, style, check, setter
        self.doc, self.setdoc, self.c_get, self.c_set, self.kvc_store = doc, setdoc, c_get, c_set, kvc_store
        self.cset = cset
        self.accepts = accepts if accepts is not None else self.type.accepts
        self.py = py if py is not None else re.sub(r"(?<!^)(?=[A-Z])", "_", key).lower()
        self.pydoc = pydoc or doc
        self.pykind = pykind or self.type.py
        self.pyextra = pyextra
        self.c_suffix = c_suffix or key[0].upper() + key[1:]
        self.param = param or key
        self.ctype = ctype or self.type.c
        self.redraws_text = redraws_text

    @property
    def kind(self):
        return {"CALayer": "layer", "CAScrollLayer": "scroll", "CATextLayer": "text", "CATiledLayer": "tiled",
                "CAEAGLLayer": "eagl", "CAGradientLayer": "gradient",
                "CAShapeLayer": "shape", "CAReplicatorLayer": "replicator",
                "CAEmitterLayer": "emitter"}[self.cls]


ORIGIN = "CGPoint(x: 0, y: 0)"
UNIT_RECT = "CGRect(x: 0, y: 0, width: 1, height: 1)"

PROPERTIES = [
    # MARK: Geometry
    P("bounds", "CALayer", "CGRect", custom("l.bounds", "l.setBounds($V)"), default=None, initial="Value(.rect(.zero))",
      animatable=True, style=False,
      doc="The bounds (default CGRectZero). Changing the size marks the layer for layout, and for display "
          "when needsDisplayOnBoundsChange is set.",
      kvc_store="guard let r = r.rect() else { return r.fail(\"a finite rect\") }\nl.setBounds(r)",
      pydoc="The bounds rectangle (default (0, 0, 0, 0)). A size change marks the layer for layout."),
    P("position", "CALayer", "CGPoint", inline("position"), default=None, initial=f"Value(.point({ORIGIN}))",
      animatable=True, doc="The position of the anchor point in the superlayer (default (0, 0)).",
      pydoc="The anchor point's position in the superlayer (default (0, 0))."),
    P("zPosition", "CALayer", "Double", custom("l.zPosition", "l.setZPosition($V)"), default="0", animatable=True,
      doc="Position on the z axis (default 0); also orders siblings.",
      pydoc="Position on the z axis (default 0); also orders siblings front to back."),
    P("anchorPoint", "CALayer", "CGPoint", inline("anchorPoint"), default="CGPoint(x: 0.5, y: 0.5)",
      animatable=True, doc="The anchor point in the unit square of the bounds (default (0.5, 0.5))."),
    P("anchorPointZ", "CALayer", "Double", inline("anchorPointZ"), default="0", animatable=True,
      doc="The anchor point's z (default 0)."),
    P("transform", "CALayer", "CATransform3D", box("transformBox", "transform"), default=".identity",
      animatable=True, doc="The transform, applied about the anchor point (default identity).",
      pydoc="The transform, applied about the anchor point (default identity). Accepts an AffineTransform too."),
    P("sublayerTransform", "CALayer", "CATransform3D", box("sublayerTransformBox", "sublayerTransform"),
      default=".identity", animatable=True,
      doc="The transform applied to the sublayers about the anchor point (default identity).", param="transform",
      pydoc="The transform applied to the sublayers (default identity)."),
    P("frame", "CALayer", "CGRect", custom("l.frame", "l.setFrame($V)"), default=None,
      initial="Value(.rect(.zero))", animatable=True, style=False,
      doc="The frame: the bounding box of the transformed bounds in the superlayer's coordinates (derived "
          "from bounds, position, anchorPoint and transform).",
      setdoc="Sets position and bounds.size so that the frame becomes `frame` (with an affine transform, the "
             "size is solved through it). NaN or infinite values record QZErrorNotFinite.",
      pydoc="The bounding box of the transformed bounds in the superlayer's coordinates; setting it sets "
            "position and bounds size."),

    # MARK: Contents
    P("contents", "CALayer", "object", visuals("contents", "nil"), default=None, animatable=True,
      setter="kvc", accepts=["object"],
      doc="The contents: what CALayerSetContents set (a CGImageRef or a CVPixelBufferRef), the backing store "
          "the display cycle drew (a CVPixelBufferRef), or NULL (default). Borrowed.",
      c_get="readLayer(layer, nil) { l in (l.visuals?.contents).map { UnsafeRawPointer(Unmanaged.passUnretained($0).toOpaque()) } }",
      c_set="var v: Value?\nif let contents {\n    guard let o = anyObject(contents) else { return }\n"
            "    guard o is PixelBuffer || o is Image else {\n"
            "        wrongType(OpaquePointer(contents), expected: \"CGImageRef or CVPixelBuffer\", #function)\n"
            "        return\n    }\n    v = Value(.object(o))\n}\nsetLayerValue(layer, .contents, v)",
      kvc_store="guard let o = r.object(), o == nil || o is PixelBuffer || o is Image else {\n"
                "    return r.fail(\"a CGImageRef or a CVPixelBufferRef\")\n}\n"
                "l.ensureVisuals.contents = o",
      setdoc="Sets the contents, as Apple's `contents` (an `id`): a CGImageRef or a CVPixelBufferRef (retained: "
             "the layer keeps it alive, so the release callback of a CVPixelBufferCreateWithBytes buffer waits until "
             "the layer lets it go), or NULL for none. Any other handle records QZErrorWrongType and changes nothing. "
             "Every pixel format with a conversion renders (the 32, 24, 48 and 64-bit RGB formats, the 16-bit RGB "
             "555, 5551 and 565 formats, gray, and 8-bit 4:2:0 and 4:2:2 Y'CbCr, converted to BGRA); a buffer in any "
             "other format (indexed colour, which has no colour table, the 10-bit and 4:4:4 Y'CbCr formats, "
             "registered formats) records QZErrorInvalidArgument and changes nothing, instead of rendering as "
             "nothing. The renderer reads the pixels at render time; lock and unlock a pixel buffer read-write "
             "after changing them (the seed tells caches).",
      pykind="custom", param="contents", ctype="UnsafeRawPointer?"),
    P("contentsRect", "CALayer", "CGRect", visuals("contentsRect", UNIT_RECT), default=UNIT_RECT, animatable=True,
      doc="The portion of the contents shown, in the unit square (default (0, 0, 1, 1)).",
      param="rect"),
    P("contentsCenter", "CALayer", "CGRect", visuals("contentsCenter", UNIT_RECT), default=UNIT_RECT,
      animatable=True, doc="The stretchable centre of the contents, in the unit square (default (0, 0, 1, 1)).",
      pydoc="The stretchable centre of the contents (default (0, 0, 1, 1)).", param="rect"),
    P("contentsGravity", "CALayer", "constant", visuals("contentsGravity", "ConstantSet.gravityResize"),
      default="ConstantSet.gravityResize", cset="gravity", setter="kvc",
      doc="How the contents fill the bounds: kCAGravityResize (default) or another kCAGravity* constant. "
          "Borrowed static string.",
      pydoc='How the contents fill the bounds (default "resize"; kCAGravity* values).', param="gravity"),
    P("contentsScale", "CALayer", "Double", visuals("contentsScale", "1"), default="1", animatable=True,
      doc="Scale of the contents' pixels per point (default 1).",
      pydoc="Pixels per point of the contents (default 1).", param="scale"),
    P("minificationFilter", "CALayer", "constant", visuals("minificationFilter", "ConstantSet.filterLinear"),
      default="ConstantSet.filterLinear", cset="filter", setter="kvc",
      doc="Filter used when shrinking the contents: kCAFilterLinear (default), Nearest or Trilinear.",
      pydoc='Filter when shrinking the contents (default "linear").', param="filter"),
    P("minificationFilterBias", "CALayer", "Float", visuals("minificationFilterBias", "0"), default=None,
      initial="Value(.number(0))", animatable=True,
      doc="Level-of-detail bias of the minification filter (default 0).",
      pydoc="Level-of-detail bias of the minification filter (default 0; a float).", param="bias"),
    P("magnificationFilter", "CALayer", "constant", visuals("magnificationFilter", "ConstantSet.filterLinear"),
      default="ConstantSet.filterLinear", cset="filter", setter="kvc",
      doc="Filter used when enlarging the contents: kCAFilterLinear (default) or Nearest.",
      pydoc='Filter when enlarging the contents (default "linear").', param="filter"),

    # MARK: Appearance
    P("opacity", "CALayer", "Float", inline("opacity"), default="1", animatable=True,
      doc="Opacity, 0 (transparent) to 1 (default).",
      pydoc="Opacity from 0 to 1 (default 1; stored as a float)."),
    P("hidden", "CALayer", "Bool", flag("hidden"), default="false", animatable=True,
      doc="Whether the layer is hidden (default false).", pydoc="Whether the layer is hidden (default False)."),
    P("masksToBounds", "CALayer", "Bool", flag("masksToBounds"), default="false", animatable=True,
      doc="Whether sublayers are clipped to the bounds (default false).", param="masks",
      pydoc="Whether sublayers are clipped to the bounds (default False)."),
    P("mask", "CALayer", "layer", visuals("mask", "nil"), default=None, animatable=True, style=False,
      setter="kvc", accepts=[],
      doc="The mask layer, or NULL (default). Borrowed.",
      setdoc="Sets the mask layer (retained; NULL removes it). A layer that is a sublayer somewhere (or another "
             "layer's mask) leaves its old tree and becomes the mask: its superlayer is then the masked layer "
             "(observed on Apple's QuartzCore). A mask that would make a cycle (the layer itself or one of its "
             "ancestors) records QZErrorInvalidArgument.",
      c_get="readLayer(layer, nil) { l in (l.visuals?.mask).map(borrowedHandle) }",
      c_set="guard let l = object(layer, as: Layer.self) else { return }\nlet m = optionalLayer(mask, #function)\n"
            "guard m.ok else { return }\nwithModelLock {\n"
            "    let before = l.layerClass.hasNeedsDisplayForKey ? l.storedValue(.mask) : nil\n"
            "    if l.setMask(m.layer, function: #function) {\n        l.markSet(.mask)\n"
            "        if l.layerClass.hasNeedsDisplayForKey { l.redisplayIfChanged(.mask, from: before) }\n    }\n}",
      kvc_store="guard let o = r.object(), o == nil || o! is Layer else { return r.fail(\"a layer\") }\n"
                "return .finished(l.setMask(o as? Layer, function: r.function))",
      pykind="custom"),
    P("doubleSided", "CALayer", "Bool", flag("doubleSided"), default="true", animatable=True,
      doc="Whether the back face is drawn (default true).", pydoc="Whether the back face is drawn (default True)."),
    P("cornerRadius", "CALayer", "Double", inline("cornerRadius"), default="0", animatable=True,
      doc="Corner radius of the background and border (default 0).", pydoc="Corner radius (default 0).",
      param="radius"),
    P("borderWidth", "CALayer", "Double", inline("borderWidth"), default="0", animatable=True,
      doc="Width of the border, drawn inset from the bounds (default 0).",
      pydoc="Border width, inset from the bounds (default 0).", param="width"),
    P("borderColor", "CALayer", "CGColor", visuals_object("borderColor", "Color.opaqueBlack"), default="Color.opaqueBlack",
      animatable=True, doc="The border colour (default opaque black). Borrowed.",
      pydoc="The border colour (default opaque black).", param="color"),
    P("backgroundColor", "CALayer", "CGColor", inline_object("backgroundColor"), default="nil",
      animatable=True, doc="The background colour (default NULL: none). Borrowed.",
      pydoc="The background colour, or None (default).", param="color"),
    P("shadowOpacity", "CALayer", "Float", visuals("shadowOpacity", "0"), default="0", animatable=True,
      doc="Opacity of the shadow (default 0).", pydoc="Opacity of the shadow (default 0; a float).",
      param="opacity"),
    P("shadowRadius", "CALayer", "Double", visuals("shadowRadius", "3"), default="3", animatable=True,
      doc="Blur radius of the shadow (default 3).", param="radius"),
    P("shadowOffset", "CALayer", "CGSize", visuals("shadowOffset", "CGSize(width: 0, height: -3)"),
      default="CGSize(width: 0, height: -3)", animatable=True, doc="Offset of the shadow (default (0, -3)).",
      param="offset"),
    P("shadowColor", "CALayer", "CGColor", visuals_object("shadowColor", "Color.opaqueBlack"), default="Color.opaqueBlack",
      animatable=True, doc="The shadow colour (default opaque black). Borrowed.",
      pydoc="The shadow colour (default opaque black).", param="color"),
    P("shadowPath", "CALayer", "object", visuals("shadowPath", "nil"), default="nil", animatable=True,
      setter="kvc", accepts=["object:Path"],
      doc="The shadow's shape, or NULL (default: the layer's alpha). Borrowed.",
      setdoc="Sets the shadow's shape. A mutable path is copied (later changes to it do not reach the layer); "
             "an immutable one is retained. NULL removes it.",
      c_get="readLayer(layer, nil) { l in (l.visuals?.shadowPath).map { OpaquePointer(Unmanaged.passUnretained($0).toOpaque()) } }",
      c_set="var v: Value?\nif let path {\n    guard let p = object(path, as: Path.self) else { return }\n"
            "    v = Value(.object(p.isMutable ? Path(p.data, mutable: false) : p))\n}\n"
            "setLayerValue(layer, .shadowPath, v)",
      kvc_store="guard let o = r.object(), o == nil || o! is Path else { return r.fail(\"a path\") }\n"
                "// Keep an immutable snapshot: later edits of a mutable path must not reach the layer.\n"
                "if let p = o as? Path, p.isMutable { l.ensureVisuals.shadowPath = Path(p.data, mutable: false) } "
                "else { l.ensureVisuals.shadowPath = o }",
      pykind="custom", param="path", ctype="QZCGPathRef?"),
    P("opaque", "CALayer", "Bool", flag("opaque"), default="false",
      doc="Whether the layer declares itself fully opaque (default false).",
      pydoc="Whether the layer declares itself fully opaque (default False)."),
    P("edgeAntialiasingMask", "CALayer", "UInt32", visuals("edgeAntialiasingMask", "15"), default="15",
      doc="Which edges are antialiased (kCALayerLeftEdge | ... ; default all four).",
      setdoc="Sets which edges are antialiased (a combination of the kCALayer*Edge bits).",
      kvc_store="guard let n = r.number(), n >= 0, n <= Double(UInt32.max) else { return r.numberFail() }\n"
                "l.ensureVisuals.edgeAntialiasingMask = UInt32(n)",
      pykind="custom", param="mask"),
    P("geometryFlipped", "CALayer", "Bool", flag("geometryFlipped"), default="false",
      doc="Whether the geometry of the sublayers is flipped vertically (default false).", param="flipped",
      pydoc="Whether the sublayers' geometry is flipped vertically (default False)."),
    P("needsDisplayOnBoundsChange", "CALayer", "Bool", flag("needsDisplayOnBoundsChange"), default="false",
      doc="Whether a bounds change calls setNeedsDisplay (default false).", param="on",
      pydoc="Whether a bounds change marks the layer for display (default False)."),
    P("shouldRasterize", "CALayer", "Bool", flag("shouldRasterize"), default="false",
      doc="Whether the layer is rendered into a cached bitmap (default false).", param="on",
      pydoc="Whether the layer is rendered into a cached bitmap (default False)."),
    P("rasterizationScale", "CALayer", "Double", visuals("rasterizationScale", "1"), default="1", animatable=True,
      doc="Scale of the rasterized bitmap when shouldRasterize is set (default 1).",
      pydoc="Scale of the rasterized bitmap (default 1).", param="scale"),
    P("filters", "CALayer", "value", visuals("filters", "nil"), default=None, animatable=True, setter="kvc",
      accepts=["array"],
      kvc_store="guard LayerFilter.parse(r.v, key: \"filters\", function: r.function, report: true) != nil else { return .failed }\n"
                "l.ensureVisuals.filters = r.v",
      doc="Filters applied to the layer and its sublayers before compositing (default NULL): an array of "
          "dictionaries naming a Core Image filter under \"name\" (CIGaussianBlur, CIColorMatrix, "
          "CIColorControls) with its inputs, or of name strings. A dictionary whose type is under "
          "\"CIAttributeFilterName\" is named by its \"name\" for key paths such as "
          "\"filters.blur.inputRadius\" (CALayerSetNumberForKeyPath, animations). An unknown name records "
          "QZErrorUnknownConstant, a wrong type QZErrorWrongType, a NaN input QZErrorNotFinite; the value "
          "is kept as given. Borrowed.",
      pydoc="Filters applied to the layer and its sublayers: a list of dicts such as "
            "{'name': 'CIGaussianBlur', 'inputRadius': 4} (default None)."),
    P("backgroundFilters", "CALayer", "value", visuals("backgroundFilters", "nil"), default=None, animatable=True,
      setter="kvc", accepts=["array"], param="filters",
      kvc_store="guard LayerFilter.parse(r.v, key: \"backgroundFilters\", function: r.function, report: true) != nil else { return .failed }\n"
                "l.ensureVisuals.backgroundFilters = r.v",
      doc="Filters applied to what lies behind the layer, within its (rounded) bounds, before the layer "
          "draws (default NULL); the same filter values and errors as filters. Borrowed.",
      pydoc="Filters applied to what lies behind the layer, within its rounded bounds: a list of dicts "
            "as for filters (default None)."),
    P("compositingFilter", "CALayer", "value", visuals("compositingFilter", "nil"), default=None, animatable=True,
      setter="kvc", accepts=["string", "dictionary"], param="filter",
      kvc_store="guard CompositingMode.validate(r.v, key: \"compositingFilter\", function: r.function) else { return .failed }\n"
                "l.ensureVisuals.compositingFilter = r.v",
      doc="The compositing filter (default NULL: source-over): a blend mode or operator name string "
          "(\"multiplyBlendMode\", \"CIScreenBlendMode\", \"sourceIn\", ...) or a dictionary with such a "
          "\"name\". An unknown name records QZErrorUnknownConstant and changes nothing. Borrowed.",
      pydoc="The compositing filter: a name such as 'multiplyBlendMode' (default None: source-over)."),
    P("style", "CALayer", "value", visuals("style", "nil"), default="nil", style=False, setter="kvc",
      kvc_store="if let v = r.v, v.type != CAValueTypeDictionary { return r.fail(\"a dictionary\") }\n"
                "l.ensureVisuals.style = r.v",
      doc="The style dictionary: values for properties not set explicitly, searched through nested \"style\" "
          "entries (default NULL). Borrowed.",
      pydoc="The style dictionary: values for properties not set explicitly, searched through nested \"style\" "
            "entries, shallowest first (default None). They are the layer's values for every reader: getters, "
            "presentation, rendering, hit testing, animations."),
    P("name", "CALayer", "name", visuals("name", "nil"), default="nil", setter="kvc",
      doc="The layer's name (default NULL). Borrowed.",
      kvc_store="if let v = r.v, v.string == nil { return r.fail(\"a string\") }\n"
                "l.ensureVisuals.name = r.v.flatMap { (x: Value) -> CString? in if case .string(let s) = x.storage { return s } else { return nil } }",
      pydoc="The layer's name, or None (default)."),
    P("actions", "CALayer", "value", visuals("actions", "nil"), default="nil", setter="kvc", accepts=["dictionary"],
      kvc_store="if let v = r.v, v.type != CAValueTypeDictionary { return r.fail(\"a dictionary\") }\n"
                "l.ensureVisuals.actions = r.v",
      doc="The actions dictionary (key -> action object value; default NULL). Borrowed.",
      pydoc="The actions dictionary (key -> action), or None (default)."),
    P("sublayers", "CALayer", "sublayers", custom("l.sublayers", ""), default="nil", animatable=True, style=False,
      setter="kvc", accepts=[],
      kvc_store="var layers: [Layer] = []\nif let v = r.v {\n"
                "    guard case .array(let items) = v.storage else { return r.fail(\"an array of layers\") }\n"
                "    for item in items {\n"
                "        guard case .object(let o) = item.storage, let sub = o as? Layer else { return r.fail(\"an array of layers\") }\n"
                "        layers.append(sub)\n    }\n}\nreturn .finished(l.setSublayers(layers, function: r.function))",
      doc="The sublayers (key-value coding only: see CALayerGetSublayerCount and CALayerSetSublayers)."),

    # MARK: CAMediaTiming
    P("beginTime", "CALayer", "CFTimeInterval", timing("beginTime", "0"), default="0",
      doc="Start of the layer's time space in its parent's (default 0).",
      pydoc="Start of the layer's time in its parent's (default 0).", param="t"),
    P("duration", "CALayer", "CFTimeInterval", timing("duration", ".infinity"), default=".infinity", check="number",
      doc="Duration of one pass through the layer's time (default infinite, as observed on Apple's QuartzCore; "
          "where the reference gives 0, Apple's behaviour wins). A finite duration makes the layer's time cycle "
          "like an animation's: its sublayers' and its own animations replay repeatCount times (or for "
          "repeatDuration), backwards on the way back when it autoreverses, and fillMode says what they show "
          "outside its active interval.",
      pydoc="Duration of one pass through the layer's time (default math.inf, as observed on Apple's QuartzCore). "
            "A finite duration makes the layer's time cycle like an animation's: its own and its sublayers' "
            "animations replay repeat_count times (or for repeat_duration), backwards on the way back with "
            "autoreverses; fill_mode says what shows outside its active interval.", param="t"),
    P("speed", "CALayer", "Float", timing("speed", "1"), default="1",
      doc="Rate of the layer's time relative to its parent's (default 1; 0 pauses).",
      pydoc="Rate of the layer's time relative to its parent's (default 1; a float)."),
    P("timeOffset", "CALayer", "CFTimeInterval", timing("timeOffset", "0"), default="0",
      doc="Offset added to the layer's local time (default 0).",
      pydoc="Offset added to the local time (default 0).", param="t"),
    P("repeatCount", "CALayer", "Float", timing("repeatCount", "0"), default="0", check="number",
      doc="Repeat count of the layer's cycle (default 0: once; HUGE_VALF repeats forever; used with a finite "
          "duration).",
      pydoc="Repeat count (default 0; math.inf repeats forever; a float).", param="count"),
    P("repeatDuration", "CALayer", "CFTimeInterval", timing("repeatDuration", "0"), default="0", check="number",
      doc="Repeat duration: the length of the layer's active interval (default 0: repeatCount decides).",
      pydoc="Length of the layer's active interval (default 0: repeat_count decides).", param="t"),
    P("autoreverses", "CALayer", "Bool", timing("autoreverses", "false"), default="false",
      doc="Whether each cycle of the layer's time plays backwards after forwards (default false; used with a "
          "finite duration).",
      pydoc="Whether each cycle plays backwards after forwards (default False).", param="on"),
    P("fillMode", "CALayer", "constant", timing("fillMode", "0"), default="0", cset="fillMode", setter="kvc",
      doc="Fill mode of the layer's time outside its active interval: kCAFillModeRemoved (default: no time "
          "there, so the animations in it have no effect), Forwards, Backwards or Both.",
      pydoc="Fill mode of the layer's time outside its active interval (default \"removed\": the animations in "
            "it have no effect there; kCAFillMode* values).", param="mode"),

    # MARK: CAScrollLayer
    P("scrollMode", "CAScrollLayer", "constant", inline("scrollMode"), default="0", cset="scrollMode", setter="kvc",
      doc="Which directions a CAScrollLayer scrolls: kCAScrollBoth (default), None, Vertically or Horizontally.",
      param="mode"),

    # MARK: CATextLayer
    P("string", "CATextLayer", "value", text("string", "nil"), default=None, animatable=True, setter="kvc",
      accepts=["string", "array", "object:AttributedText"], redraws_text=True,
      doc="The text (default NULL): a string value (UTF-8; invalid sequences are drawn as U+FFFD), or an "
          "attributed string (a CFAttributedStringRef, given directly or as an object value; the layer keeps an "
          "immutable copy, read back as an object value), whose fonts and colours replace `font`, `fontSize` and "
          "`foregroundColor`. Changing it redraws the layer at the next commit. Borrowed.",
      setdoc="Sets the text: a string value, a CFAttributedStringRef or an object value holding one (a mutable "
             "attributed string is copied), or NULL. Another handle records QZErrorWrongType. A layer that is not "
             "a CATextLayer records QZErrorWrongType.",
      c_set="let v = textPropertyValue(string, #function)\nif v.ok { setLayerValue(layer, .string, v.value, #function) }",
      kvc_store="// Kept as an immutable copy: later edits of a mutable attributed\n"
                "// string do not reach the layer (Apple's property is copy).\n"
                "if let v = r.v, case .object(let t as AttributedText) = v.storage, t.isMutable {\n"
                "    l.text?.string = Value(.object(AttributedText(copyOf: t, mutable: false)))\n"
                "} else {\n    l.text?.string = r.v\n}",
      pykind="custom"),
    P("font", "CATextLayer", "value", text("font", "nil"), default=None, initial="TextLayerState.defaultFont",
      setter="kvc", accepts=["string", "object:Font"], redraws_text=True,
      doc="The font: a font-name string value (default \"Helvetica\", Apple's default face: a new text layer has "
          "a font, not NULL, as observed on Apple's QuartzCore; setting NULL clears it and draws in Helvetica): "
          "\"Helvetica\", \"Helvetica-Bold\", \"Menlo\", a fontconfig family or a PostScript name (unknown names "
          "draw in Helvetica), or a CTFontRef (given directly or as an object value) whose size is ignored, as the "
          "reference says. Borrowed.",
      setdoc="Sets the font: a font-name string value, a CTFontRef or an object value holding one, or NULL. "
             "Another handle records QZErrorWrongType. A layer that is not a CATextLayer records QZErrorWrongType.",
      c_set="let v = textPropertyValue(font, #function)\nif v.ok { setLayerValue(layer, .font, v.value, #function) }",
      pydoc="The font: a name (\"Helvetica-Bold\", \"Menlo\", ...) or a quartzite.Font (its size is ignored), or "
            "None (default: Helvetica)."),
    P("fontSize", "CATextLayer", "Double", text("fontSize", "36"), default="36", animatable=True, setter="kvc",
      redraws_text=True,
      doc="Font size in points (default 36; animatable). Zero or negative sizes draw nothing; sizes above 4096 "
          "draw at 4096; NaN and infinities are QZErrorNotFinite.",
      pydoc="Font size in points (default 36; animatable).", param="size"),
    P("foregroundColor", "CATextLayer", "CGColor", text("foregroundColor", "nil"), default="Color.opaqueWhite",
      animatable=True, setter="kvc", redraws_text=True,
      doc="Text colour (default opaque white; animatable; NULL draws nothing). Unused for attributed strings. "
          "Borrowed.",
      pydoc="The text colour (default opaque white; animatable).", param="color"),
    P("wrapped", "CATextLayer", "Bool", text("wrapped", "false"), default="false", setter="kvc",
      redraws_text=True,
      doc="Whether the text wraps at the bounds' width, between words and, for words longer than a line, between "
          "characters (default false).",
      pydoc="Whether the text wraps at the bounds' width (default False)."),
    P("alignmentMode", "CATextLayer", "constant", text("alignmentMode", "0"), default="0", cset="alignment",
      setter="kvc", redraws_text=True,
      doc="Horizontal alignment of each line in the bounds: kCAAlignmentNatural (default: left for left-to-right "
          "paragraphs, right for right-to-left ones), Left, Right, Center or Justified (wrapped lines but a "
          "paragraph's last fill the width).",
      pydoc='Horizontal alignment (default "natural"; kCAAlignment* values).', param="mode"),
    P("truncationMode", "CATextLayer", "constant", text("truncationMode", "0"), default="0", cset="truncation",
      setter="kvc", redraws_text=True,
      doc="Truncation: kCATruncationNone (default: text past the bounds is clipped), Start, End or Middle: text "
          "that does not fit the bounds' width is replaced by \"\u2026\" at that place (wrapped text: in the last "
          "line that fits the bounds' height).",
      pydoc='Truncation with "\u2026" (default "none"; kCATruncation* values).', param="mode"),

    # MARK: CATiledLayer
    P("levelsOfDetail", "CATiledLayer", "Int", tiled("levelsOfDetail", "1"), default="1", setter="kvc",
      check="guard n >= 0, n < 1e9", doc="Number of levels of detail (default 1).", param="levels"),
    P("levelsOfDetailBias", "CATiledLayer", "Int", tiled("levelsOfDetailBias", "0"), default="0", setter="kvc",
      check="guard n >= 0, n < 1e9", doc="Number of magnified levels of detail (default 0).", param="bias"),
    P("tileSize", "CATiledLayer", "CGSize", tiled("tileSize", "CGSize(width: 256, height: 256)"),
      default="CGSize(width: 256, height: 256)", setter="kvc",
      kvc_store="guard let s = r.size(), s.width.isFinite, s.height.isFinite else { return r.fail(\"a finite size\") }\n"
                "guard s.width > 0, s.height > 0 else {\n"
                "    recordError(QZErrorInvalidArgument, r.function, \"tileSize must be positive, got \\(s.width) x \\(s.height)\")\n"
                "    return .failed\n}\nl.tiled?.tileSize = s",
      doc="Tile size in pixels (default 256 x 256).", param="size"),
    # MARK: CAGradientLayer
    P("colors", "CAGradientLayer", "value", gradient("colors", "nil"), default="nil", animatable=True,
      setter="kvc", accepts=["array"], param="colors",
      doc="The gradient's colours (an array value of colours, first at startPoint; default NULL: nothing is "
          "drawn). Animatable: arrays of the same length animate colour by colour. Borrowed: valid until the "
          "property next changes.",
      setdoc="Sets the colours: an array value of colour values (CAValueCreateColor), retained; NULL clears them "
             "(nothing is drawn). A value that is not an array of colours records QZErrorWrongType and changes "
             "nothing. When locations has another count the colours are spread evenly until it matches. A layer "
             "that is not a CAGradientLayer records QZErrorWrongType.",
      kvc_store="if let v = r.v, GradientLayerState.colorList(v) == nil { return r.fail(\"an array of colours\") }\n"
                "l.gradient?.colors = r.v",
      pydoc="The colours (a list of Color), or None (default: nothing drawn); animatable."),
    P("locations", "CAGradientLayer", "value", gradient("locations", "nil"), default="nil", animatable=True,
      setter="kvc", accepts=["array"], param="locations",
      doc="Where each colour stops, from 0 (startPoint) to 1 (endPoint): an array value of numbers, one per "
          "colour (default NULL: spread evenly). Animatable. Borrowed: valid until the property next changes.",
      setdoc="Sets the stop locations: an array value of numbers (clamped to 0...1 and made non-decreasing when "
             "drawn), retained; NULL spreads the colours evenly. A value that is not an array of numbers records "
             "QZErrorWrongType, a NaN or infinite location QZErrorNotFinite, and a count other than the colours' "
             "(when colours are set) QZErrorInvalidArgument; each changes nothing. A layer that is not a "
             "CAGradientLayer records QZErrorWrongType.",
      kvc_store="if let v = r.v {\n"
                "    guard let n = GradientLayerState.numberList(v) else { return r.fail(\"an array of numbers\") }\n"
                "    guard n.finite else {\n"
                "        recordError(QZErrorNotFinite, r.function, \"locations must be finite numbers\")\n"
                "        return .failed\n    }\n"
                "    if let c = l.gradient?.colors, let colors = GradientLayerState.colorList(c), colors.count != n.list.count {\n"
                "        recordError(QZErrorInvalidArgument, r.function,\n"
                "                    \"\\(n.list.count) locations for \\(colors.count) colours (set the colours first)\")\n"
                "        return .failed\n    }\n"
                "}\n"
                "l.gradient?.locations = r.v",
      pydoc="The stop locations (a list of numbers in [0, 1], one per colour), or None (default: even); "
            "animatable."),
    P("startPoint", "CAGradientLayer", "CGPoint", gradient("startPoint", "CGPoint(x: 0.5, y: 0)"),
      default="CGPoint(x: 0.5, y: 0)", animatable=True, setter="kvc", param="point",
      doc="Where the gradient starts, in the unit square of the bounds (default (0.5, 0): the top edge's "
          "middle); the centre of radial and conic gradients."),
    P("endPoint", "CAGradientLayer", "CGPoint", gradient("endPoint", "CGPoint(x: 0.5, y: 1)"),
      default="CGPoint(x: 0.5, y: 1)", animatable=True, setter="kvc", param="point",
      doc="Where the gradient ends, in the unit square of the bounds (default (0.5, 1): the bottom edge's "
          "middle); for a radial gradient the corner of the ellipse's bounding box, for a conic one the direction "
          "of its first colour."),
    P("type", "CAGradientLayer", "constant", gradient("type", "0"), default="0", cset="gradientType",
      setter="kvc", param="type",
      doc="kCAGradientLayerAxial (default: along the line from startPoint to endPoint), Radial (an ellipse "
          "centred on startPoint through endPoint) or Conic (around startPoint, starting towards endPoint, "
          "clockwise on screen). Borrowed static string.",
      pydoc='The gradient type: "axial" (default), "radial" or "conic" (kCAGradientLayer* values).'),
    # MARK: CAShapeLayer
    P("path", "CAShapeLayer", "object", shape("path", "nil"), default="nil", animatable=True,
      setter="kvc", accepts=["object:Path"],
      doc="The shape's path, in the layer's coordinates, or NULL (default: nothing drawn). Animatable: paths with "
          "the same elements animate point by point, others switch half-way. Borrowed.",
      setdoc="Sets the path. A mutable path is copied (later changes to it do not reach the layer); an immutable "
             "one is retained. NULL removes it. A layer that is not a CAShapeLayer records QZErrorWrongType.",
      c_get="readSubclassLayer(layer, .shape, nil) { l in (l.shape?.path).map { OpaquePointer(Unmanaged.passUnretained($0).toOpaque()) } }",
      c_set="var v: Value?\nif let path {\n    guard let p = object(path, as: Path.self) else { return }\n"
            "    v = Value(.object(p.isMutable ? Path(p.data, mutable: false) : p))\n}\n"
            "setLayerValue(layer, .path, v)",
      kvc_store="guard let o = r.object(), o == nil || o! is Path else { return r.fail(\"a path\") }\n"
                "// Keep an immutable snapshot: later edits of a mutable path must not reach the layer.\n"
                "if let p = o as? Path, p.isMutable { l.shape?.path = Path(p.data, mutable: false) } "
                "else { l.shape?.path = o as? Path }",
      pykind="custom", param="path", ctype="QZCGPathRef?"),
    P("fillColor", "CAShapeLayer", "CGColor", shape("fillColor", "nil"), default="Color.opaqueBlack",
      animatable=True, setter="kvc", param="color",
      doc="The colour inside the path (default opaque black; NULL: not filled). Borrowed.",
      pydoc="The fill colour (default opaque black), or None."),
    P("fillRule", "CAShapeLayer", "constant", shape("fillRule", "0"), default="0", cset="fillRule", setter="kvc",
      param="rule",
      doc="Which points are inside the path: kCAFillRuleNonZero (default) or kCAFillRuleEvenOdd. Borrowed static "
          "string.",
      pydoc='The fill rule: "non-zero" (default) or "even-odd" (kCAFillRule* values).'),
    P("strokeColor", "CAShapeLayer", "CGColor", shape("strokeColor", "nil"), default="nil", animatable=True,
      setter="kvc", param="color",
      doc="The colour of the path's outline (default NULL: not stroked). Borrowed.",
      pydoc="The stroke colour, or None (default: not stroked)."),
    P("strokeStart", "CAShapeLayer", "Double", shape("strokeStart", "0"), default="0", animatable=True,
      setter="kvc", param="value",
      doc="Where the stroke starts, as a fraction of the path's length (default 0); with strokeEnd it strokes "
          "part of the path. Values are clamped to 0...1 when drawn."),
    P("strokeEnd", "CAShapeLayer", "Double", shape("strokeEnd", "1"), default="1", animatable=True,
      setter="kvc", param="value",
      doc="Where the stroke ends, as a fraction of the path's length (default 1). Animating it from 0 to 1 draws "
          "the outline; nothing is stroked when it is at or before strokeStart."),
    P("lineWidth", "CAShapeLayer", "Double", shape("lineWidth", "1"), default="1", animatable=True, setter="kvc",
      param="width", doc="The width of the stroke (default 1; 0 or less: not stroked)."),
    P("miterLimit", "CAShapeLayer", "Double", shape("miterLimit", "10"), default="10", animatable=True,
      setter="kvc", param="limit",
      doc="The miter limit of kCALineJoinMiter joins (default 10): sharper joins are bevelled."),
    P("lineCap", "CAShapeLayer", "constant", shape("lineCap", "0"), default="0", cset="lineCap", setter="kvc",
      param="cap",
      doc="The ends of the stroke: kCALineCapButt (default), Round or Square. Borrowed static string.",
      pydoc='The line cap: "butt" (default), "round" or "square" (kCALineCap* values).'),
    P("lineJoin", "CAShapeLayer", "constant", shape("lineJoin", "0"), default="0", cset="lineJoin", setter="kvc",
      param="join",
      doc="The corners of the stroke: kCALineJoinMiter (default), Round or Bevel. Borrowed static string.",
      pydoc='The line join: "miter" (default), "round" or "bevel" (kCALineJoin* values).'),
    P("lineDashPhase", "CAShapeLayer", "Double", shape("lineDashPhase", "0"), default="0", animatable=True,
      setter="kvc", param="phase", doc="How far into the dash pattern the stroke starts (default 0)."),
    P("lineDashPattern", "CAShapeLayer", "value", shape("lineDashPattern", "nil"), default="nil", setter="kvc",
      accepts=["array"], param="pattern",
      doc="The dash pattern: an array value of lengths, painted and unpainted alternately (default NULL: solid). "
          "Borrowed: valid until the property next changes.",
      setdoc="Sets the dash pattern: an array value of non-negative numbers, retained; NULL (or an array whose "
             "lengths are all 0) draws a solid line. A value that is not an array of numbers records "
             "QZErrorWrongType, a NaN, infinite or negative length QZErrorInvalidArgument; each changes nothing. "
             "A layer that is not a CAShapeLayer records QZErrorWrongType.",
      kvc_store="if let v = r.v {\n"
                "    guard let n = GradientLayerState.numberList(v) else { return r.fail(\"an array of numbers\") }\n"
                "    guard n.finite, n.list.allSatisfy({ $0 >= 0 }) else {\n"
                "        recordError(QZErrorInvalidArgument, r.function, \"dash lengths must be finite and not negative\")\n"
                "        return .failed\n    }\n"
                "}\n"
                "l.shape?.lineDashPattern = r.v",
      pydoc="The dash lengths (a list of numbers), or None (default: solid)."),
    # MARK: CAReplicatorLayer
    P("instanceCount", "CAReplicatorLayer", "Long", replicator("instanceCount", "1"), default="1", animatable=True,
      setter="kvc", param="count", check="guard n >= 0, n < 1e9",
      doc="How many times the sublayers are drawn, the first instance included (default 1: no extra copies; 0: "
          "none). Instances are drawn by the renderers, not added to the tree; at most 10,000 are drawn.",
      pydoc="How many times the sublayers are drawn, the first included (default 1); animatable."),
    P("preservesDepth", "CAReplicatorLayer", "Bool", replicator("preservesDepth", "false"), default="false",
      setter="kvc", param="preserves",
      doc="Whether the instances keep their depth (default false: drawn in instance order). When set, the "
          "instances are drawn back to front by the z their instance transforms give the replicator's centre; "
          "each instance is still flattened into the replicator's plane.",
      pydoc="Whether instances are drawn back to front by their z (default False)."),
    P("instanceDelay", "CAReplicatorLayer", "CFTimeInterval", replicator("instanceDelay", "0"), default="0",
      animatable=True, setter="kvc", param="delay",
      doc="The time offset between instances, in seconds (default 0): instance k shows its sublayers' "
          "animations k x instanceDelay later (their time is the replicator's time minus k x instanceDelay)."),
    P("instanceTransform", "CAReplicatorLayer", "CATransform3D", replicator("instanceTransform", ".identity"),
      default=".identity", animatable=True, setter="kvc", param="transform",
      doc="The transform that takes instance k-1 to instance k (default identity), applied about the centre of "
          "the replicator's bounds: instance k is moved by it k times."),
    P("instanceColor", "CAReplicatorLayer", "CGColor", replicator("instanceColor", "nil"),
      default="Color.opaqueWhite", animatable=True, setter="kvc", param="color",
      doc="The colour the first instance is multiplied by (default opaque white: unchanged; NULL: as white). "
          "Borrowed.",
      pydoc="The colour the first instance is multiplied by (default opaque white), or None."),
    P("instanceRedOffset", "CAReplicatorLayer", "Float", replicator("instanceRedOffset", "0"), default="0",
      animatable=True, setter="kvc", param="offset",
      doc="Added to the red component of instance k-1's colour to give instance k's (default 0); components "
          "are clamped to 0...1."),
    P("instanceGreenOffset", "CAReplicatorLayer", "Float", replicator("instanceGreenOffset", "0"), default="0",
      animatable=True, setter="kvc", param="offset",
      doc="Added to the green component of instance k-1's colour to give instance k's (default 0)."),
    P("instanceBlueOffset", "CAReplicatorLayer", "Float", replicator("instanceBlueOffset", "0"), default="0",
      animatable=True, setter="kvc", param="offset",
      doc="Added to the blue component of instance k-1's colour to give instance k's (default 0)."),
    P("instanceAlphaOffset", "CAReplicatorLayer", "Float", replicator("instanceAlphaOffset", "0"), default="0",
      animatable=True, setter="kvc", param="offset",
      doc="Added to the alpha of instance k-1's colour to give instance k's (default 0): a negative offset "
          "fades the later instances."),
    # MARK: CAEmitterLayer (the cells: CAEmitterLayerSetEmitterCells, hand-written)
    P("birthRate", "CAEmitterLayer", "Float", emitter("birthRate", "1"), default="1", animatable=True, setter="kvc",
      param="rate",
      doc="Multiplies every cell's birthRate (default 1; 0 or less: no new particles)."),
    P("lifetime", "CAEmitterLayer", "Float", emitter("lifetime", "1"), default="1", animatable=True, setter="kvc",
      param="lifetime", doc="Multiplies every cell's lifetime (default 1)."),
    P("emitterPosition", "CAEmitterLayer", "CGPoint", emitter("emitterPosition", ORIGIN), default=ORIGIN,
      animatable=True, setter="kvc", param="position",
      doc="The centre of the emitter's shape in the layer's coordinates (default (0, 0))."),
    P("emitterZPosition", "CAEmitterLayer", "Double", emitter("emitterZPosition", "0"), default="0",
      animatable=True, setter="kvc", param="z", doc="The z of the emitter's centre (default 0)."),
    P("emitterSize", "CAEmitterLayer", "CGSize", emitter("emitterSize", "CGSize(width: 0, height: 0)"),
      default="CGSize(width: 0, height: 0)", animatable=True, setter="kvc", param="size",
      doc="The size of the emitter's shape (default 0 x 0): a line's length, a rectangle's sides, a circle's "
          "or sphere's diameter (the width)."),
    P("emitterDepth", "CAEmitterLayer", "Double", emitter("emitterDepth", "0"), default="0", animatable=True,
      setter="kvc", param="depth", doc="The depth of a cuboid emitter (default 0)."),
    P("emitterShape", "CAEmitterLayer", "constant", emitter("emitterShape", "0"), default="0", cset="emitterShape",
      setter="kvc", param="shape",
      doc="Where particles start: kCAEmitterLayerPoint (default), Line, Rectangle, Cuboid, Circle or Sphere. "
          "Borrowed static string.",
      pydoc='The emitter shape: "point" (default), "line", "rectangle", "cuboid", "circle" or "sphere".'),
    P("emitterMode", "CAEmitterLayer", "constant", emitter("emitterMode", "3"), default="3", cset="emitterMode",
      setter="kvc", param="mode",
      doc="Which part of the shape emits: kCAEmitterLayerPoints, Outline, Surface or Volume (default). "
          "Borrowed static string.",
      pydoc='The emitter mode: "points", "outline", "surface" or "volume" (default).'),
    P("renderMode", "CAEmitterLayer", "constant", emitter("renderMode", "0"), default="0", cset="renderMode",
      setter="kvc", param="mode",
      doc="How particles are drawn: kCAEmitterLayerUnordered (default: by cell, then birth), OldestFirst, "
          "OldestLast, BackToFront (by z) or Additive (colours added to what lies below). Borrowed static string.",
      pydoc='The render mode: "unordered" (default), "oldestFirst", "oldestLast", "backToFront" or "additive".'),
    P("velocity", "CAEmitterLayer", "Float", emitter("velocity", "1"), default="1", animatable=True, setter="kvc",
      param="velocity", doc="Multiplies every cell's velocity (default 1)."),
    P("scale", "CAEmitterLayer", "Float", emitter("scale", "1"), default="1", animatable=True, setter="kvc",
      param="scale", doc="Multiplies every particle's scale (default 1)."),
    P("spin", "CAEmitterLayer", "Float", emitter("spin", "1"), default="1", animatable=True, setter="kvc",
      param="spin", doc="Multiplies every cell's spin (default 1)."),
    P("seed", "CAEmitterLayer", "UInt32", emitter("seed", "0"), default="0", setter="kvc", param="seed",
      kvc_store="guard let n = r.number(), n >= 0, n <= Double(UInt32.max) else { return r.numberFail() }\n"
                "l.emitter?.seed = UInt32(n)",
      c_set="setLayerValue(layer, .seed, Value(.number(Double(seed))))",
      doc="The seed of the particles' random values (default 0): the same seed gives the same particles at the "
          "same time."),
    # MARK: CAEAGLLayer (EAGLDrawable)
    P("drawableProperties", "CAEAGLLayer", "value", eagl("properties", "nil"), default="EAGLLayerState.defaultProperties",
      setter="kvc", accepts=["dictionary"], param="properties",
      doc="The drawable properties (a dictionary value; NULL when set to NULL). Borrowed: valid until the "
          "property next changes.",
      setdoc="Sets the drawable properties: a dictionary with kEAGLDrawablePropertyRetainedBacking (a bool) and "
             "kEAGLDrawablePropertyColorFormat (kEAGLColorFormatRGBA8 or kEAGLColorFormatRGB565); missing keys take "
             "those defaults, NULL means all defaults. The dictionary is retained and read when storage is next made "
             "(QZEAGLContextRenderbufferStorageFromDrawable), which reports bad values. QZErrorWrongType for a value "
             "that is not a dictionary or a layer that is not a CAEAGLLayer.",
      c_get="readSubclassLayer(layer, .eagl, nil) { l in l.eagl?.properties.map(borrowedHandle) }",
      c_set="var v: Value?\nif let properties { guard let o = object(properties, as: Value.self) else { return }; v = o }\n"
            "setLayerValue(layer, .drawableProperties, v)",
      kvc_store="// Stored as given (Apple's copy property); read when storage is made.\n"
                "if let v = r.v, v.type != CAValueTypeDictionary { return r.fail(\"a dictionary\") }\n"
                "l.eagl?.properties = r.v",
      pydoc="The drawable properties (a dict; default: not retained, RGBA8), or None."),
]

# Functions exported beside the table's (not keys of their own), after the
# row named first: (after, Swift source).
EXTRA_EXPORTS = [
    ("sublayerTransform", '''/// The transform as an affine transform, or the identity when the transform
/// is not affine (a z scale, a rotation about x or y, a z translation,
/// perspective): Apple's QuartzCore was observed to answer so, and where the
/// reference speaks of the affine transform that best represents the
/// transform, Apple's behaviour wins.
/// CATransform3DGetAffineTransform still gives the affine part.
@c public func CALayerGetAffineTransform(_ layer: CALayerRef?) -> CGAffineTransform {
    readLayer(layer, .identity) { l in
        let t = l.transform
        return t.isAffine ? t.affine : .identity
    }
}

/// Sets the transform from an affine transform. A non-finite entry records
/// QZErrorNotFinite and changes nothing.
@c public func CALayerSetAffineTransform(_ layer: CALayerRef?, _ transform: CGAffineTransform) {
    guard checkAffine(transform, #function) else { return }
    writeLayer(layer) { $0.set(affineTransform: transform) }
}'''),
    ("tileSize", '''/// Apple's +[CATiledLayer fadeDuration]: 0.25 s.
@c public func CATiledLayerGetFadeDuration() -> CFTimeInterval { 0.25 }'''),
]

# MARK: - Generation helpers

GENERATED = "GENERATED by scripts/generate-layer-properties.py from its property table; do not edit."


def swift_doc(text, width=96):
    return "\n".join("/// " + line for line in textwrap.wrap(text, width))


def indent(code, n):
    pad = " " * n
    return "\n".join(pad + line if line.strip() else "" for line in code.split("\n"))


def with_l(expr, value=None):
    """Storage snippets use `l` for the layer and `$V` for the new value."""
    return expr.replace("$V", value) if value is not None else expr


def read_expr(p):
    s = p.store
    if s.get("default") == "nil" and "optional_read" in s:
        return s["optional_read"]
    return s["read"]


def box(p, expr):
    return p.type.box.replace("$X", expr).replace("$SET", p.cset or "")


def default_value(p):
    """+defaultValueForKey: as a boxed Value? expression."""
    if p.default is None or p.default == "nil":
        return "nil"
    t = p.type.name
    if t == "CGColor":
        return f"Value(.color({p.default}))"
    if t == "constant":
        return f"Value(string: ConstantSet.{p.cset}.name({p.default}))"
    return box(p, p.default)


def c_fallback(p):
    if p.default is not None and p.default != "nil" and p.type.name in (
            "Double", "CFTimeInterval", "Float", "UInt32", "Int", "Long", "Bool", "CGPoint", "CGSize", "CGRect", "CATransform3D"):
        return p.default
    return p.type.c_fallback


def c_name(p, verb):
    return f"{p.cls}{verb}{p.c_suffix}"


# MARK: - LayerKey.swift


def gen_layer_key():
    keys = [p.key for p in PROPERTIES]
    out = [f"// {GENERATED}", "import CQuartzite", "import QuartziteCore", "import QuartziteGeometry",
           "import QuartziteVideo", "import QuartziteGraphics", "",
           "/// Every declared property of CALayer and of the built-in subclasses, by its",
           "/// KVC key (the rows of scripts/generate-layer-properties.py). Undeclared",
           "/// keys are custom keys (stored per layer).",
           "public enum LayerKey: Int, CaseIterable, Sendable {"]
    out += textwrap.wrap("case " + ", ".join(keys), 112, initial_indent="    ", subsequent_indent="        ")
    out += ["", "    public var name: String {", "        switch self {"]
    out += [f'        case .{k}: return "{k}"' for k in keys]
    out += ["        }", "    }", "",
            "    package static let byName: [String: LayerKey] = {",
            "        var table: [String: LayerKey] = [:]",
            "        for key in LayerKey.allCases { table[key.name] = key }",
            "        return table",
            "    }()", "",
            "    /// The built-in class that declares the key (subclass keys are custom keys",
            "    /// on layers of other classes).",
            "    package var declaringKind: BuiltinLayerKind {",
            "        switch self {"]
    for kind in ("scroll", "text", "tiled", "eagl", "gradient", "shape", "replicator", "emitter"):
        ks = [p.key for p in PROPERTIES if p.kind == kind]
        out += textwrap.wrap("case " + ", ".join("." + k for k in ks) + f": return .{kind}", 112,
                             initial_indent="        ", subsequent_indent="             ")
    out += ["        default: return .layer", "        }", "    }", "",
            "    /// CATextLayer's properties, whose changes redraw its text.",
            "    package var redrawsText: Bool {", "        switch self {"]
    out += textwrap.wrap("case " + ", ".join("." + p.key for p in PROPERTIES if p.redraws_text) + ": return true", 112,
                         initial_indent="        ", subsequent_indent="             ")
    out += ["        default: return false", "        }", "    }", "",
            "    /// Whether the spec marks the property animatable (used by implicit actions).",
            "    public var isAnimatable: Bool {", "        switch self {"]
    out += textwrap.wrap("case " + ", ".join("." + p.key for p in PROPERTIES if p.animatable) + ":", 112,
                         initial_indent="        ", subsequent_indent="             ")
    out += ["            return true", "        default:", "            return false", "        }", "    }", "",
            "    /// Whether the style dictionary may supply the property (never bounds or",
            "    /// frame, as the spec says, nor the tree's structure or the style itself).",
            "    package var usesStyle: Bool {", "        switch self {"]
    out += textwrap.wrap("case " + ", ".join("." + p.key for p in PROPERTIES if not p.style) + ": return false", 112,
                         initial_indent="        ", subsequent_indent="             ")
    out += ["        default: return true", "        }", "    }", "",
            "    /// Whether `value` has the kind of value this key holds (for the style",
            "    /// dictionary, which is not checked when it is set).",
            "    package func accepts(_ value: Value) -> Bool {",
            "        switch value.storage {"]
    def member(ks, result):
        if not ks:
            return ["            return false"]
        lines = ["            switch self {"]
        lines += textwrap.wrap("case " + ", ".join("." + p.key for p in ks) + ": return " + result, 100,
                               initial_indent="            ", subsequent_indent="                 ")
        return lines + ["            default: return false", "            }"]

    def accepting(*names):
        return [p for p in PROPERTIES if any(n in p.accepts for n in names)]

    out.append("        case .number, .bool:")
    out += member(accepting("number", "bool"), "value.number?.isNaN == false")
    for case, names in (("point", ["point"]), ("size", ["size"]), ("rect", ["rect"]),
                        ("transform3D, .affineTransform", ["transform3D", "affineTransform"]), ("color", ["color"]),
                        ("array", ["array"]), ("dictionary", ["dictionary"])):
        out.append(f"        case .{case}:")
        out += member(accepting(*names), "true")
    out.append("        case .string(let s):")
    out.append("            if let set = ConstantSet.forKey(self) { return set.index(of: s.string) != nil }")
    out += member([p for p in accepting("string") if p.type.name != "constant"], "true")
    out.append("        case .object(let o):")
    conds = [f"self == .{p.key}" for p in accepting("object")]
    for p in PROPERTIES:
        for a in p.accepts:
            if a.startswith("object:"):
                conds.append(f"(self == .{p.key} && o is {a.split(':')[1]})")
    out.append("            return " + (" || ".join(conds) if conds else "false"))
    out += ["        case .null: return false", "        }", "    }", "",
            "    /// The bit recording that the property was set explicitly.",
            "    @inlinable @inline(__always) package var bit: UInt64 { 1 << UInt64(rawValue & 63) }",
            "    @inlinable @inline(__always) package var word: Int { rawValue >> 6 }", "}", "",
            "extension ConstantSet {"]
    for name, (values, consts) in CONSTANT_SETS.items():
        out += textwrap.wrap(f"package static let {name} = ConstantSet(names: [" + ", ".join(f'"{v}"' for v in values) + "])",
                             112, initial_indent="    ", subsequent_indent="                                 ")
        for cname, idx in consts.items():
            out.append(f"    package static let {cname}: UInt8 = {idx}")
    out += ["", "    /// The constant set of a string-valued key.",
            "    package static func forKey(_ key: LayerKey) -> ConstantSet? {", "        switch key {"]
    by_set = {}
    for p in PROPERTIES:
        if p.cset:
            by_set.setdefault(p.cset, []).append(p.key)
    for cset, ks in by_set.items():
        out.append("        case " + ", ".join("." + k for k in ks) + f": return .{cset}")
    out += ["        default: return nil", "        }", "    }", "}", ""]
    return "\n".join(out)


# MARK: - Layer+PropertyStorage.swift


def kvc_store(p):
    if p.kvc_store:
        return p.kvc_store
    t = p.type.name
    w = p.store["write"]
    if t in ("Double", "CFTimeInterval", "Float", "Int", "Long"):
        finite = "" if p.check != "number" else "finite: false"
        code = f"guard let n = r.number({finite}) else {{ return r.numberFail() }}\n"
        if p.check.startswith("guard "):
            code += (f"{p.check} else {{\n    recordError(QZErrorOutOfRange, r.function, "
                     f"\"{p.key} \\(n) is outside 0..<1e9\")\n    return .failed\n}}\n")
        conv = {"Double": "n", "CFTimeInterval": "n", "Float": "Float(n)", "Int": "Int(n)", "Long": "Int(n)"}[t]
        return code + with_l(w, conv)
    if t == "Bool":
        return "guard let b = r.bool() else { return r.fail(\"a bool\") }\n" + with_l(w, "b")
    if t == "CGPoint":
        return "guard let p = r.point(), p.isFinite else { return r.fail(\"a finite point\") }\n" + with_l(w, "p")
    if t == "CGSize":
        return ("guard let s = r.size(), s.width.isFinite, s.height.isFinite else { return r.fail(\"a finite size\") }\n"
                + with_l(w, "s"))
    if t == "CGRect":
        return "guard let rect = r.rect() else { return r.fail(\"a finite rect\") }\n" + with_l(w, "rect")
    if t == "CATransform3D":
        return "guard let t = r.transform() else { return r.fail(\"a finite transform\") }\n" + with_l(w, "t")
    if t == "CGColor":
        return "guard let c = r.color() else { return r.fail(\"a color\") }\n" + with_l(w, "c")
    if t == "constant":
        return (f"guard let i = r.constant(.{p.cset}) else {{ return r.v?.string == nil ? r.fail(\"a string\") : .failed }}\n"
                + with_l(w, "i"))
    if t == "value":
        return with_l(w, "r.v")
    raise SystemExit(f"generate-layer-properties.py: {p.key} needs a kvc_store")


def gen_storage():
    out = [f"// {GENERATED}", "import CQuartzite", "import QuartziteCore", "import QuartziteGeometry",
           "import QuartziteVideo", "import QuartziteGraphics", "",
           "// The model's side of the property table: defaults, and reading and writing",
           "// a declared property as a boxed value (key-value coding, the style",
           "// dictionary, transactions and animations all go through these).", "",
           "extension Layer {",
           "    /// Apple's +defaultValueForKey: for a declared property of the built-in",
           "    /// classes, boxed. As observed on Apple's QuartzCore, bounds, position,",
           "    /// frame, minificationFilterBias, filters, backgroundFilters,",
           "    /// compositingFilter and mask have none (nil), although a new layer's",
           "    /// bounds, position and bias read as zero.",
           "    package static func builtinDefault(_ key: LayerKey, builtin: BuiltinLayerKind) -> Value? {",
           "        switch key {"]
    for p in PROPERTIES:
        out.append(f"        case .{p.key}: return {default_value(p)}")
    out += ["        }", "    }", "",
            "    /// The value a new layer of a built-in class holds (nil for a nil",
            "    /// object): the default, or what the property reads before it is set",
            "    /// where +defaultValueForKey: answers nil.",
            "    package static func initialValue(_ key: LayerKey, builtin: BuiltinLayerKind) -> Value? {",
            "        switch key {"]
    for p in PROPERTIES:
        if p.initial:
            out.append(f"        case .{p.key}: return {p.initial}")
    out += ["        default: return builtinDefault(key, builtin: builtin)", "        }", "    }", "",
            "    /// The value a declared property holds (nil for a nil object). (Out of",
            "    /// line: the setters' inlined paths stay small.)",
            "    @usableFromInline @inline(never)",
            "    package func storedValue(_ key: LayerKey) -> Value? {",
            "        let l = self",
            "        switch key {"]
    for p in PROPERTIES:
        if p.type.name == "sublayers":
            expr = "l.sublayers.isEmpty ? nil : Value(.array(l.sublayers.map { Value(.object($0)) }))"
        else:
            expr = box(p, read_expr(p))
        out.append(f"        case .{p.key}: return {expr}")
    out += ["        }", "    }", "",
            "    /// Stores a boxed value into a declared property after checking it (the",
            "    /// errors are recorded naming `r.function`); the caller runs the side",
            "    /// effects common to every property (Layer+Properties.swift).",
            "    @inline(never)",
            "    package func storeDeclared(_ key: LayerKey, _ r: ValueReader) -> StoreOutcome {",
            "        let l = self",
            "        switch key {"]
    for p in PROPERTIES:
        code = kvc_store(p)
        out.append(f"        case .{p.key}:")
        out.append(indent(code, 12))
        last = code.strip().split("\n")[-1].strip()
        if not last.startswith("return "):
            out.append("            return .stored")
    out += ["        }", "    }", "",
            "    // MARK: - Typed setters",
            "    // The model's side of the typed C setters: the change, inside the",
            "    // calling thread's transaction, with its side effects (changeDeclared:",
            "    // the value is passed along with a closure that captures nothing, so",
            "    // the inline path forms no closure context).",
            "    // Callers hold the model lock and have checked the value. (The layer is",
            "    // borrowed for the change, withGuaranteedSelf: the caller's reference",
            "    // keeps it alive, and a retain and a release would double the cost of a",
            "    // set.)"]
    for p in PROPERTIES:
        if p.setter != "typed" or p.c_set:
            continue
        write = p.store["write"].replace("$V", "v")
        out += ["", "    @inlinable @inline(__always)", f"    package func set({p.key} v: {p.type.swift}) {{",
                f"        changeDeclared(.{p.key}, v) {{ l, v in {write} }}", "    }"]
    out += ["}", ""]
    return "\n".join(out)


# MARK: - Exports+LayerProperties.swift


def c_getter(p):
    name = c_name(p, "Get")
    if p.c_get:
        body = p.c_get
    else:
        fallback = c_fallback(p)
        reader = (f"readLayer(layer, {fallback})" if p.kind == "layer"
                  else f"readSubclassLayer(layer, .{p.kind}, {fallback})")
        r = read_expr(p)
        t = p.type.name
        conv = {"CGColor": f"borrowedColor({r})", "constant": f"ConstantSet.{p.cset}.cString({r})",
                "value": f"{r}.map(borrowedHandle)", "name": f"{r}.map {{ UnsafePointer($0.pointer) }}"}.get(t, r)
        body = f"{reader} {{ l in {conv} }}"
    return f"{swift_doc(p.doc)}\n@c public func {name}(_ layer: CALayerRef?) -> {p.ctype} {{\n{indent(body, 4)}\n}}"


def setter_doc(p):
    if p.setdoc:
        return p.setdoc
    t = p.type.name
    what = f"Sets {p.key}"
    notes = {
        "Double": "NaN or infinity records QZErrorNotFinite and changes nothing." if p.check != "number"
                  else "NaN records QZErrorNotFinite and changes nothing (infinity means forever).",
        "CFTimeInterval": "NaN or infinity records QZErrorNotFinite and changes nothing." if p.check != "number"
                          else "NaN records QZErrorNotFinite and changes nothing (infinity means forever).",
        "Float": "NaN or infinity records QZErrorNotFinite and changes nothing." if p.check != "number"
                 else "NaN records QZErrorNotFinite and changes nothing (HUGE_VALF means forever).",
        "Int": "A value of 1e9 or more (or a negative one through a signed type) records QZErrorOutOfRange.",
        "Long": "A negative value (or one of 1e9 or more) records QZErrorOutOfRange and changes nothing.",
        "Bool": "",
        "UInt32": "",
        "CGPoint": "NaN or infinite coordinates record QZErrorNotFinite and change nothing.",
        "CGSize": "NaN or infinite values record QZErrorNotFinite and change nothing.",
        "CGRect": "NaN or infinite values record QZErrorNotFinite and change nothing.",
        "CATransform3D": "A non-finite entry records QZErrorNotFinite and changes nothing.",
        "CGColor": "The colour is retained; NULL means none.",
        "constant": "The string is compared by content; NULL records QZErrorNullArgument and an unknown "
                    "string QZErrorUnknownConstant, and either changes nothing.",
        "value": "The value is retained as given; NULL clears it.",
        "name": "The string is copied; NULL clears it.",
    }.get(t, "")
    if p.kind != "layer":
        notes += f" A layer that is not a {p.cls} records QZErrorWrongType."
    return (what + ". " + notes).strip()


def c_setter(p):
    name = c_name(p, "Set")
    x = p.param
    if p.c_set:
        body = p.c_set
    else:
        t = p.type.name
        check = {
            "Double": (f"guard checkFinite({x}, function: #function) else {{ return }}" if p.check != "number"
                       else f"guard checkNotNaN({x}, function: #function) else {{ return }}"),
            "CFTimeInterval": (f"guard checkFinite({x}, function: #function) else {{ return }}" if p.check != "number"
                               else f"guard checkNotNaN({x}, function: #function) else {{ return }}"),
            "Float": (f"guard checkFinite(Double({x}), function: #function) else {{ return }}" if p.check != "number"
                      else f"guard checkNotNaN(Double({x}), function: #function) else {{ return }}"),
            "Int": f"guard {x} >= 0 else {{ recordError(QZErrorOutOfRange, #function, \"{x} \\({x}) is out of range\"); return }}",
            "Long": f"guard {x} >= 0 else {{ recordError(QZErrorOutOfRange, #function, \"{x} \\({x}) is negative\"); return }}",
            "CGPoint": f"guard checkFinite({x}.x, {x}.y, function: #function) else {{ return }}",
            "CGSize": f"guard checkFinite({x}.width, {x}.height, function: #function) else {{ return }}",
            "CGRect": f"guard checkFinite({x}.origin.x, {x}.origin.y, {x}.size.width, {x}.size.height, function: #function) else {{ return }}",
            "CATransform3D": f"guard checkTransform({x}, #function) else {{ return }}",
        }.get(t)
        lines = [check] if check else []
        if p.setter == "typed":
            if t == "CGColor":
                # (The colour borrowed, not retained and released around the
                # call: the layer's store takes the one reference it keeps.)
                lines += [f"guard let {x} else {{ writeLayer(layer) {{ $0.set({p.key}: nil) }}; return }}",
                          f"withObject({x}, as: Color.self, fallback: ()) {{ c in writeLayer(layer) {{ $0.set({p.key}: c) }} }}"]
            else:
                lines.append(f"writeLayer(layer) {{ $0.set({p.key}: {x}) }}")
        else:
            boxed = {
                "Double": f"Value(.number({x}))", "CFTimeInterval": f"Value(.number({x}))", "Float": f"Value(.number(Double({x})))",
                "Int": f"Value(.number(Double({x})))", "Long": f"Value(.number(Double({x})))", "Bool": f"Value(.bool({x}))",
                "CGPoint": f"Value(.point({x}))", "CGSize": f"Value(.size({x}))", "CGRect": f"Value(.rect({x}))",
                "CATransform3D": f"Value(.transform3D({x}))",
            }.get(t)
            if boxed:
                lines.append(f"setLayerValue(layer, .{p.key}, {boxed})")
            elif t == "CGColor":
                lines.append(f"let c = colorValue({x}, #function)")
                lines.append(f"if c.ok {{ setLayerValue(layer, .{p.key}, c.value) }}")
            elif t == "constant":
                lines.append(f"if let v = constantValue({x}, #function) {{ setLayerValue(layer, .{p.key}, v) }}")
            elif t == "value":
                lines += ["var v: Value?",
                          f"if let {x} {{ guard let o = object({x}, as: Value.self, #function) else {{ return }}; v = o }}",
                          f"setLayerValue(layer, .{p.key}, v)"]
            elif t == "name":
                lines.append(f"setLayerValue(layer, .{p.key}, {x}.map {{ Value(string: String(cString: $0)) }})")
            else:
                raise SystemExit(f"generate-layer-properties.py: {p.key} needs c_set")
        body = "\n".join(lines)
    ctype = p.ctype
    return (f"{swift_doc(setter_doc(p))}\n@c public func {name}(_ layer: CALayerRef?, _ {x}: {ctype}) {{\n"
            f"{indent(body, 4)}\n}}")


SECTION_TITLES = {"CALayer": "CALayer", "CAScrollLayer": "CAScrollLayer", "CATextLayer": "CATextLayer",
                  "CATiledLayer": "CATiledLayer", "CAEAGLLayer": "CAEAGLLayer", "CAGradientLayer": "CAGradientLayer",
                  "CAShapeLayer": "CAShapeLayer", "CAReplicatorLayer": "CAReplicatorLayer",
                  "CAEmitterLayer": "CAEmitterLayer"}


def gen_exports():
    out = ["import CQuartzite", "import QuartziteCore", "import QuartziteGeometry", "import QuartziteVideo",
           "import QuartziteGraphics", "import QuartziteModel", "import QuartziteRender", "",
           "// Typed getters and setters of CALayer's declared properties (and those of",
           "// CAScrollLayer, CATextLayer, CATiledLayer, CAEAGLLayer, CAGradientLayer, CAShapeLayer and",
           "// CAReplicatorLayer and CAEmitterLayer), with the",
           "// spec's (or Apple's later documentation's) defaults, in",
           "// the order of the property table (scripts/generate-layer-properties.py).",
           "// Setters check their input (NaN records QZErrorNotFinite, an unknown",
           "// constant QZErrorUnknownConstant) and change nothing on error. A style",
           "// dictionary's values live in the model (Layer+Properties.swift), so the",
           "// getters read them like any other value. Borrowed results (colours,",
           "// strings, values, layers) stay valid until the property changes.",
           "//",
           "// Threads: every getter and setter holds the model lock, so any thread may",
           "// use any layer. A setter's change belongs to the calling thread's",
           "// transaction (see CATransaction).",
           "//",
           f"// {GENERATED}"]
    current = None
    for p in PROPERTIES:
        if p.type.name == "sublayers":
            continue
        if p.cls != current:
            current = p.cls
            out += ["", f"// MARK: - {SECTION_TITLES[p.cls]}"]
        out += ["", c_getter(p), "", c_setter(p)]
        for after, src in EXTRA_EXPORTS:
            if after == p.key:
                out += ["", src]
    out.append("")
    return "\n".join(out)


# MARK: - Python


PY_STRUCTS = {"CGRect": ("Rect", "_as_rect"), "CGPoint": ("Point", "_as_point"), "CGSize": ("Size", "_as_size"),
              "CATransform3D": ("Transform3D", "_as_transform")}


def gen_python():
    out = ['"""' + GENERATED, "",
           "The layer properties of the property table, for quartzite.layer to install",
           "on Layer and its subclasses: (C class, attribute, kind, C suffix, key,",
           "docstring, extra), where kind is number, integer, bool, string (a constant),",
           "name, struct (extra: the Python type and converter), color or value.",
           "Properties of kind custom are written by hand in quartzite.layer.", '"""', "",
           "PROPERTIES = ("]
    for p in PROPERTIES:
        kind = p.pykind
        if kind in ("custom", "none"):
            continue
        extra = None
        if kind == "struct":
            extra = PY_STRUCTS[p.type.name]
        pydoc = (p.pydoc.replace("NULL", "None").replace("(default true)", "(default True)")
                 .replace("(default false", "(default False"))
        out.append(f"    ({p.cls!r}, {p.py!r}, {kind!r}, {p.c_suffix!r}, {p.key!r},")
        out.append(f"     {pydoc!r},")
        out.append(f"     {extra!r}),")
    out += [")", ""]
    return "\n".join(out)


# MARK: - docs


def gen_docs():
    out = ["# Layer properties", "", f"<!-- {GENERATED} -->", "",
           "Every declared property of `CALayer` and its built-in subclasses, from the",
           "property table in `scripts/generate-layer-properties.py`. The C functions are",
           "named after the declaring class (`CALayerGetOpacity` works on every layer);",
           "key-value coding (`CALayerSetValueForKey`) reaches the same storage by key.",
           "Animatable properties animate implicitly when changed outside a",
           "`CATransaction` with actions disabled.", "",
           "| key | class | C type | default | animatable | Python | description |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    ctypes = {"Double": "CGFloat", "CFTimeInterval": "CFTimeInterval", "Float": "float", "UInt32": "unsigned int", "Int": "size_t", "Long": "long", "Bool": "bool",
              "CGPoint": "CGPoint", "CGSize": "CGSize", "CGRect": "CGRect", "CATransform3D": "CATransform3D",
              "CGColor": "CGColorRef", "constant": "const char * (constant)", "value": "CAValueRef",
              "name": "const char *", "object": "object", "layer": "CALayerRef", "sublayers": "array (KVC)"}
    for p in PROPERTIES:
        if p.default is None:
            d = "nil"
        elif p.type.name == "constant":
            d = '"' + CONSTANT_SETS[p.cset][0][int(p.default) if p.default.isdigit()
                                                 else CONSTANT_SETS[p.cset][1][p.default.split(".")[-1]]] + '"'
        else:
            d = (p.default.replace("Color.opaqueBlack", "opaque black").replace("Color.opaqueWhite", "opaque white")
                 .replace(".identity", "identity").replace(".infinity", "infinity"))
        desc = p.doc.replace("|", "\\|")
        py = "" if p.pykind == "none" else f"`{p.py}`"
        out.append(f"| `{p.key}` | {p.cls} | {ctypes[p.type.name]} | `{d}` | {'yes' if p.animatable else ''} | "
                   f"{py} | {desc} |")
    out.append("")
    return "\n".join(out)


OUTPUTS = [
    ("Sources/QuartziteModel/Layers/LayerKey.swift", gen_layer_key),
    ("Sources/QuartziteModel/Layers/Layer+PropertyStorage.swift", gen_storage),
    ("Sources/Quartzite/Exports/Exports+LayerProperties.swift", gen_exports),
    ("bindings/python/quartzite/_layer_properties.py", gen_python),
    ("docs/layer-properties.md", gen_docs),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a committed file differs")
    args = parser.parse_args()
    stale = 0
    for rel, gen in OUTPUTS:
        path = os.path.join(ROOT, rel)
        text = gen()
        if args.check:
            current = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
            if current != text:
                sys.stdout.writelines(difflib.unified_diff(current.splitlines(True), text.splitlines(True),
                                                           rel, "regenerated"))
                stale += 1
            continue
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"generate-layer-properties.py: wrote {rel}")
    if args.check:
        if stale:
            print("generate-layer-properties.py: generated files are out of date; run scripts/generate-layer-properties.py")
            return 1
        print("generate-layer-properties.py: generated files are up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
