"""small_types.py - the element types and modes added for the ONNX node tests,
checked end to end through `paleozoic run` against independent implementations:

  - float8 casts (e4m3fn, e4m3fnuz, e5m2, e5m2fnuz; saturate 1 and 0) against
    ONNX Runtime 1.17 (onnxruntime-node in ./node_modules) on a grid of
    exact values, ties, neighbours, out-of-range values, inf, NaN, -0;
  - int4/uint4/int2/uint2 files: packed outputs written by `run --output`
    and packed inputs read, against numpy (unpacked here by the spec: low bits
    first, two or four to a byte);
  - BatchNormalization training_mode=1 after a Conv (it must not be folded
    into it) with its running statistics, against numpy;
  - Resize antialias (linear, cubic A=-0.5) against PyTorch's
    interpolate(antialias=True).

Called by front_cases.py: cases(ctx) with its helpers.
"""
import json
import os
import subprocess

import numpy as np
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
F8 = {17: "float8e4m3fn", 18: "float8e4m3fnuz", 19: "float8e5m2", 20: "float8e5m2fnuz"}

ORT_JS = r"""
const ort = require(process.argv[2]);
const fs = require('fs');
(async () => {
  const s = await ort.InferenceSession.create(process.argv[3]);
  const b = fs.readFileSync(process.argv[4]);
  const x = new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.length));
  const r = await s.run({x: new ort.Tensor('float32', x, [x.length])});
  fs.writeFileSync(process.argv[5], Buffer.from(r.z.data.buffer));
})().catch(e => { console.error(String(e)); process.exit(1); });
"""


def f8_inputs():
    """Exact float8 values of every exponent, the midpoints between them (ties),
    values a little off the ties, out-of-range values, and the specials."""
    v = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e6, -1e6, 1e-9, -1e-9, 448, 464, 465, 480, 240,
         248, 249, 57344, 61440, 61441, 65536, 3.4e38]
    for e in range(-20, 17):
        for m in range(16):
            a = 2.0 ** e * (1 + m / 16)
            v += [a, -a, a * (1 + 1 / 64), a * (1 - 1 / 64)]
    x = np.array(v, np.float32)
    return np.concatenate([x, np.random.default_rng(3).standard_normal(200).astype(np.float32) * 50])


def ort_deviations(to, sat, x, ort):
    """Where ONNX Runtime 1.17 departs from the ONNX spec and its backend test
    data, the spec's value (NaN where ORT's stands). Three known cases:
      - fnuz types: a negative value that rounds to zero gives ORT's NaN
        (0x80); the spec (fnuz has no -0) and the node test
        test_cast_FLOAT_to_FLOAT8E4M3FNUZ (-1e-7 -> 0x00) give +0;
      - e4m3fn, saturate=0: 464 < |x| (rounds past 448) gives ORT 448; the
        spec's table gives NaN;
      - e5m2, saturate=0: 61440 <= |x| < inf (rounds to 2^16) gives ORT NaN;
        the spec gives +-inf (and test_cast_no_saturate_FLOAT_to_FLOAT8E5M2
        has 1e6 -> 0x7C)."""
    spec = np.full(x.shape, np.nan, np.float32)
    why = np.array([""] * len(x), object)
    a = np.abs(x)
    if to in (18, 20):
        tiny = 2.0 ** -11 if to == 18 else 2.0 ** -18   # half the smallest subnormal
        m = (x < 0) & (a <= tiny) & np.isnan(ort)
        spec[m] = 0.0
        why[m] = "zero"
    if to == 17 and sat == 0:
        m = (a > 464) & np.isfinite(x) & ~np.isnan(ort)
        why[m] = "nan"
    if to == 19 and sat == 0:
        m = (a >= 61440) & np.isfinite(x)
        spec[m] = np.where(x[m] > 0, np.inf, -np.inf)
        why[m] = "inf"
    return spec, why


