#!/bin/sh
# 60-opt.sh BUILD_DIR MODELDIR - the optimizer (issue 8) through the CLI.
#
#   space       Paleozoic Eq. 3: n=50 on 32 cores is 8.17e75 (DLFusion), n=32
#               is 3.79e48 (the Paleozoic paper's 3.79e38 is a misprint); a
#               model's space names its layer count
#   profile     `characterize --default` writes a profile JSON (valid, with
#               OpCount_critical > 0, both kinds of fused chains unless the
#               time limit left some out, the critical taken from the fused
#               chains unless none gained, and the MP model) and SVG plots
#               (valid XML); the default profile is measured once into
#               $XDG_CACHE_HOME/paleozoic and reused; bad --target files are
#               refused (exit 2, the file and key named)
#   strategies  on each of the six networks, every strategy of DLFusion
#               Table III plus the example plug-in gives a legal schedule, and
#               `run --threads 2 --strategy S` is bitwise equal to
#               `run --strategy none` (the runtime's kernels give the same
#               bits at any MP); dlfusion's output also matches PyTorch's
#               (NAME.torch.pb, rel 1e-4, same top-5) when node is there
#   measured    oracle and dp (ours) with a short budget on ResNet-18 and
#               MobileNetV2 (all six with PZ_OPT_ALL=1): legal, bitwise equal
#   tune        writes a schedule that `run --schedule` accepts and that runs
#               bitwise equal; a failing tune leaves no file
#   bench       --json parses, none's speed-up is 1, every strategy has a
#               latency, blocks summing to the layer count; --svg is valid XML
#   plug-ins    the example in examples/ (built by mk/examples.mk); a plug-in
#               with an illegal answer, one that fails, one of another ABI and
#               a missing file: exit 2 and a message naming the plug-in
#   errors      unknown strategy, bad options: exit 2, the known names listed
# Under a sanitizer build dir (*san*) the networks are ResNet-18 and
# MobileNetV2 only (the others take minutes each under ASan) and the measured
# strategies run on MobileNetV2 only. Ends with `N passed, N failed`.
set -u
NAME=60-opt
. "$(dirname "$0")/lib.sh"
part_init "$@"
M=$(cd "$M" 2>/dev/null && pwd || echo "$M")
# the default profile is cached here, not in the suite's or the user's cache
export XDG_CACHE_HOME="$T/cache"
have_node=$have_ort

# ---- space ----------------------------------------------------------------
"$PZ" space --layers 50 --cores 32 >"$T/s50" 2>&1
check "space n=50 is 8.17e75" grep -q "8.17e75 with 32 cores" "$T/s50"
"$PZ" space --layers 32 --cores 32 >"$T/s32" 2>&1
check "space n=32 is 3.79e48" grep -q "3.79e48 with 32 cores" "$T/s32"
"$PZ" space --layers 3 --cores 2 >"$T/s3" 2>&1
check "space n=3, 2 cores is 2*4+8 = 16" grep -q "1.60e1 with 2 cores" "$T/s3"
if [ -f "$M/resnet18.onnx" ]; then
    "$PZ" space "$M/resnet18.onnx" --cores 2 >"$T/sm" 2>&1
    n=$(sed -n 's/.*: \([0-9]*\) layers after lowering.*/\1/p' "$T/sm")
    want=$("$PZ" space --layers "${n:-0}" --cores 2 2>/dev/null | sed -n 's/.*: \([0-9.e]*\) with 2 cores.*/\1/p')
    check "space of resnet18 ($n layers) = space --layers $n" grep -q "$want with 2 cores" "$T/sm"
fi
refuse "space with nothing" "usage" "$PZ" space

# ---- the profile ----------------------------------------------------------
mkdir -p "$T/prof"
# --allow-noisy: the suite runs beside other work (tests/both.sh builds the
# sanitizer tree meanwhile); 45-profile.sh tests the refusal
check "characterize --default" "$PZ" characterize --default --allow-noisy --cores 2 -o "$T/prof/target.json"
cat >"$T/check_profile.py" <<'EOF'
import json, sys, xml.dom.minidom
p = json.load(open(sys.argv[1]))
assert p["paleozoic_target"] == 1
assert p["opcount_critical"] > 0, p["opcount_critical"]
for k in ("mp_alpha", "mp_beta", "mp_gamma", "peak_gflops"):
    assert isinstance(p[k], (int, float)), k
