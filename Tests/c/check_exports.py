#!/usr/bin/env python3
"""Checks that libquartzite.so exports exactly the public API: every function
and constant declared in the headers is a dynamic symbol, every dynamic symbol
the library defines is declared, all carry the public prefixes, and ldd shows
no Swift runtime library and no EGL or GL library (those are loaded at run
time by the GL functions).  Usage: check_exports.py LIBRARY INCLUDE_DIR"""
import os
import re
import subprocess
import sys

lib, include = sys.argv[1], sys.argv[2]
text = "".join(open(os.path.join(include, f)).read() for f in ("quartzite.h", "quartzite_types.h"))
text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
declared_functions = set(re.findall(r"^[A-Za-z_][\w \*]*?\b(\w+)\((?:void|[^)]*)\);", text, re.M))
declared_data = set(re.findall(r"^extern const \w+ (\w+);", text, re.M))
declared = declared_functions | declared_data

nm = subprocess.run(["nm", "-D", "--defined-only", lib], check=True, capture_output=True, text=True).stdout
exported = {line.split()[-1] for line in nm.splitlines() if line.strip()}
exported = {s.split("@")[0] for s in exported}

failures = []
public = re.compile(r"^(CA|CG|CV|CF|CT|QZ|k)")
for s in sorted(exported):
    if not public.match(s):
        failures.append(f"exported symbol without a public prefix: {s}")
for s in sorted(exported - declared):
    failures.append(f"exported but not declared in the header: {s}")
for s in sorted(declared - exported):
    failures.append(f"declared in the header but not exported: {s}")

ldd = subprocess.run(["ldd", lib], check=True, capture_output=True, text=True).stdout
for line in ldd.splitlines():
    if "swift" in line.lower():
        failures.append(f"depends on a Swift runtime library: {line.strip()}")
    # EGL and GLES are loaded at run time, only by the GL functions.
    if re.search(r"lib(EGL|GLESv[12]|GL|GLX|OpenGL)[._]", line):
        failures.append(f"links a GL library (it must be loaded at run time): {line.strip()}")

for f in failures:
    print("FAIL", f)
print(f"{len(declared_functions)} functions and {len(declared_data)} constants declared, "
      f"{len(exported)} symbols exported")
sys.exit(1 if failures else 0)
