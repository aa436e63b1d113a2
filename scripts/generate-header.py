#!/usr/bin/env python3
"""Regenerates include/quartzite/quartzite.h from the Swift export layer.

The Swift compiler prints a C declaration (with its doc comment) for every
`@c` function when asked for `-emit-clang-header-path`. That output is full of
Swift's own macros and nullability qualifiers, so this script keeps only the
declarations, rewrites them as plain C99/C++11, groups them by family, and
wraps them in a header that includes the hand-written quartzite_types.h.

    scripts/generate-header.py            # rewrite include/quartzite/quartzite.h
    scripts/generate-header.py --check    # exit 1 if the committed header differs
    scripts/generate-header.py --raw F    # post-process an existing compiler header F
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEADER = os.path.join(ROOT, "include", "quartzite", "quartzite.h")

# Families, in the order the header presents them: (name prefix, title).
# The longest matching prefix wins.
FAMILIES = [
    ("QZ", "Errors and Quartzite's own additions"),
    ("CARetain", "Reference counting"),
    ("CARelease", "Reference counting"),
    ("CACurrentMediaTime", "Media time"),
    ("QZSetMediaTimeSource", "Media time"),
    ("CATransform3D", "CATransform3D (Core Animation Function Reference)"),
    ("CAValue", "CAValueRef: boxed values"),
    ("CGPoint", "CGPoint, CGSize and CGRect"),
    ("CGSize", "CGPoint, CGSize and CGRect"),
    ("CGRect", "CGPoint, CGSize and CGRect"),
    ("CGAffineTransform", "CGAffineTransform"),
    ("CGPointApplyAffineTransform", "CGAffineTransform"),
    ("CGSizeApplyAffineTransform", "CGAffineTransform"),
    ("CGRectApplyAffineTransform", "CGAffineTransform"),
    ("CGColor", "CGColorRef"),
    ("CALayerCreate", "CALayer: creation and classes"),
    ("CALayerClass", "CALayer: creation and classes"),
    ("CALayerCopyDefaultValueForKey", "CALayer: creation and classes"),
    ("CALayerGetClass", "CALayer: creation and classes"),
    ("CALayerShouldArchiveValueForKey", "CALayer: creation and classes"),
    ("CAScrollLayerCreate", "CALayer: creation and classes"),
    ("CATextLayerCreate", "CALayer: creation and classes"),
    ("CATiledLayerCreate", "CALayer: creation and classes"),
    ("CALayerAddSublayer", "CALayer: the layer tree"),
    ("CALayerInsertSublayer", "CALayer: the layer tree"),
    ("CALayerReplaceSublayer", "CALayer: the layer tree"),
    ("CALayerRemoveFromSuperlayer", "CALayer: the layer tree"),
    ("CALayerGetSuperlayer", "CALayer: the layer tree"),
    ("CALayerGetSublayer", "CALayer: the layer tree"),
    ("CALayerSetSublayers", "CALayer: the layer tree"),
    ("CALayerConvert", "CALayer: geometry, hit testing and scrolling"),
    ("CALayerHitTest", "CALayer: geometry, hit testing and scrolling"),
    ("CALayerContainsPoint", "CALayer: geometry, hit testing and scrolling"),
    ("CALayerGetPreferredFrameSize", "CALayer: geometry, hit testing and scrolling"),
    ("CALayerGetVisibleRect", "CALayer: geometry, hit testing and scrolling"),
    ("CALayerScroll", "CALayer: geometry, hit testing and scrolling"),
    ("CALayerContentsAreFlipped", "CALayer: geometry, hit testing and scrolling"),
    ("CAScrollLayerScroll", "CALayer: geometry, hit testing and scrolling"),
    ("CALayerSetNeedsLayout", "CALayer: layout and display"),
    ("CALayerNeedsLayout", "CALayer: layout and display"),
    ("CALayerLayout", "CALayer: layout and display"),
    ("CALayerSetLayoutManager", "CALayer: layout and display"),
    ("CALayerSetNeedsDisplay", "CALayer: layout and display"),
    ("CALayerNeedsDisplay", "CALayer: layout and display"),
    ("CALayerDisplay", "CALayer: layout and display"),
    ("CALayerSetDelegate", "CALayer: layout and display"),
    ("QZLayerGetDirtyRect", "CALayer: layout and display"),
    ("CALayerSetValueFor", "CALayer: key-value coding"),
    ("CALayerCopyValueFor", "CALayer: key-value coding"),
    ("CALayerSetNumberForKeyPath", "CALayer: key-value coding"),
    ("CALayerGetNumberForKeyPath", "CALayer: key-value coding"),
    ("CALayerGet", "CALayer: properties"),
    ("CALayerSet", "CALayer: properties"),
    ("CAScrollLayerGet", "CAScrollLayer, CATextLayer and CATiledLayer: properties"),
    ("CAScrollLayerSet", "CAScrollLayer, CATextLayer and CATiledLayer: properties"),
    ("CATextLayer", "CAScrollLayer, CATextLayer and CATiledLayer: properties"),
    ("CATiledLayer", "CAScrollLayer, CATextLayer and CATiledLayer: properties"),
    ("CAEAGLLayer", "CAEAGLLayer and the EAGLContext methods (OpenGL ES through EGL)"),
    ("QZEAGLContext", "CAEAGLLayer and the EAGLContext methods (OpenGL ES through EGL)"),
    ("CAMediaTimingFunction", "CAMediaTimingFunction"),
    ("CAAnimation", "CAAnimation and its subclasses"),
    ("CAPropertyAnimation", "CAAnimation and its subclasses"),
    ("CABasicAnimation", "CAAnimation and its subclasses"),
    ("CAKeyframeAnimation", "CAAnimation and its subclasses"),
    ("CATransition", "CAAnimation and its subclasses"),
    ("CALayerAddAnimation", "Animations on layers and presentation"),
    ("CALayerGetAnimation", "Animations on layers and presentation"),
    ("CALayerCopyAnimationKeys", "Animations on layers and presentation"),
    ("CALayerRemoveAnimation", "Animations on layers and presentation"),
    ("CALayerRemoveAllAnimations", "Animations on layers and presentation"),
    ("CALayerCopyPresentationLayer", "Animations on layers and presentation"),
    ("CALayerGetModelLayer", "Animations on layers and presentation"),
    ("QZAnimation", "Animations on layers and presentation"),
    ("QZLayerGetTransitionProgress", "Animations on layers and presentation"),
    ("QZLayerCopyTransitionSnapshot", "Animations on layers and presentation"),
    ("QZMediaTimingFunction", "CAMediaTimingFunction"),
    ("CATransaction", "CATransaction"),
    ("CAAction", "CAAction and the action search"),
    ("CALayerGetActionForKey", "CAAction and the action search"),
    ("QZActionNull", "CAAction and the action search"),
    ("CGPath", "CGPathRef and CGMutablePathRef"),
    ("QZPath", "CGPathRef and CGMutablePathRef"),
    ("CVBuffer", "Core Video: CVBuffer attachments"),
    ("CVImageBuffer", "Core Video: CVImageBuffer"),
    ("CVGetCurrentHostTime", "Core Video: host time"),
    ("CVGetHostClock", "Core Video: host time"),
    ("CVPixelBuffer", "Core Video: CVPixelBuffer"),
    ("QZPixelBuffer", "Core Video: Quartzite's pixel buffer additions"),
    ("CVPixelBufferPool", "Core Video: CVPixelBufferPool"),
    ("QZPixelBufferPool", "Core Video: CVPixelBufferPool"),
    ("CVPixelFormatDescription", "Core Video: pixel format descriptions"),
    ("QZPixelFormat", "Core Video: pixel format descriptions"),
    ("QZGetTypeID", "Core Video: pixel format descriptions"),
    ("CFRunLoop", "CFRunLoop: run loops, timers and performs"),
    ("QZRunLoop", "CFRunLoop: run loops, timers and performs"),
    ("CADisplayLink", "CADisplayLink and the display"),
    ("QZDisplay", "CADisplayLink and the display"),
    ("CARenderer", "CARenderer: rendering layer trees into pixel buffers"),
    ("QZRenderer", "CARenderer: rendering layer trees into pixel buffers"),
    ("CARendererCreateWithEGLContext", "CARenderer: rendering layer trees into pixel buffers"),
    ("QZDrawList", "Draw lists: a frame's operations for GPU hosts"),
    ("CALayerRenderInContext", "Bitmap contexts and CALayerRenderInContext"),
    ("CGBitmapContext", "Bitmap contexts and CALayerRenderInContext"),
    ("QZBitmapContext", "Bitmap contexts and CALayerRenderInContext"),
    ("CGBitmapContextCreateImage", "CGImage and CGDataProvider"),
    ("CGContext", "CGContext: drawing (CGContext.h)"),
    ("CGColorSpace", "CGColorSpace"),
    ("CGGradient", "CGGradient"),
    ("CGImage", "CGImage and CGDataProvider"),
    ("CGDataProvider", "CGImage and CGDataProvider"),
    ("QZImage", "CGImage and CGDataProvider"),
    ("QZPixelBufferCreateWithImage", "CGImage and CGDataProvider"),
    ("CFAttributedString", "CFAttributedString: strings with attributes"),
    ("CFRangeMake", "CFAttributedString: strings with attributes"),
    ("CTFont", "Core Text: CTFont"),
    ("CTLine", "Core Text: CTLine"),
    ("CTFramesetter", "Core Text: CTFramesetter and CTFrame"),
    ("CTFrame", "Core Text: CTFramesetter and CTFrame"),
    ("QZFrame", "Core Text: CTFramesetter and CTFrame"),
    ("CGContextSetText", "Core Text: CTLine"),
    ("CGContextGetText", "Core Text: CTLine"),
    ("QZText", "Core Text: Quartzite's text additions"),
]

# Apple's Core Foundation-family typedef names that Swift's importer will not
# let cross @c; the engine uses QZ-prefixed aliases of the same C types.
CF_ALIASES = re.compile(r"\bQZ((?:CG|CV|CF|CT)\w*Ref)\b")

SWIFT_MACROS = re.compile(
    r"\s*\b(SWIFT_NOEXCEPT|SWIFT_WARN_UNUSED_RESULT|SWIFT_EXTERN|SWIFT_NORETURN)\b")
NULLABILITY = re.compile(r"\s*\b_(Nullable_result|Nullable|Nonnull|Null_unspecified)\b")


def cairo_flags():
    """cairo's and Pango's include directories (the CCairo and CPango
    system-library modules need them)."""
    out = subprocess.run(["pkg-config", "--cflags-only-I", "cairo", "pangocairo"], check=True, capture_output=True,
                         text=True).stdout
    flags = []
    for f in out.split():
        flags += ["-Xcc", f]
    return flags


def compiler_header(out_path):
    """Asks swiftc for the header of the Quartzite module (type-check only)."""
    sources = sorted(
        os.path.join(dirpath, f)
        for dirpath, _, files in os.walk(os.path.join(ROOT, "Sources", "Quartzite"))
        for f in files if f.endswith(".swift"))
    with tempfile.TemporaryDirectory() as tmp:
        cmd = ["swiftc", "-parse-as-library", "-module-name", "Quartzite",
               "-swift-version", "5", "-emit-module",
               "-emit-module-path", os.path.join(tmp, "Quartzite.swiftmodule"),
               "-emit-clang-header-path", out_path,
               "-I", os.path.join(ROOT, "Sources", "CQuartzite", "include"),
               "-I", os.path.join(ROOT, "Sources", "CCairo"),
               "-I", os.path.join(ROOT, "Sources", "CPango")] + cairo_flags() + sources
        subprocess.run(cmd, check=True)


def doc_to_c(lines):
    """Turns the compiler's `///` lines (Markdown rendered to HTML) back into a
    plain C comment."""
    text = []
    for line in lines:
        line = line[3:].rstrip()
        line = line[1:] if line.startswith(" ") else line
        line = re.sub(r"</?code>", "`", line)
        line = re.sub(r"</?em>", "", line)
        line = re.sub(r"</?strong>", "", line)
        line = (line.replace("\u2019", "'").replace("\u2018", "'")
                .replace("\u201c", '"').replace("\u201d", '"')
                .replace("\u2026", "...").replace("&lt;", "<").replace("&gt;", ">")
                .replace("&amp;", "&"))
        text.append(line)
    body = "\n".join(" * " + t if t else " *" for t in text)
    return "/**\n" + body + "\n */"


def declarations(raw):
    """Yields (name, comment, declaration) for each exported function."""
    start = raw.index('extern "C" {')
    end = raw.index('} // extern "C"', start)
    block = raw[start:end].splitlines()[1:]
    doc = []
    for line in block:
        if line.startswith("///"):
            doc.append(line)
            continue
        if line.startswith("SWIFT_EXTERN"):
            decl = SWIFT_MACROS.sub("", line).strip()
            decl = NULLABILITY.sub("", decl)
            decl = CF_ALIASES.sub(r"\1", decl)
            # "char const *" -> "const char *", "CAValueRef const *" -> "const CAValueRef *"
            decl = re.sub(r"(^|[(,]\s*)(\w+) const \*", r"\1const \2 *", decl)
            decl = re.sub(r"\s+", " ", decl).replace(" ;", ";").replace("( ", "(")
            decl = re.sub(r"\* (?=\w)", "*", decl)
            decl = re.sub(r"\* \*", "**", decl)  # "void * *planes" -> "void **planes"
            name = re.search(r"(\w+)\(", decl).group(1)
            yield name, doc_to_c(doc) if doc else None, decl
            doc = []
        elif line.strip() and not line.startswith("#"):
            doc = []


def family(name):
    best = None
    for prefix, title in FAMILIES:
        if name.startswith(prefix) and (best is None or len(prefix) > len(best[0])):
            best = (prefix, title)
    if best is None:
        sys.exit(f"generate-header.py: no family for {name}; add its prefix to FAMILIES")
    return best[1]


def clean_header(raw):
    groups = {}
    for name, comment, decl in declarations(raw):
        groups.setdefault(family(name), []).append((name, comment, decl))
    titles = []
    for _, title in FAMILIES:
        if title not in titles:
            titles.append(title)
    out = [
        "/*",
        " * quartzite.h: Quartzite's public C API.",
        " *",
        " * GENERATED by scripts/generate-header.py from the @c functions of",
        " * Sources/Quartzite/Exports; do not edit. The types, enums, callbacks and",
        " * constants are hand-written in quartzite_types.h.",
        " */",
        "#ifndef QUARTZITE_H",
        "#define QUARTZITE_H",
        "",
        '#include "quartzite_types.h"',
        "",
        "#ifdef __cplusplus",
        'extern "C" {',
        "#endif",
    ]
    for title in titles:
        if title not in groups:
            continue
        out += ["", f"/* MARK: - {title} */"]
        for _, comment, decl in sorted(groups[title]):
            out.append("")
            if comment:
                out.append(comment)
            out.append(decl)
    out += ["", "#ifdef __cplusplus", "}", "#endif", "", "#endif /* QUARTZITE_H */", ""]
    return "\n".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="compare with the committed header instead of writing it")
    parser.add_argument("--raw", help="post-process this compiler header instead of running swiftc")
    parser.add_argument("--output", default=HEADER)
    args = parser.parse_args()
    if args.raw:
        raw = open(args.raw, encoding="utf-8").read()
    else:
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "Quartzite-Swift.h")
            compiler_header(path)
            raw = open(path, encoding="utf-8").read()
    header = clean_header(raw)
    if args.check:
        current = open(args.output, encoding="utf-8").read() if os.path.exists(args.output) else ""
        if current != header:
            import difflib
            sys.stdout.writelines(difflib.unified_diff(
                current.splitlines(True), header.splitlines(True), args.output, "regenerated"))
            print("generate-header.py: the committed header is out of date; run scripts/generate-header.py")
            return 1
        print("generate-header.py: header is up to date")
        return 0
    with open(args.output, "w", encoding="utf-8") as f:
        f.write(header)
    print(f"generate-header.py: wrote {os.path.relpath(args.output, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
