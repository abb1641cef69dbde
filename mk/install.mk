# install.mk - `make install [PREFIX=/usr/local] [DESTDIR=]`: the CLI, the
# runtime as a library (static and shared, with a soname), its public
# headers and a pkg-config file:
#   bin/paleozoic
#   lib/libpzrt.a, lib/libpzrt.so.$(PZ_VERSION) (soname libpzrt.so.$(PZ_SOMAJOR)), libpzrt.so
#                  the runtime and libpzio (TensorProto files, NAME.weights) in one
#   lib/libpzimage.a, lib/libpzimage.so.$(PZ_VERSION) (soname libpzimage.so.$(PZ_SOMAJOR)),
#                  libpzimage.so: ImageDecoder's decoders and the image libraries
#                  they need, apart so that other programs do not need those
#   lib/pkgconfig/paleozoic-image.pc   what a program with an ImageDecoder adds
#   include/paleozoic/  pz_rt.h, pz_raw.h, pz_io.h and what they include
#   lib/pkgconfig/paleozoic.pc   cc prog.c $(pkg-config --cflags --libs paleozoic)
#   PYDIR/paleozoic/  the Python package (python/paleozoic), told where the
#                   installed CLI is (_install.py); PYDIR: Debian's
#                   lib/python3/dist-packages under /usr, else
#                   lib/python3.N/dist-packages (both on python3's sys.path)
#   lib/paleozoic/  what an installed `paleozoic compile/build` links generated
#                   programs with (include/, libpzrt.a, libpzio.a, sdk.flags,
#                   libpzimage.a, image.flags, and libpaleozoic.a for a model with
#                   a sequence input, src/gen/replan.c: the layout of the build
#                   directory), PZ_SDK of their Makefile
# `make uninstall` removes them.

