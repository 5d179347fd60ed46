#pragma once
// The deck's reaction terms R(u, x, y, z, t) of the reaction-diffusion module (namespace
// tridsim::rd): M expressions of the species names, x, y, z, t and the deck's constants, optionally
// their Jacobian (else forward differences, reaction_step.hpp) and the exact flow of du/dt = R over
// a time tau (expressions of the species, x, y, z, t and tau). The CPU's time steps run the
// integrators compiled at run time from muparser's bytecode (native_source()), else evaluate the
// expressions with that bytecode over blocks of nodes (NodeBlock); the GPU runs the same
// integrators as device code that NVRTC compiles from the translated expressions (device_source()).
#include <optional>
#include <string>
#include <vector>

#include "core/deck.hpp"
#include "core/expression.hpp"
#include "core/types.hpp"
#include "physics/reaction_diffusion/reaction_step.hpp"

namespace tridsim::rd {

// Nodes evaluated together (Expression::eval_block): a value at each node of a block is a Lanes.
constexpr int kBlock = Expression::kBlock;
struct Lanes {
  double at[kBlock];
};
// Up to kBlock nodes: their coordinates (where uses_space()) and the species' values, v[k].at[p]
// for species k at node p. Nodes from n on are padding (any finite values), computed but not used.
struct NodeBlock {
  int n = 0;
  Lanes x, y, z;
  Lanes v[kMaxSpecies];
};

class Reactions {
 public:
  // Reads `reactions`, `jacobian` (optional) and `exact_flow` (optional) of the module's section.
  // With `device`, the expressions are also translated for NVRTC (errors at their deck lines).
  void read(const DeckNode& section, const std::vector<std::string>& species, const Constants& constants, bool device);

  int species() const { return int(rate_.size()); }
  bool has_jacobian() const { return !jacobian_.empty(); }
  bool has_exact_flow() const { return !flow_.empty(); }
  // Every reaction is the constant 0 (pure diffusion).
  bool zero() const { return zero_; }
  // Some reaction, Jacobian entry or exact flow depends on t; some expression depends on x, y or z.
  bool uses_time() const;
  bool uses_space() const;

  // A term of R, of the deck's Jacobian or (tau > 0) of its exact flow over tau, that is not finite
  // at v, (x, y, z, t): the key that holds it ("reactions", "jacobian" or "exact_flow"), its species
  // (the row), the Jacobian's column and the value.
  struct Term {
    const char* key;
    int species, column;
    double value;
  };
  std::optional<Term> first_non_finite(const double* v, double x, double y, double z, double t, double tau = 0) const;

  // R(v) at (x, y, z, t) into out[0..M-1] (v: the species' values).
  void rates(const double* v, double x, double y, double z, double t, double* out) const;
  // dR_i/du_j at v into J[i*M + j]: the deck's expressions, or forward differences given r0 = R(v).
  void jacobian(const double* v, double x, double y, double z, double t, const double* r0, double* J) const;
  // The block's values advanced over tau from t: the deck's exact flow, or `substeps` RK4 steps.
  void advance(NodeBlock& b, double t, double tau, int substeps) const;
  // R at the block's values into r[0..M-1] and dR_i/du_j into J[i*M + j], as rates() and jacobian().
  void linearize(const NodeBlock& b, double t, Lanes* r, Lanes* J) const;

  // CUDA C++ source (for NVRTC) of the kernels rd_react and rd_linearize for precision T
  // ("float" or "double"); see reaction_diffusion_gpu.cu for their arguments.
  std::string device_source(const std::string& T) const;
  // C++ source (for NativeBatch::add_code, core/native_code.hpp) of the CPU kernels below for
  // precision T, computing what advance() and linearize() compute, bit for bit; empty when an
  // expression has no compiled form (muparser then evaluates them).
  std::string native_source(const std::string& T) const;
  // The kernels: n consecutive nodes along x (u, R, J at the first, interleaved species; cx their
  // x coordinates; y, z theirs), skipping those with fixed[i] != 0 (fixed may be null).
  using NativeReact = void (*)(void* u, const unsigned char* fixed, long long n, const double* cx, double y, double z,
                               double t, double tau, int substeps);
  using NativeLinearize = void (*)(const void* u, void* R, void* J, const unsigned char* fixed, long long n,
                                   const double* cx, double y, double z, double t);
  static constexpr const char* kNativeReact = "tridsim_rd_react";
  static constexpr const char* kNativeLinearize = "tridsim_rd_linearize";

 private:
  void rates(const NodeBlock& b, const Lanes* v, double t, Lanes* out) const;
  static void eval(const Expression& e, const NodeBlock& b, const Lanes* v, int count, double t, Lanes& out);

  std::vector<std::string> names_;
  std::vector<Expression> rate_, jacobian_, flow_;
  std::vector<std::string> rate_code_, jacobian_code_, flow_code_;  // translated for the device
  bool zero_ = true;
};

}  // namespace tridsim::rd
