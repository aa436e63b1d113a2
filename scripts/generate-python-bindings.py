#!/usr/bin/env python3
"""Regenerates bindings/python/quartzite/_decls.py from the public C headers.

The Python package declares every exported function to ctypes (argtypes and
restype). Writing those by hand drifts from the header as the API grows, so
this script parses include/quartzite/quartzite.h (the generated function
declarations) and quartzite_types.h (the hand-written typedefs, structs,
enums, callbacks, constants and macros) and writes them out as plain data
tables that quartzite._lib applies when it loads the library.

    scripts/generate-python-bindings.py            # rewrite _decls.py
    scripts/generate-python-bindings.py --check    # exit 1 if the committed file differs

Types are written as strings in a tiny language that quartzite._lib resolves:
a ctypes name (`c_double`), a name defined in _lib (`CGRect`, a callback
type), `POINTER(spec)`, `ARRAY(spec, n)`, `CFUNCTYPE(restype, argtype, ...)`,
or `None` (void). A C type this script does not know stops it with an error
rather than producing a guess.
"""
import argparse
import ast
import difflib
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INCLUDE = os.path.join(ROOT, "include", "quartzite")
FUNCTIONS_HEADER = os.path.join(INCLUDE, "quartzite.h")
TYPES_HEADER = os.path.join(INCLUDE, "quartzite_types.h")
OUTPUT = os.path.join(ROOT, "bindings", "python", "quartzite", "_decls.py")

# C scalar types spelled with C keywords or <stdint.h>/<stddef.h> names.
BUILTIN_SCALARS = {
    "bool": "c_bool", "_Bool": "c_bool",
    "char": "c_char", "signed char": "c_byte", "unsigned char": "c_ubyte",
    "short": "c_short", "short int": "c_short", "signed short": "c_short",
    "unsigned short": "c_ushort", "unsigned short int": "c_ushort",
    "int": "c_int", "signed": "c_int", "signed int": "c_int",
    "unsigned": "c_uint", "unsigned int": "c_uint",
    "long": "c_long", "long int": "c_long", "signed long": "c_long",
    "unsigned long": "c_ulong", "unsigned long int": "c_ulong",
    "long long": "c_longlong", "long long int": "c_longlong",
    "unsigned long long": "c_ulonglong", "unsigned long long int": "c_ulonglong",
    "float": "c_float", "double": "c_double", "long double": "c_longdouble",
    "size_t": "c_size_t", "ssize_t": "c_ssize_t", "ptrdiff_t": "c_ssize_t",
    "intptr_t": "c_ssize_t", "uintptr_t": "c_size_t",
    "int8_t": "c_int8", "int16_t": "c_int16", "int32_t": "c_int32", "int64_t": "c_int64",
    "uint8_t": "c_uint8", "uint16_t": "c_uint16", "uint32_t": "c_uint32", "uint64_t": "c_uint64",
}
# Words that end a type rather than name a parameter ("unsigned long" unnamed).
TYPE_WORDS = {"void", "bool", "_Bool", "char", "short", "int", "long", "float",
              "double", "signed", "unsigned"}
QUALIFIERS = {"const", "volatile", "restrict", "__restrict", "struct", "enum"}


class UnknownType(Exception):
    """A C construct the generator cannot translate faithfully."""


def fail(message):
    sys.exit(f"generate-python-bindings.py: error: {message}")


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


