# Thin wrapper around CMake, so that the README's commands stay short.
#   make            build (./build/lockspan)
#   make check      build and run the whole test suite with ctest
#   make demo       analyze the bundled sample and write lockspan-report.md
#                   (needs the build deps only: no PostgreSQL, no root)
#   make deps       install build and test dependencies (Debian 12, as root)
#   make fuzz       build the libFuzzer targets with clang in build-fuzz and run
#                   each for FUZZ_SECONDS (default 60); fails on any crash
# Options: BUILD=dir  WERROR=1  SANITIZE=1  LIVE=0 (skip tests that start PostgreSQL)
BUILD ?= build
WERROR ?= 0
SANITIZE ?= 0
LIVE ?= 1
DEMO_OUT ?= lockspan-report.md
CMAKE_FLAGS = -DLOCKSPAN_WERROR=$(if $(filter 1,$(WERROR)),ON,OFF) \
              -DLOCKSPAN_SANITIZE=$(if $(filter 1,$(SANITIZE)),ON,OFF) \
              -DLOCKSPAN_LIVE_TESTS=$(if $(filter 1,$(LIVE)),ON,OFF)

FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60

.PHONY: all build check demo demo-report deps clean fuzz fuzz-build
all: build

build:
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null
	cmake --build $(BUILD) -j2

check: build
	cd $(BUILD) && ctest --output-on-failure

# The demo needs the build deps only (no PostgreSQL, no root): it analyzes
# the bundled sample. demo-report is its analysis alone, on a built binary
# (tests/e2e/check_first_contact.py runs it with no PostgreSQL on PATH).
demo: build
	@$(MAKE) --no-print-directory demo-report BUILD=$(BUILD) DEMO_OUT=$(DEMO_OUT)

demo-report:
	$(BUILD)/lockspan analyze --prefix "$$(cat samples/basic/prefix.txt)" \
	    -o $(DEMO_OUT) samples/basic/postgresql.log

deps:
	bash .ci/install-deps.sh

# A build of its own (clang, -fsanitize=fuzzer,address,undefined): the normal
# build and `make check` are untouched. tests/fuzz/run.sh -h for more options.
fuzz-build:
	CC=clang cmake -S . -B $(FUZZ_BUILD) -DLOCKSPAN_FUZZ=ON -DLOCKSPAN_LIVE_TESTS=OFF >/dev/null
	cmake --build $(FUZZ_BUILD) -j2 --target fuzz_targets

fuzz: fuzz-build
	tests/fuzz/run.sh -b $(FUZZ_BUILD) -t $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD) build-asan $(FUZZ_BUILD)
