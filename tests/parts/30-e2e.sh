#!/bin/sh
# 30-e2e.sh BUILD_DIR MODELDIR - the code generator end to end: `paleozoic
# build`, the executable it makes, and its outputs against ONNX Runtime 1.17
# (onnxruntime-node), PyTorch's saved outputs and `paleozoic run`.
#
#   nets       the six torchvision networks (MODELDIR/NAME.onnx, NAME.input.pb,
#              NAME.torch.pb): one build each (MP 2), run at --threads 1 and 2:
#              vs ORT max|err|/max|ref| <= 1e-4 and the same top-5; vs PyTorch
#              the same; bitwise equal to `paleozoic run` at the same threads.
#              Batch 4 (the model rewritten with a symbolic batch dim,
#              tests/e2e/dynbatch.js): built with --batch 4, vs ORT and `run`
#              (ResNet-18, AlexNet, MobileNetV2; PZ_TEST_FULL=1: all six).
#   raw        --emit raw for resnet18 and mobilenet_v2 vs ORT
#   loc        `compile --loc`: default <= 25% of raw's lines of code, each net
#   warnings   NAME.c and main.c of both forms with gcc and clang, -Werror
#   instances  two instances of one program running at once (two_instances.c)
#   profile    --profile prints blocks and layers; --profile-json is a valid trace
#   errors     wrong input shape/type, wrong weights: exit 2, a message naming it;
#              a failing build leaves nothing behind
#   valgrind   a small generated program: no errors, no leaks
#   onnx       the pytorch-converted, pytorch-operator and simple cases of the
#              ONNX test data built and run (rtol 1e-3, atol 1e-5); a case that
#              `paleozoic run` cannot run either is skipped, with its reason;
#              inputs that build binds (their values shape the graph) are not
#              passed to the program; under a sanitizer every 4th case
#              (PZ_E2E_ONNX_ALL=1: all)
# PZ_E2E_NETS overrides the list of nets. Under a sanitizer build dir (*san*),
# the executables link the sanitized runtime; VGG-16/19, ResNet-50 and
# AlexNet (PZ_TEST_FULL=1 keeps AlexNet) are skipped there (minutes each under ASan), and so is valgrind (it cannot run
# ASan programs). Ends with `N passed, N failed`.
set -u
NAME=30-e2e
. "$(dirname "$0")/lib.sh"
part_init "$@"
M=$(cd "$M" 2>/dev/null && pwd || echo "$M")
ONNX_TESTS=${PZ_ONNX_TESTS:-$ROOT/../shared/onnx-tests}

[ "$have_ort" = 1 ] || skip_one "the ONNX Runtime comparisons: node or node_modules/onnxruntime-node missing (tools/setup.sh)"
NETS=${PZ_E2E_NETS:-resnet18 resnet50 vgg16 vgg19 alexnet mobilenet_v2}
[ "$san" = 1 ] && [ "$full" != 1 ] && [ -z "${PZ_E2E_NETS:-}" ] && NETS="mobilenet_v2" &&
    echo "e2e: sanitizer build: nets $NETS only (the others take minutes each under ASan and run the same kernels; PZ_TEST_FULL=1 runs ResNet-18, AlexNet and MobileNetV2)"
[ "$san" = 1 ] && [ "$full" = 1 ] && [ -z "${PZ_E2E_NETS:-}" ] && NETS="resnet18 alexnet mobilenet_v2"
# batch 4 on the nets that load fast (ONNX Runtime takes 10 s to load a VGG);
# PZ_TEST_FULL=1: all of them
B4_NETS="resnet18 alexnet mobilenet_v2"
[ "$full" = 1 ] && B4_NETS=$NETS

