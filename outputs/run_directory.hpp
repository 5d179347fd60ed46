#pragma once
// A run's output directory, published whole (namespace tridsim): what a reader finds in it is
// either the previous result or this run's, never a mix of the two.
//
// The run writes into a staging directory beside the output directory (`.DIR.tridsim-new`) until
// its first output is complete; publish() then swaps the two directories in one rename
// (renameat2 RENAME_EXCHANGE) and removes the previous result. From then on the run writes in
// place, each file kept valid at every moment (see outputs/writer.hpp). Files in the directory
// that tridsim did not write (a user's notes, say) are hard-linked into the staging directory
// before the swap, so they are never absent. `.tridsim.manifest` names them and, once the run has
// ended, the run's own files, so that the next run knows which files to replace.
//
// The directory is locked for the run's life (outputs/files.hpp OutputDirLock); with the lock
// held, what a killed run left (the staging directory, `.*.part` files) is removed.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "outputs/files.hpp"

namespace tridsim {

class RunDirectory {
 public:
  // Creates and locks `dir` for run `name`, cleans up after a killed run and creates the
  // staging directory. Throws Error if another run holds it, if it is the current directory or
  // one above it, or if it holds directories (or many files) that tridsim did not write.
  RunDirectory(const std::filesystem::path& dir, const std::string& name);
  // Why `dir` cannot be an output directory by its place ("" if it can): it is the current
  // directory or one above it. (check asks this too, creating nothing.)
  static std::string place_problem(const std::filesystem::path& dir);
  // Unpublished: the staging directory goes; the output directory is left as it was.
  ~RunDirectory();
  RunDirectory(const RunDirectory&) = delete;
  RunDirectory& operator=(const RunDirectory&) = delete;

  // Where the run's files go: the staging directory until publish(), then the output directory.
  const std::filesystem::path& path() const { return published_ ? dir_ : staging_; }
  // The output directory (before publish(): where the previous result is).
  const std::filesystem::path& dir() const { return dir_; }
  bool published() const { return published_; }
  // Whether the previous result in the output directory is one of a run called `name`.
  bool previous_result_is(const std::string& name) const;
  // Make the staged files the directory's content in one rename; the previous result goes.
  void publish();
  // The run has ended (however): record its files in the manifest, for the next run to replace.
  void finish();
  // Throws Error if the directory the run writes in was deleted or replaced while it ran: its
  // result is gone, so the run cannot end as complete.
  void require_intact() const;
  // A message with the staging directory's path named as the output directory's (the user's
  // path: the staging one is internal and gone once the run ends).
  std::string as_published(std::string message) const;

 private:
  bool is_previous_result(const std::string& entry) const;
  void write_manifest() const;

  std::filesystem::path dir_, staging_;
  std::string name_;
  std::string previous_name_;          // from the previous result's manifest ("" if none)
  std::vector<std::string> carried_;   // entries that are not tridsim's (the previous manifest's, then ours)
  std::vector<std::string> result_;    // the previous result's entries, as its manifest lists them
  bool has_manifest_ = false, published_ = false;
  std::unique_ptr<OutputDirLock> lock_, staging_lock_;
};

}  // namespace tridsim
