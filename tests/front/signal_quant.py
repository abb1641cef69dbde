"""signal_quant.py - the signal and quantization ops of issue 39 through
`paleozoic run`, against independent implementations:

  - DFT (opsets 17 and 20: axis attribute and input, real and complex,
    onesided, inverse, irfft, dft_length cutting and padding) against
    numpy.fft;
  - STFT (real and complex signal, window, onesided 0/1) against numpy.fft
    of each windowed frame;
  - HannWindow, HammingWindow, BlackmanWindow (periodic and symmetric)
    against PyTorch's windows;
  - MelWeightMatrix, ConvInteger, QLinearConv (int8/uint8, per-channel w
    scale and zero point, groups, strides, dilations, pads, bias) and
    QuantizeLinear to float8 (saturate 1 and 0) against ONNX Runtime 1.17.

Called by front_cases.py: cases(ctx) with its helpers.
"""
import json
import os
import subprocess

import numpy as np
from onnx import TensorProto, helper, numpy_helper

import small_types

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Runs MODEL on the .pb files named in a JSON spec; writes each output as a
# .pb-free raw file plus its dims (ORT's tensor types by ONNX type number).
ORT_JS = r"""
const ort = require(process.argv[2]);
const fs = require('fs');
const spec = JSON.parse(fs.readFileSync(process.argv[3], 'utf8'));
const T = {1: ['float32', Float32Array], 2: ['uint8', Uint8Array], 3: ['int8', Int8Array],
           6: ['int32', Int32Array], 7: ['int64', BigInt64Array]};
(async () => {
  const s = await ort.InferenceSession.create(spec.model);
  const feeds = {};
  for (const i of spec.inputs) {
    const b = fs.readFileSync(i.file);
    const [name, A] = T[i.type];
    const ab = b.buffer.slice(b.byteOffset, b.byteOffset + b.length);
    feeds[i.name] = new ort.Tensor(name, new A(ab), i.dims);
  }
  const r = await s.run(feeds);
  const meta = {};
  for (const [k, v] of Object.entries(r)) {
    fs.writeFileSync(spec.out + '.' + k + '.bin', Buffer.from(v.data.buffer, v.data.byteOffset, v.data.byteLength));
    meta[k] = {dims: v.dims, type: v.type};
  }
  fs.writeFileSync(spec.out + '.json', JSON.stringify(meta));
})().catch(e => { console.error(String(e)); process.exit(1); });
"""
NP = {"float32": np.float32, "uint8": np.uint8, "int8": np.int8, "int32": np.int32,
      "int64": np.int64}
ONNX_T = {np.dtype(np.float32): 1, np.dtype(np.uint8): 2, np.dtype(np.int8): 3,
          np.dtype(np.int32): 6, np.dtype(np.int64): 7}


