#pragma once
// Small helpers over the HDF5 C API (namespace tridsim) shared by every reader and writer of HDF5
// files (outputs, checkpoints, tissue maps, Poisson sources).
#include <hdf5.h>

#include <string>
#include <utility>
#include <vector>

#include "core/errors.hpp"

namespace tridsim {

// Silences HDF5's printing of its error stack while in scope (restoring the caller's handler
// after), so a failure reaches the user as one tridsim::Error rather than a page of stderr.
class QuietHdf5 {
 public:
  QuietHdf5() {
    H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~QuietHdf5() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }
  QuietHdf5(const QuietHdf5&) = delete;
  QuietHdf5& operator=(const QuietHdf5&) = delete;

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

// The innermost (most specific) message on HDF5's error stack; clears the stack.
inline std::string hdf5_reason() {
  std::string reason;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_DOWNWARD,
      [](unsigned, const H5E_error2_t* e, void* out) -> herr_t {
        if (e->desc && *e->desc) *static_cast<std::string*>(out) = e->desc;
        return 0;
      },
      &reason);
  H5Eclear2(H5E_DEFAULT);
  // A failed system call: HDF5's message holds the system's reason among many details.
  const std::string key = "error message = '";
  if (const auto at = reason.find(key); at != std::string::npos) {
    const auto end = reason.find('\'', at + key.size());
    if (end != std::string::npos) return reason.substr(at + key.size(), end - at - key.size());
  }
  return reason.empty() ? "unknown HDF5 error" : reason;
}

// Owns one HDF5 identifier and closes it with the matching H5?close.
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle() = default;
  Handle(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  Handle(Handle&& o) noexcept : id_(std::exchange(o.id_, -1)), closer_(o.closer_) {}
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      close();
      id_ = std::exchange(o.id_, -1);
      closer_ = o.closer_;
    }
    return *this;
  }
  ~Handle() { close(); }
  hid_t get() const { return id_; }
  // Closes now; the result matters for the file, whose close is where data is flushed.
  herr_t close() { return id_ >= 0 ? closer_(std::exchange(id_, -1)) : 0; }

 private:
  hid_t id_ = -1;
  Closer closer_ = nullptr;
};

// `result` when it is a valid identifier or status; else throws "CONTEXT: cannot WHAT: reason".
template <class Id>
Id hdf5_check(Id result, const std::string& context, const std::string& what) {
  if (result < 0) throw Error(context + ": cannot " + what + ": " + hdf5_reason());
  return result;
}

// Writes a dataset (or, with attribute, an attribute) of shape `dims` (empty: scalar) at `loc`.
inline void hdf5_put(const std::string& context, hid_t loc, const std::string& name, bool attribute, hid_t file_type,
                     hid_t mem_type, const std::vector<hsize_t>& dims, const void* data) {
  const std::string what = "write " + std::string(attribute ? "attribute " : "dataset ") + name;
  Handle space(hdf5_check(dims.empty() ? H5Screate(H5S_SCALAR) : H5Screate_simple(int(dims.size()), dims.data(), nullptr),
                          context, what),
               H5Sclose);
  if (attribute) {
    Handle attr(hdf5_check(H5Acreate2(loc, name.c_str(), file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT), context, what),
                H5Aclose);
    hdf5_check(H5Awrite(attr.get(), mem_type, data), context, what);
    hdf5_check(attr.close(), context, what);
  } else {
    Handle set(hdf5_check(H5Dcreate2(loc, name.c_str(), file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                          context, what),
               H5Dclose);
    hsize_t count = 1;
    for (auto d : dims) count *= d;
    if (count > 0) hdf5_check(H5Dwrite(set.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), context, what);  // HDF5 rejects a null buffer
    hdf5_check(set.close(), context, what);
  }
}

}  // namespace tridsim
