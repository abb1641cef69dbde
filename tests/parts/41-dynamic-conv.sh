#!/bin/sh
# 41-dynamic-conv.sh BUILD_DIR - dynamically quantized convolutions and
# matmuls (issue 41): small models as ONNX Runtime's quantize_dynamic
# writes them (tests/int8/dyn_conv_models.py: DynamicQuantizeLinear ->
# ConvInteger or MatMulInteger -> Cast -> Mul by the scales -> Add bias
# [-> Relu]; a 3x3 chain over odd channel counts, a stride-2 stem then
# dilations 2 and 4 on two images, asymmetric pads with a 5x5 and a 1x1, a
# feed-forward pair over batch dims, one token) through `paleozoic run` at 1 and 2
# threads, with PZ_ISA=scalar (the scalar twin), PZ_ISA=avx2-novnni (the
# AVX2 kernel) and PZ_ISA=ref (the reference ConvInteger), and the program
# `paleozoic build` makes, each against ONNX Runtime's run of the same
# model: every ConvInteger's and MatMulInteger's int32 sums bit for bit,
# the float result within 1e-6 of max|ref|; the profile names the fast
# kernel (dyn_*) of every one of them but under ref. Under a sanitizer: run at 1 thread and
# the scalar twin only.
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
        th=1 pre=""
        [ "$way" = avx2 ] && [ "$have_avx2" = 0 ] && continue
        [ "$way" = t2 ] && th=2
        [ "$way" = scalar ] && pre="PZ_ISA=scalar"
        [ "$way" = avx2 ] && pre="PZ_ISA=avx2-novnni"
        [ "$way" = ref ] && pre="PZ_ISA=ref"
        i=0 outs=""
        while [ "$i" -lt "$nout" ]; do
            outs="$outs --output $m.$way$i.pb"
            i=$((i + 1))
        done
        if [ "$way" = build ]; then
            # shellcheck disable=SC2086
            "$PZ" build "$m.onnx" -o "$m.exe" >"$T/log" 2>&1 &&
                "$m.exe" --input "$m.in_0.pb" $outs >>"$T/log" 2>&1 ||
                { bad "$n build: $(tail -c 300 "$T/log")"; continue; }
        else
            # shellcheck disable=SC2086
            env $pre "$PZ" run "$m.onnx" --input "$m.in_0.pb" $outs --threads "$th" \
                --profile >"$T/log" 2>&1 || { bad "$n run ($way): $(tail -c 300 "$T/log")"; continue; }
            clean "$T/log" || { bad "$n run ($way): $(grep -m1 -E 'Sanitizer|runtime error|internal' "$T/log")"; continue; }
            want=$nconv
            [ "$way" = ref ] && want=0
            got=$(grep -cE ' Q(CONV|MATMUL) .* dyn_' "$T/log")
            [ "$got" = "$want" ] && ok ||
                bad "$n run ($way): $got QCONV/QMATMUL layers on a dyn_ kernel, want $want"
            if [ "$way" = scalar ] || [ "$way" = avx2 ]; then
                got=$(grep -cE " Q(CONV|MATMUL) .* dyn_$way" "$T/log")
                [ "$got" = "$nconv" ] && ok || bad "$n run ($way): $got dyn_$way kernels, want $nconv"
            fi
        fi
        node "$E2E/compare.js" --rel 1e-6 "$m.${way}0.pb" "$m.ort0.pb" >"$T/why" 2>&1 && ok ||
            bad "$n ($way) float result against ONNX Runtime: $(cat "$T/why")"
        i=1
        while [ "$i" -lt "$nout" ]; do
            cmp_bit "$m.$way$i.pb" "$m.ort$i.pb" >"$T/why" 2>&1 && ok ||
                bad "$n ($way) ConvInteger/MatMulInteger $i against ONNX Runtime: $(cat "$T/why")"
            i=$((i + 1))
        done
    done
done <"$T/models"
[ -s "$T/models" ] || bad "no models written"
finish
