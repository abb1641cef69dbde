#!/bin/sh
# 20-passes.sh BUILD_DIR MODELDIR - the graph passes (src/passes) end to end,
# through `paleozoic run`, against independent implementations:
#
#   nets   the six torchvision networks (MODELDIR/NAME.onnx, NAME.input.pb,
#          NAME.torch.pb): `paleozoic run --input NAME.input.pb --output Y.pb`
#          vs PyTorch's output, max|err|/max|ref| <= 1e-4; the layer count
#          with the passes (`run --profile`) is the one tests/passes --count
#          predicts and below the count without them (printed), and no
#          Relu/Clip/Add layer is left (UNARY/BINARY in the profile).
#   zoo    `paleozoic zoo resnet18|mobilenet_v2` (Conv + BatchNormalization
#          + Relu/Clip + Add): vs ONNX Runtime 1.17 on tools/ort_check.js's
#          seeded input, <= 1e-4; no BATCHNORM, UNARY or BINARY layer left;
#          `zoo vit_b_16|bert_base` vs ONNX Runtime, <= 1e-4, with 12
#          ATTENTION and 25 LAYERNORM layers and no UNARY one.
#   small  models written here with python3-onnx, run, and checked against
#          PyTorch (torch.nn.functional) within 1e-5 relative: a ResNet block
#          (Conv, BN, Dropout, Identity, Add, Relu) at opsets 9 and 13, Clip
#          with opset 6 attributes and opset 11 inputs, Gemm + Relu, a
#          ConvTranspose + BN, Max and Min of 4 inputs, PRelu with a legacy
#          per-channel slope (opset 6), a Conv's Mul, Div, Add, Sub by
#          constants per channel and Relu as one CONV layer (and c - conv not).
#
# Under a sanitizer build dir (*san*) VGG-16/19 and ResNet-50 are skipped
# (minutes each under ASan with the reference kernels). Ends with
# `N passed, N failed`.
set -u
NAME=20-passes
. "$(dirname "$0")/lib.sh"
part_init "$@"
M=$(cd "$M" 2>/dev/null && pwd || echo "$M")

have_py=0
if "$PY" -c 'import onnx, torch, numpy' 2>/dev/null; then have_py=1; fi

# relerr GOT.pb WANT.pb: prints max|got - want| / max|want| (or "shape" / "error")
cat >"$T/relerr.py" <<'EOF'
import sys
import numpy as np
import onnx
from onnx import numpy_helper


def load(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t).astype(np.float64)


try:
    a, b = load(sys.argv[1]), load(sys.argv[2])
except Exception as e:  # a missing or broken file
    print("error:", e)
    sys.exit(0)
if a.shape != b.shape:
    print("shape %s vs %s" % (a.shape, b.shape))
else:
    print("%.3e" % (np.abs(a - b).max() / max(np.abs(b).max(), 1e-30)))
EOF

# within ERR LIMIT: true if ERR is a number <= LIMIT
within() {
    awk -v e="$1" -v l="$2" 'BEGIN { exit !(e ~ /^[0-9.]+(e[-+]?[0-9]+)?$/ && e + 0 <= l + 0) }'
}

# vs_ort LABEL GOT.pb ORT.pb: passes when max|err|/max|ref| <= 1e-4
vs_ort() {
    vo_e=$("$PY" "$T/relerr.py" "$2" "$3")
    if within "$vo_e" 1e-4; then ok; echo "$1: vs ONNX Runtime max|err|/max|ref| = $vo_e"
    else bad "$1: vs ONNX Runtime max|err|/max|ref| = $vo_e (limit 1e-4)"; fi
}

# profile_check LABEL PROFILE_OUT EXPECTED_LAYERS FORBIDDEN_KINDS... (pc_* variables:
# sh has no locals)
profile_check() {
    pc_label=$1 pc_prof=$2 pc_want=$3
    shift 3
    pc_got=$(sed -n 's/.*ms, \([0-9]*\) layers in.*/\1/p' "$pc_prof" | head -n 1)
    if [ "$pc_got" = "$pc_want" ]; then ok
    else bad "$pc_label: $pc_got layers, tests/passes --count says $pc_want"; fi
    for pc_kind in "$@"; do
        pc_n=$(awk -v k="$pc_kind" '$1 ~ /^[0-9]+$/ && $2 == k' "$pc_prof" | wc -l)
        if [ "$pc_n" -eq 0 ]; then ok; else bad "$pc_label: $pc_n $pc_kind layers left after the passes"; fi
    done
}

