// Fault injection for tests/app/interruption_test.py, loaded with LD_PRELOAD. TRIDSIM_FAULT says
// which fault, at which call:
//   kill-rename:K   the K-th rename (rename, renameat, renameat2) kills the process before it happens
//   enospc-write:K  the K-th write to a regular file (write, pwrite, pwrite64, writev, pwritev) fails: ENOSPC
//   disk-bytes:N    a disk that holds N bytes of each file: a write or a reservation (fallocate) that
//                   would reach past byte N of a regular file fails with ENOSPC
//   count           nothing injected; at exit, prints "fault-injection: W writes, R renames" to stderr
// Writes to terminals, pipes and sockets are not counted (stderr must still carry the error).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

static long kill_rename_at = -1, fail_write_at = -1, disk_bytes = -1;
static long renames = 0, writes = 0;

static void report(void) {
  char line[96];
  const int n = snprintf(line, sizeof line, "fault-injection: %ld writes, %ld renames\n", writes, renames);
  if (n > 0) (void)!write(2, line, (size_t)n);
}

__attribute__((constructor)) static void configure(void) {
  const char* spec = getenv("TRIDSIM_FAULT");
  if (!spec) return;
  if (strncmp(spec, "kill-rename:", 12) == 0) kill_rename_at = atol(spec + 12);
  else if (strncmp(spec, "enospc-write:", 13) == 0) fail_write_at = atol(spec + 13);
  else if (strncmp(spec, "disk-bytes:", 11) == 0) disk_bytes = atol(spec + 11);
  else if (strcmp(spec, "count") == 0) atexit(report);
}

static void before_rename(void) {
  if (++renames == kill_rename_at) raise(SIGKILL);
}

// Whether this write of n bytes at `at` (-1: at the file's offset) is one to fail.
static int fail_this_write(int fd, off_t at, size_t n) {
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
  if (disk_bytes >= 0) {
    const off_t start = at >= 0 ? at : lseek(fd, 0, SEEK_CUR);
    return start >= 0 && start + (off_t)n > disk_bytes;
  }
  return ++writes == fail_write_at;
}

static size_t total(const struct iovec* v, int count) {
  size_t n = 0;
  for (int i = 0; i < count; ++i) n += v[i].iov_len;
  return n;
}

#define NEXT(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

int rename(const char* from, const char* to) {
  before_rename();
  return NEXT(rename)(from, to);
}

int renameat(int a, const char* from, int b, const char* to) {
  before_rename();
  return NEXT(renameat)(a, from, b, to);
}

int renameat2(int a, const char* from, int b, const char* to, unsigned flags) {
  before_rename();
  return NEXT(renameat2)(a, from, b, to, flags);
}

ssize_t write(int fd, const void* buf, size_t n) {
  if (fail_this_write(fd, -1, n)) return errno = ENOSPC, -1;
  return NEXT(write)(fd, buf, n);
}

ssize_t pwrite(int fd, const void* buf, size_t n, off_t at) {
  if (fail_this_write(fd, at, n)) return errno = ENOSPC, -1;
  return NEXT(pwrite)(fd, buf, n, at);
}

ssize_t pwrite64(int fd, const void* buf, size_t n, off_t at) {
  if (fail_this_write(fd, at, n)) return errno = ENOSPC, -1;
  return NEXT(pwrite64)(fd, buf, n, at);
}

ssize_t writev(int fd, const struct iovec* v, int count) {
  if (fail_this_write(fd, -1, total(v, count))) return errno = ENOSPC, -1;
  return NEXT(writev)(fd, v, count);
}

// (MPI-IO's writes: Open MPI's OMPIO writes with pwritev.)
ssize_t pwritev(int fd, const struct iovec* v, int count, off_t at) {
  if (fail_this_write(fd, at, total(v, count))) return errno = ENOSPC, -1;
  return NEXT(pwritev)(fd, v, count, at);
}

ssize_t pwritev64(int fd, const struct iovec* v, int count, off_t at) {
  if (fail_this_write(fd, at, total(v, count))) return errno = ENOSPC, -1;
  return NEXT(pwritev64)(fd, v, count, at);
}

int fallocate(int fd, int mode, off_t at, off_t n) {
  if (disk_bytes >= 0 && at + n > disk_bytes) return errno = ENOSPC, -1;
  return NEXT(fallocate)(fd, mode, at, n);
}

int fallocate64(int fd, int mode, off_t at, off_t n) {
  if (disk_bytes >= 0 && at + n > disk_bytes) return errno = ENOSPC, -1;
  return NEXT(fallocate64)(fd, mode, at, n);
}
