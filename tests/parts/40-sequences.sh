#!/bin/sh
# 40-sequences.sh BUILD_DIR - sequences and optionals as graph inputs and
# outputs of built programs (issue 40). Every case of the ONNX node suite
# whose model has a sequence or an optional graph input or output is built
# (`paleozoic build CASE --input ...`: the case's inputs fix a sequence's
# length and an optional's presence) and run on its inputs, each output
# checked against the case's own output_N.pb (SequenceProto / OptionalProto
# element by element, tests/e2e/node_suite_cli.js --build --containers):
# all must pass, none refused. Then the cases with a sequence of 2 or more
# tensors built from it cut to one tensor, run on their own inputs (another
# length: planned at run time, pz_replan_run), against their outputs. Then bad
# inputs to a built program exit 2 naming the input, writing nothing (a tensor
# where a sequence is wanted and the reverse, another element type, another
# length where the build bound an input, an optional present where the build
# had it empty and the reverse, a file that is no protobuf); a program on 4
# tensors and on none writes what `run` writes, and its compiled directory's
# Makefile links what it needs; `build` refuses
# a sequence input without an example and one of the wrong kind, leaving
# nothing behind; and the C API: examples/model_lib/run_model.c linked to
# the model's --lib .so writes the same bytes as the executable. A program
# built with --batch 2 (and --strategy dlfusion --target) replans another
# length with them: y at batch 2 equal to ONNX Runtime's, x of batch 1 refused.
# Under a sanitizer every 4th node case (all with PZ_TEST_FULL=1).
# Ends with `N passed, N failed`.
set -u
NAME=40-sequences
. "$(dirname "$0")/lib.sh"
part_init "$@"
NODE=${PZ_ONNX_TESTS:-$ROOT/../shared/onnx-tests}/node
[ -d "$NODE" ] && command -v node >/dev/null || skip_part "needs node and the ONNX node suite ($NODE)"
every=$((san && !full ? 4 : 1))   # under a sanitizer, a quarter of the node cases

# ---- the node suite's cases with sequence or optional graph I/O -------------
out=$(node "$E2E/node_suite_cli.js" "$PZ" "$NODE" --build --containers --every "$every")
printf '%s\n' "$out" | grep -E '^(WRONG|CRASHED)' | head -n 40
line=$(printf '%s\n' "$out" | tail -n 1)
echo "$line"
set -- $line   # node suite (build+containers): P passed, R refused, W wrong, C crashed
p=$4 r=$6 w=$8 c=${10}
pass=$((pass + p))
[ "$r" -eq 0 ] || bad "$r node cases refused: $(printf '%s\n' "$out" | sed -n '/^refused, by reason/,$p' | head -n 8 | tr '\n' ' ')"
[ $((w + c)) -eq 0 ] || fail=$((fail + w + c))
# the suite holds 29 such cases (onnx 1.17's node tests): a filter that
# found fewer would pass vacuously
floor=$(( (29 + every - 1) / every ))
[ "$p" -ge "$floor" ] && ok || bad "only $p node cases passed, $floor expected"

# ---- another length than the build's: planned at run time (pz_replan_run) -------
# every case with an input holding a sequence of 2 or more tensors (15 in onnx
# 1.17), built from that sequence cut to its first tensor and run on the case's
# own inputs (another length, other element shapes), checked against the
# case's outputs; the one whose build binds an input (test_sequence_insert_at_front:
# its position is built in) keeps the build's length and says so. A half of them
# (all with PZ_TEST_FULL=1, an eighth under a sanitizer).
oevery=$((full ? 1 : san ? 8 : 2))
out=$(node "$E2E/node_suite_cli.js" "$PZ" "$NODE" --build --containers --other-length --every "$oevery")
printf '%s\n' "$out" | grep -E '^(WRONG|CRASHED)' | head -n 20
line=$(printf '%s\n' "$out" | tail -n 1)
echo "$line"
set -- $line   # node suite (build+containers+other-length): P passed, R refused, W wrong, C crashed
p=$4 w=$8 c=${10}
pass=$((pass + p))
[ $((w + c)) -eq 0 ] || fail=$((fail + w + c))
other=$(printf '%s\n' "$out" | sed -n '/^refused, by reason/,/^node suite/p' | sed '1d;$d' |
    grep -v '(e.g. test_sequence_insert_at_front)$')
