"""Renders a Quartzite animation with Renderer.frame() and encodes it into an
H.264 MP4 with PyAV (``pip install av``), showing the progress.

    python examples/python/write_video.py out/scene.mp4 --seconds 3 --fps 30 --width 640

Each frame is rendered at its own media time (no real clock involved), read
without a copy (``Renderer.frame(t, copy=False)``: the renderer's BGRA
pixels, strided rows) and handed to PyAV, which converts BGRA to YUV 4:2:0.
"""
import argparse
import math
import sys

import av
import numpy as np

import quartzite as qz


def build_scene(width, height):
    """A background, a card that spins and a ball that travels a curve."""
    root = qz.Layer(bounds=qz.Rect(0, 0, width, height), anchor_point=qz.Point(0, 0),
                    background_color=qz.Color(0.08, 0.09, 0.13))
    size = height * 0.4
    card = qz.Layer(frame=qz.Rect(width * 0.12, height * 0.3, size * 1.4, size), corner_radius=size * 0.12,
                    background_color=qz.Color(0.25, 0.5, 0.95), border_width=3,
                    border_color=qz.Color(1, 1, 1), shadow_opacity=0.5, shadow_radius=8)
    ball = qz.Layer(frame=qz.Rect(0, 0, size * 0.3, size * 0.3), corner_radius=size * 0.15,
                    background_color=qz.Color(0.98, 0.55, 0.15))
    root.add(card)
    root.add(ball)
    qz.transaction.flush()                      # the tree is committed before it animates

    spin = qz.BasicAnimation("transform.rotation.z", from_value=0.0, to_value=2 * math.pi, duration=2.0,
                             repeat_count=math.inf)
    card.add_animation(spin, "spin")
    path = (qz.Path().move_to(width * 0.55, height * 0.8)
            .curve_to(width * 0.7, height * 0.05, width * 0.95, height * 0.9, width * 0.85, height * 0.2))
    travel = qz.KeyframeAnimation("position", path=path, duration=3.0, autoreverses=True,
                                  repeat_count=math.inf, calculation_mode="paced")
    ball.add_animation(travel, "travel")
    qz.transaction.flush()                      # both start at media time 0
    return root


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", help="the MP4 file to write")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--fps", type=int, default=30)
    parser.add_argument("--width", type=int, default=640, help="the height is 9/16 of it")
    args = parser.parse_args(argv)
    width = args.width & ~1
    height = (width * 9 // 16) & ~1
    frames = max(1, round(args.seconds * args.fps))

    clock = [0.0]
    qz.set_media_time_source(lambda: clock[0])   # offline rendering: we say what time it is
    try:
        root = build_scene(width, height)
        renderer = qz.Renderer(root, width, height)
        with av.open(args.output, mode="w") as container:
            stream = container.add_stream("libx264", rate=args.fps)
            stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
            stream.options = {"crf": "20"}
            for index in range(frames):
                clock[0] = index / args.fps
                with renderer.frame(clock[0], copy=False) as frame:
                    # A view of the renderer's pixels: (height, width, 4) BGRA, rows bytes_per_row apart.
                    pixels = np.asarray(frame)
                    video_frame = av.VideoFrame.from_ndarray(np.ascontiguousarray(pixels), format="bgra")
                for packet in stream.encode(video_frame):
                    container.mux(packet)
                done = index + 1
                if done == frames or done % max(1, frames // 10) == 0:
                    # In place on a terminal, a line each tenth in a log.
                    tty = sys.stderr.isatty()
                    print(f"{chr(13) if tty else ''}encoding: frame {done}/{frames} ({100 * done // frames}%)",
                          end="" if tty else "\n", file=sys.stderr, flush=True)
            for packet in stream.encode():       # the encoder's delayed frames
                container.mux(packet)
        if sys.stderr.isatty():
            print(file=sys.stderr)
        print(f"wrote {args.output}: {frames} frames of {width}x{height} at {args.fps} fps (H.264)")
    finally:
        qz.set_media_time_source(None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
