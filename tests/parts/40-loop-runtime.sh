#!/bin/sh
# 40-loop-runtime.sh BUILD_DIR - a Loop whose trip count or condition is
# read at run time (issue 40): `paleozoic build` with nothing bound plans
# the body once and the program runs it per iteration, the scan outputs
# allocated at run time.
#   - the node suite's four test_range_*_expanded cases (Range written as a
#     Loop over ceil((limit - start) / delta)) build with nothing bound, the
#     header names the loop, and the program's output equals the case's;
#   - tests/e2e/loop_runtime.py's models (PyTorch scripts: a for and a while
#     loop, a list appended to then stacked, concatenated, indexed and
#     counted, convs in the body; two onnx.helper loops with scan outputs,
#     one stopped by a condition computed from the data) built once (2
#     threads) and run on 5-6 value sets,
#     counts growing and shrinking, 0 included: every output of the program
#     and of `paleozoic run` against ONNX Runtime 1.17 (and PyTorch's for the
#     PyTorch models);
#   - loops nested in a loop's body (a double for, a while inside a for,
#     and an onnx.helper loop whose inner loop's scan output feeds the
#     outer's carried value), each count 0 in some value set; a for of
#     70000 iterations with a while inside in `run` too;
#   - SplitToSequence with split sizes read at run time, with a scalar split
#     read at run time (1, 2, 4, 6, 7 for an axis of 6, and over an axis of
#     a run-time length; 0, -2 and a position past the pieces exit 2 naming
#     the check), and with no split over an
#     axis of a run-time length (a Loop over its pieces); read by
#     SequenceInsert, as a graph output, or its pieces stacked (a scalar
#     split), `build` exits 2 naming the node;
#   - carried values resized per iteration (issue 40): an onnx.helper loop
#     doubling its value by Concat, PyTorch scripts growing a tensor by
#     torch.cat in a for, a while, a for nested in a for, and shrinking one
#     by h[1:] in a for: sized at run time, in the program and in `run`,
#     against ONNX Runtime and PyTorch as above; one changing rank is
#     refused at build;
#   - carried values sized per iteration from another run-time source
#     (PyTorch scripts: h = arange(i + 1) + h.sum(), h = x.expand(i + 2, 3),
#     h = cat of a list an inner for of i + 1 iterations appends to; an
#     onnx.helper loop carrying an inner loop's scan output of i + 1), as
#     above; an Expand to a shape whose length follows the iteration (its
#     rank changes) exits 2 naming the layer in the program;
#   - n = 2^50 exits 2 naming the loop, in the program and in `run`.
# Under a sanitizer every 6th value set. Ends with `N passed, N failed`.
set -u
NAME=40-loop-runtime
. "$(dirname "$0")/lib.sh"
part_init "$@"
NODE=${PZ_ONNX_TESTS:-$ROOT/../shared/onnx-tests}/node
command -v node >/dev/null || skip_part "needs node"
every=1
[ "$san" = 1 ] && [ "$full" = 0 ] && every=6

# ins_of NAME V: the --input flags of value set V; files_of: the same files bare
ins_of() {
    k=0 r=""
    while [ -f "$T/$1.v$2.in$k.pb" ]; do r="$r --input $T/$1.v$2.in$k.pb"; k=$((k + 1)); done
    echo "$r"
}
files_of() { ins_of "$@" | sed 's/--input //g'; }

