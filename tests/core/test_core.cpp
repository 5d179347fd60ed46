// Shared services: name tables and DeckNode::get_enum, DeckNode::get_file, the backend table and
// the writer registry.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "core/backend.hpp"
#include "core/deck.hpp"
#include "outputs/writer.hpp"
#include "solvers/tridiagonal/gpu_algorithm.hpp"

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
