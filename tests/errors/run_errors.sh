#!/bin/sh
# run_errors.sh BUILD_DIR - the malformed-model corpus against `paleozoic inspect`.
#
# Writes the corpus with make_corpus.py into BUILD_DIR/errors-corpus, then runs
# BUILD_DIR/paleozoic inspect on each case and checks, per manifest.tsv:
#   error    exit code 2; stderr starts with "paleozoic: error: " and contains
#            every substring the manifest lists for the case
#   ok       exit code 0 (a control: the valid model the broken ones come from)
#   nocrash  exit code 0, or 2 with a "paleozoic: error: " message
# and for all: no crash (exit code >= 128, or a timeout), no sanitizer report.
# Prints one line per failure and finally `errors: N passed, N failed`.
set -u

B=${1:?usage: run_errors.sh BUILD_DIR}
HERE=$(cd "$(dirname "$0")" && pwd)
PZ="$B/paleozoic"
PY=${PYTHON:-/usr/bin/python3}
CORPUS="$B/errors-corpus"
: "${ASAN_OPTIONS:=detect_leaks=1:halt_on_error=1:abort_on_error=0:allocator_may_return_null=0}"
: "${UBSAN_OPTIONS:=halt_on_error=1:print_stacktrace=1}"
export ASAN_OPTIONS UBSAN_OPTIONS

if [ ! -x "$PZ" ]; then
    echo "FAIL errors: $PZ is not built"
    echo "errors: 0 passed, 1 failed"
    exit 1
fi
if ! "$PY" -c 'import onnx, numpy' 2>/dev/null; then
    echo "errors: skipped: $PY cannot import onnx (apt-get install python3-onnx)"
    echo "errors: 0 passed, 0 failed"
    exit 0
fi
rm -rf "$CORPUS"
if ! "$PY" "$HERE/make_corpus.py" "$CORPUS"; then
    echo "FAIL errors: make_corpus.py failed"
    echo "errors: 0 passed, 1 failed"
    exit 1
fi

pass=0
fail=0
err=$(mktemp)
trap 'rm -f "$err"' EXIT
TAB=$(printf '\t')
while IFS="$TAB" read -r name expect subs; do
    [ -n "$name" ] || continue
    timeout 60 "$PZ" inspect "$CORPUS/$name.onnx" >/dev/null 2>"$err"
    rc=$?
    why=""
    first=$(head -n 1 "$err")
    if [ "$rc" -eq 124 ]; then
        why="timed out"
    elif [ "$rc" -ge 128 ]; then
        why="crashed (exit code $rc)"
    elif grep -q -e 'AddressSanitizer' -e 'LeakSanitizer' -e 'runtime error' \
                 -e 'internal error' "$err"; then
        why="sanitizer or internal error report"
    else
        case "$expect" in
        ok)
            [ "$rc" -eq 0 ] || why="expected success, got exit code $rc"
            ;;
        nocrash)
            if [ "$rc" -ne 0 ] && [ "$rc" -ne 2 ]; then
                why="exit code $rc, expected 0 or 2"
            elif [ "$rc" -eq 2 ]; then
                case "$first" in "paleozoic: error: "*) ;; *) why="stderr does not start with 'paleozoic: error: '" ;; esac
            fi
            ;;
        error)
            if [ "$rc" -ne 2 ]; then
                why="exit code $rc, expected 2"
            else
                case "$first" in "paleozoic: error: "*) ;; *) why="stderr does not start with 'paleozoic: error: '" ;; esac
            fi
            if [ -z "$why" ] && [ -n "$subs" ]; then
                # every tab-separated substring must appear
                rest="$subs"
                while [ -n "$rest" ]; do
                    s=${rest%%"$TAB"*}
                    case "$rest" in *"$TAB"*) rest=${rest#*"$TAB"} ;; *) rest="" ;; esac
                    if ! grep -q -F -e "$s" "$err"; then
                        why="message lacks \"$s\""
                        break
                    fi
                done
            fi
            ;;
        *)
            why="bad manifest entry \"$expect\""
            ;;
        esac
    fi
    if [ -z "$why" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL errors/$name: $why; stderr: $(head -c 400 "$err" | tr '\n' ' ')"
    fi
done <"$CORPUS/manifest.tsv"

echo "errors: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
