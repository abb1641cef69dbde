#!/bin/sh
# if_skip.sh OLD_PALEOZOIC NEW_PALEOZOIC - an If on a run-time condition whose
# branches are four 3x3 convs each (if_branches.py), built by both compilers;
# the programs run interleaved, 3 rounds of 40 runs at 1 thread, under the
# bench lock. Prints each round's latency line (median, min).
set -eu
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
/usr/bin/python3 "$(dirname "$0")/if_branches.py" "$T"
"$1" build "$T/bif.onnx" -o "$T/old.exe" >/dev/null 2>&1
"$2" build "$T/bif.onnx" -o "$T/new.exe" >/dev/null 2>&1
uptime
for r in 1 2 3; do
    for v in old new; do
        echo "$v $(flock /tmp/pz_bench.lock "$T/$v.exe" --input "$T/c1.pb" --input "$T/x.pb" \
            --repeat 40 --threads 1 2>&1 | tail -1)"
    done
done
uptime