def same_floats(a, b):
    """Equal as bits, except that any NaN equals any NaN."""
    if a.shape != b.shape:
        return False
    nan = np.isnan(a) & np.isnan(b)
    return bool(np.all(nan | (a.view(np.uint32) == b.view(np.uint32))))


def unpack(raw, bits, n, signed):
    b = np.frombuffer(raw, np.uint8)
    per = 8 // bits
    v = np.array([(b[i // per] >> (bits * (i % per))) & ((1 << bits) - 1) for i in range(n)], np.int64)
    if signed:
        v = np.where(v >= 1 << (bits - 1), v - (1 << bits), v)
    return v


def pack(vals, bits):
    per = 8 // bits
    out = bytearray((len(vals) + per - 1) // per)
    for i, v in enumerate(vals):
        out[i // per] |= (int(v) & ((1 << bits) - 1)) << (bits * (i % per))
    return bytes(out)


def cases(c):
    run, check, save, model_of, W, PZ = c["run"], c["check"], c["save"], c["model_of"], c["W"], c["PZ"]
    rng = np.random.default_rng(11)

    # 1. float8 round trips against ONNX Runtime
    x = f8_inputs()
    xin = os.path.join(W, "f8_x.bin")
    x.tofile(xin)
    js = os.path.join(W, "f8_ort.js")
    with open(js, "w") as fh:
        fh.write(ORT_JS)
    ort_mod = os.path.join(ROOT, "node_modules", "onnxruntime-node")
    for to, name in F8.items():
        for sat in (1, 0):
            nodes = [helper.make_node("Cast", ["x"], ["y8"], to=to, saturate=sat, name="to8"),
                     helper.make_node("Cast", ["y8"], ["z"], to=TensorProto.FLOAT, name="back")]
            m = model_of(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [len(x)])],
                         [helper.make_tensor_value_info("z", TensorProto.FLOAT, [len(x)])], opset=19)
            m.ir_version = 9
            label = "cast_%s_saturate%d_vs_ort" % (name, sat)
            path = save(m, label)
            zout = os.path.join(W, label + ".ort.bin")
            r = subprocess.run(["node", js, ort_mod, path, xin, zout], capture_output=True, text=True)
            if r.returncode != 0:
                check(False, label, "ONNX Runtime failed: " + r.stderr.strip())
                continue
            want = np.fromfile(zout, np.float32)
            spec, why = ort_deviations(to, sat, x, want)
            want = np.where(np.isnan(spec), want, spec).astype(np.float32)
            want[why == "nan"] = np.nan
            got, err = run(path, [x])
            ok = got is not None and same_floats(got[0], want)
            detail = err
            if got is not None and not ok:
                bad = [i for i in range(len(x)) if not same_floats(got[0][i:i + 1], want[i:i + 1])]
                detail = "%d differ, e.g. x=%r: ours %r, ORT %r" % (len(bad), x[bad[0]], got[0][bad[0]],
                                                                   want[bad[0]])
            check(ok, label, detail)

    # 2. packed 4- and 2-bit integers: outputs written packed, inputs read packed
    for to, bits, signed, name in ((22, 4, True, "int4"), (21, 4, False, "uint4"),
                                   (26, 2, True, "int2"), (25, 2, False, "uint2")):
        xv = np.arange(-9, 10, dtype=np.float32)   # odd count: a half-used last byte
        m = model_of([helper.make_node("Cast", ["x"], ["y"], to=to, name="cast")],
                     [helper.make_tensor_value_info("x", TensorProto.FLOAT, [len(xv)])],
                     [helper.make_tensor_value_info("y", to, [len(xv)])], opset=21)
        m.ir_version = 10
        path = save(m, "pack_" + name)
        out = os.path.join(W, "pack_%s.out.pb" % name)
        xf = os.path.join(W, "pack_%s.in.pb" % name)
        with open(xf, "wb") as fh:
            fh.write(numpy_helper.from_array(xv).SerializeToString())
        r = subprocess.run([PZ, "run", path, "--input", xf, "--output", out], capture_output=True, text=True)
        want = xv.astype(np.int64) & ((1 << bits) - 1)   # numpy-style wrap to the low bits
        if signed:
            want = np.where(want >= 1 << (bits - 1), want - (1 << bits), want)
        ok, detail = False, r.stderr.strip()
        if r.returncode == 0:
            t = TensorProto()
            with open(out, "rb") as fh:
                t.ParseFromString(fh.read())
            expect_len = (len(xv) * bits + 7) // 8
            got = unpack(t.raw_data, bits, len(xv), signed)
            ok = t.data_type == to and len(t.raw_data) == expect_len and np.array_equal(got, want)
            detail = "type %d, %d bytes (want %d), values %s, want %s" % (t.data_type, len(t.raw_data),
                                                                         expect_len, got, want)
        check(ok, "packed_output_" + name, detail)
        # and back: a packed input cast to float
        m = model_of([helper.make_node("Cast", ["q"], ["f"], to=TensorProto.FLOAT, name="cast")],
                     [helper.make_tensor_value_info("q", to, [len(want)])],
                     [helper.make_tensor_value_info("f", TensorProto.FLOAT, [len(want)])], opset=21)
        m.ir_version = 10
        path = save(m, "unpack_" + name)
        qf = os.path.join(W, "unpack_%s.in.pb" % name)
        t = TensorProto(name="q", data_type=to, dims=[len(want)], raw_data=pack(want, bits))
        with open(qf, "wb") as fh:
            fh.write(t.SerializeToString())
        fo = os.path.join(W, "unpack_%s.out.pb" % name)
        r = subprocess.run([PZ, "run", path, "--input", qf, "--output", fo], capture_output=True, text=True)
        ok = False
        if r.returncode == 0:
            t = TensorProto()
            with open(fo, "rb") as fh:
                t.ParseFromString(fh.read())
            ok = np.array_equal(numpy_helper.to_array(t), want.astype(np.float32))
        check(ok, "packed_input_" + name, r.stderr.strip() or "values differ")

    # 3. BatchNormalization in training mode after a Conv
    xv = rng.standard_normal((2, 3, 5, 5)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    sc, bi = rng.standard_normal(4).astype(np.float32), rng.standard_normal(4).astype(np.float32)
    mean, var = rng.standard_normal(4).astype(np.float32), rng.random(4).astype(np.float32) + 0.5
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], name="conv"),
             helper.make_node("BatchNormalization", ["c", "s", "b", "m", "v"], ["y", "rm", "rv"],
                              training_mode=1, momentum=0.8, epsilon=1e-3, name="bn")]
    inits = [numpy_helper.from_array(a, n) for a, n in ((w, "w"), (sc, "s"), (bi, "b"), (mean, "m"), (var, "v"))]
    outs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4, 3, 3]),
            helper.make_tensor_value_info("rm", TensorProto.FLOAT, [4]),
            helper.make_tensor_value_info("rv", TensorProto.FLOAT, [4])]
    m = model_of(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 5, 5])], outs,
                 inits, opset=15)
    got, err = run(save(m, "bn_training"), [xv])
    conv = np.zeros((2, 4, 3, 3), np.float64)
    for i in range(3):
        for j in range(3):
            conv += np.einsum("nchw,oc->nohw", xv[:, :, i:i + 3, j:j + 3], w[:, :, i, j])
    bm, bv = conv.mean(axis=(0, 2, 3)), conv.var(axis=(0, 2, 3))
    y = (conv - bm[None, :, None, None]) / np.sqrt(bv[None, :, None, None] + 1e-3) * sc[None, :, None, None] \
        + bi[None, :, None, None]
    want = [y, mean * 0.8 + bm * 0.2, var * 0.8 + bv * 0.2]
    ok = got is not None and all(np.allclose(g, wv, rtol=1e-4, atol=1e-4) for g, wv in zip(got, want))
    check(ok, "batchnorm_training_after_conv", err or "values differ")

    # 4. Resize antialias against PyTorch (bilinear; bicubic with A = -0.5).
    # Away from the borders the two agree; at the borders they differ by
    # design (ONNX pads the input with its edge values, PyTorch drops the
    # taps outside and renormalises), and the ONNX node tests check those.
    import torch
    import torch.nn.functional as F
    xv = rng.standard_normal((1, 2, 41, 53)).astype(np.float32)

    def inner(n_in, n_out, reach):
        s = n_out / n_in
        xs = (np.arange(n_out) + 0.5) / s - 0.5
        r = reach / min(s, 1.0) + 1
        return (xs - r >= 0) & (xs + r <= n_in - 1)

    for mode, tmode, size in (("linear", "bilinear", (9, 13)), ("linear", "bilinear", (17, 7)),
                              ("cubic", "bicubic", (9, 13)), ("cubic", "bicubic", (6, 20))):
        sizes = numpy_helper.from_array(np.array([1, 2, size[0], size[1]], np.int64), "sizes")
        node = helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], mode=mode, antialias=1,
                                cubic_coeff_a=-0.5, name="resize")
        m = model_of([node], [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(xv.shape))],
                     [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, size[0], size[1]])],
                     [sizes], opset=18)
        label = "resize_antialias_%s_%dx%d_vs_torch" % (mode, size[0], size[1])
        got, err = run(save(m, label), [xv])
        want = F.interpolate(torch.from_numpy(xv), size=size, mode=tmode, align_corners=False,
                             antialias=True).numpy()
        reach = 2 if mode == "cubic" else 1
        mask = inner(41, size[0], reach)[:, None] & inner(53, size[1], reach)[None, :]
        ok = got is not None and got[0].shape == want.shape and mask.sum() >= 4
        diff = np.abs(got[0] - want)[:, :, mask] if ok else np.array([-1.0])
        ok = ok and np.allclose(got[0][:, :, mask], want[:, :, mask], rtol=1e-4, atol=1e-5)
        check(ok, label, err or "%d inner outputs, max |diff| %g" % (mask.sum(), diff.max()))

    # 5. a Cast with non-default params (saturate=0) through the code generator:
    # the built program (default and --emit raw) equals `paleozoic run` bit for bit
    label = "cast_float8e4m3fn_saturate0_vs_ort"
    path = os.path.join(W, label + ".onnx")
    xin = os.path.join(W, label + ".onnx.in0.pb")
    ref = os.path.join(W, label + ".run.pb")
    r = subprocess.run([PZ, "run", path, "--input", xin, "--output", ref], capture_output=True, text=True)
    for emit in ([], ["--emit", "raw"]):
        exe = os.path.join(W, "f8exe" + ("_raw" if emit else ""))
        b = subprocess.run([PZ, "build", path, "-o", exe] + emit, capture_output=True, text=True)
        ok, detail = False, (r.stderr + b.stderr).strip()
        if r.returncode == 0 and b.returncode == 0:
            out = exe + ".out.pb"
            e = subprocess.run([exe, "--input", xin, "--output", out], capture_output=True, text=True)
            if e.returncode == 0:
                tr, te = TensorProto(), TensorProto()
                with open(ref, "rb") as fh:
                    tr.ParseFromString(fh.read())
                with open(out, "rb") as fh:
                    te.ParseFromString(fh.read())
                a, bb = numpy_helper.to_array(tr), numpy_helper.to_array(te)
                ok = a.shape == bb.shape and np.array_equal(a.view(np.uint32), bb.view(np.uint32))
                detail = "values differ"
            else:
                detail = e.stderr.strip()
        check(ok, "cast_saturate0_built_program" + ("_emit_raw" if emit else ""), detail)
