#include "core/expression.hpp"

#include <fmt/format.h>
#include <muParser.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>

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

constexpr int kBlock = Expression::kBlock;

// A value of a block program: kBlock values in a register, an input of eval_block, or a constant.
struct Operand {
  enum Kind : unsigned char { reg, input, constant } kind = constant;
  int index = 0;
  double value = 0;
};

// An operand's values at the points of a block: values[p], or *values at every point (uniform).
struct Values {
  const double* values;
  bool uniform;
  double at(int p) const { return values[uniform ? 0 : p]; }
};

// out[p] = f(a[p], b[p]): one loop per kind of operand, so that each vectorizes. (Uniform a and b
// give one value: f is a pure operation of muparser's, so that equals computing it at each point.)
template <class F>
void binary(int n, Values a, Values b, double* out, F f) {
  if (a.uniform && b.uniform) {
    std::fill(out, out + n, f(*a.values, *b.values));
  } else if (a.uniform) {
    const double av = *a.values;
    for (int p = 0; p < n; ++p) out[p] = f(av, b.values[p]);
  } else if (b.uniform) {
    const double bv = *b.values;
    for (int p = 0; p < n; ++p) out[p] = f(a.values[p], bv);
  } else {
    for (int p = 0; p < n; ++p) out[p] = f(a.values[p], b.values[p]);
  }
}

template <class F>
void unary(int n, Values a, double* out, F f) {
  if (a.uniform) std::fill(out, out + n, f(*a.values));
  else for (int p = 0; p < n; ++p) out[p] = f(a.values[p]);
}

// A function of muparser's (sin, atan2, ...) called with N arguments, as its bytecode calls it.
template <std::size_t... I>
double call_with(const mu::generic_callable_type& f, const double* args, std::index_sequence<I...>) {
  return f.call_fun<sizeof...(I)>(args[I]...);
}
template <std::size_t N>
double call_fixed(const mu::generic_callable_type& f, const double* args) {
  return call_with(f, args, std::make_index_sequence<N>{});
}
using Caller = double (*)(const mu::generic_callable_type&, const double*);
constexpr Caller kCallers[] = {call_fixed<0>, call_fixed<1>, call_fixed<2>, call_fixed<3>, call_fixed<4>, call_fixed<5>,
                               call_fixed<6>, call_fixed<7>, call_fixed<8>, call_fixed<9>, call_fixed<10>};
constexpr int kMaxArgs = 10;

// muparser's bytecode (reverse Polish, after its optimizer) run one token at a time over a whole
// block of points, each token's arithmetic exactly as muparser's ParseCmdCodeBulk does it, so that
// the results equal its Eval() bit for bit. Values on muparser's stack become operands; a result
// goes to the register of its stack position (plus one per enclosing branch, so that a
// conditional's mask and first branch survive the second): both branches of `c ? a : b` are
// evaluated and selected per point.
class BlockProgram {
 public:
  enum class Op : unsigned char { le, ge, neq, eq, lt, gt, add, sub, mul, div, pow, land, lor, pow2, pow3, pow4,
                                  select, call, call_variadic };

  // Null when the bytecode holds a token with no block form (string functions, assignments).
  // input_of maps a variable's address to its eval_block input (-1: none).
  template <class InputOf>
  static std::optional<BlockProgram> compile(const mu::ParserByteCode& code, const InputOf& input_of);

  int registers() const { return registers_; }
  void run(int n, const Expression::Input* in, double* regs, double* out) const;
  // The program as C++ statements assigning its value to `target`, operation by operation as run()
  // does; inputs[k] spells input k. name_of names a call's function ("sin", "-" for unary minus;
  // empty: unknown). Null when a call has no C++ form here.
  template <class NameOf>
  std::optional<std::string> code(const std::vector<std::string>& inputs, const std::string& target,
                                  const NameOf& name_of) const;

