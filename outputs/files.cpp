// Atomic file output. A temporary file beside the target keeps the final rename on one file
// system, where rename() replaces the target in one step: readers see the old file or the
// whole new one, never a partial one. (POSIX write(), not stdio: it says why a write failed.)
#include "outputs/files.hpp"

#include <cerrno>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/errors.hpp"

namespace tridsim {

std::filesystem::path temporary_path(const std::filesystem::path& target) {
  // Hidden name, so a directory listing or a glob for results does not pick it up.
  std::string name = ".";  // built with += : g++ 12 warns falsely (-Wrestrict) on "." + string
  name += target.filename().string();
  name += ".part";
  return target.parent_path() / name;
}

void rename_file(const std::filesystem::path& from, const std::filesystem::path& to) {
  std::error_code ec;
  std::filesystem::rename(from, to, ec);
  if (ec) throw Error("cannot move '" + from.string() + "' to '" + to.string() + "': " + ec.message());
}

int write_all(int fd, const char* data, std::size_t size) {
  for (std::size_t done = 0; done < size;) {
    const ssize_t n = ::write(fd, data + done, size - done);
    if (n > 0) done += std::size_t(n);
    else if (n == 0) return ENOSPC;  // nothing written to a file: it cannot grow
    else if (errno != EINTR) return errno;
  }
  return 0;
}

void link_or_copy(const std::filesystem::path& from, const std::filesystem::path& to) {
  std::error_code ec;
  std::filesystem::create_hard_link(from, to, ec);
  if (ec) std::filesystem::copy_file(from, to, ec);
  if (ec) throw Error("cannot keep '" + from.string() + "' as '" + to.string() + "': " + ec.message());
}

void write_file_atomically(const std::filesystem::path& target, const std::string& text) {
  const auto tmp = temporary_path(target);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  // (messages name the target, the user's path: the temporary name is ours)
  if (fd < 0) throw Error("cannot write '" + target.string() + "': " + std::strerror(errno));
  int err = write_all(fd, text.data(), text.size());
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) {
    std::error_code ec;
    std::filesystem::remove(tmp, ec);
    throw Error("cannot write '" + target.string() + "': " + std::strerror(err));
  }
  try {
    rename_file(tmp, target);
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove(tmp, ec);
    throw;
  }
}

namespace {
// Is the file open as fd the one at `path` (neither removed nor replaced)?
bool is_file_at(int fd, const std::filesystem::path& path) {
  struct stat open_file {}, at_path {};
  return ::fstat(fd, &open_file) == 0 && ::stat(path.c_str(), &at_path) == 0 && open_file.st_dev == at_path.st_dev &&
         open_file.st_ino == at_path.st_ino;
}
}  // namespace

OutputDirLock::OutputDirLock(const std::filesystem::path& dir) {
  const auto path = dir / ".tridsim.lock";
  for (;;) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw Error("cannot create the lock file '" + path.string() + "': " + std::strerror(errno));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      char holder[32] = {};
      const ssize_t n = ::pread(fd_, holder, sizeof holder - 1, 0);
      ::close(fd_);
      fd_ = -1;
      throw Error("the output directory '" + dir.string() + "' is in use by another tridsim run" +
                  (n > 0 ? " (process " + std::string(holder, std::size_t(n)) + ")" : std::string()) +
                  "; wait for it to end, or give this run another directory (-o or output.dir)");
    }
    // The holder may have replaced the directory (a run is published by swapping directories)
    // between our open and our lock: then the locked file is no longer the one at `path`.
    if (is_file_at(fd_, path)) break;
    ::close(fd_);
  }
  const std::string pid = std::to_string(::getpid());
  [[maybe_unused]] const bool noted =  // the pid is only for the message above
      ::ftruncate(fd_, 0) == 0 && ::pwrite(fd_, pid.data(), pid.size(), 0) == ssize_t(pid.size());
}

bool OutputDirLock::locks(const std::filesystem::path& dir) const {
  return fd_ >= 0 && is_file_at(fd_, dir / ".tridsim.lock");
}

OutputDirLock::~OutputDirLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock; the file stays for the next run
}

}  // namespace tridsim
