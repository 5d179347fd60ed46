// Shared services: name tables and DeckNode::get_enum, key-table defaults, DeckNode::get_file, the backend table, the
// writer registry and libraries opened on first use.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <cmath>
#include <filesystem>
#include <limits>
#include <vector>
#include <fstream>

#include "core/backend.hpp"
#include "core/deck.hpp"
#include "core/decomposition.hpp"
#include "core/field_stats.hpp"
#include "core/grid_nodes.hpp"
#include "core/lazy_library.hpp"
#include "core/non_finite.hpp"
#include "outputs/writer.hpp"
#include "solvers/tridiagonal/line_solvers.hpp"

using namespace tridsim;
namespace fs = std::filesystem;

namespace {

// The shape of the line-solver table: aliases (two names, one value; the first is printed).
using tridiag::GpuAlgorithm;
constexpr NameEntry<GpuAlgorithm> kLineSolvers[] = {
    {"thomas", GpuAlgorithm::thomas}, {"thomas-transposed", GpuAlgorithm::thomas},
    {"pcr", GpuAlgorithm::pcr},       {"auto", GpuAlgorithm::automatic}};

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("name tables: aliases, case, printing, listing") {
  CHECK(parse_name(kLineSolvers, "thomas-transposed") == GpuAlgorithm::thomas);
  CHECK(parse_name(kLineSolvers, "PCR") == GpuAlgorithm::pcr);
  CHECK_FALSE(parse_name(kLineSolvers, "thomas_pcr").has_value());
  CHECK(std::string(name_of(kLineSolvers, GpuAlgorithm::thomas)) == "thomas");
  CHECK(std::string(name_of(kLineSolvers, GpuAlgorithm::cusparse)) == "?");
  CHECK(list_names(names_of(kLineSolvers)) == "thomas, thomas-transposed, pcr or auto");
  CHECK(unknown_name_message("thoms", names_of(kLineSolvers)) ==
        "expected thomas, thomas-transposed, pcr or auto, got 'thoms'; did you mean 'thomas'?");
  static_assert(std::string_view(name_of(kBackendNames, Backend::automatic)) == "auto");
}

TEST_CASE("get_enum reads a choice, or fails at the key's line with the valid names") {
  Deck deck = Deck::parse("a:\n  solver: Thomas-Transposed\n  bad: thoms\n", "enum.yaml");
  const DeckNode a = deck.root().child("a");
  CHECK(a.get_enum("solver", kLineSolvers) == GpuAlgorithm::thomas);
  CHECK(a.get_enum("missing", kLineSolvers, GpuAlgorithm::automatic) == GpuAlgorithm::automatic);
  CHECK(error_of([&] { a.get_enum("bad", kLineSolvers); }) ==
        "enum.yaml:3: a.bad: expected thomas, thomas-transposed, pcr or auto, got 'thoms'; did you mean 'thomas'?");
  CHECK_THROWS_AS(a.get_enum("absent", kLineSolvers), DeckError);
  deck.check_unknown_keys();  // every key was asked for
}

TEST_CASE("a key left out takes its key table's default, read as the deck reads the key") {
  const KeyTable keys = {{"a", kSection, "", "", true, ""},
                         {"a.n", kInteger, "3", "", false, ""},
                         {"a.h", kNumber, "0.25", "", false, ""},
                         {"a.formats", kTexts, "[hdf5, csv]", "", false, ""},
                         {"a.solver", kChoice, "PCR", "", false, ""},
                         {"a.<axis>", kChoice, "thomas", "", false, ""},
                         {"a.every", kInteger, "(a tenth of the steps)", "", false, ""},
                         {"a.name", kText, "", "", false, ""}};
  Deck deck = Deck::parse("a:\n  n: 7\n", "defaults.yaml");
  const DeckNode a = deck.root().child("a");
  CHECK(a.get_or_default<long>("n", keys) == 7);  // given
  CHECK(a.get_or_default<double>("h", keys) == 0.25);
  CHECK(a.get_or_default<std::vector<std::string>>("formats", keys) == std::vector<std::string>{"hdf5", "csv"});
  CHECK(a.get_enum_or_default("solver", kLineSolvers, keys) == GpuAlgorithm::pcr);
  CHECK(a.get_enum_or_default("y", kLineSolvers, keys) == GpuAlgorithm::thomas);  // through <axis>
  CHECK(table_default<long>(keys, "a.n") == 3);
  // Words in parentheses and no default are not values: a reader asking for one is out of step.
  CHECK_FALSE(default_is_value(*find_key(keys, "a.every")));
  CHECK(error_of([&] { a.get_or_default<long>("every", keys); }) ==
        "the key table gives no default value for a.every (the deck reader asks for one)");
  CHECK(error_of([&] { a.get_or_default<std::string>("name", keys); }) ==
        "the key table gives no default value for a.name (the deck reader asks for one)");
  CHECK(error_of([&] { table_default<long>(keys, "a.h"); }) == "the key table's default of a.h is '0.25', not an integer");
  CHECK(error_of([&] { table_default<long>(keys, "b.n"); }).find("lists no key b.n") != std::string::npos);
  // Only a default of the reader's own (get_or, get_enum with a fallback) is noted, and only for
  // a key left out.
  CHECK(deck.own_defaults().empty());
  CHECK(a.get_or<long>("every", 5) == 5);
  CHECK(a.get_or<long>("n", 5) == 7);
  CHECK(a.get_enum("z", kLineSolvers, GpuAlgorithm::automatic) == GpuAlgorithm::automatic);
  CHECK(deck.own_defaults() == std::vector<std::string>{"a.every", "a.z"});
}

TEST_CASE("a rank's box names its nodes by their index in the whole grid") {
  Grid g;
  g.dim = 3;
  g.n = {9, 9, 9};
  const Decomposition upper = decompose(g, {1, 1, 2}, {0, 0, 1});  // z split in two: the upper half
  const Grid box = upper.local();
  CHECK(box.first[2] == upper.axes[2].local_first());
  CHECK(box.first[2] > 0);
  const index_t k = box.n[2] - 1;  // the box's last plane: z = 1, the grid's node 8
  CHECK(node_where(box, 0, 0, k) == "at node (0, 0, 8) (x = 0, y = 0, z = 1)");
  std::vector<double> values(static_cast<std::size_t>(box.size()), 0.0);
  values[static_cast<std::size_t>(box.index(1, 2, k))] = std::nan("");
  const auto bad = first_non_finite(box, values.data());
  REQUIRE(bad);
  CHECK(bad->where == "at node (1, 2, 8) (x = 0.125, y = 0.25, z = 1)");
  CHECK(node_where(g, 1, 2, 8) == bad->where);  // as one process names it
}

TEST_CASE("grid.x, y, z: node lists and mappings, and their errors at the key") {
  auto read = [](const std::string& text, int axis, index_t n) {
    Deck d = Deck::parse(text, "deck");
    return read_axis_nodes(d.root().child("grid"), axis, n, 0.0, 2.0, {{"g", 2.0}}, 1e-150);
  };
  CHECK(read("grid:\n  z: [0, 0.1, 0.5, 1.5, 2]\n", 2, 5) == std::vector<double>{0, 0.1, 0.5, 1.5, 2});
  // a mapping of the uniform nodes 0, 0.5, 1, 1.5, 2 of [lo, hi] = [0, 2] (with a deck constant)
  const std::vector<double> mapped = read("grid:\n  y: \"1 + tanh(g*(y - 1))/tanh(g)\"\n", 1, 5);
  REQUIRE(mapped.size() == 5);
  for (int i = 0; i < 5; ++i) CHECK(mapped[std::size_t(i)] == doctest::Approx(1 + std::tanh(2 * (0.5 * i - 1)) / std::tanh(2)));
  auto fails = [&](const std::string& text, int axis, const std::string& part) {
    INFO(text);
    CHECK_THROWS_WITH_AS(read(text, axis, 4), doctest::Contains(part.c_str()), DeckError);
  };
  fails("grid:\n  x: [0, 1, 2]\n", 0, "grid.x: expected 4 node coordinates (grid.n on axis 0), got 3");
  fails("grid:\n  x: [0, 1, 1, 2]\n", 0, "grid.x: node coordinates must increase strictly: node 1 is at 1 and node 2 at 1");
  fails("grid:\n  x: [0, .nan, 1, 2]\n", 0, "grid.x: node 1 has coordinate nan: must be finite");
  fails("grid:\n  z: \"2 - z\"\n", 2, "grid.z: node coordinates must increase strictly");
  fails("grid:\n  z: \"z*t\"\n", 2, "grid.z: a mapping of the grid cannot depend on time t");
  fails("grid:\n  z: 3\n", 2, "grid.z: expected a list of 4 node coordinates or an expression of z");
  fails("grid:\n  z: [0, 1e-300, 1, 2]\n", 2, "grid.z: nodes 0 and 1 are 1e-300 apart");
}

TEST_CASE("a rank's box of a stretched grid holds its own nodes' coordinates") {
  Grid g;
  g.dim = 2;
  g.n = {5, 9, 1};
  for (index_t j = 0; j < 9; ++j) g.nodes[1].push_back(double(j * j));
  g.hi[1] = 64;
  const Grid box = decompose(g, {1, 2, 1}, {0, 1, 0}).local();  // y split in two: the upper half
  REQUIRE(box.stretched(1));
  CHECK(!box.stretched(0));
  REQUIRE(index_t(box.nodes[1].size()) == box.n[1]);
  for (index_t j = 0; j < box.n[1]; ++j) CHECK(box.coord(1, j) == g.coord(1, box.first[1] + j));
  CHECK(box.lo[1] == g.coord(1, box.first[1]));
  CHECK(g.min_spacing(1) == 1);
  CHECK(g.max_spacing(1) == 15);
  CHECK(g.min_spacing(0) == g.h(0));
}

TEST_CASE("backend names") {
  CHECK(backend_from_name("cuda") == Backend::cuda);
  CHECK(std::string(to_string(Backend::cpu)) == "cpu");
  CHECK(resolve_backend(Backend::cpu) == Backend::cpu);
  CHECK(resolve_backend(Backend::automatic) != Backend::automatic);
  CHECK(error_of([] { backend_from_name("gpu"); }).find("expected cpu, cuda or auto, got 'gpu'") != std::string::npos);
}

TEST_CASE("get_file: beside the deck first, then the current directory; the paths tried when missing") {
  const fs::path root = fs::temp_directory_path() / ("tridsim_core_" + std::to_string(::getpid()));
  const fs::path decks = root / "decks", work = root / "work";
  fs::create_directories(decks);
  fs::create_directories(work);
  std::ofstream(decks / "both.dat") << "deck";
  std::ofstream(work / "both.dat") << "cwd";
  std::ofstream(work / "cwd_only.dat") << "cwd";
  const fs::path old = fs::current_path();
  fs::current_path(work);
  Deck deck = Deck::parse("f:\n  both: both.dat\n  cwd: cwd_only.dat\n  abs: " + (work / "cwd_only.dat").string() +
                              "\n  none: nowhere.dat\n",
                          (decks / "d.yaml").string());
  const DeckNode f = deck.root().child("f");
  CHECK(f.get_file("both") == decks / "both.dat");
  CHECK(f.get_file("cwd") == "cwd_only.dat");
  CHECK(f.get_file("abs") == work / "cwd_only.dat");
  const std::string e = error_of([&] { f.get_file("none"); });
  CHECK(e.find(":5: f.none: file 'nowhere.dat' not found (tried " + (decks / "nowhere.dat").string() + ", " +
               (work / "nowhere.dat").string() + ")") != std::string::npos);
  fs::current_path(old);
  fs::remove_all(root);
}

namespace {
struct NullWriter final : Writer {
  void write(int, double, std::span<const FieldRef>) override {}
  void close() override {}
};
std::unique_ptr<Writer> make_null(const WriterSetup&) { return std::make_unique<NullWriter>(); }
}  // namespace

TEST_CASE("writer registry: built-in formats, aliases, registration") {
  REQUIRE(find_writer("hdf5"));
  CHECK(find_writer("XDMF") == find_writer("hdf5"));
  CHECK(find_writer("csv"));
  CHECK(find_writer("vtk"));
  CHECK(find_writer("null") == nullptr);
  CHECK(register_writer({"null", {"nothing"}, "writes nothing", make_null}));
  REQUIRE(find_writer("nothing"));
  CHECK(find_writer("nothing")->name == "null");
  CHECK(list_names(writer_names()) == "hdf5, xdmf, vtk, csv, null or nothing");
  CHECK_THROWS_AS(register_writer({"csv", {}, "again", make_null}), Error);
  CHECK_THROWS_AS(register_writer({"other", {"xdmf"}, "alias taken", make_null}), Error);
}

TEST_CASE("field statistics: trapezoidal integrals, level-set measures, NaN visible; error norms") {
  Grid g;
  g.dim = 2;
  g.n = {5, 9, 1};
  g.lo = {0, 0, 0};
  g.hi = {2, 1, 1};
  std::vector<double> u(std::size_t(g.size()));
  std::vector<float> step(u.size());
  for (index_t j = 0; j < g.n[1]; ++j)
    for (index_t i = 0; i < g.n[0]; ++i) {
      const double x = g.coord(0, i), y = g.coord(1, j);
      u[std::size_t(g.index(i, j, 0))] = 1 + x + 2 * y;
      step[std::size_t(g.index(i, j, 0))] = x <= 1 ? 1.0f : 0.0f;
    }
  const FieldStats plain = field_stats(StatsSpec::plain(g), u.data());
  CHECK(plain.lo == 1);
  CHECK(plain.hi == 5);
  CHECK(plain.sum / double(g.size()) == doctest::Approx(3).epsilon(1e-14));  // symmetric grid: mean of x, y
  // The trapezoidal rule integrates a linear field exactly: area 2 times the mean value 3.
  CHECK(field_stats(StatsSpec::integral(g, 1e300, 1e300), u.data()).sum == doctest::Approx(6).epsilon(1e-14));
  // {step >= 0.5} is x <= 1: nodes x = 0, 0.5, 1 with weights 0.25, 0.5, 0.5, times height 1.
  const FieldStats levels = field_stats(StatsSpec::integral(g, 0.5, 2.0), step.data());
  CHECK(levels.level[0] == doctest::Approx(1.25).epsilon(1e-14));
  CHECK(levels.level[1] == 0);
  u[7] = std::numeric_limits<double>::quiet_NaN();
  const FieldStats bad = field_stats(StatsSpec::plain(g), u.data());
  CHECK((std::isnan(bad.lo) && std::isnan(bad.hi) && std::isnan(bad.sum)));

  const double exact[4] = {1, 2, 3, 4};
  const double computed[4] = {1, 5, -1, 4};  // errors 0, 3, -4, 0
  const ErrorNorms e = error_norms_of("u", computed, exact, 4);
  CHECK(e.l2 == doctest::Approx(2.5).epsilon(1e-15));  // sqrt(25 / 4)
  CHECK(e.max == 4);
  const double with_inf[4] = {1, 2, HUGE_VAL, 4};
  CHECK(std::isnan(error_norms_of("u", computed, with_inf, 4).max));
}

TEST_CASE("a library opened on first use: its functions, or one error naming it and what needs it") {
  const lazy::Library libm{"libm", {"libtridsim_no_such_library.so.0", "libm.so.6", nullptr}, "this test"};
  CHECK(lazy::available(libm));
  const auto cosine = reinterpret_cast<double (*)(double)>(lazy::symbol(libm, "cos"));
  CHECK(cosine(0.0) == 1.0);
  CHECK(cosine(std::acos(-1.0)) == -1.0);
  CHECK_THROWS_WITH_AS(lazy::symbol(libm, "no_such_function"), doctest::Contains("libm has no function no_such_function"),
                       Error);
  const lazy::Library missing{"libnosuch", {"libtridsim_no_such_library.so.0", "/nonexistent/libnosuch.so", nullptr},
                              "this test"};
  CHECK_FALSE(lazy::available(missing));
  for (int attempt = 0; attempt < 2; ++attempt)  // the same error every time, each path's reason in it
    CHECK_THROWS_WITH_AS(lazy::handle(missing),
                         doctest::Contains("libnosuch, which this test needs, could not be loaded:\n  "
                                           "libtridsim_no_such_library.so.0: cannot open shared object file"),
                         Error);
}
