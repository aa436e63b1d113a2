#!/usr/bin/env bash
# benchmarks/run.sh — the one command: build and run every benchmark, print ratios.
#
#   benchmarks/run.sh [--quick] [--no-callgrind] [--no-python] [--no-layers] [--no-animation] [--no-video]
#                     [--no-transaction] [--no-render] [--no-skia] [--no-graphics] [--no-shapes] [--no-emitter] [--no-text]
#                     [--no-gl] [--no-tiled]
#
#   --quick         fewer iterations and repetitions (a smoke run; noisier)
#   --no-callgrind  skip the instruction counts (also when valgrind is missing)
#   --no-python     skip the ctypes benchmark (also when python3 is missing)
#   --no-layers     skip the layer-model benchmark (bench_layers)
#   --no-animation  skip the presentation/animation benchmark (bench_animation)
#   --no-video      skip the Core Video benchmark (bench_video)
#   --no-transaction skip the transaction benchmark (bench_transaction)
#   --no-render     skip the renderer benchmark against pixman (bench_render; it
#                   installs Debian's libpixman-1-dev with apt-get when missing),
#                   the shadow-path linearity benchmark (bench_shadow_path) and
#                   the backdrop blur against the shadow scene (bench_backdrop)
#   --no-skia       skip Skia, bench_render's second reference (bench_render_skia.py:
#                   skia-python in the project's .venv, installed from
#                   benchmarks/requirements.txt when missing)
#   --no-graphics   skip the Core Graphics / display cycle benchmark against cairo
#                   (bench_graphics)
#   --no-shapes     skip the animated shape layers against cairo in C (bench_shapes)
#   --no-tiled      skip the CATiledLayer benchmark (bench_tiled)
#   --no-emitter    skip the emitter layer at 1,000 and 10,000 live particles (bench_emitter)
#   --no-text       skip the text benchmark against Pango and cairo in C (bench_text)
#   --no-gl         skip the GL renderer against the CPU renderer (bench_render_gl,
#                   on Mesa's llvmpipe without a GPU: for context only)
#
# Environment: QUARTZITE_BUILD (default <repo>/build), CC (default gcc),
# BENCH_OUT (default benchmarks/results, git-ignored), BENCH_STRICT=1 to exit
# non-zero when a performance target is not met.
#
# Exits 1 if the library is not built, if the library and the C reference
# disagree numerically, or if the library records an error while measured.
set -euo pipefail
# shellcheck source=common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

quick=0 callgrind=1 python=1 layers=1 animation=1 video=1 transaction=1 render=1 skia=1 graphics=1 shapes=1 emitter=1 text=1 gl=1 tiled=1
for arg in "$@"; do
    case "$arg" in
    --quick) quick=1 ;;
    --no-callgrind) callgrind=0 ;;
    --no-python) python=0 ;;
    --no-layers) layers=0 ;;
    --no-tiled) tiled=0 ;;
    --no-animation) animation=0 ;;
    --no-video) video=0 ;;
    --no-transaction) transaction=0 ;;
    --no-render) render=0 ;;
    --no-skia) skia=0 ;;
    --no-graphics) graphics=0 ;;
    --no-shapes) shapes=0 ;;
    --no-emitter) emitter=0 ;;
    --no-text) text=0 ;;
    --no-gl) gl=0 ;;
    -h | --help)
        sed -n '2,32p' "$0" | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    *)
        echo "run.sh: unknown option '$arg' (try --help)" >&2
        exit 2
        ;;
    esac
done

qz_require_library
mkdir -p "$BENCH_OUT"

echo "== Quartzite benchmarks"
echo "library:   $(qz_library_id)"
echo "compiler:  $("$CC" --version | head -n1), reference and loops built with: $BENCH_CFLAGS"
echo "machine:   $(nproc) CPU(s), $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //' || echo '?')"
echo "note:      absolute times on a shared machine are noise; read the ratios (same run, interleaved)."
echo

qz_build_c_bench
if [ "$layers" = 1 ]; then
    qz_build_layers_bench
