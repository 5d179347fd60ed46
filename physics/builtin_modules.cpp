#include "physics/builtin_modules.hpp"

#include "core/module.hpp"
#include "physics/heat/heat.hpp"

namespace tridsim {

void register_builtin_modules() {
  static const bool once = [] {
    register_module("heat", "du/dt = div(kappa grad u) + f by Crank-Nicolson / ADI (Peaceman-Rachford, Douglas)",
                    precision_factory<HeatModule>());
    return true;
  }();
  (void)once;
}

}  // namespace tridsim
