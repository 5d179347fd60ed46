#!/usr/bin/env bash
# The pictures of docs/gallery: bundled decks run as they are (CPU), drawn by tools/plot.py.
# Usage: tools/gallery.sh [TRIDSIM]   (default build/bin/tridsim)
set -euo pipefail
cd "$(dirname "$0")/.."
tridsim=${1:-build/bin/tridsim}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p docs/gallery
draw() {  # deck, then plot.py's options
  local deck=$1
  shift
  "$tridsim" run "inputs/$deck.yaml" -o "$work/$deck" -q --set "output.formats=[hdf5,csv]"
  /usr/bin/python3 tools/plot.py "$work/$deck" -o docs/gallery "$@"
}
draw heat2d --field u
draw glioma2d --field c
draw turing2d --field u
draw poisson2d --field u
draw plate2d --field von_mises_shear
rm -f docs/gallery/{heat2d,poisson2d,turing2d}_diagnostics.png
