#!/usr/bin/python3
"""Fail when library code includes a header of a layer above its own (no include cycles).

Layers, bottom to top: core, dist, backend, io, array, exec, linalg, genomics. `dist` (the MPI
communicator) is included by no other library layer: they reach it through core's Communicator. A file under
src/<layer>/ or include/strata/<layer>/ may include headers of its own layer and those below.
Unit tests (*_test.cpp, *_benchmark.cpp, test helpers) may reach higher layers to evaluate
what they test, and are skipped.
"""
import os
import re
import sys

LAYERS = ["core", "dist", "backend", "io", "array", "exec", "linalg", "genomics"]
RANK = {name: i for i, name in enumerate(LAYERS)}
INCLUDE = re.compile(r'^\s*#\s*include\s+"(?:strata/)?([a-z_]+)/')


def is_test(path):
    base = os.path.basename(path)
    return base.endswith(("_test.cpp", "_benchmark.cpp", "_fuzz.cpp")) or "test" in base.split(".")[0].split("_")


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    bad = []
    for top in ("src", os.path.join("include", "strata")):
        for layer in LAYERS:
            d = os.path.join(root, top, layer)
            for dirpath, _, files in os.walk(d):
                for f in files:
                    path = os.path.join(dirpath, f)
                    if not f.endswith((".cpp", ".hpp", ".cu", ".cuh")) or is_test(path):
                        continue
                    for n, line in enumerate(open(path, encoding="utf-8", errors="replace"), 1):
                        m = INCLUDE.match(line)
                        above = m and m.group(1) in RANK and RANK[m.group(1)] > RANK[layer]
                        if m and (above or (m.group(1) == "dist" and layer != "dist")):
                            bad.append(f"{os.path.relpath(path, root)}:{n}: {layer} includes {m.group(1)}: {line.strip()}")
    for b in bad:
        print(b)
    print(f"layering: {len(bad)} upward include(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