def ort_run(W, path, names, feeds):
    """ONNX Runtime's outputs (list in graph order of the names it returns)."""
    js = os.path.join(W, "sq_ort.js")
    if not os.path.exists(js):
        with open(js, "w") as fh:
            fh.write(ORT_JS)
    ins = []
    for nm, a in zip(names, feeds):
        f = "%s.%s.ort.bin" % (path, nm)
        a.tofile(f)
        ins.append({"name": nm, "type": ONNX_T[a.dtype], "dims": list(a.shape), "file": f})
    sp = path + ".ort.json"
    with open(sp, "w") as fh:
        json.dump({"model": path, "inputs": ins, "out": path + ".ortout"}, fh)
    r = subprocess.run(["node", js, os.path.join(ROOT, "node_modules", "onnxruntime-node"), sp],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None, "ONNX Runtime failed: " + r.stderr.strip()
    with open(path + ".ortout.json") as fh:
        meta = json.load(fh)
    outs = []
    for k, m in meta.items():
        outs.append(np.fromfile(path + ".ortout.%s.bin" % k, NP[m["type"]]).reshape(m["dims"]))
    return outs, ""


def vi(name, t, dims):
    return helper.make_tensor_value_info(name, t, dims)


def cases(c):
    run, check, save, model_of, W = c["run"], c["check"], c["save"], c["model_of"], c["W"]
    rng = np.random.default_rng(39)

    def cmp(label, got, err, want, tol):
        ok = got is not None and got[0].shape == want.shape and \
            np.allclose(got[0], want, rtol=tol, atol=tol)
        detail = err or ("shape %s, want %s; max diff %.3g" % (
            got[0].shape, want.shape,
            np.abs(got[0] - want).max() if got[0].shape == want.shape else -1))
        check(ok, label, detail)

    # 1. DFT against numpy.fft
    for opset in (17, 20):
        for cplx in (0, 1):
            for mode in ("fwd", "inv", "onesided", "cut", "pad", "irfft"):
                if mode == "irfft" and not cplx:
                    continue
                for axis in (1, 2):
                    shape = [2, 8, 5] if axis == 1 else [2, 3, 7]
                    n0 = shape[axis]
                    x = rng.standard_normal(shape + [2 if cplx else 1]).astype(np.float32)
                    xc = x[..., 0] + (1j * x[..., 1] if cplx else 0)
                    attrs = {"inverse": int(mode in ("inv", "irfft")),
                             "onesided": int(mode in ("onesided", "irfft"))}
                    L = {"cut": n0 - 2, "pad": n0 + 3, "irfft": 2 * (n0 - 1)}.get(mode)
                    if mode == "irfft" and axis == 2:
                        L = 2 * n0 - 1   # odd length, given
                    ins, feeds, names = ["x"], [x], ["x"]
                    if L is not None and not (mode == "irfft" and axis == 1):
                        ins.append("len")
                        feeds.append(np.array(L, np.int64))
                        names.append("len")
                    elif opset >= 20:
                        ins.append("")
                    if opset >= 20:
                        ins.append("axis")
                        feeds.append(np.array(axis - 4 if axis == 2 else axis, np.int64))
                        names.append("axis")
                    else:
                        attrs["axis"] = axis
                    if mode == "irfft":
                        want = np.fft.irfft(xc, n=L, axis=axis)[..., None]
                    elif mode == "inv":
                        want = np.fft.ifft(xc, axis=axis)
                    else:
                        want = np.fft.fft(xc, n=L, axis=axis)
                        if mode == "onesided":
                            want = np.take(want, range(n0 // 2 + 1), axis=axis)
                    if mode != "irfft":
                        want = np.stack([want.real, want.imag], -1)
                    want = want.astype(np.float32)
                    m = model_of([helper.make_node("DFT", ins, ["y"], name="dft", **attrs)],
                                 [vi(nm, ONNX_T[f.dtype], list(f.shape)) for nm, f in
                                  zip(names, feeds)], [vi("y", TensorProto.FLOAT, None)],
                                 opset=opset)
                    label = "dft_opset%d_%s_%s_axis%d" % (opset, "complex" if cplx else "real",
                                                          mode, axis)
                    got, err = run(save(m, label), feeds)
                    cmp(label, got, err, want, 1e-4)

    # lengths the FFTs take: radix-2 (256) and Bluestein (100, 400)
    for n0, mode in ((100, "fwd"), (100, "irfft"), (256, "inv"), (400, "onesided")):
        cplx = mode != "onesided"
        x = rng.standard_normal([3, n0, 2 if cplx else 1]).astype(np.float32)
        xc = x[..., 0] + (1j * x[..., 1] if cplx else 0)
        want = {"fwd": lambda: np.fft.fft(xc, axis=1), "inv": lambda: np.fft.ifft(xc, axis=1),
                "irfft": lambda: np.fft.irfft(xc, n=2 * n0 - 2, axis=1)[..., None],
                "onesided": lambda: np.fft.rfft(xc, axis=1)}[mode]()
        if mode != "irfft":
            want = np.stack([want.real, want.imag], -1)
        attrs = {"axis": 1, "inverse": int(mode in ("inv", "irfft")),
                 "onesided": int(mode in ("onesided", "irfft"))}
        m = model_of([helper.make_node("DFT", ["x"], ["y"], name="dft", **attrs)],
                     [vi("x", TensorProto.FLOAT, list(x.shape))], [vi("y", TensorProto.FLOAT, None)],
                     opset=17)
        label = "dft_len%d_%s" % (n0, mode)
        got, err = run(save(m, label), [x])
        cmp(label, got, err, want.astype(np.float32), 1e-4)

    # 2. STFT against numpy.fft of each windowed frame
    for cplx, onesided, fl in ((0, 0, 12), (0, 1, 12), (1, 0, 12), (0, 1, 16), (1, 0, 16),
                               (0, 1, 100)):
        L, step = 5 * fl, 7
        x = rng.standard_normal([2, L, 2 if cplx else 1]).astype(np.float32)
        win = rng.random(fl).astype(np.float32)
        xc = x[..., 0] + (1j * x[..., 1] if cplx else 0)
        frames = (L - fl) // step + 1
        fr = np.stack([xc[:, f * step:f * step + fl] * win for f in range(frames)], 1)
        want = np.fft.fft(fr, axis=-1)
        if onesided:
            want = want[..., :fl // 2 + 1]
        want = np.stack([want.real, want.imag], -1).astype(np.float32)
        feeds = [x, np.array(step, np.int64), win, np.array(fl, np.int64)]
        names = ["x", "step", "w", "len"]
        m = model_of([helper.make_node("STFT", names, ["y"], name="stft", onesided=onesided)],
                     [vi(nm, ONNX_T[f.dtype], list(f.shape)) for nm, f in zip(names, feeds)],
                     [vi("y", TensorProto.FLOAT, None)], opset=17)
        label = "stft_%s_onesided%d_len%d" % ("complex" if cplx else "real", onesided, fl)
        got, err = run(save(m, label), feeds)
        cmp(label, got, err, want, 1e-4)

    # 3. the windows against PyTorch's
    import torch
    TW = {"HannWindow": lambda n, p: torch.hann_window(n, periodic=p, dtype=torch.float64),
          "HammingWindow": lambda n, p: torch.hamming_window(n, periodic=p, alpha=25 / 46,
                                                              beta=21 / 46, dtype=torch.float64),
          "BlackmanWindow": lambda n, p: torch.blackman_window(n, periodic=p,
                                                                dtype=torch.float64)}
    for op, fn in TW.items():
        for periodic in (0, 1):
            for n in (2, 7, 16):
                m = model_of([helper.make_node(op, ["n"], ["y"], name="w", periodic=periodic)],
                             [vi("n", TensorProto.INT64, [])], [vi("y", TensorProto.FLOAT, None)],
                             opset=17)
                label = "%s_n%d_periodic%d" % (op.lower(), n, periodic)
                got, err = run(save(m, label), [np.array(n, np.int64)])
                cmp(label, got, err, fn(n, bool(periodic)).numpy().astype(np.float32), 1e-6)

    # 4. MelWeightMatrix against ONNX Runtime
    for nm_, dl, sr, lo, hi in ((8, 16, 8192, 0.0, 4096.0), (10, 64, 16000, 20.0, 7600.0),
                                (5, 31, 22050, 300.0, 8000.0)):
        feeds = [np.array(nm_, np.int64), np.array(dl, np.int64), np.array(sr, np.int64),
                 np.array(lo, np.float32), np.array(hi, np.float32)]
        names = ["nm", "dl", "sr", "lo", "hi"]
        m = model_of([helper.make_node("MelWeightMatrix", names, ["y"], name="mel")],
                     [vi(nm, ONNX_T[f.dtype], []) for nm, f in zip(names, feeds)],
                     [vi("y", TensorProto.FLOAT, None)], opset=17)
        m.ir_version = 8
        label = "melweightmatrix_%d_%d_%d_vs_ort" % (nm_, dl, sr)
        path = save(m, label)
        want, err = ort_run(W, path, names, feeds)
        if want is None:
            check(False, label, err)
            continue
        got, err = run(path, feeds)
        cmp(label, got, err, want[0], 1e-6)

    # 5. ConvInteger and QLinearConv: the integer sums against PyTorch's
    # conv2d in double (exact here), QLinearConv's requantisation as the
    # ONNX reference does it (the sum times the float32 factor in double);
    # and against ONNX Runtime 1.17 where it runs the case (ConvInteger:
    # uint8 only, per-tensor zero points; QLinearConv: one w zero point
    # value). ORT multiplies in float32: it may differ where that rounding
    # moves the product across a half, and only there.
    import torch.nn.functional as F

    def int_conv(x, w, xz, wz, g):
        """(x - xz) conv (w - wz) in float64, ONNX's pads/strides/dilations."""
        st, dl = g.get("strides", [1, 1]), g.get("dilations", [1, 1])
        xs_, ks = x.shape[2:], w.shape[2:]
        if g.get("auto_pad") == "SAME_UPPER":
            pads = [0, 0, 0, 0]
            for i in range(2):
                o = -(-xs_[i] // st[i])
                t = max((o - 1) * st[i] + (ks[i] - 1) * dl[i] + 1 - xs_[i], 0)
                pads[i], pads[i + 2] = t // 2, t - t // 2
        else:
            pads = g["pads"]
        xt = torch.from_numpy(x.astype(np.float64) - float(xz))
        xt = F.pad(xt, (pads[1], pads[3], pads[0], pads[2]))   # zero after the shift
        wt = torch.from_numpy(w.astype(np.float64) - wz.astype(np.float64).reshape(-1, 1, 1, 1))
        return F.conv2d(xt, wt, stride=st, dilation=dl, groups=g["group"]).numpy()

    geo = ({"group": 1, "pads": [1, 1, 1, 1]},
           {"group": 2, "strides": [2, 1], "dilations": [1, 2], "pads": [0, 2, 1, 0]},
           {"group": 1, "auto_pad": "SAME_UPPER", "strides": [2, 2]})
    for gi, g in enumerate(geo):
        for tx, tw in ((np.uint8, np.uint8), (np.uint8, np.int8), (np.int8, np.int8)):
            for per_ch in (0, 1):
                C, M, H, Wd = 4, 6, 7, 8
                x = rng.integers(np.iinfo(tx).min, np.iinfo(tx).max + 1, (2, C, H, Wd)).astype(tx)
                w = rng.integers(np.iinfo(tw).min, np.iinfo(tw).max + 1,
                                 (M, C // g["group"], 3, 3)).astype(tw)
                xz = np.array(int(rng.integers(0, 20)) * (1 if tx == np.uint8 else -1), tx)
                wz = (rng.integers(0, 5, M) if per_ch else np.array(3)).astype(tw)
                acc = int_conv(x, w, xz, np.broadcast_to(wz, (M,)), g)
                tn = "%s_%s" % (np.dtype(tx).name, np.dtype(tw).name)
                # ConvInteger
                feeds, names = [x, w, xz, wz], ["x", "w", "xz", "wz"]
                m = model_of([helper.make_node("ConvInteger", names, ["y"], name="ci", **g)],
                             [vi(nm, ONNX_T[f.dtype], list(f.shape)) for nm, f in zip(names, feeds)],
                             [vi("y", TensorProto.INT32, None)], opset=10)
                m.ir_version = 8
                label = "convinteger_g%d_%s_perch%d" % (gi, tn, per_ch)
                path = save(m, label)
                got, err = run(path, feeds)
                ok = got is not None and got[0].shape == acc.shape and np.array_equal(got[0], acc)
                check(ok, label, err or "differs from the conv in double")
                if got is not None and tx == tw == np.uint8 and not per_ch:
                    want, err = ort_run(W, path, names, feeds)
                    check(want is not None and np.array_equal(got[0], want[0]), label + "_vs_ort",
                          err or "differs from ONNX Runtime")
                # QLinearConv
                ty = tx
                wzq = np.full_like(wz, wz.flat[0]) if per_ch else wz   # ORT: one w zero point value
                acc = int_conv(x, w, xz, np.broadcast_to(wzq, (M,)), g)
                ws = (rng.random(M) * 0.02 + 0.001 if per_ch else np.array(0.01)).astype(np.float32)
                xs, ys = np.float32(0.05), np.float32(0.9)
                yz = np.array(10 if ty == np.uint8 else -3, ty)
                b = rng.integers(-3000, 3000, M).astype(np.int32)
                feeds = [x, np.array(xs), xz, w, ws, wzq, np.array(ys), yz, b]
                names = ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"]
                m = model_of([helper.make_node("QLinearConv", names, ["y"], name="qc", **g)],
                             [vi(nm, ONNX_T[f.dtype], list(f.shape)) for nm, f in zip(names, feeds)],
                             [vi("y", ONNX_T[np.dtype(ty)], None)], opset=10)
                m.ir_version = 8
                label = "qlinearconv_g%d_%s_perch%d" % (gi, tn, per_ch)
                path = save(m, label)
                mult = (xs * np.broadcast_to(ws, (M,)) / ys).astype(np.float32).reshape(1, M, 1, 1)
                s = acc + b.reshape(1, M, 1, 1)
                lo, hi = np.iinfo(ty).min, np.iinfo(ty).max
                want64 = np.clip(np.rint(s * mult.astype(np.float64)) + int(yz), lo, hi)
                want32 = np.clip(np.rint((s.astype(np.float32) * mult).astype(np.float32)) +
                                 int(yz), lo, hi)
                got, err = run(path, feeds)
                ok = got is not None and got[0].shape == want64.shape
                nbad = int(np.sum(got[0] != want64)) if ok else -1
                check(ok and nbad == 0, label, err or "%d of %d differ" % (nbad, want64.size))
                if got is None:
                    continue
                want, err = ort_run(W, path, names, feeds)
                if want is None:
                    check(False, label + "_vs_ort", err)
                    continue
                moved = want32 != want64   # where float32 rounding decides
                bad = (got[0] != want[0]) & ~moved
                check(not bad.any() and np.array_equal(want[0][~moved], want32[~moved]),
                      label + "_vs_ort", "%d differ from ONNX Runtime" % int(bad.sum()))

    # ConvInteger in 1-D and 3-D against PyTorch (exact in double)
    for nsp in (1, 3):
        sp = [9] if nsp == 1 else [4, 5, 3]
        ks = [3] if nsp == 1 else [2, 3, 2]
        x = rng.integers(0, 256, [2, 3] + sp).astype(np.uint8)
        w = rng.integers(-128, 128, [4, 3] + ks).astype(np.int8)
        xz, wz = np.array(9, np.uint8), rng.integers(-4, 5, 4).astype(np.int8)
        pads = [1] * (2 * nsp)
        conv = F.conv1d if nsp == 1 else F.conv3d
        xt = torch.from_numpy(x.astype(np.float64) - 9.0)
        xt = F.pad(xt, tuple([1] * (2 * nsp)))
        wt = torch.from_numpy(w.astype(np.float64) -
                              wz.astype(np.float64).reshape([-1] + [1] * (nsp + 1)))
        want = conv(xt, wt, stride=[2] * nsp).numpy()
        feeds, names = [x, w, xz, wz], ["x", "w", "xz", "wz"]
        m = model_of([helper.make_node("ConvInteger", names, ["y"], name="ci", pads=pads,
                                       strides=[2] * nsp)],
                     [vi(nm, ONNX_T[f.dtype], list(f.shape)) for nm, f in zip(names, feeds)],
                     [vi("y", TensorProto.INT32, None)], opset=10)
        label = "convinteger_%dd" % nsp
        got, err = run(save(m, label), feeds)
        check(got is not None and got[0].shape == want.shape and np.array_equal(got[0], want),
              label, err or "differs from the conv in double")

    # 6. QuantizeLinear to float8 (saturate 1 and 0) against ONNX Runtime,
    # read back through a Cast to float; ORT's known float8 deviations from
    # the spec (small_types.ort_deviations) are judged by the spec.
    x = small_types.f8_inputs()
    scale = np.float32(0.5)
    for to, name in small_types.F8.items():
        for sat in (1, 0):
            nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], name="q",
                                      saturate=sat),
                     helper.make_node("Cast", ["q"], ["y"], to=TensorProto.FLOAT, name="back")]
            zp = TensorProto(name="z", data_type=to, int32_data=[0])
            m = model_of(nodes, [vi("x", TensorProto.FLOAT, [len(x)])],
                         [vi("y", TensorProto.FLOAT, [len(x)])],
                         inits=[numpy_helper.from_array(np.array(scale), "s"), zp], opset=19)
            m.ir_version = 9
            label = "quantizelinear_%s_saturate%d_vs_ort" % (name, sat)
            path = save(m, label)
            want, err = ort_run(W, path, ["x"], [x])
            if want is None:
                check(False, label, err)
                continue
            want = want[0]
            spec, why = small_types.ort_deviations(to, sat, (x / scale).astype(np.float32), want)
            want = np.where(np.isnan(spec), want, spec).astype(np.float32)
            want[why == "nan"] = np.nan
            got, err = run(path, [x])
            ok = got is not None and small_types.same_floats(got[0], want)
            detail = err
            if got is not None and not ok:
                bad = [i for i in range(len(x)) if not small_types.same_floats(got[0][i:i + 1],
                                                                               want[i:i + 1])]
                detail = "%d differ, e.g. x=%r: ours %r, ORT %r" % (len(bad), x[bad[0]],
                                                                   got[0][bad[0]], want[bad[0]])
            check(ok, label, detail)
