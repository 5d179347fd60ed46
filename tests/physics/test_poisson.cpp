// Poisson module: second-order convergence to manufactured solutions with non-zero Dirichlet
// data on every face (2D and 3D, every method, non-square boxes, sizes that are not 2^k + 1),
// agreement of the methods, f read from an HDF5 dataset equal to f from the expression, the
// example decks as they are, and one clear deck error for each kind of bad input.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <hdf5.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "core/deck.hpp"
#include "physics/poisson/poisson.hpp"
#include "tests/common/deck_grid.hpp"

using namespace tridsim;

namespace {

const char* u2 = "sin(pi*x)*cos(2*pi*y) + x^2*y + exp(x - y)";
const char* f2 = "5*pi^2*sin(pi*x)*cos(2*pi*y) - 2*y - 2*exp(x - y)";
const char* u3 = "sin(pi*x)*sin(pi*y)*sin(2*pi*z) + exp(x + y + 2*z)/6";
const char* f3 = "6*pi^2*sin(pi*x)*sin(pi*y)*sin(2*pi*z) - exp(x + y + 2*z)";

std::string section(const std::string& method, const std::string& source, const std::string& u) {
  return "poisson:\n  method: " + method + "\n  source: " + source + "\n  exact: \"" + u +
         "\"\n  boundary:\n    all: {type: dirichlet, value: \"" + u + "\"}\n";
}

Grid grid(int dim, std::array<index_t, 3> n, std::array<double, 3> hi) {
  Grid g;
  g.dim = dim;
  g.n = n;
  g.hi = hi;
  return g;
}

template <class T>
ErrorNorms run(const Grid& g, const std::string& text, PoissonModule<T>* keep = nullptr) {
  Deck deck = Deck::parse(text, "test");
  PoissonModule<T> local;
  PoissonModule<T>& m = keep ? *keep : local;
  SetupContext ctx;
  ctx.precision = precision_of<T>();
  m.setup(g, deck.root().child("poisson"), ctx, 0.0);
  m.step(0.0, 0.0);
  CHECK(m.relative_residual() < (sizeof(T) == 8 ? 1e-12 : 1e-4));
  return *m.error_norms(0.0);
}

}  // namespace

TEST_CASE("second-order convergence, 2D and 3D, every method") {
  for (const char* method : {"bcr", "bcr4", "fft", "auto"}) {
    // 2D on [0,1] x [0,1.5]: h halves from grid to grid, sizes 2^k + 1 and others.
    for (const auto& sizes : std::vector<std::vector<std::array<index_t, 3>>>{
             {{17, 25, 1}, {33, 49, 1}, {65, 97, 1}}, {{21, 31, 1}, {41, 61, 1}, {81, 121, 1}}}) {
      std::vector<double> err;
      for (const auto& n : sizes)
        err.push_back(run<double>(grid(2, n, {1, 1.5, 1}), section(method, std::string("\"") + f2 + "\"", u2)).max);
      for (std::size_t i = 1; i < err.size(); ++i) {
        INFO(method << " 2D from " << sizes[i - 1][0] << ": " << err[i - 1] << " -> " << err[i]);
        CHECK(std::log2(err[i - 1] / err[i]) == doctest::Approx(2.0).epsilon(0.05));
      }
    }
    std::vector<double> err;
    const std::vector<std::array<index_t, 3>> sizes3 = {{11, 11, 7}, {21, 21, 13}, {41, 41, 25}};
    for (const auto& n : sizes3)
      err.push_back(run<double>(grid(3, n, {1, 1, 0.6}), section(method, std::string("\"") + f3 + "\"", u3)).max);
    for (std::size_t i = 1; i < err.size(); ++i) {
      INFO(method << " 3D: " << err[i - 1] << " -> " << err[i]);
      CHECK(std::log2(err[i - 1] / err[i]) == doctest::Approx(2.0).epsilon(0.05));
    }
  }
}

TEST_CASE("every method gives the same discrete solution; float agrees with double") {
  const Grid g = grid(2, {45, 70, 1}, {1, 1.5, 1});
  PoissonModule<double> ref;
  run<double>(g, section("fft", std::string("\"") + f2 + "\"", u2), &ref);
  double scale = 0;
  for (double v : ref.solution()) scale = std::max(scale, std::abs(v));
  for (const char* method : {"bcr", "bcr4"}) {
    PoissonModule<double> m;
    run<double>(g, section(method, std::string("\"") + f2 + "\"", u2), &m);
    double diff = 0;
    for (std::size_t i = 0; i < m.solution().size(); ++i)
      diff = std::max(diff, std::abs(m.solution()[i] - ref.solution()[i]));
    INFO(method);
    CHECK(diff / scale < 1e-12);
    PoissonModule<float> mf;
    run<float>(g, section(method, std::string("\"") + f2 + "\"", u2), &mf);
    diff = 0;
    for (std::size_t i = 0; i < mf.solution().size(); ++i)
      diff = std::max(diff, std::abs(double(mf.solution()[i]) - ref.solution()[i]));
    CHECK(diff / scale < 1e-4);  // float rounding times the condition number (~10^3 here)
  }
}

