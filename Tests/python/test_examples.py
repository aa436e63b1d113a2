"""The Python examples run as a user would run them."""
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(REPO, "bindings", "python")
    return env


def test_write_video_encodes_rendered_frames_into_an_h264_mp4(tmp_path):
    av = pytest.importorskip("av", reason="PyAV is in Tests/python/requirements.txt")
    assert shutil.which("ffprobe"), "ffprobe comes with Debian's ffmpeg (scripts/install-deps.sh)"
    out = tmp_path / "scene.mp4"
    result = subprocess.run([sys.executable, os.path.join(REPO, "examples", "python", "write_video.py"), str(out),
                             "--seconds", "1", "--fps", "24", "--width", "256"],
                            capture_output=True, text=True, env=_env(), timeout=120)
    assert result.returncode == 0, result.stderr
    assert "wrote" in result.stdout and "24 frames of 256x144" in result.stdout
    assert "encoding: frame 24/24 (100%)" in result.stderr          # progress
    probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_frames",
                            "-show_entries", "stream=codec_name,width,height,nb_read_frames",
                            "-show_entries", "format=duration", "-of", "default=noprint_wrappers=1", str(out)],
                           capture_output=True, text=True, check=True).stdout
    fields = dict(line.split("=", 1) for line in probe.split())
    assert fields["codec_name"] == "h264"
    assert (fields["width"], fields["height"], fields["nb_read_frames"]) == ("256", "144", "24")
    assert abs(float(fields["duration"]) - 1.0) < 0.05
    # The frames are the scene: the background colour (0.08, 0.09, 0.13) in a corner.
    with av.open(str(out)) as container:
        first = next(container.decode(video=0)).to_ndarray(format="rgb24")
    assert first.shape == (144, 256, 3)
    assert np.abs(first[3, 3].astype(int) - [20, 23, 33]).max() <= 6, first[3, 3]
