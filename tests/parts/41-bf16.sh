#!/bin/sh
# 41-bf16.sh BUILD_DIR - bf16 convolutions (issue 41, item 4): the six
# networks (build/test-models: ResNet-18/50, MobileNetV2, VGG-16/19, AlexNet)
# through `paleozoic run --precision bf16` at 2 threads against PyTorch's
# fp32 output (NAME.torch.pb): cosine >= 0.999 and the same top-1, and the
# profile shows the convs that must run a bf16 kernel (direct or Winograd:
# every conv but the 3-channel stems, depthwise ones and MobileNetV2's 1x1s
# to 24 channels); ResNet-18 also with PZ_ISA=scalar (the scalar twins) and
# as the program `build --precision bf16` makes and in fused F-Blocks
# (--strategy fuse-all; both the bits of `run`), and
# with --precision fp32 no conv runs bf16. Under a sanitizer build: ResNet-18
# and AlexNet only. The kernels themselves: tests/unit/rt_conv_bf16.c.
# Ends with `N passed, N failed`.
set -u
NAME=41-bf16
. "$(dirname "$0")/lib.sh"
part_init "$@"

[ "$have_py" = 1 ] || skip_part "needs /usr/bin/python3 with onnx and numpy"
[ -f "$M/resnet18.onnx" ] && [ -f "$M/resnet18.torch.pb" ] ||
    skip_part "no $M/resnet18.onnx (tests/models.sh exports the networks)"

# cosine GOT WANT: cosine >= 0.999 and the same top-1 (prints both)
cosine() {
    "$PY" - "$1" "$2" <<'EOF2'
import sys
import numpy as np
import onnx
from onnx import numpy_helper as nh
got, want = (nh.to_array(onnx.load_tensor(f)).astype(np.float64).ravel() for f in sys.argv[1:])
cos = got @ want / np.linalg.norm(got) / np.linalg.norm(want)
print("cosine %.6f, top-1 %d vs %d" % (cos, got.argmax(), want.argmax()))
sys.exit(not (cos >= 0.999 and got.argmax() == want.argmax()))
EOF2
}

# net, convs that must run bf16
printf '%s\n' "resnet18 19" "resnet50 52" "mobilenet_v2 31" "vgg16 12" "vgg19 15" \
    "alexnet 4" >"$T/nets"
[ "$san" = 1 ] && printf '%s\n' "resnet18 19" "alexnet 4" >"$T/nets"
while read -r n want; do
    m="$M/$n"
    if [ ! -f "$m.onnx" ] || [ ! -f "$m.torch.pb" ]; then
        skip_one "$n: no $m.onnx or $m.torch.pb"
        continue
    fi
    if "$PZ" run "$m.onnx" --input "$m.input.pb" --output "$T/$n.pb" --threads 2 --precision bf16 \
        --profile >"$T/log" 2>&1 && clean "$T/log"; then
        got=$(grep ' CONV ' "$T/log" | grep -c ' bf16$')
        if ! cosine "$T/$n.pb" "$m.torch.pb" >"$T/why" 2>&1; then
            bad "$n bf16 vs PyTorch fp32: $(tail -c 300 "$T/why")"
        elif [ "$got" != "$want" ]; then
            bad "$n bf16: $got convs on a bf16 kernel, want $want"
        else
            ok "$n bf16 vs PyTorch fp32: $(cat "$T/why"), $got convs bf16"
        fi
    else
        bad "$n run --precision bf16: $(tail -c 400 "$T/log")"
    fi
done <"$T/nets"

r="$M/resnet18"
if PZ_ISA=scalar "$PZ" run "$r.onnx" --input "$r.input.pb" --output "$T/s.pb" --threads 2 \
    --precision bf16 --profile >"$T/log" 2>&1 && clean "$T/log" &&
    [ "$(grep ' CONV ' "$T/log" | grep -c ' bf16$')" = 19 ] && cosine "$T/s.pb" "$r.torch.pb" >"$T/why" 2>&1; then
    ok "resnet18 bf16 with PZ_ISA=scalar: $(cat "$T/why")"
else
    bad "resnet18 bf16 with PZ_ISA=scalar: $(tail -c 300 "$T/log") $(cat "$T/why" 2>/dev/null)"
fi
if "$PZ" run "$r.onnx" --input "$r.input.pb" --output "$T/r.pb" --threads 2 --precision bf16 \
    >"$T/log" 2>&1 &&
    "$PZ" build "$r.onnx" -o "$T/r16" --threads 2 --precision bf16 >"$T/log" 2>&1 &&
    "$T/r16" --input "$r.input.pb" --output "$T/b.pb" >/dev/null 2>"$T/e16" && clean "$T/e16" &&
    "$PY" -c "
import sys, onnx
from onnx import numpy_helper as nh
a, b = (nh.to_array(onnx.load_tensor(f)) for f in sys.argv[1:])
sys.exit(a.shape != b.shape or a.tobytes() != b.tobytes())" "$T/r.pb" "$T/b.pb"; then
    ok "resnet18 build --precision bf16: the bits of run"
else
    bad "resnet18 build --precision bf16: other bits or failed: $(tail -c 300 "$T/log") $(tail -c 200 "$T/e16")"
fi
# fused F-Blocks (row windows through the bf16 kernels): the bits of layer by layer
if "$PZ" run "$r.onnx" --input "$r.input.pb" --output "$T/fa.pb" --threads 2 --precision bf16 \
    --strategy fuse-all --profile >"$T/log" 2>&1 && grep -q 'layers in [0-9]* runs' "$T/log" &&
    "$PY" -c "
import sys, onnx
from onnx import numpy_helper as nh
a, b = (nh.to_array(onnx.load_tensor(f)) for f in sys.argv[1:])
sys.exit(a.shape != b.shape or a.tobytes() != b.tobytes())" "$T/r.pb" "$T/fa.pb"; then
    ok "resnet18 bf16 --strategy fuse-all: the bits of layer by layer"
else
    bad "resnet18 bf16 --strategy fuse-all: other bits or failed: $(tail -c 300 "$T/log")"
fi
if "$PZ" run "$r.onnx" --input "$r.input.pb" --output "$T/f.pb" --threads 2 --precision fp32 \
    --profile >"$T/log" 2>&1 && ! grep ' CONV ' "$T/log" | grep -q 'bf16$'; then
    ok "resnet18 --precision fp32: no conv runs bf16"
else
    bad "resnet18 --precision fp32: $(grep ' CONV ' "$T/log" | grep 'bf16$' | head -2)"
fi
finish
