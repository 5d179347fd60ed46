#include "app/simulation.hpp"

#include <omp.h>
#include <unistd.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>

#include "app/progress.hpp"
#include "core/backend.hpp"
#include "core/deck.hpp"
#include "core/fp_env.hpp"
#include "core/module.hpp"
#include "core/non_finite.hpp"
#include "outputs/files.hpp"
#include "outputs/writer.hpp"
#include "physics/builtin_modules.hpp"
#include "tridsim_build_info.hpp"

namespace tridsim {

namespace {

using clock_type = std::chrono::steady_clock;
double since(clock_type::time_point t0) { return std::chrono::duration<double>(clock_type::now() - t0).count(); }

Grid read_grid(const DeckNode& g) {
  Grid grid;
  const auto n = g.get<std::vector<long>>("n");
  if (n.empty() || n.size() > 3) g.fail("n", "expected a list of 1 to 3 point counts, e.g. [129, 129]");
  grid.dim = int(n.size());
  const auto lo = g.get_or<std::vector<double>>("lo", std::vector<double>(n.size(), 0.0));
  const auto hi = g.get_or<std::vector<double>>("hi", std::vector<double>(n.size(), 1.0));
  if (lo.size() != n.size()) g.fail("lo", fmt::format("expected {} values (one per axis of n)", n.size()));
  if (hi.size() != n.size()) g.fail("hi", fmt::format("expected {} values (one per axis of n)", n.size()));
  // Far beyond any memory, and small enough that sizes and offsets cannot overflow.
  constexpr double kMaxPoints = double(index_t(1) << 40);
  double points = 1;
  for (std::size_t a = 0; a < n.size(); ++a) {
    if (n[a] < 2) g.fail("n", fmt::format("every axis needs at least 2 points (the boundary nodes), got {}", n[a]));
    points *= double(n[a]);
    if (points > kMaxPoints)
      g.fail("n", fmt::format("{:.3g} points in all is more than any machine holds (at most 2^40 = {:.3g})", points,
                              kMaxPoints));
    if (!(hi[a] > lo[a])) g.fail("hi", fmt::format("hi must exceed lo on every axis (axis {}: lo={}, hi={})", a, lo[a], hi[a]));
    grid.n[a] = n[a];
    grid.lo[a] = lo[a];
    grid.hi[a] = hi[a];
  }
  return grid;
}

struct TimeSettings {
  double t0 = 0, end = 0, dt = 0;
  long steps = 0;
};

constexpr long kMaxSteps = 1'000'000'000'000;

TimeSettings read_time(const DeckNode& t) {
  TimeSettings s;
  s.t0 = t.get_or<double>("start", 0.0);
  s.dt = t.get<double>("dt");
  t.require(std::isfinite(s.t0), "start", s.t0, "a finite time");
  t.require(s.dt > 0 && std::isfinite(s.dt), "dt", s.dt, "a positive number");
  if (t.has("steps") == t.has("end")) t.fail("end", "give exactly one of 'end' (final time) or 'steps'");
  if (t.has("steps")) {
    s.steps = t.get<long>("steps");
    t.require(s.steps >= 0 && s.steps <= kMaxSteps, "steps", s.steps, "between 0 and 10^12");
    s.end = s.t0 + double(s.steps) * s.dt;
  } else {
    s.end = t.get<double>("end");
    t.require(std::isfinite(s.end) && s.end >= s.t0, "end", s.end, "a finite time, at least the start time");
    const double steps = std::ceil((s.end - s.t0) / s.dt - 1e-9);
    if (!(steps <= double(kMaxSteps)))
      t.fail("dt", fmt::format("(end - start) / dt = {:.3g} steps; at most 10^12 (a larger dt, or an earlier end)", steps));
    s.steps = long(steps);
  }
  return s;
}

// A choice given on the command line (--backend, --precision) or else by the deck key.
template <class Table>
name_value_t<Table> pick(const DeckNode& root, const std::optional<std::string>& option, const std::string& key,
                         const Table& table, name_value_t<Table> fallback) {
  const bool in_deck = root.has(key);  // (the key is known even where the option overrides it)
  if (!option) return in_deck ? root.get_enum(key, table) : fallback;
  if (auto v = parse_name(table, *option)) return *v;
  throw Error("--" + key + ": " + unknown_name_message(*option, names_of(table)));
}

// cpu, cuda (fields on the GPU for the whole run) or auto (the GPU when one is present).
Backend pick_backend(const DeckNode& root, const RunOptions& opt) {
  const Backend b = resolve_backend(pick(root, opt.backend, "backend", kBackendNames, Backend::cpu));
  if (const std::string why = b == Backend::cuda ? cuda_unavailable_reason() : ""; !why.empty()) {
    if (!opt.backend) root.fail("backend", why + "; use cpu or auto");
    throw Error("--backend " + *opt.backend + ": " + why + "; use cpu or auto");
  }
  return b;
}

// Why `dir` could not be made or written into ("" if it can): the nearest existing ancestor must
// be a writable directory. check runs it without creating anything; run before it creates.
std::string output_dir_problem(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::path probe = std::filesystem::absolute(dir, ec);
  while (!std::filesystem::exists(probe, ec) && probe.has_parent_path() && probe != probe.parent_path())
    probe = probe.parent_path();
  if (!std::filesystem::is_directory(probe, ec)) return fmt::format("'{}' is not a directory", probe.string());
  if (access(probe.c_str(), W_OK | X_OK) != 0) return fmt::format("'{}' is not writable", probe.string());
  return "";
}

// The first node of the module's fields that is not finite: "field u is NaN first at node (i, j, k) ...".
std::string first_non_finite_node(Module& module, const Grid& g) {
  for (const FieldRef& f : module.fields()) {
    const auto bad = f.precision == Precision::float32 ? first_non_finite(g, static_cast<const float*>(f.data))
                                                       : first_non_finite(g, static_cast<const double*>(f.data));
    if (bad) return fmt::format("field {} is {} first {}", f.name, bad->name, bad->where);
  }
  return "";
}

void check_finite(const std::vector<Diagnostic>& diags, Module& module, const Grid& g, long step, double t) {
  for (const auto& d : diags)
    if (!std::isfinite(d.value)) {
      const std::string where = first_non_finite_node(module, g);
      throw RuntimeFailure(fmt::format("{} is {} at step {}, t = {:.6g}{}: the run diverged; check the time step, "
                                       "coefficients and boundary data",
                                       d.name, non_finite_name(d.value), step, t, where.empty() ? "" : "; " + where));
    }
}

}  // namespace

void run_simulation(const RunOptions& opt) {
  const auto t_start = clock_type::now();
  register_builtin_modules();

  // 1. Read the deck and apply the command-line overrides.
  Deck deck = Deck::load(opt.deck);
  for (const auto& s : opt.sets) deck.set(s);
  const DeckNode root = deck.root();
  const std::string name = root.get_or<std::string>("name", opt.deck.stem().string());
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos)
    root.fail("name", "must be a plain file name (the base of every output file, no '/'), got '" + name + "'");
  root.get_or<std::string>("description", "");  // free text for the reader; accepted, not used
  const std::string module_name = root.get<std::string>("module");
  const ModuleInfo* info = find_module(module_name);
  if (!info) {
    std::vector<std::string> names;
    for (const auto* m : registered_modules()) names.push_back(m->name);
    root.fail("module", "unknown module: " + unknown_name_message(module_name, names));
  }
  SetupContext ctx;
  ctx.precision = pick(root, opt.precision, "precision", kPrecisionNames, Precision::float64);
  ctx.backend = pick_backend(root, opt);
  // Threads: 0 = all; at most 16 per core available (more only thrash, and the OpenMP runtime
  // fails to create very many).
  const int max_threads = 16 * omp_get_num_procs();
  const int threads = opt.threads.value_or(root.get_or<int>("threads", 0));
  if (threads < 0 || threads > max_threads) {
    const std::string valid = fmt::format("0 (all cores) to {} (16 per core), got {}", max_threads, threads);
    if (opt.threads) throw Error("--threads: must be " + valid);
    root.fail("threads", "must be " + valid);
  }
  if (threads > 0) omp_set_num_threads(threads);
  flush_subnormals_to_zero();
  if (auto c = root.maybe_child("constants"))
    for (const auto& key : c->keys()) {
      for (const char* reserved : {"x", "y", "z", "t", "pi", "e", "_pi", "_e"})
        if (key == reserved)
          c->fail(key, fmt::format("'{}' is a variable or built-in constant of every expression; give the constant "
                                   "another name", key));
      ctx.constants[key] = c->get<double>(key);
    }

