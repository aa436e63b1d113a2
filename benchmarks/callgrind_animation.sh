#!/usr/bin/env bash
# benchmarks/callgrind_animation.sh — instructions per animated layer, library vs C.
#
# Runs every bench_animation kernel once (a root with LAYERS sublayers, default
# 1000, three animations each; FRAMES frames, default 3) under
# `valgrind --tool=callgrind` and divides each kernel's inclusive instruction
# count by frames x layers: instructions per animated layer per frame, for the
# library (CALayerCopyPresentationLayer + CARelease) and the C references
# (decomposed every frame, decomposed once, matrix lerp; and the copy-only
# rows). Repeatable, unlike times.
#
# Then, from a second run that dumps the profile around the library's kernel
# only (--dump-before/--dump-after, so call counts are exact): the call tree
# of a frame (inclusive Ir per animated layer, calls per animated layer),
# where the instructions go by kind (exclusive Ir: allocation, reference
# counting, string handling of key paths, hashing, arithmetic...), and heap
# allocations and retain/release calls per animated layer. Swift names are
# demangled when swift-demangle is found.
#
# Last, the same kernels at LINEAR layers (default 10000; the same frames)
# show whether the instructions per animated layer stay constant as the tree
# grows (linearity, free of timing noise). About 35 s in all.
#
# Usage: benchmarks/callgrind_animation.sh [LAYERS [FRAMES]]
#        (defaults 1000 and 3, or $CALLGRIND_ANIM_LAYERS / $CALLGRIND_ANIM_FRAMES;
#        $CALLGRIND_ANIM_LINEAR: layers of the linearity run, 0 to skip it)
set -euo pipefail
# shellcheck source=common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

LAYERS="${1:-${CALLGRIND_ANIM_LAYERS:-1000}}"
FRAMES="${2:-${CALLGRIND_ANIM_FRAMES:-3}}"
LINEAR="${CALLGRIND_ANIM_LINEAR:-10000}"

if ! command -v valgrind >/dev/null || ! command -v callgrind_annotate >/dev/null; then
    echo "callgrind_animation.sh: valgrind/callgrind_annotate not installed; skipping" >&2
    exit 0
fi
if ! command -v python3 >/dev/null; then
    echo "callgrind_animation.sh: python3 is needed to read the profile; skipping" >&2
    exit 0
fi

qz_require_library
[ -x "$BENCH_OUT/bench_animation" ] && [ "${BENCH_SKIP_BUILD:-0}" = 1 ] || qz_build_animation_bench

prefix="$BENCH_OUT/callgrind_animation"
rm -f "$prefix".out "$prefix".out.* "$prefix".lib.out "$prefix".lib.out.* "$prefix".linear.out "$prefix".linear.out.*
run() { # run OUTFILE LAYERS [valgrind options...]
    local out="$1" layers="$2"
    shift 2
    valgrind --tool=callgrind --callgrind-out-file="$out" "$@" \
        "$BENCH_OUT/bench_animation" --callgrind --layers "$layers" --frames "$FRAMES" >"$out.stdout" 2>"$out.log" || {
        echo "callgrind_animation.sh: the benchmark failed under valgrind; see $out.log" >&2
        exit 1
    }
}
run "$prefix.out" "$LAYERS"
callgrind_annotate --inclusive=yes --tree=calling --threshold=100 "$prefix.out" >"$prefix.tree.txt" 2>/dev/null
# Part 2 of this run is exactly the library's kernel.
run "$prefix.lib.out" "$LAYERS" --dump-before=k_frames_CALayer --dump-after=k_frames_CALayer
if [ ! -f "$prefix.lib.out.2" ]; then
    echo "callgrind_animation.sh: no profile part for k_frames_CALayer (see $prefix.lib.out.log)" >&2
    exit 1
fi
callgrind_annotate --inclusive=yes --tree=calling --threshold=100 "$prefix.lib.out.2" >"$prefix.lib.tree.txt" 2>/dev/null
callgrind_annotate --threshold=100 "$prefix.lib.out.2" >"$prefix.lib.flat.txt" 2>/dev/null
: >"$prefix.linear.txt"
if [ "$LINEAR" -gt 0 ] 2>/dev/null; then
    run "$prefix.linear.out" "$LINEAR"
    callgrind_annotate --inclusive=yes --threshold=100 "$prefix.linear.out" >"$prefix.linear.txt" 2>/dev/null