class TypeTable:
    """What each typedef name of quartzite_types.h stands for."""

    def __init__(self):
        self.scalars = {}     # typedef name -> ctypes name (CGFloat -> c_double)
        self.handles = set()  # opaque `...Ref` pointers -> c_void_p
        self.opaque = set()   # typedef struct X X; without a body (pointer only)
        self.handle_structs = set()  # X of `typedef struct X *Ref`
        self.structs = {}     # name -> [(field, spec)]
        self.enums = {}       # name -> [(member, value)]
        self.anonymous_enum_members = []
        self.callbacks = {}   # name -> (restype spec, [argtype specs])
        self.constants = {}   # exported data symbol -> spec
        self.macros = {}      # #define NAME literal -> python literal

    def known(self, name):
        return (name in self.scalars or name in self.handles or name in self.opaque
                or name in self.structs or name in self.enums or name in self.callbacks)

    def spec(self, ctype, context):
        """Translates a C type (without a declarator name) into a spec string."""
        ctype = ctype.strip()
        if "(" in ctype or "[" in ctype:
            raise UnknownType(f"{context}: cannot translate inline declarator `{ctype}`; "
                              "use a typedef in quartzite_types.h")
        depth = ctype.count("*")
        words = [w for w in ctype.replace("*", " ").split() if w not in QUALIFIERS]
        base = " ".join(words)
        # `struct X *` where X is the struct behind a handle typedef is that handle.
        if base in self.handle_structs and depth >= 1:
            return {1: "c_void_p", 2: "POINTER(c_void_p)"}.get(depth) or self._too_deep(ctype, context)
        if not base:
            raise UnknownType(f"{context}: empty type `{ctype}`")
        # Scalar typedefs (CGFloat, CFTimeInterval, CVReturn...) resolve to builtins.
        while base in self.scalars and base not in BUILTIN_SCALARS:
            base = self.scalars[base]
        if base in self.enums:
            base = "int"  # C enums with these small values are ints on every ABI we target

        if base == "void":
            return {0: "None", 1: "c_void_p", 2: "POINTER(c_void_p)"}.get(depth) or self._too_deep(ctype, context)
        if base == "char":
            # `const char *` is a UTF-8 string; a mutable `char *` is a buffer.
            if depth == 1:
                return "c_char_p" if "const" in ctype.split("*")[0].split() else "POINTER(c_char)"
            if depth == 2:
                return "POINTER(c_char_p)"
            if depth == 0:
                return "c_char"
            return self._too_deep(ctype, context)
        if base in self.handles:
            return {0: "c_void_p", 1: "POINTER(c_void_p)"}.get(depth) or self._too_deep(ctype, context)
        if base in self.opaque:
            return {1: "c_void_p", 2: "POINTER(c_void_p)"}.get(depth) or self._too_deep(ctype, context)
        if base in BUILTIN_SCALARS:
            target = BUILTIN_SCALARS[base]
        elif base in self.structs or base in self.callbacks:
            target = base
        else:
            raise UnknownType(f"{context}: unknown C type `{ctype}` (base `{base}`); "
                              "teach scripts/generate-python-bindings.py about it")
        if depth > 2:
            return self._too_deep(ctype, context)
        for _ in range(depth):
            target = f"POINTER({target})"
        return target

    @staticmethod
    def _too_deep(ctype, context):
        raise UnknownType(f"{context}: unsupported pointer depth in `{ctype}`")

    def parameters(self, text, context):
        """Splits a C parameter list into specs (names dropped)."""
        text = text.strip()
        if text in ("", "void"):
            return []
        specs = []
        for i, param in enumerate(split_top_level(text, ",")):
            param = param.strip()
            if param == "...":
                raise UnknownType(f"{context}: variadic functions cannot be declared to ctypes")
            # An array parameter is a pointer in C (`const void *planes[]`
            # is `const void **planes`): the one rewrite C itself makes.
            array = re.fullmatch(r"(.*?)\s*(\w+)?\s*\[\s*\w*\s*\]", param)
            if array and array.group(1).strip():
                param = array.group(1).strip() + " *"
            specs.append(self.spec(drop_name(param), f"{context} parameter {i + 1}"))
        return specs


def split_top_level(text, sep):
    """Splits on `sep` outside parentheses."""
    parts, depth, current = [], 0, ""
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    parts.append(current)
    return parts