fi
if [ "$animation" = 1 ]; then
    qz_build_animation_bench
fi
if [ "$video" = 1 ]; then
    qz_build_video_bench
fi
if [ "$transaction" = 1 ]; then
    qz_build_transaction_bench
fi
shadow_path=$render
if [ "$shadow_path" = 1 ]; then
    qz_build_shadow_path_bench
    qz_build_backdrop_bench
fi
if [ "$tiled" = 1 ]; then
    qz_build_tiled_bench
fi
if [ "$render" = 1 ] && ! qz_build_render_bench; then
    echo "run.sh: bench_render skipped (pixman is not available; see the message above)" >&2
    render=0
fi
skia_python=""
if [ "$render" = 1 ] && [ "$skia" = 1 ]; then
    if skia_python="$(qz_skia_python)" && qz_build_render_library; then
        :
    else
        echo "run.sh: bench_render_skia skipped (skia-python or the scene library is not available; see above)" >&2
        skia=0
    fi
else
    skia=0
fi
if [ "$graphics" = 1 ]; then
    qz_build_graphics_bench
fi
if [ "$shapes" = 1 ]; then
    qz_build_shapes_bench
fi
if [ "$emitter" = 1 ]; then
    qz_build_emitter_bench
fi
if [ "$text" = 1 ]; then
    qz_build_text_bench
fi
if [ "$gl" = 1 ] && { [ "$render" = 0 ] || ! qz_build_render_gl_bench; }; then
    echo "run.sh: bench_render_gl skipped (it needs bench_render's pixman and EGL/GLES)" >&2
    gl=0
fi
"$CC" -O2 -shared -fPIC "$BENCH_DIR/ref_getter.c" -o "$BENCH_OUT/libqzbenchref.so"

c_args=()
py_args=()
layer_args=()
anim_args=()
video_args=()
tx_args=()
render_args=()
skia_args=()
graphics_args=()
shapes_args=()
emitter_args=()
text_args=()
shadow_args=()
backdrop_args=()
tiled_args=()
kernel_args=()
if [ "$quick" = 1 ]; then
    c_args=(--reps 3 --scale 0.2)
    py_args=(--reps 3 --iters 200000)
    layer_args=(--reps 2)
    anim_args=(--reps 2 --frames 6)
    video_args=(--reps 3)
    tx_args=(--reps 3)
    render_args=(--reps 2 --frames 2)
    skia_args=(--reps 2 --frames 1)
    shadow_args=(--reps 1)
    backdrop_args=(--reps 2 --frames 1)
    tiled_args=(--reps 1 --quick)
    kernel_args=(--reps 3 --frames 2)
    graphics_args=(--reps 2 --paths 300 --frames 20)
    shapes_args=(--reps 1 --layers 300 --frames 6)
    emitter_args=(--reps 1 --frames 5)
    text_args=(--reps 2 --labels 300 --frames 50)
fi

status=0
echo "== C: bench_transform"
"$BENCH_OUT/bench_transform" ${c_args[@]+"${c_args[@]}"} | tee "$BENCH_OUT/bench_transform.txt" || status=1
if [ "$status" != 0 ]; then
    echo "run.sh: bench_transform FAILED (see the messages above)" >&2
    exit 1
fi
echo

: >"$BENCH_OUT/bench_layers.txt"
if [ "$layers" = 1 ]; then
    echo "== C: bench_layers (layer model: create, set properties, hitTest, memory)"
    "$BENCH_OUT/bench_layers" ${layer_args[@]+"${layer_args[@]}"} | tee "$BENCH_OUT/bench_layers.txt" || {
        echo "run.sh: bench_layers FAILED (see the messages above)" >&2
        exit 1
    }
    echo
fi

: >"$BENCH_OUT/bench_animation.txt"
if [ "$animation" = 1 ]; then
    echo "== C: bench_animation (presentation of 1k/10k/100k layers x 3 animations)"
    "$BENCH_OUT/bench_animation" ${anim_args[@]+"${anim_args[@]}"} | tee "$BENCH_OUT/bench_animation.txt" || {
        echo "run.sh: bench_animation FAILED (see the messages above)" >&2
        exit 1
    }
    echo
