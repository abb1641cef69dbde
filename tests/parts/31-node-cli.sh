#!/bin/sh
# 31-node-cli.sh BUILD_DIR - the ONNX node suite through `paleozoic run`, the
# case's inputs given as a user gives them (tests/e2e/node_suite_cli.js):
# every case passes or is refused with exit 2 and a message naming its op or
# type; none is wrong, none crashes. A sample (every 7th case, every 14th
# under a sanitizer) by default; PZ_NODE_CLI_ALL=1 or PZ_TEST_FULL=1 runs all 1765 (about 2 minutes; the in-process runner,
# `onnx_shapes --run`, covers every case in each run of the suite).
# Ends with `N passed, N failed`.
set -u
NAME=31-node-cli
. "$(dirname "$0")/lib.sh"
part_init "$@"
NODE=${PZ_ONNX_TESTS:-$ROOT/../shared/onnx-tests}/node
[ -d "$NODE" ] && command -v node >/dev/null || skip_part "needs node and the ONNX test data ($NODE)"
every=7
[ "$san" = 1 ] && every=14   # under a sanitizer, half the sample
[ "${PZ_NODE_CLI_ALL:-0}" = 1 ] || [ "$full" = 1 ] && every=1
out=$(node "$E2E/node_suite_cli.js" "$PZ" "$NODE" --every "$every")
rc=$?
printf '%s\n' "$out" | grep -E '^(WRONG|CRASHED)' | head -n 40
line=$(printf '%s\n' "$out" | tail -n 1)
echo "$line"
# the cases run: each passed or refused counts as passed, wrong and crashed as failed
pass=$(printf '%s\n' "$line" | awk '{ print $4 + $6 }')
fail=$(printf '%s\n' "$line" | awk '{ print $8 + $10 }')
[ "$rc" -ne 0 ] && [ "$fail" -eq 0 ] && bad "node_suite_cli.js exited $rc"
finish
