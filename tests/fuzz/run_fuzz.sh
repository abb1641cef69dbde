#!/bin/sh
# run_fuzz.sh BUILD_DIR SECONDS [keep|fresh] [TARGET...] - runs the libFuzzer
# targets (default: fuzz_onnx, then fuzz_schedule), one at a time, each for
# SECONDS seconds, and fails if any of them finds something.
#
#   keep   (make fuzz)    the corpus in BUILD_DIR/corpus/TARGET grows from
#                         run to run (seeded on the first run)
#   fresh  (make fuzz-ci) a new corpus from the seeds each time
#
# Seeds: fuzz_onnx - every .onnx of the ONNX backend test data
# (../shared/onnx-tests or $PZ_ONNX_TESTS), the malformed-model corpus
# (tests/errors/make_corpus.py, when python3-onnx is there) and the crash
# reproducers kept in tests/errors/regress/; fuzz_schedule -
# tests/fuzz/seeds/schedule/. Dictionaries: tests/fuzz/TARGET.dict.
#
# Limits: -max_len 1 MB for models (64 KB for schedules), -rss_limit_mb=3072
# (constant folding computes up to 1 GiB at compile time by design, e.g. a
# ConstantOfShape, and holds it twice for a moment: ~2.3 GB with ASan),
# -timeout=20 s per input, leak detection on. Anything found is written to
# BUILD_DIR/findings/TARGET/ (crash-*, leak-*, oom-*, timeout-*) and the
# script exits 1; copy a reproducer to tests/fuzz/crashes/ to report it and,
# once fixed, to tests/errors/regress/ to keep it as a regression case.
# Prints one summary line per target: executions, corpus size, result.
# Triage: PZ_FUZZ_KNOWN="substring|..." (fuzz_onnx) skips internal errors
# already reported; PZ_FUZZ_VERBOSE=1 prints each input's outcome.
set -u

B=${1:?usage: run_fuzz.sh BUILD_DIR SECONDS [keep|fresh] [TARGET...]}
SECS=${2:?usage: run_fuzz.sh BUILD_DIR SECONDS [keep|fresh] [TARGET...]}
MODE=${3:-keep}
[ $# -ge 3 ] && shift 3 || shift $#
TARGETS=${*:-fuzz_onnx fuzz_schedule}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
ONNX_TESTS=${PZ_ONNX_TESTS:-$ROOT/../shared/onnx-tests}
PY=${PYTHON:-/usr/bin/python3}
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1:detect_stack_use_after_return=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"

# seed_onnx DIR: the model seeds (at most 1 MB each, named by content hash so
# that the same model is there once).
seed_onnx() {
    dir=$1
    mkdir -p "$dir"
    if [ -d "$ONNX_TESTS" ]; then
        find "$ONNX_TESTS" -name '*.onnx' -size -1024k | while read -r f; do
            h=$(sha1sum "$f" | cut -c1-40)
            cp "$f" "$dir/$h"
        done
    else
        echo "run_fuzz: no ONNX test data at $ONNX_TESTS: seeding from the error corpus only"
    fi
    if "$PY" -c 'import onnx' 2>/dev/null; then
        tmp=$(mktemp -d)
        "$PY" "$ROOT/tests/errors/make_corpus.py" "$tmp" >/dev/null
        for f in "$tmp"/*.onnx; do
            [ -f "$f" ] && [ ! -L "$f" ] && cp "$f" "$dir/err-$(basename "$f" .onnx)"
        done
        rm -rf "$tmp"
    fi
    for f in "$ROOT"/tests/errors/regress/*.onnx "$ROOT"/tests/fuzz/seeds/onnx/*.onnx; do
        [ -f "$f" ] && cp "$f" "$dir/reg-$(basename "$f" .onnx)"
    done
    return 0
}

seed_schedule() {
    mkdir -p "$1"
    cp "$ROOT"/tests/fuzz/seeds/schedule/* "$1/" 2>/dev/null
    return 0
}

status=0
for t in $TARGETS; do
    bin="$B/$t"
    if [ ! -x "$bin" ]; then
        echo "run_fuzz: $bin is not built (make fuzz-build)"
        exit 2
    fi
    corpus="$B/corpus/$t"
    findings="$B/findings/$t"
    if [ "$MODE" = fresh ]; then
        rm -rf "$corpus"
    fi
    rm -rf "$findings"
    mkdir -p "$findings"
    if [ ! -d "$corpus" ]; then
        case "$t" in
        fuzz_onnx) seed_onnx "$corpus" ;;
        fuzz_schedule) seed_schedule "$corpus" ;;
        esac
    fi
    case "$t" in
    fuzz_onnx) max_len=1048576 ;;
    *) max_len=65536 ;;
    esac
    dict=""
    [ -f "$ROOT/tests/fuzz/$t.dict" ] && dict="-dict=$ROOT/tests/fuzz/$t.dict"
    log="$B/findings/$t.log"
    start=$(date +%s)
    # shellcheck disable=SC2086
    "$bin" "$corpus" $dict -max_total_time="$SECS" -max_len="$max_len" -rss_limit_mb=3072 \
        -timeout=20 -detect_leaks=1 -print_final_stats=1 -artifact_prefix="$findings/" \
        >"$log" 2>&1
    rc=$?
    secs=$(( $(date +%s) - start ))
    execs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}')
    size=$(find "$corpus" -type f | wc -l)
    found=$(find "$findings" -type f | wc -l)
    if [ "$rc" -ne 0 ] || [ "$found" -ne 0 ]; then
        status=1
        echo "FAIL $t: exit code $rc after ${secs}s, ${execs:-?} executions; findings in $findings:"
        ls "$findings"
        grep -E 'ERROR|FINDING|runtime error|SUMMARY' "$log" | head -20
        echo "   (full log: $log)"
    else
        echo "ok $t: ${execs:-?} executions in ${secs}s, corpus $size inputs, nothing found"
    fi
done
exit $status
