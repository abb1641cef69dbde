#!/bin/sh
# 44-install.sh BUILD_DIR [MODELDIR] - Paleozoic as an installed library and
# compiled models as libraries (issue 44).
#
#   install    `make install DESTDIR=T PREFIX=/usr`: the CLI, libpzrt.a,
#              libpzrt.so.VERSION with soname libpzrt.so.MAJOR and its links,
#              the headers in include/paleozoic, paleozoic.pc
#   pkgconfig  examples/pkgconfig/gemm.c built with `pkg-config --cflags
#              --libs paleozoic` against DESTDIR (shared and static) and run:
#              its net's outputs match the sum it computes itself
#   lib        `build --lib` of a small CNN (tests/install/tiny_model.py):
#              libNAME.a, libNAME.so (soname, no libpzrt NEEDED, exactly the
#              model's API exported), NAME.h compiling alone; the example
#              examples/model_lib/run_model.c linked to the .so and to the .a
#              gives outputs and top-5 bitwise equal to the executable that
#              `build` makes of the same model and input
#   embed      --embed-weights: no NAME.weights written; the .so and the
#              executable run from another directory, bitwise equal; an
#              explicit weights path still wins (a wrong one is refused)
#   two        two models' .so loaded in one process (examples/model_lib/
#              two_models.c, dlopen): each finds its name, runs, and gives its
#              own executable's bytes
#   installed  the installed paleozoic builds a --lib and a `compile` whose
#              Makefile builds against the installed runtime, same bytes
#   image      libpzrt.so and gemm need no image library; libpzimage.so
#              (soname) does; an ImageDecoder model (tests/image) built by
#              the installed paleozoic's Makefile (static libpzimage) and
#              with `pkg-config --libs paleozoic-image` (shared) decodes
#              bitwise as Pillow does
#   refusals   compile --lib, a --name that is not an identifier, --lib
#              without -o: exit 2; a failing C compiler leaves no directory
# Ends with `N passed, N failed`.
set -u
NAME=44-install
. "$(dirname "$0")/lib.sh"
part_init "$@"
EX="$ROOT/examples"
SANF=$(cat "$B/sdk.flags" 2>/dev/null)
MKARGS="BUILD=${B#"$ROOT"/}"
case "$san" in 1) MKARGS="SAN=1 $MKARGS" ;; esac
CCX="cc -std=c11 -Wall -Wextra -Werror"

command -v pkg-config >/dev/null || { echo "install: pkg-config missing (tools/setup.sh installs it)"; bad "pkg-config"; }

# ---- install ---------------------------------------------------------------
D="$T/dest"
P="$D/usr"
if make -C "$ROOT" -s -j2 $MKARGS install DESTDIR="$D" PREFIX=/usr >"$T/log" 2>&1; then ok
else bad "make install: $(tail -c 600 "$T/log")"; fi
VER=$(sed -n 's/^#define PZ_GEN_VERSION "\(.*\)"/\1/p' "$ROOT/src/gen/emit.h")
MAJ=${VER%%.*}
for f in bin/paleozoic lib/libpzrt.a "lib/libpzrt.so.$VER" include/paleozoic/pz_rt.h \
         include/paleozoic/pz_io.h include/paleozoic/pz_raw.h include/paleozoic/pz_dtypes.h \
         lib/pkgconfig/paleozoic.pc lib/libpzimage.a "lib/libpzimage.so.$VER" \
         lib/pkgconfig/paleozoic-image.pc lib/paleozoic/libpzimage.a lib/paleozoic/image.flags \
         lib/paleozoic/libpaleozoic.a; do
    [ -f "$P/$f" ] && ok || bad "install: $f missing"
done
[ "$(readlink "$P/lib/libpzrt.so")" = "libpzrt.so.$MAJ" ] &&
    [ "$(readlink "$P/lib/libpzrt.so.$MAJ")" = "libpzrt.so.$VER" ] && ok ||
    bad "install: libpzrt.so -> libpzrt.so.$MAJ -> libpzrt.so.$VER links"
readelf -d "$P/lib/libpzrt.so.$VER" | grep -q "SONAME.*\[libpzrt.so.$MAJ\]" && ok ||
    bad "install: libpzrt.so.$VER has no soname libpzrt.so.$MAJ"
