#!/bin/sh
# 41-precision-layers.sh BUILD_DIR - the precision knob per layer (issue 41,
# item 5): a schedule block's "layer_precision" gives layers their own
# precision over the block's "precision".
#   bf16 on one conv of ResNet-18 (build/test-models, a fused fp32 block):
#     the profile shows that conv, and only it, on a bf16 kernel; the output
#     differs from the same schedule without the key and stays within cosine
#     0.999 of ONNX Runtime's fp32 run; `inspect` (table and --json) and the
#     generated C (`pz_net_layer_precision(net, 13, PZ_PREC_BF16)`) show it;
#     --emit raw refuses it.
#   fp32 inside a bf16 block: ResNet-18 with a conv's (Relu's) value made a
#     second graph output and a bf16 block from that conv on: with the conv
#     in fp32 that value is bitwise the all-fp32 run's, the logits are not
#     (the block's other convs ran bf16); without the key the value differs.
#   bad keys exit 2 naming them: a node of no layer, a layer of another
#     block, a value not a precision, a layer without such a kernel.
#   int8 in F-Blocks: QDQ ResNet-18 and MobileNetV2 (zoo + quantize): their
#     QCONV (direct, 1x1, depthwise; with residuals), 8-bit max POOL and QADD layers run
#     depth-first in fused runs (the profile's fused column counts them) and
#     give the bits of one block per layer: fuse-all (no split-auto cuts) at MP 2 and 1, with the
#     scalar twins, dlfusion, a random block set, and a block of all the
#     int8 layers with bands and channels, strips of 1 and 3 rows.
# Under a sanitizer build: the same, MobileNetV2 left out. Ends with
# `N passed, N failed`.
set -u
NAME=41-precision-layers
. "$(dirname "$0")/lib.sh"
part_init "$@"

[ "$have_py" = 1 ] && [ "$have_ort" = 1 ] ||
    skip_part "needs /usr/bin/python3 with onnx and numpy, node and onnxruntime-node"
r="$M/resnet18"
[ -f "$r.onnx" ] && [ -f "$r.input.pb" ] ||
    skip_part "no $r.onnx (tests/models.sh exports the networks)"
CMP="$ROOT/tests/e2e/compare.js"
conv="/layer3/layer3.0/conv2/Conv"

