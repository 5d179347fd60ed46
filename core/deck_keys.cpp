#include "core/deck_keys.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "core/errors.hpp"
#include "core/names.hpp"

namespace tridsim {

namespace {

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> out;
  std::stringstream ss(path);
  for (std::string p; std::getline(ss, p, '.');) out.push_back(p);
  return out;
}

bool segment_matches(const std::string& pattern, const std::string& key) {
  if (pattern.size() < 2 || pattern.front() != '<' || pattern.back() != '>') return pattern == key;
  if (pattern == "<face>")
    return key == "x-" || key == "x+" || key == "y-" || key == "y+" || key == "z-" || key == "z+" || key == "all";
  if (pattern == "<axis>") return key == "x" || key == "y" || key == "z";
  return true;  // a name the user chooses
}

}  // namespace

bool key_matches(const std::string& pattern, const std::string& path) {
  const auto p = split_path(pattern), k = split_path(path);
  if (p.size() != k.size()) return false;
  for (std::size_t i = 0; i < p.size(); ++i)
    if (!segment_matches(p[i], k[i])) return false;
  return true;
}

const KeySpec* find_key(const KeyTable& table, const std::string& path) {
  // A key spelt out beats a pattern (boundary.all is listed and also matches <face>).
  const KeySpec* pattern = nullptr;
  for (const auto& spec : table) {
    if (spec.path == path) return &spec;
    if (!pattern && key_matches(spec.path, path)) pattern = &spec;
  }
  return pattern;
}

bool default_is_value(const KeySpec& spec) {
  return !spec.default_value.empty() && spec.default_value.front() != '(';
}

const std::string& key_default(const KeyTable& table, const std::string& path) {
  const KeySpec* spec = find_key(table, path);
  if (!spec) throw Error("the key table lists no key " + path + " (whose default the deck reader asks for)");
  if (!default_is_value(*spec))
    throw Error("the key table gives no default value for " + path + " (the deck reader asks for one)");
  return spec->default_value;
}

namespace {
// Each shape's words: its name in the printed table, and the phrase a reader's error says.
struct ShapeWords {
  KeyShape bit;
  const char *name, *phrase;
};
constexpr ShapeWords kShapeWords[] = {
    {kInteger, "integer", "an integer"},
    {kNumber, "number", "a number"},
    {kExpression, "expression", "an expression"},
    {kChoice, "name", "a name"},
    {kText, "string", "a string"},
    {kBool, "true/false", "true or false"},
    {kNumbers, "list of numbers", "a list of numbers"},
    {kIntegers, "list of integers", "a list of integers"},
    {kTexts, "list of strings", "a list of strings"},
    {kMatrix, "list of lists of expressions", "a list of lists"},
    {kSection, "section", "a map of keys"},
    {kOpaque, "section", "a map of keys"}};

std::string shape_words(unsigned shape, const char* ShapeWords::*which) {
  std::vector<std::string> parts;
  for (const ShapeWords& w : kShapeWords)
    if ((shape & w.bit) && std::find(parts.begin(), parts.end(), w.*which) == parts.end()) parts.emplace_back(w.*which);
  return list_names(parts);
}
}  // namespace

std::string shape_name(unsigned shape) { return shape_words(shape, &ShapeWords::name); }
std::string shape_phrase(unsigned shape) { return shape_words(shape, &ShapeWords::phrase); }

std::string format_key_table(const KeyTable& table) {
  std::size_t wk = 3, wt = 4, wd = 7, wu = 4;
  for (const auto& s : table) {
    if (s.shape == 0) continue;  // (a key read only to refuse it)
    wk = std::max(wk, s.path.size());
    wt = std::max(wt, shape_name(s.shape).size());
    wd = std::max(wd, s.default_value.size());
    wu = std::max(wu, s.unit.size());
  }
  std::string out = fmt::format("{:{}}  {:{}}  {:{}}  {:{}}  {:8}  {}\n", "key", wk, "type", wt, "default", wd, "unit",
                                wu, "required", "what");
  for (const auto& s : table)
    if (s.shape != 0)
      out += fmt::format("{:{}}  {:{}}  {:{}}  {:{}}  {:8}  {}\n", s.path, wk, shape_name(s.shape), wt,
                       s.default_value.empty() ? "-" : s.default_value, wd, s.unit.empty() ? "-" : s.unit, wu,
                       s.required ? "yes" : "no", s.description);
  return out;
}

}  // namespace tridsim
