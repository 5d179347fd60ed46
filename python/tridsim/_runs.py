"""tridsim decks run and checked from Python: :func:`run`, :func:`check` and their results.

A deck runs in this process through the same driver as ``tridsim run`` (the same steps, output
times, checks and errors); its fields come back as NumPy arrays, equal bit for bit to those the
HDF5 output holds.

Runs are not reentrant: the driver sets process-wide state (OpenMP's thread count, the
flushing of subnormal numbers, the log level) for the run's length, so runs started from several
Python threads take turns; each puts that state back when it ends.
"""
import json
import os

import numpy as np

from . import _core

__all__ = ["run", "check", "RunResult", "RunGrid"]

_DICT_DECK = "<dict>"  # how errors name a deck given as a dict: "<dict>:LINE"


class RunGrid:
    """The grid of a run, as the deck gave it.

    Attributes:
        dim: the number of axes (1, 2 or 3).
        n: points per axis, ``(nx,)``, ``(nx, ny)`` or ``(nx, ny, nz)`` (boundary nodes included).
        lo, hi: the first and last node's coordinate on each axis, in axis order x, y, z.
        spacing: the node spacing on each axis, ``(hi - lo) / (n - 1)``; NaN on a stretched axis
            (``grid.x``, ``grid.y``, ``grid.z`` in the deck), whose nodes are in x, y, z.
        x, y, z: the node coordinates along each axis (1-D float64 arrays); ``None`` for an axis
            the grid does not have. ``np.meshgrid(x, y, indexing="xy")`` has the fields' 2-D shape.
    """

    def __init__(self, info):
        self.dim = info["dim"]
        self.n = info["n"]
        self.lo = info["lo"]
        self.hi = info["hi"]
        self.spacing = info["spacing"]
        coords = tuple(info["coords"]) + (None,) * (3 - self.dim)
        self.x, self.y, self.z = coords

    @property
    def shape(self):
        """The fields' array shape: the axes slowest first, ``(nz, ny, nx)`` in 3-D."""
        return tuple(reversed(self.n))

    def __repr__(self):
        return f"RunGrid(n={self.n}, lo={self.lo}, hi={self.hi})"


class RunResult:
    """What :func:`run` returns.

    Attributes:
        fields: ``{name: array}`` at the last output time. Each array has the shape and order
            of the run's HDF5 datasets (C order, x fastest: ``(nz, ny, nx)``, ``(ny, nx)`` or
            ``(nx,)``) and the run's precision (float32 or float64), and equals them bit for bit.
        step, time: the step number and simulation time of ``fields``.
        outputs: ``[(step, time, {name: array}), ...]`` for every output time with
            ``times="all"``; with ``times="last"``, only the last one.
        grid: the grid (:class:`RunGrid`): ``n``, ``lo``, ``hi``, ``spacing`` and the node
            coordinates ``x``, ``y``, ``z``.
        summary: the run's summary as a dict: what ``summary.json`` holds (status, module,
            backend, precision, grid, time, wall times, error norms where the deck has an exact
            solution, ...).
        output_dir: the directory the files were written to, or ``None`` (``output=None``).
    """

    def __init__(self, outputs, grid, summary, output_dir):
        self.outputs = outputs
        self.grid = grid
        self.summary = summary
        self.output_dir = output_dir
        self.step, self.time, self.fields = outputs[-1] if outputs else (None, None, {})

    def __repr__(self):
        return (f"RunResult(step={self.step}, time={self.time}, fields={sorted(self.fields)}, "
                f"outputs={len(self.outputs)}, output_dir={self.output_dir!r})")


def _json_value(value):
    """JSON for values json does not know: NumPy scalars and arrays, paths."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    raise TypeError(f"a deck value must be a str, number, bool, list or dict, got {type(value).__name__}")


def _deck_source(deck):
    """(name, text): a file deck's path and None, or '<dict>' and the dict as JSON text."""
    if isinstance(deck, dict):
        # JSON is YAML: the deck's reader takes it as it is. indent=1 puts each key on its own
        # line, so that errors give a line ('<dict>:LINE').
        return _DICT_DECK, json.dumps(deck, indent=1, default=_json_value)
    if isinstance(deck, (str, os.PathLike)):
        path = os.fspath(deck)
        if not os.path.isfile(path):
            raise FileNotFoundError(f"deck '{path}' is not a file")
        return path, None
    raise TypeError(f"deck must be a path (str or os.PathLike) or a dict, got {type(deck).__name__}")