[ -z "$other" ] && ok || bad "other-length refusals: $other"
floor=$(( (15 + oevery - 1) / oevery - 1 ))
[ "$p" -ge "$floor" ] && ok || bad "other-length: only $p cases passed, $floor expected"

# ---- bad inputs to a built program -------------------------------------------
S=$NODE/test_sequence_insert_at_back/test_data_set_0   # in: sequence (3 int64), tensor
SF=$NODE/test_sequence_insert_at_front/test_data_set_0   # its position is bound at build
F=$NODE/test_sequence_map_identity_1_sequence/test_data_set_0/input_0.pb   # 3 float32 [10]
OE=$NODE/test_optional_has_element_empty_optional_input
OP=$NODE/test_optional_has_element_optional_input
OS=$NODE/test_optional_get_element_optional_sequence
check "build a sequence model" "$PZ" build "$S/../model.onnx" --input "$S/input_0.pb" \
    --input "$S/input_1.pb" -o "$T/seq"
refuse "a tensor where a sequence is wanted" 'input "sequence".*holds a tensor' \
    "$T/seq" --input "$S/input_1.pb" --input "$S/input_1.pb"
refuse "a sequence where a tensor is wanted" 'holds a sequence or an optional' \
    "$T/seq" --input "$S/input_0.pb" --input "$S/input_0.pb"
refuse "a sequence of another element type" 'input "sequence" holds int64 tensors, the file.s tensor 0 is float32 \[10\]' \
    "$T/seq" --input "$F" --input "$S/input_1.pb" --output "$T/bad.pb"
[ ! -e "$T/bad.pb" ] && ok || bad "a refused input left its --output file"
check "build a model whose input is bound" "$PZ" build "$SF/../model.onnx" --input "$SF/input_0.pb" \
    --input "$SF/input_1.pb" --input "$SF/input_2.pb" -o "$T/front"
refuse "a bound input: a sequence of another length" 'input "sequence" is a sequence of 3 tensors.*holds a sequence of 4' \
    "$T/front" --input "$SF/output_0.pb" --input "$SF/input_1.pb"

# the program built at 3 tensors, run on 4 and on none: the bytes `paleozoic
# run` writes, and (independently) the tensor inserted after the given ones
printf '\020\001' >"$T/empty.pb"   # a SequenceProto of no tensor: elem_type 1
for x in output_0 empty; do
    [ "$x" = empty ] && xin=$T/empty.pb || xin=$S/$x.pb
    check "another length ($x): the program" "$T/seq" --input "$xin" --input "$S/input_1.pb" \
        --output "$T/o_$x.pb" --threads 1
    check "another length ($x): run" "$PZ" run "$S/../model.onnx" --input "$xin" \
        --input "$S/input_1.pb" --output "$T/r_$x.pb" --threads 1
    cmp -s "$T/o_$x.pb" "$T/r_$x.pb" && ok || bad "another length ($x): the program and run differ"
    check "another length ($x): the given tensors, then the inserted one" node -e "
        const {readValue} = require('$E2E/tensorproto.js');
        const s = v => JSON.stringify(v.tensors.map(t => [t.dtype, t.dims, Array.from(t.data, String)]));
        const got = readValue('$T/o_$x.pb'), seq = readValue('$xin'), t = readValue('$S/input_1.pb');
        const want = {tensors: [...seq.tensors, ...t.tensors]};
        if (!got.container || s(got) !== s(want)) { console.log(s(got), s(want)); process.exit(1); }"
