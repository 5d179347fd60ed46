#include "core/native_code.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <sstream>
#include <vector>

#include "core/errors.hpp"
#include "core/expression.hpp"

extern char** environ;

namespace tridsim {

namespace {

namespace fs = std::filesystem;

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

// The compiler to run: TRIDSIM_CXX, else the one that built tridsim where it is still there, else c++.
std::string compiler() {
  if (std::string c = env("TRIDSIM_CXX"); !c.empty()) return c;
#ifdef TRIDSIM_BUILD_CXX
  if (::access(TRIDSIM_BUILD_CXX, X_OK) == 0) return TRIDSIM_BUILD_CXX;
#endif
  return "c++";
}

const std::vector<std::string> kFlags = {"-x", "c++", "-std=c++17", "-O3", "-march=native", "-ffp-contract=off",
                                         "-fno-math-errno", "-fno-builtin", "-fPIC", "-shared", "-w"};

// What -march=native compiles for: the processor's model and instruction sets. Part of the cache's
// key, so that a cache in a home directory shared by different machines (a cluster's login and
// compute nodes) never hands one of them code for another's instructions.
const std::string& processor() {
  static const std::string id = [] {
    std::ifstream in("/proc/cpuinfo");
    std::string line, model, flags;
    while (std::getline(in, line) && (model.empty() || flags.empty())) {
      if (model.empty() && line.rfind("model name", 0) == 0) model = line;
      if (flags.empty() && (line.rfind("flags", 0) == 0 || line.rfind("Features", 0) == 0)) flags = line;
    }
    return model + '\n' + flags;
  }();
  return id;
}

std::string host() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "host";
  return name;
}

fs::path cache_dir() {
  if (std::string d = env("TRIDSIM_CACHE_DIR"); !d.empty()) return d;
  if (std::string d = env("XDG_CACHE_HOME"); !d.empty()) return fs::path(d) / "tridsim";
  if (std::string d = env("HOME"); !d.empty()) return fs::path(d) / ".cache" / "tridsim";
  return fs::temp_directory_path() / fmt::format("tridsim-cache-{}", ::getuid());
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return {};
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool write_file(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
  out.close();
  return bool(out);
}

// Runs argv with stdout and stderr into `log`; the exit status, or -1 with `why` when it cannot start.
int run(const std::vector<std::string>& argv, const fs::path& log, std::string& why) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  const int err = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (err != 0) {
    why = fmt::format("cannot run the C++ compiler '{}' ({})", argv[0], std::strerror(err));
    return -1;
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) {
      why = fmt::format("lost the C++ compiler '{}' ({})", argv[0], std::strerror(errno));
      return -1;
    }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

struct Compiled {
  std::shared_ptr<const NativeCode> code;
  std::string why;
};

// The shared object of `source` from the cache, compiled first when it is not there (or its
// cached source differs: a hash collision).
Compiled build(const std::string& source) {
  const std::string cxx = compiler();
  if (cxx == "none") return {nullptr, "TRIDSIM_CXX=none"};
  std::string command = cxx;
  for (const auto& f : kFlags) command += " " + f;
  const fs::path dir = cache_dir();
  std::error_code ec;
  const bool created = fs::create_directories(dir, ec);
  if (ec) return {nullptr, fmt::format("cannot create the cache directory {} ({})", dir.string(), ec.message())};
  if (created) fs::permissions(dir, fs::perms::owner_all, ec);  // (its code is loaded into the process)
  const std::string key =
      fmt::format("{:016x}", std::hash<std::string>{}(command + '\n' + processor() + '\n' + source));
  const fs::path src = dir / (key + ".cpp"), so = dir / (key + ".so");
  auto open = [&](const fs::path& p) -> Compiled {
    void* h = ::dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) return {nullptr, fmt::format("cannot load {} ({})", p.string(), ::dlerror())};
    return {std::make_shared<const NativeCode>(h, p.string()), {}};
  };
  if (fs::exists(so) && read_file(src) == source) {
    if (Compiled c = open(so); c.code) return c;
  }
  // Compile under names of this process's own, then rename: concurrent runs (MPI ranks, tests)
  // never load a half-written file. The .so is in place before the .cpp that vouches for it.
  const std::string mine = fmt::format("{}.{}.{}", key, host(), ::getpid());
  const fs::path tmp_src = dir / (mine + ".cpp"), tmp_so = dir / (mine + ".so"), log = dir / (key + ".log");
  if (!write_file(tmp_src, source)) return {nullptr, fmt::format("cannot write {}", tmp_src.string())};
  std::vector<std::string> argv = {cxx};
  argv.insert(argv.end(), kFlags.begin(), kFlags.end());
  argv.insert(argv.end(), {"-o", tmp_so.string(), tmp_src.string()});
  std::string why;
  const int rc = run(argv, log, why);
  if (rc != 0) {
    fs::remove(tmp_src, ec);
    fs::remove(tmp_so, ec);
    if (rc < 0) return {nullptr, why};
    return {nullptr, fmt::format("'{}' failed (exit status {}; its messages: {})", command, rc, log.string())};
  }
  fs::rename(tmp_so, so, ec);
  if (!ec) fs::rename(tmp_src, src, ec);
  if (ec) {
    fs::remove(tmp_src, ec);
    fs::remove(tmp_so, ec);
    return {nullptr, fmt::format("cannot move the compiled code into {} ({})", dir.string(), ec.message())};
  }
  fs::remove(log, ec);
  return open(so);
}

}  // namespace

std::shared_ptr<const NativeCode> NativeCode::compile(const std::string& source, std::string* why) {
  static std::mutex mutex;
  static std::map<std::string, Compiled> done;  // (failures too: one attempt per source and process)
  const std::lock_guard<std::mutex> lock(mutex);
  // A change of TRIDSIM_CXX (tests compare compiled and interpreted runs in one process) is a new attempt.
  const std::string key = compiler() + '\n' + source;
  auto it = done.find(key);
  if (it == done.end()) it = done.emplace(key, build(source)).first;
  if (why) *why = it->second.why;
  return it->second.code;
}

void* NativeCode::symbol(const char* name) const {
  void* s = ::dlsym(handle_, name);
  if (!s) throw Error(fmt::format("compiled deck expressions {}: no function {}", path_, name));
  return s;
}

void NativeBatch::add(Expression& e) {
  if (e.is_constant()) return;  // (fill_lines never runs for it)
  const auto source = e.native_line_source("@");
  if (!source) return;
  auto it = std::find_if(sources_.begin(), sources_.end(), [&](const auto& s) { return s.first == *source; });
  if (it == sources_.end()) {
    sources_.emplace_back(*source, fmt::format("tridsim_expression_{}", sources_.size()));
    it = sources_.end() - 1;
  }
  kernels_.emplace_back(&e, it->second);
}

void NativeBatch::add_code(const std::string& code) { code_ += code; }

std::shared_ptr<const NativeCode> NativeBatch::compile(const std::string& who, const std::string& what) {
  if (code_.empty() && sources_.empty()) return nullptr;
  std::string source = Expression::native_prelude();
  for (const auto& [text, name] : sources_) {
    const std::size_t at = text.find('@');
    source += text.substr(0, at) + name + text.substr(at + 1);
  }
  source += code_;
  std::string why;
  auto code = NativeCode::compile(source, &why);
  if (!code) {
    spdlog::info("{}: {} interpreted by muparser, not compiled: {}", who, what, why);
    return nullptr;
  }
  for (const auto& [e, name] : kernels_)
    e->use_native(code, reinterpret_cast<Expression::LineKernel>(code->symbol(name.c_str())));
  return code;
}

}  // namespace tridsim
