// Prints the paper's Tables I and II (relative errors (14) of every algorithm and precision for
// P1 and P2) computed on this machine's CPU, as Markdown rows for docs/performance.md:
//   bvp_paper_tables [max_log2_n = 28] [column_length s = 512] [gpu]
// With "gpu" (CUDA builds, a device present) the A2 columns are computed on the GPU (device
// scans for the carries; its column length is fixed: 17 doubles / 33 floats per thread).
// A1S/A1D: sequential (7)-(8) in float/double; A2S/A2D: divide and conquer in float/double;
// A2SD: mixed (float columns, double carries); A2SC: compensated float columns, double carries.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "physics/bvp/paper_problems.hpp"
#include "solvers/recurrence/divide_conquer.hpp"
#include "solvers/recurrence/sequential.hpp"
#include "tridsim_build_info.hpp"
#if TRIDSIM_HAVE_CUDA
#include "solvers/recurrence/cuda/recurrence_cuda.hpp"
#endif
#include <string>

using namespace tridsim;

int main(int argc, char** argv) {
  const int max_log2 = argc > 1 ? std::atoi(argv[1]) : 28;
  const index_t s = argc > 2 ? std::atol(argv[2]) : rec::default_column_length;
  const bool gpu = argc > 3 && std::string(argv[3]) == "gpu";
#if TRIDSIM_HAVE_CUDA
  if (gpu && rec::cuda::device_count() == 0) {
    std::fprintf(stderr, "bvp_paper_tables: no CUDA device\n");
    return 1;
  }
#else
  if (gpu) {
    std::fprintf(stderr, "bvp_paper_tables: this build has no CUDA support\n");
    return 1;
  }
#endif
  // The A2 solves: on the CPU, or on the GPU with the same arithmetic.
  auto a2 = [&](auto* u, const bvp::System& sys, rec::Arithmetic a) {
#if TRIDSIM_HAVE_CUDA
    using T = std::remove_pointer_t<decltype(u)>;
    if (gpu) {
      rec::cuda::GpuSolver<T>(a, rec::cuda::Carries::device).solve_host(u, sys.m, sys.ends);
      return;
    }
#endif
    rec::solve_divide_conquer(u, sys.m, sys.ends, a, s);
  };
  for (const int p : {1, 2}) {
    const auto prob = bvp::paper_problem(p);
    std::printf("\nTable %s: relative error (14), problem P%d, A2 on the %s, column length s = %ld\n\n",
                p == 1 ? "I" : "II", p, gpu ? "GPU" : "CPU", gpu ? 0L : long(s));
    std::printf("| n | A1S | A1D | A2S | A2D | A2SD (mixed) | A2SC (compensated) |\n|---|---|---|---|---|---|---|\n");
    for (int k = 20; k <= max_log2; k += 2) {
      const index_t n = index_t(1) << k;
      std::vector<double> d(n + 1), ud;
      std::vector<float> f(n + 1), uf;
      const auto sys = bvp::assemble_paper(prob, n, d.data());
      bvp::assemble_paper(prob, n, f.data());
      auto err_d = [&](auto solve) {
        ud = d;
        solve(ud.data() + sys.first);
        return bvp::relative_error(prob, n, ud.data());
      };
      auto err_f = [&](auto solve) {
        uf = f;
        solve(uf.data() + sys.first);
        return bvp::relative_error(prob, n, uf.data());
      };
      const double a1s = err_f([&](float* u) { rec::solve_sequential(u, sys.m, sys.ends); });
      const double a1d = err_d([&](double* u) { rec::solve_sequential(u, sys.m, sys.ends); });
      const double a2s = err_f([&](float* u) { a2(u, sys, rec::Arithmetic::float32); });
      const double a2d = err_d([&](double* u) { a2(u, sys, rec::Arithmetic::float64); });
      const double a2sd = err_f([&](float* u) { a2(u, sys, rec::Arithmetic::mixed); });
      const double a2sc = err_f([&](float* u) { a2(u, sys, rec::Arithmetic::compensated); });
      std::printf("| %ld | %.6e | %.6e | %.6e | %.6e | %.6e | %.6e |\n", long(n), a1s, a1d, a2s, a2d, a2sd, a2sc);
      std::fflush(stdout);
    }
  }
}
