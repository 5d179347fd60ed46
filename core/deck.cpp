#include "core/deck.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string_view>

#include "core/types.hpp"

namespace tridsim {

namespace detail {
struct DeckState {
  std::string file;
  YAML::Node root;
  std::map<std::string, std::set<std::string>> known;  // map path -> keys asked for
  std::map<std::string, YAML::Node> opened;            // maps a module looked into
  std::map<std::string, std::string> overrides;        // key path -> the --set that made it
  std::set<std::string> asked;                         // every key path the reader asked for
  std::set<std::string> own_defaults;                  // keys left out that took the reader's own default
};
}  // namespace detail

namespace {

// What `p` is when it exists and is not a regular file ("a FIFO", "a directory", ...), else "":
// reading a FIFO or a device as a deck or a data file would block, or never end.
std::string irregular_kind(const std::filesystem::path& p) {
  namespace fs = std::filesystem;
  std::error_code ec;
  switch (fs::status(p, ec).type()) {
    case fs::file_type::regular:
    case fs::file_type::not_found:
    case fs::file_type::none: return "";
    case fs::file_type::directory: return "a directory";
    case fs::file_type::fifo: return "a FIFO";
    case fs::file_type::character: return "a character device";
    case fs::file_type::block: return "a block device";
    case fs::file_type::socket: return "a socket";
    default: return "a special file";
  }
}

constexpr std::uintmax_t kMaxDeckBytes = std::uintmax_t(16) << 20;  // decks are pages of YAML, not data

// The offset of the first byte of `text` that does not belong to well-formed UTF-8 (no overlong
// forms, no surrogates, nothing past U+10FFFF), or npos.
std::size_t invalid_utf8_at(std::string_view text) {
  const auto* u = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned c = u[i];
    int len = 0;
    unsigned lo = 0x80, hi = 0xBF;  // the range of the byte after the lead
    if (c < 0x80) len = 1;
    else if (c >= 0xC2 && c <= 0xDF) len = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return i;
    }
    for (int k = 1; k < len; ++k) {
      if (i + k >= n) return i;
      const unsigned b = u[i + k];
      if (b < (k == 1 ? lo : 0x80u) || b > (k == 1 ? hi : 0xBFu)) return i;
    }
    i += std::size_t(len);
  }
  return std::string_view::npos;
}

template <class T>
std::string type_name(bool plural = false) {
  if constexpr (std::is_same_v<T, bool>) return plural ? "trues or falses" : "true or false";
  else if constexpr (std::is_integral_v<T>) return plural ? "integers" : "an integer";
  else if constexpr (std::is_floating_point_v<T>) return plural ? "numbers" : "a number";
  else if constexpr (std::is_same_v<T, std::string>) return plural ? "strings" : "a string";
  else return "a list of " + type_name<typename T::value_type>(true);
}

std::string describe(const YAML::Node& n) {
  if (n.IsScalar()) return quoted(n.Scalar());
  if (n.IsSequence()) return "a list";
  if (n.IsMap()) return "a map";
  return "nothing";
}

std::string mark_of(const detail::DeckState& s, const YAML::Node& n, const std::string& path) {
  if (auto it = s.overrides.find(path); it != s.overrides.end()) return "command line (--set " + quoted(it->second) + ")";
  if (!n.IsDefined() || n.Mark().is_null()) return s.file;
  return s.file + ":" + std::to_string(n.Mark().line + 1);
}

template <class T>
T convert(const YAML::Node& n) {
  if constexpr (std::is_same_v<T, std::string>) {
    if (!n.IsScalar()) throw YAML::TypedBadConversion<std::string>(n.Mark());
    return n.Scalar();
  } else {
    return n.as<T>();
  }
}

// The lists and maps of a deck already looked into. Aliases make the deck a graph: one node may
// be reached along very many paths (ten nested lists of ten aliases each are 10^10 paths) or
// from inside itself (`a: &a [*a]`), so a walk visits each node once. Nodes are bucketed by
// their place in the text (an alias has its anchor's) and told apart by identity.
class Visited {
 public:
  bool first_time(const YAML::Node& n) {
    auto& bucket = seen_[n.Mark().pos];
    for (const auto& m : bucket)
      if (m.is(n)) return false;
    bucket.push_back(n);
    return true;
  }

 private:
  std::map<int, std::vector<YAML::Node>> seen_;
};

