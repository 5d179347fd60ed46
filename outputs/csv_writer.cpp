#include "outputs/csv_writer.hpp"

#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>

#include "core/errors.hpp"
#include "outputs/files.hpp"
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
    : path_(std::move(path)), tmp_(temporary_path(path_)), columns_(columns.size()) {
  if (columns.empty()) throw Error("CSV output '" + path_.string() + "': no columns");
  file_ = std::fopen(tmp_.c_str(), "wb");
  if (!file_) throw Error("CSV output '" + path_.string() + "': cannot create '" + tmp_.string() + "': " + std::strerror(errno));
  std::string header;
  for (const auto& c : columns) {
    if (!header.empty()) header += ',';
    header += csv_quote(c);
  }
  try {
    put(header + "\n");
  } catch (...) {
    std::fclose(file_);  // no destructor runs for a throwing constructor
    std::error_code ec;
    std::filesystem::remove(tmp_, ec);
    throw;
  }
}

CsvWriter::~CsvWriter() {
  if (closed_) return;
  if (file_) std::fclose(file_);
  std::error_code ec;
  std::filesystem::remove(tmp_, ec);
}

void CsvWriter::put(const std::string& line) {
  if (!file_) throw Error("CSV output '" + path_.string() + "': an earlier close() failed");
  if (std::fwrite(line.data(), 1, line.size(), file_) != line.size())
    throw Error("CSV output '" + path_.string() + "': cannot write: " + std::strerror(errno));
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
  if (!file_) throw Error("CSV output '" + path_.string() + "': an earlier close() failed");
  const bool flushed = std::fflush(file_) == 0;
  const int err = errno;
  const bool ok = std::fclose(file_) == 0 && flushed;
  file_ = nullptr;
  if (!ok) throw Error("CSV output '" + path_.string() + "': cannot write: " + std::strerror(flushed ? errno : err));
  rename_file(tmp_, path_);
  closed_ = true;
}

// ---- the "csv" format: the diagnostics time series -------------------------------------------

namespace {

// Starts the file at the first row, whose names give the columns.
class DiagnosticsCsvWriter final : public Writer {
 public:
  explicit DiagnosticsCsvWriter(std::filesystem::path path) : path_(std::move(path)) {}
  void write(int, double, std::span<const FieldRef>) override {}
  void write_diagnostics(long step, double time, std::span<const Diagnostic> row) override {
    if (!csv_) {
      std::vector<std::string> columns{"step", "time"};
      for (const auto& d : row) columns.push_back(d.name);
      csv_.emplace(path_, columns);
    }
    values_.assign({double(step), time});
    for (const auto& d : row) values_.push_back(d.value);
    csv_->row(values_);
  }
  void close() override {
    if (csv_) csv_->close();
  }

 private:
  std::filesystem::path path_;
  std::optional<CsvWriter> csv_;
  std::vector<double> values_;
};

}  // namespace

std::unique_ptr<Writer> make_diagnostics_csv_writer(const std::filesystem::path& dir, const std::string& name) {
  return std::make_unique<DiagnosticsCsvWriter>(dir / (name + "_diagnostics.csv"));
}

}  // namespace tridsim
