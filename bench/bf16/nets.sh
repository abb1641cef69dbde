#!/bin/sh
# bench/bf16/nets.sh [options] - the six networks in bf16 against our fp32,
# end to end (issue 41's bf16 rows): builds `paleozoic build` executables
# of each network at --precision fp32 and bf16 (build/test-models: NAME.onnx
# and NAME.input.pb), then runs them interleaved (per round, thread count
# and network: fp32 then bf16, --repeat K each) and prints a markdown table
# of the medians over rounds of each run's median latency, the ratio
# fp32/bf16, and per thread count the geomean of the ratios.
# Options: --nets a,b (default resnet18,resnet50,mobilenet_v2,vgg16,vgg19,alexnet)
#          --threads 1,2   --rounds R (default 3)   --runs K (default 10)
#          --build DIR (default build)
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
B=build NETS=resnet18,resnet50,mobilenet_v2,vgg16,vgg19,alexnet THREADS=1,2 ROUNDS=3 RUNS=10
while [ $# -gt 0 ]; do
    case "$1" in
    --nets) NETS=$2 ;; --threads) THREADS=$2 ;; --rounds) ROUNDS=$2 ;; --runs) RUNS=$2 ;;
    --build) B=$2 ;;
    *) echo "bench/bf16: unknown option $1" >&2; exit 2 ;;
    esac
    shift 2
done
make -s BUILD="$B" "$B/paleozoic" >/dev/null
W="$B/bf16" M="$B/test-models"
mkdir -p "$W"
nets=$(echo "$NETS" | tr , ' ') threads=$(echo "$THREADS" | tr , ' ')
for n in $nets; do
    for p in fp32 bf16; do
        [ -x "$W/$n.$p" ] && [ "$W/$n.$p" -nt "$B/paleozoic" ] && continue
        "$B/paleozoic" build "$M/$n.onnx" -o "$W/$n.$p" --precision "$p" >/dev/null
    done
done
: >"$W/times"
r=0
while [ "$r" -lt "$ROUNDS" ]; do
    for th in $threads; do
        for n in $nets; do
            for p in fp32 bf16; do
                ms=$("$W/$n.$p" --input "$M/$n.input.pb" --threads "$th" --repeat "$RUNS" |
                     sed -n 's/.*latency_ms median=\([0-9.]*\).*/\1/p')
                echo "$n $th $p $ms" >>"$W/times"
            done
        done
    done
    r=$((r + 1))
done
/usr/bin/python3 - "$W/times" "$NETS" "$THREADS" <<'EOF2'
import sys, math, statistics as st
rows = [l.split() for l in open(sys.argv[1])]
t = {}
for n, th, p, ms in rows:
    t.setdefault((n, th, p), []).append(float(ms))
print("| net | threads | fp32 ms | bf16 ms | fp32 / bf16 |")
print("| --- | --- | --- | --- | --- |")
for th in sys.argv[3].split(","):
    rs = []
    for n in sys.argv[2].split(","):
        f, b = st.median(t[(n, th, "fp32")]), st.median(t[(n, th, "bf16")])
        rs.append(f / b)
        print("| %s | %s | %.1f | %.1f | %.2fx |" % (n, th, f, b, f / b))
    print("| geomean | %s | | | %.2fx |" % (th, math.exp(sum(map(math.log, rs)) / len(rs))))
EOF2
