#!/usr/bin/env python3
"""Mutated example decks through the real command line: every answer must be clean.

Each deck in inputs/ gets seeded random mutations (a key deleted, misspelled, duplicated or
re-indented; a value replaced by a wrong type, a negative, zero, huge, tiny, NaN, inf, empty, a
list or a map; a list element replaced; the file truncated; garbage bytes inserted; lines
swapped), one to three at a time. `tridsim check` runs on every mutant, and `tridsim run` on a
few with the grid shrunk and the time line cut short by --set. Each must exit 0, or 1 with one
line "error: ..." on stderr (docs/outputs.md: exit codes); a signal, another exit code, "internal error",
more lines (but for "error: FILE: N errors:" and one indented line per error, when one pass
finds several) or a hang fails the test. Each process may use 4 GB (a legal but enormous grid must
fail to allocate, cleanly). The mutants that fail are left in WORK_DIR/failed/.

Usage: deck_mutation_test.py TRIDSIM SOURCE_DIR WORK_DIR [--per-deck N] [--runs N] [--seed S] [--jobs J]
"""
import argparse
import concurrent.futures
import functools
import os
import random
import re
import resource
import shutil
import subprocess
import sys
from pathlib import Path

TIMEOUT_S = 30  # a check takes well under a second; one that does not finish hangs
MEMORY_LIMIT_MB = 4096  # per process: a legal but enormous grid fails to allocate, cleanly

WEIRD_VALUES = [
    "-1", "0", "-0.0", "1e300", "-1e300", "1e-300", "4.9e-324", "1e13", "9223372036854775807",
    "-9223372036854775808", "18446744073709551616", ".nan", ".inf", "-.inf", "nan", "inf", '""', "''",
    "[]", "[1, 2, 3]", "[[1]]", "{}", "{a: 1}", "~", "true", "hello", "0x10", "1_000", "2.5",
    '"sqrt(-1)"', '"1/0"', '"x^1e300"', '"sin("', '"x y"', '"exp(1000)"', '"a = 1"', '"1,2"',
    "*nosuch", "&anchor 1", "&loop [1, *loop]", "&self {a: *self}", "!!binary AAAA", '"\\0"', '"\\u00e9"',
    "'" + "9" * 400 + "'", "?", "- 1",
]
KEY = re.compile(r"(?<![\w+-])([A-Za-z_][\w+-]*):(?: |$)")  # "key: " in a block or a flow map, "key:" opening a block


def code_lines(text):
    """Indices of lines that hold YAML (not blank, not only a comment)."""
    return [i for i, l in enumerate(text.split("\n")) if l.strip() and not l.lstrip().startswith("#")]


def block_end(lines, i):
    """The line after key line i and its more-indented children."""
    indent = len(lines[i]) - len(lines[i].lstrip())
    j = i + 1
    while j < len(lines) and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > indent):
        j += 1
    return j


def value_span(line, start):
    """End of the value that starts at `start`: up to a comment, or a ',' / '}' / ']' in a flow."""
    depth, quote, j = 0, None, start
    while j < len(line):
        c = line[j]
        if quote:
            quote = None if c == quote else quote
        elif c in "\"'":
            quote = c
        elif c in "[{":
            depth += 1
        elif c in "]}":
            if depth == 0:
                break
            depth -= 1
        elif c == "," and depth == 0:
            break
        elif c == "#" and line[j - 1] == " ":
            break
        j += 1
    return j