IMG_SO='NEEDED.*\[lib(jpeg|png16|tiff|webp|openjp2)\.so'
readelf -d "$P/lib/libpzrt.so.$VER" | grep -E -q "$IMG_SO" &&
    bad "install: libpzrt.so.$VER needs an image library" || ok "libpzrt.so needs no image library"
readelf -d "$P/lib/libpzimage.so.$VER" | grep -q "SONAME.*\[libpzimage.so.$MAJ\]" &&
    readelf -d "$P/lib/libpzimage.so.$VER" | grep -q 'NEEDED.*\[libjpeg' && ok "libpzimage.so" ||
    bad "install: libpzimage.so.$VER: no soname libpzimage.so.$MAJ or no libjpeg NEEDED"
export PKG_CONFIG_PATH="$P/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$D"
[ "$(pkg-config --modversion paleozoic 2>&1)" = "$VER" ] && ok ||
    bad "pkg-config --modversion: $(pkg-config --modversion paleozoic 2>&1), want $VER"
case "$(pkg-config --cflags --libs paleozoic)" in
    *"-I$P/include/paleozoic"*"-L$P/lib"*-lpzrt*) ok ;;
    *) bad "pkg-config flags: $(pkg-config --cflags --libs paleozoic)" ;;
esac
# every public header compiles alone (pz_op_params.h, ... are pieces of pz_rt.h)
for h in "$P"/include/paleozoic/pz_rt.h "$P"/include/paleozoic/pz_raw.h "$P"/include/paleozoic/pz_io.h; do
    check "installed $(basename "$h") alone" sh -c "printf '#include <%s>\n' '$(basename "$h")' |
        $CCX -fsyntax-only $(pkg-config --cflags paleozoic) -x c -"
done

# ---- the pkg-config example ------------------------------------------------
check "gemm.c built with pkg-config (shared)" sh -c "$CCX '$EX/pkgconfig/gemm.c' \
    \$(pkg-config --cflags --libs paleozoic) $SANF -Wl,-rpath,'$P/lib' -o '$T/gemm'"
check "gemm (shared runtime) runs and matches" sh -c "'$T/gemm' '$T/g.pb' | grep -q 'gemm: ok'"
check "gemm links libpzrt.so.$MAJ" sh -c "readelf -d '$T/gemm' | grep -q 'NEEDED.*libpzrt.so.$MAJ'"
check "gemm needs no image library" sh -c "! readelf -d '$T/gemm' | grep -E -q '$IMG_SO'"
check "gemm.c built with pkg-config --static" sh -c "$CCX '$EX/pkgconfig/gemm.c' \
    \$(pkg-config --cflags paleozoic) '$P/lib/libpzrt.a' \$(pkg-config --libs-only-l --static paleozoic | sed 's/-lpzrt//') \
    $SANF -o '$T/gemm_s' && '$T/gemm_s' '$T/g2.pb' | grep -q 'gemm: ok' && cmp '$T/g.pb' '$T/g2.pb'"

# ---- two small models and their executables --------------------------------
M="$T/m"
mkdir -p "$M/exe" "$M/exe3" "$M/emb"
check "tiny models" sh -c "/usr/bin/python3 '$ROOT/tests/install/tiny_model.py' '$M/tiny.onnx' '$M/x.pb' 0 &&
    "$PY" '$ROOT/tests/install/tiny_model.py' '$M/t3.onnx' '$M/x3.pb' 3"
check "build tiny (executable)" "$PZ" build "$M/tiny.onnx" -o "$M/exe/tiny"
check "build t3 (executable)" "$PZ" build "$M/t3.onnx" -o "$M/exe3/t3"
check "run tiny" sh -c "'$M/exe/tiny' --input '$M/x.pb' --output '$M/ref.pb' --threads 1 --top 5 > '$M/ref.top'"
# a model named like a local or libc function of the program's main.c gets
# another C name (it shadowed or clashed with the model's type: no compile)
for nm in repeat free; do
    mkdir -p "$M/clash" && cp "$M/tiny.onnx" "$M/clash/$nm.onnx"
    check "build a model named $nm, run it" sh -c "'$PZ' build '$M/clash/$nm.onnx' -o '$M/clash/$nm' &&
        '$M/clash/$nm' --input '$M/x.pb' --output '$M/clash/$nm.pb' --threads 1 && cmp -s '$M/clash/$nm.pb' '$M/ref.pb'"