 private:
  struct Instruction {
    Op op;
    int out;
    std::vector<Operand> args;
    mu::generic_callable_type fun;  // call, call_variadic
  };
  void emit(Op op, int out, std::vector<Operand> args, mu::generic_callable_type fun = {});
  void execute(const Instruction& ins, int n, const Expression::Input* in, double* regs) const;
  static Values values_of(const Operand& o, const Expression::Input* in, double* regs);

  std::vector<Instruction> code_;
  Operand result_;
  int registers_ = 0;
};

void BlockProgram::emit(Op op, int out, std::vector<Operand> args, mu::generic_callable_type fun) {
  code_.push_back({op, out, std::move(args), fun});
  registers_ = std::max(registers_, out + 1);
}

template <class InputOf>
std::optional<BlockProgram> BlockProgram::compile(const mu::ParserByteCode& code, const InputOf& input_of) {
  BlockProgram prog;
  std::vector<Operand> stack;
  struct Branch {
    Operand mask, then;
  };
  std::vector<Branch> branches;
  int shift = 0;  // registers kept by enclosing branches
  auto pop = [&] {
    const Operand o = stack.back();
    stack.pop_back();
    return o;
  };
  auto pop_args = [&](int count) {
    std::vector<Operand> args(stack.end() - count, stack.end());
    stack.resize(stack.size() - std::size_t(count));
    return args;
  };
  // An instruction whose result is pushed: its register is the stack position it takes.
  auto push_result = [&](Op op, std::vector<Operand> args, mu::generic_callable_type fun = {}) {
    const int out = int(stack.size()) + shift;
    prog.emit(op, out, std::move(args), fun);
    stack.push_back({Operand::reg, out, 0});
  };
  auto variable = [&](const mu::SToken& tok) -> std::optional<Operand> {
    const int k = input_of(tok.Val.ptr);
    if (k < 0) return std::nullopt;
    return Operand{Operand::input, k, 0};
  };
  for (const mu::SToken* tok = code.GetBase(); tok->Cmd != mu::cmEND; ++tok) {
    const mu::ECmdCode cmd = tok->Cmd;
    if (cmd <= mu::cmGT || (cmd >= mu::cmADD && cmd <= mu::cmLOR)) {  // binary operators
      if (stack.size() < 2) return std::nullopt;
      static constexpr Op kBinary[] = {Op::le,  Op::ge,  Op::neq, Op::eq,  Op::lt,   Op::gt,  Op::add,
                                       Op::sub, Op::mul, Op::div, Op::pow, Op::land, Op::lor};
      push_result(kBinary[cmd], pop_args(2));
    } else if (cmd == mu::cmVAL) {
      stack.push_back({Operand::constant, 0, tok->Val.data2});
    } else if (cmd == mu::cmVAR || cmd == mu::cmVARPOW2 || cmd == mu::cmVARPOW3 || cmd == mu::cmVARPOW4 ||
               cmd == mu::cmVARMUL) {
      const auto v = variable(*tok);
      if (!v) return std::nullopt;
      if (cmd == mu::cmVAR) stack.push_back(*v);
      else if (cmd == mu::cmVARPOW2) push_result(Op::pow2, {*v});
      else if (cmd == mu::cmVARPOW3) push_result(Op::pow3, {*v});
      else if (cmd == mu::cmVARPOW4) push_result(Op::pow4, {*v});
      else {  // v * data + data2, rounded after each operation as muparser's build does
        push_result(Op::mul, {*v, Operand{Operand::constant, 0, tok->Val.data}});
        push_result(Op::add, {pop(), Operand{Operand::constant, 0, tok->Val.data2}});
      }
    } else if (cmd == mu::cmFUNC) {
      const int argc = tok->Fun.argc, count = argc < 0 ? -argc : argc;
      if (count > kMaxArgs || int(stack.size()) < count || (argc < 0 && count == 0)) return std::nullopt;
      push_result(argc < 0 ? Op::call_variadic : Op::call, pop_args(count), tok->Fun.cb);
    } else if (cmd == mu::cmIF) {
      if (stack.empty()) return std::nullopt;
      branches.push_back({pop(), {}});
      shift += 1;
    } else if (cmd == mu::cmELSE) {
      if (stack.empty() || branches.empty()) return std::nullopt;
      branches.back().then = pop();
      shift += 1;
    } else if (cmd == mu::cmENDIF) {
      if (stack.empty() || branches.empty()) return std::nullopt;
      const Operand otherwise = pop();
      shift -= 2;
      push_result(Op::select, {branches.back().mask, branches.back().then, otherwise});
      branches.pop_back();
    } else {
      return std::nullopt;
    }
  }
  if (stack.size() != 1 || !branches.empty()) return std::nullopt;
  prog.result_ = stack.back();
  return prog;
}

