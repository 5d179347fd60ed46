#include "core/backend.hpp"

#include "core/device.hpp"
#include "core/errors.hpp"
#include "tridsim_build_info.hpp"

namespace tridsim {

Backend backend_from_name(std::string_view name) {
  if (auto b = parse_name(kBackendNames, name)) return *b;
  throw Error("backend: " + unknown_name_message(name, names_of(kBackendNames)));
}

Backend resolve_backend(Backend b) {
  if (b != Backend::automatic) return b;
  return cuda_unavailable_reason().empty() ? Backend::cuda : Backend::cpu;
}

std::string cuda_unavailable_reason() {
  if (!TRIDSIM_HAVE_CUDA) return "this build has no CUDA support (configure with -DTRIDSIM_CUDA=ON)";
  if (cuda_device_count() == 0) return "no CUDA device is present";
  return "";
}

}  // namespace tridsim
