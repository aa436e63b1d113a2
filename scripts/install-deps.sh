#!/bin/sh
# Installs what the build, the tests and the demo need and a fresh Debian
# machine with the Swift toolchain lacks: Debian packages through apt-get and
# Python packages through pip. Does nothing when everything is present.
set -eu

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
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $need_apt >/dev/null
fi

need_pip=""
python3 -c "import pytest" 2>/dev/null || need_pip="$need_pip pytest"
python3 -c "import numpy" 2>/dev/null || need_pip="$need_pip numpy"
if [ -n "$need_pip" ]; then
    echo "install-deps: pip install$need_pip"
    python3 -m pip install -q $need_pip
fi

have swift || { echo "install-deps: the Swift toolchain (swift) is not on PATH; install Swift 6.3 first" >&2; exit 1; }
exit 0
