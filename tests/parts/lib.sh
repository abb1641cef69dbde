# lib.sh - what every tests/parts/NN-*.sh shares: its paths, its counters and
# its checks. A part starts with
#
#     NAME=43-views
#     . "$(dirname "$0")/lib.sh"
#     part_init "$@"          # BUILD_DIR [MODELDIR]
#
# and ends with `finish`. The suite (tests/run.sh) counts the last
# `N passed, N failed[, N skipped]` line of a part, so every exit goes
# through finish or skip_part.
#
# part_init sets:
#   ROOT  the checkout          B    BUILD_DIR, absolute
#   PZ    $B/paleozoic          M    MODELDIR (default build/test-models)
#   PY    /usr/bin/python3      E2E  tests/e2e (compare.js, ort_run.js)
#   T     a scratch folder, removed at exit
#   san   1 under a sanitizer build (BUILD_DIR names "san"), else 0
#   full  1 under PZ_TEST_FULL=1 (`make check-full`), else 0
#   have_ort  1 when node and node_modules/onnxruntime-node are there
#   have_py   1 when $PY imports onnx and numpy
# PZ_TEST_VERBOSE=1 prints a line for each passing check too.

ok() {
    pass=$((pass + 1))
    [ "${PZ_TEST_VERBOSE:-0}" = 1 ] && [ $# -gt 0 ] && echo "ok   $*"
    return 0
}
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
skip_one() { skip=$((skip + 1)); echo "SKIP $*"; }

# check LABEL CMD...: one check by CMD's exit code; its output shown on failure
check() {
    label=$1; shift
    if "$@" >"$T/check.log" 2>&1; then ok "$label"
    else bad "$label: $(tail -c 600 "$T/check.log" | tr '\n' ' ')"; fi
}

# refuse LABEL PATTERN CMD...: CMD must exit 2 with a "paleozoic: error:"
# line and PATTERN (a grep pattern; "" for any) on its output - a clear error,
# not a crash
refuse() {
    label=$1 pat=$2; shift 2
    "$@" >"$T/refuse.log" 2>&1
    rc=$?
    if [ "$rc" -ne 2 ]; then bad "$label: exit $rc, wanted 2: $(tail -c 400 "$T/refuse.log")"
    elif ! grep -q "paleozoic: error: " "$T/refuse.log"; then
        bad "$label: no 'paleozoic: error:' line: $(tail -c 400 "$T/refuse.log")"
    elif [ -n "$pat" ] && ! grep -q -- "$pat" "$T/refuse.log"; then
        bad "$label: no \"$pat\" in: $(tail -c 400 "$T/refuse.log")"
    else ok "$label"; fi
}

# clean FILE: the stderr of a run holds no sanitizer report or internal error
clean() { ! grep -q -E 'AddressSanitizer|LeakSanitizer|runtime error:|internal error' "$1"; }

# cmp_rel GOT WANT [compare.js options]: max|err|/max|ref| <= 1e-4
cmp_rel() { node "$E2E/compare.js" --rel 1e-4 "$@"; }
# cmp_bit GOT WANT: the same bits
cmp_bit() { node "$E2E/compare.js" --bitwise "$@"; }

# built_bits N MODEL IN: `paleozoic build` MODEL into $T/N.prog (2 threads);
# its output on IN has the bits of `paleozoic run`. 1 when the build failed.
built_bits() {
    if ! "$PZ" build "$2" -o "$T/$1.prog" --threads 2 >"$T/build.log" 2>&1; then
        bad "$1: build: $(tail -c 600 "$T/build.log")"
        return 1
    fi
    if "$T/$1.prog" --input "$3" --output "$T/$1.prog.pb" --threads 2 >"$T/prog.log" 2>&1 &&
        "$PZ" run "$2" --input "$3" --output "$T/$1.run2.pb" --threads 2 >/dev/null 2>&1; then
        check "$1: the built program has the bits of paleozoic run" cmp_bit "$T/$1.prog.pb" "$T/$1.run2.pb"
    else
        bad "$1: the built program failed: $(tail -c 400 "$T/prog.log")"
    fi
}

# fused_bits NAME NU [ISAS [ARGS [WANT]]]: $T/NAME_fused.onnx runs in 1
# layer and $T/NAME_unfused.onnx in NU (inputs $T/NAME_fused.in.pb, ...),
# with the same output bits, at each ISA of ISAS (native: the CPU's; default
# "native avx2 scalar"); ARGS: more options of both runs (--threads 2);
# WANT: a fixed string the fused run's profile holds at every ISA but scalar
fused_bits() {
    for _isa in ${3:-native avx2 scalar}; do
        _e=PZ_ISA=$_isa
        [ "$_isa" = native ] && _e=PZ_SEL_NATIVE=1
        # ARGS unquoted: split into options
        if env "$_e" "$PZ" run "$T/$1_fused.onnx" --input "$T/$1_fused.in.pb" --output "$T/bf.pb" \
            --profile ${4:-} >"$T/bf.prof" 2>"$T/run.err" &&
            env "$_e" "$PZ" run "$T/$1_unfused.onnx" --input "$T/$1_unfused.in.pb" --output "$T/bu.pb" \
                --profile ${4:-} >"$T/bu.prof" 2>>"$T/run.err"; then
            check "$1 PZ_ISA=$_isa ${4:-}: fused (1 layer) = unfused ($2 layers) bitwise" sh -c \
                "grep -q ' 1 layers' \"$T/bf.prof\" && grep -q ' $2 layers' \"$T/bu.prof\" && node \"$E2E/compare.js\" --bitwise \"$T/bf.pb\" \"$T/bu.pb\""
            [ -n "${5:-}" ] && [ "$_isa" != scalar ] &&
                check "$1 PZ_ISA=$_isa: the fused kernel says '$5'" grep -qF "$5" "$T/bf.prof"
        else
            bad "$1 PZ_ISA=$_isa: run failed: $(head -c 400 "$T/run.err")"
        fi
    done
}

# finish: the part's last line and its exit status (0 when nothing failed)
finish() {
    if [ "$skip" -gt 0 ]; then echo "$NAME: $pass passed, $fail failed, $skip skipped"
    else echo "$NAME: $pass passed, $fail failed"; fi
    [ "$fail" -eq 0 ]
    exit
}

# skip_part REASON: the whole part cannot run here (a missing dependency)
skip_part() {
    echo "$NAME: SKIPPED: $*"
    echo "$NAME: 0 passed, 0 failed, 1 skipped"
    exit 0
}

# busy_start: one busy loop per online CPU, at the test's own priority (a
# second process loading every core); their pids in $LOOPS. busy_stop ends
# them. A part that uses them kills $LOOPS in its EXIT trap too.
LOOPS=""
busy_start() {
    _i=0
    while [ "$_i" -lt "$(getconf _NPROCESSORS_ONLN)" ]; do
        sh -c 'while :; do :; done' &
        LOOPS="$LOOPS $!"
        _i=$((_i + 1))
    done
}
busy_stop() {
    for _p in $LOOPS; do kill "$_p" 2>/dev/null; done
    LOOPS=""
}

part_init() {
    ROOT=$(cd "$(dirname "$0")/../.." && pwd)
    B=$(cd "${1:?usage: $NAME.sh BUILD_DIR [MODELDIR]}" && pwd)
    M=${2:-$ROOT/build/test-models}
    PZ="$B/paleozoic"
    PY=${PYTHON:-/usr/bin/python3}
    E2E="$ROOT/tests/e2e"
    T=$(mktemp -d)
    trap 'rm -rf "$T"' EXIT
    pass=0 fail=0 skip=0
    san=0
    case "$B" in *san*) san=1 ;; esac
    full=0
    [ "${PZ_TEST_FULL:-0}" = 1 ] && full=1
    have_ort=0
    [ -d "$ROOT/node_modules/onnxruntime-node" ] && command -v node >/dev/null && have_ort=1
    have_py=0
    "$PY" -c 'import onnx, numpy' 2>/dev/null && have_py=1
    return 0
}
