#!/usr/bin/env bash
# ctest extension_module (label extension): the out-of-tree example, end to end.
#  1. install the built tridsim into a prefix under the build tree; check that the installed
#     package passes no host-specific flags (-march=native ...) to its consumers, that every
#     installed header says what it offers and its namespace in its first lines, and that the
#     installed tridsim program runs from the prefix (a shared libtridsim found by its RPATH);
#  2. configure and build this folder (mysim) against it with find_package(tridsim), and the
#     example program of docs/library.md, examples/cpp (solve_lines), which must run and pass;
#  3. run decay.yaml with both schemes and both precisions and check the error norms in
#     summary.json against bounds derived below; check that a misspelled key is an error;
#  4. check the file of the out-of-tree output format "probe" (probe_writer.cpp), and that an
#     unknown format is an error listing the registered ones.
# First it checks that the code blocks docs/extending.md and docs/library.md quote from here and from
# examples/cpp are still verbatim.
# Usage: run_extension_test.sh CMAKE TRIDSIM_BUILD_DIR WORK_DIR GENERATOR CXX_COMPILER CONFIG PYTHON
set -euo pipefail
[[ $# -eq 7 ]] || { echo "usage: $0 CMAKE TRIDSIM_BUILD_DIR WORK_DIR GENERATOR CXX_COMPILER CONFIG PYTHON" >&2; exit 2; }
cmake=$1 tridsim_build=$2 work=$3 generator=$4 cxx=$5 config=$6 python=$7
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
prefix=$work/prefix build=$work/build runs=$work/runs
rm -rf "$prefix" "$build" "$build-example" "$runs"
mkdir -p "$runs"

echo "== 0. docs/extending.md and docs/library.md quote these files verbatim"
"$python" - "$here/../.." docs/extending.md docs/library.md <<'PY'
import pathlib, re, sys
root = pathlib.Path(sys.argv[1])
for doc in (root / d for d in sys.argv[2:]):
    blocks = re.findall(r"\*From \[`([^`]+)`\]\([^)]*\):\*\n```[a-z]*\n(.*?)```", doc.read_text(), re.S)
    assert blocks, f"{doc}: no quoted blocks found"
    for path, text in blocks:
        assert text in (root / path).read_text(), f"{doc}: a block quoted from {path} no longer matches that file"
    print(f"{doc.name}: {len(blocks)} quoted blocks match")
PY

echo "== 1. install tridsim ($tridsim_build) into $prefix"
"$cmake" --install "$tridsim_build" --prefix "$prefix" --config "$config" > "$work/install.log" ||
  { cat "$work/install.log"; exit 1; }

mapfile -t targets < <(find "$prefix" -path '*/cmake/tridsim/tridsimTargets*.cmake')
(( ${#targets[@]} > 0 )) || { echo "FAIL: no tridsimTargets*.cmake under $prefix"; exit 1; }
flags=$(grep -nE -- '-m(arch|tune|cpu|avx|sse|fma|bmi)|native' "${targets[@]}" || true)
[[ -z $flags ]] || { echo "FAIL: the installed package passes host-specific flags to its consumers:"; echo "$flags"; exit 1; }
missing=0
while IFS= read -r -d '' h; do  # "namespace X" (or "no namespace") within the first comment lines
  head -n 8 "$h" | grep -qE '^//.*namespace' || { echo "FAIL: ${h#"$prefix/"} does not name its namespace in its first lines"; missing=1; }
done < <(find "$prefix/include/tridsim" \( -name '*.hpp' -o -name '*.cuh' \) -print0)
(( missing == 0 )) || exit 1
"$prefix/bin/tridsim" info > "$work/installed_info.log" 2>&1 ||
  { echo "FAIL: the installed tridsim does not run from $prefix/bin:"; cat "$work/installed_info.log"; exit 1; }
echo "installed package: no host-specific flags, headers name their namespaces, $prefix/bin/tridsim runs"

echo "== 2. build $here and examples/cpp against it"
"$cmake" -S "$here" -B "$build" -G "$generator" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE="$config"
"$cmake" --build "$build" --config "$config" --parallel 2
mysim=$(find "$build" -type f -name mysim -perm -u+x | head -n 1)
[[ -n $mysim ]] || { echo "FAIL: no mysim executable under $build"; exit 1; }
"$cmake" -S "$here/../../examples/cpp" -B "$build-example" -G "$generator" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE="$config"
"$cmake" --build "$build-example" --config "$config" --parallel 2
example=$(find "$build-example" -type f -name solve_lines -perm -u+x | head -n 1)
[[ -n $example ]] || { echo "FAIL: no solve_lines executable under $build-example"; exit 1; }
"$example" || { echo "FAIL: examples/cpp/solve_lines"; exit 1; }

echo "== 3. run decay.yaml"
"$mysim" info | grep -E '^ +decay ' || { echo "FAIL: 'mysim info' does not list the decay module"; exit 1; }
"$mysim" info | grep -E '^ +probe ' || { echo "FAIL: 'mysim info' does not list the probe output format"; exit 1; }
"$mysim" run "$here/decay.yaml" -o "$runs/crank-nicolson"
"$mysim" run "$here/decay.yaml" -o "$runs/exponential" --set decay.scheme=exponential
"$mysim" run "$here/decay.yaml" -o "$runs/exponential-float" --set decay.scheme=exponential --precision float
if "$mysim" check "$here/decay.yaml" --set decay.lamda=1 > "$runs/typo.log" 2>&1; then
  echo "FAIL: a misspelled key (decay.lamda) was accepted"; exit 1
fi
grep -q "decay.lamda" "$runs/typo.log" || { echo "FAIL: the error does not name decay.lamda:"; cat "$runs/typo.log"; exit 1; }
if "$mysim" check "$here/decay.yaml" --set output.formats=[prob] > "$runs/format.log" 2>&1; then
  echo "FAIL: an unknown output format (prob) was accepted"; exit 1
fi
grep -q "output.formats: expected .*probe.*, got 'prob'; did you mean 'probe'?" "$runs/format.log" ||
  { echo "FAIL: the error does not list the registered formats:"; cat "$runs/format.log"; exit 1; }

"$python" - "$runs" <<'PY'
import json, math, pathlib, sys

runs = pathlib.Path(sys.argv[1])
# From decay.yaml: lambda, and max |u0| for u0 = 1 + a sin(pi x) cos(2 pi y), a = 0.5, which
# the grid attains at its node x = 0.5, y = 0.
LAMBDA, U0_MAX = 2.0, 1.5

def summary(run, precision):
    s = json.loads((runs / run / "summary.json").read_text())
    assert s["module"] == "decay" and s["precision"] == precision, (run, s["module"], s["precision"])
    t = s["time"]
    n, dt, T = t["steps"], t["dt"], t["end"] - t["start"]
    assert abs(n * dt - T) < 1e-12 * T, f"{run}: the steps do not end at the end time"
    csv = (runs / run / "decay_diagnostics.csv").read_text().splitlines()[0]
    assert all(c in csv for c in ("u_min", "u_max", "u_mean")), f"{run}: diagnostics columns: {csv}"
    err = s["error"]["max"]
    print(f"{run}: {n} steps of dt = {dt}, error max {err:.3e}, l2 {s['error']['l2']:.3e}")
    return n, dt, T, err

def check(run, err, bound):
    print(f"{run}: bound {bound:.3e}")
    assert err <= bound, f"{run}: error.max = {err:.3e} exceeds its bound {bound:.3e}"

# Rounding. u = unit roundoff of the run's precision, ud = that of double. The factor g is
# computed in double (exp within 2 ud) and rounded to the precision (u), so each of the N steps
# multiplies by g (1 + d), |d| <= u + 2ud, and rounds the product (u); u0 is rounded to the
# precision once (u, zero in double: the exact solution uses the same double u0). The driver's
# time accumulates N additions, so the steps sum to T within N ud T: a relative lambda N ud T;
# rounding z = lambda dt and lambda (t - t0) adds lambda T ud twice; the exact solution's exp
# and product add 3 ud. First order:
#   |rounding error| <= |u(T)| ((2N + 1) u + (2N + 3 + lambda T (N + 2)) ud).
ud = 2.0**-53
def rounding(n, T, u):
    return U0_MAX * math.exp(-LAMBDA * T) * ((2 * n + 1) * u + (2 * n + 3 + LAMBDA * T * (n + 2)) * ud)

# Crank-Nicolson: u_N = R^N u0 with R = (1 - z/2) / (1 + z/2), z = lambda dt. The series
#   exp(-z) - R = z^3/12 - z^4/12 + 0.054 z^5 - ...
# alternates with decreasing terms for 0 < z <= 1, so 0 <= exp(-z) - R <= z^3/12, and
#   |u(T) - u_N| = |u0| (exp(-z) - R) sum_{k<N} exp(-k z) R^(N-1-k) <= |u0| N z^3/12 exp(-(N-1) z).
n, dt, T, err = summary("crank-nicolson", "double")
z = LAMBDA * dt
assert 0 < z <= 1
check("crank-nicolson", err, U0_MAX * n * z**3 / 12 * math.exp(-(n - 1) * z) + rounding(n, T, ud))
# ... and it is that scheme that ran: the error is the closed form |u0| (exp(-lambda T) - R^N).
R = (1 - z / 2) / (1 + z / 2)
expected = U0_MAX * (math.exp(-LAMBDA * T) - R**n)
assert abs(err - expected) <= 1e-6 * expected, f"crank-nicolson: error {err:.6e} is not the scheme's {expected:.6e}"

# Exponential integrator: exact but for rounding.
n, dt, T, err = summary("exponential", "double")
check("exponential", err, rounding(n, T, ud))
n, dt, T, err = summary("exponential-float", "float")
check("exponential-float", err, rounding(n, T, 2.0**-24))
# The probe writer: u at the node (0, 0), where u0 = 1, at every output time (every 20 steps).
def probe(run, tol, exact):
    s = json.loads((runs / run / "summary.json").read_text())
    lines = (runs / run / "decay_probe.txt").read_text().splitlines()
    steps = [int(l.split()[0]) for l in lines]
    assert steps == list(range(0, s["time"]["steps"] + 1, 20)), f"{run}: probe steps {steps}"
    for l in lines:
        step, t, field, v = l.split()
        t, v = float(t), float(v)
        assert field == "u" and abs(t - step_time(s, int(step))) <= 1e-12, f"{run}: probe line {l!r}"
        assert abs(v - exact(t, int(step))) <= tol * exact(t, int(step)), f"{run}: probe {v} at t = {t}"
    print(f"{run}: {len(lines)} probe lines match")

def step_time(s, step):
    return s["time"]["start"] + step * s["time"]["dt"]

z = LAMBDA * 0.01
probe("exponential", 1e-13, lambda t, n: math.exp(-LAMBDA * t))
probe("exponential-float", 1e-5, lambda t, n: math.exp(-LAMBDA * t))
probe("crank-nicolson", 1e-13, lambda t, n: ((1 - z / 2) / (1 + z / 2)) ** n)
print("extension test passed")
PY
