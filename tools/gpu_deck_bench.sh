#!/usr/bin/env bash
# Time the heat and glioma decks of the GPU performance targets with `tridsim bench` (steps
# only, nothing written): constant and variable diffusivity at 256^3, time-dependent sources and
# boundary data (evaluated on the device), the 2D deck with and without its time-dependent data,
# glioma 256^3.
# Usage: tools/gpu_deck_bench.sh TRIDSIM_BINARY [STEPS]        (prints one line per case)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$1
STEPS=${2:-20}
N3='grid.n=[256,256,256]'
run() {  # label, deck, overrides...
  local label=$1 deck=$2
  shift 2
  local sets=()
  for s in "$@"; do sets+=(--set "$s"); done
  printf '%-44s ' "$label"
  "$BIN" bench "$deck" --backend cuda --steps "$STEPS" "${sets[@]}" 2>&1 | grep -o '([0-9.]* ms/step[^)]*)' || echo failed
}
for p in double float; do
  run "adi-benchmark 256^3 $p" inputs/adi-benchmark.yaml "precision=$p"
  run "adi-benchmark 256^3 kappa=1+0.5x $p" inputs/adi-benchmark.yaml "precision=$p" 'heat.diffusivity=1 + 0.5*x'
  run "adi-benchmark 256^3 source=sin(3x)cos(t) $p" inputs/adi-benchmark.yaml "precision=$p" 'heat.source=sin(3*x)*cos(t)'
done
run "adi-benchmark 256^3 dirichlet g=1+sin(t)" inputs/adi-benchmark.yaml 'heat.boundary.all.value=1 + sin(t)'
run "adi-benchmark 256^3 neumann g=0" inputs/adi-benchmark.yaml 'heat.boundary.all.type=neumann' \
  'heat.boundary.all.value=0'
run "adi-benchmark 256^3 neumann g=x*cos(t)" inputs/adi-benchmark.yaml 'heat.boundary.all.type=neumann' \
  'heat.boundary.all.value=x*cos(t)'
run "adi-benchmark 256^3 source and dirichlet data" inputs/adi-benchmark.yaml 'heat.source=sin(3*x)*cos(t)' \
  'heat.boundary.all.value=1 + sin(t)'
run "heat3d 256^3" inputs/heat3d.yaml "$N3"
run "heat3d 256^3 source=sin(3x)cos(t)" inputs/heat3d.yaml "$N3" 'heat.source=sin(3*x)*cos(t)'
run "heat2d 2049^2" inputs/heat2d.yaml 'grid.n=[2049,2049]'
run "heat2d 2049^2 no time-dependent data" inputs/heat2d.yaml 'grid.n=[2049,2049]' 'heat.source=0' \
  'heat.boundary.all.value=0'
run "glioma3d 256^3" inputs/glioma3d.yaml "$N3"
