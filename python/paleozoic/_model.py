"""A compiled model's shared library, loaded with ctypes.

The library (`paleozoic build MODEL --lib`) exports, for its NAME:
  const char *paleozoic_model_name(void);
  const int NAME_n_inputs, NAME_n_outputs;
  const NAME_io NAME_inputs[], NAME_outputs[];   {name, dtype, rank, dims[PZ_MAX_RANK]}
  NAME *NAME_create(const char *weights, int threads, const pz_run_options *opts,
                    char *err, size_t errsize);
  void NAME_run(NAME *ctx, const void *const *inputs, void *const *outputs);
  void NAME_destroy(NAME *ctx);
ctypes drops the GIL around each foreign call, so two instances run at once
from two Python threads; one instance is not reentrant, so each holds a lock.
Arrays pass by pointer: inputs must already be C-contiguous with the exact
dtype and shape (nothing is copied or converted behind the caller's back).
"""

import collections
import ctypes
import os
import threading

import numpy as np

from . import _dtypes
from ._cli import Error

IOSpec = collections.namedtuple("IOSpec", "name dtype shape")


class _IO(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("dtype", ctypes.c_int), ("rank", ctypes.c_int),
                ("dims", ctypes.c_int64 * _dtypes.MAX_RANK)]


def _symbol(lib, path, name):
    try:
        return getattr(lib, name)
    except AttributeError:
        raise Error("%s exports no %s: not a library paleozoic build --lib wrote" % (path, name)) \
            from None


def _table(lib, path, name, count):
    if count < 0:
        raise Error("%s: %s has a negative count" % (path, name))
    _symbol(lib, path, name)
    rows = (_IO * count).in_dll(lib, name)
    specs = []
    for r in rows:
        if not 0 <= r.rank <= _dtypes.MAX_RANK:
            raise Error("%s: %s has rank %d" % (path, name, r.rank))
        specs.append(IOSpec(r.name.decode(), _dtypes.to_numpy(r.dtype),
                            tuple(int(d) for d in r.dims[:r.rank])))
    return specs


def _describe(a):
    return "%s %s" % (a.dtype, list(a.shape))


