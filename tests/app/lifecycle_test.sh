#!/usr/bin/env bash
# End-to-end checks of a run's life: output times (output.times, output.interval) land exactly;
# a run continued from a checkpoint (--restart) ends bitwise equal to the uninterrupted run
# (heat in 1D, 2D and 3D, glioma); SIGINT, SIGTERM and SIGHUP finish the step, keep the outputs
# so far, write a checkpoint and exit 128 + the signal, and the command they print continues the
# run; bad checkpoint use is one clear error.
# Usage: lifecycle_test.sh TRIDSIM SOURCE_DIR WORK_DIR PYTHON_WITH_H5PY [BACKEND]
set -u
tridsim=$1 src=$2 work=$3 py=$4 backend=${5:-cpu}
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
run() { "$tridsim" run "$@" --backend "$backend" -q --no-progress; }
if [ "$backend" = cuda ] && ! "$tridsim" check "$src/inputs/heat1d.yaml" --backend cuda -q > /dev/null 2>&1; then
  echo "SKIPPED: no CUDA device"
  exit 0
fi

# The last output of two HDF5 files: same step, same time, same fields bit for bit.
same_end() {  # a.h5 b.h5
  "$py" - "$1" "$2" <<'PY'
import sys, h5py, numpy as np
a, b = (h5py.File(p, "r") for p in sys.argv[1:3])
ka = sorted(k for k in a if k.startswith("step_")); kb = sorted(k for k in b if k.startswith("step_"))
assert ka[-1] == kb[-1], f"last outputs {ka[-1]} and {kb[-1]}"
assert a[ka[-1]].attrs["time"] == b[kb[-1]].attrs["time"], "times differ"
for f in a[ka[-1]]:
    x, y = a[ka[-1]][f][()], b[kb[-1]][f][()]
    assert np.array_equal(x, y), f"{f} differs: max |diff| {np.max(np.abs(x - y))}"
PY
}

# 1. Output times: exactly the times asked for, as given (t0 + k interval, not sums of steps).
D=$src/inputs/heat2d.yaml
H="--set grid.n=[33,33] --set output.formats=[hdf5] --set output.every=1000"
run "$D" -o times $H --set 'output.times=[0.1, 0.25, 0.3333333333333333]' || fail "output.times run failed"
run "$D" -o interval $H --set output.interval=0.3 || fail "output.interval run failed"
"$py" - <<'PY' || fail "output times not as asked"
import h5py
t = list(h5py.File("times/heat2d.h5")["times"][()])
assert t == [0.0, 0.1, 0.25, 0.3333333333333333, 1.0], t
t = list(h5py.File("interval/heat2d.h5")["times"][()])
assert t == [0.0, 0.3, 2 * 0.3, 3 * 0.3, 1.0], t
PY

