#include "app/deck_keys.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "core/backend.hpp"
#include "core/names.hpp"
#include "core/types.hpp"

namespace tridsim {

KeyTable driver_keys(bool steady) {
  KeyTable t = {
      {"name", kText, "(the deck's file name)", "", false, "the base name of every output file"},
      {"description", kText, "", "", false, "free text for the reader (not used)"},
      {"module", kChoice, "", "", true, "the module that solves the deck (tridsim info lists them)"},
      {"precision", kChoice, "double", "", false, list_names(names_of(kPrecisionNames))},
      {"backend", kChoice, "cpu", "", false, list_names(names_of(kBackendNames)) + " (auto: the GPU when present)"},
      {"threads", kInteger, "0", "", false, "OpenMP threads (0: all cores)"},
      {"constants", kSection, "", "", false, "named numbers usable in every expression"},
      {"constants.<name>", kNumber, "", "", false, "a finite constant (not x, y, z, t, pi, e)"},
      {"grid", kSection, "", "", true, "the grid: nodes include the boundary"},
      {"grid.n", kIntegers, "", "", true, "nodes per axis (1 to 3 axes, each at least 2)"},
      {"grid.lo", kNumbers, "(0 on each axis)", "length", false, "the lower corner"},
      {"grid.hi", kNumbers, "(1 on each axis)", "length", false, "the upper corner"},
      {"grid.x", kNumbers | kExpression, "(uniform)", "length", false,
       "a stretched x axis: its node coordinates, or an expression of x mapping the uniform nodes of [lo, hi]"},
      {"grid.y", kNumbers | kExpression, "(uniform)", "length", false, "a stretched y axis (as grid.x)"},
      {"grid.z", kNumbers | kExpression, "(uniform)", "length", false, "a stretched z axis (as grid.x)"},
      {"parallel", kSection, "", "", false, "under mpirun: the process grid"},
      {"parallel.ranks", kIntegers, "(balanced)", "", false, "ranks per axis, one count per axis of grid.n"},
  };
  if (steady)  // (read only to refuse it)
    t.push_back({"time", 0, "", "", false, "a steady problem takes no time section"});
  else {
    t.insert(t.end(), {
        {"time", kSection, "", "", true, "the time steps (give end or steps)"},
        {"time.dt", kNumber, "", "time", true, "the time step"},
        {"time.end", kNumber, "", "time", false, "the final time (or steps)"},
        {"time.steps", kInteger, "", "", false, "the number of steps (or end)"},
        {"time.start", kNumber, "0", "time", false, "the start time"},
    });
  }
  t.insert(t.end(), {
      {"output", kSection, "", "", false, "what is written, where and when"},
      {"output.dir", kText, "(output/NAME)", "", false, "the output folder (relative: to the current directory)"},
      {"output.every", kInteger, "(a tenth of the steps)", "", false,
       "fields every N steps and the first and last (with times or interval: none)"},
      {"output.times", kNumbers, "", "time", false, "and/or fields at these times"},
      {"output.interval", kNumber, "", "time", false, "and/or fields at start + k * interval"},
      {"output.diagnostics_every", kInteger, "1", "", false, "a CSV row every N steps"},
      {"output.formats", kTexts, "[hdf5, vtk, csv]", "", false, "the writers (tridsim info lists them)"},
      {"output.checkpoint", kSection, "", "", false, "restart files"},
      {"output.checkpoint.every", kInteger, "0", "", false, "every N steps (0: none)"},
      {"output.checkpoint.wall", kNumber, "0", "s", false, "every S seconds of wall time (0: none)"},
      {"output.checkpoint.keep", kInteger, "2", "", false, "the newest K files kept"},
  });
  return t;
}

KeyTable deck_key_table(const ModuleInfo& module) {
  KeyTable t = driver_keys(module.create(Precision::float64)->steady());
  if (module.keys.empty()) t.push_back({module.name, kOpaque, "", "", true, "the module's section"});
  t.insert(t.end(), module.keys.begin(), module.keys.end());
  return t;
}

namespace {
long line_of(const DeckError& e) {  // "deck.yaml:12" -> 12; the command line and the file itself: 0
  const auto colon = e.where().rfind(':');
  try {
    return colon == std::string::npos ? 0 : std::stol(e.where().substr(colon + 1));
  } catch (const std::exception&) {
    return 0;
  }
}
}  // namespace

DeckError several_errors(const std::string& file, std::vector<DeckError> errors) {
  std::stable_sort(errors.begin(), errors.end(), [](const auto& a, const auto& b) { return line_of(a) < line_of(b); });
  std::string text = fmt::format("{} errors:", errors.size());
  for (const auto& e : errors) text += "\n  " + std::string(e.what());
  return DeckError(file, "", text);
}

void audit_key_table(const Deck& deck, const KeyTable& table) {
  if (!std::getenv("TRIDSIM_AUDIT_KEY_TABLE")) return;
  std::string missing;
  for (const auto& key : deck.asked_keys())
    if (!find_key(table, key)) missing += " " + key;
  if (!missing.empty()) throw Error("keys read by the deck reader but missing from the key table:" + missing);
  std::string own;
  for (const auto& key : deck.own_defaults())
    if (const KeySpec* spec = find_key(table, key); spec && default_is_value(*spec))
      own += fmt::format(" {} (the table's: {})", key, spec->default_value);
  if (!own.empty())
    throw Error("keys left out that the deck reader gave a default of its own, not the key table's:" + own);
}

namespace {
// Whether the deck text holds the dotted key path (user-named segments do not count).
bool holds(const YAML::Node& root, const std::string& path) {
  YAML::Node n = root;
  std::stringstream ss(path);
  for (std::string part; std::getline(ss, part, '.');) {
    if (!n.IsMap() || part.front() == '<') return false;
    const YAML::Node& cn = n;
    const YAML::Node next = cn[part];
    if (!next.IsDefined()) return false;
    n.reset(next);
  }
  return true;
}
}  // namespace

std::string template_deck(const ModuleInfo& module) {
  const KeyTable table = deck_key_table(module);
  std::string out = fmt::format(
      "# A {0} deck, written by `tridsim new {0}`. It runs as it is:\n"
      "#   tridsim check {0}.yaml && tridsim run {0}.yaml\n"
      "# {1}\n"
      "# `tridsim info {0}` lists every key with its type, default, unit and whether it is required.\n\n",
      module.name, module.description);
  out += module.example;
  const YAML::Node given = YAML::Load(module.example);
  std::string rest;
  for (const auto& k : table) {
    if (k.shape == 0 || holds(given, k.path)) continue;
    const std::string value = k.default_value.empty() ? "" : " " + k.default_value;
    rest += fmt::format("#   {}:{}  -- {}{}{}\n", k.path, value, shape_name(k.shape), k.unit.empty() ? "" : ", " + k.unit,
                        k.required ? ", required" : "");
    rest += fmt::format("#       {}\n", k.description);
  }
  if (!rest.empty()) out += "\n# The other keys (dotted paths; <face>, <axis>, <name>: a key you name), with their defaults:\n" + rest;
  return out;
}

std::string key_reference(const ModuleInfo& module) {
  return fmt::format("module {}: {}\nEvery key of its decks (<face>: x-, x+, y-, y+, z-, z+ or all; <axis>: x, y or z; "
                     "<...>: a name you choose):\n{}",
                     module.name, module.description, format_key_table(deck_key_table(module)));
}

}  // namespace tridsim
