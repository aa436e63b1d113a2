#!/usr/bin/env bash
# benchmarks/callgrind_layers.sh — instructions per layer operation, library vs C.
#
# Runs every kernel of bench_layers once (a tree of LAYERS layers, default
# 2000; the 10,000-layer hit-test tree; 32 hit tests and 4 full-walk misses)
# under `valgrind --tool=callgrind` and divides each kernel's inclusive
# instruction count by its number of operations: per layer created, per
# property set, per hit test, per layer destroyed. Repeatable, unlike times.
#
# Then, for the library: what each hot entry point spends per call in its own
# body and in what it calls (two levels), and, from three more runs that
# collect only inside one kernel (--toggle-collect), the functions where the
# instructions of a property set, a layer creation and a hit test go
# (exclusive cost per operation). Swift names are demangled when
# swift-demangle is found.
#
# Usage: benchmarks/callgrind_layers.sh [LAYERS]   (default 2000, or $CALLGRIND_LAYERS)
set -euo pipefail
# shellcheck source=common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

LAYERS="${1:-${CALLGRIND_LAYERS:-2000}}"

if ! command -v valgrind >/dev/null || ! command -v callgrind_annotate >/dev/null; then
    echo "callgrind_layers.sh: valgrind/callgrind_annotate not installed; skipping" >&2
    exit 0
fi
if ! command -v python3 >/dev/null; then
    echo "callgrind_layers.sh: python3 is needed to read the profile; skipping" >&2
    exit 0
fi

qz_require_library
[ -x "$BENCH_OUT/bench_layers" ] && [ "${BENCH_SKIP_BUILD:-0}" = 1 ] || qz_build_layers_bench

prefix="$BENCH_OUT/callgrind_layers"
run() { # run OUTFILE [valgrind options...]
    local out="$1"
    shift
    valgrind --tool=callgrind --callgrind-out-file="$out" "$@" \
        "$BENCH_OUT/bench_layers" --callgrind --layers "$LAYERS" >"$out.stdout" 2>"$out.log" || {
        echo "callgrind_layers.sh: the benchmark failed under valgrind; see $out.log" >&2
        exit 1
    }
}
run "$prefix.out"
callgrind_annotate --inclusive=yes --tree=calling --threshold=100 "$prefix.out" >"$prefix.tree.txt" 2>/dev/null
for k in setall create hit; do
    run "$prefix.$k.out" --toggle-collect="k_${k}_CALayer"
    callgrind_annotate --threshold=100 "$prefix.$k.out" >"$prefix.$k.txt" 2>/dev/null
done

python3 - "$prefix" "$(qz_swift_demangle)" <<'PY'
import re
import subprocess
import sys
from collections import defaultdict

prefix, demangler = sys.argv[1], sys.argv[2]

ops = {}
for line in open(prefix + ".out.stdout"):
    m = re.match(r"kernel (\S+) ops (\d+)", line)
    if m:
        ops[m.group(1)] = int(m.group(2))

head = re.compile(r"^\s*([\d,]+)\s+\([^)]*\)\s+\*\s+(?:[^:]*:)?(.+?)(?:\s+\[[^\]]*\])?\s*$")
call = re.compile(r"^\s*([\d,]+)\s+\([^)]*\)\s+>\s+(?:[^:]*:)?(.+?)\s+\(([\d,]+)x\)(?:\s+\[[^\]]*\])?\s*$")
flat = re.compile(r"^\s*([\d,]+)\s+\([^)]*\)\s+(?:[^:]*:)?(.+?)(?:\s+\[[^\]]*\])?\s*$")
num = lambda s: int(s.replace(",", ""))

incl = {}
callees = defaultdict(list)
calls_to = defaultdict(int)
cur = None
for line in open(prefix + ".tree.txt", errors="replace"):
    m = head.match(line)
    if m:
        cur = m.group(2).strip()
        incl[cur] = num(m.group(1))
        continue
    m = call.match(line)
    if m and cur is not None:
        name, n = m.group(2).strip(), num(m.group(3))
        callees[cur].append((name, num(m.group(1)), n))
        calls_to[name] += n
        continue
    if not line.strip():
        cur = None

names = set(incl) | set(calls_to)
for fs in callees.values():
    names.update(n for n, _, _ in fs)
exclusive = {}
for k in ("setall", "create", "hit"):
    rows, started = [], False
    for line in open(f"{prefix}.{k}.txt", errors="replace"):
        if "file:function" in line:
            started = True
            continue
        m = flat.match(line) if started else None
        if m and "PROGRAM TOTALS" not in line:
            rows.append((m.group(2).strip(), num(m.group(1))))
    exclusive[k] = rows
    names.update(n for n, _ in rows)

