#include "physics/reaction_diffusion/reactions.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>

#include "core/expression_translate.hpp"
#include "physics/reaction_diffusion/reaction_step.hpp"
#include "physics/reaction_diffusion/reaction_step_source.hpp"

namespace tridsim::rd {

namespace {

// One expression per species from a map {name: expr}; every species must be there.
void per_species(const DeckNode& map, const std::vector<std::string>& species) {
  for (const auto& key : map.keys()) {
    bool known = false;
    for (const auto& s : species) known = known || s == key;
    if (!known) map.fail(key, "is not a species (species: " + list_names(species) + ")");
  }
  for (const auto& s : species)
    if (!map.has(s)) map.fail_missing(s, "an expression for species '" + s + "'");
}

std::string join_code(const std::vector<std::string>& code, const char* target) {
  std::string s;
  for (std::size_t i = 0; i < code.size(); ++i)
    s += std::string("    ") + target + "[" + std::to_string(i) + "] = " + code[i] + ";\n";
  return s;
}

}  // namespace

void Reactions::read(const DeckNode& section, const std::vector<std::string>& species, const Constants& constants,
                     bool device) {
  names_ = species;
  const int m = int(species.size());
  TranslatedVariables vars, flow_vars;
  for (int k = 0; k < m; ++k) vars.emplace_back(species[std::size_t(k)], "v[" + std::to_string(k) + "]");
  flow_vars = vars;
  flow_vars.emplace_back("tau", "tau");
  std::vector<std::string> flow_names = species;
  flow_names.push_back("tau");

  const DeckNode r = section.child("reactions");
  per_species(r, species);
  for (const auto& s : species) {
    rate_.push_back(Expression::from_deck(r, s, constants, species));
    if (device) rate_code_.push_back(translate_expression_from_deck(r, s, constants, vars));
    zero_ = zero_ && rate_.back().is_constant() && rate_.back()(0, 0, 0, 0) == 0.0;
  }
  if (auto j = section.maybe_child("jacobian")) {
    per_species(*j, species);
    for (const auto& s : species) {
      const auto row = j->get<std::vector<std::string>>(s);
      if (int(row.size()) != m)
        j->fail(s, "expected " + std::to_string(m) + " expressions (d" + s + "' / d" + species[0] + ", ...), got " +
                       std::to_string(row.size()));
      for (int k = 0; k < m; ++k) {
        const std::string& text = row[std::size_t(k)];
        try {
          jacobian_.emplace_back(text, constants, species);
          if (device) jacobian_code_.push_back(translate_expression(text, constants, vars));
        } catch (const Error& e) {
          throw DeckError(j->where(s), j->key_path(s), e.what());
        }
      }
    }
  }
  if (auto f = section.maybe_child("exact_flow")) {
    per_species(*f, species);
    for (const auto& s : species) {
      flow_.push_back(Expression::from_deck(*f, s, constants, flow_names));
      if (device) flow_code_.push_back(translate_expression_from_deck(*f, s, constants, flow_vars));
    }
  }
}

void Reactions::rates(const double* v, double x, double y, double z, double t, double* out) const {
  for (std::size_t i = 0; i < rate_.size(); ++i) out[i] = rate_[i].eval(x, y, z, t, v);
}

void Reactions::jacobian(const double* v, double x, double y, double z, double t, const double* r0, double* J) const {
  if (has_jacobian()) {
    for (std::size_t i = 0; i < jacobian_.size(); ++i) J[i] = jacobian_[i].eval(x, y, z, t, v);
    return;
  }
  fd_jacobian(species(), v, t, r0, [&](const double* w, double tt, double* out) { rates(w, x, y, z, tt, out); }, J);
}

bool Reactions::uses_time() const {
  for (const auto* terms : {&rate_, &jacobian_, &flow_})
    for (const Expression& e : *terms)
      if (e.uses_time()) return true;
  return false;
}

bool Reactions::uses_space() const {
  for (const auto* terms : {&rate_, &jacobian_, &flow_})
    for (const Expression& e : *terms)
      if (e.uses_space()) return true;
  return false;
}

std::optional<Reactions::Term> Reactions::first_non_finite(const double* v, double x, double y, double z,
                                                           double t, double tau) const {
  const int m = species();
  for (int i = 0; i < m; ++i)
    if (const double r = rate_[std::size_t(i)].eval(x, y, z, t, v); !std::isfinite(r)) return Term{"reactions", i, 0, r};
  for (std::size_t k = 0; k < jacobian_.size(); ++k)  // row-major: entry (i, j) at i*M + j
    if (const double d = jacobian_[k].eval(x, y, z, t, v); !std::isfinite(d))
      return Term{"jacobian", int(k) / m, int(k) % m, d};
  if (tau > 0 && has_exact_flow()) {
    double w[kMaxSpecies + 1];  // the flow's variables: the species, then tau
    std::copy(v, v + m, w);
    w[m] = tau;
    for (int i = 0; i < m; ++i)
      if (const double f = flow_[std::size_t(i)].eval(x, y, z, t, w); !std::isfinite(f))
        return Term{"exact_flow", i, 0, f};
  }
  return std::nullopt;
}

// The one-node formulas of reaction_step.hpp at each node of a block, for rk4 and fd_jacobian over
// Lanes (found there by argument-dependent lookup).
namespace {
double lane(double d, int) { return d; }
double lane(const Lanes& l, int p) { return l.at[p]; }
template <class F, class... A>
Lanes each(F f, const A&... a) {
  Lanes out;
  for (int p = 0; p < kBlock; ++p) out.at[p] = f(lane(a, p)...);
  return out;
}
}  // namespace

Lanes rk4_stage(const Lanes& v, double a, const Lanes& k) {
  return each([](double vp, double ap, double kp) { return rk4_stage(vp, ap, kp); }, v, a, k);
}
Lanes rk4_update(const Lanes& v, double h, const Lanes& k1, const Lanes& k2, const Lanes& k3, const Lanes& k4) {
  return each([](double vp, double hp, double a, double b, double c, double d) { return rk4_update(vp, hp, a, b, c, d); },
              v, h, k1, k2, k3, k4);
}
Lanes fd_shifted(const Lanes& v) {
  return each([](double vp) { return fd_shifted(vp); }, v);
}
Lanes fd_slope(const Lanes& r, const Lanes& r0, const Lanes& w, const Lanes& v) {
  return each([](double a, double b, double c, double d) { return fd_slope(a, b, c, d); }, r, r0, w, v);
}

// e at the block's nodes: x, y, z, t, then the first `count` of v as its further variables.
void Reactions::eval(const Expression& e, const NodeBlock& b, const Lanes* v, int count, double t, Lanes& out) {
  Expression::Input in[4 + kMaxSpecies + 1] = {{b.x.at, false}, {b.y.at, false}, {b.z.at, false}, {&t, true}};
  for (int k = 0; k < count; ++k) in[4 + k] = {v[k].at, false};
  e.eval_block(kBlock, in, out.at);
}

void Reactions::rates(const NodeBlock& b, const Lanes* v, double t, Lanes* out) const {
  for (std::size_t i = 0; i < rate_.size(); ++i) eval(rate_[i], b, v, species(), t, out[i]);
}

void Reactions::advance(NodeBlock& b, double t, double tau, int substeps) const {
  const int m = species();
  if (has_exact_flow()) {
    Lanes in[kMaxSpecies + 1], out[kMaxSpecies];
    std::copy(b.v, b.v + m, in);
    std::fill(std::begin(in[m].at), std::end(in[m].at), tau);
    for (int i = 0; i < m; ++i) eval(flow_[std::size_t(i)], b, in, m + 1, t, out[i]);
    std::copy(out, out + m, b.v);
    return;
  }
  rk4(m, b.v, t, tau, substeps, [&](const Lanes* w, double tt, Lanes* out) { rates(b, w, tt, out); });
}

void Reactions::linearize(const NodeBlock& b, double t, Lanes* r, Lanes* J) const {
  rates(b, b.v, t, r);
  if (has_jacobian()) {
    for (std::size_t i = 0; i < jacobian_.size(); ++i) eval(jacobian_[i], b, b.v, species(), t, J[i]);
    return;
  }
  fd_jacobian(species(), b.v, t, r, [&](const Lanes* w, double tt, Lanes* out) { rates(b, w, tt, out); }, J);
}

std::string Reactions::native_source(const std::string& T) const {
  const int m = species();
  std::vector<std::string> in = {"x", "y", "z", "t"};
  for (int k = 0; k < m; ++k) in.push_back("v[" + std::to_string(k) + "]");
  std::vector<std::string> flow_in = in;
  flow_in.push_back("tau");
  auto statements = [&](const std::vector<Expression>& terms, const std::vector<std::string>& inputs,
                        std::string& out) {
    for (std::size_t i = 0; i < terms.size(); ++i) {
      const auto c = terms[i].native_code(inputs, "out[" + std::to_string(i) + "]");
      if (!c) return false;
      out += *c;
    }
    return true;
  };
  std::string rates, flow, jac;
  if (!statements(rate_, in, rates) || !statements(flow_, flow_in, flow) || !statements(jacobian_, in, jac)) return {};
  std::string s = "#define TRIDSIM_NATIVE_SOURCE\nstatic inline double fabs(double v) { return __builtin_fabs(v); }\n";
  s += "typedef " + T + " T;\n" + kReactionStepSource;
  s += "\nconstexpr int M = " + std::to_string(m) + ";\n";
  s += "struct Rates {\n  double x, y, z;\n  void operator()(const double* v, double t, double* out) const {\n" + rates +
       "  }\n};\n";
  s += "static inline void exact_flow(const double* v, double x, double y, double z, double t, double tau, double* out) {\n" +
       flow + "}\n";
  s += "static inline void given_jacobian(const double* v, double x, double y, double z, double t, double* out) {\n" +
       jac + "}\n";
  s += std::string("constexpr bool kExactFlow = ") + (has_exact_flow() ? "true" : "false") + ";\n";
  s += std::string("constexpr bool kGivenJacobian = ") + (has_jacobian() ? "true" : "false") + ";\n";
  // One node per iteration, the species interleaved; a loop the compiler vectorizes over nodes when
  // the substeps are one (S = 1) and there are no fixed nodes to skip (F) or they are blended.
  s += R"(
template <int S, bool F>
static inline void react_nodes(T* __restrict u, const unsigned char* __restrict fixed, long long n,
                               const double* __restrict cx, double y, double z, double t, double tau, int substeps) {
  for (long long i = 0; i < n; ++i) {
    double v0[M], v[M];
    for (int k = 0; k < M; ++k) v[k] = v0[k] = (double)u[i * M + k];
    if (kExactFlow) {
      double w[M];
      exact_flow(v0, cx[i], y, z, t, tau, w);
      for (int k = 0; k < M; ++k) v[k] = w[k];
    } else {
      tridsim::rd::rk4(M, v, t, tau, S ? S : substeps, Rates{cx[i], y, z});
    }
    const bool keep = F && fixed[i] != 0;
    for (int k = 0; k < M; ++k) u[i * M + k] = (T)(keep ? v0[k] : v[k]);
  }
}
extern "C" void tridsim_rd_react(void* u, const unsigned char* fixed, long long n, const double* cx, double y,
                                 double z, double t, double tau, int substeps) {
  T* w = (T*)u;
  if (substeps == 1) {
    if (fixed) react_nodes<1, true>(w, fixed, n, cx, y, z, t, tau, 1);
    else react_nodes<1, false>(w, fixed, n, cx, y, z, t, tau, 1);
  } else {
    if (fixed) react_nodes<0, true>(w, fixed, n, cx, y, z, t, tau, substeps);
    else react_nodes<0, false>(w, fixed, n, cx, y, z, t, tau, substeps);
  }
}
extern "C" void tridsim_rd_linearize(const void* u, void* R, void* J, const unsigned char* fixed, long long n,
                                     const double* cx, double y, double z, double t) {
  const T* uu = (const T*)u;
  T* RR = (T*)R;
  T* JJ = (T*)J;
  for (long long i = 0; i < n; ++i) {
    if (fixed && fixed[i]) continue;
    double v[M], r[M], jac[M * M];
    for (int k = 0; k < M; ++k) v[k] = (double)uu[i * M + k];
    const Rates rates{cx[i], y, z};
    rates(v, t, r);
    if (kGivenJacobian) given_jacobian(v, cx[i], y, z, t, jac);
    else tridsim::rd::fd_jacobian(M, v, t, r, rates, jac);
    for (int k = 0; k < M; ++k) RR[i * M + k] = (T)r[k];
    for (int k = 0; k < M * M; ++k) JJ[i * M * M + k] = (T)jac[k];
  }
}
)";
  return s;
}

