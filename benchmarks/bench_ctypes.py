#!/usr/bin/env python3
"""bench_ctypes.py — the cost of a trivial Quartzite getter from Python.

CAValueGetNumber(v) through raw ctypes (argtypes/restype set, the handle held
as a Python int as restype c_void_p returns it) against, in the same run and
with the same loop:
  - the same call to a trivial C getter with the same signature,
    double qzbench_box_get(const void *), from a small shared library that
    run.sh builds from ref_getter.c (skipped when it is not there): the ratio
    is what Quartzite's getter costs beyond ctypes itself;
  - a ctypes call to a trivial libm function, fabs(double) -> double: the
    floor for any ctypes call, so the ratio isolates what Quartzite adds;
  - a plain Python attribute read (obj.value), for scale;
  - an empty loop, so the loop's own share can be read off.
Best of several repetitions, ns per call. Does not use bindings/python.

Usage: bench_ctypes.py [--lib PATH] [--ref-lib PATH] [--reps R] [--iters N]
The library defaults to $QUARTZITE_LIB, else
${QUARTZITE_BUILD:-<repo>/build}/lib/libquartzite.so.
"""
import argparse
import ctypes
import ctypes.util
import itertools
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def default_lib():
    if os.environ.get("QUARTZITE_LIB"):
        return os.environ["QUARTZITE_LIB"]
    build = os.environ.get("QUARTZITE_BUILD", os.path.join(REPO, "build"))
    return os.path.join(build, "lib", "libquartzite.so")


def ns_per_iter(fn, n):
    t0 = time.perf_counter_ns()
    fn(n)
    t1 = time.perf_counter_ns()
    return (t1 - t0) / n


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lib", default=default_lib())
    ap.add_argument("--ref-lib", default=os.path.join(
        os.environ.get("BENCH_OUT", os.path.join(HERE, "results")), "libqzbenchref.so"))
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--iters", type=int, default=1_000_000)
    args = ap.parse_args()

    if not os.path.exists(args.lib):
        print(f"error: {args.lib} not found; build the library first ('make build')", file=sys.stderr)
        return 1

    lib = ctypes.CDLL(args.lib)
    lib.CAValueCreateNumber.argtypes = [ctypes.c_double]
    lib.CAValueCreateNumber.restype = ctypes.c_void_p
    lib.CAValueGetNumber.argtypes = [ctypes.c_void_p]
    lib.CAValueGetNumber.restype = ctypes.c_double
    lib.CARelease.argtypes = [ctypes.c_void_p]
    lib.CARelease.restype = None

    libm = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
    fabs = libm.fabs
    fabs.argtypes = [ctypes.c_double]
    fabs.restype = ctypes.c_double

    handle = lib.CAValueCreateNumber(1.25)
    if not handle:
        print("error: CAValueCreateNumber returned NULL", file=sys.stderr)
        return 1
    get_number = lib.CAValueGetNumber
    if get_number(handle) != 1.25 or fabs(-1.25) != 1.25:
        print("error: getter returned a wrong value", file=sys.stderr)
        return 1

    class Box:
        __slots__ = ("value",)

        def __init__(self, value):
            self.value = value

    box = Box(1.25)

    ref_get = ref_handle = None
    if os.path.exists(args.ref_lib):
        ref = ctypes.CDLL(args.ref_lib)
        ref.qzbench_box_create.argtypes = [ctypes.c_double]
        ref.qzbench_box_create.restype = ctypes.c_void_p
        ref.qzbench_box_get.argtypes = [ctypes.c_void_p]
        ref.qzbench_box_get.restype = ctypes.c_double
        ref.qzbench_box_release.argtypes = [ctypes.c_void_p]
        ref.qzbench_box_release.restype = None
        ref_handle = ref.qzbench_box_create(1.25)
        ref_get = ref.qzbench_box_get
        if ref_get(ref_handle) != 1.25:
            print("error: reference getter returned a wrong value", file=sys.stderr)
            return 1
    repeat = itertools.repeat

    # Identical loop shapes; only the body differs.
    def loop_getnumber(n, f=get_number, h=handle):
        for _ in repeat(None, n):
            f(h)

    def loop_refget(n, f=ref_get, h=ref_handle):
        for _ in repeat(None, n):
            f(h)

    def loop_fabs(n, f=fabs, x=-1.25):
        for _ in repeat(None, n):
            f(x)

    def loop_attr(n, o=box):
        for _ in repeat(None, n):
            o.value

    def loop_empty(n):
        for _ in repeat(None, n):
            pass

    # Interleave repetitions so machine noise hits all sides alike.
    names = ["getnumber", "refget", "fabs", "attr", "empty"]
    if ref_get is None:
        names.remove("refget")
    fns = dict(getnumber=loop_getnumber, refget=loop_refget, fabs=loop_fabs, attr=loop_attr,
               empty=loop_empty)
    best = {k: float("inf") for k in names}
    for k in names:
        fns[k](args.iters // 20 + 1)  # warm-up
    for _ in range(args.reps):
        for k in names:
            best[k] = min(best[k], ns_per_iter(fns[k], args.iters))

    lib.CARelease(handle)
    if ref_handle:
        ref.qzbench_box_release(ref_handle)

    g, f, a, e = best["getnumber"], best["fabs"], best["attr"], best["empty"]
    print(f"Python ctypes ({sys.implementation.name} {sys.version.split()[0]}): best of {args.reps} x "
          f"{args.iters} calls; ns per loop iteration (loop included)\n")
    print(f"  {'call':42s} {'ns/call':>9s} {'minus loop':>11s} {'vs fabs':>9s}")
    r = best.get("refget")
    rows = [
        ("CAValueGetNumber(v) via ctypes", g),
        *([("trivial C getter, same signature, ctypes", r)] if r else []),
        ("libm fabs(x) via ctypes", f),
        ("Python attribute read (obj.value)", a),
        ("empty loop", e),
    ]
    for label, ns in rows:
        print(f"  {label:42s} {ns:9.1f} {ns - e:11.1f} {ns / f:8.2f}x")
    print()
    if r:
        print(f"SUMMARY python ctypes CAValueGetNumber vs ctypes trivial C getter: {g / r:.2f}x "
              f"({g:.1f} vs {r:.1f} ns/call)")
    print(f"SUMMARY python ctypes CAValueGetNumber vs ctypes libm fabs: {g / f:.2f}x "
          f"({g:.1f} vs {f:.1f} ns/call)")
    print(f"SUMMARY python ctypes CAValueGetNumber vs Python attribute read: {g / a:.1f}x "
          f"({g:.1f} vs {a:.1f} ns)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