# layer index of node NAME in MODEL's lowered layers (inspect --json, one block per layer)
layer_of() {
    "$PZ" inspect "$1" --strategy none --threads 2 --json | "$PY" -c "
import json, sys
d = json.load(sys.stdin)
print([l['index'] for b in d['blocks'] for l in b['layers'] if l['name'] == sys.argv[1]][0])" "$2"
}
# sched OUT LAYERS BLOCKS: BLOCKS is a Python list of (first, count, precision, layer_precision)
sched() {
    "$PY" -c "
import json, sys
b = [dict(first=f, count=c, mp=2, precision=p, **({'layer_precision': lp} if lp else {}))
     for f, c, p, lp in eval(sys.argv[3])]
json.dump({'layers': int(sys.argv[2]), 'blocks': b}, open(sys.argv[1], 'w'))" "$@"
}
n=$(layer_of "$r.onnx" "$conv") && [ "$n" -gt 0 ] 2>/dev/null || bad "layer of $conv: $n"
L=$("$PZ" inspect "$r.onnx" --strategy none --threads 2 --json | "$PY" -c "
import json, sys; print(json.load(sys.stdin)['layers'])")

# ---- bf16 on one conv inside a fused fp32 block --------------------------------
sched "$T/s0.json" "$L" "[(0, 13, 'fp32', None), (13, $L - 15, 'fp32', None), ($L - 2, 1, 'fp32', None), ($L - 1, 1, 'fp32', None)]"
sched "$T/s1.json" "$L" "[(0, 13, 'fp32', None), (13, $L - 15, 'fp32', {'$conv': 'bf16'}), ($L - 2, 1, 'fp32', None), ($L - 1, 1, 'fp32', None)]"
node "$ROOT/tests/e2e/ort_run.js" "$r.onnx" "$r.input.pb" -- "$T/ort.pb" >"$T/log" 2>&1 ||
    bad "ONNX Runtime on resnet18: $(tail -c 300 "$T/log")"
"$PZ" run "$r.onnx" --input "$r.input.pb" --output "$T/o0.pb" --threads 2 --schedule "$T/s0.json" \
    >"$T/log" 2>&1 || bad "run s0: $(tail -c 300 "$T/log")"
if "$PZ" run "$r.onnx" --input "$r.input.pb" --output "$T/o1.pb" --threads 2 --schedule "$T/s1.json" \
    --profile >"$T/log" 2>&1; then
    b=$(grep ' CONV ' "$T/log" | grep ' bf16$')
    [ "$(echo "$b" | grep -c .)" = 1 ] && echo "$b" | grep -q " $conv " && ok ||
        bad "one conv bf16: the profile's bf16 convs are: $b"
    grep -q '13\.\.[0-9]* .*layers in [1-9][0-9]* runs' "$T/log" && ok ||
        bad "the block with the bf16 layer is not fused: $(grep -A4 '^block' "$T/log")"
    node "$CMP" --bitwise "$T/o1.pb" "$T/o0.pb" >/dev/null 2>&1 &&
        bad "bf16 on $conv: the bits of all fp32" || ok
    node "$CMP" --cosine 0.999 "$T/o1.pb" "$T/ort.pb" >"$T/why" 2>&1 && ok ||
        bad "bf16 on one conv vs ONNX Runtime fp32: $(cat "$T/why")"
else
    bad "run s1: $(tail -c 300 "$T/log")"
fi
# inspect: the table's "layer precision" lines and --json per layer
"$PZ" inspect "$r.onnx" --schedule "$T/s1.json" --threads 2 >"$T/ins" 2>&1 &&
    grep -A3 '^layer precision' "$T/ins" | grep -q "^ *13  *1  bf16  *fp32  *Conv  *$conv\$" &&
    [ "$(grep -A99 '^layer precision' "$T/ins" | grep -c 'Conv  ')" = 1 ] && ok ||
    bad "inspect table: $(tail -n 5 "$T/ins")"
"$PZ" inspect "$r.onnx" --schedule "$T/s1.json" --threads 2 --json | "$PY" -c "
import json, sys
d = json.load(sys.stdin)
p = {l['index']: l['precision'] for b in d['blocks'] for l in b['layers']}
sys.exit(not (p[13] == 'bf16' and sum(v != 'fp32' for v in p.values()) == 1 and
              d['blocks'][1]['precision'] == 'fp32'))" && ok || bad "inspect --json per layer"
"$PZ" inspect "$r.onnx" --schedule "$T/s0.json" --threads 2 >"$T/ins" 2>&1 &&
    ! grep -q '^layer precision' "$T/ins" && ok || bad "inspect without the key shows layer precision"
# the generated C: one call after the blocks, naming the layer
if "$PZ" compile "$r.onnx" --schedule "$T/s1.json" --threads 2 -o "$T/c1" >"$T/log" 2>&1; then
    grep -q "^    pz_net_layer_precision(net, 13, PZ_PREC_BF16);   /\* $conv (Conv), F-Block 1: bf16 \*/" \
        "$T/c1/resnet18.c" && [ "$(grep -c 'pz_net_layer_precision(' "$T/c1/resnet18.c")" = 1 ] &&
        ok || bad "generated C: $(grep -n 'layer_precision' "$T/c1/resnet18.c")"
else
    bad "compile s1: $(tail -c 300 "$T/log")"
fi
"$PZ" compile "$r.onnx" --schedule "$T/s0.json" --threads 2 -o "$T/c0" >"$T/log" 2>&1 &&
    ! grep -q 'pz_net_layer_precision' "$T/c0/resnet18.c" && ok || bad "compile s0 calls pz_net_layer_precision"
"$PZ" compile "$r.onnx" --schedule "$T/s1.json" --threads 2 --emit raw -o "$T/raw" >"$T/log" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "layer 13 \"$conv\" has precision bf16" "$T/log" && ok ||
    bad "--emit raw with a bf16 layer: exit $rc: $(tail -c 300 "$T/log")"
# the program `build` makes: the bits of run (not under a sanitizer: a long compile)
if [ "$san" = 0 ]; then
    "$PZ" build "$r.onnx" --schedule "$T/s1.json" --threads 2 -o "$T/r1.exe" >"$T/log" 2>&1 &&
        "$T/r1.exe" --input "$r.input.pb" --output "$T/b1.pb" --threads 2 >>"$T/log" 2>&1 &&
        node "$CMP" --bitwise "$T/b1.pb" "$T/o1.pb" >>"$T/log" 2>&1 && ok ||
        bad "build s1: $(tail -c 300 "$T/log")"
fi

# ---- fp32 inside a bf16 block -----------------------------------------------------
c2="/layer3/layer3.0/conv1/Conv"
"$PY" -c "
import onnx, sys
m = onnx.load(sys.argv[1])
m.graph.output.append(onnx.helper.make_tensor_value_info('/layer3/layer3.0/relu/Relu_output_0',
                                                         onnx.TensorProto.FLOAT, None))
onnx.save(m, sys.argv[2])" "$r.onnx" "$T/r2.onnx" || bad "resnet18 with a second output"
k=$(layer_of "$T/r2.onnx" "$c2")
L2=$("$PZ" inspect "$T/r2.onnx" --strategy none --threads 2 --json | "$PY" -c "
import json, sys; print(json.load(sys.stdin)['layers'])")
sched "$T/f32.json" "$L2" "[(0, $k, 'fp32', None), ($k, $L2 - $k, 'fp32', None)]"
sched "$T/mix.json" "$L2" "[(0, $k, 'fp32', None), ($k, $L2 - $k, 'bf16', {'$c2': 'fp32'})]"
sched "$T/b16.json" "$L2" "[(0, $k, 'fp32', None), ($k, $L2 - $k, 'bf16', None)]"
for s in f32 mix b16; do
    "$PZ" run "$T/r2.onnx" --input "$r.input.pb" --output "$T/$s.y.pb" --output "$T/$s.v.pb" --threads 2 \
        --schedule "$T/$s.json" --profile >"$T/$s.log" 2>&1 || bad "run $s: $(tail -c 300 "$T/$s.log")"
done
node "$CMP" --bitwise "$T/mix.v.pb" "$T/f32.v.pb" >"$T/why" 2>&1 && ok ||
    bad "fp32 $c2 in a bf16 block: its value is not the fp32 run's: $(cat "$T/why")"
node "$CMP" --bitwise "$T/mix.y.pb" "$T/f32.y.pb" >/dev/null 2>&1 &&
    bad "fp32 $c2 in a bf16 block: the logits are the fp32 run's (no layer ran bf16?)" || ok
node "$CMP" --bitwise "$T/b16.v.pb" "$T/f32.v.pb" >/dev/null 2>&1 &&
    bad "bf16 block: $c2's value is the fp32 run's (the test cannot tell)" || ok
grep ' CONV ' "$T/mix.log" | grep " $c2 " | grep -q 'bf16$' && bad "$c2 ran bf16 in mix" || ok
[ "$(grep ' CONV ' "$T/mix.log" | grep -c 'bf16$')" = "$(($(grep ' CONV ' "$T/b16.log" | grep -c 'bf16$') - 1))" ] &&
    ok || bad "mix: not every other conv of the block on bf16"
node "$CMP" --cosine 0.999 "$T/mix.y.pb" "$T/ort.pb" >"$T/why" 2>&1 && ok ||
    bad "mix vs ONNX Runtime fp32: $(cat "$T/why")"

# ---- bad keys: exit 2 naming them ----------------------------------------------------
rejects() {   # WHAT LAYER_PRECISION MESSAGE
    sched "$T/bad.json" "$L" "[(0, 13, 'fp32', None), (13, $L - 13, 'fp32', $2)]"
    "$PZ" run "$r.onnx" --input "$r.input.pb" --threads 2 --schedule "$T/bad.json" >"$T/log" 2>&1
    rc=$?
    [ $rc = 2 ] && grep -qF "$3" "$T/log" && ! grep -qi 'sanitizer' "$T/log" && ok ||
        bad "$1: exit $rc: $(tail -c 300 "$T/log")"
}
rejects "unknown node" "{'/layer3/nope/Conv': 'bf16'}" \
    "key \"layer_precision\": \"/layer3/nope/Conv\" names no layer of the block"
rejects "a layer of another block" "{'/conv1/Conv': 'bf16'}" \
    "key \"layer_precision\": \"/conv1/Conv\" is layer 0, not a layer of this block"
rejects "a number outside the block" "{'3': 'fp32'}" "\"3\" names no layer of the block"
rejects "not a precision" "{'$conv': 'fp16'}" \
    "key \"layer_precision\": \"fp16\" is not one of \"fp32\", \"bf16\", \"int8\""
rejects "no bf16 kernel" "{'/avgpool/GlobalAveragePool': 'bf16'}" \
    "(GlobalAveragePool) has no bf16 kernel"
rejects "no int8 kernel" "{'$conv': 'int8'}" "(Conv) has no int8 kernel"
rejects "listed twice" "{'$conv': 'bf16', '13': 'fp32'}" "is listed twice"

# ---- int8 layers in F-Blocks: the bits of one block per layer ------------------------------
"$PY" -c "
import numpy as np
from onnx import numpy_helper
for i in range(2):
    x = np.random.default_rng(10 + i).standard_normal((1, 3, 224, 224)).astype(np.float32)
    open('$T/x%d.pb' % i, 'wb').write(numpy_helper.from_array(x, 'input').SerializeToString())
" || bad "calibration inputs"
nets="resnet18 mobilenet_v2"
[ "$san" = 1 ] && nets=resnet18
for net in $nets; do
    q="$T/$net.q"
    if ! "$PZ" zoo "$net" -o "$T/$net.onnx" >"$T/log" 2>&1 ||
        ! "$PZ" quantize "$T/$net.onnx" -o "$q.onnx" --calibrate "$T/x0.pb" "$T/x1.pb" >>"$T/log" 2>&1; then
        bad "$net quantize: $(tail -c 300 "$T/log")"
        continue
    fi
    "$PZ" run "$q.onnx" --input "$T/x1.pb" --output "$q.none.pb" --threads 2 --strategy none \
        --profile >"$T/log" 2>&1 || bad "$net int8 none: $(tail -c 300 "$T/log")"
    nq=$(grep -c ' QCONV ' "$T/log")
    [ "$nq" -ge 17 ] && ok || bad "$net int8: $nq QCONV layers"
    Lq=$("$PZ" inspect "$q.onnx" --strategy none --threads 2 --json | "$PY" -c "
import json, sys; print(json.load(sys.stdin)['layers'])")
    "$PY" -c "
import json, random, sys
L = int(sys.argv[2]); rng = random.Random(7); b = []; f = 0
while f < L:
    c = min(L - f, rng.randint(1, 6)); b.append({'first': f, 'count': c, 'mp': 2}); f += c
json.dump({'layers': L, 'blocks': b}, open(sys.argv[1], 'w'))" "$T/rand.json" "$Lq"
    # the int8 layers (after the input's QuantizeLinear, up to the last
    # QLinearConv/QLinearAdd/MaxPool) as one block of MP 2
    K=$("$PZ" inspect "$q.onnx" --strategy none --threads 2 --json | "$PY" -c "
import json, sys
ls = [l for b in json.load(sys.stdin)['blocks'] for l in b['layers']]
print(max(l['index'] for l in ls if l['op'] in ('QLinearConv', 'QLinearAdd', 'MaxPool')) + 1)")
    for sp in "bands 1" "channels 3"; do
        set -- $sp
        "$PY" -c "
import json, sys
K, L = int(sys.argv[2]), int(sys.argv[3])
json.dump({'layers': L, 'blocks': [{'first': 0, 'count': 1, 'mp': 1},
    {'first': 1, 'count': K - 1, 'mp': 2, 'split': sys.argv[4], 'strip': int(sys.argv[5])},
    {'first': K, 'count': L - K, 'mp': 1}]}, open(sys.argv[1], 'w'))" "$T/$1.json" "$K" "$Lq" "$1" "$2"
    done
    for s in "--strategy fuse-all" "--strategy fuse-all --threads 1" "--strategy fuse-all PZ_ISA=scalar" \
        "--strategy dlfusion" "--schedule $T/rand.json" "--schedule $T/bands.json" \
        "--schedule $T/channels.json"; do
        isa=avx512
        case "$s" in *PZ_ISA=scalar) isa=scalar s=${s% PZ_ISA=scalar} ;; esac
        [ "$isa" = scalar ] && [ ! -f "$q.none.scalar.pb" ] &&
            PZ_ISA=scalar "$PZ" run "$q.onnx" --input "$T/x1.pb" --output "$q.none.scalar.pb" \
                --threads 2 --strategy none >/dev/null 2>&1
        ref="$q.none.pb"
        [ "$isa" = scalar ] && ref="$q.none.scalar.pb"
        # fuse-all without the split-auto cuts (PZ_FUSE_CUT=0): with the residual
        # adds in their convs, the cuts before each 3x3 leave runs of few layers
        cut=1
        case "$s" in *fuse-all*) cut=0 ;; esac
        # shellcheck disable=SC2086
        if PZ_FUSE_CUT=$cut PZ_ISA=$isa "$PZ" run "$q.onnx" --input "$T/x1.pb" --output "$q.f.pb" --threads 2 $s \
            --profile >"$T/log" 2>&1 && node "$CMP" --bitwise "$q.f.pb" "$ref" >>"$T/log" 2>&1; then
            ok
        else
            bad "$net int8 $s ($isa): not the bits of one block per layer: $(tail -c 300 "$T/log")"
        fi
        case "$s" in
        *fuse-all*|*bands*|*channels*)
            runs=$(grep -o '[0-9]* layers in [0-9]* runs' "$T/log" | head -1)
            [ "${runs%% *}" -ge 10 ] 2>/dev/null && ok ||
                bad "$net int8 $s: the int8 layers are not fused: '$runs'" ;;
        esac
    done
done
finish
