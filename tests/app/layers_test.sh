#!/usr/bin/env bash
# The layers of docs/architecture.md, core <- solvers, outputs <- physics <- app:
#  1. the build: with the include path each layer target compiles with (passed by CMake), a
#     source that includes an upper layer's header fails (the header is not found), while the
#     layer's own headers and those of the layers below are found;
#  2. tools/check_layers.py: the tree has no upward include, relative ones ("../physics/...")
#     included, and planted ones are caught with their line.
# Usage: layers_test.sh SOURCE_DIR WORK_DIR PYTHON CXX LAYER=DIR:DIR:... ...
set -u
src=$1 work=$2 py=$3 cxx=$4
shift 4
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
rm -rf "$work" && mkdir -p "$work/probe" || exit 1

# ---- 1. the layer targets' include paths ----
declare -A path
for arg in "$@"; do path[${arg%%=*}]=${arg#*=}; done
declare -A header=([core]=core/grid.hpp [solvers]=solvers/tridiagonal/line_set.hpp
                   [outputs]=outputs/writer.hpp [physics]=physics/solver_choice.hpp [app]=app/cli.hpp)
declare -A allowed=([core]="core" [solvers]="core solvers" [outputs]="core outputs"
                    [physics]="core solvers outputs physics" [app]="core solvers outputs physics app")
# preprocess LAYER HEADER: a source of LAYER's target that includes HEADER (the probe sits in a
# folder of its own, so only the include path can find the header).
preprocess() {
  local flags=() dir
  local IFS=:
  for dir in ${path[$1]}; do flags+=(-I "$dir"); done
  printf '#include "%s"\n' "$2" > "$work/probe/probe.cpp"
  (cd "$work/probe" && "$cxx" -std=c++20 -E "${flags[@]}" probe.cpp -o /dev/null 2>&1)
}
for layer in core solvers outputs physics app; do
  [ -n "${path[$layer]:-}" ] || { fail "no include path for the layer $layer"; continue; }
  for other in core solvers outputs physics app; do
    h=${header[$other]}
    out=$(preprocess "$layer" "$h")
    rc=$?
    if [[ " ${allowed[$layer]} " == *" $other "* ]]; then
      [ $rc = 0 ] || fail "$layer/ cannot include its own or a lower layer's $h: $out"
    elif [ $rc = 0 ]; then
      fail "$layer/ can include the upper layer's $h"
    elif ! grep -q "$h.*\(No such file\|not found\)" <<< "$out"; then
      fail "$layer/ including $h failed, but not for want of the header: $out"
    fi
  done
done

# ---- 2. tools/check_layers.py ----
"$py" "$src/tools/check_layers.py" "$src" || fail "the tree has upward includes"
mkdir -p "$work/tree/core" "$work/tree/solvers/tridiagonal" || exit 1
printf '#include "core/types.hpp"\n#include "outputs/writer.hpp"\n' > "$work/tree/core/a.hpp"
printf '// ok\n#include "physics/solver_choice.hpp"\n' > "$work/tree/solvers/b.cpp"
printf '#include "../line_set.hpp"\n#include "../../physics/heat/heat.hpp"\n' > "$work/tree/solvers/tridiagonal/c.hpp"
out=$("$py" "$src/tools/check_layers.py" "$work/tree") && fail "planted upward includes passed"
grep -q "core/a.hpp:2: core/ includes outputs/" <<< "$out" || fail "core -> outputs not reported: $out"
grep -q "solvers/b.cpp:2: solvers/ includes physics/" <<< "$out" || fail "solvers -> physics not reported: $out"
grep -q "solvers/tridiagonal/c.hpp:2: solvers/ includes physics/" <<< "$out" ||
  fail "a relative include solvers -> physics not reported: $out"
grep -q "c.hpp:1:" <<< "$out" && fail "a relative include within solvers/ reported: $out"
[ "$failures" = 0 ] && echo "layers: all passed"
exit $((failures > 0))
