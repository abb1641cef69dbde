#!/bin/sh
# 44-progress.sh BUILD_DIR MODELDIR - the progress line of long work
# (src/util/progress.c): drawn on stderr when it is a terminal (here under
# script(1)'s pseudo-terminal) or PZ_PROGRESS=1, with the task, its count
# and "about M:SS left"; nothing extra when stderr is a file or a pipe, or
# with PZ_PROGRESS=0. Covers build, tune (dp), bench, quantize and
# characterize on a small CNN. Ends with `N passed, N failed`.
set -u
NAME=44-progress
. "$(dirname "$0")/lib.sh"
part_init "$@"
# has FILE LABEL PATTERN...: every pattern (grep -E) is in FILE
has() {
    f=$1 l=$2
    shift 2
    for p in "$@"; do
        grep -q -E -e "$p" "$f" || { bad "$l: no \"$p\" in: $(tr '\r' '\n' <"$f" | tail -n 3 | tr '\n' '|')"; return; }
    done
    ok
}
CR=$(printf '\r')

if ! "$PY" "$ROOT/tests/install/tiny_model.py" "$T/tiny.onnx" "$T/x.pb" 0 >"$T/log" 2>&1; then
    bad "tiny_model.py: $(tail -c 300 "$T/log")"
    finish
fi

# not a terminal: the usual lines only
"$PZ" build "$T/tiny.onnx" -o "$T/a" 2>"$T/e1" >/dev/null
if grep -q "$CR" "$T/e1" || grep -q "elapsed" "$T/e1"; then bad "build into a file drew a progress line"; else ok; fi
has "$T/e1" "build into a file" "^paleozoic: built "

# PZ_PROGRESS=1: the line, then the usual message on a line of its own
PZ_PROGRESS=1 "$PZ" build "$T/tiny.onnx" -o "$T/b" 2>"$T/e2" >/dev/null
has "$T/e2" "build, PZ_PROGRESS=1" "build 0/4, 0:00 elapsed" "build 3/4, .*elapsed.*\(the C compiler\)" \
    "${CR}.\[Kpaleozoic: built "

# a pseudo-terminal (script -c): tune dp shows its nested tasks and a time left
if command -v script >/dev/null 2>&1; then
    script -qec "'$PZ' tune '$T/tiny.onnx' --strategy dp -o '$T/s.json' --threads 2" "$T/tty1" >/dev/null 2>&1
    has "$T/tty1" "tune dp on a terminal" "dp: block timings [0-9]+/[0-9]+" \
        "dp: block timings [0-9]+/[0-9]+ > timing 2 schedules [0-9]/[0-9]+" "about 0:[0-9][0-9] left" "wrote "
    PZ_PROGRESS=0 script -qec "'$PZ' tune '$T/tiny.onnx' --strategy dp -o '$T/s.json' --threads 2" "$T/tty0" >/dev/null 2>&1
    if grep -q "elapsed" "$T/tty0"; then bad "PZ_PROGRESS=0 on a terminal drew a line"; else ok; fi
else
    echo "progress: no script(1): the terminal cases are not run"
fi

PZ_PROGRESS=1 "$PZ" quantize "$T/tiny.onnx" -o "$T/q.onnx" 2>"$T/e3" >/dev/null
has "$T/e3" "quantize" "quantize: calibration runs [0-9]/8, .*elapsed"
PZ_PROGRESS=1 "$PZ" bench "$T/tiny.onnx" --strategies none,fixed-mp --threads 2 2>"$T/e4" >/dev/null
has "$T/e4" "bench" "bench: strategies [0-2]/2" "timing 2 schedules [0-9]+/[0-9]+"
PZ_PROGRESS=1 "$PZ" characterize --default --allow-noisy -o "$T/t.json" 2>"$T/e5" >/dev/null
has "$T/e5" "characterize" "characterize: layers [0-9]+/[0-9]+, .*elapsed"

finish
