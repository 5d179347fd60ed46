// Tests of the output writers: write known fields, read them back with the HDF5 C API and
// VTK's own reader, after every write (a writer's files are a valid result at every moment, so a
// run stopped at any point keeps its outputs) and after close().
// With TRIDSIM_OUTPUTS_KEEP=<dir> set, also leaves sample outputs there for check_outputs.py.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <type_traits>
#include <vector>

#include "app/simulation.hpp"
#include "core/errors.hpp"
#include "outputs/csv_writer.hpp"
#include "outputs/files.hpp"
#include "outputs/writer.hpp"
#include "tridsim_build_info.hpp"

#if TRIDSIM_HAVE_VTK
#include <vtkDataArray.h>
#include <vtkFieldData.h>
#include <vtkImageData.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkRectilinearGrid.h>
#include <vtkXMLImageDataReader.h>
#include <vtkXMLRectilinearGridReader.h>
#endif

namespace fs = std::filesystem;
using namespace tridsim;

namespace {

// A fresh directory, removed with everything in it at scope exit.
struct ScratchDir {
  fs::path path;
  explicit ScratchDir(const std::string& tag) {
    static int counter = 0;
    path = fs::temp_directory_path() / ("tridsim_test_outputs_" + std::to_string(getpid()) + "_" + tag + "_" +
                                        std::to_string(counter++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::vector<std::string> files() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(path)) names.push_back(e.path().filename().string());
    return names;
  }
};

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

Grid make_grid(int dim) {
  Grid g;
  g.dim = dim;
  if (dim == 1) g.n = {7, 1, 1};
  if (dim == 2) g.n = {5, 3, 1};
  if (dim == 3) g.n = {5, 3, 2};
  g.lo = {-1.0, 0.5, 2.0};
  g.hi = {2.0, 1.25, 3.5};
  for (int a = dim; a < 3; ++a) g.lo[a] = g.hi[a] = 0.0;  // unused axes
  return g;
}

// make_grid(dim) with its last axis stretched (nodes clustered toward both ends).
Grid make_stretched_grid(int dim) {
  Grid g = make_grid(dim);
  const int a = dim - 1;
  for (index_t i = 0; i < g.n[a]; ++i) {
    const double s = double(i) / double(g.n[a] - 1);
    g.nodes[a].push_back(g.lo[a] + (g.hi[a] - g.lo[a]) * 0.5 * (1 + std::tanh(1.5 * (2 * s - 1)) / std::tanh(1.5)));
  }
  g.nodes[a].front() = g.lo[a];
  g.nodes[a].back() = g.hi[a];
  return g;
}

// The known values of both fields: u (float, exact small numbers), v (double, full mantissa).
float u_value(index_t i, index_t j, index_t k, int step) { return float(i + 10 * j + 100 * k + 1000 * step) + 0.25f; }
double v_value(index_t i, index_t j, index_t k, int step) { return std::sin(0.1 * double(i) + 0.7 * double(j) + 1.3 * double(k) + step); }

struct Sample {
  std::vector<float> u;
  std::vector<double> v;
  Sample(const Grid& g, int step) {
    for (index_t k = 0; k < g.n[2]; ++k)
      for (index_t j = 0; j < g.n[1]; ++j)
        for (index_t i = 0; i < g.n[0]; ++i) {  // x fastest: index i + nx*(j + ny*k)
          u.push_back(u_value(i, j, k, step));
          v.push_back(v_value(i, j, k, step));
        }
  }
  std::vector<FieldRef> refs() const {
    return {{"u", Precision::float32, u.data()}, {"v", Precision::float64, v.data()}};
  }
};

const int kSteps[2] = {0, 10};
const double kTimes[2] = {0.0, 0.1};

void write_sample(Writer& w, const Grid& g) {
  for (int s = 0; s < 2; ++s) {
    Sample data(g, kSteps[s]);
    auto refs = data.refs();
    w.write(kSteps[s], kTimes[s], refs);
  }
}

// ---- HDF5 reading helpers (C API, every call checked) ----------------------------------------

hid_t ok(hid_t id) {
  REQUIRE(id >= 0);
  return id;
}

template <class T> hid_t native_type() {
  if constexpr (std::is_same_v<T, float>) return H5T_NATIVE_FLOAT;
  if constexpr (std::is_same_v<T, double>) return H5T_NATIVE_DOUBLE;
  if constexpr (std::is_same_v<T, int>) return H5T_NATIVE_INT;
  if constexpr (std::is_same_v<T, std::int64_t>) return H5T_NATIVE_INT64;
}

// Dataset `name`: its values, shape and stored element size in bytes.
template <class T> std::vector<T> read_dataset(hid_t file, const std::string& name, std::vector<hsize_t>& dims, size_t& bytes) {
  hid_t set = ok(H5Dopen2(file, name.c_str(), H5P_DEFAULT));
  hid_t space = ok(H5Dget_space(set));
  dims.assign(std::max(H5Sget_simple_extent_ndims(space), 0), 0);
  H5Sget_simple_extent_dims(space, dims.data(), nullptr);
  hid_t type = ok(H5Dget_type(set));
  bytes = H5Tget_size(type);
  std::vector<T> values(size_t(H5Sget_simple_extent_npoints(space)));
  if (!values.empty()) ok(H5Dread(set, native_type<T>(), H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()));
  H5Tclose(type);
  H5Sclose(space);
  H5Dclose(set);
  return values;
}

template <class T> std::vector<T> read_attribute(hid_t file, const std::string& object, const std::string& name) {
  hid_t attr = ok(H5Aopen_by_name(file, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT));
  hid_t space = ok(H5Aget_space(attr));
  std::vector<T> values(size_t(H5Sget_simple_extent_npoints(space)));
  ok(H5Aread(attr, native_type<T>(), values.data()));
  H5Sclose(space);
  H5Aclose(attr);
  return values;
}

void check_hdf5(const fs::path& h5, const Grid& g) {
  hid_t file = ok(H5Fopen(h5.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  CHECK(read_attribute<int>(file, "/grid", "dim") == std::vector<int>{g.dim});
  const auto n = read_attribute<std::int64_t>(file, "/grid", "n");
  const auto lo = read_attribute<double>(file, "/grid", "lo");
  const auto hi = read_attribute<double>(file, "/grid", "hi");
  const auto spacing = read_attribute<double>(file, "/grid", "spacing");
  REQUIRE(n.size() == size_t(g.dim));
  for (int a = 0; a < g.dim; ++a) {
    CHECK(n[a] == g.n[a]);
    CHECK(lo[a] == g.lo[a]);
    CHECK(hi[a] == g.hi[a]);
    if (g.stretched(a)) CHECK(std::isnan(spacing[a]));  // (the coordinates are in /grid/x, y, z)
    else CHECK(spacing[a] == g.h(a));
  }
  std::vector<hsize_t> shape;  // expected: slowest axis first
  for (int a = g.dim - 1; a >= 0; --a) shape.push_back(hsize_t(g.n[a]));

  std::vector<hsize_t> dims;
  size_t bytes = 0;
  CHECK(read_dataset<double>(file, "/times", dims, bytes) == std::vector<double>{kTimes[0], kTimes[1]});
  CHECK(read_dataset<int>(file, "/steps", dims, bytes) == std::vector<int>{kSteps[0], kSteps[1]});
  for (int s = 0; s < 2; ++s) {
    const std::string group = s == 0 ? "/step_000000" : "/step_000010";
    CHECK(read_attribute<double>(file, group, "time") == std::vector<double>{kTimes[s]});
    Sample expected(g, kSteps[s]);
    const auto u = read_dataset<float>(file, group + "/u", dims, bytes);
    CHECK(dims == shape);
    CHECK(bytes == 4);
    CHECK(u == expected.u);
    const auto v = read_dataset<double>(file, group + "/v", dims, bytes);
    CHECK(dims == shape);
    CHECK(bytes == 8);
    CHECK(v == expected.v);
  }
  CHECK(H5Fclose(file) >= 0);
}

void check_xmf(const fs::path& xmf, const Grid& g) {
  const std::string x = read_text(xmf);
  // Mesh and data items all state 3 dimensions, z y x (see hdf5_xdmf_writer.cpp for why).
  const std::string dims = std::to_string(g.n[2]) + " " + std::to_string(g.n[1]) + " " + std::to_string(g.n[0]);
  CHECK(x.find("CollectionType=\"Temporal\"") != std::string::npos);
  CHECK(x.find("TopologyType=\"3DCoRectMesh\" Dimensions=\"" + dims + "\"") != std::string::npos);
  CHECK(x.find("GeometryType=\"ORIGIN_DXDYDZ\"") != std::string::npos);
  CHECK(x.find("<Time Value=\"0.1\"/>") != std::string::npos);
  CHECK(x.find("<DataItem Dimensions=\"" + dims + "\" NumberType=\"Float\" Precision=\"4\" Format=\"HDF\">sample.h5:/step_000010/u</DataItem>") !=
        std::string::npos);
  CHECK(x.find("<DataItem Dimensions=\"" + dims + "\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">sample.h5:/step_000000/v</DataItem>") !=
        std::string::npos);
  CHECK(x.find(".part") == std::string::npos);  // references the final name only
  // Origin and spacing in z, y, x order; unused axes get spacing 1.
  const std::string origin = g.dim == 3 ? "2 0.5 -1" : g.dim == 2 ? "0 0.5 -1" : "0 0 -1";
  const std::string spacing = g.dim == 3 ? "1.5 0.375 0.75" : g.dim == 2 ? "1 0.375 0.75" : "1 1 0.5";
  CHECK(x.find(">" + origin + "</DataItem>") != std::string::npos);
  CHECK(x.find(">" + spacing + "</DataItem>") != std::string::npos);
}

#if TRIDSIM_HAVE_VTK
void check_vti(const fs::path& vti, const Grid& g, int s) {
  vtkNew<vtkXMLImageDataReader> reader;
  reader->SetFileName(vti.c_str());
  reader->Update();
  vtkImageData* image = reader->GetOutput();
  REQUIRE(image != nullptr);
  int dims[3];
  double origin[3], spacing[3];
  image->GetDimensions(dims);
  image->GetOrigin(origin);
  image->GetSpacing(spacing);
  for (int a = 0; a < 3; ++a) {
    CHECK(dims[a] == g.n[a]);
    CHECK(origin[a] == g.lo[a]);
    CHECK(spacing[a] == (g.n[a] > 1 ? g.h(a) : 1.0));
  }
  Sample expected(g, kSteps[s]);
  vtkDataArray* u = image->GetPointData()->GetArray("u");
  vtkDataArray* v = image->GetPointData()->GetArray("v");
  REQUIRE(u != nullptr);
  REQUIRE(v != nullptr);
  CHECK(u->GetDataType() == VTK_FLOAT);
  CHECK(v->GetDataType() == VTK_DOUBLE);
  REQUIRE(u->GetNumberOfTuples() == g.size());
  REQUIRE(v->GetNumberOfTuples() == g.size());
  for (vtkIdType p = 0; p < g.size(); ++p) {
    CHECK(float(u->GetComponent(p, 0)) == expected.u[p]);
    CHECK(v->GetComponent(p, 0) == expected.v[p]);
  }
  vtkDataArray* t = image->GetFieldData()->GetArray("TimeValue");
  REQUIRE(t != nullptr);
  CHECK(t->GetComponent(0, 0) == kTimes[s]);
}
#endif

}  // namespace

TEST_CASE("an output directory deleted during a run: the run fails, never complete") {
  // At step 15 of 40 the directory goes and an empty one takes its place (a script cleaning up):
  // the later outputs land there, the earlier ones are lost. The run must end with an error and a
  // summary that says failed, not complete.
  ScratchDir scratch("deleted");
  const fs::path out = scratch.path / "out";
  RunOptions opt;
  opt.deck = "deleted.yaml";
  opt.deck_text = "module: heat\ngrid: {n: [17]}\ntime: {dt: 0.01, steps: 40}\noutput: {every: 10}\n"
                  "heat: {diffusivity: 1, initial: \"sin(pi*x)\", boundary: {all: {type: dirichlet, value: 0}}}\n";
  opt.output = out;
  opt.quiet = opt.no_progress = true;
  opt.catch_signals = false;
  opt.on_step = [&](long step, double, double) {
    if (step == 15) {
      fs::remove_all(out);
      fs::create_directory(out);
    }
    return false;
  };
  CHECK_THROWS_WITH_AS(run_simulation(opt), doctest::Contains("out' was deleted or replaced while the run wrote in it"),
                       Error);
  CHECK(read_text(out / "summary.json").find("\"status\": \"failed\"") != std::string::npos);
}

TEST_CASE("write_file_atomically writes, replaces and reports failures") {
  ScratchDir dir("atomic");
  const auto target = dir.path / "a.txt";
  CHECK(temporary_path(target) == dir.path / ".a.txt.part");
  write_file_atomically(target, "first");
  write_file_atomically(target, "second");
  CHECK(read_text(target) == "second");
  CHECK(dir.files() == std::vector<std::string>{"a.txt"});
  const auto bad = dir.path / "missing" / "b.txt";
  try {
    write_file_atomically(bad, "x");
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find(bad.string()) != std::string::npos);
  }
}

TEST_CASE("HDF5/XDMF writer round trip on 1D, 2D and 3D grids") {
  for (int dim = 1; dim <= 3; ++dim) {
    CAPTURE(dim);
    ScratchDir dir("h5");
    const Grid g = make_grid(dim);
    auto w = make_hdf5_xdmf_writer(dir.path, "sample", g, {{"deck_file", "sample.yaml"}});
    write_sample(*w, g);
    check_xmf(dir.path / "sample.xmf", g);  // (the .h5 is read while a run writes it by tests/app)
    w->close();
    w->close();  // a second close does nothing
    CHECK_THROWS_AS(w->write(20, 1.0, {}), Error);
    w.reset();
    auto files = dir.files();
    std::sort(files.begin(), files.end());
    CHECK(files == std::vector<std::string>{"sample.h5", "sample.xmf"});
    check_hdf5(dir.path / "sample.h5", g);
    check_xmf(dir.path / "sample.xmf", g);
    // The run's facts as root attributes (fixed-length strings).
    const hid_t file = ok(H5Fopen((dir.path / "sample.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
    const hid_t attr = ok(H5Aopen(file, "deck_file", H5P_DEFAULT));
    const hid_t type = ok(H5Aget_type(attr));
    std::string value(H5Tget_size(type), '\0');
    CHECK(H5Aread(attr, type, value.data()) >= 0);
    CHECK(value == "sample.yaml");
    H5Tclose(type);
    H5Aclose(attr);
    H5Fclose(file);
  }
}

TEST_CASE("HDF5/XDMF writer rejects bad calls with clear errors") {
  ScratchDir dir("h5bad");
  const Grid g = make_grid(2);
  Sample data(g, 0);
  auto w = make_hdf5_xdmf_writer(dir.path, "sample", g);
  auto refs = data.refs();
  w->write(5, 0.5, refs);
  CHECK_THROWS_WITH_AS(w->write(5, 0.6, refs), doctest::Contains("steps must increase"), Error);
  std::vector<FieldRef> twice{refs[0], refs[0]};
  CHECK_THROWS_WITH_AS(w->write(6, 0.6, twice), doctest::Contains("given twice"), Error);
  std::vector<FieldRef> null_data{{"w", Precision::float64, nullptr}};
  CHECK_THROWS_WITH_AS(w->write(6, 0.6, null_data), doctest::Contains("no data"), Error);
  w->close();

  Grid bad = g;
  bad.n[2] = 4;  // a 2-D grid with nodes along z
  CHECK_THROWS_AS(make_hdf5_xdmf_writer(dir.path, "bad", bad), Error);
  // A directory that cannot be created (a file is in the way).
  write_file_atomically(dir.path / "plain", "x");
  CHECK_THROWS_WITH_AS(make_hdf5_xdmf_writer(dir.path / "plain" / "sub", "s", g), doctest::Contains("plain"), Error);
  // An HDF5 failure (here: a directory where the file should go) names the file.
  fs::create_directory(dir.path / "blocked.h5");
  CHECK_THROWS_WITH_AS(make_hdf5_xdmf_writer(dir.path, "blocked", g), doctest::Contains("blocked.h5"), Error);
}

TEST_CASE("writers destroyed without close() (a failed run) keep every output written, complete") {
  ScratchDir dir("abandon");
  const Grid g = make_grid(3);
  {
    auto w = make_hdf5_xdmf_writer(dir.path, "sample", g);
    write_sample(*w, g);
  }
  check_hdf5(dir.path / "sample.h5", g);
  check_xmf(dir.path / "sample.xmf", g);
#if TRIDSIM_HAVE_VTK
  {
    auto w = make_vtk_writer(dir.path, "sample", g);
    write_sample(*w, g);
    w.reset();
    check_vti(dir.path / "sample_000010.vti", g, 1);
  }
#endif
  {
    CsvWriter csv(dir.path / "series.csv", {"step", "time"});
    const double row[] = {1, 0.5};
    csv.row(row);
  }
  CHECK(read_text(dir.path / "series.csv") == "step,time\n1,0.5\n");
  for (const auto& f : dir.files()) CHECK(!f.ends_with(".part"));
}

// A dataset of doubles of an HDF5 file.
std::vector<double> read_doubles(const fs::path& file, const std::string& name) {
  const hid_t f = ok(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  const hid_t set = ok(H5Dopen2(f, name.c_str(), H5P_DEFAULT));
  const hid_t space = ok(H5Dget_space(set));
  std::vector<double> out(std::size_t(H5Sget_simple_extent_npoints(space)));
  CHECK(H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) >= 0);
  H5Sclose(space);
  H5Dclose(set);
  H5Fclose(f);
  return out;
}

TEST_CASE("a stretched grid: XDMF 3DRectMesh on /grid's coordinates, VTK .vtr rectilinear grids") {
  for (int dim = 1; dim <= 3; ++dim) {
    CAPTURE(dim);
    ScratchDir dir("stretched");
    const Grid g = make_stretched_grid(dim);
    auto w = make_hdf5_xdmf_writer(dir.path, "sample", g);
    write_sample(*w, g);
    w->close();
    check_hdf5(dir.path / "sample.h5", g);  // the fields as on a uniform grid
    for (int a = 0; a < 3; ++a) {  // every axis's coordinates, one node on an unused one
      std::vector<double> expected;
      for (index_t i = 0; i < g.n[a]; ++i) expected.push_back(g.coord(a, i));
      CHECK(read_doubles(dir.path / "sample.h5", std::string("/grid/") + "xyz"[a]) == expected);
    }
    const std::string x = read_text(dir.path / "sample.xmf");
    const std::string dims = std::to_string(g.n[2]) + " " + std::to_string(g.n[1]) + " " + std::to_string(g.n[0]);
    CHECK(x.find("TopologyType=\"3DRectMesh\" Dimensions=\"" + dims + "\"") != std::string::npos);
    CHECK(x.find("GeometryType=\"VXVYVZ\"") != std::string::npos);
    CHECK(x.find("<DataItem Name=\"VZ\" Dimensions=\"" + std::to_string(g.n[2]) +
                 "\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">sample.h5:/grid/z</DataItem>") != std::string::npos);
    CHECK(x.find("ORIGIN_DXDYDZ") == std::string::npos);
#if TRIDSIM_HAVE_VTK
    auto v = make_vtk_writer(dir.path, "sample", g);
    write_sample(*v, g);
    v->close();
    CHECK(read_text(dir.path / "sample.pvd").find("file=\"sample_000010.vtr\"") != std::string::npos);
    vtkNew<vtkXMLRectilinearGridReader> reader;
    reader->SetFileName((dir.path / "sample_000010.vtr").c_str());
    reader->Update();
    vtkRectilinearGrid* r = reader->GetOutput();
    REQUIRE(r != nullptr);
    int n[3];
    r->GetDimensions(n);
    vtkDataArray* axes[3] = {r->GetXCoordinates(), r->GetYCoordinates(), r->GetZCoordinates()};
    for (int a = 0; a < 3; ++a) {
      CHECK(n[a] == g.n[a]);
      REQUIRE(axes[a]->GetNumberOfTuples() == g.n[a]);
      for (index_t i = 0; i < g.n[a]; ++i) CHECK(axes[a]->GetComponent(i, 0) == g.coord(a, i));
    }
    Sample expected(g, kSteps[1]);
    vtkDataArray* u = r->GetPointData()->GetArray("u");
    REQUIRE(u != nullptr);
    REQUIRE(u->GetNumberOfTuples() == g.size());
    for (vtkIdType p = 0; p < g.size(); ++p) CHECK(float(u->GetComponent(p, 0)) == expected.u[p]);
#endif
  }
}

TEST_CASE("VTK writer round trip, or a clear error without VTK") {
#if TRIDSIM_HAVE_VTK
  CHECK(vtk_available());
  for (int dim = 1; dim <= 3; ++dim) {
    CAPTURE(dim);
    ScratchDir dir("vtk");
    const Grid g = make_grid(dim);
    auto w = make_vtk_writer(dir.path, "sample", g);
    write_sample(*w, g);
    w->close();
    auto files = dir.files();
    std::sort(files.begin(), files.end());
    CHECK(files == std::vector<std::string>{"sample.pvd", "sample_000000.vti", "sample_000010.vti"});
    check_vti(dir.path / "sample_000000.vti", g, 0);
    check_vti(dir.path / "sample_000010.vti", g, 1);
    const std::string pvd = read_text(dir.path / "sample.pvd");
    CHECK(pvd.find("type=\"Collection\"") != std::string::npos);
    CHECK(pvd.find("<DataSet timestep=\"0\" group=\"\" part=\"0\" file=\"sample_000000.vti\"/>") != std::string::npos);
    CHECK(pvd.find("<DataSet timestep=\"0.1\" group=\"\" part=\"0\" file=\"sample_000010.vti\"/>") != std::string::npos);
  }
#else
  CHECK(!vtk_available());
  ScratchDir dir("novtk");
  CHECK_THROWS_WITH_AS(make_vtk_writer(dir.path, "sample", make_grid(2)),
                       "this build has no VTK support; rebuild with -DTRIDSIM_VTK=ON", Error);
#endif
}

TEST_CASE("CsvWriter writes exact numbers and checks row sizes") {
  ScratchDir dir("csv");
  const auto path = dir.path / "series.csv";
  const std::vector<double> row1{0.1, 1.0 / 3.0, -2.5e-300};
  const std::vector<double> row2{1e300, 0.0, 42.0};
  {
    CsvWriter csv(path, {"time", "error,max", "q\"x"});
    csv.row(row1);
    csv.row(row2);
    CHECK_THROWS_WITH_AS(csv.row(std::vector<double>{1.0}), doctest::Contains("row has 1 values but the file has 3 columns"), Error);
    CHECK(read_text(path).starts_with("time,"));  // rows are in the file as they come
    csv.close();
  }
  std::istringstream in(read_text(path));
  std::string line;
  std::getline(in, line);
  CHECK(line == "time,\"error,max\",\"q\"\"x\"");
  for (const auto* expected : {&row1, &row2}) {
    std::getline(in, line);
    std::istringstream cells(line);
    std::string cell;
    std::vector<double> values;
    while (std::getline(cells, cell, ',')) values.push_back(std::strtod(cell.c_str(), nullptr));
    CHECK(values == *expected);  // exact: shortest round-trip text
  }
  CHECK(dir.files() == std::vector<std::string>{"series.csv"});
}

namespace {

// A vector field beside a scalar: w = (node index, -node index, step) per node, 3 components
// interleaved (component c of node p at [c + 3 p]), in float and in double.
struct VectorSample {
  std::vector<double> w;
  std::vector<float> wf;
  std::vector<double> s;
  VectorSample(const Grid& g, int step) {
    for (index_t p = 0; p < g.size(); ++p) {  // nodes x-fastest
      for (const double c : {double(p) + 0.5, -double(p), double(step)}) {
        w.push_back(c);
        wf.push_back(float(c));
      }
      s.push_back(double(p) * 0.25);
    }
  }
  std::vector<FieldRef> refs() const {
    return {{"s", Precision::float64, s.data()}, {"w", Precision::float64, w.data(), 3}, {"wf", Precision::float32, wf.data(), 3}};
  }
};

void write_vector_sample(Writer& w, const Grid& g) {
  for (int s = 0; s < 2; ++s) {
    VectorSample data(g, kSteps[s]);
    auto refs = data.refs();
    w.write(kSteps[s], kTimes[s], refs);
  }
}

void check_vector_outputs(const fs::path& dir, const Grid& g) {
  const std::string dims = std::to_string(g.n[2]) + " " + std::to_string(g.n[1]) + " " + std::to_string(g.n[0]);
  const std::string x = read_text(dir / "vec.xmf");
  // The scalar's attribute is as before; the vectors state their 3 components last.
  CHECK(x.find("<Attribute Name=\"s\" AttributeType=\"Scalar\" Center=\"Node\">\n          <DataItem Dimensions=\"" + dims +
               "\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">vec.h5:/step_000010/s</DataItem>") != std::string::npos);
  CHECK(x.find("<Attribute Name=\"w\" AttributeType=\"Vector\" Center=\"Node\">\n          <DataItem Dimensions=\"" + dims +
               " 3\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">vec.h5:/step_000010/w</DataItem>") != std::string::npos);
  CHECK(x.find("<Attribute Name=\"wf\" AttributeType=\"Vector\" Center=\"Node\">\n          <DataItem Dimensions=\"" + dims +
               " 3\" NumberType=\"Float\" Precision=\"4\" Format=\"HDF\">vec.h5:/step_000000/wf</DataItem>") != std::string::npos);
  hid_t file = ok(H5Fopen((dir / "vec.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  std::vector<hsize_t> shape;  // slowest axis first, then the components
  for (int a = g.dim - 1; a >= 0; --a) shape.push_back(hsize_t(g.n[a]));
  std::vector<hsize_t> vshape = shape;
  vshape.push_back(3);
  for (int s = 0; s < 2; ++s) {
    const std::string group = s == 0 ? "/step_000000" : "/step_000010";
    VectorSample expected(g, kSteps[s]);
    std::vector<hsize_t> d;
    size_t bytes = 0;
    CHECK(read_dataset<double>(file, group + "/s", d, bytes) == expected.s);
    CHECK(d == shape);
    CHECK(read_dataset<double>(file, group + "/w", d, bytes) == expected.w);
    CHECK(d == vshape);
    CHECK(bytes == 8);
    CHECK(read_dataset<float>(file, group + "/wf", d, bytes) == expected.wf);
    CHECK(d == vshape);
    CHECK(bytes == 4);
  }
  CHECK(H5Fclose(file) >= 0);
}

}  // namespace

TEST_CASE("vector fields: HDF5 (..., 3) datasets, XDMF Vector attributes, VTK 3-component arrays") {
  for (int dim = 2; dim <= 3; ++dim) {
    CAPTURE(dim);
    ScratchDir dir("vec");
    const Grid g = make_grid(dim);
    auto w = make_hdf5_xdmf_writer(dir.path, "vec", g);
    write_vector_sample(*w, g);
    w->close();
    check_vector_outputs(dir.path, g);

    // A restarted run carries the earlier outputs over, vectors still vectors in the .xmf.
    ScratchDir next("vec_resume");
    auto r = make_hdf5_xdmf_writer(next.path, "vec", g);
    r->resume(dir.path, 10);
    VectorSample data(g, 10);
    auto refs = data.refs();
    r->write(10, kTimes[1], refs);
    r->close();
    check_vector_outputs(next.path, g);
  }
  // Only scalars and 3-vectors are fields.
  ScratchDir dir("vecbad");
  const Grid g = make_grid(2);
  VectorSample data(g, 0);
  auto w = make_hdf5_xdmf_writer(dir.path, "vec", g);
  std::vector<FieldRef> two{{"w", Precision::float64, data.w.data(), 2}};
  CHECK_THROWS_WITH_AS(w->write(0, 0.0, two), doctest::Contains("field 'w' has 2 components"), Error);
#if TRIDSIM_HAVE_VTK
  ScratchDir vdir("vecvtk");
  auto v = make_vtk_writer(vdir.path, "vec", g);
  write_vector_sample(*v, g);
  v->close();
  vtkNew<vtkXMLImageDataReader> reader;
  reader->SetFileName((vdir.path / "vec_000010.vti").c_str());
  reader->Update();
  VectorSample expected(g, 10);
  for (const char* name : {"w", "wf"}) {
    vtkDataArray* a = reader->GetOutput()->GetPointData()->GetArray(name);
    REQUIRE(a != nullptr);
    CHECK(a->GetNumberOfComponents() == 3);
    REQUIRE(a->GetNumberOfTuples() == g.size());
    for (vtkIdType p = 0; p < g.size(); ++p)
      for (int c = 0; c < 3; ++c) CHECK(a->GetComponent(p, c) == expected.w[std::size_t(c + 3 * p)]);
  }
  vtkDataArray* s = reader->GetOutput()->GetPointData()->GetArray("s");
  REQUIRE(s != nullptr);
  CHECK(s->GetNumberOfComponents() == 1);
#endif
}

// Not a check by itself: leaves outputs for check_outputs.py (see tests/outputs/CMakeLists.txt).
TEST_CASE("sample outputs for check_outputs.py") {
  const char* keep = std::getenv("TRIDSIM_OUTPUTS_KEEP");
  if (!keep) return;
  const fs::path root(keep);
  fs::remove_all(root / "good");
  fs::remove_all(root / "nonfinite");
  for (int dim = 1; dim <= 3; ++dim) {
    const Grid g = make_grid(dim);
    const std::string name = "sample" + std::to_string(dim) + "d";
    auto w = make_hdf5_xdmf_writer(root / "good", name, g);
    write_sample(*w, g);
    w->close();
    if (vtk_available()) {  // for opening side by side with the .xmf in ParaView
      auto v = make_vtk_writer(root / "good", name, g);
      write_sample(*v, g);
      v->close();
    }
  }
  for (int dim = 1; dim <= 3; ++dim) {  // stretched: rectilinear geometry
    const Grid g = make_stretched_grid(dim);
    auto w = make_hdf5_xdmf_writer(root / "good", "stretched" + std::to_string(dim) + "d", g);
    write_sample(*w, g);
    w->close();
  }
  {  // a vector field beside scalars
    const Grid g = make_grid(2);
    auto w = make_hdf5_xdmf_writer(root / "good", "vector2d", g);
    write_vector_sample(*w, g);
    w->close();
  }
  const Grid g = make_grid(2);
  Sample data(g, 0);
  data.v[4] = std::numeric_limits<double>::quiet_NaN();
  auto w = make_hdf5_xdmf_writer(root / "nonfinite", "sample", g);
  auto refs = data.refs();
  w->write(0, 0.0, refs);
  w->close();
}