fi

: >"$BENCH_OUT/bench_video.txt"
if [ "$video" = 1 ]; then
    echo "== C: bench_video (Core Video: '420v' -> BGRA conversion, pools)"
    "$BENCH_OUT/bench_video" ${video_args[@]+"${video_args[@]}"} | tee "$BENCH_OUT/bench_video.txt" || {
        echo "run.sh: bench_video FAILED (see the messages above)" >&2
        exit 1
    }
    echo
fi

: >"$BENCH_OUT/bench_transaction.txt"
if [ "$transaction" = 1 ]; then
    echo "== C: bench_transaction (one transaction of 1k/10k/100k implicit animations)"
    "$BENCH_OUT/bench_transaction" ${tx_args[@]+"${tx_args[@]}"} | tee "$BENCH_OUT/bench_transaction.txt" || {
        echo "run.sh: bench_transaction FAILED (see the messages above)" >&2
        exit 1
    }
    echo
fi

: >"$BENCH_OUT/bench_shadow_path.txt"
if [ "$shadow_path" = 1 ]; then
    echo "== C: bench_shadow_path (a shadow path of 16k ... 1M elements: cost per element vs 16k)"
    "$BENCH_OUT/bench_shadow_path" ${shadow_args[@]+"${shadow_args[@]}"} | tee "$BENCH_OUT/bench_shadow_path.txt" || {
        echo "run.sh: bench_shadow_path FAILED (see the messages above)" >&2
        exit 1
    }
    echo
fi

: >"$BENCH_OUT/bench_backdrop.txt"
if [ "$shadow_path" = 1 ]; then
    echo "== C: bench_backdrop (a full-screen backdrop blur vs bench_render's shadow scene, 1920x1080)"
    "$BENCH_OUT/bench_backdrop" ${backdrop_args[@]+"${backdrop_args[@]}"} | tee "$BENCH_OUT/bench_backdrop.txt" || {
        echo "run.sh: bench_backdrop FAILED (see the messages above)" >&2
        exit 1
    }
    echo
fi

: >"$BENCH_OUT/bench_tiled.txt"
if [ "$tiled" = 1 ]; then
    echo "== C: bench_tiled (CATiledLayer: panning cached tiles vs image layers; cold tiles on 2 vs 1 workers)"
    "$BENCH_OUT/bench_tiled" ${tiled_args[@]+"${tiled_args[@]}"} | tee "$BENCH_OUT/bench_tiled.txt" || {
        echo "run.sh: bench_tiled FAILED (see the messages above)" >&2
        exit 1
    }
    echo
fi

