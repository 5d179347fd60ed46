#!/usr/bin/env bash
# Fuzz deck loading and `tridsim check` of every module (tests/fuzz/fuzz_deck.cpp) for a while.
# Usage: tools/fuzz.sh [SECONDS]       (default 180; BUILD_DIR=build-fuzz, JOBS=nproc)
# Installs clang and its libFuzzer runtime with apt-get (through sudo when not root) if they are
# missing, builds the harness with ASan + UBSan in $BUILD_DIR and fuzzes a copy of the seed decks
# in $BUILD_DIR/fuzz/corpus. Exits non-zero when it found a crash, a hang or a memory blow-up;
# the input that did it is left in $BUILD_DIR/fuzz/artifacts.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-180}
build=${BUILD_DIR:-build-fuzz}
jobs=${JOBS:-$(nproc)}

clang_ready() {  # clang and clang++ that link a libFuzzer target with OpenMP
  command -v clang > /dev/null && echo 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long) { return 0; }' |
    clang++ -x c++ -fsanitize=fuzzer -fopenmp - -o /dev/null 2> /dev/null
}
if ! clang_ready; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends clang libclang-rt-dev libomp-dev
fi

# -O1 without NDEBUG: assertions stay on, and a finding is a bug; line tables name the lines of a report.
cmake -S . -B "$build" -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" -DTRIDSIM_FUZZ=ON \
  -DTRIDSIM_TESTS=OFF -DTRIDSIM_BENCH=OFF -DTRIDSIM_CUDA=OFF -DTRIDSIM_VTK=OFF -DTRIDSIM_NATIVE=OFF -DTRIDSIM_MPI=OFF > /dev/null
cmake --build "$build" -j"$jobs" --target fuzz_deck

# Seeds: the example and test decks as they are, and each with its comments removed and its grid
# shrunk to 9 nodes per axis (the harness skips grids over 10^6 nodes; small ones run fast).
work=$(realpath "$build")/fuzz
rm -rf "$work/corpus" "$work/artifacts" && mkdir -p "$work/corpus" "$work/artifacts"
for deck in inputs/*.yaml tests/extension/decay.yaml tests/fuzz/regressions/*.yaml; do
  [ -e "$deck" ] || continue
  name=$(basename "$(dirname "$deck")")-$(basename "$deck")
  cp "$deck" "$work/corpus/$name"
  sed -E '/^\s*#/d; s/\s+#.*$//; /^\s*n: \[/s/[0-9]+/9/g' "$deck" > "$work/corpus/small-$name"
done

echo "fuzzing for $seconds s; corpus $work/corpus, findings in $work/artifacts"
rc=0
# One OpenMP thread: on grids this small, starting threads costs more than the work.
OMP_NUM_THREADS=1 "$(realpath "$build")/bin/fuzz_deck" "$work/corpus" -dict=tests/fuzz/deck.dict -max_total_time="$seconds" \
  -max_len=4096 -timeout=20 -rss_limit_mb=2048 -artifact_prefix="$work/artifacts/" -print_final_stats=1 \
  < /dev/null || rc=$?
if [ $rc -ne 0 ]; then
  echo "fuzz_deck found a bug (exit $rc). The input:" >&2
  ls -l "$work/artifacts" >&2
  echo "Reproduce: $build/bin/fuzz_deck FILE; once fixed, keep FILE as tests/fuzz/regressions/NAME.yaml" >&2
fi
exit $rc
