# gpu-tracker: the two commands a user needs are `make demo` and `make check`.
# CMake does the building underneath; this file installs missing Debian
# dependencies first (apt-get, when run as root).

BUILD_DIR ?= build
ASAN_DIR ?= build-asan
TSAN_DIR ?= build-tsan
FUZZ_DIR ?= build-fuzz
FUZZ_SECONDS ?= 60
# make check fuzzes each target this long: a smoke test, not a campaign.
CHECK_FUZZ_SECONDS ?= 10
PREFIX ?= /usr/local
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# Warnings are errors in make check and CI; a plain `make` only shows them.
WERROR ?= OFF
CTEST = ctest --output-on-failure -j $(JOBS)

.PHONY: all deps deps-check deps-report build abi-baseline bench-baseline check check-build check-asan check-tsan fuzz fuzz-build \
	demo bench install uninstall deb clean

all: build

deps:
	@./scripts/install-deps.sh build

deps-check:
	@./scripts/install-deps.sh check

# A plain `make` installs nothing: it says what is missing (make demo and
# make check install it, as root).
deps-report:
	@./scripts/install-deps.sh --report build

build: deps-report
	@cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGT_WERROR=$(WERROR) >/dev/null
	@cmake --build $(BUILD_DIR) -j $(JOBS)

# Stores the shared library's ABI (abidw) as the baseline that make check
# compares it with (tests/test_abi_baseline.sh). Only on purpose: a new
# major version (docs/api.md, "Versions and the ABI").
abi-baseline: build
	@abidw --no-corpus-path --no-comp-dir-path --suppressions abi/opaque.suppr \
	    --out-file abi/libgputracker.abi \
	    $(BUILD_DIR)/libgputracker.so
	@echo "abi/libgputracker.abi: $$(grep -c '<elf-symbol' abi/libgputracker.abi) symbols"

# Every test three times: a normal gcc build, an AddressSanitizer+UBSan gcc
# build and a ThreadSanitizer clang build, all with warnings as errors (so
# both compilers see every file); then each fuzz target for
# CHECK_FUZZ_SECONDS. Each step runs whatever the ones before did, and the
# end says what failed where (scripts/check-all.sh); the exit status is 0
# only when all passed.
check: deps-check
	@BUILD_DIR=$(BUILD_DIR) ASAN_DIR=$(ASAN_DIR) TSAN_DIR=$(TSAN_DIR) MAKE="$(MAKE)" \
	    JOBS=$(JOBS) CHECK_FUZZ_SECONDS=$(CHECK_FUZZ_SECONDS) ./scripts/check-all.sh

check-build: deps-check
	@$(MAKE) --no-print-directory build WERROR=ON

check-asan: deps-check
	@cmake -S . -B $(ASAN_DIR) -DCMAKE_BUILD_TYPE=Debug -DGT_SANITIZE=ON -DGT_WERROR=ON >/dev/null
	@cmake --build $(ASAN_DIR) -j $(JOBS)

check-tsan: deps-check
	@CC=clang cmake -S . -B $(TSAN_DIR) -DCMAKE_BUILD_TYPE=Debug -DGT_TSAN=ON -DGT_WERROR=ON >/dev/null
	@cmake --build $(TSAN_DIR) -j $(JOBS)

# libFuzzer targets (clang) for the procfs/sysfs parsers, the server-info
# parsers, the summary reader, the snapshot loader and the report writer,
# from fuzz/corpus.
fuzz-build: deps-check
	@CC=clang cmake -S . -B $(FUZZ_DIR) -DGT_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug -DGT_WERROR=ON >/dev/null
	@cmake --build $(FUZZ_DIR) -j $(JOBS) --target fuzz-targets

fuzz: fuzz-build
	./scripts/run-fuzz.sh $(FUZZ_DIR) $(FUZZ_SECONDS)

# Tracks a small demo workload: two children that allocate and burn CPU.
# Builds only what the demo runs, into a log (shown when the build fails),
# so that what the user reads is the summary; the test targets and the
# fuzzing toolchain are make check's business.
DEMO_LOG = $(BUILD_DIR)/demo-build.log
demo: deps
	@mkdir -p $(BUILD_DIR)
	@echo "Building gpu-tracker (log: $(DEMO_LOG))"
	@{ cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGT_WERROR=$(WERROR) && \
	   cmake --build $(BUILD_DIR) -j $(JOBS) --target gpu-tracker gt-workload; } \
	   >$(DEMO_LOG) 2>&1 || { tail -n 40 $(DEMO_LOG); echo "make demo: the build failed (log: $(DEMO_LOG))" >&2; exit 1; }
	@echo "Running: gpu-tracker --st 0.2 --ru megabytes --tu seconds -- $(BUILD_DIR)/tests/gt-workload demo"
	@$(BUILD_DIR)/gpu-tracker --st 0.2 --ru megabytes --tu seconds -- $(BUILD_DIR)/tests/gt-workload demo

# Prints what tracking costs and how exact it is (figures; several minutes a
# part): what each reader costs (failing when one costs more than the stored
# table says, bench/readers-baseline.tsv), each GPU call, the command's
# overhead and accuracy, a long run's memory, a sub-tracking mark, and the
# Python package against the command.
bench: build
	$(BUILD_DIR)/bench/gt-bench-readers --tsv $(BUILD_DIR)/bench/readers.tsv \
	    --compare bench/readers-baseline.tsv
	$(BUILD_DIR)/bench/gt-bench-gpu-calls
	$(BUILD_DIR)/bench/gt-bench-startup $(BUILD_DIR)/gpu-tracker
	$(BUILD_DIR)/bench/gt-bench $(BUILD_DIR)/gpu-tracker $(BUILD_DIR)/bench/gt-bench-workload
	$(BUILD_DIR)/bench/gt-bench-longrun
	$(BUILD_DIR)/bench/gt-bench-backup
	$(BUILD_DIR)/bench/gt-bench-subtrack
	$(BUILD_DIR)/bench/gt-bench-figures
	if [ -x $(BUILD_DIR)/bench/gt-bench-spank ]; then \
	    $(BUILD_DIR)/bench/gt-bench-spank $(BUILD_DIR)/spank_gputracker.so; fi
	./bench/python.sh $(BUILD_DIR)

# Stores this machine's reader costs as the table `make bench` holds the
# line against (bench/readers-baseline.tsv; docs/performance.md).
bench-baseline: build
	$(BUILD_DIR)/bench/gt-bench-readers --tsv bench/readers-baseline.tsv

# The program, the libraries and header, the man page gpu-tracker(1), the
# bash, zsh and fish completions and the docs (share/doc/gpu-tracker).
install: build
	@./scripts/install.sh $(BUILD_DIR) $(PREFIX)

# Removes what install put there (CMake's install manifest names it).
uninstall:
	@./scripts/uninstall.sh $(BUILD_DIR)/install_manifest.txt

# Debian packages (gpu-tracker, libgputracker1, libgputracker-dev) built
# with dpkg-buildpackage from debian/, into $(BUILD_DIR)/deb.
deb:
	@./scripts/install-deps.sh deb
	@./scripts/make-deb.sh . $(BUILD_DIR)/deb

clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR) $(TSAN_DIR) $(FUZZ_DIR)