done
# SequenceLength, ConcatFromSequence and SequenceAt(-1) of a graph input built
# at 2 tensors, run at 1, 2 (other shapes) and 4, against numpy's results
if [ "$have_py" = 1 ]; then
    check "seq_models.py" "$PY" "$E2E/seq_models.py" "$T/sm"
    check "build seqlen at 2 tensors" "$PZ" build "$T/sm/seqlen.onnx" --input "$T/sm/ex.pb" -o "$T/sm/exe"
    for k in 1 2 4; do
        check "seqlen at $k tensors" sh -c "'$T/sm/exe' --input '$T/sm/in_$k.pb' --output '$T/sm/len.pb' \
            --output '$T/sm/cat.pb' --output '$T/sm/last.pb' --threads 1 && node '$E2E/compare.js' --bitwise \
            '$T/sm/len.pb' '$T/sm/ref_${k}_len.pb' '$T/sm/cat.pb' '$T/sm/ref_${k}_cat.pb' \
            '$T/sm/last.pb' '$T/sm/ref_${k}_last.pb'"
    done
    # the build's knobs after a replan: a program built at 2 tensors with a
    # precision and a strategy runs 3 with them (said on stderr, in NAME.h),
    # bit for bit what `run` gives with the same knobs, near numpy's float32,
    # and (bf16) not within float32's error of it: the precision was taken
    for kn in "bf16 fuse-all" "int8-dynamic fixed-mp:1"; do
        set -- $kn
        check "seqmm --precision $1 --strategy $2" sh -c "'$PZ' build '$T/sm/seqmm.onnx' \
            --input '$T/sm/mm_ex.pb' --precision $1 --strategy $2 -o '$T/sm/mm_$1' 2>/dev/null &&
            '$T/sm/mm_$1' --input '$T/sm/mm_in_3.pb' --output '$T/sm/mm_$1.pb' --threads 1 2>'$T/sm/log_$1' &&
            grep -q 'planned now, strategy $2, precision $1\$' '$T/sm/log_$1' &&
            '$PZ' run '$T/sm/seqmm.onnx' --input '$T/sm/mm_in_3.pb' --precision $1 --strategy $2 \
            --output '$T/sm/mm_run_$1.pb' --threads 1 && cmp '$T/sm/mm_$1.pb' '$T/sm/mm_run_$1.pb' &&
            node '$E2E/compare.js' --rel 3e-2 '$T/sm/mm_$1.pb' '$T/sm/mm_ref_3.pb'"
        [ "$san" = 1 ] && break   # under a sanitizer bf16 alone
    done
    check "bf16 taken: not within float32's error" sh -c \
        "! node '$E2E/compare.js' --rel 1e-5 '$T/sm/mm_bf16.pb' '$T/sm/mm_ref_3.pb'"
    check "compile seqmm: NAME.h and NAME.c name the knobs" sh -c "'$PZ' compile '$T/sm/seqmm.onnx' \
        --input '$T/sm/mm_ex.pb' --precision bf16 --strategy fuse-all -o '$T/sm/src' &&
        grep -q 'define SEQMM_REPLAN_KNOBS \"strategy=fuse-all.012precision=bf16' '$T/sm/src/seqmm.h' &&
        grep -q 'a net takes the build.s knobs: strategy=fuse-all precision=bf16' '$T/sm/src/seqmm.c'"
    refuse "seqmm --precision int8: the model linked in would not be the quantized one" \
        '--precision int8: input 0 of the model is a sequence.*int8-dynamic' \
        "$PZ" build "$T/sm/seqmm.onnx" --input "$T/sm/mm_ex.pb" --precision int8 -o "$T/sm/mm_int8"
    # a schedule names the build's layers: not applied to a replanned net, said
    printf '{"version": 1, "blocks": [{"first": 0, "count": 2, "mp": 1}]}' >"$T/sm/two.json"
    check "seqmm --schedule: another length says the schedule is not applied" sh -c \
        "'$PZ' compile '$T/sm/seqmm.onnx' --input '$T/sm/mm_ex.pb' --schedule '$T/sm/two.json' \
        -o '$T/sm/ssrc' && grep -q 'but not the schedule .*two.json' '$T/sm/ssrc/seqmm.c' &&
        '$PZ' build '$T/sm/seqmm.onnx' --input '$T/sm/mm_ex.pb' --schedule '$T/sm/two.json' \
        -o '$T/sm/mm_s' 2>/dev/null && '$T/sm/mm_s' --input '$T/sm/mm_in_3.pb' --output '$T/sm/mm_s.pb' \
        --threads 1 2>'$T/sm/log_s' && grep -q 'not the build.s schedule .*two.json' '$T/sm/log_s' &&
        node '$E2E/compare.js' --rel 1e-5 '$T/sm/mm_s.pb' '$T/sm/mm_ref_3.pb'"
    # --batch and --target after a replan: seqbatch built with --batch 2 (x
    # [batch, 16] beside the sequence), then also with --strategy dlfusion and
    # a profile (one with no machine record: used as given; named relative to
    # the build's directory), run at 3 tensors from another directory: the
    # stderr line names them, z equals numpy's,
    # y (batch 2) ONNX Runtime's on the x branch alone; an x of batch 1 is
    # refused as at the build's length, and the profile removed fails the
    # replan naming it (the replan reads it)
    printf '{"paleozoic_target": 1, "level": "quick", "cores": 2, "opcount_critical": 1.582e8,
      "opcount_critical_single_core": 214881, "opcount_critical_fusion": 1.582e8,
      "mp_alpha": 0.0037, "mp_beta": 0.0774, "mp_gamma": -1.1836, "peak_gflops": 195.6,
      "mp_list": [1, 2]}\n' >"$T/sm/prof.json"
    mkdir -p "$T/sm/away"
    if [ "$have_ort" = 1 ]; then
        check "sb_x.onnx: ONNX Runtime's y at batch 2" node "$E2E/ort_run.js" "$T/sm/sb_x.onnx" \
            "$T/sm/sb_x2.pb" -- "$T/sm/sb_y_ort.pb"
    else
        skip_one "seqbatch: ONNX Runtime's y needs onnxruntime-node"
    fi
    for tag in b2 dlf; do
        kn="--batch 2" want="strategy fixed-mp, precision fp32, batch 2"
        [ $tag = dlf ] && kn="$kn --strategy dlfusion --target prof.json" &&
            want="strategy dlfusion, precision fp32, target [^ ]*/prof.json, batch 2"
        check "seqbatch ($tag): another length keeps the knobs" sh -c "cd '$T/sm' && '$PZ' build seqbatch.onnx \
            --input mm_ex.pb $kn -o sb_$tag 2>/dev/null && cd away &&
            '$T/sm/sb_$tag' --input '$T/sm/mm_in_3.pb' --input '$T/sm/sb_x2.pb' --output '$T/sm/sb_z.pb' \
            --output '$T/sm/sb_y.pb' --threads 1 2>'$T/sm/log_sb' && grep -q 'planned now, .*$want\$' \
            '$T/sm/log_sb' && node '$E2E/compare.js' --rel 1e-5 '$T/sm/sb_z.pb' '$T/sm/sb_z3.pb'"
        [ "$have_ort" = 1 ] && check "seqbatch ($tag): y at batch 2 equals ONNX Runtime's" \
            node "$E2E/compare.js" --rel 1e-5 "$T/sm/sb_y.pb" "$T/sm/sb_y_ort.pb"
        refuse "seqbatch ($tag): another length, x of batch 1" \
            '--batch 2: the --input tensor of input "x" has the leading dim 1, not 2' \
            "$T/sm/sb_$tag" --input "$T/sm/mm_in_3.pb" --input "$T/sm/sb_x1.pb"
    done
    mv "$T/sm/prof.json" "$T/sm/prof.gone"
    refuse "seqbatch --target: the replan reads the build's profile" 'prof.json: cannot open the target profile' \
        "$T/sm/sb_dlf" --input "$T/sm/mm_in_3.pb" --input "$T/sm/sb_x2.pb"
