#!/usr/bin/python3
"""bench/concat/layers.py PALEOZOIC MODEL.onnx IN.pb[,IN2.pb..] [ROUNDS] [THREADS] -
the concatenation knob layer by layer: ROUNDS rounds of `paleozoic run
--profile --repeat 5` with --concat off then on (interleaved); each layer's
time is its least over the rounds (the profile gives the median of the
last runs; the least of those is the figure the machine's other load
disturbs least). Prints, for each merged layer, the time of its members
run apart (off) against the merged layer plus its Split (on), and the sums."""
import collections
import re
import subprocess
import sys


def main():
    pz, model, ins = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    threads = sys.argv[5] if len(sys.argv) > 5 else "1"
    args = [a for x in ins for a in ("--input", x)]
    per = {"off": collections.defaultdict(list), "on": collections.defaultdict(list)}
    for _ in range(rounds):
        for c in ("off", "on"):
            out = subprocess.run([pz, "run", model] + args + ["--threads", threads, "--profile",
                                 "--repeat", "5", "--concat", c],
                                 capture_output=True, text=True, check=True).stdout
            for line in out.splitlines():
                m = re.match(r"\s*\d+\s+(\S+)\s+(\S+)\s+\d+\s+\d+\s+([\d.]+)", line)
                if m:
                    per[c][(m.group(1), m.group(2))].append(float(m.group(3)))
    off = {k: min(v) for k, v in per["off"].items()}
    on = {k: min(v) for k, v in per["on"].items()}
    so = sn = 0.0
    for k, t in on.items():
        if "+" not in k[1]:
            continue
        names = k[1].split("+")
        split = on.get(("SPLIT", names[0] + ":split"), 0.0)
        apart = sum(v for kk, v in off.items() if kk[1] in names)
        so += apart
        sn += t + split
        print("%-48s %d members: off %.3f ms, on %.3f + split %.3f ms" %
              (names[0][:48], len(names), apart, t, split))
    print("merged layers: off %.3f ms, on %.3f ms (on/off %.3f); all layers: off %.3f, on %.3f"
          % (so, sn, sn / so if so else 0, sum(off.values()), sum(on.values())))


if __name__ == "__main__":
    main()
