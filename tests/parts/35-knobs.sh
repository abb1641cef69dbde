#!/bin/sh
# 35-knobs.sh BUILD_DIR MODELDIR - default threads and checked knobs (issue 38, items 4, 5).
#
#   1. Refusals: an unknown or not-yet-implemented value of a knob (--precision,
#      --strategy, --emit, a schedule file's "precision"), a --batch the model
#      cannot take (a symbolic batch a Reshape constant fixes; --batch on a
#      batch fixed at 1 works, tests/parts/43-batch.sh), an --input-shape naming no input, --target where nothing reads
#      it, a knob given to a command that does not use it (--calibrate without
#      --precision int8), what --precision int8 cannot quantize (a missing
#      --calibrate file, a symbolic batch to calibrate), --sparsity out of
#      [0, 1) or where nothing lowers (tests/parts/43-sparsity.sh has the rest): each exits 2 with
#      `paleozoic: error: --KNOB ...` naming the knob and the reason, and
#      leaves no output file. --batch on a symbolic batch keeps working.
#   2. Threads: a plain `build` (no --threads, no strategy) plans for every
#      online core and its program, given --threads N, runs every block at
#      MP N (observed through --profile's mp column); --threads 2 gives
#      bitwise the output of --threads 1; a program built with --threads 1
#      and run with --threads 2 runs its blocks at MP 2, with the same bits;
#      a schedule file's MP stays as written (clamped by fewer threads), and
#      `--strategy none` stays at MP 1; `paleozoic run`'s default equals the
#      plain program's output.
#   3. --weights fp16: refusals (a bad value, with --precision bf16, with
#      --emit raw, in a bf16 block of a schedule), inspect's weights column,
#      BLOCK_PREC 2 in the generated C; the zoo's AlexNet with fp16 FC
#      weights against ONNX Runtime fp32 (cosine >= 0.9999, same top-1), its
#      FC layers on the f16w kernel, and its built program bitwise equal to
#      `run --weights fp16`.
# Models: the zoo's ResNet-18 (written here) and small models written with
# "$PY" + onnx. Works under the sanitizer build (build-san) too.
set -u
NAME=35-knobs
. "$(dirname "$0")/lib.sh"
part_init "$@"


if ! "$PZ" zoo resnet18 -o "$T/r18.onnx" >"$T/log" 2>&1; then
    bad "paleozoic zoo resnet18 failed: $(tail -c 300 "$T/log")"
    finish
fi
if ! "$PY" -c 'import onnx, numpy' 2>/dev/null; then
    bad "$PY cannot import onnx and numpy (apt-get install python3-onnx)"
    finish
fi

# small.onnx: x [N,3,16,16] (symbolic batch) -> Conv -> Relu -> GlobalAveragePool
#             -> Flatten -> Gemm -> y [N,10]
# fixed.onnx: the same with x [1,3,16,16] and Reshape(constant [1, -1]) for Flatten
# reshape.onnx: symbolic batch, but Reshape(constant [1, -1]) fixes it
if ! "$PY" - "$T" <<'EOF' >"$T/log" 2>&1; then
import sys
import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto
d = sys.argv[1]
rng = np.random.default_rng(7)
def model(name, batch, reshape):
    inits = [numpy_helper.from_array(rng.standard_normal((8, 3, 3, 3)).astype(np.float32), "w"),
             numpy_helper.from_array(rng.standard_normal((8,)).astype(np.float32), "b"),
             numpy_helper.from_array(rng.standard_normal((10, 8)).astype(np.float32), "fw"),
             numpy_helper.from_array(rng.standard_normal((10,)).astype(np.float32), "fb")]
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv", pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["r"], name="relu"),
             helper.make_node("GlobalAveragePool", ["r"], ["p"], name="pool")]
    if reshape:
        inits.append(numpy_helper.from_array(np.array([1, -1], dtype=np.int64), "shape"))
        nodes.append(helper.make_node("Reshape", ["p", "shape"], ["f"], name="flat"))
    else:
        nodes.append(helper.make_node("Flatten", ["p"], ["f"], name="flat"))
    nodes.append(helper.make_node("Gemm", ["f", "fw", "fb"], ["y"], name="fc", transB=1))
    g = helper.make_graph(nodes, "small",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 3, 16, 16])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, 10])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.save(m, f"{d}/{name}.onnx")