else
    skip_one "seqlen: needs $PY with onnx and numpy"
fi
# the generated C says so, and its Makefile links what the program needs
check "compile a sequence model" "$PZ" compile "$S/../model.onnx" --input "$S/input_0.pb" \
    --input "$S/input_1.pb" -o "$T/src"
grep -q 'another length or element shapes: the whole net' "$T/src/model.c" && ok ||
    bad "model.c's header does not say a sequence of another length is planned at run time"
grep -q 'define MODEL_REPLAN 1' "$T/src/model.h" && ok || bad "model.h: no MODEL_REPLAN 1"
check "make the compiled sources" make -s -C "$T/src" PZ_SDK="$B" CFLAGS=-O1
check "the Makefile's program on 4 tensors" "$T/src/model" --input "$S/output_0.pb" \
    --input "$S/input_1.pb" --output "$T/m4.pb" --threads 1
cmp -s "$T/m4.pb" "$T/r_output_0.pb" && ok || bad "the Makefile's program and run differ"
printf 'not a protobuf' >"$T/junk.pb"
refuse "a file that is no SequenceProto" 'input "sequence"' "$T/seq" --input "$T/junk.pb" --input "$S/input_1.pb"
refuse "a missing file" 'input "sequence"' "$T/seq" --input "$T/none.pb" --input "$S/input_1.pb"
refuse "one file for two inputs" 'the model has 2 inputs' "$T/seq" --input "$S/input_0.pb"
check "build an empty-optional model" "$PZ" build "$OE/model.onnx" \
    --input "$OE/test_data_set_0/input_0.pb" -o "$T/oe"
