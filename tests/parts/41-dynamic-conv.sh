#!/bin/sh
# 41-dynamic-conv.sh BUILD_DIR - dynamically quantized convolutions and
# matmuls (issue 41): small models as ONNX Runtime's quantize_dynamic
# writes them (tests/int8/dyn_conv_models.py: DynamicQuantizeLinear ->
# ConvInteger or MatMulInteger -> Cast -> Mul by the scales -> Add bias
# [-> Relu]; a 3x3 chain over odd channel counts, a stride-2 stem then
# dilations 2 and 4 on two images, asymmetric pads with a 5x5 and a 1x1,
# MobileNet-like depthwise and grouped convs (strides 1-3, a channel
# multiplier, dilation; qgconv_dyn.h, kernel gdyn_*), a feed-forward pair
# over batch dims, one token) through `paleozoic run` at 1 and 2
# threads, with PZ_ISA=scalar (the scalar twins), PZ_ISA=avx2-novnni (the
# AVX2 kernels) and PZ_ISA=ref (the reference ConvInteger), and the program
# `paleozoic build` makes, each against ONNX Runtime's run of the same
# model: every ConvInteger's and MatMulInteger's int32 sums bit for bit,
# the float result within 1e-6 of max|ref|; the profile names the fast
# kernel (dyn_*) of every one of them but under ref. Then each model with
# its float result alone, where the qdyn pass folds every chain into one
# layer (`inspect` counts them): the same ways, the unfused chain's bits and
# ONNX Runtime's result within 1e-6. Then QLinearMatMul with a constant B
# (uint8/int8, B's scale per tensor or column), which runs on the same
# GEMM: every way bit for bit the reference's bytes, the reference within
# one step of ONNX Runtime. Under a sanitizer: run at 1 thread and the
# scalar twin only.
# Ends with `N passed, N failed`.
set -u
NAME=41-dynamic-conv
. "$(dirname "$0")/lib.sh"
part_init "$@"

[ "$have_py" = 1 ] && [ "$have_ort" = 1 ] ||
    skip_part "needs /usr/bin/python3 with onnx and numpy, node and onnxruntime-node"
have_avx2=0
grep -q ' avx2' /proc/cpuinfo 2>/dev/null && have_avx2=1

"$PY" "$ROOT/tests/int8/dyn_conv_models.py" "$T" >"$T/models" 2>"$T/log" ||
    bad "dyn_conv_models.py: $(tail -c 400 "$T/log")"
# way_run WAY MODEL LABEL OUTPUT_ARGS...: MODEL on $m.in_0.pb the way WAY
# says (t1, t2: threads; scalar, avx2, ref: PZ_ISA; build: the program
# `paleozoic build` makes), its profile checked: every integer layer
# ($nconv) on a dyn_ kernel but under ref, on dyn_WAY under scalar and
# avx2. 1 when it failed (counted).
way_run() {
    way=$1 mdl=$2 label=$3
    shift 3
    th=1 pre=""
    case $way in
    t2) th=2 ;;
    scalar) pre="PZ_ISA=scalar" ;;
    avx2) pre="PZ_ISA=avx2-novnni" ;;
    ref) pre="PZ_ISA=ref" ;;
    esac
    if [ "$way" = build ]; then
        "$PZ" build "$mdl" -o "$T/exe" >"$T/log" 2>&1 &&
            "$T/exe" --input "$m.in_0.pb" "$@" >>"$T/log" 2>&1 ||
            { bad "$label build: $(tail -c 300 "$T/log")"; return 1; }
        return 0
    fi
    # shellcheck disable=SC2086
    env $pre "$PZ" run "$mdl" --input "$m.in_0.pb" "$@" --threads "$th" \
        --profile >"$T/log" 2>&1 || { bad "$label run ($way): $(tail -c 300 "$T/log")"; return 1; }
    clean "$T/log" || { bad "$label run ($way): $(grep -m1 -E 'Sanitizer|runtime error|internal' "$T/log")"; return 1; }
    want=$nconv
    [ "$way" = ref ] && want=0
    got=$(grep -cE ' Q(CONV|MATMUL) .* g?dyn_' "$T/log")
    [ "$got" = "$want" ] && ok ||
        bad "$label run ($way): $got QCONV/QMATMUL layers on a dyn_ kernel, want $want"
    if [ "$way" = scalar ] || [ "$way" = avx2 ]; then
        # grouped convs too: gdyn_scalar, gdyn_avx2
        got=$(grep -cE " Q(CONV|MATMUL) .* g?dyn_$way( |\$)" "$T/log")
        [ "$got" = "$nconv" ] && ok || bad "$label run ($way): $got dyn_$way kernels, want $nconv"
    fi
    return 0
}

