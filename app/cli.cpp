#include "app/cli.hpp"

#include <omp.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <string_view>
#include <unistd.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <hdf5.h>
#include <fmt/format.h>

#include "core/backend.hpp"
#include "core/device.hpp"
#include "core/domain.hpp"
#include "app/deck_keys.hpp"
#include "app/simulation.hpp"
#include "core/module.hpp"
#include "core/names.hpp"
#include "outputs/writer.hpp"
#include "physics/builtin_modules.hpp"
#include "solvers/block_tridiagonal/block_gpu_algorithm.hpp"
#include "solvers/tridiagonal/line_solvers.hpp"
#include "tridsim_build_info.hpp"
#include "tridsim_revision.hpp"
#if TRIDSIM_HAVE_CUDA
#include "core/cuda_libraries.hpp"
#endif

namespace tridsim {

namespace {

// GOMP_SPINCOUNT of a run or bench that was given no OpenMP wait policy (main).
constexpr const char* kSpinCount = "1000";

// The line-solver tables (the modules' `solver` keys): where each name runs, its limits, what it is.
void print_solvers() {
  using tridiag::OnCpu, tridiag::OnGpu;
  fmt::print("line solvers (heat, glioma: solver):\n");
  for (const auto& s : tridiag::kLineSolvers) {
    if (s.alias_of) {
      fmt::print("  {:18} {}\n", s.name, s.description);
      continue;
    }
    std::string where = s.on_cpu == OnCpu::runs ? "cpu" : s.on_cpu == OnCpu::runs_thomas ? "cpu (as thomas)" : "";
    if (s.on_gpu != OnGpu::refuses) {
      where += std::string(where.empty() ? "" : ", ") + "cuda";
      std::string limits = s.on_gpu == OnGpu::in_place_only ? "arrays in place" : "";
      if (s.only_axis >= 0) limits += std::string(limits.empty() ? "" : ", ") + "xyz"[s.only_axis] + " lines";
      if (s.max_length > 0) limits += (limits.empty() ? "" : ", ") + fmt::format("lines <= {}", s.max_length);
      if (s.layouts) limits += (limits.empty() ? "" : ", ") + std::string(s.layouts);
      if (!limits.empty()) where += " (" + limits + ")";
    }
    fmt::print("  {:18} {}; {}\n", s.name, s.description, where);
  }
  fmt::print("block line solvers (reaction_diffusion: solver; cuda; the cpu backend runs block Thomas):\n");
  for (const auto& s : blocktri::kBlockLineSolvers) {
    const char* first = blocktri::block_gpu_algorithm_name(s.value);
    if (std::string_view(first) != s.name) fmt::print("  {:18} another name of {}\n", s.name, first);
    else fmt::print("  {:18} {}; M <= {}\n", s.name, s.description, s.max_m);
  }
}

void print_info() {
  register_builtin_modules();
  fmt::print("tridsim {} ({} build, {})\n", TRIDSIM_VERSION, TRIDSIM_BUILD_TYPE, TRIDSIM_CXX_COMPILER);
  fmt::print("build options: CUDA {}, VTK {}, OpenMP {}\n", TRIDSIM_HAVE_CUDA ? "on" : "off",
             TRIDSIM_HAVE_VTK ? "on" : "off", _OPENMP);
  fmt::print("NIfTI tissue maps (glioma): {}\n", TRIDSIM_HAVE_NIFTI ? "on" : "off");
  fmt::print("MPI: {}\n", mpi_description());
  if (TRIDSIM_HAVE_MPI && TRIDSIM_HAVE_CUDA)
    fmt::print("several ranks with --backend cuda: one GPU per rank (a host's GPUs round-robin); interface data {}\n",
               gpu_transport());
  fmt::print("HDF5 output: {} HDF5 {}\n", TRIDSIM_HAVE_PARALLEL_HDF5 ? "parallel" : "serial",
             TRIDSIM_HAVE_PARALLEL_HDF5 ? H5_VERSION " (on several ranks, every rank writes its part of each file, MPI-IO)"
             : TRIDSIM_HAVE_MPI ? H5_VERSION " (on several ranks, the fields are gathered to rank 0, which writes the files)"
                                : H5_VERSION);
  fmt::print("backends:\n");
  for (const auto& b : kBackendNames) {
    const char *policy = std::getenv("OMP_WAIT_POLICY"), *spin = std::getenv("GOMP_SPINCOUNT");
    const std::string wait = policy ? fmt::format("OMP_WAIT_POLICY={}", policy)
                                    : fmt::format("waiting threads spin {} times, then sleep", spin ? spin : kSpinCount);
    const std::string here = b.value == Backend::cpu    ? fmt::format("{} OpenMP threads, {}", omp_get_max_threads(), wait)
                             : b.value == Backend::cuda ? cuda_device_summary()
                                                        : std::string("here: ") + to_string(resolve_backend(b.value));
    fmt::print("  {}: {}; {}\n", b.name, b.description, here);
  }
#if TRIDSIM_HAVE_CUDA
  fmt::print("CUDA libraries (opened on first use): {}\n", cuda_libraries_summary());
#endif
  fmt::print("output formats:\n");
  for (const auto* w : registered_writers()) {
    std::string also;
    for (const auto& a : w->aliases) also += (also.empty() ? " (also: " : ", ") + a;
    fmt::print("  {:10} {}{}{}\n", w->name, w->description, also.empty() ? "" : also + ")",
               w->unavailable.empty() ? "" : " [not in this build]");
  }
  fmt::print("modules:\n");
  for (const auto* m : registered_modules()) fmt::print("  {:10} {}\n", m->name, m->description);
  print_solvers();
}

// The registered module `name`, or an error listing them with the closest.
const ModuleInfo& module_named(const std::string& name) {
  register_builtin_modules();
  if (const ModuleInfo* m = find_module(name)) return *m;
  std::vector<std::string> names;
  for (const auto* m : registered_modules()) names.push_back(m->name);
  throw Error("unknown module: " + unknown_name_message(name, names));
}

// `tridsim new`: the template to stdout, or to a new file (an existing one is left alone).
void write_template(const ModuleInfo& module, const std::string& file) {
  if (module.example.empty()) throw Error("module " + module.name + " has no template deck");
  const std::string text = template_deck(module);
  if (file.empty()) {
    fmt::print("{}", text);
    return;
  }
  if (std::filesystem::exists(file)) throw Error("new: '" + file + "' exists; give another file (it is not overwritten)");
  std::ofstream out(file);
  out << text;
  if (!out.flush()) throw Error("new: cannot write '" + file + "'");
  fmt::print(stderr, "wrote {} (tridsim check {} validates it)\n", file, file);
}

}  // namespace

namespace {
// An error on several ranks. One that every rank meets (a deck error: every rank reads the deck, or
// one rank's error that the ranks agreed on: app/held_error.hpp) is printed once, by rank 0, and
// every rank ends with the exit code after MPI_Finalize. One that some ranks meet alone outside the
// driver's agreements (the others wait for them in a communication) is printed by each of those,
// naming its rank, and ends every rank at once (MPI_Abort, with the MPI's own report of it).
int fail_run(const std::string& message, int code) {
  if (world_size() > 1) {
    if (const int every = every_rank_failed(code, 3.0)) {
      if (world_rank() == 0) fmt::print(stderr, "{}\n", message);
      return every;
    }
    const std::string::size_type colon = message.find(": ");
    fmt::print(stderr, "{}: rank {} of {}{}\n", message.substr(0, colon), world_rank(), world_size(),
               colon == std::string::npos ? "" : message.substr(colon));
    std::fflush(stderr);
    abort_processes(code);
  }
  fmt::print(stderr, "{}\n", message);
  return code;
}

int run_command(int argc, char** argv);

// -v and -q, which every command takes before or after its name (so its --help lists them).
void add_global_flags(CLI::App* cmd, bool& verbose, bool& quiet) {
  const std::string group = cmd->get_parent() ? "Global options" : "Options";
  cmd->add_flag("-v,--verbose", verbose, "log what the run does")->group(group);
  cmd->add_flag("-q,--quiet", quiet, "print errors only (no progress, no summary lines)")->group(group);
}

// "; did you mean 'X'?" for the first word the command line could not place: a misspelt option
// against the options of the command given, a misspelt command against the commands.
std::string did_you_mean(CLI::App& app) {
  const std::vector<std::string> extras = app.remaining(true);
  if (extras.empty()) return "";
  const std::string word = extras.front().substr(0, extras.front().find('='));  // (--option=value)
  CLI::App* cmd = app.get_subcommands().empty() ? &app : app.get_subcommands().front();
  std::set<std::string> names;
  if (word.starts_with("-")) {
    for (const CLI::Option* o : cmd->get_options()) {
      for (const auto& l : o->get_lnames()) names.insert("--" + l);
      for (const auto& s : o->get_snames()) names.insert("-" + s);
    }
  } else if (cmd == &app) {
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) names.insert(sub->get_name());
  }
  const std::string guess = closest_match(word, names);
  return guess.empty() ? "" : "; did you mean '" + guess + "'?";
}

// A command line that cannot run (CLI11's parse errors): one error line, exit 1; --help: the help, exit 0.
int usage_error(CLI::App& app, const CLI::ParseError& e) {
  if (e.get_exit_code() == 0) return app.exit(e);
  const std::string help =
      app.get_subcommands().empty() ? "tridsim --help" : "tridsim " + app.get_subcommands().front()->get_name() + " --help";
  fmt::print(stderr, "error: {}{} ({} lists the options)\n", e.what(), did_you_mean(app), help);
  return 1;
}

// Whether the command (the first argument that is not a flag) steps a simulation: run or bench.
bool steps_a_simulation(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (argv[i][0] != '-') return std::string_view(argv[i]) == "run" || std::string_view(argv[i]) == "bench";
  return false;
}
}  // namespace