  const Grid grid = read_grid(root.child("grid"));
  std::unique_ptr<Module> module = info->create(ctx.precision);
  const bool steady = module->steady();
  if (steady && root.has("time"))
    root.fail("time", "module " + module_name + " solves a steady problem: remove the time section");
  const TimeSettings time = steady ? TimeSettings{0, 0, 0, 1} : read_time(root.child("time"));
  const auto out_node = root.maybe_child("output");
  auto out_get = [&](const std::string& key, auto fallback) {
    return out_node ? out_node->get_or(key, fallback) : fallback;
  };
  const std::filesystem::path out_dir = opt.output.value_or(out_get("dir", std::string("output/" + name)));
  auto fail_output_dir = [&](const std::string& why) {  // at -o or output.dir, whichever named it
    const std::string what = fmt::format("cannot create the output directory '{}': {}", out_dir.string(), why);
    if (opt.output) throw Error("-o: " + what);
    if (out_node && out_node->has("dir")) out_node->fail("dir", what);
    throw Error(what + " (set output.dir or -o)");
  };
  const long every = out_get("every", std::max(1L, (time.steps + 9) / 10));
  const long diag_every = out_get("diagnostics_every", 1L);
  std::vector<std::string> formats = out_get("formats", std::vector<std::string>{"hdf5", "vtk", "csv"});
  if (every < 1) out_node->fail("every", "must be a positive number of steps");
  if (diag_every < 1) out_node->fail("diagnostics_every", "must be a positive number of steps");
  std::vector<const WriterInfo*> writers_wanted;  // each once, in the order given
  for (const auto& f : formats) {
    const WriterInfo* w = find_writer(f);
    if (!w) out_node->fail("formats", unknown_name_message(f, writer_names()));
    if (std::find(writers_wanted.begin(), writers_wanted.end(), w) != writers_wanted.end()) continue;
    if (!w->unavailable.empty()) {  // decks stay portable between builds: skip, and say so
      if (out_node && out_node->has("formats")) spdlog::warn("{}: {}", out_node->where("formats"), w->unavailable);
      continue;
    }
    writers_wanted.push_back(w);
  }

