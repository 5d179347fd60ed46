// The "decay" module: an out-of-tree tridsim physics module (the example of docs/extending.md).
//
//   du/dt = -lambda u  at every grid node,   u(x, t0) = initial(x, y, z),
//
// with the exact solution u = initial * exp(-lambda (t - t0)). Each step multiplies u by
//   exponential:     exp(-lambda dt)                           (exact up to rounding)
//   crank-nicolson:  (1 - lambda dt/2) / (1 + lambda dt/2)     (second order in dt)
// Deck section:
//   decay:
//     lambda: 2.0                   # decay rate, >= 0
//     scheme: crank-nicolson        # or exponential (the default)
//     initial: "1 + a*sin(pi*x)"    # expression of x, y, z and the deck's constants
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/module.hpp"

namespace {

using namespace tridsim;

// The choices of the `scheme` key: one table gives their names to parsing, errors and listings.
enum class Scheme { exponential, crank_nicolson };
constexpr NameEntry<Scheme> kSchemeNames[] = {{"exponential", Scheme::exponential, "exact up to rounding"},
                                              {"crank-nicolson", Scheme::crank_nicolson, "second order in dt"}};

template <class T>  // float or double: the deck's precision
class DecayModule final : public Module {
 public:
  // 1. Read the deck section, allocate the field and set the initial state.
  void setup(const Grid& grid, const DeckNode& deck, const SetupContext& context, double t0) override {
    grid_ = grid;
    t0_ = t0;
    lambda_ = deck.get<double>("lambda");
    deck.require(lambda_ >= 0 && std::isfinite(lambda_), "lambda", lambda_, "a finite number >= 0");
    scheme_ = deck.get_enum("scheme", kSchemeNames, Scheme::exponential);
    initial_ = Expression::from_deck(deck, "initial", context.constants);
    if (initial_.uses_time()) deck.fail("initial", "is the state at the start time: it may use x, y, z but not t");
    u_.resize(grid.size());
    initial_.fill(grid, t0, u_.data());
  }

  // 2. Advance from t to t + dt: every node is multiplied by the same factor.
  void step(double /*t*/, double dt) override {
    const double z = lambda_ * dt;
    const T factor = T(scheme_ == Scheme::crank_nicolson ? (1 - z / 2) / (1 + z / 2) : std::exp(-z));
    T* u = u_.data();
    const index_t n = index_t(u_.size());
#pragma omp parallel for simd
    for (index_t i = 0; i < n; ++i) u[i] *= factor;
  }

  // 3. The fields the writers store: grid.size() values each, x-fastest.
  std::vector<FieldRef> fields() override { return {{"u", precision_of<T>(), u_.data()}}; }

  // 4. One row of the diagnostics CSV; the driver also stops the run here on NaN or Inf.
  std::vector<Diagnostic> diagnostics(double /*t*/) override {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo, sum = 0;
    for (const T v : u_) {
      lo = std::min(lo, double(v));
      hi = std::max(hi, double(v));
      sum += double(v);
    }
    if (std::isnan(sum)) lo = hi = sum;  // min and max skip NaN; make it visible
    return {{"u_min", lo}, {"u_max", hi}, {"u_mean", sum / double(u_.size())}};
  }

  // 5. The error against the exact solution, for the run's summary.
  std::optional<ErrorNorms> error_norms(double t) override {
    std::vector<double> exact(u_.size());
    initial_.fill(grid_, t0_, exact.data());
    const double decay = std::exp(-lambda_ * (t - t0_));
    double sq = 0, mx = 0;
    for (std::size_t i = 0; i < u_.size(); ++i) {
      const double e = std::abs(double(u_[i]) - exact[i] * decay);
      sq += e * e;
      mx = std::max(mx, e);
    }
    return ErrorNorms{"u", std::sqrt(sq / double(u_.size())), mx};
  }

 private:
  Grid grid_;
  double t0_ = 0, lambda_ = 0;
  Scheme scheme_ = Scheme::exponential;
  Expression initial_;
  std::vector<T> u_;
};

}  // namespace

TRIDSIM_REGISTER_MODULE("decay", "du/dt = -lambda u at every node (exponential or Crank-Nicolson)", DecayModule);
