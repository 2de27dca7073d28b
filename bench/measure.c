/*
 * measure: runs a command and reports its wall time, CPU time and peak RSS, as GNU time does.
 *
 * Usage: measure REPORT-FILE COMMAND [ARG...]
 * Writes "wall_seconds cpu_seconds max_rss_kb" to REPORT-FILE and exits with the command's status.
 *
 * podq-bench cannot take a child's peak RSS from its own wait4(): posix_spawn runs the child in the
 * parent's address space until exec, and Linux carries that address space's peak into the child's
 * ru_maxrss, so every tool would show at least the bench's own RSS. This helper is small; its fork
 * starts the command from a few hundred kilobytes.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: measure REPORT-FILE COMMAND [ARG...]\n");
        return 2;
    }
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    pid_t pid = fork();
    if (pid < 0) { perror("fork"); return 2; }
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        perror(argv[2]);
        _exit(127);
    }
    int status = 0;
    struct rusage usage;
    while (wait4(pid, &status, 0, &usage) < 0) {}
    clock_gettime(CLOCK_MONOTONIC, &end);
    FILE *report = fopen(argv[1], "w");
    if (report) {
        double wall = (end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9;
        double cpu = usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
        fprintf(report, "%.6f %.6f %ld\n", wall, cpu, usage.ru_maxrss);
        fclose(report);
    }
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}
