"""Core Video from Python: NumPy views without copies, arrays into buffers,
pools, attachments, conversions against a NumPy reference, PNG files
(including colour types the library does not write), and errors."""
import ctypes
import gc
import struct
import weakref
import zlib

import numpy as np
import pytest

import quartzite as qz
from quartzite import _lib, video
from quartzite import (
    CoreVideoError, CVReturn, ErrorCode, InvalidStateError, Layer, PixelBuffer, PixelBufferPool, WrongTypeError,
)


def address(pb):
    return _lib.CVPixelBufferGetBaseAddress(pb)


# MARK: - NumPy views


def test_writes_through_numpy_are_visible_through_the_base_address():
    pb = PixelBuffer(7, 5, "BGRA")
    bpr = pb.bytes_per_row
    with pb.locked():
        a = np.asarray(pb)
        assert a.shape == (5, 7, 4) and a.dtype == np.uint8 and a.strides == (bpr, 4, 1)
        # No copy: the array's memory is the buffer's.
        assert a.__array_interface__["data"][0] == address(pb)
        assert a.ctypes.data == address(pb)
        a[2, 3] = (1, 2, 3, 4)
        assert ctypes.string_at(address(pb) + 2 * bpr + 12, 4) == b"\x01\x02\x03\x04"
        # ... and the other way round.
        ctypes.memset(address(pb) + 4 * bpr, 0x7F, 4)
        assert list(a[4, 0]) == [0x7F] * 4
        assert a.flags.writeable


def test_read_only_lock_gives_a_read_only_array_and_unlocked_buffers_refuse():
    pb = PixelBuffer(4, 4, "BGRA")
    with pytest.raises(InvalidStateError):
        np.asarray(pb)
    with pb.locked(read_only=True):
        a = np.asarray(pb)
        assert not a.flags.writeable
        with pytest.raises(ValueError):
            a[0, 0, 0] = 1
    seed = pb.seed
    with pb.locked(read_only=True):
        pass
    assert pb.seed == seed                       # read-only locks leave the seed
    with pb.locked():
        np.asarray(pb)[0, 0] = 9
    assert pb.seed == seed + 1


@pytest.mark.parametrize("fmt, shape, typestr, strides", [
    ("BGRA", (3, 5, 4), "|u1", lambda bpr: (bpr, 4, 1)),
    ("RGBA", (3, 5, 4), "|u1", lambda bpr: (bpr, 4, 1)),
    (0x20, (3, 5, 4), "|u1", lambda bpr: (bpr, 4, 1)),
    (0x18, (3, 5, 3), "|u1", lambda bpr: (bpr, 3, 1)),
    ("24BG", (3, 5, 3), "|u1", lambda bpr: (bpr, 3, 1)),
    ("b64a", (3, 5, 4), ">u2", lambda bpr: (bpr, 8, 2)),
    ("b48r", (3, 5, 3), ">u2", lambda bpr: (bpr, 6, 2)),
    ("b32a", (3, 5, 2), ">u2", lambda bpr: (bpr, 4, 2)),
    ("b16g", (3, 5), ">u2", lambda bpr: (bpr, 2)),
    (0x28, (3, 5), "|u1", lambda bpr: (bpr, 1)),
    ("2vuy", (3, 3, 4), "|u1", lambda bpr: (bpr, 4, 1)),
    ("yuvs", (3, 3, 4), "|u1", lambda bpr: (bpr, 4, 1)),
])
def test_array_layout_of_each_chunky_format(fmt, shape, typestr, strides):
    pb = PixelBuffer(5, 3, fmt)
    with pb.locked():
        a = np.asarray(pb)
        assert a.shape == shape
        assert a.dtype == np.dtype(typestr)
        assert a.strides == strides(pb.bytes_per_row)
        assert a.ctypes.data == address(pb)


def test_planes_of_planar_buffers():
    pb = PixelBuffer(6, 4, "420v")
    with pytest.raises(TypeError):
        np.asarray(pb)
    with pb.locked():
        y, c = np.asarray(pb.plane(0)), np.asarray(pb.plane(1))
        assert y.shape == (4, 6) and c.shape == (2, 3, 2)
        assert y.ctypes.data == _lib.CVPixelBufferGetBaseAddressOfPlane(pb, 0)
        assert c.ctypes.data == _lib.CVPixelBufferGetBaseAddressOfPlane(pb, 1)
        assert c.strides == (pb.plane(1).bytes_per_row, 2, 1)
    with pytest.raises(IndexError):
        pb.plane(2)
    tri = PixelBuffer(5, 3, "y420")
    with tri.locked():
        assert [np.asarray(tri.plane(i)).shape for i in range(3)] == [(3, 5), (2, 3), (2, 3)]


