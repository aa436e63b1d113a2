#!/usr/bin/env python3
"""Regenerates include/quartzite/quartzite.h from the Swift export layer.

The Swift compiler prints a C declaration (with its doc comment) for every
`@c` function when asked for `-emit-clang-header-path`. That output is full of
Swift's own macros and nullability qualifiers, so this script keeps only the
declarations, rewrites them as plain C99/C++11, groups them by family, and
wraps them in a header that includes the hand-written quartzite_types.h.
An export written in C instead (Sources/CQuartzite) keeps its place in its
export file: a `///` doc comment over a line `// C export: <C declaration>`,
which this script copies as it is.

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

# The header's sections: one per file of the export layer, in reading order.
# A section opens with the file's leading comment (its rules: ownership,
# threading, errors), its `// MARK: - ` lines become subsections (with the
# comment lines that follow them), and functions appear in source order, so
# a getter stands next to its setter. A new export file must be listed here.
SECTIONS = [
    ("Exports+Core.swift", "Errors, reference counting and media time"),
    ("Exports+Geometry.swift", "CGPoint, CGSize and CGRect"),
    ("Exports+AffineTransform.swift", "CGAffineTransform"),
    ("Exports+Transform3D.swift", "CATransform3D (Core Animation Function Reference)"),
    ("Exports+Values.swift", "CAValueRef: boxed values"),
    ("Exports+Color.swift", "CGColorRef"),
    ("Exports+Path.swift", "CGPathRef and CGMutablePathRef"),
    ("Exports+Layer.swift", "CALayer"),
    ("Exports+LayerProperties.swift", "CALayer and its subclasses: properties"),
    ("Exports+EmitterCell.swift", "CAEmitterCell and CAEmitterLayer's cells"),
    ("Exports+TimingFunction.swift", "CAMediaTimingFunction"),
    ("Exports+Animation.swift", "CAAnimation and its subclasses"),
    ("Exports+Transaction.swift", "CATransaction"),
    ("Exports+Action.swift", "CAAction and the action search"),
    ("Exports+CVBuffer.swift", "Core Video: CVBuffer, CVImageBuffer and host time"),
    ("Exports+CVPixelBuffer.swift", "Core Video: CVPixelBuffer"),
    ("Exports+CVPixelBufferPool.swift", "Core Video: CVPixelBufferPool"),
    ("Exports+CVPixelFormat.swift", "Core Video: pixel format descriptions"),
    ("Exports+RunLoop.swift", "CFRunLoop: run loops, timers and performs"),
    ("Exports+DisplayLink.swift", "CADisplayLink and the display"),
    ("Exports+Renderer.swift", "CARenderer, draw lists and CALayerRenderInContext"),
    ("Exports+TiledLayer.swift", "CATiledLayer: worker threads, tile cache, fade and waiting frames"),
    ("Exports+Context.swift", "CGContext: bitmap contexts and drawing"),
    ("Exports+Gradient.swift", "CGColorSpace and CGGradient"),
    ("Exports+Image.swift", "CGImage and CGDataProvider"),
    ("Exports+AttributedString.swift", "CFAttributedString: strings with attributes"),
    ("Exports+CoreText.swift", "Core Text: CTFont, CTLine, CTFramesetter and CTFrame"),
    ("Exports+GL.swift", "CAEAGLLayer, the EAGLContext methods and CARenderer over OpenGL ES (EGL)"),
]

EXPORTS_DIR = os.path.join(ROOT, "Sources", "Quartzite", "Exports")

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


# The engine's targets, in the order of the data flow (Package.swift); the
# last one holds the exports.
ENGINE_TARGETS = ["QuartziteCore", "QuartziteGeometry", "QuartziteVideo", "QuartziteGraphics",
                  "QuartziteModel", "QuartziteRender", "Quartzite"]


def compiler_header(out_path):
    """Asks swiftc for the C header of the exports (type-check only). The
    engine's targets are compiled as one module: their sources are copied
    without the imports of one another, which spares building each target
    first and gives the same declarations."""
    with tempfile.TemporaryDirectory() as tmp:
        sources = []
        for target in ENGINE_TARGETS:
            for dirpath, _, files in os.walk(os.path.join(ROOT, "Sources", target)):
                for f in sorted(files):
                    if not f.endswith(".swift"):
                        continue
                    text = open(os.path.join(dirpath, f), encoding="utf-8").read()
                    text = re.sub(r"^(@testable |@_exported )?import Quartzite\w*\n", "", text, flags=re.M)
                    copy = os.path.join(tmp, f"{target}-{os.path.relpath(dirpath, ROOT).replace(os.sep, '-')}-{f}")
                    with open(copy, "w", encoding="utf-8") as out:
                        out.write(text)
                    sources.append(copy)
        cmd = ["swiftc", "-parse-as-library", "-module-name", "Quartzite", "-package-name", "quartzite",
               "-swift-version", "5", "-emit-module",
               "-emit-module-path", os.path.join(tmp, "Quartzite.swiftmodule"),
               "-emit-clang-header-path", out_path,
               "-I", os.path.join(ROOT, "Sources", "CQuartzite", "include"),
               "-I", os.path.join(ROOT, "Sources", "CCairo"),
               "-I", os.path.join(ROOT, "Sources", "CPango")] + cairo_flags() + sorted(sources)
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


def comment_block(lines):
    """`//` lines as plain text lines (the marker and one space removed)."""
    return [l.strip()[2:][1:] if l.strip()[2:].startswith(" ") else l.strip()[2:] for l in lines]


def source_layout(path):
    """Reads one export file: its leading comment (the section's rules) and,
    in order, ("mark", title, comment lines) and ("func", name) items."""
    lines = open(path, encoding="utf-8").read().splitlines()
    intro, items = [], []
    i = 0
    while i < len(lines) and (lines[i].startswith("import ") or not lines[i].strip()):
        i += 1
    while i < len(lines) and lines[i].startswith("//") and not lines[i].startswith("///") \
            and not lines[i].startswith("// MARK:"):
        intro.append(lines[i])
        i += 1
    for j in range(i, len(lines)):
        line = lines[j]
        m = re.match(r"// MARK: - (.*)", line)
        if m:
            text = []
            k = j + 1
            while k < len(lines) and lines[k].startswith("//") and not lines[k].startswith("///") \
                    and not lines[k].startswith("// MARK:"):
                text.append(lines[k])
                k += 1
            items.append(("mark", m.group(1).strip(), comment_block(text)))
            continue
        m = re.match(r"@c public func (\w+)", line)
        if m:
            items.append(("func", m.group(1)))
            continue
        # An export written in C (Sources/CQuartzite): its declaration on a
        # marker line, its doc comment the `///` lines just above.
        m = re.match(r"// C export: (.*\b(\w+)\(.*\);)$", line)
        if m:
            k = j
            while k > 0 and lines[k - 1].startswith("///"):
                k -= 1
            items.append(("cfunc", m.group(2), lines[k:j], m.group(1)))
    return comment_block(intro), items


def c_comment(text_lines, indent=""):
    text = [t.rstrip() for t in text_lines]
    while text and not text[-1]:
        text.pop()
    if not text:
        return []
    return [indent + "/*"] + [indent + (" * " + t if t else " *") for t in text] + [indent + " */"]


def clean_header(raw):
    decls = {name: (comment, decl) for name, comment, decl in declarations(raw)}
    listed = {f for f, _ in SECTIONS}
    problems = []
    for f in sorted(os.listdir(EXPORTS_DIR)):
        text = open(os.path.join(EXPORTS_DIR, f), encoding="utf-8").read() if f.endswith(".swift") else ""
        exports = "@c public func" in text or "// C export: " in text
        if exports and f not in listed:
            problems.append(f"{f} is not in SECTIONS (scripts/generate-header.py)")
    out = [
        "/*",
        " * quartzite.h: Quartzite's public C API.",
        " *",
        " * GENERATED by scripts/generate-header.py from the @c functions of",
        " * Sources/Quartzite/Exports; do not edit. Each section below is one file",
        " * of the export layer, opening with its rules (ownership, threading,",
        " * errors); the functions follow in source order. The types, enums,",
        " * callbacks and constants are hand-written in quartzite_types.h.",
        " *",
        " * Rules for every function (see also each section):",
        " * - Create and Copy functions return a reference the caller owns (+1;",
        " *   release it with CARelease or the typed Release function); Get",
        " *   functions return a borrowed reference (+0) valid while its owner lives.",
        " * - Bad input (NULL, a handle of the wrong type, NaN, an index out of",
        " *   range, an unknown constant, a call in the wrong state) never crashes:",
        " *   the call does nothing or returns NULL/false/0 and records an error",
        " *   for QZGetLastError and QZGetLastErrorMessage.",
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
    seen = set()
    for filename, title in SECTIONS:
        path = os.path.join(EXPORTS_DIR, filename)
        if not os.path.exists(path):
            problems.append(f"SECTIONS lists {filename}, which does not exist")
            continue
        intro, items = source_layout(path)
        if not any("thread" in line.lower() for line in intro):
            problems.append(f"{filename}: its leading comment does not say which threads may call its functions")
        out += ["", "/* " + "=" * 72, " * MARK: - " + title, " *"]
        out += [(" * " + t if t else " *") for t in intro] if intro else []
        out += [" */"]
        pending_mark = None
        for item in items:
            if item[0] == "mark":
                pending_mark = item
                continue
            name = item[1]
            if name in seen:
                problems.append(f"{name} is exported twice")
                continue
            seen.add(name)
            if item[0] == "cfunc":
                if name in decls:
                    problems.append(f"{filename}: {name} is both @c and a C export")
                    continue
                decls[name] = (doc_to_c(item[2]) if item[2] else None, item[3])
            elif name not in decls:
                problems.append(f"{filename}: {name} has no declaration in the compiler's header")
                continue
            if pending_mark is not None:
                out += ["", f"/* MARK: {pending_mark[1]} */"]
                out += c_comment(pending_mark[2])
                pending_mark = None
            comment, decl = decls[name]
            out.append("")
            if comment:
                out.append(comment)
            else:
                problems.append(f"{filename}: {name} has no doc comment")
            out.append(decl)
    for name in sorted(set(decls) - seen):
        problems.append(f"{name} is exported by a file that is not in SECTIONS")
    if problems:
        sys.exit("generate-header.py: " + "\n  ".join(["cannot write the header:"] + problems))
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