Values BlockProgram::values_of(const Operand& o, const Expression::Input* in, double* regs) {
  if (o.kind == Operand::reg) return {regs + std::size_t(o.index) * kBlock, false};
  if (o.kind == Operand::input) return {in[o.index].values, in[o.index].uniform};
  return {&o.value, true};
}

void BlockProgram::execute(const Instruction& ins, int n, const Expression::Input* in, double* regs) const {
  double* out = regs + std::size_t(ins.out) * kBlock;
  Values a{}, b{};
  if (!ins.args.empty()) a = values_of(ins.args[0], in, regs);
  if (ins.args.size() > 1) b = values_of(ins.args[1], in, regs);
  switch (ins.op) {
    case Op::le: return binary(n, a, b, out, [](double u, double v) { return double(u <= v); });
    case Op::ge: return binary(n, a, b, out, [](double u, double v) { return double(u >= v); });
    case Op::neq: return binary(n, a, b, out, [](double u, double v) { return double(u != v); });
    case Op::eq: return binary(n, a, b, out, [](double u, double v) { return double(u == v); });
    case Op::lt: return binary(n, a, b, out, [](double u, double v) { return double(u < v); });
    case Op::gt: return binary(n, a, b, out, [](double u, double v) { return double(u > v); });
    case Op::add: return binary(n, a, b, out, [](double u, double v) { return u + v; });
    case Op::sub: return binary(n, a, b, out, [](double u, double v) { return u - v; });
    case Op::mul: return binary(n, a, b, out, [](double u, double v) { return u * v; });
    case Op::div: return binary(n, a, b, out, [](double u, double v) { return u / v; });
    case Op::pow: return binary(n, a, b, out, [](double u, double v) { return mu::MathImpl<double>::Pow(u, v); });
    case Op::land: return binary(n, a, b, out, [](double u, double v) { return double(u && v); });
    case Op::lor: return binary(n, a, b, out, [](double u, double v) { return double(u || v); });
    case Op::pow2: return unary(n, a, out, [](double u) { return u * u; });
    case Op::pow3: return unary(n, a, out, [](double u) { return u * u * u; });
    case Op::pow4: return unary(n, a, out, [](double u) { return u * u * u * u; });
    case Op::select: {
      const Values c = values_of(ins.args[2], in, regs);
      for (int p = 0; p < n; ++p) out[p] = a.at(p) != 0 ? b.at(p) : c.at(p);  // muparser: else when 0
      return;
    }
    case Op::call:
    case Op::call_variadic: {
      // Per point: functions (rnd) need not give one value for equal arguments.
      const int count = int(ins.args.size());
      Values args[kMaxArgs];
      for (int k = 0; k < count; ++k) args[k] = values_of(ins.args[std::size_t(k)], in, regs);
      double at[kMaxArgs];
      for (int p = 0; p < n; ++p) {
        for (int k = 0; k < count; ++k) at[k] = args[k].at(p);
        out[p] = ins.op == Op::call ? kCallers[count](ins.fun, at) : ins.fun.call_multfun(at, count);
      }
      return;
    }
  }
}