def test_views_skip_extended_pixels_and_padding():
    pb = PixelBuffer(4, 3, "BGRA", {"ExtendedPixelsLeft": 2, "ExtendedPixelsTop": 1, "BytesPerRowAlignment": 64})
    assert pb.extended_pixels == (2, 0, 1, 0)
    assert pb.bytes_per_row == 64
    with pb.locked():
        a = np.asarray(pb)
        assert a.shape == (3, 4, 4) and a.strides == (64, 4, 1)
        a[...] = 200
        pb.fill_extended_pixels()
        # The extended column left of (0, 0) now holds (0, 0)'s value, seen through raw memory.
        assert ctypes.string_at(address(pb) - 4, 4) == bytes([200] * 4)


def test_a_view_keeps_its_buffer_alive():
    pb = PixelBuffer(3, 3, "BGRA")
    pb.lock()
    a = np.asarray(pb)
    ref = weakref.ref(pb)
    del pb
    gc.collect()
    assert ref() is not None                     # the array's base holds the wrapper
    a[0, 0] = 5
    ref().unlock()


# MARK: - Arrays into buffers


def test_from_array_copies_by_default():
    arr = (np.arange(4 * 6 * 4) % 251).astype(np.uint8).reshape(4, 6, 4)
    pb = PixelBuffer.from_array(arr)
    assert (pb.width, pb.height, pb.pixel_format) == (6, 4, _lib.kCVPixelFormatType_32BGRA)
    with pb.locked(read_only=True):
        assert np.array_equal(np.asarray(pb), arr)
        assert np.asarray(pb).ctypes.data != arr.ctypes.data
    arr[0, 0, 0] = 99
    with pb.locked(read_only=True):
        assert np.asarray(pb)[0, 0, 0] == 0


def test_from_array_of_16_bit_samples_stores_them_big_endian():
    arr = np.array([[[0x0102, 0x0304, 0x0506, 0x0708]]], dtype=np.uint16)
    pb = PixelBuffer.from_array(arr)
    assert pb.pixel_format == qz.fourcc("b64a")
    assert ctypes.string_at(address(pb), 8) == bytes([1, 2, 3, 4, 5, 6, 7, 8])
    rgb = PixelBuffer.from_array(np.zeros((2, 3, 3), np.uint8))
    assert rgb.pixel_format == _lib.kCVPixelFormatType_24RGB
    gray = PixelBuffer.from_array(np.full((2, 3), 17, np.uint8), pixel_format=0x28)
    assert ctypes.string_at(address(gray), 3) == bytes([17] * 3)
    with pytest.raises(ValueError):
        PixelBuffer.from_array(np.zeros((2, 3), np.uint8))          # ambiguous without a format
    with pytest.raises(ValueError):
        PixelBuffer.from_array(np.zeros((2, 3, 4), np.uint8), pixel_format="24BG")  # does not fit


def test_from_array_without_a_copy_shares_memory_and_keeps_the_array_alive():
    arr = np.zeros((3, 8, 4), np.uint8)
    pb = PixelBuffer.from_array(arr, copy=False)
    assert address(pb) == arr.ctypes.data and pb.bytes_per_row == 32
    arr[1, 2] = (9, 8, 7, 6)
    assert ctypes.string_at(address(pb) + 32 + 8, 4) == bytes([9, 8, 7, 6])
    # Rows with padding: a slice of a wider array.
    wide = np.zeros((3, 10, 4), np.uint8)
    part = PixelBuffer.from_array(wide[:, :8], copy=False)
    assert part.bytes_per_row == 40 and part.width == 8
    # The buffer keeps the array alive; the release callback drops it exactly once.
    ref = weakref.ref(arr)
    token_count = len(video._kept_arrays)
    del arr
    gc.collect()
    assert ref() is not None
    layer = Layer()
    layer.contents = pb
    del pb
    gc.collect()
    assert ref() is not None                     # the layer still holds the buffer
    layer.contents = None
    gc.collect()
    assert ref() is None
    assert len(video._kept_arrays) == token_count - 1
    with pytest.raises(ValueError):
        PixelBuffer.from_array(np.zeros((2, 2, 4), np.float32), pixel_format="BGRA", copy=False)


