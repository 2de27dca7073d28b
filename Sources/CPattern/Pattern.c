#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <string.h>
#include "Pattern.h"

void *podq_pattern_compile(const char *pattern, size_t length, char *error, size_t errorSize, size_t *offset) {
    int code = 0;
    PCRE2_SIZE at = 0;
    pcre2_code *compiled = pcre2_compile((PCRE2_SPTR)pattern, length, PCRE2_CASELESS | PCRE2_UTF | PCRE2_UCP, &code, &at, NULL);
    if (compiled == NULL) {
        if (error != NULL && errorSize > 0) {
            if (pcre2_get_error_message(code, (PCRE2_UCHAR *)error, errorSize) < 0) error[0] = 0;
        }
        if (offset != NULL) *offset = at;
    }
    return compiled;
}

int podq_pattern_match(void *code, const char *subject, size_t length, uint32_t limit) {
    pcre2_match_data *data = pcre2_match_data_create_from_pattern((pcre2_code *)code, NULL);
    pcre2_match_context *context = pcre2_match_context_create(NULL);
    if (data == NULL || context == NULL) {
        if (data) pcre2_match_data_free(data);
        if (context) pcre2_match_context_free(context);
        return -2;
    }
    pcre2_set_match_limit(context, limit);
    pcre2_set_depth_limit(context, limit / 10 + 1);
    pcre2_set_heap_limit(context, 1024);  /* KiB */
    int result = pcre2_match((pcre2_code *)code, (PCRE2_SPTR)subject, length, 0, 0, data, context);
    pcre2_match_data_free(data);
    pcre2_match_context_free(context);
    if (result >= 0) return 1;
    if (result == PCRE2_ERROR_NOMATCH) return 0;
    if (result == PCRE2_ERROR_MATCHLIMIT || result == PCRE2_ERROR_DEPTHLIMIT || result == PCRE2_ERROR_HEAPLIMIT) return -1;
    return -2;
}

void podq_pattern_free(void *code) {
    pcre2_code_free((pcre2_code *)code);
}
