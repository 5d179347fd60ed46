#pragma once
// Expressions (namespace tridsim) of x, y, z, t and the deck's named constants
// ("sin(pi*x)*exp(-k*t)"), evaluated with muparser. Parsing errors become DeckErrors at the deck
// line that holds them. An expression may name further variables (e.g. the species of a reaction,
// "u*v^2"): their values are passed to eval() in the order given at construction. eval_block()
// evaluates the same parsed formula at up to kBlock points per call, each step of muparser's
// bytecode over all of them, so that the interpreter's cost per token is paid once per block.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/deck_keys.hpp"
#include "core/grid.hpp"
#include "core/non_finite.hpp"

namespace tridsim {

class DeckNode;
class NativeCode;
using Constants = std::map<std::string, double>;

class Expression {
 public:
  Expression();
  // Throws Error if the text does not parse.
  Expression(const std::string& text, const Constants& constants, const std::vector<std::string>& variables = {});
  // From a deck key holding a number or an expression string.
  static Expression from_deck(const DeckNode& node, const std::string& key, const Constants& constants,
                              const std::vector<std::string>& variables = {});
  // The same for an optional key: the deck's text, else the default of its key table `keys`.
  static Expression from_deck_or_default(const DeckNode& node, const std::string& key, const KeyTable& keys,
                                         const Constants& constants);
  Expression(const Expression& other);
  Expression& operator=(const Expression& other);
  Expression(Expression&&) noexcept;
  Expression& operator=(Expression&&) noexcept;
  ~Expression();

  double operator()(double x, double y, double z, double t) const;
  // With the further variables' values, vars[k] for variables()[k].
  double eval(double x, double y, double z, double t, const double* vars) const;

  // At most this many points per eval_block() call.
  static constexpr int kBlock = 256;
  // One input of eval_block(): n values (one per point), or one value for every point (uniform).
  struct Input {
    const double* values;
    bool uniform;
  };
  // out[p] for points p = 0..n-1 (n <= kBlock): in[0..3] are x, y, z, t, then variables()[k] at
  // in[4 + k]. Equal bit for bit to eval() point by point. As eval(), it writes the instance's
  // scratch: one copy of the Expression per thread.
  void eval_block(int n, const Input* in, double* out) const;

  // C++ statements (for code compiled at run time, core/native_code.hpp) that assign the value to
  // `target`, operation by operation as muparser's optimized bytecode computes it, so that the
  // compiled value equals eval()'s bit for bit. inputs[k] spells the input k of eval_block (x, y,
  // z, t, then the variables). Null when the bytecode holds something with no such form.
  std::optional<std::string> native_code(const std::vector<std::string>& inputs, const std::string& target) const;
  // The declarations those statements need, once at the top of their source.
  static const char* native_prelude();

  // What fill_lines() runs per line when compiled: out[i] at the n points whose coordinate on
  // `axis` is along[i], the other two being x, y, z (the one of `axis` unused).
  using LineKernel = void (*)(long long n, int axis, const double* along, double x, double y, double z, double t,
                              double* out);
  // C++ source of that kernel for this expression, as the extern "C" function `name` (after
  // native_prelude()); null when the expression has no compiled form.
  std::optional<std::string> native_line_source(const std::string& name) const;
  // From now on fill_lines() (fill, boundary faces) runs `kernel`, of `code` (NativeBatch does this);
  // copies made later keep it.
  void use_native(std::shared_ptr<const NativeCode> code, LineKernel kernel);
  bool compiled() const { return native_kernel_ != nullptr; }

  const std::string& text() const { return text_; }
  const std::vector<std::string>& variables() const { return variables_; }
  const Constants& constants() const { return constants_; }
  bool uses_time() const { return uses_t_; }
  bool uses_space() const { return uses_xyz_; }
  bool is_constant() const { return !uses_t_ && !uses_xyz_ && !uses_vars_; }