def _set_list(overrides):
    """{'KEY=VALUE': python}: the overrides as ``tridsim run --set`` takes them (a str as it is,
    anything else as JSON), each with how the caller wrote it (``set={'KEY': value}``)."""
    if overrides is None:
        return {}
    if not isinstance(overrides, dict):
        raise TypeError(f"set must be a dict {{'heat.scheme': 'douglas', ...}}, got {type(overrides).__name__}")
    sets = {}
    for key, value in overrides.items():
        if not isinstance(key, str) or not key or "=" in key:
            raise ValueError(f"set: {key!r} is not a deck key (e.g. 'heat.scheme' or 'grid.n')")
        text = value if isinstance(value, str) else json.dumps(value, default=_json_value)
        sets[f"{key}={text}"] = f"set={{{key!r}: {value!r}}}"
    return sets


def _driving(call, sets, threads=None, backend=None, output=None):
    """call(): the CLI's driver, its errors naming the Python arguments where it names the command
    line's options (--set KEY=VALUE, --threads, --backend NAME, -o DIR); a bad set= or threads=
    value raises ValueError."""
    names = [(f"command line (--set {q})", p) for a, p in sets.items() for q in (f"'{a}'", a)]
    names += [(f"--set {q}", p) for a, p in sets.items() for q in (f"'{a}'", a)]
    names += [("--threads", f"threads={threads!r}"), (f"--backend {backend}", f"backend={backend!r}"),
              ("-o: ", f"output={output!r}: ")]

    def renamed(text):
        for cli, python in names:
            text = text.replace(cli, python)
        return text

    try:
        return call()
    except _core.DeckError as e:
        e.file, e.message, e.args = renamed(e.file), renamed(e.message), (renamed(str(e)),)
        raise
    except _core.TridsimError as e:
        if str(e).startswith(("--set ", "--threads")):
            raise ValueError(renamed(str(e))) from None
        e.args = (renamed(str(e)),)
        raise


def _choice(argument, value):
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{argument} must be a str or None, got {type(value).__name__}")
    return value


def check(deck, set=None, backend=None, precision=None):
    """Validate a deck as ``tridsim check DECK`` does, without running it.

    Every key, expression and value is read and checked, and the module is set up (its fields
    allocated and filled), so a deck that passes runs.

    Args:
        deck: the path (str or os.PathLike) of a YAML deck, or the deck as a dict (the YAML
            structure: ``{"module": "heat", "grid": {"n": [65, 65]}, ...}``).
        set: overrides ``{"KEY": value}`` applied to the deck as ``--set KEY=VALUE`` is
            (``{"heat.scheme": "douglas", "grid.n": [64, 64]}``). A str value is read as YAML, as
            on the command line; other values are written as JSON.
        backend: ``"cpu"``, ``"cuda"`` or ``"auto"``, overriding the deck's ``backend``.
        precision: ``"double"`` or ``"float"``, overriding the deck's ``precision``.

    Returns:
        None when the deck is valid.

    Raises:
        DeckError: (a ValueError) for a fault in the deck: ``.file`` (the deck's path, or
            ``"<dict>"``), ``.line`` (an int, or None), ``.key`` (e.g. ``"heat.scheme"``) and
            ``.message`` say where and what.
        ValueError: for an unknown ``backend`` or ``precision`` name, or a ``set`` value that is
            not valid YAML or sets a key under one that is not a section.
        TridsimError: for anything else the deck cannot do here (e.g. ``backend="cuda"`` in a
            build or on a machine without CUDA).
        FileNotFoundError, TypeError: for a ``deck`` that is no file, or arguments of the wrong type.
    """
    name, text = _deck_source(deck)
    sets = _set_list(set)
    _driving(lambda: _core.check_deck(name, text, list(sets), _choice("backend", backend),
                                      _choice("precision", precision)), sets, backend=backend)


