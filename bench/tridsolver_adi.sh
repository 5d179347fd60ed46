#!/usr/bin/env bash
# Build and time OP-DSL tridsolver's single-node CUDA ADI app (apps/adi -> adi_cuda)
# for sm_90, double and float: the peer our Douglas step is measured beside (docs/PERFORMANCE.md).
# Put a tridsolver checkout (github.com/OP-DSL/tridsolver) at .deps/tridsolver (or name it in
# TRIDSOLVER_SRC) and run from the repository root:
#     bash bench/tridsolver_adi.sh
# Env knobs (all optional):
#   TRID_BUILD_DIR  build folder (default: <repo>/build-tridsolver)
#   TRID_ARCH       CUDA arch list (default: 90)
#   TRID_N          grid edge, nx=ny=nz (default: 256)
#   TRID_ITER_LO/HI two iteration counts; time/step = (T(HI)-T(LO))/(HI-LO) removes the
#                   one-off first-iteration cost (cuBLAS handle, buffer mallocs)  (default 10/50)
#   TRID_CONFIGS    space-separated "optx,opty,optz" list to time (default below; first one
#                   is the library default and is the reference for the result check; y option 3
#                   is left out: it stops with an illegal memory access at 256^3)
#   TRID_BUILD_ONLY=1  only build (no GPU needed)
#   TRID_JOBS       make -j (default: nproc)
#   TRID_OUT_LOGS=1  also pack all build/run logs into $OUT/tridsolver_adi_logs.tgz
# Logs go to $TRID_BUILD_DIR/logs; the summary (and failure tails) also go to ONE file,
# $OUT/tridsolver_adi.txt, if $OUT is set (the device tool returns at most 8 files).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SRC=${TRIDSOLVER_SRC:-$ROOT/.deps/tridsolver}
BUILD=${TRID_BUILD_DIR:-$ROOT/build-tridsolver}
ARCH=${TRID_ARCH:-90}
N=${TRID_N:-256}
ITLO=${TRID_ITER_LO:-10}
ITHI=${TRID_ITER_HI:-50}
JOBS=${TRID_JOBS:-$(nproc)}
CONFIGS=${TRID_CONFIGS:-"0,0,0 1,0,0 2,0,0 3,0,0 4,0,0"}
LOG=$BUILD/logs
SUMMARY=${OUT:+$OUT/tridsolver_adi.txt}
SUMMARY=${SUMMARY:-$BUILD/logs/summary.txt}

say() { echo "$*" | tee -a "$SUMMARY"; }
die() {
  echo "TRIDSOLVER_ADI ERROR: $*" | tee -a "$SUMMARY" >&2
  [ "${TRID_OUT_LOGS:-0}" = 1 ] && [ -n "${OUT:-}" ] && tar -czf "$OUT/tridsolver_adi_logs.tgz" -C "$BUILD" logs 2>/dev/null
  exit 1
}
[ -d "$SRC/scalar" ] && [ -d "$SRC/apps/adi" ] || die "tridsolver sources not found at $SRC"
export PATH=/usr/local/cuda/bin:$PATH
command -v nvcc >/dev/null || die "nvcc not found"
NVCC=$(command -v nvcc)
mkdir -p "$BUILD" "$LOG" "$(dirname "$SUMMARY")"
: >"$SUMMARY"

# run a build step with a time limit; on failure print the log tail and abort
step() {  # step <name> <timeout_s> cmd...
  local name=$1 t=$2; shift 2
  local t0=$SECONDS
  if ! timeout "$t" "$@" >"$LOG/$name.log" 2>&1; then
    { echo "---- tail of $LOG/$name.log ----"; tail -40 "$LOG/$name.log"; } | tee -a "$SUMMARY" >&2
    die "step '$name' failed or timed out (${t}s)"
  fi
  say "[tridsolver_adi] $name ok ($((SECONDS - t0)) s)"
}