# ---- the six networks ------------------------------------------------------
for n in $NETS; do
    if [ ! -f "$M/$n.onnx" ] || [ ! -f "$M/$n.input.pb" ]; then
        skip_one "$n: $M/$n.onnx or its input is missing (tests/models.sh exports them)"
        continue
    fi
    d="$T/$n"
    mkdir -p "$d"
    in="$M/$n.input.pb"
    if ! "$PZ" build "$M/$n.onnx" -o "$d/$n" --threads 2 >"$T/log" 2>&1; then
        bad "$n: build: $(tail -c 600 "$T/log")"
        continue
    fi
    ok
    [ "$have_ort" = 1 ] && node "$E2E/ort_run.js" "$M/$n.onnx" "$in" -- "$d/ort.pb" 2>"$T/log" || { [ "$have_ort" = 1 ] && bad "$n: ORT failed: $(cat "$T/log")"; }
    for th in 1 2; do
        if ! "$d/$n" --input "$in" --output "$d/out$th.pb" --threads "$th" >"$T/log" 2>&1; then
            bad "$n --threads $th: the executable failed: $(tail -c 600 "$T/log")"
            continue
        fi
        ok
        [ "$have_ort" = 1 ] && check "$n --threads $th vs ORT" cmp_rel --top 5 "$d/out$th.pb" "$d/ort.pb"
        [ -f "$M/$n.torch.pb" ] && check "$n --threads $th vs PyTorch" cmp_rel --top 5 "$d/out$th.pb" "$M/$n.torch.pb"
        if "$PZ" run "$M/$n.onnx" --input "$in" --output "$d/run$th.pb" --threads "$th" >"$T/log" 2>&1; then
            check "$n --threads $th bitwise vs paleozoic run" cmp_bit "$d/out$th.pb" "$d/run$th.pb"
        else
            bad "$n: paleozoic run --threads $th failed: $(tail -c 300 "$T/log")"
        fi
    done
    # batch 4: the same network with a symbolic batch dim
    if [ "$have_ort" = 1 ] && case " $B4_NETS " in *" $n "*) true ;; *) false ;; esac; then
        node "$E2E/dynbatch.js" "$M/$n.onnx" "$d/dyn.onnx" "$in" 4 "$d/in4.pb"
        node "$E2E/ort_run.js" "$d/dyn.onnx" --threads 2 "$d/in4.pb" -- "$d/ort4.pb" 2>"$T/log" || bad "$n batch 4: ORT failed: $(cat "$T/log")"
        if "$PZ" build "$d/dyn.onnx" --batch 4 --threads 2 -o "$d/b4" >"$T/log" 2>&1 &&
            "$d/b4" --input "$d/in4.pb" --output "$d/out4.pb" >"$T/log" 2>&1; then
            ok
            check "$n batch 4 vs ORT" cmp_rel --top 5 "$d/out4.pb" "$d/ort4.pb"
            if "$PZ" run "$d/dyn.onnx" --batch 4 --threads 2 --input "$d/in4.pb" --output "$d/run4.pb" >"$T/log" 2>&1; then
                check "$n batch 4 bitwise vs paleozoic run" cmp_bit "$d/out4.pb" "$d/run4.pb"
            else
                bad "$n batch 4: paleozoic run failed: $(tail -c 300 "$T/log")"
            fi
        else
            bad "$n batch 4: build or run failed: $(tail -c 600 "$T/log")"
        fi
        rm -f "$d/b4" "$d/b4.weights" "$d/dyn.onnx"
    fi
    # lines of code: the default emission <= 25% of --emit raw (Table 5)
    if "$PZ" compile "$M/$n.onnx" --loc >"$T/loc" 2>&1; then
        echo "e2e: $(cat "$T/loc")"
        pct=$(sed -n 's/.*default\/raw \([0-9.]*\)%.*/\1/p' "$T/loc")
        if [ -n "$pct" ] && awk "BEGIN { exit !($pct <= 25) }"; then ok; else bad "$n: lines of code: $(cat "$T/loc")"; fi
    else
        bad "$n: compile --loc: $(cat "$T/loc")"
    fi
    rm -f "$d/$n.weights"
done

