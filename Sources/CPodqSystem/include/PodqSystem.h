#ifndef PODQ_SYSTEM_H
#define PODQ_SYSTEM_H

/// System calls that Swift's Glibc module does not import.

/// renameat2(2) with RENAME_NOREPLACE: renames `oldName` in `oldDir` to `newName` in `newDir` unless
/// `newName` exists (then -1 and errno EEXIST). -1 and errno EINVAL or ENOSYS where the file system or
/// the kernel cannot do it atomically.
int podq_rename_noreplace(int oldDir, const char *oldName, int newDir, const char *newName);

/// malloc_trim(3): hands the free memory of every malloc arena back to the system. Returns 1 when
/// some was released.
int podq_release_free_memory(void);

/// 1 when signal `sig` is ignored now (`nohup` ignores SIGHUP): a handler must not undo that.
int podq_signal_is_ignored(int sig);

/// 1 when the terminal on `fd` hung up (its other end closed: a closed terminal window, a dropped
/// ssh session), so reads on it will never wait again.
int podq_terminal_hung_up(int fd);

/// The file system type of `path` (statfs(2)'s f_type: 0x4d44 for FAT…), or -1 when it cannot be asked.
long long podq_file_system_type(const char *path);

/// When the file `name` in the folder `dir` (or, with `name` NULL, the open file `dir`) was created, in
/// nanoseconds since 1970, without following a link (statx(2)'s birth time); -1 when the file system does
/// not keep it or the call fails. A file whose inode number was freed and given to a new file has a new
/// birth time: with the inode, it tells the file podq wrote, changed since, from another in its place.
long long podq_birth_time(int dir, const char *name);

/// The git commit podq was built from ("" when not built by make from a clone): make writes it to
/// Sources/CPodqSystem/commit.h (ignored by git) before each build.
const char *podq_build_commit(void);

#endif