: >"$BENCH_OUT/bench_render.txt"
if [ "$render" = 1 ]; then
    echo "== C: bench_render (CARenderer vs pixman: the renderer issue's four scenes at 1920x1080)"
    "$BENCH_OUT/bench_render" ${render_args[@]+"${render_args[@]}"} | tee "$BENCH_OUT/bench_render.txt" || {
        echo "run.sh: bench_render FAILED (see the messages above)" >&2
        exit 1
    }
    echo
    echo "== C: the demo's busiest frame, whole, on 1 and 2 threads (examples/demo.c --threads-bench, 1920x1440)"
    # shellcheck disable=SC2086
    if "$CC" $BENCH_CFLAGS -I"$QZ_INCLUDE" -DQZ_ASSETS_DIR="\"$BENCH_DIR/../examples/assets\"" "$BENCH_DIR/../examples/demo.c" \
            "$BENCH_DIR/../examples/apng_writer.c" -o "$BENCH_OUT/demo_threads" \
            -L"$QZ_LIBDIR" -lquartzite -Wl,-rpath,"$QZ_LIBDIR" -lz -lm; then
        "$BENCH_OUT/demo_threads" --width 1920 --threads-bench 2 | tee -a "$BENCH_OUT/bench_render.txt" || {
            echo "run.sh: the demo's thread benchmark FAILED (see the messages above)" >&2
            exit 1
        }
    else
        echo "run.sh: examples/demo.c did not build for the thread benchmark" >&2
        status=1
    fi
    echo
    if [ "$skia" = 1 ]; then
        echo "== Python + C: bench_render_skia (CARenderer vs pixman vs Skia's CPU rasterizer, scenes a-c, one process)"
        BENCH_OUT="$BENCH_OUT" "$skia_python" "$BENCH_DIR/bench_render_skia.py" ${skia_args[@]+"${skia_args[@]}"} \
            | tee -a "$BENCH_OUT/bench_render.txt" || {
            echo "run.sh: bench_render_skia FAILED (see the messages above)" >&2
            status=1
        }
        echo
    fi
    echo "== Swift: bench_kernels (the renderer's pixel kernels vs pixman on the same buffers)"
    # The kernels' own sources, copied without their imports of the engine's
    # other targets (the benchmark is one module; kernels/Sources/bench_kernels/Engine
    # is git-ignored).
    engine_copy="$BENCH_DIR/kernels/Sources/bench_kernels/Engine"
    rm -rf "$engine_copy" && mkdir -p "$engine_copy"
    for f in QuartziteRender/Render/Kernels/Blend.swift QuartziteRender/Render/Kernels/PixelVector.swift \
             QuartziteRender/Render/Kernels/Surface.swift QuartziteRender/Render/Kernels/Texture.swift \
             QuartziteGraphics/Graphics/GaussianBlur.swift; do
        sed '/^import Quartzite/d' "$BENCH_DIR/../Sources/$f" >"$engine_copy/$(basename "$f")"
    done
    if swift build -c release --package-path "$BENCH_DIR/kernels" >"$BENCH_OUT/bench_kernels_build.txt" 2>&1; then
        "$BENCH_DIR/kernels/.build/release/bench_kernels" ${kernel_args[@]+"${kernel_args[@]}"} | tee -a "$BENCH_OUT/bench_render.txt" || status=1
    else
        echo "run.sh: bench_kernels did not build (see $BENCH_OUT/bench_kernels_build.txt)" >&2
        status=1
    fi
    echo
fi

: >"$BENCH_OUT/bench_graphics.txt"
if [ "$graphics" = 1 ]; then
    echo "== C: bench_graphics (CGContext vs cairo in C; the display cycle at commit and per frame)"
    "$BENCH_OUT/bench_graphics" ${graphics_args[@]+"${graphics_args[@]}"} | tee "$BENCH_OUT/bench_graphics.txt" || {
        echo "run.sh: bench_graphics FAILED (see the messages above)" >&2
        exit 1
    }
    echo
fi

: >"$BENCH_OUT/bench_shapes.txt"
if [ "$shapes" = 1 ]; then
    echo "== C: bench_shapes (1000 CAShapeLayers with animated strokeEnd vs the same paths with cairo in C)"
    "$BENCH_OUT/bench_shapes" ${shapes_args[@]+"${shapes_args[@]}"} | tee "$BENCH_OUT/bench_shapes.txt" || {
        echo "run.sh: bench_shapes FAILED (see the messages above)" >&2
        exit 1
    }
    echo
fi

: >"$BENCH_OUT/bench_emitter.txt"
if [ "$emitter" = 1 ]; then
    echo "== C: bench_emitter (a CAEmitterLayer with 10,000 live particles; growth from 1,000)"
    "$BENCH_OUT/bench_emitter" ${emitter_args[@]+"${emitter_args[@]}"} | tee "$BENCH_OUT/bench_emitter.txt" || {
        echo "run.sh: bench_emitter FAILED (see the messages above)" >&2
        exit 1
    }
    echo
fi

