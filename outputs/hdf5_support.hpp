#pragma once
// Small helpers over the HDF5 C API shared by the HDF5 writer and the checkpoint files.
#include <hdf5.h>

#include <string>
#include <utility>

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

}  // namespace tridsim
