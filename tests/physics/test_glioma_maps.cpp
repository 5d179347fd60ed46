// Glioma tissue maps from files: a map written as NIfTI (.nii.gz) or HDF5 and read back onto a
// grid that does not match its lattice. The written values are a trilinear function of the
// world coordinates, which trilinear interpolation reproduces exactly: the truth is the function.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "physics/glioma/tissue.hpp"
#include "tests/physics/glioma_test_support.hpp"
#include "tridsim_build_info.hpp"

#if TRIDSIM_HAVE_NIFTI
#include <nifti2_io.h>
#endif

using namespace tridsim;
using namespace glioma_test;

namespace {

double f(double x, double y, double z) { return 0.5 + 0.004 * x - 0.003 * y + 0.002 * z + 2e-6 * x * y * z; }

// A lattice of voxels: origin (world of voxel 0) and spacing, axis-aligned.
constexpr long nx = 23, ny = 19, nz = 17;
constexpr double origin[3] = {-30, -25, -20}, spacing[3] = {2.5, 2.8, 2.4};

std::vector<float> lattice_values() {
  std::vector<float> v(std::size_t(nx * ny * nz));
  for (long k = 0; k < nz; ++k)
    for (long j = 0; j < ny; ++j)
      for (long i = 0; i < nx; ++i)
        v[std::size_t(i + nx * (j + ny * k))] =
            float(f(origin[0] + i * spacing[0], origin[1] + j * spacing[1], origin[2] + k * spacing[2]));
  return v;
}

std::filesystem::path scratch() {
  auto dir = std::filesystem::temp_directory_path() / ("tridsim_glioma_maps_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

// A grid partly outside the lattice (nodes there read 0): max error inside, max value outside.
std::pair<double, double> compare(const std::string& tissue_yaml, const Grid& g, const std::string& deck_dir) {
  // A deck named as if it were a file in deck_dir: relative file names are looked up there.
  Deck deck = Deck::parse("tissue:\n" + tissue_yaml, deck_dir.empty() ? "maps deck" : deck_dir + "/maps deck");
  std::vector<double> out(std::size_t(g.size()));
  glioma::read_tissue_map(deck.root().child("tissue"), "white", g, {}, out.data());
  deck.check_unknown_keys();
  double err = 0, outside = 0;
  for (index_t k = 0; k < g.n[2]; ++k)
    for (index_t j = 0; j < g.n[1]; ++j)
      for (index_t i = 0; i < g.n[0]; ++i) {
        const double x = g.coord(0, i), y = g.coord(1, j), z = g.coord(2, k);
        const double v = out[std::size_t(g.index(i, j, k))];
        bool inside = true;
        const double p[3] = {x, y, z};
        for (int a = 0; a < 3; ++a) {
          const double hi = origin[a] + spacing[a] * double((a == 0 ? nx : a == 1 ? ny : nz) - 1);
          inside = inside && p[a] >= origin[a] && p[a] <= hi;
          if (p[a] < origin[a] - spacing[a] || p[a] > hi + spacing[a]) outside = std::max(outside, std::abs(v));
        }
        if (inside) err = std::max(err, std::abs(v - f(x, y, z)));
      }
  return {err, outside};
}

const Grid grid = make_grid(3, {31, 26, 21}, {-40, -30, -26}, {35, 28, 24});

}  // namespace

TEST_CASE("an HDF5 tissue map is resampled to the grid by trilinear interpolation") {
  const auto dir = scratch();
  const auto file = dir / "maps.h5";
  const auto values = lattice_values();
  {
    hid_t fid = H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t dims[3] = {hsize_t(nz), hsize_t(ny), hsize_t(nx)};
    hid_t space = H5Screate_simple(3, dims, nullptr);
    for (const char* name : {"white", "bare"}) {
      hid_t set = H5Dcreate2(fid, name, H5T_NATIVE_FLOAT, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
      H5Dwrite(set, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
      if (std::string(name) == "white") {  // placement carried by the dataset
        hsize_t three = 3;
        hid_t aspace = H5Screate_simple(1, &three, nullptr);
        for (auto [attr, data] : {std::pair{"origin", origin}, std::pair{"spacing", spacing}}) {
          hid_t a = H5Acreate2(set, attr, H5T_NATIVE_DOUBLE, aspace, H5P_DEFAULT, H5P_DEFAULT);
          H5Awrite(a, H5T_NATIVE_DOUBLE, data);
          H5Aclose(a);
        }
        H5Sclose(aspace);
      }
      H5Dclose(set);
    }
    H5Sclose(space);
    hsize_t none[2] = {0, 4};  // an empty dataset
    hid_t empty_space = H5Screate_simple(2, none, nullptr);
    H5Dclose(H5Dcreate2(fid, "empty", H5T_NATIVE_FLOAT, empty_space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Sclose(empty_space);
    H5Fclose(fid);
  }
  {  // An empty dataset is an error, not a map of zeros.
    Deck d = Deck::parse("tissue:\n  white: {file: " + file.string() + ", dataset: empty, origin: [0, 0], spacing: [1, 1]}\n",
                         "maps deck");
    std::vector<double> out(std::size_t(grid.size()));
    CHECK_THROWS_WITH_AS(glioma::read_tissue_map(d.root().child("tissue"), "white", grid, {}, out.data()),
                         doctest::Contains("is empty (shape 0 x 4)"), DeckError);
  }
  const auto [err, outside] = compare("  white: {file: maps.h5, dataset: white}\n", grid, dir.string());
  std::printf("HDF5 map (placement from attributes): max error inside %.2e, max value outside %.2e\n", err, outside);
  CHECK(err < 1e-6);  // float storage
  CHECK(outside == 0.0);
  const auto [err2, outside2] = compare(
      "  white: {file: " + file.string() + ", dataset: bare, origin: [-30, -25, -20], spacing: [2.5, 2.8, 2.4]}\n", grid, "");
  std::printf("HDF5 map (placement from the deck): max error inside %.2e\n", err2);
  CHECK(err2 < 1e-6);
  CHECK(outside2 == 0.0);
  // A dataset without placement and no origin/spacing in the deck: one clear error.
  Deck deck = Deck::parse("tissue:\n  white: {file: " + file.string() + ", dataset: bare}\n", "maps deck");
  std::vector<double> out(std::size_t(grid.size()));
  CHECK_THROWS_WITH_AS(glioma::read_tissue_map(deck.root().child("tissue"), "white", grid, {}, out.data()),
                       doctest::Contains("origin"), DeckError);
  // A placement that is not finite is refused at its key.
  for (const std::string& bad : {"origin: [.nan, -25, -20], spacing: [2.5, 2.8, 2.4]",
                                 "origin: [-30, -25, -20], spacing: [2.5, 2.8, 2.4], offset: [0, .inf, 0]"}) {
    Deck d = Deck::parse("tissue:\n  white: {file: " + file.string() + ", dataset: bare, " + bad + "}\n", "maps deck");
    CHECK_THROWS_WITH_AS(glioma::read_tissue_map(d.root().child("tissue"), "white", grid, {}, out.data()),
                         doctest::Contains("finite on every axis"), DeckError);
  }
  // A spacing so small that its inverse is inf puts grid nodes at NaN voxel coordinates: background.
  Deck tiny = Deck::parse("tissue:\n  white: {file: " + file.string() +
                              ", dataset: bare, origin: [-30, -25, -20], spacing: [1e-320, 2.8, 2.4]}\n",
                          "maps deck");
  glioma::read_tissue_map(tiny.root().child("tissue"), "white", grid, {}, out.data());
  CHECK(std::all_of(out.begin(), out.end(), [](double v) { return v == 0.0; }));
  std::filesystem::remove_all(dir);
}

TEST_CASE("a NIfTI tissue map is resampled to the grid through its sform") {
  if (!glioma::nifti_available()) {
    std::printf("SKIPPED: this build has no NIfTI support\n");
    return;
  }
#if TRIDSIM_HAVE_NIFTI
  const auto dir = scratch();
  const auto file = dir / "wm.nii.gz";
  const auto values = lattice_values();
  const int64_t dims[8] = {3, nx, ny, nz, 1, 1, 1, 1};
  nifti_image* nim = nifti_make_new_nim(dims, DT_FLOAT32, 1);
  std::copy(values.begin(), values.end(), static_cast<float*>(nim->data));
  nim->sform_code = NIFTI_XFORM_SCANNER_ANAT;
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) nim->sto_xyz.m[r][c] = r == c ? (r < 3 ? spacing[r] : 1.0) : c == 3 ? origin[r] : 0.0;
  nim->sto_ijk = nifti_dmat44_inverse(nim->sto_xyz);
  nim->dx = nim->pixdim[1] = spacing[0];
  nim->dy = nim->pixdim[2] = spacing[1];
  nim->dz = nim->pixdim[3] = spacing[2];
  REQUIRE(nifti_set_filenames(nim, file.c_str(), 0, 1) == 0);
  nifti_image_write(nim);
  nifti_image_free(nim);
  REQUIRE(std::filesystem::exists(file));
  const auto [err, outside] = compare("  white: {file: wm.nii.gz}\n", grid, dir.string());
  std::printf("NIfTI map: max error inside %.2e, max value outside %.2e\n", err, outside);
  CHECK(err < 1e-6);
  CHECK(outside == 0.0);

  // The module reads it too: a run on the map writes it back as its "white" field.
  auto m = make<double>("  D_white: 0.2\n  D_grey: 0.02\n  rho: 0.03\n  tissue: {white: {file: " + file.string() +
                            "}, grey: 0}\n  seed: {center: [0, 0, 0], width: 3, peak: 0.5}\n",
                        grid);
  const auto fields = m->fields();
  const double* white = static_cast<const double*>(fields[1].data);
  CHECK(fields[1].name == "white");
  const index_t o = grid.index(15, 13, 10);
  CHECK(white[o] == doctest::Approx(f(grid.coord(0, 15), grid.coord(1, 13), grid.coord(2, 10))).epsilon(1e-6));
  std::filesystem::remove_all(dir);
#endif
}
