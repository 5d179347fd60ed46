#pragma once
// The largest real part of the eigenvalues of a small real matrix (namespace tridsim::rd): the
// rate at which the reactions' Jacobian lets a perturbation grow, and, of -D, whether a diffusion
// matrix runs some mode backwards in time.
#include <algorithm>
#include <array>
#include <cmath>
#include <complex>

namespace tridsim::rd {

namespace detail {

using Complex = std::complex<double>;
constexpr int kMaxOrder = 8;
using Square = std::array<std::array<Complex, kMaxOrder>, kMaxOrder>;

// The unitary G = [[conj(c), conj(s)], [-s, c]] with G (a, b)^T = (r, 0)^T.
struct Givens {
  Complex c = 1, s = 0;
  Givens() = default;
  Givens(Complex a, Complex b) {
    const double r = std::hypot(std::abs(a), std::abs(b));
    if (r > 0) c = a / r, s = b / r;
  }
  // Rows p, p + 1 of H times G, over columns [from, to).
  void left(Square& H, int p, int from, int to) const {
    for (int k = from; k < to; ++k) {
      const Complex x = H[p][k], y = H[p + 1][k];
      H[p][k] = std::conj(c) * x + std::conj(s) * y;
      H[p + 1][k] = -s * x + c * y;
    }
  }
  // Columns p, p + 1 of H times G^H, over rows [from, to).
  void right(Square& H, int p, int from, int to) const {
    for (int k = from; k < to; ++k) {
      const Complex x = H[k][p], y = H[k][p + 1];
      H[k][p] = x * c + y * s;
      H[k][p + 1] = -x * std::conj(s) + y * std::conj(c);
    }
  }
};

// The eigenvalue of [[a, b], [c, d]] nearer to d (Wilkinson's shift).
inline Complex nearer_eigenvalue(Complex a, Complex b, Complex c, Complex d) {
  const Complex mean = 0.5 * (a + d), root = std::sqrt(0.25 * (a - d) * (a - d) + b * c);
  const Complex e1 = mean + root, e2 = mean - root;
  return std::abs(e1 - d) <= std::abs(e2 - d) ? e1 : e2;
}

}  // namespace detail

// max Re(lambda) over the eigenvalues of the m x m matrix A (row-major, 1 <= m <= 8): 1 x 1 and
// 2 x 2 in closed form; else Hessenberg form by Givens rotations, then shifted QR in complex
// arithmetic, deflating one eigenvalue at a time from the bottom.
inline double spectral_abscissa(const double* A, int m) {
  using namespace detail;
  if (m == 1) return A[0];
  if (m == 2) {
    const double mean = 0.5 * (A[0] + A[3]), half = 0.5 * (A[0] - A[3]);
    const double disc = half * half + A[1] * A[2];
    return mean + (disc > 0 ? std::sqrt(disc) : 0.0);
  }
  Square H{};
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < m; ++j) H[i][j] = A[i * m + j];
  for (int k = 0; k + 2 < m; ++k)  // zero column k below its subdiagonal
    for (int i = m - 1; i > k + 1; --i) {
      const Givens g(H[i - 1][k], H[i][k]);
      g.left(H, i - 1, 0, m);
      g.right(H, i - 1, 0, m);
    }
  double best = -INFINITY;
  int n = m;  // the active block is H[0..n)[0..n)
  for (int iterations = 0; n > 1; ++iterations) {
    const double scale = std::abs(H[n - 1][n - 1]) + std::abs(H[n - 2][n - 2]);
    if (std::abs(H[n - 1][n - 2]) <= 1e-15 * scale || iterations > 200) {
      best = std::max(best, H[n - 1][n - 1].real());
      --n;
      iterations = 0;
      continue;
    }
    Complex mu = nearer_eigenvalue(H[n - 2][n - 2], H[n - 2][n - 1], H[n - 1][n - 2], H[n - 1][n - 1]);
    if (iterations % 20 == 19) mu += std::abs(H[n - 1][n - 2]);  // an exceptional shift breaks a cycle
    for (int i = 0; i < n; ++i) H[i][i] -= mu;
    std::array<Givens, kMaxOrder> g{};
    for (int k = 0; k + 1 < n; ++k) {  // H - mu I = Q R
      g[k] = Givens(H[k][k], H[k + 1][k]);
      g[k].left(H, k, k, n);
    }
    for (int k = 0; k + 1 < n; ++k) g[k].right(H, k, 0, std::min(k + 2, n - 1) + 1);  // R Q
    for (int i = 0; i < n; ++i) H[i][i] += mu;
  }
  return std::max(best, H[0][0].real());
}

}  // namespace tridsim::rd
