#!/usr/bin/env bash
# tools/perf_tables.py: every generated timing table in docs/performance.md and docs/modules/poisson.md is what
# the bench/results JSON it names gives now; and in a copy of those files, --check fails naming
# the block when a table's number is typed over or its JSON changes, and a rewrite mends both.
# Usage: perf_tables_test.sh SOURCE_DIR WORK_DIR
set -u
src=$1 work=$2
python=/usr/bin/python3
tool="$src/tools/perf_tables.py"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# 1. The tree as committed.
"$python" "$tool" --check || fail "the tree's generated tables differ from bench/results (run tools/perf_tables.py)"

# 2. A copy: the documents and the results.
rm -rf "$work" && mkdir -p "$work/docs/modules" "$work/bench" || exit 1
cp "$src/docs/modules/poisson.md" "$work/docs/modules/" && cp "$src/docs/performance.md" "$work/docs/" && cp -r "$src/bench/results" "$work/bench/" || exit 1
"$python" "$tool" --root "$work" --check > /dev/null 2>&1 || fail "the copy does not check"

# A number typed over inside a block (the Douglas step's double time in performance.md).
sed -i '/^<!-- perf-table: cpu-2core-douglas -->$/,/^<!-- end perf-table -->$/ s/^| double | [0-9.]* ms/| double | 29.0 ms/' \
  "$work/docs/performance.md"
out=$("$python" "$tool" --root "$work" --check 2>&1) && fail "a number typed over passed --check"
grep -q "docs/performance.md:[0-9]*: cpu-2core-douglas" <<< "$out" || fail "--check did not name the typed-over block: $out"
"$python" "$tool" --root "$work" > /dev/null && "$python" "$tool" --root "$work" --check > /dev/null 2>&1 ||
  fail "a rewrite did not mend the typed-over block"
cmp -s "$src/docs/performance.md" "$work/docs/performance.md" || fail "the rewrite differs from the tree's performance.md"

# A new result in the JSON: the H100 Douglas step's double time halved.
"$python" - "$work/bench/results/h100-adi-contract.json" <<'PY'
import json, sys
path = sys.argv[1]
data = json.load(open(path))
for b in data["benchmarks"]:
    if b["name"] == "adi_douglas_step/cuda/auto/double/256/real_time":
        b["real_time"] = 0.25
json.dump(data, open(path, "w"))
PY
out=$("$python" "$tool" --root "$work" --check 2>&1) && fail "a changed JSON passed --check"
grep -q "docs/performance.md:[0-9]*: h100-douglas$" <<< "$out" || fail "--check did not name the h100-douglas block: $out"
"$python" "$tool" --root "$work" > /dev/null
grep -q '^| `auto` | 0.250 ms (29.3 Gpts/s) |' "$work/docs/performance.md" || fail "the rewrite does not show the new time 0.250 ms"

# A tridsim bench run list (the scaling JSON): the 2-GPU 512³ step at 2.0 ms changes its row and
# the speed-up and efficiency computed from it and the 1-GPU row.
"$python" - "$work/bench/results/h100x4-douglas-scaling.json" <<'PY'
import json, sys
path = sys.argv[1]
data = json.load(open(path))
for r in data["runs"]:
    if r["grid"] == [512, 512, 512] and r["ranks"] == 2 and r["transport"] == "nccl":
        r["ms_per_step"] = 2.0
json.dump(data, open(path, "w"))
PY
out=$("$python" "$tool" --root "$work" --check 2>&1) && fail "a changed scaling JSON passed --check"
grep -q "docs/performance.md:[0-9]*: h100x4-douglas-strong$" <<< "$out" || fail "--check did not name h100x4-douglas-strong: $out"
"$python" "$tool" --root "$work" > /dev/null
grep -q '^| 512³ | 2 | nccl | 2.00 | 41.1 G | 3.16 | 1.58 |' "$work/docs/performance.md" ||
  fail "the rewrite does not show the 2-GPU step's new time, speed-up and efficiency"

# A table of several files: the split solve's 2-GPU time (the second file of h200x2-split).
"$python" - "$work/bench/results/h200x2-gpu-distributed-split-np2.json" <<'PY'
import json, sys
path = sys.argv[1]
data = json.load(open(path))
for b in data["benchmarks"]:
    if b["name"] == "split_gpu/arrays/gather/b0/256x256x4096/iterations:20/manual_time":
        b["real_time"] = 3.125
json.dump(data, open(path, "w"))
PY
out=$("$python" "$tool" --root "$work" --check 2>&1) && fail "a changed second JSON passed --check"
grep -q "docs/performance.md:[0-9]*: h200x2-split$" <<< "$out" || fail "--check did not name h200x2-split: $out"

# A block naming a table the script does not have.
printf '<!-- perf-table: no-such-table -->\n<!-- end perf-table -->\n' >> "$work/docs/modules/poisson.md"
out=$("$python" "$tool" --root "$work" --check 2>&1) && fail "an unknown table name passed"
grep -q "no table named no-such-table" <<< "$out" || fail "unknown table: $out"

[ $failures = 0 ] && echo "perf_tables: all passed" && exit 0
echo "perf_tables: $failures failed"; exit 1
