# mk/reliability.mk — reliability targets (included at the end of the Makefile).
#
#   make test-kernels   every kernel the families declare (kernels.h, kernels_<family>.h) under
#                       Oclgrind, through the library's real paths or launched one by one
#                       (tests/kernels_oclgrind.c); pass 1: --check-api --data-races (and
#                       Oclgrind's built-in out-of-bounds checks); pass 2: --uninitialized with
#                       kernels built -cl-opt-disable (Oclgrind 21.10's uninitialised-value plugin
#                       aborts on LLVM's `freeze` instruction in optimised code). Each pass first
#                       runs a self-test kernel that must give findings; then zero findings pass.
#   make fuzz           the libFuzzer targets tests/fuzz/fuzz_*.c (parsers, esrrf.h's, quality.h's and
#                       nufft.h's arguments), FUZZ_SECONDS (default 60) each,
#                       from tests/fuzz/corpus/<target>; prints the executions per target
#   make soak           SOAK_RUNS (default 10,000) stream runs and halo cycles, no growth
#                       (tests/soak.c; device: HST_DEVICE, else auto)
# tests/test_faults.c and tests/test_threads.c are ordinary tests/test_*.c: `make test` runs them.

.PHONY: test-kernels fuzz fuzz-build soak

REL_HDRS   := $(wildcard tests/reliability/*.h)
OCLGRIND   ?= oclgrind
FUZZ_CC    ?= clang
FUZZ_SECONDS ?= 60
FUZZ_FLAGS := -std=c99 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
              -DHST_NO_OPENCL
FUZZ_SRCS  := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS  := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRCS))
SOAK_RUNS  ?= 10000

# the test binaries use the shared helpers too
$(BUILD)/tests/test_faults $(BUILD)/tests-noocl/test_faults $(BUILD)/tests-san/test_faults \
$(BUILD)/tests/test_threads $(BUILD)/tests-noocl/test_threads $(BUILD)/tests-san/test_threads: $(REL_HDRS)

$(BUILD)/reliability/%: tests/%.c $(HEADERS) $(REL_HDRS)
	@mkdir -p $(@D)
	$(CC) $(HST_CPPFLAGS) $(CPPFLAGS) $(CFLAGS) $< -o $@ $(LDFLAGS) -lOpenCL -lm -lpthread

# Findings in an Oclgrind log: its reports are unindented lines (details are tab-indented).
oclgrind_count = $$(grep -c '^[^[:space:]]' $(1) 2>/dev/null || true)

# One Oclgrind pass: $(1) options, $(2) log name. The self-test kernel (one out-of-bounds write,
# one race, uninitialised values) must give findings, so a pass that went blind fails; then the
# real run must give none.
define oclgrind_pass
	n0=$$($(OCLGRIND) $(1) --max-errors 1000 --log $(BUILD)/logs/oclgrind-$(2)-selftest.log \
	    $(BUILD)/reliability/kernels_oclgrind --self-test >/dev/null 2>&1; \
	    echo $(call oclgrind_count,$(BUILD)/logs/oclgrind-$(2)-selftest.log)); \
	echo "   self-test kernel: $$n0 findings (must be > 0)"; test "$$n0" -gt 0; \
	$(OCLGRIND) $(1) --max-errors 100000 --log $(BUILD)/logs/oclgrind-$(2).log \
	    $(BUILD)/reliability/kernels_oclgrind > $(BUILD)/logs/oclgrind-$(2).out 2>&1 \
	    || { tail -n 20 $(BUILD)/logs/oclgrind-$(2).out; exit 1; }; \
	n=$(call oclgrind_count,$(BUILD)/logs/oclgrind-$(2).log); \
	echo "   findings: $$n ($(BUILD)/logs/oclgrind-$(2).log)"; \
	if [ "$$n" != 0 ]; then echo "   by finding | kernel | source line:"; \
	    awk '/^[^[:space:]-]/ { w = $$0; sub(/ address 0x[0-9a-f]+/, "", w); k = ""; next } \
	         /Kernel:/ { k = $$2 } /At line/ && w != "" { print w " | " k " | " $$3; w = "" }' \
	        $(BUILD)/logs/oclgrind-$(2).log | sort | uniq -c | sort -rn | head -n 15; fi; \
	grep -v '^  ' $(BUILD)/logs/oclgrind-$(2).out; \
	test "$$n" = 0
endef

test-kernels:
	@sh scripts/deps.sh reliability
	@$(MAKE) --no-print-directory $(BUILD)/reliability/kernels_oclgrind
	@mkdir -p $(BUILD)/logs; rm -f $(BUILD)/logs/oclgrind-*.log
	@set -e; export HST_CACHE_DIR=off; \
	echo "== Oclgrind pass 1: --check-api --data-races (bounds checks always on)"; \
	$(call oclgrind_pass,--check-api --data-races,api-races); \
	echo "== Oclgrind pass 2: --uninitialized, kernels built -cl-opt-disable"; \
	$(call oclgrind_pass,--uninitialized --build-options -cl-opt-disable,uninit)

fuzz-build: $(FUZZ_BINS)

# (fuzz_tiff reads through examples/image_io.h: extra_libs links libtiff and libpng; the targets
# of FUZZ_FFT_SRCS define HST_FFT: FFTW)
FUZZ_FFT_SRCS := tests/fuzz/fuzz_quality.c tests/fuzz/fuzz_nufft.c
$(BUILD)/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz_common.h $(HEADERS) $(wildcard examples/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(HST_CPPFLAGS) $(FUZZ_FLAGS) $< -o $@ $(call extra_libs,$<) \
	    $(if $(filter $(FUZZ_FFT_SRCS),$<),$(FFT_LDLIBS)) -lm

# Each target starts from the shipped corpus plus what earlier runs here found (build/fuzz/corpus);
# crashes go to build/fuzz/artifacts/. ASan's allocator returns NULL for absurd sizes (the
# library must answer HST_ERROR_OUT_OF_HOST_MEMORY), as malloc does.
fuzz:
	@sh scripts/deps.sh reliability
	@$(MAKE) --no-print-directory fuzz-build
	@set -e; fail=0; mkdir -p $(BUILD)/fuzz/artifacts; \
	for b in $(FUZZ_BINS); do t=$$(basename $$b); n=$${t#fuzz_}; \
	    mkdir -p $(BUILD)/fuzz/corpus/$$n tests/fuzz/corpus/$$n; \
	    log=$(BUILD)/fuzz/$$t.log; \
	    if ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1 $$b -max_total_time=$(FUZZ_SECONDS) \
	        -malloc_limit_mb=16384 -rss_limit_mb=4096 \
	        -print_final_stats=1 -artifact_prefix=$(BUILD)/fuzz/artifacts/$$n- \
	        $(BUILD)/fuzz/corpus/$$n tests/fuzz/corpus/$$n > $$log 2>&1; then res=ok; else res=FAIL; fail=1; fi; \
	    execs=$$(sed -n 's/^stat::number_of_executed_units: *//p' $$log); \
	    printf '  %-5s %-14s %s executions in %ss  (%s)\n' $$res $$t "$${execs:-?}" $(FUZZ_SECONDS) $$log; \
	    [ $$res = ok ] || grep -E 'ERROR|SUMMARY|runtime error' $$log | head -n 5 | sed 's/^/    | /'; \
	done; exit $$fail

soak:
	@$(MAKE) --no-print-directory $(BUILD)/reliability/soak
	SOAK_RUNS=$(SOAK_RUNS) $(BUILD)/reliability/soak