# ---- nets: the torchvision exports against PyTorch ----------------------------
NETS="resnet18 resnet50 vgg16 vgg19 alexnet mobilenet_v2"
[ "$san" -eq 1 ] && NETS="resnet18 alexnet mobilenet_v2" &&
    echo "nets: vgg16, vgg19 and resnet50 skipped under the sanitizer build"
for n in $NETS; do
    if [ ! -f "$M/$n.onnx" ] || [ ! -f "$M/$n.input.pb" ] || [ ! -f "$M/$n.torch.pb" ]; then
        skip_one "$M lacks $n.onnx, $n.input.pb or $n.torch.pb (tests/models.sh exports them)"
        continue
    fi
    counts=$("$B/tests/passes" --count "$M/$n.onnx" 2>&1)
    before=$(printf '%s\n' "$counts" | sed -n 's/.*before=\([0-9]*\).*/\1/p')
    after=$(printf '%s\n' "$counts" | sed -n 's/.*after=\([0-9]*\).*/\1/p')
    if [ -n "$before" ] && [ -n "$after" ] && [ "$after" -lt "$before" ]; then
        ok
        echo "nets/$n: $counts"
    else
        bad "nets/$n: layer count did not go down: $counts"
    fi
    if ! "$PZ" run "$M/$n.onnx" --input "$M/$n.input.pb" --output "$T/$n.out.pb" --profile \
        >"$T/$n.prof" 2>"$T/$n.err"; then
        bad "nets/$n: paleozoic run failed: $(head -c 400 "$T/$n.err")"
        continue
    fi
    ok
    forbid="UNARY BINARY"
    profile_check "nets/$n" "$T/$n.prof" "${after:-?}" $forbid
    if [ "$have_py" -eq 1 ]; then
        e=$("$PY" "$T/relerr.py" "$T/$n.out.pb" "$M/$n.torch.pb")
        if within "$e" 1e-4; then ok; echo "nets/$n: vs PyTorch max|err|/max|ref| = $e"
        else bad "nets/$n: vs PyTorch max|err|/max|ref| = $e (limit 1e-4)"; fi
    fi
done

# ---- zoo: BatchNormalization folded, against ONNX Runtime ---------------------
if [ "$have_ort" -eq 1 ] && [ "$have_py" -eq 1 ]; then
    for n in resnet18 mobilenet_v2; do
        z="$T/$n.zoo.onnx"
        if ! "$PZ" zoo "$n" -o "$z" >/dev/null 2>"$T/zoo.err"; then
            bad "zoo/$n: paleozoic zoo failed: $(head -c 300 "$T/zoo.err")"
            continue
        fi
        if ! (cd "$ROOT" && node tools/ort_check.js "$z" --save-input "$T/$n.in.raw" \
            --save-output "$T/$n.ort.raw") >/dev/null 2>"$T/zoo.err"; then
            bad "zoo/$n: ONNX Runtime failed: $(head -c 300 "$T/zoo.err")"
            continue
        fi
        "$PY" - "$T/$n" <<'EOF'
import sys
import numpy as np
from onnx import numpy_helper
p = sys.argv[1]
x = np.fromfile(p + ".in.raw", dtype=np.float32).reshape(1, 3, 224, 224)
y = np.fromfile(p + ".ort.raw", dtype=np.float32).reshape(1, -1)
open(p + ".in.pb", "wb").write(numpy_helper.from_array(x).SerializeToString())
open(p + ".ort.pb", "wb").write(numpy_helper.from_array(y).SerializeToString())
EOF
        counts=$("$B/tests/passes" --count "$z" 2>&1)
        after=$(printf '%s\n' "$counts" | sed -n 's/.*after=\([0-9]*\).*/\1/p')
        echo "zoo/$n: $counts"
        if ! "$PZ" run "$z" --input "$T/$n.in.pb" --output "$T/$n.zoo.out.pb" --profile \
            >"$T/$n.zprof" 2>"$T/zoo.err"; then
            bad "zoo/$n: paleozoic run failed: $(head -c 400 "$T/zoo.err")"
            continue
        fi
        profile_check "zoo/$n" "$T/$n.zprof" "${after:-?}" BATCHNORM UNARY BINARY
        vs_ort "zoo/$n" "$T/$n.zoo.out.pb" "$T/$n.ort.pb"
    done

    # ---- zoo transformers: attention, LayerNorm and GELU fused, against ORT ----
    # ViT-B/16 at 224x224 and the BERT-base-class encoder at sequence 16 (its
    # sequence is symbolic; a short one keeps the run small, and its last 3
    # tokens are padding, so the mask matters). Each has 12 attention layers
    # and 25 LayerNorms once the passes ran, and no UNARY layer (GELU's five ops
    # became one epilogue). ViT is skipped under a sanitizer build.
    TNETS="vit_b_16 bert_base"
    [ "$san" -eq 1 ] && TNETS="bert_base" && echo "zoo/vit_b_16: skipped under the sanitizer build"
    for n in $TNETS; do
        z="$T/$n.zoo.onnx"
        if ! "$PZ" zoo "$n" -o "$z" >/dev/null 2>"$T/zoo.err"; then
            bad "zoo/$n: paleozoic zoo failed: $(head -c 300 "$T/zoo.err")"
            continue
        fi
        "$PY" - "$T/$n" "$n" <<'EOF'