# ---- 1. library: libtridcuda.so (scalar/, GPU, single node, no MPI/NCCL) ----
step lib_configure 300 cmake -S "$SRC/scalar" -B "$BUILD/lib" \
  -DCMAKE_BUILD_TYPE=Release -DBUILD_FOR_GPU=ON -DBUILD_FOR_SN=ON \
  -DBUILD_FOR_CPU=OFF -DBUILD_FOR_MPI=OFF -DBUILD_TESTING=OFF -DUSE_PROFILING=OFF \
  -DARCHITECTURE="$ARCH" -DCMAKE_CUDA_COMPILER="$NVCC" \
  -DCMAKE_INSTALL_PREFIX="$BUILD/install"
step lib_build 900 cmake --build "$BUILD/lib" -j "$JOBS"
step lib_install 120 cmake --install "$BUILD/lib"
CFG_DIR=$BUILD/install/libtrid/lib/cmake
[ -f "$CFG_DIR/libtridConfig.cmake" ] || die "libtridConfig.cmake not installed in $CFG_DIR"

# ---- 2. app: adi_cuda, double (FPPREC=1) and float (FPPREC=0) ----
declare -A BIN REF
for p in dp sp; do
  fp=1; [ $p = sp ] && fp=0
  b=$BUILD/adi_$p
  step adi_${p}_configure 300 cmake -S "$SRC/apps/adi" -B "$b" \
    -DCMAKE_BUILD_TYPE=Release -DBUILD_FOR_GPU=ON -DBUILD_FOR_SN=ON -DFPPREC=$fp \
    -DCMAKE_CUDA_ARCHITECTURES="$ARCH" -DCMAKE_CUDA_COMPILER="$NVCC" \
    -DCMAKE_CUDA_RUNTIME_LIBRARY=Shared -Dlibtrid_DIR="$CFG_DIR"
  step adi_${p}_build 600 cmake --build "$b" -j "$JOBS" --target adi_cuda
  [ -x "$b/adi_cuda" ] || die "$b/adi_cuda not built"
  BIN[$p]=$b/adi_cuda
done
export LD_LIBRARY_PATH=$BUILD/install/libtrid/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

if [ "${TRID_BUILD_ONLY:-0}" = 1 ]; then say "[tridsolver_adi] build only: done"; exit 0; fi
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | tee -a "$SUMMARY" || true

# ---- 3. runs ----
# adi_cuda (prof=1) prints "Computing ADI on GPU: T (s)" for all iterations and a line of
# per-element times (s) averaged over iterations: total prepro trid_x trid_y trid_z,
# plus "end h_u sum = S" (result check).
run_one() {  # run_one <bin> <iter> <optx> <opty> <optz> <logfile>
  local f=$6
  if ! timeout 120 "$1" -devid 0 -nx "$N" -ny "$N" -nz "$N" -iter "$2" \
        -optx "$3" -opty "$4" -optz "$5" -prof 1 >"$f" 2>&1; then
    { echo "---- $f ----"; tail -20 "$f"; } | tee -a "$SUMMARY" >&2; return 1
  fi
  grep -q '^Done\.' "$f" || { { echo "---- $f (no 'Done.') ----"; tail -20 "$f"; } | tee -a "$SUMMARY" >&2; return 1; }
}
# print: ms/step(total from wall timer)  preproc x y z (ms/step)  sum
parse() {  # parse <log> <iter>
  awk -v it="$2" -v n3="$((N * N * N))" '
    /Computing ADI on GPU:/ { tot = $5 }
    /end h_u sum =/         { sum = $NF }
    hdr == 1 { pp = $2 * n3 * it; x = $3 * n3 * it; y = $4 * n3 * it; z = $5 * n3 * it; hdr = 2 }
    /^\[total\]/            { hdr = 1 }
    END { printf "%.9f %.9f %.9f %.9f %.9f %s\n", tot, pp, x, y, z, sum }' "$1"
}

