// The ncursesw shim. SwiftPM drops pkg-config's -D flags, so the wide-character defines live here.
#ifndef PODQ_CNCURSESW_SHIM_H
#define PODQ_CNCURSESW_SHIM_H

#define _XOPEN_SOURCE_EXTENDED 1
#define NCURSES_WIDECHAR 1
#include <locale.h>
#include <langinfo.h>
#include <wchar.h>
#include <stdio.h>
#include <unistd.h>
#include <ncursesw/curses.h>

// Macros and globals Swift cannot import (see docs/DECISIONS.md and platform notes).
static inline int podq_err(void) { return ERR; }

/// Asks the terminal for clicks and the wheel (no motion reports), or stops asking.
static inline void podq_mouse(int on) {
    mousemask(on ? (BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED | BUTTON5_PRESSED) : 0, NULL);
    mouseinterval(0);
}

/// Reads the mouse event behind a KEY_MOUSE: 1 a click (button 1), 2 the wheel up, 3 the wheel down,
/// 0 anything else or nothing; (x, y) where it happened.
static inline int podq_read_mouse(int *x, int *y) {
    MEVENT event;
    if (getmouse(&event) != OK) return 0;
    *x = event.x;
    *y = event.y;
    if (event.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED)) return 1;
    if (event.bstate & BUTTON4_PRESSED) return 2;
    if (event.bstate & BUTTON5_PRESSED) return 3;
    return 0;
}

static inline int podq_key_mouse(void) { return KEY_MOUSE; }

/// True when the current locale's codeset is UTF-8.
static inline int podq_locale_is_utf8(void) {
    const char *cs = nl_langinfo(CODESET);
    return cs != NULL && (cs[0] == 'U' || cs[0] == 'u') && (cs[1] == 'T' || cs[1] == 't') && (cs[2] == 'F' || cs[2] == 'f');
}

int wcwidth(wchar_t c);

/// The terminal's string capability `name` (terminfo: "cup", "sgr0", "bold"…), or NULL when it has
/// none.
static inline const char *podq_capability(const char *name) {
    char *value = tigetstr(name);
    return value == (char *) -1 ? NULL : value;
}

/// Whether the terminal has the boolean capability `name` (terminfo: "am", "xenl").
static inline int podq_flag(const char *name) { return tigetflag(name) > 0; }

/// A capability with one or two numbers filled in (tiparm is variadic: Swift cannot call it).
static inline const char *podq_tiparm1(const char *cap, int a) { return tiparm(cap, a); }
static inline const char *podq_tiparm2(const char *cap, int a, int b) { return tiparm(cap, a, b); }

/// Starts curses for terminal type `term` (NULL: $TERM) reading `in_fd` and writing `out_fd`, without
/// exiting on failure (initscr exits the process when TERM is unknown). Returns the main window, or
/// NULL.
static inline WINDOW *podq_start_screen_on(int in_fd, int out_fd, const char *term) {
    FILE *out = fdopen(dup(out_fd), "w");
    FILE *in = fdopen(dup(in_fd), "r");
    if (out == NULL || in == NULL) return NULL;
    SCREEN *screen = newterm(term, out, in);
    if (screen == NULL) return NULL;
    set_term(screen);
    return stdscr;
}

#endif
