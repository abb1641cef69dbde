#!/bin/sh
# 43-sparsity.sh BUILD_DIR [MODELDIR] - the sparsity knob (issue 43, item 2).
#
# Models (tests/sparsity/sparse_models.py): four convs without BatchNorm
# (1x1, 3x3 with a residual, 3x3 stride 2, 1x1 stride 2) and a Gemm; the
# same with every conv and the Gemm pruned to 0.75 by the script's own
# implementation of the rule (16x16 blocks per tap, Gemm 16 K x 32 N,
# smallest L1 first); with only layer 2 pruned; a model with 50% zero blocks
# of its own; Gemm-only models at M = 3 and M = 1; a Relu-only model.
#   1. Refusals, exit 2 with the reason: --sparsity 1, -0.5, x; a model with
#      no layer that has a sparse kernel; a schedule's ratio of 1.5, a layer
#      outside the block.
#   2. --sparsity 0 is bitwise the knob off.
#   3. --sparsity 0.75 against ONNX Runtime on the script's pruned model
#      (rel 1e-4), on the fast ISA and PZ_ISA=scalar (the twins), and inside
#      one fused F-Block (fuse-all); 2 threads bitwise 1; the profile shows
#      the "sparse" kernel on the four convs and the Gemm.
#   4. --sparsity auto on the model's own zero blocks against ONNX Runtime.
#   5. inspect --json: each conv's blocks, zero blocks and skipped MACs equal
#      the script's count (zero blocks x their weights x output pixels), for
#      0.75 and for auto.
#   6. A schedule with "sparsity": {"2": 0.75}: only layer 2 pruned (against
#      ONNX Runtime on that model), inspect lists layer 2 alone, the output
#      differs from the knob off; tune --sparsity 0.5 writes the key.
#   7. The generated C states the knob (.sparsity = 0.75f on the four
#      convs and the Gemm, .algo = PZ_CONV_SPARSE on the convs: what runs)
#      and the built program gives run's bits.
#   8. Gemm-only models (M = 3, M = 1: the GEMV) and a MatMul with a
#      constant B and a fused bias (M = 2 x 3) at --sparsity 0.75 against
#      ONNX Runtime on the script's pruned twin; 3 threads and PZ_ISA=scalar
#      (the twin) bitwise 1 thread; the profile names the kernel; inspect's
#      counts equal the script's; a
#      schedule's "sparsity" on the net's Gemm layer (4) alone.
#   9. The sparse Winograd (blocks of 16 x 16 x 9 taps on the convs the
#      Winograd rule takes): ResNet-18 at --sparsity 0.75 against ONNX
#      Runtime on the model pruned by the script's rule (rel 1e-4); the
#      profile and inspect name the sparse Winograd on its 10 stride-1 3x3s
#      of 14x14 and more, the generated C says .algo =
#      PZ_CONV_SPARSE_WINOGRAD on them and the program built from it gives
#      run's bits (its profile names the same 10); PZ_WINOGRAD=0 (every layer
#      sparse direct on the same weights) agrees; --sparsity 0 is bitwise the
#      knob off. On a CPU without AVX-512 (no Winograd) the kernel checks say so.
#  10. tune --strategy best --sparsity 0.75 on ResNet-18 times the sparse kernels: its
#      algorithm lines say "sparse winograd / sparse direct" and the schedule keeps
#      their choice, its per-layer candidate under 0.8x the dense search's, and
#      the schedule runs to ONNX Runtime's output on the pruned model.
# Works under the sanitizer build (build-san).
set -u
NAME=43-sparsity
. "$(dirname "$0")/lib.sh"
part_init "$@"

if ! "$PY" -c 'import onnx, numpy' 2>/dev/null || [ "$have_ort" != 1 ]; then
    skip_part "needs $PY with onnx and numpy, and node with onnxruntime-node"
fi
if ! "$PY" "$ROOT/tests/sparsity/sparse_models.py" "$T" >"$T/log" 2>&1; then
    bad "sparse_models.py: $(tail -c 300 "$T/log")"
    finish
