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
finish
