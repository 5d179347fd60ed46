// HDF5 + XDMF writer.
//
// <name>.h5 layout (written as .<name>.h5.part until close()):
//   /grid              group; attributes dim (int), n (int64[dim]), lo, hi, spacing (double[dim]),
//                      listed in axis order x, y, z
//   /step_000010       group per output time; attribute time (double);
//     /u, /v, ...      one dataset per field, shape (nz, ny, nx) / (ny, nx) / (nx): C order with
//                      x fastest, so the x-fastest arrays are written as they are
//   /times, /steps     at close: output times (double) and step numbers (int)
// <name>.xmf: an XDMF temporal collection over the datasets, written at close().
#include <hdf5.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "core/errors.hpp"
#include "outputs/files.hpp"
#include "outputs/hdf5_support.hpp"
#include "outputs/writer.hpp"
#include "outputs/writer_support.hpp"

namespace tridsim {
namespace {

using namespace output_detail;

class Hdf5XdmfWriter final : public Writer {
 public:
  Hdf5XdmfWriter(const std::filesystem::path& dir, const std::string& name, const Grid& grid);
  ~Hdf5XdmfWriter() override;
  void write(int step, double time, std::span<const FieldRef> fields) override;
  void close() override;

 private:
  struct Output {
    int step;
    double time;
    std::vector<std::pair<std::string, Precision>> fields;
  };

  std::string context() const { return "HDF5 output '" + h5_path_.string() + "'"; }
  template <class Id> Id check(Id result, const std::string& what) const { return hdf5_check(result, context(), what); }
  void put(hid_t loc, const std::string& name, bool attribute, hid_t file_type, hid_t mem_type,
           const std::vector<hsize_t>& dims, const void* data) {
    hdf5_put(context(), loc, name, attribute, file_type, mem_type, dims, data);
  }
  void write_grid();
  void discard() noexcept;
  std::string xdmf_text() const;
  std::vector<hsize_t> shape() const;  // dataset shape, slowest axis first

