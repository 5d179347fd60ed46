#pragma once
// HDF5 files that the ranks of a distributed run write together (namespace tridsim): the HDF5/XDMF
// output and checkpoints. With parallel HDF5 (a build with TRIDSIM_HAVE_PARALLEL_HDF5) every rank
// opens the same file through MPI-IO, makes the same groups, attributes and datasets (the whole
// grid's shapes), and writes its owned nodes of each field into them in one collective transfer:
// the file is the one a single process writes. Otherwise (serial HDF5, or one rank) these are the
// plain calls of one process, and a distributed run gathers its fields to rank 0 first.
#include <hdf5.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/hdf5_support.hpp"

namespace tridsim {

class Domain;

// Whether the ranks of `domain` write HDF5 files together: a parallel HDF5 and a distributed domain.
bool hdf5_collective(const Domain* domain);

// Creates `path` (replacing it): with hdf5_collective(domain) on every rank together, else on this
// process. `unlocked`: without HDF5's file lock, so readers can open it while the run goes on.
// A file made for every rank is left unclosed by a rank that leaves it through an exception of its
// own: the close is collective, and would wait for ranks that never come (the run then ends every
// rank). After an agreed failure (core/domain.hpp ranks_agreed_failure) every rank closes it.
Handle hdf5_create_file(const std::filesystem::path& path, const std::string& context, const Domain* domain,
                        bool unlocked);

// hdf5_check for a call on a file of hdf5_create_file that one rank may fail alone (rank 0's write
// of shared values, a metadata flush, a rank's part of a transfer): with hdf5_collective(domain)
// every rank learns whether one failed (core/domain.hpp agree) and then throws that rank's error
// (RankError), so that none goes on into a collective call that the failed one has left.
herr_t hdf5_check_ranks(herr_t result, const std::string& context, const std::string& what, const Domain* domain);

// With hdf5_collective(domain): rank 0 reserves disk space for the file at `path` up to its end and
// `bytes` more, with room for HDF5's metadata (fallocate, the file's size unchanged), and every rank
// learns whether that failed (then throws RankError, `what` naming the write that did not fit).
// Called before a collective sequence of writes, this turns a full disk into an error every rank
// meets between HDF5 calls: inside them (a collective flush or close) a write that fails on one rank
// leaves the others waiting in HDF5.
void hdf5_reserve(const std::filesystem::path& path, hsize_t bytes, const std::string& context,
                  const std::string& what, const Domain* domain);

// hdf5_put (core/hdf5_support.hpp) for a file of hdf5_create_file: with hdf5_collective(domain)
// every rank calls it with the same arguments, and rank 0 writes the dataset's values.
void hdf5_put_shared(const std::string& context, hid_t loc, const std::string& name, bool attribute, hid_t file_type,
                     hid_t mem_type, const std::vector<hsize_t>& dims, const void* data, const Domain* domain);

// Dataset `name` over the whole grid of `domain`, of shape `dims` (slowest axis first: z, y, x and
// then the components when `components` > 1, or one axis of all the values), written by every rank
// together from its local array `local` (domain.local() nodes, `components` values per node,
// x-fastest): each rank its owned nodes, in one collective transfer. Needs hdf5_collective(domain).
void hdf5_put_owned(const std::string& context, hid_t loc, const std::string& name, hid_t file_type, hid_t mem_type,
                    const std::vector<hsize_t>& dims, const Domain& domain, int components, const void* local);

}  // namespace tridsim
