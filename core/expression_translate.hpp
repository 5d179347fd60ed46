#pragma once
// Deck expressions (muparser syntax) translated into CUDA C++ (namespace tridsim): a `double`
// expression of the variables x, y, z, t, with the deck's named constants inlined. The GPU compiles
// it with NVRTC (core/device_expression.hpp); muparser stays the CPU's evaluator. Supported, as
// muparser 2.3:
//   numbers (2, .5, 1e-3), x y z t, named constants, pi e _pi _e;
//   + - * / ^ (right-associative, above unary minus: -2^2 = -4), unary + -,
//   < > <= >= == != (1 or 0), && ||, c ? a : b (lowest, right-associative);
//   sin cos tan asin acos atan atan2 sinh cosh tanh asinh acosh atanh log2 log10 log ln exp sqrt
//   sign rint abs, and the variadic sum avg min max.
// Functions whose muparser definition differs from C's (abs, sign, rint, log2, asinh, acosh,
// atanh, min, max) call helpers from device_expression_prelude() that copy muparser's formulas.
#include <string>
#include <utility>
#include <vector>

#include "core/expression.hpp"

namespace tridsim {

// Throws Error naming the offending token, its position and what is valid there. Further
// variables (name, CUDA spelling), e.g. {"u", "v[0]"}, translate to their spelling.
using TranslatedVariables = std::vector<std::pair<std::string, std::string>>;
std::string translate_expression(const std::string& text, const Constants& constants,
                                 const TranslatedVariables& variables = {});
// The same for the expression under `key` of a deck map; errors are DeckErrors at its line.
std::string translate_expression_from_deck(const DeckNode& node, const std::string& key, const Constants& constants,
                                           const TranslatedVariables& variables = {});
// CUDA C++ definitions of the helpers that translated expressions call (tr_abs, tr_min, ...).
const char* device_expression_prelude();

}  // namespace tridsim
