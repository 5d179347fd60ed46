#pragma once
// One table per choice (namespace tridsim): the names of an enum's values, read by parsing (decks,
// the command line), printing and the lists of valid names in errors.
//
//   inline constexpr NameEntry<Method> kMethodNames[] = {
//       {"auto", Method::automatic}, {"bcr", Method::bcr, "block cyclic reduction"}};
//   Method m = section.get_enum("method", kMethodNames, Method::automatic);   // core/deck.hpp
//   name_of(kMethodNames, m)                                                  // "bcr"
//
// A value may appear under several names (aliases); its first entry is its printed name.
// Names match ASCII case-insensitively. C++17 (CUDA sources include this through core/types.hpp).
#include <iterator>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace tridsim {

template <class E>
struct NameEntry {
  const char* name;
  E value;
  const char* description = "";  // a few words, for listings such as `tridsim info`
};

// The value type of a name table (a C array, std::array, span or vector of NameEntry).
template <class Table>
using name_value_t = std::remove_cv_t<std::remove_reference_t<decltype(std::data(std::declval<const Table&>())->value)>>;

// ASCII case-insensitive equality.
bool same_name(std::string_view a, std::string_view b);

// The value named `word`, or nullopt.
template <class Table>
std::optional<name_value_t<Table>> parse_name(const Table& table, std::string_view word) {
  for (const auto& e : table)
    if (same_name(word, e.name)) return e.value;
  return std::nullopt;
}

// The printed name of `value`: its first entry; "?" if it has none.
template <class Table>
constexpr const char* name_of(const Table& table, const name_value_t<Table>& value) {
  for (const auto& e : table)
    if (e.value == value) return e.name;
  return "?";
}

// Every name of the table (aliases included), in table order.
template <class Table>
std::vector<std::string> names_of(const Table& table) {
  std::vector<std::string> out;
  for (const auto& e : table) out.emplace_back(e.name);
  return out;
}

// "a, b or c".
std::string list_names(const std::vector<std::string>& names);

// "expected a, b or c, got 'word'; did you mean 'b'?" (the suggestion when one is close).
std::string unknown_name_message(std::string_view word, const std::vector<std::string>& names);

// Closest candidate by edit distance, or "" if none is close.
std::string closest_match(const std::string& word, const std::set<std::string>& candidates);

}  // namespace tridsim
