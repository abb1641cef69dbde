"""Running the paleozoic CLI: finding it, its errors, and building a model's library.

The compiler is the CLI; this package only drives it. Its messages
("paleozoic: error: ...") become the text of Error, so Python users read
what the command line would have said.
"""

import glob
import os
import shlex
import shutil
import subprocess


class Error(Exception):
    """The CLI failed (message: its stderr; returncode: its exit status, 2 for bad
    input), or a built library could not be loaded or created."""

    def __init__(self, message, returncode=None):
        super().__init__(message)
        self.returncode = returncode


def find_binary():
    """The paleozoic binary: $PALEOZOIC, else this repository's build/paleozoic
    (python/paleozoic/ sits two levels under the repo root), else `paleozoic`
    on PATH."""
    env = os.environ.get("PALEOZOIC")
    if env:
        return env
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
    path of the libNAME.so it wrote. Until the CLI has --lib, builds the same
    library from `compile`'s output (_build_lib_from_compile)."""
    args = ["build", os.fspath(model), "--lib", "-o", outdir]
    if name is not None:
        args += ["--name", name]
    try:
        run_cli(args + knobs)
    except Error as e:
        if "unknown option --lib" not in str(e):
            raise
        _build_lib_from_compile(model, outdir, name, knobs)
    return _find_lib(outdir, name)


def _build_lib_from_compile(model, outdir, name, knobs):
    """The --lib contract from `compile` and the C compiler: NAME.c with a file
    that exports paleozoic_model_name and the I/O counts, linked with the
    runtime (built -fPIC) into libNAME.so."""
    args = ["compile", os.fspath(model), "-o", outdir]
    if name is not None:
        args += ["--name", name]
    run_cli(args + knobs)
    if name is None:
        # the header compile just wrote (the CLI chose the name)
        headers = glob.glob(os.path.join(outdir, "*.h"))
        if not headers:
            raise Error("compile wrote no header in %s" % outdir)
        name = os.path.basename(max(headers, key=os.path.getmtime))[:-2]
    sdk = os.path.dirname(os.path.realpath(find_binary()))
    extra = os.path.join(outdir, name + "_lib.c")
    with open(extra, "w") as f:
        f.write('#include "%s.h"\n'
                'const char *paleozoic_model_name(void) { return "%s"; }\n'
                "const int %s_n_inputs = %s_N_INPUTS;\n"
                "const int %s_n_outputs = %s_N_OUTPUTS;\n"
                % (name, name, name, name.upper(), name, name.upper()))
    ldextra = []
    flags = os.path.join(sdk, "sdk.flags")
    if os.path.exists(flags):
        with open(flags) as f:
            ldextra = shlex.split(f.read())
    cc = shlex.split(os.environ.get("CC") or "cc")
    cflags = shlex.split(os.environ.get("CFLAGS", "-O2"))
    cmd = (cc + cflags + ["-shared", "-fPIC", "-I" + os.path.join(sdk, "include"),
                          os.path.join(outdir, name + ".c"), extra,
                          os.path.join(sdk, "libpzio.a"), os.path.join(sdk, "libpzrt.a")]
           + ldextra + ["-lm", "-lpthread", "-o", os.path.join(outdir, "lib%s.so" % name)])
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        raise Error("the C compiler failed (exit status %d): %s\n%s"
                    % (p.returncode, " ".join(cmd), p.stdout), p.returncode)


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
