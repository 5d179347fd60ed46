#pragma once
// Shared libraries opened on the first call of one of their functions (namespace tridsim::lazy):
// a process that never calls them does not pay for loading them (the CUDA math libraries,
// OpenBLAS, the VTK plugin). The program does not link such a library; it defines each function
// it calls with the library's own declaration (a differing signature does not compile) by
// TRIDSIM_FORWARD, which forwards the call to the library's function.
#include <array>

namespace tridsim::lazy {

struct Library {
  const char* name;                   // for messages: "cuBLAS"
  std::array<const char*, 3> paths;   // tried in order: a soname (the dynamic linker's search) or a path
  const char* needed_by;              // for messages: "the GPU sparse direct solver"
};

// The library opened (once), or an Error naming it, what needs it and why each path failed.
void* handle(const Library& lib);
// The address of `name` in the library, or an Error.
void* symbol(const Library& lib, const char* name);
// Whether one of the library's paths opens (opens and closes it).
bool available(const Library& lib);

}  // namespace tridsim::lazy

// Defines the C function `name` of return type R and parameters `params` (with names), calling
// `lib`'s function with the arguments `args`.
#define TRIDSIM_FORWARD(lib, R, name, params, args)                                                  \
  extern "C" R name params {                                                                       \
    static const auto real = reinterpret_cast<R(*) params>(::tridsim::lazy::symbol(lib, #name)); \
    return real args;                                                                              \
  }