done
check "run t3" "$M/exe3/t3" --input "$M/x3.pb" --output "$M/ref3.pb" --threads 1

# ---- --lib -----------------------------------------------------------------
L="$M/lib"
check "build --lib" "$PZ" build "$M/tiny.onnx" --lib -o "$L"
for f in libtiny.a libtiny.so tiny.h tiny.weights; do [ -f "$L/$f" ] && ok || bad "--lib: $f missing"; done
[ "$(ls -A "$L" | wc -l)" = 4 ] && ok || bad "--lib: extra files in DIR: $(ls -A "$L" | tr '\n' ' ')"
readelf -d "$L/libtiny.so" | grep -q 'SONAME.*\[libtiny.so\]' && ok || bad "--lib: no soname libtiny.so"
readelf -d "$L/libtiny.so" | grep -q 'NEEDED.*libpzrt' && bad "--lib: libtiny.so needs libpzrt (not self-contained)" || ok
want="paleozoic_model_name tiny_check_values tiny_create tiny_destroy tiny_input_values tiny_inputs tiny_n_input_values tiny_n_inputs tiny_n_output_values tiny_n_outputs tiny_net tiny_output_data tiny_output_shape tiny_output_values tiny_outputs tiny_run"
got=$(nm -D --defined-only "$L/libtiny.so" | awk '{print $3}' | grep -v '^_' | LC_ALL=C sort | tr '\n' ' ')
[ "$got" = "$want " ] && ok || bad "--lib: libtiny.so exports [$got], want [$want]"
check "tiny.h compiles alone (installed headers)" sh -c "printf '#include \"tiny.h\"\n' |
    $CCX -std=c99 -fsyntax-only -I'$L' \$(pkg-config --cflags paleozoic) -x c -"
check "run_model.c + libtiny.so" sh -c "$CCX -DMODEL=tiny -I'$L' '$EX/model_lib/run_model.c' '$L/libtiny.so' \
    \$(pkg-config --cflags --libs paleozoic) $SANF -Wl,-rpath,'$L' -Wl,-rpath,'$P/lib' -o '$T/rm_so'"
check "run_model.c + libtiny.a" sh -c "$CCX -DMODEL=tiny -I'$L' '$EX/model_lib/run_model.c' '$L/libtiny.a' \
    \$(pkg-config --cflags paleozoic) '$P/lib/libpzrt.a' -lm -lpthread $SANF -o '$T/rm_a'"
for v in so a; do
    check "libtiny.$v: output bitwise equal to the executable" sh -c "'$T/rm_$v' --input '$M/x.pb' \
        --output '$M/$v.pb' --weights '$L/tiny.weights' --top 5 > '$M/$v.top' && cmp '$M/ref.pb' '$M/$v.pb'"
    check "libtiny.$v: the same top-5" sh -c "grep '^top-' '$M/$v.top' | cmp - '$M/ref.top'"
done

# ---- --embed-weights -------------------------------------------------------
E="$M/elib"
check "build --lib --embed-weights" "$PZ" build "$M/tiny.onnx" --lib --embed-weights -o "$E" --name tinye
[ ! -e "$E/tinye.weights" ] && [ -f "$E/libtinye.so" ] && ok || bad "--embed-weights: $(ls -A "$E" | tr '\n' ' ')"
grep -q '#define TINYE_EMBEDDED_WEIGHTS 1' "$E/tinye.h" && ok || bad "--embed-weights: tinye.h does not say so"
check "run_model.c + libtinye.so" sh -c "$CCX -DMODEL=tinye -I'$E' '$EX/model_lib/run_model.c' '$E/libtinye.so' \
    \$(pkg-config --cflags --libs paleozoic) $SANF -Wl,-rpath,'$E' -Wl,-rpath,'$P/lib' -o '$T/rm_e'"
check "embedded .so from another directory: bitwise equal" sh -c "cd / && '$T/rm_e' --input '$M/x.pb' \
    --output '$M/e.pb' && cmp '$M/ref.pb' '$M/e.pb'"
check "embedded .so: an explicit weights path wins" sh -c "'$T/rm_e' --input '$M/x.pb' \
    --output '$M/e2.pb' --weights '$L/tiny.weights' && cmp '$M/ref.pb' '$M/e2.pb'"
