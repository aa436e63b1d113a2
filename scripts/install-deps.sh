#!/bin/sh
# Installs what the build, the tests and the demo need and a fresh Debian
# machine with the Swift toolchain lacks: Debian packages through apt-get, and
# the Python test tools into a project-local virtual environment (.venv; never
# into the system Python, which Debian marks as externally managed). Does
# nothing when everything is present.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)

need_apt=""
have() { command -v "$1" >/dev/null 2>&1; }
have cmake || need_apt="$need_apt cmake"
have pkg-config || need_apt="$need_apt pkg-config"
have valgrind || need_apt="$need_apt valgrind"
have gcc || need_apt="$need_apt gcc"
have g++ || need_apt="$need_apt g++"
have strip || need_apt="$need_apt binutils"
pkg-config --exists libffi 2>/dev/null || need_apt="$need_apt libffi-dev"
pkg-config --exists libpng 2>/dev/null || need_apt="$need_apt libpng-dev"
pkg-config --exists zlib 2>/dev/null || need_apt="$need_apt zlib1g-dev"
pkg-config --exists cairo 2>/dev/null || need_apt="$need_apt libcairo2-dev"
pkg-config --exists libjpeg 2>/dev/null || need_apt="$need_apt libjpeg-dev"
# The SDL host example (examples/sdl_host.c).
pkg-config --exists sdl2 2>/dev/null || need_apt="$need_apt libsdl2-dev"
# The demo's MP4 output (FFmpeg's libraries) and its check (ffprobe).
pkg-config --exists libavcodec libavformat libswscale libavutil 2>/dev/null ||
    need_apt="$need_apt libavcodec-dev libavformat-dev libswscale-dev libavutil-dev"
have ffprobe || need_apt="$need_apt ffmpeg"
# The API reference (docs/).
have doxygen || need_apt="$need_apt doxygen"
# Python: a venv needs ensurepip (Debian's python3-venv), the buffer-protocol
# extension of the Python package needs Python.h (python3-dev).
python3 -c "import ensurepip" 2>/dev/null || need_apt="$need_apt python3-venv"
python3 -c "import os, sysconfig; raise SystemExit(not os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h')))" 2>/dev/null ||
    need_apt="$need_apt python3-dev"
# Text: Pango with HarfBuzz, FriBiDi, fontconfig and FreeType, and the fonts
# the text tests pin in Tests/fonts/fonts.conf (Liberation for Helvetica,
# Arial, Times, Courier and Menlo; DejaVu Sans for Arabic; Lohit for Devanagari).
pkg-config --exists pangocairo pangoft2 fontconfig 2>/dev/null || need_apt="$need_apt libpango1.0-dev"
[ -f /usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf ] || need_apt="$need_apt fonts-liberation2"
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need_apt="$need_apt fonts-dejavu-core"
[ -f /usr/share/fonts/truetype/lohit-devanagari/Lohit-Devanagari.ttf ] || need_apt="$need_apt fonts-lohit-deva"
# OpenGL ES through EGL (the GL tests and the GL example; libquartzite.so
# loads them at run time): the headers and the GL vendor-neutral dispatch,
# Mesa's EGL and its DRI drivers, whose llvmpipe renders without a GPU.
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "ok installed"; }
pkg-config --exists egl 2>/dev/null || need_apt="$need_apt libegl-dev"
pkg-config --exists glesv2 2>/dev/null || need_apt="$need_apt libgles-dev"
installed libegl-mesa0 || need_apt="$need_apt libegl-mesa0"
installed libgl1-mesa-dri || need_apt="$need_apt libgl1-mesa-dri"

if [ -n "$need_apt" ]; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    echo "install-deps: apt-get install$need_apt"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $need_apt >/dev/null
fi

# The Python test tools (Tests/python/requirements.txt) live in .venv.
venv="$root/.venv"
if [ ! -x "$venv/bin/python" ]; then
    echo "install-deps: python3 -m venv .venv"
    python3 -m venv "$venv"
fi
if ! "$venv/bin/python" -c "import pytest, numpy, PIL, av, scikit_build_core, mypy" 2>/dev/null; then
    echo "install-deps: .venv: pip install -r Tests/python/requirements.txt"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$root/Tests/python/requirements.txt"
fi

have swift || { echo "install-deps: the Swift toolchain (swift) is not on PATH; install Swift 6.3 first" >&2; exit 1; }
exit 0