  // Evaluate at every node of `grid` at time t (fill_lines over the lines of x).
  template <class T>
  void fill(const Grid& grid, double t, T* out) const;
  // Evaluate at the nodes of `lines` lines of n nodes parallel to `axis` at time t, OpenMP over the
  // lines: node i of line l has coordinate along[i] on `axis`; place(l, xyz) sets the other two
  // coordinates in xyz[3] and returns where the line's n values start in out. Through the compiled
  // kernel (use_native), else eval_block over blocks of the line (one parser per thread); further
  // variables are 0, as eval() leaves them.
  using LinePlace = std::function<index_t(index_t line, double* xyz)>;
  template <class T>
  void fill_lines(index_t lines, int axis, index_t n, const double* along, const LinePlace& place, double t,
                  T* out) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::shared_ptr<const NativeCode> native_;  // keeps native_kernel_'s shared object loaded
  LineKernel native_kernel_ = nullptr;
  std::string text_;
  Constants constants_;
  std::vector<std::string> variables_;
  bool uses_t_ = false, uses_xyz_ = false, uses_vars_ = false;
};

// Values of the deck key node.key at every node of g (at time t) must be finite: a DeckError
// there names the first node that is not, with its indices and coordinates.
template <class T>
void require_finite_values(const DeckNode& node, const std::string& key, const Grid& g, double t, const T* values);

// The DeckError of every such check: node.key is `bad` (a value and where it is) at time t.
[[noreturn]] void fail_non_finite(const DeckNode& node, const std::string& key, const NonFinite& bad, double t);

// The times at which a run's data that move with t are checked before its first step (check does
// the same): the start, the middle and the end.
std::vector<double> check_times(double start, double end);
// Of `times`, those at which data that do (uses_time) or do not use t are checked: all, or the first.
std::vector<double> times_for(bool uses_time, const std::vector<double>& times);

// The expression e of node.key is finite at every node of g at each of `times` (at the first only
// when e does not use t), else a DeckError there naming the first node that is not. Returns the
// largest magnitude it took there (0 for no times).
double require_finite_expression(const DeckNode& node, const std::string& key, const Expression& e, const Grid& g,
                                 const std::vector<double>& times);

// What one step of a diffusion scheme (heat, glioma, reaction-diffusion) can take in precision T.
// With w_a = D dt / h_a^2 on axis a, one application of the stencil grows values by at most
// G = 1 + 4 sum_a w_a. G must stay below 1/epsilon of T: beyond it the 1 of an implicit line's
// I + w L is lost to rounding (a line with insulated ends then has a zero pivot), and a step's two
// stages (G^2) come near overflow. d_max: the largest diffusivity, of node.key, where a DeckError
// says so with the numbers. Returns G^2, the growth a step's two stages allow.
template <class T>
double require_step_gain(const DeckNode& node, const std::string& key, const Grid& g, double d_max, double dt);
// The largest magnitude the state may have before the first step in T: one that leaves room for
// its growth G^2 (gain2, as returned above) and for the sum over g's N nodes that a mean takes.
template <class T>
double step_headroom(const Grid& g, double gain2);
// Data of node.key of largest magnitude m that enter the first step `growth` times over (1 for
// initial values; `why` says how, e.g. a Neumann face's flux term): growth m must stay below
// step_headroom, else a DeckError there with the numbers.
template <class T>
void require_step_headroom(const DeckNode& node, const std::string& key, const Grid& g, double gain2, double m,
                           double growth = 1, const std::string& why = "");
// The same for initial data: values over g.
template <class T>
void require_step_headroom(const DeckNode& node, const std::string& key, const Grid& g, double gain2, const T* values);

// The largest magnitude of n values (NaN counts as none).
template <class T>
double largest_magnitude(index_t n, const T* values);
// Data of node.key of a steady problem -div(kappa grad u) = f on g (poisson, bvp), of largest
// magnitude m (on this rank), that the solution may reach a number of times (the maximum principle's
// bound, with any faces Neumann; D the grid's diagonal): |f| D^2 / (2 kappa_min) from a source,
// |g| D / kappa_min from a Neumann face's flux g (kappa du/dn; du/dn where kappa_min is 1), the
// values themselves from a Dirichlet face or an exact solution (the error norms take u minus it).
// The run sums the solution's N values (a mean) in T and their squares (norms, residuals) in
// double: both must stay finite, else a DeckError there with the numbers. `coefficient` names
// kappa in the message (elasticity's loads use the shear modulus mu, as an estimate).
enum class SteadyData { source, neumann, dirichlet, exact };
template <class T>
void require_solve_headroom(const DeckNode& node, const std::string& key, const Grid& g, double m, SteadyData kind,
                            double kappa_min = 1, const char* coefficient = "kappa");

}  // namespace tridsim
