#!/usr/bin/env python3
"""bench_render_skia.py: bench_render's scenes on three sides in one process:
Quartzite's CARenderer, pixman, and Skia's CPU rasterizer (skia-python).

bench_render.c, compiled as a library (libbench_render.so, see
benchmarks/common.sh), builds the content (tiles, photo, positions, colours),
the pixman images and the Quartzite layer trees, and times its two sides in
C (CLOCK_MONOTONIC around F frames). This script copies the same content into
Skia and records each scene once as an SkPicture:

  a  clear to the background, then 1000 drawImage of the two 64x64 tiles at
     the same integer positions (source over)
  b  clear to transparent, then drawImageRect of the 1280x720 photo onto
     the whole target with bilinear sampling (FilterMode.kLinear)
  c  clear to the background, then per card an SkRRect (150x80, radius 12)
     drawn with the shadow colour (black at 0.5) and a normal blur mask
     filter of sigma = shadowRadius / 2 = 3, moved down 3, and the same
     SkRRect antialiased in the card colour. The same scene with the shadow
     as SkImageFilters::DropShadowOnly on the card's paint (the image-filter
     route, a layer per card) is timed too, as c/imagefilter, for context.

A Skia frame is one drawPicture of the recorded picture into an N32
premultiplied raster surface of 1920x1080, then the surface's flush; the
timer (time.perf_counter_ns) is read around F frames, so the Python cost is
one call per frame (about a microsecond against frames of milliseconds).
Image content is handed to Skia in N32 order (this wheel's N32 is RGBA;
Quartzite and pixman draw BGRA, their native order), so no side converts
pixels while timed.

Before timing, one frame of each side is compared with Quartzite's: mean
absolute difference per channel (0-255), the share of pixels whose largest
channel difference is above 2, and the largest difference. The Skia
reference counts only if its picture is Quartzite's within --tolerance
(mean absolute difference, default 0.5): otherwise the script exits 1.
--save-png DIR writes each scene's Quartzite, pixman and Skia frames.

Every round runs every scene on every side once (interleaved; the side
that goes first turns with each round, since the side after a long Skia
frame starts with cold caches); the best round of each is kept. Ratios are Quartzite's time
over pixman's and over Skia's (above 1: Quartzite is slower).

Usage: bench_render_skia.py [--lib PATH] [--reps R] [--frames F]
                            [--scenes abc] [--tolerance T] [--save-png DIR]
"""
import argparse
import ctypes
import os
import sys
import time

# numpy's OpenBLAS would start threads that spin while idle: on a 2-core
# machine they would take a core from the side being timed.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import numpy as np  # noqa: E402
import skia  # noqa: E402

DESCRIBE = {
    "a": "1000 64x64 image layers (half translucent)",
    "b": "full-screen bilinear-scaled 1280x720 image",
    "c": "100 rounded layers with shadows",
}


def load(path):
    lib = ctypes.CDLL(path)
    lib.br_setup.restype = None
    lib.br_geometry.argtypes = [ctypes.POINTER(ctypes.c_double)]
    lib.br_tile.restype = ctypes.POINTER(ctypes.c_uint32)
    lib.br_tile.argtypes = [ctypes.c_int]
    lib.br_photo.restype = ctypes.POINTER(ctypes.c_uint32)
    lib.br_positions.restype = ctypes.POINTER(ctypes.c_int)
    lib.br_positions.argtypes = [ctypes.c_int]
    lib.br_frame.argtypes = [ctypes.c_int, ctypes.c_int]
    lib.br_time.restype = ctypes.c_double
    lib.br_time.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int]
    lib.br_read.argtypes = [ctypes.c_int, ctypes.c_void_p]
    return lib


def n32_order():
    """The channel order of this Skia's N32 colour type: 'RGBA' or 'BGRA'."""
    if skia.kN32_ColorType == skia.ColorType.kRGBA_8888_ColorType:
        return "RGBA"
    if skia.kN32_ColorType == skia.ColorType.kBGRA_8888_ColorType:
        return "BGRA"
    raise SystemExit("bench_render_skia: unexpected N32 colour type %r" % skia.kN32_ColorType)


def bgra_to_n32(bgra):
    """(h, w, 4) BGRA bytes in this Skia's N32 order (a copy)."""
    return np.ascontiguousarray(bgra[..., [2, 1, 0, 3]] if n32_order() == "RGBA" else bgra)


def n32_to_bgra(pixels):
    return np.ascontiguousarray(pixels[..., [2, 1, 0, 3]] if n32_order() == "RGBA" else pixels)


def argb_from_bgra_word(word):
    """0xAARRGGBB (what skia.Color takes, unpremultiplied) from a BGRA pixel word: the same number."""
    return int(word) & 0xFFFFFFFF