void BlockProgram::run(int n, const Expression::Input* in, double* regs, double* out) const {
  for (const Instruction& ins : code_) execute(ins, n, in, regs);
  const Values r = values_of(result_, in, regs);
  for (int p = 0; p < n; ++p) out[p] = r.at(p);
}

// A double as a C++ literal of exactly its value.
std::string literal(double v) {
  if (std::isnan(v)) return "__builtin_nan(\"\")";
  if (std::isinf(v)) return v > 0 ? "__builtin_inf()" : "(-__builtin_inf())";
  return std::signbit(v) ? fmt::format("({:a})", v) : fmt::format("{:a}", v);
}

template <class NameOf>
std::optional<std::string> BlockProgram::code(const std::vector<std::string>& inputs, const std::string& target,
                                              const NameOf& name_of) const {
  auto operand = [&](const Operand& o) {
    if (o.kind == Operand::reg) return "r" + std::to_string(o.index);
    if (o.kind == Operand::input) return inputs.at(std::size_t(o.index));
    return literal(o.value);
  };
  std::string body;
  for (const Instruction& ins : code_) {
    std::vector<std::string> a;
    for (const Operand& o : ins.args) a.push_back(operand(o));
    std::string value;
    static const char* const kInfix[] = {"<=", ">=", "!=", "==", "<", ">", "+", "-", "*", "/"};
    switch (ins.op) {
      case Op::le: case Op::ge: case Op::neq: case Op::eq: case Op::lt: case Op::gt:
        value = fmt::format("(double)({} {} {})", a[0], kInfix[int(ins.op)], a[1]);
        break;
      case Op::add: case Op::sub: case Op::mul: case Op::div:
        value = fmt::format("{} {} {}", a[0], kInfix[int(ins.op)], a[1]);
        break;
      case Op::pow: value = fmt::format("pow({}, {})", a[0], a[1]); break;
      case Op::land: value = fmt::format("(double)({} && {})", a[0], a[1]); break;
      case Op::lor: value = fmt::format("(double)({} || {})", a[0], a[1]); break;
      case Op::pow2: value = fmt::format("{0} * {0}", a[0]); break;
      case Op::pow3: value = fmt::format("{0} * {0} * {0}", a[0]); break;
      case Op::pow4: value = fmt::format("{0} * {0} * {0} * {0}", a[0]); break;
      case Op::select: value = fmt::format("{} != 0 ? {} : {}", a[0], a[1], a[2]); break;
      case Op::call:
      case Op::call_variadic: {
        // muparser's own definitions (muParserTemplateMagic.h), not C's where they differ.
        const std::string f = name_of(ins.fun, int(a.size()));
        static const char* const kLibm[] = {"sin",  "cos",  "tan",  "asin",  "acos", "atan", "sinh",
                                            "cosh", "tanh", "log10", "exp",  "sqrt", "atan2"};
        for (const char* name : kLibm)
          if (f == name) {
            value = fmt::format("__builtin_{}({})", f, a[0]);
            if (f == "atan2") value = fmt::format("__builtin_atan2({}, {})", a[0], a[1]);
          }
        const std::string& v = a[0];
        if (f == "-") value = "-" + v;
        else if (f == "+") value = v;
        else if (f == "log" || f == "ln") value = fmt::format("__builtin_log({})", v);
        else if (f == "log2") value = fmt::format("__builtin_log({}) / __builtin_log(2.0)", v);
        else if (f == "asinh") value = fmt::format("__builtin_log({0} + __builtin_sqrt({0} * {0} + 1))", v);
        else if (f == "acosh") value = fmt::format("__builtin_log({0} + __builtin_sqrt({0} * {0} - 1))", v);
        else if (f == "atanh") value = fmt::format("0.5 * __builtin_log((1 + {0}) / (1 - {0}))", v);
        else if (f == "abs") value = fmt::format("({0} >= 0) ? {0} : -{0}", v);
        else if (f == "rint") value = fmt::format("__builtin_floor({} + 0.5)", v);
        else if (f == "sign") value = fmt::format("(double)(({0} < 0) ? -1 : ({0} > 0) ? 1 : 0)", v);
        else if (f == "sum" || f == "avg") {
          value = "0.0";  // muparser sums from 0, in order
          for (const auto& x : a) value = "(" + value + " + " + x + ")";
          if (f == "avg") value += fmt::format(" / {}.0", a.size());
        } else if (f == "min" || f == "max") {
          value = v;  // std::min / std::max folded from the first argument
          for (const auto& x : a)
            value = f == "min" ? fmt::format("({1} < {0} ? {1} : {0})", value, x)
                               : fmt::format("({0} < {1} ? {1} : {0})", value, x);
        }
        if (value.empty()) return std::nullopt;
        break;
      }
    }
    body += fmt::format("    r{} = {};\n", ins.out, value);
  }
  std::string regs;
  for (int r = 0; r < registers_; ++r) regs += (r ? ", r" : "    double r") + std::to_string(r);
  return "  {\n" + (regs.empty() ? std::string() : regs + ";\n") + body + fmt::format("    {} = {};\n  }}\n", target, operand(result_));
}

}  // namespace

