"""tridsim.run and tridsim.check against the CLI: a deck run from Python returns the fields the
CLI's HDF5 output holds, bit for bit, and writes exactly the files the CLI writes (or none).

Environment (set by the ctest test `python`): PYTHONPATH=<build>/python,
TRIDSIM_EXECUTABLE=<the tridsim CLI>, TRIDSIM_SOURCE_DIR=<the repository>.
"""
import json
import os
import signal
import subprocess
import threading
from pathlib import Path

import h5py
import numpy as np
import pytest

# What the CLI does for itself: OpenMP threads that wait spin briefly, then sleep (a long spin
# makes small runs on a busy machine many times slower). libgomp reads it when tridsim._core
# loads it, so this counts only where no earlier test module imported tridsim.
if "OMP_WAIT_POLICY" not in os.environ:
    os.environ.setdefault("GOMP_SPINCOUNT", "1000")
import tridsim  # noqa: E402
from tridsim import _runs

run = getattr(tridsim, "run", _runs.run)
check = getattr(tridsim, "check", _runs.check)
DeckError = tridsim.DeckError
TridsimError = tridsim.TridsimError

SOURCE = Path(os.environ.get("TRIDSIM_SOURCE_DIR", Path(__file__).resolve().parents[2]))
INPUTS = SOURCE / "inputs"
EXE = os.environ.get("TRIDSIM_EXECUTABLE")
needs_cli = pytest.mark.skipif(not EXE, reason="TRIDSIM_EXECUTABLE is not set")

# Small, fast versions of bundled decks: (deck, overrides), 1D to 3D, every time-stepping family.
HEAT2D = {"grid.n": [33, 29], "time.end": 0.125, "output.every": 4}
CASES = {
    "heat1d": ("heat1d.yaml", {"grid.n": [41], "time.end": 0.046875, "output.every": 5}),
    "heat2d": ("heat2d.yaml", HEAT2D),
    "heat3d": ("heat3d.yaml", {"grid.n": [13, 11, 9], "time.end": 0.01, "output.every": 2}),
    "turing2d": ("turing2d.yaml", {"grid.n": [24, 20], "time.end": 5, "output.every": 6}),
    "glioma2d": ("glioma2d.yaml", {"grid.n": [41, 37], "time.end": 10, "output.every": 7}),
    "poisson2d": ("poisson2d.yaml", {"grid.n": [33, 17]}),
}


def set_args(overrides):
    args = []
    for key, value in overrides.items():
        args += ["--set", f"{key}={value if isinstance(value, str) else json.dumps(value)}"]
    return args


def cli(*args, cwd=None):
    return subprocess.run([EXE, *map(str, args)], capture_output=True, text=True, cwd=cwd)


def cli_run(deck, out, overrides=(), extra=()):
    r = cli("run", deck, "-o", out, "-q", "--no-progress", *set_args(dict(overrides)), *extra)
    assert r.returncode == 0, r.stderr
    return out


def read_h5(path):
    """[(step, time, {name: array})] in step order, as h5py reads the HDF5 output."""
    with h5py.File(path, "r") as f:
        groups = sorted((g for g in f if g.startswith("step_")), key=lambda g: int(g[5:]))
        return [(int(g[5:]), float(f[g].attrs["time"]), {k: f[g][k][()] for k in f[g]}) for g in groups]


def assert_same_fields(got, want):
    assert sorted(got) == sorted(want)
    for name, a in want.items():
        b = got[name]
        assert b.dtype == a.dtype and b.shape == a.shape, (name, b.dtype, b.shape, a.dtype, a.shape)
        assert np.array_equal(b, a), name


def assert_same_outputs(outputs, h5_outputs):
    assert [(s, t) for s, t, _ in outputs] == [(s, t) for s, t, _ in h5_outputs]
    for (_, _, got), (_, _, want) in zip(outputs, h5_outputs):
        assert_same_fields(got, want)


def only_h5(out):
    return next(p for p in Path(out).glob("*.h5") if "_checkpoint_" not in p.name)