  // 2. Set the module up; then every key of the deck must have been used.
  const auto t_setup = clock_type::now();
  try {
    module->setup(grid, root.child(module_name), ctx, time.t0);
  } catch (const std::bad_alloc&) {
    const double field_gb = double(grid.size()) * (ctx.precision == Precision::float32 ? 4 : 8) / 1e9;
    throw Error(fmt::format("{}: grid.n: not enough memory for the {} module on {} grid points ({:.3g} GB per field "
                            "in {}); use a smaller grid",
                            root.child("grid").where("n"), module_name, grid.size(), field_gb, to_string(ctx.precision)));
  }
  deck.check_unknown_keys();
  if (auto limit = module->max_stable_dt(); limit && time.dt > *limit)
    root.child("time").fail("dt", fmt::format("{:.6g} exceeds the scheme's stability limit {:.6g}", time.dt, *limit));
  const double setup_s = since(t_setup);
  spdlog::info("deck {} is valid: module {}, {}D grid {}x{}x{}, {} steps of dt={}", opt.deck.string(), module_name,
               grid.dim, grid.n[0], grid.n[1], grid.n[2], time.steps, time.dt);
  if (opt.mode != RunOptions::Mode::bench)
    if (const std::string why = output_dir_problem(out_dir); !why.empty()) fail_output_dir(why);
  if (opt.mode == RunOptions::Mode::check) {
    if (!opt.quiet)
      fmt::print("{}: OK ({} module, {} points, {})\n", opt.deck.string(), module_name, grid.size(),
                 steady ? std::string("steady: one solve") : fmt::format("{} steps", time.steps));
    return;
  }
  const bool bench = opt.mode == RunOptions::Mode::bench;
  const long steps = bench && opt.bench_steps > 0 ? opt.bench_steps : time.steps;

