#!/usr/bin/python3
"""The key tables are where the defaults live: for every module, the template deck (`tridsim new`)
with one default of its module's table spelt out (`--set KEY=DEFAULT`, one key at a time, as
`tridsim info MODULE` prints it, for each key that the template leaves out) must run to the same
results (summary.json's diagnostics but wall times, and error norms) as the template. A reader
whose fallback differs from its table's default fails here. The driver's keys are spelt out on
heat's template only.
Usage: key_defaults_test.py TRIDSIM WORK_DIR   (the templates MODULE.yaml are in WORK_DIR)
"""
import json
import subprocess
import sys
from pathlib import Path

tridsim, work = sys.argv[1], Path(sys.argv[2])
MODULES = ["bvp", "elasticity", "glioma", "heat", "poisson", "reaction_diffusion"]
DRIVER = ("precision", "backend", "threads", "time.", "output.", "grid.", "parallel.", "name", "description")
# Keys whose presence alone changes what a deck means, so that spelling their default out is no
# longer the same deck: a checkpoint section must enable checkpoints; a tissue map's file keys
# apply to a map read from a file (the template gives expressions); a face given needs its type.
SKIP = ("output.checkpoint.", "glioma.tissue.", "elasticity.faces.<face>.value")
PLACES = {"<axis>": "x", "<face>": "y-"}  # (the templates name no y- face, and every grid has x)


def table(module):
    """(key, default) of each row of `tridsim info MODULE` whose default is a value."""
    text = subprocess.run([tridsim, "info", module], capture_output=True, text=True, check=True).stdout
    lines = text.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("key "))
    at, end = lines[header].index("default"), lines[header].index("unit")
    rows = []
    for line in lines[header + 1:]:
        key, default = line.split()[0], line[at:end].strip()
        if default and default != "-" and not default.startswith("("):
            rows.append((key, default))
    return rows


def left_out(deck):
    """The keys the template lists in its closing comment: those it does not set."""
    return {line.split()[1].rstrip(":") for line in deck.read_text().splitlines()
            if line.startswith("#   ") and "  -- " in line}


def results(deck, out, *sets):
    args = [tridsim, "run", str(deck), "-o", str(out), "--no-progress", "-q"]
    for s in sets:
        args += ["--set", s]
    run = subprocess.run(args, capture_output=True, text=True)
    if run.returncode != 0:
        return "exit %d: %s" % (run.returncode, run.stderr.strip())
    summary = json.loads((out / "summary.json").read_text())
    diagnostics = {k: v for k, v in (summary.get("diagnostics") or {}).items() if not k.endswith("_s")}  # (wall times)
    return json.dumps([diagnostics, summary.get("error")], sort_keys=True)


failures = tried = 0
for module in MODULES:
    deck = work / (module + ".yaml")
    base = results(deck, work / ("defaults_" + module))
    if base.startswith("exit"):
        print(f"FAIL: template {module}: {base}")
        failures += 1
        continue
    unset = left_out(deck)
    for key, default in table(module):
        if key not in unset or key.startswith(SKIP) or (module != "heat" and key.startswith(DRIVER)):
            continue
        path = ".".join(PLACES.get(part, part) for part in key.split("."))
        if "<" in path:
            continue  # a key the user names (a species, a load case)
        tried += 1
        spelt = results(deck, work / f"defaults_{module}_{tried}", f"{path}={default}")
        if spelt != base:
            print(f"FAIL: {module}: --set {path}={default} (the table's default of {key}) gives {spelt}, "
                  f"the template without it {base}")
            failures += 1
if tried < 20:  # (the tables hold more: a parse of `info` that finds few is broken)
    print(f"FAIL: only {tried} defaults found in the tables")
    failures += 1
print(f"key defaults: {tried} defaults spelt out, {failures} failed")
sys.exit(1 if failures else 0)