def drop_name(param):
    """`const CAValueRef *items` -> `const CAValueRef *`; unnamed types stay."""
    m = re.match(r"^(.*?[\s\*])(\w+)$", param.strip())
    if not m or m.group(2) in TYPE_WORDS or m.group(2) in QUALIFIERS:
        return param
    head = m.group(1).strip()
    # `const CGRect` is an unnamed parameter: nothing but qualifiers before it.
    if not [w for w in head.replace("*", " ").split() if w not in QUALIFIERS]:
        return param
    return head


def int_expression(text, members, context):
    """Evaluates an enum initialiser: integers, char literals ('BGRA'), earlier
    members, parentheses and the operators + - * | & ^ ~ << >>."""
    text = re.sub(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]+\b", r"\1", text.strip())
    text = re.sub(r"'([^'\\]{1,4})'",
                  lambda m: str(int.from_bytes(m.group(1).encode("ascii"), "big")), text)
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        raise UnknownType(f"{context}: cannot evaluate `{text}`")

    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return node.value
        if isinstance(node, ast.Name) and node.id in members:
            return members[node.id]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd, ast.Invert)):
            v = ev(node.operand)
            return -v if isinstance(node.op, ast.USub) else ~v if isinstance(node.op, ast.Invert) else v
        ops = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
               ast.Mult: lambda a, b: a * b, ast.BitOr: lambda a, b: a | b,
               ast.BitAnd: lambda a, b: a & b, ast.BitXor: lambda a, b: a ^ b,
               ast.LShift: lambda a, b: a << b, ast.RShift: lambda a, b: a >> b}
        if isinstance(node, ast.BinOp) and type(node.op) in ops:
            return ops[type(node.op)](ev(node.left), ev(node.right))
        raise UnknownType(f"{context}: cannot evaluate `{text}`")

    return ev(tree)


def enum_members(body, context, table):
    members, values, next_value = [], {}, 0
    known = {name: value for name, value in table.anonymous_enum_members}
    for enum in table.enums.values():
        known.update(enum)
    for item in body.split(","):
        item = item.strip()
        if not item:
            continue
        if "=" in item:
            name, expr = (s.strip() for s in item.split("=", 1))
            value = int_expression(expr, {**known, **values}, f"{context}.{name}")
        else:
            name, value = item, next_value
        if not re.fullmatch(r"\w+", name):
            raise UnknownType(f"{context}: cannot parse enum member `{item}`")
        members.append((name, value))
        values[name] = value
        next_value = value + 1
    return members


def struct_fields(body, name, table):
    fields = []
    for decl in body.split(";"):
        decl = " ".join(decl.split())
        if not decl:
            continue
        context = f"struct {name} field `{decl}`"
        fp = re.fullmatch(r"(.+?)\(\s*\*\s*(\w+)\s*\)\s*\((.*)\)", decl)
        if fp:  # function pointer field: R (*name)(params)
            restype = table.spec(fp.group(1), context)
            args = table.parameters(fp.group(3), context)
            fields.append((fp.group(2), f"CFUNCTYPE({', '.join([restype] + args)})"))
            continue
        # `unsigned long n, *p, bytes[4]`: the type is whatever precedes the first name.
        declarators = decl.split(",")
        first = re.fullmatch(r"(.*?)\s*(\**\s*\w+\s*(?:\[\s*\w+\s*\])?)", declarators[0])
        if not first or not first.group(1):
            raise UnknownType(f"{context}: cannot parse")
        base = first.group(1)
        for declarator in [first.group(2)] + declarators[1:]:
            declarator = declarator.strip()
            dm = re.fullmatch(r"(\**)\s*(\w+)\s*(?:\[\s*(\w+)\s*\])?", declarator)
            if not dm:
                raise UnknownType(f"{context}: cannot parse declarator `{declarator}`")
            spec = table.spec(base + " " + dm.group(1), context)
            if dm.group(3):
                spec = f"ARRAY({spec}, {int_expression(dm.group(3), {}, context)})"
            fields.append((dm.group(2), spec))
    return fields