refuse "a present optional where the build had it empty" 'is an empty optional.*holds an optional holding a tensor' \
    "$T/oe" --input "$OP/test_data_set_0/input_0.pb"
check "build a present-optional model" "$PZ" build "$OP/model.onnx" \
    --input "$OP/test_data_set_0/input_0.pb" -o "$T/op"
refuse "an empty optional where the build had one" 'is an optional holding a tensor.*holds an empty optional' \
    "$T/op" --input "$OE/test_data_set_0/input_0.pb"
check "build an optional-of-sequence model" "$PZ" build "$OS/model.onnx" \
    --input "$OS/test_data_set_0/input_0.pb" -o "$T/os"
refuse "an optional of a tensor where one of a sequence is wanted" 'holding a sequence of 1 tensor (.*holds an optional holding a tensor' \
    "$T/os" --input "$OP/test_data_set_0/input_0.pb"
refuse "a sequence given to an optional-of-sequence input" 'input "optional_input".*one value at most' \
    "$T/os" --input "$S/input_0.pb"

# ---- build refusals ------------------------------------------------------------
refuse "build: a sequence input without an example" 'graph input "sequence" is a sequence' \
    "$PZ" build "$S/../model.onnx" -o "$T/x1"
refuse "build: a tensor file for a sequence input" 'input_1.pb" holds a tensor (TensorProto): the model.s input is a sequence' \
    "$PZ" build "$S/../model.onnx" --input "$S/input_1.pb" --input "$S/input_1.pb" -o "$T/x2"
[ ! -e "$T/x1" ] && [ ! -e "$T/x2" ] && [ -z "$(ls -A "$T" | grep '^\.paleozoic')" ] && ok ||
    bad "a refused build left files: $(ls -A "$T" | tr '\n' ' ')"

# ---- the C API: NAME_input_values / NAME_output_values -------------------------
check "run the built program" "$T/seq" --input "$S/input_0.pb" --input "$S/input_1.pb" \
    --output "$T/exe.pb" --threads 1
check "build --lib" "$PZ" build "$S/../model.onnx" --input "$S/input_0.pb" --input "$S/input_1.pb" \
    --lib --name seqins -o "$T/lib"
