#!/bin/sh
# run.sh [-j N] [--san-build] [--fuzz SECONDS] BUILD_DIR... - the whole test
# suite against one or more builds (build/ or, under ASan+UBSan, build-san/).
# `make test-san` runs it on build-san; `make test` and `make check` run
# tests/both.sh, which calls it with both builds, two workers, the sanitizer
# build as a job of its own and (check) the fuzzers.
#
# For each BUILD_DIR the jobs are:
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
#
# Jobs run on N workers (-j, default 1), each taking the next job of one
# queue; a job's output is shown whole when it ends. The queue lists the
# longest jobs first, so that two workers end together. A job waits for what
# it needs: the build it tests (--san-build: `make SAN=1 all` is the
# queue's first job), the build's profile, the exported models, and, for a
# part of a second build, the same part of the first (parts export models
# into MODELDIR when missing: never two writers). --fuzz S adds the fuzz
# build (`make fuzz-build`) and each libFuzzer target for S seconds.
# Any sanitizer report in a job's stderr fails that job. A part skipped
# for a missing dependency says so in its last line (`N passed, N failed,
# N skipped`) and is counted as skipped. Ends with the slowest jobs, the
# failed ones and the line `N passed, N failed, N skipped`; exits non-zero
# on any failure.
set -u

usage() { echo "usage: tests/run.sh [-j N] [--san-build] [--fuzz SECONDS] BUILD_DIR..." >&2; exit 2; }
JOBS=1 SAN_BUILD=0 FUZZ=0
while [ $# -gt 0 ]; do
    case $1 in
    -j) [ $# -ge 2 ] || usage; JOBS=$2; shift 2 ;;
    --san-build) SAN_BUILD=1; shift ;;
    --fuzz) [ $# -ge 2 ] || usage; FUZZ=$2; shift 2 ;;
    -*) usage ;;
    *) break ;;
    esac
done
[ $# -ge 1 ] || usage
case $JOBS in '' | *[!0-9]* | 0) usage ;; esac
case $FUZZ in '' | *[!0-9]*) usage ;; esac

ROOT=$(cd "$(dirname "$0")/.." && pwd)
ONNX_TESTS=${PZ_ONNX_TESTS:-$ROOT/../shared/onnx-tests}
MODELS=${PZ_MODELS:-$ROOT/build/test-models}
MAKE=${MAKE:-make}
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:abort_on_error=0:detect_stack_use_after_return=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
FIRST=$1
Q=$(mktemp -d)   # the queue: jobs, next, markers, outputs
trap 'rm -rf "$Q"' EXIT
XDG_CACHE_HOME=$Q/cache   # each build's jobs get $Q/cache.BUILD
: >"$Q/jobs"

# The parts that take longest (seconds on CI's kind of machine, both builds):
# they lead the queue. Any other part follows in name order.
HEAVY="30-e2e 40-loop-runtime 39-runtime-shapes 43-views 60-opt 45-profile 39-ml-ops
40-dynamic 36-rnn 35-knobs 42-transformer 40-sequences 40-schedule 41-quantize"
HEAVY=$(echo $HEAVY)   # one line: the lookups below match " NAME "
# Under a sanitizer, parts that check packaging or text rather than the
# compiler's and runtime's memory (the tree rules, installing, the progress
# line), that the conformance part covers case by case (node-cli), or that
# cannot run there (python3 does not load an ASan library) are left to the
# optimized run; PZ_TEST_FULL=1 runs the others there too.
SAN_LEFT="05-tree-rules 31-node-cli 44-install 44-progress 44-python"

# job ID BUILD NEEDS GIVES LABEL KIND [ARG]: appends a job to the queue.
# NEEDS: markers (comma-separated, or -) it waits for; GIVES: the marker it
# leaves when it ends (or -).
job() { echo "$1|$2|$3|$4|$5|$6|${7:-}" >>"$Q/jobs"; }

is_san() { case "$(basename "$1")" in *san*) true ;; *) false ;; esac; }

