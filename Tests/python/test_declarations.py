"""The raw layer declares exactly what the headers declare.

The header is parsed here independently of scripts/generate-python-bindings.py
(a second, simpler reading), so a generator bug cannot hide itself.
"""
import ctypes
import importlib.util
import os
import re
import subprocess
import sys
from ctypes import POINTER, c_bool, c_char_p, c_double, c_int, c_size_t, c_void_p

import pytest

from quartzite import _lib

INCLUDE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                       "include", "quartzite")


def header_text(name):
    with open(os.path.join(INCLUDE, name), encoding="utf-8") as f:
        return re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)


def header_functions():
    """name -> (return type text, [parameter texts]) for quartzite.h."""
    functions = {}
    for m in re.finditer(r"^([A-Za-z_][\w \*]*?)\s*\b(\w+)\((.*?)\);", header_text("quartzite.h"), re.M):
        params = [] if m.group(3).strip() == "void" else [p.strip() for p in m.group(3).split(",")]
        functions[m.group(2)] = (m.group(1).strip(), params)
    return functions


def load_generator(repo):
    spec = importlib.util.spec_from_file_location(
        "generate_python_bindings", os.path.join(repo, "scripts", "generate-python-bindings.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_header_function_has_argtypes_and_restype():
    functions = header_functions()
    assert len(functions) > 90  # the parse found the API, not a fragment of it
    int_names = {"int", "int32_t"} | set(re.findall(r"^typedef (?:int|int32_t) (\w+);", header_text("quartzite_types.h"), re.M))
    assert "CVReturn" in int_names
    assert _lib.missing_functions == []
    for name, (restype, params) in functions.items():
        function = getattr(_lib, name)
        assert function.argtypes is not None, name
        assert len(function.argtypes) == len(params), name
        if restype == "void":
            assert function.restype is None, name
        else:
            # ctypes' default restype is c_int; every non-void result is declared
            # (c_int is right only for int, its typedefs such as CVReturn, and enums).
            assert function.restype is not None, name
            assert function.restype is not c_int or restype in int_names or restype in _lib._decls.ENUMS, name


@pytest.mark.parametrize("name, restype, argtypes", [
    ("CAValueCreateArray", c_void_p, [POINTER(c_void_p), c_size_t]),
    ("CAValueCreateDictionary", c_void_p, [POINTER(c_char_p), POINTER(c_void_p), c_size_t]),
    ("CGColorGetComponents", POINTER(c_double), [c_void_p]),
    ("QZGetLastErrorMessage", c_char_p, []),
    ("CATransform3DRotate", _lib.CATransform3D, [_lib.CATransform3D, c_double, c_double, c_double, c_double]),
    ("CGRectContainsPoint", c_bool, [_lib.CGRect, _lib.CGPoint]),
    ("CAValueGetCount", c_size_t, [c_void_p]),
    ("QZSetErrorHandler", None, [_lib.QZErrorHandlerCallback, c_void_p]),
    ("QZSetMediaTimeSource", None, [_lib.QZMediaTimeSourceCallback, c_void_p]),
])
def test_declarations_follow_the_type_mapping(name, restype, argtypes):
    function = getattr(_lib, name)
    assert function.restype is restype
    assert list(function.argtypes) == argtypes


def test_callback_types_match_the_header():
    assert _lib.QZErrorHandlerCallback._restype_ is None
    assert _lib.QZErrorHandlerCallback._argtypes_ == (c_int, c_char_p, c_void_p)
    assert _lib.QZMediaTimeSourceCallback._restype_ is c_double
    assert _lib.QZMediaTimeSourceCallback._argtypes_ == (c_void_p,)


def test_structs_match_the_header_layout():
    text = header_text("quartzite_types.h")
    structs = re.findall(r"typedef struct (\w+) \{(.*?)\} \1;", text, re.S)
    assert {name for name, _ in structs} >= {"CGPoint", "CGSize", "CGRect", "CGAffineTransform", "CATransform3D"}
    for name, body in structs:
        fields = []
        for decl in body.split(";"):
            if "(" in decl:  # function pointer: R (*name)(params)
                fields.append(re.search(r"\(\s*\*\s*(\w+)\s*\)", decl).group(1))
                continue
            words = re.sub(r"\[.*?\]|\*|\bconst\b", " ", decl).replace(",", " ").split()
            fields += words[1:]  # "CGFloat a, b" -> a, b
        cls = getattr(_lib, name)
        assert issubclass(cls, ctypes.Structure)
        assert [f[0] for f in cls._fields_] == fields, name
    assert ctypes.sizeof(_lib.CATransform3D) == 16 * 8
    assert ctypes.sizeof(_lib.CGRect) == 4 * 8


def test_enum_constants_match_the_header():
    members = re.findall(r"^\s*((?:QZError|CAValueType)\w+) = (\d+)", header_text("quartzite_types.h"), re.M)
    assert len(members) == 9 + 13
    for name, value in members:
        assert getattr(_lib, name) == int(value), name
    assert _lib.QZErrorWrongType == 2 and _lib.CAValueTypeObject == 12


def test_exported_data_constants():
    assert _lib.CATransform3DIsIdentity(_lib.CATransform3DIdentity)
    assert _lib.CGAffineTransformIsIdentity(_lib.CGAffineTransformIdentity)
    assert _lib.CGRectIsNull(_lib.CGRectNull)
    assert _lib.CGRectNull.origin.x == float("inf")
    assert _lib.CGRectIsInfinite(_lib.CGRectInfinite)
    assert (_lib.CGPointZero.x, _lib.CGSizeZero.height, _lib.CGRectZero.size.width) == (0, 0, 0)
    # A copy, not a view of the library's read-only data (writing to that would crash).
    view = _lib.CGRect.in_dll(_lib.lib, "CGRectNull")
    assert ctypes.addressof(_lib.CGRectNull) != ctypes.addressof(view)
    assert bytes(_lib.CGRectNull) == bytes(view)


def test_generator_check_passes(repo):
    result = subprocess.run([sys.executable, os.path.join(repo, "scripts", "generate-python-bindings.py"), "--check"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_generator_check_detects_drift(repo, tmp_path):
    committed = os.path.join(repo, "bindings", "python", "quartzite", "_decls.py")
    stale = tmp_path / "_decls.py"
    with open(committed, encoding="utf-8") as f:
        stale.write_text(f.read().replace('"CGRectUnion": ("CGRect",', '"CGRectUnion": ("c_int",'))
    result = subprocess.run([sys.executable, os.path.join(repo, "scripts", "generate-python-bindings.py"),
                             "--check", "--output", str(stale)], capture_output=True, text=True)
    assert result.returncode == 1
    assert "CGRectUnion" in result.stdout


@pytest.mark.parametrize("declaration", [
    "void QZFrobnicate(CAFrobRef frob);",          # unknown typedef
    "int128_t QZWide(void);",                      # unknown scalar
    "void QZCallMe(void (*fn)(void *info));",      # inline function pointer
    "void QZLog(const char *format, ...);",        # variadic
    "void QZDeep(double ***p);",                   # unsupported pointer depth
])
def test_generator_fails_loudly_on_unknown_c(repo, declaration):
    generator = load_generator(repo)
    with open(os.path.join(INCLUDE, "quartzite_types.h"), encoding="utf-8") as f:
        table = generator.parse_types(f.read())
    with pytest.raises(generator.UnknownType):
        generator.parse_functions(declaration, table)


def test_generator_maps_new_header_shapes(repo):
    """Types the API will grow into: handles, pointers to them, scalar
    typedefs, callback structs."""
    generator = load_generator(repo)
    with open(os.path.join(INCLUDE, "quartzite_types.h"), encoding="utf-8") as f:
        types = f.read().replace("#ifdef __cplusplus\n}\n#endif", "")
    table = generator.parse_types(types + """
        typedef struct CALayer *CALayerRef;
        typedef int32_t CVReturn;
        typedef struct CALayerCallbacks {
            uint32_t version;
            void (*display)(CALayerRef layer, void *info);
        } CALayerCallbacks;
        #define kCAFillModeForwards "forwards"
    """)
    functions = generator.parse_functions(
        "CVReturn QZMake(CALayerRef *out, const CALayerCallbacks *cb, float f, long n);", table)
    assert functions["QZMake"] == ("c_int32", ["POINTER(c_void_p)", "POINTER(CALayerCallbacks)", "c_float", "c_long"])
    assert table.structs["CALayerCallbacks"] == [
        ("version", "c_uint32"), ("display", "CFUNCTYPE(None, c_void_p, c_void_p)")]
    assert table.macros["kCAFillModeForwards"] == "forwards"


def run_python(code, env_update, repo):
    env = {k: v for k, v in os.environ.items() if k != "QUARTZITE_LIBRARY"}
    env.update(env_update)
    env["PYTHONPATH"] = os.path.join(repo, "bindings", "python")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd="/")


def test_library_is_found_in_the_build_tree_without_the_env_var(repo):
    result = run_python("import quartzite._lib as l; print(l.LIBRARY_PATH)", {}, repo)
    assert result.returncode == 0, result.stderr
    assert os.path.realpath(result.stdout.strip()) == os.path.realpath(
        os.path.join(repo, "build", "lib", "libquartzite.so"))


def test_library_env_var_is_honoured(repo, tmp_path):
    # A copy elsewhere proves the variable, not the build tree, chose the file.
    copy = tmp_path / "libquartzite-copy.so"
    with open(os.path.join(repo, "build", "lib", "libquartzite.so"), "rb") as f:
        copy.write_bytes(f.read())
    result = run_python("import quartzite._lib as l; print(l.LIBRARY_PATH, l.CGRectGetMaxX(l.CGRectMake(1, 2, 3, 4)))",
                        {"QUARTZITE_LIBRARY": str(copy)}, repo)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [str(copy), "4.0"]


def test_library_env_var_pointing_nowhere_fails_on_import(repo, tmp_path):
    result = run_python("import quartzite", {"QUARTZITE_LIBRARY": str(tmp_path / "missing.so")}, repo)
    assert result.returncode != 0
    assert "QUARTZITE_LIBRARY" in result.stderr
