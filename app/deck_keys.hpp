#pragma once
// The whole key table of a deck for one module (namespace tridsim): the driver's sections (name,
// grid, time, output, ...) and the module's own table (core/deck_keys.hpp).
#include "core/deck_keys.hpp"
#include "core/module.hpp"

namespace tridsim {

// The keys the driver reads (steady modules take no `time`).
KeyTable driver_keys(bool steady);
// driver_keys and the module's table; a module registered without one gets its section unchecked.
KeyTable deck_key_table(const ModuleInfo& module);
// `tridsim new MODULE`: the module's example deck, its header, and every other key of the table
// as a comment with its type, unit and default.
std::string template_deck(const ModuleInfo& module);
// `tridsim info MODULE`: the table of every key a deck of the module takes.
std::string key_reference(const ModuleInfo& module);
// Several problems found by Deck::check_against as one DeckError: "FILE: N errors:" and one
// indented line each (FILE:LINE: KEY: what), in the order of their lines.
DeckError several_errors(const std::string& file, std::vector<DeckError> errors);
// With TRIDSIM_AUDIT_KEY_TABLE set (the test deck_keys): throws naming every key the reader asked
// for that `table` does not list, so a key read but missing from the table fails a test; and every
// key left out to which the reader gave a default of its own where the table gives one.
void audit_key_table(const Deck& deck, const KeyTable& table);

}  // namespace tridsim
