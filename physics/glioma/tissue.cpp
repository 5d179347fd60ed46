#include "physics/glioma/tissue.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "core/errors.hpp"
#include "core/hdf5_support.hpp"
#include "physics/module_keys.hpp"
#include "tridsim_build_info.hpp"

#if TRIDSIM_HAVE_NIFTI
#include <nifti2_io.h>
#endif

namespace tridsim::glioma {

double VoxelImage::sample(double x, double y, double z) const {
  double f[3];
  long i0[3];
  double w[3];
  for (int a = 0; a < 3; ++a) {
    const auto& m = world_to_voxel[a];
    f[a] = m[0] * x + m[1] * y + m[2] * z + m[3];
    const double hi = double(n[a] - 1);
    // Outside the image: background. (A placement of extreme numbers, e.g. a spacing of 1e-320
    // whose inverse is inf, can make f NaN, which no index can come from.)
    if (!(f[a] >= -0.5 && f[a] <= hi + 0.5)) return 0.0;
    f[a] = std::clamp(f[a], 0.0, hi);
    i0[a] = std::min(long(std::floor(f[a])), std::max(0L, n[a] - 2));
    w[a] = n[a] > 1 ? f[a] - double(i0[a]) : 0.0;
  }
  double v = 0;
  for (int c = 0; c < 8; ++c) {
    const int dx = c & 1, dy = (c >> 1) & 1, dz = (c >> 2) & 1;
    const double wt = (dx ? w[0] : 1 - w[0]) * (dy ? w[1] : 1 - w[1]) * (dz ? w[2] : 1 - w[2]);
    if (wt == 0) continue;
    const long i = i0[0] + dx, j = i0[1] + dy, k = i0[2] + dz;
    v += wt * values[std::size_t(i + n[0] * (j + n[1] * k))];
  }
  return v;
}

std::array<std::array<double, 4>, 3> axis_aligned(const std::array<double, 3>& origin,
                                                  const std::array<double, 3>& spacing) {
  std::array<std::array<double, 4>, 3> m{};
  for (int a = 0; a < 3; ++a) {
    m[a][a] = 1.0 / spacing[a];
    m[a][3] = -origin[a] / spacing[a];
  }
  return m;
}

// ---- NIfTI ---------------------------------------------------------------------------------

bool nifti_available() { return TRIDSIM_HAVE_NIFTI != 0; }

#if TRIDSIM_HAVE_NIFTI
namespace {
template <class S>
void convert(const void* data, std::size_t count, std::vector<double>& out) {
  const S* p = static_cast<const S*>(data);
  for (std::size_t i = 0; i < count; ++i) out[i] = double(p[i]);
}
}  // namespace

VoxelImage read_nifti(const std::string& path) {
  nifti_set_debug_level(0);  // failures become one Error, not library chatter
  nifti_image* nim = nifti_image_read(path.c_str(), 1);
  if (!nim || !nim->data) {
    if (nim) nifti_image_free(nim);
    throw Error("cannot read NIfTI file '" + path + "' (missing, or not a .nii/.nii.gz image)");
  }
  struct Free {
    nifti_image* p;
    ~Free() { nifti_image_free(p); }
  } guard{nim};
  if (nim->nt > 1 || nim->nu > 1 || nim->nv > 1 || nim->nw > 1)
    throw Error("NIfTI file '" + path + "' has more than 3 dimensions; a tissue map is one 3D volume");
  VoxelImage img;
  img.n = {long(nim->nx), long(std::max<int64_t>(1, nim->ny)), long(std::max<int64_t>(1, nim->nz))};
  const std::size_t count = std::size_t(img.n[0] * img.n[1] * img.n[2]);
  img.values.resize(count);
  switch (nim->datatype) {
    case DT_UINT8: convert<uint8_t>(nim->data, count, img.values); break;
    case DT_INT8: convert<int8_t>(nim->data, count, img.values); break;
    case DT_UINT16: convert<uint16_t>(nim->data, count, img.values); break;
    case DT_INT16: convert<int16_t>(nim->data, count, img.values); break;
    case DT_UINT32: convert<uint32_t>(nim->data, count, img.values); break;
    case DT_INT32: convert<int32_t>(nim->data, count, img.values); break;
    case DT_FLOAT32: convert<float>(nim->data, count, img.values); break;
    case DT_FLOAT64: convert<double>(nim->data, count, img.values); break;
    default:
      throw Error("NIfTI file '" + path + "': unsupported voxel type " + std::to_string(nim->datatype) +
                  " (use an integer, float32 or float64 image)");
  }
  if (nim->scl_slope != 0 && std::isfinite(nim->scl_slope))  // stored = (value - inter) / slope
    for (auto& v : img.values) v = v * nim->scl_slope + nim->scl_inter;
  // Placement: the sform when set, else the qform, else the voxel sizes alone.
  if (nim->sform_code > 0 || nim->qform_code > 0) {
    const nifti_dmat44& m = nim->sform_code > 0 ? nim->sto_ijk : nim->qto_ijk;
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 4; ++c) img.world_to_voxel[r][c] = m.m[r][c];
  } else {
    img.world_to_voxel = axis_aligned({0, 0, 0}, {nim->dx > 0 ? nim->dx : 1, nim->dy > 0 ? nim->dy : 1,
                                                  nim->dz > 0 ? nim->dz : 1});
  }
  return img;
}
#else
VoxelImage read_nifti(const std::string& path) {
  throw Error("cannot read '" + path + "': this build has no NIfTI support (install libnifti2-dev and reconfigure)");
}
#endif

