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
static inline attr_t podq_a_bold(void) { return A_BOLD; }
static inline attr_t podq_a_reverse(void) { return A_REVERSE; }
static inline attr_t podq_a_dim(void) { return A_DIM; }
static inline attr_t podq_a_underline(void) { return A_UNDERLINE; }
static inline attr_t podq_a_normal(void) { return A_NORMAL; }
static inline int podq_key_resize(void) { return KEY_RESIZE; }
static inline int podq_colors(void) { return COLORS; }
static inline int podq_ok(void) { return OK; }
static inline int podq_err(void) { return ERR; }

/// Draws one wide character with attributes and a colour pair at (y, x).
static inline int podq_put_wchar(WINDOW *win, int y, int x, wchar_t ch, attr_t attrs, short pair) {
    cchar_t cell;
    wchar_t text[2] = { ch, L'\0' };
    setcchar(&cell, text, attrs, pair, NULL);
    return mvwadd_wch(win, y, x, &cell);
}

/// Writes one grapheme cluster at (y, x): its first scalar and the zero-width ones that follow (an
/// accent, a variation selector, a joiner), as many as a cell holds; a cluster ncurses cannot hold in
/// one cell keeps its first scalar.
static inline int podq_put_cluster(WINDOW *win, int y, int x, const wchar_t *chars, int count, attr_t attrs, short pair) {
    cchar_t cell;
    wchar_t text[CCHARW_MAX + 1];
    int n = 0;
    for (int i = 0; i < count && n < CCHARW_MAX; i++) {
        if (i > 0 && wcwidth(chars[i]) != 0) break;
        text[n++] = chars[i];
    }
    text[n] = L'\0';
    if (setcchar(&cell, text, attrs, pair, NULL) == ERR) {
        wchar_t first[2] = { chars[0], L'\0' };
        setcchar(&cell, first, attrs, pair, NULL);
    }
    return mvwadd_wch(win, y, x, &cell);
}

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

/// Starts curses on the terminal of file descriptors 0 and 1 without exiting on failure (initscr
/// exits the process when TERM is unknown). Returns the main window, or NULL.
static inline WINDOW *podq_start_screen(void) {
    FILE *out = fdopen(dup(1), "w");
    FILE *in = fdopen(dup(0), "r");
    if (out == NULL || in == NULL) return NULL;
    SCREEN *screen = newterm(NULL, out, in);
    if (screen == NULL) return NULL;
    set_term(screen);
    return stdscr;
}

#endif