import sys
import numpy as np
from onnx import numpy_helper
p, n = sys.argv[1], sys.argv[2]
r = np.random.default_rng(42)
if n == "vit_b_16":
    ins = [r.standard_normal((1, 3, 224, 224)).astype(np.float32)]
else:
    mask = np.ones((1, 16), np.int64)
    mask[0, 13:] = 0
    ins = [r.integers(0, 30522, (1, 16)).astype(np.int64), mask]
for i, x in enumerate(ins):
    open("%s.in%d.pb" % (p, i), "wb").write(numpy_helper.from_array(x).SerializeToString())
EOF
        ins="$T/$n.in0.pb" args="--input $T/$n.in0.pb"
        [ -f "$T/$n.in1.pb" ] && ins="$ins $T/$n.in1.pb" && args="$args --input $T/$n.in1.pb"
        # shellcheck disable=SC2086  # $ins, $args: file names without spaces (mktemp)
        if ! (cd "$ROOT" && node tests/e2e/ort_run.js "$z" $ins -- "$T/$n.ort.pb") \
            >/dev/null 2>"$T/zoo.err"; then
            bad "zoo/$n: ONNX Runtime failed: $(head -c 300 "$T/zoo.err")"
            rm -f "$z"
            continue
        fi
        # shellcheck disable=SC2086
        if ! "$PZ" run "$z" $args --output "$T/$n.zoo.out.pb" --profile \
            >"$T/$n.zprof" 2>"$T/zoo.err"; then
            bad "zoo/$n: paleozoic run failed: $(head -c 400 "$T/zoo.err")"
            rm -f "$z"
            continue
        fi
        rm -f "$z"
        for kw in ATTENTION:12 LAYERNORM:25 UNARY:0; do
            k=${kw%:*} want=${kw#*:}
            got=$(awk -v k="$k" '$1 ~ /^[0-9]+$/ && $2 == k' "$T/$n.zprof" | wc -l)
            if [ "$got" -eq "$want" ]; then ok
            else bad "zoo/$n: $got $k layers after the passes, want $want"; fi
        done
        vs_ort "zoo/$n" "$T/$n.zoo.out.pb" "$T/$n.ort.pb"
    done
else
    skip_one "needs node with onnxruntime-node (tools/setup.sh) and $PY with onnx"
fi

# ---- small: hand-written models against PyTorch -------------------------------
if [ "$have_py" -eq 1 ]; then
    cat >"$T/small.py" <<'EOF'
"""small.py PZ WORKDIR: small models through `paleozoic run --profile`, checked
against torch.nn.functional; prints one line per check and `N passed, N failed`."""
import os
import subprocess
import sys

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import TensorProto, helper, numpy_helper

PZ, W = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(20)
passed = failed = 0


def check(ok, name, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL small/%s %s" % (name, detail))


def rand(*shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, size=shape).astype(np.float32)


def vi(name, a):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, list(a.shape))


def run(name, nodes, inputs, out_shape, inits, opset, want, max_layers, forbid=()):
    """inputs: [(name, array)]; runs the model, compares output 0 with want."""
    g = helper.make_graph(nodes, name, [vi(k, a) for k, a in inputs],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)],
                          initializer=[numpy_helper.from_array(a, k) for k, a in inits])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 7
    path = os.path.join(W, name + ".onnx")
    onnx.save(m, path)
    args = [PZ, "run", path, "--profile", "--output", os.path.join(W, name + ".y.pb")]
    for k, a in inputs:
        f = os.path.join(W, "%s.%s.pb" % (name, k))
        open(f, "wb").write(numpy_helper.from_array(a).SerializeToString())
        args += ["--input", f]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        check(False, name, "paleozoic run failed: " + r.stderr[:400])
        return
    t = onnx.TensorProto()
    t.ParseFromString(open(os.path.join(W, name + ".y.pb"), "rb").read())
    got = numpy_helper.to_array(t).astype(np.float64)
    want = np.asarray(want, dtype=np.float64)
    err = np.abs(got - want).max() / max(np.abs(want).max(), 1e-30) if got.shape == want.shape else 1e9
    check(err <= 1e-5, name, "max|err|/max|ref| = %.3e" % err)
    layers = [l.split() for l in r.stdout.splitlines()]
    layers = [l for l in layers if len(l) > 2 and l[0].isdigit() and l[1].isupper() and l[1] != "layers"]
    check(len(layers) <= max_layers, name, "%d layers, expected at most %d: %s" %
          (len(layers), max_layers, [l[1] for l in layers]))
    for kind in forbid:
        check(all(l[1] != kind for l in layers), name, "a %s layer is left" % kind)
    print("small/%s: %d layers, max|err|/max|ref| = %.2e" % (name, len(layers), err))


