#!/usr/bin/env bash
# The key tables (core/deck_keys.hpp) end to end: `tridsim info MODULE` prints them, `tridsim new
# MODULE` writes a template that checks and runs as it is, a deck with several errors gets all of
# them in one pass, and the deck reader reads no key its module's table lacks and gives no key left
# out a default of its own where the table has one (TRIDSIM_AUDIT_KEY_TABLE makes check fail naming
# any such key) over every example deck and template; and each default of a table, spelt out in
# the template, runs to the same results as the template (key_defaults_test.py).
# Usage: deck_keys_test.sh TRIDSIM SOURCE_DIR WORK_DIR
set -u
tridsim=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
modules="bvp elasticity glioma heat poisson reaction_diffusion"

# 1. info MODULE: one row per key (key, type, default, unit, required, what); driver keys too.
"$tridsim" info heat > info_heat.txt 2>&1 || fail "info heat: exit $?"
for row in '^heat\.diffusivity +expression +- +length\^2/time +yes +kappa: a number or an expression of x, y, z$' \
           '^heat\.source +expression +0 +unit of u/time +no +f: an expression of x, y, z, t$' \
           '^heat\.boundary\.<face>\.type +name +- +- +yes +dirichlet, neumann or periodic \(periodic: both faces of the axis, n distinct nodes' \
           '^time\.dt +number +- +time +yes +the time step$' \
           '^grid\.n +list of integers +- +- +yes '; do
  grep -Eq "$row" info_heat.txt || fail "info heat: no row matching $row"
done
"$tridsim" info poisson | grep -q '^time ' && fail "info poisson lists time (a steady module takes none)"
for m in $modules; do
  "$tridsim" info $m > info_$m.txt 2>&1 || fail "info $m: exit $?"
  grep -q "^$m  *section .* yes " info_$m.txt || fail "info $m: no row for its section"
done
out=$("$tridsim" info hat 2>&1); rc=$?
[ $rc = 1 ] && [ "$out" = "error: unknown module: expected bvp, elasticity, glioma, heat, poisson or reaction_diffusion, got 'hat'; did you mean 'heat'?" ] ||
  fail "info hat: exit $rc, '$out'"

# 2. new MODULE: a template that checks and runs as it is, listing the keys it does not set.
for m in $modules; do
  "$tridsim" new $m -o $m.yaml 2> new_$m.log || { fail "new $m: exit $?"; cat new_$m.log; continue; }
  "$tridsim" new $m | cmp -s - $m.yaml || fail "new $m: standard output differs from -o"
  "$tridsim" check $m.yaml > check_$m.log 2>&1 || { fail "template $m: check failed"; cat check_$m.log; }
  "$tridsim" run $m.yaml -o run_$m --no-progress -q > run_$m.log 2>&1 || { fail "template $m: run failed"; cat run_$m.log; }
  grep -q '"status": "complete"' run_$m/summary.json 2>/dev/null || fail "template $m: summary.json not complete"
done
grep -q '^#   heat\.scheme: auto  -- name$' heat.yaml || fail "heat template: heat.scheme not listed with its default"
grep -q '^#   time\.start: 0  -- number, time$' heat.yaml || fail "heat template: time.start not listed"
out=$("$tridsim" new heat -o heat.yaml 2>&1); rc=$?
[ $rc = 1 ] && [ "$out" = "error: new: 'heat.yaml' exists; give another file (it is not overwritten)" ] ||
  fail "new over an existing file: exit $rc, '$out'"

# 3. Several errors in one pass, each at file:line: key, in the deck's order; nothing written.
cat > three.yaml <<'DECK'
module: heat
grid: {n: [17, 17]}
time: {dt: 0.01, steps: fast}
heat:
  difusivity: 1
  initial: "sin(pi*x)"
  colour: red
  boundary:
    all: {type: dirichlet, value: 0}
DECK
"$tridsim" run three.yaml -o three_out > three.out 2> three.err; rc=$?
cat > three.want <<'WANT'
error: three.yaml: 3 errors:
  three.yaml:3: time.steps: expected an integer, got 'fast'
  three.yaml:5: heat.diffusivity: missing required key (expected an expression); the section has 'difusivity': did you mean 'diffusivity'?
  three.yaml:7: heat.colour: unknown key; valid keys here are: boundary diffusivity exact initial scheme solver source
WANT
[ $rc = 1 ] || fail "three errors: exit $rc"
cmp -s three.err three.want || { fail "three errors: stderr differs"; diff three.want three.err; }
[ -e three_out ] && fail "three errors: three_out was created"
# One error keeps the reader's own message (one line).
sed -e '/colour/d' -e 's/steps: fast/steps: 2/' -e 's/difusivity/diffusivity/' three.yaml > one.yaml
echo "  color: red" >> one.yaml
out=$("$tridsim" check one.yaml 2>&1); rc=$?
[ $rc = 1 ] && [ "$out" = "error: one.yaml:9: heat.color: unknown key; valid keys here are: boundary diffusivity exact initial scheme solver source" ] ||
  fail "one error: exit $rc, '$out'"

# 4. No key read by the reader is missing from its table: every example deck, every template,
#    and variants that reach keys the decks leave out.
audit() { TRIDSIM_AUDIT_KEY_TABLE=1 "$tridsim" check "$@" > audit.log 2>&1 || { fail "audit: check $*"; cat audit.log; }; }
for deck in "$src"/inputs/*.yaml; do  # (on small grids: the axes of grid.n, 17 nodes each)
  commas=$(grep -m1 -E '^ +n: \[' "$deck" | tr -cd ,)
  small=17; for ((a = 0; a < ${#commas}; ++a)); do small=$small,17; done
  audit "$deck" --set "grid.n=[$small]"
done
for m in $modules; do audit $m.yaml; done
audit heat.yaml --set 'heat.solver={x: thomas, y: pcr}' --set 'output={times: [0.01], checkpoint: {every: 2, keep: 1}}'
audit heat.yaml --set time.steps=3 --set time.end= --set time.start=0 --set parallel.ranks=[1,1] --set threads=1
audit reaction_diffusion.yaml --set reaction_diffusion.scheme=linearly-implicit \
  --set 'reaction_diffusion.jacobian={u: ["-1 + 2*u*v", "u^2"], v: ["-2*u*v", "-u^2"]}'
audit reaction_diffusion.yaml --set 'reaction_diffusion.exact_flow={u: u, v: v}' --set 'reaction_diffusion.solver={x: auto}'
audit glioma.yaml --set glioma.seed= --set 'glioma.initial=exp(-(x^2+y^2)/9)' --set 'glioma.thresholds={t1: 0.7, flair: 0.2}'
audit elasticity.yaml --set 'elasticity.loads={a: {traction: {x+: [0, 1]}, body_force: [0, -1]}}' --set elasticity.tip=[2,0.5]
audit poisson.yaml --set poisson.conductivity=1+x --set poisson.method=multifrontal
audit bvp.yaml --set bvp.column_length=64 --set bvp.algorithm=divide-and-conquer

# 5. The tables are where the defaults live: each one spelt out runs as the template does.
/usr/bin/python3 "$src/tests/app/key_defaults_test.py" "$tridsim" "$work" || fail "key defaults (above)"

[ $failures = 0 ] && echo "deck_keys: all passed" && exit 0
echo "deck_keys: $failures failed"; exit 1
