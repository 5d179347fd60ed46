#pragma once
// Limits and row sources of the line solvers that split one line over many threads (namespace
// tridsim::tridiag::detail) (kernels in thomas_pcr.cuh and line_solve.cuh; thomas_shuffle.cu):
//  - Thomas–PCR hybrid (Laszlo, Giles & Appleyard 2014, section 4): one warp per line, the line
//    cut into 32 segments held in registers; each lane reduces its segment by a modified Thomas
//    sweep to two rows coupling the segment's first and last unknowns, the 64-row reduced system
//    is solved by parallel cyclic reduction with register shuffles, and each lane substitutes
//    back. The dependent chain is n/32 + 6 steps long instead of n. Lines of 3 to kThomasPcrMax
//    points (shorter lines are solved directly). With a uniform matrix the same structure runs
//    on its LU factors: per-lane segments plus two warp scans, no divisions (thomas_pcr.cuh).
//  - PCR: one thread per row, the whole line in shared memory, ceil(log2 n) reduction steps
//    (n log n work; the reference point for the hybrid). Lines up to kPcrMax points.
// Both read and write each element of a line once through a coalesced staging copy in shared
// memory (x lines); for y/z lines those copies are strided, so they are not the choice there.
// Internal to the CUDA solvers.
#include <cuda_runtime_api.h>

#include "core/types.hpp"
#include "solvers/tridiagonal/line_set.hpp"
#include "solvers/tridiagonal/line_solvers.hpp"  // kThomasPcrMax, kPcrMax, kShuffleMax

namespace tridsim::tridiag::detail {

// Row coefficients: a uniform matrix (a, b, c: one row per line position, shared by all lines,
// a[0] and c[n-1] zero, and the table of its factorization for the scan form of thomas_pcr.cuh)
// when uniform, else arrays a, b, c in the layout of d.
template <class T>
struct RowSource {
  bool uniform = false;
  const T* a = nullptr;
  const T* b = nullptr;
  const T* c = nullptr;
  const T* scan = nullptr;
};

// Thomas with local transposition by register shuffles (thomas_shuffle.cu): x lines of at most
// kShuffleMax points; M, CP: the uniform matrix's inverse pivots and modified upper diagonal.
template <class T>
void launch_thomas_shuffle(const LineSet& L, const RowSource<T>& rows, const T* M, const T* CP, T* d,
                           cudaStream_t stream);

}  // namespace tridsim::tridiag::detail
