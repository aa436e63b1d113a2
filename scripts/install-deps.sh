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
pkg-config --exists cairo 2>/dev/null || need_apt="$need_apt libcairo2-dev"
pkg-config --exists libjpeg 2>/dev/null || need_apt="$need_apt libjpeg-dev"
# Text: Pango with HarfBuzz, FriBiDi, fontconfig and FreeType, and the fonts
# the text tests pin in Tests/fonts/fonts.conf (Liberation for Helvetica,
# Arial, Times, Courier and Menlo; DejaVu Sans for Arabic; Lohit for Devanagari).
pkg-config --exists pangocairo pangoft2 fontconfig 2>/dev/null || need_apt="$need_apt libpango1.0-dev"
[ -f /usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf ] || need_apt="$need_apt fonts-liberation2"
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need_apt="$need_apt fonts-dejavu-core"
[ -f /usr/share/fonts/truetype/lohit-devanagari/Lohit-Devanagari.ttf ] || need_apt="$need_apt fonts-lohit-deva"

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
