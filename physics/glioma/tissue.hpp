#pragma once
// Tissue maps of the glioma module (namespace tridsim::glioma): white- and grey-matter fractions
// (0..1) at every grid node. Each map is either an expression of x, y, z (a synthetic phantom
// written in the deck) or a file resampled to the grid by trilinear interpolation:
//   white: "r < 0.8 ? 1 : 0"                               expression
//   white: {file: wm.nii.gz}                               NIfTI-1/2 (.nii, .nii.gz), placed by its sform/qform
//   white: {file: maps.h5, dataset: white,                 HDF5 dataset, shape (nz, ny, nx), x fastest,
//           origin: [x0, y0, z0], spacing: [dx, dy, dz]}    placed by origin/spacing (deck, dataset attributes,
//                                                          or a tridsim output's /grid group)
// Optional for files: scale (multiplies the values), offset (world position of the grid's
// origin node minus its own coordinates: samples at grid coordinates + offset).
#include <array>
#include <string>
#include <vector>

#include "core/deck.hpp"
#include "core/expression.hpp"
#include "core/grid.hpp"

namespace tridsim::glioma {

// A scalar image on a regular lattice: value(i, j, k) at world = affine * (i, j, k, 1).
struct VoxelImage {
  std::array<long, 3> n{1, 1, 1};
  std::vector<double> values;  // x fastest: i + n0 * (j + n1 * k)
  // world -> voxel coordinates (3 x 4, row-major): ijk = M * (x, y, z, 1)
  std::array<std::array<double, 4>, 3> world_to_voxel{{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}}};
  // Trilinear interpolation at world point p; 0 more than half a voxel outside the image.
  double sample(double x, double y, double z) const;
};

// world_to_voxel of an axis-aligned lattice: voxel (i, j, k) sits at origin + (i dx, j dy, k dz).
std::array<std::array<double, 4>, 3> axis_aligned(const std::array<double, 3>& origin, const std::array<double, 3>& spacing);

// Readers; throw Error with the file name and the reason.
VoxelImage read_nifti(const std::string& path);
VoxelImage read_hdf5(const std::string& path, const std::string& dataset);
bool nifti_available();

// Fill `out` (grid.size() values, x fastest) from the deck key `key` of `section`: an
// expression or a file map as described above (a relative file name: DeckNode::get_file).
void read_tissue_map(const DeckNode& section, const std::string& key, const Grid& grid, const Constants& constants,
                     double* out);

}  // namespace tridsim::glioma
