// ncursesw for the TUI, loaded with dlopen when the TUI starts, not linked: a download, the queue and
// every other command run without it (docs/DECISIONS.md, "ncurses is opened by the TUI"). Swift calls
// the podq_curses_* functions below; CursesLibrary.c fills their table once, in podq_curses_load.
// SwiftPM drops pkg-config's -D flags, so the wide-character defines live here.
#ifndef PODQ_CNCURSESW_H
#define PODQ_CNCURSESW_H

#define _XOPEN_SOURCE_EXTENDED 1
#define NCURSES_WIDECHAR 1
#include <locale.h>
#include <langinfo.h>
#include <wchar.h>
#include <stdio.h>
#include <unistd.h>
#include <ncursesw/curses.h>

/// Loads ncursesw (libncursesw.so.6) and the functions below, once for the process. Returns 1 when
/// every function is there; else 0, with why (dlerror's words) in `reason`. Call before any other.
int podq_curses_load(char *reason, unsigned long size);

/// Starts curses for terminal type `term` (NULL: $TERM) reading `in_fd` and writing `out_fd`, without
/// exiting on failure (initscr exits the process when TERM is unknown). Returns the main window, or
/// NULL.
WINDOW *podq_curses_start(int in_fd, int out_fd, const char *term);

/// The modes the TUI runs in: keys one at a time, unechoed, decoded (the keypad), no cursor, a short
/// ESC delay; clicks and the wheel when `mouse` (no motion reports); reads that wait `wait_ms`.
void podq_curses_modes(WINDOW *window, int mouse, int wait_ms);

/// Turns colours on when the terminal has them; 1 when it did.
int podq_curses_colors(void);

int podq_curses_refresh(WINDOW *window);
int podq_curses_erase(WINDOW *window);
void podq_curses_timeout(WINDOW *window, int wait_ms);
int podq_curses_cursor(int visibility);
int podq_curses_width(WINDOW *window);
int podq_curses_height(WINDOW *window);
/// wget_wch: ERR, OK (a character) or KEY_CODE_YES (a key code) and the value read.
int podq_curses_read(WINDOW *window, wint_t *value);
/// Leaves curses mode, keeping the program's modes for podq_curses_resume (def_prog_mode, endwin).
int podq_curses_suspend(void);
/// Leaves curses mode for good (endwin).
int podq_curses_end(void);
/// Comes back to curses mode after podq_curses_suspend (reset_prog_mode).
int podq_curses_resume(void);

// Macros and values Swift cannot import.
static inline int podq_err(void) { return ERR; }
static inline int podq_key_code_yes(void) { return KEY_CODE_YES; }
static inline int podq_key_mouse(void) { return KEY_MOUSE; }

/// Reads the mouse event behind a KEY_MOUSE: 1 a click (button 1), 2 the wheel up, 3 the wheel down,
/// 0 anything else or nothing; (x, y) where it happened.
int podq_curses_read_mouse(int *x, int *y);

/// True when the current locale's codeset is UTF-8.
static inline int podq_locale_is_utf8(void) {
    const char *cs = nl_langinfo(CODESET);
    return cs != NULL && (cs[0] == 'U' || cs[0] == 'u') && (cs[1] == 'T' || cs[1] == 't') && (cs[2] == 'F' || cs[2] == 'f');
}

int wcwidth(wchar_t c);

/// The terminal's string capability `name` (terminfo: "cup", "sgr0", "bold"…), or NULL when it has
/// none.
const char *podq_capability(const char *name);

/// Whether the terminal has the boolean capability `name` (terminfo: "am", "xenl").
int podq_flag(const char *name);

/// A capability with one or two numbers filled in (tiparm is variadic: Swift cannot call it).
const char *podq_tiparm1(const char *cap, int a);
const char *podq_tiparm2(const char *cap, int a, int b);

#endif