PREFIX  ?= /usr/local
DESTDIR ?=
# the project's version: the one generated programs name (src/gen/emit.h)
PZ_VERSION := $(shell sed -n 's/^\#define PZ_GEN_VERSION "\(.*\)"/\1/p' src/gen/emit.h)
PZ_SOMAJOR := $(firstword $(subst ., ,$(PZ_VERSION)))
INST_LIB := $(B)/install
PY_MINOR := $(shell /usr/bin/python3 -c 'import sys; print(sys.version_info[1])' 2>/dev/null)
PYDIR   ?= $(if $(filter /usr,$(PREFIX)),$(PREFIX)/lib/python3/dist-packages,$(PREFIX)/lib/python3.$(PY_MINOR)/dist-packages)
PY_SRCS := $(wildcard python/paleozoic/*.py)

.PHONY: install uninstall
all: $(INST_LIB)/libpzrt.a $(INST_LIB)/libpzrt.so.$(PZ_VERSION) $(INST_LIB)/libpzimage.so.$(PZ_VERSION)

# The installed archive holds libpzio too: -lpzrt alone links a program.
$(INST_LIB)/libpzrt.a: $(RT_OBJS) $(IO_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(INST_LIB)/libpzrt.so.$(PZ_VERSION): $(RT_OBJS) $(IO_OBJS)
	@mkdir -p $(dir $@)
	$(CC) -shared $(LDSAN) -Wl,-soname,libpzrt.so.$(PZ_SOMAJOR) -o $@ $^ -lm -lpthread

# The decoders alone: the runtime's layer finds pz_image_decode at load time
# (a weak reference of libpzrt.so) when a program links this too.
$(INST_LIB)/libpzimage.so.$(PZ_VERSION): $(IMG_OBJS)
	@mkdir -p $(dir $@)
	$(CC) -shared $(LDSAN) -Wl,-soname,libpzimage.so.$(PZ_SOMAJOR) -o $@ $^ $(IMG_LIBS)

D := $(DESTDIR)$(PREFIX)
install: $(B)/paleozoic $(B)/libpzio.a $(SDK_HDRS) $(B)/sdk.flags $(INST_LIB)/libpzrt.a \
         $(INST_LIB)/libpzrt.so.$(PZ_VERSION) $(B)/libpzimage.a $(B)/image.flags \
         $(INST_LIB)/libpzimage.so.$(PZ_VERSION)
	install -d '$(D)/bin' '$(D)/lib/pkgconfig' '$(D)/include/paleozoic' '$(D)/lib/paleozoic'
	install -m 755 $(B)/paleozoic '$(D)/bin/paleozoic'
	install -m 644 $(INST_LIB)/libpzrt.a '$(D)/lib/libpzrt.a'
	install -m 755 $(INST_LIB)/libpzrt.so.$(PZ_VERSION) '$(D)/lib/libpzrt.so.$(PZ_VERSION)'
	ln -sf libpzrt.so.$(PZ_VERSION) '$(D)/lib/libpzrt.so.$(PZ_SOMAJOR)'
	ln -sf libpzrt.so.$(PZ_SOMAJOR) '$(D)/lib/libpzrt.so'
	install -m 644 $(B)/libpzimage.a '$(D)/lib/libpzimage.a'
	install -m 755 $(INST_LIB)/libpzimage.so.$(PZ_VERSION) '$(D)/lib/libpzimage.so.$(PZ_VERSION)'
	ln -sf libpzimage.so.$(PZ_VERSION) '$(D)/lib/libpzimage.so.$(PZ_SOMAJOR)'
	ln -sf libpzimage.so.$(PZ_SOMAJOR) '$(D)/lib/libpzimage.so'
	install -m 644 $(SDK_HDRS) '$(D)/include/paleozoic/'
	@# written here: it names the PREFIX of this install
	printf '%s\n' 'prefix=$(PREFIX)' 'exec_prefix=$${prefix}' 'libdir=$${exec_prefix}/lib' \
	  'includedir=$${prefix}/include' '' 'Name: paleozoic' \
	  'Description: Paleozoic runtime: run networks compiled from ONNX (pz_rt.h, pz_io.h)' \
	  'Version: $(PZ_VERSION)' 'Cflags: -I$${includedir}/paleozoic' \
	  'Libs: -L$${libdir} -lpzrt' 'Libs.private: -lm -lpthread' > '$(D)/lib/pkgconfig/paleozoic.pc'
	@# libpzrt reaches the decoders by a weak reference, which links nothing in:
	@# -u pulls libpzimage.a's entry in, --no-as-needed keeps libpzimage.so NEEDED
	printf '%s\n' 'prefix=$(PREFIX)' 'exec_prefix=$${prefix}' 'libdir=$${exec_prefix}/lib' '' \
	  'Name: paleozoic-image' \
	  'Description: Paleozoic image decoders, for programs with an ImageDecoder layer' \
	  'Version: $(PZ_VERSION)' 'Requires: paleozoic' \
	  'Libs: -L$${libdir} -Wl,-u,pz_image_decode -Wl,--push-state,--no-as-needed -lpzimage -Wl,--pop-state' 'Libs.private: $(IMG_LIBS)' \
	  > '$(D)/lib/pkgconfig/paleozoic-image.pc'
	ln -sfn ../../include/paleozoic '$(D)/lib/paleozoic/include'
	ln -sf ../libpzrt.a '$(D)/lib/paleozoic/libpzrt.a'
	ln -sf ../libpzimage.a '$(D)/lib/paleozoic/libpzimage.a'
	install -m 644 $(B)/libpzio.a $(B)/libpaleozoic.a $(B)/sdk.flags $(B)/image.flags '$(D)/lib/paleozoic/'
	install -d '$(DESTDIR)$(PYDIR)/paleozoic'
	install -m 644 $(PY_SRCS) '$(DESTDIR)$(PYDIR)/paleozoic/'
	printf '%s\n' '# written by make install: the CLI this package drives' \
	  'BINARY = "$(PREFIX)/bin/paleozoic"' > '$(DESTDIR)$(PYDIR)/paleozoic/_install.py'

uninstall:
	rm -f '$(D)/bin/paleozoic' '$(D)/lib/libpzrt.a' '$(D)/lib/libpzrt.so' \
	  '$(D)/lib/libpzrt.so.$(PZ_SOMAJOR)' '$(D)/lib/libpzrt.so.$(PZ_VERSION)' \
	  '$(D)/lib/pkgconfig/paleozoic.pc' '$(D)/lib/paleozoic/include' \
	  '$(D)/lib/paleozoic/libpzrt.a' '$(D)/lib/paleozoic/libpzio.a' '$(D)/lib/paleozoic/sdk.flags' \
	  '$(D)/lib/paleozoic/libpaleozoic.a' \
	  '$(D)/lib/libpzimage.a' '$(D)/lib/libpzimage.so' '$(D)/lib/libpzimage.so.$(PZ_SOMAJOR)' \
	  '$(D)/lib/libpzimage.so.$(PZ_VERSION)' '$(D)/lib/pkgconfig/paleozoic-image.pc' \
	  '$(D)/lib/paleozoic/libpzimage.a' '$(D)/lib/paleozoic/image.flags'
	rm -f $(patsubst $(B)/include/%,'$(D)/include/paleozoic/%',$(SDK_HDRS))
	rm -rf '$(DESTDIR)$(PYDIR)/paleozoic'
	-rmdir '$(D)/include/paleozoic' '$(D)/lib/paleozoic' 2>/dev/null