class Model:
    """A compiled model, loaded from its libNAME.so (see load())."""

    def __init__(self, path, threads=0, weights=None, _keep=None):
        path = os.path.abspath(os.fspath(path))
        self._ctx = None
        self._lock = threading.Lock()
        self._keep = _keep   # a temporary build directory, removed on close
        if not os.path.exists(path):
            raise Error("cannot open %s: no such file" % path)
        try:
            lib = ctypes.CDLL(path, mode=os.RTLD_LOCAL)
        except OSError as e:
            raise Error("cannot load %s: %s" % (path, e)) from None
        self._lib, self.path = lib, path
        get_name = _symbol(lib, path, "paleozoic_model_name")
        get_name.restype, get_name.argtypes = ctypes.c_char_p, []
        self.name = name = get_name().decode()
        n_in = _int(lib, path, name + "_n_inputs")
        n_out = _int(lib, path, name + "_n_outputs")
        self.inputs = _table(lib, path, name + "_inputs", n_in)
        self.outputs = _table(lib, path, name + "_outputs", n_out)

        self._create = _symbol(lib, path, name + "_create")
        self._create.restype = ctypes.c_void_p
        self._create.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_void_p,
                                 ctypes.c_char_p, ctypes.c_size_t]
        self._run = _symbol(lib, path, name + "_run")
        self._run.restype = None
        self._run.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
        # the run's shapes (outputs of NonZero, Unique, ...: run-time shapes,
        # their buffers at the table's bound); absent from older libraries
        try:
            self._oshape = getattr(lib, name + "_output_shape")
            self._oshape.restype = None
            self._oshape.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_int),
                                     ctypes.POINTER(ctypes.c_int64)]
        except AttributeError:
            self._oshape = None
        # an output with no compile-time bound lives in the net's own buffer
        # (allocated at run time, README "run-time shapes"); absent from older libraries
        try:
            self._odata = getattr(lib, name + "_output_data")
            self._odata.restype = ctypes.c_void_p
            self._odata.argtypes = [ctypes.c_void_p, ctypes.c_int]
        except AttributeError:
            self._odata = None
        self._destroy = _symbol(lib, path, name + "_destroy")
        self._destroy.restype = None
        self._destroy.argtypes = [ctypes.c_void_p]

        # the weights: given, else NAME.weights beside the library, else none
        # (NULL: the weights linked in, --embed-weights)
        if weights is None:
            beside = os.path.join(os.path.dirname(path), name + ".weights")
            weights = beside if os.path.exists(beside) else None
        self.weights = None if weights is None else os.path.abspath(os.fspath(weights))
        err = ctypes.create_string_buffer(1024)
        ctx = self._create(None if self.weights is None else os.fsencode(self.weights),
                           int(threads), None, err, len(err))
        if not ctx:
            raise Error(err.value.decode(errors="replace") or
                        "%s_create failed with no message" % name)
        self._ctx = ctx
        self.threads = threads

    # ---- lifetime -----------------------------------------------------------

    def close(self):
        """Destroys the instance (its workers and buffers); run() refuses after."""
        with self._lock:
            if self._ctx:
                self._destroy(self._ctx)
                self._ctx = None
        if self._keep is not None:
            self._keep.cleanup()
            self._keep = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return "<paleozoic.Model %s: %s -> %s>" % (
            self.name, ", ".join("%s %s %s" % (s.name, s.dtype, list(s.shape)) for s in self.inputs),
            ", ".join("%s %s %s" % (s.name, s.dtype, list(s.shape)) for s in self.outputs))

    # ---- running ------------------------------------------------------------

    def _bind_inputs(self, inputs):
        """The input arrays in table order, from a dict, a list or one array."""
        names = [s.name for s in self.inputs]
        if isinstance(inputs, dict):
            for k in inputs:
                if k not in names:
                    raise ValueError("unknown input %r: %s takes %s" % (k, self.name, names))
            missing = [n for n in names if n not in inputs]
            if missing:
                raise ValueError("missing input %r: %s takes %s" % (missing[0], self.name, names))
            arrays = [inputs[n] for n in names]
        elif isinstance(inputs, (list, tuple)):
            if len(inputs) != len(names):
                raise ValueError("%s takes %d inputs %s, given %d"
                                 % (self.name, len(names), names, len(inputs)))
            arrays = list(inputs)
        elif len(names) == 1:
            arrays = [inputs]
        else:
            raise TypeError("%s takes %d inputs %s: give a dict name -> array or a list"
                            % (self.name, len(names), names))
        for spec, a in zip(self.inputs, arrays):
            _check(a, spec, "input", writable=False)
        return arrays

    def _bind_outputs(self, out):
        out = {} if out is None else out
        if not isinstance(out, dict):
            raise TypeError("out= must be a dict name -> array, not %s" % type(out).__name__)
        names = [s.name for s in self.outputs]
        for k in out:
            if k not in names:
                raise ValueError("unknown output %r: %s gives %s" % (k, self.name, names))
        arrays = []
        for spec in self.outputs:
            if spec.name in out:
                _check(out[spec.name], spec, "output", writable=True)
                arrays.append(out[spec.name])
            else:
                arrays.append(np.empty(spec.shape, spec.dtype))
        return arrays

    def run(self, inputs, out=None):
        """One inference. inputs: a dict name -> array, a list in the model's
        order, or one array for a one-input model; each C-contiguous with the
        exact dtype and shape of self.inputs. out: optional dict of
        preallocated output arrays (checked the same way). Returns a dict
        name -> array of every output."""
        ins = self._bind_inputs(inputs)
        outs = self._bind_outputs(out)
        in_ptrs = (ctypes.c_void_p * max(len(ins), 1))(*[a.ctypes.data for a in ins])
        out_ptrs = (ctypes.c_void_p * max(len(outs), 1))(*[a.ctypes.data for a in outs])
        with self._lock:
            if not self._ctx:
                raise Error("model %s is closed" % self.name)
            self._run(self._ctx, in_ptrs, out_ptrs)
            outs = [self._run_shape(i, a) for i, a in enumerate(outs)]
        return {s.name: a for s, a in zip(self.outputs, outs)}

    def _run_shape(self, i, a):
        """Output i as the run shaped it: a view of the start of its buffer
        when the shape is a run-time one (smaller than the bound); a copy of
        the net's buffer when the net allocated it at run time (the next run
        reuses that buffer, and a given `out` array is then left as it was)."""
        if not self._oshape:
            return a
        rank = ctypes.c_int(0)
        dims = (ctypes.c_int64 * _dtypes.MAX_RANK)()
        self._oshape(self._ctx, i, ctypes.byref(rank), dims)
        shape = tuple(int(d) for d in dims[:rank.value])
        n = int(np.prod(shape, dtype=np.int64))
        p = self._odata(self._ctx, i) if self._odata else None
        if p:
            if n == 0:
                return np.empty(shape, a.dtype)
            buf = (ctypes.c_char * (n * a.dtype.itemsize)).from_address(p)
            return np.frombuffer(buf, dtype=a.dtype, count=n).reshape(shape).copy()
        if shape == a.shape:
            return a
        return a.reshape(-1)[:n].reshape(shape)

    __call__ = run


def _int(lib, path, name):
    """The value of the exported `const int NAME`."""
    _symbol(lib, path, name)
    return ctypes.c_int.in_dll(lib, name).value


def _check(a, spec, what, writable):
    """a must be an ndarray of spec's exact dtype and shape, C-contiguous and
    aligned (and writable for an output): the library reads it in place."""
    if not isinstance(a, np.ndarray):
        raise TypeError("%s %r: expected a numpy.ndarray %s %s, given %s"
                        % (what, spec.name, spec.dtype, list(spec.shape), type(a).__name__))
    if a.dtype != spec.dtype:
        raise TypeError("%s %r: expected dtype %s, given %s (convert it: no implicit copy)"
                        % (what, spec.name, spec.dtype, a.dtype))
    if a.shape != spec.shape:
        raise ValueError("%s %r: expected shape %s, given %s"
                         % (what, spec.name, list(spec.shape), list(a.shape)))
    if not a.flags.c_contiguous or not a.flags.aligned:
        raise ValueError("%s %r: expected a C-contiguous aligned array, given a strided view "
                         "(np.ascontiguousarray makes one)" % (what, spec.name))
    if writable and not a.flags.writeable:
        raise ValueError("%s %r: the array is read-only" % (what, spec.name))


def load(path, threads=0, weights=None):
    """Loads libNAME.so (paleozoic build --lib) and creates one instance.
    threads: worker threads (0: the build's --threads, or every core);
    weights: the weights file (default: NAME.weights beside the library, if
    there; else the weights linked in)."""
    return Model(path, threads=threads, weights=weights)
