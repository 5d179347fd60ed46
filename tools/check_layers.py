#!/usr/bin/env python3
"""The layers of docs/architecture.md: each folder's sources include only from the folders below it.

    core/ <- solvers/, outputs/ <- physics/ <- app/

(outputs/ and solvers/ do not include each other). Prints each upward include as FILE:LINE and
exits 1 if there is one. Usage: check_layers.py [SOURCE_DIR]
"""
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
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"/]+)/')
SUFFIXES = {".hpp", ".cpp", ".cuh", ".cu", ".h", ".c", ".in"}

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
bad = []
for layer, allowed in ALLOWED.items():
    for f in sorted((root / layer).rglob("*")):
        if f.suffix not in SUFFIXES or not f.is_file():
            continue
        for n, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
            m = INCLUDE.match(line)
            if m and m.group(1) in ALLOWED and m.group(1) not in allowed:
                bad.append(f"{f.relative_to(root)}:{n}: {layer}/ includes {m.group(1)}/: {line.strip()}")
for b in bad:
    print(b)
print(f"{len(bad)} upward includes")
sys.exit(1 if bad else 0)
