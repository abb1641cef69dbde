#!/bin/sh
# 32-half.sh BUILD_DIR MODELDIR - float16 models: a torchvision network with
# its weights and activations converted to float16 by tests/e2e/to_fp16.py
# (float32 inputs and outputs, a Cast at each, as onnxconverter-common's
# keep_io_types makes them), run by `paleozoic run` and by the executable
# `paleozoic build` makes, each against ONNX Runtime 1.17 on the same file:
# max|err|/max|ref| <= 1e-3 and the same top-5. Ends with `N passed, N failed`.
set -u
NAME=32-half
. "$(dirname "$0")/lib.sh"
part_init "$@"
[ "$have_ort" = 1 ] && [ "$have_py" = 1 ] ||
    skip_part "needs node_modules/onnxruntime-node and python3-onnx (tools/setup.sh)"
NETS="resnet18 mobilenet_v2"
[ "$san" = 1 ] && NETS="mobilenet_v2"
for n in $NETS; do
    if [ ! -f "$M/$n.onnx" ]; then
        skip_one "$n: $M/$n.onnx is missing (tests/models.sh exports it)"
        continue
    fi
    in="$M/$n.input.pb"
    if ! /usr/bin/python3 "$E2E/to_fp16.py" "$M/$n.onnx" "$T/$n.onnx" >"$T/log" 2>&1 ||
        ! node "$E2E/ort_run.js" "$T/$n.onnx" "$in" -- "$T/ort.pb" >"$T/log" 2>&1; then
        bad "$n float16: conversion or ONNX Runtime failed: $(tail -c 400 "$T/log")"
        continue
    fi
    if "$PZ" run "$T/$n.onnx" --input "$in" --output "$T/run.pb" >"$T/log" 2>&1 &&
        node "$E2E/compare.js" --rel 1e-3 --top 5 "$T/run.pb" "$T/ort.pb" >"$T/log" 2>&1; then
        ok
        echo "half: $n run: $(cat "$T/log")"
    else
        bad "$n float16, paleozoic run vs ORT: $(tail -c 400 "$T/log")"
    fi
    if "$PZ" build "$T/$n.onnx" -o "$T/$n" --threads 2 >"$T/log" 2>&1 &&
        "$T/$n" --input "$in" --output "$T/exe.pb" >"$T/log" 2>&1 &&
        cmp_bit "$T/exe.pb" "$T/run.pb" >"$T/log" 2>&1; then
        ok
    else
        bad "$n float16, built executable vs paleozoic run (bitwise): $(tail -c 400 "$T/log")"
    fi
done
finish
