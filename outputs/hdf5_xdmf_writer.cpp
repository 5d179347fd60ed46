// HDF5 + XDMF writer.
//
// <name>.h5 layout:
//   /                  attributes: the run's facts (RunAttributes: deck, version, backend, ...)
//   /grid              group; attributes dim (int), n (int64[dim]), lo, hi, spacing (double[dim]),
//                      listed in axis order x, y, z
//   /step_000010       group per output time; attribute time (double);
//     /u, /v, ...      one dataset per field, shape (nz, ny, nx) / (ny, nx) / (nx): C order with
//                      x fastest, so the x-fastest arrays are written as they are; a vector field
//                      (3 components) has a last axis of 3, (..., nx, 3), and is an XDMF "Vector"
//   /times, /steps     output times (double) and step numbers (int), one entry per group
// <name>.xmf: an XDMF temporal collection over the datasets.
//
// After each output the file is flushed and then the .xmf replaced, so the .xmf names only
// groups that are complete on disk; a write cut short leaves data past the flushed end of the
// file, which readers ignore. The file is created without HDF5's file lock, so ParaView or h5py
// can open the results while the run goes on.
//
// A distributed run with parallel HDF5 makes this writer on every rank (outputs/hdf5_xdmf_writer.hpp):
// each call is then every rank's, with its local arrays, and rank 0 alone writes the .xmf.
#include "outputs/hdf5_xdmf_writer.hpp"

#include <hdf5.h>

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <utility>
#include <vector>

#include "core/domain.hpp"
#include "core/errors.hpp"
#include "outputs/files.hpp"
#include "core/hdf5_support.hpp"
#include "outputs/writer.hpp"
#include "outputs/writer_support.hpp"
#include "tridsim_build_info.hpp"

#if TRIDSIM_HAVE_PARALLEL_HDF5 && !defined(H5_HAVE_PARALLEL)
#error "built for parallel HDF5 (TRIDSIM_HAVE_PARALLEL_HDF5), but this hdf5.h is a serial HDF5's"
#endif

