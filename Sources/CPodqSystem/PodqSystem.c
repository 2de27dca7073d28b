#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>
#include "PodqSystem.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

int podq_rename_noreplace(int oldDir, const char *oldName, int newDir, const char *newName) {
#ifdef SYS_renameat2
    return (int)syscall(SYS_renameat2, oldDir, oldName, newDir, newName, RENAME_NOREPLACE);
#else
    errno = ENOSYS;
    return -1;
#endif
}

int podq_release_free_memory(void) {
    return malloc_trim(0);
}

/// One malloc arena for the whole process (docs/DECISIONS.md, "One malloc arena"), set as the program
/// loads: glibc fixes its arena limit when a thread first needs a second arena, so `main` is too late.
/// `MALLOC_ARENA_MAX` in the environment still wins.
__attribute__((constructor)) static void podq_one_malloc_arena(void) {
    if (getenv("MALLOC_ARENA_MAX") == NULL) mallopt(M_ARENA_MAX, 1);
}

int podq_signal_is_ignored(int sig) {
    struct sigaction current;
    if (sigaction(sig, NULL, &current) != 0) return 0;
    return current.sa_handler == SIG_IGN;
}

int podq_terminal_hung_up(int fd) {
    struct pollfd p = { .fd = fd, .events = POLLIN, .revents = 0 };
    if (poll(&p, 1, 0) < 0) return 0;
    return (p.revents & (POLLHUP | POLLERR | POLLNVAL)) != 0;
}

long long podq_birth_time(int dir, const char *name) {
    struct statx info;
    int flags = AT_SYMLINK_NOFOLLOW | AT_STATX_SYNC_AS_STAT;
    if (name == NULL) flags |= AT_EMPTY_PATH;
    if (statx(dir, name == NULL ? "" : name, flags, STATX_BTIME, &info) != 0) return -1;
    if ((info.stx_mask & STATX_BTIME) == 0) return -1;
    return (long long)info.stx_btime.tv_sec * 1000000000LL + (long long)info.stx_btime.tv_nsec;
}

long long podq_file_system_type(const char *path) {
    struct statfs info;
    if (statfs(path, &info) != 0) return -1;
    return (long long)(unsigned long)info.f_type;
}

#if __has_include("commit.h")
#include "commit.h"
#endif
#ifndef PODQ_COMMIT
#define PODQ_COMMIT ""
#endif

const char *podq_build_commit(void) { return PODQ_COMMIT; }
