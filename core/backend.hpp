#pragma once
// Where a run computes (namespace tridsim): the deck key `backend`, the --backend option, `tridsim
// info` and summary.json all read kBackendNames. A module sees cpu or cuda (auto is resolved
// first).
#include <string>
#include <string_view>

#include "core/names.hpp"

namespace tridsim {

enum class Backend { cpu, cuda, automatic };

inline constexpr NameEntry<Backend> kBackendNames[] = {
    {"cpu", Backend::cpu, "OpenMP + SIMD on the host"},
    {"cuda", Backend::cuda, "fields on the GPU for the whole run"},
    {"auto", Backend::automatic, "cuda when a CUDA device is present, else cpu"}};

inline const char* to_string(Backend b) { return name_of(kBackendNames, b); }

// The backend called `name`; throws Error listing the valid names (for programs and tests;
// decks use DeckNode::get_enum).
Backend backend_from_name(std::string_view name);

// auto -> cuda when this build has CUDA and a device is present, else cpu; others unchanged.
Backend resolve_backend(Backend b);

// Why the cuda backend cannot run here, or "" when it can.
std::string cuda_unavailable_reason();

}  // namespace tridsim
