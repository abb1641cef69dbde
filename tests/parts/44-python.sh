#!/bin/sh
# 44-python.sh BUILD_DIR MODELDIR - the Python bindings (python/paleozoic, issue 44)
# under pytest: python/tests/test_paleozoic.py. The zoo's ResNet-18 and
# MobileNetV2 (written by the tests, seeded; MODELDIR is not read) built as
# shared libraries with BUILD_DIR/paleozoic, run from numpy and compared
# bitwise with `paleozoic run` at the same --threads; the I/O tables against
# the ONNX graphs; wrong dtype, shape and names refused by name; the CLI's
# errors carried in paleozoic.Error; two threads at once equal to one, with
# the GIL released during a run.
# Skipped where /usr/bin/python3 lacks pytest, numpy or onnx, and under a
# sanitizer build (an instrumented library does not load into python3).
# Ends with `N passed, N failed[, N skipped]` (pytest's counts; errors count
# as failed).
set -u
NAME=44-python
. "$(dirname "$0")/lib.sh"
part_init "$@"
"$PY" -c 'import pytest, numpy, onnx' 2>/dev/null ||
    skip_part "$PY needs pytest, numpy and onnx (apt-get install python3-pytest python3-numpy python3-onnx)"
grep -q sanitize "$B/sdk.flags" 2>/dev/null && skip_part "a sanitizer build: its libraries do not load into python3"

out=$(cd "$ROOT/python" && PALEOZOIC="$PZ" PYTHONDONTWRITEBYTECODE=1 \
    "$PY" -m pytest -q -p no:cacheprovider tests 2>&1)
rc=$?
printf '%s\n' "$out"
# pytest's last line: "3 failed, 12 passed, 1 skipped, 1 error in 9.1s"
last=$(printf '%s\n' "$out" | tail -n 1)
count() { printf '%s\n' "$last" | grep -o -E "[0-9]+ $1" | awk '{ n += $1 } END { print n + 0 }'; }
pass=$(count passed)
fail=$(($(count failed) + $(count 'errors?')))
skip=$(count skipped)
[ "$rc" -ne 0 ] && [ "$fail" -eq 0 ] && bad "pytest exited $rc without a count (collection, usage)"
finish
