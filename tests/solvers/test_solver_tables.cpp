// The solver tables: kLineSolvers (solvers/tridiagonal/line_solvers.hpp) and kBlockLineSolvers
// (solvers/block_tridiagonal/block_gpu_algorithm.hpp). Every row is documented (the tables of
// docs/running.md), in the fuzz dictionary, launched by a file that exists, and measured: the GPU
// rows in the committed benchmark results (and ranked by auto's generated table), the CPU rows in the
// list of the CPU benchmark (TRIDSIM_BENCH_LINE_SOLVERS, set by CMake when the benchmarks are built).
// The tests iterate the tables (test_tridiagonal.cpp, tests/gpu), so every row is tested.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "solvers/block_tridiagonal/block_gpu_algorithm.hpp"
#include "solvers/tridiagonal/line_solvers.hpp"

using namespace tridsim;

namespace {

const std::filesystem::path kRoot = TRIDSIM_SOURCE_DIR;

std::string read(const std::filesystem::path& relative) {
  std::ifstream in(kRoot / relative);
  REQUIRE_MESSAGE(in, "cannot read ", (kRoot / relative).string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A row of a markdown table whose first cell is `name`.
std::string doc_row(const char* name) { return "\n| `" + std::string(name) + "` |"; }
std::string dict_entry(const char* name) { return "\n\"" + std::string(name) + "\"\n"; }

}  // namespace

TEST_CASE("every line solver is documented, in the fuzz dictionary and launched by a file that exists") {
  const std::string docs = read("docs/running.md"), dict = read("tests/fuzz/deck.dict");
  for (const auto& s : tridiag::kLineSolvers) {
    INFO(std::string(s.name));
    CHECK(has(docs, doc_row(s.name)));
    CHECK(has(dict, dict_entry(s.name)));
    CHECK(std::filesystem::is_regular_file(kRoot / s.launched_by));
    CHECK(tridiag::find_line_solver(s.name) == &s);  // names are unique
    if (s.alias_of) {  // runs what the row it names runs
      const tridiag::LineSolver* of = tridiag::find_line_solver(s.alias_of);
      REQUIRE(of);
      CHECK(of->gpu == s.gpu);
      CHECK(of->cpu == s.cpu);
    }
  }
}

TEST_CASE("every value of the line-solver enums has a row, and names round-trip") {
  using tridiag::GpuAlgorithm;
  for (GpuAlgorithm a : {GpuAlgorithm::thomas, GpuAlgorithm::cusparse, GpuAlgorithm::thomas_naive,
                         GpuAlgorithm::thomas_pcr, GpuAlgorithm::pcr, GpuAlgorithm::automatic,
                         GpuAlgorithm::thomas_shuffle}) {
    REQUIRE(tridiag::line_solver(a));
    CHECK(tridiag::parse_gpu_algorithm(tridiag::gpu_algorithm_name(a)) == a);
  }
  CHECK(tridiag::gpu_line_algorithms().size() == 6);  // every enumerator but automatic, once
  std::vector<std::string> cpu;
  for (const auto* s : tridiag::cpu_line_solvers()) cpu.emplace_back(s->name);
  CHECK(cpu == std::vector<std::string>{"thomas", "pcr", "cr"});
  CHECK(tridiag::parse_gpu_algorithm("Thomas-PCR") == GpuAlgorithm::thomas_pcr);
  CHECK(tridiag::parse_gpu_algorithm("thomas-transposed") == GpuAlgorithm::thomas);
  CHECK_FALSE(tridiag::parse_gpu_algorithm("cr").has_value());  // a CPU algorithm
  CHECK_FALSE(tridiag::parse_gpu_algorithm("thomas_pcr").has_value());
}

TEST_CASE("every GPU line solver is measured and ranked by auto's table") {
  const std::string results = read("bench/results/h100-gpu-line-solvers.json");
  const std::string ranking = read("solvers/tridiagonal/cuda/gpu_selection_table.inc");
  for (tridiag::GpuAlgorithm a : tridiag::gpu_line_algorithms()) {
    const std::string name = tridiag::gpu_algorithm_name(a);
    INFO(name);
    CHECK(has(results, "\"batch/double/arrays/" + name + "/"));
    CHECK(has(ranking, " " + name + " "));  // the generated rows' comments: "us: thomas-pcr 16.1, ..."
  }
}

TEST_CASE("every CPU line solver is in the CPU benchmark's list") {
  const char* bench = std::getenv("TRIDSIM_BENCH_LINE_SOLVERS");
  if (!bench) {
    MESSAGE("TRIDSIM_BENCH_LINE_SOLVERS is not set (a build without the benchmarks): not checked");
    return;
  }
  std::string list;
  FILE* p = popen((std::string("\"") + bench + "\" --benchmark_list_tests=true").c_str(), "r");
  REQUIRE(p);
  char buf[4096];
  for (std::size_t got; (got = std::fread(buf, 1, sizeof buf, p)) > 0;) list.append(buf, got);
  CHECK(pclose(p) == 0);
  for (const auto* s : tridiag::cpu_line_solvers()) {
    const std::string name = s->name;
    INFO(name);
    // thomas, solve_lines' default, names the cases without a suffix; the others end in their name.
    const std::string suffix = s->cpu == tridiag::Algorithm::thomas ? "" : "/" + name;
    CHECK(has(list, "\nsolve/double/uniform/256x65536/x" + suffix + "/real_time\n"));
  }
}

TEST_CASE("every block line solver is documented, in the fuzz dictionary, launched by a file that exists, measured") {
  const std::string docs = read("docs/running.md"), dict = read("tests/fuzz/deck.dict");
  const std::string results = read("bench/results/h100-block-tridiagonal.json");
  for (const auto& s : blocktri::kBlockLineSolvers) {
    INFO(std::string(s.name));
    CHECK(has(docs, doc_row(s.name)));
    CHECK(has(dict, dict_entry(s.name)));
    CHECK(std::filesystem::is_regular_file(kRoot / s.launched_by));
    CHECK(s.max_m >= 1);
    CHECK(s.max_m <= blocktri::kMaxTemplateM);
    if (std::string(blocktri::block_gpu_algorithm_name(s.value)) == s.name)  // (aliases are measured as theirs)
      CHECK(has(results, "\"stored/double/M2/" + std::string(s.name) + "/"));
  }
  CHECK(blocktri::block_gpu_algorithms().size() == 3);  // every enumerator but automatic, once
  const auto L = tridiag::LineSet{{16, 8, 1}, {1, 16, 128}, 1};
  CHECK(has(blocktri::block_gpu_unsupported_reason(blocktri::BlockGpuAlgorithm::thread_per_system, 5, L), "M <= 4"));
  CHECK(blocktri::block_gpu_unsupported_reason(blocktri::BlockGpuAlgorithm::thread_per_system, 4, L).empty());
}
