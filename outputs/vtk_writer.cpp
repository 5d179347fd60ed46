// VTK writer: one <name>_<step>.vti image (a .vtr rectilinear grid on a stretched grid) per output
// time and a <name>.pvd collection that ParaView opens as a time series. Only in builds with VTK (TRIDSIM_HAVE_VTK).
#include "tridsim_build_info.hpp"

#include "core/errors.hpp"
#include "outputs/writer.hpp"

#if TRIDSIM_HAVE_VTK
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>
#include <ostream>
#include <regex>
#include <streambuf>
#include <vector>

#include "core/lazy_library.hpp"
#include "outputs/files.hpp"
#include "outputs/vtk_image.hpp"
#include "outputs/writer_support.hpp"
#endif

namespace tridsim {

#if TRIDSIM_HAVE_VTK
namespace {

using namespace output_detail;

// A file as an ostream that remembers why a write failed (errno), for the error message: VTK's
// own reason is often lost (and its messages, many lines of its internals, are silenced).
class FileStreambuf final : public std::streambuf {
 public:
  explicit FileStreambuf(const std::filesystem::path& path)
      : fd_(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)), buffer_(1 << 20) {
    if (fd_ < 0) error_ = errno;
    setp(buffer_.data(), buffer_.data() + buffer_.size());
  }
  ~FileStreambuf() override { finish(); }
  // Flushes and closes; the errno of the first failure, or 0.
  int finish() {
    sync();
    if (fd_ >= 0 && ::close(fd_) != 0 && error_ == 0) error_ = errno;
    fd_ = -1;
    return error_;
  }

 protected:
  int overflow(int c) override {
    if (sync() != 0) return traits_type::eof();
    if (c != traits_type::eof()) *pptr() = char(c), pbump(1);
    return traits_type::not_eof(c);
  }
  int sync() override {
    if (error_ == 0 && pptr() > pbase()) error_ = write_all(fd_, pbase(), std::size_t(pptr() - pbase()));
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    return error_ == 0 ? 0 : -1;
  }
  pos_type seekoff(off_type off, std::ios_base::seekdir dir, std::ios_base::openmode) override {
    if (sync() != 0) return pos_type(off_type(-1));
    const int whence = dir == std::ios_base::beg ? SEEK_SET : dir == std::ios_base::cur ? SEEK_CUR : SEEK_END;
    return pos_type(off_type(::lseek(fd_, off, whence)));
  }
  pos_type seekpos(pos_type pos, std::ios_base::openmode which) override {
    return seekoff(off_type(pos), std::ios_base::beg, which);
  }

 private:
  int fd_;
  int error_ = 0;
  std::vector<char> buffer_;
};

// The plugin that calls VTK (outputs/vtk_image.hpp), opened on the first write: by the dynamic
// linker's search (an installed program's RUNPATH names its library folder), else from this
// build's library folder, else from the install prefix.
const lazy::Library vtk_library{"The VTK plugin libtridsim_vtk.so",
                                {"libtridsim_vtk.so", TRIDSIM_VTK_PLUGIN_BUILD_DIR "/libtridsim_vtk.so",
                                 TRIDSIM_VTK_PLUGIN_INSTALL_DIR "/libtridsim_vtk.so"},
                                "VTK output (output.formats: vtk)"};

class VtkWriter final : public Writer {
 public:
  VtkWriter(const std::filesystem::path& dir, const std::string& name, const Grid& grid) : name_(name), grid_(grid) {
    set_dir(dir);
    prepare_output(dir, name, grid, context());
    for (int a = 0; a < 3; ++a)
      if (grid.n[a] > INT_MAX) throw Error(context() + ": grid too large for VTK");
  }

  ~VtkWriter() override {
    std::error_code ec;
    if (!pending_.empty()) std::filesystem::remove(dir() / pending_, ec);
  }

