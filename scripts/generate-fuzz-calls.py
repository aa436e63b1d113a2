#!/usr/bin/env python3
"""Generates the stateful fuzzer's call table from the public header.

Every function declared in include/quartzite/quartzite.h (itself generated
from the Swift @c exports) becomes a wrapper that draws each argument from a
generator chosen by the parameter's type (and, for numbers and strings, its
name), makes the call, and hands results back to the harness (handles join
its pool, strings are read). New exports join the fuzzer when the header is
regenerated; a parameter type no rule knows stops the build with a message
naming the function, so that no export goes untested.

Callback typedefs and callback tables (structs of function pointers) of
quartzite_types.h get generated callbacks that touch their arguments and
return something plausible.

    scripts/generate-fuzz-calls.py OUT.c                 # write the table
    scripts/generate-fuzz-calls.py --list                # exports and weights
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INCLUDE = os.path.join(ROOT, "include", "quartzite")

# Functions whose arguments must agree in ways no per-parameter rule can see
# (raw memory of a stated size) or that block by design: the harness drives
# them (Tests/c/fuzz/fuzz_harness.c).
SPECIAL = {
    "CVPixelBufferCreateWithBytes": "fz_special_CVPixelBufferCreateWithBytes",
    "CVPixelBufferCreateWithPlanarBytes": "fz_special_CVPixelBufferCreateWithPlanarBytes",
    "CGBitmapContextCreate": "fz_special_CGBitmapContextCreate",
    "CFRunLoopRun": "fz_special_CFRunLoopRun",
    "CGDataProviderCreateWithData": "fz_special_CGDataProviderCreateWithData",
    "CGGradientCreateWithColorComponents": "fz_special_CGGradientCreateWithColorComponents",
}

# Callback typedefs the harness implements itself.
HAND_CALLBACKS = {
    "QZMediaTimeSourceCallback": "fz_clock",
    "QZErrorHandlerCallback": "fz_error_handler",
}

# Handle parameters usually passed NULL (allocators, attribute and option
# dictionaries): drawn NULL more often, so that the calls get past them.
OPTIONAL_HANDLE = re.compile(r"^(allocator|\w*[Aa]ttributes|options|arguments|attachments)$")

# Callback results the library takes ownership of (documented +1).
OWNED_CALLBACK_RESULTS = {("CALayerClassCallbacks", "defaultValueForKey")}

# How often each function is drawn: the state machine (trees, animations,
# transactions, presentation, rendering, time) more than pure getters. The
# first matching pattern wins; unmatched functions weigh 1.
WEIGHTS = [
    (r"^QZAnimationProcessEvents$", 24),
    (r"^CARelease$", 16),
    (r"^\w+Release$", 3),
    (r"^(CALayerCopyPresentationLayer|QZLayerCopyTransitionSnapshot|CALayerGetModelLayer)$", 6),
    (r"^(CALayerAddAnimation|CALayerRemoveAnimation|CALayerRemoveAllAnimations|CAActionRunForKey)$", 12),
    (r"^(CATransactionBegin|CATransactionCommit|CATransactionFlush)$", 10),
    (r"^(CALayerAddSublayer|CALayerInsertSublayer\w*|CALayerReplaceSublayer|CALayerRemoveFromSuperlayer|CALayerSetSublayers|CALayerSetMask)$", 10),
    (r"^(CALayerCreate|CALayerCreateWithClass|CATextLayerCreate|CAScrollLayerCreate|CATiledLayerCreate)$", 10),
    (r"^(CATransitionCreate|CABasicAnimationCreate|CAKeyframeAnimationCreate|CAAnimationGroupCreate)$", 8),
    (r"^(CARendererBeginFrameAtTime|CARendererRender|CARendererEndFrame|CARendererSetLayer|CARendererCreate|CARendererAddUpdateRect|CALayerRenderInContext|QZRendererCopyDrawList)$", 6),
    (r"^(CALayerGetSublayerAtIndex|CALayerGetSuperlayer|CALayerGetMask|CALayerHitTest)$", 6),
    (r"^(QZRunLoopRunOnce|CFRunLoopRunInMode|CFRunLoopRun)$", 4),
    (r"^CALayerSet(Position|Bounds|Opacity|Transform|ShadowPath|ShadowOpacity|Contents\w*|CornerRadius|MasksToBounds|Hidden|Frame|AnchorPoint)$", 4),
    (r"^(CABasicAnimationSet\w+|CAAnimationSet(Duration|BeginTime|Speed|RemovedOnCompletion|FillMode|Delegate|RepeatCount|Autoreverses|TimeOffset)|CAKeyframeAnimationSet\w+|CAAnimationGroupSetAnimations|CATransitionSet\w+)$", 4),
    (r"^CGPath(Add\w+|Create\w*|MoveToPoint|CloseSubpath)$", 3),
    (r"^(CAValueCreate\w+|CGColorCreate\w*)$", 3),
    (r"^CALayerSet\w+$", 2),
    (r"^(CVPixelBufferCreate|CVPixelBufferPoolCreate\w*|QZBitmapContextCreateWithPixelBuffer)$", 5),
]

# Names of key paths beyond the property names the exports spell.
KEY_PATHS = [
    "position.x", "position.y", "bounds.size", "bounds.size.width", "bounds.origin.x", "frame", "frame.origin.y",
    "transform.rotation", "transform.rotation.z", "transform.scale", "transform.scale.x", "transform.translation.x",
    "transform.translation", "sublayerTransform.scale.y", "anchorPoint.x", "shadowOffset.height", "contentsRect.size.width",
    "custom", "customObject", "a.b.c", "style.key", "actions", "transition", "onOrderIn", "onOrderOut", "sublayers", "mask",
    "backgroundColor", "opacity", "zPosition", "cornerRadius", "contents", "shadowPath", "hidden", "", ".", "..", "x.",
    # Named filters' inputs and named emitter cells' properties.
    "filters.blur.inputRadius", "filters.CIGaussianBlur.inputRadius", "backgroundFilters.CIGaussianBlur.inputRadius",
    "filters.CIColorMatrix.inputRVector", "filters.CIColorMatrix.inputRVector.x", "filters.CIColorControls.inputSaturation",
    "filters.blur", "filters.blur.name", "blur", "fire", "spark", "emitterCells.fire.birthRate",
    "emitterCells.fire.velocity", "emitterCells.fire.enabled", "emitterCells.fire.emitterCells.spark.scale",
    "emitterCells.fire", "emitterCells.fire.name", "emitterCells.spark.lifetime",
]

HEADER_DECL = re.compile(r"^(?P<ret>[A-Za-z_][\w\s\*]*?[\s\*])(?P<name>\w+)\((?P<params>.*)\);$")

INT_TYPES = {
    "int": (32, True), "unsigned int": (32, False), "long": (64, True), "unsigned long": (64, False),
    "int8_t": (8, True), "uint8_t": (8, False), "int16_t": (16, True), "uint16_t": (16, False),
    "int32_t": (32, True), "uint32_t": (32, False), "int64_t": (64, True), "uint64_t": (64, False),
    "size_t": (64, False), "ptrdiff_t": (64, True), "CFIndex": (64, True), "CFTypeID": (64, False),
}


def fail(message):
    sys.stderr.write("generate-fuzz-calls.py: %s\n" % message)
    sys.exit(1)


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def norm(t):
    t = re.sub(r"\s+", " ", t.strip())
    t = re.sub(r"\s*\*\s*", " *", t).replace("* *", "**").replace(" *", " *")
    t = re.sub(r"\*\s+\*", "**", t)
    return t.strip()


class Types:
    """What quartzite_types.h declares: handles, callbacks, structs, enums, constants."""

    def __init__(self, text):
        raw = text
        text = strip_comments(text)
        self.handles = {}        # typedef name -> handle type name without Ref ('CALayer')
        self.callbacks = {}      # typedef name -> (ret, [(type, name)])
        self.structs = {}        # struct name -> [(type, name, array_len, fnsig)]
        self.enums = {}          # typedef name -> [values]
        self.int_typedefs = {}   # typedef name -> base int type
        self.strings = []        # string constants' values
        self.pixel_formats = []
        for m in re.finditer(r"typedef\s+(const\s+)?struct\s+\w+\s*\*\s*(\w+)\s*;", text):
            name = m.group(2)
            self.handles[name] = name[:-3] if name.endswith("Ref") else name
        changed = True
        while changed:   # typedef AliasRef OtherRef;
            changed = False
            for m in re.finditer(r"typedef\s+(\w+)\s+(\w+)\s*;", text):
                base, name = m.group(1), m.group(2)
                if base in self.handles and name not in self.handles:
                    self.handles[name] = self.handles[base]
                    changed = True
                elif base in INT_TYPES or base in self.int_typedefs:
                    self.int_typedefs[name] = self.int_typedefs.get(base, base)
                elif base == "double":
                    self.int_typedefs.setdefault(name, "double")
        for m in re.finditer(r"typedef\s+([\w\s\*]+?)\s*\(\s*\*\s*(\w+)\s*\)\s*\(([^)]*)\)\s*;", text):
            self.callbacks[m.group(2)] = (norm(m.group(1)), parse_params(m.group(3)))
        for m in re.finditer(r"typedef\s+struct\s+(\w+)\s*\{(.*?)\}\s*(\w+)\s*;", text, flags=re.S):
            self.structs[m.group(3)] = parse_members(m.group(2))
        for m in re.finditer(r"typedef\s+enum\s+\w*\s*\{(.*?)\}\s*(\w+)\s*;", text, flags=re.S):
            self.enums[m.group(2)] = enum_values(m.group(1))
        for m in re.finditer(r'#define\s+(k\w+)\s+"((?:[^"\\]|\\.)*)"', raw):
            if m.group(2) not in self.strings:
                self.strings.append(m.group(2))
        for m in re.finditer(r"kCVPixelFormatType_\w+\s*=\s*(0x[0-9A-Fa-f]+)", text):
            self.pixel_formats.append(int(m.group(1), 16))


def enum_values(body):
    values, nxt = [], 0
    for item in body.split(","):
        item = item.strip()
        if not item:
            continue
        if "=" in item:
            expr = item.split("=", 1)[1].strip()
            try:
                nxt = int(eval(expr.replace("U", ""), {}))
            except Exception:
                continue
        values.append(nxt)
        nxt += 1
    return values


def parse_params(text):
    text = text.strip()
    if text in ("", "void"):
        return []
    out = []
    depth, cur = 0, ""
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    params = []
    for p in out:
        p = p.strip()
        m = re.match(r"^(.*?)(\w+)\s*(\[\])?$", p)
        if not m or not m.group(1).strip():
            params.append((norm(p), "arg%d" % len(params)))
            continue
        t = norm(m.group(1)) + (" *" if m.group(3) else "")
        params.append((norm(t), m.group(2)))
    return params


def parse_members(body):
    members = []
    for decl in strip_comments(body).split(";"):
        decl = " ".join(decl.split())
        if not decl:
            continue
        f = re.match(r"^(.*?)\(\s*\*\s*(\w+)\s*\)\s*\((.*)\)$", decl)
        if f:
            members.append((norm(f.group(1)), f.group(2), None, parse_params(f.group(3))))
            continue
        m = re.match(r"^((?:const\s+)?(?:struct\s+)?[\w]+(?:\s+[\w]+)*?)\s+([\w\s,\*\[\]]+)$", decl)
        if not m:
            fail("cannot read struct member '%s'" % decl)
        base = m.group(1)
        for d in m.group(2).split(","):
            d = d.strip()
            stars = d.count("*")
            d = d.replace("*", "").strip()
            arr = re.match(r"^(\w+)\[(\d+)\]$", d)
            name, n = (arr.group(1), int(arr.group(2))) if arr else (d, None)
            members.append((norm(base + " " + "*" * stars), name, n, None))
    return members


class Generator:
    def __init__(self, header_text, types):
        self.types = types
        self.functions = []
        for line in join_declarations(header_text):
            m = HEADER_DECL.match(line)
            if not m:
                continue
            self.functions.append((norm(m.group("ret")), m.group("name"), parse_params(m.group("params"))))
        if not self.functions:
            fail("no function declarations found in quartzite.h")
        self.kinds = {}          # tuple of names -> C identifier
        self.callback_defs = []  # generated callback functions
        self.callback_names = {}
        self.struct_fillers = {}
        self.errors = []
        self.strings = self.string_table()

    # MARK: strings

    def string_table(self):
        """The constants' values, then property names and key paths."""
        names = list(self.types.strings)
        self.key_string_start = len(names)
        for _, fname, _ in self.functions:
            m = re.match(r"^(?:CA|CG|CV|QZ)\w*?(?:Get|Set)([A-Z]\w*)$", fname)
            if m:
                prop = m.group(1)
                prop = prop[0].lower() + prop[1:]
                if prop not in names[self.key_string_start:]:
                    names.append(prop)
        for k in KEY_PATHS:
            if k not in names[self.key_string_start:]:
                names.append(k)
        return names

    # MARK: kinds

    def accept_names(self, handle_type):
        base = self.types.handles[handle_type]
        if base == "CAAnimation":
            return ("CABasicAnimation", "CAKeyframeAnimation", "CAAnimationGroup", "CATransition", "CASpringAnimation")
        if base == "CAAction":
            return ("CAAction", "CABasicAnimation", "CAKeyframeAnimation", "CAAnimationGroup", "CATransition")
        if base in ("QZOpaqueCGPath",) or handle_type in ("CGPathRef", "CGMutablePathRef"):
            return ("CGMutablePath",) if handle_type == "CGMutablePathRef" else ("CGPath", "CGMutablePath")
        if handle_type in ("CVBufferRef", "CVImageBufferRef", "CVPixelBufferRef"):
            return ("CVPixelBuffer",)
        if base.startswith("QZOpaque"):
            return (base[len("QZOpaque"):],)
        return (base,)

    def kinds_id(self, names):
        names = tuple(names)
        if names not in self.kinds:
            self.kinds[names] = "fz_kinds_%d" % len(self.kinds)
        return self.kinds[names]

    def is_handle(self, t):
        return t in self.types.handles

    # MARK: callbacks

    def callback(self, typedef):
        if typedef in HAND_CALLBACKS:
            return HAND_CALLBACKS[typedef]
        ret, params = self.types.callbacks[typedef]
        return self.make_callback("fz_cb_" + typedef, typedef, ret, params, owner=None)

    def make_callback(self, cname, label, ret, params, owner):
        if cname in self.callback_names:
            return cname
        self.callback_names[cname] = True
        args = ", ".join("%s %s" % (t, n) for t, n in params) or "void"
        body = ['    fz_cb_enter("%s");' % label]
        for t, n in params:
            tt = t.replace("struct ", "")
            if self.is_handle(tt) or tt.startswith("QZOpaque"):
                # (A context is drawn into; any other handle has its type read.)
                if "Context" in tt:
                    body.append("    fz_cb_context((void *)%s);" % n)
                else:
                    body.append("    fz_cb_touch(%s);" % n)
            elif t == "const char *":
                body.append("    fz_cb_touch_string(%s);" % n)
            else:
                body.append("    (void)%s;" % n)
        if ret == "void":
            body.append("    fz_cb_leave();")
        else:
            r = ret.replace("struct ", "")
            body.append("    %s r;" % ret)
            if self.is_handle(r):
                if owner and (owner, label.split(".")[-1]) in OWNED_CALLBACK_RESULTS:
                    body.append("    r = (%s)fz_cb_owned_value();" % ret)
                else:
                    body.append("    r = (%s)fz_cb_handle(&%s);" % (ret, self.kinds_id(self.accept_names(r))))
            elif r in ("double", "CGFloat", "CFTimeInterval", "float"):
                body.append("    r = (%s)fz_cb_double();" % ret)
            elif r == "bool":
                body.append("    r = fz_cb_bool();")
            elif r in self.types.structs:
                body.append("    memset(&r, 0, sizeof r);")
                body.append("    { double *d = (double *)(void *)&r; size_t k; for (k = 0; k < sizeof r / sizeof(double); k++) d[k] = fz_cb_double(); }"
                            if all(m[0] in ("CGFloat", "double") for m in self.types.structs[r]) else "")
            elif r in INT_TYPES or r in self.types.int_typedefs or r in self.types.enums:
                body.append("    r = (%s)fz_cb_integer();" % ret)
            else:
                self.errors.append("callback %s returns %s, which no rule knows" % (label, ret))
                body.append("    memset(&r, 0, sizeof r);")
            body.append("    fz_cb_leave();")
            body.append("    return r;")
        self.callback_defs.append("static %s %s(%s) {\n%s\n}\n" % (ret, cname, args, "\n".join(b for b in body if b)))
        return cname

    # MARK: structs

    def struct_filler(self, sname):
        """A function filling a struct of type `sname` (callback tables included)."""
        if sname in self.struct_fillers:
            return self.struct_fillers[sname]
        fn = "fz_fill_" + sname
        self.struct_fillers[sname] = fn
        lines = ["static void %s(%s *s) {" % (fn, sname), "    memset(s, 0, sizeof *s);"]
        for mtype, mname, count, fnsig in self.types.structs[sname]:
            if fnsig is not None:
                cb = self.make_callback("fz_cbm_%s_%s" % (sname, mname), "%s.%s" % (sname, mname), mtype, fnsig, owner=sname)
                lines.append("    if (FZ_W(fz_use_callback())) s->%s = %s;" % (mname, cb))
                continue
            targets = ["s->%s[%d]" % (mname, i) for i in range(count)] if count else ["s->%s" % mname]
            for target in targets:
                lines.append("    " + self.member_assign(sname, mtype, mname, target))
        lines.append("}\n")
        self.callback_defs.append("\n".join(lines))
        return fn

    def member_assign(self, sname, mtype, mname, target):
        t = mtype.replace("struct ", "")
        if mname == "version":
            return "%s = (%s)(FZ_W(fz_pick(8)) == 0 ? 1 : 0);" % (target, mtype)
        if t in self.types.callbacks:
            return "%s = FZ_W(fz_use_callback()) ? %s : NULL;" % (target, self.callback(t))
        if t == "void *":
            return "%s = fz_info();" % target
        if t in ("double", "CGFloat", "CFTimeInterval"):
            return '%s = fz_double("%s");' % (target, mname)
        if t == "float":
            return '%s = fz_float("%s");' % (target, mname)
        if t == "bool":
            return "%s = fz_bool();" % target
        if t in self.types.structs:
            return "%s(&%s);" % (self.struct_filler(t), target)
        base = self.types.int_typedefs.get(t, t)
        if base in INT_TYPES:
            bits, signed = INT_TYPES[base]
            return '%s = (%s)fz_integer("%s", %d, %d);' % (target, mtype, mname, bits, int(signed))
        if t in self.types.enums:
            return "%s = (%s)%s;" % (target, mtype, self.enum_expr(t))
        self.errors.append("struct %s: member %s of type %s has no generator" % (sname, mname, mtype))
        return "/* %s: no generator */" % mname

    def enum_expr(self, t):
        values = self.types.enums[t]
        arr = "{" + ", ".join(str(v) for v in values) + ", -1, 1000, 2147483647}"
        return "fz_enum((const int64_t[])%s, %d)" % (arr, len(values) + 3)

    # MARK: parameters

    def function_body(self, ret, fname, params):
        if fname in SPECIAL:
            return ["    %s();" % SPECIAL[fname]]
        lines, args, after = [], [], []
        release = (fname.endswith("Release") and len(params) == 1 and ret == "void")
        # Array groups: const T * parameters sharing the next size_t `count`.
        groups = {}
        for i, (t, n) in enumerate(params):
            if t.startswith("const ") and t.endswith("*") and t not in ("const char *", "const void *"):
                j = next((k for k in range(i + 1, len(params))
                          if params[k][0] == "size_t" and re.match(r"^(count|n|\w+Count)$", params[k][1])), None)
                if j is None:
                    continue
                groups.setdefault(j, []).append(i)
        member_of = {i: j for j, members in groups.items() for i in members}
        for j in groups:
            lines.append("    size_t a%d = 0;" % j)
            lines.append("    long n%d = fz_array_count(&a%d);" % (j, j))
        for i, (t, n) in enumerate(params):
            v = "a%d" % i
            if i in groups:
                args.append(v)
                continue
            if i in member_of:
                j = member_of[i]
                elem = t[len("const "):-1].strip()
                if elem == "char *const":
                    elem = "const char *"
                lines.append("    %s *%s = n%d < 0 ? NULL : (%s *)fz_scratch(sizeof(%s) * (size_t)(n%d + 1));"
                             % (elem, v, j, elem, elem, j))
                lines.append("    for (long k = 0; k < n%d; k++) %s" % (j, self.element_assign(fname, elem, n, "%s[k]" % v)))
                args.append(v)
                continue
            if release and (self.is_handle(t) or t == "const void *"):
                kid = self.kinds_id(("*",) if t == "const void *" else self.accept_names(t))
                lines.append("    int slot%d;" % i)
                lines.append("    %s %s = (%s)fz_handle_for_release(&%s, &slot%d);" % (t, v, t, kid, i))
                after.append("    fz_released(slot%d);" % i)
                args.append(v)
                continue
            decl = self.param_expr(fname, t, n, i)
            if decl is None:
                self.errors.append("%s: parameter %s (%s) has no generator" % (fname, n, t))
                args.append("0")
                continue
            pre, expr = decl
            lines.extend(pre)
            lines.append("    %s %s = %s;" % (t, v, expr))
            args.append(v)
        call = "%s(%s)" % (fname, ", ".join(args))
        lines.append("    fz_before_call();")
        lines.extend(self.result_lines(ret, fname, call))
        lines.extend(after)
        lines.append("    fz_adopt_out_handles();")
        return lines

    def element_assign(self, fname, elem, name, target):
        e = elem.replace("struct ", "")
        if self.is_handle(e):
            return "%s = (%s)fz_handle(&%s);" % (target, elem, self.kinds_id(self.accept_names(e)))
        if e in ("char *const", "char *", "const char *"):
            return '%s = fz_string("%s", "%s");' % (target, fname, name)
        if e in self.types.structs:
            return "%s(&%s);" % (self.struct_filler(e), target)
        if e in ("double", "CGFloat"):
            return '%s = fz_double("%s");' % (target, name)
        if e in ("float",):
            return '%s = fz_float("%s");' % (target, name)
        self.errors.append("%s: array of %s has no generator" % (fname, elem))
        return ";"

    def param_expr(self, fname, t, n, i):
        tt = t.replace("struct ", "")
        if self.is_handle(tt):
            generator = "fz_optional_handle" if OPTIONAL_HANDLE.match(n) else "fz_handle"
            return [], "(%s)%s(&%s)" % (t, generator, self.kinds_id(self.accept_names(tt)))
        if t == "const void *":
            # Any handle (CARelease, CAValueCreateWithObject); raw bytes
            # (`data`, `bytes`) need a special that sizes them.
            if re.match(r"^(handle|object|obj|ref|cf|contents|value)$", n):
                return [], "fz_handle(&%s)" % self.kinds_id(("*",))
            return None
        if tt in ("EGLDisplay", "EGLContext", "EGLSurface", "EGLConfig"):
            # (The fuzzer has no EGL: the library must refuse EGL_NO_DISPLAY /
            # EGL_NO_CONTEXT with an error; test_gl drives real ones.)
            return [], "(%s)0" % t
        if t == "const char *":
            return [], 'fz_string("%s", "%s")' % (fname, n)
        if t == "void *":
            if re.match(r"^(info|refCon|releaseRefCon|context|userInfo)$", n):
                return [], "fz_info()"
            return None
        if tt in self.types.callbacks:
            return [], "FZ_W(fz_use_callback()) ? %s : NULL" % self.callback(tt)
        if t in ("double", "CGFloat", "CFTimeInterval"):
            return [], 'fz_double("%s")' % n
        if t == "float":
            return [], 'fz_float("%s")' % n
        if t == "bool":
            return [], "fz_bool()"
        if t == "OSType":
            return [], "fz_pixel_format()"
        if t in ("size_t",):
            return [], 'fz_size("%s")' % n
        base = self.types.int_typedefs.get(t, t)
        if base in INT_TYPES:
            bits, signed = INT_TYPES[base]
            return [], '(%s)fz_integer("%s", %d, %d)' % (t, n, bits, int(signed))
        if t in self.types.enums:
            return [], "(%s)%s" % (t, self.enum_expr(t))
        if tt in self.types.structs:
            var = "s%d" % i
            return ["    %s %s;" % (t, var), "    %s(&%s);" % (self.struct_filler(tt), var)], var
        if t.endswith("**") or t == "void **":
            return [], "(%s)fz_out(sizeof(void *) * 16)" % t
        if t.endswith("*") and not t.startswith("const "):
            elem = t[:-1].strip().replace("struct ", "")
            if self.is_handle(elem):
                return [], "(%s)fz_out_handle()" % t
            return [], "(%s)fz_out(sizeof(%s) * 16)" % (t, t[:-1].strip())
        if t.startswith("const ") and t.endswith("*"):
            elem = t[len("const "):-1].strip().replace("struct ", "")
            if elem in self.types.structs:
                var = "p%d" % i
                return ["    %s *%s = FZ_W(fz_pick(6)) == 0 ? NULL : (%s *)fz_scratch(sizeof(%s));" % (elem, var, elem, elem),
                        "    if (%s) %s(%s);" % (var, self.struct_filler(elem), var)], var
            if elem in ("double", "CGFloat", "float"):
                var = "p%d" % i
                return ["    %s *%s = FZ_W(fz_pick(6)) == 0 ? NULL : (%s *)fz_scratch(sizeof(%s) * 16);" % (elem, var, elem, elem),
                        "    if (%s) for (int k = 0; k < 16; k++) %s[k] = fz_double(\"%s\");" % (var, var, n)], var
        return None

    def result_lines(self, ret, fname, call):
        """The call, fz_after_call(), then what is done with the result."""
        r = ret.replace("struct ", "")
        if ret == "void":
            return ["    %s;" % call, "    fz_after_call();"]
        keep = ["    %s r = %s;" % (ret, call), "    fz_after_call();"]
        if self.is_handle(r):
            owned = bool(re.search(r"Create|Copy|Retain", fname))
            return keep + ["    fz_result(r, %s);" % ("true" if owned else "false")]
        if ret == "void *":
            if fname == "CARetain":
                return keep + ["    fz_result(r, true);"]
            if fname.endswith("Object"):
                return keep + ["    fz_result(r, false);"]
            return keep + ["    fz_sink(&r, sizeof r);"]
        if ret == "const char *":
            return keep + ["    fz_read_string(r);"]
        if ret.startswith("const ") and ret.endswith("*"):
            return keep + ["    if (r) fz_read_bytes(r, sizeof *r);"]
        return keep + ["    fz_sink(&r, sizeof r);"]

    def weight(self, fname):
        for pattern, w in WEIGHTS:
            if re.search(pattern, fname):
                return w
        return 1

    def emit(self):
        wrappers = []
        table = []
        for ret, fname, params in self.functions:
            body = self.function_body(ret, fname, params)
            wrappers.append("static void fz_call_%s(void) {\n%s\n}\n" % (fname, "\n".join(body)))
            table.append('    { "%s", fz_call_%s, %d },' % (fname, fname, self.weight(fname)))
        if self.errors:
            fail("no generator for:\n  " + "\n  ".join(sorted(set(self.errors))) +
                 "\nAdd a rule to scripts/generate-fuzz-calls.py (or a special in Tests/c/fuzz/fuzz_harness.c)"
                 " so that every export is fuzzed.")
        out = ["/* GENERATED by scripts/generate-fuzz-calls.py from include/quartzite/quartzite.h; do not edit. */",
               "#include <string.h>", '#include "fuzz.h"', ""]
        out.append("const char *const fz_strings[] = {")
        out.extend("    %s," % c_string(s) for s in self.strings)
        out.append("};")
        out.append("const size_t fz_string_count = %d;" % len(self.strings))
        out.append("const size_t fz_key_string_start = %d;" % self.key_string_start)
        out.append("const uint32_t fz_pixel_formats[] = { %s };" % ", ".join("0x%08X" % v for v in self.types.pixel_formats or [0x42475241]))
        out.append("const size_t fz_pixel_format_count = %d;" % max(1, len(self.types.pixel_formats)))
        for names, ident in self.kinds.items():
            out.append("static const char *const %s_names[] = { %s, NULL };" % (ident, ", ".join(c_string(n) for n in names)))
            out.append("static fz_kinds %s = { %s_names, 0 };" % (ident, ident))
        out.append("")
        out.extend(self.callback_defs)
        out.extend(wrappers)
        out.append("const fz_function fz_functions[] = {")
        out.extend(table)
        out.append("};")
        out.append("const size_t fz_function_count = %d;" % len(table))
        out.append("void fz_init_kinds(void) {")
        out.extend("    fz_intern_kinds(&%s);" % ident for ident in self.kinds.values())
        out.append("}")
        return "\n".join(out) + "\n"


def c_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def join_declarations(text):
    """The header's declaration lines, continuation lines joined."""
    lines, cur = [], ""
    in_comment = False
    for line in text.splitlines():
        s = line.strip()
        if in_comment:
            if "*/" in s:
                in_comment = False
            continue
        if s.startswith("/*"):
            if "*/" not in s:
                in_comment = True
            continue
        if not s or s.startswith("#") or s.startswith("}") or s.startswith("extern \"C\""):
            cur = ""
            continue
        cur = (cur + " " + s).strip()
        if cur.endswith(";"):
            lines.append(cur)
            cur = ""
    return lines


def main():
    args = sys.argv[1:]
    header = open(os.path.join(INCLUDE, "quartzite.h")).read()
    types = Types(open(os.path.join(INCLUDE, "quartzite_types.h")).read())
    gen = Generator(header, types)
    if args and args[0] == "--list":
        for ret, fname, params in gen.functions:
            print("%-60s weight %d" % (fname, gen.weight(fname)))
        return
    if len(args) != 1:
        fail("usage: generate-fuzz-calls.py OUT.c | --list")
    text = gen.emit()
    if os.path.exists(args[0]) and open(args[0]).read() == text:
        return
    with open(args[0], "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