fi

python3 - "$prefix" "$(qz_swift_demangle)" <<'PY'
import re
import subprocess
import sys
from collections import defaultdict

prefix, demangler = sys.argv[1], sys.argv[2]

ops, frames, layers = {}, 0, 0
for line in open(prefix + ".out.stdout"):
    m = re.match(r"kernel (\S+) ops (\d+) frames (\d+) layers (\d+)", line)
    if m:
        ops[m.group(1)] = int(m.group(2))
        frames, layers = int(m.group(3)), int(m.group(4))

head = re.compile(r"^\s*([\d,]+)\s+\([^)]*\)\s+\*\s+(?:[^:]*:)?(.+?)(?:\s+\[[^\]]*\])?\s*$")
call = re.compile(r"^\s*([\d,]+)\s+\([^)]*\)\s+>\s+(?:[^:]*:)?(.+?)\s+\(([\d,]+)x\)(?:\s+\[[^\]]*\])?\s*$")
flat = re.compile(r"^\s*([\d,]+)\s+\([^)]*\)\s+(?:[^:]*:)?(.+?)(?:\s+\[[^\]]*\])?\s*$")
num = lambda s: int(s.replace(",", ""))


def read_tree(path):
    incl, callees, calls_to = {}, defaultdict(list), defaultdict(int)
    cur = None
    for line in open(path, errors="replace"):
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
    return incl, callees, calls_to


incl, _, _ = read_tree(prefix + ".tree.txt")
lincl, lcallees, lcalls = read_tree(prefix + ".lib.tree.txt")
excl, started = [], False
for line in open(prefix + ".lib.flat.txt", errors="replace"):
    if "file:function" in line:
        started = True
        continue
    m = flat.match(line) if started else None
    if m and "PROGRAM TOTALS" not in line:
        excl.append((m.group(2).strip(), num(m.group(1))))
# In a dumped part, the frames that were on the stack when it began (main and
# above) show the whole part as their own cost: leave them out.
ktotal = lincl.get("k_frames_CALayer") or 0
excl = [(nm, c) for nm, c in excl if not (ktotal and c >= 0.999 * ktotal)]

names = set(lincl) | set(lcalls) | {n for n, _ in excl}
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


def short(n, width=90):
    s = pretty.get(n, n)
    return s if len(s) <= width else s[: width - 3] + "..."


def per_op(kernel):
    v, n = incl.get(kernel), ops.get(kernel)
    return None if v is None or not n else v / n


kernels = [("library (.so)", "k_frames_CALayer"), ("C, decomposed", "k_frames_RefDecomposed"),
           ("C, decomposed once", "k_frames_RefCached"), ("C, matrix lerp", "k_frames_RefLerp"),
           ("library, copy only", "k_copy_CALayer"), ("C, copy only", "k_copy_Ref"),
           ("library, copy, vis.", "k_copyvis_CALayer"), ("C, copy, visuals", "k_copyvis_Ref")]
res = {k: per_op(k) for _, k in kernels}
print(f"Instructions per animated layer per frame (callgrind; a root with {layers} sublayers, 3 animations\n"
      f"each, {frames} frames; the frame loop, the copy and its release included)\n")
print(f"  {'kernel':22s} {'Ir/layer':>10s} {'library / this':>15s}")
for label, k in kernels:
    v = res[k]
    lib = res["k_copyvis_CALayer"] if k.startswith("k_copyvis") else \
        res["k_copy_CALayer"] if k.startswith("k_copy") else res["k_frames_CALayer"]
    r = f"{lib / v:14.2f}x" if v and lib and not k.endswith("CALayer") else ""
    print(f"  {label:22s} {v if v is not None else float('nan'):10.0f} {r:>15s}")

n = ops.get("k_frames_CALayer") or 1
total = lincl.get("k_frames_CALayer") or sum(c for _, c in excl)
print(f"\nInside the library: a frame's call tree (inclusive Ir per animated layer, calls per animated\n"
      f"layer; callees of at least 1% of the kernel; profile dumped around k_frames_CALayer)\n")