def parse_types(text):
    table = TypeTable()
    for m in re.finditer(r'^\s*#\s*define\s+(\w+)\s+(.+?)\s*$', text, re.M):
        name, value = m.groups()
        if value.startswith('"'):
            table.macros[name] = ast.literal_eval(value)
        elif re.fullmatch(r"-?(0[xX][0-9a-fA-F]+|\d+)[uUlL]*|'[^'\\]{1,4}'|\(.*\)", value):
            try:
                table.macros[name] = int_expression(value, table.macros, f"#define {name}")
            except UnknownType:
                pass  # e.g. a parenthesised cast; not a plain constant
    text = strip_comments(text)
    text = re.sub(r"^\s*#.*$", " ", text, flags=re.M)
    text = re.sub(r'extern\s+"C"\s*\{|^\s*\}\s*$', " ", text, flags=re.M)

    # Walk the top-level declarations in order so later ones can use earlier names.
    for decl in top_level_declarations(text):
        d = " ".join(decl.split())
        context = f"quartzite_types.h `{d[:60]}`"
        if m := re.fullmatch(r"typedef (struct|enum) (\w+)?\s*\{(.*)\} (\w+)", d):
            kind, _, body, name = m.groups()
            if kind == "struct":
                table.structs[name] = struct_fields(body, name, table)
            else:
                table.enums[name] = enum_members(body, name, table)
        elif m := re.fullmatch(r"enum (\w+ )?\{(.*)\}", d):
            table.anonymous_enum_members += enum_members(m.group(2), "anonymous enum", table)
        elif m := re.fullmatch(r"typedef (?:const )?struct (\w+) ?\* ?(\w+)", d):
            table.handles.add(m.group(2))
            table.handle_structs.add(m.group(1))
        elif m := re.fullmatch(r"typedef void ?\* ?(\w+)", d):
            table.handles.add(m.group(1))  # EGLDisplay, EGLContext: opaque pointers
        elif m := re.fullmatch(r"typedef struct (\w+) (\w+)", d):
            table.opaque.add(m.group(2))
        elif m := re.fullmatch(r"typedef (.+?)\( ?\* ?(\w+) ?\) ?\((.*)\)", d):
            restype = table.spec(m.group(1), context)
            table.callbacks[m.group(2)] = (restype, table.parameters(m.group(3), context))
        elif m := re.fullmatch(r"typedef ([\w ]+?) (\w+)", d):
            base = m.group(1)
            if base in BUILTIN_SCALARS:
                table.scalars[m.group(2)] = base
            elif base in table.scalars:
                table.scalars[m.group(2)] = table.scalars[base]
            elif base in table.enums:
                table.enums[m.group(2)] = table.enums[base]
            elif base in table.handles:  # typedef CVBufferRef CVImageBufferRef;
                table.handles.add(m.group(2))
            else:
                raise UnknownType(f"{context}: typedef of unknown type `{base}`")
        elif m := re.fullmatch(r"extern const (\w+) (\w+)", d):
            table.constants[m.group(2)] = table.spec(m.group(1), context)
        elif m := re.fullmatch(r"extern const char ?\* ?const (\w+)", d):
            table.constants[m.group(1)] = "c_char_p"
        else:
            raise UnknownType(f"cannot parse declaration in quartzite_types.h: `{d}`")
    return table


def top_level_declarations(text):
    """Splits on `;` at brace depth 0."""
    out, depth, current = [], 0, ""
    for ch in text:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == ";" and depth == 0:
            if current.strip():
                out.append(current)
            current = ""
        else:
            current += ch
    if current.strip():
        raise UnknownType(f"trailing text without `;`: `{current.strip()[:60]}`")
    return out


def parse_functions(text, table):
    text = strip_comments(text)
    text = re.sub(r"^\s*#.*$", " ", text, flags=re.M)
    text = re.sub(r'extern\s+"C"\s*\{|^\s*\}\s*$', " ", text, flags=re.M)
    functions = {}
    for decl in top_level_declarations(text):
        d = " ".join(decl.split())
        m = re.fullmatch(r"(?:extern )?(.+?[\s\*])(\w+) ?\((.*)\)", d)
        if not m:
            raise UnknownType(f"cannot parse declaration in quartzite.h: `{d}`")
        restype, name, params = m.groups()
        if name in functions:
            raise UnknownType(f"{name} is declared twice")
        functions[name] = (table.spec(restype, f"{name} result"), table.parameters(params, name))
    return functions


