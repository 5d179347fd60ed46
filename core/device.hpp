#pragma once
// The CUDA devices this build and machine offer (namespace tridsim): count, name, free memory and
// the summary `tridsim info` prints. Without CUDA: no devices.
#include <cstddef>
#include <string>

namespace tridsim {
// Number of CUDA devices usable by this build (0 without CUDA support or without a device).
int cuda_device_count();
// The current CUDA device's name and compute capability, "NAME (sm_XY)"; "" if none.
std::string cuda_device_name();
// Makes device host_rank % count current (the ranks of a host share its GPUs round-robin).
void use_cuda_device_of(int host_rank);
// The current CUDA device's PCI bus id ("0000:1B:00.0"); "" if none.
std::string cuda_device_pci_id();
// Bytes free on the current CUDA device (0 without one).
std::size_t cuda_free_bytes();
// Per CUDA device: name, memory and its copy bandwidth measured now (a short copy loop); or why there is none.
std::string cuda_device_summary();
}  // namespace tridsim
