#pragma once
// Typed errors (namespace tridsim). Anything a user can cause (bad deck, missing file, unstable
// parameters, non-finite values) is an Error; the program prints its message and exits non-zero.
#include <algorithm>
#include <stdexcept>
#include <string>

namespace tridsim {

// Text from a deck or a command line (an expression, a value) as a message quotes it: 'text', or
// past 80 characters its first 80, '…' and its length, so that a 100 kB expression does not fill
// the terminal. Every message that echoes such text goes through it.
inline std::string quoted(const std::string& text) {
  constexpr std::size_t kShown = 80;
  std::size_t cut = std::min(text.size(), kShown);
  while (cut < text.size() && cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // (whole UTF-8 characters)
  std::string q = "'";  // (built with +=: g++ 12 warns falsely, -Wrestrict, on "'" + string)
  q += text.substr(0, cut);
  if (cut < text.size()) q += "…' (" + std::to_string(text.size()) + " characters)";
  else q += "'";
  return q;
}

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An error tied to a place in a deck: "deck.yaml:12: heat.scheme: ...".
class DeckError : public Error {
 public:
  DeckError(const std::string& where, const std::string& key, const std::string& what)
      : Error(where + ": " + (key.empty() ? std::string() : key + ": ") + what), where_(where), key_(key) {}
  const std::string& where() const { return where_; }
  const std::string& key() const { return key_; }

 private:
  std::string where_, key_;
};

// A zero pivot: the matrix is singular, or needs pivoting the solver does not do.
class SingularMatrix : public Error {
 public:
  using Error::Error;
};

// An error that one rank of a distributed run met alone, which every rank throws once they have
// agreed on it (core/domain.hpp agree): rank() met it.
class RankError : public Error {
 public:
  RankError(int rank, const std::string& what) : Error(what), rank_(rank) {}
  int rank() const { return rank_; }

 private:
  int rank_;
};

// Raised when a run produces NaN/Inf or otherwise cannot continue.
class RuntimeFailure : public Error {
 public:
  using Error::Error;
};

}  // namespace tridsim
