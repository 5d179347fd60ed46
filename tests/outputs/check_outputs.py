#!/usr/bin/env python3
"""Check the HDF5/XDMF output of a tridsim run.

usage: check_outputs.py OUTPUT_DIR

For every *.h5 in OUTPUT_DIR: each dataset under /step_* is finite and has the shape the /grid
attributes give (n is listed x, y, z; datasets are stored slowest axis first: (nz, ny, nx); a
vector field has 3 components last: (nz, ny, nx, 3)); a stretched grid's /grid/x, /grid/y, /grid/z
hold strictly increasing node coordinates from lo to hi;
/times and /steps list the step groups. For every *.xmf: it parses, and each HDF DataItem names
an existing dataset of the stated dimensions (1s aside). Leftover temporary files (.*.part) are errors too:
a writer that did not finish. Exits 0 when all is well, 1 listing every problem otherwise.
Needs h5py and numpy (Debian: python3-h5py; use /usr/bin/python3 if another python3 lacks them).
"""
import pathlib
import sys
import xml.etree.ElementTree as ET

try:
    import h5py
    import numpy as np
except ImportError as e:
    sys.exit(f"check_outputs.py: needs h5py and numpy ({e}); run it with a Python that has them, e.g. /usr/bin/python3")


def check_coordinates(path, grid, dim, n, problems):
    """A stretched grid's /grid/x, /grid/y, /grid/z: each axis's node coordinates (one node on an
    unused axis), strictly increasing; from lo to hi on a stretched axis (spacing NaN), lo + i *
    spacing on a uniform one."""
    names = [a for a in "xyz" if a in grid]
    if not names:
        return
    if names != list("xyz"):
        problems.append(f"{path}: /grid has coordinates {names}, expected x, y and z")
        return
    lo, hi = np.atleast_1d(grid.attrs["lo"]), np.atleast_1d(grid.attrs["hi"])
    spacing = np.atleast_1d(grid.attrs["spacing"])
    for a, name in enumerate(names):
        x = grid[name][()]
        count = n[a] if a < dim else 1
        if x.shape != (count,):
            problems.append(f"{path}: /grid/{name} has shape {x.shape}, expected ({count},)")
            continue
        if not np.all(np.isfinite(x)) or not np.all(np.diff(x) > 0):
            problems.append(f"{path}: /grid/{name} is not finite and strictly increasing")
        if a >= dim:
            continue
        if np.isnan(spacing[a]):  # stretched: from lo to hi
            if x[0] != lo[a] or x[-1] != hi[a]:
                problems.append(f"{path}: /grid/{name} runs from {x[0]} to {x[-1]}, but lo, hi say {lo[a]}, {hi[a]}")
        elif x[0] != lo[a] or not np.allclose(np.diff(x), spacing[a]):  # uniform (periodic: the last node hi - h)
            problems.append(f"{path}: /grid/{name} is not lo + i * spacing ({lo[a]}, {spacing[a]}), or it is "
                            "stretched and spacing is not NaN")


def check_h5(path, problems):
    with h5py.File(path, "r") as f:
        grid = f.get("grid")
        if grid is None or not all(k in grid.attrs for k in ("dim", "n", "lo", "hi", "spacing")):
            problems.append(f"{path}: no /grid group with attributes dim, n, lo, hi, spacing")
            return
        dim = int(grid.attrs["dim"])
        n = [int(v) for v in np.atleast_1d(grid.attrs["n"])]
        if not 1 <= dim <= 3 or len(n) != dim:
            problems.append(f"{path}: /grid has dim={dim} but n={n}")
            return
        shape = tuple(reversed(n))
        check_coordinates(path, grid, dim, n, problems)
        groups = sorted(k for k in f if k.startswith("step_"))
        if not groups:
            problems.append(f"{path}: no /step_* groups")
        for name in groups:
            group = f[name]
            if "time" not in group.attrs:
                problems.append(f"{path}: /{name} has no 'time' attribute")
            for field, item in group.items():
                where = f"{path}:/{name}/{field}"
                if not isinstance(item, h5py.Dataset):
                    problems.append(f"{where}: not a dataset")
                    continue
                if item.shape != shape and item.shape != shape + (3,):  # a scalar, or a 3-vector per node
                    problems.append(f"{where}: shape {item.shape}, but /grid says {shape} (or {shape + (3,)} for a vector)")
                    continue
                values = item[()]
                bad = ~np.isfinite(values)
                if bad.any():
                    first = tuple(int(i) for i in np.argwhere(bad)[0])
                    problems.append(f"{where}: {int(bad.sum())} non-finite value(s), first at index {first} "
                                    f"(slowest axis first): {values[first]}")
        steps = f.get("steps")
        times = f.get("times")
        if steps is None or times is None:
            problems.append(f"{path}: no /steps or /times dataset (was the writer closed?)")
        elif [f"step_{int(s):06d}" for s in steps[()]] != groups or len(times) != len(groups):
            problems.append(f"{path}: /steps and /times do not match the /step_* groups")


def check_xmf(path, problems):
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        problems.append(f"{path}: not valid XML: {e}")
        return
    items = [d for d in root.iter("DataItem") if d.get("Format") == "HDF"]
    if not items:
        problems.append(f"{path}: references no HDF5 data")
    files = {}
    for item in items:
        ref = (item.text or "").strip()
        file_name, _, dataset = ref.partition(":")
        h5 = path.parent / file_name
        if not dataset or not h5.is_file():
            problems.append(f"{path}: '{ref}' does not name an existing file and dataset")
            continue
        if h5 not in files:
            files[h5] = h5py.File(h5, "r")
        obj = files[h5].get(dataset)
        if not isinstance(obj, h5py.Dataset):
            problems.append(f"{path}: '{ref}': no such dataset")
            continue
        dims = tuple(int(v) for v in item.get("Dimensions", "").split())
        # The writer states 3 dimensions for every mesh (1 along unused axes), so compare
        # without the 1s.
        if [d for d in dims if d != 1] != [d for d in obj.shape if d != 1]:
            problems.append(f"{path}: '{ref}' has shape {obj.shape}, but the XDMF says {dims}")
    for f in files.values():
        f.close()


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = pathlib.Path(sys.argv[1])
    if not out.is_dir():
        sys.exit(f"check_outputs.py: '{out}' is not a directory")
    problems = []
    h5_files = sorted(out.glob("*.h5"))
    xmf_files = sorted(out.glob("*.xmf"))
    if not h5_files:
        problems.append(f"{out}: no .h5 files")
    for leftover in sorted(out.glob(".*.part")):
        problems.append(f"{leftover}: temporary file left behind (a writer did not finish)")
    for path in h5_files:
        try:
            check_h5(path, problems)
        except (OSError, KeyError, ValueError) as e:
            problems.append(f"{path}: cannot read: {e}")
    for path in xmf_files:
        try:
            check_xmf(path, problems)
        except (OSError, KeyError, ValueError) as e:
            problems.append(f"{path}: cannot read: {e}")
    if problems:
        print("\n".join(f"check_outputs.py: {p}" for p in problems), file=sys.stderr)
        sys.exit(1)
    print(f"check_outputs.py: {len(h5_files)} HDF5 and {len(xmf_files)} XDMF file(s) in {out} are fine")


if __name__ == "__main__":
    main()
