#!/bin/sh
# 36-rnn.sh BUILD_DIR MODELDIR - the recurrent ops (RNN, GRU, LSTM) against
# independent implementations:
#   torch  seeded PyTorch nn.LSTM and nn.GRU (1 and 2 layers, bidirectional,
#          batch_first, initial states given or not; tests/rnn/torch_models.py)
#          exported to ONNX: `paleozoic run` (threads 1 and 2) and the
#          executable `paleozoic build` makes, each against PyTorch's outputs,
#          max|err|/max|ref| <= 1e-4
#   ort    seeded random single nodes over the attributes (directions,
#          layouts, sequence_lens, initial states, peepholes, activations
#          with alpha/beta, clip, input_forget, linear_before_reset, outputs
#          left out; tests/rnn/gen_cases.py) against ONNX Runtime 1.17, the
#          planned path (default ISA) and the reference (PZ_ISA=ref), 1e-4
# Ends with `N passed, N failed`.
set -u
NAME=36-rnn
. "$(dirname "$0")/lib.sh"
part_init "$@"

# ---- PyTorch ------------------------------------------------------------------
if "$PY" -c 'import torch, onnx' 2>/dev/null && command -v node >/dev/null; then
    "$PY" "$ROOT/tests/rnn/torch_models.py" "$T/torch" >"$T/models" 2>"$T/log" ||
        bad "torch_models.py: $(tail -c 400 "$T/log")"
    while read -r n nin nout; do
        m="$T/torch/$n"
        ins="" k=0
        while [ "$k" -lt "$nin" ]; do ins="$ins --input $m.in_$k.pb"; k=$((k + 1)); done
        # one check: every output of one way of running the model
        check_outs() {   # LABEL PREFIX
            k=0 good=1
            while [ "$k" -lt "$nout" ]; do
                cmp_rel "$2_$k.pb" "$m.torch_$k.pb" >"$T/why" 2>&1 || { good=0; break; }
                k=$((k + 1))
            done
            if [ "$good" = 1 ]; then ok; else bad "$1 output $k: $(cat "$T/why")"; fi
        }
        outs() { k=0 o=""; while [ "$k" -lt "$nout" ]; do o="$o --output $1_$k.pb"; k=$((k + 1)); done; echo "$o"; }
        for th in 1 2; do
            # shellcheck disable=SC2046,SC2086
            if "$PZ" run "$m.onnx" $ins $(outs "$m.run$th") --threads "$th" >"$T/log" 2>&1; then
                check_outs "torch $n run --threads $th" "$m.run$th"
            else
                bad "torch $n run --threads $th: $(tail -c 400 "$T/log")"
            fi
        done
        # shellcheck disable=SC2046,SC2086
        if "$PZ" build "$m.onnx" -o "$T/torch/$n.prog" --threads 2 >"$T/log" 2>&1 &&
            "$T/torch/$n.prog" $ins $(outs "$m.prog") >"$T/log" 2>&1; then
            check_outs "torch $n build" "$m.prog"
        else
            bad "torch $n build: $(tail -c 400 "$T/log")"
        fi
    done <"$T/models"
else
    skip_one "the PyTorch comparisons: needs /usr/bin/python3 with torch and onnx, and node"
fi

# ---- ONNX Runtime ---------------------------------------------------------------
if [ "$have_ort" = 1 ] && [ "$have_py" = 1 ]; then
    "$PY" "$ROOT/tests/rnn/gen_cases.py" "$T/ort" 36 1 >"$T/log" 2>&1 &&
        node "$ROOT/tests/rnn/ort_cases.js" "$T"/ort/c* >"$T/log" 2>&1 ||
        bad "gen_cases.py / ort_cases.js: $(tail -c 400 "$T/log")"
    for c in "$T"/ort/c*; do
        if [ -f "$c/ort_error" ]; then bad "ort $(basename "$c"): ONNX Runtime: $(cat "$c/ort_error")"; continue; fi
        ins="" outs="" k=0
        for f in "$c"/in_*.pb; do ins="$ins --input $f"; done
        for f in "$c"/ort_*.pb; do outs="$outs --output $c/got_$k.pb"; k=$((k + 1)); done
        for isa in default ref; do
            pre=""
            [ "$isa" = ref ] && pre="PZ_ISA=ref"
            # shellcheck disable=SC2086
            if env $pre "$PZ" run "$c/model.onnx" $ins $outs >"$T/log" 2>&1; then
                k=0 good=1
                for f in "$c"/ort_*.pb; do
                    cmp_rel "$c/got_$k.pb" "$f" >"$T/why" 2>&1 || { good=0; break; }
                    k=$((k + 1))
                done
                if [ "$good" = 1 ]; then ok; else bad "ort $(basename "$c") ($isa) output $k: $(cat "$T/why")"; fi
            else
                bad "ort $(basename "$c") ($isa): $(tail -c 400 "$T/log")"
            fi
        done
    done
else
    skip_one "the ONNX Runtime comparisons: needs node_modules/onnxruntime-node and python3-onnx"
fi
finish