grep -q 'SEQINS_N_INPUT_VALUES 2' "$T/lib/seqins.h" && ok || bad "seqins.h: no SEQINS_N_INPUT_VALUES 2"
nm -D --defined-only "$T/lib/libseqins.so" | grep -q ' seqins_input_values$' && ok ||
    bad "libseqins.so does not export seqins_input_values"
CCX=${CC:-cc}
SANF=$(cat "$B/sdk.flags" 2>/dev/null)
check "run_model.c + libseqins.so" sh -c "$CCX -std=c99 -DMODEL=seqins -I'$T/lib' -I'$B/include' \
    '$ROOT/examples/model_lib/run_model.c' '$T/lib/libseqins.so' '$B/libpzio.a' '$B/libpzrt.a' \
    -lm -lpthread $SANF -Wl,-rpath,'$T/lib' -o '$T/rm'"
check "libseqins.so: a SequenceProto output, bytes equal to the executable's" sh -c \
    "'$T/rm' --input '$S/input_0.pb' --input '$S/input_1.pb' --output '$T/lib.pb' \
    --weights '$T/lib/seqins.weights' >/dev/null && cmp '$T/exe.pb' '$T/lib.pb'"
# seqins_run takes the build's length: seqins_check_values refuses another
for lib in so a; do
    # libseqins.a's seqins_run_values needs the compiler's library
    [ $lib = a ] && check "run_model.c + libseqins.a" sh -c "$CCX -std=c99 -DMODEL=seqins -I'$T/lib' \
        -I'$B/include' '$ROOT/examples/model_lib/run_model.c' '$T/lib/libseqins.a' '$B/libpaleozoic.a' \
        '$B/libpzio.a' '$B/libpzrt.a' -lprotobuf-c -lm -lpthread $SANF -o '$T/rm'"
    check "libseqins.$lib: a sequence of another length refused" sh -c \
        "! '$T/rm' --input '$S/output_0.pb' --input '$S/input_1.pb' --weights '$T/lib/seqins.weights' 2>'$T/log' &&
        grep -q 'input \"sequence\": a sequence of 4 tensors, this library takes 3' '$T/log'"
done
# ... and seqins_run_values takes any length, planned inside the library: 4
# tensors (and 3) give the values `run` gives, read back element by element
# (pz_io_write_value and run's writer pack dims differently); another element
# type exits 2 naming the input
for lib in so a; do
    [ $lib = so ] && link="'$T/lib/libseqins.so' -Wl,-rpath,'$T/lib'" ||
        link="'$T/lib/libseqins.a' '$B/libpaleozoic.a'"
    check "run_values.c + libseqins.$lib" sh -c "$CCX -std=c99 -DMODEL=seqins -I'$T/lib' -I'$B/include' \
        '$E2E/run_values.c' $link '$B/libpzio.a' '$B/libpzrt.a' -lprotobuf-c -lm -lpthread $SANF -o '$T/rv'"
    for x in output_0 input_0; do
        [ $x = input_0 ] && want=$T/exe.pb || want=$T/r_output_0.pb
        check "libseqins.$lib: seqins_run_values at $x's length" sh -c "'$T/rv' '$S/$x.pb' '$S/input_1.pb' \
            -- '$T/rv.pb' 2>/dev/null && node -e \"
            const {readValue} = require('$E2E/tensorproto.js');
            const s = v => JSON.stringify(v.tensors.map(t => [t.dtype, t.dims, Array.from(t.data, String)]));
            const a = readValue('$T/rv.pb'), b = readValue('$want');
            if (!a.container || s(a) !== s(b)) { console.log(s(a), s(b)); process.exit(1); }\""
    done
    check "libseqins.$lib: seqins_run_values refuses another element type" sh -c \
        "'$T/rv' '$F' '$S/input_1.pb' -- '$T/rvbad.pb' 2>'$T/log'; [ \$? = 2 ] && [ ! -e '$T/rvbad.pb' ] &&
        grep -q 'input \"sequence/0\" wants int64, the file holds float32' '$T/log'"
    [ "$san" = 1 ] && break   # under a sanitizer the .so alone
done
finish
