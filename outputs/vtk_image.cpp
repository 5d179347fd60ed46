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
#include <vtkXMLImageDataWriter.h>

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

template <class Array, class T>
void lend(vtkImageData* image, const tridsim::vtk_plugin::PointArray& f, vtkIdType values) {
  vtkNew<Array> a;
  a->SetName(f.name.c_str());
  a->SetNumberOfComponents(f.components);
  a->SetArray(const_cast<T*>(static_cast<const T*>(f.data)), values, 1);
  image->GetPointData()->AddArray(a);
}

}  // namespace

extern "C" bool tridsim_vtk_write_image(const tridsim::vtk_plugin::Image& img, std::ostream& out, std::string& why) {
  vtkObject::GlobalWarningDisplayOff();  // its messages are many lines of its internals
  vtkNew<vtkImageData> image;
  image->SetDimensions(int(img.n[0]), int(img.n[1]), int(img.n[2]));
  image->SetOrigin(img.origin[0], img.origin[1], img.origin[2]);
  image->SetSpacing(img.spacing[0], img.spacing[1], img.spacing[2]);
  const vtkIdType size = img.n[0] * img.n[1] * img.n[2];
  for (const auto& f : img.arrays) {
    // VTK point order is x fastest, as ours, and a vector's tuples are interleaved, as ours: the
    // arrays are lent to VTK without a copy (save = 1: VTK neither frees nor, while writing,
    // modifies them).
    if (f.single) lend<vtkFloatArray, float>(image, f, size * f.components);
    else lend<vtkDoubleArray, double>(image, f, size * f.components);
  }
  vtkNew<vtkDoubleArray> time_value;
  time_value->SetName("TimeValue");
  time_value->InsertNextValue(img.time);
  image->GetFieldData()->AddArray(time_value);

  vtkNew<StreamImageWriter> writer;
  writer->SetOutputStream(&out);
  writer->SetInputData(image);
  writer->SetDataModeToAppended();
  writer->EncodeAppendedDataOff();    // raw binary: no base64 inflation
  writer->SetCompressorTypeToNone();  // large grids are written often; compression would dominate
  writer->SetHeaderTypeToUInt64();    // arrays over 4 GiB
  if (writer->Write() == 1 && writer->GetErrorCode() == 0) return true;
  why = vtkErrorCode::GetStringFromErrorCode(writer->GetErrorCode());
  return false;
}

static_assert(std::is_same_v<decltype(&tridsim_vtk_write_image), tridsim::vtk_plugin::WriteImage>);