// ---- HDF5 ----------------------------------------------------------------------------------

namespace {

// A double array attribute of `obj` with `count` values, if present.
bool read_attribute(hid_t obj, const char* name, std::size_t count, double* out) {
  if (H5Aexists(obj, name) <= 0) return false;
  Handle attr(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
  if (attr.get() < 0) return false;
  Handle space(H5Aget_space(attr.get()), H5Sclose);
  if (H5Sget_simple_extent_npoints(space.get()) != hssize_t(count)) return false;
  return H5Aread(attr.get(), H5T_NATIVE_DOUBLE, out) >= 0;
}

}  // namespace

VoxelImage read_hdf5(const std::string& path, const std::string& dataset) {
  QuietHdf5 quiet;
  Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (file.get() < 0) throw Error("cannot open HDF5 file '" + path + "'");
  if (H5Lexists(file.get(), dataset.c_str(), H5P_DEFAULT) <= 0)
    throw Error("HDF5 file '" + path + "' has no dataset '" + dataset + "'");
  Handle set(H5Dopen2(file.get(), dataset.c_str(), H5P_DEFAULT), H5Dclose);
  if (set.get() < 0) throw Error("HDF5 file '" + path + "': '" + dataset + "' is not a dataset");
  Handle space(H5Dget_space(set.get()), H5Sclose);
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 1 || rank > 3)
    throw Error("HDF5 dataset '" + dataset + "' in '" + path + "' has rank " + std::to_string(rank) +
                "; a tissue map has shape (nz, ny, nx), (ny, nx) or (nx)");
  hsize_t dims[3] = {1, 1, 1};
  H5Sget_simple_extent_dims(space.get(), dims, nullptr);
  if (std::find(dims, dims + rank, hsize_t(0)) != dims + rank) {
    std::string shape;
    for (int a = 0; a < rank; ++a) shape += (a ? " x " : "") + std::to_string(dims[a]);
    throw Error("HDF5 dataset '" + dataset + "' in '" + path + "' is empty (shape " + shape + ")");
  }
  VoxelImage img;
  for (int a = 0; a < rank; ++a) img.n[a] = long(dims[rank - 1 - a]);  // C order: x is the last dimension
  img.values.resize(std::size_t(img.n[0] * img.n[1] * img.n[2]));
  if (H5Dread(set.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, img.values.data()) < 0)
    throw Error("HDF5 dataset '" + dataset + "' in '" + path + "' cannot be read as numbers");
  // Placement from the dataset's origin/spacing attributes, else a tridsim output's /grid.
  std::array<double, 3> origin{0, 0, 0}, spacing{1, 1, 1};
  const std::size_t r = std::size_t(rank);
  bool placed = read_attribute(set.get(), "origin", r, origin.data()) && read_attribute(set.get(), "spacing", r, spacing.data());
  if (!placed && H5Lexists(file.get(), "grid", H5P_DEFAULT) > 0) {
    Handle grid(H5Gopen2(file.get(), "grid", H5P_DEFAULT), H5Gclose);
    placed = grid.get() >= 0 && read_attribute(grid.get(), "lo", r, origin.data()) &&
             read_attribute(grid.get(), "spacing", r, spacing.data());
  }
  if (placed) img.world_to_voxel = axis_aligned(origin, spacing);
  else img.world_to_voxel[0][0] = 0;  // marks "no placement": the deck must give it
  return img;
}

