#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <sys/syscall.h>
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

int podq_limit_malloc_arenas(int count) {
    return mallopt(M_ARENA_MAX, count);
}
