// The "probe" output format: an out-of-tree tridsim writer (the example of docs/extending.md,
// "Adding an output format"). At each output time it records every field's value at one node,
// the grid's first (x = lo, y = lo, z = lo), as a line of `<name>_probe.txt`:
//   step time field value
// Deck: output: {formats: [hdf5, csv, probe]}.
#include <memory>
#include <span>
#include <string>

#include "outputs/files.hpp"
#include "outputs/writer.hpp"
#include "outputs/writer_support.hpp"

namespace {

using namespace tridsim;

class ProbeWriter final : public Writer {
 public:
  explicit ProbeWriter(const WriterSetup& setup) : file_(setup.name + "_probe.txt") {}

  // At each output time: one line per field, then the whole file replaced atomically, so that
  // it holds every output so far at every moment. Paths are formed from dir() when writing:
  // the run's directory is renamed once, after its first output.
  void write(int step, double time, std::span<const FieldRef> fields) override {
    for (const FieldRef& f : fields) {
      const double v = f.precision == Precision::float32 ? double(static_cast<const float*>(f.data)[0])
                                                         : static_cast<const double*>(f.data)[0];
      text_ += std::to_string(step) + " " + output_detail::format_double(time) + " " + f.name + " " +
               output_detail::format_double(v) + "\n";
    }
    write_file_atomically(dir() / file_, text_);
  }

  void close() override {}

 private:
  std::string file_;
  std::string text_;
};

std::unique_ptr<Writer> make_probe_writer(const WriterSetup& setup) { return std::make_unique<ProbeWriter>(setup); }

}  // namespace

TRIDSIM_REGISTER_WRITER("probe", "NAME_probe.txt: each field's value at the first node, per output time", make_probe_writer);
