#!/usr/bin/env bash
# End-to-end checks of the tridsim program: a run leaves readable results; bad decks give one
# clear error (file:line, key, what is expected) and a non-zero exit, and leave no result.
# Usage: cli_test.sh TRIDSIM SOURCE_DIR WORK_DIR [PYTHON_WITH_H5PY]
set -u
tridsim=$1 src=$2 work=$3 py=${4:-}
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# 1. A good run, with overrides: every output exists and reads back.
if "$tridsim" run "$src/inputs/heat2d.yaml" --set grid.n=[33,33] --set time.end=0.25 --set heat.scheme=douglas \
     -o good > run.log 2>&1; then
  for f in heat2d.h5 heat2d.xmf heat2d_diagnostics.csv summary.json; do [ -s good/$f ] || fail "missing good/$f"; done
  grep -q '"error"' good/summary.json || fail "summary.json has no error norms"
  grep -q 'progress: 100%' run.log || fail "no progress lines on a non-terminal stderr"
  if [ -n "$py" ]; then "$py" "$src/tests/outputs/check_outputs.py" good || fail "check_outputs.py rejected good/"; fi
  if "$tridsim" info | grep -q "VTK on"; then [ -s good/heat2d.pvd ] || fail "missing good/heat2d.pvd"; fi
else
  cat run.log; fail "heat2d run failed"
fi

# A steady problem is solved once: the error norms against its exact solution are small.
if "$tridsim" run "$src/inputs/poisson2d.yaml" --set grid.n=[65,65] -o poisson > poisson.log 2>&1; then
  grep -q "solved in" poisson.log || fail "poisson2d: not reported as a solve"
  grep -q "error of u: L2 [0-9.]*e-0[3-9]" poisson.log || { fail "poisson2d: no small error norm"; cat poisson.log; }
else
  cat poisson.log; fail "poisson2d run failed"
fi

# A stretched grid (grid.z a tanh mapping): solved at second order, its spacing in summary.json, its
# real coordinates in the outputs (rectilinear XDMF, .vtr).
if "$tridsim" run "$src/inputs/poisson-channel-stretched.yaml" --set grid.n=[16,8,17] -o stretched -q \
     > stretched.log 2>&1; then
  /usr/bin/python3 - stretched/summary.json <<'PY' || fail "poisson-channel-stretched: summary.json (above)"
import json, sys
g = json.load(open(sys.argv[1]))["grid"]
assert g["stretched"] == [False, False, True], g
assert g["h_min"][2] < 0.5 / 16 and g["h_max"][2] > 1.5 / 16 and g["h_min"][0] == g["h_max"][0], g
PY
  grep -q 'TopologyType="3DRectMesh"' stretched/poisson-channel-stretched.xmf || fail "stretched: no 3DRectMesh"
  if [ -n "$py" ]; then "$py" "$src/tests/outputs/check_outputs.py" stretched || fail "check_outputs.py rejected stretched/"; fi
  if "$tridsim" info | grep -q "VTK on"; then
    compgen -G "stretched/poisson-channel-stretched_*.vtr" > /dev/null || fail "stretched: no .vtr"
  fi
else
  cat stretched.log; fail "poisson-channel-stretched run failed"
fi

# summary.json reports the module's final diagnostics (the CSV's last row), with units where the
# module has them; a steady run (poisson, elasticity) has neither a time step nor a time.
"$tridsim" run "$src/inputs/plate2d.yaml" --set grid.n=[21,21] -o plate -q > plate.log 2>&1 ||
  { fail "plate2d run failed"; cat plate.log; }
"$tridsim" run "$src/inputs/glioma2d.yaml" --set grid.n=[51,51] --set time.end=20 -o glioma -q > glioma.log 2>&1 ||
  { fail "glioma2d run failed"; cat glioma.log; }
"${py:-python3}" - <<'PY' || fail "summary.json: diagnostics, units or steady times wrong"
import csv, json, math
s = {k: json.load(open(f"{k}/summary.json")) for k in ("good", "poisson", "plate", "glioma")}
row = list(csv.DictReader(open("good/heat2d_diagnostics.csv")))[-1]
d = s["good"]["diagnostics"]
assert {"u_min", "u_max", "u_mean"} <= d.keys(), d
for k, v in d.items():
    assert math.isclose(v, float(row[k]), rel_tol=1e-9, abs_tol=1e-300), (k, v, row[k])
assert s["good"]["time"]["steps"] > 0 and s["good"]["time"]["dt"] > 0, s["good"]["time"]
assert "diagnostics_units" not in s["good"], "heat's u has no unit"
for k in ("poisson", "plate"):
    assert "time" not in s[k] and "seconds_per_step" not in s[k], f"{k}: a steady run reports a time"
    assert "solve" in s[k]["wall_time_s"] and "steps" not in s[k]["wall_time_s"], s[k]["wall_time_s"]