TEST_CASE("f from an HDF5 dataset equals f from the expression") {
  const Grid g = grid(2, {33, 21, 1}, {1, 1.5, 1});
  std::vector<double> f(g.size());
  Expression(f2, {}).fill(g, 0.0, f.data());
  const std::filesystem::path file = std::filesystem::temp_directory_path() / "tridsim_test_poisson_source.h5";
  {
    const hid_t h = H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hsize_t dims[2] = {hsize_t(g.n[1]), hsize_t(g.n[0])};  // slowest first
    const hid_t space = H5Screate_simple(2, dims, nullptr);
    const hid_t set = H5Dcreate2(h, "/f", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, f.data());
    H5Dclose(set);
    H5Sclose(space);
    H5Fclose(h);
  }
  PoissonModule<double> a, b;
  const ErrorNorms ea = run<double>(g, section("bcr", std::string("\"") + f2 + "\"", u2), &a);
  const ErrorNorms eb = run<double>(g, section("bcr", "{file: " + file.string() + ", dataset: /f}", u2), &b);
  CHECK(a.solution() == b.solution());
  CHECK(ea.max == eb.max);
  // A dataset of the wrong shape is a deck error at the key.
  Deck bad = Deck::parse(section("bcr", "{file: " + file.string() + ", dataset: /f}", u2), "bad");
  PoissonModule<double> m;
  SetupContext ctx;
  CHECK_THROWS_WITH_AS(m.setup(grid(2, {21, 33, 1}, {1, 1.5, 1}), bad.root().child("poisson"), ctx, 0.0),
                       doctest::Contains("has shape 21x33"), DeckError);
  Deck missing = Deck::parse(section("bcr", "{file: /nonexistent/f.h5, dataset: /f}", u2), "bad");
  CHECK_THROWS_AS(m.setup(g, missing.root().child("poisson"), ctx, 0.0), DeckError);
  // A relative file name in a deck file is found beside the deck.
  const std::filesystem::path deck_file = file.parent_path() / "tridsim_test_poisson_source.yaml";
  {
    std::FILE* out = std::fopen(deck_file.c_str(), "w");
    REQUIRE(out);
    const std::string text = section("bcr", "{file: " + file.filename().string() + ", dataset: /f}", u2);
    std::fputs(text.c_str(), out);
    std::fclose(out);
  }
  Deck rel = Deck::load(deck_file);
  PoissonModule<double> c;
  c.setup(g, rel.root().child("poisson"), ctx, 0.0);
  c.step(0.0, 0.0);
  CHECK(c.solution() == a.solution());
  std::filesystem::remove(deck_file);
  std::filesystem::remove(file);
}

TEST_CASE("the example decks run as they are") {
  for (const char* name : {"poisson2d.yaml", "poisson3d.yaml"}) {
    Deck deck = Deck::load(std::filesystem::path(TRIDSIM_SOURCE_DIR) / "inputs" / name);
    const DeckNode root = deck.root();
    const Grid g = testing::deck_grid(root.child("grid"));
    PoissonModule<double> m;
    SetupContext ctx;
    m.setup(g, root.child("poisson"), ctx, 0.0);
    m.step(0.0, 0.0);
    INFO(name);
    CHECK(m.relative_residual() < 1e-12);
    CHECK(m.error_norms(0.0)->max < (g.dim == 2 ? 3e-5 : 4e-4));  // O(h^2): 2.1e-5 and 2.7e-4 measured
  }
}

TEST_CASE("bad decks give one clear error") {
  const Grid g = grid(2, {9, 9, 1}, {1, 1, 1});
  SetupContext ctx;
  auto fails = [&](const std::string& text, const std::string& part) {
    Deck deck = Deck::parse(text, "bad");
    PoissonModule<double> m;
    INFO(text);
    CHECK_THROWS_WITH_AS(m.setup(g, deck.root().child("poisson"), ctx, 0.0), doctest::Contains(part.c_str()),
                         DeckError);
  };
  fails(section("cyclic", "\"1\"", "0"), "expected auto, bcr, bcr4, fft, fft-tridiagonal or multifrontal");
  fails(section("bcr", "\"t*x\"", "0"), "not t");
  fails("poisson:\n  source: 1\n  boundary:\n    all: {type: neumann, value: 0}\n", "no face is dirichlet");
  fails("poisson:\n  source: \"sin(\"\n  boundary:\n    all: {type: dirichlet, value: 0}\n", "source");
  fails("poisson:\n  source: 1\n", "boundary");
  fails("poisson:\n  source: 1\n  exact: \"x > 0.5 ? sqrt(-1) : 0\"\n  boundary:\n    all: {type: dirichlet, value: 0}\n",
        "poisson.exact: is NaN at node (5, 0, 0)");
  fails("poisson:\n  refine: sometimes\n  source: 1\n  boundary:\n    all: {type: dirichlet, value: 0}\n",
        "expected auto, on or off");
  Deck deck = Deck::parse(section("bcr", "1", "0"), "bad");
  PoissonModule<double> m;
  CHECK_THROWS_AS(m.setup(grid(2, {2, 9, 1}, {1, 1, 1}), deck.root().child("poisson"), ctx, 0.0), DeckError);
}
