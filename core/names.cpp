#include "core/names.hpp"

#include <algorithm>
#include <cctype>

namespace tridsim {

namespace {
char lower(char c) { return char(std::tolower(static_cast<unsigned char>(c))); }
}  // namespace

bool same_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return lower(x) == lower(y); });
}

std::string list_names(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

std::string unknown_name_message(std::string_view word, const std::vector<std::string>& names) {
  std::string lowered(word);
  std::transform(lowered.begin(), lowered.end(), lowered.begin(), lower);
  const std::string guess = closest_match(lowered, std::set<std::string>(names.begin(), names.end()));
  return "expected " + list_names(names) + ", got '" + std::string(word) + "'" +
         (guess.empty() ? "" : "; did you mean '" + guess + "'?");
}

std::string closest_match(const std::string& word, const std::set<std::string>& candidates) {
  auto distance = [](const std::string& a, const std::string& b) {
    std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
      cur[0] = i;
      for (std::size_t j = 1; j <= b.size(); ++j)
        cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
      std::swap(prev, cur);
    }
    return prev[b.size()];
  };
  std::string best;
  std::size_t best_d = std::max<std::size_t>(2, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    const auto d = distance(word, c);
    if (d < best_d) { best_d = d; best = c; }
  }
  return best;
}

}  // namespace tridsim