assert "time" not in s["poisson"]["error"] and "u_max" in s["poisson"]["diagnostics"], s["poisson"]
pd, pu = s["plate"]["diagnostics"], s["plate"]["diagnostics_units"]
assert any(k.endswith("max_displacement") and pd[k] > 0 and pu[k] == "length" for k in pd), (pd, pu)
assert any(k.endswith("max_von_mises") and pu[k] == "unit of E" for k in pd), pu
gu = s["glioma"]["diagnostics_units"]
assert gu["volume_t1"] == "length^2" and gu["radius_t1"] == "length" and gu["c_max"] == "1", gu
assert s["glioma"]["diagnostics"]["volume_flair"] > 0, s["glioma"]["diagnostics"]
PY

# 2. Bad decks: one error naming file:line and key, exit code 1, nothing written.
expect_error() {  # name, expected message part, deck text
  local name=$1 pattern=$2
  printf '%s\n' "$3" > "$name.yaml"
  "$tridsim" run "$name.yaml" -o "out-$name" > "$name.log" 2>&1
  local rc=$?
  [ $rc -eq 1 ] || fail "$name: exit code $rc, expected 1"
  grep -q -- "$pattern" "$name.log" || { fail "$name: message lacks '$pattern'"; cat "$name.log"; }
  [ "$(grep -c '^error:' "$name.log")" -eq 1 ] || fail "$name: not exactly one error line"
  [ ! -e "out-$name" ] || fail "$name: left an output folder"
}
base='module: heat
grid: {n: [9, 9]}
time: {end: 0.1, dt: 0.01}
heat:
  diffusivity: 1
  initial: "sin(pi*x)"
  boundary: {all: {type: dirichlet, value: "0"}}'
expect_error stretchedheat "stretchedheat.yaml:2: grid.x: module heat needs a uniform spacing on every axis" \
  "$(printf '%s\n' "$base" | sed 's/^grid: {n: \[9, 9\]}/grid: {n: [9, 9], x: "x^2"}/')"
expect_error stretchedfirst "grid.x: module poisson takes a stretched axis only as the last one" 'module: poisson
grid: {n: [5, 5], x: [0, 0.1, 0.3, 0.6, 1]}
poisson: {source: 1, boundary: {all: {type: dirichlet, value: 0}}}'
expect_error stretchedorder "grid.y: node coordinates must increase strictly: node 2 is at 0.3 and node 3 at 0.2" 'module: poisson
grid: {n: [5, 5], y: [0, 0.1, 0.3, 0.2, 1]}
poisson: {source: 1, boundary: {all: {type: dirichlet, value: 0}}}'
expect_error misspelled "misspelled.yaml:6: heat.sheme: unknown key; did you mean 'scheme'" \
  "$(echo "$base" | sed 's/^  diffusivity: 1/  diffusivity: 1\n  sheme: douglas/')"
expect_error wrongtype "time.dt: expected a number, got 'fast'" "$(echo "$base" | sed 's/dt: 0.01/dt: fast/')"
expect_error missing "heat.initial: missing required key" "$(echo "$base" | sed '/initial/d')"
expect_error badexpr "heat.initial: cannot parse expression" "$(echo "$base" | sed 's/sin(pi\*x)/sin(pi*x/')"
expect_error negative "heat.diffusivity: must be positive, got -1" "$(echo "$base" | sed 's/diffusivity: 1/diffusivity: -1/')"
expect_error zeropoints "grid.n: every axis needs at least 2 points" "$(echo "$base" | sed 's/n: \[9, 9\]/n: [0, 9]/')"
expect_error badsolver "badsolver.yaml:6: heat.solver: unknown solver: expected" \
  "$(echo "$base" | sed 's/^  diffusivity: 1/  diffusivity: 1\n  solver: thomass/')"
grep -q "did you mean 'thomas'" badsolver.log || fail "badsolver: no suggestion"
expect_error threads "threads: must be 0 (all cores) to" "$(printf '%s\nthreads: 100000' "$base")"
expect_error hugegrid "grid.n: 1.84e+19 points in all is more than any machine holds" \
  "$(echo "$base" | sed 's/n: \[9, 9\]/n: [4294967296, 4294967296]/')"
expect_error tinydt "time.dt: (end - start) / dt = 1e+299 steps; at most 10^12" "$(echo "$base" | sed 's/dt: 0.01/dt: 1e-300/')"
expect_error infend "time.end: must be a finite time" "$(echo "$base" | sed 's/end: 0.1/end: .inf/')"
expect_error nanexact "heat.exact: is NaN at node (0, 0, 0)" "$(printf '%s\n  exact: "sqrt(-1)"' "$base")"
expect_error naninitial "heat.initial: is NaN at node (0, 0, 0)" "$(echo "$base" | sed 's/sin(pi\*x)/sqrt(-1)/')"
expect_error infboundary "heat.boundary.all.value: is +inf at node (0, 0, 0)" "$(echo "$base" | sed 's|value: "0"|value: "1/x"|')"
expect_error coordconstant "constants.x: 'x' is a variable" "$(printf '%s\nconstants: {x: 5}' "$base")"
printf '%s\n' "$base" > ok-threads.yaml
"$tridsim" run ok-threads.yaml --threads 100000 > cli-threads.log 2>&1 && fail "--threads 100000 accepted"
grep -q -- "--threads: must be 0 (all cores) to" cli-threads.log || fail "--threads 100000: no clear error"
expect_error duplicate "duplicate.yaml:6: heat.diffusivity: duplicate key (first given at line 5)" \
  "$(echo "$base" | sed 's/^  diffusivity: 1/  diffusivity: 1\n  diffusivity: 2/')"
