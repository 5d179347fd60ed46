#pragma once
// Field writers. A run creates its writers before the first step and calls write() at each
// output time. Nothing appears under its final name until close(): files are written under
// temporary names and renamed, and a writer destroyed without close() (a failed run) removes
// its temporary files, so a failed run never leaves something that looks like a result.
#include <filesystem>
#include <memory>
#include <span>
#include <string>

#include "core/grid.hpp"
#include "core/types.hpp"

namespace tridsim {

// One field to write: grid.size() values, x-fastest, on the host.
struct FieldRef {
  std::string name;
  Precision precision = Precision::float64;
  const void* data = nullptr;  // const float* or const double*
};

class Writer {
 public:
  virtual ~Writer() = default;
  virtual void write(int step, double time, std::span<const FieldRef> fields) = 0;
  virtual void close() = 0;  // finish and move every file to its final name
};

// HDF5 file `<dir>/<name>.h5` (one group per output time holding one dataset per field,
// plus the time values) and `<dir>/<name>.xmf`, an XDMF temporal collection ParaView opens.
std::unique_ptr<Writer> make_hdf5_xdmf_writer(const std::filesystem::path& dir, const std::string& name,
                                              const Grid& grid);

// `<dir>/<name>_<step>.vti` files and the `<dir>/<name>.pvd` collection. Only when built with VTK.
bool vtk_available();
std::unique_ptr<Writer> make_vtk_writer(const std::filesystem::path& dir, const std::string& name,
                                        const Grid& grid);

}  // namespace tridsim