def run(deck, set=None, backend=None, precision=None, output=None, threads=None, times="last",
        progress=None, quiet=False):
    """Run a deck in this process, as ``tridsim run DECK`` does, and return its fields.

    The run computes without holding the GIL (other Python threads go on) and takes it only to
    call ``progress``. Ctrl-C (or any signal whose Python handler raises) stops the run after
    the step in progress, as it stops ``tridsim run``: with ``output``, the outputs so far, a
    checkpoint where the deck can take one and a summary saying "stopped" are written; then
    KeyboardInterrupt is raised. The terminal progress bar is never shown. Runs from several
    threads take turns (see the module's notes).

    Args:
        deck: the path (str or os.PathLike) of a YAML deck, or the deck as a dict (the YAML
            structure). Files a deck names (tissue maps, a source file) are looked up as the
            CLI looks them up: beside a file deck first, then in the current directory; for a
            dict deck, in the current directory. A dict deck without ``name`` is named "deck".
        set: overrides ``{"KEY": value}`` applied to the deck as ``--set KEY=VALUE`` is
            (``{"heat.scheme": "douglas", "grid.n": [64, 64], "time.steps": 10}``). A str value
            is read as YAML, as on the command line; other values are written as JSON.
        backend: ``"cpu"``, ``"cuda"`` (fields on the GPU, copied back at output times) or
            ``"auto"``, overriding the deck's ``backend``.
        precision: ``"double"`` or ``"float"``, overriding the deck's; float runs return
            float32 arrays.
        output: None (the default): no file at all is written (no output directory, no
            checkpoints), whatever the deck's ``output`` section says; it still sets the output
            times. A directory (str or os.PathLike): the deck's formats (HDF5/XDMF, VTK, CSV,
            ``summary.json``, checkpoints) are written there exactly as by
            ``tridsim run DECK -o DIR``, and the fields are returned too.
        threads: OpenMP threads for the run (0: all), overriding the deck's ``threads``.
        times: ``"last"`` keeps only the last output time's fields in memory; ``"all"`` keeps
            every output time's (``RunResult.outputs``).
        progress: None, or a callable ``progress(step, time, end_time)`` called after every
            step (``step`` counts from the deck's start; ``time`` is the simulation time reached).
            An exception it raises stops the run as Ctrl-C does and is raised by ``run``.
        quiet: True prints nothing but errors; False (the default) prints what ``tridsim run``
            prints without ``-q`` (warnings, the final "finished" and error-norm lines).

    Returns:
        RunResult: ``.fields`` (``{name: ndarray}`` at the last output time, shaped and ordered
        as the HDF5 datasets: ``(nz, ny, nx)``), ``.step``, ``.time``, ``.outputs``, ``.grid``,
        ``.summary`` (a dict) and ``.output_dir``.

    Raises:
        DeckError: (a ValueError) for a fault in the deck, with ``.file``, ``.line``, ``.key``
            and ``.message``.
        ValueError: for an unknown ``backend`` or ``precision``, a bad ``set`` value (as for
            :func:`check`), ``threads`` out of range or a bad ``times``.
        TridsimError: when the run cannot go on (it diverged: a NaN or Inf in its diagnostics),
            for a backend this build or machine lacks, or an output directory it cannot write.
        KeyboardInterrupt: when stopped by Ctrl-C (or whatever ``progress`` raised).
    """
    if times not in ("last", "all"):
        raise ValueError(f"times must be 'last' or 'all', got {times!r}")
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, (int, np.integer))):
        raise TypeError(f"threads must be an int or None, got {type(threads).__name__}")
    if progress is not None and not callable(progress):
        raise TypeError("progress must be a callable progress(step, time, end_time) or None")
    name, text = _deck_source(deck)
    output_dir = None if output is None else os.fspath(output)
    sets = _set_list(set)
    raw = _driving(lambda: _core.run_deck(name, text, list(sets), _choice("backend", backend),
                                          _choice("precision", precision), output_dir,
                                          None if threads is None else int(threads), times == "all",
                                          progress, bool(quiet)), sets, threads, backend, output)
    return RunResult([tuple(o) for o in raw["outputs"]], RunGrid(raw["grid"]), json.loads(raw["summary"]),
                     output_dir)