@needs_cli
@pytest.mark.parametrize("precision", ["double", "float"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_fields_match_the_cli_hdf5_output(tmp_path, case, precision):
    deck, overrides = CASES[case]
    h5 = read_h5(only_h5(cli_run(INPUTS / deck, tmp_path / "cli", overrides, ["--precision", precision])))
    result = run(INPUTS / deck, set=overrides, precision=precision, times="all", quiet=True)
    assert_same_outputs(result.outputs, h5)
    assert (result.step, result.time) == h5[-1][:2]
    assert_same_fields(result.fields, h5[-1][2])
    dtype = np.float32 if precision == "float" else np.float64
    assert all(a.dtype == dtype for a in result.fields.values())
    with h5py.File(only_h5(tmp_path / "cli"), "r") as f:
        g = f["grid"].attrs
        assert result.grid.n == tuple(g["n"]) and result.grid.lo == tuple(g["lo"]) and result.grid.hi == tuple(g["hi"])
        assert result.grid.spacing == tuple(g["spacing"])
    for axis, coords in enumerate((result.grid.x, result.grid.y, result.grid.z)):
        if axis < result.grid.dim:
            expected = result.grid.lo[axis] + np.arange(result.grid.n[axis]) * result.grid.spacing[axis]
            assert coords.dtype == np.float64 and np.allclose(coords, expected, rtol=1e-15, atol=1e-13)
        else:
            assert coords is None
    assert next(iter(result.fields.values())).shape == result.grid.shape
    assert result.summary["status"] == "complete" and result.summary["precision"] == precision
    assert result.output_dir is None


@needs_cli
def test_times_last_keeps_the_last_output(tmp_path):
    h5 = read_h5(only_h5(cli_run(INPUTS / "heat2d.yaml", tmp_path / "cli", HEAT2D)))
    result = run(INPUTS / "heat2d.yaml", set=HEAT2D, quiet=True)
    assert len(result.outputs) == 1 and len(h5) > 1
    assert_same_outputs(result.outputs, h5[-1:])


@needs_cli
def test_output_dir_writes_what_the_cli_writes(tmp_path):
    deck = INPUTS / "heat2d.yaml"
    overrides = {**HEAT2D, "output.checkpoint.every": 8}
    cli_dir = cli_run(deck, tmp_path / "cli", overrides)
    result = run(deck, set=overrides, output=tmp_path / "py", times="all", quiet=True)
    assert result.output_dir == os.fspath(tmp_path / "py")
    assert sorted(os.listdir(tmp_path / "py")) == sorted(os.listdir(cli_dir))
    assert_same_outputs(result.outputs, read_h5(only_h5(tmp_path / "py")))
    assert_same_outputs(read_h5(only_h5(tmp_path / "py")), read_h5(only_h5(cli_dir)))
    assert result.summary == json.loads((tmp_path / "py" / "summary.json").read_text())
    assert result.summary["status"] == "complete" and "error" in result.summary


@needs_cli
def test_dict_deck_matches_the_same_deck_as_a_file(tmp_path):
    deck = {
        "name": "rod", "module": "heat",
        "grid": {"n": np.array([51])}, "time": {"dt": 0.001, "steps": np.int64(20)},
        "output": {"every": 10, "formats": ["hdf5"]},
        "heat": {"scheme": "crank-nicolson", "diffusivity": 1, "initial": "sin(pi*x)", "exact": "exp(-pi^2*t)*sin(pi*x)",
                 "boundary": {"all": {"type": "dirichlet", "value": 0}}},
    }
    text = json.dumps(deck, default=lambda v: v.tolist() if isinstance(v, np.ndarray) else v.item())
    (tmp_path / "rod.yaml").write_text(text)
    h5 = read_h5(only_h5(cli_run(tmp_path / "rod.yaml", tmp_path / "cli")))
    result = run(deck, times="all", quiet=True)
    assert_same_outputs(result.outputs, h5)
    assert result.summary["deck"] == "<dict>" and result.summary["name"] == "rod"
    assert result.summary["error"]["max"] < 1e-3


def test_set_overrides_change_the_run():
    base = run(INPUTS / "heat2d.yaml", set=HEAT2D, quiet=True)
    douglas = run(INPUTS / "heat2d.yaml", set={**HEAT2D, "heat.scheme": "douglas"}, quiet=True)
    assert "scheme: douglas" in douglas.summary["deck_resolved"]
    assert not np.array_equal(base.fields["u"], douglas.fields["u"])
    assert np.allclose(base.fields["u"], douglas.fields["u"], atol=1e-3)  # the same problem
    small = run(INPUTS / "heat2d.yaml", set={**HEAT2D, "grid.n": [17, 9], "time.steps": 3, "time.end": None}, quiet=True)
    assert small.fields["u"].shape == (9, 17) and small.step == 3


def write_deck(path, text):
    path.write_text(text)
    return path


def test_deck_error_names_file_line_and_key(tmp_path):
    deck = write_deck(tmp_path / "bad.yaml", (INPUTS / "heat1d.yaml").read_text().replace("  scheme:", "  shceme:"))
    line = next(i for i, l in enumerate(deck.read_text().splitlines(), 1) if "shceme:" in l)
    for call in (check, run):
        with pytest.raises(DeckError) as e:
            call(deck)
        assert isinstance(e.value, ValueError) and isinstance(e.value, TridsimError)
        assert (e.value.file, e.value.line, e.value.key) == (str(deck), line, "heat.shceme")
        assert "did you mean 'scheme'" in e.value.message


def test_deck_error_in_a_dict_deck():
    deck = {"module": "heat", "grid": {"n": [9]}, "time": {"dt": 0.1, "steps": 2},
            "heat": {"initial": "0", "diffusivity": -1}}
    with pytest.raises(DeckError) as e:
        run(deck)
    assert e.value.file == "<dict>" and isinstance(e.value.line, int) and e.value.key == "heat.diffusivity"
    text = json.dumps(deck, indent=1).splitlines()
    assert '"diffusivity"' in text[e.value.line - 1]


def test_set_errors_name_the_override():
    with pytest.raises(DeckError) as e:
        check(INPUTS / "heat2d.yaml", set={"heat.scheme": "nonesuch"})
    assert e.value.key == "heat.scheme" and e.value.file == "set={'heat.scheme': 'nonesuch'}" and e.value.line is None
    assert str(e.value).startswith("set={'heat.scheme': 'nonesuch'}: heat.scheme: ") and "--set" not in str(e.value)
    with pytest.raises(DeckError) as e:
        run(INPUTS / "heat2d.yaml", set={**HEAT2D, "grid.n": [33, -1]})
    assert e.value.file == "set={'grid.n': [33, -1]}" and "--set" not in e.value.message
    with pytest.raises(ValueError):
        check(INPUTS / "heat2d.yaml", set={"a=b": 1})


def test_bad_argument_values_raise_value_error_naming_the_argument():
    """Wrong values are ValueErrors that name the Python argument, not the CLI's option."""
    cases = [({"set": {"heat.scheme": "[douglas"}}, r"^set=\{'heat.scheme': '\[douglas'\}: value is not valid YAML"),
             ({"set": {"heat.scheme.x": 1}}, r"^set=\{'heat.scheme.x': 1\}: 'heat.scheme' is not a section"),
             ({"threads": -1}, r"^threads=-1: must be 0 \(all cores\) to \d+"),
             ({"threads": 10 ** 6}, r"^threads=1000000: must be")]
    for kwargs, message in cases:
        with pytest.raises(ValueError, match=message) as e:
            run(INPUTS / "heat1d.yaml", quiet=True, **kwargs)
        assert not isinstance(e.value, TridsimError) and "--" not in str(e.value)
    with pytest.raises(ValueError, match="^set=.*not valid YAML"):
        check(INPUTS / "heat1d.yaml", set={"heat.scheme": "[douglas"})
    with pytest.raises(TypeError, match="threads must be an int"):
        run(INPUTS / "heat1d.yaml", threads=1.5)


@pytest.mark.parametrize("deck", sorted(p.name for p in INPUTS.glob("*.yaml")))
def test_check_passes_every_bundled_deck(deck):
    assert check(INPUTS / deck) is None


def test_check_fails_a_bad_deck(tmp_path):
    deck = write_deck(tmp_path / "bad.yaml", (INPUTS / "heat2d.yaml").read_text().replace("dt: 0.0078125", "dt: -1"))
    with pytest.raises(DeckError) as e:
        check(deck)
    assert e.value.key == "time.dt" and e.value.line is not None


def test_bad_arguments_raise_clear_errors():
    with pytest.raises(ValueError, match="backend='gpu'.*cuda"):
        run(INPUTS / "heat1d.yaml", backend="gpu")
    with pytest.raises(ValueError, match="precision='single'"):
        check(INPUTS / "heat1d.yaml", precision="single")
    with pytest.raises(ValueError, match="times"):
        run(INPUTS / "heat1d.yaml", times="every")
    with pytest.raises(FileNotFoundError):
        run(INPUTS / "no-such-deck.yaml")
    with pytest.raises(TypeError):
        run(42)
    with pytest.raises(TridsimError, match=r"^output='/proc/tridsim-test': ") as e:  # the CLI's -o
        run(INPUTS / "heat1d.yaml", output="/proc/tridsim-test", quiet=True)
    assert "-o" not in str(e.value)


@needs_cli
def test_cuda_backend_runs_or_gives_the_cli_error(tmp_path):
    overrides = {"grid.n": [33, 29], "time.steps": 4, "time.end": None, "output.every": 2}
    r = cli("run", INPUTS / "heat2d.yaml", "-o", tmp_path / "cli", "-q", "--no-progress", "--backend", "cuda",
            *set_args(overrides))
    if r.returncode != 0:  # no CUDA in this build, or no device: the CLI's error, naming the argument
        with pytest.raises(TridsimError) as e:
            run(INPUTS / "heat2d.yaml", set=overrides, backend="cuda")
        assert r.stderr.strip().startswith("error: --backend cuda: ")
        assert str(e.value) == r.stderr.strip().replace("error: --backend cuda", "backend='cuda'", 1)
    else:
        result = run(INPUTS / "heat2d.yaml", set=overrides, backend="cuda", times="all", quiet=True)
        assert isinstance(result.fields["u"], np.ndarray)
        assert_same_outputs(result.outputs, read_h5(only_h5(tmp_path / "cli")))


def test_progress_is_called_after_every_step():
    calls = []
    result = run(INPUTS / "heat2d.yaml", set=HEAT2D, quiet=True, progress=lambda *a: calls.append(a))
    assert [c[0] for c in calls] == list(range(1, 17)) and result.step == 16
    assert all(c[2] == 0.125 for c in calls) and calls[-1][1] == 0.125
    assert all(a[1] < b[1] for a, b in zip(calls, calls[1:]))


def test_an_exception_in_progress_stops_the_run(tmp_path):
    def stop_at_5(step, t, end):
        if step == 5:
            raise ZeroDivisionError("stop")

    with pytest.raises(ZeroDivisionError):
        run(INPUTS / "heat2d.yaml", set={**HEAT2D, "output.checkpoint.every": 100}, output=tmp_path / "out",
            progress=stop_at_5, quiet=True)
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["status"] == "stopped" and summary["time"]["steps"] == 5
    assert any(p.name.endswith("_checkpoint_000005.h5") for p in (tmp_path / "out").iterdir())


def test_sigint_stops_the_run_and_raises_keyboard_interrupt(tmp_path):
    handler = signal.getsignal(signal.SIGINT)
    long_run = {"grid.n": [257, 257], "time.end": 1000, "output.every": 1000000}
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            run(INPUTS / "heat2d.yaml", set=long_run, output=tmp_path / "out", quiet=True)
    finally:
        timer.cancel()
    assert signal.getsignal(signal.SIGINT) is handler
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["status"] == "stopped" and summary["stopped_by"] == "Interrupt"
    assert 0 < summary["time"]["steps"] < 128000


def test_output_none_writes_no_file(tmp_path, monkeypatch):
    deck = write_deck(tmp_path / "deck.yaml", (INPUTS / "heat2d.yaml").read_text().replace(
        "dir: output/heat2d", "dir: out\n  checkpoint: {every: 4}"))
    monkeypatch.chdir(tmp_path)
    before = sorted(p for p in tmp_path.rglob("*"))
    result = run("deck.yaml", set=HEAT2D, quiet=True)
    assert sorted(p for p in tmp_path.rglob("*")) == before
    assert result.output_dir is None and result.step == 16 and "checkpoint" not in result.summary


def test_a_diverging_run_raises_tridsim_error():
    deck = {
        "module": "reaction_diffusion", "grid": {"n": [9, 9]}, "time": {"dt": 0.25, "steps": 8},
        "reaction_diffusion": {"species": ["u"], "diffusion": [[1]], "reactions": {"u": "u^2"},
                               "initial": {"u": "10"}, "boundary": {"all": {"type": "no-flux"}}},
    }
    with pytest.raises(TridsimError, match="diverged") as e:
        run(deck, quiet=True)
    assert not isinstance(e.value, DeckError)


def test_a_run_leaves_the_interpreter_as_it_was():
    tiny = np.array([1e-310])  # a subnormal: flushed to zero if the run left FTZ/DAZ on
    run(INPUTS / "heat1d.yaml", set={"grid.n": [9], "time.end": 0.0078125}, threads=1, quiet=True)
    assert (tiny * 1.0)[0] != 0.0