struct Expression::Impl {
  mu::Parser parser;
  double x = 0, y = 0, z = 0, t = 0;
  std::vector<double> vars;
  Constants constants;  // muparser keeps pointers to these
  std::optional<BlockProgram> block;  // null: eval_block evaluates point by point
  std::vector<double> registers;      // block->registers() x kBlock

  // The eval_block input that muparser's variable at `address` reads: x, y, z, t, then vars.
  int input_of(const double* address) const {
    const double* const fixed[] = {&x, &y, &z, &t};
    for (int k = 0; k < 4; ++k)
      if (address == fixed[k]) return k;
    for (std::size_t k = 0; k < vars.size(); ++k)
      if (address == &vars[k]) return 4 + int(k);
    return -1;
  }
  // The name of a function of the bytecode called with argc arguments; the unary minus and plus
  // (infix operators, which GetFunDef does not list) by what they do.
  std::string name_of(const mu::generic_callable_type& f, int argc) const {
    for (const auto& [name, callback] : parser.GetFunDef())
      if (callback.GetAddr() == reinterpret_cast<void*>(f._pRawFun) && f._pUserData == nullptr) return name;
    if (argc == 1 && f._pUserData == nullptr) {
      if (f.call_fun<1>(1.5) == -1.5) return "-";
      if (f.call_fun<1>(1.5) == 1.5) return "+";
    }
    return {};
  }
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
      throw Error("cannot parse expression " + quoted(text) +
                  ": '=' assigns a value, which an expression may not (to compare, use '==')");
    p.SetExpr(text);
    p.Eval();  // parse now, so errors surface at setup
    if (p.GetNumResults() > 1)
      throw Error("cannot parse expression " + quoted(text) + ": several comma-separated expressions; give one (commas "
                  "separate only a function's arguments, as in min(x, 1))");
    for (const auto& [name, ptr] : p.GetUsedVar()) {
      if (name == "t") uses_t_ = true;
      else if (name == "x" || name == "y" || name == "z") uses_xyz_ = true;
      else uses_vars_ = true;
    }
    impl_->block = BlockProgram::compile(p.GetByteCode(), [&](const double* a) { return impl_->input_of(a); });
    if (impl_->block) impl_->registers.assign(std::size_t(impl_->block->registers()) * kBlock, 0.0);
  } catch (const mu::Parser::exception_type& e) {
    throw Error("cannot parse expression " + quoted(text) + ": " + e.GetMsg() +
                " (variables: " + listed + "; constants: pi, e and those under 'constants:')");
  }
}

