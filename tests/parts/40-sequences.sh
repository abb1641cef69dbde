#!/bin/sh
# 40-sequences.sh BUILD_DIR - sequences and optionals as graph inputs and
# outputs of built programs (issue 40). Every case of the ONNX node suite
# whose model has a sequence or an optional graph input or output is built
# (`paleozoic build CASE --input ...`: the case's inputs fix a sequence's
# length and an optional's presence) and run on its inputs, each output
# checked against the case's own output_N.pb (SequenceProto / OptionalProto
# element by element, tests/e2e/node_suite_cli.js --build --containers):
# all must pass, none refused. Then bad inputs to a built program exit 2
# naming the input (a tensor where a sequence is wanted and the reverse,
# another length, another element type, an optional present where the build
# had it empty and the reverse, a file that is no protobuf); `build` refuses
# a sequence input without an example and one of the wrong kind, leaving
# nothing behind; and the C API: examples/model_lib/run_model.c linked to
# the model's --lib .so writes the same bytes as the executable.
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

# ---- bad inputs to a built program -------------------------------------------
S=$NODE/test_sequence_insert_at_back/test_data_set_0   # in: sequence (3 int64), tensor
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
refuse "a sequence of another length" 'input "sequence" is a sequence of 3 tensors.*holds a sequence of 4' \
    "$T/seq" --input "$S/output_0.pb" --input "$S/input_1.pb"
refuse "a sequence of another element type" 'input "sequence/0" wants int64 \[4\], the file holds float32 \[10\]' \
    "$T/seq" --input "$F" --input "$S/input_1.pb"
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
check "libseqins.so: a sequence of another length refused" sh -c \
    "! '$T/rm' --input '$S/output_0.pb' --input '$S/input_1.pb' --weights '$T/lib/seqins.weights' 2>'$T/log' &&
    grep -q 'wrong number of tensors.*sequence' '$T/log'"
finish