// Keys that are not names, and duplicate keys in any map of the deck: yaml-cpp keeps both
// duplicates and answers with the first, so a second value would be silently ignored.
void check_keys(const detail::DeckState& s, const YAML::Node& node, const std::string& path, Visited& visited) {
  if (!(node.IsSequence() || node.IsMap()) || !visited.first_time(node)) return;
  if (node.IsSequence()) {
    for (std::size_t i = 0; i < node.size(); ++i) check_keys(s, node[i], path, visited);
    return;
  }
  std::map<std::string, int> first_line;
  for (const auto& kv : node) {
    if (!kv.first.IsScalar())
      throw DeckError(mark_of(s, kv.first, path), path, "a key must be a name, got " + describe(kv.first));
    const std::string key = kv.first.Scalar(), full = path.empty() ? key : path + "." + key;
    const auto [it, fresh] = first_line.emplace(key, kv.first.Mark().line + 1);
    if (!fresh)
      throw DeckError(mark_of(s, kv.first, full), full,
                      "duplicate key (first given at line " + std::to_string(it->second) + "); give each key once");
    check_keys(s, kv.second, full, visited);
  }
}

}  // namespace

DeckNode::DeckNode(std::shared_ptr<detail::DeckState> state, YAML::Node node, std::string path)
    : state_(std::move(state)), node_(std::move(node)), path_(std::move(path)) {
  state_->opened.emplace(path_, node_);
  state_->known[path_];
}

YAML::Node DeckNode::lookup(const std::string& key) const {
  state_->known[path_].insert(key);
  state_->asked.insert(key_path(key));
  const YAML::Node& cn = node_;
  return cn[key];
}

void DeckNode::note_own_default(const std::string& key) const { state_->own_defaults.insert(key_path(key)); }

bool DeckNode::has(const std::string& key) const {
  YAML::Node n = lookup(key);
  return n.IsDefined() && !n.IsNull();
}

bool DeckNode::is_map(const std::string& key) const {
  const YAML::Node n = lookup(key);
  return n.IsDefined() && n.IsMap();
}

bool DeckNode::is_list(const std::string& key) const {
  const YAML::Node n = lookup(key);
  return n.IsDefined() && n.IsSequence();
}

bool DeckNode::is_text(const std::string& key) const {
  const YAML::Node n = lookup(key);
  if (!n.IsDefined() || !n.IsScalar()) return false;
  double number;
  return !YAML::convert<double>::decode(n, number);
}

std::string DeckNode::where(const std::string& key) const {
  if (key.empty()) return mark_of(*state_, node_, path_);
  YAML::Node n = lookup(key);
  return n.IsDefined() ? mark_of(*state_, n, key_path(key)) : mark_of(*state_, node_, path_);
}

void DeckNode::fail(const std::string& key, const std::string& what) const {
  throw DeckError(where(key), key_path(key), what);
}

void DeckNode::fail_missing(const std::string& key, const std::string& expected) const {
  std::set<std::string> present;
  if (node_.IsMap())
    for (const auto& kv : node_) present.insert(kv.first.Scalar());
  if (const std::string guess = closest_match(key, present); !guess.empty() && guess != key) {
    const YAML::Node& cn = node_;
    throw DeckError(mark_of(*state_, cn[guess], key_path(guess)), key_path(key),
                    "missing required key (expected " + expected + "); the section has '" + guess +
                        "': did you mean '" + key + "'?");
  }
  fail(key, "missing required key (expected " + expected + ")");
}

template <class T>
T DeckNode::get(const std::string& key) const {
  YAML::Node n = lookup(key);
  if (!n.IsDefined() || n.IsNull()) fail_missing(key, type_name<T>());
  try {
    return convert<T>(n);
  } catch (const YAML::Exception&) {
    fail(key, "expected " + type_name<T>() + ", got " + describe(n));
  }
}

template <class T>
void DeckNode::require(bool ok, const std::string& key, const T& value, const std::string& requirement) const {
  if (ok) return;
  std::ostringstream os;
  os << "must be " << requirement << ", got " << value;
  fail(key, os.str());
}

template <class T>
T table_default(const KeyTable& keys, const std::string& path) {
  const std::string& text = key_default(keys, path);
  try {
    return convert<T>(YAML::Load(text));
  } catch (const YAML::Exception&) {
    throw Error("the key table's default of " + path + " is '" + text + "', not " + type_name<T>());
  }
}