# Shared runtime functions are leaves: their callee lists sum over every
# caller in the kernel, so descending from one call site would mislead.
runtime = re.compile(r"swift_(retain|release|bridgeObject|allocObject|dealloc|slowAlloc|slowDealloc|arrayDestroy)|"
                     r"RefCounts|_swift_release_dealloc|^(malloc|free|_int_malloc|_int_free)$|memcpy|memmove")


def walk(fn, depth, path, scale):
    # callgrind_annotate lists a function's callees summed over all its
    # callers: below a function reached from several places, costs and calls
    # are attributed in proportion to this call site's share of it.
    for name, cost, cnt in sorted(lcallees.get(fn, []), key=lambda t: -t[1]):
        c, k = cost * scale, cnt * scale
        if c < total * 0.01 or name in path:
            continue
        print(f"  {c / n:9.0f} {k / n:7.2f}  {'  ' * depth}{short(name, 100 - 2 * depth)}")
        if depth < 16 and not runtime.search(name) and lincl.get(name):
            walk(name, depth + 1, path | {name}, c / lincl[name])


print(f"  {'Ir/layer':>9s} {'calls':>7s}  function")
walk("k_frames_CALayer", 0, {"k_frames_CALayer"}, 1.0)

cats = [
    ("key-path strings (split, String/Character iteration)",
     r"split|String|Substring|Character|_StringGuts|UTF8|UTF16|grapheme|_CharacterRecognizer|Unicode|_uncheckedFromUTF8"),
    ("malloc/free (incl. swift_allocObject/dealloc)",
     r"^(malloc|free|cfree|_int_malloc|_int_free|malloc_consolidate|unlink_chunk|tcache|sysmalloc)|swift_slowAlloc|swift_slowDealloc|swift_allocObject|swift_deallocObject|swift_deallocClassInstance|swift_deallocPartialClassInstance"),
    ("reference counting", r"swift_retain|swift_release|RefCounts|swift_bridgeObject|swift_isUniquelyReferenced|_swift_release_dealloc|swift_unknownObject"),
    ("destroying values (deinit, value witnesses)", r"deinit|ValueWitnesses|swift_arrayDestroy|outlined destroy|__ivar_destroyer|destroy"),
    ("dictionaries and hashing", r"Dictionary|Hasher|hash|_RawDictionaryStorage|siphash|find<"),
    ("arrays", r"Array|_ContiguousArray"),
    ("libm (sin, acos, sqrt, fmod...)", r"^(__)?(sin|cos|acos|asin|atan|sqrt|fmod|floor|ceil|round|__ieee754|__sin|__cos|__acos|do_sin|do_cos)"),
    ("transform decomposition and slerp", r"DecomposedTransform|CATransform3D"),
    ("timing (MediaTiming, TimingFunction, localTime)", r"MediaTiming|TimingFunction|localTime"),
]
bucket = defaultdict(int)
for name, cost in excl:
    p = pretty.get(name, name)
    for label, rx in cats:
        if re.search(rx, p) or re.search(rx, name):
            bucket[label] += cost
            break
    else:
        bucket["everything else"] += cost
print(f"\nWhere the library's instructions go, by kind (exclusive Ir per animated layer; "
      f"{sum(bucket.values()) / n:.0f} in all)\n")
for label, cost in sorted(bucket.items(), key=lambda t: -t[1]):
    print(f"  {cost / n:9.0f}  {100 * cost / max(sum(bucket.values()), 1):5.1f}%  {label}")

print(f"\nThe functions with the most exclusive Ir (per animated layer)\n")
for name, cost in excl[:18]:
    print(f"  {cost / n:9.1f}  {100 * cost / total:5.1f}%  {short(name)}")


def calls(rx):
    """Calls to functions matching rx from functions that do not match it
    (swift_bridgeObjectRelease tail-calls swift_release: one release)."""
    bare = lambda nm: re.sub(r"'\d+$", "", nm)
    return sum(c for caller, fs in lcallees.items() if not re.fullmatch(rx, bare(caller))
               for name, _, c in fs if re.fullmatch(rx, bare(name)))


