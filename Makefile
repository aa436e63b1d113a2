# Quartzite's entry points. `make demo` and `make test` install what is
# missing (Debian and PyPI packages) and build first.
BUILD_DIR ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps build test demo demo-binary gl-demo video docs bench header install clean fuzz sanitize

all: build

deps:
	@sh scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: build
	BUILD_DIR=$(abspath $(BUILD_DIR)) sh scripts/run-tests.sh

# The demo writes MP4 too when pkg-config finds FFmpeg's libraries (checked
# when the recipe runs, after `deps` installed them); PNG and APNG without.
FFMPEG_PKGS = libavformat libavcodec libswscale libavutil
DEMO_VIDEO = $(shell pkg-config --exists $(FFMPEG_PKGS) 2>/dev/null && \
    echo -DQZ_DEMO_HAVE_FFMPEG examples/video_writer.c $$(pkg-config --cflags --libs $(FFMPEG_PKGS)))

demo-binary: build
	cc -std=c11 -O2 -Wall -Wextra -Iinclude -DQZ_ASSETS_DIR='"$(abspath examples/assets)"' \
	    examples/demo.c examples/apng_writer.c $(DEMO_VIDEO) -o $(BUILD_DIR)/demo \
	    -L$(BUILD_DIR)/lib -lquartzite -lz -lm -Wl,-rpath,$(abspath $(BUILD_DIR))/lib
	cc -std=c11 -O2 -Wall -Wextra -Iinclude examples/animating_keypaths.c examples/apng_writer.c \
	    -o $(BUILD_DIR)/animating_keypaths -L$(BUILD_DIR)/lib -lquartzite -lz -lm -Wl,-rpath,$(abspath $(BUILD_DIR))/lib

demo: demo-binary
	@mkdir -p out
	$(BUILD_DIR)/demo out
	$(BUILD_DIR)/animating_keypaths out

# The same scene as an H.264 MP4 (out/demo.mp4), 1280x960 at 60 fps.
video: demo-binary
	@mkdir -p out
	$(BUILD_DIR)/demo out --mp4 out/demo.mp4 --fps 60 --width 1280

# The API reference from the headers (Doxygen): build/docs/api/html/index.html.
docs: deps
	@mkdir -p $(BUILD_DIR)/docs/api
	cd docs && QZ_DOCS_OUT=$(abspath $(BUILD_DIR))/docs/api QZ_DOCS_WARN_AS_ERROR=YES doxygen Doxyfile
	@echo "API reference: $(BUILD_DIR)/docs/api/html/index.html"

# The engine-style GL example (examples/gl_engine.c): a surfaceless EGL
# context on Mesa's llvmpipe, 60 PNG frames under out/gl.
gl-demo: build
	@mkdir -p out/gl
	cc -std=c11 -O2 -Wall -Wextra -Iinclude examples/gl_engine.c -o $(BUILD_DIR)/gl_engine \
	    -L$(BUILD_DIR)/lib -lquartzite -lEGL -lGLESv2 -lm -Wl,-rpath,$(abspath $(BUILD_DIR))/lib
	$(BUILD_DIR)/gl_engine out/gl

# The stateful fuzzer's long run: 5 seeds x 220,000 steps (over 10^6 calls),
# every export called at least 100 times. A failing seed is minimised into a
# tape in Tests/c/fuzz/regressions (replayed by ctest from then on).
FUZZ_SEEDS ?= 1,2,3,4,5
FUZZ_STEPS ?= 220000
fuzz: build
	$(BUILD_DIR)/Tests/c/test_fuzz_stateful campaign --seeds $(FUZZ_SEEDS) --steps $(FUZZ_STEPS) \
	    --min-calls 100 --save $(abspath Tests/c/fuzz/regressions)

# The library and the C harness under AddressSanitizer + UndefinedBehaviorSanitizer
# (every C test, the fuzzer's short run and its regressions, the 4-thread
# stress for 30 s), then under ThreadSanitizer (the thread stress for 30 s,
# the run loop and threaded export tests). Any report fails the target.
SANITIZE_ENV = ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:malloc_context_size=60 \
	LSAN_OPTIONS=suppressions=$(abspath Tests/c/lsan.supp):print_suppressions=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
sanitize: deps
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DQUARTZITE_SANITIZE=address \
	    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++
	cmake --build build-asan -j $(JOBS)
	cd build-asan && $(SANITIZE_ENV) ctest --output-on-failure
	cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DQUARTZITE_SANITIZE=thread \
	    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++
	cmake --build build-tsan -j $(JOBS)
	cd build-tsan && $(SANITIZE_ENV) ctest --output-on-failure

bench: build
	QUARTZITE_BUILD=$(abspath $(BUILD_DIR)) bash benchmarks/run.sh

header:
	python3 scripts/generate-header.py

install: build
	cmake --install $(BUILD_DIR)

clean:
	rm -rf $(BUILD_DIR) build-asan build-tsan .build out