  Grid grid_;
  std::string h5_name_;
  std::filesystem::path h5_path_, tmp_path_, xmf_path_;
  Handle file_;
  std::vector<Output> outputs_;
  bool closed_ = false, failed_ = false;
};

Hdf5XdmfWriter::Hdf5XdmfWriter(const std::filesystem::path& dir, const std::string& name, const Grid& grid)
    : grid_(grid), h5_name_(name + ".h5"), h5_path_(dir / h5_name_), tmp_path_(temporary_path(h5_path_)),
      xmf_path_(dir / (name + ".xmf")) {
  prepare_output(dir, name, grid, "HDF5 output '" + h5_path_.string() + "'");
  QuietHdf5 quiet;
  file_ = Handle(check(H5Fcreate(tmp_path_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT),
                       "create '" + tmp_path_.string() + "'"),
                 H5Fclose);
  try {
    write_grid();
  } catch (...) {
    discard();  // no destructor runs for a throwing constructor
    throw;
  }
}

Hdf5XdmfWriter::~Hdf5XdmfWriter() {
  if (!closed_) discard();
}

void Hdf5XdmfWriter::discard() noexcept {
  QuietHdf5 quiet;
  file_.close();
  H5Eclear2(H5E_DEFAULT);
  std::error_code ec;
  std::filesystem::remove(tmp_path_, ec);
}

std::vector<hsize_t> Hdf5XdmfWriter::shape() const {
  std::vector<hsize_t> dims;
  for (int a = grid_.dim - 1; a >= 0; --a) dims.push_back(hsize_t(grid_.n[a]));
  return dims;
}

void Hdf5XdmfWriter::write_grid() {
  Handle group(check(H5Gcreate2(file_.get(), "grid", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "create group /grid"), H5Gclose);
  const int dim = grid_.dim;
  std::vector<std::int64_t> n;
  std::vector<double> lo, hi, spacing;
  for (int a = 0; a < dim; ++a) {
    n.push_back(grid_.n[a]);
    lo.push_back(grid_.lo[a]);
    hi.push_back(grid_.hi[a]);
    spacing.push_back(grid_.h(a));
  }
  const std::vector<hsize_t> d{hsize_t(dim)};
  put(group.get(), "dim", true, H5T_STD_I32LE, H5T_NATIVE_INT, {}, &dim);
  put(group.get(), "n", true, H5T_STD_I64LE, H5T_NATIVE_INT64, d, n.data());
  put(group.get(), "lo", true, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, d, lo.data());
  put(group.get(), "hi", true, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, d, hi.data());
  put(group.get(), "spacing", true, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, d, spacing.data());
  check(group.close(), "write group /grid");
}

void Hdf5XdmfWriter::write(int step, double time, std::span<const FieldRef> fields) {
  const std::string what = "HDF5 output '" + h5_path_.string() + "'";
  if (closed_) throw Error(what + ": write() after close()");
  if (failed_) throw Error(what + ": an earlier write failed");
  check_write(step, outputs_.empty() ? -1 : outputs_.back().step, fields, what);
  QuietHdf5 quiet;
  try {
    const std::string group_name = "step_" + step_tag(step);
    Handle group(check(H5Gcreate2(file_.get(), group_name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                       "create group /" + group_name),
                 H5Gclose);
    put(group.get(), "time", true, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {}, &time);
    Output out{step, time, {}};
    for (const auto& f : fields) {
      const bool single = f.precision == Precision::float32;
      put(group.get(), f.name, false, single ? H5T_IEEE_F32LE : H5T_IEEE_F64LE,
          single ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE, shape(), f.data);
      out.fields.emplace_back(f.name, f.precision);
    }
    check(group.close(), "write group /" + group_name);
    outputs_.push_back(std::move(out));
  } catch (...) {
    failed_ = true;  // the file now holds a partial step; close() must not publish it
    throw;
  }
}

void Hdf5XdmfWriter::close() {
  if (closed_) return;
  if (failed_) throw Error("HDF5 output '" + h5_path_.string() + "': not closed because an earlier write failed");
  {
    QuietHdf5 quiet;
    std::vector<double> times;
    std::vector<int> steps;
    for (const auto& o : outputs_) {
      times.push_back(o.time);
      steps.push_back(o.step);
    }
    const std::vector<hsize_t> d{hsize_t(outputs_.size())};
    put(file_.get(), "times", false, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, d, times.data());
    put(file_.get(), "steps", false, H5T_STD_I32LE, H5T_NATIVE_INT, d, steps.data());
    check(file_.close(), "close the file");
  }
  // The .h5 takes its final name before the .xmf that points at it appears.
  rename_file(tmp_path_, h5_path_);
  closed_ = true;
  write_file_atomically(xmf_path_, xdmf_text());
}

std::string Hdf5XdmfWriter::xdmf_text() const {
  // XDMF lists axes slowest first: (z, y, x). Every grid is a 3DCoRectMesh, with one node
  // along unused axes: ParaView's Xdmf3 reader places a 2DCoRectMesh in the y-z plane, while
  // this keeps x along x (as the .vti output does). The attributes' DataItems state the same
  // 3 dimensions though 1D/2D datasets have rank 1/2: ParaView's legacy XDMF reader reads
  // only part of a DataItem of lower rank than the mesh; its Xdmf3 readers accept either.
  // (Checked with ParaView 5.11's XDMF, Xdmf3ReaderS and Xdmf3ReaderT readers.)
  std::string dims, origin, spacing;
  for (int a = 2; a >= 0; --a) {
    const std::string sep = a > 0 ? " " : "";
    dims += std::to_string(grid_.n[a]) + sep;
    origin += format_double(grid_.lo[a]) + sep;
    spacing += format_double(display_spacing(grid_, a)) + sep;
  }

  std::string x = "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n<Xdmf Version=\"3.0\">\n  <Domain>\n";
  x += "    <Grid Name=\"" + xml_escape(h5_path_.stem().string()) + "\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  for (const auto& o : outputs_) {
    const std::string group = "step_" + step_tag(o.step);
    x += "      <Grid Name=\"" + group + "\" GridType=\"Uniform\">\n";
    x += "        <Time Value=\"" + format_double(o.time) + "\"/>\n";
    x += "        <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"" + dims + "\"/>\n";
    x += "        <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n";
    x += "          <DataItem Name=\"Origin\" Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">" + origin + "</DataItem>\n";
    x += "          <DataItem Name=\"Spacing\" Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">" + spacing + "</DataItem>\n";
    x += "        </Geometry>\n";
    for (const auto& [name, precision] : o.fields) {
      x += "        <Attribute Name=\"" + xml_escape(name) + "\" AttributeType=\"Scalar\" Center=\"Node\">\n";
      x += "          <DataItem Dimensions=\"" + dims + "\" NumberType=\"Float\" Precision=\"" +
           (precision == Precision::float32 ? "4" : "8") + "\" Format=\"HDF\">" + xml_escape(h5_name_) + ":/" + group + "/" +
           xml_escape(name) + "</DataItem>\n";
      x += "        </Attribute>\n";
    }
    x += "      </Grid>\n";
  }
  x += "    </Grid>\n  </Domain>\n</Xdmf>\n";
  return x;
}

}  // namespace

std::unique_ptr<Writer> make_hdf5_xdmf_writer(const std::filesystem::path& dir, const std::string& name,
                                              const Grid& grid) {
  return std::make_unique<Hdf5XdmfWriter>(dir, name, grid);
}

}  // namespace tridsim
