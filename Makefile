# Sextant top-level entry points. `make` builds into build/; `make demo` and `make test` first
# install missing system packages (scripts/install-deps.sh, idempotent).
BUILD ?= build
PRESET_FLAGS ?= -DCMAKE_BUILD_TYPE=Release
JOBS ?= $(shell nproc)
CTEST_JOBS ?= $(JOBS)
WERROR ?= $(if $(CI),ON,OFF)

.PHONY: all deps configure build demo test test-slow bench sanitize sanitize-ci clean

all: build

deps:
	@bash scripts/install-deps.sh

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja $(PRESET_FLAGS) -DSEXTANT_WERROR=$(WERROR)

# Under CI, warnings are errors even in a build folder configured before without (WERROR is read
# only when build.ninja is first made).
configure: $(BUILD)/build.ninja
ifneq ($(CI),)
	@grep -q '^SEXTANT_WERROR:BOOL=ON' $(BUILD)/CMakeCache.txt || cmake -S . -B $(BUILD) -DSEXTANT_WERROR=ON
endif

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

# The part of the sanitizer run that CI affords (docs/robustness.md): AddressSanitizer and
# UndefinedBehaviorSanitizer over the tests of the modules that parse and write files.
SANITIZE_CI_MODULES ?= core catalog
sanitize-ci: deps
	cmake --preset sanitize -DSEXTANT_BUILD_PYTHON=OFF -DSEXTANT_WERROR=$(WERROR)
	cmake --build build-sanitize -j $(JOBS) --target $(addprefix test_,$(SANITIZE_CI_MODULES))
	@for m in $(SANITIZE_CI_MODULES); do echo "== sanitized test_$$m"; \
	  SEXTANT_DATA_DIR=$(CURDIR)/data build-sanitize/tests/test_$$m --gtest_brief=1 || exit 1; done

clean:
	rm -rf $(BUILD) build-debug build-sanitize
