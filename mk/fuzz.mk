# fuzz.mk - libFuzzer targets (tests/fuzz/), built with clang, ASan and UBSan
# into build-fuzz/:
#
#   make fuzz        builds both targets and runs each for FUZZ_TIME seconds
#                    (default 600), one after the other, keeping the corpus
#                    in build-fuzz/corpus/ between runs
#   make fuzz-ci     the same for FUZZ_CI_TIME seconds each (default 30) on a
#                    fresh copy of the seeds; fails on any crash, leak,
#                    sanitizer report or timeout
#   make fuzz-build  builds build-fuzz/fuzz_onnx and build-fuzz/fuzz_schedule
#
# The library is compiled once more for the fuzzers (clang, coverage
# instrumentation, ASan+UBSan) by a recursive make with BUILD=build-fuzz, so
# it never mixes with build/ or build-san/. It is the scalar build (PZ_SCALAR=1):
# the AVX-512/AVX2 kernels are tested against their references elsewhere, and
# clang takes tens of minutes on them with this instrumentation. Needs clang and its libFuzzer
# runtime (Debian: clang, libclang-rt-14-dev). See tests/fuzz/run_fuzz.sh.

FUZZ_B       := build-fuzz
FUZZ_CC      ?= clang
FUZZ_TIME    ?= 600
FUZZ_CI_TIME ?= 30
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined
# FUZZ_EXTRA: more compiler flags for the fuzz build, e.g. to step past a
# known finding while looking for others (-fno-sanitize=nonnull-attribute).
FUZZ_EXTRA   ?=
FUZZ_OPT     := -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link $(FUZZ_SAN) $(FUZZ_EXTRA)
FUZZ_TARGETS := fuzz_onnx fuzz_schedule

.PHONY: fuzz fuzz-ci fuzz-build

fuzz-build:
	@printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' | \
	  $(FUZZ_CC) -fsanitize=fuzzer -x c -o /dev/null - 2>/dev/null || \
	  { echo "fuzz: $(FUZZ_CC) cannot link -fsanitize=fuzzer: install clang and libclang-rt-14-dev"; exit 2; }
	$(MAKE) --no-print-directory BUILD=$(FUZZ_B) SAN=0 PZ_SCALAR=1 CC=$(FUZZ_CC) OPTFLAGS="$(FUZZ_OPT)" \
	  LDSAN="$(FUZZ_SAN)" $(addprefix $(FUZZ_B)/,$(FUZZ_TARGETS))

fuzz: fuzz-build
	./tests/fuzz/run_fuzz.sh $(FUZZ_B) $(FUZZ_TIME) keep

fuzz-ci: fuzz-build
	./tests/fuzz/run_fuzz.sh $(FUZZ_B) $(FUZZ_CI_TIME) fresh

# Only meaningful inside the recursive make above (B = build-fuzz).
$(B)/fuzz_%: tests/fuzz/fuzz_%.c $(B)/libpaleozoic.a $(B)/libpzrt.a $(B)/libpzio.a $(B)/libpzimage.a
	$(CC) $(filter-out -MMD -MP,$(CFLAGS)) -fsanitize=fuzzer $(LDSAN) -o $@ $< \
	  $(B)/libpaleozoic.a $(B)/libpzrt.a $(LDLIBS)
