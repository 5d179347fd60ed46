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

#include <climits>
#include <vector>

#include "outputs/files.hpp"
#include "outputs/writer_support.hpp"
#endif

namespace tridsim {

#if TRIDSIM_HAVE_VTK
namespace {

using namespace output_detail;

class VtkWriter final : public Writer {
 public:
  VtkWriter(const std::filesystem::path& dir, const std::string& name, const Grid& grid)
      : dir_(dir), name_(name), grid_(grid), pvd_path_(dir / (name + ".pvd")) {
    prepare_output(dir, name, grid, "VTK output '" + pvd_path_.string() + "'");
    for (int a = 0; a < 3; ++a)
      if (grid.n[a] > INT_MAX) throw Error("VTK output '" + pvd_path_.string() + "': grid too large for VTK");
  }

  ~VtkWriter() override {
    if (closed_) return;
    std::error_code ec;
    for (const auto& p : pieces_) std::filesystem::remove(temporary_path(dir_ / p.file), ec);
  }

  void write(int step, double time, std::span<const FieldRef> fields) override {
    if (closed_) throw Error("VTK output '" + pvd_path_.string() + "': write() after close()");
    if (failed_) throw Error("VTK output '" + pvd_path_.string() + "': an earlier write failed");
    check_write(step, pieces_.empty() ? -1 : pieces_.back().step, fields, "VTK output '" + pvd_path_.string() + "'");

    vtkNew<vtkImageData> image;
    image->SetDimensions(int(grid_.n[0]), int(grid_.n[1]), int(grid_.n[2]));
    image->SetOrigin(grid_.lo[0], grid_.lo[1], grid_.lo[2]);
    image->SetSpacing(display_spacing(grid_, 0), display_spacing(grid_, 1), display_spacing(grid_, 2));
    const vtkIdType size = grid_.size();
    for (const auto& f : fields) {
      // VTK point order is x fastest, as ours: the arrays are lent to VTK without a copy
      // (save = 1: VTK neither frees nor, while writing, modifies them).
      if (f.precision == Precision::float32) {
        vtkNew<vtkFloatArray> a;
        a->SetName(f.name.c_str());
        a->SetArray(const_cast<float*>(static_cast<const float*>(f.data)), size, 1);
        image->GetPointData()->AddArray(a);
      } else {
        vtkNew<vtkDoubleArray> a;
        a->SetName(f.name.c_str());
        a->SetArray(const_cast<double*>(static_cast<const double*>(f.data)), size, 1);
        image->GetPointData()->AddArray(a);
      }
    }
    vtkNew<vtkDoubleArray> time_value;  // ParaView reads a lone .vti's time from "TimeValue"
    time_value->SetName("TimeValue");
    time_value->InsertNextValue(time);
    image->GetFieldData()->AddArray(time_value);

    const std::string file = name_ + "_" + step_tag(step) + ".vti";
    const auto target = dir_ / file;
    const auto tmp = temporary_path(target);
    pieces_.push_back({step, time, file});  // before writing, so a partial file is removed too
    vtkNew<vtkXMLImageDataWriter> writer;
    writer->SetFileName(tmp.c_str());
    writer->SetInputData(image);
    writer->SetDataModeToAppended();
    writer->EncodeAppendedDataOff();       // raw binary: no base64 inflation
    writer->SetCompressorTypeToNone();     // large grids are written often; compression would dominate
    writer->SetHeaderTypeToUInt64();       // arrays over 4 GiB
    if (writer->Write() != 1 || writer->GetErrorCode() != 0) {
      failed_ = true;
      throw Error("VTK output: cannot write '" + target.string() + "' (temporary '" + tmp.string() + "')");
    }
  }

  void close() override {
    if (closed_) return;
    if (failed_) throw Error("VTK output '" + pvd_path_.string() + "': not closed because an earlier write failed");
    // Every .vti takes its final name before the .pvd that lists them appears.
    for (const auto& p : pieces_) rename_file(temporary_path(dir_ / p.file), dir_ / p.file);
    closed_ = true;
    std::string x = "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
                    "  <Collection>\n";
    for (const auto& p : pieces_)
      x += "    <DataSet timestep=\"" + format_double(p.time) + "\" group=\"\" part=\"0\" file=\"" + xml_escape(p.file) + "\"/>\n";
    x += "  </Collection>\n</VTKFile>\n";
    write_file_atomically(pvd_path_, x);
  }

 private:
  struct Piece {
    int step;
    double time;
    std::string file;  // relative to dir_, as the .pvd lists it
  };
  std::filesystem::path dir_;
  std::string name_;
  Grid grid_;
  std::filesystem::path pvd_path_;
  std::vector<Piece> pieces_;
  bool closed_ = false, failed_ = false;
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
