#ifndef PODQ_PATTERN_H
#define PODQ_PATTERN_H

#include <stddef.h>
#include <stdint.h>

/// A podcast's `include`/`exclude` regular expression, compiled by PCRE2 (Debian's libpcre2-8, on
/// every system: grep links it) and matched under a limit on its work, so that a pattern that
/// backtracks without end (`(a+)+$`) gives up instead of holding a refresh.

/// Compiles `pattern` (UTF-8, `length` bytes), case-insensitive, Unicode; NULL on a syntax error, with
/// PCRE2's message in `error` and the offset where it stopped in `offset`.
void *podq_pattern_compile(const char *pattern, size_t length, char *error, size_t errorSize, size_t *offset);

/// 1 when `subject` (UTF-8, `length` bytes) has a match, 0 when it has none, -1 when finding out
/// took more than `limit` steps of PCRE2's matcher (or more than its depth and heap limits), -2 on
/// any other failure (invalid UTF-8).
int podq_pattern_match(void *code, const char *subject, size_t length, uint32_t limit);

void podq_pattern_free(void *code);

#endif
