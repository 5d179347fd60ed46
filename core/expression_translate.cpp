#include "core/expression_translate.hpp"

#include <muParser.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <numbers>
#include <vector>

#include "core/deck.hpp"
#include "core/errors.hpp"

namespace tridsim {

namespace {

// Binary operators and their muparser precedence (prLOR .. prPOW); unary +- sit at 6.
struct BinaryOp {
  const char* text;
  int prec;
};
constexpr BinaryOp binary_ops[] = {{"||", 1}, {"&&", 2}, {"<=", 4}, {">=", 4}, {"!=", 4}, {"==", 4}, {"<", 4},
                                   {">", 4},  {"+", 5},  {"-", 5},  {"*", 6},  {"/", 6},  {"^", 7}};
constexpr int unary_prec = 6;

// Functions: name, CUDA spelling, arguments (-1: one or more).
struct Function {
  const char* name;
  const char* code;
  int args;
};
constexpr Function functions[] = {
    {"sin", "sin", 1},       {"cos", "cos", 1},       {"tan", "tan", 1},       {"asin", "asin", 1},
    {"acos", "acos", 1},     {"atan", "atan", 1},     {"atan2", "atan2", 2},   {"sinh", "sinh", 1},
    {"cosh", "cosh", 1},     {"tanh", "tanh", 1},     {"asinh", "tr_asinh", 1}, {"acosh", "tr_acosh", 1},
    {"atanh", "tr_atanh", 1}, {"log2", "tr_log2", 1}, {"log10", "log10", 1},   {"log", "log", 1},
    {"ln", "log", 1},        {"exp", "exp", 1},       {"sqrt", "sqrt", 1},     {"sign", "tr_sign", 1},
    {"rint", "tr_rint", 1},  {"abs", "tr_abs", 1},    {"sum", nullptr, -1},    {"avg", nullptr, -1},
    {"min", "tr_min", -1},   {"max", "tr_max", -1}};

std::string function_list() {
  std::string s;
  for (const auto& f : functions) s += (s.empty() ? "" : ", ") + std::string(f.name);
  return s;
}

// A double as a C++ literal that reads back to the same value.
std::string literal(double v) {
  if (std::isnan(v)) return "__longlong_as_double(0x7ff8000000000000LL)";
  if (std::isinf(v)) return v > 0 ? "__longlong_as_double(0x7ff0000000000000LL)" : "(-__longlong_as_double(0x7ff0000000000000LL))";
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);  // shortest round-trip form
  std::string s(buf, r.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return v < 0 || std::signbit(v) ? "(" + s + ")" : s;
}

// What a parsed operand is: muparser turns var^2, var^3, var^4 into products (bitwise x*x...).
struct Code {
  std::string text;
  enum Kind { number, variable, other } kind = other;
  double value = 0;
};

class Translator {
 public:
  Translator(const std::string& text, const Constants& constants, const TranslatedVariables& variables)
      : s_(text), constants_(constants), variables_(variables) {}

  std::string run() {
    next();
    if (tok_.empty()) fail("the expression is empty");
    Code c = ternary();
    if (tok_ == ",") fail("several comma-separated expressions are not supported on the GPU");
    if (tok_ == "=") fail("assignment '=' is not supported on the GPU");
    if (!tok_.empty()) unexpected("an operator or the end of the expression");
    return c.text;
  }

