#include "outputs/run_directory.hpp"

#include <fcntl.h>
#include <stdio.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <regex>
#include <vector>

#include "core/errors.hpp"

namespace tridsim {
namespace {

namespace fs = std::filesystem;

constexpr const char* kLockFile = ".tridsim.lock";
constexpr const char* kManifest = ".tridsim.manifest";
constexpr std::size_t kMaxCarried = 100;  // more foreign files: the directory is not a run's own

// A file being written under a temporary name (outputs/files.hpp temporary_path).
bool is_temporary(const std::string& entry) { return entry.front() == '.' && entry.ends_with(".part"); }

// tridsim's own bookkeeping and temporary files, never part of a result.
bool is_bookkeeping(const std::string& entry) { return entry == kLockFile || entry == kManifest || is_temporary(entry); }

std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

// Swap two directories in one step; where the file system cannot, two renames.
void exchange(const fs::path& a, const fs::path& b) {
  if (::renameat2(AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), RENAME_EXCHANGE) == 0) return;
  const int err = errno;
  if (err != EINVAL && err != ENOSYS && err != ENOTSUP)
    throw Error("cannot publish '" + a.string() + "' as '" + b.string() + "': " + std::strerror(err));
  const fs::path aside = a.string() + ".old";
  rename_file(b, aside);
  rename_file(a, b);
  rename_file(aside, a);
}

}  // namespace

namespace {
fs::path absolute_dir(const fs::path& dir) {
  std::error_code ec;
  fs::path a = fs::absolute(dir, ec).lexically_normal();
  return a.has_filename() ? a : a.parent_path();  // "out/" -> "out"
}
}  // namespace

std::string RunDirectory::place_problem(const fs::path& dir) {
  std::error_code ec;
  const fs::path a = absolute_dir(dir), cwd = fs::current_path(ec).lexically_normal();
  const auto rel = cwd.lexically_relative(a);
  if (a.has_relative_path() && (rel.empty() || *rel.begin() == "..")) return "";
  return "the output directory '" + dir.string() +
         "' is the current directory or one above it; a run replaces its output directory as a whole, so give it "
         "a directory of its own (e.g. -o output/NAME)";
}

RunDirectory::RunDirectory(const fs::path& dir, const std::string& name) : name_(name) {
  std::error_code ec;
  dir_ = absolute_dir(dir);
  if (const std::string why = place_problem(dir); !why.empty()) throw Error(why);
  std::string staging = ".";  // built with += : g++ 12 warns falsely (-Wrestrict) on "." + string
  staging += dir_.filename().string();
  staging += ".tridsim-new";
  staging_ = dir_.parent_path() / staging;

  fs::create_directories(dir_, ec);
  if (ec) throw Error("cannot create the output directory '" + dir_.string() + "': " + ec.message());
  lock_ = std::make_unique<OutputDirLock>(dir_);

  // What a killed run left: its staging directory (or the previous result it had swapped out)
  // and temporary files.
  fs::remove_all(staging_, ec);
  fs::remove_all(staging_.string() + ".old", ec);
  for (const auto& entry : entries(dir_))
    if (is_temporary(entry)) fs::remove(dir_ / entry, ec);

  if (std::ifstream manifest(dir_ / kManifest); manifest) {
    has_manifest_ = true;
    std::string line;
    while (std::getline(manifest, line)) {
      if (line.starts_with("name ")) previous_name_ = line.substr(5);
      if (line.starts_with("carried ")) carried_.push_back(line.substr(8));
      if (line.starts_with("result ")) result_.push_back(line.substr(7));
    }
  }
  std::size_t foreign = 0;
  for (const auto& entry : entries(dir_)) {
    if (is_bookkeeping(entry) || is_previous_result(entry)) continue;
    if (fs::is_directory(fs::symlink_status(dir_ / entry)) || ++foreign > kMaxCarried)
      throw Error("the output directory '" + dir_.string() + "' holds " +
                  (foreign > kMaxCarried ? "many files" : "a directory ('" + entry + "')") +
                  " that tridsim did not write; a run replaces its output directory as a whole, so give it a "
                  "directory of its own (-o or output.dir)");
  }

  if (!fs::create_directory(staging_, ec) || ec)
    throw Error("cannot create the staging directory '" + staging_.string() + "' beside the output directory: " +
                (ec ? ec.message() : "it exists"));
  staging_lock_ = std::make_unique<OutputDirLock>(staging_);  // becomes the directory's lock when published
}