def mutate_once(text, rng):
    lines = text.split("\n")
    code = code_lines(text)
    kind = rng.choice(["delete", "misspell", "duplicate", "value", "value", "value", "element", "indent",
                       "truncate", "garbage", "swap", "drop_char"])
    if not code or kind == "truncate":
        return text[: rng.randrange(len(text) + 1)], "truncate"
    i = rng.choice(code)
    line = lines[i]
    keys = list(KEY.finditer(line))
    if kind == "delete" and keys:
        del lines[i:block_end(lines, i)]
    elif kind == "misspell" and keys:
        m = rng.choice(keys)
        key = m.group(1)
        p = rng.randrange(len(key))
        key = rng.choice([key[:p] + key[p + 1:], key[:p] + "x" + key[p:], key[:p] + key[p:].upper(), key + "s"])
        lines[i] = line[: m.start(1)] + key + line[m.end(1):]
    elif kind == "duplicate" and keys:
        lines[i:i] = lines[i:block_end(lines, i)]
    elif kind == "value" and keys:
        m = rng.choice(keys)
        end = value_span(line, m.end())
        lines[i] = line[: m.end()].rstrip(" ") + " " + rng.choice(WEIRD_VALUES) + line[end:]
    elif kind == "element" and "[" in line:
        items = [m for m in re.finditer(r"(?<=[\[,])\s*([^,\[\]]+?)\s*(?=[,\]])", line)]
        if not items:
            return text, "none"
        m = rng.choice(items)
        lines[i] = line[: m.start(1)] + rng.choice(WEIRD_VALUES) + line[m.end(1):]
    elif kind == "indent":
        lines[i] = rng.choice([" ", "  ", "    ", "\t"]) + line if rng.random() < 0.5 else line.lstrip()
    elif kind == "garbage":
        garbage = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8))).decode("utf-8", "surrogateescape")
        p = rng.randrange(len(text) + 1)
        return text[:p] + garbage + text[p:], kind
    elif kind == "swap":
        j = rng.choice(code)
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == "drop_char" and line:
        p = rng.randrange(len(line))
        lines[i] = line[:p] + line[p + 1:]
    else:
        return text, "none"
    return "\n".join(lines), kind


def mutate(text, rng):
    kinds = []
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        text, kind = mutate_once(text, rng)
        kinds.append(kind)
    return text, "+".join(kinds)


@functools.lru_cache
def memory_limit(tridsim):
    """The environment and the pre-exec hook that bound a run's memory. AddressSanitizer reserves
    terabytes of address space, so an ASan build gets its allocator's limit instead."""
    env = dict(os.environ, OMP_NUM_THREADS="1")
    if b"__asan_init" in Path(tridsim).read_bytes():
        env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS"), "allocator_may_return_null=1",
                                                     f"max_allocation_size_mb={MEMORY_LIMIT_MB // 2}"]))
        return env, None
    limit = MEMORY_LIMIT_MB << 20
    return env, lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def judge(args, cwd, errors=None):
    """Run tridsim; return "valid" or "refused" if its answer is clean, else what is wrong with it
    (its error lines are added to the list `errors`, if given)."""
    env, preexec = memory_limit(args[0])
    try:
        p = subprocess.run(args, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, timeout=TIMEOUT_S,
                           preexec_fn=preexec, env=env)
    except subprocess.TimeoutExpired:
        return f"no answer within {TIMEOUT_S} s"
    err = p.stderr.decode("utf-8", "replace")
    # A line ends at "\n" only: garbage bytes a message echoes from the deck (a form feed, \x1e) are
    # part of their line, where str.splitlines would break it.
    lines = [l for l in err.split("\n") if not l.startswith("[warning] ")]
    if lines and lines[-1] == "":
        lines.pop()
    errors is not None and errors.extend(lines)
    if p.returncode < 0:
        return f"killed by signal {-p.returncode}: {err[-2000:]}"
    if p.returncode == 0 and not lines:
        return "valid"
    if p.returncode == 1 and len(lines) == 1 and lines[0].startswith("error: "):
        return "refused"
    # Several deck errors found in one pass: "error: FILE: N errors:", then one indented line each.
    if (p.returncode == 1 and len(lines) > 2 and lines[0].startswith("error: ") and lines[0].endswith(" errors:")
            and all(l.startswith("  ") for l in lines[1:])):
        return "refused"
    return f"exit code {p.returncode}, stderr:\n{err[-2000:]}"