class Scenes:
    def __init__(self, lib):
        g = (ctypes.c_double * 15)()
        lib.br_geometry(g)
        (self.w, self.h, self.na, self.tile, self.nc, self.cw, self.ch, self.pw, self.ph) = (int(v) for v in g[:9])
        self.corner, self.shadow_radius, self.shadow_dy, self.shadow_opacity = g[9], g[10], g[11], g[12]
        self.background, self.card = argb_from_bgra_word(g[13]), argb_from_bgra_word(g[14])

        def pixels(ptr, w, h):
            words = np.ctypeslib.as_array(ptr, shape=(h * w,))
            return words.view(np.uint8).reshape(h, w, 4)

        def image(bgra):
            return skia.Image.fromarray(bgra_to_n32(bgra), colorType=skia.kN32_ColorType,
                                        alphaType=skia.AlphaType.kPremul_AlphaType)

        self.tiles = [image(pixels(lib.br_tile(k), self.tile, self.tile)) for k in (0, 1)]
        self.photo = image(pixels(lib.br_photo(), self.pw, self.ph))

        def positions(which, n):
            return [int(v) for v in np.ctypeslib.as_array(lib.br_positions(which), shape=(n,))]

        self.ax, self.ay = positions(0, self.na), positions(1, self.na)
        self.cx, self.cy = positions(2, self.nc), positions(3, self.nc)
        # The shadow colour as pixman's reference makes it: black, alpha 0.5 of 255.
        self.shadow = skia.ColorSetARGB(int(self.shadow_opacity * 255 + 0.5), 0, 0, 0)
        self.sigma = self.shadow_radius / 2

    def record(self, scene, shadow="maskfilter"):
        recorder = skia.PictureRecorder()
        canvas = recorder.beginRecording(skia.Rect.MakeWH(self.w, self.h))
        if scene == "a":
            canvas.clear(self.background)
            for i in range(self.na):
                canvas.drawImage(self.tiles[i & 1], self.ax[i], self.ay[i])
        elif scene == "b":
            canvas.clear(skia.ColorTRANSPARENT)
            canvas.drawImageRect(self.photo, skia.Rect.MakeWH(self.pw, self.ph), skia.Rect.MakeWH(self.w, self.h),
                                 skia.SamplingOptions(skia.FilterMode.kLinear))
        elif scene == "c":
            canvas.clear(self.background)
            card = skia.Paint(Color=self.card, AntiAlias=True)
            if shadow == "maskfilter":
                shadow_paint = skia.Paint(Color=self.shadow, AntiAlias=True,
                                          MaskFilter=skia.MaskFilter.MakeBlur(skia.kNormal_BlurStyle, self.sigma))
            else:
                shadow_paint = skia.Paint(Color=self.card, AntiAlias=True,
                                          ImageFilter=skia.ImageFilters.DropShadowOnly(
                                              0, self.shadow_dy, self.sigma, self.sigma, self.shadow))
            for i in range(self.nc):
                rect = skia.Rect.MakeXYWH(self.cx[i], self.cy[i], self.cw, self.ch)
                if shadow == "maskfilter":
                    canvas.drawRRect(skia.RRect.MakeRectXY(rect.makeOffset(0, self.shadow_dy), self.corner, self.corner),
                                     shadow_paint)
                else:
                    canvas.drawRRect(skia.RRect.MakeRectXY(rect, self.corner, self.corner), shadow_paint)
                canvas.drawRRect(skia.RRect.MakeRectXY(rect, self.corner, self.corner), card)
        else:
            raise ValueError(scene)
        return recorder.finishRecordingAsPicture()


class SkiaSide:
    def __init__(self, w, h):
        self.surface = skia.Surface.MakeRaster(skia.ImageInfo.MakeN32Premul(w, h))
        self.canvas = self.surface.getCanvas()

    def time(self, picture, frames):
        canvas, surface = self.canvas, self.surface
        clock = time.perf_counter_ns
        t = clock()
        for _ in range(frames):
            canvas.drawPicture(picture)
            surface.flushAndSubmit()
        return (clock() - t) / frames

    def frame(self, picture):
        self.canvas.drawPicture(picture)
        self.surface.flushAndSubmit()

    def bgra(self):
        return n32_to_bgra(self.surface.toarray(colorType=skia.kN32_ColorType,
                                                alphaType=skia.AlphaType.kPremul_AlphaType))


def difference(a, b):
    d = np.abs(a.astype(np.int16) - b.astype(np.int16))
    worst = d.max(axis=2)
    return float(d.mean()), 100.0 * float((worst > 2).mean()), int(worst.max())