expect_error misspelledrequired "misspelledrequired.yaml:5: heat.diffusivity: missing required key" \
  "$(echo "$base" | sed 's/^  diffusivity: 1/  difusivity: 1/')"
grep -q "did you mean 'diffusivity'" misspelledrequired.log || fail "misspelledrequired: no suggestion"
printf '%s\noutput: {dir: /proc/no-such/dir}\n' "$base" > baddir.yaml  # (expect_error's -o would override it)
"$tridsim" run baddir.yaml > baddir.log 2>&1
[ $? -eq 1 ] || fail "baddir: exit code not 1"
grep -q "baddir.yaml:8: output.dir: cannot create the output directory '/proc/no-such/dir'" baddir.log ||
  { fail "baddir: no clear error"; cat baddir.log; }
expect_error nosource "nosource.yaml:4: poisson.source: missing required key" 'module: poisson
grid: {n: [9, 9]}
poisson:
  boundary: {all: {type: dirichlet, value: "0"}}'
expect_error graytissue "glioma.tissue.grey: missing required key" "$(sed 's/^    grey: /    gray: /' "$src/inputs/glioma2d.yaml")"
grep -q "did you mean 'grey'" graytissue.log || fail "graytissue: no suggestion"
expect_error badname "name: must be a plain file name" "$(printf 'name: a/b\n%s' "$base")"
touch plainfile
printf '%s\noutput: {dir: plainfile/sub}\n' "$base" > fileasdir.yaml
"$tridsim" check fileasdir.yaml > fileasdir.log 2>&1 && fail "check accepted an output directory under a file"
grep -q "fileasdir.yaml:8: output.dir: cannot create the output directory 'plainfile/sub': .*plainfile' is not a directory" \
  fileasdir.log || { fail "fileasdir: no clear error"; cat fileasdir.log; }
expect_error unknownmodule "did you mean 'heat'" "$(echo "$base" | sed 's/module: heat/module: haet/')"
expect_error notutf8 "notutf8.yaml:1: not UTF-8 text (byte 0xFF at column 8)" "$(printf 'name: h\xff\n%s' "$base")"
expect_error notutf8later "notutf8later.yaml:6: not UTF-8 text (byte 0xC3 at column 25)" \
  "$(echo "$base" | sed 's/sin(pi\*x)/sin(pi*x) + \xc3(/')"
# Decks and data files that are not regular files: refused at once, never read (a FIFO would block).
refused() {  # name, expected message part, command...
  local name=$1 pattern=$2
  shift 2
  timeout 60 "$@" > "$name.log" 2>&1
  local rc=$?
  [ $rc -eq 1 ] && grep -q -- "$pattern" "$name.log" && [ "$(grep -c '^error:' "$name.log")" -eq 1 ] ||
    { fail "$name: exit code $rc, expected 1 and one error line with '$pattern'"; cat "$name.log"; }
}
mkfifo fifo.yaml fifo.h5
refused fifodeck "deck 'fifo.yaml' is a FIFO, not a file" "$tridsim" check fifo.yaml
refused devdeck "deck '/dev/zero' is a character device, not a file" "$tridsim" check /dev/zero
refused dirdeck "error: deck: File is actually a directory: ." "$tridsim" run . -o out-dirdeck
refused nodeck "error: deck: File does not exist: nothing.yaml" "$tridsim" check nothing.yaml
refused badoption "error: The following argument was not expected: --frobnicate" "$tridsim" check "$src/inputs/heat1d.yaml" --frobnicate
refused benchsteps "error: --steps: Value -1 not in range 1 to 2147483647" "$tridsim" bench "$src/inputs/heat1d.yaml" --steps -1
refused benchzero "error: --steps: Value 0 not in range 1 to" "$tridsim" bench "$src/inputs/heat1d.yaml" --steps 0
truncate -s 17M big.yaml
refused bigdeck "deck 'big.yaml' is 17825792 bytes: a deck is YAML text of at most 16 MiB" "$tridsim" check big.yaml
refused fifotissue "glioma.tissue.white.file: '.*fifo.h5' is a FIFO, not a file" "$tridsim" check "$src/inputs/glioma2d.yaml" \
  --set 'glioma.tissue.white={file: '"$PWD"'/fifo.h5, dataset: w}'
refused notutf8set "--set: not UTF-8 text (byte 0xFF at position 6 of the argument)" \
  "$tridsim" check "$src/inputs/heat1d.yaml" --set "$(printf 'name=\xff')"
refused columnlength "bvp.column_length: must be 0 (the default) or a positive number of elements, at most the grid's 65" \
  "$tridsim" check "$src/inputs/bvp.yaml" --set bvp.column_length=1000000000000 --set grid.n=[65]