def command(case, check=False):
    deck, _, tridsim, work, run_args = case
    if run_args is None or check:
        return [tridsim, "check", str(deck), *(run_args or [])]
    return [tridsim, "run", str(deck), "--no-progress", "-o", str(work / (deck.stem + "-out")), *run_args]


AFTER_FIRST_STEP = re.compile(r" at step ([0-9]+), t = ")  # a run that diverged: "u_min is NaN at step 2, t = ..."


def run_case(case):
    """The mutant's answer. A case with run arguments is also checked with them: check is run without
    the steps, so both must be valid, or both refused with the same error (issue 34), unless the run
    failed after its first step."""
    deck, text, _, work, run_args = case
    deck.write_bytes(text.encode("utf-8", "surrogateescape"))
    check_errors, run_errors = [], []
    checked = judge(command(case, check=True), work, check_errors) if run_args is not None else None
    why = judge(command(case), work, run_errors)
    shutil.rmtree(work / (deck.stem + "-out"), ignore_errors=True)
    if checked is None or why not in ("valid", "refused"):
        return why
    if checked not in ("valid", "refused"):
        return f"check: {checked}"
    later = AFTER_FIRST_STEP.search("\n".join(run_errors))
    if (checked, check_errors) != (why, run_errors) and not (checked == "valid" and later and int(later.group(1)) > 1):
        return f"check and run disagree:\n  check: {checked} {check_errors}\n  run:   {why} {run_errors}"
    return why


def shrink_args(original):
    """--set options that make a deck's run tiny: a small grid of the deck's dimension, two steps."""
    m = re.search(r"^\s*n: \[([^\]]*)\]", original, re.M)
    dim = len(m.group(1).split(",")) if m else 2
    args = ["--set", "grid.n=[" + ", ".join(["6"] * dim) + "]"]
    if re.search(r"^time:", original, re.M):  # steady modules have no time section
        args += ["--set", "time={dt: 0.001, steps: 2}"]
    return args


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("tridsim")
    ap.add_argument("source_dir", type=Path)
    ap.add_argument("work_dir", type=Path)
    ap.add_argument("--per-deck", type=int, default=60, help="check runs per deck")
    ap.add_argument("--runs", type=int, default=6, help="of those, tiny `tridsim run`s per deck, each beside its check")
    ap.add_argument("--seed", type=int, default=20240611)
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    work = a.work_dir.resolve()
    shutil.rmtree(work, ignore_errors=True)
    (work / "failed").mkdir(parents=True)
    decks = sorted((a.source_dir / "inputs").glob("*.yaml"))
    if not decks:
        sys.exit(f"no decks in {a.source_dir / 'inputs'}")
    rng = random.Random(a.seed)
    cases = []
    for src in decks:
        original = src.read_text()
        for k in range(a.per_deck):
            text, kinds = mutate(original, rng)
            run_args = shrink_args(original) if k < a.runs else None
            deck = work / f"{src.stem}-{k:03d}.yaml"
            cases.append(((deck, text, a.tridsim, work, run_args), f"{src.name} #{k} ({kinds})"))
    failures, answers = 0, {"valid": 0, "refused": 0}
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        for (case, label), why in zip(cases, pool.map(run_case, [c for c, _ in cases])):
            if why in answers:
                answers[why] += 1
            else:
                failures += 1
                shutil.copy(case[0], work / "failed" / case[0].name)
                print(f"FAIL: {label}: {' '.join(repr(a) if ' ' in a else a for a in command(case))}: {why}\n")
    runs = sum(1 for c, _ in cases if c[4] is not None)
    print(f"{len(cases) - failures} of {len(cases)} mutated decks answered cleanly "
          f"({len(cases) - runs} checks, {runs} tiny runs each checked too; {answers['valid']} valid, "
          f"{answers['refused']} refused; seed {a.seed})")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
