#pragma once
// CSV time series (namespace tridsim; one row per call, e.g. step, time, norms), written in place
// and valid at every moment: each row reaches the file in one write, and a row that cannot be
// written whole (a full disk) is cut off again, so a reader never sees a partial row. Numbers are
// written in the shortest form that reads back exactly.
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace tridsim {

class CsvWriter {
 public:
  // Starts `path` (replacing it) with a header line of `columns` (quoted where they hold , " or a
  // newline).
  CsvWriter(std::filesystem::path path, std::vector<std::string> columns);
  ~CsvWriter();
  CsvWriter(const CsvWriter&) = delete;
  CsvWriter& operator=(const CsvWriter&) = delete;

  // One row; throws Error unless values.size() equals the number of columns.
  void row(std::span<const double> values);
  // Finish; further calls do nothing. (Destroyed without close(), the rows so far stay.)
  void close();

  const std::filesystem::path& path() const { return path_; }

 private:
  void put(const std::string& line);

  std::filesystem::path path_;
  std::size_t columns_;
  int fd_ = -1;
  long long size_ = 0;  // bytes of whole rows in the file
  bool closed_ = false;
};

}  // namespace tridsim
