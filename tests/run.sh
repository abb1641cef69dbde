#!/bin/sh
# run.sh BUILD_DIR - the whole test suite against one build (build/ or, under
# ASan+UBSan, build-san/). `make test` and `make test-san` run it.
#
#   1. every unit test binary BUILD_DIR/tests/* (a binary whose last output
#      line says "N passed, N failed" counts that many; others count 1 by
#      their exit code);
#   2. shape and type conformance over the ONNX backend test data
#      (tests/unit/onnx_shapes.c) in ../shared/onnx-tests, beside the repo
#      checkout, or $PZ_ONNX_TESTS;
#      and the same cases run through the runtime, values compared
#      (`onnx_shapes --run`: the conformance runner);
#   3. the malformed-model corpus (tests/errors/run_errors.sh);
#   4. the front-end's supported inputs checked against numpy
#      (tests/front/front_cases.py);
#   5. the six torchvision models (tests/models.sh; exported into
#      build/test-models/, apart from the models/ a user writes, or
#      $PZ_MODELS);
#   6. every tests/parts/NN-*.sh (code generator, schedules, fusion, ...).
# Under a sanitizer (BUILD_DIR with "san") the slowest parts take a fixed
# sample of their cases, to keep CI within its hour; PZ_TEST_FULL=1 (`make
# check-full`) runs every case in both builds.
# Any sanitizer report in a part's stderr fails that part. A part skipped
# for a missing dependency says so in its last line (`N passed, N failed,
# N skipped`) and is counted as skipped. Ends with the line
# `N passed, N failed, N skipped`; exits non-zero on any failure.
set -u

B=${1:?usage: tests/run.sh BUILD_DIR}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
ONNX_TESTS=${PZ_ONNX_TESTS:-$ROOT/../shared/onnx-tests}
MODELS=${PZ_MODELS:-$ROOT/build/test-models}
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:abort_on_error=0:detect_stack_use_after_return=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"

total_pass=0
total_fail=0
total_skip=0
out=$(mktemp)
err=$(mktemp)
# The strategies that read a profile take the cached default one. The suite
# measures it once, into a cache of its own (the user's stays untouched),
# and keeps it even when the machine is busy (--allow-noisy): a busy study
# is never cached otherwise, and every such command would measure again.
# Parts that test the profile itself set their own XDG_CACHE_HOME.
XDG_CACHE_HOME=$(mktemp -d)
export XDG_CACHE_HOME
trap 'rm -rf "$out" "$err" "$XDG_CACHE_HOME"' EXIT
if [ -x "$B/paleozoic" ]; then
    "$B/paleozoic" characterize --default --cache --allow-noisy >"$out" 2>&1 ||
        { echo "the suite's default profile: $(tail -c 300 "$out")"; }
fi

# part LABEL CMD...: runs CMD, shows its output, and adds the counts of its
# last "N passed, N failed[, N skipped]" line (or 1 by its exit code when
# there is none).
part() {
    label=$1
    shift
    echo "== $label"
    t0=$(date +%s)
    "$@" >"$out" 2>"$err"
    rc=$?
    secs=$(($(date +%s) - t0))
    cat "$out"
    if [ -s "$err" ]; then
        # sanitizer reports are long: show the start
        head -n 60 "$err" >&2
    fi
    line=$(grep -E '([0-9]+) passed, ([0-9]+) failed' "$out" | tail -n 1)
    if [ -n "$line" ]; then
        p=$(printf '%s\n' "$line" | awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^passed/) print $(i - 1) }')
        f=$(printf '%s\n' "$line" | awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^failed/) print $(i - 1) }')
        s=$(printf '%s\n' "$line" | awk '{ n = 0; for (i = 2; i <= NF; i++) if ($i ~ /^skipped/) n = $(i - 1); print n }')
    elif [ "$rc" -eq 0 ]; then
        p=1 f=0 s=0
    else
        p=0 f=1 s=0
    fi
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "FAIL $label: exit code $rc without a failure counted"
        f=1
    fi
    if grep -q -E 'AddressSanitizer|LeakSanitizer|runtime error:|internal error' "$err"; then
        echo "FAIL $label: sanitizer or internal-error report on stderr"
        f=$((f + 1))
    fi
    # the wall time of each part: CI has a budget, and this shows where it goes
    echo "-- $label: ${secs} s"
    total_pass=$((total_pass + p))
    total_fail=$((total_fail + f))
    total_skip=$((total_skip + s))
}

