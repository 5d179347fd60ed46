#pragma once
// The interface every physics module implements, and the registry the driver finds it in (namespace
// tridsim). A module owns its fields and its time-stepping scheme; the driver owns time, output
// cadence, progress and the summary. See docs/extending.md.
#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "core/deck.hpp"
#include "core/deck_keys.hpp"
#include "core/domain.hpp"
#include "core/expression.hpp"
#include "core/field_stats.hpp"
#include "core/fields.hpp"
#include "core/grid.hpp"
#include "core/types.hpp"

namespace tridsim {

// What the driver hands a module at setup.
struct SetupContext {
  Precision precision = Precision::float64;
  Backend backend = Backend::cpu;  // cpu or cuda (auto is resolved by the driver)
  Constants constants;  // the deck's named constants, for expressions
  // The run's end time (a steady problem, or none given: the start time). Data that move with t
  // are checked at check_times(t0, end) (core/expression.hpp), so check refuses what a run would.
  std::optional<double> end;
  // The run's time.dt (none for a steady problem): the largest step, for the checks of what one step
  // can take (the diffusion number D dt / h^2, core/expression.hpp).
  std::optional<double> dt;
  // The grid's split over the run's ranks (core/domain.hpp); null: the whole grid on this process.
  // A module whose distributes() is true works on domain->local() and owns domain's owned nodes.
  const Domain* domain = nullptr;

  std::vector<double> check_times(double t0) const { return tridsim::check_times(t0, end.value_or(t0)); }
};

// The diagnostics of a field's statistics over n nodes: NAME_min, NAME_max, NAME_mean.
inline std::vector<Diagnostic> min_max_mean(const std::string& field, const FieldStats& s, index_t n) {
  return {{field + "_min", s.lo}, {field + "_max", s.hi}, {field + "_mean", s.sum / double(n)}};
}

// A host array that holds part of a module's state (see Module::state).
struct StateArray {
  std::string name;
  Precision precision;
  void* data;
  index_t count;
};

class Module {
 public:
  virtual ~Module() = default;
  // Read this module's deck section, allocate fields, set the initial state at time t0.
  virtual void setup(const Grid& grid, const DeckNode& section, const SetupContext& context, double t0) = 0;
  // The axes whose two faces `section` (this module's, before setup) makes periodic: the driver
  // marks them in the grid it passes to setup and to the writers (Grid::periodic: n distinct nodes,
  // spacing (hi - lo)/n). A DeckError where the deck's faces do not pair up.
  virtual std::array<bool, 3> periodic_axes(const DeckNode& /*section*/, int /*dim*/) const { return {}; }
  // Why setup() cannot take a grid whose `axis` is stretched (Grid::nodes), "module NAME " to be put
  // before it; empty where it can (refusing at its own keys the cases it cannot solve). The driver
  // refuses the grid at the axis's key (grid.x, grid.y, grid.z) with it.
  virtual std::string stretched_axis_refusal(int /*axis*/, int /*dim*/) const {
    return "needs a uniform spacing on every axis";
  }
  // Advance the state from t to t + dt. A device backend may return before the work is done.
  virtual void step(double t, double dt) = 0;
  // Wait until the steps queued so far have finished (the driver calls it before it reads the
  // clock or results); device backends override it.
  virtual void wait() {}
  // Host views of the fields to write (valid until the next step).
  virtual std::vector<FieldRef> fields() = 0;
  // Scalars for the CSV time series (e.g. min, max, integral); also used to detect NaN/Inf.
  virtual std::vector<Diagnostic> diagnostics(double t) = 0;
  // Error norms at time t when the deck gives an exact solution.
  virtual std::optional<ErrorNorms> error_norms(double /*t*/) { return std::nullopt; }
  // A fixed time step the module insists on, if any (e.g. a stability limit), else nullopt.
  virtual std::optional<double> max_stable_dt() const { return std::nullopt; }
  // Why max_stable_dt() limits the step, for the error that refuses a larger time.dt (empty: the
  // scheme's stability limit says enough).
  virtual std::string max_stable_dt_reason() const { return {}; }
  // A steady (time-independent) problem: the deck has no `time` section, the driver calls
  // step(t0, 0) once to solve it and writes the fields and diagnostics of the solution only.
  virtual bool steady() const { return false; }
  // Runs with the grid split over several ranks (mpirun -np P): setup() then builds its arrays over
  // context.domain->local(), fields() and state() return them (the driver gathers the owned nodes),
  // and diagnostics() and error_norms() are combined over the ranks by the module.
  virtual bool distributes() const { return false; }
  // About how many grid-sized arrays of the run's precision the module holds at once (fields,
  // coefficients, solver work space, host copies for output): the driver checks this much
  // memory is available, on the host and on a device backend's GPU, before setup() allocates.
  virtual double arrays_per_point() const { return 8; }
  // Everything a restart needs beyond the deck and the time, as host arrays: a checkpoint reads
  // them after wait(); a restart overwrites them after setup() and then calls state_restored()
  // (which uploads them to a device). The next step must then do what it would have done in
  // the run that wrote the checkpoint. Empty: the module cannot be checkpointed.
  virtual std::vector<StateArray> state() { return {}; }
  virtual void state_restored() {}
};

using ModuleFactory = std::function<std::unique_ptr<Module>(Precision)>;

struct ModuleInfo {
  std::string name, description;
  ModuleFactory create;
  KeyTable keys;  // the keys of its deck section (core/deck_keys.hpp); empty: not checked by a table
  std::string example;  // a small deck that runs as it is (`tridsim new NAME`); empty: none
};

// Register a module under `name` (its deck section has the same name). Returns true so it
// can initialise a static: see TRIDSIM_REGISTER_MODULE.
bool register_module(const std::string& name, const std::string& description, ModuleFactory factory,
                     KeyTable keys = {}, std::string example = {});
const ModuleInfo* find_module(const std::string& name);
std::vector<const ModuleInfo*> registered_modules();

// Factory for a module class template instantiated with float and double.
template <template <class> class M>
ModuleFactory precision_factory() {
  return [](Precision p) -> std::unique_ptr<Module> {
    if (p == Precision::float32) return std::make_unique<M<float>>();
    return std::make_unique<M<double>>();
  };
}

}  // namespace tridsim

// Registers module template NAME_TEMPLATE (with float and double) under a deck name. Put it in
// the module's .cpp file; that file must be linked into the executable (not left in an
// unreferenced static-library object), as sources of an executable always are.
#define TRIDSIM_REGISTER_MODULE(deck_name, description, module_template)                        \
  static const bool tridsim_registered_##module_template [[maybe_unused]] =                       \
      ::tridsim::register_module(deck_name, description, ::tridsim::precision_factory<module_template>())
