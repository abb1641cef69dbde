#!/usr/bin/env python3
"""image_models.py OUTDIR - ImageDecoder models with images Pillow writes,
and Pillow's decode of each as the reference (what ONNX's reference
implementation decodes with): RGB as Pillow's convert("RGB"), BGR its
channels reversed, Grayscale Pillow's convert("L").

For each case NAME: NAME.onnx (one ImageDecoder node, the output declared
[H, W, C] or a larger bound), NAME.in_0.pb (the file's bytes, uint8 [n]),
NAME.ref.pb. Prints one line a case: `NAME`; `bad NAME PATTERN` for a
model or input that must be refused with PATTERN in the error; `fuzz NAME`
for bytes of a valid file with some changed at random, which must decode
or be refused (exit 0 or 2), never crash.
"""
import io
import sys

import numpy as np
import onnx
import PIL.Image
from onnx import TensorProto, helper, numpy_helper

OUT = sys.argv[1]
rng = np.random.default_rng(39)


def checkerboard(h, w, tile):
    """Random colours in tile x tile squares: edges for the codecs, flat
    areas for the lossy ones."""
    colours = rng.integers(0, 256, size=(h // tile + 1, w // tile + 1, 4), dtype=np.uint8)
    ys, xs = np.arange(h) // tile, np.arange(w) // tile
    return colours[ys[:, None], xs[None, :]]


def source(kind, h, w):
    px = checkerboard(h, w, 4)
    if kind == "rgb":
        return PIL.Image.fromarray(px[:, :, :3], "RGB")
    if kind == "rgba":
        return PIL.Image.fromarray(px, "RGBA")
    if kind == "gray":
        return PIL.Image.fromarray(px[:, :, 0], "L")
    if kind == "pal":
        return PIL.Image.fromarray(px[:, :, :3], "RGB").quantize(colors=13)
    if kind == "bw":
        return PIL.Image.fromarray((px[:, :, 0] > 127).astype(np.uint8) * 255, "L").convert("1")
    raise ValueError(kind)


def encode(img, fmt, **opts):
    f = io.BytesIO()
    img.save(f, format=fmt, **opts)
    return f.getvalue()


def reference(data, pixel_format):
    img = PIL.Image.open(io.BytesIO(data))
    if pixel_format == "Grayscale":
        return np.array(img.convert("L"))[:, :, np.newaxis]
    rgb = np.array(img.convert("RGB"))
    return rgb[:, :, ::-1].copy() if pixel_format == "BGR" else rgb


def model(name, n, dims, pixel_format="RGB", in_type=TensorProto.UINT8):
    node = helper.make_node("ImageDecoder", ["data"], ["image"], name=name,
                            pixel_format=pixel_format)
    g = helper.make_graph([node], name, [helper.make_tensor_value_info("data", in_type, [n])],
                          [helper.make_tensor_value_info("image", TensorProto.UINT8, dims)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 20)])
    m.ir_version = 9
    onnx.save(m, f"{OUT}/{name}.onnx")


def write(name, data, pixel_format, bound=(0, 0), ref=True):
    arr = np.frombuffer(data, dtype=np.uint8)
    onnx.save_tensor(numpy_helper.from_array(arr, "data"), f"{OUT}/{name}.in_0.pb")
    if not ref:
        return
    y = reference(data, pixel_format)
    onnx.save_tensor(numpy_helper.from_array(y, "image"), f"{OUT}/{name}.ref.pb")
    h, w, c = y.shape
    model(name, len(arr), [h + bound[0], w + bound[1], c], pixel_format)


# (format, Pillow's save options, source kinds); sizes odd on purpose
FORMATS = [
    ("JPEG", {}, ["rgb", "gray"]),
    ("JPEG", {"quality": 95, "subsampling": 0}, ["rgb"]),
    ("JPEG", {"progressive": True}, ["rgb"]),
    ("PNG", {}, ["rgb", "gray", "rgba", "pal", "bw"]),
    ("TIFF", {}, ["rgb", "gray"]),
    ("TIFF", {"compression": "tiff_lzw"}, ["rgb"]),
    ("WEBP", {}, ["rgb"]),
    ("WEBP", {"lossless": True}, ["rgb", "rgba"]),
    ("JPEG2000", {}, ["rgb", "gray"]),
    ("BMP", {}, ["rgb", "gray", "pal", "bw"]),
    ("PPM", {}, ["rgb", "gray"]),
]
files = {}
k = 0
for fmt, opts, kinds in FORMATS:
    for kind in kinds:
        h, w = 19 + 4 * (k % 3), 26 + 5 * (k % 2)
        data = encode(source(kind, h, w), fmt, **opts)
        tag = f"{fmt.lower()}{'_' + '_'.join(opts) if opts else ''}_{kind}"
        files[tag] = data
        for j, pf in enumerate(["RGB", "BGR", "Grayscale"]):
            # every other case planned at a bound larger than the image
            bound = (3, 2) if (k + j) % 2 else (0, 0)
            name = f"{tag}_{pf.lower()}"
            write(name, data, pf, bound)
            print(name)
        k += 1

# refused at run time: truncated and foreign bytes, an image past the bound
for tag in ["jpeg_rgb", "png_rgb", "tiff_rgb", "webp_rgb", "jpeg2000_rgb", "bmp_rgb", "ppm_rgb"]:
    data = files[tag]
    name = f"bad_{tag}_truncated"
    write(name, data[: len(data) // 2], "RGB", ref=False)
    model(name, len(data) // 2, [64, 64, 3])
    print(f"bad {name} ImageDecoder")
for name, data in [("bad_text", b"neither JPEG nor PNG, just text"), ("bad_empty", b"")]:
    write(name, data, "RGB", ref=False)
    model(name, len(data), [8, 8, 3])
    print(f"bad {name} not an image")
for tag in ["png_rgb", "jpeg2000_rgb", "tiff_rgb"]:
    data = files[tag]
    write(f"bad_{tag}_past_bound", data, "RGB", ref=False)
    model(f"bad_{tag}_past_bound", len(data), [8, 8, 3])
    print(f"bad bad_{tag}_past_bound more than the 64 pixels")
data = files["png_rgb"]
# refused at compile: no declared output shape, a wrong channel count, a
# pixel format ONNX does not have, bytes that are not uint8
write("bad_undeclared", data, "RGB", ref=False)
model("bad_undeclared", len(data), ["H", "W", 3])
print("bad bad_undeclared needs a declared shape")
write("bad_channels", data, "Grayscale", ref=False)
model("bad_channels", len(data), [32, 32, 3], "Grayscale")
print("bad bad_channels declared with 3 channels")
write("bad_format", data, "RGB", ref=False)
model("bad_format", len(data), [32, 32, 3], "RGBA")
print("bad bad_format pixel_format")
onnx.save_tensor(numpy_helper.from_array(np.zeros(4, np.float32), "data"),
                 f"{OUT}/bad_float.in_0.pb")
model("bad_float", 4, [8, 8, 3], "RGB", TensorProto.FLOAT)
print("bad bad_float expected uint8")

# valid files with bytes changed at random: decoded or refused, never a crash
for tag in ["jpeg_rgb", "png_rgb", "tiff_rgb", "webp_rgb", "jpeg2000_rgb", "bmp_rgb",
            "ppm_rgb", "bmp_pal", "jpeg_progressive_rgb"]:
    for i in range(4):
        data = bytearray(files[tag])
        # the first 64 bytes (headers) twice as often as the rest
        for _ in range(1 + i):
            lo = 4 if rng.integers(2) else 64
            at = int(rng.integers(min(lo, len(data) - 1), len(data)))
            data[at] = int(rng.integers(256))
        name = f"fuzz_{tag}_{i}"
        write(name, bytes(data), "RGB", ref=False)
        model(name, len(data), [64, 64, 3])
        print(f"fuzz {name}")