# ---- --emit raw --------------------------------------------------------------
for n in resnet18 mobilenet_v2; do
    [ -f "$M/$n.onnx" ] && [ "$have_ort" = 1 ] && [ -f "$T/$n/ort.pb" ] || continue
    d="$T/$n"
    if "$PZ" build "$M/$n.onnx" --emit raw --threads 2 -o "$d/raw" >"$T/log" 2>&1 &&
        "$d/raw" --input "$M/$n.input.pb" --output "$d/raw.pb" >"$T/log" 2>&1; then
        ok
        check "$n --emit raw vs ORT" cmp_rel --top 5 "$d/raw.pb" "$d/ort.pb"
    else
        bad "$n --emit raw: build or run failed: $(tail -c 600 "$T/log")"
    fi
    rm -f "$d/raw" "$d/raw.weights"
done

# ---- small programs: warnings, two instances, profile, errors, valgrind ------
SMALL="$T/small.onnx"
if "$PZ" zoo alexnet -o "$SMALL" >/dev/null 2>&1; then
    for form in default raw; do
        d="$T/src-$form"
        if ! "$PZ" compile "$SMALL" -o "$d" --emit "$form" --threads 2 --name small >"$T/log" 2>&1; then
            bad "compile --emit $form: $(cat "$T/log")"
            continue
        fi
        ok
        for cc in gcc clang; do
            command -v "$cc" >/dev/null || { echo "e2e: SKIPPED $cc warnings: no $cc"; continue; }
            check "$form form builds warning-free with $cc -Wall -Wextra -Werror" \
                make -s -C "$d" -B CC="$cc" CFLAGS="-O1 -Werror -pedantic-errors -Wno-error=overlength-strings"
        done
        grep -q '"features.0"' "$d/small.c" && grep -q 'static const int' "$d/small.c" ||
            bad "$form form: small.c does not name the ONNX nodes or lacks the schedule constants"
    done
    d="$T/src-default"
    if [ -x "$d/small" ]; then
        check "two instances of one program at once" sh -c "cc -O1 -DNET=small -DNET_UP=SMALL -I'$d' -I'$B/include' \
            '$E2E/two_instances.c' '$d/small.c' '$B/libpzio.a' '$B/libpzrt.a' $(cat "$B/sdk.flags") -lm -lpthread -o '$T/two' && '$T/two' '$d/small.weights'"
        "$d/small" --profile --profile-json "$T/trace.json" >"$T/prof" 2>&1
        if grep -q "^ *block" "$T/prof" && grep -q " features.0 " "$T/prof" &&
            node -e "const t=JSON.parse(require('fs').readFileSync('$T/trace.json'));
                     const x=t.traceEvents.filter(e=>e.ph==='X');
                     if (!x.some(e=>e.cat==='block') || !x.some(e=>e.name==='features.0')) process.exit(1)"; then
            ok
        else
            bad "--profile / --profile-json: $(head -c 400 "$T/prof")"
        fi
        # with --repeat, the profile prints medians over the runs
        "$d/small" --repeat 7 --profile >"$T/prof7" 2>&1
        n7=$(sed -n 's/.*; medians of the last \([0-9]*\) runs$/\1/p' "$T/prof7")
        if [ -n "$n7" ] && [ "$n7" -ge 7 ] && [ "$n7" -le 9 ] && grep -q " features.0 " "$T/prof7"; then
            ok
        else
            bad "--repeat 7 --profile: no line 'medians of the last N runs' with N in 7..9: $(head -c 400 "$T/prof7")"
        fi
        # a wrong input: exit 2, the message names the input
        node -e "require('$E2E/tensorproto').writeTensor('$T/wrong.pb','x',1,[1,3,225,224],new Float32Array(3*225*224))"
        "$d/small" --input "$T/wrong.pb" >"$T/log" 2>&1
        rc=$?
        if [ "$rc" = 2 ] && grep -q 'paleozoic: error: .*input "input" wants float32 \[1,3,224,224\]' "$T/log"; then ok
        else bad "wrong input shape: exit $rc: $(cat "$T/log")"; fi
        node -e "require('$E2E/tensorproto').writeTensor('$T/wrong.pb','x',7,[1,3,224,224],new BigInt64Array(3*224*224))"
        "$d/small" --input "$T/wrong.pb" >"$T/log" 2>&1
        rc=$?
        if [ "$rc" = 2 ] && grep -q 'input "input" wants float32.*holds int64' "$T/log"; then ok
        else bad "wrong input type: exit $rc: $(cat "$T/log")"; fi
        # weights of another model
        "$PZ" zoo resnet18 -o "$T/rn.onnx" >/dev/null 2>&1 && "$PZ" compile "$T/rn.onnx" -o "$T/rn" >/dev/null 2>&1
        "$d/small" --weights "$T/rn/rn.weights" >"$T/log" 2>&1
        rc=$?
        if [ "$rc" = 2 ] && grep -q 'belong to another model' "$T/log"; then ok
        else bad "weights of another model: exit $rc: $(cat "$T/log")"; fi
        rm -rf "$T/rn" "$T/rn.onnx"
        # a truncated weights file
        head -c 100000 "$d/small.weights" >"$T/cut.weights"
        "$d/small" --weights "$T/cut.weights" >"$T/log" 2>&1
        rc=$?
        if [ "$rc" = 2 ] && grep -q 'cut.weights: truncated or corrupt' "$T/log"; then ok
        else bad "truncated weights: exit $rc: $(cat "$T/log")"; fi
        # a failing build (the C compiler fails) leaves nothing behind
        mkdir -p "$T/fb"
        CC=false "$PZ" build "$SMALL" -o "$T/fb/x" >"$T/log" 2>&1
        rc=$?
        if [ "$rc" != 0 ] && [ -z "$(ls -A "$T/fb")" ] && grep -q "paleozoic: error: the C compiler failed" "$T/log"; then ok
        else bad "failing build: exit $rc, left: $(ls -A "$T/fb"): $(cat "$T/log")"; fi
        printf 'not a model' >"$T/bad.onnx"
        "$PZ" compile "$T/bad.onnx" -o "$T/fb/dir" >"$T/log" 2>&1
        rc=$?
        if [ "$rc" = 2 ] && [ ! -e "$T/fb/dir/bad.c" ] && grep -q "paleozoic: error:" "$T/log"; then ok
        else bad "malformed model: compile exit $rc: $(cat "$T/log")"; fi
        # valgrind: a small program, 2 threads, no errors and no leaks (built without
        # -march=native: valgrind does not decode AVX-512; the runtime picks its
        # kernels by CPUID, which valgrind reports without it)
        if [ "$san" = 1 ]; then
            echo "e2e: SKIPPED valgrind: it cannot run ASan-linked programs"
        elif command -v valgrind >/dev/null; then
            "$PZ" zoo mobilenet_v2 -o "$T/mb.onnx" >/dev/null 2>&1
            check "valgrind clean on a generated program (mobilenet_v2, 2 threads)" sh -c \
                "CFLAGS='-O1 -g' '$PZ' build '$T/mb.onnx' -o '$T/mb' --threads 2 >/dev/null &&
                 valgrind -q --error-exitcode=9 --leak-check=full --show-leak-kinds=all \
                     --errors-for-leak-kinds=all '$T/mb' --top 1"
            rm -f "$T/mb" "$T/mb.weights" "$T/mb.onnx"
        else
            echo "e2e: SKIPPED valgrind: not installed"
        fi
    fi
