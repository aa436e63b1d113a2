# benchmarks/common.sh — sourced by run.sh and callgrind.sh.
#
# Finds the built library and compiles the C benchmark against it. Honours
#   QUARTZITE_BUILD  build directory holding lib/libquartzite.so (default <repo>/build)
#   CC               C compiler (default gcc)
#   BENCH_OUT        where build outputs go (default <repo>/benchmarks/results, git-ignored)

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$BENCH_DIR/.." && pwd)"
QZ_BUILD="${QUARTZITE_BUILD:-$REPO_ROOT/build}"
if [ -d "$QZ_BUILD" ]; then
    QZ_BUILD="$(cd "$QZ_BUILD" && pwd)"
fi
QZ_LIBDIR="$QZ_BUILD/lib"
QZ_LIB="$QZ_LIBDIR/libquartzite.so"
QZ_INCLUDE="$REPO_ROOT/include"
BENCH_OUT="${BENCH_OUT:-$BENCH_DIR/results}"
CC="${CC:-gcc}"
# The reference is compiled with exactly these flags, in the same translation
# unit as the loops; the library was compiled by its own build (release).
BENCH_CFLAGS="-O2 -std=c11 -Wall -Wextra"

qz_require_library() {
    if [ ! -f "$QZ_LIB" ]; then
        echo "error: $QZ_BUILD/lib/libquartzite.so not found." >&2
        echo "       Build the library first: run 'make build' in $REPO_ROOT" >&2
        echo "       (or set QUARTZITE_BUILD to a build directory that has lib/libquartzite.so)." >&2
        exit 1
    fi
    if [ ! -f "$QZ_INCLUDE/quartzite/quartzite.h" ]; then
        echo "error: $QZ_INCLUDE/quartzite/quartzite.h not found." >&2
        exit 1
    fi
}

# Describes the library being measured (it may be rebuilt between runs).
qz_library_id() {
    local sum when
    sum="$(sha256sum "$QZ_LIB" 2>/dev/null | cut -c1-12)"
    when="$(date -u -r "$QZ_LIB" '+%Y-%m-%d %H:%M:%S UTC' 2>/dev/null || echo '?')"
    echo "$QZ_LIB (built $when, sha256 $sum)"
}

# Compiles bench_transform.c into $BENCH_OUT/bench_transform.
qz_build_c_bench() {
    mkdir -p "$BENCH_OUT"
    # shellcheck disable=SC2086
    "$CC" $BENCH_CFLAGS -I"$QZ_INCLUDE" "$BENCH_DIR/bench_transform.c" \
        -o "$BENCH_OUT/bench_transform" \
        -L"$QZ_LIBDIR" -lquartzite -Wl,-rpath,"$QZ_LIBDIR" -lm
}

# Compiles bench_layers.c into $BENCH_OUT/bench_layers (glibc: mallinfo2).
qz_build_layers_bench() {
    mkdir -p "$BENCH_OUT"
    # shellcheck disable=SC2086
    "$CC" $BENCH_CFLAGS -I"$QZ_INCLUDE" "$BENCH_DIR/bench_layers.c" \
        -o "$BENCH_OUT/bench_layers" \
        -L"$QZ_LIBDIR" -lquartzite -Wl,-rpath,"$QZ_LIBDIR" -lpthread -lm
}

# Compiles bench_video.c into $BENCH_OUT/bench_video.
qz_build_video_bench() {
    mkdir -p "$BENCH_OUT"
    # shellcheck disable=SC2086
    "$CC" $BENCH_CFLAGS -I"$QZ_INCLUDE" "$BENCH_DIR/bench_video.c" \
        -o "$BENCH_OUT/bench_video" \
        -L"$QZ_LIBDIR" -lquartzite -Wl,-rpath,"$QZ_LIBDIR" -lm
}