# 2. Restart: bitwise equal to the uninterrupted run (and another output folder works).
restart_case() {  # label, deck, checkpoint step, overrides...
  local label=$1 deck=$2 at=$3
  shift 3
  run "$deck" -o "$label-full" "$@" --set output.formats=[hdf5] || { fail "$label: full run failed"; return; }
  run "$deck" -o "$label-a" "$@" --set output.formats=[hdf5] --set output.checkpoint.every="$at" ||
    { fail "$label: checkpointing run failed"; return; }
  local ck
  ck=$(ls "$label"-a/*_checkpoint_*.h5 2> /dev/null | head -n 1)
  [ -n "$ck" ] || { fail "$label: no checkpoint written"; return; }
  run "$deck" -o "$label-b" "$@" --set output.formats=[hdf5,csv] --restart "$ck" || { fail "$label: restart failed"; return; }
  same_end "$label-full"/*.h5 "$label-b"/*.h5 || fail "$label: restarted run differs from the uninterrupted one"
}
restart_case heat1d "$src/inputs/heat1d.yaml" 96
restart_case heat2d "$D" 40 --set grid.n=[65,65]
restart_case heat3d "$src/inputs/heat3d.yaml" 16 --set grid.n=[17,19,21]
restart_case heat3d-neumann "$src/inputs/heat3d.yaml" 16 --set grid.n=[17,19,21] --set heat.boundary.all.type=neumann \
  --set 'heat.boundary.all.value=x*cos(t)' --set 'heat.diffusivity=1 + 0.5*x'
restart_case glioma2d "$src/inputs/glioma2d.yaml" 100 --set grid.n=[51,51] --set time.end=100

# 3. Signals: the step in progress ends, outputs so far are kept, a checkpoint continues the run.
# A run must last a few seconds to be stopped midway, whatever this build's speed (a sanitized
# build steps many times slower): 200 steps are timed, and the run gets about 4 s of steps (400 to 5000).
S="--set grid.n=[129,129] --set time.dt=2e-4 --set output.formats=[hdf5,csv] --set output.every=500"
t0=$(date +%s%N)
run "$D" -o sig-probe $S --set time.end=0.04 || fail "signal probe run failed"
ms=$((($(date +%s%N) - t0) / 1000000))
steps=$((4000 * 200 / (ms > 0 ? ms : 1)))
steps=$((steps < 400 ? 400 : steps > 5000 ? 5000 : steps))
S="$S --set time.end=$(awk -v k=$steps 'BEGIN { printf "%.4f", k * 2e-4 }')"
run "$D" -o sig-full $S || fail "signal reference run failed"
code=128
for sig in INT TERM HUP; do
  "$tridsim" run "$D" -o "sig-$sig" $S --backend "$backend" --no-progress > "sig-$sig.log" 2>&1 &
  pid=$!
  for _ in $(seq 100); do [ -e "sig-$sig" ] && break; sleep 0.05; done
  sleep 0.3
  if [ $sig = INT ]; then  # meanwhile, a second run into the same directory is refused at once
    "$tridsim" run "$D" -o "sig-$sig" $S -q > second.log 2>&1
    rc=$?
    [ $rc -eq 1 ] && grep -q "is in use by another tridsim run (process $pid)" second.log ||
      { fail "a second run into a busy directory: exit $rc"; cat second.log; }
  fi
  kill -s "$sig" $pid
  wait $pid
  rc=$?
  case $sig in INT) want=130 ;; TERM) want=143 ;; HUP) want=129 ;; esac
  if [ $rc -eq 0 ]; then echo "note: the run ended before SIG$sig"; continue; fi
  [ $rc -eq $want ] || { fail "SIG$sig: exit code $rc, expected $want"; cat "sig-$sig.log"; continue; }
  grep -q "continue with: tridsim run --restart sig-$sig/heat2d_checkpoint_" "sig-$sig.log" ||
    fail "SIG$sig: no restart hint"
  for f in heat2d.h5 heat2d.xmf heat2d_diagnostics.csv summary.json; do [ -s "sig-$sig/$f" ] || fail "SIG$sig: no $f kept"; done
  grep -q '"stopped_by"' "sig-$sig/summary.json" || fail "SIG$sig: summary.json does not say the run was stopped"
  ck=$(ls sig-$sig/*_checkpoint_*.h5 | tail -n 1)
  run "$D" -o "sig-$sig-rest" $S --restart "$ck" || { fail "SIG$sig: restart failed"; continue; }
  same_end sig-full/heat2d.h5 "sig-$sig-rest/heat2d.h5" || fail "SIG$sig: continued run differs"
  # The printed command alone continues the run (the checkpoint holds the deck after the run's
  # --set, and lies in its output directory) and ends where the uninterrupted run does.
  hint=$(sed -n 's/^continue with: tridsim //p' "sig-$sig.log")
  eval "\"\$tridsim\" $hint -q --no-progress" > "sig-$sig-hint.log" 2>&1 ||
    { fail "SIG$sig: the printed command 'tridsim $hint' failed"; cat "sig-$sig-hint.log"; continue; }
  same_end sig-full/heat2d.h5 "sig-$sig/heat2d.h5" || fail "SIG$sig: the printed command did not continue the run"
  grep -q '"status": "complete"' "sig-$sig/summary.json" || fail "SIG$sig: the continued run is not complete"
done

# 4. Bad use: one clear error, exit 1.
expect_fail() {  # label, message part, arguments...
  local label=$1 pattern=$2
  shift 2
  "$tridsim" run "$@" > "$label.log" 2>&1
  local rc=$?
  [ $rc -eq 1 ] || fail "$label: exit code $rc, expected 1"
  grep -q -- "$pattern" "$label.log" || { fail "$label: message lacks '$pattern'"; cat "$label.log"; }
}
ck=$(ls heat2d-a/*_checkpoint_*.h5 | head -n 1)
expect_fail othergrid "a restart needs the same grid" "$D" -o x --set grid.n=[33,33] --restart "$ck"
expect_fail othermodule "written by module heat; this deck runs glioma" "$src/inputs/glioma2d.yaml" -o x --restart "$ck"
expect_fail otherprecision "written in double; this run is in float" "$D" -o x --set grid.n=[65,65] --precision float --restart "$ck"
expect_fail notcheckpoint "not a tridsim checkpoint" "$D" -o x --restart heat2d-full/heat2d.h5
expect_fail nofile "no such file" "$D" -o x --restart nothing.h5
"$py" -c "import h5py, shutil, sys; shutil.copy(sys.argv[1], 'old.h5'); del h5py.File('old.h5', 'r+')['name']" "$ck" ||
  fail "could not make a checkpoint without its run's name"
expect_fail oldcheckpoint "written by an older tridsim and does not name its run; give the deck" --restart old.h5
expect_fail steady "module poisson cannot be checkpointed" "$src/inputs/poisson2d.yaml" -o x \
  --set output.checkpoint.every=1
expect_fail outsidetimes "output.times: 2 is outside the run" "$D" -o x --set 'output.times=[0.5, 2]'
expect_fail badinterval "output.interval: must be a positive simulation time" "$D" -o x --set output.interval=0

# 5. A killed run's temporary files are removed by the next run into its directory.
mkdir -p leftovers && head -c 100000 /dev/zero > leftovers/.heat2d.h5.part && touch leftovers/.old_000001.vti.part
run "$D" -o leftovers $H || fail "run into a directory with leftovers failed"
[ -z "$(ls -A leftovers | grep '\.part$')" ] || fail "leftover .part files were not removed: $(ls -A leftovers)"

# 6. A restart into the run's own directory continues its result: the outputs and diagnostics
# before the checkpoint stay, and the series is the uninterrupted run's.
C="$H --set output.every=16 --set output.formats=[hdf5,csv]"
run "$D" -o cont-full $C || fail "continue: reference run failed"
run "$D" -o cont $C --set output.checkpoint.every=40 --set output.checkpoint.keep=3 || fail "continue: first run failed"
run "$D" -o cont $C --restart cont/heat2d_checkpoint_000040.h5 || fail "continue: restart into the same directory failed"
"$py" - <<'PY' || fail "a restart into the same directory does not continue the series"
import h5py, numpy as np
a, b = h5py.File("cont-full/heat2d.h5"), h5py.File("cont/heat2d.h5")
assert list(a["steps"][()]) == list(b["steps"][()]), (list(a["steps"][()]), list(b["steps"][()]))
for g in (k for k in a if k.startswith("step_")):
    assert np.array_equal(a[g]["u"][()], b[g]["u"][()]), g
rows = lambda p: [l.split(",")[:2] for l in open(p).read().split("\n")[1:] if l]
assert rows("cont-full/heat2d_diagnostics.csv") == rows("cont/heat2d_diagnostics.csv"), "CSV series differ"
PY
[ -e cont/heat2d_checkpoint_000040.h5 ] || fail "continue: the checkpoint restarted from was not kept"
grep -q "heat2d_checkpoint_000040.h5" cont/heat2d.xmf && fail "continue: .xmf names a checkpoint"

# 7. A run replaces its directory's previous result as a whole, keeps files it did not write,
# and refuses a directory that is not a run's own.
run "$D" -o own $H --set output.formats=[hdf5,csv] || fail "own: first run failed"
echo "my notes" > own/notes.txt
run "$D" -o own $H --set output.formats=[hdf5] || fail "own: second run failed"
[ "$(cat own/notes.txt 2> /dev/null)" = "my notes" ] || fail "own: a file tridsim did not write was lost"
[ -e own/heat2d_diagnostics.csv ] && fail "own: the previous run's CSV is mixed into the new result"
mkdir -p own/pictures
expect_fail foreigndir "holds a directory ('pictures') that tridsim did not write" "$D" -o own $H
(cd own && expect_fail cwd "is the current directory or one above it" "$D" -o . $H)

[ $failures -eq 0 ] && echo "all lifecycle checks passed"
exit $((failures > 0))