T = lambda a: torch.from_numpy(np.asarray(a, dtype=np.float64))

# 1. a ResNet block: conv-bn-relu-dropout-conv-bn-add(x)-relu, + an Identity
for opset in (9, 13):
    C = 8
    x = rand(2, C, 7, 6)
    w1, b1, w2 = rand(C, C, 3, 3, lo=-.3, hi=.3), rand(C), rand(C, C, 3, 3, lo=-.3, hi=.3)
    bn = [(rand(C), rand(C), rand(C), rand(C, lo=.2, hi=2)) for _ in range(2)]
    inits = [("w1", w1), ("b1", b1), ("w2", w2)]
    for i, (sc, bi, mean, var) in enumerate(bn):
        inits += [("s%d" % i, sc), ("bb%d" % i, bi), ("m%d" % i, mean), ("v%d" % i, var)]
    nodes = [helper.make_node("Identity", ["x"], ["xi"], name="id"),
             helper.make_node("Conv", ["xi", "w1", "b1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
             helper.make_node("BatchNormalization", ["c1", "s0", "bb0", "m0", "v0"], ["n1"], name="bn1",
                              epsilon=1e-3),
             helper.make_node("Relu", ["n1"], ["r1"], name="relu1"),
             helper.make_node("Dropout", ["r1"], ["d1"], name="drop"),
             helper.make_node("Conv", ["d1", "w2"], ["c2"], name="conv2", pads=[1, 1, 1, 1]),
             helper.make_node("BatchNormalization", ["c2", "s1", "bb1", "m1", "v1"], ["n2"], name="bn2"),
             helper.make_node("Add", ["xi", "n2"], ["a"], name="add"),
             helper.make_node("Relu", ["a"], ["y"], name="relu2")]
    t = F.relu(F.batch_norm(F.conv2d(T(x), T(w1), T(b1), padding=1), T(bn[0][2]), T(bn[0][3]),
                            T(bn[0][0]), T(bn[0][1]), eps=1e-3))
    t = F.batch_norm(F.conv2d(t, T(w2), padding=1), T(bn[1][2]), T(bn[1][3]), T(bn[1][0]), T(bn[1][1]),
                     eps=1e-5)
    want = F.relu(t + T(x)).numpy()
    run("block_opset%d" % opset, nodes, [("x", x)], list(want.shape), inits, opset, want, 2,
        ("BATCHNORM", "UNARY", "BINARY", "COPY"))

# 2. Clip after Conv: opset 6 attributes, opset 11 constant inputs; Gemm + Relu
x, w = rand(1, 3, 8, 8), rand(4, 3, 3, 3)
want = F.conv2d(T(x), T(w)).clamp(-0.25, 0.5).numpy()
run("clip_opset6", [helper.make_node("Conv", ["x", "w"], ["c"], name="conv"),
                    helper.make_node("Clip", ["c"], ["y"], name="clip", min=-0.25, max=0.5)],
    [("x", x)], list(want.shape), [("w", w)], 6, want, 1, ("UNARY",))
run("clip_opset11", [helper.make_node("Conv", ["x", "w"], ["c"], name="conv"),
                     helper.make_node("Clip", ["c", "lo", "hi"], ["y"], name="clip")],
    [("x", x)], list(want.shape), [("w", w), ("lo", np.float32(-0.25)), ("hi", np.float32(0.5))], 11,
    want, 1, ("UNARY",))
a, bm, c = rand(3, 50), rand(20, 50), rand(20)
want = F.relu(F.linear(T(a), T(bm), T(c))).numpy()
run("gemm_relu", [helper.make_node("Gemm", ["a", "bm", "c"], ["g"], name="fc", transB=1),
                  helper.make_node("Relu", ["g"], ["y"], name="relu")],
    [("a", a)], list(want.shape), [("bm", bm), ("c", c)], 13, want, 1, ("UNARY",))

# 3. ConvTranspose (group 2, stride 2, pads 1) + BN
x, w, b = rand(1, 4, 5, 5), rand(4, 3, 3, 3), rand(6)
s, bb, mu, var = rand(6), rand(6), rand(6), rand(6, lo=.2, hi=2)
want = F.batch_norm(F.conv_transpose2d(T(x), T(w), T(b), stride=2, padding=1, groups=2), T(mu), T(var),
                    T(s), T(bb), eps=1e-5).numpy()
run("convtranspose_bn", [helper.make_node("ConvTranspose", ["x", "w", "b"], ["c"], name="up", group=2,
                                          strides=[2, 2], pads=[1, 1, 1, 1]),
                         helper.make_node("BatchNormalization", ["c", "s", "bb", "mu", "var"], ["y"],
                                          name="bn")],
    [("x", x)], list(want.shape), [("w", w), ("b", b), ("s", s), ("bb", bb), ("mu", mu), ("var", var)],
    13, want, 1, ("BATCHNORM",))

# 4. Max and Min of 4 inputs (broadcasting), PRelu with a per-channel slope at opset 6
ins = [("p", rand(3, 1, 5)), ("q", rand(4, 5)), ("r", rand(1, 4, 1)), ("s", rand(5))]
for op, fn in (("Max", np.maximum), ("Min", np.minimum)):
    want = fn(fn(fn(ins[0][1], ins[1][1]), ins[2][1]), ins[3][1])
    run(op.lower() + "4", [helper.make_node(op, [k for k, _ in ins], ["y"], name="m")], ins,
        list(want.shape), [], 13, want, 3)
x, slope = rand(2, 3, 4, 5), rand(3)
want = F.prelu(T(x), T(slope)).numpy()
run("prelu_opset6", [helper.make_node("PRelu", ["x", "slope"], ["y"], name="pr")], [("x", x)],
    list(want.shape), [("slope", slope)], 6, want, 1)

# 5. a scale and a shift per channel written out (ONNX Runtime's ConvMulFusion,
# ConvAddFusion): Conv, Mul [1,C,1,1], Div by a scalar, Add [C,1,1], Sub [1],
# Relu -> one CONV; c - conv (not of the form) stays a BINARY
x, w, b = rand(2, 3, 8, 8), rand(6, 3, 3, 3), rand(6)
sc, sh = rand(1, 6, 1, 1, lo=.5, hi=2), rand(6, 1, 1)
t = F.conv2d(T(x), T(w), T(b)) * T(sc) / 1.5 + T(sh) - 0.25
want = F.relu(t).numpy()
run("conv_affine", [helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv"),
                    helper.make_node("Mul", ["c", "sc"], ["m"], name="mul"),
                    helper.make_node("Div", ["m", "k"], ["d"], name="div"),
                    helper.make_node("Add", ["sh", "d"], ["a"], name="add"),
                    helper.make_node("Sub", ["a", "q"], ["s"], name="sub"),
                    helper.make_node("Relu", ["s"], ["y"], name="relu")],
    [("x", x)], list(want.shape), [("w", w), ("b", b), ("sc", sc), ("k", np.float32(1.5)),
                                   ("sh", sh), ("q", np.array([0.25], np.float32))], 13, want, 1,
    ("BINARY", "UNARY"))
want = (0.5 - F.conv2d(T(x), T(w))).numpy()
run("conv_rsub", [helper.make_node("Conv", ["x", "w"], ["c"], name="conv"),
                  helper.make_node("Sub", ["q", "c"], ["y"], name="rsub")],
    [("x", x)], list(want.shape), [("w", w), ("q", np.float32(0.5))], 13, want, 2)
print("small: %d passed, %d failed" % (passed, failed))
EOF
    "$PY" "$T/small.py" "$PZ" "$T" >"$T/small.out" 2>&1
    cat "$T/small.out"
    line=$(grep -E '^small: [0-9]+ passed, [0-9]+ failed' "$T/small.out" | tail -n 1)
    if [ -n "$line" ]; then
        pass=$((pass + $(echo "$line" | awk '{print $2}')))
        fail=$((fail + $(echo "$line" | awk '{print $4}')))
    else
        bad "small: small.py did not finish"
    fi
else
    skip_one "$PY cannot import onnx, torch and numpy"
fi

finish
