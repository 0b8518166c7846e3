# gpu-tracker: the two commands a user needs are `make demo` and `make check`.
# CMake does the building underneath; this file installs missing Debian build
# dependencies first (apt-get, when run as root).

BUILD_DIR ?= build
ASAN_DIR ?= build-asan
FUZZ_DIR ?= build-fuzz
FUZZ_SECONDS ?= 60
# make check fuzzes each target this long: a smoke test, not a campaign.
CHECK_FUZZ_SECONDS ?= 10
PREFIX ?= /usr/local
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps build check check-asan fuzz fuzz-build demo bench install clean

all: build

deps:
	@./scripts/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD_DIR) -j $(JOBS)

# Every test, on a normal build and on an AddressSanitizer+UBSan build, then
# each fuzz target for CHECK_FUZZ_SECONDS.
check: build check-asan
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)
	cd $(ASAN_DIR) && ctest --output-on-failure -j $(JOBS)
	$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=$(CHECK_FUZZ_SECONDS)

check-asan: deps
	@cmake -S . -B $(ASAN_DIR) -DCMAKE_BUILD_TYPE=Debug -DGT_SANITIZE=ON >/dev/null
	@cmake --build $(ASAN_DIR) -j $(JOBS)

# libFuzzer targets (clang) for the procfs/sysfs parsers, the server-info
# parsers, the summary reader and the snapshot loader, from fuzz/corpus.
fuzz-build: deps
	@cmake -S . -B $(FUZZ_DIR) -DCMAKE_C_COMPILER=clang -DGT_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
	@cmake --build $(FUZZ_DIR) -j $(JOBS) --target fuzz-targets

fuzz: fuzz-build
	./scripts/run-fuzz.sh $(FUZZ_DIR) $(FUZZ_SECONDS)

# Tracks a small demo workload: two children that allocate and burn CPU.
demo: build
	$(BUILD_DIR)/gpu-tracker --st 0.2 --ru megabytes --tu seconds -- $(BUILD_DIR)/tests/gt-workload demo

# Prints what tracking costs and how exact it is (figures, not pass/fail;
# about three minutes).
bench: build
	$(BUILD_DIR)/bench/gt-bench $(BUILD_DIR)/gpu-tracker $(BUILD_DIR)/bench/gt-bench-workload

install: build
	cmake --install $(BUILD_DIR) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR) $(FUZZ_DIR)