namespace tridsim {

bool hdf5_collective(const Domain* domain) {
#if TRIDSIM_HAVE_PARALLEL_HDF5
  return domain && domain->distributed();
#else
  (void)domain;
  return false;
#endif
}

herr_t hdf5_check_ranks(herr_t result, const std::string& context, const std::string& what, const Domain* domain) {
  if (!hdf5_collective(domain)) return hdf5_check(result, context, what);
  std::string failure;
  try {
    hdf5_check(result, context, what);
  } catch (const Error& e) {
    failure = e.what();
  }
  const Agreement a = agree(0, failure.empty() ? nullptr : &failure);
  if (a.failed_rank >= 0) throw RankError(a.failed_rank, a.failure);
  return result;
}

namespace {
// Closes a file that every rank has open, but not on a rank leaving it through an exception of its
// own (the others, still writing, would never join the close). Once the ranks have agreed on a
// failure, every rank leaves together and closes it: a file left open would be closed by HDF5 itself
// inside MPI_Finalize, where the ranks no longer meet in the same calls (seen: hangs and crashes).
herr_t close_shared_file(hid_t file) {
  return std::uncaught_exceptions() > 0 && !ranks_agreed_failure() ? 0 : H5Fclose(file);
}
}  // namespace

void hdf5_reserve(const std::filesystem::path& path, hsize_t bytes, const std::string& context,
                  const std::string& what, const Domain* domain) {
  if (!hdf5_collective(domain)) return;
  // HDF5's metadata beside the values: object headers, links, the aggregators' blocks (2 KiB each).
  const hsize_t room = bytes + bytes / 64 + (hsize_t(64) << 10);
  std::string failure;
  if (domain->rank() == 0) {
    // (No file at its path, e.g. a directory deleted under the run, or a file system without
    // fallocate: nothing reserved, and the writes report what they meet.)
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    struct stat st {};
    // From the file's start: HDF5 leaves holes below its end (blocks it allocated and has not
    // written yet), which a later write, or the close, fills; so first those, that the file can
    // still be closed where the room for the next writes is refused. (The file's size, not
    // H5Fget_filesize: MPI-IO's driver reports the size the file had when it was opened.)
    auto reserve = [fd](off_t from, off_t n) {
      return n == 0 || ::fallocate(fd, FALLOC_FL_KEEP_SIZE, from, n) == 0 || errno == EOPNOTSUPP || errno == ENOSYS;
    };
    if (fd >= 0 && ::fstat(fd, &st) == 0 && !(reserve(0, st.st_size) && reserve(st.st_size, off_t(room))))
      failure = fmt::format("{}: cannot {}: {} (no room for its {} bytes)", context, what, std::strerror(errno), room);
    if (fd >= 0) ::close(fd);
  }
  const Agreement a = agree(0, failure.empty() ? nullptr : &failure);
  if (a.failed_rank >= 0) throw RankError(a.failed_rank, a.failure);
}

Handle hdf5_create_file(const std::filesystem::path& path, const std::string& context, const Domain* domain,
                        bool unlocked) {
  const bool shared = hdf5_collective(domain);
  Handle fapl(hdf5_check(H5Pcreate(H5P_FILE_ACCESS), context, "create it"), H5Pclose);
#if TRIDSIM_HAVE_PARALLEL_HDF5
  if (shared) hdf5_check(H5Pset_fapl_mpio(fapl.get(), MPI_COMM_WORLD, MPI_INFO_NULL), context, "create it");
#endif
#if H5_VERSION_GE(1, 10, 7)
  if (unlocked) hdf5_check(H5Pset_file_locking(fapl.get(), false, true), context, "create it");
#endif
  return Handle(hdf5_check(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()), context, "create it"),
                shared ? close_shared_file : H5Fclose);
}