# list_build B K: the jobs of build B, the K-th build named (1 = first).
list_build() {
    b=$1 k=$2
    n=$(basename "$b")
    built=-
    [ "$SAN_BUILD" = 1 ] && is_san "$b" && built="built.$n"
    job "$n" "$b" "$built" "profile.$n" "default profile" profile
    need="profile.$n"
    mneed="$need"
    [ "$k" -gt 1 ] && mneed="$need,models"
    [ "$k" -eq 1 ] && mgive=models || mgive=-
    job "$n" "$b" "$mneed" "$mgive" "models (torchvision)" models
    if [ -d "$ONNX_TESTS/node" ]; then
        # Under a sanitizer every 3rd case (the optimized build runs them all and
        # CI's budget is an hour); PZ_TEST_FULL=1 runs every case there too.
        every=1
        is_san "$b" && [ "${PZ_TEST_FULL:-0}" != 1 ] && every=3
        job "$n" "$b" "$need" - "conformance (run in-process, rtol 1e-3, atol 1e-5)" conformance "$every"
    fi
    parts=""
    for h in $HEAVY; do [ -f "$ROOT/tests/parts/$h.sh" ] && parts="$parts $h"; done
    for s in "$ROOT"/tests/parts/[0-9]*.sh; do
        [ -f "$s" ] || continue
        p=$(basename "$s" .sh)
        case " $HEAVY " in *" $p "*) ;; *) parts="$parts $p" ;; esac
    done
    for p in $parts; do
        if is_san "$b" && [ "${PZ_TEST_FULL:-0}" != 1 ] &&
            case " $SAN_LEFT " in *" $p "*) true ;; *) false ;; esac; then
            echo "== $n: $p: left to the optimized run under a sanitizer (PZ_TEST_FULL=1 runs it)"
            continue
        fi
        pneed="$need,models"
        [ "$k" -gt 1 ] && pneed="$pneed,part.$p"
        [ "$k" -eq 1 ] && pgive="part.$p" || pgive=-
        job "$n" "$b" "$pneed" "$pgive" "$p" part "$ROOT/tests/parts/$p.sh"
    done
    if [ -d "$ONNX_TESTS/node" ]; then
        # Under a sanitizer build dir (*san*) the shapes pass is left to the
        # conformance part, which loads and infers every case the same way before
        # it runs them (5 minutes saved there); PZ_SAN_SHAPES=1 runs it anyway.
        if ! is_san "$b" || [ "${PZ_SAN_SHAPES:-0}" = 1 ]; then
            job "$n" "$b" "$need" - "shapes (ONNX backend test data: $ONNX_TESTS)" shapes
        else
            echo "== $n: shapes: left to the conformance part under a sanitizer (PZ_SAN_SHAPES=1 runs it)"
        fi
    else
        echo "== $n: shapes: SKIPPED: no ONNX backend test data at $ONNX_TESTS (set PZ_ONNX_TESTS)"
        echo "0 0 2" >"$Q/res.skipdata.$n"
    fi
    job "$n" "$b" "$need" - "errors (malformed models)" errors
    job "$n" "$b" "$need" - "front-end inputs (external data, dtypes, several I/O, symbolic dims)" front
    # the unit binaries last: many short jobs even out the workers' ends. A
    # build the queue makes has none yet: the first build's names are its.
    tdir="$b/tests"
    [ "$built" = - ] || tdir="$FIRST/tests"
    for t in "$tdir"/*; do
        [ -f "$t" ] && [ -x "$t" ] || continue
        t=$(basename "$t")
        case $t in onnx_shapes) continue ;; esac  # needs the test data: above
        job "$n" "$b" "$need" - "unit $t" unit "$b/tests/$t"
    done
}

# The queue: the sanitizer build first (it is the longest job), then each
# build's jobs, the fuzz build after the first build's, the fuzzers last.
k=0
for b in "$@"; do
    if [ "$SAN_BUILD" = 1 ] && is_san "$b"; then
        job "$(basename "$b")" "$b" - "built.$(basename "$b")" "make SAN=1 all" sanbuild
    fi
done
for b in "$@"; do
    k=$((k + 1))
    if { [ "$SAN_BUILD" = 0 ] || ! is_san "$b"; } && [ ! -x "$b/paleozoic" ]; then
        echo "tests/run.sh: $b/paleozoic is not built (make, or make SAN=1)"
        echo "0 passed, 1 failed"
        exit 1
    fi
    list_build "$b" "$k"

    # the fuzz build (one compiler at a time, as the other worker runs jobs)
    # after the first build's jobs; its runs last, long after it
    if [ "$k" -eq 1 ] && [ "$FUZZ" -gt 0 ]; then
        job fuzz - - built.fuzz "make fuzz-build" fuzzbuild
    fi
done
if [ "$FUZZ" -gt 0 ]; then
    for t in fuzz_onnx fuzz_schedule; do
        job fuzz - built.fuzz - "fuzz $t (${FUZZ} s)" fuzz "$t"
    done
fi
echo 0 >"$Q/next"

# claim: the number of the next job in the queue (empty when none is left)
claim() {
    flock "$Q/lock" sh -c '
        n=$(($(cat "$1/next") + 1)); echo "$n" >"$1/next"
        [ "$n" -le "$(wc -l <"$1/jobs")" ] && echo "$n"' _ "$Q"
}

# wait_for MARKERS: 0 when every marker is there, 1 when one of them failed
wait_for() {
    [ "$1" = - ] && return 0
    for m in $(echo "$1" | tr ',' ' '); do
        while [ ! -e "$Q/done.$m" ]; do sleep 1; done
        [ -e "$Q/failed.$m" ] && { echo "$m"; return 1; }
    done
    return 0
}

# cpu_secs FILE: the user+sys seconds of ended children in FILE, the output
# of `times` (run in the worker itself: a subshell's own count starts at 0)
cpu_secs() {
    tail -n 1 "$1" | awk '{ s = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); s += a[1] * 60 + a[2] } printf "%.0f", s }'
}

# run_job I LINE: runs job I, records "passed failed skipped" in res.I and
# prints its output whole (under print.lock), with its wall and CPU time.
run_job() {
    i=$1
    IFS='|' read -r _grp b needs gives label kind arg <<EOF
$2
EOF
    n=$(basename "$b")
    [ "$b" = - ] || label="$n: $label"
    out="$Q/out.$i" err="$Q/err.$i"
    if ! failed_need=$(wait_for "$needs"); then
        echo "== $label: not run: $failed_need failed" >"$out"
        : >"$err"
        echo "0 0 0" >"$Q/res.$i"
        { flock 9; cat "$out"; } 9>"$Q/print.lock"
        [ "$gives" = - ] || { touch "$Q/failed.$gives" "$Q/done.$gives"; }
        return
    fi
    [ "$b" = - ] || XDG_CACHE_HOME="$Q/cache.$n"
    export XDG_CACHE_HOME
    mkdir -p "$XDG_CACHE_HOME"
    t0=$(date +%s)
    times >"$Q/t0.$i"
    case $kind in
    sanbuild) $MAKE --no-print-directory SAN=1 -j1 all ;;
    fuzzbuild) $MAKE --no-print-directory -j1 fuzz-build ;;
    fuzz) "$ROOT/tests/fuzz/run_fuzz.sh" build-fuzz "$FUZZ" fresh "$arg" ;;
    # The strategies that read a profile take the cached default one. The
    # suite measures it once per build, into a cache of its own (the user's
    # stays untouched), and keeps it even when the machine is busy
    # (--allow-noisy): a busy study is never cached otherwise, and every such
    # command would measure again. Parts that test the profile itself set
    # their own XDG_CACHE_HOME.
    profile)
        "$b/paleozoic" characterize --default --cache --allow-noisy >/dev/null 2>"$Q/prof.$i" ||
            echo "the suite's default profile: $(tail -c 300 "$Q/prof.$i")"
        true ;;
    unit) "$arg" ;;
    shapes) # shellcheck disable=SC2086
        "$b/tests/onnx_shapes" $roots ;;
    conformance) # shellcheck disable=SC2086
        "$b/tests/onnx_shapes" --run --every "$arg" $roots ;;
    errors) "$ROOT/tests/errors/run_errors.sh" "$b" ;;
    front)
        front_dir=$(mktemp -d)
        /usr/bin/python3 "$ROOT/tests/front/front_cases.py" "$b" "$front_dir"
        rc=$?
        rm -rf "$front_dir"
        [ "$rc" -eq 0 ] ;;
    models) "$ROOT/tests/models.sh" "$b" "$MODELS" ;;
    part) sh "$arg" "$b" "$MODELS" ;;   # sh: a part need not be executable
    esac >"$out" 2>"$err"
    rc=$?
    secs=$(($(date +%s) - t0))
    times >"$Q/t1.$i"
    cpu=$(($(cpu_secs "$Q/t1.$i") - $(cpu_secs "$Q/t0.$i")))
    line=$(grep -E '([0-9]+) passed, ([0-9]+) failed' "$out" | tail -n 1)
    case $kind in sanbuild | fuzzbuild | profile) line= ;; esac
    if [ -n "$line" ]; then
        p=$(printf '%s\n' "$line" | awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^passed/) print $(i - 1) }')
        f=$(printf '%s\n' "$line" | awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^failed/) print $(i - 1) }')
        s=$(printf '%s\n' "$line" | awk '{ n = 0; for (i = 2; i <= NF; i++) if ($i ~ /^skipped/) n = $(i - 1); print n }')
    elif [ "$rc" -eq 0 ]; then
        p=1 f=0 s=0
    else
        p=0 f=1 s=0
    fi
    [ "$kind" = profile ] && p=0   # a measurement, not a check
    {
        flock 9
        echo "== $label"
        if [ "$kind" = sanbuild ] || [ "$kind" = fuzzbuild ]; then
            # a build's log is long: shown only when it failed
            [ "$rc" -ne 0 ] && tail -n 60 "$out"
        else
            cat "$out"
        fi
        if [ -s "$err" ]; then
            # sanitizer reports are long: show the start
            head -n 60 "$err" >&2
        fi
        if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
            echo "FAIL $label: exit code $rc without a failure counted"
            f=1
        fi
        if grep -q -E 'AddressSanitizer|LeakSanitizer|runtime error:|internal error' "$err"; then
            echo "FAIL $label: sanitizer or internal-error report on stderr"
            f=$((f + 1))
        fi
        # the wall and CPU time of each job: CI has a budget, and this shows where it goes
        echo "-- $label: ${secs} s (cpu ${cpu} s)"
        echo "$p $f $s" >"$Q/res.$i"
        [ "$f" -eq 0 ] || echo "$label" >>"$Q/failed_jobs"
        echo "$secs|$label" >"$Q/time.$i"
    } 9>"$Q/print.lock"
    if [ "$gives" != - ]; then
        [ "$f" -eq 0 ] || touch "$Q/failed.$gives"
        touch "$Q/done.$gives"
    fi
}

roots=""
for r in node pytorch-converted pytorch-operator simple; do
    [ -d "$ONNX_TESTS/$r" ] && roots="$roots $ONNX_TESTS/$r"
done

worker() {
    while i=$(claim) && [ -n "$i" ]; do
        run_job "$i" "$(sed -n "${i}p" "$Q/jobs")"
    done
}
w=0
while [ "$w" -lt "$JOBS" ]; do
    worker &
    w=$((w + 1))
done
wait

total_pass=0 total_fail=0 total_skip=0
for r in "$Q"/res.*; do
    [ -f "$r" ] || continue
    read -r p f s <"$r" 2>/dev/null || continue
    total_pass=$((total_pass + p)) total_fail=$((total_fail + f)) total_skip=$((total_skip + s))
done
if ls "$Q"/time.* >/dev/null 2>&1; then
    echo "== the slowest jobs (wall seconds)"
    cat "$Q"/time.* | sort -t'|' -k1,1nr | head -n 12 | awk -F'|' '{ printf "  %5d  %s\n", $1, $2 }'
fi
nl=$(wc -l <"$Q/jobs")
ran=$(ls "$Q"/res.* 2>/dev/null | grep -c 'res\.[0-9]')
if [ "$ran" -ne "$nl" ]; then
    echo "FAIL the queue: $ran of $nl jobs ran"
    total_fail=$((total_fail + 1))
fi
if [ -s "$Q/failed_jobs" ]; then
    echo "== failed:"
    sed 's/^/  /' "$Q/failed_jobs"
fi
if [ "$total_skip" -gt 0 ]; then
    echo "(skipped parts need a dependency that tools/setup.sh installs: see SKIPPED above)"
fi
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" -eq 0 ]