if [ ! -x "$B/paleozoic" ]; then
    echo "tests/run.sh: $B/paleozoic is not built (make, or make SAN=1)"
    echo "0 passed, 1 failed"
    exit 1
fi

for t in "$B"/tests/*; do
    if [ ! -f "$t" ] || [ ! -x "$t" ]; then continue; fi
    case "$(basename "$t")" in
    onnx_shapes) continue ;;  # needs the test data: below
    esac
    part "unit $(basename "$t")" "$t"
done

if [ -d "$ONNX_TESTS/node" ]; then
    roots=""
    for r in node pytorch-converted pytorch-operator simple; do
        [ -d "$ONNX_TESTS/$r" ] && roots="$roots $ONNX_TESTS/$r"
    done
    # Under a sanitizer build dir (*san*) the shapes pass is left to the
    # conformance part, which loads and infers every case the same way before
    # it runs them (5 minutes saved there); PZ_SAN_SHAPES=1 runs it anyway.
    case "$(basename "$B")" in
    *san*) [ "${PZ_SAN_SHAPES:-0}" = 1 ] && san_shapes=1 || san_shapes=0 ;;
    *) san_shapes=1 ;;
    esac
    if [ "$san_shapes" = 1 ]; then
        # shellcheck disable=SC2086
        part "shapes (ONNX backend test data: $ONNX_TESTS)" "$B/tests/onnx_shapes" $roots
    else
        echo "== shapes: left to the conformance part under a sanitizer (PZ_SAN_SHAPES=1 runs it)"
    fi
    # Under a sanitizer every 2nd case (the optimized build runs them all and
    # CI's budget is an hour); PZ_TEST_FULL=1 runs every case there too.
    every=1
    case "$(basename "$B")" in *san*) [ "${PZ_TEST_FULL:-0}" = 1 ] || every=2 ;; esac
    # shellcheck disable=SC2086
    part "conformance (run in-process, rtol 1e-3, atol 1e-5)" "$B/tests/onnx_shapes" --run --every $every $roots
else
    echo "== shapes: SKIPPED: no ONNX backend test data at $ONNX_TESTS (set PZ_ONNX_TESTS)"
    total_skip=$((total_skip + 2))
fi

part "errors (malformed models)" "$ROOT/tests/errors/run_errors.sh" "$B"
front_dir=$(mktemp -d)
part "front-end inputs (external data, dtypes, several I/O, symbolic dims)" \
    /usr/bin/python3 "$ROOT/tests/front/front_cases.py" "$B" "$front_dir"
rm -rf "$front_dir"
part "models (torchvision)" "$ROOT/tests/models.sh" "$B" "$MODELS"

# More parts: every tests/parts/NN-*.sh (lib.sh is what they share), called
# as `SCRIPT BUILD_DIR MODELDIR`, each ending with a `N passed, N failed` line (in name order).
# Under a sanitizer, parts that check packaging or text rather than the
# compiler's and runtime's memory (the tree rules, installing, the progress
# line), that the conformance part covers case by case (node-cli), or that
# cannot run there (python3 does not load an ASan library) are left to the
# optimized run; PZ_TEST_FULL=1 runs the others there too.
SAN_LEFT="05-tree-rules 31-node-cli 44-install 44-progress 44-python"
for s in "$ROOT"/tests/parts/[0-9]*.sh; do
    [ -f "$s" ] || continue
    name=$(basename "$s" .sh)
    case "$(basename "$B")" in
    *san*)
        if [ "${PZ_TEST_FULL:-0}" != 1 ] && case " $SAN_LEFT " in *" $name "*) true ;; *) false ;; esac; then
            echo "== $name: left to the optimized run under a sanitizer (PZ_TEST_FULL=1 runs it)"
            continue
        fi
        ;;
    esac
    part "$name" sh "$s" "$B" "$MODELS"   # sh: a part need not be executable
done

if [ "$total_skip" -gt 0 ]; then
    echo "(skipped parts need a dependency that tools/setup.sh installs: see SKIPPED above)"
fi
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" -eq 0 ]
