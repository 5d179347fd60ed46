#include "core/lazy_library.hpp"

#include <dlfcn.h>

#include <map>
#include <mutex>
#include <string>

#include "core/errors.hpp"

namespace tridsim::lazy {

namespace {
struct Opened {
  void* handle = nullptr;
  std::string why;  // each path's dlerror(), when none opened
};
}  // namespace

void* handle(const Library& lib) {
  static std::mutex mutex;
  static std::map<const Library*, Opened> opened;
  const std::lock_guard lock(mutex);
  auto [it, first] = opened.try_emplace(&lib);
  Opened& o = it->second;
  if (first)
    for (const char* path : lib.paths) {
      if (!path) continue;
      if ((o.handle = dlopen(path, RTLD_NOW | RTLD_LOCAL))) break;
      o.why += std::string("\n  ") + dlerror();
    }
  if (!o.handle)
    throw Error(std::string(lib.name) + ", which " + lib.needed_by + " needs, could not be loaded:" + o.why +
                "\n(its folder on LD_LIBRARY_PATH makes it found)");
  return o.handle;
}

void* symbol(const Library& lib, const char* name) {
  void* f = dlsym(handle(lib), name);
  if (!f) throw Error(std::string(lib.name) + " has no function " + name + " (another version than tridsim was built with?)");
  return f;
}

bool available(const Library& lib) {
  for (const char* path : lib.paths)
    if (void* h = path ? dlopen(path, RTLD_LAZY | RTLD_LOCAL) : nullptr) {
      dlclose(h);
      return true;
    }
  return false;
}

}  // namespace tridsim::lazy