# MARK: - Errors


def test_core_video_errors_carry_cvreturn_codes():
    with pytest.raises(CoreVideoError) as e:
        PixelBuffer(0, 4)
    assert e.value.cv_return == CVReturn.InvalidSize == -6681
    assert e.value.code == ErrorCode.INVALID_ARGUMENT
    with pytest.raises(CoreVideoError) as e:
        PixelBuffer(4, 4, "zzzz")
    assert e.value.cv_return == CVReturn.InvalidPixelFormat
    with pytest.raises(CoreVideoError) as e:
        PixelBuffer(4, 4, "BGRA", {"BytesPerRowAlignment": -1})
    assert e.value.cv_return == CVReturn.InvalidPixelBufferAttributes
    with pytest.raises(CoreVideoError) as e:
        PixelBufferPool(4, 4, "BGRA", minimum_buffer_count=-1)
    assert e.value.cv_return == CVReturn.InvalidPoolAttributes
    pb = PixelBuffer(2, 2)
    with pytest.raises(CoreVideoError) as e:
        pb.unlock()
    assert e.value.cv_return == CVReturn.Error and e.value.code == ErrorCode.INVALID_STATE
    assert e.value.cv_return.name == "Error" and CVReturn.First == CVReturn.Error == -6660
    pb.lock(read_only=True)
    with pytest.raises(CoreVideoError) as e:
        pb.unlock()
    assert e.value.cv_return == CVReturn.InvalidArgument
    pb.unlock(read_only=True)
    with pytest.raises(ValueError):
        qz.fourcc("toolong")
    assert qz.fourcc("420v") == 0x34323076 and qz.fourcc_string(0x42475241) == "BGRA"
    assert qz.fourcc_string(0x20) == "0x00000020"


def test_layer_contents_take_only_pixel_buffers():
    layer, pb = Layer(), PixelBuffer(2, 2)
    layer.contents = pb
    assert layer.contents is pb
    with pytest.raises(WrongTypeError):
        layer.contents = Layer()


# MARK: - Pools, attachments, descriptions


def test_pools_recycle_memory():
    pool = PixelBufferPool(16, 8, "BGRA", minimum_buffer_count=1, maximum_buffer_age=5)
    assert pool.attributes == {"MinimumBufferCount": 1.0, "MaximumBufferAge": 5.0}
    attrs = pool.pixel_buffer_attributes
    assert attrs["Width"] == 16 and attrs["PixelFormatType"] == _lib.kCVPixelFormatType_32BGRA
    assert pool.free_buffer_count == 1
    pb = pool.create_buffer()
    memory = address(pb)
    assert pool.in_use_buffer_count == 1 and pool.free_buffer_count == 0
    pb.close()
    assert pool.free_buffer_count == 1
    again = pool.create_buffer()
    assert address(again) == memory
    again.close()
    pool.flush(all_buffers=True)
    assert pool.free_buffer_count == 1           # the minimum stays


def test_attachments_round_trip_python_values():
    a, b = PixelBuffer(2, 2), PixelBuffer(2, 2)
    a.set_attachment("CVCleanAperture", {"Width": 1, "Height": 2, "HorizontalOffset": 0, "VerticalOffset": 0})
    a.set_attachment("Note", "private", propagate=False)
    assert a.attachment("Note") == ("private", False)
    assert a.attachment("missing") is None
    assert a.attachments() == {"CVCleanAperture": {"Width": 1.0, "Height": 2.0, "HorizontalOffset": 0.0,
                                                   "VerticalOffset": 0.0}}
    assert a.clean_rect == qz.Rect(0.5, 0, 1, 2)
    a.propagate_attachments(b)
    assert b.attachments(propagate=False) == {} and "CVCleanAperture" in b.attachments()
    a.remove_attachment("Note")
    assert a.attachments(propagate=False) == {}
    a.remove_all_attachments()
    assert a.attachments() == {}