# check is run without the steps: both refuse, at the key, what the run would meet at a step.
refused_both() {  # name, expected message part, deck, further arguments...
  local name=$1 pattern=$2 deck=$3
  shift 3
  refused "$name-check" "$pattern" "$tridsim" check "$deck" "$@"
  refused "$name-run" "$pattern" "$tridsim" run "$deck" -o "out-$name" "$@"
  [ ! -e "out-$name" ] || fail "$name: the refused run left an output folder"
}
# Data that move with t are finite at the start, the middle and the end of the run; Neumann data,
# reactions and Jacobian entries as Dirichlet values (heat1d: t in [0, 1]; turing2d: [0, 300]).
refused_both neumannnan "heat.boundary.x+.value: is NaN at node (.*) at t = 0; it must be finite" \
  "$src/inputs/heat1d.yaml" --set 'heat.boundary.x+.value=0/0'
refused_both movingdirichlet "heat.boundary.x-.value: is +inf at node (0, 0, 0) (x = 0, y = 0, z = 0) at t = 0.5" \
  "$src/inputs/heat1d.yaml" --set 'heat.boundary.x-.value=1/(t - 0.5)'
refused_both sourceatend "heat.source: is +inf at node (0, 0, 0) .* at t = 1;" \
  "$src/inputs/heat1d.yaml" --set 'heat.source=1/(1 - t)'
refused_both exactatend "heat.exact: is NaN at node (0, 0, 0) .* at t = 1;" \
  "$src/inputs/heat1d.yaml" --set 'heat.exact=sqrt(0.9 - t)'
refused_both reactioninf "reaction_diffusion.reactions.u: is +inf at node (0, 0, 0) .* with u = .*, v = .* at t = 0" \
  "$src/inputs/turing2d.yaml" --set grid.n=[17,17] --set reaction_diffusion.reactions.u=1/0
refused_both reactionlater "reaction_diffusion.reactions.v: is +inf at node (0, 0, 0) .* at t = 150" \
  "$src/inputs/turing2d.yaml" --set grid.n=[17,17] --set 'reaction_diffusion.reactions.v=1/(t - 150)'
printf '%s\n' 'module: reaction_diffusion' 'grid: {n: [17, 17], hi: [10, 10]}' 'time: {end: 1, dt: 0.1}' \
  'reaction_diffusion:' '  species: [u, v]' '  scheme: linearly-implicit' '  diffusion: [[1, 0], [0, 2]]' \
  '  reactions: {u: "0.1 - u + u^2*v", v: "0.9 - u^2*v"}' '  initial: {u: "1", v: "0.9"}' \
  '  jacobian: {u: ["-1 + 2*u*v", "u^2"], v: ["-2*u*v", "-u^2"]}' '  boundary: {all: {type: no-flux}}' > li.yaml
refused_both jacobiannan "reaction_diffusion.jacobian.v: is NaN in entry 2 (d/dv) at node (0, 0, 0)" li.yaml \
  --set 'reaction_diffusion.jacobian.v=["-2*u*v", "sqrt(-1)"]'
refused_both rdexact "reaction_diffusion.exact.v: is NaN at node (0, 0, 0) .* at t = 300" \
  "$src/inputs/turing2d.yaml" --set grid.n=[17,17] --set 'reaction_diffusion.exact={u: "1", v: "sqrt(299 - t)"}'
refused_both bvpneumann "bvp.boundary.x-.value: is NaN at node (0, 0, 0)" "$src/inputs/bvp.yaml" --set grid.n=[65] \
  --set 'bvp.boundary.x-.value=0/0'

# Reaction-diffusion preconditions: no mode diffuses backwards; linearly-implicit's dt lambda / 2 < 1.
refused_both backwarddiffusion "reaction_diffusion.diffusion: has an eigenvalue with real part -4" \
  "$src/inputs/turing2d.yaml" --set grid.n=[17,17] --set 'reaction_diffusion.diffusion=[[1, 5], [5, 1]]'
printf '%s\n' 'module: reaction_diffusion' 'grid: {n: [17, 17], hi: [10, 10]}' 'time: {end: 1, dt: 0.1}' \
  'reaction_diffusion:' '  species: [u, v]' '  scheme: linearly-implicit' '  diffusion: [[1, 0], [0, 2]]' \
  '  reactions: {u: "25*u*(1 - u)", v: "-v"}' '  initial: {u: "0.01", v: "1"}' '  boundary: {all: {type: no-flux}}' \
  > grow.yaml  # u grows at 25 (1 - 2 u) = 24.5: dt below 2 / 24.5 = 0.0816
refused_both reactiongrowth "grow.yaml:3: time.dt: 0.1 exceeds the scheme's stability limit 0.0816327: linearly-implicit \
needs dt lambda / 2 < 1, and the reactions grow at the rate lambda = 24.5" grow.yaml
"$tridsim" check grow.yaml --set time.dt=0.08 > grow-ok.log 2>&1 ||
  { fail "linearly-implicit below its step limit refused"; cat grow-ok.log; }

# Glioma tissue: fractions of a node sum to at most 1; constants are finite numbers.
refused_both tissuesum "glioma.tissue: white + grey = 2 at node (0, 0, 0) (x = -100, y = -100, z = 0): the fractions" \
  "$src/inputs/glioma2d.yaml" --set 'glioma.tissue={white: 1, grey: 1}'