fi
N="$T/net.onnx" X="$T/net.in.pb"
ort() { node "$E2E/ort_run.js" "$1" --threads 1 "$X" -- "$2" >"$T/log" 2>&1 || echo "ORT failed: $(tail -c 200 "$T/log")"; }

# ---- 1. refusals
refuse "--sparsity 1" "--sparsity 1: expected a ratio" "$PZ" run "$N" --input "$X" --sparsity 1
refuse "--sparsity -0.5" "--sparsity -0.5: expected a ratio" "$PZ" run "$N" --input "$X" --sparsity -0.5
refuse "--sparsity x" "--sparsity x: expected a ratio" "$PZ" compile "$N" -o "$T/bad" --sparsity x
[ ! -e "$T/bad" ] && ok || bad "compile --sparsity x left $T/bad"
refuse "--sparsity on a Relu-only model" "no layer of this model has a block-sparse kernel" \
    "$PZ" run "$T/relu.onnx" --sparsity 0.5
"$PZ" tune "$N" --strategy none --threads 1 -o "$T/s.json" >"$T/log" 2>&1 || bad "tune: $(tail -c 300 "$T/log")"
# sched FILE 'PY-EXPR on blocks b' : a copy of s.json edited
sched() {
    "$PY" - "$T/s.json" "$1" "$2" <<'EOF2'
import json, sys
s = json.load(open(sys.argv[1]))
b = s["blocks"]
exec(sys.argv[3])
json.dump(s, open(sys.argv[2], "w"))
EOF2
}
sched "$T/r15.json" 'b[2]["sparsity"] = {"2": 1.5}'
refuse "schedule sparsity 1.5" 'layer 2: expected a ratio' "$PZ" run "$N" --input "$X" --schedule "$T/r15.json"
sched "$T/out.json" 'b[2]["sparsity"] = {"3": 0.5}'
refuse "schedule sparsity outside its block" '"3" is not a layer of the block' \
    "$PZ" run "$N" --input "$X" --schedule "$T/out.json"

# ---- 2. R = 0 is the knob off, bit for bit
"$PZ" run "$N" --input "$X" --threads 1 --output "$T/off.pb" >"$T/log" 2>&1 || bad "run: $(tail -c 300 "$T/log")"
"$PZ" run "$N" --input "$X" --threads 1 --sparsity 0 --output "$T/r0.pb" >"$T/log" 2>&1 || bad "run 0: $(tail -c 300 "$T/log")"
check "--sparsity 0 bitwise the knob off" cmp_bit "$T/r0.pb" "$T/off.pb"

# ---- 3. 0.75 against ONNX Runtime on the independently pruned model
r=$(ort "$T/net.p75.onnx" "$T/p75.ort.pb")
[ -z "$r" ] || bad "$r"
"$PZ" run "$N" --input "$X" --threads 1 --sparsity 0.75 --output "$T/s1.pb" --profile >"$T/prof" 2>&1 || bad "run 0.75: $(tail -c 300 "$T/prof")"
check "--sparsity 0.75 vs ONNX Runtime on the pruned model" cmp_rel "$T/s1.pb" "$T/p75.ort.pb"
"$PZ" run "$N" --input "$X" --threads 2 --sparsity 0.75 --output "$T/s2.pb" >"$T/log" 2>&1 || bad "run 0.75 x2: $(tail -c 300 "$T/log")"
check "--sparsity 0.75: 2 threads bitwise 1" cmp_bit "$T/s2.pb" "$T/s1.pb"
PZ_ISA=scalar "$PZ" run "$N" --input "$X" --threads 1 --sparsity 0.75 --output "$T/sc.pb" --profile >"$T/profsc" 2>&1 || bad "run scalar: $(tail -c 300 "$T/profsc")"
check "--sparsity 0.75, PZ_ISA=scalar (the twins) vs ONNX Runtime" cmp_rel "$T/sc.pb" "$T/p75.ort.pb"
"$PZ" run "$N" --input "$X" --threads 2 --strategy fuse-all --sparsity 0.75 --output "$T/fa.pb" >"$T/log" 2>&1 || bad "run fuse-all: $(tail -c 300 "$T/log")"
check "--sparsity 0.75 in one fused F-Block (layer by layer) vs ONNX Runtime" cmp_rel "$T/fa.pb" "$T/p75.ort.pb"
n=$(grep -c ' sparse$' "$T/prof")
[ "$n" = 5 ] && ok || bad "profile: $n layers on the sparse kernel, want 5: $(grep -e CONV -e GEMM "$T/prof")"
n=$(grep -c ' sparse$' "$T/profsc")
[ "$n" = 5 ] && ok || bad "profile (scalar): $n layers on the sparse kernel, want 5"

