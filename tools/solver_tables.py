"""The solver tables of the C++ sources, read by the tools that must agree with them.

solvers/tridiagonal/line_solvers.hpp holds one row per line-solver name (kLineSolvers); this reads
each row's name, alias, cpu and gpu behaviour and the GpuAlgorithm it runs, so that the generator of
auto's table (gpu_selection_table.py) and the performance tables list what the solvers offer.
"""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
ROW = re.compile(r'\{"([a-z0-9-]+)",\s*(nullptr|"[a-z0-9-]+"),\s*OnCpu::(\w+),\s*Algorithm::\w+,\s*'
                 r'OnGpu::(\w+),\s*GpuAlgorithm::(\w+),')


def line_solvers(root=ROOT):
    """Rows of kLineSolvers in table order: dicts of name, alias_of, on_cpu, on_gpu, gpu (the enum)."""
    text = (pathlib.Path(root) / "solvers/tridiagonal/line_solvers.hpp").read_text()
    rows = [dict(name=m[1], alias_of=None if m[2] == "nullptr" else m[2].strip('"'), on_cpu=m[3], on_gpu=m[4],
                 gpu=m[5]) for m in ROW.finditer(text)]
    if not rows:
        raise SystemExit("solvers/tridiagonal/line_solvers.hpp: no rows of kLineSolvers found")
    return rows


def gpu_algorithms(root=ROOT):
    """{name: GpuAlgorithm enumerator} of the GPU algorithms a caller may name (auto and aliases left
    out), in table order: what auto ranks and the GPU line-solver benchmark runs."""
    return {r["name"]: r["gpu"] for r in line_solvers(root)
            if r["alias_of"] is None and r["on_gpu"] != "refuses" and r["gpu"] != "automatic"}