model("small", "N", False)
model("fixed", 1, True)
model("reshape", "N", True)
EOF
    bad "writing the small models failed: $(tail -c 400 "$T/log")"
    finish
fi

# refuses NAME PATTERN CMD...: CMD exits 2, its stderr has `paleozoic: error: `
# and PATTERN (grep -E), no sanitizer report, and $T/out (the output path every
# case uses) is not left behind
refuses() {
    r_name=$1 r_pat=$2
    shift 2
    rm -rf "$T/out" "$T/out.weights" "$T/out.pb"
    "$@" >"$T/log" 2>&1
    r_rc=$?
    if [ "$r_rc" -ne 2 ]; then
        bad "$r_name: exit $r_rc, not 2: $(tail -c 300 "$T/log")"
    elif ! grep -q "^paleozoic: error: " "$T/log" || ! grep -q -E -e "$r_pat" "$T/log"; then
        bad "$r_name: the message does not say /$r_pat/: $(tail -c 300 "$T/log")"
    elif [ -e "$T/out" ] || [ -e "$T/out.weights" ] || [ -e "$T/out.pb" ]; then
        bad "$r_name: an output file was left behind"
    elif ! clean "$T/log"; then
        bad "$r_name: sanitizer report: $(tail -c 300 "$T/log")"
    elif ls -a "$T" | grep -q '^\.paleozoic-'; then
        bad "$r_name: a temporary directory was left behind"
    else
        ok "$r_name: $(grep '^paleozoic: error: ' "$T/log" | head -1 | cut -c 19-130)"
    fi
}

S="$T/small.onnx"
R="$T/r18.onnx"
# ---- 1. refusals ------------------------------------------------------------
refuses "run --precision banana" '--precision banana: unknown precision' \
    "$PZ" run "$S" --precision banana --output "$T/out.pb"
# the environment's knobs too: a typo must not run the CPU's best ISA
refuses "PZ_ISA with a typo" 'PZ_ISA=avx2-novni: not ref, scalar, avx2 or avx512' \
    env PZ_ISA=avx2-novni "$PZ" run "$S" --output "$T/out.pb"
refuses "PZ_WINOGRAD=2" 'PZ_WINOGRAD=2: not 0 or 1' \
    env PZ_WINOGRAD=2 "$PZ" run "$S" --output "$T/out.pb"
# --precision int8 quantizes first (tests/parts/41-int8.sh runs it); what it
# cannot do is refused, nothing left behind
refuses "run --calibrate without --precision int8" '--calibrate does nothing here' \
    "$PZ" run "$S" --calibrate "$T/x.pb" --output "$T/out.pb"
refuses "build --precision int8, a missing --calibrate file" 'missing.pb' \
    "$PZ" build "$S" --precision int8 --calibrate "$T/missing.pb" -o "$T/out"
refuses "compile --precision int8, a symbolic batch to calibrate" 'dimension 0 is symbolic' \
    "$PZ" compile "$S" --precision int8 -o "$T/out"
refuses "tune --precision int8 --calibrate with no file" '--calibrate needs a value' \
    "$PZ" tune "$S" --strategy none --precision int8 -o "$T/out" --calibrate
refuses "run --strategy nope (lists the known ones)" '--strategy nope: unknown strategy .*none, fixed-mp.*dlfusion.*best' \
    "$PZ" run "$S" --strategy nope --output "$T/out.pb"
refuses "build --strategy nope" '--strategy nope: unknown strategy' \
    "$PZ" build "$S" --strategy nope -o "$T/out"
# a batch fixed at 1 takes --batch since issue 43 (tests/parts/43-batch.sh
# checks the values and the refusals by node)
for c in "fixed.onnx:8:y: float32 8x10" "r18.onnx:2:output: float32 2x1000"; do
    if "$PZ" run "$T/${c%%:*}" --batch "$(echo "$c" | cut -d: -f2)" >"$T/log" 2>&1 &&
        grep -q "output ${c#*:*:}" "$T/log"; then
        ok "run --batch on ${c%%:*} (input batch fixed at 1): output ${c#*:*:}"
    else
        bad "run --batch on ${c%%:*}: $(tail -c 300 "$T/log")"
    fi
