#!/usr/bin/python3
"""schedule_ref.py - helpers of tests/parts/40-schedule.sh.

  schedule_ref.py gen LAYERS.json OUTDIR SEED N MODEL_NAME
      LAYERS.json is `paleozoic inspect MODEL --strategy none --json` (one
      block per layer: names, ops, row-locality, rows). Writes schedules:
      groups.json (residual / inverted-residual blocks and VGG's layers before
      its first pool as blocks, MP 2, bands), fuse-all.json (one block, MP 2, auto),
      and random-K.json for K < N: random partitions, random MP 1..2, random
      split (bands only where every layer is row-local), strip and optional
      node names.

  schedule_ref.py ref MODEL.onnx BLOCKS.json [PROFILE]
      BLOCKS.json is `paleozoic inspect MODEL --schedule S --json`. For every
      block of more than one layer that paleozoic calls row-local, recomputes
      its redundant MACs for spatial bands over its MP cores independently:
      from the ONNX file (onnx's own shape inference, the Conv/Pool
      attributes, the weights' shapes), with per-core Python sets of rows
      instead of paleozoic's interval arithmetic. PROFILE, the output of
      `paleozoic run --profile` of the same convs, says which convs run
      Winograd F(4x4, 3x3) (kernel column "winograd"): those compute whole
      rows of 4x4 output tiles. Prints one line per block and
      `ref: N passed, N failed`.
"""
import json
import os
import random
import re
import sys


def have_avx512():
    """The ISA paleozoic runs here has AVX-512 (src/rt/cpu.c: the CPU's
    flags, capped by PZ_ISA)."""
    if os.environ.get("PZ_ISA") in ("ref", "scalar", "avx2"):
        return False
    try:
        flags = set()
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    break
    except OSError:
        return False
    return {"avx2", "fma", "avx512f", "avx512bw", "avx512dq", "avx512vl"} <= flags


avx512 = have_avx512()