refused_both nanconstant "constants.k: must be a finite number, got nan" "$src/inputs/glioma2d.yaml" --set constants.k=.nan

# Messages at the key that causes them: grid bounds, a constant's name, a diffusivity or initial
# data that one step cannot take in the precision (each ended in a NaN, a zero pivot or "the run
# diverged" at step 0 or 1, or was blamed on another key).
refused_both gridlonan "grid.lo: must be finite numbers, got nan on axis 0" "$src/inputs/heat2d.yaml" \
  --set 'grid.lo=[.nan, 0]'
refused_both gridhiinf "grid.hi: must be finite numbers, got inf on axis 0" "$src/inputs/heat2d.yaml" \
  --set 'grid.hi=[.inf, 1]'
refused_both gridtiny "grid.hi: the spacing (hi - lo)/(n - 1) = 3.91e-303 on axis 0 is out of range: .* h must lie in \[1.49e-154," \
  "$src/inputs/heat1d.yaml" --set 'grid.hi=[1e-300]'
refused_both gridtinyfloat "grid.hi: .* must be a normal float number, so h must lie in \[1.08e-19," \
  "$src/inputs/heat1d.yaml" --set 'grid.hi=[1e-18]' --precision float
refused_both constantname "constants.1k: not a valid constant name: a name starts with a letter or '_'" \
  "$src/inputs/glioma2d.yaml" --set 'constants={1k: 3}'
refused_both hugediffusivity "heat.diffusivity: 1e+300 is too large for one step in double: the diffusion number D dt / h^2 = 2.56e+302" \
  "$src/inputs/heat1d.yaml" --set heat.diffusivity=1e300
refused_both singularlines "heat.diffusivity: 1e+150 is too large for one step in double" "$src/inputs/heat3d.yaml" \
  --set grid.n=[17,17,17] --set heat.diffusivity=1e150  # (a zero pivot in the insulated lines)
refused_both hugeinitial "heat.initial: has values up to 1e+308, too large for the first step in double" \
  "$src/inputs/heat1d.yaml" --set 'heat.initial=1e308*x'
refused_both hugeinitialfloat "heat.initial: has values up to 1e+36, too large for the first step in float" \
  "$src/inputs/heat1d.yaml" --set 'heat.initial=1e36' --precision float
refused_both hugeglioma "glioma.D_white: 1e+300 is too large for one step in double" "$src/inputs/glioma2d.yaml" \
  --set grid.n=[51,51] --set glioma.D_white=1e300
refused_both hugerd "reaction_diffusion.diffusion: 1e+300 is too large for one step in double" "$src/inputs/turing2d.yaml" \
  --set grid.n=[17,17] --set 'reaction_diffusion.diffusion=[[1e300, 0], [0, 1]]'
refused_both hugerdinitial "reaction_diffusion.initial.u: has values up to 1e+306, too large" "$src/inputs/turing2d.yaml" \
  --set grid.n=[17,17] --set 'reaction_diffusion.initial.u=1e306'
"$tridsim" check "$src/inputs/heat3d.yaml" --set grid.n=[17,17,17] --set heat.diffusivity=1e12 > bigkappa.log 2>&1 &&
  "$tridsim" run "$src/inputs/heat3d.yaml" --set grid.n=[17,17,17] --set heat.diffusivity=1e12 -o bigkappa -q \
    >> bigkappa.log 2>&1 || { fail "a large diffusivity within the step's range refused"; cat bigkappa.log; }
refused_both exactflow "reaction_diffusion.exact_flow.u: is NaN at node (0, 0, 0) .* over tau = 0.125 at t = 0;" \
  "$src/inputs/turing2d.yaml" --set grid.n=[17,17] --set 'reaction_diffusion.exact_flow={u: "u*sqrt(-tau)", v: "v"}'
# Subnormal numbers are zero to a run (flushed) and so to its check: 1e-320 is no time step.
refused_both subnormaldt "time.dt: must be a positive number, got 9.99989e-321" "$src/inputs/heat1d.yaml" --set time.dt=1e-320
refused_both subnormalkappa "heat.diffusivity: must be positive, got 1e-310" "$src/inputs/heat2d.yaml" --set grid.n=[9,9] \
  --set heat.diffusivity=1e-310
refused_both exactflowlater "reaction_diffusion.exact_flow.u: is +inf at node (0, 0, 0) .* over tau = .* at t = 150;" \
  "$src/inputs/turing2d.yaml" --set grid.n=[17,17] --set 'reaction_diffusion.exact_flow={u: "u + tau/(t - 150)", v: "v"}'
# A steady problem's source must leave its solve room: u may reach |f| D^2 / (2 kappa), its mean and
# norms sum N values and their squares (poisson: the mean was +inf; bvp: the error norm).
refused_both poissonsource "poisson.source: has values up to 1e+308, too large for the solve in double: .*D = 2.24 the grid's diagonal.* 81 values" \
  "$src/inputs/poisson2d.yaml" --set grid.n=[9,9] --set poisson.source=1e308