def save_png(path, bgra):
    from PIL import Image  # Pillow: in .venv (benchmarks/requirements.txt)
    Image.frombuffer("RGBA", (bgra.shape[1], bgra.shape[0]), np.ascontiguousarray(bgra[..., [2, 1, 0, 3]]).tobytes(),
                     "raw", "RGBa", 0, 1).save(path)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = os.environ.get("BENCH_OUT", os.path.join(here, "results"))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lib", default=os.path.join(out, "libbench_render.so"))
    ap.add_argument("--reps", type=int, default=9, help="rounds (best kept; default 9)")
    ap.add_argument("--frames", type=int, default=3, help="frames per round and side (default 3)")
    ap.add_argument("--scenes", default="abc")
    ap.add_argument("--tolerance", type=float, default=0.5,
                    help="largest mean absolute difference (0-255) of Skia's frame from Quartzite's (default 0.5)")
    ap.add_argument("--save-png", metavar="DIR", help="write each scene's three frames as PNG into DIR")
    args = ap.parse_args()
    reps, frames = max(1, args.reps), max(1, args.frames)
    if not os.path.exists(args.lib):
        sys.exit("bench_render_skia: %s not found (benchmarks/run.sh builds it)" % args.lib)

    lib = load(args.lib)
    lib.br_setup()
    scenes = Scenes(lib)
    w, h = scenes.w, scenes.h
    skia_side = SkiaSide(w, h)
    pictures = {s: scenes.record(s) for s in args.scenes if s in DESCRIBE}
    variants = [(s, s, pictures[s]) for s in pictures]
    if "c" in pictures:
        variants.append(("c/imagefilter", "c", scenes.record("c", shadow="imagefilter")))
    print("  skia-python %s (N32 = %s premultiplied raster surface, %dx%d); load average %s" % (
        skia.__version__, n32_order(), w, h, " ".join(os.getloadavg().__repr__().strip("()").split(", "))))

    # The same picture on every side: each frame against Quartzite's.
    quartzite = np.empty((h, w, 4), np.uint8)
    pixman = np.empty((h, w, 4), np.uint8)
    agree = True
    if args.save_png:
        os.makedirs(args.save_png, exist_ok=True)
    for name, s, picture in variants:
        lib.br_frame(1, ord(s))
        lib.br_read(1, quartzite.ctypes.data)
        lib.br_frame(0, ord(s))
        lib.br_read(0, pixman.ctypes.data)
        skia_side.canvas.clear(0)
        skia_side.frame(picture)
        sk = skia_side.bgra()
        mean, share, worst = difference(sk, quartzite)
        pmean, pshare, pworst = difference(pixman, quartzite)
        ok = mean <= args.tolerance
        agree = agree and ok
        print("  scene %-13s Skia vs Quartzite: mean |difference| %.3f, %.3f%% of pixels differ by more than 2 "
              "(largest %d)%s; pixman vs Quartzite: mean %.3f, %.3f%%, largest %d" % (
                  name + ":", mean, share, worst, "" if ok else " ABOVE the tolerance %.2f" % args.tolerance,
                  pmean, pshare, pworst))
        if args.save_png:
            tag = name.replace("/", "-")
            save_png(os.path.join(args.save_png, "scene_%s_quartzite.png" % tag), quartzite)
            save_png(os.path.join(args.save_png, "scene_%s_pixman.png" % tag), pixman)
            save_png(os.path.join(args.save_png, "scene_%s_skia.png" % tag), sk)
    if args.save_png:
        print("  frames written to %s" % args.save_png)
    if not agree:
        print("bench_render_skia: Skia's picture is not Quartzite's (see above); the ratios would not be honest",
              file=sys.stderr)
        return 1

    best = {name: [float("inf")] * 3 for name, _, _ in variants}
    for round_index in range(reps):
        for name, s, picture in variants:
            # The sides take turns at going first: the one after a long Skia
            # frame (or the scene before) starts with cold caches.
            sides = [lambda: lib.br_time(1, ord(s), frames),
                     lambda: lib.br_time(0, ord(s), frames) if name == s else float("nan"),
                     lambda: skia_side.time(picture, frames)]
            times = [0.0] * 3
            for k in range(3):
                side = (round_index + k) % 3
                times[side] = sides[side]()
            best[name] = [min(b, t) if t == t else b for b, t in zip(best[name], times)]

    print("  %-48s %11s %11s %11s %10s %10s" % ("scene (%dx%d, one thread), best of %d rounds of %d frames" % (w, h, reps, frames),
                                               "Quartzite", "pixman", "Skia", "/pixman", "/Skia"))
    for name, s, _ in variants:
        q, p, k = best[name]
        label = "%s %s" % (name, DESCRIBE[s] if name == s else "(Skia: DropShadowOnly image filter)")
        if name == s:
            print("  %-48s %8.3f ms %8.3f ms %8.3f ms %9.2fx %9.2fx" % (label, q / 1e6, p / 1e6, k / 1e6, q / p, q / k))
            print("SUMMARY render %s vs pixman and Skia: %s: %.2fx pixman, %.2fx Skia (Quartzite %.3f ms, pixman %.3f ms, "
                  "Skia %.3f ms)" % (s, DESCRIBE[s], q / p, q / k, q / 1e6, p / 1e6, k / 1e6))
        else:
            print("  %-48s %8.3f ms %11s %8.3f ms %10s %9.2fx" % (label, q / 1e6, "-", k / 1e6, "-", q / k))
            print("SUMMARY render %s: Skia with DropShadowOnly: %.2fx Skia (Quartzite %.3f ms, Skia %.3f ms)" % (
                s, q / k, q / 1e6, k / 1e6))
    return 0


if __name__ == "__main__":
    sys.exit(main())
