#!/usr/bin/python3
"""bench/concat/cpu.py PALEOZOIC MODEL.onnx IN.pb[,IN2.pb..] [ROUNDS] [REPEAT] [THREADS] -
the concatenation knob on one model in CPU time, for a host whose other load
makes wall times useless: ROUNDS rounds, each `paleozoic run --repeat 1` and
`--repeat REPEAT+1` with --concat off then on (interleaved). A run's user CPU
time is the difference of the two processes' (the compile cancels out),
divided by REPEAT: time slices given to other processes do not count, their
cache traffic still does. At 1 thread it is the run's time; at 2 it adds
both workers' (and their spinning at the barriers). Prints each round, the
median of each column and on/off, the least of each, and whether the
outputs are bitwise equal."""
import os
import statistics
import subprocess
import sys
import tempfile


def user_s(cmd):
    """User CPU seconds of one process (and its children)."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    if status:
        raise SystemExit("cpu.py: %s failed: %s" % (" ".join(cmd), err[-400:]))
    return ru.ru_utime


def main():
    pz, model, ins = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 8
    rep = int(sys.argv[5]) if len(sys.argv) > 5 else 10
    th = sys.argv[6] if len(sys.argv) > 6 else "1"
    tmp = tempfile.mkdtemp()
    args = [a for x in ins for a in ("--input", x)]
    per = {"off": [], "on": []}
    for r in range(rounds):
        for c in ("off", "on"):
            base = [pz, "run", model] + args + ["--threads", th, "--concat", c,
                                                "--output", os.path.join(tmp, c + ".pb")]
            t1 = user_s(base + ["--repeat", "1"])
            tn = user_s(base + ["--repeat", str(rep + 1)])
            per[c].append(1000 * (tn - t1) / rep)
        print("round %d: off %.2f ms, on %.2f ms (user CPU per run)" % (r + 1, per["off"][-1],
                                                                      per["on"][-1]))
    with open(os.path.join(tmp, "off.pb"), "rb") as a, open(os.path.join(tmp, "on.pb"), "rb") as b:
        print("outputs: %s" % ("bitwise equal" if a.read() == b.read() else "DIFFER"))
    mo, mn = statistics.median(per["off"]), statistics.median(per["on"])
    print("median of %d rounds x %d runs, %s thread(s): off %.2f ms, on %.2f ms, on/off %.3f"
          % (rounds, rep, th, mo, mn, mn / mo))
    lo, ln = min(per["off"]), min(per["on"])
    print("least: off %.2f ms, on %.2f ms, on/off %.3f" % (lo, ln, ln / lo))


if __name__ == "__main__":
    main()
