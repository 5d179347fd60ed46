#include "app/simulation.hpp"

#include <omp.h>
#include <unistd.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <csignal>
#include <cctype>
#include <cstring>
#include <deque>
#include <exception>
#include <fstream>
#include <regex>
#include <chrono>
#include <cfloat>
#include <cmath>
#include <nlohmann/json.hpp>
#include <span>
#include <fmt/ranges.h>

#include "app/deck_keys.hpp"
#include "app/held_error.hpp"
#include "app/progress.hpp"
#include "app/time_line.hpp"
#include "core/backend.hpp"
#include "core/deck.hpp"
#include "core/device.hpp"
#include "core/domain.hpp"
#include "core/fp_env.hpp"
#include "core/grid_nodes.hpp"
#include "core/module.hpp"
#include "core/non_finite.hpp"
#include "outputs/checkpoint.hpp"
#include "outputs/files.hpp"
#include "outputs/hdf5_xdmf_writer.hpp"
#include "outputs/run_directory.hpp"
#include "outputs/writer.hpp"
#include "physics/builtin_modules.hpp"
#include "tridsim_build_info.hpp"
#include "tridsim_revision.hpp"

namespace tridsim {

namespace {

using clock_type = std::chrono::steady_clock;
double since(clock_type::time_point t0) { return std::chrono::duration<double>(clock_type::now() - t0).count(); }

// Every module divides by h^2: the spacing h = (hi - lo)/(n - 1) (each spacing of a stretched
// axis), h^2 and 1/h^2 must be normal numbers of the run's precision (1/h^2 of hi: 1e-300 is inf,
// and the first step NaN).
Grid read_grid(const DeckNode& g, Precision precision, const Constants& constants) {
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
    if (!std::isfinite(lo[a])) g.fail("lo", fmt::format("must be finite numbers, got {} on axis {}", lo[a], a));
    if (!std::isfinite(hi[a])) g.fail("hi", fmt::format("must be finite numbers, got {} on axis {}", hi[a], a));
    if (!(hi[a] > lo[a])) g.fail("hi", fmt::format("hi must exceed lo on every axis (axis {}: lo={}, hi={})", a, lo[a], hi[a]));
    const double h = (hi[a] - lo[a]) / double(n[a] - 1), tiny = precision == Precision::float32 ? FLT_MIN : DBL_MIN;
    const double low = std::sqrt(tiny), high = 1 / std::sqrt(tiny);  // h^2 and 1/h^2 normal
    grid.n[a] = n[a];
    if (g.has(axis_nodes_key(int(a)))) {  // a stretched axis: its nodes, which then give lo and hi
      const char* key = axis_nodes_key(int(a));
      grid.nodes[a] = read_axis_nodes(g, int(a), n[a], lo[a], hi[a], constants, low);
      auto agree = [&](const char* end, double given, double node, const char* which) {  // (a list's ends)
        if (g.is_list(key) && g.has(end) && given != node)
          g.fail(end, fmt::format("{} on axis {}, but grid.{} lists {} as its {} node: give one or the other (or "
                                  "the same)", given, a, key, node, which));
      };
      agree("lo", lo[a], grid.nodes[a].front(), "first");
      agree("hi", hi[a], grid.nodes[a].back(), "last");
      grid.lo[a] = grid.nodes[a].front();
      grid.hi[a] = grid.nodes[a].back();
      if (!(grid.hi[a] - grid.lo[a] <= high * double(n[a] - 1)))
        g.fail(key, fmt::format("the axis spans {:.3g}: its spacings must be at most {:.3g}", grid.hi[a] - grid.lo[a], high));
      continue;
    }
    if (!(h >= low && h <= high))
      g.fail("hi", fmt::format("the spacing (hi - lo)/(n - 1) = {:.3g} on axis {} is out of range: the stencils' 1/h^2 "
                               "must be a normal {} number, so h must lie in [{:.3g}, {:.3g}]",
                               h, a, to_string(precision), low, high));
    grid.lo[a] = lo[a];
    grid.hi[a] = hi[a];
  }
  return grid;
}

// A stretched axis (grid.x, y or z) where the module cannot take it: an error at that key.
void refuse_stretched_axes(const DeckNode& g, const Grid& grid, const Module& module, const std::string& name) {
  for (int a = 0; a < grid.dim; ++a) {
    if (!grid.stretched(a)) continue;
    const char* key = axis_nodes_key(a);
    if (grid.periodic[a])
      g.fail(key, fmt::format("axis {} is periodic in module {}: a periodic axis must be uniform (remove grid.{})", a,
                              name, key));
    if (const std::string why = module.stretched_axis_refusal(a, grid.dim); !why.empty())
      g.fail(key, fmt::format("module {} {}; remove grid.{} for a uniform axis from lo to hi (docs/running.md, "
                              "stretched axes, says which modules take them)",
                              name, why, key));
  }
}

// The grid for summary.json: its extent and, per axis, the smallest and largest spacing (equal on a
// uniform axis) and whether the axis is stretched.
nlohmann::json grid_summary(const Grid& grid) {
  nlohmann::json j = {{"dim", grid.dim}, {"n", grid.n}, {"lo", grid.lo}, {"hi", grid.hi}, {"points", grid.size()}};
  for (int a = 0; a < grid.dim; ++a) {
    j["h_min"].push_back(grid.min_spacing(a));
    j["h_max"].push_back(grid.max_spacing(a));
    j["stretched"].push_back(grid.stretched(a));
  }
  return j;
}

struct TimeSettings {
  double t0 = 0, end = 0, dt = 0;
  long steps = 0;
};

constexpr long kMaxSteps = 1'000'000'000'000;

TimeSettings read_time(const DeckNode& t, const KeyTable& keys) {
  TimeSettings s;
  s.t0 = t.get_or_default<double>("start", keys);
  s.dt = t.get<double>("dt");
  t.require(std::isfinite(s.t0), "start", s.t0, "a finite time");
  t.require(s.dt > 0 && std::isfinite(s.dt), "dt", s.dt, "a positive number");
  if (t.has("steps") == t.has("end")) t.fail("end", "give exactly one of 'end' (final time) or 'steps'");
  if (t.has("steps")) {
    s.steps = t.get<long>("steps");
    t.require(s.steps >= 0 && s.steps <= kMaxSteps, "steps", s.steps, "between 0 and 10^12");
    s.end = s.t0 + double(s.steps) * s.dt;
    if (!std::isfinite(s.end))
      t.fail("dt", fmt::format("start + steps * dt = {} is not a finite time (a smaller dt or fewer steps)", s.end));
  } else {
    s.end = t.get<double>("end");
    t.require(std::isfinite(s.end) && s.end >= s.t0, "end", s.end, "a finite time, at least the start time");
    const double steps = steps_to_cover(s.end - s.t0, s.dt);
    if (!(steps <= double(kMaxSteps)))
      t.fail("dt", fmt::format("(end - start) / dt = {:.3g} steps; at most 10^12 (a larger dt, or an earlier end)", steps));
    s.steps = long(steps);
  }
  return s;
}

// A choice given on the command line (--backend, --precision) or else by the deck key.
template <class Table>
name_value_t<Table> pick(const DeckNode& root, const std::optional<std::string>& option, const std::string& key,
                         const Table& table, const KeyTable& keys) {
  if (!option) return root.get_enum_or_default(key, table, keys);
  (void)root.has(key);  // (the deck's key is known even where the option overrides it)
  if (auto v = parse_name(table, *option)) return *v;
  throw Error("--" + key + ": " + unknown_name_message(*option, names_of(table)));
}

// cpu, cuda (fields on the GPU for the whole run) or auto (the GPU when one is present).
Backend pick_backend(const DeckNode& root, const RunOptions& opt, const KeyTable& keys) {
  const Backend b = resolve_backend(pick(root, opt.backend, "backend", kBackendNames, keys));
  if (const std::string why = b == Backend::cuda ? cuda_unavailable_reason() : ""; !why.empty()) {
    if (!opt.backend) root.fail("backend", why + "; use cpu or auto");
    throw Error("--backend " + *opt.backend + ": " + why + "; use cpu or auto");
  }
  return b;
}

// Why `dir` could not be made or written into ("" if it can), as the run's mkdir would say: the
// nearest existing ancestor must be a writable directory, and the first missing folder below it
// must be creatable there (some file systems, /proc, refuse any new name). check makes that folder
// and removes it again, so that it says what the run would.
std::string output_dir_problem(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::path probe = std::filesystem::absolute(dir, ec), missing;
  while (!std::filesystem::exists(probe, ec) && probe.has_parent_path() && probe != probe.parent_path()) {
    missing = probe;
    probe = probe.parent_path();
  }
  if (!std::filesystem::is_directory(probe, ec)) return fmt::format("'{}' is not a directory", probe.string());
  if (access(probe.c_str(), W_OK | X_OK) != 0) return fmt::format("'{}' is not writable", probe.string());
  if (!missing.empty()) {
    if (!std::filesystem::create_directory(missing, ec)) return ec ? ec.message() : "";  // (false, no error: made meanwhile)
    std::filesystem::remove(missing, ec);
  }
  return "";
}

// Bytes of memory the system can give this process now without swapping (0: unknown).
double available_host_memory() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  double kb = 0;
  while (meminfo >> key >> kb)
    if (key == "MemAvailable:") return kb * 1024;
    else meminfo.ignore(256, '\n');
  return 0;
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

// What ends a run whose diagnostics are not finite ("" while they are), naming the first such node of
// this process's fields where it holds one (*names_node).
std::string divergence(const std::vector<Diagnostic>& diags, Module& module, const Grid& g, long step, double t,
                       bool* names_node) {
  for (const auto& d : diags)
    if (!std::isfinite(d.value)) {
      const std::string where = first_non_finite_node(module, g);
      *names_node = !where.empty();
      return fmt::format("{} is {} at step {}, t = {:.6g}{}: the run diverged; check the time step, coefficients and "
                         "boundary data",
                         d.name, non_finite_name(d.value), step, t, where.empty() ? "" : "; " + where);
    }
  return "";
}

// Output times from output.times and output.interval (within [start, end]).
std::vector<double> read_output_times(const DeckNode& out, const TimeSettings& time) {
  constexpr long kMaxOutputTimes = 10'000'000;
  std::vector<double> stops;
  if (out.has("times")) {
    stops = out.get<std::vector<double>>("times");
    for (const double t : stops)
      if (!(std::isfinite(t) && t >= time.t0 && t <= time.end))
        out.fail("times", fmt::format("{} is outside the run: every output time must be in [{}, {}] (time.start, "
                                      "time.end)",
                                      t, time.t0, time.end));
  }
  if (out.has("interval")) {
    const double dt_out = out.get<double>("interval");
    out.require(dt_out > 0 && std::isfinite(dt_out), "interval", dt_out, "a positive simulation time");
    const double count = std::floor((time.end - time.t0) / dt_out * (1 + 1e-12));
    if (count > double(kMaxOutputTimes))
      out.fail("interval", fmt::format("{:.3g} output times; at most 10^7 (a larger interval)", count));
    for (long k = 1; k <= long(count); ++k) stops.push_back(time.t0 + double(k) * dt_out);
  }
  return stops;
}

// A key of the optional output section: the deck's value, else the key table's default.
template <class T>
T output_value(const std::optional<DeckNode>& out, const std::string& key, const KeyTable& keys) {
  return out ? out->get_or_default<T>(key, keys) : table_default<T>(keys, "output." + key);
}

struct CheckpointSettings {
  long every = 0;      // steps (0: none)
  double wall = 0;     // seconds of wall time (0: none)
  long keep = 0;       // newest files kept
  bool enabled() const { return every > 0 || wall > 0; }
};

CheckpointSettings read_checkpoint_settings(const DeckNode& c, const KeyTable& keys) {
  CheckpointSettings s;
  s.every = c.get_or_default<long>("every", keys);
  s.wall = c.get_or_default<double>("wall", keys);
  s.keep = c.get_or_default<long>("keep", keys);
  c.require(s.every >= 0, "every", s.every, "a number of steps (0: none)");
  c.require(s.wall >= 0 && std::isfinite(s.wall), "wall", s.wall, "seconds of wall time between checkpoints (0: none)");
  c.require(s.keep >= 1, "keep", s.keep, "at least 1 (how many of the newest checkpoints stay)");
  if (!s.enabled()) c.fail("every", "give 'every' (steps) or 'wall' (seconds), or remove output.checkpoint");
  return s;
}

// A checkpoint that can continue its run without the deck (newer ones hold the run's name and deck file).
CheckpointInfo checkpoint_with_deck(const std::filesystem::path& file) {
  CheckpointInfo c = read_checkpoint_info(file);
  if (c.name.empty())
    throw Error(fmt::format("--restart {}: this checkpoint was written by an older tridsim and does not name its "
                            "run; give the deck with the run's --set and -o: tridsim run DECK --restart {}",
                            file.string(), file.string()));
  return c;
}

// The folder a checkpoint lies in: the output directory of the run that wrote it.
std::filesystem::path checkpoint_dir(const std::filesystem::path& file) {
  return file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
}

// A word as a POSIX shell reads it back: as it is when it holds only safe characters, else in single quotes.
std::string shell_quote(const std::string& word) {
  const bool safe = !word.empty() && std::all_of(word.begin(), word.end(), [](unsigned char c) {
    return std::isalnum(c) || std::strchr("@%+=:,./_-", c);
  });
  if (safe) return word;
  std::string quoted = "'";
  for (const char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// The command that continues a stopped run from `checkpoint`: the checkpoint holds the resolved deck
// (the run's --set), the precision, and lies in the output directory; backend and threads are the options'.
std::string restart_command(const RunOptions& opt, const std::filesystem::path& checkpoint) {
  std::string command = "tridsim run --restart " + shell_quote(checkpoint.string());
  if (opt.backend) command += " --backend " + shell_quote(*opt.backend);
  if (opt.threads) command += fmt::format(" --threads {}", *opt.threads);
  return command;
}

// The signal that asked the run to stop (0: none). The handlers are installed with
// SA_RESETHAND: a second signal ends the program at once.
volatile std::sig_atomic_t g_stop_signal = 0;
extern "C" void request_stop(int sig) { g_stop_signal = sig; }

class StopSignals {
 public:
  StopSignals() {
    struct sigaction sa {};
    sa.sa_handler = request_stop;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &sa, &old_[i]);
    g_stop_signal = 0;
  }
  ~StopSignals() {
    for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &old_[i], nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  static constexpr int kSignals[3] = {SIGINT, SIGTERM, SIGHUP};
  struct sigaction old_[3];
};

// The grid split over the run's ranks: `parallel: {ranks: [px, py, pz]}` or a balanced process grid.
std::unique_ptr<Domain> make_domain(const DeckNode& root, const Grid& grid) {
  std::array<int, 3> ranks{0, 0, 0};
  const auto p = root.maybe_child("parallel");
  if (p && p->has("ranks")) {
    const auto r = p->get<std::vector<long>>("ranks");
    if (int(r.size()) != grid.dim)
      p->fail("ranks", fmt::format("expected {} rank counts, one per axis of grid.n, e.g. [{}]", grid.dim,
                                   grid.dim == 1 ? "2" : grid.dim == 2 ? "1, 2" : "1, 1, 2"));
    ranks = {1, 1, 1};
    for (int a = 0; a < grid.dim; ++a) {
      if (r[a] < 1 || r[a] > 1'000'000) p->fail("ranks", fmt::format("axis {}: {} ranks; give 1 or more", "xyz"[a], r[a]));
      ranks[a] = int(r[a]);
    }
  }
  if (world_size() == 1 && ranks == std::array<int, 3>{0, 0, 0}) return std::make_unique<Domain>(grid);
  try {
    return std::make_unique<Domain>(grid, ranks);
  } catch (const DeckError&) {
    throw;
  } catch (const Error& e) {
    if (p && p->has("ranks")) p->fail("ranks", e.what());
    throw Error(fmt::format("mpirun -np {}: {}", world_size(), e.what()));
  }
}

// Host copies of the owned nodes of every rank's arrays, on rank 0 (empty elsewhere): what the
// writers and checkpoints of a distributed run see. `count` of a state array: values per node.
struct Gathered {
  std::vector<std::vector<double>> storage;  // (float data in double-sized storage)
  template <class T>
  const void* add(const Domain& d, const void* local, int components) {
    const index_t n = d.rank() == 0 ? components * d.global().size() : 0;
    storage.emplace_back((n * sizeof(T) + sizeof(double) - 1) / sizeof(double));
    T* out = reinterpret_cast<T*>(storage.back().data());
    d.gather(static_cast<const T*>(local), out, components);
    return out;
  }
  const void* add(const Domain& d, Precision p, const void* local, int components) {
    return p == Precision::float32 ? add<float>(d, local, components) : add<double>(d, local, components);
  }
};

// The OpenMP thread count the caller had, given back when the run ends (a Python process goes on).
struct RestoreThreads {
  int n = omp_get_max_threads();
  ~RestoreThreads() { omp_set_num_threads(n); }
};

// One call of run_simulation, in stages (execute): the deck read, the process, grid and outputs
// configured, the module set up, a restart placed on the time line (check stops there), the state
// restored, the outputs opened, the time loop, the end reported. Members are the run's facts in
// the order the stages settle them.
class Run {
 public:
  explicit Run(const RunOptions& options) : opt(options) {}
  int execute();

 private:
  void read_deck();
  void configure_process();
  void configure_grid();
  void configure_outputs();
  void set_up_module();
  void place_restart();
  int report_check();
  void restore_state();
  void open_outputs();
  void carry_over_checkpoints();
  void time_loop();
  void close_outputs();
  int report_end();

  void publish();
  void check_finite(const std::vector<Diagnostic>& diags, long step, double t);
  template <class F>
  void guarded(F&& work);
  int agree(int stop = 0) { return domain->distributed() ? held_error.agree(stop) : stop; }
  // How long a rank that holds an error waits for the others' agreement: their longest stretch
  // between two agreements, as this rank measured its own, with a wide margin.
  double patience() const { return 10.0 + 4.0 * slowest_s; }
  void write_fields(long step, double t);
  void diagnostics_row(long step, double t, double step_wall);
  std::filesystem::path write_checkpoint_now(long step, double t);
  nlohmann::json summary(const std::string& status) const;
  bool restartable() { return !steady && !module->state().empty(); }  // (with cuda: a download)
  double time_after(long s) const { return bench ? time.t0 + double(s) * time.dt : line->time_after(s); }
  double points_per_second() const {
    return step_s > 0 ? double(grid.size()) * double(done - first) / step_s : 0.0;
  }
  [[noreturn]] void fail_output_dir(const std::string& what) const;  // at -o or output.dir, whichever named it
  const DeckNode& deck_root() const { return *root; }

  const RunOptions& opt;
  const clock_type::time_point t_start = clock_type::now();
  // read_deck
  std::optional<CheckpointInfo> saved;  // a restart given no deck: the checkpoint's own run
  std::filesystem::path deck_file;
  std::optional<Deck> deck;
  std::optional<DeckNode> root;
  std::string name, module_name;
  const ModuleInfo* info = nullptr;
  KeyTable key_table;
  std::vector<DeckError> key_errors;
  // configure_process
  SetupContext ctx;
  std::optional<RestoreThreads> restore_threads;
  std::optional<SubnormalsFlushed> flushed;
  // configure_grid
  Grid grid, held;  // the whole grid, and the nodes this process holds
  std::unique_ptr<Module> module;
  std::unique_ptr<Domain> domain;
  bool root_rank = true, steady = false, bench = false;
  TimeSettings time;
  // configure_outputs
  std::optional<DeckNode> out_node;
  std::filesystem::path out_dir;
  std::vector<double> output_times;
  long every = 0, diag_every = 1;
  std::optional<CheckpointSettings> checkpoint;
  std::vector<const WriterInfo*> writers_wanted;  // each once, in the order given
  // set_up_module, place_restart
  double setup_s = 0;
  std::optional<TimeLine> line;
  long first = 0, offset = 0;  // the run goes on from step `first`; files number steps offset + s
  long steps = 0;
  std::optional<CheckpointInfo> resumed;
  // open_outputs
  std::optional<RunDirectory> run_dir;
  std::vector<std::unique_ptr<Writer>> writers;
  std::vector<bool> local_fields;   // per writer: made on every rank, it takes the rank's local arrays
  std::filesystem::path result_at;  // the output directory (rank 0's run_dir->dir()): the files once published
  std::string device;
  std::deque<std::string> checkpoints;  // file names, oldest first
  bool keeps_files = false, published = false, gather_fields = false, shared_checkpoints = false;
  // time_loop
  double t = 0, step_s = 0, output_s = 0;  // step_s: wall time of the steps
  long done = 0;                           // last step taken
  int stop_signal = 0;
  std::filesystem::path stop_checkpoint;
  clock_type::time_point last_checkpoint = clock_type::now();
  std::vector<Diagnostic> last_diagnostics;  // the latest row, for summary.json
  std::optional<ErrorNorms> norms;
  double comm_s = 0;           // the slowest rank's seconds in communication (halos, line solves)
  std::size_t bytes_sent = 0;  // by all ranks
  // an error this rank met alone (several ranks), and its longest stretch so far between agreements
  HeldError held_error;
  double slowest_s = 0;
};

// On several ranks, an error that this rank may meet alone in `work` (its outputs, its part of a
// step) is held until the ranks' next agreement, while this rank goes on taking part in every
// communication (app/held_error.hpp); on one process it ends the run at once. The error names this
// rank unless it names its deck key.
template <class F>
void Run::guarded(F&& work) {
  if (!domain->distributed()) return work();
  try {
    work();
  } catch (const DeckError& e) {
    held_error.hold(e.what(), -1, 0, patience());
  } catch (const RankError& e) {  // (the ranks agreed on it already: every rank holds the same)
    held_error.hold(run_dir ? run_dir->as_published(e.what()) : e.what(), e.rank(), 0, patience());
  } catch (const Error& e) {
    held_error.hold(run_dir ? run_dir->as_published(e.what()) : e.what(), world_rank(), 0, patience());
  } catch (const std::bad_alloc&) {
    held_error.hold("not enough memory on this rank to go on (use more ranks, or a smaller grid)", world_rank(), 0,
                    patience());
  }
}

int Run::execute() {
  register_builtin_modules();
  read_deck();
  configure_process();
  configure_grid();
  configure_outputs();
  set_up_module();
  place_restart();
  if (opt.mode == RunOptions::Mode::check) return report_check();
  guarded([&] { restore_state(); });  // (settled with the output directory's making)
  open_outputs();
  try {
    time_loop();
    close_outputs();
  } catch (const std::exception& e) {
    // Files are named in the output directory, where they are or will be: a writer that opened its
    // file while it was staged still holds the staging path, which is internal.
    const std::string message = run_dir ? run_dir->as_published(e.what()) : e.what();
    // The outputs written so far stay, each complete; the summary says why the run ended.
    if (run_dir && run_dir->published()) {
      auto j = summary("failed");
      j["error"] = message;
      try {
        write_file_atomically(run_dir->path() / "summary.json", j.dump(2) + "\n");
        run_dir->finish();
      } catch (const Error&) {  // (the error that matters is the one being reported)
      }
    }
    if (message != e.what() && dynamic_cast<const Error*>(&e)) throw Error(message);
    throw;
  }
  return report_end();
}

// The deck with the command-line overrides. A restart given no deck continues the checkpoint's
// run: its resolved deck (after that run's --set), read as if from the deck file it came from
// (relative input files are found beside it), in the checkpoint's precision, and into the
// checkpoint's directory (unless -o or --precision say otherwise).
void Run::read_deck() {
  if (opt.deck.empty() && !opt.deck_text && opt.restart) saved = checkpoint_with_deck(*opt.restart);
  deck_file = !saved ? opt.deck : saved->deck_file.empty() ? *opt.restart : std::filesystem::path(saved->deck_file);
  deck.emplace(saved          ? Deck::parse(saved->deck, deck_file.string())
               : opt.deck_text ? Deck::parse(*opt.deck_text, opt.deck.string())
                               : Deck::load(opt.deck));
  for (const auto& s : opt.sets) deck->set(s);
  root.emplace(deck->root());
  const DeckNode& r = deck_root();
  name = r.get_or<std::string>("name", saved ? saved->name : opt.deck_text ? "deck" : opt.deck.stem().string());
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos)
    r.fail("name", "must be a plain file name (the base of every output file, no '/'), got '" + name + "'");
  r.get_or<std::string>("description", "");  // free text for the reader; accepted, not used
  module_name = r.get<std::string>("module");
  info = find_module(module_name);
  if (!info) {
    std::vector<std::string> names;
    for (const auto* m : registered_modules()) names.push_back(m->name);
    r.fail("module", "unknown module: " + unknown_name_message(module_name, names));
  }
  // The deck against the module's key table: several problems are all reported now; a single one
  // after setup, if the reader (whose words are more precise) has not refused the deck by then.
  key_table = deck_key_table(*info);
  key_errors = deck->check_against(key_table);
  if (key_errors.size() > 1) throw several_errors(deck->file(), key_errors);
}

// Precision, backend, threads, floating-point mode and the deck's constants.
void Run::configure_process() {
  const DeckNode& r = deck_root();
  ctx.precision = pick(r, saved && !opt.precision ? std::optional(saved->precision) : opt.precision, "precision",
                       kPrecisionNames, key_table);
  ctx.backend = pick_backend(r, opt, key_table);
  // Threads: 0 = all; at most 16 per core available (more only thrash, and the OpenMP runtime
  // fails to create very many).
  const int max_threads = 16 * omp_get_num_procs();
  const int threads = opt.threads.value_or(r.get_or_default<int>("threads", key_table));
  if (threads < 0 || threads > max_threads) {
    const std::string valid = fmt::format("0 (all cores) to {} (16 per core), got {}", max_threads, threads);
    if (opt.threads) throw Error("--threads: must be " + valid);
    r.fail("threads", "must be " + valid);
  }
  // A check steps nothing and fills each field once: one thread, unless told otherwise, so that no
  // OpenMP threads are started to wait and slow a process this short.
  restore_threads.emplace();
  if (threads > 0) omp_set_num_threads(threads);
  else if (opt.mode == RunOptions::Mode::check) omp_set_num_threads(1);
  flushed.emplace();
  if (auto c = r.maybe_child("constants"))
    for (const auto& key : c->keys()) {
      for (const char* reserved : {"x", "y", "z", "t", "pi", "e", "_pi", "_e"})
        if (key == reserved)
          c->fail(key, fmt::format("'{}' is a variable or built-in constant of every expression; give the constant "
                                   "another name", key));
      // muparser's rule for names: an expression could never name it otherwise (and the parser
      // refuses to define it, an error then blamed on the first expression parsed).
      const bool name_ok = !key.empty() && !std::isdigit((unsigned char)key[0]) &&
                           std::all_of(key.begin(), key.end(), [](char ch) { return std::isalnum((unsigned char)ch) || ch == '_'; });
      if (!name_ok)
        c->fail(key, "not a valid constant name: a name starts with a letter or '_', followed by letters, digits "
                     "and '_' (e.g. k1, D_white)");
      const double value = c->get<double>(key);
      c->require(std::isfinite(value), key, value, "a finite number");
      ctx.constants[key] = value;
    }
}

// The grid, the module, the grid's split over the ranks, the time settings.
void Run::configure_grid() {
  const DeckNode& r = deck_root();
  grid = read_grid(r.child("grid"), ctx.precision, ctx.constants);
  module = info->create(ctx.precision);
  if (const auto section = r.maybe_child(module_name)) grid.periodic = module->periodic_axes(*section, grid.dim);
  refuse_stretched_axes(r.child("grid"), grid, *module, module_name);
  for (int a = 0; a < grid.dim; ++a)
    if (grid.stretched(a))
      spdlog::info("grid.{}: stretched, {} nodes from {} to {}, spacing {:.4g} to {:.4g}", axis_nodes_key(a), grid.n[a],
                   grid.lo[a], grid.hi[a], grid.min_spacing(a), grid.max_spacing(a));
  // Ranks (mpirun -np P): the grid split over them; rank 0 writes the files and the terminal.
  domain = make_domain(r, grid);
  if (domain->distributed() && !module->distributes()) {
    std::vector<std::string> names;
    for (const auto* m : registered_modules())
      if (m->create(ctx.precision)->distributes()) names.push_back(m->name);
    throw Error(fmt::format("module {} runs on one rank only (this run has {}); on several ranks: {}", module_name,
                            domain->size(), fmt::join(names, ", ")));
  }
  ctx.domain = domain.get();
  if (ctx.backend == Backend::cuda && domain->distributed()) {  // before any device work
    use_cuda_device_of(host_rank());
    choose_gpu_transport();
  }
  root_rank = domain->rank() == 0;
  held = domain->local();
  steady = module->steady();
  bench = opt.mode == RunOptions::Mode::bench;
  if (steady && r.has("time"))
    r.fail("time", "module " + module_name + " solves a steady problem: remove the time section");
  time = steady ? TimeSettings{0, 0, 0, 1} : read_time(r.child("time"), key_table);
  ctx.end = time.end;
  if (!steady) ctx.dt = time.dt;
}

// Where the outputs go, when, in which formats; checkpoints.
void Run::configure_outputs() {
  out_node = deck_root().maybe_child("output");
  auto out_get = [&](const std::string& key, auto fallback) {  // a default worked out here
    return out_node ? out_node->get_or(key, fallback) : fallback;
  };
  const std::filesystem::path deck_out_dir = out_get("dir", std::string("output/" + name));  // (read either way)
  out_dir = opt.output.value_or(saved ? checkpoint_dir(*opt.restart) : deck_out_dir);
  if (out_node && !steady) output_times = read_output_times(*out_node, time);
  const bool scheduled = out_node && (out_node->has("times") || out_node->has("interval"));
  // Without a schedule, fields at about ten evenly spaced steps; with one, only at its times
  // (and every N steps if `every` is given too).
  every = out_get("every", scheduled ? 0L : std::max(1L, (time.steps + 9) / 10));
  if (out_node && out_node->has("checkpoint"))
    checkpoint = read_checkpoint_settings(out_node->child("checkpoint"), key_table);
  diag_every = output_value<long>(out_node, "diagnostics_every", key_table);
  const auto formats = output_value<std::vector<std::string>>(out_node, "formats", key_table);
  if (every < 0 || (every == 0 && !scheduled)) out_node->fail("every", "must be a positive number of steps");
  if (diag_every < 1) out_node->fail("diagnostics_every", "must be a positive number of steps");
  for (const auto& f : formats) {
    const WriterInfo* w = find_writer(f);
    if (!w) out_node->fail("formats", unknown_name_message(f, writer_names()));
    if (std::find(writers_wanted.begin(), writers_wanted.end(), w) != writers_wanted.end()) continue;
    if (!w->unavailable.empty()) {  // decks stay portable between builds: skip, and say so
      if (out_node && out_node->has("formats") && opt.files) spdlog::warn("{}: {}", out_node->where("formats"), w->unavailable);
      continue;
    }
    writers_wanted.push_back(w);
  }
}

void Run::fail_output_dir(const std::string& what) const {
  if (opt.output) throw Error("-o: " + what);
  if (out_node && out_node->has("dir")) out_node->fail("dir", what);
  throw Error(what + " (set output.dir or -o)");
}

// The module set up; then every key of the deck must have been used. First, is there memory for
// it (an allocation the system cannot back would end the run later, by the OOM killer)?
void Run::set_up_module() {
  const DeckNode& r = deck_root();
  const double need = module->arrays_per_point() * double(held.size()) * (ctx.precision == Precision::float32 ? 4 : 8);
  auto check_memory = [&](double available, const char* where) {
    if (available > 0 && need > available)
      r.child("grid").fail("n", fmt::format("the {} module needs about {:.3g} GB of {} memory for {} grid points in {}, "
                                            "and {:.3g} GB is available; use a smaller grid{}",
                                            module_name, need / 1e9, where, grid.size(), to_string(ctx.precision),
                                            available / 1e9, ctx.precision == Precision::float64 ? " or float" : ""));
  };
  check_memory(available_host_memory(), "host");
  if (ctx.backend == Backend::cuda) check_memory(double(cuda_free_bytes()), "GPU");
  const auto t_setup = clock_type::now();
  // On several ranks an error may be one rank's alone (data not finite in its box): every rank then
  // throws the first such rank's (the ranks' agreement).
  std::exception_ptr setup_failure;
  std::string setup_message;
  try {
    try {
      module->setup(grid, r.child(module_name), ctx, time.t0);
    } catch (const std::bad_alloc&) {
      const double field_gb = double(grid.size()) * (ctx.precision == Precision::float32 ? 4 : 8) / 1e9;
      throw Error(fmt::format("{}: grid.n: not enough memory for the {} module on {} grid points ({:.3g} GB per field "
                              "in {}); use a smaller grid",
                              r.child("grid").where("n"), module_name, grid.size(), field_gb, to_string(ctx.precision)));
    }
  } catch (const Error& e) {
    setup_failure = std::current_exception();
    setup_message = e.what();
  }
  if (domain->distributed()) {
    slowest_s = since(t_setup);  // (the others' setup takes about as long)
    if (setup_failure) held_error.hold(setup_message, -1, 0, patience());
    agree();
  }
  if (setup_failure) std::rethrow_exception(setup_failure);
  deck->check_unknown_keys();
  if (!key_errors.empty()) throw key_errors.front();
  audit_key_table(*deck, key_table);
  if (auto limit = module->max_stable_dt(); limit && time.dt > *limit) {
    const std::string why = module->max_stable_dt_reason();
    r.child("time").fail("dt", fmt::format("{:.6g} exceeds the scheme's stability limit {:.6g}{}", time.dt, *limit,
                                           why.empty() ? "" : ": " + why));
  }
  setup_s = since(t_setup);
  spdlog::info("deck {} is valid: module {}, {}D grid {}x{}x{}, {} steps of dt={}", deck_file.string(), module_name,
               grid.dim, grid.n[0], grid.n[1], grid.n[2], time.steps, time.dt);
  if (opt.mode == RunOptions::Mode::check || (opt.mode == RunOptions::Mode::run && opt.files)) {
    // Rank 0 alone probes (it makes the directory, and the probe makes and removes a folder: on
    // every rank it would race with rank 0's mkdir); every rank then fails alike.
    std::string problem;
    if (root_rank) {
      problem = RunDirectory::place_problem(out_dir);
      if (const std::string why = problem.empty() ? output_dir_problem(out_dir) : ""; !why.empty())
        problem = fmt::format("cannot create the output directory '{}': {}", out_dir.string(), why);
    }
    if (domain->distributed()) problem = domain->broadcast(problem);
    if (!problem.empty()) fail_output_dir(problem);
  }
  // Checkpoints and restarts need the module's state.
  if (checkpoint && !restartable())
    out_node->child("checkpoint").fail("every", fmt::format("module {} cannot be checkpointed{}", module_name,
                                                            steady ? " (a steady problem is one solve)" : ""));
}

// The time line, and where a restart joins it.
void Run::place_restart() {
  line.emplace(time.t0, time.end, time.dt, output_times);
  if (opt.restart) {
    auto refuse = [&](const std::string& why) { throw Error("--restart " + opt.restart->string() + ": " + why); };
    if (!restartable()) refuse(fmt::format("module {} cannot be restarted", module_name));
    resumed = saved ? *saved : read_checkpoint_info(*opt.restart);
    const CheckpointInfo& c = *resumed;
    auto grid_text = [](const Grid& g) {
      return fmt::format("{}D grid n = [{}] on [{}] to [{}]", g.dim, fmt::join(std::span(g.n.data(), g.dim), ", "),
                         fmt::join(std::span(g.lo.data(), g.dim), ", "), fmt::join(std::span(g.hi.data(), g.dim), ", "));
    };
    if (c.module != module_name) refuse(fmt::format("written by module {}; this deck runs {}", c.module, module_name));
    if (c.precision != to_string(ctx.precision))
      refuse(fmt::format("written in {}; this run is in {} (--precision {})", c.precision, to_string(ctx.precision),
                         c.precision));
    if (c.grid.dim != grid.dim || c.grid.n != grid.n || c.grid.lo != grid.lo || c.grid.hi != grid.hi)
      refuse(fmt::format("written on a {}; this deck's is a {}: a restart needs the same grid", grid_text(c.grid),
                         grid_text(grid)));
    if (!(c.time >= time.t0 && c.time < time.end))
      refuse(fmt::format("its time {} is not before this deck's end time {} (time.end or time.steps)", c.time, time.end));
    if (auto s0 = line->step_at(c.time)) {
      first = *s0;  // the same steps as the run that wrote it: results identical bit for bit
    } else {        // another time line (dt or output times changed): steps from the checkpoint's time
      line.emplace(c.time, time.end, time.dt, output_times);
      offset = c.step;
    }
  }
  steps = steady ? 1 : bench ? (opt.bench_steps > 0 ? opt.bench_steps : time.steps) : line->steps();
}

// check: the run's first diagnostics row (step 0) refuses what is not finite, so does check.
int Run::report_check() {
  if (!steady && !resumed) check_finite(module->diagnostics(time.t0), 0, time.t0);
  if (!opt.quiet && root_rank)
    fmt::print("{}: OK ({} module, {} points, {})\n", deck_file.string(), module_name, grid.size(),
               steady ? std::string("steady: one solve") : fmt::format("{} steps", line->steps() - first));
  return 0;
}

// A restart's state: every rank reads the whole arrays and keeps its box, so that any rank count
// continues any checkpoint.
void Run::restore_state() {
  if (!resumed) return;
  if (domain->distributed()) {
    const std::vector<StateArray> mine = module->state();
    std::vector<StateArray> whole;
    std::vector<std::vector<double>> storage;  // (float data in double-sized storage)
    for (const StateArray& a : mine) {
      const index_t count = a.count / held.size() * grid.size();
      storage.emplace_back(count);
      whole.push_back({a.name, a.precision, storage.back().data(), count});
    }
    read_checkpoint_state(*opt.restart, whole);
    for (std::size_t i = 0; i < mine.size(); ++i) {
      const int per_node = int(mine[i].count / held.size());
      if (mine[i].precision == Precision::float32)
        domain->take_local(static_cast<const float*>(whole[i].data), static_cast<float*>(mine[i].data), per_node);
      else
        domain->take_local(static_cast<const double*>(whole[i].data), static_cast<double*>(mine[i].data), per_node);
    }
  } else {
    read_checkpoint_state(*opt.restart, module->state());
  }
  module->state_restored();
}

// The output directory and the writers. Files go into a staging directory until the first output
// is complete; publish() then makes it the output directory (outputs/run_directory.hpp). An
// in-process run may write no files (opt.files) and add a writer of its own (opt.capture), which
// gets the same fields at the same output times. Without files there is no run_dir, so no
// checkpoints either (nor in bench).
void Run::open_outputs() {
  device = ctx.backend == Backend::cuda ? cuda_device_name() : "cpu";
  keeps_files = !bench && opt.files;  // (run_dir: rank 0's; the other ranks take part in checkpoints)
  // A distributed run gathers its fields to rank 0 for the writers there that take the whole grid.
  gather_fields = domain->distributed() &&
                  (opt.capture || (opt.files && std::any_of(writers_wanted.begin(), writers_wanted.end(),
                                                            [](const WriterInfo* w) {
                                                              return w->fields == WriterInfo::Fields::gathered;
                                                            })));
  shared_checkpoints = hdf5_collective(domain.get());  // every rank writes its part of each
  if (bench) return;
  RunAttributes attributes = {
      {"tridsim_version", TRIDSIM_VERSION},   {"tridsim_revision", TRIDSIM_GIT_REVISION},
      {"deck_file", deck_file.string()},      {"deck_resolved", deck->resolved_text()},
      {"module", module_name},                {"backend", std::string(to_string(ctx.backend))},
      {"device", device},                     {"precision", std::string(to_string(ctx.precision))},
      {"threads", std::to_string(omp_get_max_threads())},
  };
  if (opt.files && root_rank) guarded([&] {
      try {
        run_dir.emplace(out_dir, name);
      } catch (const Error& e) {
        fail_output_dir(e.what());
      }
    });
  agree();  // (the restore and rank 0's directory: every rank goes on, or ends here)
  std::filesystem::path files_at = run_dir ? run_dir->path() : std::filesystem::path();
  result_at = run_dir ? run_dir->dir() : std::filesystem::path();
  // A restart continues the previous result in the directory: its outputs before this run's
  // first step, and its checkpoints up to the one restarted from, are carried over.
  bool continues = resumed && run_dir && run_dir->previous_result_is(name);
  // A writer that writes from every rank (parallel HDF5) is made on every rank, in the directory
  // rank 0 made and with rank 0's facts; the others on rank 0 alone.
  auto on_every_rank = [&](const WriterInfo* w) {
    return domain->distributed() && w->fields == WriterInfo::Fields::collective;
  };
  if (opt.files && std::any_of(writers_wanted.begin(), writers_wanted.end(), on_every_rank)) {
    files_at = domain->broadcast(files_at.string());
    result_at = domain->broadcast(result_at.string());
    continues = domain->any(continues);
    for (auto& [key, value] : attributes) value = domain->broadcast(value);  // (threads may differ)
  }
  if (opt.files)
    for (const auto* w : writers_wanted) {
      if (!root_rank && !on_every_rank(w)) continue;
      guarded([&] {
        try {
          writers.push_back(w->create(WriterSetup{files_at, name, grid, attributes, on_every_rank(w) ? domain.get() : nullptr}));
        } catch (const Error& e) {  // (named in the output directory, not the staging one)
          if (run_dir) throw Error(run_dir->as_published(e.what()));
          throw;
        }
        writers.back()->set_dir(files_at);
        local_fields.push_back(on_every_rank(w));
      });
    }
  if (opt.capture && root_rank) {
    writers.push_back(opt.capture(WriterSetup{{}, name, grid, attributes}));
    local_fields.push_back(false);
  }
  if (continues) {
    for (auto& w : writers) guarded([&] { w->resume(result_at, offset + first); });
    if (run_dir) guarded([&] { carry_over_checkpoints(); });
  }
  agree();
}

void Run::carry_over_checkpoints() {
  const std::regex numbered(name + "_checkpoint_([0-9]+)\\.h5");
  std::vector<std::pair<long, std::string>> found;
  for (const auto& e : std::filesystem::directory_iterator(run_dir->dir())) {
    std::smatch m;
    const std::string file = e.path().filename().string();
    if (std::regex_match(file, m, numbered) && std::stol(m[1]) <= resumed->step) found.emplace_back(std::stol(m[1]), file);
  }
  std::sort(found.begin(), found.end());
  for (const auto& [step, file] : found) {
    link_or_copy(run_dir->dir() / file, run_dir->path() / file);
    checkpoints.push_back(file);
  }
}

void Run::publish() {  // (on every rank: the writers there write where rank 0 publishes)
  if (published || result_at.empty()) return;
  published = true;
  if (run_dir) run_dir->publish();
  for (auto& w : writers) w->set_dir(result_at);
}

void Run::write_fields(long step, double at) {
  const auto t0 = clock_type::now();
  const auto local = module->fields();
  auto fields = local;
  Gathered whole;
  bool whole_ready = !gather_fields;  // (else rank 0's writers of the whole grid have nothing to write)
  if (gather_fields) guarded([&] {
      for (FieldRef& f : fields) f.data = whole.add(*domain, f.precision, f.data, f.components);
      whole_ready = true;
    });
  // Each writer on its own: one of rank 0 alone may fail before another that every rank writes.
  for (std::size_t i = 0; i < writers.size(); ++i)
    if (local_fields[i] || whole_ready) guarded([&] { writers[i]->write(int(step), at, local_fields[i] ? local : fields); });
  guarded([&] { publish(); });
  output_s += since(t0);
}

// Diagnostics that are not finite end the run. On several ranks every rank has the same values (the
// reductions of core/field_stats make a NaN of any rank's box every rank's), so every rank ends here,
// with the message of a rank whose box holds such a node.
void Run::check_finite(const std::vector<Diagnostic>& diags, long step, double at) {
  bool names_node = false;
  const std::string problem = divergence(diags, *module, held, step, at, &names_node);
  if (problem.empty()) return;
  if (domain->distributed()) {
    held_error.hold(problem, -1, names_node ? 1 : 0, patience());
    agree();
  }
  throw RuntimeFailure(problem);
}

void Run::diagnostics_row(long step, double at, double step_wall) {
  auto diags = module->diagnostics(at);
  last_diagnostics = diags;
  check_finite(diags, step, at);
  if (writers.empty()) return;
  const auto t0 = clock_type::now();
  diags.insert(diags.begin(), Diagnostic{"step_wall_s", step_wall});
  for (auto& w : writers) guarded([&] { w->write_diagnostics(step, at, diags); });
  output_s += since(t0);
}

std::filesystem::path Run::write_checkpoint_now(long step, double at) {
  const auto t0 = clock_type::now();
  const std::string file = fmt::format("{}_checkpoint_{:06d}.h5", name, step);
  std::vector<StateArray> state = module->state();
  Gathered whole;
  if (domain->distributed() && !shared_checkpoints)
    for (StateArray& a : state) {
      const int per_node = int(a.count / held.size());
      a.data = const_cast<void*>(whole.add(*domain, a.precision, a.data, per_node));
      a.count = per_node * grid.size();
    }
  last_checkpoint = clock_type::now();
  std::filesystem::path at_dir = run_dir ? run_dir->path() : std::filesystem::path();  // (rank 0's)
  if (shared_checkpoints) at_dir = domain->broadcast(at_dir.string());
  else if (!root_rank) return out_dir / file;
  write_checkpoint(at_dir / file,
                   {module_name, std::string(to_string(ctx.precision)), TRIDSIM_VERSION, TRIDSIM_GIT_REVISION,
                    deck->resolved_text(), step, at, grid, name,
                    deck_file.empty() ? "" : std::filesystem::absolute(deck_file).string()},
                   state, shared_checkpoints ? domain.get() : nullptr);
  if (!root_rank) return out_dir / file;
  checkpoints.push_back(file);
  for (std::error_code ec; long(checkpoints.size()) > (checkpoint ? checkpoint->keep : 1); checkpoints.pop_front())
    std::filesystem::remove(run_dir->path() / checkpoints.front(), ec);
  last_checkpoint = clock_type::now();
  output_s += since(t0);
  return out_dir / file;
}

void Run::time_loop() {
  t = time_after(first);
  done = first;
  if (!steady) {  // (a steady module has no initial state worth writing)
    // A restarted run writes its first step only where the uninterrupted run did, so that a
    // continued series is that run's.
    const long step = offset + first;
    if (!resumed || step % diag_every == 0) diagnostics_row(step, t, 0.0);
    if (!bench && (!resumed || (every > 0 && step % every == 0) || line->ends_stretch(first))) write_fields(step, t);
  }
  if (bench && !steady && steps > 0) {  // untimed: first launches load the kernels, first touches map memory
    guarded([&] {
      module->step(time.t0, time.dt);
      module->wait();
    });
  }
  std::optional<StopSignals> signals;
  if (!bench && opt.catch_signals) signals.emplace();
  Progress progress(steps - first, !(opt.no_progress || opt.quiet || steady) && root_rank);
  // Steps may be queued on a device: the clock runs from the first step after the last look at
  // the results to the end of the wait before the next look.
  long queued = 0;
  auto window = clock_type::now();
  for (long s = first + 1; s <= steps; ++s) {
    const auto t_iteration = clock_type::now();
    const double dt = bench || steady || !line->ends_stretch(s) ? time.dt : line->time_after(s) - t;
    if (queued == 0) window = clock_type::now();
    guarded([&] { module->step(t, dt); });
    ++queued;
    done = s;
    t = steady ? t : time_after(s);
    const long step = offset + s;
    stop_signal = signals ? int(g_stop_signal) : 0;
    if (opt.on_step && opt.on_step(step, t, time.end)) stop_signal = SIGINT;
    // The step's one reduction: every rank stops at the same step, and ends here with an error that
    // one rank met alone in this step or in the last one's outputs.
    stop_signal = agree(stop_signal);
    const bool write = !bench && ((every > 0 && step % every == 0) || line->ends_stretch(s));
    const bool diagnose = step % diag_every == 0 || s == steps || write;
    const bool save = keeps_files && checkpoint &&
                      ((checkpoint->every > 0 && step % checkpoint->every == 0) ||
                       (checkpoint->wall > 0 && domain->any(since(last_checkpoint) >= checkpoint->wall)));
    if (diagnose || write || save || stop_signal) {
      guarded([&] { module->wait(); });
      const double wall = since(window);
      step_s += wall;
      if (diagnose) diagnostics_row(step, t, wall / double(queued));
      if (write) write_fields(step, t);
      if (save || (keeps_files && stop_signal && s < steps && restartable()))
        guarded([&] { stop_checkpoint = write_checkpoint_now(step, t); });
      queued = 0;
    }
    slowest_s = std::max(slowest_s, since(t_iteration));
    progress.update(s - first, t);
    if (s == steps) stop_signal = 0;  // the run is complete anyway
    if (stop_signal) break;
  }
  progress.finish();
  signals.reset();
  if (!stop_signal) norms = module->error_norms(t);
  comm_s = domain->max(domain->comm_seconds());
  bytes_sent = std::size_t(domain->sum(double(domain->bytes_sent())));
}

// Then every rank goes on to the end, or ends with an error that one of them met alone since the
// last step's agreement.
void Run::close_outputs() {
  const auto t_close = clock_type::now();
  guarded([&] { publish(); });  // (a run that wrote no fields)
  for (auto& w : writers) guarded([&] { w->close(); });
  if (run_dir) guarded([&] { run_dir->require_intact(); });  // (files written into a deleted directory are lost)
  output_s += since(t_close);
  agree();
}

nlohmann::json Run::summary(const std::string& status) const {
  const long run_steps = done - first;
  nlohmann::json j = {
      {"status", status},
      {"deck", deck_file.string()},
      {"name", name},
      {"module", module_name},
      {"backend", to_string(ctx.backend)},
      {"device", device},
      {"precision", std::string(to_string(ctx.precision))},
      {"threads", omp_get_max_threads()},
      {"version", TRIDSIM_VERSION},
      {"revision", TRIDSIM_GIT_REVISION},
      {"deck_resolved", deck->resolved_text()},  // after --set
      {"grid", grid_summary(grid)},
      {"wall_time_s",
       {{"setup", setup_s}, {steady ? "solve" : "steps", step_s}, {"output", output_s}, {"total", since(t_start)}}},
      {"grid_points_per_second", points_per_second()},
  };
  if (!steady) {  // (a steady problem is one solve: it has no time step and no time)
    j["time"] = {{"start", time_after(first)}, {"end", t}, {"dt", time.dt}, {"steps", run_steps}};
    j["seconds_per_step"] = run_steps > 0 ? step_s / double(run_steps) : 0.0;
  }
  for (const Diagnostic& d : last_diagnostics) {
    j["diagnostics"][d.name] = d.value;
    if (!d.unit.empty()) j["diagnostics_units"][d.name] = d.unit;
  }
  if (domain->distributed())
    j["parallel"] = {{"ranks", domain->size()},
                     {"process_grid", std::vector<int>(domain->layout().ranks.begin(), domain->layout().ranks.begin() + grid.dim)},
                     {"communication_s", comm_s},
                     {"bytes_sent", bytes_sent},
                     {"hdf5", shared_checkpoints ? "collective" : "gathered"}};  // (parallel HDF5, or rank 0 alone)
  if (domain->distributed() && ctx.backend == Backend::cuda) j["parallel"]["gpu_transport"] = gpu_transport();
  if (resumed) j["restarted_from"] = {{"file", opt.restart->string()}, {"step", resumed->step}, {"time", resumed->time}};
  if (!checkpoints.empty()) j["checkpoint"] = (out_dir / checkpoints.back()).string();
  if (norms) j["error"] = {{"field", norms->field}, {"l2", norms->l2}, {"max", norms->max}};
  if (norms && !steady) j["error"]["time"] = t;
  if (stop_signal) j["stopped_by"] = strsignal(stop_signal);
  return j;
}

// The end on the terminal and in summary.json; the exit status.
int Run::report_end() {
  const long run_steps = done - first;
  std::string summary_text;  // (rank 0 writes it; then every rank goes on to the end, or ends with its error)
  if (root_rank && !bench) {
    summary_text = summary(stop_signal ? "stopped" : "complete").dump(2) + "\n";
    if (run_dir) guarded([&] {
        write_file_atomically(run_dir->path() / "summary.json", summary_text);
        run_dir->finish();
      });
  }
  agree();
  if (!root_rank) return stop_signal ? 128 + stop_signal : 0;
  if (!opt.quiet && !stop_signal) {
    const double points_per_s = points_per_second();
    if (steady)
      fmt::print("{} solved in {:.3f} s ({} points, {:.3e} points/s)\n", name, step_s, grid.size(), points_per_s);
    else
      fmt::print("{} finished: {} steps in {:.3f} s ({:.3f} ms/step, {:.3e} points/s)\n", name, run_steps, step_s,
                 run_steps ? 1e3 * step_s / double(run_steps) : 0.0, points_per_s);
    if (norms)
      fmt::print("error of {}{}: L2 {:.3e}, max {:.3e}\n", norms->field, steady ? "" : fmt::format(" at t = {:.6g}", t),
                 norms->l2, norms->max);
  }
  if (bench) return 0;
  if (opt.on_summary) opt.on_summary(summary_text);
  if (stop_signal) {
    if (run_dir)
      fmt::print(stderr, "stopped by {} after step {} (t = {:.6g}); the outputs so far are in {}\n",
                 strsignal(stop_signal), offset + done, t, out_dir.string());
    if (!stop_checkpoint.empty() && !opt.deck_text)
      fmt::print(stderr, "continue with: {}\n", restart_command(opt, stop_checkpoint));
    return 128 + stop_signal;
  }
  if (!opt.quiet && run_dir) fmt::print("results in {}\n", out_dir.string());
  return 0;
}

}  // namespace

int run_simulation(const RunOptions& opt) { return Run(opt).execute(); }

}  // namespace tridsim
