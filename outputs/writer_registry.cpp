// The registry of output formats (outputs/writer.hpp), with the built-in writers in it from the start.
#include <deque>

#include "core/errors.hpp"
#include "core/names.hpp"
#include "outputs/writer.hpp"
#include "tridsim_build_info.hpp"

namespace tridsim {

namespace {

std::vector<WriterInfo> builtin_writers() {
  return {
      {"hdf5", {"xdmf"}, "NAME.h5 (a group per output time) + NAME.xmf for ParaView",
       [](const WriterSetup& s) { return make_hdf5_xdmf_writer(s.dir, s.name, s.grid, s.attributes, s.domain); }, "",
       TRIDSIM_HAVE_PARALLEL_HDF5 ? WriterInfo::Fields::collective : WriterInfo::Fields::gathered},
      {"vtk", {}, "NAME_NNNNNN.vti (.vtr on a stretched grid) per output time + NAME.pvd for ParaView",
       [](const WriterSetup& s) { return make_vtk_writer(s.dir, s.name, s.grid); },
       vtk_available() ? "" : "this build has no VTK support, so no .vti/.pvd files (rebuild with -DTRIDSIM_VTK=ON)"},
      {"csv", {}, "NAME_diagnostics.csv: step, time, step_wall_s and the module's diagnostics",
       [](const WriterSetup& s) { return make_diagnostics_csv_writer(s.dir, s.name); }, "", WriterInfo::Fields::none},
  };
}

// Writers by name, in registration order (the built-in ones first).
std::deque<WriterInfo>& registry() {  // a deque: pointers stay valid as writers are added
  static std::deque<WriterInfo> writers = [] {
    auto b = builtin_writers();
    return std::deque<WriterInfo>(b.begin(), b.end());
  }();
  return writers;
}

}  // namespace

bool register_writer(WriterInfo info) {
  std::vector<std::string> names = info.aliases;
  names.push_back(info.name);
  for (const auto& n : names)
    if (n.empty() || find_writer(n)) throw Error("output format '" + n + "' is registered twice (or is empty)");
  if (!info.create) throw Error("output format '" + info.name + "' has no factory");
  registry().push_back(std::move(info));
  return true;
}

const WriterInfo* find_writer(const std::string& name) {
  for (const auto& w : registry()) {
    if (same_name(name, w.name)) return &w;
    for (const auto& a : w.aliases)
      if (same_name(name, a)) return &w;
  }
  return nullptr;
}

std::vector<const WriterInfo*> registered_writers() {
  std::vector<const WriterInfo*> out;
  for (const auto& w : registry()) out.push_back(&w);
  return out;
}

std::vector<std::string> writer_names() {
  std::vector<std::string> out;
  for (const auto& w : registry()) {
    out.push_back(w.name);
    out.insert(out.end(), w.aliases.begin(), w.aliases.end());
  }
  return out;
}

}  // namespace tridsim
