"""The pip-installable package: `pip wheel` builds a wheel through CMake
(scikit-build-core) that carries libquartzite.so, and the wheel works in a
fresh virtual environment with nothing from this checkout.

The wheel build reuses the Swift engine already compiled by `make build`
(QUARTZITE_SWIFT_SCRATCH points CMake at build/swift), so it costs a CMake
configure and a link check rather than a second compilation. It runs without
build isolation: scikit-build-core comes from the test venv
(Tests/python/requirements.txt); the fresh venv gets NumPy through pip.
"""
import os
import re
import subprocess
import sys
import zipfile

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("QUARTZITE_BUILD_DIR", os.path.join(REPO, "build"))

# Runs in the fresh venv, from a folder outside the checkout, with no
# PYTHONPATH and no QUARTZITE_LIBRARY.
SCRIPT = r'''
import importlib.metadata, os, sys
import numpy as np
import quartzite as qz

package = os.path.dirname(qz.__file__)
assert package.startswith(sys.prefix), (package, sys.prefix)
assert qz._lib.LIBRARY_PATH == os.path.join(package, "libquartzite.so"), qz._lib.LIBRARY_PATH
assert qz.__version__ == importlib.metadata.version("quartzite"), qz.__version__
assert qz.HAS_BUFFER_PROTOCOL

root = qz.Layer(bounds=qz.Rect(0, 0, 16, 12), anchor_point=qz.Point(0, 0),
                background_color=qz.Color(0, 0, 1, 1))
dot = qz.Layer(frame=qz.Rect(4, 2, 6, 6), background_color=qz.Color(1, 0.5, 0, 1))
root.add(dot)
renderer = qz.Renderer(root, 16, 12)
frame = renderer.frame(0.0)
assert isinstance(frame, np.ndarray) and frame.shape == (12, 16, 4) and frame.dtype == np.uint8
assert tuple(frame[5, 6]) == (0, 128, 255, 255), tuple(frame[5, 6])     # BGRA: orange
assert tuple(frame[0, 0]) == (255, 0, 0, 255), tuple(frame[0, 0])       # blue background
with renderer.frame(0.0, copy=False) as shared:
    view = memoryview(shared)
    assert view.shape == (12, 16, 4) and view.readonly
    assert [view[5, 6, c] for c in range(4)] == [0, 128, 255, 255]
print("wheel ok", qz.__version__)
'''


def _run(cmd, **kwargs):
    result = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kwargs)
    assert result.returncode == 0, f"{' '.join(map(str, cmd))} failed:\n{result.stdout[-6000:]}"
    return result.stdout


def _project_version():
    with open(os.path.join(REPO, "CMakeLists.txt"), encoding="utf-8") as f:
        return re.search(r"project\(Quartzite VERSION ([0-9.]+)", f.read()).group(1)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    pytest.importorskip("scikit_build_core", reason="scikit-build-core is in Tests/python/requirements.txt")
    out = tmp_path_factory.mktemp("wheelhouse")
    scratch = os.path.join(BUILD, "swift")
    _run([sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "--disable-pip-version-check",
          "-w", str(out), f"--config-settings=cmake.define.QUARTZITE_SWIFT_SCRATCH={scratch}", REPO])
    wheels = [name for name in os.listdir(out) if name.endswith(".whl")]
    assert len(wheels) == 1, wheels
    return os.path.join(out, wheels[0])


def test_wheel_is_named_and_filled_as_a_package_with_its_library(wheel):
    name = os.path.basename(wheel)
    assert re.fullmatch(rf"quartzite-{re.escape(_project_version())}-cp311-abi3-linux_\w+\.whl", name), name
    with zipfile.ZipFile(wheel) as z:
        files = set(z.namelist())
        metadata = z.read(next(f for f in files if f.endswith(".dist-info/METADATA"))).decode()
    for required in ("quartzite/libquartzite.so", "quartzite/_buffer.abi3.so", "quartzite/py.typed",
                     "quartzite/_version.py", "quartzite/__init__.py", "quartzite/_decls.py"):
        assert required in files, required
    assert not [f for f in files if f.endswith(".c")], "C sources belong in the sdist, not the wheel"
    assert f"Version: {_project_version()}" in metadata
    assert "Provides-Extra: numpy" in metadata


def test_bundled_library_needs_only_system_libraries(wheel, tmp_path):
    with zipfile.ZipFile(wheel) as z:
        z.extract("quartzite/libquartzite.so", tmp_path)
    out = _run(["ldd", str(tmp_path / "quartzite" / "libquartzite.so")])
    assert "not found" not in out, out
    assert "swift" not in out.lower(), out  # the Swift runtime is linked statically


def test_wheel_installs_into_a_fresh_venv_and_renders_a_frame(wheel, tmp_path):
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)])
    python = str(venv / "bin" / "python")
    _run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check", f"{wheel}[numpy]"])
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "QUARTZITE_LIBRARY", "PYTHONHOME")}
    out = _run([python, "-c", SCRIPT], cwd=str(tmp_path), env=env)
    assert f"wheel ok {_project_version()}" in out


def test_source_tree_version_is_the_cmake_project_version():
    import quartzite
    assert quartzite.__version__ == _project_version()
