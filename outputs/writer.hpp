#pragma once
// Writers, and the registry the deck's `output.formats` names them from. A run creates its
// writers before the first step, calls write() at each output time and write_diagnostics() at
// each diagnostics step. Nothing appears under its final name until close(): files are written
// under temporary names and renamed, and a writer destroyed without close() (a failed run)
// removes its temporary files, so a failed run never leaves something that looks like a result.
// See docs/extending.md, "Adding an output format".
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/grid.hpp"
#include "core/types.hpp"

namespace tridsim {

// One field to write: grid.size() values, x-fastest, on the host.
struct FieldRef {
  std::string name;
  Precision precision = Precision::float64;
  const void* data = nullptr;  // const float* or const double*
};

// One named scalar per diagnostics row (the CSV columns).
struct Diagnostic {
  std::string name;
  double value = 0;
};

class Writer {
 public:
  virtual ~Writer() = default;
  virtual void write(int step, double time, std::span<const FieldRef> fields) = 0;
  // One row of scalars (the module's diagnostics after the driver's step_wall_s); the same
  // names every call. Field writers ignore it.
  virtual void write_diagnostics(long /*step*/, double /*time*/, std::span<const Diagnostic> /*row*/) {}
  virtual void close() = 0;  // finish and move every file to its final name
};

// What a registered writer is made from: the output folder, the run's name (the base of the
// file names) and the grid.
struct WriterSetup {
  std::filesystem::path dir;
  std::string name;
  Grid grid;
};
using WriterFactory = std::function<std::unique_ptr<Writer>(const WriterSetup&)>;

struct WriterInfo {
  std::string name;                  // the name in output.formats
  std::vector<std::string> aliases;  // other names for it (hdf5: xdmf)
  std::string description;           // one line, for `tridsim info`
  WriterFactory create;
  std::string unavailable = {};      // why this build cannot write it ("" if it can): skipped with a warning
};

// Register a writer; a name (or alias) registered twice throws Error. Returns true so it can
// initialise a static: see TRIDSIM_REGISTER_WRITER. The built-in writers (hdf5, vtk, csv) are
// always registered.
bool register_writer(WriterInfo info);
// The writer called `name` (or one of its aliases, case-insensitively), or nullptr.
const WriterInfo* find_writer(const std::string& name);
std::vector<const WriterInfo*> registered_writers();
// Every name output.formats accepts, aliases included: for error messages.
std::vector<std::string> writer_names();

// HDF5 file `<dir>/<name>.h5` (one group per output time holding one dataset per field,
// plus the time values) and `<dir>/<name>.xmf`, an XDMF temporal collection ParaView opens.
std::unique_ptr<Writer> make_hdf5_xdmf_writer(const std::filesystem::path& dir, const std::string& name,
                                              const Grid& grid);

// `<dir>/<name>_<step>.vti` files and the `<dir>/<name>.pvd` collection. Only when built with VTK.
bool vtk_available();
std::unique_ptr<Writer> make_vtk_writer(const std::filesystem::path& dir, const std::string& name,
                                        const Grid& grid);

// `<dir>/<name>_diagnostics.csv`: columns step, time and the row's names (outputs/csv_writer.hpp).
std::unique_ptr<Writer> make_diagnostics_csv_writer(const std::filesystem::path& dir, const std::string& name);

}  // namespace tridsim

// Registers writer factory FACTORY (a function std::unique_ptr<Writer>(const WriterSetup&))
// under a format name. Put it in a source file of the executable (as TRIDSIM_REGISTER_MODULE).
#define TRIDSIM_REGISTER_WRITER(format_name, description, factory)                  \
  static const bool tridsim_registered_writer_##factory [[maybe_unused]] =          \
      ::tridsim::register_writer(::tridsim::WriterInfo{format_name, {}, description, factory})
