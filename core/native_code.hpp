#pragma once
// C++ source generated at run time (deck expressions translated from muparser's bytecode) compiled
// into a shared object by the system's C++ compiler and opened with dlopen (namespace tridsim).
// Shared objects are cached in a directory, keyed by a hash of the source, the compiler's command
// and the processor: a deck run again, or checked and then run, compiles nothing. Environment:
//   TRIDSIM_CXX        the compiler (default: the one that built tridsim, else `c++` on PATH);
//                      `none` turns compiling off (deck expressions are then interpreted by muparser)
//   TRIDSIM_CACHE_DIR  the cache (default: $XDG_CACHE_HOME/tridsim, else ~/.cache/tridsim)
// The code is compiled for this machine's CPU (-march=native) without floating-point contraction
// (-ffp-contract=off) and with the C library's functions as calls (-fno-builtin; __builtin_sin
// and the like stay), so that its arithmetic is IEEE operation by operation, as muparser's.
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tridsim {

class Expression;

class NativeCode {
 public:
  // The compiled `source` (once per process and source), or null when there is no compiler, it is
  // turned off or compiling fails: then `why` (if given) says so in one sentence.
  static std::shared_ptr<const NativeCode> compile(const std::string& source, std::string* why = nullptr);
  // The address of the extern "C" function `name`, or Error.
  void* symbol(const char* name) const;
  // The shared object's path in the cache.
  const std::string& path() const { return path_; }

  explicit NativeCode(void* handle, std::string path) : handle_(handle), path_(std::move(path)) {}

 private:
  void* handle_;  // never closed: the functions handed out stay valid for the process's life
  std::string path_;
};

// What one module evaluates at run time, compiled together: the deck expressions it evaluates at
// every node on every step (a moving source, boundary data that move) and its own code (the
// reaction kernels), one source, one compiler call, one shared object per run (none at all when the
// cache holds it). Expressions with no compiled form stay interpreted.
class NativeBatch {
 public:
  // e runs compiled code (Expression::use_native) once compile() succeeds, unless it is a constant;
  // the same text twice shares one kernel. e must live until compile().
  void add(Expression& e);
  // A module's own code: extern "C" functions of names of its own, after Expression::native_prelude().
  void add_code(const std::string& code);
  // Compiles what was added: the shared object, or null when there is nothing to compile, or when
  // there is no compiler, it is turned off or compiling fails: then one info line "<who>: <what>
  // interpreted by muparser, not compiled: <why>" (what: e.g. "the moving boundary data").
  std::shared_ptr<const NativeCode> compile(const std::string& who, const std::string& what);

 private:
  std::string code_;
  std::vector<std::pair<Expression*, std::string>> kernels_;  // each expression and its kernel's name
  std::vector<std::pair<std::string, std::string>> sources_;  // each kernel's source (named "@") and name
};

}  // namespace tridsim
