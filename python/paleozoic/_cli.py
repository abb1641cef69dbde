"""Running the paleozoic CLI: finding it, its errors, and building a model's library.

The compiler is the CLI; this package only drives it. Its messages
("paleozoic: error: ...") become the text of Error, so Python users read
what the command line would have said.
"""

import glob
import os
import shutil
import subprocess


class Error(Exception):
    """The CLI failed (message: its stderr; returncode: its exit status, 2 for bad
    input), or a built library could not be loaded or created."""

    def __init__(self, message, returncode=None):
        super().__init__(message)
        self.returncode = returncode


def find_binary():
    """The paleozoic binary: $PALEOZOIC, else the one `make install` put
    beside this package (_install.py), else this repository's build/paleozoic
    (python/paleozoic/ sits two levels under the repo root), else `paleozoic`
    on PATH."""
    env = os.environ.get("PALEOZOIC")
    if env:
        return env
    try:
        from ._install import BINARY
        if os.access(BINARY, os.X_OK):
            return BINARY
    except ImportError:
        pass
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.join(here, os.pardir, os.pardir, "build", "paleozoic")
    if os.access(repo, os.X_OK):
        return os.path.normpath(repo)
    found = shutil.which("paleozoic")
    if found:
        return found
    raise Error("cannot find the paleozoic binary: set PALEOZOIC, build the repository "
                "(make), or put paleozoic on PATH")


def run_cli(args):
    """Runs `paleozoic ARGS`; returns its stdout, or raises Error with its stderr."""
    binary = find_binary()
    try:
        p = subprocess.run([binary] + list(args), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    except OSError as e:
        raise Error("cannot run %s: %s" % (binary, e)) from None
    if p.returncode != 0:
        msg = p.stderr.strip() or ("paleozoic exited with status %d" % p.returncode)
        raise Error(msg, p.returncode)
    return p.stdout


def knob_args(threads=None, strategy=None, schedule=None, precision=None, batch=None,
              extra_args=()):
    """The CLI's knob flags for the knobs given (None: the CLI's default)."""
    a = []
    if threads is not None:
        a += ["--threads", str(int(threads))]
    if strategy is not None:
        a += ["--strategy", str(strategy)]
    if schedule is not None:
        a += ["--schedule", os.fspath(schedule)]
    if precision is not None:
        a += ["--precision", str(precision)]
    if batch is not None:
        a += ["--batch", str(int(batch))]
    return a + [str(x) for x in extra_args]


def _build_lib(model, outdir, name, knobs):
    """`paleozoic build MODEL --lib -o OUTDIR [--name NAME] KNOBS`; returns the
    path of the libNAME.so it wrote."""
    args = ["build", os.fspath(model), "--lib", "-o", outdir]
    if name is not None:
        args += ["--name", name]
    run_cli(args + knobs)
    return _find_lib(outdir, name)


def _find_lib(outdir, name):
    if name is not None:
        path = os.path.join(outdir, "lib%s.so" % name)
        if not os.path.exists(path):
            raise Error("the build wrote no %s" % path)
        return path
    libs = glob.glob(os.path.join(outdir, "lib*.so"))
    if not libs:
        raise Error("the build wrote no lib*.so in %s" % outdir)
    return max(libs, key=os.path.getmtime)