def test_pixel_format_descriptions():
    d = qz.pixel_format_description("420v")
    assert d["Planes"] == 2 and d["PixelFormat"] == qz.fourcc("420v")
    assert [p["BitsPerBlock"] for p in d["QZPlaneDescriptions"]] == [8, 16]
    all_formats = qz.all_pixel_format_descriptions()
    assert len(all_formats) >= 37
    assert qz.fourcc("2vuy") in [f["PixelFormat"] for f in all_formats]
    qz.register_pixel_format("QZpy", {"BitsPerBlock": 24, "Name": "from Python"})
    pb = PixelBuffer(3, 2, "QZpy")
    assert pb.bytes_per_row == 16
    with pytest.raises(qz.QuartziteError):
        qz.register_pixel_format("QZpz", {"Name": "no bits"})
    with pytest.raises(qz.UnknownConstantError):
        qz.pixel_format_description("QZpz")


# MARK: - Conversions against NumPy


def numpy_reference(y, cb, cr, kr, kb, full):
    kg = 1 - kr - kb
    y = y.astype(np.float64)
    cb = cb.astype(np.float64) - 128
    cr = cr.astype(np.float64) - 128
    if not full:
        y, cb, cr = (y - 16) * 255 / 219, cb * 255 / 224, cr * 255 / 224
    r = y + 2 * (1 - kr) * cr
    g = y - 2 * (1 - kb) * kb / kg * cb - 2 * (1 - kr) * kr / kg * cr
    b = y + 2 * (1 - kb) * cb
    return np.floor(np.clip(np.stack([b, g, r], axis=-1), 0, 255) + 0.5).astype(np.int32)


@pytest.mark.parametrize("fmt, full", [("420v", False), ("420f", True)])
@pytest.mark.parametrize("matrix, kr, kb", [("ITU_R_601_4", 0.299, 0.114), ("ITU_R_709_2", 0.2126, 0.0722),
                                            ("SMPTE_240M_1995", 0.212, 0.087)])
def test_ycbcr_conversion_matches_numpy_within_one(fmt, full, matrix, kr, kb):
    rng = np.random.default_rng(7)
    h, w = 18, 35
    src = PixelBuffer(w, h, fmt)
    src.set_attachment("CVImageBufferYCbCrMatrix", matrix)
    with src.locked():
        y = np.asarray(src.plane(0))
        c = np.asarray(src.plane(1))
        y[...] = rng.integers(0, 256, y.shape)
        c[...] = rng.integers(0, 256, c.shape)
        luma, chroma = y.copy(), c.copy()
    out = src.converted("BGRA")
    assert out.attachment("CVImageBufferYCbCrMatrix") == (matrix, True)   # propagated
    cb = np.repeat(np.repeat(chroma[..., 0], 2, axis=0), 2, axis=1)[:h, :w]
    cr = np.repeat(np.repeat(chroma[..., 1], 2, axis=0), 2, axis=1)[:h, :w]
    expected = numpy_reference(luma, cb, cr, kr, kb, full)
    with out.locked(read_only=True):
        got = np.asarray(out).astype(np.int32)
    assert np.abs(got[..., :3] - expected).max() <= 1
    assert (got[..., 3] == 255).all()


def test_bgra_to_rgb_formats():
    pb = PixelBuffer.from_array(np.array([[[10, 20, 30, 40]]], np.uint8))
    for fmt, expected in [("RGBA", [30, 20, 10, 40]), (0x20, [40, 30, 20, 10]), ("ABGR", [40, 10, 20, 30]),
                          (0x18, [30, 20, 10]), ("24BG", [10, 20, 30])]:
        out = pb.converted(fmt)
        with out.locked(read_only=True):
            assert list(np.asarray(out)[0, 0]) == expected
    target = PixelBuffer(1, 1, "b64a")
    pb.convert_to(target)
    with target.locked(read_only=True):
        assert list(np.asarray(target)[0, 0]) == [40 * 257, 30 * 257, 20 * 257, 10 * 257]
    with pytest.raises(CoreVideoError) as e:
        pb.convert_to(PixelBuffer(2, 2))
    assert e.value.cv_return == CVReturn.InvalidSize


# MARK: - PNG