mallocs = calls(r"malloc")
frees = calls(r"free|cfree")
retains = calls(r"swift_retain(_n)?|swift_bridgeObjectRetain(_n)?|swift_nonatomic_retain")
releases = calls(r"swift_release(_n)?|swift_bridgeObjectRelease(_n)?")
splits = sum(c for name, c in lcalls.items() if "split" in pretty.get(name, name) and "closure" not in pretty.get(name, name))
alloc_chain = re.compile(r"swift_allocObject|swift_slowAlloc|malloc|_int_malloc|swift_allocBox|swift_allocEmptyBox")
sites = defaultdict(int)
for caller, fs in lcallees.items():
    if alloc_chain.fullmatch(re.sub(r"'\d+$", "", caller)):
        continue
    for name, _, c in fs:
        if re.fullmatch(r"swift_allocObject|swift_slowAlloc|malloc", re.sub(r"'\d+$", "", name)):
            sites[caller] += c
print(f"\nWhere a frame allocates: heap allocations per animated layer by calling function\n")
for caller, c in sorted(sites.items(), key=lambda t: -t[1]):
    if c / n >= 0.05:
        print(f"  {c / n:6.2f}  {short(caller)}")

print(f"\nPer animated layer per frame: {mallocs / n:.1f} malloc calls, {frees / n:.1f} free calls, "
      f"{retains / n:.1f} retain calls, {releases / n:.1f} release calls (bridge-object ones included: most\n"
      f"of those on strings are cheap no-ops), {splits / n:.1f} String.split calls")

lin_ops, lin = {}, {}
try:
    for line in open(prefix + ".linear.out.stdout"):
        m = re.match(r"kernel (\S+) ops (\d+)", line)
        if m:
            lin_ops[m.group(1)] = int(m.group(2))
    for line in open(prefix + ".linear.txt", errors="replace"):
        m = flat.match(line)
        if m and m.group(2).strip() in lin_ops:
            lin[m.group(2).strip()] = num(m.group(1)) / lin_ops[m.group(2).strip()]
except OSError:
    pass
big = max(lin_ops.values()) // max(frames, 1) if lin_ops else 0
if lin:
    print(f"\nLinearity: instructions per animated layer at {layers} and at {big} layers (same frames)\n")
    print(f"  {'kernel':22s} {layers:>10d} {big:>10d} {'ratio':>9s}")
    for label, k in kernels:
        if k in lin and res.get(k):
            print(f"  {label:22s} {res[k]:10.0f} {lin[k]:10.0f} {lin[k] / res[k]:8.3f}x")

print()
lib, dec, cached, lerp = (res[k] for k in ("k_frames_CALayer", "k_frames_RefDecomposed", "k_frames_RefCached",
                                            "k_frames_RefLerp"))
if lib and dec and cached and lerp:
    print(f"SUMMARY callgrind animation: presentation frame, {layers} layers x 3 animations: {lib:.0f} Ir/layer, "
          f"{lib / dec:.2f}x vs C decomposed ({dec:.0f}), {lib / cached:.2f}x vs C decomposed once ({cached:.0f}), "
          f"{lib / lerp:.2f}x vs C matrix lerp ({lerp:.0f})")
if lin and "k_frames_CALayer" in lin and "k_frames_RefDecomposed" in lin:
    print(f"SUMMARY callgrind animation: linearity, Ir/layer at {big} vs {layers} layers: library "
          f"{lin['k_frames_CALayer'] / res['k_frames_CALayer']:.3f}x, C decomposed "
          f"{lin['k_frames_RefDecomposed'] / res['k_frames_RefDecomposed']:.3f}x (1.000x = linear)")
lc, rc = res["k_copy_CALayer"], res["k_copy_Ref"]
if lc and rc:
    print(f"SUMMARY callgrind animation: presentation copy of an unanimated tree: {lc:.0f} Ir/layer, "
          f"{lc / rc:.1f}x vs C array copy ({rc:.0f})")
lv, rv = res["k_copyvis_CALayer"], res["k_copyvis_Ref"]
if lv and rv:
    print(f"SUMMARY callgrind animation: presentation copy of an unanimated tree with visuals: {lv:.0f} Ir/layer, "
          f"{lv / rv:.1f}x vs C ({rv:.0f})")
top = sorted(bucket.items(), key=lambda t: -t[1])[:3]
print(f"SUMMARY callgrind animation: library per animated layer: {mallocs / n:.0f} mallocs, "
      f"{(retains + releases) / n:.0f} retain/release, {splits / n:.0f} key-path splits; top kinds: "
      + ", ".join(f"{label.split(' (')[0]} {100 * c / max(sum(bucket.values()), 1):.0f}%" for label, c in top))
PY
