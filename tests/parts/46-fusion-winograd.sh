#!/bin/sh
# 46-fusion-winograd.sh BUILD_DIR MODELDIR - fused F-Blocks over Winograd
# convs (issue 43, item 4): a Winograd conv computes whole rows of its 4x4
# output tiles inside a depth-first fused run (rt/fuse.h).
#
# For ResNet-18 and VGG-16 (with AVX-512, where the Winograd kernel runs;
# without it the part checks only that the same schedules stay bitwise):
#   - `paleozoic tune --strategy dlfusion` writes DLFusion's blocks and the
#     per-layer algorithm ("winograd" lists);
#   - the reference: blocks of one layer, MP 1, the same algorithm per layer,
#     checked against PyTorch (max |ours - torch| / max |torch| <= 1e-4);
#   - DLFusion's schedule as written, the same blocks on MP 2 in bands with
#     strip 3, and random blocks of 2 to 5 layers over the network's
#     row-local layers (MP 1 or 2, bands or channels, strips 0 to 8 and the
#     last layer's rows): each BITWISE equal to the reference (cmp); the
#     profile's fused column shows each such block as one run of all its
#     layers, Winograd convs among them; a strip that is no multiple of the
#     tile on a run ending in a Winograd conv is rounded up to one (the
#     profile's strip, equal to inspect --json's strip_run); and on bands blocks the redundant (halo) MACs that
#     `paleozoic inspect --schedule` counts equal the runtime's, block by
#     block, and are not all zero (a pool's halo is: it has no MACs).
# Under a sanitizer build (BUILD_DIR with "san" in its name): ResNet-18 only,
# one random schedule. WINO_NETS="resnet18" picks the networks.
set -u
NAME=46-fusion-winograd
. "$(dirname "$0")/lib.sh"
part_init "$@"

NETS="${WINO_NETS:-resnet18 vgg16}"
NSPAN=3
case "$san" in 1)
    NETS="resnet18"
    NSPAN=1
    echo "skip vgg16 under a sanitizer build (too slow there)" ;;
esac
wino=0
grep -q avx512f /proc/cpuinfo && wino=1

for n in $NETS; do
    if [ ! -f "$M/$n.onnx" ] || [ ! -f "$M/$n.input.pb" ] || [ ! -f "$M/$n.torch.pb" ]; then
        bad "$n: $M/$n.onnx, .input.pb or .torch.pb missing (tests/models.sh exports them)"
        continue
    fi
    mkdir -p "$T/$n"
    if ! "$PZ" tune "$M/$n.onnx" --strategy dlfusion --threads 2 -o "$T/$n/dl.json" \
        >"$T/log" 2>&1; then
        bad "$n: tune --strategy dlfusion failed"; tail -n 5 "$T/log"; continue
    fi
    if "$PY" - "$PZ" "$M/$n.onnx" "$M/$n.input.pb" "$M/$n.torch.pb" "$T/$n" "$NSPAN" "$wino" \
        >"$T/log" 2>&1 <<'EOF'
import filecmp, json, math, os, random, re, subprocess, sys
import numpy as np, onnx
from onnx import numpy_helper
pz, model, inp, torch_pb, d, nspan, wino = sys.argv[1:8]
nspan, wino = int(nspan), int(wino)
fails = []
def sh(*a):
    return subprocess.run(a, capture_output=True, text=True)
def fail(msg):
    print("FAIL", msg)
    fails.append(msg)
view = json.loads(sh(pz, "inspect", model, "--strategy", "none", "--json").stdout)
L = view["layers"]
rows = [b["layers"][0].get("rows", 0) for b in view["blocks"]]
local = [bool(b["row_local"]) for b in view["blocks"]]
dl = json.load(open(os.path.join(d, "dl.json")))
# the algorithm per layer as DLFusion chose it: Winograd where listed; a
# block without the key leaves its layers to the runtime's rule
wset, keyed = set(), set()
for b in dl["blocks"]:
    if "winograd" in b:
        wset |= set(b["winograd"])
        keyed |= set(range(b["first"], b["first"] + b["count"]))
def block(first, count, **kw):
    b = {"first": first, "count": count}
    b.update(kw)
    span = set(range(first, first + count))
    if span & keyed:
        b["winograd"] = sorted(wset & span)
    return b
def write(name, bl):
    p = os.path.join(d, name + ".json")
    json.dump({"version": 1, "layers": L, "blocks": bl}, open(p, "w"))
    return p
scheds = {}
ref = write("ref", [block(i, 1, mp=1) for i in range(L)])
scheds["dlfusion"] = os.path.join(d, "dl.json")
scheds["dlfusion-mp2-bands-strip3"] = write("dl2", [
    block(b["first"], b["count"], mp=2,
          split="bands" if all(local[b["first"]:b["first"] + b["count"]]) else "auto",
          strip=3 if b["count"] > 1 and rows[b["first"] + b["count"] - 1] > 0 else 0)
    for b in dl["blocks"]])
rnd = random.Random(sum(map(ord, os.path.basename(model))))
for k in range(nspan):
    bl, at = [], 0
    while at < L:
        cnt = 1
        while cnt < rnd.randint(2, 5) and at + cnt < L and local[at] and local[at + cnt]:
            cnt += 1
        last = at + cnt - 1
        if cnt == 1:
            bl.append(block(at, 1, mp=1))
        else:
            bl.append(block(at, cnt, mp=rnd.randint(1, 2), split=rnd.choice(["bands", "channels"]),
                            strip=rnd.choice([0, 1, 2, 3, 4, 5, 6, 7, 8, rows[last]])))
        at += cnt
    scheds["random-%d" % k] = write("random-%d" % k, bl)