void hdf5_put_shared(const std::string& context, hid_t loc, const std::string& name, bool attribute, hid_t file_type,
                     hid_t mem_type, const std::vector<hsize_t>& dims, const void* data, const Domain* domain) {
  // (An attribute is written once by HDF5 from the value every rank gives.)
  if (attribute || !hdf5_collective(domain)) return hdf5_put(context, loc, name, attribute, file_type, mem_type, dims, data);
  const std::string what = "write dataset " + name;
  Handle space(hdf5_check(dims.empty() ? H5Screate(H5S_SCALAR) : H5Screate_simple(int(dims.size()), dims.data(), nullptr),
                          context, what),
               H5Sclose);
  Handle set(hdf5_check(H5Dcreate2(loc, name.c_str(), file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                        context, what),
             H5Dclose);
  const bool values = domain->rank() == 0 && H5Sget_simple_extent_npoints(space.get()) > 0;
  hdf5_check_ranks(values ? H5Dwrite(set.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) : 0, context, what,
                   domain);  // (independent: rank 0 alone)
  hdf5_check(set.close(), context, what);
}

void hdf5_put_owned(const std::string& context, hid_t loc, const std::string& name, hid_t file_type, hid_t mem_type,
                    const std::vector<hsize_t>& dims, const Domain& domain, int components, const void* local) {
  const std::string what = "write dataset " + name;
  const Decomposition& d = domain.layout();
  const auto& s = d.axes;
  const hsize_t c = hsize_t(components);
  hsize_t values = 1;
  for (auto n : dims) values *= n;
  if (!hdf5_collective(&domain) || values != c * hsize_t(d.global.size()))
    throw Error(context + ": cannot " + what + ": not a distributed field of parallel HDF5 (internal error)");
#if TRIDSIM_HAVE_PARALLEL_HDF5
  // The local array as (z, y, x * components), and its owned box.
  const hsize_t local_dims[3] = {hsize_t(s[2].local_n()), hsize_t(s[1].local_n()), c * s[0].local_n()};
  const hsize_t local_start[3] = {hsize_t(s[2].halo_lo), hsize_t(s[1].halo_lo), c * s[0].halo_lo};
  const hsize_t box[3] = {hsize_t(s[2].owned), hsize_t(s[1].owned), c * s[0].owned};
  Handle memory(hdf5_check(H5Screate_simple(3, local_dims, nullptr), context, what), H5Sclose);
  hdf5_check(H5Sselect_hyperslab(memory.get(), H5S_SELECT_SET, local_start, nullptr, box, nullptr), context, what);
  // The same nodes in the dataset: one box where it is shaped like the grid, else (one axis of all
  // the values) a run of owned x values per owned row.
  Handle file(hdf5_check(H5Screate_simple(int(dims.size()), dims.data(), nullptr), context, what), H5Sclose);
  if (dims.size() > 1) {
    std::vector<hsize_t> start, count;
    for (int a = d.global.dim - 1; a >= 0; --a) {
      start.push_back(hsize_t(s[a].first));
      count.push_back(hsize_t(s[a].owned));
    }
    if (int(dims.size()) > d.global.dim) {
      start.push_back(0);
      count.push_back(c);
    }
    hdf5_check(H5Sselect_hyperslab(file.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr), context, what);
  } else {
    for (index_t k = 0; k < s[2].owned; ++k) {
      const hsize_t start = c * hsize_t(d.global.index(s[0].first, s[1].first, s[2].first + k));
      const hsize_t stride = c * hsize_t(s[0].global_n), rows = hsize_t(s[1].owned), run = c * hsize_t(s[0].owned);
      hdf5_check(H5Sselect_hyperslab(file.get(), k ? H5S_SELECT_OR : H5S_SELECT_SET, &start, &stride, &rows, &run),
                 context, what);
    }
  }
  Handle set(hdf5_check(H5Dcreate2(loc, name.c_str(), file_type, file.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                        context, what),
             H5Dclose);
  Handle transfer(hdf5_check(H5Pcreate(H5P_DATASET_XFER), context, what), H5Pclose);
  hdf5_check(H5Pset_dxpl_mpio(transfer.get(), H5FD_MPIO_COLLECTIVE), context, what);
  hdf5_check_ranks(H5Dwrite(set.get(), mem_type, memory.get(), file.get(), transfer.get(), local), context, what, &domain);
  hdf5_check(set.close(), context, what);
#else
  (void)loc, (void)file_type, (void)mem_type, (void)local, (void)s;
#endif
}

namespace {

using namespace output_detail;

class Hdf5XdmfWriter final : public Writer {
 public:
  // `domain`: the run's ranks, when they write the file together (hdf5_collective), else null.
  Hdf5XdmfWriter(const std::filesystem::path& dir, const std::string& name, const Grid& grid,
                 const RunAttributes& attributes, const Domain* domain);
  ~Hdf5XdmfWriter() override;
  void write(int step, double time, std::span<const FieldRef> fields) override;
  void resume(const std::filesystem::path& previous, long first_step) override;
  void close() override;

 private:
  struct Stored {  // a field as the .xmf describes it
    std::string name;
    Precision precision;
    int components;
  };
  struct Output {
    int step;
    double time;
    std::vector<Stored> fields;
  };

  std::string context() const { return "HDF5 output '" + (dir() / h5_name_).string() + "'"; }
  template <class Id> Id check(Id result, const std::string& what) const { return hdf5_check(result, context(), what); }
  void put(hid_t loc, const std::string& name, bool attribute, hid_t file_type, hid_t mem_type,
           const std::vector<hsize_t>& dims, const void* data) {
    hdf5_put_shared(context(), loc, name, attribute, file_type, mem_type, dims, data, domain_);
  }
  void write_grid();
  bool same_grid(hid_t file) const;  // whether a file's /grid is this writer's grid
  void write_series();  // /times and /steps from outputs_
  void commit();        // flush, then the .xmf
  std::string xdmf_text() const;
  std::vector<hsize_t> shape(int components = 1) const;  // dataset shape, slowest axis first

  Grid grid_;
  const Domain* domain_;  // (null: this process writes the file alone)
  std::string name_, h5_name_;
  Handle file_;
  std::vector<Output> outputs_;
  bool closed_ = false, failed_ = false;
};

Hdf5XdmfWriter::Hdf5XdmfWriter(const std::filesystem::path& dir, const std::string& name, const Grid& grid,
                               const RunAttributes& attributes, const Domain* domain)
    : grid_(grid), domain_(hdf5_collective(domain) ? domain : nullptr), name_(name), h5_name_(name + ".h5") {
  set_dir(dir);
  prepare_output(dir, name, grid, context());
  QuietHdf5 quiet;
  file_ = hdf5_create_file(dir / h5_name_, context(), domain_, true);
  hsize_t text = 0;
  for (const auto& [key, value] : attributes) text += key.size() + value.size();
  hdf5_reserve(dir / h5_name_, text, context(), "write the run's attributes", domain_);
  for (const auto& [key, value] : attributes) {
    Handle type(check(H5Tcopy(H5T_C_S1), "write attribute " + key), H5Tclose);
    check(H5Tset_size(type.get(), std::max<std::size_t>(value.size(), 1)), "write attribute " + key);
    put(file_.get(), key, true, type.get(), type.get(), {}, value.c_str());
  }
  write_grid();
  write_series();
  hdf5_check_ranks(H5Fflush(file_.get(), H5F_SCOPE_GLOBAL), context(), "flush", domain_);
}

Hdf5XdmfWriter::~Hdf5XdmfWriter() {
  QuietHdf5 quiet;
  file_.close();  // what was flushed stays: the outputs so far
  H5Eclear2(H5E_DEFAULT);
}

std::vector<hsize_t> Hdf5XdmfWriter::shape(int components) const {
  std::vector<hsize_t> dims;
  for (int a = grid_.dim - 1; a >= 0; --a) dims.push_back(hsize_t(grid_.n[a]));
  if (components > 1) dims.push_back(hsize_t(components));  // the component fastest
  return dims;
}

void Hdf5XdmfWriter::write_grid() {
  Handle group(check(H5Gcreate2(file_.get(), "grid", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "create group /grid"), H5Gclose);
  const int dim = grid_.dim;
  std::vector<std::int64_t> n;
  std::vector<double> lo, hi, spacing;
  for (int a = 0; a < dim; ++a) {
    n.push_back(grid_.n[a]);
    lo.push_back(grid_.lo[a]);
    hi.push_back(grid_.hi[a]);
    spacing.push_back(grid_.stretched(a) ? std::numeric_limits<double>::quiet_NaN() : grid_.h(a));
  }
  const std::vector<hsize_t> d{hsize_t(dim)};
  put(group.get(), "dim", true, H5T_STD_I32LE, H5T_NATIVE_INT, {}, &dim);
  put(group.get(), "n", true, H5T_STD_I64LE, H5T_NATIVE_INT64, d, n.data());
  put(group.get(), "lo", true, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, d, lo.data());
  put(group.get(), "hi", true, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, d, hi.data());
  put(group.get(), "spacing", true, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, d, spacing.data());
  // A stretched grid: every axis's node coordinates, /grid/x, /grid/y, /grid/z (one node on an unused
  // axis), which the .xmf's rectilinear geometry names; spacing is NaN on a stretched axis.
  if (grid_.any_stretched())
    for (int a = 0; a < 3; ++a) {
      const std::vector<double> x = axis_coordinates(grid_, a);
      put(group.get(), kAxisNames[a], false, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {hsize_t(x.size())}, x.data());
    }
  check(group.close(), "write group /grid");
}

void Hdf5XdmfWriter::write_series() {
  std::vector<double> times;
  std::vector<int> steps;
  for (const auto& o : outputs_) {
    times.push_back(o.time);
    steps.push_back(o.step);
  }
  // Rewritten whole each time (a few bytes per output): no chunked, growable layout to go stale.
  for (const char* name : {"times", "steps"})
    if (H5Lexists(file_.get(), name, H5P_DEFAULT) > 0) check(H5Ldelete(file_.get(), name, H5P_DEFAULT), "rewrite /" + std::string(name));
  const std::vector<hsize_t> d{hsize_t(outputs_.size())};
  put(file_.get(), "times", false, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, d, times.data());
  put(file_.get(), "steps", false, H5T_STD_I32LE, H5T_NATIVE_INT, d, steps.data());
}

void Hdf5XdmfWriter::commit() {
  write_series();
  hdf5_check_ranks(H5Fflush(file_.get(), H5F_SCOPE_GLOBAL), context(), "flush", domain_);
  if (!domain_ || domain_->rank() == 0) write_file_atomically(dir() / (name_ + ".xmf"), xdmf_text());
}

void Hdf5XdmfWriter::write(int step, double time, std::span<const FieldRef> fields) {
  if (closed_) throw Error(context() + ": write() after close()");
  if (failed_) throw Error(context() + ": an earlier write failed");
  check_write(step, outputs_.empty() ? -1 : outputs_.back().step, fields, context());
  QuietHdf5 quiet;
  const std::string group_name = "step_" + step_tag(step);
  try {
    hsize_t bytes = 0;
    for (const auto& f : fields)
      bytes += hsize_t(grid_.size()) * hsize_t(f.components) * (f.precision == Precision::float32 ? 4 : 8);
    hdf5_reserve(dir() / h5_name_, bytes, context(), "write step " + std::to_string(step), domain_);
    Handle group(check(H5Gcreate2(file_.get(), group_name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                       "create group /" + group_name),
                 H5Gclose);
    put(group.get(), "time", true, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {}, &time);
    Output out{step, time, {}};
    for (const auto& f : fields) {
      const bool single = f.precision == Precision::float32;
      const hid_t file_type = single ? H5T_IEEE_F32LE : H5T_IEEE_F64LE, mem_type = single ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
      if (domain_)  // f.data: this rank's local array
        hdf5_put_owned(context(), group.get(), f.name, file_type, mem_type, shape(f.components), *domain_, f.components, f.data);
      else
        put(group.get(), f.name, false, file_type, mem_type, shape(f.components), f.data);
      out.fields.push_back({f.name, f.precision, f.components});
    }
    check(group.close(), "write group /" + group_name);
    outputs_.push_back(std::move(out));
    commit();
  } catch (...) {
    failed_ = true;  // the outputs before this one stay valid; no more are added
    if (!outputs_.empty() && outputs_.back().step == step) outputs_.pop_back();
    // (With every rank, not: an error ends the run, and the removal would wait for every rank.)
    if (!domain_) H5Ldelete(file_.get(), group_name.c_str(), H5P_DEFAULT);
    H5Eclear2(H5E_DEFAULT);
    throw;
  }
}

void Hdf5XdmfWriter::resume(const std::filesystem::path& previous, long first_step) {
  QuietHdf5 quiet;
  const auto path = previous / h5_name_;
  std::error_code ec;
  if (!outputs_.empty() || !std::filesystem::exists(path, ec)) return;
  const std::string from = "the previous result '" + path.string() + "'";
  Handle old(hdf5_check(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), from, "open it"), H5Fclose);
  std::vector<std::string> groups;
  H5Literate(
      old.get(), H5_INDEX_NAME, H5_ITER_INC, nullptr,
      [](hid_t, const char* name, const H5L_info_t*, void* out) -> herr_t {
        if (std::string_view(name).starts_with("step_")) static_cast<std::vector<std::string>*>(out)->push_back(name);
        return 0;
      },
      &groups);
  if (!same_grid(old.get())) return;  // another run's result: nothing to continue
  struct Listing {
    int dim;
    std::vector<Stored>* fields;
  };
  for (const auto& g : groups) {
    const long step = std::stol(g.substr(5));
    if (step >= first_step) continue;
    Handle group(hdf5_check(H5Gopen2(old.get(), g.c_str(), H5P_DEFAULT), from, "read /" + g), H5Gclose);
    Output out{int(step), 0.0, {}};
    Listing listing{grid_.dim, &out.fields};
    Handle attr(hdf5_check(H5Aopen(group.get(), "time", H5P_DEFAULT), from, "read /" + g), H5Aclose);
    hdf5_check(H5Aread(attr.get(), H5T_NATIVE_DOUBLE, &out.time), from, "read /" + g);
    H5Literate(
        group.get(), H5_INDEX_NAME, H5_ITER_INC, nullptr,
        [](hid_t loc, const char* name, const H5L_info_t*, void* data) -> herr_t {
          const auto* listing = static_cast<const Listing*>(data);
          const hid_t set = H5Dopen2(loc, name, H5P_DEFAULT);
          const hid_t type = set >= 0 ? H5Dget_type(set) : -1;
          const hid_t space = set >= 0 ? H5Dget_space(set) : -1;
          const bool single = type >= 0 && H5Tget_size(type) == 4;
          // A vector field has one axis more than the grid: its last, the components.
          hsize_t dims[4] = {1, 1, 1, 1};
          const int rank = space >= 0 ? H5Sget_simple_extent_ndims(space) : 0;
          if (rank > listing->dim && rank <= 4) H5Sget_simple_extent_dims(space, dims, nullptr);
          if (space >= 0) H5Sclose(space);
          if (type >= 0) H5Tclose(type);
          if (set >= 0) H5Dclose(set);
          listing->fields->push_back({name, single ? Precision::float32 : Precision::float64,
                                      rank > listing->dim && rank <= 4 ? int(dims[rank - 1]) : 1});
          return 0;
        },
        &listing);
    hdf5_check(H5Ocopy(old.get(), g.c_str(), file_.get(), g.c_str(), H5P_DEFAULT, H5P_DEFAULT), context(),
               "carry /" + g + " over from " + from);
    outputs_.push_back(std::move(out));
  }
  std::sort(outputs_.begin(), outputs_.end(), [](const Output& a, const Output& b) { return a.step < b.step; });
  commit();
}

bool Hdf5XdmfWriter::same_grid(hid_t file) const {
  if (H5Lexists(file, "grid", H5P_DEFAULT) <= 0) return false;
  Handle group(H5Gopen2(file, "grid", H5P_DEFAULT), H5Gclose);
  std::vector<std::int64_t> n(std::size_t(grid_.dim), 0);
  std::vector<double> lo(n.size()), hi(n.size());
  auto get = [&](const char* name, hid_t type, void* out) {
    if (group.get() < 0 || H5Aexists(group.get(), name) <= 0) return false;
    Handle attr(H5Aopen(group.get(), name, H5P_DEFAULT), H5Aclose);
    Handle space(H5Aget_space(attr.get()), H5Sclose);
    return H5Sget_simple_extent_npoints(space.get()) == hssize_t(n.size()) && H5Aread(attr.get(), type, out) >= 0;
  };
  if (!get("n", H5T_NATIVE_INT64, n.data()) || !get("lo", H5T_NATIVE_DOUBLE, lo.data()) ||
      !get("hi", H5T_NATIVE_DOUBLE, hi.data()))
    return false;
  for (int a = 0; a < grid_.dim; ++a)
    if (n[std::size_t(a)] != grid_.n[a] || lo[std::size_t(a)] != grid_.lo[a] || hi[std::size_t(a)] != grid_.hi[a]) return false;
  return true;
}

void Hdf5XdmfWriter::close() {
  if (closed_) return;
  QuietHdf5 quiet;
  closed_ = true;
  hdf5_check_ranks(file_.close(), context(), "close the file", domain_);
}

std::string Hdf5XdmfWriter::xdmf_text() const {
  // XDMF lists axes slowest first: (z, y, x). Every grid is a 3DCoRectMesh, with one node
  // along unused axes: ParaView's Xdmf3 reader places a 2DCoRectMesh in the y-z plane, while
  // this keeps x along x (as the .vti output does). The attributes' DataItems state the same
  // 3 dimensions though 1D/2D datasets have rank 1/2: ParaView's legacy XDMF reader reads
  // only part of a DataItem of lower rank than the mesh; its Xdmf3 readers accept either.
  // (Checked with ParaView 5.11's XDMF, Xdmf3ReaderS and Xdmf3ReaderT readers.)
  std::string dims, origin, spacing;
  for (int a = 2; a >= 0; --a) {
    const std::string sep = a > 0 ? " " : "";
    dims += std::to_string(grid_.n[a]) + sep;
    origin += format_double(grid_.lo[a]) + sep;
    spacing += format_double(display_spacing(grid_, a)) + sep;
  }

  // A stretched grid: a 3DRectMesh whose VXVYVZ geometry reads the coordinates of /grid.
  std::string geometry = "        <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"" + dims + "\"/>\n"
                         "        <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n"
                         "          <DataItem Name=\"Origin\" Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">" +
                         origin + "</DataItem>\n"
                         "          <DataItem Name=\"Spacing\" Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">" +
                         spacing + "</DataItem>\n        </Geometry>\n";
  if (grid_.any_stretched()) {
    geometry = "        <Topology TopologyType=\"3DRectMesh\" Dimensions=\"" + dims + "\"/>\n"
               "        <Geometry GeometryType=\"VXVYVZ\">\n";
    for (int a = 0; a < 3; ++a)
      geometry += "          <DataItem Name=\"V" + std::string(1, char('X' + a)) + "\" Dimensions=\"" + std::to_string(grid_.n[a]) +
                  "\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">" + xml_escape(h5_name_) + ":/grid/" +
                  kAxisNames[a] + "</DataItem>\n";
    geometry += "        </Geometry>\n";
  }

  std::string x = "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n<Xdmf Version=\"3.0\">\n  <Domain>\n";
  x += "    <Grid Name=\"" + xml_escape(name_) + "\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  for (const auto& o : outputs_) {
    const std::string group = "step_" + step_tag(o.step);
    x += "      <Grid Name=\"" + group + "\" GridType=\"Uniform\">\n";
    x += "        <Time Value=\"" + format_double(o.time) + "\"/>\n";
    x += geometry;
    for (const auto& [name, precision, components] : o.fields) {
      const bool vector = components > 1;  // (..., nx, 3): the component fastest
      x += "        <Attribute Name=\"" + xml_escape(name) + "\" AttributeType=\"" + (vector ? "Vector" : "Scalar") +
           "\" Center=\"Node\">\n";
      x += "          <DataItem Dimensions=\"" + dims + (vector ? " " + std::to_string(components) : "") +
           "\" NumberType=\"Float\" Precision=\"" +
           (precision == Precision::float32 ? "4" : "8") + "\" Format=\"HDF\">" + xml_escape(h5_name_) + ":/" + group + "/" +
           xml_escape(name) + "</DataItem>\n";
      x += "        </Attribute>\n";
    }
    x += "      </Grid>\n";
  }
  x += "    </Grid>\n  </Domain>\n</Xdmf>\n";
  return x;
}

}  // namespace

std::unique_ptr<Writer> make_hdf5_xdmf_writer(const std::filesystem::path& dir, const std::string& name,
                                              const Grid& grid, const RunAttributes& attributes, const Domain* domain) {
  return std::make_unique<Hdf5XdmfWriter>(dir, name, grid, attributes, domain);
}

}  // namespace tridsim