Expression Expression::from_deck_or_default(const DeckNode& node, const std::string& key, const KeyTable& keys,
                                            const Constants& constants) {
  if (node.has(key)) return from_deck(node, key, constants);
  return Expression(table_default<std::string>(keys, node.key_path(key)), constants);
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

Expression::Expression(const Expression& o) : Expression(o.text_, o.constants_, o.variables_) {
  native_ = o.native_;
  native_kernel_ = o.native_kernel_;
}
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

const char* Expression::native_prelude() {
  // pow is a library call (the source is compiled with -fno-builtin), as muparser's std::pow: a
  // compiler's own pow(v, 2) = v*v or pow(v, -1) = 1/v may round differently.
  // tridsim_lines: the loop of a LineKernel, instantiated per axis so that what does not vary
  // along the line (y and z on a line of x) is computed once per call.
  return R"(extern "C" double pow(double, double);
template <int A, class F>
static inline void tridsim_line(long long n, const double* __restrict along, double x, double y, double z, double t,
                                double* __restrict out, F f) {
  for (long long i = 0; i < n; ++i) out[i] = f(A == 0 ? along[i] : x, A == 1 ? along[i] : y, A == 2 ? along[i] : z, t);
}
template <class F>
static inline void tridsim_lines(long long n, int axis, const double* along, double x, double y, double z, double t,
                                 double* out, F f) {
  if (axis == 0) tridsim_line<0>(n, along, x, y, z, t, out, f);
  else if (axis == 1) tridsim_line<1>(n, along, x, y, z, t, out, f);
  else tridsim_line<2>(n, along, x, y, z, t, out, f);
}
)";
}

std::optional<std::string> Expression::native_line_source(const std::string& name) const {
  std::vector<std::string> inputs = {"x", "y", "z", "t"};
  inputs.resize(4 + variables_.size(), "0.0");  // (as fill_lines leaves them)
  const auto code = native_code(inputs, "v");
  if (!code) return std::nullopt;
  return fmt::format("extern \"C\" void {}(long long n, int axis, const double* along, double x, double y, double z, "
                     "double t, double* out) {{\n  tridsim_lines(n, axis, along, x, y, z, t, out, "
                     "[](double x, double y, double z, double t) {{\n    double v;\n{}    return v;\n  }});\n}}\n",
                     name, *code);
}

void Expression::use_native(std::shared_ptr<const NativeCode> code, LineKernel kernel) {
  native_ = std::move(code);
  native_kernel_ = kernel;
}

std::optional<std::string> Expression::native_code(const std::vector<std::string>& inputs,
                                                   const std::string& target) const {
  if (!impl_->block || inputs.size() != 4 + variables_.size()) return std::nullopt;
  return impl_->block->code(inputs, target,
                            [&](const mu::generic_callable_type& f, int argc) { return impl_->name_of(f, argc); });
}

void Expression::eval_block(int n, const Input* in, double* out) const {
  if (impl_->block) {
    impl_->block->run(n, in, impl_->registers.data(), out);
    return;
  }
  auto at = [&](int k, int p) { return in[k].values[in[k].uniform ? 0 : p]; };
  for (int p = 0; p < n; ++p) {
    for (std::size_t k = 0; k < impl_->vars.size(); ++k) impl_->vars[k] = at(4 + int(k), p);
    out[p] = (*this)(at(0, p), at(1, p), at(2, p), at(3, p));
  }
}

template <class T>
void Expression::fill(const Grid& g, double t, T* out) const {
  if (is_constant()) {
    const T v = T((*this)(0, 0, 0, t));
    std::fill(out, out + g.size(), v);
    return;
  }
  std::vector<double> x(static_cast<std::size_t>(g.n[0]));
  for (index_t i = 0; i < g.n[0]; ++i) x[std::size_t(i)] = g.coord(0, i);
  fill_lines(g.n[1] * g.n[2], 0, g.n[0], x.data(), [&](index_t line, double* xyz) {
    const index_t j = line % g.n[1], k = line / g.n[1];
    xyz[1] = g.coord(1, j);
    xyz[2] = g.coord(2, k);
    return g.index(0, j, k);
  }, t, out);
}

