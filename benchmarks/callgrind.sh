#!/usr/bin/env bash
# benchmarks/callgrind.sh — instructions per operation, library vs reference.
#
# Runs every kernel of bench_transform once with a small iteration count under
# `valgrind --tool=callgrind` and divides each kernel's inclusive instruction
# count (the loop plus everything it calls) by the iteration count. Unlike
# wall-clock times these counts are repeatable on a noisy shared machine.
# Instruction counts ignore latency, stalls and memory traffic, so they
# complement the timed ratios rather than replace them.
#
# Also prints, for each library entry point, the instructions it spends per
# call in itself and in each function it calls (retain/release, memcpy, an
# out-of-line helper, libm, ...): that is where to look when a ratio is high.
#
# Usage: benchmarks/callgrind.sh [ITERS]   (default 20000, or $CALLGRIND_ITERS)
set -euo pipefail
# shellcheck source=common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ITERS="${1:-${CALLGRIND_ITERS:-20000}}"

if ! command -v valgrind >/dev/null || ! command -v callgrind_annotate >/dev/null; then
    echo "callgrind.sh: valgrind/callgrind_annotate not installed; skipping" >&2
    exit 0
fi
if ! command -v python3 >/dev/null; then
    echo "callgrind.sh: python3 is needed to read the profile; skipping" >&2
    exit 0
fi

qz_require_library
[ -x "$BENCH_OUT/bench_transform" ] && [ "${BENCH_SKIP_BUILD:-0}" = 1 ] || qz_build_c_bench

out="$BENCH_OUT/callgrind.out"
tree="$BENCH_OUT/callgrind.tree.txt"
valgrind --tool=callgrind --callgrind-out-file="$out" \
    "$BENCH_OUT/bench_transform" --only all --iters "$ITERS" >"$BENCH_OUT/callgrind.stdout" 2>"$BENCH_OUT/callgrind.log" || {
    echo "callgrind.sh: the benchmark failed under valgrind; see $BENCH_OUT/callgrind.log" >&2
    exit 1
}
callgrind_annotate --inclusive=yes --tree=calling --threshold=100 "$out" >"$tree" 2>/dev/null

python3 - "$tree" "$ITERS" <<'PY'
import re
import sys
from collections import defaultdict

tree_path, iters = sys.argv[1], int(sys.argv[2])
# Lines look like:
#   "  7,120,000 (6.8%)  *  ???:CATransform3DConcat [/path/lib.so]"  (a function, inclusive)
#   "    280,000 (0.3%)  >   ???:callee (40,000x) [/path]"            (one of its callees)
head = re.compile(r"^\s*([\d,]+)\s+\([^)]*\)\s+\*\s+(?:[^:]*:)?(.+?)(?:\s+\[[^\]]*\])?\s*$")
call = re.compile(r"^\s*([\d,]+)\s+\([^)]*\)\s+>\s+(?:[^:]*:)?(.+?)\s+\(([\d,]+)x\)(?:\s+\[[^\]]*\])?\s*$")
self_cost = re.compile(r"^\s*([\d,]+)\s+\([^)]*\)\s+\*\s+")

incl = {}
callees = defaultdict(list)
calls_to = defaultdict(int)
cur = None
for line in open(tree_path, errors="replace"):
    m = head.match(line)
    if m:
        cur = m.group(2).strip()
        incl[cur] = int(m.group(1).replace(",", ""))
        continue
    m = call.match(line)
    if m and cur is not None:
        cost, name, n = int(m.group(1).replace(",", "")), m.group(2).strip(), int(m.group(3).replace(",", ""))
        callees[cur].append((name, cost, n))
        calls_to[name] += n
        continue
    if not line.strip():
        cur = None

def per_op(kernel):
    v = incl.get("k_" + kernel)
    return None if v is None else v / iters

def fmt(v):
    return f"{v:9.0f}" if v is not None else "        -"

def ratio(a, b):
    return f"{a / b:8.2f}x" if a and b else "        -"

print(f"Instructions per operation (callgrind, {iters} iterations per kernel, loop included)\n")
print(f"  {'function':28s} {'library':>9s} {'C inline':>9s} {'C call':>9s} {'lib/inl':>9s} {'lib/call':>9s}")
rows = [("Concat (dependent chain)", "concat"), ("Concat (independent)", "concat_tp"),
        ("Invert (dependent chain)", "invert"), ("Invert (independent)", "invert_tp"),
        ("MakeRotation (independent)", "rotation")]
summary = []
for label, k in rows:
    lib, ref, cal = per_op(k + "_lib"), per_op(k + "_ref"), per_op(k + "_call")
    print(f"  {label:28s} {fmt(lib)} {fmt(ref)} {fmt(cal)} {ratio(lib, ref)} {ratio(lib, cal)}")
    if lib and ref:
        summary.append(f"SUMMARY callgrind CATransform3D{label}: {lib / ref:.2f}x instructions vs inlined C "
                       f"({lib:.0f} vs {ref:.0f} Ir/op)")

print(f"\n  {'getter':28s} {'Ir/call':>9s} {'vs C call':>10s}")
base = per_op("getter_call")
for label, k in [("CAValueGetNumber (.so)", "getnumber_lib"), ("CGColorGetAlpha (.so)", "getalpha_lib"),
                 ("C getter, noinline", "getter_call"), ("C getter + checks, noinline", "getter_checked"),
                 ("C getter, inlined load", "getter_inline")]:
    v = per_op(k)
    print(f"  {label:28s} {fmt(v)} {ratio(v, base):>10s}")
g = per_op("getnumber_lib")
if g and base:
    summary.append(f"SUMMARY callgrind getter CAValueGetNumber via .so: {g / base:.2f}x instructions vs direct C call "
                   f"({g:.0f} vs {base:.0f} Ir/call, loop included)")

print("\nInside the library: instructions per call of each entry point, and of what it calls\n")
for fn in ["CATransform3DConcat", "CATransform3DInvert", "CATransform3DMakeRotation",
           "CAValueGetNumber", "CGColorGetAlpha"]:
    n = calls_to.get(fn)
    if not n or fn not in incl:
        continue
    total = incl[fn] / n
    inner = sum(c for _, c, _ in callees[fn]) / n
    print(f"  {fn}: {total:.0f} Ir/call ({total - inner:.0f} in its own body)")
    for name, cost, cnt in sorted(callees[fn], key=lambda t: -t[1]):
        if cost / n < 0.5:
            continue
        print(f"      {cost / n:7.0f} Ir/call  {cnt / n:4.1f} calls  -> {name}")
        for sub, scost, scnt in sorted(callees.get(name, []), key=lambda t: -t[1]):
            sn = calls_to.get(name) or 1
            if scost / sn >= 0.5:
                print(f"      {'':7s}      {scost / sn:7.0f} Ir per call of it -> {sub}")
print()
for s in summary:
    print(s)
PY
