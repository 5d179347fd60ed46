#pragma once
// CSV time series (one row per call, e.g. step, time, norms). Written under a temporary name
// and renamed by close(), like the field writers; destroyed without close(), it removes the
// temporary file. Numbers are written in the shortest form that reads back exactly.
#include <cstdio>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace tridsim {

class CsvWriter {
 public:
  // Starts `path` with a header line of `columns` (quoted where they hold , " or a newline).
  CsvWriter(std::filesystem::path path, std::vector<std::string> columns);
  ~CsvWriter();
  CsvWriter(const CsvWriter&) = delete;
  CsvWriter& operator=(const CsvWriter&) = delete;

  // One row; throws Error unless values.size() equals the number of columns.
  void row(std::span<const double> values);
  // Finish and move the file to its final name. Further calls do nothing.
  void close();

  const std::filesystem::path& path() const { return path_; }

 private:
  void put(const std::string& line);

  std::filesystem::path path_, tmp_;
  std::size_t columns_;
  std::FILE* file_ = nullptr;
  bool closed_ = false;
};

}  // namespace tridsim
