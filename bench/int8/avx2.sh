#!/bin/sh
# bench/int8/avx2.sh [options] - our int8 against our fp32 with both capped to the
# AVX2 kernels (PZ_ISA=avx2: what a CPU without AVX-512 runs; issue 41, item 3):
#   1. builds paleozoic;
#   2. takes build/test-models/NET.onnx and NET.input.pb (else `paleozoic zoo` and a
#      seeded input), quantizes it (`paleozoic quantize`: min/max over 8 seeded
#      inputs) and builds the float and the QDQ model;
#   3. per net, R rounds of fp32 then int8, each `PZ_ISA=avx2 ./NET.X --threads 1
#      --repeat K` (its latency median; int8 with PZ_ISA=I8ISA); prints the rounds
#      and the medians.
# On a shared machine: prepare once (--rounds 0), then time one net at a time
# under a lock, `flock /tmp/pz_bench.lock sh bench/int8/avx2.sh --prepared 1 --nets N`.
# Options: --nets a,b (default resnet18,resnet50,mobilenet_v2)  --rounds R (7; 0: only
#          prepare)  --repeat K (6)  --threads T (1)  --build DIR (build)
#          --prepared 1 (skip steps 1-2: the executables are there)
#          --int8-isa I8ISA (avx2-novnni: the AVX2 vpmaddwd int8 kernels; avx2: the
#          AVX-VNNI ones where the CPU has them, README 'Choosing kernels')
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
B=build NETS=resnet18,resnet50,mobilenet_v2 ROUNDS=7 REPEAT=6 TH=1 PREPARED=0 I8ISA=avx2-novnni
while [ $# -gt 0 ]; do
    case "$1" in
    --nets) NETS=$2 ;; --rounds) ROUNDS=$2 ;; --repeat) REPEAT=$2 ;; --threads) TH=$2 ;;
    --build) B=$2 ;; --prepared) PREPARED=$2 ;; --int8-isa) I8ISA=$2 ;;
    *) echo "bench/int8/avx2: unknown option $1" >&2; exit 2 ;;
    esac
    shift 2
done
fail() { echo "bench/int8/avx2: error: $*" >&2; exit 1; }
case "$ROUNDS$REPEAT$TH" in *[!0-9]*) echo "bench/int8/avx2: --rounds, --repeat, --threads take counts" >&2; exit 2 ;; esac
case "$PREPARED" in 0|1) ;; *) echo "bench/int8/avx2: --prepared takes 0 or 1" >&2; exit 2 ;; esac
case "$I8ISA" in avx2|avx2-novnni) ;; *) echo "bench/int8/avx2: --int8-isa takes avx2 or avx2-novnni" >&2; exit 2 ;; esac
PZ="$B/paleozoic" M="$B/test-models" W="$B/int8-avx2"
[ "$PREPARED" = 1 ] || {
    make -s BUILD="$B" "$B/paleozoic" >/dev/null || fail "make BUILD=$B failed"
    mkdir -p "$M" "$W"
    for net in $(echo "$NETS" | tr , ' '); do
        [ -f "$M/$net.onnx" ] || "$PZ" zoo "$net" -o "$M/$net.onnx" >/dev/null || fail "zoo $net"
        if [ -f "$M/$net.input.pb" ]; then
            cp "$M/$net.input.pb" "$W/$net.input.pb"
        else
            /usr/bin/python3 -c "
import numpy as np
from onnx import numpy_helper
x = np.random.default_rng(1).standard_normal((1, 3, 224, 224)).astype(np.float32)
open('$W/$net.input.pb', 'wb').write(numpy_helper.from_array(x, 'input').SerializeToString())
    " || fail "a seeded input for $net"
        fi
        "$PZ" quantize "$M/$net.onnx" -o "$W/$net.q.onnx" >/dev/null 2>&1 || fail "quantize $net"
        "$PZ" build "$M/$net.onnx" -o "$W/$net.fp32" >/dev/null 2>&1 || fail "build $net fp32"
        "$PZ" build "$W/$net.q.onnx" -o "$W/$net.int8" >/dev/null 2>&1 || fail "build $net int8"
    done
}
[ "$ROUNDS" -gt 0 ] || exit 0
for net in $(echo "$NETS" | tr , ' '); do
    : >"$W/$net.times"
    r=0
    while [ "$r" -lt "$ROUNDS" ]; do
        for k in fp32 int8; do
            isa=avx2
            [ "$k" = int8 ] && isa=$I8ISA
            t=$(PZ_ISA=$isa "$W/$net.$k" --input "$W/$net.input.pb" --threads "$TH" \
                --repeat "$REPEAT" 2>&1 | sed -n 's/latency_ms median=\([0-9.]*\).*/\1/p')
            [ -n "$t" ] || fail "$net $k: no latency_ms line"
            echo "$k $t" >>"$W/$net.times"
        done
        r=$((r + 1))
    done
    /usr/bin/python3 - "$net" "$W/$net.times" <<'EOF'
import statistics as st
import sys
r = {}
for line in open(sys.argv[2]):
    k, t = line.split()
    r.setdefault(k, []).append(float(t))
f, i = st.median(r['fp32']), st.median(r['int8'])
print('%-13s fp32 %s | int8 %s | medians fp32 %.1f int8 %.1f ms, fp32/int8 %.2fx' %
      (sys.argv[1], ' '.join('%.1f' % v for v in r['fp32']),
       ' '.join('%.1f' % v for v in r['int8']), f, i, f / i))
EOF
done