assert len(p["layers"]) >= 5 and all(len(l["ms"]) == len(p["mp_list"]) for l in p["layers"])
assert set(p["pca"]["rank"]) == {"op_count", "channels", "kernel", "feature_map", "intensity"}
# both kinds of fused chains timed; Algorithm 1's value is the fused blocks'
# best when fusing sped something up, else the single-core plateau
# (the first chain of each kind is timed whatever the time limit says: under
# a sanitizer the single layers once used it all and left no chain)
kinds = {c["chain"] for c in p["fusion"]}
assert kinds == {"conv", "inverted_residual"}, kinds
assert all(c["ms"] > 0 and c["layers"] in (15, 16) for c in p["fusion"])
fus, single = p["opcount_critical_fusion"], p["opcount_critical_single_core"]
assert single > 0, single
assert p["opcount_critical"] == (fus if fus is not None else single), (p["opcount_critical"], fus, single)
for f in sys.argv[2:]:
    xml.dom.minidom.parse(f)
EOF
check "profile JSON and SVGs valid" "$PY" "$T/check_profile.py" "$T/prof/target.json" \
    "$T/prof/target.gflops.svg" "$T/prof/target.mp.svg" "$T/prof/target.fusion.svg"
printf '{"paleozoic_target": 1, "cores": 2, "mp_alpha": 0}' >"$T/prof/bad1.json"
printf '{"paleozoic_target": 1, "cores": 2, "opcount_critical": "x", ' >"$T/prof/bad2.json"
if [ -f "$M/resnet18.onnx" ]; then
    refuse "--target missing key" '"opcount_critical"' "$PZ" run "$M/resnet18.onnx" --strategy dlfusion --target "$T/prof/bad1.json"
    refuse "--target bad JSON" "bad2.json" "$PZ" run "$M/resnet18.onnx" --strategy dlfusion --target "$T/prof/bad2.json"
    refuse "--target no file" "nofile.json" "$PZ" run "$M/resnet18.onnx" --strategy dlfusion --target "$T/prof/nofile.json"
    refuse "--target where no strategy reads it" "strategy fixed-mp reads no target profile" \
        "$PZ" run "$M/resnet18.onnx" --strategy fixed-mp --target "$T/prof/target.json"
    refuse "--target on best, a bad file" "bad2.json" "$PZ" run "$M/resnet18.onnx" --strategy best --target "$T/prof/bad2.json"
    # the default profile: measured once into the cache, then reused; on a
    # busy machine (the study says so) used for the run and not cached
    "$PZ" run "$M/resnet18.onnx" --threads 2 --strategy dlfusion >/dev/null 2>"$T/d1"
    check "default profile measured once" grep -q "measuring this machine" "$T/d1"
    if grep -q "not quiet.*nothing is cached" "$T/d1"; then
        echo "60-opt: the machine is busy: the default profile was not cached (45-profile.sh tests this)"
        check "default profile not cached when busy" sh -c "! ls '$XDG_CACHE_HOME'/paleozoic/target-default-*cpu.json"
    else
        check "default profile cached" sh -c "ls '$XDG_CACHE_HOME'/paleozoic/target-default-*cpu.json"
        "$PZ" run "$M/resnet18.onnx" --threads 2 --strategy dlfusion >/dev/null 2>"$T/d2"
        check "default profile reused" sh -c "! grep -q 'measuring this machine' '$T/d2'"
    fi
fi

# ---- every strategy on the six networks -------------------------------------
NETS="resnet18 resnet50 vgg16 vgg19 alexnet mobilenet_v2"
[ "$san" = 1 ] && NETS="resnet18 mobilenet_v2" &&
    echo "60-opt: sanitizer build: nets $NETS only (the others take minutes each under ASan;" \
        "ResNet-18 with the fusing strategies only unless PZ_TEST_FULL=1)"