# ---- 4. auto: the model's own zero blocks
r=$(ort "$T/own.onnx" "$T/own.ort.pb")
[ -z "$r" ] || bad "$r"
"$PZ" run "$T/own.onnx" --input "$X" --threads 1 --sparsity auto --output "$T/own.pb" >"$T/log" 2>&1 || bad "run auto: $(tail -c 300 "$T/log")"
check "--sparsity auto vs ONNX Runtime" cmp_rel "$T/own.pb" "$T/own.ort.pb"

# ---- 5. inspect's counts against the script's
counts() {   # MODEL KNOB TAG
    "$PZ" inspect "$1" --sparsity "$2" --threads 1 --json >"$T/ins.json" 2>"$T/log" || { echo "inspect: $(tail -c 200 "$T/log")"; return; }
    "$PY" - "$T/ins.json" "$T/counts.txt" "$3" <<'EOF2'
import json, sys
got = json.load(open(sys.argv[1]))["sparsity"]["layers"]
want = [l.split()[1:] for l in open(sys.argv[2]) if l.startswith(sys.argv[3] + " ")]
g = [[l["name"], str(l["zero_blocks"]), str(l["blocks"]), str(l["skipped_macs"])] for l in got]
if g != want:
    print("inspect %s, want %s" % (g, want))
EOF2
}
r=$(counts "$N" 0.75 p75)
[ -z "$r" ] && ok || bad "inspect --sparsity 0.75: $r"
r=$(counts "$T/own.onnx" auto own)
[ -z "$r" ] && ok || bad "inspect --sparsity auto: $r"

# ---- 6. the schedule key: layer 2 alone
sched "$T/l2.json" 'b[2]["sparsity"] = {"2": 0.75}'
r=$(ort "$T/net.2.onnx" "$T/l2.ort.pb")
[ -z "$r" ] || bad "$r"
"$PZ" run "$N" --input "$X" --threads 1 --schedule "$T/l2.json" --output "$T/l2.pb" >"$T/log" 2>&1 || bad "run l2: $(tail -c 300 "$T/log")"
check "schedule sparsity on layer 2 vs ONNX Runtime (layer 2 pruned)" cmp_rel "$T/l2.pb" "$T/l2.ort.pb"
if cmp_bit "$T/l2.pb" "$T/off.pb" >/dev/null 2>&1; then bad "schedule sparsity: output equal to the knob off"; else ok; fi
"$PZ" inspect "$N" --threads 1 --schedule "$T/l2.json" >"$T/ins" 2>&1
rows=$(sed -n '/^sparsity:/,/^sparsity total/p' "$T/ins" | grep -c '^ *[0-9]')
if [ "$rows" = 1 ] && grep -q '^ *2  0.75  *108  *81 ' "$T/ins"; then ok
else bad "inspect --schedule l2.json: $(sed -n '/^sparsity/,$p' "$T/ins")"; fi
"$PZ" tune "$N" --strategy none --threads 1 --sparsity 0.5 -o "$T/l2b.json" >"$T/log" 2>&1
if grep -q '"sparsity": {"[0-9]*": 0.5}' "$T/l2b.json"; then ok
else bad "tune --sparsity 0.5 writes no sparsity key: $(grep -c sparsity "$T/l2b.json")"; fi

