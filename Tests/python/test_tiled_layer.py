"""quartzite.TiledLayer (CATiledLayer) with a Python drawing method: tiles
are drawn on the library's worker threads (each callback takes the GIL), the
frame that waits for them releases the GIL, and nothing deadlocks while the
main thread edits the tree and renders as tiles draw."""
import threading
import time

import pytest

import quartzite as qz
from quartzite import Layer, NotFiniteError, OutOfRangeError, TiledLayer


class RedTiles(TiledLayer):
    drawn = []            # (thread id, clip box, CTM scale) per tile
    lock = threading.Lock()

    def draw_in_context(self, ctx):
        box = ctx.clip_bounding_box
        with RedTiles.lock:
            RedTiles.drawn.append((threading.get_ident(), box, ctx.ctm.a))
        ctx.set_rgb_fill_color(1, 0, 0, 1)
        ctx.fill_rect(box)


RedTiles.set_fade_duration(0)


def scene(waits):
    root = Layer(bounds=(0, 0, 256, 256), anchor_point=(0, 0))
    tiled = RedTiles(frame=(0, 0, 256, 256))
    tiled.tile_size = (64, 64)
    root.add(tiled)
    r = qz.Renderer(root, 256, 256)
    r.waits_for_tiles = waits
    return root, tiled, r


def test_fade_duration_and_bad_input():
    assert TiledLayer.fade_duration() == 0.25
    assert RedTiles.fade_duration() == 0
    with pytest.raises(NotFiniteError):
        RedTiles.set_fade_duration(float("nan"))
    with pytest.raises(OutOfRangeError):
        TiledLayer.set_worker_thread_count(1000)
    assert TiledLayer.worker_thread_count() >= 2


def test_python_drawing_runs_on_worker_threads_and_waiting_frames_show_it():
    RedTiles.drawn.clear()
    root, tiled, r = scene(waits=True)
    assert r.waits_for_tiles
    pixels = r.frame(1.0)
    # 16 tiles of 64 x 64 points, each with its own clip box, at scale 1.
    boxes = sorted((b.origin.x, b.origin.y, b.size.width, b.size.height) for _, b, _ in RedTiles.drawn)
    assert boxes == sorted((x * 64.0, y * 64.0, 64.0, 64.0) for x in range(4) for y in range(4))
    assert all(scale == 1 for _, _, scale in RedTiles.drawn)
    assert threading.get_ident() not in {t for t, _, _ in RedTiles.drawn}
    assert (pixels[:, :, 2] == 255).all() and (pixels[:, :, 3] == 255).all()   # BGRA: red, opaque


def test_frames_do_not_wait_without_the_option():
    RedTiles.drawn.clear()
    root, tiled, r = scene(waits=False)
    first = r.frame(1.0)
    assert TiledLayer.wait_for_tiles(30)
    later = r.frame(2.0)
    assert len(RedTiles.drawn) == 16
    assert (later[:, :, 3] == 255).all()
    assert first[:, :, 3].sum() <= later[:, :, 3].sum()


def test_no_deadlock_while_the_tree_changes_and_python_draws():
    """The main thread edits the layer and renders while workers run Python
    drawing code; all of it must finish (a deadlock would stop it)."""
    root, tiled, r = scene(waits=False)
    done = threading.Event()
    errors = []

    def churn():
        try:
            t = 1.0
            for i in range(60):
                tiled.bounds = (0, 0, 256 + (i % 5) * 16, 256)
                tiled.set_needs_display()
                if i % 7 == 0:
                    tiled.tile_size = (32 + (i % 3) * 32, 64)
                r.frame(t)
                t += 0.01
            assert TiledLayer.wait_for_tiles(30)
        except BaseException as e:  # noqa: BLE001
            errors.append(e)
        finally:
            done.set()

    worker = threading.Thread(target=churn)
    worker.start()
    assert done.wait(120), "rendering while tiles draw in Python did not finish (deadlock?)"
    worker.join()
    assert not errors
    r.waits_for_tiles = True
    pixels = r.frame(10.0)
    assert (pixels[:, :, 3] == 255).all()