template <class T>
void Expression::fill_lines(index_t lines, int axis, index_t n, const double* along, const LinePlace& place, double t,
                            T* out) const {
  const LineKernel kernel = native_kernel_;
#pragma omp parallel
  {
    std::optional<Expression> local;  // eval_block writes the instance's scratch: a copy per thread
    if (!kernel) local.emplace(*this);
    const double zero = 0;
    std::vector<Input> in(4 + variables_.size(), Input{&zero, true});
    double xyz[3] = {}, values[kBlock];
#pragma omp for schedule(static)
    for (index_t l = 0; l < lines; ++l) {
      T* line = out + place(l, xyz);
      for (int a = 0; a < 3; ++a) in[std::size_t(a)] = {&xyz[a], true};
      in[3] = {&t, true};
      for (index_t i0 = 0; i0 < n; i0 += kBlock) {
        const int m = int(std::min<index_t>(kBlock, n - i0));
        double* dst = values;
        if constexpr (std::is_same_v<T, double>) dst = line + i0;
        if (kernel) {
          kernel(m, axis, along + i0, xyz[0], xyz[1], xyz[2], t, dst);
        } else {
          in[std::size_t(axis)] = {along + i0, false};
          local->eval_block(m, in.data(), dst);
        }
        if constexpr (!std::is_same_v<T, double>)
          for (int k = 0; k < m; ++k) line[i0 + k] = T(values[k]);
      }
    }
  }
}

template void Expression::fill<float>(const Grid&, double, float*) const;
template void Expression::fill<double>(const Grid&, double, double*) const;
template void Expression::fill_lines<float>(index_t, int, index_t, const double*, const LinePlace&, double, float*) const;
template void Expression::fill_lines<double>(index_t, int, index_t, const double*, const LinePlace&, double,
                                             double*) const;

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

double require_finite_expression(const DeckNode& node, const std::string& key, const Expression& e, const Grid& g,
                                 const std::vector<double>& times) {
  if (times.empty()) return 0;
  std::vector<double> values(static_cast<std::size_t>(g.size()));
  double largest = 0;
  for (const double t : times_for(e.uses_time(), times)) {
    e.fill(g, t, values.data());
    require_finite_values(node, key, g, t, values.data());
    largest = std::max(largest, largest_magnitude(g.size(), values.data()));
  }
  return largest;
}

template <class T>
double require_step_gain(const DeckNode& node, const std::string& key, const Grid& g, double d_max, double dt) {
  double gain = 1;
  int worst = 0;
  for (int a = 0; a < g.dim; ++a) {
    gain += 4 * d_max * dt / (g.h(a) * g.h(a));
    if (g.h(a) < g.h(worst)) worst = a;
  }
  const double top = 1 / double(std::numeric_limits<T>::epsilon());
  if (!(gain <= top))
    node.fail(key, fmt::format("{:.3g} is too large for one step in {}: the diffusion number D dt / h^2 = {:.3g} (dt = "
                               "{:.3g}, h = {:.3g} on axis {}) grows values by up to G = 1 + 4 sum D dt / h^2 = {:.3g} "
                               "per stage, which must stay below 1/epsilon = {:.3g} (beyond it the implicit lines lose "
                               "their 1 + ... to rounding and may be singular): a smaller D or time.dt, or a coarser grid",
                               d_max, precision_of<T>() == Precision::float32 ? "float" : "double",
                               d_max * dt / (g.h(worst) * g.h(worst)), dt, g.h(worst), worst, gain, top));
  return gain * gain;
}

template <class T>
double step_headroom(const Grid& g, double gain2) {
  return double(std::numeric_limits<T>::max()) / std::max(gain2, double(g.size()));
}

template <class T>
void require_step_headroom(const DeckNode& node, const std::string& key, const Grid& g, double gain2, double m,
                           double growth, const std::string& why) {
  const double limit = step_headroom<T>(g, gain2) / growth;
  if (!(m <= limit))
    node.fail(key, fmt::format("has values up to {:.3g}, too large for the first step in {}: the step grows them by up "
                               "to {:.3g}{} (and a mean sums {} nodes), so they must stay below {:.3g}",
                               m, precision_of<T>() == Precision::float32 ? "float" : "double", growth * gain2, why,
                               g.size(), limit));
}