#define TRIDSIM_DECK_TYPE(T) \
  template T DeckNode::get<T>(const std::string&) const; \
  template T table_default<T>(const KeyTable&, const std::string&); \
  template void DeckNode::require<T>(bool, const std::string&, const T&, const std::string&) const;
TRIDSIM_DECK_TYPE(bool)
TRIDSIM_DECK_TYPE(int)
TRIDSIM_DECK_TYPE(long)
TRIDSIM_DECK_TYPE(long long)
TRIDSIM_DECK_TYPE(double)
TRIDSIM_DECK_TYPE(std::string)
template std::vector<double> DeckNode::get<std::vector<double>>(const std::string&) const;
template std::vector<long> DeckNode::get<std::vector<long>>(const std::string&) const;
template std::vector<std::string> DeckNode::get<std::vector<std::string>>(const std::string&) const;
template std::vector<double> table_default<std::vector<double>>(const KeyTable&, const std::string&);
template std::vector<std::string> table_default<std::vector<std::string>>(const KeyTable&, const std::string&);
template std::vector<std::vector<std::string>> DeckNode::get<std::vector<std::vector<std::string>>>(const std::string&) const;
#undef TRIDSIM_DECK_TYPE

DeckNode DeckNode::child(const std::string& key) const {
  YAML::Node n = lookup(key);
  if (!n.IsDefined() || n.IsNull()) fail_missing(key, "a section");
  if (!n.IsMap()) fail(key, "expected a map of keys, got " + describe(n));
  return DeckNode(state_, n, key_path(key));
}

std::filesystem::path DeckNode::get_file(const std::string& key) const {
  namespace fs = std::filesystem;
  const fs::path name = get<std::string>(key);
  if (name.empty()) fail(key, "expected a file name, got ''");
  std::vector<fs::path> tried;
  if (name.is_absolute()) tried.push_back(name);
  else {
    if (const auto dir = fs::path(state_->file).parent_path(); !dir.empty()) tried.push_back(dir / name);
    tried.push_back(name);
  }
  std::string list;
  for (const auto& p : tried) {
    std::error_code ec;
    if (const std::string kind = irregular_kind(p); !kind.empty())
      fail(key, "'" + p.string() + "' is " + kind + ", not a file");
    if (fs::exists(p, ec)) return p;
    list += (list.empty() ? "" : ", ") + fs::absolute(p, ec).lexically_normal().string();
  }
  fail(key, "file '" + name.string() + "' not found (tried " + list + ")");
}

std::optional<DeckNode> DeckNode::maybe_child(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  return child(key);
}

std::vector<std::string> DeckNode::keys() const {
  std::vector<std::string> out;
  for (const auto& kv : node_) {
    out.push_back(kv.first.Scalar());
    state_->known[path_].insert(out.back());
    state_->asked.insert(key_path(out.back()));
  }
  return out;
}

// ---- Deck ----------------------------------------------------------------------------------

Deck Deck::parse(const std::string& text, const std::string& name) {
  if (const std::size_t at = invalid_utf8_at(text); at != std::string::npos) {
    const std::size_t line_start = at == 0 ? std::string::npos : text.rfind('\n', at - 1);
    const std::size_t column = at - (line_start == std::string::npos ? 0 : line_start + 1) + 1;
    const auto line = std::count(text.begin(), text.begin() + std::ptrdiff_t(at), '\n') + 1;
    throw DeckError(name + ":" + std::to_string(line), "",
                    fmt::format("not UTF-8 text (byte 0x{:02X} at column {}): a deck is UTF-8, as YAML requires",
                                unsigned(static_cast<unsigned char>(text[at])), column));
  }
  Deck d;
  d.state_ = std::make_shared<detail::DeckState>();
  d.state_->file = name;
  try {
    d.state_->root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw DeckError(name + ":" + std::to_string(e.mark.line + 1), "", "YAML syntax error: " + e.msg);
  }
  if (d.state_->root.IsNull()) d.state_->root = YAML::Node(YAML::NodeType::Map);
  if (!d.state_->root.IsMap()) throw DeckError(name, "", "a deck must be a map of sections (grid:, time:, ...)");
  Visited visited;
  check_keys(*d.state_, d.state_->root, "", visited);
  return d;
}

