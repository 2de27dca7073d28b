// Loads libxml2 when first needed (see XMLLibrary.h).
#define PODQ_XML_LIBRARY_IMPLEMENTATION
#include "XMLLibrary.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

podq_libxml podq_libxml_api;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int loaded;
static char load_error[200];

static void load(void) {
    // The SONAME of libxml2 2.x, the one Debian's libxml2 package installs (and the headers podq
    // was built with describe).
    void *lib = dlopen("libxml2.so.2", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        const char *error = dlerror();
        snprintf(load_error, sizeof load_error, "%s", error ? error : "libxml2.so.2 cannot be opened");
        return;
    }
#define PODQ_LIBXML_LOOKUP(name)                                                                         \
    podq_libxml_api.name = (__typeof__(name) *)dlsym(lib, #name);                                       \
    if (podq_libxml_api.name == NULL) {                                                                  \
        snprintf(load_error, sizeof load_error, "libxml2.so.2 has no %s", #name);                       \
        return;                                                                                          \
    }
    PODQ_LIBXML_FUNCTIONS(PODQ_LIBXML_LOOKUP)
#undef PODQ_LIBXML_LOOKUP
    podq_libxml_api.xmlInitParser();
    loaded = 1;
}

int podq_libxml_load(char *reason, unsigned long size) {
    pthread_once(&load_once, load);
    if (!loaded && reason != NULL && size > 0) snprintf(reason, size, "%s", load_error);
    return loaded;
}
