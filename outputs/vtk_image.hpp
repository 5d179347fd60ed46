#pragma once
// The part of the VTK writer that calls VTK (namespace tridsim::vtk_plugin; outputs/vtk_image.cpp): one image with its point
// arrays written as a .vti into a stream. It is a plugin, libtridsim_vtk.so, that
// outputs/vtk_writer.cpp opens on the first write: VTK's libraries, loaded at start-up, would
// cost every process tens of milliseconds, also one that never writes a .vti.
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace tridsim::vtk_plugin {

struct PointArray {
  std::string name;
  int components;
  bool single;       // float, else double
  const void* data;  // x fastest, components interleaved
};

struct Image {
  std::int64_t n[3];
  double origin[3], spacing[3];
  double time;  // stored as the field "TimeValue", which ParaView reads as a lone .vti's time
  std::vector<PointArray> arrays;
  // A stretched grid: each axis's n node coordinates (origin and spacing unused), written as a
  // rectilinear grid (.vtr) instead of image data.
  std::vector<double> coordinates[3];
  bool rectilinear() const { return !coordinates[0].empty(); }
};

// Writes `image` as XML image data, or a rectilinear grid where image.rectilinear() (appended raw
// binary, 64-bit headers, no compression) into `out`; false, with VTK's reason in `why`, when VTK
// failed.
using WriteImage = bool (*)(const Image& image, std::ostream& out, std::string& why);
constexpr const char* kWriteImageSymbol = "tridsim_vtk_write_image";

}  // namespace tridsim::vtk_plugin