done
refuses "run --batch 4, symbolic input but a Reshape constant fixes the batch" \
    '--batch 4: node "flat" \(Reshape\) fixes the batch with the constant shape \[1, -1\]' \
    "$PZ" run "$T/reshape.onnx" --batch 4 --output "$T/out.pb"
refuses "compile --input-shape naming no input" '--input-shape nope=.*no input "nope"' \
    "$PZ" compile "$S" --input-shape nope=1,3,16,16 --batch 1 -o "$T/out"
refuses "run --target with no strategy that reads it" '--target .*strategy fixed-mp reads no target profile' \
    "$PZ" run "$S" --batch 1 --target "$T/none.json" --output "$T/out.pb"
refuses "run --target with --schedule" '--target .*schedule' \
    "$PZ" run "$S" --batch 1 --target "$T/none.json" --schedule "$T/none.json" --output "$T/out.pb"
refuses "run --strategy dlfusion --target missing file" '--target .*none.json' \
    "$PZ" run "$S" --batch 1 --strategy dlfusion --target "$T/none.json" --output "$T/out.pb"
refuses "inspect --threads without blocks" 'inspect: --threads does nothing here' \
    "$PZ" inspect "$R" --threads 2
refuses "inspect --precision without blocks" 'inspect: --precision does nothing here' \
    "$PZ" inspect "$R" --precision fp32
refuses "space --strategy" 'space: --strategy does nothing here' \
    "$PZ" space "$R" --strategy dlfusion
refuses "space --threads (it takes --cores)" 'space: --threads does nothing here.*--cores' \
    "$PZ" space "$R" --threads 2
refuses "space --sparsity" 'space: --sparsity does nothing here' \
    "$PZ" space "$R" --sparsity 0.5
refuses "run --sparsity 2 (a ratio below 1)" '--sparsity 2: expected a ratio from 0 to 1' \
    "$PZ" run "$S" --batch 1 --sparsity 2 --output "$T/out.pb"
refuses "build --sparsity with no value" '--sparsity needs a value' "$PZ" build "$S" -o "$T/out" --sparsity
refuses "compile --emit banana" '--emit wants raw or default' \
    "$PZ" compile "$S" --batch 1 --emit banana -o "$T/out"
refuses "build --loc" 'unknown option --loc' \
    "$PZ" build "$S" --batch 1 --loc -o "$T/out"
"$PY" -c "
import numpy as np, onnx
from onnx import numpy_helper
onnx.save_tensor(numpy_helper.from_array(np.zeros((2, 3, 16, 16), np.float32)), '$T/x2.pb')
onnx.save_tensor(numpy_helper.from_array(np.zeros((2, 3, 16, 16), np.int32)), '$T/xi.pb')"
refuses "build with more --input files than inputs" '--input .*the model has 1 inputs, 2 --input files' \
    "$PZ" build "$S" --input "$T/x2.pb" --input "$T/x2.pb" -o "$T/out"
refuses "compile --input of the wrong element type" '--input .*xi.pb: the tensor is int32, input "x" wants float32' \
    "$PZ" compile "$S" --input "$T/xi.pb" -o "$T/out"
refuses "run --batch with an --input of another batch" '--batch 4: the --input tensor of input "x" has the leading dim 2' \
    "$PZ" run "$S" --batch 4 --input "$T/x2.pb" --output "$T/out.pb"
refuses "bench --schedule" 'bench: use --strategies' \
    "$PZ" bench "$S" --schedule "$T/none.json"
refuses "--precision int8-dynamic with --weights fp16" '--weights fp16 with --precision int8-dynamic' \
    "$PZ" run "$S" --batch 1 --precision int8-dynamic --weights fp16 --output "$T/out.pb"

# --batch on a symbolic batch keeps working; --precision fp32 is honoured
if "$PZ" run "$S" --batch 4 --precision fp32 >"$T/log" 2>&1 && grep -q 'output y: float32 4x10' "$T/log"; then
    ok "run --batch 4 --precision fp32 on a symbolic batch: output 4x10"
else
    bad "run --batch 4 on a symbolic batch: $(tail -c 300 "$T/log")"
fi
if "$PZ" run "$R" --batch 1 --output "$T/b1.pb" >"$T/log" 2>&1; then
    ok "run --batch 1 on a batch fixed at 1 (what it is)"
else
    bad "run --batch 1 on the zoo's ResNet-18: $(tail -c 300 "$T/log")"
