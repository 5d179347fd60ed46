#include "outputs/checkpoint.hpp"

#include <array>
#include <cstdint>
#include <vector>

#include "core/domain.hpp"
#include "core/errors.hpp"
#include "outputs/files.hpp"
#include "core/hdf5_support.hpp"
#include "outputs/hdf5_xdmf_writer.hpp"

namespace tridsim {
namespace {

constexpr const char* kFormat = "tridsim checkpoint 1";

class File {
 public:
  // To read, or to create (`domain`: the ranks that write it together, hdf5_collective; else null).
  // `shown`: the path messages name, the user's checkpoint where `path` is its temporary name.
  File(const std::filesystem::path& path, bool create, const Domain* domain = nullptr,
       const std::filesystem::path& shown = {})
      : path_(shown.empty() ? path : shown), domain_(domain) {
    H5Eclear2(H5E_DEFAULT);
    file_ = create ? hdf5_create_file(path, context(), domain, false)
                   : Handle(check(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), "open it"), H5Fclose);
  }
  std::string context() const { return "checkpoint '" + path_.string() + "'"; }
  template <class Id>
  Id check(Id result, const std::string& what) const {
    return hdf5_check(result, context(), what);
  }
  hid_t id() const { return file_.get(); }
  void close() { hdf5_check_ranks(file_.close(), context(), "close it", domain_); }

  void put(hid_t loc, const std::string& name, hid_t type, std::size_t count, const void* data) {
    hdf5_put_shared(context(), loc, name, false, type, type, {hsize_t(count)}, data, domain_);
  }
  // A state array over the whole grid, from this rank's local array (`per_node` values per node).
  void put_owned(hid_t loc, const std::string& name, hid_t type, int per_node, const void* local) {
    hdf5_put_owned(context(), loc, name, type, type, {hsize_t(per_node) * hsize_t(domain_->global().size())}, *domain_,
                   per_node, local);
  }
  void put_text(const std::string& name, const std::string& text) {
    put(id(), name, H5T_NATIVE_CHAR, text.size(), text.data());
  }
  void put_attribute(const std::string& name, hid_t type, const void* data, hsize_t count) {
    hdf5_put_shared(context(), id(), name, true, type, type, {count}, data, domain_);
  }

