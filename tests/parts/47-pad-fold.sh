#!/bin/sh
# 47-pad-fold.sh BUILD_DIR - the pad fold pass (src/passes/pad_fold.c): a
# constant Pad before the AveragePool, Conv or MaxPool that alone reads it
# becomes that op's pads. Models written by tests/padfold/pad_models.py
# (PyTorch exports and one onnx.helper graph, seeded): each run against
# PyTorch's own output and ONNX Runtime's (fast and PZ_ISA=scalar kernels),
# and the PAD layers the profile lists: none where the pass folds, one where
# it must leave the Pad (a zero Pad before a MaxPool on negative values; a
# Pad read by two convs; an AveragePool with uncounted pads of its own or
# auto_pad; a Pad of the channels; pads that would reach the kernel's size).
# Ends with `N passed, N failed`.
set -u
NAME=47-pad-fold
. "$(dirname "$0")/lib.sh"
part_init "$@"

if ! "$PY" -c 'import torch, onnx, numpy' 2>/dev/null || ! command -v node >/dev/null; then
    skip_part "needs /usr/bin/python3 with torch, onnx, and node"
fi
"$PY" "$ROOT/tests/padfold/pad_models.py" "$T" >"$T/names" 2>"$T/log" ||
    bad "pad_models.py: $(tail -c 400 "$T/log")"

while read -r m left; do
    [ -n "$m" ] || continue
    f="$T/$m.onnx" x="$T/$m.in_0.pb"
    if node "$ROOT/tests/e2e/ort_run.js" "$f" --threads 1 "$x" -- "$T/$m.ort.pb" >"$T/log" 2>&1; then :
    else bad "$m: ONNX Runtime: $(tail -c 300 "$T/log")"; continue; fi
    for isa in fast scalar; do
        pre="" && [ "$isa" = scalar ] && pre="PZ_ISA=scalar"
        if env $pre "$PZ" run "$f" --input "$x" --output "$T/$m.$isa.pb" --threads 1 --profile \
            >"$T/$m.$isa.prof" 2>&1; then
            for ref in torch ort; do
                if node "$ROOT/tests/e2e/compare.js" --rel 1e-5 "$T/$m.$isa.pb" "$T/$m.$ref.pb" \
                    >"$T/log" 2>&1; then ok
                else bad "$m ($isa) against $ref: $(tail -c 300 "$T/log")"; fi
            done
            n=$(grep -c '^ *[0-9]* PAD ' "$T/$m.$isa.prof")
            if [ "$n" = "$left" ]; then ok
            else bad "$m ($isa): $n PAD layers in the profile, want $left"; fi
        else
            bad "$m run ($isa): $(tail -c 400 "$T/$m.$isa.prof")"
        fi
    done
done <"$T/names"
# every model listed (the generator cannot silently write fewer)
if [ "$(wc -l <"$T/names")" = 11 ]; then ok; else bad "pad_models.py wrote $(wc -l <"$T/names") models, want 11"; fi

finish