def render(table, functions):
    def q(s):
        return '"' + s + '"'

    def tuple_of(items):
        if len(items) == 1:
            return f"({q(items[0])},)"
        return "(" + ", ".join(q(i) for i in items) + ")"

    out = [
        '"""GENERATED by scripts/generate-python-bindings.py from include/quartzite/quartzite.h',
        "and quartzite_types.h; do not edit (run the script instead).",
        "",
        "Types are spec strings that quartzite._lib resolves: a ctypes name, a name",
        "defined in _lib (structs, callback types), POINTER(spec), ARRAY(spec, n),",
        'CFUNCTYPE(restype, argtypes...) or None (void)."""',
        "",
        "# struct name -> ((field, spec), ...) in declaration order",
        "STRUCTS = {",
    ]
    for name, fields in table.structs.items():
        out.append(f"    {q(name)}: (")
        out += [f"        ({q(f)}, {q(s)})," for f, s in fields]
        out.append("    ),")
    out += ["}", "", "# enum type name -> ((member, value), ...)", "ENUMS = {"]
    for name, members in table.enums.items():
        out.append(f"    {q(name)}: (")
        out += [f"        ({q(m)}, {v})," for m, v in members]
        out.append("    ),")
    out.append("}")
    out += ["", "# members of anonymous enums: name -> value", "ENUM_CONSTANTS = {"]
    out += [f"    {q(m)}: {v}," for m, v in table.anonymous_enum_members]
    out += ["}", "", "# callback typedef -> (restype, (argtypes...))", "CALLBACKS = {"]
    for name, (restype, args) in table.callbacks.items():
        out.append(f"    {q(name)}: ({q(restype)}, {tuple_of(args)}),")
    out += ["}", "", "# exported data symbol -> type spec", "CONSTANTS = {"]
    out += [f"    {q(name)}: {q(spec)}," for name, spec in table.constants.items()]
    out += ["}", "", "# #define NAME value (string and integer literals only)", "MACROS = {"]
    out += [f"    {q(name)}: {value!r}," for name, value in table.macros.items()
            if not name.endswith("_H")]  # include guards
    out += ["}", "", "# function -> (restype, (argtypes...)), sorted by name", "FUNCTIONS = {"]
    for name in sorted(functions):
        restype, args = functions[name]
        out.append(f"    {q(name)}: ({q(restype)}, {tuple_of(args)}),")
    out += ["}", ""]
    return "\n".join(out)


def generate():
    with open(TYPES_HEADER, encoding="utf-8") as f:
        types_text = f.read()
    with open(FUNCTIONS_HEADER, encoding="utf-8") as f:
        functions_text = f.read()
    try:
        table = parse_types(types_text)
        functions = parse_functions(functions_text, table)
    except UnknownType as e:
        fail(str(e))
    return render(table, functions)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="compare with the committed _decls.py instead of writing it")
    parser.add_argument("--output", default=OUTPUT)
    args = parser.parse_args()
    generated = generate()
    if args.check:
        current = ""
        if os.path.exists(args.output):
            with open(args.output, encoding="utf-8") as f:
                current = f.read()
        if current != generated:
            sys.stdout.writelines(difflib.unified_diff(
                current.splitlines(True), generated.splitlines(True), args.output, "regenerated"))
            print("generate-python-bindings.py: _decls.py is out of date; "
                  "run scripts/generate-python-bindings.py")
            return 1
        print("generate-python-bindings.py: _decls.py is up to date")
        return 0
    with open(args.output, "w", encoding="utf-8") as f:
        f.write(generated)
    print(f"generate-python-bindings.py: wrote {os.path.relpath(args.output, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
