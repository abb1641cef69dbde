# Example optimizer strategies built as plug-ins (examples/*.c, one shared
# object each, against the public header src/opt/pz_strategy.h only):
# $(B)/examples/NAME.so. `make` builds them with everything else.
EXAMPLE_SRCS := $(wildcard examples/strategy_*.c)
EXAMPLE_SOS  := $(patsubst examples/%.c,$(B)/examples/%.so,$(EXAMPLE_SRCS))

all: $(EXAMPLE_SOS)

$(B)/examples/%.so: examples/%.c src/opt/pz_strategy.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(OPTFLAGS) $(WARN) -shared -fPIC -Isrc/opt $(LDSAN) -o $@ $<