n_range=0
for dir in "$NODE"/test_range_*_expanded; do
    [ -f "$dir/model.onnx" ] || continue
    n_range=$((n_range + 1))
    c=$(basename "$dir")
    if ! "$PZ" build "$dir/model.onnx" -o "$T/r.exe" >"$T/log" 2>&1; then
        bad "$c: build failed: $(tail -c 300 "$T/log")"
        continue
    fi
    rm -rf "$T/rc"
    if "$PZ" compile "$dir/model.onnx" -o "$T/rc" >"$T/log" 2>&1; then
        check "$c: the header names the loop run at run time" \
            grep -q 'loop at run time: node ".*" (Loop)' "$T"/rc/*.c
    else
        bad "$c: compile failed: $(tail -c 300 "$T/log")"
    fi
    d=$dir/test_data_set_0
    if ! "$T/r.exe" --input "$d/input_0.pb" --input "$d/input_1.pb" --input "$d/input_2.pb" \
        --output "$T/o0.pb" >"$T/log" 2>&1 || ! clean "$T/log"; then
        bad "$c: the built program failed: $(tail -c 300 "$T/log")"
        continue
    fi
    check "$c: output equals the case's" \
        node "$E2E/compare.js" --close 1e-3 1e-5 "$T/o0.pb" "$d/output_0.pb"
done
[ "$n_range" = 4 ] || bad "found $n_range test_range_*_expanded cases, 4 expected"

[ "$have_py" = 1 ] || skip_part "needs onnx and numpy in $PY"
"$PY" "$E2E/loop_runtime.py" "$T" >"$T/log" 2>&1 || {
    bad "loop_runtime.py failed: $(tail -c 600 "$T/log")"
    finish
}
grep -q '^for ' "$T/cases.txt" || skip_one "PyTorch scripts: no torch"
while read -r name nin nout nval; do
    if ! "$PZ" build "$T/$name.onnx" --threads 2 -o "$T/$name.exe" >"$T/log" 2>&1; then
        bad "$name: build failed: $(tail -c 300 "$T/log")"
        continue
    fi
    v=0
    while [ "$v" -lt "$nval" ]; do
        [ $((v % every)) -eq 0 ] || { v=$((v + 1)); continue; }
        outs="" refs="" k=0
        while [ "$k" -lt "$nout" ]; do
            outs="$outs --output $T/o$k.pb" refs="$refs $T/ort$k.pb"
            k=$((k + 1))
        done
        # shellcheck disable=SC2086
        node "$E2E/ort_run.js" "$T/$name.onnx" $(files_of "$name" "$v") -- $refs >"$T/log" 2>&1 ||
            bad "$name value set $v: ONNX Runtime failed: $(tail -c 300 "$T/log")"
        for how in program run; do
            # shellcheck disable=SC2086
            if [ "$how" = program ]; then "$T/$name.exe" $(ins_of "$name" "$v") $outs >"$T/log" 2>&1
            else "$PZ" run "$T/$name.onnx" $(ins_of "$name" "$v") $outs >"$T/log" 2>&1; fi
            if [ $? -ne 0 ] || ! clean "$T/log"; then
                bad "$name value set $v: the $how failed: $(tail -c 300 "$T/log")"
                continue
            fi
            k=0
            while [ "$k" -lt "$nout" ]; do
                check "$name value set $v output $k ($how) = ONNX Runtime" \
                    node "$E2E/compare.js" --close 1e-4 1e-5 "$T/o$k.pb" "$T/ort$k.pb"
                [ -f "$T/$name.v$v.ref$k.pb" ] && check "$name value set $v output $k ($how) = PyTorch" \
                    node "$E2E/compare.js" --close 1e-4 1e-5 "$T/o$k.pb" "$T/$name.v$v.ref$k.pb"
                k=$((k + 1))
            done
        done
        v=$((v + 1))
    done
done <"$T/cases.txt"

# split sizes read at run time that do not add up to the axis (ONNX Runtime
# refuses them): exit 2 naming the check, no output written
if [ -f "$T/splitrt.exe" ]; then
    for v in bad bad2; do
        rm -f "$T/o0.pb"
        refuse "splitrt: split sizes of $v.in1 do not add up to 6" \
            'layer "[^"]*/split_sizes_must_add_up_to_6" (RESHAPE): \(the shape has 5 elements, X 6\|dim 0 is 7, above the planned bound 6\)' \
            "$T/splitrt.exe" --input "$T/splitrt.v0.in0.pb" --input "$T/splitrt.$v.in1.pb" --output "$T/o0.pb"
        check "splitrt: $v: nothing written" test ! -e "$T/o0.pb"
    done
else
    bad "splitrt: no built program"