refused_both poissonsourcekappa "poisson.source: has values up to 1e+200, .* 1.25 times them .*, kappa = 2 the smallest" \
  "$src/inputs/poisson_variable2d.yaml" --set grid.n=[17,9] --set poisson.source=1e200 --set constants.k_epoxy=2
refused_both bvpsource "bvp.source: has values up to 1e+160, too large for the solve in double: .* must stay below 4.67e+153" \
  "$src/inputs/bvp.yaml" --set grid.n=[33] --set bvp.source=1e160
refused_both bvpsourcefloat "bvp.source: has values up to 1e+38, too large for the solve in float" \
  "$src/inputs/bvp.yaml" --set grid.n=[33] --set bvp.source=1e38 --set precision=float
refused_both bvpexact "bvp.exact: has values up to 1e+308, .*(the error norms take u minus them)" \
  "$src/inputs/bvp.yaml" --set grid.n=[33] --set bvp.exact=1e308
# So must its boundary data: u takes Dirichlet values, and may reach |du/dn| D from a Neumann face.
refused_both poissondirichlet "poisson.boundary.all.value: has values up to 1e+308, .*: the solution may reach 1 times them" \
  "$src/inputs/poisson2d.yaml" --set grid.n=[9,9] --set poisson.boundary.all.value=1e308
refused_both bvpneumann "bvp.boundary.x-.value: has values up to 1e+200, .*(|du/dn| D, D = 1 the grid's diagonal)" \
  "$src/inputs/bvp.yaml" --set grid.n=[33] --set bvp.boundary.x-.value=1e200
"$tridsim" run "$src/inputs/poisson2d.yaml" --set grid.n=[9,9] --set poisson.source=1e150 -o bigsource \
    > bigsource.log 2>&1 || { fail "a large source within the solve's range refused"; cat bigsource.log; }
refused_both poissonkappa "poisson.conductivity: reaches 1e+300: the matrix entries kappa / h^2 = 2.56e+302" \
  "$src/inputs/poisson_variable2d.yaml" --set grid.n=[33,17] --set constants.k_copper=1e300  # (NaN in the solve)
# A constant kappa scales the multifrontal solve's matrix too (faces Neumann); the fast methods, and
# fft-tridiagonal (auto's choice there), divide f by it.
refused_both poissonkappaconstant "poisson.conductivity: reaches 1e+308: the matrix entries kappa / h^2 = inf" \
  "$src/inputs/poisson_variable2d.yaml" --set grid.n=[17,9] --set poisson.conductivity=1e308 --set poisson.method=multifrontal
"$tridsim" run "$src/inputs/poisson_variable2d.yaml" --set grid.n=[17,9] --set poisson.conductivity=1e308 -o bigkappafaces \
    > bigkappafaces.log 2>&1 || { fail "a huge constant kappa refused by fft-tridiagonal"; cat bigkappafaces.log; }
"$tridsim" run "$src/inputs/poisson2d.yaml" --set grid.n=[9,9] --set poisson.conductivity=1e308 -o bigkappafast \
    > bigkappafast.log 2>&1 || { fail "a huge constant kappa refused by a fast method"; cat bigkappafast.log; }
# Data that the first step (or the solve) multiplies must leave it room, as initial data must (each
# passed check and ended in NaN at step 1): a Neumann face's flux term 2 kappa dt g / h, what a
# reaction's first half step reaches, the stiffness entries and loads of the elasticity solve.
refused_both heatneumannhuge "heat.boundary.x+.value: has values up to 1e+308, too large for the first step in double: .*(the flux term 2 kappa dt / h = 2 times them" \
  "$src/inputs/heat1d.yaml" --set grid.n=[9] --set time.dt=0.25 --set 'heat.boundary.x+.value=1e308'
refused_both rdperturbationhuge "reaction_diffusion.reactions.u: is +inf at node .* (the initial state plus the perturbation, reaction_diffusion.perturbation.amplitude = 1e+300) at t = 0" \
  "$src/inputs/turing2d.yaml" --set grid.n=[9,9] --set reaction_diffusion.perturbation.amplitude=1e300
refused_both rdreactionhuge "reaction_diffusion.reactions.u: takes u to .* in the first reaction half step (RK4 over dt/2 = 0.125) from t = 0 at node (0, 0, 0)" \
  "$src/inputs/turing2d.yaml" --set grid.n=[9,9] --set 'reaction_diffusion.reactions.u=1e308'
refused_both rdreactionstage "reaction_diffusion.reactions.u: takes u to .* with u = 1e+30, .*must stay below" \
  "$src/inputs/turing2d.yaml" --set grid.n=[9,9] --set 'reaction_diffusion.reactions.u=u^10' \
  --set 'reaction_diffusion.initial.u=1e30'  # (finite at the start; an RK4 stage overflows)
cat > rdimplicit.yaml <<'EOF'
module: reaction_diffusion
grid: {n: [9]}
time: {dt: 0.25, steps: 2}
reaction_diffusion: {species: [u], scheme: linearly-implicit, diffusion: [[1]], reactions: {u: 1e308}, initial: {u: 1},
                     boundary: {all: {type: no-flux}}}