 private:
  // ---- tokens: numbers, names, operators; tok_ is empty at the end -------------------------
  void next() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) ++pos_;
    at_ = pos_;
    kind_ = Tok::op;
    if (pos_ >= s_.size()) {
      tok_.clear();
      return;
    }
    const char c = s_[pos_];
    auto digit = [&](std::size_t i) { return i < s_.size() && s_[i] >= '0' && s_[i] <= '9'; };
    if (digit(pos_) || (c == '.' && digit(pos_ + 1))) {
      std::size_t i = pos_;
      while (digit(i)) ++i;
      if (i < s_.size() && s_[i] == '.') ++i;
      while (digit(i)) ++i;
      if (i < s_.size() && (s_[i] == 'e' || s_[i] == 'E')) {
        std::size_t j = i + 1;
        if (j < s_.size() && (s_[j] == '+' || s_[j] == '-')) ++j;
        if (!digit(j)) {
          tok_ = s_.substr(pos_, j - pos_);
          fail("malformed number '" + tok_ + "' (an exponent needs digits, e.g. 1e-3)");
        }
        i = j;
        while (digit(i)) ++i;
      }
      tok_ = s_.substr(pos_, i - pos_);
      number_ = std::strtod(tok_.c_str(), nullptr);  // correctly rounded, as muparser's stream read
      kind_ = Tok::number;
      pos_ = i;
      return;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::size_t i = pos_;
      while (i < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i])) || s_[i] == '_')) ++i;
      tok_ = s_.substr(pos_, i - pos_);
      kind_ = Tok::name;
      pos_ = i;
      return;
    }
    for (const char* two : {"<=", ">=", "!=", "==", "&&", "||"})
      if (s_.compare(pos_, 2, two) == 0) {
        tok_.assign(s_, pos_, 2);
        pos_ += 2;
        return;
      }
    if (std::string("<>+-*/^(),?:=").find(c) == std::string::npos) {
      tok_ = std::string(1, c);
      fail("unexpected character '" + tok_ + "' (operators: + - * / ^ < > <= >= == != && || ?: and parentheses)");
    }
    tok_ = std::string(1, c);
    ++pos_;
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw Error("cannot compile expression " + quoted(s_) + " for the GPU: " + what + " at position " +
                std::to_string(at_));
  }
  [[noreturn]] void unexpected(const std::string& wanted) const {
    if (tok_.empty()) fail("unexpected end of expression, expected " + wanted);
    fail("unexpected '" + tok_ + "', expected " + wanted);
  }
  void expect(const char* t, const std::string& wanted) {
    if (kind_ != Tok::op || tok_ != t) unexpected(wanted);
    next();
  }

  // ---- grammar, lowest precedence first ------------------------------------------------------
  Code ternary() {
    Code c = binary(1);
    if (kind_ != Tok::op || tok_ != "?") return c;
    next();
    Code a = ternary();
    expect(":", "':' of the ternary c ? a : b");
    Code b = ternary();
    return {"((" + c.text + ") ? " + a.text + " : " + b.text + ")"};
  }

  const BinaryOp* binary_op() const {
    if (kind_ != Tok::op) return nullptr;
    for (const auto& op : binary_ops)
      if (tok_ == op.text) return &op;
    return nullptr;
  }

  // Precedence climbing; ^ is right-associative, the others left.
  Code binary(int min_prec) {
    Code lhs = unary();
    while (const BinaryOp* op = binary_op()) {
      if (op->prec < min_prec) break;
      next();
      const std::string o = op->text;
      Code rhs = binary(o == "^" ? op->prec : op->prec + 1);
      lhs = combine(o, lhs, rhs);
    }
    return lhs;
  }

  static Code combine(const std::string& o, const Code& a, const Code& b) {
    if (o == "^") {
      if (a.kind == Code::variable && b.kind == Code::number && (b.value == 2 || b.value == 3 || b.value == 4)) {
        std::string p = a.text;  // muparser's var^n with n = 2, 3, 4: ((x*x)*x)*x
        for (int i = 1; i < int(b.value); ++i) p = "(" + p + " * " + a.text + ")";
        return {p};
      }
      return {"pow(" + a.text + ", " + b.text + ")"};
    }
    if (o == "+" || o == "-" || o == "*" || o == "/") return {"(" + a.text + " " + o + " " + b.text + ")"};
    return {"((double)(" + a.text + " " + o + " " + b.text + "))"};  // comparisons and logic: 1 or 0
  }

  Code unary() {
    if (kind_ == Tok::op && (tok_ == "-" || tok_ == "+")) {
      const std::string sign = tok_;
      next();
      if (kind_ == Tok::op && (tok_ == "-" || tok_ == "+")) unexpected("a value after unary '" + sign + "'");
      Code c = binary(unary_prec + 1);  // unary minus binds below ^: -2^2 = -(2^2)
      if (sign == "+") return c;
      if (c.kind == Code::number) return {"(-" + c.text + ")", Code::number, -c.value};
      return {"(-" + c.text + ")"};
    }
    return primary();
  }

  Code primary() {
    if (kind_ == Tok::number) {
      Code c{literal(number_), Code::number, number_};
      next();
      return c;
    }
    if (kind_ == Tok::op && tok_ == "(") {
      next();
      Code c = ternary();
      expect(")", "')'");
      return c;
    }
    if (kind_ != Tok::name) unexpected("a number, a name or '('");
    const std::string name = tok_;
    const std::size_t at = at_;
    next();
    if (kind_ == Tok::op && tok_ == "(") return call(name, at);
    // Lookup order as muparser's: user constants shadow pi/e, _pi/_e and even x, y, z, t.
    if (auto it = constants_.find(name); it != constants_.end()) return {literal(it->second), Code::number, it->second};
    if (name == "pi") return {literal(std::numbers::pi), Code::number, std::numbers::pi};
    if (name == "e") return {literal(std::numbers::e), Code::number, std::numbers::e};
    static const auto builtin = mu::Parser().GetConst();  // _pi, _e: muparser's own values
    for (const auto& [n, v] : builtin)
      if (n == name) return {literal(v), Code::number, v};
    if (name == "x" || name == "y" || name == "z" || name == "t") return {name, Code::variable};
    for (const auto& [v, code] : variables_)
      if (name == v) return {code, Code::variable};
    at_ = at;
    for (const auto& f : functions)
      if (name == f.name) fail("function '" + name + "' needs its arguments in parentheses");
    std::string names;
    for (const auto& [n, v] : constants_) names += ", " + n;
    std::string vars;
    for (const auto& [v, code] : variables_) vars += ", " + v;
    fail("unknown name '" + name + "' (variables: x, y, z, t" + vars + "; constants: pi, e, _pi, _e" + names + ")");
  }

  Code call(const std::string& name, std::size_t at) {
    const Function* f = nullptr;
    for (const auto& g : functions)
      if (name == g.name) f = &g;
    if (!f) {
      at_ = at;
      fail("unknown function '" + name + "' (functions: " + function_list() + ")");
    }
    next();  // '('
    std::vector<Code> args;
    if (kind_ == Tok::op && tok_ == ")") fail("function '" + name + "' needs at least one argument");
    for (;;) {
      args.push_back(ternary());
      if (kind_ == Tok::op && tok_ == ",") {
        next();
        continue;
      }
      expect(")", "',' or ')' closing the arguments of '" + name + "'");
      break;
    }
    if (f->args > 0 && int(args.size()) != f->args) {
      at_ = at;
      fail("function '" + name + "' takes " + std::to_string(f->args) + " argument" + (f->args > 1 ? "s" : "") +
           ", got " + std::to_string(args.size()));
    }
    const std::string n = std::to_string(args.size()) + ".0";
    if (f->args > 0) {
      std::string s = std::string(f->code) + "(" + args[0].text;
      for (std::size_t i = 1; i < args.size(); ++i) s += ", " + args[i].text;
      return {s + ")"};
    }
    if (!f->code) {  // sum and avg: 0 + a0 + a1 + ... in order, as muparser
      std::string s = "0.0";
      for (const auto& a : args) s = "(" + s + " + " + a.text + ")";
      return {name == "avg" ? "(" + s + " / " + n + ")" : s};
    }
    std::string s = args[0].text;  // min and max fold left from the first argument
    for (std::size_t i = 1; i < args.size(); ++i) s = std::string(f->code) + "(" + s + ", " + args[i].text + ")";
    return {s};
  }

  enum class Tok { number, name, op };
  const std::string& s_;
  const Constants& constants_;
  const TranslatedVariables& variables_;
  std::size_t pos_ = 0, at_ = 0;
  std::string tok_;
  Tok kind_ = Tok::op;
  double number_ = 0;
};

}  // namespace

