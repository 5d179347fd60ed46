// Atomic file output. A temporary file beside the target keeps the final rename on one file
// system, where rename() replaces the target in one step: readers see the old file or the
// whole new one, never a partial one.
#include "outputs/files.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

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

void write_file_atomically(const std::filesystem::path& target, const std::string& text) {
  const auto tmp = temporary_path(target);
  // C stdio rather than iostreams: it reports why a write failed (errno).
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw Error("cannot create '" + tmp.string() + "' to write '" + target.string() + "': " + std::strerror(errno));
  const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size() && std::fflush(f) == 0;
  const int err = errno;
  const bool closed = std::fclose(f) == 0;
  if (!written || !closed) {
    const int why = written ? errno : err;
    std::error_code ec;
    std::filesystem::remove(tmp, ec);
    throw Error("cannot write '" + target.string() + "': " + std::strerror(why));
  }
  try {
    rename_file(tmp, target);
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove(tmp, ec);
    throw;
  }
}

}  // namespace tridsim