Deck Deck::load(const std::filesystem::path& file) {
  if (const std::string kind = irregular_kind(file); !kind.empty())
    throw Error("deck '" + file.string() + "' is " + kind + ", not a file: give the path of a YAML file");
  std::error_code ec;
  if (const std::uintmax_t bytes = std::filesystem::file_size(file, ec); !ec && bytes > kMaxDeckBytes)
    throw Error(fmt::format("deck '{}' is {} bytes: a deck is YAML text of at most {} MiB", file.string(), bytes,
                            kMaxDeckBytes >> 20));
  std::ifstream in(file);
  if (!in) throw Error("cannot open deck '" + file.string() + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse(ss.str(), file.string());
}

const std::string& Deck::file() const { return state_->file; }

std::string Deck::resolved_text() const {
  YAML::Emitter out;
  out << state_->root;
  return out.c_str();
}

DeckNode Deck::root() const { return DeckNode(state_, state_->root, ""); }

void Deck::set(const std::string& assignment) {
  if (const std::size_t at = invalid_utf8_at(assignment); at != std::string::npos)
    throw Error(fmt::format("--set: not UTF-8 text (byte 0x{:02X} at position {} of the argument)",
                            unsigned(static_cast<unsigned char>(assignment[at])), at + 1));
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw Error("--set expects KEY=VALUE (e.g. heat.scheme=douglas), got " + quoted(assignment));
  const std::string path = assignment.substr(0, eq);
  YAML::Node value;
  try {
    value = YAML::Load(assignment.substr(eq + 1));
  } catch (const YAML::Exception& e) {
    throw Error("--set " + assignment + ": value is not valid YAML: " + e.what());
  }
  std::vector<std::string> parts;
  std::stringstream ss(path);
  for (std::string p; std::getline(ss, p, '.');) parts.push_back(p);
  YAML::Node node = state_->root;
  std::string prefix;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    prefix += (i ? "." : "") + parts[i];
    if (!node[parts[i]].IsDefined() || node[parts[i]].IsNull()) node[parts[i]] = YAML::Node(YAML::NodeType::Map);
    if (!node[parts[i]].IsMap()) throw Error("--set " + assignment + ": '" + prefix + "' is not a section");
    node.reset(node[parts[i]]);
  }
  node[parts.back()] = value;
  state_->overrides[path] = assignment;
}

std::vector<std::string> Deck::asked_keys() const { return {state_->asked.begin(), state_->asked.end()}; }

std::vector<std::string> Deck::own_defaults() const {
  return {state_->own_defaults.begin(), state_->own_defaults.end()};
}

