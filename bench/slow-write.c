/*
 * slow-write.so: a disk slower than the network, for `podq-bench`'s flat-memory row.
 *
 * Preloaded (LD_PRELOAD) into a downloader, it makes every write(2) and fwrite(3) to a regular file
 * wait so that the process writes at most PODQ_BENCH_WRITE_RATE bytes a second. A downloader that
 * keeps reading from the network while the disk lags has to hold the difference in memory; one that
 * applies backpressure keeps a flat RSS. Sockets, pipes and terminals are not slowed.
 *
 * Built by podq-bench with `cc -shared -fPIC -O2 slow-write.c -o slow-write.so -ldl`.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static double started = -1;
static double written = 0;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int is_regular(int fd) {
    struct stat st;
    return fd > 2 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

/* Waits until `count` more bytes fit under the rate. */
static void throttle(size_t count) {
    const char *setting = getenv("PODQ_BENCH_WRITE_RATE");
    double rate = setting ? atof(setting) : 0;
    if (rate <= 0) return;
    pthread_mutex_lock(&lock);
    if (started < 0) started = now();
    written += count;
    double due = started + written / rate;
    pthread_mutex_unlock(&lock);
    double wait = due - now();
    if (wait > 0) {
        struct timespec ts = { (time_t)wait, (long)((wait - (time_t)wait) * 1e9) };
        nanosleep(&ts, NULL);
    }
}

ssize_t write(int fd, const void *buf, size_t count) {
    static ssize_t (*real)(int, const void *, size_t);
    if (!real) real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    if (is_regular(fd)) throttle(count);
    return real(fd, buf, count);
}

size_t fwrite(const void *ptr, size_t size, size_t n, FILE *stream) {
    static size_t (*real)(const void *, size_t, size_t, FILE *);
    if (!real) real = (size_t (*)(const void *, size_t, size_t, FILE *))dlsym(RTLD_NEXT, "fwrite");
    if (is_regular(fileno(stream))) throttle(size * n);
    return real(ptr, size, n, stream);
}
