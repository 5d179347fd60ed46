// VTK writer: one <name>_<step>.vti image per output time and a <name>.pvd collection that
// ParaView opens as a time series. Only in builds with VTK (TRIDSIM_HAVE_VTK).
#include "tridsim_build_info.hpp"

#include "core/errors.hpp"
#include "outputs/writer.hpp"

#if TRIDSIM_HAVE_VTK
#include <vtkDoubleArray.h>
#include <vtkFieldData.h>
#include <vtkFloatArray.h>
#include <vtkImageData.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkXMLImageDataWriter.h>

#include <vtkErrorCode.h>
#include <vtkObjectFactory.h>

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

#include "outputs/files.hpp"
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

// vtkXMLImageDataWriter writing into a stream of ours (VTK uses a stream it is given).
class StreamImageWriter : public vtkXMLImageDataWriter {
 public:
  static StreamImageWriter* New();
  vtkTypeMacro(StreamImageWriter, vtkXMLImageDataWriter);
  void SetOutputStream(std::ostream* stream) { Stream = stream; }
};
vtkStandardNewMacro(StreamImageWriter);

class VtkWriter final : public Writer {
 public:
  VtkWriter(const std::filesystem::path& dir, const std::string& name, const Grid& grid) : name_(name), grid_(grid) {
    set_dir(dir);
    prepare_output(dir, name, grid, context());
    for (int a = 0; a < 3; ++a)
      if (grid.n[a] > INT_MAX) throw Error(context() + ": grid too large for VTK");
    vtkObject::GlobalWarningDisplayOff();
  }

  ~VtkWriter() override {
    std::error_code ec;
    if (!pending_.empty()) std::filesystem::remove(dir() / pending_, ec);
  }

  void write(int step, double time, std::span<const FieldRef> fields) override {
    if (closed_) throw Error(context() + ": write() after close()");
    check_write(step, pieces_.empty() ? -1 : pieces_.back().step, fields, context());

    vtkNew<vtkImageData> image;
    image->SetDimensions(int(grid_.n[0]), int(grid_.n[1]), int(grid_.n[2]));
    image->SetOrigin(grid_.lo[0], grid_.lo[1], grid_.lo[2]);
    image->SetSpacing(display_spacing(grid_, 0), display_spacing(grid_, 1), display_spacing(grid_, 2));
    const vtkIdType size = grid_.size();
    for (const auto& f : fields) {
      // VTK point order is x fastest, as ours, and a vector's tuples are interleaved, as ours: the
      // arrays are lent to VTK without a copy (save = 1: VTK neither frees nor, while writing,
      // modifies them).
      const vtkIdType values = size * f.components;
      if (f.precision == Precision::float32) {
        vtkNew<vtkFloatArray> a;
        a->SetName(f.name.c_str());
        a->SetNumberOfComponents(f.components);
        a->SetArray(const_cast<float*>(static_cast<const float*>(f.data)), values, 1);
        image->GetPointData()->AddArray(a);
      } else {
        vtkNew<vtkDoubleArray> a;
        a->SetName(f.name.c_str());
        a->SetNumberOfComponents(f.components);
        a->SetArray(const_cast<double*>(static_cast<const double*>(f.data)), values, 1);
        image->GetPointData()->AddArray(a);
      }
    }
    vtkNew<vtkDoubleArray> time_value;  // ParaView reads a lone .vti's time from "TimeValue"
    time_value->SetName("TimeValue");
    time_value->InsertNextValue(time);
    image->GetFieldData()->AddArray(time_value);

    // Written under a temporary name, renamed when whole; then the .pvd that lists it.
    const std::string file = name_ + "_" + step_tag(step) + ".vti";
    const auto target = dir() / file;
    pending_ = temporary_path(target).filename();
    FileStreambuf out(dir() / pending_);
    std::ostream stream(&out);
    vtkNew<StreamImageWriter> writer;
    writer->SetOutputStream(&stream);
    writer->SetInputData(image);
    writer->SetDataModeToAppended();
    writer->EncodeAppendedDataOff();       // raw binary: no base64 inflation
    writer->SetCompressorTypeToNone();     // large grids are written often; compression would dominate
    writer->SetHeaderTypeToUInt64();       // arrays over 4 GiB
    const bool written = writer->Write() == 1 && writer->GetErrorCode() == 0;
    if (const int err = out.finish(); err != 0 || !written)
      throw Error("VTK output: cannot write '" + target.string() + "': " +
                  (err != 0 ? std::strerror(err) : vtkErrorCode::GetStringFromErrorCode(writer->GetErrorCode())));
    rename_file(dir() / pending_, target);
    pending_.clear();
    pieces_.push_back({step, time, file});
    write_pvd();
  }

  void resume(const std::filesystem::path& previous, long first_step) override {
    std::ifstream pvd(previous / (name_ + ".pvd"));
    if (!pieces_.empty() || !pvd) return;
    // Our own .pvd: one DataSet line per piece, with its time and file.
    static const std::regex line("<DataSet timestep=\"([^\"]*)\" group=\"\" part=\"0\" file=\"([^\"/]*_([0-9]+)\\.vti)\"/>");
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