namespace {

template <class T>
bool converts(const YAML::Node& n) {
  if (!n.IsScalar()) return false;
  try {
    (void)n.as<T>();
    return true;
  } catch (const YAML::Exception&) {
    return false;
  }
}

bool all_of(const YAML::Node& n, bool (*ok)(const YAML::Node&)) {
  if (!n.IsSequence()) return false;
  for (const auto& e : n)
    if (!ok(e)) return false;
  return true;
}

// Whether a value has one of the shapes a key takes.
bool fits(const YAML::Node& n, unsigned shape) {
  if (n.IsMap()) return shape & (kSection | kOpaque);
  if (n.IsScalar()) {
    if (shape & (kText | kExpression | kChoice)) return true;
    return ((shape & kNumber) && converts<double>(n)) || ((shape & kInteger) && converts<long>(n)) ||
           ((shape & kBool) && converts<bool>(n));
  }
  auto scalar = [](const YAML::Node& e) { return e.IsScalar(); };
  return ((shape & kNumbers) && all_of(n, [](const YAML::Node& e) { return converts<double>(e); })) ||
         ((shape & kIntegers) && all_of(n, [](const YAML::Node& e) { return converts<long>(e); })) ||
         ((shape & kTexts) && all_of(n, scalar)) ||
         ((shape & kMatrix) && all_of(n, [](const YAML::Node& row) {
            return all_of(row, [](const YAML::Node& e) { return e.IsScalar(); });
          }));
}

// The last segment of a dotted path, and whether the rest is `parent`'s pattern instance.
bool child_of(const std::string& pattern, const std::string& parent, std::string& last) {
  const std::size_t dot = pattern.rfind('.');
  const std::string head = dot == std::string::npos ? "" : pattern.substr(0, dot);
  last = dot == std::string::npos ? pattern : pattern.substr(dot + 1);
  return parent.empty() ? head.empty() : !head.empty() && key_matches(head, parent);
}

void check_map(const detail::DeckState& s, const YAML::Node& map, const std::string& path, const KeyTable& table,
               std::vector<DeckError>& errors) {
  // The keys the table lists directly under this map (placeholders stand for any name).
  std::set<std::string> listed, required;
  bool any_name = false;
  for (const auto& spec : table) {
    std::string last;
    if (!child_of(spec.path, path, last)) continue;
    if (last.front() == '<') any_name = true;
    else listed.insert(last);
    if (spec.required && last.front() != '<') required.insert(last);
  }
  std::set<std::string> present, unknown;
  for (const auto& kv : map)
    if (const YAML::Node& v = kv.second; v.IsDefined() && !v.IsNull()) present.insert(kv.first.Scalar());
  std::map<std::string, std::string> misspelt;  // a present unknown key -> the missing key it stands for
  for (const auto& key : required)
    if (!present.count(key)) {
      std::set<std::string> others;
      for (const auto& kv : map)
        if (!listed.count(kv.first.Scalar())) others.insert(kv.first.Scalar());
      if (const std::string guess = closest_match(key, others); !guess.empty()) misspelt[guess] = key;
    }
  for (const auto& kv : map) {
    const std::string key = kv.first.Scalar(), full = path.empty() ? key : path + "." + key;
    const KeySpec* spec = find_key(table, full);
    if (!spec || (!listed.count(key) && !any_name)) {
      if (auto m = misspelt.find(key); m != misspelt.end()) {
        const std::string want = path.empty() ? m->second : path + "." + m->second;
        const KeySpec* w = find_key(table, want);
        errors.emplace_back(mark_of(s, kv.first, full), want,
                            "missing required key (expected " + shape_phrase(w ? w->shape : 0) + "); the section has '" +
                                key + "': did you mean '" + m->second + "'?");
        continue;
      }
      std::string hint;
      if (const std::string guess = closest_match(key, listed); !guess.empty()) hint = "; did you mean '" + guess + "'?";
      else if (!listed.empty()) hint = "; valid keys here are: " + fmt::format("{}", fmt::join(listed, " "));
      errors.emplace_back(mark_of(s, kv.first, full), full, "unknown key" + hint);
      continue;
    }
    if (spec->shape == 0) {  // a key the module refuses, saying why
      errors.emplace_back(mark_of(s, kv.first, full), full, spec->description);
      continue;
    }
    const YAML::Node& v = kv.second;
    if (!v.IsDefined() || v.IsNull()) continue;  // (a required one is reported below)
    if (!fits(v, spec->shape)) {
      errors.emplace_back(mark_of(s, v, full), full, "expected " + shape_phrase(spec->shape) + ", got " + describe(v));
      continue;
    }
    if (v.IsMap() && (spec->shape & kSection)) check_map(s, v, full, table, errors);
  }
  for (const auto& key : required) {
    if (present.count(key)) continue;
    bool reported = false;
    for (const auto& [typo, want] : misspelt) reported |= want == key;
    if (reported) continue;
    const std::string full = path.empty() ? key : path + "." + key;
    errors.emplace_back(mark_of(s, map, path), full,
                        "missing required key (expected " + shape_phrase(find_key(table, full)->shape) + ")");
  }
}

}  // namespace

std::vector<DeckError> Deck::check_against(const KeyTable& table) const {
  std::vector<DeckError> errors;
  check_map(*state_, state_->root, "", table, errors);
  return errors;
}

void Deck::check_unknown_keys() const {
  for (const auto& [path, node] : state_->opened) {
    const auto& known = state_->known[path];
    for (const auto& kv : node) {
      const std::string key = kv.first.Scalar();
      if (known.count(key)) continue;
      const std::string full = path.empty() ? key : path + "." + key;
      std::string hint;
      if (auto guess = closest_match(key, known); !guess.empty()) hint = "; did you mean '" + guess + "'?";
      else if (!known.empty()) {
        hint = "; valid keys here are:";
        for (const auto& k : known) hint += " " + k;
      }
      throw DeckError(mark_of(*state_, kv.first, full), full, "unknown key" + hint);
    }
  }
}

}  // namespace tridsim
