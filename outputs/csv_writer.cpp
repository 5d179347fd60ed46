#include "outputs/csv_writer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <utility>

#include "core/errors.hpp"
#include "outputs/writer.hpp"
#include "outputs/writer_support.hpp"

namespace tridsim {
namespace {

std::string csv_quote(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';  // a quote inside a quoted field is doubled
    q += c;
  }
  q += '"';
  return q;
}

}  // namespace

CsvWriter::CsvWriter(std::filesystem::path path, std::vector<std::string> columns)
    : path_(std::move(path)), columns_(columns.size()) {
  if (columns.empty()) throw Error("CSV output '" + path_.string() + "': no columns");
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) throw Error("CSV output: cannot create '" + path_.string() + "': " + std::strerror(errno));
  std::string header;
  for (const auto& c : columns) {
    if (!header.empty()) header += ',';
    header += csv_quote(c);
  }
  try {
    put(header + "\n");
  } catch (...) {
    ::close(fd_);  // no destructor runs for a throwing constructor
    throw;
  }
}

CsvWriter::~CsvWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void CsvWriter::put(const std::string& line) {
  if (fd_ < 0) throw Error("CSV output '" + path_.string() + "': the file is closed");
  const ssize_t n = ::write(fd_, line.data(), line.size());
  if (n == ssize_t(line.size())) {
    size_ += n;
    return;
  }
  const int err = n < 0 ? errno : ENOSPC;  // a short write to a file: the disk is full
  [[maybe_unused]] const int cut = ::ftruncate(fd_, size_);  // no partial row
  ::lseek(fd_, size_, SEEK_SET);
  throw Error("CSV output: cannot write '" + path_.string() + "': " + std::strerror(err));
}

void CsvWriter::row(std::span<const double> values) {
  if (closed_) throw Error("CSV output '" + path_.string() + "': row() after close()");
  if (values.size() != columns_)
    throw Error("CSV output '" + path_.string() + "': row has " + std::to_string(values.size()) + " values but the file has " +
                std::to_string(columns_) + " columns");
  std::string line;
  for (double v : values) {
    if (!line.empty()) line += ',';
    line += output_detail::format_double(v);
  }
  put(line + "\n");
}

void CsvWriter::close() {
  if (closed_) return;
  closed_ = true;
  const int fd = std::exchange(fd_, -1);
  if (fd >= 0 && ::close(fd) != 0)
    throw Error("CSV output: cannot write '" + path_.string() + "': " + std::strerror(errno));
}

// ---- the "csv" format: the diagnostics time series -------------------------------------------

namespace {

// Starts the file at the first row, whose names give the columns.
class DiagnosticsCsvWriter final : public Writer {
 public:
  explicit DiagnosticsCsvWriter(std::string file) : file_(std::move(file)) {}
  void write(int, double, std::span<const FieldRef>) override {}
  void resume(const std::filesystem::path& previous, long first_step) override {
    previous_ = previous / file_;
    first_step_ = first_step;
  }
  void write_diagnostics(long step, double time, std::span<const Diagnostic> row) override {
    if (!csv_) {
      std::vector<std::string> columns{"step", "time"};
      for (const auto& d : row) columns.push_back(d.name);
      csv_.emplace(dir() / file_, columns);
      carry_rows(columns);
    }
    values_.assign({double(step), time});
    for (const auto& d : row) values_.push_back(d.value);
    csv_->row(values_);
  }
  void close() override {
    if (csv_) csv_->close();
  }

 private:
  // A restarted run: the previous file's rows before the first step, if its columns are ours.
  void carry_rows(const std::vector<std::string>& columns) {
    std::ifstream in(previous_);
    std::string header, line, ours;
    for (const auto& c : columns) ours += (ours.empty() ? "" : ",") + csv_quote(c);
    if (previous_.empty() || !in || !std::getline(in, header) || header != ours) return;  // another run's columns
    std::vector<double> values;
    while (std::getline(in, line)) {
      values.clear();
      std::istringstream cells(line);
      for (std::string cell; std::getline(cells, cell, ',');) values.push_back(std::strtod(cell.c_str(), nullptr));
      if (values.size() != columns.size()) return;
      if (values[0] >= double(first_step_)) break;
      csv_->row(values);
    }
  }

  std::string file_;
  std::optional<CsvWriter> csv_;
  std::vector<double> values_;
  std::filesystem::path previous_;
  long first_step_ = 0;
};

}  // namespace

std::unique_ptr<Writer> make_diagnostics_csv_writer(const std::filesystem::path& dir, const std::string& name) {
  auto w = std::make_unique<DiagnosticsCsvWriter>(name + "_diagnostics.csv");
  w->set_dir(dir);
  return w;
}

}  // namespace tridsim
