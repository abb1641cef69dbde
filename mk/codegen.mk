# codegen.mk - what generated programs link: the runtime (libpzrt.a), the
# I/O library (libpzio.a: TensorProto files, NAME.weights), their headers
# copied into $(B)/include, and $(B)/sdk.flags (link flags the runtime was
# built with: sanitizers); for a program with an ImageDecoder layer only,
# the image decoders (libpzimage.a) and $(B)/image.flags (the image
# libraries they need). `paleozoic compile/build` finds all of them beside
# its own binary.

IO_SRCS := $(wildcard src/io/*.c)
IO_OBJS := $(patsubst src/%.c,$(B)/obj/%.o,$(IO_SRCS))
SDK_HDRS := $(B)/include/pz_rt.h $(B)/include/pz_dtypes.h $(B)/include/pz_op_kinds.h $(B)/include/pz_op_params.h $(B)/include/pz_raw.h $(B)/include/pz_io.h

# pz_io.h includes "pz_rt.h" as the installed headers sit side by side.
$(B)/obj/io/%.o $(B)/obj/gen/%.o: CFLAGS += -Isrc/rt

$(B)/libpzio.a: $(IO_OBJS)
	rm -f $@ && ar rcs $@ $^

$(B)/include/%.h: src/rt/%.h
	@mkdir -p $(dir $@)
	cp $< $@

$(B)/include/pz_io.h: src/io/pz_io.h
	@mkdir -p $(dir $@)
	cp $< $@

$(B)/sdk.flags: Makefile mk/codegen.mk
	@mkdir -p $(dir $@)
	echo '$(LDSAN)' > $@

$(B)/image.flags: Makefile mk/codegen.mk
	@mkdir -p $(dir $@)
	echo '$(IMG_LIBS)' > $@

all: $(B)/libpzio.a $(SDK_HDRS) $(B)/sdk.flags $(B)/libpzimage.a $(B)/image.flags

# The CLI and the unit tests read the run options from the environment with
# libpzio's pz_io_run_options_env (the runtime reads no environment).
LDLIBS += $(B)/libpzio.a
$(B)/paleozoic $(TEST_BINS): $(B)/libpzio.a
$(TEST_BINS) $(CLI_OBJS): CFLAGS += -Isrc/rt

-include $(IO_OBJS:.o=.d)
