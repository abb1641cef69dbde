# Paleozoic build. `make` builds build/paleozoic and its libraries;
# `make test` runs the test suite; `make SAN=1 ...` builds everything with
# ASan+UBSan into build-san/. See README.md.

# Compile on every CPU by default (a -jN on the command line wins): CI's
# `make check` builds the tree three times (optimized, ASan+UBSan, fuzzers).
MAKEFLAGS += -j$(shell nproc)

CC      ?= cc
SAN     ?= 0
PROTO   ?= /usr/include/onnx/onnx.proto

ifeq ($(SAN),1)
  B       := $(or $(BUILD),build-san)
  # -g1: line tables for the reports' stacks, without the variables' debug
  # information, which costs a quarter of this build's compile time
  OPTFLAGS := -O1 -g1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
  LDSAN   := -fsanitize=address,undefined
else
  B       := $(or $(BUILD),build)
  OPTFLAGS := -O2 -g
  LDSAN   :=
endif

WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
# Position-independent everywhere, so that the runtime's archive links into
# shared objects (a model built with --lib, the Python package); without
# interposition the code is the same as the default PIE's.
PICFLAGS := -fPIC -fno-semantic-interposition
CFLAGS  += -std=c11 -D_GNU_SOURCE $(OPTFLAGS) $(PICFLAGS) $(WARN) -MMD -MP -I$(B)/gen -Isrc
# The image libraries ImageDecoder decodes with (src/rt/kernels/image), from
# Debian's libjpeg62-turbo-dev, libpng-dev, libtiff-dev, libwebp-dev and
# libopenjp2-7-dev (tools/setup.sh installs them). The decoders are their
# own archive, libpzimage.a, apart from the runtime: the CLI and the tests
# link it; a generated program only when it has an ImageDecoder layer
# (BUILD/image.flags, mk/codegen.mk), so that other models need none of
# these libraries where they are deployed.
IMG_LIBS := -ljpeg -lpng16 -ltiff -lwebp -lopenjp2
IMG_HDRS := jpeglib.h png.h tiffio.h webp/decode.h openjpeg-2.5/openjpeg.h
ifeq ($(filter clean,$(MAKECMDGOALS)),)
  IMG_MISSING := $(shell for h in $(IMG_HDRS); do printf '\043include <stdio.h>\n\043include <%s>\n' $$h | \
                   $(CC) -E -x c - >/dev/null 2>&1 || printf '%s ' $$h; done)
  ifneq ($(IMG_MISSING),)
    $(error the image libraries' headers are missing ($(IMG_MISSING)): run tools/setup.sh, or apt-get install libjpeg62-turbo-dev libpng-dev libtiff-dev libwebp-dev libopenjp2-7-dev)
  endif
endif
# -u: the runtime reaches the decoders by a weak reference only (image.h)
IMG_LINK := -Wl,-u,pz_image_decode $(B)/libpzimage.a $(IMG_LIBS)
LDLIBS  += -lprotobuf-c $(IMG_LINK) -lm -lpthread

# The compiler library: front-end, IR and passes, ops, optimizer, measurement
# lab, small utilities (JSON), code generator, zoo.
LIB_DIRS := src/front src/ir src/ops src/passes src/opt src/lab src/util src/gen src/zoo src/quant
LIB_SRCS := $(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.c))
LIB_SRCS := $(filter-out src/ops/TEMPLATE.c,$(LIB_SRCS))
LIB_OBJS := $(patsubst src/%.c,$(B)/obj/%.o,$(LIB_SRCS)) $(B)/obj/gen/onnx.pb-c.o
# The runtime (our operator-level SDK): what generated programs link.
RT_SRCS  := $(wildcard src/rt/*.c src/rt/ops/*.c src/rt/kernels/*.c src/rt/kernels/*/*.c)
RT_SRCS  := $(filter-out src/rt/ops/TEMPLATE.c src/rt/kernels/image/%,$(RT_SRCS))
RT_OBJS  := $(patsubst src/%.c,$(B)/obj/%.o,$(RT_SRCS))
# The image decoders (libpzimage.a): only programs with an ImageDecoder link them.
IMG_SRCS := $(wildcard src/rt/kernels/image/*.c)
IMG_OBJS := $(patsubst src/%.c,$(B)/obj/%.o,$(IMG_SRCS))
CLI_SRCS := $(wildcard src/cli/*.c)
CLI_OBJS := $(patsubst src/%.c,$(B)/obj/%.o,$(CLI_SRCS))

TEST_SRCS := $(wildcard tests/unit/*.c)
TEST_BINS := $(patsubst tests/unit/%.c,$(B)/tests/%,$(TEST_SRCS))

.PHONY: all check check-full test test-fast test-san clean models
all: $(B)/paleozoic $(TEST_BINS)

# protobuf-c code generated from the system's official ONNX schema.
$(B)/gen/onnx.pb-c.c $(B)/gen/onnx.pb-c.h: $(PROTO)
	@mkdir -p $(B)/gen
	protoc-c --c_out=$(B)/gen -I$(dir $(PROTO)) $(PROTO)

$(B)/obj/gen/onnx.pb-c.o: $(B)/gen/onnx.pb-c.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(OPTFLAGS) $(PICFLAGS) -I$(B)/gen -c $< -o $@

# Fast kernels are compiled for their ISA and chosen at run time by CPUID;
# PZ_SCALAR=1 builds none of them (the scalar reference path only).
ISA_avx512 := -mavx512f -mavx512bw -mavx512dq -mavx512vl -mfma -mavx2
ISA_avx2   := -mavx2 -mfma
ifeq ($(PZ_SCALAR),1)
  CFLAGS += -DPZ_SCALAR=1
endif

$(B)/obj/%_avx512.o: src/%_avx512.c | $(B)/gen/onnx.pb-c.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(ISA_avx512) -c $< -o $@

$(B)/obj/%_avx512bf16.o: src/%_avx512bf16.c | $(B)/gen/onnx.pb-c.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(ISA_avx512) -mavx512bf16 -c $< -o $@

$(B)/obj/%_avx512vnni.o: src/%_avx512vnni.c | $(B)/gen/onnx.pb-c.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(ISA_avx512) -mavx512vnni -c $< -o $@

$(B)/obj/%_avxvnni.o: src/%_avxvnni.c | $(B)/gen/onnx.pb-c.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(ISA_avx2) -mavxvnni -c $< -o $@

$(B)/obj/%_avx2.o: src/%_avx2.c | $(B)/gen/onnx.pb-c.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(ISA_avx2) -c $< -o $@

# The runtime's plain-C fast twins (*_fast.c, rt/kernels/bcast_fast.h): gcc 12
# at -O2 (the very-cheap cost model) vectorizes no loop whose trip count is
# unknown; these loops are what the files are for. (clang has no such
# flag, and vectorizes them at -O2.)
VECT_DYNAMIC := $(shell $(CC) -fvect-cost-model=dynamic -E -x c /dev/null >/dev/null 2>&1 && \
                  echo -fvect-cost-model=dynamic)
$(B)/obj/%_fast.o: CFLAGS += $(VECT_DYNAMIC)

$(B)/obj/%.o: src/%.c | $(B)/gen/onnx.pb-c.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(B)/libpaleozoic.a: $(LIB_OBJS)
	rm -f $@ && ar rcs $@ $^

$(B)/libpzrt.a: $(RT_OBJS)
	rm -f $@ && ar rcs $@ $^

$(B)/libpzimage.a: $(IMG_OBJS)
	rm -f $@ && ar rcs $@ $^

$(B)/paleozoic: $(CLI_OBJS) $(B)/libpaleozoic.a $(B)/libpzrt.a $(B)/libpzimage.a
	$(CC) $(LDSAN) -o $@ $(filter-out %/libpzimage.a,$^) $(LDLIBS)

$(B)/tests/%: tests/unit/%.c $(B)/libpaleozoic.a $(B)/libpzrt.a $(B)/libpzimage.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDSAN) -o $@ $< $(B)/libpaleozoic.a $(B)/libpzrt.a $(LDLIBS)

# The README's test command (and so CI, .ci/run): the suite twice, then
# each libFuzzer target for a short bounded time (mk/fuzz.mk).
# The suite on the optimized build and under ASan+UBSan, then each libFuzzer
# target for 30 s: one queue on two workers (tests/both.sh, tests/run.sh).
check: all
	MAKE="$(MAKE)" FUZZ=30 ./tests/both.sh $(B)

# The suite on the optimized build and under ASan+UBSan (built as the
# queue's first job: tests/both.sh).
test: all
	MAKE="$(MAKE)" ./tests/both.sh $(B)

# The same with every case of every part (the sanitizer half samples some
# by default to keep CI within its hour: tests/run.sh).
check-full:
	PZ_TEST_FULL=1 $(MAKE) check

# Everything again under ASan+UBSan.
test-san:
	$(MAKE) SAN=1 all
	./tests/run.sh build-san

clean:
	rm -rf build build-san

# A test binary's .d lists the headers it includes (tests/unit/rt_test.h, ...).
-include $(LIB_OBJS:.o=.d) $(CLI_OBJS:.o=.d) $(RT_OBJS:.o=.d) $(IMG_OBJS:.o=.d) $(TEST_BINS:=.d)

# More targets (fuzzing, examples, ...), one file each.
-include mk/*.mk
