#!/bin/sh
# Installs the build tree into a temporary prefix with `cmake --install`, then
# builds and runs an out-of-tree C program against it twice: once with
# pkg-config and once with CMake's find_package(Quartzite).
# Usage: install_consumer.sh BUILD_DIR CONSUMER_SOURCE_DIR
set -eu
build="$1"; src="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix="$tmp/prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
for f in lib/libquartzite.so include/quartzite/quartzite.h include/quartzite/quartzite_types.h \
         lib/pkgconfig/quartzite.pc lib/cmake/Quartzite/QuartziteConfig.cmake; do
    [ -f "$prefix/$f" ] || { echo "FAIL missing $f in the installed tree"; exit 1; }
done

# pkg-config
PKG_CONFIG_PATH="$prefix/lib/pkgconfig" 
export PKG_CONFIG_PATH
cc -std=c99 -Wall -Werror -o "$tmp/consumer_pc" "$src/consumer.c" $(pkg-config --cflags --libs quartzite) -Wl,-rpath,"$prefix/lib"
"$tmp/consumer_pc"
echo "ok   pkg-config consumer"

# find_package
cmake -S "$src" -B "$tmp/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$tmp/cmake-build" >/dev/null
"$tmp/cmake-build/consumer"
echo "ok   find_package consumer"
