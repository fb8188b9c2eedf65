# mk/reliability.mk — reliability targets (included at the end of the Makefile).
#
#   make test-kernels   every kernel of kernels.h under Oclgrind, through the library's real paths
#                       (tests/kernels_oclgrind.c); pass 1: --check-api --data-races (and
#                       Oclgrind's built-in out-of-bounds checks); pass 2: --uninitialized with
#                       kernels built -cl-opt-disable (Oclgrind 21.10's uninitialised-value plugin
#                       aborts on LLVM's `freeze` instruction in optimised code). Zero findings
#                       pass. TEST_KERNELS_UNINIT=advisory prints pass 2's count without failing.
#   make fuzz           the libFuzzer targets tests/fuzz/fuzz_*.c, FUZZ_SECONDS (default 60) each,
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
TEST_KERNELS_UNINIT ?= gate
SOAK_RUNS  ?= 10000

# the test binaries use the shared helpers too
$(BUILD)/tests/test_faults $(BUILD)/tests-noocl/test_faults $(BUILD)/tests-san/test_faults \
$(BUILD)/tests/test_threads $(BUILD)/tests-noocl/test_threads $(BUILD)/tests-san/test_threads: $(REL_HDRS)

$(BUILD)/reliability/%: tests/%.c $(HEADERS) $(REL_HDRS)
	@mkdir -p $(@D)
	$(CC) $(HST_CPPFLAGS) $(CPPFLAGS) $(CFLAGS) $< -o $@ $(LDFLAGS) -lOpenCL -lm -lpthread

# Findings in an Oclgrind log: its reports are unindented lines (details are tab-indented).
oclgrind_count = $$(grep -c '^[^[:space:]]' $(1) 2>/dev/null || true)

test-kernels:
	@sh scripts/deps.sh reliability
	@$(MAKE) --no-print-directory $(BUILD)/reliability/kernels_oclgrind
	@mkdir -p $(BUILD)/logs; rm -f $(BUILD)/logs/oclgrind-*.log
	@set -e; prog=$(BUILD)/reliability/kernels_oclgrind; export HST_CACHE_DIR=off; \
	echo "== Oclgrind pass 1: --check-api --data-races (bounds checks always on)"; \
	$(OCLGRIND) --check-api --data-races --max-errors 100000 --log $(BUILD)/logs/oclgrind-api-races.log $$prog \
	    > $(BUILD)/logs/oclgrind-api-races.out 2>&1 || { cat $(BUILD)/logs/oclgrind-api-races.out; exit 1; }; \
	grep -v '^  ' $(BUILD)/logs/oclgrind-api-races.out; \
	n1=$(call oclgrind_count,$(BUILD)/logs/oclgrind-api-races.log); \
	echo "   findings: $$n1 ($(BUILD)/logs/oclgrind-api-races.log)"; \
	echo "== Oclgrind pass 2: --uninitialized, kernels built -cl-opt-disable"; \
	$(OCLGRIND) --uninitialized --build-options -cl-opt-disable --max-errors 100000 \
	    --log $(BUILD)/logs/oclgrind-uninit.log $$prog > $(BUILD)/logs/oclgrind-uninit.out 2>&1 \
	    || { tail -n 20 $(BUILD)/logs/oclgrind-uninit.out; exit 1; }; \
	n2=$(call oclgrind_count,$(BUILD)/logs/oclgrind-uninit.log); \
	echo "   findings: $$n2 ($(BUILD)/logs/oclgrind-uninit.log)"; \
	if [ "$$n2" != 0 ]; then echo "   by finding | kernel | source line:"; \
	    awk '/^[^[:space:]-]/ { w = $$0; sub(/ address 0x[0-9a-f]+/, "", w); k = ""; next } \
	         /Kernel:/ { k = $$2 } /At line/ && w != "" { print w " | " k " | " $$3; w = "" }' \
	        $(BUILD)/logs/oclgrind-uninit.log | sort | uniq -c | sort -rn | head -n 15; fi; \
	echo "$$(grep '^kernels checked' $(BUILD)/logs/oclgrind-api-races.out)"; \
	test "$$n1" = 0; \
	test "$$n2" = 0 || test "$(TEST_KERNELS_UNINIT)" = advisory

fuzz-build: $(FUZZ_BINS)

$(BUILD)/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz_common.h $(HEADERS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(HST_CPPFLAGS) $(FUZZ_FLAGS) $< -o $@ -lm

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