// ---- deck ----------------------------------------------------------------------------------

namespace {

// dim to 3 numbers (x, y, z; the axes a list leaves out: `fill`); the key left out: `absent`.
std::array<double, 3> triple(const DeckNode& s, const std::string& key, int dim, double fill,
                             const std::vector<double>& absent) {
  std::array<double, 3> v{fill, fill, fill};
  const auto list = s.has(key) ? s.get<std::vector<double>>(key) : absent;
  if (list.size() < std::size_t(dim) || list.size() > 3)
    s.fail(key, "expected " + std::to_string(dim) + " to 3 numbers (x, y, z), got " + std::to_string(list.size()));
  for (std::size_t a = 0; a < list.size(); ++a) v[a] = list[a];
  return v;
}

}  // namespace

void read_tissue_map(const DeckNode& section, const std::string& key, const Grid& grid, const Constants& constants,
                     double* out) {
  if (!section.is_map(key)) {
    const Expression e = Expression::from_deck(section, key, constants);
    if (e.uses_time()) section.fail(key, "a tissue map may depend on x, y and z but not on t");
    e.fill(grid, 0.0, out);
    return;
  }
  const DeckNode m = section.child(key);
  const std::string given = m.get<std::string>("file");
  const bool h5 = given.ends_with(".h5") || given.ends_with(".hdf5");
  const bool nii = given.ends_with(".nii") || given.ends_with(".nii.gz");
  if (!h5 && !nii) m.fail("file", "expected a NIfTI (.nii, .nii.gz) or HDF5 (.h5, .hdf5) file, got '" + given + "'");
  const std::string name = m.get_file("file").string();
  const std::string dataset = h5 ? m.get<std::string>("dataset") : "";
  // Defaults from the key table, by the map's path there (the caller may hold the section anywhere).
  const KeyTable keys = glioma_keys();
  const std::string table_path = "glioma.tissue." + key + ".";
  const double scale = m.has("scale") ? m.get<double>("scale") : table_default<double>(keys, table_path + "scale");
  m.require(std::isfinite(scale), "scale", scale, "a finite number");
  const std::vector<double> no_offset =
      m.has("offset") ? std::vector<double>{} : table_default<std::vector<double>>(keys, table_path + "offset");
  const auto offset = triple(m, "offset", 1, 0.0, no_offset);
  for (double o : offset) m.require(std::isfinite(o), "offset", o, "finite on every axis");
  VoxelImage img;
  try {
    img = h5 ? read_hdf5(name, dataset) : read_nifti(name);
  } catch (const Error& e) {
    m.fail("file", e.what());
  }
  if (h5 && (m.has("origin") || m.has("spacing") || img.world_to_voxel[0][0] == 0)) {
    if (!m.has("origin") || !m.has("spacing"))
      m.fail(m.has("origin") ? "spacing" : "origin",
             "the dataset carries no placement: give both origin and spacing (world position of voxel 0 and voxel size)");
    const auto spacing = triple(m, "spacing", 1, 1.0, {});  // (both given: checked above)
    for (double s : spacing) m.require(s > 0 && std::isfinite(s), "spacing", s, "positive on every axis");
    const auto origin = triple(m, "origin", 1, 0.0, {});
    for (double o : origin) m.require(std::isfinite(o), "origin", o, "finite on every axis");
    img.world_to_voxel = axis_aligned(origin, spacing);
  }
#pragma omp parallel for collapse(2) schedule(static)
  for (index_t k = 0; k < grid.n[2]; ++k)
    for (index_t j = 0; j < grid.n[1]; ++j)
      for (index_t i = 0; i < grid.n[0]; ++i)
        out[grid.index(i, j, k)] = scale * img.sample(grid.coord(0, i) + offset[0], grid.coord(1, j) + offset[1],
                                                      grid.coord(2, k) + offset[2]);
}

}  // namespace tridsim::glioma
