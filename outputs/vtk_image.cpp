// libtridsim_vtk.so: the image writer of outputs/vtk_image.hpp, the only code that links VTK.
#include "outputs/vtk_image.hpp"

#include <vtkDoubleArray.h>
#include <vtkErrorCode.h>
#include <vtkFieldData.h>
#include <vtkFloatArray.h>
#include <vtkImageData.h>
#include <vtkNew.h>
#include <vtkObjectFactory.h>
#include <vtkPointData.h>
#include <vtkRectilinearGrid.h>
#include <vtkXMLImageDataWriter.h>
#include <vtkXMLRectilinearGridWriter.h>

#include <type_traits>

namespace {

// vtkXMLImageDataWriter writing into a stream of ours (VTK uses a stream it is given).
class StreamImageWriter : public vtkXMLImageDataWriter {
 public:
  static StreamImageWriter* New();
  vtkTypeMacro(StreamImageWriter, vtkXMLImageDataWriter);
  void SetOutputStream(std::ostream* stream) { Stream = stream; }
};
vtkStandardNewMacro(StreamImageWriter);

// The same for a rectilinear grid (a stretched grid's .vtr).
class StreamRectilinearWriter : public vtkXMLRectilinearGridWriter {
 public:
  static StreamRectilinearWriter* New();
  vtkTypeMacro(StreamRectilinearWriter, vtkXMLRectilinearGridWriter);
  void SetOutputStream(std::ostream* stream) { Stream = stream; }
};
vtkStandardNewMacro(StreamRectilinearWriter);

template <class Array, class T>
void lend(vtkDataSet* image, const tridsim::vtk_plugin::PointArray& f, vtkIdType values) {
  vtkNew<Array> a;
  a->SetName(f.name.c_str());
  a->SetNumberOfComponents(f.components);
  a->SetArray(const_cast<T*>(static_cast<const T*>(f.data)), values, 1);
  image->GetPointData()->AddArray(a);
}

// The point arrays (lent) and the time of `img` on `data`; then `writer` writes it into `out`.
template <class Writer>
bool write_data(const tridsim::vtk_plugin::Image& img, vtkDataSet* data, Writer* writer, std::ostream& out,
                std::string& why) {
  const vtkIdType size = img.n[0] * img.n[1] * img.n[2];
  for (const auto& f : img.arrays) {
    // VTK point order is x fastest, as ours, and a vector's tuples are interleaved, as ours: the
    // arrays are lent to VTK without a copy (save = 1: VTK neither frees nor, while writing,
    // modifies them).
    if (f.single) lend<vtkFloatArray, float>(data, f, size * f.components);
    else lend<vtkDoubleArray, double>(data, f, size * f.components);
  }
  vtkNew<vtkDoubleArray> time_value;
  time_value->SetName("TimeValue");
  time_value->InsertNextValue(img.time);
  data->GetFieldData()->AddArray(time_value);

  writer->SetOutputStream(&out);
  writer->SetInputData(data);
  writer->SetDataModeToAppended();
  writer->EncodeAppendedDataOff();    // raw binary: no base64 inflation
  writer->SetCompressorTypeToNone();  // large grids are written often; compression would dominate
  writer->SetHeaderTypeToUInt64();    // arrays over 4 GiB
  if (writer->Write() == 1 && writer->GetErrorCode() == 0) return true;
  why = vtkErrorCode::GetStringFromErrorCode(writer->GetErrorCode());
  return false;
}

}  // namespace

extern "C" bool tridsim_vtk_write_image(const tridsim::vtk_plugin::Image& img, std::ostream& out, std::string& why) {
  vtkObject::GlobalWarningDisplayOff();  // its messages are many lines of its internals
  if (img.rectilinear()) {
    vtkNew<vtkRectilinearGrid> grid;
    grid->SetDimensions(int(img.n[0]), int(img.n[1]), int(img.n[2]));
    vtkNew<vtkDoubleArray> axes[3];
    for (int a = 0; a < 3; ++a)
      axes[a]->SetArray(const_cast<double*>(img.coordinates[a].data()), vtkIdType(img.coordinates[a].size()), 1);
    grid->SetXCoordinates(axes[0]);
    grid->SetYCoordinates(axes[1]);
    grid->SetZCoordinates(axes[2]);
    vtkNew<StreamRectilinearWriter> writer;
    return write_data(img, grid, writer.Get(), out, why);
  }
  vtkNew<vtkImageData> image;
  image->SetDimensions(int(img.n[0]), int(img.n[1]), int(img.n[2]));
  image->SetOrigin(img.origin[0], img.origin[1], img.origin[2]);
  image->SetSpacing(img.spacing[0], img.spacing[1], img.spacing[2]);
  vtkNew<StreamImageWriter> writer;
  return write_data(img, image, writer.Get(), out, why);
}

static_assert(std::is_same_v<decltype(&tridsim_vtk_write_image), tridsim::vtk_plugin::WriteImage>);
