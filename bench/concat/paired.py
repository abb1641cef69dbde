#!/usr/bin/python3
"""bench/concat/paired.py MODEL.onnx IN.pb[,IN2.pb..] [PAIRS] [THREADS] [KNOB ARGS..] - the
concatenation knob end to end in one interleaved run: MODEL built twice as a library (`paleozoic
build --lib`, python/paleozoic), --concat off and on, both loaded in this one process and run
alternately, PAIRS pairs (off then on, then on then off, and so on: neither always goes first).
A pair's two runs are a few tens of ms apart, so the host's other load, which drifts over
seconds, falls on both alike. Each run is timed twice: wall time, and the process's CPU time
(time slices given to other processes do not count, their cache traffic does; at 2 threads it
adds both workers', spinning at barriers included). For each: the median of the pairs' on/off
ratios, with
its quartiles, how many pairs on won and the sign test's p (how likely so uneven a split
is if the two were equally fast). Also the medians of each, and whether the outputs
are bitwise equal. KNOB ARGS: more `build` flags for both (e.g. --strategy dlfusion).
Needs the CLI on PATH or PALEOZOIC=path (python/paleozoic finds it), numpy and onnx."""
import math
import os
import statistics
import sys
import time

import numpy as np
import onnx
from onnx import numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import paleozoic  # noqa: E402


def sign_p(wins, n):
    """Two-sided sign test: the chance of a split at least this uneven if on and off were
    equally fast (each pair a coin toss)."""
    k = max(wins, n - wins)
    tail = sum(math.comb(n, i) for i in range(k, n + 1)) / 2.0 ** n
    return min(1.0, 2 * tail)


def quartiles(v):
    q = statistics.quantiles(v, n=4)
    return q[0], q[2]


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    model, ins = sys.argv[1], sys.argv[2].split(",")
    pairs = int(sys.argv[3]) if len(sys.argv) > 3 else 100
    th = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    extra = sys.argv[5:]
    g = onnx.load(model, load_external_data=False).graph
    init = {i.name for i in g.initializer}
    names = [i.name for i in g.input if i.name not in init]
    feeds = {}
    for name, path in zip(names, ins):
        t = onnx.TensorProto()
        with open(path, "rb") as f:
            t.ParseFromString(f.read())
        feeds[name] = numpy_helper.to_array(t)
    m = {c: paleozoic.compile(model, threads=th, extra_args=["--concat", c] + extra, name="cc_" + c)
         for c in ("off", "on")}
    out = {}
    for c in ("off", "on"):
        for _ in range(3):   # warm-up: caches, the workers' first wake
            out[c] = m[c].run(feeds)
    t = {"wall": {"off": [], "on": []}, "cpu": {"off": [], "on": []}}
    for p in range(pairs):
        for c in (("off", "on") if p % 2 == 0 else ("on", "off")):
            c0, t0 = time.process_time(), time.perf_counter()
            m[c].run(feeds)
            t["wall"][c].append((time.perf_counter() - t0) * 1e3)
            t["cpu"][c].append((time.process_time() - c0) * 1e3)
    same = all(out["off"][k].dtype == out["on"][k].dtype and
               out["off"][k].tobytes() == out["on"][k].tobytes() for k in out["off"])
    print("outputs: %s" % ("bitwise equal" if same else "DIFFER"))
    for what, tt in t.items():
        ratio = [b / a for a, b in zip(tt["off"], tt["on"])]
        q1, q3 = quartiles(ratio)
        wins = sum(r < 1 for r in ratio)
        print("%s, %d pairs, %d thread(s)%s: median off %.3f ms, on %.3f ms; least off %.3f, "
              "on %.3f" % (what, pairs, th, (" (" + " ".join(extra) + ")") if extra else "",
                           statistics.median(tt["off"]), statistics.median(tt["on"]),
                           min(tt["off"]), min(tt["on"])))
        print("%s, on/off per pair: median %.4f (quartiles %.4f, %.4f); on faster in %d of %d "
              "pairs (sign test p = %.2g)" % (what, statistics.median(ratio), q1, q3, wins, pairs,
                                              sign_p(wins, pairs)))
    for c in m.values():
        c.close()
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
