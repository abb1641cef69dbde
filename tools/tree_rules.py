#!/usr/bin/python3
"""tree_rules.py [ROOT] - the source tree's structural rules (issue 37).

  size      no file under src/ over 700 lines (a file that long holds more
            than one responsibility);
  getenv    no getenv under src/rt (run options come in one struct, parsed
            once by the CLI or the generated main.c);
  cycles    no include cycle among src/rt modules (a module is X.c with X.h;
            a cycle means neither side can be read or tested alone);
  ir        src/ir includes nothing from src/ops or src/rt/kernels (the IR
            sits below the ops and the runtime);
  opswitch  no `case PZ_OP_*` outside the ops' own files (src/ops, src/rt/ops):
            a new op kind then costs no edits elsewhere.

Prints one line per violation, then `tree-rules: N passed, N failed`.
"""
import os, re, sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
src = os.path.join(root, "src")
INC = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)

files = []
for d, _, names in os.walk(src):
    for n in names:
        if n.endswith((".c", ".h")):
            files.append(os.path.relpath(os.path.join(d, n), root))
files.sort()
text = {f: open(os.path.join(root, f), encoding="utf-8", errors="replace").read() for f in files}

def resolve(f, inc):
    """The repo path an #include "inc" in file f names, or None."""
    for base in (os.path.dirname(f), "src"):
        p = os.path.normpath(os.path.join(base, inc))
        if p in text:
            return p
    return None

fails = {}
def fail(rule, msg):
    fails.setdefault(rule, []).append(msg)

for f in files:
    n = text[f].count("\n")
    if n > 700:
        fail("size", f"{f}: {n} lines (at most 700)")
    if f.startswith("src/rt/") and re.search(r"\bgetenv\s*\(", text[f]):
        fail("getenv", f"{f}: calls getenv")
    if f.startswith("src/ir/"):
        for inc in INC.findall(text[f]):
            p = resolve(f, inc) or inc
            if p.startswith(("src/ops/", "src/rt/kernels/")):
                fail("ir", f"{f}: includes {p}")
    if not f.startswith(("src/ops/", "src/rt/ops/")) and re.search(r"\bcase\s+PZ_OP_", text[f]):
        fail("opswitch", f"{f}: switches on the op kind")

# Modules of src/rt: a .c and its .h are one node.
def module(p):
    return os.path.splitext(p)[0]
graph = {}
for f in files:
    if not f.startswith("src/rt/"):
        continue
    m = module(f)
    graph.setdefault(m, set())
    for inc in INC.findall(text[f]):
        p = resolve(f, inc)
        if p and p.startswith("src/rt/") and module(p) != m:
            graph[m].add(module(p))
# Tarjan's strongly connected components: any of size > 1 is a cycle.
index, low, stack, on, comps, counter = {}, {}, [], set(), [], [0]
sys.setrecursionlimit(10000)
def visit(v):
    index[v] = low[v] = counter[0]; counter[0] += 1
    stack.append(v); on.add(v)
    for w in graph.get(v, ()):
        if w not in index:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            comps.append(sorted(comp))
for v in sorted(graph):
    if v not in index:
        visit(v)
for c in comps:
    fail("cycles", "include cycle: " + " <-> ".join(c))

rules = ["size", "getenv", "cycles", "ir", "opswitch"]
for r in rules:
    for m in fails.get(r, []):
        print(f"{r}: {m}")
npass = sum(1 for r in rules if r not in fails)
print(f"tree-rules: {npass} passed, {len(rules) - npass} failed")
sys.exit(1 if fails else 0)