std::string Reactions::device_source(const std::string& T) const {
  const int m = species();
  std::string s = "typedef " + T + " T;\n" + device_expression_prelude() + kReactionStepSource;
  s += "\nconstexpr int M = " + std::to_string(m) + ";\n";
  s += "struct Rates {\n  double x, y, z;\n  __device__ void operator()(const double* v, double t, double* out) const {\n" +
       join_code(rate_code_, "out") + "  }\n};\n";
  s += "__device__ void exact_flow(const double* v, double x, double y, double z, double t, double tau, double* out) {\n" +
       join_code(flow_code_, "out") + "}\n";
  s += "__device__ void given_jacobian(const double* v, double x, double y, double z, double t, double* out) {\n" +
       join_code(jacobian_code_, "out") + "}\n";
  s += std::string("constexpr bool kExactFlow = ") + (has_exact_flow() ? "true" : "false") + ";\n";
  s += std::string("constexpr bool kGivenJacobian = ") + (has_jacobian() ? "true" : "false") + ";\n";
  // The node loop: node o = i + nx (j + ny k), coordinates from the grid's tables; fixed nodes
  // (Dirichlet faces) keep their values.
  s += R"(
__device__ __forceinline__ void node_coords(long long o, long long nx, long long ny, const double* cx,
                                            const double* cy, const double* cz, double& x, double& y, double& z) {
  x = cx[o % nx];
  y = cy[(o / nx) % ny];
  z = cz[o / (nx * ny)];
}
extern "C" __global__ void rd_react(T* __restrict__ u, const unsigned char* __restrict__ fixed, long long n,
    long long nx, long long ny, const double* cx, const double* cy, const double* cz, double t, double tau,
    int substeps) {
  for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < n; o += (long long)gridDim.x * blockDim.x) {
    if (fixed && fixed[o]) continue;
    double x, y, z, v[M];
    node_coords(o, nx, ny, cx, cy, cz, x, y, z);
    for (int i = 0; i < M; ++i) v[i] = (double)u[o * M + i];
    if (kExactFlow) {
      double w[M];
      exact_flow(v, x, y, z, t, tau, w);
      for (int i = 0; i < M; ++i) v[i] = w[i];
    } else {
      tridsim::rd::rk4(M, v, t, tau, substeps, Rates{x, y, z});
    }
    for (int i = 0; i < M; ++i) u[o * M + i] = (T)v[i];
  }
}
extern "C" __global__ void rd_linearize(const T* __restrict__ u, T* __restrict__ R, T* __restrict__ J,
    const unsigned char* __restrict__ fixed, long long n, long long nx, long long ny, const double* cx,
    const double* cy, const double* cz, double t) {
  for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < n; o += (long long)gridDim.x * blockDim.x) {
    double x, y, z, v[M], r[M], jac[M * M];
    if (fixed && fixed[o]) {
      for (int i = 0; i < M; ++i) R[o * M + i] = 0;
      for (int i = 0; i < M * M; ++i) J[o * M * M + i] = 0;
      continue;
    }
    node_coords(o, nx, ny, cx, cy, cz, x, y, z);
    for (int i = 0; i < M; ++i) v[i] = (double)u[o * M + i];
    const Rates rates{x, y, z};
    rates(v, t, r);
    if (kGivenJacobian) given_jacobian(v, x, y, z, t, jac);
    else tridsim::rd::fd_jacobian(M, v, t, r, rates, jac);
    for (int i = 0; i < M; ++i) R[o * M + i] = (T)r[i];
    for (int i = 0; i < M * M; ++i) J[o * M * M + i] = (T)jac[i];
  }
}
)";
  return s;
}

}  // namespace tridsim::rd
