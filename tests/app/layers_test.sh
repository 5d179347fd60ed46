#!/usr/bin/env bash
# tools/check_layers.py: the tree has no upward include (docs/architecture.md, "Layers"), and a
# planted one, from core/ into outputs/ and from solvers/ into physics/, is caught with its line.
# Usage: layers_test.sh SOURCE_DIR WORK_DIR PYTHON
set -u
src=$1 work=$2 py=$3
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
"$py" "$src/tools/check_layers.py" "$src" || fail "the tree has upward includes"
rm -rf "$work" && mkdir -p "$work/core" "$work/solvers" || exit 1
printf '#include "core/types.hpp"\n#include "outputs/writer.hpp"\n' > "$work/core/a.hpp"
printf '// ok\n#include "physics/solver_choice.hpp"\n' > "$work/solvers/b.cpp"
out=$("$py" "$src/tools/check_layers.py" "$work") && fail "planted upward includes passed"
grep -q "core/a.hpp:2: core/ includes outputs/" <<< "$out" || fail "core -> outputs not reported: $out"
grep -q "solvers/b.cpp:2: solvers/ includes physics/" <<< "$out" || fail "solvers -> physics not reported: $out"
[ "$failures" = 0 ] && echo "layers: all passed"
exit $((failures > 0))
