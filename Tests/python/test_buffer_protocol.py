"""Pixel buffers, planes and rendered frames share their memory with NumPy
(array interface), memoryview (buffer protocol) and Pillow, with explicit
strides and the format's own byte order."""
import gc

import numpy as np
import pytest

import quartzite as qz

Image = pytest.importorskip("PIL.Image", reason="Pillow is in Tests/python/requirements.txt")


def test_the_buffer_protocol_module_is_built_and_found():
    # The build (and the wheel) carry quartzite._buffer; without it memoryview(pb) would fail.
    assert qz.HAS_BUFFER_PROTOCOL


def test_numpy_and_memoryview_share_the_buffer_memory_both_ways():
    pb = qz.PixelBuffer(5, 3, "BGRA")          # 20 bytes of pixels per row, padded to 32
    with pb.locked():
        a = np.asarray(pb)
        m = memoryview(pb)
        assert a.ctypes.data == pb.base_address
        a[1, 2] = (10, 20, 30, 40)             # through NumPy ...
        assert [m[1, 2, c] for c in range(4)] == [10, 20, 30, 40]   # ... read through memoryview
        m[2, 4, 3] = 200                        # through memoryview ...
        assert a[2, 4, 3] == 200                # ... read through NumPy
        # And both are the buffer's own memory, as C sees it.
        copy = pb.converted("RGBA")
    with copy.locked(read_only=True):
        assert list(np.asarray(copy)[1, 2]) == [30, 20, 10, 40]


def test_views_have_explicit_strides_and_the_format_byte_order():
    pb = qz.PixelBuffer(5, 3, "BGRA")
    with pb.locked():
        m = memoryview(pb)
        assert (m.shape, m.strides, m.format, m.itemsize) == ((3, 5, 4), (pb.bytes_per_row, 4, 1), "B", 1)
        assert pb.bytes_per_row == 32 and not m.c_contiguous
        assert m.nbytes == 3 * 5 * 4            # the pixels, not the padding
        assert np.asarray(pb).strides == (32, 4, 1)
    wide = qz.PixelBuffer(2, 2, "b64a")         # 16-bit big-endian ARGB
    with wide.locked():
        m = memoryview(wide)
        assert (m.shape, m.format, m.itemsize) == ((2, 2, 4), ">H", 2)
        np.asarray(wide)[0, 0] = (0xFFFF, 0x1234, 0, 0)
        assert bytes(m)[2:4] == b"\x12\x34"     # stored big-endian, as the format says


def test_a_read_only_lock_gives_read_only_views_and_no_lock_gives_none():
    pb = qz.PixelBuffer(4, 4, "BGRA")
    with pb.locked(read_only=True):
        m = memoryview(pb)
        assert m.readonly
        with pytest.raises(TypeError):
            m[0, 0, 0] = 1
        assert not np.asarray(pb).flags.writeable
    with pytest.raises(qz.InvalidStateError):
        memoryview(pb)
    with pytest.raises(qz.InvalidStateError):
        np.asarray(pb)


def test_a_view_keeps_its_buffer_alive():
    pb = qz.PixelBuffer(4, 4, "BGRA")
    pb.lock()
    m = memoryview(pb)
    m[3, 3, 0] = 7
    del pb
    gc.collect()
    assert m.obj is not None and m[3, 3, 0] == 7
    m.obj.unlock()


def test_planes_export_their_own_layout():
    pb = qz.PixelBuffer(6, 4, "420v")
    with pb.locked():
        luma, chroma = memoryview(pb.plane(0)), memoryview(pb.plane(1))
        assert luma.shape == (4, 6) and chroma.shape == (2, 3, 2)
        np.asarray(pb.plane(1))[1, 2] = (90, 160)
        assert (chroma[1, 2, 0], chroma[1, 2, 1]) == (90, 160)
        assert chroma.strides[0] == pb.plane(1).bytes_per_row


def _scene():
    root = qz.Layer(bounds=qz.Rect(0, 0, 6, 4), anchor_point=qz.Point(0, 0),
                    background_color=qz.Color(0, 0, 1, 1))
    root.add(qz.Layer(frame=qz.Rect(2, 1, 2, 2), background_color=qz.Color(1, 0, 0, 1)))
    return root


def test_a_frame_without_a_copy_is_the_renderer_target_locked_read_only():
    renderer = qz.Renderer(_scene(), 6, 4)
    target = renderer.target
    with renderer.frame(0.0, copy=False) as frame:
        assert target.lock_count(read_only=True) == 1
        a = np.asarray(frame)
        assert a.ctypes.data == target.base_address and not a.flags.writeable
        assert a.shape == (4, 6, 4) and a.strides == (target.bytes_per_row, 4, 1)
        assert list(a[1, 2]) == [0, 0, 255, 255] and list(a[0, 0]) == [255, 0, 0, 255]   # BGRA
        view = memoryview(frame)
        assert view.readonly and [view[1, 3, c] for c in range(4)] == [0, 0, 255, 255]
        assert np.array_equal(a, renderer.frame(0.0))
    assert target.lock_count(read_only=True) == 0
    with pytest.raises(qz.InvalidStateError):
        np.asarray(frame)


def test_pillow_frombuffer_reads_a_frame_without_a_copy():
    renderer = qz.Renderer(_scene(), 6, 4, pixel_format="RGBA")   # 24 bytes of pixels per row, 32 with padding
    target = renderer.target
    with renderer.frame(0.0, copy=False) as frame:
        image = Image.frombuffer("RGBA", (frame.width, frame.height), frame, "raw", "RGBA",
                                 frame.bytes_per_row, 1)
        assert image.readonly                    # Pillow mapped the memory instead of decoding it
        assert image.getpixel((2, 1)) == (255, 0, 0, 255)
        assert image.getpixel((0, 0)) == (0, 0, 255, 255)
        # Change the target's memory behind Pillow's back: the image shows it.
        with target.locked():
            np.asarray(target)[1, 2] = (0, 255, 0, 255)
        assert image.getpixel((2, 1)) == (0, 255, 0, 255)