check "embedded .so: a missing weights path is refused, by name" sh -c "! '$T/rm_e' --input '$M/x.pb' \
    --weights '$M/none.weights' > '$T/e.log' 2>&1 && grep -q 'none.weights' '$T/e.log'"
check "build --embed-weights (executable)" "$PZ" build "$M/tiny.onnx" --embed-weights -o "$M/emb/tiny"
[ ! -e "$M/emb/tiny.weights" ] && ok || bad "--embed-weights executable wrote tiny.weights"
check "embedded executable from another directory: bitwise equal" sh -c "cd / && '$M/emb/tiny' --input '$M/x.pb' \
    --output '$M/emb.pb' --threads 1 && cmp '$M/ref.pb' '$M/emb.pb'"

# ---- two models in one process ---------------------------------------------
L3="$M/lib3"
check "build t3 --lib --embed-weights" "$PZ" build "$M/t3.onnx" --lib --embed-weights -o "$L3"
check "two_models.c" sh -c "$CCX '$EX/model_lib/two_models.c' -ldl $SANF -o '$T/two'"
check "two .so in one process" sh -c "'$T/two' '$L/libtiny.so' '$L/tiny.weights' '$L3/libt3.so' - '$M/x.pb' \
    '$M/a.raw' '$M/b.raw' > '$M/two.log' && grep -q '^tiny: 10 outputs' '$M/two.log' && grep -q '^t3: 13 outputs' '$M/two.log'"
check "two .so: tiny's bytes" sh -c "tail -c 40 '$M/ref.pb' | cmp - '$M/a.raw'"
check "two .so: t3's bytes (from t3's input)" sh -c "'$T/two' '$L3/libt3.so' - '$L/libtiny.so' '$L/tiny.weights' '$M/x3.pb' \
    '$M/b3.raw' '$M/a3.raw' >/dev/null && tail -c 52 '$M/ref3.pb' | cmp - '$M/b3.raw'"

# ---- the installed paleozoic -----------------------------------------------
check "installed paleozoic build --lib" "$P/bin/paleozoic" build "$M/tiny.onnx" --lib -o "$M/ilib" --name tinyi
check "installed --lib: bitwise equal" sh -c "$CCX -DMODEL=tinyi -I'$M/ilib' '$EX/model_lib/run_model.c' \
    '$M/ilib/libtinyi.so' \$(pkg-config --cflags --libs paleozoic) $SANF -Wl,-rpath,'$M/ilib' -Wl,-rpath,'$P/lib' \
    -o '$T/rm_i' && '$T/rm_i' --input '$M/x.pb' --output '$M/i.pb' --weights '$M/ilib/tinyi.weights' && cmp '$M/ref.pb' '$M/i.pb'"
check "installed compile: its Makefile builds against the install" sh -c "'$P/bin/paleozoic' compile '$M/tiny.onnx' \
    -o '$M/isrc' && grep -q 'PZ_SDK ?= $P/bin/../lib/paleozoic' '$M/isrc/Makefile' && make -s -C '$M/isrc' &&
    '$M/isrc/tiny' --input '$M/x.pb' --output '$M/is.pb' --threads 1 && cmp '$M/ref.pb' '$M/is.pb'"
# a sequence model's program links libpaleozoic.a (another length planned at run time)
S=${PZ_ONNX_TESTS:-$ROOT/../shared/onnx-tests}/node/test_sequence_insert_at_back/test_data_set_0
if [ -d "$S" ]; then
    check "installed build: a sequence of another length" sh -c "'$P/bin/paleozoic' build '$S/../model.onnx' \
        --input '$S/input_0.pb' --input '$S/input_1.pb' -o '$M/iseq' >/dev/null 2>&1 &&
        '$M/iseq' --input '$S/output_0.pb' --input '$S/input_1.pb' --output '$M/iseq.pb' --threads 1 &&
        '$P/bin/paleozoic' run '$S/../model.onnx' --input '$S/output_0.pb' --input '$S/input_1.pb' \
        --output '$M/rseq.pb' --threads 1 && cmp '$M/iseq.pb' '$M/rseq.pb'"
fi