fi

# ---- 2. threads -----------------------------------------------------------
# mps EXE ARGS...: the mp column of --profile's layer table, sorted and unique
mps() {
    "$@" --profile 2>"$T/perr" | awk '/^layer op/ {on = 1; next} on && /^block/ {on = 0}
        on && $1 ~ /^[0-9]+$/ {print $5}' | sort -u | tr '\n' ' '
}
same() { cmp -s "$1" "$2"; }

if ! "$PZ" build "$R" -o "$T/plain" >"$T/log" 2>&1; then
    bad "plain build failed: $(tail -c 300 "$T/log")"
    finish
fi
if "$PZ" compile "$R" -o "$T/src" >"$T/log" 2>&1 && grep -q '^#define R18_THREADS 0 ' "$T/src/r18.c" &&
   grep -q 'ALL, ALL' "$T/src/r18.c" && ! grep -q 'BLOCK_MP\[.*= {[0-9]' "$T/src/r18.c"; then
    ok "plain compile: R18_THREADS 0 (every online core) and every block at MP ALL"
else
    bad "plain compile: THREADS / BLOCK_MP not as expected: $(grep -n 'THREADS\|BLOCK_MP' "$T/src/r18.c" | head -5)"
fi
# a built program refuses a bad PZ_ISA as the CLI does, and writes nothing
rm -f "$T/out.pb"
PZ_ISA=banana "$T/plain" --output "$T/out.pb" >/dev/null 2>"$T/e1"
rc=$?
if [ "$rc" = 2 ] && grep -q 'PZ_ISA=banana: not ref' "$T/e1" && [ ! -e "$T/out.pb" ]; then
    ok "built program: PZ_ISA=banana exits 2 naming it"
else
    bad "built program with PZ_ISA=banana: exit $rc: $(tail -c 300 "$T/e1")"
fi
"$T/plain" --threads 1 --output "$T/p1.pb" >/dev/null 2>"$T/e1"
"$T/plain" --threads 2 --output "$T/p2.pb" >/dev/null 2>"$T/e2"
if [ -s "$T/p1.pb" ] && same "$T/p1.pb" "$T/p2.pb" && clean "$T/e1" && clean "$T/e2"; then
    ok "plain build: --threads 2 bitwise equal to --threads 1"
else
    bad "plain build: --threads 2 differs from --threads 1 (or failed): $(tail -c 200 "$T/e2")"
fi
m=$(mps "$T/plain" --threads 2)
[ "$m" = "2 " ] && ok "plain build at --threads 2: every layer at MP 2" || bad "plain build at --threads 2: mp column '$m'"
m=$(mps "$T/plain" --threads 1)
[ "$m" = "1 " ] && ok "plain build at --threads 1: every layer at MP 1" || bad "plain build at --threads 1: mp column '$m'"
"$T/plain" --output "$T/pd.pb" >/dev/null 2>&1
nc=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
m=$(mps "$T/plain")
if [ "$m" = "$nc " ] && same "$T/pd.pb" "$T/p1.pb"; then
    ok "plain build without --threads: every online core ($nc), same bits"
else
    bad "plain build without --threads: mp column '$m' (online cores $nc), or other bits"
fi

if "$PZ" build "$R" --threads 1 -o "$T/one" >"$T/log" 2>&1; then
    m=$(mps "$T/one" --threads 2)
    [ "$m" = "2 " ] && ok "built with --threads 1, run with --threads 2: every layer at MP 2" ||
        bad "built with --threads 1, run with --threads 2: mp column '$m'"
    m=$(mps "$T/one")
    [ "$m" = "1 " ] && ok "built with --threads 1, run without: MP 1 (its default)" ||
        bad "built with --threads 1, run without --threads: mp column '$m'"
    "$T/one" --threads 2 --output "$T/o2.pb" >/dev/null 2>&1
    same "$T/o2.pb" "$T/p1.pb" && ok "built with --threads 1, run with --threads 2: same bits" ||
        bad "built with --threads 1, run with --threads 2: other bits"
else
    bad "build --threads 1 failed: $(tail -c 300 "$T/log")"
fi

# paleozoic run's default: the same rule and bits as the plain program
if "$PZ" run "$R" --output "$T/run.pb" >"$T/log" 2>&1 &&
   "$PY" -c "
