#!/bin/sh
# 42-transformer.sh BUILD_DIR [MODELDIR] - transformers end to end (issue 42):
#   torch  small seeded PyTorch transformers (tests/transformer/torch_models.py:
#          an encoder with a padding mask over token ids, a pre-norm encoder,
#          torchvision's VisionTransformer, cross-attention with a float mask)
#          exported to ONNX: `paleozoic run` at 1 and 2 threads and with
#          PZ_ISA=scalar (the fast kernels' scalar twins), and the executable
#          `paleozoic build` makes, each against PyTorch's output,
#          max|err|/max|ref| <= 1e-4; the profile must show as many ATTENTION
#          layers as the model has attention blocks (the attention pass fired).
#   bf16   the same models with --precision bf16 (`run`, with PZ_ISA=scalar:
#          the bf16 GEMM's scalar twin, and the built program): within 2e-2 of
#          PyTorch's fp32 output, and the profile shows the bf16 kernel.
#   int8   --precision int8-dynamic (MatMul/Gemm weights int8 per column,
#          activations int8 per row at run time): cosine to PyTorch's fp32
#          >= 0.99 and within 5e-2, also with PZ_ISA=scalar; 1 thread and the
#          built program give the bits of the 2-thread run; the profile shows
#          the int8 kernel.
#   pass   attention written out in ONNX nodes (tests/transformer/pass_cases.py)
#          against a float64 numpy reference (<= 1e-5): the forms the pass
#          takes (fused: ATTENTION layers) and the ones it must leave alone
#          (scores read elsewhere, another softmax axis, probabilities read
#          twice, a per-head scale: no ATTENTION layer); the head transposes
#          around it folded (no TRANSPOSE layer left) or, where one is read
#          elsewhere or Y is not transposed back, all kept; Q, K, V column
#          Slices of one X read in place (no SLICE layer left), or, with a
#          step-2 Slice or a part also a graph output, all three kept.
#   C      the generated C of three of the torch models names the residual
#          Adds fused into GEMM epilogues and the attention layers reading Q,
#          K, V in place, as many as the passes may take.
# Ends with `N passed, N failed`.
set -u
NAME=42-transformer
. "$(dirname "$0")/lib.sh"
part_init "$@"
cmp_tol() {   # TOL GOT WANT: max|err|/max|ref| <= TOL; the report on stdout
    node "$E2E/compare.js" --rel "$1" "$2" "$3" >"$T/cmp" 2>&1 || { cat "$T/cmp"; return 1; }
}
ins_of() { i=""; for f in "$1".in_*.pb; do i="$i --input $f"; done; echo "$i"; }

if ! "$PY" -c 'import torch, torchvision, onnx, numpy' 2>/dev/null ||
    ! command -v node >/dev/null; then
    skip_part "needs /usr/bin/python3 with torch, torchvision, onnx, and node"
fi

# ---- PyTorch models -------------------------------------------------------------
"$PY" "$ROOT/tests/transformer/torch_models.py" "$T/torch" >"$T/models" 2>"$T/log" ||
    bad "torch_models.py: $(tail -c 400 "$T/log")"