fi
# a scalar split read at run time of 0 or -2, a position past the pieces
# (ONNX Runtime refuses each): exit 2 naming the check, nothing written
if [ -f "$T/splitsc.exe" ]; then
    for k in 0 1 2 3; do
        rm -f "$T/o0.pb"
        what='split/split_must_be_positive' && [ $k -ge 2 ] && what='at/position_must_be_in_the_sequence'
        refuse "splitsc: bad$k (split $k < 2: <= 0, else a position out of range)" \
            "layer \"$what\" (RESHAPE): dim 0 is 2, above the planned bound 1" \
            "$T/splitsc.exe" --input "$T/splitsc.v0.in0.pb" --input "$T/splitsc.bad$k.in1.pb" \
            --input "$T/splitsc.bad$k.in2.pb" --output "$T/o0.pb"
        check "splitsc: bad$k: nothing written" test ! -e "$T/o0.pb"
    done
else
    bad "splitsc: no built program"
fi

# a count past what a scan output can hold: exit 2 naming the loop, never a
# crash or an allocation the host cannot back
if [ -f "$T/scan.exe" ]; then
    refuse "scan: n = 2^50 in the program" 'layer "loop" (LOOP): .* iterations: scan output 0' \
        "$T/scan.exe" --input "$T/scan.v0.in0.pb" --input "$T/scan.bad.in1.pb" --output "$T/o0.pb"
    clean "$T/refuse.log" || bad "scan: sanitizer report: $(tail -c 300 "$T/refuse.log")"
    # run binds n: a count too large to unroll runs at run time too
    refuse "scan: n = 2^50 in run" 'layer "loop" (LOOP): .* iterations: scan output 0' \
        "$PZ" run "$T/scan.onnx" --input "$T/scan.v0.in0.pb" --input "$T/scan.bad.in1.pb"
    if "$PZ" compile "$T/scan.onnx" -o "$T/scan_c" >"$T/log" 2>&1; then
        check "scan: the header says the scan outputs are allocated at run time" \
            grep -q 'allocated at run time: value "hs" of node "loop" (Loop)' "$T/scan_c/scan.c"
    else
        bad "scan: compile failed: $(tail -c 300 "$T/log")"
    fi
fi
# a for of 70000 iterations (past what `run` unrolls) with a while inside,
# whose condition is computed from the data: in `run` too both loops run at
# run time, the while nested in the for's body (a sanitizer build skips it:
# 140000 body runs)
if [ -f "$T/whilein.exe" ] && [ "$san" = 0 ]; then
    big="$T/whilein.v0.in0.pb $T/whilein.big.in1.pb $T/whilein.v0.in2.pb"
    # shellcheck disable=SC2086
    node "$E2E/ort_run.js" "$T/whilein.onnx" $big -- "$T/ort0.pb" "$T/ort1.pb" >"$T/log" 2>&1 ||
        bad "whilein n = 70000: ONNX Runtime failed: $(tail -c 300 "$T/log")"
    for how in program run; do
        # shellcheck disable=SC2086
        if [ "$how" = program ]; then set -- "$T/whilein.exe"
        else set -- "$PZ" run "$T/whilein.onnx"; fi
        if "$@" $(echo " $big" | sed 's/ / --input /g') --output "$T/o0.pb" --output "$T/o1.pb" \
            >"$T/log" 2>&1 && clean "$T/log"; then
            check "whilein n = 70000 ($how) = ONNX Runtime" \
                node "$E2E/compare.js" --close 1e-4 1e-5 "$T/o0.pb" "$T/ort0.pb"
            check "whilein n = 70000 ($how): the while's count = ONNX Runtime" \
                node "$E2E/compare.js" --bitwise "$T/o1.pb" "$T/ort1.pb"
        else
            bad "whilein n = 70000: the $how failed: $(tail -c 300 "$T/log")"
        fi
    done
fi
# a nested loop's scan output sliced into the outer's carried value: with
# m = 0 its size changes, which a loop planned once cannot carry
nb="--input $T/nestbad.in0.pb --input $T/nestbad.in1.pb --input $T/nestbad.in2.pb"
if "$PZ" build "$T/nestbad.onnx" -o "$T/nestbad.exe" >"$T/log" 2>&1; then
    # shellcheck disable=SC2086
    refuse "nestbad: a carried value that changes size at run time (program)" \
        'layer "outer" (LOOP): carried value 0 changes its size at iteration 0' \
        "$T/nestbad.exe" $nb --output "$T/o0.pb"
    clean "$T/refuse.log" || bad "nestbad: sanitizer report: $(tail -c 300 "$T/refuse.log")"
