"""paleozoic: compile ONNX models with the paleozoic CLI and run them from numpy.

    import numpy as np, paleozoic
    m = paleozoic.compile("resnet18.onnx", threads=2)
    y = m.run({"input": np.zeros((1, 3, 224, 224), np.float32)})["output"]

compile() runs `paleozoic build MODEL --lib` and loads the libNAME.so it
writes; load() loads one built before. Errors of the CLI raise Error with its
message. See python/README.md.
"""

import os
import tempfile

from ._cli import Error, _build_lib, find_binary, knob_args
from ._model import IOSpec, Model, load

__all__ = ["compile", "load", "Model", "IOSpec", "Error", "find_binary"]


def compile(model, threads=2, strategy=None, schedule=None, precision=None, batch=None,
            name=None, cache_dir=None, extra_args=()):
    """Compiles MODEL.onnx into a shared library with the CLI's knobs (None:
    the CLI's default; extra_args: more CLI flags, as strings) and loads it.
    The library goes into cache_dir (created if needed), else into a
    temporary directory removed when the model is closed."""
    knobs = knob_args(threads, strategy, schedule, precision, batch, extra_args)
    keep = None
    if cache_dir is None:
        keep = tempfile.TemporaryDirectory(prefix="paleozoic-")
        outdir = keep.name
    else:
        outdir = os.fspath(cache_dir)
        os.makedirs(outdir, exist_ok=True)
    try:
        lib = _build_lib(model, outdir, name, knobs)
        return Model(lib, threads=0, _keep=keep)
    except BaseException:
        if keep is not None:
            keep.cleanup()
        raise