PLUG="$B/examples/strategy_greedy.so"
STRATS="fixed-mp dynamic-mp fuse-all fusion-fixed-mp dlfusion plugin:$PLUG"
TGT="--target $T/prof/target.json"
for n in $NETS; do
    if [ ! -f "$M/$n.onnx" ] || [ ! -f "$M/$n.input.pb" ]; then
        skip_one "$n: no $M/$n.onnx"
        continue
    fi
    in="$M/$n.input.pb"
    check "$n none" "$PZ" run "$M/$n.onnx" --input "$in" --output "$T/$n.none.pb" --strategy none
    strats=$STRATS
    # under ASan ResNet-18 keeps the strategies that fuse (Winograd and direct
    # convs in F-Blocks); MobileNetV2 runs them all
    [ "$san" = 1 ] && [ "$full" != 1 ] && [ "$n" = resnet18 ] && strats="fuse-all dlfusion"
    for s in $strats; do
        label="$n $(basename "$s")"
        rm -f "$T/$n.s.pb"
        # --target only where the strategy reads a profile (elsewhere it is refused)
        case "$s" in fixed-mp | fuse-all) tgt="" ;; *) tgt=$TGT ;; esac
        # shellcheck disable=SC2086
        if "$PZ" run "$M/$n.onnx" --input "$in" --output "$T/$n.s.pb" --threads 2 --strategy "$s" \
            $tgt >"$T/log" 2>&1; then
            check "$label: bitwise equal to none" cmp "$T/$n.none.pb" "$T/$n.s.pb"
        else
            bad "$label: $(tail -c 400 "$T/log" | tr '\n' ' ')"
        fi
    done
    if [ "$have_node" = 1 ] && [ -f "$M/$n.torch.pb" ]; then
        # shellcheck disable=SC2086
        "$PZ" run "$M/$n.onnx" --input "$in" --output "$T/$n.dl.pb" --threads 2 --strategy dlfusion $TGT >/dev/null 2>&1
        check "$n dlfusion vs PyTorch" node "$ROOT/tests/e2e/compare.js" --rel 1e-4 --top 5 "$T/$n.dl.pb" "$M/$n.torch.pb"
    fi
done

# ---- the measured strategies (short budgets) --------------------------------
MNETS="resnet18 mobilenet_v2"
[ "${PZ_OPT_ALL:-0}" = 1 ] && MNETS="resnet18 resnet50 vgg16 vgg19 alexnet mobilenet_v2"
[ "$san" = 1 ] && MNETS="mobilenet_v2"
for n in $MNETS; do
    [ -f "$M/$n.onnx" ] && [ -f "$T/$n.none.pb" ] || continue
    for s in "oracle:budget=3,repeat=1,verify=2" "dp:budget=3,repeat=1,max-block=4"; do
        rm -f "$T/$n.s.pb"
        if "$PZ" run "$M/$n.onnx" --input "$M/$n.input.pb" --output "$T/$n.s.pb" --threads 2 \
            --strategy "$s" >"$T/log" 2>&1; then
            cp "$T/log" "$T/slog"
            check "$n ${s%%:*}: bitwise equal to none" cmp "$T/$n.none.pb" "$T/$n.s.pb"
            check "$n ${s%%:*}: progress shown" grep -q "search took" "$T/slog"
        else
            bad "$n $s: $(tail -c 400 "$T/log" | tr '\n' ' ')"
        fi
    done
done

# best: measured per-layer algorithms, so its output may round differently
# from none's; it is checked against PyTorch instead, and its report must
# show the per-layer measurements and the candidate kept
for n in $MNETS; do
    [ -f "$M/$n.onnx" ] && [ -f "$M/$n.torch.pb" ] && [ "$have_node" = 1 ] || continue
    rm -f "$T/$n.best.pb"
    if "$PZ" run "$M/$n.onnx" --input "$M/$n.input.pb" --output "$T/$n.best.pb" --threads 2 \
        --strategy best >"$T/log" 2>&1; then
        cp "$T/log" "$T/blog"
        check "$n best vs PyTorch" node "$ROOT/tests/e2e/compare.js" --rel 1e-4 --top 5 "$T/$n.best.pb" "$M/$n.torch.pb"
        check "$n best: kept a candidate" grep -q "^best: kept " "$T/blog"
        if grep -q avx512f /proc/cpuinfo && [ "$n" = resnet18 ]; then
            check "$n best: measured both algorithms of each 3x3 conv" \
                test "$(grep -c '^algo: layer .* winograd .* ms, direct .* ms -> ' "$T/blog")" -ge 10
        fi
    else
        bad "$n best: $(tail -c 400 "$T/log" | tr '\n' ' ')"
    fi
done

