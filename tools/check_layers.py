#!/usr/bin/env python3
"""The layers of docs/architecture.md: each folder's sources include only from the folders below it.

    core/ <- solvers/, outputs/ <- physics/ <- app/

(outputs/ and solvers/ do not include each other). The build enforces this for includes through
the include path (each layer target sees only its folder and those below, cmake/TridsimLayers.cmake);
this check also reads includes relative to the including file ("../physics/..."), which the include
path cannot stop. Prints each upward include as FILE:LINE and exits 1 if there is one.
Usage: check_layers.py [SOURCE_DIR]
"""
import os
import pathlib
import re
import sys

ALLOWED = {
    "core": {"core"},
    "solvers": {"core", "solvers"},
    "outputs": {"core", "outputs"},
    "physics": {"core", "solvers", "outputs", "physics"},
    "app": {"core", "solvers", "outputs", "physics", "app"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SUFFIXES = {".hpp", ".cpp", ".cuh", ".cu", ".h", ".c", ".in"}


def included_layer(root, f, name):
    """The layer folder an include names: its first folder, or, for a path that exists relative
    to the including file (as the compiler looks first), the layer it resolves into."""
    beside = pathlib.Path(os.path.normpath(f.parent / name))
    if beside.is_file() or name.startswith(".."):
        try:
            return beside.relative_to(root).parts[0]
        except ValueError:  # outside the tree
            return None
    return name.split("/")[0]


root = pathlib.Path(os.path.normpath(sys.argv[1] if len(sys.argv) > 1 else "."))
bad = []
for layer, allowed in ALLOWED.items():
    for f in sorted((root / layer).rglob("*")):
        if f.suffix not in SUFFIXES or not f.is_file():
            continue
        for n, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
            m = INCLUDE.match(line)
            target = m and included_layer(root, f, m.group(1))
            if target in ALLOWED and target not in allowed:
                bad.append(f"{f.relative_to(root)}:{n}: {layer}/ includes {target}/: {line.strip()}")
for b in bad:
    print(b)
print(f"{len(bad)} upward includes")
sys.exit(1 if bad else 0)
