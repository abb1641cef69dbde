#!/bin/sh
# 31-node-cli.sh BUILD_DIR - the ONNX node suite through `paleozoic run`, the
# case's inputs given as a user gives them (tests/e2e/node_suite_cli.js):
# every case passes or is refused with exit 2 and a message naming its op or
# type; none is wrong, none crashes. A sample (every 7th case, every 14th
# under a sanitizer) by default; PZ_NODE_CLI_ALL=1 or PZ_TEST_FULL=1 runs all 1765 (about 2 minutes; the in-process runner,
# `onnx_shapes --run`, covers every case in each run of the suite).
# Ends with `N passed, N failed`.
set -u
B=$(cd "${1:?usage: 31-node-cli.sh BUILD_DIR}" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
NODE=${PZ_ONNX_TESTS:-$ROOT/../shared/onnx-tests}/node
if [ ! -d "$NODE" ] || ! command -v node >/dev/null; then
    echo "node-cli: SKIPPED: needs node and the ONNX test data ($NODE)"
    echo "0 passed, 0 failed, 1 skipped"
    exit 0
fi
every=7
case "$B" in *san*) every=14 ;; esac   # under a sanitizer, half the sample
[ "${PZ_NODE_CLI_ALL:-0}" = 1 ] || [ "${PZ_TEST_FULL:-0}" = 1 ] && every=1
out=$(node "$ROOT/tests/e2e/node_suite_cli.js" "$B/paleozoic" "$NODE" --every "$every")
rc=$?
printf '%s\n' "$out" | grep -E '^(WRONG|CRASHED)' | head -n 40
line=$(printf '%s\n' "$out" | tail -n 1)
echo "$line"
# the cases run: each passed or refused counts as passed, wrong and crashed as failed
printf '%s\n' "$line" | awk -v rc="$rc" '{ print $4 + $6 " passed, " $8 + $10 " failed" }'
[ "$rc" -eq 0 ]
