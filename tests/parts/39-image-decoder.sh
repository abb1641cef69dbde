#!/bin/sh
# 39-image-decoder.sh BUILD_DIR - ImageDecoder (issue 39) on images Pillow
# writes (tests/image/image_models.py): JPEG (baseline, 4:4:4, progressive,
# gray), PNG (RGB, gray, RGBA, palette, 1-bit), TIFF (raw, LZW, gray), WebP
# (lossy, lossless, RGBA), JPEG 2000 (RGB, gray), BMP (24-bit, 8-bit gray
# and palette, 1-bit), PPM and PGM, each as RGB, BGR and Grayscale through
# `paleozoic run`, bit for bit against Pillow's decode (what ONNX's
# reference decodes with); every other case planned at a bound larger than
# the image. Some also as the program `paleozoic build` makes. Truncated and
# foreign bytes, an image past the declared bound, and bad models exit 2
# naming the node; bytes changed at random decode or exit 2, never crash.
# The image decoders (libpzimage) and libraries link only into programs
# with an ImageDecoder: a built one needs them (readelf NEEDED), a model
# without one (resnet18 when build/test-models has it, and a one-Relu
# model) needs none and its Makefile names none; the ImageDecoder program
# linked without libpzimage exits 2 saying so.
# Under a sanitizer build every third good case runs (all with
# PZ_TEST_FULL=1). Ends with `N passed, N failed`.
set -u
NAME=39-image-decoder
. "$(dirname "$0")/lib.sh"
part_init "$@"
[ "$have_py" = 1 ] && "$PY" -c 'import PIL' 2>/dev/null ||
    skip_part "needs python3-onnx and python3-pil (tools/setup.sh)"

d="$T/images"
mkdir -p "$d"
"$PY" "$ROOT/tests/image/image_models.py" "$d" >"$d/names" 2>"$T/log" || {
    bad "image_models.py: $(tail -c 400 "$T/log")"
    finish
}
every=1
[ "$san" = 1 ] && [ "$full" = 0 ] && every=3
k=0
while read -r kind name rest; do
    case "$kind" in
    bad)
        refuse "$name refused" "$rest" "$PZ" run "$d/$name.onnx" --input "$d/$name.in_0.pb" \
            --output "$d/$name.pz.pb"
        ;;
    fuzz)
        "$PZ" run "$d/$name.onnx" --input "$d/$name.in_0.pb" --output "$d/$name.pz.pb" \
            >"$T/log" 2>&1
        rc=$?
        if { [ "$rc" = 0 ] || { [ "$rc" = 2 ] && grep -q "(ImageDecoder)" "$T/log"; }; } &&
            clean "$T/log"; then ok "$name: exit $rc"
        else bad "$name: exit $rc: $(tail -c 400 "$T/log")"; fi
        ;;
    *)
        m="$d/$kind"
        k=$((k + 1))
        [ $((k % every)) = 0 ] || [ "$every" = 1 ] || continue
        check "$kind: run vs Pillow" sh -c "'$PZ' run '$m.onnx' --input '$m.in_0.pb' \
            --output '$m.pz.pb' && node '$E2E/compare.js' --bitwise '$m.pz.pb' '$m.ref.pb'"
        ;;
    esac
done <"$d/names"

# the program `paleozoic build` makes: the same bytes, and exit 2 on bad ones
for name in jpeg_rgb_bgr png_rgba_rgb webp_rgb_grayscale; do
    m="$d/$name"
    check "$name: built program vs Pillow" sh -c "'$PZ' build '$m.onnx' -o '$m.exe' && \
        '$m.exe' --input '$m.in_0.pb' --output '$m.exe.pb' && \
        node '$E2E/compare.js' --bitwise '$m.exe.pb' '$m.ref.pb'"
done
"$PZ" build "$d/bad_text.onnx" -o "$d/bad_text.exe" >"$T/log" 2>&1 || bad "build bad_text: $(cat "$T/log")"
refuse "built program: bytes that are no image" "(ImageDecoder)" "$d/bad_text.exe" \
    --input "$d/bad_text.in_0.pb" --output "$d/bad_text.exe.pb"

# ---- libpzimage: only programs that decode link it -------------------------
IMG_SO='NEEDED.*\[lib(jpeg|png16|tiff|webp|openjp2)\.so'
for l in jpeg png16 tiff webp openjp2; do
    check "built ImageDecoder program needs lib$l" \
        sh -c "readelf -d '$d/jpeg_rgb_bgr.exe' | grep -q 'NEEDED.*\[lib$l\.so'"
done
"$PY" - "$d/relu.onnx" <<'PYEOF' || bad "relu.onnx: could not write it"
import sys, onnx
from onnx import helper as h, TensorProto as T
g = h.make_graph([h.make_node("Relu", ["x"], ["y"], name="relu")], "relu",
                 [h.make_tensor_value_info("x", T.FLOAT, [2, 3])],
                 [h.make_tensor_value_info("y", T.FLOAT, [2, 3])])
onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), sys.argv[1])
PYEOF
plain="$d/relu.onnx"
[ -f "$M/resnet18.onnx" ] && plain="$plain $M/resnet18.onnx"
for m in $plain; do
    n=$(basename "$m" .onnx)
    if "$PZ" build "$m" -o "$d/$n.plain" >"$T/log" 2>&1; then
        if readelf -d "$d/$n.plain" | grep -E -q "$IMG_SO"; then
            bad "$n: its program needs an image library: $(readelf -d "$d/$n.plain" | grep -E "$IMG_SO")"
        else ok "$n: its program needs no image library"; fi
    else bad "$n: build: $(tail -c 400 "$T/log")"; fi
done
"$PZ" compile "$d/relu.onnx" -o "$d/relu.src" >"$T/log" 2>&1 || bad "compile relu: $(cat "$T/log")"
grep -q -E 'libpzimage|ljpeg' "$d/relu.src/Makefile" && bad "relu's Makefile links the image decoders" ||
    ok "relu's Makefile links no image decoder"
# the generated Makefile of an ImageDecoder model links them, and decodes
m="$d/png_rgba_rgb"
check "png_rgba_rgb: compile, its Makefile, run vs Pillow" sh -c "'$PZ' compile '$m.onnx' -o '$m.src' && \
    grep -q 'libpzimage.a' '$m.src/Makefile' && make -s -C '$m.src' && \
    '$m.src/png_rgba_rgb' --input '$m.in_0.pb' --output '$m.mk.pb' && \
    node '$E2E/compare.js' --bitwise '$m.mk.pb' '$m.ref.pb'"
# linked without them: the layer says what is missing, no crash
if cc -std=c99 -I"$B/include" -o "$m.src/nolib" "$m.src/png_rgba_rgb.c" "$m.src/main.c" \
    "$B/libpzio.a" "$B/libpzrt.a" $(cat "$B/sdk.flags") -lm -lpthread >"$T/log" 2>&1; then
    readelf -d "$m.src/nolib" | grep -E -q "$IMG_SO" && bad "nolib: needs an image library" ||
        ok "nolib: needs no image library"
    refuse "ImageDecoder program without libpzimage" "linked without the image decoders (libpzimage" \
        "$m.src/nolib" --weights "$m.src/png_rgba_rgb.weights" --input "$m.in_0.pb" \
        --output "$m.nolib.pb"
else bad "linking png_rgba_rgb without libpzimage: $(tail -c 400 "$T/log")"; fi
finish
