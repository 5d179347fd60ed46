#pragma once
// Typed errors (namespace tridsim). Anything a user can cause (bad deck, missing file, unstable
// parameters, non-finite values) is an Error; the program prints its message and exits non-zero.
#include <stdexcept>
#include <string>

namespace tridsim {

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

// Raised when a run produces NaN/Inf or otherwise cannot continue.
class RuntimeFailure : public Error {
 public:
  using Error::Error;
};

}  // namespace tridsim