import sys, onnx
from onnx import numpy_helper as nh
a, b = (nh.to_array(onnx.load_tensor(f)) for f in sys.argv[1:])
sys.exit(a.shape != b.shape or a.tobytes() != b.tobytes())" "$T/run.pb" "$T/pd.pb"; then
    ok "paleozoic run (default threads) bitwise equal to the plain program"
else
    bad "paleozoic run's default output differs from the plain program's"
fi
m=$(mps "$PZ" run "$R")
[ "$m" = "$nc " ] && ok "paleozoic run without --threads: every online core ($nc)" ||
    bad "paleozoic run without --threads: mp column '$m'"

# explicit MPs: a schedule file's stay as written (clamped by fewer threads);
# --strategy none stays at MP 1
if "$PZ" inspect "$R" --strategy none --json >"$T/none.json" 2>"$T/log" &&
   "$PY" - "$T" <<'EOF'; then
import json, sys
d = sys.argv[1]
n = json.load(open(f"{d}/none.json"))["layers"]
half = n // 2
json.dump({"version": 1, "blocks": [{"first": 0, "count": half, "mp": 1},
                                    {"first": half, "count": n - half, "mp": 2}]},
          open(f"{d}/s.json", "w"))
EOF
    if "$PZ" build "$R" --schedule "$T/s.json" --threads 2 -o "$T/sch" >"$T/log" 2>&1; then
        m=$(mps "$T/sch" --threads 4)
        [ "$m" = "1 2 " ] && ok "schedule MPs 1 and 2 stay as written at --threads 4" ||
            bad "schedule MPs at --threads 4: mp column '$m'"
        m=$(mps "$T/sch" --threads 1)
        [ "$m" = "1 " ] && ok "schedule MP 2 clamped to 1 at --threads 1" ||
            bad "schedule MPs at --threads 1: mp column '$m'"
    else
        bad "build --schedule failed: $(tail -c 300 "$T/log")"
    fi
else
    bad "writing the schedule failed: $(tail -c 300 "$T/log")"
fi
if "$PZ" build "$R" --strategy none --threads 1 -o "$T/none" >"$T/log" 2>&1; then
    m=$(mps "$T/none" --threads 2)
    [ "$m" = "1 " ] && ok "--strategy none built at 1 thread stays at MP 1 at --threads 2" ||
        bad "--strategy none at --threads 2: mp column '$m'"
else
    bad "build --strategy none failed: $(tail -c 300 "$T/log")"
fi

# ---- 3. --weights fp16 (issue 41, item 4) -------------------------------------
# The zoo's AlexNet with its FC weights stored in fp16 against ONNX Runtime's
# fp32 run on the same seeded input: cosine >= 0.9999 and the same top-1; the
# built program bitwise equal to `run`; the knob shown by inspect and the
# generated C (BLOCK_PREC 2); bad values and --emit raw refused.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
A="$T/alexnet.onnx"
refuses "run --weights fp8" '--weights fp8: unknown weight storage \(known: fp32, fp16\)' \
    "$PZ" run "$S" --weights fp8 --output "$T/out.pb"
refuses "build --weights with no value" '--weights needs a value' "$PZ" build "$S" -o "$T/out" --weights
refuses "run --weights fp16 --precision bf16" '--weights fp16 with --precision bf16' \
    "$PZ" run "$S" --batch 1 --weights fp16 --precision bf16 --output "$T/out.pb"
refuses "compile --emit raw --weights fp16" '--emit raw: --weights fp16 .*not supported by the low-level API' \
    "$PZ" compile "$S" --batch 1 --emit raw --weights fp16 -o "$T/out"
refuses "inspect --weights without blocks" 'inspect: --weights does nothing here' \
    "$PZ" inspect "$R" --weights fp16
cat >"$T/w16bf.json" <<'EOF2'
{"version": 1, "blocks": [{"first": 0, "count": 3, "mp": 1, "precision": "bf16", "weights": "fp16"}]}
EOF2
refuses "a schedule's \"weights\": \"fp16\" in a bf16 block" 'key "weights": "fp16" is for an fp32 block' \
    "$PZ" run "$S" --batch 1 --schedule "$T/w16bf.json" --output "$T/out.pb"