# Compiles bench_render.c into $BENCH_OUT/bench_render against pixman
# (Debian's libpixman-1-dev, installed with apt-get when missing: as root, or
# through sudo). Returns 1 when pixman cannot be had.
qz_build_render_bench() {
    mkdir -p "$BENCH_OUT"
    if ! pkg-config --exists pixman-1 2>/dev/null; then
        echo "bench_render: pixman (libpixman-1-dev) is missing; installing it with apt-get" >&2
        local sudo=""
        [ "$(id -u)" = 0 ] || sudo="sudo"
        if command -v apt-get >/dev/null 2>&1; then
            $sudo apt-get install -y libpixman-1-dev >&2 || { $sudo apt-get update >&2 && $sudo apt-get install -y libpixman-1-dev >&2; } || true
        fi
        if ! pkg-config --exists pixman-1 2>/dev/null; then
            echo "bench_render: pixman is still missing (install libpixman-1-dev)" >&2
            return 1
        fi
    fi
    # shellcheck disable=SC2086,SC2046
    "$CC" $BENCH_CFLAGS -I"$QZ_INCLUDE" $(pkg-config --cflags pixman-1) "$BENCH_DIR/bench_render.c" \
        -o "$BENCH_OUT/bench_render" \
        -L"$QZ_LIBDIR" -lquartzite -Wl,-rpath,"$QZ_LIBDIR" $(pkg-config --libs pixman-1) -lm
}

# Compiles bench_render.c as $BENCH_OUT/libbench_render.so (-DBENCH_RENDER_LIBRARY:
# no main, the br_* functions exported) for bench_render_skia.py. Needs pixman
# (qz_build_render_bench installs it).
qz_build_render_library() {
    mkdir -p "$BENCH_OUT"
    # shellcheck disable=SC2086,SC2046
    "$CC" $BENCH_CFLAGS -DBENCH_RENDER_LIBRARY -shared -fPIC -fvisibility=hidden -I"$QZ_INCLUDE" \
        $(pkg-config --cflags pixman-1) "$BENCH_DIR/bench_render.c" -o "$BENCH_OUT/libbench_render.so" \
        -L"$QZ_LIBDIR" -lquartzite -Wl,-rpath,"$QZ_LIBDIR" $(pkg-config --libs pixman-1) -lm
}

# Prints the Python that has skia-python (the project's .venv, made by
# scripts/install-deps.sh), installing benchmarks/requirements.txt into it when
# skia is missing; prints nothing and returns 1 when it cannot be had.
qz_skia_python() {
    local py="$REPO_ROOT/.venv/bin/python"
    if [ ! -x "$py" ]; then
        echo "bench_render_skia: $REPO_ROOT/.venv is missing (run scripts/install-deps.sh or make build)" >&2
        return 1
    fi
    if ! "$py" -c "import skia, numpy" 2>/dev/null; then
        echo "bench_render_skia: skia-python is missing; .venv: pip install -r benchmarks/requirements.txt" >&2
        "$py" -m pip install -q --disable-pip-version-check -r "$BENCH_DIR/requirements.txt" >&2 || true
        if ! "$py" -c "import skia, numpy" 2>/dev/null; then
            echo "bench_render_skia: skia-python could not be installed" >&2
            return 1
        fi
    fi
    echo "$py"
}

# bench_render_gl: bench_render.c's scenes through the GL renderer (EGL and
# GLES from Debian's libegl-dev / libgles-dev, Mesa's llvmpipe without a GPU).
qz_build_render_gl_bench() {
    mkdir -p "$BENCH_OUT"
    if ! pkg-config --exists egl glesv2 pixman-1 2>/dev/null; then
        echo "bench_render_gl: EGL/GLES or pixman development files are missing (scripts/install-deps.sh)" >&2
        return 1
    fi
    # shellcheck disable=SC2086,SC2046
    "$CC" $BENCH_CFLAGS -I"$QZ_INCLUDE" $(pkg-config --cflags pixman-1 egl glesv2) "$BENCH_DIR/bench_render_gl.c" \
        -o "$BENCH_OUT/bench_render_gl" \
        -L"$QZ_LIBDIR" -lquartzite -Wl,-rpath,"$QZ_LIBDIR" $(pkg-config --libs pixman-1 egl glesv2) -lm
}

# Prints the path of swift-demangle (PATH, next to swift, /opt/swift), or nothing.
qz_swift_demangle() {
    local d
    d="$(command -v swift-demangle 2>/dev/null || true)"
    if [ -z "$d" ] && command -v swift >/dev/null 2>&1; then
        d="$(dirname "$(readlink -f "$(command -v swift)")")/swift-demangle"
    fi
    [ -x "$d" ] || d=/opt/swift/usr/bin/swift-demangle
    [ -x "$d" ] && echo "$d"
    return 0
}

