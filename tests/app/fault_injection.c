// Fault injection for tests/app/interruption_test.py, loaded with LD_PRELOAD. TRIDSIM_FAULT says
// which fault, at which call:
//   kill-rename:K   the K-th rename (rename, renameat, renameat2) kills the process before it happens
//   enospc-write:K  the K-th write to a regular file (write, pwrite, pwrite64, writev, pwritev) fails: ENOSPC
//   disk-bytes:N    a disk that holds N bytes of each file: a write or a reservation (fallocate) that
//                   would reach past byte N of a regular file fails with ENOSPC
//   disk-total:N    a disk that holds N bytes in all: a write or a reservation that would grow the
//                   regular files this process writes past N bytes together fails with ENOSPC (space
//                   is taken as a file grows or is reserved, and never given back)
//   eio-write:K     the K-th write to a regular file and every later one fail: EIO (a failing device)
//   count           nothing injected; at exit, prints "fault-injection: W writes, R renames, B bytes"
//                   to stderr (B: the space disk-total counts)
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

static long kill_rename_at = -1, fail_write_at = -1, disk_bytes = -1, disk_total = -1, eio_from = -1;
static long renames = 0, writes = 0, used = 0;

// disk-total's accounts: how far each file (by device and inode) has been charged for.
enum { kFiles = 1024 };
static struct {
  dev_t dev;
  ino_t ino;
  off_t end;
} charged[kFiles];
static int files = 0;

static void report(void) {
  char line[96];
  const int n =
      snprintf(line, sizeof line, "fault-injection: %ld writes, %ld renames, %ld bytes\n", writes, renames, used);
  if (n > 0) (void)!write(2, line, (size_t)n);
}

__attribute__((constructor)) static void configure(void) {
  const char* spec = getenv("TRIDSIM_FAULT");
  if (!spec) return;
  if (strncmp(spec, "kill-rename:", 12) == 0) kill_rename_at = atol(spec + 12);
  else if (strncmp(spec, "enospc-write:", 13) == 0) fail_write_at = atol(spec + 13);
  else if (strncmp(spec, "disk-bytes:", 11) == 0) disk_bytes = atol(spec + 11);
  else if (strncmp(spec, "disk-total:", 11) == 0) disk_total = atol(spec + 11);
  else if (strncmp(spec, "eio-write:", 10) == 0) eio_from = atol(spec + 10);
  else if (strcmp(spec, "count") == 0) atexit(report);
}

static void before_rename(void) {
  if (++renames == kill_rename_at) raise(SIGKILL);
}

// Charges the growth of the file `st` to byte `end` to disk-total's disk; 0 where it does not fit.
static int charge(const struct stat* st, off_t end) {
  int i = 0;
  while (i < files && !(charged[i].dev == st->st_dev && charged[i].ino == st->st_ino)) ++i;
  if (i == files) {
    if (files == kFiles) return disk_total < 0;  // (more files than a test writes: a full disk)
    charged[files].dev = st->st_dev, charged[files].ino = st->st_ino, charged[files].end = st->st_size;
    ++files;
  }
  const long growth = end > charged[i].end ? (long)(end - charged[i].end) : 0;
  if (disk_total >= 0 && used + growth > disk_total) return 0;
  used += growth;
  if (end > charged[i].end) charged[i].end = end;
  return 1;
}

// The errno with which this write of n bytes at `at` (-1: at the file's offset) is to fail; 0: none.
static int fail_this_write(int fd, off_t at, size_t n) {
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
  const off_t start = at >= 0 ? at : lseek(fd, 0, SEEK_CUR);
  if (disk_bytes >= 0) return start >= 0 && start + (off_t)n > disk_bytes ? ENOSPC : 0;
  ++writes;
  if (eio_from >= 0) return writes >= eio_from ? EIO : 0;
  if (start >= 0 && !charge(&st, start + (off_t)n)) return ENOSPC;
  return writes == fail_write_at ? ENOSPC : 0;
}

// The same for a reservation (fallocate) of n bytes at `at`.
static int fail_this_reservation(int fd, off_t at, off_t n) {
  struct stat st;
  if (disk_bytes >= 0) return at + n > disk_bytes ? ENOSPC : 0;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
  return charge(&st, at + n) ? 0 : ENOSPC;
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
  const int err = fail_this_write(fd, -1, n);
  if (err) return errno = err, -1;
  return NEXT(write)(fd, buf, n);
}

ssize_t pwrite(int fd, const void* buf, size_t n, off_t at) {
  const int err = fail_this_write(fd, at, n);
  if (err) return errno = err, -1;
  return NEXT(pwrite)(fd, buf, n, at);
}

ssize_t pwrite64(int fd, const void* buf, size_t n, off_t at) {
  const int err = fail_this_write(fd, at, n);
  if (err) return errno = err, -1;
  return NEXT(pwrite64)(fd, buf, n, at);
}

ssize_t writev(int fd, const struct iovec* v, int count) {
  const int err = fail_this_write(fd, -1, total(v, count));
  if (err) return errno = err, -1;
  return NEXT(writev)(fd, v, count);
}

// (MPI-IO's writes: Open MPI's OMPIO writes with pwritev.)
ssize_t pwritev(int fd, const struct iovec* v, int count, off_t at) {
  const int err = fail_this_write(fd, at, total(v, count));
  if (err) return errno = err, -1;
  return NEXT(pwritev)(fd, v, count, at);
}

ssize_t pwritev64(int fd, const struct iovec* v, int count, off_t at) {
  const int err = fail_this_write(fd, at, total(v, count));
  if (err) return errno = err, -1;
  return NEXT(pwritev64)(fd, v, count, at);
}

int fallocate(int fd, int mode, off_t at, off_t n) {
  const int err = fail_this_reservation(fd, at, n);
  if (err) return errno = err, -1;
  return NEXT(fallocate)(fd, mode, at, n);
}

int fallocate64(int fd, int mode, off_t at, off_t n) {
  const int err = fail_this_reservation(fd, at, n);
  if (err) return errno = err, -1;
  return NEXT(fallocate64)(fd, mode, at, n);
}