std::string translate_expression(const std::string& text, const Constants& constants,
                                 const TranslatedVariables& variables) {
  return Translator(text, constants, variables).run();
}

std::string translate_expression_from_deck(const DeckNode& node, const std::string& key, const Constants& constants,
                                           const TranslatedVariables& variables) {
  const std::string text = node.get<std::string>(key);
  try {
    return translate_expression(text, constants, variables);
  } catch (const Error& e) {
    throw DeckError(node.where(key), node.key_path(key), e.what());
  }
}

const char* device_expression_prelude() {
  // muparser 2.3's definitions (muParserTemplateMagic.h), not C's: e.g. abs(-0) = -0,
  // sign(NaN) = 0, rint(-2.5) = -2, asinh(-1e-20) = 0; min/max are std::min/std::max.
  return R"(
__device__ __forceinline__ double tr_abs(double v) { return v >= 0 ? v : -v; }
__device__ __forceinline__ double tr_sign(double v) { return v < 0 ? -1.0 : v > 0 ? 1.0 : 0.0; }
__device__ __forceinline__ double tr_rint(double v) { return floor(v + 0.5); }
__device__ __forceinline__ double tr_log2(double v) { return log(v) / log(2.0); }
__device__ __forceinline__ double tr_asinh(double v) { return log(v + sqrt(v * v + 1)); }
__device__ __forceinline__ double tr_acosh(double v) { return log(v + sqrt(v * v - 1)); }
__device__ __forceinline__ double tr_atanh(double v) { return 0.5 * log((1 + v) / (1 - v)); }
__device__ __forceinline__ double tr_min(double a, double b) { return b < a ? b : a; }
__device__ __forceinline__ double tr_max(double a, double b) { return a < b ? b : a; }
)";
}

}  // namespace tridsim
