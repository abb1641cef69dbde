#!/bin/sh
# 33-control-flow.sh BUILD_DIR MODELDIR - If, Loop and Scan (issue 40):
# models written by tests/e2e/control_flow.py (PyTorch scripted modules and
# onnx.helper graphs; its header lists them) on seeded inputs. Mode "run":
# `paleozoic run` and the program `paleozoic build` makes each match ONNX
# Runtime 1.17 (max|err|/max|ref| <= 1e-4). Mode "bound": `paleozoic run
# --input` matches ONNX Runtime (the If condition is bound from the input).
# Mode "refuse": exit 2 with a message naming the node. Ends with
# `N passed, N failed`.
set -u
NAME=33-control-flow
. "$(dirname "$0")/lib.sh"
part_init "$@"
[ "$have_ort" = 1 ] && "$PY" -c 'import onnx, torch' 2>/dev/null ||
    skip_part "needs onnxruntime-node, python3-onnx and python3-torch (tools/setup.sh)"
if ! "$PY" "$E2E/control_flow.py" "$T" >"$T/log" 2>&1; then
    bad "control_flow.py failed: $(tail -c 600 "$T/log")"
    finish
fi
while read -r name nin nout mode model; do
    model=${model:-$name}   # cases of one model share its file and its program
    # under a sanitizer, a sample of the Ifs whose branch not taken would fail
    # and of the Ifs beside a fusion
    case "$san$full:$name" in
    10:if_skip_gather_f | 10:if_skip_reshape_tf | 10:if_fused_t | 10:if_select_whole_b) continue ;;
    esac
    ins="" inargs="" refs="" runs="" exes=""
    k=0
    while [ "$k" -lt "$nin" ]; do
        ins="$ins $T/$name.in$k.pb"
        inargs="$inargs --input $T/$name.in$k.pb"
        k=$((k + 1))
    done
    k=0
    while [ "$k" -lt "$nout" ]; do
        refs="$refs $T/$name.ref$k.pb"
        runs="$runs $T/$name.run$k.pb"
        exes="$exes $T/$name.exe$k.pb"
        k=$((k + 1))
    done
    if [ "$mode" = refuse ]; then
        # shellcheck disable=SC2086
        "$PZ" run "$T/$model.onnx" $inargs >"$T/log" 2>&1
        rc=$?
        if [ "$rc" -eq 2 ] && grep -q 'node "' "$T/log"; then ok
        else bad "$name: expected exit 2 naming the node, got $rc: $(tail -c 300 "$T/log")"; fi
        continue
    fi
    # shellcheck disable=SC2086
    if ! node "$E2E/ort_run.js" "$T/$model.onnx" $ins -- $refs >"$T/log" 2>&1; then
        bad "$name: ONNX Runtime failed: $(tail -c 300 "$T/log")"
        continue
    fi
    outargs=""
    for r in $runs; do outargs="$outargs --output $r"; done
    # shellcheck disable=SC2086
    if ! "$PZ" run "$T/$model.onnx" $inargs $outargs >"$T/log" 2>&1; then
        bad "$name: paleozoic run failed: $(tail -c 300 "$T/log")"
        continue
    fi
    set -- $refs
    for r in $runs; do
        if cmp_rel "$r" "$1" >"$T/log" 2>&1; then ok
        else bad "$name: run vs ONNX Runtime ($r): $(cat "$T/log")"; fi
        shift
    done
    [ "$mode" = run ] || continue
    outargs=""
    for r in $exes; do outargs="$outargs --output $r"; done
    # shellcheck disable=SC2086
    if { [ -x "$T/$model.exe" ] || "$PZ" build "$T/$model.onnx" -o "$T/$model.exe" >"$T/log" 2>&1; } &&
        "$T/$model.exe" $inargs $outargs >"$T/log" 2>&1; then
        set -- $refs
        for r in $exes; do
            if cmp_rel "$r" "$1" >"$T/log" 2>&1; then ok
            else bad "$name: built program vs ONNX Runtime ($r): $(cat "$T/log")"; fi
            shift
        done
    else
        bad "$name: build or the built program failed: $(tail -c 300 "$T/log")"
    fi
done <"$T/cases.txt"
# The branch not taken did not run: --profile lists its layers as skipped,
# the taken one's as run, in `run` and in the built program. CASE:OFF:ON:N:H,
# OFF and ON the names of N layers of each branch less a trailing digit, H
# the layers skipped in all (if_fused: the condition a Gemm's epilogue writes).
skips="if_skip_gather_t:egather:tgather:1:2 if_skip_gather_f:tgather:egather:1:2
if_fused_t:econv:tconv:3:3 if_fused_f:tconv:econv:3:3"
[ "$san$full" = 10 ] && skips="if_skip_gather_t:egather:tgather:1:2 if_fused_f:tconv:econv:3:3"
for e in $skips; do
    n=${e%%:*} rest=${e#*:}
    off=${rest%%:*} rest=${rest#*:}
    on=${rest%%:*} rest=${rest#*:}
    k=${rest%%:*} h=${rest#*:}
    model=${n%_*}
    in=""
    for f in "$T/$n".in*.pb; do in="$in --input $f"; done
    # shellcheck disable=SC2086
    for how in "$PZ run $T/$model.onnx" "$T/$model.exe"; do
        $how $in --profile >"$T/prof" 2>&1
        if [ "$(grep -c "pick/[a-z]*/$off[0-9]* .*skipped (an If branch not taken)" "$T/prof")" = "$k" ] &&
            [ "$(grep "pick/[a-z]*/$on[0-9]* " "$T/prof" | grep -vc skipped)" = "$k" ] &&
            grep -q ", $h skipped by the last run" "$T/prof"; then ok
        else bad "$n: ${how%% *} --profile does not list $off as skipped, $on as run: $(cat "$T/prof")"
        fi
    done
done
# inspect: the four layers of the two branches run only when theirs is taken
k=$("$PZ" inspect "$T/if_skip_gather.onnx" --strategy none 2>&1 |
    grep -c "pick/.*: runs only when its If branch is taken")
if [ "$k" = 4 ]; then ok
else bad "inspect lists $k layers of if_skip_gather as run only in their branch, expected 4"; fi
echo "control-flow: $((pass + fail)) checks over $(wc -l <"$T/cases.txt") models"
finish
