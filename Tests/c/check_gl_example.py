#!/usr/bin/env python3
"""Runs the GL example (examples/gl_engine.c) into a temporary directory and
checks its frames: 60 PNGs of 320 x 240, the GL content upright and clipped
by the layer's rounded corners, the title bar's translucency, the card's
shadow, the triangle and the badge moving from frame to frame.
Usage: check_gl_example.py GL_ENGINE_BINARY"""
import os
import struct
import subprocess
import sys
import tempfile
import zlib


def read_png(path):
    """(width, height, rows of RGB(A) tuples) of an 8-bit RGB or RGBA PNG."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    i, idat = 8, b""
    while i < len(data):
        n, kind = struct.unpack(">I4s", data[i:i + 8])
        body = data[i + 8:i + 8 + n]
        if kind == b"IHDR":
            w, h, depth, color = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and color in (2, 6), (depth, color)
        elif kind == b"IDAT":
            idat += body
        i += 12 + n
    raw, bpp = zlib.decompress(idat), 4 if color == 6 else 3
    rows, prev, pos = [], bytearray(w * bpp), 0
    for _ in range(h):
        f, line = raw[pos], bytearray(raw[pos + 1:pos + 1 + w * bpp])
        pos += 1 + w * bpp
        for x in range(len(line)):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, [[tuple(r[x * bpp:x * bpp + 3]) for x in range(w)] for r in rows]


failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def near(p, q, tol=3):
    return all(abs(a - b) <= tol for a, b in zip(p, q))


def main():
    binary = sys.argv[1]
    with tempfile.TemporaryDirectory() as out:
        run = subprocess.run([binary, out], capture_output=True, text=True)
        print(run.stdout.strip())
        check(run.returncode == 0, f"the example ran ({run.stderr.strip()})")
        names = sorted(f for f in os.listdir(out) if f.endswith(".png"))
        check(names == [f"frame_{i:03d}.png" for i in range(60)], "60 frames written")
        frames = {i: read_png(os.path.join(out, f"frame_{i:03d}.png")) for i in (0, 10, 59)}
    w, h, f0 = frames[0]
    check((w, h) == (320, 240), "frames are 320 x 240")
    f10, f59 = frames[10][2], frames[59][2]
    root = (31, 33, 41)   # 0.12, 0.13, 0.16
    check(near(f0[230][5], root), "the root layer's colour")
    check(near(f0[10][100], (49, 106, 199)), "the title bar: 90% blue over the root")
    check(near(f0[45][17], root), "the GL layer's rounded corner clips its content")
    check(near(f0[45][100], (230, 230, 242)), "the GL layer's border is drawn over its content")
    check(near(f0[60][30], (13, 18, 38)), "the GL content: the host's clear colour")
    check(near(f59[60][30], (13, 43, 38)), "the host's clear colour changes over the frames")
    # Frame 0: red vertex at the right, green at the top left, blue at the
    # bottom left of the view (GL's y up shows upright).
    red, green, blue = f0[116][167], f0[71][87], f0[161][87]
    check(red[0] > 200 and red[1] < 40 and red[2] < 40, "frame 0: the red corner at the right")
    check(green[1] > 200 and green[0] < 40, "frame 0: the green corner at the top left")
    check(blue[2] > 200 and blue[0] < 40, "frame 0: the blue corner at the bottom left")
    check(near(f10[116][167], (13, 22, 38), 4), "frame 10: the triangle has turned away from there")
    check(f10[70][140][0] > 200, "frame 10: the red corner is at the top right")
    check(sum(f0[192][260]) < sum(root) - 10, "the card's shadow darkens the root below it")
    check(f0[172][200] != f10[172][200] or f0[190][195] != f10[190][195], "the badge turns")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