  // 3. Writers (nothing reaches its final name before they close).
  std::vector<std::unique_ptr<Writer>> writers;
  if (!bench) {
    std::error_code ec;
    std::filesystem::create_directories(out_dir, ec);
    if (ec) fail_output_dir(ec.message());
    for (const auto* w : writers_wanted) writers.push_back(w->create(WriterSetup{out_dir, name, grid}));
  }
  double output_s = 0;
  auto write_fields = [&](long step, double t) {
    const auto t0 = clock_type::now();
    auto fields = module->fields();
    for (auto& w : writers) w->write(int(step), t, fields);
    output_s += since(t0);
  };
  auto diagnostics_row = [&](long step, double t, double step_wall) {
    auto diags = module->diagnostics(t);
    check_finite(diags, *module, grid, step, t);
    if (writers.empty()) return;
    const auto t0 = clock_type::now();
    diags.insert(diags.begin(), Diagnostic{"step_wall_s", step_wall});
    for (auto& w : writers) w->write_diagnostics(step, t, diags);
    output_s += since(t0);
  };

  // 4. Time loop.
  if (!steady) {  // (a steady module has no initial state worth writing)
    diagnostics_row(0, time.t0, 0.0);
    if (!bench) write_fields(0, time.t0);
  }
  if (bench && !steady && steps > 0) {  // untimed: first launches load the kernels, first touches map memory
    module->step(time.t0, time.dt);
    module->wait();
  }
  Progress progress(steps, !(opt.no_progress || opt.quiet || steady));
  // Steps may be queued on a device: the clock runs from the first step after the last look at
  // the results to the end of the wait before the next look.
  double step_s = 0, t = time.t0;
  long queued = 0;
  auto window = clock_type::now();
  for (long s = 1; s <= steps; ++s) {
    const double dt = bench || steady ? time.dt : std::min(time.dt, time.end - t);
    if (queued == 0) window = clock_type::now();
    module->step(t, dt);
    ++queued;
    t = bench ? t + dt : (s == steps ? time.end : t + dt);
    const bool diagnose = s % diag_every == 0 || s == steps, write = !bench && (s % every == 0 || s == steps);
    if (diagnose || write) {
      module->wait();
      const double wall = since(window);
      step_s += wall;
      if (diagnose) diagnostics_row(s, t, wall / double(queued));
      if (write) write_fields(s, t);
      queued = 0;
    }
    progress.update(s, t);
  }
  progress.finish();
  const auto norms = module->error_norms(t);

  // 5. Close the writers (atomic renames) and write the summary.
  const auto t_close = clock_type::now();
  for (auto& w : writers) w->close();
  output_s += since(t_close);
  const double points_per_s = step_s > 0 ? double(grid.size()) * double(steps) / step_s : 0.0;
  nlohmann::json summary = {
      {"deck", opt.deck.string()},
      {"name", name},
      {"module", module_name},
      {"backend", to_string(ctx.backend)},
      {"precision", std::string(to_string(ctx.precision))},
      {"threads", omp_get_max_threads()},
      {"version", TRIDSIM_VERSION},
      {"revision", TRIDSIM_GIT_REVISION},
      {"deck_resolved", deck.resolved_text()},  // after --set
      {"grid", {{"dim", grid.dim}, {"n", grid.n}, {"lo", grid.lo}, {"hi", grid.hi}, {"points", grid.size()}}},
      {"time", {{"start", time.t0}, {"end", t}, {"dt", time.dt}, {"steps", steps}}},
      {"wall_time_s", {{"setup", setup_s}, {"steps", step_s}, {"output", output_s}, {"total", since(t_start)}}},
      {"seconds_per_step", steps > 0 ? step_s / double(steps) : 0.0},
      {"grid_points_per_second", points_per_s},
  };
  if (norms) summary["error"] = {{"field", norms->field}, {"l2", norms->l2}, {"max", norms->max}, {"time", t}};
  if (!opt.quiet) {
    if (steady)
      fmt::print("{} solved in {:.3f} s ({} points, {:.3e} points/s)\n", name, step_s, grid.size(), points_per_s);
    else
      fmt::print("{} finished: {} steps in {:.3f} s ({:.3f} ms/step, {:.3e} points/s)\n", name, steps, step_s,
                 steps ? 1e3 * step_s / double(steps) : 0.0, points_per_s);
    if (norms) fmt::print("error of {} at t = {:.6g}: L2 {:.3e}, max {:.3e}\n", norms->field, t, norms->l2, norms->max);
  }
  if (bench) return;
  write_file_atomically(out_dir / "summary.json", summary.dump(2) + "\n");
  if (!opt.quiet) fmt::print("results in {}\n", out_dir.string());
}

}  // namespace tridsim