EOF
refused_both rdreactionimplicit "reaction_diffusion.reactions.u: gives |u| + dt |R_u| = 2.5e+307 in the first step (dt = 0.25)" \
  rdimplicit.yaml
refused_both platethickness "elasticity.thickness: is 1e+308: the stiffness entries" "$src/inputs/plate2d.yaml" \
  --set grid.n=[5,5] --set elasticity.thickness=1e308
refused_both platebodyforce "elasticity.loads.gravity.body_force: has values up to 1e+308, too large for the solve in double: .*(|f| D^2 / (2 mu), .*mu = 7.69e+10 the smallest)" \
  "$src/inputs/plate2d.yaml" --set grid.n=[5,5] --set 'elasticity.loads.gravity.body_force=[0, 1e308]'
refused_both platetraction "elasticity.loads.shear.traction.x+: has values up to 1e+308, .*(|g| D / mu, " \
  "$src/inputs/plate2d.yaml" --set grid.n=[5,5] --set 'elasticity.loads.shear.traction.x+=[1e308, 0]'
# check refuses the output directories run refuses by their place.
for mode in check run; do
  refused outputcwd-$mode "output.dir: the output directory '.' is the current directory or one above it" \
    "$tridsim" $mode "$src/inputs/heat1d.yaml" --set output.dir=.
done
# and the directories mkdir refuses: check makes the first missing folder (and removes it), as the
# run would (/proc takes no new name, though root may write there).
for mode in check run; do
  refused outputproc-$mode "output.dir: cannot create the output directory '/proc/x': " \
    "$tridsim" $mode "$src/inputs/heat1d.yaml" --set output.dir=/proc/x
done
[ "$(grep '^error:' outputproc-check.log)" = "$(grep '^error:' outputproc-run.log)" ] ||
  fail "outputproc: check and run give different errors"
# Expressions are quoted shortened (the first 80 characters and the length), once per message.
long=$(printf 'x+%.0s' $(seq 10000))
refused_both longexpression "heat.initial: cannot parse expression 'x+x+.*…' (20001 characters): " \
  "$src/inputs/heat1d.yaml" --set "heat.initial=$long("
[ "$(wc -c < longexpression-run.log)" -lt 600 ] || fail "longexpression: the message echoes the whole expression"
# A file the run cannot create is named in the output directory, not the staging one.
refused stagedpath "cannot create '$PWD/staged/a\{240\}_diagnostics.csv'" "$tridsim" run "$src/inputs/heat1d.yaml" \
  -o staged --set name="$(printf 'a%.0s' $(seq 240))"
! grep -q "tridsim-new" stagedpath.log || fail "stagedpath: the error names the staging directory"

# An expression is one expression: no assignment, no comma-separated list (muparser would take both).
comma="several comma-separated expressions; give one"
refused_both commainitial "heat.initial: cannot parse expression '1, 2': $comma" "$src/inputs/heat1d.yaml" \
  --set 'heat.initial=1, 2'
refused_both assigninitial "heat.initial: cannot parse expression 'x = 1': '=' assigns a value" "$src/inputs/heat1d.yaml" \
  --set 'heat.initial=x = 1'
refused_both commaexact "poisson.exact: cannot parse expression 'x, y': $comma" "$src/inputs/poisson2d.yaml" \
  --set 'poisson.exact=x, y'
refused_both assignneumann "heat.boundary.x+.value: cannot parse expression 't=1': '=' assigns" "$src/inputs/heat1d.yaml" \
  --set 'heat.boundary.x+.value=t=1'
refused_both commaspecies "reaction_diffusion.initial.v: cannot parse expression '1, 2': $comma" \
  "$src/inputs/turing2d.yaml" --set grid.n=[17,17] --set 'reaction_diffusion.initial.v=1, 2'
refused_both commabodyforce "elasticity.loads.gravity.body_force: cannot parse expression '1, 2': $comma" \
  "$src/inputs/plate2d.yaml" --set 'elasticity.loads.gravity.body_force=[0, "1, 2"]'

# 2b. Command-line conventions.
"$tridsim" --version | grep -Eq '^tridsim [0-9]+\.[0-9]+\.[0-9]+ \(revision ([0-9a-f]+|unknown)\)' || fail "--version"
"$tridsim" run "$src/inputs/heat1d.yaml" -o quiet -q > quiet.log 2>&1 || fail "-q after the subcommand refused"
[ ! -s quiet.log ] || { fail "-q printed something"; cat quiet.log; }
"$tridsim" run "$src/inputs/heat1d.yaml" -o noprogress --no-progress > noprogress.log 2>&1 || fail "--no-progress run"
! grep -q "progress:" noprogress.log || fail "--no-progress printed progress"
grep -q "heat1d finished" noprogress.log || fail "--no-progress lost the summary line"
"$tridsim" run "$src/inputs/poisson2d.yaml" --set grid.n=[33,65] -o steady > steady.log 2>&1 || fail "poisson2d run"
grep -q "poisson2d solved in" steady.log || fail "a steady problem is not reported as a solve"
grep -q '"deck_resolved".*33, 65' steady/summary.json || fail "summary.json lacks the resolved deck"
grep -q '"revision"' steady/summary.json || fail "summary.json lacks the revision"

