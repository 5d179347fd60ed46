#include "physics/glioma/glioma.hpp"
#include "physics/module_keys.hpp"

namespace tridsim {

KeyTable glioma_keys() {
  const std::string map = "a fraction in [0, 1]: an expression of x, y, z or {file, ...} (NIfTI or HDF5)";
  KeyTable t = {
      {"glioma", kSection, "", "", true, "dc/dt = div(D grad c) + rho c (1 - c), D = D_white white + D_grey grey"},
      {"glioma.scheme", kChoice, "strang-adi", "", false, list_names(names_of(GliomaModule<double>::kSchemeNames))},
      {"glioma.D_white", kNumber, "", "mm^2/day", true, "diffusivity in white matter"},
      {"glioma.D_grey", kNumber, "", "mm^2/day", true, "diffusivity in grey matter"},
      {"glioma.rho", kNumber, "", "1/day", true, "proliferation rate"},
      {"glioma.thresholds", kSection, "", "", false, "densities that bound the reported tumour volumes"},
      {"glioma.thresholds.t1", kNumber, "0.8", "1", false, "the T1-enhancing volume: c above this"},
      {"glioma.thresholds.flair", kNumber, "0.16", "1", false, "the FLAIR volume: c above this"},
      {"glioma.tissue", kSection, "", "", true, "the white and grey matter fractions (their sum at most 1)"},
      {"glioma.seed", kSection, "", "", false, "a Gaussian initial density (give seed or initial)"},
      {"glioma.seed.center", kNumbers, "", "mm", true, "its centre, one coordinate per axis"},
      {"glioma.seed.width", kNumber, "", "mm", true, "its standard deviation"},
      {"glioma.seed.peak", kNumber, "", "1", true, "its peak density, in (0, 1]"},
      {"glioma.solver", kChoice | kSection, "auto", "", false,
       "the line solver (as heat's): one name for every axis, or per axis {x: ..., y: ..., z: ...}"},
      {"glioma.solver.<axis>", kChoice, "auto", "", false, "the line solver along this axis"},
      {"glioma.initial", kExpression, "", "1", false, "the initial density: an expression of x, y, z (or seed)"},
  };
  for (const char* m : {"white", "grey"}) {
    const std::string p = std::string("glioma.tissue.") + m;
    t.push_back({p, kExpression | kSection, "", "1", true, std::string(m) + " matter: " + map});
    t.push_back({p + ".file", kText, "", "", true, "a .nii, .nii.gz, .h5 or .hdf5 file"});
    t.push_back({p + ".dataset", kText, "", "", false, "the dataset (HDF5 files: required)"});
    t.push_back({p + ".scale", kNumber, "1", "", false, "the file's values are multiplied by it"});
    t.push_back({p + ".offset", kNumbers, "[0, 0, 0]", "mm", false, "the image moved by this much (x, y, z)"});
    t.push_back({p + ".origin", kNumbers, "", "mm", false, "HDF5: the world position of voxel 0 (with spacing)"});
    t.push_back({p + ".spacing", kNumbers, "", "mm", false, "HDF5: the voxel size (with origin)"});
  }
  return t;
}

std::string glioma_template() {
  return R"deck(name: glioma
module: glioma
grid: {n: [65, 65], lo: [-50, -50], hi: [50, 50]}   # mm
time: {dt: 1, end: 30}                         # days
output: {every: 10}
glioma:
  D_white: 0.25                                # mm^2/day
  D_grey: 0.025
  rho: 0.03                                    # 1/day
  tissue:                                      # fractions in [0, 1]: expressions of x, y, z, or files
    white: "x^2 + y^2 < 40^2 ? 1 : 0"
    grey: "x^2 + y^2 >= 40^2 && x^2 + y^2 < 45^2 ? 1 : 0"
  seed: {center: [10, 5], width: 3, peak: 0.5} # a Gaussian (or initial: an expression)
)deck";
}

}  // namespace tridsim