: >"$BENCH_OUT/bench_text.txt"
if [ "$text" = 1 ]; then
    echo "== C: bench_text (CATextLayer display vs Pango and cairo in C; moving labels; a changing label)"
    "$BENCH_OUT/bench_text" ${text_args[@]+"${text_args[@]}"} | tee "$BENCH_OUT/bench_text.txt" || {
        echo "run.sh: bench_text FAILED (see the messages above)" >&2
        exit 1
    }
    echo
fi

: >"$BENCH_OUT/bench_render_gl.txt"
if [ "$gl" = 1 ]; then
    echo "== C: bench_render_gl (the GL renderer vs the CPU renderer on bench_render's scenes; context only)"
    "$BENCH_OUT/bench_render_gl" ${render_args[@]+"${render_args[@]}"} | tee "$BENCH_OUT/bench_render_gl.txt" || {
        echo "run.sh: bench_render_gl FAILED (see the messages above)" >&2
        status=1
    }
    echo
fi

: >"$BENCH_OUT/bench_ctypes.txt"
if [ "$python" = 1 ] && command -v python3 >/dev/null; then
    echo "== Python: bench_ctypes.py"
    QUARTZITE_LIB="$QZ_LIB" BENCH_OUT="$BENCH_OUT" python3 "$BENCH_DIR/bench_ctypes.py" ${py_args[@]+"${py_args[@]}"} \
        | tee "$BENCH_OUT/bench_ctypes.txt" || status=1
    echo
elif [ "$python" = 1 ]; then
    echo "== Python: skipped (python3 not found)"
    echo
fi

: >"$BENCH_OUT/callgrind.txt"
: >"$BENCH_OUT/callgrind_layers.txt"
: >"$BENCH_OUT/callgrind_animation.txt"
if [ "$callgrind" = 1 ] && command -v valgrind >/dev/null; then
    echo "== callgrind: instructions per operation"
    BENCH_SKIP_BUILD=1 "$BENCH_DIR/callgrind.sh" | tee "$BENCH_OUT/callgrind.txt" || status=1
    echo
    if [ "$layers" = 1 ]; then
        echo "== callgrind: instructions per layer operation"
        BENCH_SKIP_BUILD=1 "$BENCH_DIR/callgrind_layers.sh" | tee "$BENCH_OUT/callgrind_layers.txt" || status=1
        echo
    fi
    if [ "$animation" = 1 ]; then
        echo "== callgrind: instructions per animated layer (presentation)"
        BENCH_SKIP_BUILD=1 "$BENCH_DIR/callgrind_animation.sh" | tee "$BENCH_OUT/callgrind_animation.txt" || status=1
        echo
    fi
elif [ "$callgrind" = 1 ]; then
    echo "== callgrind: skipped (valgrind not found)"
    echo
fi

echo "== Summary (library / reference; 1.00x = as fast as the reference)"
grep -h '^SUMMARY' "$BENCH_OUT/bench_transform.txt" "$BENCH_OUT/bench_layers.txt" "$BENCH_OUT/bench_animation.txt" \
    "$BENCH_OUT/bench_video.txt" "$BENCH_OUT/bench_transaction.txt" "$BENCH_OUT/bench_render.txt" "$BENCH_OUT/bench_backdrop.txt" "$BENCH_OUT/bench_tiled.txt" \
    "$BENCH_OUT/bench_graphics.txt" "$BENCH_OUT/bench_shapes.txt" "$BENCH_OUT/bench_emitter.txt" "$BENCH_OUT/bench_text.txt" "$BENCH_OUT/bench_render_gl.txt" "$BENCH_OUT/bench_ctypes.txt" \
    "$BENCH_OUT/callgrind.txt" "$BENCH_OUT/callgrind_layers.txt" "$BENCH_OUT/callgrind_animation.txt" \
    | sed 's/^SUMMARY /  /' | tee "$BENCH_OUT/summary.txt"
echo "(full output in $BENCH_OUT/)"

if [ "${BENCH_STRICT:-0}" = 1 ] && grep -q 'NOT met' "$BENCH_OUT/summary.txt"; then
    echo "run.sh: a performance target is not met (BENCH_STRICT=1)" >&2
    exit 1
fi
exit "$status"
