#pragma once
// The input deck (namespace tridsim): YAML turned into typed values, with file:line in every error.
// A module asks for the keys it knows (get, get_or_default, get_enum, get_file, child, has);
// whatever the deck holds that nobody asked for is an unknown key, reported by check_unknown_keys()
// with a suggestion. A key left out takes the default its key table gives (core/deck_keys.hpp).
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "core/deck_keys.hpp"
#include "core/errors.hpp"
#include "core/names.hpp"

namespace tridsim {

namespace detail {
struct DeckState;
}

// The default of the key `path` in its key table, read as the deck reads a value of type T (so the
// table's "[hdf5, vtk, csv]" is a list of strings); Error where the table gives none of that type.
template <class T>
T table_default(const KeyTable& keys, const std::string& path);
// The same for a choice: the value its name table gives the default's name.
template <class Table>
name_value_t<Table> table_default_choice(const KeyTable& keys, const std::string& path, const Table& names) {
  const std::string word = table_default<std::string>(keys, path);
  if (auto value = parse_name(names, word)) return *value;
  throw Error("the key table's default of " + path + " is '" + word + "', which is none of " +
              list_names(names_of(names)));
}

class DeckNode {
 public:
  DeckNode(std::shared_ptr<detail::DeckState> state, YAML::Node node, std::string path);

  const std::string& path() const { return path_; }
  bool has(const std::string& key) const;
  // Required value; throws DeckError (file, line, key, expected type) if missing or mistyped.
  template <class T>
  T get(const std::string& key) const;
  // An optional key: the deck's value, else the default of its key table `keys` (table_default).
  template <class T>
  T get_or_default(const std::string& key, const KeyTable& keys) const {
    return has(key) ? get<T>(key) : table_default<T>(keys, key_path(key));
  }
  // An optional key whose default the reader works out (the table describes it in words).
  template <class T>
  T get_or(const std::string& key, const T& fallback) const {
    if (has(key)) return get<T>(key);
    note_own_default(key);
    return fallback;
  }
  // A choice named by a string, read through the choice's name table (core/names.hpp):
  // case-insensitive; an unknown name throws DeckError listing the valid ones.
  template <class Table>
  name_value_t<Table> get_enum(const std::string& key, const Table& table) const {
    const auto word = get<std::string>(key);
    if (auto value = parse_name(table, word)) return *value;
    fail(key, unknown_name_message(word, names_of(table)));
  }
  template <class Table>
  name_value_t<Table> get_enum_or_default(const std::string& key, const Table& table, const KeyTable& keys) const {
    return has(key) ? get_enum(key, table) : table_default_choice(keys, key_path(key), table);
  }
  template <class Table>
  name_value_t<Table> get_enum(const std::string& key, const Table& table, const name_value_t<Table>& fallback) const {
    if (has(key)) return get_enum(key, table);
    note_own_default(key);
    return fallback;
  }
  // An existing input file named by a string key. A relative name is looked up beside the deck
  // file first, then in the current directory; if neither holds it, DeckError lists the paths tried.
  std::filesystem::path get_file(const std::string& key) const;
  // A required or optional sub-map.
  DeckNode child(const std::string& key) const;
  std::optional<DeckNode> maybe_child(const std::string& key) const;
  bool is_map(const std::string& key) const;
  // Whether the key holds a list, or a single string (not a number).
  bool is_list(const std::string& key) const;
  bool is_text(const std::string& key) const;
  // Keys present in this map (e.g. for user-named constants); marks them all as known.
  std::vector<std::string> keys() const;

  // "deck.yaml:12" for a key of this map (or the map itself when key is empty).
  std::string where(const std::string& key = "") const;
  std::string key_path(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }
  [[noreturn]] void fail(const std::string& key, const std::string& what) const;
  // "missing required key", pointing at a present key that looks like a misspelling of it.
  [[noreturn]] void fail_missing(const std::string& key, const std::string& expected) const;
  // Check a value: throws "<key>: must be <requirement>, got <value>" unless ok.
  template <class T>
  void require(bool ok, const std::string& key, const T& value, const std::string& requirement) const;

 private:
  YAML::Node lookup(const std::string& key) const;
  void note_own_default(const std::string& key) const;
  std::shared_ptr<detail::DeckState> state_;
  YAML::Node node_;
  std::string path_;
};

// A key naming one choice for every axis, or a map {x: ..., y: ..., z: ...} (the key left out, or
// an axis: the key table's default): choose(node, key, name, axis) for the axes 0..dim-1, with the
// map and key that hold that axis's name (so that an error points at its line).
template <class Choose>
void for_each_axis_choice(const DeckNode& s, const std::string& key, int dim, const KeyTable& keys,
                          const Choose& choose) {
  static constexpr const char* axes[] = {"x", "y", "z"};
  const bool per_axis = s.has(key) && s.is_map(key);
  const std::optional<DeckNode> map = per_axis ? std::optional<DeckNode>(s.child(key)) : std::nullopt;
  const std::string all = per_axis ? "" : s.get_or_default<std::string>(key, keys);
  for (int a = 0; a < dim; ++a) {
    if (per_axis) choose(*map, std::string(axes[a]), map->get_or_default<std::string>(axes[a], keys), a);
    else choose(s, key, all, a);
  }
}

class Deck {
 public:
  static Deck load(const std::filesystem::path& file);
  static Deck parse(const std::string& text, const std::string& name);

  // Override (or add) a key from the command line: "heat.scheme=douglas", "grid.n=[64,64]".
  void set(const std::string& assignment);
  DeckNode root() const;
  // Throws DeckError for the first key nobody asked for, with a "did you mean" suggestion.
  void check_unknown_keys() const;
  const std::string& file() const;
  // The deck as YAML text after the --set overrides.
  std::string resolved_text() const;
  // Every problem the key table finds in one pass, in the deck's order: unknown keys (with the
  // closest valid one), missing required keys and values of the wrong type, each at its line.
  std::vector<DeckError> check_against(const KeyTable& table) const;
  // The dotted paths of every key the reader asked for so far (present in the deck or not).
  std::vector<std::string> asked_keys() const;
  // The keys the deck left out for which the reader used a default of its own (get_or, get_enum
  // with a fallback), not its key table's.
  std::vector<std::string> own_defaults() const;

 private:
  std::shared_ptr<detail::DeckState> state_;
};

}  // namespace tridsim
