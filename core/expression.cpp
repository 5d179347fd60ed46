#include "core/expression.hpp"

#include <fmt/format.h>
#include <muParser.h>

#include <cmath>
#include <numbers>
#include <string_view>

#include "core/deck.hpp"
#include "core/errors.hpp"
#include "core/non_finite.hpp"

namespace tridsim {

namespace {

// An '=' that is not part of ==, <=, >= or !=: muparser's assignment (x = 1), which a deck
// expression may not be.
bool has_assignment(const std::string& text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '=') continue;
    const bool after_operator = i > 0 && std::string_view("<>!=").find(text[i - 1]) != std::string_view::npos;
    const bool before_equals = i + 1 < text.size() && text[i + 1] == '=';
    if (!after_operator && !before_equals) return true;
  }
  return false;
}

}  // namespace

struct Expression::Impl {
  mu::Parser parser;
  double x = 0, y = 0, z = 0, t = 0;
  std::vector<double> vars;
  Constants constants;  // muparser keeps pointers to these
};

Expression::Expression() : Expression("0", {}) {}

Expression::Expression(const std::string& text, const Constants& constants, const std::vector<std::string>& variables)
    : impl_(std::make_unique<Impl>()), text_(text), constants_(constants), variables_(variables) {
  auto& p = impl_->parser;
  std::string listed = "x, y, z, t";
  for (const auto& v : variables) listed += ", " + v;
  try {
    p.DefineVar("x", &impl_->x);
    p.DefineVar("y", &impl_->y);
    p.DefineVar("z", &impl_->z);
    p.DefineVar("t", &impl_->t);
    impl_->vars.assign(variables.size(), 0.0);
    for (std::size_t k = 0; k < variables.size(); ++k) p.DefineVar(variables[k], &impl_->vars[k]);
    p.DefineConst("pi", std::numbers::pi);
    p.DefineConst("e", std::numbers::e);
    impl_->constants = constants;
    for (auto& [name, value] : impl_->constants) p.DefineConst(name, value);
    // muparser also takes assignments and several comma-separated expressions (the last one's
    // value wins): refused, as the GPU translator refuses them.
    if (has_assignment(text))
      throw Error("cannot parse expression '" + text +
                  "': '=' assigns a value, which an expression may not (to compare, use '==')");
    p.SetExpr(text);
    p.Eval();  // parse now, so errors surface at setup
    if (p.GetNumResults() > 1)
      throw Error("cannot parse expression '" + text + "': several comma-separated expressions; give one (commas "
                  "separate only a function's arguments, as in min(x, 1))");
    for (const auto& [name, ptr] : p.GetUsedVar()) {
      if (name == "t") uses_t_ = true;
      else if (name == "x" || name == "y" || name == "z") uses_xyz_ = true;
      else uses_vars_ = true;
    }
  } catch (const mu::Parser::exception_type& e) {
    throw Error("cannot parse expression '" + text + "': " + e.GetMsg() +
                " (variables: " + listed + "; constants: pi, e and those under 'constants:')");
  }
}

Expression Expression::from_deck(const DeckNode& node, const std::string& key, const Constants& constants,
                                 const std::vector<std::string>& variables) {
  const std::string text = node.get<std::string>(key);
  try {
    return Expression(text, constants, variables);
  } catch (const Error& e) {
    throw DeckError(node.where(key), node.key_path(key), e.what());
  }
}

Expression::Expression(const Expression& o) : Expression(o.text_, o.constants_, o.variables_) {}
Expression& Expression::operator=(const Expression& o) {
  if (this != &o) *this = Expression(o);
  return *this;
}
Expression::Expression(Expression&&) noexcept = default;
Expression& Expression::operator=(Expression&&) noexcept = default;
Expression::~Expression() = default;

double Expression::operator()(double x, double y, double z, double t) const {
  impl_->x = x;
  impl_->y = y;
  impl_->z = z;
  impl_->t = t;
  return impl_->parser.Eval();
}

double Expression::eval(double x, double y, double z, double t, const double* vars) const {
  std::copy(vars, vars + impl_->vars.size(), impl_->vars.begin());
  return (*this)(x, y, z, t);
}

template <class T>
void Expression::fill(const Grid& g, double t, T* out) const {
  if (is_constant()) {
    const T v = T((*this)(0, 0, 0, t));
    std::fill(out, out + g.size(), v);
    return;
  }
#pragma omp parallel
  {
    const Expression local(*this);
#pragma omp for collapse(2) schedule(static)
    for (index_t k = 0; k < g.n[2]; ++k)
      for (index_t j = 0; j < g.n[1]; ++j)
        for (index_t i = 0; i < g.n[0]; ++i)
          out[g.index(i, j, k)] = T(local(g.coord(0, i), g.coord(1, j), g.coord(2, k), t));
  }
}

template void Expression::fill<float>(const Grid&, double, float*) const;
template void Expression::fill<double>(const Grid&, double, double*) const;

void fail_non_finite(const DeckNode& node, const std::string& key, const NonFinite& bad, double t) {
  node.fail(key, fmt::format("is {} {} at t = {:g}; it must be finite at every grid node", bad.name, bad.where, t));
}

template <class T>
void require_finite_values(const DeckNode& node, const std::string& key, const Grid& g, double t, const T* values) {
  if (const auto bad = first_non_finite(g, values)) fail_non_finite(node, key, *bad, t);
}

std::vector<double> check_times(double start, double end) {
  if (!(end > start)) return {start};
  return {start, start + 0.5 * (end - start), end};
}
std::vector<double> times_for(bool uses_time, const std::vector<double>& times) {
  if (uses_time || times.empty()) return times;
  return {times.front()};
}

void require_finite_expression(const DeckNode& node, const std::string& key, const Expression& e, const Grid& g,
                               const std::vector<double>& times) {
  if (times.empty()) return;
  std::vector<double> values(static_cast<std::size_t>(g.size()));
  for (const double t : times_for(e.uses_time(), times)) {
    e.fill(g, t, values.data());
    require_finite_values(node, key, g, t, values.data());
  }
}

template void require_finite_values<float>(const DeckNode&, const std::string&, const Grid&, double, const float*);
template void require_finite_values<double>(const DeckNode&, const std::string&, const Grid&, double, const double*);

}  // namespace tridsim
