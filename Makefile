# Quartzite's entry points. `make demo` and `make test` install what is
# missing (Debian and PyPI packages) and build first.
BUILD_DIR ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps build test demo gl-demo bench header install clean

all: build

deps:
	@sh scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: build
	BUILD_DIR=$(abspath $(BUILD_DIR)) sh scripts/run-tests.sh

demo: build
	@mkdir -p out
	cc -std=c11 -O2 -Wall -Wextra -Iinclude examples/demo.c examples/apng_writer.c -o $(BUILD_DIR)/demo \
	    -L$(BUILD_DIR)/lib -lquartzite -lz -lm -Wl,-rpath,$(abspath $(BUILD_DIR))/lib
	$(BUILD_DIR)/demo out

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
