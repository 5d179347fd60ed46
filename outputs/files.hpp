#pragma once
// Atomic file output (namespace tridsim): write to a temporary name beside the target, rename when
// complete.
#include <cstddef>
#include <filesystem>
#include <string>

namespace tridsim {

// Temporary name used while `target` is being written.
std::filesystem::path temporary_path(const std::filesystem::path& target);

// Write `text` to `target` atomically.
void write_file_atomically(const std::filesystem::path& target, const std::string& text);

// Write all `size` bytes to `fd` (retrying short writes); 0, or the errno of the failure.
int write_all(int fd, const char* data, std::size_t size);

// A second name `to` for the file `from` (a hard link; a copy where links are not possible).
// Throws Error naming both paths on failure.
void link_or_copy(const std::filesystem::path& from, const std::filesystem::path& to);

// Rename `from` to `to` (replacing `to`); throws Error naming both paths on failure.
void rename_file(const std::filesystem::path& from, const std::filesystem::path& to);

// An exclusive lock on a directory (the lock file `.tridsim.lock` inside it, released when the
// object goes or the process ends, however it ends). Throws Error if another process holds it.
class OutputDirLock {
 public:
  explicit OutputDirLock(const std::filesystem::path& dir);
  ~OutputDirLock();
  OutputDirLock(const OutputDirLock&) = delete;
  OutputDirLock& operator=(const OutputDirLock&) = delete;
  // Whether the locked file is still `dir`'s lock file: false once the directory or the file was
  // deleted or replaced (the lock then guards nothing, and what was written there is gone).
  bool locks(const std::filesystem::path& dir) const;

 private:
  int fd_ = -1;
};

}  // namespace tridsim
