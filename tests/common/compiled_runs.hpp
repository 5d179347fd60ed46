#pragma once
// Code compiled at run time against muparser (core/native_code.hpp): a run made with compiling on
// (TRIDSIM_CXX unset: the default compiler) and again with it off (TRIDSIM_CXX=none) must end in
// the same bits. run(compiled) returns the run's final values (and may check that the compiled
// code was, or was not, used).
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <vector>

namespace tridsim::test {

template <class T, class Run>
void require_compiled_equals_interpreted(const Run& run) {
  ::unsetenv("TRIDSIM_CXX");
  const std::vector<T> compiled = run(true);
  ::setenv("TRIDSIM_CXX", "none", 1);
  const std::vector<T> interpreted = run(false);
  ::unsetenv("TRIDSIM_CXX");
  REQUIRE(compiled.size() == interpreted.size());
  CHECK(std::memcmp(compiled.data(), interpreted.data(), compiled.size() * sizeof(T)) == 0);
}

}  // namespace tridsim::test
