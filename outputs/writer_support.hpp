#pragma once
// Helpers shared by the writers in outputs/ (namespace tridsim::output_detail); not part of the
// writer API.
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/grid.hpp"
#include "outputs/writer.hpp"

namespace tridsim::output_detail {

// Step number as used in group and file names: at least 6 digits ("000010").
std::string step_tag(int step);

// Shortest decimal text that reads back to exactly `v`.
std::string format_double(double v);

// `s` with &, <, >, " and ' escaped, for XML attribute values and text.
std::string xml_escape(std::string_view s);

// The node coordinates of `axis` (one, lo, on an unused axis), for rectilinear outputs.
std::vector<double> axis_coordinates(const Grid& grid, int axis);
inline constexpr const char* kAxisNames[3] = {"x", "y", "z"};

// Spacing of `axis` for viewers: h, or 1 where the axis has a single node (h = 0), since
// an image with zero spacing is degenerate in VTK and XDMF.
double display_spacing(const Grid& grid, int axis);

// Check a writer's arguments and create `dir`; `what` names the file for messages.
void prepare_output(const std::filesystem::path& dir, const std::string& name, const Grid& grid,
                    const std::string& what);

// Check one write() call: steps strictly increase (last_step < 0: none yet), fields have
// distinct names usable in files, non-null data and 1 or 3 components.
void check_write(int step, int last_step, std::span<const FieldRef> fields, const std::string& what);

}  // namespace tridsim::output_detail
