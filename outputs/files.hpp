#pragma once
// Atomic file output: write to a temporary name beside the target, rename when complete.
#include <filesystem>
#include <string>

namespace tridsim {

// Temporary name used while `target` is being written.
std::filesystem::path temporary_path(const std::filesystem::path& target);

// Write `text` to `target` atomically.
void write_file_atomically(const std::filesystem::path& target, const std::string& text);

// Rename `from` to `to` (replacing `to`); throws Error naming both paths on failure.
void rename_file(const std::filesystem::path& from, const std::filesystem::path& to);

}  // namespace tridsim