env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT "$tridsim" info | grep -q "spin 1000 times, then sleep" ||
  fail "OpenMP threads do not default to a short spin"
env -u GOMP_SPINCOUNT OMP_WAIT_POLICY=active "$tridsim" info | grep -q "OMP_WAIT_POLICY=active" ||
  fail "a user's OMP_WAIT_POLICY is not kept"

# (a source finite at every node and time, which overflows u in the first step)
"$tridsim" run "$src/inputs/heat2d.yaml" --set time.dt=10 --set time.end=100 --set 'heat.source=1.7e308*(x>0.5)' \
  -o diverged > diverged.log 2>&1 && fail "a diverging run exited 0"
grep -Eq "u_min is (NaN|[+-]inf) at step 1, t = 10; field u is (NaN|[+-]inf) first at node \([0-9]+, [0-9]+, 0\)" diverged.log ||
  { fail "diverged: no step, field and node"; cat diverged.log; }

# Progress goes to stderr; stdout keeps the results.
"$tridsim" run "$src/inputs/heat1d.yaml" -o streams > streams.out 2> streams.err || fail "streams run failed"
grep -q "progress: 100%" streams.err || fail "no progress lines on stderr"
grep -q "progress:" streams.out && fail "progress lines on stdout"
grep -q "heat1d finished" streams.out || fail "the summary line is not on stdout"

# Every usage error: exit 1, one error line, a suggestion for a misspelt option or subcommand.
usage_error() {  # label, message part, arguments...
  local label=$1 pattern=$2
  shift 2
  "$tridsim" "$@" > "$label.log" 2>&1
  local rc=$?
  [ $rc -eq 1 ] && [ "$(grep -c '^error:' "$label.log")" -eq 1 ] && grep -q -- "$pattern" "$label.log" ||
    { fail "$label: exit code $rc, expected 1 and one error line with '$pattern'"; cat "$label.log"; }
}
H1=$src/inputs/heat1d.yaml
usage_error badcommand "not expected: foo" foo
usage_error misspeltcommand "did you mean 'check'" chek "$H1"
usage_error misspeltoption "did you mean '--precision'" run "$H1" --precison float
usage_error misspeltvalue "did you mean '--threads'" check "$H1" --thread=2
usage_error nodeck "run: give a deck: tridsim run DECK (or --restart CHECKPOINT" run
usage_error benchnodeck "bench: give a deck: tridsim bench DECK" bench
usage_error nosuchdeck "nothing.yaml" run nothing.yaml
usage_error badnumber "--threads" run "$H1" --threads many
usage_error checkprogress "--no-progress" check "$H1" --no-progress
usage_error verbosequiet "-v and -q contradict" run "$H1" -v -q
# Each subcommand's help: the options it takes, and the global -v and -q.
for cmd in run check bench info; do
  "$tridsim" $cmd --help > "help-$cmd.log" 2>&1 || fail "$cmd --help: exit code $?"
  grep -q -- "--verbose" "help-$cmd.log" && grep -q -- "--quiet" "help-$cmd.log" || fail "$cmd --help lacks -v/-q"
done
grep -q -- "--no-progress" help-check.log && fail "check --help offers --no-progress"
grep -q -- "--no-progress" help-run.log && grep -q -- "--restart" help-run.log || fail "run --help lacks its options"
grep -q -- "--restart" help-bench.log && fail "bench --help offers --restart"

# 3. check validates without running or writing.
printf '%s\n' "$base" > ok.yaml
"$tridsim" check ok.yaml > check.log 2>&1 || fail "check rejected a good deck"
[ ! -e output ] || fail "check wrote output"

# 4. A process that does not use the GPU loads none of the CUDA math libraries (the dynamic
# linker's own list of what it loads); a CUDA build names them in info, opened on first use.
for cmd in "--help" "check ok.yaml" "run ok.yaml -o cpu-libs --backend cpu"; do
  # shellcheck disable=SC2086
  LD_DEBUG=files "$tridsim" $cmd > libs.log 2>&1 || fail "tridsim $cmd failed"
  grep -Eo 'file=[^ ]*lib(cublas|cublasLt|cusolver|cusparse|cufft|nvrtc)\.so[^ ]*' libs.log | sort -u | grep . &&
    fail "tridsim $cmd loaded a CUDA math library"
done
if "$tridsim" info | grep -q "CUDA on"; then
  "$tridsim" info | grep -Eq "^CUDA libraries \(opened on first use\): cuBLAS libcublas\.so\.[0-9]+.*NVRTC libnvrtc\.so" ||
    fail "info does not name the CUDA libraries"
fi

# 5. The licence: BSD 3-Clause, with the copyright line in the README.
grep -q "^BSD 3-Clause License" "$src/LICENSE" || fail "LICENSE is not the BSD 3-Clause licence"
grep -q "Copyright (c) 2026, the tridsim developers" "$src/LICENSE" || fail "LICENSE lacks the copyright line"
grep -q "Copyright (c) 2026, the tridsim developers" "$src/README.md" || fail "README lacks the copyright line"

echo "$((failures == 0 ? 1 : 0)) passed, $failures failed"
[ $failures -eq 0 ]