pretty = {n: n for n in names}
if demangler:
    plain = sorted(n for n in names if n.startswith("$s"))
    base = [re.sub(r"'\d+$", "", n) for n in plain]
    try:
        out = subprocess.run([demangler, "--simplified"], input="\n".join(base) + "\n",
                             capture_output=True, text=True, check=True).stdout.splitlines()
        for n, b, d in zip(plain, base, out):
            pretty[n] = d + n[len(b):]
    except (OSError, subprocess.CalledProcessError):
        pass

def short(n, width=96):
    s = pretty.get(n, n)
    return s if len(s) <= width else s[: width - 3] + "..."

def per_op(kernel):
    v, n = incl.get(kernel), ops.get(kernel)
    return None if v is None or not n else v / n

def fmt(v):
    return f"{v:10.0f}" if v is not None else "         -"

def ratio(a, b):
    return f"{a / b:8.2f}x" if a and b else "        -"

sides = ["CALayer", "RefLayer", "RefMLayer"]
rows = [("create + add to tree", "create"), ("set 10 properties (fresh)", "setall")]
props = ["Position", "Bounds", "AnchorPoint", "ZPosition", "Opacity", "Hidden", "CornerRadius",
         "BorderWidth", "BackgroundColor", "Transform"]
rows += [("set " + p[0].lower() + p[1:], "set" + p) for p in props]
rows += [("hitTest (10,000 layers)", "hit"), ("hitTest (miss: full walk)", "hitmiss"),
         ("destroy (release root)", "destroy")]

n_layers = ops.get("k_create_CALayer", 0)
print(f"Instructions per operation (callgrind; tree of {n_layers} layers, hitTest tree of 10,000 layers;\n"
      "the kernel's loop included)\n")
print(f"  {'operation':28s} {'library':>10s} {'C':>10s} {'C+mutex':>10s} {'lib/C':>9s} {'lib/C+mtx':>9s}")
res = {}
for label, k in rows:
    lib, ref, refm = (per_op(f"k_{k}_{s}") for s in sides)
    res[k] = (lib, ref, refm)
    print(f"  {label:28s} {fmt(lib)} {fmt(ref)} {fmt(refm)} {ratio(lib, ref)} {ratio(lib, refm)}")

print("\nInside the library: instructions per call of each entry point, and of what it calls\n"
      "(averaged over every call in the run, the setup's included)\n")
for fn in ["CALayerCreate", "CALayerAddSublayer", "CALayerSetPosition", "CALayerSetBounds",
           "CALayerSetCornerRadius", "CALayerSetBackgroundColor", "CALayerSetTransform", "CALayerHitTest"]:
    n = calls_to.get(fn)
    if not n or fn not in incl:
        continue
    total = incl[fn] / n
    inner = sum(c for _, c, _ in callees[fn]) / n
    print(f"  {fn}: {total:.0f} Ir/call ({total - inner:.0f} in its own body)")
    for name, cost, cnt in sorted(callees[fn], key=lambda t: -t[1]):
        if cost / n < 0.5:
            continue
        print(f"      {cost / n:7.0f} Ir/call {cnt / n:5.1f} calls -> {short(name)}")
        sn = calls_to.get(name) or 1
        for sub, scost, scnt in sorted(callees.get(name, []), key=lambda t: -t[1]):
            if scost / sn >= 1:
                print(f"      {'':7s}         {scost / sn:7.0f} Ir per call of it -> {short(sub, 80)}")

labels = {"setall": ("a property set (10 properties, fresh layers)", "k_setall_CALayer"),
          "create": ("a layer creation (create + add + release)", "k_create_CALayer"),
          "hit": ("a hit test (10,000-layer tree)", "k_hit_CALayer")}
for k in ("setall", "create", "hit"):
    what, kern = labels[k]
    n = ops.get(kern)
    if not n:
        continue
    total = sum(c for _, c in exclusive[k])
    print(f"\nWhere the instructions of {what} go: exclusive Ir per operation\n"
          f"(only inside {kern}; {total / n:.0f} Ir/op in all)\n")
    for name, cost in exclusive[k][:16]:
        if cost / n < 0.5:
            break
        print(f"  {cost / n:10.1f}  {100 * cost / total:5.1f}%  {short(name)}")

print()
lib, ref, refm = res["setall"]
if lib and ref and refm:
    print(f"SUMMARY callgrind layers: property set via .so (10 properties, fresh layers): {lib:.0f} Ir/set, "
          f"{lib / refm:.2f}x vs C+mutex ({refm:.0f}), {lib / ref:.2f}x vs C ({ref:.0f})")
lib, ref, refm = res["create"]
if lib and ref and refm:
    print(f"SUMMARY callgrind layers: create + add to tree: {lib:.0f} Ir/layer, {lib / refm:.2f}x vs C+mutex "
          f"({refm:.0f}), {lib / ref:.2f}x vs C")
lib, ref, refm = res["hit"]
if lib and ref and refm:
    print(f"SUMMARY callgrind layers: hitTest on 10,000 layers: {lib:.0f} Ir/query, {lib / refm:.2f}x vs C+mutex "
          f"({refm:.0f}), {lib / ref:.2f}x vs C")
PY