{
  echo "# tridsolver adi_cuda, ${N}^3, arch sm_$ARCH; time/step = (T(iter=$ITHI)-T(iter=$ITLO))/$((ITHI - ITLO)) in ms"
  printf "%-5s %-7s %9s %9s %9s %9s %9s  %-14s %s\n" prec "opt:x,y,z" total_ms preproc x_solve y_solve z_solve sum rel_diff_vs_first
} | tee -a "$SUMMARY"
fail=0
for p in dp sp; do
  ref=""; best=""; bestt=""; deft=""
  for c in $CONFIGS; do
    IFS=, read -r ox oy oz <<<"$c"
    flo=$LOG/run_${p}_${ox}${oy}${oz}_it$ITLO.log; fhi=$LOG/run_${p}_${ox}${oy}${oz}_it$ITHI.log
    if ! run_one "${BIN[$p]}" "$ITLO" "$ox" "$oy" "$oz" "$flo" || \
       ! run_one "${BIN[$p]}" "$ITHI" "$ox" "$oy" "$oz" "$fhi"; then
      echo "$p $c RUN FAILED" | tee -a "$SUMMARY"; fail=1; continue
    fi
    read -r t1 p1 x1 y1 z1 s1 < <(parse "$flo" "$ITLO")
    read -r t2 p2 x2 y2 z2 s2 < <(parse "$fhi" "$ITHI")
    line=$(awk -v d=$((ITHI - ITLO)) -v t1="$t1" -v t2="$t2" -v p1="$p1" -v p2="$p2" \
      -v x1="$x1" -v x2="$x2" -v y1="$y1" -v y2="$y2" -v z1="$z1" -v z2="$z2" \
      -v s="$s2" -v ref="${ref:-$s2}" -v pr=$p -v c="$c" 'BEGIN {
        rd = (ref == 0) ? 0 : (s - ref) / ref; if (rd < 0) rd = -rd
        printf "%-5s %-7s %9.4f %9.4f %9.4f %9.4f %9.4f  %-14s %.2e%s\n", pr, c,
          1e3*(t2-t1)/d, 1e3*(p2-p1)/d, 1e3*(x2-x1)/d, 1e3*(y2-y1)/d, 1e3*(z2-z1)/d,
          s, rd, (rd > 1e-3 ? "  MISMATCH" : "") }')
    echo "$line" | tee -a "$SUMMARY"
    if [ -z "$ref" ]; then ref=$s2; deft=$(awk '{print $3}' <<<"$line"); REF[$p]=$s2; fi
    if ! grep -q MISMATCH <<<"$line"; then
      t=$(awk '{print $3}' <<<"$line")
      if [ -z "$bestt" ] || awk -v a="$t" -v b="$bestt" 'BEGIN{exit !(a<b)}'; then best=$c; bestt=$t; fi
    fi
  done
  echo "TRIDSOLVER_ADI $p ${N}^3: first config (${CONFIGS%% *}) ${deft:-n/a} ms/step; best opts(x,y,z)=${best:-n/a} ${bestt:-n/a} ms/step" | tee -a "$SUMMARY"
done
[ -n "${REF[dp]:-}" ] && [ -n "${REF[sp]:-}" ] && awk -v a="${REF[dp]}" -v b="${REF[sp]}" \
  'BEGIN { r = (a == 0) ? 0 : (b - a) / a; if (r < 0) r = -r; printf "result check: sum(u) dp=%s sp=%s rel.diff=%.2e%s\n", a, b, r, (r > 1e-3 ? "  MISMATCH" : "") }' | tee -a "$SUMMARY"
[ $fail = 0 ] || die "some runs failed (see $LOG)"
[ "${TRID_OUT_LOGS:-0}" = 1 ] && [ -n "${OUT:-}" ] && tar -czf "$OUT/tridsolver_adi_logs.tgz" -C "$BUILD" logs
say "[tridsolver_adi] done; logs in $LOG"