# ---- tune -> run --schedule ------------------------------------------------
if [ -f "$M/resnet18.onnx" ]; then
    n=resnet18
    # shellcheck disable=SC2086
    check "tune dlfusion" "$PZ" tune "$M/$n.onnx" --threads 2 --strategy dlfusion $TGT -o "$T/s.json"
    check "tune wrote JSON" "$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['strategy']=='dlfusion'" "$T/s.json"
    check "run --schedule from tune" "$PZ" run "$M/$n.onnx" --input "$M/$n.input.pb" --threads 2 \
        --schedule "$T/s.json" --output "$T/$n.sched.pb"
    check "run --schedule bitwise equal to none" cmp "$T/$n.none.pb" "$T/$n.sched.pb"
    refuse "tune with a bad strategy" "unknown strategy" "$PZ" tune "$M/$n.onnx" --strategy nope -o "$T/s2.json"
    check "a failed tune leaves no file" test ! -e "$T/s2.json"

    # ---- bench ----------------------------------------------------------------
    # shellcheck disable=SC2086
    "$PZ" bench "$M/$n.onnx" --threads 2 --repeat 3 $TGT --json --svg "$T/b.svg" \
        --strategies "fixed-mp,dlfusion,fuse-all,plugin:$PLUG" >"$T/b.json" 2>"$T/b.err"
    check "bench exit 0" test $? -eq 0
    cat >"$T/check_bench.py" <<'EOF'
import json, sys, xml.dom.minidom
d = json.load(open(sys.argv[1]))
n_layers = int(sys.argv[3])
s = d["models"][0]["strategies"]
names = [x["name"] for x in s]
assert names[0] == "none" and "dlfusion" in names and len(s) == 5, names
assert abs(s[0]["speedup"] - 1) < 1e-9
for x in s:
    assert x["median_ms"] > 0 and x["search_s"] >= 0, x
    assert sum(b["layers"] for b in x["blocks"]) == n_layers, x
    assert all(1 <= b["mp"] <= 2 for b in x["blocks"]), x
assert s[0]["blocks"] == [{"layers": 1, "mp": 1}] * n_layers
assert [b["layers"] for b in s[names.index("fuse-all")]["blocks"]] == [n_layers]
xml.dom.minidom.parse(sys.argv[2])
EOF
    nl=$("$PZ" space "$M/$n.onnx" --cores 2 | sed -n 's/.*: \([0-9]*\) layers after lowering.*/\1/p')
    check "bench JSON and SVG" "$PY" "$T/check_bench.py" "$T/b.json" "$T/b.svg" "${nl:-0}"
    refuse "bench unknown strategy" "unknown strategy" "$PZ" bench "$M/$n.onnx" --strategies none,nope --repeat 1

    # ---- plug-ins and errors --------------------------------------------------
    check "example plug-in built" test -f "$PLUG"
    # shellcheck disable=SC2086
    refuse "plug-in with an illegal answer" "strategy_bad.so gave an illegal schedule" \
        "$PZ" run "$M/$n.onnx" --strategy "plugin:$B/examples/strategy_bad.so" $TGT
    # shellcheck disable=SC2086
    refuse "plug-in that fails" "this strategy always fails" \
        "$PZ" run "$M/$n.onnx" --strategy "plugin:$B/examples/strategy_bad.so:fail" $TGT
    # shellcheck disable=SC2086
    refuse "plug-in missing" "cannot load" "$PZ" run "$M/$n.onnx" --strategy "plugin:$T/none.so" $TGT
    printf 'const int pz_strategy_abi = 999;\nint pz_strategy(void);\nint pz_strategy(void) { return 0; }\n' >"$T/abi.c"
    if cc -shared -fPIC -o "$T/abi.so" "$T/abi.c" 2>/dev/null; then
        # shellcheck disable=SC2086
        refuse "plug-in of another ABI" "ABI 999" "$PZ" run "$M/$n.onnx" --strategy "plugin:$T/abi.so" $TGT
    fi
    # shellcheck disable=SC2086
    refuse "plug-in arguments checked" "positive op count" \
        "$PZ" run "$M/$n.onnx" --strategy "plugin:$PLUG:xyz" $TGT
    refuse "unknown strategy" "known: none, fixed-mp" "$PZ" run "$M/$n.onnx" --strategy warp-speed
    refuse "bad oracle option" "unknown option" "$PZ" run "$M/$n.onnx" --strategy oracle:speed=3
    refuse "bad dp option value" "KEY=NUMBER" "$PZ" run "$M/$n.onnx" --strategy dp:budget=abc
    refuse "fixed-mp beyond the cores" "fixed-mp:8" "$PZ" run "$M/$n.onnx" --threads 2 --strategy fixed-mp:8
fi

finish
