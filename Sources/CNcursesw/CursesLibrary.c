// Loads ncursesw when the TUI starts (see include/CNcursesw.h).
#include "CNcursesw.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#define PODQ_CURSES_FUNCTIONS(F)                                                                         \
    F(newterm)                                                                                           \
    F(set_term)                                                                                          \
    F(cbreak)                                                                                            \
    F(noecho)                                                                                            \
    F(nonl)                                                                                              \
    F(keypad)                                                                                            \
    F(curs_set)                                                                                          \
    F(set_escdelay)                                                                                      \
    F(mousemask)                                                                                         \
    F(mouseinterval)                                                                                     \
    F(getmouse)                                                                                          \
    F(wtimeout)                                                                                          \
    F(has_colors)                                                                                        \
    F(start_color)                                                                                       \
    F(use_default_colors)                                                                                \
    F(wrefresh)                                                                                          \
    F(werase)                                                                                            \
    F(getmaxx)                                                                                           \
    F(getmaxy)                                                                                           \
    F(wget_wch)                                                                                          \
    F(def_prog_mode)                                                                                     \
    F(reset_prog_mode)                                                                                   \
    F(endwin)                                                                                            \
    F(tigetstr)                                                                                          \
    F(tigetflag)                                                                                         \
    F(tiparm)

#define PODQ_CURSES_FIELD(name) __typeof__(name) *name;
static struct {
    PODQ_CURSES_FUNCTIONS(PODQ_CURSES_FIELD)
} api;
#undef PODQ_CURSES_FIELD

/// ncurses' `stdscr`, a variable of the library's: the window of the screen set_term chose.
static WINDOW **screen_window;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int loaded;
static char load_error[200];

static void load(void) {
    // The SONAME of ncursesw 6, the one Debian's libncursesw6 installs (and the headers podq was built
    // with describe). Its terminfo functions come from libtinfo.so.6, which it loads itself.
    void *lib = dlopen("libncursesw.so.6", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        const char *error = dlerror();
        snprintf(load_error, sizeof load_error, "%s", error ? error : "libncursesw.so.6 cannot be opened");
        return;
    }
#define PODQ_CURSES_LOOKUP(name)                                                                         \
    api.name = (__typeof__(name) *)dlsym(lib, #name);                                                    \
    if (api.name == NULL) {                                                                              \
        snprintf(load_error, sizeof load_error, "libncursesw.so.6 has no %s", #name);                   \
        return;                                                                                          \
    }
    PODQ_CURSES_FUNCTIONS(PODQ_CURSES_LOOKUP)
#undef PODQ_CURSES_LOOKUP
    screen_window = (WINDOW **)dlsym(lib, "stdscr");
    if (screen_window == NULL) {
        snprintf(load_error, sizeof load_error, "libncursesw.so.6 has no stdscr");
        return;
    }
    loaded = 1;
}

int podq_curses_load(char *reason, unsigned long size) {
    pthread_once(&load_once, load);
    if (!loaded && reason != NULL && size > 0) snprintf(reason, size, "%s", load_error);
    return loaded;
}

WINDOW *podq_curses_start(int in_fd, int out_fd, const char *term) {
    FILE *out = fdopen(dup(out_fd), "w");
    FILE *in = fdopen(dup(in_fd), "r");
    if (out == NULL || in == NULL) return NULL;
    SCREEN *screen = (api.newterm)(term, out, in);
    if (screen == NULL) return NULL;
    (api.set_term)(screen);
    return *screen_window;
}

void podq_curses_modes(WINDOW *window, int mouse, int wait_ms) {
    (api.cbreak)();
    (api.noecho)();
    (api.nonl)();
    (api.keypad)(window, TRUE);
    (api.curs_set)(0);
    (api.set_escdelay)(25);
    (api.mousemask)(mouse ? (BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED | BUTTON5_PRESSED) : 0, NULL);
    (api.mouseinterval)(0);
    (api.wtimeout)(window, wait_ms);
}

int podq_curses_colors(void) {
    if (!(api.has_colors)()) return 0;
    (api.start_color)();
    (api.use_default_colors)();
    return 1;
}

int podq_curses_refresh(WINDOW *window) { return (api.wrefresh)(window); }
int podq_curses_erase(WINDOW *window) { return (api.werase)(window); }
void podq_curses_timeout(WINDOW *window, int wait_ms) { (api.wtimeout)(window, wait_ms); }
int podq_curses_cursor(int visibility) { return (api.curs_set)(visibility); }
int podq_curses_width(WINDOW *window) { return (api.getmaxx)(window); }
int podq_curses_height(WINDOW *window) { return (api.getmaxy)(window); }
int podq_curses_read(WINDOW *window, wint_t *value) { return (api.wget_wch)(window, value); }
int podq_curses_suspend(void) {
    (api.def_prog_mode)();
    return (api.endwin)();
}
int podq_curses_end(void) { return (api.endwin)(); }
int podq_curses_resume(void) { return (api.reset_prog_mode)(); }

int podq_curses_read_mouse(int *x, int *y) {
    MEVENT event;
    if ((api.getmouse)(&event) != OK) return 0;
    *x = event.x;
    *y = event.y;
    if (event.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED)) return 1;
    if (event.bstate & BUTTON4_PRESSED) return 2;
    if (event.bstate & BUTTON5_PRESSED) return 3;
    return 0;
}

const char *podq_capability(const char *name) {
    char *value = (api.tigetstr)(name);
    return value == (char *)-1 ? NULL : value;
}

int podq_flag(const char *name) { return (api.tigetflag)(name) > 0; }

const char *podq_tiparm1(const char *cap, int a) { return (api.tiparm)(cap, a); }
const char *podq_tiparm2(const char *cap, int a, int b) { return (api.tiparm)(cap, a, b); }