while read -r n nin nout nattn; do
    m="$T/torch/$n"
    ins=$(ins_of "$m")
    for way in t1 t2 scalar; do
        th=1 pre=""
        [ "$way" = t2 ] && th=2
        [ "$way" = scalar ] && pre="PZ_ISA=scalar"
        # shellcheck disable=SC2086
        if env $pre "$PZ" run "$m.onnx" $ins --output "$m.$way.pb" --threads "$th" --profile \
            >"$T/log" 2>&1; then
            if ! cmp_tol 1e-4 "$m.$way.pb" "$m.torch_0.pb" >"$T/why"; then
                bad "torch $n run ($way): $(cat "$T/why")"
            elif [ "$(grep -c ' ATTENTION ' "$T/log")" != "$nattn" ]; then
                bad "torch $n run ($way): $(grep -c ' ATTENTION ' "$T/log") ATTENTION layers, want $nattn"
            else
                ok
            fi
        else
            bad "torch $n run ($way): $(tail -c 400 "$T/log")"
        fi
    done
    for way in bf16 bf16-scalar; do
        pre=""
        [ "$way" = bf16-scalar ] && pre="PZ_ISA=scalar"
        # shellcheck disable=SC2086
        if env $pre "$PZ" run "$m.onnx" $ins --output "$m.$way.pb" --threads 2 --precision bf16 \
            --profile >"$T/log" 2>&1; then
            if ! cmp_tol 2e-2 "$m.$way.pb" "$m.torch_0.pb" >"$T/why"; then
                bad "torch $n run ($way): $(cat "$T/why")"
            elif ! grep -q ' bf16$' "$T/log"; then
                bad "torch $n run ($way): no layer ran the bf16 kernel"
            else
                ok
            fi
        else
            bad "torch $n run ($way): $(tail -c 400 "$T/log")"
        fi
    done
    # int8 with activations quantized at run time: cosine to PyTorch's fp32
    # >= 0.99 and within 5e-2; 1 thread gives the bits of 2 (PZ_ISA=scalar
    # not: its fp32 layers round otherwise; rt_qdyn checks the twin's bits)
    for way in i8 i8-scalar i8-t1; do
        pre="" th=2
        [ "$way" = i8-scalar ] && pre="PZ_ISA=scalar"
        [ "$way" = i8-t1 ] && th=1
        # shellcheck disable=SC2086
        if env $pre "$PZ" run "$m.onnx" $ins --output "$m.$way.pb" --threads "$th" \
            --precision int8-dynamic --profile >"$T/log" 2>&1; then
            if ! node "$E2E/compare.js" --cosine 0.99 "$m.$way.pb" "$m.torch_0.pb" >"$T/why" 2>&1 ||
                ! cmp_tol 5e-2 "$m.$way.pb" "$m.torch_0.pb" >>"$T/why"; then
                bad "torch $n run ($way): $(cat "$T/why")"
            elif ! grep -q ' int8-dyn\(-scalar\)\{0,1\}$' "$T/log"; then
                bad "torch $n run ($way): no layer ran the int8 kernel"
            elif [ "$way" = i8-t1 ] && ! node "$E2E/compare.js" --bitwise "$m.$way.pb" "$m.i8.pb" >"$T/why" 2>&1; then
                bad "torch $n run ($way): not the bits of the 2-thread VNNI run: $(cat "$T/why")"
            else
                ok
            fi
        else
            bad "torch $n run ($way): $(tail -c 400 "$T/log")"
        fi
    done
    # shellcheck disable=SC2086
    if "$PZ" build "$m.onnx" -o "$m.prog8" --threads 2 --precision int8-dynamic >"$T/log" 2>&1 &&
        "$m.prog8" $ins --output "$m.prog8.pb" >"$T/log" 2>&1; then
        check "torch $n build int8-dynamic: the bits of run" node "$E2E/compare.js" --bitwise "$m.prog8.pb" "$m.i8.pb"
    else
        bad "torch $n build int8-dynamic: $(tail -c 400 "$T/log")"
    fi
    # shellcheck disable=SC2086
    if "$PZ" build "$m.onnx" -o "$m.prog16" --threads 2 --precision bf16 >"$T/log" 2>&1 &&
        "$m.prog16" $ins --output "$m.prog16.pb" >"$T/log" 2>&1; then
        if cmp_tol 2e-2 "$m.prog16.pb" "$m.torch_0.pb" >"$T/why"; then ok; else bad "torch $n build bf16: $(cat "$T/why")"; fi
    else
        bad "torch $n build bf16: $(tail -c 400 "$T/log")"
    fi
    # shellcheck disable=SC2086
    if "$PZ" build "$m.onnx" -o "$m.prog" --threads 2 >"$T/log" 2>&1 &&
        "$m.prog" $ins --output "$m.prog.pb" >"$T/log" 2>&1; then
        if cmp_tol 1e-4 "$m.prog.pb" "$m.torch_0.pb" >"$T/why"; then ok; else bad "torch $n build: $(cat "$T/why")"; fi
    else
        bad "torch $n build: $(tail -c 400 "$T/log")"
    fi
done <"$T/models"

# ---- the generated C says what the passes fused (issue 42) ------------------------
# residual Adds in the GEMMs' epilogues and Q, K, V read in place from the QKV
# GEMM: vit and enc_pre, 2 blocks each, take all (4 and 2); enc_mask, batch 2
# rows first, keeps its out-projection's Transpose before the Add (not a view)
# and its heads axis spans the batch (no one head stride): 2 and 0
for nw in vit:4:2 enc_pre:4:2 enc_mask:2:0; do
    n=${nw%%:*} w=${nw#*:}
    if "$PZ" compile "$T/torch/$n.onnx" -o "$T/c_$n" --name net >"$T/log" 2>&1; then
        got="$(grep -c "residual: input 3 (Z) added in the GEMM's epilogue" "$T/c_$n/net_net.c"):$(grep -c "Q, K, V read in place from the QKV GEMM's output" "$T/c_$n/net_net.c")"
        if [ "$got" = "$w" ]; then ok
        else bad "torch $n compile: residuals:qkv in place $got in the generated C, want $w"; fi
    else
        bad "torch $n compile: $(tail -c 300 "$T/log")"
    fi
done

# ---- the pass's preconditions -----------------------------------------------------
"$PY" "$ROOT/tests/transformer/pass_cases.py" "$T/pass" >"$T/cases" 2>"$T/log" ||
    bad "pass_cases.py: $(tail -c 400 "$T/log")"
while read -r n nin nout nattn ntr nsl; do
    m="$T/pass/$n"
    outs="" k=0
    while [ "$k" -lt "$nout" ]; do outs="$outs --output $m.got_$k.pb"; k=$((k + 1)); done
    # shellcheck disable=SC2046,SC2086
    if "$PZ" run "$m.onnx" $(ins_of "$m") $outs --profile >"$T/log" 2>&1; then
        good=1 k=0
        while [ "$k" -lt "$nout" ]; do
            cmp_tol 1e-5 "$m.got_$k.pb" "$m.ref_$k.pb" >"$T/why" || { good=0; break; }
            k=$((k + 1))
        done
        if [ "$good" = 0 ]; then
            bad "pass $n output $k: $(cat "$T/why")"
        elif [ "$(grep -c ' ATTENTION ' "$T/log")" != "$nattn" ]; then
            bad "pass $n: $(grep -c ' ATTENTION ' "$T/log") ATTENTION layers, want $nattn"
        elif [ -n "$ntr" ] && [ "$(grep -c ' TRANSPOSE ' "$T/log")" != "$ntr" ]; then
            bad "pass $n: $(grep -c ' TRANSPOSE ' "$T/log") TRANSPOSE layers, want $ntr"
        elif [ -n "${nsl:-}" ] && [ "$(grep -c ' SLICE ' "$T/log")" != "$nsl" ]; then
            bad "pass $n: $(grep -c ' SLICE ' "$T/log") SLICE layers, want $nsl"
        else
            ok
        fi
    else
        bad "pass $n: $(tail -c 400 "$T/log")"
    fi
done <"$T/cases"

finish