WAYS="t1 t2 scalar avx2 ref build"
[ "$san" = 1 ] && WAYS="t1 scalar"
while read -r n nout nconv; do   # nconv: ConvInteger and MatMulInteger layers
    m="$T/$n"
    i=0 ort="" outs=""
    while [ "$i" -lt "$nout" ]; do
        ort="$ort $m.ort$i.pb"
        i=$((i + 1))
    done
    # shellcheck disable=SC2086
    if ! node "$E2E/ort_run.js" "$m.onnx" "$m.in_0.pb" -- $ort >"$T/log" 2>&1; then
        bad "$n: ONNX Runtime: $(tail -c 300 "$T/log")"
        continue
    fi
    for way in $WAYS; do
        [ "$way" = avx2 ] && [ "$have_avx2" = 0 ] && continue
        i=0 outs=""
        while [ "$i" -lt "$nout" ]; do
            outs="$outs --output $m.$way$i.pb"
            i=$((i + 1))
        done
        # shellcheck disable=SC2086
        way_run "$way" "$m.onnx" "$n" $outs || continue
        node "$E2E/compare.js" --rel 1e-6 "$m.${way}0.pb" "$m.ort0.pb" >"$T/why" 2>&1 && ok ||
            bad "$n ($way) float result against ONNX Runtime: $(cat "$T/why")"
        i=1
        while [ "$i" -lt "$nout" ]; do
            cmp_bit "$m.$way$i.pb" "$m.ort$i.pb" >"$T/why" 2>&1 && ok ||
                bad "$n ($way) ConvInteger/MatMulInteger $i against ONNX Runtime: $(cat "$T/why")"
            i=$((i + 1))
        done
    done
    # NAME_f, the float result alone: the qdyn pass folds every chain into
    # its integer layer (a DynamicQuantizeLinear and one layer a chain
    # after the passes), whose float32 epilogue gives the chain's bits
    f="$T/${n}_f"
    got=$("$PZ" inspect "$f.onnx" --strategy none 2>&1 | sed -n 's/^model: .*  layers: \([0-9]*\) .*/\1/p')
    [ "$got" = $((2 * nconv)) ] && ok ||
        bad "$n folded: inspect lists ${got:-no} layers after the passes, want $((2 * nconv))"
    for way in $WAYS; do
        [ -f "$m.${way}0.pb" ] || continue   # that way failed above, or was skipped
        way_run "$way" "$f.onnx" "$n folded" --output "$f.$way.pb" || continue
        cmp_bit "$f.$way.pb" "$m.${way}0.pb" >"$T/why" 2>&1 && ok ||
            bad "$n folded ($way) against the unfused chain: $(cat "$T/why")"
        node "$E2E/compare.js" --rel 1e-6 "$f.$way.pb" "$m.ort0.pb" >"$T/why" 2>&1 && ok ||
            bad "$n folded ($way) against ONNX Runtime: $(cat "$T/why")"
    done
done <"$T/models"
[ -s "$T/models" ] || bad "no models written"

# QLinearMatMul with a constant B on the int8 GEMM (dyn_* kernels, the
# sums requantized in its column stage): each way's bytes bit for bit the
# reference's (PZ_ISA=ref), the reference within one step of ONNX Runtime
"$PY" "$ROOT/tests/int8/dyn_conv_models.py" "$T" qlinear >"$T/qmodels" 2>"$T/log" ||
    bad "dyn_conv_models.py qlinear: $(tail -c 400 "$T/log")"
nconv=1
while read -r n; do
    m="$T/$n"
    node "$E2E/ort_run.js" "$m.onnx" "$m.in_0.pb" -- "$m.ort.pb" >"$T/log" 2>&1 ||
        { bad "$n: ONNX Runtime: $(tail -c 300 "$T/log")"; continue; }
    way_run ref "$m.onnx" "$n" --output "$m.ref.pb" || continue
    node "$E2E/compare.js" --qstep 1 0.999 "$m.ref.pb" "$m.ort.pb" >"$T/why" 2>&1 && ok ||
        bad "$n (ref) against ONNX Runtime: $(cat "$T/why")"
    for way in $WAYS; do
        [ "$way" = ref ] && continue
        [ "$way" = avx2 ] && [ "$have_avx2" = 0 ] && continue
        way_run "$way" "$m.onnx" "$n" --output "$m.$way.pb" || continue
        cmp_bit "$m.$way.pb" "$m.ref.pb" >"$T/why" 2>&1 && ok ||
            bad "$n ($way) against the reference: $(cat "$T/why")"
    done
done <"$T/qmodels"
[ -s "$T/qmodels" ] || bad "no QLinearMatMul models written"
finish
