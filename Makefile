# Sextant top-level entry points. `make` builds into build/; `make demo` and `make test` first
# install missing system packages (scripts/install-deps.sh, idempotent).
BUILD ?= build
PRESET_FLAGS ?= -DCMAKE_BUILD_TYPE=Release
JOBS ?= $(shell nproc)
CTEST_JOBS ?= $(JOBS)
WERROR ?= $(if $(CI),ON,OFF)

.PHONY: all deps configure build demo test test-slow bench sanitize clean

all: build

deps:
	@bash scripts/install-deps.sh

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja $(PRESET_FLAGS) -DSEXTANT_WERROR=$(WERROR)

configure: $(BUILD)/build.ninja

build: configure
	cmake --build $(BUILD) -j $(JOBS)

demo: deps build
	$(BUILD)/sextant estimate data/examples/llama3-70b-h100.yaml

test: deps build
	cd $(BUILD) && ctest -L fast -j $(CTEST_JOBS) --output-on-failure --timeout 600

test-slow: deps build
	cd $(BUILD) && ctest -L slow -j $(CTEST_JOBS) --output-on-failure

bench: deps build
	@for b in $(BUILD)/bench/bench_*; do echo "== $$b"; $$b; done

sanitize: deps
	cmake --preset sanitize && cmake --build build-sanitize -j $(JOBS) && cd build-sanitize && ctest -L fast -j $(CTEST_JOBS) --output-on-failure

clean:
	rm -rf $(BUILD) build-debug build-sanitize