if "$PZ" inspect "$S" --batch 1 --strategy none --weights fp16 >"$T/insp" 2>&1 &&
   grep -q -E '^ +0 +0-0 +1 +[a-z:]+ +0 +fp32 +fp16 ' "$T/insp"; then
    ok "inspect --weights fp16: the weights column says fp16"
else
    bad "inspect --weights fp16: $(head -c 400 "$T/insp")"
fi
if "$PZ" compile "$S" --batch 1 --weights fp16 -o "$T/w16src" >"$T/log" 2>&1 &&
   grep -q 'BLOCK_PREC\[.*= {2' "$T/w16src/small.c" && grep -q '2 fp32 with' "$T/w16src/small.c"; then
    ok "compile --weights fp16: BLOCK_PREC 2 in the generated C"
else
    bad "compile --weights fp16: no BLOCK_PREC 2: $(grep -h 'BLOCK_PREC' "$T/w16src/"*.c 2>/dev/null | head -3) $(tail -c 200 "$T/log")"
fi
if [ -d "$ROOT/node_modules/onnxruntime-node" ] && command -v node >/dev/null; then
    if "$PZ" zoo alexnet -o "$A" >"$T/log" 2>&1 &&
       (cd "$ROOT" && node tools/ort_check.js "$A" --seed 5 --save-input "$T/a.in.raw" \
            --save-output "$T/a.ort.raw") >"$T/log" 2>&1 &&
       "$PY" - "$T/a" <<'EOF2' >"$T/log" 2>&1 &&
import sys
import numpy as np
from onnx import numpy_helper
p = sys.argv[1]
x = np.fromfile(p + ".in.raw", dtype=np.float32).reshape(1, 3, 224, 224)
open(p + ".in.pb", "wb").write(numpy_helper.from_array(x).SerializeToString())
EOF2
       "$PZ" run "$A" --weights fp16 --input "$T/a.in.pb" --output "$T/a.w16.pb" --profile >"$T/prof" 2>&1; then
        if "$PY" - "$T/a" <<'EOF2' >"$T/log" 2>&1; then
import sys
import numpy as np
import onnx
from onnx import numpy_helper
p = sys.argv[1]
want = np.fromfile(p + ".ort.raw", dtype=np.float32).astype(np.float64).ravel()
got = numpy_helper.to_array(onnx.load_tensor(p + ".w16.pb")).astype(np.float64).ravel()
cos = got @ want / np.linalg.norm(got) / np.linalg.norm(want)
print("cosine %.7f, top-1 %d vs ORT %d" % (cos, got.argmax(), want.argmax()))
sys.exit(not (cos >= 0.9999 and got.argmax() == want.argmax()))
EOF2
            ok "AlexNet --weights fp16 vs ONNX Runtime fp32: $(cat "$T/log")"
        else
            bad "AlexNet --weights fp16 vs ONNX Runtime fp32: $(tail -c 300 "$T/log")"
        fi
        n=$(grep -c ' GEMM .* f16w$' "$T/prof")
        [ "$n" -eq 3 ] && ok "AlexNet --weights fp16: its 3 FC layers run the f16w kernel" ||
            bad "AlexNet --weights fp16: $n GEMM layers on f16w: $(grep GEMM "$T/prof")"
        if "$PZ" build "$A" --weights fp16 -o "$T/a16" >"$T/log" 2>&1 &&
           "$T/a16" --input "$T/a.in.pb" --output "$T/a.b16.pb" >/dev/null 2>"$T/e16" &&
           "$PY" -c "
import sys, onnx
from onnx import numpy_helper as nh
a, b = (nh.to_array(onnx.load_tensor(f)) for f in sys.argv[1:])
sys.exit(a.shape != b.shape or a.tobytes() != b.tobytes())" "$T/a.b16.pb" "$T/a.w16.pb" && clean "$T/e16"; then
            ok "AlexNet build --weights fp16: bitwise equal to run --weights fp16"
        else
            bad "AlexNet build --weights fp16: other bits or failed: $(tail -c 300 "$T/log") $(tail -c 200 "$T/e16")"
        fi
    else
        bad "AlexNet --weights fp16: zoo, ONNX Runtime or run failed: $(tail -c 300 "$T/log") $(tail -c 300 "$T/prof")"
    fi
else
    echo "skip AlexNet --weights fp16 vs ONNX Runtime: no node or onnxruntime-node"
fi

finish