def gen(layers_path, outdir, seed, n, model_name):
    info = json.load(open(layers_path))
    layers = [b["layers"][0] for b in info["blocks"]]
    local = [b["row_local"] for b in info["blocks"]]
    n_layers = len(layers)
    names = [l["name"] for l in layers]

    def block(first, count, mp, split="auto", strip=0, named=False):
        b = {"first": first, "count": count, "mp": mp, "split": split, "strip": strip}
        if named:
            b["first_node"] = names[first]
            b["last_node"] = names[first + count - 1]
        return b

    def write(fname, blocks):
        with open(os.path.join(outdir, fname), "w") as f:
            json.dump({"version": 1, "model": info["model"], "layers": n_layers,
                       "strategy": "tests/parts/40-schedule.sh", "blocks": blocks}, f, indent=1)

    # residual blocks (/layerX/layerX.Y/...) and MobileNetV2's inverted
    # residuals (/features/features.N/...) as blocks; VGG: the first 4 layers
    key_re = re.compile(r"^(/layer\d+/layer\d+\.\d+/|/features/features\.\d+/)")
    groups, i = [], 0
    if "vgg" in model_name:   # conv1_1, relu, conv1_2, relu: the layers before the first pool
        i = next(k for k, l in enumerate(layers) if l["op"] == "MaxPool")
        groups = [(0, i)]
    while i < n_layers:
        k = key_re.match(names[i])
        j = i + 1
        if k and "vgg" not in model_name:
            while j < n_layers and names[j].startswith(k.group(1)):
                j += 1
        groups.append((i, j - i))
        i = j
    blocks = []
    for first, count in groups:
        bands = count > 1 and all(local[first:first + count])
        blocks.append(block(first, count, 2 if bands else 1, "bands" if bands else "auto",
                            named=True))
    write("groups.json", blocks)
    write("fuse-all.json", [block(0, n_layers, 2)])
    rng = random.Random(seed)
    for k in range(n):
        cuts = sorted(rng.sample(range(1, n_layers), rng.randint(1, min(12, n_layers - 1))))
        bounds = [0] + cuts + [n_layers]
        blocks = []
        for a, b in zip(bounds, bounds[1:]):
            bands_ok = all(local[a:b])
            split = rng.choice(["auto", "channels", "bands"] if bands_ok else ["auto", "channels"])
            rows = layers[b - 1].get("rows", 0) if local[b - 1] else 0
            strip = rng.choice([0, 0, 1, max(1, rows // 3), rows]) if rows else 0
            blocks.append(block(a, b - a, rng.randint(1, 2), split, strip, rng.random() < 0.5))
        write("random-%d.json" % k, blocks)


def winograd_layers(profile_path):
    """Names of the layers a `paleozoic run --profile` output shows on the
    Winograd kernel (the last column of its layer lines)."""
    names = set()
    if profile_path:
        for line in open(profile_path):
            m = re.match(r"^\s*\d+ \S+\s+(\S+)\s+\d+\s+\d+\s+[\d.]+\s+[\d.]+\s+winograd$", line)
            if m:
                names.add(m.group(1))
    return names


def ref(model_path, blocks_path, profile_path=None):
    import onnx
    from onnx import shape_inference

    m = shape_inference.infer_shapes(onnx.load(model_path))
    g = m.graph
    shape = {}
    for vi in list(g.input) + list(g.value_info) + list(g.output):
        shape[vi.name] = [d.dim_value for d in vi.type.tensor_type.shape.dim]
    inits = {t.name: list(t.dims) for t in g.initializer}
    shape.update(inits)
    nodes = list(g.node)
    index = {n.name: i for i, n in enumerate(nodes)}
    outputs = {o.name for o in g.output}

    def attr(n, name, default):
        for a in n.attribute:
            if a.name == name:
                return list(a.ints) if a.ints else a.i
        return default

    def in_rows(n, k, rows, made):
        """Rows of input k of node n that output rows `rows` read (None: the
        input is not made in the block, or has no rows: weights, bias)."""
        x = n.input[k]
        if x not in made or (n.op_type == "Conv" and k > 0):
            return None
        xs = shape[x]
        if len(xs) < 3:
            raise ValueError("%s: input %s has no row axis" % (n.name, x))
        if n.op_type in ("Conv", "MaxPool", "AveragePool") and k == 0:
            ks = attr(n, "kernel_shape", None) or shape[n.input[1]][2:]
            kern = ks[0]
            stride = (attr(n, "strides", None) or [1])[0]
            pad = (attr(n, "pads", None) or [0])[0]
            dil = (attr(n, "dilations", None) or [1])[0]
            got = {r * stride - pad + j * dil for r in rows for j in range(kern)}
            return {r for r in got if 0 <= r < xs[2]}
        if n.op_type in ("Relu", "Clip", "Add", "Mul", "Sum", "BatchNormalization", "Identity",
                         "LeakyRelu", "Sigmoid", "HardSwish"):
            if xs[2] != shape[n.output[0]][2]:
                raise ValueError("%s: rows of %s differ from the output's" % (n.name, x))
            return set(rows)
        raise ValueError("%s: %s is not in this reference" % (n.name, n.op_type))

    wino = winograd_layers(profile_path)

    def gran(v):
        """Row granularity of the runtime kernel of the layer making value v
        (a Relu or residual Add goes with its conv's layer): a Winograd conv
        computes whole rows of its 4x4 output tiles; on AVX-512 a direct conv
        (group 1, 2-D) at most 7 wide with 2+ rows computes pairs of rows
        (two-row tiles: src/rt/rows.h, which src/opt/halo.c asks); AVX2 and
        the scalar kernels have none."""
        i = producer.get(v)
        i = layer_node.get(i, i)
        if i is not None and nodes[i].name in wino:
            return 4
        if not avx512 or i is None or nodes[i].op_type != "Conv" or attr(nodes[i], "group", 1) != 1:
            return 1
        y = shape[nodes[i].output[0]]
        return 2 if len(y) == 4 and y[3] <= 7 and y[2] >= 2 else 1

    def macs_per_row(n):
        if n.op_type != "Conv":
            return 0
        y, w = shape[n.output[0]], shape[n.input[1]]
        per = y[0] * y[1] * w[1]   # N * M * C/group
        for d in w[2:]:
            per *= d
        for d in y[3:]:
            per *= d
        return per

    info = json.load(open(blocks_path))
    # Which block each ONNX node belongs to: a layer by its name; a node the
    # graph passes fused into a layer (Relu, Clip, the residual Add, a folded
    # BatchNormalization) goes with the producer of its first computed input.
    block_of_layer = {l["name"]: b["index"] for b in info["blocks"] for l in b["layers"]}
    producer = {o: i for i, n in enumerate(nodes) for o in n.output}
    owner, layer_node = {}, {}   # node -> its block; node -> its layer's node
    for i, n in enumerate(nodes):
        if n.op_type == "Constant":
            continue
        if n.name in block_of_layer:
            owner[i] = block_of_layer[n.name]
            layer_node[i] = i
        else:
            for x in n.input:
                if x in producer and producer[x] in owner:
                    owner[i] = owner[producer[x]]
                    layer_node[i] = layer_node[producer[x]]
                    break
    passed = failed = 0
    for b in info["blocks"]:
        if b["count"] < 2 or not b["row_local"]:
            continue
        first, last = b["layers"][0]["name"], b["layers"][-1]["name"]
        mp = b["mp"]
        try:
            ids = [i for i in range(len(nodes)) if owner.get(i) == b["index"]]
            # values that leave the block: graph outputs, and values read
            # by nodes outside it (the last layer's value is one of them)
            inside = set(ids)
            made = {o for i in ids for o in nodes[i].output}
            leaving = made & outputs
            for j, n in enumerate(nodes):
                if j not in inside:
                    leaving |= made & set(n.input)
            computed = {i: [] for i in ids}
            for c in range(mp):
                need = {}
                for v in leaving:
                    # bands of whole units of the producer's granularity
                    h, gv = shape[v][2], gran(v)
                    q, r = divmod((h + gv - 1) // gv, mp)
                    lo = c * q + min(c, r)
                    need[v] = set(range(min(lo * gv, h), min((lo + q + (1 if c < r else 0)) * gv, h)))
                for i in reversed(ids):
                    n = nodes[i]
                    rows = set()
                    for o in n.output:
                        rows |= need.get(o, set())
                    g2 = gran(n.output[0])
                    if rows and g2 > 1:   # whole pairs (the runtime's hull of them)
                        h = shape[n.output[0]][2]
                        rows = set(range(min(rows) // g2 * g2, min(-(-(max(rows) + 1) // g2) * g2, h)))
                    computed[i].append(rows)
                    for k in range(len(n.input)):
                        got = in_rows(n, k, rows, made)
                        if got is not None:
                            need.setdefault(n.input[k], set()).update(got)
            want = 0
            for i in ids:
                s = computed[i]
                want += (sum(len(x) for x in s) - len(set().union(*s))) * macs_per_row(nodes[i])
        except (ValueError, KeyError) as e:
            print("FAIL block %d (%s .. %s): reference cannot follow it: %s" %
                  (b["index"], first, last, e))
            failed += 1
            continue
        got = b["bands_redundant_macs"]
        ok = got == want
        passed += ok
        failed += not ok
        print("%s block %d layers %d-%d MP %d: redundant MACs %d (reference %d, %.2f%% of %d)" %
              ("ok  " if ok else "FAIL", b["index"], b["first"], b["first"] + b["count"] - 1, mp,
               got, want, 100.0 * want / b["macs"] if b["macs"] else 0.0, b["macs"]))
    print("ref: %d passed, %d failed" % (passed, failed))
    return failed == 0


if __name__ == "__main__":
    if len(sys.argv) == 7 and sys.argv[1] == "gen":
        gen(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6])
    elif len(sys.argv) in (4, 5) and sys.argv[1] == "ref":
        sys.exit(0 if ref(*sys.argv[2:]) else 1)
    else:
        sys.exit(__doc__)