else
    bad "paleozoic zoo alexnet failed"
fi

# ---- the ONNX test data: pytorch-converted, pytorch-operator, simple ---------
onnx_pass=0 onnx_skip=0
if [ -d "$ONNX_TESTS/node" ]; then
    skipped="$T/skipped"
    : >"$skipped"
    # under a sanitizer every 8th case (each build compiles a program against
    # the sanitized runtime; the optimized run covers them all), unless
    # PZ_E2E_ONNX_ALL=1
    every=1
    [ "$san" = 1 ] && [ -z "${PZ_E2E_ONNX_ALL:-}" ] && every=8
    idx=0
    for root in pytorch-converted pytorch-operator simple; do
        for c in "$ONNX_TESTS/$root"/*/; do
            c=${c%/}
            [ -f "$c/model.onnx" ] && [ -d "$c/test_data_set_0" ] || continue
            idx=$((idx + 1))
            [ $((idx % every)) -eq 0 ] || continue
            name="$root/$(basename "$c")"
            ins=$(ls "$c/test_data_set_0"/input_*.pb 2>/dev/null | sort -t_ -k3 -n)
            inargs=""
            for f in $ins; do inargs="$inargs --input $f"; done
            outs=$(ls "$c/test_data_set_0"/output_*.pb 2>/dev/null | sort -t_ -k3 -n)
            # what `paleozoic run` cannot run is skipped, with its reason
            # shellcheck disable=SC2086
            if ! "$PZ" run "$c/model.onnx" $inargs >/dev/null 2>"$T/log"; then
                echo "$name: $(head -n 1 "$T/log")" >>"$skipped"
                onnx_skip=$((onnx_skip + 1))
                continue
            fi
            # shellcheck disable=SC2086
            if ! "$PZ" build "$c/model.onnx" $inargs -o "$T/case" >"$T/log" 2>&1; then
                # generated programs take no string tensors (README: strings):
                # refused by name, counted with the skipped
                if grep -q 'is a string tensor: generated programs do not take string' "$T/log"; then
                    echo "$name: build: $(grep 'error:' "$T/log" | head -n 1)" >>"$skipped"
                    onnx_skip=$((onnx_skip + 1))
                    continue
                fi
                bad "onnx $name: build: $(tail -c 400 "$T/log")"
                continue
            fi
            # inputs whose values build bound (a Reshape or Expand shape): the
            # program does not take them; a data set with other values for
            # them needs another build, so it is not run
            bound=$(sed -n 's/^paleozoic: --input \(.*\): its value is built into the program.*/\1/p' "$T/log")
            good=1
            for ds in "$c"/test_data_set_*; do
                ins=$(ls "$ds"/input_*.pb 2>/dev/null | sort -t_ -k3 -n)
                outs=$(ls "$ds"/output_*.pb 2>/dev/null | sort -t_ -k3 -n)
                args="" k=0 same=1
                for f in $ins; do
                    f0="$c/test_data_set_0/$(basename "$f")"
                    if printf '%s\n' "$bound" | grep -qxF "$f0"; then
                        cmp -s "$f" "$f0" || same=0
                        continue
                    fi
                    args="$args --input $f"
                done
                [ "$same" = 1 ] || continue
                for f in $outs; do args="$args --output $T/got$k.pb"; k=$((k + 1)); done
                # shellcheck disable=SC2086
                if ! "$T/case" $args >"$T/log" 2>&1; then
                    bad "onnx $name $(basename "$ds"): $(tail -c 400 "$T/log")"
                    good=0
                    break
                fi
                k=0
                for f in $outs; do
                    if ! node "$E2E/compare.js" --close 1e-3 1e-5 "$T/got$k.pb" "$f" >"$T/log" 2>&1; then
                        bad "onnx $name $(basename "$ds"): $(cat "$T/log")"
                        good=0
                    fi
                    k=$((k + 1))
                done
            done
            [ "$good" = 1 ] && ok && onnx_pass=$((onnx_pass + 1))
            rm -f "$T/case" "$T/case.weights"
        done
    done
    echo "e2e: ONNX test data: $onnx_pass cases built and matched, $onnx_skip skipped (paleozoic run cannot run them either, or string I/O, which programs do not take):"
    sed 's/^/  skipped /' "$skipped" | cut -c1-160
else
    skip_one "the ONNX test data: none at $ONNX_TESTS"
fi

finish
