#pragma once
// Declarative key tables (namespace tridsim): every key a deck may hold, with its type, default,
// unit, whether it is required and one line saying what it does. One table per module (and one
// for the driver's sections); the deck reader checks a deck against it before anything is read
// (Deck::check_against: unknown keys, missing required keys, wrong types, all reported at once),
// `tridsim info MODULE` prints it and `tridsim new MODULE` writes a template from it, so the
// three cannot drift. A reader takes each key's default from the table (DeckNode::get_or_default),
// so what `tridsim info` prints is what a run does. A test (deck_keys) fails where the reader reads
// a key the table lacks, or falls back to a default of its own where the table gives one.
#include <string>
#include <vector>

namespace tridsim {

// What a key's value may be: a bit set (a key may take several shapes: a number or a map).
enum KeyShape : unsigned {
  kInteger = 1u << 0,
  kNumber = 1u << 1,     // any finite or not number (integers too)
  kText = 1u << 2,       // a string (names, file names)
  kExpression = 1u << 3,  // a muparser expression: a number or a string
  kChoice = 1u << 4,     // a name from the key's table of names (checked by the reader)
  kBool = 1u << 5,
  kNumbers = 1u << 6,    // a list of numbers
  kIntegers = 1u << 7,   // a list of integers
  kTexts = 1u << 8,      // a list of strings
  kSection = 1u << 9,    // a map of keys (listed in the table below it)
  kOpaque = 1u << 10,    // a map whose keys the table does not list (a module without a table)
  kMatrix = 1u << 11,    // a list of lists of expressions (rows)
};

struct KeySpec {
  // Dotted path from the deck's root. A segment in angle brackets stands for keys the user
  // names: <face> is x-, x+, y-, y+, z-, z+ or all; <axis> x, y or z; any other (<name>,
  // <species>) any key.
  std::string path;
  unsigned shape = 0;
  // As a deck would spell it (the reader takes it from here); in parentheses, words for a default
  // the reader works out ("(a tenth of the steps)"); empty: none (or see the description).
  std::string default_value;
  std::string unit;           // empty: none (a name, a count, ...)
  bool required = false;      // within its section, when the section is present
  std::string description;
};
using KeyTable = std::vector<KeySpec>;

// Whether `path` (dotted, user keys spelt out) is an instance of the pattern `pattern`.
bool key_matches(const std::string& pattern, const std::string& path);
// The entry for a key path, or null.
const KeySpec* find_key(const KeyTable& table, const std::string& path);
// Whether the key's default is a value a deck could give (not empty, not words in parentheses).
bool default_is_value(const KeySpec& spec);
// The default of the key `path` (dotted, user keys spelt out) as a deck spells it. Throws Error
// where the table lists no value default for it: a reader that asks is out of step with its table.
const std::string& key_default(const KeyTable& table, const std::string& path);
// From the shape bits: "number or expression" (the printed table's words) and "a number or an
// expression" (what a reader's error says a key must be).
std::string shape_name(unsigned shape);
std::string shape_phrase(unsigned shape);
// The table as text: one key per line (path, type, default, unit, required, description).
std::string format_key_table(const KeyTable& table);

}  // namespace tridsim
