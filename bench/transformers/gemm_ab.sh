#!/bin/sh
# bench/transformers/gemm_ab.sh OLD_COMMIT [M] [THREADS] - the AVX-512 packed
# GEMM of OLD_COMMIT against this tree's on a transformer encoder layer's
# four GEMMs at M tokens (default 197, ViT-B/16), alternated in one process
# (gemm_ab.c). OLD_COMMIT's gemm.h, gemm.c and gemm_avx512.c are built with
# their entry points renamed; both sides with the same flags. Run it under
# the bench lock: flock /tmp/pz_bench.lock sh bench/transformers/gemm_ab.sh ...
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
OLD=${1:?usage: gemm_ab.sh OLD_COMMIT [M] [THREADS]}
M=${2:-197} TH=${3:-1} B=${BUILD:-build}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/rt/kernels/gemm"
for f in gemm.h gemm.c gemm_avx512.c; do
    git show "$OLD:src/rt/kernels/gemm/$f" >"$T/rt/kernels/gemm/$f"
done
make -s BUILD="$B" "$B/libpzrt.a" "$B/libpzio.a"
CF="-std=c11 -D_GNU_SOURCE -O2 -march=native -Isrc -Isrc/rt -I$B/gen"
REN="-Dpz_gemm_drive=old_gemm_drive -Dpz_gemv_drive=old_gemv_drive
     -Dpz_f32_gemm_packed__avx512=old_gemm -Dpz_f32_gemv_packed__avx512=old_gemv"
# the old sources first on the include path: their gemm.h, not this tree's
for f in gemm gemm_avx512; do
    cc -I"$T" $CF $REN -c "$T/rt/kernels/gemm/$f.c" -o "$T/old_$f.o"
    cc $CF -c "src/rt/kernels/gemm/$f.c" -o "$T/new_$f.o"
done
cc $CF -o "$T/gemm_ab" bench/transformers/gemm_ab.c "$T"/old_*.o "$T"/new_*.o \
    "$B/libpzrt.a" "$B/libpzio.a" -lm -lpthread
if [ "$TH" = 1 ] && command -v taskset >/dev/null 2>&1; then
    taskset -c "${CPU:-1}" "$T/gemm_ab" "$M" 1
else
    "$T/gemm_ab" "$M" "$TH"
fi
