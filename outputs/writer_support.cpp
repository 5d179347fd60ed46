#include "outputs/writer_support.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <set>

#include "core/errors.hpp"

namespace tridsim::output_detail {

std::string step_tag(int step) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%06d", step);
  return buf;
}

std::string format_double(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);  // shortest round-trip form
  return std::string(buf, r.ptr);
}

std::string xml_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

std::vector<double> axis_coordinates(const Grid& grid, int axis) {
  std::vector<double> x(std::size_t(grid.n[axis]));
  for (index_t i = 0; i < grid.n[axis]; ++i) x[std::size_t(i)] = grid.coord(axis, i);
  return x;
}

double display_spacing(const Grid& grid, int axis) {
  const double h = grid.h(axis);
  return h != 0.0 ? h : 1.0;
}

void prepare_output(const std::filesystem::path& dir, const std::string& name, const Grid& grid,
                    const std::string& what) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos)
    throw Error(what + ": output name '" + name + "' must be a plain file name");
  if (grid.dim < 1 || grid.dim > 3) throw Error(what + ": grid dimension must be 1, 2 or 3, not " + std::to_string(grid.dim));
  for (int a = 0; a < 3; ++a) {
    if (grid.n[a] < 1 || (a >= grid.dim && grid.n[a] != 1))
      throw Error(what + ": grid has " + std::to_string(grid.n[a]) + " nodes along axis " + std::to_string(a) +
                  " of a " + std::to_string(grid.dim) + "-D grid");
    if (!std::isfinite(grid.lo[a]) || !std::isfinite(grid.hi[a])) throw Error(what + ": grid bounds are not finite");
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error(what + ": cannot create output directory '" + dir.string() + "': " + ec.message());
}

void check_write(int step, int last_step, std::span<const FieldRef> fields, const std::string& what) {
  if (step < 0) throw Error(what + ": step " + std::to_string(step) + " is negative");
  if (step <= last_step)
    throw Error(what + ": step " + std::to_string(step) + " written after step " + std::to_string(last_step) +
                "; steps must increase");
  std::set<std::string> seen;
  for (const auto& f : fields) {
    if (f.name.empty() || f.name.find('/') != std::string::npos || f.name == "." || f.name == "..")
      throw Error(what + ": field name '" + f.name + "' is empty or contains '/'");
    if (!seen.insert(f.name).second) throw Error(what + ": field '" + f.name + "' given twice at step " + std::to_string(step));
    if (!f.data) throw Error(what + ": field '" + f.name + "' has no data");
    if (f.components != 1 && f.components != 3)
      throw Error(what + ": field '" + f.name + "' has " + std::to_string(f.components) +
                  " components; a field is a scalar (1) or a vector (3)");
  }
}

}  // namespace tridsim::output_detail
