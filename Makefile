# Quartzite's entry points. `make demo` and `make test` install what is
# missing (Debian and PyPI packages) and build first.
BUILD_DIR ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps build test demo demo-binary gl-demo video docs bench header install clean

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

bench: build
	QUARTZITE_BUILD=$(abspath $(BUILD_DIR)) bash benchmarks/run.sh

header:
	python3 scripts/generate-header.py

install: build
	cmake --install $(BUILD_DIR)

clean:
	rm -rf $(BUILD_DIR) .build out
