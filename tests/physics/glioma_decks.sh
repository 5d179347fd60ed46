#!/usr/bin/env bash
# The glioma example decks run as they are: both validate, glioma2d runs to the end (one year)
# and its diagnostics plot (tools/plot_glioma.py) is written when a Python with matplotlib is given.
# Usage: glioma_decks.sh TRIDSIM SOURCE_DIR OUT_DIR [PYTHON]
set -euo pipefail
tridsim=$1 src=$2 out=$3 python=${4:-}
cd "$src"
"$tridsim" check inputs/glioma2d.yaml
"$tridsim" check inputs/glioma3d.yaml
rm -rf "$out"
"$tridsim" run inputs/glioma2d.yaml -o "$out"
csv="$out/glioma2d_diagnostics.csv"
head -1 "$csv" | grep -q "burden,volume_t1,volume_flair,radius_t1,radius_flair"
# After a year the tumour is visible on both sequences, the FLAIR volume the larger.
tail -1 "$csv" | awk -F, '{ if (!($7 > 0 && $8 > $7)) { print "implausible final volumes: " $0; exit 1 } }'
# The explicit scheme above its stability limit is refused with an error at time.dt.
if "$tridsim" check inputs/glioma2d.yaml --set glioma.scheme=explicit --set time.dt=5 2> "$out/err.txt"; then
  echo "explicit scheme above its limit was accepted"; exit 1
fi
grep -q "stability limit" "$out/err.txt"
if [ -n "$python" ]; then
  "$python" tools/plot_glioma.py "$csv" -o "$out/glioma2d.png"
  test -s "$out/glioma2d.png"
fi
echo "glioma decks OK"
