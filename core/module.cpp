#include "core/module.hpp"

#include <map>

#include "core/errors.hpp"

namespace tridsim {

namespace {
std::map<std::string, ModuleInfo>& registry() {
  static std::map<std::string, ModuleInfo> modules;
  return modules;
}
}  // namespace

bool register_module(const std::string& name, const std::string& description, ModuleFactory factory, KeyTable keys,
                     std::string example) {
  auto [it, inserted] =
      registry().emplace(name, ModuleInfo{name, description, std::move(factory), std::move(keys), std::move(example)});
  if (!inserted) throw Error("module '" + name + "' is registered twice");
  return true;
}

const ModuleInfo* find_module(const std::string& name) {
  auto it = registry().find(name);
  return it == registry().end() ? nullptr : &it->second;
}

std::vector<const ModuleInfo*> registered_modules() {
  std::vector<const ModuleInfo*> out;
  for (const auto& [name, info] : registry()) out.push_back(&info);
  return out;
}

}  // namespace tridsim