  // A dataset's element count (-1: absent).
  long long count(hid_t loc, const std::string& name) const {
    if (H5Lexists(loc, name.c_str(), H5P_DEFAULT) <= 0) return -1;
    Handle set(check(H5Dopen2(loc, name.c_str(), H5P_DEFAULT), "read " + name), H5Dclose);
    Handle space(check(H5Dget_space(set.get()), "read " + name), H5Sclose);
    return (long long)(H5Sget_simple_extent_npoints(space.get()));
  }
  void get(hid_t loc, const std::string& name, hid_t type, void* data) const {
    Handle set(check(H5Dopen2(loc, name.c_str(), H5P_DEFAULT), "read " + name), H5Dclose);
    check(H5Dread(set.get(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), "read " + name);
  }
  std::string get_text(const std::string& name) const {
    const long long n = count(id(), name);
    if (n < 0) throw Error("--restart " + path_.string() + ": not a tridsim checkpoint (no '" + name + "' in it)");
    std::string text(std::size_t(n), '\0');
    if (n > 0) get(id(), name, H5T_NATIVE_CHAR, text.data());
    return text;
  }
  template <class T>
  void get_attribute(const std::string& name, hid_t type, T* data) const {
    Handle attr(check(H5Aopen(id(), name.c_str(), H5P_DEFAULT), "read " + name), H5Aclose);
    check(H5Aread(attr.get(), type, data), "read " + name);
  }

 private:
  std::filesystem::path path_;
  const Domain* domain_;
  Handle file_;
};

hid_t memory_type(Precision p) { return p == Precision::float32 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE; }

}  // namespace

void write_checkpoint(const std::filesystem::path& path, const CheckpointInfo& info, std::span<const StateArray> state,
                      const Domain* domain) {
  const QuietHdf5 quiet;
  const std::filesystem::path tmp = temporary_path(path);
  const Domain* shared = hdf5_collective(domain) ? domain : nullptr;
  const bool root = !shared || shared->rank() == 0;
  try {
    File f(tmp, true, shared, path);
    hsize_t bytes = info.deck.size() + info.deck_file.size();
    for (const StateArray& a : state)  // (with every rank: a.count is this rank's local array)
      bytes += hsize_t(shared ? a.count / shared->local().size() * shared->global().size() : a.count) *
               (a.precision == Precision::float32 ? 4 : 8);
    hdf5_reserve(tmp, bytes, f.context(), "write it", shared);
    f.put_text("format", kFormat);
    for (const auto& [key, text] : {std::pair<const char*, const std::string&>{"module", info.module},
                                    {"precision", info.precision},
                                    {"version", info.version},
                                    {"revision", info.revision},
                                    {"deck", info.deck},
                                    {"name", info.name},
                                    {"deck_file", info.deck_file}})
      f.put_text(key, text);
    const std::int64_t step = info.step;
    const std::int64_t dim = info.grid.dim;
    f.put_attribute("dim", H5T_NATIVE_INT64, &dim, 1);
    f.put_attribute("step", H5T_NATIVE_INT64, &step, 1);
    f.put_attribute("time", H5T_NATIVE_DOUBLE, &info.time, 1);
    const std::array<std::int64_t, 3> n = {info.grid.n[0], info.grid.n[1], info.grid.n[2]};
    f.put_attribute("n", H5T_NATIVE_INT64, n.data(), 3);
    f.put_attribute("lo", H5T_NATIVE_DOUBLE, info.grid.lo.data(), 3);
    f.put_attribute("hi", H5T_NATIVE_DOUBLE, info.grid.hi.data(), 3);
    Handle group(f.check(H5Gcreate2(f.id(), "state", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "create /state"), H5Gclose);
    for (const StateArray& a : state) {
      if (shared)
        f.put_owned(group.get(), a.name, memory_type(a.precision), int(a.count / shared->local().size()), a.data);
      else
        f.put(group.get(), a.name, memory_type(a.precision), std::size_t(a.count), a.data);
    }
    group.close();
    f.close();
  } catch (...) {
    std::error_code ec;
    if (root) std::filesystem::remove(tmp, ec);
    throw;
  }
  if (shared) shared->barrier();  // every rank's part is in the file before it gets its name
  if (root) rename_file(tmp, path);
}

CheckpointInfo read_checkpoint_info(const std::filesystem::path& path) {
  const QuietHdf5 quiet;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw Error("--restart: no such file: '" + path.string() + "'");
  if (H5Fis_hdf5(path.c_str()) <= 0)
    throw Error("--restart: '" + path.string() + "' is not an HDF5 file (a checkpoint is NAME_checkpoint_STEP.h5)");
  const File f(path, false);
  if (f.get_text("format") != kFormat)
    throw Error("--restart: '" + path.string() + "' is not a checkpoint of this tridsim (format '" +
                f.get_text("format") + "')");
  CheckpointInfo info;
  info.module = f.get_text("module");
  info.precision = f.get_text("precision");
  info.version = f.get_text("version");
  info.revision = f.get_text("revision");
  info.deck = f.get_text("deck");
  for (auto [key, text] : {std::pair{"name", &info.name}, {"deck_file", &info.deck_file}})
    if (f.count(f.id(), key) >= 0) *text = f.get_text(key);  // (older checkpoints lack them)
  std::int64_t step = 0, dim = 1;
  f.get_attribute("dim", H5T_NATIVE_INT64, &dim);
  std::array<std::int64_t, 3> n{};
  f.get_attribute("step", H5T_NATIVE_INT64, &step);
  f.get_attribute("time", H5T_NATIVE_DOUBLE, &info.time);
  f.get_attribute("n", H5T_NATIVE_INT64, n.data());
  f.get_attribute("lo", H5T_NATIVE_DOUBLE, info.grid.lo.data());
  f.get_attribute("hi", H5T_NATIVE_DOUBLE, info.grid.hi.data());
  info.step = long(step);
  info.grid.dim = int(dim);
  for (int a = 0; a < 3; ++a) info.grid.n[a] = index_t(n[a]);
  return info;
}

void read_checkpoint_state(const std::filesystem::path& path, std::span<const StateArray> state) {
  const QuietHdf5 quiet;
  const File f(path, false);
  Handle group(f.check(H5Gopen2(f.id(), "state", H5P_DEFAULT), "open /state"), H5Gclose);
  for (const StateArray& a : state) {
    const long long n = f.count(group.get(), a.name);
    if (n != (long long)a.count)
      throw Error("--restart: '" + path.string() + "': state array '" + a.name + "' " +
                  (n < 0 ? std::string("is missing") : "has " + std::to_string(n) + " values, expected " + std::to_string(a.count)));
    f.get(group.get(), a.name, memory_type(a.precision), a.data);
  }
}

}  // namespace tridsim