RunDirectory::~RunDirectory() {
  if (published_) return;
  staging_lock_.reset();
  std::error_code ec;
  fs::remove_all(staging_, ec);
}

bool RunDirectory::is_previous_result(const std::string& entry) const {
  auto listed = [&](const std::vector<std::string>& list) { return std::find(list.begin(), list.end(), entry) != list.end(); };
  if (listed(result_)) return true;
  if (listed(carried_)) return false;
  // Not in the manifest (a run that did not finish, or an older tridsim's): the names a run of
  // that name writes.
  static const std::regex numbered("_(checkpoint_)?[0-9]+\\.(vti|vtr|h5)");
  const std::string& name = has_manifest_ ? previous_name_ : name_;
  if (entry == "summary.json") return true;
  if (name.empty() || !entry.starts_with(name)) return false;
  const std::string rest = entry.substr(name.size());
  return rest == ".h5" || rest == ".xmf" || rest == ".pvd" || rest == "_diagnostics.csv" ||
         std::regex_match(rest, numbered);
}

void RunDirectory::write_manifest() const {
  std::string text = "name " + name_ + "\n";
  for (const auto& entry : carried_) text += "carried " + entry + "\n";
  if (published_)
    for (const auto& entry : entries(dir_))
      if (!is_bookkeeping(entry) && entry.find('\n') == std::string::npos &&
          std::find(carried_.begin(), carried_.end(), entry) == carried_.end())
        text += "result " + entry + "\n";
  write_file_atomically(path() / kManifest, text);
}

void RunDirectory::finish() {
  if (published_) write_manifest();
}

std::string RunDirectory::as_published(std::string message) const {
  const std::string from = staging_.string(), to = dir_.string();
  for (std::size_t at = message.find(from); at != std::string::npos; at = message.find(from, at + to.size()))
    message.replace(at, from.size(), to);
  return message;
}

void RunDirectory::require_intact() const {
  const OutputDirLock* lock = published_ ? lock_.get() : staging_lock_.get();
  if (lock && lock->locks(path())) return;
  throw Error("the output directory '" + dir_.string() +
              "' was deleted or replaced while the run wrote in it: its results are gone; give the run a directory "
              "that stays until the run ends");
}

bool RunDirectory::previous_result_is(const std::string& name) const {
  if (has_manifest_) return previous_name_ == name;
  std::error_code ec;
  return name == name_ && (fs::exists(dir_ / (name + ".h5"), ec) || fs::exists(dir_ / (name + ".pvd"), ec) ||
                           fs::exists(dir_ / (name + "_diagnostics.csv"), ec));
}

void RunDirectory::publish() {
  if (published_) return;
  carried_.clear();
  for (const auto& entry : entries(dir_)) {
    if (is_bookkeeping(entry) || is_previous_result(entry)) continue;
    if (fs::exists(fs::symlink_status(staging_ / entry))) continue;  // this run wrote one of that name
    const fs::path from = dir_ / entry, to = staging_ / entry;
    if (fs::is_symlink(fs::symlink_status(from))) fs::copy_symlink(from, to);
    else link_or_copy(from, to);
    carried_.push_back(entry);
  }
  write_manifest();
  exchange(staging_, dir_);
  published_ = true;
  std::swap(lock_, staging_lock_);  // the lock file now inside dir_
  staging_lock_.reset();
  std::error_code ec;
  fs::remove_all(staging_, ec);  // the previous result
}

}  // namespace tridsim