# Compiles bench_animation.c into $BENCH_OUT/bench_animation (glibc: mallopt).
qz_build_animation_bench() {
    mkdir -p "$BENCH_OUT"
    # shellcheck disable=SC2086
    "$CC" $BENCH_CFLAGS -I"$QZ_INCLUDE" "$BENCH_DIR/bench_animation.c" \
        -o "$BENCH_OUT/bench_animation" \
        -L"$QZ_LIBDIR" -lquartzite -Wl,-rpath,"$QZ_LIBDIR" -lm
}

qz_build_shadow_path_bench() {
    mkdir -p "$BENCH_OUT"
    # shellcheck disable=SC2086
    "$CC" $BENCH_CFLAGS -I"$QZ_INCLUDE" "$BENCH_DIR/bench_shadow_path.c" \
        -o "$BENCH_OUT/bench_shadow_path" \
        -L"$QZ_LIBDIR" -lquartzite -Wl,-rpath,"$QZ_LIBDIR" -lm
}

qz_build_backdrop_bench() {
    mkdir -p "$BENCH_OUT"
    # shellcheck disable=SC2086
    "$CC" $BENCH_CFLAGS -I"$QZ_INCLUDE" "$BENCH_DIR/bench_backdrop.c" \
        -o "$BENCH_OUT/bench_backdrop" \
        -L"$QZ_LIBDIR" -lquartzite -Wl,-rpath,"$QZ_LIBDIR" -lm
}

qz_build_tiled_bench() {
    mkdir -p "$BENCH_OUT"
    # shellcheck disable=SC2086
    "$CC" $BENCH_CFLAGS -I"$QZ_INCLUDE" "$BENCH_DIR/bench_tiled.c" \
        -o "$BENCH_OUT/bench_tiled" \
        -L"$QZ_LIBDIR" -lquartzite -Wl,-rpath,"$QZ_LIBDIR" -lm
}

qz_build_transaction_bench() {
    mkdir -p "$BENCH_OUT"
    # shellcheck disable=SC2086
    "$CC" $BENCH_CFLAGS -I"$QZ_INCLUDE" "$BENCH_DIR/bench_transaction.c" \
        -o "$BENCH_OUT/bench_transaction" \
        -L"$QZ_LIBDIR" -lquartzite -Wl,-rpath,"$QZ_LIBDIR" -lm
}

# Compiles bench_graphics.c (Core Graphics vs cairo in C) into $BENCH_OUT/bench_graphics.
qz_build_graphics_bench() {
    mkdir -p "$BENCH_OUT"
    # shellcheck disable=SC2086,SC2046
    "$CC" $BENCH_CFLAGS -I"$QZ_INCLUDE" $(pkg-config --cflags cairo) "$BENCH_DIR/bench_graphics.c" \
        -o "$BENCH_OUT/bench_graphics" \
        -L"$QZ_LIBDIR" -lquartzite -Wl,-rpath,"$QZ_LIBDIR" $(pkg-config --libs cairo) -lm
}

qz_build_shapes_bench() {
    mkdir -p "$BENCH_OUT"
    # shellcheck disable=SC2086,SC2046
    "$CC" $BENCH_CFLAGS -I"$QZ_INCLUDE" $(pkg-config --cflags cairo) "$BENCH_DIR/bench_shapes.c" \
        -o "$BENCH_OUT/bench_shapes" \
        -L"$QZ_LIBDIR" -lquartzite -Wl,-rpath,"$QZ_LIBDIR" $(pkg-config --libs cairo) -lm
}

# Compiles bench_emitter.c (a CAEmitterLayer at 1,000 and 10,000 live particles) into $BENCH_OUT/bench_emitter.
qz_build_emitter_bench() {
    mkdir -p "$BENCH_OUT"
    # shellcheck disable=SC2086
    "$CC" $BENCH_CFLAGS -I"$QZ_INCLUDE" "$BENCH_DIR/bench_emitter.c" \
        -o "$BENCH_OUT/bench_emitter" \
        -L"$QZ_LIBDIR" -lquartzite -Wl,-rpath,"$QZ_LIBDIR" -lm
}

qz_build_text_bench() {
    mkdir -p "$BENCH_OUT"
    # shellcheck disable=SC2086,SC2046
    "$CC" $BENCH_CFLAGS -I"$QZ_INCLUDE" $(pkg-config --cflags pangocairo) "$BENCH_DIR/bench_text.c" \
        -o "$BENCH_OUT/bench_text" \
        -L"$QZ_LIBDIR" -lquartzite -Wl,-rpath,"$QZ_LIBDIR" $(pkg-config --libs pangocairo) -lm
}
