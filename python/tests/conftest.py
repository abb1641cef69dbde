"""Fixtures shared by the tests: the CLI, the zoo's models written once per
session, and their libraries built once (compiling takes seconds)."""

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))
import paleozoic  # noqa: E402

THREADS = 2


@pytest.fixture(scope="session")
def pz():
    return paleozoic.find_binary()


@pytest.fixture(scope="session")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("pz")


class Zoo:
    """zoo models written on first use, and their libraries built on first use."""

    def __init__(self, pz, workdir):
        self.pz, self.dir, self.onnx, self.models = pz, workdir, {}, {}

    def onnx_path(self, name):
        if name not in self.onnx:
            path = str(self.dir / (name + ".onnx"))
            paleozoic._cli.run_cli(["zoo", name, "-o", path])
            self.onnx[name] = path
        return self.onnx[name]

    def model(self, name, **knobs):
        """name's library built with --threads THREADS and knobs (compile()'s)."""
        key = (name,) + tuple(sorted(knobs.items()))
        if key not in self.models:
            sub = "_".join([name] + ["%s-%s" % kv for kv in sorted(knobs.items())])
            self.models[key] = paleozoic.compile(self.onnx_path(name), threads=THREADS, name=name,
                                                 cache_dir=str(self.dir / sub), **knobs)
        return self.models[key]


@pytest.fixture(scope="session")
def zoo(pz, workdir):
    z = Zoo(pz, workdir)
    yield z
    for m in z.models.values():
        m.close()


def seeded_input(spec, seed=0):
    return np.random.default_rng(seed).standard_normal(spec.shape).astype(spec.dtype)