int main(int argc, char** argv) {
  // OpenMP threads that spin long while waiting make a run on a busy machine many times slower,
  // and threads that sleep at once slow small steps on an idle one; a short spin, then sleep,
  // avoids both. The runtime (libgomp) reads its policy when it loads, so a run or bench started
  // without one restarts itself once with it (a user's own OMP_WAIT_POLICY or GOMP_SPINCOUNT is
  // kept); the other commands do not step, and a restart would double their start-up time.
  // (Before MPI_Init: an MPI process must not replace itself after it.)
  if (steps_a_simulation(argc, argv) && !std::getenv("OMP_WAIT_POLICY") && !std::getenv("GOMP_SPINCOUNT") &&
      setenv("GOMP_SPINCOUNT", kSpinCount, 1) == 0)
    execv("/proc/self/exe", argv);  // returns only on failure: run on with the runtime's default
  init_processes(&argc, &argv);  // under mpirun; a plain start is one process
  const int rc = run_command(argc, argv);
  finish_processes();
  return rc;
}

namespace {
int run_command(int argc, char** argv) {
  // Every HDF5 file is closed explicitly; HDF5's own clean-up at exit crashes on a file whose
  // close failed (a full disk), after the error has been reported.
  H5dont_atexit();
  auto logger = spdlog::stderr_color_mt("tridsim");
  spdlog::set_default_logger(logger);
  spdlog::set_pattern("[%l] %v");
  spdlog::set_level(spdlog::level::warn);
  if (world_rank() > 0) spdlog::set_level(spdlog::level::err);  // rank 0 speaks for the run

  CLI::App app{"tridsim: finite-difference PDE simulations driven by YAML decks"};
  app.require_subcommand(0, 1);
  app.fallthrough();  // -v and -q are accepted after the subcommand too
  bool verbose = false, quiet = false, version = false;
  add_global_flags(&app, verbose, quiet);
  app.add_flag("--version", version, "print the version and the source revision");

  RunOptions opt;
  auto add_deck_options = [&](CLI::App* cmd, const std::string& deck_help) {
    cmd->add_option("deck", opt.deck, deck_help)->check(CLI::ExistingFile);
    cmd->add_option("--set", opt.sets, "override a deck key: --set heat.scheme=douglas --set grid.n=[64,64]");
    cmd->add_option("--backend", opt.backend, list_names(names_of(kBackendNames)) + " (overrides the deck)");
    cmd->add_option("--precision", opt.precision, list_names(names_of(kPrecisionNames)) + " (overrides the deck)");
    cmd->add_option("--threads", opt.threads, "OpenMP threads (0 = all; overrides the deck)");
    add_global_flags(cmd, verbose, quiet);
  };
  auto add_progress_flag = [&](CLI::App* cmd) {  // (check steps nothing)
    cmd->add_flag("--no-progress", opt.no_progress, "no progress lines (they go to stderr)");
  };
  auto* run = app.add_subcommand("run", "run a simulation");
  const std::string deck_or_checkpoint = "input deck (YAML); with --restart, default: the checkpoint's";
  add_deck_options(run, deck_or_checkpoint);
  add_progress_flag(run);
  run->add_option("-o,--output", opt.output, "output folder (overrides output.dir)");
  run->add_option("--restart", opt.restart,
                  "continue from a checkpoint file (output.checkpoint writes them); without DECK, the run that wrote it");
  auto* check = app.add_subcommand("check", "validate a deck without running it");
  add_deck_options(check, deck_or_checkpoint);
  check->add_option("--restart", opt.restart, "also check that this checkpoint can continue the deck");
  auto* bench = app.add_subcommand("bench", "time the steps of a deck, writing nothing");
  add_deck_options(bench, "input deck (YAML)");
  add_progress_flag(bench);
  bench->add_option("--steps", opt.bench_steps, "number of steps to time (default: the deck's)")
      ->check(CLI::Range(1, std::numeric_limits<int>::max()));
  auto* info = app.add_subcommand("info", "version, build options, backends and devices; with MODULE, its deck's keys");
  std::string info_module, new_module, new_output;
  info->add_option("module", info_module, "a module: list every key of its decks (type, default, unit, required)");
  add_global_flags(info, verbose, quiet);
  auto* make = app.add_subcommand("new", "write a commented template deck of a module that runs as it is");
  make->add_option("module", new_module, "the module (tridsim info lists them)")->required();
  make->add_option("-o,--output", new_output, "the deck file to write (default: standard output); never overwritten");
  add_global_flags(make, verbose, quiet);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return usage_error(app, e);
  }
  if (version) {
    fmt::print("tridsim {} (revision {})\n", TRIDSIM_VERSION, TRIDSIM_GIT_REVISION);
    return 0;
  }
  if (app.get_subcommands().empty()) {
    fmt::print(stderr, "{}\nerror: give a subcommand: run, check, bench, info or new\n", app.help());
    return 1;
  }
  if (verbose && quiet) {
    fmt::print(stderr, "error: -v and -q contradict each other; give one\n");
    return 1;
  }
  if (verbose) spdlog::set_level(spdlog::level::info);
  if (quiet || world_rank() > 0) spdlog::set_level(spdlog::level::err);
  opt.quiet = quiet;
  if (!*info && !*make && opt.deck.empty() && !opt.restart) {  // (a restart may take the checkpoint's deck)
    fmt::print(stderr, "error: {0}: give a deck: tridsim {0} DECK{1}\n", app.get_subcommands().front()->get_name(),
               *bench ? "" : " (or --restart CHECKPOINT, whose deck is used)");
    return 1;
  }
  try {
    if (*info && !info_module.empty()) {
      fmt::print("{}", key_reference(module_named(info_module)));
      return 0;
    }
    if (*info) {
      if (world_rank() == 0) print_info();
      return 0;
    }
    if (*make) {
      write_template(module_named(new_module), new_output);
      return 0;
    }
    opt.mode = *check ? RunOptions::Mode::check : *bench ? RunOptions::Mode::bench : RunOptions::Mode::run;
    return run_simulation(opt);
  } catch (const Error& e) {
    return fail_run(fmt::format("error: {}", e.what()), 1);
  } catch (const std::exception& e) {
    return fail_run(fmt::format("internal error: {}", e.what()), 2);
  }
}
}  // namespace

}  // namespace tridsim