else
    bad "nestbad: build failed: $(tail -c 300 "$T/log")"
fi
# shellcheck disable=SC2086
refuse "nestbad: a carried value that changes size at run time (run)" 'layer "outer/' \
    "$PZ" run "$T/nestbad.onnx" $nb --output "$T/o0.pb"
clean "$T/refuse.log" || bad "nestbad: sanitizer report in run: $(tail -c 300 "$T/refuse.log")"
# a carried Expand to a shape whose length follows the iteration: its rank
# changes. ONNX Runtime runs it; `run`, with the count bound, unrolls the
# loop and matches it; the program (one plan, one rank per value) exits 2
# naming the layer and the rank
if node "$E2E/ort_run.js" "$T/expandrank.onnx" "$T/expandrank.in0.pb" "$T/expandrank.in1.pb" \
    -- "$T/er_ref.pb" >"$T/log" 2>&1 &&
    "$PZ" run "$T/expandrank.onnx" --input "$T/expandrank.in0.pb" --input "$T/expandrank.in1.pb" \
        --output "$T/er_run.pb" >>"$T/log" 2>&1 && cmp_bit "$T/er_run.pb" "$T/er_ref.pb" >>"$T/log" 2>&1
then ok "expandrank: run (unrolled) gives ONNX Runtime's rank-changed output"
else bad "expandrank: run vs ONNX Runtime: $(tail -c 300 "$T/log")"; fi
if "$PZ" build "$T/expandrank.onnx" -o "$T/er.exe" >"$T/log" 2>&1; then
    refuse "expandrank: a carried value whose rank changes at run time (program)" \
        'layer "loop/Expand_3" (VIEW): shape has 2 entries: Y.s rank would be 2, planned 1' \
        "$T/er.exe" --input "$T/expandrank.in0.pb" --input "$T/expandrank.in1.pb" --output "$T/o0.pb"
    clean "$T/refuse.log" || bad "expandrank: sanitizer report: $(tail -c 300 "$T/refuse.log")"
else
    bad "expandrank: build failed: $(tail -c 300 "$T/log")"
fi
# a sequence split at run time where its length must be known at build
refuse "splitbad_insert: SequenceInsert into a sequence split at run time" \
    'node "ins" (SequenceInsert): input 0 .* node "split" (SplitToSequence) splits at run time' \
    "$PZ" build "$T/splitbad_insert.onnx" -o "$T/sb.exe"
refuse "splitbad_out: a sequence split at run time as a graph output" \
    'graph output "seq" is the sequence node "split" (SplitToSequence) splits at run time' \
    "$PZ" build "$T/splitbad_out.onnx" -o "$T/sb.exe"
refuse "splitbad_scalar: the pieces of a scalar split read at run time stacked" \
    'node "cat" (ConcatFromSequence): joins the pieces of node "split" (SplitToSequence), split at run time .*only joining them back into its input is supported' \
    "$PZ" build "$T/splitbad_scalar.onnx" -o "$T/sb.exe"
# carried values sized per iteration: the header says so
if "$PZ" compile "$T/grow.onnx" -o "$T/grow_c" >"$T/log" 2>&1; then
    check "grow: the header says the carried values are sized per iteration" \
        grep -q 'node "loop" (Loop): its trip count.*' "$T/grow_c/grow.c"
    check "grow: the header's line names the resizing" \
        grep -q 'the carried values sized per$' "$T/grow_c/grow.c"
else
    bad "grow: compile failed: $(tail -c 300 "$T/log")"
fi
# a Range of the iteration sizes the carried value (its guess has the size
# it goes in with): found by body_vary, sized per iteration too
if "$PZ" compile "$T/arange.onnx" -o "$T/arange_c" >"$T/log" 2>&1; then
    check "arange: the header says the carried values are sized per iteration" \
        grep -q 'the carried values sized per$' "$T/arange_c/arange.c"
else
    bad "arange: compile failed: $(tail -c 300 "$T/log")"
fi
refuse "grow: a carried value changing its rank" 'node "loop" (Loop): carried value 0 goes in as float32 2 .*(its rank changes).* of one type and rank' \
    "$PZ" build "$T/growrank.onnx" -o "$T/gr.exe"

finish
