#pragma once
// Test helper shared by the CPU and GPU line-solver tests: an N-d array layout (x-fastest,
// optionally padded) and the offsets of its lines, enumerated independently of the solvers.
#include <array>
#include <sstream>
#include <string>
#include <vector>

#include "solvers/tridiagonal/line_set.hpp"

namespace tridsim::testing {

struct Layout {
  std::array<index_t, 3> n, stride;
  // Padded x-fastest strides: 3 extra elements after each x-row, 5 after each xy-plane.
  static Layout padded(std::array<index_t, 3> n) {
    const index_t s1 = n[0] + 3, s2 = n[1] * s1 + 5;
    return Layout{n, {1, s1, s2}};
  }
  static Layout dense(std::array<index_t, 3> n) { return Layout{n, {1, n[0], n[0] * n[1]}}; }
  index_t size() const { return stride[2] * n[2]; }
  bool is_padding(index_t off) const {
    const index_t rem = off % stride[2];
    return rem >= n[1] * stride[1] || rem % stride[1] >= n[0];
  }
  tridiag::LineSet lines(int axis) const { return tridiag::LineSet{n, stride, axis}; }
  // Offset of row 0 of every line along `axis`.
  std::vector<index_t> line_bases(int axis) const {
    const int o1 = axis == 0 ? 1 : 0, o2 = axis == 2 ? 1 : 2;
    std::vector<index_t> bases;
    for (index_t q = 0; q < n[o2]; ++q)
      for (index_t p = 0; p < n[o1]; ++p) bases.push_back(p * stride[o1] + q * stride[o2]);
    return bases;
  }
  std::string describe(int axis) const {
    std::ostringstream os;
    os << "n = " << n[0] << " x " << n[1] << " x " << n[2] << ", strides 1, " << stride[1] << ", " << stride[2]
       << ", axis " << axis;
    return os.str();
  }
};

struct Shape {
  std::array<index_t, 3> n;
  int axis;
};

}  // namespace tridsim::testing
