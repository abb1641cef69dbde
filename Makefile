# Paleozoic build. `make` builds build/paleozoic and its libraries;
# `make test` runs the test suite; `make SAN=1 ...` builds everything with
# ASan+UBSan into build-san/. See README.md.

CC      ?= cc
SAN     ?= 0
PROTO   ?= /usr/include/onnx/onnx.proto

ifeq ($(SAN),1)
  B       := $(or $(BUILD),build-san)
  OPTFLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
  LDSAN   := -fsanitize=address,undefined
else
  B       := $(or $(BUILD),build)
  OPTFLAGS := -O2 -g
  LDSAN   :=
endif

WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
CFLAGS  += -std=c11 -D_GNU_SOURCE $(OPTFLAGS) $(WARN) -MMD -MP -I$(B)/gen -Isrc
LDLIBS  += -lprotobuf-c -lm -lpthread

# The compiler library: front-end, IR and passes, ops, optimizer, code generator, zoo.
LIB_DIRS := src/front src/ir src/ops src/passes src/opt src/gen src/zoo
LIB_SRCS := $(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.c))
LIB_SRCS := $(filter-out src/ops/TEMPLATE.c,$(LIB_SRCS))
LIB_OBJS := $(patsubst src/%.c,$(B)/obj/%.o,$(LIB_SRCS)) $(B)/obj/gen/onnx.pb-c.o
CLI_SRCS := $(wildcard src/cli/*.c)
CLI_OBJS := $(patsubst src/%.c,$(B)/obj/%.o,$(CLI_SRCS))

TEST_SRCS := $(wildcard tests/unit/*.c)
TEST_BINS := $(patsubst tests/unit/%.c,$(B)/tests/%,$(TEST_SRCS))

.PHONY: all test test-fast test-san clean models
all: $(B)/paleozoic $(TEST_BINS)

# protobuf-c code generated from the system's official ONNX schema.
$(B)/gen/onnx.pb-c.c $(B)/gen/onnx.pb-c.h: $(PROTO)
	@mkdir -p $(B)/gen
	protoc-c --c_out=$(B)/gen -I$(dir $(PROTO)) $(PROTO)

$(B)/obj/gen/onnx.pb-c.o: $(B)/gen/onnx.pb-c.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(OPTFLAGS) -I$(B)/gen -c $< -o $@

$(B)/obj/%.o: src/%.c | $(B)/gen/onnx.pb-c.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(B)/libpaleozoic.a: $(LIB_OBJS)
	rm -f $@ && ar rcs $@ $^

$(B)/paleozoic: $(CLI_OBJS) $(B)/libpaleozoic.a
	$(CC) $(LDSAN) -o $@ $^ $(LDLIBS)

$(B)/tests/%: tests/unit/%.c $(B)/libpaleozoic.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDSAN) -o $@ $< $(B)/libpaleozoic.a $(LDLIBS)

# The README's test command runs this.
test: all
	./tests/run.sh $(B)

# Everything again under ASan+UBSan.
test-san:
	$(MAKE) SAN=1 all
	./tests/run.sh build-san

clean:
	rm -rf build build-san

-include $(LIB_OBJS:.o=.d) $(CLI_OBJS:.o=.d)