# ---- 7. the generated C and the built program
if "$PZ" compile "$N" -o "$T/c" --threads 1 --sparsity 0.75 >"$T/log" 2>&1; then
    n=$(cat "$T"/c/*.c | grep -c '\.sparsity = 0\.75f')
    [ "$n" = 5 ] && ok || bad "generated C: $n layers with .sparsity = 0.75f, want 5"
    # the sparse kernel takes priority over the algo knob: the C names it
    n=$(cat "$T"/c/*.c | grep '\.sparsity = 0\.75f' | grep -c '\.algo = PZ_CONV_SPARSE')
    [ "$n" = 4 ] && ok || bad "generated C: $n sparse convs with .algo = PZ_CONV_SPARSE, want 4"
else bad "compile: $(tail -c 300 "$T/log")"; fi
if "$PZ" build "$N" -o "$T/prog" --threads 1 --sparsity 0.75 >"$T/log" 2>&1 &&
    "$T/prog" --input "$X" --output "$T/prog.pb" --threads 1 >"$T/log" 2>&1; then
    check "built program (--sparsity 0.75) bitwise run" cmp_bit "$T/prog.pb" "$T/s1.pb"
else bad "build/run the program: $(tail -c 300 "$T/log")"; fi

# ---- 8. Gemm-only models, M = 3 and the GEMV
for G in gemm gemv mm; do
    GI="$T/$G.in.pb"
    node "$E2E/ort_run.js" "$T/$G.p75.onnx" --threads 1 "$GI" -- "$T/$G.ort.pb" >"$T/log" 2>&1 || bad "ORT $G: $(tail -c 200 "$T/log")"
    "$PZ" run "$T/$G.onnx" --input "$GI" --threads 1 --sparsity 0.75 --output "$T/$G.1.pb" --profile >"$T/log" 2>&1 || bad "run $G: $(tail -c 300 "$T/log")"
    n=$(grep -c ' sparse$' "$T/log")
    [ "$n" = 1 ] && ok || bad "$G profile: $n layers on the sparse kernel, want 1"
    check "$G --sparsity 0.75 vs ONNX Runtime on the pruned model" cmp_rel "$T/$G.1.pb" "$T/$G.ort.pb"
    "$PZ" run "$T/$G.onnx" --input "$GI" --threads 3 --sparsity 0.75 --output "$T/$G.3.pb" >"$T/log" 2>&1 || bad "run $G x3: $(tail -c 300 "$T/log")"
    check "$G --sparsity 0.75: 3 threads bitwise 1" cmp_bit "$T/$G.3.pb" "$T/$G.1.pb"
    PZ_ISA=scalar "$PZ" run "$T/$G.onnx" --input "$GI" --threads 1 --sparsity 0.75 --output "$T/$G.sc.pb" >"$T/log" 2>&1 || bad "run $G scalar: $(tail -c 300 "$T/log")"
    check "$G --sparsity 0.75: PZ_ISA=scalar (the twin) bitwise" cmp_bit "$T/$G.sc.pb" "$T/$G.1.pb"
    r=$(counts "$T/$G.onnx" 0.75 $G)
    [ -z "$r" ] && ok || bad "inspect $G --sparsity 0.75: $r"
done
sched "$T/fc.json" 'b[4]["sparsity"] = {"4": 0.5}'
# an fp16-weight block runs its own dense GEMM: sparsity there is refused
sched "$T/fc16.json" 'b[4]["sparsity"] = {"4": 0.5}; b[4]["weights"] = "fp16"'
refuse "schedule sparsity in an fp16-weight block" 'stores fp16 weights' \
    "$PZ" run "$N" --input "$X" --schedule "$T/fc16.json"
"$PZ" run "$N" --input "$X" --threads 1 --schedule "$T/fc.json" --output "$T/fc.pb" >"$T/log" 2>&1 || bad "run fc.json: $(tail -c 300 "$T/log")"
if cmp_bit "$T/fc.pb" "$T/off.pb" >/dev/null 2>&1; then bad "schedule sparsity on the Gemm: output equal to the knob off"; else ok; fi
"$PZ" inspect "$N" --threads 1 --schedule "$T/fc.json" >"$T/ins" 2>&1
rows=$(sed -n '/^sparsity:/,/^sparsity total/p' "$T/ins" | grep -c '^ *[0-9]')
if [ "$rows" = 1 ] && grep -q '^ *4  0.5  *40  *20 ' "$T/ins"; then ok
else bad "inspect --schedule fc.json: $(sed -n '/^sparsity/,$p' "$T/ins")"; fi

# ---- 9. the sparse Winograd on ResNet-18
R18="$M/resnet18.onnx" RX="$M/resnet18.input.pb"
if [ ! -f "$R18" ] || [ ! -f "$RX" ]; then
    bad "$R18 or its input missing (tests/models.sh exports them)"
    finish
fi
wino=0
grep -q avx512f /proc/cpuinfo && wino=1
"$PY" "$ROOT/tests/sparsity/sparse_models.py" --net "$R18" 0.75 "$T/r18.p75.onnx" >"$T/log" 2>&1 ||
    bad "prune resnet18: $(tail -c 300 "$T/log")"
node "$E2E/ort_run.js" "$T/r18.p75.onnx" --threads 1 "$RX" -- "$T/r18.ort.pb" >"$T/log" 2>&1 ||
    bad "ORT resnet18: $(tail -c 200 "$T/log")"
"$PZ" run "$R18" --input "$RX" --threads 1 --sparsity 0.75 --output "$T/r18.pb" --profile \
    >"$T/prof" 2>&1 || bad "run resnet18 0.75: $(tail -c 300 "$T/prof")"
check "resnet18 --sparsity 0.75 (sparse Winograd) vs ONNX Runtime on the pruned model" \
    cmp_rel "$T/r18.pb" "$T/r18.ort.pb"
n=$(grep -c ' sparse winograd$' "$T/prof")
want=$((wino * 10))
[ "$n" = "$want" ] && ok || bad "resnet18 profile: $n layers on the sparse Winograd, want $want"
PZ_WINOGRAD=0 "$PZ" run "$R18" --input "$RX" --threads 1 --sparsity 0.75 --output "$T/r18d.pb" \
    --profile >"$T/profd" 2>&1 || bad "run resnet18 PZ_WINOGRAD=0: $(tail -c 300 "$T/profd")"
n=$(grep -c ' sparse winograd$' "$T/profd")
[ "$n" = 0 ] && ok || bad "PZ_WINOGRAD=0: $n layers still on the sparse Winograd"
check "resnet18 0.75: sparse direct everywhere (PZ_WINOGRAD=0) vs the sparse Winograd" \
    cmp_rel "$T/r18d.pb" "$T/r18.pb"
"$PZ" inspect "$R18" --sparsity 0.75 --threads 1 --json >"$T/ins.json" 2>"$T/log" || bad "inspect resnet18"
r=$("$PY" - "$T/ins.json" "$wino" <<'EOF2'
import json, sys
ls = json.load(open(sys.argv[1]))["sparsity"]["layers"]
w = [l for l in ls if l["kernel"] == "winograd"]
want = 10 * int(sys.argv[2])
if len(w) != want:
    print("%d layers on the sparse Winograd, want %d" % (len(w), want))
for l in w:
    # 16 x 16 x 9 blocks: M/16 x C/16 of them, 3/4 zero; 36 MACs a tile per pair
    if l["zero_blocks"] * 4 != l["blocks"] * 3 or l["skipped_macs"] * 4 != l["macs"] * 3:
        print("layer %s: %s" % (l["name"], l))
EOF2
)
[ -z "$r" ] && ok || bad "inspect resnet18 --sparsity 0.75: $r"
if "$PZ" compile "$R18" -o "$T/c18" --threads 1 --sparsity 0.75 >"$T/log" 2>&1; then
    n=$(cat "$T"/c18/*.c | grep -c '\.algo = PZ_CONV_SPARSE_WINOGRAD')
    [ "$n" = "$want" ] && ok || bad "generated C: $n convs with .algo = PZ_CONV_SPARSE_WINOGRAD, want $want"
else bad "compile resnet18: $(tail -c 300 "$T/log")"; fi
# the built program runs the same kernels: run's bits, and its profile names them
if "$PZ" build "$R18" -o "$T/p18" --threads 1 --sparsity 0.75 >"$T/log" 2>&1 &&
    "$T/p18" --input "$RX" --output "$T/p18.pb" --threads 1 --profile >"$T/profp" 2>&1; then
    check "resnet18 built program (--sparsity 0.75) bitwise run" cmp_bit "$T/p18.pb" "$T/r18.pb"
    check "resnet18 built program (--sparsity 0.75) vs ONNX Runtime on the pruned model" \
        cmp_rel "$T/p18.pb" "$T/r18.ort.pb"
    n=$(grep -c ' sparse winograd$' "$T/profp")
    [ "$n" = "$want" ] && ok || bad "built program profile: $n layers on the sparse Winograd, want $want"
else bad "build/run resnet18: $(tail -c 300 "$T/log") $(tail -c 300 "$T/profp" 2>/dev/null)"; fi
rm -f "$T/p18" "$T/p18.weights"
"$PZ" run "$R18" --input "$RX" --threads 1 --output "$T/r18off.pb" >"$T/log" 2>&1 || bad "run resnet18"
"$PZ" run "$R18" --input "$RX" --threads 1 --sparsity 0 --output "$T/r18z.pb" >"$T/log" 2>&1 || bad "run resnet18 0"
check "resnet18 --sparsity 0 bitwise the knob off" cmp_bit "$T/r18z.pb" "$T/r18off.pb"

# ---- 10. best times its candidates as they will run: sparse (cli_lower prunes before the
# strategy). Its algorithm lines time the sparse kernels, the schedule keeps what they chose,
# the candidates run well below the dense ones (0.75: each conv 2-4x faster; asserted < 0.8x,
# wide of a shared host's noise), and the schedule gives ONNX Runtime's output on the pruned
# model. Left out under a sanitizer (two searches of ResNet-18).
if [ "$san" = 0 ] || [ "${PZ_TEST_FULL:-0}" = 1 ]; then
    for sp in 0.75 0; do
        "$PZ" tune "$R18" --strategy best --threads 1 --sparsity "$sp" -o "$T/best$sp.json" \
            >"$T/best$sp.log" 2>&1 || bad "tune resnet18 best --sparsity $sp: $(tail -c 300 "$T/best$sp.log")"
    done
    r=$("$PY" - "$T/best0.75.log" "$T/best0.log" "$T/best0.75.json" "$wino" <<'EOF2'
import json, re, sys
sp, dense = open(sys.argv[1]).read(), open(sys.argv[2]).read()
algo = re.findall(r"^algo: layer +(\d+) .*?(sparse )?winograd .*?(sparse )?direct .*-> (\w+)", sp, re.M)
if sys.argv[4] == "1":
    if len(algo) < 10 or any(not a[1] or not a[2] for a in algo):
        print("want the sparse kernels timed for each conv: %s" % algo)
    chose = sorted(int(a[0]) for a in algo if a[3] == "winograd")
    s = json.load(open(sys.argv[3]))
    kept = sorted(l for b in s["blocks"] for l in b.get("winograd", []))
    if kept != chose:
        print("the schedule's Winograd layers %s, the sparse timings chose %s" % (kept, chose))
    if re.search(r"^algo: .*sparse", dense, re.M):
        print("--sparsity 0 timed sparse kernels")
def cand(t):
    return {m.group(1): float(m.group(2)) for m in re.finditer(r"^best: candidate (\S+) +([\d.]+) ms", t, re.M)}
a, b = cand(sp), cand(dense)
if "per-layer" not in a or "per-layer" not in b:
    print("no per-layer candidate timed: %s / %s" % (a, b))
elif not a["per-layer"] < 0.8 * b["per-layer"]:
    print("per-layer candidate %.3f ms at 0.75, %.3f ms dense: not sparse" % (a["per-layer"], b["per-layer"]))
EOF2
)
    [ -z "$r" ] && ok || bad "best --sparsity 0.75: $r"
    if "$PZ" run "$R18" --input "$RX" --threads 1 --schedule "$T/best0.75.json" --output "$T/rb.pb" \
        >"$T/log" 2>&1; then
        check "resnet18 best's sparse schedule vs ONNX Runtime on the pruned model" \
            cmp_rel "$T/rb.pb" "$T/r18.ort.pb"
    else bad "run resnet18 --schedule best0.75.json: $(tail -c 300 "$T/log")"; fi
fi
finish