refpb = os.path.join(d, "ref.pb")
r = sh(pz, "run", model, "--input", inp, "--output", refpb, "--schedule", ref, "--threads", "2",
       "--profile")
if r.returncode:
    sys.exit("the reference run failed: " + r.stderr[-600:])
a, b = (numpy_helper.to_array(onnx.load_tensor(p)) for p in (refpb, torch_pb))
err = np.abs(a - b).max() / max(np.abs(b).max(), 1e-30)
if a.shape != b.shape or err > 1e-4:
    fail("the reference (blocks of one layer, MP 1) differs from PyTorch: %.3g" % err)
nwino_ref = len(re.findall(r" winograd$", r.stdout + r.stderr, re.M))
if wino and nwino_ref == 0:
    fail("the reference runs no Winograd conv")
print("reference: %d Winograd convs, max |ours - torch| / max |torch| = %.3g" % (nwino_ref, err))

lay_pat = re.compile(r"^\s*(\d+) \S+\s+.*?\s(\d+)\s+(\d+)\s+[\d.]+\s+[\d.]+\s+(\S+)$")
blk_pat = re.compile(r"^\s*(\d+) (\d+)\.\.(\d+)\s+(\d+)\s+[\d.]+\s+[\d.]+\s*(.*)$")
run_pat = re.compile(r"(\d+) layers in (\d+) runs, (\w+), strip (\d+), redundant MACs (\d+)")
total = [0, 0]   # bands blocks, their redundant MACs (a pool's halo has none)
for name, path in scheds.items():
    out = os.path.join(d, name + ".pb")
    run = sh(pz, "run", model, "--input", inp, "--output", out, "--schedule", path,
             "--threads", "2", "--profile")
    if run.returncode or re.search("AddressSanitizer|runtime error:|internal error", run.stderr):
        fail("%s: run failed: %s" % (name, run.stderr[-600:]))
        continue
    if not filecmp.cmp(out, refpb, shallow=False):
        fail("%s: output differs from the same convs unfused" % name)
    kern, prof = {}, {}
    for line in (run.stdout + run.stderr).splitlines():
        m = lay_pat.match(line)
        if m:
            kern[int(m.group(1))] = m.group(4)
            continue
        m = blk_pat.match(line)
        if m:
            f = run_pat.search(m.group(5))
            prof[int(m.group(1))] = (int(m.group(2)), int(m.group(3)),
                                     tuple(int(x) if x.isdigit() else x for x in f.groups())
                                     if f else None)
    sched = json.load(open(path))["blocks"]
    fused_w = bands = red = 0
    strips = set()
    ins = sh(pz, "inspect", model, "--schedule", path, "--threads", "2", "--json")
    if ins.returncode:
        fail("%s: inspect failed: %s" % (name, ins.stderr[-400:]))
        continue
    halo = {b["index"]: b for b in json.loads(ins.stdout)["blocks"]}
    for i, b in enumerate(sched):
        lo, hi = b["first"], b["first"] + b["count"] - 1
        wl = [j for j in range(lo, hi + 1) if kern.get(j) == "winograd"]
        if b["count"] < 2 or not wl or i not in prof:
            continue
        f = prof[i][2]
        # DLFusion's own schedule (split auto) may end a run early, down to
        # one layer a run (rt/fuse.c: cut_before, e.g. a max pool then a
        # Winograd conv whose input fits L2); explicit splits fuse every
        # row-local layer in one run
        want = (b["count"], 1) if b.get("split") in ("bands", "channels") else None
        if f is None and want is None and b.get("mp", 1) > 1:
            continue   # split auto at MP > 1: cut before every window layer, no run left
        if f is None or (want and f[:2] != want):
            fail("%s: block %d (layers %d-%d, Winograd %s): fused column %s, wanted %s layers "
                 "in one run" % (name, i, lo, hi, wl, f, b["count"]))
            continue
        fused_w += len(wl)
        s, last = b.get("strip", 0), hi
        if f[:2] == (b["count"], 1) and s > 0:
            # the strip the runtime ran is the one inspect says it will run,
            # and whole tile rows when the run ends in a Winograd conv
            rs = halo[i]["strip_run"]
            tile = kern.get(last) != "winograd" or rs % 4 == 0 or rs == rows[last]
            if f[3] != rs or not tile:
                fail("%s: block %d: strip %d ran as %d, inspect says %d (the last layer %s, "
                     "%d rows)" % (name, i, s, f[3], rs, kern.get(last), rows[last]))
            strips.add((s, f[3]))
        if b.get("split") == "bands" and f[2] == "bands" and f[1] == 1:
            bands += 1
            red += f[4]
            h = halo.get(i)
            if not h or h["redundant_macs"] != f[4]:
                fail("%s: block %d (layers %d-%d): inspect counts %s redundant MACs, the runtime "
                     "%d" % (name, i, lo, hi, h and h["redundant_macs"], f[4]))
    # DLFusion's blocks follow this machine's profile, which may fuse no
    # Winograd conv (fusion not paying here): only the test's own random
    # blocks must put Winograd convs in fused runs
    if wino and fused_w == 0 and not name.startswith("dlfusion"):
        fail("%s: no Winograd conv ran in a fused run" % name)
    total[0] += bands
    total[1] += red
    print("%s: bitwise; %d Winograd convs in fused runs; %d bands blocks' halo compared "
          "(%d MACs); strips (schedule, run) %s" % (name, fused_w, bands, red, sorted(strips)))
if total[0] == 0 or total[1] == 0:
    fail("%d bands blocks with Winograd convs, %d redundant MACs: nothing compared" % tuple(total))
sys.exit(1 if fails else 0)
EOF
    then
        while read -r line; do ok "$n: $line"; done <"$T/log"
    else
        bad "$n: fused runs over Winograd convs"; cat "$T/log"
    fi
done
finish