# ---- ImageDecoder against the installed libpzimage --------------------------
I="$M/img"
mkdir -p "$I"
if "$PY" -c 'import PIL, onnx, numpy' 2>/dev/null; then
    check "image models" sh -c "'$PY' '$ROOT/tests/image/image_models.py' '$I' > '$I/names'"
    m="$I/png_rgba_rgb"
    check "installed compile: an ImageDecoder model's Makefile, bitwise vs Pillow" sh -c "'$P/bin/paleozoic' \
        compile '$m.onnx' -o '$I/src' && make -s -C '$I/src' && '$I/src/png_rgba_rgb' --input '$m.in_0.pb' \
        --output '$I/mk.pb' && node '$E2E/compare.js' --bitwise '$I/mk.pb' '$m.ref.pb'"
    check "ImageDecoder with pkg-config paleozoic-image (shared), bitwise vs Pillow" sh -c "cc -std=c99 \
        -I'$I/src' '$I/src/png_rgba_rgb.c' '$I/src/main.c' \$(pkg-config --cflags --libs paleozoic-image) -lm \
        $SANF -Wl,-rpath,'$P/lib' -o '$I/so' && readelf -d '$I/so' | grep -q 'NEEDED.*libpzimage.so.$MAJ' && \
        '$I/so' --weights '$I/src/png_rgba_rgb.weights' --input '$m.in_0.pb' --output '$I/so.pb' && \
        node '$E2E/compare.js' --bitwise '$I/so.pb' '$m.ref.pb'"
else skip_one "ImageDecoder against the install: needs python3-pil"; fi

# ---- the installed Python package ------------------------------------------
# (not under a sanitizer: an ASan library does not load into python3)
PYD="$P/lib/python3/dist-packages"
[ -f "$PYD/paleozoic/__init__.py" ] && [ -f "$PYD/paleozoic/_model.py" ] && ok ||
    bad "install: the Python package is not in $PYD/paleozoic"
grep -q "^BINARY = \"/usr/bin/paleozoic\"$" "$PYD/paleozoic/_install.py" 2>/dev/null && ok ||
    bad "install: _install.py does not name /usr/bin/paleozoic"
if [ -z "$SANF" ] && "$PY" -c 'import numpy, onnx' 2>/dev/null; then
    check "installed Python package: compile, run, bitwise equal to the executable" sh -c "cd / &&
        PYTHONPATH='$PYD' PALEOZOIC='$P/bin/paleozoic' "$PY" -c '
import sys, numpy as np, onnx
from onnx import numpy_helper
import paleozoic
assert paleozoic.__file__.startswith(\"$PYD/\"), paleozoic.__file__
x = numpy_helper.to_array(onnx.load_tensor(\"$M/x.pb\"))
ref = numpy_helper.to_array(onnx.load_tensor(\"$M/ref.pb\"))
with paleozoic.compile(\"$M/tiny.onnx\", threads=1) as m:
    y = list(m.run(np.ascontiguousarray(x)).values())[0]
sys.exit(0 if y.tobytes() == ref.tobytes() else 1)
'"
fi

# ---- refusals --------------------------------------------------------------
refuse "compile --lib" "" "$PZ" compile "$M/tiny.onnx" --lib -o "$M/r1"
refuse "compile --embed-weights" "" "$PZ" compile "$M/tiny.onnx" --embed-weights -o "$M/r1"
refuse "--lib --name a-b" "" "$PZ" build "$M/tiny.onnx" --lib -o "$M/r2" --name a-b
refuse "--lib --name int" "" "$PZ" build "$M/tiny.onnx" --lib -o "$M/r2" --name int
refuse "--lib without -o" "" "$PZ" build "$M/tiny.onnx" --lib
[ ! -e "$M/r1" ] && [ ! -e "$M/r2" ] && ok || bad "a refusal left a directory behind"
CC=false "$PZ" build "$M/tiny.onnx" --lib --embed-weights -o "$M/r3" >"$T/log" 2>&1
rc=$?
[ "$rc" != 0 ] && [ ! -e "$M/r3" ] && ok || bad "failing cc: exit $rc, left $(ls -A "$M/r3" 2>&1 | tr '\n' ' ')"
mkdir -p "$M/r4"
CC=false "$PZ" build "$M/tiny.onnx" --lib -o "$M/r4" >"$T/log" 2>&1
[ -z "$(ls -A "$M/r4")" ] && ok || bad "failing cc: left in an existing DIR: $(ls -A "$M/r4" | tr '\n' ' ')"

finish