  void write(int step, double time, std::span<const FieldRef> fields) override {
    if (closed_) throw Error(context() + ": write() after close()");
    check_write(step, pieces_.empty() ? -1 : pieces_.back().step, fields, context());
    static const auto write_image =
        reinterpret_cast<vtk_plugin::WriteImage>(lazy::symbol(vtk_library, vtk_plugin::kWriteImageSymbol));

    vtk_plugin::Image image{{grid_.n[0], grid_.n[1], grid_.n[2]},
                            {grid_.lo[0], grid_.lo[1], grid_.lo[2]},
                            {display_spacing(grid_, 0), display_spacing(grid_, 1), display_spacing(grid_, 2)},
                            time,
                            {}};
    for (const auto& f : fields)
      image.arrays.push_back({f.name, f.components, f.precision == Precision::float32, f.data});
    if (grid_.any_stretched())  // the real coordinates: a rectilinear grid
      for (int a = 0; a < 3; ++a) image.coordinates[a] = axis_coordinates(grid_, a);

    // Written under a temporary name, renamed when whole; then the .pvd that lists it.
    const std::string file = name_ + "_" + step_tag(step) + (grid_.any_stretched() ? ".vtr" : ".vti");
    const auto target = dir() / file;
    pending_ = temporary_path(target).filename();
    FileStreambuf out(dir() / pending_);
    std::ostream stream(&out);
    std::string why;
    const bool written = write_image(image, stream, why);
    if (const int err = out.finish(); err != 0 || !written)
      throw Error("VTK output: cannot write '" + target.string() + "': " + (err != 0 ? std::strerror(err) : why));
    rename_file(dir() / pending_, target);
    pending_.clear();
    pieces_.push_back({step, time, file});
    write_pvd();
  }

  void resume(const std::filesystem::path& previous, long first_step) override {
    std::ifstream pvd(previous / (name_ + ".pvd"));
    if (!pieces_.empty() || !pvd) return;
    // Our own .pvd: one DataSet line per piece, with its time and file.
    static const std::regex line("<DataSet timestep=\"([^\"]*)\" group=\"\" part=\"0\" file=\"([^\"/]*_([0-9]+)\\.vt[ir])\"/>");
    std::smatch m;
    for (std::string text; std::getline(pvd, text);) {
      if (!std::regex_search(text, m, line) || std::stol(m[3]) >= first_step) continue;
      const std::string file = m[2];
      link_or_copy(previous / file, dir() / file);
      pieces_.push_back({int(std::stol(m[3])), std::strtod(m[1].str().c_str(), nullptr), file});
    }
    write_pvd();
  }

  void close() override { closed_ = true; }

 private:
  struct Piece {
    int step;
    double time;
    std::string file;  // relative to dir(), as the .pvd lists it
  };

  std::string context() const { return "VTK output '" + (dir() / (name_ + ".pvd")).string() + "'"; }

  void write_pvd() const {
    std::string x = "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
                    "  <Collection>\n";
    for (const auto& p : pieces_)
      x += "    <DataSet timestep=\"" + format_double(p.time) + "\" group=\"\" part=\"0\" file=\"" + xml_escape(p.file) + "\"/>\n";
    x += "  </Collection>\n</VTKFile>\n";
    write_file_atomically(dir() / (name_ + ".pvd"), x);
  }

  std::string name_;
  Grid grid_;
  std::vector<Piece> pieces_;
  std::filesystem::path pending_;  // the temporary file of a write in progress
  bool closed_ = false;
};

}  // namespace

bool vtk_available() { return true; }

std::unique_ptr<Writer> make_vtk_writer(const std::filesystem::path& dir, const std::string& name, const Grid& grid) {
  return std::make_unique<VtkWriter>(dir, name, grid);
}

#else

bool vtk_available() { return false; }

std::unique_ptr<Writer> make_vtk_writer(const std::filesystem::path&, const std::string&, const Grid&) {
  throw Error("this build has no VTK support; rebuild with -DTRIDSIM_VTK=ON");
}

#endif

}  // namespace tridsim
