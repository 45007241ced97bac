#!/usr/bin/python3
"""The layering, checked three ways against the code (library files; unit tests,
*_benchmark.cpp and test helpers may reach higher layers to evaluate what they test, and are
skipped):

1. No file includes a header of a layer above its own (no include cycles). Layers, bottom to
   top: core, dist, backend, io, array, exec, linalg, genomics. `dist` (the MPI communicator) is
   included by no other library layer: they reach it through core's Communicator.
2. docs/architecture.md's layer table names each layer's CMake target and the targets it links,
   exactly as src/CMakeLists.txt's strata_add_area calls declare them.
3. Each layer includes only layers its targets reach (its links, transitively), and each target
   it links directly is one whose headers it includes (no link kept for nothing).
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


def library_files(root, layer):
    for top in ("src", os.path.join("include", "strata")):
        for dirpath, _, files in os.walk(os.path.join(root, top, layer)):
            for f in files:
                path = os.path.join(dirpath, f)
                if f.endswith((".cpp", ".hpp", ".cu", ".cuh", ".inc")) and not is_test(path):
                    yield path


def included_layers(root, layer):
    """The other layers whose headers `layer`'s library files include."""
    out = set()
    for path in library_files(root, layer):
        for line in open(path, encoding="utf-8", errors="replace"):
            m = INCLUDE.match(line)
            if m and m.group(1) in RANK and m.group(1) != layer:
                out.add(m.group(1))
    return out


def cmake_areas(root):
    """{layer: (target, [linked strata targets])} from src/CMakeLists.txt."""
    text = open(os.path.join(root, "src", "CMakeLists.txt"), encoding="utf-8").read()
    out = {}
    for m in re.finditer(r"^strata_add_area\((\w+) DIRS (\w+) DEPS ([^)]*?)(?=\s(?:EXPORT_NAME|PRIVATE_LIBS)\b|\))",
                         text, re.M):
        out[m.group(2)] = (m.group(1), [d for d in m.group(3).split() if d.startswith("strata_")])
    return out


def docs_table(root):
    """{layer: (target, [links])} from the table under "## Layers and CMake targets"."""
    out = {}
    text = open(os.path.join(root, "docs", "architecture.md"), encoding="utf-8").read()
    section = text.split("## Layers and CMake targets", 1)[-1].split("\n## ", 1)[0]
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 5 or cells[0] not in RANK:
            continue
        target = re.findall(r"`(strata_\w+)`", cells[2])
        links = re.findall(r"`(strata_\w+)`", cells[3])
        out[cells[0]] = (target[0] if target else "", links)
    return out


def check_docs_and_links(root):
    bad = []
    cmake, docs = cmake_areas(root), docs_table(root)
    target_layer = {t: layer for layer, (t, _) in cmake.items()}
    for layer in LAYERS:
        if layer not in cmake:
            bad.append(f"src/CMakeLists.txt: no strata_add_area for {layer}")
            continue
        target, links = cmake[layer]
        if layer not in docs:
            bad.append(f"docs/architecture.md: the layer table has no row for {layer}")
        elif docs[layer] != (target, links):
            bad.append(f"docs/architecture.md: {layer} is {docs[layer]} in the layer table, "
                       f"{(target, links)} in src/CMakeLists.txt")
        reach, todo = set(), list(links)
        while todo:
            t = todo.pop()
            if t in target_layer and target_layer[t] not in reach:
                reach.add(target_layer[t])
                todo.extend(cmake[target_layer[t]][1])
        used = included_layers(root, layer)
        for other in sorted(used - reach):
            bad.append(f"{layer} includes {other} headers, which its links ({' '.join(links)}) do not reach")
        for t in links:
            if t in target_layer and target_layer[t] not in used:
                bad.append(f"{layer} links {t} but includes no {target_layer[t]} header")
    return bad


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    bad = check_docs_and_links(root)
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
    print(f"layering: {len(bad)} problem(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
