#pragma once
// Writers, and the registry the deck's `output.formats` names them from (namespace tridsim). A run
// creates its writers before the first step, calls write() at each output time and
// write_diagnostics() at each diagnostics step. The files go into dir(): a staging directory until
// the first output is complete, then the output directory (outputs/run_directory.hpp publishes the
// one as the other, and set_dir() tells the writer), so form paths from dir() when writing. After
// each write() returns, the writer's files must be a valid result holding every output so far
// (write data, flush, then replace index files atomically): a run stopped at any moment, or one
// that fails, keeps what it wrote. See docs/extending.md, "Adding an output format".
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/fields.hpp"
#include "core/grid.hpp"
#include "core/types.hpp"

namespace tridsim {

class Domain;

class Writer {
 public:
  virtual ~Writer() = default;
  virtual void write(int step, double time, std::span<const FieldRef> fields) = 0;
  // One row of scalars (the module's diagnostics after the driver's step_wall_s); the same
  // names every call. Field writers ignore it.
  virtual void write_diagnostics(long /*step*/, double /*time*/, std::span<const Diagnostic> /*row*/) {}
  // A restarted run continues the previous result in `previous` (a directory): before the first
  // write, carry its outputs of steps before `first_step` over. By default nothing is carried.
  virtual void resume(const std::filesystem::path& /*previous*/, long /*first_step*/) {}
  virtual void close() = 0;  // finish (the files are complete after every write already)

  const std::filesystem::path& dir() const { return dir_; }
  void set_dir(std::filesystem::path dir) { dir_ = std::move(dir); }

 private:
  std::filesystem::path dir_;
};

// Facts about the run a writer may record (the HDF5 writer's root attributes): name, value.
using RunAttributes = std::vector<std::pair<std::string, std::string>>;

// What a registered writer is made from: the output folder, the run's name (the base of the
// file names), the grid and the run's facts; and, for a writer made on every rank of a distributed
// run (WriterInfo::Fields::collective), the run's ranks.
struct WriterSetup {
  std::filesystem::path dir;
  std::string name;
  Grid grid;
  RunAttributes attributes = {};
  const Domain* domain = nullptr;
};
using WriterFactory = std::function<std::unique_ptr<Writer>(const WriterSetup&)>;

struct WriterInfo {
  std::string name;                  // the name in output.formats
  std::vector<std::string> aliases;  // other names for it (hdf5: xdmf)
  std::string description;           // one line, for `tridsim info`
  WriterFactory create;
  std::string unavailable = {};      // why this build cannot write it ("" if it can): skipped with a warning
  // How a run on several ranks gives it the fields. gathered: it is made on rank 0 alone, and gets
  // the whole grid's arrays gathered there. collective: it is made on every rank (with
  // WriterSetup::domain), each call is every rank's, and each rank gives its own local arrays
  // (parallel HDF5). none: it is made on rank 0 alone and takes no fields (diagnostics only).
  enum class Fields { gathered, collective, none };
  Fields fields = Fields::gathered;
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
// plus the time values; `attributes` on the root group) and `<dir>/<name>.xmf`, an XDMF
// temporal collection ParaView opens. With a distributed `domain` and parallel HDF5, every rank
// makes it and writes its owned nodes into the one file (outputs/hdf5_xdmf_writer.hpp).
std::unique_ptr<Writer> make_hdf5_xdmf_writer(const std::filesystem::path& dir, const std::string& name,
                                              const Grid& grid, const RunAttributes& attributes = {},
                                              const Domain* domain = nullptr);

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