template <class T>
void require_step_headroom(const DeckNode& node, const std::string& key, const Grid& g, double gain2, const T* values) {
  require_step_headroom<T>(node, key, g, gain2, largest_magnitude(g.size(), values));
}

template <class T>
double largest_magnitude(index_t n, const T* values) {
  double m = 0;
  for (index_t o = 0; o < n; ++o) m = std::max(m, std::abs(double(values[o])));
  return m;
}

template <class T>
void require_solve_headroom(const DeckNode& node, const std::string& key, const Grid& g, double m, SteadyData kind,
                            double kappa_min, const char* coefficient) {
  double d2 = 0;
  for (int a = 0; a < g.dim; ++a) d2 += (g.hi[a] - g.lo[a]) * (g.hi[a] - g.lo[a]);
  const bool flux = kind == SteadyData::source || kind == SteadyData::neumann;
  const double growth = kind == SteadyData::source ? d2 / (2 * kappa_min)
                        : kind == SteadyData::neumann ? std::sqrt(d2) / kappa_min : 1;
  const std::string k = coefficient, of = kappa_min == 1 ? std::string() : " / " + k;
  const std::string why =
      kind == SteadyData::dirichlet ? std::string("u takes them on the face")
      : kind == SteadyData::exact   ? std::string("the error norms take u minus them")
      : fmt::format("{}, D = {:.3g} the grid's diagonal{}",
                    kind == SteadyData::neumann ? (kappa_min == 1 ? "|du/dn| D" : "|g| D" + of)
                                                : (kappa_min == 1 ? "|f| D^2 / 2" : "|f| D^2 / (2 " + k + ")"),
                    std::sqrt(d2), flux && kappa_min != 1
                                       ? fmt::format(", {} = {:.3g} the smallest", k, kappa_min) : std::string());
  const double n = double(g.size());
  const double limit = std::min(double(std::numeric_limits<T>::max()) / (growth * n),
                                std::sqrt(std::numeric_limits<double>::max() / n) / growth);
  if (!(m <= limit))
    node.fail(key, fmt::format("has values up to {:.3g}, too large for the solve in {}: the solution may reach {:.3g} "
                               "times them ({}), and the run sums its {} values (a mean) and their squares (norms), "
                               "so they must stay below {:.3g}: other units, or a smaller domain",
                               m, precision_of<T>() == Precision::float32 ? "float" : "double", growth, why, g.size(),
                               limit));
}

template double largest_magnitude<float>(index_t, const float*);
template double largest_magnitude<double>(index_t, const double*);
template void require_solve_headroom<float>(const DeckNode&, const std::string&, const Grid&, double, SteadyData,
                                           double, const char*);
template void require_solve_headroom<double>(const DeckNode&, const std::string&, const Grid&, double, SteadyData,
                                            double, const char*);
template double require_step_gain<float>(const DeckNode&, const std::string&, const Grid&, double, double);
template double require_step_gain<double>(const DeckNode&, const std::string&, const Grid&, double, double);
template double step_headroom<float>(const Grid&, double);
template double step_headroom<double>(const Grid&, double);
template void require_step_headroom<float>(const DeckNode&, const std::string&, const Grid&, double, double, double,
                                           const std::string&);
template void require_step_headroom<double>(const DeckNode&, const std::string&, const Grid&, double, double, double,
                                            const std::string&);
template void require_step_headroom<float>(const DeckNode&, const std::string&, const Grid&, double, const float*);
template void require_step_headroom<double>(const DeckNode&, const std::string&, const Grid&, double, const double*);
template void require_finite_values<float>(const DeckNode&, const std::string&, const Grid&, double, const float*);
template void require_finite_values<double>(const DeckNode&, const std::string&, const Grid&, double, const double*);

}  // namespace tridsim