def png_bytes(width, height, color_type, bit_depth, rows, extra_chunks=()):
    """A PNG file from raw rows (filter type 0), written here with zlib."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    header = struct.pack(">IIBBBBB", width, height, bit_depth, color_type, 0, 0, 0)
    raw = b"".join(b"\0" + row for row in rows)
    body = b"".join(chunk(k, d) for k, d in extra_chunks)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + body + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def pixels(pb):
    with pb.locked(read_only=True):
        return np.asarray(pb).copy()


def test_png_round_trip_premultiplies(tmp_path):
    arr = np.array([[[10, 20, 30, 128], [0, 0, 255, 255]], [[0, 0, 0, 0], [50, 60, 70, 200]]], np.uint8)
    pb = PixelBuffer.from_array(arr)
    path = tmp_path / "out.png"
    pb.write_png(path)
    back = PixelBuffer.from_png(path)
    assert back.pixel_format == _lib.kCVPixelFormatType_32BGRA and (back.width, back.height) == (2, 2)
    assert np.abs(pixels(back).astype(int) - arr).max() <= 1
    assert (pixels(back)[..., 3] == arr[..., 3]).all()
    # Straight alpha in the file: 30 at alpha 128 is stored as 60.
    data = path.read_bytes()
    assert data.startswith(b"\x89PNG") and b"sRGB" in data


def test_png_colour_types_are_expanded(tmp_path):
    cases = {
        # gray 8-bit: 0, 128, 255
        "gray.png": (png_bytes(3, 1, 0, 8, [bytes([0, 128, 255])]), [[0, 0, 0, 255], [128, 128, 128, 255], [255] * 4]),
        # 16-bit RGBA (big-endian): red at alpha 0x8000 -> premultiplied 128 of 255
        "rgba16.png": (png_bytes(1, 1, 6, 16, [bytes([0xFF, 0xFF, 0, 0, 0, 0, 0x80, 0x00])]), [[0, 0, 128, 128]]),
        # palette with transparency: entry 0 opaque blue, entry 1 transparent green
        "palette.png": (png_bytes(2, 1, 3, 8, [bytes([0, 1])],
                                  [(b"PLTE", bytes([0, 0, 255, 0, 255, 0])), (b"tRNS", bytes([255, 0]))]),
                        [[255, 0, 0, 255], [0, 0, 0, 0]]),
        # gray + alpha 8-bit: white at alpha 51 -> 51 premultiplied
        "graya.png": (png_bytes(1, 1, 4, 8, [bytes([255, 51])]), [[51, 51, 51, 51]]),
    }
    for name, (data, expected) in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        pb = PixelBuffer.from_png(path)
        assert pixels(pb).reshape(-1, 4).tolist() == expected, name


def test_png_errors(tmp_path):
    with pytest.raises(CoreVideoError) as e:
        PixelBuffer.from_png(tmp_path / "missing.png")
    assert e.value.cv_return == CVReturn.Error and "cannot open" in e.value.message
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"GIF89a")
    with pytest.raises(CoreVideoError) as e:
        PixelBuffer.from_png(bad)
    assert "not a PNG" in e.value.message
    broken = tmp_path / "broken.png"
    broken.write_bytes(png_bytes(4, 4, 2, 8, [bytes(12)] * 4)[:-20])   # cut inside IDAT/IEND
    with pytest.raises(CoreVideoError):
        PixelBuffer.from_png(broken)
    with pytest.raises(CoreVideoError) as e:
        PixelBuffer(4, 4, "v210").write_png(tmp_path / "v210.png")
    assert e.value.cv_return == CVReturn.InvalidPixelFormat
    # A header claiming 2^21 x 1 pixels is refused before any pixel memory is allocated.
    huge = tmp_path / "huge.png"
    huge.write_bytes(png_bytes(1 << 21, 1, 0, 8, [bytes(1)]))
    with pytest.raises(CoreVideoError) as e:
        PixelBuffer.from_png(huge)
    assert e.value.cv_return == CVReturn.InvalidSize
    # Over the memory limit: 64x64 RGBA needs 16,384 bytes.
    fits = tmp_path / "fits.png"
    fits.write_bytes(png_bytes(64, 64, 0, 8, [bytes(64)] * 64))
    _lib.QZPixelBufferSetMemoryLimit(_lib.QZPixelBufferGetMemoryInUse() + 1000)
    try:
        with pytest.raises(CoreVideoError) as e:
            PixelBuffer.from_png(fits)
        assert e.value.cv_return == CVReturn.AllocationFailed and e.value.code == ErrorCode.OUT_OF_MEMORY
    finally:
        _lib.QZPixelBufferSetMemoryLimit(0)
    assert PixelBuffer.from_png(fits).width == 64
