#!/bin/sh
# 05-tree-rules.sh BUILD_DIR - the source tree's structural rules (issue 37,
# tools/tree_rules.py): no file under src/ over 700 lines, no getenv under
# src/rt, no include cycle among src/rt modules, src/ir below src/ops and the
# kernels, no op-kind switch outside the ops' own files. One check per rule;
# ends with `tree-rules: N passed, N failed`.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
exec /usr/bin/python3 "$ROOT/tools/tree_rules.py" "$ROOT"
